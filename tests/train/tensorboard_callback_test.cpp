// train::TensorBoard inside fit(): Keras's runs (train, validation) and tags
// (epoch_loss, epoch_accuracy, epoch_learning_rate, batch_*), the steps, the
// values of the History, and parameter histograms, read back with nabla's
// RecordReader and with TensorBoard's own EventAccumulator
// (tests/summary/read_with_tensorboard.py; skipped when python3 cannot import
// tensorboard).
#include "nabla/train/tensorboard_callback.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "nabla/summary/proto/tensorboard.pb.h"
#include "nabla/summary/record_writer.h"
#include "support/error_message.h"
#include "support/run_program.h"
#include "train/fit_support.h"

namespace nabla::train {
namespace {

namespace fs = std::filesystem;
using nabla::testing::error_of;
using nabla::testing::expect_error;
using testing::linear_problem;
using testing::linear_trainer;
using testing::WeightRecorder;

// Every scalar (tag -> [(step, value)]) and histogram (tag -> steps) of the
// one event file in `run_dir`.
struct RunEvents {
  std::map<std::string, std::vector<std::pair<int64_t, float>>> scalars;
  std::map<std::string, std::vector<int64_t>> histograms;
};
RunEvents read_run(const fs::path& run_dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(run_dir)) files.push_back(e.path());
  EXPECT_EQ(files.size(), 1u) << run_dir;
  RunEvents run;
  if (files.empty()) return run;
  summary::RecordReader r(files[0].string());
  while (auto rec = r.next()) {
    summary::pb::Event e;
    EXPECT_TRUE(e.ParseFromString(*rec));
    for (const auto& v : e.summary().value()) {
      if (v.has_histo())
        run.histograms[v.tag()].push_back(e.step());
      else
        run.scalars[v.tag()].push_back({e.step(), v.simple_value()});
    }
  }
  EXPECT_FALSE(r.torn());
  return run;
}

// The running logs after each training batch.
class BatchLogs : public Callback {
 public:
  void on_train_batch_end(int64_t, const Logs& logs) override { at.push_back(logs); }
  std::vector<Logs> at;
};

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string python_with_tensorboard() {
  for (std::string py : {"/usr/bin/python3", "python3"})
    if (nabla::testing::run_program(py + " -c 'import tensorboard' >/dev/null 2>&1").code == 0) return py;
  return "";
}

// {"scalars": {tag: [[step, value], ...]}, "histograms": {tag: {"step": s, "values": [...]}}}
std::string expected_json(const RunEvents& run, const std::map<std::string, std::vector<float>>& histogram_values) {
  std::ostringstream o;
  o << "{\"scalars\": {";
  bool first = true;
  for (const auto& [tag, points] : run.scalars) {
    o << (first ? "" : ", ") << "\"" << tag << "\": [";
    for (std::size_t i = 0; i < points.size(); ++i)
      o << (i ? ", " : "") << "[" << points[i].first << ", " << num(points[i].second) << "]";
    o << "]";
    first = false;
  }
  o << "}, \"histograms\": {";
  first = true;
  for (const auto& [tag, values] : histogram_values) {
    o << (first ? "" : ", ") << "\"" << tag << "\": {\"step\": 0, \"values\": [";
    for (std::size_t i = 0; i < values.size(); ++i) o << (i ? ", " : "") << num(values[i]);
    o << "]}";
    first = false;
  }
  o << "}}\n";
  return o.str();
}

TEST(TrainTensorBoard, WritesKerasRunsAndTagsWithTheHistoryValuesBatchesAndHistograms) {
  auto [x, y] = linear_problem(40);
  Trainer t = linear_trainer(0.1);
  const fs::path dir = fs::temp_directory_path() / ("nabla_train_tensorboard_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto batches = std::make_shared<BatchLogs>();
  auto weights = std::make_shared<WeightRecorder>();
  // 30 training samples in batches of 10: 3 batches per epoch, 6 in all;
  // batch scalars at global batches 2, 4, 6; histograms at epoch 0 only.
  History h =
      t.fit(x, y,
            {.epochs = 2,
             .batch_size = 10,
             .validation_split = 0.25,
             .callbacks = {TensorBoard(dir.string(), {.update_freq = 2, .histogram_freq = 2}), batches, weights},
             .verbose = 0});
  ASSERT_EQ(batches->at.size(), 6u);

  RunEvents train = read_run(dir / "train"), validation = read_run(dir / "validation");
  auto epochs = [&](const std::string& key) {
    std::vector<std::pair<int64_t, float>> v;
    for (std::size_t e = 0; e < h[key].size(); ++e)
      v.push_back({static_cast<int64_t>(e), static_cast<float>(h[key][e])});
    return v;
  };
  auto every_second_batch = [&](const std::string& key) {
    std::vector<std::pair<int64_t, float>> v;
    for (int64_t step : {2, 4, 6}) v.push_back({step, static_cast<float>(batches->at[step - 1].at(key))});
    return v;
  };
  using Scalars = std::map<std::string, std::vector<std::pair<int64_t, float>>>;
  EXPECT_EQ(train.scalars, (Scalars{{"epoch_loss", epochs("loss")},
                                    {"epoch_accuracy", epochs("accuracy")},
                                    {"epoch_learning_rate", epochs("lr")},
                                    {"batch_loss", every_second_batch("loss")},
                                    {"batch_accuracy", every_second_batch("accuracy")}}));
  EXPECT_EQ(validation.scalars,
            (Scalars{{"epoch_loss", epochs("val_loss")}, {"epoch_accuracy", epochs("val_accuracy")}}));
  EXPECT_EQ(train.histograms, (std::map<std::string, std::vector<int64_t>>{{"weight", {0}}, {"bias", {0}}}));
  EXPECT_TRUE(validation.histograms.empty());

  // TensorBoard's own reader finds the same values.
  const std::string python = python_with_tensorboard();
  if (python.empty()) GTEST_SKIP() << "no python3 can import tensorboard; EventAccumulator was not run";
  std::map<std::string, std::vector<float>> at_epoch0;
  for (const auto& [name, t0] : weights->at.at(0)) at_epoch0[name] = t0.contiguous().to_vector<float>();
  for (const auto& [run_name, run, histograms] :
       {std::tuple{"train", &train, at_epoch0}, std::tuple{"validation", &validation, decltype(at_epoch0){}}}) {
    const fs::path expected = dir / (std::string(run_name) + ".json");
    std::ofstream(expected) << expected_json(*run, histograms);
    auto r = nabla::testing::run_program(python + " " + NABLA_TESTS_DIR + "/summary/read_with_tensorboard.py " +
                                         (dir / run_name).string() + " " + expected.string() + " 2>&1");
    EXPECT_EQ(r.code, 0) << run_name << ":\n" << r.out;
    EXPECT_NE(r.out.find("scalars: " + std::to_string(run->scalars.size()) + " tags found"), std::string::npos)
        << r.out;
  }
  fs::remove_all(dir);
}

// The (name, op) of each node of every graph event of the one file in `run_dir`, one list per event.
std::vector<std::vector<std::pair<std::string, std::string>>> read_graphs(const fs::path& run_dir) {
  std::vector<std::vector<std::pair<std::string, std::string>>> graphs;
  for (const auto& f : fs::directory_iterator(run_dir)) {
    summary::RecordReader r(f.path().string());
    while (auto rec = r.next()) {
      summary::pb::Event e;
      EXPECT_TRUE(e.ParseFromString(*rec));
      if (e.graph_def().empty()) continue;
      summary::pb::GraphDef def;
      EXPECT_TRUE(def.ParseFromString(e.graph_def()));
      graphs.emplace_back();
      for (const auto& n : def.node()) graphs.back().push_back({n.name(), n.op()});
    }
  }
  return graphs;
}

// write_graph (Keras's default: on): the model's forward, traced once on the
// first batch's shape, in the train run; TensorBoard's reader finds it.
TEST(TrainTensorBoard, WritesTheModelGraphOnceFromTheFirstBatch) {
  auto [x, y] = linear_problem(40);
  Trainer t = linear_trainer(0.1);
  const fs::path dir = fs::temp_directory_path() / ("nabla_train_tensorboard_graph_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  t.fit(x, y, {.epochs = 2, .batch_size = 10, .callbacks = {TensorBoard(dir.string())}, .verbose = 0});
  // linear(x, w, b) = mm(x, permute(w)) + b; the Linear is the model itself, so no group prefix.
  using Nodes = std::vector<std::pair<std::string, std::string>>;
  const Nodes expected = {{"input_0", "Placeholder"}, {"weight", "VariableV2"}, {"permute", "permute"},
                          {"mm", "mm"},               {"bias", "VariableV2"},   {"add", "add"}};
  EXPECT_EQ(read_graphs(dir / "train"), std::vector<Nodes>{expected});
  EXPECT_FALSE(fs::exists(dir / "validation"));  // no validation data

  // write_graph = false: none.
  fs::remove_all(dir);
  t.fit(x, y, {.epochs = 1, .batch_size = 10, .callbacks = {TensorBoard(dir.string(), {.write_graph = false})},
               .verbose = 0});
  EXPECT_TRUE(read_graphs(dir / "train").empty());

  // A model that cannot be traced: one line on stderr, and training goes on.
  struct ReadsValues : nn::Module {
    std::shared_ptr<nn::Linear> fc = register_module("fc", std::make_shared<nn::Linear>(4, 3));
    Tensor forward(const Tensor& x) override { return fc->forward(x) * (x.sum().item<double>() > 1e300 ? 0.0 : 1.0); }
  };
  auto model = std::make_shared<ReadsValues>();
  Trainer u(model, {.optimizer = std::make_shared<optim::SGD>(model->parameters(), optim::Options{{"lr", 0.1}})});
  fs::remove_all(dir);
  ::testing::internal::CaptureStderr();
  History h = u.fit(x, y, {.epochs = 1, .batch_size = 10, .callbacks = {TensorBoard(dir.string())}, .verbose = 0});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(h["loss"].size(), 1u);
  EXPECT_NE(err.find("TensorBoard: write_graph: the model's graph was not written: "), std::string::npos) << err;
  EXPECT_NE(err.find("graph::trace"), std::string::npos) << err;
  EXPECT_TRUE(read_graphs(dir / "train").empty());
  fs::remove_all(dir);
}

TEST(TrainTensorBoard, BadOptionsNameTheCallback) {
  expect_error(error_of([] { TensorBoard(""); }), {"TensorBoard: log_dir is empty"});
  expect_error(error_of([] { TensorBoard("x", {.update_freq = -1}); }),
               {"TensorBoard: update_freq must be 0", "got -1"});
  expect_error(error_of([] { TensorBoard("x", {.histogram_freq = -2}); }),
               {"TensorBoard: histogram_freq must be >= 0", "got -2"});
}

}  // namespace
}  // namespace nabla::train
