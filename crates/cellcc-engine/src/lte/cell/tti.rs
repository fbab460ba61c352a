//! The cell's 1 ms pipeline: receptions, HARQ feedback (and the outer loop), CQI and uplink
//! measurement, then downlink retransmissions, uplink grants and new downlink data, each DCI on
//! the PDCCH (TS 36.321 §5.3, §5.4; TS 36.213 §7, §8, §9.1).

use super::harq_feedback::Feedback as HarqFeedback;
use super::link_tti::{DemandRecord, LinkTtiStates};
use super::ue::{tti_end, TbPayload, UeContext, HARQ_FEEDBACK_DELAY};
use super::{Cell, CellOutput, TTI};
use crate::lte::config::{CellConfig, LinkAdaptationConfig, MacConfig};
use crate::lte::mac::harq::Feedback;
use crate::lte::mac::link_adaptation::{DlMcsMap, UlMcsRule};
use crate::lte::mac::pdcch::{aggregation_level, control_region_share, Pdcch, PdcchConfig, SearchSpaces};
use crate::lte::mac::scheduler::proportional_fair::PfColumns;
use crate::lte::mac::scheduler::rbg::rbg_size;
use crate::lte::mac::scheduler::{NewTb, Scheduler, UeDemand, SUBBAND_OUT_OF_RANGE};
use crate::lte::mac::uplink::UplinkRequests;
use crate::lte::mac::{
    subheader_bytes, MacPipeline, StatusPduPlacement, BSR_CE_BYTES, LENA_DL_RX_BEFORE_SUBFRAME_END_NS,
    LENA_MAC_TO_CHANNEL_TTIS, MAX_SUBHEADER_BYTES,
};
use crate::lte::phy::{self, CqiReport, HarqHistory, UlMeasurement, UplinkSounding};
use crate::lte::rlc::RlcPdu;
use crate::lte::sap::{LinkDir, RbMask, TbAssignment, TbOutcome, TxOpportunity, UeIndex};
use crate::lte::sinr::{HeldSinr, PuschGrant};
use crate::scenario::DlCqiMode;
use crate::sim::prefetch::load_together;
use crate::sim::{SimDuration, SimTime, NS_PER_MS};

/// CQI assumed before a UE's first report reaches the eNB: the lowest
/// in-range CQI, as ns-3's schedulers do without feedback (`m_cqiTimersThreshold` expiry → CQI 1).
const CQI_BEFORE_FIRST_REPORT: u8 = 1;

/// Subframes per radio frame (TS 36.211 §4.1): the PDCCH search space repeats with it.
const SUBFRAMES_PER_FRAME: u64 = 10;

/// The MAC state shared by the cell's UEs, with reused buffers.
pub(super) struct Macs {
    dl: Scheduler,
    ul: Scheduler,
    uplink: UplinkRequests,
    /// The per-UE tables (a network cell's are the network's, lent while it runs).
    tables: MacUeTables,
    srs_period_ms: u32,
    n_rbs: u32,
    /// A UE's aggregation level before any CQI report.
    dci_level_before_report: u8,
    /// An uplink retransmission happens a fixed time after its NACK (synchronous HARQ,
    /// TS 36.213 §8.0: PHICH at n+4, PUSCH retransmission at n+8).
    ul_retx_delay: SimDuration,
    la: LinkAdaptationConfig,
    dl_map: DlMcsMap,
    pdcch: Pdcch,
    pdcch_cfg: PdcchConfig,
    mac: MacConfig,
    demand: Vec<UeDemand>,
    new_tbs: Vec<NewTb>,
    retx: Vec<TbAssignment>,
    /// Scratch: UEs in the scheduler's priority order; a row for the effective CQI.
    order: Vec<UeIndex>,
    row: Vec<f64>,
}

impl Macs {
    /// The MAC of a cell of `n` UE indices, `attached` the ones attached at the start, with its
    /// per-UE `tables` and PDCCH `search_spaces` (a network cell's are empty: the network lends
    /// its own); a network cell's schedulers keep averages for the UEs attached only.
    pub fn new(
        spec: &CellConfig,
        n_rbs: u32,
        (n, attached): (usize, &[usize]),
        network: bool,
        tables: MacUeTables,
        search_spaces: SearchSpaces,
    ) -> Self {
        let scheduler = |dir| {
            let s = Scheduler::new(spec.scheduler, dir, n_rbs, n)
                .with_pf_time_window_ttis(spec.pf_window_ttis)
                .with_grant_sizing(spec.mac.grant_sizing)
                .with_last_rbg(spec.mac.last_rbg);
            if network {
                // Its averages' columns are the network's, lent ([`Macs::swap_tables`]).
                let mut s = s.with_members(attached);
                s.swap_pf_columns(&mut PfColumns::default());
                s
            } else {
                s
            }
        };
        Macs {
            dl: scheduler(LinkDir::Downlink),
            ul: scheduler(LinkDir::Uplink),
            uplink: UplinkRequests::new(&spec.uplink, n),
            tables,
            srs_period_ms: spec.uplink.srs_period_ms,
            n_rbs,
            dci_level_before_report: aggregation_level(f64::NEG_INFINITY, spec.pdcch.target_bler),
            ul_retx_delay: SimDuration::from_ms(spec.uplink.grant_delay_ms as u64),
            la: spec.link_adaptation,
            dl_map: DlMcsMap::new(n_rbs),
            pdcch: Pdcch::with_search_spaces(n_rbs, spec.pdcch.phich_ng, search_spaces),
            pdcch_cfg: spec.pdcch,
            mac: spec.mac,
            demand: Vec::with_capacity(n),
            new_tbs: Vec::with_capacity(n),
            retx: Vec::with_capacity(n),
            order: Vec::with_capacity(n),
            row: Vec::with_capacity(n_rbs as usize),
        }
    }
}

/// The MAC's per-UE tables that hold, for a UE not attached to the cell, what they held before
/// it first attached: [`Macs::forget`] puts a leaving UE's entries back and [`Macs::welcome`]
/// sets the joining UE's, and the cell reads only its attached UEs' entries (`demand_pos` only
/// where the entry it points at names the UE). A network keeps one of each for all its cells and lends
/// it to the cell that runs ([`Macs::swap_tables`]): each of the 19-site network's 57 cells held
/// them for all 570 UEs, and a TTI of a cell read some 10 entries of each, a page apiece
/// (docs/performance.md, "Issue 34: the 19-site network, eighth round").
pub(crate) struct MacUeTables {
    /// Per UE: the eNB's uplink measurement from its SRS and PUSCH (an empty one for a UE not
    /// attached).
    sounding: Vec<UplinkSounding>,
    /// Per UE: the uplink MCS over the whole band (the demand's and the capacity's; a grant's own
    /// MCS is computed over its RBs), and what it is for: the estimate's version and the outer
    /// loop's gain, whose every step moves the MCS the eNB expects as it moves the grants'.
    ul_band_mcs: Vec<Option<(BandMcsFor, Option<u8>)>>,
    /// Per UE: the aggregation level of its DCIs, and what it was chosen for.
    dci_level: Vec<u8>,
    dci_level_for: Vec<Option<DciLevelInput>>,
    /// Per UE: the source's control-region SINR and the time it holds until (a network's holds
    /// for the 10 ms large-scale step; asked each TTI for each listed UE, it cost a load of the
    /// UE's channel state, out of cache after the other cells' TTIs).
    control_sinr: Vec<Option<HeldSinr>>,
    /// Per UE, its entry in the demand of the last TTI half that listed it ([`NOT_IN_DEMAND`]
    /// before the first): the entry is the UE's in this TTI's demand only if it names the UE.
    /// Not reset when the demand is cleared (a pass over the last demand's UEs, out of cache in a
    /// network): a UE not in this demand holds a stale position, which [`Macs::no_new_data`]
    /// tells by the entry's UE.
    demand_pos: Vec<u32>,
}

