//! Radio channel: turns geometry and movement into per-RB SINR every TTI
//! (issue 8). [`ChannelSinr`] implements [`super::sinr::SinrSource`] for one cell's UEs.
//!
//! ```text
//!  mobility ─► position(t) ─► path loss (pathloss.rs) + shadowing (shadowing.rs) ─► large-scale gain
//!                                  per link: serving eNB, each interferer
//!  fading.rs: H_k(t) per RB (EPA/EVA/ETU, sum of sinusoids) ────────────────────► |H_k|^2
//!
//!  DL SINR_k = (P_enb / N_rb) g_serving |H_k|^2 / (N_rb,UE + sum_i (P_i / N_rb) g_i)
//!  UL SINR_k = (P_ue  / N_rb) g_serving |H_k|^2 /  N_rb,eNB
//! ```
//! Simplifications (each a modelling choice, stated once here):
//! - DL: the eNB spreads its power evenly over all RBs (ns-3 `LteEnbPhy` without
//!   power control). UL: the SINR source does not know the grant, so the UE's power is
//!   spread over the whole band, as in ns-3 when one UE holds the full uplink; a grant
//!   of fewer RBs would see 10 log10(N_rb / n) dB more.
//! - UL and DL share the shadowing (large-scale reciprocity) but have independent
//!   fast fading (the FDD duplex gap is far wider than the coherence bandwidth).
//! - Interferers: see [`interference`]. Control region: full interference on every RB.
//! - Antennas: isotropic or the parabolic sector pattern, horizontal plane only (no tilt).
//! - Path loss, shadowing and interference are sampled every [`LARGE_SCALE_STEP_NS`],
//!   fast fading every TTI ([`fading::FADING_STEP_NS`]).
//!
//! Randomness: per UE `i`, keyed streams `"{label}:channel:ue{i}:{mobility|fading:dl|fading:ul|
//! shadowing:serving|shadowing:interferer{j}}"`, so adding a UE at the end of the list leaves
//! the other UEs' channels unchanged.

pub mod antenna;
pub mod calibration;
pub mod fading;
pub mod interference;
pub mod mobility;
pub mod noise;
pub mod pathloss;
pub mod shadowing;
pub mod spec;
pub mod sweep;
pub mod trace;

use self::antenna::{hex_layout_cells, Antenna};
use self::fading::{FadingProcess, RbSteering, TapProfile, EPA, ETU, EVA};
use self::interference::{total_interference_mw, Site};
use self::mobility::{Mobility, MPS_PER_KMH};
use self::noise::{dbm_to_mw, noise_per_rb_dbm, to_db};
use self::pathloss::SPEED_OF_LIGHT_MPS;
use self::shadowing::{Shadowing, SHADOWING_STEP_NS};
use self::spec::{AntennaSpec, ChannelSpec, FadingProfile, FadingSpec, PathLossSpec, UePlacement};
use super::sap::{LinkDir, UeIndex};
use super::sinr::SinrSource;
use crate::error::ScenarioError;
use crate::sim::{RngStream, SimTime};

/// Path loss, shadowing and interference are re-evaluated on the shadowing grid (10 ms):
/// a UE at 300 km/h moves 0.83 m per step, which changes its path loss by < 0.1 dB beyond 40 m.
pub const LARGE_SCALE_STEP_NS: u64 = SHADOWING_STEP_NS;

/// Large-scale state of one UE at one instant.
#[derive(Clone, Copy, Debug, Default)]
struct LargeScale {
    /// Serving link gain (path loss and shadowing), linear, per direction's carrier.
    dl_gain: f64,
    ul_gain: f64,
    /// Whole-band downlink interference received, mW.
    interference_mw: f64,
}

