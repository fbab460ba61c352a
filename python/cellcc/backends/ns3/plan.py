"""What of a cellcc scenario the ns-3 backend can run, as the driver's line-based plan; a clear
one-line refusal (field, value, why) otherwise. Pure: dict in, text out (lte.py reads a SINR CSV
file if the scenario names one).

Mapping (ns-3 3.44):
- nodes -> `Node` with the internet stack; links -> `PointToPointHelper` (rate per direction via
  `PointToPointNetDevice::SetDataRate`, one `PointToPointChannel` Delay for both directions, MTU),
  the device's `DropTailQueue<Packet>` MaxSize in packets or bytes (the default pfifo_fast queue
  disc is uninstalled; a CE-marking queue, `ecn_threshold_packets` K, is a `RedQueueDisc` step in
  front of a one-frame device queue: driver.cc InstallMarkingQueue), Bernoulli loss ->
  `RateErrorModel` (per packet) at the receiving device, `rate_changes` -> scheduled
  `SetDataRate`; routes by `Ipv4GlobalRoutingHelper`, or, with an LTE cell, static routes
  computed here (shortest path in hops, lowest link index first): ns-3's global routing asserts
  on LENA's devices (GlobalRouter::DiscoverLSAs, "unknown link type").
- the LTE cell -> LENA and its EPC: see lte.py; a network of cells with handover: network.py.
- the Wi-Fi BSS -> ns-3's 802.11ac on SpectrumWifiPhy: see wifi.py.
- flows -> the driver's own sender (bulk, finite, rate-limited over TCP; CBR over UDP) and sink;
  CCAs by TypeId (`NS3_CCAS`); TCP options as `TcpSocket`/`TcpSocketBase` attributes.
The engine's defaults are carried over explicitly (segment size, initial window, buffers, min RTO,
delayed ACK), so both sides run the same configuration, not each its own defaults: they are read
from the engine's own resolved view of the scenario (`_core.resolve`, world/resolved.rs), never
copied here. Under `tcp.profile = "ns3"` those resolved values are ns-3's own attribute defaults
(crates/cellcc-engine/src/scenario/tcp_profile.rs), and the engine runs ns-3's variant of every
mechanism it models; under the Linux profile the plan says in its notes what differs.
"""

from __future__ import annotations

import functools
import json
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...scenario import with_absolute_paths
from ..plan import DEFAULT_CCA, DEFAULT_MTU_BYTES, DEFAULT_QUEUE
from .channel import FadingTrace
from .lte import ATTACH_WARMUP_S, as_lena, lte_plan
from .network import network_plan
from .records import NotSupported, record
from .wifi import ASSOC_WARMUP_S, wifi_plan

