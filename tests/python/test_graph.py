"""nabla.graph from Python: the lecture's TensorFlow seed (placeholders, variables, gradients, assign, Session)."""
import numpy as np
import pytest

import nabla
from nabla import graph


def test_session_trains_variables_with_assign():
    N, D, H = 16, 20, 8
    nabla.manual_seed(0)
    g = graph.Graph()
    x = g.placeholder([N, D], name="x")
    y = g.placeholder([N, D], name="y")
    w1 = g.variable(nabla.randn([D, H]) * 0.3, name="w1")
    w2 = g.variable(nabla.randn([H, D]) * 0.3, name="w2")
    y_pred = x.matmul(w1).maximum(0.0).matmul(w2)
    loss = (y_pred - y).pow(2).sum(dim=1).mean()
    grad_w1, grad_w2 = graph.gradients(loss, [w1, w2])
    updates = graph.group([graph.assign(w1, w1 - 0.1 * grad_w1), graph.assign(w2, w2 - 0.1 * grad_w2)])

    rng = np.random.default_rng(0)
    values = {x: rng.standard_normal((N, D)).astype(np.float32), y: rng.standard_normal((N, D)).astype(np.float32)}
    sess = graph.Session(g)
    assert sess.run(g.global_variables_initializer()) is None
    losses = [sess.run([loss, updates], feed_dict=values)[0].item() for _ in range(30)]
    assert losses[-1] < 0.8 * losses[0], losses

    # The graph's gradient equals eager autograd's on the session's weights.
    w1_value = sess.variable_value(w1)
    g1 = sess.run(grad_w1, feed_dict=values)
    e1 = w1_value.clone().requires_grad_()
    ex, ey = nabla.from_numpy(values[x]), nabla.from_numpy(values[y])
    (ex.mm(e1).clamp(min=0).mm(sess.variable_value(w2)) - ey).pow(2).sum(dim=1).mean().backward()
    np.testing.assert_allclose(g1.numpy(), e1.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_session_errors_name_the_problem():
    g = graph.Graph()
    x = g.placeholder([2, 3], name="x")
    sess = graph.Session(g)
    with pytest.raises(nabla.Error, match="x"):
        sess.run(x * 2)  # x is not fed
    with pytest.raises(nabla.Error, match="feed_dict keys"):
        sess.run(x * 2, feed_dict={5: np.ones((2, 3), np.float32)})
    with pytest.raises(nabla.Error, match="ambiguous"):
        bool(nabla.ones([2]))
