// spectral/compiler.h - build graphs and compile them: the part of the API in
// the compiler library (Spectral::compiler). No MLIR or LLVM type appears here.
//
//   spectral::Graph g("layer");
//   spectral::Value x = g.input(spectral::DType::kFloat32, {8, 64});
//   spectral::Value X = g.rfft(x, {1});
//   spectral::Value y = g.irfft(g.mul(X, g.constant(weights)), {1}, 64);
//   g.output({g.relu(y)});
//   spectral::Expected<spectral::Model> model = spectral::compile(g);
//
// Every op infers its result's dtype and shape. An op given bad operands
// (shapes that do not broadcast, an axis out of range, ...) returns a Value
// holding the error instead of a result; ops on such a Value pass the first
// error on, and Graph::status(), output() and compile() return it. Errors
// name the op and its place: "@layer:4:1: spectral.add: operands ... do not
// broadcast" (the graph's fourth op), or file:line:col in a parsed graph.
#pragma once

#include "spectral/runtime.h"
#include "spectral/status.h"
#include "spectral/tensor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spectral {

/// Scaling of a transform pair, as numpy.fft and scipy.fft name it.
enum class Norm { kBackward, kOrtho, kForward };
/// Elementwise comparisons.
enum class Compare { kEq, kNe, kLt, kLe, kGt, kGe };

class Graph;
struct CompileOptions;

/// A tensor in a graph, or the error that prevented it.
class Value {
 public:
  Value() = default;
  bool ok() const { return graph_ != nullptr && status_.is_ok(); }
  explicit operator bool() const { return ok(); }
  /// Why this value has no result (ok for a valid value).
  const Status& status() const { return status_; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int rank() const { return int(shape_.size()); }
  std::string type_string() const { return spectral::type_string(dtype_, shape_); }

 private:
  friend class Graph;
  friend struct GraphAccess;
  const void* graph_ = nullptr;  // the Graph's state, to refuse values of another graph
  int id_ = -1;
  Status status_ = Status::error("an empty Value (not made by a Graph)");
  DType dtype_ = DType::kFloat32;
  std::vector<int64_t> shape_;
};

/// Options of the SGD update (spectral.sgd_step).
struct SgdOptions {
  double lr = 0.01;
  double momentum = 0;
  double weight_decay = 0;
  bool nesterov = false;
  /// The learning rate as data instead of `lr`: a 0-d real tensor of the
  /// graph (an input), so a schedule changes it between runs without
  /// compiling again.
  std::optional<Value> lr_input;
};

/// Options of the Adam update (spectral.adam_step); decoupled makes it AdamW.
struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0;
  bool decoupled = false;
  std::optional<Value> lr_input;  // as SgdOptions::lr_input
};

/// A function of tensors being built op by op, or parsed from .mlir text.
class Graph {
 public:
  /// An empty graph whose function is `function` (a symbol name: letters, digits, _ . $ -).
  explicit Graph(std::string function = "main");
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;

  /// The graph of `path` (MLIR text of the spectral dialect); `function`
  /// picks the func.func compile() takes (the file's only one, or "main").
  static Expected<Graph> parse_file(const std::string& path, const std::string& function = "");
  /// The same from text; `name` stands for the file in messages.
  static Expected<Graph> parse(const std::string& text, const std::string& name = "<text>",
                               const std::string& function = "");

  // --- arguments, constants, results ---
  /// The next argument. A donated argument's memory may be overwritten by the
  /// run (parameters and optimizer state updated in place).
  Value input(DType dtype, std::vector<int64_t> shape, bool donated = false);
  /// A constant holding a copy of `value`.
  Value constant(const Tensor& value);
  /// A 0-d constant (integer dtypes round toward zero, complex ones take value + 0i).
  Value scalar(double value, DType dtype = DType::kFloat32);
  /// Ends the function with these results; the graph takes no ops after it.
  Status output(const std::vector<Value>& results);

  // --- elementwise (binary ops broadcast as numpy does) ---
  Value neg(Value x);
  Value exp(Value x);
  Value log(Value x);
  Value sqrt(Value x);
  Value tanh(Value x);
  Value relu(Value x);
  Value gelu(Value x);
  Value sigmoid(Value x);
  Value conj(Value x);
  Value abs(Value x);   // complex -> real magnitude
  Value real(Value x);
  Value imag(Value x);
  Value add(Value a, Value b);
  Value sub(Value a, Value b);
  Value mul(Value a, Value b);
  Value div(Value a, Value b);
  Value complex(Value re, Value im);
  Value compare(Compare predicate, Value a, Value b);  // -> i1
  Value select(Value condition, Value a, Value b);
  Value cast(Value x, DType dtype);

  // --- transforms over `axes` ---
  Value fft(Value x, std::vector<int64_t> axes, Norm norm = Norm::kBackward);
  Value ifft(Value x, std::vector<int64_t> axes, Norm norm = Norm::kBackward);
  Value rfft(Value x, std::vector<int64_t> axes, Norm norm = Norm::kBackward);
  /// `length`: the real length of the last transformed axis.
  Value irfft(Value x, std::vector<int64_t> axes, int64_t length, Norm norm = Norm::kBackward);
  Value dct(Value x, std::vector<int64_t> axes, int type = 2, Norm norm = Norm::kBackward);
  Value idct(Value x, std::vector<int64_t> axes, int type = 2, Norm norm = Norm::kBackward);

