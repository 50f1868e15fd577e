// matmul.cuh - batched matrix products and FNO channel mixing.
//
// matmul: [.., M, K] x [.., K, N] -> [.., M, N] for float, double,
// cplx<float>, cplx<double>, int and long long (wrapping, as the dialect's
// integers). A block computes a BM x BN tile of one batch entry; K is
// walked BK at a time through shared memory (A stored k-major so both
// operands are read along the tile's fast dim), and each of the
// (BM/TM) x (BN/TN) threads keeps a TM x TN block of results in registers.
// A thread's rows and columns are strided by the thread grid (rows ty +
// i*BM/TM, columns tx + j*BN/TN): the shared reads of a warp are broadcasts
// or consecutive, and its stores are coalesced. A complex product is four
// real products (with FMA contraction on the GPU: as cheap as Gauss's three,
// without their cancellation error).
//
// Loads are `load_a(batch, m, k)`, `load_b(batch, k, n)`, the store
// `store(batch, m, n, value)`: numpy batch broadcasting (BatchStrides with
// stride 0), transposed operands and fused prologues/epilogues (bias,
// activation, scaling) are functors.
//
// channel_mix: the FNO's bixy,ioxy->boxy, out[b, o, s] = sum_i x[b, i, s] *
// w[i, o, s] over the flattened modes s: a small matrix product per mode.
// Threads run along s (coalesced loads of x and w, whose mode axis is
// contiguous); each keeps a TB x TO block of (batch, out channel) results
// and reuses every loaded x over TO and every w over TB.
//
// Host: matmul has a phased form (host_emulation.h, "Phased kernels",
// matmul_phased): a tile's loads, then its products, as loops over the
// tile; each result takes the same multiply-adds in the same order as its
// thread's. channel_mix has one too (channel_mix_phased): the block's modes
// a SIMD width at a time, a lane each (host_lanes.h), each with its thread's
// multiply-adds.
#pragma once

#include "common.cuh"  // SPECTRAL_HOST_PHASED, for the units of the phased form
#include "fft_complex.cuh"
#if defined(SPECTRAL_HOST_EMULATION)
#include "host_lanes.h"
#endif

namespace spectral_linalg {

using spectral_fft::cplx;

/// acc + a * b.
__device__ __forceinline__ float mac(float acc, float a, float b) { return acc + a * b; }
__device__ __forceinline__ double mac(double acc, double a, double b) { return acc + a * b; }
/// Integers wrap modulo 2^bits as the dialect's do: the arithmetic is unsigned (no overflow UB).
__device__ __forceinline__ int mac(int acc, int a, int b) {
  return int(unsigned(acc) + unsigned(a) * unsigned(b));
}
__device__ __forceinline__ long long mac(long long acc, long long a, long long b) {
  return (long long)((unsigned long long)acc + (unsigned long long)a * (unsigned long long)b);
}
template <typename T>
__device__ __forceinline__ cplx<T> mac(cplx<T> acc, cplx<T> a, cplx<T> b) {
  acc.re = acc.re + a.re * b.re - a.im * b.im;
  acc.im = acc.im + a.re * b.im + a.im * b.re;
  return acc;
}

constexpr int kMaxBatchRank = 4;

/// Numpy batch broadcasting for one operand: output batch entry `batch`
/// (row-major over dims) reads the operand's matrix at offset(batch);
/// a stride of 0 repeats the operand along that dim.
struct BatchStrides {
  int rank;
  long long dims[kMaxBatchRank];
  long long strides[kMaxBatchRank];  // in elements
  __device__ __forceinline__ long long offset(long long batch) const {
    long long at = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const long long q = batch / dims[d];
      at += (batch - q * dims[d]) * strides[d];
      batch = q;
    }
    return at;
  }
};

/// Entry (r, c) of a batch entry's matrix at offset + r * row_stride + c *
/// col_stride (a transposed operand swaps the two strides).
template <typename V>
struct MatrixLoad {
  const V* data;
  BatchStrides batch;
  long long row_stride, col_stride;
  __device__ __forceinline__ V operator()(long long b, int r, int c) const {
    return data[batch.offset(b) + r * row_stride + c * col_stride];
  }
};

