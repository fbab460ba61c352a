//! The LTE part of the scenario: cells, the UEs attached to them, and where
//! each UE's SINR comes from.
//!
//! ```toml
//! [[nodes]]  id = "enb"  kind = "enb"
//! [[nodes]]  id = "ue0"  kind = "ue"
//! [[cells]]
//! id = "cell0"
//! enb = "enb"
//! bandwidth_mhz = 20
//! [[cells.ues]]
//! node = "ue0"
//! sinr = { kind = "fixed", db = 20 }
//! ```
//! Defaults are ns-3 LENA 3.44's where it has one (its attribute named in the
//! field's doc), else the 3GPP value.

use crate::lte::channel::spec::{ChannelSpec, UePlacement};
use crate::lte::channel::sweep::SweepSpec;
use crate::lte::mac::link_adaptation::UlMcsRule;
use crate::lte::mac::pdcch::PhichNg;
use crate::lte::mac::scheduler::proportional_fair::DEFAULT_TIME_WINDOW_TTIS;
use crate::lte::mac::scheduler::rbg::LastRbg;
use crate::lte::mac::scheduler::{GrantSizing, SchedulerKind};
use crate::lte::mac::uplink::UplinkRequestsMode;
use crate::lte::mac::{MacPipeline, StatusPduPlacement};
use crate::lte::phy::UlMeasurement;
use crate::lte::profile::RanProfile;
use crate::lte::rlc::RlcSpec;
use serde::{Deserialize, Serialize};

/// One LTE cell as written: an eNB and the UEs attached to it. Every field the scenario leaves
/// unset takes the value of the cell's `profile` (`lte::profile`); `lte::config::CellConfig` is
/// the cell resolved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    pub id: String,
    /// The eNB: a node of kind "enb"; it forwards between the cell and its links (S1-U).
    pub enb: String,
    /// Which network the unset fields describe: "operator" (default: 3GPP and common eNB
    /// practice) or "lena" (ns-3.44 LENA, for cross-checks and the studies that ran on it).
    #[serde(default)]
    pub profile: RanProfile,
    /// Channel bandwidth, MHz: 1.4, 3, 5, 10, 15 or 20 (6, 15, 25, 50, 75, 100 RBs;
    /// TS 36.101 Table 5.6-1). Default: operator 20 (the widest LTE carrier), LENA 5
    /// (`LteEnbNetDevice::DlBandwidth` = 25 RBs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mhz: Option<f64>,
    /// Largest IP datagram the radio bearer carries, bytes. Default 1500 (the
    /// operators' usual PDN MTU; TS 36.323 allows PDCP SDUs up to 8188 bytes).
    #[serde(default = "default_cell_mtu")]
    pub mtu_bytes: u32,
    /// Downlink CQI reporting.
    #[serde(default)]
    pub cqi: CqiSpec,
    /// HARQ settings (TS 36.321 §5.3.2, §5.4.2).
    #[serde(default)]
    pub harq: HarqSpec,
    /// Model PCFICH/PDCCH decoding errors: a UE that misses its DCI loses that TTI's transport
    /// block. Default on (ns-3 `LteSpectrumPhy::CtrlErrorModelEnabled`; a real PDCCH errs).
    #[serde(default = "yes")]
    pub control_errors: bool,
    /// MAC scheduler, both directions: "proportional_fair" (default: ns-3
    /// `LteHelper::Scheduler` = `ns3::PfFfMacScheduler`), "round_robin" or "max_throughput".
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// Proportional fair's averaging window, TTIs (ms): the time constant of each UE's
    /// average throughput. Default 99 (ns-3 `PfFfMacScheduler` `m_timeWindow`). Range [1, 100000].
    #[serde(default = "default_pf_window_ttis")]
    pub pf_window_ttis: f64,
    /// Uplink scheduling requests, grants and measurement (TS 36.321 §5.4, TS 36.213 §8.2).
    #[serde(default)]
    pub uplink: UplinkSpec,
    /// How the MCS of each transport block is chosen (inner and outer loop).
    #[serde(default)]
    pub link_adaptation: LinkAdaptationSpec,
    /// The downlink control channel's capacity and error model.
    #[serde(default)]
    pub pdcch: PdcchSpec,
    /// MAC choices TS 36.321 leaves to the eNB.
    #[serde(default)]
    pub mac: MacSpec,
    /// The cell's radio channel (path loss, shadowing, fading, interference; docs/channel.md).
    /// With it, every UE's `sinr` is `{kind = "channel", position_m, ...}`; without it, none is.
    #[serde(default)]
    pub channel: Option<ChannelSpec>,
    /// In a scenario's `network`: where the cell's antenna is (its UEs are placed on the
    /// network's channel). Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub site: Option<super::network::SiteSpec>,
    pub ues: Vec<UeSpec>,
}

