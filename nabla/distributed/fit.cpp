// FitDataParallel (see fit.h).
#include "nabla/distributed/fit.h"

#include "nabla/core/error.h"
#include "nabla/ops/factory.h"

namespace nabla::distributed {

FitDataParallel::FitDataParallel(double bucket_cap_mb, ProcessGroup group)
    : bucket_cap_mb_(bucket_cap_mb), group_(group) {
  NABLA_CHECK(bucket_cap_mb > 0, "FitDataParallel: bucket_cap_mb must be positive, got ", bucket_cap_mb);
}

void FitDataParallel::setup(const nn::ModulePtr& model) {
  NABLA_CHECK(model != nullptr, "FitDataParallel::setup: the model is null");
  if (ddp_ && wrapped_ == model.get()) return;
  ddp_ = std::make_unique<DistributedDataParallel>(model, bucket_cap_mb_, group_);
  wrapped_ = model.get();
}

void FitDataParallel::sync_gradients() {
  NABLA_CHECK(ddp_ != nullptr, "FitDataParallel::sync_gradients: called before setup() (fit() calls both)");
  ddp_->sync_gradients();
}

void FitDataParallel::all_reduce_sum(std::vector<double>& values) {
  if (values.empty()) return;
  Tensor t = tensor(values);
  group_.all_reduce(t, ReduceOp::Sum);
  values = t.to_vector<double>();
}

}  // namespace nabla::distributed
