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


class SlowSquares(Squares):
    """Squares whose __getitem__ waits (releasing the GIL, as file reads do) and counts how many run at once."""

    def __init__(self):
        import threading
        self.lock, self.running, self.most = threading.Lock(), 0, 0

    def __getitem__(self, i):
        import time
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.01)
        with self.lock:
            self.running -= 1
        return super().__getitem__(i)


def test_worker_threads_give_the_same_batches_and_overlap():
    serial = [b["y"].tolist() for b in DataLoader(Squares(), batch_size=3, shuffle=True, seed=2)]
    dataset = SlowSquares()
    loader = DataLoader(dataset, batch_size=3, shuffle=True, seed=2, num_workers=3)
    assert [b["y"].tolist() for b in loader] == serial
    assert dataset.most > 1  # batches were loaded concurrently
    for first in DataLoader(SlowSquares(), batch_size=1, num_workers=2):  # leaving early shuts the workers down
        assert first["y"].tolist() == [0.0]
        break
    with pytest.raises(nabla.Error, match="num_workers must be >= 0"):
        DataLoader(Squares(), num_workers=-1)


def test_a_worker_error_reaches_the_loop():
    class Broken(Squares):
        def __getitem__(self, i):
            if i == 5:
                raise KeyError("sample 5 is missing")
            return super().__getitem__(i)

    with pytest.raises(KeyError, match="sample 5"):
        list(DataLoader(Broken(), batch_size=2, num_workers=2))
