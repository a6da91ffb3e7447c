#!/usr/bin/env bash
# seed_floor.sh - the seed MLP's compiled step at 1 thread against its physical
# floor (issue 20, acceptance 2; goal: step / floor <= 1.15).
#
# Runs `seed_step_bench --mode compiled --threads 1 --floor R` several times
# (each run measures the FMA peak and the Adam-shaped bandwidth R+1 times
# between rounds of steps, in the same process; see seed_step_bench.cpp),
# prints each run's floor table, then the medians over runs of the step, the
# floor and their ratio.
#
# Usage: bench/seed_floor.sh [--nabla BIN] [--runs 5] [--rounds 5] [--steps 1000] [--mode compiled]
# Default BIN: build/release/bench/seed_step_bench (else build/*/bench/...).
set -euo pipefail

nabla=build/release/bench/seed_step_bench
[[ -x $nabla ]] || nabla=$(ls build/*/bench/seed_step_bench 2>/dev/null | head -1)
runs=5
rounds=5
steps=1000
mode=compiled
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nabla) nabla=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x $nabla ]] || { echo "not found or not executable: $nabla" >&2; exit 1; }

field() { sed -n "s/.*\<$2=\([^ ]*\).*/\1/p" <<<"$1"; }
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= runs; r++)); do
  out=$(OMP_NUM_THREADS=1 NABLA_NUM_THREADS=1 "$nabla" --mode "$mode" --threads 1 --warmup 50 --steps "$steps" \
        --floor "$rounds" 2>/dev/null)
  echo "run $r/$runs:"
  sed '$d' <<<"$out"
  line=$(tail -1 <<<"$out")
  echo "$(field "$line" median_ms) $(field "$line" floor_ms) $(field "$line" floor_ratio)" >>"$results"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
sort -n -k3 "$results" | awk -v runs="$runs" -v mode="$mode" '
  { step[NR] = $1; fl[NR] = $2; ratio[NR] = $3 }
  END {
    m = int((NR + 1) / 2)
    printf "\nseed MLP %s step, 1 thread, %d runs: median run (by ratio): step %.4f ms, floor %.4f ms, step / floor %.3f (goal <= 1.15: %s); ratios %.3f..%.3f\n",
           mode, runs, step[m], fl[m], ratio[m], (ratio[m] <= 1.15 ? "met" : "MISSED"), ratio[1], ratio[NR]
  }'
