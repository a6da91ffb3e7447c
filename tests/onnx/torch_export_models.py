"""Exports small PyTorch models to ONNX with random weights (no download) and
writes each one's input and PyTorch output as .npy, for the import test
(tests/onnx/import_torch_test.cpp). Usage: torch_export_models.py DIR NAME...
Exits 77 when torch/torchvision are not importable (the test then skips)."""
import os
import sys

try:
    import numpy as np
    import torch
    import torchvision
except Exception as e:  # noqa: BLE001 - any import failure means "skip"
    print(f"torch/torchvision not importable: {e}")
    sys.exit(77)


def model(name):
    torch.manual_seed(0)
    if name == "resnet18":
        return torchvision.models.resnet18(num_classes=10), torch.randn(1, 3, 64, 64)
    if name == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(num_classes=10), torch.randn(1, 3, 64, 64)
    raise SystemExit(f"unknown model {name}")


def main():
    out = sys.argv[1]
    torch.set_num_threads(1)
    for name in sys.argv[2:]:
        m, x = model(name)
        m.eval()
        # Non-trivial batch-norm statistics, so the import of them is tested.
        with torch.no_grad():
            for mod in m.modules():
                if isinstance(mod, torch.nn.BatchNorm2d):
                    mod.running_mean.uniform_(-0.5, 0.5)
                    mod.running_var.uniform_(0.5, 1.5)
                    mod.weight.uniform_(0.5, 1.5)
                    mod.bias.uniform_(-0.5, 0.5)
            y = m(x)
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(m, (x,), path, opset_version=17, input_names=["input"], output_names=["output"])
        np.save(os.path.join(out, name + "_input.npy"), x.numpy())
        np.save(os.path.join(out, name + "_output.npy"), y.numpy())
        print(name, "ok")


main()
