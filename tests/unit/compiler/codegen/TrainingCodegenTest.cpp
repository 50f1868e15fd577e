// TrainingCodegenTest.cpp - sgd_step, adam_step and clip_global_norm through
// codegen on the host device, against the reference evaluator.
#include "tests/unit/compiler/codegen/CodegenTestUtil.h"



#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace spectral::testing {
namespace {

/// Every real of `tensor` (f32 or f64) replaced by its absolute value.
void makeNonNegative(HostTensor &tensor) {
  if (tensor.dtype == DType::kFloat32) {
    float *x = reinterpret_cast<float *>(tensor.bytes.data());
    for (int64_t i = 0; i < tensor.elements(); ++i) x[i] = std::fabs(x[i]);
  } else {
    double *x = reinterpret_cast<double *>(tensor.bytes.data());
    for (int64_t i = 0; i < tensor.elements(); ++i) x[i] = std::fabs(x[i]);
  }
}

HostTensor stepTensor(DType dtype, int64_t step) {
  HostTensor t{dtype, {}, std::vector<uint8_t>(dtype == DType::kInt32 ? 4 : 8)};
  if (dtype == DType::kInt32) {
    int32_t value = int32_t(step);
    std::memcpy(t.bytes.data(), &value, 4);
  } else {
    std::memcpy(t.bytes.data(), &step, 8);
  }
  return t;
}

// ---- sgd_step ------------------------------------------------------------------------

std::string sgd(const std::string &type, const std::string &attributes, bool velocityResult) {
  std::string t = "tensor<" + type + ">";
  std::string body = "spectral.sgd_step %p, %g, %v lr 5.0e-02" + attributes + " : " + t;
  if (velocityResult) return graph("%p: " + t + ", %g: " + t + ", %v: " + t, {t, t}, body);
  // Only the new parameter is returned: a plain step needs no velocity.
  return "func.func @main(%p: " + t + ", %g: " + t + ", %v: " + t + ") -> " + t +
         " {\n  %r:2 = " + body + "\n  return %r#0 : " + t + "\n}\n";
}

TEST(TrainingCodegen, SgdPlain) {
  EXPECT_EQ(expectMatchesReference(sgd("64x33xf32", "", false)), 1);
  expectMatchesReference(sgd("17xcomplex<f64>", " weight_decay 1.0e-01", false));
  expectMatchesReference(sgd("5x5xf64", "", true)); // momentum 0, the velocity returned
}

TEST(TrainingCodegen, SgdMomentumNesterovAndWeightDecay) {
  expectMatchesReference(sgd("4097xf32", " momentum 9.0e-01", true));
  expectMatchesReference(sgd("3x100xf64", " momentum 9.0e-01 weight_decay 1.0e-02", true));
  expectMatchesReference(sgd("300xcomplex<f32>", " momentum 9.0e-01 nesterov", true));
  expectMatchesReference(
      sgd("8x8xcomplex<f64>", " momentum 5.0e-01 weight_decay 1.0e-01 nesterov", true));
}

// ---- adam_step -----------------------------------------------------------------------

/// adam_step on param PARAM (its real counterpart REAL for v) and step STEP.
std::string adam(const std::string &param, const std::string &real, const std::string &step,
                 const std::string &attributes) {
  std::string p = "tensor<" + param + ">", v = "tensor<" + real + ">", s = "tensor<" + step + ">";
  return graph("%p: " + p + ", %g: " + p + ", %m: " + p + ", %v: " + v + ", %t: " + s, {p, p, v},
               "spectral.adam_step %p, %g, %m, %v, %t lr 1.0e-02" + attributes + " : " + p + ", " +
                   v + ", " + s);
}

void expectAdam(const std::string &source, int64_t step) {
  std::vector<HostTensor> inputs = randomInputs(source);
  makeNonNegative(inputs[3]); // v is a mean of squares
  inputs[4] = stepTensor(inputs[4].dtype, step);
  EXPECT_EQ(expectMatchesReference(source, inputs), 1) << "at step " << step;
}

TEST(TrainingCodegen, AdamAtSteps1And10) {
  for (int64_t step : {1, 10}) {
    expectAdam(adam("64x33xf32", "64x33xf32", "i64", ""), step);
    expectAdam(adam("100xcomplex<f64>", "100xf64", "i32", " weight_decay 1.0e-01"), step);
  }
  expectAdam(adam("4100xf64", "4100xf64", "i64", " beta1 8.0e-01 beta2 9.9e-01 eps 1.0e-03"), 3);
}

TEST(TrainingCodegen, AdamWDecouplesTheWeightDecay) {
  for (int64_t step : {1, 10}) {
    expectAdam(adam("3x50xcomplex<f32>", "3x50xf32", "i64", " weight_decay 1.0e-01 decoupled"),
               step);
    expectAdam(adam("77xf64", "77xf64", "i32", " weight_decay 5.0e-02 decoupled"), step);
  }
}

TEST(TrainingCodegen, AdamStepBelowOneFailsTheRun) {
  std::string source = adam("8xf32", "8xf32", "i64", "");
  std::vector<HostTensor> inputs = randomInputs(source);
  inputs[4] = stepTensor(DType::kInt64, 0);
  std::string error = runError(source, inputs);
  EXPECT_NE(error.find("spectral.adam_step"), std::string::npos) << error;
  EXPECT_NE(error.find("step must be >= 1"), std::string::npos) << error;
}

// ---- clip_global_norm ----------------------------------------------------------------

/// clip_global_norm of tensors of `types` with `maxNorm`; returns them and the norm.
std::string clip(const std::vector<std::string> &types, const std::string &real,
                 const std::string &maxNorm) {
  std::string args, operands, operandTypes;
  std::vector<std::string> results;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string t = "tensor<" + types[i] + ">";
    args += (i ? ", %x" : "%x") + std::to_string(i) + ": " + t;
    operands += (i ? ", %x" : "%x") + std::to_string(i);
    operandTypes += (i ? ", " : "") + t;
    results.push_back(t);
  }
  results.push_back("tensor<" + real + ">");
  return graph(args, results,
               "spectral.clip_global_norm " + operands + " max_norm " + maxNorm + " : " +
                   operandTypes);
}

