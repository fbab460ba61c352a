//! The network's radio channel: every UE's link to every site, and each cell's interference on
//! a neighbour's UE (downlink) or eNB (uplink) being what that cell transmits in that TTI.
//!
//! ```text
//!  DL, UE u served by cell s, RB k, TTI t:
//!    S_k = (P_s / N_RB) g_su |H_su,k(t)|^2
//!    I_k = sum over cells j != s with RB k in their PDSCH of t:  (P_j / N_RB) g_ju |H_ju,k(t)|^2
//!        + sum over interferer-only sites j, on the RBs their load fills:  (P_j / N_RB) g_ju [|H_ju,k|^2]
//!  UL, UE u to its cell s, RB k, TTI t (the SRS row; a PUSCH adds its power offset, `pusch_offset_db`):
//!    S_k = P_srs,rb(PL_us) g_us |H^UL_us,k(t)|^2
//!    I_k = sum over UEs v of other cells with a PUSCH on RB k in t:  P_pusch,rb(v) g_vs
//!  SINR_k = ici(S_k / (N + I_k), a)     (radio/ici.rs: the share a subcarrier keeps of its Doppler spread)
//! ```
//! `|H_ju|^2` is the fast fading of link (j, u): the serving link always, an interfering cell only
//! while it holds [`MIN_FADED_SHARE`] of the UE's interference (at most [`MAX_FADED_INTERFERERS`],
//! the strongest), as `radio::interference::InterfererFading` does for a single cell; the weak
//! ones keep their mean power. Each link's fading process lives as long as the UE, so the link
//! that becomes the serving one after a handover keeps the fading it had as an interferer.
//! The uplink interferers are large-scale only (as `lte/channel/ul_interference.rs`).
//! The control region (and the PDCCH decisions read from it) sees each cell at the share of its
//! control region it sent on in the TTI before: its reference signal, PCFICH and PHICH, and the
//! CCEs of its DCIs ([`NetworkChannel::control_sinr_db`]).
//!
//! What each cell sent in a TTI is kept for [`HISTORY_TTIS`] TTIs, so a measurement at a past
//! occasion (a UE catching up after an idle time) sees the interference of its own TTI; a TTI
//! the network did not run sent nothing. Each UE's track is kept over the same horizon: per 10 ms
//! step the large-scale epoch in force then (`radio::track`: the gains are evaluated every 0.5 m
//! travelled), per epoch its position and every link's shadowing, so such a measurement sees the
//! large scale of its own time too, the measuring UE's and an interfering UE's (docs/lte/network.md,
//! "Idle TTIs").

use std::cell::RefCell;
use std::num::NonZeroU64;
use std::rc::Rc;

use crate::lte::channel::power_control::UlPower;
use crate::lte::channel::rb::{noise_per_rb_dbm, RB_BANDWIDTH_HZ};
use crate::lte::channel::spec::{ChannelSpec, UePlacement};
use crate::lte::phy::mi::db_to_linear;
use crate::lte::sap::{LinkDir, RbMask, UeIndex};
use crate::lte::sinr::{HeldSinr, PuschGrant, SinrSource};
use crate::radio::fading::{FadingProcess, RbSteering, TapProfile, FADING_STEP_NS};
use crate::radio::ici::{doppler_spread_kept_share, with_ici};
use crate::radio::interference::{
    InterfererLoad, LinkScratch, RbPicker, Site, TwoCarrierLinks, MAX_FADED_INTERFERERS, MIN_FADED_SHARE,
};
use crate::radio::link_loss::PreparedLoss;
use crate::radio::mobility::Mobility;
use crate::radio::noise::{dbm_to_mw, to_db};
use crate::radio::shadowing::Shadowing;
use crate::radio::small_scale::{multipath_doppler_hz, tap_profile};
use crate::radio::track::{PathSampler, GRID_STEP_NS};
use crate::sim::prefetch::load_together;
use crate::sim::simd::{self, Kernel};
use crate::sim::{RngStream, SimTime};

/// TTIs of transmissions kept for measurements at past occasions: the longest SRS period
/// (320 ms, TS 36.213 Table 8.2-1) plus the longest CQI delay (20 ms), rounded up.
pub const HISTORY_TTIS: usize = 512;

/// 10 ms steps of its track kept per UE for measurements at past occasions: the [`HISTORY_TTIS`]
/// horizon on the 10 ms grid, plus the step it starts in. As many epochs are kept: at most one
/// begins per step, so the epochs in force over that many steps are at most that many.
const TRACK_HISTORY_STEPS: usize = (HISTORY_TTIS as u64 * FADING_STEP_NS).div_ceil(GRID_STEP_NS) as usize + 1;

/// Subcarriers per RB (TS 36.211 §6.2.3): RSRP is the power of one resource element.
const SUBCARRIERS_PER_RB: f64 = 12.0;

/// A UE's PUSCH in a TTI: the interference it puts on other cells' receivers. 32 bytes (the
/// 16-byte-aligned mask, the power, the indices in 32 bits): two records a cache line, where
/// `usize` indices made it 48. (A 16-bit cell, the same size, cost `sum_ul_interference` 4.5 M
/// more instructions in the 19-site row: docs/performance.md.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UlTx {
    pub rbs: RbMask,
    /// Its power per PRB, mW.
    pub rb_mw: f64,
    ue: u32,
    cell: u32,
}

impl UlTx {
    /// UE `ue`'s PUSCH to `cell` on `rbs` at `rb_mw` per PRB.
    pub fn new(ue: usize, cell: usize, rbs: RbMask, rb_mw: f64) -> Self {
        let ue = u32::try_from(ue).expect("a UE index fits 32 bits");
        let cell = u32::try_from(cell).expect("a cell index fits 32 bits");
        UlTx { rbs, rb_mw, ue, cell }
    }

    /// The sending UE's index in the network.
    #[inline]
    pub fn ue(&self) -> usize {
        self.ue as usize
    }

    /// The cell its PUSCH went to.
    #[inline]
    pub fn cell(&self) -> usize {
        self.cell as usize
    }
}

/// What every cell sent in one TTI.
#[derive(Clone, Debug, Default)]
struct TtiTx {
    tti: Option<u64>,
    /// Per cell, the RBs of its PDSCH.
    dl: Vec<RbMask>,
    /// The number of the downlink pattern `dl` is: the TTI before's when every cell sent on the
    /// same RBs as then, else a new one ([`NetworkChannel::record`]).
    dl_pattern: u64,
    ul: Vec<UlTx>,
    /// Per site, the share of its control region's REs it sent on (an interferer-only site,
    /// which places no DCIs, all of it).
    control: Vec<f64>,
}

/// The uplink interference at every cell's receiver in one TTI: per cell and RB, the PUSCHs of
/// the other cells' UEs. Every UE a cell measures in that TTI (its SRS, its PUSCH) sees the same
/// sum, so it is summed once per TTI (in the order of the TTI's PUSCHs, as a single row sums it)
/// instead of once per row, each of which read every interfering UE's gain afresh.
#[derive(Default)]
struct UlInterference {
    /// The TTI it holds, if summed.
    tti: Option<u64>,
    /// RB-major: RB k's cells at `k * n_cells..(k + 1) * n_cells`, mW (a PUSCH adds to every
    /// other cell on each of its RBs: one stretch per RB).
    rb_mw: Vec<f64>,
    /// Per UE of the network, the cell its PUSCH of that TTI went to ([`SEVERAL_CELLS`] if more
    /// than one; `None` if it sent none). Its own PUSCH is no interference to a UE's row: a row
    /// at another cell than that is summed alone.
    pusch_cell: Vec<Option<(u64, usize)>>,
}

/// [`UlInterference::pusch_cell`] of a UE with PUSCHs to more than one cell in a TTI.
const SEVERAL_CELLS: usize = usize::MAX;

/// One UE's links. Laid out by when its fields are read, a cache line (64 bytes) per group, the
/// per-TTI ones first: the track (every ask's epoch), then the control SINR's, then the uplink
/// row's and the PUSCH interference's, then the downlink row's, then a kept flat downlink row;
/// the state a 10 ms step or a new epoch reads (the kept epochs, the mobility) last. Each field
/// where the compiler put it, a control SINR (833 K asks in the 19-site run) read 3-4 lines of the
/// UE before its powers, a PUSCH's interference 3 (docs/performance.md, "Issue 34: the 19-site
/// network's working set").
/// The per-site and per-cell rows are boxed slices (16 bytes where a `Vec` took 24): their
/// lengths never change.
#[repr(C, align(64))]
struct NetUe {
    /// Where the path has been looked at, and the epoch in force there. The mobility (a random
    /// walk's legs) and the shadowing only step forward, and a UE catching up on a past occasion,
    /// or interfering in one, is measured with the epoch in force then: the last
    /// [`TRACK_HISTORY_STEPS`] steps' epochs are kept, step s's in `past_epoch[s % N]`, and as
    /// many epochs' positions and shadowing, epoch e's in row e % N.
    track: PathSampler,
    large_at_epoch: Option<u64>,
    /// [`NetworkChannel::control_sinr_db`] for the last (TTI, cell) asked.
    control_sinr: StepMemo,
    /// Per site, the whole-band DL power received at full load, mW ([`Narrow`] storage).
    site_mw: Box<[Narrow]>,
    /// Per cell, the UL large-scale gain (path loss, shadowing, antenna), linear ([`Narrow`]).
    ul_gain: Box<[Narrow]>,
    /// [`NetworkChannel::srs_rb_mw`] and [`NetworkChannel::path_loss_db`] for the last
    /// (large-scale epoch, cell).
    srs_rb_mw: StepMemo,
    /// Per site (DL) and per cell (UL), created when first needed.
    ul_fading: Box<[Option<Box<FadingProcess>>]>,
    path_loss_db: StepMemo,
    /// The (large-scale epoch, serving cell) `faded` is for.
    faded_for: Option<(u64, usize)>,
    /// Its links (per site at the DL carrier, per cell at the UL carrier): an index into
    /// [`NetworkChannel::links`].
    links: usize,
    dl_fading: Box<[Option<Box<FadingProcess>>]>,
    /// The interfering sites that fade for the serving cell at the large-scale epoch: (site,
    /// per-RB power mW), strongest first.
    faded: Vec<(usize, f64)>,
    /// Per site; empty without shadowing (one Gudmundson process per link; UL and DL share it).
    shadowing: Vec<Shadowing>,
    /// The downlink row last computed when it was one value on every RB ([`FlatRow`]); with the
    /// PUSCH's gain, a line of their own: all a kept value's ask reads beside the epoch.
    flat_dl_row: Option<FlatRow>,
    /// [`NetworkChannel::pusch_gain_lin`] for the last (large-scale epoch, cell, PRB count).
    pusch_gain: Option<PuschGain>,
    past_epoch: Vec<u64>,
    epoch_xy_m: Vec<[f64; 2]>,
    /// Every link's shadowing (dB) per kept epoch (empty without shadowing).
    epoch_shadow_db: Vec<f64>,
    mobility: Mobility,
}

