//! Radio channel: turns geometry and movement into per-RB SINR every TTI
//! (issue 8). [`ChannelSinr`] implements [`super::sinr::SinrSource`] for one cell's UEs.
//!
//! ```text
//!  mobility ─► position(t) ─► path loss (pathloss.rs) + shadowing (shadowing.rs) ─► large-scale gain
//!                                  per link: serving eNB, each interferer
//!  fading.rs: H_k(t) per RB (EPA/EVA/ETU, sum of sinusoids) ────────────────────► |H_k|^2
//!  hst.rs: TS 36.101 B.3 Doppler shift f_s(t), residual after tracking ───────────► ICI share
//!
//!  DL gamma_k = (P_enb / N_rb) g_serving |H_k|^2 / (N_rb,UE + sum_i (P_i / N_rb) g_i |H_ik|^2 1[i serves k])
//!  UL gamma_k = (P_ue(M) / M) g_serving |H_k|^2 / (N_rb,eNB + sum_j P_j,rb g_j 1[UE j sends on RB k])
//!             (power_control.rs: SRS M = N_rb, PUSCH M = grant; ul_interference.rs: UE j of interfering cell j)
//!  SINR_k = a gamma_k / (1 + (1 - a) gamma_k)    (ici.rs: a = share kept by the subcarrier)
//! ```
//! Simplifications (each a modelling choice, stated once here):
//! - DL: the eNB spreads its power evenly over all RBs (ns-3 `LteEnbPhy` without
//!   power control). UL: the UE sets its power by [`power_control`] (TS 36.213 §5.1.1.1) and
//!   spreads it over the PRBs it sends on: the band for the SRS row
//!   ([`SinrSource::per_rb_sinr_db`], the eNB's link adaptation), its grant for a PUSCH
//!   ([`SinrSource::pusch_offset_db`], the transport block's decoding).
//! - UL and DL share the shadowing (large-scale reciprocity) but have independent
//!   fast fading (the FDD duplex gap is far wider than the coherence bandwidth).
//! - Interferers and their loads, and the fast fading of the strong ones: see
//!   [`crate::radio::interference`]. Control region: full interference on every RB, unfaded (it
//!   spans the band, whose mean gain is 1).
//! - Uplink interference: one UE per interfering cell, static, large-scale only, at the cell's
//!   `uplink_load` ([`ul_interference`]); the same on the SRS and the PUSCH rows.
//! - Small-scale channel (multipath or HST) and its inter-carrier interference: [`small_scale`].
//! - Antennas: isotropic or the parabolic sector pattern, horizontal plane only (no tilt).
//! - Path loss, shadowing and interference are evaluated every
//!   [`LARGE_SCALE_STEP_M`](crate::radio::track::LARGE_SCALE_STEP_M) of the UE's path
//!   ([`crate::radio::track`]: its position looked at every 10 ms), fast fading every TTI
//!   ([`fading::FADING_STEP_NS`]).
//!
//! Randomness: per UE `i`, keyed streams `"{label}:channel:ue{i}:{mobility|fading:dl|fading:ul|
//! shadowing:serving|shadowing:interferer{j}|fading:interferer{j}}"`, so adding a UE at the end of the list leaves
//! the other UEs' channels unchanged; per interferer `j`, `"{label}:channel:interferer{j}:load"`
//! places a fractional load's RBs (shared by every UE), and `...:interferer{j}:{ul_ue|ul_shadowing|ul_load}`
//! its uplink UE's position, shadowing and RBs.

pub mod power_control;
pub mod rb;
pub mod spec;
pub mod sweep;
pub mod trace;
pub mod ul_interference;

