//===- SpectralOps.cpp - reference semantics: transforms, sparse modes ----===//
#include "compiler/Reference/EvaluatorInternal.h"
#include "compiler/Reference/Transforms.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::reference {
namespace {

Norm normOf(sp::Norm norm) {
  switch (norm) {
  case sp::Norm::backward: return Norm::Backward;
  case sp::Norm::ortho: return Norm::Ortho;
  case sp::Norm::forward: return Norm::Forward;
  }
  return Norm::Backward;
}

std::vector<double> realParts(const Tensor &x) {
  std::vector<double> out(x.data.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = x.data[i].real();
  return out;
}

/// A result of `op`'s type holding `data`.
Results withData(Operation *op, std::vector<Complex> data) {
  llvm::Expected<Tensor> out = zerosLike(op, op->getResult(0).getType());
  if (!out)
    return out.takeError();
  out->data = std::move(data);
  return single(std::move(*out));
}

/// An error when transforming `elements` values along axes of `lengths` (the
/// logical transform lengths) costs more than kMaxReferenceCost: the naive
/// transforms cost (elements) x (axis length) multiply-adds per axis, so a
/// length of 2^20 would be hours.
llvm::Error checkTransformCost(Operation *op, int64_t elements,
                               llvm::ArrayRef<int64_t> lengths) {
  int64_t cost = 0, longest = 0;
  bool overflow = false;
  for (int64_t length : lengths) {
    int64_t axisCost;
    overflow |= __builtin_mul_overflow(elements, length, &axisCost);
    overflow |= __builtin_add_overflow(cost, axisCost, &cost);
    longest = std::max(longest, length);
  }
  if (!overflow && cost <= kMaxReferenceCost)
    return llvm::Error::success();
  std::string costText = overflow ? "more than 2^63" : std::to_string(cost);
  return opError(op, "is too large for the naive reference evaluator: " +
                         llvm::Twine(elements) + " elements along an axis of length " +
                         llvm::Twine(longest) + " cost " + costText +
                         " multiply-adds, more than the 2^36 allowed");
}

/// The transformed lengths of `shape` along `axes`.
std::vector<int64_t> lengthsAlong(llvm::ArrayRef<int64_t> shape,
                                  llvm::ArrayRef<int64_t> axes) {
  std::vector<int64_t> lengths;
  for (int64_t axis : axes)
    lengths.push_back(shape[axis]);
  return lengths;
}

template <typename Op>
Results complexTransform(Op op, const Tensor &x, bool inverse) {
  if (llvm::Error error =
          checkTransformCost(op, x.size(), lengthsAlong(x.shape, op.getAxes())))
    return error;
  std::vector<Complex> data = x.data;
  dft(data, x.shape, op.getAxes(), inverse, normOf(op.getNorm()));
  return withData(op, std::move(data));
}

template <typename Op>
Results cosineTransform(Op op, const Tensor &x, bool inverse) {
  if (llvm::Error error =
          checkTransformCost(op, x.size(), lengthsAlong(x.shape, op.getAxes())))
    return error;
  std::vector<double> data = realParts(x);
  dct(data, x.shape, op.getAxes(), int(op.getDctType()), inverse,
      normOf(op.getNorm()));
  return withData(op, std::vector<Complex>(data.begin(), data.end()));
}

/// Row layout of a sparse pair: `rows` rows of `k` slots; per-row indices
/// address a dense row of `rowLength`, flat ones the whole dense tensor.
struct SparseLayout {
  int64_t rows, k, rowLength;
};

SparseLayout layoutOf(const Tensor &dense, const Tensor &sparse) {
  bool flat = sparse.shape.size() == 1 && dense.shape.size() != 1;
  int64_t k = sparse.shape.empty() ? 1 : sparse.shape.back();
  int64_t rowLength = flat ? dense.size() : dense.shape.back();
  return {k == 0 ? 0 : sparse.size() / k, k, rowLength};
}

/// Checks index `index` of row `row` is -1 or within the row.
llvm::Error checkIndex(Operation *op, int64_t index, int64_t rowLength) {
  if (index < -1 || index >= rowLength)
    return opError(op, "index " + llvm::Twine(index) + " is out of range [0, " +
                           llvm::Twine(rowLength) + ") (-1 marks an empty slot)");
  return llvm::Error::success();
}

Results topk(sp::TopkModesOp op, const Tensor &x) {
  llvm::Expected<Tensor> values = zerosLike(op, op.getValues().getType());
  llvm::Expected<Tensor> indices = zerosLike(op, op.getIndices().getType());
  if (!values || !indices)
    return llvm::joinErrors(values.takeError(), indices.takeError());
  int64_t k = int64_t(op.getK());
  int64_t rowLength = op.getFlat() ? x.size() : x.shape.back();
  int64_t rows = rowLength == 0 ? 0 : x.size() / rowLength;
  std::vector<int64_t> order(rowLength);
  std::vector<double> magnitude(rowLength);
  for (int64_t r = 0; r < rows; ++r) {
    const Complex *row = x.data.data() + r * rowLength;
    // |z| (not |z|^2, which overflows above ~1e154); NaN ranks above every
    // number, as in torch.topk. A strict weak order: NaNs are all equivalent.
    // The stable sort breaks ties toward the lower index.
    for (int64_t j = 0; j < rowLength; ++j)
      magnitude[j] = std::isnan(row[j].real()) || std::isnan(row[j].imag())
                         ? std::numeric_limits<double>::quiet_NaN()
                         : std::abs(row[j]);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      double ma = magnitude[a], mb = magnitude[b];
      if (std::isnan(ma) || std::isnan(mb))
        return !std::isnan(mb);
      return ma > mb;
    });
    std::sort(order.begin(), order.begin() + k);
    for (int64_t j = 0; j < k; ++j) {
      values->data[r * k + j] = row[order[j]];
      indices->data[r * k + j] = double(order[j]);
    }
  }
  std::vector<Tensor> out;
  out.push_back(std::move(*values));
  out.push_back(std::move(*indices));
  return out;
}

