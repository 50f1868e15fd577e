// The multi-tensor optimizer template (SGD, momentum, Nesterov, Adam, AdamW)
// on HostDevice, checked step by step against a double-precision loop over
// the dialect's sgd_step / adam_step formulas; every unit also compiles with
// NVRTC for sm_80 and sm_90 without spills and with 16-byte loads.
#include "tests/unit/kernels_templates/kernel_test_util.h"

#include "runtime/device/cuda/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <random>

namespace spectral::testing {
namespace {

enum class Kind { kSgd, kMomentum, kNesterov, kAdam, kAdamW };
enum class DType { kF32, kF64, kC64, kC128 };
/// Where each tensor sits in its buffer: 16-byte aligned with a gap after
/// it; back to back (alignment varies); aligned but grads one scalar off.
enum class Layout { kAligned, kPacked, kSkewed };

constexpr int kChunk = 4096;
constexpr uint32_t kBlock = 256;
/// Sizes mixed in one launch: chunk tails, a whole chunk, an empty tensor.
const std::vector<int64_t> kCounts = {1000, 1, 65537, 3, 0, 4096, 5, 2};

bool is_sgd(Kind kind) {
  return kind == Kind::kSgd || kind == Kind::kMomentum || kind == Kind::kNesterov;
}
bool single(DType dtype) { return dtype == DType::kF32 || dtype == DType::kC64; }
bool is_complex(DType dtype) { return dtype == DType::kC64 || dtype == DType::kC128; }
size_t scalar_bytes(DType dtype) { return single(dtype) ? 4 : 8; }

std::string name_of(Kind kind) {
  const char* names[] = {"sgd", "momentum", "nesterov", "adam", "adamw"};
  return names[int(kind)];
}
std::string name_of(DType dtype) {
  const char* names[] = {"f32", "f64", "c64", "c128"};
  return names[int(dtype)];
}

/// The unit codegen writes for one optimizer step: the template and one entry.
KernelSource optimizer_unit(Kind kind, DType dtype) {
  std::map<std::string, std::string> values{
      {"$ENTRY", "optimizer_" + name_of(kind) + "_" + name_of(dtype)},
      {"$REAL", single(dtype) ? "float" : "double"},
      {"$COMPLEX", is_complex(dtype) ? "true" : "false"},
      {"$CHUNK", std::to_string(kChunk)},
      {"$BLOCK", std::to_string(kBlock)},
      {"$VELOCITY", kind == Kind::kSgd ? "false" : "true"},
      {"$NESTEROV", kind == Kind::kNesterov ? "true" : "false"},
      {"$DECOUPLED", kind == Kind::kAdamW ? "true" : "false"}};
  std::string text = R"(#include "optimizer.cuh"
using namespace spectral_optimizer;
)";
  if (is_sgd(kind))
    text += R"(
extern "C" __global__ void __launch_bounds__($BLOCK) $ENTRY(const OptimizerTensor<$REAL>* tensors,
    const OptimizerChunk* chunks, int num_chunks, const $REAL* clip_scale, double lr,
    double momentum, double weight_decay) {
  sgd_multi_tensor<$REAL, $COMPLEX, $VELOCITY, $NESTEROV, $CHUNK>(tensors, chunks, num_chunks,
      clip_scale, lr, momentum, weight_decay);
}
)";
  else
    text += R"(
extern "C" __global__ void __launch_bounds__($BLOCK) $ENTRY(const OptimizerTensor<$REAL>* tensors,
    const OptimizerChunk* chunks, int num_chunks, const $REAL* clip_scale, double lr, double beta1,
    double beta2, double eps, double weight_decay, double bias_correction1,
    double bias_correction2) {
  adam_multi_tensor<$REAL, $COMPLEX, $DECOUPLED, $CHUNK>(tensors, chunks, num_chunks, clip_scale,
      lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2);
}
)";
  return {fill(text, values), values["$ENTRY"]};
}

// The tables as optimizer.cuh lays them out.
struct TensorEntry {
  void* param;
  void* grad;
  void* m;
  void* v;
  int64_t count;
};
static_assert(sizeof(TensorEntry) == 40, "OptimizerTensor<T> is 40 bytes");
struct ChunkEntry {
  int32_t tensor;
  int32_t chunk;
};