/// One UE's channel state.
struct UeChannel {
    height_m: f64,
    mobility: Mobility,
    /// Serving link first, then one per interferer; empty without shadowing.
    shadowing: Vec<Shadowing>,
    /// Shadowing grid step reached, and the UE's position then.
    shadow_step: u64,
    shadow_xy_m: [f64; 2],
    /// Per direction (DL, UL); `None` without fast fading.
    fading: [Option<FadingProcess>; 2],
    large: LargeScale,
    large_at_step: Option<u64>,
    /// Per direction: the last per-RB row handed out (dB) and its [`row_key`], so that the
    /// PHY's second request in a TTI (CQI, then the transport block) costs a copy.
    row_db: [Vec<f64>; 2],
    row_at: [Option<u64>; 2],
}

/// Cell-wide quantities derived once from the spec.
struct Derived {
    pathloss: PathLossSpec,
    dl_carrier_mhz: f64,
    ul_carrier_mhz: f64,
    serving: Site,
    interferers: Vec<Site>,
    ue_tx_power_mw: f64,
    /// Noise per RB at the UE (DL) and the eNB (UL), mW.
    dl_noise_rb_mw: f64,
    ul_noise_rb_mw: f64,
}

/// The geometric channel of one cell's UEs.
pub struct ChannelSinr {
    d: Derived,
    ues: Vec<UeChannel>,
    profile: Option<TapProfile>,
    /// Per-RB tap phases, built on the first call (when the RB count is known).
    steering: Option<RbSteering>,
    /// Scratch: per-RB fading gains.
    gains: Vec<f64>,
}

fn dir_index(dir: LinkDir) -> usize {
    match dir {
        LinkDir::Downlink => 0,
        LinkDir::Uplink => 1,
    }
}

impl ChannelSinr {
    /// Build the channel of a cell: `ues[i]` is `UeIndex(i)`. `label` names the cell in the random streams.
    pub fn new(spec: &ChannelSpec, ues: &[UePlacement], seed: u64, label: &str) -> Result<Self, ScenarioError> {
        spec.validate(label)?;
        for (i, u) in ues.iter().enumerate() {
            spec.validate_placement(u, &format!("{label}.ues[{i}].placement"))?;
        }
        let enb = &spec.enb;
        let d = Derived {
            pathloss: spec.pathloss.clone(),
            dl_carrier_mhz: spec.dl_carrier_mhz,
            ul_carrier_mhz: spec.ul_carrier_mhz,
            serving: Site::new(enb.position_m, enb.height_m, enb.tx_power_dbm, Antenna::from_spec(&enb.antenna)),
            interferers: interferer_sites(spec),
            ue_tx_power_mw: dbm_to_mw(spec.ue_tx_power_dbm),
            dl_noise_rb_mw: dbm_to_mw(noise_per_rb_dbm(spec.ue_noise_figure_db)),
            ul_noise_rb_mw: dbm_to_mw(noise_per_rb_dbm(enb.noise_figure_db)),
        };
        let profile = tap_profile(spec.fading.profile);
        let n_interferers = d.interferers.len();
        let ues = ues
            .iter()
            .enumerate()
            .map(|(i, u)| new_ue(spec, n_interferers, profile.as_ref(), u, seed, &format!("{label}:channel:ue{i}")))
            .collect();
        Ok(ChannelSinr { d, ues, profile, steering: None, gains: Vec::new() })
    }

    /// Where UE `ue` is at `now`, m (for traces and tests).
    pub fn position_m(&mut self, ue: UeIndex, now: SimTime) -> [f64; 2] {
        self.ues[ue.index()].mobility.position_m(now.as_ns())
    }

    /// Make the per-RB buffers fit `n_rb` (allocates only when the RB count changes: once per cell).
    fn fit(&mut self, n_rb: usize) {
        if self.gains.len() != n_rb {
            self.gains = vec![1.0; n_rb];
            self.steering = self.profile.as_ref().map(|p| RbSteering::new(p, n_rb));
        }
    }