/// Default radio bearer MTU, bytes.
pub const DEFAULT_CELL_MTU_BYTES: u32 = 1500;

fn default_cell_mtu() -> u32 {
    DEFAULT_CELL_MTU_BYTES
}
fn default_pf_window_ttis() -> f64 {
    DEFAULT_TIME_WINDOW_TTIS
}
/// Longest PF window accepted, TTIs (100 s: beyond it the average no longer tracks anything).
const MAX_PF_WINDOW_TTIS: f64 = 100_000.0;

fn yes() -> bool {
    true
}

/// Downlink channel-quality reporting (TS 36.213 §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CqiSpec {
    /// How often each UE measures and reports a wideband CQI, ms (1..=160; TS 36.213
    /// Table 7.2.2-1A periods 2..160 ms; 1 = every TTI). Default: operator 40, LENA 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_ms: Option<u32>,
    /// From measurement to use by the eNB scheduler, ms (0..=20). Default 4: the report
    /// travels on PUCCH in subframe n+4 for a measurement in subframe n (TS 36.213 §7.2.2).
    #[serde(default = "default_cqi_delay_ms")]
    pub delay_ms: u32,
    /// Which downlink CQI sets the MCS: "wideband" (the wideband report, TS 36.213 §7.2.1
    /// mode 1-0; the operator default) or "worst_subband" (a mode 3-0 report over sub-bands of
    /// one RBG: PF and MT rank UEs RBG by RBG on their own sub-band CQI and take a TB's MCS from
    /// the lowest sub-band CQI among the RBGs it was given, as ns-3 LENA's PF scheduler uses its
    /// A30 report; the LENA default; see `phy::worst_in_range_subband`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dl_mcs_from: Option<DlCqiMode>,
}

/// The downlink CQI the scheduler's MCS comes from (see [`CqiSpec::dl_mcs_from`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DlCqiMode {
    Wideband,
    WorstSubband,
}

/// TS 36.213 §7.2.2: a CQI measured in subframe n is reported in n+4.
pub const DEFAULT_CQI_DELAY_MS: u32 = 4;

fn default_cqi_delay_ms() -> u32 {
    DEFAULT_CQI_DELAY_MS
}

impl Default for CqiSpec {
    fn default() -> Self {
        CqiSpec { period_ms: None, delay_ms: DEFAULT_CQI_DELAY_MS, dl_mcs_from: None }
    }
}

/// Hybrid ARQ (TS 36.321 §5.3.2 downlink, §5.4.2 uplink).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarqSpec {
    /// Downlink retransmissions of a transport block after its first transmission (0..=7).
    /// Default: operator 4, LENA 3 (4 transmissions, hard-coded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retx: Option<u8>,
    /// Uplink retransmissions (0..=7). Default: operator 4 (TS 36.331 §9.2.2 maxHARQ-Tx n5),
    /// LENA 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ul_max_retx: Option<u8>,
}

/// Uplink requests and measurement as written (see `lte::mac::uplink::UplinkConfig`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UplinkSpec {
    /// SR period, ms: one of 1, 2, 5, 10, 20, 40, 80 (TS 36.213 Table 10.1.5-1). Default:
    /// operator 20 (srsRAN 4G's `sched_request_cnfg.period`); unused by LENA's ideal BSR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sr_period_ms: Option<u32>,
    /// From UL grant to its PUSCH transmission, ms, 1..=8. Default 4 (TS 36.213 §8.0, FDD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_delay_ms: Option<u32>,
    /// SRS period, ms: one of 2, 5, 10, 20, 40, 80, 160, 320 (TS 36.213 Table 8.2-1). Default 40
    /// (ns-3 `LteEnbRrc::SrsPeriodicity`; a mid-table period).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srs_period_ms: Option<u32>,
    /// How the eNB learns the UE's buffer: "sr_bsr" (operator: TS 36.321 §5.4.4-5.4.5) or
    /// "ideal_bsr" (LENA: the exact buffer 4 TTIs late, no SR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<UplinkRequestsMode>,
}

