// NumPy .npy files (format versions 1.0, 2.0 and 3.0), read and written.
//
// dtypes: '|b1' bool, '|u1' uint8, 'i4' int32, 'i8' int64, 'f2' float16,
// 'f4' float32, 'f8' float64, little- or big-endian ('<', '>', '='); C or
// Fortran order (a Fortran-order array is returned as a contiguous tensor with
// the same values). write_npy writes version 1.0, little-endian, C order;
// bfloat16 has no NumPy dtype and is refused; the write is atomic
// (AtomicFile). Malformed or truncated files raise nabla::Error naming
// the file.
#pragma once
#include <string>
#include <string_view>

#include "nabla/core/tensor.h"

namespace nabla::data {

Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& tensor);

// The same format in memory (the members of .npz archives, npz.h): `where`
// names the bytes in errors.
Tensor parse_npy(std::string_view bytes, const std::string& where);
std::string encode_npy(const Tensor& tensor);

}  // namespace nabla::data
