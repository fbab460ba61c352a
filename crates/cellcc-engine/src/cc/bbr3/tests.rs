//! Conformance tests: BBRv3 driven by scripted ACKs, checked against values
//! worked out by hand from the v3 tcp_bbr.c.
//!
//! As for v1: min_rtt = 8192 µs and MSS = 1448 bytes, so `d` packets per
//! 8192 µs is a bandwidth sample of exactly d x 2048 (packets/µs << 24).

use super::probe_bw::Phase;
use super::*;
use crate::cc::common::testing::conn;
use crate::sim::SimDuration;

const RTT_US: u64 = 8192;

/// Feeds BBRv3 the ACKs of a steady flow (each ACKs packets sent one RTT earlier).
struct Driver {
    bbr: Bbr3,
    conn: ConnView,
    history: Vec<(SimTime, u64)>,
    /// Segments newly marked lost by each ACK (`rs.losses`), lost over the sample (`rs.lost`).
    losses: u32,
    lost: u32,
}

impl Driver {
    fn new(seed: u64) -> Self {
        let mut c = conn(0, 0);
        c.srtt = Some(SimDuration::from_us(RTT_US));
        c.min_rtt = None;
        let bbr = Bbr3::new(&Config::default(), Window::new(10), RngStream::new(seed, "test:bbr3"));
        Driver { bbr, conn: c, history: vec![(SimTime::ZERO, 0)], losses: 0, lost: 0 }
    }

    fn ack(&mut self, step_us: u64, segs: u32, rtt_us: u64, inflight: u32) -> &Bbr3 {
        self.conn.now += SimDuration::from_us(step_us);
        let sent_at = self.conn.now.0.saturating_sub(rtt_us * NS_PER_US);
        let prior_delivered = self.history.iter().rev().find(|(t, _)| t.0 <= sent_at).map_or(0, |h| h.1);
        self.conn.delivered += segs as u64;
        self.conn.lost += self.losses as u64;
        self.conn.packets_in_flight = inflight;
        let rate = RateSample {
            prior_delivered,
            delivered: (self.conn.delivered - prior_delivered) as u32,
            interval: SimDuration::from_us(rtt_us),
            rtt: Some(SimDuration::from_us(rtt_us)),
            losses: self.losses,
            lost: self.lost,
            tx_in_flight: inflight + segs,
            acked_sacked: segs,
            prior_in_flight: inflight + segs,
            ..RateSample::default()
        };
        self.history.push((self.conn.now, self.conn.delivered));
        let ack = AckSample { acked_segs: segs, rtt: rate.rtt, rate, ..AckSample::default() };
        assert!(self.bbr.cong_control(&self.conn, &ack));
        &self.bbr
    }

    fn round(&mut self, segs: u32, inflight: u32) -> &Bbr3 {
        self.ack(RTT_US, segs, RTT_US, inflight)
    }

    /// Startup (bw 16384, 32768, 65536, then flat), Drain, ProbeBW in DOWN.
    fn to_probe_bw(seed: u64) -> Self {
        let mut d = Driver::new(seed);
        for segs in [8, 16, 32, 32, 32, 32] {
            d.round(segs, 100);
        }
        d.round(32, 20);
        assert_eq!((d.bbr.mode, d.bbr.phase), (Mode::ProbeBw, Phase::Down));
        d
    }

    /// ACKs every 1024 µs (2 packets each: bw 16 per RTT = 32768) until `until` holds; returns ACKs used.
    fn run_until(&mut self, inflight: u32, until: impl Fn(&Bbr3) -> bool) -> u32 {
        for n in 1..100_000 {
            self.ack(1024, 2, RTT_US, inflight);
            if until(&self.bbr) {
                return n;
            }
        }
        panic!("condition never reached");
    }
}

#[test]
fn defaults_are_the_v3_constants() {
    let c = Config::default();
    // 256 x 277/100 + 1 = 709 + 1; 256 x 1000/2885 = 88; 256 x 30/100 = 76; 256 x 2/100 = 5; 256 x 15/100 = 38.
    assert_eq!((c.startup_pacing_gain, c.drain_gain, c.beta, c.loss_thresh), (710, 88, 76, 5));
    assert_eq!(
        (c.inflight_headroom, c.probe_rtt_win_ms, c.probe_rtt_cwnd_gain, c.bw_probe_max_rounds),
        (38, 5000, 128, 63)
    );
    assert_eq!(Phase::Down.pacing_gain(), 232, "256 x 91/100");
}

