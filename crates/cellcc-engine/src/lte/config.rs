//! A cell resolved: the scenario's `CellSpec` with every field it left unset taken from its
//! profile (`lte::profile`). The cell runs from this; `cellcc validate --json` and each run's
//! `scenario.json` show it (`world::resolved`), so every value a profile sets is visible.

use serde::Serialize;

use super::channel::spec::ChannelSpec;
use super::mac::link_adaptation::{OllaConfig, UlMcsRule};
use super::mac::pdcch::PdcchConfig;
use super::mac::scheduler::rbg::LastRbg;
use super::mac::scheduler::{GrantSizing, SchedulerKind};
use super::mac::uplink::{UplinkConfig, DEFAULT_GRANT_DELAY_MS};
use super::mac::{MacPipeline, StatusPduPlacement};
use super::phy::UlMeasurement;
use super::profile::RanProfile;
use super::rlc::{RlcConfig, RlcSpec};
use crate::error::ScenarioError;
use crate::scenario::{n_rbs_of, CellSpec, DlCqiMode, SinrSpec};

/// Operator profile's bandwidth, MHz: the widest LTE carrier (TS 36.101 Table 5.6-1), the one
/// seeds 000 and 003 ran.
pub const OPERATOR_BANDWIDTH_MHZ: f64 = 20.0;
/// ns-3 LENA's `LteEnbNetDevice::DlBandwidth` default: 25 RBs = 5 MHz.
pub const LENA_BANDWIDTH_MHZ: f64 = 5.0;

/// A cell as it runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellConfig {
    pub id: String,
    pub enb: String,
    pub profile: RanProfile,
    pub bandwidth_mhz: f64,
    pub mtu_bytes: u32,
    pub cqi: CqiConfig,
    pub harq: HarqConfig,
    pub control_errors: bool,
    pub scheduler: SchedulerKind,
    pub pf_window_ttis: f64,
    pub uplink: UplinkConfig,
    pub link_adaptation: LinkAdaptationConfig,
    pub pdcch: PdcchConfig,
    pub mac: MacConfig,
    pub channel: Option<ChannelSpec>,
    pub ues: Vec<UeConfig>,
}

/// Downlink CQI reporting, resolved (see `scenario::CqiSpec`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CqiConfig {
    pub period_ms: u32,
    pub delay_ms: u32,
    pub dl_mcs_from: DlCqiMode,
}

/// HARQ retransmission limits per direction.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HarqConfig {
    pub max_retx: u8,
    pub ul_max_retx: u8,
}

/// Link adaptation, resolved; `olla: None` runs no outer loop.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LinkAdaptationConfig {
    pub ul_mcs_from: UlMcsRule,
    pub ul_measurement: UlMeasurement,
    pub olla: Option<OllaConfig>,
}

/// MAC choices, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MacConfig {
    pub grant_sizing: GrantSizing,
    pub status_pdu: StatusPduPlacement,
    pub last_rbg: LastRbg,
    pub pipeline: MacPipeline,
}

/// A UE and its bearer, resolved.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UeConfig {
    pub node: String,
    pub sinr: SinrSpec,
    pub rlc: RlcConfig,
}

