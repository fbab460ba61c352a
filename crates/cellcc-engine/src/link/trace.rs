//! Mahimahi trace-driven service (Netravali et al., "Mahimahi", USENIX ATC 2015;
//! mahimahi/src/packet/link_queue.cc).
//!
//! A trace lists, one per line, the millisecond at which one MTU-sized
//! delivery opportunity occurs; a repeated time means several. When the trace
//! ends it repeats, shifted by its last timestamp. Opportunity `k` of the
//! infinite schedule happens at `ms[k % n] + (k / n) * period_ms`.

use crate::sim::{SimTime, NS_PER_MS};

/// A parsed, looping delivery schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceSchedule {
    /// Opportunity times within one period, ms, non-decreasing.
    ms: Vec<u64>,
    /// Loop period: the trace's last timestamp (Mahimahi); at least 1 ms.
    period_ms: u64,
}

impl TraceSchedule {
    /// Parse Mahimahi's text format. Errors say which line is wrong.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut ms = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let t: u64 =
                line.parse().map_err(|_| format!("line {}: {line:?} is not a whole number of milliseconds", i + 1))?;
            if ms.last().is_some_and(|&prev| t < prev) {
                return Err(format!("line {}: {t} ms is earlier than the line before; times must not decrease", i + 1));
            }
            ms.push(t);
        }
        let period_ms = *ms.last().ok_or_else(|| "the trace has no delivery opportunities".to_string())?;
        Ok(TraceSchedule { ms, period_ms: period_ms.max(1) })
    }

    /// Time of opportunity `k`.
    pub fn time_of(&self, k: u64) -> SimTime {
        let n = self.ms.len() as u64;
        SimTime((self.ms[(k % n) as usize] + (k / n) * self.period_ms) * NS_PER_MS)
    }

    /// Index of the first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: SimTime) -> u64 {
        let n = self.ms.len() as u64;
        let t_ms = t.as_ns().div_ceil(NS_PER_MS);
        let lap = t_ms / self.period_ms;
        let within = t_ms - lap * self.period_ms;
        let mut k = lap * n + self.ms.partition_point(|&m| m < within) as u64;
        // The period equals the last timestamp, so a lap boundary also belongs
        // to the previous lap's last entries: settle on the earliest valid k.
        while k > 0 && self.time_of(k - 1) >= t {
            k -= 1;
        }
        while self.time_of(k) < t {
            k += 1;
        }
        k
    }

    /// Opportunities in one period.
    pub fn per_period(&self) -> u64 {
        self.ms.len() as u64
    }

    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }

    /// Mean capacity of the trace for `mtu_bytes` packets, bit/s.
    pub fn mean_rate_bps(&self, mtu_bytes: u32) -> f64 {
        self.per_period() as f64 * mtu_bytes as f64 * 8.0 / (self.period_ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_lines_are_several_opportunities_and_the_trace_loops() {
        let t = TraceSchedule::parse("1\n1\n3\n").unwrap();
        assert_eq!(t.per_period(), 3);
        let times: Vec<u64> = (0..6).map(|k| t.time_of(k).as_ns() / NS_PER_MS).collect();
        assert_eq!(times, vec![1, 1, 3, 4, 4, 6]);
    }

    #[test]
    fn first_opportunity_at_or_after_a_time() {
        let t = TraceSchedule::parse("1\n1\n3\n").unwrap();
        assert_eq!(t.first_at_or_after(SimTime(0)), 0);
        assert_eq!(t.first_at_or_after(SimTime(NS_PER_MS + 1)), 2);
        assert_eq!(t.first_at_or_after(SimTime(3 * NS_PER_MS)), 2);
        assert_eq!(t.first_at_or_after(SimTime(3 * NS_PER_MS + 1)), 3);
        assert_eq!(t.first_at_or_after(SimTime(5 * NS_PER_MS)), 5);
    }

    #[test]
    fn bad_lines_are_named() {
        assert!(TraceSchedule::parse("1\nx\n").unwrap_err().contains("line 2"));
        assert!(TraceSchedule::parse("5\n3\n").unwrap_err().contains("line 2"));
        assert!(TraceSchedule::parse("").is_err());
    }
}
