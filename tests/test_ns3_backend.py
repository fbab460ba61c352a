"""The ns-3 backend (issue 9): the plan's mapping and refusals (pure), and short ns-3 runs whose
results must land in the engine's tables. The runs need the `ns3` extra (`pip install
'cellcc[ns3]'`, which `make test` installs) and a C++ compiler; the driver compiles once per
source/ns-3 version (about 20-50 s on two busy cores) into the user cache, then each run takes
well under a second of ns-3 time.
"""

from __future__ import annotations

import json
import math
import shutil
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest

from cellcc.backends.ns3 import plan as ns3_plan
from cellcc.builders import two_hosts


def _have_ns3() -> str | None:
    try:
        metadata.version("ns3")
    except metadata.PackageNotFoundError:
        return "ns3 is not installed (pip install 'cellcc[ns3]')"
    if not shutil.which("g++"):
        return "no g++ to compile the ns-3 driver"
    return None


WHY_NOT = _have_ns3()
needs_ns3 = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")


# --- the plan: pure ----------------------------------------------------------------------------


def _records(text: str, kind: str) -> list[dict[str, str]]:
    lines = [x for x in text.splitlines() if x.startswith(kind + " ")]
    return [dict(kv.split("=", 1) for kv in line.split()[1:]) for line in lines]


def _record(text: str, kind: str) -> dict[str, str]:
    return _records(text, kind)[0]


def test_plan_maps_link_queue_loss_and_engine_tcp_defaults():
    sc = two_hosts()
    sc["links"][0]["reverse"] = {
        "queue": {"kind": "drop_tail", "limit_bytes": 150000},
        "loss": {"kind": "bernoulli", "p": 0.01},
    }
    sc["links"][0]["rate_changes"] = [{"at_s": 1.5, "rate_mbps": 5}]
    p = ns3_plan.plan(sc)
    link = _record(p.text, "link")
    assert (link["rate_ab_bps"], link["delay_s"], link["q_ab"], link["loss_ab"]) == ("10000000.0", "0.02", "50p", "0.0")
    assert (link["q_ba"], link["loss_ba"]) == ("150000B", "0.01")
    # Both directions inherit the link's rate_changes.
    assert [ln for ln in p.text.splitlines() if ln.startswith("change")] == [
        "change link=0 dir=ab at_s=1.5 rate_bps=5000000.0",
        "change link=0 dir=ba at_s=1.5 rate_bps=5000000.0",
    ]
    flow = _record(p.text, "flow")
    # MSS: 1500 - 20 (IPv4) - 20 (TCP) - 12 (timestamps) = 1448, the engine's default.
    assert flow["cca"] == "ns3::TcpCubic" and flow["mss"] == "1448"
    # Engine defaults (scenario/tcp.rs): min RTO 200 ms, delayed ACK 2 / 40 ms, IW 10, Linux buffers.
    assert (flow["min_rto_s"], flow["delack_count"], flow["delack_timeout_s"], flow["init_cwnd"]) == (
        "0.2",
        "2",
        "0.04",
        "10",
    )
    assert (flow["rcvbuf"], flow["sndbuf"], flow["sack"], flow["timestamps"]) == ("6291456", "4194304", "1", "1")


def test_plan_maps_the_receive_buffer_to_a_fixed_rcvbufsize():
    # ns-3 has no autotuning: with it on (default) the largest buffer, tcp_rmem[2]; off, the
    # window Linux offers from tcp_rmem[1]: 131072 x 160 / 256 = 81920 (tcp/rwnd.rs ratio).
    sc = two_hosts()
    sc["tcp"] = {"tcp_rmem": [4096, 131072, 1000000]}
    assert _record(ns3_plan.plan(sc).text, "flow")["rcvbuf"] == "1000000"
    sc["tcp"]["tcp_moderate_rcvbuf"] = False
    assert _record(ns3_plan.plan(sc).text, "flow")["rcvbuf"] == "81920"
    sc["tcp"] = {"rcv_buf_bytes": 500000}
    assert _record(ns3_plan.plan(sc).text, "flow")["rcvbuf"] == "500000"


