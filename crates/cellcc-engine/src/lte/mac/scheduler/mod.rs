//! MAC schedulers: round robin, proportional fair, maximum throughput (ns-3 LENA's
//! `RrFfMacScheduler`, `PfFfMacScheduler`, `FdMtFfMacScheduler`; lte-design.rst "Scheduler").
//!
//! One call per TTI and direction. The cell schedules HARQ retransmissions first (ns-3 does:
//! `rntiAllocated`), passes their RBs as `busy`, then this module shares the free RBs among
//! UEs with new data and a free HARQ process:
//!
//! ```text
//!  demand ─► candidates (data > 0, free HARQ) ─► downlink: RBG by RBG (type 0, TS 36.213 §7.1.6.1)
//!                                                  RR  round_robin.rs     even split, cyclic order
//!                                                  PF  proportional_fair  max rate / avg throughput
//!                                                  MT  max_throughput     max rate
//!                                              └► uplink: contiguous RBs (SC-FDMA, TS 36.211 §5.3),
//!                                                  even split in cyclic order for every policy,
//!                                                  as all three ns-3 schedulers do (contiguous.rs)
//! ```
//! Wideband CQI: one MCS per UE (`UeDemand::mcs`); the achievable rate of an RBG is the TBS
//! of that MCS on one RBG (ns-3: `GetDlTbSizeFromMcs(mcs, rbgSize) / 8 / 0.001`).
//! Sub-band CQI (`UeDemand::rbg_mcs`, the downlink's `worst_subband` mode), PF and MT: each RBG's
//! rate is that of the UE's own sub-band MCS there, so the ranking differs RBG by RBG, and a TB's
//! MCS is the lowest among the RBGs its UE was given (pf/fdmt-ff-mac-scheduler.cc
//! `DoSchedDlTriggerReq`: `achievableRate` from `m_higherLayerSelected.at(i).m_sbCqi`, then
//! `worstCqi` over the UE's RBGs).
//! No UE gets more than its buffer needs: it stops taking RBGs (RBs) once its TBS covers its
//! buffer plus MAC headers, so it gets at most one RBG beyond need. ns-3 does not cap (its PF
//! gives every RBG to the best metric and RR splits evenly whatever the buffers); the cap
//! keeps a 40-byte TCP ACK from taking the whole band. Ties go to the lowest `UeIndex`.
//!
//! The cell leaves out UEs whose CQI is 0 ("out of range", TS 36.213 Table 7.2.3-1): ns-3
//! does not schedule them; `UeDemand` has no CQI, only the MCS to use. With sub-band CQIs
//! (`cqi.dl_mcs_from = "worst_subband"`) a UE's out-of-range sub-bands (`UeDemand::out_of_range`)
//! are not given to it, as ns-3's PF leaves an RBG of sub-band CQI 0 to no UE.

mod contiguous;
pub mod max_throughput;
pub mod proportional_fair;
pub mod rbg;
pub mod round_robin;

use serde::{Deserialize, Serialize};

use super::{mac_overhead_bytes, BSR_CE_BYTES};
use crate::lte::phy::{tbs_bits, MAX_MCS, MAX_SUBBANDS};
use crate::lte::sap::{LinkDir, RbMask, UeIndex};
use proportional_fair::PfAverages;

/// How much a UE may be given (a cell's `mac.grant_sizing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantSizing {
    /// No more RBs than its buffer (plus MAC headers) needs, at most one allocation unit beyond
    /// it, the rest shared among the others: an eNB does not grant padding.
    ToNeed,
    /// ns-3 LENA: PF gives each RBG to the best metric and RR and the uplink split the band
    /// evenly among the UEs with data, whatever their buffers (the surplus goes as padding).
    WholeShare,
}

