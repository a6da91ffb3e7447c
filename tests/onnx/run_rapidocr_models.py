"""The reference side of tests/onnx/pretrained_test.cpp: PaddleOCR's models as
shipped inside the PyPI package rapidocr-onnxruntime (scripts/install_deps.sh
installs it), run by onnxruntime.

usage: run_rapidocr_models.py locate
         prints the folder of the package's .onnx models
       run_rapidocr_models.py run DIR NAME=MODEL.onnx...
         runs each MODEL (a file in that folder) on DIR/NAME.in.npy (its one
         input) and writes its one output to DIR/NAME.ort.npy
Exits 77 (the test skips) when the package or onnxruntime is missing. The
package is only located, never imported: its own code needs OpenCV, which
the test does not.
"""
import importlib.util
import os
import sys


def models_dir():
    try:
        spec = importlib.util.find_spec("rapidocr_onnxruntime")
    except (ImportError, ValueError):
        spec = None
    folder = os.path.join(os.path.dirname(spec.origin), "models") if spec and spec.origin else None
    if not folder or not os.path.isdir(folder):
        print("the PyPI package rapidocr-onnxruntime is not installed (scripts/install_deps.sh installs it: "
              "pip install --no-deps rapidocr-onnxruntime)")
        sys.exit(77)
    return folder


def main():
    if sys.argv[1:2] == ["locate"]:
        print(models_dir())
        return
    folder = models_dir()
    try:
        import numpy as np
        import onnxruntime as ort
    except ImportError as e:  # scripts/install_deps.sh installs it with pip
        print(f"onnxruntime is not importable ({e}); scripts/install_deps.sh installs it with pip")
        sys.exit(77)
    directory = sys.argv[2]
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    for job in sys.argv[3:]:
        name, model = job.split("=", 1)
        session = ort.InferenceSession(os.path.join(folder, model), options, providers=["CPUExecutionProvider"])
        x = np.load(os.path.join(directory, name + ".in.npy"))
        (y,) = session.run(None, {session.get_inputs()[0].name: x})
        np.save(os.path.join(directory, name + ".ort.npy"), y)


if __name__ == "__main__":
    main()
