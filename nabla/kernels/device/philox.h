// Philox4x32-10 and the 53-bit uniform of core/random.h in device C, shared
// by every kernel that draws (kernels/accel/random.cpp, draws.cpp): element
// i of rand's stream is a function of (seed, offset, i) only, so a seed draws
// the same numbers on every device.
//
//   nb_philox(counter, seed, w)      the four 32-bit words of one counter
//   nb_unit(hi, lo)                  53 of their bits as a double in [0, 1)
//   nb_uniform(i, seed, offset)      rand's element i (two per counter)
#pragma once

namespace nabla::device_c {

const char* philox_source();

}  // namespace nabla::device_c
