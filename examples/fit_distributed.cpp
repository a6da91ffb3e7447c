// Data-parallel training with train::Trainer::fit(): the same program runs
// as every rank of `mpirun -np N fit_distributed`; each trains on its shard of
// the data, the gradients are averaged before every step, the logged values
// are the whole data's, and rank 0 alone prints (docs/distributed.md, "fit()").
//
//   mpirun -np 2 ./build/release/examples/fit_distributed   # as root: --allow-run-as-root
//   ./build/release/examples/fit_distributed                # alone: a world of 1
//
// The data is synthetic (a noisy linear rule, 4 classes) so that the example
// needs no download; it prints each epoch's values, then "rank 0 of N: val
// accuracy XX.XX%".
#include <cstdio>

#include "nabla/distributed/distributed.h"
#include "nabla/nabla.h"

int main() {
  using namespace nabla;
  distributed::init();  // rank and world size from mpirun
  // The same data on every rank (the seed): fit() gives each rank its shard.
  manual_seed(0);
  Tensor w = randn({20, 4});
  Tensor x = randn({2048, 20});
  Tensor y = argmax(matmul(x, w) + 0.3 * randn({2048, 4}), 1);

  auto model = std::make_shared<nn::Sequential>(nn::Linear(20, 64), nn::ReLU(), nn::Linear(64, 4));
  train::Trainer trainer(model,
                         {.optimizer = std::make_shared<optim::Adam>(model->parameters()), .metrics = {"accuracy"}});
  train::History h = trainer.fit(x, y,
                                 {.epochs = 5,
                                  .batch_size = 32,  // per rank: 32 * N per step
                                  .validation_split = 0.2,
                                  .verbose = 2,
                                  .seed = 1,
                                  .distributed = std::make_shared<distributed::FitDataParallel>()});
  if (distributed::rank() == 0)
    std::printf("rank 0 of %d: val accuracy %.2f%%\n", distributed::world_size(), 100 * h["val_accuracy"].back());
  distributed::finalize();
  return 0;
}