/// A contiguous [batches, rows, cols] result.
template <typename V>
struct MatrixStore {
  V* data;
  int rows, cols;
  __device__ __forceinline__ void operator()(long long b, int r, int c, V value) const {
    data[(b * rows + r) * cols + c] = value;
  }
};

/// Threads of a matmul block: blockDim = (matmul_threads<...>(), 1, 1).
template <int BM, int BN, int TM, int TN>
__host__ __device__ constexpr int matmul_threads() {
  return (BM / TM) * (BN / TN);
}

#if defined(SPECTRAL_HOST_EMULATION)
/// acc[n] = mac(acc[n], a, b[n]) for n < BN: BN results of one row taking
/// one more multiply-add, lanes at a time for float and double.
template <int BN, typename V>
__forceinline__ void mac_row(V* acc, V a, const V* b) {
  if constexpr (__is_same(V, float) || __is_same(V, double)) {
    using L = ::spectral_host::wide_lanes<V>;
    if constexpr (BN % L::size == 0) {
      const L lane_a(a);
      for (int n = 0; n < BN; n += L::size) {
        L sum, lane_b;
        __builtin_memcpy(&sum.v, acc + n, sizeof sum.v);
        __builtin_memcpy(&lane_b.v, b + n, sizeof lane_b.v);
        sum = sum + lane_a * lane_b;  // mac: acc + a * b, not contracted
        __builtin_memcpy(acc + n, &sum.v, sizeof sum.v);
      }
      return;
    }
  }
  for (int n = 0; n < BN; ++n) acc[n] = mac(acc[n], a, b[n]);
}

/// The phased form of matmul for one block: per tile, the A and B tiles as
/// the threads load them, then for each result (m, n) of the tile, held by
/// thread (ty, tx) = (m % TY, n % TX) as acc[m / TY][n / TX], the same
/// multiply-adds in the same order (k ascending, the zeros past K too).
template <int BM, int BN, int BK, typename V, typename LoadA, typename LoadB, typename Store>
void matmul_phased(int M, int N, int K, long long batches, LoadA load_a, LoadB load_b,
                   Store store) {
  V a_tile[BK][BM], b_tile[BK][BN], acc[BM][BN];
  const long long tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  for (long long w = blockIdx.x; w < batches * tiles_m * tiles_n; w += gridDim.x) {
    const long long rest = w / tiles_n, b = rest / tiles_m;
    const int m0 = int(rest - b * tiles_m) * BM, n0 = int(w - rest * tiles_n) * BN;
    for (int m = 0; m < BM; ++m)
      for (int n = 0; n < BN; ++n) acc[m][n] = V{};
    for (int k0 = 0; k0 < K; k0 += BK) {
      for (int m = 0; m < BM; ++m)
        for (int kk = 0; kk < BK; ++kk)
          a_tile[kk][m] = m0 + m < M && k0 + kk < K ? load_a(b, m0 + m, k0 + kk) : V{};
      for (int kk = 0; kk < BK; ++kk)
        for (int n = 0; n < BN; ++n)
          b_tile[kk][n] = k0 + kk < K && n0 + n < N ? load_b(b, k0 + kk, n0 + n) : V{};
      for (int m = 0; m < BM; ++m)
        for (int kk = 0; kk < BK; ++kk) mac_row<BN>(acc[m], a_tile[kk][m], b_tile[kk]);
    }
    for (int m = 0; m < BM && m0 + m < M; ++m)
      for (int n = 0; n < BN && n0 + n < N; ++n) store(b, m0 + m, n0 + n, acc[m][n]);
  }
}
#endif

/// `batches` products of M x K by K x N. Tile w of the grid stride is
/// (batch, tile row, tile column) = w in row-major order.
template <int BM, int BN, int BK, int TM, int TN, typename V, typename LoadA, typename LoadB,
          typename Store>
