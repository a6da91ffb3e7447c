// See resume.h.
#include "resume.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::tool {
namespace {

// (metadata key, how the message names it), in the order they are checked.
const std::vector<std::pair<std::string, std::string>>& compared() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"option.model", "--model"},
      {"option.model_config", "the model's layers (--config)"},
      {"option.data", "the data (--data, --config)"},
      {"option.optimizer_options", "the optimizer's options (--config)"},
      {"option.optimizer", "--optimizer"},
      {"option.schedule", "--schedule"},
      {"option.lr", "--lr"},
      {"option.epochs", "--epochs"},
      {"option.batch_size", "--batch-size"},
      {"option.seed", "--seed"},
      {"option.limit", "--limit"},
      {"train_samples", "the number of training images (--data, --limit)"},
      {"test_samples", "the number of test images (--data, --limit)"},
  };
  return keys;
}

// The data's source and transform in one line ("idx DIR normalize 0.286 0.353").
std::string data_text(const TrainConfig& c) {
  const DataSpec& d = c.data_spec;
  std::string s = d.format + " " + (d.format == "idx" ? c.data : d.train + " " + d.test);
  if (d.format == "npy") s += " " + d.train_targets + " " + d.test_targets;
  if (d.format == "npz") s += " x=" + d.x_key + " y=" + d.y_key;
  if (d.format == "csv") s += " header=" + std::to_string(d.header) + " target=" + std::to_string(d.target_column);
  if (d.normalize) s += " normalize " + exact_number(d.normalize->first) + " " + exact_number(d.normalize->second);
  return s;
}

std::string optimizer_text(const TrainConfig& c) {
  std::string s;
  for (const auto& [k, v] : c.optimizer_options) s += (s.empty() ? "" : " ") + k + "=" + exact_number(v);
  return s;
}

}  // namespace

std::string exact_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

io::Metadata run_options(const TrainConfig& c, int64_t train_samples, int64_t test_samples) {
  return {{"option.model", c.model},
          {"option.model_config", c.model_config},
          {"option.data", data_text(c)},
          {"option.optimizer_options", optimizer_text(c)},
          {"option.optimizer", c.optimizer},
          {"option.schedule", c.schedule},
          {"option.lr", exact_number(c.lr)},
          {"option.epochs", std::to_string(c.epochs)},
          {"option.batch_size", std::to_string(c.batch_size)},
          {"option.seed", std::to_string(c.seed)},
          {"option.limit", std::to_string(c.limit)},
          {"train_samples", std::to_string(train_samples)},
          {"test_samples", std::to_string(test_samples)}};
}

void check_same_options(const std::string& path, const io::Metadata& saved, const io::Metadata& current) {
  for (const auto& [key, option] : compared()) {
    auto s = saved.find(key);
    NABLA_CHECK(s != saved.end(), "nabla train --resume: '", path, "' has no '", key,
                "' entry (not written by this version of nabla train); start a new run without --resume or with "
                "another --out");
    const std::string& now = current.at(key);
    NABLA_CHECK(s->second == now, "nabla train --resume: '", path, "' was written by a run with ", option, " ",
                s->second, ", this run has ", option, " ", now,
                "; resume with the options the run was started with, or start a new run without --resume (which "
                "overwrites the checkpoint) or with another --out");
  }
}

double saved_number(const std::string& path, const io::Metadata& saved, const std::string& key) {
  auto it = saved.find(key);
  NABLA_CHECK(it != saved.end(), "nabla train --resume: '", path, "' has no '", key, "' entry");
  const std::string& s = it->second;
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  NABLA_CHECK(!s.empty() && ec == std::errc() && ptr == s.data() + s.size(), "nabla train --resume: '", path,
              "' metadata '", key, "' is '", s, "', expected a number");
  return v;
}

int64_t kill_at_step_from_environment() {
  const char* text = std::getenv("NABLA_TRAIN_KILL_AT_STEP");
  if (text == nullptr) return 0;
  std::string s(text);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  NABLA_CHECK(!s.empty() && ec == std::errc() && ptr == s.data() + s.size() && v >= 1,
              "nabla train: NABLA_TRAIN_KILL_AT_STEP is '", s, "', expected an integer >= 1 (a test-only hook)");
  return v;
}

}  // namespace nabla::tool
