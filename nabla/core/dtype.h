// Element types, their sizes and names, and the promotion rules of
// NumPy/PyTorch (bool < integers < floating point, wider wins).
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string_view>

#include "nabla/core/half.h"

namespace nabla {

enum class DType : uint8_t { Bool, UInt8, Int32, Int64, Float16, BFloat16, Float32, Float64 };
inline constexpr int kNumDTypes = 8;

inline constexpr DType kBool = DType::Bool;
inline constexpr DType kUInt8 = DType::UInt8;
inline constexpr DType kInt32 = DType::Int32;
inline constexpr DType kInt64 = DType::Int64;
inline constexpr DType kFloat16 = DType::Float16;
inline constexpr DType kBFloat16 = DType::BFloat16;
inline constexpr DType kFloat32 = DType::Float32;
inline constexpr DType kFloat64 = DType::Float64;

std::string_view dtype_name(DType t);  // "float32", ...
std::size_t itemsize(DType t);
inline bool is_floating(DType t) { return t >= DType::Float16; }
inline bool is_integral(DType t, bool include_bool = false) {
  return (t == DType::Bool && include_bool) || t == DType::UInt8 || t == DType::Int32 || t == DType::Int64;
}
inline bool is_reduced_float(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

// Promotion of two dtypes: the higher category wins; within floats the wider.
// float16 with bfloat16 gives float32, as in PyTorch.
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& os, DType t);

// C++ type <-> DType.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct dtype_of<Half> { static constexpr DType value = DType::Float16; };
template <> struct dtype_of<BFloat16> { static constexpr DType value = DType::BFloat16; };
template <> struct dtype_of<float> { static constexpr DType value = DType::Float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::Float64; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

// Calls fn.template operator()<T>() with the C++ type of t.
template <class Fn>
decltype(auto) visit_dtype(DType t, Fn&& fn) {
  switch (t) {
    case DType::Bool: return fn.template operator()<bool>();
    case DType::UInt8: return fn.template operator()<uint8_t>();
    case DType::Int32: return fn.template operator()<int32_t>();
    case DType::Int64: return fn.template operator()<int64_t>();
    case DType::Float16: return fn.template operator()<Half>();
    case DType::BFloat16: return fn.template operator()<BFloat16>();
    case DType::Float32: return fn.template operator()<float>();
    case DType::Float64: break;
  }
  return fn.template operator()<double>();
}

}  // namespace nabla