use self::power_control::UlPower;
use self::rb::{noise_per_rb_dbm, RB_BANDWIDTH_HZ};
use self::spec::{AntennaSpec, ChannelSpec, UePlacement};
use self::ul_interference::{UeArea, UlRow, UplinkInterference};
use super::sap::{LinkDir, RbMask, UeIndex};
use super::sinr::{PuschGrant, SinrSource};
use crate::error::ScenarioError;
use crate::radio::antenna::{hex_layout_cells, Antenna};
use crate::radio::db;
use crate::radio::fading::{self, FadingProcess, RbSteering, TapProfile, FADING_STEP_NS};
use crate::radio::interference::{
    add_partial_interference, full_buffer_rb_mw, interference_mw, InterfererFading, InterfererLoad, RbPicker, Site,
};
use crate::radio::link_loss::PreparedLoss;
use crate::radio::mobility::Mobility;
use crate::radio::noise::{dbm_to_mw, to_db};
use crate::radio::shadowing::Shadowing;
use crate::radio::small_scale::{self, tap_profile, LinkFading};
use crate::radio::track::PathSampler;
use crate::sim::simd::{self, Kernel};
use crate::sim::{RngStream, SimTime};

/// Large-scale state of one UE at one instant.
#[derive(Clone, Copy, Debug, Default)]
struct LargeScale {
    /// Serving link gain (path loss and shadowing), linear, per direction's carrier.
    dl_gain: f64,
    ul_gain: f64,
    /// Whole-band downlink interference received from every interferer at full load, mW.
    interference_mw: f64,
}

impl LargeScale {
    /// The UE's path-loss estimate PL (TS 36.213 §5.1.1.1: referenceSignalPower minus the
    /// L3-filtered RSRP): the serving link's large-scale DL loss, dB, fast fading filtered out
    /// ([`power_control`] says why).
    fn path_loss_db(&self) -> f64 {
        -to_db(self.dl_gain)
    }
}

/// Which part of the subframe a SINR is for: the data region sees each interferer's load,
/// the control region every interferer at full power.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Region {
    Data,
    Control,
}

/// One UE's channel state.
struct UeChannel {
    mobility: Mobility,
    /// Serving link first, then one per interferer; empty without shadowing.
    shadowing: Vec<Shadowing>,
    /// Where the path has been looked at (every 10 ms) and the large-scale epoch in force there.
    track: PathSampler,
    /// Per direction (DL, UL).
    fading: [LinkFading; 2],
    /// The downlink interferers' own fast fading (multipath channels with interferers).
    interferer_fading: Option<InterfererFading>,
    /// Whole-band power received from each interferer at full load, mW (at `large_at_epoch`).
    site_mw: Vec<f64>,
    /// Path loss of each link, prepared for this UE's height: serving DL, serving UL, then the interferers (DL).
    losses: Vec<PreparedLoss>,
    large: LargeScale,
    large_at_epoch: Option<u64>,
    /// [`full_buffer_rb_mw`] of `site_mw`, kept with the large-scale epoch and RB count it is for.
    full_buffer: Option<(u64, usize, (f64, bool))>,
    /// Per direction: the last per-RB row handed out (linear) and its [`row_key`], so that the
    /// PHY's second request in a TTI (CQI, then the transport block) costs a copy.
    row_lin: [Vec<f64>; 2],
    row_at: [Option<u64>; 2],
}

/// Cell-wide quantities derived once from the spec.
struct Derived {
    dl_carrier_mhz: f64,
    ul_carrier_mhz: f64,
    serving: Site,
    interferers: Vec<Site>,
    loads: Vec<InterfererLoad>,
    ul_power: UlPower,
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
    /// Per interferer: where a fractional load's RBs lie in each TTI.
    pickers: Vec<RbPicker>,
    /// The other cells' UEs as the serving eNB receives them.
    ul_interference: UplinkInterference,
    /// Whether a row without multipath changes with time beyond the large scale: some
    /// interferer's load draws its RBs per TTI or per 10 ms step (a fraction of the band,
    /// downlink or uplink), or the B.3 train's Doppler shift moves. Such a row holds for a 10 ms
    /// step, else for the UE's large-scale epoch.
    rows_per_step: bool,
    /// Scratch: per-RB linear SINR, and per-RB data-region interference, mW.
    gains: Vec<f64>,
    interference_rb_mw: Vec<f64>,
}

