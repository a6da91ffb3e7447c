#!/usr/bin/python3
"""Prints tests/nn/rnn_reference_values.h: PyTorch's outputs, final states and
gradients for RNN/LSTM/GRU (and their cells), MultiheadAttention and
TransformerEncoderLayer on fixed inputs, in float64.

Nothing random: every parameter, in named_parameters() order k, element i
(flat), is PARAM_SCALE * sin(0.37 i + 1.1 k + 0.3); inputs, initial states and
the upstream gradients are sin/cos formulas of the flat index too (see fill()).
tests/nn/rnn_reference_test.cpp and attention_reference_test.cpp rebuild the
same tensors with the same formulas and compare.

Run with Debian's python3-torch (1.13):
  /usr/bin/python3 tests/nn/make_rnn_reference.py > tests/nn/rnn_reference_values.h
"""
import math

import torch

torch.set_default_dtype(torch.float64)
PARAM_SCALE = 0.4

# Formulas (a, b, scale): value_i = scale * sin(a * i + b). Shared with the C++ tests.
F_INPUT = (0.23, 0.5, 1.0)
F_KEY = (0.19, 1.3, 1.0)
F_VALUE = (0.31, -0.4, 1.0)
F_H0 = (0.41, 0.2, 0.5)
F_C0 = (0.29, 1.0, 0.5)
F_GRAD_OUT = (0.17, 0.4, 1.0)
F_GRAD_H = (0.53, 0.1, 1.0)
F_GRAD_C = (0.31, 0.7, 1.0)
F_ATTN_MASK = (0.67, 0.9, 0.8)  # float attention masks
F_GRAD_W = (0.43, -0.2, 1.0)    # upstream gradient of attention weights


def fill(shape, f):
    a, b, scale = f
    n = math.prod(shape)
    return torch.tensor([scale * math.sin(a * i + b) for i in range(n)]).reshape(shape)


def set_params(module):
    with torch.no_grad():
        for k, (_, p) in enumerate(module.named_parameters()):
            n = p.numel()
            p.copy_(torch.tensor([PARAM_SCALE * math.sin(0.37 * i + 1.1 * k + 0.3) for i in range(n)]).reshape(p.shape))


def flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()] if t is not None else []


def fmt(v):
    return "{" + ", ".join(repr(x) for x in v) + "}"


def param_block(module):
    names = [n for n, _ in module.named_parameters()]
    grads = [flat(p.grad) for _, p in module.named_parameters()]
    return names, grads


# ---- recurrent -------------------------------------------------------------
# name, kind, input_size, hidden_size, num_layers, bias, batch_first, bidirectional, T, N, with_state, lengths[,
# proj_size]
RNN_CASES = [
    ("rnn_tanh", "RNN_TANH", 3, 4, 1, True, False, False, 5, 2, True, []),
    ("rnn_relu_2layer_bidir_batch_first_lengths", "RNN_RELU", 3, 4, 2, True, True, True, 5, 3, True, [3, 5, 2]),
    ("rnn_tanh_no_bias", "RNN_TANH", 2, 3, 1, False, False, False, 4, 2, False, []),
    ("lstm", "LSTM", 3, 4, 1, True, False, False, 5, 2, True, []),
    ("lstm_2layer_bidir_lengths", "LSTM", 3, 4, 2, True, False, True, 6, 3, True, [4, 6, 2]),
    ("lstm_batch_first_lengths_no_state", "LSTM", 2, 3, 1, True, True, False, 5, 4, False, [5, 1, 3, 5]),
    ("lstm_bidir_no_bias", "LSTM", 3, 2, 1, False, False, True, 4, 2, True, []),
    ("lstm_proj_2layer_bidir_lengths", "LSTM", 3, 5, 2, True, False, True, 5, 3, True, [5, 2, 4], 2),
    ("lstm_proj_no_bias_batch_first", "LSTM", 2, 4, 1, False, True, False, 4, 2, False, [], 3),
    ("gru", "GRU", 3, 4, 1, True, False, False, 5, 2, True, []),
    ("gru_2layer_bidir_batch_first_lengths", "GRU", 3, 4, 2, True, True, True, 5, 3, True, [2, 5, 4]),
    ("rnn_cell_tanh", "RNNCell_TANH", 3, 4, 1, True, False, False, 1, 2, True, []),
    ("rnn_cell_relu", "RNNCell_RELU", 3, 4, 1, True, False, False, 1, 2, True, []),
    ("lstm_cell", "LSTMCell", 3, 4, 1, True, False, False, 1, 2, True, []),
    ("gru_cell", "GRUCell", 3, 4, 1, True, False, False, 1, 2, True, []),
    ("gru_cell_no_bias_no_state", "GRUCell", 3, 4, 1, False, False, False, 1, 2, False, []),
]


