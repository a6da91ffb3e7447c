// TensorFlow's histogram (tensorflow/tsl/lib/histogram/histogram.cc), the one
// TensorBoard's Histograms and Distributions tabs draw: fixed bucket edges
// growing by 10% from 1e-12 to 1e20 on each side of zero, empty runs of
// buckets merged when encoded.
#pragma once
#include <span>
#include <vector>

namespace nabla::summary {

// TensorFlow's default bucket limits: -DBL_MAX, -1e20-ish ... -1e-12, 0,
// 1e-12 ... 1e20-ish, DBL_MAX (1549 edges).
const std::vector<double>& default_bucket_limits();

struct Histogram {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  // bucket[i] counts the values v with bucket_limit[i-1] <= v < bucket_limit[i].
  std::vector<double> bucket_limit;
  std::vector<double> bucket;
};

// The histogram of `values` as TensorFlow encodes it (EncodeToProto with
// preserve_zero_buckets = false). `values` must be non-empty and finite
// (checked by the caller, which knows the API name to report).
Histogram make_histogram(std::span<const double> values);

}  // namespace nabla::summary
