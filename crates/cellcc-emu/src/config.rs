//! The emulator's configuration, a small JSON document (the Python backend writes it):
//!
//! ```json
//! { "tun": ["ccA", "ccB"], "seed": 1, "mtu_bytes": 1500,
//!   "forward": { "delay_ms": 20, "rate_mbps": 10, "queue": { "limit_packets": 100 }, "loss_p": 0 },
//!   "reverse": { "delay_ms": 20, "trace": "Verizon-LTE-short.up", "queue": null },
//!   "stats_path": "queues.csv", "stats_interval_ms": 100, "summary_path": "summary.json" }
//! ```
//! `forward` carries packets read from `tun[0]` to `tun[1]`; `reverse` the other way.
//! A missing or null `queue` is unlimited. Every error names the field.

use crate::direction::{BernoulliLoss, Direction};
use crate::link::{RateServer, Server, TraceServer};
use crate::queue::{DropTail, QueueLimit};
use crate::{trace, NS_PER_MS};
use serde::Deserialize;
use std::path::PathBuf;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueConfig {
    pub limit_packets: Option<u64>,
    pub limit_bytes: Option<u64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectionConfig {
    #[serde(default)]
    pub delay_ms: f64,
    pub rate_mbps: Option<f64>,
    pub trace: Option<PathBuf>,
    #[serde(default)]
    pub queue: Option<QueueConfig>,
    #[serde(default)]
    pub loss_p: f64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// TUN device names: [ingress of forward, ingress of reverse].
    pub tun: [String; 2],
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Bytes per trace delivery opportunity (Mahimahi: one MTU-sized packet).
    #[serde(default = "default_mtu")]
    pub mtu_bytes: u64,
    pub forward: DirectionConfig,
    pub reverse: DirectionConfig,
    /// CSV of per-interval records: `direction,t_ns,bytes,packets,max_bytes,drops` (backlog now, its
    /// maximum and the drops since the previous record) and `delivered_bytes,delivered_packets,
    /// delay_sum_ns` (cumulative, of packets written to the egress device).
    pub stats_path: Option<PathBuf>,
    #[serde(default = "default_interval_ms")]
    pub stats_interval_ms: f64,
    /// JSON of run totals per direction, written at exit.
    pub summary_path: Option<PathBuf>,
    /// CSV of every link departure: `direction,t_ns,bytes` (for tests of the trace schedule).
    pub departures_path: Option<PathBuf>,
    /// CLOCK_MONOTONIC ns of trace time zero: the scenario's t = 0, so a trace link gives the
    /// flows the capacity the engine gives them at the same scenario time. Default: when the
    /// emulator starts (Mahimahi: link creation).
    #[serde(default)]
    pub trace_start_ns: Option<u64>,
    /// Busy-wait this close to a deadline instead of sleeping (timer accuracy vs CPU).
    #[serde(default = "default_spin_us")]
    pub spin_us: u64,
}

fn default_seed() -> u64 {
    1
}
/// Ethernet MTU (RFC 894).
fn default_mtu() -> u64 {
    1500
}
/// cellcc's default time-series slot (the seeds use 100 ms).
fn default_interval_ms() -> f64 {
    100.0
}
/// Measured on the dev VM: ppoll with 1 ns timer slack wakes 5-60 us late (docs/crosscheck.md).
fn default_spin_us() -> u64 {
    50
}

/// A configuration mistake: the field path and what is wrong with it.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn bad(path: &str, value: impl std::fmt::Display, allowed: &str) -> ConfigError {
    ConfigError(format!("{path} = {value}: expected {allowed}"))
}

