//! BBR's two path-model filters: Linux lib/win_minmax.c (max bandwidth) and the min-RTT filter of net/ipv4/tcp_bbr.c.
//!
//! [`WindowedMax`] is Kathleen Nichols' windowed-extremum tracker as Linux
//! ports it: constant space (best, 2nd best, 3rd best), and "almost always"
//! the same answer as a filter that keeps every sample. Time is whatever the
//! caller counts in; BBR counts packet-timed round trips, so a sample taken in
//! round `r` stays eligible through round `r + window` and is forgotten after.
//!
//! [`MinRtt`] is not a win_minmax filter in Linux BBR v1 either: it holds one
//! value and the time it was set, and a sample replaces it when it is lower, or
//! when the value has been held longer than the window (`bbr_update_min_rtt`).

use crate::sim::{SimDuration, SimTime};

/// One (time, value) pair of the tracker: Linux `struct minmax_sample`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u32,
    v: u32,
}

/// Windowed running maximum (Linux `struct minmax` used with `minmax_running_max`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowedMax {
    /// Best, 2nd best and 3rd best, with `s[n].t >= s[n-1].t`.
    s: [Sample; 3],
}

impl WindowedMax {
    /// Linux `minmax_reset`: forget everything, make (t, v) all three choices.
    pub fn reset(&mut self, t: u32, v: u32) -> u32 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// Linux `minmax_get`: the windowed maximum.
    pub fn get(&self) -> u32 {
        self.s[0].v
    }

    /// Linux `minmax_running_max`: add `v` measured at `t`; window `win` in the same unit as `t`.
    pub fn update(&mut self, win: u32, t: u32, v: u32) -> u32 {
        let val = Sample { t, v };
        // A new maximum, or nothing left in the window: forget earlier samples.
        if val.v >= self.s[0].v || val.t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if val.v >= self.s[1].v {
            self.s[2] = val;
            self.s[1] = val;
        } else if val.v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwin_update(win, val)
    }

    /// Linux `minmax_subwin_update`: age the choices as time advances, keeping
    /// them spread over the window (2nd from its 2nd quarter, 3rd from its 2nd half).
    fn subwin_update(&mut self, win: u32, val: Sample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best choice expired: promote 2nd and 3rd, maybe twice.
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[2] = val;
            self.s[1] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }
}

/// Linux BBR v1 min-RTT estimate: `bbr->min_rtt_us` and `bbr->min_rtt_stamp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinRtt {
    /// Current estimate in µs; `u32::MAX` (Linux `~0U`) before any sample.
    pub min_rtt_us: u32,
    /// When the estimate was last set (or refreshed by ProbeRTT).
    pub stamp: SimTime,
}

impl MinRtt {
    /// Linux `bbr_init`: seeded from the connection's `tcp_min_rtt`, if any.
    pub fn new(initial: Option<SimDuration>, now: SimTime) -> Self {
        let min_rtt_us = initial.map_or(u32::MAX, |d| d.as_us().min(u32::MAX as u64) as u32);
        MinRtt { min_rtt_us, stamp: now }
    }

    /// Whether a valid sample has ever been taken.
    pub fn is_valid(&self) -> bool {
        self.min_rtt_us != u32::MAX
    }

    /// Linux `filter_expired`: the estimate is older than `window`.
    pub fn is_expired(&self, now: SimTime, window: SimDuration) -> bool {
        now > self.stamp + window
    }

    /// First half of Linux `bbr_update_min_rtt`: take `rtt_us` if it is lower,
    /// or if the filter had expired (`expired` is computed before the update,
    /// as Linux does, so the caller can also use it to enter ProbeRTT).
    pub fn update(&mut self, rtt_us: Option<u32>, expired: bool, now: SimTime) {
        if let Some(rtt_us) = rtt_us {
            if rtt_us < self.min_rtt_us || expired {
                self.min_rtt_us = rtt_us;
                self.stamp = now;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BBR's window: `bbr_bw_rtts = CYCLE_LEN + 2` = 10 rounds.
    const WIN: u32 = 10;

    #[test]
    fn a_higher_sample_replaces_the_max_at_once() {
        let mut m = WindowedMax::default();
        m.update(WIN, 0, 100);
        assert_eq!(m.update(WIN, 1, 300), 300);
    }

    #[test]
    fn the_max_is_held_for_ten_rounds_and_forgotten_in_the_eleventh() {
        let mut m = WindowedMax::default();
        m.update(WIN, 0, 100);
        // Rounds 1..=10: dt = r - 0 <= 10, so 100 is still the max.
        for r in 1..=WIN {
            assert_eq!(m.update(WIN, r, 50), 100, "round {r}");
        }
        // Round 11: dt = 11 > 10, the 100 expires; the later 50s remain.
        assert_eq!(m.update(WIN, 11, 50), 50);
    }

    #[test]
    fn after_the_max_expires_the_best_later_sample_takes_over() {
        let mut m = WindowedMax::default();
        m.update(WIN, 0, 100);
        // Round 3 (> win/4 = 2 rounds after the max): 80 becomes the 2nd choice.
        m.update(WIN, 3, 80);
        // Round 6 (> win/2 = 5): 60 becomes the 3rd choice.
        m.update(WIN, 6, 60);
        assert_eq!(m.update(WIN, 10, 10), 100);
        // Round 11: 100 (round 0) expired; 80 (round 3) is within the window.
        assert_eq!(m.update(WIN, 11, 10), 80);
        // Round 14: 80 (round 3) expired; 60 (round 6) remains.
        assert_eq!(m.update(WIN, 14, 10), 60);
    }

    #[test]
    fn a_gap_longer_than_the_window_resets() {
        let mut m = WindowedMax::default();
        m.update(WIN, 0, 100);
        assert_eq!(m.update(WIN, 25, 7), 7);
    }

    #[test]
    fn min_rtt_takes_lower_samples_and_any_sample_once_expired() {
        let win = SimDuration::from_secs(10);
        let mut f = MinRtt::new(None, SimTime::ZERO);
        assert!(!f.is_valid());
        f.update(Some(40_000), false, SimTime::ZERO);
        f.update(Some(50_000), false, SimTime(1));
        assert_eq!(f.min_rtt_us, 40_000);
        let later = SimTime::ZERO + SimDuration::from_secs(11);
        assert!(f.is_expired(later, win));
        f.update(Some(50_000), true, later);
        assert_eq!((f.min_rtt_us, f.stamp), (50_000, later));
    }
}
