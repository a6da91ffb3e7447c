"""Runs nabla's exported ONNX models with onnxruntime and compares them with
nabla's outputs (tests/onnx/onnxruntime_test.cpp writes them).

usage: run_with_onnxruntime.py DIR NAME...
DIR holds, per NAME, NAME.onnx, NAME.in<k>.npy (the inputs, in the model's
input order) and NAME.out<k>.npy (nabla's outputs). Prints one line per model:
"NAME max_rel_err=E" with E = max|ort - nabla| / max|nabla| over each output
(float32), and exits 1 if any E > 1e-5 or any shape differs; exits 77 (skip)
if onnxruntime cannot be imported.
"""
import glob
import os
import sys

try:
    import numpy as np
    import onnxruntime as ort
except ImportError as e:  # scripts/install_deps.sh installs it from PyPI
    print(f"onnxruntime is not importable ({e}); scripts/install_deps.sh installs it with pip")
    sys.exit(77)

TOLERANCE = 1e-5


def main():
    directory, names = sys.argv[1], sys.argv[2:]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    failed = False
    for name in names:
        base = os.path.join(directory, name)
        session = ort.InferenceSession(base + ".onnx", options, providers=["CPUExecutionProvider"])
        feeds = {i.name: np.load(f"{base}.in{k}.npy") for k, i in enumerate(session.get_inputs())}
        outputs = session.run(None, feeds)
        expected = len(glob.glob(glob.escape(base) + ".out*.npy"))
        if len(outputs) != expected:
            print(f"{name}: onnxruntime gives {len(outputs)} outputs, nabla {expected}")
            failed = True
        worst = 0.0
        for k, got in enumerate(outputs):
            want = np.load(f"{base}.out{k}.npy")
            if got.shape != want.shape or got.dtype != want.dtype:
                print(f"{name} output {k}: onnxruntime gives {got.dtype}{list(got.shape)}, "
                      f"nabla {want.dtype}{list(want.shape)}")
                failed = True
                continue
            scale = float(np.max(np.abs(want.astype(np.float64)))) if want.size else 0.0
            err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))) if want.size else 0.0
            worst = max(worst, err / scale if scale > 0 else err)
        print(f"{name} max_rel_err={worst:.3g}")
        failed = failed or worst > TOLERANCE
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
