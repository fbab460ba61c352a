//! The resolved view of a scenario: every value a run actually uses, defaults filled in,
//! for display (`cellcc validate --json`) and for the `scenario.json` of every run.
//!
//! The scenario as written stays the input: its canonical JSON (and so the scenario hash and
//! the sweep run keys) leaves unset fields unset, because filling them in would change what a
//! backend is told (the ns-3 plan refuses an explicit `rto_estimator`, the Linux plan maps
//! every explicit `[tcp]` field to a sysctl). The resolved view sits beside it, under the
//! top-level key `resolved`, which the engine ignores for the run and hashes never; read back,
//! it must equal the engine's own resolution, so an edit there cannot silently do nothing.
//!
//! Values come from a built [`World`]: per flow the TCP parameters and the MSS its sender
//! runs with (the MSS follows each flow's path MTU, so there is no one global value) and the
//! algorithm's full parameter set from its own `Config` defaults; per link direction the rate,
//! delay, queue and loss after the link-level and direction-level settings are merged; per LTE
//! cell every setting (scheduler, CQI, HARQ, uplink, RLC, channel) with the defaults the
//! engine's own `scenario/lte.rs` types fill in, and the values the build derives from others.

use super::flow::Transport;
use super::World;
use crate::error::ScenarioError;
use crate::lte::channel::spec::ChannelSpec;
use crate::scenario::{
    BssSpec, CellSpec, EdcaSpec, LinkSpec, LossSpec, NrCellSpec, QueueSpec, RateChange, Scenario, TcpSpec,
};
use crate::wifi::mac::edca::Ac;
use crate::RunError;
use serde::Serialize;
use serde_json::{Map, Value};

/// Every default a run of the scenario uses, resolved.
#[derive(Clone, Debug, Serialize)]
pub struct Resolved {
    pub flows: Vec<ResolvedFlow>,
    pub links: Vec<ResolvedLink>,
    /// Every LTE cell as it runs (absent without cells).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cells: Vec<Value>,
    /// The network as it runs: its channel with the derived defaults, its handover with the
    /// profile's (absent without a network).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<Value>,
    /// Every BSS as it runs (absent without BSSes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bsses: Vec<Value>,
    /// Every NR cell as it runs (absent without NR cells).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nr_cells: Vec<Value>,
    pub output: ResolvedOutput,
}

/// One flow as it runs.
#[derive(Clone, Debug, Serialize)]
pub struct ResolvedFlow {
    pub id: String,
    /// The algorithm's registry name, or "udp".
    pub cca: String,
    /// Every parameter of the algorithm with the value used (absent for UDP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cca_params: Option<Map<String, Value>>,
    /// Every `[tcp]` field with the value used, `mss_bytes` from this flow's path (absent for UDP).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp: Option<TcpSpec>,
}

/// Both directions of one link.
#[derive(Clone, Debug, Serialize)]
pub struct ResolvedLink {
    pub id: String,
    pub forward: ResolvedDirection,
    pub reverse: ResolvedDirection,
}

/// One link direction after the link's and the direction's settings are merged.
#[derive(Clone, Debug, Serialize)]
pub struct ResolvedDirection {
    /// Absent when a trace sets the capacity.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_mbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_changes: Option<Vec<RateChange>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    pub delay_ms: f64,
    pub queue: ResolvedQueue,
    pub loss: LossSpec,
}

/// A queue with the one limit it enforces.
#[derive(Clone, Debug, Serialize)]
pub struct ResolvedQueue {
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_packets: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_threshold_packets: Option<u32>,
}

/// What the run records.
#[derive(Clone, Debug, Serialize)]
pub struct ResolvedOutput {
    pub slot_ms: f64,
    pub cwnd_trace: bool,
    pub rtt_trace: bool,
}

