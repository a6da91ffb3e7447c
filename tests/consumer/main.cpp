// Proves an installed nabla works from another CMake project.
#include <cstdio>

#include "nabla/nabla.h"

int main() {
  nabla::Tensor w = nabla::ones({3}, nabla::requires_grad());
  (w * w).sum().backward();
  float g = w.grad().sum().item<float>();
  std::printf("consumer: grad sum %g\n", g);
  return g == 6.0f ? 0 : 1;
}
