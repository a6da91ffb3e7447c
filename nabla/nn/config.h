// Models as data (Keras's get_config / from_config, Caffe's "no code"):
// config(module) describes a model built from nn's layers as JSON — each
// layer's class name and constructor options — and from_config builds it
// again. config -> model -> config is identical, and the rebuilt model, given
// the same state_dict, computes the same outputs.
//
//   {"class": "Sequential", "layers": [
//     {"class": "Flatten"},
//     {"class": "Linear", "in_features": 784, "out_features": 10}]}
//
// Every field is validated (config_reader.h): errors name `where` (the file),
// the field path (`layers[3].out_features`), what was given and what is
// allowed. Fields left out take PyTorch's defaults; config() writes them all.
// check_shapes() follows a sample shape through the layers before anything
// runs; a mismatch names both layers and the shape between them.
//
// The layers (docs/config.md lists their fields): Linear, Identity, Conv1d,
// Conv2d, ConvTranspose2d, BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm,
// Dropout, ReLU, Tanh, Sigmoid, GELU, LeakyReLU, ELU, SiLU, Softmax,
// LogSoftmax, Flatten, Unflatten, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d,
// Embedding, RNN, LSTM, GRU and Sequential (nesting allowed). A module of
// another class (a user's own) has no config: config() says so.
//
// This is a free function rather than a virtual Module::config() so that
// nn/module.h (and every program including nabla.h) does not need the JSON
// library; only users of this header do.
#pragma once
#include <string>
#include <vector>

#include "nabla/nn/config_reader.h"
#include "nabla/nn/module.h"

namespace nabla::nn {

// The JSON description of `module`; nabla::Error for a class with no config.
Json config(const Module& module);

// Builds the model `config` describes; `where` names the source in errors
// and `path` where the model sits in it ("model" in a training config).
ModulePtr from_config(const Json& config, const std::string& where = "nn::from_config", const std::string& path = "");

// Follows one sample of shape `input_shape` (without the batch dimension:
// [1, 28, 28] for a grayscale image) through the layers of `config` and
// returns the output's shape (also without the batch dimension). A layer that
// cannot take its input raises nabla::Error naming it, the layer before and
// the shape. The config must be valid (from_config checks that first).
std::vector<int64_t> check_shapes(const Json& config, const std::vector<int64_t>& input_shape,
                                  const std::string& where = "nn::check_shapes", const std::string& path = "");

// The same for a built model (nothing is rebuilt, no random numbers drawn).
std::vector<int64_t> check_shapes(const Module& model, const std::vector<int64_t>& input_shape,
                                  const std::string& where, const std::string& path = "");

// The class names from_config knows, sorted.
std::vector<std::string> config_layer_names();

}  // namespace nabla::nn
