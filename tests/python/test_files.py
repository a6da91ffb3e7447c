"""Saved graphs (.nbg) and ONNX export/import from Python."""
import numpy as np
import pytest

import nabla
import nabla.nn as nn
from nabla import graph


def small_graph():
    nabla.manual_seed(0)
    g = graph.Graph()
    x = g.placeholder([2, 3], name="x")
    w = g.variable(nabla.randn([3, 4]), name="w")
    y = g.set_name(x.matmul(w).relu(), "y")
    double = graph.assign(w, w * 2)
    return g, x, w, y, double


def test_nbg_session_save_and_load(tmp_path):
    g, x, w, y, double = small_graph()
    sess = graph.Session(g)
    sess.run(g.global_variables_initializer())
    sess.run(double)  # trained values differ from the initial ones
    feed = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = sess.run(y, feed_dict={x: feed}).numpy()

    sess.save(str(tmp_path / "trained.nbg"))
    loaded = graph.Session.load(str(tmp_path / "trained.nbg"))
    np.testing.assert_array_equal(loaded.run("y", feed_dict={"x": feed}).numpy(), expected)
    np.testing.assert_array_equal(loaded.run([loaded.graph.tensor("y")], {"x": feed})[0].numpy(), expected)

    g.save(str(tmp_path / "initial.nbg"))  # the graph alone: variables with their initial values
    g2 = graph.load(str(tmp_path / "initial.nbg"))
    fresh = graph.Session(g2)
    fresh.run(g2.global_variables_initializer())
    np.testing.assert_allclose(fresh.run("y", {"x": feed}).numpy() * 2, expected, rtol=1e-6)

    (tmp_path / "bad.nbg").write_bytes(b"not a graph at all")
    with pytest.raises(nabla.Error, match="bad.nbg"):
        graph.Session.load(str(tmp_path / "bad.nbg"))
    with pytest.raises(nabla.Error, match="no_such_node"):
        loaded.run("no_such_node", {"x": feed})


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3, padding=1)
        self.fc = nn.Linear(3 * 4 * 4, 5)

    def forward(self, x):
        return self.fc(self.conv(x).relu().flatten(1)).softmax(dim=1)


needs_onnx = pytest.mark.skipif(not nabla.has_onnx, reason="nabla built without ONNX (libonnx-dev)")


@needs_onnx
def test_onnx_export_runs_in_onnxruntime_and_imports_back(tmp_path):
    nabla.manual_seed(0)
    model = Net()
    x = nabla.randn([2, 1, 4, 4])
    with nabla.no_grad():
        expected = model(x).numpy()
    path = tmp_path / "net.onnx"
    nabla.onnx.export(model, x, path, output_names=["probs"])
    assert model.training  # restored after the eval-mode trace

    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (got,) = session.run(["probs"], {"input_0": x.numpy()})
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)

    m = nabla.onnx.import_model(str(path))
    assert [name for name, _ in m.inputs] == ["input_0"] and [name for name, _ in m.outputs] == ["probs"]
    sess = graph.Session(m.graph)
    sess.run(m.graph.global_variables_initializer())
    np.testing.assert_allclose(sess.run(m.outputs[0][1], {m.inputs[0][1]: x}).numpy(), expected, rtol=1e-6)
    sess.save(str(tmp_path / "net.nbg"))  # an imported model saves as .nbg like any graph
    assert graph.Session.load(str(tmp_path / "net.nbg")).run("probs", {"input_0": x}).allclose(
        nabla.from_numpy(expected), rtol=1e-6)


@needs_onnx
def test_onnx_export_graph_function_and_errors(tmp_path):
    g, x, w, y, double = small_graph()
    sess = graph.Session(g)
    sess.run(g.global_variables_initializer())
    sess.run(double)
    feed = np.ones((2, 3), np.float32)
    nabla.onnx.export_graph(g, [y], str(tmp_path / "g.onnx"), session=sess)
    m = nabla.onnx.import_model(str(tmp_path / "g.onnx"))
    s2 = graph.Session(m.graph)
    s2.run(m.graph.global_variables_initializer())
    np.testing.assert_allclose(s2.run(m.outputs[0][1], {m.inputs[0][1]: feed}).numpy(),
                               sess.run(y, {x: feed}).numpy(), rtol=1e-6)

    nabla.onnx.export(lambda a, b: (a @ b, a.sum()), (nabla.ones([2, 3]), nabla.ones([3, 2])), tmp_path / "f.onnx")
    assert len(nabla.onnx.import_model(str(tmp_path / "f.onnx")).outputs) == 2
    assert "Conv" in nabla.onnx.imported_op_types()

    (tmp_path / "bad.onnx").write_bytes(b"\x08\x07garbage")
    with pytest.raises(nabla.Error, match="bad.onnx"):
        nabla.onnx.import_model(str(tmp_path / "bad.onnx"))
    with pytest.raises(nabla.Error, match="assign"):  # no meaning outside a Session
        nabla.onnx.export_graph(g, [double], str(tmp_path / "assign.onnx"))
