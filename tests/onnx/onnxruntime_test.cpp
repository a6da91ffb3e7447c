// ONNX export, acceptance: every zoo model and the seed networks, exported
// by nabla::onnx, pass ONNX's own C++ checker (read back from the file) and
// give onnxruntime's outputs equal to nabla's (float32, 1e-5 relative to the
// output's largest value). onnxruntime comes from PyPI
// (scripts/install_deps.sh); without it the comparison skips with a message.
// Random weights and small inputs keep it to seconds; files go to /tmp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "nabla/data/npy.h"
#include "nabla/nabla.h"
#include "nabla/onnx/export.h"
#include "nabla/zoo/zoo.h"
#include "onnx/checker.h"
#include "support/run_program.h"

namespace fs = std::filesystem;
using namespace nabla;

namespace {

struct Exported {
  std::string name;
  std::vector<Tensor> inputs;   // in the model's input order
  std::vector<Tensor> outputs;  // nabla's values
};

// A fresh folder under /tmp, removed when the test ends however it ends.
struct WorkDir {
  fs::path path = fs::temp_directory_path() / ("nabla_onnx_test_" + std::to_string(::getpid()));
  WorkDir() { fs::create_directories(path); }
  ~WorkDir() { fs::remove_all(path); }
  operator const fs::path&() const { return path; }
};

// A module: exported in eval mode, compared with its eager forward.
Exported module_case(const std::string& name, nn::Module& m, const Tensor& x, const fs::path& dir) {
  nabla::onnx::export_module(m, x, (dir / (name + ".onnx")).string());
  m.eval();
  NoGradGuard no_grad;
  return {name, {x}, {m.forward(x)}};
}

// A module applied to a placeholder with an unknown batch dim
// (nn::ModuleVariables), exported from its Session: the ONNX input's batch
// is symbolic and onnxruntime runs it at the batch of `x`.
Exported module_in_graph_any_batch(const std::string& name, nn::Module& m, const Tensor& x, const fs::path& dir) {
  m.eval();
  graph::Graph g;
  Shape sizes = x.sizes();
  sizes[0] = -1;
  Tensor input = g.placeholder(x.dtype(), sizes, "input");
  nn::ModuleVariables mv(g, m);
  Tensor y = m.forward(input);
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  nabla::onnx::export_graph(g, {y}, (dir / (name + ".onnx")).string(), {}, &sess);
  return {name, {x}, {sess.run(y, {{input, x}})}};
}

// The lecture's first TensorFlow program (examples/seed_tf_placeholders):
// weights as placeholders, the prediction and the loss fetched.
Exported seed_tf_placeholders(const fs::path& dir) {
  const int64_t N = 4, D = 100, H = 20;
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {N, D}, "x");
  Tensor y = g.placeholder(kFloat32, {N, D}, "y");
  Tensor w1 = g.placeholder(kFloat32, {D, H}, "w1");
  Tensor w2 = g.placeholder(kFloat32, {H, D}, "w2");
  Tensor h = maximum(matmul(x, w1), zeros({}));
  Tensor y_pred = matmul(h, w2);
  Tensor loss = mean(sum(pow(y_pred - y, 2), {1}));
  nabla::onnx::export_graph(g, {y_pred, loss}, (dir / "seed_tf_placeholders.onnx").string());
  std::vector<Tensor> values = {randn({N, D}), randn({N, D}), randn({D, H}), randn({H, D})};
  graph::Session sess(g);
  auto out = sess.run({y_pred, loss}, {{x, values[0]}, {y, values[1]}, {w1, values[2]}, {w2, values[3]}});
  return {"seed_tf_placeholders", values, {out[0], out[1]}};
}

// examples/seed_tf_layers: dense layers with drawn (xavier) initial values,
// exported with the Session that holds them; the batch dim is unknown (-1),
// so the model's input has a symbolic dim and runs at another batch size.
Exported seed_tf_layers(const fs::path& dir) {
  const int64_t D = 100, H = 20;
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, D}, "x");
  Tensor h = graph::layers::dense(x, H, nabla::relu, graph::init::xavier_uniform);
  Tensor y_pred = graph::layers::dense(h, D, {}, graph::init::xavier_uniform);
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  nabla::onnx::export_graph(g, {y_pred}, (dir / "seed_tf_layers.onnx").string(), {}, &sess);
  Tensor xv = randn({3, D});
  return {"seed_tf_layers", {xv}, {sess.run(y_pred, {{x, xv}})}};
}

