// See backup_and_restore.h. The backup is an io training state: the model,
// optimizer and generator as save_training_state writes them, the run's
// position and History as "backup.*" metadata (numbers as decimal text, doubles
// as %.17g, which reads back to the same bits), the accumulators' and the
// callbacks' state dicts as tensors "loss.*", "metric.<i>.*", "callback.<i>.*"
// (i: the position in fit()'s callback list).
#include "nabla/train/backup_and_restore.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <type_traits>

#include "nabla/core/error.h"
#include "nabla/io/safetensors.h"
#include "nabla/io/training_state.h"
#include "nabla/train/state.h"
#include "nabla/train/trainer.h"

namespace nabla::train {
namespace {

namespace fs = std::filesystem;
constexpr const char* kApi = "BackupAndRestore";
constexpr const char* kFormat = "1";

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

template <class T>
std::string joined(const std::vector<T>& values) {
  std::string s;
  for (const T& v : values) {
    if (!s.empty()) s += ',';
    if constexpr (std::is_floating_point_v<T>)
      s += exact(v);
    else
      s += std::to_string(v);
  }
  return s;
}

// Reads "backup.*" metadata of the file at `path`, with errors naming it and the key.
struct Reader {
  const std::string& path;
  const io::Metadata& meta;

  const std::string& text(const std::string& key) const {
    auto it = meta.find(key);
    NABLA_CHECK(it != meta.end(), kApi, ": '", path, "' has no metadata entry '", key,
                "' (a damaged backup?); delete it to start the run afresh");
    return it->second;
  }
  template <class T>
  T parse(const std::string& key, const std::string& s) const {
    T v{};
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    NABLA_CHECK(!s.empty() && ec == std::errc() && ptr == s.data() + s.size(), kApi, ": '", path, "' metadata '", key,
                "' holds '", s, "', expected a number");
    return v;
  }
  template <class T>
  T number(const std::string& key) const {
    return parse<T>(key, text(key));
  }
  std::vector<std::string> items(const std::string& key) const {  // "a,b,c"
    std::vector<std::string> out;
    const std::string& s = text(key);
    for (std::size_t at = 0; at < s.size();) {
      std::size_t comma = std::min(s.find(',', at), s.size());
      out.push_back(s.substr(at, comma - at));
      at = comma + 1;
    }
    return out;
  }
  template <class T>
  std::vector<T> numbers(const std::string& key) const {
    std::vector<T> out;
    for (const std::string& item : items(key)) out.push_back(parse<T>(key, item));
    return out;
  }
};

// Runs fn(), and says which backup an error came from.
template <class Fn>
void naming_the_backup(const std::string& path, const char* what, Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    fail(kApi, ": ", what, " '", path, "' failed: ", e.what());
  }
}

// The backup's "model.*" tensors against the model's state dict: another model
// is named as such (load_checkpoint would first meet the optimizer's buffers).
void check_model(const std::string& path, const nn::Module& model) {
  io::TensorDict saved;
  naming_the_backup(path, "reading the backup", [&] { saved = io::load_safetensors(path); });
  const nn::StateDict own = model.state_dict();
  std::size_t found = 0;
  for (const auto& [name, t] : saved) {
    if (!name.starts_with("model.")) continue;
    const std::string key = name.substr(6);
    NABLA_CHECK(own.contains(key), kApi, ": '", path, "' was written for another model: it holds '", key,
                "', which the model does not have");
    NABLA_CHECK(t.sizes() == own.at(key).sizes() && t.dtype() == own.at(key).dtype(), kApi, ": '", path,
                "' was written for another model: '", key, "' is ", t.dtype(), " ", t.sizes(), " there, ",
                own.at(key).dtype(), " ", own.at(key).sizes(), " in the model");
    ++found;
  }
  NABLA_CHECK(found == own.size(), kApi, ": '", path, "' was written for another model: it holds ", found,
              " of the model's ", own.size(), " parameters and buffers");
}

}  // namespace

BackupAndRestore::BackupAndRestore(std::string backup_dir, BackupOptions options)
    : dir_(std::move(backup_dir)), o_(options) {
  NABLA_CHECK(!dir_.empty(), kApi, ": backup_dir is empty");
  NABLA_CHECK(o_.save_freq >= 0, kApi, ": save_freq must be 0 (each epoch's end) or a number of batches >= 1, got ",
              o_.save_freq);
  path_ = (fs::path(dir_) / "backup.safetensors").string();
}

void BackupAndRestore::on_train_begin(const Logs&) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  NABLA_CHECK(!ec, kApi, ": cannot create the backup directory '", dir_, "': ", ec.message());
  epoch_ = 0;
  steps_done_ = 0;
}

