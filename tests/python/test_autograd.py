"""Autograd from Python: gradients against central finite differences, no_grad."""
import numpy as np

import nabla


def numeric_grad(f, x, eps=1e-6):
    """d f(x) / dx by central differences, in float64."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        g[i] = (f(plus) - f(minus)) / (2 * eps)
    return g


def check(f, *shapes):
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s) + 0.1 for s in shapes]
    tensors = [nabla.tensor(x, dtype=nabla.float64, requires_grad=True) for x in inputs]
    f(*tensors).backward()
    for k, (x, t) in enumerate(zip(inputs, tensors)):
        def f_k(v, k=k):
            args = [nabla.tensor(a, dtype=nabla.float64) for a in inputs]
            args[k] = nabla.tensor(v, dtype=nabla.float64)
            return f(*args).item()
        np.testing.assert_allclose(t.grad.numpy(), numeric_grad(f_k, x), rtol=1e-5, atol=1e-7)


def test_seed_mlp_loss_gradients():
    check(lambda x, w1, w2, y: (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum(), (4, 5), (5, 3), (3, 2), (4, 2))


def test_elementwise_reduction_and_view_gradients():
    check(lambda a, b: (a.exp() * b).mean() + (a * a + 1).log().sum(), (3, 4), (3, 4))
    check(lambda a: a.reshape(2, 6).transpose(0, 1)[1:4].sum(dim=0).pow(3).sum(), (3, 4))
    check(lambda a, w, b: nabla.nn.functional.linear(a, w, b).relu().sum(), (2, 3), (4, 3), (4,))


def test_no_grad_and_leaf_state():
    w = nabla.randn([3], requires_grad=True)
    assert w.is_leaf and w.grad is None
    with nabla.no_grad():
        y = w * 2
    assert not y.requires_grad and nabla.is_grad_enabled()
    (w * w).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.detach().numpy(), rtol=1e-6)
    w.grad = None
    assert w.grad is None

    @nabla.no_grad()
    def double(t):
        return t * 2
    assert not double(w).requires_grad
