#!/usr/bin/python3
"""Prints tests/ops/edge_reference_values.h: PyTorch's forward values and
input gradients for the edge-value cases of tests/ops/edge_values_test.cpp.

Each case names a function (a key of FNS below; the C++ test keeps the same
key with the same call through nabla's public API) and gives its inputs:
zeros (of both signs), ties, NaN and +-inf where they mean something. All
floating inputs are float64; F inputs are differentiated, C inputs are
floating constants (targets, weights), I inputs are int64 and B inputs bool.

The vjp_ cases take the gradient of an op as their function of (x, u), so
the ops that only run inside gradient rules (*_backward) get edge values in u
and are differentiated in turn (gradients of gradients, as PyTorch's).

The gradients are vector-Jacobian products with the fixed upstream gradient
    u_k[i] = 1 + 0.25 * ((i + k) % 5)     (output k, flat index i),
which tells permutations apart (sort, flip, gather) and is exact in binary.

Run with Debian's python3-torch (1.13):
  /usr/bin/python3 tests/ops/make_edge_reference.py > tests/ops/edge_reference_values.h
"""
import math
import warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.set_default_dtype(torch.float64)

nan, inf = math.nan, math.inf
E = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5]  # the standard edge vector


class In:
    def __init__(self, kind, values, shape=None):
        self.kind = kind  # F, C, I or B
        self.values = [float(v) for v in values] if kind in "FC" else [int(v) for v in values]
        self.shape = list(shape) if shape is not None else [len(values)]
        assert math.prod(self.shape) == len(self.values), (values, shape)

    def torch(self):
        if self.kind in "FC":
            t = torch.tensor(self.values, dtype=torch.float64).reshape(self.shape)
            return t.requires_grad_(self.kind == "F")
        dtype = torch.int64 if self.kind == "I" else torch.bool
        return torch.tensor(self.values, dtype=dtype).reshape(self.shape)


def Fl(values, shape=None):
    return In("F", values, shape)


def Co(values, shape=None):
    return In("C", values, shape)


def Ix(values, shape=None):
    return In("I", values, shape)


def Bo(values, shape=None):
    return In("B", values, shape)


def first(r):
    return r[0]


