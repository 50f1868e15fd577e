// The host device's race and init checks (access_checker.h): the kernels of
// kernels/race_and_init.cu written wrong on purpose are caught with reports
// naming both accesses and their source lines; their correct versions, and
// the other test kernels that use shared memory and atomics, pass.
#include "runtime/device/host/access_checker.h"
#include "runtime/device/host/host_checks.h"
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace spectral::testing {
namespace {

HostDevice& race_device() {
  static HostDevice* device = make_device({/*bounds=*/false, /*sync=*/false, /*race=*/true});
  return *device;
}

HostDevice& init_device() {
  static HostDevice* device =
      make_device({/*bounds=*/false, /*sync=*/false, /*race=*/false, /*init=*/true});
  return *device;
}

HostDevice& both_device() {
  static HostDevice* device =
      make_device({/*bounds=*/true, /*sync=*/true, /*race=*/true, /*init=*/true});
  return *device;
}

std::vector<float> iota(size_t n) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = float(i);
  return values;
}

/// Launches `entry` of race_and_init.cu on `device`; the launch's Status.
Status run(HostDevice& device, const std::string& entry, Dim3 grid, Dim3 block,
           std::vector<void*> args, size_t shared_bytes = 0) {
  std::shared_ptr<Kernel> kernel = load_on(device, "race_and_init.cu", entry);
  if (!kernel) return Status::error("not loaded");
  return device.launch(*kernel, grid, block, shared_bytes, args.data());
}

TEST(AccessChecks, RaceCatchesAMissingBarrierInDynamicSharedMemory) {
  DeviceBuffer<float> in(race_device(), iota(128)), out(race_device(), 128);
  Status status = run(race_device(), "reverse_missing_barrier", {2, 1, 1}, {64, 1, 1},
                      {&in.get(), &out.get()}, 64 * sizeof(float));
  ASSERT_FALSE(status.is_ok());
  // Loop mode (no barrier): threads 0 to 31 read slots 63 to 32 before
  // they are written; thread 32 then writes the slot thread 31 read. The
  // source lines are the unit's (compiled as <entry>.cu).
  expect_contains(status.message(), "kernel 'reverse_missing_barrier' failed in block (0,0,0)");
  expect_contains(status.message(),
                  "race: thread (32,0,0) wrote 4 byte(s) at offset 128 of the block's 256 bytes "
                  "of dynamic shared memory (at reverse_missing_barrier.cu:13), and thread "
                  "(31,0,0) read it in the same barrier interval (at "
                  "reverse_missing_barrier.cu:14)");
  expect_contains(status.message(), "no __syncthreads orders the two accesses");

  ASSERT_TRUE(run(race_device(), "reverse", {2, 1, 1}, {64, 1, 1}, {&in.get(), &out.get()},
                  64 * sizeof(float)).is_ok());
  std::vector<float> reversed = out.read();
  EXPECT_EQ(reversed[0], 63.0f);
  EXPECT_EQ(reversed[127], 64.0f);
}

TEST(AccessChecks, RaceCatchesAMissingBarrierInStaticSharedMemory) {
  DeviceBuffer<float> in(race_device(), iota(64)), out(race_device(), 64);
  Status status = run(race_device(), "reverse_static_missing_barrier", {1, 1, 1}, {64, 1, 1},
                      {&in.get(), &out.get()});
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "race: thread (32,0,0) wrote 4 byte(s) at offset ");
  expect_contains(status.message(), "of the block's static __shared__ `tile` (256 bytes, in "
                                    "reverse_static_missing_barrier)");
  expect_contains(status.message(), "(at reverse_static_missing_barrier.cu:29), and thread (31,0,0) "
                                    "read it in the same barrier interval (at "
                                    "reverse_static_missing_barrier.cu:30)");
  EXPECT_TRUE(run(race_device(), "reverse_static", {1, 1, 1}, {64, 1, 1},
                  {&in.get(), &out.get()}).is_ok());
  EXPECT_EQ(out.read()[0], 63.0f);
}