impl MacUeTables {
    /// The tables of `n` UE indices, none attached.
    pub(crate) fn new(spec: &CellConfig, n: usize) -> Self {
        MacUeTables {
            sounding: (0..n).map(|i| UplinkSounding::new(i, spec.uplink.srs_period_ms, 0)).collect(),
            ul_band_mcs: vec![None; n],
            dci_level: vec![aggregation_level(f64::NEG_INFINITY, spec.pdcch.target_bler); n],
            dci_level_for: vec![None; n],
            control_sinr: vec![None; n],
            demand_pos: vec![NOT_IN_DEMAND; n],
        }
    }

    /// The uplink band MCS of each UE of `list` whose estimate changed since it was found, where
    /// the sums the estimate kept decide it at the UE's outer-loop gain now
    /// ([`UplinkSounding::kept_band_mcs`]; `link_tti` holds the outer loops): the same MCS as the
    /// MIESM over the band, which the demand computes for the others. Their estimates are loaded
    /// together in the same pass (in a network, every other cell's TTI ran since a PUSCH's
    /// decode last wrote one).
    fn refresh_kept_band_mcs(&mut self, list: &[u32], link_tti: &mut LinkTtiStates) {
        for i in list.iter().map(|&i| i as usize) {
            let gain_lin = link_tti.link(i, LinkDir::Uplink).olla.gain_lin();
            let now_for = BandMcsFor::of(&self.sounding[i], gain_lin);
            let last = match self.ul_band_mcs[i] {
                Some((f, _)) if f == now_for => continue,
                Some((_, last)) => last,
                None => None,
            };
            match self.sounding[i].kept_band_mcs(gain_lin, last.unwrap_or(0)) {
                Some(mcs) => self.ul_band_mcs[i] = Some((now_for, Some(mcs))),
                None => load_together(self.sounding[i].estimate_words()),
            }
        }
    }
}

#[cfg(test)]
impl Cell {
    /// UE `i`'s uplink band MCS as the demand last held it, and its estimate's band MCS at its
    /// outer loop's gain now and at no offset (gain 1).
    pub(super) fn ul_band_mcs_held_now_and_unshifted(&mut self, i: usize) -> (Option<u8>, Option<u8>, Option<u8>) {
        let held = self.macs.tables.ul_band_mcs[i].and_then(|(_, m)| m);
        let gain_lin = self.tables.link_tti.link(i, LinkDir::Uplink).olla.gain_lin();
        let mut sounding = self.macs.tables.sounding[i].clone();
        (held, sounding.band_mcs(gain_lin), sounding.band_mcs(1.0))
    }
}

/// What an uplink band MCS was found for: the estimate's version and the outer loop's gain (its
/// bits), the two inputs of [`UplinkSounding::band_mcs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BandMcsFor {
    version: u64,
    gain_bits: u64,
}

impl BandMcsFor {
    fn of(sounding: &UplinkSounding, gain_lin: f64) -> Self {
        BandMcsFor { version: sounding.version(), gain_bits: gain_lin.to_bits() }
    }
}

/// Periodic CQI reports fall on subframes fixed by the UE's configuration, counted from SFN 0,
/// whether or not it has data (TS 36.213 §7.2.2, N_OFFSET,CQI = 0): the grid runs from the start
/// of the run, not from the first TTI in which the cell had work.
const CQI_GRID_ORIGIN: SimTime = SimTime::ZERO;

/// What a UE's DCI aggregation level was chosen for: an unchanged input keeps the level (each
/// choice computes the PDCCH error at up to four levels; a network cell's control-region SINR
/// holds for a large-scale epoch, 10 ms or more, and was the input of two such choices per UE and TTI).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DciLevelInput {
    /// The downlink CQI the eNB holds.
    Cqi(u8),
    /// A network cell's control-region SINR, dB (its bits).
    ControlSinrDb(u64),
}

/// A UE with no entry in this TTI's demand.
const NOT_IN_DEMAND: u32 = u32::MAX;

/// A transport block scheduled in a network cell's TTI, decoded in the TTI's second half.
pub(super) struct OnAir {
    pub a: TbAssignment,
    payload: TbPayload,
    history: HarqHistory,
    /// A new uplink TB's BSR: the UE's buffer left after building it.
    bsr_bytes: Option<u32>,
}

impl Macs {
    /// UE `ue` takes no new data this TTI (a retransmission, a blocked DCI).
    fn no_new_data(&mut self, ue: usize) {
        let entry = self.demand.get_mut(self.tables.demand_pos[ue] as usize);
        if let Some(d) = entry.filter(|d| d.ue.index() == ue) {
            d.buffered_bytes = 0;
        }
    }

    /// Whether the eNB still owes UE `i` an uplink grant or awaits its request (SR, BSR, grants
    /// in flight): the UE has work even with its buffer empty.
    pub(super) fn uplink_busy(&self, i: usize) -> bool {
        self.uplink.ue_busy(UeIndex(i as u16))
    }

    /// `n` TTIs passed in which no UE had work (the cell was not woken): the schedulers' state
    /// moves on as in `n` TTIs that served no one.
    pub(super) fn idle_ttis(&mut self, n: u64) {
        self.dl.idle_ttis(n);
        self.ul.idle_ttis(n);
    }

    /// UE `i` left the cell: what the MAC knew of it goes (its requests and grants, its uplink
    /// estimate, its scheduler averages).
    pub(super) fn forget(&mut self, i: usize) {
        let ue = UeIndex(i as u16);
        self.uplink.forget(ue);
        self.dl.forget(ue);
        self.ul.forget(ue);
        self.reset_tables(i, 0);
    }

    /// UE `i` joined the cell: a fresh uplink estimate.
    pub(super) fn welcome(&mut self, i: usize) {
        self.dl.join(UeIndex(i as u16));
        self.ul.join(UeIndex(i as u16));
        self.init_tables(i);
    }

    /// UE `i`'s entries as this cell starts them for an attached UE (a network's tables were
    /// put back by the cell the UE left, or built with another cell's settings).
    pub(super) fn init_tables(&mut self, i: usize) {
        self.reset_tables(i, self.n_rbs as usize);
    }

    /// UE `i`'s entries as before any estimate or DCI, its uplink estimate over `estimate_rbs`
    /// RBs (none for a UE not attached).
    fn reset_tables(&mut self, i: usize, estimate_rbs: usize) {
        self.tables.sounding[i] = UplinkSounding::new(i, self.srs_period_ms, estimate_rbs);
        self.tables.ul_band_mcs[i] = None;
        self.tables.dci_level[i] = self.dci_level_before_report;
        self.tables.dci_level_for[i] = None;
        self.tables.control_sinr[i] = None;
    }

    /// Exchange the per-UE tables with `tables` (a network lends its own, then takes them back).
    pub(super) fn swap_tables(
        &mut self,
        tables: &mut MacUeTables,
        search_spaces: &mut SearchSpaces,
        [dl_pf, ul_pf]: &mut [PfColumns; 2],
    ) {
        std::mem::swap(&mut self.tables, tables);
        self.pdcch.swap_search_spaces(search_spaces);
        self.dl.swap_pf_columns(dl_pf);
        self.ul.swap_pf_columns(ul_pf);
    }
}

