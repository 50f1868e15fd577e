// pointwise.cuh - elementwise maps and numpy broadcasting.
//
// pointwise_map(n, load, store) runs store(i, load(i)) for i < n over a
// grid-stride loop; load is the fused chain of elementwise ops (codegen
// renders it as a functor reading its inputs), store the epilogue. Values
// may be of any type, real or complex (spectral_fft::cplx). Each thread
// loads ITEMS elements, BLOCK apart so a warp's accesses stay contiguous,
// before it stores any: independent loads in flight hide latency, and a
// store can never feed a later load of the same thread.
//
// Broadcasting: an input of another shape is read through BroadcastIndex,
// which maps the output's row-major index to the input's element offset
// (strides in elements, 0 along broadcast dims), for ranks up to 6. Several
// inputs of one output share one unravel: Shape::unravel then
// Strides::offset per input. broadcast_strides indexes the input's shape by
// a run-time rank, so building one from kernel arguments costs a small
// stack frame once per thread; codegen can pass the strides ready-made.
#pragma once

namespace spectral_pointwise {

constexpr int kMaxRank = 6;

/// A row-major shape of rank RANK.
template <int RANK, typename Index = long long>
struct Shape {
  Index dim[RANK];

  /// The coordinates of row-major index i.
  __host__ __device__ __forceinline__ void unravel(Index i, Index* coord) const {
#pragma unroll
    for (int d = RANK - 1; d > 0; --d) {
      const Index q = i / dim[d];
      coord[d] = i - q * dim[d];
      i = q;
    }
    coord[0] = i;
  }
};

/// Element strides of a tensor viewed in some shape (0 along broadcast dims).
template <int RANK, typename Index = long long>
struct Strides {
  Index step[RANK];

  __host__ __device__ __forceinline__ Index offset(const Index* coord) const {
    Index offset = 0;
#pragma unroll
    for (int d = 0; d < RANK; ++d) offset += coord[d] * step[d];
    return offset;
  }
};

/// The strides that read a tensor of shape in_shape (rank in_rank <= RANK,
/// element strides in_strides, or row-major when null) as the broadcast
/// shape `out`, numpy's way: shapes aligned on the right, a dim of 1 (or a
/// missing leading dim) repeats. Dims must be equal or 1: codegen checks.
template <int RANK, typename Index>
__host__ __device__ __forceinline__ Strides<RANK, Index> broadcast_strides(
    const Shape<RANK, Index>& out, int in_rank, const Index* in_shape, const Index* in_strides) {
  static_assert(RANK >= 1 && RANK <= kMaxRank, "ranks 1 to 6");
  Strides<RANK, Index> strides;
  Index row_major = 1;
#pragma unroll
  for (int d = RANK - 1; d >= 0; --d) {
    const int k = d - (RANK - in_rank);  // the input's dim aligned with d
    Index step = 0;
    if (k >= 0) {
      step = in_strides ? in_strides[k] : row_major;
      row_major *= in_shape[k];
      if (in_shape[k] == 1 && out.dim[d] != 1) step = 0;
    }
    strides.step[d] = step;
  }
  return strides;
}

/// Output index -> input offset for one broadcast input.
template <int RANK, typename Index = long long>
struct BroadcastIndex {
  Shape<RANK, Index> out;
  Strides<RANK, Index> in;

  __host__ __device__ __forceinline__ Index operator()(Index i) const {
    Index coord[RANK];
    out.unravel(i, coord);
    return in.offset(coord);
  }
};

template <int RANK, typename Index>
__host__ __device__ __forceinline__ BroadcastIndex<RANK, Index> make_broadcast_index(
    const Shape<RANK, Index>& out, int in_rank, const Index* in_shape,
    const Index* in_strides = nullptr) {
  BroadcastIndex<RANK, Index> index;
  index.out = out;
  index.in = broadcast_strides(out, in_rank, in_shape, in_strides);
  return index;
}

/// fn(i) for i < n, grid-stride: thread t of block b takes
/// i = (b * ITEMS + k) * blockDim.x + t + j * gridDim.x * ITEMS * blockDim.x.
template <int ITEMS, typename Index, typename Fn>
__device__ __forceinline__ void for_each_index(Index n, Fn fn) {
  const Index block = blockDim.x, step = (Index)gridDim.x * ITEMS * block;
  for (Index base = (Index)blockIdx.x * ITEMS * block + threadIdx.x; base < n; base += step) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (base + k * block < n) fn(base + k * block);
  }
}

/// store(i, load(i)) for i < n, ITEMS loads per thread before its stores.
/// Any one-dimensional grid and block. Index is int (cheaper index math)
/// when n + gridDim.x * ITEMS * blockDim.x < 2^31, else long long.
template <int ITEMS, typename Index, typename Load, typename Store>
__device__ void pointwise_map(Index n, Load load, Store store) {
  static_assert(ITEMS >= 1, "ITEMS >= 1");
  using Value = decltype(load(Index(0)));
  const Index block = blockDim.x, step = (Index)gridDim.x * ITEMS * block;
  for (Index base = (Index)blockIdx.x * ITEMS * block + threadIdx.x; base < n; base += step) {
    Value v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (base + k * block < n) v[k] = load(base + k * block);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (base + k * block < n) store(base + k * block, v[k]);
  }
}

/// load(i) = data[i].
template <typename T>
struct Read {
  const T* data;
  template <typename Index>
  __device__ __forceinline__ T operator()(Index i) const {
    return data[i];
  }
};

/// load(i) = data[index(i)]: a broadcast (or strided) input.
template <typename T, int RANK, typename Index = long long>
struct BroadcastRead {
  const T* data;
  BroadcastIndex<RANK, Index> index;
  __device__ __forceinline__ T operator()(Index i) const { return data[index(i)]; }
};

/// store(i, value): data[i] = value.
template <typename T>
struct Write {
  T* data;
  template <typename Index>
  __device__ __forceinline__ void operator()(Index i, T value) const {
    data[i] = value;
  }
};

}  // namespace spectral_pointwise
