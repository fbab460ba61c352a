//! An NR cell resolved: the scenario's `NrCellSpec` with every field it left unset taken from
//! its profile. The cell runs from this; `cellcc validate --json` and each run's `scenario.json`
//! show it (`world::resolved`).
//!
//! The one profile, `operator`, is 3GPP and a real gNB's shipped configuration: where TS 38.xxx
//! leaves the choice to the network, the values of srsRAN Project's gNB (srsran/srsRAN_Project
//! commit 4bf1543936d062686d64c10724d2f27a9854f065: `du_high_config.h`, `du_qos_config_helpers.h`
//! and `cu_cp_configuration_helpers.h` for the 5QI 9 default bearer), or the source named at the
//! value. docs/nr.md tabulates every row.

use serde::{Deserialize, Serialize};

use super::frame::{
    parse_pattern, period_allowed, Dmrs, DuplexPattern, FrameSpec, Mapping, SpecialSlot, GSMA_SPECIAL_SLOT,
    MAX_K1_SLOTS, MAX_K2_SLOTS, MINI_SLOT_SYMBOLS,
};
use super::mac::rbg::RbgConfig;
use super::mac::uplink::SR_PERIODS_SLOTS;
use super::numerology::{bandwidths_mhz, n_rb, FrequencyRange, Numerology, SYMBOLS_PER_SLOT};
use super::phy::McsTable;
use super::rlc::{BearerDefaults, NrAmConfig, NrPdcpConfig, NrRlcConfig, NrRlcSpec, NrUmConfig};
use crate::error::ScenarioError;
use crate::lte::mac::link_adaptation::OllaConfig;
use crate::lte::mac::scheduler::{GrantSizing, SchedulerKind};
use crate::lte::rlc::{MaxRetxAction, DEFAULT_TX_BUFFER_BYTES};
use crate::scenario::{DuplexSpec, NrCellSpec, SinrSpec};

/// Which network an NR cell's unset fields describe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NrProfile {
    /// 3GPP and a real gNB's configuration (srsRAN Project), each value sourced.
    #[default]
    Operator,
}

/// The duplexing, resolved (`kind = "fdd"`, or `"tdd"` with its pattern and special slot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum DuplexConfig {
    Fdd,
    Tdd { pattern: String, special: SpecialSlot },
}

/// Time-domain resources of the data channels, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PdschConfig {
    /// CORESET duration, symbols (1..=3).
    pub pdcch_symbols: u32,
    /// Mini-slot length (2, 4, 7; mapping type B) or None (slot-based, mapping type A).
    pub mini_slot_symbols: Option<u32>,
    /// Symbols at the end of an uplink slot without PUSCH (SRS, short PUCCH).
    pub ul_control_symbols: u32,
    pub dl_dmrs_additional_positions: u32,
    pub ul_dmrs_additional_positions: u32,
    /// DM-RS CDM groups without data, downlink and uplink (1 or 2: 6 or 12 REs per DM-RS symbol).
    pub dl_dmrs_cdm_groups_without_data: u32,
    pub ul_dmrs_cdm_groups_without_data: u32,
    /// `xOverhead`: 0, 6, 12 or 18 REs per PRB (TS 38.214 §5.1.3.2).
    pub x_overhead: u32,
}

/// HARQ and its timing, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NrHarqConfig {
    /// Retransmissions after the first transmission, both directions (0..=7).
    pub max_retx: u8,
    /// Fewest slots from a PDSCH to its HARQ-ACK.
    pub k1_min_slots: u64,
    /// Fewest slots from an uplink grant to its PUSCH.
    pub k2_min_slots: u64,
}

/// Uplink requests and measurement, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct NrUplinkConfig {
    pub sr_period_ms: f64,
    pub srs_period_ms: f64,
}

/// A UE and its bearer, resolved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NrUeConfig {
    pub node: String,
    pub sinr: SinrSpec,
    pub rlc: NrRlcConfig,
    pub pdcp: NrPdcpConfig,
}

