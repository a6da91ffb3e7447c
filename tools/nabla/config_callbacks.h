// A training config's "metrics" and "callbacks" (docs/config.md): the names
// make_metric takes and the nabla/train callbacks `nabla train` adds to
// fit()'s own, each field validated with errors naming the file and the field
// path ("callbacks[1].patience").
#pragma once
#include <string>
#include <vector>

#include "nabla/nn/config.h"
#include "nabla/train/trainer.h"

namespace nabla::tool {

// The metrics of "metrics" besides the "loss" and "accuracy" nabla train
// always reports, as make_metric names ("top_5_accuracy", "f1"), in order.
std::vector<std::string> read_config_metrics(const nn::Json& metrics, const std::string& where);

// The callbacks `callbacks` (a "callbacks" array) describes, built now (so
// every value is checked by the callback itself too). `metrics` are the extra
// metric names (monitors may name them, and "val_" ones), `schedule` the
// run's ("cosine" sets lr every batch: reduce_lr_on_plateau is refused with it).
std::vector<train::CallbackSpec> build_config_callbacks(const nn::Json& callbacks, const std::string& where,
                                                        const std::vector<std::string>& metrics,
                                                        const std::string& schedule);

}  // namespace nabla::tool
