"""Every HTML report renders in headless Chromium (Debian's `chromium`, which `make test`
installs): the report of a sweep, of each built-in study (its quick run and the full report
committed under docs/studies/) and of one run. In each: no console message (an error, a failed
load), every figure laid out with a non-zero size and drawn (a loaded image, or a Bokeh canvas),
and the findings / flows table visible.

Outside CI these tests skip where Chromium is absent (`apt-get install chromium`); under CI
(`CI` set, as `.ci/run` runs) a missing Chromium fails them, so CI never passes without them.

How a page is looked at: a copy of it gets a probe script that, once the page has loaded and
drawn, writes what it measured (figure sizes, canvases, images, tables) into the DOM as JSON,
and `chromium --dump-dom` prints the DOM; `--enable-logging=stderr` prints console messages
as `CONSOLE` lines.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from matplotlib import image

from cellcc.report import write_report
from cellcc.runner import run_sweep
from cellcc.studies import STUDIES
from cellcc.sweep import Sweep

from .test_sweep import tiny_sweep

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Share of the screenshot's pixels that must be coloured (the plots' lines and markers): text and tables
#: are black and grey, so a page whose images did not render has none.
MIN_COLOURED_SHARE = 0.002
#: A pixel is coloured when its channels differ by more than this (grey has equal channels).
_SATURATION = 0.2
#: Virtual time Chromium gives a page to load and draw before it dumps the DOM, ms (the probe
#: measures 1.5 s after the load event; Bokeh draws within a few hundred ms of it).
_VIRTUAL_TIME_MS = 10_000
_TIMEOUT_S = 120
_COMMON = ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--hide-scrollbars"]

#: Measures the laid-out page: each figure (a run report's `.figure` wrappers, a sweep or study
#: report's `<figure>`): its box, the canvases drawn inside it (Bokeh draws in shadow roots) and
#: the images that loaded; each table: its class, box and header text.
_PROBE = """<script>
window.addEventListener('load', () => setTimeout(() => {
  const canvases = (node) => {
    let n = 0;
    if (node.tagName === 'CANVAS' && node.width > 0 && node.height > 0) n += 1;
    if (node.shadowRoot) n += canvases(node.shadowRoot);
    for (const child of node.children || []) n += canvases(child);
    return n;
  };
  const box = (el) => { const r = el.getBoundingClientRect(); return {w: r.width, h: r.height}; };
  const figures = [...document.querySelectorAll('.figure, figure')].map((el) => ({
    ...box(el),
    canvases: canvases(el),
    images: [...el.querySelectorAll('img')].filter((im) => im.complete && im.naturalWidth > 0).length,
  }));
  const tables = [...document.querySelectorAll('table')].map((t) => ({
    ...box(t), cls: t.className, head: (t.rows[0] ? t.rows[0].innerText : ''),
  }));
  const pre = document.createElement('pre');
  pre.id = 'cellcc-probe';
  pre.textContent = JSON.stringify({figures, tables});
  document.body.appendChild(pre);
}, 1500));
</script>"""


@pytest.fixture(scope="module")
def chromium() -> str:
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed: `make test` installs Debian's chromium (apt-get install chromium)")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return CHROMIUM


def look_at(browser: str, page: Path, tmp_path: Path) -> tuple[dict[str, Any], list[str]]:
    """Load ``page`` (a copy with the probe) in headless Chromium: what the probe measured, and
    the console messages."""
    shutil.copytree(page.parent, tmp_path / "site", dirs_exist_ok=True)
    probed = tmp_path / "site" / f"probed-{page.name}"
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    budget = f"--virtual-time-budget={_VIRTUAL_TIME_MS}"
    done = subprocess.run(
        [browser, *_COMMON, budget, "--window-size=1400,1000", "--dump-dom", probed.as_uri()],
        capture_output=True,
        text=True,
        timeout=_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r"<pre id=\"cellcc-probe\">(.*?)</pre>", done.stdout, re.S)
    assert found, "the probe did not run: the page did not finish loading"
    text = found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    return json.loads(text), console


def assert_every_figure_drawn(probe: dict[str, Any], expected: int) -> None:
    figures = probe["figures"]
    assert len(figures) == expected, (len(figures), expected)
    for i, fig in enumerate(figures):
        assert fig["w"] > 0 and fig["h"] > 0, (i, fig)
        assert fig["canvases"] > 0 or fig["images"] > 0, (i, fig)


def visible_table(probe: dict[str, Any], header: str) -> dict[str, Any]:
    """The first table whose header row mentions ``header``, asserting it has a size."""
    table = next((t for t in probe["tables"] if header in t["head"]), None)
    assert table is not None, [t["head"] for t in probe["tables"]]
    assert table["w"] > 0 and table["h"] > 0, table
    return table


def test_sweep_report_renders(chromium, tmp_path):
    store = run_sweep(Sweep.from_dict(tiny_sweep(seeds=2)), tmp_path / "out", workers=1, progress=False).store
    page = write_report(store, tmp_path / "report.html")
    probe, console = look_at(chromium, page, tmp_path)
    assert not console, console
    assert_every_figure_drawn(probe, page.read_text(encoding="utf-8").count("<figure>"))
    assert len(probe["figures"]) >= 8 and len(probe["tables"]) >= 2
    shot = tmp_path / "shot.png"
    subprocess.run(
        [chromium, *_COMMON, "--window-size=1200,2400", f"--screenshot={shot}", page.resolve().as_uri()],
        capture_output=True,
        timeout=_TIMEOUT_S,
        check=True,
    )
    pixels = image.imread(shot)[..., :3]
    coloured = float(np.mean(pixels.max(axis=-1) - pixels.min(axis=-1) > _SATURATION))
    assert coloured > MIN_COLOURED_SHARE


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_study_report_renders(chromium, quick_study, tmp_path, name):
    result, out = quick_study(name)
    assert result.exit_code == 0, result.output
    page = out / "report.html"
    probe, console = look_at(chromium, page, tmp_path)
    assert not console, console
    assert_every_figure_drawn(probe, page.read_text(encoding="utf-8").count("<figure>"))
    visible_table(probe, "verdict")


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_committed_study_report_renders(chromium, tmp_path, name):
    # The full report `make studies` copied into docs/studies/NAME/ (what a reader opens), not only the quick one.
    page = Path(__file__).resolve().parent.parent / "docs" / "studies" / name / "report.html"
    probe, console = look_at(chromium, page, tmp_path)
    assert not console, console
    assert_every_figure_drawn(probe, page.read_text(encoding="utf-8").count("<figure>"))
    visible_table(probe, "verdict")


def test_run_report_renders(chromium, tmp_path, cli):
    run_dir = tmp_path / "run"
    assert cli("run", "lte", "--out", run_dir, "--report").exit_code == 0
    page = run_dir / "report.html"
    probe, console = look_at(chromium, page, tmp_path)
    assert not console, console
    panels = page.read_text(encoding="utf-8").count("data-panel=")
    assert panels >= 11
    assert_every_figure_drawn(probe, panels)
    visible_table(probe, "throughput Mbit/s")


def test_the_probe_sees_a_figure_that_did_not_draw(chromium, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        "<!doctype html><html><body><figure><img src='missing.png'></figure>"
        "<div class='figure'></div><script>drawFigures()</script></body></html>",
        encoding="utf-8",
    )
    probe, console = look_at(chromium, page, tmp_path)
    assert [(f["canvases"], f["images"]) for f in probe["figures"]] == [(0, 0), (0, 0)]
    with pytest.raises(AssertionError):
        assert_every_figure_drawn(probe, 2)
    assert any("drawFigures is not defined" in line for line in console), console
