"""nabla.data from Python: DataLoader over a Python dataset, batching, shuffling per epoch, errors."""
import numpy as np
import pytest

import nabla
from nabla.data import DataLoader, TensorDataset


class Squares:
    """A Python map-style dataset: (x, x^2) pairs with a dict sample."""

    def __len__(self):
        return 10

    def __getitem__(self, i):
        return {"x": np.array([i], dtype=np.float32), "y": float(i * i)}


def test_loader_batches_a_python_dataset_in_order():
    batches = list(DataLoader(Squares(), batch_size=4))
    assert len(batches) == 3 and len(DataLoader(Squares(), batch_size=4, drop_last=True)) == 2
    assert batches[0]["x"].shape == (4, 1) and batches[0]["x"].dtype == nabla.float32
    assert batches[0]["y"].tolist() == [0.0, 1.0, 4.0, 9.0] and batches[0]["y"].dtype == nabla.float32
    assert batches[2]["x"].shape == (2, 1)


def test_shuffle_draws_a_new_reproducible_order_each_epoch():
    data = TensorDataset(nabla.arange(12), nabla.arange(12) * 2)
    loader = DataLoader(data, batch_size=12, shuffle=True, seed=5)
    first, second = [next(iter(loader))[0].tolist() for _ in range(2)]
    assert sorted(first) == list(range(12)) and first != second and first != list(range(12))
    again = DataLoader(data, batch_size=12, shuffle=True, seed=5)
    assert next(iter(again))[0].tolist() == first
    x, y = next(iter(again))
    assert (y - x * 2).abs().sum().item() == 0  # pairs stay together


def test_a_model_trains_from_a_loader():
    nabla.manual_seed(0)
    x = nabla.randn([64, 3])
    y = x.matmul(nabla.tensor([[1.0], [-2.0], [0.5]]))
    model = nabla.nn.Linear(3, 1)
    optimizer = nabla.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(20):
        for xb, yb in DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True):
            optimizer.zero_grad()
            loss = nabla.nn.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
    assert nabla.nn.mse_loss(model(x), y).item() < 1e-3


def test_loader_errors():
    with pytest.raises(nabla.Error, match="batch_size must be >= 1"):
        DataLoader(Squares(), batch_size=0)
    with pytest.raises(nabla.Error, match="needs __len__ and __getitem__"):
        DataLoader(object())
    with pytest.raises(nabla.Error, match="same first dim"):
        TensorDataset(nabla.ones([2]), nabla.ones([3]))
