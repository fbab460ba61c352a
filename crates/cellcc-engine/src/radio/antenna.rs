//! Transmit antenna patterns in the horizontal plane: isotropic, or the 3GPP parabolic
//! sector pattern, and the hexagonal grid of 3-sector sites around a serving site.

use super::spec::AntennaSpec;

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
        self.gain_db_towards(|| azimuth_rad([to_xy_m[0] - from_xy_m[0], to_xy_m[1] - from_xy_m[1]]))
    }

    /// [`Antenna::gain_db`] towards the direction whose azimuth `azimuth` gives (asked only of a
    /// sector antenna: the sectors of one site can share one `atan2`).
    #[inline]
    pub fn gain_db_towards(&self, azimuth: impl FnOnce() -> f64) -> f64 {
        match *self {
            Antenna::Isotropic => 0.0,
            Antenna::Parabolic { orientation_rad, beamwidth_rad, max_attenuation_db } => {
                let phi = wrap_pi(azimuth() - orientation_rad);
                -(12.0 * (phi / beamwidth_rad).powi(2)).min(max_attenuation_db)
            }
        }
    }
}

/// The azimuth of the direction `d` (x, y), rad in (-pi, pi].
#[inline]
pub fn azimuth_rad(d: [f64; 2]) -> f64 {
    d[1].atan2(d[0])
}

/// The directions in which a sector pattern is at its floor `-A_m` for certain, so the
/// large-scale evaluation can skip `atan2` there (about half of a 3-sector layout's cells face away
/// from any UE): the angle off the boresight is at least `edge` = phi_3dB sqrt(A_m / 12) (where
/// 12 (phi / phi_3dB)^2 reaches A_m) plus a 1e-6 rad margin, which rounding in either test
/// cannot bridge, so the gain is the same value `gain_db` gives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloorCone {
    /// Unit vector along the boresight.
    boresight: [f64; 2],
    /// cos(edge).
    cos_edge: f64,
    floor_db: f64,
}

/// Margin beyond the floor's edge angle, rad: far above the ~1e-14 rad rounding of the vector
/// test and of `atan2`, far below any angle that matters.
const FLOOR_MARGIN_RAD: f64 = 1e-6;
/// Edges closer than this to pi (a pattern nearly without floor) get no cone: the cosine is too
/// flat there for the margin to hold.
const FLOOR_EDGE_MAX_RAD: f64 = std::f64::consts::PI - 0.01;

impl Antenna {
    /// The floor cone of a sector pattern (`None` for isotropic, or a floor beyond ~pi).
    pub fn floor_cone(&self) -> Option<FloorCone> {
        match *self {
            Antenna::Isotropic => None,
            Antenna::Parabolic { orientation_rad, beamwidth_rad, max_attenuation_db } => {
                let edge = beamwidth_rad * (max_attenuation_db / 12.0).sqrt() + FLOOR_MARGIN_RAD;
                (edge < FLOOR_EDGE_MAX_RAD).then(|| {
                    let (sin_o, cos_o) = orientation_rad.sin_cos();
                    FloorCone { boresight: [cos_o, sin_o], cos_edge: edge.cos(), floor_db: -max_attenuation_db }
                })
            }
        }
    }
}

