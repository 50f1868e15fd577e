// program_test.cc - the Program's checks and the executor on the host device.
#include "runtime/device/host/host_device.h"
#include "runtime/program/artifact.h"
#include "runtime/program/container.h"
#include "runtime/program/executor.h"
#include "runtime/program/prebuilt.h"
#include "runtime/program/program.h"
#include "runtime/program/report.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/cache/sha256.h"
#include "runtime/schemas/program_generated.h"
#include "unaligned_vector.h"

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
  p.kernels.push_back({{kDouble, "double_it", {}}, "test.double (t.mlir:1:1)", 16, 16, 0, {}});
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
  view.buffers[2].shape = {5};
  EXPECT_NE(view.validate().message().find("views bytes beyond its buffer's"), std::string::npos)
      << view.validate().message();
  Program shifted = doubling(true);  // 4 of 4 floats, one float in: past the end
  shifted.buffers[2].view_offset = 4;
  EXPECT_NE(shifted.validate().message().find("views bytes beyond its buffer's"),
            std::string::npos);
  Program unaligned = doubling(true);
  unaligned.buffers[2].shape = {2};
  unaligned.buffers[2].view_offset = 2;
  EXPECT_NE(unaligned.validate().message().find("views bytes beyond its buffer's"),
            std::string::npos);
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
  // A chain (Step::chain_parts) needs a next launch, without an error word
  // and not chained itself, and grids along x that split into its parts.
  Program chained = doubling(true);
  chained.steps[0].chain_parts = 2;
  chained.steps[0].grid = {2, 1, 1};
  EXPECT_NE(chained.validate().message().find("is chained to a next step that is not a launch"),
            std::string::npos)
      << chained.validate().message();
  chained.steps.push_back(chained.steps[0]);
  chained.steps[1].chain_parts = 0;
  chained.steps[1].error_word = -1;
  EXPECT_TRUE(chained.validate().is_ok()) << chained.validate().message();
  Program worded = chained;
  std::swap(worded.steps[0].error_word, worded.steps[1].error_word);
  EXPECT_NE(worded.validate().message().find("(without an error word"), std::string::npos);
  Program to_copy = chained;
  to_copy.steps[1] = Step{};
  to_copy.steps[1].kind = Step::Kind::kZero;
  to_copy.steps[1].target = 1;
  EXPECT_NE(to_copy.validate().message().find("is chained to a next step that is not a launch"),
            std::string::npos);
  Program copy_chained = doubling(false);  // chain fields on a copy (a damaged artifact)
  copy_chained.steps.push_back(copy);
  copy_chained.steps.back().target = 1;
  copy_chained.steps.back().source = 0;
  copy_chained.steps.back().chain_parts = 2;
  EXPECT_NE(copy_chained.validate().message().find("is a copy or fill with chain fields"),
            std::string::npos)
      << copy_chained.validate().message();
  copy_chained.steps.back().chain_parts = 0;
  copy_chained.steps.back().chain_local = 7;
  EXPECT_NE(copy_chained.validate().message().find("is a copy or fill with chain fields"),
            std::string::npos);
  Program uneven = chained;
  uneven.steps[1].grid = {3, 1, 1};
  EXPECT_NE(uneven.validate().message().find(
                "is chained in 2 parts, which a grid of 3 x 1 x 1 blocks does not split into"),
            std::string::npos)
      << uneven.validate().message();
  Program rows = chained;
  rows.steps[0].grid = {2, 2, 1};
  EXPECT_NE(rows.validate().message().find("a grid of 2 x 2 x 1 blocks does not split"),
            std::string::npos);
  Program huge = doubling(false);
  huge.buffers[1].shape = {int64_t(1) << 61, 4};  // 2^65 bytes: int64 sizes would wrap
  EXPECT_NE(huge.validate().message().find("buffer 1 'y' holds more than 2^62 bytes"),
            std::string::npos)
      << huge.validate().message();
}

/// The smallest image cubin_problem accepts: a 64-bit CUDA ELF header, no sections.
std::vector<uint8_t> minimal_cubin() {
  std::vector<uint8_t> elf(64, 0);
  elf[0] = 0x7f, elf[1] = 'E', elf[2] = 'L', elf[3] = 'F', elf[4] = 2, elf[5] = 1;
  elf[18] = 190;  // EM_CUDA
  return elf;
}

