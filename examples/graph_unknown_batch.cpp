// A static graph built once with an unknown batch size (-1), as TensorFlow's
// `tf.placeholder(tf.float32, shape=(None, D))`: trained on batches of 64 and
// a last, smaller batch of each epoch, then saved and run on a batch of
// another size in a fresh Session loaded from the file.
//
//   graph_unknown_batch [epochs] [model.nbg]
//
// Prints one line per epoch ("epoch=E loss=L batches=B sizes=64,...,40") and
// then "loaded: batch=N loss=L same=1" (the loaded graph's loss equals the
// training session's, bit for bit).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nabla/nabla.h"

using namespace nabla;

int main(int argc, char** argv) {
  const int epochs = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::string path = argc > 2 ? argv[2] : "graph_unknown_batch.nbg";
  manual_seed(0);
  // 1000 points around 3 random centers in 8 dims: 3 classes.
  const int64_t n = 1000, d = 8, classes = 3, batch = 64;
  Tensor centers = randn({classes, d}) * 2.0;
  Tensor labels = randint(0, classes, {n});
  Tensor inputs = index_select(centers, 0, labels) + randn({n, d});

  graph::Graph g;
  graph::LocationScope here;  // nodes remember this line for their errors
  Tensor x = g.placeholder(kFloat32, {-1, d}, "x");  // -1: any batch size
  Tensor y = g.placeholder(kInt64, {-1}, "y");
  Tensor logits = graph::layers::dense(graph::layers::dense(x, 32, relu), classes);
  Tensor loss = g.set_name(cross_entropy(logits, y), "loss");  // mean over whatever batch is fed
  Tensor train = graph::AdamOptimizer(1e-2).minimize(loss);

  graph::Session sess(g);
  sess.run(g.global_variables_initializer());
  for (int epoch = 1; epoch <= epochs; ++epoch) {
    double total = 0;
    int batches = 0;
    std::string sizes;
    for (int64_t start = 0; start < n; start += batch) {
      const int64_t len = std::min(batch, n - start);  // the last batch has 1000 - 15 * 64 = 40 rows
      auto out = sess.run({loss, train}, {{x, inputs.narrow(0, start, len)}, {y, labels.narrow(0, start, len)}});
      total += out[0].item<float>();
      ++batches;
      if (start == 0 || start + len == n) sizes += (sizes.empty() ? "" : ",...,") + std::to_string(len);
    }
    std::printf("epoch=%d loss=%.4f batches=%d sizes=%s\n", epoch, total / batches, batches, sizes.c_str());
  }
  // The Session specialized the graph three times: for the initializer run
  // (nothing fed) and for each batch size fed, 64 and 40.
  std::printf("specializations=%lld\n", static_cast<long long>(sess.stats().optimizations));

  sess.save(path);
  graph::Session loaded = graph::Session::load(path);
  const int64_t m = 7;
  Tensor xs = inputs.narrow(0, 0, m), ys = labels.narrow(0, 0, m);
  float here_loss = sess.run(loss, {{x, xs}, {y, ys}}).item<float>();
  float loaded_loss = loaded.run(std::vector<std::string>{"loss"}, {{"x", xs}, {"y", ys}})[0].item<float>();
  std::printf("loaded: batch=%lld loss=%.4f same=%d\n", static_cast<long long>(m), loaded_loss,
              loaded_loss == here_loss ? 1 : 0);
  return loaded_loss == here_loss ? 0 : 1;
}
