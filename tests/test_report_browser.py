"""The HTML report renders in headless Chromium (Debian's `chromium`): figures and tables
drawn, no console errors. Skipped where Chromium is not installed (`apt-get install chromium`)."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from matplotlib import image

from cellcc.report import write_report
from cellcc.runner import run_sweep
from cellcc.sweep import Sweep

from .test_sweep import tiny_sweep

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Share of the screenshot's pixels that must be coloured (the plots' lines and markers): text and tables
#: are black and grey, so a page whose images did not render has none.
MIN_COLOURED_SHARE = 0.002
#: A pixel is coloured when its channels differ by more than this (grey has equal channels).
_SATURATION = 0.2


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
def test_report_renders_in_headless_chromium(tmp_path):
    store = run_sweep(Sweep.from_dict(tiny_sweep(seeds=2)), tmp_path / "out", workers=1, progress=False).store
    page = write_report(store, tmp_path / "report.html")
    shot = tmp_path / "shot.png"
    common = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"]
    done = subprocess.run(
        [*common, "--window-size=1200,2400", f"--screenshot={shot}", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console
    pixels = image.imread(shot)[..., :3]
    coloured = float(np.mean(pixels.max(axis=-1) - pixels.min(axis=-1) > _SATURATION))
    assert coloured > MIN_COLOURED_SHARE
    dom = subprocess.run(
        [*common, "--dump-dom", page.resolve().as_uri()], capture_output=True, text=True, timeout=120, check=False
    ).stdout
    assert dom.count("<img") >= 8 and dom.count("<table") >= 2
