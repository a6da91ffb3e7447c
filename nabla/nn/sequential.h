// Sequential: child modules named "0", "1", ... whose forwards are chained.
//   nn::Sequential net(nn::Linear(1000, 100), nn::ReLU(), nn::Linear(100, 10));
// Each argument is a module (moved in) or a std::shared_ptr to one (shared).
// A Conv2d directly followed by a ReLU runs as one conv2d_relu op (the ReLU
// fused into the convolution: same values and gradients, one pass less). A
// ReLU directly followed by a MaxPool2d runs after the pooling while
// gradients are recorded (same values and gradients; the ReLU's backward
// then works on the pooled gradient, a quarter of the size for 2x2). A
// BatchNorm2d in training mode directly followed by a ReLU runs as one
// batch_norm_relu (same values, gradients and running statistics).
#pragma once
#include <concepts>
#include <memory>
#include <type_traits>
#include <vector>

#include "nabla/nn/module.h"

namespace nabla::nn {

class Sequential : public Module {
 public:
  Sequential() = default;
  explicit Sequential(std::vector<ModulePtr> modules);
  template <class... Ms>
  requires(sizeof...(Ms) >= 1 &&
           (!std::same_as<std::remove_cvref_t<Ms>, Sequential> && ...)) explicit Sequential(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  void push_back(ModulePtr m);
  template <class M>
  requires std::derived_from<std::remove_cvref_t<M>, Module>
  void push_back(M&& m) { push_back(ModulePtr(std::make_shared<std::remove_cvref_t<M>>(std::forward<M>(m)))); }
  template <class M>
  requires std::derived_from<M, Module>
  void push_back(std::shared_ptr<M> m) { push_back(ModulePtr(std::move(m))); }

  std::size_t size() const { return modules_.size(); }
  const ModulePtr& operator[](std::size_t i) const;
  // Puts `m` in place of module i (PyTorch's `seq[i] = m`), under the same
  // name: swapping a pretrained model's head. Returns the module replaced.
  ModulePtr replace(std::size_t i, ModulePtr m);
  Tensor forward(const Tensor& x) override;

 private:
  std::vector<ModulePtr> modules_;
};

}  // namespace nabla::nn