#: Engine registry name -> ns-3 3.44 congestion control TypeId (src/internet/model/tcp-*.cc).
#: ns-3 3.44 has TcpWestwoodPlus only (original Westwood was removed in ns-3.38), so "westwood"
#: is refused. "reno" is Linux's Reno (tcp_cong.c), which ns-3 ports as TcpLinuxReno.
NS3_CCAS = {
    "newreno": "ns3::TcpNewReno",
    "reno": "ns3::TcpLinuxReno",
    "bic": "ns3::TcpBic",
    "cubic": "ns3::TcpCubic",
    "highspeed": "ns3::TcpHighSpeed",
    "htcp": "ns3::TcpHtcp",
    "hybla": "ns3::TcpHybla",
    "scalable": "ns3::TcpScalable",
    "vegas": "ns3::TcpVegas",
    "veno": "ns3::TcpVeno",
    "westwoodplus": "ns3::TcpWestwoodPlus",
    "illinois": "ns3::TcpIllinois",
    "yeah": "ns3::TcpYeah",
    "ledbat": "ns3::TcpLedbat",
    "lp": "ns3::TcpLp",
    "dctcp": "ns3::TcpDctcp",
    "bbr": "ns3::TcpBbr",
}
#: IPv4 + TCP header bytes, and the timestamps option (RFC 7323), as the engine's default MSS.
IP_TCP_HEADER_BYTES = 40
TIMESTAMP_OPTION_BYTES = 12
#: Engine rate-limited write size default (one 1448-byte segment, as plan.py for Linux).
DEFAULT_WRITE_BYTES = 1448
#: First destination port of the flows (flow i listens on BASE_PORT + i).
BASE_PORT = 5201
#: ns-3.44 caps the doubled RTO at 60 s (`TcpSocketBase::ReTxTimeout`, no attribute sets it): a
#: `max_rto_ms` set to anything else is refused (the ns3 profile resolves it to this).
NS3_MAX_RTO_MS = 60000.0
#: ns-3 computes the RTO one way: RFC 6298 (TcpSocketBase::EstimateRtt, RttMeanDeviation), the
#: engine's `rto_estimator = "rfc6298"`. The engine's default is Linux's estimator.
NS3_RTO_ESTIMATOR = "rfc6298"
RTO_NOTE = (
    "tcp.rto_estimator unset: the engine defaults to Linux's RTO estimator, ns-3 computes RFC 6298's; "
    'set tcp.rto_estimator = "rfc6298" to run both the same way'
)
#: ns-3 paces every packet on its own; the engine, as Linux, lets a paced sender's GSO burst
#: (`tcp_tso_segs`: about 1 ms of data, at least 2 segments) leave back to back.
GSO_NOTE = (
    'tcp.gso_max_segs unset: a paced flow (bbr, or pacing = "on") leaves the engine in Linux\'s GSO bursts '
    "(about 1 ms of data per pacing release, at least 2 segments), ns-3 paces each packet; "
    "set tcp.gso_max_segs = 1 to run both the same way"
)
#: ns-3 runs its own TCP whatever the engine's profile; said when a flow runs the Linux profile.
PROFILE_NOTE = (
    "tcp.profile is linux: the engine runs Linux's TCP (RACK-TLP, F-RTO, undo, Linux PRR, quick-ACK, "
    'the autotuned window and send buffer), ns-3 its own; set tcp.profile = "ns3" to run ns-3\'s on the '
    'engine too (docs/tcp.md, "The ns-3 profile")'
)
#: Said when a queue CE-marks (queue.ecn_threshold_packets): how ns-3 realises it, and what it does not count.
MARKING_NOTE = (
    "a CE-marking queue runs as ns-3's RedQueueDisc step (MinTh = MaxTh = K - 1 packets behind the "
    "device's one-frame queue, QW 1, ECN, no hard drop); CE marks per flow are not counted (NaN)"
)


@dataclass
class FlowInfo:
    """What the table builder needs of each flow."""

    index: int
    flow_id: str
    src: str
    dst: str
    transport: str
    cca: str
    app: str
    bytes: int | None
    start_s: float
    stop_s: float


@dataclass
class Ns3Plan:
    text: str
    duration_s: float
    slot_ms: float
    seed: int
    flows: list[FlowInfo]
    #: "<link id>:forward|reverse" of each (link index, direction index 0 = a->b).
    link_names: dict[tuple[int, int], str]
    #: What the scenario asks that ns-3 models its own way (said to the user, in the summary).
    notes: list[str] = field(default_factory=list)
    #: The LTE cell's id and its UEs' node ids in plan order (the driver numbers UEs 0..n-1).
    cell_id: str | None = None
    ue_ids: list[str] = field(default_factory=list)
    #: The fading trace the driver reads (a cell channel with fast fading): run.py writes it.
    fading: FadingTrace | None = None
    #: Per UE (as `ue_ids`), the cell it starts in (a network's UEs are in several), and every
    #: cell's id in plan order (the driver's cell indices).
    ue_cells: list[str] = field(default_factory=list)
    cell_ids: list[str] = field(default_factory=list)
    #: The BSS's id and its stations' node ids in plan order (the driver numbers them 1..n).
    bss_id: str | None = None
    sta_ids: list[str] = field(default_factory=list)


def _set(d: dict | None) -> dict:
    return {k: v for k, v in (d or {}).items() if v is not None}


def _flow_tcp(sc: dict, f: dict) -> dict:
    """The `tcp` fields set for flow `f`: the scenario's, overridden by the flow's own."""
    return {**_set(sc.get("tcp")), **_set(f.get("tcp"))}


def _queue_size(q: dict | None, path: str) -> str:
    q = _set(q) or {"kind": "drop_tail", **DEFAULT_QUEUE}
    if q.get("limit_bytes") is not None:
        return f"{int(q['limit_bytes'])}B"
    return f"{int(q.get('limit_packets', DEFAULT_QUEUE['limit_packets']))}p"


