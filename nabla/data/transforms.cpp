// See transforms.h. Each transform is a few nabla ops on one sample; the
// checks name the transform, the shape or dtype given and what was expected.
#include "nabla/data/transforms.h"

#include <sstream>

#include "nabla/core/error.h"
#include "nabla/core/random.h"
#include "nabla/data/sample_context.h"
#include "nabla/nabla.h"

namespace nabla::data {

uint32_t SampleRng::next_u32() {
  if (used_ == 4) {
    auto b = Philox::block({draw_++, uint32_t(index_), uint32_t(index_ >> 32), uint32_t(epoch_)},
                           {uint32_t(seed_), uint32_t(seed_ >> 32)});
    for (int i = 0; i < 4; ++i) block_[i] = b[static_cast<std::size_t>(i)];
    used_ = 0;
  }
  return block_[used_++];
}

double SampleRng::uniform() {
  uint32_t hi = next_u32();
  return Philox::to_unit_double(hi, next_u32());
}

int64_t SampleRng::integer(int64_t lo, int64_t high) {
  NABLA_CHECK(high > lo, "SampleRng::integer: empty range [", lo, ", ", high, ")");
  uint64_t x = (uint64_t(next_u32()) << 32) | next_u32();
  return lo + static_cast<int64_t>(x % uint64_t(high - lo));  // bias below range / 2^64
}

Tensor Transform::operator()(const Tensor& x) const {
  SampleRng rng(0, 0, 0);
  return (*this)(x, rng);
}

namespace {

void check_image(const Tensor& x, const std::string& api, bool allow_2d) {
  NABLA_CHECK(x.defined(), api, ": got an undefined tensor");
  NABLA_CHECK(x.dim() == 3 || (allow_2d && x.dim() == 2), api, ": expected an image [C, H, W]",
              allow_2d ? " or [H, W]" : "", ", got shape ", x.sizes());
}

class ToFloat : public Transform {
 public:
  Tensor operator()(const Tensor& x, SampleRng&) const override {
    check_image(x, "to_float", true);
    Tensor img = x.dim() == 2 ? x.unsqueeze(0) : x;
    if (is_floating(img.dtype())) return img;
    NABLA_CHECK(img.dtype() == kUInt8, "to_float: expected a uint8 or floating image, got ", img.dtype());
    return img.to(kFloat32) / 255.0;
  }
  std::string name() const override { return "ToFloat"; }
};

class Normalize : public Transform {
 public:
  Normalize(std::vector<double> mean, std::vector<double> std) : mean_(std::move(mean)), std_(std::move(std)) {
    NABLA_CHECK(!mean_.empty() && mean_.size() == std_.size(), "normalize: mean has ", mean_.size(), " values and std ",
                std_.size(), ", expected the same non-zero count");
    for (double s : std_) NABLA_CHECK(s != 0, "normalize: std has a zero, ", std_, ", which would divide by zero");
  }
  Tensor operator()(const Tensor& x, SampleRng&) const override {
    check_image(x, "normalize", false);
    NABLA_CHECK(is_floating(x.dtype()), "normalize: expected a floating image (use to_float first), got ", x.dtype());
    const auto n = static_cast<int64_t>(mean_.size());
    NABLA_CHECK(n == 1 || n == x.size(0), "normalize: ", n, " means for an image of ", x.size(0), " channels (shape ",
                x.sizes(), "), expected 1 or ", x.size(0));
    Tensor mean = tensor(mean_).to(x.dtype()).reshape({n, 1, 1});
    Tensor std = tensor(std_).to(x.dtype()).reshape({n, 1, 1});
    return (x - mean) / std;
  }
  std::string name() const override { return "Normalize"; }

 private:
  std::vector<double> mean_, std_;
};

class RandomCrop : public Transform {
 public:
  RandomCrop(int64_t size, int64_t padding) : size_(size), padding_(padding) {
    NABLA_CHECK(size >= 1 && padding >= 0, "random_crop: expected size >= 1 and padding >= 0, got size ", size,
                ", padding ", padding);
  }
  Tensor operator()(const Tensor& x, SampleRng& rng) const override {
    check_image(x, "random_crop", true);
    Tensor img = padding_ > 0 ? pad(x, {padding_, padding_, padding_, padding_}) : x;
    const int64_t h = img.size(-2), w = img.size(-1);
    NABLA_CHECK(h >= size_ && w >= size_, "random_crop: a ", size_, "x", size_, " crop of an image of shape ",
                x.sizes(), " padded by ", padding_, " (", h, "x", w, ") does not fit");
    int64_t top = rng.integer(0, h - size_ + 1);
    int64_t left = rng.integer(0, w - size_ + 1);
    return img.narrow(-2, top, size_).narrow(-1, left, size_).contiguous();
  }
  std::string name() const override { return "RandomCrop"; }

 private:
  int64_t size_, padding_;
};

class RandomHorizontalFlip : public Transform {
 public:
  explicit RandomHorizontalFlip(double p) : p_(p) {
    NABLA_CHECK(p >= 0 && p <= 1, "random_horizontal_flip: expected p in [0, 1], got ", p);
  }
  Tensor operator()(const Tensor& x, SampleRng& rng) const override {
    check_image(x, "random_horizontal_flip", true);
    return rng.uniform() < p_ ? x.flip({-1}) : x;
  }
  std::string name() const override { return "RandomHorizontalFlip"; }

 private:
  double p_;
};

class Compose : public Transform {
 public:
  explicit Compose(std::vector<TransformPtr> ts) : ts_(std::move(ts)) {
    for (std::size_t i = 0; i < ts_.size(); ++i) NABLA_CHECK(ts_[i] != nullptr, "compose: transform ", i, " is null");
  }
  Tensor operator()(const Tensor& x, SampleRng& rng) const override {
    Tensor y = x;
    for (const auto& t : ts_) y = (*t)(y, rng);
    return y;
  }
  std::string name() const override { return "Compose"; }

 private:
  std::vector<TransformPtr> ts_;
};

}  // namespace

TransformPtr to_float() { return std::make_shared<ToFloat>(); }
TransformPtr normalize(std::vector<double> mean, std::vector<double> std) {
  return std::make_shared<Normalize>(std::move(mean), std::move(std));
}
TransformPtr random_crop(int64_t size, int64_t padding) { return std::make_shared<RandomCrop>(size, padding); }
TransformPtr random_horizontal_flip(double p) { return std::make_shared<RandomHorizontalFlip>(p); }
TransformPtr compose(std::vector<TransformPtr> transforms) { return std::make_shared<Compose>(std::move(transforms)); }

TransformDataset::TransformDataset(DatasetPtr dataset, TransformPtr transform)
    : dataset_(std::move(dataset)), transform_(std::move(transform)) {
  NABLA_CHECK(dataset_ != nullptr, "TransformDataset: dataset is null");
  NABLA_CHECK(transform_ != nullptr, "TransformDataset: transform is null");
}

Example TransformDataset::get(int64_t index) const {
  Example e = dataset_->get(index);
  SampleContext ctx = current_sample_context();
  SampleRng rng(ctx.seed, ctx.epoch, static_cast<uint64_t>(index));
  e.data = (*transform_)(e.data, rng);
  return e;
}

std::shared_ptr<TransformDataset> transform(DatasetPtr dataset, TransformPtr t) {
  return std::make_shared<TransformDataset>(std::move(dataset), std::move(t));
}

}  // namespace nabla::data
