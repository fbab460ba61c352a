//! Power received from an eNB (the serving one or a neighbour), mW per whole band.
//!
//! Each neighbour eNB has a data-region load ([`InterfererLoad`], issue 8):
//! - `full_buffer` (default): its full power on every downlink RB in every TTI (TR 36.814
//!   §A.2.1.1 full-buffer traffic model; seed 004's data and control interference);
//! - `idle`: no data-region power;
//! - `fraction`: it serves `round(f N_rb)` RBs per TTI as one contiguous block (wrapping at
//!   the band's edge) whose first RB is drawn uniformly each TTI from the interferer's own
//!   stream ([`RbPicker`]), at the same per-RB power as a full-buffer cell (the eNB spreads its
//!   power evenly over all RBs and leaves unscheduled RBs empty), so the mean interference is
//!   `round(f N_rb) / N_rb` of the full-buffer one.
//!
//! The control region (PDCCH, PCFICH, reference signals) spans the band in every subframe of
//! every cell, loaded or not, so it always sees full interference (seed 004).
//! Interfering links get path loss and shadowing (each link its own Gudmundson process) and, on
//! a multipath channel, fast fading of their own ([`InterfererFading`]): every interferer that
//! holds a sizeable share of the interference fades per RB and TTI as the serving link does;
//! the many weak ones keep their mean power, since their sum hardly fades (the relative spread
//! of a sum of N independent Rayleigh links of equal power is 1/sqrt(N)). Each site's antenna
//! pattern ([`super::antenna`]) weighs its power towards the UE.

use super::antenna::{azimuth_rad, Antenna, FloorCone};
use super::db;
use super::fading::{FadingProcess, RbSteering, TapProfile};
use super::link_loss::PreparedLoss;
use super::noise::dbm_to_mw;
use crate::error::ScenarioError;
use crate::sim::RngStream;
use rand::RngCore;
use serde::{Deserialize, Serialize};

/// How much of the band a neighbour cell fills with data.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum InterfererLoad {
    #[default]
    FullBuffer,
    Idle,
    /// `fraction` of the RBs, in [0, 1], per TTI.
    Fraction {
        fraction: f64,
    },
}

impl InterfererLoad {
    pub fn validate(&self, path: &str) -> Result<(), ScenarioError> {
        match *self {
            InterfererLoad::Fraction { fraction } if !(fraction.is_finite() && (0.0..=1.0).contains(&fraction)) => {
                Err(ScenarioError::new(format!("{path}.fraction"), fraction, "a share of the RBs in [0, 1]"))
            }
            _ => Ok(()),
        }
    }

    /// RBs this cell serves per TTI out of `n_rb`.
    pub fn active_rbs(&self, n_rb: usize) -> usize {
        match *self {
            InterfererLoad::FullBuffer => n_rb,
            InterfererLoad::Idle => 0,
            InterfererLoad::Fraction { fraction } => ((fraction * n_rb as f64).round() as usize).min(n_rb),
        }
    }
}

/// Where a fractionally loaded interferer's block of RBs starts in each TTI: a pure function of
/// (stream, TTI), read by seeking the interferer's ChaCha stream to word `2 k` (so every UE of
/// the cell sees the same block, whichever TTIs were asked before).
pub struct RbPicker {
    rng: RngStream,
    at: Option<(u64, usize)>,
    start: usize,
}

impl RbPicker {
    pub fn new(rng: RngStream) -> Self {
        RbPicker { rng, at: None, start: 0 }
    }

    /// First RB of the block in TTI `tti` for a band of `n_rb` (> 0) RBs.
    pub fn start(&mut self, tti: u64, n_rb: usize) -> usize {
        if self.at != Some((tti, n_rb)) {
            let r = self.rng.inner();
            r.set_word_pos(u128::from(tti) * 2);
            // Modulo bias below n_rb / 2^64: negligible.
            self.start = (r.next_u64() % n_rb as u64) as usize;
            self.at = Some((tti, n_rb));
        }
        self.start
    }
}

/// A transmitting eNB.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Site {
    pub xy_m: [f64; 2],
    pub height_m: f64,
    pub tx_power_mw: f64,
    pub antenna: Antenna,
    /// Where `antenna` is at its floor for certain (skips `atan2` there; same gain).
    floor: Option<FloorCone>,
}

impl Site {
    pub fn new(xy_m: [f64; 2], height_m: f64, tx_power_dbm: f64, antenna: Antenna) -> Self {
        Site { xy_m, height_m, tx_power_mw: dbm_to_mw(tx_power_dbm), antenna, floor: antenna.floor_cone() }
    }

    /// Linear gain of the link to a UE at `ue_xy_m`: antenna gain towards the UE, the link's
    /// path loss `loss` (prepared for the UE's height and the carrier) and `shadow_db` (the antenna
    /// pattern is reciprocal: UL uses it too).
    pub fn gain_lin(&self, loss: &PreparedLoss, ue_xy_m: [f64; 2], shadow_db: f64) -> f64 {
        self.gain_lin_with_loss(loss.loss_db(self.offset_m(ue_xy_m)), ue_xy_m, shadow_db)
    }

