//! One link's small-scale channel in one direction, as the per-RB SINR sources use it: none,
//! a TS 36.104 Annex B.2 or TR 38.901 §7.7.2 (tdl.rs) multipath profile ([`super::fading`]) or the Annex B.3 high-speed
//! train ([`super::hst`]), each with the inter-carrier interference its Doppler causes
//! ([`super::ici`]):
//!
//! ```text
//!  multipath: SINR_k = ici(gamma_k |H_k(t)|^2, a_spread(f_d))   a_spread constant per link (Jakes spread)
//!  hst:       SINR_k = ici(gamma_k, sinc^2(f_res(t) / Δf))       |H_k|^2 = 1 (one non-fading path)
//! ```
//! with `gamma_k` the SINR without fading and `ici(g, a) = a g / (1 + (1 - a) g)`.

use super::fading::{FadingProcess, RbSteering, TapProfile, EPA, ETU, EVA};
use super::hst::{self, HstProcess, DEFAULT_SCENARIO};
use super::ici::{doppler_spread_kept_share, with_ici};
use super::mobility::MPS_PER_KMH;
use super::pathloss::SPEED_OF_LIGHT_MPS;
use super::spec::{FadingProfile, FadingSpec};
use super::tdl;
use super::LinkDir;
use crate::sim::RngStream;

/// The tap profile the spec names (`None` for none and hst): TS 36.104 Annex B.2's, or a TR 38.901
/// TDL at the spec's delay spread.
pub fn tap_profile(spec: &FadingSpec) -> Option<TapProfile> {
    let tdl =
        |p: TapProfile| Some(p.with_delay_spread_ns(spec.delay_spread_ns.unwrap_or(tdl::NOMINAL_DELAY_SPREAD_NS)));
    match spec.profile {
        FadingProfile::None | FadingProfile::Hst => None,
        FadingProfile::Epa => Some(EPA),
        FadingProfile::Eva => Some(EVA),
        FadingProfile::Etu => Some(ETU),
        FadingProfile::TdlA => tdl(tdl::TDL_A),
        FadingProfile::TdlB => tdl(tdl::TDL_B),
        FadingProfile::TdlC => tdl(tdl::TDL_C),
        FadingProfile::TdlD => tdl(tdl::TDL_D),
        FadingProfile::TdlE => tdl(tdl::TDL_E),
    }
}

/// Maximum Doppler: given, or from the speed at this carrier (f_d = v f_c / c), or the profile's usual one.
pub fn multipath_doppler_hz(f: &FadingSpec, p: &TapProfile, carrier_mhz: f64) -> f64 {
    match (f.doppler_hz, f.speed_kmh) {
        (Some(fd), _) => fd,
        (None, Some(v)) => v * MPS_PER_KMH * carrier_mhz * 1e6 / SPEED_OF_LIGHT_MPS,
        // `FadingSpec::validate` asks for a Doppler where the profile has no usual one (the TDLs).
        (None, None) => p.usual_doppler_hz.unwrap_or(0.0),
    }
}

/// The small-scale channel of one link in one direction.
#[derive(Clone, Debug)]
pub enum LinkFading {
    Flat,
    Multipath {
        process: Box<FadingProcess>,
        /// Share of the wanted power its Doppler spread keeps on the subcarrier.
        kept: f64,
    },
    Hst(HstProcess),
}

impl LinkFading {
    /// The fading `spec` describes for direction `dir`, the carriers in MHz (`spec` validated).
    pub fn new(spec: &FadingSpec, dir: LinkDir, dl_carrier_mhz: f64, ul_carrier_mhz: f64, rng: RngStream) -> Self {
        let carrier_mhz = match dir {
            LinkDir::Downlink => dl_carrier_mhz,
            LinkDir::Uplink => ul_carrier_mhz,
        };
        match (spec.profile, tap_profile(spec)) {
            (_, Some(p)) => {
                let fd = multipath_doppler_hz(spec, &p, carrier_mhz);
                // A written K-factor replaces the profile's own (TR 38.901 §7.7.6 K-factor scaling
                // keeps the LOS tap's total power and splits it anew).
                let k_factor_db = spec.k_factor_db.or(p.k_factor_db);
                let process = Box::new(FadingProcess::new(&p, fd, k_factor_db, rng));
                LinkFading::Multipath { process, kept: doppler_spread_kept_share(fd) }
            }
            (FadingProfile::Hst, None) => {
                // `validate` admits scenarios 1 and 3 only; an unknown number falls back to the default, 3.
                let sc = hst::scenario(spec.scenario.unwrap_or(DEFAULT_SCENARIO)).unwrap_or(hst::SCENARIO_3);
                let speed_kmh = spec.speed_kmh.unwrap_or(sc.speed_kmh);
                let ul = (dir == LinkDir::Uplink).then_some(ul_carrier_mhz);
                let fd = match (spec.doppler_hz, spec.speed_kmh, dir) {
                    (Some(fd), _, _) => fd,
                    (None, Some(v), _) => hst::doppler_from_speed_hz(v, dl_carrier_mhz, ul),
                    (None, None, LinkDir::Downlink) => sc.dl_doppler_hz,
                    (None, None, LinkDir::Uplink) => sc.ul_doppler_hz,
                };
                LinkFading::Hst(HstProcess::new(&sc, speed_kmh, fd, spec.tracking.unwrap_or_default()))
            }
            _ => LinkFading::Flat,
        }
    }

    /// Turn `sinr_lin`, the per-RB linear SINR without fading, into the faded SINR with ICI during
    /// the TTI containing `now_ns`. `steer` is the cell's per-RB tap phases (multipath only).
    /// Always inlined: part of the calling row's [`crate::sim::simd`] kernel, at its width.
    #[inline(always)]
    pub fn apply(&mut self, now_ns: u64, steer: Option<&RbSteering>, sinr_lin: &mut [f64]) {
        match (self, steer) {
            (LinkFading::Multipath { process, kept }, Some(steer)) => {
                for (s, g) in sinr_lin.iter_mut().zip(process.rb_gains(now_ns, steer)) {
                    *s = with_ici(*s * g, *kept);
                }
            }
            (LinkFading::Hst(p), _) => {
                let kept = p.kept_share(now_ns);
                for s in sinr_lin.iter_mut() {
                    *s = with_ici(*s, kept);
                }
            }
            (LinkFading::Flat, _) | (LinkFading::Multipath { .. }, None) => {}
        }
    }

    /// [`Self::apply`] on the RBs `rbs` only (ascending): each of them gets the bits `apply`
    /// gives it, the other RBs of `sinr_lin` are left unspecified (a multipath link evaluates
    /// only those RBs' fading, [`FadingProcess::rb_gains_on`]).
    #[inline(always)]
    pub fn apply_on(
        &mut self,
        now_ns: u64,
        steer: Option<&RbSteering>,
        rbs: impl Iterator<Item = usize> + Clone,
        sinr_lin: &mut [f64],
    ) {
        match (self, steer) {
            (LinkFading::Multipath { process, kept }, Some(steer)) => {
                let gains = process.rb_gains_on(now_ns, steer, rbs.clone());
                for rb in rbs {
                    sinr_lin[rb] = with_ici(sinr_lin[rb] * gains[rb], *kept);
                }
            }
            (fading, steer) => fading.apply(now_ns, steer, sinr_lin),
        }
    }
}
