#!/usr/bin/env python3
# Writes tests/data/fixtures/numpy_savez.npz (np.savez: stored members),
# numpy_savez_compressed.npz (np.savez_compressed: deflate) and
# numpy_savez_stream.npz (np.savez to a stream that cannot seek: each member's
# CRC and sizes follow its data in a data descriptor, flag bit 3) with NumPy;
# npz_test.cpp reads them and checks the values below, so the C++ test needs
# no Python.
#   /usr/bin/python3 tests/data/make_npz_fixture.py        # regenerate the fixtures
#   /usr/bin/python3 tests/data/make_npz_fixture.py FILE   # print a .npz nabla wrote, as NumPy reads it
import io
import os
import sys

import numpy as np


def arrays():
    return {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "f64": np.array([1.5, -2.25, 1e300], dtype=np.float64),
        "i64": np.array([[-(2**40)], [7]], dtype=np.int64),
        "u8": np.array([0, 255, 7], dtype=np.uint8),
        "bool": np.array([True, False]),
        "scalar": np.array(3.0, dtype=np.float32),
        "fortran": np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
        "big_endian": np.array([1.0, 2.0], dtype=">f4"),
        "zeros": np.zeros((100, 10), dtype=np.float32),  # compresses well
    }


class Unseekable(io.RawIOBase):
    """A write-only stream without seek or tell, like a pipe."""

    def __init__(self, f):
        self.f = f

    def writable(self):
        return True

    def write(self, b):
        return self.f.write(b)


def main():
    if len(sys.argv) > 1:
        with np.load(sys.argv[1]) as f:
            for name in f.files:
                a = f[name]
                print(name, a.dtype, list(a.shape), a.ravel().tolist())
        return
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
    np.savez(os.path.join(here, "numpy_savez.npz"), **arrays())
    np.savez_compressed(os.path.join(here, "numpy_savez_compressed.npz"), **arrays())
    with open(os.path.join(here, "numpy_savez_stream.npz"), "wb") as f:
        np.savez(Unseekable(f), **arrays())


if __name__ == "__main__":
    main()
