// See check_options.h.
#include "nabla/zoo/check_options.h"

#include "nabla/core/error.h"

namespace nabla::zoo::detail {

CheckedOptions check_options(const char* model, const ModelOptions& options, int64_t default_num_classes,
                             int64_t default_in_channels, double default_dropout, bool takes_width_mult) {
  CheckedOptions c{options.num_classes.value_or(default_num_classes),
                   options.in_channels.value_or(default_in_channels), options.dropout.value_or(default_dropout)};
  NABLA_CHECK(c.num_classes >= 1, "zoo::", model, ": num_classes must be at least 1, got ", c.num_classes);
  NABLA_CHECK(c.in_channels >= 1, "zoo::", model, ": in_channels must be at least 1, got ", c.in_channels);
  NABLA_CHECK(default_dropout >= 0 || !options.dropout, "zoo::", model, " has no dropout, but dropout = ",
              *options.dropout, " was given");
  NABLA_CHECK(default_dropout < 0 || (c.dropout >= 0 && c.dropout <= 1), "zoo::", model,
              ": dropout must be in [0, 1], got ", c.dropout);
  NABLA_CHECK(takes_width_mult || options.width_mult == 1.0, "zoo::", model,
              " has no width multiplier, but width_mult = ", options.width_mult, " was given (only mobilenet_v2 takes it)");
  NABLA_CHECK(!takes_width_mult || options.width_mult > 0, "zoo::", model, ": width_mult must be positive, got ",
              options.width_mult);
  return c;
}

}  // namespace nabla::zoo::detail
