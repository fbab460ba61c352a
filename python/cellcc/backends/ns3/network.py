"""The ns-3 plan of a network of cells (scenario `network`, docs/lte/network.md) on LENA: every
cell's eNB on one LteHelper and EPC, X2 between each pair, handover by event A3. Pure: dict in,
plan records out.

Mapping (ns-3 3.44, src/lte):
- each cell -> one eNB (`LteHelper::InstallEnbDevice`, the antenna's `Orientation` its site's), at
  its `site.position_m`; every
  S1-U link is the EPC's (`PointToPointEpcHelper` gives each eNB one of the same rate, delay and
  MTU, so they must agree); `LteHelper::AddX2Interface` over all eNBs (X2 link of 10 Gbit/s and
  no delay, NoBackhaulEpcHelper `X2LinkDataRate`/`X2LinkDelay` defaults).
- `network.channel` -> the channel records of a cell's channel (channel.py: path loss, powers,
  noise figures, carriers, UE placement and mobility), every UE attached to the eNB of the cell
  that lists it (`LteHelper::Attach`, ideal RRC during the warm-up).
- `network.handover` -> `A3RsrpHandoverAlgorithm` (`Hysteresis`, `TimeToTrigger`); LENA's UE
  filters RSRP with `LteEnbRrc::RsrpFilterCoefficient` (fc4) over the layer 1 samples of
  `LteUePhy::UeMeasurementsFilterPeriod` (200 ms), forwards seamlessly, and prepares and completes
  the handover in its own time (ideal RRC, X2 over its link, non-contention random access).
- traces: handovers.csv (each measurement report at the serving eNB, each handover command and
  completion at the UE) and measurements.csv (every layer 1 RSRP sample): `run.py` makes the
  `handovers` table and the measurement trace a crosscheck hands the engine
  (`network.handover.measurements = { kind = "csv" }`).

Fast fading: LENA replays one trace of the engine's fading at a random offset per link (the
cell channel's multi-UE mapping, channel.py). Refused (no LENA counterpart): hexagonal layouts
and interferer-only sites (LENA cells need UEs of their own to load them), cells that differ in
anything but their id, eNB, site and UEs, and sites that differ from the network's eNB but in
their antenna's orientation (the helper sets one configuration), an A3 offset (LENA's event
has none), another filter coefficient or measurement period, forwarding other than seamless,
a disabled handover or a measurement trace as input.
"""

from __future__ import annotations

from collections.abc import Callable

from .channel import channel_plan, ue_placement_lines
from .lte import (
    ATTACH_WARMUP_S,
    BANDWIDTH_RBS,
    LENA_BANDWIDTH_MHZ,
    LtePlan,
    _cell_line,
    _mechanism_notes,
    _rlc_line,
    _s1u,
    _s1u_line,
    json_value,
)
from .records import NotSupported, record

#: LENA's own handover settings (lte-enb-rrc.cc `RsrpFilterCoefficient` fc4; lte-ue-phy.cc
#: `UeMeasurementsFilterPeriod` 200 ms; A3RsrpHandoverAlgorithm has no offset; lte-enb-rrc.cc
#: `UeManager::SendData` forwards only what arrives after the UE left, "seamless").
LENA_HANDOVER = {
    "enabled": True,
    "a3_offset_db": 0.0,
    "filter_coefficient": 4,
    "measurement_period_ms": 200,
    "forwarding": "seamless",
}
#: The engine's settings of what LENA does in its own time (said in a note when the scenario sets them).
LENA_TIMING = ("preparation_ms", "interruption_ms", "x2_delay_ms")
#: A resolved cell's fields that are its own in a network (the rest must be every cell's).
OWN_FIELDS = {"id", "enb", "ues", "site"}


def _same_configuration(cells: list[dict], rcs: list[dict]) -> None:
    """Every cell configured as the first (one LteHelper, one set of attributes): the fields as
    written first (so the refusal names the one the scenario set), then as resolved."""
    for table in (cells, rcs):
        _same_as_first(table)


def _same_as_first(cells: list[dict]) -> None:
    keys = {k for c in cells for k in c} - OWN_FIELDS
    first = cells[0]
    for i, rc in enumerate(cells[1:], start=1):
        for key in sorted(keys):
            value = first.get(key)
            if rc.get(key) != value:
                raise NotSupported(
                    f"cells[{i}].{key}",
                    rc.get(key),
                    f"{json_value(value)}, as cells[0] (LENA's helper configures every eNB alike)",
                )


def _handover(sc: dict, rh: dict) -> tuple[str, list[str]]:
    """The `net` record and notes for the timing LENA keeps to itself."""
    written = sc["network"].get("handover") or {}
    for key, lena in LENA_HANDOVER.items():
        if rh[key] != lena:
            raise NotSupported(f"network.handover.{key}", rh[key], f"{json_value(lena)} (LENA's)")
    if (rh.get("measurements") or {}).get("kind", "channel") != "channel":
        raise NotSupported(
            "network.handover.measurements", rh["measurements"], '{ kind = "channel" } (ns-3 measures its own channel)'
        )
    notes = [
        f"network.handover.{key} = {json_value(written[key])}: LENA takes its own time "
        "(ideal RRC, X2 link, random access)"
        for key in LENA_TIMING
        if key in written
    ]
    line = record("net", hysteresis_db=float(rh["hysteresis_db"]), time_to_trigger_ms=int(rh["time_to_trigger_ms"]))
    return line, notes


