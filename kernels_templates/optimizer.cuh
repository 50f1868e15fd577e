// optimizer.cuh - SGD and Adam/AdamW steps over many tensors in one launch.
//
// Multi-tensor apply, as PyTorch's: the host lists the parameter tensors of a
// step in a device table of OptimizerTensor (pointers and element counts) and
// cuts them into CHUNK-element pieces, listed in a device table of
// OptimizerChunk, in any order; block b updates chunk b, b + gridDim.x, ...
// A thread updates 16 bytes of param, grad and m at a time (4 floats,
// 2 doubles, 2 complex<float> or 1 complex<double>; of v the matching reals)
// when all of the chunk's buffers are aligned for it, one element at a time
// otherwise and for a tensor's tail. No barriers, no shared memory: the
// traffic is the floor. Adam reads p, g, m, v and writes p, m, v
// (28 bytes per fp32 parameter); SGD with velocity reads p, g, velocity and
// writes p, velocity (20); SGD without reads p, g and writes p (12).
//
// Semantics: the dialect's sgd_step and adam_step, g first multiplied by
// *clip_scale when clip_scale is not null (the global-norm clip factor
// another kernel computed). Hyperparameters arrive as doubles, the bias
// corrections 1 - beta^t (t the 1-based step) computed on the host in double;
// each thread rounds the derived coefficients to T once and does the
// per-element math in T. Complex tensors are interleaved (re, im) pairs of T,
// counted in complex elements; m is complex and v real: v' = b2 v + (1-b2) |g'|^2.
//
// Host-side layout (the runtime fills these tables; both are plain data, the
// same on host and device):
//   OptimizerTensor<T>  40 bytes: T* param, const T* grad, T* m, T* v, long long count
//   OptimizerChunk       8 bytes: int tensor, int chunk  (elements
//                        [chunk * CHUNK, min(count, (chunk + 1) * CHUNK)) of tensor)
// A tensor of count elements has ceil(count / CHUNK) chunks (none when empty).
// CHUNK is a multiple of 4, so every chunk of an aligned tensor starts aligned.
//
// The functional form (sgd_streams, adam_streams): one tensor whose pointers
// are the kernel's own arguments, read from param, m, v and written to
// new_param, new_m, new_v, so a graph's step (param in, new param out) moves
// the same floor with no copy. Codegen uses it: buffer addresses exist only
// in the executor, so a device table would need a setup launch per step.
#pragma once

namespace spectral_optimizer {

/// One parameter tensor of the step. Unused buffers may be null: m for SGD
/// without velocity, v for SGD.
template <typename T>
struct OptimizerTensor {
  T* param;         // count (x2 for complex) values, updated in place
  const T* grad;    // same shape as param
  T* m;             // SGD velocity or Adam first moment, same shape as param
  T* v;             // Adam second moment, count reals
  long long count;  // elements (complex numbers for complex tensors)
};

/// One block's work: elements [chunk * CHUNK, ...) of tensors[tensor].
struct OptimizerChunk {
  int tensor;
  int chunk;
};

/// N values of T moved as one load or store.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T x[N];
};

/// sgd_step on one element (C = 2: a complex one, componentwise):
/// g' = g + wd p; v' = mu v + g'; p' = p - lr (nesterov ? g' + mu v' : v').
/// Without VELOCITY the velocity is taken as zero and not kept (v' = g').
template <typename T, int C, bool VELOCITY, bool NESTEROV>
struct SgdUpdate {
  T lr, momentum, weight_decay;

  __device__ __forceinline__ void operator()(T* p, const T* g, T* m, T&) const {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const T grad = g[c] + weight_decay * p[c];
      const T velocity = VELOCITY ? momentum * m[c] + grad : grad;
      if (VELOCITY) m[c] = velocity;
      p[c] -= lr * (NESTEROV ? grad + momentum * velocity : velocity);
    }
  }
};

/// adam_step on one element: Adam adds wd p to g, AdamW (DECOUPLED) scales p
/// by 1 - lr wd instead. m' = b1 m + (1-b1) g'; v' = b2 v + (1-b2) |g'|^2;
/// p' = p - lr (m' / bc1) / (sqrt(v' / bc2) + eps).
template <typename T, int C, bool DECOUPLED>
struct AdamUpdate {
  T beta1, one_minus_beta1, beta2, one_minus_beta2;
  T weight_decay;  // Adam: g' = g + weight_decay p
  T decay;         // AdamW: p scaled by 1 - lr weight_decay
  T step_size;     // lr / bc1
  T inv_root_bc2;  // 1 / sqrt(bc2)
  T eps;

