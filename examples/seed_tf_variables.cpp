// The lecture's TensorFlow seed with variables in C++ (CS231n lecture 8): the
// weights live in the session as variables and the graph updates them itself,
// so no weights travel between host and graph each step.
//
//   w1 = Variable(random_normal((D, H))); w2 = Variable(random_normal((H, D)))
//   loss = reduce_mean(reduce_sum((matmul(maximum(matmul(x, w1), 0), w2) - y) ** 2, axis=1))
//   grad_w1, grad_w2 = gradients(loss, [w1, w2])
//   new_w1 = w1.assign(w1 - learning_rate * grad_w1)   (same for w2)
//   updates = group(new_w1, new_w2)
//   sess.run(global_variables_initializer())
//   for t in range(50): loss_val, _ = sess.run([loss, updates], feed_dict=values)
//
// Then the seeds' pitfall: a second session that fetches only `loss` never runs
// the assign nodes, so the weights stay as initialized and the loss is flat.
//
// Usage: seed_tf_variables [steps=50] [--device NAME]. Prints both loss series and, for each,
// "<series>: first_loss=... final_loss=...", and the bytes a training step
// copies to the host (host_bound_bytes_per_step: the fetched loss only).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "device_arg.h"
#include "nabla/nabla.h"

using namespace nabla;

namespace {

void print_series(const char* name, const std::vector<double>& losses) {
  std::printf("%s:", name);
  for (double l : losses) std::printf(" %.6g", l);
  std::printf("\n%s: first_loss=%.6g final_loss=%.6g\n", name, losses.front(), losses.back());
}

}  // namespace

int main(int argc, char** argv) {
  const Device device = device_arg(argc, argv);  // --device opencl: the sessions run there
  const int steps = argc > 1 ? std::atoi(argv[1]) : 50;
  const int64_t N = 64, D = 1000, H = 100;
  const double learning_rate = 1e-5;
  manual_seed(0);

  graph::Graph g;
  graph::LocationScope at;
  Tensor x = g.placeholder(kFloat32, {N, D}, "x");
  Tensor y = g.placeholder(kFloat32, {N, D}, "y");
  Tensor w1 = g.variable(randn({D, H}), "w1");
  Tensor w2 = g.variable(randn({H, D}), "w2");
  Tensor h = maximum(matmul(x, w1), zeros({}));
  Tensor y_pred = matmul(h, w2);
  Tensor loss = mean(sum(pow(y_pred - y, 2), {1}));
  std::vector<Tensor> grads = graph::gradients(loss, {w1, w2});
  Tensor new_w1 = graph::assign(w1, w1 - learning_rate * grads[0]);
  Tensor new_w2 = graph::assign(w2, w2 - learning_rate * grads[1]);
  Tensor updates = graph::group({new_w1, new_w2});
  Tensor init = g.global_variables_initializer();

  graph::Feeds values = {{x, randn({N, D})}, {y, randn({N, D})}};

  // Training: each run computes the loss, then applies the updates.
  graph::Session sess(g, device);
  sess.run(init);
  std::vector<double> with_updates;
  const int64_t bytes_out_before = sess.stats().device_to_host_bytes;
  for (int t = 0; t < steps; ++t) {
    std::vector<Tensor> out = sess.run({loss, updates}, values);
    with_updates.push_back(out[0].item<double>());
  }
  print_series("with_updates", with_updates);
  // Only the fetched loss comes back to the host; the weights stay in the session.
  std::printf("host_bound_bytes_per_step=%lld (the loss: %zu bytes)\n",
              static_cast<long long>((sess.stats().device_to_host_bytes - bytes_out_before) / std::max(steps, 1)),
              itemsize(loss.dtype()));

  // The pitfall: fetching only the loss never runs `updates`.
  graph::Session lazy(g, device);
  lazy.run(init);
  Tensor w1_before = lazy.variable_value(w1);
  std::vector<double> without_updates;
  for (int t = 0; t < steps; ++t) without_updates.push_back(lazy.run(loss, values).item<double>());
  print_series("without_updates", without_updates);
  bool unchanged = max(abs(lazy.variable_value(w1) - w1_before)).item<double>() == 0.0;
  std::printf("weights_unchanged_without_updates=%d\n", unchanged ? 1 : 0);
  return 0;
}
