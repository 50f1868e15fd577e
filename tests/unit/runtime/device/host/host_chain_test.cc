// host_chain_test.cc - two launches run part by part (HostPool::run_chain,
// HostDevice::launch_chain): part p of the second right after part p of the
// first, on the thread that ran it.
#include "runtime/device/host/fiber_stacks.h"
#include "runtime/device/host/host_device.h"
#include "runtime/device/host/host_pool.h"
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

namespace spectral::testing {
namespace {

/// The blocks that ran, in the order they ran: 'A' or 'B' and the block.
struct Trace {
  std::mutex mutex;
  std::vector<std::pair<char, unsigned>> blocks;
};

/// A one-thread block of kernel `Name`: notes itself in the Trace args[0] points at.
template <char Name>
void note_block(spectral_host_block* block, void** args) {
  Trace& trace = **static_cast<Trace**>(args[0]);
  std::lock_guard<std::mutex> lock(trace.mutex);
  trace.blocks.push_back({Name, block->block_idx.x});
}

const spectral_host_kernel kFirst{SPECTRAL_HOST_ABI_VERSION, 0, "first", &note_block<'A'>};
const spectral_host_kernel kSecond{SPECTRAL_HOST_ABI_VERSION, 0, "second", &note_block<'B'>};

/// A host device that runs every chain of 2 parts or more part by part,
/// whatever the thread count (SPECTRAL_HOST_CHAINS=always).
HostDevice& chaining_device() {
  static HostDevice* device = [] {
    StatusOr<std::unique_ptr<HostDevice>> made = HostDevice::create(host::HostChecks{});
    if (!made) std::abort();
    (*made)->set_chains(HostChains::kAlways);
    return made->release();
  }();
  return *device;
}

host::GridLaunch grid_of(const spectral_host_kernel& kernel, spectral_host_uint3 grid,
                         void** args) {
  host::GridLaunch launch;
  launch.kernel = &kernel;
  launch.grid = grid;
  launch.args = args;
  return launch;
}

TEST(HostChain, OneThreadRunsEachPartOfTheFirstThenTheSamePartOfTheSecond) {
  host::HostPool pool(1, host::kDefaultFiberStackBytes);
  Trace trace;
  Trace* traced = &trace;
  void* args[] = {&traced};
  // 6 and 9 blocks in 3 parts: 2 of the first, then 3 of the second, each part.
  ASSERT_TRUE(pool.run_chain(grid_of(kFirst, {6, 1, 1}, args), grid_of(kSecond, {9, 1, 1}, args), 3)
                  .is_ok());
  const std::vector<std::pair<char, unsigned>> expected = {
      {'A', 0}, {'A', 1}, {'B', 0}, {'B', 1}, {'B', 2}, {'A', 2}, {'A', 3}, {'B', 3},
      {'B', 4}, {'B', 5}, {'A', 4}, {'A', 5}, {'B', 6}, {'B', 7}, {'B', 8}};
  EXPECT_EQ(trace.blocks, expected);
}

TEST(HostChain, ThreadsRunEveryBlockOnceAndEachPartOfTheSecondAfterThatOfTheFirst) {
  host::HostPool pool(3, host::kDefaultFiberStackBytes);
  Trace trace;
  Trace* traced = &trace;
  void* args[] = {&traced};
  constexpr unsigned kParts = 40, kFirstPerPart = 3, kSecondPerPart = 2;
  ASSERT_TRUE(pool.run_chain(grid_of(kFirst, {kParts * kFirstPerPart, 1, 1}, args),
                             grid_of(kSecond, {kParts * kSecondPerPart, 1, 1}, args), kParts)
                  .is_ok());
  std::vector<int> first_runs(kParts * kFirstPerPart), second_runs(kParts * kSecondPerPart);
  std::vector<unsigned> first_done(kParts);  // blocks of the first seen so far, by part
  for (auto [kernel, block] : trace.blocks) {
    if (kernel == 'A') {
      ++first_runs[block];
      ++first_done[block / kFirstPerPart];
    } else {
      ++second_runs[block];
      EXPECT_EQ(first_done[block / kSecondPerPart], kFirstPerPart)
          << "block " << block << " of the second ran before its part of the first";
    }
  }
  EXPECT_EQ(first_runs, std::vector<int>(first_runs.size(), 1));
  EXPECT_EQ(second_runs, std::vector<int>(second_runs.size(), 1));
}

TEST(HostChain, GridsThatDoNotSplitIntoThePartsAreRefused) {
  host::HostPool pool(1, host::kDefaultFiberStackBytes);
  Trace trace;
  Trace* traced = &trace;
  void* args[] = {&traced};
  Status uneven =
      pool.run_chain(grid_of(kFirst, {6, 1, 1}, args), grid_of(kSecond, {8, 1, 1}, args), 3);
  ASSERT_FALSE(uneven.is_ok());
  expect_contains(uneven.message(),
                  "kernel 'second': a grid of (8,1,1) blocks does not split into 3 parts along x");
  Status rows =
      pool.run_chain(grid_of(kFirst, {6, 2, 1}, args), grid_of(kSecond, {6, 1, 1}, args), 3);
  ASSERT_FALSE(rows.is_ok());
  expect_contains(rows.message(), "kernel 'first': a grid of (6,2,1) blocks");
  EXPECT_TRUE(trace.blocks.empty());
}

// Part p of `consume` sums what part p of `produce` wrote: any block of it
// run before those of `produce` sums zeros (the memory starts zeroed).
constexpr const char* kChainUnit = R"(
extern "C" __global__ void produce(int* data) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = 3 * i + 1;
}
extern "C" __global__ void consume(const int* data, int* sums, int per_part) {
  const int part = blockIdx.x / 2;  // two blocks a part
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = part * per_part; i < (part + 1) * per_part; ++i) sum += data[i];
    sums[blockIdx.x] = sum;
  }
}
)";