# ---- the functions (same keys and calls as kEdgeFns in edge_values_test.cpp) ----
FNS = {
    # unary
    "neg": lambda x: -x, "abs": torch.abs, "sign": torch.sign, "square": torch.square,
    "relu": torch.relu, "exp": torch.exp, "exp2": torch.exp2, "log": torch.log, "log2": torch.log2,
    "log1p": torch.log1p, "expm1": torch.expm1, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "sin": torch.sin, "cos": torch.cos, "tan": torch.tan, "tanh": torch.tanh,
    "sigmoid": torch.sigmoid, "erf": torch.erf, "silu": F.silu, "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "floor": torch.floor, "ceil": torch.ceil,
    "round": torch.round, "trunc": torch.trunc,
    "leaky_relu": F.leaky_relu, "leaky_relu_0.2": lambda x: F.leaky_relu(x, 0.2),
    "elu": F.elu, "elu_0.5": lambda x: F.elu(x, 0.5),
    "softplus": F.softplus, "softplus_2_4": lambda x: F.softplus(x, 2.0, 4.0),
    "pow_2": lambda x: x.pow(2.0), "pow_0.5": lambda x: x.pow(0.5), "pow_0": lambda x: x.pow(0.0),
    "pow_-1": lambda x: x.pow(-1.0), "pow_3": lambda x: x.pow(3.0), "pow_1.5": lambda x: x.pow(1.5),
    "clamp": lambda x: x.clamp(-0.5, 0.5), "clamp_min": lambda x: x.clamp(min=0.0),
    "clamp_max": lambda x: x.clamp(max=0.0), "clamp_tight": lambda x: x.clamp(1.0, 1.0),
    "clamp_min_nan": lambda x: x.clamp(min=nan), "clamp_max_nan": lambda x: x.clamp(max=nan),
    "clamp_nan_max": lambda x: x.clamp(0.0, nan), "clamp_nan_min": lambda x: x.clamp(nan, 1.0),
    # binary
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div,
    "div_floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"),
    "remainder": torch.remainder, "maximum": torch.maximum, "minimum": torch.minimum, "pow": torch.pow,
    "where": torch.where, "copy": lambda x: torch.zeros(x.shape).copy_(x),
    "cast_f32": lambda x: x.float().double(),
    # reductions
    "sum": torch.sum, "sum_1": lambda x: x.sum(1), "prod": torch.prod, "prod_1": lambda x: x.prod(1),
    "max_all": torch.max, "min_all": torch.min,
    "amax_1": lambda x: x.amax(1), "amin_1": lambda x: x.amin(1), "amax": torch.amax, "amin": torch.amin,
    "max_dim_1": lambda x: torch.max(x, 1), "min_dim_1": lambda x: torch.min(x, 1),
    "cumsum_1": lambda x: x.cumsum(1), "cumprod_1": lambda x: x.cumprod(1),
    "mean_1": lambda x: x.mean(1), "var_1": lambda x: x.var(1), "var_1_c0": lambda x: x.var(1, unbiased=False),
    "std_1": lambda x: x.std(1), "std_1_c0": lambda x: x.std(1, unbiased=False),
    "norm": lambda x: torch.linalg.vector_norm(x),
    "norm_2_1": lambda x: torch.linalg.vector_norm(x, 2, dim=1),
    "norm_1_1": lambda x: torch.linalg.vector_norm(x, 1, dim=1),
    "norm_inf_1": lambda x: torch.linalg.vector_norm(x, inf, dim=1),
    "norm_-inf_1": lambda x: torch.linalg.vector_norm(x, -inf, dim=1),
    "norm_3_1": lambda x: torch.linalg.vector_norm(x, 3, dim=1),
    "norm_0.5_1": lambda x: torch.linalg.vector_norm(x, 0.5, dim=1),
    "norm_1.5_1": lambda x: torch.linalg.vector_norm(x, 1.5, dim=1),
    "logsumexp_1": lambda x: torch.logsumexp(x, 1),
    # softmax, sorting
    "softmax_1": lambda x: torch.softmax(x, 1), "log_softmax_1": lambda x: torch.log_softmax(x, 1),
    "sort": lambda x: torch.sort(x, stable=True), "sort_desc": lambda x: torch.sort(x, descending=True, stable=True),
    "argsort": lambda x: torch.argsort(x, stable=True),
    "topk_3": lambda x: torch.topk(x, 3), "topk_3_smallest": lambda x: torch.topk(x, 3, largest=False),
    # shape and indexing
    "view": lambda x: x.view(2, -1), "permute": lambda x: x.permute(1, 0), "slice": lambda x: x[:, 1::2],
    "select": lambda x: x[1], "expand": lambda x: x.expand(3, -1), "unfold": lambda x: x.unfold(0, 2, 1),
    "clone": torch.clone, "to_device": torch.clone, "flip": lambda x: x.flip(0), "tril": torch.tril, "triu": torch.triu,
    "roll": lambda x: x.roll(1, 1), "cat": lambda a, b: torch.cat([a, b]), "stack": lambda a, b: torch.stack([a, b]),
    "split": lambda x: x.split(2), "split_sizes": lambda x: x.split([1, 3]), "chunk": lambda x: x.chunk(2),
    "repeat": lambda x: x.repeat(2, 1), "tile": lambda x: x.tile(2),
    "pad_constant_nan": lambda x: F.pad(x, (1, 1), value=nan), "pad_reflect": lambda x: F.pad(x, (2, 1), "reflect"),
    "pad_replicate": lambda x: F.pad(x, (2, 1), "replicate"),
    "gather": lambda x, i: torch.gather(x, 1, i), "scatter": lambda x, i, s: torch.scatter(x, 1, i, s),
    "scatter_value": lambda x, i: torch.scatter(x, 1, i, nan), "scatter_add": lambda x, i, s: torch.scatter_add(x, 1, i, s),
    "index_select": lambda x, i: torch.index_select(x, 0, i), "index_add": lambda x, i, s: torch.index_add(x, 0, i, s),
    "take": torch.take, "masked_select": torch.masked_select,
    "masked_fill_nan": lambda x, m: x.masked_fill(m, nan), "masked_fill_t": lambda x, m, v: x.masked_fill(m, v),
    "embedding": lambda i, w: F.embedding(i, w), "embedding_pad": lambda i, w: F.embedding(i, w, padding_idx=1),
    # linear algebra, convolution, pooling, resampling
    "mm": torch.mm, "bmm": torch.bmm,
    "conv2d": lambda x, w, b: F.conv2d(x, w, b, padding=1),
    "conv2d_relu": lambda x, w, b: torch.relu(F.conv2d(x, w, b)),
    "conv_transpose2d": lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2),
    "max_pool2d": lambda x: F.max_pool2d(x, 2), "max_pool2d_pad": lambda x: F.max_pool2d(x, 3, 1, 1),
    "max_pool2d_indices": lambda x: F.max_pool2d(x, 2, return_indices=True),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 2), "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, (1, 2)),
    "upsample_nearest2d": lambda x: F.interpolate(x, scale_factor=2.0, mode="nearest"),
    "upsample_bilinear2d": lambda x: F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True),
    "upsample_bilinear2d_half": lambda x: F.interpolate(x, scale_factor=2.0, mode="bilinear", align_corners=False),
    # normalization, dropout
    "batch_norm": lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
    "batch_norm_eval": lambda x, rm, rv: F.batch_norm(x, rm, rv, training=False),
    "layer_norm": lambda x, w, b: F.layer_norm(x, [3], w, b),
    "group_norm": lambda x, w, b: F.group_norm(x, 2, w, b),
    "dropout_p0": lambda x: F.dropout(x, 0.0), "dropout_p1": lambda x: F.dropout(x, 1.0),
    "dropout_eval": lambda x: F.dropout(x, 0.5, training=False),
    # losses
    "cross_entropy": lambda x, t: F.cross_entropy(x, t),
    "cross_entropy_none": lambda x, t: F.cross_entropy(x, t, reduction="none"),
    "cross_entropy_sum": lambda x, t: F.cross_entropy(x, t, reduction="sum"),
    "cross_entropy_w": lambda x, t, w: F.cross_entropy(x, t, w),
    "cross_entropy_smooth": lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2),
    "cross_entropy_w_smooth": lambda x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.2),
    "cross_entropy_probs": lambda x, t: F.cross_entropy(x, t),
    "nll_loss": lambda x, t: F.nll_loss(x, t), "nll_loss_w": lambda x, t, w: F.nll_loss(x, t, w),
    "nll_loss_none": lambda x, t: F.nll_loss(x, t, reduction="none"),
    "mse_loss": F.mse_loss, "l1_loss": F.l1_loss, "l1_loss_none": lambda x, t: F.l1_loss(x, t, reduction="none"),
    "smooth_l1_loss_none": lambda x, t: F.smooth_l1_loss(x, t, reduction="none"),
    "smooth_l1_loss_b0": lambda x, t: F.smooth_l1_loss(x, t, reduction="none", beta=0.0),
    "huber_loss_none": lambda x, t: F.huber_loss(x, t, reduction="none"),
    "binary_cross_entropy_none": lambda x, t: F.binary_cross_entropy(x, t, reduction="none"),
    "binary_cross_entropy_with_logits_none": lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
    "kl_div_none": lambda x, t: F.kl_div(x, t, reduction="none"),
    "kl_div_log_target_none": lambda x, t: F.kl_div(x, t, reduction="none", log_target=True),
}


