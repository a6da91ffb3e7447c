"""nabla.onnx: ONNX export and import (docs/python.md, "ONNX"; docs/onnx.md).

export(model, example_inputs, path) traces a Module (in eval mode, as
torch.onnx.export does) or a function of Tensors on inputs shaped like the
examples and writes an ONNX model (opset 17) that onnx's checker accepted;
export_graph(graph, fetches, path, session=None) writes the part of a graph
that computes `fetches` (variables with the session's values when one is
given). import_model(path) reads an ONNX model as a nabla.graph.Graph with
its inputs (placeholders) and outputs, to run in a graph.Session, fine-tune,
or save as .nbg.

Present when nabla was built with ONNX (libnabla_onnx: Debian's libonnx-dev);
otherwise every function raises nabla.Error saying so (nabla.has_onnx tells).
"""
from . import _nabla
from ._nabla import Error, Tensor

if _nabla.has_onnx:
    from ._nabla.onnx import ImportedModel, export_graph, import_model, import_model_bytes, imported_op_types  # noqa: F401
else:
    def _unavailable(*args, **kwargs):
        raise Error("nabla.onnx: this nabla was built without ONNX (libnabla_onnx needs Debian's libonnx-dev; "
                    "rebuild with it installed)")

    export_graph = import_model = import_model_bytes = imported_op_types = _unavailable


def export(model, example_inputs, path, output_names=None):
    """Writes `model` (an nn.Module or a function of Tensors) traced on `example_inputs` to an ONNX file.

    example_inputs: a Tensor or a tuple/list of them. A Module is traced in eval
    mode and its mode restored; its parameters become initializers. The
    model's inputs are named "input_0", ...; its outputs after output_names
    (default: the traced nodes' names).
    """
    if not _nabla.has_onnx:
        _unavailable()
    if isinstance(example_inputs, Tensor):
        example_inputs = [example_inputs]
    example_inputs = list(example_inputs)
    from .nn import Module
    if isinstance(model, Module):
        was_training = model.training
        model.eval()
        try:
            _nabla.onnx.export_function(model, example_inputs, str(path), output_names)
        finally:
            model.train(was_training)
    else:
        _nabla.onnx.export_function(model, example_inputs, str(path), output_names)