// Checks each exported file with ONNX's C++ checker, then runs all of them in
// one onnxruntime process (tests/onnx/run_with_onnxruntime.py).
void compare_with_onnxruntime(const std::vector<Exported>& cases, const fs::path& dir) {
  std::string names;
  for (const Exported& c : cases) {
    std::string base = (dir / c.name).string();
    EXPECT_NO_THROW(::onnx::checker::check_model(base + ".onnx")) << c.name;
    for (std::size_t k = 0; k < c.inputs.size(); ++k)
      data::write_npy(base + ".in" + std::to_string(k) + ".npy", c.inputs[k]);
    for (std::size_t k = 0; k < c.outputs.size(); ++k)
      data::write_npy(base + ".out" + std::to_string(k) + ".npy", c.outputs[k]);
    names += " " + c.name;
  }
  auto r = nabla::testing::run_program("/usr/bin/python3 " NABLA_TESTS_DIR "/onnx/run_with_onnxruntime.py " +
                                       dir.string() + names + " 2>&1");
  std::printf("%s", r.out.c_str());
  if (r.code == 77) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.code, 0) << r.out;
  for (const Exported& c : cases) EXPECT_NE(r.out.find(c.name + " max_rel_err="), std::string::npos) << r.out;
}

// Eager code traced as compile() traces it (export_function): a parameter
// (requires grad: a bound variable) and a closed-over tensor (a constant),
// two inputs of different dtypes, two outputs.
Exported traced_function(const fs::path& dir) {
  Tensor w = randn({5, 4}, TensorOptions().requires_grad());
  Tensor shift = randn({4});
  TensorsFn fn = [&](const std::vector<Tensor>& in) {
    Tensor z = matmul(in[0], w) + shift * in[1].to(kFloat32);
    return std::vector<Tensor>{log_softmax(z, 1), amax(abs(z), {0})};
  };
  Tensor a = randn({3, 5}), b = randint(0, 4, {3, 1});
  nabla::onnx::export_function(fn, {a, b}, (dir / "traced_function.onnx").string());
  NoGradGuard no_grad;
  auto out = fn({a, b});
  return {"traced_function", {a, b}, out};
}

// One traced function applying every converter the models above leave out
// (activations written with ONNX primitives, comparisons and logic, shape
// ops, reductions, pooling variants), each result an output.
Exported op_sampler(const fs::path& dir) {
  TensorsFn fn = [](const std::vector<Tensor>& in) {
    const Tensor &x = in[0], &y = in[1], &image = in[2], &w = in[3];
    Tensor pos = abs(x) + 0.25;
    Tensor idx = tensor(std::vector<int64_t>{2, 0, 1}).view({3});
    std::vector<Tensor> out = {
        gelu(x), gelu(x, "tanh"), silu(x), leaky_relu(x, 0.1), elu(x, 0.7), exp2(x), log2(pos), log1p(pos),
        expm1(x), rsqrt(pos), square(x), clamp(x, -0.5, 0.5), clamp(x, std::nullopt, 0.2), sign(x), floor(x), ceil(x),
        round(x * 3.0), sin(x), cos(x), tanh(x), erf(x), reciprocal(pos), neg(x), sigmoid(x), exp(x), sqrt(pos),
        pow(pos, y), maximum(x, y), minimum(x, y), x / pos,
        (x > y).to(kFloat32), x >= y, x < 0.0, x <= y, x == x.round(), x != y,
        logical_and(x > 0.0, y > 0.0), logical_or(x > 0.0, y > 0.0), logical_xor(x > 0.0, y > 0.0),
        logical_not(x > 0.0), isfinite(x / (y - y)), where(x > y, x, y * 2.0),
        log_softmax(x, 0), softmax(y, -1), cat({x, y}, 1), stack({x, y}, 1), x.slice(1, 1, 4, 2), x.select(1, 2),
        x.t().contiguous(), x.view({12}), x.slice(0, 0, 1).expand({5, 3, 4}), gather(x, 1, idx.view({3, 1}).expand({3, 2})),
        index_select(x, 0, idx), sum(x, {1}, true), amax(x, {0}), amin(x), prod(pos, {1}), x.to(kInt64),
        avg_pool2d(image, {2, 2}, {1, 1}, {1, 1}, false, false), avg_pool2d(image, {3, 3}, {2, 2}, {0, 0}, true),
        adaptive_avg_pool2d(image, {2, 3}), conv_transpose2d(image, w, Tensor(), {2, 2}, {1, 1}, {1, 1}),
        max_pool2d(image, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true)};
    return out;
  };
  std::vector<Tensor> inputs = {randn({3, 4}), randn({3, 4}), randn({1, 2, 6, 6}), randn({2, 3, 3, 3})};
  nabla::onnx::export_function(fn, inputs, (dir / "op_sampler.onnx").string());
  return {"op_sampler", inputs, fn(inputs)};
}

}  // namespace

