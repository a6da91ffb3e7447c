// IDX files (the MNIST / Fashion-MNIST format), plain or gzip-compressed.
//
// Layout: two zero bytes, a type code, the number of dims d, d big-endian
// uint32 sizes, then the values big-endian in row-major order. Type codes:
// 0x08 uint8 -> kUInt8, 0x0C int32 -> kInt32, 0x0D float32 -> kFloat32,
// 0x0E float64 -> kFloat64 (0x09 int8 and 0x0B int16 have no nabla dtype).
// Bad magic, unknown types, a file shorter (or longer) than its header says, or
// a corrupt gzip stream raise nabla::Error naming the file.
#pragma once
#include <string>

#include "nabla/core/tensor.h"
#include "nabla/data/dataset.h"

namespace nabla::data {

Tensor read_idx(const std::string& path);

// MNIST-style dataset from `dir`: {prefix}-images-idx3-ubyte[.gz] and
// {prefix}-labels-idx1-ubyte[.gz] with prefix "train" or "t10k". Data: uint8
// [N, 28, 28]; target: int64 [N].
std::shared_ptr<TensorDataset> load_mnist(const std::string& dir, bool train = true);

}  // namespace nabla::data
