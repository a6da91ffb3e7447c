#include "nabla/summary/summary_writer.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <vector>

#include "nabla/core/error.h"
#include "nabla/graph/graph.h"
#include "nabla/summary/graph_def.h"
#include "nabla/summary/histogram.h"
#include "nabla/summary/module_graph.h"
#include "nabla/summary/png.h"
#include "nabla/summary/proto/hparams.pb.h"
#include "nabla/summary/proto/tensorboard.pb.h"
#include "nabla/summary/record_writer.h"

namespace nabla::summary {
namespace {

double wall_time() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// events.out.tfevents.<time>.<host>.<pid>.<n>, torch's name: TensorBoard
// only needs "tfevents" in it; pid and a counter keep two writers apart.
std::string event_file_name(const std::string& suffix) {
  static std::atomic<int> counter{0};
  auto secs = static_cast<long long>(std::floor(wall_time()));
  return "events.out.tfevents." + std::to_string(secs) + "." + host_name() + "." + std::to_string(getpid()) + "." +
         std::to_string(counter++) + suffix;
}

pb::Event event_at(int64_t step) {
  pb::Event e;
  e.set_wall_time(wall_time());
  e.set_step(step);
  return e;
}

void check_tag(const char* api, const std::string& tag) {
  NABLA_CHECK(!tag.empty(), "SummaryWriter::", api, ": the tag is empty; expected a name such as \"loss/train\"");
}

std::string hparams_content(const pb::hparams::HParamsPluginData& data) { return data.SerializeAsString(); }

pb::Summary::Value* plugin_value(pb::Summary& s, const std::string& tag, const std::string& plugin,
                                 const std::string& content) {
  pb::Summary::Value* v = s.add_value();
  v->set_tag(tag);
  auto* pd = v->mutable_metadata()->mutable_plugin_data();
  pd->set_plugin_name(plugin);
  pd->set_content(content);
  return v;
}

}  // namespace

SummaryWriter::SummaryWriter(const std::string& logdir, SummaryWriterOptions options) : options_(std::move(options)) {
  NABLA_CHECK(!logdir.empty(), "SummaryWriter: the log directory is empty; expected a path such as \"runs/exp1\"");
  NABLA_CHECK(options_.max_queue >= 1, "SummaryWriter: max_queue is ", options_.max_queue, "; expected >= 1");
  NABLA_CHECK(options_.flush_secs >= 0, "SummaryWriter: flush_secs is ", options_.flush_secs, "; expected >= 0");
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  NABLA_CHECK(!ec && std::filesystem::is_directory(logdir), "SummaryWriter: cannot create the log directory '", logdir,
              "': ", ec ? ec.message() : "a file of that name exists");
  path_ = (std::filesystem::path(logdir) / event_file_name(options_.filename_suffix)).string();
  records_ = std::make_unique<RecordWriter>(path_);
  pb::Event e = event_at(0);
  e.set_file_version("brain.Event:2");
  records_->write(e.SerializeAsString());
  flush();  // readers see the file at once, like TensorFlow's writer
  // An idle writer still flushes what it holds after flush_secs (torch's
  // writer thread does the same); with flush_secs = 0 every add flushes.
  if (options_.flush_secs > 0) flusher_ = std::thread([this] { flush_periodically(); });
}

void SummaryWriter::flush_periodically() {
  auto period = std::chrono::duration<double>(std::min(options_.flush_secs, 1e6));
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period, [this] { return stopping_; })) {
    if (records_ && pending_ > 0) {
      try {
        flush_locked();
      } catch (const Error&) {  // a full disk: the next add_* or close() reports it
      }
    }
  }
}

SummaryWriter::~SummaryWriter() {
  try {
    close();
  } catch (...) {  // never throw from a destructor; call close() to see errors
  }
}

void SummaryWriter::check_open(const char* api) const {
  std::lock_guard<std::mutex> lock(mu_);
  NABLA_CHECK(records_, "SummaryWriter::", api, ": the writer of '", path_, "' is closed");
}

void SummaryWriter::write_event(const std::string& serialized_event) {
  std::lock_guard<std::mutex> lock(mu_);
  NABLA_CHECK(records_, "SummaryWriter: the writer of '", path_, "' is closed");
  records_->write(serialized_event);
  ++pending_;
  auto since = std::chrono::duration<double>(std::chrono::steady_clock::now() - last_flush_).count();
  if (pending_ >= options_.max_queue || since >= options_.flush_secs) flush_locked();
}

void SummaryWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  check_open("add_scalar");
  check_tag("add_scalar", tag);
  pb::Event e = event_at(step);
  pb::Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));
  write_event(e.SerializeAsString());
}

void SummaryWriter::add_histogram(const std::string& tag, const Tensor& values, int64_t step) {
  check_open("add_histogram");
  check_tag("add_histogram", tag);
  NABLA_CHECK(values.defined(), "SummaryWriter::add_histogram('", tag, "'): the tensor is undefined");
  NABLA_CHECK(values.numel() > 0, "SummaryWriter::add_histogram('", tag, "'): the tensor of shape ", values.sizes(),
              " is empty; expected at least one value");
  std::vector<double> v = values.detach().to_vector<double>();
  for (double x : v)
    NABLA_CHECK(std::isfinite(x), "SummaryWriter::add_histogram('", tag, "'): the tensor holds ", x,
                "; expected finite values only");
  Histogram h = make_histogram(v);
  pb::Event e = event_at(step);
  pb::Summary::Value* sv = e.mutable_summary()->add_value();
  sv->set_tag(tag);
  pb::HistogramProto* hp = sv->mutable_histo();
  hp->set_min(h.min);
  hp->set_max(h.max);
  hp->set_num(h.num);
  hp->set_sum(h.sum);
  hp->set_sum_squares(h.sum_squares);
  for (double b : h.bucket_limit) hp->add_bucket_limit(b);
  for (double b : h.bucket) hp->add_bucket(b);
  write_event(e.SerializeAsString());
}

void SummaryWriter::add_image(const std::string& tag, const Tensor& image, int64_t step, const std::string& dataformats) {
  check_open("add_image");
  check_tag("add_image", tag);
  NABLA_CHECK(dataformats == "CHW" || dataformats == "HWC" || dataformats == "HW", "SummaryWriter::add_image('", tag,
              "'): dataformats is \"", dataformats, "\"; expected \"CHW\", \"HWC\" or \"HW\"");
  NABLA_CHECK(image.defined(), "SummaryWriter::add_image('", tag, "'): the tensor is undefined");
  NABLA_CHECK(image.dim() == static_cast<int64_t>(dataformats.size()), "SummaryWriter::add_image('", tag,
              "'): a tensor of shape ", image.sizes(), " for dataformats \"", dataformats, "\"; expected ",
              dataformats.size(), " dims");
  const auto& s = image.sizes();
  int64_t h = 0, w = 0, c = 1;
  if (dataformats == "CHW") c = s[0], h = s[1], w = s[2];
  else if (dataformats == "HWC") h = s[0], w = s[1], c = s[2];
  else h = s[0], w = s[1];
  NABLA_CHECK(c == 1 || c == 3 || c == 4, "SummaryWriter::add_image('", tag, "'): ", c, " channels (shape ", s,
              ", ", dataformats, "); expected 1, 3 or 4");
  NABLA_CHECK(h > 0 && w > 0 && h <= (1 << 24) && w <= (1 << 24), "SummaryWriter::add_image('", tag,
              "'): an image of ", h, "x", w, " pixels; expected a non-empty image");
  NABLA_CHECK(image.dtype() != DType::Bool, "SummaryWriter::add_image('", tag,
              "'): a bool tensor; expected uint8 (0-255) or floating point (0-1)");
  // torch's rule: uint8 is taken as it is, anything else is in [0, 1].
  double scale = image.dtype() == DType::UInt8 ? 1.0 : 255.0;
  std::vector<float> v = image.detach().to_vector<float>();
  int64_t out_c = c == 1 ? 3 : c;  // gray is shown as RGB, as torch does
  std::vector<uint8_t> px(static_cast<std::size_t>(h * w * out_c));
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x)
      for (int64_t k = 0; k < out_c; ++k) {
        int64_t src_k = c == 1 ? 0 : k;
        int64_t i = dataformats == "CHW" ? (src_k * h + y) * w + x : (y * w + x) * c + src_k;
        double p = v[static_cast<std::size_t>(i)] * scale;
        p = std::isnan(p) ? 0.0 : std::clamp(p, 0.0, 255.0);
        // torch truncates (astype(np.uint8)) after scaling: so do we.
        px[static_cast<std::size_t>((y * w + x) * out_c + k)] = static_cast<uint8_t>(p);
      }
  pb::Event e = event_at(step);
  pb::Summary::Value* sv = e.mutable_summary()->add_value();
  sv->set_tag(tag);
  pb::Summary::Image* im = sv->mutable_image();
  im->set_height(static_cast<int32_t>(h));
  im->set_width(static_cast<int32_t>(w));
  im->set_colorspace(static_cast<int32_t>(out_c));
  im->set_encoded_image_string(encode_png(px, static_cast<int>(h), static_cast<int>(w), static_cast<int>(out_c)));
  write_event(e.SerializeAsString());
}

