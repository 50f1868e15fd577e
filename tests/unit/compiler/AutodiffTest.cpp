//===- AutodiffTest.cpp - every gradient rule against finite differences --===//
//
// Each case is a loss function of float64 (and complex<f64>) arguments: one
// op (or a few) and a random linear functional of its result. spectral-autodiff
// adds @main_grad; the reference evaluator runs it, and every element of every
// gradient (real and imaginary parts) is compared with the central finite
// difference of @main, evaluated by the same reference evaluator.
//
//===----------------------------------------------------------------------===//
#include "compiler/Autodiff/Passes.h"
#include "compiler/Reference/Evaluator.h"
#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <string>

namespace spectral {
namespace {

using reference::ElementKind;
using reference::Tensor;

mlir::MLIRContext &context() {
  static mlir::MLIRContext *shared = [] {
    mlir::DialectRegistry registry;
    registry.insert<mlir::spectral::SpectralDialect, mlir::func::FuncDialect>();
    auto *c = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *shared;
}

/// Parses `source`, differentiates @main with respect to `wrt` (all float
/// arguments when empty) into @main_grad; the diagnostics on failure.
struct Differentiated {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp forward, grad;
  std::string diagnostics;
};

Differentiated differentiateSource(const std::string &source, std::vector<unsigned> wrt = {}) {
  Differentiated d;
  mlir::ScopedDiagnosticHandler handler(&context(), [&](mlir::Diagnostic &diagnostic) {
    llvm::raw_string_ostream os(d.diagnostics);
    os << diagnostic.getLocation() << ": " << diagnostic << "\n";
    return mlir::success();
  });
  d.module = mlir::parseSourceString<mlir::ModuleOp>(source, &context(), "test.mlir");
  if (!d.module) return d;
  d.forward = d.module->lookupSymbol<mlir::func::FuncOp>("main");
  mlir::FailureOr<mlir::func::FuncOp> grad = differentiate(d.forward, wrt, "main_grad");
  if (succeeded(grad)) d.grad = *grad;
  return d;
}

/// Random arguments for `function`: floats in [low, high) (both parts of a
/// complex), integers in [0, intBound), booleans either way.
std::vector<Tensor> randomInputs(mlir::func::FuncOp function, unsigned seed, double low,
                                 double high, int64_t intBound) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> real(low, high);
  std::vector<Tensor> inputs;
  for (mlir::Type type : function.getArgumentTypes()) {
    auto tensor = mlir::cast<mlir::RankedTensorType>(type);
    Tensor t;
    t.kind = *reference::elementKindOf(tensor.getElementType());
    t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
      if (t.kind == ElementKind::I1)
        t.data.emplace_back(double(random() % 2));
      else if (reference::isIntegerKind(t.kind))
        t.data.emplace_back(double(int64_t(random() % uint64_t(intBound))));
      else if (reference::isComplexKind(t.kind))
        t.data.emplace_back(real(random), real(random));
      else
        t.data.emplace_back(real(random));
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

double lossAt(mlir::func::FuncOp forward, const std::vector<Tensor> &inputs) {
  llvm::Expected<std::vector<Tensor>> results = reference::evaluate(forward, inputs);
  if (!results) {
    ADD_FAILURE() << llvm::toString(results.takeError());
    return NAN;
  }
  return (*results)[0].data[0].real();
}

struct Options {
  double low = -1, high = 1;  // the range of float inputs
  int64_t intBound = 4;       // integers (labels) in [0, intBound)
  double tolerance = 1e-6;    // |autodiff - finite difference| <= tolerance * max(1, |fd|)
};

/// Checks every gradient of @main_grad against central differences of @main.
void expectGradients(const std::string &source, Options options = {}) {
  Differentiated d = differentiateSource(source);
  ASSERT_TRUE(d.grad) << d.diagnostics << source;
  for (unsigned seed : {1u, 2u}) {
    std::vector<Tensor> inputs =
        randomInputs(d.forward, seed, options.low, options.high, options.intBound);
    llvm::Expected<std::vector<Tensor>> results = reference::evaluate(d.grad, inputs);
    ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
    EXPECT_NEAR((*results)[0].data[0].real(), lossAt(d.forward, inputs), 1e-12);
    size_t next = 1;  // the gradients follow the loss, one per float argument
    for (size_t a = 0; a < inputs.size(); ++a) {
      if (reference::isIntegerKind(inputs[a].kind) || inputs[a].kind == ElementKind::I1) continue;
      const Tensor &grad = (*results)[next++];
      ASSERT_EQ(grad.shape, inputs[a].shape);
      const bool complex = reference::isComplexKind(inputs[a].kind);
      for (int64_t e = 0; e < inputs[a].size(); ++e) {
        for (int part = 0; part < (complex ? 2 : 1); ++part) {
          const double h = 1e-6;
          const std::complex<double> step = part ? std::complex<double>(0, h) : h;
          std::vector<Tensor> plus = inputs, minus = inputs;
          plus[a].data[e] += step;
          minus[a].data[e] -= step;
          const double fd = (lossAt(d.forward, plus) - lossAt(d.forward, minus)) / (2 * h);
          const double ad = part ? grad.data[e].imag() : grad.data[e].real();
          ASSERT_NEAR(ad, fd, options.tolerance * std::max(1.0, std::abs(fd)))
              << "argument #" << a << " element " << e << (part ? " (imaginary part)" : "")
              << ", seed " << seed << "\n"
              << source;
        }
      }
    }
  }
}

/// A loss of `body` (which defines %y of `type`, rank `rank`, from the
/// arguments `args`): sum(real(y * r)) for an extra argument %r.
std::string lossOf(const std::string &args, const std::string &body, const std::string &type,
                   int rank) {
  const size_t complexAt = type.find("complex<f64>");
  std::string real = type;
  if (complexAt != std::string::npos) real.replace(complexAt, 12, "f64");
  std::string axes;
  for (int i = 0; i < rank; ++i) axes += (i ? ", " : "") + std::to_string(i);
  std::string text = "func.func @main(" + args + ", %r: " + type + ") -> tensor<f64> {\n" + body +
                     "\n  %p = spectral.mul %y, %r : " + type + ", " + type + "\n";
  std::string q = "%p";
  if (complexAt != std::string::npos) {
    text += "  %q = spectral.real %p : " + type + "\n";
    q = "%q";
  }
  if (rank > 0) {
    text += "  %loss = spectral.reduce_sum " + q + " axes [" + axes + "] : " + real + "\n";
    q = "%loss";
  }
  return text + "  return " + q + " : tensor<f64>\n}\n";
}

TEST(Autodiff, UnaryRules) {
  const std::string t = "tensor<3x4xf64>", c = "tensor<3x4xcomplex<f64>>";
  for (const char *op : {"neg", "exp", "tanh", "relu", "gelu", "sigmoid"})
    expectGradients(lossOf("%x: " + t, std::string("  %y = spectral.") + op + " %x : " + t, t, 2));
  for (const char *op : {"log", "sqrt"})
    expectGradients(lossOf("%x: " + t, std::string("  %y = spectral.") + op + " %x : " + t, t, 2),
                    {0.5, 1.5});
  expectGradients(lossOf("%x: " + t, "  %y = spectral.abs %x : " + t, t, 2));
  for (const char *op : {"neg", "exp", "tanh", "conj"})
    expectGradients(lossOf("%x: " + c, std::string("  %y = spectral.") + op + " %x : " + c, c, 2));
  for (const char *op : {"log", "sqrt"})  // right half plane: away from the branch cut
    expectGradients(lossOf("%x: " + c, std::string("  %y = spectral.") + op + " %x : " + c, c, 2),
                    {0.5, 1.5});
  for (const char *op : {"abs", "real", "imag"})
    expectGradients(lossOf("%x: " + c, std::string("  %y = spectral.") + op + " %x : " + c, t, 2));
}

TEST(Autodiff, BinaryRulesWithBroadcasting) {
  const std::string t = "tensor<3x4xf64>", c = "tensor<3x4xcomplex<f64>>";
  for (const char *op : {"add", "sub", "mul", "div"}) {
    expectGradients(lossOf("%a: tensor<3x4xf64>, %b: tensor<4xf64>",
                           std::string("  %y = spectral.") + op +
                               " %a, %b : tensor<3x4xf64>, tensor<4xf64>",
                           t, 2),
                    {0.5, 1.5});
    expectGradients(lossOf("%a: tensor<3x1xcomplex<f64>>, %b: tensor<1x4xcomplex<f64>>",
                           std::string("  %y = spectral.") + op +
                               " %a, %b : tensor<3x1xcomplex<f64>>, tensor<1x4xcomplex<f64>>",
                           c, 2),
                    {0.5, 1.5});
  }
  expectGradients(lossOf("%a: tensor<3x4xf64>, %b: tensor<4xf64>",
                         "  %y = spectral.complex %a, %b : tensor<3x4xf64>, tensor<4xf64>", c, 2));
  // A value used twice: its gradients add.
  expectGradients(lossOf("%a: " + t, "  %y = spectral.mul %a, %a : " + t + ", " + t, t, 2));
  expectGradients(lossOf("%a: " + t + ", %b: " + t + ", %k: tensor<3x4xi1>",
                         "  %y = spectral.select %k, %a, %b : tensor<3x4xi1>, " + t + ", " + t, t,
                         2));
  expectGradients(lossOf("%a: " + t,
                         "  %y = spectral.cast %a : " + t + " to " + c, c, 2));
}

TEST(Autodiff, TransformRules) {
  const std::string c = "tensor<4x6xcomplex<f64>>";
  for (const char *norm : {"", " norm ortho", " norm forward"}) {
    for (const char *op : {"fft", "ifft"}) {
      expectGradients(lossOf("%x: " + c,
                             std::string("  %y = spectral.") + op + " %x axes [1]" + norm + " : " + c,
                             c, 2));
      expectGradients(lossOf("%x: " + c,
                             std::string("  %y = spectral.") + op + " %x axes [0, 1]" + norm +
                                 " : " + c,
                             c, 2));
    }
    // Even and odd lengths (a Nyquist bin or none), one axis and two.
    for (const char *shape : {"4x6", "4x7"}) {
      const std::string real = std::string("tensor<") + shape + "xf64>";
      const std::string half = "tensor<4x4xcomplex<f64>>";  // 6 / 2 + 1 = 7 / 2 + 1 = 4
      const std::string length = shape[2] == '6' ? "6" : "7";
      for (const char *axes : {"[1]", "[0, 1]"}) {
        expectGradients(lossOf("%x: " + real,
                               std::string("  %y = spectral.rfft %x axes ") + axes + norm + " : " +
                                   real,
                               half, 2));
        expectGradients(lossOf("%x: " + half,
                               std::string("  %y = spectral.irfft %x axes ") + axes + " length " +
                                   length + norm + " : " + half,
                               real, 2));
      }
    }
  }
}

TEST(Autodiff, DctRules) {
  const std::string t = "tensor<4x5xf64>";
  for (const char *op : {"dct", "idct"})
    for (const char *type : {"", " type 3"})
      for (const char *norm : {"", " norm ortho", " norm forward"})
        for (const char *axes : {"[1]", "[0, 1]"})
          expectGradients(lossOf("%x: " + t,
                                 std::string("  %y = spectral.") + op + " %x axes " + axes + type +
                                     norm + " : " + t,
                                 t, 2));
}

TEST(Autodiff, SparseModeRules) {
  // The values of a top-k, per row and flat, real and complex.
  expectGradients(lossOf("%x: tensor<3x6xf64>",
                         "  %y, %i = spectral.topk_modes %x k 2 : tensor<3x6xf64>",
                         "tensor<3x2xf64>", 2));
  expectGradients(lossOf("%x: tensor<3x6xcomplex<f64>>",
                         "  %y, %i = spectral.topk_modes %x k 4 flat : tensor<3x6xcomplex<f64>>",
                         "tensor<4xcomplex<f64>>", 1));
  // Gather with a repeated index and an empty slot; scatter back.
  const std::string indices =
      "  %i = spectral.constant dense<[[0, 2, 2, -1], [5, 1, 0, 3]]> : tensor<2x4xi64>\n";
  expectGradients(lossOf("%x: tensor<2x6xf64>",
                         indices + "  %y = spectral.gather %x[%i] : tensor<2x6xf64>, tensor<2x4xi64>",
                         "tensor<2x4xf64>", 2));
  expectGradients(lossOf("%v: tensor<2x4xcomplex<f64>>",
                         indices + "  %y = spectral.scatter %v, %i : tensor<2x4xcomplex<f64>>, "
                                   "tensor<2x4xi64> -> tensor<2x6xcomplex<f64>>",
                         "tensor<2x6xcomplex<f64>>", 2));
}

TEST(Autodiff, ReductionAndSoftmaxRules) {
  const std::string t = "tensor<3x4xf64>";
  for (const char *op : {"reduce_sum", "reduce_mean", "reduce_max"}) {
    expectGradients(lossOf("%x: " + t, std::string("  %y = spectral.") + op + " %x axes [1] : " + t,
                           "tensor<3xf64>", 1));
    expectGradients(lossOf("%x: " + t,
                           std::string("  %y = spectral.") + op + " %x axes [0] keepdims : " + t,
                           "tensor<1x4xf64>", 2));
  }
  expectGradients(lossOf("%x: tensor<3x4xcomplex<f64>>",
                         "  %y = spectral.reduce_sum %x axes [0, 1] : tensor<3x4xcomplex<f64>>",
                         "tensor<complex<f64>>", 0));
  for (const char *op : {"softmax", "log_softmax"})
    for (const char *axis : {"0", "1"})
      expectGradients(lossOf("%x: " + t,
                             std::string("  %y = spectral.") + op + " %x axis " + axis + " : " + t,
                             t, 2));
}

TEST(Autodiff, ShapeRules) {
  const std::string t = "tensor<3x4xf64>";
  expectGradients(lossOf("%x: " + t, "  %y = spectral.reshape %x : " + t + " -> tensor<2x6xf64>",
                         "tensor<2x6xf64>", 2));
  expectGradients(lossOf("%x: tensor<2x3x4xf64>",
                         "  %y = spectral.transpose %x perm [2, 0, 1] : tensor<2x3x4xf64>",
                         "tensor<4x2x3xf64>", 3));
  expectGradients(lossOf("%x: tensor<1x4xf64>",
                         "  %y = spectral.broadcast %x : tensor<1x4xf64> -> tensor<2x3x4xf64>",
                         "tensor<2x3x4xf64>", 3));
  expectGradients(lossOf("%x: tensor<5x6xf64>",
                         "  %y = spectral.slice %x start [1, 2] limit [4, 5] : tensor<5x6xf64>",
                         "tensor<3x3xf64>", 2));
  expectGradients(lossOf("%x: tensor<5x6xf64>",
                         "  %y = spectral.slice %x start [0, 1] limit [5, 6] stride [2, 3] : "
                         "tensor<5x6xf64>",
                         "tensor<3x2xf64>", 2));
  expectGradients(lossOf("%x: tensor<6x3x8xf64>",
                         "  %y = spectral.slice %x start [1, 0, 2] limit [6, 3, 7] stride [2, 1, 3] "
                         ": tensor<6x3x8xf64>",
                         "tensor<3x3x2xf64>", 3));
  expectGradients(lossOf("%x: tensor<7xcomplex<f64>>",
                         "  %y = spectral.slice %x start [0] limit [7] stride [3] : "
                         "tensor<7xcomplex<f64>>",
                         "tensor<3xcomplex<f64>>", 1));
  expectGradients(lossOf("%x: " + t, "  %y = spectral.pad %x low [1, 0] high [2, 3] : " + t,
                         "tensor<6x7xf64>", 2));
  expectGradients(lossOf("%a: tensor<3x2xf64>, %b: " + t,
                         "  %y = spectral.concat %a, %b axis 1 : tensor<3x2xf64>, " + t,
                         "tensor<3x6xf64>", 2));
}

TEST(Autodiff, ContractionAndLossRules) {
  expectGradients(lossOf("%a: tensor<2x3x4xf64>, %b: tensor<4x5xf64>",
                         "  %y = spectral.matmul %a, %b : tensor<2x3x4xf64>, tensor<4x5xf64>",
                         "tensor<2x3x5xf64>", 3));
  expectGradients(lossOf("%a: tensor<3x4xcomplex<f64>>, %b: tensor<2x4x2xcomplex<f64>>",
                         "  %y = spectral.matmul %a, %b : tensor<3x4xcomplex<f64>>, "
                         "tensor<2x4x2xcomplex<f64>>",
                         "tensor<2x3x2xcomplex<f64>>", 3));
  for (const char *e : {"f64", "complex<f64>"}) {
    const std::string x = std::string("tensor<2x3x5x") + e + ">",
                      w = std::string("tensor<3x4x5x") + e + ">",
                      y = std::string("tensor<2x4x5x") + e + ">";
    expectGradients(lossOf("%x: " + x + ", %w: " + w,
                           "  %y = spectral.channel_mix %x, %w : " + x + ", " + w, y, 3));
  }
  expectGradients("func.func @main(%logits: tensor<3x4xf64>, %labels: tensor<3xi32>) -> "
                  "tensor<f64> {\n"
                  "  %loss = spectral.cross_entropy %logits, %labels : tensor<3x4xf64>, "
                  "tensor<3xi32>\n"
                  "  return %loss : tensor<f64>\n}\n");
  for (const char *e : {"f64", "complex<f64>"})
    expectGradients(std::string("func.func @main(%p: tensor<3x4x") + e + ">, %t: tensor<3x4x" +
                    e + ">) -> tensor<f64> {\n  %loss = spectral.mse %p, %t : tensor<3x4x" + e +
                    ">\n  return %loss : tensor<f64>\n}\n");
}

TEST(Autodiff, ChosenArgumentsAndUnusedOnes) {
  Differentiated d = differentiateSource(
      "func.func @main(%a: tensor<4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>) -> tensor<f64> {\n"
      "  %p = spectral.mul %a, %b : tensor<4xf64>, tensor<4xf64>\n"
      "  %s = spectral.reduce_sum %p axes [0] : tensor<4xf64>\n"
      "  return %s : tensor<f64>\n}\n",
      {2, 0});
  ASSERT_TRUE(d.grad) << d.diagnostics;
  std::vector<Tensor> inputs = randomInputs(d.forward, 3, -1, 1, 1);
  llvm::Expected<std::vector<Tensor>> results = reference::evaluate(d.grad, inputs);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 3u);  // the loss, then d/dc (unused: zeros), then d/da = b
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ((*results)[1].data[i], std::complex<double>(0));
    EXPECT_EQ((*results)[2].data[i], inputs[1].data[i]);
  }
}

TEST(Autodiff, TheLossKeepsItsResultAttributes) {
  Differentiated d = differentiateSource(
      "func.func @main(%x: tensor<4xf64>) -> (tensor<f64> {spectral.name = \"loss\"}) {\n"
      "  %s = spectral.reduce_sum %x axes [0] : tensor<4xf64>\n"
      "  return %s : tensor<f64>\n}\n");
  ASSERT_TRUE(d.grad) << d.diagnostics;
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*d.module)));
  EXPECT_TRUE(d.grad.getResultAttr(0, "spectral.name"));
  EXPECT_FALSE(d.grad.getResultAttr(1, "spectral.name"));
}

