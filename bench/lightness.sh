#!/usr/bin/env bash
# lightness.sh — how "heavy" the seed two-layer-net example is with nabla vs. libtorch.
#
# What it measures, per framework:
#   compile_s        wall time to compile the seed example to an object file (g++ -O2 -c),
#                    best of 3. libtorch: examples/torch/seed_autograd_torch.cpp, -std=c++17;
#                    nabla: examples/seed_autograd.cpp, -std=c++20.
#   library_MiB      size of the main library: Debian's libtorch_cpu.so vs libnabla.so.
#   first_step_ms    process start -> right before the first training step, median of 5 runs
#                    (after 1 untimed warm-up run, so the page cache is warm). The program must
#                    print "first_step_ms=<float>" computed against env BENCH_T0_US, which this
#                    script sets from bash's $EPOCHREALTIME (CLOCK_REALTIME, microseconds)
#                    immediately before exec; see examples/torch/seed_autograd_torch.cpp.
#   full_run_ms      wall time of the whole program (500 steps), median of the same 5 runs.
#   shared_libs      shared objects loaded at start-up: `ldd BIN | grep -vc linux-vdso`
#                    (the transitive DT_NEEDED closure, including ld-linux and libc).
#
# Usage (flags override env vars; any missing nabla item prints as "-", and if none of them
# exists only the libtorch column is printed):
#   bench/lightness.sh [--nabla-src examples/seed_autograd.cpp] [--nabla-include DIR]
#                      [--nabla-lib PATH/libnabla.so] [--nabla-bin PATH]
#                      [--torch-bin build-ref/torch_seed_autograd]
#   env: NABLA_SRC NABLA_INCLUDE NABLA_LIB NABLA_BIN NABLA_CXXFLAGS TORCH_BIN TORCH_CXXFLAGS
#        TORCH_LIB CXX RUNS
set -euo pipefail
cd "$(dirname "$0")/.."

NABLA_SRC=${NABLA_SRC:-examples/seed_autograd.cpp}
NABLA_INCLUDE=${NABLA_INCLUDE:-}
NABLA_LIB=${NABLA_LIB:-}
NABLA_BIN=${NABLA_BIN:-}
NABLA_CXXFLAGS=${NABLA_CXXFLAGS:--O2 -std=c++20}
TORCH_SRC=examples/torch/seed_autograd_torch.cpp
TORCH_BIN=${TORCH_BIN:-build-ref/torch_seed_autograd}
# Same flags find_package(Torch) gives on Debian 12 (TORCH_INCLUDE_DIRS, TORCH_CXX_FLAGS).
TORCH_CXXFLAGS=${TORCH_CXXFLAGS:--O2 -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=1 -I/usr/include/torch/csrc/api/include}
TORCH_LIB=${TORCH_LIB:-/usr/lib/x86_64-linux-gnu/libtorch_cpu.so}
CXX=${CXX:-g++}
RUNS=${RUNS:-5}

while [[ $# -gt 0 ]]; do
  case $1 in
    --nabla-src) NABLA_SRC=$2; shift 2 ;;
    --nabla-include) NABLA_INCLUDE=$2; shift 2 ;;
    --nabla-lib) NABLA_LIB=$2; shift 2 ;;
    --nabla-bin) NABLA_BIN=$2; shift 2 ;;
    --torch-bin) TORCH_BIN=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done

now_us() { echo "${EPOCHREALTIME//[.,]/}"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# compile_s SRC FLAGS... -> best of 3 wall times (seconds), or "-" if it does not compile
compile_s() {
  local src=$1; shift
  [[ -f $src ]] || { echo -; return; }
  local obj best="" t0 t
  obj=$(mktemp --suffix=.o)
  for _ in 1 2 3; do
    t0=$(now_us)
    "$CXX" "$@" -c "$src" -o "$obj" 2>/dev/null || { rm -f "$obj"; echo -; return; }
    t=$(( $(now_us) - t0 ))
    [[ -z $best || $t -lt $best ]] && best=$t
  done
  rm -f "$obj"
  awk -v t="$best" 'BEGIN {printf "%.2f", t / 1e6}'
}

size_mib() { [[ -f $1 ]] && awk -v b="$(stat -Lc %s "$1")" 'BEGIN {printf "%.1f", b / 1048576}' || echo -; }

shared_libs() { [[ -x $1 ]] && ldd "$1" | grep -vc linux-vdso || echo -; }

# run_times BIN -> "first_step_ms full_run_ms" (medians over $RUNS runs after one warm-up)
run_times() {
  local bin=$1 first=() full=() out t0
  [[ -x $bin ]] || { echo "- -"; return; }
  "$bin" >/dev/null
  for _ in $(seq "$RUNS"); do
    t0=$(now_us)
    out=$(BENCH_T0_US=$t0 "$bin")
    full+=("$(( $(now_us) - t0 ))")
    first+=("$(sed -n 's/^first_step_ms=//p' <<<"$out" | head -1)")
  done
  local f; f=$(printf '%s\n' "${first[@]}" | grep . | median || true)
  echo "${f:--} $(printf '%s\n' "${full[@]}" | median | awk '{printf "%.1f", $1 / 1000}')"
}

have_nabla=0
for p in "$NABLA_SRC" "$NABLA_LIB" "$NABLA_BIN"; do [[ -n $p && -e $p ]] && have_nabla=1; done

nabla_flags=($NABLA_CXXFLAGS)
[[ -n $NABLA_INCLUDE ]] && nabla_flags+=(-I"$NABLA_INCLUDE")

declare -A T N
echo "measuring libtorch..." >&2
T[compile]=$(compile_s "$TORCH_SRC" $TORCH_CXXFLAGS)
T[size]=$(size_mib "$TORCH_LIB")
read -r T[first] T[full] < <(run_times "$TORCH_BIN")
T[libs]=$(shared_libs "$TORCH_BIN")
if (( have_nabla )); then
  echo "measuring nabla..." >&2
  N[compile]=$(compile_s "$NABLA_SRC" "${nabla_flags[@]}")
  N[size]=$( [[ -n $NABLA_LIB ]] && size_mib "$NABLA_LIB" || echo -)
  read -r N[first] N[full] < <( [[ -n $NABLA_BIN ]] && run_times "$NABLA_BIN" || echo "- -")
  N[libs]=$( [[ -n $NABLA_BIN ]] && shared_libs "$NABLA_BIN" || echo -)
fi

ratio() { [[ $1 == - || $2 == - ]] && echo - || awk -v a="$1" -v b="$2" 'BEGIN {printf (b > 0 ? "%.3f" : "-"), a / b}'; }

rows=("compile seed example to .o (s, best of 3)|compile"
      "main library size (MiB: libnabla.so / libtorch_cpu.so)|size"
      "time to first training step (ms, median of $RUNS)|first"
      "full 500-step run (ms, median of $RUNS)|full"
      "shared libraries loaded (ldd)|libs")
if (( have_nabla )); then
  printf '%-56s | %10s | %10s | %7s\n' item nabla libtorch ratio
  for r in "${rows[@]}"; do
    k=${r#*|}
    printf '%-56s | %10s | %10s | %7s\n' "${r%|*}" "${N[$k]}" "${T[$k]}" "$(ratio "${N[$k]}" "${T[$k]}")"
  done
else
  printf '%-56s | %10s\n' item libtorch
  for r in "${rows[@]}"; do k=${r#*|}; printf '%-56s | %10s\n' "${r%|*}" "${T[$k]}"; done
fi