/// Which policy shares the RBs (a cell's `scheduler` field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SchedulerKind {
    /// ns-3 `RrFfMacScheduler`.
    RoundRobin,
    /// ns-3 `PfFfMacScheduler`, ns-3's default (`LteHelper::Scheduler`).
    #[default]
    ProportionalFair,
    /// ns-3 `FdMtFfMacScheduler` (frequency-domain maximum throughput).
    MaxThroughput,
}

/// Per RBG (lowest first), the MCS of a UE's sub-band CQI there, [`SUBBAND_OUT_OF_RANGE`] for a
/// sub-band of CQI 0 (sub-bands of one RBG, as LENA's A30 report).
pub type RbgMcs = [u8; MAX_SUBBANDS];

/// An [`RbgMcs`] entry for a sub-band reported out of range (CQI 0, TS 36.213 Table 7.2.3-1).
pub const SUBBAND_OUT_OF_RANGE: u8 = u8::MAX;

/// What one UE asks for this TTI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UeDemand {
    pub ue: UeIndex,
    /// Downlink: the RLC buffer status total; uplink: what the eNB believes (BSR/SR).
    pub buffered_bytes: u32,
    /// MCS from the UE's wideband CQI (0..=28).
    pub mcs: u8,
    /// RBs this UE must not get: its sub-bands reported out of range (downlink `worst_subband`
    /// CQI; ns-3's PF gives no UE an RBG whose sub-band CQI is 0). Empty otherwise.
    pub out_of_range: RbMask,
    /// A HARQ process is idle and the UE has no retransmission this TTI (one TB per UE per TTI).
    pub has_free_harq: bool,
    /// Its sub-band MCSs (downlink `worst_subband`), for PF and MT to rank it RBG by RBG; `None`
    /// with a wideband CQI, or before its first sub-band report (`mcs` then stands on every RBG,
    /// as ns-3 takes sub-band CQI 1 for a UE without an A30 report).
    pub rbg_mcs: Option<RbgMcs>,
}

/// A new transport block the scheduler granted (the cell adds the HARQ process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewTb {
    pub ue: UeIndex,
    pub rbs: RbMask,
    pub mcs: u8,
    /// TS 36.213 §7.1.7.2 TBS of `mcs` on `rbs.count()` PRBs.
    pub tbs_bits: u32,
}

/// One UE competing for RBs this TTI (scratch, reused across TTIs).
#[derive(Clone, Copy, Debug)]
struct Candidate {
    ue: UeIndex,
    mcs: u8,
    /// TBS bits that would carry the whole buffer and its MAC headers.
    need_bits: u32,
    /// Achievable rate on one full RBG, bytes/s (PF and MT metrics).
    rbg_rate_bytes_per_s: f64,
    /// RBs given so far.
    rbs: RbMask,
    /// The TBS of `rbs` covers the buffer ([`Candidate::satisfied`], kept as RBs are added).
    full: bool,
    /// Some set of RBs may cover the buffer, set at its first [`Candidate::take`]: not when the
    /// whole band's TBS at its MCS does not (a bulk flow's buffer), the TBS never falling as RBs
    /// are added nor rising as its MCS falls (TS 36.213 Table 7.1.7.2.1-1). Then `take` skips
    /// [`Candidate::satisfied`], a 128-bit popcount (no `popcnt` in this build's target) and a
    /// TBS read per RBG, the whole band's in a time-domain PF TTI.
    may_fill: bool,
    /// RBs it must not get ([`UeDemand::out_of_range`]).
    out_of_range: RbMask,
    /// Its MCS on each RBG ([`UeDemand::rbg_mcs`]; `None`: `mcs` on every RBG, see
    /// [`Candidate::mcs_on`]).
    rbg_mcs: Option<RbgMcs>,
    /// Allocation units (RBGs downlink, RBs uplink) this UE may take (round robin, uplink).
    target_units: u32,
    split: Split,
}

/// Where a candidate stands in the even split (round robin, uplink).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Split {
    /// Takes an equal share of what the capped UEs leave.
    Open,
    /// Needs less than an equal share: gets exactly its need.
    CappedAtNeed,
}