#[test]
fn startup_ends_after_three_flat_rounds_then_drain_then_probe_bw_down() {
    let mut d = Driver::new(1);
    // Pacing in Startup: 2.77 x bw x 0.99; bw 65536: (65536 x 1448 x 710 >> 8) = 263188480,
    // x 990000 >> 24 = 15_530_383 B/s.
    for segs in [8, 16, 32] {
        d.round(segs, 100);
    }
    assert_eq!(d.bbr.pacing_rate_bps(), Some(15_530_383 * 8));
    for _ in 0..2 {
        assert_eq!(d.round(32, 100).mode, Mode::Startup);
    }
    // Third flat round: Drain, pacing 88/256 of bw: (65536 x 1448 x 88 >> 8) x 990000 >> 24 = 1_924_892 B/s.
    assert_eq!(d.round(32, 100).mode, Mode::Drain);
    assert_eq!(d.bbr.pacing_rate_bps(), Some(1_924_892 * 8));
    // BDP = 65536 x 8192 / 2^24 = 32 packets >= in-flight 20: ProbeBW, starting in DOWN (pacing 0.91).
    d.round(32, 20);
    assert_eq!((d.bbr.mode, d.bbr.phase, d.bbr.pacing_gain), (Mode::ProbeBw, Phase::Down, 232));
}

#[test]
fn startup_ends_on_a_lossy_recovery_round() {
    let mut d = Driver::new(2);
    for segs in [8, 16, 32] {
        d.round(segs, 100);
    }
    // Recovery with a loss on every ACK, 3 of 100 in flight lost (> 2%): after >= 6 loss
    // events, the next loss-round start ends Startup with inflight_hi = max(BDP, inflight_latest).
    d.conn.ca_state = CaState::Recovery;
    (d.losses, d.lost) = (1, 3);
    d.run_until(100, |b| b.full_bw_reached);
    assert!(d.bbr.loss_events_in_round >= 6);
    let bdp = d.bbr.inflight(d.bbr.max_bw(), BBR_UNIT);
    assert_ne!(d.bbr.inflight_hi, UNBOUNDED, "ended by loss, not by the bandwidth plateau");
    assert_eq!(d.bbr.inflight_hi, bdp.max(d.bbr.inflight_latest));
}

#[test]
fn probe_bw_cycles_down_cruise_refill_up_down() {
    let mut d = Driver::to_probe_bw(3);
    // DOWN -> CRUISE once in-flight (prior_in_flight = 12 + 2) is below the BDP (32).
    d.ack(1024, 2, RTT_US, 12);
    assert_eq!((d.bbr.phase, d.bbr.pacing_gain), (Phase::Cruise, BBR_UNIT));
    // CRUISE -> REFILL when rounds_since_probe reaches min(63, target_inflight): the
    // Reno-coexistence scale, shorter than the 2-3 s wall clock here.
    let target = d.bbr.target_inflight();
    d.run_until(12, |b| b.phase == Phase::Refill);
    assert!(d.bbr.rounds_since_probe >= target.min(63));
    assert_eq!(d.bbr.bw_lo, UNBOUNDED, "REFILL resets the lower bounds");
    // REFILL lasts one round, then UP at 1.25 with cwnd gain 2.25.
    let mut rounds = 0;
    while d.bbr.phase != Phase::Up {
        d.ack(1024, 2, RTT_US, 12);
        rounds += d.bbr.round_start as u32;
    }
    assert_eq!(rounds, 1);
    assert_eq!((d.bbr.pacing_gain, d.bbr.cwnd_gain), (320, 576));
    // UP -> DOWN once the bandwidth sample stops growing for 3 rounds (full_bw_now).
    d.run_until(12, |b| b.phase == Phase::Down);
    assert!(!d.bbr.prev_probe_too_high);
}

#[test]
fn probe_wait_is_two_to_three_seconds() {
    for seed in 0..20 {
        let d = Driver::to_probe_bw(seed);
        assert!((2_000_000..3_000_000).contains(&d.bbr.probe_wait_us), "{}", d.bbr.probe_wait_us);
        assert!(d.bbr.rounds_since_probe < 2, "random 0..2 rounds");
    }
}