/// The resolved view of `sc` (validated and built as a run would be, with its own seed).
pub fn resolve(sc: &Scenario) -> Result<Resolved, RunError> {
    let world = World::new(sc, sc.seed)?;
    let mut flows = Vec::with_capacity(world.flows.len());
    for (i, f) in world.flows.iter().enumerate() {
        let (cca_params, tcp) = match &f.transport {
            Transport::Udp { .. } => (None, None),
            Transport::Tcp(ends) => {
                let params = match serde_json::to_value(sc.flow_cca(i)?) {
                    Ok(Value::Object(mut m)) => {
                        m.remove("name");
                        m
                    }
                    _ => Map::new(),
                };
                (Some(params), Some(ends.sender.params().to_spec(ends.sender.mss())))
            }
        };
        flows.push(ResolvedFlow { id: f.id.clone(), cca: f.cca.clone(), cca_params, tcp });
    }
    let (cwnd_trace, rtt_trace) = sc.output.traces_on(sc.duration_s);
    Ok(Resolved {
        flows,
        links: sc.links.iter().map(link).collect(),
        cells: sc.cells.iter().map(cell).collect(),
        network: sc.network.as_ref().map(|n| {
            let profile = sc.cells.first().map(|c| c.profile).unwrap_or_default();
            let mut v = serde_json::json!({
                "channel": n.channel.with_derived_defaults(),
                "handover": n.handover.resolve(profile),
            });
            drop_unset(&mut v);
            v
        }),
        bsses: sc.bsses.iter().map(bss).collect(),
        nr_cells: sc.nr_cells.iter().map(nr_cell).collect(),
        output: ResolvedOutput { slot_ms: sc.output.slot_ms, cwnd_trace, rtt_trace },
    })
}

fn link(l: &LinkSpec) -> ResolvedLink {
    let dir = |over| {
        let d = l.direction(over);
        let QueueSpec::DropTail { limit_packets, limit_bytes, ecn_threshold_packets } = d.queue.unwrap_or_default();
        ResolvedDirection {
            rate_mbps: d.rate_mbps,
            rate_changes: d.rate_changes,
            trace: d.trace,
            delay_ms: d.delay_ms.unwrap_or(0.0),
            queue: ResolvedQueue { kind: "drop_tail", limit_packets, limit_bytes, ecn_threshold_packets },
            loss: d.loss.unwrap_or(LossSpec::None),
        }
    };
    ResolvedLink { id: l.id.clone(), forward: dir(&l.forward), reverse: dir(&l.reverse) }
}

/// One BSS with every setting the run uses: `BssSpec`'s serde defaults plus what its profile sets
/// when a field is absent (the MSDU lifetime, each access category's EDCA parameters).
fn bss(b: &BssSpec) -> Value {
    let [bk, be, vi, vo] = Ac::ALL.map(|ac| Some(b.ac_params(ac)));
    let resolved = BssSpec { msdu_lifetime_ms: Some(b.lifetime_ms()), edca: EdcaSpec { bk, be, vi, vo }, ..b.clone() };
    let mut v = serde_json::to_value(resolved).unwrap_or(Value::Null);
    drop_unset(&mut v);
    v
}

/// One cell with every setting the run uses: the cell resolved with its profile
/// (`lte::config::CellConfig`: each unset field the profile's value) plus what `lte::channel`
/// derives when a field is absent: a fixed SINR's
/// uplink equals its downlink, and the channel's own ([`ChannelSpec::with_derived_defaults`],
/// the same methods the channel reads: the fixed-power UE's power, an interferer's height and
/// power). Any other
/// unset optional field is left out, meaning what the scenario reference says of it absent (no
/// `channel`: the UEs' `sinr` is the source; no shadowing or hex layout; fading's Doppler from its
/// profile or speed; a sweep's uplink rides its ramp); RLC's `poll_pdu` / `poll_byte` keep `null`,
/// which the schema defines as infinity, and `olla` keeps `null` for an outer loop switched off.
fn cell(c: &CellSpec) -> Value {
    let mut resolved = c.resolve();
    resolved.channel = resolved.channel.as_ref().map(ChannelSpec::with_derived_defaults);
    let mut v = serde_json::to_value(resolved).unwrap_or(Value::Null);
    let Value::Object(m) = &mut v else { return v };
    if let Some(Value::Array(ues)) = m.get_mut("ues") {
        ues.iter_mut().for_each(resolve_fixed_uplink_sinr);
    }
    drop_unset(&mut v);
    v
}

/// One NR cell with every setting it runs with (`nr::config::NrCellConfig`, the profile's values
/// filled in); `null` keeps its meaning for RLC's infinite polls, a switched-off outer loop and
/// slot-based mapping (`mini_slot_symbols`).
fn nr_cell(c: &NrCellSpec) -> Value {
    let mut v = serde_json::to_value(c.resolve()).unwrap_or(Value::Null);
    if let Some(Value::Array(ues)) = v.get_mut("ues") {
        ues.iter_mut().for_each(resolve_fixed_uplink_sinr);
    }
    v
}

