#!/usr/bin/python3
"""Prints tests/nn/layer_reference_values.h: PyTorch's forward outputs,
gradients and running statistics for every nn layer and loss module that
tests/nn/layer_reference_test.cpp rebuilds in nabla.

Everything is float64 and deterministic, so C++ can rebuild it exactly:
  - parameter k (in named_parameters() order) holds
        0.5 * sin(0.3 * i + k + 1)                        (i = flat index);
  - floating buffer k (in named_buffers() order) holds
        0.75 + 0.5 * sin(0.3 * i + k + 2)^2   if its name contains "var" or "weight",
        0.2 * sin(0.3 * i + k + 2)             otherwise;
  - the input holds  1.5 * sin(0.7 * i + 0.2)                      (kind "signed"),
                     0.5 + 0.45 * sin(0.7 * i + 0.2)               (kind "prob"),
    or the explicit integers of the case (kind "index");
  - a float target holds the same formulas with phase 1.1 instead of 0.2;
  - the module is run `steps` times in its mode (train unless "eval"): the
    first steps - 1 times under no_grad, then once more, and
        loss = sum(output * u),  u[i] = cos(0.37 * i + 0.1)
    is backpropagated. Recorded: the last output, d loss / d input, d loss /
    d each parameter, and every buffer afterwards.

Run with Debian's python3-torch (1.13):
  /usr/bin/python3 tests/nn/make_layer_reference.py > tests/nn/layer_reference_values.h
"""
import math
import warnings

import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)
warnings.filterwarnings("ignore", message="reduction: 'mean' divides")  # KLDivLoss's "mean" is tested on purpose


def formula(n, scale, step, phase, offset=0.0):
    return torch.tensor([offset + scale * math.sin(step * i + phase) for i in range(n)])


def make_input(kind, shape, phase, values=None):
    if kind == "index":
        return torch.tensor(values, dtype=torch.int64).reshape(shape)
    n = math.prod(shape)
    if kind == "signed":
        return (1.5 * formula(n, 1.0, 0.7, phase)).reshape(shape)
    if kind == "prob":
        return formula(n, 0.45, 0.7, phase, 0.5).reshape(shape)
    raise ValueError(kind)


def set_state(m):
    with torch.no_grad():
        for k, (_, p) in enumerate(m.named_parameters()):
            p.copy_(formula(p.numel(), 0.5, 0.3, k + 1).reshape(p.shape))
        for k, (name, b) in enumerate(m.named_buffers()):
            if not b.is_floating_point():
                continue
            v = formula(b.numel(), 1.0, 0.3, k + 2)
            v = 0.75 + 0.5 * v * v if ("var" in name or "weight" in name) else 0.2 * v
            b.copy_(v.reshape(b.shape))


