// Dropout on CPU. Element i depends only on (seed, offset, i), so the result
// is the same for any thread count; rows are split across the thread pool.
#include "nabla/kernels/cpu/dropout.h"

#include "nabla/core/parallel.h"
#include "nabla/core/random.h"
#include "nabla/kernels/cpu/nn_util.h"

namespace nabla::cpu {

void dropout(const Tensor& x_in, double p, uint64_t seed, uint64_t offset, const Tensor& out, const Tensor& mask) {
  Tensor x = contiguous_input(x_in);
  const double keep_prob = 1.0 - p;
  // p == 1 drops everything: scale 0 instead of inf, so 0 * inf never makes nan.
  const double scale = keep_prob > 0.0 ? 1.0 / keep_prob : 0.0;
  bool* m = static_cast<bool*>(mask.raw_data());
  visit_float(x.dtype(), "dropout", [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = static_cast<T*>(out.raw_data());
    const T s = static_cast<T>(scale);
    parallel_for(0, x.numel(), kParallelGrain / 8, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        auto w = Philox::at(seed, offset, static_cast<uint64_t>(i / 2));
        int lane = static_cast<int>(i % 2) * 2;
        bool keep = Philox::to_unit_double(w[lane], w[lane + 1]) < keep_prob;
        m[i] = keep;
        // x * 0, not 0: a dropped NaN or inf stays NaN, as in PyTorch
        // (input * mask / (1 - p)), so a diverging network is not hidden.
        py[i] = px[i] * (keep ? s : T(0));
      }
    });
  });
}

}  // namespace nabla::cpu
