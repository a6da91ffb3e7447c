// See infer.h.
#include "infer.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "nabla/data/fashion_mnist.h"
#include "nabla/data/npy.h"
#include "nabla/data/npz.h"
#include "nabla/io/checkpoint.h"
#include "nabla/nabla.h"
#include "nabla/nn/config.h"
#include "train.h"
#include "train_config.h"
#include "train_data.h"

namespace nabla::tool {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The model of `c` with the checkpoint's weights, on c.device, ready for a Trainer.
struct Loaded {
  TrainConfig settings;
  nn::ModulePtr model;
  std::string checkpoint;
  std::string epochs;  // the checkpoint's "epochs" entry, if any
};

Loaded load(const InferConfig& c, const std::string& api) {
  Loaded l;
  l.settings = resolve_train_config(c.train);
  const TrainConfig& s = l.settings;
  if (s.threads > 0) set_num_threads(s.threads);
  backend_for(Device(s.device), (api + " --device").c_str());  // present, or an error listing the devices that are
  l.checkpoint =
      c.checkpoint.empty() ? (std::filesystem::path(s.out) / "checkpoint.safetensors").string() : c.checkpoint;
  NABLA_CHECK(std::filesystem::is_regular_file(l.checkpoint), api, ": no checkpoint at '", l.checkpoint, "'; ",
              c.checkpoint.empty() ? "nabla train writes one in its --out DIR (the config's output_dir): train first, "
                                     "or give --checkpoint FILE"
                                   : "give the file nabla train wrote (checkpoint.safetensors in its --out DIR)");
  l.model = build_model(s);
  const std::string model_name = s.config_file.empty() ? "--model " + s.model : "the model of " + s.config_file;
  try {
    io::Metadata meta = io::load_checkpoint(l.checkpoint, *l.model);
    if (auto e = meta.find("epochs"); e != meta.end()) l.epochs = e->second;
    if (auto e = meta.find("epoch"); e != meta.end()) l.epochs = e->second;  // train::ModelCheckpoint's
  } catch (const Error& e) {
    fail(api, ": the checkpoint '", l.checkpoint, "' does not hold the weights of ", model_name, " (", s.model, ", ",
         l.model->num_parameters(), " parameters): ", e.what());
  }
  l.model->to(Device(s.device));
  l.model->eval();
  return l;
}

train::Trainer trainer_for(const Loaded& l) {
  // Trainer takes the run's optimizer as Keras's compile() does; evaluate and predict leave it alone.
  std::shared_ptr<optim::Optimizer> optimizer =
      make_optimizer(l.settings.optimizer, l.model->parameters(), l.settings.lr, l.settings.optimizer_options);
  return train::Trainer(l.model,
                        {.optimizer = optimizer, .metrics = {"accuracy"}, .device = Device(l.settings.device)});
}

void print_model(std::ostream& out, const Loaded& l) {
  char line[160];
  std::snprintf(line, sizeof line, "model: %s, %lld parameters; checkpoint ", l.settings.model.c_str(),
                static_cast<long long>(l.model->num_parameters()));
  out << line << l.checkpoint << (l.epochs.empty() ? "" : " (epoch " + l.epochs + ")") << "\n";
}

}  // namespace

void run_evaluate(const InferConfig& c, std::ostream& out) {
  const std::string api = "nabla evaluate";
  Loaded l = load(c, api);
  const TrainConfig& s = l.settings;
  auto load_start = Clock::now();
  TrainData ds = load_train_data(s);
  char line[256];
  std::snprintf(line, sizeof line, "data: %lld test %s from ", static_cast<long long>(ds.test->size()),
                s.data_spec.format == "idx" ? "images" : "samples");
  out << line << ds.source;
  std::snprintf(line, sizeof line, " (%.1f s)\n", seconds_since(load_start));
  out << line;
  print_model(out, l);
  if (!Device(s.device).is_cpu()) out << "device: " << s.device << "\n";
  out << std::flush;

  data::DataLoader test_loader(ds.test, {.batch_size = s.given.count("--batch-size") ? s.batch_size : 500,
                                         .num_workers = s.workers,
                                         .collate = ds.collate,
                                         .pin_memory = !Device(s.device).is_cpu()});
  train::Trainer trainer = trainer_for(l);
  auto start = Clock::now();
  train::Logs logs = trainer.evaluate(test_loader);
  std::snprintf(line, sizeof line, "test loss %.4f, test accuracy %.2f%% (%lld samples, %.1f s)\n", logs.at("loss"),
                100.0 * logs.at("accuracy"), static_cast<long long>(ds.test->size()), seconds_since(start));
  out << line << std::flush;
}

void run_predict(const InferConfig& c, std::ostream& out) {
  const std::string api = "nabla predict";
  Loaded l = load(c, api);
  const TrainConfig& s = l.settings;
  NABLA_CHECK(std::filesystem::is_regular_file(c.input), api, ": --input '", c.input, "' does not exist");
  Tensor x = data::read_npy(c.input);
  // Transformed as the training data was, by the same code: IDX images by
  // train_data's collate (scaled to [0, 1], normalized, a channel dimension),
  // rows from .npy/.npz/CSV as load_train_data normalizes them.
  if (s.data_spec.format == "idx") {
    NABLA_CHECK(x.dim() == 3 && x.dtype() == kUInt8, api, ": --input '", c.input, "' holds ", x.dtype(), " ", x.sizes(),
                "; expected uint8 images [N, H, W] as the IDX files hold them");
    const auto norm = s.data_spec.normalize.value_or(std::pair<double, double>{0.0, 1.0});
    std::vector<data::Example> images;
    for (int64_t i = 0; i < x.size(0); ++i) images.push_back({x.select(0, i), zeros({}, kInt64)});
    x = data::image_collate(static_cast<float>(norm.first), static_cast<float>(norm.second))(std::move(images)).data;
  } else {
    NABLA_CHECK(x.dim() >= 2, api, ": --input '", c.input, "' has shape ", x.sizes(),
                "; expected rows [N, ...] like the training inputs");
    x = x.to(kFloat32);
    if (s.data_spec.normalize)
      x = (x - static_cast<float>(s.data_spec.normalize->first)) / static_cast<float>(s.data_spec.normalize->second);
  }
  x = x.contiguous();
  nn::check_shapes(*l.model, std::vector<int64_t>(x.sizes().begin() + 1, x.sizes().end()), api + " --input " + c.input,
                   "model");
  print_model(out, l);

  train::Trainer trainer = trainer_for(l);
  auto start = Clock::now();
  Tensor outputs = trainer.predict(x, {.batch_size = s.given.count("--batch-size") ? s.batch_size : 500}).cpu();
  if (c.output.ends_with(".npz")) {
    data::write_npz(c.output, {{"output", outputs}, {"class", outputs.argmax(1)}});
  } else {
    data::write_npy(c.output, outputs);
  }
  char line[160];
  std::snprintf(line, sizeof line, "predict: %lld inputs -> ", static_cast<long long>(outputs.size(0)));
  out << line << c.output << " (" << ::nabla::detail::concat(outputs.dtype(), " ", outputs.sizes())
      << (c.output.ends_with(".npz") ? " \"output\" and int64 \"class\"" : "");
  std::snprintf(line, sizeof line, ", %.1f s)\n", seconds_since(start));
  out << line << std::flush;
}

}  // namespace nabla::tool