TEST(TrainingCodegen, ClipGlobalNormAboveAndBelowMaxNorm) {
  // Norms of about 21 (4096 + 2 x 128 values of mean square 1/3, and 1/3 + 1/3).
  for (const char *maxNorm : {"1.0", "1.0e+03"}) {
    // Up to 2^14 values: one block, one launch; beyond: partial sums, the
    // norm and scale, the scaling.
    EXPECT_EQ(expectMatchesReference(clip({"64x64xf32", "128xcomplex<f32>"}, "f32", maxNorm)), 1);
    EXPECT_EQ(expectMatchesReference(clip({"300x300xf32", "128xcomplex<f32>"}, "f32", maxNorm)), 3);
    expectMatchesReference(clip({"7xf64", "3x3xcomplex<f64>", "5000xf64"}, "f64", maxNorm));
  }
  expectMatchesReference(clip({"10xf32"}, "f32", "5.0e-01"));
  // Many tensors (the units are named by a digest of their types).
  std::vector<std::string> many(15, "2x3xf64");
  many[7] = "4xcomplex<f64>";
  expectMatchesReference(clip(many, "f64", "1.0"));
}

// The clip's reductions over a block are phased on the host (block_sum,
// block_barrier, block_threads): the bytes the block's threads give, in the
// one-block form and in the partial sums and the norm of the three-launch one.
TEST(TrainingCodegen, ClipPhasedMatchesFibers) {
  // Max norms below the norms (about 41 and 153): the f64 results carry the
  // norm's bits in their scale.
  expectPhasedMatchesFibers({clip({"64x64xf32", "128xcomplex<f32>"}, "f32", "1.0"),
                             clip({"7xf64", "3x3xcomplex<f64>", "5000xf64"}, "f64", "1.0")});
  expectPhasedMatchesFibers({clip({"300x300xf32", "128xcomplex<f32>"}, "f32", "1.0"),
                             clip({"70000xf64", "3xf64"}, "f64", "1.0")},
                            2);
}

// ---- The GPU gate --------------------------------------------------------------------

// ---- fused gradients -------------------------------------------------------------------