TEST(Program, ValidateChecksEmbeddedCode) {
  auto error = [](std::vector<KernelBinary> binaries) {
    Program p = doubling(false);
    p.kernels[0].binaries = std::move(binaries);
    return p.validate().is_ok() ? std::string("valid") : p.validate().message();
  };
  const std::vector<uint8_t> cubin = minimal_cubin();
  // Names it cannot load (a newer format's, another vendor's) are kept and skipped.
  EXPECT_EQ(error({{"sm_80", cubin, ""}, {"sm_90", {}, "ptx"}, {"sm_100", cubin, "ptx"},
                   {"sm_90a", cubin, ""}, {"gfx90a", cubin, ""}}),
            "valid");
  for (const char* arch : {"", "sm 90", "sm-90", "sm_90\n", "a_name_longer_than_thirty_two_chars"})
    EXPECT_NE(error({{arch, cubin, ""}}).find("carries code for an architecture named"),
              std::string::npos)
        << arch;
  EXPECT_EQ(error({{"sm_80", {}, ""}}), "kernel 0 'double_it' carries neither CUBIN nor PTX for sm_80");
  EXPECT_EQ(error({{"sm_80", cubin, ""}, {"sm_80", {}, "ptx"}}),
            "kernel 0 'double_it' carries code for sm_80 twice");
  EXPECT_EQ(error({{"sm_80", {1, 2}, ""}}),
            "kernel 0 'double_it' carries a CUBIN for sm_80 that is not an ELF image");
  std::vector<uint8_t> damaged = cubin;
  damaged[60] = 1;  // one section header, at offset 0 of the image: its entry size is wrong
  EXPECT_EQ(error({{"sm_80", damaged, ""}}),
            "kernel 0 'double_it' carries a CUBIN for sm_80 that is damaged: its section table "
            "lies outside the image");
  EXPECT_EQ(error({{"sm_80", {}, std::string("pt\0x", 4)}}),
            "kernel 0 'double_it' carries PTX for sm_80 with a NUL byte");
}

/// x -> a = 2x -> b = 2a -> c = 2b, with c lent a's bytes (a is dead by then).
Program chain_with_alias() {
  Program p;
  p.function = "chain";
  p.buffers = {buffer("x", DType::kFloat32, {4}, BufferRole::kInput),
               buffer("a", DType::kFloat32, {8}, BufferRole::kTemporary),
               buffer("b", DType::kFloat32, {4}, BufferRole::kTemporary),
               buffer("c", DType::kFloat32, {4}, BufferRole::kAlias),
               buffer("c2", DType::kFloat32, {2, 2}, BufferRole::kView)};
  p.buffers[3].view_of = 1;
  p.buffers[4].view_of = 3;
  p.inputs = {0};
  p.outputs = {4};
  p.kernels.push_back({{kDouble, "double_it", {}}, "test.double (t.mlir:1:1)", 16, 16, 4, {}});
  for (auto [in, out] : {std::pair{0, 1}, {1, 2}, {2, 3}}) {
    Step step;
    step.kernel = 0;
    step.grid = {1, 1, 1};
    step.block = {32, 1, 1};
    step.args = {StepArg::of_buffer(in), StepArg::of_buffer(out), StepArg::i64(4),
                 StepArg::i64(0)};
    p.steps.push_back(step);
  }
  return p;
}

TEST(Program, AliasesAreLentByLargerTemporaries) {
  Program p = chain_with_alias();
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().message();
  EXPECT_EQ(p.storage_of(4), 1);  // a view of an alias: two hops
  EXPECT_EQ(p.storage_bytes(), 16 + 32 + 16);
  Program smaller = chain_with_alias();
  smaller.buffers[1].shape = {2};
  EXPECT_NE(smaller.validate().message().find("is lent the bytes of a smaller buffer"),
            std::string::npos);
  Program of_input = chain_with_alias();
  of_input.buffers[3].view_of = 0;
  EXPECT_NE(of_input.validate().message().find("not a temporary or a donated input"),
            std::string::npos);
  of_input.buffers[0].donated = true;  // a donated input may lend its bytes
  EXPECT_TRUE(of_input.validate().is_ok()) << of_input.validate().message();
  Program lent_word = doubling(true);
  lent_word.buffers.push_back(buffer("w", DType::kFloat32, {2}, BufferRole::kAlias));
  lent_word.buffers.back().view_of = 3;
  EXPECT_NE(lent_word.validate().message().find("error word lent to another buffer"),
            std::string::npos)
      << lent_word.validate().message();
}