impl Candidate {
    /// Its MCS on RBG `i`: a wideband candidate's `mcs` is the same on every RBG and is not
    /// lowered by the RBGs it takes.
    fn mcs_on(&self, i: u32) -> u8 {
        self.rbg_mcs.as_ref().map_or(self.mcs, |m| m[i as usize])
    }

    /// The TBS of the RBs given so far covers the buffer: take no more.
    fn satisfied(&self, dir: LinkDir) -> bool {
        tbs_bits(dir, self.mcs, self.rbs.count()) >= self.need_bits
    }

    /// Once it holds RBs: whether it wins every free RBG after those when every candidate ranked
    /// above it is full. It never becomes full (the whole band does not cover its buffer) and
    /// no sub-band is out of range for it, so the per-RBG loop of
    /// [`Scheduler::allocate_best_per_rbg`] would give it each of them in turn.
    fn never_full_anywhere(&self) -> bool {
        !self.may_fill && self.out_of_range.is_empty()
    }

    /// Give it `mask` as well, of a band of `band_rbs` RBs.
    fn take(&mut self, mask: RbMask, dir: LinkDir, band_rbs: u32) {
        if self.rbs.is_empty() {
            // Its MCS is the highest it will have (a sub-band candidate's falls to its RBGs' lowest).
            self.may_fill = tbs_bits(dir, self.mcs, band_rbs) >= self.need_bits;
        }
        self.rbs = self.rbs.union(mask);
        self.full = self.may_fill && self.satisfied(dir);
    }
}

/// A scheduler for one cell and one direction.
#[derive(Debug)]
pub struct Scheduler {
    kind: SchedulerKind,
    dir: LinkDir,
    n_rbs: u32,
    n_ues: usize,
    /// RBG size P (downlink, TS 36.213 Table 7.1.6.1-1); 1 uplink (RB granularity).
    rbg_size: u32,
    /// Downlink: the RBs of each RBG, lowest first (every TTI's allocation walks them, and a
    /// mask built from its first RB and length was a 128-bit shift pair per RBG per call).
    /// Empty on the uplink, which places contiguous runs instead (contiguous.rs).
    unit_masks: Vec<RbMask>,
    /// Round-robin pointer: the UE that comes first next TTI (ns-3 `m_nextRntiDl/Ul`).
    next_ue: usize,
    pf: PfAverages,
    candidates: Vec<Candidate>,
    /// `candidates` were rotated left by this many places for the cyclic order (RR, uplink).
    rotated_by: usize,
    /// Scratch of the per-RBG allocation (PF, MT): each candidate's metric, and candidate
    /// indices best first.
    metrics: Vec<f64>,
    order: Vec<usize>,
    /// Scratch: the candidates ranked after the first RBGs' worth.
    rest: Vec<usize>,
    sizing: GrantSizing,
    last_rbg: rbg::LastRbg,
    /// A candidate of this TTI has sub-band MCSs: PF and MT rank RBG by RBG.
    any_subband: bool,
    /// Achievable rate on one full RBG (bytes/s) of each MCS.
    rbg_rate_by_mcs: [f64; MAX_MCS as usize + 1],
}

