//! Scripted SACK sender for RACK-TLP (RFC 8985), undo (RFC 3708 / RFC 3522)
//! and the recovery state machine: the test plays the network and the
//! receiver; every expected value is worked out in the comment above it.

use super::*;
use crate::cc::{CcConfig, Window};
use crate::packet::SackBlocks;
use crate::scenario::{Stack, TcpProfile, TcpSpec};

const MSS: u32 = 1000;
const RTT_MS: u64 = 100;

fn ms(t: u64) -> SimDuration {
    SimDuration::from_ms(t)
}

/// A NewReno sender with SACK, handshake RTT 100 ms (SRTT 100, min_rtt 100).
fn sender(spec: TcpSpec, supply: AppSupply) -> (TcpSender, SimTime) {
    let p = TcpSpec { sack: Some(true), ..spec }.resolve();
    let cc = CcConfig::NewReno(Default::default())
        .build(Window::new(p.initial_cwnd_segs), crate::sim::RngStream::new(0, "test:cc"));
    let mut s = TcpSender::new(p, MSS, cc, supply);
    s.start(SimTime::ZERO);
    assert!(s.poll_transmit(SimTime::ZERO).unwrap().flags.has(TcpFlags::SYN));
    let now = SimTime::ZERO + ms(RTT_MS);
    let synack =
        TcpSegment { flags: TcpFlags(TcpFlags::SYN | TcpFlags::ACK), wnd_bytes: 1 << 30, ..Default::default() };
    s.on_segment(now, &synack);
    (s, now)
}

fn sack_ack(cum: u64, blocks: &[(u64, u64)]) -> TcpSegment {
    let mut sack = SackBlocks::default();
    blocks.iter().for_each(|&b| sack.push(b));
    TcpSegment { flags: TcpFlags(TcpFlags::ACK), ack: cum, wnd_bytes: 1 << 30, sack, ..Default::default() }
}

fn drain(s: &mut TcpSender, now: SimTime) -> Vec<TcpSegment> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

fn seg_bytes(i: u64) -> u64 {
    i * MSS as u64
}

/// Segment 0 of the first window is lost: SACKs for 1, 2 and 3 arrive in one instant, one
/// RTT after `t0`, each drained as it comes. Returns that instant and what went out in it.
fn sacks_for_one_to_three(s: &mut TcpSender, t0: SimTime) -> (SimTime, Vec<TcpSegment>) {
    let t1 = t0 + ms(RTT_MS);
    let mut sent = Vec::new();
    for k in 2..=4 {
        s.on_segment(t1, &sack_ack(0, &[(seg_bytes(1), seg_bytes(k))]));
        sent.extend(drain(s, t1));
    }
    (t1, sent)
}

#[test]
fn rack_finds_a_lost_retransmission_before_any_rto() {
    let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Unlimited);
    assert_eq!(drain(&mut s, t0).len(), 10);
    let (t1, resent) = sacks_for_one_to_three(&mut s, t0);
    // RFC 8985 §6.2: three SACKed and no reordering seen -> reo_wnd 0; segment 0 was sent
    // with segment 1 (tie broken by send order) and RACK.rtt = 100 ms has passed: lost.
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert!(resent.iter().any(|x| x.seq == 0));
    assert_eq!(s.stats.retransmits, 1);
    // The retransmission is lost too. 20 ms later (past the pacing gap) the rest of the
    // first window and the data sent at t1 are SACKed, which lets new data out after it.
    let t1b = t1 + ms(20);
    s.on_segment(t1b, &sack_ack(0, &[(seg_bytes(1), seg_bytes(12))]));
    let after = drain(&mut s, t1b);
    assert!(!after.is_empty() && after.iter().all(|x| x.seq >= seg_bytes(12)), "new data only");
    let top = resent.iter().chain(&after).map(|x| x.seq + x.len as u64).max().unwrap();
    let t2 = t1b + ms(RTT_MS);
    s.on_segment(t2, &sack_ack(0, &[(seg_bytes(1), top)]));
    // RACK: the newest delivered segment was sent at t1b, after the retransmission (t1);
    // RACK.rtt = 100 ms, reo_wnd 0 in recovery, the retransmission is 120 ms old -> lost.
    assert_eq!(s.stats.lost_retransmits, 1);
    let again = drain(&mut s, t2);
    assert_eq!(again.first().map(|x| x.seq), Some(0), "re-sent within recovery");
    assert_eq!(s.stats.retransmits, 2);
    assert_eq!(s.stats.timeouts, 0);
    assert!(s.poll_timeout(t2).unwrap() > t2);
}