def make_recurrent(kind, inp, hid, layers, bias, bf, bidir, proj):
    if kind.startswith("RNNCell"):
        return torch.nn.RNNCell(inp, hid, bias, nonlinearity="tanh" if kind.endswith("TANH") else "relu")
    if kind == "LSTMCell":
        return torch.nn.LSTMCell(inp, hid, bias)
    if kind == "GRUCell":
        return torch.nn.GRUCell(inp, hid, bias)
    kw = dict(num_layers=layers, bias=bias, batch_first=bf, bidirectional=bidir)
    if kind.startswith("RNN"):
        return torch.nn.RNN(inp, hid, nonlinearity="tanh" if kind == "RNN_TANH" else "relu", **kw)
    if kind == "LSTM":
        kw["proj_size"] = proj
    return getattr(torch.nn, kind)(inp, hid, **kw)


def run_recurrent(case):
    name, kind, inp, hid, layers, bias, bf, bidir, T, N, with_state, lengths = case[:12]
    proj = case[12] if len(case) > 12 else 0
    m = make_recurrent(kind, inp, hid, layers, bias, bf, bidir, proj)
    set_params(m)
    lstm = kind.startswith("LSTM")
    cell = "Cell" in kind
    D = 2 if bidir else 1
    if cell:
        x = fill([N, inp], F_INPUT).requires_grad_()
        h0 = fill([N, hid], F_H0).requires_grad_() if with_state else None
        c0 = fill([N, hid], F_C0).requires_grad_() if with_state and lstm else None
        if lstm:
            out, c_n = m(x, (h0, c0) if with_state else None)
        else:
            out, c_n = m(x, h0), None
        h_n = None
    else:
        x = fill([N, T, inp] if bf else [T, N, inp], F_INPUT).requires_grad_()
        h0 = fill([layers * D, N, proj or hid], F_H0).requires_grad_() if with_state else None
        c0 = fill([layers * D, N, hid], F_C0).requires_grad_() if with_state and lstm else None
        state = ((h0, c0) if lstm else h0) if with_state else None
        src = x
        if lengths:
            src = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lengths), batch_first=bf,
                                                          enforce_sorted=False)
        out, hn = m(src, state)
        if lengths:
            out, _ = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=bf, total_length=T)
        h_n, c_n = hn if lstm else (hn, None)
    loss = (out * fill(list(out.shape), F_GRAD_OUT)).sum()
    if h_n is not None:
        loss = loss + (h_n * fill(list(h_n.shape), F_GRAD_H)).sum()
    if c_n is not None:
        loss = loss + (c_n * fill(list(c_n.shape), F_GRAD_C)).sum()
    loss.backward()
    names, grads = param_block(m)
    return dict(output=flat(out), h_n=flat(h_n), c_n=flat(c_n), grad_input=flat(x.grad),
                grad_h0=flat(h0.grad) if h0 is not None else [], grad_c0=flat(c0.grad) if c0 is not None else [],
                names=names, grads=grads)


# ---- attention -----------------------------------------------------------
# name, embed_dim, num_heads, bias, batch_first, kdim, vdim, L, S, N, key_padding, attn_mask kind, need_weights, average
MHA_CASES = [
    ("mha_plain", 6, 2, True, False, None, None, 3, 4, 2, False, "none", True, True),
    ("mha_masks_batch_first_per_head", 8, 4, True, True, None, None, 4, 5, 3, True, "bool", True, False),
    ("mha_float_mask_kdim_vdim", 6, 3, True, False, 4, 5, 3, 4, 2, True, "float", True, True),
    ("mha_no_bias_no_weights", 4, 1, False, False, None, None, 2, 3, 2, False, "float", False, True),
    ("mha_per_head_float_mask_batch_first", 6, 2, True, True, None, None, 3, 4, 2, True, "float3d", True, False),
]


def key_padding(N, S):
    # sequence n ignores its last n keys (never all of them)
    return torch.tensor([[s >= S - n for s in range(S)] for n in range(N)])