impl CellSpec {
    /// The cell as it runs: each unset field from the profile.
    pub fn resolve(&self) -> CellConfig {
        let d = self.profile.defaults();
        let default_mhz = match self.profile {
            RanProfile::Operator => OPERATOR_BANDWIDTH_MHZ,
            RanProfile::Lena => LENA_BANDWIDTH_MHZ,
        };
        let olla = &self.link_adaptation.olla;
        let olla_on = olla.enabled.unwrap_or(d.olla.is_some());
        let base = d.olla.unwrap_or(OllaConfig::DEFAULT);
        CellConfig {
            id: self.id.clone(),
            enb: self.enb.clone(),
            profile: self.profile,
            bandwidth_mhz: self.bandwidth_mhz.unwrap_or(default_mhz),
            mtu_bytes: self.mtu_bytes,
            cqi: CqiConfig {
                period_ms: self.cqi.period_ms.unwrap_or(d.cqi_period_ms),
                delay_ms: self.cqi.delay_ms,
                dl_mcs_from: self.cqi.dl_mcs_from.unwrap_or_else(|| self.default_dl_mcs_from()),
            },
            harq: HarqConfig {
                max_retx: self.harq.max_retx.unwrap_or(d.dl_harq_max_retx),
                ul_max_retx: self.harq.ul_max_retx.unwrap_or(d.ul_harq_max_retx),
            },
            control_errors: self.control_errors,
            scheduler: self.scheduler,
            pf_window_ttis: self.pf_window_ttis,
            uplink: UplinkConfig {
                sr_period_ms: self.uplink.sr_period_ms.unwrap_or(d.sr_period_ms),
                grant_delay_ms: self.uplink.grant_delay_ms.unwrap_or(DEFAULT_GRANT_DELAY_MS),
                srs_period_ms: self.uplink.srs_period_ms.unwrap_or(d.srs_period_ms),
                requests: self.uplink.requests.unwrap_or(d.uplink_requests),
            },
            link_adaptation: LinkAdaptationConfig {
                ul_mcs_from: self.link_adaptation.ul_mcs_from.unwrap_or(d.ul_mcs_from),
                ul_measurement: self.link_adaptation.ul_measurement.unwrap_or(d.ul_measurement),
                olla: olla_on.then(|| OllaConfig {
                    target_bler: olla.target_bler.unwrap_or(base.target_bler),
                    nack_step_db: olla.nack_step_db.unwrap_or(base.nack_step_db),
                    max_offset_db: olla.max_offset_db.unwrap_or(base.max_offset_db),
                }),
            },
            pdcch: PdcchConfig {
                capacity: self.pdcch.capacity.unwrap_or(d.pdcch.capacity),
                phich_ng: self.pdcch.phich_ng.unwrap_or(d.pdcch.phich_ng),
                target_bler: self.pdcch.target_bler.unwrap_or(d.pdcch.target_bler),
            },
            mac: MacConfig {
                grant_sizing: self.mac.grant_sizing.unwrap_or(d.grant_sizing),
                status_pdu: self.mac.status_pdu.unwrap_or(d.status_pdu),
                last_rbg: self.mac.last_rbg.unwrap_or(d.last_rbg),
                pipeline: self.mac.pipeline.unwrap_or(d.mac_pipeline),
            },
            channel: self.channel.clone(),
            ues: self
                .ues
                .iter()
                .map(|u| UeConfig {
                    node: u.node.clone(),
                    sinr: u.sinr.clone(),
                    rlc: RlcSpec::resolve(u.rlc.as_ref(), d),
                })
                .collect(),
        }
    }
}

impl CellSpec {
    /// The profile's downlink MCS rule for this cell's scheduler: LENA's PF and MT take the worst
    /// A30 sub-band (pf/fdmt-ff-mac-scheduler.cc `worstCqi`), its RR the wideband P10 CQI
    /// (rr-ff-mac-scheduler.cc).
    fn default_dl_mcs_from(&self) -> DlCqiMode {
        match (self.profile, self.scheduler) {
            (RanProfile::Lena, SchedulerKind::RoundRobin) => DlCqiMode::Wideband,
            _ => self.profile.defaults().dl_mcs_from,
        }
    }
}

impl CellConfig {
    /// Resource blocks of the bandwidth (validated: one of TS 36.101's).
    pub fn n_rbs(&self) -> u32 {
        n_rbs_of(self.bandwidth_mhz).expect("validated bandwidth")
    }

