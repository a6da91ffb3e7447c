// View ops: their kernels only compute sizes/strides/offset, on every device.
// Each gradient rule maps the gradient back to the input's layout.
#include <algorithm>
#include <cstring>
#include <limits>

#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/kernel_registry.h"
#include "nabla/ops/ops.h"

namespace nabla {

Tensor slice_backward(const Tensor& g, const Shape& input_sizes, int64_t dim, int64_t start, int64_t stop,
                      int64_t step);

int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op) {
  int64_t n = std::max<int64_t>(ndim, 1);
  NABLA_CHECK(dim >= -n && dim < n, op, ": dim ", dim, " is out of range for a tensor of ", ndim,
              " dims (expected in [", -n, ", ", n - 1, "])");
  return dim < 0 ? dim + n : dim;
}

namespace {

// Strides for viewing (sizes, strides) as new_sizes without a copy, if possible
// (PyTorch's computeStride): returns false when a copy is needed.
bool view_strides(const Shape& sizes, const Shape& strides, const Shape& new_sizes, Shape& out) {
  out.assign(new_sizes.size(), 1);
  if (sizes.empty() || new_sizes.empty()) {
    out = contiguous_strides(new_sizes);
    return true;
  }
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  if (numel == 0) {
    out = contiguous_strides(new_sizes);
    return true;
  }
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        view_d--;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

// `sizes` as a span: the callers hold a Shape or an IntList already, and
// the messages make an IntList only when they throw.
Shape infer_size(const Tensor& x, std::span<const int64_t> sizes, std::string_view op) {
  Shape out(sizes);
  int64_t known = 1, infer_at = -1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      NABLA_CHECK(infer_at < 0, op, ": only one dimension can be -1, got ", IntList(sizes));
      infer_at = static_cast<int64_t>(i);
    } else {
      NABLA_CHECK(out[i] >= 0, op, ": invalid size ", out[i], " in ", IntList(sizes));
      NABLA_CHECK(out[i] == 0 || known <= std::numeric_limits<int64_t>::max() / out[i], op, ": shape ", IntList(sizes),
                  " has more elements than fit in int64");
      known *= out[i];
    }
  }
  if (infer_at >= 0) {
    NABLA_CHECK(known != 0 && x.numel() % known == 0, op, ": shape ", IntList(sizes), " is invalid for input of size ",
                x.numel(), " (shape ", x.sizes(), ")");
    out[infer_at] = x.numel() / known;
  }
  NABLA_CHECK(checked_numel(out, op.data()) == x.numel(), op, ": shape ", IntList(sizes), " is invalid for input of size ",
              x.numel(), " (shape ", x.sizes(), ")");
  return out;
}

// view
OutputMetas infer_view(const OpDef& op, Inputs in, const Attrs& a) {
  Shape s = infer_size(in[0], a.ints(0), op.name);
  Shape st;
  NABLA_CHECK(view_strides(in[0].sizes(), in[0].strides(), s, st), op.name, ": cannot view a tensor of shape ",
              in[0].sizes(), " and strides ", in[0].strides(), " as shape ", a.ints(0),
              " without a copy; use reshape() (or contiguous() first)");
  return {{s, in[0].dtype()}};
}
void view_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  Shape s = infer_size(in[0], a.ints(0), "view"), st;
  view_strides(in[0].sizes(), in[0].strides(), s, st);
  out[0] = make_view(in[0], s, st, in[0].storage_offset());
}

// permute
OutputMetas infer_permute(const OpDef& op, Inputs in, const Attrs& a) {
  const Shape& dims = a.ints(0);
  int64_t n = in[0].dim();
  NABLA_CHECK(static_cast<int64_t>(dims.size()) == n, op.name, ": got ", dims.size(), " dims ", dims,
              " for a tensor of ", n, " dims");
  Shape s(static_cast<std::size_t>(n));
  std::vector<bool> seen(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    int64_t d = wrap_dim(dims[i], n, op.name);
    NABLA_CHECK(!seen[d], op.name, ": dim ", d, " repeats in ", dims);
    seen[d] = true;
    s[i] = in[0].sizes()[d];
  }
  return {{s, in[0].dtype()}};
}
void permute_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Shape& dims = a.ints(0);
  int64_t n = in[0].dim();
  Shape s(dims.size()), st(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], n, "permute");
    s[i] = in[0].sizes()[d];
    st[i] = in[0].strides()[d];
  }
  out[0] = make_view(in[0], s, st, in[0].storage_offset());
}