impl Cell {
    pub(super) fn run_tti(&mut self, now: SimTime, out: &mut CellOutput) {
        self.begin_tti(now, out);
        self.end_tti(now);
    }

    /// The TTI up to its transmissions: receptions, HARQ feedback, measurements (a lone cell),
    /// then the downlink retransmissions, uplink grants and new downlink data. A lone cell
    /// decodes each TB as it goes; a network cell keeps them on the air for [`Self::end_tti`].
    pub(super) fn begin_tti(&mut self, now: SimTime, out: &mut CellOutput) {
        // Only the UEs with work this TTI (`active`); a UE that had none since its last visit
        // first catches up on the measurements it missed.
        let mut list = std::mem::take(&mut self.list);
        self.active.list(&mut list);
        #[cfg(test)]
        if self.visit_all {
            list.clear();
            list.extend(self.ues.attached().map(|(i, _)| i as u32));
        }
        self.macs.tables.demand_pos.resize(self.ues.len(), NOT_IN_DEMAND);
        if self.network {
            self.touch_due(&list, now);
        }
        for &i in &list {
            let i = i as usize;
            if self.tables.last_visit[i].is_none_or(|t| t + TTI < now) {
                self.catch_up(i, now);
            }
            self.tables.last_visit[i] = Some(now);
            if self.tables.air.arrival_due(i, now) {
                for dir in [LinkDir::Downlink, LinkDir::Uplink] {
                    self.ues[i].deliver_arrivals(now, dir, out);
                }
                self.tables.air.arrivals_delivered(i, &self.ues[i]);
                self.tables.rlc.touch(i);
            }
        }
        for &i in &list {
            let i = i as usize;
            if self.tables.air.feedback_due(i, now) {
                let lost = [LinkDir::Downlink, LinkDir::Uplink].map(|dir| self.feedback(i, dir, now, out));
                self.air_changed(i);
                // A TB given up loses its PDUs to the receiving entity; an ACK or a NACK leaves
                // both entities as they were (their views stay fresh).
                if lost.contains(&true) {
                    self.tables.rlc.touch(i);
                }
            }
        }
        if !self.network {
            self.measure_cqi(&list, now);
        }
        self.macs.pdcch.clear();
        let busy = self.downlink_retransmissions(&list, now);
        self.uplink(&list, now, out);
        self.downlink_new(&list, now, busy, out);
        self.list = list;
    }

    /// Reads the front of every reception due now, before the pass that handles them. Each sits
    /// behind a chain of loads (the context, its link's queue, the queue's block, a TB's PDUs)
    /// that the other cells' TTIs evicted from the cache; handled UE by UE,
    /// the chains ran one after the other, and this pass lets the processor follow the UEs'
    /// chains side by side (docs/performance.md, "The 19-site network's cells, second round").
    /// A lone cell's TTI does not part its UEs' work so (and a pass over a thousand UEs with one
    /// or two due cost more than it saved): network cells only.
    fn touch_due(&self, list: &[u32], now: SimTime) {
        let due = list.iter().map(|&i| i as usize).filter(|&i| self.tables.air.arrival_due(i, now));
        // Both links, as the pass reads both.
        load_together(due.flat_map(|i| {
            [&self.ues[i].dl, &self.ues[i].ul].map(|link| {
                let first_pdu = link.arrivals.front().and_then(|(_, p)| p.first());
                first_pdu.map_or(0, |pdu| u64::from(pdu.bytes()))
            })
        }));
    }

    /// As [`Self::touch_due`], for what decoding each TB on the air writes: its link's held slot.
    fn touch_on_air(&self) {
        load_together(self.on_air.iter().map(|tb| {
            let ue = &self.ues[tb.a.ue.index()];
            let link = match tb.a.dir {
                LinkDir::Downlink => &ue.dl,
                LinkDir::Uplink => &ue.ul,
            };
            link.slots.held_tbs()
        }));
    }

    /// The rest of the TTI: a network cell decodes its TBs (every cell's transmissions known)
    /// and measures; then each UE's counters, and who still has work.
    pub(super) fn end_tti(&mut self, now: SimTime) {
        let mut list = std::mem::take(&mut self.list);
        if self.network {
            self.touch_on_air();
            // Drained and handed back: the list keeps its capacity for the next TTI's TBs.
            let mut on_air = std::mem::take(&mut self.on_air);
            for tb in on_air.drain(..) {
                self.decode(now, tb);
            }
            self.on_air = on_air;
            self.measure_cqi(&list, now);
        }
        let serving = self.network.then_some(self.index);
        // One division per TTI, not per UE (`rlc.get` borrows the cell, so it was not hoisted).
        let slot = now.as_ns() / self.slot_width.as_ns().max(1);
        for &i in &list {
            let i = i as usize;
            let rlc = self.tables.rlc.get(i, &self.ues[i], now);
            let levels = [rlc.enb, rlc.ue].map(|l| (l.sdu_bytes, l.data_pdus_retransmitted));
            if let Some(records) = self.tables.link_tti.records_to_sample(i, slot, levels, serving) {
                let ue = &mut self.ues[i];
                ue.record_demand(now, records);
                ue.sample_levels(now, serving, levels);
            }
        }
        // Every UE with work now: the listed ones and any a grant or retransmission reached.
        self.active.list(&mut list);
        for &i in &list {
            self.track(i as usize);
        }
        self.list = list;
        #[cfg(debug_assertions)]
        {
            self.tables.air.check(&self.ues, &self.tables.harq_feedback);
            self.tables.rlc.check(&self.ues, now);
        }
    }

    /// HARQ feedback due now: free the process, queue a retransmission, or give up on the TB
    /// (its SDUs are lost unless RLC AM recovers them); a first transmission's outcome moves the
    /// outer loop. Returns whether a TB was given up.
    fn feedback(&mut self, i: usize, dir: LinkDir, now: SimTime, out: &mut CellOutput) -> bool {
        let ul_retx_delay = self.macs.ul_retx_delay;
        let olla = self.macs.la.olla;
        let ue = &mut self.ues[i];
        let mut lost = false;
        while let Some(HarqFeedback { harq, outcome, first_tx, .. }) = self.tables.harq_feedback.pop_due(i, dir, now) {
            let link = ue.link(dir);
            // A DCI the UE missed brings no HARQ-ACK (DTX): nothing to learn from.
            if first_tx && outcome != TbOutcome::ControlLost {
                let decoded = outcome == TbOutcome::Decoded;
                let slot = link.slots.at(now);
                slot.first_tx += 1;
                slot.first_tx_nacks += u64::from(!decoded);
                if let Some(cfg) = &olla {
                    self.tables.link_tti.link(i, dir).olla.first_transmission(cfg, decoded);
                }
            }
            match link.harq.on_feedback(harq, outcome) {
                Feedback::Acked => {}
                Feedback::Retransmit => {
                    if dir == LinkDir::Uplink {
                        ue.ul.synchronous_retx.push_back((now + ul_retx_delay, harq));
                    }
                }
                Feedback::ResidualLoss(payload) => {
                    ue.link(dir).slots.at(now).harq_residual_losses += 1;
                    ue.lose_tb(now, dir, payload, out);
                    lost = true;
                }
            }
        }
        lost
    }

