// softmax and log_softmax in device C: one work item per line of a dense
// input seen as [outer, n, inner] around the softmax dim, by the passes of
// kernels/cpu/softmax.cpp (the max, the sum of exp(x - max), the result), so
// that large inputs never overflow and results equal the CPU's.
//
//   nb_softmax(y, x, lines, n, inner, log)    T: the data type
#pragma once

namespace nabla::device_c {

const char* softmax_source();

}  // namespace nabla::device_c
