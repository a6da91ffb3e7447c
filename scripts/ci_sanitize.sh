#!/usr/bin/env bash
# CI, after the README's test command (.ci/run): the "fuzz" preset (clang,
# ASan + UBSan, libFuzzer) is built once and
#   1. replays every checked-in fuzz input (fuzz/regressions/, fuzz/corpus/),
#   2. fuzzes each reader for NABLA_CI_FUZZ_SECONDS (default 5) from the seed corpus, with a fixed seed,
#   3. runs the sanitizer subset of the test suite (nabla_sanitize_tests, fuzz/CMakeLists.txt:
#      the readers with their sweeps, autograd, the op table with its error inputs, core errors).
# Prints the seconds of each step; fails on any finding. docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${NABLA_CI_FUZZ_SECONDS:-5}
step() { echo "== ci_sanitize: $1 ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }
step_start=$SECONDS total_start=$SECONDS

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake --preset fuzz "${launcher[@]}" >/dev/null
cmake --build --preset fuzz -j2 --target fuzz_targets nabla_sanitize_tests
step "built the fuzz preset"

export NABLA_FUZZ_NO_BUILD=1
scripts/fuzz.sh --replay
step "replayed the checked-in inputs"

export NABLA_FUZZ_WORK=$PWD/build/fuzz/ci-work  # CI fuzzes from the checked-in seeds only
export NABLA_FUZZ_SEED=${NABLA_FUZZ_SEED:-1}     # and repeatably: the same commit fuzzes the same inputs
rm -rf "$NABLA_FUZZ_WORK"
scripts/fuzz.sh "$seconds"
step "fuzzed each target for $seconds s"

ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build/fuzz/fuzz/nabla_sanitize_tests --gtest_brief=1
step "ran the sanitizer test subset"
echo "== ci_sanitize: done in $((SECONDS - total_start)) s"
