// Proves an installed nabla works from another CMake project, and that
// nabla/nabla.h alone is enough to print tensors and modules (issue 14): this
// file includes nothing else from the standard library. The installed
// nabla/testing/assert_close.h is used as a test would.
#include "nabla/nabla.h"
#include "nabla/testing/assert_close.h"

int main() {
  nabla::Tensor w = nabla::ones({3}, nabla::requires_grad());
  (w * w).sum().backward();
  float g = w.grad().sum().item<float>();
  std::cout << "consumer: grad sum " << g << "\n";
  nabla::nn::Sequential model(nabla::nn::Linear(3, 2));
  std::cout << w.grad() << "\n" << model << "\n";
  // run.sh checks that the installed library finds its installed weights.
  std::cout << "pretrained: " << nabla::zoo::pretrained_path("fashion_cnn") << "\n";
  // run.sh checks that the installed libnabla loads the installed libnabla_cuda.
  std::cout << "cuda: built " << nabla::cuda::is_built() << ", available " << nabla::cuda::is_available() << ": "
            << nabla::cuda::unavailable_reason() << "\n";
  try {
    nabla::testing::assert_close(w.grad(), nabla::full({3}, 2.0));
  } catch (const nabla::Error& e) {
    std::cout << e.what() << "\n";
    return 1;
  }
  return g == 6.0f ? 0 : 1;
}
