// The host device's check modes (host_checks.h): SPECTRAL_HOST_CHECK's
// parsing, and the bounds check catching kernels that reach past their
// memory (kernels/write_past_end.cu and out_of_bounds.cu), in loop
// mode and on fibers, in device allocations and in dynamic shared memory,
// while the same kernels within bounds run as without the check.
#include "runtime/device/host/host_checks.h"
#include "tests/unit/runtime/device/host/host_test_util.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

namespace spectral::testing {
namespace {

using host::HostChecks;

/// A device with the bounds check, beside the shared plain one.
HostDevice& checking_device() {
  static HostDevice* device = make_device(HostChecks{/*bounds=*/true, /*sync=*/false});
  return *device;
}

/// A device with the sync check.
HostDevice& sync_device() {
  static HostDevice* device = make_device(HostChecks{/*bounds=*/false, /*sync=*/true});
  return *device;
}

TEST(HostChecks, ParsedFromTheirNames) {
  StatusOr<HostChecks> checks = host::parse_host_checks("bounds");
  ASSERT_TRUE(checks.is_ok());
  EXPECT_TRUE(checks->bounds);
  EXPECT_FALSE(host::parse_host_checks("")->any());
  StatusOr<HostChecks> both = host::parse_host_checks("sync,bounds");
  ASSERT_TRUE(both.is_ok());
  EXPECT_TRUE(both->bounds && both->sync);
  EXPECT_EQ(both->describe(), "bounds,sync");
  StatusOr<HostChecks> all = host::parse_host_checks("init,bounds,race,sync");
  ASSERT_TRUE(all.is_ok());
  EXPECT_EQ(all->describe(), "bounds,sync,race,init");
  EXPECT_TRUE(all->accesses());
  EXPECT_FALSE(both->accesses());
  StatusOr<HostChecks> order = host::parse_host_checks("order=reverse");
  ASSERT_TRUE(order.is_ok());
  EXPECT_TRUE(order->order && order->order_reverse);
  EXPECT_EQ(host::parse_host_checks("order=42")->order_seed, 42u);
  EXPECT_EQ(host::parse_host_checks("order")->describe(), "order=1");
  StatusOr<HostChecks> bad_seed = host::parse_host_checks("order=sideways");
  ASSERT_FALSE(bad_seed.is_ok());
  expect_contains(bad_seed.status().message(),
                  "'order=sideways': the order check takes 'reverse' or a seed");
  StatusOr<HostChecks> unknown = host::parse_host_checks("bound");
  ASSERT_FALSE(unknown.is_ok());
  expect_contains(unknown.status().message(), "unknown check 'bound'");
}

/// Sets SPECTRAL_HOST_CHECK for its scope, then puts back what was there
/// (a run of the whole suite under the check keeps it).
class CheckVariable {
 public:
  explicit CheckVariable(const char* value) {
    if (const char* old = std::getenv("SPECTRAL_HOST_CHECK")) old_ = old;
    setenv("SPECTRAL_HOST_CHECK", value, 1);
  }
  ~CheckVariable() {
    if (old_.empty()) {
      unsetenv("SPECTRAL_HOST_CHECK");
    } else {
      setenv("SPECTRAL_HOST_CHECK", old_.c_str(), 1);
    }
  }