/// An NR cell as it runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NrCellConfig {
    pub id: String,
    pub gnb: String,
    pub profile: NrProfile,
    pub numerology: u8,
    pub bandwidth_mhz: f64,
    pub carrier_ghz: f64,
    pub mtu_bytes: u32,
    pub duplex: DuplexConfig,
    pub pdsch: PdschConfig,
    pub mcs_table: McsTable,
    pub csi_period_ms: f64,
    pub harq: NrHarqConfig,
    pub scheduler: SchedulerKind,
    pub pf_window_ms: f64,
    pub rbg_config: RbgConfig,
    pub grant_sizing: GrantSizing,
    pub uplink: NrUplinkConfig,
    pub olla: Option<OllaConfig>,
    pub ues: Vec<NrUeConfig>,
}

/// Every value the operator profile sets.
pub struct NrProfileDefaults {
    pub numerology: u8,
    pub bandwidth_mhz: f64,
    pub carrier_ghz: f64,
    pub pattern: &'static str,
    pub special: SpecialSlot,
    pub pdcch_symbols: u32,
    pub ul_control_symbols: u32,
    pub dl_dmrs_additional_positions: u32,
    pub ul_dmrs_additional_positions: u32,
    pub dl_dmrs_cdm_groups_without_data: u32,
    pub ul_dmrs_cdm_groups_without_data: u32,
    pub mcs_table: McsTable,
    pub csi_period_ms: f64,
    pub max_retx: u8,
    pub sr_period_ms: f64,
    pub srs_period_ms: f64,
    pub pf_window_ms: f64,
    pub bearer: BearerDefaults,
}

/// The operator profile (docs/nr.md "Defaults"); srsRAN Project values at the commit of the module doc.
pub fn operator() -> NrProfileDefaults {
    NrProfileDefaults {
        // TDD mid-band (n78) runs 30 kHz: the numerology of GSMA's 3.5 GHz frame structures.
        numerology: 1,
        // n78 carriers of 100 MHz, the widest FR1 channel at 30 kHz (TS 38.101-1 Table 5.3.5-1).
        bandwidth_mhz: 100.0,
        // n78: 3300-3800 MHz (TS 38.101-1 Table 5.2-1).
        carrier_ghz: 3.5,
        // GSMA, 5G TDD Synchronisation (April 2020): "DDDSU" with the special slot 10:2:2.
        pattern: "DDDSU",
        special: GSMA_SPECIAL_SLOT,
        // srsRAN: CORESET#1 takes CORESET#0's duration, at most `max_coreset0_duration` = 2 symbols.
        pdcch_symbols: 2,
        // The uplink slot's last symbol carries SRS / short PUCCH (TS 38.211 §6.4.1.4: SRS in the last six symbols).
        ul_control_symbols: 1,
        // srsRAN `dmrs_add_pos` = 2, downlink and uplink.
        dl_dmrs_additional_positions: 2,
        ul_dmrs_additional_positions: 2,
        // srsRAN: one layer takes row 0 of TS 38.212 Table 7.3.1.2.2-1 (1 CDM group without data);
        // its PUSCH has 2 (dmrs_helpers.h).
        dl_dmrs_cdm_groups_without_data: 1,
        ul_dmrs_cdm_groups_without_data: 2,
        // srsRAN `mcs_table` = qam256 (PDSCH and PUSCH).
        mcs_table: McsTable::Qam256,
        // srsRAN `csi_rs_period_msec` = 20.
        csi_period_ms: 20.0,
        // srsRAN `max_nof_harq_retxs` = 4 (PDSCH and PUSCH).
        max_retx: 4,
        // srsRAN `sr_period_msec` = 20.
        sr_period_ms: 20.0,
        // Periodic SRS every 40 ms (TS 38.331 SRS-PeriodicityAndOffset; the LTE cell's operator value).
        srs_period_ms: 40.0,
        // The LTE cell's PF window (99 TTIs of 1 ms), kept in time.
        pf_window_ms: 99.0,
        bearer: BearerDefaults {
            // TS 23.501 Table 5.7.4-1: 5QI 9 (the default bearer) is non-GBR with 10^-6 loss: AM.
            am: true,
            // srsRAN 5QI 7 (a UM bearer): 12-bit SN, t-Reassembly 50 ms.
            um: NrUmConfig { tx_buffer_bytes: DEFAULT_TX_BUFFER_BYTES, sn_bits: 12, t_reassembly_ms: 50.0 },
            // srsRAN 5QI 9: 18-bit SN, t-PollRetransmit 100 ms, pollPDU 16, pollByte infinity,
            // maxRetxThreshold 32, t-Reassembly 20 ms, t-StatusProhibit 10 ms; maxRetx is an RLF.
            am_cfg: NrAmConfig {
                tx_buffer_bytes: DEFAULT_TX_BUFFER_BYTES,
                sn_bits: 18,
                t_poll_retransmit_ms: 100.0,
                poll_pdu: Some(16),
                poll_byte: None,
                max_retx_threshold: 32,
                on_max_retx: MaxRetxAction::Discard,
                t_reassembly_ms: 20.0,
                t_status_prohibit_ms: 10.0,
            },
            // srsRAN 5QI 9 PDCP: 18-bit SN, t-Reordering 220 ms.
            pdcp: NrPdcpConfig { sn_bits: 18, t_reordering_ms: 220.0 },
        },
    }
}

