// The models of models.h. bench/cnn_step_bench.cpp and its libtorch twin
// (bench/reference/torch_cnn_step.cpp) time this CNN layer for layer: keep
// them in step when it changes.
#include "models.h"

#include "nabla/nabla.h"

namespace nabla::tool {
namespace {

// The layers are made in a braced list, which C++ evaluates left to right
// (function arguments have no set order: GCC made them last to first), so the
// random initialization follows the layer order, as nn::from_config's does:
// `nabla train --print-config` fed back through --config trains identically.
nn::ModulePtr make_cnn() {
  return std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Conv2d>(1, 32, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::BatchNorm2d>(32),  //
      std::make_shared<nn::Conv2d>(32, 64, 3, 1, 1), std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::BatchNorm2d>(64),  //
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(64 * 7 * 7, 128), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Dropout>(0.25), std::make_shared<nn::Linear>(128, 10)});
}

nn::ModulePtr make_mlp() {
  return std::make_shared<nn::Sequential>(std::vector<nn::ModulePtr>{
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(28 * 28, 256), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(256, 128), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(128, 10)});
}

}  // namespace

std::vector<std::string> model_names() { return {"cnn", "mlp"}; }

nn::ModulePtr make_model(const std::string& name) {
  if (name == "cnn") return make_cnn();
  if (name == "mlp") return make_mlp();
  fail("make_model: unknown model '", name, "', expected one of: cnn, mlp");
}

}  // namespace nabla::tool