    /// [`Site::gain_lin`] with the link's path loss `loss_db` already evaluated.
    #[inline]
    fn gain_lin_with_loss(&self, loss_db: f64, ue_xy_m: [f64; 2], shadow_db: f64) -> f64 {
        gain_lin_of(self.antenna_db(ue_xy_m), loss_db, shadow_db)
    }

    /// The antenna's gain towards a UE at `ue_xy_m`, dB (its floor without `atan2` where known).
    #[inline]
    fn antenna_db(&self, ue_xy_m: [f64; 2]) -> f64 {
        let floor_db = self.floor.and_then(|f| f.floor_towards(self.offset_m(ue_xy_m)));
        floor_db.unwrap_or_else(|| self.antenna.gain_db(self.xy_m, ue_xy_m))
    }

    /// [`Site::antenna_db`] towards the offset `off` (the UE's from the site), with the
    /// azimuth from `azimuth` if known there, else computed and left there (sectors at one
    /// position share it).
    #[inline]
    fn antenna_db_at(&self, off: [f64; 2], azimuth: &mut Option<f64>) -> f64 {
        let floor_db = self.floor.and_then(|f| f.floor_towards(off));
        floor_db.unwrap_or_else(|| self.antenna.gain_db_towards(|| *azimuth.get_or_insert_with(|| azimuth_rad(off))))
    }

    /// The UE's position relative to the site, m.
    #[inline]
    fn offset_m(&self, ue_xy_m: [f64; 2]) -> [f64; 2] {
        [ue_xy_m[0] - self.xy_m[0], ue_xy_m[1] - self.xy_m[1]]
    }
}

/// ln(10) / 10: a dB value times this is the natural log of its linear ratio.
const DB_TO_NEPER: f64 = std::f64::consts::LN_10 / 10.0;

/// A link's linear gain from its antenna gain, path loss and shadowing, dB.
#[inline]
fn gain_lin_of(antenna_db: f64, loss_db: f64, shadow_db: f64) -> f64 {
    // 10^(x/10) as exp(x ln(10)/10): the same value to a few ulp, at a third of powf's cost
    // (56 sites x every UE at each large-scale epoch, radio/track.rs).
    ((antenna_db - loss_db - shadow_db) * DB_TO_NEPER).exp()
}

/// A network UE's links to every site on two carriers, arranged so that its large-scale epoch takes
/// each distinct quantity once: the sectors of one site share its position (one offset, and
/// one `atan2` for those not at their pattern's floor), and links whose path losses take the
/// same logarithm of the same distance share it (both carriers of a log-distance model, and
/// the co-sited sectors). UEs whose links are alike (the same prepared losses, as UEs at one
/// height in a TR 36.814 layout) can share one, which keeps a UE's own state small. The same
/// values as link by link ([`Site::gain_lin`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TwoCarrierLinks {
    /// The distinct prepared losses of the links.
    losses: Vec<PreparedLoss>,
    /// The distinct site positions, m.
    positions: Vec<[f64; 2]>,
    /// The distinct logarithms a step takes: (position, a loss whose `log_argument` it is).
    arguments: Vec<(usize, usize)>,
    /// Per site.
    links: Vec<SiteLinks>,
}

/// One site's links in [`TwoCarrierLinks`]: indices into its lists.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SiteLinks {
    position: usize,
    /// The downlink's (loss, argument).
    dl: (usize, usize),
    /// The uplink's (loss, argument), for the sites that receive one.
    ul: Option<(usize, usize)>,
}

/// What a step of [`TwoCarrierLinks`] computes on the way, per position and argument (kept to
/// spare the allocations).
#[derive(Default)]
pub struct LinkScratch {
    offsets_m: Vec<[f64; 2]>,
    azimuths_rad: Vec<Option<f64>>,
    arguments_db: Vec<f64>,
}

impl TwoCarrierLinks {
    /// The links to `sites` with the downlink losses `dl_losses[j]` and, for the first
    /// `ul_losses.len()` sites, the uplink losses `ul_losses[j]`.
    pub fn new(sites: &[Site], dl_losses: &[PreparedLoss], ul_losses: &[PreparedLoss]) -> Self {
        let mut plan =
            TwoCarrierLinks { losses: Vec::new(), positions: Vec::new(), arguments: Vec::new(), links: Vec::new() };
        for (j, site) in sites.iter().enumerate() {
            let position = index_of(&mut plan.positions, site.xy_m, |a, b| a.map(f64::to_bits) == b.map(f64::to_bits));
            let dl = plan.link(position, &dl_losses[j]);
            let ul = ul_losses.get(j).map(|loss| plan.link(position, loss));
            plan.links.push(SiteLinks { position, dl, ul });
        }
        plan
    }

