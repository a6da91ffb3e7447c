"""nabla.data: DataLoader over Python datasets (PyTorch's map-style protocol).

A dataset is anything with __len__ and __getitem__(index) returning a sample:
a Tensor, a NumPy array, a number, or a tuple/list/dict of those. Batches
stack the samples along a new first dim into Tensors (one copy, by NumPy).
Shuffling draws a new order each epoch from a generator seeded by `seed` and
the epoch number, so a run is reproducible.

num_workers=N loads batches in N Python threads, prefetching up to
N * prefetch_factor batches ahead and yielding them in order (the same
batches as num_workers=0). Threads share the GIL: they pay off where the
dataset waits on files or the network, or calls code that releases the GIL
(NumPy copies, image decoders); a dataset of pure Python arithmetic gains
nothing. (The C++ DataLoader's worker threads serve C++ datasets; docs/data.md.
Worker processes, as PyTorch's, are not offered.)
"""
import collections as _collections
import concurrent.futures as _futures

import numpy as _np

from ._nabla import Error, Tensor, from_numpy


def _as_array(value):
    if isinstance(value, Tensor):
        return value.detach().numpy()
    return _np.asarray(value)


def default_collate(samples):
    """Stacks a list of samples into a batch, keeping tuples, lists and dicts as they are."""
    first = samples[0]
    if isinstance(first, (tuple, list)):
        return type(first)(default_collate([s[i] for s in samples]) for i in range(len(first)))
    if isinstance(first, dict):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    batch = _np.stack([_as_array(s) for s in samples])
    if batch.dtype == _np.float64 and not isinstance(first, (Tensor, _np.ndarray)):
        batch = batch.astype(_np.float32)  # Python floats become float32, as nabla.tensor does
    return from_numpy(_np.ascontiguousarray(batch))


class TensorDataset:
    """Samples are the i-th rows of the given tensors (all with the same first dim)."""

    def __init__(self, *tensors):
        if not tensors or any(len(t) != len(tensors[0]) for t in tensors):
            raise Error("data.TensorDataset: the tensors must have the same first dim, got sizes "
                        f"{[tuple(t.shape) for t in tensors]}")
        self.tensors = tensors

    def __len__(self):
        return len(self.tensors[0])

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None, seed=0,
                 num_workers=0, prefetch_factor=2):
        if batch_size < 1:
            raise Error(f"data.DataLoader: batch_size must be >= 1, got {batch_size}")
        if num_workers < 0 or prefetch_factor < 1:
            raise Error(f"data.DataLoader: num_workers must be >= 0 and prefetch_factor >= 1, got {num_workers} "
                        f"and {prefetch_factor}")
        self.num_workers, self.prefetch_factor = num_workers, prefetch_factor
        if not hasattr(dataset, "__len__") or not hasattr(dataset, "__getitem__"):
            raise Error(f"data.DataLoader: the dataset ({type(dataset).__name__}) needs __len__ and __getitem__")
        self.dataset, self.batch_size, self.shuffle, self.drop_last = dataset, batch_size, shuffle, drop_last
        self.collate_fn = collate_fn or default_collate
        self.seed, self.epoch = seed, 0

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size

    def _batches(self):
        n = len(self.dataset)
        order = _np.arange(n)
        if self.shuffle:
            order = _np.random.default_rng([self.seed, self.epoch]).permutation(n)
        self.epoch += 1
        for start in range(0, n, self.batch_size):
            indices = order[start:start + self.batch_size]
            if self.drop_last and len(indices) < self.batch_size:
                return
            yield [int(i) for i in indices]

    def _load(self, indices):
        return self.collate_fn([self.dataset[i] for i in indices])

    def __iter__(self):
        if self.num_workers == 0:
            for indices in self._batches():
                yield self._load(indices)
            return
        batches = self._batches()
        with _futures.ThreadPoolExecutor(self.num_workers, thread_name_prefix="nabla-data") as pool:
            pending = _collections.deque()
            try:
                for indices in batches:
                    pending.append(pool.submit(self._load, indices))
                    if len(pending) >= self.num_workers * self.prefetch_factor:
                        yield pending.popleft().result()
                while pending:
                    yield pending.popleft().result()
            finally:
                for future in pending:  # a loop left early: drop what was not started
                    future.cancel()
