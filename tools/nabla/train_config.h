// `nabla train --config FILE` and `nabla train --print-config`: a whole
// training run as a JSON file (docs/config.md), Caffe's "train without
// writing code". The file is read into the same TrainConfig the command line
// fills, validated field by field before anything is loaded or trained (an
// error names the file, the field path, what was given and what is allowed),
// and the model's layers are built and shape-checked at once.
#pragma once
#include <string>

#include "cli.h"
#include "nabla/nn/config.h"

namespace nabla::tool {

// The settings of `json`, a training config; `where` names the file in
// errors. Relative data paths are taken relative to `base_dir` (the config
// file's directory; "" leaves them as they are).
TrainConfig parse_train_config(const nn::Json& json, const std::string& where, const std::string& base_dir = "");
// Reads and parses the file at `path` (data paths relative to its directory).
TrainConfig read_train_config(const std::string& path);

// `config` as a training config file: the model as its layers (nn::config),
// every field written. Reading it back gives the same run.
nn::Json train_config_json(const TrainConfig& config);

// What a parsed command line asks for: its own options, or with --config the
// file's settings with the options given beside it on top.
TrainConfig resolve_train_config(const TrainConfig& command_line);

// The model `config` describes: its layers, or the built-in model it names.
nn::ModulePtr build_model(const TrainConfig& config);

}  // namespace nabla::tool
