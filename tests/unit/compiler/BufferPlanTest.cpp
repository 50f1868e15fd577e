// BufferPlanTest.cpp - temporaries share storage only when their lives do not meet.
#include "compiler/Planning/BufferPlan.h"

#include <gtest/gtest.h>

#include <random>

namespace spectral::planning {
namespace {

/// A Program of `f32` buffers whose launches all use one (never compiled) kernel.
struct Builder {
  Program p;
  Builder() {
    p.function = "plan";
    p.kernels.push_back({{"", "k"}, "", 0, 0});
  }
  int buffer(BufferRole role, int64_t elements, int view_of = -1) {
    BufferDesc b;
    b.name = "b" + std::to_string(p.buffers.size());
    b.shape = {elements};
    b.role = role;
    b.view_of = view_of;
    p.buffers.push_back(b);
    int id = int(p.buffers.size()) - 1;
    if (role == BufferRole::kInput) p.inputs.push_back(id);
    return id;
  }
  int temp(int64_t elements = 4) { return buffer(BufferRole::kTemporary, elements); }
  void launch(std::vector<int> buffers, int error_word = -1) {
    Step step;
    step.kernel = 0;
    for (int b : buffers) step.args.push_back(StepArg::of_buffer(b));
    step.error_word = error_word;
    p.steps.push_back(step);
  }
};

bool shares(const Program &p, int a, int b) { return p.storage_of(a) == p.storage_of(b); }

/// x -> t1 -> t2 -> t3 -> t4, a launch each, t4 the result; x is buffer 0,
/// t1..t4 buffers 1..4.
Builder fourInARow() {
  Builder b;
  int x = b.buffer(BufferRole::kInput, 4);
  int t1 = b.temp(), t2 = b.temp(), t3 = b.temp(), t4 = b.temp();
  b.launch({x, t1});
  b.launch({t1, t2});
  b.launch({t2, t3});
  b.launch({t3, t4});
  b.p.outputs = {t4};
  return b;
}

TEST(BufferPlan, AChainReusesEveryOtherTemporary) {
  Builder b = fourInARow();
  const int x = 0, t1 = 1, t2 = 2, t3 = 3, t4 = 4;
  BufferPlanStats stats = planBuffers(b.p);
  ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
  // t1 and t2 meet in step 1 (one reads what the other is written from).
  EXPECT_FALSE(shares(b.p, t1, t2));
  EXPECT_TRUE(shares(b.p, t1, t3));
  EXPECT_TRUE(shares(b.p, t2, t4));
  EXPECT_FALSE(shares(b.p, x, t1));  // inputs keep their storage
  EXPECT_EQ(stats.temporaries, 4);
  EXPECT_EQ(stats.allocations, 2);
  EXPECT_EQ(stats.bytes_before, 5 * 16);
  EXPECT_EQ(stats.bytes_after, 3 * 16);
}

TEST(BufferPlan, ResultsAndErrorWordsLiveToTheEnd) {
  Builder b;
  int x = b.buffer(BufferRole::kInput, 4);
  int result = b.temp(), word = b.buffer(BufferRole::kTemporary, 2), t = b.temp(),
      u = b.temp(), v = b.temp();
  b.launch({x, result}, word);  // the result is written once, early
  b.launch({x, t});
  b.launch({t, u});
  b.launch({u, v});
  b.p.buffers[word].dtype = DType::kInt64;
  b.p.buffers[word].shape = {1};
  b.p.outputs = {result, v};
  planBuffers(b.p);
  ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
  for (int later : {t, u, v}) {
    EXPECT_FALSE(shares(b.p, result, later)) << later;
    EXPECT_FALSE(shares(b.p, word, later)) << later;
  }
  EXPECT_TRUE(shares(b.p, t, v));
}

TEST(BufferPlan, AViewKeepsWhatItViewsAlive) {
  Builder b;
  int x = b.buffer(BufferRole::kInput, 4);
  int t = b.temp(), view = b.buffer(BufferRole::kView, 4, t), u = b.temp(), w = b.temp();
  b.launch({x, t});
  b.launch({x, u});
  b.launch({u, w});
  b.launch({view, w});  // t is read again through its view
  b.p.outputs = {w};
  planBuffers(b.p);
  ASSERT_TRUE(b.p.validate().is_ok());
  EXPECT_FALSE(shares(b.p, t, u));
  EXPECT_FALSE(shares(b.p, t, w));
}

TEST(BufferPlan, ASlotGrowsToItsLargestMember) {
  Builder b;
  int x = b.buffer(BufferRole::kInput, 4);
  int small = b.temp(4), other = b.temp(4), large = b.temp(100), last = b.temp(4);
  b.launch({x, small});
  b.launch({small, other});
  b.launch({other, large});
  b.launch({large, last});
  b.p.outputs = {last};
  BufferPlanStats stats = planBuffers(b.p);
  ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
  EXPECT_TRUE(shares(b.p, small, large));
  EXPECT_EQ(b.p.storage_of(small), large);  // the largest member keeps the storage
  EXPECT_EQ(b.p.buffers[small].role, BufferRole::kAlias);
  EXPECT_EQ(stats.bytes_after, 16 + 400 + 16);
}

/// The steps each buffer's bytes are touched in, computed from the Program
/// as built (before any plan), following views to their storage.
std::vector<std::pair<int, int>> livesBeforePlan(const Program &p) {
  auto storage = [&](int id) { return p.buffers[id].role == BufferRole::kView ? p.buffers[id].view_of : id; };
  std::vector<std::pair<int, int>> life(p.buffers.size(), {1 << 30, -1});
  auto touch = [&](int id, int s) {
    auto &l = life[storage(id)];
    l.first = std::min(l.first, s);
    l.second = std::max(l.second, s);
  };
  for (size_t s = 0; s < p.steps.size(); ++s) {
    // A chain's second launch runs interleaved with its first: at its time.
    const int time = s > 0 && p.steps[s - 1].chain_parts > 1 ? int(s) - 1 : int(s);
    for (const StepArg &a : p.steps[s].args) touch(a.buffer, time);
    if (p.steps[s].error_word >= 0) touch(p.steps[s].error_word, int(p.steps.size()));
  }
  for (int o : p.outputs) touch(o, int(p.steps.size()));
  for (size_t id = 0; id < p.buffers.size(); ++id) life[id] = life[storage(int(id))];
  return life;
}

TEST(BufferPlan, ADonatedInputIsUpdatedInPlaceByItsLastReader) {
  Builder b;
  int w = b.buffer(BufferRole::kInput, 4), g = b.buffer(BufferRole::kInput, 4);
  b.p.buffers[w].donated = true;
  int loss = b.temp(1), updated = b.temp();
  b.launch({w, loss});            // the forward pass reads w
  b.launch({w, g, updated});      // the step reads w and writes its update
  b.p.steps[1].in_place = {{0, 2}};
  b.p.outputs = {loss, updated};
  BufferPlanStats stats = planBuffers(b.p);
  ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
  EXPECT_TRUE(shares(b.p, w, updated));
  EXPECT_EQ(stats.in_place, 1);
  EXPECT_EQ(stats.bytes_after, stats.bytes_before - 16);
}

TEST(BufferPlan, InPlaceOnlyOverADonatedInputNoOneReadsLater) {
  // Not donated; read after the step; returned as it is; passed twice to the
  // step; another size: each keeps the result apart.
  for (int variant = 0; variant < 5; ++variant) {
    Builder b;
    int w = b.buffer(BufferRole::kInput, 4);
    b.p.buffers[w].donated = variant != 0;
    int updated = b.temp(variant == 4 ? 2 : 4), after = b.temp();
    b.launch(variant == 3 ? std::vector<int>{w, w, updated} : std::vector<int>{w, updated});
    b.p.steps[0].in_place = {{0, variant == 3 ? 2 : 1}};
    if (variant == 1) b.launch({w, after});
    b.p.outputs = {updated};
    if (variant == 1) b.p.outputs.push_back(after);
    if (variant == 2) b.p.outputs.push_back(w);
    BufferPlanStats stats = planBuffers(b.p);
    ASSERT_TRUE(b.p.validate().is_ok()) << variant << ": " << b.p.validate().message();
    EXPECT_FALSE(shares(b.p, w, updated)) << variant;
    EXPECT_EQ(stats.in_place, 0) << variant;
  }
}

TEST(BufferPlan, ChainedLaunchesKeepWhatEitherTouchesApart) {
  // Parts of two chained launches (Step::chain_parts) interleave: what the
  // first reads may not be lent to what the second writes.
  for (bool chained : {false, true}) {
    Builder b = fourInARow();
    const int t1 = 1, t2 = 2, t3 = 3, t4 = 4;
    b.p.steps[2].chain_parts = chained ? 2 : 0;
    b.p.steps[2].grid = b.p.steps[3].grid = {2, 1, 1};
    planBuffers(b.p);
    ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
    EXPECT_EQ(shares(b.p, t2, t4), !chained);
    EXPECT_TRUE(shares(b.p, t1, t3));
  }
  // Nor is a chained launch's result written over a donated input.
  for (int chained : {0, 1}) {
    Builder b;
    int w = b.buffer(BufferRole::kInput, 4);
    b.p.buffers[w].donated = true;
    int updated = b.temp(), other = b.temp();
    b.launch({w, updated});
    b.launch({other});
    b.p.steps[0].in_place = {{0, 1}};
    b.p.steps[0].chain_parts = chained ? 2 : 0;
    b.p.steps[0].grid = b.p.steps[1].grid = {2, 1, 1};
    b.p.outputs = {updated, other};
    BufferPlanStats stats = planBuffers(b.p);
    ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
    EXPECT_EQ(shares(b.p, w, updated), !chained);
    EXPECT_EQ(stats.in_place, chained ? 0 : 1);
  }
}

TEST(BufferPlan, RandomProgramsNeverShareLiveBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    Builder b;
    int inputs = 1 + int(rng() % 3), temps = 2 + int(rng() % 20);
    for (int i = 0; i < inputs; ++i) b.buffer(BufferRole::kInput, 1 + rng() % 64);
    for (int i = 0; i < temps; ++i) {
      int t = b.temp(rng() % 64);  // empty tensors too
      if (rng() % 4 == 0) b.buffer(BufferRole::kView, b.p.buffers[t].shape[0], t);
    }
    const int count = int(b.p.buffers.size());
    for (int s = 0, steps = 1 + int(rng() % 25); s < steps; ++s) {
      std::vector<int> args;
      for (int a = 0, n = 1 + int(rng() % 3); a < n; ++a) args.push_back(int(rng() % count));
      b.launch(args);
    }
    for (size_t s = 0; s + 1 < b.p.steps.size(); ++s)  // chains of two launches, some
      if (rng() % 5 == 0 && (s == 0 || b.p.steps[s - 1].chain_parts == 0)) {
        b.p.steps[s].chain_parts = 2;
        b.p.steps[s].grid = b.p.steps[s + 1].grid = {2, 1, 1};
      }
    for (int o = 0, n = int(rng() % 3); o < n; ++o) b.p.outputs.push_back(int(rng() % count));
    const auto life = livesBeforePlan(b.p);
    const Program before = b.p;
    BufferPlanStats stats = planBuffers(b.p);
    ASSERT_TRUE(b.p.validate().is_ok()) << b.p.validate().message();
    EXPECT_LE(stats.bytes_after, stats.bytes_before);
    for (int i = 0; i < count; ++i)
      for (int j = i + 1; j < count; ++j) {
        if (before.storage_of(i) == before.storage_of(j) || !shares(b.p, i, j)) continue;
        bool overlap = life[i].second >= 0 && life[j].second >= 0 &&
                       life[i].first <= life[j].second && life[j].first <= life[i].second;
        EXPECT_FALSE(overlap) << "trial " << trial << ": buffers " << i << " and " << j;
        EXPECT_GE(b.p.buffers[b.p.storage_of(i)].bytes(), b.p.buffers[i].bytes());
      }
  }
}

} // namespace
} // namespace spectral::planning
