//! TCP Hybla: Caini, Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous networks", IJSCN 2004; Linux net/ipv4/tcp_hybla.c.
//!
//! Hybla makes a long-RTT connection grow as fast, in segments per second, as
//! one with the reference RTT `rtt0`: with rho = max(SRTT / rtt0, 1), slow
//! start adds 2^rho - 1 segments per ACK and congestion avoidance rho^2 / cwnd
//! (paper eqs. 5-6), so per unit time both match a Reno flow at RTT = rtt0.
//! Losses halve the window as Reno does; outside the Open state it is Reno.
//!
//! Linux works in fixed point: rho in 1/8ths (`rho_3ls`), increments in
//! 1/128ths of a segment with the fractions carried in `snd_cwnd_cents`, and
//! 2^(fractional rho) from an 8-entry table. This port keeps that arithmetic
//! so its windows match Linux's.
//!
//! Differences from Linux: SRTT is `conn.srtt` (ns) instead of `srtt_us << 3`;
//! the ratio SRTT/rtt0 in 1/8ths is the same integer. As in Linux, `init`
//! sets cwnd to the integer part of rho (so 1 for any RTT below 2 x rtt0)
//! and the cwnd clamp to 65535; if the sender never calls `init`, rho is
//! computed on the first ACK (Linux's own fallback) and cwnd keeps its
//! initial value. rho^2 is held in 64 bits, where Linux's 32-bit
//! `rho2_7ls` wraps once SRTT exceeds 181 x rtt0.

use super::common::{reno_cong_avoid, reno_ssthresh};
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, Window};
use crate::sim::SimDuration;
use serde::{Deserialize, Serialize};

/// Fixed-point shift of rho (Linux `rho_3ls`: rho << 3).
const RHO_SHIFT: u32 = 3;
/// Fixed-point shift of increments (Linux: "<<7", 1/128 segment).
const INC_SHIFT: u32 = 7;
/// One segment in increment units.
const ONE_SEG: u32 = 1 << INC_SHIFT;
/// Linux caps 2^rho at 2^16 in slow start.
const MAX_RHO_EXP: u32 = 16;
/// Linux `hybla_init`: snd_cwnd_clamp = 65535.
const CWND_CLAMP: u32 = 65535;
/// 2^(k/8) x 128 for k = 0..7, rounded down (Linux `hybla_fraction`).
const POW2_EIGHTHS: [u32; 8] = [128, 139, 152, 165, 181, 197, 215, 234];

/// Hybla parameters: the Linux `tcp_hybla` module parameter and its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// "reference rout trip time (ms)": the RTT whose growth rate Hybla
    /// reproduces. Default 25 ms (Linux `rtt0`). At least 1.
    pub rtt0_ms: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config { rtt0_ms: 25 }
    }
}

impl Config {
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.rtt0_ms >= 1, "rtt0_ms", self.rtt0_ms, "milliseconds >= 1")
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "hybla",
    family: super::Family::Loss,
    source: "Caini & Firrincieli, IJSCN 2004; Linux net/ipv4/tcp_hybla.c",
    summary: "Scales Reno's growth by rho = RTT/rtt0 (slow start 2^rho - 1 per ACK, avoidance rho^2/cwnd) so long-RTT flows grow like rtt0 ones.",
    description: "Hybla makes a flow grow, in segments per second, like a Reno flow whose RTT is the reference rtt0 \
        (25 ms): with rho = max(SRTT / rtt0, 1), slow start adds 2^rho - 1 segments per ACK and congestion \
        avoidance rho^2 / cwnd. Losses halve the window as Reno. As in Linux, init sets cwnd to the integer \
        part of rho (1 segment on a 40 ms path, replacing the initial window); at 40 ms rho is about 1.6, so \
        avoidance grows about 2.6 times faster than Reno.",
    params: &[("rtt0_ms", "ms: reference RTT (default 25; Linux rtt0)")],
};

/// rho and rho^2 in Linux's fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rho {
    /// Linux `rho_3ls`: rho << 3, at least 8 (rho >= 1).
    eighths: u32,
    /// Linux `rho2_7ls`: rho^2 << 7 (64 bits: Linux's u32 wraps once SRTT > 181 x rtt0).
    squared_128ths: u64,
}

