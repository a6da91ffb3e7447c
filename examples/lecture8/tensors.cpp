// CS231n lecture 8 (2017), "PyTorch: Tensors": a two-layer ReLU net, gradients by hand.
#include "nabla/nabla.h"

#include <iostream>

using namespace nabla;

int main() {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  Tensor x = randn({N, D_in});
  Tensor y = randn({N, D_out});
  Tensor w1 = randn({D_in, H});
  Tensor w2 = randn({H, D_out});

  const double learning_rate = 1e-6;
  double first_loss = 0, last_loss = 0;
  for (int t = 0; t < 500; ++t) {
    // forward
    Tensor h = x.mm(w1);
    Tensor h_relu = h.clamp(0);  // h.clamp(min=0)
    Tensor y_pred = h_relu.mm(w2);
    Tensor loss = (y_pred - y).pow(2).sum();
    double l = loss.item<float>();
    if (t == 0) first_loss = l;
    last_loss = l;
    if (t % 100 == 0) std::cout << "step " << t << " loss " << l << "\n";

    // backward, by hand
    Tensor grad_y_pred = 2.0 * (y_pred - y);
    Tensor grad_w2 = h_relu.t().mm(grad_y_pred);
    Tensor grad_h_relu = grad_y_pred.mm(w2.t());
    Tensor grad_h = grad_h_relu.clone();
    grad_h = grad_h.masked_fill(h < 0, 0);  // grad_h[h < 0] = 0
    Tensor grad_w1 = x.t().mm(grad_h);

    w1 -= learning_rate * grad_w1;
    w2 -= learning_rate * grad_w2;
  }
  std::cout << "first loss " << first_loss << " last loss " << last_loss << "\n";
  return last_loss < first_loss ? 0 : 1;
}