impl Scheduler {
    pub fn new(kind: SchedulerKind, dir: LinkDir, n_rbs: u32, n_ues: usize) -> Self {
        assert!((1..=RbMask::MAX_RBS).contains(&n_rbs), "{n_rbs} RBs outside 1..=110");
        assert!(n_ues <= usize::from(u16::MAX), "{n_ues} UEs exceed UeIndex");
        let rbg_size = match dir {
            LinkDir::Downlink => rbg::rbg_size(n_rbs),
            LinkDir::Uplink => 1,
        };
        let unit_masks = match dir {
            LinkDir::Downlink => (0..n_rbs.div_ceil(rbg_size)).map(|i| rbg::rbg_mask(i, rbg_size, n_rbs)).collect(),
            LinkDir::Uplink => Vec::new(),
        };
        Scheduler {
            kind,
            dir,
            n_rbs,
            n_ues,
            rbg_size,
            unit_masks,
            next_ue: 0,
            pf: PfAverages::new(n_ues),
            candidates: Vec::with_capacity(n_ues),
            rotated_by: 0,
            metrics: Vec::with_capacity(n_ues),
            order: Vec::with_capacity(n_ues),
            rest: Vec::with_capacity(n_ues),
            sizing: GrantSizing::ToNeed,
            last_rbg: rbg::LastRbg::Used,
            any_subband: false,
            rbg_rate_by_mcs: std::array::from_fn(|m| {
                f64::from(tbs_bits(dir, m as u8, rbg_size)) / BITS_PER_BYTE / TTI_S
            }),
        }
    }

    /// How much a UE may be given (default [`GrantSizing::ToNeed`]).
    pub fn with_grant_sizing(mut self, sizing: GrantSizing) -> Self {
        self.sizing = sizing;
        self
    }

    /// Whether the downlink's last, partial RBG is allocated (default [`rbg::LastRbg::Used`]).
    pub fn with_last_rbg(mut self, last_rbg: rbg::LastRbg) -> Self {
        self.last_rbg = last_rbg;
        self
    }

    /// Proportional fair's averaging window in TTIs (default ns-3's 99, `m_timeWindow`).
    pub fn with_pf_time_window_ttis(mut self, ttis: f64) -> Self {
        self.pf.set_time_window_ttis(ttis);
        self
    }

    pub fn kind(&self) -> SchedulerKind {
        self.kind
    }

    /// UE `ue` left the cell: a UE that joins later under its index starts afresh (ns-3's new
    /// flow starts from [`proportional_fair::INITIAL_AVERAGE_BYTES_PER_S`]).
    pub fn forget(&mut self, ue: UeIndex) {
        self.pf.reset(ue);
        self.pf.leave(ue);
    }

    /// A network cell: only `members` (the UEs attached at the start) and those that [`Self::join`]
    /// later keep averages.
    pub fn with_members(mut self, members: &[usize]) -> Self {
        self.pf.keep_members(members);
        self
    }

    /// Exchange the PF averages' per-UE columns with `columns` (a network lends its own to the
    /// cell that runs).
    pub fn swap_pf_columns(&mut self, columns: &mut proportional_fair::PfColumns) {
        self.pf.swap_columns(columns);
    }

    /// UE `ue` joins a network cell.
    pub fn join(&mut self, ue: UeIndex) {
        self.pf.join(ue);
    }

    /// `n` TTIs in which no UE had data: the policy state moves on as [`Self::commit`] of that
    /// many empty allocations would move it (PF averages decay; the RR pointer stays).
    pub fn idle_ttis(&mut self, n: u64) {
        self.pf.idle(n);
    }

    /// PF's exponentially averaged throughput of `ue`, bytes per second (kept for every policy).
    pub fn average_throughput_bytes_per_s(&self, ue: UeIndex) -> f64 {
        self.pf.average(ue)
    }

    /// One TTI: RBs in `busy` are taken (HARQ retransmissions). Gives the free RBs to UEs with
    /// `buffered_bytes > 0` and `has_free_harq`, per the policy, and pushes one [`NewTb`] per
    /// served UE into `out`. Updates the policy state (PF averages for every UE; RR pointer).
    pub fn schedule(&mut self, busy: RbMask, demand: &[UeDemand], out: &mut Vec<NewTb>) {
        self.allocate(busy, demand);
        self.commit(busy, out);
    }