TEST(Executor, RunsTemporariesThatShareStorage) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(chain_with_alias(), host());
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  std::vector<HostTensor> outputs;
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(outputs[0].bytes, floats({8, 16, 24, 32}).bytes);
}

TEST(Report, CountsPerKernelAgainstTheMinimum) {
  ProgramReport r = report_program(chain_with_alias());
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].entry, "double_it");
  EXPECT_EQ(r.kernels[0].launches, 3);
  EXPECT_EQ(r.kernels[0].bytes, 3 * 32);
  EXPECT_EQ(r.kernels[0].flops, 3 * 4);
  EXPECT_EQ(r.bytes_moved, 96);
  EXPECT_EQ(r.input_bytes, 16);
  EXPECT_EQ(r.output_bytes, 16);
  EXPECT_EQ(r.minimum_bytes, 32);
  EXPECT_EQ(r.storage_bytes, 16 + 32 + 16);
  EXPECT_EQ(r.unplanned_bytes, 16 + 32 + 16 + 16);
  // Each launch is bandwidth-bound on both GPUs: 32 bytes at 1.555 TB/s,
  // of which one block gets one SM's share (1/108 on the A100).
  EXPECT_NEAR(r.seconds[0], 3 * 32 / 1.555e12 * 108, 1e-16);
  std::string text = format_report(chain_with_alias());
  EXPECT_NE(text.find("ratio 3.00x"), std::string::npos) << text;
}

TEST(Executor, KernelsCarryTheirDefines) {
  // FACTOR replaces the 2 of double_it: a define reaches the host compiler.
  Program p = doubling(false);
  std::string& text = p.kernels[0].source.source;
  text.replace(text.find("y[i] = 2 * x[i]"), 15, "y[i] = FACTOR * x[i]");
  p.kernels[0].source.defines = {"FACTOR=3"};
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(p, host());
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  std::vector<HostTensor> outputs;
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  EXPECT_EQ(outputs[0].bytes, floats({3, 6, 9, 12}).bytes);
  for (const char* bad : {"1X", "A B", "X=1\nY", "", "X=1 \\"}) {
    p.kernels[0].source.defines = {bad};
    EXPECT_NE(p.validate().message().find("has an invalid define"), std::string::npos) << bad;
  }
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

TEST(Executor, ResultsOfAnEarlierRunAreWrittenInPlace) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(doubling(true), host());
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  std::vector<HostTensor> outputs;
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  const uint8_t* storage = outputs[0].bytes.data();
  ASSERT_TRUE((*exe)->run({floats({5, 6, 7, 8})}, &outputs).is_ok());
  EXPECT_EQ(outputs[0].bytes.data(), storage);  // no new allocation
  float y[4];
  std::memcpy(y, outputs[0].bytes.data(), 16);
  EXPECT_EQ(y[0], 10);
  EXPECT_EQ(y[3], 16);
  EXPECT_EQ(outputs[1].bytes, floats({5, 6, 7, 8}).bytes);
  // Tensors of other types are replaced, not written into.
  outputs = {floats({0, 0}), floats({0})};
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].shape, (std::vector<int64_t>{2, 2}));
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

// ---- graphs: a workspace's steps built once and replayed ------------------------------

/// The host device, except that it refuses to build graphs.
class NoGraphs final : public Device {
 public:
  std::string name() const override { return "no-graphs host"; }
  StatusOr<void*> allocate(size_t bytes) override { return host().allocate(bytes); }
  Status release(void* pointer) override { return host().release(pointer); }
  Status copy_to_device(void* d, const void* h, size_t bytes) override {
    return host().copy_to_device(d, h, bytes);
  }
  Status copy_to_host(void* h, const void* d, size_t bytes) override {
    return host().copy_to_host(h, d, bytes);
  }
  Status copy_on_device(void* d, const void* s, size_t bytes) override {
    return host().copy_on_device(d, s, bytes);
  }
  Status fill_zero(void* d, size_t bytes) override { return host().fill_zero(d, bytes); }
  StatusOr<std::shared_ptr<Kernel>> load(const KernelSource& source) override {
    return host().load(source);
  }
  Status launch(const Kernel& k, Dim3 g, Dim3 b, size_t shared, void** args) override {
    return host().launch(k, g, b, shared, args);
  }
  Status synchronize() override { return host().synchronize(); }
  StatusOr<std::unique_ptr<DeviceGraph>> build_graph(std::vector<GraphOp>) override {
    return Status::error("no graphs here");
  }
};