/// sgd_step whose gradient is g * s (s a clip scale, one element), computed
/// in the step's loads.
std::string sgdOfScaledGradient(const std::string &type) {
  std::string t = "tensor<" + type + ">", s = "tensor<1xf32>";
  if (type.find("f64") != std::string::npos) s = "tensor<1xf64>";
  std::string c = type.find("complex") != std::string::npos ? "tensor<1x" + type.substr(type.find("complex")) + ">" : s;
  return fusion({t, t, t, s}, {t, t},
                "    %k = spectral.cast %d : " + s + " to " + c + "\n"
                "    %g = spectral.mul %b, %k : " + t + ", " + c + "\n"
                "    %np, %nv = spectral.sgd_step %a, %g, %c lr 1.0e-01 momentum 9.0e-01 : " + t + "\n"
                "    spectral.yield %np, %nv : " + t + ", " + t);
}

/// adam_step whose gradient is assembled from its parts.
std::string adamOfAssembledGradient(const std::string &real, const std::string &complex) {
  std::string r = "tensor<" + real + ">", z = "tensor<" + complex + ">", t = "tensor<i64>";
  return fusion({z, r, r, z, r, t}, {z, z, r},
                "    %z = spectral.complex %b, %c : " + r + ", " + r + "\n"
                "    %np, %nm, %nv = spectral.adam_step %a, %z, %d, %e, %f lr 1.0e-02 weight_decay 1.0e-02 "
                "decoupled : " + z + ", " + r + ", " + t + "\n"
                "    spectral.yield %np, %nm, %nv : " + z + ", " + z + ", " + r);
}

TEST(FusedTraining, GradientsComputedInTheStepsLoads) {
  EXPECT_EQ(expectMatchesReference(sgdOfScaledGradient("64x33xf32")), 1);
  EXPECT_EQ(expectMatchesReference(sgdOfScaledGradient("5x7xcomplex<f64>")), 1);
  for (auto [real, complex] : {std::pair{"40x3xf32", "40x3xcomplex<f32>"},
                               std::pair{"9xf64", "9xcomplex<f64>"}}) {
    std::string source = adamOfAssembledGradient(real, complex);
    std::vector<HostTensor> inputs = randomInputs(source);
    makeNonNegative(inputs[4]);
    inputs[5] = stepTensor(DType::kInt64, 3);
    EXPECT_EQ(expectMatchesReference(source, inputs), 1) << real;
  }
  // Zero state and the first step as constants: read from constant buffers.
  std::string zero = "tensor<8xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({zero, zero}, {zero},
                                          "    %z = spectral.constant dense<0.0> : " + zero + "\n"
                                          "    %t = spectral.constant dense<1> : tensor<i64>\n"
                                          "    %g = spectral.neg %b : " + zero + "\n"
                                          "    %np, %nm, %nv = spectral.adam_step %a, %g, %z, %z, %t lr 1.0e-02 : " +
                                              zero + ", " + zero + ", tensor<i64>\n"
                                          "    spectral.yield %np : " + zero)),
            1);
  // A computed param (not the gradient) goes op by op.
  std::string t = "tensor<8xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({t, t}, {t},
                                          "    %n = spectral.neg %a : " + t + "\n"
                                          "    %np, %nv = spectral.sgd_step %n, %b, %b lr 1.0e-01 : " + t + "\n"
                                          "    spectral.yield %np : " + t)),
            2);
}

/// Three adam_steps (AdamW) of one step counter, or two SGD steps with
/// momentum, in one region: one launch updates every tensor.
std::string threeAdamSteps() {
  std::string a = "tensor<64x33xf32>", b = "tensor<5000xf32>", c = "tensor<7xf32>",
              t = "tensor<i64>";
  auto step = [&](const std::string &name, const std::string &type, const std::string &p,
                  const std::string &g) {
    return "    %" + name + "p, %" + name + "m, %" + name + "v = spectral.adam_step " + p + ", " +
           g + ", " + g + ", " + g + ", %g lr 1.0e-02 weight_decay 1.0e-02 decoupled : " + type +
           ", " + type + ", " + t + "\n";
  };
  return fusion({a, a, b, b, c, c, t}, {a, a, b, c, c},
                step("x", a, "%a", "%b") + step("y", b, "%c", "%d") + step("z", c, "%e", "%f") +
                    "    spectral.yield %xp, %xv, %yp, %zp, %zm : " + a + ", " + a + ", " + b +
                    ", " + c + ", " + c);
}

