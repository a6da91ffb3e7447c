#!/bin/bash
# One epoch of `nabla train`'s default run for two builds, interleaved
# (issue 20, acceptance 5): BEFORE and AFTER are `nabla` binaries (build an
# older commit in a worktree for BEFORE); AFTER also runs with
# --memory-format channels_last and with NABLA_WINOGRAD=0.
#
# Usage: bench/train_ab.sh BEFORE AFTER [ROUNDS] [EPOCHS]
# Prints per run the epoch line, the final accuracy and the process's wall
# and CPU time. Needs the Fashion-MNIST files (scripts/install_deps.sh).
set -euo pipefail
before=${1:?usage: $0 BEFORE AFTER [ROUNDS] [EPOCHS]}
after=${2:?usage: $0 BEFORE AFTER [ROUNDS] [EPOCHS]}
rounds=${3:-2}
epochs=${4:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
  for v in before after after_channels_last after_direct_conv; do
    case $v in
      before) cmd=("$before" train) ;;
      after) cmd=("$after" train) ;;
      after_channels_last) cmd=("$after" train --memory-format channels_last) ;;
      after_direct_conv) cmd=(env NABLA_WINOGRAD=0 "$after" train) ;;
    esac
    echo "== round $r: $v"
    /usr/bin/time -f "wall %e s, cpu %U s user + %S s system" "${cmd[@]}" --epochs "$epochs" --progress none \
      --out "$out/$v" 2>&1 | grep -E "^epoch|final test|^wall|error" || true
  done
done
