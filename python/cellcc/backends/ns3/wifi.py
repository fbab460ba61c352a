"""The Wi-Fi part of the ns-3 plan: a cellcc BSS (scenario `bsses`, node kinds `ap`/`sta`) as an
ns-3 3.44 802.11ac BSS (src/wifi). Pure: dict in, plan records out.

Mapping (ns-3 3.44):
- PHY: `SpectrumWifiPhy` on a `MultiModelSpectrumChannel`, as seed 000 ran it (its Table 3: "Wi-Fi
  type SpectrumWifiPhy"); `ChannelSettings` `{0, width, BAND_5GHZ, 0}` (the default channel of that
  width: 36 / 38 / 42 / 50, the engine's carriers); `TxPowerStart`/`TxPowerEnd`, `RxNoiseFigure`;
  `Antennas`, `MaxSupportedTx/RxSpatialStreams` per device from its streams; short GI and LDPC by
  `HtConfiguration`. Both ends of the error model are ns-3's own `TableBasedErrorRateModel` data.
- channel: `LogDistancePropagationLossModel` (`Exponent`, `ReferenceDistance`, `ReferenceLoss`) or
  `FriisPropagationLossModel`, `ConstantSpeedPropagationDelayModel`; positions by
  `ConstantPositionMobilityModel` (x, y, height).
- MAC: `WifiHelper` 802.11ac, `ApWifiMac` / `StaWifiMac` (SSID "cellcc", no active probing),
  `BE_MaxAmpduSize`, `WifiMacQueue::MaxSize` (packets) and `MaxDelay` (the MSDU lifetime),
  `WifiRemoteStationManager::RtsCtsThreshold`; each AC's TXOP limit, AIFSN and CW set on every
  device's `QosTxop` to the scenario's values (the engine's defaults written out: the standard's
  2.528 ms BE TXOP is not ns-3's 0).
- rate control: `ConstantRateWifiManager` (`DataMode` `VhtMcs<n>`, `ControlMode` `OfdmRate6Mbps`,
  the engine's RTS rate), `IdealWifiManager`, `MinstrelHtWifiManager`.
- the devices' default queue discs (an mq of FqCoDel that `Ipv4AddressHelper` installs) are
  removed: the engine's BSS has the MAC queue only, as its links have their device queues only.
- stations associate (beacons, association exchange) during a warm-up before the scenario's t = 0.

Refused: more than one BSS, mobility other than static, shadowing, path-loss models other than
log-distance and Friis, an access category other than best effort (the driver's sockets set no
priority).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .records import NotSupported, record

#: Association (beacons every 102.4 ms, ns-3 ApWifiMac::BeaconInterval; association request and
#: response) completes within a few beacon intervals; one second of warm-up leaves margin.
ASSOC_WARMUP_S = 1.0
#: The engine's MSDU lifetime defaults (scenario/wifi.rs): 500 TU, or ns-3's 500 ms.
STANDARD_LIFETIME_MS = 512.0
NS3_LIFETIME_MS = 500.0
#: IEEE 802.11-2020 Table 9-155 defaults (scenario/wifi.rs AcParams::standard; ns3 profile: BE, BK TXOP 0).
STANDARD_EDCA = {
    "bk": {"aifsn": 7, "cw_min": 15, "cw_max": 1023, "txop_limit_us": 2528},
    "be": {"aifsn": 3, "cw_min": 15, "cw_max": 1023, "txop_limit_us": 2528},
    "vi": {"aifsn": 2, "cw_min": 7, "cw_max": 15, "txop_limit_us": 4096},
    "vo": {"aifsn": 2, "cw_min": 3, "cw_max": 7, "txop_limit_us": 2080},
}
MANAGERS = {"constant": "ns3::ConstantRateWifiManager", "ideal": "ns3::IdealWifiManager"}
MANAGERS["minstrel_ht"] = "ns3::MinstrelHtWifiManager"
#: What the standard profile asks that ns-3 3.44 does its own way (said in the run's notes).
STANDARD_NOTE = (
    'bsses[0].profile = "standard": ns-3 3.44 leaves VHT-SIG-B (4 us) out of SU PPDUs and picks a control '
    "response's rate against the data rate, not the non-HT reference rate; the plan sets the standard's EDCA "
    'TXOP limits and lifetime; set profile = "ns3" to run both the same way'
)


@dataclass
class WifiPlan:
    lines: list[str]
    mtu_bytes: int
    bss_id: str
    #: The station node ids in plan order (the driver's `sta` records).
    sta_ids: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _pathloss_fields(b: dict) -> dict:
    pl = b.get("pathloss") or {"model": "log_distance"}
    model = pl["model"]
    if model == "log_distance":
        return {
            "loss": "log_distance",
            "exponent": float(pl.get("exponent", 3.0)),
            "ref_m": float(pl.get("reference_distance_m", 1.0)),
            "ref_db": float(pl.get("reference_loss_db", 46.6777)),
        }
    if model == "friis":
        return {"loss": "friis", "exponent": 2.0, "ref_m": 1.0, "ref_db": 0.0}
    raise NotSupported("bsses[0].pathloss.model", model, '"log_distance" or "friis" (the Wi-Fi mappings written)')


def _position(p: dict, path: str) -> tuple[float, float, float]:
    mobility = (p.get("mobility") or {"kind": "static"})["kind"]
    if mobility != "static":
        raise NotSupported(f"{path}.mobility.kind", mobility, '"static" (the ns-3 BSS places its nodes once)')
    x, y = p["position_m"]
    return float(x), float(y), float(p.get("height_m", 1.5))


def _edca_fields(b: dict) -> dict:
    """Each AC's AIFSN, CWmin, CWmax and TXOP limit as the engine runs them."""
    out = {}
    profile = b.get("profile", "standard")
    for ac, std in STANDARD_EDCA.items():
        v = dict(std)
        if profile == "ns3" and ac in ("be", "bk"):
            v["txop_limit_us"] = 0
        v |= (b.get("edca") or {}).get(ac) or {}
        out |= {f"{ac}_{k}": int(x) for k, x in v.items()}
    return out