impl ChannelSinr {
    /// Build the channel of a cell: `ues[i]` is `UeIndex(i)`. `label` names the cell in the random streams.
    pub fn new(spec: &ChannelSpec, ues: &[UePlacement], seed: u64, label: &str) -> Result<Self, ScenarioError> {
        spec.validate(label)?;
        for (i, u) in ues.iter().enumerate() {
            spec.validate_placement(u, &format!("{label}.ues[{i}].placement"))?;
        }
        let enb = &spec.enb;
        let mut d = Derived {
            dl_carrier_mhz: spec.dl_carrier_mhz,
            ul_carrier_mhz: spec.ul_carrier_mhz,
            serving: Site::new(enb.position_m, enb.height_m, enb.tx_power_dbm, Antenna::from_spec(&enb.antenna)),
            interferers: Vec::new(),
            loads: Vec::new(),
            ul_power: UlPower::new(&spec.ul_power_control, spec.fixed_ue_tx_power_dbm()),
            dl_noise_rb_mw: dbm_to_mw(noise_per_rb_dbm(spec.ue_noise_figure_db)),
            ul_noise_rb_mw: dbm_to_mw(noise_per_rb_dbm(enb.noise_figure_db)),
        };
        let cells = interfering_cells(spec);
        let ul_interference = UplinkInterference::new(spec, &cells, &d.serving, seed, label);
        (d.interferers, d.loads) = cells.iter().map(interferer_site).unzip();
        let n_interferers = d.interferers.len();
        let ues: Vec<UeChannel> = ues
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let mut ue = new_ue(spec, n_interferers, u, seed, &format!("{label}:channel:ue{i}"));
                let los = RngStream::new(seed, &format!("{label}:channel:ue{i}:los"));
                ue.losses = prepared_losses(spec, &d, u.height_m, los);
                ue
            })
            .collect();
        let fraction = |l: &InterfererLoad| matches!(l, InterfererLoad::Fraction { .. });
        let rows_per_step = d.loads.iter().any(fraction)
            || ul_interference.ues().iter().any(|u| fraction(&u.load))
            || ues.iter().any(|u| u.fading.iter().any(|f| !matches!(f, LinkFading::Flat)));
        let pickers = (0..n_interferers)
            .map(|j| RbPicker::new(RngStream::new(seed, &format!("{label}:channel:interferer{j}:load"))))
            .collect();
        Ok(ChannelSinr {
            d,
            ues,
            profile: tap_profile(&spec.fading),
            steering: None,
            pickers,
            ul_interference,
            rows_per_step,
            gains: Vec::new(),
            interference_rb_mw: Vec::new(),
        })
    }

    /// Where UE `ue` is at `now`, m (for traces and tests).
    pub fn position_m(&mut self, ue: UeIndex, now: SimTime) -> [f64; 2] {
        self.ues[ue.index()].mobility.position_m(now.as_ns())
    }

    /// Make the per-RB buffers fit `n_rb` (allocates only when the RB count changes: once per cell).
    fn fit(&mut self, n_rb: usize) {
        if self.gains.len() != n_rb {
            self.gains = vec![1.0; n_rb];
            self.interference_rb_mw = vec![0.0; n_rb];
            self.steering = self.profile.as_ref().map(|p| RbSteering::new(p, n_rb, RB_BANDWIDTH_HZ));
        }
    }

    /// Per-RB linear SINR of `ue` in `dir` at `now` for `region` into `self.gains`, at the
    /// widest vector width the CPU has ([`simd`]: the same bits at every width). With `rbs`,
    /// an uplink row's fading is evaluated on those RBs only (the others are left unspecified).
    fn sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, region: Region, rbs: Option<RbMask>) {
        simd::run(CellRow { ch: self, ue, dir, now, region, rbs });
    }

    /// [`Self::sinr_lin`]'s body, inlined into each instantiation of [`CellRow`].
    #[inline(always)]
    fn sinr_lin_inline(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, region: Region, rbs: Option<RbMask>) {
        let d = &self.d;
        let u = &mut self.ues[ue.index()];
        let large = u.large_scale(d, now.as_ns());
        let n_rb = self.gains.len() as f64;
        match (dir, region) {
            (LinkDir::Downlink, Region::Data) => {
                let signal_rb_mw = d.serving.tx_power_mw / n_rb * large.dl_gain;
                let (everywhere_mw, partial) = u.full_buffer_rb_mw(d, self.gains.len());
                if partial || u.interferer_fading.is_some() {
                    if partial {
                        self.interference_rb_mw.fill(0.0);
                        let tti = now.as_ns() / FADING_STEP_NS;
                        add_partial_interference(
                            &u.site_mw,
                            &d.loads,
                            &mut self.pickers,
                            tti,
                            &mut self.interference_rb_mw,
                        );
                        self.interference_rb_mw.iter_mut().for_each(|o| *o += everywhere_mw);
                    } else {
                        // No site fills part of the band: nothing to add RB by RB (0 + x = x).
                        self.interference_rb_mw.fill(everywhere_mw);
                    }
                    if let (Some(f), Some(steer)) = (u.interferer_fading.as_mut(), self.steering.as_ref()) {
                        f.apply(
                            u.track.epoch(),
                            now.as_ns(),
                            &u.site_mw,
                            &d.loads,
                            &mut self.pickers,
                            steer,
                            &mut self.interference_rb_mw,
                        );
                    }
                    for (g, i_mw) in self.gains.iter_mut().zip(&self.interference_rb_mw) {
                        *g = signal_rb_mw / (d.dl_noise_rb_mw + i_mw);
                    }
                } else {
                    // Every RB sees the same interference: one division for the row.
                    self.gains.fill(signal_rb_mw / (d.dl_noise_rb_mw + everywhere_mw));
                }
            }
            (LinkDir::Downlink, Region::Control) => {
                let noise_rb_mw = d.dl_noise_rb_mw + large.interference_mw / n_rb;
                self.gains.fill(d.serving.tx_power_mw / n_rb * large.dl_gain / noise_rb_mw);
            }
            (LinkDir::Uplink, _) => {
                // The sounding reference signal spans the band (ns-3 `LteUePhy::SendSrs`).
                let srs_rb_mw = dbm_to_mw(d.ul_power.srs_per_prb_dbm(large.path_loss_db(), self.gains.len() as u32));
                let signal_rb_mw = srs_rb_mw * large.ul_gain;
                let step = PathSampler::grid_step(now.as_ns());
                match self.ul_interference.row(&d.ul_power, self.gains.len(), step) {
                    UlRow::Flat(i_mw) => self.gains.fill(signal_rb_mw / (d.ul_noise_rb_mw + i_mw)),
                    UlRow::PerRb(i_mw) => {
                        for (g, i) in self.gains.iter_mut().zip(i_mw) {
                            *g = signal_rb_mw / (d.ul_noise_rb_mw + i);
                        }
                    }
                }
            }
        }
        let fading = &mut u.fading[dir.index()];
        match rbs {
            Some(rbs) => {
                fading.apply_on(now.as_ns(), self.steering.as_ref(), rbs.iter().map(|rb| rb as usize), &mut self.gains)
            }
            None => fading.apply(now.as_ns(), self.steering.as_ref(), &mut self.gains),
        }
    }
}

