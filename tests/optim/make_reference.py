#!/usr/bin/python3
"""Prints tests/optim/reference_values.h: PyTorch's parameter trajectories for
every optimizer setting, learning rates for every scheduler and results of
gradient clipping, on the fixed problem that tests/optim/*_test.cpp rebuild:

  w (2x3), b (3) in float64;  loss = sum((w * C + b - T)^2)

Run with Debian's python3-torch (1.13):
  /usr/bin/python3 tests/optim/make_reference.py > tests/optim/reference_values.h
"""
import torch

torch.set_default_dtype(torch.float64)

W0 = [[0.5, -1.2, 2.0], [0.3, -0.7, 1.5]]
B0 = [0.1, -0.4, 0.25]
C = [[1.5, -0.5, 2.0], [0.8, 1.2, -1.0]]
T = [[1.0, 0.5, -2.0], [0.3, -1.5, 0.7]]
STEPS = 10
SCHED_STEPS = 12

# name, optimizer, options (nabla names), options of b's own group or None
OPTIM_CASES = [
    ("sgd_plain", "SGD", {"lr": 0.05}, None),
    ("sgd_momentum", "SGD", {"lr": 0.05, "momentum": 0.9}, None),
    ("sgd_dampening_wd", "SGD", {"lr": 0.03, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.1}, None),
    ("sgd_nesterov_wd", "SGD", {"lr": 0.04, "momentum": 0.7, "nesterov": 1, "weight_decay": 0.05}, None),
    ("sgd_maximize", "SGD", {"lr": 0.01, "momentum": 0.5, "maximize": 1}, None),
    ("sgd_groups", "SGD", {"lr": 0.05, "momentum": 0.9}, {"lr": 0.01, "momentum": 0.5}),
    ("adam_default", "Adam", {}, None),
    ("adam_lr_betas", "Adam", {"lr": 0.1, "beta1": 0.8, "beta2": 0.95, "eps": 1e-6}, None),
    ("adam_wd", "Adam", {"lr": 0.05, "weight_decay": 0.1}, None),
    ("adam_amsgrad", "Adam", {"lr": 0.1, "amsgrad": 1, "beta2": 0.9}, None),
    ("adam_maximize", "Adam", {"lr": 0.02, "maximize": 1}, None),
    ("adam_groups", "Adam", {"lr": 0.05}, {"lr": 0.2, "weight_decay": 0.01}),
    ("adamw_default", "AdamW", {}, None),
    ("adamw_wd", "AdamW", {"lr": 0.1, "weight_decay": 0.3}, None),
    ("adamw_amsgrad", "AdamW", {"lr": 0.1, "amsgrad": 1, "beta2": 0.9, "weight_decay": 0.05}, None),
    ("rmsprop_default", "RMSprop", {}, None),
    ("rmsprop_momentum", "RMSprop", {"lr": 0.01, "momentum": 0.9}, None),
    ("rmsprop_centered", "RMSprop", {"lr": 0.01, "centered": 1, "alpha": 0.9}, None),
    ("rmsprop_centered_momentum_wd", "RMSprop",
     {"lr": 0.005, "centered": 1, "momentum": 0.5, "weight_decay": 0.1, "eps": 1e-4}, None),
    ("rmsprop_maximize_groups", "RMSprop", {"lr": 0.01, "maximize": 1}, {"lr": 0.002, "momentum": 0.3}),
    ("adagrad_default", "Adagrad", {}, None),
    ("adagrad_decay_wd", "Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1}, None),
    ("adagrad_initial_acc", "Adagrad", {"lr": 0.2, "initial_accumulator_value": 0.5, "eps": 1e-3}, None),
    ("adagrad_maximize", "Adagrad", {"lr": 0.05, "maximize": 1, "weight_decay": 0.02}, None),
]

# name, optimizer with its options, scheduler constructor (tests/optim/scheduler_test.cpp builds the same)
SCHED_CASES = [
    ("step_lr", lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5)),
    ("multi_step_lr", lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3)),
    ("exponential_lr", lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)),
    ("cosine_annealing_lr", lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=0.001)),
    ("linear_lr", lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, end_factor=1.0, total_iters=4)),
    ("one_cycle_lr", lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.2, 0.1], total_steps=SCHED_STEPS)),
    ("one_cycle_lr_adam", lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=0.05, total_steps=SCHED_STEPS,
                                                                       pct_start=0.25, div_factor=10.0)),
    ("plateau_min", lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5, cooldown=1,
                                                                        min_lr=[0.02, 0.0])),
    ("plateau_max_abs", lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(
        o, mode="max", patience=0, factor=0.2, threshold=0.05, threshold_mode="abs")),
]
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85, 0.7, 0.7]


def torch_options(opts):
    kw = {k: v for k, v in opts.items() if k not in ("beta1", "beta2")}
    for k in ("nesterov", "amsgrad", "centered", "maximize"):
        if k in kw:
            kw[k] = bool(kw[k])
    if "beta1" in opts or "beta2" in opts:
        kw["betas"] = (opts.get("beta1", 0.9), opts.get("beta2", 0.999))
    return kw