    /// (loss, argument) of a link from `position` with `loss`. A loss evaluated in full is
    /// the link's own (a drawn LOS state differs link by link) and needs no logarithm: those
    /// share one argument; log-distance losses are few (one per site height and carrier).
    fn link(&mut self, position: usize, loss: &PreparedLoss) -> (usize, usize) {
        let l = if !matches!(loss, PreparedLoss::Full { .. }) {
            index_of(&mut self.losses, loss.clone(), |a, b| a == b)
        } else {
            self.losses.push(loss.clone());
            self.losses.len() - 1
        };
        let losses = &self.losses;
        let same_argument = |a: &(usize, usize), b: &(usize, usize)| match (&losses[a.1], &losses[b.1]) {
            (PreparedLoss::Full { .. }, PreparedLoss::Full { .. }) => true,
            (x, y) => a.0 == b.0 && x.same_log_argument(y),
        };
        (l, index_of(&mut self.arguments, (position, l), same_argument))
    }

    /// Whether every loss is log-distance: links that UEs of one height share (a loss evaluated
    /// in full may hold the link's own LOS draw).
    pub fn shareable(&self) -> bool {
        self.losses.iter().all(|l| matches!(l, PreparedLoss::LogDistance { .. }))
    }

    /// Into `dl_mw[j]` the power received from site `j` on the downlink (as
    /// [`interference_mw`]), into `ul_gain[j]` the uplink's linear gain to site `j` for the
    /// sites with an uplink, for a UE at `ue_xy_m` with link `j`'s shadowing `shadow_db(j)`. The
    /// antenna and shadowing are the link's on both carriers (the pattern is reciprocal).
    pub fn gains(
        &self,
        sites: &[Site],
        shadow_db: impl Fn(usize) -> f64,
        ue_xy_m: [f64; 2],
        scratch: &mut LinkScratch,
        dl_mw: &mut [f64],
        ul_gain: &mut [f64],
    ) {
        let LinkScratch { offsets_m, azimuths_rad, arguments_db } = scratch;
        offsets_m.clear();
        offsets_m.extend(self.positions.iter().map(|p| [ue_xy_m[0] - p[0], ue_xy_m[1] - p[1]]));
        azimuths_rad.clear();
        azimuths_rad.resize(self.positions.len(), None);
        // Every logarithm first, together (db::slice_to_db): independent series overlap.
        arguments_db.clear();
        arguments_db.extend(self.arguments.iter().map(|&(p, l)| self.losses[l].log_argument(offsets_m[p])));
        db::slice_to_db(arguments_db);
        for (j, (s, link)) in sites.iter().zip(&self.links).enumerate() {
            let off = offsets_m[link.position];
            let antenna_db = s.antenna_db_at(off, &mut azimuths_rad[link.position]);
            let sh = shadow_db(j);
            let (l, a) = link.dl;
            dl_mw[j] = s.tx_power_mw * gain_lin_of(antenna_db, self.losses[l].loss_from_db(arguments_db[a], off), sh);
            if let Some((l, a)) = link.ul {
                ul_gain[j] = gain_lin_of(antenna_db, self.losses[l].loss_from_db(arguments_db[a], off), sh);
            }
        }
    }

    /// The uplink's linear gain to site `j` alone (it must have one), shadowing `shadow_db`: the
    /// value [`TwoCarrierLinks::gains`] gives it.
    pub fn ul_gain(&self, sites: &[Site], j: usize, shadow_db: f64, ue_xy_m: [f64; 2]) -> f64 {
        let link = &self.links[j];
        let (l, _) = link.ul.expect("the site receives an uplink");
        let off = sites[j].offset_m(ue_xy_m);
        let loss = &self.losses[l];
        // db::lin_to_db is db::slice_to_db's value element by element.
        let loss_db = loss.loss_from_db(db::lin_to_db(loss.log_argument(off)), off);
        gain_lin_of(sites[j].antenna_db_at(off, &mut None), loss_db, shadow_db)
    }
}

/// The index of `x` in `list` by `same`, appended if it is not there.
fn index_of<T>(list: &mut Vec<T>, x: T, same: impl Fn(&T, &T) -> bool) -> usize {
    list.iter().position(|y| same(y, &x)).unwrap_or_else(|| {
        list.push(x);
        list.len() - 1
    })
}

