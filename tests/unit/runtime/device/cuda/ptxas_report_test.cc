#include "runtime/device/cuda/ptxas_report.h"

#include <gtest/gtest.h>

namespace spectral {
namespace {

// Verbatim from NVRTC 13.0 (sm_80, -maxrregcount=32, three entries, one of
// them with a 16 KiB local array) ...
constexpr char kSm80Log[] =
    "ptxas info    : Overriding maximum register limit 256 for 'c' with  32 of maxrregcount "
    "option\n"
    "ptxas info    : 0 bytes gmem, 256 bytes cmem[3]\n"
    "ptxas info    : Compiling entry function 'c' for 'sm_80'\n"
    "ptxas info    : Function properties for c\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n"
    "ptxas info    : Compile time = 2.693 ms\n"
    "ptxas info    : Compiling entry function 'spill' for 'sm_80'\n"
    "ptxas info    : Function properties for spill\n"
    "ptxas         .     16384 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 30 registers, used 0 barriers, 16384 bytes cumulative stack size, "
    "372 bytes cmem[0]\n"
    "ptxas info    : Compile time = 18.802 ms\n"
    "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
    "ptxas info    : Function properties for k\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 12 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
    "ptxas info    : Compile time = 2.341 ms\n";

// ... and sm_90 with spills and a non-inlined device function, whose
// properties follow the entry and have no "Used" line.
constexpr char kSm90Log[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'spill' for 'sm_90'\n"
    "ptxas info    : Function properties for spill\n"
    "ptxas         .     1360 bytes stack frame, 2216 bytes spill stores, 3084 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 0 barriers, 1360 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 158.896 ms\n"
    "ptxas info    : Function properties for _Z1gfi\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";

TEST(PtxasReport, ParsesEveryEntryOfAnSm80Log) {
  auto usage = parse_ptxas_report(kSm80Log);
  ASSERT_EQ(usage.size(), 3u);

  const ResourceUsage& c = usage.at("c");
  EXPECT_TRUE(c.is_entry);
  EXPECT_EQ(c.registers, 8);
  EXPECT_EQ(c.barriers, 0);
  EXPECT_EQ(c.shared_bytes, 0);
  EXPECT_EQ(c.constant_bytes, 360);

  const ResourceUsage& spill = usage.at("spill");
  EXPECT_EQ(spill.registers, 30);
  EXPECT_EQ(spill.stack_bytes, 16384);
  EXPECT_EQ(spill.spill_store_bytes, 0);
  EXPECT_EQ(spill.constant_bytes, 372);

  const ResourceUsage& k = usage.at("k");
  EXPECT_EQ(k.registers, 12);
  EXPECT_EQ(k.barriers, 1);
  EXPECT_EQ(k.shared_bytes, 1024);
  EXPECT_EQ(k.stack_bytes, 0);
  EXPECT_EQ(k.constant_bytes, 368);
}

TEST(PtxasReport, ParsesSpillsAndDeviceFunctions) {
  auto usage = parse_ptxas_report(kSm90Log);
  ASSERT_EQ(usage.size(), 2u);
  const ResourceUsage& spill = usage.at("spill");
  EXPECT_TRUE(spill.is_entry);
  EXPECT_EQ(spill.registers, 32);
  EXPECT_EQ(spill.stack_bytes, 1360);
  EXPECT_EQ(spill.spill_store_bytes, 2216);
  EXPECT_EQ(spill.spill_load_bytes, 3084);
  EXPECT_EQ(spill.constant_bytes, 0);

  const ResourceUsage& device_function = usage.at("_Z1gfi");
  EXPECT_FALSE(device_function.is_entry);
  EXPECT_EQ(device_function.registers, 0);
  EXPECT_EQ(device_function.stack_bytes, 0);
}

TEST(PtxasReport, SumsConstantBanksAndIgnoresOtherLines) {
  auto usage = parse_ptxas_report(
      "k.cu(3): warning #177-D: variable \"unused\" was declared but never referenced\n"
      "ptxas info    : Compiling entry function 'f' for 'sm_75'\r\n"
      "ptxas warning : Registers are spilled to local memory in function 'f', 8 bytes spill "
      "stores, 8 bytes spill loads\n"
      "ptxas info    : Function properties for f\r\n"
      "ptxas         .     8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\r\n"
      "ptxas info    : Used 255 registers, 64 bytes cmem[0], 16 bytes cmem[2], 48 bytes smem\r\n");
  ASSERT_EQ(usage.size(), 1u);
  const ResourceUsage& f = usage.at("f");
  EXPECT_EQ(f.registers, 255);
  EXPECT_EQ(f.constant_bytes, 80);
  EXPECT_EQ(f.shared_bytes, 48);
  EXPECT_EQ(f.stack_bytes, 8);
  EXPECT_EQ(f.spill_store_bytes, 8);
  EXPECT_EQ(f.spill_load_bytes, 4);
}

TEST(PtxasReport, EmptyLogHasNoUsage) {
  EXPECT_TRUE(parse_ptxas_report("").empty());
  EXPECT_TRUE(parse_ptxas_report("1 error detected in the compilation of \"k.cu\".\n").empty());
}

}  // namespace
}  // namespace spectral