def attn_mask(kind, L, S, NH=0):
    if kind == "bool":  # causal-like: key s hidden from query l when s > l + 1
        return torch.tensor([[s > l + 1 for s in range(S)] for l in range(L)])
    if kind == "float":
        return fill([L, S], F_ATTN_MASK)
    if kind == "float3d":  # one mask per (sequence, head)
        return fill([NH, L, S], F_ATTN_MASK)
    return None


def run_mha(case):
    name, E, H, bias, bf, kdim, vdim, L, S, N, kpm, mask_kind, need_w, avg = case
    m = torch.nn.MultiheadAttention(E, H, dropout=0.0, bias=bias, batch_first=bf, kdim=kdim, vdim=vdim)
    set_params(m)
    kd, vd = kdim or E, vdim or E
    q = fill([N, L, E] if bf else [L, N, E], F_INPUT).requires_grad_()
    k = fill([N, S, kd] if bf else [S, N, kd], F_KEY).requires_grad_()
    v = fill([N, S, vd] if bf else [S, N, vd], F_VALUE).requires_grad_()
    out, w = m(q, k, v, key_padding_mask=key_padding(N, S) if kpm else None, need_weights=need_w,
               attn_mask=attn_mask(mask_kind, L, S, N * H), average_attn_weights=avg)
    loss = (out * fill(list(out.shape), F_GRAD_OUT)).sum()
    if w is not None:
        loss = loss + (w * fill(list(w.shape), F_GRAD_W)).sum()
    loss.backward()
    names, grads = param_block(m)
    return dict(output=flat(out), weights=flat(w), grad_query=flat(q.grad), grad_key=flat(k.grad),
                grad_value=flat(v.grad), names=names, grads=grads)


# name, d_model, nhead, dim_ff, activation, norm_first, batch_first, eps, S, N, key_padding, src_mask kind
TEL_CASES = [
    ("encoder_layer_post_norm_relu", 8, 2, 16, "relu", False, False, 1e-5, 4, 2, True, "bool"),
    ("encoder_layer_pre_norm_gelu_batch_first", 6, 3, 10, "gelu", True, True, 1e-6, 5, 3, True, "float"),
    ("encoder_layer_post_norm_no_masks", 4, 1, 8, "gelu", False, True, 1e-5, 3, 2, False, "none"),
]


def run_tel(case):
    name, d, H, ff, act, nf, bf, eps, S, N, kpm, mask_kind = case
    m = torch.nn.TransformerEncoderLayer(d, H, dim_feedforward=ff, dropout=0.1, activation=act, layer_norm_eps=eps,
                                         batch_first=bf, norm_first=nf)
    set_params(m)
    m.eval()
    src = fill([N, S, d] if bf else [S, N, d], F_INPUT).requires_grad_()
    out = m(src, src_mask=attn_mask(mask_kind, S, S), src_key_padding_mask=key_padding(N, S) if kpm else None)
    (out * fill(list(out.shape), F_GRAD_OUT)).sum().backward()
    names, grads = param_block(m)
    return dict(output=flat(out), grad_src=flat(src.grad), names=names, grads=grads)


def b(x):
    return "true" if x else "false"


