#!/usr/bin/env bash
# The one-command GPU run (issue 17, item 4; docs/gpu_run.md), in two halves,
# because the GPU machine cannot build nabla (it has none of the Debian
# libraries nabla links: OpenBLAS, oneDNN, protobuf, ...) and can fetch nothing:
#
#   scripts/test_gpu.sh pack   HERE, on the build machine: builds a release tree
#                              with the CUDA backend (build/gpu, portable -march)
#                              and packs the test and bench programs, libnabla and
#                              every library they need that the GPU machine lacks
#                              into .gpu/nabla-gpu.tar.xz (ignored by git).
#   scripts/test_gpu.sh run    THERE, through the device tool with carry [".gpu"]:
#                              unpacks to /tmp, checks the libraries resolve, runs
#                              the device test suites and device_step_bench
#                              (GPU against CPU), all tee'd to $OUT/gpu_log.txt.
#
# `run` exits non-zero when any step fails (a test, a library not found, the
# device absent, a step over its time limit) and never waits longer than the
# sum of its step limits. Settings (environment):
#   NABLA_GPU_DEVICE        the device to test and time (cuda:0); opencl:0 runs
#                           the same path on PoCL, on a machine without a GPU
#   NABLA_GPU_TEST_FILTER   gtest filter of the device suites (default below)
#   NABLA_GPU_STEPS         timed steps per bench row (50)
#   NABLA_GPU_PROFILE       the compiled CNN step's slowest nodes to print (25; 0: none)
#   NABLA_GPU_TEST_TIMEOUT, NABLA_GPU_BENCH_TIMEOUT   seconds (360, 180)
#   NABLA_GPU_ARCHIVE       the archive (.gpu/nabla-gpu.tar.xz beside this script)
#   NABLA_GPU_BUILD_DIR     pack: the build tree (build/gpu)
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ARCHIVE=${NABLA_GPU_ARCHIVE:-$ROOT/.gpu/nabla-gpu.tar.xz}
PACK_NAME=nabla-gpu            # the archive's top folder
LIMIT_MIB=64                   # the device tool's limit on what travels (tree + carry)

die() { echo "test_gpu.sh: $*" >&2; exit 1; }

# Libraries the GPU machine has itself, never packed: glibc's, the C++
# runtime (Ubuntu 24.04's is newer than Debian 12's that nabla is built with)
# and the NVIDIA driver and CUDA libraries (its /usr/local/cuda, the driver's
# folders and the pip nvidia packages: they must match its driver).
is_system_lib() {  # soname [resolved path]
  case "${2:-}" in /usr/local/cuda*) return 0 ;; esac
  case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libmvec.so.* | libpthread.so.* | libdl.so.* | \
      librt.so.* | libresolv.so.* | libutil.so.* | libstdc++.so.* | libgcc_s.so.*) return 0 ;;
    libcuda.so.* | libcudart.so.* | libcublas.so.* | libcublasLt.so.* | libnvrtc.so.* | libnvrtc-builtins.so.* | \
      libcudnn*.so.* | libnvJitLink.so.* | libnccl.so.* | libnvidia-*.so.* | libcu*.so.* | libnvToolsExt.so.*) return 0 ;;
  esac
  return 1
}

