#!/usr/bin/env bash
# Installs what building and testing nabla needs on Debian 12, skipping the
# apt round trip when everything is already there. Run as root.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libopenblas-dev libdnnl-dev libgtest-dev libbenchmark-dev zlib1g-dev
  dataset-fashion-mnist  # the data of `nabla train`
  nlohmann-json3-dev  # JSON for model and training configs (nabla/nn/config.h, `nabla train --config`)
  clang-16 libclang-rt-16-dev  # the "fuzz" preset: libFuzzer + sanitizers (clang 14 lacks std::source_location)
  pocl-opencl-icd clinfo ocl-icd-opencl-dev opencl-headers libclblast-dev  # the OpenCL backend, run on PoCL (a CPU device)
  libprotobuf-dev protobuf-compiler libpng-dev  # nabla/summary: TensorBoard event files (protocol buffers, PNG images)
  python3-pip python3-numpy  # the TensorBoard reader test (tests/summary) runs TensorBoard's own EventAccumulator
  python3-torchvision  # tests/zoo compares nabla::zoo with torchvision's models (random weights, nothing downloaded)
  libopenmpi-dev openmpi-bin  # nabla/distributed: process groups over MPI, tests run under mpirun
  libonnx-dev  # nabla/onnx: ONNX export through ONNX's own protobuf classes and checker
  python3-dev pybind11-dev python3-pytest)  # python/: the nabla Python module and its pytest suite (tests/python)
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
# TensorBoard's reader for tests/summary (SummaryWriterTensorBoard.*), from PyPI
# into Debian's python3 (bookworm's pip refuses system installs without
# --break-system-packages; the files go to /usr/local, not dpkg's). Tests skip
# with a message when it is missing, so a failure here is only a warning.
if ! /usr/bin/python3 -c "import tensorboard" 2>/dev/null; then
  /usr/bin/python3 -m pip install --quiet --break-system-packages tensorboard ||
    echo "warning: could not install tensorboard from PyPI; tests/summary's reader test will skip" >&2
fi
# onnxruntime for tests/onnx (the exported models run there and must match
# nabla), from PyPI like tensorboard above; its wheels need numpy >= 1.21.6,
# which Debian's python3-numpy is. Tests skip with a message when it is missing.
if ! /usr/bin/python3 -c "import onnxruntime" 2>/dev/null; then
  /usr/bin/python3 -m pip install --quiet --break-system-packages onnxruntime ||
    echo "warning: could not install onnxruntime from PyPI; tests/onnx's comparison will skip" >&2
fi
# rapidocr-onnxruntime for tests/onnx/pretrained_test.cpp and
# examples/pretrained_ocr: real pretrained networks (PaddleOCR's PP-OCRv4 text
# detector and recognizer, Apache-2.0) that ship as .onnx files inside the
# package (about 15 MB). Only those files are used, so its own dependencies
# (OpenCV among them) are not installed: --no-deps. Tests skip with a message
# when it is missing.
if ! /usr/bin/python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('rapidocr_onnxruntime') is None)" 2>/dev/null; then
  /usr/bin/python3 -m pip install --quiet --break-system-packages --no-deps rapidocr-onnxruntime==1.4.4 ||
    echo "warning: could not install rapidocr-onnxruntime from PyPI; tests/onnx's pretrained-model test will skip" >&2
fi