/// One buffer of the step (param, grad, m or v) holding every tensor: where
/// each starts, and the values (of the stored precision) as doubles.
struct Arena {
  int width = 1;  // scalars per element
  std::vector<int64_t> offsets;
  std::vector<double> values;
  std::vector<bool> inside;  // scalar belongs to a tensor (else a gap the kernel must not touch)
};

Arena arrange(int width, Layout layout, bool skewed, size_t bytes, std::mt19937_64& rng, double low,
              double high) {
  Arena arena;
  arena.width = width;
  const int64_t per_pack = int64_t(16 / bytes);
  int64_t at = 0;
  for (int64_t count : kCounts) {
    if (layout != Layout::kPacked)
      at = (at + per_pack - 1) / per_pack * per_pack + (skewed ? 1 : 0);
    arena.offsets.push_back(at);
    at += count * width + (layout == Layout::kPacked ? 0 : per_pack);
  }
  std::uniform_real_distribution<double> uniform(low, high);
  arena.values.resize(at);
  arena.inside.assign(at, false);
  for (double& x : arena.values) x = uniform(rng);
  for (size_t t = 0; t < kCounts.size(); ++t)
    std::fill_n(arena.inside.begin() + arena.offsets[t], kCounts[t] * width, true);
  return arena;
}

double round_to(DType dtype, double x) { return single(dtype) ? double(float(x)) : x; }

void round_all(DType dtype, Arena& arena) {
  for (double& x : arena.values) x = round_to(dtype, x);
}

std::unique_ptr<Buffer> upload(DType dtype, const Arena& arena) {
  if (single(dtype))
    return std::make_unique<Buffer>(std::vector<float>(arena.values.begin(), arena.values.end()));
  return std::make_unique<Buffer>(arena.values);
}

std::vector<double> download(DType dtype, const Buffer& buffer) {
  if (single(dtype)) {
    std::vector<float> values = buffer.read<float>();
    return std::vector<double>(values.begin(), values.end());
  }
  return buffer.read<double>();
}

struct Hyper {
  double lr = 0, momentum = 0, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0, clip = 1;
};

/// Element e of tensor i of `arena` as a complex number (imaginary part 0 for reals).
std::complex<double> element(const Arena& arena, size_t i, int64_t e) {
  const double* x = arena.values.data() + arena.offsets[i] + e * arena.width;
  return arena.width == 2 ? std::complex<double>(x[0], x[1]) : std::complex<double>(x[0]);
}

void store(Arena& arena, size_t i, int64_t e, std::complex<double> z) {
  double* x = arena.values.data() + arena.offsets[i] + e * arena.width;
  x[0] = z.real();
  if (arena.width == 2) x[1] = z.imag();
}

/// The dialect's sgd_step / adam_step on every element, in double.
void reference_step(Kind kind, const Hyper& h, int64_t t, Arena& p, const Arena& g, Arena& m,
                    Arena& v) {
  using Complex = std::complex<double>;
  const double correction1 = 1 - std::pow(h.beta1, double(t));
  const double correction2 = 1 - std::pow(h.beta2, double(t));
  for (size_t i = 0; i < kCounts.size(); ++i)
    for (int64_t e = 0; e < kCounts[i]; ++e) {
      Complex param = element(p, i, e), grad = element(g, i, e) * h.clip;
      if (is_sgd(kind)) {
        grad += h.weight_decay * param;
        Complex velocity = kind == Kind::kSgd ? grad : h.momentum * element(m, i, e) + grad;
        Complex update = kind == Kind::kNesterov ? grad + h.momentum * velocity : velocity;
        store(p, i, e, param - h.lr * update);
        if (kind != Kind::kSgd) store(m, i, e, velocity);
        continue;
      }
      Complex weight = param;
      if (kind == Kind::kAdamW)
        weight *= 1 - h.lr * h.weight_decay;
      else
        grad += h.weight_decay * param;
      Complex first = h.beta1 * element(m, i, e) + (1 - h.beta1) * grad;
      double second = h.beta2 * element(v, i, e).real() + (1 - h.beta2) * std::norm(grad);
      store(p, i, e,
            weight - h.lr * (first / correction1) / (std::sqrt(second / correction2) + h.eps));
      store(m, i, e, first);
      store(v, i, e, second);
    }
}

