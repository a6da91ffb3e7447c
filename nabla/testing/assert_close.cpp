// assert_close: PyTorch 1.13's torch.testing.assert_close (testing/_comparison.py),
// message for message. Values are compared on the CPU in float64 (floating
// dtypes) or int64 (integers and bool), as PyTorch's _promote_for_comparison
// does, so a float32 difference prints as its float64 value
// (0.10000000149011612), exactly as PyTorch prints it.
#include "nabla/testing/assert_close.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::testing {
namespace {

constexpr const char* kApi = "assert_close";

// Python's repr(float): the shortest digits that round-trip, in fixed
// notation for exponents -4..15 ("0.5", "100352.0"), else scientific with at
// least two exponent digits ("1e-05", "1.3e-06", "1e+16").
std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  const std::size_t e = s.find('e');
  std::string sign = s[0] == '-' ? "-" : "";
  std::string digits;
  for (std::size_t i = sign.size(); i < e; ++i)
    if (s[i] != '.') digits += s[i];
  const int exp = std::stoi(s.substr(e + 1));
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return sign + "0." + std::string(static_cast<std::size_t>(-exp - 1), '0') + digits;
    const auto point = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= point) return sign + digits + std::string(point - digits.size(), '0') + ".0";
    return sign + digits.substr(0, point) + "." + digits.substr(point);
  }
  std::string mant = digits.size() == 1 ? digits : digits.substr(0, 1) + "." + digits.substr(1);
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
  return sign + mant + ebuf;
}

