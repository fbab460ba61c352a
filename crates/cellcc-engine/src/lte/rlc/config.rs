//! RLC configuration per bearer (TS 36.322 §7.3 timers, §7.4 constants).
//!
//! The scenario writes [`RlcSpec`] (`mode = "tm" | "um" | "am"` and any of the mode's fields);
//! what it leaves unset comes from the cell's profile (`lte::profile`: srsRAN 4G's QCI 9 bearer
//! by default, ns-3 LENA 3.44's attributes under `profile = "lena"`), giving the [`RlcConfig`] an
//! entity runs with. [`RlcConfig::validate`] names the offending field.

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::ScenarioError;
use crate::lte::profile::ProfileDefaults;
use crate::sim::SimDuration;

/// Transmission buffer per bearer, bytes: 1024 KiB, seed 004's setting (a real eNB buffers far
/// more than one round trip of a bulk flow; ns-3's 10 KiB chokes bulk TCP).
pub const DEFAULT_TX_BUFFER_BYTES: u32 = 1024 * 1024;
/// ns-3 LENA's `LteRlcUm`/`LteRlcAm`/`LteRlcTm::MaxTxBufferSize` default, bytes.
pub const LENA_TX_BUFFER_BYTES: u32 = 10 * 1024;
/// Largest transmission buffer accepted, bytes (1 GiB: far above any study; sizes stay in a u32).
pub const MAX_TX_BUFFER_BYTES: u32 = 1 << 30;
/// Longest timer accepted, ms: TS 36.331 §6.3.2 `T-Reordering`/`T-PollRetransmit`/`T-StatusProhibit`
/// ranges top out at 2000 ms; we allow up to 10 s for experiments.
pub const MAX_TIMER_MS: f64 = 10_000.0;

/// The three RLC modes (TS 36.322 §4.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RlcMode {
    Tm,
    Um,
    Am,
}

/// RLC mode and parameters of one bearer, resolved.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum RlcConfig {
    /// Transparent mode (TS 36.322 §4.2.1.1): no header, no segmentation.
    Tm(TmConfig),
    /// Unacknowledged mode (TS 36.322 §4.2.1.2).
    Um(UmConfig),
    /// Acknowledged mode (TS 36.322 §4.2.1.3).
    Am(AmConfig),
}

/// TM parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TmConfig {
    /// Transmission buffer, bytes of SDUs, 1..=2^30. An SDU that does not fit is refused.
    pub tx_buffer_bytes: u32,
}

/// UM parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UmConfig {
    /// Transmission buffer, bytes of SDUs, 1..=2^30.
    pub tx_buffer_bytes: u32,
    /// UM sequence number length, bits: 5 or 10 (TS 36.322 §6.2.2.3).
    pub sn_bits: u8,
    /// t-Reordering, ms (TS 36.322 §7.3), 0..=10000; 0 means a gap is given up at once.
    pub t_reordering_ms: f64,
}

/// What an AM transmitter does when an AMD PDU reaches maxRetxThreshold (TS 36.322 §5.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxRetxAction {
    /// ns-3 LENA 3.44 (`lte-rlc-am.cc`): reaching the threshold is only logged; the PDU keeps
    /// being retransmitted and the bearer stalls behind it (counted in `max_retx_reached`).
    KeepRetransmitting,
    /// TS 36.322 §5.2.1: "indicate to upper layers that max retransmission has been reached"
    /// (radio link failure, TS 36.331 §5.3.11.3). Modelled as: the SDUs the PDU carries are
    /// discarded and reported, and the peer's receiver is moved past the PDU
    /// (see `RlcEvents::abandoned`); the bearer is not re-established.
    Discard,
}

