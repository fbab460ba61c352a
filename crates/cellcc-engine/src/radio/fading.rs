//! Fast fading: the frequency response of a multipath channel per resource block,
//! at any time, from a tap-delay profile and a maximum Doppler frequency.
//!
//! Each tap `l` (delay tau_l, mean power P_l) is a complex Gaussian process made
//! by a sum of `M` sinusoids (Xiao, Zheng & Beaulieu, "Novel sum-of-sinusoids
//! simulation models for Rayleigh and Rician fading channels", IEEE Trans.
//! Wireless Commun. 5(12), 2006, eq. 6):
//!
//! ```text
//! h_l(t) = sqrt(P_l / M) sum_{n=1..M} exp(j (2 pi f_d t cos a_n + phi_n)),  a_n = (2 pi n + theta_n) / M
//! ```
//! with theta_n, phi_n uniform in [-pi, pi). Its autocorrelation is J0(2 pi f_d tau)
//! (Clarke/Jakes) and its envelope tends to Rayleigh. A Rician line-of-sight ray
//! (same paper, eq. 15) can be added to the first tap. The response on RB `k`
//! (centre frequency f_k from the carrier) is `H_k(t) = sum_l h_l(t) exp(-j 2 pi f_k tau_l)`,
//! and its power gain |H_k|^2 has mean sum_l P_l = 1.
//!
//! The channel is sampled once per TTI ([`FADING_STEP_NS`], as ns-3's fading traces):
//! every sinusoid's phasor is computed exactly (sin/cos) every [`EXACT_EVERY_STEPS`] TTIs,
//! carried from there to the anchor steps in between, every [`ANCHOR_EVERY_STEPS`] TTIs, by its
//! fixed per-anchor rotation, and from an anchor to each TTI `d` steps after it by one exact
//! rotation exp(j omega d T), d = 1..7, from a table per process (one complex product instead of
//! a sin/cos). The value at step `k` is always "exact at `k - k % EXACT_EVERY_STEPS`, then one
//! product per anchor up to `k`'s, then one product", so it is a function of the seed and `k`
//! alone, whichever TTIs were asked before.
//! Nothing is allocated after construction.

use crate::sim::simd::{self, Kernel};
use crate::sim::{RngStream, NS_PER_MS};
use std::f64::consts::{PI, TAU};

/// Sinusoids per tap. Xiao et al. show M = 8 already matches the Rayleigh statistics
/// closely; 16 keeps the KS distance of one realization small at a modest cost.
pub const SINUSOIDS_PER_TAP: usize = 16;
/// The fading is sampled once per TTI = one subframe, 1 ms (TS 36.211 §4.1): at 300 Hz
/// Doppler the channel turns by 0.3 cycle of the fastest sinusoid per sample.
pub const FADING_STEP_NS: u64 = NS_PER_MS;
/// Phasors restart from an anchor every this many steps, so a request after a gap (the uplink's
/// rows come every few TTIs, not every TTI) costs one rotation from its anchor plus one
/// per-anchor rotation per anchor passed, instead of every TTI since the last request.
pub const ANCHOR_EVERY_STEPS: u64 = 8;
/// Phasors are computed exactly (sin/cos) every this many steps (1024, 128 anchors): at most 127
/// per-anchor products and one from the anchor lie between an exact value and any step, each within a few
/// ulp, so a phasor drifts by < ~1e-13 (tested within 1e-12 of the exact sum of sinusoids); the
/// sin/cos every 64 TTIs cost as much as the rotations themselves (docs/performance.md).
pub const EXACT_EVERY_STEPS: u64 = 128 * ANCHOR_EVERY_STEPS;

/// A tap-delay line: excess delays and relative powers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TapProfile {
    pub name: &'static str,
    /// Excess delays, ns once multiplied by `delay_scale`.
    pub delays_ns: &'static [f64],
    pub powers_db: &'static [f64],
    /// The highest Doppler TS 36.101 Table B.2.2-1 pairs with the profile (EPA 5, EVA 70, ETU 300 Hz);
    /// None where the source pairs none (TR 38.901's TDLs: the scenario must give one).
    pub usual_doppler_hz: Option<f64>,
    /// 1 for delays tabulated in ns (TS 36.104); a delay spread in ns for delays normalised to a
    /// unit delay spread (TR 38.901 §7.7.3, tdl.rs).
    pub delay_scale: f64,
    /// The first tap's Rician K-factor where the profile has a LOS ray (TR 38.901 TDL-D, TDL-E), dB.
    pub k_factor_db: Option<f64>,
}

impl TapProfile {
    /// The same taps at delay spread `ds_ns` (a profile with normalised delays).
    pub fn with_delay_spread_ns(self, ds_ns: f64) -> Self {
        TapProfile { delay_scale: ds_ns, ..self }
    }

    /// Tap `l`'s excess delay, ns.
    pub fn delay_ns(&self, l: usize) -> f64 {
        self.delays_ns[l] * self.delay_scale
    }
}

// TS 36.104 Annex B.2 (= TS 36.101 Table B.2.1-2), EPA: excess tap delay (ns), relative power (dB).
// (ns-3's fading_trace_generator.m has 120 ns for the fifth tap; the table says 110.)
pub const EPA: TapProfile = TapProfile {
    name: "EPA",
    delays_ns: &[0.0, 30.0, 70.0, 90.0, 110.0, 190.0, 410.0],
    powers_db: &[0.0, -1.0, -2.0, -3.0, -8.0, -17.2, -20.8],
    usual_doppler_hz: Some(5.0),
    delay_scale: 1.0,
    k_factor_db: None,
};

// TS 36.104 Annex B.2 (= TS 36.101 Table B.2.1-3), EVA.
pub const EVA: TapProfile = TapProfile {
    name: "EVA",
    delays_ns: &[0.0, 30.0, 150.0, 310.0, 370.0, 710.0, 1090.0, 1730.0, 2510.0],
    powers_db: &[0.0, -1.5, -1.4, -3.6, -0.6, -9.1, -7.0, -12.0, -16.9],
    usual_doppler_hz: Some(70.0),
    delay_scale: 1.0,
    k_factor_db: None,
};

// TS 36.104 Annex B.2 (= TS 36.101 Table B.2.1-4), ETU.
pub const ETU: TapProfile = TapProfile {
    name: "ETU",
    delays_ns: &[0.0, 50.0, 120.0, 200.0, 230.0, 500.0, 1600.0, 2300.0, 5000.0],
    powers_db: &[-1.0, -1.0, -1.0, 0.0, 0.0, 0.0, -3.0, -5.0, -7.0],
    usual_doppler_hz: Some(300.0),
    delay_scale: 1.0,
    k_factor_db: None,
};

/// exp(-j 2 pi f_k tau_l) for the RBs below the carrier (k < ceil(n_rb / 2)) and every tap l:
/// the per-RB phase of each tap, shared by every UE with the same profile and bandwidth.
/// The RBs lie symmetrically about the carrier (f_{n_rb-1-k} = -f_k, [`rb_centre_offset_hz`]), so the
/// upper half's phases are the conjugates of the lower half's and are not stored.
#[derive(Clone, Debug)]
pub struct RbSteering {
    n_rb: usize,
    n_taps: usize,
    /// Blocks of [`RB_LANES`] lower-half RBs, `[block][tap]` (the last block padded with zeros),
    /// so that one block's phases for every tap are contiguous; in f32 for the tap sums (see
    /// [`FadingProcess::rb_gains`] for the precision).
    re: Vec<[f32; RB_LANES]>,
    im: Vec<[f32; RB_LANES]>,
}

