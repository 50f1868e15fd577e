//===- EvaluatorTest.h - helpers shared by the Evaluator*Test files -*- C++ -*-===//
//
// Parses a module from a string, runs its @main through the reference
// evaluator and compares the results with values the test computed on its
// own. Every check names the element at fault.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Reference/Evaluator.h"

#include <gtest/gtest.h>

#include <complex>
#include <string>
#include <vector>

namespace spectral::reference::test {

using Complex = std::complex<double>;
using Shape = std::vector<int64_t>;
using K = ElementKind;

/// A tensor of `kind` with `data` in row-major order.
inline Tensor makeTensor(ElementKind kind, Shape shape, std::vector<Complex> data) {
  return Tensor{kind, std::move(shape), std::move(data)};
}

/// Parses `source` (which must define @main) and evaluates @main on
/// `inputs`. Parse and verifier diagnostics come back as the error.
llvm::Expected<std::vector<Tensor>> tryRun(const std::string &source,
                                           const std::vector<Tensor> &inputs);

/// The results of @main; on any error, a test failure with its text and no
/// results (so a following ASSERT_EQ on the count stops the test).
std::vector<Tensor> run(const std::string &source,
                        const std::vector<Tensor> &inputs = {});

/// The error text of a run that must fail (a test failure if it succeeds).
std::string runError(const std::string &source,
                     const std::vector<Tensor> &inputs = {});

/// Checks kind, shape and every element: |actual - expected| <= tolerance *
/// max(1, |expected|). NaN and infinities must match exactly.
void expectTensor(const Tensor &actual, ElementKind kind, const Shape &shape,
                  const std::vector<Complex> &expected, double tolerance = 1e-14);

/// Checks `text` contains every one of `needles`.
void expectContains(const std::string &text,
                    std::initializer_list<std::string> needles);

} // namespace spectral::reference::test
