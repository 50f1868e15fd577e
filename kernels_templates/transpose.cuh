// transpose.cuh - permutations of row-major tensors of rank <= 6.
//
// make_transpose_plan reduces a permutation to what memory sees: dims of
// size 1 dropped, input dims that stay adjacent and in order merged (so
// [b, r, c] -> [b, c, r] and [a, b, c, d] -> [c, d, a, b] are both one batch
// of 2-D planes). What is left is either
// - a copy with the last dim in place (transpose_copy: runs of `cols`
//   contiguous elements on both sides, index math per run), or
// - batches of [rows, cols] planes whose rows dim is the output's last and
//   whose cols dim is the input's last (transpose_tiled): TILE x TILE tiles
//   go through shared memory, read along the input's last dim and written
//   along the output's, both coalesced; each tile row is padded by one
//   element so the column reads of a (half-/quarter-) warp hit distinct
//   banks for 4-, 8- and 16-byte elements alike.
// transpose() picks the kernel from the plan; both run with block (TILE,
// BLOCK_ROWS) and any 1-D grid (tiles and runs are strided over it).
//
// Load is `load(input offset) -> V`, Store `store(output offset, value)`:
// injective ops compose by offset, so codegen fuses pointwise producers and
// consumers into them.
//
// Host: transpose, transpose_tiled and transpose_copy have a phased form
// (host_emulation.h, "Phased kernels"): a tile's loads, then its stores, each
// a loop over the block's threads' elements (moves only: any order gives
// the same bytes); the copy's elements of every thread of the block.
#pragma once

namespace spectral_linalg {

constexpr int kMaxTransposeRank = 6;

struct TransposePlan {
  bool tiled;
  int batch_rank;
  long long batch_dims[kMaxTransposeRank];
  long long batch_in_stride[kMaxTransposeRank];
  long long batch_out_stride[kMaxTransposeRank];
  long long batches;
  long long rows, cols;      // tiled: the plane; copy: rows = 1, cols = the contiguous run
  long long in_row_stride;   // tiled: input stride of the rows dim
  long long out_col_stride;  // tiled: output stride of the cols dim

