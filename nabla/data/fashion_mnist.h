// Fashion-MNIST (used by `nabla train`, nabla::train examples): finding the files (with a message that
// says how to install them when they are missing) and turning batches of
// uint8 images into normalized float tensors.
#pragma once
#include <string>

#include "nabla/data/dataloader.h"
#include "nabla/data/dataset.h"

namespace nabla::data {

// The dataset's mean and standard deviation of pixel/255 over the 60000
// training images (the usual torchvision Normalize constants).
inline constexpr float kFashionMean = 0.2860f, kFashionStd = 0.3530f;

struct FashionMnist {
  DatasetPtr train, test;
};

// Loads train-* and t10k-* IDX files (plain or .gz) from `dir`, keeping only
// the first `limit` samples of each when limit > 0. Missing files raise
// nabla::Error telling how to install the dataset or point --data at it.
FashionMnist load_fashion_mnist(const std::string& dir, int64_t limit = 0);

// A DataLoader collate: uint8 images [H, W] -> float [B, 1, H, W] holding
// (x / 255 - mean) / std, int64 labels -> [B]. One pass over the bytes, run by
// the loader's worker threads so it overlaps the training step.
Example collate_normalized(std::vector<Example> examples);

// The same with another mean and std (pixel/255 statistics): a config file's
// normalize transform; mean 0, std 1 gives pixel/255.
CollateFn image_collate(float mean, float std);

}  // namespace nabla::data