/// How a UE's per-site powers and per-cell gains are stored: IEEE 754 binary32 (a 24-bit
/// significand, ~7 significant digits, far finer than any path-loss or shadowing model), so a
/// UE's two rows are half the cache lines the control SINR and the PUSCH interference read;
/// every sum and product over them is taken in `f64`.
type Narrow = f32;

/// `x` as [`Narrow`] storage holds it, back in `f64`: the value every reader of a stored row
/// sees, and what a value computed afresh for one link must be to agree with them.
fn narrowed(x: f64) -> f64 {
    f64::from(x as Narrow)
}

/// A value of a UE's link to one cell that holds for a large-scale epoch: kept for the last
/// (epoch, cell) it was computed for, which the epoch's several asks share.
#[derive(Clone, Copy, Debug, Default)]
struct StepMemo(Option<(u64, usize, f64)>);

impl StepMemo {
    /// The value kept for (`epoch`, `cell`), if that is the pair it holds.
    fn get(&self, epoch: u64, cell: usize) -> Option<f64> {
        self.0.filter(|&(e, c, _)| (e, c) == (epoch, cell)).map(|(_, _, v)| v)
    }

    /// Keep `value` for (`epoch`, `cell`); returns it.
    fn keep(&mut self, epoch: u64, cell: usize, value: f64) -> f64 {
        self.0 = Some((epoch, cell, value));
        value
    }
}

/// A UE's downlink row that held one linear SINR on every RB (no multipath fading, and every
/// neighbour sending on all RBs or none: the 19-site network's steady state), kept for what it is
/// a function of: the large-scale epoch, the serving cell and the neighbours' downlink pattern
/// ([`TtiTx::dl_pattern`]). A row asked again under the same three is filled from it: the same
/// bits, without the sum over every site.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FlatRow {
    epoch: u64,
    pattern: NonZeroU64,
    sinr_lin: f64,
    cell: u32,
}

/// A UE's PUSCH power over its SRS's on each PRB, linear, for a large-scale epoch (its path
/// loss), a cell and a PRB count: a UE's PUSCHs are mostly of one or two PRBs, each decode asks.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PuschGain {
    epoch: u64,
    gain_lin: f64,
    cell: u32,
    prbs: u32,
}

/// The channel of a whole network.
pub struct NetworkChannel {
    /// The cells' sites first (site i = cell i), then the interferer-only sites.
    sites: Vec<Site>,
    n_cells: usize,
    /// Per site: its data-region load (a cell's is what it sends; unused there).
    loads: Vec<InterfererLoad>,
    pickers: Vec<RbPicker>,
    ul_power: UlPower,
    dl_noise_rb_mw: f64,
    ul_noise_rb_mw: f64,
    n_rb: usize,
    profile: Option<TapProfile>,
    dl_doppler_hz: f64,
    ul_doppler_hz: f64,
    k_factor_db: Option<f64>,
    /// Shares a subcarrier keeps of the Doppler spread, DL and UL.
    kept: [f64; 2],
    steering: Option<RbSteering>,
    ues: Vec<NetUe>,
    /// The UEs' links, one shared by all UEs whose links are alike.
    links: Vec<TwoCarrierLinks>,
    link_scratch: LinkScratch,
    /// Scratch: a large-scale epoch's per-site powers and per-cell gains in `f64`, as the links
    /// compute them, before a UE's rows keep them narrowed.
    large_scratch_dl_mw: Vec<f64>,
    large_scratch_ul_gain: Vec<f64>,
    /// Stream keys of each UE's links (`{label}:ue:{node}`).
    ue_keys: Vec<String>,
    seed: u64,
    history: Vec<TtiTx>,
    /// The last TTI [`NetworkChannel::record`] was told of.
    recorded_tti: Option<u64>,
    /// The last downlink pattern number given out ([`TtiTx::dl_pattern`]).
    dl_patterns: u64,
    /// Whether a downlink row is a function of (epoch, cell, pattern) alone, so that a flat one
    /// may be kept ([`FlatRow`]): no multipath fading, and no interferer-only site whose load
    /// fills part of the band (its RBs move TTI by TTI).
    keeps_flat_rows: bool,
    /// Per site, the share of its control region it sends on in a TTI without DCIs.
    idle_control: Vec<f64>,
    /// The uplink interference at every cell's receiver in the last recorded TTI (a row at an
    /// earlier one, a UE catching up, is summed alone).
    ul_interference: UlInterference,
    /// Scratch: per-RB signal and interference, mW.
    signal: Vec<f64>,
    interference: Vec<f64>,
}

/// One site of the network as the channel builds it.
pub struct SiteSetup {
    pub xy_m: [f64; 2],
    pub height_m: f64,
    pub tx_power_dbm: f64,
    pub antenna: crate::radio::antenna::Antenna,
    /// `None` for a cell, the load of an interferer-only site.
    pub load: Option<InterfererLoad>,
}

impl NetworkChannel {
    /// `sites`: the cells' first, in cell order, then the interferer-only ones; `ues`: every UE
    /// of the network with its stream key. `label` keys the interferer-only sites' RB pickers.
    pub fn new(
        spec: &ChannelSpec,
        sites: &[SiteSetup],
        ues: &[(&UePlacement, String)],
        n_rb: usize,
        seed: u64,
        label: &str,
    ) -> Self {
        let n_cells = sites.iter().take_while(|s| s.load.is_none()).count();
        let profile = tap_profile(&spec.fading);
        let doppler = |carrier| profile.as_ref().map_or(0.0, |p| multipath_doppler_hz(&spec.fading, p, carrier));
        let (dl_doppler_hz, ul_doppler_hz) = (doppler(spec.dl_carrier_mhz), doppler(spec.ul_carrier_mhz));
        let kept = |fd: f64| if profile.is_some() { doppler_spread_kept_share(fd) } else { 1.0 };
        let site_list: Vec<Site> =
            sites.iter().map(|s| Site::new(s.xy_m, s.height_m, s.tx_power_dbm, s.antenna)).collect();
        let ue_keys: Vec<String> = ues.iter().map(|(_, key)| key.clone()).collect();
        let mut links = Vec::new();
        let ues: Vec<NetUe> = ues
            .iter()
            .map(|(p, key)| {
                let (ue, own) = new_ue(spec, sites, &site_list, n_cells, p, seed, key);
                let shared = own.shareable().then(|| links.iter().position(|l| *l == own)).flatten();
                NetUe {
                    links: shared.unwrap_or_else(|| {
                        links.push(own);
                        links.len() - 1
                    }),
                    ..ue
                }
            })
            .collect();
        let n_ues = ues.len();
        let keeps_flat_rows = profile.is_none()
            && sites[n_cells..].iter().all(|s| {
                let active = s.load.unwrap_or_default().active_rbs(n_rb);
                active == 0 || active == n_rb
            });
        NetworkChannel {
            n_cells,
            loads: sites.iter().map(|s| s.load.unwrap_or_default()).collect(),
            pickers: (0..sites.len())
                .map(|j| RbPicker::new(RngStream::new(seed, &format!("{label}:site{j}:load"))))
                .collect(),
            sites: site_list,
            ul_power: UlPower::new(&spec.ul_power_control, spec.fixed_ue_tx_power_dbm()),
            dl_noise_rb_mw: dbm_to_mw(noise_per_rb_dbm(spec.ue_noise_figure_db)),
            ul_noise_rb_mw: dbm_to_mw(noise_per_rb_dbm(spec.enb.noise_figure_db)),
            n_rb,
            steering: profile.as_ref().map(|p| RbSteering::new(p, n_rb, RB_BANDWIDTH_HZ)),
            profile,
            dl_doppler_hz,
            ul_doppler_hz,
            k_factor_db: spec.fading.k_factor_db,
            kept: [kept(dl_doppler_hz), kept(ul_doppler_hz)],
            ues,
            links,
            link_scratch: LinkScratch::default(),
            large_scratch_dl_mw: vec![0.0; sites.len()],
            large_scratch_ul_gain: vec![0.0; n_cells],
            ue_keys,
            seed,
            history: vec![TtiTx::default(); HISTORY_TTIS],
            idle_control: vec![1.0; sites.len()],
            recorded_tti: None,
            dl_patterns: 0,
            keeps_flat_rows,
            ul_interference: UlInterference {
                tti: None,
                rb_mw: vec![0.0; n_cells * n_rb],
                pusch_cell: vec![None; n_ues],
            },
            signal: vec![0.0; n_rb],
            interference: vec![0.0; n_rb],
        }
    }

