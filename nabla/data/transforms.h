// Per-sample transforms (torchvision.transforms) and a dataset that applies
// one to every sample's data:
//
//   auto train = data::transform(data::load_mnist(dir),
//       data::compose({data::to_float(), data::random_crop(28, 4), data::random_horizontal_flip(),
//                      data::normalize({0.2860}, {0.3530})}));
//   DataLoader loader(train, {.batch_size = 64, .shuffle = true, .seed = 7, .num_workers = 2});
//
// Images are [C, H, W] (or [H, W], which to_float makes [1, H, W]).
// Randomness: a transform draws from a SampleRng, a Philox stream keyed by
// (loader seed, epoch, sample index) taken from the SampleContext the
// DataLoader sets (sample_context.h) — the same seed gives the same samples for
// any num_workers, each epoch gives new ones, and nothing depends on the
// global generator or on thread timing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "nabla/data/dataset.h"

namespace nabla::data {

// Random numbers for one sample: Philox4x32-10 keyed by the seed, counter
// (draw, index, epoch). Cheap to create; not shared between samples.
class SampleRng {
 public:
  SampleRng(uint64_t seed, uint64_t epoch, uint64_t index) : seed_(seed), epoch_(epoch), index_(index) {}
  uint32_t next_u32();
  double uniform();                           // [0, 1), 53 bits
  int64_t integer(int64_t lo, int64_t high);  // uniform in [lo, high)

 private:
  uint64_t seed_, epoch_, index_;
  uint32_t draw_ = 0;
  uint32_t block_[4] = {};
  int used_ = 4;
};

class Transform {
 public:
  virtual ~Transform() = default;
  virtual Tensor operator()(const Tensor& x, SampleRng& rng) const = 0;
  // Deterministic use outside a dataset: rng (seed 0, epoch 0, index 0).
  Tensor operator()(const Tensor& x) const;
  virtual std::string name() const = 0;
};
using TransformPtr = std::shared_ptr<const Transform>;

// uint8 [C, H, W] or [H, W] -> float32 [C, H, W] / 255 in [0, 1] (torchvision's
// ToTensor, without its HWC -> CHW move: nabla images are already CHW).
// Floating inputs are only given the channel dim.
TransformPtr to_float();
// (x[c] - mean[c]) / std[c] on a floating [C, H, W] image; one mean and std
// apply to every channel. std must be non-zero.
TransformPtr normalize(std::vector<double> mean, std::vector<double> std);
// Pads every side with `padding` zeros, then cuts a random size x size window
// (torchvision RandomCrop(size, padding), fill 0, pad_if_needed false).
TransformPtr random_crop(int64_t size, int64_t padding = 0);
// Mirrors the last dim (width) with probability p.
TransformPtr random_horizontal_flip(double p = 0.5);
// Applies the transforms in order, all drawing from the same SampleRng.
TransformPtr compose(std::vector<TransformPtr> transforms);

// Sample i is {transform(dataset[i].data), dataset[i].target}.
class TransformDataset : public Dataset {
 public:
  TransformDataset(DatasetPtr dataset, TransformPtr transform);
  int64_t size() const override { return dataset_->size(); }
  Example get(int64_t index) const override;

 private:
  DatasetPtr dataset_;
  TransformPtr transform_;
};

std::shared_ptr<TransformDataset> transform(DatasetPtr dataset, TransformPtr transform);

}  // namespace nabla::data
