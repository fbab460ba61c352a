"""examples/quickstart.ipynb runs from top to bottom (nbclient, a real Jupyter kernel), so it
never rots: one run, its panels drawn by the report's own functions, a PNG, a sweep and SQL."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from .conftest import EXAMPLES

#: Wall-clock limit per cell, seconds (the slowest, the sweep, takes ~3 s).
CELL_TIMEOUT_S = 120


def test_quickstart_notebook_runs(tmp_path: Path) -> None:
    notebook = nbformat.read(EXAMPLES / "quickstart.ipynb", as_version=4)
    # Outputs are not committed: the notebook in the repository is clean.
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")
    NotebookClient(
        notebook, timeout=CELL_TIMEOUT_S, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [c.outputs for c in notebook.cells if c.cell_type == "code"]
    text = "\n".join(
        str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for cell in outputs for o in cell
    )
    assert "download" in text and "panels; idle link directions" in text
    assert any("image/png" in o.get("data", {}) for cell in outputs for o in cell)
    assert "8 runs, 8 run now" in text and "cubic" in text and "bbr" in text
    assert (tmp_path / "results" / "quickstart" / "sweep.json").is_file()