def wifi_plan(sc: dict, node_index: dict[str, int]) -> WifiPlan:
    """The `bss` and `sta` records of the scenario's BSS, or NotSupported."""
    bsses = sc["bsses"]
    if len(bsses) != 1:
        raise NotSupported("bsses", f"{len(bsses)} BSSes", "one (the ns-3 plan builds one BSS)")
    b = bsses[0]
    if b.get("shadowing"):
        raise NotSupported("bsses[0].shadowing", b["shadowing"], "none (no shadowing in the ns-3 BSS mapping)")
    for i, f in enumerate(sc["flows"]):
        if f.get("access_category") not in (None, "be"):
            why = '"be" (the sockets set no priority)'
            raise NotSupported(f"flows[{i}].access_category", f["access_category"], why)
    manager = b.get("rate_manager") or {"kind": "minstrel_ht"}
    profile = b.get("profile", "standard")
    lifetime_ms = b.get("msdu_lifetime_ms") or (NS3_LIFETIME_MS if profile == "ns3" else STANDARD_LIFETIME_MS)
    ap = b.get("ap_radio") or {}
    ax, ay, az = _position(ap.get("placement") or {"position_m": [0.0, 0.0]}, "bsses[0].ap_radio.placement")
    fields = {
        "ap": node_index[b["ap"]],
        "width_mhz": int(b.get("channel_width_mhz", 80)),
        "gi_ns": int(b.get("guard_interval_ns", 800)),
        "ldpc": b.get("fec", "bcc") == "ldpc",
        "manager": MANAGERS[manager["kind"]],
        "mcs": int(manager.get("mcs", 0)),
        "rts_bytes": int(b.get("rts_cts_threshold_bytes", 65535)),
        "max_ampdu": int(b.get("max_ampdu_bytes", 65535)),
        "queue": int(b.get("queue_packets", 500)),
        "lifetime_s": float(lifetime_ms) / 1e3,
        "tx_dbm": float(b.get("tx_power_dbm", 16.0206)),
        "nf_db": float(b.get("noise_figure_db", 7.0)),
        **_pathloss_fields(b),
        "x": ax,
        "y": ay,
        "z": az,
        "nss": int(ap.get("spatial_streams", 1)),
        **_edca_fields(b),
    }
    lines = [record("bss", **fields)]
    for j, s in enumerate(b["stations"]):
        x, y, z = _position(s["placement"], f"bsses[0].stations[{j}].placement")
        lines.append(record("sta", node=node_index[s["node"]], x=x, y=y, z=z, nss=int(s.get("spatial_streams", 1))))
    notes = [STANDARD_NOTE] if profile == "standard" else []
    return WifiPlan(lines, int(b.get("mtu_bytes", 1500)), b["id"], [s["node"] for s in b["stations"]], notes)
