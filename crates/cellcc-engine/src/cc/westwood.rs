//! Westwood (original): Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood: Bandwidth Estimation for Enhanced Transport over Wireless Links", ACM MobiCom 2001.
//!
//! Reno growth; after a loss, ssthresh is the pipe the connection was
//! measured to fill, `BWE x RTTmin / MSS`, instead of half the window. BWE
//! comes from every ACK (MobiCom 2001 §2.2):
//!
//! ```text
//!   sample   b_k  = d_k / (t_k - t_{k-1})                 bytes this ACK delivered / ACK spacing
//!   filter   B_k  = a_k B_{k-1} + (1 - a_k) (b_k + b_{k-1}) / 2,
//!            a_k  = (2 tau - D_k) / (2 tau + D_k)        Tustin discretisation of a
//!                                                         first-order low pass, cut-off 1/tau
//!   gaps     no ACK for tau/m  ->  a virtual sample b = 0 (Nyquist: sample at >= 2/tau)
//!   3 dupACKs: ssthresh = BWE x RTTmin / MSS (>= 2); cwnd = min(cwnd, ssthresh)
//!   RTO:       ssthresh = BWE x RTTmin / MSS (>= 2); cwnd = 1
//! ```
//!
//! Differences from the paper:
//! - d_k is the data the ACK newly delivered, SACKed data included, as the
//!   simulator knows it; the paper infers it from the ACK number and counts a
//!   duplicate ACK as one segment.
//! - Virtual null samples are inserted when the next ACK arrives (the filter
//!   has no timer), at the instants they would have been taken. D_k of the real
//!   sample is the time since the last (real or virtual) sample; b_k divides by
//!   the time since the last real ACK, as eq. (1) defines it.
//! - ACKs with zero spacing (a burst at one instant) are merged into the next sample.
//! - The defaults tau = 1 s and m = 2 are those of the UCLA ns-2 reference
//!   implementation (tcp-westwood.cc v1.3, `tau_`, filter type 3); the paper leaves them open.
//! - "cwnd = min(cwnd, ssthresh)" is kept when the sender's recovery ends
//!   (`CompleteCwr`), where a Linux-style sender would otherwise raise cwnd to ssthresh.

use super::common::reno_cong_avoid;
use super::ParamError;
use super::{AckSample, CongestionControl, ConnView, CwndEvent, Window};
use crate::sim::time::NS_PER_S;
use crate::sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};

/// Smallest ssthresh after a loss (ns-2 reference implementation: "ssthresh should not be < 2").
pub(super) const MIN_SSTHRESH_SEGS: u32 = 2;
/// Smallest m the paper allows: samples at least twice per filter time constant (Nyquist).
const MIN_NULL_SAMPLE_DIVISOR: u32 = 2;

/// `BWE x RTTmin / MSS` in segments, at least 2: the ssthresh of both Westwoods.
/// Integer arithmetic, as Linux `tcp_westwood_bw_rttmin`, so the floor is exact.
pub(super) fn bw_rtt_min_segs(bw_bytes_per_s: u64, rtt_min: Option<SimDuration>, mss_bytes: u32) -> u32 {
    let Some(rtt_min) = rtt_min else { return MIN_SSTHRESH_SEGS };
    let bytes = bw_bytes_per_s as u128 * rtt_min.as_ns() as u128 / NS_PER_S as u128;
    let segs = (bytes / mss_bytes.max(1) as u128).min(u32::MAX as u128) as u32;
    segs.max(MIN_SSTHRESH_SEGS)
}

/// Westwood parameters: the bandwidth filter of MobiCom 2001 §2.2.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Filter time constant tau (cut-off frequency 1/tau). Milliseconds, > 0.
    /// Default 1000 (UCLA ns-2 reference implementation `tau_` = 1.0 s).
    pub tau_ms: f64,
    /// m: after tau/m without an ACK the filter takes a virtual zero sample.
    /// Integer >= 2 (MobiCom 2001 §2.2). Default 2 (ns-2 reference: every tau/2).
    pub null_sample_divisor: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { tau_ms: 1000.0, null_sample_divisor: 2 }
    }
}

impl Config {
    /// tau <= 0 breaks the filter coefficient; m < 2 breaks the sampling condition that keeps a_k > 0.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.tau_ms.is_finite() && self.tau_ms > 0.0, "tau_ms", self.tau_ms, "milliseconds > 0")?;
        ParamError::check(
            self.null_sample_divisor >= MIN_NULL_SAMPLE_DIVISOR,
            "null_sample_divisor",
            self.null_sample_divisor,
            "an integer >= 2",
        )
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "westwood",
    family: super::Family::Delay,
    source: "Mascolo et al., ACM MobiCom 2001 (original Westwood, per-ACK bandwidth filter)",
    summary: "Reno growth; after loss ssthresh = BWE x RTTmin, BWE low-pass filtered from every ACK.",
    description: "Reno growth; after a loss ssthresh is set to the pipe the flow was measured to fill, BWE x RTTmin / \
        MSS (at least 2 segments), instead of half the window: three duplicate ACKs set cwnd = min(cwnd, \
        ssthresh), an RTO restarts from one segment. BWE is the original per-ACK estimator: each ACK gives a \
        sample (bytes delivered / time since the previous ACK), low-pass filtered with time constant tau (1 \
        s), with virtual zero samples when ACKs stop. Meant for wireless paths, where a random loss should \
        not halve a well-used window.",
    params: &[
        ("tau_ms", "bandwidth filter time constant, ms > 0 (default 1000, UCLA ns-2 reference tau_)"),
        (
            "null_sample_divisor",
            "m: a virtual zero sample after tau/m without ACKs, integer >= 2 (default 2, ns-2 reference)",
        ),
    ],
};