    pub fn n_cells(&self) -> usize {
        self.n_cells
    }

    /// Per cell, the share of its control region it sends on in a TTI in which it places no DCI
    /// (`Cell::control_region_share`): what a TTI the network did not run had.
    pub fn set_idle_control_shares(&mut self, shares: &[f64]) {
        self.idle_control[..shares.len()].copy_from_slice(shares);
    }

    /// What every cell sent in TTI `tti`: its PDSCH RBs (`dl[cell]`), the UEs' PUSCHs, and the
    /// share of its control region it sent on (`control[cell]`).
    pub fn record(&mut self, tti: u64, dl: &[RbMask], ul: &[UlTx], control: &[f64]) {
        let before = &self.history[((tti + HISTORY_TTIS as u64 - 1) % HISTORY_TTIS as u64) as usize];
        let dl_pattern = match before.tti {
            Some(t) if t + 1 == tti && before.dl == dl => before.dl_pattern,
            _ => {
                self.dl_patterns += 1;
                self.dl_patterns
            }
        };
        let slot = &mut self.history[(tti % HISTORY_TTIS as u64) as usize];
        slot.tti = Some(tti);
        slot.dl_pattern = dl_pattern;
        slot.dl.clear();
        slot.dl.extend_from_slice(dl);
        slot.ul.clear();
        slot.ul.extend_from_slice(ul);
        slot.control.clear();
        slot.control.extend_from_slice(control);
        // The interferer-only sites place no DCIs: their share is their idle one.
        slot.control.extend_from_slice(&self.idle_control[control.len()..]);
        self.recorded_tti = Some(tti);
        if self.ul_interference.tti == Some(tti) {
            self.ul_interference.tti = None;
        }
    }

    /// UE `ue`'s layer 1 RSRP of `cell` at `now`, dBm: the power of one resource element of the
    /// cell's reference signal (its power spread evenly over the band), path loss, shadowing
    /// and antenna; fast fading is averaged out over the measurement period.
    pub fn rsrp_dbm(&mut self, ue: usize, cell: usize, now: SimTime) -> f64 {
        self.large_scale(ue, now);
        to_db(f64::from(self.ues[ue].site_mw[cell]) / (SUBCARRIERS_PER_RB * self.n_rb as f64))
    }

    /// The power per PRB of UE `ue`'s PUSCH over `prbs` PRBs towards `cell` at `now`, mW.
    pub fn pusch_rb_mw(&mut self, ue: usize, cell: usize, prbs: u32, now: SimTime) -> f64 {
        let pl_db = self.path_loss_db(ue, cell, now);
        dbm_to_mw(self.ul_power.pusch_per_prb_dbm(pl_db, prbs))
    }

    /// Load the path-loss memo of each UE in `ues` (those about to send a PUSCH) together
    /// ([`load_together`]), before the TTI's `pusch_rb_mw` asks them one by one.
    pub fn touch_path_loss(&self, ues: impl Iterator<Item = usize>) {
        load_together(ues.filter_map(|ue| self.ues[ue].path_loss_db.0.map(|(epoch, _, _)| epoch)));
    }

    /// The UE's path-loss estimate towards `cell` (TS 36.213 §5.1.1.1, from the DL RSRP), kept
    /// for the large-scale epoch (a UE's PUSCHs, their decodes and its SRS ask it in turn).
    fn path_loss_db(&mut self, ue: usize, cell: usize, now: SimTime) -> f64 {
        let epoch = self.ues[ue].epoch_at(now);
        if let Some(pl_db) = self.ues[ue].path_loss_db.get(epoch, cell) {
            return pl_db;
        }
        self.large_scale(ue, now);
        let pl_db = to_db(self.sites[cell].tx_power_mw) - to_db(f64::from(self.ues[ue].site_mw[cell]));
        self.ues[ue].path_loss_db.keep(epoch, cell, pl_db)
    }

    /// The large-scale epoch of UE `ue` in force at `now`: path loss, shadowing, antenna of every
    /// link, evaluated where the epoch began. Returns the epoch.
    fn large_scale(&mut self, ue: usize, now: SimTime) -> u64 {
        let u = &mut self.ues[ue];
        let epoch = u.epoch_at(now);
        if u.large_at_epoch == Some(epoch) {
            return epoch;
        }
        let row = epoch_row(epoch);
        let n = u.shadowing.len();
        let shadow = &u.epoch_shadow_db[row * n..(row + 1) * n];
        let (dl_mw, ul_gain) = (&mut self.large_scratch_dl_mw, &mut self.large_scratch_ul_gain);
        self.links[u.links].gains(
            &self.sites,
            |j| shadow.get(j).copied().unwrap_or(0.0),
            u.epoch_xy_m[row],
            &mut self.link_scratch,
            dl_mw,
            ul_gain,
        );
        u.site_mw.iter_mut().zip(dl_mw.iter()).for_each(|(s, &x)| *s = x as Narrow);
        u.ul_gain.iter_mut().zip(ul_gain.iter()).for_each(|(s, &x)| *s = x as Narrow);
        u.large_at_epoch = Some(epoch);
        epoch
    }

    /// Where UE `ue` is at `now`, m.
    pub fn position_m(&mut self, ue: usize, now: SimTime) -> [f64; 2] {
        self.ues[ue].mobility.position_m(now.as_ns())
    }

    /// The per-RB linear SINR of UE `ue` served by `cell` in `dir` (the data region) during the
    /// TTI at `now`, computed into `out` (its first `out.len()` RBs). Not kept: a row is asked
    /// again for the same (TTI, cell) about once in 60 (a count of the 19-site row: 7,056 of
    /// 416,038 full rows, none of 665,453 uplink rows on a grant's RBs), and keeping each one
    /// stored 800 bytes of cold per-UE memory per row (docs/performance.md, the ninth round).
    pub fn row(&mut self, ue: usize, cell: usize, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        let flat_key = match dir {
            LinkDir::Downlink => self.flat_row_key(ue, cell, now),
            LinkDir::Uplink => None,
        };
        if let Some(key) = flat_key {
            if let Some(row) = self.ues[ue].flat_dl_row.filter(|r| (r.epoch, r.pattern, r.cell) == key) {
                out.fill(row.sinr_lin);
                return;
            }
        }
        simd::run(Row { ch: self, ue, cell, dir, now, out });
        if let (Some((epoch, pattern, cell)), Some(&first)) = (flat_key, out.first()) {
            if out.iter().all(|&x| x.to_bits() == first.to_bits()) {
                self.ues[ue].flat_dl_row = Some(FlatRow { epoch, pattern, cell, sinr_lin: first });
            }
        }
    }

    /// What UE `ue`'s downlink row from `cell` at `now` is a function of, when it can be kept
    /// ([`FlatRow`]): its large-scale epoch (taken), the cell and the downlink pattern of a TTI
    /// the network ran. None otherwise.
    fn flat_row_key(&mut self, ue: usize, cell: usize, now: SimTime) -> Option<(u64, NonZeroU64, u32)> {
        if !self.keeps_flat_rows {
            return None;
        }
        let tti = now.as_ns() / FADING_STEP_NS;
        let slot = &self.history[(tti % HISTORY_TTIS as u64) as usize];
        let pattern = NonZeroU64::new(slot.dl_pattern).filter(|_| slot.tti == Some(tti))?;
        Some((self.large_scale(ue, now), pattern, cell as u32))
    }

    /// [`Self::row`]'s computation. Inlined into each instantiation of [`Row`].
    #[inline(always)]
    fn row_inline(&mut self, ue: usize, cell: usize, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        let tti = now.as_ns() / FADING_STEP_NS;
        let d = dir.index();
        match dir {
            LinkDir::Downlink => self.dl_row(ue, cell, tti, now),
            LinkDir::Uplink => self.ul_row(ue, cell, tti, now, RbMask::range(0, self.n_rb as u32)),
        }
        let kept = self.kept[d];
        let noise = if d == 0 { self.dl_noise_rb_mw } else { self.ul_noise_rb_mw };
        let rb_sinr = out.iter_mut().zip(&self.signal).zip(&self.interference);
        rb_sinr.for_each(|((r, &s), &i)| *r = rb_sinr_lin(s, i, noise, kept));
    }

    /// [`Self::row`] of UE `ue`'s uplink at `cell` during the TTI at `now`, on `rbs` only (a
    /// PUSCH's decode reads its grant's RBs): each asked RB by the full row's arithmetic, the
    /// other RBs of `out` left as they were.
    pub fn ul_row_on(&mut self, ue: usize, cell: usize, now: SimTime, rbs: RbMask, out: &mut [f64]) {
        simd::run(UlRowOn { ch: self, ue, cell, now, rbs, out });
    }

    /// [`Self::ul_row_on`]'s computation. Inlined into each instantiation of [`UlRowOn`].
    #[inline(always)]
    fn ul_row_on_inline(&mut self, ue: usize, cell: usize, now: SimTime, rbs: RbMask, out: &mut [f64]) {
        let tti = now.as_ns() / FADING_STEP_NS;
        let d = LinkDir::Uplink.index();
        self.ul_row(ue, cell, tti, now, rbs);
        let (kept, noise) = (self.kept[d], self.ul_noise_rb_mw);
        for k in rbs.runs().flatten() {
            out[k] = rb_sinr_lin(self.signal[k], self.interference[k], noise, kept);
        }
    }