/// The UE's fewest slots from PDSCH to HARQ-ACK with processing capability 1 and additional DM-RS
/// (TS 38.214 Table 5.3-1: N1 = 13, 13, 20, 24 symbols for mu 0..3): the PUCCH at the end of slot
/// n + K1 starts N1 symbols after the PDSCH's end when K1 >= (N1 + 1) / 14.
pub const K1_MIN_SLOTS: [u64; 4] = [1, 1, 2, 2];
/// Fewest slots from UL DCI to PUSCH with capability 1 (TS 38.214 Table 6.4-1: N2 = 10, 12, 23, 36
/// symbols): a PUSCH from symbol 0 of slot n + K2 after a DCI ending at symbol 2 needs K2 >= (N2 + 2) / 14.
pub const K2_MIN_SLOTS: [u64; 4] = [1, 1, 2, 3];

impl NrCellSpec {
    /// The cell as it runs: each unset field from the profile.
    pub fn resolve(&self) -> NrCellConfig {
        let d = operator();
        let numerology = self.numerology.unwrap_or(d.numerology);
        let mu = usize::from(numerology.min(3));
        let duplex = match &self.duplex {
            Some(DuplexSpec::Fdd) => DuplexConfig::Fdd,
            Some(DuplexSpec::Tdd { pattern, special }) => DuplexConfig::Tdd {
                pattern: pattern.clone().unwrap_or_else(|| d.pattern.into()),
                special: special.unwrap_or(d.special),
            },
            None => DuplexConfig::Tdd { pattern: d.pattern.into(), special: d.special },
        };
        let p = &self.pdsch;
        let la = &self.link_adaptation.olla;
        let olla_on = la.enabled.unwrap_or(true);
        let base = OllaConfig::DEFAULT;
        NrCellConfig {
            id: self.id.clone(),
            gnb: self.gnb.clone(),
            profile: self.profile,
            numerology,
            bandwidth_mhz: self.bandwidth_mhz.unwrap_or(d.bandwidth_mhz),
            carrier_ghz: self.carrier_ghz.unwrap_or(d.carrier_ghz),
            mtu_bytes: self.mtu_bytes,
            duplex,
            pdsch: PdschConfig {
                pdcch_symbols: p.pdcch_symbols.unwrap_or(d.pdcch_symbols),
                mini_slot_symbols: p.mini_slot_symbols,
                ul_control_symbols: p.ul_control_symbols.unwrap_or(d.ul_control_symbols),
                dl_dmrs_additional_positions: p.dl_dmrs_additional_positions.unwrap_or(d.dl_dmrs_additional_positions),
                ul_dmrs_additional_positions: p.ul_dmrs_additional_positions.unwrap_or(d.ul_dmrs_additional_positions),
                dl_dmrs_cdm_groups_without_data: p
                    .dl_dmrs_cdm_groups_without_data
                    .unwrap_or(d.dl_dmrs_cdm_groups_without_data),
                ul_dmrs_cdm_groups_without_data: p
                    .ul_dmrs_cdm_groups_without_data
                    .unwrap_or(d.ul_dmrs_cdm_groups_without_data),
                x_overhead: p.x_overhead.unwrap_or(0),
            },
            mcs_table: self.mcs_table.unwrap_or(d.mcs_table),
            csi_period_ms: self.csi.period_ms.unwrap_or(d.csi_period_ms),
            harq: NrHarqConfig {
                max_retx: self.harq.max_retx.unwrap_or(d.max_retx),
                k1_min_slots: self.harq.k1_min_slots.unwrap_or(K1_MIN_SLOTS[mu]),
                k2_min_slots: self.harq.k2_min_slots.unwrap_or(K2_MIN_SLOTS[mu]),
            },
            scheduler: self.scheduler,
            pf_window_ms: self.pf_window_ms.unwrap_or(d.pf_window_ms),
            rbg_config: self.rbg_config.unwrap_or_default(),
            grant_sizing: self.grant_sizing.unwrap_or(GrantSizing::ToNeed),
            uplink: NrUplinkConfig {
                sr_period_ms: self.uplink.sr_period_ms.unwrap_or(d.sr_period_ms),
                srs_period_ms: self.uplink.srs_period_ms.unwrap_or(d.srs_period_ms),
            },
            olla: olla_on.then(|| OllaConfig {
                target_bler: la.target_bler.unwrap_or(base.target_bler),
                nack_step_db: la.nack_step_db.unwrap_or(base.nack_step_db),
                max_offset_db: la.max_offset_db.unwrap_or(base.max_offset_db),
            }),
            ues: self
                .ues
                .iter()
                .map(|u| NrUeConfig {
                    node: u.node.clone(),
                    sinr: u.sinr.clone(),
                    rlc: NrRlcSpec::resolve(u.rlc.as_ref(), &d.bearer),
                    pdcp: u.pdcp.unwrap_or_default().resolve(&d.bearer),
                })
                .collect(),
        }
    }
}

