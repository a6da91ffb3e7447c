#!/usr/bin/env bash
# autocast_ab.sh - bf16 autocast against float32 (bench/cnn_step_bench) for
# two nabla builds, A (before) and B (after): all four variants (build x
# float32/autocast) interleaved per (threads, mode), alternating the order
# each round, so a shared machine's load falls on all of them alike.
#
# Prints one markdown table: per (threads, mode), the medians over rounds of
# each run's CPU ms/step (all threads: steadier than wall time on a shared
# machine) and the autocast / float32 ratio of each build, with the range of
# the per-round ratios. A binary that needs another library (a copy of main's
# build) can be a wrapper script that sets LD_LIBRARY_PATH and execs it.
#
# Usage: bench/autocast_ab.sh A_BIN B_BIN [--threads "1 2"] [--modes "eager compiled"] [--rounds 5]
#                             [--steps 30] [--warmup 5]
set -euo pipefail
[[ $# -ge 2 ]] || { sed -n '2,14p' "$0"; exit 2; }
a=$1 b=$2
shift 2
threads="1 2" modes="eager compiled" rounds=5 steps=30 warmup=5
source "$(dirname "$0")/ab_common.sh"
ab_parse_args "$@"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
# Both builds, float32 and autocast, the order of the two flipping too.
run_both_precisions() {
  local r=$1 t=$2 m=$3 which=$4 bin=$5 f line flags=("" "--autocast")
  (((r + t) % 2)) && flags=("--autocast" "")
  for f in "${flags[@]}"; do
    line=$(OMP_NUM_THREADS=$t NABLA_NUM_THREADS=$t "$bin" --mode "$m" --threads "$t" --steps "$steps" \
      --warmup "$warmup" $f | tail -1)
    echo "$r $t $m $which $(field "$line" autocast) $(field "$line" cpu_ms)" >>"$results"
  done
}
ab_each_run run_both_precisions
echo
echo "CNN step (batch 64), float32 vs bf16 autocast, A = $a, B = $b; $rounds interleaved rounds of"
echo "$warmup + $steps steps; CPU ms/step, medians over rounds; ratio = autocast / float32 (range over rounds)"
echo
echo "| threads | mode | A float32 | A autocast | A ratio | B float32 | B autocast | B ratio |"
echo "|---|---|---|---|---|---|---|---|"
for t in $threads; do
  for m in $modes; do
    awk -v t="$t" -v m="$m" '
      function median(arr, n,   i, j, tmp) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { tmp = arr[i]; arr[i] = arr[j]; arr[j] = tmp }
        return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
      }
      $2 == t && $3 == m { cpu[$4, $5, $1] = $6; rounds[$1] = 1 }
      END {
        line = sprintf("| %s | %s", t, m)
        split("A B", builds, " ")
        for (k = 1; k <= 2; k++) {
          w = builds[k]; n = 0; lo = 1e9; hi = 0
          for (r in rounds) {
            n++; f[n] = cpu[w, "off", r]; c[n] = cpu[w, "bf16", r]
            q = cpu[w, "bf16", r] / cpu[w, "off", r]; if (q < lo) lo = q; if (q > hi) hi = q
          }
          mf = median(f, n); mc = median(c, n)
          line = line sprintf(" | %.1f | %.1f | %.2f (%.2f-%.2f)", mf, mc, mc / mf, lo, hi)
        }
        print line " |"
      }' "$results"
  done
done
