// pad (constant / reflect / replicate) and pad_backward, the gradient of the
// index-mapping modes. Constant padding is linear with a crop as its adjoint,
// so its rule is a few narrows; reflect/replicate need a scatter-add kernel,
// whose own gradient is the forward pad again.
#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/nn_functional.h"
#include "nabla/ops/ops.h"
#include "nabla/ops/pad_mode.h"

namespace nabla {

extern const OpDef pad_op, pad_backward_op;

PadMode parse_mode(const std::string& mode) {
  if (mode == "constant") return PadMode::Constant;
  if (mode == "reflect") return PadMode::Reflect;
  if (mode == "replicate") return PadMode::Replicate;
  fail("pad: unknown mode \"", mode, "\"; expected \"constant\", \"reflect\" or \"replicate\"");
}

// Per-dim (lo, hi) from PyTorch's flat list (last dim first). For constant
// mode one pair per dim of x; for the other modes one per padded dim.
void split_pads(const Shape& pads, int64_t ndim, bool all_dims, Shape& lo, Shape& hi) {
  int64_t k = static_cast<int64_t>(pads.size()) / 2;
  int64_t n = all_dims ? ndim : k;
  lo.assign(static_cast<std::size_t>(n), 0);
  hi.assign(static_cast<std::size_t>(n), 0);
  for (int64_t i = 0; i < k; ++i) {
    lo[n - 1 - i] = pads[2 * i];
    hi[n - 1 - i] = pads[2 * i + 1];
  }
}

namespace {

// Checks the arguments and returns the padded shape of an input of shape `in`.
Shape padded_shape(const Shape& in, const Shape& pads, const std::string& mode_name) {
  PadMode mode = parse_mode(mode_name);
  int64_t nd = static_cast<int64_t>(in.size()), k = static_cast<int64_t>(pads.size()) / 2;
  NABLA_CHECK(pads.size() % 2 == 0 && k <= nd, "pad: got ", pads.size(), " pad values ", pads,
              " for input of shape ", in, "; expected an even number (left, right pairs, last dim first), at most ",
              2 * nd);
  Shape out = in;
  // The dim plus both pads, refused past int64 (pads from a model file may be anywhere in its range).
  auto padded = [&](int64_t d, int64_t lo, int64_t hi) {
    int64_t r = 0;
    NABLA_CHECK(!__builtin_add_overflow(in[d], lo, &r) && !__builtin_add_overflow(r, hi, &r), "pad: pads (", lo, ", ",
                hi, ") on dim ", d, " of size ", in[d], " (input of shape ", in, ") give a size past int64");
    return r;
  };
  if (mode == PadMode::Constant) {
    for (int64_t i = 0; i < k; ++i) {
      int64_t d = nd - 1 - i;
      out[d] = padded(d, pads[2 * i], pads[2 * i + 1]);
      NABLA_CHECK(out[d] >= 0, "pad: pads (", pads[2 * i], ", ", pads[2 * i + 1], ") make dim ", d, " of size ",
                  in[d], " negative (", out[d], ") for input of shape ", in);
    }
    return out;
  }
  NABLA_CHECK(k == 1 || k == 2, "pad: ", mode_name, " mode pads the last 1 or 2 dims; got ", pads.size(),
              " pad values ", pads, ", expected 2 or 4");
  NABLA_CHECK(nd == k + 1 || nd == k + 2, "pad: ", mode_name, " padding of the last ", k,
              " dim(s) expects a ", k + 1, "-D or ", k + 2, "-D input, got shape ", in);
  for (int64_t i = 0; i < k; ++i) {
    int64_t d = nd - 1 - i, n = in[d], l = pads[2 * i], r = pads[2 * i + 1];
    NABLA_CHECK(l >= 0 && r >= 0, "pad: ", mode_name, " mode needs non-negative pads, got ", pads);
    if (mode == PadMode::Reflect)
      NABLA_CHECK(l < n && r < n, "pad: reflect pads (", l, ", ", r, ") for dim ", d, " must be smaller than its size ",
                  n, " (input of shape ", in, ")");
    else
      NABLA_CHECK(n > 0, "pad: replicate mode cannot pad dim ", d, " of size 0 (input of shape ", in, ")");
    out[d] = padded(d, l, r);
  }
  return out;
}

OutputMetas infer_pad(const OpDef&, Inputs in, const Attrs& a) {
  return {{padded_shape(in[0].sizes(), a.ints(0), a.str(1)), in[0].dtype()}};
}

TensorList pad_grad(GradCtx& c) {
  const Attrs& a = c.attrs();
  const Shape& pads = a.ints(0);
  const Tensor& g = c.grad();
  if (parse_mode(a.str(1)) != PadMode::Constant)
    return {call1(pad_backward_op, {g}, {pads, a.str(1), c.input_sizes(0)})};
  bool crops = false;
  for (int64_t p : pads) crops |= p < 0;
  Shape neg;
  for (int64_t p : pads) neg.push_back(-p);
  if (crops) return {pad(g, neg, "constant", 0.0)};  // the adjoint of a crop is a zero pad
  Tensor r = g;
  for (std::size_t i = 0; i < pads.size() / 2; ++i) {
    int64_t d = g.dim() - 1 - static_cast<int64_t>(i);
    r = narrow(r, d, pads[2 * i], c.input_sizes(0)[d]);
  }
  return {r};
}

// inputs: grad; attrs: pads, mode, input_sizes
OutputMetas infer_pad_backward(const OpDef& op, Inputs in, const Attrs& a) {
  Shape expected;
  try {
    expected = padded_shape(a.ints(2), a.ints(0), a.str(1));
  } catch (const Error&) {
    detail::rethrow_naming(op.name);  // its checks say "pad": Note [User-facing op names]
  }
  NABLA_CHECK(in[0].sizes() == expected, op.name, ": grad has shape ", in[0].sizes(), ", expected ", expected);
  return {{a.ints(2), in[0].dtype()}};
}

}  // namespace

extern constinit const OpDef pad_op{.name = "pad", .attr_names = "pads,mode,value", .infer = infer_pad,
                                    .grad = pad_grad, .save_inputs = 0};
extern constinit const OpDef pad_backward_op{.name = "pad_backward", .attr_names = "pads,mode,input_sizes",
                                             .infer = infer_pad_backward,
                                             .grad = [](GradCtx& c) -> TensorList {
                                               return {pad(c.grad(), c.attrs().ints(0), c.attrs().str(1))};
                                             },
                                             .save_inputs = 0};

namespace {
detail::RegisterOps register_pad{&pad_op, &pad_backward_op};
}

Tensor pad(const Tensor& x, IntList pads, const std::string& mode, double value) {
  NABLA_CHECK((mode != "reflect" && mode != "replicate") || value == 0.0, "pad: mode \"", mode,
              "\" takes no fill value; got value ", value, " (only \"constant\" mode uses it)");
  return call1(pad_op, {x}, {pads.shape(), mode, value});
}

}  // namespace nabla