/// The whole-band power received from each of `sites` into `out_mw`, each with its own path loss
/// (`losses[j]`, prepared for the UE) and shadowing (dB); returns the sum, mW.
pub fn interference_mw(
    sites: &[Site],
    losses: &[PreparedLoss],
    shadow_db: impl Iterator<Item = f64>,
    ue_xy_m: [f64; 2],
    out_mw: &mut [f64],
) -> f64 {
    // Every link's logarithm first, together (db::slice_to_db), in `out_mw` until its power goes
    // there: independent links' series overlap instead of each waiting on the last (the same
    // arithmetic per link, so the same values).
    for ((o, s), loss) in out_mw.iter_mut().zip(sites).zip(losses) {
        *o = loss.log_argument(s.offset_m(ue_xy_m));
    }
    db::slice_to_db(out_mw);
    for (((o, s), loss), sh) in out_mw.iter_mut().zip(sites).zip(losses).zip(shadow_db) {
        let loss_db = loss.loss_from_db(*o, s.offset_m(ue_xy_m));
        *o = s.tx_power_mw * s.gain_lin_with_loss(loss_db, ue_xy_m, sh);
    }
    out_mw.iter().sum()
}

/// Add each site's per-RB data-region power `site_mw[j] / n_rb` to `out_mw` on the RBs its load
/// fills during TTI `tti` (`out_mw.len()` = n_rb): the two parts below together, as the tests
/// check them (the channel keeps the full-buffer part per large-scale epoch).
#[cfg(test)]
pub fn add_data_interference(
    site_mw: &[f64],
    loads: &[InterfererLoad],
    pickers: &mut [RbPicker],
    tti: u64,
    out_mw: &mut [f64],
) {
    let n_rb = out_mw.len();
    add_partial_interference(site_mw, loads, pickers, tti, out_mw);
    let everywhere_mw = full_buffer_rb_mw(site_mw, loads, n_rb).0;
    out_mw.iter_mut().for_each(|o| *o += everywhere_mw);
}

/// The per-RB power of the sites whose load fills every one of `n_rb` RBs (full-buffer sites
/// cover every RB: one sum, one pass; 57-cell layouts are mostly full-buffer), and whether any
/// other site fills only some RBs. A function of `site_mw` alone, so the channel keeps it for
/// the large-scale epoch (radio/track.rs).
pub fn full_buffer_rb_mw(site_mw: &[f64], loads: &[InterfererLoad], n_rb: usize) -> (f64, bool) {
    let mut everywhere_mw = 0.0;
    let mut partial = false;
    for (p_mw, load) in site_mw.iter().zip(loads) {
        let active = load.active_rbs(n_rb);
        if active == n_rb {
            everywhere_mw += p_mw / n_rb as f64;
        } else if active > 0 {
            partial = true;
        }
    }
    (everywhere_mw, partial)
}

/// Add the power of the sites that fill only some RBs during TTI `tti` to `out_mw` (see
/// `add_data_interference`; full-buffer and idle sites add nothing here).
pub fn add_partial_interference(
    site_mw: &[f64],
    loads: &[InterfererLoad],
    pickers: &mut [RbPicker],
    tti: u64,
    out_mw: &mut [f64],
) {
    let n_rb = out_mw.len();
    for ((p_mw, load), picker) in site_mw.iter().zip(loads).zip(pickers) {
        let active = load.active_rbs(n_rb);
        if active > 0 && active < n_rb {
            let per_rb = p_mw / n_rb as f64;
            let start = picker.start(tti, n_rb);
            for k in 0..active {
                out_mw[(start + k) % n_rb] += per_rb;
            }
        }
    }
}

/// An interferer fades when it holds at least this share of the interference power (its mean
/// over the band at its load): 10 %, so that the faded links carry most of the fluctuation of the
/// sum (a link's power fluctuates with a standard deviation equal to its mean, so one of 10 % moves
/// the sum by 10 %) and the rest, each under 10 %, average out among themselves.
pub const MIN_FADED_SHARE: f64 = 0.10;
/// At most this many interferers fade per link (the strongest): each costs one tap-profile
/// evaluation per row, as the serving link does, so the channel's cost per row stays within a few
/// serving links' (docs/performance.md "Interferers' fading").
pub const MAX_FADED_INTERFERERS: usize = 3;

/// The fast fading of one UE's interfering links: one [`FadingProcess`] per interferer, created
/// when it first holds [`MIN_FADED_SHARE`], each on its own stream (`{key}{j}`), so a link's
/// fading is the same whichever others fade.
pub struct InterfererFading {
    profile: TapProfile,
    doppler_hz: f64,
    k_factor_db: Option<f64>,
    seed: u64,
    key: String,
    links: Vec<Option<Box<FadingProcess>>>,
    /// (interferer, mean per-RB power mW) of the faded ones, chosen at large-scale epoch `at`.
    faded: Vec<(usize, f64)>,
    at: Option<(u64, usize)>,
}

impl InterfererFading {
    /// `n_sites` interferers of a link whose multipath is `profile` at `doppler_hz` (the UE's
    /// movement sets the Doppler of all its links); streams `{key}{j}` from `seed`.
    pub fn new(
        profile: TapProfile,
        doppler_hz: f64,
        k_factor_db: Option<f64>,
        seed: u64,
        key: String,
        n_sites: usize,
    ) -> Self {
        InterfererFading {
            profile,
            doppler_hz,
            k_factor_db,
            seed,
            key,
            links: (0..n_sites).map(|_| None).collect(),
            faded: Vec::with_capacity(MAX_FADED_INTERFERERS),
            at: None,
        }
    }

