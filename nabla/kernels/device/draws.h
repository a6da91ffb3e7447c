// Kernels that draw from Philox (device/philox.h) besides the factories of
// kernels/accel/random.cpp, in device C, by the formulas of
// kernels/cpu/dropout.cpp and kernels/cpu/random.cpp, so a seed gives the
// same mask, draws and permutation as on the CPU:
//
//   nb_dropout(y, mask, x, n, seed, offset, keep_prob, scale)   T: data
//   nb_bernoulli(out, bad, p, n, seed, offset)                   T: p and out
//   nb_randperm_keys(keys, idx, n, seed, offset)                 rand's values
//       as float (the CPU's keys, rounded as rand stores them) and 0..n-1,
//       to be stably sorted by device/sort.h's merge passes
//   nb_randperm_store(out, idx, n, to_bool)                      T: out
#pragma once

namespace nabla::device_c {

const char* draws_source();

}  // namespace nabla::device_c