TEST(Autodiff, ErrorsNameTheOpOrTheArgument) {
  const std::string sum = "  %s = spectral.reduce_sum %p axes [0] : tensor<4xf64>\n"
                          "  return %s : tensor<f64>\n}\n";
  // An op without a rule (an optimizer step is not differentiable).
  Differentiated optimizer = differentiateSource(
      "func.func @main(%x: tensor<4xf64>) -> tensor<f64> {\n"
      "  %n = spectral.constant dense<1> : tensor<i32>\n"
      "  %p, %m, %v = spectral.adam_step %x, %x, %x, %x, %n lr 0.1 : tensor<4xf64>, "
      "tensor<4xf64>, tensor<i32>\n"
      "  %s = spectral.reduce_sum %p axes [0] : tensor<4xf64>\n"
      "  return %s : tensor<f64>\n}\n");
  EXPECT_FALSE(optimizer.grad);
  EXPECT_NE(optimizer.diagnostics.find("loc(\"test.mlir\":3:16): 'spectral.adam_step' has no "
                                       "gradient rule"),
            std::string::npos)
      << optimizer.diagnostics;
  // Errors that name the argument or the result.
  auto expectError = [&](const std::string &source, std::vector<unsigned> wrt,
                         const std::string &needle) {
    Differentiated d = differentiateSource(source, std::move(wrt));
    EXPECT_FALSE(d.grad);
    EXPECT_NE(d.diagnostics.find(needle), std::string::npos) << d.diagnostics;
  };
  const std::string neg = "  %p = spectral.neg %x : tensor<4xf64>\n" + sum;
  expectError("func.func @main(%x: tensor<4xf64>, %n: tensor<4xi32>) -> tensor<f64> {\n" + neg,
              {1}, "argument #1 ('tensor<4xi32>') is not differentiable");
  expectError("func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {\n"
              "  return %x : tensor<4xf64>\n}\n",
              {},
              "it must return one real scalar (the loss, tensor<f32> or tensor<f64>), it returns "
              "'tensor<4xf64>'");
  expectError("func.func @main(%x: tensor<4xf64>) -> tensor<f64> {\n" + neg, {3},
              "cannot differentiate with respect to argument #3");
  // The module is left as it was.
  EXPECT_FALSE(optimizer.module->lookupSymbol("main_grad"));
}

}  // namespace
}  // namespace spectral
