//! Uplink interference at the serving eNB from the UEs of the other cells (issue 8).
//!
//! ns-3 LENA (src/lte/model/lte-spectrum-phy.cc `LteSpectrumPhy::StartRx`, 3.44) adds every
//! uplink data frame it receives, from any cell, to the eNB's data interference
//! (`m_interferenceData`), and every SRS frame to its control interference; a frame of another
//! cell is interference on the RBs its PSD covers. TR 36.814 §A.2.1.1 (full-buffer traffic)
//! loads the uplink the same way: each interfering cell's UEs transmit with their own power
//! control on the RBs their scheduler gave them. Here, per interfering cell `j`:
//!
//! - **One UE**, dropped once, uniformly in the cell's hexagon ([`UeArea`]) at least
//!   [`MIN_UE_DISTANCE_M`] from the cell's antenna (TR 36.814 Table A.2.1.1-2, case 1), from the
//!   stream `"{label}:channel:interferer{j}:ul_ue"`; it stands still (large-scale only).
//! - **Its RBs** follow the cell's `uplink_load`: full_buffer every RB, idle none, fraction
//!   `round(f N_rb)` contiguous RBs (an SC-FDMA grant is contiguous: TS 36.213 §8.1.1, uplink
//!   resource allocation type 0) starting at an RB drawn per 10 ms step (`radio::track::GRID_STEP_NS`) from
//!   `"{label}:channel:interferer{j}:ul_load"`, never wrapping past the band's edge.
//! - **Its power per RB** is the scenario's uplink power control (TS 36.213 §5.1.1.1,
//!   [`UlPower::pusch_per_prb_dbm`]) over that many RBs, with PL the large-scale downlink loss
//!   to its own cell (path loss at the DL carrier, its cell's antenna gain, shadowing).
//! - **Received at the serving eNB** through the path loss at the UL carrier, the serving
//!   antenna's gain towards the UE and a second shadowing value (each link its own, static
//!   N(0, sigma^2) from `"{label}:channel:interferer{j}:ul_shadowing"`, as the engine keeps
//!   independent shadowing per link), no fast fading (summed over many UEs it averages out, as
//!   for the downlink interferers in [`super::interference`]).
//!
//! The same interference is on the SRS and the PUSCH rows: the other cells' UEs are taken to
//! send SRS and PUSCH at the same power per RB (LENA separates them in time; the engine has one
//! uplink row per TTI). Every UE of the serving cell sees the same interference (it is at the eNB).

use super::power_control::UlPower;
use super::spec::{ChannelSpec, DEFAULT_UE_HEIGHT_M};
use super::InterferingCell;
use crate::error::ScenarioError;
use crate::radio::antenna::Antenna;
use crate::radio::interference::{InterfererLoad, RbPicker, Site};
use crate::radio::link_loss::PreparedLoss;
use crate::radio::noise::{dbm_to_mw, to_db};
use crate::sim::RngStream;
use rand_distr::{Distribution, StandardNormal};
use std::f64::consts::FRAC_PI_3;

/// TR 36.814 Table A.2.1.1-2 (case 1): minimum distance between a UE and its cell, m.
pub const MIN_UE_DISTANCE_M: f64 = 35.0;
/// The smallest inter-site distance whose sector hexagon (side ISD / 3) holds a UE at
/// [`MIN_UE_DISTANCE_M`]: side >= 35 m, i.e. ISD >= 105 m.
pub const MIN_UL_ISD_M: f64 = 3.0 * MIN_UE_DISTANCE_M;

/// The hexagon an interfering cell's UE is dropped in: centre, circumradius, the angle of its
/// first vertex (the others every 60 degrees).
///
/// A 3-sector site's sector is the hexagon of side ISD / 3 with the site at one vertex, its
/// centre ISD / 3 along the boresight (three of them tile the site's ISD-pitch hexagon, the
/// 3-sector layout of TR 36.814 Table A.2.1.1-2); an omni site's is the hexagon of inradius ISD / 2 around it, flat
/// sides facing its neighbours. A listed interferer takes its distance to the serving eNB as
/// its ISD (an omni one's flat side faces the serving eNB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UeArea {
    pub centre_m: [f64; 2],
    pub circumradius_m: f64,
    pub first_vertex_rad: f64,
}