#: The smallest step-marking threshold RED can realise: RedQueueDisc::DoEnqueue marks only with
#: more than one packet in the disc, which holds the packets behind the device queue's one.
MIN_ECN_THRESHOLD_PACKETS = 3


def _ecn_k(q: dict | None, path: str) -> int:
    """The step-marking threshold K (packets; 0 = the queue does not mark). ns-3 marks only in a
    queue disc: driver.cc InstallMarkingQueue maps K to a RedQueueDisc step at K - 1."""
    k = _set(q).get("ecn_threshold_packets")
    if k is None:
        return 0
    if k < MIN_ECN_THRESHOLD_PACKETS:
        raise NotSupported(
            f"{path}.queue.ecn_threshold_packets",
            k,
            f">= {MIN_ECN_THRESHOLD_PACKETS} packets (RedQueueDisc marks only with more than one packet in the disc)",
        )
    return int(k)


def _direction(link: dict, name: str) -> dict:
    over = _set(link.get(name))
    base = _set(link)
    return {k: over.get(k, base.get(k)) for k in ("rate_mbps", "delay_ms", "queue", "loss", "trace", "rate_changes")}


def _loss_p(loss: dict | None, path: str) -> float:
    loss = _set(loss) or {"kind": "none"}
    if loss["kind"] == "none":
        return 0.0
    if loss["kind"] == "bernoulli":
        return float(loss["p"])
    raise NotSupported(
        f"{path}.loss.kind", loss["kind"], '"none" or "bernoulli" (ns-3 has no Gilbert-Elliott error model)'
    )


def _link_lines(i: int, link: dict, node_index: dict[str, int]) -> list[str]:
    path = f"links[{i}]"
    fwd, rev = _direction(link, "forward"), _direction(link, "reverse")
    for d, name in ((fwd, "forward"), (rev, "reverse")):
        if d["trace"]:
            raise NotSupported(f"{path}.{name}.trace", d["trace"], "none (ns-3 has no Mahimahi trace link)")
        if d["rate_mbps"] is None:
            raise NotSupported(f"{path}.{name}.rate_mbps", None, "a rate in Mbit/s")
    if (fwd["delay_ms"] or 0.0) != (rev["delay_ms"] or 0.0):
        raise NotSupported(
            f"{path}.reverse.delay_ms",
            rev["delay_ms"],
            f"{fwd['delay_ms']} (ns-3's PointToPointChannel has one delay for both directions)",
        )
    fields = {
        "idx": i,
        "a": node_index[link["a"]],
        "b": node_index[link["b"]],
        "mtu": int(link.get("mtu_bytes") or DEFAULT_MTU_BYTES),
        "delay_s": (fwd["delay_ms"] or 0.0) / 1e3,
    }
    lines = []
    for d, tag, name in ((fwd, "ab", "forward"), (rev, "ba", "reverse")):
        fields[f"rate_{tag}_bps"] = float(d["rate_mbps"]) * 1e6
        fields[f"q_{tag}"] = _queue_size(d["queue"], f"{path}.{name}")
        fields[f"ecn_k_{tag}"] = _ecn_k(d["queue"], f"{path}.{name}")
        fields[f"loss_{tag}"] = _loss_p(d["loss"], f"{path}.{name}")
        for change in d["rate_changes"] or []:
            lines.append(
                record("change", link=i, dir=tag, at_s=float(change["at_s"]), rate_bps=change["rate_mbps"] * 1e6)
            )
    return [record("link", **fields), *lines]


#: The share of receive memory a full-MTU segment's window gets in Linux: scaling_ratio 160/256
#: (1448 payload bytes per 2304 bytes of skb truesize; crates/cellcc-engine/src/tcp/rwnd.rs).
LINUX_WINDOW_PER_BUFFER = 160 / 256


def _ns3_rcvbuf(v: dict) -> int:
    """ns-3's TcpSocket::RcvBufSize for the engine's receive window (`v`: the flow's resolved
    `tcp`). ns-3 has no autotuning and offers its free buffer as the window: under the engine's
    ns-3 window (`receive_window = "ns3"`) that is `rcv_buf_bytes` itself; under Linux's, with
    tcp_moderate_rcvbuf the buffer Linux may grow to, tcp_rmem[2], without it the window Linux
    offers from tcp_rmem[1]."""
    if v["receive_window"] == "ns3":
        return int(v["rcv_buf_bytes"])
    _, default, hi = v["tcp_rmem"]
    if not v["tcp_moderate_rcvbuf"]:
        return int(default * LINUX_WINDOW_PER_BUFFER)
    return int(hi)