// The number of elements of [start, stop) taken with `step` > 0, written so
// that no step (up to INT64_MAX, from a graph file) can overflow.
int64_t sliced_length(int64_t start, int64_t stop, int64_t step) {
  return stop > start ? (stop - start - 1) / step + 1 : 0;
}

// A view's stride along a dim of `n` elements taken every `step` elements of
// stride `stride`. With one element or none the stride is never used, and it
// is left as it was: a step past the dim's length would overflow it.
int64_t stepped_stride(int64_t stride, int64_t step, int64_t n) { return n > 1 ? stride * step : stride; }

// slice: attrs dim, start, stop, step. slice() normalizes them (start and
// stop within the dim, step clamped to its length); a graph file's are
// range-checked on load (nbg::check_attrs: step > 0, start and stop within
// the dim), and the arithmetic here holds for any such step.
OutputMetas infer_slice(const OpDef&, Inputs in, const Attrs& a) {
  Shape s = in[0].sizes();
  s[a.i(0)] = sliced_length(a.i(1), a.i(2), a.i(3));
  return {{s, in[0].dtype()}};
}
void slice_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  int64_t d = a.i(0), start = a.i(1), stop = a.i(2), step = a.i(3);
  Shape s = in[0].sizes(), st = in[0].strides();
  s[d] = sliced_length(start, stop, step);
  int64_t offset = in[0].storage_offset() + (s[d] > 0 ? start * st[d] : 0);
  st[d] = stepped_stride(st[d], step, s[d]);
  out[0] = make_view(in[0], s, st, offset);
}

// slice_backward: zeros of the input's shape with the gradient in the slice.
// Its attributes come from a gradient rule, a graph file or an extension, not
// from slice()'s checks: a range outside input_sizes would write out of bounds.
OutputMetas infer_slice_backward(const OpDef& op, Inputs in, const Attrs& a) {
  const Shape& sizes = a.ints(4);
  int64_t d = a.i(0), start = a.i(1), stop = a.i(2), step = a.i(3);
  const int64_t n = static_cast<int64_t>(sizes.size());
  NABLA_CHECK(d >= 0 && d < n, op.name, ": dim ", d, " is out of range for input_sizes ", sizes);
  NABLA_CHECK(step > 0 && start >= 0 && start <= stop && stop <= sizes[d], op.name, ": the range [", start, ", ",
              stop, ") with step ", step, " is not within dim ", d, " of size ", sizes[d]);
  Shape expected = sizes;
  expected[d] = sliced_length(start, stop, step);
  NABLA_CHECK(in[0].sizes() == expected, op.name, ": grad of shape ", in[0].sizes(), ", expected ", expected,
              " (the slice of input_sizes ", sizes, ")");
  return {{sizes, in[0].dtype()}};
}

// select: attrs dim, index (normalized)
OutputMetas infer_select(const OpDef&, Inputs in, const Attrs& a) {
  Shape s = in[0].sizes();
  s.erase(s.begin() + a.i(0));
  return {{s, in[0].dtype()}};
}
void select_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  int64_t d = a.i(0);
  Shape s = in[0].sizes(), st = in[0].strides();
  int64_t offset = in[0].storage_offset() + a.i(1) * st[d];
  s.erase(s.begin() + d);
  st.erase(st.begin() + d);
  out[0] = make_view(in[0], s, st, offset);
}