    /// `signal` and `interference` of UE `ue`'s downlink from `cell` in TTI `tti` (inlined into
    /// the row kernels).
    #[inline(always)]
    fn dl_row(&mut self, ue: usize, cell: usize, tti: u64, now: SimTime) {
        let epoch = self.large_scale(ue, now);
        self.select_faded(ue, cell, epoch);
        let n = self.n_rb;
        let full = RbMask::range(0, n as u32);
        let slot = (tti % HISTORY_TTIS as u64) as usize;
        let ran = self.history[slot].tti == Some(tti);
        let fading = FadingCtx {
            profile: self.profile.as_ref(),
            steer: self.steering.as_ref(),
            doppler_hz: self.dl_doppler_hz,
            k_factor_db: self.k_factor_db,
            seed: self.seed,
            key: &self.ue_keys[ue],
            dir: "dl",
            now_ns: now.as_ns(),
        };
        let (history, loads, pickers, n_cells) = (&self.history, &self.loads, &mut self.pickers, self.n_cells);
        let (signal, interference) = (&mut self.signal, &mut self.interference);
        let u = &mut self.ues[ue];
        let signal_rb = f64::from(u.site_mw[cell]) / n as f64;
        let serving = fading.gains(&mut u.dl_fading[cell], cell);
        for (k, s) in signal.iter_mut().enumerate() {
            *s = signal_rb * serving.map_or(1.0, |g| g[k]);
        }
        interference.fill(0.0);
        let mut flat = 0.0;
        for j in (0..u.site_mw.len()).filter(|&j| j != cell) {
            let rbs = if j < n_cells {
                if ran {
                    history[slot].dl.get(j).copied().unwrap_or_default()
                } else {
                    RbMask::default()
                }
            } else {
                load_rbs(loads[j], &mut pickers[j], n, tti)
            };
            if rbs.is_empty() {
                continue;
            }
            let p_rb = f64::from(u.site_mw[j]) / n as f64;
            if u.faded.iter().any(|&(f, _)| f == j) {
                let g = fading.gains(&mut u.dl_fading[j], j);
                for k in rbs.iter() {
                    interference[k as usize] += p_rb * g.map_or(1.0, |g| g[k as usize]);
                }
            } else if rbs == full {
                flat += p_rb;
            } else {
                for k in rbs.iter() {
                    interference[k as usize] += p_rb;
                }
            }
        }
        interference.iter_mut().for_each(|i| *i += flat);
    }

    /// The interfering sites of UE `ue` (served by `cell`) that fade at its large-scale epoch
    /// `epoch` (taken): those holding [`MIN_FADED_SHARE`] of its interference with every site at
    /// its load (a cell at full load), at most [`MAX_FADED_INTERFERERS`], the strongest first.
    /// None without multipath fading.
    fn select_faded(&mut self, ue: usize, cell: usize, epoch: u64) {
        let (n_rb, n_cells, loads) = (self.n_rb, self.n_cells, &self.loads);
        let u = &mut self.ues[ue];
        if u.faded_for == Some((epoch, cell)) {
            return;
        }
        u.faded_for = Some((epoch, cell));
        u.faded.clear();
        if self.profile.is_none() {
            return;
        }
        let mean_mw = |site_mw: &[Narrow], j: usize| {
            let active = if j < n_cells { n_rb } else { loads[j].active_rbs(n_rb) };
            f64::from(site_mw[j]) * active as f64 / n_rb as f64
        };
        let total: f64 = (0..u.site_mw.len()).filter(|&j| j != cell).map(|j| mean_mw(&u.site_mw, j)).sum();
        if total <= 0.0 {
            return;
        }
        for j in (0..u.site_mw.len()).filter(|&j| j != cell) {
            if mean_mw(&u.site_mw, j) >= MIN_FADED_SHARE * total {
                u.faded.push((j, f64::from(u.site_mw[j])));
            }
        }
        u.faded.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        u.faded.truncate(MAX_FADED_INTERFERERS);
    }

    /// `signal` and `interference` on `rbs` of UE `ue`'s SRS at `cell` in TTI `tti` (inlined into
    /// the row kernels).
    #[inline(always)]
    fn ul_row(&mut self, ue: usize, cell: usize, tti: u64, now: SimTime, rbs: RbMask) {
        let srs_rb_mw = self.srs_rb_mw(ue, cell, now);
        self.large_scale(ue, now);
        let fading = FadingCtx {
            profile: self.profile.as_ref(),
            steer: self.steering.as_ref(),
            doppler_hz: self.ul_doppler_hz,
            k_factor_db: self.k_factor_db,
            seed: self.seed,
            key: &self.ue_keys[ue],
            dir: "ul",
            now_ns: now.as_ns(),
        };
        let u = &mut self.ues[ue];
        let signal_rb = srs_rb_mw * f64::from(u.ul_gain[cell]);
        let g = fading.gains(&mut u.ul_fading[cell], cell);
        for run in rbs.runs() {
            for (s, k) in self.signal[run.clone()].iter_mut().zip(run) {
                *s = signal_rb * g.map_or(1.0, |g| g[k]);
            }
        }
        let slot = (tti % HISTORY_TTIS as u64) as usize;
        if self.history[slot].tti != Some(tti) {
            self.interference.fill(0.0);
            return;
        }
        if self.recorded_tti != Some(tti) {
            // A past occasion (a UE catching up after an idle time): this row's sum alone.
            self.ul_interference_without(ue, cell, tti, now);
            return;
        }
        if self.ul_interference.tti != Some(tti) {
            self.sum_ul_interference(tti, now);
        }
        match self.ul_interference.pusch_cell[ue] {
            Some((t, c)) if t == tti && c != cell => self.ul_interference_without(ue, cell, tti, now),
            _ => {
                let (n_cells, summed) = (self.n_cells, &self.ul_interference.rb_mw);
                for k in rbs.runs().flatten() {
                    self.interference[k] = summed[k * n_cells + cell];
                }
            }
        }
    }

    /// The power per PRB of UE `ue`'s SRS over the band towards `cell` at `now`, mW (kept for
    /// the large-scale epoch: it follows the path loss).
    fn srs_rb_mw(&mut self, ue: usize, cell: usize, now: SimTime) -> f64 {
        let epoch = self.ues[ue].epoch_at(now);
        if let Some(mw) = self.ues[ue].srs_rb_mw.get(epoch, cell) {
            return mw;
        }
        let pl_db = self.path_loss_db(ue, cell, now);
        let mw = dbm_to_mw(self.ul_power.srs_per_prb_dbm(pl_db, self.n_rb as u32));
        self.ues[ue].srs_rb_mw.keep(epoch, cell, mw)
    }

    /// UE `ue`'s uplink gain (linear) to `cell` in the large-scale epoch in force at `now`: from
    /// the epoch it holds if that is the one, else that one link's alone (the same value), the
    /// UE's epoch left as it is: a past occasion's interferers are not made to step back and forth.
    fn ul_gain_at(&mut self, ue: usize, cell: usize, now: SimTime) -> f64 {
        let u = &mut self.ues[ue];
        let epoch = u.epoch_at(now);
        if u.large_at_epoch == Some(epoch) {
            return f64::from(u.ul_gain[cell]);
        }
        let row = epoch_row(epoch);
        let n = u.shadowing.len();
        let shadow_db = u.epoch_shadow_db[row * n..(row + 1) * n].get(cell).copied().unwrap_or(0.0);
        narrowed(self.links[u.links].ul_gain(&self.sites, cell, shadow_db, u.epoch_xy_m[row]))
    }

    /// [`UlInterference`] of TTI `tti` (at `now`, in it), which ran.
    fn sum_ul_interference(&mut self, tti: u64, now: SimTime) {
        let (n_cells, slot) = (self.n_cells, (tti % HISTORY_TTIS as u64) as usize);
        self.ul_interference.rb_mw.fill(0.0);
        for i in 0..self.history[slot].ul.len() {
            let tx = self.history[slot].ul[i];
            let (ue, cell, rb_mw) = (tx.ue(), tx.cell(), tx.rb_mw);
            self.large_scale(ue, now);
            let pusch_cell = &mut self.ul_interference.pusch_cell[ue];
            *pusch_cell = match *pusch_cell {
                Some((t, c)) if t == tti && c != cell => Some((tti, SEVERAL_CELLS)),
                _ => Some((tti, cell)),
            };
            // Each (cell, RB) gets one addition per PUSCH, in the TTI's order (as a row summing
            // them alone), the PUSCH's own cell none.
            let gains = &self.ues[ue].ul_gain;
            let add = |cells: &mut [f64], gains: &[Narrow]| {
                cells.iter_mut().zip(gains).for_each(|(x, &gain)| *x += rb_mw * f64::from(gain));
            };
            for k in tx.rbs.runs().flatten() {
                let cells = &mut self.ul_interference.rb_mw[k * n_cells..(k + 1) * n_cells];
                add(&mut cells[..cell], &gains[..cell]);
                add(&mut cells[cell + 1..], &gains[cell + 1..]);
            }
        }
        self.ul_interference.tti = Some(tti);
    }

