#!/usr/bin/python3
"""Builds a torchvision model with a fixed seed and writes, for tests/zoo/torchvision_test.cpp:

  OUT/weights.safetensors  the model's state dict, as it was before any forward
  OUT/io.safetensors       "input" [batch, 3, size, size];
                           "logits_eval": the model's output in eval mode;
                           "logits_train": its output in train mode (one forward, run after the eval one);
                           "after_train.<key>": every buffer after that forward (updated BN statistics)
  OUT/input.npy            the input again, for examples/zoo_classify

Random initialization, nothing downloaded. BatchNorm's affine parameters and running statistics are
perturbed away from ones/zeros so that they matter, and num_batches_tracked is set to 3. Dropout is 0 so
that the train-mode forward is deterministic. Debian 12 has no python3-safetensors package, so the file
is written here by hand (the format: an 8-byte little-endian header length, a JSON header padded with
spaces to a multiple of 8, the raw little-endian tensor bytes).

usage: export_torchvision.py MODEL OUT_DIR SIZE BATCH     (MODEL: resnet18, vgg11, mobilenet_v2, ...)
       export_torchvision.py --keys OUT_FILE MODEL...        one line per state-dict entry of each model,
                                                             "model key dtype dim0 dim1 ...", in order
"""
import json
import os
import struct
import sys

import numpy
import torch
import torchvision

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64"}


def save_safetensors(tensors, path):
    header, blobs, offset = {}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().cpu().numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def write_keys(path, names):
    with open(path, "w") as f:
        for name in names:
            model = getattr(torchvision.models, name)(weights=None)
            for key, t in model.state_dict().items():
                f.write(" ".join([name, key, DTYPES[t.dtype]] + [str(d) for d in t.shape]) + "\n")


def main():
    if sys.argv[1] == "--keys":
        write_keys(sys.argv[2], sys.argv[3:])
        return
    name, out, size, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None, dropout=0.0) if not name.startswith("resnet") \
        else getattr(torchvision.models, name)(weights=None)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)
                m.running_mean.normal_(0.0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.num_batches_tracked.fill_(3)
    save_safetensors(model.state_dict(), os.path.join(out, "weights.safetensors"))

    x = torch.randn(batch, 3, size, size)
    with torch.no_grad():
        model.eval()
        logits_eval = model(x)
        model.train()
        logits_train = model(x)
    io = {"input": x, "logits_eval": logits_eval, "logits_train": logits_train}
    for key, buf in model.named_buffers():
        io["after_train." + key] = buf
    save_safetensors(io, os.path.join(out, "io.safetensors"))
    numpy.save(os.path.join(out, "input.npy"), x.numpy())  # for examples/zoo_classify


if __name__ == "__main__":
    main()
