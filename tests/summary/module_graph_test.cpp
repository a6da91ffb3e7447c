// SummaryWriter::add_graph(module, example_input) (issue 16 item 4): the
// module's forward traced into the Graphs tab, nodes grouped by module, read
// back with nabla's RecordReader and with TensorBoard's own EventAccumulator
// (tests/summary/read_with_tensorboard.py; that part skips when python3
// cannot import tensorboard).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/summary/proto/tensorboard.pb.h"
#include "nabla/summary/record_writer.h"
#include "support/error_message.h"
#include "support/run_program.h"

namespace nabla::summary {
namespace {

namespace fs = std::filesystem;

struct NodeSeen {
  std::string name, op;
  std::vector<std::string> inputs;
  bool operator==(const NodeSeen&) const = default;
};

// The nodes of the one graph event in the one file under `dir`.
std::vector<NodeSeen> graph_nodes(const fs::path& dir, std::vector<int64_t>* placeholder_shape = nullptr) {
  std::vector<NodeSeen> nodes;
  int graphs = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    RecordReader r(f.path().string());
    while (auto rec = r.next()) {
      pb::Event e;
      EXPECT_TRUE(e.ParseFromString(*rec));
      if (e.graph_def().empty()) continue;
      ++graphs;
      pb::GraphDef def;
      EXPECT_TRUE(def.ParseFromString(e.graph_def()));
      for (const pb::NodeDef& n : def.node()) {
        nodes.push_back({n.name(), n.op(), {n.input().begin(), n.input().end()}});
        if (n.op() == "Placeholder" && placeholder_shape)
          for (const auto& d : n.attr().at("_output_shapes").list().shape(0).dim()) placeholder_shape->push_back(d.size());
      }
    }
  }
  EXPECT_EQ(graphs, 1);
  return nodes;
}

std::string json(const std::vector<NodeSeen>& nodes, const std::vector<int64_t>& shape) {
  auto q = [](const std::string& s) { return "\"" + s + "\""; };
  std::string o = "{\"graph\": {\"placeholder_shape\": [";
  for (std::size_t i = 0; i < shape.size(); ++i) o += (i ? ", " : "") + std::to_string(shape[i]);
  o += "], \"nodes\": [";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    o += (i ? ", " : "") + std::string("{\"name\": ") + q(nodes[i].name) + ", \"op\": " + q(nodes[i].op) +
         ", \"inputs\": [";
    for (std::size_t k = 0; k < nodes[i].inputs.size(); ++k) o += (k ? ", " : "") + q(nodes[i].inputs[k]);
    o += "]}";
  }
  return o + "]}}\n";
}

