// cross_entropy (class-index targets), nll_loss and binary_cross_entropy in
// device C, by the formulas of kernels/cpu/loss.cpp. T: the data type; A: the
// accumulator (double where the device has it, as on the CPU).
//
//   nb_cross_entropy, nb_nll_loss   one work item per sample (n, d...): its
//       loss and its weight (0 for an ignored target) into A buffers; a
//       target out of range sets the one flag *bad (the host reports it)
//   nb_bce                           one work item per element: w * loss in T;
//       an input that is not a probability sets *bad
//   nb_loss_blocks, nb_loss_total    "sum" and "mean": partial sums over the
//       CPU's blocks of 256 samples, then one work item adds them in order
//       (the CPU's order of additions, so results are deterministic)
//   nb_loss_store                    "none": each sample's loss as T
#pragma once

namespace nabla::device_c {

// Samples per partial sum; kernels/cpu/loss.cpp's kBlock.
inline constexpr long kLossBlock = 256;

const char* loss_source();

}  // namespace nabla::device_c