    /// Each UE measures its downlink and reports a wideband CQI (or, with `dl_mcs_from =
    /// "worst_subband"`, its worst sub-band CQI) every CQI period (TS 36.213 §7.2); the eNB
    /// measures a UE's uplink on its SRS occasions (and on its PUSCH, in [`Self::send`]).
    fn measure_cqi(&mut self, list: &[u32], now: SimTime) {
        let period = SimDuration::from_ms(self.cqi.period_ms as u64);
        let now_ms = now.as_ns() / NS_PER_MS;
        for &i in list {
            let i = i as usize;
            if self.tables.link_tti.dl_cqi(i).due(now, period) {
                self.measure_dl(i, now);
            }
            if self.macs.tables.sounding[i].srs_due(now_ms) {
                self.measure_srs(i, now);
            }
        }
    }

    /// UE `i` measures its downlink at `at` and sends the report, usable `cqi.delay_ms` later.
    fn measure_dl(&mut self, i: usize, at: SimTime) {
        let ue_index = UeIndex(i as u16);
        let dl_mode = self.cqi.dl_mcs_from;
        // Mode 3-0 sub-bands of one RBG, as ns-3 LENA's A30 report (phy::worst_in_range_subband).
        let subband_rbs = rbg_size(self.n_rbs) as usize;
        let delay = self.cqi_delay();
        let ue = &mut self.ues[i];
        let id = self.sinr.row_id(ue_index, LinkDir::Downlink, at);
        // `sinr_lin` is scratch shared by every UE and direction: the memo spares the row only
        // when the CQI is already derived from it (decoding a TB names the row but derives none).
        if !ue.dl.memo.holds(id) || ue.dl.memo.cqi.is_none() {
            self.sinr.per_rb_sinr_lin(ue_index, LinkDir::Downlink, at, &mut self.sinr_lin);
            ue.dl.memo.refresh(id, &self.sinr_lin);
        }
        let sinr_lin = &self.sinr_lin;
        let cqi = *ue.dl.memo.cqi.get_or_insert_with(|| match dl_mode {
            DlCqiMode::Wideband => CqiReport::wideband(phy::wideband_cqi(sinr_lin)),
            DlCqiMode::WorstSubband => phy::worst_in_range_subband(sinr_lin, subband_rbs),
        });
        self.tables.link_tti.dl_cqi(i).measured(at, cqi, at + delay);
    }

    /// The eNB measures UE `i`'s SRS sent at `at`.
    fn measure_srs(&mut self, i: usize, at: SimTime) {
        self.sinr.per_rb_sinr_lin(UeIndex(i as u16), LinkDir::Uplink, at, &mut self.sinr_lin);
        self.macs.tables.sounding[i].sounded(at.as_ns() / NS_PER_MS, &self.sinr_lin);
        self.uplink_measured(i, at, Sounding::Srs);
    }

    /// UE `i` has work again after an idle time in which nothing measured it: the reports that
    /// would be in force or in flight now are measured at their own occasions (the downlink CQI
    /// on its grid of periods, the SRS at the UE's offsets), so the scheduler sees what it
    /// would have seen had the UE been measured throughout. The report that was in force before
    /// stands in for the idle time in the `lte` table (its `cqi` and `capacity_bps`).
    fn catch_up(&mut self, i: usize, now: SimTime) {
        self.ues[i].fill_idle_slots(now);
        let period = SimDuration::from_ms(self.cqi.period_ms as u64);
        let delay = self.cqi_delay();
        let mut dl = self.tables.link_tti.dl_cqi(i).missed_occasions(CQI_GRID_ORIGIN, period, delay, now).peekable();
        let now_ms = now.as_ns() / NS_PER_MS;
        let srs = self.macs.tables.sounding[i].missed_occasions_ms(delay.as_ns() / NS_PER_MS, now_ms);
        let mut srs = srs.map(|ms| SimTime(ms * NS_PER_MS)).peekable();
        // In time order, the downlink first at a tie (as `measure_cqi`): a channel whose large
        // scale only steps forward (shadowing along the track) is asked as it would have been.
        loop {
            let (d, s) = (dl.peek().copied(), srs.peek().copied());
            if let Some(d) = d.filter(|&d| s.is_none_or(|s| d <= s)) {
                dl.next();
                self.measure_dl(i, d);
            } else if let Some(s) = s {
                srs.next();
                self.measure_srs(i, s);
            } else {
                break;
            }
        }
    }

    /// The eNB's uplink estimate of UE `i` changed (SRS or DMRS): its uplink CQI follows (LENA's
    /// MCS source; for the effective-SINR rule the `lte` table's, taken at each SRS).
    fn uplink_measured(&mut self, i: usize, now: SimTime, by: Sounding) {
        let delay = self.cqi_delay();
        let macs = &mut self.macs;
        let sounding = &mut macs.tables.sounding[i];
        let cqi = match macs.la.ul_mcs_from {
            UlMcsRule::LenaMinimumSinr => sounding.lena_cqi(),
            UlMcsRule::EffectiveSinr => match by {
                Sounding::Srs => sounding.effective_cqi(&mut macs.row),
                Sounding::Dmrs => None,
            },
        };
        if let Some(cqi) = cqi {
            self.tables.link_tti.link(i, LinkDir::Uplink).cqi.measured(now, CqiReport::wideband(cqi), now + delay);
        }
    }

    fn cqi_delay(&self) -> SimDuration {
        SimDuration::from_ms(self.cqi.delay_ms as u64)
    }

    /// UE `i`'s DCI aggregation level for a DCI at `now`, from the control-region SINR its source
    /// gives or else the downlink CQI the eNB holds (the PDCCH is a downlink channel: uplink
    /// grants ride it too). Chosen when a DCI is placed: a UE without one needs no level.
    fn refresh_dci_level(&mut self, i: usize, now: SimTime) {
        let input = match self.pdcch_sinr_db(UeIndex(i as u16), now) {
            Some(sinr_db) => DciLevelInput::ControlSinrDb(sinr_db.to_bits()),
            None => DciLevelInput::Cqi(
                self.tables.link_tti.dl_cqi(i).current(now).map_or(CQI_BEFORE_FIRST_REPORT, |r| r.cqi),
            ),
        };
        if self.macs.tables.dci_level_for[i] == Some(input) {
            return;
        }
        let sinr_db = match input {
            DciLevelInput::ControlSinrDb(bits) => f64::from_bits(bits),
            DciLevelInput::Cqi(0) => f64::NEG_INFINITY,
            DciLevelInput::Cqi(cqi) => self.macs.dl_map.cqi_sinr_db(cqi),
        };
        self.macs.tables.dci_level[i] = aggregation_level(sinr_db, self.macs.pdcch_cfg.target_bler);
        self.macs.tables.dci_level_for[i] = Some(input);
    }

    /// The share of its control region's REs this cell sends on in the TTI at `now`
    /// ([`control_region_share`]): its DCIs' CCEs if it ran that TTI, none otherwise. Without a
    /// CCE budget the DCIs have no place: the whole region, as LENA's control frames.
    pub(crate) fn control_region_share(&self, now: SimTime) -> f64 {
        let cfg = &self.macs.pdcch_cfg;
        if !cfg.capacity {
            return 1.0;
        }
        let cces = if self.last_tti_is(now) { self.macs.pdcch.cces_taken() } else { 0 };
        control_region_share(self.n_rbs, cfg.phich_ng, cces)
    }

