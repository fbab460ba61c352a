//! The 3GPP TR 36.873 §8.2 phase-1 calibration case 3D-UMa with antenna K = M = 1 (one element,
//! no tilt) on the same 19-site / 57-cell wrap-around layout: the nearest case with published
//! 3GPP reference curves (the median of the companies' results, as tabulated in QuaDRiGa's
//! `tutorials/calib_3GPP_ref_data.m`). Geometry here is S / I (no noise), as that reference.
//!
//! Models (TR 36.873 V12): path loss Table 7.2-1 (3D-UMa LOS with breakpoint, NLOS =
//! max(NLOS formula, LOS)); LOS probability Table 7.2-2 with the UE-height term; 80 % of UEs
//! indoor on floor n_fl ~ U{1..N_fl}, N_fl ~ U{4..8}, h_UT = 3 (n_fl - 1) + 1.5 m, O2I loss
//! 20 dB + 0.5 d_in with d_in ~ U(0, 25) m (§7.2.1, §7.2.2); shadowing Table 7.3-6 (LOS 4 dB,
//! NLOS 6 dB, O2I 7 dB), one value per site (shared by its sectors); element pattern Table 7.1-1
//! (65 degree beams, 30 dB limits). BS height 25 m, ISD 500 m, 2 GHz, 35 m minimum distance.

use super::{Layout, TR36814_CASE1};
use crate::radio::antenna::SECTOR_ORIENTATIONS_DEG;
use crate::radio::noise::{dbm_to_mw, to_db};
use crate::radio::pathloss::SPEED_OF_LIGHT_MPS;
use crate::sim::RngStream;
use rand_distr::{Distribution, StandardNormal};

// TR 36.873 Table 6-1 (3D-UMa): BS height 25 m; carrier 2 GHz (Table 8.2-1).
const BS_HEIGHT_M: f64 = 25.0;
const CARRIER_GHZ: f64 = 2.0;
// TR 36.873 Table 7.2-1 footnotes: street width 20 m, building height 20 m, h_E = 1 m.
const STREET_WIDTH_M: f64 = 20.0;
const BUILDING_HEIGHT_M: f64 = 20.0;
const EFFECTIVE_ENV_HEIGHT_M: f64 = 1.0;
// TR 36.873 §7.2.1 / Table 6-1: 80 % indoor UEs; O2I: 20 dB wall + 0.5 dB/m over d_in ~ U(0, 25 m).
const INDOOR_FRACTION: f64 = 0.8;
const WALL_LOSS_DB: f64 = 20.0;
const INDOOR_LOSS_DB_PER_M: f64 = 0.5;
const MAX_INDOOR_DISTANCE_M: f64 = 25.0;
// TR 36.873 Table 7.3-6: shadow-fading sigma, 3D-UMa.
const SIGMA_LOS_DB: f64 = 4.0;
const SIGMA_NLOS_DB: f64 = 6.0;
const SIGMA_O2I_DB: f64 = 7.0;
// TR 36.873 Table 7.1-1: element 3 dB beamwidths (65 degrees), side-lobe and front-back limits 30 dB.
const ELEMENT_BEAMWIDTH_DEG: f64 = 65.0;
const ELEMENT_LIMIT_DB: f64 = 30.0;

/// Geometry CDF points (dB) at 0, 5, ..., 100 % for 3D-UMa, ISD 500 m, K = M = 1: the median of
/// the companies' results in the TR 36.873 V12.5 §8.2 phase-1 calibration, as tabulated in
/// QuaDRiGa (fraunhoferhhi/QuaDRiGa, tutorials/calib_3GPP_ref_data.m, `gf36873a` row 3).
pub const REFERENCE_GEOMETRY_DB: [f64; 21] = [
    -8.4, -3.1, -1.9, -0.9, -0.1, 0.6, 1.4, 2.2, 3.0, 4.0, 4.9, 6.0, 7.2, 8.5, 9.9, 11.6, 13.5, 15.9, 18.8, 22.6, 26.7,
];

/// 3D-UMa path loss at `d2_m`, `d3_m` for a UE at `h_ut_m`, LOS or NLOS, dB.
pub fn pathloss_db(d2_m: f64, d3_m: f64, h_ut_m: f64, los: bool) -> f64 {
    let fc = CARRIER_GHZ;
    let d_bp = 4.0 * (BS_HEIGHT_M - EFFECTIVE_ENV_HEIGHT_M) * (h_ut_m - EFFECTIVE_ENV_HEIGHT_M) * fc * 1e9
        / SPEED_OF_LIGHT_MPS;
    let pl_los = if d2_m < d_bp {
        22.0 * d3_m.log10() + 28.0 + 20.0 * fc.log10()
    } else {
        40.0 * d3_m.log10() + 28.0 + 20.0 * fc.log10() - 9.0 * (d_bp * d_bp + (BS_HEIGHT_M - h_ut_m).powi(2)).log10()
    };
    if los {
        return pl_los;
    }
    let (w, h, hb) = (STREET_WIDTH_M, BUILDING_HEIGHT_M, BS_HEIGHT_M);
    let pl_nlos = 161.04 - 7.1 * w.log10() + 7.5 * h.log10() - (24.37 - 3.7 * (h / hb).powi(2)) * hb.log10()
        + (43.42 - 3.1 * hb.log10()) * (d3_m.log10() - 3.0)
        + 20.0 * fc.log10()
        - (3.2 * 17.625f64.log10().powi(2) - 4.97)
        - 0.6 * (h_ut_m - 1.5);
    pl_nlos.max(pl_los)
}

