//! The NR part of the scenario: 5G NR cells, a gNB and the UEs attached to it. Every field left
//! unset takes the value of the cell's `profile` (`nr::config`: 3GPP and a real gNB's
//! configuration); `nr::config::NrCellConfig` is the cell resolved.
//!
//! ```toml
//! [[nodes]]  id = "gnb"  kind = "gnb"
//! [[nodes]]  id = "ue0"  kind = "ue"
//! [[nr_cells]]
//! id = "nr0"
//! gnb = "gnb"
//! numerology = 1                      # 30 kHz
//! bandwidth_mhz = 100                 # 273 PRBs
//! duplex = { kind = "tdd", pattern = "DDDSU" }
//! [[nr_cells.ues]]
//! node = "ue0"
//! sinr = { kind = "fixed", db = 20 }
//! ```

use super::lte::SinrSpec;
use super::validate::{ensure, unique_id, Check};
use super::{NodeKind, OllaSpec, Scenario};
use crate::lte::mac::scheduler::{GrantSizing, SchedulerKind};
use crate::nr::config::NrProfile;
use crate::nr::frame::SpecialSlot;
use crate::nr::mac::rbg::RbgConfig;
use crate::nr::phy::McsTable;
use crate::nr::rlc::{NrPdcpSpec, NrRlcSpec};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// One NR cell as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrCellSpec {
    pub id: String,
    /// The gNB: a node of kind "gnb"; it forwards between the cell and its links (N3).
    pub gnb: String,
    /// Which network the unset fields describe: "operator" (3GPP and srsRAN Project's gNB).
    #[serde(default)]
    pub profile: NrProfile,
    /// mu: 0, 1, 2 or 3 (15, 30, 60, 120 kHz; TS 38.211 Table 4.2-1). Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numerology: Option<u8>,
    /// Channel bandwidth, MHz, one TS 38.101-1/-2 Table 5.3.2-1 defines at this numerology and
    /// frequency range. Default 100 (273 PRBs at 30 kHz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_mhz: Option<f64>,
    /// Carrier frequency, GHz, in FR1 [0.41, 7.125] or FR2 [24.25, 52.6]. Default 3.5 (band n78).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier_ghz: Option<f64>,
    /// Largest IP datagram the bearer carries, bytes, [68, 9000]. Default 1500.
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u32,
    /// FDD, or TDD with a slot pattern. Default TDD "DDDSU", special slot 10:2:2 (GSMA).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplex: Option<DuplexSpec>,
    /// PDSCH/PUSCH time-domain resources and overhead.
    #[serde(default)]
    pub pdsch: PdschSpec,
    /// "qam64", "qam256" or "qam64_low_se" (TS 38.214 Tables 5.1.3.1-1..3, with CQI Tables
    /// 5.2.2.1-2..4). Default qam256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs_table: Option<McsTable>,
    /// Downlink CSI reporting.
    #[serde(default)]
    pub csi: CsiSpec,
    /// HARQ retransmissions and the K1/K2 minimum offsets.
    #[serde(default)]
    pub harq: NrHarqSpec,
    /// Both directions: "proportional_fair" (default), "round_robin" or "max_throughput".
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// Proportional fair's averaging time, ms, [1, 100000]. Default 99.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pf_window_ms: Option<f64>,
    /// RBG size column: "config1" (default) or "config2" (TS 38.214 Table 5.1.2.2.1-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rbg_config: Option<RbgConfig>,
    /// "to_need" (default: no grant beyond the buffer) or "whole_share".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_sizing: Option<GrantSizing>,
    /// Scheduling requests and sounding.
    #[serde(default)]
    pub uplink: NrUplinkSpec,
    /// The outer loop (both directions; on by default, 10 % first-transmission BLER).
    #[serde(default)]
    pub link_adaptation: NrLinkAdaptationSpec,
    pub ues: Vec<NrUeSpec>,
}

fn default_mtu() -> u32 {
    super::lte::DEFAULT_CELL_MTU_BYTES
}

/// Duplexing as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DuplexSpec {
    /// Paired spectrum: downlink and uplink in every slot.
    Fdd,
    /// A pattern of D, S, U slots, e.g. "DDDSU" (its period must be one of TS 38.331's).
    Tdd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pattern: Option<String>,
        /// The special slot's symbols; default 10:2:2.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        special: Option<SpecialSlot>,
    },
}

