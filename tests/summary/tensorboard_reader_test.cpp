// Acceptance 4 of issue 16: TensorBoard's own reader (EventAccumulator, from
// the `tensorboard` pip package; scripts/install_deps.sh installs it) finds
// every scalar, histogram, image, text, hparam and the graph a SummaryWriter
// wrote, with the values written, and reads a file cut at every byte of its
// last record up to that record. The checks are in read_with_tensorboard.py;
// this test writes the run and the values it expects. Skips, saying why, when
// no python3 can import tensorboard.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "nabla/graph/node.h"
#include "nabla/nabla.h"
#include "support/run_program.h"

namespace nabla::summary {
namespace {

namespace fs = std::filesystem;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string str(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

template <class T, class F>
std::string list(const std::vector<T>& v, F f) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + f(v[i]);
  return out + "]";
}

// The first python3 that can import tensorboard (Debian's first: pip installs
// there), or "" if none can.
std::string python_with_tensorboard() {
  for (std::string py : {"/usr/bin/python3", "python3"}) {
    if (nabla::testing::run_program(py + " -c 'import tensorboard' >/dev/null 2>&1").code == 0) return py;
  }
  return "";
}

TEST(SummaryWriterTensorBoard, EventAccumulatorFindsEveryValueWrittenAndSkipsATornLastRecord) {
  std::string python = python_with_tensorboard();
  if (python.empty())
    GTEST_SKIP() << "no python3 can import tensorboard (scripts/install_deps.sh installs it with pip); "
                    "TensorBoard's reader was not run";
  fs::path dir = fs::temp_directory_path() / ("nabla_tensorboard_reader_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::ostringstream expected;
  expected << "{\n";
  {
    SummaryWriter w(dir.string());
    // Scalars: a curve of three points.
    std::vector<std::pair<int64_t, double>> loss = {{0, 1.5}, {1, 0.75}, {2, -0.25}};
    for (auto [step, value] : loss) w.add_scalar("loss/train", value, step);
    expected << "\"scalars\": {\"loss/train\": "
             << list(loss, [](auto p) { return "[" + std::to_string(p.first) + ", " + num(p.second) + "]"; })
             << "},\n";
    // Histograms: values across zero, repeated and tiny.
    std::vector<double> values = {-3.0, -0.5, 0.0, 0.0, 1e-13, 0.25, 0.25, 0.26, 7.0, 1e6};
    w.add_histogram("layer/weight", tensor(values), 3);
    expected << "\"histograms\": {\"layer/weight\": {\"step\": 3, \"values\": " << list(values, num) << "}},\n";
    // Images: a 2x3 RGB image in CHW floats (scaled by 255, truncated, clamped like torch).
    std::vector<float> chw = {0.0f, 0.5f, 1.0f, 0.25f, 2.0f, -1.0f,   // R
                              0.1f, 0.2f, 0.3f, 0.4f, 0.6f, 0.8f,     // G
                              1.0f, 1.0f, 0.0f, 0.0f, 0.75f, 0.999f};  // B
    w.add_image("samples/rgb", tensor(chw, {3, 2, 3}), 4);
    std::vector<int> hwc;
    for (int p = 0; p < 6; ++p)
      for (int c = 0; c < 3; ++c) {
        double v = static_cast<double>(chw[static_cast<std::size_t>(c * 6 + p)]) * 255.0;
        hwc.push_back(static_cast<int>(std::min(255.0, std::max(0.0, v))));
      }
    expected << "\"images\": {\"samples/rgb\": {\"step\": 4, \"height\": 2, \"width\": 3, \"channels\": 3, \"pixels\": "
             << list(hwc, [](int v) { return std::to_string(v); }) << "}},\n";
    // Text (markdown).
    std::string note = "# Run notes\nlr = **0.01**, \"quoted\"";
    w.add_text("notes", note, 5);
    expected << "\"texts\": {\"notes\": {\"step\": 5, \"text\": " << str(note) << "}},\n";
    // Hyper-parameters of this run, and its final metric.
    w.add_hparams({{"lr", 0.01}, {"batch_size", 64}, {"optimizer", "adam"}, {"batch_norm", true}},
                  {{"hparam/accuracy", 0.875}});
    expected << "\"hparams\": {\"hparams\": {\"lr\": 0.01, \"batch_size\": 64, \"optimizer\": \"adam\", "
                "\"batch_norm\": true}, \"metrics\": {\"hparam/accuracy\": 0.875}},\n";
    // The graph: x (4x3) @ w (3x2), relu, in a name scope.
    graph::Graph g;
    Tensor x = g.placeholder(kFloat32, {4, 3}, "x");
    Tensor y;
    {
      auto scope = g.name_scope("dense");
      Tensor wt = g.variable(ones({3, 2}), "w");
      y = relu(matmul(x, wt));
    }
    w.add_graph(g);
    std::vector<std::string> nodes;
    const graph::GraphData& gd = *g.data();
    for (const graph::Node& n : gd.nodes) {
      ASSERT_TRUE(n.kind == graph::NodeKind::Op || n.kind == graph::NodeKind::Placeholder ||
                  n.kind == graph::NodeKind::Variable);
      std::string op = n.kind == graph::NodeKind::Placeholder ? "Placeholder"
                       : n.kind == graph::NodeKind::Variable  ? "VariableV2"
                                                              : std::string(n.op->name);
      std::vector<std::string> inputs;
      for (const graph::ValueRef& in : n.inputs) inputs.push_back(gd.nodes[static_cast<std::size_t>(in.node)].name);
      nodes.push_back("{\"name\": " + str(n.name) + ", \"op\": " + str(op) + ", \"inputs\": " + list(inputs, str) + "}");
    }
    ASSERT_EQ(nodes.size(), 4u);  // x, dense/w, matmul, relu
    expected << "\"graph\": {\"placeholder_shape\": [4, 3], \"nodes\": " << list(nodes, [](auto s) { return s; })
             << "},\n";
    // The last record: the reader must drop it when the file is cut inside it.
    w.add_scalar("last/marker", 1.0, 9);
    expected << "\"marker\": \"last/marker\"\n}\n";
  }
  fs::path expected_path = fs::temp_directory_path() / ("nabla_tensorboard_expected_" + std::to_string(::getpid()) + ".json");
  std::ofstream(expected_path) << expected.str();
  auto r = nabla::testing::run_program(python + " " + NABLA_TESTS_DIR + "/summary/read_with_tensorboard.py " +
                                       dir.string() + " " + expected_path.string() + " 2>&1");
  if (r.code == 77) GTEST_SKIP() << r.out;
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* kind : {"scalars: 1 tags", "histograms: 1 tags", "images: 1 tags", "texts: 1 tags",
                           "hparams: 4 hyper-parameters, 1 metrics", "graph: 4 nodes", "torn: "})
    EXPECT_NE(r.out.find(kind), std::string::npos) << kind << " missing from:\n" << r.out;
  std::printf("%s", r.out.c_str());
  fs::remove_all(dir);
  fs::remove(expected_path);
}

}  // namespace
}  // namespace nabla::summary
