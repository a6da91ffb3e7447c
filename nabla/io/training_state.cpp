// Training state over checkpoint.h: the scheduler, generator and counters go
// into "training.*" metadata as decimal text (doubles as %.17g, which reads
// back to the same bits), next to the model and optimizer entries.
#include "nabla/io/training_state.h"

#include <charconv>
#include <cstdio>

#include "nabla/core/error.h"
#include "nabla/io/safetensors_api.h"

namespace nabla::io {
namespace {

const std::string kPrefix = "training.";
const std::string kSched = "training.scheduler.";

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Reads "training.*" entries, with errors naming the API, the file and the key.
struct Reader {
  const char* api;
  const std::string& path;
  const Metadata& meta;

  const std::string& text(const std::string& key) const {
    auto it = meta.find(key);
    NABLA_CHECK(it != meta.end(), api, ": '", path, "' has no metadata entry '", key,
                "' (a truncated or hand-edited training state?)");
    return it->second;
  }
  template <class T>
  T number(const std::string& key, T lo) const {
    const std::string& s = text(key);
    T v{};
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    NABLA_CHECK(!s.empty() && ec == std::errc() && ptr == s.data() + s.size() && v >= lo, api, ": '", path,
                "' metadata '", key, "' is '", s, "', expected a number >= ", lo);
    return v;
  }
};

// The state in `meta`, the metadata of the file at `path`.
TrainingState parse(const char* api, const std::string& path, const Metadata& meta, const TensorDict& tensors) {
  NABLA_CHECK(meta.count("nabla.checkpoint"), api, ": '", path,
              "' is not a nabla checkpoint (no 'nabla.checkpoint' metadata)");
  NABLA_CHECK(meta.count(kPrefix + "epoch"), api, ": '", path,
              "' is a checkpoint without training state (no 'training.epoch' metadata); it was not written by "
              "save_training_state");
  Reader r{api, path, meta};
  TrainingState s;
  s.epoch = r.number<int64_t>(kPrefix + "epoch", 0);
  s.step = r.number<int64_t>(kPrefix + "step", 0);
  s.rng.seed = r.number<uint64_t>(kPrefix + "rng.seed", 0);
  s.rng.offset = r.number<uint64_t>(kPrefix + "rng.offset", 0);
  s.has_scheduler = meta.count(kSched + "groups") != 0;
  for (const auto& [k, v] : meta)
    if (!starts_with(k, kPrefix) && !starts_with(k, "nabla.") && !starts_with(k, "optimizer")) s.info[k] = v;
  for (const auto& [name, t] : tensors)
    if (starts_with(name, kPrefix)) s.tensors.insert(name.substr(kPrefix.size()), t);
  return s;
}

optim::LRSchedulerState read_scheduler(const char* api, const std::string& path, const Metadata& meta,
                                       std::size_t groups) {
  Reader r{api, path, meta};
  auto n = r.number<std::size_t>(kSched + "groups", 0);
  NABLA_CHECK(n == groups, api, ": '", path, "' holds a scheduler over ", n, " parameter groups, expected ", groups);
  optim::LRSchedulerState s;
  s.last_epoch = r.number<int64_t>(kSched + "last_epoch", 0);
  s.step_count = r.number<int64_t>(kSched + "step_count", 1);
  for (std::size_t g = 0; g < n; ++g) {
    s.base_lrs.push_back(r.number<double>(kSched + "base_lr." + std::to_string(g), -1e308));
    s.last_lr.push_back(r.number<double>(kSched + "last_lr." + std::to_string(g), -1e308));
  }
  return s;
}

// load_checkpoint's checks, with errors naming the API the user called.
void load_checkpoint_as(const char* api, const std::string& path, nn::Module& model, optim::Optimizer& optimizer) {
  try {
    load_checkpoint(path, model, &optimizer);
  } catch (const Error& e) {
    const std::string msg = e.what(), prefix = "load_checkpoint: ";
    if (msg.rfind(prefix, 0) != 0) throw;
    fail(api, ": ", msg.substr(prefix.size()));
  }
}

}  // namespace

void save_training_state(const std::string& path, const nn::Module& model, const optim::Optimizer& optimizer,
                         const optim::LRScheduler* scheduler, const TrainingState& state) {
  NABLA_CHECK(state.epoch >= 0 && state.step >= 0, "save_training_state: epoch ", state.epoch, " and step ",
              state.step, " must be >= 0");
  Metadata meta;
  for (const auto& [k, v] : state.info) {
    NABLA_CHECK(!starts_with(k, kPrefix), "save_training_state: info key '", k,
                "' is reserved (keys starting with 'training.' hold the training state itself)");
    meta[k] = v;
  }
  meta[kPrefix + "epoch"] = std::to_string(state.epoch);
  meta[kPrefix + "step"] = std::to_string(state.step);
  // The live generator, not state.rng: what the next draw would use.
  GeneratorState rng = default_generator().get_state();
  meta[kPrefix + "rng.seed"] = std::to_string(rng.seed);
  meta[kPrefix + "rng.offset"] = std::to_string(rng.offset);
  if (scheduler) {
    optim::LRSchedulerState s = scheduler->state_dict();
    meta[kSched + "groups"] = std::to_string(s.base_lrs.size());
    meta[kSched + "last_epoch"] = std::to_string(s.last_epoch);
    meta[kSched + "step_count"] = std::to_string(s.step_count);
    for (std::size_t g = 0; g < s.base_lrs.size(); ++g) {
      meta[kSched + "base_lr." + std::to_string(g)] = number_text(s.base_lrs[g]);
      meta[kSched + "last_lr." + std::to_string(g)] = number_text(s.last_lr[g]);
    }
  }
  detail::save_checkpoint_with(path, model, &optimizer, meta, state.tensors);  // refuses "nabla." and "optimizer" keys in info
}

TrainingState read_training_state(const std::string& path) {
  Metadata meta;
  TensorDict tensors = detail::load_safetensors_as("read_training_state", path, &meta);
  return parse("read_training_state", path, meta, tensors);
}

TrainingState restore_training_state(const std::string& path, nn::Module& model, optim::Optimizer& optimizer,
                                     optim::LRScheduler* scheduler) {
  const char* api = "restore_training_state";
  Metadata meta;
  TensorDict tensors = detail::load_safetensors_as(api, path, &meta);
  TrainingState state = parse(api, path, meta, tensors);
  optim::LRSchedulerState sched;
  if (scheduler) {
    NABLA_CHECK(state.has_scheduler, api, ": '", path,
                "' holds no learning-rate scheduler state, but a scheduler was given to restore");
    sched = read_scheduler(api, path, meta, optimizer.param_groups().size());
  } else {
    NABLA_CHECK(!state.has_scheduler, api, ": '", path,
                "' holds a learning-rate scheduler's state, but no scheduler was given to restore it into");
  }
  // Checks the model and optimizer entries before changing either (it reads
  // the file again: the metadata alone cannot be had without the tensors).
  load_checkpoint_as(api, path, model, optimizer);
  if (scheduler) scheduler->load_state_dict(sched);
  default_generator().set_state(state.rng);
  return state;
}

}  // namespace nabla::io
