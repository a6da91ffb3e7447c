// See fashion_mnist.h.
#include "nabla/data/fashion_mnist.h"

#include <filesystem>
#include <numeric>

#include "nabla/core/error.h"
#include "nabla/data/idx.h"
#include "nabla/ops/factory.h"

namespace nabla::data {
namespace {

bool has_idx(const std::filesystem::path& dir, const std::string& stem) {
  return std::filesystem::exists(dir / stem) || std::filesystem::exists(dir / (stem + ".gz"));
}

DatasetPtr first(DatasetPtr d, int64_t limit) {
  if (limit <= 0 || limit >= d->size()) return d;
  std::vector<int64_t> idx(static_cast<std::size_t>(limit));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  return std::make_shared<Subset>(d, std::move(idx));
}

}  // namespace

FashionMnist load_fashion_mnist(const std::string& dir, int64_t limit) {
  const char* stems[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
                         "t10k-labels-idx1-ubyte"};
  std::string missing;
  for (const char* s : stems)
    if (!has_idx(dir, s)) missing += std::string(missing.empty() ? "" : ", ") + s + "[.gz]";
  NABLA_CHECK(
      missing.empty(), "load_fashion_mnist: Fashion-MNIST was not found in '", dir, "' (missing: ", missing,
      ").\nInstall it with `apt-get install dataset-fashion-mnist` (it goes to "
      "/usr/share/datasets/fashion-mnist), or pass a directory with the four IDX files (nabla train: --data DIR).");
  return {first(load_mnist(dir, true), limit), first(load_mnist(dir, false), limit)};
}

namespace {

Example collate_images(std::vector<Example> examples, float mean, float std) {
  NABLA_CHECK(!examples.empty(), "collate_normalized: got an empty batch");
  const Tensor& first_image = examples[0].data;
  NABLA_CHECK(first_image.dim() == 2 && first_image.dtype() == kUInt8, "collate_normalized: expected uint8 images ",
              "[H, W], got ", first_image.dtype(), " ", first_image.sizes());
  const int64_t B = static_cast<int64_t>(examples.size()), H = first_image.size(0), W = first_image.size(1);
  Tensor x = empty({B, 1, H, W}, kFloat32);
  Tensor y = empty({B}, kInt64);
  float* out = x.data_ptr<float>();
  int64_t* labels = y.data_ptr<int64_t>();
  const float scale = 1.0f / (255.0f * std), shift = mean / std;
  for (int64_t b = 0; b < B; ++b) {
    const Example& e = examples[static_cast<std::size_t>(b)];
    NABLA_CHECK(e.data.sizes() == first_image.sizes() && e.data.dtype() == kUInt8, "collate_normalized: image ", b,
                " is ", e.data.dtype(), " ", e.data.sizes(), ", expected uint8 ", first_image.sizes());
    Tensor img = e.data.contiguous();
    const uint8_t* in = img.data_ptr<uint8_t>();
    for (int64_t i = 0; i < H * W; ++i) out[b * H * W + i] = static_cast<float>(in[i]) * scale - shift;
    labels[b] = e.target.to(kInt64).item<int64_t>();
  }
  return {x, y};
}

}  // namespace

Example collate_normalized(std::vector<Example> examples) {
  return collate_images(std::move(examples), kFashionMean, kFashionStd);
}

CollateFn image_collate(float mean, float std) {
  return [mean, std](std::vector<Example> examples) { return collate_images(std::move(examples), mean, std); };
}

}  // namespace nabla::data
