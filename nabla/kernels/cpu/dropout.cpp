// Dropout on CPU. Element i depends only on (seed, offset, i), so the result
// is the same for any thread count; rows are split across the thread pool.
#include "nabla/kernels/cpu/dropout.h"

#include "nabla/core/parallel.h"
#include "nabla/core/random.h"
#include "nabla/kernels/cpu/nn_util.h"
#include "nabla/kernels/cpu/philox_draws.h"

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
      // rand's stream (two elements per counter), its 53-bit uniforms compared with 1 - p.
      // Captured by value: through references, every store to the bool mask
      // (which may alias anything) reloaded them.
      for_each_draw<2>(seed, offset, b, e, [px, py, m, s, keep_prob](int64_t i, const uint32_t* w) {
        const bool keep = Philox::to_unit_double(w[0], w[1]) < keep_prob;
        m[i] = keep;
        // x * 0, not 0: a dropped NaN or inf stays NaN, as in PyTorch
        // (input * mask / (1 - p)), so a diverging network is not hidden.
        // s * keep, not keep ? s : 0 (the same value): no branch to
        // mispredict on a random mask, half the time at p = 0.5.
        py[i] = px[i] * (s * static_cast<T>(keep));
      });
    });
  });
}

}  // namespace nabla::cpu
