// Turns oneDNN's convolution path on or off for one scope and restores the
// process-wide switch however the test ends.
#pragma once
#include "nabla/kernels/cpu/conv.h"

namespace nabla::testing {

struct OneDnnSwitch {
  explicit OneDnnSwitch(bool on) : saved(cpu::conv_onednn_enabled()) { cpu::set_conv_onednn_enabled(on); }
  ~OneDnnSwitch() { cpu::set_conv_onednn_enabled(saved); }
  OneDnnSwitch(const OneDnnSwitch&) = delete;
  OneDnnSwitch& operator=(const OneDnnSwitch&) = delete;
  bool saved;
};

}  // namespace nabla::testing
