#!/usr/bin/env bash
# Installs what building and testing nabla needs on Debian 12, skipping the
# apt round trip when everything is already there. Run as root.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libopenblas-dev libdnnl-dev libgtest-dev libbenchmark-dev zlib1g-dev
  dataset-fashion-mnist  # the data of `nabla train`
  nlohmann-json3-dev  # JSON for model and training configs (nabla/nn/config.h, `nabla train --config`)
  clang-16 libclang-rt-16-dev  # the "fuzz" preset: libFuzzer + sanitizers (clang 14 lacks std::source_location)
  pocl-opencl-icd clinfo ocl-icd-opencl-dev opencl-headers libclblast-dev)  # the OpenCL backend, run on PoCL (a CPU device)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