  /// Where batch `batch` (row-major over batch_dims) starts in the input and output.
  __host__ __device__ __forceinline__ void offsets(long long batch, long long* in,
                                                   long long* out) const {
    long long i = 0, o = 0;
    for (int d = batch_rank - 1; d >= 0; --d) {
      const long long q = batch / batch_dims[d], index = batch - q * batch_dims[d];
      i += index * batch_in_stride[d];
      o += index * batch_out_stride[d];
      batch = q;
    }
    *in = i;
    *out = o;
  }
};

/// The plan of `result dim i = input dim perm[i]` over an input of `dims`
/// (rank <= kMaxTransposeRank; perm a permutation of 0..rank-1).
__host__ __device__ constexpr TransposePlan make_transpose_plan(int rank, const long long* dims,
                                                                const long long* perm) {
  // Drop size-1 dims: d = the kept input dims, p = the permutation among them.
  long long d[kMaxTransposeRank] = {}, p[kMaxTransposeRank] = {};
  int renamed[kMaxTransposeRank] = {};
  int r = 0;
  for (int i = 0; i < rank; ++i) {
    renamed[i] = r;
    if (dims[i] != 1) d[r++] = dims[i];
  }
  int kept = 0;
  for (int i = 0; i < rank; ++i)
    if (dims[perm[i]] != 1) p[kept++] = renamed[perm[i]];
  // Merge runs p[i+1] == p[i] + 1 into groups, listed in output order.
  long long first[kMaxTransposeRank] = {}, size[kMaxTransposeRank] = {};
  int groups = 0;
  for (int i = 0; i < r; ++i) {
    if (i > 0 && p[i] == p[i - 1] + 1) {
      size[groups - 1] *= d[p[i]];
    } else {
      first[groups] = p[i];
      size[groups] = d[p[i]];
      ++groups;
    }
  }
  // input_pos[g]: the group's place among the input's groups; strides of both sides.
  int input_pos[kMaxTransposeRank] = {};
  for (int g = 0; g < groups; ++g)
    for (int h = 0; h < groups; ++h) input_pos[g] += first[h] < first[g];
  long long in_stride[kMaxTransposeRank] = {}, out_stride[kMaxTransposeRank] = {};
  for (int g = 0; g < groups; ++g) {
    in_stride[g] = 1;
    out_stride[g] = 1;
    for (int h = 0; h < groups; ++h) {
      if (input_pos[h] > input_pos[g]) in_stride[g] *= size[h];
      if (h > g) out_stride[g] *= size[h];
    }
  }

  TransposePlan plan{};
  const int out_last = groups - 1;
  int in_last = 0;  // the group that is last in the input
  for (int g = 0; g < groups; ++g)
    if (input_pos[g] == groups - 1) in_last = g;
  plan.tiled = groups >= 2 && in_last != out_last;
  plan.rows = plan.tiled ? size[out_last] : 1;
  plan.cols = groups == 0 ? 1 : size[in_last];
  plan.in_row_stride = plan.tiled ? in_stride[out_last] : 0;
  plan.out_col_stride = plan.tiled ? out_stride[in_last] : 0;
  plan.batches = 1;
  for (int g = 0; g < groups; ++g) {
    if (g == in_last || (plan.tiled && g == out_last)) continue;
    plan.batch_dims[plan.batch_rank] = size[g];
    plan.batch_in_stride[plan.batch_rank] = in_stride[g];
    plan.batch_out_stride[plan.batch_rank] = out_stride[g];
    plan.batches *= size[g];
    ++plan.batch_rank;
  }
  return plan;
}

template <typename V>
struct OffsetLoad {
  const V* data;
  __device__ __forceinline__ V operator()(long long offset) const { return data[offset]; }
};

template <typename V>
struct OffsetStore {
  V* data;
  __device__ __forceinline__ void operator()(long long offset, V value) const {
    data[offset] = value;
  }
};

/// The tiled kernel: block (TILE, BLOCK_ROWS); tile w of the grid stride is
/// (batch, tile row, tile column) = w in row-major order.
template <int TILE, int BLOCK_ROWS, typename V, typename Load, typename Store>
__device__ void transpose_tiled(const TransposePlan& plan, Load load, Store store) {
  static_assert(TILE % BLOCK_ROWS == 0, "TILE must be a multiple of BLOCK_ROWS");
  __shared__ V tile[TILE][TILE + 1];
  const int x = threadIdx.x, y = threadIdx.y;
  const long long tile_rows = (plan.rows + TILE - 1) / TILE;
  const long long tile_cols = (plan.cols + TILE - 1) / TILE;
  const long long tiles = plan.batches * tile_rows * tile_cols;
#if defined(SPECTRAL_HOST_EMULATION)
  const bool whole = ::spectral_host::take_whole_block();
#endif
  for (long long w = blockIdx.x; w < tiles; w += gridDim.x) {
    const long long rest = w / tile_cols, batch = rest / tile_rows;
    const long long r0 = (rest - batch * tile_rows) * TILE, c0 = (w - rest * tile_cols) * TILE;
    long long in = 0, out = 0;
    plan.offsets(batch, &in, &out);
#if defined(SPECTRAL_HOST_EMULATION)
    if (whole) {  // every thread's (j, x) of each phase
      for (int j = 0; j < TILE; ++j)
        for (int t = 0; t < TILE; ++t)
          if (r0 + j < plan.rows && c0 + t < plan.cols)
            tile[j][t] = load(in + (r0 + j) * plan.in_row_stride + c0 + t);
      for (int j = 0; j < TILE; ++j)
        for (int t = 0; t < TILE; ++t)
          if (c0 + j < plan.cols && r0 + t < plan.rows)
            store(out + (c0 + j) * plan.out_col_stride + r0 + t, tile[t][j]);
      continue;
    }
#endif
#pragma unroll
    for (int j = y; j < TILE; j += BLOCK_ROWS)
      if (r0 + j < plan.rows && c0 + x < plan.cols)
        tile[j][x] = load(in + (r0 + j) * plan.in_row_stride + c0 + x);
    __syncthreads();
#pragma unroll
    for (int j = y; j < TILE; j += BLOCK_ROWS)
      if (c0 + j < plan.cols && r0 + x < plan.rows)
        store(out + (c0 + j) * plan.out_col_stride + r0 + x, tile[x][j]);
    __syncthreads();
  }
}

/// The copy kernel: element c of run b, by the block's linear thread id.
template <typename V, typename Load, typename Store>
__device__ void transpose_copy(const TransposePlan& plan, Load load, Store store) {
  const long long threads = (long long)blockDim.x * blockDim.y;
  const long long step = threads * gridDim.x;
  const long long count = plan.batches * plan.cols;
#if defined(SPECTRAL_HOST_EMULATION)
  if (::spectral_host::take_whole_block()) {  // every thread's elements, in memory order
    for (long long base = blockIdx.x * threads; base < count; base += step)
      for (long long p = base; p < base + threads && p < count; ++p) {
        const long long batch = p / plan.cols, c = p - batch * plan.cols;
        long long in = 0, out = 0;
        plan.offsets(batch, &in, &out);
        store(out + c, load(in + c));
      }
    return;
  }
#endif
  for (long long p = blockIdx.x * threads + threadIdx.y * blockDim.x + threadIdx.x; p < count;
       p += step) {
    const long long batch = p / plan.cols, c = p - batch * plan.cols;
    long long in = 0, out = 0;
    plan.offsets(batch, &in, &out);
    store(out + c, load(in + c));
  }
}

template <int TILE, int BLOCK_ROWS, typename V, typename Load, typename Store>
__device__ void transpose(const TransposePlan& plan, Load load, Store store) {
  if (plan.tiled)
    transpose_tiled<TILE, BLOCK_ROWS, V>(plan, load, store);
  else
    transpose_copy<V>(plan, load, store);
}

}  // namespace spectral_linalg
