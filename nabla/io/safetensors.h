// Named tensors in the safetensors format (https://github.com/huggingface/safetensors),
// readable and writable by Python's `safetensors` package.
//
// Layout: 8-byte little-endian header length N; N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "value"}}
// padded with spaces to a multiple of 8; then the tensors' raw little-endian,
// row-major bytes (offsets count from the end of the header).
// dtypes: F64 F32 F16 BF16 I64 I32 U8 BOOL.
//
// save_safetensors writes atomically (AtomicFile): a failed save leaves an
// existing file untouched. Non-contiguous tensors are written contiguously,
// tensors on other devices are copied to the CPU one at a time.
// load_safetensors validates the whole header (lengths, dtypes, shapes,
// offsets that fill the data section without gaps or overlaps, as Python's
// safetensors requires; unique names) before reading any data and raises
// nabla::Error naming the file and the field. Loading never executes
// anything from the file.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::io {

// Ordered (name, tensor) pairs: saved in this order; loaded in the order of
// the file's header. Names must be unique and not "__metadata__".
using TensorDict = std::vector<std::pair<std::string, Tensor>>;
// The header's "__metadata__": free-form string to string.
using Metadata = std::map<std::string, std::string>;

void save_safetensors(const std::string& path, const TensorDict& tensors, const Metadata& metadata = {});
TensorDict load_safetensors(const std::string& path, Metadata* metadata = nullptr);

// The tensor called `name` in `dict`, or nabla::Error listing the names.
const Tensor& get(const TensorDict& dict, const std::string& name);

}  // namespace nabla::io