    /// Per-RB linear SINR of `ue` in `dir` at `now` into `self.gains`.
    fn sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime) {
        let d = &self.d;
        let u = &mut self.ues[ue.index()];
        let large = u.large_scale(d, now.as_ns());
        let n_rb = self.gains.len() as f64;
        match (&mut u.fading[dir_index(dir)], &self.steering) {
            (Some(f), Some(steer)) => self.gains.copy_from_slice(f.rb_gains(now.as_ns(), steer)),
            _ => self.gains.fill(1.0),
        }
        let (signal_rb_mw, noise_rb_mw) = match dir {
            LinkDir::Downlink => {
                (d.serving.tx_power_mw / n_rb * large.dl_gain, d.dl_noise_rb_mw + large.interference_mw / n_rb)
            }
            LinkDir::Uplink => (d.ue_tx_power_mw / n_rb * large.ul_gain, d.ul_noise_rb_mw),
        };
        for g in &mut self.gains {
            *g *= signal_rb_mw / noise_rb_mw;
        }
    }
}

/// The listed interferers, then the hexagonal layout's cells (power and height of the serving eNB).
fn interferer_sites(spec: &ChannelSpec) -> Vec<Site> {
    let enb = &spec.enb;
    let listed = spec.interferers.iter().map(|f| {
        let h = f.height_m.unwrap_or(enb.height_m);
        Site::new(f.position_m, h, f.tx_power_dbm.unwrap_or(enb.tx_power_dbm), Antenna::from_spec(&f.antenna))
    });
    let layout = spec.hex_layout.iter().flat_map(|l| {
        hex_layout_cells(enb.position_m, l).into_iter().map(move |c| {
            let antenna = match c.orientation_deg {
                None => Antenna::Isotropic,
                Some(o) => Antenna::from_spec(&AntennaSpec::Parabolic {
                    orientation_deg: o,
                    beamwidth_deg: l.beamwidth_deg,
                    max_attenuation_db: l.max_attenuation_db,
                }),
            };
            Site::new(c.xy_m, enb.height_m, enb.tx_power_dbm, antenna)
        })
    });
    listed.chain(layout).collect()
}

fn new_ue(
    spec: &ChannelSpec,
    n_interferers: usize,
    profile: Option<&TapProfile>,
    u: &UePlacement,
    seed: u64,
    key: &str,
) -> UeChannel {
    let stream = |what: &str| RngStream::new(seed, &format!("{key}:{what}"));
    let shadowing = match &spec.shadowing {
        None => Vec::new(),
        Some(s) => std::iter::once(stream("shadowing:serving"))
            .chain((0..n_interferers).map(|j| stream(&format!("shadowing:interferer{j}"))))
            .map(|rng| Shadowing::new(s.sigma_db, s.decorrelation_m, rng))
            .collect(),
    };
    let fading = |dir: &str, carrier_mhz: f64| {
        profile.map(|p| {
            let fd = doppler_hz(&spec.fading, p, carrier_mhz);
            FadingProcess::new(p, fd, spec.fading.k_factor_db, stream(&format!("fading:{dir}")))
        })
    };
    UeChannel {
        height_m: u.height_m,
        mobility: Mobility::new(&u.mobility, u.position_m, stream("mobility")),
        shadowing,
        shadow_step: 0,
        shadow_xy_m: u.position_m,
        fading: [fading("dl", spec.dl_carrier_mhz), fading("ul", spec.ul_carrier_mhz)],
        large: LargeScale::default(),
        large_at_step: None,
        row_db: [Vec::new(), Vec::new()],
        row_at: [None, None],
    }
}

/// The TS 36.104 Annex B.2 tap profile named in the spec.
fn tap_profile(p: FadingProfile) -> Option<TapProfile> {
    match p {
        FadingProfile::None => None,
        FadingProfile::Epa => Some(EPA),
        FadingProfile::Eva => Some(EVA),
        FadingProfile::Etu => Some(ETU),
    }
}

