#!/usr/bin/env python3
"""compare.py - nabla vs. libtorch vs. raw SGEMM, one table.

What it measures: runs three Google-Benchmark binaries with JSON output,
  nabla_ops_bench     (nabla; same case names as torch_ops_bench)
  torch_ops_bench     (libtorch reference, bench/reference)
  sgemm_direct_bench  (cblas_sgemm / dnnl_sgemm reference, bench/reference)
once with 1 and once with 2 threads (env BENCH_THREADS and NABLA_NUM_THREADS both set),
and prints, per case and thread count, nabla / libtorch / best direct SGEMM and the ratio
against the goal:
  add_scalar_tensor/*  per-op overhead  nabla time       <= 0.50 x libtorch time
  matmul/*             GEMM throughput  nabla GFLOP/s    >= 0.95 x max(openblas, onednn)
  elementwise/*        throughput       nabla Gelem/s    >= 0.90 x libtorch
  elementwise/*_out    informative only (libtorch into a preallocated output, no goal)

All numbers come from the benchmark's wall-clock "real_time" (median over --repetitions);
GFLOP/s and Gelem/s are recomputed from it, so a bench need not define the counters.
Google Benchmark appends "/real_time" to the names of UseRealTime() cases; it is stripped.
Matmul case names are matmul/MxKxN for mm(A[M,K], B[K,N]).

Usage:
  bench/compare.py [NABLA_BENCH] [--ref-dir build-ref] [--threads 1,2]
                   [--min-time 0.2] [--repetitions 3] [--markdown]
If NABLA_BENCH (default build/release/bench/nabla_ops_bench) does not exist, only the
reference columns are printed. Python 3 standard library only.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

TO_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
ELEMS_16M = 16 * 1024 * 1024


def run_bench(binary, threads, min_time, repetitions, bench_filter=None):
    """Run one Google-Benchmark binary; return {case name: seconds per iteration}."""
    env = dict(os.environ, BENCH_THREADS=str(threads), NABLA_NUM_THREADS=str(threads))
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [binary, f"--benchmark_min_time={min_time}",
               f"--benchmark_repetitions={repetitions}",
               "--benchmark_report_aggregates_only=true",
               f"--benchmark_out={out.name}", "--benchmark_out_format=json"]
        if bench_filter:
            cmd.append(f"--benchmark_filter={bench_filter}")
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            sys.exit(f"{binary} failed (rc={proc.returncode}):\n{proc.stderr}")
        data = json.load(open(out.name))
    times = {}
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            continue
        aggregated = b.get("run_type") == "aggregate"
        if aggregated and b.get("aggregate_name") != "median":
            continue
        if not aggregated and repetitions > 1:
            continue
        name = re.sub(r"/real_time$", "", b.get("run_name", b["name"]))
        times[name] = b["real_time"] * TO_SECONDS[b["time_unit"]]
    return times


def gflops(case, seconds):
    m, k, n = map(int, case.rsplit("/", 1)[1].split("x"))
    return 2.0 * m * n * k / seconds / 1e9


def fmt_time(s):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def make_rows(results, threads_list, have_nabla):
    rows = []
    for t in threads_list:
        torch, direct, nabla = (results[t][k] for k in ("torch", "direct", "nabla"))
        for case, tt in torch.items():
            nt = nabla.get(case)
            row = {"case": case, "threads": str(t), "nabla": "-", "libtorch": "-",
                   "best direct sgemm": "", "ratio": "-", "goal": ""}
            if case.startswith("matmul/"):
                shape = case.split("/", 1)[1]
                cands = [(gflops(case, direct[f"{lib}_sgemm/{shape}"]), lib)
                         for lib in ("openblas", "onednn") if f"{lib}_sgemm/{shape}" in direct]
                best, best_lib = max(cands) if cands else (None, "")
                row["libtorch"] = f"{gflops(case, tt):.1f} GFLOP/s"
                if best:
                    row["best direct sgemm"] = f"{best:.1f} GFLOP/s ({best_lib})"
                if nt and best:
                    r = gflops(case, nt) / best
                    row.update(nabla=f"{gflops(case, nt):.1f} GFLOP/s", ratio=f"{r:.2f}",
                               goal=("met" if r >= 0.95 else "MISSED") + " (>= 0.95)")
                elif best:  # reference-only: how close libtorch gets to raw SGEMM
                    row["ratio"] = f"libtorch {gflops(case, tt) / best:.2f}"
            elif case.startswith("elementwise/"):
                row["libtorch"] = f"{ELEMS_16M / tt / 1e9:.3f} Gelem/s"
                if case.endswith("_out"):
                    row["goal"] = "info (preallocated out)"
                if nt:
                    r = tt / nt  # throughput ratio nabla / libtorch
                    row.update(nabla=f"{ELEMS_16M / nt / 1e9:.3f} Gelem/s", ratio=f"{r:.2f}")
                    if not case.endswith("_out"):
                        row["goal"] = ("met" if r >= 0.9 else "MISSED") + " (>= 0.90)"
            else:  # per-op overhead: time per op
                row["libtorch"] = fmt_time(tt)
                if nt:
                    r = nt / tt
                    row.update(nabla=fmt_time(nt), ratio=f"{r:.2f}",
                               goal=("met" if r <= 0.5 else "MISSED") + " (<= 0.50)")
            rows.append(row)
        # cases only nabla has (no reference): list them without a ratio
        for case in nabla.keys() - torch.keys():
            rows.append({"case": case, "threads": str(t), "nabla": fmt_time(nabla[case]),
                         "libtorch": "-", "best direct sgemm": "", "ratio": "-", "goal": ""})
    cols = ["case", "threads"] + (["nabla"] if have_nabla else []) + \
           ["libtorch", "best direct sgemm", "ratio"] + (["goal"] if have_nabla else [])
    return cols, rows


def print_table(cols, rows, markdown):
    cells = [[r[c] for c in cols] for r in rows]
    if markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "|".join("---" for _ in cols) + "|")
        for r in cells:
            print("| " + " | ".join(x or " " for x in r) + " |")
        return
    w = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    line = lambda xs: "  ".join(x.ljust(w[i]) for i, x in enumerate(xs)).rstrip()
    print(line(cols))
    print(line(["-" * x for x in w]))
    for r in cells:
        print(line(r))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("nabla_bench", nargs="?", default="build/release/bench/nabla_ops_bench")
    ap.add_argument("--ref-dir", default="build-ref",
                    help="build dir of bench/reference (torch_ops_bench, sgemm_direct_bench)")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--min-time", default="0.2", help="--benchmark_min_time, seconds")
    ap.add_argument("--repetitions", type=int, default=1, help="repetitions inside one run")
    ap.add_argument("--rounds", type=int, default=5,
                    help="interleaved rounds (nabla, libtorch, direct, nabla, ...); the median "
                         "per case is reported, so slow drifts of a shared machine hit all columns")
    ap.add_argument("--stat", choices=["median", "best"], default="median",
                    help="per case over the rounds: median time, or best (minimum) time, which "
                         "filters out rounds slowed by other load on a shared machine")
    ap.add_argument("--filter", default=None, help="--benchmark_filter regex passed to every binary")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table")
    a = ap.parse_args()

    have_nabla = os.access(a.nabla_bench, os.X_OK)
    if not have_nabla:
        print(f"note: {a.nabla_bench} not found, printing reference columns only",
              file=sys.stderr)
    threads_list = [int(x) for x in a.threads.split(",")]
    results = {}
    binaries = [("torch", os.path.join(a.ref_dir, "torch_ops_bench")),
                ("direct", os.path.join(a.ref_dir, "sgemm_direct_bench"))]
    if have_nabla:
        binaries.insert(0, ("nabla", a.nabla_bench))
    for t in threads_list:
        samples = {key: {} for key, _ in binaries}
        for _ in range(a.rounds):
            for key, path in binaries:
                for case, sec in run_bench(path, t, a.min_time, a.repetitions, a.filter).items():
                    samples[key].setdefault(case, []).append(sec)
        results[t] = {"nabla": {}}
        for key, cases in samples.items():
            pick = min if a.stat == "best" else statistics.median
            results[t][key] = {c: pick(v) for c, v in cases.items()}
    print_table(*make_rows(results, threads_list, have_nabla), a.markdown)


if __name__ == "__main__":
    main()
