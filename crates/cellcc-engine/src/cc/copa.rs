//! Copa: Arun & Balakrishnan, "Copa: Practical Delay-Based Congestion Control for the Internet", NSDI 2018 (§2, default mode); mvfst `quic/congestion_control/Copa.cpp` for the details the paper leaves open.
//!
//! Copa targets a sending rate of 1/(δ·dq) packets per second, dq being the
//! queuing delay, which holds about 1/δ packets of its own in the queue:
//!
//! ```text
//!   RTTstanding = min RTT over the last srtt/2        RTTmin = min RTT over 10 s
//!   dq = RTTstanding - RTTmin,  λt = 1/(δ dq),  λ = cwnd/RTTstanding
//!   per ACK: cwnd ± v/(δ cwnd) segments per ACKed segment (+ if λ <= λt)
//!   velocity v: 1, doubling each RTT once cwnd moved the same way for 3 RTTs
//!   pacing: 2 cwnd / RTTstanding
//! ```
//!
//! It starts in slow start (cwnd doubles once per RTT while λ <= λt) and
//! leaves it at the first decrease. Copa reacts to delay only: a loss does not
//! cut cwnd, so it runs as `cong_control` (owning cwnd in recovery as well).
//!
//! What differs from the paper / mvfst:
//! - Default mode only (δ fixed, 0.5); no switch to the competitive mode.
//! - Both RTT filters are exact windowed minima over time (mvfst: Kathleen
//!   Nichols' approximate filter), dq uses RTTstanding as the paper (mvfst's
//!   default uses the latest RTT), velocity threshold 3 RTTs (paper).
//! - cwnd counts payload bytes of the MSS (mvfst: UDP packet size); the floor
//!   is 2 segments (mvfst `kMinCwndInMss`). After an RTO the sender restarts
//!   cwnd at 1 (mvfst: min cwnd on persistent congestion).

use super::ParamError;
use super::{AckSample, CongestionControl, ConnView, Window};
use crate::sim::{SimDuration, SimTime};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Copa §2: the min-RTT window, 10 s (mvfst `kMinRTTWindowLength`).
const MIN_RTT_WINDOW: SimDuration = SimDuration::from_secs(10);
/// Copa §2.1: velocity doubles after the direction held for this many RTTs.
const VELOCITY_DIRECTION_THRESHOLD: u32 = 3;
/// mvfst `kMinCwndInMss`: cwnd floor, segments.
const MIN_CWND_SEGS: u64 = 2;
/// Copa §2.1: pacing at 2 cwnd / RTTstanding.
const PACING_CWND_MULT: u64 = 2;

/// Copa parameters (default mode).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// δ: the target rate is 1/(δ dq); smaller is more aggressive. Default 0.5 (Copa §2, default mode).
    pub delta: f64,
    /// Standing-RTT window as a fraction of SRTT, in percent. Default 50 (τ = srtt/2, Copa §2.1).
    pub standing_window_pct: u32,
}

impl Config {
    /// δ must be a positive number (the target rate is 1/(δ dq)).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(
            self.standing_window_pct >= 1,
            "standing_window_pct",
            self.standing_window_pct,
            "an integer >= 1",
        )?;
        ParamError::check(self.delta > 0.0 && self.delta.is_finite(), "delta", self.delta, "a number > 0")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config { delta: 0.5, standing_window_pct: 50 }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "copa",
    family: super::Family::Delay,
    source: "Arun & Balakrishnan, NSDI 2018 (default mode); mvfst Copa.cpp",
    summary: "Targets rate 1/(delta x queuing delay): about 1/delta packets queued; velocity-scaled AIMD on delay.",
    description: "Copa targets a sending rate of 1/(delta x dq) packets per second, dq being the queuing delay (the \
        minimum RTT over the last SRTT/2 minus the minimum over 10 s), which keeps about 1/delta = 2 packets \
        of its own queued. On each ACK cwnd moves by v/(delta x cwnd) segments per ACKed segment, up while \
        the rate cwnd/RTTstanding is at or below target and down otherwise; the velocity v doubles each RTT \
        once cwnd has moved the same way for 3 RTTs. It paces at 2 cwnd / RTTstanding, starts by doubling \
        once per RTT, and does not cut cwnd on loss (default mode only, no competitive mode).",
    params: &[
        ("delta", "delta, target rate 1/(delta dq); default 0.5 (Copa default mode)"),
        ("standing_window_pct", "RTTstanding window, % of SRTT; default 50 (srtt/2)"),
    ],
};