@pytest.mark.parametrize(
    ("edit", "path", "why"),
    [
        (lambda sc: sc["flows"][0].update(cca="copa"), "flows[0].cca", "one ns-3 3.44 has: newreno, reno"),
        (lambda sc: sc["flows"][0].update(cca="westwood"), "flows[0].cca", "westwoodplus"),
        (
            lambda sc: sc["links"][0].update(
                loss={"kind": "gilbert_elliott", "p_good_to_bad": 0.1, "p_bad_to_good": 0.5}
            ),
            "links[0].forward.loss.kind",
            "no Gilbert-Elliott",
        ),
        (lambda sc: sc["links"][0].update(reverse={"delay_ms": 5}), "links[0].reverse.delay_ms", "one delay"),
        (lambda sc: sc["links"][0].update(trace="x.trace", rate_mbps=None), "links[0].forward.trace", "Mahimahi"),
        (lambda sc: sc.update(tcp={"max_rto_ms": 120000}), "flows[0].tcp.max_rto_ms", "caps the doubled RTO at 60 s"),
        (lambda sc: sc.update(tcp={"rto_estimator": "linux"}), "flows[0].tcp.rto_estimator", '"rfc6298"'),
        (lambda sc: sc["nodes"].append({"id": "enb", "kind": "enb"}), "nodes[2].kind", "an eNB/UE of a cell"),
        (
            lambda sc: sc["links"][0].update(
                queue={"kind": "drop_tail", "limit_packets": 50, "ecn_threshold_packets": 2}
            ),
            "links[0].forward.queue.ecn_threshold_packets",
            ">= 3 packets",
        ),
    ],
)
def test_plan_refuses_what_ns3_cannot_run_by_field(edit, path, why):
    sc = two_hosts()
    edit(sc)
    with pytest.raises(ns3_plan.NotSupported) as e:
        ns3_plan.plan(sc)
    assert e.value.path == path and why in str(e.value)
    assert "\n" not in str(e.value)


def test_the_rto_estimator_runs_as_ns3s_or_the_plan_says_it_differs():
    sc = two_hosts()
    assert ns3_plan.plan(sc).notes == [ns3_plan.RTO_NOTE, ns3_plan.PROFILE_NOTE]
    sc["tcp"] = {"rto_estimator": "rfc6298"}
    assert ns3_plan.plan(sc).notes == [ns3_plan.PROFILE_NOTE]


def test_a_paced_flow_sends_per_packet_as_ns3_or_the_plan_says_it_differs():
    sc = two_hosts(cca="bbr")
    sc["tcp"] = {"rto_estimator": "rfc6298"}
    assert ns3_plan.plan(sc).notes == [ns3_plan.GSO_NOTE, ns3_plan.PROFILE_NOTE]
    sc["tcp"]["gso_max_segs"] = 1
    assert ns3_plan.plan(sc).notes == [ns3_plan.PROFILE_NOTE]


@pytest.mark.parametrize("cca", ["newreno", "cubic", "bbr"])
def test_the_ns3_profile_sets_ns3s_own_attribute_defaults_and_needs_no_note(cca):
    # tcp-socket.cc: SndBufSize = RcvBufSize = 131072, InitialCwnd 10, DelAckCount 2, DelAckTimeout
    # 0.2 s, ConnTimeout 3 s, ConnCount 6; tcp-socket-base.cc: MinRto 1 s, ReTxThreshold 3, Sack and
    # Timestamp on, UseEcn off; EnablePacing off (BBR turns it on itself).
    sc = two_hosts(cca=cca)
    sc["tcp"] = {"profile": "ns3"}
    p = ns3_plan.plan(sc)
    flow = _record(p.text, "flow")
    assert (flow["rcvbuf"], flow["sndbuf"], flow["init_cwnd"], flow["delack_count"]) == ("131072", "131072", "10", "2")
    assert (flow["delack_timeout_s"], flow["conn_timeout_s"], flow["syn_retries"], flow["min_rto_s"]) == (
        "0.2",
        "3.0",
        "6",
        "1.0",
    )
    assert (flow["dupack_threshold"], flow["sack"], flow["timestamps"], flow["ecn"], flow["pacing"]) == (
        "3",
        "1",
        "1",
        "0",
        "0",
    )
    assert flow["mss"] == "1448"  # the path's MSS, as SegmentSize (scenario/tcp_profile.rs)
    assert p.notes == []
    # ns-3's own 60 s ceiling may also be written out.
    sc["tcp"]["max_rto_ms"] = 60000
    assert ns3_plan.plan(sc).notes == []


