// The to_device op (Tensor::to(device), cpu(), copy_ across devices) in the
// op-table suite: there to another device and back, values and gradients.
#include <gtest/gtest.h>

#include "support/op_info.h"
#include "support/opaque_backend.h"

namespace nabla::testing {
namespace {

OpInfo to_device_info() {
  OpInfo info;
  info.name = "to_device";
  info.covers = {"to_device"};
  // Through opaque:1 and back to where the input is (the CPU in the CPU
  // suite, opaque:0 in the opaque one: a copy between two devices).
  info.run = [](const Tensors& in) { return Tensors{in[0].to(opaque_device(1)).to(in[0].device()) * 2.0}; };
  info.samples = [] { return std::vector<Tensors>{{sample({3, 4})}, {sample({})}, {sample({0, 2})}}; };
  info.reference = [](const Tensors& in) { return Tensors{ref_unary(in[0], [](double x) { return 2 * x; })}; };
  return info;
}
NABLA_OP_INFO(to_device_info());

}  // namespace
}  // namespace nabla::testing