/// The hazard of the barrier that ends a round executes only in a second round.
TEST(AccessChecks, RaceCatchesTheNextRoundsWrite) {
  DeviceBuffer<float> in(race_device(), iota(64)), out(race_device(), 32);
  int rounds = 1;
  std::vector<void*> args = {&in.get(), &out.get(), &rounds};
  EXPECT_TRUE(run(race_device(), "rounds_missing_second_barrier", {1, 1, 1}, {32, 1, 1}, args,
                  32 * sizeof(float)).is_ok());
  rounds = 2;
  Status status = run(race_device(), "rounds_missing_second_barrier", {1, 1, 1}, {32, 1, 1},
                      args, 32 * sizeof(float));
  ASSERT_FALSE(status.is_ok());
  // Thread 31, last at the first barrier, goes on first: it writes slot 31
  // of round 2 before thread 0 has read it in round 1.
  expect_contains(status.message(), "race: thread (0,0,0) read 4 byte(s) at offset 124 ");
  expect_contains(status.message(), "(at rounds_missing_second_barrier.cu:51), and thread (31,0,0) "
                                    "wrote it in the same barrier interval (at "
                                    "rounds_missing_second_barrier.cu:49)");
  ASSERT_TRUE(run(race_device(), "rounds", {1, 1, 1}, {32, 1, 1}, args, 32 * sizeof(float))
                  .is_ok());
  EXPECT_EQ(out.read()[0], 31.0f + 63.0f);
}

TEST(AccessChecks, RaceCatchesBlocksWritingOneSlot) {
  DeviceBuffer<float> out(race_device(), std::vector<float>(4, 0.0f));
  Status status = run(race_device(), "blocks_write_one_slot", {4, 1, 1}, {32, 1, 1},
                      {&out.get()});
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "failed in block (1,0,0)");
  expect_contains(status.message(), "race: thread (0,0,0) wrote 4 byte(s) at offset 0 of a "
                                    "16-byte device allocation at 0x");
  expect_contains(status.message(), "and block (0,0,0) thread (0,0,0) wrote it in the same launch");
  expect_contains(status.message(), "the blocks of one launch are not ordered");
  // Own slots, and atomics on one counter: no race; and the next launch
  // does not race with this one.
  DeviceBuffer<int> counter(race_device(), std::vector<int>{0});
  for (int again = 0; again < 2; ++again) {
    ASSERT_TRUE(run(race_device(), "blocks_write_own_slots", {4, 1, 1}, {32, 1, 1},
                    {&out.get(), &counter.get()}).is_ok());
  }
  EXPECT_EQ(counter.read()[0], 2 * 4 * 32);
}

TEST(AccessChecks, InitCatchesSharedSlotsNoThreadWrote) {
  DeviceBuffer<float> in(init_device(), iota(5)), out(init_device(), 1);
  int n = 5;
  Status status = run(init_device(), "tree_sum_unfilled", {1, 1, 1}, {8, 1, 1},
                      {&in.get(), &out.get(), &n}, 8 * sizeof(float));
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "init: thread (1,0,0) read 4 byte(s) at offset 20 of the "
                                    "block's 32 bytes of dynamic shared memory (at "
                                    "tree_sum_unfilled.cu:89)");
  expect_contains(status.message(), "which no thread of the block wrote before");
  ASSERT_TRUE(run(init_device(), "tree_sum", {1, 1, 1}, {8, 1, 1}, {&in.get(), &out.get(), &n},
                  8 * sizeof(float)).is_ok());
  EXPECT_EQ(out.read()[0], 10.0f);
}

