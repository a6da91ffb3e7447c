// See train_config.h. The schema (docs/config.md):
//   {"model": {nn config} | "cnn" | "mlp", "input_shape": [1, 28, 28],
//    "data": {"format": "idx", "dir": ..., "transforms": [...], "limit": 0, "workers": 2},
//    "loss": "cross_entropy", "optimizer": {"name": "adam", "lr": 0.001, ...},
//    "schedule": "cosine", "epochs": 5, "batch_size": 64, "metrics": ["loss", "accuracy"],
//    "device": "cpu", "seed": 0, "threads": 0, "progress": "auto", "output_dir": "runs/fashion-cnn",
//    "logdir": "runs/fashion-cnn/logs" (optional),
//    "callbacks": [{"type": "early_stopping", "patience": 2}, ...] (optional)}
#include "train_config.h"

#include <algorithm>
#include <filesystem>

#include "config_callbacks.h"
#include "models.h"
#include "nabla/core/device.h"
#include "nabla/core/error.h"
#include "nabla/nabla.h"
#include "train.h"

namespace nabla::tool {
namespace {

using nn::ConfigReader;
using nn::Json;

const std::vector<std::string> kOptimizers = {"sgd", "adam", "adamw", "rmsprop", "adagrad"};

// The hyper-parameters each optimizer takes besides lr (nabla/optim).
std::map<std::string, double> read_optimizer_options(ConfigReader& r, const std::string& name) {
  std::map<std::string, double> out;
  std::vector<std::string> keys;
  if (name == "sgd") keys = {"momentum", "dampening", "weight_decay", "nesterov"};
  if (name == "adam" || name == "adamw") keys = {"beta1", "beta2", "eps", "weight_decay", "amsgrad"};
  if (name == "rmsprop") keys = {"alpha", "eps", "weight_decay", "momentum", "centered"};
  if (name == "adagrad") keys = {"lr_decay", "weight_decay", "eps", "initial_accumulator_value"};
  for (const std::string& k : keys) {
    if (!r.get(k)) continue;
    if (k == "nesterov" || k == "amsgrad" || k == "centered")
      out[k] = r.boolean(k) ? 1.0 : 0.0;
    else
      out[k] = r.number(k, 0, 1e300);
  }
  return out;
}

void read_data(ConfigReader& r, TrainConfig& c, const std::filesystem::path& base_dir) {
  // A relative data path is relative to the config file (made absolute, so
  // that --print-config writes paths that work from anywhere).
  auto path = [&](const std::string& key) {
    std::filesystem::path p = r.string(key);
    return (p.is_relative() && !base_dir.empty() ? std::filesystem::absolute(base_dir / p) : p).lexically_normal().string();
  };
  DataSpec& d = c.data_spec;
  d = DataSpec{};
  d.format = r.choice("format", {"idx", "npz", "npy", "csv"});
  if (d.format == "idx") {
    c.data = path("dir");
  } else {
    d.train = path("train");
    d.test = path("test");
  }
  if (d.format == "npy") {
    d.train_targets = path("train_targets");
    d.test_targets = path("test_targets");
  }
  if (d.format == "npz") {
    d.x_key = r.string("x", "x");
    d.y_key = r.string("y", "y");
  }
  if (d.format == "csv") {
    d.header = r.boolean("header", false);
    d.target_column = r.integer("target_column", INT64_MIN, INT64_MAX, -1);
  }
  d.normalize.reset();
  if (const Json* t = r.get("transforms")) {
    if (!t->is_array()) r.bad("transforms", "an array of transforms such as {\"name\": \"normalize\", ...}");
    for (std::size_t i = 0; i < t->size(); ++i) {
      ConfigReader tr((*t)[i], r.where(), detail::concat(r.field_path("transforms"), '[', i, ']'),
                      "a transform object {\"name\": \"normalize\", \"mean\": ..., \"std\": ...}");
      tr.choice("name", {"normalize"});
      if (d.normalize) tr.error("a second normalize transform (one is allowed)");
      double mean = tr.number("mean", -1e300, 1e300);
      double std = tr.number("std", 0, 1e300, std::nullopt, true);
      d.normalize = std::pair<double, double>{mean, std};
      tr.finish("a normalize transform");
    }
  }
  c.limit = r.integer("limit", 0, INT64_MAX, 0);
  c.workers = static_cast<int>(r.integer("workers", 0, 256, 2));
  r.finish("data");
}

}  // namespace

nn::ModulePtr build_model(const TrainConfig& c) {
  if (c.model_config.empty()) return make_model(c.model);
  return nn::from_config(Json::parse(c.model_config), c.config_file.empty() ? "the model config" : c.config_file,
                         "model");
}

TrainConfig parse_train_config(const Json& json, const std::string& where, const std::string& base_dir) {
  TrainConfig c;
  c.config_file = where;
  ConfigReader r(json, where, "", "a training config object {\"model\": ..., \"data\": ..., ...}");
  const Json* model = r.get("model");
  if (!model) r.error("missing the required field 'model' (its layers, or \"cnn\" or \"mlp\")");
  if (model->is_string()) {
    c.model = r.choice("model", model_names());
  } else {
    if (!model->is_object()) r.bad("model", "a model object {\"class\": \"Sequential\", \"layers\": [...]} or a name");
    nn::ModulePtr m = nn::from_config(*model, where, "model");  // validates every layer now
    c.model = m->name();
    c.model_config = nn::config(*m).dump();
  }
  if (r.get("input_shape")) {
    c.input_shape = r.int_list("input_shape", 1, 0);
    if (!c.model_config.empty()) nn::check_shapes(*model, c.input_shape, where, "model");
  }
  ConfigReader data(r.object("data"), where, r.field_path("data"), "a data object {\"format\": ...}");
  read_data(data, c, base_dir);
  r.choice("loss", {"cross_entropy"}, "cross_entropy");
  if (const Json* metrics = r.get("metrics")) c.metrics = read_config_metrics(*metrics, where);
  {
    ConfigReader o(r.object("optimizer"), where, r.field_path("optimizer"), "an optimizer object {\"name\": ...}");
    c.optimizer = o.choice("name", kOptimizers);
    c.lr = o.number("lr", 0, 1e6, std::nullopt, true);
    c.optimizer_options = read_optimizer_options(o, c.optimizer);
    o.finish("optimizer " + c.optimizer);
    // The optimizer checks its own values (a negative momentum, betas >= 1):
    // build one over a placeholder now, so that a bad value fails before training.
    try {
      make_optimizer(c.optimizer, {zeros({1}).requires_grad_()}, c.lr, c.optimizer_options);
    } catch (const Error& e) {
      o.error(e.what());
    }
  }
  c.schedule = r.choice("schedule", {"none", "cosine"}, "none");
  c.epochs = static_cast<int>(r.integer("epochs", 1, 100000));
  c.batch_size = r.integer("batch_size", 1, 1 << 20);
  if (const Json* dev = r.get("device")) {
    try {
      c.device = Device(dev->is_string() ? dev->get<std::string>() : std::string("?")).str();
    } catch (const Error&) {
      r.bad("device", "\"cpu\", \"opencl[:N]\" or \"cuda[:N]\"");
    }
  }
  c.seed = static_cast<uint64_t>(r.integer("seed", 0, INT64_MAX, 0));
  c.threads = static_cast<int>(r.integer("threads", 0, 4096, 0));
  c.memory_format = r.choice("memory_format", {"contiguous", "channels_last"}, "contiguous");
  c.progress = r.choice("progress", {"auto", "bar", "lines", "none"}, "auto");
  c.out = r.string("output_dir");
  c.logdir = r.string("logdir", "");
  if (const Json* callbacks = r.get("callbacks")) {
    build_config_callbacks(*callbacks, where, c.metrics, c.schedule);  // validates every field now
    c.callbacks_config = callbacks->dump();
  }
  r.finish("the training config");
  return c;
}

TrainConfig read_train_config(const std::string& path) {
  return parse_train_config(nn::read_json_config(path), path, std::filesystem::path(path).parent_path().string());
}

Json train_config_json(const TrainConfig& c) {
  Json j;
  j["model"] = c.model_config.empty() ? nn::config(*make_model(c.model)) : Json::parse(c.model_config);
  if (!c.input_shape.empty()) j["input_shape"] = c.input_shape;
  const DataSpec& d = c.data_spec;
  Json data = {{"format", d.format}};
  if (d.format == "idx") data["dir"] = c.data;
  if (d.format != "idx") data["train"] = d.train, data["test"] = d.test;
  if (d.format == "npy") data["train_targets"] = d.train_targets, data["test_targets"] = d.test_targets;
  if (d.format == "npz") data["x"] = d.x_key, data["y"] = d.y_key;
  if (d.format == "csv") data["header"] = d.header, data["target_column"] = d.target_column;
  data["transforms"] = Json::array();
  if (d.normalize)
    data["transforms"].push_back({{"name", "normalize"}, {"mean", d.normalize->first}, {"std", d.normalize->second}});
  data["limit"] = c.limit;
  data["workers"] = c.workers;
  j["data"] = data;
  j["loss"] = "cross_entropy";
  j["metrics"] = {"loss", "accuracy"};
  for (const std::string& m : c.metrics) j["metrics"].push_back(m);
  Json opt = {{"name", c.optimizer}, {"lr", c.lr}};
  if (c.optimizer == "sgd" && !c.optimizer_options.count("momentum")) opt["momentum"] = kSgdMomentum;
  for (const auto& [k, v] : c.optimizer_options) {
    if (k == "nesterov" || k == "amsgrad" || k == "centered")
      opt[k] = v != 0.0;
    else
      opt[k] = v;
  }
  j["optimizer"] = opt;
  j["schedule"] = c.schedule;
  j["epochs"] = c.epochs;
  j["batch_size"] = c.batch_size;
  j["device"] = c.device;
  j["seed"] = c.seed;
  j["threads"] = c.threads;
  if (c.memory_format != "contiguous") j["memory_format"] = c.memory_format;  // the default left out
  j["progress"] = c.progress;
  j["output_dir"] = c.out;
  if (!c.logdir.empty()) j["logdir"] = c.logdir;
  if (!c.callbacks_config.empty()) j["callbacks"] = Json::parse(c.callbacks_config);
  return j;
}

TrainConfig resolve_train_config(const TrainConfig& cli) {
  if (cli.config_file.empty()) return cli;
  TrainConfig c = read_train_config(cli.config_file);
  const auto& g = cli.given;
  auto given = [&](const char* option) { return g.count(option) > 0; };
  if (given("--model")) c.model = cli.model, c.model_config.clear();
  if (given("--epochs")) c.epochs = cli.epochs;
  if (given("--batch-size")) c.batch_size = cli.batch_size;
  if (given("--lr")) c.lr = cli.lr;
  if (given("--optimizer")) c.optimizer = cli.optimizer, c.optimizer_options = cli.optimizer_options;
  if (given("--schedule")) c.schedule = cli.schedule;
  if (given("--threads")) c.threads = cli.threads;
  if (given("--workers")) c.workers = cli.workers;
  if (given("--device")) c.device = cli.device;
  if (given("--memory-format")) c.memory_format = cli.memory_format;
  if (given("--seed")) c.seed = cli.seed;
  if (given("--data")) {  // an IDX directory, with the file's transform
    auto normalize = c.data_spec.normalize;
    c.data = cli.data;
    c.data_spec = DataSpec{};
    c.data_spec.normalize = normalize;
  }
  if (given("--out")) c.out = cli.out;
  if (given("--logdir")) c.logdir = cli.logdir;
  if (given("--limit")) c.limit = cli.limit;
  if (given("--progress")) c.progress = cli.progress;
  c.resume = cli.resume;
  c.distributed = cli.distributed;
  c.print_config = cli.print_config;
  c.given = cli.given;
  return c;
}

}  // namespace nabla::tool
