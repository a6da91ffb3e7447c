// `nabla evaluate` and `nabla predict` (Caffe's test and deploy) on
// train::Trainer::evaluate and predict: the model a training config describes
// (train_config.h), with the weights of a checkpoint that `nabla train` (or
// train::ModelCheckpoint) wrote.
#pragma once
#include <ostream>

#include "cli.h"

namespace nabla::tool {

// Prints the loss and accuracy over the test data. A missing checkpoint, or
// one of another model, raises nabla::Error naming the file.
void run_evaluate(const InferConfig& config, std::ostream& out);

// Writes the model's outputs for config.input to config.output (.npy, or .npz
// with the classes). Inputs that do not fit the model raise nabla::Error
// naming the file and the layer.
void run_predict(const InferConfig& config, std::ostream& out);

}  // namespace nabla::tool
