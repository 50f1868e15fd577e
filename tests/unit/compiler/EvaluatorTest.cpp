//===- EvaluatorTest.cpp - reference evaluator: harness, constants, errors ===//
//
// The helpers of EvaluatorTest.h, and the evaluator's own behaviour: constants,
// spectral.fusion regions, and the errors it reports for bad inputs, tensors
// too large to hold and ops it does not know. The op families are tested in
// EvaluatorTransformsTest, EvaluatorPointwiseTest, EvaluatorShapeTest,
// EvaluatorSparseTest and EvaluatorTrainingTest.
//
//===----------------------------------------------------------------------===//

#include "EvaluatorTest.h"

#include "dialects/spectral/IR/SpectralDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

namespace spectral::reference::test {

/// One context for every test: loading the dialects once keeps the
/// thousands of parameterized cases fast.
static mlir::MLIRContext &sharedContext() {
  static mlir::MLIRContext *context = [] {
    mlir::DialectRegistry registry;
    registry.insert<mlir::spectral::SpectralDialect, mlir::func::FuncDialect,
                    mlir::arith::ArithDialect>();
    auto *c = new mlir::MLIRContext(registry,
                                    mlir::MLIRContext::Threading::DISABLED);
    c->loadAllAvailableDialects();
    return c;
  }();
  return *context;
}

llvm::Expected<std::vector<Tensor>> tryRun(const std::string &source,
                                           const std::vector<Tensor> &inputs) {
  mlir::MLIRContext &context = sharedContext();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream os(diagnostics);
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context, "test.mlir");
  if (!module)
    return llvm::createStringError("cannot parse the module:\n" + diagnostics +
                                   source);
  auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!main)
    return llvm::createStringError("the module has no @main");
  return evaluate(main, inputs);
}

std::vector<Tensor> run(const std::string &source,
                        const std::vector<Tensor> &inputs) {
  llvm::Expected<std::vector<Tensor>> results = tryRun(source, inputs);
  if (!results) {
    ADD_FAILURE() << llvm::toString(results.takeError());
    return {};
  }
  return std::move(*results);
}

std::string runError(const std::string &source, const std::vector<Tensor> &inputs) {
  llvm::Expected<std::vector<Tensor>> results = tryRun(source, inputs);
  if (results) {
    ADD_FAILURE() << "expected an error, got " << results->size() << " results";
    return "";
  }
  return llvm::toString(results.takeError());
}

void expectTensor(const Tensor &actual, ElementKind kind, const Shape &shape,
                  const std::vector<Complex> &expected, double tolerance) {
  EXPECT_EQ(elementKindName(actual.kind), std::string(elementKindName(kind)));
  EXPECT_EQ(actual.shape, shape);
  ASSERT_EQ(actual.data.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    Complex a = actual.data[i], e = expected[i];
    bool same = true;
    for (auto [x, y] : {std::pair{a.real(), e.real()}, {a.imag(), e.imag()}}) {
      if (std::isnan(y) || std::isinf(y))
        same = same && (std::isnan(y) ? std::isnan(x) : x == y);
      else // x == y first: with tolerance 0, 0 * |inf| would be NaN
        same = same && (x == y || std::abs(x - y) <= tolerance * std::max(1.0, std::abs(e)));
    }
    EXPECT_TRUE(same) << "element " << i << " of " << actual.typeString()
                      << ": got " << a << ", expected " << e;
  }
}

void expectContains(const std::string &text,
                    std::initializer_list<std::string> needles) {
  for (const std::string &needle : needles)
    EXPECT_NE(text.find(needle), std::string::npos)
        << "'" << needle << "' is missing from: " << text;
}

