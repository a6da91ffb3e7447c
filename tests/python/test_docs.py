"""Every ```python block of docs/python.md runs (as the ```cpp blocks of the docs compile)."""
import os
import re

import pytest

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")
BLOCKS = re.findall(r"```python\n(.*?)```", open(DOC, encoding="utf-8").read(), re.S)


def test_the_page_has_python_blocks():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_python_block_runs(index):
    exec(compile(BLOCKS[index], f"docs/python.md block {index + 1}", "exec"), {})