    /// Checks the values the profile does not guarantee (those the scenario wrote); `path` names
    /// the cell (`cells[0]`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        let p = |f: &str| format!("{path}.{f}");
        if n_rbs_of(self.bandwidth_mhz).is_none() {
            return Err(ScenarioError::new(
                p("bandwidth_mhz"),
                self.bandwidth_mhz,
                "one of 1.4, 3, 5, 10, 15, 20 (MHz)",
            ));
        }
        self.uplink.validate(&p("uplink"))?;
        if let Some(olla) = &self.link_adaptation.olla {
            olla.validate(&p("link_adaptation.olla"))?;
        }
        self.pdcch.validate(&p("pdcch"))?;
        for (j, u) in self.ues.iter().enumerate() {
            u.rlc.validate(&format!("{path}.ues[{j}].rlc"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(extra: serde_json::Value) -> CellSpec {
        let mut v = serde_json::json!({
            "id": "c", "enb": "enb", "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}}]
        });
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        serde_json::from_value(v).expect("valid cell")
    }

    /// Each profile fills in its own values; a written field wins over either.
    #[test]
    fn profiles_fill_unset_fields_and_written_fields_win() {
        let op = cell(serde_json::json!({})).resolve();
        assert_eq!((op.profile, op.bandwidth_mhz, op.cqi.period_ms), (RanProfile::Operator, 20.0, 40));
        assert_eq!(op.link_adaptation.ul_mcs_from, UlMcsRule::EffectiveSinr);
        assert_eq!(op.link_adaptation.olla, Some(OllaConfig::DEFAULT));
        assert!(op.pdcch.capacity && op.mac.grant_sizing == GrantSizing::ToNeed);
        assert!(matches!(op.ues[0].rlc, RlcConfig::Am(_)));

        let lena = cell(serde_json::json!({"profile": "lena"})).resolve();
        assert_eq!((lena.bandwidth_mhz, lena.cqi.period_ms, lena.cqi.dl_mcs_from), (5.0, 1, DlCqiMode::WorstSubband));
        assert_eq!(lena.link_adaptation.ul_mcs_from, UlMcsRule::LenaMinimumSinr);
        assert_eq!((lena.link_adaptation.olla, lena.pdcch.capacity), (None, false));
        assert_eq!((lena.mac.status_pdu, lena.mac.last_rbg), (StatusPduPlacement::Alone, LastRbg::Unused));
        assert_eq!((op.mac.pipeline, lena.mac.pipeline), (MacPipeline::Immediate, MacPipeline::Lena));
        assert!(matches!(&lena.ues[0].rlc, RlcConfig::Um(c) if c.tx_buffer_bytes == 10_240));

        let mixed = cell(serde_json::json!({
            "profile": "lena", "bandwidth_mhz": 20, "link_adaptation": {"olla": {"enabled": true, "target_bler": 0.2}},
            "ues": [{"node": "ue0", "sinr": {"kind": "fixed", "db": 15}, "rlc": {"mode": "am", "tx_buffer_bytes": 1048576}}]
        }))
        .resolve();
        assert_eq!(mixed.bandwidth_mhz, 20.0);
        assert_eq!(mixed.link_adaptation.olla, Some(OllaConfig { target_bler: 0.2, ..OllaConfig::DEFAULT }));
        let RlcConfig::Am(am) = &mixed.ues[0].rlc else { panic!("AM") };
        assert_eq!((am.tx_buffer_bytes, am.poll_pdu), (1_048_576, Some(1)), "the written buffer, LENA's poll");
    }

    #[test]
    fn written_values_are_validated_with_their_path() {
        let e = cell(serde_json::json!({"bandwidth_mhz": 7})).resolve().validate("cells[0]").unwrap_err();
        assert_eq!((e.path.as_str(), e.value.as_str()), ("cells[0].bandwidth_mhz", "7"));
        let e = cell(serde_json::json!({"link_adaptation": {"olla": {"nack_step_db": -1}}}))
            .resolve()
            .validate("cells[0]")
            .unwrap_err();
        assert_eq!(e.path, "cells[0].link_adaptation.olla.nack_step_db");
        let e = cell(serde_json::json!({"pdcch": {"target_bler": 2}})).resolve().validate("cells[0]").unwrap_err();
        assert_eq!(e.path, "cells[0].pdcch.target_bler");
        for profile in ["operator", "lena"] {
            assert_eq!(cell(serde_json::json!({"profile": profile})).resolve().validate("c"), Ok(()));
        }
    }
}
