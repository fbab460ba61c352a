//! Two RLC entities wired back to back through a lossy, delaying "link": the
//! segmentation / reassembly, ARQ and timer behaviour checked end to end.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::pdu::{DataPduKind, LI_MAX_BYTES};
use super::*;
use crate::lte::profile::LENA;
use crate::lte::sap::{RlcSdu, SduId, TxOpportunity};
use crate::sim::{SimDuration, SimTime};

/// LENA's timers and polls with a 1 MiB buffer (these tests do not exercise buffer overflow,
/// apart from the one that sets its own).
fn lena_um() -> UmConfig {
    UmConfig { tx_buffer_bytes: DEFAULT_TX_BUFFER_BYTES, ..LENA.rlc_um.clone() }
}
fn lena_am() -> AmConfig {
    AmConfig { tx_buffer_bytes: DEFAULT_TX_BUFFER_BYTES, ..LENA.rlc_am.clone() }
}
fn lena_tm() -> TmConfig {
    TmConfig { tx_buffer_bytes: DEFAULT_TX_BUFFER_BYTES }
}

/// Header size worked out by hand from TS 36.322 §6.2.1: fixed part (UMD 1 or 2
/// bytes, AMD 2, AMD segment 4) + 12 bits per E/LI for every SDU piece but the last,
/// padded to a whole byte.
fn expected_header_bytes(d: &DataPdu) -> u32 {
    let fixed = match d.kind {
        DataPduKind::Tmd => return 0,
        DataPduKind::Umd { sn_bits: 5 } => 1,
        DataPduKind::Umd { .. } => 2,
        DataPduKind::Amd { resegment: None, .. } => 2,
        DataPduKind::Amd { resegment: Some(_), .. } => 4,
    };
    let lis = d.segments.len() as u32 - 1;
    fixed + (12 * lis).div_ceil(8)
}

/// A PDU on the link, due at `at`, to entity B (data) or A (STATUS back).
struct InFlight {
    at: SimTime,
    seq: u64,
    to_b: bool,
    lost: bool,
    pdu: RlcPdu,
}

/// How the link treats PDUs.
#[derive(Clone, Copy)]
pub(super) struct LinkModel {
    pub data_loss: f64,
    pub status_loss: f64,
    /// One-way delay drawn uniformly in [min, max] ms: PDUs reorder when max > min.
    pub delay_ms: (u64, u64),
    /// Every data PDU carrying a piece of this SDU is lost (maxRetx tests).
    pub doomed: Option<SduId>,
}

const LOSSLESS: LinkModel = LinkModel { data_loss: 0.0, status_loss: 0.0, delay_ms: (1, 1), doomed: None };

/// What the run observed.
#[derive(Default)]
pub(super) struct Outcome {
    pub delivered: Vec<SduId>,
    pub discarded: Vec<SduId>,
    pub abandoned: usize,
    /// Per SDU: pieces sent in data PDUs / pieces that arrived.
    pub pieces_sent: Vec<u32>,
    pub pieces_arrived: Vec<u32>,
    /// Per SDU: byte coverage of what arrived (offset, len).
    pub arrived: Vec<Vec<(u32, u32)>>,
    pub refused: Vec<SduId>,
    pub a: RlcCounters,
    pub b: RlcCounters,
    pub status_times: Vec<SimTime>,
    pub end: SimTime,
}

pub(super) struct Harness {
    a: Rlc,
    b: Rlc,
    link: LinkModel,
    rng: ChaCha8Rng,
    flight: Vec<InFlight>,
    seq: u64,
    ev_a: RlcEvents,
    ev_b: RlcEvents,
    out: Outcome,
    /// While true the link drops nothing (used to flush at the end).
    clean: bool,
}

impl Harness {
    pub(super) fn new(cfg: &RlcConfig, link: LinkModel, seed: u64, sdus: usize) -> Self {
        Harness {
            a: Rlc::new(cfg),
            b: Rlc::new(cfg),
            link,
            rng: ChaCha8Rng::seed_from_u64(seed),
            flight: Vec::new(),
            seq: 0,
            ev_a: RlcEvents::default(),
            ev_b: RlcEvents::default(),
            out: Outcome {
                pieces_sent: vec![0; sdus],
                pieces_arrived: vec![0; sdus],
                arrived: vec![Vec::new(); sdus],
                ..Outcome::default()
            },
            clean: false,
        }
    }

