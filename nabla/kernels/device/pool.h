// The device C kernels (device_c.h) of 2-D pooling: max (values and argmax
// indices, its backward and the gather by indices), average and adaptive
// average, and their backward ops, for element type T. They read dense
// [planes, H, W] inputs. A forward kernel computes one output row (max, avg)
// or one output (adaptive, gather) per work item; a backward kernel one input
// plane per work item, visiting the outputs in the CPU kernels' order
// (kernels/cpu/pool.cpp), so sums match them exactly.
#pragma once

namespace nabla::device_c {

extern const char* const kPoolKernels;

}  // namespace nabla::device_c
