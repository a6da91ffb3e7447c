// The data of `nabla train`, from a DataSpec (cli.h; a config file's "data"):
// IDX image files (Fashion-MNIST, MNIST), .npz, .npy pairs or CSV files, with
// the normalize transform, as training and test datasets of (input, class
// index) pairs and the collate that batches them.
#pragma once
#include <string>
#include <vector>

#include "cli.h"
#include "nabla/data/data.h"

namespace nabla::tool {

struct TrainData {
  data::DatasetPtr train, test;
  data::CollateFn collate;
  std::string source;                 // for the "data:" line: the directory or files
  std::vector<int64_t> sample_shape;  // one input as the model sees it (without the batch dimension)
  int64_t max_label = -1;             // the largest class index (-1: not scanned, IDX)
};

// Loads what `config` names (config.data_spec; IDX: config.data), keeping the
// first config.limit samples of each split when limit > 0. A missing file, a
// fractional or negative class index, or inputs of different shapes raise
// nabla::Error naming the file.
TrainData load_train_data(const TrainConfig& config);

}  // namespace nabla::tool
