#!/usr/bin/env python3
# Writes tests/io/fixtures/python.safetensors with Python's `safetensors`
# package (pip install safetensors numpy); safetensors_test.cpp reads it and
# checks the values below, so the C++ test needs no Python.
#   python3 tests/io/make_fixture.py           # regenerate the fixture
#   python3 tests/io/make_fixture.py FILE      # print a file nabla wrote, as Python reads it
import os
import sys

import numpy as np
from safetensors.numpy import load_file, save_file


def main():
    if len(sys.argv) > 1:
        from safetensors import safe_open
        with safe_open(sys.argv[1], framework="np") as f:
            print("metadata", f.metadata())
        for name, a in load_file(sys.argv[1]).items():
            print(name, a.dtype, list(a.shape), a.ravel().tolist())
        return
    tensors = {
        "f64": np.array([1.5, -2.25], dtype=np.float64),
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "f16": np.array([0.5, -1.0, 65504.0], dtype=np.float16),
        "i64": np.array([[-(2**40)], [7]], dtype=np.int64),
        "i32": np.array([-3, 4, 2**31 - 1], dtype=np.int32),
        "u8": np.array([0, 255], dtype=np.uint8),
        "bool": np.array([True, False, True]),
        "scalar": np.array(3.0, dtype=np.float32),
        "empty": np.zeros((0, 3), dtype=np.float32),
    }
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "python.safetensors")
    save_file(tensors, out, metadata={"format": "np", "source": "make_fixture.py"})
    print("wrote", out, os.path.getsize(out), "bytes")


if __name__ == "__main__":
    main()