def test_plan_refusal_of_a_cca_lists_every_ns3_cca():
    sc = two_hosts(cca="nv")
    with pytest.raises(ns3_plan.NotSupported) as e:
        ns3_plan.plan(sc)
    assert all(name in e.value.why for name in ns3_plan.NS3_CCAS)


CROSSCHECK_EXAMPLES = sorted((Path(__file__).parents[1] / "examples" / "crosscheck").glob("dumbbell-*.toml"))


@pytest.mark.parametrize("path", CROSSCHECK_EXAMPLES, ids=[p.stem for p in CROSSCHECK_EXAMPLES])
def test_crosscheck_examples_validate_and_plan_for_ns3(path: Path):
    from cellcc.backends import frontend

    sc = frontend.resolve(path)
    link = _records(ns3_plan.plan(sc.to_dict()).text, "link")[1]
    # The bottleneck's forward queue holds k BDP: rate x RTT / 8 bytes each (the file's header).
    rate_bps, rtt_s = float(link["rate_ab_bps"]), 2 * float(link["delay_s"])
    k = int(sc.to_dict()["description"].split(" BDP")[0].rsplit(" ", 1)[1])
    assert link["q_ab"] == f"{round(rate_bps * rtt_s / 8) * k}B"


def test_crosscheck_flags_throughput_beyond_10_and_delay_beyond_20_percent():
    from cellcc.backends import crosscheck as xc

    def side(thr: float, delay: float) -> xc.SideResult:
        m = dict.fromkeys(xc.METRICS, 1.0) | {"throughput_mbps": thr, "delay_ms": delay}
        return xc.SideResult(per_seed=[m])

    t = xc.table({"cubic": (side(1.15, 1.15), side(1.0, 1.0)), "bbr": (side(1.05, 1.25), side(1.0, 1.0))}, "ns3")
    flagged = {(r.cca, r.metric) for r in t.itertuples() if r.differs}
    # 15% apart: throughput flagged (> 10%), delay not (<= 20%); 25% delay flagged; wall time never.
    assert flagged == {("cubic", "throughput_mbps"), ("bbr", "delay_ms")}


def test_crosscheck_holds_counts_to_issue_12s_bars():
    from cellcc.backends import crosscheck as xc

    # Retransmissions: 25% apart is within the bar, 26% is not; either count where the other has none.
    assert not xc.differs("retransmits", 125, 100) and xc.differs("retransmits", 126, 100)
    assert xc.differs("retransmits", 0.5, 0) and not xc.differs("retransmits", 0, 0)
    assert xc.differs("timeouts", 0.5, 0) and not xc.differs("timeouts", 3, 1)
    assert not xc.differs("throughput_mbps", 1, 0) and not xc.differs("rtt_p95_ms", math.nan, 1)


def test_crosscheck_keeps_each_sides_per_seed_range():
    from cellcc.backends import crosscheck as xc

    def side(*retr: float) -> xc.SideResult:
        rows = [dict.fromkeys(xc.METRICS, 1.0) | {"seed": 7 + i, "retransmits": r} for i, r in enumerate(retr)]
        return xc.SideResult(per_seed=rows)

    # A bimodal kernel (32, 95): an engine mean of 33 misses the 25% bar but is inside the range.
    results = {"cubic": (side(33, 33), side(32, 95)), "reno": (side(20, 30), side(40, 60))}
    t = xc.table(results).set_index(["cca", "metric"])
    cubic, reno = t.loc[("cubic", "retransmits")], t.loc[("reno", "retransmits")]
    assert cubic["differs"] and cubic["in_range"] and (cubic["kernel_min"], cubic["kernel_max"]) == (32, 95)
    assert reno["differs"] and not reno["in_range"] and (reno["engine_min"], reno["engine_max"]) == (20, 30)
    runs = xc.per_seed(results)
    assert len(runs) == 8 and set(runs["backend"]) == {"engine", "kernel"}
    assert list(runs.query("backend == 'kernel' and cca == 'cubic'")["retransmits"]) == [32, 95]
    assert list(runs.query("backend == 'kernel' and cca == 'cubic'")["seed"]) == [7, 8]


