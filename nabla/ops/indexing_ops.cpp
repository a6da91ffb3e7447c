// Indexing ops: gather, scatter (tensor and value), scatter_add, index_select,
// index_add, take, masked_select, one_hot, and the masked_fill composite.
// Gradient rules pair them up so that gradients are differentiable again:
// gather <-> scatter_add, index_select <-> index_add, take -> index_add,
// masked_select -> take. Index inputs get no gradient (int dtypes have no
// autograd edge). Kernels: nabla/kernels/cpu/indexing.cpp.
#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// Public wrappers accept int32 indices by casting; table entries take int64 only.
Tensor as_index(const Tensor& index, std::string_view op) {
  NABLA_CHECK(index.defined(), op, ": index is an undefined tensor");
  if (index.dtype() == kInt64) return index;
  NABLA_CHECK(index.dtype() == kInt32, op, ": index must be an int64 (or int32) tensor, got ", index.dtype());
  return cast(index, kInt64);
}

void check_index_dtype(const OpDef& op, const Tensor& index) {
  NABLA_CHECK(index.dtype() == kInt64, op.name, ": index must be an int64 tensor, got ", index.dtype());
}

void check_same_dtype(const OpDef& op, const Tensor& x, const Tensor& other, std::string_view what) {
  NABLA_CHECK(x.dtype() == other.dtype(), op.name, ": ", what, " has dtype ", other.dtype(), " but the input has dtype ",
              x.dtype(), " (expected the same dtype)");
}

// A 1-D index (or 0-dim: one position), as index_select/index_add take it.
void check_vector_index(const OpDef& op, const Tensor& x, const Tensor& index) {
  check_index_dtype(op, index);
  NABLA_CHECK(index.dim() <= 1, op.name, ": index must be 0-dim or 1-D, got shape ", index.sizes());
  NABLA_CHECK(x.dim() >= 1, op.name, ": expected an input with at least 1 dim, got a 0-dim tensor");
}

// ---- gather ---------------------------------------------------------------
// inputs: x, index; attrs: dim (wrapped)

// index must have x's dims and be no larger than `bounded` outside `dim` (all
// dims when dim < 0). PyTorch's rule for gather and scatter.
void check_index_shape(const OpDef& op, const Tensor& index, const Tensor& bounded, std::string_view what,
                       int64_t dim) {
  NABLA_CHECK(index.dim() == bounded.dim(), op.name, ": index has ", index.dim(), " dims (shape ", index.sizes(),
              ") but ", what, " has ", bounded.dim(), " (shape ", bounded.sizes(), "); expected the same number of dims");
  for (int64_t d = 0; d < index.dim(); ++d)
    NABLA_CHECK(d == dim || index.sizes()[d] <= bounded.sizes()[d], op.name, ": index shape ", index.sizes(),
                " is larger than ", what, " shape ", bounded.sizes(), " at dim ", d, " (expected index.size(", d,
                ") <= ", what, ".size(", d, ")", dim >= 0 ? " for every dim but the indexed one" : "", ")");
}

OutputMetas infer_gather(const OpDef& op, Inputs in, const Attrs& a) {
  check_index_dtype(op, in[1]);
  check_index_shape(op, in[1], in[0], "the input", a.i(0));
  return {{in[1].sizes(), in[0].dtype()}};
}

// ---- scatter, scatter_value, scatter_add -----------------------------------
// inputs: x, index, src (scatter_value: x, index); attrs: dim (, value)

// src's gradient: g (shaped like the index) zero-padded at the end of each dim
// to src's shape, since src elements beyond the index's extent are unused.
Tensor pad_to(Tensor g, const Shape& sizes) {
  for (int64_t d = 0; d < g.dim(); ++d) {
    int64_t extra = sizes[d] - g.sizes()[d];
    if (extra == 0) continue;
    Shape zs = g.sizes();
    zs[d] = extra;
    g = cat({g, zeros(zs, TensorOptions(g.dtype()).device(g.device()))}, d);
  }
  return g;
}
Tensor src_grad(GradCtx& c, const Tensor& index) {
  return c.needs_grad(2) ? pad_to(gather(c.grad(), c.attrs().i(0), index), c.input_sizes(2)) : Tensor();
}

