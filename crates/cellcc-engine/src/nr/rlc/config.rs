//! NR RLC and PDCP configuration per bearer (TS 38.322 §7.3 timers, §7.4 constants; TS 38.323
//! §7.3), as written (`*Spec`, every field optional) and resolved with the cell's profile.

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::ScenarioError;
use crate::lte::rlc::MaxRetxAction;

/// Largest transmission buffer accepted, bytes (as the LTE bearer's).
pub const MAX_TX_BUFFER_BYTES: u32 = 1 << 30;
/// Longest timer accepted, ms: TS 38.331's t-Reassembly tops at 200 ms, t-PollRetransmit at
/// 4000 ms, t-StatusProhibit at 2400 ms, PDCP t-Reordering at 3000 ms; we allow 10 s for experiments.
pub const MAX_TIMER_MS: f64 = 10_000.0;

/// An NR data radio bearer's RLC mode (TS 38.322 §4.2.1: TM carries no DRB).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum NrRlcConfig {
    Um(NrUmConfig),
    Am(NrAmConfig),
}

/// UM parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NrUmConfig {
    /// Transmission buffer, bytes of SDUs, 1..=2^30.
    pub tx_buffer_bytes: u32,
    /// `sn-FieldLength` 6 or 12 bits (TS 38.322 §6.2.3.3).
    pub sn_bits: u8,
    /// t-Reassembly, ms, 0..=10000 (TS 38.322 §7.3).
    pub t_reassembly_ms: f64,
}

/// AM parameters.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NrAmConfig {
    pub tx_buffer_bytes: u32,
    /// `sn-FieldLength` 12 or 18 bits (TS 38.322 §6.2.3.3).
    pub sn_bits: u8,
    /// t-PollRetransmit, ms, (0, 10000].
    pub t_poll_retransmit_ms: f64,
    /// pollPDU (§5.3.3.2), 1..=1000000; None = infinity.
    pub poll_pdu: Option<u32>,
    /// pollByte, bytes, 1..=2^30; None = infinity.
    pub poll_byte: Option<u32>,
    /// maxRetxThreshold, 1..=32 (TS 38.331 `UL-AM-RLC`).
    pub max_retx_threshold: u32,
    pub on_max_retx: MaxRetxAction,
    /// t-Reassembly, ms, 0..=10000.
    pub t_reassembly_ms: f64,
    /// t-StatusProhibit, ms, 0..=10000.
    pub t_status_prohibit_ms: f64,
}

/// The PDCP entity of a DRB (TS 38.323).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrPdcpConfig {
    /// `pdcp-SN-SizeDL/UL`: 12 or 18 bits (TS 38.323 §6.2.2.1-2: a 2- or 3-byte data PDU header).
    pub sn_bits: u8,
    /// t-Reordering, ms, 0..=10000 (TS 38.323 §7.3); how long a gap in COUNT holds later SDUs.
    pub t_reordering_ms: f64,
}

/// A bearer's RLC as written: the mode and any of its fields; the rest from the cell's profile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum NrRlcSpec {
    Um(NrUmSpec),
    Am(NrAmSpec),
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrUmSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_buffer_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sn_bits: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_reassembly_ms: Option<f64>,
}

/// AM fields as written; `poll_pdu` and `poll_byte` tell unset (absent) from infinity (`null`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrAmSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_buffer_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sn_bits: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_poll_retransmit_ms: Option<f64>,
    #[serde(default, deserialize_with = "set_or_null", skip_serializing_if = "Option::is_none")]
    pub poll_pdu: Option<Option<u32>>,
    #[serde(default, deserialize_with = "set_or_null", skip_serializing_if = "Option::is_none")]
    pub poll_byte: Option<Option<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retx_threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_max_retx: Option<MaxRetxAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_reassembly_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_status_prohibit_ms: Option<f64>,
}

/// PDCP fields as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NrPdcpSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sn_bits: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_reordering_ms: Option<f64>,
}

fn set_or_null<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A profile's bearer defaults.
#[derive(Debug)]
pub struct BearerDefaults {
    pub am: bool,
    pub um: NrUmConfig,
    pub am_cfg: NrAmConfig,
    pub pdcp: NrPdcpConfig,
}

