// Sequential.
#include "nabla/nn/sequential.h"

#include <string>
#include <utility>

namespace nabla::nn {

Sequential::Sequential(std::vector<ModulePtr> modules) {
  for (auto& m : modules) push_back(std::move(m));
}

void Sequential::push_back(ModulePtr m) {
  modules_.push_back(register_module(std::to_string(modules_.size()), std::move(m)));
}

const ModulePtr& Sequential::operator[](std::size_t i) const {
  NABLA_CHECK(i < modules_.size(), "nn::Sequential: index ", i, " out of range for ", modules_.size(), " modules");
  return modules_[i];
}

ModulePtr Sequential::replace(std::size_t i, ModulePtr m) {
  NABLA_CHECK(i < modules_.size(), "nn::Sequential::replace: index ", i, " out of range for ", modules_.size(),
              " modules");
  NABLA_CHECK(m != nullptr, "nn::Sequential::replace: the new module ", i, " is null");
  replace_child(std::to_string(i), m);
  return std::exchange(modules_[i], std::move(m));
}

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (auto& m : modules_) y = m->forward(y);
  return y;
}

}  // namespace nabla::nn