/// [`ChannelSinr::sinr_lin`] as a [`simd`] kernel: the row's divisions, the interferers' and
/// the link's fast fading with its ICI.
struct CellRow<'a> {
    ch: &'a mut ChannelSinr,
    ue: UeIndex,
    dir: LinkDir,
    now: SimTime,
    region: Region,
    rbs: Option<RbMask>,
}

impl Kernel for CellRow<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.ch.sinr_lin_inline(self.ue, self.dir, self.now, self.region, self.rbs);
    }
}

/// One interfering cell as the channel resolves it: the listed interferers first, then the
/// hexagonal layout's cells (power and height of the serving eNB). The ns-3 backend builds one
/// LENA eNB per entry (`_core.interfering_cells`), so both sides use this one geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InterferingCell {
    pub xy_m: [f64; 2],
    pub height_m: f64,
    pub tx_power_dbm: f64,
    pub antenna: AntennaSpec,
    pub load: InterfererLoad,
    /// Its UE's uplink load (the spec's `uplink_load`, default idle) and where that UE is dropped.
    pub uplink_load: InterfererLoad,
    pub ue_area: UeArea,
}

/// Every interfering cell of `spec`, in the order the channel indexes them.
pub fn interfering_cells(spec: &ChannelSpec) -> Vec<InterferingCell> {
    let enb = &spec.enb;
    let listed = spec.interferers.iter().map(|f| {
        // Its distance to the serving eNB stands for its cell's ISD ([`UeArea`]).
        let to_serving_m = [enb.position_m[0] - f.position_m[0], enb.position_m[1] - f.position_m[1]];
        let isd_m = to_serving_m[0].hypot(to_serving_m[1]);
        InterferingCell {
            xy_m: f.position_m,
            height_m: f.height_m_or(enb),
            tx_power_dbm: f.tx_power_dbm_or(enb),
            antenna: f.antenna,
            load: f.load,
            uplink_load: f.uplink_load,
            ue_area: ue_area(f.position_m, &f.antenna, to_serving_m[1].atan2(to_serving_m[0]), isd_m),
        }
    });
    let layout = spec.hex_layout.iter().flat_map(|l| {
        hex_layout_cells(enb.position_m, &l.grid()).into_iter().map(move |c| {
            let antenna = match c.orientation_deg {
                None => AntennaSpec::Isotropic,
                Some(o) => AntennaSpec::Parabolic {
                    orientation_deg: o,
                    beamwidth_deg: l.beamwidth_deg,
                    max_attenuation_db: l.max_attenuation_db,
                },
            };
            InterferingCell {
                xy_m: c.xy_m,
                height_m: enb.height_m,
                tx_power_dbm: enb.tx_power_dbm,
                antenna,
                load: l.load,
                uplink_load: l.uplink_load,
                // The grid's neighbours lie every 60 degrees from 0 (antenna.rs `hex_sites`).
                ue_area: ue_area(c.xy_m, &antenna, 0.0, l.isd_m),
            }
        })
    });
    listed.chain(layout).collect()
}

