// Helpers shared by the indexing/join/sort test files: int64 index and bool
// mask tensors from literals, seeded random valid indices (host-side
// std::mt19937, independent of nabla's generator), and a check that an
// expression throws nabla::Error with a message naming what it should.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "support/op_info.h"

namespace nabla::testing {

inline Tensor ints(const std::vector<int64_t>& v, const Shape& shape) { return tensor(v, shape); }
inline Tensor ints(const std::vector<int64_t>& v) { return tensor(v, {static_cast<int64_t>(v.size())}); }
inline Tensor mask_of(const std::vector<int64_t>& v, const Shape& shape) { return tensor(v, shape).to(kBool); }

inline int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Indices in [0, high) of `shape` (duplicates allowed).
inline Tensor random_index(const Shape& shape, int64_t high, uint64_t seed, int64_t low = 0) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> v(static_cast<std::size_t>(numel_of(shape)));
  for (auto& e : v) e = low + static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low));
  return tensor(v, shape);
}

// Indices of `shape` in [0, high) that never repeat along `dim` (so scatter
// has one writer per target and its gradient is well defined).
inline Tensor unique_index(const Shape& shape, int64_t dim, int64_t high, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int64_t> v(static_cast<std::size_t>(numel_of(shape)));
  Shape line = shape;
  line[dim] = 1;
  for (int64_t l = 0; l < numel_of(line); ++l) {
    std::vector<int64_t> perm(static_cast<std::size_t>(high));
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    auto p = unravel(l, line);
    for (int64_t j = 0; j < shape[dim]; ++j) {
      p[dim] = j;
      v[ravel(p, shape)] = perm[j];
    }
  }
  return tensor(v, shape);
}

inline std::vector<int64_t> int_values(const Tensor& t) { return t.detach().to_vector<int64_t>(); }

// The entry with its floating outputs squared. The ops here are linear in
// their data inputs, so their own gradgradcheck only sees zeros; squaring
// makes the gradient flowing into the rule depend on the inputs, so the
// double backward runs through each rule's own gradient (gather's grad is
// scatter_add, whose grad is gather, ...).
inline OpInfo squared(OpInfo info) {
  info.name += "_squared";
  auto sq = [](Tensors outs) {
    for (Tensor& o : outs)
      if (is_floating(o.dtype())) o = o * o;
    return outs;
  };
  info.run = [run = info.run, sq](const Tensors& in) { return sq(run(in)); };
  info.reference = [ref = info.reference, sq](const Tensors& in) { return sq(ref(in)); };
  return info;
}

// Registers the squared variant too, and returns the entry itself:
// NABLA_OP_INFO(with_squared(entry(...))).
inline OpInfo with_squared(OpInfo info) {
  op_infos().push_back(squared(info));
  return info;
}

// Runs f and returns the message of the nabla::Error it throws ("" if none).
template <class F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace nabla::testing

// EXPECT_THROW(stmt, nabla::Error), and each substring must be in the message.
#define EXPECT_ERROR(stmt, ...)                                                            \
  do {                                                                                     \
    EXPECT_THROW(stmt, ::nabla::Error);                                                    \
    std::string msg_ = ::nabla::testing::error_message([&] { stmt; });                     \
    for (const std::string& part_ : std::vector<std::string>{__VA_ARGS__})                \
      EXPECT_NE(msg_.find(part_), std::string::npos) << "message \"" << msg_ << "\" lacks \"" << part_ << "\""; \
  } while (0)