    /// The source's control-region SINR of UE `ue` at `now` (`SinrSource::pdcch_sinr_db`), asked
    /// again only when the one held has run out.
    fn pdcch_sinr_db(&mut self, ue: UeIndex, now: SimTime) -> Option<f64> {
        let held = &mut self.macs.tables.control_sinr[ue.index()];
        if let Some(h) = held.filter(|h| now < h.until) {
            return Some(h.sinr_db);
        }
        *held = self.sinr.pdcch_sinr_db(ue, now);
        held.map(|h| h.sinr_db)
    }

    /// Place UE `ue`'s DCI for `dir` in this TTI's control region (always, without a CCE
    /// budget) and count it.
    fn place_dci(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime) -> bool {
        let placed = self.try_place_dci(ue, now);
        self.count_dci(ue, dir, now, placed);
        placed
    }

    fn try_place_dci(&mut self, ue: UeIndex, now: SimTime) -> bool {
        if !self.macs.pdcch_cfg.capacity {
            return true;
        }
        self.refresh_dci_level(ue.index(), now);
        let level = self.macs.tables.dci_level[ue.index()];
        let subframe = ((now.as_ns() / NS_PER_MS) % SUBFRAMES_PER_FRAME) as usize;
        self.macs.pdcch.place(ue, level, subframe)
    }

    /// A DCI placed (its CCEs counted) or blocked, on the link of `dir`.
    fn count_dci(&mut self, ue: UeIndex, dir: LinkDir, now: SimTime, placed: bool) {
        if !self.macs.pdcch_cfg.capacity {
            return;
        }
        let level = u64::from(self.macs.tables.dci_level[ue.index()]);
        let slot = self.ues[ue.index()].link(dir).slots.at(now);
        if placed {
            slot.dcis += 1;
            slot.dci_cces += level;
        } else {
            slot.pdcch_blocked += 1;
        }
    }

    /// What each UE has for `dir`, as the eNB knows it, and the capacity sample.
    fn gather_demand(&mut self, list: &[u32], dir: LinkDir, now: SimTime) {
        let n_rbs = self.n_rbs;
        let macs = &mut self.macs;
        let demand = &mut macs.demand;
        demand.clear();
        if dir == LinkDir::Uplink && macs.la.ul_mcs_from == UlMcsRule::EffectiveSinr {
            macs.tables.refresh_kept_band_mcs(list, &mut self.tables.link_tti);
        }
        for &i in list {
            let i = i as usize;
            let buffered = match dir {
                LinkDir::Downlink => {
                    self.tables.rlc.levels(i, &self.ues[i], now, LinkDir::Downlink).buffered_bytes(now)
                }
                LinkDir::Uplink => macs.uplink.reported_bytes(UeIndex(i as u16)),
            };
            let link_tti = self.tables.link_tti.link(i, dir);
            // The fields read, not the report copied (its sub-bands are read below only for a
            // sub-band report).
            let (reported_cqi, out_of_range) = match link_tti.cqi.current(now) {
                // Sub-bands reported out of range get no data (worst_subband mode; none otherwise).
                Some(r) => (Some(r.cqi), r.out_of_range),
                None => (None, RbMask::default()),
            };
            let cqi = reported_cqi.unwrap_or(CQI_BEFORE_FIRST_REPORT);
            // A CQI's MCS, wideband or sub-band: none for CQI 0, out of range (the UE cannot be
            // served there, TS 36.213 Table 7.2.3-1); through the outer loop on the downlink.
            let (la, dl_map, olla) = (&macs.la, &macs.dl_map, link_tti.olla);
            let mcs_of_cqi = |c: u8| match c {
                0 => None,
                c if dir == LinkDir::Downlink && la.olla.is_some() => Some(dl_map.mcs(c, olla.offset_db())),
                c => Some(phy::mcs_from_cqi(c)),
            };
            let mcs = match (dir, macs.la.ul_mcs_from) {
                (LinkDir::Uplink, UlMcsRule::EffectiveSinr) => {
                    let sounding = &mut macs.tables.sounding[i];
                    let now_for = BandMcsFor::of(sounding, olla.gain_lin());
                    let band_mcs = match macs.tables.ul_band_mcs[i] {
                        Some((f, m)) if f == now_for => m,
                        _ => {
                            let m = sounding.band_mcs(olla.gain_lin());
                            macs.tables.ul_band_mcs[i] = Some((now_for, m));
                            m
                        }
                    };
                    // No CQI 0 on the uplink: the eNB grants at its most robust MCS at worst.
                    Some(band_mcs.unwrap_or(0))
                }
                _ => link_tti.wideband_mcs(cqi, mcs_of_cqi),
            };
            // A sub-band report: each sub-band's MCS by the same rule, for PF and MT to rank RBG by
            // RBG (LENA's A30 use, pf-ff-mac-scheduler.cc `DoSchedDlTriggerReq`).
            // Nearly always none out of range: the bit count (a software popcount of 128 bits in
            // this build) is skipped then.
            let usable_rbs = if out_of_range.is_empty() { n_rbs } else { n_rbs - out_of_range.count() };
            // The slot's CQI and capacity are written with the TTI's sample (`UeContext::sample`).
            link_tti.record = Some(DemandRecord { cqi: reported_cqi, band: mcs.map(|m| (m, usable_rbs)) });
            // LENA judges an uplink CQI on the RBs it grants, not on the band: a UE with an
            // estimate is a candidate whatever the band's minimum (`size_lena_uplink_grants`).
            let lena_candidate =
                dir == LinkDir::Uplink && macs.la.ul_mcs_from == UlMcsRule::LenaMinimumSinr && reported_cqi.is_some();
            macs.tables.demand_pos[i] = demand.len() as u32;
            demand.push(UeDemand {
                ue: UeIndex(i as u16),
                buffered_bytes: if mcs.is_some() || lena_candidate { buffered } else { 0 },
                mcs: mcs.unwrap_or(0),
                out_of_range,
                has_free_harq: self.tables.air.harq_free(i, dir),
                rbg_mcs: None,
            });
            // A sub-band report: each sub-band's MCS by the same rule, for PF and MT to rank RBG by
            // RBG (LENA's A30 use, pf-ff-mac-scheduler.cc `DoSchedDlTriggerReq`). Written into the
            // entry in place: a wideband UE's entry is built without copying the array.
            if let Some(r) =
                link_tti.cqi.in_force().filter(|r| dir == LinkDir::Downlink && !r.subbands.as_slice().is_empty())
            {
                let per_rbg =
                    demand.last_mut().expect("pushed above").rbg_mcs.insert([SUBBAND_OUT_OF_RANGE; phy::MAX_SUBBANDS]);
                for (m, &sb_cqi) in per_rbg.iter_mut().zip(r.subbands.as_slice()) {
                    *m = mcs_of_cqi(sb_cqi).unwrap_or(SUBBAND_OUT_OF_RANGE);
                }
            }
        }
    }

    /// Downlink HARQ retransmissions first, on their own RBs (ns-3's order), each with its DCI
    /// (an adaptive downlink retransmission needs one: TS 36.213 §7.1); a blocked one waits.
    /// Returns the RBs they take.
    fn downlink_retransmissions(&mut self, list: &[u32], now: SimTime) -> RbMask {
        let mut retx = std::mem::take(&mut self.macs.retx);
        retx.clear();
        let mut busy = RbMask::default();
        for &i in list.iter().filter(|&&i| self.tables.air.dl_retx_queued(i as usize)) {
            for a in self.ues[i as usize].dl.harq.pending_retransmissions() {
                if !a.rbs.overlaps(busy) {
                    busy = busy.union(a.rbs);
                    retx.push(a);
                }
            }
        }
        retx.retain(|a| self.place_dci(a.ue, LinkDir::Downlink, now));
        for a in &retx {
            self.retransmit(now, a);
        }
        self.macs.retx = retx;
        busy
    }

