// purefft - trains the PureFFT classifier (shared/seeds) on Fashion-MNIST.
//
// Features: the real and imaginary parts of the 2-D rfft of each 28 x 28
// image (2 x 28 x 15 = 840 values), standardised with the training set's
// mean and deviation. Model: a pool of P patterns over the 840 frequencies,
// L layers that each pick a softmax mix of the pool (scored against the
// layer's own pattern) and multiply the features by it, and 10 class
// patterns matched against the result; all initialised as cosines x 0.02.
// Loss: cross-entropy; optimizer: Adam (one compiled training step, the
// parameters and Adam's moments updated in place, the learning rate data).
//
// Usage: purefft [--epochs=5] [--batch=128] [--lr=0.01] [--patterns=32] [--layers=4]
//                [--seed=1] [--device=default|host|cuda] [--data=DIR]
//                [--train-limit=N] [--test-limit=N] [--curve=FILE.csv]
//                [--checkpoint=FILE] [--resume=FILE]
//
// --checkpoint writes the parameters, Adam's state, the step count, the
// shuffling generator and the settings after every epoch (atomically);
// --resume continues from such a file with the next epoch, exactly as the
// uninterrupted run would have.
#include "fashion_mnist.h"

#include <spectral/checkpoint.h>
#include <spectral/compiler.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>

namespace {

using spectral::DType;
using spectral::Expected;
using spectral::Graph;
using spectral::Status;
using spectral::Tensor;
using spectral::Value;

constexpr int64_t kClasses = 10, kRows = 28, kCols = 28, kBins = kCols / 2 + 1;
constexpr int64_t kFeatures = 2 * kRows * kBins;  // 840
constexpr int64_t kEvalBatch = 500;               // rows of one feature or evaluation run

struct Config {
  std::string data = purefft::kFashionMnistDir;
  int epochs = 5;
  int64_t batch = 128, patterns = 32, layers = 4, train_limit = 0, test_limit = 0;
  double lr = 1e-2;
  uint64_t seed = 1;
  spectral::DeviceKind device = spectral::DeviceKind::kDefault;
  std::string curve = "purefft_curve.csv";
  std::string checkpoint, resume;
  /// What a checkpoint must agree on to be resumed.
  std::string settings() const {
    return "batch=" + std::to_string(batch) + " patterns=" + std::to_string(patterns) +
           " layers=" + std::to_string(layers) + " train_limit=" + std::to_string(train_limit) +
           " seed=" + std::to_string(seed) + " lr=" + std::to_string(lr);
  }
};

const char* const kUsage =
    "usage: purefft [--epochs=5] [--batch=128] [--lr=0.01] [--patterns=32] [--layers=4]\n"
    "               [--seed=1] [--device=default|host|cuda] [--data=DIR]\n"
    "               [--train-limit=N] [--test-limit=N] [--curve=FILE.csv]\n"
    "               [--checkpoint=FILE] [--resume=FILE]\n";

int fail(const std::string& message) {
  std::fprintf(stderr, "purefft: error: %s\n", message.c_str());
  return 1;
}

/// Parses --name=value flags; the error names the flag.
Expected<Config> parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq), value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    auto number = [&](double low) -> Expected<double> {
      char* end = nullptr;
      const double v = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(v >= low) || !(v <= 1e12))
        return Status::error(name + ": expected a number from " + std::to_string(int64_t(low)) +
                             " to 10^12, got '" + value + "'");
      return v;
    };
    Expected<double> v = 0.0;
    if (name == "--help" || name == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    } else if (name == "--data") {
      c.data = value;
    } else if (name == "--curve") {
      c.curve = value;
    } else if (name == "--checkpoint") {
      c.checkpoint = value;
    } else if (name == "--resume") {
      c.resume = value;
    } else if (name == "--device") {
      Expected<spectral::DeviceKind> kind = spectral::parse_device_kind(value);
      if (!kind) return kind.status();
      c.device = *kind;
    } else if (name == "--lr") {
      if (!(v = number(0))) return v.status();
      c.lr = *v;
    } else if (name == "--epochs" || name == "--batch" || name == "--patterns" ||
               name == "--layers" || name == "--seed" || name == "--train-limit" ||
               name == "--test-limit") {
      if (!(v = number(name == "--seed" || name.find("limit") != std::string::npos ? 0 : 1)) ||
          *v != std::floor(*v))
        return Status::error(name + ": expected a whole number, got '" + value + "'");
      const int64_t n = int64_t(*v);
      if (name == "--epochs") c.epochs = int(n);
      if (name == "--batch") c.batch = n;
      if (name == "--patterns") c.patterns = n;
      if (name == "--layers") c.layers = n;
      if (name == "--seed") c.seed = uint64_t(n);
      if (name == "--train-limit") c.train_limit = n;
      if (name == "--test-limit") c.test_limit = n;
    } else {
      return Status::error("unknown argument '" + arg + "'\n" + kUsage);
    }
  }
  return c;
}