    /// `interference` of UE `ue`'s uplink at `cell` in TTI `tti` (which ran), summed for this
    /// row alone: without its own PUSCHs of that TTI at other cells.
    fn ul_interference_without(&mut self, ue: usize, cell: usize, tti: u64, now: SimTime) {
        self.interference.fill(0.0);
        let slot = (tti % HISTORY_TTIS as u64) as usize;
        for i in 0..self.history[slot].ul.len() {
            let tx = self.history[slot].ul[i];
            if tx.cell() == cell || tx.ue() == ue {
                continue;
            }
            let i_rb = tx.rb_mw * self.ul_gain_at(tx.ue(), cell, now);
            for k in tx.rbs.iter() {
                self.interference[k as usize] += i_rb;
            }
        }
    }

    /// UE `ue`'s SINR in `cell`'s control region during the TTI at `now`, dB: each other cell's
    /// power times the share of its control region it sent on in the TTI before (its reference
    /// signal, PCFICH and PHICH always, its DCIs' CCEs: `Cell::control_region_share`; a DCI's
    /// REGs are spread over the band, TS 36.211 §6.8.5, so that share of its power falls on any
    /// DCI's REs on average), each interferer-only site at full power; fast fading averaged out
    /// over the CCEs a DCI spans. The TTI before, so that every DCI of a TTI, placed before or
    /// after the other cells' own, sees the same neighbours. Kept for the TTI.
    pub fn control_sinr_db(&mut self, ue: usize, cell: usize, now: SimTime) -> f64 {
        let tti = now.as_ns() / FADING_STEP_NS;
        if let Some(sinr_db) = self.ues[ue].control_sinr.get(tti, cell) {
            return sinr_db;
        }
        self.large_scale(ue, now);
        let before = tti.checked_sub(1).map(|t| &self.history[(t % HISTORY_TTIS as u64) as usize]);
        let shares = match before {
            Some(slot) if slot.tti == Some(tti - 1) => &slot.control,
            _ => &self.idle_control,
        };
        let u = &mut self.ues[ue];
        let own_mw = f64::from(u.site_mw[cell]);
        let others_mw = (dot(&u.site_mw, shares) - own_mw * shares[cell]).max(0.0);
        let n = self.n_rb as f64;
        let sinr_db = to_db(own_mw / n / (self.dl_noise_rb_mw + others_mw / n));
        u.control_sinr.keep(tti, cell, sinr_db)
    }

    /// [`Self::pusch_offset_db`] as a linear power ratio, kept for the (epoch, cell, PRB count).
    pub fn pusch_gain_lin(&mut self, ue: usize, cell: usize, now: SimTime, prbs: u32) -> f64 {
        let epoch = self.ues[ue].epoch_at(now);
        let key = (epoch, cell as u32, prbs);
        if let Some(g) = self.ues[ue].pusch_gain.filter(|g| (g.epoch, g.cell, g.prbs) == key) {
            return g.gain_lin;
        }
        let gain_lin = db_to_linear(self.pusch_offset_db(ue, cell, now, prbs));
        self.ues[ue].pusch_gain = Some(PuschGain { epoch, gain_lin, cell: cell as u32, prbs });
        gain_lin
    }

    /// How far (dB) UE `ue`'s PUSCH over `prbs` PRBs sits above its SRS on each PRB.
    pub fn pusch_offset_db(&mut self, ue: usize, cell: usize, now: SimTime, prbs: u32) -> f64 {
        let pl_db = self.path_loss_db(ue, cell, now);
        self.ul_power.pusch_per_prb_dbm(pl_db, prbs) - self.ul_power.srs_per_prb_dbm(pl_db, self.n_rb as u32)
    }

    /// RBs of the band.
    pub fn n_rb(&self) -> usize {
        self.n_rb
    }
}

/// The sum of `a[i] b[i]` in `f64`, in four running sums (one 256-bit register of products a
/// step, not one chain of dependent additions: the control SINR takes one per UE and TTI over
/// every site).
fn dot(a: &[Narrow], b: &[f64]) -> f64 {
    const LANES: usize = 4;
    let (xs, ys) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: f64 = xs.remainder().iter().zip(ys.remainder()).map(|(&x, y)| f64::from(x) * y).sum();
    let mut sums = [0.0; LANES];
    for (x, y) in xs.zip(ys) {
        for k in 0..LANES {
            sums[k] += f64::from(x[k]) * y[k];
        }
    }
    sums.iter().sum::<f64>() + tail
}

/// [`NetworkChannel::row`]'s computation as a [`simd`] kernel: the row's fast fading, sums and
/// divisions at the widest vector width the CPU has (the same bits at every width).
struct Row<'a> {
    ch: &'a mut NetworkChannel,
    ue: usize,
    cell: usize,
    dir: LinkDir,
    now: SimTime,
    out: &'a mut [f64],
}

impl Kernel for Row<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.ch.row_inline(self.ue, self.cell, self.dir, self.now, self.out);
    }
}

/// [`NetworkChannel::ul_row_on`]'s computation as a [`simd`] kernel (as [`Row`]).
struct UlRowOn<'a> {
    ch: &'a mut NetworkChannel,
    ue: usize,
    cell: usize,
    now: SimTime,
    rbs: RbMask,
    out: &'a mut [f64],
}

impl Kernel for UlRowOn<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.ch.ul_row_on_inline(self.ue, self.cell, self.now, self.rbs, self.out);
    }
}

/// What a link's fast fading needs beside its process: the profile and per-RB phases, its
/// Doppler, the UE's stream key and the TTI.
struct FadingCtx<'a> {
    profile: Option<&'a TapProfile>,
    steer: Option<&'a RbSteering>,
    doppler_hz: f64,
    k_factor_db: Option<f64>,
    seed: u64,
    key: &'a str,
    dir: &'a str,
    now_ns: u64,
}

impl FadingCtx<'_> {
    /// The per-RB |H|^2 of the link to site `j` (`None` without multipath): its process is made
    /// on first use from its own stream `{key}:fading:{dir}:site{j}`, Rician only with the
    /// channel's `k_factor_db` (on every link of a network alike).
    #[inline(always)]
    fn gains<'p>(&self, slot: &'p mut Option<Box<FadingProcess>>, j: usize) -> Option<&'p [f64]> {
        let (profile, steer) = (self.profile?, self.steer?);
        let process = slot.get_or_insert_with(|| {
            let rng = RngStream::new(self.seed, &format!("{}:fading:{}:site{j}", self.key, self.dir));
            Box::new(FadingProcess::new(profile, self.doppler_hz, self.k_factor_db, rng))
        });
        Some(process.rb_gains(self.now_ns, steer))
    }
}

/// One RB's linear SINR from its signal, interference and noise (mW), a share `kept` of the
/// signal left on its subcarrier by the Doppler spread. Without one (no fast fading) `with_ici`
/// at a kept share of 1 is 1 g / (1 + 0 g) = g for the finite SINRs here (noise > 0): its two
/// divisions are spared.
#[inline]
fn rb_sinr_lin(signal_mw: f64, interference_mw: f64, noise_mw: f64, kept: f64) -> f64 {
    let sinr = signal_mw / (noise_mw + interference_mw);
    if kept == 1.0 {
        sinr
    } else {
        with_ici(sinr, kept)
    }
}

/// The RBs an interferer-only site of load `load` fills in TTI `tti` of a band of `n_rb` RBs (a
/// fraction: one contiguous block from its picker's start, wrapping; radio/interference.rs).
fn load_rbs(load: InterfererLoad, picker: &mut RbPicker, n_rb: usize, tti: u64) -> RbMask {
    let active = load.active_rbs(n_rb) as u32;
    let n = n_rb as u32;
    if active == n || active == 0 {
        return RbMask::range(0, active);
    }
    let start = picker.start(tti, n_rb) as u32;
    let wrap = (start + active).saturating_sub(n);
    RbMask::range(start, active - wrap).union(RbMask::range(0, wrap))
}

/// UE `key` placed at `p`, and its links (its `links` index is left to the caller).
fn new_ue(
    spec: &ChannelSpec,
    sites: &[SiteSetup],
    site_list: &[Site],
    n_cells: usize,
    p: &UePlacement,
    seed: u64,
    key: &str,
) -> (NetUe, TwoCarrierLinks) {
    let stream = |what: &str| RngStream::new(seed, &format!("{key}:{what}"));
    let shadowing = match &spec.shadowing {
        None => Vec::new(),
        Some(s) => (0..sites.len())
            .map(|j| Shadowing::new(s.sigma_db, s.decorrelation_m, stream(&format!("shadowing:site{j}"))))
            .collect(),
    };
    // A TR 38.901 link's LOS state: one draw per site, downlink and uplink alike (as a cell's
    // serving link, `lte::channel::prepared_losses`).
    let los_u: Vec<f64> = (0..sites.len()).map(|j| stream(&format!("los:site{j}")).uniform()).collect();
    let loss = |j: usize, mhz: f64| {
        PreparedLoss::new(&spec.pathloss, sites[j].height_m, p.height_m, mhz).with_los_draw(los_u[j])
    };
    let mut mobility = Mobility::new(&p.mobility, p.position_m, stream("mobility"));
    let track = PathSampler::new(&mut mobility);
    let mut epoch_xy_m = vec![[0.0; 2]; TRACK_HISTORY_STEPS];
    epoch_xy_m[0] = track.epoch_xy_m();
    let mut epoch_shadow_db = vec![0.0; TRACK_HISTORY_STEPS * shadowing.len()];
    for (d, s) in epoch_shadow_db.iter_mut().zip(&shadowing) {
        *d = s.value_db();
    }
    let dl_losses: Vec<PreparedLoss> = (0..sites.len()).map(|j| loss(j, spec.dl_carrier_mhz)).collect();
    let ul_losses: Vec<PreparedLoss> = (0..n_cells).map(|j| loss(j, spec.ul_carrier_mhz)).collect();
    let ue = NetUe {
        mobility,
        shadowing,
        track,
        past_epoch: vec![0; TRACK_HISTORY_STEPS],
        epoch_xy_m,
        epoch_shadow_db,
        links: 0,
        large_at_epoch: None,
        site_mw: vec![0.0; sites.len()].into_boxed_slice(),
        ul_gain: vec![0.0; n_cells].into_boxed_slice(),
        dl_fading: (0..sites.len()).map(|_| None).collect(),
        ul_fading: (0..n_cells).map(|_| None).collect(),
        faded: Vec::with_capacity(MAX_FADED_INTERFERERS),
        faded_for: None,
        flat_dl_row: None,
        pusch_gain: None,
        control_sinr: StepMemo::default(),
        srs_rb_mw: StepMemo::default(),
        path_loss_db: StepMemo::default(),
    };
    (ue, TwoCarrierLinks::new(site_list, &dl_losses, &ul_losses))
}