/// Link adaptation as written (see `lte::mac::link_adaptation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkAdaptationSpec {
    /// The uplink MCS: "effective_sinr" (operator: MIESM over the granted RBs) or
    /// "lena_minimum_sinr" (LENA: Shannon-gap CQI of the minimum SINR over the granted RBs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ul_mcs_from: Option<UlMcsRule>,
    /// Where the eNB measures the uplink: "srs_and_pusch" (operator) or "srs_only" (LENA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ul_measurement: Option<UlMeasurement>,
    /// The outer loop, both directions (operator: on; LENA: off).
    #[serde(default)]
    pub olla: OllaSpec,
}

/// The outer loop as written (see `lte::mac::link_adaptation::OllaConfig`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OllaSpec {
    /// Run the outer loop. Default: operator true, LENA false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// First-transmission BLER target, in (0, 0.5). Default 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_bler: Option<f64>,
    /// The offset's fall on a NACK, dB, in (0, 10]. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nack_step_db: Option<f64>,
    /// Bound of the offset, dB, in [0, 30]. Default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_offset_db: Option<f64>,
}

/// The PDCCH as written (see `lte::mac::pdcch::PdcchConfig`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdcchSpec {
    /// Bound the DCIs per TTI by the CCEs. Default: operator true, LENA false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<bool>,
    /// PHICH resource N_g: "1/6", "1/2", "1" or "2". Default "1/6" (srsRAN 4G).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phich_ng: Option<PhichNg>,
    /// PDCCH error target the aggregation level is chosen for, in (0, 0.5). Default 0.01.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_bler: Option<f64>,
}

/// MAC choices as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MacSpec {
    /// "to_need" (operator: no grant beyond the buffer) or "whole_share" (LENA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_sizing: Option<GrantSizing>,
    /// "with_data" (operator) or "alone" (LENA: a STATUS PDU fills its TB with padding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_pdu: Option<StatusPduPlacement>,
    /// The downlink's last partial RBG: "used" (operator, TS 36.213 §7.1.6.1) or "unused" (LENA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_rbg: Option<LastRbg>,
    /// The subframe pipeline: "immediate" (operator) or "lena" (LENA's MacToChannelDelay, its
    /// reception 1 ns before the subframe's end, the UE's PDU built on the grant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<MacPipeline>,
}

/// A UE attached to a cell, with its one data radio bearer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UeSpec {
    /// The UE: a node of kind "ue". Flows name it as src or dst.
    pub node: String,
    /// Where the UE's SINR comes from.
    pub sinr: SinrSpec,
    /// The bearer's RLC mode (`mode = "tm" | "um" | "am"`) and any of its parameters, at both
    /// ends; unset: the profile's (operator: AM with srsRAN 4G's QCI 9 timers; LENA: UM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rlc: Option<RlcSpec>,
}

/// A UE's SINR source. Uplink SINR equals downlink SINR unless `ul_db` says otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SinrSpec {
    /// Constant SINR on every RB, dB.
    Fixed {
        db: f64,
        #[serde(default)]
        ul_db: Option<f64>,
    },
    /// A time series from a CSV file: header `t_s,sinr_db` (wideband) or
    /// `t_s,rb0,rb1,…` (one column per RB, dB); each row holds from its time
    /// until the next; before the first row the first value holds.
    Csv { file: String },
    /// Straight line from `from_db` to `to_db` over `duration_s` starting at
    /// `start_s`, constant before and after (seed 003's forward and backward sweeps).
    Ramp {
        from_db: f64,
        to_db: f64,
        #[serde(default)]
        start_s: f64,
        duration_s: f64,
    },
    /// From the cell's `channel` model, for a UE placed (and moving) as given.
    Channel(UePlacement),
    /// A ramp like `ramp` with fast fading on top (seed 003's forward and backward
    /// movements under EVA60 / HST300; docs/channel.md).
    Sweep(SweepSpec),
}