impl Rho {
    /// Linux `hybla_recalc_param`: rho = max(SRTT / rtt0, 1) in 1/8ths.
    fn from_srtt(srtt: SimDuration, rtt0: SimDuration) -> Self {
        let eighths = ((srtt.as_ns() << RHO_SHIFT) / rtt0.as_ns()).clamp(1 << RHO_SHIFT, u32::MAX as u64) as u32;
        Rho { eighths, squared_128ths: ((eighths as u64).pow(2)) << 1 }
    }
    fn integer(self) -> u32 {
        self.eighths >> RHO_SHIFT
    }
    fn fraction_eighths(self) -> u32 {
        self.eighths - (self.integer() << RHO_SHIFT)
    }
    /// Paper eq. 5: 2^rho - 1 segments per ACK, in 1/128ths.
    fn slow_start_increment(self) -> u32 {
        (1u32 << self.integer().min(MAX_RHO_EXP)) * POW2_EIGHTHS[self.fraction_eighths() as usize] - ONE_SEG
    }
}

pub struct Hybla {
    w: Window,
    rtt0: SimDuration,
    /// Linux `hybla_en`: Hybla's rules apply only in the Open state.
    enabled: bool,
    /// Linux `rho*` (None until an SRTT is known).
    rho: Option<Rho>,
    /// Linux `minrtt_us`: the SRTT rho was last computed from.
    min_srtt: Option<SimDuration>,
    /// Linux `snd_cwnd_cents`: increments below one segment, in 1/128ths.
    cents: u32,
}

impl Hybla {
    pub fn new(cfg: &Config, w: Window) -> Self {
        let w = Window { cwnd_clamp: CWND_CLAMP, ..w };
        Hybla { w, rtt0: SimDuration::from_ms(cfg.rtt0_ms as u64), enabled: true, rho: None, min_srtt: None, cents: 0 }
    }

    fn recalc(&mut self, srtt: SimDuration) {
        self.rho = Some(Rho::from_srtt(srtt, self.rtt0));
    }

    /// Linux: recompute rho only when SRTT reaches a new minimum.
    fn track_min_srtt(&mut self, conn: &ConnView) {
        let Some(srtt) = conn.srtt else { return };
        if self.min_srtt.is_none_or(|m| srtt < m) {
            self.recalc(srtt);
            self.min_srtt = Some(srtt);
        }
    }

    /// Add `increment` (1/128 segments) to cwnd, carrying the fraction (Linux `hybla_cong_avoid` tail).
    fn apply(&mut self, increment: u32, slow_start: bool) {
        let odd = increment % ONE_SEG;
        self.w.cwnd += increment >> INC_SHIFT;
        self.cents += odd;
        while self.cents >= ONE_SEG {
            self.w.cwnd += 1;
            self.cents -= ONE_SEG;
            self.w.cwnd_cnt = 0;
        }
        // A window so large that rho^2/cwnd rounds to 0: +1 per cwnd ACKs, as Reno.
        if increment == 0 && odd == 0 && self.w.cwnd_cnt >= self.w.cwnd {
            self.w.cwnd += 1;
            self.w.cwnd_cnt = 0;
        }
        if slow_start {
            self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
        }
        self.w.cwnd = self.w.cwnd.min(self.w.cwnd_clamp);
    }
}

impl CongestionControl for Hybla {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `hybla_init`: rho from the handshake's SRTT, and cwnd = rho.
    fn init(&mut self, conn: &ConnView) {
        self.enabled = true;
        self.cents = 0;
        if let Some(srtt) = conn.srtt {
            self.recalc(srtt);
            self.min_srtt = Some(srtt);
            let rho = self.rho.map_or(1, Rho::integer);
            self.w.set_cwnd(rho);
        }
    }