/// Maximum Doppler: given, or from the speed at this carrier (f_d = v f_c / c), or the profile's usual one.
fn doppler_hz(f: &FadingSpec, p: &TapProfile, carrier_mhz: f64) -> f64 {
    match (f.doppler_hz, f.speed_kmh) {
        (Some(fd), _) => fd,
        (None, Some(v)) => v * MPS_PER_KMH * carrier_mhz * 1e6 / SPEED_OF_LIGHT_MPS,
        (None, None) => p.usual_doppler_hz,
    }
}

impl UeChannel {
    /// Path loss, shadowing and interference during the large-scale step containing `now_ns`
    /// (evaluated at the step's start, so a function of the step alone).
    fn large_scale(&mut self, d: &Derived, now_ns: u64) -> LargeScale {
        let step = now_ns / LARGE_SCALE_STEP_NS;
        if self.large_at_step == Some(step) {
            return self.large;
        }
        self.step_shadowing(step);
        let xy = self.mobility.position_m(step * LARGE_SCALE_STEP_NS);
        let sh = |k: usize| self.shadowing.get(k).map_or(0.0, Shadowing::value_db);
        let h = self.height_m;
        self.large = LargeScale {
            dl_gain: d.serving.gain_lin(&d.pathloss, xy, h, d.dl_carrier_mhz, sh(0)),
            ul_gain: d.serving.gain_lin(&d.pathloss, xy, h, d.ul_carrier_mhz, sh(0)),
            interference_mw: total_interference_mw(
                &d.interferers,
                (1..=d.interferers.len()).map(sh),
                &d.pathloss,
                xy,
                h,
                d.dl_carrier_mhz,
            ),
        };
        self.large_at_step = Some(step);
        self.large
    }

    /// Advance every link's shadowing along the track up to grid step `target`.
    fn step_shadowing(&mut self, target: u64) {
        if self.shadowing.is_empty() {
            return;
        }
        while self.shadow_step < target {
            self.shadow_step += 1;
            let xy = self.mobility.position_m(self.shadow_step * SHADOWING_STEP_NS);
            let moved_m = (xy[0] - self.shadow_xy_m[0]).hypot(xy[1] - self.shadow_xy_m[1]);
            for s in &mut self.shadowing {
                s.advance(moved_m);
            }
            self.shadow_xy_m = xy;
        }
    }
}

impl ChannelSinr {
    /// The step that fixes a row: the TTI with fast fading, else the large-scale step.
    fn row_key(&self, now: SimTime) -> u64 {
        match self.profile {
            Some(_) => FadingProcess::step_of(now.as_ns()),
            None => now.as_ns() / LARGE_SCALE_STEP_NS,
        }
    }
}

impl SinrSource for ChannelSinr {
    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        let key = self.row_key(now);
        let d = dir_index(dir);
        let u = &self.ues[ue.index()];
        if u.row_at[d] == Some(key) && u.row_db[d].len() == out.len() {
            out.copy_from_slice(&u.row_db[d]);
            return;
        }
        self.fit(out.len());
        self.sinr_lin(ue, dir, now);
        for (o, g) in out.iter_mut().zip(&self.gains) {
            *o = to_db(*g);
        }
        let u = &mut self.ues[ue.index()];
        u.row_db[d].clear();
        u.row_db[d].extend_from_slice(out);
        u.row_at[d] = Some(key);
    }

    fn row_id(&mut self, _ue: UeIndex, _dir: LinkDir, now: SimTime) -> Option<u64> {
        Some(self.row_key(now))
    }

    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64 {
        // The control region spans the band: the mean of the per-RB linear SINR, with
        // every interferer transmitting (seed 004: control-channel interference always full).
        let n_rb = self.gains.len().max(1);
        self.fit(n_rb);
        self.sinr_lin(ue, LinkDir::Downlink, now);
        to_db(self.gains.iter().sum::<f64>() / n_rb as f64)
    }
}

#[cfg(test)]
mod tests;
