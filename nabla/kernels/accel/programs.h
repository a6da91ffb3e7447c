// The device C programs of the accelerator kernels whose source the host
// code completes (typedefs and macros around a kernels/device body): what
// the kernels launch, and what the NVRTC compile test
// (tests/cuda/nvrtc_compile_test.cpp) compiles, so that the test compiles
// exactly the sources that run.
#pragma once
#include "nabla/kernels/accel/runtime.h"
#include "nabla/ops/op.h"

namespace nabla::accel {

// strided.cpp: the element-moving program for t's item width (every dtype,
// float16 included), and the accumulating one for dtype t.
Program move_program(DType t);
Program accumulate_program(DType t);
// factory.cpp: arange, linspace and eye for output dtype t.
Program range_program(DType t);
// random.cpp: rand, normal, randint or bernoulli_scalar stored as dtype t.
Program random_program(const OpDef& op, DType t);

}  // namespace nabla::accel
