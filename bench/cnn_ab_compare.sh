#!/usr/bin/env bash
# cnn_ab_compare.sh - the CNN training step (bench/cnn_step_bench) of two nabla
# builds, A (before) and B (after), eager and compiled, interleaved.
#
# Each round runs every (threads, mode) with both binaries, alternating which
# goes first; each run prints its median step time (wall) and median CPU time.
# The table gives, per (threads, mode), the median over rounds of those
# medians and the ratio B / A (< 1: B is faster). On a shared machine, read
# the CPU column at 1 thread: it is steadier than wall time.
#
# Usage: bench/cnn_ab_compare.sh A_BIN B_BIN [--threads "1 2"] [--modes "eager compiled"]
#                                [--rounds 5] [--steps 20] [--warmup 3]
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,12p' "$0"; exit 2; }
a=$1 b=$2
shift 2
threads="1 2" modes="eager compiled" rounds=5 steps=20 warmup=3
source "$(dirname "$0")/ab_common.sh"
ab_parse_args "$@"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
run_one() {
  local r=$1 t=$2 m=$3 which=$4 bin=$5 line
  line=$(OMP_NUM_THREADS=$t NABLA_NUM_THREADS=$t "$bin" --mode "$m" --threads "$t" --steps "$steps" \
    --warmup "$warmup" | tail -1)
  echo "$t $m $which $(field "$line" median_ms) $(field "$line" cpu_ms)" >>"$results"
  echo "round $((r + 1))/$rounds $which: $line" >&2
}
ab_each_run run_one
echo
echo "CNN step (batch 64), A = $a, B = $b; $rounds interleaved rounds of $warmup + $steps steps;"
echo "medians over rounds of each run's median"
echo
echo "| threads | mode | A ms | B ms | B / A | A cpu ms | B cpu ms | B / A (cpu) |"
echo "|---|---|---|---|---|---|---|---|"
for t in $threads; do
  for m in $modes; do
    med() { awk -v t="$t" -v m="$m" -v w="$1" -v c="$2" '$1 == t && $2 == m && $3 == w { print $c }' "$results" |
      sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    wa=$(med A 4) wb=$(med B 4) ca=$(med A 5) cb=$(med B 5)
    awk -v t="$t" -v m="$m" -v wa="$wa" -v wb="$wb" -v ca="$ca" -v cb="$cb" \
      'BEGIN { printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", t, m, wa, wb, wb / wa, ca, cb, cb / ca }'
  done
done
