//===- TrainingOps.cpp - reference semantics: contractions, loss, steps --===//
#include "compiler/Reference/EvaluatorInternal.h"

#include "dialects/spectral/IR/SpectralOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
namespace sp = mlir::spectral;

namespace spectral::reference {
namespace {

/// The elements of `op`'s (static) result: what a contraction's cost is
/// checked on before its result is allocated.
int64_t resultElements(Operation *op) {
  return cast<ShapedType>(op->getResult(0).getType()).getNumElements();
}

Results matmul(sp::MatmulOp op, const Tensor &a, const Tensor &b) {
  int64_t k = a.shape.back();
  if (llvm::Error error = checkContractionCost(op, resultElements(op), k))
    return error;
  llvm::Expected<Tensor> out = zerosLike(op, op.getType());
  if (!out)
    return out.takeError();
  size_t rank = out->shape.size();
  int64_t m = out->shape[rank - 2], n = out->shape[rank - 1];
  std::vector<int64_t> batch(out->shape.begin(), out->shape.end() - 2);
  std::vector<int64_t> batchA(a.shape.begin(), a.shape.end() - 2);
  std::vector<int64_t> batchB(b.shape.begin(), b.shape.end() - 2);
  int64_t batches = m * n == 0 ? 0 : out->size() / (m * n);
  for (int64_t t = 0; t < batches; ++t) {
    const Complex *x = a.data.data() + sp::broadcastSourceIndex(batch, batchA, t) * m * k;
    const Complex *y = b.data.data() + sp::broadcastSourceIndex(batch, batchB, t) * k * n;
    Complex *z = out->data.data() + t * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t l = 0; l < k; ++l)
          z[i * n + j] += x[i * k + l] * y[l * n + j];
  }
  return single(std::move(*out));
}

/// out[b, o, s] = sum_i x[b, i, s] * w[i, o, s].
Results channelMix(sp::ChannelMixOp op, const Tensor &x, const Tensor &w) {
  int64_t batch = x.shape[0], in = x.shape[1], outChannels = w.shape[1];
  if (llvm::Error error = checkContractionCost(op, resultElements(op), in))
    return error;
  llvm::Expected<Tensor> out = zerosLike(op, op.getType());
  if (!out)
    return out.takeError();
  int64_t modes = in == 0 || batch == 0 ? 0 : x.size() / (batch * in);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < outChannels; ++o)
      for (int64_t i = 0; i < in; ++i)
        for (int64_t s = 0; s < modes; ++s)
          out->data[(b * outChannels + o) * modes + s] +=
              x.data[(b * in + i) * modes + s] * w.data[(i * outChannels + o) * modes + s];
  return single(std::move(*out));
}

Results crossEntropy(sp::CrossEntropyOp op, const Tensor &logits,
                     const Tensor &labels) {
  int64_t rows = logits.shape[0], classes = logits.shape[1];
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t label = int64_t(labels.data[r].real());
    if (label < 0 || label >= classes)
      return opError(op, "label " + llvm::Twine(label) + " of row " +
                             llvm::Twine(r) + " is out of range [0, " +
                             llvm::Twine(classes) + ")");
    const Complex *row = logits.data.data() + r * classes;
    double max = row[0].real();
    for (int64_t c = 1; c < classes; ++c)
      max = std::max(max, row[c].real());
    double sum = 0;
    for (int64_t c = 0; c < classes; ++c)
      sum += std::exp(row[c].real() - max);
    total += max + std::log(sum) - row[label].real();
  }
  llvm::Expected<Tensor> out = zerosLike(op, op.getType());
  if (!out)
    return out.takeError();
  out->data[0] = total / double(rows); // NaN for no rows, as a mean of nothing
  return single(std::move(*out));
}

Results mse(sp::MseOp op, const Tensor &prediction, const Tensor &target) {
  double total = 0;
  for (int64_t i = 0; i < prediction.size(); ++i)
    total += std::norm(prediction.data[i] - target.data[i]);
  llvm::Expected<Tensor> out = zerosLike(op, op.getType());
  if (!out)
    return out.takeError();
  out->data[0] = total / double(prediction.size()); // NaN when empty
  return single(std::move(*out));
}

