//! eNB antenna patterns in the horizontal plane: isotropic, or the 3GPP parabolic
//! sector pattern, and the hexagonal grid of 3-sector sites around the serving eNB.

use super::spec::{AntennaSpec, HexLayoutSpec};

/// A transmit antenna's horizontal pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Antenna {
    Isotropic,
    /// TR 36.814 Table A.2.1.1-2 / ns-3 `ParabolicAntennaModel`: A(phi) = -min(12 (phi / phi_3dB)^2, A_m).
    Parabolic {
        orientation_rad: f64,
        beamwidth_rad: f64,
        max_attenuation_db: f64,
    },
}

impl Antenna {
    pub fn from_spec(s: &AntennaSpec) -> Self {
        match *s {
            AntennaSpec::Isotropic => Antenna::Isotropic,
            AntennaSpec::Parabolic { orientation_deg, beamwidth_deg, max_attenuation_db } => Antenna::Parabolic {
                orientation_rad: orientation_deg.to_radians(),
                beamwidth_rad: beamwidth_deg.to_radians(),
                max_attenuation_db,
            },
        }
    }

    /// Gain towards `to_xy_m` seen from the antenna at `from_xy_m`, dB (<= 0).
    pub fn gain_db(&self, from_xy_m: [f64; 2], to_xy_m: [f64; 2]) -> f64 {
        match *self {
            Antenna::Isotropic => 0.0,
            Antenna::Parabolic { orientation_rad, beamwidth_rad, max_attenuation_db } => {
                let azimuth = (to_xy_m[1] - from_xy_m[1]).atan2(to_xy_m[0] - from_xy_m[0]);
                let phi = wrap_pi(azimuth - orientation_rad);
                -(12.0 * (phi / beamwidth_rad).powi(2)).min(max_attenuation_db)
            }
        }
    }
}

/// An angle folded into (-pi, pi].
fn wrap_pi(a: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    // rem_euclid without its fmod where the answer is known: an azimuth minus a boresight is
    // within one turn of zero (the same value rem_euclid gives: a, or a + tau for a < 0).
    let w = if (0.0..tau).contains(&a) {
        a
    } else if a > -tau && a < 0.0 {
        a + tau
    } else {
        a.rem_euclid(tau)
    };
    if w > std::f64::consts::PI {
        w - tau
    } else {
        w
    }
}

/// Sector boresights of a 3-sector site, degrees (ns-3 `LteHexGridEnbTopologyHelper`: 0, 120, -120).
pub const SECTOR_ORIENTATIONS_DEG: [f64; 3] = [0.0, 120.0, -120.0];

/// One cell of the layout: position, boresight (degrees, `None` = omni site).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayoutCell {
    pub xy_m: [f64; 2],
    pub orientation_deg: Option<f64>,
}

/// Every cell of `rings` rings of sites around `centre_m` except the serving one (the
/// centre site's first sector, or the centre site itself when `sectors = 1`).
/// Sites sit on a hexagonal grid of pitch `isd_m` (axial coordinates, rows along x as in
/// ns-3's helper); a sector's antenna is `sector_offset_m` from the site towards its boresight.
pub fn hex_layout_cells(centre_m: [f64; 2], l: &HexLayoutSpec) -> Vec<LayoutCell> {
    let mut cells = Vec::new();
    for site in hex_sites(centre_m, l.rings, l.isd_m) {
        let centre_site = site == centre_m;
        if l.sectors == 1 {
            if !centre_site {
                cells.push(LayoutCell { xy_m: site, orientation_deg: None });
            }
            continue;
        }
        for (s, o) in SECTOR_ORIENTATIONS_DEG.iter().enumerate() {
            if centre_site && s == 0 {
                continue;
            }
            let (sin, cos) = o.to_radians().sin_cos();
            let xy_m = [site[0] + l.sector_offset_m * cos, site[1] + l.sector_offset_m * sin];
            cells.push(LayoutCell { xy_m, orientation_deg: Some(*o) });
        }
    }
    cells
}

/// The sites of `rings` rings around `centre_m` on a hexagonal grid of pitch `isd_m`
/// (axial coordinates, rows along x as in ns-3's helper); 1 + 3 n (n + 1) of them.
pub fn hex_sites(centre_m: [f64; 2], rings: u8, isd_m: f64) -> Vec<[f64; 2]> {
    let n = i64::from(rings);
    let mut sites = Vec::new();
    for r in -n..=n {
        for q in -n..=n {
            if (q + r).abs() <= n {
                sites.push([
                    centre_m[0] + isd_m * (q as f64 + r as f64 / 2.0),
                    centre_m[1] + isd_m * (0.75f64).sqrt() * r as f64,
                ]);
            }
        }
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parabolic_pattern_values_worked_by_hand() {
        // 70 degree beamwidth: -3 dB at 35 degrees (12 * 0.5^2 = 3), capped at 20 dB behind.
        let a = Antenna::from_spec(&AntennaSpec::Parabolic {
            orientation_deg: 0.0,
            beamwidth_deg: 70.0,
            max_attenuation_db: 20.0,
        });
        let at = |deg: f64| {
            let (s, c) = deg.to_radians().sin_cos();
            a.gain_db([0.0, 0.0], [100.0 * c, 100.0 * s])
        };
        assert!(at(0.0).abs() < 1e-12);
        assert!((at(35.0) + 3.0).abs() < 1e-9);
        assert!((at(-35.0) + 3.0).abs() < 1e-9);
        assert_eq!(at(180.0), -20.0);
        assert_eq!(Antenna::Isotropic.gain_db([0.0, 0.0], [1.0, 1.0]), 0.0);
    }

    #[test]
    fn two_rings_of_three_sector_sites_give_56_interfering_cells() {
        // Seed 004: 19 sites x 3 sectors = 57 cells, one of which serves.
        let l = HexLayoutSpec {
            rings: 2,
            isd_m: 500.0,
            sectors: 3,
            beamwidth_deg: 70.0,
            max_attenuation_db: 20.0,
            sector_offset_m: 0.5,
            load: Default::default(),
        };
        let cells = hex_layout_cells([0.0, 0.0], &l);
        assert_eq!(cells.len(), 56);
        // Six first-ring sites at exactly 500 m (their three sectors 0.5 m off).
        let near = cells.iter().filter(|c| (c.xy_m[0].hypot(c.xy_m[1]) - 500.0).abs() < 0.6).count();
        assert_eq!(near, 18);
        let omni = hex_layout_cells([0.0, 0.0], &HexLayoutSpec { sectors: 1, ..l });
        assert_eq!(omni.len(), 18);
    }
}