/// LOS probability at outdoor distance `d_m` for a UE at `h_ut_m` (TR 36.873 Table 7.2-2, 3D-UMa).
pub fn los_probability(d_m: f64, h_ut_m: f64) -> f64 {
    let base = (18.0 / d_m).min(1.0) * (1.0 - (-d_m / 63.0).exp()) + (-d_m / 63.0).exp();
    let c = if h_ut_m <= 13.0 || d_m <= 18.0 {
        0.0
    } else {
        ((h_ut_m - 13.0) / 10.0).powf(1.5) * 1.25 * (d_m / 100.0).powi(3) * (-d_m / 150.0).exp()
    };
    base * (1.0 + c)
}

/// Element gain relative to its peak towards azimuth `phi_deg` off boresight and zenith `theta_deg`.
pub fn element_db(phi_deg: f64, theta_deg: f64) -> f64 {
    let a_h = -(12.0 * (phi_deg / ELEMENT_BEAMWIDTH_DEG).powi(2)).min(ELEMENT_LIMIT_DB);
    let a_v = -(12.0 * ((theta_deg - 90.0) / ELEMENT_BEAMWIDTH_DEG).powi(2)).min(ELEMENT_LIMIT_DB);
    -(-(a_h + a_v)).min(ELEMENT_LIMIT_DB)
}

/// Where one UE is: height, indoor distance (0 outdoors).
struct Ue {
    h_m: f64,
    d_in_m: f64,
}

fn draw_ue(rng: &mut RngStream) -> Ue {
    if rng.uniform() >= INDOOR_FRACTION {
        return Ue { h_m: 1.5, d_in_m: 0.0 };
    }
    let floors = 4 + (rng.uniform() * 5.0) as u32;
    let floor = 1 + (rng.uniform() * f64::from(floors)) as u32;
    Ue { h_m: 3.0 * f64::from(floor - 1) + 1.5, d_in_m: MAX_INDOOR_DISTANCE_M * rng.uniform() }
}

/// Geometry S / I, dB, of `n_ues` UEs dropped uniformly (beyond 35 m) over the centre site's area.
pub fn geometry_sir_db(n_ues: usize, seed: u64) -> Vec<f64> {
    let layout = Layout::new(&TR36814_CASE1);
    let mut rng = RngStream::new(seed, "calibration:tr36873-uma");
    let mut rx = Vec::with_capacity(layout.n_cells());
    (0..n_ues)
        .map(|_| {
            let p = layout.drop_point(&mut rng);
            let ue = draw_ue(&mut rng);
            rx.clear();
            for site in &layout.sites {
                let s = layout.nearest_image(*site, p);
                let d2 = (p[0] - s[0]).hypot(p[1] - s[1]).max(TR36814_CASE1.min_distance_m);
                let d3 = d2.hypot(BS_HEIGHT_M - ue.h_m);
                let los = rng.uniform() < los_probability((d2 - ue.d_in_m).max(1.0), ue.h_m);
                let sigma = match (ue.d_in_m > 0.0, los) {
                    (true, _) => SIGMA_O2I_DB,
                    (false, true) => SIGMA_LOS_DB,
                    (false, false) => SIGMA_NLOS_DB,
                };
                let z: f64 = StandardNormal.sample(rng.inner());
                let o2i = if ue.d_in_m > 0.0 { WALL_LOSS_DB + INDOOR_LOSS_DB_PER_M * ue.d_in_m } else { 0.0 };
                let loss = pathloss_db(d2, d3, ue.h_m, los) + o2i + sigma * z;
                let azimuth = (p[1] - s[1]).atan2(p[0] - s[0]).to_degrees();
                let zenith = 90.0 + ((BS_HEIGHT_M - ue.h_m) / d2).atan().to_degrees();
                for o in SECTOR_ORIENTATIONS_DEG {
                    let phi = (azimuth - o + 540.0).rem_euclid(360.0) - 180.0;
                    rx.push(dbm_to_mw(element_db(phi, zenith) - loss));
                }
            }
            let s = rx.iter().copied().fold(0.0, f64::max);
            let total: f64 = rx.iter().sum();
            to_db(s / (total - s))
        })
        .collect()
}
