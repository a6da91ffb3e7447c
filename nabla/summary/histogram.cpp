#include "nabla/summary/histogram.h"

#include <algorithm>
#include <cfloat>

namespace nabla::summary {

const std::vector<double>& default_bucket_limits() {
  static const std::vector<double> limits = [] {
    std::vector<double> pos;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) pos.push_back(v);
    pos.push_back(DBL_MAX);
    std::vector<double> all;
    all.reserve(2 * pos.size() + 1);
    for (auto it = pos.rbegin(); it != pos.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), pos.begin(), pos.end());
    return all;
  }();
  return limits;
}

Histogram make_histogram(std::span<const double> values) {
  const std::vector<double>& limits = default_bucket_limits();
  std::vector<double> counts(limits.size(), 0.0);
  Histogram h;
  h.min = DBL_MAX;
  h.max = -DBL_MAX;
  for (double v : values) {
    auto b = std::upper_bound(limits.begin(), limits.end(), v) - limits.begin();
    if (b == static_cast<long>(limits.size())) --b;  // v == DBL_MAX: TensorFlow's last bucket
    counts[static_cast<std::size_t>(b)] += 1;
    h.min = std::min(h.min, v);
    h.max = std::max(h.max, v);
    h.num += 1;
    h.sum += v;
    h.sum_squares += v * v;
  }
  // Runs of empty buckets become one bucket ending at the run's last limit.
  for (std::size_t i = 0; i < counts.size();) {
    double end = limits[i];
    double count = counts[i];
    std::size_t j = i + 1;
    while (count == 0 && j < counts.size() && counts[j] == 0) {
      end = limits[j];
      count = counts[j];
      ++j;
    }
    h.bucket_limit.push_back(end);
    h.bucket.push_back(count);
    i = j;
  }
  return h;
}

}  // namespace nabla::summary