    /// New downlink data on the RBs the retransmissions left (`busy` taken).
    fn downlink_new(&mut self, list: &[u32], now: SimTime, busy: RbMask, out: &mut CellOutput) {
        self.gather_demand(list, LinkDir::Downlink, now);
        self.one_tb_per_ue();
        let mut new_tbs = std::mem::take(&mut self.macs.new_tbs);
        new_tbs.clear();
        self.schedule_with_pdcch(LinkDir::Downlink, busy, now, &mut new_tbs);
        for tb in &new_tbs {
            self.transmit_new(now, LinkDir::Downlink, tb, out);
        }
        self.macs.new_tbs = new_tbs;
    }

    /// Uplink: the grants issued `grant_delay` ago and the synchronous
    /// retransmissions due now go on the air; then SR/BSR bookkeeping and the
    /// grants for `now + grant_delay` (TS 36.213 §8.0, TS 36.321 §5.4), whose MAC PDUs a UE that
    /// builds them on the grant (`mac.pipeline = "lena"`) takes from its RLC now.
    fn uplink(&mut self, list: &[u32], now: SimTime, out: &mut CellOutput) {
        for &i in list {
            let ue_rlc = *self.tables.rlc.levels(i as usize, &self.ues[i as usize], now, LinkDir::Uplink);
            self.macs.uplink.ue_rlc_changes(UeIndex(i as u16), ue_rlc.buffer_changes);
            self.macs.uplink.ue_buffer(now, UeIndex(i as u16), ue_rlc.buffered_bytes(now));
        }
        let mut new_tbs = std::mem::take(&mut self.macs.new_tbs);
        new_tbs.clear();
        self.macs.uplink.grants_due(now, &mut new_tbs);
        for tb in &new_tbs {
            self.transmit_new(now, LinkDir::Uplink, tb, out);
            // Under LENA's pipeline the PDU built on the grant left the UE's queue (the TB's
            // HARQ process changes when it is decoded).
            if self.macs.mac.pipeline == MacPipeline::Lena {
                self.air_changed(tb.ue.index());
            }
        }
        let busy_later = self.uplink_retransmissions(list, now);
        self.gather_demand(list, LinkDir::Uplink, now);
        let later = now + self.macs.ul_retx_delay;
        for &i in list.iter().filter(|&&i| self.tables.air.ul_retx_scheduled(i as usize)) {
            if self.ues[i as usize].ul.synchronous_retx.iter().any(|&(t, _)| t == later) {
                self.macs.no_new_data(i as usize);
            }
        }
        new_tbs.clear();
        self.schedule_with_pdcch(LinkDir::Uplink, busy_later, now, &mut new_tbs);
        match self.macs.la.ul_mcs_from {
            UlMcsRule::EffectiveSinr => self.size_uplink_grants(now, &mut new_tbs),
            UlMcsRule::LenaMinimumSinr => self.size_lena_uplink_grants(&mut new_tbs),
        }
        self.drop_missed_grants(now, &mut new_tbs);
        self.macs.uplink.granted(now, &new_tbs);
        if self.macs.mac.pipeline == MacPipeline::Lena {
            let status_pdu = self.macs.mac.status_pdu;
            for tb in &new_tbs {
                self.tables.rlc.touch_transmitting(tb.ue.index(), LinkDir::Uplink);
                let ue = &mut self.ues[tb.ue.index()];
                let pdu = fill_tb(ue, LinkDir::Uplink, tb.tbs_bits, now, status_pdu);
                ue.ul.built.push_back(pdu);
                self.air_changed(tb.ue.index());
            }
        }
        self.macs.new_tbs = new_tbs;
    }

    /// Share the free RBs of `dir` among the UEs with demand, each served UE's DCI placed on the
    /// PDCCH; a UE whose DCI finds no room is left out and the RBs shared again without it.
    fn schedule_with_pdcch(&mut self, dir: LinkDir, busy: RbMask, now: SimTime, out: &mut Vec<NewTb>) {
        loop {
            let macs = &mut self.macs;
            let scheduler = match dir {
                LinkDir::Downlink => &mut macs.dl,
                LinkDir::Uplink => &mut macs.ul,
            };
            scheduler.allocate(busy, &macs.demand);
            if !macs.pdcch_cfg.capacity {
                scheduler.commit(busy, out);
                return;
            }
            let mut order = std::mem::take(&mut macs.order);
            scheduler.allocated_in_priority(&mut order);
            let before = macs.pdcch.snapshot();
            let mut blocked = false;
            for &ue in &order {
                if !self.try_place_dci(ue, now) {
                    self.count_dci(ue, dir, now, false);
                    self.macs.no_new_data(ue.index());
                    blocked = true;
                }
            }
            if !blocked {
                for &ue in &order {
                    self.count_dci(ue, dir, now, true);
                }
                self.macs.order = order;
                let macs = &mut self.macs;
                match dir {
                    LinkDir::Downlink => macs.dl.commit(busy, out),
                    LinkDir::Uplink => macs.ul.commit(busy, out),
                }
                return;
            }
            // The blocked UEs are left out; the others are placed again with the new allocation.
            self.macs.order = order;
            self.macs.pdcch.restore(before);
        }
    }

    /// Each uplink grant's MCS from the effective SINR of the eNB's estimate over its own RBs
    /// plus the outer loop's offset, and the TBS that follows (TS 36.213 §8.6.1-8.6.2).
    fn size_uplink_grants(&mut self, now: SimTime, grants: &mut [NewTb]) {
        let now_ms = now.as_ns() / NS_PER_MS;
        for g in grants.iter_mut() {
            let i = g.ue.index();
            let sounding = &self.macs.tables.sounding[i];
            let gain_lin = self.tables.link_tti.link(i, LinkDir::Uplink).olla.gain_lin();
            let link = &mut self.ues[i].ul;
            if let Some(mcs) = sounding.effective_mcs(g.rbs, gain_lin) {
                g.mcs = mcs;
                g.tbs_bits = phy::tbs_bits(LinkDir::Uplink, mcs, g.rbs.count());
            }
            let (age_sum, rbs) = sounding.age_ms(now_ms, g.rbs);
            let slot = link.slots.at(now);
            slot.sinr_age_ms_sum += age_sum;
            slot.sinr_age_rbs += u64::from(rbs);
        }
    }

    /// Each uplink grant's MCS as ns-3 LENA sets it: the CQI of the minimum SINR over the grant's
    /// own RBs, its MCS by LENA's CQI-to-MCS table; a grant whose CQI is 0 is withdrawn and its
    /// RBs stay empty this TTI (pf/rr-ff-mac-scheduler.cc `DoSchedUlTriggerReq`: the UE is
    /// skipped, its RBs stay marked in `rbMap`).
    fn size_lena_uplink_grants(&mut self, grants: &mut Vec<NewTb>) {
        grants.retain_mut(|g| {
            let Some(cqi) = self.macs.tables.sounding[g.ue.index()].lena_cqi_on(g.rbs) else {
                return true;
            };
            if cqi == 0 {
                return false;
            }
            g.mcs = phy::mcs_from_cqi(cqi);
            g.tbs_bits = phy::tbs_bits(LinkDir::Uplink, g.mcs, g.rbs.count());
            true
        });
    }