Results gather(sp::GatherOp op, const Tensor &x, const Tensor &indices) {
  SparseLayout layout = layoutOf(x, indices);
  std::vector<Complex> data(indices.size());
  for (int64_t i = 0; i < indices.size(); ++i) {
    int64_t index = int64_t(indices.data[i].real());
    if (llvm::Error error = checkIndex(op, index, layout.rowLength))
      return error;
    int64_t row = layout.k ? i / layout.k : 0;
    data[i] = index < 0 ? 0.0 : x.data[row * layout.rowLength + index];
  }
  return withData(op, std::move(data));
}

Results scatter(sp::ScatterOp op, const Tensor &values, const Tensor &indices) {
  llvm::Expected<Tensor> out = zerosLike(op, op.getType());
  if (!out)
    return out.takeError();
  SparseLayout layout = layoutOf(*out, values);
  for (int64_t i = 0; i < values.size(); ++i) {
    int64_t index = int64_t(indices.data[i].real());
    if (llvm::Error error = checkIndex(op, index, layout.rowLength))
      return error;
    if (index >= 0)
      out->data[(i / layout.k) * layout.rowLength + index] += values.data[i];
  }
  return single(std::move(*out));
}

/// Sparse add (union) or multiply (intersection) row by row. Duplicate
/// indices within one operand are summed first; results are index-sorted.
Results sparseBinary(Operation *op, Operands in, bool isUnion) {
  llvm::Expected<Tensor> values = zerosLike(op, op->getResult(0).getType());
  llvm::Expected<Tensor> indices = zerosLike(op, op->getResult(1).getType());
  if (!values || !indices)
    return llvm::joinErrors(values.takeError(), indices.takeError());
  int64_t k1 = in[0]->shape.back(), k2 = in[2]->shape.back();
  int64_t capacity = values->shape.back();
  int64_t rows = capacity == 0 ? 0 : values->size() / capacity;
  for (int64_t r = 0; r < rows; ++r) {
    std::map<int64_t, Complex> lhs, rhs;
    for (auto [side, k, map] : {std::tuple{0, k1, &lhs}, std::tuple{2, k2, &rhs}})
      for (int64_t j = 0; j < k; ++j) {
        int64_t index = int64_t(in[side + 1]->data[r * k + j].real());
        if (index < -1)
          return opError(op, "index " + llvm::Twine(index) +
                                 " is negative (-1 marks an empty slot)");
        if (index >= 0)
          (*map)[index] += in[side]->data[r * k + j];
      }
    std::map<int64_t, Complex> merged;
    if (isUnion) {
      merged = lhs;
      for (auto [index, v] : rhs)
        merged[index] += v;
    } else {
      for (auto [index, v] : lhs)
        if (auto it = rhs.find(index); it != rhs.end())
          merged[index] = v * it->second;
    }
    int64_t j = 0;
    for (auto [index, v] : merged) {
      values->data[r * capacity + j] = v;
      indices->data[r * capacity + j++] = double(index);
    }
    for (; j < capacity; ++j)
      indices->data[r * capacity + j] = -1.0;
  }
  std::vector<Tensor> out;
  out.push_back(std::move(*values));
  out.push_back(std::move(*indices));
  return out;
}

} // namespace

