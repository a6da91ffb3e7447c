"""nabla: a deep learning framework in C++20, from Python (docs/python.md).

Tensors, autograd, nn, optim, graphs, compile() and safetensors/.nbg/ONNX
files are the C++ library's own; this package adds Python's spellings on top
(no_grad as a context manager, nn.Module subclassing, tensor() from nested lists).
"""
import numpy as _np

from ._nabla import (CompiledFunction, Error, Tensor, arange, compile, cuda, device, from_dlpack, from_numpy, full,
                     get_num_threads, has_onnx, is_grad_enabled, load_safetensors, manual_seed, ones, ones_like,
                     opencl, rand, randn, save_safetensors, set_grad_enabled, set_num_threads, zeros, zeros_like)
from ._nabla import dtype
from . import data, graph, nn, onnx, optim

bool = dtype.bool  # noqa: A001 (PyTorch's spelling: nabla.bool)
uint8, int32, int64 = dtype.uint8, dtype.int32, dtype.int64
float16, bfloat16, float32, float64 = dtype.float16, dtype.bfloat16, dtype.float32, dtype.float64

_NUMPY_DTYPES = {float32: _np.float32, float64: _np.float64, float16: _np.float16, int64: _np.int64,
                 int32: _np.int32, uint8: _np.uint8, dtype.bool: _np.bool_}


def tensor(data, *, dtype=None, requires_grad=False):
    """A new tensor holding a copy of `data` (nested lists, numbers or an array).

    Python floats become float32 and ints int64, as in PyTorch.
    """
    if isinstance(data, Tensor):
        data = data.detach().numpy()
    array = _np.array(data, dtype=_NUMPY_DTYPES[dtype] if dtype is not None else None)
    if dtype is None and array.dtype == _np.float64 and not isinstance(data, _np.ndarray):
        array = array.astype(_np.float32)
    t = from_numpy(_np.ascontiguousarray(array).copy())
    if requires_grad:
        t.requires_grad_(True)
    return t


class no_grad:
    """Disables gradient recording inside `with nabla.no_grad():` (or as a decorator)."""

    def __enter__(self):
        self._prev = is_grad_enabled()
        set_grad_enabled(False)

    def __exit__(self, *exc):
        set_grad_enabled(self._prev)
        return False

    def __call__(self, function):
        def wrapper(*args, **kwargs):
            with no_grad():
                return function(*args, **kwargs)
        return wrapper


def matmul(a, b):
    return a.matmul(b)


def mm(a, b):
    return a.mm(b)


def relu(x):
    return x.relu()


def exp(x):
    return x.exp()


def log(x):
    return x.log()


def pow(x, exponent):  # noqa: A001
    return x.pow(exponent)


def clamp(x, min=None, max=None):  # noqa: A002
    return x.clamp(min=min, max=max)


def sum(x, dim=None, keepdim=False):  # noqa: A001
    return x.sum(dim=dim, keepdim=keepdim)


def mean(x, dim=None, keepdim=False):
    return x.mean(dim=dim, keepdim=keepdim)


def save(tensors, path):
    """Writes a dict name -> Tensor (or a Module's state_dict()) to a safetensors file, atomically."""
    save_safetensors(dict(tensors), str(path))


def load(path):
    """Reads a safetensors file into a dict name -> Tensor."""
    return load_safetensors(str(path))


def maximum(a, b):
    return a.maximum(b)


def minimum(a, b):
    return a.minimum(b)