/// Device memory counts as written after a copy to the device, a fill, a
/// copy on the device from written bytes, or a kernel's store.
TEST(AccessChecks, InitFollowsDeviceMemoryThroughCopiesAndKernels) {
  DeviceBuffer<float> fresh(init_device(), 64), out(init_device(), 64), copied(init_device(), 64);
  std::vector<void*> args = {&fresh.get(), &out.get()};
  Status status = run(init_device(), "copy", {2, 1, 1}, {32, 1, 1}, args);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "init: thread (0,0,0) read 4 byte(s) at offset 0 of a "
                                    "256-byte device allocation at 0x");
  expect_contains(status.message(), "which nothing wrote since it was allocated");
  // An unwritten copy is still unwritten.
  ASSERT_TRUE(init_device().copy_on_device(copied.get(), fresh.get(), 256).is_ok());
  std::vector<void*> from_copy = {&copied.get(), &out.get()};
  EXPECT_FALSE(run(init_device(), "copy", {2, 1, 1}, {32, 1, 1}, from_copy).is_ok());
  ASSERT_TRUE(init_device().fill_zero(fresh.get(), 256).is_ok());
  ASSERT_TRUE(run(init_device(), "copy", {2, 1, 1}, {32, 1, 1}, args).is_ok());
  // `out`, written by the kernel, reads as written.
  std::vector<void*> onward = {&out.get(), &copied.get()};
  EXPECT_TRUE(run(init_device(), "copy", {2, 1, 1}, {32, 1, 1}, onward).is_ok());
}

/// memset and memcpy calls left in a kernel are accesses like any other;
/// an atomic exchange writes.
TEST(AccessChecks, CallsToMemsetAndAtomicStoresAreAccesses) {
  HostDevice& device = both_device();
  DeviceBuffer<float> out(device, 64);
  std::vector<void*> args = {&out.get()};
  Status cleared = run(device, "cleared_by_memset", {1, 1, 1}, {64, 1, 1}, args, 256);
  ASSERT_TRUE(cleared.is_ok()) << cleared.message();
  EXPECT_EQ(out.read(), std::vector<float>(64, 0.0f));
  Status racing = run(device, "cleared_by_memset_missing_barrier", {1, 1, 1}, {64, 1, 1}, args, 256);
  ASSERT_FALSE(racing.is_ok());
  expect_contains(racing.message(), "race: thread (1,0,0) read 4 byte(s) at offset 4 of the "
                                    "block's 256 bytes of dynamic shared memory");
  expect_contains(racing.message(), "and thread (0,0,0) wrote it in the same barrier interval");
  DeviceBuffer<int> flag(device, 1);
  std::vector<void*> flag_args = {&flag.get()};
  Status set = run(device, "set_flag", {1, 1, 1}, {32, 1, 1}, flag_args);
  ASSERT_TRUE(set.is_ok()) << set.message();
  EXPECT_EQ(flag.read()[0], 1);
}

/// Atomics never race each other, but a plain read of what other threads
/// add to atomically does, until a barrier orders them.
TEST(AccessChecks, RaceCatchesAPlainReadOfAtomicCounts) {
  HostDevice& device = both_device();
  std::vector<float> signs(64);
  for (size_t i = 0; i < signs.size(); ++i) signs[i] = i % 2 ? -1.0f : 1.0f;
  DeviceBuffer<float> in(device, signs);
  DeviceBuffer<int> out(device, 2);
  std::vector<void*> args = {&in.get(), &out.get()};
  Status counted = run(device, "count_signs", {1, 1, 1}, {64, 1, 1}, args);
  ASSERT_TRUE(counted.is_ok()) << counted.message();
  EXPECT_EQ(out.read(), (std::vector<int>{32, 32}));
  Status early = run(device, "count_signs_missing_barrier", {1, 1, 1}, {64, 1, 1}, args);
  ASSERT_FALSE(early.is_ok());
  // The thread that releases the barrier runs on first: thread 63 adds
  // before thread 0 reads.
  expect_contains(early.message(), "race: thread (0,0,0) read 4 byte(s) at offset ");
  expect_contains(early.message(), "(at count_signs_missing_barrier.cu:152), and thread (63,0,0) "
                                   "updated it atomically in the same barrier interval (at "
                                   "count_signs_missing_barrier.cu:151)");
  // A thread's plain write stays a write when the same thread then adds.
  Status unzeroed = run(device, "count_signs_unzeroed", {1, 1, 1}, {64, 1, 1}, args);
  ASSERT_FALSE(unzeroed.is_ok());
  expect_contains(unzeroed.message(), "updated atomically 4 byte(s) at offset ");
  expect_contains(unzeroed.message(), "wrote it in the same barrier interval (at "
                                      "count_signs_unzeroed.cu:159)");
  // The last of many adders reads: after the barrier thread 63 runs first,
  // then 0, 1, ..., so thread 62 adds last; every other add is unordered
  // with its read (not only the last one's).
  int reader = 62;
  std::vector<void*> reading = {&out.get(), &reader};
  Status last = run(device, "last_adder_reads", {1, 1, 1}, {64, 1, 1}, reading);
  ASSERT_FALSE(last.is_ok());
  expect_contains(last.message(), "race: thread (62,0,0) read 4 byte(s) at offset 0 ");
  expect_contains(last.message(), "and other threads updated it atomically in the same barrier "
                                  "interval (at e.g. last_adder_reads.cu:171)");
  // The first adder reads: the later adds meet its read.
  reader = 63;
  Status first = run(device, "last_adder_reads", {1, 1, 1}, {64, 1, 1}, reading);
  ASSERT_FALSE(first.is_ok());
  expect_contains(first.message(), "race: thread (0,0,0) updated atomically 4 byte(s) at offset 0 ");
  expect_contains(first.message(), "and thread (63,0,0) read it in the same barrier interval");
}