TEST(SummaryModuleGraph, TracesTheForwardIntoNodesGroupedByModule) {
  manual_seed(0);
  nn::Sequential net(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 3));
  const Tensor before = net.named_parameters()[0].second.clone();
  const fs::path dir = fs::temp_directory_path() / ("nabla_module_graph_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    SummaryWriter w(dir.string());
    w.add_graph(net, randn({5, 4}));
  }
  // Tracing runs no step: the parameters are unchanged and have no gradient.
  EXPECT_TRUE(equal(net.named_parameters()[0].second, before));
  EXPECT_FALSE(net.named_parameters()[0].second.grad().defined());

  std::vector<int64_t> shape;
  std::vector<NodeSeen> nodes = graph_nodes(dir, &shape);
  EXPECT_EQ(shape, (std::vector<int64_t>{5, 4}));
  // linear(x, w, b) is matmul(x, w.t()) + b: the transpose and the ops reading
  // the parameters sit in the Linear's group, the ReLU (no parameters) not.
  const std::vector<NodeSeen> expected = {
      {"input_0", "Placeholder", {}},
      {"0/weight", "VariableV2", {}},
      {"0/permute", "permute", {"0/weight"}},
      {"0/mm", "mm", {"input_0", "0/permute"}},
      {"0/bias", "VariableV2", {}},
      {"0/add", "add", {"0/mm", "0/bias"}},
      {"relu", "relu", {"0/add"}},
      {"2/weight", "VariableV2", {}},  // the ReLU is module 1
      {"2/permute", "permute", {"2/weight"}},
      {"2/mm", "mm", {"relu", "2/permute"}},
      {"2/bias", "VariableV2", {}},
      {"2/add", "add", {"2/mm", "2/bias"}},
  };
  EXPECT_EQ(nodes, expected);

  const std::string python = [] {
    for (std::string py : {"/usr/bin/python3", "python3"})
      if (nabla::testing::run_program(py + " -c 'import tensorboard' >/dev/null 2>&1").code == 0) return py;
    return std::string();
  }();
  if (python.empty()) GTEST_SKIP() << "no python3 can import tensorboard; EventAccumulator was not run";
  const fs::path expected_path = dir / "expected.json";
  std::ofstream(expected_path) << json(expected, {5, 4});
  auto r = nabla::testing::run_program(python + " " + NABLA_TESTS_DIR + "/summary/read_with_tensorboard.py " +
                                       dir.string() + " " + expected_path.string() + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("graph: " + std::to_string(expected.size()) + " nodes found"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// A training-mode model with BatchNorm and Dropout: its graph is the
// inference one (traced in eval mode: BatchNorm is x * scale + shift with the
// scale and shift of its weight and bias in its group, no dropout node), and showing it changes
// neither the training flags, the buffers (num_batches_tracked, the running
// statistics) nor the random stream.
TEST(SummaryModuleGraph, TrainingModeModelIsShownWithoutChangingItsState) {
  manual_seed(1);
  nn::Sequential net(nn::Conv2d(1, 2, 3), nn::BatchNorm2d(2), nn::ReLU(), nn::Flatten(), nn::Dropout(0.5),
                     nn::Linear(2 * 4 * 4, 3));
  net.train();
  net[4]->eval();  // a submodule in another mode than its parent keeps it
  std::vector<Tensor> buffers;
  for (const auto& [name, b] : net.named_buffers()) buffers.push_back(b.clone());
  const Tensor input = randn({8, 1, 6, 6});
  const GeneratorState rng = default_generator().get_state();
  const fs::path dir = fs::temp_directory_path() / ("nabla_module_graph_bn_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    SummaryWriter w(dir.string());
    w.add_graph(net, input);
  }
  EXPECT_EQ(default_generator().get_state(), rng);
  EXPECT_TRUE(net.is_training());
  EXPECT_TRUE(net[1]->is_training());
  EXPECT_FALSE(net[4]->is_training());
  std::size_t i = 0;
  for (const auto& [name, b] : net.named_buffers()) EXPECT_TRUE(equal(b, buffers[i++])) << name;
  std::vector<std::string> names;
  for (const NodeSeen& n : graph_nodes(dir)) names.push_back(n.name + " " + n.op);
  for (const char* want : {"0/weight VariableV2", "0/conv2d conv2d", "1/weight VariableV2", "1/mul mul", "1/add add",
                           "relu relu", "5/weight VariableV2", "5/mm mm"})
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end())
        << want << " not in the graph: " << ::testing::PrintToString(names);
  for (const std::string& n : names) EXPECT_EQ(n.find("dropout"), std::string::npos) << n;
  fs::remove_all(dir);
}

TEST(SummaryModuleGraph, AForwardThatReadsValuesIsAnErrorNamingTheTrace) {
  // A module whose forward reads a tensor's value cannot be traced.
  struct Reads : nn::Module {
    Tensor forward(const Tensor& x) override { return x * x.sum().item<double>(); }
  } reads;
  const fs::path dir = fs::temp_directory_path() / ("nabla_module_graph_err_" + std::to_string(::getpid()));
  SummaryWriter w(dir.string());
  nabla::testing::expect_error(nabla::testing::error_of([&] { w.add_graph(reads, ones({2, 2})); }),
                               {"graph::trace (called at"});
  nabla::testing::expect_error(nabla::testing::error_of([&] { w.add_graph(reads, Tensor()); }),
                               {"SummaryWriter::add_graph: the example input is an undefined tensor"});
  w.close();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nabla::summary