    /// The allocation [`Self::schedule`] would make, without committing it: the policy state
    /// is untouched, so the cell may call it again with fewer UEs (PDCCH blocking).
    pub fn allocate(&mut self, busy: RbMask, demand: &[UeDemand]) {
        self.collect_candidates(demand);
        if !self.candidates.is_empty() {
            match (self.dir, self.kind) {
                (LinkDir::Uplink, _) => contiguous::allocate(self, busy),
                (LinkDir::Downlink, SchedulerKind::RoundRobin) => round_robin::allocate(self, busy),
                (LinkDir::Downlink, SchedulerKind::ProportionalFair) => {
                    let pf = std::mem::take(&mut self.pf);
                    self.allocate_by_metric(busy, |ue, rate| pf.metric(ue, rate));
                    self.pf = pf;
                }
                (LinkDir::Downlink, SchedulerKind::MaxThroughput) => {
                    self.allocate_by_metric(busy, max_throughput::metric)
                }
            }
        }
    }

    /// The UEs the last [`Self::allocate`] served, lowest first RB first (the policy's own
    /// priority: PF and MT give the first RBG to the best metric, RR and the uplink go in
    /// cyclic order from the lowest RB), pushed into `out`.
    pub fn allocated_in_priority(&mut self, out: &mut Vec<UeIndex>) {
        self.order.clear();
        self.order.extend((0..self.candidates.len()).filter(|&k| !self.candidates[k].rbs.is_empty()));
        let c = &self.candidates;
        self.order.sort_unstable_by_key(|&k| (c[k].rbs.0.trailing_zeros(), c[k].ue));
        out.clear();
        out.extend(self.order.iter().map(|&k| c[k].ue));
    }

    /// Commit the last [`Self::allocate`]: one [`NewTb`] per served UE into `out`, and the policy
    /// state moves on (PF averages for every UE, the RR pointer).
    pub fn commit(&mut self, busy: RbMask, out: &mut Vec<NewTb>) {
        self.unrotate();
        self.advance_pointer();
        let first_out = out.len();
        for c in self.candidates.iter().filter(|c| !c.rbs.is_empty()) {
            debug_assert!(!c.rbs.overlaps(busy));
            out.push(NewTb { ue: c.ue, rbs: c.rbs, mcs: c.mcs, tbs_bits: tbs_bits(self.dir, c.mcs, c.rbs.count()) });
        }
        self.pf.update(&out[first_out..]);
    }

    /// UEs with data and a free HARQ process, in ascending `UeIndex` (the tie-break order).
    fn collect_candidates(&mut self, demand: &[UeDemand]) {
        self.candidates.clear();
        self.rotated_by = 0;
        self.any_subband = false;
        for d in demand.iter().filter(|d| d.buffered_bytes > 0 && d.has_free_harq) {
            assert!(d.ue.index() < self.n_ues, "{:?} outside the cell's {} UEs", d.ue, self.n_ues);
            let headers = mac_overhead_bytes(1, d.buffered_bytes) + self.ce_bytes();
            let need_bytes = d.buffered_bytes.saturating_add(headers);
            let need_bits = match self.sizing {
                GrantSizing::ToNeed => need_bytes.saturating_mul(8),
                GrantSizing::WholeShare => u32::MAX,
            };
            self.any_subband |= d.rbg_mcs.is_some();
            self.candidates.push(Candidate {
                ue: d.ue,
                mcs: d.mcs,
                need_bits,
                rbg_rate_bytes_per_s: self.rbg_rate_bytes_per_s(d.mcs),
                rbs: RbMask::default(),
                full: false,
                may_fill: true,
                out_of_range: d.out_of_range,
                // Copied as the demand holds it: the wideband UE's array of its MCS, built on the
                // stack for every candidate, was read back across two overlapping stores (a failed
                // store forwarding on a third of `allocate`'s samples in the 1000-UE cell).
                rbg_mcs: d.rbg_mcs,
                target_units: 0,
                split: Split::Open,
            });
        }
        self.candidates.sort_unstable_by_key(|c| c.ue);
        debug_assert!(self.candidates.windows(2).all(|w| w[0].ue != w[1].ue), "one demand per UE");
    }

