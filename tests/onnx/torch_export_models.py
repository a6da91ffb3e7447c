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
    if name == "lstm":
        return LstmNet(), torch.randn(2, 5, 6)
    if name == "gru":
        return torch.nn.GRU(6, 8, num_layers=2, bidirectional=True), torch.randn(5, 2, 6)
    if name == "transformer":
        layer = torch.nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False), torch.randn(2, 5, 16)
    raise SystemExit(f"unknown model {name}")


class LstmNet(torch.nn.Module):
    """A two-layer bidirectional LSTM (batch first) and a linear head."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(6, 8, num_layers=2, batch_first=True, bidirectional=True)
        self.head = torch.nn.Linear(16, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y)


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
        if isinstance(y, tuple):  # nn.GRU: (output, h_n); the output is compared
            y = y[0]
        path = os.path.join(out, name + ".onnx")
        torch.onnx.export(m, (x,), path, opset_version=17, input_names=["input"], output_names=["output"])
        np.save(os.path.join(out, name + "_input.npy"), x.numpy())
        np.save(os.path.join(out, name + "_output.npy"), y.numpy())
        print(name, "ok")


main()
