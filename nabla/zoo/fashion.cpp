// See fashion.h.
#include "nabla/zoo/fashion.h"

#include "nabla/nn/nn.h"

namespace nabla::zoo {

nn::ModulePtr fashion_cnn() {
  return std::make_shared<nn::Sequential>(
      nn::Conv2d(1, 32, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(32),   //
      nn::Conv2d(32, 64, 3, 1, 1), nn::ReLU(), nn::MaxPool2d(2), nn::BatchNorm2d(64),  //
      nn::Flatten(), nn::Linear(64 * 7 * 7, 128), nn::ReLU(), nn::Dropout(0.25), nn::Linear(128, 10));
}

nn::ModulePtr fashion_mlp() {
  return std::make_shared<nn::Sequential>(nn::Flatten(), nn::Linear(28 * 28, 256), nn::ReLU(), nn::Linear(256, 128),
                                          nn::ReLU(), nn::Linear(128, 10));
}

}  // namespace nabla::zoo
