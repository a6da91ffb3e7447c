// OpInfo entries for view ops: each reference permutes host values by index.
#include <limits>

#include <gtest/gtest.h>

#include "support/op_info.h"

namespace nabla::testing {
namespace {

// Reference for any view: out[idx] = x[map(idx)].
Tensor ref_gather_view(const Tensor& x, const Shape& out_shape,
                       const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& map) {
  std::vector<double> v = values(x);
  int64_t n = 1;
  for (int64_t d : out_shape) n *= d;
  std::vector<double> r(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) r[i] = v[ravel(map(unravel(i, out_shape)), x.sizes())];
  return from_values(r, out_shape);
}

OpInfo view_info(const std::string& name, std::vector<std::string> covers, std::function<Tensor(const Tensor&)> fn,
                 std::function<Tensor(const Tensor&)> ref, Shape shape = {2, 3, 4}) {
  OpInfo info;
  info.name = name;
  info.covers = std::move(covers);
  info.run = [fn](const Tensors& in) { return Tensors{fn(in[0])}; };
  info.samples = [shape] { return std::vector<Tensors>{{sample(shape, -2, 2, 51)}}; };
  info.reference = [ref](const Tensors& in) { return Tensors{ref(in[0])}; };
  return info;
}

NABLA_OP_INFO(view_info("view", {"view"}, [](const Tensor& x) { return x.contiguous().view({4, -1}); },
                        [](const Tensor& x) { return from_values(values(x), {4, 6}); }));
NABLA_OP_INFO(view_info("reshape", {"view", "clone"}, [](const Tensor& x) { return x.transpose(0, 2).reshape({-1}); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {24}, [](const std::vector<int64_t>& i) {
                            auto j = unravel(i[0], {4, 3, 2});
                            return std::vector<int64_t>{j[2], j[1], j[0]};
                          });
                        }));
NABLA_OP_INFO(view_info("permute", {"permute"}, [](const Tensor& x) { return x.permute({2, 0, 1}); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {4, 2, 3}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[1], i[2], i[0]};
                          });
                        }));
NABLA_OP_INFO(view_info("slice", {"slice", "slice_backward"},
                        [](const Tensor& x) { return x.slice(2, 1, std::nullopt, 2); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {2, 3, 2}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[0], i[1], 1 + 2 * i[2]};
                          });
                        }));
NABLA_OP_INFO(view_info("index", {"slice", "select"},
                        [](const Tensor& x) { return x.index({Slice(), -1, Slice(std::nullopt, std::nullopt, 3)}); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {2, 2}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[0], 2, 3 * i[1]};
                          });
                        }));
NABLA_OP_INFO(view_info("select", {"select"}, [](const Tensor& x) { return x.select(1, 1); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {2, 4}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[0], 1, i[1]};
                          });
                        }));
NABLA_OP_INFO(view_info("expand", {"expand"}, [](const Tensor& x) { return x.expand({2, 2, 3, 4}); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {2, 2, 3, 4}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[1], i[2], i[3]};
                          });
                        }));
NABLA_OP_INFO(view_info("expand_size1", {"expand"}, [](const Tensor& x) { return x.expand({3, 4}); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {3, 4}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[0], 0};
                          });
                        }, {3, 1}));
NABLA_OP_INFO(view_info("squeeze_unsqueeze_flatten", {"view"},
                        [](const Tensor& x) { return x.unsqueeze(1).squeeze(1).unsqueeze(-1).flatten(1, 2); },
                        [](const Tensor& x) { return from_values(values(x), {2, 12, 1}); }));
NABLA_OP_INFO(view_info("unfold", {"unfold", "unfold_backward"}, [](const Tensor& x) { return x.unfold(2, 2, 1); },
                        [](const Tensor& x) {
                          return ref_gather_view(x, {2, 3, 3, 2}, [](const std::vector<int64_t>& i) {
                            return std::vector<int64_t>{i[0], i[1], i[2] + i[3]};
                          });
                        }));

// A step far past the dim's length takes the first element (PyTorch and NumPy
// agree); the fuzzer found that stride * step overflowed int64 in the view.
TEST(Slice, HugeStepTakesOneElementWithoutOverflow) {
  Tensor x = arange(0, 12, 1, kFloat32).reshape({3, 4});
  Tensor col = x.slice(1, 1, std::nullopt, int64_t{7279224372714274815});
  ASSERT_EQ(col.sizes(), (Shape{3, 1}));
  EXPECT_EQ(values(col), (std::vector<double>{1, 5, 9}));
  Tensor g = x.detach().requires_grad_();
  g.slice(0, 0, std::nullopt, std::numeric_limits<int64_t>::max()).sum().backward();
  EXPECT_EQ(values(g.grad()), (std::vector<double>{1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace nabla::testing