/// max |got - want| / max |want| over the tensors of the arena; the gaps
/// between them must be untouched (any change there counts as error 1).
double arena_error(const Arena& want, const std::vector<double>& got) {
  double error = 0, scale = 1e-300;
  for (size_t k = 0; k < got.size(); ++k) {
    if (want.inside[k]) {
      error = std::max(error, std::abs(got[k] - want.values[k]));
      scale = std::max(scale, std::abs(want.values[k]));
    } else if (got[k] != want.values[k]) {
      return 1;
    }
  }
  return error / scale;
}

struct Case {
  Kind kind;
  DType dtype;
  Layout layout;
  int steps;
  int64_t first_step;  // t of the first step (1-based)
  bool clip;
  double weight_decay;
  double eps;           // Adam's; a large one makes its placement visible
  uint32_t max_blocks;  // 0: one block per chunk; else fewer blocks loop over the chunks
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const char* layouts[] = {"aligned", "packed", "skewed"};
  std::string name = name_of(c.kind) + "_" + name_of(c.dtype) + "_" + layouts[int(c.layout)] + "_" +
                     std::to_string(c.steps) + "steps_t" + std::to_string(c.first_step);
  if (c.clip) name += "_clip";
  if (c.weight_decay != 0) name += "_decay";
  if (!is_sgd(c.kind) && c.eps > 1e-6) name += "_large_eps";
  if (c.max_blocks) name += "_" + std::to_string(c.max_blocks) + "blocks";
  return name;
}

class Optimizer : public ::testing::TestWithParam<Case> {};

TEST_P(Optimizer, MatchesDoubleReference) {
  const Case& c = GetParam();
  const bool sgd = is_sgd(c.kind);
  const int width = is_complex(c.dtype) ? 2 : 1;
  const size_t bytes = scalar_bytes(c.dtype);
  std::mt19937_64 rng(uint64_t(c.kind) * 131 + uint64_t(c.dtype) * 17 + uint64_t(c.layout));
  const bool skew_grads = c.layout == Layout::kSkewed;
  Arena p = arrange(width, c.layout, false, bytes, rng, -1, 1);
  Arena g = arrange(width, c.layout, skew_grads, bytes, rng, -1, 1);
  Arena m = arrange(width, c.layout, false, bytes, rng, -0.1, 0.1);
  Arena v = arrange(1, c.layout, false, bytes, rng, 0, 0.01);
  for (Arena* a : {&p, &g, &m, &v}) round_all(c.dtype, *a);
  const bool uses_m = c.kind != Kind::kSgd, uses_v = !sgd;

  Hyper h;
  h.lr = sgd ? 0.05 : 1e-2;
  h.momentum = c.kind == Kind::kSgd ? 0.0 : 0.9;
  h.weight_decay = c.weight_decay;
  h.eps = c.eps;
  h.clip = c.clip ? round_to(c.dtype, 0.37) : 1.0;

  std::unique_ptr<Buffer> pb = upload(c.dtype, p), gb = upload(c.dtype, g), mb = upload(c.dtype, m),
                          vb = upload(c.dtype, v);
  std::unique_ptr<Buffer> clip = upload(c.dtype, Arena{1, {}, {h.clip}, {}});
  auto address = [&](Buffer& b, const Arena& a, size_t i) -> void* {
    return static_cast<char*>(b.get()) + a.offsets[i] * bytes;
  };
  std::vector<TensorEntry> entries;
  std::vector<ChunkEntry> chunk_list;  // ceil(count / kChunk) per tensor
  for (size_t i = 0; i < kCounts.size(); ++i) {
    entries.push_back({address(*pb, p, i), address(*gb, g, i),
                       uses_m ? address(*mb, m, i) : nullptr, uses_v ? address(*vb, v, i) : nullptr,
                       kCounts[i]});
    for (int64_t k = 0; k * kChunk < kCounts[i]; ++k)
      chunk_list.push_back({int32_t(i), int32_t(k)});
  }
  std::shuffle(chunk_list.begin(), chunk_list.end(), rng);  // any order will do
  auto tensors = std::make_unique<Buffer>(entries);
  Buffer chunks(chunk_list);
  int num_chunks = int(chunk_list.size());
  uint32_t blocks = c.max_blocks ? std::min<uint32_t>(c.max_blocks, num_chunks) : num_chunks;
  void* clip_scale = c.clip ? clip->get() : nullptr;
  const KernelSource unit = optimizer_unit(c.kind, c.dtype);

  for (int s = 0; s < c.steps; ++s) {
    if (s > 0) {  // a fresh gradient every step
      g = arrange(width, c.layout, skew_grads, bytes, rng, -1, 1);
      round_all(c.dtype, g);
      gb = upload(c.dtype, g);
      for (size_t i = 0; i < kCounts.size(); ++i) entries[i].grad = address(*gb, g, i);
      tensors = std::make_unique<Buffer>(entries);
    }
    const int64_t t = c.first_step + s;
    if (sgd) {
      launch(unit, {blocks, 1, 1}, {kBlock, 1, 1}, 0,
             {&tensors->get(), &chunks.get(), &num_chunks, &clip_scale, &h.lr, &h.momentum,
              &h.weight_decay});
    } else {
      double correction1 = 1 - std::pow(h.beta1, double(t));
      double correction2 = 1 - std::pow(h.beta2, double(t));
      launch(unit, {blocks, 1, 1}, {kBlock, 1, 1}, 0,
             {&tensors->get(), &chunks.get(), &num_chunks, &clip_scale, &h.lr, &h.beta1, &h.beta2,
              &h.eps, &h.weight_decay, &correction1, &correction2});
    }
    if (HasFatalFailure()) return;
    // The step in double from the same stored inputs; the kernel's results
    // are then the next step's inputs, so every step is checked on its own.
    reference_step(c.kind, h, t, p, g, m, v);
    const double tolerance = single(c.dtype) ? 1e-6 : 1e-14;
    auto check = [&](Arena& want, const Buffer& buffer, bool updated, const char* what) {
      std::vector<double> got = download(c.dtype, buffer);
      double error = arena_error(want, got);
      if (updated)
        EXPECT_LT(error, tolerance) << what << " after step t=" << t;
      else
        EXPECT_EQ(error, 0.0) << what << " must be untouched (step t=" << t << ")";
      want.values = std::move(got);
    };
    check(p, *pb, true, "param");
    check(g, *gb, false, "grad");
    check(m, *mb, uses_m, sgd ? "velocity" : "m");
    check(v, *vb, uses_v, "v");
    if (HasFailure()) return;
  }
}

