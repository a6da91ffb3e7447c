#!/usr/bin/env bash
# Installs the nabla build in $1 into a temporary prefix, builds the consumer
# project against it with find_package(nabla), and runs it.
set -euo pipefail
build_dir=$1
cxx_flags=${2:-}  # e.g. the sanitizer flags nabla itself was built with
src_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > /dev/null
cmake -S "$src_dir" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="$cxx_flags" > /dev/null
cmake --build "$work/build" > /dev/null
out=$(LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "$work/build/consumer")
echo "$out"
# zoo's shipped weights are installed, and found there by the installed library.
grep -qx "pretrained: $work/prefix/share/nabla/models/fashion_cnn.safetensors" <<< "$out" ||
  { echo "run.sh: the installed nabla did not find its pretrained weights under $work/prefix/share" >&2; exit 1; }
# A CUDA build installs libnabla_cuda.so beside libnabla.so, where it is found and loaded.
if grep -q "^cuda: built 1" <<< "$out"; then
  [ -f "$work/prefix/lib/libnabla_cuda.so" ] || { echo "run.sh: libnabla_cuda.so was not installed" >&2; exit 1; }
  ! grep -q "could not be loaded" <<< "$out" ||
    { echo "run.sh: the installed nabla could not load its installed libnabla_cuda.so" >&2; exit 1; }
fi