    /// Uplink grants whose DCI the UE fails to decode are never used (with a PDCCH budget, each
    /// DCI is drawn at its aggregation level); the UE's data waits for its next SR.
    fn drop_missed_grants(&mut self, now: SimTime, grants: &mut Vec<NewTb>) {
        if !(self.macs.pdcch_cfg.capacity && self.control_errors) {
            return;
        }
        grants.retain(|g| {
            let level = self.macs.tables.dci_level[g.ue.index()];
            let error = match self.pdcch_sinr_db(g.ue, now) {
                // A network's control region sees every cell (the data row only those sending).
                Some(sinr_db) => pdcch_error(sinr_db, Some(level)),
                None => phy::pcfich_pdcch_error_rate_flat(self.control_esinr_db(g.ue, now, level)),
            };
            let link = &mut self.ues[g.ue.index()].ul;
            let lost = link.rng.uniform() < error;
            link.slots.at(now).control_losses += u64::from(lost);
            !lost
        });
    }

    /// Send the uplink retransmissions due now; return the RBs the ones due at
    /// `now + grant_delay` will take, which the grants made now must leave free.
    fn uplink_retransmissions(&mut self, list: &[u32], now: SimTime) -> RbMask {
        let later = now + self.macs.ul_retx_delay;
        let mut retx = std::mem::take(&mut self.macs.retx);
        retx.clear();
        let mut busy_later = RbMask::default();
        for &i in list {
            if !self.tables.air.ul_retx_scheduled(i as usize) {
                continue;
            }
            let ue = &mut self.ues[i as usize];
            while let Some(harq) = ue.ul.pop_synchronous_retx(now) {
                if let Some(a) = ue.ul.harq.pending_retransmissions().find(|a| a.harq == harq) {
                    retx.push(a);
                }
            }
            for &(t, harq) in &ue.ul.synchronous_retx {
                if t == later {
                    let pending = ue.ul.harq.pending_retransmissions().find(|a| a.harq == harq);
                    busy_later = busy_later.union(pending.map_or(RbMask::default(), |a| a.rbs));
                }
            }
            self.air_changed(i as usize);
        }
        for a in &retx {
            self.retransmit(now, a);
        }
        self.macs.retx = retx;
        busy_later
    }

    /// A UE decodes one transport block per TTI (SISO, one DCI: TS 36.213 §7.1): a UE
    /// receiving a retransmission gets no new TB in the same TTI (as ns-3's schedulers).
    fn one_tb_per_ue(&mut self) {
        for k in 0..self.macs.retx.len() {
            let ue = self.macs.retx[k].ue.index();
            self.macs.no_new_data(ue);
        }
    }

    /// A new TB on a free HARQ process, filled from the transmitting RLC entity.
    /// A new TB on a free HARQ process, filled from the transmitting RLC entity (or, on the
    /// uplink of a UE that built it on its grant, the PDU built then).
    fn transmit_new(&mut self, now: SimTime, dir: LinkDir, tb: &NewTb, out: &mut CellOutput) {
        let status_pdu = self.macs.mac.status_pdu;
        let uplink = dir == LinkDir::Uplink;
        let skip_empty = uplink && self.macs.uplink.skips_empty_grants();
        let prebuilt = uplink && self.macs.mac.pipeline == MacPipeline::Lena;
        // The transmitting entity fills the TB (or, under LENA's pipeline, the receiver loses it).
        self.tables.rlc.touch_transmitting(tb.ue.index(), dir);
        let ue = &mut self.ues[tb.ue.index()];
        let built = prebuilt.then(|| ue.ul.built.pop_front().unwrap_or_default());
        let empty = || match &built {
            Some(pdu) => pdu.is_empty(),
            None => ue.ue_rlc.buffer_status(now).total_bytes() == 0,
        };
        if skip_empty && empty() {
            return;
        }
        let Some(harq) = ue.link(dir).harq.free_process() else {
            // Every process awaits feedback: the grant goes unused (counted as no TB); a PDU built
            // on it is lost to the receiver (AM retransmits its PDUs).
            if let Some(pdu) = built.filter(|p| !p.is_empty()) {
                ue.lose_tb(now, dir, pdu, out);
                self.tables.rlc.touch(tb.ue.index());
            }
            return;
        };
        let offset_db = self.tables.link_tti.link(tb.ue.index(), dir).olla.offset_db();
        ue.link(dir).slots.at(now).olla_offset_db_sum += offset_db;
        let a = TbAssignment { ue: tb.ue, dir, rbs: tb.rbs, mcs: tb.mcs, tbs_bits: tb.tbs_bits, harq, retx: 0 };
        let payload = built.unwrap_or_else(|| fill_tb(ue, dir, tb.tbs_bits, now, status_pdu));
        // An uplink TB carries a BSR of what the UE still holds (TS 36.321 §5.4.5).
        let bsr_bytes = uplink.then(|| ue.ue_rlc.buffer_status(now).total_bytes());
        self.send(now, OnAir { a, payload, history: HarqHistory::EMPTY, bsr_bytes });
    }

    fn retransmit(&mut self, now: SimTime, a: &TbAssignment) {
        let link = self.ues[a.ue.index()].link(a.dir);
        let (payload, history) = link.harq.take_for_retransmission(a.harq);
        self.tables.air.retransmission_taken(a.ue.index(), a.dir, link);
        self.send(now, OnAir { a: *a, payload, history, bsr_bytes: None });
    }

    /// One TB on the air: a lone cell decodes it at once; a network cell after every cell
    /// scheduled (its SINR depends on what the others send).
    fn send(&mut self, now: SimTime, tb: OnAir) {
        // Its HARQ process now waits for feedback: the UE has work in the TTIs to come.
        self.active.set(tb.a.ue.index());
        if self.network {
            self.on_air.push(tb);
        } else {
            self.decode(now, tb);
        }
    }

    /// The transport blocks on the air this TTI (a network cell, between its two halves).
    pub(super) fn on_air(&self) -> impl Iterator<Item = &TbAssignment> {
        self.on_air.iter().map(|tb| &tb.a)
    }