/// Leave out the optional fields still unset (see [`cell`]), except where null says something:
/// RLC's infinite polls, an outer loop switched off.
fn drop_unset(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, x| !x.is_null() || k == "poll_pdu" || k == "poll_byte" || k == "olla");
            m.values_mut().for_each(drop_unset);
        }
        Value::Array(a) => a.iter_mut().for_each(drop_unset),
        _ => {}
    }
}

/// `sinr = { kind = "fixed", db }` without `ul_db`: the uplink has the downlink's SINR.
fn resolve_fixed_uplink_sinr(ue: &mut Value) {
    let Some(sinr) = ue.get_mut("sinr").and_then(Value::as_object_mut) else { return };
    if sinr.get("kind").and_then(Value::as_str) == Some("fixed") && sinr.get("ul_db").is_some_and(Value::is_null) {
        let db = sinr.get("db").cloned().unwrap_or(Value::Null);
        sinr.insert("ul_db".into(), db);
    }
}

/// The resolved view as JSON.
pub fn resolve_json(sc: &Scenario) -> Result<Value, RunError> {
    let r = resolve(sc)?;
    Ok(serde_json::to_value(r).unwrap_or(Value::Null))
}

/// A scenario read back with a `resolved` table (a run's `scenario.json`): it must equal the
/// engine's resolution, else the first differing field is an error (edit the input fields).
pub fn check(sc: &Scenario) -> Result<(), RunError> {
    let Some(given) = &sc.resolved else { return Ok(()) };
    let ours = resolve_json(sc)?;
    match first_difference(given, &ours, "resolved") {
        None => Ok(()),
        Some((path, value, expected)) => Err(ScenarioError::new(
            path,
            value,
            format!("{expected} (the engine's resolution; `resolved` is output only: set the scenario's own fields)"),
        )
        .into()),
    }
}

/// Path, given value and the engine's value of the first place `given` and `ours` differ.
fn first_difference(given: &Value, ours: &Value, path: &str) -> Option<(String, String, String)> {
    match (given, ours) {
        (Value::Object(g), Value::Object(o)) => {
            let keys = o.keys().chain(g.keys().filter(|k| !o.contains_key(*k)));
            keys.into_iter().find_map(|k| {
                let (gv, ov) = (g.get(k).unwrap_or(&Value::Null), o.get(k).unwrap_or(&Value::Null));
                first_difference(gv, ov, &format!("{path}.{k}"))
            })
        }
        (Value::Array(g), Value::Array(o)) if g.len() == o.len() => {
            g.iter().zip(o).enumerate().find_map(|(i, (gv, ov))| first_difference(gv, ov, &format!("{path}[{i}]")))
        }
        _ if same(given, ours) => None,
        _ => Some((path.to_string(), given.to_string(), ours.to_string())),
    }
}

