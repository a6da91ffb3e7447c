// Validation of ModelOptions shared by the zoo's models: each names the model
// the user asked for and the option that is out of range.
#pragma once
#include "nabla/zoo/options.h"

namespace nabla::zoo::detail {

struct CheckedOptions {
  int64_t num_classes, in_channels;
  double dropout;
};

// Fills the unset options from the model's defaults and checks them:
// num_classes and in_channels >= 1, dropout in [0, 1] (default_dropout < 0:
// the model has no dropout, so a given one is an error), width_mult 1 unless
// the model takes it.
CheckedOptions check_options(const char* model, const ModelOptions& options, int64_t default_num_classes,
                             int64_t default_in_channels, double default_dropout, bool takes_width_mult = false);

}  // namespace nabla::zoo::detail
