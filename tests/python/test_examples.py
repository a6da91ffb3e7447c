"""The lecture's seed programs in examples/python run (a few steps each) and learn."""
import os
import re
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python")


@pytest.mark.parametrize("example,steps", [("seed_autograd.py", "60"), ("seed_nn_adam.py", "60"),
                                           ("seed_nn_module.py", "3"), ("seed_compile.py", "30")])
def test_seed_example_learns(example, steps):
    out = subprocess.run([sys.executable, os.path.join(EXAMPLES, example), steps], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    for first, final in re.findall(r"first_loss=([\d.e+-]+) final_loss=([\d.e+-]+)", out):
        assert float(final) < float(first), out
    if example == "seed_compile.py":
        diff = float(re.search(r"max_loss_rel_diff=([\d.e+-]+)", out).group(1))
        assert diff < 1e-4 and "traces=1" in out, out
    else:
        assert "first_loss=" in out, out
