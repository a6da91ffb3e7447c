// Joining and splitting: cat (a kernel; its gradient narrows the output
// gradient back into pieces), and the composites stack, split,
// split_with_sizes, chunk, repeat and tile, whose gradients come from the view
// ops they are built of. Kernel: nabla/kernels/cpu/rearrange.cpp.
#include "nabla/core/user_op.h"
#include "nabla/ops/elementwise_common.h"
#include "nabla/ops/ops.h"

namespace nabla {
namespace {

// ---- cat --------------------------------------------------------------------
// inputs: the tensors (promoted to one dtype); attrs: dim (wrapped)
OutputMetas infer_cat(const OpDef& op, Inputs in, const Attrs& a) {
  NABLA_CHECK(!in.empty(), op.name, ": expected a non-empty list of tensors");
  int64_t dim = a.i(0);
  const Tensor& first = in[0];
  NABLA_CHECK(first.dim() > 0, op.name, ": zero-dimensional tensor (at position 0) cannot be concatenated");
  Shape s = first.sizes();
  for (std::size_t i = 1; i < in.size(); ++i) {
    const Tensor& t = in[i];
    NABLA_CHECK(t.dim() > 0, op.name, ": zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    NABLA_CHECK(t.dim() == first.dim(), op.name, ": tensor ", i, " has ", t.dim(), " dims (shape ", t.sizes(),
                ") but tensor 0 has ", first.dim(), " (shape ", first.sizes(), "); expected the same number of dims");
    for (int64_t d = 0; d < t.dim(); ++d)
      NABLA_CHECK(d == dim || t.sizes()[d] == first.sizes()[d], op.name, ": sizes of tensors must match except in dim ",
                  dim, ", but tensor 0 has shape ", first.sizes(), " and tensor ", i, " has shape ", t.sizes(),
                  " (they differ in dim ", d, ")");
    NABLA_CHECK(!__builtin_add_overflow(s[dim], t.sizes()[dim], &s[dim]), op.name, ": the sizes of dim ", dim,
                " sum past int64 at tensor ", i, " (shape ", t.sizes(), ")");
  }
  return {{s, first.dtype()}};
}
TensorList cat_grad(GradCtx& c) {
  int64_t dim = c.attrs().i(0), at = 0;
  TensorList grads;
  for (int i = 0; i < c.num_inputs(); ++i) {
    int64_t len = c.input_sizes(i)[dim];
    grads.push_back(c.needs_grad(i) ? narrow(c.grad(), dim, at, len) : Tensor());
    at += len;
  }
  return grads;
}

// ---- stack ------------------------------------------------------------------
// inputs: the tensors; attrs: dim (as given: it ranges over dims + 1)
TensorList stack_composite(Inputs in, const Attrs& a) {
  NABLA_CHECK(!in.empty(), "stack: expected a non-empty list of tensors");
  for (std::size_t i = 1; i < in.size(); ++i)
    NABLA_CHECK(in[i].sizes() == in[0].sizes(), "stack: expects each tensor to be equal size, but got ",
                in[0].sizes(), " at entry 0 and ", in[i].sizes(), " at entry ", i);
  int64_t dim = wrap_dim(a.i(0), in[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (const Tensor& t : in) parts.push_back(unsqueeze(t, dim));
  return {cat(parts, dim)};
}

// ---- split, split_with_sizes, chunk ---------------------------------------
TensorList split_by_sizes(const Tensor& x, const Shape& sizes, int64_t dim) {
  TensorList out;
  int64_t at = 0;
  for (int64_t n : sizes) {
    out.push_back(narrow(x, dim, at, n));
    at += n;
  }
  return out;
}
int64_t split_dim(const Tensor& x, int64_t dim, std::string_view op) {
  NABLA_CHECK(x.dim() > 0, op, ": expected a tensor with at least 1 dim, got a 0-dim tensor");
  return wrap_dim(dim, x.dim(), op);
}
// attrs: split_size, dim
TensorList split_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t dim = split_dim(x, a.i(1), "split"), size = a.i(0), n = x.sizes()[dim];
  NABLA_CHECK(size >= 0, "split: split_size must be non-negative, got ", size);
  NABLA_CHECK(size > 0 || n == 0, "split: split_size can only be 0 if dim ", dim, " has size 0, but it has size ", n);
  Shape sizes;
  for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return split_by_sizes(x, sizes, dim);
}
// attrs: split_sizes, dim
TensorList split_with_sizes_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t dim = split_dim(x, a.i(1), "split"), total = 0;
  const Shape& sizes = a.ints(0);
  for (int64_t s : sizes) {
    NABLA_CHECK(s >= 0, "split: split_sizes must be non-negative, got ", sizes);
    NABLA_CHECK(!__builtin_add_overflow(total, s, &total), "split: split_sizes ", sizes, " sum past int64 but dim ",
                dim, " has size ", x.sizes()[dim], " (expected them to sum to the size of the dim)");
  }
  NABLA_CHECK(total == x.sizes()[dim], "split: split_sizes ", sizes, " sum to ", total, " but dim ", dim,
              " has size ", x.sizes()[dim], " (expected them to sum to the size of the dim)");
  return split_by_sizes(x, sizes, dim);
}
// attrs: chunks, dim
TensorList chunk_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t chunks = a.i(0);
  NABLA_CHECK(chunks > 0, "chunk: chunks must be greater than 0, got ", chunks);
  int64_t dim = split_dim(x, a.i(1), "chunk"), n = x.sizes()[dim];
  if (n == 0) return split_by_sizes(x, Shape(static_cast<std::size_t>(chunks), 0), dim);
  Attrs split_attrs{(n - 1) / chunks + 1, dim};  // ceil(n / chunks), without n + chunks overflowing
  return split_composite(in, split_attrs);
}

// ---- repeat, tile -------------------------------------------------------------
void check_repeats(IntList repeats, std::string_view op) {
  for (int64_t r : repeats) NABLA_CHECK(r >= 0, op, ": repeats must be non-negative, got ", repeats);
}
// attrs: repeats
TensorList repeat_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  const Shape& reps = a.ints(0);
  check_repeats(reps, "repeat");
  NABLA_CHECK(static_cast<int64_t>(reps.size()) >= x.dim(), "repeat: the number of repeats (", reps.size(), ", ",
              reps, ") can't be smaller than the number of dims of the tensor (", x.dim(), ", shape ", x.sizes(), ")");
  // View x as [1, s0, 1, s1, ...], expand the 1s to the repeats, and merge
  // pairs: the gradient of expand sums the copies back.
  std::size_t lead = reps.size() - static_cast<std::size_t>(x.dim());
  Shape inter, target, result;
  for (std::size_t i = 0; i < reps.size(); ++i) {
    int64_t s = i < lead ? 1 : x.sizes()[i - lead];
    inter.push_back(1);
    inter.push_back(s);
    target.push_back(reps[i]);
    target.push_back(s);
  }
  // The repeated shape's element count must fit int64, so no reps[i] * s below
  // overflows (an unknown graph dim, -1, counts as 1).
  int64_t span = 1;
  for (int64_t d : target)
    NABLA_CHECK(!__builtin_mul_overflow(span, std::max<int64_t>(d, 1), &span), "repeat: repeats ", reps,
                " of a tensor of shape ", x.sizes(), " give more elements than fit in int64");
  for (std::size_t i = 0; i < reps.size(); ++i) result.push_back(target[2 * i] * target[2 * i + 1]);
  Tensor r = reshape(expand(reshape(x, inter), target), result);
  return {r.impl()->storage == x.impl()->storage ? clone(r) : r};  // repeat always copies, like PyTorch
}
// attrs: reps
TensorList tile_composite(Inputs in, const Attrs& a) {
  const Tensor& x = in[0];
  const Shape& reps = a.ints(0);
  check_repeats(reps, "tile");
  Shape full;
  for (int64_t i = static_cast<int64_t>(reps.size()); i < x.dim(); ++i) full.push_back(1);
  for (int64_t r : reps) full.push_back(r);
  return repeat_composite(in, Attrs{full});
}

}  // namespace