# --- runs on ns-3 ----------------------------------------------------------------------------


def test_crosscheck_adds_seeds_until_each_sides_means_are_known_to_the_asked_width(monkeypatch):
    from cellcc.backends import crosscheck as xc
    from cellcc.stats import mean_ci

    monkeypatch.setattr(xc, "metrics", lambda out, wall_s: out)
    # A heavy-tailed kernel count (every fourth run on an upper branch) and a steady engine.
    kernel_retr = {seed: 5000.0 if seed % 4 == 2 else 3500.0 + 50 * (seed % 3) for seed in range(1, 41)}

    def run(retr: float) -> dict:
        return dict.fromkeys(xc.METRICS, 1.0) | {"retransmits": retr}

    def engine(sc, seed):
        return run(3500.0)

    def kernel(sc, seed):
        return run(kernel_retr[seed])

    sc = {"links": [], "flows": [{"src": "s", "dst": "c"}]}
    seeds = list(range(1, 41))
    e, k = xc.crosscheck(sc, ["bbr"], seeds, engine, kernel, min_runs=4, rel_ci=0.10)["bbr"]

    def kernel_ci(runs: int):
        return mean_ci([kernel_retr[s] for s in seeds[:runs]])

    # The first n at which the kernel's 95% interval is within 10% of its mean, worked out here.
    n = next(n for n in range(4, 41) if kernel_ci(n).half_width <= 0.1 * kernel_ci(n).mean)
    assert 4 < n < 40
    assert [m["seed"] for m in k.per_seed] == seeds[:n] == [m["seed"] for m in e.per_seed]
    assert not xc.unsettled({"engine": e, "kernel": k}, 0.10)
    # No spread: the seeds asked for and no more; a limit the interval cannot reach stops at the limit.
    e, k = xc.crosscheck(sc, ["bbr"], seeds, engine, engine, min_runs=4)["bbr"]
    assert len(e.per_seed) == len(k.per_seed) == 4
    e, k = xc.crosscheck(sc, ["bbr"], seeds[:6], engine, kernel, min_runs=2, rel_ci=0.01)["bbr"]
    assert len(k.per_seed) == 6 and xc.unsettled({"engine": e, "kernel": k}, 0.01) == ["kernel retransmits"]
    t = xc.table({"bbr": (e, k)}).set_index("metric").loc["retransmits"]
    assert (t["engine_runs"], t["kernel_runs"], t["engine_ci"]) == (6, 6, 0.0)
    assert t["kernel_ci"] == pytest.approx(kernel_ci(6).half_width)


def test_crosscheck_stops_adding_seeds_when_a_side_fails(monkeypatch):
    from cellcc.backends import crosscheck as xc

    monkeypatch.setattr(xc, "metrics", lambda out, wall_s: out)

    def engine(sc, seed):
        return dict.fromkeys(xc.METRICS, float(seed))  # never settles within 1%

    def kernel(sc, seed):
        raise ValueError("flows[0].cca: not offered by this kernel")

    e, k = xc.crosscheck({"links": [], "flows": [{}]}, ["vegas"], list(range(1, 11)), engine, kernel, min_runs=3)[
        "vegas"
    ]
    assert len(e.per_seed) == 3 and k.error and not k.per_seed


def _engine_columns(sc: dict) -> dict[str, list[str]]:
    from cellcc.runner import run_one
    from cellcc.scenario import Scenario

    r = run_one(Scenario(json.dumps({**sc, "duration_s": 0.5}), "<test>"), 1)
    return {t: list(getattr(r, t).columns) for t in ("flows", "timeseries", "queues", "cwnd", "rtt")}


@needs_ns3
def test_plan_maps_a_step_marking_queue_to_red_thresholds_in_the_driver():
    sc = two_hosts()
    sc["links"][0]["forward"] = {"queue": {"kind": "drop_tail", "limit_packets": 50, "ecn_threshold_packets": 20}}
    p = ns3_plan.plan(sc)
    link = _record(p.text, "link")
    # K travels as is (driver.cc InstallMarkingQueue sets RED's step at K - 1); the reverse does not mark.
    assert (link["q_ab"], link["ecn_k_ab"], link["ecn_k_ba"]) == ("50p", "20", "0")
    assert ns3_plan.MARKING_NOTE in p.notes
    assert ns3_plan.MARKING_NOTE not in ns3_plan.plan(two_hosts()).notes