impl UeArea {
    /// The sector of boresight `orientation_rad` whose antenna is at `site_m`.
    pub fn sector(site_m: [f64; 2], orientation_rad: f64, isd_m: f64) -> Self {
        let side_m = isd_m / 3.0;
        let (sin, cos) = orientation_rad.sin_cos();
        UeArea {
            centre_m: [site_m[0] + side_m * cos, site_m[1] + side_m * sin],
            circumradius_m: side_m,
            first_vertex_rad: orientation_rad,
        }
    }

    /// An omni site at `site_m` whose flat sides face the direction `towards_rad` (and every 60 degrees).
    pub fn omni(site_m: [f64; 2], towards_rad: f64, isd_m: f64) -> Self {
        // Inradius ISD / 2 = circumradius cos 30 degrees; the vertices sit 30 degrees off the flat sides.
        UeArea {
            centre_m: site_m,
            circumradius_m: isd_m / 3f64.sqrt(),
            first_vertex_rad: towards_rad + FRAC_PI_3 / 2.0,
        }
    }

    /// A point uniform over the hexagon, at least [`MIN_UE_DISTANCE_M`] from `site_m` (rejection:
    /// with ISD >= [`MIN_UL_ISD_M`] at least 40% of the hexagon qualifies, so the loop ends).
    /// Uniform: one of the six equal triangles (centre, vertex k, vertex k + 1) uniformly, then a
    /// uniform point in it (two uniforms, folded back when their sum exceeds 1).
    pub fn drop_ue(&self, site_m: [f64; 2], rng: &mut RngStream) -> [f64; 2] {
        let vertex = |k: f64| {
            let (sin, cos) = (self.first_vertex_rad + k * FRAC_PI_3).sin_cos();
            [self.circumradius_m * cos, self.circumradius_m * sin]
        };
        loop {
            let k = (rng.uniform() * 6.0).floor().min(5.0);
            let (mut a, mut b) = (rng.uniform(), rng.uniform());
            if a + b > 1.0 {
                (a, b) = (1.0 - a, 1.0 - b);
            }
            let (v0, v1) = (vertex(k), vertex(k + 1.0));
            let p = [self.centre_m[0] + a * v0[0] + b * v1[0], self.centre_m[1] + a * v0[1] + b * v1[1]];
            if (p[0] - site_m[0]).hypot(p[1] - site_m[1]) >= MIN_UE_DISTANCE_M {
                return p;
            }
        }
    }
}

/// An interfering cell's uplink load when the scenario names none: idle, as on LENA, whose
/// interfering cells' UEs send SRS only (ns-3 3.44 `LteUePhy`: no PUSCH without uplink data), and
/// because a loaded uplink is a choice with a cost a user should make knowingly: at LENA's open
/// loop (P0 -80 dBm, alpha 1) every UE past ~83 dB of path loss sends 23 dBm over the whole band
/// (docs/channel.md, "Uplink interference").
pub fn default_uplink_load() -> InterfererLoad {
    InterfererLoad::Idle
}

/// An interfering cell's `uplink_load`: a valid load, and, unless idle, a cell whose ISD
/// (`isd_what`: `isd_m`) can hold its UE at the minimum distance ([`MIN_UL_ISD_M`]).
pub(super) fn validate_uplink_load(
    load: InterfererLoad,
    isd_m: f64,
    path: &str,
    isd_what: &str,
) -> Result<(), ScenarioError> {
    load.validate(path)?;
    if load == InterfererLoad::Idle || isd_m >= MIN_UL_ISD_M {
        return Ok(());
    }
    let allowed = format!(
        "{{ kind = \"idle\" }}: the cell's UE is dropped in its hexagon at least {MIN_UE_DISTANCE_M} m from its \
         antenna (TR 36.814 Table A.2.1.1-2), which needs {isd_what} >= {MIN_UL_ISD_M} m (it is {isd_m} m)"
    );
    Err(ScenarioError::new(path, serde_json::to_string(&load).unwrap_or_default(), allowed))
}