// expand: attrs sizes (-1 resolved by the wrapper; a graph file's are checked
// here: a negative dim only where the input's is unknown, and an element
// count that fits int64)
OutputMetas infer_expand(const OpDef& op, Inputs in, const Attrs& a) {
  const Shape& target = a.ints(0);
  NABLA_CHECK(is_expandable_to(in[0].sizes(), target), op.name, ": cannot expand shape ", in[0].sizes(), " to ",
              target, " (each dim must match or be 1)");
  const std::size_t off = target.size() - in[0].sizes().size();
  int64_t span = 1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    NABLA_CHECK(target[i] >= 0 || (i >= off && in[0].sizes()[i - off] == target[i]), op.name, ": the target ", target,
                " has a negative dim ", target[i], " (at ", i, ") for an input of shape ", in[0].sizes());
    NABLA_CHECK(!__builtin_mul_overflow(span, std::max<int64_t>(target[i], 1), &span), op.name, ": the target ",
                target, " has more elements than fit in int64");
  }
  return {{target, in[0].dtype()}};
}
void expand_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  const Shape& target = a.ints(0);
  Shape st(target.size(), 0);
  std::size_t off = target.size() - static_cast<std::size_t>(in[0].dim());
  for (std::size_t i = 0; i < static_cast<std::size_t>(in[0].dim()); ++i)
    st[i + off] = in[0].sizes()[i] == 1 ? 0 : in[0].strides()[i];
  out[0] = make_view(in[0], target, st, in[0].storage_offset());
}

// unfold: attrs dim, size, step
OutputMetas infer_unfold(const OpDef& op, Inputs in, const Attrs& a) {
  int64_t d = a.i(0), size = a.i(1), step = a.i(2);
  int64_t len = in[0].dim() == 0 ? 1 : in[0].sizes()[d];
  NABLA_CHECK(size >= 0 && size <= len, op.name, ": window size ", size, " must be in [0, ", len, "], the size of dim ",
              d);
  NABLA_CHECK(step > 0, op.name, ": step must be > 0, got ", step);
  Shape s = in[0].sizes();
  if (s.empty()) s.push_back(1);
  s[d] = (len - size) / step + 1;
  s.push_back(size);
  return {{s, in[0].dtype()}};
}
void unfold_kernel(Inputs in, const Attrs& a, std::span<Tensor> out) {
  int64_t d = a.i(0), size = a.i(1), step = a.i(2);
  Shape s = in[0].sizes(), st = in[0].strides();
  if (s.empty()) { s.push_back(1); st.push_back(1); }
  int64_t dstride = st[d];
  s[d] = (s[d] - size) / step + 1;
  st[d] = stepped_stride(dstride, step, s[d]);  // unfold(x, 0, 2, INT64_MAX): one window
  s.push_back(size);
  st.push_back(dstride);
  out[0] = make_view(in[0], s, st, in[0].storage_offset());
}
// unfold_backward: sums overlapping windows back (a loop of slice adds).
OutputMetas infer_unfold_backward(const OpDef&, Inputs in, const Attrs& a) { return {{a.ints(3), in[0].dtype()}}; }
TensorList unfold_backward_composite(Inputs in, const Attrs& a) {
  int64_t d = a.i(0), size = a.i(1), step = a.i(2);
  Tensor g = in[0];
  // Attributes from a gradient rule, a graph file or an extension: checked here.
  const Shape& sizes = a.ints(3);
  const int64_t n = static_cast<int64_t>(sizes.size());
  NABLA_CHECK(g.defined(), "unfold_backward: input 0 is an undefined tensor");
  NABLA_CHECK(d >= 0 && d < std::max<int64_t>(n, 1), "unfold_backward: dim ", d, " is out of range for input_sizes ",
              sizes);
  int64_t len = n == 0 ? 1 : sizes[d];
  NABLA_CHECK(step > 0, "unfold_backward: step must be > 0, got ", step);
  NABLA_CHECK(size >= 0 && size <= len, "unfold_backward: window size ", size, " must be in [0, ", len,
              "], the size of dim ", d);
  Shape expected = sizes;
  if (expected.empty()) expected.push_back(1);
  expected[d] = (len - size) / step + 1;
  expected.push_back(size);
  NABLA_CHECK(g.sizes() == expected, "unfold_backward: grad of shape ", g.sizes(), ", expected ", expected,
              " (the windows of input_sizes ", sizes, ")");
  Tensor out = zeros(a.ints(3), TensorOptions(g.dtype()).device(g.device()));
  int64_t windows = g.sizes()[d];
  for (int64_t w = 0; w < windows; ++w) {
    Tensor piece = movedim_last(select(g, d, w), d);  // window w, its elements along d
    out = out + slice_backward(piece, a.ints(3), d, w * step, w * step + size, 1);
  }
  return {out};
}

}  // namespace

