//! Ideal rate control (ns-3 `IdealWifiManager`): the receiver's SNR of the last data PPDU comes
//! back with its acknowledgement, and the sender picks the highest VHT-MCS whose error rate at
//! that SNR is negligible.
//!
//! ns-3 takes, per MCS, the SNR at which its error model gives a bit error rate of 1e-6
//! (`BerThreshold`): for the table-based model (a one-octet frame's PER, floored at 1e-5) that is
//! the SNR where a one-octet frame's error rate falls to 0, the threshold used here. Before any
//! SNR is known the lowest MCS is used (ns-3 starts from an SNR of 0).

use super::{LinkCaps, TxReport};
use crate::wifi::phy::error_model::per;
use crate::wifi::phy::vht::{TxVector, MAX_MCS};

/// ns-3 `IdealWifiManager::BerThreshold` default.
const BER_THRESHOLD: f64 = 1e-6;
/// The frame size whose error rate stands for the bit error rate: one octet (ns-3 asks its
/// error model for the success rate of one bit, which the table model rounds up to an octet).
const PROBE_BYTES: f64 = 1.0;

#[derive(Clone, Debug)]
pub struct Ideal {
    caps: LinkCaps,
    /// SNR thresholds of MCS 0-9 at this link's width and streams, dB (`None` where the MCS does not exist).
    thresholds_db: [Option<f64>; 10],
    last_snr_db: Option<f64>,
}

impl Ideal {
    pub fn new(caps: LinkCaps) -> Self {
        let mut thresholds_db = [None; 10];
        for (mcs, t) in (0..=MAX_MCS).zip(thresholds_db.iter_mut()) {
            let tx = TxVector { mcs, width: caps.width, nss: caps.nss, gi: caps.gi };
            if tx.is_valid() {
                *t = Some(threshold_db(mcs, caps));
            }
        }
        Ideal { caps, thresholds_db, last_snr_db: None }
    }

    pub fn choose(&self) -> TxVector {
        let mcs = match self.last_snr_db {
            None => 0,
            Some(snr) => (0..=MAX_MCS)
                .filter(|&m| self.thresholds_db[usize::from(m)].is_some_and(|t| t <= snr))
                .max()
                .unwrap_or(0),
        };
        TxVector { mcs, width: self.caps.width, nss: self.caps.nss, gi: self.caps.gi }
    }

    pub fn report(&mut self, r: &TxReport) {
        if let Some(snr) = r.rx_snr_db {
            self.last_snr_db = Some(snr);
        }
    }
}

/// The lowest SNR (0.01 dB steps, the table's resolution) at which a one-octet frame's error rate
/// is below the BER threshold.
fn threshold_db(mcs: u8, caps: LinkCaps) -> f64 {
    let (mut lo, mut hi) = (-20.0f64, 60.0f64);
    while hi - lo > 0.005 {
        let mid = 0.5 * (lo + hi);
        if per(mcs, caps.fec, mid, PROBE_BYTES) <= BER_THRESHOLD {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wifi::phy::ppdu::Fec;
    use crate::wifi::phy::vht::{GuardInterval, Width};

    fn caps() -> LinkCaps {
        LinkCaps { width: Width::Mhz20, gi: GuardInterval::Normal800, nss: 1, fec: Fec::Bcc }
    }

    #[test]
    fn thresholds_rise_with_the_mcs_and_the_choice_follows_the_snr() {
        let mut i = Ideal::new(caps());
        let t: Vec<f64> = i.thresholds_db.iter().flatten().copied().collect();
        assert_eq!(t.len(), 9, "MCS 9 does not exist at 20 MHz with one stream");
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        assert_eq!(i.choose().mcs, 0, "no SNR known yet");
        let tx = i.choose();
        i.report(&TxReport { tx, mpdus: 1, acked: 1, rx_snr_db: Some(40.0) });
        assert_eq!(i.choose().mcs, 8);
        i.report(&TxReport { tx, mpdus: 1, acked: 1, rx_snr_db: Some(t[4] + 0.01) });
        assert_eq!(i.choose().mcs, 4);
    }
}