# The gradient of a case's op, u^T d op(x) / dx, as a function of x and u:
# its forward runs the op's gradient rule (nabla's *_backward ops), and
# differentiating it runs those ops' own rules.
def vjp(op):
    return lambda x, u: torch.autograd.grad(op(x), x, u, create_graph=True)[0]


FNS.update({
    "vjp_upsample_nearest2d": vjp(FNS["upsample_nearest2d"]),
    "vjp_upsample_bilinear2d": vjp(FNS["upsample_bilinear2d"]),
    "vjp_pad_constant": vjp(lambda x: F.pad(x, (1, 1), value=0.0)),
    "vjp_pad_reflect": vjp(FNS["pad_reflect"]),
    "vjp_slice": vjp(FNS["slice"]), "vjp_select": vjp(FNS["select"]), "vjp_unfold": vjp(FNS["unfold"]),
    "vjp_relu": vjp(torch.relu), "vjp_max_pool2d": vjp(FNS["max_pool2d"]), "vjp_avg_pool2d": vjp(FNS["avg_pool2d"]),
    "vjp_adaptive_avg_pool2d": vjp(FNS["adaptive_avg_pool2d"]),
    "vjp_conv2d_weight": lambda x, w, u: torch.autograd.grad(F.conv2d(x, w, padding=1), w, u, create_graph=True)[0],
    "vjp_embedding": lambda i, w, u: torch.autograd.grad(F.embedding(i, w), w, u, create_graph=True)[0],
    "vjp_embedding_pad": lambda i, w, u: torch.autograd.grad(F.embedding(i, w, padding_idx=1), w, u,
                                                             create_graph=True)[0],
    "vjp_batch_norm": lambda x, w, u: torch.autograd.grad(F.batch_norm(x, None, None, w, None, training=True), x, u,
                                                          create_graph=True)[0],
    "max_pool2d_gather": lambda src, idx: torch.gather(src.flatten(2), 2, idx.flatten(2)).view(idx.shape),
})