/// AM parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AmConfig {
    /// Transmission buffer, bytes of SDUs, 1..=2^30.
    pub tx_buffer_bytes: u32,
    /// t-Reordering, ms (TS 36.322 §7.3), 0..=10000.
    pub t_reordering_ms: f64,
    /// t-PollRetransmit, ms (TS 36.322 §7.3), (0, 10000].
    pub t_poll_retransmit_ms: f64,
    /// t-StatusProhibit, ms (TS 36.322 §7.3), 0..=10000.
    pub t_status_prohibit_ms: f64,
    /// pollPDU: poll after this many new AMD PDUs (TS 36.322 §5.2.2.1), 1..=1000000; `None` =
    /// infinity (3GPP `pInfinity`; 3GPP's smallest finite value is 4, TS 36.331 `PollPDU`).
    pub poll_pdu: Option<u32>,
    /// pollByte: poll after this many new data bytes (TS 36.322 §5.2.2.1), 1..=2^30; `None` =
    /// infinity (3GPP `kBinfinity`; 3GPP's smallest finite value is 25 kB, TS 36.331 `PollByte`).
    pub poll_byte: Option<u32>,
    /// maxRetxThreshold: RETX_COUNT at which [`MaxRetxAction`] applies (TS 36.322 §5.2.1, §7.4),
    /// 1..=32 (TS 36.331 `UL-AM-RLC` maxRetxThreshold t1..t32).
    pub max_retx_threshold: u32,
    /// What reaching maxRetxThreshold does.
    pub on_max_retx: MaxRetxAction,
}

/// A bearer's RLC as the scenario writes it: the mode, and any of its fields; the rest from the
/// cell's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum RlcSpec {
    Tm(TmSpec),
    Um(UmSpec),
    Am(AmSpec),
}

/// TM fields as written (see [`TmConfig`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TmSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_buffer_bytes: Option<u32>,
}

/// UM fields as written (see [`UmConfig`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UmSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_buffer_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sn_bits: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_reordering_ms: Option<f64>,
}

/// AM fields as written (see [`AmConfig`]). `poll_pdu` and `poll_byte` tell unset (absent: the
/// profile's) from infinity (`null`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_buffer_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_reordering_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_poll_retransmit_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_status_prohibit_ms: Option<f64>,
    #[serde(default, deserialize_with = "set_or_null", skip_serializing_if = "Option::is_none")]
    pub poll_pdu: Option<Option<u32>>,
    #[serde(default, deserialize_with = "set_or_null", skip_serializing_if = "Option::is_none")]
    pub poll_byte: Option<Option<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retx_threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_max_retx: Option<MaxRetxAction>,
}

/// A field present in the document: its value, `null` included (absent fields stay `None` by
/// `#[serde(default)]`).
fn set_or_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

impl RlcSpec {
    /// The bearer's configuration: the written fields, the profile's for the rest.
    pub fn resolve(spec: Option<&RlcSpec>, profile: &ProfileDefaults) -> RlcConfig {
        let (tm, um, am) = (&profile.rlc_tm, &profile.rlc_um, &profile.rlc_am);
        match spec {
            None => match profile.rlc_mode {
                RlcMode::Tm => RlcConfig::Tm(tm.clone()),
                RlcMode::Um => RlcConfig::Um(um.clone()),
                RlcMode::Am => RlcConfig::Am(am.clone()),
            },
            Some(RlcSpec::Tm(s)) => {
                RlcConfig::Tm(TmConfig { tx_buffer_bytes: s.tx_buffer_bytes.unwrap_or(tm.tx_buffer_bytes) })
            }
            Some(RlcSpec::Um(s)) => RlcConfig::Um(UmConfig {
                tx_buffer_bytes: s.tx_buffer_bytes.unwrap_or(um.tx_buffer_bytes),
                sn_bits: s.sn_bits.unwrap_or(um.sn_bits),
                t_reordering_ms: s.t_reordering_ms.unwrap_or(um.t_reordering_ms),
            }),
            Some(RlcSpec::Am(s)) => RlcConfig::Am(AmConfig {
                tx_buffer_bytes: s.tx_buffer_bytes.unwrap_or(am.tx_buffer_bytes),
                t_reordering_ms: s.t_reordering_ms.unwrap_or(am.t_reordering_ms),
                t_poll_retransmit_ms: s.t_poll_retransmit_ms.unwrap_or(am.t_poll_retransmit_ms),
                t_status_prohibit_ms: s.t_status_prohibit_ms.unwrap_or(am.t_status_prohibit_ms),
                poll_pdu: s.poll_pdu.unwrap_or(am.poll_pdu),
                poll_byte: s.poll_byte.unwrap_or(am.poll_byte),
                max_retx_threshold: s.max_retx_threshold.unwrap_or(am.max_retx_threshold),
                on_max_retx: s.on_max_retx.unwrap_or(am.on_max_retx),
            }),
        }
    }
}