    /// One TB received: PDCCH error, then the BLER draw from the HARQ-combined effective SINR
    /// (ns-3 `LteSpectrumPhy::EndRxData`); record it and await feedback. A decoded uplink TB's
    /// BSR reaches the eNB. Under LENA's pipeline a downlink TB goes on air `MacToChannelDelay`
    /// after the scheduler built it: its reception (1 ns before that subframe ends) and its
    /// feedback come that much later; it is decoded on the channel of the TTI it was built in.
    fn decode(&mut self, now: SimTime, tb: OnAir) {
        let OnAir { a, payload, history, bsr_bytes } = tb;
        let a = &a;
        let (to_air, rx_early) = match (a.dir, self.macs.mac.pipeline) {
            (LinkDir::Downlink, MacPipeline::Lena) => (
                SimDuration::from_ms(LENA_MAC_TO_CHANNEL_TTIS),
                SimDuration::from_ns(LENA_DL_RX_BEFORE_SUBFRAME_END_NS),
            ),
            _ => (SimDuration::ZERO, SimDuration::ZERO),
        };
        if a.dir == LinkDir::Downlink {
            self.sinr.per_rb_sinr_lin(a.ue, a.dir, now, &mut self.sinr_lin);
            let id = self.sinr.row_id(a.ue, a.dir, now);
            self.ues[a.ue.index()].dl.memo.refresh(id, &self.sinr_lin);
        } else {
            // The DMRS, the gain below and the decode read the grant's RBs alone.
            self.sinr.per_rb_sinr_lin_on(a.ue, a.dir, now, a.rbs, &mut self.sinr_lin);
            self.measure_pusch(now, a);
            // The transport block is decoded at the PUSCH's own power over its grant (TS 36.213 §5.1.1.1).
            let gain = self.sinr.pusch_gain_lin(a.ue, now, PuschGrant { prbs: a.rbs.count() });
            for run in a.rbs.runs() {
                self.sinr_lin[run].iter_mut().for_each(|x| *x *= gain);
            }
        }
        // The DCI's draw reads the control region's SINR, not `sinr_lin`: the data row stands.
        let control_lost = a.dir == LinkDir::Downlink && self.control_errors && self.dci_missed(a.ue, now);
        let decode = phy::decode_tb(a, &self.sinr_lin, history);
        let link = self.ues[a.ue.index()].link(a.dir);
        let outcome = if control_lost {
            TbOutcome::ControlLost
        } else if link.rng.uniform() < decode.bler {
            TbOutcome::Corrupted
        } else {
            TbOutcome::Decoded
        };
        record(link.slots.at(now), a, outcome);
        let arrival_at = tti_end(now) + (to_air - rx_early);
        match outcome {
            TbOutcome::Decoded => {
                link.arrivals.push_back((arrival_at, payload));
                link.harq.transmitted(a, TbPayload::new(), decode.history);
            }
            // Combining (IR) keeps the mutual information of the copies the UE received.
            TbOutcome::Corrupted => link.harq.transmitted(a, payload, decode.history),
            // A UE that missed its DCI received nothing: its soft buffer is as it was.
            TbOutcome::ControlLost => link.harq.transmitted(a, payload, history),
        }
        let feedback_at = now + to_air + HARQ_FEEDBACK_DELAY;
        let feedback = HarqFeedback { at: feedback_at, harq: a.harq, outcome, first_tx: a.retx == 0 };
        self.tables.harq_feedback.push(a.ue.index(), a.dir, feedback);
        let arrival = (outcome == TbOutcome::Decoded).then_some(arrival_at);
        self.tables.air.decoded(a.ue.index(), a.dir, arrival, feedback_at, link);
        if let (Some(left), TbOutcome::Decoded) = (bsr_bytes, outcome) {
            self.macs.uplink.bsr_received(a.ue, left);
        }
    }

    /// The PUSCH's DMRS measures its RBs (TS 36.211 §5.5.2) on the SRS row's scale (the eNB
    /// knows the UE's power from its headroom reports), unless the eNB keeps to the SRS.
    fn measure_pusch(&mut self, now: SimTime, a: &TbAssignment) {
        if self.macs.la.ul_measurement == UlMeasurement::SrsOnly {
            return;
        }
        let now_ms = now.as_ns() / NS_PER_MS;
        // An unchanged estimate (a fixed SINR) leaves the MCS and CQI as they were.
        if self.macs.tables.sounding[a.ue.index()].pusch(now_ms, a.rbs, &self.sinr_lin) {
            self.uplink_measured(a.ue.index(), now, Sounding::Dmrs);
        }
    }

    /// Whether UE `ue` fails to decode its downlink DCI this TTI (the row in `sinr_lin` is its
    /// downlink's): at its aggregation level with a PDCCH budget, else on ns-3's one curve for
    /// the band (the reference level's). ns-3 models control errors on the downlink only (DCI on
    /// PDCCH, TS 36.213 §9.1).
    fn dci_missed(&mut self, ue: UeIndex, now: SimTime) -> bool {
        let level = self.macs.pdcch_cfg.capacity.then_some(self.macs.tables.dci_level[ue.index()]);
        let error = match self.pdcch_sinr_db(ue, now) {
            // A network's control region sees every cell (the data row only those sending).
            Some(sinr_db) => pdcch_error(sinr_db, level),
            None => {
                let level = level.unwrap_or(phy::REFERENCE_AGGREGATION_LEVEL);
                let esinr_db = self.ues[ue.index()].dl.memo.control_esinr_db(&self.sinr_lin, level);
                phy::pcfich_pdcch_error_rate_flat(esinr_db)
            }
        };
        self.ues[ue.index()].dl.rng.uniform() < error
    }

    /// UE `ue`'s control-region effective SINR at `now` for a DCI on `level` CCEs, from its
    /// downlink row (kept with the row).
    fn control_esinr_db(&mut self, ue: UeIndex, now: SimTime, level: u8) -> f64 {
        let id = self.sinr.row_id(ue, LinkDir::Downlink, now);
        let memo = &mut self.ues[ue.index()].dl.memo;
        // As in `measure_dl`: the row is spared only when its value is already derived.
        if !memo.holds(id) || !memo.has_control_esinr(level) {
            self.sinr.per_rb_sinr_lin(ue, LinkDir::Downlink, now, &mut self.sinr_lin);
            memo.refresh(id, &self.sinr_lin);
        }
        memo.control_esinr_db(&self.sinr_lin, level)
    }
}

/// A DCI's error probability at the control region's SINR `sinr_db` (flat over the CCEs it
/// spans): at its aggregation level with a PDCCH budget, else ns-3's one curve for the band.
fn pdcch_error(sinr_db: f64, level: Option<u8>) -> f64 {
    match level {
        Some(l) => phy::pdcch_error_rate_flat_at_level(sinr_db, l),
        None => phy::pcfich_pdcch_error_rate_flat(sinr_db),
    }
}

/// Which reference signal measured the uplink.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sounding {
    /// The SRS: every RB.
    Srs,
    /// A PUSCH's DMRS: its RBs.
    Dmrs,
}

fn record(slot: &mut super::LteSlot, a: &TbAssignment, outcome: TbOutcome) {
    slot.tbs += 1;
    slot.mcs_sum += a.mcs as u64;
    slot.prbs += a.rbs.count() as u64;
    slot.harq_retx += (a.retx > 0) as u64;
    slot.control_losses += (outcome == TbOutcome::ControlLost) as u64;
    if outcome == TbOutcome::Decoded {
        slot.tb_bits_decoded += a.tbs_bits as u64;
    }
}

/// Ask the transmitting RLC entity for PDUs until the TB is full; each PDU
/// costs a MAC subheader, and an uplink TB also carries a BSR control element.
/// With [`StatusPduPlacement::Alone`] a STATUS PDU ends a downlink TB (the rest is padding).
fn fill_tb(ue: &mut UeContext, dir: LinkDir, tbs_bits: u32, now: SimTime, status_pdu: StatusPduPlacement) -> TbPayload {
    let bsr = if dir == LinkDir::Uplink { BSR_CE_BYTES } else { 0 };
    let mut room = (tbs_bits / 8).saturating_sub(bsr);
    // A payload delivered earlier lends its capacity (`deliver_arrivals` hands it back).
    let mut payload = ue.link(dir).spare_payloads.pop().unwrap_or_default();
    let (rlc, events) = ue.tx_rlc(dir);
    // Each PDU is budgeted a full subheader; the last one's is shorter (padding takes the rest).
    while room > MAX_SUBHEADER_BYTES {
        let opp = TxOpportunity { bytes: room - MAX_SUBHEADER_BYTES, now };
        let Some(pdu) = rlc.push_tx_pdu(opp, events, &mut payload) else { break };
        let bytes = pdu.bytes();
        room = room.saturating_sub(bytes + subheader_bytes(bytes));
        let alone =
            status_pdu == StatusPduPlacement::Alone && dir == LinkDir::Downlink && matches!(pdu, RlcPdu::Status(_));
        if alone {
            break;
        }
    }
    payload
}