/// The MobiCom 2001 Tustin low-pass filter over per-ACK bandwidth samples.
#[derive(Clone, Debug)]
struct TustinFilter {
    tau_s: f64,
    /// tau / m: the longest gap between two samples.
    max_gap: SimDuration,
    /// B_{k-1}, bytes/s.
    estimate: f64,
    /// b_{k-1}, bytes/s.
    last_sample: f64,
    /// When the last real ACK arrived (None before the first).
    last_ack: Option<SimTime>,
    /// When the last sample, real or virtual, was taken.
    last_sample_at: SimTime,
    /// Bytes of ACKs that arrived at `last_ack`'s instant after the sample was taken.
    pending_bytes: u64,
}

impl TustinFilter {
    fn new(cfg: &Config) -> Self {
        let tau_s = cfg.tau_ms / 1000.0;
        TustinFilter {
            tau_s,
            max_gap: SimDuration::from_secs_f64(tau_s / cfg.null_sample_divisor as f64),
            estimate: 0.0,
            last_sample: 0.0,
            last_ack: None,
            last_sample_at: SimTime::ZERO,
            pending_bytes: 0,
        }
    }

    /// One filter step over `gap` with sample `b_k`.
    fn feed(&mut self, gap: SimDuration, sample: f64) {
        let d = gap.as_secs_f64();
        let a = (2.0 * self.tau_s - d) / (2.0 * self.tau_s + d);
        self.estimate = a * self.estimate + (1.0 - a) * (sample + self.last_sample) / 2.0;
        self.last_sample = sample;
        self.last_sample_at += gap;
    }

    /// An ACK that delivered `bytes` at `now`.
    fn on_ack(&mut self, now: SimTime, bytes: u64) {
        let Some(prev) = self.last_ack else {
            // The first ACK only starts the clock: its data has no interval.
            self.last_ack = Some(now);
            self.last_sample_at = now;
            return;
        };
        if now <= prev {
            self.pending_bytes += bytes;
            return;
        }
        // Virtual null samples for each tau/m that passed without an ACK.
        while self.last_sample_at + self.max_gap < now {
            self.feed(self.max_gap, 0.0);
        }
        let sample = (bytes + self.pending_bytes) as f64 / (now - prev).as_secs_f64();
        self.feed(now - self.last_sample_at, sample);
        self.pending_bytes = 0;
        self.last_ack = Some(now);
    }
}

pub struct Westwood {
    w: Window,
    filter: TustinFilter,
    rtt_min: Option<SimDuration>,
    /// cwnd when the last loss was detected: recovery must not raise cwnd above it.
    cwnd_at_loss: u32,
}