# ---- the cases -------------------------------------------------------------
A = [nan, 1.0, nan, 2.0, 1.0, inf, -inf, 0.0, 0.0, -0.0, inf, 2.0, -2.0, 0.0, 3.0]
B = [1.0, nan, nan, 2.0, 3.0, inf, 1.0, -0.0, 0.0, 0.0, -inf, 0.0, 0.0, -1.0, -inf]
CASES = []


def case(fn, *inputs):
    CASES.append((fn, list(inputs)))


UNARY = ["neg", "abs", "sign", "square", "relu", "exp", "exp2", "log", "log2", "log1p", "expm1", "sqrt", "rsqrt",
         "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "silu", "gelu", "gelu_tanh", "floor", "ceil",
         "round", "trunc", "leaky_relu", "leaky_relu_0.2", "elu", "elu_0.5", "softplus", "softplus_2_4", "pow_2",
         "pow_0.5", "pow_0", "pow_-1", "pow_3", "pow_1.5", "clamp", "clamp_min", "clamp_max", "clamp_tight",
         "clamp_min_nan", "clamp_max_nan", "clamp_nan_max", "clamp_nan_min", "copy", "cast_f32", "clone", "to_device", "dropout_p0", "dropout_p1", "dropout_eval"]
for fn in UNARY:
    case(fn, Fl(E))
case("log1p", Fl([-1.0, -2.0, -0.0]))
case("softplus", Fl([20.0, 19.5, 20.5, -30.0, -800.0]))
case("softplus_2_4", Fl([2.0, 1.5, 2.5]))
case("round", Fl([0.5, 1.5, 2.5, -0.5, -2.5]))
case("clamp", Fl([0.5, -0.5, 0.25]))

for fn in ["add", "sub", "mul", "div", "div_floor", "div_trunc", "remainder", "maximum", "minimum"]:
    case(fn, Fl(A), Fl(B))
case("pow", Fl([0.0, 0.0, 0.0, 0.0, -2.0, 2.0, nan, 1.0, inf, 0.0, -1.0, 2.0, -0.0]),
     Fl([0.0, 2.0, -1.0, 0.5, 0.5, 0.0, 0.0, nan, -1.0, -0.5, inf, -inf, 3.0]))
case("where", Bo([1, 0, 1, 0]), Fl([nan, 1.0, inf, 0.0]), Fl([2.0, nan, -inf, -0.0]))

ROWS = [0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, -0.0, 3.0, 2.0, 2.0, 2.0, 1.0, nan, 3.0, inf, 1.0, 1.0, -inf, 2.0, 0.0,
        -inf, -inf, -inf]  # zero row, a zero, signed zeros, constant, NaN, +inf, -inf, all -inf
R = (8, 3)
for fn in ["sum", "sum_1", "amax_1", "amin_1", "max_dim_1", "min_dim_1", "cumsum_1", "cumprod_1", "mean_1",
           "std_1", "std_1_c0", "norm_2_1", "norm_1_1", "norm_3_1", "norm_0.5_1", "norm_1.5_1", "logsumexp_1",
           "softmax_1", "log_softmax_1"]:
    case(fn, Fl(ROWS, R))
for fn in ["norm_inf_1", "norm_-inf_1"]:
    case(fn, Fl(ROWS, R))
for fn in ["var_1", "var_1_c0"]:
    case(fn, Fl(ROWS, R))
TIES = [1.0, 3.0, 3.0, 2.0, 2.0, 2.0, nan, nan, 1.0, inf, inf, 1.0, -inf, -inf, 0.0, 0.0, 0.0, 2.0, 1.0, 0.0, 2.0]
for fn in ["amax_1", "amin_1", "max_dim_1", "min_dim_1", "cumprod_1", "norm_inf_1", "norm_-inf_1", "logsumexp_1",
           "softmax_1", "log_softmax_1"]:
    case(fn, Fl(TIES, (7, 3)))
# prod: zeros and non-finite values in separate tensors. PyTorch switches the
# whole tensor to exclusive products when it holds a zero anywhere, so an
# inf/NaN element's gradient depends on other slices there (docs/autograd.md).
case("prod_1", Fl([0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, -0.0, 3.0, 2.0, 2.0, 2.0, 0.0, 0.0, 2.0, 1.0, 3.0, 3.0], (6, 3)))
case("prod_1", Fl([1.0, nan, 3.0, inf, 1.0, 1.0, -inf, -inf, -inf, nan, nan, 1.0, inf, inf, 1.0, 2.0, 2.0, 2.0], (6, 3)))
for fn in ["max_all", "min_all"]:
    case(fn, Fl([1.0, nan, 3.0, nan]))
    case(fn, Fl([3.0, 1.0, 3.0, 1.0]))
    case(fn, Fl([-inf, inf, 0.0, inf, -inf]))