namespace {

TEST(EvaluatorConstant, SplatAndDenseOfEveryElementType) {
  std::vector<Tensor> out = run(R"mlir(
    func.func @main() -> (tensor<2x2xf32>, tensor<3xf64>, tensor<f32>,
        tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>, tensor<2xi32>,
        tensor<3xi64>, tensor<3xi1>, tensor<2xi1>) {
      %0 = spectral.constant dense<[[1.5, -2.0], [3.25, 4.0]]> : tensor<2x2xf32>
      %1 = spectral.constant dense<2.5> : tensor<3xf64>
      %2 = spectral.constant dense<-0.125> : tensor<f32>
      %3 = spectral.constant dense<[(1.0, 2.0), (0.0, -1.5)]> : tensor<2xcomplex<f64>>
      %4 = spectral.constant dense<(1.0, -1.0)> : tensor<2xcomplex<f32>>
      %5 = spectral.constant dense<[-3, 7]> : tensor<2xi32>
      %6 = spectral.constant dense<-1> : tensor<3xi64>
      %7 = spectral.constant dense<[true, false, true]> : tensor<3xi1>
      %8 = spectral.constant dense<true> : tensor<2xi1>
      return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<2x2xf32>, tensor<3xf64>,
          tensor<f32>, tensor<2xcomplex<f64>>, tensor<2xcomplex<f32>>,
          tensor<2xi32>, tensor<3xi64>, tensor<3xi1>, tensor<2xi1>
    })mlir");
  ASSERT_EQ(out.size(), 9u);
  expectTensor(out[0], K::F32, {2, 2}, {1.5, -2.0, 3.25, 4.0}, 0);
  expectTensor(out[1], K::F64, {3}, {2.5, 2.5, 2.5}, 0);
  expectTensor(out[2], K::F32, {}, {-0.125}, 0);
  expectTensor(out[3], K::C128, {2}, {{1.0, 2.0}, {0.0, -1.5}}, 0);
  expectTensor(out[4], K::C64, {2}, {{1.0, -1.0}, {1.0, -1.0}}, 0);
  expectTensor(out[5], K::I32, {2}, {-3.0, 7.0}, 0);
  expectTensor(out[6], K::I64, {3}, {-1.0, -1.0, -1.0}, 0);
  expectTensor(out[7], K::I1, {3}, {1.0, 0.0, 1.0}, 0);
  expectTensor(out[8], K::I1, {2}, {1.0, 1.0}, 0);
}

TEST(EvaluatorFusion, RegionRunsOnItsInputsInOrder) {
  // sub (not add) inside the region tells the two inputs apart.
  const char *source = R"mlir(
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %c: tensor<2xcomplex<f64>>)
        -> (tensor<2x3xf32>, tensor<2xcomplex<f64>>, tensor<2xf32>, tensor<3xf32>) {
      %0:3 = spectral.fusion %x, %y, %c : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xcomplex<f64>>)
          -> (tensor<2x3xf32>, tensor<2xcomplex<f64>>, tensor<2xf32>) {
      ^bb0(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %cc: tensor<2xcomplex<f64>>):
        %s = spectral.sub %a, %b : tensor<2x3xf32>, tensor<3xf32>
        %e = spectral.conj %cc : tensor<2xcomplex<f64>>
        %r = spectral.reduce_sum %s axes [1] : tensor<2x3xf32>
        spectral.yield %s, %e, %r : tensor<2x3xf32>, tensor<2xcomplex<f64>>, tensor<2xf32>
      }
      %1 = spectral.fusion : () -> tensor<3xf32> {
        %k = spectral.constant dense<2.0> : tensor<3xf32>
        spectral.yield %k : tensor<3xf32>
      }
      return %0#0, %0#1, %0#2, %1 : tensor<2x3xf32>, tensor<2xcomplex<f64>>, tensor<2xf32>, tensor<3xf32>
    })mlir";
  Tensor x = makeTensor(K::F32, {2, 3}, {10, 20, 30, 40, 50, 60});
  Tensor y = makeTensor(K::F32, {3}, {1, 2, 3});
  Tensor c = makeTensor(K::C128, {2}, {{1, 2}, {-3, -4}});
  std::vector<Tensor> out = run(source, {x, y, c});
  ASSERT_EQ(out.size(), 4u);
  expectTensor(out[0], K::F32, {2, 3}, {9, 18, 27, 39, 48, 57}, 0);
  expectTensor(out[1], K::C128, {2}, {{1, -2}, {-3, 4}}, 0);
  expectTensor(out[2], K::F32, {2}, {54, 144}, 0);
  expectTensor(out[3], K::F32, {3}, {2, 2, 2}, 0);
}

