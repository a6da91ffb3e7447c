#!/usr/bin/env bash
# Builds the libFuzzer targets (the "fuzz" preset: clang, ASan + UBSan) and
# runs them. docs/fuzzing.md.
#
#   scripts/fuzz.sh                 every target for 60 s
#   scripts/fuzz.sh 600 npz csv     npz and csv, 600 s each
#   scripts/fuzz.sh --replay [T..]  run each checked-in input once (regressions and corpus); no fuzzing
#   scripts/fuzz.sh --make-corpus   rewrite fuzz/corpus/ with the seed generator (fuzz/make_corpus.cpp)
#   scripts/fuzz.sh --list          the target names
#
# New interesting inputs go to build/fuzz/work/<target>/ (kept between runs),
# never into the checked-in fuzz/corpus/; crashes, leaks and timeouts to
# build/fuzz/crashes/<target>/. A finding fails the script: fix the reader,
# then copy the input to fuzz/regressions/<target>/ (replayed by CI).
# Environment: NABLA_FUZZ_JOBS=N runs N targets at once (default 1);
# NABLA_FUZZ_NO_BUILD=1 skips the build (CI builds once); NABLA_FUZZ_NICE (default 10) the niceness;
# NABLA_FUZZ_WORK another work directory (CI starts from an empty one).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build/fuzz
work=${NABLA_FUZZ_WORK:-$build/work}
all_targets=(safetensors checkpoint nbg npy npz idx idx_gzip csv json config onnx)

mode=fuzz seconds=60
case "${1:-}" in
  --replay) mode=replay; shift ;;
  --make-corpus) mode=corpus; shift ;;
  --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
  ''|*[!0-9]*) ;;
  *) seconds=$1; shift ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: no target '$t' (targets: ${all_targets[*]})" >&2; exit 2; }
done

if [ -z "${NABLA_FUZZ_NO_BUILD:-}" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake --preset fuzz "${launcher[@]}" >/dev/null
  cmake --build --preset fuzz -j2 --target fuzz_targets fuzz_make_corpus
fi

if [ "$mode" = corpus ]; then
  rm -rf "$root/fuzz/corpus"
  "$build/fuzz/fuzz_make_corpus" "$root/fuzz/corpus" "$root/tests"
  du -sh "$root"/fuzz/corpus/* | sed 's|'"$root"'/||'
  exit 0
fi

# LeakSanitizer on; a report or an uncaught exception ends the run with the input saved.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
flags=(-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=8192 -print_final_stats=1)
# NABLA_FUZZ_SEED=N makes a run repeat itself (CI sets it: a gate judges the change, not the dice).
[ -n "${NABLA_FUZZ_SEED:-}" ] && flags+=(-seed="$NABLA_FUZZ_SEED")

# One target: replay its checked-in inputs, or fuzz it for $seconds. Prints one summary line.
run_target() {
  local t=$1 log=$build/logs/$t.log exe=$build/fuzz/fuzz_$t
  mkdir -p "$build/logs" "$work/$t" "$build/crashes/$t"
  local start=$SECONDS rc=0
  # fuzz_onnx is built only with libnabla_onnx (Debian's libonnx-dev).
  [ -x "$exe" ] || [ "$t" != onnx ] || { echo "$t: not built (no libonnx-dev), skipped"; return 0; }
  if [ "$mode" = replay ]; then
    mapfile -t inputs < <(find "$root/fuzz/regressions/$t" "$root/fuzz/corpus/$t" -type f 2>/dev/null | sort)
    [ ${#inputs[@]} -gt 0 ] || { echo "$t: no inputs"; return 0; }
    "$exe" "${flags[@]}" "${inputs[@]}" >"$log" 2>&1 || rc=$?
    if [ $rc -eq 0 ]; then echo "$t: ${#inputs[@]} inputs replayed, ok"; else echo "$t: FAILED replaying (log: $log)"; fi
    return $rc
  fi
  local dirs=("$work/$t" "$root/fuzz/corpus/$t")
  [ -d "$root/fuzz/regressions/$t" ] && dirs+=("$root/fuzz/regressions/$t")
  # In a subshell whose `times` gives the fuzzer's CPU seconds (the machine may be shared).
  (
    rc=0
    nice -n "${NABLA_FUZZ_NICE:-10}" "$exe" "${flags[@]}" -max_total_time="$seconds" -artifact_prefix="$build/crashes/$t/" \
      "${dirs[@]}" >"$log" 2>&1 || rc=$?
    times >"$build/logs/$t.cpu"
    exit $rc
  ) || rc=$?
  local execs cov cpu
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  # "0m12.345s 0m0.678s" (user, system) -> whole CPU seconds
  cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' \
    "$build/logs/$t.cpu")
  if [ $rc -eq 0 ]; then
    echo "$t: $((SECONDS - start)) s ($cpu CPU s), ${execs:-?} executions, coverage ${cov:-?}, work corpus $(ls "$work/$t" | wc -l) files"
  else
    echo "$t: FINDING after $((SECONDS - start)) s (exit $rc): $(ls -t "$build/crashes/$t" | head -1) in build/fuzz/crashes/$t/, log: $log"
    grep -m3 -E 'ERROR: |runtime error|terminate called|deadly signal|Test unit written' "$log" | sed 's/^/    /'
    # The input itself, so a finding on a machine that is gone can be replayed:
    #   echo ... | base64 -d > fuzz/regressions/<target>/<name>
    local crash
    crash=$(ls -t "$build/crashes/$t" | head -1)
    [ -n "$crash" ] && [ "$(stat -c %s "$build/crashes/$t/$crash")" -le 8192 ] &&
      echo "    input (base64): $(base64 -w0 "$build/crashes/$t/$crash")"
  fi
  return $rc
}

failed=0 jobs=${NABLA_FUZZ_JOBS:-1}
if [ "$jobs" -le 1 ]; then
  for t in "${targets[@]}"; do run_target "$t" || failed=1; done
else
  pids=()
  for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || failed=1; done
    run_target "$t" &
  done
  while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
fi
exit $failed
