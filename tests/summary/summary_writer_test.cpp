// SummaryWriter through its public API, its files decoded with the protocol
// buffers nabla generates (the same field numbers TensorBoard reads; the
// reader test next door checks with TensorBoard itself).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "nabla/nabla.h"
#include "nabla/summary/histogram.h"
#include "nabla/summary/proto/hparams.pb.h"
#include "nabla/summary/proto/tensorboard.pb.h"
#include "nabla/summary/record_writer.h"
#include "support/error_message.h"

namespace nabla::summary {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name)
      : path(fs::temp_directory_path() / ("nabla_summary_writer_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<pb::Event> read_events(const std::string& file) {
  RecordReader r(file);
  std::vector<pb::Event> events;
  while (auto rec = r.next()) {
    pb::Event e;
    EXPECT_TRUE(e.ParseFromString(*rec));
    events.push_back(e);
  }
  EXPECT_FALSE(r.torn());
  return events;
}

using nabla::testing::error_of;

TEST(SummaryWriter, NamesItsFileLikeTensorBoardAndStartsWithTheFileVersion) {
  TempDir dir("name");
  SummaryWriter w((dir.path / "run1").string());
  fs::path p(w.path());
  EXPECT_EQ(p.parent_path(), dir.path / "run1");
  EXPECT_EQ(p.filename().string().rfind("events.out.tfevents.", 0), 0u) << p;
  w.close();
  auto events = read_events(w.path());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_GT(events[0].wall_time(), 1.6e9);  // seconds since 1970, now
  SummaryWriter second((dir.path / "run1").string());
  EXPECT_NE(second.path(), w.path());  // two writers never share a file
}

TEST(SummaryWriter, ScalarsKeepTagStepAndValue) {
  TempDir dir("scalars");
  std::string path;
  {
    SummaryWriter w(dir.path.string());
    path = w.path();
    for (int step = 0; step < 5; ++step) w.add_scalar("loss", 1.0 / (step + 1), step * 10);
  }  // the destructor flushes
  auto events = read_events(path);
  ASSERT_EQ(events.size(), 6u);
  for (int step = 0; step < 5; ++step) {
    const pb::Event& e = events[static_cast<std::size_t>(step + 1)];
    EXPECT_EQ(e.step(), step * 10);
    ASSERT_EQ(e.summary().value_size(), 1);
    EXPECT_EQ(e.summary().value(0).tag(), "loss");
    EXPECT_EQ(e.summary().value(0).simple_value(), static_cast<float>(1.0 / (step + 1)));
  }
}

TEST(SummaryWriter, DefaultBucketsAreTensorFlows) {
  const auto& limits = default_bucket_limits();
  ASSERT_EQ(limits.size(), 1551u);  // 774 edges 1e-12 * 1.1^k below 1e20, DBL_MAX; mirrored; and 0
  EXPECT_EQ(limits.front(), -DBL_MAX);
  EXPECT_EQ(limits.back(), DBL_MAX);
  EXPECT_EQ(limits[limits.size() / 2], 0.0);
  EXPECT_EQ(limits[limits.size() / 2 + 1], 1e-12);
  EXPECT_DOUBLE_EQ(limits[limits.size() / 2 + 2], 1.1e-12);
}

TEST(SummaryWriter, HistogramCountsEachValueInItsTensorFlowBucket) {
  TempDir dir("histogram");
  std::string path;
  std::vector<float> values = {-2.0f, 0.0f, 0.0f, 0.5f, 0.5f, 0.5f, 3.0f};
  {
    SummaryWriter w(dir.path.string());
    path = w.path();
    w.add_histogram("w", tensor(values), 7);
  }
  auto events = read_events(path);
  ASSERT_EQ(events.size(), 2u);
  const pb::HistogramProto& h = events[1].summary().value(0).histo();
  EXPECT_EQ(events[1].step(), 7);
  EXPECT_EQ(h.min(), -2.0);
  EXPECT_EQ(h.max(), 3.0);
  EXPECT_EQ(h.num(), 7.0);
  EXPECT_DOUBLE_EQ(h.sum(), 2.5);
  EXPECT_DOUBLE_EQ(h.sum_squares(), 4.0 + 0.75 + 9.0);
  ASSERT_EQ(h.bucket_size(), h.bucket_limit_size());
  // Every bucket holds exactly the values in [previous limit, its limit);
  // runs of empty buckets are merged into one.
  double lo = -INFINITY, total = 0;
  for (int i = 0; i < h.bucket_size(); ++i) {
    double n = 0;
    for (float v : values) n += (v >= lo && v < h.bucket_limit(i)) ? 1 : 0;
    EXPECT_EQ(h.bucket(i), n) << "bucket " << i << " [" << lo << ", " << h.bucket_limit(i) << ")";
    if (i > 0) EXPECT_FALSE(h.bucket(i) == 0 && h.bucket(i - 1) == 0) << i;
    lo = h.bucket_limit(i);
    total += h.bucket(i);
  }
  EXPECT_EQ(total, 7.0);
  EXPECT_EQ(h.bucket_size(), 9);  // 4 non-empty buckets with 5 empty runs around them
}

// Width, height and colour type from a PNG's IHDR chunk.
void png_header(const std::string& png, uint32_t& width, uint32_t& height, int& color_type) {
  ASSERT_GE(png.size(), 26u);
  ASSERT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  auto be32 = [&](std::size_t at) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(png[at + static_cast<std::size_t>(i)]);
    return v;
  };
  width = be32(16);
  height = be32(20);
  color_type = static_cast<unsigned char>(png[25]);
}