/// The hexagon of a cell whose antenna is at `xy_m` (a sector's if `antenna` is parabolic, else
/// an omni site's with a flat side towards `towards_rad`), for an inter-site distance `isd_m`.
fn ue_area(xy_m: [f64; 2], antenna: &AntennaSpec, towards_rad: f64, isd_m: f64) -> UeArea {
    match *antenna {
        AntennaSpec::Parabolic { orientation_deg, .. } => UeArea::sector(xy_m, orientation_deg.to_radians(), isd_m),
        AntennaSpec::Isotropic => UeArea::omni(xy_m, towards_rad, isd_m),
    }
}

fn interferer_site(c: &InterferingCell) -> (Site, InterfererLoad) {
    (Site::new(c.xy_m, c.height_m, c.tx_power_dbm, Antenna::from_spec(&c.antenna)), c.load)
}

/// The engine's wideband downlink SINR of one UE at `placement` at t = 0, dB: the data region
/// (mean over the `n_rb` RBs of the per-RB linear SINR, each interferer at its load) and the
/// control region (every interferer at full power). The reference the ns-3 backend's
/// interference check compares LENA's measurements with (fast fading included if the spec has it).
pub fn wideband_dl_sinr_db(
    spec: &ChannelSpec,
    placement: &UePlacement,
    seed: u64,
    label: &str,
    n_rb: usize,
) -> Result<(f64, f64), ScenarioError> {
    let mut ch = ChannelSinr::new(spec, std::slice::from_ref(placement), seed, label)?;
    let mut row_lin = vec![0.0; n_rb.max(1)];
    ch.per_rb_sinr_lin(UeIndex(0), LinkDir::Downlink, SimTime::ZERO, &mut row_lin);
    let data_lin = row_lin.iter().sum::<f64>() / row_lin.len() as f64;
    let control_db = ch.control_sinr_db(UeIndex(0), SimTime::ZERO);
    Ok((to_db(data_lin), control_db))
}

