"""The notebooks run end to end through papermill, the way `make reproduce` runs them."""

import nbformat
import pytest

from privmetrics.reproduce import NOTEBOOKS, run_notebooks


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_executes_with_quick_profile(name, tmp_path):
    (path,) = run_notebooks("quick", tmp_path, [name])
    notebook = nbformat.read(path, as_version=4)
    outputs = [
        o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
    ]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = [o for o in outputs if {"image/png", "text/html"} & set(o.get("data", {}))]
    assert shown, "expected at least one figure or table"


def test_unknown_profile_fails_before_running(tmp_path):
    with pytest.raises(KeyError, match="unknown profile 'fast'"):
        run_notebooks("fast", tmp_path)
