// ONNX export: what the file holds (symbolic dims, names, initializers) and
// the errors for what has no ONNX form, each naming the op and the node.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "nabla/nabla.h"
#include "nabla/onnx/export.h"
#include "nabla/onnx/op_export.h"
#include "nabla/zoo/zoo.h"
#include "onnx/onnx_pb.h"

namespace fs = std::filesystem;
using namespace nabla;

namespace {

std::string temp_path(const std::string& name) {
  return (fs::temp_directory_path() / ("nabla_onnx_" + std::to_string(::getpid()) + "_" + name)).string();
}

::onnx::ModelProto parse(const std::string& bytes) {
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromString(bytes));
  return m;
}

// The message of the nabla::Error that `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(OnnxExport, UnknownDimsBecomeSymbolicDimsAndVariablesInitializers) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {-1, 4}, "x");
  Tensor w = g.variable(ones({4, 3}), "w");
  Tensor y = g.set_name(relu(matmul(x, w)), "y");
  auto m = parse(nabla::onnx::export_graph_bytes(g, {y}));
  EXPECT_EQ(m.opset_import(0).version(), 17);
  ASSERT_EQ(m.graph().input_size(), 1);
  const auto& in = m.graph().input(0);
  EXPECT_EQ(in.name(), "x");
  const auto& dims = in.type().tensor_type().shape().dim();
  ASSERT_EQ(dims.size(), 2);
  EXPECT_EQ(dims[0].dim_param(), "x_dim0");
  EXPECT_EQ(dims[1].dim_value(), 4);
  ASSERT_EQ(m.graph().output_size(), 1);
  EXPECT_EQ(m.graph().output(0).name(), "y");
  EXPECT_EQ(m.graph().output(0).type().tensor_type().shape().dim(0).dim_param(), "y_dim0");
  ASSERT_EQ(m.graph().initializer_size(), 1);
  EXPECT_EQ(m.graph().initializer(0).name(), "w");
  EXPECT_EQ(m.graph().initializer(0).raw_data().size(), 12 * sizeof(float));
}

TEST(OnnxExport, AnOpWithoutAnOnnxFormNamesTheOpAndTheNode) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  Tensor y = g.set_name(cumsum(x, 1), "running_total");
  std::string msg = error_of([&] { nabla::onnx::export_graph_bytes(g, {y}); });
  EXPECT_NE(msg.find("op 'cumsum'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("running_total"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no ONNX form"), std::string::npos) << msg;
}

TEST(OnnxExport, TrainingModeDropoutIsRefusedWithTheFix) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3, 4, 4}, "x");
  Tensor d = dropout(x, 0.5, /*training=*/true);
  std::string msg = error_of([&] { nabla::onnx::export_graph_bytes(g, {d}); });
  EXPECT_NE(msg.find("op 'dropout'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("eval mode"), std::string::npos) << msg;
}

TEST(OnnxExport, GraphUpdatesAndForeignFetchesAreRefused) {
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2}, "x");
  Tensor v = g.variable(zeros({2}), "v");
  Tensor a = graph::assign(v, x * 2.0);
  std::string msg = error_of([&] { nabla::onnx::export_graph_bytes(g, {a}); });
  EXPECT_NE(msg.find("kind 'assign'"), std::string::npos) << msg;
  graph::Graph other;
  Tensor z = other.placeholder(kFloat32, {2}, "z");
  msg = error_of([&] { nabla::onnx::export_graph_bytes(g, {z}); });
  EXPECT_NE(msg.find("not a value of this graph"), std::string::npos) << msg;
  msg = error_of([&] { nabla::onnx::export_graph_bytes(g, {x + 1.0}, {.opset = 13}); });
  EXPECT_NE(msg.find("opset 13"), std::string::npos) << msg;
}

TEST(OnnxExport, AFailedExportLeavesTheExistingFileUntouched) {
  std::string path = temp_path("keep.onnx");
  std::ofstream(path) << "previous model";
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  EXPECT_THROW(nabla::onnx::export_graph(g, {cumsum(x, 0)}, path), Error);
  std::stringstream kept;
  kept << std::ifstream(path).rdbuf();
  EXPECT_EQ(kept.str(), "previous model");
  for (const auto& e : fs::directory_iterator(fs::temp_directory_path()))
    EXPECT_EQ(e.path().string().find(path + ".tmp"), std::string::npos) << e.path();
  nabla::onnx::export_graph(g, {relu(x)}, path);
  EXPECT_GT(fs::file_size(path), 20u);
  fs::remove(path);
}

TEST(OnnxExport, AModuleIsExportedInEvalModeAndKeepsItsMode) {
  auto cnn = zoo::fashion_cnn();
  cnn->train();
  std::string path = temp_path("cnn.onnx");
  nabla::onnx::export_module(*cnn, zeros({1, 1, 28, 28}), path);
  EXPECT_TRUE(cnn->is_training());
  std::ifstream f(path, std::ios::binary);
  ::onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromIstream(&f));
  EXPECT_EQ(m.graph().input(0).name(), "input");
  EXPECT_EQ(m.graph().output(0).name(), "output");
  // Two convs; batch norm (a composite op) arrives as the arithmetic of its
  // inference form; dropout, the identity in eval mode, leaves no node.
  int convs = 0;
  for (const auto& n : m.graph().node()) {
    convs += n.op_type() == "Conv";
    EXPECT_NE(n.op_type(), "Dropout");
  }
  EXPECT_EQ(convs, 2);
  fs::remove(path);
}

TEST(OnnxExport, EveryConverterIsForAnOpOfTheTable) {
  // The converters are keyed by op name: a renamed or removed op must not
  // leave a converter behind that nothing reaches.
  auto names = nabla::onnx::detail::converted_op_names();
  EXPECT_GT(names.size(), 70u);
  for (const auto& name : names) EXPECT_NE(find_op(name), nullptr) << name << " is not an op of the table";
}