impl NetUe {
    /// The large-scale epoch in force at `now`: the track looked at up to its 10 ms step, each
    /// epoch begun on the way kept (its position, every link's shadowing advanced by the path
    /// since the last), and that step's epoch read from the kept ones.
    fn epoch_at(&mut self, now: SimTime) -> u64 {
        let step = PathSampler::grid_step(now.as_ns());
        // The step last looked at (nearly every ask): its epoch is the track's own, and
        // `past_epoch`, a block of its own, is not loaded.
        if step == self.track.step() {
            return self.track.epoch();
        }
        let n = self.shadowing.len();
        while self.track.step() < step {
            if let Some(moved_m) = self.track.next_step(&mut self.mobility) {
                let row = epoch_row(self.track.epoch());
                self.epoch_xy_m[row] = self.track.epoch_xy_m();
                if n > 0 {
                    Shadowing::advance_all(&mut self.shadowing, moved_m);
                    for (d, s) in self.epoch_shadow_db[row * n..(row + 1) * n].iter_mut().zip(&self.shadowing) {
                        *d = s.value_db();
                    }
                }
            }
            self.past_epoch[step_row(self.track.step())] = self.track.epoch();
        }
        debug_assert!(
            self.track.step() - step < TRACK_HISTORY_STEPS as u64,
            "the track asked at step {step}, kept up to {}",
            self.track.step()
        );
        self.past_epoch[step_row(step)]
    }
}

/// The row of [`NetUe::past_epoch`] holding 10 ms step `step`.
fn step_row(step: u64) -> usize {
    (step % TRACK_HISTORY_STEPS as u64) as usize
}

/// The row of [`NetUe::epoch_xy_m`] (and of the shadowing) holding epoch `epoch`.
fn epoch_row(epoch: u64) -> usize {
    (epoch % TRACK_HISTORY_STEPS as u64) as usize
}

/// One cell's view of the network channel: the [`SinrSource`] its PHY reads. UE indices are the
/// network's.
pub struct NetworkSinr {
    pub channel: Rc<RefCell<NetworkChannel>>,
    pub cell: usize,
}

/// Distinct row names per (TTI, cell) up to this many cells ([`crate::scenario::MAX_NETWORK_CELLS`]).
const ROW_ID_CELLS: u64 = 1024;