def _site_orientation(site: dict, network_antenna: dict, path: str) -> dict[str, float]:
    """A site's `orientation_deg` field for its `nenb` record (a sector antenna); LENA's helper
    sets every other eNB attribute once, so a site may differ from the network only there."""
    for key in ("height_m", "tx_power_dbm"):
        if site.get(key) is not None:
            raise NotSupported(f"{path}.{key}", site[key], "unset: the network's enb value (LENA's helper sets one)")
    antenna = {"kind": "isotropic", **(site.get("antenna") or network_antenna)}
    shared = {k: v for k, v in antenna.items() if k != "orientation_deg"}
    if shared != {k: v for k, v in {"kind": "isotropic", **network_antenna}.items() if k != "orientation_deg"}:
        raise NotSupported(
            f"{path}.antenna", antenna, "the network's enb antenna, its orientation aside (LENA's helper sets one)"
        )
    if antenna["kind"] == "isotropic":
        return {}
    return {"orientation_deg": float(antenna.get("orientation_deg", 0.0))}


def network_plan(sc: dict, resolved: Callable[[], dict], node_index: dict[str, int]) -> LtePlan:
    """The records of a network (`epc`, `cell`, `rlc`, the channel's, `net`, `nenb`, `ue`,
    `mobility`, `nue`), or NotSupported naming the field."""
    cells, net = sc["cells"], sc["network"]
    ch = net["channel"]
    for key, why in (
        ("hex_layout", "absent: LENA's cells are cells with UEs (list each as a cell with a site)"),
        ("interferers", "absent: LENA's cells are cells with UEs (list each as a cell with a site)"),
    ):
        if ch.get(key):
            raise NotSupported(f"network.channel.{key}", ch[key], why)
    for i, c in enumerate(cells):
        if "position_m" not in (c.get("site") or {}):
            raise NotSupported(f"cells[{i}].site", c.get("site"), "{ position_m = [x, y] } (no hexagonal layout)")
    n_rbs = BANDWIDTH_RBS.get(float(cells[0].get("bandwidth_mhz", LENA_BANDWIDTH_MHZ)))
    if n_rbs is None:
        raise NotSupported("cells[0].bandwidth_mhz", cells[0]["bandwidth_mhz"], "1.4, 3, 5, 10, 15 or 20")
    gateways = set()
    s1u_links = []
    for i, c in enumerate(cells):
        link, gateway = _s1u(sc, c["enb"], f"cells[{i}]")
        s1u_links.append(link)
        gateways.add(gateway)
        first = sc["links"][s1u_links[0]]
        for key in ("rate_mbps", "delay_ms", "mtu_bytes"):
            if sc["links"][link].get(key) != first.get(key):
                raise NotSupported(
                    f"links[{link}].{key}",
                    sc["links"][link].get(key),
                    f"{first.get(key)}, as links[{s1u_links[0]}] (PointToPointEpcHelper gives every S1-U the same)",
                )
    if len(gateways) != 1:
        raise NotSupported("links", sorted(gateways), "one router behind every eNB's S1-U (the EPC's one PGW)")
    view = resolved()
    rcs, rnet = view["cells"], view["network"]
    _same_configuration(cells, rcs)
    all_ues = [u for rc in rcs for u in rc["ues"]]
    chan = channel_plan(
        {"id": cells[0]["id"], "channel": ch, "ues": [u for c in cells for u in c["ues"]]},
        {"channel": rnet["channel"], "ues": all_ues},
        "network",
        n_rbs,
        float(sc["duration_s"]),
        ATTACH_WARMUP_S,
        several_enbs=True,
    )
    net_line, notes = _handover(sc, rnet["handover"])
    lines = [
        _s1u_line(sc["links"][s1u_links[0]]),
        _cell_line(rcs[0], "cells[0]", node_index[cells[0]["enb"]], n_rbs, chan.earfcns),
        _rlc_line({"ues": all_ues}, "cells[0]"),
        *chan.lines,
        net_line,
    ]
    roles = {next(iter(gateways)): "pgw"}
    j = 0
    for i, c in enumerate(cells):
        x, y = (float(v) for v in c["site"]["position_m"])
        orientation = _site_orientation(c["site"], rnet["channel"]["enb"]["antenna"], f"cells[{i}].site")
        lines.append(record("nenb", cell=i, node=node_index[c["enb"]], x_m=x, y_m=y, **orientation))
        roles[c["enb"]] = "enb"
        for k, u in enumerate(c["ues"]):
            lines += ue_placement_lines(rcs[i]["ues"][k]["sinr"], j, node_index[u["node"]], f"cells[{i}].ues[{k}].sinr")
            lines.append(record("nue", ue=j, cell=i))
            roles[u["node"]] = "ue"
            j += 1
    for i, link in enumerate(sc["links"]):
        ends = {link["a"], link["b"]}
        if any(roles.get(n) == "ue" for n in ends):
            raise NotSupported(f"links[{i}]", link["id"], "no wired link to a UE (it reaches the world by radio)")
    notes += chan.notes + _mechanism_notes(rcs[0], "cells[0]")
    return LtePlan(lines, roles, s1u_links, int(cells[0].get("mtu_bytes") or 1500), notes, chan.fading)