/// RBs stored and summed together in [`FadingProcess::rb_gains`]: 8 f32 lanes per sum, one AVX2
/// register, so a block's four sums, its phases and the tap's gain stay in registers while the
/// taps are added. At the baseline width (SSE2, 4 lanes) a block is summed as two halves of
/// [`HALF_LANES`], each out of line (8 lanes at once spill there, and inlined next to the f64
/// squares the loop was split into 2-lane halves); the same operations per lane either way.
const RB_LANES: usize = 8;
/// A block's half, summed at once at the baseline width (one SSE2 register of f32).
const HALF_LANES: usize = RB_LANES / 2;

impl RbSteering {
    /// `n_rb` blocks of `rb_hz` each, side by side about the carrier (an LTE resource block is
    /// 180 kHz, TS 36.211 §6.2.3; an NR one 12 subcarriers of its numerology's spacing).
    pub fn new(profile: &TapProfile, n_rb: usize, rb_hz: f64) -> Self {
        let n_taps = profile.delays_ns.len();
        let half = n_rb.div_ceil(2);
        let n_blocks = half.div_ceil(RB_LANES);
        let (mut re, mut im) = (vec![[0.0; RB_LANES]; n_blocks * n_taps], vec![[0.0; RB_LANES]; n_blocks * n_taps]);
        for k in 0..half {
            for l in 0..n_taps {
                let (s, c) = Self::phase(profile, n_rb, rb_hz, k, l);
                re[k / RB_LANES * n_taps + l][k % RB_LANES] = c as f32;
                im[k / RB_LANES * n_taps + l][k % RB_LANES] = s as f32;
            }
        }
        RbSteering { n_rb, n_taps, re, im }
    }

    /// sin and cos of -2 pi f_k tau_l.
    fn phase(profile: &TapProfile, n_rb: usize, rb_hz: f64, k: usize, l: usize) -> (f64, f64) {
        (-TAU * rb_centre_offset_hz(k, n_rb, rb_hz) * profile.delay_ns(l) * 1e-9).sin_cos()
    }

    pub fn n_rb(&self) -> usize {
        self.n_rb
    }

    /// exp(-j 2 pi f_k tau_l) of RB `k` and tap `l` as (re, im), as stored (f32; the upper half
    /// as the conjugate of its mirror RB `n_rb - 1 - k`).
    pub fn at(&self, k: usize, l: usize) -> (f64, f64) {
        let (low, sign) = if k < self.n_rb.div_ceil(2) { (k, 1.0) } else { (self.n_rb - 1 - k, -1.0) };
        let i = low / RB_LANES * self.n_taps + l;
        (f64::from(self.re[i][low % RB_LANES]), sign * f64::from(self.im[i][low % RB_LANES]))
    }
}

/// Centre of RB `k` of `n_rb` relative to the carrier, Hz (RBs side by side, `rb_hz` each).
pub fn rb_centre_offset_hz(k: usize, n_rb: usize, rb_hz: f64) -> f64 {
    (k as f64 + 0.5 - n_rb as f64 / 2.0) * rb_hz
}

/// One link's fading in one direction.
#[derive(Clone, Debug)]
pub struct FadingProcess {
    n_taps: usize,
    /// sqrt(P_l / M) per tap (times sqrt(1/(K+1)) on a Rician first tap).
    sinusoid_amp: Vec<f64>,
    /// Amplitude of the line-of-sight ray on the first tap (Rician), sqrt(P_0 K/(K+1)); 0 = Rayleigh.
    los_amp: f64,
    /// Per sinusoid `[tap][n]`, then the LOS ray: 2 pi f_d cos a_n (rad/s) and phi_n (rad).
    omega_rad_s: Vec<f64>,
    phase_rad: Vec<f64>,
    /// exp(j omega d T_step) for d = 1..[`ANCHOR_EVERY_STEPS`] - 1, `[(d - 1) * n + i]`: the
    /// rotation of phasor `i` from an anchor to the step `d` after it, each by its own sin/cos.
    step_rot_re: Vec<f64>,
    step_rot_im: Vec<f64>,
    /// exp(j omega ANCHOR_EVERY_STEPS T_step): the rotation of each phasor from one anchor to the next.
    anchor_rot_re: Vec<f64>,
    anchor_rot_im: Vec<f64>,
    /// The phasors at anchor step `anchor_at`.
    anchor_re: Vec<f64>,
    anchor_im: Vec<f64>,
    anchor_at: Option<u64>,
    /// exp(j (omega t + phi)) at the last step between anchors asked (at an anchor step they are the anchor's).
    ph_re: Vec<f64>,
    ph_im: Vec<f64>,
    /// Tap gains (re, im) and per-RB power gains at steps `taps_at` / `rb_at`.
    tap_re: Vec<f64>,
    tap_im: Vec<f64>,
    taps_at: Option<u64>,
    rb_gain: Vec<f64>,
    rb_at: Option<u64>,
    /// Scratch for `rb_gains`: the tap gains (re, im) in f32, each repeated over the lanes of a block.
    tap32: Vec<([f32; RB_LANES], [f32; RB_LANES])>,
}

impl FadingProcess {
    /// Draw the sinusoids' angles and phases from `rng`. `k_factor_db`: Rician K of the first tap
    /// relative to its scattered power (as MATLAB's `comm.RicianChannel` applies `KFactor` to the first path).
    pub fn new(profile: &TapProfile, doppler_hz: f64, k_factor_db: Option<f64>, mut rng: RngStream) -> Self {
        let total_lin: f64 = profile.powers_db.iter().map(|p| 10f64.powf(p / 10.0)).sum();
        let n_taps = profile.delays_ns.len();
        let m = SINUSOIDS_PER_TAP;
        let mut angle = || -PI + TAU * rng.uniform();
        let (mut omega_rad_s, mut phase_rad) = (Vec::with_capacity(n_taps * m + 1), Vec::with_capacity(n_taps * m + 1));
        for _ in 0..n_taps {
            for n in 1..=m {
                let a_n = (TAU * n as f64 + angle()) / m as f64;
                omega_rad_s.push(TAU * doppler_hz * a_n.cos());
                phase_rad.push(angle());
            }
        }
        let mut sinusoid_amp: Vec<f64> =
            profile.powers_db.iter().map(|p| (10f64.powf(p / 10.0) / total_lin / m as f64).sqrt()).collect();
        // Xiao et al. eq. 15: the LOS ray arrives at a uniform angle theta_0 with a uniform phase phi_0.
        let (theta0, phi0) = (angle(), angle());
        omega_rad_s.push(TAU * doppler_hz * theta0.cos());
        phase_rad.push(phi0);
        let los_amp = match k_factor_db.map(|k| 10f64.powf(k / 10.0)) {
            None => 0.0,
            Some(k) => {
                let tap0 = sinusoid_amp[0] * (m as f64).sqrt();
                sinusoid_amp[0] /= (k + 1.0).sqrt();
                tap0 * (k / (k + 1.0)).sqrt()
            }
        };
        let step_s = FADING_STEP_NS as f64 * 1e-9;
        let (step_rot_im, step_rot_re): (Vec<f64>, Vec<f64>) = (1..ANCHOR_EVERY_STEPS)
            .flat_map(|d| omega_rad_s.iter().map(move |w| (w * (step_s * d as f64)).sin_cos()))
            .unzip();
        let anchor_s = step_s * ANCHOR_EVERY_STEPS as f64;
        let (anchor_rot_im, anchor_rot_re): (Vec<f64>, Vec<f64>) =
            omega_rad_s.iter().map(|w| (w * anchor_s).sin_cos()).unzip();
        let n = omega_rad_s.len();
        FadingProcess {
            n_taps,
            sinusoid_amp,
            los_amp,
            omega_rad_s,
            phase_rad,
            step_rot_re,
            step_rot_im,
            anchor_rot_re,
            anchor_rot_im,
            anchor_re: vec![0.0; n],
            anchor_im: vec![0.0; n],
            anchor_at: None,
            ph_re: vec![0.0; n],
            ph_im: vec![0.0; n],
            tap_re: vec![0.0; n_taps],
            tap_im: vec![0.0; n_taps],
            taps_at: None,
            rb_gain: Vec::new(),
            rb_at: None,
            tap32: Vec::with_capacity(n_taps),
        }
    }

