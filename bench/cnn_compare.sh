#!/usr/bin/env bash
# cnn_compare.sh - the `nabla train` CNN training step, nabla vs libtorch (issue 3).
#
# Runs bench/cnn_step_bench (nabla) and bench/reference/torch_cnn_step
# (libtorch) at each thread count, interleaved (nabla, libtorch, libtorch,
# nabla, ... alternating who goes first) for several rounds in one run, and
# prints one markdown table per statistic:
#   ms/step = the best over rounds of each run's median step time
#   best    = the fastest single step seen
#   ratio   = nabla / libtorch (goal: <= 0.80)
#   cpu     = best-of-rounds median CPU time per step (all threads of the
#             process): a check on the wall times when the machine is shared
#   peak RSS of each process (getrusage ru_maxrss; goal: nabla <= 0.5 x libtorch)
#
# Usage: bench/cnn_compare.sh [--nabla BIN] [--torch BIN] [--threads "1 2"]
#                             [--rounds 5] [--steps 30] [--warmup 5]
# Defaults: build/release/bench/cnn_step_bench (else build/*/bench/...), build-ref/torch_cnn_step.
set -euo pipefail

nabla=build/release/bench/cnn_step_bench  # the release preset's, else any build tree's
[[ -x $nabla ]] || nabla=$(ls build/*/bench/cnn_step_bench 2>/dev/null | head -1)
torch=build-ref/torch_cnn_step
threads="1 2"
rounds=5
steps=30
warmup=5
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nabla) nabla=$2; shift 2 ;;
    --torch) torch=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for bin in "$nabla" "$torch"; do
  [[ -x $bin ]] || { echo "not found or not executable: $bin" >&2; exit 1; }
done

# Extracts key=value from a result line.
field() { sed -n "s/.*\<$2=\([^ ]*\).*/\1/p" <<<"$1"; }

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((r = 0; r < rounds; r++)); do
  for t in $threads; do
    order=("$nabla" "$torch")
    ((r % 2)) && order=("$torch" "$nabla")
    for bin in "${order[@]}"; do
      # OMP_NUM_THREADS too, so that no library starts with more threads than asked.
      line=$(OMP_NUM_THREADS=$t NABLA_NUM_THREADS=$t "$bin" --threads "$t" --steps "$steps" --warmup "$warmup" | tail -1)
      impl=$(field "$line" impl)
      echo "$t $impl $(field "$line" median_ms) $(field "$line" best_ms) $(field "$line" peak_rss_mib) $(field "$line" cpu_ms)" >>"$results"
      echo "round $((r + 1))/$rounds: $line" >&2
    done
  done
done

echo
echo "CNN training step, batch 64 ($rounds interleaved rounds of $warmup warm-up + $steps timed steps;"
echo "ms/step = best-of-rounds median, best = fastest step; RSS = peak of the process)"
echo
echo "| threads | nabla ms/step | libtorch ms/step | ratio | goal <= 0.80 | nabla best | libtorch best | nabla cpu ms | libtorch cpu ms | nabla peak RSS | libtorch peak RSS | RSS ratio | goal <= 0.50 |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for t in $threads; do
  awk -v t="$t" '
    $1 == t {
      if (!($2 in med) || $3 < med[$2]) med[$2] = $3
      if (!($2 in best) || $4 < best[$2]) best[$2] = $4
      if ($5 > rss[$2]) rss[$2] = $5
      if (!($2 in cpu) || $6 < cpu[$2]) cpu[$2] = $6
    }
    END {
      r = med["nabla"] / med["libtorch"]; m = rss["nabla"] / rss["libtorch"]
      printf "| %s | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %.2f | %.2f | %.0f MiB | %.0f MiB | %.2f | %s |\n", t,
             med["nabla"], med["libtorch"], r, (r <= 0.80 ? "met" : "MISSED"), best["nabla"], best["libtorch"],
             cpu["nabla"], cpu["libtorch"], rss["nabla"], rss["libtorch"], m, (m <= 0.50 ? "met" : "MISSED")
    }' "$results"
done
