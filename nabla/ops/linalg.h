// Matrix products. mm and bmm have BLAS kernels; the rest are built from them.
#pragma once
#include <optional>

#include "nabla/core/tensor.h"

namespace nabla {

Tensor mm(const Tensor& a, const Tensor& b);   // [n,k] x [k,m]
Tensor bmm(const Tensor& a, const Tensor& b);  // [B,n,k] x [B,k,m]
// NumPy matmul: 1-D vectors, matrices, and batches with broadcasting.
Tensor matmul(const Tensor& a, const Tensor& b);
// beta * c + alpha * (a @ b)
Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta = 1, const Scalar& alpha = 1);
// x @ weight^T + bias, weight [out, in] as in torch.nn.functional.linear
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
Tensor outer(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);

}  // namespace nabla
