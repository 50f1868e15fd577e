// fft_multipass.cuh - functors of FFTs longer than one block holds.
//
// Four-step (N = N1 * N2, the axis seen as [outer, N1, N2, inner] with
// element j = j1 N2 + j2): pass 1 runs length-N1 transforms down the columns
// (stride N2 * inner) and multiplies entry (k1, j2) by w_N^(k1 j2); pass 2
// runs length-N2 transforms along the rows and writes bin k1 + N1 k2. Pass 1
// reads the transform's logical Load through FourStepColumnLoad, pass 2
// writes its logical Store through FourStepRowStore, so whatever a one-block
// transform fuses at its ends (a real or DCT adapter, a pointwise prologue
// or epilogue) fuses into a multi-pass one unchanged. The intermediate array
// between the passes has the logical layout [outer, N, inner].
//
// Bluestein beyond one block (the chirp-z convolution of length M >= 2N - 1
// as two four-step FFTs of length M): the chirp product and zero padding
// fuse into the forward FFT's first load (ChirpPadLoad), the filter product
// into its last store (TableStore), the final chirp into the inverse FFT's
// last store (ChirpStore).
//
// axis_map runs the pointwise steps that cannot fuse (a real transform's
// packing reads bins k and H - k together) over [outer, n, inner].
//
// Host: axis_map has a phased form that takes runs of blocks
// (host_emulation.h, "Phased kernels"): each grid-stride round's elements of
// the run in memory order, without a division per element. The first pass's
// phased stores read their twiddles from products made once per kernel
// (FourStepTwiddles) instead of gathering the two tables' entries.
#pragma once

#include "fft_io.cuh"
#if defined(SPECTRAL_HOST_EMULATION)
#include <pthread.h>  // not <mutex>: most C++ library headers clash with host_emulation.h

#include <new>  // std::nothrow
#endif

namespace spectral_fft {

/// Pass 1's Load: batch b = (outer * N2 + j2) * inner + in of the column
/// transforms, element j1, is logical element j1 N2 + j2 of line
/// outer * inner + in.
template <typename Load>
struct FourStepColumnLoad {
  Load load;
  int n2, inner;
  __device__ __forceinline__ auto operator()(int batch, int j1) const {
    int in = batch % inner, rest = batch / inner;
    int outer = rest / n2, j2 = rest - outer * n2;
    return load(outer * inner + in, j1 * n2 + j2);
  }
  /// Where element j1 of `batch` is, when `load` says (has_address).
  template <typename L = Load>
  __device__ __forceinline__ auto address(int batch, int j1) const
      -> decltype(static_cast<const L&>(load).address(0, 0)) {
    int in = batch % inner, rest = batch / inner;
    int outer = rest / n2, j2 = rest - outer * n2;
    return load.address(outer * inner + in, j1 * n2 + j2);
  }
};

#if defined(SPECTRAL_HOST_EMULATION)
/// FourStepTwiddleStore's w_N^(k1 j2) for the V lanes j2 + l of a phased
/// store: hi[m >> shift] * lo[m & mask] with m = k1 (j2 + l), lane by lane
/// (operator()'s arithmetic: the same bits).
template <typename L, typename T>
__forceinline__ cplx<L> four_step_twiddle_lanes(const cplx<T>* hi, const cplx<T>* lo, int shift,
                                                int k1, int j2) {
  const long long mask = (1LL << shift) - 1;
  const T* at_hi[L::size];
  const T* at_lo[L::size];
  long long m = (long long)k1 * j2;
  for (int lane = 0; lane < L::size; ++lane, m += k1) {
    at_hi[lane] = &hi[m >> shift].re;
    at_lo[lane] = &lo[m & mask].re;
  }
  cplx<L> h, l;
  ::spectral_host::gather_pairs(at_hi, h.re, h.im);
  ::spectral_host::gather_pairs(at_lo, l.re, l.im);
  return h * l;
}

/// The twiddles of a four-step's first pass (N1-point columns, N2 of them a
/// line) laid out for its phased stores: entry g N1 + k1 is
/// four_step_twiddle_lanes(k1, g V), so a group of V columns from j2 = g V
/// reads its N1 twiddles in order instead of gathering 2 V table entries
/// for each (measured: a third of the pass's time at N = 65536). Made once
/// per kernel and tables, by the first thread that needs it, and shared by
/// all; kept while the kernel is loaded. Found by the tables' values, not
/// their addresses: a freed table's address may come back holding others.
template <typename T, typename L, int N1>
class FourStepTwiddles {
 public:
  /// The twiddles made from `hi` and `lo` for N2 = n2 (a multiple of V),
  /// or nullptr where they would take more than kMaxBytes, memory runs
  /// out, or the kernel keeps kMaxTables made from other tables already
  /// (never with the planner's tables; each call then takes the lock).
  static const cplx<L>* find(const cplx<T>* hi, const cplx<T>* lo, int shift, int n2) {
    if ((long long)N1 * n2 * sizeof(cplx<T>) > kMaxBytes) return nullptr;
    static thread_local const FourStepTwiddles* last = nullptr;  // this thread's last answer
    if (last != nullptr && last->made_from(hi, lo, shift, n2)) return last->table_;
    static Made made;
    pthread_mutex_lock(&made.mutex);
    const FourStepTwiddles* found = nullptr;
    for (int i = 0; i < made.count && found == nullptr; ++i)
      if (made.twiddles[i]->made_from(hi, lo, shift, n2)) found = made.twiddles[i];
    if (found == nullptr && made.count < kMaxTables) {
      FourStepTwiddles* twiddles = new (std::nothrow) FourStepTwiddles(hi, lo, shift, n2);
      if (twiddles != nullptr && twiddles->table_ != nullptr)
        found = made.twiddles[made.count++] = twiddles;
      else
        delete twiddles;  // out of memory: the stores gather instead
    }
    pthread_mutex_unlock(&made.mutex);
    if (found != nullptr) last = found;
    return found != nullptr ? found->table_ : nullptr;
  }