for fn in ["prod", "amax", "amin", "norm"]:
    case(fn, Fl([0.0, 0.0, 0.0, 0.0]))
    case(fn, Fl([2.0, 0.0, 2.0, -1.0]))
case("var_1", Fl([2.0, 3.0, nan], (3, 1)))
case("std_1", Fl([2.0, 3.0, nan], (3, 1)))
case("std_1_c0", Fl([2.0, 3.0, nan], (3, 1)))

S = [3.0, nan, 1.0, inf, -inf, 1.0, 0.0, -0.0]
for fn in ["sort", "sort_desc", "argsort"]:
    case(fn, Fl(S))
# topk without ties: PyTorch leaves the order of tied values unspecified.
for fn in ["topk_3", "topk_3_smallest"]:
    case(fn, Fl([3.0, nan, 1.0, inf, -inf, 2.0, 0.0, -1.0]))

M = [nan, inf, -inf, 0.0, -0.0, 1.0]
for fn in ["view", "permute", "slice", "select", "expand", "tril", "triu", "roll", "repeat", "flip",
           "pad_constant_nan", "pad_reflect", "pad_replicate"]:
    case(fn, Fl(M, (2, 3)) if fn != "expand" else Fl(M[:3], (1, 3)))
for fn in ["unfold", "split", "split_sizes", "chunk", "tile"]:
    case(fn, Fl([nan, inf, -inf, 0.0]))
case("cat", Fl([nan, inf]), Fl([-inf, 0.0, 1.0]))
case("stack", Fl([nan, inf]), Fl([-inf, 0.0]))
case("gather", Fl(M, (2, 3)), Ix([0, 0, 2, 1], (2, 2)))
case("scatter", Fl(M, (2, 3)), Ix([0, 0, 2, 1], (2, 2)), Fl([1.0, nan, inf, 2.0], (2, 2)))
case("scatter_value", Fl(M, (2, 3)), Ix([0, 0, 2, 1], (2, 2)))
case("scatter_add", Fl(M, (2, 3)), Ix([0, 0, 2, 2], (2, 2)), Fl([1.0, nan, inf, -inf], (2, 2)))
case("index_select", Fl(M, (2, 3)), Ix([1, 1, 0]))
case("index_add", Fl(M, (2, 3)), Ix([1, 1]), Fl([1.0, nan, -inf, 2.0, 3.0, inf], (2, 3)))
case("take", Fl(M, (2, 3)), Ix([5, 0, 0, 1]))
case("masked_select", Fl(M, (2, 3)), Bo([1, 0, 1, 1, 0, 1], (2, 3)))
case("masked_fill_nan", Fl(M, (2, 3)), Bo([1, 0, 1, 1, 0, 1], (2, 3)))
case("masked_fill_t", Fl(M, (2, 3)), Bo([1, 0, 1, 1, 0, 1], (2, 3)), Fl([inf], []))
case("embedding", Ix([1, 0, 1, 2]), Fl([nan, 1.0, inf, -inf, 0.0, 2.0], (3, 2)))
case("embedding_pad", Ix([1, 0, 1, 2]), Fl([nan, 1.0, inf, -inf, 0.0, 2.0], (3, 2)))

case("mm", Fl([inf, 0.0, 1.0, nan], (2, 2)), Fl([0.0, 1.0, 1.0, -inf], (2, 2)))
case("mm", Fl([0.0, 0.0, 0.0, 0.0], (2, 2)), Fl([inf, 1.0, 2.0, 3.0], (2, 2)))
case("bmm", Fl([inf, 0.0, 1.0, nan], (1, 2, 2)), Fl([0.0, 1.0, 1.0, -inf], (1, 2, 2)))
IMG = [1.0, nan, 2.0, 0.0, inf, 1.0, 1.0, 3.0, -inf, 2.0, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0]
case("conv2d", Fl(IMG, (1, 1, 4, 4)), Fl([1.0, 0.0, 0.0, 2.0, 0.0, -1.0, 0.0, 0.5, 0.0], (1, 1, 3, 3)), Fl([0.0]))
case("conv2d", Fl([0.0] * 9, (1, 1, 3, 3)), Fl([inf, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], (1, 1, 3, 3)), Fl([nan]))
# ReLU on the convolution's output (one oneDNN primitive in float32): NaN kept and its gradient passed.
case("conv2d_relu", Fl([nan, -1.0, 0.0, 2.0], (1, 1, 2, 2)), Fl([1.5], (1, 1, 1, 1)), Fl([0.5]))
case("conv_transpose2d", Fl([1.0, nan, 0.0, inf], (1, 1, 2, 2)), Fl([1.0, 0.0, 2.0, -1.0], (1, 1, 2, 2)), Fl([0.5]))
MAXP = [1.0, 3.0, nan, 0.0, 3.0, 2.0, 1.0, nan, 2.0, 2.0, -inf, -inf, 2.0, 2.0, -inf, -inf]
for fn in ["max_pool2d", "max_pool2d_pad", "max_pool2d_indices", "avg_pool2d", "adaptive_avg_pool2d",
           "upsample_nearest2d"]:
    case(fn, Fl(MAXP, (1, 1, 4, 4)))