impl NrRlcSpec {
    /// The bearer's RLC: the written fields, the profile's for the rest.
    pub fn resolve(spec: Option<&NrRlcSpec>, d: &BearerDefaults) -> NrRlcConfig {
        let (um, am) = (&d.um, &d.am_cfg);
        match spec {
            None if d.am => NrRlcConfig::Am(am.clone()),
            None => NrRlcConfig::Um(um.clone()),
            Some(NrRlcSpec::Um(s)) => NrRlcConfig::Um(NrUmConfig {
                tx_buffer_bytes: s.tx_buffer_bytes.unwrap_or(um.tx_buffer_bytes),
                sn_bits: s.sn_bits.unwrap_or(um.sn_bits),
                t_reassembly_ms: s.t_reassembly_ms.unwrap_or(um.t_reassembly_ms),
            }),
            Some(NrRlcSpec::Am(s)) => NrRlcConfig::Am(NrAmConfig {
                tx_buffer_bytes: s.tx_buffer_bytes.unwrap_or(am.tx_buffer_bytes),
                sn_bits: s.sn_bits.unwrap_or(am.sn_bits),
                t_poll_retransmit_ms: s.t_poll_retransmit_ms.unwrap_or(am.t_poll_retransmit_ms),
                poll_pdu: s.poll_pdu.unwrap_or(am.poll_pdu),
                poll_byte: s.poll_byte.unwrap_or(am.poll_byte),
                max_retx_threshold: s.max_retx_threshold.unwrap_or(am.max_retx_threshold),
                on_max_retx: s.on_max_retx.unwrap_or(am.on_max_retx),
                t_reassembly_ms: s.t_reassembly_ms.unwrap_or(am.t_reassembly_ms),
                t_status_prohibit_ms: s.t_status_prohibit_ms.unwrap_or(am.t_status_prohibit_ms),
            }),
        }
    }
}

impl NrPdcpSpec {
    pub fn resolve(&self, d: &BearerDefaults) -> NrPdcpConfig {
        NrPdcpConfig {
            sn_bits: self.sn_bits.unwrap_or(d.pdcp.sn_bits),
            t_reordering_ms: self.t_reordering_ms.unwrap_or(d.pdcp.t_reordering_ms),
        }
    }
}

fn bad(path: &str, field: &str, value: impl std::fmt::Display, allowed: &str) -> ScenarioError {
    ScenarioError::new(format!("{path}.{field}"), value, allowed)
}

fn timer(path: &str, field: &str, ms: f64, zero_ok: bool) -> Result<(), ScenarioError> {
    let low = if zero_ok { ms >= 0.0 } else { ms > 0.0 };
    if ms.is_finite() && low && ms <= MAX_TIMER_MS {
        Ok(())
    } else {
        Err(bad(path, field, ms, if zero_ok { "ms in [0, 10000]" } else { "ms in (0, 10000]" }))
    }
}

fn buffer(path: &str, bytes: u32) -> Result<(), ScenarioError> {
    if (1..=MAX_TX_BUFFER_BYTES).contains(&bytes) {
        Ok(())
    } else {
        Err(bad(path, "tx_buffer_bytes", bytes, "bytes in [1, 1073741824]"))
    }
}

impl NrRlcConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        match self {
            NrRlcConfig::Um(c) => {
                buffer(path, c.tx_buffer_bytes)?;
                if c.sn_bits != 6 && c.sn_bits != 12 {
                    return Err(bad(path, "sn_bits", c.sn_bits, "6 or 12 (TS 38.322 §6.2.3.3, UM)"));
                }
                timer(path, "t_reassembly_ms", c.t_reassembly_ms, true)
            }
            NrRlcConfig::Am(c) => {
                buffer(path, c.tx_buffer_bytes)?;
                if c.sn_bits != 12 && c.sn_bits != 18 {
                    return Err(bad(path, "sn_bits", c.sn_bits, "12 or 18 (TS 38.322 §6.2.3.3, AM)"));
                }
                timer(path, "t_poll_retransmit_ms", c.t_poll_retransmit_ms, false)?;
                timer(path, "t_reassembly_ms", c.t_reassembly_ms, true)?;
                timer(path, "t_status_prohibit_ms", c.t_status_prohibit_ms, true)?;
                if c.poll_pdu.is_some_and(|n| !(1..=1_000_000).contains(&n)) {
                    return Err(bad(path, "poll_pdu", c.poll_pdu.unwrap_or(0), "1..=1000000, or null for infinity"));
                }
                if c.poll_byte.is_some_and(|n| !(1..=MAX_TX_BUFFER_BYTES).contains(&n)) {
                    return Err(bad(
                        path,
                        "poll_byte",
                        c.poll_byte.unwrap_or(0),
                        "1..=1073741824, or null for infinity",
                    ));
                }
                if !(1..=32).contains(&c.max_retx_threshold) {
                    return Err(bad(
                        path,
                        "max_retx_threshold",
                        c.max_retx_threshold,
                        "1..=32 (TS 38.331 maxRetxThreshold)",
                    ));
                }
                Ok(())
            }
        }
    }
}

impl NrPdcpConfig {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        if self.sn_bits != 12 && self.sn_bits != 18 {
            return Err(bad(path, "sn_bits", self.sn_bits, "12 or 18 (TS 38.323 §6.3.2)"));
        }
        timer(path, "t_reordering_ms", self.t_reordering_ms, true)
    }

    /// The data PDU header, bytes (TS 38.323 §6.2.2.1: 12-bit SN 2 bytes, 18-bit SN 3 bytes).
    pub fn header_bytes(&self) -> u32 {
        if self.sn_bits == 12 {
            2
        } else {
            3
        }
    }
}
