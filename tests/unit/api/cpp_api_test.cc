// The public C++ API (include/spectral/): graphs built op by op, compiled and
// run on the host device, checked against the reference evaluator; errors as
// values; artifacts; DLPack; one Model run from 8 threads.
#include "spectral/compiler.h"
#include "spectral/dlpack.h"
#include "spectral/runtime.h"

#include "compiler/API/Jit.h"
#include "compiler/API/Validate.h"
#include "compiler/Reference/Evaluator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

namespace spectral {
namespace {

std::string repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

CompileOptions onHost() {
  CompileOptions options;
  options.device = DeviceKind::kHost;
  return options;
}

Tensor randomTensor(DType dtype, std::vector<int64_t> shape, uint32_t seed) {
  Tensor t = Tensor::zeros(dtype, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (int64_t i = 0; i < t.elements(); ++i) {
    switch (dtype) {
      case DType::kFloat32: t.as<float>()[i] = float(uniform(rng)); break;
      case DType::kFloat64: t.as<double>()[i] = uniform(rng); break;
      case DType::kComplex64:
        t.as<std::complex<float>>()[i] = {float(uniform(rng)), float(uniform(rng))};
        break;
      case DType::kComplex128: t.as<std::complex<double>>()[i] = {uniform(rng), uniform(rng)};
        break;
      case DType::kInt32: t.as<int32_t>()[i] = int32_t(rng() % 5); break;
      case DType::kInt64: t.as<int64_t>()[i] = int64_t(rng() % 5); break;
      case DType::kBool: t.as<bool>()[i] = rng() % 2; break;
    }
  }
  return t;
}

HostTensor toHost(const Tensor& t) {
  const auto* bytes = static_cast<const uint8_t*>(t.data());
  return {t.dtype(), t.shape(), std::vector<uint8_t>(bytes, bytes + t.bytes())};
}

/// Runs `graph` compiled on the host and the reference evaluator on its text;
/// every result must agree (1e-4 relative for 32-bit types).
void expectMatchesReference(const Graph& graph, const std::vector<Tensor>& inputs,
                            const CompileOptions& options = onHost()) {
  ASSERT_TRUE(graph.status()) << graph.status().message();
  Expected<Model> model = compile(graph, options);
  ASSERT_TRUE(model) << model.status().message();
  Expected<std::vector<Tensor>> got = model->run(inputs);
  ASSERT_TRUE(got) << got.status().message();

  std::unique_ptr<mlir::MLIRContext> context = createContext();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(graph.str(), context.get());
  ASSERT_TRUE(module) << graph.str();
  auto function = module->lookupSymbol<mlir::func::FuncOp>(graph.function());
  std::vector<reference::Tensor> referenceInputs;
  for (const Tensor& input : inputs) referenceInputs.push_back(toReferenceTensor(toHost(input)));
  auto expected = reference::evaluate(function, referenceInputs);
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  ASSERT_EQ(got->size(), expected->size());
  for (size_t i = 0; i < got->size(); ++i) {
    Agreement agreement = compareWithReference(toHost((*got)[i]), (*expected)[i],
                                               defaultTolerance((*got)[i].dtype()));
    EXPECT_TRUE(agreement.pass) << "result #" << i << " of\n"
                                << graph.str() << agreement.mismatch
                                << " relative error " << agreement.relative;
  }
}

TEST(CppApi, FnoLayerBuiltOpByOpMatchesTheReference) {
  Graph g("fno_layer");
  Value x = g.input(DType::kFloat32, {4, 8, 32});
  Value w = g.constant(randomTensor(DType::kComplex64, {8, 8, 6}, 7));
  Value spectrum = g.rfft(x, {2});
  EXPECT_EQ(spectrum.type_string(), "tensor<4x8x17xcomplex<f32>>");
  Value low = g.slice(spectrum, {0, 0, 0}, {4, 8, 6});
  Value mixed = g.channel_mix(low, w);
  Value padded = g.pad(mixed, {0, 0, 0}, {0, 0, 11});
  Value y = g.irfft(padded, {2}, 32);
  Value out = g.gelu(g.add(y, g.mul(x, g.scalar(0.5))));
  ASSERT_TRUE(g.output({out}));
  expectMatchesReference(g, {randomTensor(DType::kFloat32, {4, 8, 32}, 1)});
}

TEST(CppApi, PointwiseMatchTheReference) {
  {
    Graph g("pointwise");
    Value a = g.input(DType::kFloat32, {3, 5});
    Value b = g.input(DType::kFloat32, {5});
    Value z = g.complex(a, g.broadcast(b, {3, 5}));
    std::vector<Value> results{
        g.neg(a), g.exp(a), g.log(g.add(g.abs(a), g.scalar(1))), g.sqrt(g.abs(b)), g.tanh(a),
        g.relu(a), g.gelu(a), g.sigmoid(a), g.sub(a, b), g.div(a, g.add(g.abs(b), g.scalar(1))),
        g.real(g.conj(z)), g.imag(z), g.abs(z),
        g.select(g.compare(Compare::kGt, a, b), a, b),
        g.cast(g.compare(Compare::kLe, a, g.scalar(0)), DType::kInt32),
        g.cast(a, DType::kFloat64)};
    ASSERT_TRUE(g.output(results)) << g.status().message();
    expectMatchesReference(g, {randomTensor(DType::kFloat32, {3, 5}, 2),
                               randomTensor(DType::kFloat32, {5}, 3)});
  }
}

TEST(CppApi, TransformsMatchTheReference) {
  {
    Graph g("transforms");
    Value x = g.input(DType::kFloat32, {4, 16});
    Value c = g.input(DType::kComplex64, {4, 12});
    ASSERT_TRUE(g.output({g.fft(c, {1}), g.ifft(c, {0, 1}, Norm::kOrtho),
                          g.irfft(g.rfft(x, {1}, Norm::kForward), {1}, 16, Norm::kForward),
                          g.dct(x, {1}), g.idct(x, {1}, 2, Norm::kOrtho)}));
    expectMatchesReference(g, {randomTensor(DType::kFloat32, {4, 16}, 4),
                               randomTensor(DType::kComplex64, {4, 12}, 5)});
  }
}

TEST(CppApi, SparseSpectraMatchTheReference) {
  {
    Graph g("sparse");
    Value x = g.input(DType::kComplex64, {2, 16});
    std::vector<Value> top = g.topk_modes(x, 4);
    std::vector<Value> top2 = g.topk_modes(g.mul(x, g.scalar(2, DType::kComplex64)), 4);
    std::vector<Value> sum = g.sparse_add(top[0], top[1], top2[0], top2[1]);
    std::vector<Value> product = g.sparse_mul(top[0], top[1], top2[0], top2[1]);
    ASSERT_TRUE(g.output({g.scatter(top[0], top[1], {2, 16}), g.gather(x, top[1]),
                          g.scatter(sum[0], sum[1], {2, 16}),
                          g.scatter(product[0], product[1], {2, 16})}))
        << g.status().message();
    expectMatchesReference(g, {randomTensor(DType::kComplex64, {2, 16}, 6)});
  }
}

TEST(CppApi, ShapesAndLossesMatchTheReference) {
  {
    Graph g("shapes");
    Value a = g.input(DType::kFloat32, {2, 3, 4});
    Value m = g.input(DType::kFloat32, {2, 4, 5});
    Value labels = g.input(DType::kInt32, {6});
    Value logits = g.reshape(a, {6, 4});
    ASSERT_TRUE(g.output({g.reduce_sum(a, {1}), g.reduce_mean(a, {0, 2}, true),
                          g.reduce_max(a, {2}), g.softmax(a, 2), g.log_softmax(a, 1),
                          g.transpose(a, {2, 0, 1}), g.slice(a, {0, 0, 0}, {2, 3, 4}, {1, 2, 3}),
                          g.concat({a, a}, 1), g.matmul(a, m),
                          g.cross_entropy(logits, labels), g.mse(a, g.neg(a))}))
        << g.status().message();
    Tensor classes = randomTensor(DType::kInt32, {6}, 9);
    for (int i = 0; i < 6; ++i) classes.as<int32_t>()[i] %= 4;
    expectMatchesReference(g, {randomTensor(DType::kFloat32, {2, 3, 4}, 7),
                               randomTensor(DType::kFloat32, {2, 4, 5}, 8), classes});
  }
}

TEST(CppApi, OptimizerStepsMatchTheReference) {
  {
    Graph g("train");
    Value p = g.input(DType::kFloat32, {10}, /*donated=*/true);
    Value grad = g.input(DType::kFloat32, {10});
    Value m = g.input(DType::kFloat32, {10}, true);
    Value v = g.input(DType::kFloat32, {10}, true);
    Value step = g.input(DType::kInt32, {});
    std::vector<Value> clipped = g.clip_global_norm({grad}, 0.5);
    std::vector<Value> adam = g.adam_step(p, clipped[0], m, v, step, {});
    std::vector<Value> sgd = g.sgd_step(p, grad, m, {0.1, 0.9, 0, true});
    ASSERT_TRUE(g.output({adam[0], adam[1], adam[2], sgd[0], sgd[1], clipped[1]}))
        << g.status().message();
    Tensor one = Tensor::zeros(DType::kInt32, {});
    *one.as<int32_t>() = 3;
    Tensor vInit = randomTensor(DType::kFloat32, {10}, 13);
    for (int i = 0; i < 10; ++i) vInit.as<float>()[i] = std::abs(vInit.as<float>()[i]);
    expectMatchesReference(g, {randomTensor(DType::kFloat32, {10}, 10),
                               randomTensor(DType::kFloat32, {10}, 11),
                               randomTensor(DType::kFloat32, {10}, 12), vInit, one});
  }
  {
    // The learning rate as data: one graph, two rates.
    Graph g("scheduled");
    Value p = g.input(DType::kFloat32, {10});
    Value grad = g.input(DType::kFloat32, {10});
    Value m = g.input(DType::kFloat32, {10});
    Value v = g.input(DType::kFloat32, {10});
    Value step = g.input(DType::kInt32, {});
    Value lr = g.input(DType::kFloat32, {});
    AdamOptions adam;
    adam.lr_input = lr;
    adam.decoupled = true;
    adam.weight_decay = 0.1;
    SgdOptions sgd{0, 0.9, 0.01, false, lr};
    std::vector<Value> a = g.adam_step(p, grad, m, v, step, adam);
    std::vector<Value> s = g.sgd_step(p, grad, m, sgd);
    ASSERT_TRUE(g.output({a[0], a[1], a[2], s[0], s[1]})) << g.status().message();
    EXPECT_NE(g.str().find("lr_from(%arg5 : tensor<f32>)"), std::string::npos) << g.str();
    Tensor one = Tensor::zeros(DType::kInt32, {});
    *one.as<int32_t>() = 2;
    Tensor vInit = randomTensor(DType::kFloat32, {10}, 13);
    for (int i = 0; i < 10; ++i) vInit.as<float>()[i] = std::abs(vInit.as<float>()[i]);
    for (float rate : {0.5f, 0.01f}) {
      Tensor lrValue = Tensor::zeros(DType::kFloat32, {});
      *lrValue.as<float>() = rate;
      expectMatchesReference(g, {randomTensor(DType::kFloat32, {10}, 10),
                                 randomTensor(DType::kFloat32, {10}, 11),
                                 randomTensor(DType::kFloat32, {10}, 12), vInit, one, lrValue});
    }
  }
}

/// Trains softmax regression on 4 separable clusters with the step of
/// training_step, updating the parameters and state in place; the losses.
std::vector<float> trainClusters(TrainOptions options, int steps) {
  Graph g("loss");
  Value x = g.input(DType::kFloat32, {32, 2});
  Value labels = g.input(DType::kInt32, {32});
  Value w = g.input(DType::kFloat32, {2, 4});
  Value b = g.input(DType::kFloat32, {4});
  Value logits = g.add(g.matmul(x, w), b);
  EXPECT_TRUE(g.output({g.cross_entropy(logits, labels)})) << g.status().message();
  Expected<Graph> step = training_step(g, {2, 3}, options);
  EXPECT_TRUE(step) << step.status().message();
  if (!step) return {};
  Expected<Model> model = compile(*step, onHost());
  EXPECT_TRUE(model) << model.status().message();
  if (!model) return {};
  // Clusters around (+-2, +-2), label = quadrant.
  std::vector<float> points(64);
  std::vector<int32_t> classes(32);
  std::mt19937 rng(5);
  std::normal_distribution<float> noise(0, 0.3f);
  for (int i = 0; i < 32; ++i) {
    classes[i] = i % 4;
    points[2 * i] = (i % 2 ? 2.f : -2.f) + noise(rng);
    points[2 * i + 1] = (i % 4 >= 2 ? 2.f : -2.f) + noise(rng);
  }
  const bool adam = options.optimizer != TrainOptions::Optimizer::kSgd;
  Tensor loss = Tensor::zeros(DType::kFloat32, {});
  Tensor wt = Tensor::zeros(DType::kFloat32, {2, 4}), bt = Tensor::zeros(DType::kFloat32, {4});
  Tensor lr = Tensor::zeros(DType::kFloat32, {}), count = Tensor::zeros(DType::kInt64, {});
  std::vector<Tensor> state;  // per parameter: (m, v) for Adam, velocity for momentum SGD
  for (const Tensor& p : {wt, bt})
    for (int k = 0; k < (adam ? 2 : options.momentum != 0 ? 1 : 0); ++k)
      state.push_back(Tensor::zeros(DType::kFloat32, p.shape()));
  std::vector<Tensor> inputs{*Tensor::of({32, 2}, points), *Tensor::of({32}, classes), wt, bt, lr};
  inputs.insert(inputs.end(), state.begin(), state.end());
  if (adam) inputs.push_back(count);
  std::vector<Tensor> outputs{loss, wt, bt};
  outputs.insert(outputs.end(), state.begin(), state.end());
  if (options.clip_norm > 0) outputs.push_back(Tensor::zeros(DType::kFloat32, {}));
  std::vector<float> losses;
  for (int i = 1; i <= steps; ++i) {
    *lr.as<float>() = 0.1f;
    *count.as<int64_t>() = i;
    Status ran = model->run(inputs, outputs);  // parameters and state in place
    EXPECT_TRUE(ran) << ran.message();
    if (!ran) break;
    losses.push_back(*loss.as<float>());
  }
  return losses;
}

TEST(CppApi, TrainingStepsLowerTheLoss) {
  for (TrainOptions::Optimizer optimizer :
       {TrainOptions::Optimizer::kSgd, TrainOptions::Optimizer::kAdam,
        TrainOptions::Optimizer::kAdamW}) {
    TrainOptions options;
    options.optimizer = optimizer;
    options.momentum = optimizer == TrainOptions::Optimizer::kSgd ? 0.9 : 0;
    options.weight_decay = 1e-4;
    options.clip_norm = 5;
    std::vector<float> losses = trainClusters(options, 60);
    ASSERT_EQ(losses.size(), 60u);
    EXPECT_NEAR(losses.front(), std::log(4.0f), 1e-5);  // zero weights: uniform
    EXPECT_LT(losses.back(), 0.1f) << "optimizer " << int(optimizer);
    // Deterministic: the same run gives the same losses, bit for bit.
    EXPECT_EQ(trainClusters(options, 60), losses);
  }
  Graph g("loss");
  Value x = g.input(DType::kFloat32, {4});
  ASSERT_TRUE(g.output({g.reduce_sum(g.mul(x, x), {0})}));
  Expected<Graph> none = training_step(g, {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.status().message().find("a training step needs parameters"), std::string::npos)
      << none.status().message();
  Expected<Graph> beyond = training_step(g, {3});
  ASSERT_FALSE(beyond);
  EXPECT_NE(beyond.status().message().find("cannot differentiate with respect to argument #3"),
            std::string::npos)
      << beyond.status().message();
}

TEST(CppApi, ErrorsAreValuesThatNameTheOp) {
  Graph g("bad");
  Value a = g.input(DType::kFloat32, {3});
  Value b = g.input(DType::kFloat32, {4});
  Value sum = g.add(a, b);
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(sum.status().message().find("@bad:1:1"), std::string::npos) << sum.status().message();
  EXPECT_NE(sum.status().message().find("spectral.add"), std::string::npos)
      << sum.status().message();
  // The first error passes through later ops, output() and compile().
  Value later = g.exp(g.relu(sum));
  EXPECT_EQ(later.status().message(), sum.status().message());
  EXPECT_EQ(g.status().message(), sum.status().message());
  EXPECT_EQ(g.output({later}).message(), sum.status().message());
  Expected<Model> model = compile(g, onHost());
  ASSERT_FALSE(model);
  EXPECT_EQ(model.status().message(), sum.status().message());

  Graph h("axes");
  Value x = h.input(DType::kFloat32, {8});
  Value bad = h.rfft(x, {3});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("spectral.rfft: axes[0] = 3 is out of range"),
            std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(h.input(DType::kFloat32, {-1}).ok());
  EXPECT_FALSE(Value().ok());
  Graph other;
  EXPECT_NE(other.relu(x).status().message().find("not a value of this graph"),
            std::string::npos);
  EXPECT_FALSE(compile(other, onHost())) << "a graph without output() does not compile";

  // Bad enums, integers out of range, sizes past 2^58: errors, never a crash.
  Graph k("limits");
  Value c = k.input(DType::kComplex64, {8});
  EXPECT_NE(k.fft(c, {0}, static_cast<Norm>(9)).status().message().find("is not a Norm"),
            std::string::npos);
  EXPECT_FALSE(k.scalar(std::nan(""), DType::kInt32).ok());
  EXPECT_FALSE(k.scalar(3e9, DType::kInt32).ok());
  float one = 1;
  Value huge = k.constant(Tensor::view(&one, DType::kFloat32, {5, int64_t(1) << 61}));
  EXPECT_NE(huge.status().message().find("more than 2^58 elements"), std::string::npos)
      << huge.status().message();

  // A complete graph stays compilable when a later call is refused.
  Graph done("done");
  Value in = done.input(DType::kFloat32, {4});
  ASSERT_TRUE(done.output({done.relu(in)}));
  EXPECT_NE(done.exp(in).status().message().find("after output()"), std::string::npos);
  EXPECT_FALSE(done.input(DType::kFloat32, {2}).ok());
  EXPECT_FALSE(done.output({in}));
  EXPECT_TRUE(done.status());
  EXPECT_TRUE(compile(done, onHost()));
}

TEST(CppApi, RunChecksArgumentsAndWritesIntoTheCallersMemory) {
  Graph g("scale");
  Value x = g.input(DType::kFloat64, {4});
  ASSERT_TRUE(g.output({g.mul(x, g.scalar(3, DType::kFloat64))}));
  Expected<Model> model = compile(g, onHost());
  ASSERT_TRUE(model) << model.status().message();
  EXPECT_EQ(model->inputs().size(), 1u);
  EXPECT_EQ(model->inputs()[0].type_string(), "tensor<4xf64>");
  EXPECT_EQ(model->outputs()[0].type_string(), "tensor<4xf64>");
  EXPECT_GE(model->kernel_count(), 1);
  EXPECT_NE(model->summary().find("spectral.mul"), std::string::npos) << model->summary();

  Expected<std::vector<Tensor>> wrong = model->run({Tensor::zeros(DType::kFloat32, {4})});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.status().message(),
            "argument #0 must be tensor<4xf64>, got tensor<4xf32>");
  EXPECT_FALSE(model->run({}));

  double in[4] = {1, 2, 3, 4}, out[4] = {};
  Status status = model->run({Tensor::view(in, DType::kFloat64, {4})},
                             {Tensor::view(out, DType::kFloat64, {4})});
  ASSERT_TRUE(status) << status.message();
  EXPECT_EQ(out[3], 12);
}

TEST(CppApi, ArtifactsSaveAndLoad) {
  Graph g("artifact");
  Value x = g.input(DType::kFloat32, {2, 8});
  ASSERT_TRUE(g.output({g.abs(g.rfft(x, {1}))}));
  CompileOptions options = onHost();
  options.targets = {"host", "sm_80"};  // the artifact carries CUBIN and PTX for sm_80
  Expected<Model> model = compile(g, options);
  ASSERT_TRUE(model) << model.status().message();
  const std::string carried = "GPU code carried: sm_80 CUBIN for 1, PTX for 1 of 1 kernel";
  EXPECT_NE(model->summary().find(carried), std::string::npos) << model->summary();
  options.targets = {"sm_80", "gfx90a"};
  Expected<Model> bad = compile(g, options);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("unknown target 'gfx90a'"), std::string::npos)
      << bad.status().message();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("spectral_api_" + std::to_string(getpid()) + ".spx"))
          .string();
  ASSERT_TRUE(model->save(path));
  Expected<Model> loaded = Model::load(path, DeviceKind::kHost);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded) << loaded.status().message();
  EXPECT_NE(loaded->summary().find(carried), std::string::npos) << loaded->summary();
  Tensor input = randomTensor(DType::kFloat32, {2, 8}, 3);
  Expected<std::vector<Tensor>> a = model->run({input});
  Expected<std::vector<Tensor>> b = loaded->run({input});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(std::memcmp((*a)[0].data(), (*b)[0].data(), (*a)[0].bytes()), 0);
  EXPECT_EQ(loaded->function(), "artifact");

