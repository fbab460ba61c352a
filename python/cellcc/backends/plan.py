"""What of a cellcc scenario the Linux backend can run, as a `RunPlan`; a clear refusal otherwise.

The accepted subset: exactly two hosts joined by a chain of links (routers in between are
fine). The chain collapses per direction into one emulated path: the one-way delays add up; the
bottleneck is the trace link (at most one) or else the slowest link, and brings its queue;
every other link must be at least `NON_BOTTLENECK_FACTOR` times faster (otherwise there would
be two bottlenecks, which one emulator stage cannot reproduce); Bernoulli losses combine as
1 - prod(1 - p). Flows are TCP (bulk, finite, rate-limited) between the two hosts, in either
direction, with a congestion control the running kernel offers. Pure: nothing here touches the
system except reading the kernel's list of congestion controls.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

#: A non-bottleneck link must be this much faster than the bottleneck: then its queue stays
#: (nearly) empty and only its delay matters.
NON_BOTTLENECK_FACTOR = 2.0
#: Engine defaults (crates/cellcc-engine/src/scenario/mod.rs): queue "100p", MTU 1500, cca newreno.
DEFAULT_QUEUE = {"limit_packets": 100}
DEFAULT_MTU_BYTES = 1500
DEFAULT_CCA = "newreno"
#: Engine name -> Linux module name where they differ. Linux "reno" is Reno's window growth with
#: the stack's NewReno/SACK loss recovery (net/ipv4/tcp_input.c), i.e. what ns-3 calls NewReno.
KERNEL_CCA_NAMES = {"newreno": "reno"}
AVAILABLE_CCA_PATH = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
#: First TCP port of the flows (flow i listens on BASE_PORT + i).
BASE_PORT = 5201
#: IPv4 (20) + TCP (20) header bytes, plus the timestamps option (12, RFC 7323) when on.
IP_TCP_HEADER_BYTES = 40
TIMESTAMP_OPTION_BYTES = 12
#: TCP settings whose engine defaults are Linux's own (tcp.rs cites them): anything else cannot be
#: set per connection on Linux, so it is refused.
LINUX_FIXED = {
    "initial_rto_ms": 1000.0,
    "delayed_ack_count": 2,
    "delayed_ack_timeout_ms": 40.0,
}
#: The engine's profile and the mechanisms it has in a Linux and an ns-3 variant
#: (crates/cellcc-engine/src/scenario/tcp_profile.rs): the kernel runs only Linux's.
LINUX_MECHANISMS = {
    "profile": "linux",
    "reno_rules": "linux",
    "fast_recovery": "linux",
    "undo": True,
    "rto_timer": "linux",
    "rtt_sampling": "linux",
    "cc_rtt": "sample",
    "rate_sample": "linux",
    "ack_policy": "linux",
    "receive_window": "linux",
    "send_buffer": "linux",
}


class NotSupported(ValueError):
    """The scenario uses something the Linux backend cannot run; names the field and why."""

    def __init__(self, path: str, value: object, why: str):
        super().__init__(f"the linux backend cannot run this scenario: {path} = {value!r}: {why}")
        self.path, self.value, self.why = path, value, why


@dataclass
class PathDirection:
    """One direction of the collapsed path, as the emulator takes it."""

    delay_ms: float
    rate_mbps: float | None
    trace: str | None
    queue: dict | None
    loss_p: float
    #: Name of the bottleneck link direction in output tables ("<link id>:forward|reverse").
    name: str

    def emu_config(self) -> dict:
        return {
            "delay_ms": self.delay_ms,
            "rate_mbps": self.rate_mbps,
            "trace": self.trace,
            "queue": self.queue,
            "loss_p": self.loss_p,
        }


@dataclass
class FlowPlan:
    index: int
    flow_id: str
    src: str
    dst: str
    #: Data travels the path's forward direction (from host `a` to host `b` of the plan).
    forward: bool
    cca: str
    cca_kernel: str
    app: str
    bytes: int | None
    rate_bps: float | None
    write_bytes: int | None
    start_s: float
    stop_s: float
    port: int
    mss_bytes: int | None


@dataclass
class RunPlan:
    a_host: str
    b_host: str
    duration_s: float
    seed: int
    slot_ms: float
    mtu_bytes: int
    forward: PathDirection
    reverse: PathDirection
    flows: list[FlowPlan]
    #: net.ipv4 sysctls set in both end namespaces.
    sysctls: dict[str, str] = field(default_factory=dict)
    #: `ip route` attributes of each end's route to the other (initcwnd, rto_min).
    route_attrs: list[str] = field(default_factory=list)
    fq_pacing: bool = False
    #: Each end device's `gso_max_segs` (`tcp.gso_max_segs`); None keeps the device's default.
    gso_max_segs: int | None = None
    header_bytes: int = IP_TCP_HEADER_BYTES + TIMESTAMP_OPTION_BYTES


def kernel_ccas() -> list[str]:
    try:
        return AVAILABLE_CCA_PATH.read_text().split()
    except OSError:
        return []


def ensure_kernel_cca(name: str, path: str) -> None:
    """Refuse a congestion control the running kernel cannot give, after trying to load its module."""
    if name in kernel_ccas():
        return
    modprobe = shutil.which("modprobe")
    if modprobe:
        subprocess.run([modprobe, f"tcp_{name}"], capture_output=True)
    available = kernel_ccas()
    if name not in available:
        tried = f"modprobe tcp_{name} did not load it" if modprobe else "no modprobe here to load it"
        raise NotSupported(
            path, name, f"the running kernel offers {', '.join(available) or 'none'} ({AVAILABLE_CCA_PATH}); {tried}"
        )


def _set(d: dict | None) -> dict:
    """The fields a (possibly canonical, None-filled) table actually sets."""
    return {k: v for k, v in (d or {}).items() if v is not None}


def _direction(link: dict, over: dict) -> dict:
    """A link direction's settings: its override, else the link's own (validate.rs LinkSpec::direction)."""
    link, over = _set(link), _set(over)
    return {
        "rate_mbps": over.get("rate_mbps", None if over.get("trace") else link.get("rate_mbps")),
        "delay_ms": over.get("delay_ms", link.get("delay_ms")),
        "queue": over.get("queue", link.get("queue")),
        "loss": over.get("loss", link.get("loss")),
        "trace": over.get("trace", None if over.get("rate_mbps") is not None else link.get("trace")),
        "rate_changes": over.get("rate_changes", link.get("rate_changes")),
    }


def _chain(sc: dict) -> tuple[str, str, list[tuple[int, bool]]]:
    """The two hosts (a = first flow's source) and the links from a to b as (index, traversed a->b)."""
    hosts = [n["id"] for n in sc["nodes"] if n["kind"] == "host"]
    if len(hosts) != 2:
        raise NotSupported("nodes", hosts, "exactly two hosts (one sender side, one receiver side)")
    a = sc["flows"][0]["src"]
    b = hosts[1] if hosts[0] == a else hosts[0]
    path, node, used = [], a, set()
    while node != b:
        nxt = [
            (i, link["a"] == node)
            for i, link in enumerate(sc["links"])
            if i not in used and node in (link["a"], link["b"])
        ]
        if len(nxt) != 1:
            raise NotSupported(f"links (at node {node!r})", len(nxt), "a single chain of links between the two hosts")
        i, along = nxt[0]
        used.add(i)
        path.append((i, along))
        node = sc["links"][i]["b" if along else "a"]
    extra = [sc["links"][i]["id"] for i in range(len(sc["links"])) if i not in used]
    if extra:
        raise NotSupported("links", extra, "only the links of the chain between the two hosts")
    return a, b, path


def _trace_mean_mbps(path: Path, mtu: int) -> float:
    times = [int(x) for x in path.read_text().split()]
    return len(times) * mtu * 8 / (times[-1] * 1e3)


def _collapse(sc: dict, chain: list[tuple[int, bool]], a_to_b: bool, base_dir: Path, mtu: int) -> PathDirection:
    parts = []
    for i, along in chain:
        link = sc["links"][i]
        link_dir = "forward" if along == a_to_b else "reverse"
        d = _direction(link, link.get(link_dir) or {})
        parts.append((i, link["id"], link_dir, d))
    for i, _, link_dir, d in parts:
        if d["rate_changes"]:
            raise NotSupported(
                f"links[{i}].{link_dir}.rate_changes",
                d["rate_changes"],
                "none (the emulator's rate is constant; a Mahimahi trace can vary it)",
            )
        if (d["queue"] or {}).get("ecn_threshold_packets") is not None:
            raise NotSupported(
                f"links[{i}].{link_dir}.queue.ecn_threshold_packets",
                d["queue"]["ecn_threshold_packets"],
                "none (the emulator does not CE-mark)",
            )
    traces = [p for p in parts if p[3]["trace"]]
    if len(traces) > 1:
        raise NotSupported(
            f"links[{traces[1][0]}].trace", traces[1][3]["trace"], "at most one trace link per direction"
        )
    if traces:
        bott = traces[0]
        trace_path = Path(bott[3]["trace"])
        trace_path = trace_path if trace_path.is_absolute() else base_dir / trace_path
        if not trace_path.is_file():
            raise NotSupported(f"links[{bott[0]}].trace", str(trace_path), "an existing Mahimahi trace file")
        bott_mbps = _trace_mean_mbps(trace_path, mtu)
    else:
        bott = min(parts, key=lambda p: p[3]["rate_mbps"])
        bott_mbps = bott[3]["rate_mbps"]
    for i, _, link_dir, d in parts:
        if i != bott[0] and d["rate_mbps"] < NON_BOTTLENECK_FACTOR * bott_mbps:
            raise NotSupported(
                f"links[{i}].{link_dir}.rate_mbps",
                d["rate_mbps"],
                f"at least {NON_BOTTLENECK_FACTOR}x the bottleneck's {bott_mbps:.3g} Mbit/s "
                "(one emulated bottleneck per direction)",
            )
    keep = 1.0
    for i, _, link_dir, d in parts:
        loss = d["loss"] or {"kind": "none"}
        if loss["kind"] == "bernoulli":
            keep *= 1 - loss["p"]
        elif loss["kind"] != "none":
            raise NotSupported(f"links[{i}].{link_dir}.loss.kind", loss["kind"], '"none" or "bernoulli"')
    q = bott[3]["queue"] or {"kind": "drop_tail", **DEFAULT_QUEUE}
    queue = {k: v for k, v in q.items() if k in ("limit_packets", "limit_bytes") and v is not None}
    return PathDirection(
        delay_ms=sum(p[3]["delay_ms"] or 0.0 for p in parts),
        rate_mbps=None if traces else bott_mbps,
        trace=str(trace_path) if traces else None,
        queue=queue,
        loss_p=1 - keep,
        name=f"{bott[1]}:{bott[2]}",
    )


#: Linux's default net.ipv4.tcp_rmem (net/ipv4/tcp.c tcp_init), the engine's (scenario/tcp.rs).
LINUX_TCP_RMEM = (4096, 131072, 6291456)


def _socket_buffer(t: dict, key: str, max_key: str, linux: tuple[int, int, int]) -> tuple[int, int, int]:
    """A [min, default, max] buffer sysctl as the engine resolves it (scenario/tcp.rs
    `socket_buffer`): as written, else Linux's with `max_key` as the max (min and default no
    larger than it)."""
    if t.get(key) is not None:
        lo, default, hi = (int(v) for v in t[key])
        return lo, default, hi
    hi = int(t.get(max_key) or linux[2])
    return min(linux[0], hi), min(linux[1], hi), hi


def rmem_of(t: dict) -> tuple[int, int, int]:
    """tcp_rmem as the engine resolves it (`TcpSpec::rmem`), rcv_buf_bytes its other name for the max."""
    return _socket_buffer(t, "tcp_rmem", "rcv_buf_bytes", LINUX_TCP_RMEM)


#: Linux's default net.ipv4.tcp_wmem (net/ipv4/tcp.c tcp_init), the engine's (scenario/tcp.rs).
LINUX_TCP_WMEM = (4096, 16384, 4194304)


def wmem_of(t: dict) -> tuple[int, int, int]:
    """tcp_wmem as the engine resolves it (`TcpSpec::wmem`), snd_buf_bytes its other name for the max."""
    return _socket_buffer(t, "tcp_wmem", "snd_buf_bytes", LINUX_TCP_WMEM)


def _tcp_settings(sc: dict, plan: RunPlan) -> list[int | None]:
    """Apply the TCP table (scenario-wide, flow overrides) to the plan; returns each flow's MSS."""
    merged = [{**_set(sc.get("tcp")), **_set(f.get("tcp"))} for f in sc["flows"]]
    for key in sorted({k for m in merged for k in m}):
        values = {repr(m.get(key)) for m in merged}
        if len(values) > 1 and key != "mss_bytes":
            raise NotSupported(
                f"flows[*].tcp.{key}",
                sorted(values),
                "the same value for every flow (a namespace-wide setting on Linux)",
            )
    t = merged[0]
    for key, linux in LINUX_FIXED.items():
        if t.get(key) is not None and t[key] != linux:
            raise NotSupported(f"tcp.{key}", t[key], f"{linux} (Linux's fixed value; not settable per connection)")
    if t.get("rto_estimator") not in (None, "linux"):
        raise NotSupported("tcp.rto_estimator", t["rto_estimator"], '"linux" (the kernel\'s own estimator)')
    for key, linux in LINUX_MECHANISMS.items():
        if t.get(key) is not None and t[key] != linux:
            raise NotSupported(f"tcp.{key}", t[key], f"{json.dumps(linux)} (the kernel runs Linux's TCP)")
    bool_sysctls = {
        "sack": "net.ipv4.tcp_sack",
        "timestamps": "net.ipv4.tcp_timestamps",
        "ecn": "net.ipv4.tcp_ecn",
        "dsack": "net.ipv4.tcp_dsack",
    }
    for key, name in bool_sysctls.items():
        if t.get(key) is not None:
            plan.sysctls[name] = "1" if t[key] else "0"
    # The engine's [tcp] names follow these sysctls (crates/cellcc-engine/src/scenario/tcp.rs).
    int_sysctls = {
        "dupack_threshold": "net.ipv4.tcp_reordering",
        "syn_retries": "net.ipv4.tcp_syn_retries",
        "recovery": "net.ipv4.tcp_recovery",
        "early_retrans": "net.ipv4.tcp_early_retrans",
        "frto": "net.ipv4.tcp_frto",
        "min_tso_segs": "net.ipv4.tcp_min_tso_segs",
        "comp_sack_nr": "net.ipv4.tcp_comp_sack_nr",
    }
    for key, name in int_sysctls.items():
        if t.get(key) is not None:
            plan.sysctls[name] = str(t[key])
    # The engine's receive window follows these (crates/cellcc-engine/src/tcp/rwnd.rs): tcp_rmem
    # (rcv_buf_bytes is another name for its max), autotuning, and the two sysctls it assumes at
    # their defaults (tcp_app_win 31 reserves 1/2^31 of the buffer; no window shrinking).
    plan.sysctls["net.ipv4.tcp_rmem"] = " ".join(str(int(v)) for v in rmem_of(t))
    moderate = t.get("tcp_moderate_rcvbuf")
    plan.sysctls["net.ipv4.tcp_moderate_rcvbuf"] = "0" if moderate is False else "1"
    plan.sysctls["net.ipv4.tcp_app_win"] = "31"
    plan.sysctls["net.ipv4.tcp_shrink_window"] = "0"
    # The engine's send buffer follows tcp_wmem (crates/cellcc-engine/src/tcp/sndbuf.rs).
    plan.sysctls["net.ipv4.tcp_wmem"] = " ".join(str(int(v)) for v in wmem_of(t))
    # Each run starts clean: no cached ssthresh/RTT from an earlier connection (tcp_metrics.c).
    plan.sysctls["net.ipv4.tcp_no_metrics_save"] = "1"
    if t.get("max_rto_ms") is not None and t["max_rto_ms"] != 120000.0:
        plan.sysctls["net.ipv4.tcp_rto_max_ms"] = str(int(t["max_rto_ms"]))
    if t.get("initial_cwnd_segs") is not None:
        plan.route_attrs += ["initcwnd", str(t["initial_cwnd_segs"])]
    if t.get("min_rto_ms") is not None:
        plan.route_attrs += ["rto_min", f"{round(t['min_rto_ms'])}ms"]
    pacing = t.get("pacing") or "auto"
    if pacing == "off" and any(f.cca_kernel == "bbr" for f in plan.flows):
        raise NotSupported("tcp.pacing", "off", '"auto" or "on" with bbr (Linux BBR always paces)')
    plan.fq_pacing = pacing == "on"
    plan.gso_max_segs = t.get("gso_max_segs")
    if t.get("timestamps") is False:
        plan.header_bytes = IP_TCP_HEADER_BYTES
    return [m.get("mss_bytes") for m in merged]


def maxseg_bytes(p: RunPlan, f: FlowPlan) -> int | None:
    """The TCP_MAXSEG value that makes the kernel carry `tcp.mss_bytes` of payload per segment.

    The engine's mss_bytes is payload. TCP_MAXSEG sets the MSS clamp, from which the kernel
    takes the aligned timestamp option (TCPOLEN_TSTAMP_ALIGNED = 12 bytes) off every segment
    (net/ipv4/tcp_output.c `tcp_current_mss` / `tcp_sync_mss`), so it gets the option bytes on top.
    """
    if not f.mss_bytes:
        return None
    return f.mss_bytes + (p.header_bytes - IP_TCP_HEADER_BYTES)


def _flow(sc: dict, i: int, a: str, b: str) -> FlowPlan:
    f = sc["flows"][i]
    p = f"flows[{i}]"
    if f.get("transport", "tcp") != "tcp":
        raise NotSupported(f"{p}.transport", f["transport"], '"tcp" (UDP CBR is not implemented by the linux backend)')
    if {f["src"], f["dst"]} != {a, b}:
        raise NotSupported(f"{p}.src", f["src"], f"a flow between the two hosts {a!r} and {b!r}")
    if f.get("cca_params"):
        raise NotSupported(
            f"{p}.cca_params", f["cca_params"], "none (kernel module parameters are global, not per flow)"
        )
    cca = f.get("cca") or DEFAULT_CCA
    kernel = KERNEL_CCA_NAMES.get(cca, cca)
    ensure_kernel_cca(kernel, f"{p}.cca")
    app = f["app"]
    duration = float(sc["duration_s"])
    stop = min(float(f["stop_s"]), duration) if f.get("stop_s") is not None else duration
    write_bytes = app.get("write_bytes") if app["kind"] == "rate_limited" else None
    return FlowPlan(
        index=i,
        flow_id=f.get("id") or f"flow{i}",
        src=f["src"],
        dst=f["dst"],
        forward=f["src"] == a,
        cca=cca,
        cca_kernel=kernel,
        app=app["kind"],
        bytes=app.get("bytes"),
        rate_bps=app["rate_mbps"] * 1e6 if app["kind"] == "rate_limited" else None,
        write_bytes=(write_bytes or 1448) if app["kind"] == "rate_limited" else None,
        start_s=float(f.get("start_s") or 0.0),
        stop_s=stop,
        port=BASE_PORT + i,
        mss_bytes=None,
    )


def plan(sc: dict, seed: int | None = None, base_dir: Path | None = None) -> RunPlan:
    """The run plan of a (structurally valid) scenario dict, or NotSupported naming what cannot run."""
    base_dir = base_dir or Path.cwd()
    if sc.get("output", {}).get("pcap"):
        raise NotSupported("output.pcap", sc["output"]["pcap"], "[] (no packet capture in the linux backend)")
    if sc.get("cells"):
        why = "[] (the linux backend runs wired and trace paths; use the engine)"
        raise NotSupported("cells", f"{len(sc['cells'])} LTE cell(s)", why)
    if sc.get("bsses"):
        why = "[] (the linux backend runs wired and trace paths; use the engine or ns-3)"
        raise NotSupported("bsses", f"{len(sc['bsses'])} Wi-Fi BSS(es)", why)
    if sc.get("nr_cells"):
        why = "[] (the linux backend runs wired and trace paths; use the engine)"
        raise NotSupported("nr_cells", f"{len(sc['nr_cells'])} NR cell(s)", why)
    a, b, chain = _chain(sc)
    mtu = min(int(sc["links"][i].get("mtu_bytes", DEFAULT_MTU_BYTES)) for i, _ in chain)
    flows = [_flow(sc, i, a, b) for i in range(len(sc["flows"]))]
    rp = RunPlan(
        a_host=a,
        b_host=b,
        duration_s=float(sc["duration_s"]),
        seed=int(seed if seed is not None else sc.get("seed", 1)),
        slot_ms=float(sc.get("output", {}).get("slot_ms", 100.0)),
        mtu_bytes=mtu,
        forward=_collapse(sc, chain, True, base_dir, mtu),
        reverse=_collapse(sc, chain, False, base_dir, mtu),
        flows=flows,
    )
    for f, mss in zip(flows, _tcp_settings(sc, rp), strict=True):
        f.mss_bytes = mss
    if not math.isfinite(rp.duration_s) or rp.duration_s <= 0:
        raise NotSupported("duration_s", rp.duration_s, "seconds > 0")
    return rp
