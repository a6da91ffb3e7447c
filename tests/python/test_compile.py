"""nabla.compile from Python: tracing once per signature, outputs equal to eager, a traced training step."""
import numpy as np
import pytest

import nabla
import nabla.nn as nn
import nabla.nn.functional as F


def test_compile_traces_once_per_signature_and_matches_eager():
    calls = []

    def f(x, y):
        calls.append(1)
        return (x * y + 1).relu().sum(dim=1), x - y

    cf = nabla.compile(f)
    nabla.manual_seed(0)
    x, y = nabla.randn([3, 4]), nabla.randn([3, 4])
    a, b = cf(x, y)
    assert len(calls) == 1 and cf.num_traces == 1
    for scale in (2.0, -1.0):  # new values, same signature: the cached graph runs, f is not called
        a, b = cf(x * scale, y)
        ea, eb = f(x * scale, y)
        np.testing.assert_allclose(a.numpy(), ea.numpy(), rtol=1e-6)
        np.testing.assert_allclose(b.numpy(), eb.numpy(), rtol=1e-6)
    assert len(calls) == 3 and cf.num_traces == 1  # two of them were the eager references
    cf(nabla.randn([5, 4]), nabla.randn([5, 4]))
    assert cf.num_traces == 2 and cf.signatures() == ["float32[3, 4], float32[3, 4]", "float32[5, 4], float32[5, 4]"]
    single = nabla.compile(lambda t: t.exp())
    out = single(x)
    assert isinstance(out, nabla.Tensor)
    np.testing.assert_allclose(out.numpy(), x.exp().numpy(), rtol=1e-6)


def test_compiled_training_step_matches_eager():
    def twin():
        nabla.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
        return model, nabla.optim.Adam(model.parameters(), lr=1e-2)

    def make_step(model, optimizer):
        def step(x, y):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), y, reduction="sum")
            loss.backward()
            optimizer.step()
            return loss
        return step

    eager_model, eager_opt = twin()
    compiled_model, compiled_opt = twin()
    eager = make_step(eager_model, eager_opt)
    compiled = nabla.compile(make_step(compiled_model, compiled_opt))
    nabla.manual_seed(1)
    x, y = nabla.randn([32, 8]), nabla.randn([32, 2])
    eager_losses = [eager(x, y).item() for _ in range(20)]
    compiled_losses = [compiled(x, y).item() for _ in range(20)]
    assert compiled.num_traces == 1
    assert compiled_losses[-1] < 0.7 * compiled_losses[0]
    np.testing.assert_allclose(compiled_losses, eager_losses, rtol=1e-5)
    for p, q in zip(eager_model.parameters(), compiled_model.parameters()):  # the optimizer updated them in place
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=1e-4, atol=1e-6)


def test_compile_errors_name_the_problem():
    with pytest.raises(nabla.Error, match="returned int; expected a Tensor"):
        nabla.compile(lambda x: 3)(nabla.ones([2]))
    with pytest.raises(nabla.Error, match="argument 1 is a float; a compiled function takes Tensors only"):
        nabla.compile(lambda x, s: x * s)(nabla.ones([2]), 2.0)

    def data_dependent(x):
        return x * 2 if x.sum().item() > 0 else x
    with pytest.raises(nabla.Error, match="item"):
        nabla.compile(data_dependent)(nabla.ones([2]))
