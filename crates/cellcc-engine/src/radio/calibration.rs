//! Geometry (wideband downlink SINR) of UEs dropped uniformly over the 19-site / 57-cell
//! hexagonal layout with wrap-around: the large-scale check of the system-simulation calibration.
//!
//! The case is 3GPP TR 36.814 Table A.2.1.1-1 "Case 1" with the macro model of Table A.2.1.1-2
//! (the same as TR 25.814 Table A.2.1.1-1 / R1-070674): ISD 500 m, 2 GHz, 10 MHz, 46 dBm per
//! cell, path loss 128.1 + 37.6 log10(R / km), 20 dB penetration loss, 8 dB log-normal
//! shadowing correlated 0.5 between sites and 1 between the sectors of a site, the parabolic
//! sector pattern (70 degrees, 20 dB front-to-back), 14 dBi antenna gain (with cable loss),
//! UE noise figure 9 dB, UEs at least 35 m from a site. Geometry is 2-D (no heights, no tilt).
//!
//! Every cell transmits at full power (full buffer); the serving cell is the strongest one
//! including shadowing and antenna gain; geometry = S / (N + sum of the other 56 cells).
//! Wrap-around: the 19-site cluster tiles the plane, so each site is seen through whichever of
//! its seven images (itself and the six neighbouring clusters') is nearest the UE. Every site is
//! then alike, and UEs dropped over the centre site's area stand for UEs dropped over all 57 cells.
//!
//! Sites come from [`super::antenna::hex_sites`] and sector boresights from
//! [`super::antenna::SECTOR_ORIENTATIONS_DEG`], the same layout the channel uses.

use super::antenna::{hex_sites, Antenna, SECTOR_ORIENTATIONS_DEG};
use super::noise::{dbm_to_mw, to_db, THERMAL_NOISE_DBM_PER_HZ};
use crate::sim::RngStream;
use rand_distr::{Distribution, StandardNormal};

/// One calibration case's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationCase {
    pub rings: u8,
    pub isd_m: f64,
    pub tx_power_dbm: f64,
    pub bandwidth_hz: f64,
    /// Path loss `intercept + slope log10(R / km)`, dB.
    pub pathloss_intercept_db: f64,
    pub pathloss_slope_db: f64,
    pub penetration_loss_db: f64,
    pub shadowing_sigma_db: f64,
    /// Correlation of the shadowing towards two different sites (1 between sectors of one site).
    pub inter_site_correlation: f64,
    pub beamwidth_deg: f64,
    pub front_to_back_db: f64,
    pub antenna_gain_dbi: f64,
    pub ue_noise_figure_db: f64,
    pub min_distance_m: f64,
    pub wrap_around: bool,
}

// 3GPP TR 36.814 Table A.2.1.1-1 (Case 1) and Table A.2.1.1-2 (macro cell propagation and antennas).
pub const TR36814_CASE1: CalibrationCase = CalibrationCase {
    rings: 2,
    isd_m: 500.0,
    tx_power_dbm: 46.0,
    bandwidth_hz: 10e6,
    pathloss_intercept_db: 128.1,
    pathloss_slope_db: 37.6,
    penetration_loss_db: 20.0,
    shadowing_sigma_db: 8.0,
    inter_site_correlation: 0.5,
    beamwidth_deg: 70.0,
    front_to_back_db: 20.0,
    antenna_gain_dbi: 14.0,
    ue_noise_figure_db: 9.0,
    min_distance_m: 35.0,
    wrap_around: true,
};

/// The cells of the layout and the wrap-around images of its cluster.
pub struct Layout {
    case: CalibrationCase,
    sites: Vec<[f64; 2]>,
    /// Translations of the cluster: zero, then the six neighbouring clusters (none without wrap-around).
    images: Vec<[f64; 2]>,
    sectors: Vec<Antenna>,
    noise_mw: f64,
}

/// The result for one UE.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drop {
    pub xy_m: [f64; 2],
    pub serving_cell: usize,
    pub geometry_db: f64,
}

impl Layout {
    pub fn new(case: &CalibrationCase) -> Self {
        let n = f64::from(case.rings);
        // The radius-n cluster of 3n(n+1)+1 sites repeats at (2n+1, -n) in axial coordinates and
        // its five rotations by 60 degrees (|v| = ISD sqrt(3n^2 + 3n + 1)).
        let v0 = [case.isd_m * (3.0 * n + 2.0) / 2.0, -case.isd_m * (0.75f64).sqrt() * n];
        let mut images = vec![[0.0, 0.0]];
        if case.wrap_around {
            for k in 0..6 {
                let (s, c) = (f64::from(k) * std::f64::consts::FRAC_PI_3).sin_cos();
                images.push([v0[0] * c - v0[1] * s, v0[0] * s + v0[1] * c]);
            }
        }
        let sectors = SECTOR_ORIENTATIONS_DEG
            .iter()
            .map(|o| Antenna::Parabolic {
                orientation_rad: o.to_radians(),
                beamwidth_rad: case.beamwidth_deg.to_radians(),
                max_attenuation_db: case.front_to_back_db,
            })
            .collect();
        let noise_dbm = THERMAL_NOISE_DBM_PER_HZ + 10.0 * case.bandwidth_hz.log10() + case.ue_noise_figure_db;
        Layout {
            case: case.clone(),
            sites: hex_sites([0.0, 0.0], case.rings, case.isd_m),
            images,
            sectors,
            noise_mw: dbm_to_mw(noise_dbm),
        }
    }

