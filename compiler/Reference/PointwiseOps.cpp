//===- PointwiseOps.cpp - reference semantics: pointwise, reduce, shape ---===//
#include "compiler/Reference/EvaluatorInternal.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::reference {
namespace {

using UnaryFn = std::function<Complex(Complex)>;
using NaryFn = std::function<Complex(llvm::ArrayRef<Complex>)>;

/// Applies `fn` elementwise with numpy broadcasting into a result of `type`.
Results broadcastMap(Operation *op, Operands in, Type type, const NaryFn &fn) {
  llvm::Expected<Tensor> out = zerosLike(op, type);
  if (!out)
    return out.takeError();
  std::vector<Complex> args(in.size());
  for (int64_t i = 0; i < out->size(); ++i) {
    for (size_t k = 0; k < in.size(); ++k)
      args[k] = in[k]->data[sp::broadcastSourceIndex(out->shape, in[k]->shape, i)];
    out->data[i] = fn(args);
  }
  return single(std::move(*out));
}

Results unaryMap(Operation *op, Operands in, const UnaryFn &fn) {
  return broadcastMap(op, in, op->getResult(0).getType(),
                      [&](llvm::ArrayRef<Complex> a) { return fn(a[0]); });
}

/// Integer division truncates toward zero; division by zero is an error.
/// Real operands divide as reals: a complex 1 / 0 would be inf + nan*i.
Results divide(sp::DivOp op, Operands in) {
  bool integer = isIntegerKind(in[0]->kind);
  bool complex = isComplexKind(in[0]->kind);
  bool byZero = false;
  Results out = broadcastMap(op, in, op.getType(), [&](llvm::ArrayRef<Complex> a) {
    if (complex)
      return a[0] / a[1];
    if (!integer)
      return Complex(a[0].real() / a[1].real());
    if (a[1] == Complex(0.0)) {
      byZero = true;
      return Complex(0.0);
    }
    return Complex(std::trunc(a[0].real() / a[1].real()));
  });
  if (out && byZero)
    return opError(op, "integer division by zero");
  return out;
}

bool compare(sp::CmpPredicate predicate, double a, double b) {
  switch (predicate) {
  case sp::CmpPredicate::eq: return a == b;
  case sp::CmpPredicate::ne: return a != b;
  case sp::CmpPredicate::lt: return a < b;
  case sp::CmpPredicate::le: return a <= b;
  case sp::CmpPredicate::gt: return a > b;
  case sp::CmpPredicate::ge: return a >= b;
  }
  return false;
}

/// Reduction over `axes`: `init`, then `combine` per element, then `finish`
/// with the number of elements reduced.
Results reduce(Operation *op, const Tensor &x, llvm::ArrayRef<int64_t> axes,
               Complex init, const std::function<Complex(Complex, Complex)> &combine,
               const std::function<Complex(Complex, int64_t)> &finish) {
  llvm::Expected<Tensor> out = zerosLike(op, op->getResult(0).getType());
  if (!out)
    return out.takeError();
  std::fill(out->data.begin(), out->data.end(), init);
  std::vector<int64_t> strides = stridesOf(x.shape);
  std::vector<bool> reduced(x.shape.size(), false);
  int64_t count = 1;
  for (int64_t axis : axes) {
    reduced[axis] = true;
    count *= x.shape[axis];
  }
  for (int64_t i = 0; i < x.size(); ++i) {
    int64_t target = 0, rest = i;
    for (size_t d = 0; d < x.shape.size(); ++d) {
      int64_t coordinate = rest / strides[d];
      rest %= strides[d];
      if (!reduced[d])
        target = target * x.shape[d] + coordinate;
    }
    out->data[target] = combine(out->data[target], x.data[i]);
  }
  for (Complex &v : out->data)
    v = finish(v, count);
  return single(std::move(*out));
}

Complex keep(Complex v, int64_t) { return v; }

/// softmax (log = false) or log_softmax along `axis`.
Results softmax(Operation *op, const Tensor &x, int64_t axis, bool log) {
  Tensor out = x;
  int64_t n = x.shape[axis], inner = stridesOf(x.shape)[axis];
  int64_t outer = n * inner == 0 ? 0 : x.size() / (n * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) -> Complex & {
        return out.data[(o * n + j) * inner + in];
      };
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < n; ++j)
        max = std::max(max, at(j).real());
      double sum = 0;
      for (int64_t j = 0; j < n; ++j)
        sum += std::exp(at(j).real() - max);
      for (int64_t j = 0; j < n; ++j)
        at(j) = log ? at(j).real() - max - std::log(sum)
                    : std::exp(at(j).real() - max) / sum;
    }
  return single(std::move(out));
}