/// Channel bandwidths and their RB counts, TS 36.101 Table 5.6-1.
pub const BANDWIDTHS_MHZ_RBS: [(f64, u32); 6] = [(1.4, 6), (3.0, 15), (5.0, 25), (10.0, 50), (15.0, 75), (20.0, 100)];

/// Resource blocks of a bandwidth of `mhz` (None for a bandwidth TS 36.101 does not define).
pub fn n_rbs_of(mhz: f64) -> Option<u32> {
    BANDWIDTHS_MHZ_RBS.iter().find(|(m, _)| (m - mhz).abs() < 1e-9).map(|&(_, rbs)| rbs)
}

// ---- validation -----------------------------------------------------------

use super::validate::{ensure, positive, unique_id, Check, MAX_MTU_BYTES, MIN_MTU_BYTES};
use super::{NodeKind, Scenario};
use std::collections::HashSet;

/// SINR values outside this range (dB) are typos, not radio conditions: below
/// -50 dB nothing decodes, above 60 dB every table saturates.
const SINR_RANGE_DB: (f64, f64) = (-50.0, 60.0);

fn sinr_db(x: f64, path: impl FnOnce() -> String) -> Check {
    ensure(x.is_finite() && (SINR_RANGE_DB.0..=SINR_RANGE_DB.1).contains(&x), path, x, "dB in [-50, 60]")
}

impl Scenario {
    pub(super) fn validate_cells(&self) -> Check {
        let mut ids = HashSet::new();
        let mut attached = HashSet::new();
        for (i, c) in self.cells.iter().enumerate() {
            unique_id(&mut ids, &c.id, || format!("cells[{i}].id"))?;
            c.validate(self, &format!("cells[{i}]"), &mut attached)?;
        }
        self.validate_nr_cells(&mut attached)?;
        for (i, n) in self.nodes.iter().enumerate() {
            let in_cell = self.cells.iter().any(|c| c.enb == n.id);
            let in_nr_cell = self.nr_cells.iter().any(|c| c.gnb == n.id);
            let why = match n.kind {
                NodeKind::Enb if !in_cell => "an eNB is the `enb` of one cell",
                NodeKind::Gnb if !in_nr_cell => "a gNB is the `gnb` of one NR cell",
                NodeKind::Ue if !attached.contains(n.id.as_str()) => "a UE is listed in one cell's `ues`",
                _ => continue,
            };
            return Err(super::ScenarioError::new(format!("nodes[{i}].kind"), format!("{:?}", n.id), why));
        }
        Ok(())
    }
}

impl CellSpec {
    fn validate<'a>(&'a self, sc: &Scenario, path: &str, attached: &mut HashSet<&'a str>) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        let kind = sc.node_ref(&self.enb, || p("enb"))?;
        ensure(kind == NodeKind::Enb, || p("enb"), format!("{:?}", self.enb), "a node of kind \"enb\"")?;
        ensure(
            sc.cells.iter().filter(|c| c.enb == self.enb).count() == 1,
            || p("enb"),
            format!("{:?}", self.enb),
            "an eNB no other cell uses",
        )?;
        ensure(
            (MIN_MTU_BYTES..=MAX_MTU_BYTES).contains(&self.mtu_bytes),
            || p("mtu_bytes"),
            self.mtu_bytes,
            "bytes in [68, 65535]",
        )?;
        let resolved = self.resolve();
        resolved.validate(path)?;
        resolved.cqi_validate(&p("cqi"))?;
        self.harq.validate(&p("harq"))?;
        ensure(
            (1.0..=MAX_PF_WINDOW_TTIS).contains(&self.pf_window_ttis),
            || p("pf_window_ttis"),
            self.pf_window_ttis,
            "TTIs in [1, 100000]",
        )?;
        if let Some(ch) = &self.channel {
            ch.validate(&p("channel"))?;
        }
        // A network's cell may start empty: UEs hand over to it.
        ensure(!self.ues.is_empty() || sc.network.is_some(), || p("ues"), "[]", "at least one UE")?;
        for (j, u) in self.ues.iter().enumerate() {
            let up = format!("{path}.ues[{j}]");
            let kind = sc.node_ref(&u.node, || format!("{up}.node"))?;
            ensure(kind == NodeKind::Ue, || format!("{up}.node"), format!("{:?}", u.node), "a node of kind \"ue\"")?;
            ensure(
                attached.insert(u.node.as_str()),
                || format!("{up}.node"),
                format!("{:?}", u.node),
                "a UE not attached to any other cell or twice",
            )?;
            u.sinr.validate(&format!("{up}.sinr"), sc.duration_s)?;
            if sc.network.is_none() {
                self.validate_sinr_source(&u.sinr, &format!("{up}.sinr"))?;
            }
        }
        Ok(())
    }
}