/// Static __shared__ variables are named from the kernel's TLS symbols.
TEST(AccessChecks, SharedVariablesAreNamedFromTheirSymbols) {
  using host::AccessChecker;
  EXPECT_EQ(AccessChecker::shared_variable_name(
                "_ZZN15spectral_sparse8topk_rowILi128ELb1EfNS_8RowsLoadIfEENS_11SparseStoreIfEEEEvxx"
                "xPDTcl13magnitude_keytlT1_EEET2_T3_E9histogram",
                1024),
            "`histogram` (1024 bytes, in topk_row)");
  EXPECT_EQ(AccessChecker::shared_variable_name("_ZZ11count_signsE6counts", 8),
            "`counts` (8 bytes, in count_signs)");  // an extern "C" kernel
  EXPECT_EQ(AccessChecker::shared_variable_name("_ZZN12_GLOBAL__N_11fEPfE4tile", 256),
            "`tile` (256 bytes, in f)");  // (anonymous namespace)::f(float*)::tile
  EXPECT_EQ(AccessChecker::shared_variable_name("_ZZNK1S6methodEiE6buffer", 16),
            "`buffer` (16 bytes, in method)");
  EXPECT_EQ(AccessChecker::shared_variable_name("_ZN3ns213ns_scope_tileE", 64),
            "`ns_scope_tile` (64 bytes)");  // at namespace scope: no function
  EXPECT_EQ(AccessChecker::shared_variable_name("file_scope_tile", 64),
            "`file_scope_tile` (64 bytes)");
}

/// The other test kernels with barriers, shared memory and atomics pass
/// under every check at once, with their usual results.
TEST(AccessChecks, CorrectKernelsPassEveryCheck) {
  HostDevice& device = both_device();
  std::vector<float> values = iota(1000);
  DeviceBuffer<float> in(device, values), sums(device, 4);
  int n = 1000;
  std::shared_ptr<Kernel> reduce = load_on(device, "block_reduce.cu", "block_reduce");
  ASSERT_TRUE(reduce);
  std::vector<void*> args = {&in.get(), &sums.get(), &n};
  Status status = device.launch(*reduce, {4, 1, 1}, {256, 1, 1}, 0, args.data());
  ASSERT_TRUE(status.is_ok()) << status.message();
  std::vector<float> got = sums.read();
  EXPECT_EQ(got[0], 255.0f * 256.0f / 2.0f);
  for (const char* entry : {"reverse", "reverse_static"}) {
    DeviceBuffer<float> out(device, 64);
    std::vector<void*> pair = {&in.get(), &out.get()};
    Status reversed = run(device, entry, {1, 1, 1}, {64, 1, 1}, pair, 64 * sizeof(float));
    EXPECT_TRUE(reversed.is_ok()) << entry << ": " << reversed.message();
  }
}

}  // namespace
}  // namespace spectral::testing