std::optional<ResumePoint> BackupAndRestore::resume_point() {
  if (!fs::exists(path_)) return std::nullopt;
  io::TrainingState s;
  naming_the_backup(path_, "reading the backup", [&] { s = io::read_training_state(path_); });
  NABLA_CHECK(s.info.count("backup.format"), kApi, ": '", path_,
              "' is a training state but not a BackupAndRestore backup (no 'backup.format' metadata); move it away "
              "or give another backup_dir");
  NABLA_CHECK(s.info.at("backup.format") == kFormat, kApi, ": '", path_, "' has backup format '",
              s.info.at("backup.format"), "', expected '", kFormat, "'");
  const Reader r{path_, s.info};
  Trainer& t = trainer();
  const auto callbacks = r.number<std::size_t>("backup.callbacks");
  NABLA_CHECK(callbacks == t.callbacks().size(), kApi, ": '", path_, "' was written by a fit() with ", callbacks,
              " callbacks, this one has ", t.callbacks().size(),
              "; resume with the same callbacks (or delete the backup to start afresh)");
  check_model(path_, t.model());

  ResumePoint p;
  p.epoch = static_cast<int>(s.epoch);
  p.batch = r.number<int64_t>("backup.batch");
  NABLA_CHECK(p.batch >= 0, kApi, ": '", path_, "' metadata 'backup.batch' is ", p.batch, ", expected >= 0");
  p.stop_training = r.text("backup.stop_training") == "1";
  p.shuffle_seed = r.number<uint64_t>("backup.shuffle_seed");
  p.loader_epoch = r.number<uint64_t>("backup.loader_epoch");
  p.history.epoch = r.numbers<int>("backup.history.epoch");
  for (const std::string& key : r.items("backup.history.keys")) {
    std::vector<double> values = r.numbers<double>("backup.history." + key);
    NABLA_CHECK(values.size() == p.history.epoch.size(), kApi, ": '", path_, "' holds ", values.size(), " values of '",
                key, "' for ", p.history.epoch.size(), " epochs");
    p.history.history[key] = std::move(values);
  }
  if (p.batch > 0) {
    p.loss = state_part(s.tensors, "loss.");
    for (std::size_t i = 0; i < t.metrics().size(); ++i)
      p.metrics.push_back(state_part(s.tensors, "metric." + std::to_string(i) + "."));
  }
  p.restore = [this, tensors = std::move(s.tensors), step = s.step] {
    Trainer& t = trainer();
    naming_the_backup(path_, "restoring the run from", [&] {
      io::restore_training_state(path_, t.model(), t.optimizer(), nullptr);
      for (std::size_t i = 0; i < t.callbacks().size(); ++i)
        if (t.callbacks()[i].get() != this)
          t.callbacks()[i]->load_state_dict(state_part(tensors, "callback." + std::to_string(i) + "."));
    });
    steps_done_ = step;
  };
  return p;
}

void BackupAndRestore::on_epoch_begin(int epoch, const Logs&) {
  epoch_ = epoch;
  loader_epoch_ = trainer().train_loader().epoch();  // before the epoch's batches start it
}

void BackupAndRestore::on_train_batch_end(int64_t batch, const Logs&) {
  ++steps_done_;
  // A batch that stopped training is followed by the epoch's end, whose backup holds the stop.
  if (o_.save_freq > 0 && steps_done_ % o_.save_freq == 0 && !trainer().stop_training)
    save(epoch_, batch + 1, loader_epoch_);
}

void BackupAndRestore::on_epoch_end(int epoch, const Logs& logs) {
  if (o_.save_freq == kEveryEpoch) save(epoch + 1, 0, trainer().train_loader().epoch(), &logs);
}

void BackupAndRestore::on_train_end(const Logs&) {
  if (!o_.delete_checkpoint || trainer().rank() != 0) return;  // distributed: rank 0's file
  std::error_code ec;
  fs::remove(path_, ec);
  NABLA_CHECK(!ec, kApi, ": cannot delete the backup '", path_, "' after training: ", ec.message());
  fs::remove(dir_, ec);  // only when empty; a directory with other files stays
}

void BackupAndRestore::save(int epoch, int64_t batch, uint64_t loader_epoch, const Logs* ended) {
  Trainer& t = trainer();
  // A data-parallel fit(): rank 0 writes, every rank reads the file back when
  // resuming; fit()'s all-reduce after the callbacks orders the write before
  // anything the other ranks do next.
  if (t.rank() != 0) return;
  io::TrainingState s;
  s.epoch = epoch;
  s.step = steps_done_;
  s.info["backup.format"] = kFormat;
  s.info["backup.batch"] = std::to_string(batch);
  s.info["backup.stop_training"] = t.stop_training ? "1" : "0";
  s.info["backup.shuffle_seed"] = std::to_string(t.train_loader().options().seed);
  s.info["backup.loader_epoch"] = std::to_string(loader_epoch);
  s.info["backup.callbacks"] = std::to_string(t.callbacks().size());
  History h = t.history();
  if (ended) {  // fit() adds the epoch's logs to the History after on_epoch_end, as here
    h.epoch.push_back(epoch - 1);
    for (const auto& [key, value] : *ended) h.history[key].push_back(value);
  }
  s.info["backup.history.epoch"] = joined(h.epoch);
  std::vector<std::string> keys;
  for (const auto& [key, values] : h.history) {
    NABLA_CHECK(key.find(',') == std::string::npos, kApi, ": a log key with a comma ('", key, "') cannot be saved");
    keys.push_back(key);
    s.info["backup.history." + key] = joined(values);
  }
  std::string key_list;
  for (const std::string& k : keys) key_list += (key_list.empty() ? "" : ",") + k;
  s.info["backup.history.keys"] = key_list;
  if (batch > 0) {
    for (const auto& [name, value] : t.epoch_loss().state_dict()) s.tensors.insert("loss." + name, value);
    for (std::size_t i = 0; i < t.metrics().size(); ++i)
      for (const auto& [name, value] : t.metrics()[i]->state_dict())
        s.tensors.insert("metric." + std::to_string(i) + "." + name, value);
  }
  for (std::size_t i = 0; i < t.callbacks().size(); ++i)
    if (t.callbacks()[i].get() != this)
      for (const auto& [name, value] : t.callbacks()[i]->state_dict())
        s.tensors.insert("callback." + std::to_string(i) + "." + name, value);
  naming_the_backup(path_, "writing the backup",
                    [&] { io::save_training_state(path_, t.model(), t.optimizer(), nullptr, s); });
}

}  // namespace nabla::train