/// Runs produce (4 blocks of 32 a part) and consume (2 blocks a part) on
/// `device` as a chain of `parts`, `data` its local buffer when `local`;
/// returns consume's sums, and what `data` holds after in *data_after.
std::vector<int> chained_sums(HostDevice& device, uint32_t parts, bool local = false,
                              std::vector<int>* data_after = nullptr) {
  StatusOr<std::shared_ptr<Kernel>> produce = device.load({kChainUnit, "produce", {}});
  StatusOr<std::shared_ptr<Kernel>> consume = device.load({kChainUnit, "consume", {}});
  EXPECT_TRUE(produce.is_ok() && consume.is_ok());
  if (!produce.is_ok() || !consume.is_ok()) return {};
  const int per_part = 4 * 32;
  DeviceBuffer<int> data(device, std::vector<int>(size_t(parts) * per_part, 0));
  DeviceBuffer<int> sums(device, std::vector<int>(size_t(parts) * 2, 0));
  GraphOp first, second;
  first.kernel = produce->get();
  first.grid = {4 * parts, 1, 1};
  first.block = {32, 1, 1};
  first.args = {uint64_t(reinterpret_cast<uintptr_t>(data.get()))};
  first.chain_parts = parts;
  second.kernel = consume->get();
  second.grid = {2 * parts, 1, 1};
  second.block = {32, 1, 1};
  second.args = {uint64_t(reinterpret_cast<uintptr_t>(data.get())),
                 uint64_t(reinterpret_cast<uintptr_t>(sums.get())), uint64_t(per_part)};
  if (local) {
    first.chain_local_arg = 0;
    second.chain_local_arg = 0;
    first.chain_local_bytes = second.chain_local_bytes = uint64_t(parts) * per_part * 4;
  }
  Status status = device.launch_chain(first, second);
  EXPECT_TRUE(status.is_ok()) << status.message();
  if (data_after != nullptr) *data_after = data.read();
  return sums.read();
}

/// What consume sums for `parts` parts.
std::vector<int> expected_sums(uint32_t parts) {
  std::vector<int> expected;
  for (uint32_t part = 0; part < parts; ++part) {
    int sum = 0;
    for (int i = int(part) * 128; i < int(part + 1) * 128; ++i) sum += 3 * i + 1;
    expected.insert(expected.end(), {sum, sum});
  }
  return expected;
}