    /// Choose the faded interferers from each site's whole-band power `site_mw` at its load, for
    /// the large-scale epoch `epoch` (kept until the epoch or the RB count changes).
    fn select(&mut self, epoch: u64, site_mw: &[f64], loads: &[InterfererLoad], n_rb: usize) {
        if self.at == Some((epoch, n_rb)) {
            return;
        }
        self.at = Some((epoch, n_rb));
        let mean_mw = |j: usize| site_mw[j] * loads[j].active_rbs(n_rb) as f64 / n_rb as f64;
        let total_mw: f64 = (0..site_mw.len()).map(mean_mw).sum();
        self.faded.clear();
        if total_mw <= 0.0 {
            return;
        }
        for (j, p_mw) in site_mw.iter().enumerate() {
            if mean_mw(j) >= MIN_FADED_SHARE * total_mw {
                self.faded.push((j, p_mw / n_rb as f64));
            }
        }
        // The strongest first; ties by index (deterministic).
        self.faded.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        self.faded.truncate(MAX_FADED_INTERFERERS);
        for &(j, _) in &self.faded {
            if self.links[j].is_none() {
                let rng = RngStream::new(self.seed, &format!("{}{j}", self.key));
                self.links[j] =
                    Some(Box::new(FadingProcess::new(&self.profile, self.doppler_hz, self.k_factor_db, rng)));
            }
        }
    }