 private:
  std::string old_;
};

TEST(HostChecks, EnvironmentErrorNamesTheVariable) {
  {
    CheckVariable variable("everything");
    StatusOr<std::unique_ptr<HostDevice>> device = HostDevice::create();
    ASSERT_FALSE(device.is_ok());
    expect_contains(device.status().message(), "SPECTRAL_HOST_CHECK=everything: unknown check");
  }
  CheckVariable variable("bounds");
  StatusOr<std::unique_ptr<HostDevice>> device = HostDevice::create();
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  expect_contains((*device)->name(), "checking bounds");
}

/// Zero bytes still give a pointer of their own, released as any other.
TEST(HostChecks, ZeroByteAllocationsUnderTheCheck) {
  StatusOr<void*> a = checking_device().allocate(0), b = checking_device().allocate(0);
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(checking_device().release(*a).is_ok());
  EXPECT_TRUE(checking_device().release(*b).is_ok());
  EXPECT_FALSE(host::guarded_release(*a)) << "released twice";
}

/// Loop mode: thread 1000 of a 1000-float output (and a 1001-float one,
/// within bounds, for the plain result).
TEST(HostChecks, BoundsCatchesAWritePastAnAllocationInLoopMode) {
  auto kernel = load_on(checking_device(), "write_past_end.cu", "write_one_past");
  ASSERT_TRUE(kernel);
  int n = 1000;
  DeviceBuffer<float> out(checking_device(), std::vector<float>(size_t(n), 0.0f));
  void* args[] = {&out.get(), &n};
  Status status = checking_device().launch(*kernel, {8, 1, 1}, {128, 1, 1}, 0, args);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "kernel 'write_one_past' failed in block (7,0,0)");
  expect_contains(status.message(), "bounds: thread (104,0,0) wrote 0x");
  expect_contains(status.message(), "0 bytes past the end of a 4000-byte device allocation at 0x");
  expect_contains(status.message(), "(at write_one_past.cu:6)");  // the unit's own line
  // Within bounds the check changes nothing.
  n = 1023;
  DeviceBuffer<float> roomy(checking_device(), std::vector<float>(1024, 0.0f));
  void* fine[] = {&roomy.get(), &n};
  ASSERT_TRUE(checking_device().launch(*kernel, {8, 1, 1}, {128, 1, 1}, 0, fine).is_ok());
  EXPECT_EQ(roomy.read(), std::vector<float>(1024, 1.0f));
  // Without the check the same launch goes unseen (the allocation is padded).
  n = 1000;
  DeviceBuffer<float> plain(1000);
  void* unseen[] = {&plain.get(), &n};
  EXPECT_TRUE(host_device().launch(*kernel, {8, 1, 1}, {128, 1, 1}, 0, unseen).is_ok());
}

/// Without the check, a large allocation (HostDevice::kGuardedBytes) ends at
/// a guard page after its 256-byte rounding: a write past it fails the
/// launch as under the check, and the process and the device go on.
TEST(HostChecks, LargeAllocationsEndAtAGuardPageWithoutTheCheck) {
  auto kernel = load_kernel("write_past_end.cu", "write_one_past");
  ASSERT_TRUE(kernel);
  int n = 256 * 1024;  // 1 MiB of floats
  DeviceBuffer<float> out(host_device(), std::vector<float>(size_t(n), 0.0f));
  void* args[] = {&out.get(), &n};
  for (int again = 0; again < 2; ++again) {
    Status status = host_device().launch(*kernel, {uint32_t(n / 128 + 1), 1, 1}, {128, 1, 1}, 0,
                                         args);
    ASSERT_FALSE(status.is_ok());
    expect_contains(status.message(), "failed in block (2048,0,0): bounds: thread (0,0,0) wrote 0x");
    expect_contains(status.message(),
                    "0 bytes past the end of a 1048576-byte device allocation at 0x");
  }
  n -= 1;  // within bounds
  ASSERT_TRUE(
      host_device().launch(*kernel, {uint32_t(n / 128 + 1), 1, 1}, {128, 1, 1}, 0, args).is_ok());
  EXPECT_EQ(out.read(), std::vector<float>(size_t(n) + 1, 1.0f));
}

TEST(HostChecks, AGuardFaultInAPhasedCallSaysSo) {
  // A phased kernel (host_emulation.h) writing one past the end of a 1 MiB
  // allocation: its block ran as one call, so no thread can be named.
  const std::string unit = R"(
template <typename T>
__device__ void fill_block(T* out, int n) {
  const int base = blockIdx.x * blockDim.x;
  if (::spectral_host::take_whole_block()) {
    for (int t = 0; t < int(blockDim.x); ++t)
      if (base + t <= n) out[base + t] = T(1);
  }
}
SPECTRAL_HOST_PHASED;
extern "C" __global__ void phased_write_one_past(float* out, int n) { fill_block(out, n); }
)";
  StatusOr<std::unique_ptr<HostDevice>> device =
      HostDevice::create(host::HostChecks{}, HostSchedule::kPhased);
  ASSERT_TRUE(bool(device)) << device.status().message();
  StatusOr<std::shared_ptr<Kernel>> kernel = (*device)->load({unit, "phased_write_one_past"});
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  int n = 256 * 1024;  // 1 MiB of floats
  DeviceBuffer<float> out(**device, std::vector<float>(size_t(n), 0.0f));
  void* args[] = {&out.get(), &n};
  Status status = (*device)->launch(**kernel, {uint32_t(n / 128 + 1), 1, 1}, {128, 1, 1}, 0, args);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "0 bytes past the end of a 1048576-byte device allocation");
  expect_contains(status.message(), "in the block's phased call, which runs every thread");
}