TEST(HostChain, DeviceRunsTheSecondLaunchOnWhatTheFirstWrote) {
  for (uint32_t parts : {16u, 3u, 2u}) {
    SCOPED_TRACE(std::to_string(parts) + " parts");
    const uint64_t before = chaining_device().chained_launches();
    EXPECT_EQ(chained_sums(chaining_device(), parts), expected_sums(parts));
    EXPECT_EQ(chaining_device().chained_launches(), before + 1);
    // The order check runs the launches one after the other, each twice.
    host::HostChecks order;
    order.order = true;
    StatusOr<std::unique_ptr<HostDevice>> checked = HostDevice::create(order);
    ASSERT_TRUE(checked.is_ok()) << checked.status().message();
    EXPECT_EQ(chained_sums(**checked, parts), expected_sums(parts));
    EXPECT_EQ((*checked)->chained_launches(), 0u);
  }
}

TEST(HostChain, ChainsRunInPartsWhereTheyShareOutEvenlyUnlessAskedOtherwise) {
  EXPECT_TRUE(HostDevice::chains_in_parts(16, 2, HostChains::kAuto));
  EXPECT_TRUE(HostDevice::chains_in_parts(6, 3, HostChains::kAuto));
  EXPECT_FALSE(HostDevice::chains_in_parts(3, 2, HostChains::kAuto));  // one thread runs two
  EXPECT_FALSE(HostDevice::chains_in_parts(20, 16, HostChains::kAuto));
  EXPECT_TRUE(HostDevice::chains_in_parts(17, 2, HostChains::kAuto));  // 8 a thread or more
  EXPECT_TRUE(HostDevice::chains_in_parts(2, 1, HostChains::kAuto));
  EXPECT_TRUE(HostDevice::chains_in_parts(3, 2, HostChains::kAlways));
  EXPECT_FALSE(HostDevice::chains_in_parts(16, 2, HostChains::kNever));
  for (HostChains policy : {HostChains::kAuto, HostChains::kAlways, HostChains::kNever})
    EXPECT_FALSE(HostDevice::chains_in_parts(1, 1, policy));
}

TEST(HostChain, ThreadsTakeTheLocalBufferSlicesIntoTheirOwnAndLeaveItUntouched) {
  const uint32_t parts = 16;
  const std::vector<int> expected = expected_sums(parts), zeros(size_t(parts) * 128, 0);
  std::vector<int> data;
  EXPECT_EQ(chained_sums(chaining_device(), parts, true, &data), expected);
  EXPECT_EQ(data, zeros) << "the chain wrote its local buffer";
  // Without a local buffer, or under a check (the launches then run one
  // after the other), the chain writes the buffer it was given.
  std::vector<int> written(zeros.size());
  for (size_t i = 0; i < written.size(); ++i) written[i] = 3 * int(i) + 1;
  EXPECT_EQ(chained_sums(chaining_device(), parts, false, &data), expected);
  EXPECT_EQ(data, written);
  host::HostChecks bounds;
  bounds.bounds = true;
  StatusOr<std::unique_ptr<HostDevice>> checked = HostDevice::create(bounds);
  ASSERT_TRUE(checked.is_ok()) << checked.status().message();
  EXPECT_EQ(chained_sums(**checked, parts, true, &data), expected);
  EXPECT_EQ(data, written);
}

TEST(HostChain, PolicyFromTheEnvironment) {
  setenv("SPECTRAL_HOST_CHAINS", "sometimes", 1);
  StatusOr<std::unique_ptr<HostDevice>> bad = HostDevice::create(host::HostChecks{});
  ASSERT_FALSE(bad.is_ok());
  expect_contains(bad.status().message(), "SPECTRAL_HOST_CHAINS");
  setenv("SPECTRAL_HOST_CHAINS", "never", 1);
  StatusOr<std::unique_ptr<HostDevice>> never = HostDevice::create(host::HostChecks{});
  setenv("SPECTRAL_HOST_CHAINS", "always", 1);
  StatusOr<std::unique_ptr<HostDevice>> always = HostDevice::create(host::HostChecks{});
  unsetenv("SPECTRAL_HOST_CHAINS");
  ASSERT_TRUE(never.is_ok() && always.is_ok());
  EXPECT_EQ(chained_sums(**never, 3), expected_sums(3));
  EXPECT_EQ((*never)->chained_launches(), 0u);
  EXPECT_EQ(chained_sums(**always, 3), expected_sums(3));
  EXPECT_EQ((*always)->chained_launches(), 1u);
  // auto: where the parts share out evenly and the threads take the local
  // buffer into their own (chaining alone gains about nothing).
  StatusOr<std::unique_ptr<HostDevice>> automatic = HostDevice::create(host::HostChecks{});
  ASSERT_TRUE(automatic.is_ok());
  const uint32_t even = 8 * uint32_t((*host::HostPool::global())->threads());
  EXPECT_EQ(chained_sums(**automatic, even, false), expected_sums(even));
  EXPECT_EQ((*automatic)->chained_launches(), 0u);
  EXPECT_EQ(chained_sums(**automatic, even, true), expected_sums(even));
  EXPECT_EQ((*automatic)->chained_launches(), 1u);
}

