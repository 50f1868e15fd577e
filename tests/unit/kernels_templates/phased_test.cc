// phased_test.cc - the host device's two schedules give the same bytes.
//
// A phased kernel (host_emulation.h, "Phased kernels") runs a whole block per
// call on the host, its templates looping over the threads; the rest of the
// suite runs that way. Here each planned FFT whose units say
// SPECTRAL_HOST_PHASED runs on a second host device with
// SPECTRAL_HOST_SCHEDULE=fibers as well (every CUDA thread a fiber, as on a
// GPU), and the two results must be identical, bit for bit.
#include "tests/unit/kernels_templates/fft_units.h"
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/host/host_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

namespace spectral::testing {
namespace {

using planning::FftKind;

/// The host device that runs every kernel's threads as fibers.
HostDevice& fibers() {
  static std::unique_ptr<HostDevice> device = [] {
    StatusOr<std::unique_ptr<HostDevice>> created =
        HostDevice::create(host::HostChecks{}, HostSchedule::kFibers);
    if (!created) {
      std::fprintf(stderr, "fibers host device: %s\n", created.status().message().c_str());
      std::abort();
    }
    return std::move(*created);
  }();
  return *device;
}

/// Runs `program` phased and with fibers on random input; both results must
/// be the same bytes, and at least one kernel must be phased.
void expect_same_both_ways(const Program& program) {
  if (device().name().rfind("host", 0) != 0 || device().name().find("fibers only") != std::string::npos)
    GTEST_SKIP() << "the test device (" << device().name() << ") is not the phased host device";
  int phased = 0;
  for (const auto& [source, threads] : kernels_of(program))
    phased += source.source.find("SPECTRAL_HOST_PHASED;") != std::string::npos;
  EXPECT_GT(phased, 0) << "no kernel of the program is phased";
  const BufferDesc& input = program.buffers[program.inputs[0]];
  HostTensor tensor{input.dtype, input.shape, std::vector<uint8_t>(size_t(input.bytes()))};
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1, 1);
  const bool wide = input.dtype == DType::kFloat64 || input.dtype == DType::kComplex128;
  if (wide) {
    std::vector<double> values(tensor.bytes.size() / sizeof(double));
    for (double& v : values) v = uniform(rng);
    std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  } else {
    std::vector<float> values(tensor.bytes.size() / sizeof(float));
    for (float& v : values) v = uniform(rng);
    std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
  }
  const std::vector<uint8_t> loops = run_program(program, tensor);
  const std::vector<uint8_t> fibered = run_program(program, tensor, fibers());
  ASSERT_FALSE(loops.empty());
  ASSERT_EQ(loops.size(), fibered.size());
  if (loops == fibered) return;
  size_t first = 0;
  while (loops[first] == fibered[first]) ++first;
  std::string kernels;
  for (const auto& [source, threads] : kernels_of(program)) kernels += " " + source.entry;
  ADD_FAILURE() << "the phased and the fiber runs differ from byte " << first << " of "
                << loops.size() << " (kernels" << kernels << ")";
}

Program axis(FftKind kind, int64_t outer, int64_t n, int64_t inner, bool wide) {
  StatusOr<Program> program = axis_program(kind, outer, n, inner, wide);
  EXPECT_TRUE(bool(program)) << program.status().message();
  return program ? std::move(*program) : Program{};
}

// Lengths with every radix (8, 4, 2, 3, 5, 7), rows per block that leave the
// last block part empty, and a strided axis.
TEST(PhasedSchedule, ComplexLinesMatchFibers) {
  for (bool wide : {false, true})
    for (bool forward : {true, false}) {
      SCOPED_TRACE(std::string(wide ? "f64" : "f32") + (forward ? " forward" : " inverse"));
      expect_same_both_ways(c2c_program({7, 256}, {1}, forward, wide));
      expect_same_both_ways(c2c_program({3, 1024}, {1}, forward, wide, 0.5));
      expect_same_both_ways(c2c_program({5, 210}, {1}, forward, wide));
      expect_same_both_ways(c2c_program({4, 12, 3}, {1}, forward, wide));
    }
}

// Two axes, and a length split in four-step passes of in-block transforms.
TEST(PhasedSchedule, ImagesAndFourStepMatchFibers) {
  expect_same_both_ways(c2c_program({2, 64, 48}, {1, 2}, true, false));
  expect_same_both_ways(c2c_program({1, 65536}, {1}, true, false));
  expect_same_both_ways(c2c_program({1, 65536}, {1}, false, true));
}

// R2C and C2R through the half-length packing, and the DCTs around a complex line.
TEST(PhasedSchedule, RealAndCosineLinesMatchFibers) {
  for (bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "f64" : "f32");
    expect_same_both_ways(axis(FftKind::kRealForward, 9, 256, 1, wide));
    expect_same_both_ways(axis(FftKind::kRealForward, 2, 60, 3, wide));
    expect_same_both_ways(axis(FftKind::kRealInverse, 9, 256, 1, wide));
    expect_same_both_ways(axis(FftKind::kRealInverse, 2, 60, 3, wide));
    expect_same_both_ways(axis(FftKind::kDct2, 5, 64, 1, wide));
    expect_same_both_ways(axis(FftKind::kDct3, 5, 64, 1, wide));
  }
}

}  // namespace
}  // namespace spectral::testing