#[test]
fn data_sent_before_a_retransmission_in_the_same_instant_does_not_condemn_it() {
    let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Unlimited);
    assert_eq!(drain(&mut s, t0).len(), 10);
    // The three SACKs arrive in the same instant, as an ACK burst does: the first two let
    // new data out, the third starts recovery and retransmits segment 0 after that data.
    let (t1, sent) = sacks_for_one_to_three(&mut s, t0);
    let sent: Vec<u64> = sent.iter().map(|x| x.seq).collect();
    let rexmit_at = sent.iter().position(|&q| q == 0).expect("segment 0 resent at t1");
    assert!(rexmit_at > 0 && sent[..rexmit_at].iter().all(|&q| q >= seg_bytes(10)), "new data first: {sent:?}");
    // The new data sent before it is SACKed one RTT later, before the retransmission behind
    // it arrives. Same send time, but it left first: RACK (tcp_skb_sent_after, whose clock
    // tells the two sends apart) does not mark the retransmission lost.
    let top = sent[..rexmit_at].iter().max().unwrap() + MSS as u64;
    s.on_segment(t1 + ms(RTT_MS), &sack_ack(0, &[(seg_bytes(1), top)]));
    assert_eq!(s.stats.lost_retransmits, 0);
    assert_eq!(s.stats.retransmits, 1);
}

#[test]
fn without_rack_the_lost_retransmission_waits_for_the_rto() {
    // net.ipv4.tcp_recovery = 0: RFC 6675 dupthresh rules only.
    let (mut s, t0) = sender(TcpSpec { recovery: Some(0), ..Default::default() }, AppSupply::Unlimited);
    drain(&mut s, t0);
    let t1 = t0 + ms(RTT_MS);
    let mut top = 0;
    for k in 2..=4 {
        s.on_segment(t1, &sack_ack(0, &[(seg_bytes(1), seg_bytes(k))]));
        top = drain(&mut s, t1).iter().map(|x| x.seq + x.len as u64).max().unwrap_or(top).max(top);
    }
    assert_eq!(s.stats.retransmits, 1);
    let t2 = t1 + ms(RTT_MS);
    s.on_segment(t2, &sack_ack(0, &[(seg_bytes(1), top)]));
    drain(&mut s, t2);
    assert_eq!(s.stats.retransmits, 1, "IsLost never re-marks a retransmitted segment");
    let rto_at = s.poll_timeout(t2).unwrap();
    s.on_timeout(rto_at);
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn a_send_burst_plans_the_loss_probe_once_when_it_ends() {
    let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Unlimited);
    // Mid-burst nothing is planned yet: Linux tcp_write_xmit schedules the probe after its loop.
    assert!(s.poll_transmit(t0).is_some());
    assert_eq!(s.probe_at, None);
    // The initial window of 10 segments; the eleventh poll ends the burst.
    assert_eq!(drain(&mut s, t0).len(), 9);
    // tcp_schedule_loss_probe with ten segments out: PTO = 2 * SRTT + 2 ms = 202 ms, sooner
    // than the RTO (SRTT 100 + 4 * RTTVAR 50 = 300 ms).
    assert_eq!(s.probe_at, Some(t0 + ms(202)));
    assert_eq!(s.poll_timeout(t0), Some(t0 + ms(202)));
}

#[test]
fn with_a_probe_pending_the_sender_asks_to_wake_for_the_probe_not_the_rto() {
    // An RTO armed before the pending probe (a head retransmission re-arms it from its own
    // send time) is no deadline: on_timeout skips the RTO while a probe waits, so waking for it
    // changed nothing and the sender asked for the same instant again (a run stalled on it).
    let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Unlimited);
    assert_eq!(drain(&mut s, t0).len(), 10);
    assert_eq!(s.probe_at, Some(t0 + ms(202)));
    s.rto_at = Some(t0 + ms(50));
    assert_eq!(s.poll_timeout(t0), Some(t0 + ms(202)));
    s.on_timeout(t0 + ms(50));
    assert_eq!(s.poll_timeout(t0 + ms(50)), Some(t0 + ms(202)));
}

