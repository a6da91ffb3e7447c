// What `nabla train` saves about its own run next to the training state
// (io/training_state.h), and the checks --resume makes with it: a checkpoint
// continues only under the options it was started with, because the schedule
// (--epochs), the batches (--batch-size, --seed, --limit, the dataset) and the
// updates (--model, --optimizer, --lr, --schedule) depend on them.
#pragma once
#include <cstdint>
#include <string>

#include "cli.h"
#include "nabla/io/safetensors.h"

namespace nabla::tool {

// The options that decide the run's results, and the dataset's sizes, as
// checkpoint metadata ("option.epochs" -> "5", "train_samples" -> "60000").
io::Metadata run_options(const TrainConfig& config, int64_t train_samples, int64_t test_samples);

// Raises nabla::Error naming `path` and the first option whose value in
// `saved` (a checkpoint's metadata) differs from `current` (run_options()).
void check_same_options(const std::string& path, const io::Metadata& saved, const io::Metadata& current);

// A double as text that reads back to the same bits (%.17g): how the numbers
// above are saved.
std::string exact_number(double v);

// The number saved under `key` in a checkpoint's metadata (written with
// %.17g: the same bits); nabla::Error naming `path` and the key otherwise.
double saved_number(const std::string& path, const io::Metadata& saved, const std::string& key);

// A test-only hook: when the environment variable NABLA_TRAIN_KILL_AT_STEP is
// N > 0, the optimizer step with that number (counted from the start of the
// run, resumed steps included) returns true and the caller kills the process
// with SIGKILL — a deterministic "kill in the middle of an epoch"
// (tests/tools/nabla_train_resume_test.cpp). 0 when unset.
int64_t kill_at_step_from_environment();

}  // namespace nabla::tool