/// An exact windowed minimum over time: a deque of increasing values.
#[derive(Clone, Debug, Default)]
struct WindowedMin {
    samples: VecDeque<(SimTime, SimDuration)>,
}

impl WindowedMin {
    fn update(&mut self, now: SimTime, v: SimDuration, window: SimDuration) {
        while self.samples.back().is_some_and(|(_, b)| *b >= v) {
            self.samples.pop_back();
        }
        self.samples.push_back((now, v));
        while self.samples.front().is_some_and(|(t, _)| now.saturating_since(*t) > window) {
            self.samples.pop_front();
        }
    }

    fn get(&self) -> Option<SimDuration> {
        self.samples.front().map(|(_, v)| *v)
    }
}

/// Copa §2.1 velocity direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

/// mvfst `VelocityState`.
#[derive(Clone, Copy, Debug)]
struct Velocity {
    v: u64,
    /// None until the first once-per-RTT check (mvfst `Direction::None`).
    direction: Option<Direction>,
    same_count: u32,
    /// cwnd (bytes) and time when the direction was last evaluated.
    last_record: Option<(SimTime, u64)>,
}

pub struct Copa {
    cfg: Config,
    w: Window,
    /// cwnd in bytes (the paper's fractional window, in bytes as mvfst).
    cwnd_bytes: u64,
    mss: u64,
    slow_start: bool,
    last_double: Option<SimTime>,
    min_rtt: WindowedMin,
    standing: WindowedMin,
    velocity: Velocity,
    pacing_rate_bps: Option<u64>,
}

