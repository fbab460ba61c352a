//! What a receiver makes of a stretch of a PPDU: the success probability of its bits when other
//! transmissions overlap part of it (ns-3 `InterferenceHelper`: the stretch is cut into chunks
//! at every start and end of an interfering signal; each chunk is judged at its own SINR with
//! its share of the bits, and the stretch succeeds with the product).
//!
//! ```text
//!  SINR(t) = S / (N + sum of the powers of the signals on the air at t)
//!  P(success over [a, b)) = prod_chunks (1 - PER(mcs, SINR_chunk, bits x chunk / (b - a)))
//! ```

use super::error_model::chunk_success;
use super::ppdu::Fec;
use crate::radio::noise::to_db;

/// Another signal on the air at the receiver, ns and mW.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overlap {
    pub start_ns: u64,
    pub end_ns: u64,
    pub mw: f64,
}

/// Total interference at instant `t_ns`, mW.
pub fn interference_at(overlaps: &[Overlap], t_ns: u64) -> f64 {
    overlaps.iter().filter(|o| o.start_ns <= t_ns && t_ns < o.end_ns).map(|o| o.mw).sum()
}

/// Success probability of `bits` sent over `[a_ns, b_ns)` with error curve `mcs`, the wanted
/// signal `signal_mw` over `noise_mw` plus `overlaps`. `cuts` is scratch (kept to avoid allocating).
#[allow(clippy::too_many_arguments)]
pub fn stretch_success(
    mcs: u8,
    fec: Fec,
    signal_mw: f64,
    noise_mw: f64,
    overlaps: &[Overlap],
    (a_ns, b_ns): (u64, u64),
    bits: f64,
    cuts: &mut Vec<u64>,
) -> f64 {
    if b_ns <= a_ns {
        return 1.0;
    }
    cuts.clear();
    cuts.push(a_ns);
    for o in overlaps {
        for t in [o.start_ns, o.end_ns] {
            if t > a_ns && t < b_ns {
                cuts.push(t);
            }
        }
    }
    cuts.push(b_ns);
    cuts.sort_unstable();
    cuts.dedup();
    let span = (b_ns - a_ns) as f64;
    let mut p = 1.0;
    for w in cuts.windows(2) {
        let sinr_db = to_db(signal_mw / (noise_mw + interference_at(overlaps, w[0])));
        p *= chunk_success(mcs, fec, sinr_db, bits * (w[1] - w[0]) as f64 / span);
        if p == 0.0 {
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_interference_one_chunk_at_the_snr() {
        let mut cuts = Vec::new();
        // 1458 octets at MCS 0 and 0 dB: the table's 0.8185 PER.
        let p = stretch_success(0, Fec::Bcc, 1.0, 1.0, &[], (0, 1000), 1458.0 * 8.0, &mut cuts);
        assert!((p - (1.0 - 0.8185)).abs() < 1e-12);
    }

    #[test]
    fn an_overlap_over_half_the_frame_cuts_it_in_two_chunks() {
        let mut cuts = Vec::new();
        // Interference as strong as the signal over the second half: that half fails for certain.
        let o = [Overlap { start_ns: 500, end_ns: 2000, mw: 1e4 }];
        let p = stretch_success(7, Fec::Bcc, 1e4, 1.0, &o, (0, 1000), 1458.0 * 8.0, &mut cuts);
        assert_eq!(p, 0.0);
        assert_eq!(cuts, [0, 500, 1000]);
        // A weak one changes nothing at 40 dB.
        let weak = [Overlap { start_ns: 500, end_ns: 2000, mw: 1e-3 }];
        assert_eq!(stretch_success(7, Fec::Bcc, 1e4, 1.0, &weak, (0, 1000), 11664.0, &mut cuts), 1.0);
    }
}