    /// Linux uses `tcp_reno_ssthresh`.
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        reno_ssthresh(&self.w, conn)
    }

    /// Linux `hybla_cong_avoid`.
    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        self.track_min_srtt(conn);
        if !conn.is_cwnd_limited {
            return;
        }
        let Some(rho) = self.rho.filter(|_| self.enabled) else {
            reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
            return;
        };
        if self.w.in_slow_start() {
            self.apply(rho.slow_start_increment(), true);
        } else {
            // Paper eq. 6: rho^2 / cwnd per ACK, in 1/128ths.
            let increment = (rho.squared_128ths / self.w.cwnd as u64).min(u32::MAX as u64) as u32;
            if increment < ONE_SEG {
                self.w.cwnd_cnt += 1;
            }
            self.apply(increment, false);
        }
    }

    /// Linux `hybla_state`.
    fn set_state(&mut self, _conn: &ConnView, new_state: CaState) {
        self.enabled = new_state == CaState::Open;
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn};
    use super::*;

    fn hybla_at(srtt_ms: u64, w: Window) -> Hybla {
        let mut h = Hybla::new(&Config::default(), w);
        h.init(&conn(0, srtt_ms));
        h
    }

    #[test]
    fn rho_is_srtt_over_rtt0_in_eighths_and_at_least_one() {
        // 100 ms / 25 ms = 4: rho_3ls = 32, rho^2 << 7 = 32 x 32 x 2 = 2048 (16 << 7).
        let r = Rho::from_srtt(SimDuration::from_ms(100), SimDuration::from_ms(25));
        assert_eq!((r.eighths, r.integer(), r.squared_128ths), (32, 4, 2048));
        // 60 ms: 8 x 60 / 25 = 19.2 -> 19: rho = 2 + 3/8.
        let r = Rho::from_srtt(SimDuration::from_ms(60), SimDuration::from_ms(25));
        assert_eq!((r.integer(), r.fraction_eighths()), (2, 3));
        // 10 ms < rtt0: rho = 1 (Reno).
        assert_eq!(Rho::from_srtt(SimDuration::from_ms(10), SimDuration::from_ms(25)).eighths, 8);
    }

    #[test]
    fn init_sets_cwnd_to_rho() {
        // As Linux hybla_init: cwnd = rho = 4 at 100 ms (replacing the initial 10).
        assert_eq!(hybla_at(100, Window::new(10)).window().cwnd, 4);
        assert_eq!(hybla_at(40, Window::new(10)).window().cwnd, 1);
    }

    #[test]
    fn slow_start_adds_two_to_the_rho_minus_one_per_ack() {
        // rho = 4: (1 << 4) x 128 - 128 = 1920 = 15 segments per ACK, no fraction.
        let mut h = hybla_at(100, Window::new(10));
        h.cong_avoid(&conn(0, 100), &ack(1, 100));
        assert_eq!(h.window().cwnd, 4 + 15);
        // rho = 2 3/8 (60 ms): 4 x 165 - 128 = 532 = 4 segments + 20/128 per ACK (2^2.375 - 1 = 4.19).
        let mut h = hybla_at(60, Window::new(10));
        h.cong_avoid(&conn(0, 60), &ack(1, 60));
        assert_eq!((h.window().cwnd, h.cents), (2 + 4, 20));
    }

    #[test]
    fn congestion_avoidance_adds_rho_squared_per_rtt() {
        // rho = 4, so rho^2 = 16 segments per RTT: at a fixed cwnd of 100 that is
        // 2048 / 100 = 20/128 per ACK, 2000/128 = 15.6 per 100 ACKs. As cwnd grows the
        // per-ACK increment falls (2048/cwnd: 20 at 100..102, 19 at 103..107, 18 at 108..113),
        // summing over 100 ACKs to 1869/128: cwnd 100 + 14 = 114, 77/128 carried.
        let mut h = hybla_at(100, Window::new(10));
        h.w = Window { ssthresh: 100, cwnd_clamp: CWND_CLAMP, ..Window::new(100) };
        for _ in 0..100 {
            h.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!((h.window().cwnd, h.cents), (114, 77));
    }

    #[test]
    fn slow_start_stops_at_ssthresh() {
        let mut h = hybla_at(100, Window::new(10));
        h.w.ssthresh = 10;
        h.cong_avoid(&conn(0, 100), &ack(1, 100));
        assert_eq!(h.window().cwnd, 10);
    }

    #[test]
    fn outside_open_it_is_reno_and_loss_halves() {
        let mut h = hybla_at(100, Window::new(10));
        h.w = Window { ssthresh: 40, cwnd_clamp: CWND_CLAMP, ..Window::new(40) };
        assert_eq!(h.ssthresh(&conn(0, 100)), 20);
        h.set_state(&conn(0, 100), CaState::Recovery);
        for _ in 0..40 {
            h.cong_avoid(&conn(0, 100), &ack(1, 100));
        }
        assert_eq!(h.window().cwnd, 41);
        h.set_state(&conn(0, 100), CaState::Open);
        h.cong_avoid(&conn(0, 100), &ack(1, 100));
        // 2048 / 41 = 49/128 per ACK.
        assert_eq!(h.cents, 49);
    }

    #[test]
    fn a_lower_srtt_recomputes_rho() {
        let mut h = hybla_at(100, Window::new(10));
        h.cong_avoid(&conn(0, 50), &ack(1, 50));
        // rho = 2: 4 x 128 - 128 = 384 = 3 per ACK.
        assert_eq!(h.rho.map(Rho::integer), Some(2));
        assert_eq!(h.window().cwnd, 4 + 3);
    }

    #[test]
    fn without_init_rho_comes_from_the_first_ack() {
        let mut h = Hybla::new(&Config::default(), Window::new(10));
        h.cong_avoid(&conn(0, 100), &ack(1, 100));
        assert_eq!(h.window().cwnd, 10 + 15);
    }

    #[test]
    fn zero_rtt0_is_rejected() {
        assert_eq!(Config { rtt0_ms: 0 }.validate().unwrap_err().field, "rtt0_ms");
    }
}
