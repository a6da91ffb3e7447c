#!/bin/bash
# ResNet-18 training steps of two cnn_step_bench binaries, interleaved
# (issue 20, batch norm + ReLU): BEFORE and AFTER are cnn_step_bench builds
# (for BEFORE, build an older commit with this commit's
# bench/cnn_step_bench.cpp, which looks the fused ops up by name). Each round
# runs eager and compiled for both, in an order that rotates from round to
# round, and prints the median step time of each run; the summary gives the
# ranges over rounds and the per-round ratio AFTER / BEFORE.
#
# Usage: bench/resnet_step_ab.sh BEFORE AFTER [ROUNDS] [extra cnn_step_bench flags]
# (default flags: --model resnet18 --batch 16 --size 64 --threads 1 --warmup 3 --steps 15)
set -euo pipefail
before=${1:?usage: $0 BEFORE AFTER [ROUNDS] [flags]}
after=${2:?usage: $0 BEFORE AFTER [ROUNDS] [flags]}
rounds=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
flags=(--model resnet18 --batch 16 --size 64 --threads 1 --warmup 3 --steps 15 "$@")
runs=("before eager" "after eager" "before compiled" "after compiled")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$rounds"); do
  for k in 0 1 2 3; do
    read -r which mode <<<"${runs[$(( (k + r) % 4 ))]}"
    bin=$before
    [ "$which" = after ] && bin=$after
    line=$("$bin" "${flags[@]}" --mode "$mode" | grep '^impl=')
    ms=$(sed -n 's/.* median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
    cpu=$(sed -n 's/.* cpu_ms=\([0-9.]*\).*/\1/p' <<<"$line")
    echo "round $r $which $mode $ms $cpu" | tee -a "$out"
  done
done
python3 - "$out" <<'PY'
import sys, collections
t = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    _, r, which, mode, ms, cpu = line.split()
    t[(which, mode, "wall")][int(r)] = float(ms)
    t[(which, mode, "cpu")][int(r)] = float(cpu)
def rng(v, f="{:.1f}"):
    v = sorted(v)
    return " / ".join(f.format(x) for x in (v[0], v[len(v) // 2], v[-1]))
for mode in ("eager", "compiled"):
    for clock in ("wall", "cpu"):
        b, a = t[("before", mode, clock)], t[("after", mode, clock)]
        ratio = [a[r] / b[r] for r in b if r in a]
        print(f"{mode:9s} {clock:4s} before {rng(b.values())} ms  after {rng(a.values())} ms  "
              f"after/before {rng(ratio, '{:.3f}')}")
PY