/// The path loss of every link of a UE at `ue_height_m`: serving DL, serving UL, each interferer (DL);
/// each link's LOS draw from `los` (a TR 38.901 drawn state; DL and UL share the serving link's).
fn prepared_losses(spec: &ChannelSpec, d: &Derived, ue_height_m: f64, mut los: RngStream) -> Vec<PreparedLoss> {
    let serving_u = los.uniform();
    let serving =
        |f_mhz: f64| PreparedLoss::new(&spec.pathloss, d.serving.height_m, ue_height_m, f_mhz).with_los_draw(serving_u);
    [serving(d.dl_carrier_mhz), serving(d.ul_carrier_mhz)]
        .into_iter()
        .chain(d.interferers.iter().map(|s| {
            PreparedLoss::new(&spec.pathloss, s.height_m, ue_height_m, d.dl_carrier_mhz).with_los_draw(los.uniform())
        }))
        .collect()
}

fn new_ue(spec: &ChannelSpec, n_interferers: usize, u: &UePlacement, seed: u64, key: &str) -> UeChannel {
    let stream = |what: &str| RngStream::new(seed, &format!("{key}:{what}"));
    let shadowing = match &spec.shadowing {
        None => Vec::new(),
        Some(s) => std::iter::once(stream("shadowing:serving"))
            .chain((0..n_interferers).map(|j| stream(&format!("shadowing:interferer{j}"))))
            .map(|rng| Shadowing::new(s.sigma_db, s.decorrelation_m, rng))
            .collect(),
    };
    let fading = |dir: LinkDir, name: &str| {
        LinkFading::new(&spec.fading, dir, spec.dl_carrier_mhz, spec.ul_carrier_mhz, stream(&format!("fading:{name}")))
    };
    // Each interfering link fades with the serving link's profile and Doppler (the UE's motion sets
    // it for every link), Rayleigh: no line of sight to a neighbour site.
    let interferer_fading = tap_profile(&spec.fading).filter(|_| n_interferers > 0).map(|p| {
        let fd = small_scale::multipath_doppler_hz(&spec.fading, &p, spec.dl_carrier_mhz);
        InterfererFading::new(p, fd, None, seed, format!("{key}:fading:interferer"), n_interferers)
    });
    let mut mobility = Mobility::new(&u.mobility, u.position_m, stream("mobility"));
    UeChannel {
        track: PathSampler::new(&mut mobility),
        mobility,
        shadowing,
        fading: [fading(LinkDir::Downlink, "dl"), fading(LinkDir::Uplink, "ul")],
        interferer_fading,
        site_mw: vec![0.0; n_interferers],
        losses: Vec::new(),
        large: LargeScale::default(),
        large_at_epoch: None,
        full_buffer: None,
        row_lin: [Vec::new(), Vec::new()],
        row_at: [None, None],
    }
}

