// See init.h.
#include "nabla/zoo/init.h"

#include <memory>

#include "nabla/nn/batchnorm.h"
#include "nabla/nn/conv.h"
#include "nabla/nn/init.h"
#include "nabla/nn/linear.h"

namespace nabla::zoo::detail {

void torchvision_init(nn::Module& model, double linear_std) {
  for (const auto& [name, m] : model.named_modules()) {
    if (auto conv = std::dynamic_pointer_cast<nn::Conv2d>(m)) {
      nn::init::kaiming_normal_(conv->weight, 0.0, "fan_out", "relu");
      if (conv->bias.defined()) nn::init::zeros_(conv->bias);
    } else if (auto bn = std::dynamic_pointer_cast<nn::BatchNormBase>(m)) {
      if (bn->weight.defined()) nn::init::ones_(bn->weight);
      if (bn->bias.defined()) nn::init::zeros_(bn->bias);
    } else if (auto fc = std::dynamic_pointer_cast<nn::Linear>(m); fc && linear_std > 0) {
      nn::init::normal_(fc->weight, 0.0, linear_std);
      if (fc->bias.defined()) nn::init::zeros_(fc->bias);
    }
  }
}

}  // namespace nabla::zoo::detail