def problem():
    w = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    return w, b


def backward(w, b):
    loss = ((w * torch.tensor(C) + b - torch.tensor(T)) ** 2).sum()
    loss.backward()


def flat(w, b):
    return w.detach().flatten().tolist() + b.detach().tolist()


def run_optim(kind, opts, b_opts):
    w, b = problem()
    cls = getattr(torch.optim, kind)
    groups = [{"params": [w, b]}] if b_opts is None else [{"params": [w]}, {"params": [b], **torch_options(b_opts)}]
    opt = cls(groups, **torch_options(opts)) if opts or kind != "SGD" else cls(groups, lr=1e-3)
    traj = []
    for _ in range(STEPS):
        opt.zero_grad()
        backward(w, b)
        opt.step()
        traj.append(flat(w, b))
    return traj


def run_sched(name, make):
    w, b = problem()
    groups = [{"params": [w], "lr": 0.1}, {"params": [b], "lr": 0.05}]
    opt = torch.optim.Adam(groups) if name.endswith("adam") else torch.optim.SGD(groups, lr=0.1, momentum=0.9)
    sched = make(opt)
    plateau = name.startswith("plateau")
    lrs = [[g["lr"] for g in opt.param_groups]]
    params = []
    for i in range(SCHED_STEPS):
        opt.zero_grad()
        backward(w, b)
        opt.step()
        sched.step(PLATEAU_METRICS[i]) if plateau else sched.step()
        lrs.append([g["lr"] for g in opt.param_groups])
        params.append(flat(w, b))
    return lrs, params


def run_clip(norm_type, max_norm):
    w, b = problem()
    backward(w, b)
    if norm_type is None:
        torch.nn.utils.clip_grad_value_([w, b], max_norm)
        total = 0.0
    else:
        total = float(torch.nn.utils.clip_grad_norm_([w, b], max_norm, norm_type))
    return total, w.grad.flatten().tolist() + b.grad.tolist()


def num(x):
    return "INFINITY" if x == float("inf") else repr(float(x))


def vec(v):
    return "{" + ", ".join(num(x) for x in v) + "}"


def mat(rows):
    return "{" + ",\n      ".join(vec(r) for r in rows) + "}"


def opts_init(o):
    return "{" + ", ".join('{"%s", %s}' % (k, num(v)) for k, v in o.items()) + "}"


def main():
    out = []
    p = out.append
    p("// Generated by tests/optim/make_reference.py with PyTorch %s; do not edit." % torch.__version__)
    p("// PyTorch's results on the problem described there (float64).")
    p("#pragma once")
    p("#include <vector>\n")
    p('#include "nabla/optim/optimizer.h"\n')
    p("namespace nabla::optim::reference {\n")
    p("inline const std::vector<double> kW0 = %s;" % vec(sum(W0, [])))
    p("inline const std::vector<double> kB0 = %s;" % vec(B0))
    p("inline const std::vector<double> kC = %s;" % vec(sum(C, [])))
    p("inline const std::vector<double> kT = %s;" % vec(sum(T, [])))
    p("inline const std::vector<double> kPlateauMetrics = %s;\n" % vec(PLATEAU_METRICS))
    p("struct OptimCase {\n  const char* name;\n  const char* optimizer;\n  Options options;\n"
      "  bool two_groups;  // w and b in separate groups, b's with b_options\n  Options b_options;\n"
      "  std::vector<std::vector<double>> params;  // w then b, after each step\n};\n")
    p("inline const std::vector<OptimCase> kOptimCases = {")
    for name, kind, opts, b_opts in OPTIM_CASES:
        traj = run_optim(kind, opts, b_opts)
        p('  {"%s", "%s", %s, %s, %s,\n     %s},' % (name, kind, opts_init(opts), "true" if b_opts else "false",
                                                    opts_init(b_opts or {}), mat(traj)))
    p("};\n")
    p("struct SchedCase {\n  const char* name;\n  std::vector<std::vector<double>> lrs;  // after construction, "
      "then after each step\n  std::vector<std::vector<double>> params;  // after each step\n};\n")
    p("inline const std::vector<SchedCase> kSchedCases = {")
    for name, make in SCHED_CASES:
        lrs, params = run_sched(name, make)
        p('  {"%s",\n     %s,\n     %s},' % (name, mat(lrs), mat(params)))
    p("};\n")
    p("struct ClipCase {\n  double norm_type;  // 0: clip_grad_value_\n  double max;\n  double total_norm;\n"
      "  std::vector<double> grads;\n};\n")
    p("inline const std::vector<ClipCase> kClipCases = {")
    for norm_type, max_norm in [(2.0, 1.0), (1.0, 5.0), (float("inf"), 2.0), (2.0, 1e3), (None, 0.5)]:
        total, grads = run_clip(norm_type, max_norm)
        p("  {%s, %s, %s, %s}," % (num(norm_type or 0), num(max_norm), num(total), vec(grads)))
    p("};\n")
    p("}  // namespace nabla::optim::reference")
    print("\n".join(out))


if __name__ == "__main__":
    main()
