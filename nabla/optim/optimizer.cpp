// Optimizer base: parameter groups, validation of parameters and
// hyper-parameters, the step loop under NoGradGuard, zero_grad, state_dict.
#include "nabla/optim/optimizer.h"

#include <cmath>
#include <sstream>
#include <unordered_set>

#include "nabla/core/grad_mode.h"
#include "nabla/core/trace_context.h"
#include "nabla/ops/ops.h"

namespace nabla::optim {

double ParamGroup::get(const std::string& key) const {
  auto it = options.find(key);
  NABLA_CHECK(it != options.end(), "ParamGroup: no hyper-parameter '", key, "' in this group");
  return it->second;
}

std::vector<ParamGroup> one_group(std::vector<Tensor> params) { return {ParamGroup(std::move(params))}; }

Options merge_options(const char* name, Options defaults, const Options& given) {
  for (const auto& [key, value] : given) {
    if (!defaults.count(key)) {
      std::ostringstream known;
      for (const auto& [k, v] : defaults) known << (known.tellp() > 0 ? ", " : "") << k;
      fail(name, ": unknown option '", key, "' = ", value, "; expected one of ", known.str());
    }
    defaults[key] = value;
  }
  return defaults;
}

Optimizer::Optimizer(std::string name, Options defaults) : name_(std::move(name)), defaults_(std::move(defaults)) {}

void Optimizer::init(std::vector<ParamGroup> groups) {
  std::size_t total = 0;
  for (const auto& g : groups) total += g.params.size();
  NABLA_CHECK(total > 0, name_, ": got an empty parameter list (", groups.size(),
              " groups, 0 parameters), expected at least one parameter");
  for (auto& g : groups) add_param_group(std::move(g));
}

void Optimizer::add_param_group(ParamGroup group) {
  NABLA_CHECK(!group.params.empty(), name_, ": add_param_group got a group with no parameters, expected at least one");
  group.options = merge_options(name_.c_str(), defaults_, group.options);
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : groups_)
    for (const auto& p : g.params) seen.insert(p.impl());
  for (std::size_t i = 0; i < group.params.size(); ++i) {
    const Tensor& p = group.params[i];
    NABLA_CHECK(p.defined(), name_, ": parameter ", i, " of group ", groups_.size(),
                " is an undefined tensor, expected a defined floating-point leaf tensor");
    NABLA_CHECK(p.is_floating_point(), name_, ": parameter ", i, " of group ", groups_.size(), " has dtype ",
                p.dtype(), ", expected a floating-point dtype");
    NABLA_CHECK(p.is_leaf(), name_, ": parameter ", i, " of group ", groups_.size(),
                " (shape ", p.sizes(), ") is not a leaf tensor (it has a grad_fn); expected a leaf such as "
                "a tensor created with requires_grad() or detach()ed");
    NABLA_CHECK(seen.insert(p.impl()).second, name_, ": parameter ", i, " of group ", groups_.size(),
                " appears more than once among the parameter groups, expected each parameter once");
  }
  check_group(group);
  state_.emplace_back(group.params.size());
  groups_.push_back(std::move(group));
}

const ParamState& Optimizer::state(std::size_t group, std::size_t index) const {
  NABLA_CHECK(group < state_.size() && index < state_[group].size(), name_, ": state(", group, ", ", index,
              ") is out of range (", state_.size(), " groups)");
  return state_[group][index];
}

void Optimizer::step() {
  if (detail::current_tracer() && has_traced_gradients()) return traced_step();
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    ParamGroup& g = groups_[gi];
    for (std::size_t i = 0; i < g.params.size(); ++i) {
      Tensor& p = g.params[i];
      if (!p.requires_grad()) continue;
      Tensor grad = p.grad();
      if (!grad.defined()) continue;
      ParamState& s = state_[gi][i];
      ++s.step;
      update(g, p, grad, s);
    }
  }
}

bool Optimizer::has_traced_gradients() const {
  for (const auto& g : groups_)
    for (const auto& p : g.params)
      if (p.grad().defined() && p.grad().is_symbolic()) return true;
  return false;
}

