//! NR MAC schedulers: round robin, proportional fair and maximum throughput over the RBGs of one
//! transmission occasion (OFDMA, resource allocation type 0, TS 38.214 §5.1.2.2.1 downlink and
//! §6.1.2.2.1 uplink with CP-OFDM), the NR counterpart of the LTE cell's `lte::mac::scheduler`
//! with the same policies and rules (5G-LENA's `NrMacSchedulerOfdmaRR/PF/MR` share them):
//!
//! ```text
//!  demand (buffer, MCS, free HARQ) ─► candidates ─► RR: even split of the free RBGs in rotating order,
//!                                                       a UE needing less gives the rest back (water-filling)
//!                                                   PF: each free RBG to the best rate / average throughput
//!                                                   MT: each free RBG to the best rate
//!                                 every UE takes no more RBGs than its buffer needs (+ one RBG)
//! ```
//! The time domain: every occasion (a slot, or a mini-slot) is scheduled anew, so PF's average
//! moves with time, not with occasions: avg <- (1 - dt / T) avg + (dt / T) served / dt, T the
//! window (a UE's throughput is averaged over the same time whatever the numerology).

use crate::lte::mac::scheduler::{GrantSizing, SchedulerKind};
use crate::lte::sap::UeIndex;

use super::rbg::{RbgLayout, RbgMask};

/// What one UE asks for in this occasion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrDemand {
    pub ue: UeIndex,
    /// Downlink: the RLC buffer; uplink: what the gNB believes (SR, BSR).
    pub buffered_bytes: u32,
    pub mcs: u8,
    /// Header bytes a TB for this UE adds per SDU-sized need (MAC subheaders, a BSR uplink).
    pub overhead_bytes: u32,
    /// A HARQ process is free and the UE gets no retransmission in this occasion.
    pub has_free_harq: bool,
}

/// A new TB the scheduler granted (the cell adds the HARQ process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NrNewTb {
    pub ue: UeIndex,
    pub rbgs: RbgMask,
    pub n_prb: u32,
    pub mcs: u8,
    pub tbs_bits: u32,
}

#[derive(Clone, Copy, Debug)]
struct Candidate {
    ue: UeIndex,
    mcs: u8,
    need_bits: u64,
    rbgs: RbgMask,
    /// Rate on one full RBG, bytes per second (PF and MT metrics).
    rbg_rate: f64,
    target: u32,
}

/// A scheduler for one cell and one direction.
#[derive(Debug)]
pub struct NrScheduler {
    kind: SchedulerKind,
    sizing: GrantSizing,
    layout: RbgLayout,
    n_ues: usize,
    next_ue: usize,
    average_bytes_per_s: Vec<f64>,
    window_s: f64,
    candidates: Vec<Candidate>,
}

/// PF's starting average, bytes/s (non-zero so the first metric is finite; ns-3 LENA's 1 byte/s).
const INITIAL_AVERAGE_BYTES_PER_S: f64 = 1.0;

impl NrScheduler {
    pub fn new(kind: SchedulerKind, sizing: GrantSizing, layout: RbgLayout, n_ues: usize, pf_window_s: f64) -> Self {
        NrScheduler {
            kind,
            sizing,
            layout,
            n_ues,
            next_ue: 0,
            average_bytes_per_s: vec![INITIAL_AVERAGE_BYTES_PER_S; n_ues],
            window_s: pf_window_s,
            candidates: Vec::with_capacity(n_ues),
        }
    }

    pub fn layout(&self) -> RbgLayout {
        self.layout
    }

    /// PF's averaged throughput of `ue`, bytes per second.
    pub fn average_bytes_per_s(&self, ue: UeIndex) -> f64 {
        self.average_bytes_per_s[ue.index()]
    }

    /// One occasion of `duration_s`: share `free` RBGs among the UEs of `demand` with data and a
    /// free HARQ process; `tbs(mcs, n_prb)` is the occasion's TBS. Pushes one [`NrNewTb`] per
    /// served UE and moves the policy state (RR pointer, PF averages of every UE).
    pub fn schedule(
        &mut self,
        free: RbgMask,
        demand: &[NrDemand],
        duration_s: f64,
        tbs: &dyn Fn(u8, u32) -> u32,
        out: &mut Vec<NrNewTb>,
    ) {
        self.collect(demand, duration_s, tbs);
        if !self.candidates.is_empty() && !free.is_empty() {
            match self.kind {
                SchedulerKind::RoundRobin => self.round_robin(free, tbs),
                SchedulerKind::ProportionalFair => {
                    let avg = std::mem::take(&mut self.average_bytes_per_s);
                    self.best_per_rbg(free, tbs, |ue, rate| rate / avg[ue.index()]);
                    self.average_bytes_per_s = avg;
                }
                SchedulerKind::MaxThroughput => self.best_per_rbg(free, tbs, |_, rate| rate),
            }
        }
        self.commit(duration_s, tbs, out);
    }