/// One interfering cell's uplink UE, as the serving eNB receives it.
#[derive(Clone, Debug, PartialEq)]
pub struct UlInterferer {
    /// Its cell's index in the channel's interferer list.
    pub cell: usize,
    pub xy_m: [f64; 2],
    /// Its power control's PL: large-scale DL loss to its own cell, dB.
    pub pl_db: f64,
    /// Linear gain of the link to the serving eNB (antenna, UL path loss, shadowing).
    pub rx_gain: f64,
    pub load: InterfererLoad,
}

impl UlInterferer {
    /// The UE of interfering cell number `j`, `cell`, for the serving eNB `serving`; `key` names
    /// the cell's random streams. Only for a cell whose uplink is not idle (the spec's validation
    /// made its hexagon large enough to hold a UE).
    pub fn new(spec: &ChannelSpec, j: usize, cell: &InterferingCell, serving: &Site, seed: u64, key: &str) -> Self {
        let own = Site::new(cell.xy_m, cell.height_m, cell.tx_power_dbm, Antenna::from_spec(&cell.antenna));
        let xy_m = cell.ue_area.drop_ue(cell.xy_m, &mut RngStream::new(seed, &format!("{key}:ul_ue")));
        let mut sh_rng = RngStream::new(seed, &format!("{key}:ul_shadowing"));
        let mut shadow_db = || {
            spec.shadowing.as_ref().map_or(0.0, |s| {
                let z: f64 = StandardNormal.sample(sh_rng.inner());
                s.sigma_db * z
            })
        };
        let (own_sh_db, rx_sh_db) = (shadow_db(), shadow_db());
        let h = DEFAULT_UE_HEIGHT_M;
        let mut los = RngStream::new(seed, &format!("{key}:ul_los"));
        let own_loss =
            PreparedLoss::new(&spec.pathloss, cell.height_m, h, spec.dl_carrier_mhz).with_los_draw(los.uniform());
        let rx_loss =
            PreparedLoss::new(&spec.pathloss, serving.height_m, h, spec.ul_carrier_mhz).with_los_draw(los.uniform());
        UlInterferer {
            cell: j,
            xy_m,
            pl_db: -to_db(own.gain_lin(&own_loss, xy_m, own_sh_db)),
            rx_gain: serving.gain_lin(&rx_loss, xy_m, rx_sh_db),
            load: cell.uplink_load,
        }
    }

    /// Power per active RB received at the serving eNB over a band of `n_rb` RBs, mW.
    pub fn rx_rb_mw(&self, power: &UlPower, n_rb: usize) -> f64 {
        let m_prb = self.load.active_rbs(n_rb) as u32;
        if m_prb == 0 {
            return 0.0;
        }
        dbm_to_mw(power.pusch_per_prb_dbm(self.pl_db, m_prb)) * self.rx_gain
    }
}

/// A step's uplink interference per RB at the serving eNB, mW: one value for every RB, or a row.
pub enum UlRow<'a> {
    Flat(f64),
    PerRb(&'a [f64]),
}

/// The serving eNB's uplink interference from every interfering cell's UE.
pub struct UplinkInterference {
    ues: Vec<UlInterferer>,
    pickers: Vec<RbPicker>,
    /// For the RB count last asked (`row_mw.len()`): each UE's received power per active RB,
    /// the sum over the full-buffer ones, and whether any fills only part of the band.
    rx_rb_mw: Vec<f64>,
    everywhere_mw: f64,
    partial: bool,
    /// The per-RB row of the step `row_step` (fractional loads only).
    row_mw: Vec<f64>,
    row_step: Option<u64>,
}