def resolved_view(sc: dict, base_dir: Path) -> dict:
    """The scenario with every default the engine uses filled in (`cellcc validate --json`);
    relative file paths are read from `base_dir`, as the plan reads them."""
    from cellcc import _core

    return json.loads(_core.resolve(json.dumps(with_absolute_paths(sc, base_dir))))


def _tcp_fields(sc: dict, i: int, cca: str, mtu: int, v: dict) -> dict:
    """The `flow` record's TCP fields; `v` is the flow's resolved `tcp` (the engine's values)."""
    t = _flow_tcp(sc, sc["flows"][i])
    if t.get("max_rto_ms", NS3_MAX_RTO_MS) != NS3_MAX_RTO_MS:
        raise NotSupported(
            f"flows[{i}].tcp.max_rto_ms",
            t["max_rto_ms"],
            f"unset or {NS3_MAX_RTO_MS:g} (ns-3 caps the doubled RTO at 60 s in ReTxTimeout; no attribute sets it)",
        )
    if t.get("rto_estimator", NS3_RTO_ESTIMATOR) != NS3_RTO_ESTIMATOR:
        raise NotSupported(
            f"flows[{i}].tcp.rto_estimator", t["rto_estimator"], '"rfc6298" (ns-3 computes the RTO only that way)'
        )
    pacing = t.get("pacing", "auto")
    if pacing == "off" and cca == "bbr":
        raise NotSupported(f"flows[{i}].tcp.pacing", "off", '"auto" or "on" with bbr (ns-3 TcpBbr forces pacing)')
    mss = t.get("mss_bytes") or mtu - IP_TCP_HEADER_BYTES - (TIMESTAMP_OPTION_BYTES if v["timestamps"] else 0)
    return {
        "mss": int(mss),
        "sack": bool(v["sack"]),
        "timestamps": bool(v["timestamps"]),
        "min_rto_s": float(v["min_rto_ms"]) / 1e3,
        "conn_timeout_s": float(v["initial_rto_ms"]) / 1e3,
        "delack_count": int(v["delayed_ack_count"]),
        "delack_timeout_s": float(v["delayed_ack_timeout_ms"]) / 1e3,
        "init_cwnd": int(v["initial_cwnd_segs"]),
        "rcvbuf": _ns3_rcvbuf(v),
        # ns-3 has no send-buffer autotuning: a fixed buffer, the most Linux grows to (tcp_wmem[2]).
        "sndbuf": int(v["snd_buf_bytes"]),
        "dupack_threshold": int(v["dupack_threshold"]),
        "syn_retries": int(v["syn_retries"]),
        "pacing": pacing == "on",
        "ecn": bool(v["ecn"]),
    }


def _flow(sc: dict, i: int, node_index: dict[str, int], mtu: int, resolved: Callable[[], dict]) -> tuple[str, FlowInfo]:
    f = sc["flows"][i]
    p = f"flows[{i}]"
    transport = f.get("transport") or "tcp"
    app = f["app"]
    kind = app["kind"]
    if (transport == "udp") != (kind == "cbr"):
        raise NotSupported(f"{p}.app.kind", kind, "cbr over udp; bulk, finite or rate_limited over tcp")
    cca = f.get("cca") or DEFAULT_CCA
    if transport == "tcp" and cca not in NS3_CCAS:
        raise NotSupported(f"{p}.cca", cca, f"one ns-3 3.44 has: {', '.join(NS3_CCAS)}")
    if f.get("cca_params"):
        raise NotSupported(f"{p}.cca_params", f["cca_params"], "none (the ns-3 backend runs ns-3's defaults)")
    duration = float(sc["duration_s"])
    stop = min(float(f["stop_s"]), duration) if f.get("stop_s") is not None else duration
    fields = {
        "idx": i,
        "src": node_index[f["src"]],
        "dst": node_index[f["dst"]],
        "transport": transport,
        "app": kind,
        "bytes": int(app.get("bytes") or 0),
        "rate_bps": float(app.get("rate_mbps") or 0.0) * 1e6,
        "write_bytes": int(app.get("packet_bytes") if kind == "cbr" else app.get("write_bytes") or DEFAULT_WRITE_BYTES),
        "start_s": float(f.get("start_s") or 0.0),
        "stop_s": stop,
        "port": BASE_PORT + i,
    }
    if transport == "tcp":
        fields["cca"] = NS3_CCAS[cca]
        fields.update(_tcp_fields(sc, i, cca, mtu, resolved()["flows"][i]["tcp"]))
        if kind == "rate_limited" and not app.get("write_bytes"):
            # The engine writes one MSS per tick when no size is given (app/mod.rs from_spec).
            fields["write_bytes"] = fields["mss"]
    info = FlowInfo(
        index=i,
        flow_id=f.get("id") or f"flow{i}",
        src=f["src"],
        dst=f["dst"],
        transport=transport,
        cca=cca if transport == "tcp" else "",
        app=kind,
        bytes=app.get("bytes"),
        start_s=fields["start_s"],
        stop_s=stop,
    )
    return record("flow", **fields), info