    fn collect(&mut self, demand: &[NrDemand], duration_s: f64, tbs: &dyn Fn(u8, u32) -> u32) {
        self.candidates.clear();
        for d in demand.iter().filter(|d| d.buffered_bytes > 0 && d.has_free_harq) {
            let need_bits = match self.sizing {
                GrantSizing::ToNeed => 8 * u64::from(d.buffered_bytes.saturating_add(d.overhead_bytes)),
                GrantSizing::WholeShare => u64::MAX,
            };
            let rbg_rate = f64::from(tbs(d.mcs, self.layout.p)) / 8.0 / duration_s;
            self.candidates.push(Candidate { ue: d.ue, mcs: d.mcs, need_bits, rbgs: RbgMask(0), rbg_rate, target: 0 });
        }
        self.candidates.sort_unstable_by_key(|c| c.ue);
    }

    fn satisfied(&self, c: &Candidate, tbs: &dyn Fn(u8, u32) -> u32) -> bool {
        u64::from(tbs(c.mcs, self.layout.prb_count(c.rbgs))) >= c.need_bits
    }

    /// Each free RBG, lowest first, to the candidate with the best metric still short of its need.
    fn best_per_rbg(&mut self, free: RbgMask, tbs: &dyn Fn(u8, u32) -> u32, metric: impl Fn(UeIndex, f64) -> f64) {
        for i in free.iter() {
            let mut best: Option<(usize, f64)> = None;
            for (k, c) in self.candidates.iter().enumerate() {
                if self.satisfied(c, tbs) {
                    continue;
                }
                let m = metric(c.ue, c.rbg_rate);
                if best.is_none_or(|(_, bm)| m > bm) {
                    best = Some((k, m));
                }
            }
            let Some((k, _)) = best else { break };
            self.candidates[k].rbgs = self.candidates[k].rbgs.union(RbgMask::single(i));
        }
    }

    /// RBGs a candidate needs, 1..=`max`.
    fn rbgs_needed(&self, c: &Candidate, max: u32, tbs: &dyn Fn(u8, u32) -> u32) -> u32 {
        (1..=max.max(1))
            .find(|&k| u64::from(tbs(c.mcs, (k * self.layout.p).min(self.layout.n_prb))) >= c.need_bits)
            .unwrap_or(max.max(1))
    }

    /// Even split in rotating order, capped at each UE's need, the rest shared (water-filling).
    fn round_robin(&mut self, free: RbgMask, tbs: &dyn Fn(u8, u32) -> u32) {
        let (n, next) = (self.n_ues, self.next_ue);
        self.candidates.sort_unstable_by_key(|c| (c.ue.index() + n - next) % n);
        let total = free.count();
        for k in 0..self.candidates.len() {
            let need = self.rbgs_needed(&self.candidates[k], total, tbs);
            self.candidates[k].target = need;
        }
        let mut left = total;
        let mut open: Vec<usize> = (0..self.candidates.len()).collect();
        loop {
            let share = (left / open.len().max(1) as u32).max(1);
            let (capped, rest): (Vec<usize>, Vec<usize>) =
                open.iter().partition(|&&k| self.candidates[k].target <= share);
            for &k in &capped {
                left = left.saturating_sub(self.candidates[k].target);
            }
            open = rest;
            if capped.is_empty() || open.is_empty() {
                break;
            }
        }
        let share = left / open.len().max(1) as u32;
        let mut extra = left.saturating_sub(share * open.len() as u32);
        for &k in &open {
            self.candidates[k].target = (share + u32::from(extra > 0)).max(1);
            extra = extra.saturating_sub(1);
        }
        let mut free_rbgs = free.iter();
        for c in &mut self.candidates {
            for _ in 0..c.target {
                match free_rbgs.next() {
                    Some(i) => c.rbgs = c.rbgs.union(RbgMask::single(i)),
                    None => break,
                }
            }
        }
    }

