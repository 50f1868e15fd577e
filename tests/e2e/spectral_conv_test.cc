// examples/spectral_conv.mlir through spectral-run, against an FNO layer
// computed here with FFTW in double precision.
#include "runtime/tensor/npy.h"

#include "tests/e2e/run_command.h"

#include <gtest/gtest.h>
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unistd.h>

using spectral::testing::run_command;

namespace {

constexpr int kBatch = 4, kChannels = 8, kLength = 128, kModes = 16;
constexpr int kBins = kLength / 2 + 1;

std::string temp_dir() {
  char pattern[] = "/tmp/spectral-e2e-XXXXXX";
  const char* dir = mkdtemp(pattern);
  return dir ? dir : "";
}

spectral::NpyArray make_array(spectral::NpyDtype dtype, std::vector<int64_t> shape,
                              const void* data) {
  spectral::NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.bytes.resize(a.element_count() * spectral::npy_dtype_size(dtype));
  std::memcpy(a.bytes.data(), data, a.bytes.size());
  return a;
}

void write(const std::string& path, const spectral::NpyArray& array) {
  std::string error;
  ASSERT_TRUE(spectral::write_npy(path, array, &error)) << error;
}

/// The FNO layer of the example, in double, with FFTW.
std::vector<double> reference_layer(const std::vector<float>& x,
                                    const std::vector<std::complex<float>>& w,
                                    const std::vector<float>& bias) {
  std::vector<double> line(kLength), out(kBatch * kChannels * kLength);
  std::vector<std::complex<double>> spectrum(kBins);
  std::vector<std::complex<double>> low(kBatch * kChannels * kModes);
  fftw_plan forward = fftw_plan_dft_r2c_1d(
      kLength, line.data(), reinterpret_cast<fftw_complex*>(spectrum.data()), FFTW_ESTIMATE);
  fftw_plan backward = fftw_plan_dft_c2r_1d(
      kLength, reinterpret_cast<fftw_complex*>(spectrum.data()), line.data(), FFTW_ESTIMATE);
  for (int b = 0; b < kBatch; ++b)
    for (int c = 0; c < kChannels; ++c) {
      for (int n = 0; n < kLength; ++n) line[n] = x[(b * kChannels + c) * kLength + n];
      fftw_execute(forward);
      for (int m = 0; m < kModes; ++m) low[(b * kChannels + c) * kModes + m] = spectrum[m];
    }
  for (int b = 0; b < kBatch; ++b)
    for (int o = 0; o < kChannels; ++o) {
      std::fill(spectrum.begin(), spectrum.end(), 0.0);
      for (int m = 0; m < kModes; ++m)
        for (int i = 0; i < kChannels; ++i)
          spectrum[m] += low[(b * kChannels + i) * kModes + m] *
                         std::complex<double>(w[(i * kChannels + o) * kModes + m]);
      fftw_execute(backward);
      for (int n = 0; n < kLength; ++n) {
        double y = line[n] / kLength + bias[o];
        out[(b * kChannels + o) * kLength + n] = 0.5 * y * (1 + std::erf(y / std::sqrt(2.0)));
      }
    }
  fftw_destroy_plan(forward);
  fftw_destroy_plan(backward);
  return out;
}

TEST(SpectralRunE2E, FnoLayerMatchesFftw) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> x(kBatch * kChannels * kLength), bias(kChannels);
  std::vector<std::complex<float>> w(kChannels * kChannels * kModes);
  for (float& v : x) v = uniform(rng);
  for (float& v : bias) v = uniform(rng);
  for (auto& v : w) v = {uniform(rng), uniform(rng)};

  std::string dir = temp_dir();
  ASSERT_FALSE(dir.empty());
  write(dir + "/x.npy", make_array(spectral::NpyDtype::kFloat32, {kBatch, kChannels, kLength}, x.data()));
  write(dir + "/w.npy", make_array(spectral::NpyDtype::kComplex64, {kChannels, kChannels, kModes}, w.data()));
  write(dir + "/bias.npy", make_array(spectral::NpyDtype::kFloat32, {kChannels, 1}, bias.data()));

  std::string output;
  std::string command = std::string(SPECTRAL_RUN) + " " SPECTRAL_SOURCE_DIR "/examples/spectral_conv.mlir" +
                        " --input=@" + dir + "/x.npy --input=@" + dir + "/w.npy --input=@" + dir +
                        "/bias.npy --output=@" + dir + "/y.npy";
  ASSERT_EQ(run_command(command, &output), 0) << command << "\n" << output;

  spectral::NpyArray y;
  std::string error;
  ASSERT_TRUE(spectral::read_npy(dir + "/y.npy", &y, &error)) << error;
  ASSERT_EQ(y.dtype, spectral::NpyDtype::kFloat32);
  ASSERT_EQ(y.shape, (std::vector<int64_t>{kBatch, kChannels, kLength}));
  std::vector<double> expected = reference_layer(x, w, bias);
  const float* got = reinterpret_cast<const float*>(y.bytes.data());
  double max_error = 0, max_ref = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    max_error = std::max(max_error, std::abs(got[i] - expected[i]));
    max_ref = std::max(max_ref, std::abs(expected[i]));
  }
  // The evaluator computes in double and rounds once to float32 on output.
  EXPECT_LT(max_error / max_ref, 1e-6) << "max error " << max_error;
  std::system(("rm -rf " + dir).c_str());
}

TEST(SpectralRunE2E, WrongInputShapeNamesTheArgument) {
  std::string dir = temp_dir();
  std::vector<float> small(3, 1.0f);
  write(dir + "/small.npy", make_array(spectral::NpyDtype::kFloat32, {3}, small.data()));
  std::string output;
  std::string command = std::string(SPECTRAL_RUN) + " " SPECTRAL_SOURCE_DIR
                        "/examples/spectral_conv.mlir --input=@" + dir + "/small.npy --random-inputs";
  EXPECT_EQ(run_command(command, &output), 1);
  EXPECT_NE(output.find("argument #0 must be tensor<4x8x128xf32>"), std::string::npos) << output;
  EXPECT_NE(output.find("holds float32 of shape (3)"), std::string::npos) << output;
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