    fn submit(&mut self, now: SimTime, id: u64, bytes: u32) {
        if let Err(id) = self.a.transmit_sdu(now, RlcSdu { id: SduId(id), bytes }) {
            self.out.refused.push(id);
        }
    }

    /// One TTI: arrivals, timers, then one opportunity of `opp` bytes for each entity.
    fn tti(&mut self, now: SimTime, opp: u32) {
        self.arrivals(now);
        for to_b in [true, false] {
            let e = if to_b { &mut self.b } else { &mut self.a };
            let ev = if to_b { &mut self.ev_b } else { &mut self.ev_a };
            if e.poll_timeout().is_some_and(|t| t <= now) {
                e.handle_timeout(now, ev);
            }
        }
        self.forward_abandoned(now);
        self.send(now, opp, true);
        self.send(now, opp, false);
        self.forward_abandoned(now);
        self.drain_events();
        for e in [&self.a, &self.b] {
            if let Rlc::Am(am) = e {
                assert!(am.retx_totals_consistent(), "retransmission totals drifted at {now:?}");
            }
        }
    }

    fn arrivals(&mut self, now: SimTime) {
        self.flight.sort_by_key(|f| (f.at, f.seq));
        let due = self.flight.iter().take_while(|f| f.at <= now).count();
        let arriving: Vec<InFlight> = self.flight.drain(..due).collect();
        for f in arriving {
            if f.to_b {
                if let RlcPdu::Data(d) = &f.pdu {
                    for s in d.segments.iter() {
                        if !f.lost {
                            self.out.pieces_arrived[s.sdu.0 as usize] += 1;
                            self.out.arrived[s.sdu.0 as usize].push((s.offset, s.len_bytes()));
                        }
                    }
                }
            }
            let (e, ev) = if f.to_b { (&mut self.b, &mut self.ev_b) } else { (&mut self.a, &mut self.ev_a) };
            if f.lost {
                e.notify_pdu_lost(now, f.pdu, ev);
            } else {
                e.receive_pdu(now, f.pdu, ev);
            }
        }
        self.forward_abandoned(now);
    }

    fn forward_abandoned(&mut self, now: SimTime) {
        for d in std::mem::take(&mut self.ev_a.abandoned) {
            self.out.abandoned += 1;
            self.b.notify_peer_abandoned(now, d, &mut self.ev_b);
        }
    }

    fn send(&mut self, now: SimTime, opp: u32, from_a: bool) {
        let e = if from_a { &mut self.a } else { &mut self.b };
        let ev = if from_a { &mut self.ev_a } else { &mut self.ev_b };
        let had_new = e.buffer_status(now).tx_queue_bytes > 0;
        let retx_before = e.counters().data_pdus_retransmitted;
        let Some(pdu) = e.notify_tx_opportunity(TxOpportunity { bytes: opp, now }, ev) else { return };
        assert!(pdu.bytes() <= opp, "PDU of {} bytes in an opportunity of {opp}", pdu.bytes());
        let still_new = e.buffer_status(now).tx_queue_bytes > 0;
        let retx = e.counters().data_pdus_retransmitted > retx_before;
        match &pdu {
            RlcPdu::Data(d) => {
                assert_eq!(d.header_bytes(), expected_header_bytes(d), "header of {d:?}");
                check_fill(d, opp, had_new && still_new && !retx);
                for s in d.segments.iter() {
                    assert!(s.len_bytes() > 0 && s.offset + s.len_bytes() <= s.sdu_bytes, "bad piece {s:?}");
                    self.out.pieces_sent[s.sdu.0 as usize] += 1;
                }
            }
            RlcPdu::Status(_) => self.out.status_times.push(now),
        }
        let is_status = matches!(pdu, RlcPdu::Status(_));
        let p = if is_status { self.link.status_loss } else { self.link.data_loss };
        let doomed = match (&pdu, self.link.doomed) {
            (RlcPdu::Data(d), Some(id)) => d.segments.iter().any(|s| s.sdu == id),
            _ => false,
        };
        let lost = doomed || (!self.clean && p > 0.0 && self.rng.random_bool(p));
        let (lo, hi) = self.link.delay_ms;
        let delay = if self.clean { hi } else { self.rng.random_range(lo..=hi) };
        self.seq += 1;
        let at = now + SimDuration::from_ms(delay);
        self.flight.push(InFlight { at, seq: self.seq, to_b: from_a, lost, pdu });
    }

