"""Every example scenario validates and runs; the example script runs end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cellcc
from cellcc import Scenario
from cellcc.backends.ns3 import plan as ns3_plan

from .conftest import EXAMPLES, REPO

#: Scenario examples; `sweep_*.toml` are sweep files (tests/test_sweep.py runs them).
SCENARIOS = sorted(p for p in EXAMPLES.glob("*.toml") if not p.name.startswith("sweep_"))


def test_there_are_examples():
    assert len(SCENARIOS) >= 2
    assert (EXAMPLES / "quickstart.py").is_file()


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_example_runs(path: Path):
    scenario = Scenario.load(path)
    result = cellcc.run(scenario)
    assert result.flows["flow_id"].tolist() == [f["id"] for f in scenario.to_dict()["flows"]]
    assert (result.flows["rx_bytes"] > 0).all()


def test_fragmentation_example_sends_segments_of_the_asked_size():
    result = cellcc.run(EXAMPLES / "fragmentation.toml")
    flows = result.flows.set_index("flow_id")
    # FlowMonitor counts packets above fragmentation, so bytes per packet is the segment size plus headers.
    bytes_per_packet = flows["tx_bytes"] / flows["tx_packets"]
    assert 3000 < bytes_per_packet["large-3000B"] < 3100
    assert 1000 < bytes_per_packet["small-1000B"] < 1100
    # Both 1 Mbit/s sources get their rate through the 20 Mbit/s bottleneck, fragmented or not.
    assert flows["goodput_bps"].between(0.8e6, 1.05e6).all()


def test_finite_example_completes_and_captures(tmp_path: Path):
    result = cellcc.run(EXAMPLES / "finite_and_udp.toml")
    download = result.flows.set_index("flow_id").loc["download"]
    assert download["completion_s"] > 0
    assert result.pcaps


def test_quickstart_script(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "quickstart.py"), str(tmp_path / "run")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Jain fairness" in done.stdout
    assert (tmp_path / "run" / "summary.json").is_file()


def test_ecn_example_dctcp_keeps_the_queue_near_its_threshold_without_loss():
    result = cellcc.run(EXAMPLES / "ecn_dctcp.toml")
    flows = result.flows.set_index("flow_id")
    assert (flows["lost_packets"] == 0).all()
    assert (flows["ecn_marked_packets"] > 0).all()
    queue = result.queues[(result.queues["link"] == "bottleneck:forward") & (result.queues["t_s"] >= 2)]
    # K = 20 packets: the standing queue stays of that order, far below the 1000-packet buffer.
    assert queue["packets"].mean() < 40
    assert flows["throughput_bps"].sum() > 0.9 * 100e6 * 1448 / 1500


def test_capacity_step_example_follows_the_link_rate():
    ts = cellcc.run(EXAMPLES / "capacity_step.toml").timeseries
    during = ts[(ts["t_s"] >= 12) & (ts["t_s"] < 20)]["goodput_bps"].mean()
    after = ts[(ts["t_s"] >= 24) & (ts["t_s"] < 30)]["goodput_bps"].mean()
    assert 0.85 * 5e6 * 1448 / 1500 < during <= 5e6
    assert after > 0.8 * 20e6 * 1448 / 1500


#: The crosscheck examples (docs/ns3.md), each meant for both the engine and ns-3.
CROSSCHECKS = sorted((EXAMPLES / "crosscheck").glob("*.toml"))


@pytest.mark.parametrize("path", CROSSCHECKS, ids=[p.stem for p in CROSSCHECKS])
def test_crosscheck_example_loads_and_maps_to_ns3(path: Path):
    scenario = Scenario.load(path)
    text = ns3_plan.plan(scenario.to_dict(), base_dir=path.parent).text
    assert text.count("\nflow ") + text.startswith("flow ") == len(scenario.to_dict()["flows"])