    /// In `out_mw` (the data-region interference per RB, each site at its mean power on the RBs
    /// its load fills), replace the faded interferers' mean power by their faded power at `now_ns`
    /// (large-scale epoch `epoch`, sites' powers `site_mw`). Always inlined: part of the calling
    /// row's [`crate::sim::simd`] kernel, at its width.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn apply(
        &mut self,
        epoch: u64,
        now_ns: u64,
        site_mw: &[f64],
        loads: &[InterfererLoad],
        pickers: &mut [RbPicker],
        steer: &RbSteering,
        out_mw: &mut [f64],
    ) {
        let n_rb = out_mw.len();
        self.select(epoch, site_mw, loads, n_rb);
        let tti = FadingProcess::step_of(now_ns);
        for &(j, per_rb_mw) in &self.faded {
            let Some(process) = self.links[j].as_mut() else { continue };
            let gains = process.rb_gains(now_ns, steer);
            let active = loads[j].active_rbs(n_rb);
            let start = if active == n_rb { 0 } else { pickers[j].start(tti, n_rb) };
            // The block start..start+active wraps at the band's edge: two contiguous runs (no
            // modulo per RB, so the loop vectorises; the same operations on the same RBs).
            let wrapped = (start + active).saturating_sub(n_rb);
            let first = start..start + active - wrapped;
            let add_faded = |o: &mut f64, g: &f64| *o = (*o + per_rb_mw * (g - 1.0)).max(0.0);
            out_mw[first.clone()].iter_mut().zip(&gains[first]).for_each(|(o, g)| add_faded(o, g));
            out_mw[..wrapped].iter_mut().zip(&gains[..wrapped]).for_each(|(o, g)| add_faded(o, g));
        }
    }

    /// The interferers faded at the current step (for tests and traces).
    pub fn faded(&self) -> impl Iterator<Item = usize> + '_ {
        self.faded.iter().map(|&(j, _)| j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn total(sites: &[Site], shadow: &[f64]) -> f64 {
        let mut out = vec![0.0; sites.len()];
        let losses: Vec<_> = sites
            .iter()
            .map(|s| PreparedLoss::new(&crate::radio::spec::PathLossSpec::Friis, s.height_m, 1.5, 2100.0))
            .collect();
        interference_mw(sites, &losses, shadow.iter().copied(), [0.0, 0.0], &mut out)
    }

    #[test]
    fn two_equal_interferers_at_equal_distance_double_the_power() {
        // Friis at 2.1 GHz, 100 m: 78.892 dB (pathloss tests) over ~100 m (3-D distance with 30 m / 1.5 m heights
        // is 104.0 m, +0.34 dB). One 46 dBm site: 46 - 79.23 = -33.23 dBm; two: +3.01 dB.
        let a = Site::new([100.0, 0.0], 30.0, 46.0, Antenna::Isotropic);
        let b = Site::new([-100.0, 0.0], 30.0, 46.0, Antenna::Isotropic);
        let one = total(&[a], &[0.0]);
        let two = total(&[a, b], &[0.0, 0.0]);
        let d3 = 100f64.hypot(28.5);
        let want_dbm = 46.0 - 20.0 * (4.0 * std::f64::consts::PI * d3 * 2.1e9 / 299_792_458.0).log10();
        assert!((10.0 * one.log10() - want_dbm).abs() < 1e-9);
        assert!((two / one - 2.0).abs() < 1e-12);
        // Shadowing of +10 dB on a link divides its power by 10.
        let shaded = total(&[a], &[10.0]);
        assert!((one / shaded - 10.0).abs() < 1e-9);
    }

    /// A UE's links evaluated together ([`TwoCarrierLinks`]: shared offsets, azimuths and
    /// logarithms), and an uplink alone ([`TwoCarrierLinks::ul_gain`]), give the same bits as link
    /// by link ([`Site::gain_lin`]): three sectors on each
    /// of three sites (one sector moved off its site, one site higher), an isotropic and a sector
    /// interferer-only site at one position and two heights, TR 36.814 UMa and Friis (3-D) losses and a TR 38.901 loss with its own LOS draw per
    /// link, at random positions, shadowing and carriers.
    #[test]
    fn links_evaluated_together_give_the_bits_of_link_by_link() {
        use crate::radio::spec::{LosCondition, PathLossSpec, Tr38901Condition, Tr38901Scenario};
        let sector = |o: f64| Antenna::Parabolic {
            orientation_rad: o.to_radians(),
            beamwidth_rad: 70f64.to_radians(),
            max_attenuation_db: 20.0,
        };
        let mut sites = Vec::new();
        for (xy, h) in [([0.0, 0.0], 25.0), ([500.0, 0.0], 25.0), ([250.0, 433.0], 32.0)] {
            for o in [0.0, 120.0, -120.0] {
                sites.push(Site::new(xy, h, 46.0, sector(o)));
            }
        }
        sites[4].xy_m = [503.0, 1.0];
        sites.push(Site::new([-300.0, 200.0], 25.0, 43.0, Antenna::Isotropic));
        sites.push(Site::new([-300.0, 200.0], 40.0, 43.0, sector(60.0)));
        let n_ul = 9;
        let models = [
            PathLossSpec::Tr36814Uma { condition: LosCondition::Nlos },
            PathLossSpec::Friis,
            PathLossSpec::Tr38901 { scenario: Tr38901Scenario::Uma, condition: Tr38901Condition::Drawn },
        ];
        let mut rng = RngStream::new(11, "links:test");
        for model in &models {
            for _ in 0..200 {
                let (dl_mhz, ul_mhz) = (700.0 + 2800.0 * rng.uniform(), 700.0 + 2800.0 * rng.uniform());
                let ue_h = 1.5 + 20.0 * rng.uniform();
                let draws: Vec<f64> = sites.iter().map(|_| rng.uniform()).collect();
                let loss =
                    |j: usize, mhz: f64| PreparedLoss::new(model, sites[j].height_m, ue_h, mhz).with_los_draw(draws[j]);
                let dl: Vec<_> = (0..sites.len()).map(|j| loss(j, dl_mhz)).collect();
                let ul: Vec<_> = (0..n_ul).map(|j| loss(j, ul_mhz)).collect();
                let shadow: Vec<f64> = sites.iter().map(|_| 8.0 * (rng.uniform() - 0.5)).collect();
                let ue = [-600.0 + 1500.0 * rng.uniform(), -400.0 + 1200.0 * rng.uniform()];
                let (mut dl_mw, mut ul_gain) = (vec![0.0; sites.len()], vec![0.0; n_ul]);
                let links = TwoCarrierLinks::new(&sites, &dl, &ul);
                links.gains(&sites, |j| shadow[j], ue, &mut LinkScratch::default(), &mut dl_mw, &mut ul_gain);
                for (j, s) in sites.iter().enumerate() {
                    let want = s.tx_power_mw * s.gain_lin(&dl[j], ue, shadow[j]);
                    assert_eq!(dl_mw[j].to_bits(), want.to_bits(), "{model:?} DL site {j}");
                    if j < n_ul {
                        assert_eq!(ul_gain[j].to_bits(), s.gain_lin(&ul[j], ue, shadow[j]).to_bits(), "UL {j}");
                        assert_eq!(
                            links.ul_gain(&sites, j, shadow[j], ue).to_bits(),
                            ul_gain[j].to_bits(),
                            "UL {j} alone"
                        );
                    }
                }
            }
        }
        // Alike UEs share: the log-distance links of one height are shareable, drawn ones not.
        let uma = |j: usize| PreparedLoss::new(&models[0], sites[j].height_m, 1.5, 2000.0);
        let dl: Vec<_> = (0..sites.len()).map(uma).collect();
        assert!(TwoCarrierLinks::new(&sites, &dl, &dl[..n_ul]).shareable());
    }

    fn data_rbs(load: InterfererLoad, tti: u64, picker: &mut RbPicker) -> Vec<f64> {
        let mut out = vec![0.0; 50];
        add_data_interference(&[50.0], &[load], std::slice::from_mut(picker), tti, &mut out);
        out
    }

    #[test]
    fn loads_fill_all_none_or_a_contiguous_share_of_the_rbs() {
        // 50 mW over 50 RBs = 1 mW per served RB.
        let mut picker = RbPicker::new(RngStream::new(1, "i0"));
        assert!(data_rbs(InterfererLoad::FullBuffer, 0, &mut picker).iter().all(|&x| x == 1.0));
        assert!(data_rbs(InterfererLoad::Idle, 0, &mut picker).iter().all(|&x| x == 0.0));
        let half = InterfererLoad::Fraction { fraction: 0.5 };
        let mut starts = std::collections::BTreeSet::new();
        for tti in 0..200 {
            let rbs = data_rbs(half, tti, &mut picker);
            // round(0.5 * 50) = 25 RBs at 1 mW: half the full-buffer power in every TTI.
            assert_eq!(rbs.iter().sum::<f64>(), 25.0);
            let start = picker.start(tti, 50);
            assert!((0..25).all(|k| rbs[(start + k) % 50] == 1.0), "one block from {start}");
            starts.insert(start);
        }
        // The block moves: 200 uniform draws over 50 starts hit nearly all of them.
        assert!(starts.len() > 40, "{} distinct starts", starts.len());
        // 0.3 of 25 RBs: round(7.5) = 8 RBs.
        assert_eq!(InterfererLoad::Fraction { fraction: 0.3 }.active_rbs(25), 8);
    }

    #[test]
    fn the_block_is_a_function_of_the_tti_alone() {
        let mut a = RbPicker::new(RngStream::new(3, "i0"));
        let mut b = RbPicker::new(RngStream::new(3, "i0"));
        let seq: Vec<usize> = (0..100).map(|t| a.start(t, 50)).collect();
        assert_eq!(b.start(77, 50), seq[77]);
        assert_eq!(b.start(3, 50), seq[3]);
    }

    /// 50 RBs of 180 kHz (an LTE 10 MHz band) for the fading tests.
    fn steering() -> RbSteering {
        RbSteering::new(&crate::radio::fading::EPA, 50, 180e3)
    }

    /// One strong full-buffer site (1 mW per RB) and `weak` sites of 1 % each: the strong one's
    /// per-RB power after fading, over 50 RBs at `now_ns` (its fading drawn from `seed`).
    fn faded_power(seed: u64, weak: usize, now_ns: u64, steer: &RbSteering) -> (Vec<f64>, Vec<usize>) {
        let n = 1 + weak;
        let mut site_mw = vec![0.5; n];
        site_mw[0] = 50.0;
        let loads = vec![InterfererLoad::FullBuffer; n];
        let mut pickers: Vec<RbPicker> =
            (0..n).map(|j| RbPicker::new(RngStream::new(seed, &format!("p{j}")))).collect();
        let mut f = InterfererFading::new(crate::radio::fading::EPA, 50.0, None, seed, "i".into(), n);
        // Each site at its mean: the strong one 1 mW per RB, the weak ones 0.01 mW each.
        let mut out = vec![1.0 + 0.01 * weak as f64; 50];
        f.apply(now_ns / 10_000_000, now_ns, &site_mw, &loads, &mut pickers, steer, &mut out);
        let faded: Vec<usize> = f.faded().collect();
        (out.iter().map(|x| x - 0.01 * weak as f64).collect(), faded)
    }

    /// The strong interferer fades on its own: its per-RB power is Exp(1) times its mean (Rayleigh,
    /// a KS test over 1000 links as the serving link's), its mean gain is 1, its power's correlation
    /// across 5 ms at 50 Hz is J0(2 pi f_d tau)^2, and the weak ones (1 % each) keep their mean.
    #[test]
    fn a_dominant_interferer_fades_per_rb_with_rayleigh_statistics() {
        let steer = steering();
        let t = 1_024 * crate::sim::NS_PER_MS;
        let (row, faded) = faded_power(1, 20, t, &steer);
        assert_eq!(faded, [0], "only the site holding 10 % or more fades");
        assert!(row.iter().any(|&x| x < 0.5) && row.iter().any(|&x| x > 1.5), "frequency-selective: {row:?}");
        let mut x: Vec<f64> = (0..1000).map(|seed| faded_power(seed, 20, t, &steer).0[0]).collect();
        let mean = x.iter().sum::<f64>() / x.len() as f64;
        assert!((mean - 1.0).abs() < 0.1, "mean gain {mean}");
        let d = crate::radio::fading::tests::ks_distance_to_exp1(&mut x);
        // Kolmogorov-Smirnov critical value at 5 % for n = 1000: 0.043.
        assert!(d < 0.043, "KS distance {d}");
        // Power autocorrelation of Rayleigh fading: cov(|h(t)|^2, |h(t+tau)|^2) / var = J0(2 pi f_d tau)^2.
        let lag = 5 * crate::sim::NS_PER_MS;
        let pairs: Vec<(f64, f64)> = (0..2000)
            .map(|seed| (faded_power(seed, 0, t, &steer).0[0], faded_power(seed, 0, t + lag, &steer).0[0]))
            .collect();
        let (ma, mb) = pairs.iter().fold((0.0, 0.0), |(a, b), p| (a + p.0 / 2000.0, b + p.1 / 2000.0));
        let cov = pairs.iter().map(|p| (p.0 - ma) * (p.1 - mb)).sum::<f64>() / 2000.0;
        let var = pairs.iter().map(|p| (p.0 - ma).powi(2)).sum::<f64>() / 2000.0;
        let want = libm::j0(std::f64::consts::TAU * 50.0 * 0.005).powi(2);
        assert!((cov / var - want).abs() < 0.08, "lag 5 ms: {} vs J0^2 = {want}", cov / var);
    }

    /// A fractionally loaded faded interferer whose block wraps past the band's last RB: its
    /// faded power lands on exactly the block's RBs, each as `(mean + p (g - 1)).max(0)` RB by RB.
    #[test]
    fn a_faded_block_that_wraps_at_the_band_edge_changes_exactly_its_rbs() {
        let steer = steering();
        let load = InterfererLoad::Fraction { fraction: 0.5 };
        let (site_mw, loads) = ([50.0], [load]);
        let mut f = InterfererFading::new(crate::radio::fading::EPA, 50.0, None, 5, "i".into(), 1);
        let mut g = FadingProcess::new(&crate::radio::fading::EPA, 50.0, None, RngStream::new(5, "i0"));
        let mut picker = RbPicker::new(RngStream::new(2, "p0"));
        let tti = (0..1000).find(|&t| picker.start(t, 50) > 25).expect("a block that wraps");
        let now_ns = tti * crate::sim::NS_PER_MS;
        let mut out = vec![0.5; 50];
        f.apply(tti / 10, now_ns, &site_mw, &loads, std::slice::from_mut(&mut picker), &steer, &mut out);
        let (start, gains) = (picker.start(tti, 50), g.rb_gains(now_ns, &steer));
        let mut want = vec![0.5; 50];
        for k in 0..load.active_rbs(50) {
            let rb = (start + k) % 50;
            want[rb] = (0.5f64 + 1.0 * (gains[rb] - 1.0)).max(0.0);
        }
        assert_eq!(out, want, "block from RB {start}");
    }

    /// At most [`MAX_FADED_INTERFERERS`] fade, the strongest; a link's fading does not depend on
    /// which others fade (its own stream).
    #[test]
    fn the_strongest_interferers_fade_each_on_its_own_stream() {
        let steer = steering();
        let n = 12;
        // Sites 4-11 hold 10.9-14.3 % each of the 202 mW: above the share, only the 3 strongest fade.
        let site_mw: Vec<f64> = (0..n).map(|j| if j < 4 { 1.0 } else { 18.0 + j as f64 }).collect();
        let loads = vec![InterfererLoad::FullBuffer; n];
        let mut pickers: Vec<RbPicker> = (0..n).map(|j| RbPicker::new(RngStream::new(1, &format!("p{j}")))).collect();
        let mut f = InterfererFading::new(crate::radio::fading::EPA, 50.0, None, 7, "i".into(), n);
        let mut out = vec![site_mw.iter().sum::<f64>() / 50.0; 50];
        f.apply(0, 0, &site_mw, &loads, &mut pickers, &steer, &mut out);
        assert_eq!(f.faded().collect::<Vec<_>>(), [11, 10, 9]);
        // Site 11 alone (the others idle) fades the same way.
        let alone: Vec<InterfererLoad> =
            (0..n).map(|j| if j == 11 { InterfererLoad::FullBuffer } else { InterfererLoad::Idle }).collect();
        let mut g = InterfererFading::new(crate::radio::fading::EPA, 50.0, None, 7, "i".into(), n);
        let mut one = vec![site_mw[11] / 50.0; 50];
        g.apply(0, 0, &site_mw, &alone, &mut pickers, &steer, &mut one);
        let mut h = FadingProcess::new(&crate::radio::fading::EPA, 50.0, None, RngStream::new(7, "i11"));
        let want: Vec<f64> = h.rb_gains(0, &steer).iter().map(|x| x * site_mw[11] / 50.0).collect();
        for (a, b) in one.iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
    }

    #[test]
    fn a_load_outside_zero_one_names_its_field() {
        let e = InterfererLoad::Fraction { fraction: 1.5 }.validate("c.interferers[0].load").unwrap_err();
        assert_eq!(e.path, "c.interferers[0].load.fraction");
        assert!(InterfererLoad::Fraction { fraction: 0.0 }.validate("x").is_ok());
    }
}