    fn drain_events(&mut self) {
        for ev in [&mut self.ev_a, &mut self.ev_b] {
            self.out.delivered.append(&mut ev.delivered);
            self.out.discarded.append(&mut ev.discarded);
        }
    }

    /// Submits `sizes` at t = 0, runs TTIs with opportunities cycling through `opps`
    /// until every SDU is resolved or `max_ms`, then a clean flush of `flush_ms`.
    pub(super) fn run(mut self, sizes: &[u32], opps: &[u32], max_ms: u64, flush_ms: u64) -> Outcome {
        for (i, &b) in sizes.iter().enumerate() {
            self.submit(SimTime::ZERO, i as u64, b);
        }
        let mut t = 0;
        let resolved = |o: &Outcome| o.delivered.len() + o.discarded.len() + o.refused.len() == sizes.len();
        while t < max_ms && !resolved(&self.out) {
            self.tti(SimTime(t * 1_000_000), opps[t as usize % opps.len()]);
            t += 1;
        }
        self.clean = true;
        let stop = t + flush_ms;
        while t < stop && !resolved(&self.out) {
            self.tti(SimTime(t * 1_000_000), opps[t as usize % opps.len()].max(64));
            t += 1;
        }
        self.out.a = *self.a.counters();
        self.out.b = *self.b.counters();
        self.out.end = SimTime(t * 1_000_000);
        self.out
    }
}

/// When new data remained both before and after, the PDU fills the opportunity
/// but for at most 2 bytes (one more piece would need an LI it has no room for),
/// unless its last piece is too long for an LI (§6.2.2.5). Not for retransmissions.
fn check_fill(d: &DataPdu, opp: u32, new_data_remained: bool) {
    let long_last = d.segments.last().is_some_and(|s| s.len_bytes() > LI_MAX_BYTES);
    if new_data_remained && !long_last && opp <= 32_000 {
        let bytes = d.header_bytes() + d.data_bytes();
        assert!(opp - bytes <= 2, "{bytes}-byte PDU in a {opp}-byte opportunity with data waiting");
    }
}

/// Every delivered SDU arrived whole: the pieces that reached B cover [0, size).
fn assert_bytes_exact(out: &Outcome, sizes: &[u32]) {
    for id in &out.delivered {
        let mut r = out.arrived[id.0 as usize].clone();
        r.sort_unstable();
        let mut cursor = 0;
        for (o, l) in r {
            assert!(o <= cursor, "SDU {id:?}: gap at byte {cursor}");
            cursor = cursor.max(o + l);
        }
        assert_eq!(cursor, sizes[id.0 as usize], "SDU {id:?} not covered");
    }
}

fn um() -> RlcConfig {
    RlcConfig::Um(lena_um())
}

fn am() -> RlcConfig {
    RlcConfig::Am(lena_am())
}

fn ids(n: usize) -> Vec<SduId> {
    (0..n as u64).map(SduId).collect()
}

#[test]
fn um_lossless_delivers_every_sdu_once_in_order_with_exact_pdus() {
    let sizes = [1500, 40, 9000, 1, 2047, 2048, 3000, 700];
    let out = Harness::new(&um(), LOSSLESS, 1, sizes.len()).run(&sizes, &[1, 3, 100, 1000, 2500, 77], 10_000, 0);
    assert_eq!(out.delivered, ids(sizes.len()));
    assert!(out.discarded.is_empty());
    assert_bytes_exact(&out, &sizes);
}

#[test]
fn um_with_5_bit_sn_wraps_and_delivers_everything() {
    let cfg = RlcConfig::Um(UmConfig { sn_bits: 5, ..lena_um() });
    // 100 SDUs of 300 B in 100-byte opportunities: ~300 PDUs, the 32-SN space wraps 9 times.
    let sizes = vec![300; 100];
    let out = Harness::new(&cfg, LOSSLESS, 2, sizes.len()).run(&sizes, &[100], 10_000, 0);
    assert_eq!(out.delivered, ids(100));
}

#[test]
fn am_lossless_delivers_every_sdu_once_in_order() {
    let sizes = [1500, 40, 9000, 1, 2047, 2048, 3000, 700];
    let out = Harness::new(&am(), LOSSLESS, 3, sizes.len()).run(&sizes, &[1, 3, 100, 1000, 2500, 77], 10_000, 0);
    assert_eq!(out.delivered, ids(sizes.len()));
    assert!(out.discarded.is_empty());
    assert_eq!(out.a.data_pdus_retransmitted, 0);
    assert_bytes_exact(&out, &sizes);
}

