"""Where the `cellcc-emu` binary is: $CELLCC_EMU, else this checkout's release build (brought up
to date with cargo, a no-op when nothing changed), else one on PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .netns import Unsupported

#: python/cellcc/backends/emu.py -> repository root (a source checkout).
REPO_ROOT = Path(__file__).resolve().parents[3]
EMU_ENV = "CELLCC_EMU"


def emulator_binary() -> Path:
    if os.environ.get(EMU_ENV):
        path = Path(os.environ[EMU_ENV])
        if not path.is_file():
            raise Unsupported(f"${EMU_ENV} = {path}: no such file")
        return path
    cargo = shutil.which("cargo")
    if cargo and (REPO_ROOT / "crates" / "cellcc-emu" / "Cargo.toml").is_file():
        r = subprocess.run(
            [cargo, "build", "--release", "--quiet", "-p", "cellcc-emu"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        if r.returncode != 0:
            raise Unsupported(f"building cellcc-emu failed:\n{r.stderr[-2000:]}")
        return REPO_ROOT / "target" / "release" / "cellcc-emu"
    on_path = shutil.which("cellcc-emu")
    if on_path:
        return Path(on_path)
    raise Unsupported(f"cellcc-emu not found: build it (cargo build --release -p cellcc-emu) or set ${EMU_ENV}")