__device__ void matmul(int M, int N, int K, long long batches, LoadA load_a, LoadB load_b,
                       Store store) {
  constexpr int TX = BN / TN, TY = BM / TM, THREADS = TX * TY;
  static_assert(BM % TM == 0 && BN % TN == 0, "TM, TN must divide BM, BN");
  static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0,
                "the threads must split the A and B tiles evenly");
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    matmul_phased<BM, BN, BK, V>(M, N, K, batches, load_a, load_b, store);
    return;
  }
#endif
  __shared__ V a_tile[BK][BM + 1];  // k-major; +1: the k-fastest fill spreads over banks
  __shared__ V b_tile[BK][BN];
  const int t = threadIdx.x, tx = t % TX, ty = t / TX;
  const long long tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  for (long long w = blockIdx.x; w < batches * tiles_m * tiles_n; w += gridDim.x) {
    const long long rest = w / tiles_n, b = rest / tiles_m;
    const int m0 = int(rest - b * tiles_m) * BM, n0 = int(w - rest * tiles_n) * BN;
    V acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = V{};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
      for (int l = 0; l < BM * BK / THREADS; ++l) {
        const int e = t + l * THREADS, kk = e % BK, m = e / BK;
        a_tile[kk][m] = m0 + m < M && k0 + kk < K ? load_a(b, m0 + m, k0 + kk) : V{};
      }
#pragma unroll
      for (int l = 0; l < BK * BN / THREADS; ++l) {
        const int e = t + l * THREADS, n = e % BN, kk = e / BN;
        b_tile[kk][n] = k0 + kk < K && n0 + n < N ? load_b(b, k0 + kk, n0 + n) : V{};
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        V a[TM], bv[TN];
#pragma unroll
        for (int i = 0; i < TM; ++i) a[i] = a_tile[kk][ty + i * TY];
#pragma unroll
        for (int j = 0; j < TN; ++j) bv[j] = b_tile[kk][tx + j * TX];
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = mac(acc[i][j], a[i], bv[j]);
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int m = m0 + ty + i * TY, n = n0 + tx + j * TX;
        if (m < M && n < N) store(b, m, n, acc[i][j]);
      }
  }
}

// ---- Channel mixing --------------------------------------------------------------------

/// Element (a, c, s) of a [A, C, S] tensor: x is [B, I, S], w [I, O, S], the result [B, O, S].
template <typename V>
struct ModeLoad {
  const V* data;
  int channels;   // C
  long long modes;  // S
  __device__ __forceinline__ V operator()(int a, int c, long long s) const {
    return data[((long long)a * channels + c) * modes + s];
  }
};

template <typename V>
struct ModeStore {
  V* data;
  int channels;
  long long modes;
  __device__ __forceinline__ void operator()(int a, int c, long long s, V value) const {
    data[((long long)a * channels + c) * modes + s] = value;
  }
};

#if defined(SPECTRAL_HOST_EMULATION)
/// channel_mix_phased's values of V, a lane per mode: lanes of float and
/// double, complex values of lanes (the dialect's channel_mix takes those);
/// spectral_fft's set_lane and lane_of reach a lane of either.
template <typename V>
struct ModeLanes {
  using type = ::spectral_host::wide_lanes<V>;
  static constexpr int size = type::size;
};
template <typename T>
struct ModeLanes<cplx<T>> {
  using type = cplx<::spectral_host::wide_lanes<T>>;
  static constexpr int size = ::spectral_host::wide_lanes<T>::size;
};

/// mac of lanes: each lane's acc + a * b (cplx<lanes> takes mac's complex form).
template <typename T, int N>
__forceinline__ ::spectral_host::lanes<T, N> mac(::spectral_host::lanes<T, N> acc,
                                                 ::spectral_host::lanes<T, N> a,
                                                 ::spectral_host::lanes<T, N> b) {
  return acc + a * b;
}

