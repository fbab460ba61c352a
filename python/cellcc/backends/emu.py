"""Where the `cellcc-emu` binary is, and how the backend describes a path to it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .netns import Unsupported

#: python/cellcc/backends/emu.py -> repository root (a source checkout).
REPO_ROOT = Path(__file__).resolve().parents[3]
EMU_ENV = "CELLCC_EMU"


def emulator_binary(build: bool = True) -> Path:
    """$CELLCC_EMU, else the checkout's release/debug build, else one on PATH, else build it with cargo."""
    if os.environ.get(EMU_ENV):
        path = Path(os.environ[EMU_ENV])
        if not path.is_file():
            raise Unsupported(f"${EMU_ENV} = {path}: no such file")
        return path
    for profile in ("release", "debug"):
        path = REPO_ROOT / "target" / profile / "cellcc-emu"
        if path.is_file():
            return path
    on_path = shutil.which("cellcc-emu")
    if on_path:
        return Path(on_path)
    cargo = shutil.which("cargo")
    if build and cargo and (REPO_ROOT / "crates" / "cellcc-emu").is_dir():
        r = subprocess.run([cargo, "build", "--release", "-p", "cellcc-emu"], cwd=REPO_ROOT, capture_output=True, text=True)
        if r.returncode == 0:
            return REPO_ROOT / "target" / "release" / "cellcc-emu"
        raise Unsupported(f"building cellcc-emu failed:\n{r.stderr[-2000:]}")
    raise Unsupported(f"cellcc-emu not found: build it (cargo build --release -p cellcc-emu) or set ${EMU_ENV}")