@needs_ns3
def test_dctcp_on_a_step_marking_queue_holds_the_queue_near_k():
    from cellcc.backends.ns3 import run as ns3_run

    sc = two_hosts(duration_s=3)
    sc["links"][0]["forward"] = {"queue": {"kind": "drop_tail", "limit_packets": 100, "ecn_threshold_packets": 20}}
    sc["flows"][0]["cca"] = "dctcp"
    sc["tcp"] = {"ecn": True}
    out = ns3_run.run(sc)
    f = out.flows.iloc[0]
    fwd = out.queues[out.queues["link"] == "bottleneck:forward"]
    # Marks, not losses, hold the queue: no drop of the 100-packet limit, and once out of slow
    # start (1 s) the backlog at slot ends stays within a few packets of K = 20 (RFC 8257 §3.1;
    # DCTCP cuts by alpha/2 per marked window, so the sawtooth is small).
    assert f["lost_packets"] == 0 and fwd["drops"].sum() == 0
    late = fwd[fwd["t_s"] >= 1.0]["packets"]
    assert late.max() <= 30 and late.median() >= 5
    assert f["throughput_bps"] > 9e6


def test_wired_cubic_lands_in_the_engine_tables():
    from cellcc.backends.ns3 import run as ns3_run

    sc = two_hosts(duration_s=3)
    out = ns3_run.run(sc)
    for table, cols in _engine_columns(sc).items():
        assert list(getattr(out, table).columns) == cols, table
    f = out.flows.iloc[0]
    # 10 Mbit/s bottleneck: FlowMonitor's IP throughput cannot exceed it, and bulk CUBIC fills most of it.
    assert 7e6 < f["throughput_bps"] <= 10e6 * 1.001
    # Propagation RTT 40 ms: no sample below it (the handshake's is 40 ms: SYNs serialise in us). With
    # timestamps on, ns-3 takes RTT samples from the echoed TSval, whose clock ticks in ms
    # (TcpOptionTS::NowToTsValue): every sample is a whole number of ms.
    assert out.rtt["rtt_ms"].min() >= 40.0
    assert (out.rtt["rtt_ms"] % 1 == 0).all()
    assert f["rtt_p50_ms"] >= 41.0 and f["mean_delay_ms"] >= 20.0
    assert f["lost_packets"] == out.queues.loc[out.queues["link"] == "bottleneck:forward", "drops"].sum()
    assert len(out.timeseries) == 30 and out.timeseries["t_s"].iloc[-1] == pytest.approx(2.9)
    assert out.cwnd["ca_state"].iloc[0] == "Open" and out.cwnd["cwnd_bytes"].iloc[0] == 10 * 1448
    # The queue never holds more than its 50 packets of at most 1500 IP bytes (PPP header excluded).
    assert out.queues["max_bytes"].max() <= 50 * 1500


@needs_ns3
def test_ns3s_attribute_defaults_reach_the_driver_and_the_notes_say_so(monkeypatch):
    # CUBIC's first loss cut sets ssthresh to beta x cwnd: TcpCubic::Beta is 0.7, here 0.5.
    from cellcc.backends.ns3 import run as ns3_run

    sc = two_hosts(duration_s=1)

    def first_ssthresh(out) -> float:
        cw = out.cwnd
        return float(cw.loc[cw["ca_state"] == "Recovery", "ssthresh_bytes"].iloc[0])

    plain = ns3_run.run(sc)
    monkeypatch.setenv(ns3_run.NS3_DEFAULTS_ENV, "ns3::TcpCubic::Beta=0.5")
    halved = ns3_run.run(sc)
    assert first_ssthresh(halved) < 0.8 * first_ssthresh(plain)
    assert not any(ns3_run.NS3_DEFAULTS_ENV in n for n in plain.summary["notes"])
    assert any("ns3::TcpCubic::Beta=0.5" in n for n in halved.summary["notes"])


