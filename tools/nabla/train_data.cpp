// See train_data.h.
#include "train_data.h"

#include <cmath>
#include <filesystem>
#include <numeric>

#include "nabla/data/fashion_mnist.h"
#include "nabla/nabla.h"

namespace nabla::tool {
namespace {

data::DatasetPtr first(data::DatasetPtr d, int64_t limit) {
  if (limit <= 0 || limit >= d->size()) return d;
  std::vector<int64_t> idx(static_cast<std::size_t>(limit));
  std::iota(idx.begin(), idx.end(), int64_t{0});
  return std::make_shared<data::Subset>(d, std::move(idx));
}

void require_file(const std::string& path, const char* what) {
  NABLA_CHECK(std::filesystem::is_regular_file(path), "nabla train: the ", what, " file '", path, "' does not exist");
}

// Class indices as int64, checked to be whole numbers >= 0.
Tensor class_indices(const Tensor& y, const std::string& file) {
  NABLA_CHECK(y.dim() == 1, "nabla train: the class indices in '", file, "' must be 1-D, got shape ", y.sizes());
  Tensor f = y.to(kFloat64).contiguous();
  const double* v = f.data_ptr<double>();
  for (int64_t i = 0; i < f.numel(); ++i)
    NABLA_CHECK(v[i] >= 0 && v[i] == std::floor(v[i]) && v[i] < 1e15, "nabla train: '", file, "' row ", i,
                ": the class index must be a whole number >= 0, got ", v[i]);
  return y.to(kInt64);
}

struct Split {
  Tensor x, y;
};

Split read_split(const DataSpec& d, const std::string& file, const std::string& targets) {
  if (d.format == "npy") {
    require_file(file, "input (.npy)");
    require_file(targets, "class index (.npy)");
    return {data::read_npy(file), class_indices(data::read_npy(targets), targets)};
  }
  if (d.format == "npz") {
    require_file(file, ".npz");
    Tensor x, y;
    for (auto& [name, t] : data::read_npz(file)) {
      if (name == d.x_key) x = t;
      if (name == d.y_key) y = t;
    }
    NABLA_CHECK(x.defined() && y.defined(), "nabla train: '", file, "' needs the arrays '", d.x_key, "' (inputs) and '",
                d.y_key, "' (class indices); set data.x / data.y to other names");
    return {x, class_indices(y, file)};
  }
  require_file(file, "CSV");
  Tensor table = data::read_csv(file, {.header = d.header});
  const int64_t cols = table.size(1);
  NABLA_CHECK(cols >= 2, "nabla train: '", file, "' has ", cols, " column(s); expected inputs and a class column");
  int64_t t = d.target_column < 0 ? d.target_column + cols : d.target_column;
  NABLA_CHECK(t >= 0 && t < cols, "nabla train: data.target_column ", d.target_column, " is not a column of '", file,
              "' (", cols, " columns)");
  std::vector<int64_t> keep;
  for (int64_t c = 0; c < cols; ++c)
    if (c != t) keep.push_back(c);
  Tensor x = table.index_select(1, tensor(keep)).contiguous();
  return {x, class_indices(table.select(1, t).contiguous(), file)};
}

TrainData load_arrays(const TrainConfig& c) {
  const DataSpec& d = c.data_spec;
  Split train = read_split(d, d.train, d.train_targets), test = read_split(d, d.test, d.test_targets);
  TrainData out;
  for (auto [split, file] : {std::pair{&train, d.train}, std::pair{&test, d.test}}) {
    NABLA_CHECK(split->x.dim() >= 2 && split->x.size(0) == split->y.size(0), "nabla train: '", file, "' has inputs of shape ",
                split->x.sizes(), " for ", split->y.size(0), " class indices; expected [N, ...] with N = ",
                split->y.size(0));
    split->x = split->x.to(kFloat32);
    if (d.normalize)
      split->x = (split->x - static_cast<float>(d.normalize->first)) / static_cast<float>(d.normalize->second);
    out.max_label = std::max(out.max_label, split->y.numel() ? split->y.max().item<int64_t>() : -1);
  }
  auto sample = [](const Tensor& x) { return std::vector<int64_t>(x.sizes().begin() + 1, x.sizes().end()); };
  NABLA_CHECK(sample(train.x) == sample(test.x), "nabla train: the training inputs have shape ", train.x.sizes(),
              " but the test inputs ", test.x.sizes());
  out.sample_shape = sample(train.x);
  out.train = first(std::make_shared<data::TensorDataset>(train.x, train.y), c.limit);
  out.test = first(std::make_shared<data::TensorDataset>(test.x, test.y), c.limit);
  out.source = d.train + ", " + d.test;
  return out;
}

}  // namespace

TrainData load_train_data(const TrainConfig& c) {
  if (c.data_spec.format != "idx") return load_arrays(c);
  data::FashionMnist ds = data::load_fashion_mnist(c.data, c.limit);
  TrainData out;
  out.train = ds.train;
  out.test = ds.test;
  auto norm = c.data_spec.normalize.value_or(std::pair<double, double>{0.0, 1.0});
  out.collate = data::image_collate(static_cast<float>(norm.first), static_cast<float>(norm.second));
  const Tensor image = ds.train->get(0).data;
  out.sample_shape = {1, image.size(0), image.size(1)};
  out.source = c.data;
  return out;
}

}  // namespace nabla::tool