/// A one-thread block that writes the int `past` bytes after the end of its
/// part's slice of the local buffer args[0] points at (the slice of part p
/// starting p * args[1] bytes in).
void write_past_the_slice(spectral_host_block* block, void** args) {
  char* local = *static_cast<char**>(args[0]);
  const uint64_t part_bytes = *static_cast<uint64_t*>(args[1]);
  const int64_t past = *static_cast<int64_t*>(args[2]);
  *reinterpret_cast<volatile int*>(local + (block->block_idx.x + 1) * part_bytes + past) = 1;
}

TEST(HostChain, AKernelWritingPastItsLocalSliceFailsItsLaunch) {
  const spectral_host_kernel stray{SPECTRAL_HOST_ABI_VERSION, 0, "stray", &write_past_the_slice};
  host::HostPool pool(1, host::kDefaultFiberStackBytes);
  std::vector<char> buffer(4 * 8192, 0);
  auto run = [&](int64_t past, uint64_t part_bytes = 8192) {
    char* data = buffer.data();
    int64_t offset = past;
    void* args[] = {&data, &part_bytes, &offset};
    host::HostPool::ChainLocal local;
    local.args[0] = local.args[1] = 0;
    local.counts[0] = local.counts[1] = 3;
    local.part_bytes = part_bytes;
    return pool.run_chain(grid_of(stray, {4, 1, 1}, args), grid_of(stray, {4, 1, 1}, args), 4,
                          &local);
  };
  Status last = run(-4);  // each slice's last int: in the thread's own buffer
  EXPECT_TRUE(last.is_ok()) << last.message();
  EXPECT_EQ(std::count(buffer.begin(), buffer.end(), 0), std::ptrdiff_t(buffer.size()))
      << "the chain wrote the buffer it was given";
  Status past = run(0);  // the first int past the slice: the guard page
  ASSERT_FALSE(past.is_ok());
  expect_contains(past.message(), "kernel 'stray' failed in block (0,0,0)");
  expect_contains(past.message(), "0 bytes past the end of a 8192-byte device allocation");
  // Smaller slices later take the same buffer, and end at its guard too.
  EXPECT_TRUE(run(-4, 4096).is_ok());
  Status smaller = run(0, 4096);
  ASSERT_FALSE(smaller.is_ok());
  expect_contains(smaller.message(), "0 bytes past the end of a 8192-byte device allocation");
}

TEST(HostChain, AFailingBlockOfTheSecondLaunchNamesIt) {
  HostDevice& device = chaining_device();
  StatusOr<std::shared_ptr<Kernel>> trap = device.load(
      {"extern \"C\" __global__ void trap_in(int at) { if (blockIdx.x == at) __trap(); }",
       "trap_in", {}});
  ASSERT_TRUE(trap.is_ok()) << trap.status().message();
  GraphOp first, second;
  first.kernel = second.kernel = trap->get();
  first.grid = second.grid = {16, 1, 1};
  first.block = second.block = {32, 1, 1};
  first.args = {uint64_t(99)};
  second.args = {uint64_t(13)};
  first.chain_parts = 8;
  Status status = device.launch_chain(first, second);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "kernel 'trap_in' failed in block (13,0,0)");
  // And of the first.
  first.args = {uint64_t(5)};
  second.args = {uint64_t(99)};
  status = device.launch_chain(first, second);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "kernel 'trap_in' failed in block (5,0,0)");
}

}  // namespace
}  // namespace spectral::testing