impl SinrSource for NetworkSinr {
    fn per_rb_sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        self.channel.borrow_mut().row(ue.index(), self.cell, dir, now, out);
    }

    fn per_rb_sinr_lin_on(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, rbs: RbMask, out: &mut [f64]) {
        let mut channel = self.channel.borrow_mut();
        match dir {
            LinkDir::Uplink => channel.ul_row_on(ue.index(), self.cell, now, rbs, out),
            // A downlink row is kept whole by the cell (its CQI memo).
            LinkDir::Downlink => channel.row(ue.index(), self.cell, dir, now, out),
        }
    }

    fn pusch_offset_db(&mut self, ue: UeIndex, now: SimTime, grant: PuschGrant) -> f64 {
        self.channel.borrow_mut().pusch_offset_db(ue.index(), self.cell, now, grant.prbs)
    }

    fn pusch_gain_lin(&mut self, ue: UeIndex, now: SimTime, grant: PuschGrant) -> f64 {
        self.channel.borrow_mut().pusch_gain_lin(ue.index(), self.cell, now, grant.prbs)
    }

    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64 {
        self.channel.borrow_mut().control_sinr_db(ue.index(), self.cell, now)
    }

    fn pdcch_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> Option<HeldSinr> {
        let sinr_db = self.channel.borrow_mut().control_sinr_db(ue.index(), self.cell, now);
        // The neighbours' control regions change with their DCIs, TTI by TTI.
        let until = SimTime((now.as_ns() / FADING_STEP_NS + 1) * FADING_STEP_NS);
        Some(HeldSinr { sinr_db, until })
    }

    fn row_id(&mut self, _ue: UeIndex, _dir: LinkDir, now: SimTime) -> Option<u64> {
        // A row changes every TTI (the neighbours' RBs), and with the serving cell.
        Some(now.as_ns() / FADING_STEP_NS * ROW_ID_CELLS + self.cell as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lte::channel::spec::MobilitySpec;
    use crate::sim::NS_PER_MS;

    const N_RB: usize = 25;

    /// Two 46 dBm isotropic cells 500 m apart on Friis, no fading or shadowing; UE 0 at 100 m
    /// from cell 0, UE 1 at 400 m from cell 0 (cell 1's).
    fn two_cells() -> NetworkChannel {
        two_cells_of(ChannelSpec::default(), MobilitySpec::Static)
    }

    /// [`two_cells`] on `spec`'s channel, the UEs moving as `mobility` says.
    fn two_cells_of(spec: ChannelSpec, mobility: MobilitySpec) -> NetworkChannel {
        let site = |x: f64| SiteSetup {
            xy_m: [x, 0.0],
            height_m: 30.0,
            tx_power_dbm: 46.0,
            antenna: crate::radio::antenna::Antenna::Isotropic,
            load: None,
        };
        let place = |x: f64| UePlacement { position_m: [x, 0.0], height_m: 1.5, mobility: mobility.clone() };
        let (p0, p1) = (place(100.0), place(400.0));
        let ues = [(&p0, "t:ue0".to_string()), (&p1, "t:ue1".to_string())];
        NetworkChannel::new(&spec, &[site(0.0), site(500.0)], &ues, N_RB, 1, "t")
    }

    /// The Row and UlRowOn kernels at the baseline width and at AVX2: bands of awkward lengths,
    /// EVA fading on the serving and the neighbour's links, the neighbour sending on half the
    /// band and a PUSCH on RB 0, both directions, TTIs in a row and after gaps.
    #[test]
    fn rows_have_the_same_bits_at_both_vector_widths() {
        use crate::lte::channel::spec::{FadingProfile, FadingSpec};
        use crate::sim::simd::{self, Width};
        let fading = FadingSpec { profile: FadingProfile::Eva, doppler_hz: Some(70.0), ..FadingSpec::default() };
        let spec = ChannelSpec { fading, ..ChannelSpec::default() };
        let site = |x: f64| SiteSetup {
            xy_m: [x, 0.0],
            height_m: 30.0,
            tx_power_dbm: 46.0,
            antenna: crate::radio::antenna::Antenna::Isotropic,
            load: None,
        };
        let place = |x: f64| UePlacement { position_m: [x, 0.0], height_m: 1.5, mobility: MobilitySpec::Static };
        let (p0, p1) = (place(200.0), place(350.0));
        let ues = [(&p0, "t:ue0".to_string()), (&p1, "t:ue1".to_string())];
        let bits = |g: &[f64]| g.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        crate::sim::simd::tests::with_avx2("lte::network Row", |avx2| {
            for n_rb in (1..=13).chain([15, 25, 50, 75, 100]) {
                let n = n_rb as u32;
                let mut chs = [0, 1].map(|_| NetworkChannel::new(&spec, &[site(0.0), site(500.0)], &ues, n_rb, 3, "t"));
                for t in [0u64, 1, 2, 9, 17, 40, 1024] {
                    for ch in &mut chs {
                        let rb_mw = ch.pusch_rb_mw(1, 1, 1, ms(t));
                        let pusch = UlTx::new(1, 1, RbMask::range(0, 1), rb_mw);
                        ch.record(t, &[RbMask::range(0, n), RbMask::range(0, n.div_ceil(2))], &[pusch], &[1.0; 2]);
                    }
                    let [plain, wide] = &mut chs;
                    for (ue, dir) in [(0, LinkDir::Downlink), (1, LinkDir::Downlink), (0, LinkDir::Uplink)] {
                        let (mut a, mut b) = (vec![0.0; n_rb], vec![0.0; n_rb]);
                        let now = ms(t);
                        simd::run_on(Width::BASELINE, Row { ch: plain, ue, cell: 0, dir, now, out: &mut a });
                        simd::run_on(avx2, Row { ch: wide, ue, cell: 0, dir, now, out: &mut b });
                        assert_eq!(bits(&a), bits(&b), "{n_rb} RBs, t {t} ms, UE {ue} {dir:?}");
                    }
                    let rbs = RbMask::range(0, 1).union(RbMask::range(n - 1, 1));
                    let (mut a, mut b) = (vec![0.0; n_rb], vec![0.0; n_rb]);
                    simd::run_on(Width::BASELINE, UlRowOn { ch: plain, ue: 0, cell: 0, now: ms(t), rbs, out: &mut a });
                    simd::run_on(avx2, UlRowOn { ch: wide, ue: 0, cell: 0, now: ms(t), rbs, out: &mut b });
                    assert_eq!(bits(&a), bits(&b), "{n_rb} RBs, t {t} ms, PUSCH row");
                }
            }
        });
    }

    fn ms(x: u64) -> SimTime {
        SimTime(x * NS_PER_MS)
    }

    /// The neighbour sends PDSCH on RBs 10..15 in TTI 5: exactly those RBs of UE 0's row carry
    /// its interference, 1/SINR rising there by I/S (the power ratio of the two cells at the UE,
    /// read from the RSRPs); in TTI 6, when the network sent nothing, no RB does.
    #[test]
    fn downlink_interference_is_on_exactly_the_rbs_the_neighbour_sends() {
        let mut ch = two_cells();
        let mask = RbMask::range(10, 5);
        ch.record(5, &[RbMask::range(0, N_RB as u32), mask], &[], &[1.0; 2]);
        let mut row = [0.0; N_RB];
        ch.row(0, 0, LinkDir::Downlink, ms(5), &mut row);
        let clean = row[0];
        let i_over_s = 10f64.powf((ch.rsrp_dbm(0, 1, ms(5)) - ch.rsrp_dbm(0, 0, ms(5))) / 10.0);
        for (k, &g) in row.iter().enumerate() {
            if mask.contains(k as u32) {
                assert!(((1.0 / g - 1.0 / clean) / i_over_s - 1.0).abs() < 1e-9, "RB {k}: {g} vs {clean}");
            } else {
                assert_eq!(g, clean, "RB {k} is not in the neighbour's PDSCH");
            }
        }
        assert!(i_over_s > 1e-3, "the neighbour is not negligible: {i_over_s}");
        ch.row(0, 0, LinkDir::Downlink, ms(6), &mut row);
        assert!(row.iter().all(|&g| g == clean), "TTI 6: nothing sent, no interference");
    }

    /// UE 1's PUSCH on RBs 3..6 in TTI 7 at cell 1 interferes with UE 0's uplink at cell 0 on
    /// exactly those RBs, by its power per RB times its gain to cell 0's site; its own cell's
    /// PUSCHs never interfere with it.
    #[test]
    fn uplink_interference_is_the_neighbours_pusch() {
        let mut ch = two_cells();
        let rbs = RbMask::range(3, 3);
        let rb_mw = ch.pusch_rb_mw(1, 1, 3, ms(7));
        ch.record(7, &[RbMask::default(); 2], &[UlTx::new(1, 1, rbs, rb_mw)], &[1.0; 2]);
        let mut row = [0.0; N_RB];
        ch.row(0, 0, LinkDir::Uplink, ms(7), &mut row);
        let clean = row[0];
        let u0 = &ch.ues[0];
        let srs_rb_mw = dbm_to_mw(
            ch.ul_power.srs_per_prb_dbm(to_db(ch.sites[0].tx_power_mw / f64::from(u0.site_mw[0])), N_RB as u32),
        );
        let i_over_s = rb_mw * f64::from(ch.ues[1].ul_gain[0]) / (srs_rb_mw * f64::from(u0.ul_gain[0]));
        for (k, &g) in row.iter().enumerate() {
            if rbs.contains(k as u32) {
                assert!(((1.0 / g - 1.0 / clean) / i_over_s - 1.0).abs() < 1e-9, "RB {k}");
            } else {
                assert_eq!(g, clean, "RB {k}");
            }
        }
        // At its own cell the same PUSCH is no interference to UE 0 (it is not UE 0's cell here).
        ch.record(8, &[RbMask::default(); 2], &[UlTx::new(1, 0, rbs, rb_mw)], &[1.0; 2]);
        ch.row(0, 0, LinkDir::Uplink, ms(8), &mut row);
        assert!(row.iter().all(|&g| g == clean));
    }

    /// An uplink row asked on a grant's RBs gives the full row's bits there, whether asked before
    /// or after the full row of the same TTI (the SRS). With and without fast fading (the EPA row
    /// divides through the inter-carrier interference).
    #[test]
    fn an_uplink_row_on_some_rbs_is_the_full_row_there() {
        let epa = ChannelSpec {
            fading: crate::radio::spec::FadingSpec {
                profile: crate::radio::spec::FadingProfile::Epa,
                speed_kmh: Some(60.0),
                ..Default::default()
            },
            ..ChannelSpec::default()
        };
        let grant = RbMask::range(2, 3).union(RbMask::range(20, 2));
        for spec in [ChannelSpec::default(), epa] {
            let run = |masked_first: bool| {
                let mut ch = two_cells_of(spec.clone(), MobilitySpec::Static);
                let mut rows = Vec::new();
                for t in 5..8 {
                    let rb_mw = ch.pusch_rb_mw(1, 1, 3, ms(t));
                    ch.record(t, &[RbMask::default(); 2], &[UlTx::new(1, 1, RbMask::range(3, 3), rb_mw)], &[1.0; 2]);
                    let (mut masked, mut full) = ([f64::NAN; N_RB], [0.0; N_RB]);
                    if masked_first {
                        ch.ul_row_on(0, 0, ms(t), grant, &mut masked);
                        ch.row(0, 0, LinkDir::Uplink, ms(t), &mut full);
                    } else {
                        ch.row(0, 0, LinkDir::Uplink, ms(t), &mut full);
                        ch.ul_row_on(0, 0, ms(t), grant, &mut masked);
                    }
                    for (k, (&m, &f)) in masked.iter().zip(&full).enumerate() {
                        if grant.contains(k as u32) {
                            assert_eq!(m.to_bits(), f.to_bits(), "RB {k}, TTI {t}");
                        } else {
                            assert!(m.is_nan(), "RB {k} was not asked");
                        }
                    }
                    rows.push(full);
                }
                rows
            };
            let (full_first, masked_first) = (run(false), run(true));
            assert_eq!(full_first, masked_first);
            assert!(full_first[0][3] < full_first[0][0], "the neighbour's PUSCH interferes on RB 3");
        }
    }

    /// [`two_cells`] with 8 dB shadowing decorrelating over 5 m, the UEs at 120 km/h: the
    /// shadowing moves every other 10 ms step (an epoch per 0.67 m, radio/track.rs).
    fn two_shadowed_cells() -> NetworkChannel {
        let spec = ChannelSpec {
            shadowing: Some(crate::radio::spec::ShadowingSpec { sigma_db: 8.0, decorrelation_m: 5.0 }),
            ..ChannelSpec::default()
        };
        two_cells_of(spec, MobilitySpec::ConstantVelocity { speed_kmh: 120.0, heading_deg: 0.0 })
    }

    /// A UE catching up on a past occasion (TTI 5) after the channel was asked at a later step
    /// (the A3 RSRP sample at 45 ms) is measured with the shadowing of TTI 5, its own and that of
    /// the neighbour's UE whose PUSCH interferes then: the rows are those of TTI 5 asked at TTI 5.
    #[test]
    fn a_past_occasion_sees_the_shadowing_of_its_own_step() {
        let rows = |later_first: bool| {
            let mut ch = two_shadowed_cells();
            let rb_mw = ch.pusch_rb_mw(1, 1, 3, ms(5));
            ch.record(
                5,
                &[RbMask::default(), RbMask::range(10, 5)],
                &[UlTx::new(1, 1, RbMask::range(3, 3), rb_mw)],
                &[1.0; 2],
            );
            if later_first {
                ch.rsrp_dbm(0, 0, ms(45));
                ch.rsrp_dbm(1, 1, ms(45));
            }
            let (mut dl, mut ul) = ([0.0; N_RB], [0.0; N_RB]);
            ch.row(0, 0, LinkDir::Downlink, ms(5), &mut dl);
            ch.row(0, 0, LinkDir::Uplink, ms(5), &mut ul);
            (dl, ul, ch.rsrp_dbm(0, 0, ms(5)))
        };
        let (in_time, caught_up) = (rows(false), rows(true));
        assert_eq!(in_time, caught_up);
        // The shadowing did move between the two steps (the test can tell them apart).
        let mut ch = two_shadowed_cells();
        let early = ch.rsrp_dbm(0, 0, ms(5));
        assert!((ch.rsrp_dbm(0, 0, ms(45)) - early).abs() > 0.1, "the shadowing moved");
    }

    /// radio/track.rs: a UE at 30 km/h (8.33 cm a 10 ms step) begins a large-scale epoch every 6
    /// steps. Asked at a past occasion after its track went on (an RSRP sample at 400 ms, epoch
    /// 6), it is measured with the epoch in force then: 75 ms (step 7) with epoch 1's (begun at 60
    /// ms), 55 ms (step 5) with epoch 0's, as a channel asked in time order measures them.
    #[test]
    fn a_past_occasion_sees_the_epoch_in_force_then() {
        let spec = ChannelSpec {
            shadowing: Some(crate::radio::spec::ShadowingSpec { sigma_db: 8.0, decorrelation_m: 5.0 }),
            ..ChannelSpec::default()
        };
        let cells = || two_cells_of(spec.clone(), MobilitySpec::ConstantVelocity { speed_kmh: 30.0, heading_deg: 0.0 });
        let mut in_order = cells();
        let rsrp = |ch: &mut NetworkChannel, t: u64| ch.rsrp_dbm(0, 0, ms(t));
        let [at0, at55, at60, at75, at115, at120] = [0, 55, 60, 75, 115, 120].map(|t| rsrp(&mut in_order, t));
        assert_eq!((at0, at60), (at55, at75), "an epoch holds");
        assert_eq!(at60, at115, "epoch 1 holds to step 11");
        assert!(at0 != at60 && at115 != at120, "new epochs at steps 6 and 12");
        let mut late = cells();
        rsrp(&mut late, 400);
        assert_eq!((rsrp(&mut late, 75), rsrp(&mut late, 55)), (at75, at55));
    }

    /// The control region of TTI t sees each neighbour at the share of its control region it
    /// sent on in TTI t-1: 1/SINR less the noise's part grows as that share (the RSRPs give
    /// I/S); a TTI the network did not run counts as idle. A cell holds the value to the end
    /// of the TTI, and asking again within it gives the same.
    #[test]
    fn the_control_sinr_sees_the_neighbours_control_regions_of_the_tti_before() {
        let channel = Rc::new(RefCell::new(two_cells()));
        let inverse = |db: f64| 1.0 / 10f64.powf(db / 10.0);
        let mut ch = channel.borrow_mut();
        let i_over_s = 10f64.powf((ch.rsrp_dbm(0, 1, ms(5)) - ch.rsrp_dbm(0, 0, ms(5))) / 10.0);
        for (t, share) in [(4, 0.0), (6, 0.25), (8, 1.0)] {
            ch.record(t, &[RbMask::default(); 2], &[], &[1.0, share]);
        }
        let clean = inverse(ch.control_sinr_db(0, 0, ms(5)));
        assert!(((inverse(ch.control_sinr_db(0, 0, ms(7))) - clean) / i_over_s - 0.25).abs() < 1e-9);
        assert!(((inverse(ch.control_sinr_db(0, 0, ms(9))) - clean) / i_over_s - 1.0).abs() < 1e-9);
        ch.set_idle_control_shares(&[0.5, 0.125]);
        assert!(
            ((inverse(ch.control_sinr_db(0, 0, ms(11))) - clean) / i_over_s - 0.125).abs() < 1e-9,
            "TTI 10 not run"
        );
        drop(ch);
        let mut sinr = NetworkSinr { channel: Rc::clone(&channel), cell: 0 };
        let held = sinr.pdcch_sinr_db(UeIndex(0), SimTime(9 * NS_PER_MS + 3)).expect("a network's control SINR");
        assert_eq!(held.until, ms(10));
        assert_eq!(channel.borrow_mut().control_sinr_db(0, 0, SimTime(10 * NS_PER_MS - 1)), held.sinr_db);
    }

    /// A UE walking at random (120 km/h, a new direction every 20 ms): measured at a past
    /// occasion after its legs were drawn further (an RSRP sample 400 ms later), it is where it
    /// was then, not on the current leg extended backwards.
    #[test]
    fn a_past_occasion_is_measured_where_the_ue_was() {
        let walk =
            MobilitySpec::RandomWalk { speed_kmh: 120.0, leg_s: 0.02, bounds_m: [-500.0, -500.0, 1000.0, 500.0] };
        let rsrp_at_5 = |later_first: bool| {
            let mut ch = two_cells_of(ChannelSpec::default(), walk.clone());
            if later_first {
                ch.rsrp_dbm(0, 0, ms(405));
            }
            ch.rsrp_dbm(0, 0, ms(5))
        };
        assert_eq!(rsrp_at_5(false), rsrp_at_5(true));
    }

    /// A kept flat downlink row ([`FlatRow`]) is the row computed afresh, bit for bit: both UEs,
    /// moving (new large-scale epochs), over TTIs in which the neighbour sends on the whole band,
    /// then on part of it (a row that is not flat), then on the whole band again, a TTI the
    /// network did not run, and the same TTI asked twice; and it is used (most asks fill it).
    #[test]
    fn a_kept_flat_row_is_the_row_computed_afresh() {
        let full = RbMask::range(0, N_RB as u32);
        let mut kept = two_shadowed_cells();
        let mut fresh = two_shadowed_cells();
        fresh.keeps_flat_rows = false;
        assert!(kept.keeps_flat_rows, "no fading, no interferer-only sites");
        let bits = |g: &[f64]| g.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
        let (mut hits, mut asks) = (0, 0);
        for t in (0..60u64).chain(70..80) {
            let neighbour = if (23..27).contains(&t) { RbMask::range(3, 7) } else { full };
            for ch in [&mut kept, &mut fresh] {
                ch.record(t, &[full, neighbour], &[], &[1.0; 2]);
            }
            for (ue, cell) in [(0, 0), (1, 1), (0, 0)] {
                let (mut a, mut b) = (vec![0.0; N_RB], vec![0.0; N_RB]);
                let before = kept.ues[ue].flat_dl_row;
                kept.row(ue, cell, LinkDir::Downlink, ms(t), &mut a);
                fresh.row(ue, cell, LinkDir::Downlink, ms(t), &mut b);
                assert_eq!(bits(&a), bits(&b), "TTI {t}, UE {ue}");
                asks += 1;
                hits += u32::from(before.is_some() && before == kept.ues[ue].flat_dl_row && t != 0);
            }
        }
        let (mut a, mut b) = (vec![0.0; N_RB], vec![0.0; N_RB]);
        kept.row(0, 0, LinkDir::Downlink, ms(65), &mut a);
        fresh.row(0, 0, LinkDir::Downlink, ms(65), &mut b);
        assert_eq!(bits(&a), bits(&b), "TTI 65, not run");
        assert!(hits * 2 > asks, "{hits} of {asks} asks filled from the kept row");
    }

    /// The kept PUSCH gain is the offset's, converted afresh, bit for bit: a moving UE (new
    /// epochs, a new path loss), PUSCHs of changing PRB counts, at both cells.
    #[test]
    fn a_kept_pusch_gain_is_the_offset_converted_afresh() {
        use crate::lte::channel::power_control::{UlPowerControlSpec, DEFAULT_P_SRS_OFFSET};
        // P0 high enough that the SRS over the band meets P_CMAX: the offset follows the path loss.
        let ul_power_control = UlPowerControlSpec::OpenLoop {
            p0_nominal_pusch_dbm: -60,
            p0_ue_pusch_db: 0,
            alpha: 1.0,
            p_cmax_dbm: 23.0,
            p_srs_offset: DEFAULT_P_SRS_OFFSET,
        };
        let spec = ChannelSpec {
            shadowing: Some(crate::radio::spec::ShadowingSpec { sigma_db: 8.0, decorrelation_m: 5.0 }),
            ul_power_control,
            ..ChannelSpec::default()
        };
        let mut ch = two_cells_of(spec, MobilitySpec::ConstantVelocity { speed_kmh: 120.0, heading_deg: 0.0 });
        let mut offsets_db = Vec::new();
        for t in (0..400u64).step_by(3) {
            // Each TTI ends on the key the next begins with, at a later epoch now and then.
            for (cell, prbs) in [(0, 1), (0, 1), (0, 2), (1, 2), (0, 3 + (t % 2) as u32), (0, 1)] {
                let gain = ch.pusch_gain_lin(0, cell, ms(t), prbs);
                let offset_db = ch.pusch_offset_db(0, cell, ms(t), prbs);
                assert_eq!(gain.to_bits(), db_to_linear(offset_db).to_bits(), "TTI {t}, cell {cell}, {prbs} PRBs");
                offsets_db.push(offset_db.to_bits());
            }
        }
        offsets_db.sort_unstable();
        offsets_db.dedup();
        assert!(offsets_db.len() > 20, "the offset moves with the path loss: {} values", offsets_db.len());
    }

    /// Each group of [`NetUe`]'s fields read together lies within one cache line.
    #[test]
    fn a_ues_per_tti_fields_share_cache_lines() {
        use crate::sim::prefetch::CACHE_LINE_BYTES;
        use std::mem::{offset_of, size_of};
        let line = |offset: usize, bytes: usize| {
            let (first, last) = (offset / CACHE_LINE_BYTES, (offset + bytes - 1) / CACHE_LINE_BYTES);
            assert_eq!(first, last, "a field at {offset} of {bytes} bytes straddles two lines");
            first
        };
        let memo = size_of::<StepMemo>();
        let rows = size_of::<Box<[Narrow]>>();
        assert_eq!(std::mem::align_of::<NetUe>(), CACHE_LINE_BYTES);
        assert_eq!(line(offset_of!(NetUe, track), size_of::<PathSampler>()), 0);
        // The control SINR's line: the epoch held, the memo, the per-site powers.
        let control = line(offset_of!(NetUe, large_at_epoch), size_of::<Option<u64>>());
        assert_eq!(line(offset_of!(NetUe, control_sinr), memo), control);
        assert_eq!(line(offset_of!(NetUe, site_mw), rows), control);
        // The uplink row's: the gains, the SRS power, the fading.
        let uplink = line(offset_of!(NetUe, ul_gain), rows);
        assert_eq!(line(offset_of!(NetUe, srs_rb_mw), memo), uplink);
        assert_eq!(line(offset_of!(NetUe, ul_fading), rows), uplink);
        // The PUSCH's power and the downlink row's faded interferers.
        let pusch = line(offset_of!(NetUe, path_loss_db), memo);
        assert_eq!(line(offset_of!(NetUe, faded_for), size_of::<Option<(u64, usize)>>()), pusch);
        assert_eq!(line(offset_of!(NetUe, links), size_of::<usize>()), pusch);
        // The kept values': the flat downlink row, the PUSCH's gain.
        let kept = line(offset_of!(NetUe, flat_dl_row), size_of::<Option<FlatRow>>());
        assert_eq!(line(offset_of!(NetUe, pusch_gain), size_of::<Option<PuschGain>>()), kept);
    }

    #[test]
    fn an_uplink_record_is_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<UlTx>(), crate::sim::prefetch::CACHE_LINE_BYTES / 2);
    }
}
