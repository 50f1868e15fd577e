// fft_units.cc - the FFT tests' and bench's driver over the planner.
#include "tests/unit/kernels_templates/fft_units.h"

#include "tests/unit/kernels_templates/kernel_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <type_traits>

namespace spectral::testing {
namespace {

using planning::FftKind;

DType complex_type(bool wide) { return wide ? DType::kComplex128 : DType::kComplex64; }
DType real_type(bool wide) { return wide ? DType::kFloat64 : DType::kFloat32; }

template <typename V>
HostTensor tensor(DType dtype, std::vector<int64_t> shape, const std::vector<V>& values) {
  HostTensor t{dtype, std::move(shape), std::vector<uint8_t>(values.size() * sizeof(V))};
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

template <typename V>
std::vector<V> values_of(const std::vector<uint8_t>& bytes) {
  std::vector<V> values(bytes.size() / sizeof(V));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(V));
  return values;
}

}  // namespace

Program c2c_program(const std::vector<int64_t>& shape, const std::vector<int>& axes, bool forward,
                    bool wide, double factor) {
  codegen::ProgramBuilder builder(forward ? "fft" : "ifft");
  int x = builder.addBuffer("x", complex_type(wide), shape, BufferRole::kInput);
  int y = builder.addBuffer("y", complex_type(wide), shape);
  int source = x;
  for (size_t a = 0; a < axes.size(); ++a) {
    int axis = axes[a];
    planning::FftAxis plan;
    plan.kind = forward ? FftKind::kForward : FftKind::kInverse;
    plan.n = shape[axis];
    plan.outer =
        std::accumulate(shape.begin(), shape.begin() + axis, int64_t(1), std::multiplies<>());
    plan.inner =
        std::accumulate(shape.begin() + axis + 1, shape.end(), int64_t(1), std::multiplies<>());
    plan.doublePrecision = wide;
    plan.factor = a + 1 == axes.size() ? factor : 1;
    plan.input = source;
    plan.output = y;
    plan.op = "test.fft (axis " + std::to_string(axis) + ")";
    if (Status status = planning::planFftAxis(builder, plan); !status) {
      ADD_FAILURE() << status.message();
      break;
    }
    source = y;
  }
  if (axes.empty()) builder.copy(x, y, "test.fft (no axes)");
  builder.program().outputs = {y};
  return builder.take();
}

StatusOr<Program> axis_program(FftKind kind, int64_t outer, int64_t n, int64_t inner,
                                     bool wide, double factor) {
  codegen::ProgramBuilder builder(planning::fftKindName(kind));
  bool real_in = kind == FftKind::kRealForward || kind == FftKind::kDct2 || kind == FftKind::kDct3;
  bool real_out = kind == FftKind::kRealInverse || kind == FftKind::kDct2 || kind == FftKind::kDct3;
  int64_t bins = n / 2 + 1;
  int64_t in_length = kind == FftKind::kRealInverse ? bins : n;
  int64_t out_length = kind == FftKind::kRealForward ? bins : n;
  planning::FftAxis plan;
  plan.kind = kind;
  plan.n = n;
  plan.outer = outer;
  plan.inner = inner;
  plan.doublePrecision = wide;
  plan.factor = factor;
  plan.input = builder.addBuffer("x", real_in ? real_type(wide) : complex_type(wide),
                                 {outer, in_length, inner}, BufferRole::kInput);
  plan.output = builder.addBuffer("y", real_out ? real_type(wide) : complex_type(wide),
                                  {outer, out_length, inner});
  plan.op = std::string("test.") + planning::fftKindName(kind);
  if (Status status = planning::planFftAxis(builder, plan); !status) return status;
  builder.program().outputs = {plan.output};
  return builder.take();
}

std::vector<uint8_t> run_program(Program program, const HostTensor& input) {
  return run_program(std::move(program), input, device());
}

std::vector<uint8_t> run_program(Program program, const HostTensor& input, Device& on) {
  StatusOr<std::unique_ptr<Executable>> executable = Executable::load(std::move(program), on);
  if (!executable) {
    ADD_FAILURE() << executable.status().message();
    return {};
  }
  std::vector<HostTensor> outputs;
  Status status = (*executable)->run({input}, &outputs);
  if (!status || outputs.empty()) {
    ADD_FAILURE() << status.message();
    return {};
  }
  return std::move(outputs[0].bytes);
}

std::vector<std::pair<KernelSource, int64_t>> kernels_of(const Program& program) {
  std::map<int, int64_t> threads;
  for (const Step& step : program.steps)
    if (step.kind == Step::Kind::kLaunch)
      threads[step.kernel] = std::max<int64_t>(threads[step.kernel],
                                               int64_t(step.block.x) * step.block.y * step.block.z);
  std::vector<std::pair<KernelSource, int64_t>> kernels;
  for (const auto& [kernel, count] : threads)
    kernels.push_back({program.kernels[kernel].source, count});
  return kernels;
}

namespace {

template <typename V>
struct RealOf {
  using type = V;
};
template <typename V>
struct RealOf<std::complex<V>> {
  using type = V;
};

/// Plans one axis and runs it on `x`, or fails the test.
template <typename Out, typename In>
std::vector<Out> run_axis(FftKind kind, const std::vector<In>& x, int64_t outer, int64_t n,
                          int64_t inner, double factor) {
  constexpr bool wide = std::is_same_v<typename RealOf<In>::type, double>;
  StatusOr<Program> program = axis_program(kind, outer, n, inner, wide, factor);
  if (!program) {
    ADD_FAILURE() << program.status().message();
    return {};
  }
  const BufferDesc& input = program->buffers[program->inputs[0]];
  HostTensor tensor_in = tensor(input.dtype, input.shape, x);
  return values_of<Out>(run_program(std::move(*program), tensor_in));
}

}  // namespace

template <typename T>
std::vector<std::complex<T>> run_c2c(const std::vector<std::complex<T>>& x,
                                     const std::vector<int>& shape, const std::vector<int>& axes,
                                     bool forward, double factor) {
  constexpr bool wide = std::is_same_v<T, double>;
  std::vector<int64_t> dims(shape.begin(), shape.end());
  Program program = c2c_program(dims, axes, forward, wide, factor);
  return values_of<std::complex<T>>(
      run_program(std::move(program), tensor(complex_type(wide), dims, x)));
}

template <typename T>
std::vector<std::complex<T>> run_r2c(const std::vector<T>& x, int64_t outer, int64_t n,
                                     int64_t inner, double factor) {
  return run_axis<std::complex<T>>(FftKind::kRealForward, x, outer, n, inner, factor);
}

template <typename T>
std::vector<T> run_c2r(const std::vector<std::complex<T>>& x, int64_t outer, int64_t n,
                       int64_t inner, double factor) {
  return run_axis<T>(FftKind::kRealInverse, x, outer, n, inner, factor);
}

template <typename T>
std::vector<T> run_dct(const std::vector<T>& x, int64_t outer, int64_t n, int64_t inner, int type,
                       double factor) {
  return run_axis<T>(type == 2 ? FftKind::kDct2 : FftKind::kDct3, x, outer, n, inner, factor);
}

#define SPECTRAL_FFT_UNITS(T)                                                               \
  template std::vector<std::complex<T>> run_c2c<T>(const std::vector<std::complex<T>>&,     \
                                                   const std::vector<int>&,                 \
                                                   const std::vector<int>&, bool, double);  \
  template std::vector<std::complex<T>> run_r2c<T>(const std::vector<T>&, int64_t, int64_t, \
                                                   int64_t, double);                        \
  template std::vector<T> run_c2r<T>(const std::vector<std::complex<T>>&, int64_t, int64_t, \
                                     int64_t, double);                                      \
  template std::vector<T> run_dct<T>(const std::vector<T>&, int64_t, int64_t, int64_t, int, double);
SPECTRAL_FFT_UNITS(float)
SPECTRAL_FFT_UNITS(double)
#undef SPECTRAL_FFT_UNITS

}  // namespace spectral::testing