/// PDSCH/PUSCH time-domain resources as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PdschSpec {
    /// CORESET duration, symbols, 1..=3. Default 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdcch_symbols: Option<u32>,
    /// Mini-slots (mapping type B) of 2, 4 or 7 symbols; absent: slot-based (type A).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mini_slot_symbols: Option<u32>,
    /// Symbols at the end of an uplink slot kept for SRS / short PUCCH, 0..=6. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ul_control_symbols: Option<u32>,
    /// `dmrs-AdditionalPosition`, 0..=3. Default 2 both ways.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dl_dmrs_additional_positions: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ul_dmrs_additional_positions: Option<u32>,
    /// DM-RS CDM groups without data, 1 or 2. Default 1 downlink, 2 uplink.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dl_dmrs_cdm_groups_without_data: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ul_dmrs_cdm_groups_without_data: Option<u32>,
    /// `xOverhead` REs per PRB: 0, 6, 12 or 18. Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x_overhead: Option<u32>,
}

/// CSI reporting as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsiSpec {
    /// CSI-RS and CQI report period, ms: 4, 5, 8, 10, 16, 20, 40, 80, 160 or 320 slots. Default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_ms: Option<f64>,
}

/// HARQ as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrHarqSpec {
    /// Retransmissions after the first, 0..=7, both directions. Default 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retx: Option<u8>,
    /// Fewest slots from PDSCH to HARQ-ACK, 1..=15. Default: the UE capability 1 time of TS 38.214 Table 5.3-1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k1_min_slots: Option<u64>,
    /// Fewest slots from UL grant to PUSCH, 1..=32. Default: TS 38.214 Table 6.4-1, capability 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k2_min_slots: Option<u64>,
}

/// Uplink requests as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrUplinkSpec {
    /// SR period, ms: a TS 38.331 period in slots at this numerology. Default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sr_period_ms: Option<f64>,
    /// SRS period, ms, [1, 2560]. Default 40.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub srs_period_ms: Option<f64>,
}

/// Link adaptation as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrLinkAdaptationSpec {
    #[serde(default)]
    pub olla: OllaSpec,
}

/// A UE attached to an NR cell, with its one data radio bearer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrUeSpec {
    /// A node of kind "ue" attached to no other cell.
    pub node: String,
    /// Where the UE's SINR comes from (as an LTE UE's: fixed, csv with one column per PRB, ramp, sweep).
    pub sinr: SinrSpec,
    /// "um" or "am" and any of the mode's fields; unset: the profile's (AM, srsRAN's 5QI 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rlc: Option<NrRlcSpec>,
    /// PDCP SN length and t-Reordering; unset: the profile's (18 bits, 220 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdcp: Option<NrPdcpSpec>,
}

impl Scenario {
    /// Every NR cell; `attached` collects UE nodes across LTE and NR cells.
    pub(super) fn validate_nr_cells<'a>(&'a self, attached: &mut HashSet<&'a str>) -> Check {
        let mut ids: HashSet<String> = self.cells.iter().map(|c| c.id.clone()).collect();
        for (i, c) in self.nr_cells.iter().enumerate() {
            let path = format!("nr_cells[{i}]");
            unique_id(&mut ids, &c.id, || format!("{path}.id"))?;
            let kind = self.node_ref(&c.gnb, || format!("{path}.gnb"))?;
            ensure(kind == NodeKind::Gnb, || format!("{path}.gnb"), format!("{:?}", c.gnb), "a node of kind \"gnb\"")?;
            ensure(
                self.nr_cells.iter().filter(|o| o.gnb == c.gnb).count() == 1,
                || format!("{path}.gnb"),
                format!("{:?}", c.gnb),
                "a gNB no other cell uses",
            )?;
            c.resolve().validate(&path)?;
            ensure(!c.ues.is_empty(), || format!("{path}.ues"), "[]", "at least one UE")?;
            for (j, u) in c.ues.iter().enumerate() {
                let up = format!("{path}.ues[{j}]");
                let kind = self.node_ref(&u.node, || format!("{up}.node"))?;
                ensure(
                    kind == NodeKind::Ue,
                    || format!("{up}.node"),
                    format!("{:?}", u.node),
                    "a node of kind \"ue\"",
                )?;
                ensure(
                    attached.insert(u.node.as_str()),
                    || format!("{up}.node"),
                    format!("{:?}", u.node),
                    "a UE not attached to any other cell or twice",
                )?;
                u.sinr.validate(&format!("{up}.sinr"), self.duration_s)?;
                ensure(
                    !matches!(u.sinr, SinrSpec::Channel(_)),
                    || format!("{up}.sinr.kind"),
                    "\"channel\"",
                    "fixed, csv, ramp or sweep (an NR cell takes its SINR per UE)",
                )?;
            }
        }
        Ok(())
    }
}