/// The learning rate: the attribute, or the value of the lr_from operand
/// (the last of `in` when present).
double learningRate(std::optional<llvm::APFloat> attr, Operands in) {
  return attr ? attr->convertToDouble() : in.back()->data[0].real();
}

Results sgdStep(sp::SgdStepOp op, Operands in) {
  const Tensor &p = *in[0], &g = *in[1], &v = *in[2];
  double lr = learningRate(op.getLr(), in);
  double momentum = op.getMomentum().convertToDouble();
  double decay = op.getWeightDecay().convertToDouble();
  Tensor param = p, velocity = v;
  for (int64_t i = 0; i < p.size(); ++i) {
    Complex grad = g.data[i] + decay * p.data[i];
    velocity.data[i] = momentum * v.data[i] + grad;
    Complex update = op.getNesterov() ? grad + momentum * velocity.data[i]
                                      : velocity.data[i];
    param.data[i] = p.data[i] - lr * update;
  }
  std::vector<Tensor> out;
  out.push_back(std::move(param));
  out.push_back(std::move(velocity));
  return out;
}

Results adamStep(sp::AdamStepOp op, Operands in) {
  const Tensor &p = *in[0], &g = *in[1], &m = *in[2], &v = *in[3];
  double step = in[4]->data[0].real();
  if (step < 1)
    return opError(op, "step " + llvm::Twine(int64_t(step)) +
                           " must be >= 1 (the count of updates so far, 1-based)");
  double lr = learningRate(op.getLr(), in);
  double beta1 = op.getBeta1().convertToDouble();
  double beta2 = op.getBeta2().convertToDouble();
  double eps = op.getEps().convertToDouble();
  double decay = op.getWeightDecay().convertToDouble();
  double correction1 = 1 - std::pow(beta1, step);
  double correction2 = 1 - std::pow(beta2, step);
  Tensor param = p, first = m, second = v;
  for (int64_t i = 0; i < p.size(); ++i) {
    Complex grad = g.data[i];
    Complex weight = p.data[i];
    if (op.getDecoupled())
      weight *= 1 - lr * decay;
    else
      grad += decay * p.data[i];
    first.data[i] = beta1 * m.data[i] + (1 - beta1) * grad;
    second.data[i] = beta2 * v.data[i].real() + (1 - beta2) * std::norm(grad);
    param.data[i] = weight - lr * (first.data[i] / correction1) /
                                 (std::sqrt(second.data[i].real() / correction2) + eps);
  }
  std::vector<Tensor> out;
  out.push_back(std::move(param));
  out.push_back(std::move(first));
  out.push_back(std::move(second));
  return out;
}

Results clipGlobalNorm(sp::ClipGlobalNormOp op, Operands in) {
  double squares = 0;
  for (const Tensor *t : in)
    for (Complex z : t->data)
      squares += std::norm(z);
  double norm = std::sqrt(squares);
  double maxNorm = op.getMaxNorm().convertToDouble();
  double scale = norm > maxNorm ? maxNorm / norm : 1.0;
  std::vector<Tensor> out;
  for (const Tensor *t : in) {
    out.push_back(*t);
    for (Complex &z : out.back().data)
      z *= scale;
  }
  llvm::Expected<Tensor> normTensor = zerosLike(op, op.getNorm().getType());
  if (!normTensor)
    return normTensor.takeError();
  normTensor->data[0] = norm;
  out.push_back(std::move(*normTensor));
  return out;
}

} // namespace

std::optional<Results> evaluateTraining(Operation *op, Operands in) {
  using Op = Operation *;
  return llvm::TypeSwitch<Op, std::optional<Results>>(op)
      .Case([&](sp::MatmulOp m) { return matmul(m, *in[0], *in[1]); })
      .Case([&](sp::ChannelMixOp c) { return channelMix(c, *in[0], *in[1]); })
      .Case([&](sp::CrossEntropyOp c) { return crossEntropy(c, *in[0], *in[1]); })
      .Case([&](sp::MseOp m) { return mse(m, *in[0], *in[1]); })
      .Case([&](sp::SgdStepOp s) { return sgdStep(s, in); })
      .Case([&](sp::AdamStepOp a) { return adamStep(a, in); })
      .Case([&](sp::ClipGlobalNormOp c) { return clipGlobalNorm(c, in); })
      .Default([](Op) { return std::nullopt; });
}

} // namespace spectral::reference
