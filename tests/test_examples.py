"""The example notebook runs from top to bottom without an error (nbclient, a fresh kernel)."""

from __future__ import annotations

import os

import nbformat
from nbclient import NotebookClient

from tests.conftest import ROOT


def test_examples_analytics_notebook_runs(tmp_path, monkeypatch) -> None:
    nb = nbformat.read(ROOT / "examples" / "analytics.ipynb", as_version=4)
    # the kernel (this interpreter, through ipykernel's own spec) imports this checkout, as the tests do
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    last = nb.cells[-1].outputs[0]["data"]
    assert last["text/html"].startswith("<iframe srcdoc=")
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3, [o.get("data", {}).keys() for o in outputs]