impl RlcConfig {
    pub fn mode(&self) -> RlcMode {
        match self {
            RlcConfig::Tm(_) => RlcMode::Tm,
            RlcConfig::Um(_) => RlcMode::Um,
            RlcConfig::Am(_) => RlcMode::Am,
        }
    }

    /// Checks every field; `path` is where this config sits in the scenario (`ues[0].rlc`).
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        match self {
            RlcConfig::Tm(c) => check_buffer(c.tx_buffer_bytes, path),
            RlcConfig::Um(c) => c.validate(path),
            RlcConfig::Am(c) => c.validate(path),
        }
    }

    /// The transmission buffer limit, bytes.
    pub fn tx_buffer_bytes(&self) -> u32 {
        match self {
            RlcConfig::Tm(c) => c.tx_buffer_bytes,
            RlcConfig::Um(c) => c.tx_buffer_bytes,
            RlcConfig::Am(c) => c.tx_buffer_bytes,
        }
    }
}

impl UmConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_buffer(self.tx_buffer_bytes, path)?;
        if self.sn_bits != 5 && self.sn_bits != 10 {
            return Err(ScenarioError::new(format!("{path}.sn_bits"), self.sn_bits, "5 or 10 (TS 36.322 §6.2.2.3)"));
        }
        check_timer_ms(self.t_reordering_ms, &format!("{path}.t_reordering_ms"), true)
    }

    pub fn t_reordering(&self) -> SimDuration {
        SimDuration::from_ms_f64(self.t_reordering_ms)
    }
}

impl AmConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        check_buffer(self.tx_buffer_bytes, path)?;
        check_timer_ms(self.t_reordering_ms, &format!("{path}.t_reordering_ms"), true)?;
        check_timer_ms(self.t_poll_retransmit_ms, &format!("{path}.t_poll_retransmit_ms"), false)?;
        check_timer_ms(self.t_status_prohibit_ms, &format!("{path}.t_status_prohibit_ms"), true)?;
        if let Some(n) = self.poll_pdu {
            if !(1..=1_000_000).contains(&n) {
                return Err(ScenarioError::new(format!("{path}.poll_pdu"), n, "1..=1000000, or absent for infinity"));
            }
        }
        if let Some(n) = self.poll_byte {
            if !(1..=MAX_TX_BUFFER_BYTES).contains(&n) {
                return Err(ScenarioError::new(
                    format!("{path}.poll_byte"),
                    n,
                    "1..=1073741824, or absent for infinity",
                ));
            }
        }
        if !(1..=32).contains(&self.max_retx_threshold) {
            return Err(ScenarioError::new(
                format!("{path}.max_retx_threshold"),
                self.max_retx_threshold,
                "1..=32 (TS 36.331 UL-AM-RLC maxRetxThreshold)",
            ));
        }
        Ok(())
    }
}

fn check_buffer(bytes: u32, path: &str) -> Result<(), ScenarioError> {
    if (1..=MAX_TX_BUFFER_BYTES).contains(&bytes) {
        Ok(())
    } else {
        Err(ScenarioError::new(format!("{path}.tx_buffer_bytes"), bytes, "1..=1073741824 bytes"))
    }
}