@needs_ns3
def test_udp_cbr_with_random_loss_and_a_finite_tcp_flow():
    from cellcc.backends.ns3 import run as ns3_run

    sc = two_hosts(duration_s=3, rate_mbps=20)
    sc["links"][0]["forward"] = {"loss": {"kind": "bernoulli", "p": 0.05}}
    sc["flows"] = [
        {
            "src": "server",
            "dst": "client",
            "transport": "udp",
            "app": {"kind": "cbr", "rate_mbps": 2, "packet_bytes": 1000},
        },
        {"src": "client", "dst": "server", "cca": "newreno", "app": {"kind": "finite", "bytes": 500_000}},
    ]
    out = ns3_run.run(sc, seed=3)
    udp, tcp = out.flows.iloc[0], out.flows.iloc[1]
    # 2 Mbit/s of 1000 B payloads = 250 packets/s for 3 s; 5% of them lost (binomial, 750 trials).
    assert udp["tx_packets"] == pytest.approx(750, abs=2)
    assert 0.03 < udp["loss_ratio"] < 0.07
    # What was neither received nor lost is in flight at the end: 20 ms one-way x 250 packets/s = 5,
    # plus the one being serialised (0.4 ms at 20 Mbit/s).
    assert 5 <= udp["tx_packets"] - udp["rx_packets"] - udp["lost_packets"] <= 6
    assert math.isnan(udp["rtt_p50_ms"]) and udp["retransmits"] == 0
    assert tcp["app_bytes_delivered"] == 500_000 and 0 < tcp["completion_s"] < 3
    assert tcp["cca"] == "newreno"


@needs_ns3
def test_same_seed_same_tables_other_seed_other_losses():
    from cellcc.backends.ns3 import run as ns3_run

    sc = two_hosts(duration_s=2)
    sc["links"][0]["loss"] = {"kind": "bernoulli", "p": 0.01}
    a, b, c = ns3_run.run(sc, seed=1), ns3_run.run(sc, seed=1), ns3_run.run(sc, seed=2)
    assert a.flows.equals(b.flows) and a.cwnd.equals(b.cwnd)
    assert not a.flows["lost_packets"].equals(c.flows["lost_packets"]) or not a.cwnd.equals(c.cwnd)


@needs_ns3
def test_cli_run_backend_ns3_and_crosscheck_against_ns3(tmp_path: Path):
    from typer.testing import CliRunner

    from cellcc.cli.main import app

    path = tmp_path / "short.json"
    path.write_text(json.dumps(two_hosts(duration_s=2)))
    r = CliRunner().invoke(app, ["run", str(path), "--backend", "ns3", "--out", str(tmp_path / "run")])
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["provenance"]["backend"] == "ns3"
    fig = tmp_path / "xc.png"
    runs = tmp_path / "runs.parquet"
    args = ["crosscheck", str(path), "--against", "ns3", "--cca", "cubic,copa", "--figure", str(fig)]
    r = CliRunner().invoke(app, [*args, "--out", str(runs)])
    assert r.exit_code == 0, r.output
    assert "engine/ns3" in r.output and "throughput Mbit/s" in r.output
    assert "one-way delay ms" in r.output and "wall time s" in r.output
    # The refused CCA's column is empty, and the caption says why (the one-line user error).
    assert 'ns3: flows[0].cca: got "copa"; allowed: (ns3 backend)' in r.output
    assert fig.is_file() and fig.stat().st_size > 10_000
    # --out: one row per run; ns-3 refused copa, so it has no row.
    ran = pd.read_parquet(runs)[["backend", "cca", "seed"]].to_records(index=False).tolist()
    assert sorted(ran) == [("engine", "copa", 1), ("engine", "cubic", 1), ("ns3", "cubic", 1)]


def test_cli_refuses_an_ns3_cca_in_one_line(tmp_path: Path):
    from typer.testing import CliRunner

    from cellcc.cli.main import app

    path = tmp_path / "bad.json"
    path.write_text(json.dumps(two_hosts(cca="copa")))
    r = CliRunner().invoke(app, ["run", str(path), "--backend", "ns3"])
    assert r.exit_code == 2
    assert "flows[0].cca" in r.output and "(ns3 backend)" in r.output