# name -> (module constructor, input kind, input shape, explicit input values, mode, steps)
LAYERS = [
    ("linear", lambda: nn.Linear(5, 3), "signed", [4, 5]),
    ("linear_nobias", lambda: nn.Linear(5, 3, bias=False), "signed", [2, 5]),
    ("linear_3d", lambda: nn.Linear(4, 2), "signed", [2, 3, 4]),
    ("conv1d", lambda: nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), "signed", [2, 4, 9]),
    ("conv1d_dilation", lambda: nn.Conv1d(3, 2, 2, dilation=2, bias=False), "signed", [2, 3, 7]),
    ("conv2d", lambda: nn.Conv2d(4, 6, 3, padding=1, groups=2), "signed", [2, 4, 5, 5]),
    ("conv2d_pairs", lambda: nn.Conv2d(3, 4, (2, 3), stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
     "signed", [2, 3, 6, 7]),
    ("conv_transpose2d", lambda: nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2),
     "signed", [2, 4, 3, 3]),
    ("conv_transpose2d_pairs",
     lambda: nn.ConvTranspose2d(3, 2, (2, 3), stride=(1, 2), padding=(0, 1), bias=False, dilation=(2, 1)),
     "signed", [1, 3, 4, 4]),
    ("max_pool2d", lambda: nn.MaxPool2d(2), "signed", [2, 3, 6, 6]),
    ("max_pool2d_pad_ceil", lambda: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), "signed", [1, 2, 7, 7]),
    ("max_pool2d_pairs", lambda: nn.MaxPool2d((2, 3), stride=(1, 2), dilation=(2, 1)), "signed", [1, 2, 7, 8]),
    ("avg_pool2d", lambda: nn.AvgPool2d(2), "signed", [2, 3, 6, 6]),
    ("avg_pool2d_pad_ceil_exclude",
     lambda: nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False), "signed", [1, 2, 7, 7]),
    ("avg_pool2d_divisor", lambda: nn.AvgPool2d((2, 3), stride=(2, 1), padding=(1, 1), divisor_override=4),
     "signed", [1, 2, 5, 6]),
    ("adaptive_avg_pool2d", lambda: nn.AdaptiveAvgPool2d((3, 2)), "signed", [2, 3, 7, 5]),
    ("batch_norm1d_2d", lambda: nn.BatchNorm1d(4), "signed", [6, 4], None, "train", 2),
    ("batch_norm1d_3d", lambda: nn.BatchNorm1d(3, momentum=0.3), "signed", [4, 3, 5], None, "train", 2),
    ("batch_norm1d_cumulative", lambda: nn.BatchNorm1d(3, momentum=None), "signed", [4, 3, 5], None, "train", 3),
    ("batch_norm1d_eval", lambda: nn.BatchNorm1d(3), "signed", [4, 3, 5], None, "eval", 1),
    ("batch_norm1d_plain", lambda: nn.BatchNorm1d(4, affine=False, track_running_stats=False), "signed", [5, 4],
     None, "eval", 1),
    ("batch_norm2d_train", lambda: nn.BatchNorm2d(3), "signed", [2, 3, 4, 4], None, "train", 2),
    ("batch_norm2d_eval", lambda: nn.BatchNorm2d(3, eps=1e-3), "signed", [2, 3, 4, 4], None, "eval", 1),
    ("layer_norm", lambda: nn.LayerNorm(5), "signed", [3, 4, 5]),
    ("layer_norm_2d", lambda: nn.LayerNorm([4, 5], eps=1e-3), "signed", [3, 4, 5]),
    ("layer_norm_plain", lambda: nn.LayerNorm(5, elementwise_affine=False), "signed", [3, 5]),
    ("group_norm", lambda: nn.GroupNorm(2, 6), "signed", [2, 6, 3, 3]),
    ("group_norm_plain", lambda: nn.GroupNorm(3, 3, affine=False), "signed", [2, 3, 4]),
    ("embedding", lambda: nn.Embedding(10, 4), "index", [2, 3], [1, 3, 5, 7, 3, 0]),
    ("embedding_padding", lambda: nn.Embedding(10, 4, padding_idx=3), "index", [2, 3], [1, 3, 5, 7, 3, 0]),
    ("embedding_padding_negative", lambda: nn.Embedding(10, 4, padding_idx=-3), "index", [6], [7, 1, 7, 2, 9, 0]),
    ("identity", lambda: nn.Identity(), "signed", [2, 3]),
    ("flatten", lambda: nn.Flatten(), "signed", [2, 3, 4]),
    ("flatten_range", lambda: nn.Flatten(0, 1), "signed", [2, 3, 4]),
    ("unflatten", lambda: nn.Unflatten(1, (2, 3)), "signed", [2, 6, 2]),
    ("relu", lambda: nn.ReLU(), "signed", [3, 5]),
    ("tanh", lambda: nn.Tanh(), "signed", [3, 5]),
    ("sigmoid", lambda: nn.Sigmoid(), "signed", [3, 5]),
    ("gelu", lambda: nn.GELU(), "signed", [3, 5]),
    ("gelu_tanh", lambda: nn.GELU(approximate="tanh"), "signed", [3, 5]),
    ("leaky_relu", lambda: nn.LeakyReLU(0.2), "signed", [3, 5]),
    ("elu", lambda: nn.ELU(0.7), "signed", [3, 5]),
    ("silu", lambda: nn.SiLU(), "signed", [3, 5]),
    ("softmax", lambda: nn.Softmax(dim=1), "signed", [2, 4, 3]),
    ("log_softmax", lambda: nn.LogSoftmax(dim=-1), "signed", [2, 4, 3]),
    ("dropout_eval", lambda: nn.Dropout(0.3), "signed", [3, 5], None, "eval", 1),
    ("dropout_p0_train", lambda: nn.Dropout(0.0), "signed", [3, 5]),
]

