// CS231n lecture 8 (2017), "PyTorch: Autograd" + "PyTorch: New Autograd Functions".
#include "nabla/nabla.h"

#include <iostream>

using namespace nabla;
using autograd::FunctionCtx;

// The lecture's custom ReLU: its own forward and backward.
struct MyReLU : autograd::Function<MyReLU> {
  static Tensor forward(FunctionCtx* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x.clamp(0);
  }
  static TensorList backward(FunctionCtx* ctx, const TensorList& grad_outputs) {
    Tensor x = ctx->saved_tensors()[0];
    Tensor grad_input = grad_outputs[0].clone();
    grad_input = grad_input.masked_fill(x < 0, 0);  // grad_input[x < 0] = 0
    return {grad_input};
  }
};

int main() {
  const int64_t N = 64, D_in = 1000, H = 100, D_out = 10;
  Tensor x = randn({N, D_in});
  Tensor y = randn({N, D_out});
  Tensor w1 = randn({D_in, H}, requires_grad());
  Tensor w2 = randn({H, D_out}, requires_grad());

  const double learning_rate = 1e-6;
  double first_loss = 0, last_loss = 0;
  for (int t = 0; t < 500; ++t) {
    Tensor y_pred = MyReLU::apply(x.mm(w1)).mm(w2);
    Tensor loss = (y_pred - y).pow(2).sum();
    double l = loss.item<float>();
    if (t == 0) first_loss = l;
    last_loss = l;
    if (t % 100 == 0) std::cout << "step " << t << " loss " << l << "\n";

    loss.backward();

    {
      NoGradGuard no_grad;  // with torch.no_grad():
      w1 -= learning_rate * w1.grad();
      w2 -= learning_rate * w2.grad();
      w1.grad().zero_();
      w2.grad().zero_();
    }
  }
  std::cout << "first loss " << first_loss << " last loss " << last_loss << "\n";
  return last_loss < first_loss ? 0 : 1;
}