extern constinit const OpDef cat_op{.name = "cat", .num_inputs = -1, .attr_names = "dim", .infer = infer_cat,
                                    .grad = cat_grad, .flags = kNativeReducedFloat,
                                    .promote = Promote::Common, .save_inputs = 0};
extern constinit const OpDef stack_op{.name = "stack", .num_inputs = -1, .attr_names = "dim",
                                      .composite = stack_composite};
extern constinit const OpDef split_op{.name = "split", .attr_names = "split_size,dim", .composite = split_composite};
extern constinit const OpDef split_with_sizes_op{.name = "split_with_sizes", .attr_names = "split_sizes,dim",
                                                 .composite = split_with_sizes_composite};
extern constinit const OpDef chunk_op{.name = "chunk", .attr_names = "chunks,dim", .composite = chunk_composite};
extern constinit const OpDef repeat_op{.name = "repeat", .attr_names = "repeats", .composite = repeat_composite};
extern constinit const OpDef tile_op{.name = "tile", .attr_names = "reps", .composite = tile_composite};

namespace {
detail::RegisterOps register_join{&cat_op,   &stack_op,  &split_op, &split_with_sizes_op,
                                  &chunk_op, &repeat_op, &tile_op};

std::vector<Tensor> to_vector(const TensorList& l) { return std::vector<Tensor>(l.begin(), l.end()); }
}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  NABLA_CHECK(!tensors.empty(), "cat: expected a non-empty list of tensors");
  // PyTorch's legacy rule: 1-D tensors of size 0 are skipped (they need not
  // match the others' shape).
  std::vector<Tensor> kept;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    NABLA_CHECK(t.defined(), "cat: tensor ", i, " is an undefined tensor");
    if (!(t.dim() == 1 && t.numel() == 0)) kept.push_back(t);
  }
  if (kept.empty()) kept.push_back(tensors[0]);
  NABLA_CHECK(kept[0].dim() > 0, "cat: zero-dimensional tensor (at position 0) cannot be concatenated");
  return call1(cat_op, Inputs(kept.data(), kept.size()), {wrap_dim(dim, kept[0].dim(), "cat")});
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  return call1(stack_op, Inputs(tensors.data(), tensors.size()), {dim});
}
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  return to_vector(call(split_op, Inputs(&x, 1), {split_size, dim}));
}
std::vector<Tensor> split(const Tensor& x, IntList split_sizes, int64_t dim) try {
  return to_vector(call(split_with_sizes_op, Inputs(&x, 1), {split_sizes.shape(), dim}));
} catch (const Error&) {
  detail::rethrow_naming("split");  // the user called split, not split_with_sizes
}
std::vector<Tensor> split_with_sizes(const Tensor& x, IntList split_sizes, int64_t dim) {
  return to_vector(call(split_with_sizes_op, Inputs(&x, 1), {split_sizes.shape(), dim}));
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  return to_vector(call(chunk_op, Inputs(&x, 1), {chunks, dim}));
}
Tensor repeat(const Tensor& x, IntList repeats) { return call1(repeat_op, {x}, {repeats.shape()}); }
Tensor tile(const Tensor& x, IntList reps) { return call1(tile_op, {x}, {reps.shape()}); }

}  // namespace nabla
