"""The example notebook runs from top to bottom without an error (nbclient, a fresh kernel).

nbclient drives the kernel through asyncio and leaves an event loop set in the process that ran it,
after which Playwright's sync API (the browser tests) refuses to start; so the notebook runs in a
child process that writes the executed notebook back.
"""

from __future__ import annotations

import os
import subprocess
import sys

import nbformat

from tests.conftest import ROOT

RUN = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": sys.argv[3]}}).execute()
nbformat.write(nb, sys.argv[2])
"""


def test_examples_analytics_notebook_runs(tmp_path) -> None:
    executed = tmp_path / "executed.ipynb"
    # the kernel (this interpreter, through ipykernel's own spec) imports this checkout, as the tests do
    env = os.environ | {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-c", RUN, str(ROOT / "examples" / "analytics.ipynb"), str(executed), str(tmp_path)],
                   check=True, env=env, timeout=1200)
    nb = nbformat.read(executed, as_version=4)
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    last = nb.cells[-1].outputs[0]["data"]
    assert last["text/html"].startswith("<iframe srcdoc=")
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 3, [o.get("data", {}).keys() for o in outputs]
