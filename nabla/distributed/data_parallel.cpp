// DistributedDataParallel (see data_parallel.h).
#include "nabla/distributed/data_parallel.h"

#include <cstring>

#include "nabla/core/error.h"
#include "nabla/core/grad_mode.h"
#include "nabla/ops/factory.h"

namespace nabla::distributed {
namespace {

void check_replicable(const Tensor& t, const std::string& name, const char* what) {
  NABLA_CHECK(t.device() == kCPU && t.is_contiguous(), "DistributedDataParallel: ", what, " '", name,
              "' must be a contiguous CPU tensor (the MPI backend's reach), got device ", t.device().str(),
              t.is_contiguous() ? "" : ", non-contiguous");
}

}  // namespace

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module, double bucket_cap_mb,
                                                 ProcessGroup group)
    : module_(std::move(module)), group_(group) {
  NABLA_CHECK(module_ != nullptr, "DistributedDataParallel: module is null");
  NABLA_CHECK(bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be positive, got ", bucket_cap_mb);
  // Every replica starts from rank 0's state. The writes are in-place data
  // changes of leaves, outside autograd.
  NoGradGuard no_grad;
  for (const auto& [name, p] : module_->named_parameters()) {
    check_replicable(p, name, "parameter");
    group_.broadcast(p, 0);
  }
  for (const auto& [name, b] : module_->named_buffers()) {
    if (!b.defined()) continue;
    check_replicable(b, name, "buffer");
    group_.broadcast(b, 0);
  }
  // Buckets in reverse registration order, as PyTorch does: the last layers'
  // gradients are ready first in backward (what overlap will build on).
  const double cap_bytes = bucket_cap_mb * 1024 * 1024;
  auto params = module_->parameters();
  double bytes = 0;
  for (auto it = params.rbegin(); it != params.rend(); ++it) {
    const Tensor& p = *it;
    if (!p.requires_grad()) continue;  // frozen: no gradient anywhere
    NABLA_CHECK(p.dtype() == kFloat32 || p.dtype() == kFloat64,
                "DistributedDataParallel: trainable parameters must be float32 or float64 (the MPI mean's dtypes), "
                "got ",
                dtype_name(p.dtype()));
    const double pb = static_cast<double>(p.numel() * itemsize(p.dtype()));
    if (buckets_.empty() || buckets_.back().params.front().dtype() != p.dtype() || bytes + pb > cap_bytes) {
      if (buckets_.empty() || !buckets_.back().params.empty()) buckets_.push_back({});
      bytes = 0;
    }
    buckets_.back().params.push_back(p);
    bytes += pb;
  }
  for (auto& b : buckets_) {
    int64_t n = 0;
    for (const auto& p : b.params) n += p.numel();
    b.flat = zeros({n}, b.params.front().dtype());
  }
}

std::vector<int64_t> DistributedDataParallel::bucket_sizes() const {
  std::vector<int64_t> out;
  for (const auto& b : buckets_) out.push_back(static_cast<int64_t>(b.params.size()));
  return out;
}

void DistributedDataParallel::sync_gradients() {
  if (!sync_enabled_) return;
  NoGradGuard no_grad;
  std::vector<Work> works;
  works.reserve(buckets_.size());
  for (auto& b : buckets_) {
    auto* dst = static_cast<char*>(b.flat.raw_data());
    for (const auto& p : b.params) {
      const size_t bytes = static_cast<size_t>(p.numel()) * itemsize(p.dtype());
      const Tensor g = p.grad();
      if (g.defined()) {
        NABLA_CHECK(g.device() == kCPU && g.dtype() == p.dtype() && g.numel() == p.numel(),
                    "DistributedDataParallel::sync_gradients: a gradient must be a CPU tensor of its parameter's "
                    "dtype and size");
        std::memcpy(dst, g.contiguous().raw_data(), bytes);
      } else {
        std::memset(dst, 0, bytes);  // unused here: zero, so the ranks' calls match
      }
      dst += bytes;
    }
    works.push_back(group_.all_reduce_async(b.flat, ReduceOp::Mean));
  }
  for (size_t i = 0; i < buckets_.size(); ++i) {
    works[i].wait();
    Bucket& b = buckets_[i];
    const auto* src = static_cast<const char*>(b.flat.raw_data());
    for (const auto& p : b.params) {
      const size_t bytes = static_cast<size_t>(p.numel()) * itemsize(p.dtype());
      Tensor g = p.grad();
      if (!g.defined() || !g.is_contiguous()) {
        g = empty(p.sizes(), p.dtype());
        std::memcpy(g.raw_data(), src, bytes);
        Tensor(p).set_grad(g);
      } else {
        std::memcpy(g.raw_data(), src, bytes);
      }
      src += bytes;
    }
  }
}

}  // namespace nabla::distributed