#[test]
fn tm_sends_whole_sdus_only_when_they_fit() {
    let cfg = RlcConfig::Tm(lena_tm());
    let mut e = Rlc::new(&cfg);
    let mut ev = RlcEvents::default();
    e.transmit_sdu(SimTime::ZERO, RlcSdu { id: SduId(0), bytes: 500 }).unwrap();
    assert!(e.notify_tx_opportunity(TxOpportunity { bytes: 499, now: SimTime::ZERO }, &mut ev).is_none());
    let pdu = e.notify_tx_opportunity(TxOpportunity { bytes: 500, now: SimTime::ZERO }, &mut ev).unwrap();
    // TMD PDU: no header (TS 36.322 §6.2.1.2).
    assert_eq!(pdu.bytes(), 500);
    let mut rx = Rlc::new(&cfg);
    rx.receive_pdu(SimTime::ZERO, pdu, &mut ev);
    assert_eq!(ev.delivered, vec![SduId(0)]);
}

#[test]
fn transmission_buffer_refuses_sdus_beyond_its_byte_limit() {
    for cfg in [
        RlcConfig::Tm(TmConfig { tx_buffer_bytes: 10_240 }),
        RlcConfig::Um(UmConfig { tx_buffer_bytes: 10_240, ..lena_um() }),
        RlcConfig::Am(AmConfig { tx_buffer_bytes: 10_240, ..lena_am() }),
    ] {
        let mut e = Rlc::new(&cfg);
        // ns-3's 10 KiB default holds six 1502-byte PDCP PDUs (9012 B); the seventh (10514 B) is refused.
        for i in 0..6 {
            assert_eq!(e.transmit_sdu(SimTime::ZERO, RlcSdu { id: SduId(i), bytes: 1502 }), Ok(()));
        }
        assert_eq!(e.transmit_sdu(SimTime::ZERO, RlcSdu { id: SduId(6), bytes: 1502 }), Err(SduId(6)));
        assert_eq!(e.counters().sdus_refused, 1);
        assert_eq!(e.buffered_sdu_bytes(), 9012);
    }
}

/// Expected UM result: delivered = SDUs all of whose pieces arrived, in order;
/// discarded = every other SDU accepted, each exactly once.
fn assert_um_accounting(out: &Outcome, sizes: &[u32]) {
    let accepted: Vec<SduId> = ids(sizes.len()).into_iter().filter(|i| !out.refused.contains(i)).collect();
    let complete: Vec<SduId> = accepted
        .iter()
        .copied()
        .filter(|i| {
            out.pieces_sent[i.0 as usize] > 0 && out.pieces_arrived[i.0 as usize] == out.pieces_sent[i.0 as usize]
        })
        .collect();
    assert_eq!(out.delivered, complete, "delivered must be exactly the complete SDUs, in order");
    let mut discarded = out.discarded.clone();
    discarded.sort_unstable();
    let before = discarded.len();
    discarded.dedup();
    assert_eq!(before, discarded.len(), "an SDU was discarded twice");
    let broken: Vec<SduId> = accepted.iter().copied().filter(|i| !complete.contains(i)).collect();
    assert_eq!(discarded, broken, "discarded must be exactly the incomplete SDUs");
    assert_eq!(out.delivered.len() + out.discarded.len() + out.refused.len(), sizes.len());
    assert_eq!(out.b.sdus_delivered + out.b.sdus_discarded, accepted.len() as u64);
}

fn lossy(p: f64) -> LinkModel {
    LinkModel { data_loss: p, status_loss: p, delay_ms: (1, 6), doomed: None }
}

#[test]
fn um_over_a_lossy_reordering_link_delivers_exactly_the_complete_sdus() {
    let sizes: Vec<u32> = (0..200).map(|i| [1500, 40, 3000, 600, 9000][i % 5]).collect();
    let out = Harness::new(&um(), lossy(0.1), 7, sizes.len()).run(&sizes, &[700, 1200, 90], 60_000, 1_000);
    assert!(out.discarded.len() > 10, "the link should have broken some SDUs");
    assert_um_accounting(&out, &sizes);
    assert_bytes_exact(&out, &sizes);
}

