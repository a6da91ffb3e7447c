# Shared by the A/B scripts that run bench/cnn_step_bench for two builds
# (cnn_ab_compare.sh, autocast_ab.sh): their options and the interleaved
# order of the runs. Source it after setting a, b (the two binaries) and the
# defaults of threads, modes, rounds, steps and warmup, then call
# ab_parse_args "$@" with the remaining arguments.

ab_parse_args() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --threads) threads=$2; shift 2 ;;
      --modes) modes=$2; shift 2 ;;
      --rounds) rounds=$2; shift 2 ;;
      --steps) steps=$2; shift 2 ;;
      --warmup) warmup=$2; shift 2 ;;
      *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
  done
}

# The value of key=value field $2 in the bench's output line $1.
field() { sed -n "s/.*\<$2=\([^ ]*\).*/\1/p" <<<"$1"; }

# Calls "$1" ROUND THREADS MODE WHICH BIN for every round, thread count and
# mode with both builds (WHICH is A or B), the order of A and B alternating
# from round to round, so that a shared machine's load falls on both alike.
ab_each_run() {
  local run=$1 r t m which bin order
  for ((r = 0; r < rounds; r++)); do
    for t in $threads; do
      for m in $modes; do
        order=(A B)
        ((r % 2)) && order=(B A)
        for which in "${order[@]}"; do
          bin=$a
          [[ $which == B ]] && bin=$b
          "$run" "$r" "$t" "$m" "$which" "$bin"
        done
      done
    done
    echo "round $((r + 1))/$rounds done" >&2
  done
}
