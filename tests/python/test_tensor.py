"""nabla.Tensor from Python: NumPy interchange (shared memory both ways), factories, ops, indexing."""
import gc

import numpy as np
import pytest

import nabla


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = nabla.from_numpy(a)
    assert t.shape == (2, 3) and t.dtype == nabla.float32
    t[0, 1] = 100.0  # write through the tensor ...
    assert a[0, 1] == 100.0
    a[1, 2] = -7.0  # ... and through the array
    assert t[1, 2].item() == -7.0
    t.mul_(2.0)  # in-place ops write the array's memory
    np.testing.assert_array_equal(a, np.array([[0, 200, 4], [6, 8, -14]], dtype=np.float32))


def test_numpy_shares_memory_and_keeps_the_tensor_alive():
    t = nabla.zeros([3, 4])
    a = t.numpy()
    a[2, 3] = 5.0
    assert t[2, 3].item() == 5.0
    del t
    gc.collect()
    assert a[2, 3] == 5.0  # the array keeps the storage alive
    b = nabla.ones([2, 3]).T.numpy()  # views keep their strides
    assert b.shape == (3, 2) and b.strides == (4, 12)


def test_from_numpy_keeps_the_array_alive_and_views_its_strides():
    t = nabla.from_numpy(np.arange(12, dtype=np.float64).reshape(3, 4)[:, ::2])
    gc.collect()
    assert t.shape == (3, 2) and t.dtype == nabla.float64
    assert t.tolist() == [[0, 2], [4, 6], [8, 10]]
    assert nabla.from_numpy(np.array([1, 2], dtype=np.int64)).dtype == nabla.int64


def test_from_numpy_refuses_what_it_cannot_share():
    with pytest.raises(nabla.Error, match="from_numpy: NumPy dtype .*complex"):
        nabla.from_numpy(np.zeros(3, dtype=np.complex64))
    with pytest.raises(nabla.Error, match="negative"):
        nabla.from_numpy(np.arange(4, dtype=np.float32)[::-1])
    with pytest.raises(nabla.Error, match="requires grad"):
        nabla.ones([2], requires_grad=True).numpy()


def test_factories_and_dtypes():
    assert nabla.zeros([2, 3]).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert nabla.ones([2], dtype=nabla.float64).dtype == nabla.float64
    assert nabla.arange(5).tolist() == [0, 1, 2, 3, 4] and nabla.arange(5).dtype == nabla.int64
    assert nabla.arange(1, 2, 0.25, dtype=nabla.float32).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert nabla.tensor([[1.0, 2.0]]).dtype == nabla.float32
    assert nabla.tensor([1, 2]).dtype == nabla.int64
    nabla.manual_seed(3)
    r = nabla.randn([1000])
    assert abs(r.mean().item()) < 0.15 and r.dtype == nabla.float32
    u = nabla.rand([1000]).numpy()
    assert u.min() >= 0 and u.max() < 1
    nabla.manual_seed(3)
    assert nabla.randn([1000]).equal(r)


def test_operators_match_numpy():
    a_np = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    b_np = np.random.default_rng(1).standard_normal((4, 2)).astype(np.float32)
    a, b = nabla.from_numpy(a_np), nabla.from_numpy(b_np)
    close = lambda t, ref: np.testing.assert_allclose(t.numpy(), ref, rtol=1e-5, atol=1e-6)  # noqa: E731
    close(a @ b, a_np @ b_np)
    close(a + 1, a_np + 1)
    close(2 - a, 2 - a_np)
    close(a * a, a_np * a_np)
    close(a / 2, a_np / 2)
    close(a ** 2, a_np ** 2)
    close(a.clamp(min=0), np.maximum(a_np, 0))
    close(a.relu(), np.maximum(a_np, 0))
    close(a.abs().log(), np.log(np.abs(a_np)))
    close(a.exp(), np.exp(a_np))
    close(a.sum(), a_np.sum())
    close(a.sum(dim=1), a_np.sum(1))
    close(a.mean(dim=0, keepdim=True), a_np.mean(0, keepdims=True))
    close(a.reshape(2, 6), a_np.reshape(2, 6))
    close(a.view(-1), a_np.reshape(-1))
    close(a.transpose(0, 1), a_np.T)
    close(a[1], a_np[1])
    close(a[:, 1:3], a_np[:, 1:3])
    close(a[..., None, 0], a_np[..., None, 0])
    assert (a > 0).dtype == nabla.bool
    np.testing.assert_array_equal((a > 0).numpy(), a_np > 0)


def test_bad_input_is_a_clear_error():
    with pytest.raises(nabla.Error, match="matmul: shapes \\[2, 3\\] and \\[2, 3\\]"):
        nabla.ones([2, 3]) @ nabla.ones([2, 3])
    with pytest.raises(nabla.Error, match="item"):
        nabla.ones([2]).item()