std::string twoSgdSteps(const std::string &element) {
  std::string a = "tensor<3x5x" + element + ">", b = "tensor<300x" + element + ">";
  return fusion({a, a, b, b}, {a, a, b},
                "    %xp, %xv = spectral.sgd_step %a, %b, %b lr 1.0e-01 momentum 9.0e-01 nesterov : " + a + "\n"
                "    %yp, %yv = spectral.sgd_step %c, %d, %d lr 1.0e-01 momentum 9.0e-01 nesterov : " + b + "\n"
                "    spectral.yield %xp, %xv, %yp : " + a + ", " + a + ", " + b);
}

TEST(FusedTraining, EveryParameterUpdatedInOneLaunch) {
  std::string source = threeAdamSteps();
  std::vector<HostTensor> inputs = randomInputs(source);
  for (int k : {1, 3, 5}) makeNonNegative(inputs[k]);  // v is read from the gradient slot
  inputs[6] = stepTensor(DType::kInt64, 4);
  EXPECT_EQ(expectMatchesReference(source, inputs), 1);
  inputs[6] = stepTensor(DType::kInt64, 0);  // a bad step still names the ops
  EXPECT_NE(runError(source, inputs).find("step must be >= 1"), std::string::npos);
  EXPECT_EQ(expectMatchesReference(twoSgdSteps("f32")), 1);
  EXPECT_EQ(expectMatchesReference(twoSgdSteps("complex<f64>")), 1);
  // Different learning rates: a launch each.
  std::string t = "tensor<8xf32>";
  EXPECT_EQ(expectMatchesReference(fusion({t, t}, {t, t},
                                          "    %xp, %xv = spectral.sgd_step %a, %b, %b lr 1.0e-01 : " + t + "\n"
                                          "    %yp, %yv = spectral.sgd_step %a, %b, %b lr 2.0e-01 : " + t + "\n"
                                          "    spectral.yield %xp, %yp : " + t + ", " + t)),
            2);
}

class TrainingNvrtc : public ::testing::TestWithParam<std::string> {};

/// Every unit of these programs compiles with NVRTC to CUBIN without spills.
TEST_P(TrainingNvrtc, EveryKindOfUnitCompilesWithoutSpills) {
  std::map<std::string, CompiledKernel> compiled = expectCleanCubins(
      {sgd("64x33xf32", "", false), sgd("8x8xcomplex<f64>", " momentum 5.0e-01 nesterov", true),
       adam("64x33xf32", "64x33xf32", "i64", ""),
       adam("3x50xcomplex<f32>", "3x50xf32", "i32", " weight_decay 1.0e-01 decoupled"),
       clip({"64x64xf32", "128xcomplex<f32>"}, "f32", "1.0"),
       clip({"300x300xf32", "128xcomplex<f32>"}, "f32", "1.0"),
       clip({"7xf64", "3x3xcomplex<f64>"}, "f64", "1.0"), sgdOfScaledGradient("64x33xf32"),
       adamOfAssembledGradient("40x3xf32", "40x3xcomplex<f32>"), threeAdamSteps(),
       twoSgdSteps("complex<f64>")},
      GetParam());
  EXPECT_EQ(compiled.size(), 13u);  // clip: one unit up to 2^14 values, three beyond
  EXPECT_EQ(fusedUnits(compiled), 2);
  // The optimizer steps move 16-byte packs (inputs through the read-only path).
  for (const auto &[entry, kernel] : compiled) {
    if (entry.rfind("sgd", 0) != 0 && entry.rfind("adam", 0) != 0) continue;
    if (entry.find("_Lpro") != std::string::npos) continue;  // computed gradients: per element
    if (entry.find("tensors_") != std::string::npos) continue;   // pointers picked per block row
    bool single = entry.find("_f32_") != std::string::npos || entry.find("_c64_") != std::string::npos;
    std::string wide = single ? ".v4.f32" : ".v2.f64";
    EXPECT_NE(kernel.ptx.find("ld.global.nc" + wide), std::string::npos) << entry;
    EXPECT_NE(kernel.ptx.find("st.global" + wide), std::string::npos) << entry;
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, TrainingNvrtc, ::testing::Values("sm_80", "sm_90"));

} // namespace
} // namespace spectral::testing