#[test]
fn a_loss_probe_is_due_by_the_rto_counted_from_the_head_and_stands_in_for_it() {
    let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Open { written: 0 });
    s.app_write(seg_bytes(10));
    assert_eq!(drain(&mut s, t0).len(), 10);
    // Segments 0..4 are ACKed one RTT later (re-arming the RTO from then); the application
    // writes two more, which leave at once.
    let t1 = t0 + ms(RTT_MS);
    s.on_segment(t1, &sack_ack(seg_bytes(5), &[]));
    s.app_write(seg_bytes(2));
    assert_eq!(drain(&mut s, t1).len(), 2);
    let rto = s.rto();
    // tcp_schedule_loss_probe caps the PTO (t1 + 2 * SRTT + 2 ms) by tcp_rto_delta_us: the RTO
    // counted from the head's transmission (segment 5, sent at t0), not from the ACK at t1.
    assert!(t0 + rto < t1 + ms(202));
    assert_eq!(s.poll_timeout(t1), Some(t0 + rto));
    s.on_timeout(t0 + rto);
    assert_eq!(drain(&mut s, t0 + rto).iter().map(|x| x.seq).collect::<Vec<_>>(), vec![seg_bytes(11)]);
    // The probe restarts the RTO from its own transmission (tcp_send_loss_probe clears the
    // pending timer first); the one armed at t1 no longer fires.
    assert_eq!(s.poll_timeout(t0 + rto), Some(t0 + rto + rto));
    s.on_timeout(t1 + rto);
    assert_eq!((s.stats.loss_probes, s.stats.timeouts), (1, 0));
}

#[test]
fn an_ack_after_which_nothing_new_leaves_plans_the_probe_within_a_whole_rto_from_the_ack() {
    // Ten segments out at t0; segments 0..4 are ACKed one RTT later and nothing new is written.
    // Whether the burst after the ACK is polled to its end or not, and whatever the sender is
    // asked or driven by next, the probe is the ACK's plan (tcp_set_xmit_timer): the PTO
    // (2 * SRTT + 2 ms = 202 ms, five segments out) capped by a whole RTO from t1, not by the
    // RTO counted from segment 5's send at t0 (tcp_write_xmit's cap, for new data only).
    let t1 = SimTime::ZERO + ms(2 * RTT_MS);
    let acked = |polled: bool| {
        let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Open { written: 0 });
        s.app_write(seg_bytes(10));
        assert_eq!(drain(&mut s, t0).len(), 10);
        assert_eq!(t0 + ms(RTT_MS), t1);
        s.on_segment(t1, &sack_ack(seg_bytes(5), &[]));
        if polled {
            assert!(drain(&mut s, t1).is_empty());
        }
        s
    };
    let s = acked(true);
    let (pto, rto) = (ms(202), s.rto());
    let expected = t1 + SimDuration::from_ns(pto.as_ns().min(rto.as_ns()));
    assert!(SimTime::ZERO + ms(RTT_MS) + rto < expected, "the head's cap would plan it earlier");
    assert_eq!(s.poll_timeout(t1), Some(expected));
    assert_eq!(acked(false).poll_timeout(t1), Some(expected));
    // Not polled, then a timer check before the deadline (the plan is made there), or an
    // ACK that restarts nothing (a duplicate).
    let mut s = acked(false);
    s.on_timeout(t1 + ms(1));
    assert_eq!(s.poll_timeout(t1 + ms(1)), Some(expected));
    let mut s = acked(false);
    s.on_segment(t1 + ms(1), &sack_ack(seg_bytes(5), &[]));
    assert!(drain(&mut s, t1 + ms(1)).is_empty());
    assert_eq!(s.poll_timeout(t1 + ms(1)), Some(expected));
}