  Expected<Model> missing = Model::load("/nonexistent/x.spx", DeviceKind::kHost);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.status().message().find("/nonexistent/x.spx"), std::string::npos);
}

TEST(CppApi, ParsedGraphsCompileWithOptions) {
  Expected<Graph> g = Graph::parse_file(SPECTRAL_SOURCE_DIR "/examples/spectral_conv.mlir");
  ASSERT_TRUE(g) << g.status().message();
  std::vector<Tensor> inputs;
  // The example's arguments, from its own text.
  Expected<Model> probe = compile(*g, onHost());
  ASSERT_TRUE(probe) << probe.status().message();
  uint32_t seed = 20;
  for (const TensorInfo& info : probe->inputs())
    inputs.push_back(randomTensor(info.dtype, info.shape, seed++));
  expectMatchesReference(*g, inputs);

  CompileOptions unfused = onHost();
  unfused.fuse = false;
  Expected<Model> opByOp = compile(*g, unfused);
  ASSERT_TRUE(opByOp);
  EXPECT_GT(opByOp->kernel_count(), probe->kernel_count());

  CompileOptions pipeline = onHost();
  pipeline.pass_pipeline = "builtin.module(func.func(spectral-fuse))";
  expectMatchesReference(*g, inputs, pipeline);
  Expected<Model> piped = compile(*g, pipeline);
  ASSERT_TRUE(piped);
  EXPECT_EQ(piped->kernel_count(), probe->kernel_count()) << "the pipeline fused";
  pipeline.pass_pipeline = "builtin.module(no-such-pass)";
  Expected<Model> bad = compile(*g, pipeline);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("no-such-pass"), std::string::npos)
      << bad.status().message();

  CompileOptions dump = onHost();
  dump.dump_dir = (std::filesystem::temp_directory_path() /
                   ("spectral_api_dump_" + std::to_string(getpid())))
                      .string();
  ASSERT_TRUE(compile(*g, dump));
  EXPECT_TRUE(std::filesystem::exists(dump.dump_dir + "/summary.txt"));
  std::filesystem::remove_all(dump.dump_dir);

  Expected<Graph> broken = Graph::parse("func.func @f(%x: tensor<4xf32>) {\n  %y = spectral.exp %x : tensor<4xi32>\n}", "broken.mlir");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.status().message().find("broken.mlir:2:"), std::string::npos)
      << broken.status().message();
  EXPECT_FALSE(Graph::parse_file("/nonexistent.mlir"));
  // Text MLIR's parser would overflow its stack on is an error, not a crash.
  const std::string deep = "func.func @main(%x: " + repeat("tensor<", 30000) + "f32" +
                           std::string(30000, '>') + ") { return }";
  Expected<Graph> tooDeep = Graph::parse(deep, "deep.mlir");
  ASSERT_FALSE(tooDeep);
  EXPECT_NE(tooDeep.status().message().find("deep.mlir:1:"), std::string::npos)
      << tooDeep.status().message();
  EXPECT_NE(tooDeep.status().message().find("nesting deeper than 128 levels"), std::string::npos)
      << tooDeep.status().message();

  // A signature a Program cannot hold is an error naming the argument.
  Expected<Graph> scalarArgument =
      Graph::parse("func.func @main(%a: f32) -> f32 {\n  return %a : f32\n}");
  ASSERT_TRUE(scalarArgument) << scalarArgument.status().message();
  Expected<Model> refused = compile(*scalarArgument, onHost());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find("argument #0 of @main is f32"), std::string::npos)
      << refused.status().message();
  Expected<Graph> halfArgument = Graph::parse(
      "func.func @main(%a: tensor<4xf16>) -> tensor<4xf16> {\n  return %a : tensor<4xf16>\n}");
  ASSERT_TRUE(halfArgument);
  EXPECT_FALSE(compile(*halfArgument, onHost()));
}