/// Copies `x` into a result of `type`, element i of the result reading
/// x[source(i)], or `fill` where source returns -1.
Results gatherInto(Operation *op, Type type, const Tensor &x,
                   const std::function<int64_t(const std::vector<int64_t> &)> &source,
                   Complex fill = 0.0) {
  llvm::Expected<Tensor> out = zerosLike(op, type);
  if (!out)
    return out.takeError();
  std::vector<int64_t> strides = stridesOf(out->shape), index(out->shape.size());
  for (int64_t i = 0; i < out->size(); ++i) {
    for (size_t d = 0, rest = i; d < index.size(); ++d) {
      index[d] = rest / strides[d];
      rest %= strides[d];
    }
    int64_t from = source(index);
    out->data[i] = from < 0 ? fill : x.data[from];
  }
  return single(std::move(*out));
}

} // namespace

std::optional<Results> evaluatePointwise(Operation *op, Operands in) {
  using Op = Operation *;
  auto real = [](Complex x) { return Complex(x.real()); };
  return llvm::TypeSwitch<Op, std::optional<Results>>(op)
      .Case([&](sp::NegOp) { return unaryMap(op, in, std::negate<Complex>()); })
      .Case([&](sp::ExpOp) {
        return unaryMap(op, in, [](Complex x) { return std::exp(x); });
      })
      .Case([&](sp::LogOp) {
        bool complex = isComplexKind(in[0]->kind);
        return unaryMap(op, in, [=](Complex x) {
          return complex ? std::log(x) : Complex(std::log(x.real()));
        });
      })
      .Case([&](sp::SqrtOp) {
        bool complex = isComplexKind(in[0]->kind);
        return unaryMap(op, in, [=](Complex x) {
          return complex ? std::sqrt(x) : Complex(std::sqrt(x.real()));
        });
      })
      .Case([&](sp::TanhOp) {
        return unaryMap(op, in, [](Complex x) { return std::tanh(x); });
      })
      .Case([&](sp::ReluOp) {
        // NaN propagates, as in torch.relu.
        return unaryMap(op, in, [](Complex x) {
          return Complex(std::isnan(x.real()) || x.real() > 0 ? x.real() : 0.0);
        });
      })
      .Case([&](sp::GeluOp) {
        return unaryMap(op, in, [](Complex x) {
          return Complex(0.5 * x.real() * (1.0 + std::erf(x.real() / std::sqrt(2.0))));
        });
      })
      .Case([&](sp::SigmoidOp) {
        return unaryMap(op, in, [](Complex x) { return Complex(1.0 / (1.0 + std::exp(-x.real()))); });
      })
      .Case([&](sp::ConjOp) {
        return unaryMap(op, in, [](Complex x) { return std::conj(x); });
      })
      .Case([&](sp::AbsOp) {
        return unaryMap(op, in, [](Complex x) { return Complex(std::abs(x)); });
      })
      .Case([&](sp::RealOp) { return unaryMap(op, in, real); })
      .Case([&](sp::ImagOp) {
        return unaryMap(op, in, [](Complex x) { return Complex(x.imag()); });
      })
      .Case([&](sp::CastOp cast) {
        ElementKind to = *elementKindOf(cast.getType().getElementType());
        return unaryMap(op, in, [=](Complex x) { return roundToKind(to, x); });
      })
      .Case([&](sp::AddOp add) {
        return broadcastMap(op, in, add.getType(),
                            [](llvm::ArrayRef<Complex> a) { return a[0] + a[1]; });
      })
      .Case([&](sp::SubOp sub) {
        return broadcastMap(op, in, sub.getType(),
                            [](llvm::ArrayRef<Complex> a) { return a[0] - a[1]; });
      })
      .Case([&](sp::MulOp mul) {
        return broadcastMap(op, in, mul.getType(),
                            [](llvm::ArrayRef<Complex> a) { return a[0] * a[1]; });
      })
      .Case([&](sp::DivOp div) { return divide(div, in); })
      .Case([&](sp::ComplexOp c) {
        return broadcastMap(op, in, c.getType(), [](llvm::ArrayRef<Complex> a) {
          return Complex(a[0].real(), a[1].real());
        });
      })
      .Case([&](sp::CmpOp cmp) {
        sp::CmpPredicate predicate = cmp.getPredicate();
        return broadcastMap(op, in, cmp.getType(), [=](llvm::ArrayRef<Complex> a) {
          return Complex(compare(predicate, a[0].real(), a[1].real()) ? 1.0 : 0.0);
        });
      })
      .Case([&](sp::SelectOp select) {
        return broadcastMap(op, in, select.getType(), [](llvm::ArrayRef<Complex> a) {
          return a[0].real() != 0.0 ? a[1] : a[2];
        });
      })
      .Default([](Op) { return std::nullopt; });
}

