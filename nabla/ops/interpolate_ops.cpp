// interpolate: 2-D nearest and bilinear resampling of NCHW tensors, as the
// table entries upsample_{nearest,bilinear}2d plus their *_backward ops (the
// adjoint scatter). Each pair is linear and mutually adjoint, so each rule
// calls the other op and double backward works.
//   attrs nearest:  output_size, scale_h, scale_w         (+ input_sizes for backward)
//   attrs bilinear: output_size, align_corners, scale_h, scale_w  (+ input_sizes)
// scale_h/scale_w are none unless the user gave scale_factor (PyTorch then
// uses 1/scale_factor as the step instead of in/out).
#include <cmath>

#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"

namespace nabla {

extern const OpDef upsample_nearest2d_op, upsample_nearest2d_backward_op, upsample_bilinear2d_op,
    upsample_bilinear2d_backward_op;

namespace {

template <bool Bilinear>
constexpr std::size_t kScaleAt = Bilinear ? 2 : 1;  // index of scale_h in the attrs

void check_nchw(const Tensor& x, const char* op, const char* what) {
  NABLA_CHECK(x.dim() == 4, op, ": expected a 4-D ", what, " [N, C, H, W], got shape ", x.sizes());
  NABLA_CHECK(is_floating(x.dtype()), op, ": expected a floating point ", what, ", got ", x.dtype());
}

Shape with_spatial(const Shape& nchw, const Shape& hw) { return {nchw[0], nchw[1], hw[0], hw[1]}; }

template <bool Bilinear>
OutputMetas infer_upsample(const OpDef& op, Inputs in, const Attrs& a) {
  check_nchw(in[0], op.name.data(), "input");
  const Shape& size = a.ints(0);
  NABLA_CHECK(size.size() == 2 && size[0] > 0 && size[1] > 0, op.name, ": output_size must be 2 positive values, got ",
              size);
  NABLA_CHECK(in[0].sizes()[2] > 0 && in[0].sizes()[3] > 0, op.name,
              ": input spatial sizes must be positive, got input of shape ", in[0].sizes());
  return {{with_spatial(in[0].sizes(), size), in[0].dtype()}};
}

template <bool Bilinear>
OutputMetas infer_upsample_backward(const OpDef& op, Inputs in, const Attrs& a) {
  check_nchw(in[0], op.name.data(), "grad");
  const Shape& input_sizes = a.ints(kScaleAt<Bilinear> + 2);
  // Attributes from a gradient rule, a graph file or an extension: checked
  // before they index anything.
  NABLA_CHECK(input_sizes.size() == 4 && input_sizes[2] > 0 && input_sizes[3] > 0 && a.ints(0).size() == 2, op.name,
              ": expected input_sizes [N, C, H, W] with positive H and W and a 2-value output_size, got input_sizes ",
              input_sizes, " and output_size ", a.ints(0));
  Shape expected = with_spatial(input_sizes, a.ints(0));
  NABLA_CHECK(in[0].sizes() == expected, op.name, ": grad has shape ", in[0].sizes(), ", expected ", expected);
  return {{input_sizes, in[0].dtype()}};
}

// Forward attrs plus the input's sizes.
Attrs with_input_sizes(const Attrs& a, const Shape& sizes) {
  Attrs r = a;
  r.push_back(sizes);
  return r;
}
// Backward attrs without the trailing input_sizes.
Attrs without_input_sizes(const Attrs& a) {
  Attrs r;
  for (std::size_t k = 0; k + 1 < a.size(); ++k) r.push_back(a[k]);
  return r;
}

}  // namespace

extern constinit const OpDef upsample_nearest2d_op{
    .name = "upsample_nearest2d", .attr_names = "output_size,scale_h,scale_w", .infer = infer_upsample<false>,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(upsample_nearest2d_backward_op, {c.grad()}, with_input_sizes(c.attrs(), c.input_sizes(0)))};
    },
    .save_inputs = 0};
extern constinit const OpDef upsample_nearest2d_backward_op{
    .name = "upsample_nearest2d_backward", .attr_names = "output_size,scale_h,scale_w,input_sizes",
    .infer = infer_upsample_backward<false>,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(upsample_nearest2d_op, {c.grad()}, without_input_sizes(c.attrs()))};
    },
    .save_inputs = 0};