/// The periods a CSI report (and its CSI-RS) may have, slots (TS 38.331 `CSI-ReportPeriodicityAndOffset`).
pub const CSI_PERIODS_SLOTS: [u64; 10] = [4, 5, 8, 10, 16, 20, 40, 80, 160, 320];

/// Largest PDCP SDU, bytes (TS 38.323 §4.3.1: 9000).
pub const MAX_PDCP_SDU_BYTES: u32 = 9000;

impl NrCellConfig {
    pub fn mu(&self) -> Numerology {
        Numerology::new(self.numerology).expect("validated numerology")
    }

    pub fn fr(&self) -> FrequencyRange {
        FrequencyRange::of(self.carrier_ghz).expect("validated carrier")
    }

    pub fn n_prb(&self) -> u32 {
        n_rb(self.fr(), self.mu(), self.bandwidth_mhz).expect("validated bandwidth")
    }

    /// The frame this cell runs on (validated first: errors name `path`'s fields).
    pub fn frame_spec(&self, path: &str) -> Result<FrameSpec, ScenarioError> {
        let duplex = match &self.duplex {
            DuplexConfig::Fdd => DuplexPattern::Fdd,
            DuplexConfig::Tdd { pattern, special } => DuplexPattern::Tdd {
                slots: parse_pattern(pattern, &format!("{path}.duplex.pattern"))?,
                special: *special,
            },
        };
        let p = &self.pdsch;
        Ok(FrameSpec {
            mu: self.mu(),
            duplex,
            pdcch_symbols: p.pdcch_symbols,
            mapping: p.mini_slot_symbols.map_or(Mapping::SlotBased, Mapping::MiniSlot),
            ul_control_symbols: p.ul_control_symbols,
            dl_dmrs: Dmrs { additional_positions: p.dl_dmrs_additional_positions },
            ul_dmrs: Dmrs { additional_positions: p.ul_dmrs_additional_positions },
            k1_min: self.harq.k1_min_slots,
            k2_min: self.harq.k2_min_slots,
        })
    }

