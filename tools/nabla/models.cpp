// The models of models.h. bench/cnn_step_bench.cpp and its libtorch twin
// (bench/reference/torch_cnn_step.cpp) time this CNN layer for layer: keep
// them in step when it changes.
#include "models.h"

#include "nabla/nabla.h"

namespace nabla::tool {
namespace {

nn::ModulePtr make_cnn() {
  return std::make_shared<nn::Sequential>(
      nn::Conv2d(1, 32, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(32),   //
      nn::Conv2d(32, 64, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(64),  //
      nn::Flatten(), nn::Linear(64 * 7 * 7, 128), nn::ReLU(), nn::Dropout(0.25), nn::Linear(128, 10));
}

nn::ModulePtr make_mlp() {
  return std::make_shared<nn::Sequential>(nn::Flatten(), nn::Linear(28 * 28, 256), nn::ReLU(), nn::Linear(256, 128),
                                          nn::ReLU(), nn::Linear(128, 10));
}

}  // namespace

std::vector<std::string> model_names() { return {"cnn", "mlp"}; }

nn::ModulePtr make_model(const std::string& name) {
  if (name == "cnn") return make_cnn();
  if (name == "mlp") return make_mlp();
  fail("make_model: unknown model '", name, "', expected one of: cnn, mlp");
}

}  // namespace nabla::tool
