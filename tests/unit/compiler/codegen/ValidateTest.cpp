// ValidateTest.cpp - how --validate compares a result with the reference.
#include "compiler/API/Validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace spectral {
namespace {

using reference::ElementKind;
using reference::Tensor;

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(Validate, RelativeErrorAgainstTheLargestReferenceMagnitude) {
  Tensor expected{ElementKind::F64, {3}, {1.0, -4.0, 2.0}};
  HostTensor got = toHostTensor(Tensor{ElementKind::F64, {3}, {1.0, -4.0 + 4e-6, 2.0}});
  Agreement a = compareWithReference(got, expected, 1.1e-6);
  EXPECT_NEAR(a.maxAbsError, 4e-6, 1e-12);
  EXPECT_EQ(a.maxReference, 4.0);
  EXPECT_NEAR(a.relative, 1e-6, 1e-12);
  EXPECT_TRUE(a.pass);
  EXPECT_FALSE(compareWithReference(got, expected, 0.9e-6).pass);
}

TEST(Validate, NaNMustMeetNaNButARealResultHasNoImaginaryPart) {
  // The evaluator can leave NaN in the imaginary slot of a real value.
  Tensor expected{ElementKind::F32, {2}, {{kNaN, kNaN}, {1.0, kNaN}}};
  HostTensor got = toHostTensor(Tensor{ElementKind::F32, {2}, {kNaN, 1.0}});
  EXPECT_TRUE(compareWithReference(got, expected, 1e-4).pass);
  HostTensor zero = toHostTensor(Tensor{ElementKind::F32, {2}, {0.0, 1.0}});
  Agreement a = compareWithReference(zero, expected, 1e-4);
  EXPECT_FALSE(a.pass);
  EXPECT_NE(a.mismatch.find("element 0"), std::string::npos) << a.mismatch;
}

TEST(Validate, ComplexPartsAndIntegersAndShapes) {
  Tensor expected{ElementKind::C64, {1}, {{1.0, kNaN}}};
  EXPECT_FALSE(compareWithReference(toHostTensor(Tensor{ElementKind::C64, {1}, {{1.0, 0.0}}}),
                                    expected, 1e-4)
                   .pass);
  Tensor ints{ElementKind::I32, {2}, {3.0, 4.0}};
  Agreement off = compareWithReference(toHostTensor(Tensor{ElementKind::I32, {2}, {3.0, 5.0}}),
                                       ints, 1.0);
  EXPECT_FALSE(off.pass);
  EXPECT_NE(off.mismatch.find("integer element 1"), std::string::npos) << off.mismatch;
  Agreement shape = compareWithReference(toHostTensor(Tensor{ElementKind::I32, {1}, {3.0}}),
                                         ints, 1.0);
  EXPECT_FALSE(shape.pass);
  EXPECT_NE(shape.mismatch.find("shape"), std::string::npos);
}

TEST(Validate, TheReferenceIsRoundedToTheResultType) {
  // 1e300 is infinite as an f32 (what the device writes), finite as an f64;
  // five elements, so a vectorized loop has a scalar tail.
  Tensor expected{ElementKind::F32, {5}, {1e300, 1.0 + 1e-12, -1e300, 2.0, 1e300}};
  HostTensor got = toHostTensor(Tensor{ElementKind::F32, {5}, {kInf, 1.0, -kInf, 2.0, kInf}});
  Agreement a = compareWithReference(got, expected, 0);
  EXPECT_TRUE(a.pass) << a.mismatch;
  // FLT_MAX stays finite; half an ulp beyond it is infinite.
  const double flt_max = std::numeric_limits<float>::max();
  HostTensor edge = toHostTensor(
      Tensor{ElementKind::F32, {2}, {flt_max, flt_max + std::ldexp(1.0, 103)}});
  float values[2];
  std::memcpy(values, edge.bytes.data(), sizeof values);
  EXPECT_EQ(values[0], std::numeric_limits<float>::max());
  EXPECT_TRUE(std::isinf(values[1]));
  Tensor wide{ElementKind::F64, {1}, {1e300}};
  Agreement b = compareWithReference(toHostTensor(Tensor{ElementKind::F64, {1}, {kInf}}), wide, 1);
  EXPECT_FALSE(b.pass);
  EXPECT_NE(b.mismatch.find("element 0 is inf where the reference has 1e+300"), std::string::npos)
      << b.mismatch;
}

}  // namespace
}  // namespace spectral
