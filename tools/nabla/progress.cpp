// See progress.h. Rates and the ETA come from the epoch's elapsed time and
// the batches done so far: simple and steady after the first few batches.
#include "progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nabla::tool {
namespace {
// ANSI "erase to end of line": a redrawn line shorter than the last leaves no tail.
constexpr const char* kClearToEnd = "\x1b[K";
}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  auto total = static_cast<int64_t>(seconds + 0.5);
  char buf[32];
  if (total >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  return buf;
}

std::string format_progress(const std::string& label, const ProgressStats& s, int bar_width) {
  std::string out = label;
  if (bar_width > 0) {
    int filled = s.total > 0 ? static_cast<int>(bar_width * s.done / s.total) : 0;
    std::string bar(static_cast<std::size_t>(bar_width), ' ');
    for (int i = 0; i < filled; ++i) bar[i] = '=';
    if (filled < bar_width && s.done > 0) bar[filled] = '>';
    out += " [" + bar + "]";
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " %lld/%lld  loss %.4f  acc %.2f%%  %.0f samples/s  ETA %s",
                static_cast<long long>(s.done), static_cast<long long>(s.total), s.loss, 100.0 * s.accuracy,
                s.samples_per_s, format_duration(s.eta_s).c_str());
  return out + buf;
}

ProgressBar::ProgressBar(std::ostream& os, Mode mode, std::string label, int64_t total_batches)
    : os_(os), mode_(mode), label_(std::move(label)), total_(total_batches) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

double ProgressBar::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

ProgressStats ProgressBar::stats(int64_t batches_done, int64_t samples_done, double loss_sum, int64_t correct) const {
  ProgressStats s;
  s.done = batches_done;
  s.total = total_;
  double t = elapsed_s();
  if (samples_done > 0) {
    s.loss = loss_sum / static_cast<double>(samples_done);
    s.accuracy = static_cast<double>(correct) / static_cast<double>(samples_done);
  }
  if (t > 0) s.samples_per_s = static_cast<double>(samples_done) / t;
  if (batches_done > 0) s.eta_s = t / static_cast<double>(batches_done) * static_cast<double>(total_ - batches_done);
  return s;
}

void ProgressBar::update(int64_t batches_done, int64_t samples_done, double loss_sum, int64_t correct) {
  last_ = stats(batches_done, samples_done, loss_sum, correct);
  drew_ = false;
  if (mode_ == Mode::Bar) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(100) && batches_done < total_) return;
    last_draw_ = now;
    os_ << '\r' << format_progress(label_, last_, 30) << kClearToEnd << std::flush;
    drew_ = true;
  } else if (mode_ == Mode::Lines) {
    if (batches_done < next_line_at_ || batches_done == total_) return;  // finish() prints the last one
    next_line_at_ = batches_done + std::max<int64_t>(1, total_ / 10);
    os_ << format_progress(label_, last_, 0) << '\n' << std::flush;
  }
}

void ProgressBar::finish() {
  if (mode_ == Mode::Bar) {
    if (!drew_) os_ << '\r' << format_progress(label_, last_, 30) << kClearToEnd;
    os_ << '\n' << std::flush;
  } else if (mode_ == Mode::Lines) {
    os_ << format_progress(label_, last_, 0) << '\n' << std::flush;
  }
}

}  // namespace nabla::tool