impl Copa {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Copa {
            cfg: cfg.clone(),
            w,
            cwnd_bytes: 0,
            mss: 0,
            slow_start: true,
            last_double: None,
            min_rtt: WindowedMin::default(),
            standing: WindowedMin::default(),
            velocity: Velocity { v: 1, direction: None, same_count: 0, last_record: None },
            pacing_rate_bps: None,
        }
    }

    /// Follow cwnd changes made by the sender (initial window, RTO).
    fn sync(&mut self, conn: &ConnView) {
        self.mss = conn.mss_bytes as u64;
        if self.cwnd_bytes / self.mss != self.w.cwnd as u64 {
            self.cwnd_bytes = self.w.cwnd as u64 * self.mss;
        }
    }

    /// mvfst `checkAndUpdateDirection` (Copa §2.1): once per SRTT compare cwnd with its value a window ago.
    fn update_direction(&mut self, now: SimTime, srtt: SimDuration) {
        let vs = &mut self.velocity;
        let Some((at, cwnd_then)) = vs.last_record else {
            vs.last_record = Some((now, self.cwnd_bytes));
            return;
        };
        if now.saturating_since(at) < srtt {
            return;
        }
        let dir = if self.cwnd_bytes > cwnd_then { Direction::Up } else { Direction::Down };
        if Some(dir) != vs.direction {
            vs.v = 1;
            vs.same_count = 0;
        } else {
            vs.same_count += 1;
            if vs.same_count >= VELOCITY_DIRECTION_THRESHOLD {
                vs.v *= 2;
            }
        }
        vs.direction = Some(dir);
        vs.last_record = Some((now, self.cwnd_bytes));
    }

    /// mvfst `changeDirection`: a high velocity meant for the other direction is reset at once.
    fn change_direction(&mut self, dir: Direction, now: SimTime) {
        let vs = &mut self.velocity;
        if vs.direction != Some(dir) && vs.v > 1 {
            *vs = Velocity { v: 1, direction: Some(dir), same_count: 0, last_record: Some((now, self.cwnd_bytes)) };
        }
    }

    /// cwnd change for `acked` segments at velocity v: acked x mss^2 x v / (δ cwnd) bytes (Copa §2.1).
    fn step_bytes(&self, acked: u32) -> u64 {
        let num = acked as f64 * (self.mss * self.mss) as f64 * self.velocity.v as f64;
        (num / (self.cfg.delta * self.cwnd_bytes.max(1) as f64)) as u64
    }

    /// Copa §2.1: should cwnd grow? λ = cwnd/RTTstanding against λt = 1/(δ dq).
    fn below_target(&self, standing: SimDuration, min_rtt: SimDuration) -> bool {
        let dq = standing - min_rtt;
        if dq == SimDuration::ZERO {
            return true;
        }
        let target_pkts_per_s = 1.0 / (self.cfg.delta * dq.as_secs_f64());
        let current_pkts_per_s = self.cwnd_bytes as f64 / self.mss as f64 / standing.as_secs_f64();
        target_pkts_per_s >= current_pkts_per_s
    }

    /// One ACK of Copa §2.1 (mvfst `onPacketAcked`).
    fn on_ack(&mut self, conn: &ConnView, rtt: SimDuration, acked: u32) {
        let now = conn.now;
        let srtt = conn.srtt.unwrap_or(rtt);
        self.min_rtt.update(now, rtt, MIN_RTT_WINDOW);
        let standing_window = srtt.mul_f64(self.cfg.standing_window_pct as f64 / 100.0);
        self.standing.update(now, rtt, standing_window);
        let (Some(min_rtt), Some(standing)) = (self.min_rtt.get(), self.standing.get()) else { return };
        if standing < min_rtt || standing == SimDuration::ZERO {
            return;
        }
        let increase = self.below_target(standing, min_rtt);
        if !(increase && self.slow_start) {
            self.update_direction(now, srtt);
        }
        if increase {
            if self.slow_start {
                // Slow start: double once per RTT while below the target rate.
                match self.last_double {
                    None => self.last_double = Some(now),
                    Some(t) if now.saturating_since(t) > srtt => {
                        self.cwnd_bytes *= 2;
                        self.last_double = Some(now);
                    }
                    Some(_) => {}
                }
            } else {
                self.change_direction(Direction::Up, now);
                self.cwnd_bytes += self.step_bytes(acked);
            }
        } else {
            self.change_direction(Direction::Down, now);
            self.slow_start = false;
            let floor = MIN_CWND_SEGS * self.mss;
            self.cwnd_bytes = self.cwnd_bytes.saturating_sub(self.step_bytes(acked)).max(floor);
        }
        self.w.set_cwnd((self.cwnd_bytes / self.mss).min(u32::MAX as u64) as u32);
        let rate = PACING_CWND_MULT as f64 * self.cwnd_bytes as f64 * 8.0 / standing.as_secs_f64();
        self.pacing_rate_bps = Some(rate as u64);
    }
}

impl CongestionControl for Copa {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Copa does not react to loss (mvfst `onPacketLoss`): ssthresh is left as it is.
    fn ssthresh(&mut self, _conn: &ConnView) -> u32 {
        self.w.ssthresh
    }

    /// Copa sets cwnd in `cong_control`.
    fn cong_avoid(&mut self, _conn: &ConnView, _ack: &AckSample) {}

    fn cong_control(&mut self, conn: &ConnView, ack: &AckSample) -> bool {
        self.sync(conn);
        if let (Some(rtt), true) = (ack.rtt, ack.acked_segs > 0) {
            self.on_ack(conn, rtt, ack.acked_segs);
        }
        true
    }

    fn owns_recovery(&self) -> bool {
        true
    }

    fn pacing_rate_bps(&self) -> Option<u64> {
        self.pacing_rate_bps
    }

    fn mode(&self) -> &'static str {
        if self.slow_start {
            "SlowStart"
        } else {
            "Default"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn, MSS};
    use super::*;

    /// A Copa out of slow start at `cwnd` segments, min RTT 40 ms seen at t = 0.
    fn copa(cwnd: u32) -> (Copa, ConnView) {
        let mut c = Copa::new(&Config::default(), Window::new(cwnd));
        let v = conn(0, 40);
        c.cong_control(&v, &ack(1, 40));
        c.slow_start = false;
        c.cwnd_bytes = cwnd as u64 * MSS as u64;
        c.w.cwnd = cwnd;
        (c, v)
    }

