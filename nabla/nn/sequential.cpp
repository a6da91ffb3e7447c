// Sequential.
#include "nabla/nn/sequential.h"

#include <string>
#include <typeinfo>
#include <utility>

#include "nabla/core/grad_mode.h"
#include "nabla/nn/activation.h"
#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/linear.h"
#include "nabla/nn/pooling.h"
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
bool is_a(const Module& m, const std::type_info& type) { return typeid(m) == type; }
}  // namespace

// A ReLU followed by a MaxPool2d runs as the pooling then the ReLU while
// gradients are recorded. Max pooling commutes with ReLU (both monotone; a
// NaN in a window stays NaN either way, and a window with no positive value
// gives +0 either way), so the values are the same bits, and so are the
// gradients: only an argmax with a positive value passes a gradient in
// either order. But ReLU's backward then masks the pooled gradient, a
// quarter of the elements for 2x2 pooling, not the full-size one that the
// pooling's backward writes (in a CNN step that full-size pass cost as much
// as the pooling's backward itself). Without gradients, conv2d_relu (ReLU
// inside the convolution) is cheaper, so the order stays.
Tensor Sequential::forward(const Tensor& x) {
  Tensor y = x;
  // The first module from k on that is not an Identity (nn::fuse_for_inference
  // leaves Identities where it folded a BatchNorm2d; they pass values on).
  auto skip_identities = [&](std::size_t k) {
    while (k < modules_.size() && is_a(*modules_[k], typeid(Identity))) ++k;
    return k;
  };
  auto pool_follows = [&](std::size_t relu) {
    std::size_t k = skip_identities(relu + 1);
    return k < modules_.size() && is_a(*modules_[k], typeid(MaxPool2d)) && GradMode::is_enabled() ? k : 0;
  };
  for (std::size_t i = 0; i < modules_.size(); ++i) {
    if (is_a(*modules_[i], typeid(ReLU))) {
      if (std::size_t pool = pool_follows(i)) {
        y = modules_[i]->forward(modules_[pool]->forward(y));
        i = pool;
        continue;
      }
    }
    if (fusable_conv(*modules_[i])) {
      std::size_t j = skip_identities(i + 1);
      if (j < modules_.size() && is_a(*modules_[j], typeid(ReLU)) && !pool_follows(j)) {
        const auto& c = static_cast<const Conv2d&>(*modules_[i]);
        y = conv2d_relu(y, c.weight, c.bias, c.stride.list(), c.padding.list(), c.dilation.list(), c.groups);
        i = j;
        continue;
      }
    }
    if (fusable_batch_norm(*modules_[i]) && i + 1 < modules_.size() && is_a(*modules_[i + 1], typeid(ReLU))) {
      y = static_cast<BatchNorm2d&>(*modules_[i]).forward_relu(y);
      ++i;
      continue;
    }
    y = modules_[i]->forward(y);
  }
  return y;
}

}  // namespace nabla::nn