extern constinit const OpDef upsample_bilinear2d_op{
    .name = "upsample_bilinear2d", .attr_names = "output_size,align_corners,scale_h,scale_w",
    .infer = infer_upsample<true>,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(upsample_bilinear2d_backward_op, {c.grad()}, with_input_sizes(c.attrs(), c.input_sizes(0)))};
    },
    .save_inputs = 0};
extern constinit const OpDef upsample_bilinear2d_backward_op{
    .name = "upsample_bilinear2d_backward", .attr_names = "output_size,align_corners,scale_h,scale_w,input_sizes",
    .infer = infer_upsample_backward<true>,
    .grad = [](GradCtx& c) -> TensorList {
      return {call1(upsample_bilinear2d_op, {c.grad()}, without_input_sizes(c.attrs()))};
    },
    .save_inputs = 0};

namespace {
detail::RegisterOps register_interpolate{&upsample_nearest2d_op, &upsample_nearest2d_backward_op,
                                         &upsample_bilinear2d_op, &upsample_bilinear2d_backward_op};

// One value for both spatial dims, or one per dim.
template <class T>
std::pair<T, T> per_dim(const std::vector<T>& v, const char* what) {
  NABLA_CHECK(v.size() == 1 || v.size() == 2, "interpolate: ", what, " must have 1 or 2 values (H, W) for a 4-D "
              "input, got ", v.size(), " values ", v);
  return {v[0], v.back()};
}
}  // namespace

Tensor interpolate(const Tensor& x, const InterpolateOptions& o) try {
  NABLA_CHECK(x.dim() == 4, "interpolate: expected a 4-D input [N, C, H, W], got shape ", x.sizes());
  bool bilinear = o.mode == "bilinear";
  NABLA_CHECK(bilinear || o.mode == "nearest", "interpolate: unknown mode \"", o.mode,
              "\"; expected \"nearest\" or \"bilinear\"");
  NABLA_CHECK(bilinear || !o.align_corners.has_value(),
              "interpolate: align_corners only applies to mode \"bilinear\", got mode \"", o.mode,
              "\" with align_corners set");
  NABLA_CHECK(o.size.empty() != o.scale_factor.empty(),
              "interpolate: give exactly one of size and scale_factor, got ",
              o.size.empty() ? "neither" : "both");
  int64_t h = x.sizes()[2], w = x.sizes()[3];
  Shape out_size;
  AttrValue scale_h, scale_w;  // none unless scale_factor is given
  if (!o.size.empty()) {
    auto [oh, ow] = per_dim(o.size, "size");
    out_size = {oh, ow};
  } else {
    auto [sh, sw] = per_dim(o.scale_factor, "scale_factor");
    NABLA_CHECK(sh > 0 && sw > 0, "interpolate: scale_factor must be positive, got ", o.scale_factor);
    const double oh = std::floor(static_cast<double>(h) * sh), ow = std::floor(static_cast<double>(w) * sw);
    // Checked before the cast to int64, which is undefined past its range (a huge or infinite scale).
    NABLA_CHECK(std::fabs(oh) < 9.2e18 && std::fabs(ow) < 9.2e18, "interpolate: scale_factor ", o.scale_factor, " on an input of shape ",
                x.sizes(), " gives an output size of ", oh, "x", ow, "; expected at most 2^63 - 1");
    out_size = {static_cast<int64_t>(oh), static_cast<int64_t>(ow)};
    scale_h = sh;
    scale_w = sw;
  }
  NABLA_CHECK(h > 0 && w > 0 && out_size[0] > 0 && out_size[1] > 0,
              "interpolate: input and output spatial sizes must be positive, got input of shape ", x.sizes(),
              " and output size ", out_size);
  if (bilinear)
    return call1(upsample_bilinear2d_op, {x}, {out_size, o.align_corners.value_or(false), scale_h, scale_w});
  return call1(upsample_nearest2d_op, {x}, {out_size, scale_h, scale_w});
} catch (const Error&) {
  detail::rethrow_naming("interpolate");  // not upsample_*: Note [User-facing op names]
}

}  // namespace nabla