/// A fault that is no guard fault (here a write through a null pointer) ends
/// the process as it would without the check: by SIGSEGV, or under
/// AddressSanitizer through its report (abort or exit status 1).
void write_through_null() {
  auto kernel = load_on(checking_device(), "write_past_end.cu", "write_one_past");
  float* nowhere = nullptr;
  int n = 10;
  void* args[] = {&nowhere, &n};
  (void)checking_device().launch(*kernel, {1, 1, 1}, {8, 1, 1}, 0, args);
  std::exit(0);
}

TEST(HostChecksDeathTest, OtherFaultsStillEndTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto crashed = [](int status) { return !(WIFEXITED(status) && WEXITSTATUS(status) == 0); };
  EXPECT_EXIT(write_through_null(), crashed, "");
}

/// On fibers: the last thread reads the element past a 64-float input.
TEST(HostChecks, BoundsCatchesAReadPastAnAllocationOnFibers) {
  auto kernel = load_on(checking_device(), "out_of_bounds.cu", "read_one_past_with_barrier");
  ASSERT_TRUE(kernel);
  DeviceBuffer<float> in(checking_device(), std::vector<float>(64, 2.0f)), out(checking_device(),
                                                                  std::vector<float>(64, 0.0f));
  void* args[] = {&in.get(), &out.get()};
  // Again and again: every pool thread's runner leaves faulting fibers
  // behind, and each launch still reports.
  for (int again = 0; again < 4; ++again) {
    Status status = checking_device().launch(*kernel, {6, 1, 1}, {64, 1, 1}, 0, args);
    ASSERT_FALSE(status.is_ok());
    expect_contains(status.message(), "kernel 'read_one_past_with_barrier' failed in block");
    expect_contains(status.message(), "bounds: thread (63,0,0) read 0x");
    expect_contains(status.message(), "0 bytes past the end of a 256-byte device allocation");
    expect_contains(status.message(), "(at read_one_past_with_barrier.cu:10)");
  }
  // The device goes on: 63 threads of a 64-float input are within bounds.
  DeviceBuffer<float> wider(checking_device(), std::vector<float>(65, 2.0f));
  void* fine[] = {&wider.get(), &out.get()};
  ASSERT_TRUE(checking_device().launch(*kernel, {3, 1, 1}, {64, 1, 1}, 0, fine).is_ok());
  EXPECT_EQ(out.read(), std::vector<float>(64, 2.0f));
}

