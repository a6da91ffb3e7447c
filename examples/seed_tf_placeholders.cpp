// The lecture's first TensorFlow seed in C++ (CS231n lecture 8, "TensorFlow:
// Neural Net"): build a graph once, then run it with values fed from host
// arrays.
//
//   x = placeholder(N, D); y = placeholder(N, D)
//   w1 = placeholder(D, H); w2 = placeholder(H, D)
//   h = maximum(matmul(x, w1), 0); y_pred = matmul(h, w2)
//   loss = reduce_mean(reduce_sum((y_pred - y) ** 2, axis=1))
//   grad_w1, grad_w2 = gradients(loss, [w1, w2])
//   sess.run([loss, grad_w1, grad_w2], feed_dict=values)
//
// Prints the loss and a summary of both gradients, then checks them against
// eager autograd on the same values ("eager_check: ...").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "nabla/nabla.h"

using namespace nabla;

namespace {

// A host array of standard normal values (what np.random.randn gives the seed).
std::vector<float> randn_host(std::size_t n, std::mt19937& gen) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v) e = normal(gen);
  return v;
}

double max_abs(const Tensor& t) { return max(abs(t)).item<double>(); }
double max_rel_diff(const Tensor& a, const Tensor& b) { return max_abs(a - b) / std::max(max_abs(b), 1e-30); }

}  // namespace

int main() {
  const int64_t N = 64, D = 1000, H = 100;

  // Define the graph: placeholders, ops, and gradient nodes.
  graph::Graph g;
  graph::LocationScope at;  // op nodes record this line in error messages
  Tensor x = g.placeholder(kFloat32, {N, D}, "x");
  Tensor y = g.placeholder(kFloat32, {N, D}, "y");
  Tensor w1 = g.placeholder(kFloat32, {D, H}, "w1");
  Tensor w2 = g.placeholder(kFloat32, {H, D}, "w2");
  Tensor h = maximum(matmul(x, w1), zeros({}));
  Tensor y_pred = matmul(h, w2);
  Tensor diff = y_pred - y;
  Tensor loss = mean(sum(pow(diff, 2), {1}));
  std::vector<Tensor> grads = graph::gradients(loss, {w1, w2});
  Tensor grad_w1 = grads[0], grad_w2 = grads[1];

  // Run it once with values from host arrays.
  std::mt19937 gen(0);
  Tensor xv = tensor(randn_host(N * D, gen), {N, D});
  Tensor w1v = tensor(randn_host(D * H, gen), {D, H});
  Tensor w2v = tensor(randn_host(H * D, gen), {H, D});
  Tensor yv = tensor(randn_host(N * D, gen), {N, D});
  graph::Session sess(g);
  std::vector<Tensor> out = sess.run({loss, grad_w1, grad_w2}, {{x, xv}, {w1, w1v}, {w2, w2v}, {y, yv}});
  const Tensor& loss_val = out[0];
  const Tensor& grad_w1_val = out[1];
  const Tensor& grad_w2_val = out[2];
  std::printf("graph: %d nodes (%d made by gradients)\n", g.num_nodes(),
              [&] {
                int n = 0;
                for (int i = 0; i < g.num_nodes(); ++i) n += g.node(i).name.rfind("gradients/", 0) == 0;
                return n;
              }());
  std::printf("loss=%.6g\n", loss_val.item<double>());
  std::printf("grad_w1: shape [%lld, %lld] norm=%.6g [0,0]=%.6g\n", static_cast<long long>(grad_w1_val.sizes()[0]),
              static_cast<long long>(grad_w1_val.sizes()[1]), norm(grad_w1_val).item<double>(),
              grad_w1_val.at<double>({0, 0}));
  std::printf("grad_w2: shape [%lld, %lld] norm=%.6g [0,0]=%.6g\n", static_cast<long long>(grad_w2_val.sizes()[0]),
              static_cast<long long>(grad_w2_val.sizes()[1]), norm(grad_w2_val).item<double>(),
              grad_w2_val.at<double>({0, 0}));

  // The same computation with eager autograd, in float64, as a check.
  Tensor ex = xv.to(kFloat64), ey = yv.to(kFloat64);
  Tensor e1 = w1v.to(kFloat64).requires_grad_(), e2 = w2v.to(kFloat64).requires_grad_();
  Tensor eloss = mean(sum(pow(matmul(maximum(matmul(ex, e1), zeros({}, kFloat64)), e2) - ey, 2), {1}));
  eloss.backward();
  std::printf("eager_check: loss_rel_diff=%.3g grad_w1_rel_diff=%.3g grad_w2_rel_diff=%.3g\n",
              std::abs(loss_val.item<double>() - eloss.item<double>()) / std::abs(eloss.item<double>()),
              max_rel_diff(grad_w1_val.to(kFloat64), e1.grad()), max_rel_diff(grad_w2_val.to(kFloat64), e2.grad()));
  return 0;
}
