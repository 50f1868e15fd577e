// program_test.cc - the Program's checks and the executor on the host device.
#include "runtime/program/executor.h"
#include "runtime/program/program.h"

#include <gtest/gtest.h>

#include <cstring>

namespace spectral {
namespace {

Device& host() {
  static std::unique_ptr<Device> device = [] {
    StatusOr<std::unique_ptr<Device>> created = create_device("host");
    if (!created) std::abort();
    return std::move(*created);
  }();
  return *device;
}

/// y[i] = x[i] * 2, and index i reported through the error word when x[i] < 0.
const char* const kDouble = R"(
extern "C" __global__ void double_it(const float* x, float* y, long long n,
                                     unsigned long long* error) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (x[i] < 0 && error) atomicMax(error, ~(unsigned long long)i);
  y[i] = 2 * x[i];
}
)";

BufferDesc buffer(const char* name, DType dtype, std::vector<int64_t> shape, BufferRole role) {
  BufferDesc b;
  b.name = name;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.role = role;
  return b;
}

/// x [4] -> y = 2x, through a view of y as [2, 2]; `op` names the launch.
Program doubling(bool with_error_word) {
  Program p;
  p.function = "doubling";
  p.buffers = {buffer("x", DType::kFloat32, {4}, BufferRole::kInput),
               buffer("y", DType::kFloat32, {4}, BufferRole::kTemporary),
               buffer("y2", DType::kFloat32, {2, 2}, BufferRole::kView),
               buffer("error", DType::kInt64, {1}, BufferRole::kTemporary)};
  p.buffers[2].view_of = 1;
  p.inputs = {0};
  p.outputs = {2, 0};
  p.kernels.push_back({{kDouble, "double_it"}, "test.double (t.mlir:1:1)", 16, 16});
  Step step;
  step.kernel = 0;
  step.grid = {1, 1, 1};
  step.block = {32, 1, 1};
  step.args = {StepArg::of_buffer(0), StepArg::of_buffer(1), StepArg::i64(4),
               with_error_word ? StepArg::of_buffer(3) : StepArg::i64(0)};
  step.op = "test.double (t.mlir:1:1)";
  if (with_error_word) {
    step.error_word = 3;
    step.error_message = "negative input";
  }
  p.steps.push_back(step);
  return p;
}

HostTensor floats(std::vector<float> values) {
  HostTensor t{DType::kFloat32, {int64_t(values.size())}, {}};
  t.bytes.resize(values.size() * 4);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

TEST(Program, ValidateNamesWhatIsWrong) {
  EXPECT_TRUE(doubling(true).validate().is_ok());
  Program view = doubling(true);
  view.buffers[2].shape = {3};
  EXPECT_NE(view.validate().message().find("views a buffer of another size"), std::string::npos);
  Program shared = doubling(true);
  shared.steps.push_back(shared.steps[0]);
  EXPECT_NE(shared.validate().message().find("shares its error word with step 0"),
            std::string::npos)
      << shared.validate().message();
  Program writes_input = doubling(false);
  Step copy;
  copy.kind = Step::Kind::kCopy;
  copy.source = 1;
  copy.target = 0;
  writes_input.steps.push_back(copy);
  EXPECT_NE(writes_input.validate().message().find("writes an input or constant"),
            std::string::npos);
  Program constant = doubling(false);
  constant.buffers.push_back(buffer("c", DType::kFloat32, {2}, BufferRole::kConstant));
  constant.buffers.back().constant = 0;
  constant.constants.push_back(std::vector<uint8_t>(4));
  EXPECT_NE(constant.validate().message().find("holds 4 constant bytes, expected 8"),
            std::string::npos);
}

TEST(Executor, RunsStepsAndReturnsViewsAndInputs) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(doubling(true), host());
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  std::vector<HostTensor> outputs;
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 2}));
  float y[4];
  std::memcpy(y, outputs[0].bytes.data(), 16);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[3], 8);
  EXPECT_EQ(outputs[1].bytes, floats({1, 2, 3, 4}).bytes);
}

TEST(Executor, ErrorWordNamesTheOpAndLowestPosition) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(doubling(true), host());
  ASSERT_TRUE(exe.is_ok());
  std::vector<HostTensor> outputs;
  Status status = (*exe)->run({floats({1, -2, 3, -4})}, &outputs);
  EXPECT_EQ(status.message(), "test.double (t.mlir:1:1): negative input (at position 1)");
  // The word is zeroed before each run: a good input runs clean again.
  EXPECT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
}

TEST(Executor, ArgumentsAreChecked) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(doubling(false), host());
  ASSERT_TRUE(exe.is_ok());
  std::vector<HostTensor> outputs;
  EXPECT_EQ((*exe)->run({}, &outputs).message(), "'doubling' takes 1 argument, got 0");
  EXPECT_EQ((*exe)->run({floats({1, 2})}, &outputs).message(),
            "argument #0 must be tensor<4xf32>, got tensor<2xf32>");
}

TEST(Executor, RefusesAnInvalidProgramAndAKernelThatDoesNotCompile) {
  Program bad = doubling(false);
  bad.steps[0].kernel = 7;
  StatusOr<std::unique_ptr<Executable>> invalid = Executable::load(bad, host());
  EXPECT_NE(invalid.status().message().find("launches a missing kernel"), std::string::npos);
  Program broken = doubling(false);
  broken.kernels[0].source.source += "this is not C++";
  StatusOr<std::unique_ptr<Executable>> failed = Executable::load(broken, host());
  EXPECT_NE(failed.status().message().find("compiling kernel 'double_it' for test.double"),
            std::string::npos)
      << failed.status().message();
}

}  // namespace
}  // namespace spectral
