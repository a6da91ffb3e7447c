// SummaryWriter: TensorBoard event files from nabla, with the API of
// torch.utils.tensorboard.SummaryWriter (see docs/tensorboard.md).
//
//   nabla::summary::SummaryWriter w("runs/exp1");
//   w.add_scalar("loss/train", loss, step);
//   w.add_histogram("fc1/weight", model.fc1.weight, step);
//
// Files are TensorBoard's own format (TFRecord-framed Event protocol buffers,
// record_writer.h), named events.out.tfevents.<time>.<host>.<pid>.<n> so that
// `tensorboard --logdir runs` finds them. Records are buffered and reach the
// file whole: every `max_queue` records, every `flush_secs` seconds (a thread
// of the writer's own flushes an idle writer), on flush(), close() and
// destruction. The add_* calls may come from several threads.
// A process killed mid-write leaves at most a torn last record, which readers
// (TensorBoard's and RecordReader) skip.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <variant>

#include "nabla/core/tensor.h"

namespace nabla::graph {
class Graph;
}
namespace nabla::nn {
class Module;
}

namespace nabla::summary {

class RecordWriter;

struct SummaryWriterOptions {
  int max_queue = 10;        // flush after this many pending records (torch's default)
  double flush_secs = 120;   // flush at least this often (torch's default); 0: after every record
  std::string filename_suffix;  // appended to the event file's name
};

// A hyper-parameter's value: a number, a bool or a string (the HParams
// plugin's three types). Constructors for each, so {{"lr", 0.01}, {"batch", 64},
// {"opt", "adam"}, {"bn", true}} just works.
class HParam {
 public:
  HParam(double v) : v_(v) {}
  HParam(float v) : v_(static_cast<double>(v)) {}
  HParam(int v) : v_(static_cast<double>(v)) {}
  HParam(int64_t v) : v_(static_cast<double>(v)) {}
  HParam(bool v) : v_(v) {}
  HParam(const char* v) : v_(std::string(v)) {}
  HParam(std::string v) : v_(std::move(v)) {}
  const std::variant<double, bool, std::string>& value() const { return v_; }

 private:
  std::variant<double, bool, std::string> v_;
};

class SummaryWriter {
 public:
  // Creates `logdir` (and its parents) if needed and a new event file in it,
  // whose first record is the file_version Event ("brain.Event:2").
  explicit SummaryWriter(const std::string& logdir, SummaryWriterOptions options = {});
  ~SummaryWriter();  // flushes and closes
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  // A point of the curve `tag` (Scalars tab), stored as a float like torch.
  void add_scalar(const std::string& tag, double value, int64_t step = 0);
  // The distribution of `values`' elements (any shape and dtype; must be
  // non-empty and finite), with TensorFlow's default buckets (Histograms and
  // Distributions tabs).
  void add_histogram(const std::string& tag, const Tensor& values, int64_t step = 0);
  // An image (Images tab), PNG-encoded. `dataformats` is "CHW", "HWC" or "HW";
  // 1 (gray, shown as RGB like torch), 3 (RGB) or 4 (RGBA) channels. Floating
  // tensors are taken to be in [0, 1] and scaled by 255; uint8 as they are
  // (torch's rule); values are clamped to [0, 255].
  void add_image(const std::string& tag, const Tensor& image, int64_t step = 0, const std::string& dataformats = "CHW");
  // Text (Text tab; markdown is rendered), the text plugin's string tensor.
  void add_text(const std::string& tag, const std::string& text, int64_t step = 0);
  // One session of the HParams tab: its hyper-parameters and final metrics.
  // Each metric is also written as a scalar (tag = its name, step 0) so the
  // plugin can show it. Unlike torch, the session is this writer's own run
  // (torch makes a child run per call); call once per run.
  void add_hparams(const std::map<std::string, HParam>& hparams, const std::map<std::string, double>& metrics);
  // The model graph (Graphs tab): every node of `g` as a GraphDef node, with
  // its op, inputs, control inputs, output shapes and dtypes. Name scopes
  // ("block1/conv") become TensorBoard's collapsible groups.
  void add_graph(const graph::Graph& g);
  // The graph of module.forward traced on an input shaped like
  // `example_input` (torch's add_graph(model, input_to_model)): its values
  // are not read and the module runs no step. Nodes are grouped by module
  // ("0/weight", "0/linear"); see summary/module_graph.h.
  void add_graph(nn::Module& module, const Tensor& example_input);

  // Hands every pending record to the operating system.
  void flush();
  // Flushes and closes the file; adding afterwards throws nabla::Error.
  void close();
  // The event file's path.
  const std::string& path() const { return path_; }

 private:
  void write_event(const std::string& serialized_event);
  void check_open(const char* api) const;
  void flush_locked();
  void flush_periodically();

  std::string path_;
  SummaryWriterOptions options_;
  std::unique_ptr<RecordWriter> records_;
  int pending_ = 0;
  std::chrono::steady_clock::time_point last_flush_;
  mutable std::mutex mu_;  // guards records_, pending_, last_flush_, stopping_
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread flusher_;  // runs flush_periodically(); absent when flush_secs is 0
};

}  // namespace nabla::summary