  __device__ __forceinline__ void operator()(T* p, const T* g, T* m, T& v) const {
    T grad[C];
    T norm2 = T(0);
#pragma unroll
    for (int c = 0; c < C; ++c) {
      grad[c] = DECOUPLED ? g[c] : g[c] + weight_decay * p[c];
      m[c] = beta1 * m[c] + one_minus_beta1 * grad[c];
      norm2 += grad[c] * grad[c];
    }
    v = beta2 * v + one_minus_beta2 * norm2;
    const T ratio = step_size / (sqrt(v) * inv_root_bc2 + eps);
#pragma unroll
    for (int c = 0; c < C; ++c) p[c] = (DECOUPLED ? p[c] * decay : p[c]) - ratio * m[c];
  }
};

/// `address`, which the compiler may then access as global memory
/// (ld.global / st.global instead of generic accesses): table pointers are
/// device allocations, but loaded from memory the compiler cannot know it.
template <typename T>
__device__ __forceinline__ T* assume_global(T* address) {
#if defined(__CUDA_ARCH__)
  __builtin_assume(__isGlobal(address));
#endif
  return address;
}

__device__ __forceinline__ bool aligned_to(const void* address, unsigned int bytes) {
  return reinterpret_cast<unsigned long long>(address) % bytes == 0;
}

/// Runs `update` over the n elements of one piece of a tensor: param, m, v
/// read from p, m, v and written to new_p, new_m, new_v (the same pointers
/// for an update in place), grad from g times `scale`. The calling thread
/// takes elements first, first + stride, ... (in 16-byte packs when every
/// pointer is aligned for them).
template <typename T, int C, bool USES_M, bool USES_V, typename Update>
__device__ __forceinline__ void apply_range(const T* p, const T* g, const T* m, const T* v,
                                            T* new_p, T* new_m, T* new_v, int n, T scale,
                                            const Update& update, int first, int stride) {
  constexpr int K = 16 / int(sizeof(T) * C);  // elements per 16-byte pack of param
  static_assert(K >= 1 && 16 % (sizeof(T) * C) == 0, "T must be float or double");
  typedef Pack<T, K * C> Wide;  // K elements of param, grad, m
  typedef Pack<T, K> Narrow;    // K elements of v
  const bool packs =
      aligned_to(p, sizeof(Wide)) && aligned_to(g, sizeof(Wide)) &&
      aligned_to(new_p, sizeof(Wide)) &&
      (!USES_M || (aligned_to(m, sizeof(Wide)) && aligned_to(new_m, sizeof(Wide)))) &&
      (!USES_V || (aligned_to(v, sizeof(Narrow)) && aligned_to(new_v, sizeof(Narrow))));
  const int packed = packs ? n - n % K : 0;

  for (int i = first * K; i < packed; i += stride * K) {
    Wide pw = *reinterpret_cast<const Wide*>(p + i * C);
    Wide gw = *reinterpret_cast<const Wide*>(g + i * C);
    Wide mw = {};
    Narrow vw = {};
    if (USES_M) mw = *reinterpret_cast<const Wide*>(m + i * C);
    if (USES_V) vw = *reinterpret_cast<const Narrow*>(v + i);
#pragma unroll
    for (int k = 0; k < K * C; ++k) gw.x[k] *= scale;
#pragma unroll
    for (int k = 0; k < K; ++k) update(pw.x + k * C, gw.x + k * C, mw.x + k * C, vw.x[k]);
    *reinterpret_cast<Wide*>(new_p + i * C) = pw;
    if (USES_M) *reinterpret_cast<Wide*>(new_m + i * C) = mw;
    if (USES_V) *reinterpret_cast<Narrow*>(new_v + i) = vw;
  }
  for (int i = packed + first; i < n; i += stride) {
    T pe[C], ge[C], me[C], ve = T(0);
#pragma unroll
    for (int k = 0; k < C; ++k) {
      pe[k] = p[i * C + k];
      ge[k] = g[i * C + k] * scale;
      me[k] = USES_M ? m[i * C + k] : T(0);
    }
    if (USES_V) ve = v[i];
    update(pe, ge, me, ve);
#pragma unroll
    for (int k = 0; k < C; ++k) {
      new_p[i * C + k] = pe[k];
      if (USES_M) new_m[i * C + k] = me[k];
    }
    if (USES_V) new_v[i] = ve;
  }
}

