// Optimizer: the base of nabla's optimizers (torch.optim.Optimizer). It holds
// parameter groups — tensors plus their own hyper-parameters, missing ones
// filled from the optimizer's defaults — and per-parameter state (step count and
// named buffers such as "momentum_buffer" or "exp_avg"). step() runs the update
// rule of the derived class under NoGradGuard on every parameter that requires
// grad and has a gradient. Hyper-parameters are doubles by name (booleans such
// as nesterov are 0 or 1), like PyTorch's keyword arguments; unknown names are
// refused.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::optim {

using Options = std::map<std::string, double>;

struct ParamGroup {
  std::vector<Tensor> params;
  Options options;  // hyper-parameters of this group

  ParamGroup(std::vector<Tensor> params, Options options = {})
      : params(std::move(params)), options(std::move(options)) {}
  bool has(const std::string& key) const { return options.count(key) != 0; }
  double get(const std::string& key) const;  // raises nabla::Error when missing
  void set(const std::string& key, double value) { options[key] = value; }
  double lr() const { return get("lr"); }
  void set_lr(double lr) { options["lr"] = lr; }
};

// State of one parameter: how many updates it has had and its buffers.
struct ParamState {
  int64_t step = 0;
  std::map<std::string, Tensor> buffers;
};

// A snapshot of an optimizer: hyper-parameters of each group and the state of
// each parameter, by group and position in the group (like PyTorch's indices).
struct OptimizerStateDict {
  std::vector<Options> groups;
  std::vector<std::vector<ParamState>> state;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that requires grad and has a gradient.
  // Inside compile()'s trace, with traced gradients, the update is traced: it
  // runs at each call of the compiled function (see docs/graph.md, compile()).
  void step();
  // Clears gradients: to undefined (set_to_none) or to zeros.
  void zero_grad(bool set_to_none = true);

  std::vector<ParamGroup>& param_groups() { return groups_; }
  const std::vector<ParamGroup>& param_groups() const { return groups_; }
  const Options& defaults() const { return defaults_; }
  const std::string& name() const { return name_; }
  // Adds a group; its missing hyper-parameters come from the defaults.
  void add_param_group(ParamGroup group);
  // The state of a parameter (by group and position); empty before its first step.
  const ParamState& state(std::size_t group, std::size_t index) const;

  // Copies of the hyper-parameters and state buffers.
  OptimizerStateDict state_dict() const;
  // Restores a snapshot taken from an optimizer of the same kind over parameters
  // of the same shapes and dtypes; buffers are copied. A buffer of another
  // dtype than its parameter is refused (PyTorch casts it).
  void load_state_dict(const OptimizerStateDict& dict);

 protected:
  Optimizer(std::string name, Options defaults);
  // Derived constructors call this (virtual checks then dispatch to them).
  void init(std::vector<ParamGroup> groups);
  // Raises nabla::Error when a group's hyper-parameters are out of range.
  virtual void check_group(const ParamGroup& group) const = 0;
  // The update rule: grad is the parameter's gradient, state.step already counts this step.
  virtual void update(const ParamGroup& group, Tensor& param, const Tensor& grad, ParamState& state) = 0;
  // Whether update()'s device work depends on nothing on the host but the
  // group's hyper-parameters and which state buffers exist (not the step
  // count): then a CUDA graph may replay a compiled step's update
  // (core/trace_context.h, EffectReplay). SGD's does; Adam's bias correction
  // reads the step count.
  virtual bool update_replayable() const { return false; }

  // Helpers for check_group: raise an Error naming this optimizer.
  void check_range(const ParamGroup& g, const std::string& key, double lo, bool lo_inclusive, double hi,
                   bool hi_inclusive, const char* expected) const;
  void check_flag(const ParamGroup& g, const std::string& key) const;

 private:
  bool has_traced_gradients() const;
  void traced_step();

  std::string name_;
  Options defaults_;
  std::vector<ParamGroup> groups_;
  std::vector<std::vector<ParamState>> state_;
  // Expires with the optimizer: a compiled step that outlives it says so.
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
};

// Wraps plain parameters into one group.
std::vector<ParamGroup> one_group(std::vector<Tensor> params);
// The defaults with the given options applied; an unknown option raises an
// Error naming the optimizer `name`.
Options merge_options(const char* name, Options defaults, const Options& given);

}  // namespace nabla::optim
