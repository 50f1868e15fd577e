// run_artifact - runs a .spx artifact (spectral-compile's output) with the
// runtime only: every input filled with a deterministic ramp, every output
// summarised.
//
// Usage: run_artifact FILE.spx [--device=default|host|cuda] [--runs=N]
#include <spectral/runtime.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <string>

namespace {

double as_double(const spectral::Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case spectral::DType::kBool: return t.as<bool>()[i];
    case spectral::DType::kInt32: return t.as<int32_t>()[i];
    case spectral::DType::kInt64: return double(t.as<int64_t>()[i]);
    case spectral::DType::kFloat32: return t.as<float>()[i];
    case spectral::DType::kFloat64: return t.as<double>()[i];
    case spectral::DType::kComplex64: return std::abs(t.as<std::complex<float>>()[i]);
    case spectral::DType::kComplex128: return std::abs(t.as<std::complex<double>>()[i]);
  }
  return 0;
}

void fill_ramp(spectral::Tensor& t) {
  for (int64_t i = 0; i < t.elements(); ++i) {
    const double v = std::sin(0.01 * double(i));
    switch (t.dtype()) {
      case spectral::DType::kBool: t.as<bool>()[i] = v > 0; break;
      case spectral::DType::kInt32: t.as<int32_t>()[i] = int32_t(i % 3); break;
      case spectral::DType::kInt64: t.as<int64_t>()[i] = i % 3; break;
      case spectral::DType::kFloat32: t.as<float>()[i] = float(v); break;
      case spectral::DType::kFloat64: t.as<double>()[i] = v; break;
      case spectral::DType::kComplex64: t.as<std::complex<float>>()[i] = float(v); break;
      case spectral::DType::kComplex128: t.as<std::complex<double>>()[i] = v; break;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  spectral::DeviceKind device = spectral::DeviceKind::kDefault;
  int runs = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--device=", 0) == 0) {
      spectral::Expected<spectral::DeviceKind> kind = spectral::parse_device_kind(arg.substr(9));
      if (!kind) {
        std::fprintf(stderr, "run_artifact: %s\n", kind.status().message().c_str());
        return 2;
      }
      device = *kind;
    } else if (arg.rfind("--runs=", 0) == 0) {
      runs = std::max(1, std::atoi(arg.c_str() + 7));
    } else if (path.empty() && arg[0] != '-') {
      path = arg;
    } else {
      path.clear();
      break;
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: run_artifact FILE.spx [--device=default|host|cuda] [--runs=N]\n");
    return 2;
  }
  spectral::Expected<spectral::Model> model = spectral::Model::load(path, device);
  if (!model) {
    std::fprintf(stderr, "run_artifact: %s\n", model.status().message().c_str());
    return 1;
  }
  std::vector<spectral::Tensor> inputs;
  for (const spectral::TensorInfo& info : model->inputs()) {
    inputs.push_back(spectral::Tensor::zeros(info.dtype, info.shape));
    fill_ramp(inputs.back());
  }
  spectral::Expected<std::vector<spectral::Tensor>> outputs = model->run(inputs);
  const auto start = std::chrono::steady_clock::now();
  for (int r = 1; r < runs && outputs; ++r) outputs = model->run(inputs);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!outputs) {
    std::fprintf(stderr, "run_artifact: %s\n", outputs.status().message().c_str());
    return 1;
  }
  std::printf("@%s on %s: %d kernel(s)\n", model->function().c_str(), model->device_name().c_str(),
              model->kernel_count());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const spectral::Tensor& t = (*outputs)[i];
    double sum = 0, largest = 0;
    for (int64_t e = 0; e < t.elements(); ++e) {
      sum += as_double(t, e);
      largest = std::max(largest, std::abs(as_double(t, e)));
    }
    std::printf("result #%zu %s: sum %.6g, max |x| %.6g\n", i, t.type_string().c_str(), sum,
                largest);
  }
  if (runs > 1) std::printf("%.3f ms per run (%d runs)\n", ms / (runs - 1), runs - 1);
  return 0;
}