#[test]
fn am_over_a_lossy_reordering_link_delivers_every_sdu_once_in_order() {
    let sizes: Vec<u32> = (0..200).map(|i| [1500, 40, 3000, 600, 9000][i % 5]).collect();
    let out = Harness::new(&am(), lossy(0.2), 8, sizes.len()).run(&sizes, &[700, 1200, 90], 60_000, 0);
    assert_eq!(out.delivered, ids(sizes.len()));
    assert!(out.discarded.is_empty());
    assert!(out.a.data_pdus_retransmitted > 20, "losses must have been repaired by ARQ");
    assert_bytes_exact(&out, &sizes);
}

#[test]
fn am_status_pdus_are_spaced_by_t_status_prohibit() {
    // pollPDU = 1 (ns-3): every AMD PDU polls, so STATUS would go every TTI without t-StatusProhibit.
    let sizes = vec![1500; 100];
    let out = Harness::new(&am(), LOSSLESS, 9, sizes.len()).run(&sizes, &[500], 10_000, 0);
    assert_eq!(out.delivered, ids(100));
    assert!(out.status_times.len() > 10);
    for w in out.status_times.windows(2) {
        // t-StatusProhibit default 10 ms (ns-3 LteRlcAm::StatusProhibitTimer).
        assert!(w[1] - w[0] >= SimDuration::from_ms(10), "STATUS at {} then {}", w[0], w[1]);
    }
}

#[test]
fn am_t_poll_retransmit_repolls_when_the_poll_is_lost() {
    let mut a = Rlc::new(&am());
    let mut ev = RlcEvents::default();
    let t0 = SimTime::ZERO;
    a.transmit_sdu(t0, RlcSdu { id: SduId(0), bytes: 100 }).unwrap();
    let first = a.notify_tx_opportunity(TxOpportunity { bytes: 500, now: t0 }, &mut ev).unwrap();
    let RlcPdu::Data(d) = &first else { panic!("expected data") };
    assert!(matches!(d.kind, DataPduKind::Amd { poll: true, .. }), "last PDU of the buffer polls (§5.2.2.1)");
    // The PDU and its poll are lost: t-PollRetransmit (20 ms, ns-3 default) is the next deadline.
    let expiry = a.poll_timeout().unwrap();
    assert_eq!(expiry, t0 + SimDuration::from_ms(20));
    assert!(a.notify_tx_opportunity(TxOpportunity { bytes: 500, now: SimTime(1_000_000) }, &mut ev).is_none());
    a.handle_timeout(expiry, &mut ev);
    // §5.2.2.3: nothing new to send, so VT(S) - 1 = SN 0 is retransmitted, with a poll.
    let again = a.notify_tx_opportunity(TxOpportunity { bytes: 500, now: expiry }, &mut ev).unwrap();
    let RlcPdu::Data(r) = &again else { panic!("expected data") };
    assert_eq!(r.sn, 0);
    assert!(matches!(r.kind, DataPduKind::Amd { poll: true, resegment: None }));
    assert_eq!(a.counters().data_pdus_retransmitted, 1);
}

#[test]
fn am_retransmission_is_resegmented_to_fit_a_smaller_opportunity() {
    let mut a = Rlc::new(&am());
    let mut b = Rlc::new(&am());
    let (mut eva, mut evb) = (RlcEvents::default(), RlcEvents::default());
    let t = |ms: u64| SimTime(ms * 1_000_000);
    a.transmit_sdu(t(0), RlcSdu { id: SduId(0), bytes: 1000 }).unwrap();
    let _lost = a.notify_tx_opportunity(TxOpportunity { bytes: 1002, now: t(0) }, &mut eva).unwrap();
    a.handle_timeout(t(20), &mut eva);
    // 400-byte opportunities: AMD PDU segments with a 4-byte header (§6.2.1.5): 396 + 396 + 208 bytes.
    let mut got = Vec::new();
    for ms in 20..23 {
        let p = a.notify_tx_opportunity(TxOpportunity { bytes: 400, now: t(ms) }, &mut eva).unwrap();
        let RlcPdu::Data(d) = &p else { panic!("expected data") };
        let DataPduKind::Amd { resegment: Some(r), .. } = d.kind else { panic!("expected a segment") };
        got.push((r.so, d.data_bytes(), r.last));
        b.receive_pdu(t(ms), p, &mut evb);
    }
    assert_eq!(got, vec![(0, 396, false), (396, 396, false), (792, 208, true)]);
    assert_eq!(evb.delivered, vec![SduId(0)]);
}

