"""Every ```python block of docs/python.md runs (as the ```cpp blocks of the docs compile)."""
import os
import re

import pytest

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
BLOCKS = re.findall(r"```python\n(.*?)```", open(DOC, encoding="utf-8").read(), re.S)


def test_the_page_has_python_blocks():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_python_block_runs(index):
    import nabla
    if "nabla.onnx." in BLOCKS[index] and not nabla.has_onnx:
        pytest.skip("nabla built without ONNX")
    exec(compile(BLOCKS[index], f"docs/python.md block {index + 1}", "exec"), {})