    /// The step (TTI) that contains `now_ns`.
    pub fn step_of(now_ns: u64) -> u64 {
        now_ns / FADING_STEP_NS
    }

    /// Bring the phasors to step `k`: its anchor's times the exact rotation by the steps since
    /// (one product). Returns whether `k` is an anchor step, whose phasors are the anchor's own
    /// (read there, not copied).
    #[inline(always)]
    fn phasors_to(&mut self, k: u64) -> bool {
        let anchor = k - k % ANCHOR_EVERY_STEPS;
        self.anchor_to(anchor);
        if k == anchor {
            return true;
        }
        let (n, d) = (self.omega_rad_s.len(), (k - anchor) as usize);
        let rot = (d - 1) * n..d * n;
        rotate_from(
            &self.anchor_re,
            &self.anchor_im,
            &self.step_rot_re[rot.clone()],
            &self.step_rot_im[rot],
            &mut self.ph_re,
            &mut self.ph_im,
        );
        false
    }

    /// Bring the anchor phasors to anchor step `anchor`: exactly at the last multiple of
    /// [`EXACT_EVERY_STEPS`], then one per-anchor rotation per anchor.
    #[inline(always)]
    fn anchor_to(&mut self, anchor: u64) {
        let exact = anchor - anchor % EXACT_EVERY_STEPS;
        let from = match self.anchor_at {
            Some(at) if (exact..=anchor).contains(&at) => at,
            _ => {
                let t_s = (exact * FADING_STEP_NS) as f64 * 1e-9;
                for i in 0..self.omega_rad_s.len() {
                    (self.anchor_im[i], self.anchor_re[i]) = (self.omega_rad_s[i] * t_s + self.phase_rad[i]).sin_cos();
                }
                exact
            }
        };
        for _ in (from..anchor).step_by(ANCHOR_EVERY_STEPS as usize) {
            rotate(&mut self.anchor_re, &mut self.anchor_im, &self.anchor_rot_re, &self.anchor_rot_im);
        }
        self.anchor_at = Some(anchor);
    }

    /// The complex gain of every tap (re, im) during the TTI containing `now_ns`.
    pub fn taps(&mut self, now_ns: u64) -> (&[f64], &[f64]) {
        self.taps_inline(now_ns)
    }

    /// [`Self::taps`], inlined into the calling kernel (compiled at its width).
    #[inline(always)]
    fn taps_inline(&mut self, now_ns: u64) -> (&[f64], &[f64]) {
        let k = Self::step_of(now_ns);
        if self.taps_at != Some(k) {
            let (ph_re, ph_im) = match self.phasors_to(k) {
                true => (&self.anchor_re, &self.anchor_im),
                false => (&self.ph_re, &self.ph_im),
            };
            // Tap by tap, each tap's sinusoids as one array (no index checks in the loop).
            let (re_taps, im_taps) =
                (ph_re.as_chunks::<SINUSOIDS_PER_TAP>().0, ph_im.as_chunks::<SINUSOIDS_PER_TAP>().0);
            let gains = self.tap_re.iter_mut().zip(self.tap_im.iter_mut());
            for (((re, im), &amp), (tap_re, tap_im)) in re_taps.iter().zip(im_taps).zip(&self.sinusoid_amp).zip(gains) {
                *tap_re = amp * re.iter().sum::<f64>();
                *tap_im = amp * im.iter().sum::<f64>();
            }
            let los = self.n_taps * SINUSOIDS_PER_TAP;
            self.tap_re[0] += self.los_amp * ph_re[los];
            self.tap_im[0] += self.los_amp * ph_im[los];
            self.taps_at = Some(k);
        }
        (&self.tap_re, &self.tap_im)
    }

    /// |H_k|^2 for every RB of `steer` during the TTI containing `now_ns` (linear power gain, mean 1);
    /// cached, so the data and control regions of one TTI cost one evaluation.
    ///
    /// With tap l's gain a_l + j b_l and RB k's phase c + j d (k below the carrier), RB k and its
    /// mirror n_rb-1-k (phase c - j d) share four real sums over the taps, P = sum a c,
    /// Q = sum b d, R = sum a d, S = sum b c: H_k = (P - Q) + j (R + S) and
    /// H_{n_rb-1-k} = (P + Q) + j (S - R), so each pair of RBs costs four multiply-adds per tap
    /// instead of eight. The sums run in f32, taps in order l = 0, 1, ... (then P - Q etc. in
    /// f32): 9 terms of magnitude <= ~1 each carry a rounding of 2^-24 = 6e-8, so H_k is off by
    /// ~1e-6 absolute and |H_k|^2 by < 1e-5 dB at or above 0 dB and < 1e-3 dB down to a 40 dB fade
    /// (tested on 400000 EVA gains: worst 3.3e-6 dB and 6.8e-5 dB), far below what the MIESM
    /// tables resolve (no MCS choice moves on 280000 faded rows, `mcs_moves_with_the_tap_sums`).
    /// The tap gains themselves stay f64 (they accumulate rotations between exact values).
    /// Evaluated at the widest width the CPU has ([`simd`], the same bits).
    pub fn rb_gains(&mut self, now_ns: u64, steer: &RbSteering) -> &[f64] {
        simd::run(RbGains { process: self, now_ns, steer })
    }

