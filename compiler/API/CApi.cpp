//===- CApi.cpp - spectral.h: the C API over the C++ API ------------------===//
//
// Each entry point checks its pointers, calls the C++ API, and turns a Status
// into a code and this thread's last error. A C++ exception (std::bad_alloc)
// is caught at the boundary and reported the same way.
//
//===----------------------------------------------------------------------===//
#include "spectral/spectral.h"

#include "spectral/compiler.h"
#include "spectral/runtime.h"

#include "runtime/program/prebuilt.h"

#include <cstring>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <vector>

struct spectral_graph {
  spectral::Graph graph;
  std::vector<spectral::Value> values;  // by spectral_value id
  std::string text;                     // spectral_graph_text's storage
};

struct spectral_model {
  spectral::Model model;
  std::string summary;  // spectral_model_summary's text, made when the model is
};

namespace {

thread_local std::string lastError;

spectral_status fail(spectral_status code, std::string message) {
  lastError = std::move(message);
  return code;
}

spectral_status invalid(const std::string& message) {
  return fail(SPECTRAL_INVALID_ARGUMENT, message);
}

spectral_status check(const spectral::Status& status) {
  if (status) {
    lastError.clear();
    return SPECTRAL_OK;
  }
  return fail(SPECTRAL_ERROR, status.message());
}

/// Runs `body`, catching what C must not see.
template <typename Body>
spectral_status guarded(const char* function, Body body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return fail(SPECTRAL_ERROR, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(SPECTRAL_ERROR, std::string(function) + ": unknown error");
  }
}

std::optional<spectral::DType> dtypeOf(spectral_dtype dtype) {
  if (int(dtype) < 0 || int(dtype) > int(SPECTRAL_C128)) return std::nullopt;
  return static_cast<spectral::DType>(int(dtype));
}

std::vector<int64_t> dims(const int64_t* values, int32_t count) {
  return count > 0 ? std::vector<int64_t>(values, values + count) : std::vector<int64_t>();
}

/// Checks a (pointer, count) pair: a negative count, or a null pointer with a positive one, is refused.
bool validArray(const void* pointer, int32_t count) { return count >= 0 && (count == 0 || pointer); }

/// The value `v` of `g`, or an invalid-argument code.
spectral_status lookup(spectral_graph* g, spectral_value v, spectral::Value* out) {
  if (v.id < 0 || size_t(v.id) >= g->values.size())
    return invalid("value " + std::to_string(v.id) + " is not a value of this graph");
  *out = g->values[size_t(v.id)];
  return SPECTRAL_OK;
}

/// Records `made` as a new value of `g`; its error (if any) is the call's.
spectral_status record(spectral_graph* g, const spectral::Value& made, spectral_value* out) {
  if (!made.ok()) return fail(SPECTRAL_ERROR, made.status().message());
  g->values.push_back(made);
  out->id = int32_t(g->values.size() - 1);
  lastError.clear();
  return SPECTRAL_OK;
}

spectral::TensorInfo const* infoAt(const std::vector<spectral::TensorInfo>& infos, int32_t index) {
  return index >= 0 && size_t(index) < infos.size() ? &infos[size_t(index)] : nullptr;
}

spectral_status describe(const spectral::TensorInfo* info, spectral_tensor* out) {
  if (!info) return invalid("index out of range");
  out->data = nullptr;
  out->dtype = spectral_dtype(int(info->dtype));
  out->rank = int32_t(info->shape.size());
  out->shape = info->shape.data();
  lastError.clear();
  return SPECTRAL_OK;
}

/// The C tensors as views, or an invalid-argument code naming the bad one.
spectral_status views(const spectral_tensor* tensors, int32_t count, const char* what,
                      std::vector<spectral::Tensor>* out) {
  if (!validArray(tensors, count)) return invalid(std::string("null ") + what);
  for (int32_t i = 0; i < count; ++i) {
    std::optional<spectral::DType> dtype = dtypeOf(tensors[i].dtype);
    if (!dtype || !validArray(tensors[i].shape, tensors[i].rank))
      return invalid(std::string(what) + " #" + std::to_string(i) + ": bad dtype or shape");
    out->push_back(spectral::Tensor::view(tensors[i].data, *dtype,
                                          dims(tensors[i].shape, tensors[i].rank)));
  }
  return SPECTRAL_OK;
}

} // namespace