TEST(OnnxExportRuntime, ZooAndSeedModelsPassTheCheckerAndMatchOnnxruntime) {
  manual_seed(0);
  WorkDir dir;
  std::vector<Exported> cases;
  {
    nn::Sequential mlp(nn::Linear(1000, 100), nn::ReLU(), nn::Linear(100, 10));  // seed_nn_sequential
    cases.push_back(module_case("seed_nn_mlp", mlp, randn({2, 1000}), dir));
  }
  cases.push_back(seed_tf_placeholders(dir));
  cases.push_back(seed_tf_layers(dir));
  cases.push_back(traced_function(dir));
  cases.push_back(op_sampler(dir));
  const Tensor image28 = randn({2, 1, 28, 28}), image32 = randn({1, 3, 32, 32});
  cases.push_back(module_case("fashion_mlp", *zoo::fashion_mlp(), image28, dir));
  {
    auto cnn = zoo::fashion_cnn();
    // Running statistics other than the initial ones, so that batch norm's
    // inference form is really exercised.
    cnn->train();
    {
      NoGradGuard no_grad;
      cnn->forward(randn({4, 1, 28, 28}));
    }
    cases.push_back(module_case("fashion_cnn", *cnn, image28, dir));
    cases.push_back(module_in_graph_any_batch("fashion_cnn_any_batch", *cnn, randn({3, 1, 28, 28}), dir));
  }
  cases.push_back(module_case("lenet5", *zoo::lenet5(), image28, dir));
  cases.push_back(module_case("resnet18", *zoo::resnet18({.num_classes = 10}), image32, dir));
  cases.push_back(module_case("mobilenet_v2", *zoo::mobilenet_v2({.num_classes = 10}), image32, dir));
  // VGG: the zoo's VGG class (features, AdaptiveAvgPool2d(7) from a 1x1
  // map, the classifier with its dropouts) with vgg11's pattern of convs and
  // poolings at a quarter of its width. vgg11 itself holds 133M parameters
  // (~10 s of CPU to initialize and export): FullVgg11 runs it on request.
  {
    zoo::VGG vgg({16, 0, 32, 0, 64, 64, 0, 128, 128, 0, 128, 128, 0}, false, {.num_classes = 10});
    cases.push_back(module_case("vgg11_narrow", vgg, image32, dir));
  }
  compare_with_onnxruntime(cases, dir);
}

TEST(OnnxExportRuntime, FullVgg11) {
  if (!std::getenv("NABLA_ONNX_FULL_VGG"))
    GTEST_SKIP() << "set NABLA_ONNX_FULL_VGG=1 to export and compare the full vgg11 (133M parameters, ~10 s)";
  manual_seed(0);
  WorkDir dir;
  std::vector<Exported> cases;
  cases.push_back(module_case("vgg11", *zoo::vgg11(), randn({1, 3, 32, 32}), dir));
  compare_with_onnxruntime(cases, dir);
}
