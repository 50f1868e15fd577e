// embed - an FNO layer built with Spectral's C++ API, compiled and run.
//
//   y = gelu(irfft(channel_mix(rfft(x)[..., :modes], W), n) + x * w_skip)
//
// Usage: embed [--device=default|host|cuda] [--save=FILE.spx]
#include <spectral/compiler.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  spectral::CompileOptions options;
  std::string save;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--device=", 0) == 0) {
      spectral::Expected<spectral::DeviceKind> kind = spectral::parse_device_kind(arg.substr(9));
      if (!kind) {
        std::fprintf(stderr, "embed: %s\n", kind.status().message().c_str());
        return 2;
      }
      options.device = *kind;
    } else if (arg.rfind("--save=", 0) == 0) {
      save = arg.substr(7);
    } else {
      std::fprintf(stderr, "usage: embed [--device=default|host|cuda] [--save=FILE.spx]\n");
      return 2;
    }
  }

  const int64_t batch = 4, channels = 8, n = 64, modes = 12;
  spectral::Graph g("fno_layer");
  spectral::Value x = g.input(spectral::DType::kFloat32, {batch, channels, n});

  // Weights: deterministic values, as a trained model would load them.
  spectral::Tensor w = spectral::Tensor::zeros(spectral::DType::kComplex64, {channels, channels, modes});
  auto* weights = w.as<std::complex<float>>();
  for (int64_t i = 0; i < w.elements(); ++i)
    weights[i] = {0.1f * std::cos(0.7f * float(i)), 0.1f * std::sin(0.3f * float(i))};

  spectral::Value spectrum = g.rfft(x, {2});
  spectral::Value low = g.slice(spectrum, {0, 0, 0}, {batch, channels, modes});
  spectral::Value mixed = g.channel_mix(low, g.constant(w));
  spectral::Value padded = g.pad(mixed, {0, 0, 0}, {0, 0, n / 2 + 1 - modes});
  spectral::Value y = g.gelu(g.add(g.irfft(padded, {2}, n), g.mul(x, g.scalar(0.5))));
  if (spectral::Status status = g.output({y}); !status) {
    std::fprintf(stderr, "embed: %s\n", status.message().c_str());
    return 1;
  }

  spectral::Expected<spectral::Model> model = spectral::compile(g, options);
  if (!model) {
    std::fprintf(stderr, "embed: %s\n", model.status().message().c_str());
    return 1;
  }
  spectral::Tensor input = spectral::Tensor::zeros(spectral::DType::kFloat32, {batch, channels, n});
  for (int64_t i = 0; i < input.elements(); ++i) input.as<float>()[i] = std::sin(0.05f * float(i));
  spectral::Expected<std::vector<spectral::Tensor>> outputs = model->run({input});
  if (!outputs) {
    std::fprintf(stderr, "embed: %s\n", outputs.status().message().c_str());
    return 1;
  }
  const spectral::Tensor& out = (*outputs)[0];
  double sum = 0;
  for (int64_t i = 0; i < out.elements(); ++i) sum += out.as<float>()[i];
  std::printf("fno_layer on %s: %s -> %s, %d kernel(s)\n", model->device_name().c_str(),
              input.type_string().c_str(), out.type_string().c_str(), model->kernel_count());
  std::printf("y[0, 0, :4] = %.6f %.6f %.6f %.6f   sum(y) = %.6f\n", out.as<float>()[0],
              out.as<float>()[1], out.as<float>()[2], out.as<float>()[3], sum);
  std::printf("%s", model->summary().c_str());
  if (!save.empty()) {
    if (spectral::Status status = model->save(save); !status) {
      std::fprintf(stderr, "embed: %s\n", status.message().c_str());
      return 1;
    }
    std::printf("saved %s\n", save.c_str());
  }
  return 0;
}
