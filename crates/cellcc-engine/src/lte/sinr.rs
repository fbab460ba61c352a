//! Where the PHY gets its SINR: the seam between the radio channel and the RAN.
//!
//! The PHY asks lazily, only for the UEs and TTIs it needs (a CQI measurement,
//! a transport block's decoding, a PDCCH decision), so an idle cell computes nothing.
//! Simple sources (fixed, CSV time series, linear ramp) live here; the
//! geometric channel (path loss, shadowing, fading, interference) is
//! [`super::channel`] and implements the same trait.

use super::sap::{LinkDir, UeIndex};
use crate::sim::SimTime;

/// Per-RB SINR for the UEs of one cell.
pub trait SinrSource {
    /// Fill `out[rb]` with the SINR (dB) of RB `rb` for `ue` in `dir` during the TTI starting at `now`.
    /// `out.len()` is the cell's number of RBs. Calls come in non-decreasing `now` per UE.
    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]);

    /// SINR of the downlink control region (PCFICH/PDCCH) for `ue` at `now`, dB.
    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64;
}
