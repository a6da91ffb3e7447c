// Model + optimizer checkpoints over safetensors (see checkpoint.h for the
// layout). Numbers in the metadata are decimal text: safetensors metadata is
// string -> string, and text keeps the file readable from Python.
#include "nabla/io/checkpoint.h"

#include <charconv>
#include <cstdio>
#include <set>

#include "nabla/core/error.h"
#include "nabla/io/safetensors_api.h"

namespace nabla::io {
namespace {

constexpr const char* kFormatKey = "nabla.checkpoint";
constexpr const char* kFormatVersion = "1";
const std::string kModel = "model.";
const std::string kOptState = "optimizer.state.";
const std::string kTraining = "training.";  // training_state.h's tensors

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool is_reserved(const std::string& key) { return key.rfind("nabla.", 0) == 0 || key.rfind("optimizer", 0) == 0; }

// Reads the checkpoint's metadata by key, with errors naming the file.
struct Reader {
  const std::string& path;
  const Metadata& meta;

  const std::string& text(const std::string& key) const {
    auto it = meta.find(key);
    NABLA_CHECK(it != meta.end(), "load_checkpoint: '", path, "' has no metadata entry '", key,
                "' (a truncated or hand-edited checkpoint?)");
    return it->second;
  }
  template <class T>
  T number(const std::string& key, T lo) const {
    const std::string& s = text(key);
    T v{};
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    NABLA_CHECK(!s.empty() && ec == std::errc() && ptr == s.data() + s.size() && v >= lo, "load_checkpoint: '", path,
                "' metadata '", key, "' is '", s, "', expected a number >= ", lo);
    return v;
  }
};

}  // namespace

void save_checkpoint(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer,
                     const Metadata& metadata) {
  detail::save_checkpoint_with(path, model, optimizer, metadata, {});
}

void detail::save_checkpoint_with(const std::string& path, const nn::Module& model, const optim::Optimizer* optimizer,
                                  const Metadata& metadata, const nn::StateDict& training_tensors) {
  Metadata meta;
  for (const auto& [k, v] : metadata) {
    NABLA_CHECK(!is_reserved(k), "save_checkpoint: metadata key '", k,
                "' is reserved (keys starting with 'nabla.' or 'optimizer' describe the checkpoint itself)");
    meta[k] = v;
  }
  meta[kFormatKey] = kFormatVersion;
  TensorDict tensors;
  for (const auto& [name, t] : model.state_dict()) tensors.emplace_back(kModel + name, t);
  if (optimizer) {
    optim::OptimizerStateDict sd = optimizer->state_dict();
    meta["optimizer"] = optimizer->name();
    meta["optimizer.groups"] = std::to_string(sd.groups.size());
    for (std::size_t g = 0; g < sd.groups.size(); ++g) {
      std::string group = "optimizer.group." + std::to_string(g) + ".";
      meta[group + "params"] = std::to_string(sd.state[g].size());
      for (const auto& [key, value] : sd.groups[g]) meta[group + key] = number_text(value);
      for (std::size_t i = 0; i < sd.state[g].size(); ++i) {
        const optim::ParamState& s = sd.state[g][i];
        std::string prefix = kOptState + std::to_string(g) + "." + std::to_string(i) + ".";
        if (s.step > 0) meta[prefix + "step"] = std::to_string(s.step);
        for (const auto& [name, t] : s.buffers) tensors.emplace_back(prefix + name, t);
      }
    }
  }
  for (const auto& [name, t] : training_tensors) tensors.emplace_back(kTraining + name, t);
  save_safetensors(path, tensors, meta);
}

Metadata load_checkpoint(const std::string& path, nn::Module& model, optim::Optimizer* optimizer) {
  Metadata meta;
  TensorDict tensors = detail::load_safetensors_as("load_checkpoint", path, &meta);
  Reader r{path, meta};
  auto format = meta.find(kFormatKey);
  NABLA_CHECK(format != meta.end(), "load_checkpoint: '", path, "' is a safetensors file but not a nabla checkpoint",
              " (no '", kFormatKey, "' metadata); use io::load_safetensors for plain tensor files");
  NABLA_CHECK(format->second == kFormatVersion, "load_checkpoint: '", path, "' has checkpoint format version '",
              format->second, "', expected '", kFormatVersion, "'");

  // Sort the tensors into the model's and the optimizer's.
  nn::StateDict model_state;
  std::map<std::string, Tensor> opt_buffers;
  for (auto& [name, t] : tensors) {
    if (name.rfind(kModel, 0) == 0)
      model_state.insert(name.substr(kModel.size()), t);
    else if (name.rfind(kOptState, 0) == 0)
      opt_buffers[name] = t;
    else if (name.rfind(kTraining, 0) == 0)
      continue;  // a training state's own (restore_training_state reads them)
    else
      fail("load_checkpoint: '", path, "' holds an unexpected tensor '", name,
           "', expected names starting with 'model.', 'optimizer.state.' or 'training.'");
  }

  optim::OptimizerStateDict sd;
  if (optimizer) {
    NABLA_CHECK(meta.count("optimizer"), "load_checkpoint: '", path, "' holds no optimizer state, but an ",
                optimizer->name(), " optimizer was given to restore");
    NABLA_CHECK(meta.at("optimizer") == optimizer->name(), "load_checkpoint: '", path, "' holds the state of a ",
                meta.at("optimizer"), " optimizer, expected ", optimizer->name());
    const auto& groups = optimizer->param_groups();
    auto n_groups = r.number<std::size_t>("optimizer.groups", 0);
    NABLA_CHECK(n_groups == groups.size(), "load_checkpoint: '", path, "' has ", n_groups,
                " optimizer parameter groups, expected ", groups.size());
    std::set<std::string> used;
    for (std::size_t g = 0; g < n_groups; ++g) {
      std::string group = "optimizer.group." + std::to_string(g) + ".";
      auto n_params = r.number<std::size_t>(group + "params", 0);
      NABLA_CHECK(n_params == groups[g].params.size(), "load_checkpoint: '", path, "' has ", n_params,
                  " parameters in optimizer group ", g, ", expected ", groups[g].params.size());
      // Every hyper-parameter of the optimizer, and any extra ones (schedulers
      // add "initial_lr", as in PyTorch), which load as they were saved.
      optim::Options options;
      for (const auto& [key, unused] : optimizer->defaults()) options[key] = r.number<double>(group + key, -1e308);
      for (auto it = meta.lower_bound(group); it != meta.end() && it->first.rfind(group, 0) == 0; ++it) {
        std::string key = it->first.substr(group.size());
        if (key != "params") options[key] = r.number<double>(it->first, -1e308);
      }
      sd.groups.push_back(std::move(options));
      auto& states = sd.state.emplace_back();
      for (std::size_t i = 0; i < n_params; ++i) {
        std::string prefix = kOptState + std::to_string(g) + "." + std::to_string(i) + ".";
        optim::ParamState s;
        if (meta.count(prefix + "step")) {
          s.step = r.number<int64_t>(prefix + "step", 1);
          used.insert(prefix + "step");
        }
        for (auto it = opt_buffers.lower_bound(prefix); it != opt_buffers.end() && it->first.rfind(prefix, 0) == 0;
             ++it) {
          std::string name = it->first.substr(prefix.size());
          NABLA_CHECK(name.find('.') == std::string::npos, "load_checkpoint: '", path,
                      "' has a malformed optimizer tensor name '", it->first, "'");
          const Tensor& p = groups[g].params[i];
          NABLA_CHECK(it->second.sizes() == p.sizes(), "load_checkpoint: '", path, "' optimizer buffer '", it->first,
                      "' has shape ", it->second.sizes(), ", expected the parameter's shape ", p.sizes());
          NABLA_CHECK(it->second.dtype() == p.dtype(), "load_checkpoint: '", path, "' optimizer buffer '", it->first,
                      "' is stored as ", it->second.dtype(), ", expected the parameter's dtype ", p.dtype());
          s.buffers[name] = it->second;
          used.insert(it->first);
        }
        NABLA_CHECK(s.step > 0 || s.buffers.empty(), "load_checkpoint: '", path, "' has optimizer buffers for ", prefix,
                    "* but no step count");
        states.push_back(std::move(s));
      }
    }
    for (const auto& [name, t] : opt_buffers)
      NABLA_CHECK(used.count(name), "load_checkpoint: '", path, "' holds an optimizer tensor '", name,
                  "' that belongs to no parameter of the optimizer");
    for (auto it = meta.lower_bound(kOptState); it != meta.end() && it->first.rfind(kOptState, 0) == 0; ++it)
      NABLA_CHECK(used.count(it->first), "load_checkpoint: '", path, "' has a step count '", it->first,
                  "' that belongs to no parameter of the optimizer");
  }

  // A stored dtype must be the model's: nothing is cast (an I32 entry under a
  // float weight's name would load as weights of 1e9).
  const nn::StateDict own = model.state_dict();
  for (const auto& [key, t] : model_state)
    if (own.contains(key))
      NABLA_CHECK(t.dtype() == own.at(key).dtype(), "load_checkpoint: '", path, "' entry '", kModel, key,
                  "' is stored as ", t.dtype(), ", expected the model's dtype ", own.at(key).dtype(),
                  " (nabla does not cast on load; convert the tensor and save it again)");

  // Everything about the optimizer is checked; the model checks its own
  // dict before changing anything, so a failure here leaves both untouched.
  try {
    model.load_state_dict(model_state, /*strict=*/true);
  } catch (const Error& e) {  // another architecture: say which file
    fail("load_checkpoint: '", path, "' does not fit the model: ", e.what());
  }
  if (optimizer) optimizer->load_state_dict(sd);

  Metadata user;
  for (const auto& [k, v] : meta)
    if (!is_reserved(k)) user[k] = v;
  return user;
}

}  // namespace nabla::io