std::vector<Case> optimizer_cases() {
  std::vector<Case> cases;
  for (DType dtype : {DType::kF32, DType::kF64, DType::kC64, DType::kC128})
    for (Kind kind : {Kind::kSgd, Kind::kMomentum, Kind::kNesterov, Kind::kAdam, Kind::kAdamW}) {
      cases.push_back({kind, dtype, Layout::kAligned, 10, 1, true, 0.05, 1e-8, 0});
      cases.push_back({kind, dtype, Layout::kPacked, 2, 1, false, 0.05, 1e-3, 3});
      cases.push_back({kind, dtype, Layout::kSkewed, 1, 1000, true, 0.0, 1e-8, 0});
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Steps, Optimizer, ::testing::ValuesIn(optimizer_cases()), case_name);

class OptimizerNvrtc : public ::testing::TestWithParam<std::string> {};

/// Every unit builds CUBIN for real GPUs with no spills, and its packed path
/// moves 16 bytes per load and store.
TEST_P(OptimizerNvrtc, CompilesToCubinWithoutSpills) {
  NvrtcOptions options;
  options.arch = GetParam();
  options.want_ptx = true;
  for (DType dtype : {DType::kF32, DType::kF64, DType::kC64, DType::kC128})
    for (Kind kind : {Kind::kSgd, Kind::kMomentum, Kind::kNesterov, Kind::kAdam, Kind::kAdamW}) {
      KernelSource unit = optimizer_unit(kind, dtype);
      std::optional<CompiledKernel> compiled = expect_clean_cubin(unit, options);
      if (!compiled) continue;
      const std::string wide = single(dtype) ? ".v4.f32" : ".v2.f64";
      EXPECT_NE(compiled->ptx.find("ld.global" + wide), std::string::npos)
          << unit.entry << " loads no 16-byte packs from global memory";
      EXPECT_NE(compiled->ptx.find("st.global" + wide), std::string::npos)
          << unit.entry << " stores no 16-byte packs to global memory";
    }
}

INSTANTIATE_TEST_SUITE_P(Archs, OptimizerNvrtc, ::testing::Values("sm_80", "sm_90"));

}  // namespace
}  // namespace spectral::testing
