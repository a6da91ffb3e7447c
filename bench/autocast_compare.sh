#!/usr/bin/env bash
# autocast_compare.sh - the `nabla train` CNN training step in float32 and
# under bf16 autocast (issue 20, acceptance 3), on this machine's CPU.
#
# Runs bench/cnn_step_bench without and with --autocast at each thread count,
# interleaved (float32, autocast, autocast, float32, ... alternating who goes
# first) for several rounds in one run, and prints the CPU, whether it has
# AVX512-BF16 / AMX-BF16, and one markdown table:
#   ms/step = best-of-rounds median step time of each variant
#   ratio   = autocast / float32 (below 1: autocast is faster), of wall and of CPU time
#   cpu     = best-of-rounds median CPU time per step (all threads): a check
#             on the wall times when the machine is shared
#   loss    = the final loss of each (same data and initial weights)
# Without AVX512-BF16 or AMX it says so and skips the timing (autocast still
# works there, through oneDNN's emulation or float32 kernels, but its speed
# is not what the comparison is about); --force times it anyway.
#
# --mode compiled times the compiled step (cnn_step_bench --mode compiled)
# instead of the eager one.
#
# Usage: bench/autocast_compare.sh [--nabla BIN] [--mode eager|compiled] [--threads "1 2"] [--rounds 5] [--steps 30]
#                                  [--warmup 5] [--force]
set -euo pipefail

nabla=build/release/bench/cnn_step_bench
[[ -x $nabla ]] || nabla=$(ls build/*/bench/cnn_step_bench 2>/dev/null | head -1 || true)
threads="1 2"
mode=eager
rounds=5
steps=30
warmup=5
force=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nabla) nabla=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[[ -x $nabla ]] || { echo "not found or not executable: $nabla" >&2; exit 1; }

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
flags=$(grep -m1 '^flags' /proc/cpuinfo || true)
bf16=""
for f in avx512_bf16 amx_bf16; do
  grep -qw "$f" <<<"$flags" && bf16="$bf16 $f"
done
echo "CPU: ${cpu:-unknown} ($(nproc) cores); bfloat16 instructions:${bf16:- none}"
if [[ -z $bf16 && $force == 0 ]]; then
  echo "skipped: this CPU has neither AVX512-BF16 nor AMX-BF16, so bf16 autocast is not expected to be faster here"
  echo "(it still runs, correctly; --force times it anyway)"
  exit 0
fi

field() { sed -n "s/.*\<$2=\([^ ]*\).*/\1/p" <<<"$1"; }

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((r = 0; r < rounds; r++)); do
  for t in $threads; do
    order=("" "--autocast")
    ((r % 2)) && order=("--autocast" "")
    for flag in "${order[@]}"; do
      line=$(OMP_NUM_THREADS=$t NABLA_NUM_THREADS=$t "$nabla" --mode "$mode" --threads "$t" --steps "$steps" --warmup "$warmup" $flag | tail -1)
      echo "$t $(field "$line" autocast) $(field "$line" median_ms) $(field "$line" cpu_ms) $(field "$line" final_loss)" >>"$results"
      echo "round $((r + 1))/$rounds: $line" >&2
    done
  done
done

echo
echo "CNN training step ($mode), batch 64, float32 vs bf16 autocast ($rounds interleaved rounds of $warmup warm-up + $steps"
echo "timed steps; ms/step = best-of-rounds median)"
echo
echo "| threads | float32 ms/step | autocast ms/step | ratio | float32 cpu ms | autocast cpu ms | cpu ratio | float32 loss | autocast loss |"
echo "|---|---|---|---|---|---|---|---|---|"
for t in $threads; do
  awk -v t="$t" '
    $1 == t {
      if (!($2 in med) || $3 < med[$2]) med[$2] = $3
      if (!($2 in cpu) || $4 < cpu[$2]) cpu[$2] = $4
      loss[$2] = $5
    }
    END {
      printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s |\n", t, med["off"], med["bf16"],
             med["bf16"] / med["off"], cpu["off"], cpu["bf16"], cpu["bf16"] / cpu["off"], loss["off"], loss["bf16"]
    }' "$results"
done
