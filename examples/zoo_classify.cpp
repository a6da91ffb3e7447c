// Classifies images with a zoo model and weights exported from PyTorch
// (docs/zoo.md shows the five-line export script):
//   zoo_classify MODEL WEIGHTS.safetensors IMAGES.npy [TOP]
// MODEL: a zoo::create name (resnet18, vgg11, mobilenet_v2, ...);
// IMAGES.npy: float32 [N, 3, H, W], already normalized (numpy.save writes it).
// Prints, for each image, the TOP (default 5) classes and their probabilities.
#include <cstdio>
#include <string>

#include "nabla/nabla.h"
#include "nabla/zoo/zoo.h"

using namespace nabla;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: zoo_classify MODEL WEIGHTS.safetensors IMAGES.npy [TOP]\n");
    return 2;
  }
  try {
    nn::ModulePtr model = zoo::create(argv[1]);
    zoo::load_weights(*model, argv[2]);
    model->eval();
    Tensor images = data::read_npy(argv[3]);
    NoGradGuard no_grad;
    Tensor probabilities = softmax(model->forward(images), 1);
    const int64_t top = argc > 4 ? std::stoll(argv[4]) : 5;
    auto [p, classes] = topk(probabilities, top, 1);
    for (int64_t i = 0; i < images.size(0); ++i) {
      std::printf("image %lld:", static_cast<long long>(i));
      for (int64_t k = 0; k < top; ++k)
        std::printf(" class %lld (%.4f)", static_cast<long long>(classes[i][k].item<int64_t>()),
                    p[i][k].item<double>());
      std::printf("\n");
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "zoo_classify: %s\n", e.what());
    return 1;
  }
}