TEST(CppApi, OneModelRunsFromEightThreads) {
  Graph g("threads");
  Value x = g.input(DType::kFloat32, {16, 64});
  Value filtered = g.irfft(g.mul(g.rfft(x, {1}), g.scalar(0.5, DType::kComplex64)), {1}, 64);
  ASSERT_TRUE(g.output({g.add(filtered, g.reduce_sum(x, {1}, true))}));
  Expected<Model> model = compile(g, onHost());
  ASSERT_TRUE(model) << model.status().message();

  constexpr int kThreads = 8, kRuns = 12;
  std::vector<Tensor> inputs, expected;
  for (int i = 0; i < kThreads * kRuns; ++i) {
    inputs.push_back(randomTensor(DType::kFloat32, {16, 64}, uint32_t(100 + i)));
    Expected<std::vector<Tensor>> out = model->run({inputs.back()});
    ASSERT_TRUE(out);
    expected.push_back((*out)[0]);
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        const int i = t * kRuns + r;
        Expected<std::vector<Tensor>> out = model->run({inputs[i]});
        if (!out) {
          ++failures;
          continue;
        }
        if (std::memcmp((*out)[0].data(), expected[i].data(), expected[i].bytes()) != 0)
          ++mismatches;
      }
    });
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(CppApi, DLPackTensorsAreUsedWithoutCopies) {
  static int deleted = 0;
  deleted = 0;
  float data[6] = {1, -2, 3, -4, 5, -6};
  int64_t shape[2] = {2, 3};
  DLManagedTensor managed{};
  managed.dl_tensor.data = data;
  managed.dl_tensor.device = {kDLCPU, 0};
  managed.dl_tensor.ndim = 2;
  managed.dl_tensor.dtype = {kDLFloat, 32, 1};
  managed.dl_tensor.shape = shape;
  managed.deleter = [](DLManagedTensor*) { ++deleted; };
  {
    Expected<Tensor> x = from_dlpack(&managed);
    ASSERT_TRUE(x) << x.status().message();
    EXPECT_EQ(x->data(), data);
    EXPECT_EQ(x->type_string(), "tensor<2x3xf32>");

    Graph g("relu");
    Value in = g.input(DType::kFloat32, {2, 3});
    ASSERT_TRUE(g.output({g.relu(in)}));
    Expected<Model> model = compile(g, onHost());
    ASSERT_TRUE(model);
    Expected<std::vector<Tensor>> out = model->run({*x});
    ASSERT_TRUE(out);
    Expected<DLManagedTensor*> exported = to_dlpack((*out)[0]);
    ASSERT_TRUE(exported);
    EXPECT_EQ((*exported)->dl_tensor.ndim, 2);
    EXPECT_EQ(static_cast<float*>((*exported)->dl_tensor.data)[2], 3);
    EXPECT_EQ(static_cast<float*>((*exported)->dl_tensor.data)[3], 0);
    (*exported)->deleter(*exported);
    EXPECT_EQ(deleted, 0) << "the Tensor still holds the DLPack tensor";
  }
  EXPECT_EQ(deleted, 1) << "the last Tensor gone, the deleter ran once";

  int64_t strides[2] = {1, 2};  // column-major
  managed.dl_tensor.strides = strides;
  Expected<Tensor> strided = from_dlpack(&managed);
  ASSERT_FALSE(strided);
  EXPECT_NE(strided.status().message().find("row-major"), std::string::npos);
  managed.dl_tensor.strides = nullptr;
  managed.dl_tensor.device = {kDLCUDA, 0};
  EXPECT_FALSE(from_dlpack(&managed));
  managed.dl_tensor.device = {kDLCPU, 0};
  managed.dl_tensor.dtype = {kDLBfloat, 16, 1};
  EXPECT_FALSE(from_dlpack(&managed));
  managed.dl_tensor.dtype = {kDLFloat, 32, 1};
  managed.dl_tensor.data = nullptr;
  EXPECT_FALSE(from_dlpack(&managed)) << "elements without data";
  EXPECT_EQ(deleted, 1) << "a refused tensor stays the caller's";
}

}  // namespace
}  // namespace spectral
