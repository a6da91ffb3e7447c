// Proves an installed nabla works from another CMake project, and that
// nabla/nabla.h alone is enough to print tensors and modules (issue 14): this
// file includes nothing else from the standard library.
#include "nabla/nabla.h"

int main() {
  nabla::Tensor w = nabla::ones({3}, nabla::requires_grad());
  (w * w).sum().backward();
  float g = w.grad().sum().item<float>();
  std::cout << "consumer: grad sum " << g << "\n";
  nabla::nn::Sequential model(nabla::nn::Linear(3, 2));
  std::cout << w.grad() << "\n" << model << "\n";
  return g == 6.0f ? 0 : 1;
}
