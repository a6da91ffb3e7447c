#!/usr/bin/env python3
"""The Fashion-MNIST CNN training step: nabla (eager and compiled) against
TensorFlow 2 tf.function and PyTorch 2 eager, in one interleaved run (issue 20,
acceptance 1; goal: nabla <= 0.8x TensorFlow's step time at 1 and 2 threads).

The model is `nabla train`'s default (zoo::fashion_cnn, bench/cnn_step_bench.cpp):

  x [64, 28, 28, 1] -> Conv2D(32, 3, same) -> ReLU -> MaxPool(2) -> BatchNorm
    -> Conv2D(64, 3, same) -> ReLU -> MaxPool(2) -> BatchNorm -> Flatten
    -> Dense(128) -> ReLU -> Dropout(0.25) -> Dense(10); cross-entropy on
    logits (mean over the batch); Adam(lr 1e-3); batch 64, random data

step = zero the gradients, forward, loss, backward, Adam update, read the loss.

- nabla: bench/cnn_step_bench --mode eager | --mode compiled (NCHW, nabla's layout),
  with nabla's default Winograd convolutions (nabla/onednn.h: the second
  convolution's three passes); the *-direct rows run with --no-winograd, the
  direct convolutions TensorFlow and PyTorch run;
- TensorFlow: Keras layers in NHWC (channels_last, as Keras builds it; the
  ReLUs as the layers' activation="relu", as Keras code writes them, so that
  TensorFlow may fuse them), the step a tf.function around a GradientTape;
  BatchNormalization(momentum=0.9, epsilon=1e-5) and Adam(epsilon=1e-8) as
  PyTorch's and nabla's defaults; intra-op threads = N, inter-op threads = 1;
- PyTorch: the same torch.nn.Sequential in NCHW, eager, torch.optim.Adam;
  torch.set_num_threads(N), set_num_interop_threads(1).

Every process prints its model's trainable parameter count; the driver checks
that they agree (421,834). Each (framework, thread count) pair runs in a
process of its own, the order rotating every round; the table gives the
median over rounds of each run's median step time, the spread of those
medians, and nabla / TensorFlow ratios.

TensorFlow and PyTorch are benchmark-only: they live in a virtual environment
(default /work/venvs/bench, --python picks another interpreter), never in
scripts/install_deps.sh. Without it this script says how to make it.

Usage: bench/cnn_tf_compare.py [--nabla BIN] [--python PY] [--threads 1,2]
                               [--rounds 5] [--steps 30] [--warmup 5]
                               [--impls nabla-eager,nabla-compiled,nabla-eager-direct,nabla-compiled-direct,tf,torch]
The same file is the TensorFlow / PyTorch worker (--worker tf|torch), run by
the driver with the venv's interpreter.
"""
import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time

BATCH = 64
DEFAULT_VENV = "/work/venvs/bench"
IMPLS = ["nabla-eager", "nabla-compiled", "nabla-eager-direct", "nabla-compiled-direct", "tf", "torch"]
VENV_HELP = f"""TensorFlow and PyTorch are not installed for this benchmark. Create its venv (PyPI, ~7 GB with
PyPI torch's CUDA libraries, which the CPU runs do not use):
  python3 -m venv {DEFAULT_VENV}
  {DEFAULT_VENV}/bin/pip install tensorflow-cpu torch
then run this script again (or point --python at another interpreter that has both)."""


# ---------------------------------------------------------------- workers


def time_steps(step, warmup, steps):
    """Runs step() warmup + steps times; returns (median ms, best ms, median CPU ms, last loss)."""
    wall, cpu = [], []
    loss = float("nan")
    for s in range(warmup + steps):
        t0, c0 = time.perf_counter(), time.process_time()
        loss = step()
        t1, c1 = time.perf_counter(), time.process_time()
        if s >= warmup:
            wall.append((t1 - t0) * 1e3)
            cpu.append((c1 - c0) * 1e3)
    return statistics.median(wall), min(wall), statistics.median(cpu), loss