#[test]
fn a_tail_drop_is_probed_after_two_srtt_and_repaired_in_recovery() {
    let (mut s, t0) = sender(TcpSpec::default(), AppSupply::Closed { total: seg_bytes(10) });
    drain(&mut s, t0);
    // Segments 8 and 9 (the tail) are lost; 0..7 are ACKed one RTT later.
    let t1 = t0 + ms(RTT_MS);
    s.on_segment(t1, &sack_ack(seg_bytes(8), &[]));
    assert_eq!(s.srtt(), Some(ms(100)));
    // tcp_schedule_loss_probe: PTO = 2 * SRTT + 2 ms = 202 ms (two segments out),
    // sooner than the RTO.
    let pto_at = s.poll_timeout(t1).unwrap();
    assert_eq!(pto_at, t1 + ms(202));
    assert!(s.rto() > ms(202));
    s.on_timeout(pto_at);
    let probe = drain(&mut s, pto_at);
    // No new data to send: the last segment goes out again.
    assert_eq!(probe.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![seg_bytes(9)]);
    assert_eq!((s.stats.loss_probes, s.stats.timeouts), (1, 0));
    // The probe's SACK arrives: RACK marks segment 8 (sent 302 ms earlier) lost at once.
    let t2 = pto_at + ms(RTT_MS);
    s.on_segment(t2, &sack_ack(seg_bytes(8), &[(seg_bytes(9), seg_bytes(10))]));
    assert_eq!(s.ca_state(), CaState::Recovery);
    assert_eq!(drain(&mut s, t2).first().map(|x| x.seq), Some(seg_bytes(8)));
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn dsack_of_a_spurious_fast_retransmit_restores_cwnd_and_ssthresh() {
    let spec = TcpSpec { timestamps: Some(false), ..Default::default() };
    let (mut s, t0) = sender(spec, AppSupply::Closed { total: seg_bytes(10) });
    drain(&mut s, t0);
    let t1 = t0 + ms(RTT_MS);
    // Segment 0 is only delayed, but three SACKs above it make RACK call it lost.
    for k in 2..=4 {
        s.on_segment(t1, &sack_ack(0, &[(seg_bytes(1), seg_bytes(k))]));
        drain(&mut s, t1);
    }
    assert_eq!(s.ca_state(), CaState::Recovery);
    // NewReno ssthresh = max(10 / 2, 2) = 5 (Linux tcp_reno_ssthresh).
    assert_eq!(s.cc().window().ssthresh, 5);
    // The original arrives, then the retransmission: the receiver reports it with a
    // D-SACK block below the cumulative ACK (RFC 2883 §4.1.1).
    let t2 = t1 + ms(5);
    s.on_segment(t2, &sack_ack(seg_bytes(10), &[(0, seg_bytes(1))]));
    // Every retransmission of the episode was DSACKed: tcp_try_undo_recovery undoes.
    // cwnd = tcp_reno_undo_cwnd = max(cwnd, prior_cwnd 10), ssthresh back to infinite.
    assert_eq!(s.stats.undos, 1);
    assert_eq!(s.ssthresh_bytes(), u64::MAX);
    assert!(s.cc().window().cwnd >= 10, "cwnd {}", s.cc().window().cwnd);
    assert_eq!(s.ca_state(), CaState::Open);
}

#[test]
fn eifel_undoes_a_spurious_rto_when_the_ack_echoes_the_original() {
    // TLP off (tcp_early_retrans = 0), so the RTO is the first timer to fire.
    let (mut s, t0) = sender(TcpSpec { early_retrans: Some(0), ..Default::default() }, AppSupply::Unlimited);
    drain(&mut s, t0);
    // A delay spike: no ACK before the RTO, 300 ms after the send (Linux RTO on the first
    // sample: SRTT 100 + max(2 * 100, TCP_RTO_MIN 200) = 300 ms).
    let rto_at = s.poll_timeout(t0).unwrap();
    assert_eq!(rto_at, t0 + ms(300));
    s.on_timeout(rto_at);
    assert_eq!((s.ca_state(), s.cc().window().cwnd), (CaState::Loss, 1));
    assert_eq!(drain(&mut s, rto_at)[0].seq, 0);
    // The ACK for the original data arrives, echoing the originals' timestamp t0,
    // older than the retransmission (RFC 3522 §3.2, Linux tcp_packet_delayed).
    let t1 = rto_at + ms(20);
    let mut a = sack_ack(seg_bytes(10), &[]);
    a.ts_ecr = Some(t0);
    s.on_segment(t1, &a);
    // tcp_try_undo_loss: cwnd = max(1, prior cwnd 10) and Open again. The same ACK
    // then grows cwnd in slow start by the 10 segments it delivered: 20.
    assert_eq!(s.stats.spurious_rtos, 1);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.ssthresh_bytes(), u64::MAX);
    assert_eq!(s.cc().window().cwnd, 20);
}

