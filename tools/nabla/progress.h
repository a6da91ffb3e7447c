// The per-epoch progress display of `nabla train`: nabla/train/progress.h's
// ProgressBar showing the running loss and accuracy of the epoch:
//
//   epoch 1/8 [=========>          ] 469/938  loss 0.4123  acc 85.21%  2310 samples/s  ETA 0:20
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "nabla/train/progress.h"

namespace nabla::tool {

using train::format_duration;

struct ProgressStats {
  int64_t done = 0, total = 0;  // batches
  double loss = 0;              // running mean over the epoch
  double accuracy = 0;          // running fraction correct over the epoch
  double samples_per_s = 0;
  double eta_s = 0;
};

// One progress line without '\r' or '\n'; bar_width 0 leaves the bar out.
std::string format_progress(const std::string& label, const ProgressStats& s, int bar_width);

class ProgressBar {
 public:
  using Mode = train::ProgressBar::Mode;
  ProgressBar(std::ostream& os, Mode mode, std::string label, int64_t total_batches)
      : bar_(os, mode, std::move(label), total_batches) {}
  // After each batch: how many batches and samples are done, and the running
  // loss sum and correct count over those samples.
  void update(int64_t batches_done, int64_t samples_done, double loss_sum, int64_t correct);
  void finish() { bar_.finish(); }
  double elapsed_s() const { return bar_.elapsed_s(); }

 private:
  train::ProgressBar bar_;
};

}  // namespace nabla::tool