    fn commit(&mut self, duration_s: f64, tbs: &dyn Fn(u8, u32) -> u32, out: &mut Vec<NrNewTb>) {
        let (n, next) = (self.n_ues, self.next_ue);
        let key = |c: &Candidate| (c.ue.index() + n - next) % n;
        // RR moves on to the first UE left unserved, else past the first one served.
        let unserved =
            self.candidates.iter().filter(|c| c.rbgs.is_empty()).min_by_key(|c| key(c)).map(|c| c.ue.index());
        let first = self.candidates.iter().min_by_key(|c| key(c)).map(|c| (c.ue.index() + 1) % n.max(1));
        self.next_ue = unserved.or(first).unwrap_or(next);
        self.candidates.sort_unstable_by_key(|c| c.ue);
        let alpha = (duration_s / self.window_s).min(1.0);
        for avg in &mut self.average_bytes_per_s {
            *avg *= 1.0 - alpha;
        }
        for c in self.candidates.iter().filter(|c| !c.rbgs.is_empty()) {
            let n_prb = self.layout.prb_count(c.rbgs);
            let tbs_bits = tbs(c.mcs, n_prb);
            self.average_bytes_per_s[c.ue.index()] += alpha * f64::from(tbs_bits) / 8.0 / duration_s;
            out.push(NrNewTb { ue: c.ue, rbgs: c.rbgs, n_prb, mcs: c.mcs, tbs_bits });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::rbg::RbgConfig;
    use super::*;

    /// A toy TBS: 100 bits per PRB per MCS step (monotone, enough for the policies).
    fn tbs(mcs: u8, n_prb: u32) -> u32 {
        100 * (u32::from(mcs) + 1) * n_prb
    }

    fn demand(ue: u16, bytes: u32, mcs: u8) -> NrDemand {
        NrDemand { ue: UeIndex(ue), buffered_bytes: bytes, mcs, overhead_bytes: 0, has_free_harq: true }
    }

    fn sched(kind: SchedulerKind, n: usize) -> NrScheduler {
        NrScheduler::new(kind, GrantSizing::ToNeed, RbgLayout::new(106, RbgConfig::Config1), n, 0.1)
    }

    /// RR: saturated UEs split the 14 RBGs of 106 PRBs 5/5/4 and the pointer rotates; a UE
    /// needing one RBG gets one and the others share the rest.
    #[test]
    fn round_robin_splits_evenly_and_rotates() {
        let mut s = sched(SchedulerKind::RoundRobin, 3);
        let mut out = Vec::new();
        let all = s.layout().all();
        let d = [demand(0, 1 << 20, 5), demand(1, 1 << 20, 5), demand(2, 1 << 20, 5)];
        s.schedule(all, &d, 5e-4, &tbs, &mut out);
        assert_eq!(out.iter().map(|t| t.rbgs.count()).collect::<Vec<_>>(), vec![5, 5, 4]);
        assert!(out.windows(2).all(|w| !w[0].rbgs.overlaps(w[1].rbgs)));
        out.clear();
        s.schedule(all, &d, 5e-4, &tbs, &mut out);
        assert_eq!(out.iter().map(|t| t.rbgs.count()).collect::<Vec<_>>(), vec![4, 5, 5], "UE 1 first now");
        out.clear();
        // UE 0 needs 8 x 600 bits = 4800 bits: one RBG of 8 PRBs at MCS 5 carries 4800.
        let d = [demand(0, 600, 5), demand(1, 1 << 20, 5)];
        s.schedule(all, &d, 5e-4, &tbs, &mut out);
        assert_eq!(out.iter().map(|t| t.rbgs.count()).collect::<Vec<_>>(), vec![1, 13]);
    }

    /// PF: with equal channels the first occasion goes to the lowest index, the next to the
    /// other (its average is lower now); MT gives everything to the best MCS.
    #[test]
    fn proportional_fair_alternates_and_max_throughput_favours_the_best() {
        let mut s = sched(SchedulerKind::ProportionalFair, 2);
        let all = s.layout().all();
        let d = [demand(0, 1 << 20, 10), demand(1, 1 << 20, 10)];
        let mut firsts = Vec::new();
        for _ in 0..4 {
            let mut out = Vec::new();
            s.schedule(all, &d, 5e-4, &tbs, &mut out);
            assert_eq!(out.len(), 1, "wideband PF: the whole band to one UE");
            firsts.push(out[0].ue.0);
        }
        assert_eq!(firsts, vec![0, 1, 0, 1]);
        let mut m = sched(SchedulerKind::MaxThroughput, 2);
        let mut out = Vec::new();
        m.schedule(all, &[demand(0, 1 << 20, 3), demand(1, 1 << 20, 9)], 5e-4, &tbs, &mut out);
        assert_eq!((out.len(), out[0].ue.0, out[0].n_prb), (1, 1, 106));
    }
}