  // --- sparse spectra: (values, indices) pairs ---
  /// The k largest-magnitude entries per row (of the last axis), or of the
  /// whole tensor when `flat`: {values, indices}.
  std::vector<Value> topk_modes(Value x, int64_t k, bool flat = false);
  Value gather(Value x, Value indices);
  /// `values` at `indices` in a zero tensor of `shape`.
  Value scatter(Value values, Value indices, std::vector<int64_t> shape);
  std::vector<Value> sparse_add(Value lhs_values, Value lhs_indices, Value rhs_values,
                                Value rhs_indices);
  std::vector<Value> sparse_mul(Value lhs_values, Value lhs_indices, Value rhs_values,
                                Value rhs_indices);

  // --- reductions ---
  Value reduce_sum(Value x, std::vector<int64_t> axes, bool keepdims = false);
  Value reduce_mean(Value x, std::vector<int64_t> axes, bool keepdims = false);
  Value reduce_max(Value x, std::vector<int64_t> axes, bool keepdims = false);
  Value softmax(Value x, int64_t axis);
  Value log_softmax(Value x, int64_t axis);

  // --- shape ---
  Value reshape(Value x, std::vector<int64_t> shape);
  Value transpose(Value x, std::vector<int64_t> perm);
  Value broadcast(Value x, std::vector<int64_t> shape);
  /// Elements start[i], start[i] + stride[i], ... below limit[i] (stride 1 when empty).
  Value slice(Value x, std::vector<int64_t> start, std::vector<int64_t> limit,
              std::vector<int64_t> stride = {});
  Value pad(Value x, std::vector<int64_t> low, std::vector<int64_t> high, double value = 0);
  Value concat(const std::vector<Value>& xs, int64_t axis);

  // --- contractions ---
  Value matmul(Value a, Value b);
  /// FNO channel mixing per mode: bixy,ioxy->boxy (any number of mode axes).
  Value channel_mix(Value x, Value weights);

  // --- losses and training ---
  /// Mean cross-entropy of logits [..., classes] against integer labels.
  Value cross_entropy(Value logits, Value labels);
  Value mse(Value prediction, Value target);
  /// {new_param, new_velocity}.
  std::vector<Value> sgd_step(Value param, Value grad, Value velocity, const SgdOptions& options);
  /// {new_param, new_m, new_v}; `step` is the 1-based step count (an integer tensor).
  std::vector<Value> adam_step(Value param, Value grad, Value m, Value v, Value step,
                               const AdamOptions& options);
  /// The tensors scaled by min(1, max_norm / global norm), then the norm.
  std::vector<Value> clip_global_norm(const std::vector<Value>& xs, double max_norm);

  /// The first error of any op so far (ok when there is none).
  Status status() const;
  /// The graph as MLIR text.
  std::string str() const;
  /// The function's name.
  const std::string& function() const;

  struct State;

 private:
  friend Expected<Model> compile(const Graph& graph, const CompileOptions& options);
  friend struct GraphAccess;
  explicit Graph(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

/// How compile() compiles.
struct CompileOptions {
  DeviceKind device = DeviceKind::kDefault;
  bool simplify = true;  // spectral-simplify: folds, algebraic rewrites, CSE
  bool fuse = true;      // spectral-fuse: ops into fused kernels
  bool reuse_buffers = true;
  /// An MLIR pass pipeline run instead of simplify and fuse, for experiments:
  /// "builtin.module(func.func(spectral-fuse))" (spectral-opt --help lists passes).
  std::string pass_pipeline;
  /// Where to write every generated kernel (CUDA source, and PTX and ptxas
  /// figures for dump_arch) as it compiles; empty: nowhere.
  std::string dump_dir;
  std::string dump_arch = "sm_90";
  /// GPU architectures ("sm_80", "sm_90"; "host" is accepted and adds
  /// nothing) whose CUBIN and PTX the Model carries, so that an artifact it
  /// saves loads on those GPUs without compiling (needs NVRTC here).
  std::vector<std::string> targets;
};

/// Compiles `graph` and loads it on `options.device`.
Expected<Model> compile(const Graph& graph, const CompileOptions& options = {});

/// How training_step updates the parameters.
struct TrainOptions {
  enum class Optimizer { kSgd, kAdam, kAdamW };
  Optimizer optimizer = Optimizer::kAdam;
  double momentum = 0;  // SGD
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;  // Adam, AdamW
  double weight_decay = 0;  // decoupled for AdamW
  double clip_norm = 0;     // clip the gradients to this global L2 norm; 0: no clipping
};

/// One training step of `loss` (a complete graph whose one result is a real
/// scalar) for its inputs numbered in `params`, as a new graph (reverse-mode
/// gradients, then the update; spectral-train-step). Its inputs: the loss
/// graph's, then the learning rate (a 0-d tensor of the loss's type), then
/// each parameter's optimizer state in order (SGD with momentum: velocity;
/// Adam/AdamW: m, then v of the parameter's real type), then for Adam/AdamW
/// the 1-based step count (int64, 0-d). Its results: the loss, the new
/// parameters, the new state in the same order, and with clip_norm the
/// gradients' global norm. Parameters and state are donated (updated in
/// place when the caller passes the same tensors as inputs and outputs).
Expected<Graph> training_step(const Graph& loss, const std::vector<int>& params,
                              const TrainOptions& options = {});

}  // namespace spectral