def tf_worker(threads, warmup, steps):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    # Before any op runs: TensorFlow fixes its thread pools on first use.
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.random.set_seed(0)
    keras = tf.keras
    L = keras.layers
    bn = dict(momentum=0.9, epsilon=1e-5)  # PyTorch's BatchNorm2d defaults (momentum 0.1 of the new value)
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        L.Conv2D(32, 3, padding="same", activation="relu"), L.MaxPooling2D(2), L.BatchNormalization(**bn),
        L.Conv2D(64, 3, padding="same", activation="relu"), L.MaxPooling2D(2), L.BatchNormalization(**bn),
        L.Flatten(), L.Dense(128, activation="relu"), L.Dropout(0.25), L.Dense(10),
    ])
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = keras.optimizers.Adam(learning_rate=1e-3, epsilon=1e-8)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((BATCH, 28, 28, 1), dtype=np.float32))
    y = tf.constant(rng.integers(0, 10, BATCH), dtype=tf.int64)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    params = sum(int(np.prod(v.shape)) for v in model.trainable_variables)
    med, best, cpu, loss = time_steps(lambda: float(train_step(x, y).numpy()), warmup, steps)
    return params, med, best, cpu, loss, tf.__version__


def torch_worker(threads, warmup, steps):
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.BatchNorm2d(32),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.BatchNorm2d(64),
        nn.Flatten(), nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Dropout(0.25), nn.Linear(128, 10),
    )
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(BATCH, 1, 28, 28)
    y = torch.randint(0, 10, (BATCH,))

    def step():
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    med, best, cpu, loss = time_steps(step, warmup, steps)
    return params, med, best, cpu, loss, torch.__version__


def run_worker(args):
    fn = {"tf": tf_worker, "torch": torch_worker}[args.worker]
    params, med, best, cpu, loss, version = fn(args.worker_threads, args.warmup, args.steps)
    print(f"impl={args.worker} threads={args.worker_threads} version={version} params={params} "
          f"median_ms={med:.3f} best_ms={best:.3f} cpu_ms={cpu:.3f} final_loss={loss:.5f}")


# ---------------------------------------------------------------- driver


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split() if "=" in kv)


def command(impl, args, threads):
    common = ["--threads", str(threads), "--steps", str(args.steps), "--warmup", str(args.warmup)]
    if impl.startswith("nabla-"):
        mode = impl.split("-")[1]
        return [args.nabla, "--mode", mode] + (["--no-winograd"] if impl.endswith("-direct") else []) + common
    return [args.python, os.path.abspath(__file__), "--worker", impl, "--worker-threads", str(threads),
            "--steps", str(args.steps), "--warmup", str(args.warmup)]


