// ONNX import (issue 19, item 2): nabla -> ONNX (the exporter) -> nabla gives
// identical outputs for the seed MLP, fashion_cnn and a dense graph (unknown
// batch); models exported by Debian's PyTorch (torchvision resnet18 and
// mobilenet_v2, nn.LSTM, nn.GRU, an nn.TransformerEncoder; random weights) import
// and match PyTorch's outputs (1e-4);
// unsupported operators and malformed files are refused with clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "nabla/data/npy.h"
#include "nabla/nabla.h"
#include "nabla/onnx/export.h"
#include "nabla/onnx/import.h"
#include "nabla/zoo/zoo.h"
#include "onnx/onnx_pb.h"
#include "support/error_message.h"
#include "support/run_program.h"

namespace fs = std::filesystem;
using namespace nabla;

namespace {

struct WorkDir {
  fs::path path = fs::temp_directory_path() / ("nabla_onnx_import_test_" + std::to_string(::getpid()));
  WorkDir() { fs::create_directories(path); }
  ~WorkDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// Runs an imported model with one input.
Tensor run_imported(const nabla::onnx::ImportedModel& m, const Tensor& x) {
  graph::Graph g = m.graph;  // a handle on the same graph
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  return sess.run(m.outputs.at(0).second, {{m.inputs.at(0).second, x}});
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  return amax(abs(a.to(kFloat64) - b.to(kFloat64))).item<double>();
}

void expect_identical_round_trip(nn::Module& m, const Tensor& x, const std::string& path) {
  nabla::onnx::export_module(m, x, path);
  m.eval();
  Tensor want;
  {
    NoGradGuard no_grad;
    want = m.forward(x);
  }
  nabla::onnx::ImportedModel imported = nabla::onnx::import_model(path);
  ASSERT_EQ(imported.inputs.size(), 1u);
  ASSERT_EQ(imported.outputs.size(), 1u);
  EXPECT_EQ(max_abs_diff(run_imported(imported, x), want), 0.0) << path;
}

TEST(OnnxImport, RoundTripOfTheSeedMlpAndFashionCnnIsIdentical) {
  WorkDir dir;
  manual_seed(19);
  nn::Sequential mlp(nn::Linear(1000, 100), nn::ReLU(), nn::Linear(100, 10));  // seed_nn_sequential
  expect_identical_round_trip(mlp, randn({4, 1000}), dir.file("mlp.onnx"));
  auto cnn = zoo::fashion_cnn();
  expect_identical_round_trip(*cnn, randn({2, 1, 28, 28}), dir.file("fashion_cnn.onnx"));
}

TEST(OnnxImport, SymbolicBatchBecomesAnUnknownDimAndInitializersVariables) {
  WorkDir dir;
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 8}, "x");
  Tensor y = graph::layers::dense(x, 3, nabla::relu, graph::init::xavier_uniform);
  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  nabla::onnx::export_graph(g, {y}, dir.file("dense.onnx"), {}, &sess);
  nabla::onnx::ImportedModel m = nabla::onnx::import_model(dir.file("dense.onnx"));
  ASSERT_EQ(m.inputs.size(), 1u);
  EXPECT_EQ(m.inputs[0].first, "x");
  EXPECT_EQ(m.inputs[0].second.sizes(), Shape({-1, 8}));
  EXPECT_EQ(m.opset, 17);
  EXPECT_EQ(m.graph.variables(/*trainable_only=*/true).size(), 2u);  // kernel and bias: fine-tunable
  for (int64_t batch : {1, 5}) {
    Tensor xv = randn({batch, 8});
    EXPECT_EQ(max_abs_diff(run_imported(m, xv), sess.run(y, {{x, xv}})), 0.0);
  }
  // The imported graph is a graph like any other: it saves as .nbg and loads.
  graph::Graph ig = m.graph;
  graph::Session imported(ig);
  imported.run(ig.global_variables_initializer());
  imported.save(dir.file("dense.nbg"));
  graph::Session loaded = graph::Session::load(dir.file("dense.nbg"));
  Tensor xv = randn({2, 8});
  EXPECT_EQ(max_abs_diff(loaded.run(std::vector<std::string>{m.graph.node_of(m.outputs[0].second).name}, {{"x", xv}})[0],
                         sess.run(y, {{x, xv}})), 0.0);
}

