//! Power received from an eNB (the serving one or a neighbour), mW per whole band.
//!
//! Neighbour eNBs are full-buffer: each transmits its full power on every downlink
//! RB in every TTI (TR 36.814 §A.2.1.1 full-buffer traffic model; seed 004's data
//! and control interference). Their links get path loss and shadowing (each link its
//! own Gudmundson process) but no fast fading: summed over many interferers the fast
//! fading averages out, and it would multiply the cost per TTI by the number of sites.
//! Uplink interference (from UEs of neighbour cells) is not modelled.
//! Each site's antenna pattern ([`super::antenna`]) weighs its power towards the UE.

use super::antenna::Antenna;
use super::noise::dbm_to_mw;
use super::pathloss::{loss_db, LinkGeometry};
use super::spec::PathLossSpec;

/// A transmitting eNB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Site {
    pub xy_m: [f64; 2],
    pub height_m: f64,
    pub tx_power_mw: f64,
    pub antenna: Antenna,
}

impl Site {
    pub fn new(xy_m: [f64; 2], height_m: f64, tx_power_dbm: f64, antenna: Antenna) -> Self {
        Site { xy_m, height_m, tx_power_mw: dbm_to_mw(tx_power_dbm), antenna }
    }

    /// Linear gain of the link to a UE at `ue_xy_m`, `ue_height_m`: antenna gain towards the UE,
    /// path loss at `f_mhz` and `shadow_db` (the antenna pattern is reciprocal: UL uses it too).
    pub fn gain_lin(
        &self,
        model: &PathLossSpec,
        ue_xy_m: [f64; 2],
        ue_height_m: f64,
        f_mhz: f64,
        shadow_db: f64,
    ) -> f64 {
        let g = LinkGeometry::new(self.xy_m, self.height_m, ue_xy_m, ue_height_m);
        let antenna_db = self.antenna.gain_db(self.xy_m, ue_xy_m);
        10f64.powf((antenna_db - loss_db(model, &g, f_mhz) - shadow_db) / 10.0)
    }
}

/// Sum of the whole-band power received from `sites`, mW, each with its own shadowing (dB).
pub fn total_interference_mw(
    sites: &[Site],
    shadow_db: impl Iterator<Item = f64>,
    model: &PathLossSpec,
    ue_xy_m: [f64; 2],
    ue_height_m: f64,
    f_mhz: f64,
) -> f64 {
    sites.iter().zip(shadow_db).map(|(s, sh)| s.tx_power_mw * s.gain_lin(model, ue_xy_m, ue_height_m, f_mhz, sh)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_equal_interferers_at_equal_distance_double_the_power() {
        // Friis at 2.1 GHz, 100 m: 78.892 dB (pathloss tests) over ~100 m (3-D distance with 30 m / 1.5 m heights
        // is 104.0 m, +0.34 dB). One 46 dBm site: 46 - 79.23 = -33.23 dBm; two: +3.01 dB.
        let a = Site::new([100.0, 0.0], 30.0, 46.0, Antenna::Isotropic);
        let b = Site::new([-100.0, 0.0], 30.0, 46.0, Antenna::Isotropic);
        let one = total_interference_mw(&[a], [0.0].into_iter(), &PathLossSpec::Friis, [0.0, 0.0], 1.5, 2100.0);
        let two = total_interference_mw(&[a, b], [0.0, 0.0].into_iter(), &PathLossSpec::Friis, [0.0, 0.0], 1.5, 2100.0);
        let d3 = 100f64.hypot(28.5);
        let want_dbm = 46.0 - 20.0 * (4.0 * std::f64::consts::PI * d3 * 2.1e9 / 299_792_458.0).log10();
        assert!((10.0 * one.log10() - want_dbm).abs() < 1e-9);
        assert!((two / one - 2.0).abs() < 1e-12);
        // Shadowing of +10 dB on a link divides its power by 10.
        let shaded = total_interference_mw(&[a], [10.0].into_iter(), &PathLossSpec::Friis, [0.0, 0.0], 1.5, 2100.0);
        assert!((one / shaded - 10.0).abs() < 1e-9);
    }
}