impl UplinkInterference {
    pub fn new(spec: &ChannelSpec, cells: &[InterferingCell], serving: &Site, seed: u64, label: &str) -> Self {
        let key = |j: usize| format!("{label}:channel:interferer{j}");
        // An idle cell sends nothing: it gets no UE (and needs no hexagon).
        let ues: Vec<_> = (cells.iter().enumerate())
            .filter(|(_, c)| c.uplink_load != InterfererLoad::Idle)
            .map(|(j, c)| UlInterferer::new(spec, j, c, serving, seed, &key(j)))
            .collect();
        let pickers =
            ues.iter().map(|u| RbPicker::new(RngStream::new(seed, &format!("{}:ul_load", key(u.cell))))).collect();
        UplinkInterference {
            ues,
            pickers,
            rx_rb_mw: Vec::new(),
            everywhere_mw: 0.0,
            partial: false,
            row_mw: Vec::new(),
            row_step: None,
        }
    }

    /// The uplink UE of each interfering cell whose uplink is not idle, in the channel's order.
    pub fn ues(&self) -> &[UlInterferer] {
        &self.ues
    }

    /// Recompute the per-UE powers when the band's RB count changes (once per cell).
    fn fit(&mut self, power: &UlPower, n_rb: usize) {
        if self.row_mw.len() == n_rb {
            return;
        }
        self.rx_rb_mw = self.ues.iter().map(|u| u.rx_rb_mw(power, n_rb)).collect();
        self.everywhere_mw = 0.0;
        self.partial = false;
        for (u, p_mw) in self.ues.iter().zip(&self.rx_rb_mw) {
            match u.load.active_rbs(n_rb) {
                a if a == n_rb => self.everywhere_mw += p_mw,
                0 => {}
                _ => self.partial = true,
            }
        }
        self.row_mw = vec![0.0; n_rb];
        self.row_step = None;
    }

    /// The interference per RB during 10 ms step `step` for a band of `n_rb` RBs.
    pub fn row(&mut self, power: &UlPower, n_rb: usize, step: u64) -> UlRow<'_> {
        self.fit(power, n_rb);
        if !self.partial {
            return UlRow::Flat(self.everywhere_mw);
        }
        if self.row_step != Some(step) {
            self.row_mw.fill(self.everywhere_mw);
            for ((u, p_mw), picker) in self.ues.iter().zip(&self.rx_rb_mw).zip(&mut self.pickers) {
                let active = u.load.active_rbs(n_rb);
                if active > 0 && active < n_rb {
                    let start = picker.start(step, n_rb - active + 1);
                    self.row_mw[start..start + active].iter_mut().for_each(|o| *o += p_mw);
                }
            }
            self.row_step = Some(step);
        }
        UlRow::PerRb(&self.row_mw)
    }
}

#[cfg(test)]
mod tests {
    use super::super::power_control::UlPowerControlSpec;
    use super::super::spec::{EnbSpec, HexLayoutSpec, InterfererSpec, MobilitySpec, PathLossSpec, UePlacement};
    use super::super::{AntennaSpec, ChannelSinr, SinrSource};
    use super::*;
    use crate::lte::sap::{LinkDir, UeIndex};
    use crate::lte::sinr::PuschGrant;
    use crate::sim::{SimTime, NS_PER_MS};

    fn ue_at(x: f64) -> UePlacement {
        UePlacement { position_m: [x, 0.0], height_m: 1.5, mobility: MobilitySpec::Static }
    }

    /// Friis (the default path loss) with eNB and UE 1.5 m high: 3-D distance = 2-D distance.
    fn two_cells(uplink_load: InterfererLoad) -> ChannelSpec {
        let interferer = InterfererSpec {
            position_m: [200.0, 0.0],
            height_m: None,
            tx_power_dbm: None,
            antenna: AntennaSpec::Isotropic,
            load: InterfererLoad::FullBuffer,
            uplink_load,
        };
        ChannelSpec {
            dl_carrier_mhz: 2100.0,
            ul_carrier_mhz: 1900.0,
            enb: EnbSpec { height_m: 1.5, ..EnbSpec::default() },
            interferers: vec![interferer],
            ..ChannelSpec::default()
        }
    }