#[test]
fn um_t_reordering_expiry_delivers_what_is_complete_and_discards_the_gap() {
    let mut a = Rlc::new(&um());
    let mut b = Rlc::new(&um());
    let (mut eva, mut evb) = (RlcEvents::default(), RlcEvents::default());
    // SDU 0 alone in PDU 0; SDU 1 split over PDUs 1 and 2; SDU 2 in PDU 2 (2-byte UMD header, §6.2.1.3).
    for (i, bytes) in [(0, 100), (1, 200), (2, 50)] {
        a.transmit_sdu(SimTime::ZERO, RlcSdu { id: SduId(i), bytes }).unwrap();
    }
    let op = |bytes| TxOpportunity { bytes, now: SimTime::ZERO };
    let p0 = a.notify_tx_opportunity(op(102), &mut eva).unwrap();
    let _p1_lost = a.notify_tx_opportunity(op(102), &mut eva).unwrap();
    let p2 = a.notify_tx_opportunity(op(200), &mut eva).unwrap();
    b.receive_pdu(SimTime(1_000_000), p0, &mut evb);
    b.receive_pdu(SimTime(2_000_000), p2, &mut evb);
    assert_eq!(evb.delivered, vec![SduId(0)]);
    // t-Reordering started at 2 ms when PDU 2 left a gap at SN 1: 100 ms (ns-3 UM default).
    let expiry = b.poll_timeout().unwrap();
    assert_eq!(expiry, SimTime(102_000_000));
    b.handle_timeout(SimTime(101_000_000), &mut evb);
    assert_eq!(evb.delivered, vec![SduId(0)], "nothing happens before expiry");
    b.handle_timeout(expiry, &mut evb);
    assert_eq!(evb.delivered, vec![SduId(0), SduId(2)]);
    assert_eq!(evb.discarded, vec![SduId(1)]);
    assert_eq!(b.poll_timeout(), None);
}

fn doomed(action: MaxRetxAction) -> (Outcome, usize) {
    let cfg = RlcConfig::Am(AmConfig { max_retx_threshold: 4, on_max_retx: action, ..lena_am() });
    let link = LinkModel { doomed: Some(SduId(3)), ..LOSSLESS };
    // 802-byte opportunities: one SDU per AMD PDU (2-byte header), so only SDU 3's PDU is doomed.
    let sizes = vec![800; 20];
    (Harness::new(&cfg, link, 11, sizes.len()).run(&sizes, &[802], 2_000, 0), sizes.len())
}

#[test]
fn max_retx_keep_retransmitting_stalls_like_ns3() {
    let (out, _) = doomed(MaxRetxAction::KeepRetransmitting);
    // SDU 3 never arrives: AM delivers 0..=2 and holds the rest in order behind it.
    assert_eq!(out.delivered, ids(3));
    assert!(out.discarded.is_empty());
    assert!(out.a.max_retx_reached >= 1);
    assert!(out.a.data_pdus_retransmitted > 4, "keeps retransmitting past the threshold");
}

#[test]
fn max_retx_discard_gives_the_sdu_up_and_delivers_the_rest() {
    let (out, n) = doomed(MaxRetxAction::Discard);
    assert_eq!(out.discarded, vec![SduId(3)]);
    let rest: Vec<SduId> = ids(n).into_iter().filter(|&i| i != SduId(3)).collect();
    assert_eq!(out.delivered, rest);
    assert_eq!(out.abandoned, 1);
    assert_eq!(out.a.max_retx_reached, 1);
}

mod props {
    use proptest::collection::vec;
    use proptest::prelude::*;
    use proptest::test_runner::RngSeed;

    use super::*;

    /// Opportunity sizes: some too small for any header (0..=2 bytes), most not.
    fn opps() -> impl Strategy<Value = Vec<u32>> {
        vec(prop_oneof![1 => 0u32..=2, 1 => 3u32..40, 4 => 40u32..3000], 1..8)
    }

