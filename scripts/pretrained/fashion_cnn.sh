#!/usr/bin/env bash
# Remakes models/fashion_cnn.safetensors, the pretrained weights behind
# zoo::fashion_cnn({.pretrained = true}): `nabla train` with its defaults
# (the CNN, 5 epochs, Adam 1e-3 with a cosine schedule, batch 64, seed 0) on
# Fashion-MNIST, then the model's tensors of the checkpoint with its test
# accuracy. About 11 minutes on 2 cores. The result differs from the shipped
# file in the last bits when the CPU or the thread count differs.
#
#   scripts/pretrained/fashion_cnn.sh [build/release]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build/release}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/tools/nabla/nabla" train --out "$out" --progress lines
python3 "$root/scripts/pretrained/strip_checkpoint.py" "$out/checkpoint.safetensors" "$root/models/fashion_cnn.safetensors" \
  "trained_with=nabla train (defaults) at $(git -C "$root" rev-parse --short HEAD)"