/// The block's dynamic shared memory ends at the guard page too.
TEST(HostChecks, BoundsCatchesAWritePastDynamicSharedMemory) {
  auto kernel = load_on(checking_device(), "out_of_bounds.cu", "shared_one_past");
  ASSERT_TRUE(kernel);
  DeviceBuffer<float> out(checking_device(), std::vector<float>(32, 0.0f));
  int shift = 1;
  void* args[] = {&out.get(), &shift};
  Status status = checking_device().launch(*kernel, {2, 1, 1}, {32, 1, 1}, 32 * sizeof(float), args);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "bounds: thread (31,0,0) wrote 0x");
  expect_contains(status.message(), "0 bytes past the end of the block's 128 bytes of dynamic shared memory");
  expect_contains(status.message(), "(at shared_one_past.cu:19)");
  // Another size on the same runners: the guard moves with the end.
  DeviceBuffer<float> wide(checking_device(), std::vector<float>(64, 0.0f));
  void* wider[] = {&wide.get(), &shift};
  status = checking_device().launch(*kernel, {2, 1, 1}, {64, 1, 1}, 64 * sizeof(float), wider);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "bounds: thread (63,0,0) wrote 0x");
  expect_contains(status.message(), "0 bytes past the end of the block's 256 bytes of dynamic");
  // None at all: the first write is past the end.
  shift = 0;
  status = checking_device().launch(*kernel, {1, 1, 1}, {32, 1, 1}, 0, args);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "bounds: thread (0,0,0) wrote 0x");
  expect_contains(status.message(), "0 bytes past the end of the block's 0 bytes of dynamic");
  // Within bounds, as without the check.
  ASSERT_TRUE(
      checking_device().launch(*kernel, {2, 1, 1}, {32, 1, 1}, 32 * sizeof(float), args).is_ok());
  std::vector<float> want(32);
  for (int t = 0; t < 32; ++t) want[size_t(t)] = float(t);
  EXPECT_EQ(out.read(), want);
}