TEST(Executor, ReplaysAGraphFromTheSecondRunWithTheSameResults) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(chain_with_alias(), host());
  StatusOr<std::unique_ptr<Executable>> plain = Executable::load(chain_with_alias(), host());
  ASSERT_TRUE(exe.is_ok() && plain.is_ok()) << exe.status().message();
  (*plain)->use_graphs(false);
  for (int run = 0; run < 4; ++run) {
    HostTensor x = floats({1.f + run, -2, 3.5f, 4.f * run});
    std::vector<HostTensor> graphed, stepped;
    RunStats stats, plain_stats;
    ASSERT_TRUE((*exe)->run({x}, &graphed, &stats).is_ok());
    ASSERT_TRUE((*plain)->run({x}, &stepped, &plain_stats).is_ok());
    EXPECT_EQ(graphed[0].bytes, stepped[0].bytes) << "run " << run;
    EXPECT_EQ(graphed[0].bytes,
              floats({8.f * (1 + run), -16, 28, 32.f * run}).bytes) << "run " << run;
    EXPECT_EQ(stats.replayed, run > 0);
    EXPECT_EQ(stats.steps, run == 0 ? "one by one (the first run of its workspace)"
                                    : "as one list of 3 operations");
    EXPECT_FALSE(plain_stats.replayed);
    EXPECT_EQ(plain_stats.steps, "one by one (graphs off)");
    EXPECT_GT(stats.device_seconds, 0);
  }
}

TEST(Executor, AReplayedGraphZeroesItsErrorWordEachRun) {
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(doubling(true), host());
  ASSERT_TRUE(exe.is_ok());
  std::vector<HostTensor> outputs;
  RunStats stats;
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  Status bad = (*exe)->run({floats({1, 2, -3, 4})}, &outputs);  // the first replay
  EXPECT_EQ(bad.message(), "test.double (t.mlir:1:1): negative input (at position 2)");
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs, &stats).is_ok());
  EXPECT_TRUE(stats.replayed);
  EXPECT_EQ(outputs[1].bytes, floats({1, 2, 3, 4}).bytes);
}

TEST(Executor, RunsOneByOneWhereTheDeviceRefusesAGraph) {
  NoGraphs device;
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(chain_with_alias(), device);
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  for (int run = 0; run < 3; ++run) {
    std::vector<HostTensor> outputs;
    RunStats stats;
    ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs, &stats).is_ok());
    EXPECT_EQ(outputs[0].bytes, floats({8, 16, 24, 32}).bytes);
    EXPECT_FALSE(stats.replayed);
    if (run > 0) {
      EXPECT_EQ(stats.steps, "one by one (the device refused the graph: no graphs here)");
    }
  }
}

