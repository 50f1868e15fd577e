/* spectral.h - the C API (C99): build or load a graph, compile it, run it, save it.
 *
 * Every function returns a spectral_status; on anything but SPECTRAL_OK,
 * spectral_last_error() says what went wrong (the same words the tools print:
 * file:line:col or "@graph:N:1" for the Nth op of a built graph). No C++
 * exception or abort crosses this API. Handles are opaque; free each with its
 * _free function (free functions accept NULL).
 *
 *   spectral_graph* g;  spectral_graph_create("scale", &g);
 *   int64_t shape[1] = {4};
 *   spectral_value x, y;
 *   spectral_graph_input(g, SPECTRAL_F32, shape, 1, 0, &x);
 *   spectral_graph_unary(g, "relu", x, &y);
 *   spectral_graph_output(g, &y, 1);
 *   spectral_model* m;  spectral_compile(g, NULL, &m);
 *   spectral_model_run(m, inputs, 1, outputs, 1);
 *
 * The C builder has the ops FNO-style graphs need; parse an .mlir file
 * (spectral_graph_parse_file) for the others, or use the C++ builder
 * (spectral/compiler.h), which has every op.
 *
 * A model may be run from several threads at once. The other calls on one
 * handle must not overlap; spectral_last_error() is per thread.
 */
#ifndef SPECTRAL_SPECTRAL_H
#define SPECTRAL_SPECTRAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SPECTRAL_OK = 0,
  SPECTRAL_INVALID_ARGUMENT = 1, /* a null handle or pointer, an unknown name or enum */
  SPECTRAL_ERROR = 2             /* the graph, the compiler, the file or the device refused */
} spectral_status;

/* Element types, as the dialect spells them: i1 i32 i64 f32 f64 complex<f32> complex<f64>. */
typedef enum {
  SPECTRAL_BOOL = 0,
  SPECTRAL_I32 = 1,
  SPECTRAL_I64 = 2,
  SPECTRAL_F32 = 3,
  SPECTRAL_F64 = 4,
  SPECTRAL_C64 = 5,
  SPECTRAL_C128 = 6
} spectral_dtype;

typedef enum { SPECTRAL_DEVICE_DEFAULT = 0, SPECTRAL_DEVICE_HOST = 1, SPECTRAL_DEVICE_CUDA = 2 } spectral_device;
typedef enum { SPECTRAL_NORM_BACKWARD = 0, SPECTRAL_NORM_ORTHO = 1, SPECTRAL_NORM_FORWARD = 2 } spectral_norm;

typedef struct spectral_graph spectral_graph;
typedef struct spectral_model spectral_model;
/* A value of one graph (its index in that graph). */
typedef struct { int32_t id; } spectral_value;

/* A dense row-major array in the caller's memory. */
typedef struct {
  void* data;
  spectral_dtype dtype;
  int32_t rank;
  const int64_t* shape;
} spectral_tensor;

/* The last error of this thread ("" when none). Valid until the next call on this thread. */
const char* spectral_last_error(void);
/* Bytes per element of a dtype (0 for an unknown one). */
size_t spectral_dtype_size(spectral_dtype dtype);

/* --- graphs --- */
spectral_status spectral_graph_create(const char* function, spectral_graph** graph);
/* The graph of an .mlir file; `function` may be NULL (the file's only function, or main). */
spectral_status spectral_graph_parse_file(const char* path, const char* function,
                                          spectral_graph** graph);
void spectral_graph_free(spectral_graph* graph);

spectral_status spectral_graph_input(spectral_graph* graph, spectral_dtype dtype,
                                     const int64_t* shape, int32_t rank, int donated,
                                     spectral_value* out);
/* A constant holding a copy of `data` (elements(shape) values of dtype). */
spectral_status spectral_graph_constant(spectral_graph* graph, spectral_dtype dtype,
                                        const int64_t* shape, int32_t rank, const void* data,
                                        spectral_value* out);
/* op: neg exp log sqrt tanh relu gelu sigmoid conj abs real imag */
spectral_status spectral_graph_unary(spectral_graph* graph, const char* op, spectral_value x,
                                     spectral_value* out);