CE_TARGET = [2, 0, 4, 1]
CE_TARGET_IGNORE = [2, -100, 4, 1]
SPATIAL_TARGET = [0, 2, 1, 1, 2, 0, 2, 2]  # [2, 4] targets of a [2, 3, 4] input

# name -> (loss constructor taking the reduction, input kind, shape, target kind, target shape, target values)
LOSSES = [
    ("mse", lambda r: nn.MSELoss(reduction=r), "signed", [3, 4], "signed", [3, 4], None),
    ("l1", lambda r: nn.L1Loss(reduction=r), "signed", [3, 4], "signed", [3, 4], None),
    ("smooth_l1", lambda r: nn.SmoothL1Loss(reduction=r, beta=0.5), "signed", [3, 4], "signed", [3, 4], None),
    ("huber", lambda r: nn.HuberLoss(reduction=r, delta=0.7), "signed", [3, 4], "signed", [3, 4], None),
    ("cross_entropy", lambda r: nn.CrossEntropyLoss(reduction=r), "signed", [4, 5], "index", [4], CE_TARGET),
    ("cross_entropy_weight_ignore",
     lambda r: nn.CrossEntropyLoss(weight=torch.ones(5), ignore_index=-100, reduction=r),
     "signed", [4, 5], "index", [4], CE_TARGET_IGNORE),
    ("cross_entropy_smoothing", lambda r: nn.CrossEntropyLoss(weight=torch.ones(5), reduction=r, label_smoothing=0.2),
     "signed", [4, 5], "index", [4], CE_TARGET),
    ("cross_entropy_spatial", lambda r: nn.CrossEntropyLoss(ignore_index=1, reduction=r),
     "signed", [2, 3, 4], "index", [2, 4], SPATIAL_TARGET),
    ("cross_entropy_probs", lambda r: nn.CrossEntropyLoss(reduction=r, label_smoothing=0.1),
     "signed", [4, 5], "prob", [4, 5], None),
    ("nll", lambda r: nn.NLLLoss(reduction=r), "signed", [4, 5], "index", [4], CE_TARGET),
    ("nll_weight_ignore", lambda r: nn.NLLLoss(weight=torch.ones(5), ignore_index=4, reduction=r),
     "signed", [4, 5], "index", [4], CE_TARGET),
    ("bce", lambda r: nn.BCELoss(reduction=r), "prob", [3, 4], "prob", [3, 4], None),
    ("bce_weight", lambda r: nn.BCELoss(weight=torch.ones(4), reduction=r), "prob", [3, 4], "prob", [3, 4], None),
    ("bce_with_logits", lambda r: nn.BCEWithLogitsLoss(reduction=r), "signed", [3, 4], "prob", [3, 4], None),
    ("bce_with_logits_pos_weight",
     lambda r: nn.BCEWithLogitsLoss(weight=torch.ones(3, 1), reduction=r, pos_weight=torch.ones(4)),
     "signed", [3, 4], "prob", [3, 4], None),
    ("kl_div", lambda r: nn.KLDivLoss(reduction=r), "signed", [3, 4], "prob", [3, 4], None),
    ("kl_div_log_target", lambda r: nn.KLDivLoss(reduction=r, log_target=True), "signed", [3, 4], "signed", [3, 4],
     None),
]
REDUCTIONS = ["none", "mean", "sum"]