    fn ul_row(ch: &mut ChannelSinr, ue: u16, t_ms: u64, n_rb: usize) -> Vec<f64> {
        let mut out = vec![0.0; n_rb];
        ch.per_rb_sinr_db(UeIndex(ue), LinkDir::Uplink, SimTime(t_ms * NS_PER_MS), &mut out);
        out
    }

    fn friis_db(d_m: f64, f_mhz: f64) -> f64 {
        20.0 * (4.0 * std::f64::consts::PI * d_m * f_mhz * 1e6 / 299_792_458.0).log10()
    }

    #[test]
    fn two_cells_interference_is_the_power_control_formula_at_the_drop() {
        // Serving eNB at the origin, an omni full-buffer cell at (200, 0) (ISD 200 m: hexagon of
        // circumradius 115.47 m), everything 1.5 m high, Friis, 25 RBs, LENA's P0 -80 dBm, alpha 1.
        let mut ch = ChannelSinr::new(&two_cells(InterfererLoad::FullBuffer), &[ue_at(100.0)], 1, "cell0").unwrap();
        let ue = ch.ul_interference.ues()[0].clone();
        // Seed 1's drop: (226.487, -95.294), 98.907 m from its own eNB, 245.718 m from ours.
        let [x, y] = ue.xy_m;
        assert!((x - 226.487).abs() < 1e-3 && (y + 95.294).abs() < 1e-3, "{:?}", ue.xy_m);
        // Its PL = Friis(98.907 m, 2.1 GHz) = 78.7967 dB; over 25 RBs it wants -80 + 78.7967 = -1.2033 dBm
        // per RB (13.98 + -1.20 = 12.78 dBm in all, below P_CMAX 23).
        let pl_own = friis_db((x - 200.0).hypot(y), 2100.0);
        assert!((pl_own - 78.7967).abs() < 1e-3 && (ue.pl_db - pl_own).abs() < 1e-9);
        // Received at our eNB: -1.2033 - Friis(245.718 m, 1.9 GHz) 85.8316 = -87.0349 dBm per RB.
        let i_dbm = (-80.0 + pl_own) - friis_db(x.hypot(y), 1900.0);
        assert!((i_dbm + 87.0349).abs() < 1e-3);
        let p = UlPower::new(&UlPowerControlSpec::default(), 10.0);
        assert!((to_db(ue.rx_rb_mw(&p, 25)) - i_dbm).abs() < 1e-9);
        // Our UE at 100 m: SRS -1.1078 dBm per RB (-80 + 78.8922) - 78.0229 = -79.1307 dBm; noise
        // -116.4473 dBm per RB (NF 5 dB): SINR = -79.1307 - 10 log10(10^-8.70349 + 10^-11.64473) = 7.8992 dB
        // (37.3166 dB without the interferer's UE).
        let ul = ul_row(&mut ch, 0, 0, 25);
        assert!(ul.iter().all(|&v| (v - 7.8992).abs() < 1e-3), "{ul:?}");
        // The PUSCH sees the same interference: over 1 PRB its power per PRB is the SRS's (both uncapped).
        let offset_db = ch.pusch_offset_db(UeIndex(0), SimTime::ZERO, PuschGrant { prbs: 1 });
        assert!(offset_db.abs() < 1e-9);
        // An idle uplink (or no interferer) gives back the noise-limited 37.3166 dB.
        let mut idle = ChannelSinr::new(&two_cells(InterfererLoad::Idle), &[ue_at(100.0)], 1, "cell0").unwrap();
        assert!(idle.ul_interference.ues().is_empty());
        assert!(ul_row(&mut idle, 0, 0, 25).iter().all(|&v| (v - 37.3166).abs() < 1e-3));
    }