/// The rfft2 features of the images, [count, 840], in batches of kEvalBatch.
Expected<std::vector<float>> features(const purefft::Dataset& data, const spectral::CompileOptions& options) {
  Graph g("features");
  Value images = g.input(DType::kFloat32, {kEvalBatch, kRows, kCols});
  Value spectrum = g.rfft(images, {1, 2});
  Value parts = g.concat({g.real(spectrum), g.imag(spectrum)}, 1);
  if (Status status = g.output({g.reshape(parts, {kEvalBatch, kFeatures})}); !status) return status;
  Expected<spectral::Model> model = spectral::compile(g, options);
  if (!model) return model.status();
  std::vector<float> out(size_t(data.count * kFeatures));
  Tensor batch = Tensor::zeros(DType::kFloat32, {kEvalBatch, kRows, kCols});
  Tensor result = Tensor::zeros(DType::kFloat32, {kEvalBatch, kFeatures});
  const int64_t pixels = kRows * kCols;
  for (int64_t first = 0; first < data.count; first += kEvalBatch) {
    const int64_t n = std::min(kEvalBatch, data.count - first);
    std::fill(batch.as<float>(), batch.as<float>() + batch.elements(), 0.0f);
    for (int64_t i = 0; i < n * pixels; ++i)
      batch.as<float>()[i] = float(data.images[size_t(first * pixels + i)]) / 255.0f;
    if (Status status = model->run({batch}, {result}); !status) return status;
    std::copy(result.as<float>(), result.as<float>() + n * kFeatures, out.begin() + first * kFeatures);
  }
  return out;
}

/// Standardises every feature column with the training set's mean and
/// deviation (each column's sums in row order, the rows walked in memory order).
void standardise(std::vector<float>& train, std::vector<float>& test) {
  const size_t rows = train.size() / kFeatures;
  std::vector<double> mean(kFeatures), scale(kFeatures);
  for (size_t r = 0; r < rows; ++r)
    for (int64_t f = 0; f < kFeatures; ++f) mean[f] += train[r * kFeatures + f];
  for (double& m : mean) m /= double(rows);
  for (size_t r = 0; r < rows; ++r)
    for (int64_t f = 0; f < kFeatures; ++f) {
      const double d = train[r * kFeatures + f] - mean[f];
      scale[f] += d * d;
    }
  for (double& s : scale) {
    const double deviation = std::sqrt(s / double(rows));
    s = deviation > 1e-6 ? 1.0 / deviation : 0.0;  // constant bins (imag of DC) vanish
  }
  for (std::vector<float>* set : {&train, &test})
    for (size_t r = 0; r < set->size() / kFeatures; ++r)
      for (int64_t f = 0; f < kFeatures; ++f)
        (*set)[r * kFeatures + f] = float(((*set)[r * kFeatures + f] - mean[f]) * scale[f]);
}

