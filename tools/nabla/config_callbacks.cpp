// See config_callbacks.h.
#include "config_callbacks.h"

#include <algorithm>

#include "nabla/core/error.h"
#include "nabla/nn/config_reader.h"
#include "nabla/train/callbacks.h"
#include "nabla/train/metrics.h"
#include "nabla/train/tensorboard_callback.h"

namespace nabla::tool {
namespace {

using nn::ConfigReader;
using nn::Json;

const std::vector<std::string> kTypes = {"early_stopping",   "reduce_lr_on_plateau", "csv_logger",
                                         "model_checkpoint", "tensorboard",          "terminate_on_nan"};

// The keys of fit()'s epoch logs for these metrics: a monitor must be one.
std::vector<std::string> log_keys(const std::vector<std::string>& metrics) {
  std::vector<std::string> keys = {"loss", "accuracy"};
  for (const std::string& m : metrics) keys.push_back(train::make_metric(m)->name());
  for (std::size_t i = 0, n = keys.size(); i < n; ++i) keys.push_back("val_" + keys[i]);
  keys.push_back("lr");
  return keys;
}

std::string monitor(ConfigReader& r, const std::vector<std::string>& keys) {
  return r.choice("monitor", keys, "val_loss");
}

train::CallbackSpec build_one(ConfigReader& r, const std::string& type, const std::vector<std::string>& keys,
                              const std::string& schedule) {
  if (type == "early_stopping") {
    train::EarlyStoppingOptions o;
    o.monitor = monitor(r, keys);
    o.min_delta = r.number("min_delta", 0, 1e300, 0.0);
    o.patience = static_cast<int>(r.integer("patience", 0, 1000000, 0));
    o.mode = r.choice("mode", {"auto", "min", "max"}, "auto");
    o.restore_best_weights = r.boolean("restore_best_weights", false);
    return train::EarlyStopping(o);
  }
  if (type == "reduce_lr_on_plateau") {
    if (schedule != "none")
      r.error("reduce_lr_on_plateau cannot be used with \"schedule\": \"" + schedule +
              "\" (the schedule sets lr every batch and would undo its reductions); set \"schedule\": \"none\"");
    std::string m = monitor(r, keys);
    optim::PlateauOptions o;
    // "auto" (Keras's default): max for accuracy-like monitors (train::monitor_is_max).
    o.mode = train::monitor_is_max(m, r.choice("mode", {"auto", "min", "max"}, "auto"), "ReduceLROnPlateau") ? "max"
                                                                                                           : "min";
    o.factor = r.number("factor", 0, 1, 0.1, true);
    if (o.factor >= 1) r.bad("factor", "a number in (0, 1)");
    o.patience = r.integer("patience", 0, 1000000, 10);
    o.threshold = r.number("threshold", 0, 1e300, 1e-4);
    o.threshold_mode = r.choice("threshold_mode", {"rel", "abs"}, "rel");
    o.cooldown = r.integer("cooldown", 0, 1000000, 0);
    o.min_lr = {r.number("min_lr", 0, 1e300, 0.0)};
    o.eps = r.number("eps", 0, 1e300, 1e-8);
    return train::ReduceLROnPlateau(m, o);
  }
  if (type == "csv_logger") {
    std::string path = r.string("path");
    if (path.empty()) r.bad("path", "a file name");
    std::string sep = r.string("separator", ",");
    if (sep.size() != 1) r.bad("separator", "one character such as \",\"");
    return train::CSVLogger(path, sep[0], r.boolean("append", false));
  }
  if (type == "model_checkpoint") {
    std::string path = r.string("path");
    if (path.empty()) r.bad("path", "a file name (\"{epoch}\" becomes the epoch number)");
    train::CheckpointOptions o;
    o.monitor = monitor(r, keys);
    o.mode = r.choice("mode", {"auto", "min", "max"}, "auto");
    o.save_best_only = r.boolean("save_best_only", false);
    o.save_optimizer = r.boolean("save_optimizer", true);
    return train::ModelCheckpoint(path, o);
  }
  if (type == "tensorboard") {
    std::string dir = r.string("log_dir");
    if (dir.empty()) r.bad("log_dir", "a directory");
    train::TensorBoardOptions o;
    o.update_freq = r.integer("update_freq", 0, INT64_MAX, 0);
    o.histogram_freq = static_cast<int>(r.integer("histogram_freq", 0, 1000000, 0));
    o.write_graph = r.boolean("write_graph", true);
    return train::TensorBoard(dir, o);
  }
  return train::TerminateOnNaN();  // terminate_on_nan: no fields
}

}  // namespace

std::vector<std::string> read_config_metrics(const Json& metrics, const std::string& where) {
  const std::string expected = "a metric name: \"loss\", \"accuracy\", \"top_K_accuracy\", \"precision\", \"recall\" or \"f1\"";
  if (!metrics.is_array())
    throw Error(detail::concat(where, ": metrics: got ", nn::json_for_message(metrics), ", expected an array of ",
                               "metric names (\"loss\", \"accuracy\", \"top_5_accuracy\", \"f1\", ...)"));
  std::vector<std::string> extra;
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const Json& m = metrics[i];
    auto bad = [&] {
      throw Error(detail::concat(where, ": metrics[", i, "]: got ", nn::json_for_message(m), ", expected ", expected));
    };
    if (!m.is_string()) bad();
    const std::string name = m.get<std::string>();
    if (name == "loss" || name == "accuracy" || name == "acc") continue;  // always reported
    try {
      train::make_metric(name);
    } catch (const Error&) {
      bad();
    }
    if (std::find(extra.begin(), extra.end(), name) != extra.end())
      throw Error(detail::concat(where, ": metrics[", i, "]: \"", name, "\" is listed twice"));
    extra.push_back(name);
  }
  return extra;
}

std::vector<train::CallbackSpec> build_config_callbacks(const Json& callbacks, const std::string& where,
                                                        const std::vector<std::string>& metrics,
                                                        const std::string& schedule) {
  if (!callbacks.is_array())
    throw Error(detail::concat(where, ": callbacks: got ", nn::json_for_message(callbacks),
                               ", expected an array of callback objects {\"type\": \"early_stopping\", ...}"));
  const std::vector<std::string> keys = log_keys(metrics);
  std::vector<train::CallbackSpec> out;
  for (std::size_t i = 0; i < callbacks.size(); ++i) {
    ConfigReader r(callbacks[i], where, detail::concat("callbacks[", i, "]"),
                   "a callback object {\"type\": \"early_stopping\", ...}");
    const std::string type = r.choice("type", kTypes);
    try {
      out.push_back(build_one(r, type, keys, schedule));
    } catch (const Error& e) {
      const std::string msg = e.what();
      if (msg.rfind(where, 0) == 0) throw;  // the reader's own error, already naming the field
      r.error(msg);                         // the callback's check: name where it came from
    }
    r.finish(type);
  }
  return out;
}

}  // namespace nabla::tool
