// Resumable training: everything a training loop needs to continue after a
// crash or a kill exactly as if it had not stopped — the model, the optimizer,
// the learning-rate scheduler's progress, the global random generator (dropout
// masks, randn), the number of completed epochs and optimizer steps, and the
// caller's own values (options the run was started with, best metric, ...) —
// in one checkpoint file (checkpoint.h's layout plus "training.*" metadata).
//
//   io::TrainingState s{.epoch = epoch, .step = step, .info = {{"best_accuracy", "0.93"}}};
//   io::save_training_state("run/checkpoint.safetensors", model, adam, &schedule, s);   // after each epoch
//
//   // a new process builds the same model, optimizer and schedule, then:
//   io::TrainingState s = io::restore_training_state("run/checkpoint.safetensors", model, adam, &schedule);
//   loader.set_epoch(s.epoch);  // a shuffling DataLoader's order is a function of (seed, epoch)
//   for (int64_t e = s.epoch; e < epochs; ++e) ...
//
// This is the state `nabla train --resume` uses and the one a Keras-like
// BackupAndRestore callback is meant to build on. Saving is atomic (a kill
// during a save leaves the previous file); restoring checks the whole file
// before changing the model, optimizer, scheduler or generator.
#pragma once
#include <cstdint>
#include <string>

#include "nabla/core/random.h"
#include "nabla/io/checkpoint.h"
#include "nabla/optim/lr_scheduler.h"

namespace nabla::io {

struct TrainingState {
  int64_t epoch = 0;  // epochs completed
  int64_t step = 0;   // optimizer steps completed
  // The caller's values; keys must not start with "training.", "nabla." or "optimizer".
  Metadata info;
  // The caller's tensors (a callback's best weights, a metric's counts), saved
  // as "training.<name>" next to the model's and optimizer's.
  nn::StateDict tensors;
  // Filled by read_training_state / restore_training_state (save takes the
  // live generator's state).
  GeneratorState rng;
  bool has_scheduler = false;
};

// Writes model, optimizer, the scheduler's progress (when given), the global
// generator's state and `state` to `path`, atomically.
void save_training_state(const std::string& path, const nn::Module& model, const optim::Optimizer& optimizer,
                         const optim::LRScheduler* scheduler, const TrainingState& state);

// The training state saved in `path` without restoring anything (to check the
// caller's options before resuming). nabla::Error naming the file and the
// entry when it is not a training state or an entry is malformed.
TrainingState read_training_state(const std::string& path);

// Restores model, optimizer, scheduler and the global generator from `path`
// and returns the saved state. A scheduler must be given exactly when one was
// saved. Everything is checked first: on error nothing has changed.
TrainingState restore_training_state(const std::string& path, nn::Module& model, optim::Optimizer& optimizer,
                                     optim::LRScheduler* scheduler);

}  // namespace nabla::io