impl Config {
    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let c: Config = serde_json::from_str(text).map_err(|e| ConfigError(format!("config: {e}")))?;
        if !(c.stats_interval_ms.is_finite() && c.stats_interval_ms > 0.0) {
            return Err(bad("stats_interval_ms", c.stats_interval_ms, "a number > 0"));
        }
        if c.mtu_bytes == 0 {
            return Err(bad("mtu_bytes", 0, "bytes >= 1"));
        }
        Ok(c)
    }

    /// Build both directions; the trace clock starts at `start_ns`.
    pub fn build(&self, start_ns: u64) -> Result<[Direction; 2], ConfigError> {
        Ok([
            self.forward.build("forward", self.seed, 0, self.mtu_bytes, start_ns)?,
            self.reverse.build("reverse", self.seed, 1, self.mtu_bytes, start_ns)?,
        ])
    }
}

impl DirectionConfig {
    fn build(&self, name: &str, seed: u64, stream: u64, mtu: u64, start_ns: u64) -> Result<Direction, ConfigError> {
        let p = |f: &str| format!("{name}.{f}");
        if !(self.delay_ms.is_finite() && self.delay_ms >= 0.0) {
            return Err(bad(&p("delay_ms"), self.delay_ms, "ms >= 0"));
        }
        if !(0.0..=1.0).contains(&self.loss_p) {
            return Err(bad(&p("loss_p"), self.loss_p, "a probability in [0, 1]"));
        }
        let server = match (self.rate_mbps, &self.trace) {
            (Some(r), None) if r.is_finite() && r > 0.0 => Server::Rate(RateServer::new((r * 1e6).round() as u64)),
            (Some(r), None) => return Err(bad(&p("rate_mbps"), r, "Mbit/s > 0")),
            (None, Some(path)) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| bad(&p("trace"), path.display(), &format!("a readable file ({e})")))?;
                let schedule = trace::parse(&text)
                    .map_err(|e| bad(&p("trace"), path.display(), &format!("a Mahimahi trace ({e})")))?;
                Server::Trace(TraceServer::new(schedule, mtu, start_ns))
            }
            _ => return Err(bad(&p("rate_mbps"), "", "exactly one of rate_mbps or trace")),
        };
        let limit = match &self.queue {
            None => QueueLimit::Unlimited,
            Some(QueueConfig { limit_packets: Some(n), limit_bytes: None }) if *n > 0 => QueueLimit::Packets(*n),
            Some(QueueConfig { limit_packets: None, limit_bytes: Some(b) }) if *b > 0 => QueueLimit::Bytes(*b),
            Some(_) => return Err(bad(&p("queue"), "", "exactly one of limit_packets or limit_bytes, >= 1")),
        };
        let delay_ns = (self.delay_ms * NS_PER_MS as f64).round() as u64;
        Ok(Direction::new(DropTail::new(limit), server, BernoulliLoss::new(self.loss_p, seed, stream), delay_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_field() {
        let text = r#"{"tun":["a","b"],"forward":{"rate_mbps":10,"loss_p":2},"reverse":{"rate_mbps":10}}"#;
        let e = Config::from_json(text).unwrap().build(0).unwrap_err();
        assert!(e.0.starts_with("forward.loss_p"), "{e}");
        let text = r#"{"tun":["a","b"],"forward":{"rate_mbps":10},"reverse":{}}"#;
        let e = Config::from_json(text).unwrap().build(0).unwrap_err();
        assert!(e.0.starts_with("reverse.rate_mbps"), "{e}");
    }

    #[test]
    fn trace_time_zero_is_the_configured_instant() {
        let text = r#"{"tun":["a","b"],"forward":{"rate_mbps":10},"reverse":{"rate_mbps":1},"trace_start_ns":5}"#;
        assert_eq!(Config::from_json(text).unwrap().trace_start_ns, Some(5));
        let text = r#"{"tun":["a","b"],"forward":{"rate_mbps":10},"reverse":{"rate_mbps":1}}"#;
        assert_eq!(Config::from_json(text).unwrap().trace_start_ns, None);
    }

    #[test]
    fn unknown_fields_are_refused() {
        let text = r#"{"tun":["a","b"],"forward":{"rate_mbps":10,"jitter":1},"reverse":{"rate_mbps":1}}"#;
        assert!(Config::from_json(text).is_err());
    }
}
