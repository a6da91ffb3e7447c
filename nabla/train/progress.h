// A progress display for one pass over batches (an epoch of fit(), of
// `nabla train`), as Keras's progbar:
//
//   epoch 1/8 [=========>          ] 469/938  loss 0.4123  acc 85.21%  2310 samples/s  ETA 0:20
//
// On a terminal (Mode::Bar) the line is redrawn in place with '\r' at most
// ten times a second; otherwise (Mode::Lines: a log file, a pipe) a plain line
// is printed every tenth of the epoch, so logs stay short and readable.
// The values shown ("loss 0.4123") are formatted by the caller.
#pragma once
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace nabla::train {

// "m:ss", or "h:mm:ss" from an hour on.
std::string format_duration(double seconds);

// One progress line without '\r' or '\n'; bar_width 0 leaves the bar out.
// `shown` are the caller's "name value" items, each printed after two spaces.
std::string format_progress(const std::string& label, int64_t done, int64_t total,
                            const std::vector<std::string>& shown, double samples_per_s, double eta_s, int bar_width);

class ProgressBar {
 public:
  enum class Mode { Bar, Lines, None };
  ProgressBar(std::ostream& os, Mode mode, std::string label, int64_t total_batches);
  // After each batch: how many batches and samples are done, and the items to show.
  void update(int64_t batches_done, int64_t samples_done, std::vector<std::string> shown);
  // Ends the epoch's display (the last state, then a newline).
  void finish();
  double elapsed_s() const;

 private:
  std::string line(int bar_width) const;
  std::ostream& os_;
  Mode mode_;
  std::string label_;
  int64_t total_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  int64_t next_line_at_ = 0;
  int64_t done_ = 0, samples_ = 0;
  std::vector<std::string> shown_;
  double samples_per_s_ = 0, eta_s_ = 0;
  bool drew_ = false;
};

}  // namespace nabla::train