# ---------------------------------------------------------------------------
pack() {
  local build=${NABLA_GPU_BUILD_DIR:-$ROOT/build/gpu}
  [[ $build = /* ]] || build=$ROOT/$build
  # shellcheck disable=SC1091  # the build machine's shared compiler cache, where there is one
  [ -f /root/.ccache_env ] && . /root/.ccache_env
  local launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  # The CUDA backend: on when this tree has it (nabla/cuda.h); then the pack
  # refuses to go without libnabla_cuda.so.
  local cuda=()
  local want_cuda=0
  if [ -f "$ROOT/nabla/cuda.h" ]; then
    want_cuda=1
    grep -q 'option(NABLA_CUDA\b' "$ROOT/CMakeLists.txt" && cuda=(-DNABLA_CUDA=ON)
  fi
  # -march=x86-64-v3 (AVX2, FMA): the GPU machine's CPU is not this one, and
  # -march=native here could use instructions it lacks; any x86-64 server of
  # the last ten years has v3. No build RPATH (it would name this machine's
  # folders); gtest discovery at test time, since the tests need
  # LD_LIBRARY_PATH to start.
  echo "== configure $build"
  mkdir -p "$(dirname "$build")"
  cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DNABLA_NATIVE_ARCH=OFF \
    "-DCMAKE_CXX_FLAGS=${NABLA_GPU_CXXFLAGS:--march=x86-64-v3}" -DNABLA_BUILD_EXAMPLES=OFF \
    -DCMAKE_SKIP_BUILD_RPATH=ON -DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST \
    "${launcher[@]}" "${cuda[@]}" >"$build.configure.log" 2>&1 ||
    { tail -30 "$build.configure.log"; die "pack: cmake configure failed (log: $build.configure.log)"; }
  grep -E '^-- nabla:' "$build.configure.log"
  local targets=(nabla_tests device_step_bench nabla_tool)
  local cuda_target=${NABLA_GPU_CUDA_TARGET:-nabla_cuda}
  if cmake --build "$build" --target help 2>/dev/null | grep -q "^$cuda_target:"; then targets+=("$cuda_target"); fi
  # ProcessGroup::nccl's tests (a world of one: no MPI is started), where
  # nabla_distributed is built; they bring libnabla_distributed and libmpi.
  local nccl_tests=0
  if cmake --build "$build" --target help 2>/dev/null | grep -q "^nabla_nccl_tests:"; then
    targets+=(nabla_nccl_tests)
    nccl_tests=1
  fi
  echo "== build ${targets[*]} (-j${NABLA_GPU_JOBS:-2})"
  cmake --build "$build" -j"${NABLA_GPU_JOBS:-2}" --target "${targets[@]}" || die "pack: the build failed"

  local stage
  stage=$(mktemp -d "${TMPDIR:-/tmp}/nabla-gpu-pack.XXXXXX")
  # shellcheck disable=SC2064  # the folder's name, now
  trap "rm -rf '$stage'" EXIT
  local pkg=$stage/$PACK_NAME
  mkdir -p "$pkg/bin" "$pkg/lib"
  cp "$build/tests/nabla_tests" "$build/bench/device_step_bench" "$build/tools/nabla/nabla" "$pkg/bin/" ||
    die "pack: a program is missing from $build"
  if [ $nccl_tests = 1 ]; then cp "$build/tests/nabla_nccl_tests" "$pkg/bin/" || die "pack: no nabla_nccl_tests"; fi
  # libnabla_cuda.so* under the names libnabla dlopens (the links too).
  local cuda_libs=()
  mapfile -t cuda_libs < <(find "$build" -maxdepth 3 -name 'libnabla_cuda.so*' \( -type f -o -type l \))
  if [ ${#cuda_libs[@]} -gt 0 ]; then
    for f in "${cuda_libs[@]}"; do cp -P "$f" "$pkg/lib/"; done
  elif [ $want_cuda = 1 ]; then
    die "pack: this tree has the CUDA backend (nabla/cuda.h) but $build has no libnabla_cuda.so: is the CUDA toolkit found? (see $build.configure.log)"
  else
    echo "note: no CUDA backend in this tree (no nabla/cuda.h): the pack runs the CPU and OpenCL paths only"
  fi

  # Every library the programs load, found with ldd, but the GPU machine's own.
  echo "== libraries (ldd)"
  # nabla's own libraries (libnabla, and libnabla_distributed, libnabla_onnx
  # ... in their folders of the build tree), found where they were built.
  local nabla_lib_dirs
  nabla_lib_dirs=$(find "$build" -maxdepth 3 -name 'libnabla*.so*' -printf '%h\n' | sort -u | paste -sd:)
  local missing=0 soname path
  while read -r soname path; do
    if is_system_lib "$soname" "$path"; then continue; fi
    if [ "$path" = "not" ]; then
      echo "  NOT FOUND here: $soname"
      missing=1
      continue
    fi
    [ -e "$pkg/lib/$soname" ] || cp -L "$path" "$pkg/lib/$soname"
    printf '  %-28s %6s KiB  %s\n' "$soname" "$(($(stat -Lc %s "$path") / 1024))" "$path"
  done < <(LD_LIBRARY_PATH="$nabla_lib_dirs" ldd "$pkg"/bin/* "$pkg"/lib/libnabla_cuda.so* 2>/dev/null |
    awk '$2 == "=>" {print $1, $3}' | sort -u)
  [ $missing = 0 ] || die "pack: libraries not found (above)"
  [ -e "$pkg/lib/libnabla.so.0" ] || die "pack: libnabla.so.0 was not among the programs' libraries"
  find "$pkg/bin" "$pkg/lib" -type f -exec strip --strip-unneeded {} + 2>/dev/null || true

  {
    echo "nabla GPU pack (scripts/test_gpu.sh pack)"
    echo "commit: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)"
    # shellcheck disable=SC1091
    echo "built: $(date -u '+%Y-%m-%d %H:%M UTC') on $(. /etc/os-release && echo "$PRETTY_NAME"), $(c++ --version | head -1)"
    echo "cuda backend: $([ ${#cuda_libs[@]} -gt 0 ] && echo yes || echo no)"
    # The newest glibc and libstdc++ symbol versions the packed files need (Ubuntu 22.04 has 2.35, 3.4.30).
    echo "needs: $(cd "$pkg" && objdump -T bin/* lib/*.so* 2>/dev/null | grep -o 'GLIBC_2\.[0-9.]*' | sort -Vu | tail -1)," \
      "$(cd "$pkg" && objdump -T bin/* lib/*.so* 2>/dev/null | grep -o 'GLIBCXX_3\.[0-9.]*' | sort -Vu | tail -1)"
    (cd "$pkg" && find bin lib -type f -printf '%8k KiB  %p\n' | sort -k3)
  } >"$pkg/MANIFEST.txt"

  mkdir -p "$(dirname "$ARCHIVE")"
  echo "== compress (xz -9)"
  tar -C "$stage" -cf - "$PACK_NAME" | xz -9 -T"${NABLA_GPU_JOBS:-2}" >"$ARCHIVE.tmp" || die "pack: tar | xz failed"
  mv "$ARCHIVE.tmp" "$ARCHIVE"
  local unpacked archive tree
  unpacked=$(du -sk "$pkg" | cut -f1)
  archive=$(stat -c %s "$ARCHIVE")
  # What the device tool sends: tracked and untracked-not-ignored files, plus the carry.
  tree=$(cd "$ROOT" && git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1)
  awk -v a="$archive" -v u="$unpacked" -v t="${tree:-0}" -v f="$ARCHIVE" -v l=$LIMIT_MIB 'BEGIN {
    printf "archive %s: %.1f MiB (unpacked %.1f MiB); working tree %.1f MiB; together %.1f MiB of the %d MiB that may travel\n",
      f, a / 1048576, u / 1024, t / 1048576, (a + t) / 1048576, l }'
  [ $((archive + ${tree:-0})) -lt $((LIMIT_MIB * 1048576)) ] || die "pack: the archive and the working tree exceed $LIMIT_MIB MiB"
  echo "next: the device tool's run with command 'bash scripts/test_gpu.sh run' and carry [\".gpu\"] (docs/gpu_run.md)"
}

# ---------------------------------------------------------------------------
# The gtest filter of the device suites: the accelerator op table and
# coverage (OpTableAccel, AccelCoverage), the CUDA suites, and the device
# runtime's (Devices, *OnDevice, DevicePrefetcher, PinMemory, KernelRegistry);
# on OpenCL its own suites too. Minus the tests that run programs of the build
# tree or read its files (their paths are compiled in: nabla train, the
# examples), which do not travel.
default_filter() {
  local f='*Accel*:*Cuda*:*CUDA*:*Device*:PinMemory.*:KernelRegistry.*'
  local minus='*Examples*:*NablaTrain*:*NablaRun*:*NablaCli*:*NablaProgram*'
  case "$1" in
    opencl*) f+=':*OpenCL*' ;;
    # The OpenCL instances would run on whatever OpenCL the GPU machine has
    # (there: PoCL on its CPU, 2.5 minutes): not what a CUDA run is for.
    *) minus+=':*/opencl_*:*/opencl:*OpenCL*' ;;
  esac
  echo "$f-$minus"
}

run() {
  local device=${NABLA_GPU_DEVICE:-cuda:0}
  local failed=()
  [ -f "$ARCHIVE" ] || die "run: no $ARCHIVE (make it with 'scripts/test_gpu.sh pack' on the build machine; carry .gpu)"
  local dir
  dir=$(mktemp -d /tmp/nabla-gpu.XXXXXX) || die "run: mktemp failed"
  local logdir=${OUT:-$dir}
  mkdir -p "$logdir"
  # Everything from here on also goes to the log; at the exit, the log is
  # complete before the script ends.
  exec > >(tee -a "$logdir/gpu_log.txt") 2>&1
  local tee_pid=$!
  # shellcheck disable=SC2064  # tee's pid and the folder, now
  trap "rm -rf '$dir/$PACK_NAME' '$dir/home'; rmdir '$dir' 2>/dev/null; exec >&- 2>&-; wait $tee_pid" EXIT
  echo "== scripts/test_gpu.sh run on $(hostname), $(date -u '+%Y-%m-%d %H:%M:%S UTC'); device $device"
  tar -C "$dir" -xJf "$ARCHIVE" || die "run: cannot unpack $ARCHIVE"
  local pkg=$dir/$PACK_NAME
  sed -n '2,5p' "$pkg/MANIFEST.txt"

  # The packed libraries first, then the GPU machine's CUDA: the toolkit, the
  # driver's folders, the pip nvidia packages as the fallback (cuDNN lives there).
  local libpath=$pkg/lib d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
    [ -d "$d" ] && libpath+=:$d
  done
  local py site lib
  for py in python3 /opt/torch/.venv/bin/python3; do
    site=$(timeout 20 "$py" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null) || continue
    for d in $site; do
      for lib in "$d"/nvidia/*/lib; do [ -d "$lib" ] && libpath+=:$lib; done
    done
    break
  done
  export LD_LIBRARY_PATH=$libpath
  export HOME=${HOME:-$dir/home}  # the kernel caches live under it (env -i leaves it unset)
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"

  echo "== GPU"
  if command -v nvidia-smi >/dev/null; then
    timeout 30 nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader ||
      echo "nvidia-smi failed"
  else
    echo "nvidia-smi: not found (no NVIDIA driver on this machine)"
  fi

  echo "== libraries"
  local f out
  for f in "$pkg"/bin/* "$pkg"/lib/*.so*; do
    out=$(ldd "$f" 2>&1 | grep 'not found')
    [ -z "$out" ] && continue
    case "$f" in
      */libnabla_cuda.so*)
        if [[ $device == cuda* ]]; then
          echo "$f: $out" && failed+=("libraries of libnabla_cuda.so")
        else
          echo "note: libnabla_cuda.so cannot load here (${out//$'\n'/;}): the CUDA part skips"
        fi ;;
      *) echo "$f: $out" && failed+=("libraries of $(basename "$f")") ;;
    esac
  done
  [ ${#failed[@]} = 0 ] && echo "every packed program and library resolves"

  echo "== device"
  timeout 120 "$pkg/bin/device_step_bench" --device "$device" --check 1 || failed+=("device $device")

  echo "== nabla_tests (device suites)"
  local filter=${NABLA_GPU_TEST_FILTER:-$(default_filter "$device")}
  local matched
  matched=$(timeout 60 "$pkg/bin/nabla_tests" --gtest_filter="$filter" --gtest_list_tests | grep -c '^  ')
  echo "filter $filter: $matched tests"
  if [ "${matched:-0}" -eq 0 ]; then
    failed+=("nabla_tests: the filter matches no test")
  else
    local tlog=$logdir/nabla_tests.txt rc
    timeout -k 10 "${NABLA_GPU_TEST_TIMEOUT:-360}" "$pkg/bin/nabla_tests" --gtest_filter="$filter" --gtest_color=no \
      >"$tlog" 2>&1
    rc=$?
    local passed skipped failed_n
    passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\..*/\1/p' "$tlog")
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\?, listed below:/\1/p' "$tlog")
    failed_n=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) tests\?, listed below:/\1/p' "$tlog")
    echo "nabla_tests: ${passed:-0} passed, ${failed_n:-0} failed, ${skipped:-0} skipped of $matched (exit $rc; the whole output: $tlog)"
    if [ "${skipped:-0}" -gt 0 ]; then
      echo "why tests skipped (count, reason):"
      grep -A1 ': Skipped$' "$tlog" | grep -v -e ': Skipped$' -e '^--$' | sort | uniq -c | sort -rn | head -20
    fi
    # gtest's closing list of the failed tests
    awk '/^\[  FAILED  \] [0-9]+ tests?, listed below:/ {on = 1; next} on && /^\[  FAILED  \]/ {print; next} {on = 0}' "$tlog"
    if [ $rc = 124 ] || [ $rc = 137 ]; then
      echo "nabla_tests: stopped after ${NABLA_GPU_TEST_TIMEOUT:-360} s; the last test started:"
      grep '^\[ RUN      \]' "$tlog" | tail -1
      failed+=("nabla_tests (time limit)")
    elif [ $rc != 0 ] || [ -z "$passed" ]; then
      [ -z "$passed" ] && echo "nabla_tests ended without its summary (exit $rc); the last lines:" && tail -15 "$tlog"
      failed+=("nabla_tests")
    fi
  fi

  if [ -x "$pkg/bin/nabla_nccl_tests" ] && [[ $device = cuda* ]]; then
    echo "== nabla_nccl_tests (ProcessGroup::nccl on cuda:0, a world of one)"
    local nlog=$logdir/nabla_nccl_tests.txt
    timeout -k 10 120 "$pkg/bin/nabla_nccl_tests" --gtest_color=no >"$nlog" 2>&1
    local nrc=$?
    grep -E '^\[  (PASSED|FAILED|SKIPPED) \]|Failure|Skipped|error' "$nlog" | head -20
    [ $nrc = 0 ] || failed+=("nabla_nccl_tests (exit $nrc; $nlog)")
  fi

  echo "== device_step_bench (cpu against $device)"
  timeout -k 10 "${NABLA_GPU_BENCH_TIMEOUT:-180}" "$pkg/bin/device_step_bench" --device "$device" \
    --steps "${NABLA_GPU_STEPS:-50}" --require 1 --profile "${NABLA_GPU_PROFILE:-25}" || failed+=("device_step_bench (exit $?)")

  echo "== nabla CLI"
  if out=$(timeout 30 "$pkg/bin/nabla" --help 2>&1); then
    echo "$out" | head -2
  else
    echo "$out" | tail -5
    failed+=("nabla --help")
  fi

  echo
  if [ ${#failed[@]} -gt 0 ]; then
    printf 'test_gpu.sh run: FAILED:'
    printf ' [%s]' "${failed[@]}"
    echo
    exit 1
  fi
  echo "test_gpu.sh run: all passed on $device"
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: scripts/test_gpu.sh pack|run   (docs/gpu_run.md)" >&2; exit 2 ;;
esac
