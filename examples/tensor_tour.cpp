// A tour of nabla's tensors and op families: views, broadcasting, a tiny CNN
// forward pass with a loss, its gradients, and indexing/sorting.
// Usage: tensor_tour   (prints each step; exits 0)
#include <cstdio>
#include <iostream>

#include "nabla/nabla.h"

using namespace nabla;

int main() {
  manual_seed(0);
  // Views share memory; broadcasting and type promotion follow PyTorch.
  Tensor x = arange(12, dtype(kFloat32)).view({3, 4});
  std::cout << "x =\n" << x << "\n";
  std::cout << "x.t()[1:, ::2] =\n" << x.t().index({Slice(1, None), Slice(None, None, 2)}) << "\n";
  std::cout << "x + [10, 20, 30, 40] =\n" << x + tensor({10.0, 20.0, 30.0, 40.0}) << "\n";

  // A tiny CNN: conv -> relu -> max-pool -> linear -> cross-entropy.
  Tensor images = randn({8, 1, 8, 8});
  Tensor labels = randint(0, 3, {8});
  Tensor w_conv = (randn({4, 1, 3, 3}) * 0.3).requires_grad_();
  Tensor w_fc = (randn({3, 4 * 4 * 4}) * 0.1).requires_grad_();
  Tensor h = max_pool2d(relu(conv2d(images, w_conv, {}, {1, 1}, {1, 1})), {2, 2});
  Tensor logits = linear(h.flatten(1), w_fc);
  Tensor loss = cross_entropy(logits, labels);
  loss.backward();
  std::printf("cross-entropy %.4f, |grad w_conv| %.4f, |grad w_fc| %.4f\n", loss.item<float>(),
              norm(w_conv.grad()).item<float>(), norm(w_fc.grad()).item<float>());

  // Indexing and sorting.
  auto [values, indices] = topk(logits.detach(), 2, 1);
  std::cout << "top-2 classes of the first 3 images: " << indices.narrow(0, 0, 3) << "\n";
  std::cout << "accuracy: " << (argmax(logits, 1) == labels).to(kFloat32).mean().item<float>() << "\n";
  return 0;
}