TEST(SummaryWriter, ImagesArePngsOfTheGivenLayout) {
  TempDir dir("image");
  std::string path;
  {
    SummaryWriter w(dir.path.string());
    path = w.path();
    w.add_image("chw", rand({3, 4, 5}), 1);                                    // RGB, CHW float
    w.add_image("hwc", tensor(std::vector<uint8_t>(4 * 5 * 4, 200), {4, 5, 4}), 2, "HWC");  // RGBA uint8
    w.add_image("gray", rand({4, 5}), 3, "HW");                                 // gray, shown as RGB
  }
  auto events = read_events(path);
  ASSERT_EQ(events.size(), 4u);
  int want_colorspace[] = {3, 4, 3};
  int want_png_type[] = {2, 6, 2};  // PNG colour types: 2 RGB, 6 RGBA
  for (int i = 0; i < 3; ++i) {
    const pb::Summary::Image& im = events[static_cast<std::size_t>(i + 1)].summary().value(0).image();
    EXPECT_EQ(im.height(), 4);
    EXPECT_EQ(im.width(), 5);
    EXPECT_EQ(im.colorspace(), want_colorspace[i]);
    uint32_t width = 0, height = 0;
    int type = -1;
    png_header(im.encoded_image_string(), width, height, type);
    EXPECT_EQ(width, 5u);
    EXPECT_EQ(height, 4u);
    EXPECT_EQ(type, want_png_type[i]);
  }
}

TEST(SummaryWriter, TextIsTheTextPluginsStringTensor) {
  TempDir dir("text");
  std::string path;
  {
    SummaryWriter w(dir.path.string());
    path = w.path();
    w.add_text("notes", "hello *world*", 2);
  }
  auto events = read_events(path);
  ASSERT_EQ(events.size(), 2u);
  const pb::Summary::Value& v = events[1].summary().value(0);
  EXPECT_EQ(v.tag(), "notes/text_summary");  // torch's tag
  EXPECT_EQ(v.metadata().plugin_data().plugin_name(), "text");
  EXPECT_EQ(v.tensor().dtype(), pb::DT_STRING);
  ASSERT_EQ(v.tensor().string_val_size(), 1);
  EXPECT_EQ(v.tensor().string_val(0), "hello *world*");
}

TEST(SummaryWriter, HparamsWriteExperimentSessionStartEndAndMetricScalars) {
  TempDir dir("hparams");
  std::string path;
  {
    SummaryWriter w(dir.path.string());
    path = w.path();
    w.add_hparams({{"lr", 0.1}, {"layers", 3}, {"act", "relu"}, {"bn", false}}, {{"acc", 0.5}});
  }
  auto events = read_events(path);
  ASSERT_EQ(events.size(), 5u);  // file_version, 3 plugin summaries, 1 metric
  std::vector<std::string> tags;
  for (std::size_t i = 1; i < 4; ++i) {
    const pb::Summary::Value& v = events[i].summary().value(0);
    tags.push_back(v.tag());
    EXPECT_EQ(v.metadata().plugin_data().plugin_name(), "hparams");
  }
  EXPECT_EQ(tags, (std::vector<std::string>{"_hparams_/experiment", "_hparams_/session_start_info",
                                            "_hparams_/session_end_info"}));
  pb::hparams::HParamsPluginData start;
  ASSERT_TRUE(start.ParseFromString(events[2].summary().value(0).metadata().plugin_data().content()));
  const auto& hp = start.session_start_info().hparams();
  EXPECT_EQ(hp.at("lr").number_value(), 0.1);
  EXPECT_EQ(hp.at("layers").number_value(), 3.0);
  EXPECT_EQ(hp.at("act").string_value(), "relu");
  EXPECT_EQ(hp.at("bn").kind_case(), google::protobuf::Value::kBoolValue);
  EXPECT_FALSE(hp.at("bn").bool_value());
  EXPECT_EQ(events[4].summary().value(0).tag(), "acc");
  EXPECT_EQ(events[4].summary().value(0).simple_value(), 0.5f);
}