/// Runs `update` (SgdUpdate or AdamUpdate) over every element of every
/// chunk: T the real type, C = 2 for complex tensors; USES_M / USES_V say
/// which of m and v are read and written.
template <typename T, int C, bool USES_M, bool USES_V, int CHUNK, typename Update>
__device__ __forceinline__ void multi_tensor_apply(const OptimizerTensor<T>* __restrict__ tensors,
                                                   const OptimizerChunk* __restrict__ chunks,
                                                   int num_chunks, const T* clip_scale,
                                                   const Update& update) {
  static_assert(CHUNK > 0 && CHUNK % 4 == 0, "CHUNK must be a positive multiple of 4");
  const T scale = clip_scale ? *clip_scale : T(1);
  for (int c = int(blockIdx.x); c < num_chunks; c += int(gridDim.x)) {
    const OptimizerChunk chunk = chunks[c];
    const OptimizerTensor<T> tensor = tensors[chunk.tensor];
    const long long start = (long long)chunk.chunk * CHUNK;
    const int n = tensor.count - start < CHUNK ? int(tensor.count - start) : CHUNK;
    T* p = assume_global(tensor.param + start * C);
    T* m = USES_M ? assume_global(tensor.m + start * C) : nullptr;
    T* v = USES_V ? assume_global(tensor.v + start) : nullptr;
    apply_range<T, C, USES_M, USES_V>(p, assume_global(tensor.grad + start * C), m, v, p, m, v, n,
                                      scale, update, int(threadIdx.x), int(blockDim.x));
  }
}

/// One tensor of the functional form: inputs param, grad, m, v and outputs
/// new_param, new_m, new_v, all distinct (m, new_m, v, new_v null when
/// unused), of count elements.
template <typename T>
struct OptimizerStreams {
  const T* param;
  const T* grad;
  const T* m;
  const T* v;
  T* new_param;
  T* new_m;
  T* new_v;
  long long count;
};

/// Runs `update` over one tensor of the functional form: block b takes
/// chunks b, b + gridDim.x, ... of CHUNK elements.
template <typename T, int C, bool USES_M, bool USES_V, int CHUNK, typename Update>
__device__ __forceinline__ void streams_apply(const OptimizerStreams<T>& s, const T* clip_scale,
                                              const Update& update) {
  static_assert(CHUNK > 0 && CHUNK % 4 == 0, "CHUNK must be a positive multiple of 4");
  const T scale = clip_scale ? *clip_scale : T(1);
  for (long long start = (long long)blockIdx.x * CHUNK; start < s.count;
       start += (long long)gridDim.x * CHUNK) {
    const int n = s.count - start < CHUNK ? int(s.count - start) : CHUNK;
    apply_range<T, C, USES_M, USES_V>(
        assume_global(s.param + start * C), assume_global(s.grad + start * C),
        USES_M ? assume_global(s.m + start * C) : nullptr,
        USES_V ? assume_global(s.v + start) : nullptr, assume_global(s.new_param + start * C),
        USES_M ? assume_global(s.new_m + start * C) : nullptr,
        USES_V ? assume_global(s.new_v + start) : nullptr, n, scale, update, int(threadIdx.x),
        int(blockDim.x));
  }
}

/// The C reals of one element: a real value, or a complex one's parts.
template <typename T, int C, typename E>
__device__ __forceinline__ void element_parts(const E& e, T* out) {
  if constexpr (C == 1) {
    out[0] = T(e);
  } else {
    out[0] = T(e.re);
    out[1] = T(e.im);
  }
}

/// The functional form with the gradient computed on the fly (a fused
/// prologue): grad(i) gives element i (T, or a complex value when C == 2);
/// s.grad is unused. One element at a time, grid-stride.
template <typename T, int C, bool USES_M, bool USES_V, typename Grad, typename Update>
__device__ __forceinline__ void streams_apply_computed_grad(const OptimizerStreams<T>& s,
                                                            const Grad& grad,
                                                            const Update& update) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < s.count; i += stride) {
    T pe[C], ge[C], me[C], ve = T(0);
    element_parts<T, C>(grad(i), ge);
#pragma unroll
    for (int k = 0; k < C; ++k) {
      pe[k] = s.param[i * C + k];
      me[k] = USES_M ? s.m[i * C + k] : T(0);
    }
    if (USES_V) ve = s.v[i];
    update(pe, ge, me, ve);
#pragma unroll
    for (int k = 0; k < C; ++k) {
      s.new_param[i * C + k] = pe[k];
      if (USES_M) s.new_m[i * C + k] = me[k];
    }
    if (USES_V) s.new_v[i] = ve;
  }
}

/// The SgdUpdate of the hyperparameters, rounded to T.
template <typename T, int C, bool VELOCITY, bool NESTEROV>
__device__ __forceinline__ SgdUpdate<T, C, VELOCITY, NESTEROV> make_sgd_update(
    double lr, double momentum, double weight_decay) {
  return SgdUpdate<T, C, VELOCITY, NESTEROV>{T(lr), T(momentum), T(weight_decay)};
}

/// The AdamUpdate of the hyperparameters: the derived coefficients in double,
/// then rounded to T.
template <typename T, int C, bool DECOUPLED>
__device__ __forceinline__ AdamUpdate<T, C, DECOUPLED> make_adam_update(
    double lr, double beta1, double beta2, double eps, double weight_decay,
    double bias_correction1, double bias_correction2) {
  return AdamUpdate<T, C, DECOUPLED>{T(beta1),
                                     T(1.0 - beta1),
                                     T(beta2),
                                     T(1.0 - beta2),
                                     T(weight_decay),
                                     T(1.0 - lr * weight_decay),
                                     T(lr / bias_correction1),
                                     T(1.0 / sqrt(bias_correction2)),
                                     T(eps)};
}

