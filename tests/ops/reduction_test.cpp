// OpInfo entries for reductions: several dim sets, keepdim, and composites
// (mean, var, std, norm, logsumexp).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

struct DimsCase {
  std::vector<int64_t> dims;
  bool keepdim;
};
const std::vector<DimsCase> kDims = {{{}, false}, {{1}, false}, {{0, 2}, true}, {{-1}, true}};

double sum_of(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }
double mean_of(const std::vector<double>& v) { return sum_of(v) / static_cast<double>(v.size()); }
double var_of(const std::vector<double>& v, int correction) {
  double m = mean_of(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(static_cast<int64_t>(v.size()) - correction);
}

using RunFn = std::function<Tensor(const Tensor&, IntList, bool)>;
using RefFn = std::function<double(const std::vector<double>&)>;

OpInfo reduction(const std::string& name, std::vector<std::string> covers, RunFn fn, RefFn ref, double lo = -2,
                 double hi = 2, bool gradgrad = true) {
  OpInfo info;
  info.name = name;
  info.covers = std::move(covers);
  // One input per dims case: run() picks the case from the sample's shape id.
  info.run = [fn](const Tensors& in) {
    Tensors out;
    for (std::size_t k = 0; k < kDims.size(); ++k) out.push_back(fn(in[0], kDims[k].dims, kDims[k].keepdim));
    return out;
  };
  info.samples = [lo, hi] { return std::vector<Tensors>{{sample({2, 3, 4}, lo, hi, 11)}, {sample({3, 2, 2}, lo, hi, 12)}}; };
  info.reference = [ref](const Tensors& in) {
    Tensors out;
    for (const auto& c : kDims) out.push_back(ref_reduce(in[0], c.dims, c.keepdim, ref));
    return out;
  };
  info.gradgrad = gradgrad;
  return info;
}

NABLA_OP_INFO(reduction("sum", {"sum"}, [](const Tensor& x, IntList d, bool k) { return sum(x, d, k); }, sum_of));
NABLA_OP_INFO(reduction("mean", {"mean"}, [](const Tensor& x, IntList d, bool k) { return mean(x, d, k); }, mean_of));
NABLA_OP_INFO(reduction("prod", {"prod"}, [](const Tensor& x, IntList d, bool k) { return prod(x, d, k); },
                        [](const std::vector<double>& v) {
                          return std::accumulate(v.begin(), v.end(), 1.0, std::multiplies<>());
                        }, 0.5, 1.5));
NABLA_OP_INFO(reduction("amax", {"amax"}, [](const Tensor& x, IntList d, bool k) { return amax(x, d, k); },
                        [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }));
NABLA_OP_INFO(reduction("amin", {"amin"}, [](const Tensor& x, IntList d, bool k) { return amin(x, d, k); },
                        [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }));
NABLA_OP_INFO(reduction("var", {"var"}, [](const Tensor& x, IntList d, bool k) { return var(x, d, /*unbiased=*/true, k); },
                        [](const std::vector<double>& v) { return v.size() > 1 ? var_of(v, 1) : NAN; }));
NABLA_OP_INFO(reduction("var_biased", {"var"}, [](const Tensor& x, IntList d, bool k) { return var(x, d, Correction{0}, k); },
                        [](const std::vector<double>& v) { return var_of(v, 0); }));
NABLA_OP_INFO(reduction("std", {"var"}, [](const Tensor& x, IntList d, bool k) { return nabla::std(x, d, /*unbiased=*/false, k); },
                        [](const std::vector<double>& v) { return std::sqrt(var_of(v, 0)); }));
NABLA_OP_INFO(reduction("norm2", {"norm"}, [](const Tensor& x, IntList d, bool k) { return norm(x, 2.0, d, k); },
                        [](const std::vector<double>& v) {
                          double s = 0;
                          for (double x : v) s += x * x;
                          return std::sqrt(s);
                        }));
NABLA_OP_INFO(reduction("norm3", {"norm"}, [](const Tensor& x, IntList d, bool k) { return norm(x, 3.0, d, k); },
                        [](const std::vector<double>& v) {
                          double s = 0;
                          for (double x : v) s += std::pow(std::abs(x), 3);
                          return std::cbrt(s);
                        }));
NABLA_OP_INFO(reduction("logsumexp", {"logsumexp"},
                        [](const Tensor& x, IntList d, bool k) { return logsumexp(x, d, k); },
                        [](const std::vector<double>& v) {
                          double m = *std::max_element(v.begin(), v.end()), s = 0;
                          for (double x : v) s += std::exp(x - m);
                          return m + std::log(s);
                        }));

OpInfo bool_reduction(const std::string& name, bool is_all) {
  OpInfo info;
  info.name = name;
  info.covers = {name};
  info.run = [is_all](const Tensors& in) {
    Tensor b = in[0] > 0.0;
    return Tensors{is_all ? all(b) : any(b), is_all ? all(b, {1}) : any(b, {1}, true)};
  };
  info.samples = [] { return std::vector<Tensors>{{sample({3, 4}, -1, 3, 21)}, {sample({2, 5}, -3, 1, 22)}}; };
  info.reference = [is_all](const Tensors& in) {
    auto f = [is_all](const std::vector<double>& v) {
      bool r = is_all;
      for (double x : v) r = is_all ? (r && x > 0) : (r || x > 0);
      return double(r);
    };
    return Tensors{ref_reduce(in[0], {}, false, f).to(kBool), ref_reduce(in[0], {1}, !is_all, f).to(kBool)};
  };
  info.differentiable = false;
  return info;
}
NABLA_OP_INFO(bool_reduction("all", true));
NABLA_OP_INFO(bool_reduction("any", false));

OpInfo max_dim_info(bool is_max) {
  OpInfo info;
  info.name = is_max ? "max_dim" : "min_dim";
  info.covers = {info.name};
  info.run = [is_max](const Tensors& in) {
    auto [v, i] = is_max ? max(in[0], 1) : min(in[0], 1);
    auto [vk, ik] = is_max ? max(in[0], 0, true) : min(in[0], 0, true);
    return Tensors{v, i, vk, ik, is_max ? argmax(in[0]) : argmin(in[0])};
  };
  info.samples = [] { return std::vector<Tensors>{{sample({3, 5}, -2, 2, 31)}, {sample({4, 2}, -2, 2, 32)}}; };
  info.reference = [is_max](const Tensors& in) {
    auto pick = [is_max](const std::vector<double>& v) {
      auto it = is_max ? std::max_element(v.begin(), v.end()) : std::min_element(v.begin(), v.end());
      return std::pair<double, double>{*it, double(it - v.begin())};
    };
    auto val = [&](const std::vector<double>& v) { return pick(v).first; };
    auto idx = [&](const std::vector<double>& v) { return pick(v).second; };
    return Tensors{ref_reduce(in[0], {1}, false, val), ref_reduce(in[0], {1}, false, idx).to(kInt64),
                   ref_reduce(in[0], {0}, true, val), ref_reduce(in[0], {0}, true, idx).to(kInt64),
                   ref_reduce(in[0], {}, false, idx).to(kInt64)};
  };
  return info;
}
NABLA_OP_INFO(max_dim_info(true));
NABLA_OP_INFO(max_dim_info(false));

OpInfo scan_info(bool is_prod) {
  OpInfo info;
  info.name = is_prod ? "cumprod" : "cumsum";
  info.covers = {info.name};
  info.run = [is_prod](const Tensors& in) {
    return Tensors{is_prod ? cumprod(in[0], 1) : cumsum(in[0], 1), is_prod ? cumprod(in[0], 0) : cumsum(in[0], -2)};
  };
  info.samples = [] { return std::vector<Tensors>{{sample({3, 4}, 0.5, 1.5, 41)}, {sample({2, 3, 2}, 0.5, 1.5, 42)}}; };
  info.reference = [is_prod](const Tensors& in) {
    auto scan = [&](int64_t dim) {
      const Tensor& x = in[0];
      int64_t d = dim < 0 ? dim + x.dim() : dim;
      std::vector<double> v = values(x), r(v.size());
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto idx = unravel(i, x.sizes());
        double acc = is_prod ? 1 : 0;
        auto j = idx;
        for (int64_t k = 0; k <= idx[d]; ++k) {
          j[d] = k;
          acc = is_prod ? acc * v[ravel(j, x.sizes())] : acc + v[ravel(j, x.sizes())];
        }
        r[i] = acc;
      }
      return from_values(r, x.sizes());
    };
    return Tensors{scan(1), scan(is_prod ? 0 : -2)};
  };
  return info;
}
NABLA_OP_INFO(scan_info(false));
NABLA_OP_INFO(scan_info(true));

}  // namespace
}  // namespace nabla::testing
