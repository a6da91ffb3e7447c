// The state a callback or a metric gives a backup of the run
// (BackupAndRestore) is an nn::StateDict, as a module's is. Numbers go in as
// float64 scalars: exact for every double (inf and NaN included) and for
// integers up to 2^53.
#pragma once
#include <string>

#include "nabla/nn/state_dict.h"

namespace nabla::train {

Tensor state_number(double value);
// state[key] as a number, or nabla::Error naming `api` and the key when it is
// missing or not a single number.
double state_number(const nn::StateDict& state, const std::string& key, const char* api);
// The entries of `state` whose names start with prefix, without it ("metric.0." -> the metric's own).
nn::StateDict state_part(const nn::StateDict& state, const std::string& prefix);

}  // namespace nabla::train
