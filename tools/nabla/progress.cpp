// See progress.h.
#include "progress.h"

#include <cstdio>
#include <vector>

namespace nabla::tool {
namespace {

std::vector<std::string> loss_and_accuracy(double loss, double accuracy) {
  char l[48], a[48];
  std::snprintf(l, sizeof l, "loss %.4f", loss);
  std::snprintf(a, sizeof a, "acc %.2f%%", 100.0 * accuracy);
  return {l, a};
}

}  // namespace

std::string format_progress(const std::string& label, const ProgressStats& s, int bar_width) {
  return train::format_progress(label, s.done, s.total, loss_and_accuracy(s.loss, s.accuracy), s.samples_per_s, s.eta_s,
                                bar_width);
}

void ProgressBar::update(int64_t batches_done, int64_t samples_done, double loss_sum, int64_t correct) {
  double n = static_cast<double>(samples_done);
  bar_.update(
      batches_done, samples_done,
      samples_done > 0 ? loss_and_accuracy(loss_sum / n, static_cast<double>(correct) / n) : loss_and_accuracy(0, 0));
}

}  // namespace nabla::tool