OutputMetas infer_scatter(const OpDef& op, Inputs in, const Attrs& a) {
  check_index_dtype(op, in[1]);
  check_index_shape(op, in[1], in[0], "the input", a.i(0));
  if (in.size() > 2) {
    check_same_dtype(op, in[0], in[2], "src");
    check_index_shape(op, in[1], in[2], "src", -1);
  }
  return {{in[0].sizes(), in[0].dtype()}};
}

// ---- index_select, index_add ---------------------------------------------
// inputs: x, index (, source); attrs: dim

OutputMetas infer_index_select(const OpDef& op, Inputs in, const Attrs& a) {
  check_vector_index(op, in[0], in[1]);
  Shape s = in[0].sizes();
  s[a.i(0)] = in[1].numel();
  return {{s, in[0].dtype()}};
}

OutputMetas infer_index_add(const OpDef& op, Inputs in, const Attrs& a) {
  check_vector_index(op, in[0], in[1]);
  check_same_dtype(op, in[0], in[2], "source");
  Shape expected = in[0].sizes();
  expected[a.i(0)] = in[1].numel();
  NABLA_CHECK(in[2].sizes() == expected, op.name, ": source has shape ", in[2].sizes(), " but expected ", expected,
              " (the input's shape ", in[0].sizes(), " with dim ", a.i(0), " sized like the index, ", in[1].numel(),
              ")");
  return {{in[0].sizes(), in[0].dtype()}};
}

// ---- take ----------------------------------------------------------------
OutputMetas infer_take(const OpDef& op, Inputs in, const Attrs&) {
  check_index_dtype(op, in[1]);
  return {{in[1].sizes(), in[0].dtype()}};
}
TensorList take_grad(GradCtx& c) {
  Tensor idx = c.input(1);
  const Shape& sizes = c.input_sizes(0);
  int64_t n = checked_numel(sizes, "take");
  Tensor wrapped = where(idx < 0, idx + n, idx);
  Tensor g = c.grad();
  Tensor flat = index_add(zeros({n}, TensorOptions(g.dtype()).device(g.device())), 0, reshape(wrapped, {-1}),
                          reshape(g, {-1}));
  return {reshape(flat, sizes), Tensor()};
}

// ---- masked_select ---------------------------------------------------------
// inputs: x, mask (same shape: the wrapper broadcasts); attrs: count of true
// elements (the wrapper counts them, so inference needs no data).
OutputMetas infer_masked_select(const OpDef& op, Inputs in, const Attrs& a) {
  NABLA_CHECK(in[1].dtype() == kBool, op.name, ": mask must be a bool tensor, got ", in[1].dtype());
  NABLA_CHECK(in[0].sizes() == in[1].sizes(), op.name, ": mask shape ", in[1].sizes(),
              " must equal the input shape ", in[0].sizes(), " (the public function broadcasts them)");
  NABLA_CHECK(a.i(0) >= 0, op.name, ": count must be non-negative, got ", a.i(0));
  return {{Shape{a.i(0)}, in[0].dtype()}};
}
TensorList masked_select_grad(GradCtx& c) {
  // Element p of x went to output position (number of true elements before p).
  Tensor mask = c.input(1);
  const Tensor& g = c.grad();
  Tensor zero = zeros({}, TensorOptions(g.dtype()).device(g.device()));
  if (c.attrs().i(0) == 0) return {expand(zero, c.input_sizes(0)), Tensor()};
  Tensor flat = reshape(mask, {-1});
  Tensor pos = cumsum(flat, 0) - 1;
  pos = where(flat, pos, zeros_like(pos));
  return {where(mask, take(g, reshape(pos, mask.sizes())), zero), Tensor()};
}

// ---- one_hot ---------------------------------------------------------------
// inputs: index; attrs: num_classes (resolved by the wrapper)
OutputMetas infer_one_hot(const OpDef& op, Inputs in, const Attrs& a) {
  check_index_dtype(op, in[0]);
  NABLA_CHECK(a.i(0) >= 0, op.name, ": num_classes must be non-negative, got ", a.i(0));
  Shape s = in[0].sizes();
  s.push_back(a.i(0));
  return {{s, kInt64}};
}