case("max_pool2d", Fl([-inf] * 4 + [inf, inf, 1.0, inf], (1, 2, 2, 2)))
case("upsample_bilinear2d", Fl([1.0, inf, nan, 0.0], (1, 1, 2, 2)))
case("upsample_bilinear2d_half", Fl([1.0, inf, -1.0, 0.0], (1, 1, 2, 2)))

# Gradients of gradients: the upstream gradient u carries the edge values.
U4 = [nan, 1.0, inf, -inf]
U9 = [nan, 1.0, inf, 0.0, -0.0, 2.0, -inf, 1.0, 0.5]
case("vjp_upsample_nearest2d", Fl([1.0, 2.0, 3.0, 4.0], (1, 1, 2, 2)), Fl(U9 + [1.0] * 7, (1, 1, 4, 4)))
case("vjp_upsample_bilinear2d", Fl([1.0, 2.0, 3.0, 4.0], (1, 1, 2, 2)), Fl(U9, (1, 1, 3, 3)))
case("vjp_pad_constant", Fl([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (2, 3)), Fl(U9 + [1.0], (2, 5)))
case("vjp_pad_reflect", Fl([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (2, 3)), Fl(U9 + [1.0, 2.0, 3.0], (2, 6)))
case("vjp_slice", Fl([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (2, 3)), Fl([nan, inf], (2, 1)))
case("vjp_select", Fl([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (2, 3)), Fl([nan, inf, -0.0]))
case("vjp_unfold", Fl([1.0, 2.0, 3.0, 4.0]), Fl([nan, 1.0, inf, -inf, 0.0, 2.0], (3, 2)))
# relu's backward (threshold_backward): NaN passes u, 0 and -0 block it (a NaN u too).
case("vjp_relu", Fl([nan, -1.0, 0.0, -0.0, 2.0, inf, -inf, 0.5]), Fl([1.0, nan, inf, -inf, nan, 2.0, nan, -0.0]))
case("vjp_max_pool2d", Fl([1.0, 3.0, 2.0, 0.0, 3.0, 2.0, 1.0, 2.0, 2.0, 2.0, -inf, -inf, 2.0, 2.0, -inf, -inf],
                         (1, 1, 4, 4)), Fl(U4, (1, 1, 2, 2)))
case("vjp_avg_pool2d", Fl([1.0] * 16, (1, 1, 4, 4)), Fl(U4, (1, 1, 2, 2)))
case("vjp_adaptive_avg_pool2d", Fl([1.0] * 15, (1, 1, 3, 5)), Fl([nan, inf], (1, 1, 1, 2)))
case("vjp_conv2d_weight", Fl([1.0, 0.0, inf, 2.0, 0.0, 1.0, 1.0, 1.0, 1.0], (1, 1, 3, 3)),
     Fl([1.0, 0.0, 2.0, 0.0], (1, 1, 2, 2)), Fl([1.0, nan, 0.0, -inf, 2.0, 0.0, 1.0, 1.0, 0.0, 2.0, 1.0, 0.5,
                                                  1.0, 1.0, 1.0, 1.0], (1, 1, 4, 4)))
case("vjp_embedding", Ix([1, 0, 1, 2]), Fl([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (3, 2)),
     Fl([nan, 1.0, inf, -inf, 0.0, 2.0, 1.0, -0.0], (4, 2)))
case("vjp_embedding_pad", Ix([1, 0, 1, 2]), Fl([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], (3, 2)),
     Fl([nan, 1.0, inf, -inf, 0.0, 2.0, 1.0, -0.0], (4, 2)))
case("max_pool2d_gather", Fl([nan, 1.0, inf, -inf, 0.0, 2.0, 1.0, -0.0], (1, 2, 2, 2)), Ix([3, 0, 1, 1], (1, 2, 1, 2)))

NORM_IN = [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0, 4.0]
case("batch_norm", Fl(NORM_IN, (4, 3)), Fl([1.0, 0.0, 2.0]), Fl([0.0, 1.0, -1.0]))
case("batch_norm", Fl([1.0, nan, 3.0, inf, 1.0, 2.0], (2, 3)), Fl([1.0, 1.0, 1.0]), Fl([0.0, 0.0, 0.0]))
# batch_norm's gradient (native_batch_norm_backward on the CPU), and its own gradients.
case("vjp_batch_norm", Fl(NORM_IN, (4, 3)), Fl([1.0, 0.5, 2.0]),
     Fl([1.0, -1.0, 0.5, 2.0, 0.0, -0.5, 1.5, 1.0, 3.0, -2.0, 2.5, 0.25], (4, 3)))
case("vjp_batch_norm", Fl(NORM_IN, (4, 3)), Fl([1.0, 0.5, 2.0]),
     Fl([1.0, nan, 2.0, -1.0, 1.0, 0.5, 0.0, 2.0, inf, 3.0, -2.0, 1.0], (4, 3)))
case("batch_norm_eval", Fl([1.0, nan, inf, 0.0, 1.0, -inf], (2, 3)), Co([0.0, 1.0, 0.0]), Co([1.0, 0.0, 4.0]))
case("layer_norm", Fl(NORM_IN, (4, 3)), Fl([1.0, 0.0, 2.0]), Fl([0.0, 1.0, -1.0]))
case("layer_norm", Fl([1.0, nan, 3.0, inf, 1.0, 2.0], (2, 3)), Fl([1.0, 1.0, 1.0]), Fl([0.0, 0.0, 0.0]))
case("group_norm", Fl(NORM_IN, (1, 4, 3)), Fl([1.0, 0.0, 2.0, 1.0]), Fl([0.0, 1.0, -1.0, 0.0]))
case("group_norm", Fl([1.0, nan, 3.0, inf, 1.0, 2.0, 0.0, 0.0], (1, 4, 2)), Fl([1.0] * 4), Fl([0.0] * 4))

LOGITS = [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, inf, 0.0, 0.0, -inf, 0.0, 1.0, 1.0, nan, 0.0]
case("cross_entropy", Fl(LOGITS[:6], (2, 3)), Ix([-100, -100]))
case("cross_entropy", Fl(LOGITS[:6], (2, 3)), Ix([2, -100]))
case("cross_entropy_none", Fl(LOGITS, (5, 3)), Ix([0, -100, 1, 0, 2]))
case("cross_entropy_none", Fl(LOGITS, (5, 3)), Ix([0, 1, 0, 2, 0]))
case("cross_entropy_sum", Fl(LOGITS[:6], (2, 3)), Ix([-100, -100]))
case("cross_entropy_w", Fl(LOGITS[:6], (2, 3)), Ix([-100, -100]), Co([1.0, 0.0, 2.0]))
case("cross_entropy_w", Fl(LOGITS[:6], (2, 3)), Ix([1, 1]), Co([1.0, 0.0, 2.0]))
case("cross_entropy_w", Fl(LOGITS[:6], (2, 3)), Ix([1, -100]), Co([1.0, 0.0, 2.0]))
case("cross_entropy_smooth", Fl(LOGITS[:6], (2, 3)), Ix([-100, -100]))
case("cross_entropy_w_smooth", Fl(LOGITS[:6], (2, 3)), Ix([-100, -100]), Co([1.0, 0.0, 2.0]))
case("cross_entropy_probs", Fl([0.0, -inf, 1.0, 2.0, 0.0, 0.0], (2, 3)), Co([1.0, 0.0, 0.0, 0.5, 0.5, 0.0], (2, 3)))
LOGP = [-1.0, -2.0, -inf, 0.0, nan, -0.5]
case("nll_loss", Fl(LOGP, (2, 3)), Ix([-100, -100]))
case("nll_loss", Fl(LOGP, (2, 3)), Ix([2, 0]))
case("nll_loss_w", Fl(LOGP, (2, 3)), Ix([-100, -100]), Co([1.0, 0.0, 2.0]))
case("nll_loss_w", Fl(LOGP, (2, 3)), Ix([1, -100]), Co([1.0, 0.0, 2.0]))
case("nll_loss_w", Fl(LOGP, (2, 3)), Ix([1, 1]), Co([1.0, 0.0, 2.0]))
case("nll_loss_none", Fl(LOGP, (2, 3)), Ix([1, -100]))
X = [nan, inf, 1.0, 0.0, 2.0, 1.0, -inf]
T = [0.0, inf, 1.0, 0.0, 1.0, 0.0, 1.0]
for fn in ["mse_loss", "l1_loss", "l1_loss_none", "smooth_l1_loss_none", "huber_loss_none"]:
    case(fn, Fl(X), Co(T))
# beta = 0 away from d = 0 and NaN, where PyTorch 1.13's backward is not the
# L1 loss its documentation says it is (docs/autograd.md; edge_gradients_test.cpp).
case("smooth_l1_loss_b0", Fl([inf, 2.0, -inf, 3.0, 0.5]), Co([1.0, 0.0, 1.0, 4.0, -inf]))
case("smooth_l1_loss_none", Fl([1.0, -1.0, 0.5, 2.0]), Co([0.0, 0.0, 0.0, 0.0]))
case("huber_loss_none", Fl([1.0, -1.0, 0.5, 2.0]), Co([0.0, 0.0, 0.0, 0.0]))
case("binary_cross_entropy_none", Fl([0.0, 1.0, 0.0, 1.0, 0.5]), Co([0.0, 1.0, 1.0, 0.0, 0.5]))
case("binary_cross_entropy_with_logits_none", Fl([inf, -inf, inf, -inf, 0.0, nan, 800.0]),
     Co([1.0, 0.0, 0.0, 1.0, 0.5, 1.0, 0.0]))
case("kl_div_none", Fl([-1.0, -inf, 0.0, -inf, nan]), Co([0.0, 0.0, 1.0, 0.5, 1.0]))
case("kl_div_log_target_none", Fl([-1.0, -inf, 0.0, -inf]), Co([-inf, -inf, 0.0, 0.0]))


# ---- running a case under PyTorch ----------------------------------------------
def upstream(n, k):
    return [1.0 + 0.25 * ((i + k) % 5) for i in range(n)]


def run(fn, inputs):
    args = [x.torch() for x in inputs]
    outs = FNS[fn](*args)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    diff = [a for a in args if a.requires_grad]
    roots, us = [], []
    for k, o in enumerate(outs):
        if o.requires_grad:
            roots.append(o)
            us.append(torch.tensor(upstream(o.numel(), k)).reshape(o.shape))
    grads = [None] * len(diff)
    if roots and diff:
        grads = torch.autograd.grad(roots, diff, us, allow_unused=True)
    return outs, grads


def lit(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, int):
        return str(v)
    if math.isnan(v):
        return "kNaN"
    if math.isinf(v):
        return "kInf" if v > 0 else "-kInf"
    return repr(v)


def tensor_lit(kind, t_shape, values):
    return '{\'%s\', {%s}, {%s}}' % (kind, ", ".join(str(d) for d in t_shape), ", ".join(lit(v) for v in values))


def out_lit(t):
    kind = "F" if t.is_floating_point() else ("B" if t.dtype == torch.bool else "I")
    vals = t.detach().reshape(-1).tolist()
    return tensor_lit(kind, list(t.shape), vals)


def main():
    print("// Generated by tests/ops/make_edge_reference.py with PyTorch %s; do not edit." % torch.__version__)
    print("// PyTorch's outputs and input gradients for the edge-value cases (float64).")
    print("#pragma once")
    print("#include <cstdint>")
    print("#include <limits>")
    print("#include <vector>")
    print()
    print("namespace nabla::testing::edge_reference {")
    print()
    print("inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();")
    print("inline constexpr double kInf = std::numeric_limits<double>::infinity();")
    print()
    print("// kind: 'F' floating (differentiated), 'C' floating constant, 'I' int64, 'B' bool;")
    print("// for gradients 'N' means none (PyTorch returned None).")
    print("struct EdgeTensor {")
    print("  char kind;")
    print("  std::vector<int64_t> shape;")
    print("  std::vector<double> values;")
    print("};")
    print()
    print("struct EdgeCase {")
    print("  const char* fn;  // a key of kEdgeFns in edge_values_test.cpp")
    print("  std::vector<EdgeTensor> inputs, outputs;")
    print("  std::vector<EdgeTensor> grads;  // one per 'F' input, for the upstream gradient u_k[i] = 1 + 0.25 ((i + k) % 5)")
    print("};")
    print()
    print("inline const std::vector<EdgeCase> kEdgeCases = {")
    for fn, inputs in CASES:
        outs, grads = run(fn, inputs)
        ins = ", ".join(tensor_lit(x.kind, x.shape, x.values) for x in inputs)
        os = ", ".join(out_lit(o) for o in outs)
        diff = [x for x in inputs if x.kind == "F"]
        gs = []
        for x, g in zip(diff, grads):
            gs.append("{'N', {}, {}}" if g is None else tensor_lit("F", x.shape, g.reshape(-1).tolist()))
        print('  {"%s",\n   {%s},\n   {%s},\n   {%s}},' % (fn, ins, os, ", ".join(gs)))
    print("};")
    print()
    print("}  // namespace nabla::testing::edge_reference")


if __name__ == "__main__":
    main()
