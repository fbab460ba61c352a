//! Applications at a flow's source: what data they offer and when.
//! Bulk (ns-3 `BulkSendApplication`), finite transfer, rate-limited TCP writer
//! (seed 000's 1 Mbit/s sources) and UDP constant bit rate (ns-3 `UdpClient`).

use crate::scenario::AppSpec;
use crate::sim::SimDuration;
use crate::tcp::AppSupply;

/// A flow's application, resolved from its spec.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum App {
    Bulk,
    Finite {
        bytes: u64,
    },
    /// Writes `write_bytes` every `interval`.
    RateLimited {
        write_bytes: u32,
        interval: SimDuration,
    },
    /// One `payload_bytes` datagram every `interval`.
    Cbr {
        payload_bytes: u32,
        interval: SimDuration,
    },
}

/// Interval between writes of `bytes` at `rate_mbps`.
fn write_interval(bytes: u32, rate_mbps: f64) -> SimDuration {
    SimDuration::transmission(bytes as u64, (rate_mbps * 1e6).round().max(1.0) as u64)
}

impl App {
    /// `tcp_write_bytes` is the default write size of a rate-limited TCP source (one MSS).
    pub fn from_spec(spec: &AppSpec, tcp_write_bytes: u32) -> App {
        match *spec {
            AppSpec::Bulk => App::Bulk,
            AppSpec::Finite { bytes } => App::Finite { bytes },
            AppSpec::RateLimited { rate_mbps, write_bytes } => {
                let w = write_bytes.unwrap_or(tcp_write_bytes);
                App::RateLimited { write_bytes: w, interval: write_interval(w, rate_mbps) }
            }
            AppSpec::Cbr { rate_mbps, packet_bytes } => {
                App::Cbr { payload_bytes: packet_bytes, interval: write_interval(packet_bytes, rate_mbps) }
            }
        }
    }

    /// What a TCP sender starts with.
    pub fn initial_supply(&self) -> AppSupply {
        match *self {
            App::Bulk => AppSupply::Unlimited,
            App::Finite { bytes } => AppSupply::Closed { total: bytes },
            App::RateLimited { .. } | App::Cbr { .. } => AppSupply::Open { written: 0 },
        }
    }

    /// Period of the app's own tick, if it has one.
    pub fn tick(&self) -> Option<(SimDuration, u32)> {
        match *self {
            App::RateLimited { write_bytes, interval } => Some((interval, write_bytes)),
            App::Cbr { payload_bytes, interval } => Some((interval, payload_bytes)),
            App::Bulk | App::Finite { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mbps_of_1000_byte_writes_is_one_every_8_ms() {
        let a = App::from_spec(&AppSpec::RateLimited { rate_mbps: 1.0, write_bytes: Some(1000) }, 1448);
        assert_eq!(a.tick(), Some((SimDuration::from_ms(8), 1000)));
    }
}