/// Equal as JSON values, a number compared by value (`200` equals `200.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::cubic;
    use serde_json::json;

    /// Two hosts joined by a router: the first link's MTU 1500, the second's `mtu`; one cubic
    /// flow and one newreno flow without timestamps; nothing else set.
    fn doc(mtu: u32) -> Value {
        json!({
            "version": 1, "duration_s": 5,
            "nodes": [{"id": "s", "kind": "host"}, {"id": "r", "kind": "router"}, {"id": "c", "kind": "host"}],
            "links": [
                {"id": "l0", "a": "s", "b": "r", "rate_mbps": 100, "delay_ms": 1},
                {"id": "l1", "a": "r", "b": "c", "rate_mbps": 10, "mtu_bytes": mtu,
                 "queue": {"kind": "drop_tail", "limit_bytes": 50000}, "reverse": {"delay_ms": 7}}
            ],
            "flows": [
                {"src": "s", "dst": "c", "cca": "cubic", "app": {"kind": "bulk"}},
                {"src": "s", "dst": "c", "app": {"kind": "bulk"}, "tcp": {"timestamps": false}}
            ]
        })
    }

    fn resolved(doc: &Value) -> Value {
        resolve_json(&Scenario::from_json(&doc.to_string()).unwrap()).unwrap()
    }

    #[test]
    fn every_default_is_filled_in_with_the_value_the_run_uses() {
        let r = resolved(&doc(1500));
        let cubic_flow = &r["flows"][0];
        // cubic.rs `Config::default()`: the algorithm's own defaults, every one of them.
        assert_eq!(cubic_flow["cca_params"], serde_json::to_value(cubic::Config::default()).unwrap());
        assert_eq!(cubic_flow["cca_params"]["beta"], 717);
        // Linux defaults (scenario/tcp.rs `resolve`): SACK, timestamps, 200 ms min RTO, IW 10, RACK, TLP.
        let tcp = &cubic_flow["tcp"];
        assert_eq!((tcp["sack"].clone(), tcp["timestamps"].clone()), (json!(true), json!(true)));
        assert_eq!((tcp["min_rto_ms"].clone(), tcp["initial_cwnd_segs"].clone()), (json!(200.0), json!(10)));
        assert_eq!((tcp["recovery"].clone(), tcp["early_retrans"].clone()), (json!(1), json!(3)));
        assert_eq!(tcp["rto_estimator"], "linux");
        // The receive window (tcp/rwnd.rs): Linux's tcp_rmem and autotuning; rcv_buf_bytes is its max.
        assert_eq!(tcp["tcp_rmem"], json!([4096, 131072, 6291456]));
        assert_eq!((tcp["tcp_moderate_rcvbuf"].clone(), tcp["rcv_buf_bytes"].clone()), (json!(true), json!(6291456)));
        assert!(tcp.as_object().unwrap().values().all(|v| !v.is_null()), "{tcp}");
        // The default algorithm is named: ns-3's newreno.
        assert_eq!(r["flows"][1]["cca"], "newreno");
        assert_eq!(r["flows"][1]["id"], "flow1");
        // l0 has no queue: the default 100 packets; l1's byte limit and its reverse delay override.
        assert_eq!(r["links"][0]["forward"]["queue"], json!({"kind": "drop_tail", "limit_packets": 100}));
        assert_eq!(r["links"][1]["reverse"]["queue"], json!({"kind": "drop_tail", "limit_bytes": 50000}));
        assert_eq!(
            (r["links"][1]["forward"]["delay_ms"].clone(), r["links"][1]["reverse"]["delay_ms"].clone()),
            (json!(0.0), json!(7.0))
        );
        assert_eq!(r["links"][0]["forward"]["loss"], json!({"kind": "none"}));
        // A 5-s run is short: both traces on (scenario/mod.rs LONG_RUN_S = 60).
        assert_eq!(r["output"], json!({"slot_ms": 100.0, "cwnd_trace": true, "rtt_trace": true}));
    }

    #[test]
    fn the_ns3_profile_shows_its_name_and_every_value_it_chose_per_flow() {
        let mut d = doc(1500);
        d["tcp"] = json!({"profile": "ns3"});
        d["flows"][1]["tcp"] = json!({"timestamps": false, "min_rto_ms": 300});
        let r = resolved(&d);
        let (cubic, newreno) = (&r["flows"][0]["tcp"], &r["flows"][1]["tcp"]);
        // scenario/tcp_profile.rs: ns-3.44's SndBufSize / RcvBufSize, MinRto, DelAckTimeout, and
        // TcpNewReno's rules for newreno only (TcpCubic counts segments as Linux does).
        for tcp in [cubic, newreno] {
            assert_eq!(tcp["profile"], "ns3");
            assert_eq!((tcp["snd_buf_bytes"].clone(), tcp["rcv_buf_bytes"].clone()), (json!(131072), json!(131072)));
            assert_eq!((tcp["ack_policy"].clone(), tcp["recovery"].clone()), (json!("ns3"), json!(0)));
            assert!(tcp.as_object().unwrap().values().all(|v| !v.is_null()), "{tcp}");
        }
        assert_eq!((cubic["reno_rules"].clone(), newreno["reno_rules"].clone()), (json!("linux"), json!("ns3")));
        // The flow's own fields win over the profile.
        assert_eq!((newreno["min_rto_ms"].clone(), cubic["min_rto_ms"].clone()), (json!(300.0), json!(1000.0)));
        assert_eq!(newreno["timestamps"], json!(false));
        // And the table read back must still be the engine's own.
        d["resolved"] = r;
        assert!(check(&Scenario::from_json(&d.to_string()).unwrap()).is_ok());
    }

    #[test]
    fn mss_follows_each_flows_path_mtu_and_options() {
        // MTU 1500 - 20 IPv4 - 20 TCP - 12 timestamps = 1448; without timestamps 1460.
        let r = resolved(&doc(1500));
        assert_eq!(
            (r["flows"][0]["tcp"]["mss_bytes"].clone(), r["flows"][1]["tcp"]["mss_bytes"].clone()),
            (json!(1448), json!(1460))
        );
        // The sender's first hop is the 1500-byte link, but the receiver's first hop back is the
        // 1000-byte one: Linux takes the smaller (build.rs), 1000 - 52 = 948 and 1000 - 40 = 960.
        let r = resolved(&doc(1000));
        assert_eq!(
            (r["flows"][0]["tcp"]["mss_bytes"].clone(), r["flows"][1]["tcp"]["mss_bytes"].clone()),
            (json!(948), json!(960))
        );
    }

    /// server -- enb ~~ ue, one cell with nothing but its UE (fixed SINR 15 dB), `channel` if given.
    fn lte_doc(channel: Option<Value>) -> Value {
        let mut cell = json!({"id": "c0", "enb": "enb", "ues": [{"node": "ue", "sinr": {"kind": "fixed", "db": 15}}]});
        if let Some(ch) = channel {
            cell["channel"] = ch;
            cell["ues"][0]["sinr"] = json!({"kind": "channel", "position_m": [100, 0]});
        }
        json!({
            "version": 1, "duration_s": 1,
            "nodes": [{"id": "server", "kind": "host"}, {"id": "enb", "kind": "enb"}, {"id": "ue", "kind": "ue"}],
            "links": [{"id": "s1", "a": "server", "b": "enb", "rate_mbps": 1000, "delay_ms": 5}],
            "cells": [cell],
            "flows": [{"src": "server", "dst": "ue", "app": {"kind": "bulk"}}]
        })
    }

    #[test]
    fn an_lte_cell_shows_every_default_it_runs_with() {
        let r = resolved(&lte_doc(None));
        let c = &r["cells"][0];
        // The operator profile (lte/profile.rs): 20 MHz, PF with its 99-TTI window, CQI every
        // 40 ms used 4 ms later, 4 HARQ retransmissions each way, control errors on.
        assert_eq!(c["profile"], json!("operator"));
        assert_eq!((c["bandwidth_mhz"].clone(), c["mtu_bytes"].clone()), (json!(20.0), json!(1500)));
        assert_eq!((c["scheduler"].clone(), c["pf_window_ttis"].clone()), (json!("proportional_fair"), json!(99.0)));
        assert_eq!(c["cqi"], json!({"period_ms": 40, "delay_ms": 4, "dl_mcs_from": "wideband"}));
        assert_eq!(c["harq"], json!({"max_retx": 4, "ul_max_retx": 4}));
        assert_eq!(c["control_errors"], json!(true));
        // SR every 20 ms, grant 4 ms ahead (TS 36.213 §8.0), SRS every 40 ms, SR and BSR.
        assert_eq!(
            c["uplink"],
            json!({"sr_period_ms": 20, "grant_delay_ms": 4, "srs_period_ms": 40, "requests": "sr_bsr"})
        );
        assert_eq!(
            c["link_adaptation"],
            json!({"ul_mcs_from": "effective_sinr", "ul_measurement": "srs_and_pusch",
                   "olla": {"target_bler": 0.1, "nack_step_db": 1.0, "max_offset_db": 20.0}})
        );
        assert_eq!(c["pdcch"], json!({"capacity": true, "phich_ng": "1/6", "target_bler": 0.01}));
        assert_eq!(
            c["mac"],
            json!({"grant_sizing": "to_need", "status_pdu": "with_data", "last_rbg": "used",
                   "pipeline": "immediate"})
        );
        // RLC AM with srsRAN 4G's QCI 9 timers and a 1 MiB buffer.
        assert_eq!(c["ues"][0]["rlc"]["mode"], "am");
        assert_eq!(c["ues"][0]["rlc"]["tx_buffer_bytes"], json!(1_048_576));
        assert_eq!(c["ues"][0]["rlc"]["t_poll_retransmit_ms"], json!(120.0));
        // A fixed SINR without ul_db: the uplink has the downlink's 15 dB. No channel model: no key.
        assert_eq!(c["ues"][0]["sinr"], json!({"kind": "fixed", "db": 15.0, "ul_db": 15.0}));
        assert!(c.get("channel").is_none());
        let nulls = |v: &Value| v.to_string().contains("null");
        assert!(!nulls(c), "{c}");
        // With a channel: open-loop power control's defaults; the fixed-power UE power is unused.
        let r = resolved(&lte_doc(Some(json!({"interferers": [{"position_m": [500, 0]}]}))));
        let ch = &r["cells"][0]["channel"];
        assert_eq!(ch["ul_power_control"]["kind"], "open_loop");
        assert!(ch.get("ue_tx_power_dbm").is_none());
        // An interferer without height or power has the serving eNB's (30 m, 30 dBm).
        let f = &ch["interferers"][0];
        assert_eq!((f["height_m"].clone(), f["tx_power_dbm"].clone()), (json!(30.0), json!(30.0)));
        // ... a full-buffer downlink and an idle uplink (ul_interference.rs `default_uplink_load`).
        assert_eq!(f["load"], json!({"kind": "full_buffer"}));
        assert_eq!(f["uplink_load"], json!({"kind": "idle"}));
        // Fixed power: the UE's 10 dBm (ns-3 LteUePhy::TxPower).
        let r = resolved(&lte_doc(Some(json!({"ul_power_control": {"kind": "fixed"}}))));
        assert_eq!(r["cells"][0]["channel"]["ue_tx_power_dbm"], json!(10.0));
        // A wired scenario has no `cells` key at all.
        assert!(resolved(&doc(1500)).get("cells").is_none());
    }

    /// Every value the LENA profile sets shows, the outer loop as an explicit null.
    #[test]
    fn the_lena_profile_shows_every_value_it_sets() {
        let mut d = lte_doc(None);
        d["cells"][0]["profile"] = json!("lena");
        let r = resolved(&d);
        let c = &r["cells"][0];
        assert_eq!((c["profile"].clone(), c["bandwidth_mhz"].clone()), (json!("lena"), json!(5.0)));
        assert_eq!(c["cqi"], json!({"period_ms": 1, "delay_ms": 4, "dl_mcs_from": "worst_subband"}));
        assert_eq!(c["uplink"]["requests"], json!("ideal_bsr"));
        assert_eq!(c["link_adaptation"]["ul_mcs_from"], json!("lena_minimum_sinr"));
        assert_eq!(c["link_adaptation"]["olla"], Value::Null);
        assert_eq!(c["pdcch"]["capacity"], json!(false));
        assert_eq!(
            c["mac"],
            json!({"grant_sizing": "whole_share", "status_pdu": "alone", "last_rbg": "unused",
                   "pipeline": "lena"})
        );
        assert_eq!(
            c["ues"][0]["rlc"],
            json!({"mode": "um", "tx_buffer_bytes": 10240, "sn_bits": 10, "t_reordering_ms": 100.0})
        );
        // Read back, it is the engine's own.
        d["resolved"] = r.clone();
        assert!(check(&Scenario::from_json(&d.to_string()).unwrap()).is_ok());
    }

    #[test]
    fn a_resolved_table_read_back_must_be_the_engines_own() {
        let mut d = doc(1500);
        d["resolved"] = resolved(&d);
        let sc = Scenario::from_json(&d.to_string()).unwrap();
        assert!(check(&sc).is_ok());
        // Not hashed: the canonical JSON is the one without the table.
        let plain = Scenario::from_json(&doc(1500).to_string()).unwrap();
        assert_eq!(sc.to_canonical_json(), plain.to_canonical_json());
        // An edit in the output-only table is an error naming the field, not silently ignored.
        d["resolved"]["flows"][0]["tcp"]["min_rto_ms"] = json!(1000.0);
        let Err(RunError::Scenario(e)) = check(&Scenario::from_json(&d.to_string()).unwrap()) else { panic!() };
        assert_eq!((e.path.as_str(), e.value.as_str()), ("resolved.flows[0].tcp.min_rto_ms", "1000.0"));
        assert!(e.allowed.starts_with("200.0 "), "{}", e.allowed);
        // 200 written as an integer is the same number.
        d["resolved"]["flows"][0]["tcp"]["min_rto_ms"] = json!(200);
        assert!(check(&Scenario::from_json(&d.to_string()).unwrap()).is_ok());
    }
}