fn check_timer_ms(ms: f64, path: &str, zero_ok: bool) -> Result<(), ScenarioError> {
    let lower_ok = if zero_ok { ms >= 0.0 } else { ms > 0.0 };
    if ms.is_finite() && lower_ok && ms <= MAX_TIMER_MS {
        Ok(())
    } else {
        let allowed = if zero_ok { "0..=10000 ms" } else { "(0, 10000] ms" };
        Err(ScenarioError::new(path, ms, allowed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::profile::{LENA, OPERATOR};

    fn parse(json: &str) -> Result<RlcSpec, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn unset_fields_come_from_the_profile_and_null_polls_mean_infinity() {
        let spec =
            parse(r#"{"mode": "am", "max_retx_threshold": 8, "on_max_retx": "discard", "poll_pdu": null}"#).unwrap();
        let RlcConfig::Am(c) = RlcSpec::resolve(Some(&spec), &LENA) else { panic!("expected AM") };
        assert_eq!((c.max_retx_threshold, c.on_max_retx, c.poll_pdu), (8, MaxRetxAction::Discard, None));
        assert_eq!((c.t_poll_retransmit_ms, c.poll_byte), (20.0, Some(50)), "LENA's");
        let RlcConfig::Am(c) = RlcSpec::resolve(Some(&spec), &OPERATOR) else { panic!("expected AM") };
        assert_eq!((c.t_poll_retransmit_ms, c.poll_pdu), (120.0, None), "srsRAN's timer, the written null");
        // Absent: each profile's own mode.
        assert!(matches!(RlcSpec::resolve(None, &LENA), RlcConfig::Um(_)));
        assert!(matches!(RlcSpec::resolve(None, &OPERATOR), RlcConfig::Am(_)));
        let tm = RlcSpec::resolve(Some(&parse(r#"{"mode": "tm"}"#).unwrap()), &LENA);
        assert_eq!(tm, RlcConfig::Tm(TmConfig { tx_buffer_bytes: LENA_TX_BUFFER_BYTES }));
        // The canonical form round-trips: unset stays unset, null stays null.
        let again: RlcSpec = serde_json::from_value(serde_json::to_value(&spec).unwrap()).unwrap();
        assert_eq!(again, spec);
    }

    #[test]
    fn unknown_fields_and_modes_are_rejected() {
        assert!(parse(r#"{"mode": "um", "sn_bit": 5}"#).is_err());
        assert!(parse(r#"{"mode": "xm"}"#).is_err());
    }

    #[test]
    fn validate_names_the_bad_field() {
        let um = || OPERATOR.rlc_um.clone();
        let am = || OPERATOR.rlc_am.clone();
        let bad = [
            (RlcConfig::Um(UmConfig { sn_bits: 7, ..um() }), "rlc.sn_bits"),
            (RlcConfig::Um(UmConfig { t_reordering_ms: -1.0, ..um() }), "rlc.t_reordering_ms"),
            (RlcConfig::Tm(TmConfig { tx_buffer_bytes: 0 }), "rlc.tx_buffer_bytes"),
            (RlcConfig::Am(AmConfig { t_poll_retransmit_ms: 0.0, ..am() }), "rlc.t_poll_retransmit_ms"),
            (RlcConfig::Am(AmConfig { t_status_prohibit_ms: f64::NAN, ..am() }), "rlc.t_status_prohibit_ms"),
            (RlcConfig::Am(AmConfig { max_retx_threshold: 0, ..am() }), "rlc.max_retx_threshold"),
            (RlcConfig::Am(AmConfig { poll_pdu: Some(0), ..am() }), "rlc.poll_pdu"),
            (RlcConfig::Am(AmConfig { poll_byte: Some(0), ..am() }), "rlc.poll_byte"),
        ];
        for (cfg, path) in bad {
            assert_eq!(cfg.validate("rlc").unwrap_err().path, path);
        }
        for profile in [&OPERATOR, &LENA] {
            for mode in [None, Some(RlcSpec::Tm(TmSpec::default())), Some(RlcSpec::Am(AmSpec::default()))] {
                assert_eq!(RlcSpec::resolve(mode.as_ref(), profile).validate("rlc"), Ok(()));
            }
        }
    }
}