def main():
    p = print
    p("// Generated by tests/nn/make_rnn_reference.py with PyTorch %s; do not edit." % torch.__version__)
    p("// PyTorch's results (float64) on the deterministic inputs described there.")
    p("#pragma once")
    p("#include <cstdint>")
    p("#include <string>")
    p("#include <vector>")
    p("")
    p("namespace nabla::nn::reference {")
    p("")
    p("using Values = std::vector<double>;")
    p("constexpr double kParamScale = %r;" % PARAM_SCALE)
    for nm, f in [("Input", F_INPUT), ("Key", F_KEY), ("Value", F_VALUE), ("H0", F_H0), ("C0", F_C0),
                  ("GradOut", F_GRAD_OUT), ("GradH", F_GRAD_H), ("GradC", F_GRAD_C), ("AttnMask", F_ATTN_MASK),
                  ("GradW", F_GRAD_W)]:
        p("constexpr double kF%s[3] = {%r, %r, %r};" % (nm, *f))
    p("")
    p("struct RecurrentCase {")
    p("  const char* name;")
    p("  const char* kind;  // RNN_TANH, RNN_RELU, LSTM, GRU, RNNCell_TANH, RNNCell_RELU, LSTMCell, GRUCell")
    p("  int64_t input_size, hidden_size, num_layers;")
    p("  bool bias, batch_first, bidirectional;")
    p("  int64_t T, N;")
    p("  bool with_state;")
    p("  std::vector<int64_t> lengths;")
    p("  int64_t proj_size;")
    p("  Values output, h_n, c_n, grad_input, grad_h0, grad_c0;")
    p("  std::vector<std::string> param_names;")
    p("  std::vector<Values> grad_params;")
    p("};")
    p("")
    p("inline const std::vector<RecurrentCase> kRecurrentCases = {")
    for c in RNN_CASES:
        r = run_recurrent(c)
        name, kind, inp, hid, layers, bias, bf, bidir, T, N, with_state, lengths = c[:12]
        p('  {"%s", "%s", %d, %d, %d, %s, %s, %s, %d, %d, %s, %s, %d,' % (
            name, kind, inp, hid, layers, b(bias), b(bf), b(bidir), T, N, b(with_state), fmt(lengths),
            c[12] if len(c) > 12 else 0))
        for key in ("output", "h_n", "c_n", "grad_input", "grad_h0", "grad_c0"):
            p("   %s," % fmt(r[key]))
        p("   {%s}," % ", ".join('"%s"' % n for n in r["names"]))
        p("   {%s}}," % ",\n    ".join(fmt(g) for g in r["grads"]))
    p("};")
    p("")
    p("struct AttentionCase {")
    p("  const char* name;")
    p("  int64_t embed_dim, num_heads;")
    p("  bool bias, batch_first;")
    p("  int64_t kdim, vdim;  // 0: embed_dim")
    p("  int64_t L, S, N;")
    p("  bool key_padding_mask;")
    p("  const char* attn_mask;  // none, bool, float ([L, S]), float3d ([N * num_heads, L, S])")
    p("  bool need_weights, average_attn_weights;")
    p("  Values output, weights, grad_query, grad_key, grad_value;")
    p("  std::vector<std::string> param_names;")
    p("  std::vector<Values> grad_params;")
    p("};")
    p("")
    p("inline const std::vector<AttentionCase> kAttentionCases = {")
    for c in MHA_CASES:
        r = run_mha(c)
        name, E, H, bias, bf, kdim, vdim, L, S, N, kpm, mask_kind, need_w, avg = c
        p('  {"%s", %d, %d, %s, %s, %d, %d, %d, %d, %d, %s, "%s", %s, %s,' % (
            name, E, H, b(bias), b(bf), kdim or 0, vdim or 0, L, S, N, b(kpm), mask_kind, b(need_w), b(avg)))
        for key in ("output", "weights", "grad_query", "grad_key", "grad_value"):
            p("   %s," % fmt(r[key]))
        p("   {%s}," % ", ".join('"%s"' % n for n in r["names"]))
        p("   {%s}}," % ",\n    ".join(fmt(g) for g in r["grads"]))
    p("};")
    p("")
    p("struct EncoderLayerCase {")
    p("  const char* name;")
    p("  int64_t d_model, nhead, dim_feedforward;")
    p("  const char* activation;")
    p("  bool norm_first, batch_first;")
    p("  double layer_norm_eps;")
    p("  int64_t S, N;")
    p("  bool key_padding_mask;")
    p("  const char* src_mask;  // none, bool, float")
    p("  Values output, grad_src;")
    p("  std::vector<std::string> param_names;")
    p("  std::vector<Values> grad_params;")
    p("};")
    p("")
    p("inline const std::vector<EncoderLayerCase> kEncoderLayerCases = {")
    for c in TEL_CASES:
        r = run_tel(c)
        name, d, H, ff, act, nf, bf, eps, S, N, kpm, mask_kind = c
        p('  {"%s", %d, %d, %d, "%s", %s, %s, %r, %d, %d, %s, "%s",' % (
            name, d, H, ff, act, b(nf), b(bf), eps, S, N, b(kpm), mask_kind))
        for key in ("output", "grad_src"):
            p("   %s," % fmt(r[key]))
        p("   {%s}," % ", ".join('"%s"' % n for n in r["names"]))
        p("   {%s}}," % ",\n    ".join(fmt(g) for g in r["grads"]))
    p("};")
    p("")
    p("}  // namespace nabla::nn::reference")


if __name__ == "__main__":
    main()