    /// [`Self::rb_gains`] as instantiated for AVX2 (`WIDE`) or the baseline: the same
    /// operations, the blocks' sums at their width ([`RB_LANES`]).
    #[inline(always)]
    fn rb_gains_at<const WIDE: bool>(&mut self, now_ns: u64, steer: &RbSteering) -> &[f64] {
        let k = Self::step_of(now_ns);
        if self.has_band(k, steer) {
            return &self.rb_gain;
        }
        self.taps_inline(now_ns);
        let n_rb = steer.n_rb();
        self.rb_gain.resize(n_rb, 0.0);
        self.tap32.clear();
        let lanes = |x: f64| [x as f32; RB_LANES];
        self.tap32.extend(self.tap_re.iter().zip(&self.tap_im).map(|(&re, &im)| (lanes(re), lanes(im))));
        let blocks = steer.re.chunks_exact(steer.n_taps).zip(steer.im.chunks_exact(steer.n_taps));
        // Each block's powers go straight to their RBs: the lower-half RBs in order, their
        // mirrors from the top RB down (on an odd band the middle RB is its own mirror, in `low`).
        let (low, high) = self.rb_gain.split_at_mut(n_rb.div_ceil(2));
        for (i, (c, d)) in blocks.enumerate() {
            let [re, im, mirror_re, mirror_im] = if WIDE {
                // The block's H through memory (`black_box`): fed straight to the f64 squares
                // below, LLVM's SLP vectoriser sized the f32 sums by them, as two 4-lane halves
                // (xmm); ended in memory they take one 8-lane register (ymm) each, the same
                // operations per lane (docs/performance.md, "The fading sums at 8 lanes").
                std::hint::black_box(block_h::<RB_LANES, 0>(&self.tap32, c, d))
            } else {
                let (low, high) = (block_h_half::<0>(&self.tap32, c, d), block_h_half::<HALF_LANES>(&self.tap32, c, d));
                std::array::from_fn(|i| {
                    std::array::from_fn(|j| if j < HALF_LANES { low[i][j] } else { high[i][j - HALF_LANES] })
                })
            };
            let first = i * RB_LANES;
            match (low.get_mut(first..first + RB_LANES), high.len().checked_sub(first + RB_LANES)) {
                (Some(low), Some(top)) => {
                    let mirrors: [f64; RB_LANES] =
                        std::array::from_fn(|j| power(mirror_re[RB_LANES - 1 - j], mirror_im[RB_LANES - 1 - j]));
                    low.copy_from_slice(&std::array::from_fn::<f64, RB_LANES, _>(|j| power(re[j], im[j])));
                    high[top..top + RB_LANES].copy_from_slice(&mirrors);
                }
                _ => {
                    for (j, g) in low[first..].iter_mut().enumerate() {
                        *g = power(re[j], im[j]);
                    }
                    let top = high.len().saturating_sub(first);
                    for (j, g) in high[..top].iter_mut().rev().enumerate() {
                        *g = power(mirror_re[j], mirror_im[j]);
                    }
                }
            }
        }
        self.rb_at = Some(k);
        &self.rb_gain
    }

    /// Whether the per-RB gains held are step `k`'s whole band of `steer`'s RBs.
    fn has_band(&self, k: u64, steer: &RbSteering) -> bool {
        self.rb_at == Some(k) && self.rb_gain.len() == steer.n_rb()
    }

    /// [`Self::rb_gains`] on the RBs `rbs` only (ascending, each below `steer.n_rb()`): the
    /// returned row holds on each of them the bits [`Self::rb_gains`] gives, the other RBs are
    /// left unspecified. When few RBs are asked (at most [`RB_LANES`]: a PUSCH of one or two RBs,
    /// most of a lone cell's uplink decodes) each is summed on its own, RB by RB, by its lane's
    /// operations in [`block_h`] (the f32 sums over the taps in order, then P - Q etc.), instead
    /// of every block of the band; the tap gains (the phasor rotations) are the same work either
    /// way. Such a row is not kept (a later full request this TTI computes the band); more RBs,
    /// or a band already evaluated this TTI, take [`Self::rb_gains`].
    pub fn rb_gains_on(&mut self, now_ns: u64, steer: &RbSteering, rbs: impl Iterator<Item = usize> + Clone) -> &[f64] {
        if self.has_band(Self::step_of(now_ns), steer) || rbs.clone().count() > RB_LANES {
            return self.rb_gains(now_ns, steer);
        }
        simd::run(RbGainsOn { process: self, now_ns, steer, rbs })
    }

    /// [`Self::rb_gains_on`]'s RB-by-RB path, inlined into its kernel.
    #[inline(always)]
    fn rb_gains_on_inline(&mut self, now_ns: u64, steer: &RbSteering, rbs: impl Iterator<Item = usize>) -> &[f64] {
        self.taps_inline(now_ns);
        let n_rb = steer.n_rb();
        self.rb_gain.resize(n_rb, 0.0);
        let half = n_rb.div_ceil(2);
        for rb in rbs {
            // RB `rb` is lane `low % RB_LANES` of block `low / RB_LANES`, itself or as its mirror.
            let (low, mirror) = if rb < half { (rb, false) } else { (n_rb - 1 - rb, true) };
            let (block, lane) = (low / RB_LANES * steer.n_taps, low % RB_LANES);
            let phases = steer.re[block..block + steer.n_taps].iter().zip(&steer.im[block..block + steer.n_taps]);
            let (mut p, mut q, mut r, mut s) = (0f32, 0f32, 0f32, 0f32);
            for ((&a, &b), (c, d)) in self.tap_re.iter().zip(&self.tap_im).zip(phases) {
                // The tap's gain in f32, as `rb_gains` spreads it over the lanes.
                let (a, b, c, d) = (a as f32, b as f32, c[lane], d[lane]);
                p += a * c;
                q += b * d;
                r += a * d;
                s += b * c;
            }
            let (re, im) = if mirror { (p + q, s - r) } else { (p - q, r + s) };
            self.rb_gain[rb] = power(re, im);
        }
        // The row is partial: not this step's band.
        self.rb_at = None;
        &self.rb_gain
    }
}

/// |H|^2 of an RB from its f32 sums, in f64.
#[inline(always)]
fn power(re: f32, im: f32) -> f64 {
    f64::from(re) * f64::from(re) + f64::from(im) * f64::from(im)
}

/// [`FadingProcess::rb_gains_on`]'s RB-by-RB path as a [`simd`] kernel (the phasor rotations
/// at the widest width; the per-RB sums are scalar at either).
struct RbGainsOn<'a, 's, I> {
    process: &'a mut FadingProcess,
    now_ns: u64,
    steer: &'s RbSteering,
    rbs: I,
}

impl<'a, I: Iterator<Item = usize>> Kernel for RbGainsOn<'a, '_, I> {
    type Output = &'a [f64];
    #[inline(always)]
    fn run(self) -> &'a [f64] {
        self.process.rb_gains_on_inline(self.now_ns, self.steer, self.rbs)
    }
}

/// [`FadingProcess::rb_gains`] as a [`simd`] kernel.
pub struct RbGains<'a, 's> {
    pub process: &'a mut FadingProcess,
    pub now_ns: u64,
    pub steer: &'s RbSteering,
}

impl<'a> Kernel for RbGains<'a, '_> {
    type Output = &'a [f64];
    #[inline(always)]
    fn run(self) -> &'a [f64] {
        self.process.rb_gains_at::<false>(self.now_ns, self.steer)
    }
    #[inline(always)]
    fn run_wide(self) -> &'a [f64] {
        self.process.rb_gains_at::<true>(self.now_ns, self.steer)
    }
}

/// Multiply every phasor (re, im) by its rotation (cr, ci): zipped slices (no index checks), so
/// the products vectorise.
#[inline(always)]
fn rotate(re: &mut [f64], im: &mut [f64], rot_re: &[f64], rot_im: &[f64]) {
    for ((re, im), (&cr, &ci)) in re.iter_mut().zip(im.iter_mut()).zip(rot_re.iter().zip(rot_im)) {
        let (a, b) = (*re, *im);
        *re = a * cr - b * ci;
        *im = a * ci + b * cr;
    }
}

/// [`rotate`] from the phasors (re, im) into (out_re, out_im), which they leave unchanged.
#[inline(always)]
fn rotate_from(re: &[f64], im: &[f64], rot_re: &[f64], rot_im: &[f64], out_re: &mut [f64], out_im: &mut [f64]) {
    let phasors = re.iter().zip(im).zip(rot_re.iter().zip(rot_im));
    for ((out_re, out_im), ((&a, &b), (&cr, &ci))) in out_re.iter_mut().zip(out_im.iter_mut()).zip(phasors) {
        *out_re = a * cr - b * ci;
        *out_im = a * ci + b * cr;
    }
}

