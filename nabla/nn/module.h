// nn::Module: the base of every layer and model (torch.nn.Module). A module
// registers its parameters, buffers and child modules by name, once
// (STYLE.md point 9); everything else — recursive listing with dotted names,
// state dicts, freezing, train/eval, dtype conversion, printing — walks that
// registry. Subclasses keep handles to what they register:
//
//   struct TwoLayerNet : nn::Module {
//     std::shared_ptr<nn::Linear> fc1 = register_module("fc1", std::make_shared<nn::Linear>(1000, 100));
//     std::shared_ptr<nn::Linear> fc2 = register_module("fc2", std::make_shared<nn::Linear>(100, 10));
//     Tensor forward(const Tensor& x) override { return fc2->forward(fc1->forward(x).relu()); }
//   };
#pragma once
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/nn/state_dict.h"

namespace nabla::nn {

class Module;
using ModulePtr = std::shared_ptr<Module>;
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  // The computation. The base class throws nabla::Error.
  virtual Tensor forward(const Tensor& x);
  Tensor operator()(const Tensor& x) { return forward(x); }

  // ---- registration (names: non-empty, no '.', unique in this module) ----
  // A parameter is made a leaf that requires grad; the same handle is returned.
  Tensor register_parameter(const std::string& name, Tensor t, bool requires_grad = true);
  Tensor register_buffer(const std::string& name, Tensor t);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> m) {
    add_child(name, m);
    return m;
  }

  // ---- walking the registry (recursive, each tensor once) ----
  std::vector<Tensor> parameters(bool recurse = true) const;
  NamedTensors named_parameters(bool recurse = true) const;
  std::vector<Tensor> buffers(bool recurse = true) const;
  NamedTensors named_buffers(bool recurse = true) const;
  std::vector<ModulePtr> children() const;
  const std::vector<std::pair<std::string, ModulePtr>>& named_children() const { return children_; }
  // Every descendant with its dotted path (not this module itself).
  std::vector<std::pair<std::string, ModulePtr>> named_modules() const;
  int64_t num_parameters() const;

  // ---- modes ----
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }

  // Drops every parameter's gradient (set_to_none) or zeroes it in place.
  void zero_grad(bool set_to_none = true);
  // Freezes (false) or unfreezes (true) every parameter (PyTorch's
  // requires_grad_): nothing else changes; batch norm keeps updating its
  // running statistics in training mode.
  Module& requires_grad_(bool requires_grad = true);
  // Keras's `layer.trainable = false`: freezes (false) or unfreezes (true)
  // every parameter of this module and its descendants, and marks them
  // frozen, so that batch norm layers among them run in inference mode (the
  // running statistics normalize and are held) even when the model trains.
  // Frozen parameters get no gradient; optimizers skip them.
  Module& trainable(bool on);
  // The same for the parameters whose dotted names match `pattern`: a glob
  // ('*' any characters, dots included; '?' one) matching the whole name
  // ("*.bias", "features.*") or naming a module ("features.0": its
  // parameters). A module whose parameters are then all frozen is marked
  // frozen (its batch norm holds its statistics). Returns how many
  // parameters matched; nabla::Error when none does.
  int64_t trainable(const std::string& pattern, bool on);
  Module& trainable(const char*) = delete;  // a pattern needs `on`: trainable("conv*", false)
  // False after trainable(false) (on it or an ancestor).
  bool is_trainable() const { return trainable_; }
  // Parameters (elements) that require grad: Keras's "Trainable params".
  int64_t num_trainable_parameters() const;
  // Converts floating parameters and buffers to `dtype` in place: the handles
  // the module (and the user) hold see the new dtype; gradients are dropped.
  Module& to(DType dtype);
  // Moves every parameter and buffer to `device` in place (handles kept, as
  // to(dtype)). Checks all moves before changing anything: a device without a
  // backend in this build throws nabla::Error and leaves the module as it was.
  Module& to(Device device);

  // ---- state ----
  // Parameters, then buffers, of this module, then of each child, in
  // registration order (as PyTorch). Entries share storage with the module.
  StateDict state_dict() const;
  // Copies every entry into the module's tensors in place. Throws nabla::Error,
  // before changing anything, listing missing and unexpected keys (strict only)
  // and every shape and dtype mismatch (always: unlike PyTorch, nothing is
  // cast; convert with .to(dtype) first). An undefined tensor names its key.
  void load_state_dict(const StateDict& dict, bool strict = true);

  // ---- printing ----
  // The class name without namespaces ("Linear", "TwoLayerNet").
  virtual std::string name() const;
  // Constructor arguments shown in the printed tree ("in_features=3, ...").
  virtual std::string extra_repr() const { return {}; }

 protected:
  // Drops every child module; for containers that renumber or replace their
  // children (ModuleList::insert, ModuleDict::insert over an existing key).
  void clear_children() { children_.clear(); }
  // Puts `m` in place of the child called `name` (Sequential::replace).
  void replace_child(const std::string& name, ModulePtr m);

 private:
  void add_child(const std::string& name, ModulePtr m);
  void check_new_name(const std::string& name, const char* api) const;
  void collect(const std::string& prefix, bool params, bool recurse, NamedTensors& out) const;
  friend void print_module(std::ostream& os, const Module& m, int indent);

  NamedTensors params_;
  NamedTensors buffers_;
  std::vector<std::pair<std::string, ModulePtr>> children_;
  bool training_ = true;
  bool trainable_ = true;
};

// Prints the module tree, with parameter counts, like PyTorch's repr.
std::ostream& operator<<(std::ostream& os, const Module& m);

}  // namespace nabla::nn