// A one-node model of `op_type` over a [2, 3] float input.
std::string one_node_model(const std::string& op_type, int64_t opset = 17) {
  ::onnx::ModelProto model;
  model.set_ir_version(8);
  auto* o = model.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  auto* g = model.mutable_graph();
  g->set_name("g");
  auto* in = g->add_input();
  in->set_name("x");
  auto* tt = in->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(::onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_value(2);
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  auto* out = g->add_output();
  out->set_name("y");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  out->mutable_type()->mutable_tensor_type()->mutable_shape();
  auto* n = g->add_node();
  n->set_op_type(op_type);
  n->set_name("the_node");
  n->add_input("x");
  n->add_output("y");
  return model.SerializeAsString();
}

using nabla::testing::error_of;

TEST(OnnxImport, AnUnsupportedOperatorNamesItsNodeAndTheOpset) {
  std::string msg = error_of([] { nabla::onnx::import_model_bytes(one_node_model("Hardmax"), "m.onnx"); });
  EXPECT_NE(msg.find("unsupported operator Hardmax (node 'the_node', opset 17)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("m.onnx"), std::string::npos) << msg;
  // The same model with a supported op imports and runs.
  nabla::onnx::ImportedModel m = nabla::onnx::import_model_bytes(one_node_model("Relu"));
  Tensor x = tensor({{-1.0, 2.0, -3.0}, {4.0, -5.0, 6.0}});
  EXPECT_EQ(max_abs_diff(run_imported(m, x), relu(x)), 0.0);
}

TEST(OnnxImport, MalformedFilesAreRefusedWithClearErrors) {
  std::string msg = error_of([] { nabla::onnx::import_model_bytes("not a protobuf \xff\xff\xff", "junk.onnx"); });
  EXPECT_NE(msg.find("junk.onnx: not an ONNX model"), std::string::npos) << msg;
  msg = error_of([] { nabla::onnx::import_model("/nonexistent/m.onnx"); });
  EXPECT_NE(msg.find("cannot open '/nonexistent/m.onnx'"), std::string::npos) << msg;
  // An opset the importer does not know.
  msg = error_of([] { nabla::onnx::import_model_bytes(one_node_model("Relu", 18), "new.onnx"); });
  EXPECT_NE(msg.find("opset"), std::string::npos) << msg;

  // An initializer whose raw_data is shorter than its dims say.
  ::onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(one_node_model("Add")));
  auto* n = model.mutable_graph()->mutable_node(0);
  n->add_input("w");
  auto* w = model.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->set_raw_data(std::string(8, '\0'));
  msg = error_of([&] { nabla::onnx::import_model_bytes(model.SerializeAsString(), "short.onnx"); });
  EXPECT_NE(msg.find("short.onnx: initializer 'w': raw_data has 8 bytes but dims [3] of float32 need 12"),
            std::string::npos)
      << msg;
  w->set_raw_data(std::string(12, '\0'));
  EXPECT_NO_THROW(nabla::onnx::import_model_bytes(model.SerializeAsString()));

  // Gather with a known index out of range.
  ::onnx::ModelProto gm;
  ASSERT_TRUE(gm.ParseFromString(one_node_model("Gather")));
  gm.mutable_graph()->mutable_node(0)->add_input("i");
  auto* i = gm.mutable_graph()->add_initializer();
  i->set_name("i");
  i->set_data_type(::onnx::TensorProto::INT64);
  i->add_dims(1);
  i->add_int64_data(7);
  msg = error_of([&] { nabla::onnx::import_model_bytes(gm.SerializeAsString(), "gather.onnx"); });
  EXPECT_NE(msg.find("gather.onnx: Gather node 'the_node' (opset 17): index 7 is out of range for dim 0 of size 2"),
            std::string::npos)
      << msg;
}

// Input shapes given to import_model fix a model's symbolic dims, so a model
// that takes the Shape of its input (as Paddle2ONNX's do; tests/onnx/
// pretrained_test.cpp runs PaddleOCR's) imports; a shape that does not fit is
// an error. A dim_value of -1 (Paddle2ONNX's unknown dim) is unknown, and the
// model's metadata_props come along.
TEST(OnnxImport, InputShapesFixSymbolicDims) {
  ::onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(one_node_model("Shape")));
  auto* dims = model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  dims->mutable_dim(0)->set_dim_param("batch");
  dims->mutable_dim(1)->set_dim_value(-1);
  auto* add = dims->add_dim();
  add->set_dim_value(5);
  auto* meta = model.add_metadata_props();
  meta->set_key("character");
  meta->set_value("a\nb");
  const std::string bytes = model.SerializeAsString();

  std::string msg = error_of([&] { nabla::onnx::import_model_bytes(bytes, "shape.onnx"); });
  EXPECT_NE(msg.find("shape.onnx: Shape node 'the_node' (opset 17)"), std::string::npos) << msg;
  nabla::onnx::ImportedModel m = nabla::onnx::import_model_bytes(bytes, "shape.onnx", {{"x", {4, 2, 5}}});
  EXPECT_EQ(m.inputs.at(0).second.sizes(), Shape({4, 2, 5}));
  EXPECT_EQ(run_imported(m, zeros({4, 2, 5})).to_vector<int64_t>(), (std::vector<int64_t>{4, 2, 5}));
  ASSERT_EQ(m.metadata.size(), 1u);
  EXPECT_EQ(m.metadata[0], (std::pair<std::string, std::string>("character", "a\nb")));

  msg = error_of([&] { nabla::onnx::import_model_bytes(bytes, "shape.onnx", {{"x", {4, 2, 6}}}); });
  EXPECT_NE(msg.find("shape.onnx: input 'x': the shape given for it, [4, 2, 6], does not fit the model's [-1, -1, 5]"),
            std::string::npos)
      << msg;
  msg = error_of([&] { nabla::onnx::import_model_bytes(bytes, "shape.onnx", {{"x", {4, 2}}}); });
  EXPECT_NE(msg.find("does not fit"), std::string::npos) << msg;
  msg = error_of([&] { nabla::onnx::import_model_bytes(bytes, "shape.onnx", {{"input", {4, 2, 5}}}); });
  EXPECT_NE(msg.find("shape.onnx: 'input' is not an input of the model (its inputs: x); a shape [4, 2, 5] was given"),
            std::string::npos)
      << msg;
}

// Models exported by Debian's PyTorch (random weights, no download) through
// tests/onnx/torch_export_models.py: torchvision's resnet18 and mobilenet_v2,
// 2-layer bidirectional nn.LSTM and nn.GRU, a 2-layer nn.TransformerEncoder.
// Imports model `name` written by torch_export_models.py and compares its
// output with PyTorch's.
void expect_matches_pytorch(const WorkDir& dir, const std::string& name) {
  nabla::onnx::ImportedModel m = nabla::onnx::import_model(dir.file(name + ".onnx"));
  Tensor x = data::read_npy(dir.file(name + "_input.npy"));
  Tensor want = data::read_npy(dir.file(name + "_output.npy"));
  double err = max_abs_diff(run_imported(m, x), want);
  std::printf("[ onnx import ] %s: max abs error vs PyTorch %.3g (outputs up to %.3g)\n", name.c_str(), err,
              amax(abs(want)).item<double>());
  EXPECT_LE(err, 1e-4) << name;
}

// One python process exports all five (importing torch costs most of the time).
TEST(OnnxImport, TorchvisionCnnsRnnsAndTransformerEncoderMatchPytorch) {
  WorkDir dir;
  auto r = nabla::testing::run_program("/usr/bin/python3 " NABLA_TESTS_DIR "/onnx/torch_export_models.py " +
                                       dir.path.string() + " resnet18 mobilenet_v2 lstm gru transformer 2>&1");
  if (r.code == 77) GTEST_SKIP() << r.out;
  ASSERT_EQ(r.code, 0) << r.out;
  for (const char* name : {"resnet18", "mobilenet_v2", "lstm", "gru", "transformer"}) expect_matches_pytorch(dir, name);
}

}  // namespace

namespace {
// The fuzz target's seeds (fuzz/corpus/onnx, written by torch.onnx.export)
// import and run: a seed the importer refused would fuzz nothing but the parser.
TEST(OnnxImport, TheFuzzSeedsImportAndRun) {
  int seeds = 0;
  for (const auto& e : fs::directory_iterator(NABLA_TESTS_DIR "/../fuzz/corpus/onnx")) {
    nabla::onnx::ImportedModel m = nabla::onnx::import_model(e.path().string());
    ASSERT_EQ(m.inputs.size(), 1u) << e.path();
    Shape sizes = m.inputs[0].second.sizes();
    Tensor y = run_imported(m, randn(sizes));
    EXPECT_TRUE(y.defined()) << e.path();
    ++seeds;
  }
  EXPECT_EQ(seeds, 2);
}
}  // namespace
