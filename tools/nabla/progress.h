// The per-epoch progress display of `nabla train`:
//
//   epoch 1/8 [=========>          ] 469/938  loss 0.4123  acc 85.21%  2310 samples/s  ETA 0:20
//
// On a terminal (Mode::Bar) the line is redrawn in place with '\r' at most
// ten times a second; otherwise (Mode::Lines: a log file, a pipe) a plain line
// is printed every tenth of the epoch, so logs stay short and readable.
#pragma once
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace nabla::tool {

struct ProgressStats {
  int64_t done = 0, total = 0;  // batches
  double loss = 0;              // running mean over the epoch
  double accuracy = 0;          // running fraction correct over the epoch
  double samples_per_s = 0;
  double eta_s = 0;
};

// One progress line without '\r' or '\n'; bar_width 0 leaves the bar out.
std::string format_progress(const std::string& label, const ProgressStats& s, int bar_width);
// "m:ss", or "h:mm:ss" from an hour on.
std::string format_duration(double seconds);

class ProgressBar {
 public:
  enum class Mode { Bar, Lines, None };
  ProgressBar(std::ostream& os, Mode mode, std::string label, int64_t total_batches);
  // After each batch: how many batches and samples are done, and the running
  // loss sum and correct count over those samples.
  void update(int64_t batches_done, int64_t samples_done, double loss_sum, int64_t correct);
  // Ends the epoch's display (the last state, then a newline).
  void finish();
  double elapsed_s() const;

 private:
  ProgressStats stats(int64_t batches_done, int64_t samples_done, double loss_sum, int64_t correct) const;
  std::ostream& os_;
  Mode mode_;
  std::string label_;
  int64_t total_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int64_t next_line_at_ = 0;
  ProgressStats last_;
  bool drew_ = false;
};

}  // namespace nabla::tool