def run_one(impl, args, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), NABLA_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(command(impl, args, threads), env=env, capture_output=True, text=True)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("impl=")]
    if proc.returncode != 0 or not lines:
        sys.exit(f"{impl} at {threads} thread(s) failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return fields(lines[-1])


def check_python(args, impls):
    modules = {"tf": "tensorflow", "torch": "torch"}
    wanted = [modules[i] for i in impls if i in modules]
    if not wanted:
        return
    probe = "import importlib.util, sys; sys.exit(any(importlib.util.find_spec(m) is None for m in sys.argv[1:]))"
    if not os.path.exists(args.python) or subprocess.run([args.python, "-c", probe] + wanted).returncode != 0:
        sys.exit(f"{args.python}: cannot import {' and '.join(wanted)}.\n\n{VENV_HELP}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nabla", default=None, help="cnn_step_bench (default: build/release/bench/cnn_step_bench)")
    p.add_argument("--python", default=f"{DEFAULT_VENV}/bin/python", help="interpreter with tensorflow and torch")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--impls", default=",".join(IMPLS))
    p.add_argument("--worker", choices=["tf", "torch"], help=argparse.SUPPRESS)
    p.add_argument("--worker-threads", type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return run_worker(args)

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if args.nabla is None:
        args.nabla = os.path.join(root, "build/release/bench/cnn_step_bench")
    impls = args.impls.split(",")
    unknown = set(impls) - set(IMPLS)
    if unknown:
        sys.exit(f"unknown --impls {sorted(unknown)} ({', '.join(IMPLS)})")
    if any(i.startswith("nabla-") for i in impls) and not os.access(args.nabla, os.X_OK):
        sys.exit(f"not found: {args.nabla} (cmake --build build/release --target cnn_step_bench)")
    check_python(args, impls)
    threads = [int(t) for t in args.threads.split(",")]

    runs = {}  # (threads, impl) -> list of result dicts
    load_before = os.getloadavg()[0]
    started = time.time()
    for r in range(args.rounds):
        for t in threads:
            for k in range(len(impls)):
                impl = impls[(k + r) % len(impls)]
                res = run_one(impl, args, t)
                runs.setdefault((t, impl), []).append(res)
                print(f"round {r + 1}/{args.rounds} threads {t}: {impl:15s} median {float(res['median_ms']):8.3f} ms "
                      f"(cpu {float(res['cpu_ms']):7.3f}) loss {res['final_loss']}", file=sys.stderr, flush=True)
    load_after = os.getloadavg()[0]

    names = {"nabla-eager": "nabla eager", "nabla-compiled": "nabla compiled",
             "nabla-eager-direct": "nabla eager, direct conv", "nabla-compiled-direct": "nabla compiled, direct conv",
             "tf": "TensorFlow tf.function", "torch": "PyTorch eager"}
    versions = {i: runs[(threads[0], i)][0].get("version") for i in impls}
    params = {i: int(runs[(threads[0], i)][0]["params"]) for i in impls}
    print(f"\nFashion-MNIST CNN training step, batch {BATCH}: {args.rounds} interleaved rounds of {args.warmup} warm-up + "
          f"{args.steps} timed steps, one process per run ({time.time() - started:.0f} s; load average "
          f"{load_before:.1f} before, {load_after:.1f} after, on {os.cpu_count()} CPUs)")
    if any(versions.values()):
        print("versions: " + ", ".join(f"{names[i]} {v}" for i, v in versions.items() if v))
    same = len(set(params.values())) == 1
    print("trainable parameters: " + ", ".join(f"{names[i]} {n:,}" for i, n in params.items()) +
          (" (the same model)" if same else "  ** MODELS DIFFER **"))
    print("ms = median over rounds of each run's median step; range = lowest..highest run median; "
          "cpu = median CPU ms per step (all threads of the process; on a shared machine the steadier figure "
          "at 1 thread); x / TensorFlow = ratio of the ms (and of the cpu) columns\n")
    has_tf = "tf" in impls
    print("| threads | framework | ms/step | range | best step | cpu ms | x / TensorFlow | cpu x / TensorFlow "
          "| goal <= 0.80 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in threads:
        med = {i: statistics.median(float(x["median_ms"]) for x in runs[(t, i)]) for i in impls}
        cpu = {i: statistics.median(float(x["cpu_ms"]) for x in runs[(t, i)]) for i in impls}
        for i in impls:
            rs = runs[(t, i)]
            meds = [float(x["median_ms"]) for x in rs]
            ratio = f"{med[i] / med['tf']:.2f}" if has_tf else ""
            cpu_ratio = f"{cpu[i] / cpu['tf']:.2f}" if has_tf else ""
            goal = ("met" if med[i] / med["tf"] <= 0.8 else "MISSED") if has_tf and i.startswith("nabla") else ""
            print(f"| {t} | {names[i]} | {med[i]:.2f} | {min(meds):.2f}..{max(meds):.2f} | "
                  f"{min(float(x['best_ms']) for x in rs):.2f} | {cpu[i]:.2f} | {ratio} | {cpu_ratio} | {goal} |")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