#[test]
fn acks_of_delayed_originals_after_an_rto_do_not_mark_the_rest_lost_again() {
    // TLP off, so the RTO (300 ms after the send) is the first timer to fire.
    let (mut s, t0) = sender(TcpSpec { early_retrans: Some(0), ..Default::default() }, AppSupply::Unlimited);
    assert_eq!(drain(&mut s, t0).len(), 10);
    let rto_at = s.poll_timeout(t0).unwrap();
    s.on_timeout(rto_at);
    assert_eq!(drain(&mut s, rto_at).iter().map(|x| x.seq).collect::<Vec<_>>(), vec![0]);
    // An outage ends and the originals arrive one at a time, the first 150 ms after the
    // retransmission (more than min_rtt 100 ms, so RACK's own ambiguity test lets it
    // through), its ACK echoing the originals' timestamp t0.
    let t1 = rto_at + ms(150);
    let mut a = sack_ack(seg_bytes(1), &[]);
    a.ts_ecr = Some(t0);
    s.on_segment(t1, &a);
    // Eifel (tcp_try_undo_loss) undoes the RTO and forgets the loss marks. The ACK was for
    // segment 0's original (Linux tcp_skb_spurious_retrans), so RACK does not take the
    // retransmission's send time (rto_at) as the newest delivered: segments 1-9, sent at t0,
    // 450 ms before, are not marked lost again. Open, cwnd back to 10 and +1 in slow start
    // with 9 in flight: two new segments, 10 and 11, and no retransmission.
    assert_eq!((s.stats.spurious_rtos, s.ca_state()), (1, CaState::Open));
    let sent: Vec<u64> = drain(&mut s, t1).iter().map(|x| x.seq).collect();
    assert_eq!(sent, vec![seg_bytes(10), seg_bytes(11)]);
    assert_eq!(s.stats.retransmits, 1);
}

#[test]
fn an_rto_leaves_a_segment_sent_within_rack_rtt_unmarked() {
    // TLP off, so the RTO is the first timer; the application writes in steps.
    let spec = TcpSpec { early_retrans: Some(0), ..Default::default() };
    let (mut s, t0) = sender(spec, AppSupply::Open { written: 0 });
    s.app_write(seg_bytes(10));
    assert_eq!(drain(&mut s, t0).len(), 10);
    // Segment 0 is ACKed one RTT later: RACK.rtt = 100 ms, and the RTO restarts from t1.
    let t1 = t0 + ms(RTT_MS);
    s.on_segment(t1, &sack_ack(seg_bytes(1), &[]));
    let rto_at = s.poll_timeout(t1).unwrap();
    // One more segment is written and sent 50 ms before the RTO; with data outstanding, the
    // send does not restart the timer (Linux tcp_event_new_data_sent).
    let t2 = t1 + ((rto_at - t1) - ms(50));
    s.app_write(seg_bytes(1));
    assert_eq!(drain(&mut s, t2).iter().map(|x| x.seq).collect::<Vec<_>>(), vec![seg_bytes(10)]);
    assert_eq!(s.poll_timeout(t2), Some(rto_at));
    s.on_timeout(rto_at);
    // Linux tcp_timeout_mark_lost: segments 1-9, sent at t0, are lost; segment 10, sent 50 ms
    // ago (less than RACK.rtt), is not yet and stays in flight. tcp_enter_loss: cwnd = in
    // flight + 1 = 2, room for the head's retransmission only.
    assert_eq!((s.packets_in_flight(), s.cc().window().cwnd), (1, 2));
    assert_eq!(drain(&mut s, rto_at).iter().map(|x| x.seq).collect::<Vec<_>>(), vec![seg_bytes(1)]);
}

#[test]
fn frto_sends_new_data_after_an_rto_and_undoes_when_an_original_is_acked() {
    // RFC 5682 §3.1 without timestamps (no Eifel) and TLP off, so the RTO fires first.
    let spec = TcpSpec { timestamps: Some(false), early_retrans: Some(0), ..Default::default() };
    let (mut s, t0) = sender(spec, AppSupply::Unlimited);
    drain(&mut s, t0);
    let rto_at = s.poll_timeout(t0).unwrap();
    s.on_timeout(rto_at);
    assert_eq!(drain(&mut s, rto_at).iter().map(|x| x.seq).collect::<Vec<_>>(), vec![0]);
    // Step 2: the first ACK advancing snd_una (the delayed original of segment 0).
    let t1 = rto_at + ms(10);
    s.on_segment(t1, &sack_ack(seg_bytes(1), &[]));
    // Step 2.b: cwnd 1 -> 2 in slow start; both go to new data, not to segments 1..9.
    let sent: Vec<u64> = drain(&mut s, t1).iter().map(|x| x.seq).collect();
    assert_eq!(sent, vec![seg_bytes(10), seg_bytes(11)]);
    // Step 3.b: the next ACK covers segment 1, never retransmitted: the RTO was spurious.
    s.on_segment(t1 + ms(1), &sack_ack(seg_bytes(2), &[]));
    assert_eq!(s.stats.spurious_rtos, 1);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.ssthresh_bytes(), u64::MAX);
}