// ---- masked_fill (composite) -------------------------------------------------
// inputs: x, mask, value (0-dim)
TensorList masked_fill_composite(Inputs in, const Attrs&) {
  const Tensor &x = in[0], &mask = in[1], &value = in[2];
  NABLA_CHECK(mask.dtype() == kBool, "masked_fill: mask must be a bool tensor, got ", mask.dtype());
  NABLA_CHECK(value.dim() == 0, "masked_fill: value must be a 0-dim tensor, got shape ", value.sizes());
  broadcast_shapes(x.sizes(), mask.sizes(), "masked_fill");
  return {where(mask, value.to(x.dtype()), x)};
}

}  // namespace

extern const OpDef gather_op, scatter_op, scatter_value_op, scatter_add_op, index_select_op, index_add_op, take_op,
    masked_select_op, one_hot_op, masked_fill_op;

extern constinit const OpDef gather_op{
    .name = "gather", .num_inputs = 2, .attr_names = "dim", .infer = infer_gather,
    .grad = [](GradCtx& c) -> TensorList {
      const Tensor& g = c.grad();
      Tensor z = zeros(c.input_sizes(0), TensorOptions(g.dtype()).device(g.device()));
      return {scatter_add(z, c.attrs().i(0), c.input(1), g), Tensor()};
    },
    .flags = kNativeReducedFloat, .save_inputs = 0b10};
extern constinit const OpDef scatter_op{
    .name = "scatter", .num_inputs = 3, .attr_names = "dim", .infer = infer_scatter,
    .grad = [](GradCtx& c) -> TensorList {
      int64_t dim = c.attrs().i(0);
      Tensor idx = c.input(1);
      return {c.needs_grad(0) ? scatter(c.grad(), dim, idx, Scalar(0)) : Tensor(), Tensor(), src_grad(c, idx)};
    },
    .flags = kNativeReducedFloat, .save_inputs = 0b010};
extern constinit const OpDef scatter_value_op{
    .name = "scatter_value", .num_inputs = 2, .attr_names = "dim,value", .infer = infer_scatter,
    .grad = [](GradCtx& c) -> TensorList {
      return {scatter(c.grad(), c.attrs().i(0), c.input(1), Scalar(0)), Tensor()};
    },
    .flags = kNativeReducedFloat, .save_inputs = 0b10};
extern constinit const OpDef scatter_add_op{
    .name = "scatter_add", .num_inputs = 3, .attr_names = "dim", .infer = infer_scatter,
    .grad = [](GradCtx& c) -> TensorList {
      return {c.grad(), Tensor(), src_grad(c, c.input(1))};
    },
    .save_inputs = 0b010};
extern constinit const OpDef index_select_op{
    .name = "index_select", .num_inputs = 2, .attr_names = "dim", .infer = infer_index_select,
    .grad = [](GradCtx& c) -> TensorList {
      const Tensor& g = c.grad();
      Tensor z = zeros(c.input_sizes(0), TensorOptions(g.dtype()).device(g.device()));
      return {index_add(z, c.attrs().i(0), c.input(1), g), Tensor()};
    },
    .flags = kNativeReducedFloat, .save_inputs = 0b10};
extern constinit const OpDef index_add_op{
    .name = "index_add", .num_inputs = 3, .attr_names = "dim", .infer = infer_index_add,
    .grad = [](GradCtx& c) -> TensorList {
      return {c.grad(), Tensor(), c.needs_grad(2) ? index_select(c.grad(), c.attrs().i(0), c.input(1)) : Tensor()};
    },
    .save_inputs = 0b010};
extern constinit const OpDef take_op{.name = "take", .num_inputs = 2, .infer = infer_take,
                                     .grad = take_grad, .flags = kNativeReducedFloat, .save_inputs = 0b10};
extern constinit const OpDef masked_select_op{.name = "masked_select", .num_inputs = 2, .attr_names = "count",
                                              .infer = infer_masked_select,
                                              .grad = masked_select_grad, .flags = kNativeReducedFloat,
                                              .save_inputs = 0b10};