def _static_routes(sc: dict, links: list[int], node_index: dict[str, int], pgw: str) -> list[str]:
    """`route` records: for every wired node, the next-hop link to every link subnet it is not on,
    and to the UEs' network (towards the PGW; the PGW itself reaches them through the EPC)."""
    adj: dict[str, list[tuple[int, str]]] = {n: [] for n in node_index}
    for i in links:
        a, b = sc["links"][i]["a"], sc["links"][i]["b"]
        adj[a].append((i, b))
        adj[b].append((i, a))
    out = []
    for src in sorted({n for i in links for n in (sc["links"][i]["a"], sc["links"][i]["b"])}, key=node_index.get):
        first_hop = _first_hops(adj, src)
        for i in links:
            ends = (sc["links"][i]["a"], sc["links"][i]["b"])
            if src not in ends and ends[0] in first_hop:
                out.append(record("route", node=node_index[src], net=f"link{i}", via_link=first_hop[ends[0]]))
        if src != pgw and pgw in first_hop:
            out.append(record("route", node=node_index[src], net="ue", via_link=first_hop[pgw]))
    return out


def _first_hops(adj: dict[str, list[tuple[int, str]]], src: str) -> dict[str, int]:
    """Breadth-first from `src`: the link leaving `src` on a shortest path to each node."""
    first: dict[str, int] = {}
    seen, todo = {src}, deque([(src, -1)])
    while todo:
        node, hop = todo.popleft()
        for link, peer in sorted(adj[node]):
            if peer not in seen:
                seen.add(peer)
                first[peer] = link if hop < 0 else hop
                todo.append((peer, first[peer]))
    return first


def _node_lines(sc: dict, roles: dict[str, str]) -> list[str]:
    for i, n in enumerate(sc["nodes"]):
        if n["kind"] not in ("host", "router") and n["id"] not in roles:
            why = '"host" or "router", an eNB/UE of a cell or an AP/station'
            raise NotSupported(f"nodes[{i}].kind", n["kind"], why)
    return [record("node", idx=k, role=roles.get(n["id"], "plain")) for k, n in enumerate(sc["nodes"])]