def upstream(out):
    return torch.tensor([math.cos(0.37 * i + 0.1) for i in range(out.numel())]).reshape(out.shape)


def record(m, inputs, mode, steps):
    set_state(m)
    m.train(mode == "train")
    with torch.no_grad():
        for _ in range(steps - 1):
            m(*inputs)
    x = inputs[0]
    if x.is_floating_point():
        x.requires_grad_(True)
    out = m(*inputs)
    (out * upstream(out)).sum().backward()
    return {
        "output": out.detach(),
        "input_grad": x.grad if x.is_floating_point() else None,
        "param_grads": [(n, p.grad) for n, p in m.named_parameters()],
        "buffers": [(n, b) for n, b in m.named_buffers()],
    }


def fmt(t):
    return "{" + ", ".join(repr(float(v)) for v in t.reshape(-1).tolist()) + "}"


def ints(v):
    return "{" + ", ".join(str(int(x)) for x in v) + "}"


def named(lst):
    return "{" + ", ".join('{"%s", %s}' % (n, fmt(t)) for n, t in lst if t is not None) + "}"


def emit(name, in_kind, in_shape, in_values, tgt_kind, tgt_shape, tgt_values, mode, steps, r):
    print('  {"%s", "%s", %s, %s, "%s", %s, %s, %s, %d,' % (
        name, in_kind, ints(in_shape), ints(in_values or []), tgt_kind, ints(tgt_shape), ints(tgt_values or []),
        "true" if mode == "eval" else "false", steps))
    print("   %s, %s," % (ints(r["output"].shape), fmt(r["output"])))
    print("   %s," % (fmt(r["input_grad"]) if r["input_grad"] is not None else "{}"))
    print("   %s," % named(r["param_grads"]))
    print("   %s}," % named([(n, b.double()) for n, b in r["buffers"]]))


def main():
    print("// Generated by tests/nn/make_layer_reference.py with PyTorch %s; do not edit." % torch.__version__)
    print("// PyTorch's results for the layers and losses described there (float64).")
    print("#pragma once")
    print("#include <cstdint>")
    print("#include <string>")
    print("#include <utility>")
    print("#include <vector>")
    print()
    print("namespace nabla::nn::reference {")
    print()
    print("using Named = std::vector<std::pair<std::string, std::vector<double>>>;")
    print()
    print("struct LayerCase {")
    print("  const char* name;")
    print("  const char* input_kind;  // signed, prob or index")
    print("  std::vector<int64_t> input_shape, input_values;  // values: index inputs only")
    print("  const char* target_kind;  // none (a layer), signed, prob or index")
    print("  std::vector<int64_t> target_shape, target_values;")
    print("  bool eval;")
    print("  int steps;")
    print("  std::vector<int64_t> output_shape;")
    print("  std::vector<double> output, input_grad;  // input_grad empty for index inputs")
    print("  Named param_grads, buffers;               // buffers after the steps")
    print("};")
    print()
    print("inline const std::vector<LayerCase> kLayerCases = {")
    for case in LAYERS:
        name, ctor, kind, shape = case[:4]
        values = case[4] if len(case) > 4 else None
        mode = case[5] if len(case) > 5 else "train"
        steps = case[6] if len(case) > 6 else 1
        torch.manual_seed(0)
        x = make_input(kind, shape, 0.2, values)
        r = record(ctor(), [x], mode, steps)
        emit(name, kind, shape, values, "none", [], None, mode, steps, r)
    for name, ctor, kind, shape, tkind, tshape, tvalues in LOSSES:
        for red in REDUCTIONS + (["batchmean"] if name.startswith("kl_div") else []):
            x = make_input(kind, shape, 0.2)
            t = make_input(tkind, tshape, 1.1, tvalues)
            r = record(ctor(red), [x, t], "train", 1)
            emit(name + "_" + red, kind, shape, None, tkind, tshape, tvalues, "train", 1, r)
    print("};")
    print()
    print("}  // namespace nabla::nn::reference")


if __name__ == "__main__":
    main()