    pub fn n_cells(&self) -> usize {
        self.sites.len() * self.sectors.len()
    }

    /// Path loss at `d_m`, dB (TR 36.814 Table A.2.1.1-2: R in km).
    pub fn pathloss_db(&self, d_m: f64) -> f64 {
        self.case.pathloss_intercept_db + self.case.pathloss_slope_db * (d_m / 1000.0).log10()
    }

    /// The image of `site` nearest to `ue` (the site itself without wrap-around).
    fn nearest_image(&self, site: [f64; 2], ue: [f64; 2]) -> [f64; 2] {
        let at = |v: &[f64; 2]| [site[0] + v[0], site[1] + v[1]];
        let dist2 = |p: [f64; 2]| (p[0] - ue[0]).powi(2) + (p[1] - ue[1]).powi(2);
        self.images.iter().map(at).min_by(|a, b| dist2(*a).total_cmp(&dist2(*b))).unwrap_or(site)
    }

    /// Power received at `ue` from every cell (site-major, sectors in [`SECTOR_ORIENTATIONS_DEG`]
    /// order), mW, with `shadow_db[site]` (shared by the site's sectors) into `out`.
    pub fn received_mw(&self, ue: [f64; 2], shadow_db: &[f64], out: &mut Vec<f64>) {
        out.clear();
        let c = &self.case;
        for (j, site) in self.sites.iter().enumerate() {
            let s = self.nearest_image(*site, ue);
            let d_m = (ue[0] - s[0]).hypot(ue[1] - s[1]).max(c.min_distance_m);
            let common = c.tx_power_dbm + c.antenna_gain_dbi
                - self.pathloss_db(d_m)
                - c.penetration_loss_db
                - shadow_db.get(j).copied().unwrap_or(0.0);
            out.extend(self.sectors.iter().map(|a| dbm_to_mw(common + a.gain_db(s, ue))));
        }
    }

    /// Geometry of a UE at `ue` with per-site shadowing: (serving cell, S / (N + I) in dB).
    pub fn geometry(&self, ue: [f64; 2], shadow_db: &[f64], scratch: &mut Vec<f64>) -> (usize, f64) {
        self.received_mw(ue, shadow_db, scratch);
        let (serving, s) =
            scratch.iter().copied().enumerate().fold((0, 0.0), |b, (i, p)| if p > b.1 { (i, p) } else { b });
        let total: f64 = scratch.iter().sum();
        (serving, to_db(s / (self.noise_mw + total - s)))
    }

    /// A point drawn uniformly over the centre site's hexagon (the area closer to it than to any
    /// other site: |p . u| <= ISD / 2 towards each of the six neighbours), at least the minimum distance away.
    fn drop_point(&self, rng: &mut RngStream) -> [f64; 2] {
        let (half, r) = (self.case.isd_m / 2.0, self.case.isd_m / 3f64.sqrt());
        loop {
            let p = [half * (2.0 * rng.uniform() - 1.0), r * (2.0 * rng.uniform() - 1.0)];
            let inside = (0..3).all(|k| {
                let (s, c) = (f64::from(k) * std::f64::consts::FRAC_PI_3).sin_cos();
                (p[0] * c + p[1] * s).abs() <= half
            });
            if inside && p[0].hypot(p[1]) >= self.case.min_distance_m {
                return p;
            }
        }
    }

    /// Per-site shadowing of one UE: sigma (sqrt(rho) X + sqrt(1 - rho) Y_site), X shared by all sites
    /// (TR 36.814 Table A.2.1.1-2: correlation rho between sites, 1 between the sectors of a site).
    fn draw_shadowing(&self, rng: &mut RngStream, out: &mut Vec<f64>) {
        let c = &self.case;
        let (a, b) = (c.inter_site_correlation.sqrt(), (1.0 - c.inter_site_correlation).sqrt());
        let x: f64 = StandardNormal.sample(rng.inner());
        out.clear();
        for _ in &self.sites {
            let y: f64 = StandardNormal.sample(rng.inner());
            out.push(c.shadowing_sigma_db * (a * x + b * y));
        }
    }
}

/// Drop `n_ues` UEs and return each one's position, serving cell and geometry, from the seed alone.
pub fn drop_ues(case: &CalibrationCase, n_ues: usize, seed: u64) -> Vec<Drop> {
    let layout = Layout::new(case);
    let mut rng = RngStream::new(seed, "calibration:geometry");
    let (mut shadow, mut scratch) = (Vec::new(), Vec::new());
    (0..n_ues)
        .map(|_| {
            let xy_m = layout.drop_point(&mut rng);
            layout.draw_shadowing(&mut rng, &mut shadow);
            let (serving_cell, geometry_db) = layout.geometry(xy_m, &shadow, &mut scratch);
            Drop { xy_m, serving_cell, geometry_db }
        })
        .collect()
}

/// The `q`-quantile (0..=1) of `values` (sorted copy, nearest rank).
pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len().max(1)) - 1;
    v.get(i).copied().unwrap_or(f64::NAN)
}

pub mod uma3d;

#[cfg(test)]
mod tests;