TEST(EvaluatorFusion, ValuesFlowBetweenOpsAndFusions) {
  std::vector<Tensor> out = run(R"mlir(
    func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
      %n = spectral.neg %x : tensor<4xf64>
      %0 = spectral.fusion %n, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
      ^bb0(%a: tensor<4xf64>, %b: tensor<4xf64>):
        %m = spectral.mul %a, %b : tensor<4xf64>, tensor<4xf64>
        spectral.yield %m : tensor<4xf64>
      }
      %r = spectral.relu %0 : tensor<4xf64>
      %s = spectral.sub %r, %x : tensor<4xf64>, tensor<4xf64>
      return %s : tensor<4xf64>
    })mlir",
                                {makeTensor(K::F64, {4}, {1, -2, 0.5, 3})});
  ASSERT_EQ(out.size(), 1u);
  // relu(-x^2) = 0, minus x.
  expectTensor(out[0], K::F64, {4}, {-1, 2, -0.5, -3}, 0);
}

const char *kTwoArguments = R"mlir(
  func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
    %s = spectral.add %x, %y : tensor<3xf32>, tensor<3xf32>
    return %s : tensor<3xf32>
  })mlir";

TEST(EvaluatorInputs, WrongCountIsAnError) {
  Tensor x = makeTensor(K::F32, {3}, {1, 2, 3});
  expectContains(runError(kTwoArguments, {x}), {"@main", "2 arguments", "1 input"});
  expectContains(runError(kTwoArguments, {x, x, x}), {"2 arguments", "3 input"});
}

TEST(EvaluatorInputs, WrongTypeNamesTheArgument) {
  Tensor x = makeTensor(K::F32, {3}, {1, 2, 3});
  expectContains(runError(kTwoArguments, {x, makeTensor(K::F64, {3}, {1, 2, 3})}),
                 {"argument #1", "tensor<3xf32>", "tensor<3xf64>"});
  expectContains(runError(kTwoArguments, {makeTensor(K::F32, {4}, {1, 2, 3, 4}), x}),
                 {"argument #0", "tensor<3xf32>", "tensor<4xf32>"});
  expectContains(runError(kTwoArguments, {makeTensor(K::C64, {3}, {1, 2, 3}), x}),
                 {"argument #0", "tensor<3xcomplex<f32>>"});
}

TEST(EvaluatorInputs, DataNotMatchingTheShapeIsAnError) {
  // Two elements for a shape of three: reading it would run off the end.
  Tensor x = makeTensor(K::F32, {3}, {1, 2, 3});
  expectContains(runError(kTwoArguments, {x, makeTensor(K::F32, {3}, {1, 2})}),
                 {"argument #1", "2 elements"});
}

TEST(EvaluatorLimits, TooLargeResultIsAnErrorNotAnAllocation) {
  // 2^26 + 2^10 elements, just above the limit of 2^26 (1 GiB of complex
  // doubles): an error from the op, no allocation.
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<1xf32>) -> tensor<65537x1024xf32> {
      %b = spectral.broadcast %x : tensor<1xf32> -> tensor<65537x1024xf32>
      return %b : tensor<65537x1024xf32>
    })mlir",
                          {makeTensor(K::F32, {1}, {1})}),
                 {"spectral.broadcast", "more than 67108864 elements", "too many"});
  // 2^32 elements.
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<1xf32>) -> tensor<65536x65536xf32> {
      %b = spectral.broadcast %x : tensor<1xf32> -> tensor<65536x65536xf32>
      return %b : tensor<65536x65536xf32>
    })mlir",
                          {makeTensor(K::F32, {1}, {1})}),
                 {"spectral.broadcast", "too many", "test.mlir:3"});
  expectContains(runError(R"mlir(
    func.func @main() -> tensor<100000x100000xcomplex<f64>> {
      %c = spectral.constant dense<(1.0, 2.0)> : tensor<100000x100000xcomplex<f64>>
      return %c : tensor<100000x100000xcomplex<f64>>
    })mlir"),
                 {"spectral.constant", "too many"});
  // The element count overflows int64.
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<1xf32>) -> tensor<4294967296x4294967296xf32> {
      %b = spectral.broadcast %x : tensor<1xf32> -> tensor<4294967296x4294967296xf32>
      return %b : tensor<4294967296x4294967296xf32>
    })mlir",
                          {makeTensor(K::F32, {1}, {1})}),
                 {"spectral.broadcast", "too many"});
  // Sparse ops check their results before they fill them.
  expectContains(runError(R"mlir(
    func.func @main(%v: tensor<1xf32>, %i: tensor<1xi64>) -> tensor<70000x70000xf32> {
      %s = spectral.scatter %v, %i : tensor<1xf32>, tensor<1xi64> -> tensor<70000x70000xf32>
      return %s : tensor<70000x70000xf32>
    })mlir",
                          {makeTensor(K::F32, {1}, {1}), makeTensor(K::I64, {1}, {0})}),
                 {"spectral.scatter", "too many"});
}