/// Each sync misuse fails its launch under the check, naming the thread and
/// the barrier's source line, and runs without a word in the plain mode.
TEST(HostChecks, SyncCatchesWhatCudaLeavesUndefinedAtBarriers) {
  struct Case {
    const char* entry;
    unsigned threads;
    const char* message;
    const char* site;
  };
  const Case cases[] = {
      {"exit_while_others_wait", 64,
       "sync: thread (5,0,0) exited while 5 thread(s) wait at __syncthreads",
       " (at exit_while_others_wait.cu:10)"},
      {"barrier_after_exit", 64,
       "sync: thread (1,0,0) reached __syncthreads after 1 of the block's 64 threads exited",
       " (at barrier_after_exit.cu:17)"},
      {"shuffle_with_absent_lanes", 32,
       "sync: thread (16,0,0) exited while lanes 0x0000ffff of its warp wait at a warp intrinsic "
       "whose masks name it", " (at shuffle_with_absent_lanes.cu:25)"},
      {"shuffle_after_lanes_exited", 32,
       "sync: thread (16,0,0) passed a warp intrinsic the mask 0xffffffff, whose lanes 0x0000ffff "
       "have exited or do not exist", " (at shuffle_after_lanes_exited.cu:31)"},
      {"shuffle_with_absent_lanes", 16,
       "sync: thread (0,0,0) passed a warp intrinsic the mask 0xffffffff, whose lanes 0xffff0000",
       " (at shuffle_with_absent_lanes.cu:25)"},
      // Only the barrier they wait at, not the one released before.
      {"exit_between_barriers", 64,
       "sync: thread (5,0,0) exited while 6 thread(s) wait at __syncthreads",
       " (at exit_between_barriers.cu:38)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.entry) + " with " + std::to_string(c.threads) + " threads");
    StatusOr<std::shared_ptr<Kernel>> checked =
        sync_device().load({kernel_file("sync_misuse.cu"), c.entry, {}});
    ASSERT_TRUE(checked.is_ok()) << checked.status().message();
    DeviceBuffer<int> out(64);
    void* args[] = {&out.get()};
    Status status = sync_device().launch(**checked, {2, 1, 1}, {c.threads, 1, 1}, 0, args);
    ASSERT_FALSE(status.is_ok());
    expect_contains(status.message(), std::string("kernel '") + c.entry + "' failed in block");
    expect_contains(status.message(), c.message);
    expect_contains(status.message(), c.site);
    auto plain = load_kernel("sync_misuse.cu", c.entry);
    ASSERT_TRUE(plain);
    EXPECT_TRUE(host_device().launch(*plain, {2, 1, 1}, {c.threads, 1, 1}, 0, args).is_ok());
  }
  // The same barriers used right pass the check: every thread reaches them.
  auto good = sync_device().load({kernel_file("block_reduce.cu"), "block_reduce", {}});
  ASSERT_TRUE(good.is_ok());
  int n = 256;
  DeviceBuffer<float> in(std::vector<float>(256, 1.0f)), sum(1);
  void* args[] = {&in.get(), &sum.get(), &n};
  ASSERT_TRUE(sync_device().launch(**good, {1, 1, 1}, {256, 1, 1}, 0, args).is_ok());
  EXPECT_EQ(sum.read()[0], 256.0f);
}

/// The order check runs each launch twice from the same memory, forward and
/// in the other order, and names a byte that came out different.
TEST(HostChecks, OrderCatchesResultsThatDependOnTheThreadOrder) {
  HostChecks reversed_checks;
  reversed_checks.order = reversed_checks.order_reverse = true;
  static HostDevice* reversed = make_device(reversed_checks);
  HostChecks random_checks;
  random_checks.order = true;
  random_checks.order_seed = 7;
  static HostDevice* random = make_device(random_checks);
  EXPECT_EQ(random->name().substr(random->name().find("checking")), "checking order=7)");

  DeviceBuffer<int> last(*reversed, std::vector<int>{-1});
  void* last_args[] = {&last.get()};
  auto writers = load_on(*reversed, "thread_order.cu", "last_writer_wins");
  ASSERT_TRUE(writers);
  Status status = reversed->launch(*writers, {1, 1, 1}, {64, 1, 1}, 0, last_args);
  ASSERT_FALSE(status.is_ok());
  expect_contains(status.message(), "kernel 'last_writer_wins': order: with its threads in "
                                    "reversed order the launch wrote other bytes than in forward "
                                    "order: byte 0 of a 4-byte device allocation at 0x");
  expect_contains(status.message(), " is 0x00 in it, 0x3f in forward order");
  // After a barrier too: reversed, thread 0 writes after thread 1.
  auto after_barrier = load_on(*reversed, "thread_order.cu", "two_writers_after_barrier");
  ASSERT_TRUE(after_barrier);
  Status later = reversed->launch(*after_barrier, {1, 1, 1}, {64, 1, 1}, 0, last_args);
  ASSERT_FALSE(later.is_ok());
  expect_contains(later.message(), " is 0x00 in it, 0x01 in forward order");

  // 1 + 2^-24 * k, each add rounding: the sum depends on the order of the adds.
  std::vector<float> values(256);
  for (size_t i = 0; i < values.size(); ++i) values[i] = i % 2 ? 1.0f : 3e-8f * float(i);
  for (HostDevice* device : {reversed, random}) {
    DeviceBuffer<float> in(*device, values), sum(*device, std::vector<float>{0.0f});
    void* args[] = {&in.get(), &sum.get()};
    auto atomics = load_on(*device, "thread_order.cu", "atomic_float_sum");
    ASSERT_TRUE(atomics);
    Status atomic = device->launch(*atomics, {1, 1, 1}, {256, 1, 1}, 0, args);
    ASSERT_FALSE(atomic.is_ok()) << device->name();
    expect_contains(atomic.message(), "the launch wrote other bytes than in forward order");
    // A tree between barriers gives the same bits in every order.
    auto tree = load_on(*device, "thread_order.cu", "tree_float_sum");
    ASSERT_TRUE(tree);
    Status fine = device->launch(*tree, {1, 1, 1}, {256, 1, 1}, 256 * sizeof(float), args);
    EXPECT_TRUE(fine.is_ok()) << fine.message();
  }
}

}  // namespace
}  // namespace spectral::testing
