// The fused Adam update (the adam_update op, optim::Adam) in device C: one
// work item per parameter element, each operation rounded to T in the CPU's
// order (kernels/cpu/adam_update.cpp) and none fused into an FMA
// (NB_NO_CONTRACT), so a step gives the CPU's parameters.
//
//   nb_adam(p_out, m_out, v_out, p_in, g, m_in, v_in, step_size, bc2, n,
//           beta1, 1 - beta1, beta2, 1 - beta2, eps)     T: float or double
// Every tensor travels as a pointer and a long element offset; step_size and
// bc2 (sqrt of the bias correction 2) are one-element device tensors.
#pragma once

namespace nabla::device_c {

extern const char* const kAdamUpdate;

}  // namespace nabla::device_c