impl CellSpec {
    /// A UE's SINR comes from the cell's channel exactly when the cell has one.
    fn validate_sinr_source(&self, sinr: &SinrSpec, path: &str) -> Check {
        match (&self.channel, sinr) {
            (Some(ch), SinrSpec::Channel(placement)) => ch.validate_placement(placement, path),
            (None, SinrSpec::Channel(_)) => ensure(
                false,
                || path.to_string(),
                "{kind = \"channel\", ...}",
                "fixed, csv or ramp (the cell has no `channel`)",
            ),
            (Some(_), _) => ensure(
                false,
                || format!("{path}.kind"),
                "a fixed, csv or ramp source",
                "\"channel\" with the UE's position_m (the cell has a `channel` model)",
            ),
            (None, _) => Ok(()),
        }
    }
}

/// The largest CQI period TS 36.213 Table 7.2.2-1A defines, ms.
const MAX_CQI_PERIOD_MS: u32 = 160;
/// A CQI older than this is of no use to a scheduler, ms.
const MAX_CQI_DELAY_MS: u32 = 20;
/// At most 8 transmissions of one TB (TS 36.331 maxHARQ-Tx up to n28 exists for
/// the uplink; 8 covers every HARQ process in FDD before its number comes round again).
const MAX_HARQ_RETX: u8 = 7;

impl crate::lte::config::CellConfig {
    fn cqi_validate(&self, path: &str) -> Check {
        let c = &self.cqi;
        ensure(
            (1..=MAX_CQI_PERIOD_MS).contains(&c.period_ms),
            || format!("{path}.period_ms"),
            c.period_ms,
            "ms in [1, 160]",
        )?;
        ensure(c.delay_ms <= MAX_CQI_DELAY_MS, || format!("{path}.delay_ms"), c.delay_ms, "ms in [0, 20]")
    }
}

impl HarqSpec {
    fn validate(&self, path: &str) -> Check {
        for (field, value) in [("max_retx", self.max_retx), ("ul_max_retx", self.ul_max_retx)] {
            let v = value.unwrap_or(0);
            ensure(v <= MAX_HARQ_RETX, || format!("{path}.{field}"), v, "an integer in [0, 7]")?;
        }
        Ok(())
    }
}

impl SinrSpec {
    pub(super) fn validate(&self, path: &str, duration_s: f64) -> Check {
        let p = |f: &str| format!("{path}.{f}");
        match self {
            SinrSpec::Fixed { db, ul_db } => {
                sinr_db(*db, || p("db"))?;
                ul_db.map_or(Ok(()), |x| sinr_db(x, || p("ul_db")))
            }
            SinrSpec::Csv { file } => ensure(!file.is_empty(), || p("file"), "\"\"", "a path to a SINR CSV file"),
            // Checked against the cell's channel model (`validate_sinr_source`).
            SinrSpec::Channel(_) => Ok(()),
            SinrSpec::Sweep(sweep) => sweep.validate(path),
            SinrSpec::Ramp { from_db, to_db, start_s, duration_s: ramp_s } => {
                sinr_db(*from_db, || p("from_db"))?;
                sinr_db(*to_db, || p("to_db"))?;
                ensure(
                    start_s.is_finite() && (0.0..duration_s).contains(start_s),
                    || p("start_s"),
                    start_s,
                    "seconds in [0, duration_s)",
                )?;
                positive(*ramp_s, || p("duration_s"))
            }
        }
    }
}