// Inside compile()'s trace the gradients are graph values: the update runs
// each time the compiled function runs, as a graph node that calls update()
// on their run-time values, so compiled and eager steps share the update
// rules, the state (step counts, buffers) and the hyper-parameters (an
// lr scheduler's changes apply to later compiled runs).
void Optimizer::traced_step() {
  detail::Tracer& tracer = *detail::current_tracer();
  std::vector<std::pair<std::size_t, std::size_t>> which;  // (group, index) of each updated parameter
  std::vector<Tensor> grads, params;
  for (std::size_t gi = 0; gi < groups_.size(); ++gi)
    for (std::size_t i = 0; i < groups_[gi].params.size(); ++i) {
      const Tensor& p = groups_[gi].params[i];
      if (!p.requires_grad() || !p.grad().defined()) continue;
      NABLA_CHECK(p.grad().is_symbolic(), tracer.where(), ": ", name_, ".step: parameter ", i, " of group ", gi,
                  " has a gradient from outside the compiled function (a concrete .grad()) while others have "
                  "traced ones; call zero_grad() before backward() in the compiled function");
      which.emplace_back(gi, i);
      grads.push_back(p.grad());
      params.push_back(p);
    }
  std::weak_ptr<int> alive = alive_;
  // A CUDA graph replays the update (update_replayable()) while the
  // hyper-parameters, the parameters' and the state buffers' memory are those
  // it was captured with; each replay counts the step, as a call would.
  detail::EffectReplay replay;
  if (update_replayable()) {
    replay.key = [this, which, alive] {
      if (alive.expired()) return std::string("(destroyed)");
      std::ostringstream key;
      key.precision(17);  // every bit: an lr schedule's small steps count
      const auto where = [&key](const Tensor& t) {
        key << t.impl()->storage->handle() << "+" << t.impl()->offset;
      };
      for (const ParamGroup& g : groups_)
        for (const auto& [name, value] : g.options) key << name << "=" << value << ";";
      for (auto [gi, i] : which) {
        key << "|";
        where(groups_[gi].params[i]);
        for (const auto& [name, buffer] : state_[gi][i].buffers) {
          key << "," << name << "@";
          where(buffer);
        }
      }
      return key.str();
    };
    replay.replayed = [this, which, alive] {
      if (alive.expired()) return;
      for (auto [gi, i] : which) ++state_[gi][i].step;
    };
    replay.undo = [this, which, alive] {
      if (alive.expired()) return;
      for (auto [gi, i] : which) --state_[gi][i].step;
    };
  }
  tracer.effect(name_ + ".step", grads, params, [this, which, alive](const std::vector<Tensor>& values) {
    NABLA_CHECK(!alive.expired(), "a compiled function ran the step of an optimizer that has been destroyed; "
                "keep the optimizer alive as long as the compiled training step");
    NoGradGuard no_grad;
    // Every step counted first, so that a CUDA graph capture failing part-way
    // un-counts them all (EffectReplay::undo).
    for (auto [gi, i] : which) ++state_[gi][i].step;
    for (std::size_t k = 0; k < which.size(); ++k) {
      auto [gi, i] = which[k];
      update(groups_[gi], groups_[gi].params[i], values[k], state_[gi][i]);
    }
  }, std::move(replay));
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  if (auto* tracer = detail::current_tracer()) tracer->zero_grad();
  for (auto& g : groups_)
    for (auto& p : g.params) {
      if (!p.grad().defined()) continue;
      // A traced gradient (compile()) has no storage to zero: drop it.
      if (set_to_none || p.grad().is_symbolic()) p.set_grad(Tensor());
      else p.mutable_grad().zero_();
    }
}

OptimizerStateDict Optimizer::state_dict() const {
  NoGradGuard no_grad;
  OptimizerStateDict d;
  for (const auto& g : groups_) d.groups.push_back(g.options);
  for (const auto& group_state : state_) {
    auto& out = d.state.emplace_back();
    for (const auto& s : group_state) {
      ParamState c{s.step, {}};
      for (const auto& [k, t] : s.buffers) c.buffers[k] = t.clone();
      out.push_back(std::move(c));
    }
  }
  return d;
}

void Optimizer::load_state_dict(const OptimizerStateDict& d) {
  NABLA_CHECK(d.groups.size() == groups_.size() && d.state.size() == groups_.size(), name_,
              ".load_state_dict: the state dict has ", d.groups.size(), " parameter groups (", d.state.size(),
              " state lists), expected ", groups_.size());
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    NABLA_CHECK(d.state[gi].size() == groups_[gi].params.size(), name_, ".load_state_dict: group ", gi,
                " of the state dict has ", d.state[gi].size(), " parameters, expected ",
                groups_[gi].params.size());
    for (std::size_t i = 0; i < d.state[gi].size(); ++i)
      for (const auto& [k, t] : d.state[gi][i].buffers) {
        const Tensor& p = groups_[gi].params[i];
        NABLA_CHECK(t.defined(), name_, ".load_state_dict: buffer '", k, "' of parameter ", i, " in group ", gi,
                    " is undefined");
        NABLA_CHECK(t.sizes() == p.sizes(), name_, ".load_state_dict: buffer '", k, "' of parameter ", i, " in group ",
                    gi, " has shape ", t.sizes(), ", expected the parameter's shape ", p.sizes());
        // Not cast (PyTorch casts to the parameter's dtype): a buffer of
        // another dtype is a state dict of another model.
        NABLA_CHECK(t.dtype() == p.dtype(), name_, ".load_state_dict: buffer '", k, "' of parameter ", i, " in group ",
                    gi, " has dtype ", t.dtype(), ", expected the parameter's dtype ", p.dtype());
      }
  }
  NoGradGuard no_grad;
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    groups_[gi].options = d.groups[gi];
    for (std::size_t i = 0; i < d.state[gi].size(); ++i) {
      ParamState s{d.state[gi][i].step, {}};
      // On the parameter's device, as PyTorch's load_state_dict moves state
      // (a checkpoint is read into host memory).
      const Device dev = groups_[gi].params[i].device();
      for (const auto& [k, t] : d.state[gi][i].buffers) s.buffers[k] = t.to(dev, false, /*copy=*/true);
      state_[gi][i] = std::move(s);
    }
  }
}

void Optimizer::check_range(const ParamGroup& g, const std::string& key, double lo, bool lo_inclusive, double hi,
                            bool hi_inclusive, const char* expected) const {
  double v = g.get(key);
  bool ok = !std::isnan(v) && (lo_inclusive ? v >= lo : v > lo) && (hi_inclusive ? v <= hi : v < hi);
  NABLA_CHECK(ok, name_, ": invalid ", key, " = ", v, ", expected ", expected);
}

void Optimizer::check_flag(const ParamGroup& g, const std::string& key) const {
  double v = g.get(key);
  NABLA_CHECK(v == 0.0 || v == 1.0, name_, ": invalid ", key, " = ", v, ", expected 0 (false) or 1 (true)");
}

}  // namespace nabla::optim
