#!/usr/bin/env python3
"""Turns a `nabla train` checkpoint into a pretrained-weights file.

Keeps the model's tensors of the checkpoint (the "model.<key>" entries, under
their state-dict keys), drops the optimizer's, and keeps the metadata that
says how the weights were made and how good they are. Standard library only:
the safetensors format is an 8-byte little-endian header length, a JSON
header (dtype, shape, byte offsets of each tensor; "__metadata__"), the bytes.

  strip_checkpoint.py CHECKPOINT OUT [KEY=VALUE ...]   (extra metadata)
"""
import json
import os
import struct
import sys

KEEP = ("model", "test_accuracy", "test_loss", "test_samples", "train_samples", "threads", "dataset")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    meta = header.pop("__metadata__", {})
    if meta.get("nabla.checkpoint") != "1":
        sys.exit(f"{src}: not a nabla checkpoint (no nabla.checkpoint = 1 in its metadata)")
    out_meta = {"nabla.pretrained": "1"}
    out_meta.update({k: v for k, v in meta.items() if k in KEEP or k.startswith("option.")})
    for kv in sys.argv[3:]:
        k, _, v = kv.partition("=")
        out_meta[k] = v
    out_header, chunks, offset = {"__metadata__": out_meta}, [], 0
    for key, entry in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
        if not key.startswith("model."):
            continue
        begin, end = entry["data_offsets"]
        chunks.append(data[begin:end])
        out_header[key[len("model."):]] = {"dtype": entry["dtype"], "shape": entry["shape"],
                                           "data_offsets": [offset, offset + end - begin]}
        offset += end - begin
    text = json.dumps(out_header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the tensors' bytes start 8-aligned
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
    os.replace(tmp, dst)
    print(f"{dst}: {len(out_header) - 1} tensors, {offset} bytes; test accuracy {meta.get('test_accuracy')}")


if __name__ == "__main__":
    main()
