//! RLC configuration per bearer (TS 36.322 §7.3 timers, §7.4 constants; ns-3 LENA 3.44 attributes).
//!
//! The scenario embeds [`RlcConfig`] with `mode = "tm" | "um" | "am"`. Each field
//! documents its unit, default (ns-3 LENA 3.44's where it has one, else the 3GPP
//! value) and checked range. [`RlcConfig::validate`] names the offending field.

use serde::{Deserialize, Serialize};

use crate::error::ScenarioError;
use crate::sim::SimDuration;

/// Transmission buffer per bearer, bytes: 1024 KiB, seed 004's setting. ns-3's
/// `MaxTxBufferSize` default is 10 KiB (`lte-rlc-um.cc`, `lte-rlc-am.cc`), which chokes bulk TCP.
pub const DEFAULT_TX_BUFFER_BYTES: u32 = 1024 * 1024;
/// Largest transmission buffer accepted, bytes (1 GiB: far above any study; sizes stay in a u32).
pub const MAX_TX_BUFFER_BYTES: u32 = 1 << 30;
/// Longest timer accepted, ms: TS 36.331 §6.3.2 `T-Reordering`/`T-PollRetransmit`/`T-StatusProhibit`
/// ranges top out at 2000 ms; we allow up to 10 s for experiments.
pub const MAX_TIMER_MS: f64 = 10_000.0;

/// RLC mode and parameters of one bearer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum RlcConfig {
    /// Transparent mode (TS 36.322 §4.2.1.1): no header, no segmentation.
    Tm(TmConfig),
    /// Unacknowledged mode (TS 36.322 §4.2.1.2).
    Um(UmConfig),
    /// Acknowledged mode (TS 36.322 §4.2.1.3).
    Am(AmConfig),
}

impl Default for RlcConfig {
    /// ns-3 LENA's default bearer mode is UM (`LteEnbRrc::EpsBearerToRlcMapping` = RLC_UM_ALWAYS).
    fn default() -> Self {
        RlcConfig::Um(UmConfig::default())
    }
}

/// TM parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TmConfig {
    /// Transmission buffer, bytes of SDUs. Default 1048576 (seed 004; ns-3 `MaxTxBufferSize` is 10240).
    /// Range 1..=2^30. An SDU that does not fit is refused.
    #[serde(default = "default_tx_buffer_bytes")]
    pub tx_buffer_bytes: u32,
}

/// UM parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UmConfig {
    /// Transmission buffer, bytes of SDUs. Default 1048576 (seed 004; ns-3 `MaxTxBufferSize` is 10240).
    /// Range 1..=2^30.
    #[serde(default = "default_tx_buffer_bytes")]
    pub tx_buffer_bytes: u32,
    /// UM sequence number length, bits: 5 or 10 (TS 36.322 §6.2.2.3). Default 10 (ns-3 LENA uses 10).
    #[serde(default = "default_um_sn_bits")]
    pub sn_bits: u8,
    /// t-Reordering, ms (TS 36.322 §7.3). Default 100 (ns-3 `LteRlcUm::ReorderingTimer`).
    /// Range 0..=10000; 0 means a gap is given up at once.
    #[serde(default = "default_um_t_reordering_ms")]
    pub t_reordering_ms: f64,
}

/// What an AM transmitter does when an AMD PDU reaches maxRetxThreshold (TS 36.322 §5.2.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaxRetxAction {
    /// ns-3 LENA 3.44 (`lte-rlc-am.cc`): reaching the threshold is only logged; the PDU keeps
    /// being retransmitted and the bearer stalls behind it (counted in `max_retx_reached`).
    #[default]
    KeepRetransmitting,
    /// TS 36.322 §5.2.1: "indicate to upper layers that max retransmission has been reached"
    /// (radio link failure, TS 36.331 §5.3.11.3). Modelled as: the SDUs the PDU carries are
    /// discarded and reported, and the peer's receiver is moved past the PDU
    /// (see `RlcEvents::abandoned`); the bearer is not re-established.
    Discard,
}

/// AM parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmConfig {
    /// Transmission buffer, bytes of SDUs. Default 1048576 (seed 004; ns-3 `MaxTxBufferSize` is 10240).
    /// Range 1..=2^30.
    #[serde(default = "default_tx_buffer_bytes")]
    pub tx_buffer_bytes: u32,
    /// t-Reordering, ms (TS 36.322 §7.3). Default 10 (ns-3 `LteRlcAm::ReorderingTimer`). Range 0..=10000.
    #[serde(default = "default_am_t_reordering_ms")]
    pub t_reordering_ms: f64,
    /// t-PollRetransmit, ms (TS 36.322 §7.3). Default 20 (ns-3 `LteRlcAm::PollRetransmitTimer`).
    /// Range (0, 10000].
    #[serde(default = "default_t_poll_retransmit_ms")]
    pub t_poll_retransmit_ms: f64,
    /// t-StatusProhibit, ms (TS 36.322 §7.3). Default 10 (ns-3 `LteRlcAm::StatusProhibitTimer`).
    /// Range 0..=10000.
    #[serde(default = "default_t_status_prohibit_ms")]
    pub t_status_prohibit_ms: f64,
    /// pollPDU: poll after this many new AMD PDUs (TS 36.322 §5.2.2.1), PDUs. Default 1
    /// (ns-3 3.44 `LteRlcAm::m_pollPdu`, hard-coded: every AMD PDU polls; 3GPP's smallest is 4,
    /// TS 36.331 `PollPDU`). Range 1..=1000000; `null` = infinity (3GPP `pInfinity`).
    #[serde(default = "default_poll_pdu")]
    pub poll_pdu: Option<u32>,
    /// pollByte: poll after this many new data bytes (TS 36.322 §5.2.2.1), bytes. Default 50
    /// (ns-3 3.44 `LteRlcAm::m_pollByte`, hard-coded; 3GPP's smallest is 25 kB, TS 36.331 `PollByte`).
    /// Range 1..=2^30; `null` = infinity (3GPP `kBinfinity`).
    #[serde(default = "default_poll_byte")]
    pub poll_byte: Option<u32>,
    /// maxRetxThreshold: RETX_COUNT at which [`MaxRetxAction`] applies (TS 36.322 §5.2.1, §7.4), retransmissions.
    /// Default 5 (ns-3 3.44 `LteRlcAm::m_maxRetxThreshold`, hard-coded and only logged).
    /// Range 1..=32 (TS 36.331 `UL-AM-RLC` maxRetxThreshold t1..t32).
    #[serde(default = "default_max_retx_threshold")]
    pub max_retx_threshold: u32,
    /// What reaching maxRetxThreshold does: "keep_retransmitting" (ns-3) or "discard" (3GPP RLF).
    #[serde(default)]
    pub on_max_retx: MaxRetxAction,
}