def test_a_failed_driver_compile_is_one_line_naming_its_log(tmp_path, monkeypatch):
    from cellcc.backends.ns3 import build

    if WHY_NOT is not None:
        pytest.skip(WHY_NOT)
    broken = tmp_path / "broken.cc"
    broken.write_text("int main() { return undeclared; }\n")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(build, "DRIVER_SOURCES", (broken,))
    with pytest.raises(build.DriverUnavailable) as e:
        build.driver_binary()
    assert "\n" not in str(e.value) and "see " in str(e.value)
    assert Path(str(e.value).rsplit("see ", 1)[1]).read_text()


@needs_ns3
def test_cli_crosscheck_max_seeds_stops_where_both_sides_are_settled(tmp_path: Path):
    from typer.testing import CliRunner

    from cellcc.cli.main import app

    path = tmp_path / "short.json"
    path.write_text(json.dumps(two_hosts(duration_s=2)))
    runs = tmp_path / "runs.csv"
    args = ["crosscheck", str(path), "--against", "ns3", "--cca", "cubic", "--seeds", "2", "--max-seeds", "4"]
    r = CliRunner().invoke(app, [*args, "--figure", str(tmp_path / "xc.png"), "--out", str(runs)])
    assert r.exit_code == 0, r.output
    # Both sides repeat themselves on this loss-free wired path: nothing for more seeds to settle.
    assert "mean over 2 seed(s)" in r.output and "95% CI ± engine / ns3" in r.output
    ran = pd.read_csv(runs)[["backend", "seed"]].to_records(index=False).tolist()
    assert sorted(ran) == [("engine", 1), ("engine", 2), ("ns3", 1), ("ns3", 2)]


@needs_ns3
def test_under_the_ns3_tcp_profile_newreno_leaves_slow_start_where_ns3_does():
    # The 1-BDP dumbbell of docs/ns3.md, 1 s, at ns-3's TCP defaults on both sides. ns-3's
    # TcpNewReno grows one segment per ACK and halves the bytes in flight at the first loss;
    # Linux's rules (the engine's default) grow by the segments acked and halve cwnd, which has
    # run past the 131072-byte window by then.
    import tomllib

    from cellcc import run as engine_run
    from cellcc.backends.crosscheck import with_tcp_profile
    from cellcc.backends.ns3 import run as ns3_run

    examples = Path(__file__).resolve().parents[1] / "examples" / "crosscheck"
    sc = tomllib.loads((examples / "dumbbell-10mbps-40ms-1bdp.toml").read_text())
    sc["duration_s"] = 1
    sc["flows"][0]["cca"] = "newreno"

    def first_cut(out) -> tuple[float, float]:
        cw = out.cwnd
        cut = cw[cw["ssthresh_bytes"] < 2**31].iloc[0]
        return float(cut["t_s"]), float(cut["ssthresh_bytes"]) / 1448

    ns3 = with_tcp_profile(sc, "ns3")
    t_ns3, ss_ns3 = first_cut(ns3_run.run(ns3, base_dir=examples))
    t_eng, ss_eng = first_cut(engine_run(ns3))
    assert abs(t_eng - t_ns3) < 0.01 and abs(ss_eng - ss_ns3) < 1, ((t_eng, ss_eng), (t_ns3, ss_ns3))
    _, ss_linux = first_cut(engine_run(with_tcp_profile(sc, "linux")))
    assert ss_linux > ss_ns3 + 5


def test_a_run_shorter_than_one_slot_gives_an_empty_slot_not_an_error():
    from io import StringIO

    from cellcc.backends.ns3 import run as ns3_run

    # The driver's headers (driver.cc) with no rows: pandas reads their columns as objects.
    header_only = {
        "slots": "idx,t_ns,rx_bytes,rx_packets,delay_sum_ns,lost_packets,app_rx_bytes,retransmits\n",
        "cwnd": "idx,t_ns,cwnd_bytes,ssthresh_bytes,pacing_bps,ca_state\n",
        "rtt": "idx,t_ns,rtt_ns,srtt_ns\n",
    }
    raw = {name: pd.read_csv(StringIO(text)) for name, text in header_only.items()}
    p = ns3_plan.plan(two_hosts(duration_s=0.05))
    ts = ns3_run.timeseries_table(p, raw["slots"], raw["cwnd"], raw["rtt"])
    assert len(ts) == len(p.flows) == 1
    assert ts["throughput_bps"].tolist() == [0.0] and ts["rtt_ms"].isna().all() and ts["cwnd_bytes"].isna().all()
