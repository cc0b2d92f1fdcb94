"""The README's Python example, run as it stands (so it cannot drift)."""
import pathlib
import re

import numpy as np

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    return re.findall(r"^```python\n(.*?)^```$", README.read_text(), re.S | re.M)


def test_readme_python_example_runs_and_matches_numpy():
    blocks = python_blocks()
    assert blocks, "README.md has no ```python block"
    scope = {}
    exec(compile(blocks[0], "README.md (Python example)", "exec"), scope)
    x = scope["x"]
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    np.testing.assert_allclose(scope["y"], e / e.sum(axis=-1, keepdims=True),
                               rtol=1e-6)
    assert "fusion" in scope["fused"]