    /// Uplink PDUs carry a Short BSR (TS 36.321 §5.4.5), so the need includes it.
    fn ce_bytes(&self) -> u32 {
        match self.dir {
            LinkDir::Downlink => 0,
            LinkDir::Uplink => BSR_CE_BYTES,
        }
    }

    /// Candidates in round-robin order: the pointer's UE first, then upwards, wrapping (they
    /// are in ascending `UeIndex`, so this is a rotation).
    fn rotate_candidates(&mut self) {
        self.unrotate();
        let next = self.next_ue;
        let k = self.candidates.partition_point(|c| c.ue.index() < next);
        self.candidates.rotate_left(k);
        self.rotated_by = k;
    }

    /// Candidates back in ascending `UeIndex`.
    fn unrotate(&mut self) {
        self.candidates.rotate_right(self.rotated_by);
        self.rotated_by = 0;
    }

    /// Next TTI starts from the first candidate left unserved, else from the one after the
    /// first served (ns-3 rr-ff-mac-scheduler: `m_nextRntiDl` = successor of the last start).
    /// The candidates are in ascending `UeIndex` here: in the pointer's round-robin order (the
    /// pointer's UE, then upwards, wrapping) the first of them and the first unserved are found
    /// from where the pointer falls, without ranking every candidate by its distance from it.
    fn advance_pointer(&mut self) {
        let (n, next) = (self.n_ues, self.next_ue);
        let (below, from_next) = self.candidates.split_at(self.candidates.partition_point(|c| c.ue.index() < next));
        let unserved = from_next.iter().chain(below).find(|c| c.rbs.is_empty());
        let first = from_next.first().or(below.first());
        self.next_ue = match (unserved, first) {
            (Some(c), _) => c.ue.index(),
            (None, Some(c)) => (c.ue.index() + 1) % n,
            (None, None) => next,
        };
    }

    /// Number of RBGs (downlink) or RBs (uplink) in the band.
    fn n_units(&self) -> u32 {
        match self.last_rbg {
            rbg::LastRbg::Used => self.n_rbs.div_ceil(self.rbg_size),
            rbg::LastRbg::Unused => self.n_rbs / self.rbg_size,
        }
    }

    /// The RBs of RBG `i` (downlink).
    fn unit_mask(&self, i: u32) -> RbMask {
        self.unit_masks[i as usize]
    }

    /// Achievable bytes per second of `mcs` on one full RBG (ns-3's PF/MT `achievableRate`).
    fn rbg_rate_bytes_per_s(&self, mcs: u8) -> f64 {
        self.rbg_rate_by_mcs[usize::from(mcs)]
    }

    /// PF and MT: per RBG with sub-band MCSs, else the wideband ranking.
    fn allocate_by_metric(&mut self, busy: RbMask, metric: impl Fn(UeIndex, f64) -> f64) {
        if self.any_subband {
            self.allocate_per_subband(busy, metric);
        } else {
            self.allocate_best_per_rbg(busy, metric);
        }
    }