#[test]
fn losses_above_two_percent_while_probing_cut_inflight_hi_and_stop_the_probe() {
    let mut d = Driver::to_probe_bw(4);
    d.ack(1024, 2, RTT_US, 12);
    d.run_until(12, |b| b.phase == Phase::Up);
    // 3 lost of tx_in_flight 40 + 2: 3 > 42 x 5/256 = 0: too high.
    (d.losses, d.lost) = (1, 3);
    d.ack(1024, 2, RTT_US, 40);
    let floor = ((d.bbr.target_inflight() as u64 * (256 - 76)) >> 8) as u32;
    assert_eq!(d.bbr.inflight_hi, 42.max(floor), "max(tx_in_flight, 0.7 x target)");
    assert_eq!(d.bbr.phase, Phase::Down);
    assert!(d.bbr.prev_probe_too_high);
}

#[test]
fn a_lossy_round_while_cruising_cuts_the_lower_bounds_by_beta() {
    let mut d = Driver::to_probe_bw(5);
    d.ack(1024, 2, RTT_US, 12);
    assert_eq!(d.bbr.phase, Phase::Cruise);
    // Two RTTs of steady 1 ms ACKs: samples of 16 per RTT (32768). The max is from the switch to
    // 1 ms ACKs: an RTT spanning the last 32-packet round ACK plus seven 2-packet ACKs, 46 x 2048.
    for _ in 0..16 {
        d.ack(1024, 2, RTT_US, 12);
    }
    assert_eq!((d.bbr.max_bw(), d.bbr.bw_latest), (94_208, 32_768));
    d.losses = 1;
    d.ack(1024, 2, RTT_US, 12);
    d.losses = 0;
    // At the next loss-round start: bw_lo = max(bw_latest, 0.7 x max_bw) = max(32768, 94208 x 180/256 = 66240);
    // inflight_lo = max(inflight_latest = 16 delivered per round, cwnd x 180/256).
    let mut cwnd_before = d.bbr.w.cwnd;
    while d.bbr.bw_lo == UNBOUNDED {
        cwnd_before = d.bbr.w.cwnd;
        d.ack(1024, 2, RTT_US, 12);
    }
    assert_eq!(d.bbr.bw_lo, 66_240);
    assert_eq!(d.bbr.inflight_lo, 16.max(((cwnd_before as u64 * 180) >> 8) as u32));
    assert_eq!(d.bbr.bw(), 66_240);
    assert!(d.bbr.w.cwnd <= d.bbr.inflight_lo, "cwnd bounded by inflight_lo");
}

#[test]
fn probe_rtt_every_5s_at_half_the_bdp() {
    let mut d = Driver::to_probe_bw(6);
    let stamp = d.bbr.probe_rtt_min_stamp;
    // RTT 9192 µs (> min): no new probe_rtt_min for 5 s.
    loop {
        d.ack(1024, 2, RTT_US + 1000, 30);
        if d.conn.now <= stamp + SimDuration::from_ms(5000) {
            assert_ne!(d.bbr.mode, Mode::ProbeRtt);
        } else {
            assert_eq!(d.bbr.mode, Mode::ProbeRtt);
            break;
        }
    }
    // cwnd = max(4, BDP/2) = max(4, ceil(bw x 8192 x 128/256 / 2^24)).
    let half_bdp = d.bbr.bdp(d.bbr.bw(), 128).max(4);
    assert_eq!(d.bbr.w.cwnd, half_bdp);
    d.ack(1024, 1, RTT_US, half_bdp);
    let hold = d.conn.now;
    while d.bbr.mode == Mode::ProbeRtt {
        d.ack(1024, 1, RTT_US, half_bdp);
    }
    assert!(d.conn.now - hold > SimDuration::from_ms(200));
    assert_eq!((d.bbr.mode, d.bbr.phase), (Mode::ProbeBw, Phase::Cruise), "exit into CRUISE");
}

#[test]
fn undo_restores_the_bounds_saved_at_ssthresh() {
    let mut d = Driver::to_probe_bw(7);
    d.bbr.inflight_hi = 50;
    d.bbr.ssthresh(&d.conn);
    d.bbr.inflight_hi = 30;
    let prior = d.bbr.prior_cwnd;
    assert_eq!(d.bbr.undo_cwnd(&d.conn, 0), prior);
    assert_eq!(d.bbr.inflight_hi, 50);
}
