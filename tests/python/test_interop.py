"""DLPack both ways (NumPy, PyTorch), devices (Module.to, numpy() of device tensors)."""
import gc

import numpy as np
import pytest

import nabla
import nabla.nn as nn


def test_numpy_from_dlpack_shares_a_tensor():
    t = nabla.arange(6, dtype=nabla.float32).reshape(2, 3)
    assert t.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(t)
    assert a.shape == (2, 3) and a.dtype == np.float32
    t[0, 1] = 42.0
    assert a[0, 1] == 42.0  # the same memory
    v = np.from_dlpack(t.T)
    assert v.strides == (4, 12) and v[1, 0] == 42.0
    del t
    gc.collect()
    assert a.tolist() == [[0, 42, 2], [3, 4, 5]]  # the array keeps the storage alive


def test_from_dlpack_shares_a_numpy_array():
    base = np.arange(12, dtype=np.float64).reshape(3, 4)
    t = nabla.from_dlpack(base[:, 1::2])
    assert t.shape == (3, 2) and t.dtype == nabla.float64 and t.stride() == (4, 2)
    base[2, 3] = -1.0
    assert t[2, 1].item() == -1.0
    t.mul_(10.0)
    assert base[0, 1] == 10.0
    del base
    gc.collect()
    assert t.tolist() == [[10, 30], [50, 70], [90, -10]]
    assert nabla.from_dlpack(np.array([1, 2], dtype=np.int32)).dtype == nabla.int32
    assert nabla.from_dlpack(np.array(2.5, dtype=np.float32)).shape == ()


def test_dlpack_errors_are_clear():
    with pytest.raises(nabla.Error, match="requires grad"):
        nabla.ones([2], requires_grad=True).__dlpack__()
    with pytest.raises(nabla.Error, match="expected an object with __dlpack__"):
        nabla.from_dlpack([1, 2])
    capsule = nabla.ones([2]).__dlpack__()
    nabla.from_dlpack(capsule)
    with pytest.raises(nabla.Error, match="unused"):
        nabla.from_dlpack(capsule)  # a capsule is consumed once


def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    t = nabla.arange(4, dtype=nabla.int64)
    tt = torch.from_dlpack(t)
    tt[1] = 7
    assert t.tolist() == [0, 7, 2, 3]
    src = torch.arange(6, dtype=torch.float32).reshape(2, 3).t()
    n = nabla.from_dlpack(src)
    assert n.shape == (3, 2) and n.tolist() == src.tolist()
    src[0, 0] = 9.0
    assert n[0, 0].item() == 9.0


def test_device_names():
    assert nabla.device("cpu") == "cpu" and nabla.ones([1]).device == "cpu"
    with pytest.raises(nabla.Error, match="bogus"):
        nabla.device("bogus:0")


@pytest.mark.skipif(not nabla.opencl.is_available(), reason=f"no OpenCL device: {nabla.opencl.unavailable_reason()}")
def test_module_to_opencl_and_numpy_copies_to_host():
    nabla.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = nabla.randn([3, 4])
    with nabla.no_grad():
        expected = model(x).numpy()
    params = model.parameters()
    assert model.to(nabla.device("opencl:0")) is model
    assert all(p.device == "opencl:0" and p.requires_grad for p in model.parameters())
    assert all(a is b for a, b in zip(params, model.parameters()))  # the same Parameter objects
    xd = x.to("opencl:0")
    with nabla.no_grad():
        y = model(xd)
    assert y.device == "opencl:0"
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-4, atol=1e-5)  # numpy() copies to the host
    loss = model(xd).pow(2).sum()
    loss.backward()
    assert model[0].weight.grad.device == "opencl:0"
    model.to("cpu")
    assert model[0].weight.device == "cpu"


def test_module_to_dtype():
    model = nn.Linear(3, 2).to(nabla.float64)
    assert model.weight.dtype == nabla.float64 and model.weight.requires_grad
    assert model(nabla.ones([1, 3], dtype=nabla.float64)).dtype == nabla.float64