/// UE `ue`'s downlink fast fading exactly as [`ChannelSinr`] draws it (same stream key, Doppler
/// at the DL carrier), as per-RB power gains in dB: one row per RB, `n_steps` TTIs from t = 0.
/// This is the layout of ns-3's fading traces (src/spectrum/model/trace-fading-loss-model.cc
/// `LoadTrace`: `RbNum` rows of `SamplesNum` dB values), so the ns-3 backend can replay the
/// engine's fading in LENA. `None` without multipath fading (none, or the B.3 train, which has no
/// per-RB gain to replay: its effect is inter-carrier interference).
pub fn downlink_fading_trace_db(
    spec: &ChannelSpec,
    seed: u64,
    label: &str,
    ue: usize,
    n_rb: usize,
    n_steps: u64,
) -> Option<Vec<Vec<f64>>> {
    let profile = tap_profile(&spec.fading)?;
    let fd = small_scale::multipath_doppler_hz(&spec.fading, &profile, spec.dl_carrier_mhz);
    let rng = RngStream::new(seed, &format!("{label}:channel:ue{ue}:fading:dl"));
    let mut fading = FadingProcess::new(&profile, fd, spec.fading.k_factor_db, rng);
    let steer = RbSteering::new(&profile, n_rb, RB_BANDWIDTH_HZ);
    let mut rows = vec![Vec::with_capacity(n_steps as usize); n_rb];
    for k in 0..n_steps {
        for (row, g) in rows.iter_mut().zip(fading.rb_gains(k * fading::FADING_STEP_NS, &steer)) {
            row.push(to_db(*g));
        }
    }
    Some(rows)
}

impl UeChannel {
    /// Path loss, shadowing and interference during the large-scale epoch in force at `now_ns`
    /// (evaluated where the epoch began, so a function of the epoch alone).
    fn large_scale(&mut self, d: &Derived, now_ns: u64) -> LargeScale {
        let epoch = self.epoch_at(PathSampler::grid_step(now_ns));
        if self.large_at_epoch == Some(epoch) {
            return self.large;
        }
        let xy = self.track.epoch_xy_m();
        let sh = |k: usize| self.shadowing.get(k).map_or(0.0, Shadowing::value_db);
        let l = &self.losses;
        self.large = LargeScale {
            dl_gain: d.serving.gain_lin(&l[0], xy, sh(0)),
            ul_gain: d.serving.gain_lin(&l[1], xy, sh(0)),
            interference_mw: interference_mw(
                &d.interferers,
                &l[2..],
                (1..=d.interferers.len()).map(sh),
                xy,
                &mut self.site_mw,
            ),
        };
        self.large_at_epoch = Some(epoch);
        self.large
    }

    /// The full-buffer interference per RB and whether some interferer fills only part of the
    /// band ([`full_buffer_rb_mw`]) for the current large-scale epoch: summed once per epoch.
    fn full_buffer_rb_mw(&mut self, d: &Derived, n_rb: usize) -> (f64, bool) {
        let epoch = self.large_at_epoch.expect("the large-scale epoch is taken first");
        match self.full_buffer {
            Some((at, n, v)) if at == epoch && n == n_rb => v,
            _ => {
                let v = full_buffer_rb_mw(&self.site_mw, &d.loads, n_rb);
                self.full_buffer = Some((epoch, n_rb, v));
                v
            }
        }
    }

    /// The large-scale epoch in force at grid step `step`: the track looked at up to it, every
    /// link's shadowing advanced at each epoch it begins. A cell asks its UEs in time order (a
    /// past occasion is caught up on before a later one is asked), so a step before the track's
    /// lies within the current epoch.
    fn epoch_at(&mut self, step: u64) -> u64 {
        while self.track.step() < step {
            if let Some(moved_m) = self.track.next_step(&mut self.mobility) {
                Shadowing::advance_all(&mut self.shadowing, moved_m);
            }
        }
        debug_assert!(step >= self.track.epoch_step(), "step {step} before the epoch's {}", self.track.epoch_step());
        self.track.epoch()
    }
}

impl ChannelSinr {
    /// Whether UE `ue` keeps its `dir` row of `n_rb` RBs for `key` ([`Self::row_key`]).
    fn has_kept_row(&self, ue: UeIndex, dir: LinkDir, key: u64, n_rb: usize) -> bool {
        let u = &self.ues[ue.index()];
        u.row_at[dir.index()] == Some(key) && u.row_lin[dir.index()].len() == n_rb
    }