void SummaryWriter::add_text(const std::string& tag, const std::string& text, int64_t step) {
  check_open("add_text");
  check_tag("add_text", tag);
  pb::Event e = event_at(step);
  // The text plugin's format (tensorboard/plugins/text/summary_v2.py): a
  // string tensor of shape [1] under "<tag>/text_summary" in torch; TextPluginData
  // (version 0) serializes to no bytes.
  pb::Summary::Value* v = plugin_value(*e.mutable_summary(), tag + "/text_summary", "text", "");
  pb::TensorProto* t = v->mutable_tensor();
  t->set_dtype(pb::DT_STRING);
  t->mutable_tensor_shape()->add_dim()->set_size(1);
  t->add_string_val(text);
  write_event(e.SerializeAsString());
}

void SummaryWriter::add_hparams(const std::map<std::string, HParam>& hparams,
                                const std::map<std::string, double>& metrics) {
  check_open("add_hparams");
  NABLA_CHECK(!hparams.empty(), "SummaryWriter::add_hparams: no hyper-parameters given; expected at least one");
  // The plugin's three summaries (tensorboard/plugins/hparams/summary.py):
  // the experiment (which hparams and metrics exist), this session's values,
  // and its end.
  pb::hparams::HParamsPluginData experiment;
  pb::hparams::HParamsPluginData start;
  auto* info = start.mutable_session_start_info();
  info->set_start_time_secs(wall_time());
  for (const auto& [name, hp] : hparams) {
    NABLA_CHECK(!name.empty(), "SummaryWriter::add_hparams: a hyper-parameter has an empty name");
    pb::hparams::HParamInfo* hi = experiment.mutable_experiment()->add_hparam_infos();
    hi->set_name(name);
    google::protobuf::Value& value = (*info->mutable_hparams())[name];
    const auto& v = hp.value();
    if (const double* d = std::get_if<double>(&v)) {
      hi->set_type(pb::hparams::DATA_TYPE_FLOAT64);
      value.set_number_value(*d);
    } else if (const bool* b = std::get_if<bool>(&v)) {
      hi->set_type(pb::hparams::DATA_TYPE_BOOL);
      value.set_bool_value(*b);
    } else {
      hi->set_type(pb::hparams::DATA_TYPE_STRING);
      value.set_string_value(std::get<std::string>(v));
    }
  }
  for (const auto& [name, value] : metrics) {
    NABLA_CHECK(!name.empty(), "SummaryWriter::add_hparams: a metric has an empty name");
    experiment.mutable_experiment()->add_metric_infos()->mutable_name()->set_tag(name);
  }
  pb::hparams::HParamsPluginData end;
  end.mutable_session_end_info()->set_status(pb::hparams::STATUS_SUCCESS);
  end.mutable_session_end_info()->set_end_time_secs(wall_time());
  for (const auto& [tag, data] : {std::pair<const char*, const pb::hparams::HParamsPluginData*>{"_hparams_/experiment", &experiment},
                                  {"_hparams_/session_start_info", &start},
                                  {"_hparams_/session_end_info", &end}}) {
    pb::Event e = event_at(0);
    plugin_value(*e.mutable_summary(), tag, "hparams", hparams_content(*data));
    write_event(e.SerializeAsString());
  }
  for (const auto& [name, value] : metrics) add_scalar(name, value, 0);
}

void SummaryWriter::add_graph(const graph::Graph& g) {
  check_open("add_graph");
  NABLA_CHECK(g.data(), "SummaryWriter::add_graph: the graph has no data");
  pb::Event e = event_at(0);
  e.set_graph_def(encode_graph_def(*g.data()));
  write_event(e.SerializeAsString());
}

void SummaryWriter::add_graph(nn::Module& module, const Tensor& example_input) {
  check_open("add_graph");
  add_graph(trace_module_graph(module, example_input));
}

void SummaryWriter::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  flush_locked();
}

void SummaryWriter::flush_locked() {
  if (!records_) return;
  records_->flush();
  pending_ = 0;
  last_flush_ = std::chrono::steady_clock::now();
}

void SummaryWriter::close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (!records_) return;
  std::unique_ptr<RecordWriter> r = std::move(records_);
  r->close();
}

}  // namespace nabla::summary
