// The device C kernels (device_c.h) of 2-D resampling (upsample_nearest2d,
// upsample_bilinear2d and their backward ops), for element type T, with the
// CPU's index rules (kernels/cpu/interpolate.cpp, PyTorch's): each output
// row/column reads input rows/columns i0 and i1 with weights w0 and w1
// ("taps"; nearest: i0 == i1, weights 1 and 0). Forward: one output per work
// item; backward: one input plane per work item, in the CPU's order.
#pragma once

namespace nabla::device_c {

extern const char* const kInterpolateKernels;

}  // namespace nabla::device_c
