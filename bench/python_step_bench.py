"""The seed training step from Python on nabla, against the same step in C++
(bench/seed_step_bench --mode eager) and in PyTorch's Python (Debian's torch),
in one run (issue 19, acceptance 4).

  step = zero_grad, Sequential(Linear(1000, 100), ReLU, Linear(100, 10)) on x [64, 1000],
         mse_loss(reduction="sum"), backward, Adam(lr=1e-4).step()

Also the same step compiled (nabla.compile from Python against
seed_step_bench --mode compiled), and the lecture's raw-autograd seed
(x.mm(w1).clamp(min=0).mm(w2), manual SGD under no_grad), nabla-Python against
PyTorch-Python (no C++ timer for that one).
One thread each (--threads). Rounds alternate the implementations so that a
busy machine slows them alike; each figure is the lowest of the rounds'
medians. Prints one line per implementation and the ratios.

Usage: PYTHONPATH=build/release/python python3 bench/python_step_bench.py
       [--cpp build/release/bench/seed_step_bench] [--steps 200] [--warmup 20] [--rounds 3] [--threads 1]
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import nabla
import nabla.nn as nn
import nabla.nn.functional as F

N, D_IN, H, D_OUT = 64, 1000, 100, 10


def median_ms(step, warmup, steps):
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def nabla_adam_step():
    nabla.manual_seed(0)
    x, y = nabla.randn([N, D_IN]), nabla.randn([N, D_OUT])
    model = nn.Sequential(nn.Linear(D_IN, H), nn.ReLU(), nn.Linear(H, D_OUT))
    opt = nabla.optim.Adam(model.parameters(), lr=1e-4)

    def step():
        opt.zero_grad()
        loss = F.mse_loss(model(x), y, reduction="sum")
        loss.backward()
        opt.step()
        return loss.item()
    return step


def nabla_compiled_adam_step():
    """The same step through nabla.compile: traced once, the cached graph's Session after."""
    nabla.manual_seed(0)
    x, y = nabla.randn([N, D_IN]), nabla.randn([N, D_OUT])
    model = nn.Sequential(nn.Linear(D_IN, H), nn.ReLU(), nn.Linear(H, D_OUT))
    opt = nabla.optim.Adam(model.parameters(), lr=1e-4)

    @nabla.compile
    def train_step(x, y):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y, reduction="sum")
        loss.backward()
        opt.step()
        return loss

    return lambda: train_step(x, y).item()


def torch_adam_step(torch):
    torch.manual_seed(0)
    x, y = torch.randn(N, D_IN), torch.randn(N, D_OUT)
    model = torch.nn.Sequential(torch.nn.Linear(D_IN, H), torch.nn.ReLU(), torch.nn.Linear(H, D_OUT))
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)

    def step():
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y, reduction="sum")
        loss.backward()
        opt.step()
        return loss.item()
    return step


def autograd_step(lib):
    """The lecture's program; `lib` is nabla or torch (the same code runs on both)."""
    lib.manual_seed(0)
    x, y = lib.randn([N, D_IN]), lib.randn([N, D_OUT])
    w1 = lib.randn([D_IN, H], requires_grad=True)
    w2 = lib.randn([H, D_OUT], requires_grad=True)

    def step():
        nonlocal w1, w2  # `w -= ...` rebinds the names (to the same tensors), as at the lecture's top level
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        loss.backward()
        with lib.no_grad():
            w1 -= 1e-6 * w1.grad
            w2 -= 1e-6 * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
        return loss.item()
    return step


def cpp_adam_step_ms(binary, warmup, steps, threads, mode="eager"):
    out = subprocess.run([binary, "--mode", mode, "--threads", str(threads), "--warmup", str(warmup),
                          "--steps", str(steps)], check=True, capture_output=True, text=True).stdout
    return float(re.search(r"median_ms=([0-9.]+)", out).group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--cpp", default=os.path.join(here, "..", "build", "release", "bench", "seed_step_bench"))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
        print("torch not importable: PyTorch columns skipped", file=sys.stderr)
    nabla.set_num_threads(a.threads)
    if torch:
        torch.set_num_threads(a.threads)

    runs = {"cpp-adam": lambda: cpp_adam_step_ms(a.cpp, a.warmup, a.steps, a.threads),
            "nabla-python-adam": lambda: median_ms(nabla_adam_step(), a.warmup, a.steps),
            "cpp-compiled-adam": lambda: cpp_adam_step_ms(a.cpp, a.warmup, a.steps, a.threads, "compiled"),
            "nabla-python-compiled-adam": lambda: median_ms(nabla_compiled_adam_step(), a.warmup, a.steps),
            "nabla-python-autograd": lambda: median_ms(autograd_step(nabla), a.warmup, a.steps)}
    if torch:
        runs["torch-python-adam"] = lambda: median_ms(torch_adam_step(torch), a.warmup, a.steps)
        runs["torch-python-autograd"] = lambda: median_ms(autograd_step(torch), a.warmup, a.steps)
    best = {name: float("inf") for name in runs}
    for _ in range(a.rounds):
        for name, run in runs.items():
            best[name] = min(best[name], run())
    for name, ms in best.items():
        print(f"impl={name} threads={a.threads} median_ms={ms:.4f}")
    print(f"ratio python/cpp (adam step) = {best['nabla-python-adam'] / best['cpp-adam']:.3f}  (acceptance: <= 1.2)")
    print(f"ratio python/cpp (compiled adam step) = "
          f"{best['nabla-python-compiled-adam'] / best['cpp-compiled-adam']:.3f}")
    if torch:
        print(f"ratio python/torch (adam step) = {best['nabla-python-adam'] / best['torch-python-adam']:.3f}  "
              f"(acceptance: < 1)")
        print(f"ratio python/torch (autograd seed) = "
              f"{best['nabla-python-autograd'] / best['torch-python-autograd']:.3f}")


if __name__ == "__main__":
    main()