extern constinit const OpDef one_hot_op{.name = "one_hot", .num_inputs = 1, .attr_names = "num_classes",
                                        .infer = infer_one_hot, .flags = kNonDifferentiable};
extern constinit const OpDef masked_fill_op{.name = "masked_fill", .num_inputs = 3, .composite = masked_fill_composite};

namespace {
detail::RegisterOps register_indexing{&gather_op,       &scatter_op,   &scatter_value_op, &scatter_add_op,
                                      &index_select_op, &index_add_op, &take_op,          &masked_select_op,
                                      &one_hot_op,      &masked_fill_op};
}

// Each public function names itself in any error of the ops it runs, also
// for an undefined argument it reads first (Note [User-facing op names]).
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) try {
  return call1(gather_op, {x, as_index(index, "gather")}, {wrap_dim(dim, x.dim(), "gather")});
} catch (const Error&) {
  detail::rethrow_naming("gather");
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) try {
  return call1(scatter_op, {x, as_index(index, "scatter"), src}, {wrap_dim(dim, x.dim(), "scatter")});
} catch (const Error&) {
  detail::rethrow_naming("scatter");
}
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value) try {
  return call1(scatter_value_op, {x, as_index(index, "scatter")}, {wrap_dim(dim, x.dim(), "scatter"), value});
} catch (const Error&) {
  detail::rethrow_naming("scatter");
}
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) try {
  return call1(scatter_add_op, {x, as_index(index, "scatter_add"), src}, {wrap_dim(dim, x.dim(), "scatter_add")});
} catch (const Error&) {
  detail::rethrow_naming("scatter_add");
}
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) try {
  return call1(index_select_op, {x, as_index(index, "index_select")}, {wrap_dim(dim, x.dim(), "index_select")});
} catch (const Error&) {
  detail::rethrow_naming("index_select");
}
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) try {
  // alpha scales the source up front, so the op and its rule need no alpha.
  bool unit = alpha.is_floating() ? alpha.to_double() == 1.0 : alpha.to_int() == 1;
  Tensor src = unit ? source : source * alpha;
  return call1(index_add_op, {x, as_index(index, "index_add"), src}, {wrap_dim(dim, x.dim(), "index_add")});
} catch (const Error&) {
  detail::rethrow_naming("index_add");
}
Tensor take(const Tensor& x, const Tensor& index) try {
  return call1(take_op, {x, as_index(index, "take")});
} catch (const Error&) {
  detail::rethrow_naming("take");
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) try {
  return call1(masked_fill_op, {x, mask, value});
} catch (const Error&) {
  detail::rethrow_naming("masked_fill");
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value) try {
  return masked_fill(x, mask, scalar_tensor(value, TensorOptions(x.dtype()).device(x.device())));
} catch (const Error&) {
  detail::rethrow_naming("masked_fill");
}
Tensor masked_select(const Tensor& x, const Tensor& mask) try {
  NABLA_CHECK(mask.dtype() == kBool, "masked_select: mask must be a bool tensor, got ", mask.dtype());
  Shape s = broadcast_shapes(x.sizes(), mask.sizes(), "masked_select");
  Tensor m = expand(mask, s);
  // The output's length depends on the mask's values: count them here so the
  // op's shape inference stays data-free.
  int64_t count = sum(m, {}, false, kInt64).item<int64_t>();
  return call1(masked_select_op, {expand(x, s), m}, {count});
} catch (const Error&) {
  detail::rethrow_naming("masked_select");
}
Tensor one_hot(const Tensor& index, int64_t num_classes) try {
  Tensor idx = as_index(index, "one_hot");
  NABLA_CHECK(num_classes >= -1, "one_hot: num_classes must be -1 (infer from the data) or non-negative, got ",
              num_classes);
  if (num_classes == -1) {
    NABLA_CHECK(idx.numel() > 0, "one_hot: cannot infer num_classes from an empty tensor (shape ", idx.sizes(),
                "); pass num_classes");
    num_classes = amax(idx).item<int64_t>() + 1;
  }
  return call1(one_hot_op, {idx}, {num_classes});
} catch (const Error&) {
  detail::rethrow_naming("one_hot");
}

}  // namespace nabla
