// Sequential.
#include "nabla/nn/sequential.h"

#include <string>
#include <typeinfo>
#include <utility>

#include "nabla/nn/activation.h"
#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/ops/autocast.h"
#include "nabla/ops/conv.h"

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

namespace {
// Exactly a Conv2d then exactly a ReLU (not subclasses, whose forward may
// differ): run as one conv2d_relu, the same values and gradients in one pass.
// Not for NHWC data (Conv2d::forward permutes it) nor under autocast, whose
// bfloat16 convolution is conv2d's (conv2d_relu is not on its list).
bool fusable_conv(const Module& a) {
  return typeid(a) == typeid(Conv2d) && static_cast<const Conv2d&>(a).data_format == "NCHW" && !is_autocast_enabled();
}
// Exactly a BatchNorm2d in training mode then exactly a ReLU: one
// batch_norm_relu (BatchNorm2d::forward_relu; either data format).
bool fusable_batch_norm(const Module& a) { return typeid(a) == typeid(BatchNorm2d) && a.is_training(); }
}  // namespace

Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    if (fusable_conv(*modules_[i])) {
      // Identities between the two (where nn::fuse_for_inference left a
      // folded BatchNorm2d) pass the value on unchanged.
      std::size_t j = i + 1;
      auto is = [&](std::size_t k, const std::type_info& type) {
        const Module& m = *modules_[k];  // typeid of a plain reference: no side effects for clang to warn about
        return typeid(m) == type;
      };
      while (j < modules_.size() && is(j, typeid(Identity))) ++j;
      if (j < modules_.size() && is(j, typeid(ReLU))) {
        const auto& c = static_cast<const Conv2d&>(*modules_[i]);
        y = conv2d_relu(y, c.weight, c.bias, c.stride.list(), c.padding.list(), c.dilation.list(), c.groups);
        i = j;
        continue;
      }
    }
    if (fusable_batch_norm(*modules_[i]) && i + 1 < modules_.size()) {
      const Module& next = *modules_[i + 1];
      if (typeid(next) == typeid(ReLU)) {
        y = static_cast<BatchNorm2d&>(*modules_[i]).forward_relu(y);
        ++i;
        continue;
      }
    }
    y = modules_[i]->forward(y);
  }
  return y;
}

}  // namespace nabla::nn