/// channel_mix's phased form: the block's threads' modes, a SIMD width at a
/// time (lanes past the modes repeat the last one and store nothing), each
/// lane's results with its thread's multiply-adds in its order.
template <int THREADS, int TB, int TO, typename V, typename LoadX, typename LoadW, typename Store>
__forceinline__ void channel_mix_phased(int batch, int in_channels, int out_channels,
                                        long long modes, LoadX load_x, LoadW load_w, Store store) {
  using spectral_fft::lane_of;
  using spectral_fft::set_lane;
  using Lanes = ModeLanes<V>;
  using W = typename Lanes::type;
  constexpr int VL = Lanes::size;
  static_assert(THREADS % VL == 0, "a block's modes in whole groups of lanes");
  for (int b0 = blockIdx.z * TB; b0 < batch; b0 += gridDim.z * TB)
    for (int o0 = blockIdx.y * TO; o0 < out_channels; o0 += gridDim.y * TO)
      for (long long base = (long long)blockIdx.x * THREADS; base < modes;
           base += (long long)gridDim.x * THREADS)
        for (long long s0 = base; s0 < base + THREADS && s0 < modes; s0 += VL) {
          long long s[VL];
          for (int l = 0; l < VL; ++l) s[l] = s0 + l < modes ? s0 + l : modes - 1;
          const int valid = modes - s0 < VL ? int(modes - s0) : VL;
          W acc[TB][TO] = {};
          for (int c = 0; c < in_channels; ++c) {
            W x[TB], w[TO];
            for (int i = 0; i < TB; ++i)
              for (int l = 0; l < VL; ++l)
                set_lane(x[i], l, b0 + i < batch ? load_x(b0 + i, c, s[l]) : V{});
            for (int j = 0; j < TO; ++j)
              for (int l = 0; l < VL; ++l)
                set_lane(w[j], l, o0 + j < out_channels ? load_w(c, o0 + j, s[l]) : V{});
            for (int i = 0; i < TB; ++i)
              for (int j = 0; j < TO; ++j) acc[i][j] = mac(acc[i][j], x[i], w[j]);
          }
          for (int i = 0; i < TB; ++i)
            for (int j = 0; j < TO; ++j)
              if (b0 + i < batch && o0 + j < out_channels)
                for (int l = 0; l < valid; ++l)
                  store(b0 + i, o0 + j, s[l], lane_of(acc[i][j], l));
        }
}
#endif

/// out[b, o, s] = sum_i x(b, i, s) * w(i, o, s), i ascending. blockDim =
/// (THREADS, 1, 1); grid (modes / THREADS, out / TO, batch / TB), each rounded
/// up or smaller (all three are strided).
template <int THREADS, int TB, int TO, typename V, typename LoadX, typename LoadW, typename Store>
__device__ void channel_mix(int batch, int in_channels, int out_channels, long long modes,
                            LoadX load_x, LoadW load_w, Store store) {
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {
    channel_mix_phased<THREADS, TB, TO, V>(batch, in_channels, out_channels, modes, load_x,
                                           load_w, store);
    return;
  }
#endif
  for (int b0 = blockIdx.z * TB; b0 < batch; b0 += gridDim.z * TB)
    for (int o0 = blockIdx.y * TO; o0 < out_channels; o0 += gridDim.y * TO)
      for (long long s = (long long)blockIdx.x * THREADS + threadIdx.x; s < modes;
           s += (long long)gridDim.x * THREADS) {
        V acc[TB][TO];
#pragma unroll
        for (int i = 0; i < TB; ++i)
#pragma unroll
          for (int j = 0; j < TO; ++j) acc[i][j] = V{};
        for (int c = 0; c < in_channels; ++c) {
          V x[TB], w[TO];
#pragma unroll
          for (int i = 0; i < TB; ++i) x[i] = b0 + i < batch ? load_x(b0 + i, c, s) : V{};
#pragma unroll
          for (int j = 0; j < TO; ++j) w[j] = o0 + j < out_channels ? load_w(c, o0 + j, s) : V{};
#pragma unroll
          for (int i = 0; i < TB; ++i)
#pragma unroll
            for (int j = 0; j < TO; ++j) acc[i][j] = mac(acc[i][j], x[i], w[j]);
        }
#pragma unroll
        for (int i = 0; i < TB; ++i)
#pragma unroll
          for (int j = 0; j < TO; ++j)
            if (b0 + i < batch && o0 + j < out_channels) store(b0 + i, o0 + j, s, acc[i][j]);
      }
}

}  // namespace spectral_linalg
