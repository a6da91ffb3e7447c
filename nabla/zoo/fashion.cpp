// See fashion.h.
#include "nabla/zoo/fashion.h"

#include "nabla/nn/nn.h"
#include "nabla/zoo/pretrained.h"
#include "nabla/zoo/zoo.h"

namespace nabla::zoo {

// The layers are made in a braced list, which C++ evaluates left to right
// (function arguments have no set order: GCC made them last to first), so the
// random initialization follows the layer order, as nn::from_config's does:
// `nabla train --print-config` fed back through --config trains identically.
nn::ModulePtr fashion_cnn(const FashionOptions& options) {
  NABLA_CHECK(!(options.pretrained && !options.weights.empty()), "zoo::fashion_cnn: give pretrained or weights, ",
              "not both (weights '", options.weights, "')");
  auto model = std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Conv2d>(1, 32, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::BatchNorm2d>(32),  //
      std::make_shared<nn::Conv2d>(32, 64, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::BatchNorm2d>(64),  //
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(64 * 7 * 7, 128), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Dropout>(0.25), std::make_shared<nn::Linear>(128, 10)});
  if (options.pretrained || !options.weights.empty())
    load_weights(*model, options.pretrained ? pretrained_path("fashion_cnn") : options.weights);
  return model;
}

nn::ModulePtr fashion_mlp() {
  return std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(28 * 28, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 128), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(128, 10)});
}

}  // namespace nabla::zoo