/// Class scores [batch, 10] of features x [batch, 840] (the PureFFT forward
/// pass, written as the seed states it; spectral-simplify turns each layer's
/// batch x patterns x frequencies product into one scale of the features).
Value scores(Graph& g, Value x, Value pool, Value layers, Value classes, int64_t batch,
             int64_t count) {
  Value h = g.reshape(x, {batch, 1, kFeatures});
  for (int64_t l = 0; l < count; ++l) {
    Value selector = g.slice(layers, {l, 0}, {l + 1, kFeatures});
    Value weights = g.softmax(g.reduce_sum(g.mul(pool, selector), {1}, true), 0);  // [P, 1]
    Value weighted = g.mul(pool, weights);                                          // [P, F]
    h = g.reduce_sum(g.mul(h, weighted), {1}, true);                                // [B, 1, F]
  }
  return g.reduce_sum(g.mul(h, classes), {2});  // [B, 10]
}

/// A [rows, kFeatures] tensor of cos(2 pi i t / period) * 0.02.
Tensor cosineInit(int64_t rows, int64_t period) {
  Tensor t = Tensor::zeros(DType::kFloat32, {rows, kFeatures});
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t f = 0; f < kFeatures; ++f)
      t.as<float>()[i * kFeatures + f] =
          float(std::cos(2 * M_PI * double(i) * double(f) / double(period)) * 0.02);
  return t;
}