impl FloorCone {
    /// The pattern's floor if `d` (antenna to UE, non-zero) is at least `edge` off the boresight.
    #[inline]
    pub fn floor_towards(&self, d: [f64; 2]) -> Option<f64> {
        let along = d[0] * self.boresight[0] + d[1] * self.boresight[1];
        let r2 = d[0] * d[0] + d[1] * d[1];
        let (c, c2r2) = (self.cos_edge, self.cos_edge * self.cos_edge * r2);
        // angle >= edge  <=>  along / r <= cos(edge), squared with the signs kept.
        let beyond =
            if c >= 0.0 { along <= 0.0 || along * along <= c2r2 } else { along < 0.0 && along * along >= c2r2 };
        (beyond && r2 > 0.0).then_some(self.floor_db)
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

/// A hexagonal grid of sites (ns-3 `LteHexGridEnbTopologyHelper`; TR 36.814 Table A.2.1.1-2
/// layout): `rings` rings around the centre at inter-site distance `isd_m`, 1 (omni) or 3
/// sectors per site, a sector's antenna `sector_offset_m` from its site towards its boresight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HexGrid {
    pub rings: u8,
    pub isd_m: f64,
    pub sectors: u8,
    pub sector_offset_m: f64,
}

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
pub fn hex_layout_cells(centre_m: [f64; 2], l: &HexGrid) -> Vec<LayoutCell> {
    let serving = layout_cell(centre_m, l, 0);
    hex_layout_all_cells(centre_m, l).into_iter().filter(|c| *c != serving).collect()
}

/// Every cell of the layout, the centre site's included, site by site as [`hex_sites`] lists
/// them, sectors in [`SECTOR_ORIENTATIONS_DEG`] order: the cells of an LTE network's layout,
/// named by their place in this list.
pub fn hex_layout_all_cells(centre_m: [f64; 2], l: &HexGrid) -> Vec<LayoutCell> {
    let per_site = if l.sectors == 1 { 1 } else { SECTOR_ORIENTATIONS_DEG.len() };
    hex_sites(centre_m, l.rings, l.isd_m)
        .into_iter()
        .flat_map(|site| (0..per_site).map(move |s| layout_cell(site, l, s)))
        .collect()
}

/// Sector `s` of the site at `site_m` (the site itself with 1 sector).
fn layout_cell(site_m: [f64; 2], l: &HexGrid, s: usize) -> LayoutCell {
    if l.sectors == 1 {
        return LayoutCell { xy_m: site_m, orientation_deg: None };
    }
    let o = SECTOR_ORIENTATIONS_DEG[s];
    let (sin, cos) = o.to_radians().sin_cos();
    LayoutCell {
        xy_m: [site_m[0] + l.sector_offset_m * cos, site_m[1] + l.sector_offset_m * sin],
        orientation_deg: Some(o),
    }
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
    fn the_floor_cone_gives_the_patterns_own_floor_and_only_there() {
        // 70 deg, A_m = 20 dB: edge = 70 sqrt(20/12) = 90.37 deg (TR 36.814 A.2.1.1-2's pattern);
        // 25 dB: 100.3 deg; 30 deg beams: edge < 90 deg (the c >= 0 branch). Every direction the
        // cone claims must give gain_db's value bit for bit, and beyond edge + 1e-4 rad it must claim.
        use crate::sim::RngStream;
        let mut rng = RngStream::new(9, "antenna:floor");
        for (bw_deg, am_db) in [(70.0f64, 20.0), (70.0, 25.0), (30.0, 20.0), (65.0, 30.0)] {
            for o_deg in [0.0f64, 120.0, -120.0, 33.0] {
                let a = Antenna::Parabolic {
                    orientation_rad: o_deg.to_radians(),
                    beamwidth_rad: bw_deg.to_radians(),
                    max_attenuation_db: am_db,
                };
                let cone = a.floor_cone().expect("a cone below pi");
                let edge = bw_deg.to_radians() * (am_db / 12.0).sqrt();
                let (mut claimed, mut beyond) = (0, 0);
                for _ in 0..20_000 {
                    let az = std::f64::consts::TAU * rng.uniform();
                    let r = 1.0 + 2000.0 * rng.uniform();
                    let from = [37.0, -12.0];
                    let to = [from[0] + r * az.cos(), from[1] + r * az.sin()];
                    let d = [to[0] - from[0], to[1] - from[1]];
                    let off = wrap_pi(az - o_deg.to_radians()).abs();
                    match cone.floor_towards(d) {
                        Some(f) => {
                            claimed += 1;
                            assert_eq!(f.to_bits(), a.gain_db(from, to).to_bits(), "az {az}");
                        }
                        None => assert!(off < edge + 1e-4, "off {off} beyond edge {edge} unclaimed"),
                    }
                    beyond += usize::from(off > edge + 1e-4);
                }
                assert!(claimed >= beyond && beyond > 0, "{claimed} claimed, {beyond} beyond");
            }
        }
        assert_eq!(Antenna::Isotropic.floor_cone(), None);
        let wide = Antenna::Parabolic { orientation_rad: 0.0, beamwidth_rad: 2.0, max_attenuation_db: 30.0 };
        assert_eq!(wide.floor_cone(), None, "edge 3.16 rad > pi: no floor cone");
    }

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
        let l = HexGrid { rings: 2, isd_m: 500.0, sectors: 3, sector_offset_m: 0.5 };
        let cells = hex_layout_cells([0.0, 0.0], &l);
        assert_eq!(cells.len(), 56);
        // Six first-ring sites at exactly 500 m (their three sectors 0.5 m off).
        let near = cells.iter().filter(|c| (c.xy_m[0].hypot(c.xy_m[1]) - 500.0).abs() < 0.6).count();
        assert_eq!(near, 18);
        let omni = hex_layout_cells([0.0, 0.0], &HexGrid { sectors: 1, ..l });
        assert_eq!(omni.len(), 18);
    }
}
