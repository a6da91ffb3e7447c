// Logging a small training run for TensorBoard with nabla::summary::SummaryWriter:
// the loss curve, weight histograms, an image of the first layer's weights,
// a text note, the run's hyper-parameters with its final loss, and the
// model's graph. Then look at it with
//
//   tensorboard --logdir runs
//
// Usage: tensorboard_logging [logdir=runs/example] [steps=200]. Prints the
// event file's path last ("wrote <path>").
#include <cstdio>
#include <cstdlib>
#include <string>

#include "nabla/nabla.h"

int main(int argc, char** argv) {
  using namespace nabla;
  std::string logdir = argc > 1 ? argv[1] : "runs/example";
  int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  const int64_t N = 64, D_in = 16, H = 32, D_out = 4;
  const double lr = 0.05;
  manual_seed(0);
  Tensor x = randn({N, D_in});
  Tensor y = randn({N, D_out});
  nn::Sequential model(nn::Linear(D_in, H), nn::ReLU(), nn::Linear(H, D_out));
  optim::SGD opt(model.parameters(), {{"lr", lr}});

  summary::SummaryWriter writer(logdir);
  writer.add_text("notes", "A two-layer MLP on random data, **SGD** with lr " + std::to_string(lr) + ".");
  float loss_value = 0;
  for (int step = 0; step < steps; ++step) {
    Tensor loss = mse_loss(model(x), y);
    opt.zero_grad();
    loss.backward();
    opt.step();
    loss_value = loss.item<float>();
    writer.add_scalar("loss/train", loss_value, step);
    if (step % 20 == 0) {
      for (const auto& [name, p] : model.named_parameters()) writer.add_histogram(name, p, step);
      // The first layer's weights as a gray image, scaled to [0, 1].
      Tensor w = model.named_parameters().front().second.detach();
      writer.add_image("weights/layer0", (w - w.min()) / (w.max() - w.min()), step, "HW");
    }
  }
  writer.add_hparams({{"lr", lr}, {"hidden", static_cast<int>(H)}, {"optimizer", "sgd"}},
                     {{"hparam/final_loss", loss_value}});

  // The same model as a static graph, for the Graphs tab.
  graph::Graph g;
  Tensor gx = g.placeholder(kFloat32, {N, D_in}, "x");
  Tensor h = graph::layers::dense(gx, H, relu, graph::init::glorot_uniform, graph::init::zeros, true, "hidden");
  graph::layers::dense(h, D_out, {}, graph::init::glorot_uniform, graph::init::zeros, true, "output");
  writer.add_graph(g);
  writer.close();
  std::printf("final_loss=%.6g\nwrote %s\n", loss_value, writer.path().c_str());
  return 0;
}
