// CRC-32C (Castagnoli), the checksum of TFRecord framing, and TensorFlow's
// "masked" form of it. Debian 12 packages no CRC-32C library for C++ (google's
// crc32c is not in bookworm) and zlib's crc32 is the other polynomial, so the
// table-driven algorithm is written out here (tests check RFC 3720's vectors).
#pragma once
#include <cstddef>
#include <cstdint>

namespace nabla::summary {

// CRC-32C of `n` bytes at `data`.
uint32_t crc32c(const void* data, std::size_t n);

// TensorFlow's masked CRC (tensorflow/tsl/lib/hash/crc32c.h, Mask): rotated
// and offset, so that a CRC computed over data that itself holds CRCs does not
// degenerate. TFRecord stores this form.
inline uint32_t mask_crc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

}  // namespace nabla::summary