fn default_tx_buffer_bytes() -> u32 {
    DEFAULT_TX_BUFFER_BYTES
}
fn default_um_sn_bits() -> u8 {
    10
}
fn default_um_t_reordering_ms() -> f64 {
    100.0
}
fn default_am_t_reordering_ms() -> f64 {
    10.0
}
fn default_t_poll_retransmit_ms() -> f64 {
    20.0
}
fn default_t_status_prohibit_ms() -> f64 {
    10.0
}
fn default_poll_pdu() -> Option<u32> {
    Some(1)
}
fn default_poll_byte() -> Option<u32> {
    Some(50)
}
fn default_max_retx_threshold() -> u32 {
    5
}

impl Default for TmConfig {
    fn default() -> Self {
        TmConfig { tx_buffer_bytes: default_tx_buffer_bytes() }
    }
}

impl Default for UmConfig {
    fn default() -> Self {
        UmConfig {
            tx_buffer_bytes: default_tx_buffer_bytes(),
            sn_bits: default_um_sn_bits(),
            t_reordering_ms: default_um_t_reordering_ms(),
        }
    }
}

impl Default for AmConfig {
    fn default() -> Self {
        AmConfig {
            tx_buffer_bytes: default_tx_buffer_bytes(),
            t_reordering_ms: default_am_t_reordering_ms(),
            t_poll_retransmit_ms: default_t_poll_retransmit_ms(),
            t_status_prohibit_ms: default_t_status_prohibit_ms(),
            poll_pdu: default_poll_pdu(),
            poll_byte: default_poll_byte(),
            max_retx_threshold: default_max_retx_threshold(),
            on_max_retx: MaxRetxAction::default(),
        }
    }
}

impl RlcConfig {
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

    fn parse(json: &str) -> Result<RlcConfig, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn modes_parse_with_defaults() {
        assert_eq!(parse(r#"{"mode": "tm"}"#).unwrap(), RlcConfig::Tm(TmConfig::default()));
        assert_eq!(parse(r#"{"mode": "um"}"#).unwrap(), RlcConfig::Um(UmConfig::default()));
        let am =
            parse(r#"{"mode": "am", "max_retx_threshold": 8, "on_max_retx": "discard", "poll_pdu": null}"#).unwrap();
        let RlcConfig::Am(c) = am else { panic!("expected AM") };
        assert_eq!((c.max_retx_threshold, c.on_max_retx, c.poll_pdu), (8, MaxRetxAction::Discard, None));
        assert_eq!(c.t_poll_retransmit_ms, 20.0);
    }

    #[test]
    fn unknown_fields_and_modes_are_rejected() {
        assert!(parse(r#"{"mode": "um", "sn_bit": 5}"#).is_err());
        assert!(parse(r#"{"mode": "xm"}"#).is_err());
    }

    #[test]
    fn validate_names_the_bad_field() {
        let bad = [
            (RlcConfig::Um(UmConfig { sn_bits: 7, ..UmConfig::default() }), "rlc.sn_bits"),
            (RlcConfig::Um(UmConfig { t_reordering_ms: -1.0, ..UmConfig::default() }), "rlc.t_reordering_ms"),
            (RlcConfig::Tm(TmConfig { tx_buffer_bytes: 0 }), "rlc.tx_buffer_bytes"),
            (RlcConfig::Am(AmConfig { t_poll_retransmit_ms: 0.0, ..AmConfig::default() }), "rlc.t_poll_retransmit_ms"),
            (
                RlcConfig::Am(AmConfig { t_status_prohibit_ms: f64::NAN, ..AmConfig::default() }),
                "rlc.t_status_prohibit_ms",
            ),
            (RlcConfig::Am(AmConfig { max_retx_threshold: 0, ..AmConfig::default() }), "rlc.max_retx_threshold"),
            (RlcConfig::Am(AmConfig { poll_pdu: Some(0), ..AmConfig::default() }), "rlc.poll_pdu"),
            (RlcConfig::Am(AmConfig { poll_byte: Some(0), ..AmConfig::default() }), "rlc.poll_byte"),
        ];
        for (cfg, path) in bad {
            assert_eq!(cfg.validate("rlc").unwrap_err().path, path);
        }
        for good in [RlcConfig::default(), RlcConfig::Am(AmConfig::default()), RlcConfig::Tm(TmConfig::default())] {
            assert_eq!(good.validate("rlc"), Ok(()));
        }
    }
}