  FourStepTwiddles(const FourStepTwiddles&) = delete;
  FourStepTwiddles& operator=(const FourStepTwiddles&) = delete;
  ~FourStepTwiddles() {
    delete[] hi_;
    delete[] lo_;
    delete[] table_;
  }

 private:
  static constexpr long long kMaxBytes = 1 << 20;  // N = 65536 in double, 131072 in float
  static constexpr int kMaxTables = 4;             // one in practice: a kernel's tables are fixed

  /// The kernel's twiddles so far, freed when it is unloaded.
  struct Made {
    pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
    FourStepTwiddles* twiddles[kMaxTables] = {};
    int count = 0;
    ~Made() {
      for (int i = 0; i < count; ++i) delete twiddles[i];
    }
  };

  FourStepTwiddles(const cplx<T>* hi, const cplx<T>* lo, int shift, int n2)
      : shift_(shift), n2_(n2) {
    // The entries the twiddles read: m = k1 j2 up to (N1 - 1)(N2 - 1).
    const long long top = (long long)(N1 - 1) * (n2 - 1), mask = (1LL << shift) - 1;
    hi_count_ = (top >> shift) + 1;
    lo_count_ = (top < mask ? top : mask) + 1;
    hi_ = new (std::nothrow) cplx<T>[hi_count_];
    lo_ = new (std::nothrow) cplx<T>[lo_count_];
    if (hi_ == nullptr || lo_ == nullptr) return;  // table_ stays nullptr
    memcpy(hi_, hi, hi_count_ * sizeof(cplx<T>));
    memcpy(lo_, lo, lo_count_ * sizeof(cplx<T>));
    table_ = new (std::nothrow) cplx<L>[size_t(n2 / L::size) * N1];
    if (table_ == nullptr) return;
    for (int g = 0; g < n2 / L::size; ++g)
      for (int k1 = 0; k1 < N1; ++k1)
        table_[size_t(g) * N1 + k1] = four_step_twiddle_lanes<L>(hi, lo, shift, k1, g * L::size);
  }

  bool made_from(const cplx<T>* hi, const cplx<T>* lo, int shift, int n2) const {
    return shift == shift_ && n2 == n2_ && memcmp(hi, hi_, hi_count_ * sizeof(cplx<T>)) == 0 &&
           memcmp(lo, lo_, lo_count_ * sizeof(cplx<T>)) == 0;
  }

