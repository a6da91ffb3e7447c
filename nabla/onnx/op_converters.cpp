// nabla op -> ONNX (opset 17) nodes, one converter per op name. Elementwise
// ops that ONNX has map one to one; the rest are written with ONNX
// primitives (silu = x * Sigmoid(x), gelu with Erf, ...). ONNX wants the
// inputs of an arithmetic node to share one type where nabla promotes, so
// inputs are cast to the output's dtype where they differ.
#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <unordered_map>

#include "nabla/core/error.h"
#include "nabla/onnx/op_export.h"
#include "nabla/ops/factory.h"
#include "nabla/ops/op.h"

namespace nabla::onnx::detail {

namespace {
using Converter = std::function<void(OpContext&)>;

// The wider of two dtypes for a comparison's common type (DType's order runs
// from bool to float64).
DType wider(DType a, DType b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

Converter elementwise(std::string onnx_op) {
  return [onnx_op](OpContext& c) {
    std::vector<std::string> ins;
    for (std::size_t k = 0; k < c.num_inputs(); ++k) ins.push_back(c.in_as(k, c.out_dtype()));
    c.add(onnx_op, ins, {c.out()});
  };
}

Converter comparison(std::string onnx_op, bool negate = false) {
  return [onnx_op, negate](OpContext& c) {
    DType common = wider(c.in_dtype(0), c.in_dtype(1));
    std::vector<std::string> ins = {c.in_as(0, common), c.in_as(1, common)};
    if (!negate) {
      c.add(onnx_op, ins, {c.out()});
      return;
    }
    std::string t = c.temp(onnx_op);
    c.add(onnx_op, ins, {t});
    c.add("Not", {t}, {c.out()});
  };
}

Converter logical(std::string onnx_op) {
  return [onnx_op](OpContext& c) {
    std::vector<std::string> ins;
    for (std::size_t k = 0; k < c.num_inputs(); ++k) ins.push_back(c.in_as(k, DType::Bool));
    c.add(onnx_op, ins, {c.out()});
  };
}

// A unary op applied to input 0 cast to the output dtype (nabla's float ops
// turn integer inputs into float32).
std::string x_of(OpContext& c) { return c.in_as(0, c.out_dtype()); }

Converter unary(std::string onnx_op) {
  return [onnx_op](OpContext& c) { c.add(onnx_op, {x_of(c)}, {c.out()}); };
}

// Reductions over attribute "dims" (all dims when empty) with "keepdim".
Converter reduction(std::string onnx_op, bool axes_as_input) {
  return [onnx_op, axes_as_input](OpContext& c) {
    std::vector<int64_t> dims = c.attr_ints("dims");
    std::vector<std::string> ins = {x_of(c)};
    if (axes_as_input && !dims.empty()) ins.push_back(c.const_ints("axes", dims));
    auto& n = c.add(onnx_op, ins, {c.out()});
    if (!axes_as_input && !dims.empty()) set_ints(n, "axes", dims);
    set_int(n, "keepdims", c.attr_bool("keepdim") ? 1 : 0);
  };
}

std::vector<int64_t> pads_2d(const std::vector<int64_t>& p) { return {p.at(0), p.at(1), p.at(0), p.at(1)}; }

void conv2d(OpContext& c) {
  std::vector<std::string> ins = {c.in(0), c.in(1)};
  if (c.num_inputs() > 2 && !c.in(2).empty()) ins.push_back(c.in(2));
  auto& n = c.add("Conv", ins, {c.out()});
  const Shape& w = c.in_sizes(1);
  set_ints(n, "kernel_shape", {w[2], w[3]});
  set_ints(n, "strides", c.attr_ints("stride"));
  set_ints(n, "pads", pads_2d(c.attr_ints("padding")));
  set_ints(n, "dilations", c.attr_ints("dilation"));
  set_int(n, "group", c.attr_int("groups"));
}

void conv_transpose2d(OpContext& c) {
  std::vector<std::string> ins = {c.in(0), c.in(1)};
  if (c.num_inputs() > 2 && !c.in(2).empty()) ins.push_back(c.in(2));
  auto& n = c.add("ConvTranspose", ins, {c.out()});
  const Shape& w = c.in_sizes(1);
  set_ints(n, "kernel_shape", {w[2], w[3]});
  set_ints(n, "strides", c.attr_ints("stride"));
  set_ints(n, "pads", pads_2d(c.attr_ints("padding")));
  set_ints(n, "output_padding", c.attr_ints("output_padding"));
  set_ints(n, "dilations", c.attr_ints("dilation"));
  set_int(n, "group", c.attr_int("groups"));
}

void max_pool2d(OpContext& c) {
  auto& n = c.add("MaxPool", {c.in(0)}, {c.out()});
  set_ints(n, "kernel_shape", c.attr_ints("kernel_size"));
  set_ints(n, "strides", c.attr_ints("stride"));
  set_ints(n, "pads", pads_2d(c.attr_ints("padding")));
  set_ints(n, "dilations", c.attr_ints("dilation"));
  set_int(n, "ceil_mode", c.attr_bool("ceil_mode") ? 1 : 0);
}

void avg_pool2d(OpContext& c) {
  if (!c.attr_none("divisor_override") && c.attr_int("divisor_override") != 0)
    c.unsupported("divisor_override has no AveragePool attribute");
  auto& n = c.add("AveragePool", {c.in(0)}, {c.out()});
  set_ints(n, "kernel_shape", c.attr_ints("kernel_size"));
  set_ints(n, "strides", c.attr_ints("stride"));
  set_ints(n, "pads", pads_2d(c.attr_ints("padding")));
  set_int(n, "ceil_mode", c.attr_bool("ceil_mode") ? 1 : 0);
  set_int(n, "count_include_pad", c.attr_bool("count_include_pad") ? 1 : 0);
}

// adaptive_avg_pool2d: GlobalAveragePool for a 1x1 output, an AveragePool
// when the output divides the (known) input size; other cases have windows
// of varying size, which ONNX cannot express in one node.
void adaptive_avg_pool2d(OpContext& c) {
  std::vector<int64_t> out = c.attr_ints("output_size");
  const Shape& x = c.in_sizes(0);
  if (out.size() == 2 && out[0] == 1 && out[1] == 1) {
    c.add("GlobalAveragePool", {c.in(0)}, {c.out()});
    return;
  }
  int64_t h = x[x.size() - 2], w = x[x.size() - 1];
  // An output that is a multiple of the input (VGG's 7x7 from a small
  // image's 1x1): every window is one input pixel, repeated r x s times.
  if (out.size() == 2 && x.size() == 4 && h > 0 && w > 0 && x[0] >= 0 && x[1] >= 0 && out[0] % h == 0 &&
      out[1] % w == 0) {
    int64_t r = out[0] / h, s = out[1] / w;
    std::string split = c.temp("split"), tiled = c.temp("tiled");
    c.add("Reshape", {c.in(0), c.const_ints("split_shape", {x[0], x[1], h, 1, w, 1})}, {split});
    c.add("Expand", {split, c.const_ints("tile_shape", {x[0], x[1], h, r, w, s})}, {tiled});
    c.add("Reshape", {tiled, c.const_ints("shape", {x[0], x[1], out[0], out[1]})}, {c.out()});
    return;
  }
  if (out.size() != 2 || h < 0 || w < 0 || out[0] <= 0 || out[1] <= 0 || h % out[0] != 0 || w % out[1] != 0)
    c.unsupported(::nabla::detail::concat("output_size [", out.size() > 0 ? out[0] : 0, ", ",
                                          out.size() > 1 ? out[1] : 0, "] does not divide the input's ", h, "x", w,
                                          " (only 1x1, an exact divisor or an exact multiple export)"));
  auto& n = c.add("AveragePool", {c.in(0)}, {c.out()});
  set_ints(n, "kernel_shape", {h / out[0], w / out[1]});
  set_ints(n, "strides", {h / out[0], w / out[1]});
}

// Composite ops (batch_norm, layer_norm, mean, logsumexp) are recorded as the
// ops they are made of, except in graphs with unknown dims, which keep them
// as nodes until the Session specializes the graph to the fed shapes: there
// they export as the ONNX op of the same meaning.
// batch_norm inputs: input, running_mean, running_var, weight, bias.
void batch_norm(OpContext& c) {
  if (c.attr_bool("training"))
    c.unsupported("it normalizes with batch statistics (training mode); export the model in eval mode");
  if (c.in(1).empty() || c.in(2).empty()) c.unsupported("it has no running statistics");
  int64_t channels = c.in_sizes(1)[0];
  DType t = c.out_dtype();
  std::string scale = c.in(3), bias = c.in(4);
  if (scale.empty()) scale = c.const_tensor("ones", ones({channels}, TensorOptions().dtype(t)));
  if (bias.empty()) bias = c.const_tensor("zeros", zeros({channels}, TensorOptions().dtype(t)));
  auto& n = c.add("BatchNormalization", {c.in(0), scale, bias, c.in(1), c.in(2)}, {c.out()});
  set_float(n, "epsilon", c.attr_double("eps"));
  set_float(n, "momentum", 1.0 - c.attr_double("momentum"));  // ONNX's momentum weighs the running value
}

// channel_affine (batch_norm's eval form once its [C] values are folded):
// (x - center) * scale + shift, the [C] inputs reshaped to [1, C, 1, ...].
void channel_affine(OpContext& c) {
  std::vector<int64_t> shape(c.in_sizes(0).size(), 1);
  shape[1] = c.in_sizes(1)[0];
  const std::string s = c.const_ints("channel_shape", shape);
  std::string per_channel[3];
  for (std::size_t k = 0; k < 3; ++k) {
    per_channel[k] = c.temp("channel");
    c.add("Reshape", {c.in(k + 1), s}, {per_channel[k]});
  }
  const std::string centered = c.temp("centered"), scaled = c.temp("scaled");
  c.add("Sub", {c.in(0), per_channel[0]}, {centered});
  c.add("Mul", {centered, per_channel[1]}, {scaled});
  c.add("Add", {scaled, per_channel[2]}, {c.out()});
}

void layer_norm(OpContext& c) {
  std::vector<int64_t> shape = c.attr_ints("normalized_shape");
  DType t = c.out_dtype();
  std::string scale = c.in(1), bias = c.in(2);
  if (scale.empty()) scale = c.const_tensor("ones", ones(shape, TensorOptions().dtype(t)));
  std::vector<std::string> ins = {c.in(0), scale};
  if (!bias.empty()) ins.push_back(bias);
  auto& n = c.add("LayerNormalization", ins, {c.out()});
  set_int(n, "axis", -static_cast<int64_t>(shape.size()));
  set_float(n, "epsilon", c.attr_double("eps"));
}

Converter softmax(std::string onnx_op) {
  return [onnx_op](OpContext& c) { set_int(c.add(onnx_op, {x_of(c)}, {c.out()}), "axis", c.attr_int("dim")); };
}

// A shape for Reshape/Expand from the output's sizes: unknown dims (-1)
// become `unknown` (-1 for Reshape: inferred; 1 for Expand: kept from the input).
std::vector<int64_t> target_shape(OpContext& c, int64_t unknown) {
  std::vector<int64_t> s(c.out_sizes().begin(), c.out_sizes().end());
  int n_unknown = 0;
  for (auto& d : s)
    if (d < 0) {
      d = unknown;
      ++n_unknown;
    }
  if (unknown == -1 && n_unknown > 1)
    c.unsupported("the result has several unknown dims, which one Reshape cannot infer");
  return s;
}

void view(OpContext& c) { c.add("Reshape", {c.in(0), c.const_ints("shape", target_shape(c, -1))}, {c.out()}); }

// Expand's shape keeps the input's size where it says 1, so an unknown dim
// exports only where the input's dim is that same unknown dim.
void expand(OpContext& c) {
  const Shape &in = c.in_sizes(0), &out = c.out_sizes();
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::size_t lead = out.size() - in.size();
    if (out[i] < 0 && (i < lead || in[i - lead] >= 0))
      c.unsupported("it broadcasts to an unknown dim, which Expand cannot take from another value");
  }
  c.add("Expand", {c.in(0), c.const_ints("shape", target_shape(c, 1))}, {c.out()});
}

void permute(OpContext& c) {
  std::vector<int64_t> perm = c.attr_ints("dims");
  for (auto& d : perm)
    if (d < 0) d += static_cast<int64_t>(perm.size());
  set_ints(c.add("Transpose", {c.in(0)}, {c.out()}), "perm", perm);
}

void slice(OpContext& c) {
  int64_t start = c.attr_int("start"), stop = c.attr_int("stop"), step = c.attr_int("step");
  c.add("Slice",
        {c.in(0), c.const_ints("starts", {start}), c.const_ints("ends", {stop}), c.const_ints("axes", {c.attr_int("dim")}),
         c.const_ints("steps", {step})},
        {c.out()});
}

void select(OpContext& c) {
  std::string index = c.const_tensor("index", full({}, c.attr_int("index"), TensorOptions().dtype(DType::Int64)));
  set_int(c.add("Gather", {c.in(0), index}, {c.out()}), "axis", c.attr_int("dim"));
}

void cat(OpContext& c) {
  std::vector<std::string> ins;
  for (std::size_t k = 0; k < c.num_inputs(); ++k) ins.push_back(c.in_as(k, c.out_dtype()));
  set_int(c.add("Concat", ins, {c.out()}), "axis", c.attr_int("dim"));
}

void stack(OpContext& c) {
  int64_t dim = c.attr_int("dim");
  if (dim < 0) dim += static_cast<int64_t>(c.out_sizes().size());
  std::string axes = c.const_ints("axes", {dim});
  std::vector<std::string> ins;
  for (std::size_t k = 0; k < c.num_inputs(); ++k) {
    std::string u = c.temp("unsqueeze");
    c.add("Unsqueeze", {c.in_as(k, c.out_dtype()), axes}, {u});
    ins.push_back(u);
  }
  set_int(c.add("Concat", ins, {c.out()}), "axis", dim);
}

void identity(OpContext& c) { c.add("Identity", {c.in(0)}, {c.out()}); }

void cast(OpContext& c) { set_int(c.add("Cast", {c.in(0)}, {c.out()}), "to", onnx_type(c.out_dtype(), c.where())); }

void where(OpContext& c) {
  c.add("Where", {c.in_as(0, DType::Bool), c.in_as(1, c.out_dtype()), c.in_as(2, c.out_dtype())}, {c.out()});
}

void clamp(OpContext& c) {
  DType t = c.out_dtype();
  std::string lo = c.attr_none("min") ? "" : c.const_scalar("min", t, c.attr_double("min"));
  std::string hi = c.attr_none("max") ? "" : c.const_scalar("max", t, c.attr_double("max"));
  c.add("Clip", {x_of(c), lo, hi}, {c.out()});
}

void square(OpContext& c) {
  std::string x = x_of(c);
  c.add("Mul", {x, x}, {c.out()});
}

void rsqrt(OpContext& c) {
  std::string s = c.temp("sqrt");
  c.add("Sqrt", {x_of(c)}, {s});
  c.add("Reciprocal", {s}, {c.out()});
}

void silu(OpContext& c) {
  std::string x = x_of(c), s = c.temp("sigmoid");
  c.add("Sigmoid", {x}, {s});
  c.add("Mul", {x, s}, {c.out()});
}

// x * 0.5 * (1 + erf(x / sqrt(2))): ONNX's Gelu arrives only in opset 20.
void gelu(OpContext& c) {
  DType t = c.out_dtype();
  std::string x = x_of(c), a = c.temp("scaled"), e = c.temp("erf"), p = c.temp("plus1"), h = c.temp("half_x");
  c.add("Mul", {x, c.const_scalar("rsqrt2", t, std::numbers::sqrt2 / 2)}, {a});
  c.add("Erf", {a}, {e});
  c.add("Add", {e, c.const_scalar("one", t, 1.0)}, {p});
  c.add("Mul", {x, c.const_scalar("half", t, 0.5)}, {h});
  c.add("Mul", {h, p}, {c.out()});
}

// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))).
void gelu_tanh(OpContext& c) {
  DType t = c.out_dtype();
  std::string x = x_of(c), x3 = c.temp("cube"), k = c.temp("k_cube"), s = c.temp("sum"), a = c.temp("arg"),
              th = c.temp("tanh"), p = c.temp("plus1"), h = c.temp("half_x");
  c.add("Pow", {x, c.const_scalar("three", t, 3.0)}, {x3});
  c.add("Mul", {x3, c.const_scalar("k", t, 0.044715)}, {k});
  c.add("Add", {x, k}, {s});
  c.add("Mul", {s, c.const_scalar("sqrt_2_over_pi", t, std::sqrt(2.0 / std::numbers::pi))}, {a});
  c.add("Tanh", {a}, {th});
  c.add("Add", {th, c.const_scalar("one", t, 1.0)}, {p});
  c.add("Mul", {x, c.const_scalar("half", t, 0.5)}, {h});
  c.add("Mul", {h, p}, {c.out()});
}

void leaky_relu(OpContext& c) {
  set_float(c.add("LeakyRelu", {x_of(c)}, {c.out()}), "alpha", c.attr_double("negative_slope"));
}
void elu(OpContext& c) { set_float(c.add("Elu", {x_of(c)}, {c.out()}), "alpha", c.attr_double("alpha")); }

void pow_scalar(OpContext& c) {
  c.add("Pow", {x_of(c), c.const_scalar("exponent", c.out_dtype(), c.attr_double("exponent"))}, {c.out()});
}

// exp2, log2, log1p, expm1 from Exp/Log and a constant.
void exp2(OpContext& c) { c.add("Pow", {c.const_scalar("two", c.out_dtype(), 2.0), x_of(c)}, {c.out()}); }
void log2(OpContext& c) {
  std::string l = c.temp("log");
  c.add("Log", {x_of(c)}, {l});
  c.add("Div", {l, c.const_scalar("ln2", c.out_dtype(), std::numbers::ln2)}, {c.out()});
}
void log1p(OpContext& c) {
  std::string p = c.temp("plus1");
  c.add("Add", {x_of(c), c.const_scalar("one", c.out_dtype(), 1.0)}, {p});
  c.add("Log", {p}, {c.out()});
}
void expm1(OpContext& c) {
  std::string e = c.temp("exp");
  c.add("Exp", {x_of(c)}, {e});
  c.add("Sub", {e, c.const_scalar("one", c.out_dtype(), 1.0)}, {c.out()});
}

void isfinite(OpContext& c) {
  std::string n = c.temp("isnan"), i = c.temp("isinf"), o = c.temp("either");
  c.add("IsNaN", {c.in(0)}, {n});
  c.add("IsInf", {c.in(0)}, {i});
  c.add("Or", {n, i}, {o});
  c.add("Not", {o}, {c.out()});
}

void gather(OpContext& c) {
  set_int(c.add("GatherElements", {c.in(0), c.in_as(1, DType::Int64)}, {c.out()}), "axis", c.attr_int("dim"));
}
void index_select(OpContext& c) {
  set_int(c.add("Gather", {c.in(0), c.in_as(1, DType::Int64)}, {c.out()}), "axis", c.attr_int("dim"));
}

const std::unordered_map<std::string, Converter>& converters() {
  static const std::unordered_map<std::string, Converter> table = {
      {"add", elementwise("Add")},
      {"sub", elementwise("Sub")},
      {"mul", elementwise("Mul")},
      {"div", elementwise("Div")},
      {"maximum", elementwise("Max")},
      {"minimum", elementwise("Min")},
      {"pow", elementwise("Pow")},
      {"eq", comparison("Equal")},
      {"ne", comparison("Equal", true)},
      {"lt", comparison("Less")},
      {"le", comparison("LessOrEqual")},
      {"gt", comparison("Greater")},
      {"ge", comparison("GreaterOrEqual")},
      {"logical_and", logical("And")},
      {"logical_or", logical("Or")},
      {"logical_xor", logical("Xor")},
      {"logical_not", logical("Not")},
      {"isnan", unary("IsNaN")},
      {"isinf", unary("IsInf")},
      {"isfinite", isfinite},
      {"where", where},
      {"neg", unary("Neg")},
      {"abs", unary("Abs")},
      {"sign", unary("Sign")},
      {"square", square},
      {"relu", unary("Relu")},
      {"exp", unary("Exp")},
      {"exp2", exp2},
      {"log", unary("Log")},
      {"log2", log2},
      {"log1p", log1p},
      {"expm1", expm1},
      {"sqrt", unary("Sqrt")},
      {"rsqrt", rsqrt},
      {"reciprocal", unary("Reciprocal")},
      {"sin", unary("Sin")},
      {"cos", unary("Cos")},
      {"tan", unary("Tan")},
      {"tanh", unary("Tanh")},
      {"sigmoid", unary("Sigmoid")},
      {"erf", unary("Erf")},
      {"silu", silu},
      {"gelu", gelu},
      {"gelu_tanh", gelu_tanh},
      {"floor", unary("Floor")},
      {"ceil", unary("Ceil")},
      {"round", unary("Round")},  // both round half to even
      {"leaky_relu", leaky_relu},
      {"elu", elu},
      {"pow_scalar", pow_scalar},
      {"clamp", clamp},
      {"cast", cast},
      {"mm", elementwise("MatMul")},
      {"bmm", elementwise("MatMul")},
      {"conv2d", conv2d},
      {"conv_transpose2d", conv_transpose2d},
      {"max_pool2d", max_pool2d},
      {"avg_pool2d", avg_pool2d},
      {"adaptive_avg_pool2d", adaptive_avg_pool2d},
      {"batch_norm", batch_norm},
      {"channel_affine", channel_affine},
      {"layer_norm", layer_norm},
      {"softmax", softmax("Softmax")},
      {"log_softmax", softmax("LogSoftmax")},
      {"view", view},
      {"expand", expand},
      {"permute", permute},
      {"slice", slice},
      {"select", select},
      {"cat", cat},
      {"stack", stack},
      {"clone", identity},
      {"to_device", identity},
      {"gather", gather},
      {"index_select", index_select},
      {"sum", reduction("ReduceSum", true)},
      {"amax", reduction("ReduceMax", false)},
      {"amin", reduction("ReduceMin", false)},
      {"prod", reduction("ReduceProd", false)},
      {"mean", reduction("ReduceMean", false)},
      {"logsumexp", reduction("ReduceLogSumExp", false)},
  };
  return table;
}

}  // namespace

std::vector<std::string> converted_op_names() {
  std::vector<std::string> names;
  for (const auto& [name, converter] : converters()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void convert_op(OpContext& c) {
  const OpDef& op = *c.node().op;
  if (op.name == "dropout")
    c.unsupported("dropout draws a random mask (training mode); export the model in eval mode, where dropout is the identity");
  // Factories without randomness (full, arange, eye, linspace): their value
  // is known now, so it becomes an initializer.
  if (op.num_inputs == 0 && !op.has(kRandom) && c.node().metas.size() == 1) {
    TensorList v = call(op, {}, c.node().attrs);
    add_initializer(c.graph(), c.out(), v[0], c.where());
    return;
  }
  if (op.has(kRandom)) c.unsupported("it draws random numbers, which an exported model cannot reproduce");
  auto it = converters().find(std::string(op.name));
  if (it == converters().end()) c.unsupported("no converter for this op (see docs/onnx.md for the ops that export)");
  it->second(c);
}

}  // namespace nabla::onnx::detail