    /// What fixes UE `ue`'s row at `now`: the TTI with multipath fading; else the 10 ms step
    /// where the row moves with time ([`ChannelSinr::rows_per_step`]); else the UE's epoch.
    fn row_key(&mut self, ue: UeIndex, now: SimTime) -> u64 {
        let step = PathSampler::grid_step(now.as_ns());
        match self.profile {
            Some(_) => FadingProcess::step_of(now.as_ns()),
            None if self.rows_per_step => step,
            None => self.ues[ue.index()].epoch_at(step),
        }
    }
}

impl SinrSource for ChannelSinr {
    fn per_rb_sinr_lin(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        let key = self.row_key(ue, now);
        let d = dir.index();
        if self.has_kept_row(ue, dir, key, out.len()) {
            out.copy_from_slice(&self.ues[ue.index()].row_lin[d]);
            return;
        }
        self.fit(out.len());
        self.sinr_lin(ue, dir, now, Region::Data, None);
        // The new row becomes the UE's cached row by a swap of buffers of the same length (the
        // scratch keeps its length, so `fit` does not reallocate): one copy per row, into `out`.
        let u = &mut self.ues[ue.index()];
        u.row_lin[d].resize(out.len(), 0.0);
        std::mem::swap(&mut self.gains, &mut u.row_lin[d]);
        out.copy_from_slice(&u.row_lin[d]);
        u.row_at[d] = Some(key);
    }

    fn per_rb_sinr_lin_on(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, rbs: RbMask, out: &mut [f64]) {
        let key = self.row_key(ue, now);
        if dir == LinkDir::Downlink || self.has_kept_row(ue, dir, key, out.len()) {
            return self.per_rb_sinr_lin(ue, dir, now, out);
        }
        // A PUSCH's decode reads its grant's RBs: their fading alone is evaluated, and the partial
        // row is not kept as the UE's row (an SRS this TTI computes the band).
        self.fit(out.len());
        self.sinr_lin(ue, dir, now, Region::Data, Some(rbs));
        for run in rbs.runs() {
            out[run.clone()].copy_from_slice(&self.gains[run]);
        }
    }

    fn per_rb_sinr_db(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, out: &mut [f64]) {
        // Only outputs ask for dB (traces, the ns-3 backend's reference): the row's linear values
        // through `row_to_db` (within 3.2e-9 dB of 10 log10), as the PHY's rows were before it read linear SINR.
        self.per_rb_sinr_lin(ue, dir, now, out);
        self.fit(out.len());
        self.gains.copy_from_slice(out);
        db::row_to_db(&self.gains, out);
    }

    fn row_id(&mut self, ue: UeIndex, _dir: LinkDir, now: SimTime) -> Option<u64> {
        Some(self.row_key(ue, now))
    }

    fn pusch_offset_db(&mut self, ue: UeIndex, now: SimTime, grant: PuschGrant) -> f64 {
        // Same path, fading, noise and other-cell interference as the SRS row (the interference
        // per RB does not depend on this UE's grant): only the power per PRB differs, the PUSCH's over `grant` PRBs less the SRS's over the band.
        let pl_db = self.ues[ue.index()].large_scale(&self.d, now.as_ns()).path_loss_db();
        let power = &self.d.ul_power;
        power.pusch_per_prb_dbm(pl_db, grant.prbs) - power.srs_per_prb_dbm(pl_db, self.gains.len() as u32)
    }

    fn control_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> f64 {
        // The control region spans the band: the mean of the per-RB linear SINR, with
        // every interferer transmitting (seed 004: control-channel interference always full).
        let n_rb = self.gains.len().max(1);
        self.fit(n_rb);
        self.sinr_lin(ue, LinkDir::Downlink, now, Region::Control, None);
        to_db(self.gains.iter().sum::<f64>() / n_rb as f64)
    }
}

#[cfg(test)]
mod tests;