#[test]
fn frto_falls_back_to_retransmitting_when_the_new_data_is_sacked_above_a_hole() {
    let spec = TcpSpec { timestamps: Some(false), early_retrans: Some(0), ..Default::default() };
    let (mut s, t0) = sender(spec, AppSupply::Unlimited);
    drain(&mut s, t0);
    let rto_at = s.poll_timeout(t0).unwrap();
    s.on_timeout(rto_at);
    drain(&mut s, rto_at);
    // Only the retransmission of segment 0 arrives (the originals were lost).
    let t1 = rto_at + ms(RTT_MS);
    s.on_segment(t1, &sack_ack(seg_bytes(1), &[]));
    drain(&mut s, t1);
    // Step 3.a: the new data is SACKed while segment 1 is still missing: the loss was real.
    let t2 = t1 + ms(RTT_MS);
    s.on_segment(t2, &sack_ack(seg_bytes(1), &[(seg_bytes(10), seg_bytes(11))]));
    assert_eq!(s.stats.spurious_rtos, 0);
    assert_eq!(drain(&mut s, t2).first().map(|x| x.seq), Some(seg_bytes(1)));
    assert_eq!(s.cc().window().ssthresh, 5);
}

#[test]
fn an_ack_echoing_the_retransmission_does_not_undo_an_rto() {
    let (mut s, t0) = sender(TcpSpec { early_retrans: Some(0), ..Default::default() }, AppSupply::Unlimited);
    drain(&mut s, t0);
    let rto_at = s.poll_timeout(t0).unwrap();
    s.on_timeout(rto_at);
    drain(&mut s, rto_at);
    let t1 = rto_at + ms(RTT_MS);
    let mut a = sack_ack(seg_bytes(1), &[]);
    a.ts_ecr = Some(rto_at);
    s.on_segment(t1, &a);
    assert_eq!(s.stats.spurious_rtos, 0);
    assert_eq!(s.cc().window().ssthresh, 5);
}

/// Segment 0 lost and fast-retransmitted at `t1`; at `t2` the cumulative ACK covers it and
/// segments 4..9, which were never SACKed (sent at t0, one RTT before the retransmission).
fn ack_over_a_retransmission(timestamps: bool) -> (TcpSender, SimTime, SimTime, usize) {
    let (mut s, t0) = sender(TcpSpec { timestamps: Some(timestamps), ..Default::default() }, AppSupply::Unlimited);
    drain(&mut s, t0);
    let (t1, _) = sacks_for_one_to_three(&mut s, t0);
    assert_eq!(s.stats.retransmits, 1);
    let samples_before = s.rtt_log.len();
    let t2 = t1 + ms(RTT_MS) + SimDuration::from_us(400);
    let mut a = sack_ack(seg_bytes(10), &[]);
    a.ts_ecr = timestamps.then_some(t1);
    s.on_segment(t2, &a);
    (s, t1, t2, samples_before)
}

#[test]
fn an_ack_of_retransmitted_data_is_timed_by_its_echoed_timestamp() {
    let (s, t1, t2, before) = ack_over_a_retransmission(true);
    // Karn (Linux FLAG_RETRANS_DATA_ACKED): segments 4..9 would say t2 - t0 = 200.4 ms, but
    // retransmitted data was ACKed, so tcp_ack_update_rtt times the ACK by TSecr = t1 on the
    // millisecond TSval clock: 300 - 200 = 100 ticks = 100 ms.
    assert_eq!(s.rtt_log.len(), before + 1);
    let last = s.rtt_log.last().unwrap();
    assert_eq!((last.at, last.rtt), (t2, ms(100)));
    assert_eq!(t1, SimTime::ZERO + ms(200));
}

#[test]
fn without_timestamps_an_ack_of_retransmitted_data_gives_no_rtt_sample() {
    let (s, _, _, before) = ack_over_a_retransmission(false);
    assert_eq!(s.rtt_log.len(), before);
}

#[test]
fn the_timestamp_rtt_counts_whole_ticks_and_at_least_one() {
    // Linux tcp_rtt_tsopt_us: the difference of two truncated millisecond clocks, min 1.
    let at = |us: u64| SimTime::ZERO + SimDuration::from_us(us);
    assert_eq!(tsopt_rtt(at(60_999), at(900), 1), ms(60));
    assert_eq!(tsopt_rtt(at(61_000), at(999), 1), ms(61));
    assert_eq!(tsopt_rtt(at(1_500), at(1_100), 1), ms(1));
}

