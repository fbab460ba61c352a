//! Maximum throughput, downlink (ns-3 `FdMtFfMacScheduler`, fdmt-ff-mac-scheduler.cc;
//! lte-design.rst "Maximum Throughput (MT) Scheduler", frequency-domain form).
//!
//! Each RBG goes to the UE with the highest achievable rate on it (`rcqi = achievableRate`);
//! with wideband CQI that is the UE with the highest MCS, until its buffer is covered, then
//! the next best. Ties go to the lowest `UeIndex` (ns-3: the lowest RNTI, by map order).

use crate::lte::sap::UeIndex;

/// The MT metric: the achievable rate itself, bytes per second.
pub fn metric(_ue: UeIndex, rate_bytes_per_s: f64) -> f64 {
    rate_bytes_per_s
}