    /// Checks what the profile does not guarantee (the values the scenario wrote); `path` names the cell.
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let f = |x: &str| format!("{path}.{x}");
        let bad = |x: &str, v: String, allowed: &str| Err(ScenarioError::new(f(x), v, allowed));
        let Some(mu) = Numerology::new(self.numerology) else {
            return bad(
                "numerology",
                self.numerology.to_string(),
                "0, 1, 2 or 3 (15, 30, 60, 120 kHz; TS 38.211 Table 4.2-1)",
            );
        };
        let Some(fr) = FrequencyRange::of(self.carrier_ghz) else {
            return bad(
                "carrier_ghz",
                self.carrier_ghz.to_string(),
                "GHz in FR1 [0.41, 7.125] or FR2 [24.25, 52.6] (TS 38.104 Table 5.1-1)",
            );
        };
        if n_rb(fr, mu, self.bandwidth_mhz).is_none() {
            let allowed = bandwidths_mhz(fr, mu);
            let why = if allowed.is_empty() {
                format!("a numerology {fr:?} allows: mu {} is not used there", self.numerology)
            } else {
                format!("one of {allowed:?} MHz ({fr:?} at {} kHz, TS 38.101 Table 5.3.2-1)", mu.scs_hz() / 1e3)
            };
            let (field, value) = if allowed.is_empty() {
                ("numerology", self.numerology.to_string())
            } else {
                ("bandwidth_mhz", self.bandwidth_mhz.to_string())
            };
            return bad(field, value, &why);
        }
        if !(68..=MAX_PDCP_SDU_BYTES).contains(&self.mtu_bytes) {
            return bad(
                "mtu_bytes",
                self.mtu_bytes.to_string(),
                "bytes in [68, 9000] (TS 38.323 §4.3.1: PDCP SDUs up to 9000 bytes)",
            );
        }
        self.validate_duplex(path, mu)?;
        self.validate_pdsch(path)?;
        let csi_slots = self.csi_period_ms * mu.slots_per_subframe() as f64;
        if !CSI_PERIODS_SLOTS.iter().any(|&s| (s as f64 - csi_slots).abs() < 1e-9) {
            return bad(
                "csi.period_ms",
                self.csi_period_ms.to_string(),
                &format!(
                    "a period of {CSI_PERIODS_SLOTS:?} slots (TS 38.331 CSI-ReportPeriodicityAndOffset) at {} slots per ms",
                    mu.slots_per_subframe()
                ),
            );
        }
        if self.harq.max_retx > 7 {
            return bad("harq.max_retx", self.harq.max_retx.to_string(), "an integer in [0, 7]");
        }
        if !(1..=MAX_K1_SLOTS).contains(&self.harq.k1_min_slots) {
            return bad("harq.k1_min_slots", self.harq.k1_min_slots.to_string(), "slots in [1, 15] (TS 38.213 §9.2.3)");
        }
        if !(1..=MAX_K2_SLOTS).contains(&self.harq.k2_min_slots) {
            return bad(
                "harq.k2_min_slots",
                self.harq.k2_min_slots.to_string(),
                "slots in [1, 32] (TS 38.214 §6.1.2.1)",
            );
        }
        if !(1.0..=100_000.0).contains(&self.pf_window_ms) {
            return bad("pf_window_ms", self.pf_window_ms.to_string(), "ms in [1, 100000]");
        }
        let sr_slots = self.uplink.sr_period_ms * mu.slots_per_subframe() as f64;
        if !SR_PERIODS_SLOTS.iter().any(|&s| (s as f64 - sr_slots).abs() < 1e-9) {
            return bad(
                "uplink.sr_period_ms",
                self.uplink.sr_period_ms.to_string(),
                &format!("a period of {SR_PERIODS_SLOTS:?} slots (TS 38.331 SchedulingRequestResourceConfig) at {} slots per ms", mu.slots_per_subframe()),
            );
        }
        if !(self.uplink.srs_period_ms.is_finite() && (1.0..=2560.0).contains(&self.uplink.srs_period_ms)) {
            return bad(
                "uplink.srs_period_ms",
                self.uplink.srs_period_ms.to_string(),
                "ms in [1, 2560] (TS 38.331 SRS-PeriodicityAndOffset)",
            );
        }
        if let Some(o) = &self.olla {
            o.validate(&f("link_adaptation.olla"))?;
        }
        for (j, u) in self.ues.iter().enumerate() {
            u.rlc.validate(&format!("{path}.ues[{j}].rlc"))?;
            u.pdcp.validate(&format!("{path}.ues[{j}].pdcp"))?;
        }
        super::frame::Frame::new(&self.frame_spec(path)?, path).map(|_| ())
    }

    fn validate_duplex(&self, path: &str, mu: Numerology) -> Result<(), ScenarioError> {
        let DuplexConfig::Tdd { pattern, special } = &self.duplex else { return Ok(()) };
        let slots = parse_pattern(pattern, &format!("{path}.duplex.pattern"))?;
        if !period_allowed(slots.len(), mu) {
            let ms = slots.len() as f64 / mu.slots_per_subframe() as f64;
            return Err(ScenarioError::new(
                format!("{path}.duplex.pattern"),
                format!("{pattern:?} ({ms} ms)"),
                "a period of 0.5, 0.625, 1, 1.25, 2, 2.5, 3, 4, 5 or 10 ms, or two of them dividing 20 ms (TS 38.331 dl-UL-TransmissionPeriodicity)",
            ));
        }
        let sum = special.dl_symbols + special.guard_symbols + special.ul_symbols;
        if sum != SYMBOLS_PER_SLOT || special.guard_symbols == 0 {
            return Err(ScenarioError::new(
                format!("{path}.duplex.special"),
                format!("{}:{}:{}", special.dl_symbols, special.guard_symbols, special.ul_symbols),
                "dl_symbols + guard_symbols + ul_symbols = 14 with at least one guard symbol",
            ));
        }
        Ok(())
    }

    fn validate_pdsch(&self, path: &str) -> Result<(), ScenarioError> {
        let p = &self.pdsch;
        let bad = |x: &str, v: u32, allowed: &str| Err(ScenarioError::new(format!("{path}.pdsch.{x}"), v, allowed));
        if !(1..=3).contains(&p.pdcch_symbols) {
            return bad("pdcch_symbols", p.pdcch_symbols, "1, 2 or 3 (TS 38.211 §7.3.2.2 CORESET duration)");
        }
        if let Some(l) = p.mini_slot_symbols {
            if !MINI_SLOT_SYMBOLS.contains(&l) {
                return bad("mini_slot_symbols", l, "2, 4 or 7 (TS 38.214 Table 5.1.2.1-1, mapping type B)");
            }
        }
        if p.ul_control_symbols > 6 {
            return bad(
                "ul_control_symbols",
                p.ul_control_symbols,
                "0..=6 (TS 38.211 §6.4.1.4: SRS in the last six symbols)",
            );
        }
        for (x, v) in [
            ("dl_dmrs_additional_positions", p.dl_dmrs_additional_positions),
            ("ul_dmrs_additional_positions", p.ul_dmrs_additional_positions),
        ] {
            if v > 3 {
                return bad(x, v, "0..=3 (TS 38.331 dmrs-AdditionalPosition pos0..pos3)");
            }
        }
        for (x, v) in [
            ("dl_dmrs_cdm_groups_without_data", p.dl_dmrs_cdm_groups_without_data),
            ("ul_dmrs_cdm_groups_without_data", p.ul_dmrs_cdm_groups_without_data),
        ] {
            if !(1..=2).contains(&v) {
                return bad(x, v, "1 or 2 (DM-RS type 1, TS 38.212 Table 7.3.1.2.2-1)");
            }
        }
        if ![0, 6, 12, 18].contains(&p.x_overhead) {
            return bad("x_overhead", p.x_overhead, "0, 6, 12 or 18 (TS 38.331 xOverhead)");
        }
        Ok(())
    }
}