def plan(sc: dict, seed: int | None = None, base_dir: Path | None = None, replay_fading: bool = False) -> Ns3Plan:
    """The driver plan of a (structurally valid, engine-canonical) scenario dict, or NotSupported.
    `base_dir` resolves a relative SINR CSV path (default: the working directory); `replay_fading`
    lays the fading trace out for the diagnostic `fading=replay` (channel.py `_fading`)."""
    if sc.get("output", {}).get("pcap"):
        raise NotSupported("output.pcap", sc["output"]["pcap"], "[] (the ns-3 backend writes no pcap)")
    if sc.get("nr_cells"):
        why = "[] (the ns-3 backend builds LENA LTE cells; 5G-LENA is not wired in, use the engine)"
        raise NotSupported("nr_cells", f"{len(sc['nr_cells'])} NR cell(s)", why)
    sc, profile_notes = as_lena(sc)
    duration = float(sc["duration_s"])
    if not math.isfinite(duration) or duration <= 0:
        raise NotSupported("duration_s", duration, "seconds > 0")
    node_index = {n["id"]: k for k, n in enumerate(sc["nodes"])}
    # Resolved on first use: a field ns-3 refuses is reported before anything the engine checks.
    base_dir = base_dir or Path.cwd()
    resolved = functools.cache(lambda: resolved_view(sc, base_dir))
    if sc.get("cells") and sc.get("bsses"):
        raise NotSupported("bsses", f"{len(sc['bsses'])} BSS(es)", "none beside an LTE cell (one medium per ns-3 plan)")
    if sc.get("network"):
        cell = network_plan(sc, resolved, node_index)
    else:
        cell = lte_plan(sc, resolved, node_index, base_dir, replay_fading) if sc.get("cells") else None
    bss = wifi_plan(sc, node_index) if sc.get("bsses") else None
    roles = cell.roles if cell else {}
    if bss:
        b = sc["bsses"][0]
        roles = {b["ap"]: "plain", **{s["node"]: "plain" for s in b["stations"]}}
    seed = int(seed if seed is not None else sc.get("seed", 1))
    slot_ms = float(sc.get("output", {}).get("slot_ms", 100.0))
    t0_s = ATTACH_WARMUP_S if cell else ASSOC_WARMUP_S if bss else 0.0
    lines = [
        "# cellcc ns-3 plan v1",
        record("run", duration_s=duration, seed=seed, slot_s=slot_ms / 1e3, t0_s=t0_s),
        *_node_lines(sc, roles),
        *(cell.lines if cell else []),
        *(bss.lines if bss else []),
    ]
    names = {}
    wired = [i for i in range(len(sc["links"])) if not cell or i not in cell.s1u_links]
    for i in wired:
        link = sc["links"][i]
        lines += _link_lines(i, link, node_index)
        names[(i, 0)], names[(i, 1)] = f"{link['id']}:forward", f"{link['id']}:reverse"
    if cell:
        pgw = next(n for n, r in roles.items() if r == "pgw")
        lines += _static_routes(sc, wired, node_index, pgw)
    mtus = [int(sc["links"][i].get("mtu_bytes") or DEFAULT_MTU_BYTES) for i in wired]
    media = [*([cell.mtu_bytes] if cell else []), *([bss.mtu_bytes] if bss else [])]
    mtu = min([*mtus, *media], default=DEFAULT_MTU_BYTES)
    flows = []
    for i in range(len(sc["flows"])):
        line, info = _flow(sc, i, node_index, mtu, resolved)
        lines.append(line)
        flows.append(info)
    text = "\n".join(lines) + "\n"
    notes = [*profile_notes, *(cell.notes if cell else []), *(bss.notes if bss else []), *_tcp_notes(sc, resolved)]
    link_fields = [ln.split() for ln in lines if ln.startswith("link ")]
    if any(f"ecn_k_{d}=0" not in words for words in link_fields for d in ("ab", "ba")):
        notes.append(MARKING_NOTE)
    if bss:
        return Ns3Plan(text, duration, slot_ms, seed, flows, names, notes, bss_id=bss.bss_id, sta_ids=bss.sta_ids)
    if not cell:
        return Ns3Plan(text, duration, slot_ms, seed, flows, names, notes)
    c = sc["cells"][0]
    ue_ids = [u["node"] for each in sc["cells"] for u in each["ues"]]
    ue_cells = [each["id"] for each in sc["cells"] for _ in each["ues"]]
    cell_ids = [each["id"] for each in sc["cells"]]
    return Ns3Plan(text, duration, slot_ms, seed, flows, names, notes, c["id"], ue_ids, cell.fading, ue_cells, cell_ids)


def _tcp_notes(sc: dict, resolved: Callable[[], dict]) -> list[str]:
    """What the engine's TCP runs its own way, from each TCP flow's resolved `tcp`: Linux's RTO
    estimator, a paced flow's Linux GSO bursts, and the Linux profile's mechanisms."""
    tcp = [i for i, f in enumerate(sc["flows"]) if (f.get("transport") or "tcp") == "tcp"]
    flows = [(sc["flows"][i], resolved()["flows"][i]["tcp"]) for i in tcp]
    notes = []
    if any(v["rto_estimator"] != NS3_RTO_ESTIMATOR for _, v in flows):
        notes.append(RTO_NOTE)
    if any((f.get("cca") == "bbr" or v["pacing"] == "on") and v["gso_max_segs"] != 1 for f, v in flows):
        notes.append(GSO_NOTE)
    if any(v["profile"] == "linux" for _, v in flows):
        notes.append(PROFILE_NOTE)
    return notes
