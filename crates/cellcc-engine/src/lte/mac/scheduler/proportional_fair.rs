//! Proportional fair, downlink metric and the averaged throughput (ns-3 `PfFfMacScheduler`,
//! pf-ff-mac-scheduler.cc; lte-design.rst "Proportional Fair (PF) Scheduler").
//!
//! Each RBG goes to the UE maximizing `achievable rate / average throughput`, the average
//! taken before this TTI; after the TTI every UE's average moves towards what it got:
//! `avg ← (1 − 1/τ)·avg + (1/τ)·bytes_this_tti / 1 ms`, τ = 99 TTIs (`m_timeWindow`),
//! starting from 1 byte/s (ns-3 `lastAveragedThroughput = 1`). With wideband CQI the metric
//! is the same on every RBG, so a TTI serves the best-metric UE first (time-domain PF), and
//! over time each of n saturated UEs gets 1/n of the TTIs: its average ≈ its own rate / n.
//! With sub-band CQI (`UeDemand::rbg_mcs`) the rate, and so the metric, is per RBG: several UEs
//! share a TTI, each on the RBGs where it fares best relative to its average.
//! The averages are kept in the uplink too (ns-3 updates `m_flowStatsUl` the same way).

use super::{NewTb, BITS_PER_BYTE, TTI_S};
use crate::lte::sap::UeIndex;

/// ns-3 `PfFfMacScheduler::m_timeWindow` = 99 (TTIs), set in its constructor.
pub const DEFAULT_TIME_WINDOW_TTIS: f64 = 99.0;
/// ns-3's starting average throughput, bytes/s (non-zero so the first metric is finite).
pub const INITIAL_AVERAGE_BYTES_PER_S: f64 = 1.0;

/// The per-UE columns of the PF averages: a network lends one set per direction to the cell
/// that runs (a UE not attached to a cell has its column entries as they started: its average
/// restarts when it leaves and when it joins, and nothing is served to it).
#[derive(Debug, Default)]
pub struct PfColumns {
    average_bytes_per_s: Vec<f64>,
    served_bytes: Vec<u64>,
}

impl PfColumns {
    pub fn new(n_ues: usize) -> Self {
        PfColumns { average_bytes_per_s: vec![INITIAL_AVERAGE_BYTES_PER_S; n_ues], served_bytes: vec![0; n_ues] }
    }
}

/// Per-UE exponentially averaged throughput.
#[derive(Debug, Default)]
pub(super) struct PfAverages {
    columns: PfColumns,
    window_ttis: f64,
    /// The UEs whose averages move: every one (a lone cell), or those attached (a network
    /// cell's indices are the whole network's; the others' averages restart when they join).
    members: Option<Vec<u32>>,
}

impl PfAverages {
    pub(super) fn new(n_ues: usize) -> Self {
        PfAverages { columns: PfColumns::new(n_ues), window_ttis: DEFAULT_TIME_WINDOW_TTIS, members: None }
    }

    /// Exchange the per-UE columns with `columns`.
    pub(super) fn swap_columns(&mut self, columns: &mut PfColumns) {
        std::mem::swap(&mut self.columns, columns);
    }

    /// Only the UEs `members` (and those who join later) keep averages.
    pub(super) fn keep_members(&mut self, members: &[usize]) {
        self.members = Some(members.iter().map(|&i| i as u32).collect());
    }

    /// UE `ue` joins: its average starts afresh.
    pub(super) fn join(&mut self, ue: UeIndex) {
        self.reset(ue);
        if let Some(m) = &mut self.members {
            m.push(ue.0.into());
        }
    }

    pub(super) fn leave(&mut self, ue: UeIndex) {
        if let Some(m) = &mut self.members {
            m.retain(|&i| i != u32::from(ue.0));
        }
    }

    pub(super) fn set_time_window_ttis(&mut self, ttis: f64) {
        assert!(ttis >= 1.0, "PF time window {ttis} TTIs below 1");
        self.window_ttis = ttis;
    }

    pub(super) fn average(&self, ue: UeIndex) -> f64 {
        self.columns.average_bytes_per_s[ue.index()]
    }

    pub(super) fn reset(&mut self, ue: UeIndex) {
        self.columns.average_bytes_per_s[ue.index()] = INITIAL_AVERAGE_BYTES_PER_S;
    }

    /// ns-3's `rcqi = achievableRate / lastAveragedThroughput`.
    pub(super) fn metric(&self, ue: UeIndex, rate_bytes_per_s: f64) -> f64 {
        rate_bytes_per_s / self.columns.average_bytes_per_s[ue.index()]
    }

    /// End of TTI: every UE's average moves towards what it got this TTI (0 if unserved).
    pub(super) fn update(&mut self, new_tbs: &[NewTb]) {
        for tb in new_tbs {
            self.columns.served_bytes[tb.ue.index()] += u64::from(tb.tbs_bits) / BITS_PER_BYTE as u64;
        }
        let w = 1.0 / self.window_ttis;
        self.each_member(|avg, served| {
            *avg = (1.0 - w) * *avg + w * (*served as f64 / TTI_S);
            *served = 0;
        });
    }

    /// `n` TTIs that served no one: [`Self::update`] with nothing, `n` times over (the same
    /// arithmetic, so the averages are those of a cell that ran each of those TTIs).
    pub(super) fn idle(&mut self, n: u64) {
        let w = 1.0 / self.window_ttis;
        self.each_member(|avg, _| {
            // Each step is `update`'s (1 - w) avg + w 0: the product alone, since adding the
            // served term's +0 to a non-negative average is exact. It keeps 0 at 0: past that,
            // the rest changes nothing.
            for _ in 0..n {
                if *avg == 0.0 {
                    break;
                }
                *avg *= 1.0 - w;
            }
        });
    }

    /// `f(average, bytes served this TTI)` for every UE whose average moves.
    fn each_member(&mut self, mut f: impl FnMut(&mut f64, &mut u64)) {
        match &self.members {
            None => {
                for (avg, served) in
                    self.columns.average_bytes_per_s.iter_mut().zip(self.columns.served_bytes.iter_mut())
                {
                    f(avg, served);
                }
            }
            Some(members) => {
                for &i in members {
                    f(&mut self.columns.average_bytes_per_s[i as usize], &mut self.columns.served_bytes[i as usize]);
                }
            }
        }
    }
}
