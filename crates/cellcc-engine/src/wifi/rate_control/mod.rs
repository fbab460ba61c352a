//! Rate control: which VHT-MCS (and how many streams, which width and guard interval) a station
//! sends its next data PPDU to a peer with, from what it learned of the earlier ones.
//!
//! ```text
//!  choose(now) ──► TxVector ──► PPDU ──► BlockAck / Ack / nothing ──► report(now, tx, sent, acked)
//! ```
//! One manager per (station, peer), as ns-3's `WifiRemoteStationManager` keeps one remote-station
//! state per peer and Linux mac80211 one `minstrel_ht_sta` per station.

pub mod constant;
pub mod ideal;
pub mod minstrel_ht;

use super::phy::ppdu::Fec;
use super::phy::vht::{GuardInterval, TxVector, Width};
use crate::sim::{RngStream, SimTime};
use serde::{Deserialize, Serialize};

/// The rate manager of a BSS, as the scenario names it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RateManagerSpec {
    /// One VHT-MCS for every data PPDU (ns-3 `ConstantRateWifiManager` DataMode `VhtMcs<mcs>`).
    Constant {
        /// VHT-MCS, 0-9; it must exist at the BSS's width for every station's streams.
        mcs: u8,
    },
    /// The highest MCS whose error rate at the receiver's last SNR is negligible, the SNR known
    /// without delay or error (ns-3 `IdealWifiManager`, its 1e-6 BER threshold).
    Ideal,
    /// Minstrel-HT (Linux mac80211 `rc80211_minstrel_ht.c` as ns-3 `MinstrelHtWifiManager`
    /// runs it): per-rate success statistics, sampling, a three-rate retry chain.
    MinstrelHt,
}

impl Default for RateManagerSpec {
    /// Minstrel-HT: Linux mac80211's rate control, what a Linux AP or station runs.
    fn default() -> Self {
        RateManagerSpec::MinstrelHt
    }
}

/// What the link between a station and one peer offers: the BSS's width and guard interval and
/// the streams both ends support.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkCaps {
    pub width: Width,
    pub gi: GuardInterval,
    pub nss: u8,
    pub fec: Fec,
}

/// The outcome of one data PPDU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TxReport {
    pub tx: TxVector,
    pub mpdus: u32,
    pub acked: u32,
    /// The SNR the receiver measured, dB, when an acknowledgement came back (ns-3's `SnrTag`).
    pub rx_snr_db: Option<f64>,
}

/// One (station, peer) rate manager.
#[derive(Clone, Debug)]
pub enum RateManager {
    Constant(constant::Constant),
    Ideal(ideal::Ideal),
    MinstrelHt(Box<minstrel_ht::MinstrelHt>),
}

impl RateManager {
    pub fn new(spec: RateManagerSpec, caps: LinkCaps, rng: RngStream) -> Self {
        match spec {
            RateManagerSpec::Constant { mcs } => RateManager::Constant(constant::Constant::new(caps, mcs)),
            RateManagerSpec::Ideal => RateManager::Ideal(ideal::Ideal::new(caps)),
            RateManagerSpec::MinstrelHt => RateManager::MinstrelHt(Box::new(minstrel_ht::MinstrelHt::new(caps, rng))),
        }
    }

    /// The TXVECTOR of the next data PPDU.
    pub fn choose(&mut self, now: SimTime) -> TxVector {
        match self {
            RateManager::Constant(c) => c.choose(),
            RateManager::Ideal(i) => i.choose(),
            RateManager::MinstrelHt(m) => m.choose(now),
        }
    }

    pub fn report(&mut self, now: SimTime, r: &TxReport) {
        match self {
            RateManager::Constant(_) => {}
            RateManager::Ideal(i) => i.report(r),
            RateManager::MinstrelHt(m) => m.report(now, r),
        }
    }
}