// Python's repr of an index tuple: "(1, 2)", "(3,)".
std::string py_index(const Shape& sizes, int64_t flat) {
  std::vector<int64_t> idx(sizes.size());
  for (std::size_t d = sizes.size(); d-- > 0;) {
    idx[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  std::string s = "(";
  for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
  return s + (idx.size() == 1 ? ",)" : ")");
}

// torch.isclose on float64 values: equal values (infinities included) are
// close, NaN only to NaN with equal_nan, non-finite values only when equal.
bool is_close(double a, double e, double rtol, double atol, bool equal_nan) {
  if (a == e) return true;
  if (std::isnan(a) || std::isnan(e)) return equal_nan && std::isnan(a) && std::isnan(e);
  if (!std::isfinite(a) || !std::isfinite(e)) return false;
  return std::fabs(a - e) <= atol + rtol * std::fabs(e);
}

[[noreturn]] void fail(const CloseOptions& o, const std::string& what) {
  throw Error(::nabla::detail::concat(kApi, ": ", o.msg.empty() ? "" : o.msg + ": ", what));
}

void check_attributes(const Tensor& a, const Tensor& e, const CloseOptions& o) {
  auto mismatch = [&](const char* attr, const auto& av, const auto& ev) {
    fail(o, ::nabla::detail::concat("The values for attribute '", attr, "' do not match: ", av, " != ", ev, "."));
  };
  if (a.sizes() != e.sizes()) mismatch("shape", a.sizes(), e.sizes());
  if (o.check_device && a.device() != e.device()) mismatch("device", a.device(), e.device());
  if (o.check_dtype && a.dtype() != e.dtype()) mismatch("dtype", a.dtype(), e.dtype());
}

// The differences PyTorch reports, over the mismatched elements only: the
// greatest absolute and relative difference (first index on ties; NaN wins,
// as torch.max propagates it).
struct Greatest {
  double value = 0.0;
  int64_t index = 0;
  void offer(double v, int64_t i) {
    if (std::isnan(value)) return;
    if (std::isnan(v) || v > value) {
      value = v;
      index = i;
    }
  }
};

}  // namespace

Tolerances default_tolerances(DType dtype) {
  switch (dtype) {
    case kFloat16:
      return {1e-3, 1e-5};
    case kBFloat16:
      return {1.6e-2, 1e-5};
    case kFloat32:
      return {1.3e-6, 1e-5};
    case kFloat64:
      return {1e-7, 1e-7};
    default:
      return {0.0, 0.0};  // integers and bool: exact
  }
}

void assert_close(const Tensor& actual, const Tensor& expected, const CloseOptions& o) {
  NABLA_CHECK(actual.defined() && expected.defined(), kApi, ": got an undefined tensor as ",
              actual.defined() ? "expected" : "actual", "; expected two defined tensors");
  NABLA_CHECK(o.rtol.has_value() == o.atol.has_value(), kApi,
              ": rtol and atol must be given together or both left out (as in PyTorch), got only ",
              o.rtol ? "rtol" : "atol");
  Tolerances tol;
  if (o.rtol) {
    NABLA_CHECK(*o.rtol >= 0 && *o.atol >= 0, kApi, ": tolerances must be >= 0, got rtol ", *o.rtol, " and atol ",
                *o.atol);
    tol = {*o.rtol, *o.atol};
  } else {
    // The looser of the two dtypes' (they are equal when check_dtype holds).
    Tolerances ta = default_tolerances(actual.dtype()), te = default_tolerances(expected.dtype());
    tol = {std::max(ta.rtol, te.rtol), std::max(ta.atol, te.atol)};
  }
  check_attributes(actual, expected, o);

  const Shape& sizes = actual.sizes();
  const bool floating = is_floating(actual.dtype()) || is_floating(expected.dtype());
  // As float64 or int64; integer differences are printed as integers.
  std::vector<double> a, e;
  std::vector<int64_t> ai, ei;
  if (floating) {
    a = actual.to_vector<double>();
    e = expected.to_vector<double>();
  } else {
    ai = actual.to_vector<int64_t>();
    ei = expected.to_vector<int64_t>();
  }
  const auto n = static_cast<int64_t>(floating ? a.size() : ai.size());
  int64_t mismatches = 0;
  Greatest abs_diff, rel_diff;
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    double abs_d, rel_d;
    if (floating) {
      if (is_close(a[k], e[k], tol.rtol, tol.atol, o.equal_nan)) continue;
      abs_d = std::fabs(a[k] - e[k]);
      rel_d = abs_d / std::fabs(e[k]);
    } else {
      const int64_t d = ai[k] > ei[k] ? ai[k] - ei[k] : ei[k] - ai[k];
      if (static_cast<double>(d) <= tol.atol + tol.rtol * std::fabs(static_cast<double>(ei[k]))) continue;
      abs_d = static_cast<double>(d);
      // PyTorch divides the int64 tensors, which gives float32.
      rel_d = static_cast<double>(static_cast<float>(d) / std::fabs(static_cast<float>(ei[k])));
    }
    ++mismatches;
    abs_diff.offer(abs_d, i);
    rel_diff.offer(rel_d, i);
  }
  if (mismatches == 0) return;

  const bool equality = tol.rtol == 0 && tol.atol == 0;
  auto number = [&](double v) { return floating ? py_float(v) : std::to_string(static_cast<int64_t>(v)); };
  auto allowed = [&](double t) { return equality ? std::string() : " (up to " + py_float(t) + " allowed)"; };
  std::string msg;
  if (sizes.empty()) {  // a 0-dim tensor: PyTorch's scalar message, from Python numbers
    const double want = floating ? e[0] : static_cast<double>(ei[0]);
    const double rel = want == 0 ? INFINITY : abs_diff.value / std::fabs(want);
    msg = ::nabla::detail::concat("Scalars are not ", equality ? "equal" : "close",
                                  "!\n\nAbsolute difference: ", number(abs_diff.value), allowed(tol.atol),
                                  "\nRelative difference: ", py_float(rel), allowed(tol.rtol));
  } else {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * static_cast<double>(mismatches) / static_cast<double>(n));
    msg = ::nabla::detail::concat(
        "Tensor-likes are not ", equality ? "equal" : "close", "!\n\nMismatched elements: ", mismatches, " / ", n, " (",
        pct, ")\nGreatest absolute difference: ", number(abs_diff.value), " at index ", py_index(sizes, abs_diff.index),
        allowed(tol.atol), "\nGreatest relative difference: ", py_float(rel_diff.value), " at index ",
        py_index(sizes, rel_diff.index), allowed(tol.rtol));
  }
  fail(o, msg);
}

}  // namespace nabla::testing