  int shift_, n2_;
  long long hi_count_, lo_count_;
  cplx<T>* hi_ = nullptr;  // the entries of the tables it was made from
  cplx<T>* lo_ = nullptr;
  cplx<L>* table_ = nullptr;  // nullptr when out of memory
};
#endif

/// Pass 1's Store: entry (k1, j2) times w_N^(k1 j2) (conjugated for the
/// inverse), into the intermediate [outer, N1, N2, inner]. w_N^m =
/// hi[m >> shift] * lo[m & (2^shift - 1)]: two small tables instead of one
/// of N entries.
template <typename T, bool FORWARD>
struct FourStepTwiddleStore {
  cplx<T>* data;
  AxisLayout layout;  // n = N1, inner = N2 * inner
  int inner;          // the axis' own stride
  const cplx<T>* hi;
  const cplx<T>* lo;
  int shift;
  __device__ __forceinline__ void operator()(int batch, int k1, cplx<T> value) const {
    long long m = (long long)k1 * ((batch % layout.inner) / inner);
    cplx<T> w = hi[m >> shift] * lo[m & ((1LL << shift) - 1)];
    data[layout.offset(batch, k1)] = value * (FORWARD ? w : conj(w));
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// The phased forms' stores of V lines at once (fft_stockham.cuh's
  /// store_lanes), where the lanes are V consecutive j2 of one row (the
  /// axis is the last, inner == 1): each k1's twiddles in lanes, from
  /// FourStepTwiddles where the lanes start at a multiple of V, else
  /// gathered (four_step_twiddle_lanes), the products lane by lane (the
  /// operator()'s arithmetic: the same bits), the row's V entries stored
  /// side by side.
  template <int N, typename L>
  __forceinline__ bool put_lanes(const int* batch, const cplx<L>* y) const {
    constexpr int V = L::size;
    const int j2 = batch[0] % layout.inner;
    if (inner != 1 || j2 + V > layout.inner || batch[V - 1] != batch[0] + V - 1) return false;
    cplx<T>* row = &data[layout.offset(batch[0], 0)];  // entry k1 at row[k1 * layout.inner]
    const cplx<L>* made = j2 % V == 0 && layout.inner % V == 0
                              ? FourStepTwiddles<T, L, N>::find(hi, lo, shift, layout.inner)
                              : nullptr;
    if (made != nullptr) made += size_t(j2 / V) * N;
    for (int k1 = 0; k1 < N; ++k1) {
      const cplx<L> w =
          made != nullptr ? made[k1] : four_step_twiddle_lanes<L>(hi, lo, shift, k1, j2);
      const cplx<L> value = y[k1] * (FORWARD ? w : conj(w));
      ::spectral_host::store_pairs(&row[(long long)k1 * layout.inner].re, value.re, value.im);
    }
    return true;
  }
#endif
};

/// Pass 2's Store: batch b = (outer * N1 + k1) * inner + in of the row
/// transforms, bin k2, is logical bin k1 + N1 k2 of line outer * inner + in
/// (the four-step's transposed output order).
template <typename Store>
struct FourStepRowStore {
  Store store;
  int n1, inner;
  template <typename V>
  __device__ __forceinline__ void operator()(int batch, int k2, V value) const {
    int in = batch % inner, rest = batch / inner;
    int outer = rest / n1, k1 = rest - outer * n1;
    store(outer * inner + in, k1 + n1 * k2, value);
  }
#if defined(SPECTRAL_HOST_EMULATION)
  /// The phased forms' stores of V lines at once (fft_stockham.cuh's
  /// store_lanes), where the lanes are V consecutive k1 of one outer line
  /// (inner == 1) and `store` writes a line's elements side by side
  /// (has_put_run): each k2's V bins are neighbours, stored as one run.
  template <int N, typename L>
  __forceinline__ bool put_lanes(const int* batch, const cplx<L>* y) const {
    if constexpr (has_put_run<Store>::value) {
      constexpr int V = L::size;
      const int outer = batch[0] / n1, k1 = batch[0] - outer * n1;
      if (inner != 1 || k1 + V > n1 || batch[V - 1] != batch[0] + V - 1 || !store.runs())
        return false;
      for (int k2 = 0; k2 < N; ++k2) store.put_run(outer, k1 + n1 * k2, y[k2]);
      return true;
    } else {
      return false;
    }
  }
#endif
};

/// Bluestein's first load: x_j * chirp_j for j < N, zero up to M.
template <typename T, typename Load>
struct ChirpPadLoad {
  Load load;
  const cplx<T>* chirp;
  int n;
  __device__ __forceinline__ cplx<T> operator()(int batch, int j) const {
    return j < n ? load(batch, j) * chirp[j] : make_cplx<T>(T(0), T(0));
  }
};

/// Bluestein's last store: keeps j < N, times chirp_j.
template <typename T, typename Store>
struct ChirpStore {
  Store store;
  const cplx<T>* chirp;
  int n;
  __device__ __forceinline__ void operator()(int batch, int j, cplx<T> value) const {
    if (j < n) store(batch, j, value * chirp[j]);
  }
};

/// Stores value_k * table_k (Bluestein's filter spectrum).
template <typename T, typename Store>
struct TableStore {
  Store store;
  const cplx<T>* table;
  __device__ __forceinline__ void operator()(int batch, int k, cplx<T> value) const {
    store(batch, k, value * table[k]);
  }
};

#if defined(SPECTRAL_HOST_EMULATION)
/// Whether an axis_map Value gives V elements at once: Lanes (the lanes
/// type), lanes_at(batch, i) (whether it can from element i) and
/// lanes(batch, i) (elements i to i + V - 1, each as value(batch, i + l)
/// gives it).
template <typename F, typename = void>
struct has_value_lanes {
  static constexpr bool value = false;
};
template <typename F>
struct has_value_lanes<F, decltype((void)std::declval<const F&>().lanes_at(0, 0))> {
  static constexpr bool value = true;
};
#endif

/// store(batch, i, value(batch, i)) for every element of [outer, n, inner]
/// (count of them), visited in memory order so that any inner coalesces;
/// a grid-stride loop with no barrier.
template <typename Value, typename Store>
__device__ void axis_map(long long count, int n, int inner, Value value, Store store) {
  const long long step = (long long)gridDim.x * blockDim.x;
#if defined(SPECTRAL_HOST_EMULATION)
  if (const int blocks = ::spectral_host::take_block_run()) {
    // Each round, the run's threads take the elements [start, start + width).
    const long long width = (long long)blocks * blockDim.x;
    for (long long start = (long long)blockIdx.x * blockDim.x; start < count; start += step) {
      const long long end = start + width < count ? start + width : count;
      long long rest = start / inner;
      int in = int(start - rest * inner);
      long long outer = rest / n;
      int i = int(rest - outer * n);
      if (inner == 1) {  // a line's elements in a row: batch fixed over the inner loop
        for (long long e = start; e < end; ++outer, i = 0) {
          const int batch = int(outer), stop = end - e < n - i ? i + int(end - e) : n;
          e += stop - i;
          if constexpr (has_value_lanes<Value>::value && has_put_run<Store>::value) {
            // V elements at once where the Value can and the Store's lines
            // are runs.
            constexpr int V = Value::Lanes::size;
            if (store.runs())
              while (i < stop)
                if (i + V <= stop && value.lanes_at(batch, i)) {
                  store.put_run(batch, i, value.lanes(batch, i));
                  i += V;
                } else {
                  store(batch, i, value(batch, i));
                  ++i;
                }
          }
          for (; i < stop; ++i) store(batch, i, value(batch, i));
        }
      } else {
        for (long long e = start; e < end; ++e) {
          const int batch = int(outer * inner + in);
          store(batch, i, value(batch, i));
          if (++in == inner) {
            in = 0;
            if (++i == n) i = 0, ++outer;
          }
        }
      }
    }
    return;
  }
#endif
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < count; e += step) {
    long long rest = e / inner;
    int in = int(e - rest * inner);
    long long outer = rest / n;
    int i = int(rest - outer * n);
    int batch = int(outer * inner + in);
    store(batch, i, value(batch, i));
  }
}

}  // namespace spectral_fft