/// sgd_step over every tensor of the table: T float or double, COMPLEX for
/// interleaved complex tensors; VELOCITY false for a zero velocity whose
/// result is not needed (plain SGD: m is neither read nor written).
template <typename T, bool COMPLEX, bool VELOCITY, bool NESTEROV, int CHUNK>
__device__ __forceinline__ void sgd_multi_tensor(const OptimizerTensor<T>* tensors,
                                                 const OptimizerChunk* chunks, int num_chunks,
                                                 const T* clip_scale, double lr, double momentum,
                                                 double weight_decay) {
  constexpr int C = COMPLEX ? 2 : 1;
  multi_tensor_apply<T, C, VELOCITY, false, CHUNK>(
      tensors, chunks, num_chunks, clip_scale,
      make_sgd_update<T, C, VELOCITY, NESTEROV>(lr, momentum, weight_decay));
}

/// adam_step (AdamW when DECOUPLED) over every tensor of the table, with
/// bias_correction1 = 1 - beta1^t and bias_correction2 = 1 - beta2^t.
template <typename T, bool COMPLEX, bool DECOUPLED, int CHUNK>
__device__ __forceinline__ void adam_multi_tensor(const OptimizerTensor<T>* tensors,
                                                  const OptimizerChunk* chunks, int num_chunks,
                                                  const T* clip_scale, double lr, double beta1,
                                                  double beta2, double eps, double weight_decay,
                                                  double bias_correction1,
                                                  double bias_correction2) {
  constexpr int C = COMPLEX ? 2 : 1;
  multi_tensor_apply<T, C, true, true, CHUNK>(
      tensors, chunks, num_chunks, clip_scale,
      make_adam_update<T, C, DECOUPLED>(lr, beta1, beta2, eps, weight_decay, bias_correction1,
                                        bias_correction2));
}

/// sgd_step on one tensor of the functional form (velocity streams unused
/// and null without VELOCITY).
template <typename T, bool COMPLEX, bool VELOCITY, bool NESTEROV, int CHUNK>
__device__ __forceinline__ void sgd_streams(const OptimizerStreams<T>& tensor, const T* clip_scale,
                                            double lr, double momentum, double weight_decay) {
  constexpr int C = COMPLEX ? 2 : 1;
  streams_apply<T, C, VELOCITY, false, CHUNK>(
      tensor, clip_scale, make_sgd_update<T, C, VELOCITY, NESTEROV>(lr, momentum, weight_decay));
}

/// adam_step (AdamW when DECOUPLED) on one tensor of the functional form.
template <typename T, bool COMPLEX, bool DECOUPLED, int CHUNK>
__device__ __forceinline__ void adam_streams(const OptimizerStreams<T>& tensor, const T* clip_scale,
                                             double lr, double beta1, double beta2, double eps,
                                             double weight_decay, double bias_correction1,
                                             double bias_correction2) {
  constexpr int C = COMPLEX ? 2 : 1;
  streams_apply<T, C, true, true, CHUNK>(
      tensor, clip_scale,
      make_adam_update<T, C, DECOUPLED>(lr, beta1, beta2, eps, weight_decay, bias_correction1,
                                        bias_correction2));
}

/// sgd_step on one tensor of the functional form, its gradient from `grad`.
template <typename T, bool COMPLEX, bool VELOCITY, bool NESTEROV, typename Grad>
__device__ __forceinline__ void sgd_streams_computed_grad(const OptimizerStreams<T>& tensor,
                                                          const Grad& grad, double lr,
                                                          double momentum, double weight_decay) {
  constexpr int C = COMPLEX ? 2 : 1;
  streams_apply_computed_grad<T, C, VELOCITY, false>(
      tensor, grad, make_sgd_update<T, C, VELOCITY, NESTEROV>(lr, momentum, weight_decay));
}

/// adam_step on one tensor of the functional form, its gradient from `grad`.
template <typename T, bool COMPLEX, bool DECOUPLED, typename Grad>
__device__ __forceinline__ void adam_streams_computed_grad(
    const OptimizerStreams<T>& tensor, const Grad& grad, double lr, double beta1, double beta2,
    double eps, double weight_decay, double bias_correction1, double bias_correction2) {
  constexpr int C = COMPLEX ? 2 : 1;
  streams_apply_computed_grad<T, C, true, true>(
      tensor, grad,
      make_adam_update<T, C, DECOUPLED>(lr, beta1, beta2, eps, weight_decay, bias_correction1,
                                        bias_correction2));
}

}  // namespace spectral_optimizer