/// A lossy, reordering two-way pipe between a real sender and a real receiver.
mod pipe {
    use super::*;
    use crate::sim::RngStream;
    use crate::tcp::{EcnEcho, TcpReceiver};

    pub struct Knobs {
        pub drop_fwd: f64,
        pub drop_rev: f64,
        /// Extra random one-way delay, ms (reorders segments).
        pub jitter_ms: u64,
        pub recovery: u32,
        pub early_retrans: u32,
        pub timestamps: bool,
        pub frto: u32,
        /// The profile filling every other field (its ns3 variants of PRR, the RTO timer, RTT
        /// sampling, the receiver's ACKs, window and send buffer, the Reno rules).
        pub profile: TcpProfile,
        pub seed: u64,
    }

    /// One-way base delay, ms.
    const ONE_WAY_MS: u64 = 20;

    /// Run a finite transfer; check the invariants after every event; return
    /// the sender once it finished (or the time limit passed).
    pub fn run(k: &Knobs, segments: u64, limit: SimDuration) -> TcpSender {
        let spec = TcpSpec {
            sack: Some(true),
            timestamps: Some(k.timestamps),
            recovery: Some(k.recovery),
            early_retrans: Some(k.early_retrans),
            frto: Some(k.frto),
            profile: Some(k.profile),
            ..Default::default()
        };
        let p = spec.resolve_for("newreno");
        let window = Window::new(p.initial_cwnd_segs).with_reno_rules(p.reno_rules);
        let cc = CcConfig::NewReno(Default::default()).build(window, RngStream::new(0, "cc"));
        let mut tx = TcpSender::new(p.clone(), MSS, cc, AppSupply::Closed { total: segments * MSS as u64 });
        let mut rx = TcpReceiver::new(p, MSS, EcnEcho::Off);
        let mut rng = RngStream::new(k.seed, "pipe");
        let mut fwd: Vec<(SimTime, TcpSegment)> = Vec::new();
        let mut rev: Vec<(SimTime, TcpSegment)> = Vec::new();
        let mut now = SimTime::ZERO;
        tx.start(now);
        while !tx.is_done() && now < SimTime::ZERO + limit {
            while let Some(seg) = tx.poll_transmit(now) {
                if !rng.bernoulli(k.drop_fwd) || seg.flags.has(TcpFlags::SYN) {
                    let delay = ONE_WAY_MS + (rng.uniform() * k.jitter_ms as f64) as u64;
                    fwd.push((now + ms(delay), seg));
                }
            }
            while let Some(seg) = rx.poll_transmit(now) {
                if !rng.bernoulli(k.drop_rev) || seg.flags.has(TcpFlags::SYN) {
                    rev.push((now + ms(ONE_WAY_MS), seg));
                }
            }
            let next =
                [fwd.iter().map(|x| x.0).min(), rev.iter().map(|x| x.0).min(), tx.poll_timeout(now), rx.poll_timeout()]
                    .into_iter()
                    .flatten()
                    .min();
            let Some(t) = next else { break };
            now = now.max(t);
            if let Some(i) = fwd.iter().position(|x| x.0 <= now) {
                let (_, seg) = fwd.remove(i);
                rx.on_segment(now, &seg);
                rx.on_app_read(now);
            } else if let Some(i) = rev.iter().position(|x| x.0 <= now) {
                let (_, seg) = rev.remove(i);
                tx.on_segment(now, &seg);
            } else {
                tx.on_timeout(now);
                rx.on_timeout(now);
            }
            check(&tx, &rx);
        }
        tx
    }