    /// Frequency-domain allocation on sub-band CQI (ns-3 pf-ff-mac-scheduler.cc
    /// `DoSchedDlTriggerReq`, the loop over RBGs and in it over the flows): each free RBG, lowest
    /// first, to the candidate with the highest `metric(ue, rate of its own sub-band MCS on that
    /// RBG)` that still needs RBs and has the sub-band in range (ties: lowest `UeIndex`, as the
    /// strict `rcqi > rcqiMax` over flows in RNTI order). The metric's averages do not move within
    /// the TTI. A UE's TB MCS is the lowest of its RBGs' (`worstCqi`).
    fn allocate_per_subband(&mut self, busy: RbMask, metric: impl Fn(UeIndex, f64) -> f64) {
        let (dir, n_rbs) = (self.dir, self.n_rbs);
        for i in 0..self.n_units() {
            let mask = self.unit_mask(i);
            if mask.overlaps(busy) {
                continue;
            }
            let mut best: Option<(usize, f64)> = None;
            for (k, c) in self.candidates.iter().enumerate() {
                let mcs = c.mcs_on(i);
                if c.full || mcs == SUBBAND_OUT_OF_RANGE || mask.overlaps(c.out_of_range) {
                    continue;
                }
                let m = metric(c.ue, self.rbg_rate_bytes_per_s(mcs));
                if best.is_none_or(|(_, b)| m > b) {
                    best = Some((k, m));
                }
            }
            // An RBG no candidate may take stays empty (ns-3: "any UE found").
            if let Some((k, _)) = best {
                let c = &mut self.candidates[k];
                let mcs = c.mcs_on(i);
                c.mcs = if c.rbs.is_empty() { mcs } else { c.mcs.min(mcs) };
                c.take(mask, dir, n_rbs);
            }
        }
    }

    /// Frequency-domain greedy allocation: each free RBG, lowest first, to the candidate with the
    /// highest `metric(ue, rate)` that still needs RBs and has not reported its sub-band out of
    /// range (ties: lowest `UeIndex`). PF and MT. The metric is the same on every RBG (wideband
    /// CQI), so the candidates are ranked once, and only as far as the RBGs reach: each RBG goes
    /// to the first in rank that may take it.
    fn allocate_best_per_rbg(&mut self, busy: RbMask, metric: impl Fn(UeIndex, f64) -> f64) {
        let n = self.candidates.len();
        let (dir, n_rbs) = (self.dir, self.n_rbs);
        self.metrics.clear();
        self.metrics.extend(self.candidates.iter().map(|c| metric(c.ue, c.rbg_rate_bytes_per_s)));
        let (metrics, cands) = (&self.metrics, &self.candidates);
        let rank = |a: &usize, b: &usize| metrics[*b].total_cmp(&metrics[*a]).then(cands[*a].ue.cmp(&cands[*b].ue));
        // Each RBG goes to one candidate, so as many as there are RBGs are ranked first; the
        // rest only if out-of-range sub-bands pass RBGs over them. The best `ranked` go into a
        // short sorted list (most candidates lose to its last at one comparison), the others
        // after it unsorted.
        let mut ranked = n.min(self.n_units() as usize);
        self.order.clear();
        self.rest.clear();
        for idx in 0..n {
            let full = self.order.len() == ranked;
            if full && self.order.last().is_none_or(|last| rank(&idx, last) != std::cmp::Ordering::Less) {
                self.rest.push(idx);
                continue;
            }
            if full {
                self.rest.push(self.order.pop().expect("ranked > 0"));
            }
            let at = self.order.partition_point(|o| rank(o, &idx) == std::cmp::Ordering::Less);
            self.order.insert(at, idx);
        }
        self.order.extend_from_slice(&self.rest);
        let mut first_open = 0;
        for i in 0..self.n_units() {
            let mask = self.unit_mask(i);
            if mask.overlaps(busy) {
                continue;
            }
            while first_open < ranked && self.candidates[self.order[first_open]].full {
                first_open += 1;
            }
            // Every candidate is full: no later RBG has a taker (a cell of light flows, each
            // covered by an RBG or two, left the rest of the band's loop with nothing to do).
            if first_open == n {
                break;
            }
            let mut k = first_open;
            let winner = loop {
                if k == ranked {
                    if ranked == n {
                        break None;
                    }
                    let (metrics, cands) = (&self.metrics, &self.candidates);
                    let rank = |a: &usize, b: &usize| {
                        metrics[*b].total_cmp(&metrics[*a]).then(cands[*a].ue.cmp(&cands[*b].ue))
                    };
                    self.order[ranked..].sort_unstable_by(rank);
                    ranked = n;
                }
                let c = &self.candidates[self.order[k]];
                if !c.full && !mask.overlaps(c.out_of_range) {
                    break Some(self.order[k]);
                }
                k += 1;
            };
            // An RBG no candidate may take stays empty (ns-3: "any UE found"); later ones may not.
            let Some(w) = winner else { continue };
            self.candidates[w].take(mask, dir, n_rbs);
            let c = &self.candidates[w];
            if k == first_open && c.never_full_anywhere() {
                self.candidates[w].rbs = self.candidates[w].rbs.union(self.free_units_after(i, busy));
                break;
            }
        }
    }

