// See progress.h. Rates and the ETA come from the epoch's elapsed time and
// the batches done so far: simple and steady after the first few batches.
#include "nabla/train/progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nabla::train {
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

std::string format_progress(const std::string& label, int64_t done, int64_t total,
                            const std::vector<std::string>& shown, double samples_per_s, double eta_s, int bar_width) {
  std::string out = label;
  if (bar_width > 0) {
    int filled = total > 0 ? static_cast<int>(bar_width * done / total) : 0;
    std::string bar(static_cast<std::size_t>(bar_width), ' ');
    for (int i = 0; i < filled; ++i) bar[i] = '=';
    if (filled < bar_width && done > 0) bar[filled] = '>';
    out += " [" + bar + "]";
  }
  out += " " + std::to_string(done) + "/" + std::to_string(total);
  for (const std::string& s : shown) out += "  " + s;
  char buf[80];
  std::snprintf(buf, sizeof buf, "  %.0f samples/s  ETA %s", samples_per_s, format_duration(eta_s).c_str());
  return out + buf;
}

ProgressBar::ProgressBar(std::ostream& os, Mode mode, std::string label, int64_t total_batches)
    : os_(os), mode_(mode), label_(std::move(label)), total_(total_batches) {
  start_ = last_draw_ = std::chrono::steady_clock::now();
}

double ProgressBar::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string ProgressBar::line(int bar_width) const {
  return format_progress(label_, done_, total_, shown_, samples_per_s_, eta_s_, bar_width);
}

void ProgressBar::update(int64_t batches_done, int64_t samples_done, std::vector<std::string> shown) {
  if (mode_ == Mode::None) return;
  done_ = batches_done;
  samples_ = samples_done;
  shown_ = std::move(shown);
  double t = elapsed_s();
  samples_per_s_ = t > 0 ? static_cast<double>(samples_done) / t : 0;
  eta_s_ = batches_done > 0 ? t / static_cast<double>(batches_done) * static_cast<double>(total_ - batches_done) : 0;
  drew_ = false;
  if (mode_ == Mode::Bar) {
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(100) && batches_done < total_) return;
    last_draw_ = now;
    os_ << '\r' << line(30) << kClearToEnd << std::flush;
    drew_ = true;
  } else if (mode_ == Mode::Lines) {
    if (batches_done < next_line_at_ || batches_done == total_) return;  // finish() prints the last one
    next_line_at_ = batches_done + std::max<int64_t>(1, total_ / 10);
    os_ << line(0) << '\n' << std::flush;
  }
}

void ProgressBar::finish() {
  if (mode_ == Mode::Bar) {
    if (!drew_) os_ << '\r' << line(30) << kClearToEnd;
    os_ << '\n' << std::flush;
  } else if (mode_ == Mode::Lines) {
    os_ << line(0) << '\n' << std::flush;
  }
}

}  // namespace nabla::train