impl Westwood {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Westwood { w, filter: TustinFilter::new(cfg), rtt_min: None, cwnd_at_loss: w.cwnd }
    }

    /// The filtered bandwidth estimate, bytes/s.
    pub fn bandwidth_estimate(&self) -> f64 {
        self.filter.estimate
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    /// MobiCom 2001 §2.3: after 3 dupACKs and after an RTO, ssthresh = BWE x RTTmin / MSS.
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        self.cwnd_at_loss = self.w.cwnd;
        bw_rtt_min_segs(self.filter.estimate as u64, self.rtt_min, conn.mss_bytes)
    }
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
    }
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
        }
        self.filter.on_ack(conn.now, ack.acked_bytes);
    }
    fn cwnd_event(&mut self, _conn: &ConnView, event: CwndEvent) {
        // MobiCom 2001 §2.3: "if (cwin > ssthresh) cwin = ssthresh" -- never raise it.
        if event == CwndEvent::CompleteCwr {
            self.w.set_cwnd(self.w.cwnd.min(self.cwnd_at_loss));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn, MSS};
    use super::*;

    /// ACK of `segs` segments at `t_ms` with a 100 ms RTT sample.
    fn ack_at(ww: &mut Westwood, t_ms: u64, segs: u32) {
        ww.pkts_acked(&conn(t_ms, 100), &ack(segs, 100));
    }

    fn assert_close(got: f64, want: f64) {
        assert!((got - want).abs() <= want.abs() * 1e-12, "got {got}, want {want}");
    }

    #[test]
    fn filter_output_on_a_known_ack_sequence() {
        let mut ww = Westwood::new(&Config::default(), Window::new(10));
        // t = 0: the first ACK starts the clock, no sample.
        ack_at(&mut ww, 0, 1);
        assert_eq!(ww.bandwidth_estimate(), 0.0);
        // t = 10 ms, 1448 B: b1 = 1448 / 0.01 = 144_800 B/s, D = 0.01 s, tau = 1 s,
        // a = (2 - 0.01) / (2 + 0.01) = 1.99 / 2.01,
        // B1 = a * 0 + (1 - a) * (144_800 + 0) / 2 = (0.02 / 2.01) * 72_400 = 720.398 B/s.
        ack_at(&mut ww, 10, 1);
        let a = 1.99 / 2.01;
        let b1 = (1.0 - a) * 144_800.0 / 2.0;
        assert_close(ww.bandwidth_estimate(), b1);
        assert!((b1 - 720.398).abs() < 1e-3);
        // t = 20 ms, 2896 B: b2 = 289_600 B/s,
        // B2 = a * 720.398 + (1 - a) * (289_600 + 144_800) / 2 = 713.230 + 2161.194 = 2874.424 B/s.
        ack_at(&mut ww, 20, 2);
        let b2 = a * b1 + (1.0 - a) * (289_600.0 + 144_800.0) / 2.0;
        assert_close(ww.bandwidth_estimate(), b2);
        assert!((b2 - 2874.424).abs() < 1e-3);
    }

    #[test]
    fn constant_rate_converges_and_sets_ssthresh_to_bwe_times_rtt_min() {
        let mut ww = Westwood::new(&Config::default(), Window::new(10));
        // One segment every 10 ms for 10 s: b = 144_800 B/s (100 segments/s).
        // B1 = (1 - a) b / 2, then B_n = a B_{n-1} + (1 - a) b, so
        // B_n = b (1 - a^(n-1) (1 + a) / 2) with a = 1.99 / 2.01.
        for k in 0..=1000 {
            ack_at(&mut ww, k * 10, 1);
        }
        let (a, b, n) = (1.99_f64 / 2.01, 144_800.0, 1000);
        let want = b * (1.0 - a.powi(n - 1) * (1.0 + a) / 2.0);
        assert!((ww.bandwidth_estimate() - want).abs() < want * 1e-9);
        // a^999 = 4.6e-5: B = 144_793.4 B/s; ssthresh = 144_793 B/s x 0.1 s / 1448 B = 9.9995 -> 9.
        assert_eq!(ww.ssthresh(&conn(10_000, 100)), 9);
    }

    #[test]
    fn a_silent_gap_feeds_virtual_zero_samples_every_tau_over_m() {
        let mut ww = Westwood::new(&Config::default(), Window::new(10));
        for k in 0..=100 {
            ack_at(&mut ww, k * 10, 1);
        }
        let b0 = ww.bandwidth_estimate();
        // Next ACK 1.2 s after the last (t = 1000 ms): virtual samples at +0.5 s and
        // +1.0 s (tau/m = 0.5 s), each with D = 0.5: a = (2 - 0.5) / (2 + 0.5) = 0.6.
        //   V1 = 0.6 B0 + 0.4 (0 + 144_800) / 2;  V2 = 0.6 V1 + 0.4 (0 + 0) / 2.
        // Real sample: b = 1448 / 1.2 s, D = 0.2 s since V2: a = 1.8 / 2.2.
        //   B = a V2 + (1 - a) (b + 0) / 2.
        ack_at(&mut ww, 2200, 1);
        let v1 = 0.6 * b0 + 0.4 * 144_800.0 / 2.0;
        let v2 = 0.6 * v1;
        let a = 1.8 / 2.2;
        let want = a * v2 + (1.0 - a) * (MSS as f64 / 1.2) / 2.0;
        assert!((ww.bandwidth_estimate() - want).abs() < want * 1e-9);
    }

    #[test]
    fn loss_never_raises_cwnd_above_what_it_was() {
        let mut ww = Westwood::new(&Config::default(), Window { ssthresh: 5, ..Window::new(5) });
        for k in 0..=1000 {
            ack_at(&mut ww, k * 10, 1);
        }
        // ssthresh = 9 (as above) > cwnd 5: recovery ends with cwnd 5, not 9.
        let c = conn(10_000, 100);
        ww.w.ssthresh = ww.ssthresh(&c);
        ww.w.cwnd = ww.w.ssthresh;
        ww.cwnd_event(&c, CwndEvent::CompleteCwr);
        assert_eq!((ww.window().cwnd, ww.window().ssthresh), (5, 9));
    }

    #[test]
    fn bad_filter_parameters_are_rejected() {
        assert_eq!(Config { tau_ms: 0.0, ..Config::default() }.validate().unwrap_err().field, "tau_ms");
        let m1 = Config { null_sample_divisor: 1, ..Config::default() };
        assert_eq!(m1.validate().unwrap_err().field, "null_sample_divisor");
    }
}