/// H of `N` lanes from `OFF` of one block of [`RB_LANES`] lower-half RBs and of their mirrors,
/// from the taps' gains and the block's phases `c + j d` per tap, through the sums P, Q, R, S of
/// [`FadingProcess::rb_gains`] in fixed-width arrays the compiler keeps in registers across the
/// taps. Returns (re, im) of the lanes' H and of their mirrors' H. Each lane's operations are
/// the same whatever `N` and `OFF`.
#[inline(always)]
fn block_h<const N: usize, const OFF: usize>(
    taps: &[([f32; RB_LANES], [f32; RB_LANES])],
    c: &[[f32; RB_LANES]],
    d: &[[f32; RB_LANES]],
) -> [[f32; N]; 4] {
    let (mut p, mut q, mut r, mut s) = ([0f32; N], [0f32; N], [0f32; N], [0f32; N]);
    for (((a, b), c), d) in taps.iter().zip(c).zip(d) {
        for j in 0..N {
            p[j] += a[OFF + j] * c[OFF + j];
            q[j] += b[OFF + j] * d[OFF + j];
            r[j] += a[OFF + j] * d[OFF + j];
            s[j] += b[OFF + j] * c[OFF + j];
        }
    }
    let mut h = [[0f32; N]; 4];
    for j in 0..N {
        h[0][j] = p[j] - q[j];
        h[1][j] = r[j] + s[j];
        h[2][j] = p[j] + q[j];
        h[3][j] = s[j] - r[j];
    }
    h
}