TEST(EvaluatorLimits, TooLargeInputIsAnError) {
  // Checked from the type, before the data: these hold no elements at all.
  for (Shape shape : {Shape{(int64_t(1) << 26) + 1}, Shape{int64_t(1) << 27, 4}}) {
    std::string type = "tensor<" + std::to_string(shape[0]) +
                       (shape.size() > 1 ? "x" + std::to_string(shape[1]) : "") + "xf32>";
    std::string source = "func.func @main(%x: " + type + ") -> " + type +
                         " {\n  return %x : " + type + "\n}\n";
    expectContains(runError(source, {makeTensor(K::F32, shape, {})}),
                   {"argument #0", "more than 67108864 elements", "too many"});
  }
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
      return %x : tensor<4611686018427387904x4xf32>
    })mlir",
                          {makeTensor(K::F32, {int64_t(1) << 62, 4}, {})}),
                 {"argument #0", "too many"});
}

TEST(EvaluatorConstant, ArithConstantOfATensor) {
  // arith is registered by the tools, so its tensor constants are accepted
  // like spectral.constant; other arith ops are not (UnknownOpIsNamed).
  auto out = run(R"mlir(
    func.func @main() -> (tensor<2xf32>, tensor<3xi64>, tensor<2xcomplex<f64>>) {
      %a = arith.constant dense<[1.5, -2.0]> : tensor<2xf32>
      %b = arith.constant dense<7> : tensor<3xi64>
      %c = arith.constant dense<[(1.0, 2.0), (0.0, -1.0)]> : tensor<2xcomplex<f64>>
      %d = spectral.add %a, %a : tensor<2xf32>, tensor<2xf32>
      return %d, %b, %c : tensor<2xf32>, tensor<3xi64>, tensor<2xcomplex<f64>>
    })mlir");
  ASSERT_EQ(out.size(), 3u);
  expectTensor(out[0], K::F32, {2}, {3, -4}, 0);
  expectTensor(out[1], K::I64, {3}, {7, 7, 7}, 0);
  expectTensor(out[2], K::C128, {2}, {{1, 2}, {0, -1}}, 0);
  // A scalar constant has no tensor to become.
  expectContains(runError(R"mlir(
    func.func @main() -> tensor<f32> {
      %s = arith.constant 1.0 : f32
      %c = spectral.constant dense<1.0> : tensor<f32>
      return %c : tensor<f32>
    })mlir"),
                 {"test.mlir:3", "arith.constant", "only with a dense tensor value"});
}

TEST(EvaluatorLimits, UnknownOpIsNamed) {
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %y = arith.addf %x, %x : tensor<3xf32>
      return %y : tensor<3xf32>
    })mlir",
                          {makeTensor(K::F32, {3}, {1, 2, 3})}),
                 {"arith.addf", "not supported"});
}

TEST(EvaluatorHarness, ParseErrorsAreReported) {
  // The harness itself must surface verifier messages, or every other
  // error test here could pass vacuously.
  expectContains(runError(R"mlir(
    func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
      %y = spectral.softmax %x axis 1 : tensor<3xf32>
      return %y : tensor<3xf32>
    })mlir",
                          {makeTensor(K::F32, {3}, {1, 2, 3})}),
                 {"cannot parse", "axis 1 is out of range"});
}

} // namespace
} // namespace spectral::reference::test