std::optional<Results> evaluateShape(Operation *op, Operands in) {
  using Op = Operation *;
  auto add = [](Complex a, Complex b) { return a + b; };
  return llvm::TypeSwitch<Op, std::optional<Results>>(op)
      .Case([&](sp::ReduceSumOp r) {
        return reduce(op, *in[0], r.getAxes(), 0.0, add, keep);
      })
      .Case([&](sp::ReduceMeanOp r) {
        return reduce(op, *in[0], r.getAxes(), 0.0, add,
                      [](Complex v, int64_t n) { return v / double(n); });
      })
      .Case([&](sp::ReduceMaxOp r) -> Results {
        // The maximum of nothing is undefined (numpy raises unless the
        // result is empty too); NaN wins, as in numpy.max.
        auto type = cast<RankedTensorType>(r.getType());
        for (int64_t axis : r.getAxes())
          if (in[0]->shape[axis] == 0 && sp::checkedElementCount(type.getShape()) != 0)
            return opError(op, "reduces over axis " + llvm::Twine(axis) +
                                   " of length 0: the maximum of no elements "
                                   "is undefined");
        return reduce(op, *in[0], r.getAxes(),
                      -std::numeric_limits<double>::infinity(),
                      [](Complex a, Complex b) {
                        if (std::isnan(a.real()) || std::isnan(b.real()))
                          return Complex(std::numeric_limits<double>::quiet_NaN());
                        return Complex(std::max(a.real(), b.real()));
                      },
                      keep);
      })
      .Case([&](sp::SoftmaxOp s) {
        return softmax(op, *in[0], int64_t(s.getAxis()), /*log=*/false);
      })
      .Case([&](sp::LogSoftmaxOp s) {
        return softmax(op, *in[0], int64_t(s.getAxis()), /*log=*/true);
      })
      .Case([&](sp::ReshapeOp reshape) -> Results {
        llvm::Expected<Tensor> out = zerosLike(op, reshape.getType());
        if (!out)
          return out.takeError();
        out->data = in[0]->data;
        return single(std::move(*out));
      })
      .Case([&](sp::BroadcastOp b) {
        return broadcastMap(op, in, b.getType(),
                            [](llvm::ArrayRef<Complex> a) { return a[0]; });
      })
      .Case([&](sp::TransposeOp t) {
        std::vector<int64_t> strides = stridesOf(in[0]->shape);
        llvm::ArrayRef<int64_t> perm = t.getPerm();
        return gatherInto(op, t.getType(), *in[0], [&](const std::vector<int64_t> &i) {
          int64_t from = 0;
          for (size_t d = 0; d < i.size(); ++d)
            from += i[d] * strides[perm[d]];
          return from;
        });
      })
      .Case([&](sp::SliceOp s) {
        std::vector<int64_t> strides = stridesOf(in[0]->shape);
        llvm::ArrayRef<int64_t> start = s.getStart();
        std::optional<llvm::ArrayRef<int64_t>> step = s.getStride();
        return gatherInto(op, s.getType(), *in[0], [&](const std::vector<int64_t> &i) {
          int64_t from = 0;
          for (size_t d = 0; d < i.size(); ++d)
            from += (start[d] + i[d] * (step ? (*step)[d] : 1)) * strides[d];
          return from;
        });
      })
      .Case([&](sp::PadOp p) {
        const Tensor &x = *in[0];
        std::vector<int64_t> strides = stridesOf(x.shape);
        llvm::ArrayRef<int64_t> low = p.getLow();
        return gatherInto(
            op, p.getType(), x,
            [&](const std::vector<int64_t> &i) -> int64_t {
              int64_t from = 0;
              for (size_t d = 0; d < i.size(); ++d) {
                int64_t c = i[d] - low[d];
                if (c < 0 || c >= x.shape[d])
                  return -1;
                from += c * strides[d];
              }
              return from;
            },
            p.getValue().convertToDouble());
      })
      .Case([&](sp::ConcatOp c) -> Results {
        llvm::Expected<Tensor> out = zerosLike(op, c.getType());
        if (!out)
          return out.takeError();
        int64_t axis = int64_t(c.getAxis());
        int64_t inner = stridesOf(out->shape)[axis];
        int64_t slabs = out->shape[axis] * inner;
        int64_t outer = slabs == 0 ? 0 : out->size() / slabs;
        int64_t offset = 0; // along the axis, in elements of one outer slab
        for (const Tensor *t : in) {
          int64_t slab = t->shape[axis] * inner;
          for (int64_t o = 0; o < outer; ++o)
            std::copy_n(t->data.begin() + o * slab, slab,
                        out->data.begin() + o * out->shape[axis] * inner + offset);
          offset += slab;
        }
        return single(std::move(*out));
      })
      .Default([](Op) { return std::nullopt; });
}

} // namespace spectral::reference