/// [`block_h`] of the half of a block from lane `OFF`, at the baseline width. Not inlined: on
/// its own the loop is vectorised 4 lanes wide, while inlined next to the f64 squares it was
/// split into 2-lane halves.
#[inline(never)]
fn block_h_half<const OFF: usize>(
    taps: &[([f32; RB_LANES], [f32; RB_LANES])],
    c: &[[f32; RB_LANES]],
    d: &[[f32; RB_LANES]],
) -> [[f32; HALF_LANES]; 4] {
    block_h::<HALF_LANES, OFF>(taps, c, d)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An LTE resource block, Hz (TS 36.211 §6.2.3): the tests' RB width.
    const LTE_RB_HZ: f64 = 180e3;
    use crate::sim::NS_PER_MS;

    fn process(profile: &TapProfile, fd: f64, i: usize) -> FadingProcess {
        FadingProcess::new(profile, fd, None, RngStream::new(42, &format!("fading:{i}")))
    }

    /// The Kolmogorov-Smirnov distance of the samples `x` (sorted here) to Exp(1), the law of a
    /// Rayleigh link's power gain: F(x) = 1 - exp(-x).
    pub(crate) fn ks_distance_to_exp1(x: &mut [f64]) -> f64 {
        x.sort_by(f64::total_cmp);
        let n = x.len() as f64;
        x.iter()
            .enumerate()
            .map(|(i, &v)| {
                let f = 1.0 - (-v).exp();
                (f - i as f64 / n).abs().max((f - (i + 1) as f64 / n).abs())
            })
            .fold(0.0, f64::max)
    }

    /// A single Rayleigh tap (flat fading), for the statistics of one tap's process.
    const FLAT: TapProfile = TapProfile {
        name: "flat",
        delays_ns: &[0.0],
        powers_db: &[0.0],
        usual_doppler_hz: Some(10.0),
        delay_scale: 1.0,
        k_factor_db: None,
    };

    #[test]
    fn profiles_have_as_many_powers_as_delays() {
        for p in [EPA, EVA, ETU] {
            assert_eq!(p.delays_ns.len(), p.powers_db.len(), "{}", p.name);
        }
    }

    #[test]
    fn mean_power_gain_is_one_per_rb_and_per_tap() {
        // Ensemble of 300 EVA 70 Hz links, 50 instants 128 ms apart (on anchors: no rotations to replay), 25 RBs: E|H_k|^2 = sum P_l = 1.
        let steer = RbSteering::new(&EVA, 25, LTE_RB_HZ);
        let (mut sum, mut count) = (0.0, 0.0);
        let mut tap_power = vec![0.0; EVA.delays_ns.len()];
        for i in 0..300 {
            let mut f = process(&EVA, 70.0, i);
            for s in 0..50 {
                let g = f.rb_gains(s * 128 * NS_PER_MS, &steer);
                sum += g.iter().sum::<f64>();
                count += g.len() as f64;
                let (re, im) = f.taps(s * 128 * NS_PER_MS);
                for (l, p) in tap_power.iter_mut().enumerate() {
                    *p += (re[l] * re[l] + im[l] * im[l]) / 15000.0;
                }
            }
        }
        // 15000 nearly independent Exp(1) draws per RB: standard error ~0.008 (RBs correlate); allow 0.04.
        assert!((sum / count - 1.0).abs() < 0.04, "mean gain {}", sum / count);
        // Each tap's power is its profile's share of the total (TS 36.101 Table B.2.1-3), within 5 %.
        let total: f64 = EVA.powers_db.iter().map(|p| 10f64.powf(p / 10.0)).sum();
        for (l, p) in tap_power.iter().enumerate() {
            let want = 10f64.powf(EVA.powers_db[l] / 10.0) / total;
            assert!((p / want - 1.0).abs() < 0.05, "tap {l}: {p} vs {want}");
        }
    }

    #[test]
    fn power_gain_is_exponential_by_a_ks_test() {
        // |H|^2 of Rayleigh fading is Exp(1): F(x) = 1 - exp(-x). 1000 independent links (EPA), RB 0 at 1.024 s.
        let steer = RbSteering::new(&EPA, 6, LTE_RB_HZ);
        let mut x: Vec<f64> = (0..1000).map(|i| process(&EPA, 5.0, i).rb_gains(1_024 * NS_PER_MS, &steer)[0]).collect();
        let d = ks_distance_to_exp1(&mut x);
        // Kolmogorov-Smirnov critical value at the 5 % level for n = 1000: 1.36 / sqrt(1000) = 0.043.
        assert!(d < 0.043, "KS distance {d}");
    }

    #[test]
    fn autocorrelation_follows_bessel_j0() {
        // Clarke/Jakes: E[h(t) h*(t + tau)] / P = J0(2 pi f_d tau). f_d = 50 Hz, lags of 2, 5, 10, 20 TTIs
        // (f_d tau = 0.1, 0.25, 0.5, 1.0; J0 = 0.9037, 0.4720, -0.3042, 0.2203), over 2000 links x 10 starts.
        let fd = 50.0;
        let lags_ms = [2u64, 5, 10, 20];
        let (mut acc, mut pow) = ([0.0; 4], 0.0);
        let tap0 = |f: &mut FadingProcess, t: u64| {
            let (r, m) = f.taps(t);
            (r[0], m[0])
        };
        for i in 0..2000 {
            let mut f = process(&FLAT, fd, i);
            for s in 0..10u64 {
                let t0 = s * 1_024 * NS_PER_MS;
                let (a_re, a_im) = tap0(&mut f, t0);
                pow += a_re * a_re + a_im * a_im;
                for (j, lag) in lags_ms.iter().enumerate() {
                    let (b_re, b_im) = tap0(&mut f, t0 + lag * NS_PER_MS);
                    acc[j] += a_re * b_re + a_im * b_im;
                }
            }
        }
        for (j, lag) in lags_ms.iter().enumerate() {
            let want = libm::j0(TAU * fd * *lag as f64 * 1e-3);
            let got = acc[j] / pow;
            // 20000 pairs: standard error <= 1/sqrt(20000) = 0.007; allow 0.04.
            assert!((got - want).abs() < 0.04, "lag {lag} ms: {got} vs J0 = {want}");
        }
    }

    #[test]
    fn rotated_phasors_match_the_exact_sum_of_sinusoids() {
        // The tap gain equals sqrt(P_l/M) sum_n exp(j (omega_n t + phi_n)) evaluated directly: at step
        // 7 (one rotation by 7 steps after the exact value at 0), 8 (one anchor rotation), 130, 1023 (127
        // anchor rotations, then one: the most products between exact values), 1024 (exact again) and 20479
        // (the last TTI of a 20 s run, large phases).
        for k in [7u64, 8, 130, 1023, 1024, 20_479] {
            let t_s = (k * FADING_STEP_NS) as f64 * 1e-9;
            let m = SINUSOIDS_PER_TAP;
            let mut g = process(&ETU, 300.0, 3);
            let (mut re, mut im, mut phases_rad) = (0.0, 0.0, 0.0);
            for n in 0..m {
                let x = g.omega_rad_s[n] * t_s + g.phase_rad[n];
                let (s, c) = x.sin_cos();
                re += c;
                im += s;
                phases_rad += x.abs();
            }
            let amp = g.sinusoid_amp[0];
            let (tr, ti) = g.taps(k * FADING_STEP_NS + 123);
            let err = (tr[0] - amp * re).abs().max((ti[0] - amp * im).abs());
            // 1e-12 for the products, plus the rounding of the phases themselves (half an ulp each in
            // the direct sum and at the exact step: up to 38600 rad at 300 Hz after 20 s, 7e-12 ulp).
            let bound = 1e-12 + amp * phases_rad * f64::EPSILON;
            assert!(err < bound, "step {k}: {err:e} (bound {bound:e})");
        }
    }

    #[test]
    fn one_rotation_from_the_anchor_is_no_less_accurate_than_the_chain_of_steps() {
        // Every phasor between anchors for an exact period, against exp(j (omega t + phi)) by
        // sin_cos, both from the exact anchor exp(j (omega t_a + phi)): anchor x exp(j omega d T) from
        // the table (one product) and the d products of exp(j omega T) it replaced. At 0.5 Hz the
        // phases stay within 7 rad, so the reference's own rounding (<= 4.4e-16) does not hide the
        // products' (~1.1e-16 each). And the process's own phasors (anchors carried by their
        // rotations) stay within 1e-14 of exact.
        let mut g = process(&EPA, 0.5, 11);
        let n = g.omega_rad_s.len();
        let t_s = |k: u64| (k * FADING_STEP_NS) as f64 * 1e-9;
        let (mut worst, mut sq_one, mut sq_chain, mut count) = (0f64, 0.0, 0.0, 0.0);
        for k in (0..EXACT_EVERY_STEPS).filter(|k| k % ANCHOR_EVERY_STEPS != 0) {
            let (anchor, d) = (k - k % ANCHOR_EVERY_STEPS, (k % ANCHOR_EVERY_STEPS) as usize);
            assert!(!g.phasors_to(k));
            for i in 0..n {
                let (s, c) = (g.omega_rad_s[i] * t_s(k) + g.phase_rad[i]).sin_cos();
                worst = worst.max((g.ph_re[i] - c).hypot(g.ph_im[i] - s));
                let (ai, ar) = (g.omega_rad_s[i] * t_s(anchor) + g.phase_rad[i]).sin_cos();
                let (ri, rr) = (g.step_rot_im[(d - 1) * n + i], g.step_rot_re[(d - 1) * n + i]);
                sq_one += (ar * rr - ai * ri - c).hypot(ar * ri + ai * rr - s).powi(2);
                let (mut a, mut b) = (ar, ai);
                for _ in 0..d {
                    let (cr, ci) = (g.step_rot_re[i], g.step_rot_im[i]);
                    (a, b) = (a * cr - b * ci, a * ci + b * cr);
                }
                sq_chain += (a - c).hypot(b - s).powi(2);
                count += 1.0;
            }
        }
        let (one, chain) = ((sq_one / count).sqrt(), (sq_chain / count).sqrt());
        assert!(one < chain, "rms error {one:e} (one rotation) vs {chain:e} (chain of steps)");
        assert!(worst < 1e-14, "worst {worst:e}");
    }

    #[test]
    fn tap_gains_do_not_depend_on_the_steps_asked_before() {
        // One process asked at every step, one only at a few, in this order (jumps within an anchor
        // period, across anchors and across exact steps, and back): the same bits at each of those.
        let mut every = process(&EVA, 70.0, 9);
        let want: Vec<(Vec<f64>, Vec<f64>)> = (0..=3000u64)
            .map(|k| {
                let (re, im) = every.taps(k * FADING_STEP_NS);
                (re.to_vec(), im.to_vec())
            })
            .collect();
        let mut sparse = process(&EVA, 70.0, 9);
        for k in [5u64, 6, 40, 63, 64, 100, 700, 1030, 1029, 3000, 2100, 2047, 2048] {
            let (re, im) = sparse.taps(k * FADING_STEP_NS);
            assert_eq!((re.to_vec(), im.to_vec()), want[k as usize], "step {k}");
        }
    }

    #[test]
    fn level_crossing_rate_and_average_fade_duration_match_the_closed_forms() {
        // Jakes (Microwave Mobile Communications, 1974, §1.3): at rho = R / R_rms the envelope crosses
        // upwards N_R = sqrt(2 pi) f_d rho exp(-rho^2) times per second and stays below for
        // (exp(rho^2) - 1) / (rho f_d sqrt(2 pi)) on average. f_d = 10 Hz, rho = 1 (0 dB):
        // N_R = 2.5066 * 10 * 0.36788 = 9.221 /s, AFD = 1.71828 / 25.066 = 68.55 ms.
        // 20 links x 20 s sampled every TTI (100 samples per Doppler period).
        let fd = 10.0;
        let (mut ups, mut below_steps, mut steps) = (0u64, 0u64, 0u64);
        for i in 0..20 {
            let mut f = process(&FLAT, fd, 100 + i);
            let mut was_below = None;
            for k in 0..20_000u64 {
                let (re, im) = f.taps(k * FADING_STEP_NS);
                let below = re[0] * re[0] + im[0] * im[0] < 1.0;
                ups += u64::from(was_below == Some(true) && !below);
                below_steps += u64::from(below);
                steps += 1;
                was_below = Some(below);
            }
        }
        let seconds = steps as f64 * FADING_STEP_NS as f64 * 1e-9;
        let lcr = ups as f64 / seconds;
        let afd_ms = below_steps as f64 / ups as f64;
        // ~3700 crossings: Poisson-like spread ~1.6 %; allow 10 % for the sum-of-sinusoids' finite M.
        assert!((lcr / 9.221 - 1.0).abs() < 0.1, "level crossing rate {lcr} /s vs 9.221");
        assert!((afd_ms / 68.55 - 1.0).abs() < 0.1, "average fade duration {afd_ms} ms vs 68.55");
    }

    #[test]
    fn frequency_correlation_follows_the_delay_profile() {
        // E[H_k H*_{k+m}] = sum_l P_l exp(j 2 pi m 180 kHz tau_l): ETU decorrelates faster than EPA.
        for (profile, m) in [(EPA, 10usize), (ETU, 3usize)] {
            let steer = RbSteering::new(&profile, 50, LTE_RB_HZ);
            let total: f64 = profile.powers_db.iter().map(|p| 10f64.powf(p / 10.0)).sum();
            let df = m as f64 * LTE_RB_HZ;
            let (mut re_w, mut im_w) = (0.0, 0.0);
            for (tau, p) in profile.delays_ns.iter().zip(profile.powers_db) {
                let w = 10f64.powf(p / 10.0) / total;
                re_w += w * (TAU * df * tau * 1e-9).cos();
                im_w += w * (TAU * df * tau * 1e-9).sin();
            }
            let want = re_w.hypot(im_w);
            let (mut acc_re, mut acc_im, mut pow) = (0.0, 0.0, 0.0);
            for i in 0..1000 {
                let mut f = process(&profile, 5.0, i);
                let (tr, ti) = f.taps(0);
                let h = |k: usize| -> (f64, f64) {
                    (0..tr.len()).fold((0.0, 0.0), |(a, b), l| {
                        let (sr, si) = steer.at(k, l);
                        (a + tr[l] * sr - ti[l] * si, b + tr[l] * si + ti[l] * sr)
                    })
                };
                let ((ar, ai), (br, bi)) = (h(20), h(20 + m));
                acc_re += ar * br + ai * bi;
                acc_im += ai * br - ar * bi;
                pow += ar * ar + ai * ai;
            }
            let got = acc_re.hypot(acc_im) / pow;
            assert!((got - want).abs() < 0.08, "{} over {m} RBs: |rho| {got} vs {want}", profile.name);
        }
    }

    #[test]
    fn f32_tap_sums_match_f64_within_the_stated_error() {
        // 200 EVA links x 20 instants x 100 RBs, and 40 links on an odd band of 25 RBs (its middle
        // RB is its own mirror), against H_k summed in f64 from each RB's own f64 phases:
        // |H_k|^2 within 1e-5 dB at or above 0 dB and 1e-3 dB down to -40 dB, as rb_gains says.
        let (mut worst_db_0, mut worst_db_40): (f64, f64) = (0.0, 0.0);
        for (n_rb, i) in (0..200).map(|i| (100, i)).chain((200..240).map(|i| (25, i))) {
            let steer = RbSteering::new(&EVA, n_rb, LTE_RB_HZ);
            let mut f = process(&EVA, 70.0, i);
            for t in 0..20u64 {
                let now = t * 37 * NS_PER_MS;
                let g32 = f.rb_gains(now, &steer).to_vec();
                let (tr, ti) = f.taps(now);
                for (k, g) in g32.iter().enumerate() {
                    let (mut hr, mut hi) = (0.0, 0.0);
                    for l in 0..tr.len() {
                        let (s, c) = RbSteering::phase(&EVA, n_rb, LTE_RB_HZ, k, l);
                        hr += tr[l] * c - ti[l] * s;
                        hi += tr[l] * s + ti[l] * c;
                    }
                    let g64 = hr * hr + hi * hi;
                    let err_db = (10.0 * (g / g64).log10()).abs();
                    if g64 >= 1.0 {
                        worst_db_0 = worst_db_0.max(err_db);
                    }
                    if g64 >= 1e-4 {
                        worst_db_40 = worst_db_40.max(err_db);
                    }
                }
            }
        }
        assert!(
            worst_db_0 < 1e-5 && worst_db_40 < 1e-3,
            "{worst_db_0:e} dB above 0 dB, {worst_db_40:e} dB above -40 dB"
        );
    }

    #[test]
    fn each_rb_gets_the_power_of_its_own_lane() {
        // Every band size from 1 to 13 RBs (partial last blocks, odd bands whose middle RB is its
        // own mirror), the LTE ones and wider NR bands (129, 256, 273 RBs): each RB's |H_k|^2 bit
        // for bit as its block's lane sums it, P, Q, R, S over the taps in order in f32, then
        // H_k = (P - Q) + j (R + S) below the carrier and (P + Q) + j (S - R) for the mirror above.
        for n_rb in (1..=13).chain([15, 25, 50, 75, 100, 129, 256, 273]) {
            let steer = RbSteering::new(&EVA, n_rb, LTE_RB_HZ);
            let mut f = process(&EVA, 70.0, n_rb);
            let now = 17 * NS_PER_MS;
            let got = f.rb_gains(now, &steer).to_vec();
            let (tr, ti) = f.taps(now);
            for (k, g) in got.iter().enumerate() {
                let (low, mirror) = if k < n_rb.div_ceil(2) { (k, false) } else { (n_rb - 1 - k, true) };
                let (mut p, mut q, mut r, mut s) = (0f32, 0f32, 0f32, 0f32);
                for l in 0..tr.len() {
                    let i = low / RB_LANES * steer.n_taps + l;
                    let (a, b) = (tr[l] as f32, ti[l] as f32);
                    let (c, d) = (steer.re[i][low % RB_LANES], steer.im[i][low % RB_LANES]);
                    p += a * c;
                    q += b * d;
                    r += a * d;
                    s += b * c;
                }
                let (re, im) = if mirror { (p + q, s - r) } else { (p - q, r + s) };
                let want = f64::from(re) * f64::from(re) + f64::from(im) * f64::from(im);
                assert_eq!(g.to_bits(), want.to_bits(), "{n_rb} RBs, RB {k}");
            }
        }
    }

    #[test]
    fn rb_gains_have_the_same_bits_at_both_vector_widths() {
        // The RbGains kernel at the baseline width (blocks as two out-of-line halves) and at AVX2
        // (8 lanes inlined): every band size from 1 to 13 RBs, 15, the LTE ones and wider NR bands
        // (129, 256, 273 RBs), Rayleigh and Rician, steps in a row, after gaps, on and across
        // anchors and exact steps.
        crate::sim::simd::tests::with_avx2("fading::RbGains", |avx2| {
            for n_rb in (1..=13).chain([15, 25, 50, 75, 100, 129, 256, 273]) {
                for (profile, k_db) in [(EVA, None), (ETU, Some(6.0))] {
                    let steer = RbSteering::new(&profile, n_rb, LTE_RB_HZ);
                    let rng = || RngStream::new(n_rb as u64, "simd");
                    let mut f = [simd::Width::BASELINE, avx2].map(|_| FadingProcess::new(&profile, 70.0, k_db, rng()));
                    for k in [0u64, 1, 2, 3, 7, 8, 9, 13, 40, 1023, 1024, 1025, 3001, 3000] {
                        let [plain, wide] = &mut f;
                        let now_ns = k * FADING_STEP_NS;
                        let a = simd::run_on(simd::Width::BASELINE, RbGains { process: plain, now_ns, steer: &steer });
                        let b = simd::run_on(avx2, RbGains { process: wide, now_ns, steer: &steer });
                        let bits = |g: &[f64]| g.iter().map(|x| x.to_bits()).collect::<Vec<u64>>();
                        assert_eq!(bits(a), bits(b), "{n_rb} RBs, {}, step {k}", profile.name);
                    }
                }
            }
        });
    }

    #[test]
    fn rb_gains_on_a_few_rbs_have_the_bands_bits() {
        // Each RB summed on its own (`rb_gains_on`, up to RB_LANES RBs) against the band's blocks:
        // every RB of bands of 1-13, 15, 25, 50, 75 and 100 RBs (lower half, mirrored upper half,
        // an odd band's middle RB), Rayleigh and Rician, steps in a row, after gaps and across
        // anchors, at both vector widths.
        let widths = std::iter::once(simd::Width::BASELINE).chain(simd::Width::avx2());
        for width in widths {
            for n_rb in (1..=13).chain([15, 25, 50, 75, 100]) {
                for (profile, k_db) in [(EVA, None), (ETU, Some(6.0))] {
                    let steer = RbSteering::new(&profile, n_rb, LTE_RB_HZ);
                    let rng = || RngStream::new(n_rb as u64, "on");
                    let (mut band, mut few) = (
                        FadingProcess::new(&profile, 70.0, k_db, rng()),
                        FadingProcess::new(&profile, 70.0, k_db, rng()),
                    );
                    for (i, k) in [0u64, 1, 2, 7, 8, 9, 40, 1023, 1024, 1025, 3001].into_iter().enumerate() {
                        let now_ns = k * FADING_STEP_NS;
                        let want: Vec<u64> = band.rb_gains(now_ns, &steer).iter().map(|x| x.to_bits()).collect();
                        // A window of up to RB_LANES RBs sliding over the band, step by step.
                        let first = (i * 3) % n_rb;
                        let rbs = first..(first + RB_LANES).min(n_rb);
                        let got = simd::run_on(
                            width,
                            RbGainsOn { process: &mut few, now_ns, steer: &steer, rbs: rbs.clone() },
                        );
                        for rb in rbs {
                            assert_eq!(got[rb].to_bits(), want[rb], "{n_rb} RBs, {}, step {k}, RB {rb}", profile.name);
                        }
                    }
                }
            }
        }
    }

    /// |H_k|^2 of every RB as the tap-major f32 sweep before the mirrored pairs summed it (H_k
    /// over the taps in order, one complex multiply-add per tap and RB, from the same f32 phases).
    fn tap_major_f32_gains(tr: &[f64], ti: &[f64], steer: &RbSteering) -> Vec<f64> {
        (0..steer.n_rb())
            .map(|k| {
                let (mut hr, mut hi) = (0f32, 0f32);
                for l in 0..tr.len() {
                    let (c, s) = steer.at(k, l);
                    let (a, b, c, s) = (tr[l] as f32, ti[l] as f32, c as f32, s as f32);
                    hr += a * c - b * s;
                    hi += a * s + b * c;
                }
                f64::from(hr) * f64::from(hr) + f64::from(hi) * f64::from(hi)
            })
            .collect()
    }

    /// How many wideband MCS choices the mirrored-pair sums move, against the previous tap-major f32
    /// sweep and against H_k in f64: 14 EVA 70 Hz links every TTI for 20 s (280000 rows of 100
    /// RBs, like the bench's channel cell), each at a mean SINR from -5 to 25 dB, through the ICI
    /// share and the PHY's MIESM choice (`amc::mcs_at_bler_target`).
    /// `cargo test --release -p cellcc-engine --lib mcs_moves_with_the_tap_sums -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn mcs_moves_with_the_tap_sums() {
        use crate::lte::phy::amc::mcs_at_bler_target;
        use crate::radio::ici::{doppler_spread_kept_share, with_ici};
        let (n_rb, steer) = (100, RbSteering::new(&EVA, 100, LTE_RB_HZ));
        let kept = doppler_spread_kept_share(70.0);
        let (mut rows, mut vs_old, mut vs_f64, mut old_vs_f64) = (0u32, 0u32, 0u32, 0u32);
        for i in 0..14 {
            let mean_lin = 10f64.powf((-5.0 + 30.0 * f64::from(i) / 13.0) / 10.0);
            let mut f = process(&EVA, 70.0, 500 + i as usize);
            let row = |g: &[f64]| g.iter().map(|g| with_ici(mean_lin * g, kept)).collect::<Vec<f64>>();
            for t in 0..20_000u64 {
                let new = row(f.rb_gains(t * NS_PER_MS, &steer));
                let (tr, ti) = f.taps(t * NS_PER_MS);
                let old = row(&tap_major_f32_gains(tr, ti, &steer));
                let exact: Vec<f64> = (0..n_rb)
                    .map(|k| {
                        let (mut hr, mut hi) = (0.0, 0.0);
                        for l in 0..tr.len() {
                            let (s, c) = RbSteering::phase(&EVA, n_rb, LTE_RB_HZ, k, l);
                            hr += tr[l] * c - ti[l] * s;
                            hi += tr[l] * s + ti[l] * c;
                        }
                        hr * hr + hi * hi
                    })
                    .collect();
                let [new, old, exact] = [&new, &old, &row(&exact)].map(|r| mcs_at_bler_target(r));
                rows += 1;
                vs_old += u32::from(new != old);
                vs_f64 += u32::from(new != exact);
                old_vs_f64 += u32::from(old != exact);
                for other in [old, exact] {
                    let step = i32::from(new.map_or(-1, |m| m as i8)) - i32::from(other.map_or(-1, |m| m as i8));
                    assert!(step.abs() <= 1, "row {rows}: MCS {new:?} vs {other:?}");
                }
            }
        }
        println!(
            "of {rows} rows: {vs_old} pick another MCS than the tap-major f32 sums, {vs_f64} than f64 sums \
             (tap-major f32 against f64: {old_vs_f64})"
        );
        assert!(u64::from(vs_old.max(vs_f64)) * 10_000 <= u64::from(rows), "{vs_old}, {vs_f64} of {rows} rows");
    }

    #[test]
    fn same_seed_same_series() {
        let steer = RbSteering::new(&EVA, 50, LTE_RB_HZ);
        let series = |label: &str| {
            let mut f = FadingProcess::new(&EVA, 70.0, None, RngStream::new(1, label));
            (0..500u64).flat_map(|t| f.rb_gains(t * NS_PER_MS, &steer).to_vec()).collect::<Vec<f64>>()
        };
        assert_eq!(series("a"), series("a"));
        assert_ne!(series("a"), series("b"));
    }

    #[test]
    fn a_rician_first_tap_keeps_its_power_and_fades_less() {
        // First tap |h_0|^2 / P_0 over 400 links x 50 instants: mean 1 either way; P(|h|^2 < 0.1 P_0) is
        // 1 - exp(-0.1) = 9.5 % for Rayleigh and, for K = 10 dB, the Rician CDF at 0.1 = 0.074 % (numerical integration).
        let stats = |k: Option<f64>| {
            let p0 = 1.0 / EVA.powers_db.iter().map(|p| 10f64.powf(p / 10.0)).sum::<f64>();
            let (mut mean, mut deep, mut n) = (0.0, 0.0, 0.0);
            for i in 0..400 {
                let mut f = FadingProcess::new(&EVA, 70.0, k, RngStream::new(2, &format!("r{i}")));
                for s in 0..50u64 {
                    let (re, im) = f.taps(s * 192 * NS_PER_MS);
                    let g = (re[0] * re[0] + im[0] * im[0]) / p0;
                    mean += g;
                    deep += f64::from(u8::from(g < 0.1));
                    n += 1.0;
                }
            }
            (mean / n, deep / n)
        };
        let (ray_mean, ray_deep) = stats(None);
        let (ric_mean, ric_deep) = stats(Some(10.0));
        assert!((ray_mean - 1.0).abs() < 0.05 && (ric_mean - 1.0).abs() < 0.05, "{ray_mean} {ric_mean}");
        assert!((ray_deep - 0.095).abs() < 0.02, "Rayleigh deep-fade share {ray_deep}");
        assert!(ric_deep < 0.01, "Rician deep-fade share {ric_deep}");
    }
}