extern "C" {

const char* spectral_last_error(void) { return lastError.c_str(); }

size_t spectral_dtype_size(spectral_dtype dtype) {
  std::optional<spectral::DType> d = dtypeOf(dtype);
  return d ? size_t(spectral::dtype_size(*d)) : 0;
}

spectral_status spectral_graph_create(const char* function, spectral_graph** graph) {
  return guarded(__func__, [&] {
    if (!function || !graph) return invalid("spectral_graph_create: null argument");
    auto* g = new spectral_graph{spectral::Graph(function), {}, {}};
    if (spectral_status status = check(g->graph.status()); status != SPECTRAL_OK) {
      delete g;
      return status;
    }
    *graph = g;
    return SPECTRAL_OK;
  });
}

spectral_status spectral_graph_parse_file(const char* path, const char* function,
                                          spectral_graph** graph) {
  return guarded(__func__, [&] {
    if (!path || !graph) return invalid("spectral_graph_parse_file: null argument");
    spectral::Expected<spectral::Graph> parsed =
        spectral::Graph::parse_file(path, function ? function : "");
    if (!parsed) return check(parsed.status());
    *graph = new spectral_graph{std::move(*parsed), {}, {}};
    lastError.clear();
    return SPECTRAL_OK;
  });
}

void spectral_graph_free(spectral_graph* graph) { delete graph; }

spectral_status spectral_graph_input(spectral_graph* graph, spectral_dtype dtype,
                                     const int64_t* shape, int32_t rank, int donated,
                                     spectral_value* out) {
  return guarded(__func__, [&] {
    std::optional<spectral::DType> d = dtypeOf(dtype);
    if (!graph || !out || !d || !validArray(shape, rank))
      return invalid("spectral_graph_input: null argument, bad dtype or bad shape");
    return record(graph, graph->graph.input(*d, dims(shape, rank), donated != 0), out);
  });
}

spectral_status spectral_graph_constant(spectral_graph* graph, spectral_dtype dtype,
                                        const int64_t* shape, int32_t rank, const void* data,
                                        spectral_value* out) {
  return guarded(__func__, [&] {
    std::optional<spectral::DType> d = dtypeOf(dtype);
    if (!graph || !out || !d || !validArray(shape, rank) || !data)
      return invalid("spectral_graph_constant: null argument, bad dtype or bad shape");
    for (int32_t i = 0; i < rank; ++i)
      if (shape[i] < 0) return invalid("spectral_graph_constant: negative dimension");
    spectral::Tensor view = spectral::Tensor::view(const_cast<void*>(data), *d, dims(shape, rank));
    return record(graph, graph->graph.constant(view), out);
  });
}

spectral_status spectral_graph_unary(spectral_graph* graph, const char* op, spectral_value x,
                                     spectral_value* out) {
  using Method = spectral::Value (spectral::Graph::*)(spectral::Value);
  static const std::map<std::string, Method> methods = {
      {"neg", &spectral::Graph::neg},   {"exp", &spectral::Graph::exp},
      {"log", &spectral::Graph::log},   {"sqrt", &spectral::Graph::sqrt},
      {"tanh", &spectral::Graph::tanh}, {"relu", &spectral::Graph::relu},
      {"gelu", &spectral::Graph::gelu}, {"sigmoid", &spectral::Graph::sigmoid},
      {"conj", &spectral::Graph::conj}, {"abs", &spectral::Graph::abs},
      {"real", &spectral::Graph::real}, {"imag", &spectral::Graph::imag}};
  return guarded(__func__, [&] {
    if (!graph || !op || !out) return invalid("spectral_graph_unary: null argument");
    auto method = methods.find(op);
    if (method == methods.end()) return invalid(std::string("unknown unary op '") + op + "'");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    return record(graph, (graph->graph.*(method->second))(a), out);
  });
}

spectral_status spectral_graph_softmax(spectral_graph* graph, const char* op, spectral_value x,
                                       int64_t axis, spectral_value* out) {
  return guarded(__func__, [&] {
    if (!graph || !op || !out) return invalid("spectral_graph_softmax: null argument");
    const std::string name = op;
    if (name != "softmax" && name != "log_softmax")
      return invalid("unknown softmax op '" + name + "' (softmax or log_softmax)");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    return record(graph,
                  name == "softmax" ? graph->graph.softmax(a, axis) : graph->graph.log_softmax(a, axis),
                  out);
  });
}

spectral_status spectral_graph_binary(spectral_graph* graph, const char* op, spectral_value a,
                                      spectral_value b, spectral_value* out) {
  using Method = spectral::Value (spectral::Graph::*)(spectral::Value, spectral::Value);
  static const std::map<std::string, Method> methods = {
      {"add", &spectral::Graph::add},
      {"sub", &spectral::Graph::sub},
      {"mul", &spectral::Graph::mul},
      {"div", &spectral::Graph::div},
      {"complex", &spectral::Graph::complex},
      {"matmul", &spectral::Graph::matmul},
      {"channel_mix", &spectral::Graph::channel_mix},
      {"gather", &spectral::Graph::gather},
      {"cross_entropy", &spectral::Graph::cross_entropy},
      {"mse", &spectral::Graph::mse}};
  return guarded(__func__, [&] {
    if (!graph || !op || !out) return invalid("spectral_graph_binary: null argument");
    auto method = methods.find(op);
    if (method == methods.end()) return invalid(std::string("unknown binary op '") + op + "'");
    spectral::Value lhs, rhs;
    if (spectral_status status = lookup(graph, a, &lhs); status != SPECTRAL_OK) return status;
    if (spectral_status status = lookup(graph, b, &rhs); status != SPECTRAL_OK) return status;
    return record(graph, (graph->graph.*(method->second))(lhs, rhs), out);
  });
}

spectral_status spectral_graph_transform(spectral_graph* graph, const char* op, spectral_value x,
                                         const int64_t* axes, int32_t naxes, spectral_norm norm,
                                         int64_t length, spectral_value* out) {
  return guarded(__func__, [&] {
    if (!graph || !op || !out || !validArray(axes, naxes))
      return invalid("spectral_graph_transform: null argument");
    if (int(norm) < 0 || int(norm) > int(SPECTRAL_NORM_FORWARD))
      return invalid("spectral_graph_transform: bad norm");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    const std::string name = op;
    const std::vector<int64_t> ax = dims(axes, naxes);
    const auto n = static_cast<spectral::Norm>(int(norm));
    spectral::Graph& g = graph->graph;
    if (name == "fft") return record(graph, g.fft(a, ax, n), out);
    if (name == "ifft") return record(graph, g.ifft(a, ax, n), out);
    if (name == "rfft") return record(graph, g.rfft(a, ax, n), out);
    if (name == "irfft") return record(graph, g.irfft(a, ax, length, n), out);
    if (name == "dct") return record(graph, g.dct(a, ax, 2, n), out);
    if (name == "idct") return record(graph, g.idct(a, ax, 2, n), out);
    return invalid("unknown transform '" + name + "' (fft ifft rfft irfft dct idct)");
  });
}

spectral_status spectral_graph_reduce(spectral_graph* graph, const char* op, spectral_value x,
                                      const int64_t* axes, int32_t naxes, int keepdims,
                                      spectral_value* out) {
  return guarded(__func__, [&] {
    if (!graph || !op || !out || !validArray(axes, naxes))
      return invalid("spectral_graph_reduce: null argument");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    const std::string name = op;
    const std::vector<int64_t> ax = dims(axes, naxes);
    spectral::Graph& g = graph->graph;
    if (name == "reduce_sum") return record(graph, g.reduce_sum(a, ax, keepdims != 0), out);
    if (name == "reduce_mean") return record(graph, g.reduce_mean(a, ax, keepdims != 0), out);
    if (name == "reduce_max") return record(graph, g.reduce_max(a, ax, keepdims != 0), out);
    return invalid("unknown reduction '" + name + "' (reduce_sum reduce_mean reduce_max)");
  });
}

spectral_status spectral_graph_reshape(spectral_graph* graph, const char* op, spectral_value x,
                                       const int64_t* values, int32_t count, spectral_value* out) {
  return guarded(__func__, [&] {
    if (!graph || !op || !out || !validArray(values, count))
      return invalid("spectral_graph_reshape: null argument");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    const std::string name = op;
    const std::vector<int64_t> d = dims(values, count);
    spectral::Graph& g = graph->graph;
    if (name == "reshape") return record(graph, g.reshape(a, d), out);
    if (name == "broadcast") return record(graph, g.broadcast(a, d), out);
    if (name == "transpose") return record(graph, g.transpose(a, d), out);
    return invalid("unknown shape op '" + name + "' (reshape broadcast transpose)");
  });
}

spectral_status spectral_graph_slice(spectral_graph* graph, spectral_value x,
                                     const int64_t* start, const int64_t* limit, int32_t rank,
                                     spectral_value* out) {
  return guarded(__func__, [&] {
    if (!graph || !out || !validArray(start, rank) || !validArray(limit, rank))
      return invalid("spectral_graph_slice: null argument");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    return record(graph, graph->graph.slice(a, dims(start, rank), dims(limit, rank)), out);
  });
}

spectral_status spectral_graph_pad(spectral_graph* graph, spectral_value x, const int64_t* low,
                                   const int64_t* high, int32_t rank, double value,
                                   spectral_value* out) {
  return guarded(__func__, [&] {
    if (!graph || !out || !validArray(low, rank) || !validArray(high, rank))
      return invalid("spectral_graph_pad: null argument");
    spectral::Value a;
    if (spectral_status status = lookup(graph, x, &a); status != SPECTRAL_OK) return status;
    return record(graph, graph->graph.pad(a, dims(low, rank), dims(high, rank), value), out);
  });
}

spectral_status spectral_graph_output(spectral_graph* graph, const spectral_value* results,
                                      int32_t count) {
  return guarded(__func__, [&] {
    if (!graph || !validArray(results, count))
      return invalid("spectral_graph_output: null argument");
    std::vector<spectral::Value> values;
    for (int32_t i = 0; i < count; ++i) {
      values.emplace_back();
      if (spectral_status status = lookup(graph, results[i], &values.back());
          status != SPECTRAL_OK)
        return status;
    }
    return check(graph->graph.output(values));
  });
}

const char* spectral_graph_text(spectral_graph* graph) {
  if (!graph) return "";
  try {
    graph->text = graph->graph.str();
  } catch (...) {
    graph->text.clear();
  }
  return graph->text.c_str();
}

spectral_compile_options spectral_compile_options_default(void) {
  spectral_compile_options options;
  options.device = SPECTRAL_DEVICE_DEFAULT;
  options.fuse = 1;
  options.dump_dir = nullptr;
  options.pass_pipeline = nullptr;
  options.targets = nullptr;
  return options;
}

spectral_status spectral_compile(const spectral_graph* graph,
                                 const spectral_compile_options* options, spectral_model** model) {
  return guarded(__func__, [&] {
    if (!graph || !model) return invalid("spectral_compile: null argument");
    const spectral_compile_options o = options ? *options : spectral_compile_options_default();
    if (int(o.device) < 0 || int(o.device) > int(SPECTRAL_DEVICE_CUDA))
      return invalid("spectral_compile: bad device");
    spectral::CompileOptions compile;
    compile.device = static_cast<spectral::DeviceKind>(int(o.device));
    compile.fuse = o.fuse != 0;
    if (o.dump_dir) compile.dump_dir = o.dump_dir;
    if (o.pass_pipeline) compile.pass_pipeline = o.pass_pipeline;
    if (o.targets && *o.targets) {  // comma-separated, spaces around names ignored;
      const std::string list = o.targets;  // an empty entry is an unknown target
      for (size_t start = 0, end = 0; end != std::string::npos; start = end + 1) {
        end = list.find(',', start);
        std::string target = list.substr(start, end - start);
        target.erase(0, target.find_first_not_of(" \t"));
        target.erase(target.find_last_not_of(" \t") + 1);
        compile.targets.push_back(target);
      }
    }
    if (spectral::StatusOr<std::vector<std::string>> archs = spectral::gpu_targets(compile.targets);
        !archs)
      return invalid("spectral_compile: " + archs.status().message());
    spectral::Expected<spectral::Model> compiled = spectral::compile(graph->graph, compile);
    if (!compiled) return check(compiled.status());
    *model = new spectral_model{std::move(*compiled), {}};
    (*model)->summary = (*model)->model.summary();
    lastError.clear();
    return SPECTRAL_OK;
  });
}

spectral_status spectral_model_load(const char* path, spectral_device device,
                                    spectral_model** model) {
  return guarded(__func__, [&] {
    if (!path || !model) return invalid("spectral_model_load: null argument");
    if (int(device) < 0 || int(device) > int(SPECTRAL_DEVICE_CUDA))
      return invalid("spectral_model_load: bad device");
    spectral::Expected<spectral::Model> loaded =
        spectral::Model::load(path, static_cast<spectral::DeviceKind>(int(device)));
    if (!loaded) return check(loaded.status());
    *model = new spectral_model{std::move(*loaded), {}};
    (*model)->summary = (*model)->model.summary();
    lastError.clear();
    return SPECTRAL_OK;
  });
}

spectral_status spectral_model_save(const spectral_model* model, const char* path) {
  return guarded(__func__, [&] {
    if (!model || !path) return invalid("spectral_model_save: null argument");
    return check(model->model.save(path));
  });
}

void spectral_model_free(spectral_model* model) { delete model; }

int32_t spectral_model_num_inputs(const spectral_model* model) {
  return model ? int32_t(model->model.inputs().size()) : 0;
}

int32_t spectral_model_num_outputs(const spectral_model* model) {
  return model ? int32_t(model->model.outputs().size()) : 0;
}

spectral_status spectral_model_input(const spectral_model* model, int32_t index,
                                     spectral_tensor* info) {
  if (!model || !info) return invalid("spectral_model_input: null argument");
  return describe(infoAt(model->model.inputs(), index), info);
}

spectral_status spectral_model_output(const spectral_model* model, int32_t index,
                                      spectral_tensor* info) {
  if (!model || !info) return invalid("spectral_model_output: null argument");
  return describe(infoAt(model->model.outputs(), index), info);
}

spectral_status spectral_model_run(const spectral_model* model, const spectral_tensor* inputs,
                                   int32_t num_inputs, const spectral_tensor* outputs,
                                   int32_t num_outputs) {
  return guarded(__func__, [&] {
    if (!model) return invalid("spectral_model_run: null model");
    std::vector<spectral::Tensor> in, out;
    if (spectral_status status = views(inputs, num_inputs, "input", &in); status != SPECTRAL_OK)
      return status;
    if (spectral_status status = views(outputs, num_outputs, "output", &out);
        status != SPECTRAL_OK)
      return status;
    return check(model->model.run(in, out));
  });
}

const char* spectral_model_summary(const spectral_model* model) {
  return model ? model->summary.c_str() : "";
}

} // extern "C"