    /// One ACK at `t_ms` with RTT `rtt_ms`; SRTT 40 ms so RTTstanding spans 20 ms.
    fn ack_at(c: &mut Copa, t_ms: u64, rtt_ms: u64) {
        c.cong_control(&conn(t_ms, 40), &ack(1, rtt_ms));
    }

    #[test]
    fn above_the_target_rate_cwnd_shrinks_by_v_over_delta_cwnd() {
        let (mut c, _) = copa(20);
        // dq = 50 - 40 = 10 ms: λt = 1/(0.5 x 0.010) = 200 pkt/s; λ = 20/0.050 = 400 > λt: decrease.
        // Step = 1 x 1448^2 x 1 / (0.5 x 20 x 1448) = 144 bytes (0.1 segment).
        ack_at(&mut c, 1000, 50);
        assert_eq!(c.cwnd_bytes, 20 * 1448 - 144);
        assert_eq!(c.w.cwnd, 19);
    }

    #[test]
    fn below_the_target_rate_cwnd_grows() {
        let (mut c, _) = copa(8);
        // λ = 8/0.050 = 160 <= 200: increase by 1448 / (0.5 x 8) = 362 bytes.
        ack_at(&mut c, 1000, 50);
        assert_eq!(c.cwnd_bytes, 8 * 1448 + 362);
    }

    #[test]
    fn equilibrium_holds_about_one_over_delta_packets_queued() {
        // Fixed 10 ms of queue above 40 ms: the window settles at λt x RTTstanding = 200 x 0.05 = 10
        // packets: 8 per 40 ms of path plus 1/δ = 2 in the queue.
        let (mut c, _) = copa(30);
        for i in 0..3000 {
            ack_at(&mut c, 1000 + i, 50);
        }
        let cwnd = c.cwnd_bytes as f64 / 1448.0;
        assert!((cwnd - 10.0).abs() < 1.0, "cwnd {cwnd}");
    }

    #[test]
    fn standing_rtt_is_the_min_over_half_an_srtt() {
        let (mut c, _) = copa(10);
        ack_at(&mut c, 1000, 45);
        ack_at(&mut c, 1010, 60);
        assert_eq!(c.standing.get(), Some(SimDuration::from_ms(45)));
        // 25 ms later (> srtt/2 = 20 ms) the 45 ms sample has left the window.
        ack_at(&mut c, 1035, 60);
        assert_eq!(c.standing.get(), Some(SimDuration::from_ms(60)));
        assert_eq!(c.min_rtt.get(), Some(SimDuration::from_ms(40)));
    }

    #[test]
    fn velocity_doubles_after_three_rtts_in_one_direction() {
        let (mut c, _) = copa(4);
        // No queue (RTT = min): always below target, cwnd grows every ACK.
        let mut t = 1000;
        let mut velocities = vec![];
        for _ in 0..6 {
            for _ in 0..41 {
                ack_at(&mut c, t, 40);
                t += 1;
            }
            velocities.push(c.velocity.v);
        }
        // One direction check per SRTT (40 ms): the first sets Up, then Up again 1, 2, 3 times: v doubles from the 3rd.
        assert_eq!(velocities, vec![1, 1, 1, 2, 4, 8]);
    }

    #[test]
    fn slow_start_doubles_per_rtt_and_ends_at_the_first_decrease() {
        let mut c = Copa::new(&Config::default(), Window::new(10));
        ack_at(&mut c, 0, 40);
        ack_at(&mut c, 41, 40);
        assert_eq!(c.w.cwnd, 20, "doubled after one SRTT");
        assert!(c.slow_start);
        // 20 ms of queue: λ = 20/0.06 = 333 > λt = 100: decrease, slow start over.
        // At 65 ms the 40 ms sample of t = 41 ms is older than srtt/2: RTTstanding = 60 ms.
        ack_at(&mut c, 60, 60);
        ack_at(&mut c, 65, 60);
        assert!(!c.slow_start);
        assert!(c.w.cwnd < 20);
    }

    #[test]
    fn pacing_is_twice_cwnd_per_standing_rtt() {
        let (mut c, _) = copa(20);
        ack_at(&mut c, 1000, 50);
        // 2 x (28960 - 144) B x 8 / 0.050 s.
        assert_eq!(c.pacing_rate_bps(), Some((2.0 * 28816.0 * 8.0 / 0.050) as u64));
    }
}