/// Whether `program` is an executable file on the PATH.
bool onPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  for (size_t start = 0, end; start <= dirs.size(); start = end + 1) {
    end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty() && access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

/// FILE.png beside FILE.csv, plotted by gnuplot when it is installed: the
/// training loss and the test accuracy per epoch. Says what it did.
void plot(const std::string& csv) {
  if (!onPath("gnuplot")) {
    std::printf("(no PNG of the curve: gnuplot is not installed)\n");
    return;
  }
  if (csv.find_first_of("'\"\n") != std::string::npos) {
    std::printf("(no PNG of the curve: its path has a quote or a newline)\n");
    return;
  }
  const size_t slash = csv.rfind('/'), dot = csv.rfind('.');
  const std::string png =
      (dot != std::string::npos && (slash == std::string::npos || dot > slash) ? csv.substr(0, dot)
                                                                               : csv) +
      ".png";
  FILE* gnuplot = popen("gnuplot", "w");
  if (!gnuplot) return;
  std::fprintf(gnuplot,
               "set terminal png size 800,500\nset output '%s'\nset datafile separator ','\n"
               "set key autotitle columnhead\nset xlabel 'epoch'\nset ylabel 'training loss'\n"
               "set y2label 'test accuracy (%%)'\nset ytics nomirror\nset y2tics\n"
               "plot '%s' using 1:3 with linespoints title 'training loss', "
               "'' using 1:4 axes x1y2 with linespoints title 'test accuracy'\n",
               png.c_str(), csv.c_str());
  if (pclose(gnuplot) == 0)
    std::printf("plot: %s\n", png.c_str());
  else
    std::printf("(gnuplot could not plot %s)\n", png.c_str());
}

std::string duration(double seconds) {
  char text[32];
  if (seconds < 60)
    std::snprintf(text, sizeof text, "%.0fs", seconds);
  else
    std::snprintf(text, sizeof text, "%dm%02ds", int(seconds) / 60, int(seconds) % 60);
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  Expected<Config> parsed = parse(argc, argv);
  if (!parsed) return fail(parsed.status().message());
  const Config c = *parsed;
  spectral::CompileOptions options;
  options.device = c.device;

  Expected<purefft::Dataset> train = purefft::load_fashion_mnist(c.data, "train", c.train_limit);
  if (!train) return fail(train.status().message());
  Expected<purefft::Dataset> test = purefft::load_fashion_mnist(c.data, "t10k", c.test_limit);
  if (!test) return fail(test.status().message());
  if (train->count < c.batch)
    return fail("--batch=" + std::to_string(c.batch) + " is more than the " +
                std::to_string(train->count) + " training examples");
  std::printf("Fashion-MNIST from %s: %lld training, %lld test images\n", c.data.c_str(),
              (long long)train->count, (long long)test->count);

  const auto start = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  Expected<std::vector<float>> trainFeatures = features(*train, options);
  if (!trainFeatures) return fail(trainFeatures.status().message());
  Expected<std::vector<float>> testFeatures = features(*test, options);
  if (!testFeatures) return fail(testFeatures.status().message());
  standardise(*trainFeatures, *testFeatures);

  // The loss graph, its training step, and the evaluation graph.
  Graph loss("purefft");
  Value x = loss.input(DType::kFloat32, {c.batch, kFeatures});
  Value labels = loss.input(DType::kInt32, {c.batch});
  Value pool = loss.input(DType::kFloat32, {c.patterns, kFeatures});
  Value layers = loss.input(DType::kFloat32, {c.layers, kFeatures});
  Value classes = loss.input(DType::kFloat32, {kClasses, kFeatures});
  Value s = scores(loss, x, pool, layers, classes, c.batch, c.layers);
  if (Status status = loss.output({loss.cross_entropy(s, labels)}); !status)
    return fail(status.message());
  Expected<Graph> stepGraph = spectral::training_step(loss, {2, 3, 4});
  if (!stepGraph) return fail(stepGraph.status().message());
  Expected<spectral::Model> step = spectral::compile(*stepGraph, options);
  if (!step) return fail(step.status().message());

  Graph evaluation("purefft_scores");
  Value ex = evaluation.input(DType::kFloat32, {kEvalBatch, kFeatures});
  Value ep = evaluation.input(DType::kFloat32, {c.patterns, kFeatures});
  Value el = evaluation.input(DType::kFloat32, {c.layers, kFeatures});
  Value ec = evaluation.input(DType::kFloat32, {kClasses, kFeatures});
  if (Status status = evaluation.output(
          {scores(evaluation, ex, ep, el, ec, kEvalBatch, c.layers)});
      !status)
    return fail(status.message());
  Expected<spectral::Model> evaluate = spectral::compile(evaluation, options);
  if (!evaluate) return fail(evaluate.status().message());
  std::printf("on %s: training step %d kernels, evaluation %d kernels (compiled in %.1f s with "
              "the features)\n",
              step->device_name().c_str(), step->kernel_count(), evaluate->kernel_count(),
              since(start));

  // Parameters, Adam's moments (m, v per parameter) and the step count.
  std::vector<Tensor> params{cosineInit(c.patterns, c.patterns), cosineInit(c.layers, c.layers),
                             cosineInit(kClasses, kClasses)};
  std::vector<Tensor> moments;
  for (const Tensor& p : params)
    for (int k = 0; k < 2; ++k) moments.push_back(Tensor::zeros(DType::kFloat32, p.shape()));
  Tensor xb = Tensor::zeros(DType::kFloat32, {c.batch, kFeatures});
  Tensor yb = Tensor::zeros(DType::kInt32, {c.batch});
  Tensor lr = Tensor::zeros(DType::kFloat32, {}), count = Tensor::zeros(DType::kInt64, {});
  Tensor lossValue = Tensor::zeros(DType::kFloat32, {});
  std::vector<Tensor> inputs{xb, yb, params[0], params[1], params[2], lr};
  inputs.insert(inputs.end(), moments.begin(), moments.end());
  inputs.push_back(count);
  std::vector<Tensor> outputs{lossValue, params[0], params[1], params[2]};
  outputs.insert(outputs.end(), moments.begin(), moments.end());

  auto testAccuracy = [&]() -> Expected<double> {
    Tensor batch = Tensor::zeros(DType::kFloat32, {kEvalBatch, kFeatures});
    Tensor result = Tensor::zeros(DType::kFloat32, {kEvalBatch, kClasses});
    int64_t correct = 0;
    for (int64_t first = 0; first < test->count; first += kEvalBatch) {
      const int64_t n = std::min(kEvalBatch, test->count - first);
      std::fill(batch.as<float>(), batch.as<float>() + batch.elements(), 0.0f);
      std::copy(testFeatures->begin() + first * kFeatures,
                testFeatures->begin() + (first + n) * kFeatures, batch.as<float>());
      if (Status status = evaluate->run({batch, params[0], params[1], params[2]}, {result}); !status)
        return status;
      for (int64_t i = 0; i < n; ++i) {
        const float* row = result.as<float>() + i * kClasses;
        correct += (std::max_element(row, row + kClasses) - row) == test->labels[size_t(first + i)];
      }
    }
    return 100.0 * double(correct) / double(test->count);
  };

  std::mt19937_64 random(c.seed);
  int firstEpoch = 1;
  int64_t global = 0;
  const std::vector<std::string> names{"pool", "layers", "classes", "pool.m", "pool.v",
                                       "layers.m", "layers.v", "classes.m", "classes.v"};
  std::vector<Tensor> state{params[0], params[1], params[2]};
  state.insert(state.end(), moments.begin(), moments.end());
  if (!c.resume.empty()) {
    Expected<spectral::Checkpoint> saved = spectral::load_checkpoint(c.resume);
    if (!saved) return fail(saved.status().message());
    const std::string* settings = saved->value("settings");
    if (!settings || *settings != c.settings())
      return fail(c.resume + ": written with " + (settings ? *settings : std::string("no settings")) +
                  ", this run has " + c.settings());
    for (size_t i = 0; i < names.size(); ++i) {
      const Tensor* t = saved->tensor(names[i]);
      if (!t) return fail(c.resume + ": no tensor '" + names[i] + "'");
      if (t->dtype() != state[i].dtype() || t->shape() != state[i].shape())
        return fail(c.resume + ": tensor '" + names[i] + "' is " + t->type_string() + ", expected " +
                    state[i].type_string());
      std::memcpy(state[i].data(), t->data(), t->bytes());
    }
    for (const char* key : {"random", "epoch", "step"})
      if (!saved->value(key)) return fail(c.resume + ": no '" + key + "' in the checkpoint");
    std::istringstream generator(*saved->value("random"));
    generator >> random;
    char* end = nullptr;
    const long epoch = std::strtol(saved->value("epoch")->c_str(), &end, 10);
    const bool epochOk = !saved->value("epoch")->empty() && !*end;
    const long long stepCount = std::strtoll(saved->value("step")->c_str(), &end, 10);
    const bool stepOk = !saved->value("step")->empty() && !*end;
    if (generator.fail() || !epochOk || !stepOk || epoch < 1 || epoch > 1000000 ||
        stepCount != epoch * (train->count / c.batch))
      return fail(c.resume + ": its 'random', 'epoch' or 'step' is damaged (epoch '" +
                  *saved->value("epoch") + "', step '" + *saved->value("step") + "')");
    firstEpoch = int(epoch) + 1;
    global = stepCount;
    if (firstEpoch > c.epochs)
      return fail("--epochs=" + std::to_string(c.epochs) + ": " + c.resume +
                  " is after epoch " + std::to_string(firstEpoch - 1) + " already");
    std::printf("resumed from %s after epoch %d (step %lld)\n", c.resume.c_str(), firstEpoch - 1,
                (long long)global);
  }
  auto save = [&](int epoch) -> Status {
    spectral::Checkpoint checkpoint;
    for (size_t i = 0; i < names.size(); ++i) checkpoint.tensors.push_back({names[i], state[i]});
    std::ostringstream generator;
    generator << random;
    checkpoint.metadata = {{"settings", c.settings()},
                           {"epoch", std::to_string(epoch)},
                           {"step", std::to_string(global)},
                           {"random", generator.str()}};
    return spectral::save_checkpoint(c.checkpoint, checkpoint);
  };

  // A resumed run appends to the curve the run it continues wrote.
  const bool appending = !c.resume.empty() && !c.curve.empty() && access(c.curve.c_str(), F_OK) == 0;
  FILE* curve = c.curve.empty() ? nullptr : std::fopen(c.curve.c_str(), appending ? "a" : "w");
  if (!c.curve.empty() && !curve) return fail(c.curve + ": " + std::strerror(errno));
  if (curve && !appending) std::fprintf(curve, "epoch,step,train_loss,test_accuracy,seconds\n");
  const bool terminal = isatty(2);
  const int64_t steps = train->count / c.batch;  // the last partial batch is left out
  std::vector<int64_t> order(size_t(train->count));
  double accuracy = 0;
  for (int epoch = firstEpoch; epoch <= c.epochs; ++epoch) {
    // Each epoch shuffles the identity: a resumed run needs only the generator.
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), random);
    const auto epochStart = std::chrono::steady_clock::now();
    double lossSum = 0;
    for (int64_t s = 0; s < steps; ++s) {
      for (int64_t i = 0; i < c.batch; ++i) {
        const int64_t e = order[size_t(s * c.batch + i)];
        std::copy(trainFeatures->begin() + e * kFeatures, trainFeatures->begin() + (e + 1) * kFeatures,
                  xb.as<float>() + i * kFeatures);
        yb.as<int32_t>()[i] = train->labels[size_t(e)];
      }
      *lr.as<float>() = float(c.lr);
      *count.as<int64_t>() = ++global;
      if (Status status = step->run(inputs, outputs); !status) return fail(status.message());
      lossSum += *lossValue.as<float>();
      // A progress line: redrawn on a terminal, every tenth of the epoch otherwise.
      const int64_t done = s + 1;
      if (terminal || done * 10 / steps != (done - 1) * 10 / steps || done == steps) {
        const double elapsed = since(epochStart);
        const double rate = double(done * c.batch) / std::max(elapsed, 1e-9);
        const int width = 24, filled = int(width * done / steps);
        std::fprintf(stderr, "%sepoch %d/%d [%s%s] %lld/%lld loss %.4f %.0f examples/s ETA %s%s",
                     terminal ? "\r" : "", epoch, c.epochs, std::string(size_t(filled), '=').c_str(),
                     std::string(size_t(width - filled), ' ').c_str(), (long long)done,
                     (long long)steps, lossSum / double(done), rate,
                     duration(double(steps - done) * c.batch / rate).c_str(),
                     terminal && done != steps ? "" : "\n");
      }
    }
    Expected<double> tested = testAccuracy();
    if (!tested) return fail(tested.status().message());
    accuracy = *tested;
    const double seconds = since(epochStart);
    std::printf("epoch %d: train loss %.4f, test accuracy %.2f%%, %.1f s (%.0f examples/s)\n", epoch,
                lossSum / double(steps), accuracy, seconds, double(steps * c.batch) / seconds);
    if (curve)
      std::fprintf(curve, "%d,%lld,%.6f,%.4f,%.3f\n", epoch, (long long)global,
                   lossSum / double(steps), accuracy, since(start));
    if (!c.checkpoint.empty()) {
      if (Status status = save(epoch); !status) return fail(status.message());
    }
  }
  if (!c.checkpoint.empty()) std::printf("checkpoint: %s\n", c.checkpoint.c_str());
  if (curve) {
    std::fclose(curve);
    std::printf("loss and accuracy per epoch: %s\n", c.curve.c_str());
    plot(c.curve);
  }
  std::printf("final test accuracy: %.2f%% after %d epochs (%.1f s in all)\n", accuracy, c.epochs,
              since(start));
  return 0;
}
