"""nabla.nn from Python: a Module subclass trained with Adam, layers, losses, save/load."""
import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.nn.functional as F


class TwoLayerNet(nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super().__init__()
        self.linear1 = nn.Linear(d_in, hidden)
        self.linear2 = nn.Linear(hidden, d_out)
        self.scale = nn.Parameter(nabla.ones([d_out]))

    def forward(self, x):
        return self.linear2(self.linear1(x).clamp(min=0)) * self.scale


def test_module_subclass_trains_with_adam():
    nabla.manual_seed(0)
    x, y = nabla.randn([32, 10]), nabla.randn([32, 3])
    model = TwoLayerNet(10, 32, 3)
    names = [name for name, _ in model.named_parameters()]
    assert names == ["scale", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"]
    optimizer = nabla.optim.Adam(model.parameters(), lr=1e-2)
    first = None
    for _ in range(100):
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        first = first if first is not None else loss.item()
    assert loss.item() < 0.2 * first, (first, loss.item())


def test_sequential_conv_cross_entropy_with_sgd():
    nabla.manual_seed(1)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
    x = nabla.randn([8, 1, 6, 6])
    target = nabla.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    optimizer = nabla.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        loss = nn.CrossEntropyLoss()(model(x), target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.1 * losses[0], losses
    assert model(x).argmax(dim=1).tolist() == target.tolist()
    assert len(model.parameters()) == 4


def test_save_and_load_safetensors(tmp_path):
    nabla.manual_seed(2)
    model = TwoLayerNet(4, 5, 2)
    path = tmp_path / "model.safetensors"
    nabla.save(model.state_dict(), path)
    other = TwoLayerNet(4, 5, 2)
    other.load_state_dict(nabla.load(path))
    x = nabla.randn([3, 4])
    np.testing.assert_array_equal(model(x).detach().numpy(), other(x).detach().numpy())
    with pytest.raises(nabla.Error, match="missing keys"):
        TwoLayerNet(4, 5, 2).load_state_dict({})
    with pytest.raises(nabla.Error, match="load_safetensors"):
        nabla.load(tmp_path / "absent.safetensors")


def test_module_errors_name_the_mistake():
    class Forgot(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(nabla.ones([1]))

    with pytest.raises(nabla.Error, match="super\\(\\).__init__"):
        Forgot()
    with pytest.raises(nabla.Error, match="lr"):
        nabla.optim.SGD(nn.Linear(2, 2).parameters(), lr=-1.0)