    /// The RBGs after RBG `i` that do not overlap `busy`, together.
    fn free_units_after(&self, i: u32, busy: RbMask) -> RbMask {
        let free = (i + 1..self.n_units()).map(|u| self.unit_mask(u)).filter(|m| !m.overlaps(busy));
        free.fold(RbMask::default(), RbMask::union)
    }

    /// Units (RBGs or RBs, each `unit_rbs` RBs) that carry `c`'s buffer, 1..=`max_units`
    /// (binary search: the TBS grows with the PRB count, Table 7.1.7.2.1-1).
    fn units_needed(&self, c: &Candidate, unit_rbs: u32, max_units: u32) -> u32 {
        let carries = |k: u32| tbs_bits(self.dir, c.mcs, (k * unit_rbs).min(self.n_rbs)) >= c.need_bits;
        let (mut lo, mut hi) = (1, max_units.max(1));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if carries(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Even split of `free_units` among the candidates in their current order, each capped at
    /// what its buffer needs, the leftover of capped UEs shared among the others (water-filling),
    /// and the remainder of the division one unit each to the first in order. At least
    /// `min_share` units per UE while they last (ns-3: 1 RBG downlink, 3 RBs uplink).
    /// Sets `target_units`. Whether a UE's need fits a share is one TBS lookup; the exact need
    /// (a search) is computed only for the UEs capped at it.
    fn split_evenly(&mut self, free_units: u32, unit_rbs: u32, min_share: u32) {
        for c in self.candidates.iter_mut() {
            c.target_units = 0;
            c.split = Split::Open;
        }
        let (mut left, mut open) = (free_units, self.candidates.len() as u32);
        let share = loop {
            let share = (left / open.max(1)).max(min_share);
            let mut capped_now = 0;
            for k in 0..self.candidates.len() {
                let c = &self.candidates[k];
                if c.split != Split::Open || !self.needs_at_most(c, unit_rbs, free_units, share) {
                    continue;
                }
                let need = self.units_needed(c, unit_rbs, share.min(free_units.max(1)));
                let c = &mut self.candidates[k];
                c.target_units = need;
                c.split = Split::CappedAtNeed;
                left = left.saturating_sub(need);
                capped_now += 1;
            }
            open -= capped_now;
            if capped_now == 0 || open == 0 {
                break (left / open.max(1)).max(min_share);
            }
        };
        let mut extra = left.saturating_sub(share * open);
        for c in self.candidates.iter_mut().filter(|c| c.split == Split::Open) {
            c.target_units = share + u32::from(extra > 0);
            extra = extra.saturating_sub(1);
        }
    }

    /// Whether `c` needs at most `share` units out of `max_units` (its need is capped at
    /// `max_units`, the most it could get).
    fn needs_at_most(&self, c: &Candidate, unit_rbs: u32, max_units: u32, share: u32) -> bool {
        share >= max_units.max(1) || tbs_bits(self.dir, c.mcs, (share * unit_rbs).min(self.n_rbs)) >= c.need_bits
    }
}

/// A TTI lasts 1 ms (TS 36.211 §4.1: a subframe).
const TTI_S: f64 = 0.001;
const BITS_PER_BYTE: f64 = 8.0;

#[cfg(test)]
mod tests;