TEST(Executor, EachWorkspaceReplaysItsOwnGraph) {
  // Runs on two threads at once take two workspaces; a graph replayed on the
  // other's storage would mix their inputs.
  StatusOr<std::unique_ptr<Executable>> exe = Executable::load(chain_with_alias(), host());
  ASSERT_TRUE(exe.is_ok());
  std::vector<std::string> failures(2);
  std::atomic<int> ready{0};
  auto work = [&](int thread) {
    ready++;
    while (ready < 2) std::this_thread::yield();  // both start together, so their runs overlap
    for (int run = 0; run < 2000 && failures[thread].empty(); ++run) {
      const float v = float(thread * 1000 + run);
      std::vector<HostTensor> outputs;
      Status status = (*exe)->run({floats({v, v, v, v})}, &outputs);
      if (!status)
        failures[thread] = status.message();
      else if (outputs[0].bytes != floats({8 * v, 8 * v, 8 * v, 8 * v}).bytes)
        failures[thread] = "wrong result at run " + std::to_string(run);
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

// ---- artifacts (.spx) ------------------------------------------------------------------

/// A Program with every kind of field set: views at an offset, a donated
/// input, in-place pairs, defines, scalars, error words.
Program rich_program() {
  Program p = doubling(true);
  p.buffers[0].donated = true;
  p.buffers[2].view_offset = 0;
  p.kernels[0].source.defines = {"FACTOR=2", "FAST"};
  p.kernels[0].flops = 4;
  p.kernels[0].binaries = {{"sm_90", minimal_cubin(), ".version 9.0\n.target sm_90\n"},
                           {"sm_80", {}, ".target sm_80\n"}};
  p.steps[0].in_place = {{0, 1}};
  p.steps[0].shared_bytes = 16;
  p.steps[0].error_message = "negative input";
  p.constants.push_back({1, 2, 3, 4});
  p.buffers.push_back(buffer("table", DType::kComplex64, {}, BufferRole::kConstant));
  p.buffers.back().shape = {0};
  p.buffers.back().constant = 0;
  p.constants[0].clear();
  // A second launch of the same, chained to the first in two parts (a block each).
  p.steps[0].grid = {2, 1, 1};
  p.steps.push_back(p.steps[0]);
  p.steps[1].error_word = -1;
  p.steps[1].args[3] = StepArg::i64(0);
  p.steps[1].in_place.clear();
  p.steps[0].chain_parts = 2;
  return p;
}

/// x [4] -> t = 2x -> y = 2t, two launches of two one-pair blocks chained
/// in two parts, t local to the chain (Step::chain_local).
Program chained_doubling() {
  Program p;
  p.function = "chained";
  p.buffers = {buffer("x", DType::kFloat32, {4}, BufferRole::kInput),
               buffer("t", DType::kFloat32, {4}, BufferRole::kTemporary),
               buffer("y", DType::kFloat32, {4}, BufferRole::kTemporary)};
  p.inputs = {0};
  p.outputs = {2};
  p.kernels.push_back({{kDouble, "double_it", {}}, "test.double (t.mlir:1:1)", 16, 16, 0, {}});
  for (auto [in, out] : {std::pair{0, 1}, {1, 2}}) {
    Step step;
    step.kernel = 0;
    step.grid = {2, 1, 1};  // block b (part b) doubles elements 2b and 2b + 1
    step.block = {2, 1, 1};
    step.args = {StepArg::of_buffer(in), StepArg::of_buffer(out), StepArg::i64(4), StepArg::i64(0)};
    p.steps.push_back(step);
  }
  p.steps[0].chain_parts = 2;
  p.steps[0].chain_local = 1;
  return p;
}

TEST(Executor, RunsAChainWithALocalBufferAndItRoundTrips) {
  Program p = chained_doubling();
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().message();
  std::vector<uint8_t> bytes = write_artifact({p, "spectral test", "", "g.mlir"});
  StatusOr<Artifact> back = read_artifact(bytes, "a.spx");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->program.steps[0].chain_parts, 2u);
  EXPECT_EQ(back->program.steps[0].chain_local, 1);
  EXPECT_EQ(back->program.steps[1].chain_local, -1);
  // On a host device that runs every chain part by part, whatever its threads.
  StatusOr<std::unique_ptr<HostDevice>> device = HostDevice::create(host::HostChecks{});
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  (*device)->set_chains(HostChains::kAlways);
  StatusOr<std::unique_ptr<Executable>> exe =
      Executable::load(std::move(back->program), **device);
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  for (int run = 0; run < 3; ++run) {  // the first one by one, then replayed
    std::vector<HostTensor> outputs;
    ASSERT_TRUE((*exe)->run({floats({1, 2, 3, -4})}, &outputs).is_ok());
    EXPECT_EQ(outputs[0].bytes, floats({4, 8, 12, -16}).bytes) << "run " << run;
  }
  EXPECT_EQ((*device)->chained_launches(), 3u);
  // A local buffer must be a temporary both launches pass once, in whole
  // slices, and neither a result nor an error word.
  for (int variant = 0; variant < 7; ++variant) {
    Program bad = chained_doubling();
    if (variant == 0) bad.steps[0].chain_local = 0;            // the input
    if (variant == 1) bad.outputs = {2, 1};                    // a result
    if (variant == 2) bad.steps[1].args[0] = StepArg::of_buffer(0);  // the second does not pass it
    if (variant == 3) bad.steps[0].chain_parts = 0;            // no chain
    if (variant == 4) {  // 4 floats in 8 slices: of 2 bytes, not whole elements
      bad.steps[0].chain_parts = 8;
      bad.steps[0].grid = bad.steps[1].grid = {8, 1, 1};
    }
    if (variant == 5) {  // another argument reaches its bytes through a view
      bad.buffers.push_back(buffer("tv", DType::kFloat32, {2, 2}, BufferRole::kView));
      bad.buffers.back().view_of = 1;
      bad.steps[1].args[3] = StepArg::of_buffer(3);
    }
    if (variant == 6) {  // a later launch's error word
      bad.steps.push_back(bad.steps[1]);
      bad.steps.back().error_word = 1;
    }
    EXPECT_NE(bad.validate().message().find("names as its chain's local buffer"),
              std::string::npos)
        << variant << ": " << bad.validate().message();
  }
}

TEST(Artifact, RoundTripsEveryField) {
  Program p = rich_program();
  ASSERT_TRUE(p.validate().is_ok()) << p.validate().message();
  std::vector<uint8_t> bytes = write_artifact({p, "spectral test", "func.func @f()", "g.mlir"});
  EXPECT_TRUE(looks_like_artifact(bytes));
  StatusOr<Artifact> back = read_artifact(bytes, "a.spx");
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(write_artifact(*back), bytes);  // nothing lost or changed
  const Program& q = back->program;
  EXPECT_EQ(q.kernels[0].source.defines, p.kernels[0].source.defines);
  ASSERT_EQ(q.kernels[0].binaries.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(q.kernels[0].binaries[i].arch, p.kernels[0].binaries[i].arch);
    EXPECT_EQ(q.kernels[0].binaries[i].cubin, p.kernels[0].binaries[i].cubin);
    EXPECT_EQ(q.kernels[0].binaries[i].ptx, p.kernels[0].binaries[i].ptx);
  }
  EXPECT_EQ(q.steps[0].in_place, p.steps[0].in_place);
  EXPECT_EQ(q.steps[0].chain_parts, 2u);
  EXPECT_EQ(q.steps[1].chain_parts, 0u);
  EXPECT_TRUE(q.buffers[0].donated);
  EXPECT_EQ(back->producer, "spectral test");
  EXPECT_EQ(back->graph, "func.func @f()");
  EXPECT_EQ(back->graph_name, "g.mlir");
  // It runs as the original does: the host compiles the source, whatever GPU code it carries.
  LoadStats stats;
  StatusOr<std::unique_ptr<Executable>> exe =
      Executable::load(std::move(back->program), host(), &stats);
  ASSERT_TRUE(exe.is_ok()) << exe.status().message();
  EXPECT_EQ(stats.prebuilt, 0);
  EXPECT_EQ(stats.origins, std::vector<std::string>{"compiled from source"});
  std::vector<HostTensor> outputs;
  ASSERT_TRUE((*exe)->run({floats({1, 2, 3, 4})}, &outputs).is_ok());
  EXPECT_EQ(outputs[0].bytes, floats({2, 4, 6, 8}).bytes);
}

TEST(Prebuilt, TargetsAreHostOrSmArchitectures) {
  StatusOr<std::vector<std::string>> archs = gpu_targets({"host", "sm_80", "sm_90"});
  ASSERT_TRUE(archs.is_ok()) << archs.status().message();
  EXPECT_EQ(*archs, (std::vector<std::string>{"sm_80", "sm_90"}));
  EXPECT_TRUE(gpu_targets({})->empty());
  EXPECT_EQ(gpu_targets({"sm_90", "cuda"}).status().message(),
            "unknown target 'cuda': expected host or a GPU architecture sm_XX (sm_80, sm_90, ...; "
            "arch-specific ones like sm_90a are not supported)");
  EXPECT_EQ(gpu_targets({"sm_90", "sm_90"}).status().message(), "target 'sm_90' given twice");
}

TEST(Prebuilt, EmbedsCubinAndPtxForEachTarget) {
  Program p = doubling(true);
  p.kernels[0].binaries = {{"sm_90", minimal_cubin(), "stale"}};  // replaced, not kept beside
  std::vector<std::pair<size_t, size_t>> progress;
  Status built = embed_binaries(p, {"sm_80", "sm_90"},
                                [&](size_t done, size_t total) { progress.push_back({done, total}); });
  ASSERT_TRUE(built.is_ok()) << built.message();
  EXPECT_EQ(progress, (std::vector<std::pair<size_t, size_t>>{{1, 2}, {2, 2}}));
  const std::vector<KernelBinary>& binaries = p.kernels[0].binaries;
  ASSERT_EQ(binaries.size(), 2u);
  for (const KernelBinary& binary : binaries) {
    ASSERT_GE(binary.cubin.size(), 4u) << binary.arch;
    EXPECT_EQ(std::string(binary.cubin.begin(), binary.cubin.begin() + 4), "\x7f" "ELF");
    EXPECT_NE(binary.ptx.find(".target " + binary.arch), std::string::npos) << binary.ptx;
    EXPECT_NE(binary.ptx.find(".entry double_it"), std::string::npos);
  }
  EXPECT_EQ(binaries[0].arch, "sm_80");  // the stale sm_90 went, then sm_80 and sm_90 came
  EXPECT_EQ(binaries[1].arch, "sm_90");
  EXPECT_TRUE(p.validate().is_ok()) << p.validate().message();

  // An architecture NVRTC cannot build, and a kernel that does not compile,
  // are errors that leave the program as it was.
  Program before = p;
  Status old = embed_binaries(p, {"sm_20"});
  EXPECT_NE(old.message().find("cannot build sm_20: it builds sm_"), std::string::npos)
      << old.message();
  p.kernels[0].source.source += "\nthis does not compile\n";
  Status broken = embed_binaries(p, {"sm_80"});
  EXPECT_NE(broken.message().find("compiling kernel 'double_it' (test.double (t.mlir:1:1)) for sm_80"),
            std::string::npos)
      << broken.message();
  EXPECT_EQ(p.kernels[0].binaries.size(), before.kernels[0].binaries.size());
  EXPECT_EQ(p.kernels[0].binaries[1].cubin, before.kernels[0].binaries[1].cubin);
}

TEST(Artifact, DamageIsAnErrorNamingTheFile) {
  const std::vector<uint8_t> good = write_artifact({rich_program(), "spectral test", "", ""});
  auto error = [](const std::vector<uint8_t>& bytes) {
    StatusOr<Artifact> p = read_artifact(bytes, "m.spx");
    return p.is_ok() ? std::string("read") : p.status().message();
  };
  std::vector<uint8_t> foreign(good.size(), 'x');
  EXPECT_EQ(error(foreign), "m.spx: not a spectral artifact (no \"SPECTRAL\" header)");
  EXPECT_NE(error({good.begin(), good.begin() + 40}).find("m.spx: truncated"), std::string::npos);
  EXPECT_NE(error({good.begin(), good.end() - 1}).find("m.spx: truncated or padded"),
            std::string::npos);
  std::vector<uint8_t> flipped = good;
  flipped[good.size() / 2] ^= 1;
  EXPECT_EQ(error(flipped), "m.spx: checksum mismatch: the file is corrupted");
  std::vector<uint8_t> newer = good;
  newer[8] = 2;
  EXPECT_NE(error(newer).find("artifact format 2.1, this runtime reads format 1.x"),
            std::string::npos)
      << error(newer);
  // Garbage with a correct checksum: the FlatBuffers verifier says no.
  std::vector<uint8_t> garbage(good.begin(), good.begin() + 56);
  garbage.resize(56 + 64, 0xff);
  Sha256::Digest digest = Sha256::hash(garbage.data() + 56, 64);
  std::memcpy(&garbage[24], digest.data(), digest.size());
  for (int i = 0; i < 8; ++i) garbage[16 + i] = i == 0 ? 64 : 0;
  EXPECT_EQ(error(garbage), "m.spx: invalid artifact: its payload fails the FlatBuffers verifier");
  // A well-formed payload holding an invalid program: Program::validate says why.
  Program invalid = rich_program();
  invalid.steps[0].kernel = 7;
  const std::vector<uint8_t> bytes = write_artifact({invalid, "x", "", ""});
  EXPECT_NE(error(bytes).find("m.spx: invalid artifact: step 0"), std::string::npos)
      << error(bytes);
}

/// Artifact bytes whose one buffer's shape (when `in_args` is false) or one
/// step's arguments hold `words`, unaligned (unaligned_vector.h).
std::vector<uint8_t> crafted_artifact(const std::vector<uint32_t>& words, bool in_args,
                                      bool shift) {
  namespace fb = spectral::spx;
  flatbuffers::FlatBufferBuilder b;
  auto name = b.CreateString("x");
  std::vector<int64_t> shape{4};
  auto buffer = fb::CreateBuffer(b, name, fb::DType::Float32,
                                 in_args ? b.CreateVector(shape)
                                         : testing::unaligned_vector<int64_t>(b, words, shift),
                                 fb::BufferRole::Input);
  std::vector<flatbuffers::Offset<fb::Step>> steps;
  if (in_args) {
    auto args = testing::unaligned_vector<const fb::Arg*>(b, words, shift);
    fb::StepBuilder step(b);
    step.add_args(args);
    steps.push_back(step.Finish());
  }
  std::vector<flatbuffers::Offset<fb::Buffer>> buffers{buffer};
  auto program = fb::CreateProgram(b, b.CreateString("f"), b.CreateVector(buffers), 0, 0,
                                   b.CreateVector(steps));
  fb::FinishArtifactBuffer(b, fb::CreateArtifact(b, b.CreateString("test"), program));
  const ContainerFormat format{{'S', 'P', 'E', 'C', 'T', 'R', 'A', 'L'}, kArtifactFormatMajor,
                               kArtifactFormatMinor, "artifact"};
  return wrap_payload(format, b.GetBufferPointer(), b.GetSize());
}

TEST(Artifact, MisalignedEightByteValuesAreRefused) {
  // The FlatBuffers verifier checks a vector's 4-byte length for alignment,
  // not its elements: 8-byte values at 4 mod 8 pass it, and reading them is
  // undefined (UBSan stops there; the fuzzer found it).
  const std::vector<uint32_t> shape_words{4, 0};
  const std::vector<uint32_t> arg_words{1, 0, 7, 0, 0, 0};  // Int32 7: kind, buffer, integer, real
  for (bool in_args : {false, true})
    for (bool shift : {false, true}) {
      const std::vector<uint8_t> bytes = crafted_artifact(in_args ? arg_words : shape_words,
                                                          in_args, shift);
      const spx::Program* read = spx::GetArtifact(bytes.data() + kContainerHeaderBytes)->program();
      const void* values = in_args ? static_cast<const void*>(read->steps()->Get(0)->args()->Data())
                                   : read->buffers()->Get(0)->shape()->Data();
      ASSERT_EQ(reinterpret_cast<uintptr_t>(values) % 8, shift ? 4u : 0u) << "the crafted layout";
      StatusOr<Artifact> artifact = read_artifact(bytes, "m.spx");
      if (!shift) {
        // The same values aligned: read (the shape), or refused for what the
        // step lacks (a kernel), never for alignment.
        if (in_args)
          EXPECT_EQ(artifact.status().message(),
                    "m.spx: invalid artifact: step 0 launches a missing kernel");
        else
          EXPECT_TRUE(artifact.is_ok()) << artifact.status().message();
        continue;
      }
      ASSERT_FALSE(artifact.is_ok());
      EXPECT_EQ(artifact.status().message(),
                in_args ? "m.spx: invalid artifact: step 0's arguments are misaligned (8-byte "
                          "values off an 8-byte boundary)"
                        : "m.spx: invalid artifact: buffer 0's shape is misaligned (8-byte values "
                          "off an 8-byte boundary)");
    }
}

TEST(Artifact, FilesAreWrittenWholeAndReadOnlyWhenRegular) {
  std::string dir = ::testing::TempDir() + "spx-" + std::to_string(getpid());
  ASSERT_EQ(mkdir(dir.c_str(), 0700), 0);
  std::string path = dir + "/model.spx";
  const Artifact artifact{rich_program(), "spectral test", "", ""};
  ASSERT_TRUE(save_artifact(artifact, path).is_ok());
  StatusOr<Artifact> loaded = load_artifact(path);
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
  EXPECT_EQ(write_artifact(*loaded), write_artifact(artifact));
  // No temporary left beside it; a missing file, a directory and a FIFO are errors.
  EXPECT_EQ(std::system(("test $(ls " + dir + " | wc -l) -eq 1").c_str()), 0);
  EXPECT_NE(load_artifact(dir + "/none.spx").status().message().find("No such file"),
            std::string::npos);
  EXPECT_EQ(load_artifact(dir).status().message(), dir + ": not a regular file");
  std::string fifo = dir + "/fifo.spx";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_artifact(fifo).status().message(), fifo + ": not a regular file");
  EXPECT_FALSE(save_artifact(artifact, dir + "/missing/x.spx").is_ok());
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace spectral