/* op: softmax log_softmax, over `axis` */
spectral_status spectral_graph_softmax(spectral_graph* graph, const char* op, spectral_value x,
                                       int64_t axis, spectral_value* out);
/* op: add sub mul div complex matmul channel_mix gather cross_entropy mse */
spectral_status spectral_graph_binary(spectral_graph* graph, const char* op, spectral_value a,
                                      spectral_value b, spectral_value* out);
/* op: fft ifft rfft irfft (length: irfft's real length, else ignored) dct idct (type II). */
spectral_status spectral_graph_transform(spectral_graph* graph, const char* op, spectral_value x,
                                         const int64_t* axes, int32_t naxes, spectral_norm norm,
                                         int64_t length, spectral_value* out);
/* op: reduce_sum reduce_mean reduce_max */
spectral_status spectral_graph_reduce(spectral_graph* graph, const char* op, spectral_value x,
                                      const int64_t* axes, int32_t naxes, int keepdims,
                                      spectral_value* out);
/* op: reshape broadcast (dims: the new shape) transpose (dims: the permutation) */
spectral_status spectral_graph_reshape(spectral_graph* graph, const char* op, spectral_value x,
                                       const int64_t* dims, int32_t ndims, spectral_value* out);
/* x[start:limit] (stride 1) along every axis. */
spectral_status spectral_graph_slice(spectral_graph* graph, spectral_value x,
                                     const int64_t* start, const int64_t* limit, int32_t rank,
                                     spectral_value* out);
spectral_status spectral_graph_pad(spectral_graph* graph, spectral_value x, const int64_t* low,
                                   const int64_t* high, int32_t rank, double value,
                                   spectral_value* out);
/* Ends the graph with these results. */
spectral_status spectral_graph_output(spectral_graph* graph, const spectral_value* results,
                                      int32_t count);
/* The graph as MLIR text, valid until the graph's next call or free. */
const char* spectral_graph_text(spectral_graph* graph);

/* --- compiling and running --- */
typedef struct {
  spectral_device device;
  int fuse;                  /* 1: fuse ops into few kernels (the default) */
  const char* dump_dir;      /* NULL, or where to write every generated kernel */
  const char* pass_pipeline; /* NULL, or an MLIR pass pipeline instead of simplify + fuse */
  const char* targets;       /* NULL or "", or GPU architectures "sm_80,sm_90" whose CUBIN and PTX
                                the model (and an artifact it saves) carries */
} spectral_compile_options;

/* The defaults: default device, fused, no dump, no pipeline, no targets. */
spectral_compile_options spectral_compile_options_default(void);
/* options may be NULL (the defaults). */
spectral_status spectral_compile(const spectral_graph* graph,
                                 const spectral_compile_options* options, spectral_model** model);
/* A .spx artifact on a device. */
spectral_status spectral_model_load(const char* path, spectral_device device,
                                    spectral_model** model);
spectral_status spectral_model_save(const spectral_model* model, const char* path);
void spectral_model_free(spectral_model* model);

int32_t spectral_model_num_inputs(const spectral_model* model);
int32_t spectral_model_num_outputs(const spectral_model* model);
/* The dtype and shape of argument/result `index` (shape owned by the model). */
spectral_status spectral_model_input(const spectral_model* model, int32_t index,
                                     spectral_tensor* info);
spectral_status spectral_model_output(const spectral_model* model, int32_t index,
                                      spectral_tensor* info);
/* Runs once: inputs and outputs in the caller's memory, of exactly the
 * model's dtypes and shapes (outputs are written in place). */
spectral_status spectral_model_run(const spectral_model* model, const spectral_tensor* inputs,
                                   int32_t num_inputs, const spectral_tensor* outputs,
                                   int32_t num_outputs);
/* The kernel table (spectral-run --report), owned by the model. */
const char* spectral_model_summary(const spectral_model* model);

#ifdef __cplusplus
}
#endif

#endif /* SPECTRAL_SPECTRAL_H */