std::optional<Results> evaluateSpectral(Operation *op, Operands in) {
  using Op = Operation *;
  return llvm::TypeSwitch<Op, std::optional<Results>>(op)
      .Case([&](sp::FftOp fft) { return complexTransform(fft, *in[0], false); })
      .Case([&](sp::IfftOp ifft) { return complexTransform(ifft, *in[0], true); })
      .Case([&](sp::RfftOp rfft) -> Results {
        if (llvm::Error error = checkTransformCost(
                op, in[0]->size(), lengthsAlong(in[0]->shape, rfft.getAxes())))
          return error;
        std::vector<int64_t> shape;
        std::vector<Complex> data = rdft(realParts(*in[0]), in[0]->shape,
                                         rfft.getAxes(), normOf(rfft.getNorm()), shape);
        return withData(op, std::move(data));
      })
      .Case([&](sp::IrfftOp irfft) -> Results {
        // Counted on the real output (`length` may exceed the input's bins),
        // whose size is checked first: irdft allocates it.
        auto type = cast<RankedTensorType>(irfft.getType());
        std::optional<int64_t> count = sp::checkedElementCount(type.getShape());
        if (!count || *count > kMaxReferenceElements)
          return zerosLike(op, type).takeError();
        if (llvm::Error error = checkTransformCost(
                op, *count, lengthsAlong(type.getShape(), irfft.getAxes())))
          return error;
        std::vector<int64_t> shape;
        std::vector<double> data =
            irdft(in[0]->data, in[0]->shape, irfft.getAxes(),
                  int64_t(irfft.getLength()), normOf(irfft.getNorm()), shape);
        return withData(op, std::vector<Complex>(data.begin(), data.end()));
      })
      .Case([&](sp::DctOp d) { return cosineTransform(d, *in[0], false); })
      .Case([&](sp::IdctOp d) { return cosineTransform(d, *in[0], true); })
      .Case([&](sp::TopkModesOp t) { return topk(t, *in[0]); })
      .Case([&](sp::GatherOp g) { return gather(g, *in[0], *in[1]); })
      .Case([&](sp::ScatterOp s) { return scatter(s, *in[0], *in[1]); })
      .Case([&](sp::SparseAddOp) { return sparseBinary(op, in, true); })
      .Case([&](sp::SparseMulOp) { return sparseBinary(op, in, false); })
      .Default([](Op) { return std::nullopt; });
}

} // namespace spectral::reference