TEST(SummaryWriter, GraphIsAGraphDefWithInputsShapesAndScopes) {
  TempDir dir("graph");
  std::string path;
  graph::Graph g;
  Tensor x = g.placeholder(kFloat32, {2, 3}, "x");
  Tensor w = g.variable(ones({3, 4}), "w");
  Tensor y;
  {
    auto scope = g.name_scope("head");
    y = relu(matmul(x, w));
  }
  {
    SummaryWriter sw(dir.path.string());
    path = sw.path();
    sw.add_graph(g);
  }
  auto events = read_events(path);
  ASSERT_EQ(events.size(), 2u);
  pb::GraphDef def;
  ASSERT_TRUE(def.ParseFromString(events[1].graph_def()));
  ASSERT_EQ(def.node_size(), 4);
  EXPECT_EQ(def.node(0).name(), "x");
  EXPECT_EQ(def.node(0).op(), "Placeholder");
  EXPECT_EQ(def.node(1).op(), "VariableV2");
  EXPECT_EQ(def.node(2).op(), "mm");  // matmul of two matrices is the mm op
  EXPECT_EQ(def.node(2).name().rfind("head/", 0), 0u) << def.node(2).name();
  EXPECT_EQ(std::vector<std::string>(def.node(2).input().begin(), def.node(2).input().end()),
            (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(def.node(3).op(), "relu");
  EXPECT_EQ(def.node(3).input(0), def.node(2).name());
  const auto& shape = def.node(2).attr().at("_output_shapes").list().shape(0);
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_EQ(shape.dim(0).size(), 2);
  EXPECT_EQ(shape.dim(1).size(), 4);
  EXPECT_EQ(def.node(2).attr().at("dtype").type(), pb::DT_FLOAT);
}

TEST(SummaryWriter, FlushesEveryMaxQueueRecords) {
  TempDir dir("flush");
  SummaryWriter w(dir.path.string(), {.max_queue = 3, .flush_secs = 1e9});
  auto size = [&] { return fs::file_size(w.path()); };
  auto after_version = size();  // the file_version record is flushed at once
  EXPECT_GT(after_version, 0u);
  w.add_scalar("a", 1, 0);
  w.add_scalar("a", 2, 1);
  EXPECT_EQ(size(), after_version);  // still buffered
  w.add_scalar("a", 3, 2);
  auto after_three = size();
  EXPECT_GT(after_three, after_version);
  w.add_scalar("a", 4, 3);
  EXPECT_EQ(size(), after_three);
  w.flush();
  EXPECT_GT(size(), after_three);
}

TEST(SummaryWriter, FlushSecsZeroFlushesEachRecord) {
  TempDir dir("flush_secs");
  SummaryWriter w(dir.path.string(), {.max_queue = 1000, .flush_secs = 0});
  auto before = fs::file_size(w.path());
  w.add_scalar("a", 1, 0);
  EXPECT_GT(fs::file_size(w.path()), before);
}

TEST(SummaryWriter, AnIdleWriterFlushesAfterFlushSecs) {
  TempDir dir("idle");
  SummaryWriter w(dir.path.string(), {.max_queue = 1000, .flush_secs = 0.05});
  auto before = fs::file_size(w.path());
  w.add_scalar("a", 1, 0);  // nothing else is added: only the writer's thread can flush it
  bool flushed = false;
  for (int i = 0; i < 200 && !flushed; ++i) {  // up to 10 s on a loaded machine
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    flushed = fs::file_size(w.path()) > before;
  }
  EXPECT_TRUE(flushed);
}

TEST(SummaryWriter, ThreadsMayAddAtOnce) {
  TempDir dir("threads");
  std::string path;
  {
    SummaryWriter w(dir.path.string(), {.max_queue = 7, .flush_secs = 0.01});
    path = w.path();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&w, t] {
        for (int i = 0; i < 250; ++i) w.add_scalar("t" + std::to_string(t), i, i);
      });
    for (auto& th : threads) th.join();
  }
  auto events = read_events(path);
  EXPECT_EQ(events.size(), 1u + 4 * 250);
}

TEST(SummaryWriter, BadInputGivesErrorsNamingTheCall) {
  TempDir dir("errors");
  SummaryWriter w(dir.path.string());
  EXPECT_NE(error_of([&] { w.add_scalar("", 1, 0); }).find("add_scalar: the tag is empty"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_histogram("h", zeros({0, 3}), 0); }).find("add_histogram('h')"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_histogram("h", tensor({1.0, NAN}), 0); }).find("finite"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_histogram("h", Tensor(), 0); }).find("undefined"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_image("i", rand({2, 4, 4}), 0); }).find("2 channels"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_image("i", rand({4, 4}), 0); }).find("expected 3 dims"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_image("i", rand({3, 4, 4}), 0, "NCHW"); }).find("dataformats"), std::string::npos);
  EXPECT_NE(error_of([&] { w.add_hparams({}, {}); }).find("add_hparams"), std::string::npos);
  EXPECT_NE(error_of([] { SummaryWriter bad(""); }).find("log directory is empty"), std::string::npos);
  EXPECT_NE(error_of([] { SummaryWriter bad("/proc/nabla_cannot_be_here"); }).find("/proc/nabla_cannot_be_here"),
            std::string::npos);
  EXPECT_NE(error_of([&] { SummaryWriter bad(dir.path.string(), {.max_queue = 0}); }).find("max_queue"),
            std::string::npos);
  w.close();
  EXPECT_NE(error_of([&] { w.add_scalar("a", 1, 0); }).find("closed"), std::string::npos);
  w.close();  // closing twice is harmless
  // Nothing half-written: the file still reads whole.
  EXPECT_EQ(read_events(w.path()).size(), 1u);
}

}  // namespace
}  // namespace nabla::summary