    fn um_cfg(sn5: bool) -> RlcConfig {
        RlcConfig::Um(UmConfig { sn_bits: if sn5 { 5 } else { 10 }, ..lena_um() })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, rng_seed: RngSeed::Fixed(0x0322), ..ProptestConfig::default() })]

        /// UM: any SDU sizes and opportunities segment and reassemble exactly.
        #[test]
        fn um_segments_and_reassembles_any_sizes(sizes in vec(1u32..9000, 1..25), opps in opps(), sn5 in any::<bool>()) {
            let out = Harness::new(&um_cfg(sn5), LOSSLESS, 0, sizes.len()).run(&sizes, &opps, 3_000, 20_000);
            prop_assert_eq!(&out.delivered, &ids(sizes.len()));
            prop_assert!(out.discarded.is_empty());
            assert_bytes_exact(&out, &sizes);
            // UM sends every byte once.
            for (i, r) in out.arrived.iter().enumerate() {
                prop_assert_eq!(r.iter().map(|&(_, l)| l).sum::<u32>(), sizes[i]);
            }
        }

        /// AM: the same, with STATUS PDUs flowing back through the same opportunities.
        #[test]
        fn am_segments_and_reassembles_any_sizes(sizes in vec(1u32..9000, 1..25), opps in opps()) {
            let out = Harness::new(&am(), LOSSLESS, 0, sizes.len()).run(&sizes, &opps, 3_000, 20_000);
            prop_assert_eq!(&out.delivered, &ids(sizes.len()));
            prop_assert!(out.discarded.is_empty());
            assert_bytes_exact(&out, &sizes);
        }

        /// AM over a link losing data and STATUS PDUs at random: every SDU once, in order.
        #[test]
        fn am_recovers_every_loss(sizes in vec(1u32..9000, 1..25), opps in opps(), loss in 0.0f64..0.3, seed in 0u64..1000) {
            let link = LinkModel { data_loss: loss, status_loss: loss, delay_ms: (1, 8), doomed: None };
            let out = Harness::new(&am(), link, seed, sizes.len()).run(&sizes, &opps, 3_000, 20_000);
            prop_assert_eq!(&out.delivered, &ids(sizes.len()));
            prop_assert!(out.discarded.is_empty());
            assert_bytes_exact(&out, &sizes);
        }

        /// UM over the same link: exactly the complete SDUs delivered, the rest discarded once.
        #[test]
        fn um_delivers_exactly_the_complete_sdus(sizes in vec(1u32..9000, 1..25), opps in opps(), loss in 0.0f64..0.3, seed in 0u64..1000, sn5 in any::<bool>()) {
            let link = LinkModel { data_loss: loss, status_loss: loss, delay_ms: (1, 8), doomed: None };
            let out = Harness::new(&um_cfg(sn5), link, seed, sizes.len()).run(&sizes, &opps, 3_000, 20_000);
            assert_um_accounting(&out, &sizes);
            assert_bytes_exact(&out, &sizes);
        }
    }
}

/// A PDU of more than four SDU pieces spills its segment list to the heap; the receiving entity
/// hands the emptied list back through the events it shares with the transmitter (UM), and the
/// AM window's copy comes back on the acknowledgement: the next such PDUs reuse them.
#[test]
fn spilled_segment_lists_come_back_through_the_events() {
    for config in [RlcConfig::Um(lena_um()), RlcConfig::Am(lena_am())] {
        let (mut tx, mut rx) = (Rlc::new(&config), Rlc::new(&config));
        let mut ev = RlcEvents::default();
        for round in 0..3u64 {
            // Past LENA's t-StatusProhibit (10 ms) each round.
            let now = SimTime::ZERO + SimDuration::from_ms(20 * round);
            for i in 0..6 {
                tx.transmit_sdu(now, RlcSdu { id: SduId(round * 6 + i), bytes: 100 }).unwrap();
            }
            let pdu = tx.notify_tx_opportunity(TxOpportunity { bytes: 1000, now }, &mut ev).unwrap();
            let RlcPdu::Data(d) = &pdu else { panic!("a data PDU") };
            assert_eq!(d.segments.len(), 6);
            assert!(ev.spare_segments.is_empty(), "round {round}: the spare lists were taken");
            rx.receive_pdu(now, pdu, &mut ev);
            assert_eq!(ev.spare_segments.len(), 1, "round {round}: the received list came back");
            if let RlcConfig::Am(_) = config {
                let status = rx.notify_tx_opportunity(TxOpportunity { bytes: 100, now }, &mut ev).unwrap();
                tx.receive_pdu(now, status, &mut ev);
                assert_eq!(ev.spare_segments.len(), 2, "round {round}: the window's copy came back");
            }
            ev.delivered.clear();
        }
    }
}