Tensor movedim_last(const Tensor& x, int64_t dim) {
  // Moves the last dim of x to position dim.
  int64_t n = x.dim();
  Shape perm;
  for (int64_t i = 0; i < n - 1; ++i) {
    if (i == dim) perm.push_back(n - 1);
    perm.push_back(i);
  }
  if (dim == n - 1) perm.push_back(n - 1);
  return permute(x, perm);
}

Tensor slice_backward(const Tensor& g, const Shape& input_sizes, int64_t dim, int64_t start, int64_t stop,
                      int64_t step);

extern const OpDef view_op, permute_op, slice_op, select_op, expand_op, unfold_op, slice_backward_op,
    unfold_backward_op, clone_op;

extern constinit const OpDef view_op{.name = "view", .attr_names = "sizes", .infer = infer_view,
                    .grad = [](GradCtx& c) -> TensorList { return {reshape(c.grad(), c.input_sizes(0))}; },
                    .flags = kView | kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef permute_op{.name = "permute", .attr_names = "dims", .infer = infer_permute,
                       .grad = [](GradCtx& c) -> TensorList {
                         const Shape& dims = c.attrs().ints(0);
                         Shape inv(dims.size());
                         for (std::size_t i = 0; i < dims.size(); ++i)
                           inv[wrap_dim(dims[i], static_cast<int64_t>(dims.size()), "permute")] = static_cast<int64_t>(i);
                         return {permute(c.grad(), inv)};
                       },
                       .flags = kView | kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef slice_op{.name = "slice", .attr_names = "dim,start,stop,step", .infer = infer_slice,
                     .grad = [](GradCtx& c) -> TensorList {
                       const Attrs& a = c.attrs();
                       return {slice_backward(c.grad(), c.input_sizes(0), a.i(0), a.i(1), a.i(2), a.i(3))};
                     },
                     .flags = kView | kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef slice_backward_op{.name = "slice_backward",
                                               .attr_names = "dim,start,stop,step,input_sizes",
                              .infer = infer_slice_backward,
                              .grad = [](GradCtx& c) -> TensorList {
                                const Attrs& a = c.attrs();
                                return {slice(c.grad(), a.i(0), a.i(1), a.i(2), a.i(3))};
                              },
                              .flags = kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef select_op{.name = "select", .attr_names = "dim,index", .infer = infer_select,
                      .grad = [](GradCtx& c) -> TensorList {
                        int64_t d = c.attrs().i(0), i = c.attrs().i(1);
                        return {slice_backward(unsqueeze(c.grad(), d), c.input_sizes(0), d, i, i + 1, 1)};
                      },
                      .flags = kView | kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef expand_op{.name = "expand", .attr_names = "sizes", .infer = infer_expand,
                      .grad = [](GradCtx& c) -> TensorList { return {sum_to(c.grad(), c.input_sizes(0))}; },
                      .flags = kView | kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef unfold_op{.name = "unfold", .attr_names = "dim,size,step", .infer = infer_unfold,
                      .grad = [](GradCtx& c) -> TensorList {
                        const Attrs& a = c.attrs();
                        return {call1(unfold_backward_op, {c.grad()},
                                      {a.i(0), a.i(1), a.i(2), c.input_sizes(0)})};
                      },
                      .flags = kView | kNativeReducedFloat, .save_inputs = 0};
extern constinit const OpDef unfold_backward_op{.name = "unfold_backward", .attr_names = "dim,size,step,input_sizes",
                               .infer = infer_unfold_backward, .composite = unfold_backward_composite};
extern constinit const OpDef clone_op{.name = "clone", .infer = detail::infer_unary,
                     .grad = [](GradCtx& c) -> TensorList { return {c.grad()}; },
                     .flags = kElementwise | kNativeReducedFloat, .save_inputs = 0};

namespace {
// The view kernels only compute sizes, strides and offset (no memory is
// touched), so each is one generic kernel for every device.
[[maybe_unused]] const bool kViewKernelsRegistered = [] {
  register_generic_kernel(view_op, view_kernel);
  register_generic_kernel(permute_op, permute_kernel);
  register_generic_kernel(slice_op, slice_kernel);
  register_generic_kernel(select_op, select_kernel);
  register_generic_kernel(expand_op, expand_kernel);
  register_generic_kernel(unfold_op, unfold_kernel);
  return true;
}();
detail::RegisterOps register_shape{&view_op,   &permute_op,        &slice_op,  &slice_backward_op, &select_op,
                                   &expand_op, &unfold_op, &unfold_backward_op, &clone_op};
}

Tensor slice_backward(const Tensor& g, const Shape& input_sizes, int64_t dim, int64_t start, int64_t stop,
                      int64_t step) {
  return call1(slice_backward_op, {g}, {dim, start, stop, step, input_sizes});
}

namespace {
// An undefined argument is named by the function called, not by the Tensor
// method it reads first (Tensor::dim).
const Tensor& defined_arg(const Tensor& x, const char* op) {
  NABLA_CHECK(x.defined(), op, ": input 0 is an undefined tensor");
  return x;
}
}  // namespace

Tensor view(const Tensor& x, IntList sizes) { return call1(view_op, {x}, {sizes.shape()}); }
Tensor reshape(const Tensor& x, IntList sizes) {
  defined_arg(x, "reshape");
  // A graph value with unknown dims (-1): its size is known only when fed.
  if (x.is_symbolic() && std::any_of(x.sizes().begin(), x.sizes().end(), [](int64_t d) { return d < 0; }))
    return view(x, sizes);
  Shape s = infer_size(x, {sizes.data(), sizes.size()}, "reshape"), st;
  if (x.is_symbolic() || view_strides(x.sizes(), x.strides(), s, st)) return view(x, s);
  return view(clone(x), s);
}
Tensor permute(const Tensor& x, IntList dims) { return call1(permute_op, {x}, {dims.shape()}); }
Tensor transpose(const Tensor& x, int64_t d0, int64_t d1) {
  defined_arg(x, "transpose");
  int64_t n = x.dim();
  if (n < 2 && (d0 == 0 || d0 == -1) && (d1 == 0 || d1 == -1)) return x;
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  Shape perm(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  std::swap(perm[d0], perm[d1]);
  return permute(x, perm);
}
Tensor slice(const Tensor& x, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop, int64_t step) {
  defined_arg(x, "slice");
  NABLA_CHECK(x.dim() > 0, "slice: cannot slice a 0-dim tensor");
  dim = wrap_dim(dim, x.dim(), "slice");
  NABLA_CHECK(step > 0, "slice: step must be positive, got ", step);
  int64_t len = x.sizes()[dim];
  auto clampi = [&](int64_t v) {
    if (v < 0) v += len;
    return std::clamp<int64_t>(v, 0, len);
  };
  int64_t b = start ? clampi(*start) : 0;
  int64_t e = stop ? clampi(*stop) : len;
  if (e < b) e = b;
  // A step past the dim's length takes one element, like a step of exactly the
  // length; clamping keeps the view's stride (stride * step) from overflowing.
  step = std::min(step, std::max<int64_t>(len, 1));
  return call1(slice_op, {x}, {dim, b, e, step});
}
Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  defined_arg(x, "narrow");
  dim = wrap_dim(dim, x.dim(), "narrow");
  int64_t len = x.sizes()[dim];
  if (start < 0) start += len;
  NABLA_CHECK(start >= 0 && length >= 0 && start + length <= len, "narrow: start ", start, " and length ", length,
              " exceed dim ", dim, " of size ", len);
  return slice(x, dim, start, start + length, 1);
}
Tensor select(const Tensor& x, int64_t dim, int64_t index) {
  defined_arg(x, "select");
  NABLA_CHECK(x.dim() > 0, "select: cannot index a 0-dim tensor");
  dim = wrap_dim(dim, x.dim(), "select");
  int64_t len = x.sizes()[dim];
  NABLA_CHECK(index >= -len && index < len, "select: index ", index, " is out of bounds for dim ", dim,
              " of size ", len);
  if (index < 0) index += len;
  return call1(select_op, {x}, {dim, index});
}
Tensor expand(const Tensor& x, IntList sizes) {
  defined_arg(x, "expand");
  NABLA_CHECK(sizes.size() >= static_cast<std::size_t>(x.dim()), "expand: the target ", sizes,
              " has fewer dims than the tensor's shape ", x.sizes());
  Shape target = sizes.shape();
  std::size_t off = sizes.size() - static_cast<std::size_t>(x.dim());
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      NABLA_CHECK(i >= off, "expand: -1 is not allowed for a new leading dim in ", sizes);
      target[i] = x.sizes()[i - off];
    }
  }
  // A view whose element count overflows int64 cannot be made (its numel would be undefined).
  if (std::all_of(target.begin(), target.end(), [](int64_t d) { return d >= 0; })) checked_numel(target, "expand");
  if (target == x.sizes()) return x;
  return call1(expand_op, {x}, {target});
}
Tensor squeeze(const Tensor& x) {
  defined_arg(x, "squeeze");
  Shape s;
  for (int64_t d : x.sizes())
    if (d != 1) s.push_back(d);
  return s.size() == x.sizes().size() ? x : view(x, s);
}
Tensor squeeze(const Tensor& x, int64_t dim) {
  defined_arg(x, "squeeze");
  dim = wrap_dim(dim, x.dim(), "squeeze");
  if (x.dim() == 0 || x.sizes()[dim] != 1) return x;
  Shape s = x.sizes();
  s.erase(s.begin() + dim);
  return view(x, s);
}
Tensor unsqueeze(const Tensor& x, int64_t dim) {
  defined_arg(x, "unsqueeze");
  dim = wrap_dim(dim, x.dim() + 1, "unsqueeze");
  Shape s = x.sizes();
  s.insert(s.begin() + dim, 1);
  return view(x, s);
}
Tensor flatten(const Tensor& x, int64_t start, int64_t end) {
  defined_arg(x, "flatten");
  if (x.dim() == 0) return reshape(x, {1});
  start = wrap_dim(start, x.dim(), "flatten");
  end = wrap_dim(end, x.dim(), "flatten");
  NABLA_CHECK(start <= end, "flatten: start_dim ", start, " must not come after end_dim ", end);
  Shape s;
  for (int64_t i = 0; i < start; ++i) s.push_back(x.sizes()[i]);
  int64_t m = 1;
  bool unknown = false;  // a graph value's unknown dim (-1) makes the flattened size unknown too
  for (int64_t i = start; i <= end; ++i) {
    m *= x.sizes()[i];
    unknown |= x.sizes()[i] < 0;
  }
  s.push_back(unknown ? -1 : m);
  for (int64_t i = end + 1; i < x.dim(); ++i) s.push_back(x.sizes()[i]);
  return reshape(x, s);
}
Tensor unflatten(const Tensor& x, int64_t dim, IntList sizes) {
  defined_arg(x, "unflatten");
  dim = wrap_dim(dim, x.dim(), "unflatten");
  Shape s;
  for (int64_t i = 0; i < dim; ++i) s.push_back(x.sizes()[i]);
  Tensor part = zeros({x.sizes()[dim]});
  Shape inner = infer_size(part, {sizes.data(), sizes.size()}, "unflatten");
  for (int64_t d : inner) s.push_back(d);
  for (int64_t i = dim + 1; i < x.dim(); ++i) s.push_back(x.sizes()[i]);
  return view(x, s);
}
Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step) {
  return call1(unfold_op, {x}, {wrap_dim(dim, defined_arg(x, "unfold").dim(), "unfold"), size, step});
}
Tensor clone(const Tensor& x) { return call1(clone_op, {x}); }
Tensor contiguous(const Tensor& x) { return defined_arg(x, "contiguous").is_contiguous() ? x : clone(x); }

Tensor sum_to(const Tensor& x, const Shape& shape) {
  defined_arg(x, "sum_to");
  if (x.sizes() == shape) return x;
  int64_t lead = x.dim() - static_cast<int64_t>(shape.size());
  Shape dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && x.sizes()[i + lead] != 1) dims.push_back(static_cast<int64_t>(i) + lead);
  Tensor r = dims.empty() ? x : sum(x, dims, true);
  return reshape(r, shape);
}

}  // namespace nabla