    #[test]
    fn a_far_interferer_ue_is_capped_at_p_cmax_spread_over_its_rbs() {
        // PL 130 dB wants -80 + 130 = 50 dBm per RB: capped, 23 dBm over the band's 50 RBs
        // = 23 - 16.9897 = 6.0103 dBm per RB; over half of them (25) 23 - 13.9794 = 9.0206 dBm.
        let p = UlPower::new(&UlPowerControlSpec::default(), 10.0);
        let ue = |load| UlInterferer { cell: 0, xy_m: [0.0, 0.0], pl_db: 130.0, rx_gain: 1e-10, load };
        assert!((to_db(ue(InterfererLoad::FullBuffer).rx_rb_mw(&p, 50)) - (6.0103 - 100.0)).abs() < 1e-3);
        let half = InterfererLoad::Fraction { fraction: 0.5 };
        assert!((to_db(ue(half).rx_rb_mw(&p, 50)) - (9.0206 - 100.0)).abs() < 1e-3);
        assert_eq!(ue(InterfererLoad::Idle).rx_rb_mw(&p, 50), 0.0);
    }

    #[test]
    fn drops_are_uniform_in_the_hexagon_and_keep_the_minimum_distance() {
        // A sector of boresight 120 degrees, ISD 500: side 166.67 m, centre 166.67 m from the site.
        let site = [10.0, -20.0];
        let area = UeArea::sector(site, 120f64.to_radians(), 500.0);
        let inradius_m = area.circumradius_m * (FRAC_PI_3 / 2.0).cos();
        let mut rng = RngStream::new(4, "drop");
        let n = 20_000;
        let mut mean = [0.0, 0.0];
        for _ in 0..n {
            let p = area.drop_ue(site, &mut rng);
            let d = [p[0] - area.centre_m[0], p[1] - area.centre_m[1]];
            // Inside: within the inradius along the three normals of its flat sides (vertex + 30 degrees).
            for k in 0..3 {
                let (s, c) = (area.first_vertex_rad + FRAC_PI_3 / 2.0 + f64::from(k) * FRAC_PI_3).sin_cos();
                assert!((d[0] * c + d[1] * s).abs() <= inradius_m + 1e-9, "{p:?}");
            }
            assert!((p[0] - site[0]).hypot(p[1] - site[1]) >= MIN_UE_DISTANCE_M);
            mean = [mean[0] + d[0] / f64::from(n), mean[1] + d[1] / f64::from(n)];
        }
        // The 35 m cut removes a 120-degree circular sector at the site's vertex (pi 35^2 / 3 = 1282.8 of
        // 3 sqrt(3) / 2 x 166.67^2 = 72169 m^2) whose centroid is 2 x 35 sin 60 / (3 pi / 3) = 19.30 m from
        // the site, i.e. 147.37 m behind the centre: the mean moves 1282.8 x 147.37 / 70886 = 2.67 m
        // along the boresight. Otherwise uniform: within 1.5 m (sd of the mean 76 m / sqrt(20000) = 0.54 m).
        let away = [(120f64).to_radians().cos(), (120f64).to_radians().sin()];
        let along = mean[0] * away[0] + mean[1] * away[1];
        let across = mean[0] * away[1] - mean[1] * away[0];
        assert!((along - 2.67).abs() < 1.5 && across.abs() < 1.5, "mean offset {mean:?}");
    }