    fn check(tx: &TcpSender, rx: &TcpReceiver) {
        let w = tx.cc().window();
        assert!(w.cwnd >= 1, "cwnd >= 1 segment");
        assert!(tx.snd_una() <= rx.delivered_bytes() && rx.delivered_bytes() <= tx.snd_nxt());
        assert!(tx.packets_in_flight() <= tx.board.packets_out() + tx.board.retrans_out());
        assert!(tx.unsacked_bytes() <= tx.snd_nxt() - tx.snd_una());
        assert!(tx.stats.undos <= tx.stats.recoveries + tx.stats.timeouts);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 48,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x7C9),
        ..Default::default()
    })]

    /// With any loss up to 20% each way and reordering, every mechanism mix
    /// (RACK on/off, TLP on/off, timestamps on/off, F-RTO on/off, the rest Linux's or ns-3's)
    /// keeps cwnd >= 1, the scoreboard consistent with the receiver, and finishes a 60-segment
    /// transfer.
    #[test]
    fn recovery_keeps_invariants_and_finishes_under_loss_and_reordering(
        drop_fwd in 0.0f64..0.2,
        drop_rev in 0.0f64..0.2,
        jitter_ms in 0u64..30,
        recovery in proptest::sample::select(vec![0u32, 1, 5]),
        early_retrans in proptest::sample::select(vec![0u32, 3]),
        timestamps in proptest::bool::ANY,
        frto in proptest::sample::select(vec![0u32, 2]),
        profile in proptest::sample::select(vec![TcpProfile::Linux, TcpProfile::Ns3]),
        seed in 0u64..10_000,
    ) {
        let k = pipe::Knobs { drop_fwd, drop_rev, jitter_ms, recovery, early_retrans, timestamps, frto, profile, seed };
        let tx = pipe::run(&k, 60, SimDuration::from_secs(600));
        proptest::prop_assert!(tx.is_done(), "transfer finished: {:?}", tx.stats);
    }
}

#[test]
fn reordering_without_loss_is_undone_or_never_reduced() {
    // 25 ms of jitter on a 40 ms RTT reorders many segments; nothing is lost.
    let k = pipe::Knobs {
        drop_fwd: 0.0,
        drop_rev: 0.0,
        jitter_ms: 25,
        recovery: 1,
        early_retrans: 3,
        timestamps: true,
        frto: 2,
        profile: TcpProfile::Linux,
        seed: 7,
    };
    let tx = pipe::run(&k, 400, SimDuration::from_secs(60));
    assert!(tx.is_done());
    // RACK enters recovery spuriously until it has seen reordering; every such
    // recovery is undone by DSACK or Eifel, so no reduction stands.
    assert!(tx.rack.reordering_seen());
    assert!(tx.stats.recoveries > 0, "{:?}", tx.stats);
    assert_eq!(tx.stats.undos, tx.stats.recoveries, "{:?}", tx.stats);
    assert_eq!(tx.stats.timeouts, 0);
}

/// Segments 0 and 5 of the first window lost, recovery started by SACKs of 1..3, then the
/// retransmission of 0 arrives: a partial ACK up to the hole at 5 with 6..7 SACKed (not yet three
/// above 5, so 5 is not marked lost). Returns the sender once cwnd is held at the pipe (as PRR
/// leaves it when it allows no send), and what it sends then.
fn partial_ack_at_full_cwnd(fast_recovery: Stack) -> (TcpSender, Vec<TcpSegment>) {
    let spec = TcpSpec { recovery: Some(0), fast_recovery: Some(fast_recovery), ..Default::default() };
    let (mut s, t0) = sender(spec, AppSupply::Unlimited);
    assert_eq!(drain(&mut s, t0).len(), 10);
    let t1 = t0 + ms(RTT_MS);
    for k in 2..=4 {
        s.on_segment(t1, &sack_ack(0, &[(seg_bytes(1), seg_bytes(k))]));
        drain(&mut s, t1);
    }
    assert_eq!((s.ca_state(), s.stats.retransmits), (CaState::Recovery, 1));
    let t2 = t1 + ms(RTT_MS);
    s.on_segment(t2, &sack_ack(seg_bytes(5), &[(seg_bytes(6), seg_bytes(8))]));
    let pipe = s.packets_in_flight();
    s.cc.window_mut().set_cwnd(pipe);
    let out = drain(&mut s, t2);
    (s, out)
}

#[test]
fn ns3_sends_one_segment_beyond_cwnd_on_a_partial_ack_whose_head_was_not_resent() {
    // ns-3's ProcessAck calls DoRetransmit on this partial ACK (its head, 5, never resent):
    // NextSeg finds no lost segment, so new data goes, whatever cwnd says.
    let (s, out) = partial_ack_at_full_cwnd(Stack::Ns3);
    assert_eq!(out.len(), 1);
    assert!(out[0].seq >= seg_bytes(10) && out[0].len > 0, "new data: {:?}", out[0]);
    assert_eq!(s.packets_in_flight(), s.cc().window().cwnd + 1);
    // Linux sends within cwnd only.
    let (l, out) = partial_ack_at_full_cwnd(Stack::Linux);
    assert!(out.is_empty());
    assert_eq!(l.packets_in_flight(), l.cc().window().cwnd);
}
