#!/usr/bin/env bash
# seed_compare.sh - the lecture's seed MLP training step (issue 4, acceptance 3):
# nabla eager, compiled (nabla::compile) and graph-mode, the same step
# hand-written on OpenBLAS, and libtorch eager.
#
# Runs bench/seed_step_bench (every mode its --mode list names) and
# bench/reference/torch_seed_step at each thread count, interleaved with the
# order rotating every round, and prints per thread count the best-of-rounds
# median step time of each and the ratios to libtorch.
#
# Usage: bench/seed_compare.sh [--nabla BIN] [--torch BIN] [--threads "1 2"]
#                              [--rounds 5] [--steps 300] [--warmup 30]
# Defaults: build/release/bench/seed_step_bench (else build/*/bench/...), build-ref/torch_seed_step.
set -euo pipefail

nabla=build/release/bench/seed_step_bench
[[ -x $nabla ]] || nabla=$(ls build/*/bench/seed_step_bench 2>/dev/null | head -1)
torch=build-ref/torch_seed_step
threads="1 2"
rounds=5
steps=300
warmup=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nabla) nabla=$2; shift 2 ;;
    --torch) torch=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
for bin in "$nabla" "$torch"; do
  [[ -x $bin ]] || { echo "not found or not executable: $bin" >&2; exit 1; }
done

field() { sed -n "s/.*\<$2=\([^ ]*\).*/\1/p" <<<"$1"; }

# The modes seed_step_bench knows (older builds: eager and blas only).
modes=$("$nabla" --mode list 2>/dev/null || echo "eager blas")
cmds=()
for m in $modes; do cmds+=("$nabla --mode $m"); done
cmds+=("$torch")

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((r = 0; r < rounds; r++)); do
  for t in $threads; do
    n=${#cmds[@]}
    for ((k = 0; k < n; k++)); do
      cmd=${cmds[$(((k + r) % n))]}
      line=$(OMP_NUM_THREADS=$t NABLA_NUM_THREADS=$t $cmd --threads "$t" --steps "$steps" --warmup "$warmup" | tail -1)
      echo "$t $(field "$line" impl) $(field "$line" median_ms) $(field "$line" best_ms)" >>"$results"
      echo "round $((r + 1))/$rounds: $line" >&2
    done
  done
done

echo
echo "Seed MLP training step (N=64, 1000-100-10, MSE sum, Adam 1e-4; $rounds interleaved rounds of"
echo "$warmup warm-up + $steps timed steps; ms = best-of-rounds median step time; ratio = x / libtorch)"
echo
echo "| threads | impl | ms/step | best ms | ratio to libtorch |"
echo "|---|---|---|---|---|"
for t in $threads; do
  awk -v t="$t" '
    $1 == t {
      if (!($2 in med) || $3 < med[$2]) med[$2] = $3
      if (!($2 in best) || $4 < best[$2]) best[$2] = $4
      if (!($2 in seen)) { order[n++] = $2; seen[$2] = 1 }
    }
    END {
      for (i = 0; i < n; i++) {
        k = order[i]
        printf "| %s | %s | %.4f | %.4f | %.2f |\n", t, k, med[k], best[k], med[k] / med["libtorch"]
      }
    }' "$results"
done