    /// Seed 004's cell: the centre site's 0-degree sector of 2 rings of 3-sector sites (ISD 500 m),
    /// 46 dBm, TR 36.814 UMa, 8 dB shadowing; `uplink_load` for the 56 other cells.
    fn seed004(uplink_load: InterfererLoad) -> ChannelSpec {
        ChannelSpec {
            dl_carrier_mhz: 2100.0,
            ul_carrier_mhz: 1900.0,
            enb: EnbSpec {
                tx_power_dbm: 46.0,
                antenna: AntennaSpec::Parabolic { orientation_deg: 0.0, beamwidth_deg: 70.0, max_attenuation_db: 20.0 },
                ..EnbSpec::default()
            },
            pathloss: serde_json::from_str::<PathLossSpec>(r#"{"model": "tr36814_uma"}"#).unwrap(),
            shadowing: Some(super::super::spec::ShadowingSpec { sigma_db: 8.0, decorrelation_m: 50.0 }),
            hex_layout: Some(HexLayoutSpec {
                rings: 2,
                isd_m: 500.0,
                sectors: 3,
                beamwidth_deg: 70.0,
                max_attenuation_db: 20.0,
                sector_offset_m: 0.5,
                load: InterfererLoad::FullBuffer,
                uplink_load,
            }),
            ..ChannelSpec::default()
        }
    }

    fn mean_db(row: &[f64]) -> f64 {
        to_db(row.iter().map(|x| 10f64.powf(x / 10.0)).sum::<f64>() / row.len() as f64)
    }

    #[test]
    fn the_56_cells_uplink_lowers_every_ues_uplink_sinr_and_a_fraction_lowers_it_less() {
        let ues: Vec<_> = [40.0, 150.0, 300.0].into_iter().map(ue_at).collect();
        let sinr = |load| {
            let mut ch = ChannelSinr::new(&seed004(load), &ues, 7, "c").unwrap();
            (0..3).map(|u| mean_db(&ul_row(&mut ch, u, 0, 50))).collect::<Vec<_>>()
        };
        let (idle, full) = (sinr(InterfererLoad::Idle), sinr(InterfererLoad::FullBuffer));
        let tenth = sinr(InterfererLoad::Fraction { fraction: 0.1 });
        for u in 0..3 {
            // 56 UEs at up to 23 dBm against -116.4 dBm of noise per RB: several dB of rise at least.
            assert!(full[u] < idle[u] - 3.0, "ue {u}: {} vs {}", full[u], idle[u]);
            assert!(tenth[u] < idle[u] && tenth[u] > full[u], "ue {u}: {tenth:?}");
        }
    }

    #[test]
    fn same_seed_same_rows_and_adding_a_ue_changes_no_other_ues_uplink() {
        let spec = seed004(InterfererLoad::FullBuffer);
        let rows = |ues: &[UePlacement], seed: u64| {
            let mut ch = ChannelSinr::new(&spec, ues, seed, "c").unwrap();
            let drops: Vec<_> = ch.ul_interference.ues().iter().map(|u| u.xy_m).collect();
            ((0..30).map(|t| ul_row(&mut ch, 0, t * 10, 50)).collect::<Vec<_>>(), drops)
        };
        let one = rows(&[ue_at(120.0)], 3);
        assert_eq!(one, rows(&[ue_at(120.0)], 3));
        assert_eq!(one, rows(&[ue_at(120.0), ue_at(250.0)], 3));
        let other_seed = rows(&[ue_at(120.0)], 4);
        assert_ne!(one.1, other_seed.1);
        assert_eq!(one.1.len(), 56);
    }

    #[test]
    fn a_fractional_uplink_fills_one_contiguous_block_per_step_inside_the_band() {
        // 0.3 of 50 RBs = 15 RBs at the same power per RB in every 10 ms step, never wrapping.
        let spec = two_cells(InterfererLoad::Fraction { fraction: 0.3 });
        let mut ch = ChannelSinr::new(&spec, &[ue_at(100.0)], 2, "cell0").unwrap();
        let p = UlPower::new(&UlPowerControlSpec::default(), 10.0);
        let per_rb_mw = ch.ul_interference.ues()[0].rx_rb_mw(&p, 50);
        let mut starts = std::collections::BTreeSet::new();
        for step in 0..100 {
            let UlRow::PerRb(row) = ch.ul_interference.row(&p, 50, step) else { panic!("flat") };
            let hit: Vec<usize> = (0..50).filter(|&k| row[k] > 0.0).collect();
            assert_eq!(hit.len(), 15);
            assert_eq!(hit[14] - hit[0], 14, "contiguous: {hit:?}");
            assert!(hit.iter().all(|&k| (row[k] - per_rb_mw).abs() <= 1e-12 * per_rb_mw));
            starts.insert(hit[0]);
        }
        // 36 possible starts (0..=35), 100 draws: most of them seen.
        assert!(starts.len() > 25 && starts.iter().all(|&s| s <= 35), "{starts:?}");
        // Within a step the row holds: SRS and PUSCH of the step see the same block.
        assert_eq!(ul_row(&mut ch, 0, 30, 50), ul_row(&mut ch, 0, 39, 50));
    }

    #[test]
    fn a_cell_too_small_for_its_ue_names_the_field_and_idle_is_accepted() {
        let mut spec = two_cells(InterfererLoad::FullBuffer);
        spec.interferers[0].position_m = [60.0, 0.0];
        let e = spec.validate("cells[0].channel").unwrap_err();
        assert_eq!(e.path, "cells[0].channel.interferers[0].uplink_load");
        assert!(e.value.contains("full_buffer") && e.allowed.contains("idle") && e.allowed.contains("105"), "{e}");
        spec.interferers[0].uplink_load = InterfererLoad::Idle;
        assert!(spec.validate("c").is_ok());
        let mut layout = seed004(InterfererLoad::Fraction { fraction: 0.5 });
        if let Some(l) = layout.hex_layout.as_mut() {
            l.isd_m = 100.0;
        }
        let e = layout.validate("c").unwrap_err();
        assert_eq!(e.path, "c.hex_layout.uplink_load");
        let mut bad = seed004(InterfererLoad::Fraction { fraction: -0.1 });
        assert_eq!(bad.validate("c").unwrap_err().path, "c.hex_layout.uplink_load.fraction");
        bad.hex_layout = None;
        assert!(bad.validate("c").is_ok());
        // The scenario form.
        let f: InterfererSpec =
            serde_json::from_str(r#"{"position_m": [500, 0], "uplink_load": {"kind": "idle"}}"#).unwrap();
        assert_eq!(f.uplink_load, InterfererLoad::Idle);
        // Absent, it is idle, whatever the downlink's load.
        let f: InterfererSpec = serde_json::from_str(r#"{"position_m": [500, 0]}"#).unwrap();
        assert_eq!((f.load, f.uplink_load), (InterfererLoad::FullBuffer, InterfererLoad::Idle));
    }

    proptest::proptest! {
        /// Any cell the validation accepts (ISD >= 105 m), sector or omni, any orientation: the drop
        /// ends, lies in the hexagon and keeps the minimum distance from the antenna.
        #[test]
        fn every_accepted_cell_holds_its_ue(
            isd_m in MIN_UL_ISD_M..5000.0, o_deg in -360.0f64..360.0, sector in proptest::bool::ANY, seed in 0u64..1000,
        ) {
            let site = [120.0, -40.0];
            let area = if sector {
                UeArea::sector(site, o_deg.to_radians(), isd_m)
            } else {
                UeArea::omni(site, o_deg.to_radians(), isd_m)
            };
            let p = area.drop_ue(site, &mut RngStream::new(seed, "prop"));
            let d = [p[0] - area.centre_m[0], p[1] - area.centre_m[1]];
            let inradius_m = area.circumradius_m * (FRAC_PI_3 / 2.0).cos();
            for k in 0..3 {
                let (s, c) = (area.first_vertex_rad + FRAC_PI_3 / 2.0 + f64::from(k) * FRAC_PI_3).sin_cos();
                proptest::prop_assert!((d[0] * c + d[1] * s).abs() <= inradius_m + 1e-6);
            }
            proptest::prop_assert!((p[0] - site[0]).hypot(p[1] - site[1]) >= MIN_UE_DISTANCE_M);
        }
    }
}
