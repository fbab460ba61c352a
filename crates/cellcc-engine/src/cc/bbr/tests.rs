//! Conformance tests: BBR v1 driven by scripted ACKs, checked against values
//! worked out by hand from net/ipv4/tcp_bbr.c.
//!
//! The script uses min_rtt = 8192 µs and MSS = 1448 bytes, so that bandwidth
//! samples are exact in Linux's fixed point: `d` packets per 8192 µs is
//! bw = d * 2^24 / 8192 = d * 2048 (packets/µs << 24).

use super::*;
use crate::cc::common::testing::{conn, MSS};

/// The scripted path's round-trip time, µs.
const RTT_US: u64 = 8192;

/// Feeds BBR ACKs for a steady flow: each ACK acknowledges packets sent one
/// RTT earlier, so its rate sample spans one RTT, as tcp_rate.c's would.
struct Driver {
    bbr: Bbr,
    conn: ConnView,
    /// (time, `tp->delivered`) after every ACK, to find `prior_delivered`.
    history: Vec<(SimTime, u64)>,
    /// When set, every sample claims this `prior_delivered` (a round that never ends).
    stale_prior: Option<u64>,
    losses: u32,
}

impl Driver {
    fn new(seed: u64) -> Self {
        let mut c = conn(0, 0);
        c.srtt = Some(SimDuration::from_us(RTT_US));
        c.min_rtt = None;
        let bbr = Bbr::new(&Config::default(), Window::new(10), RngStream::new(seed, "test:bbr"));
        Driver { bbr, conn: c, history: vec![(SimTime::ZERO, 0)], stale_prior: None, losses: 0 }
    }

    /// One ACK `step_us` after the previous one, newly delivering `segs`
    /// packets sent `rtt_us` ago, leaving `inflight` packets in flight.
    fn ack(&mut self, step_us: u64, segs: u32, rtt_us: u64, inflight: u32) -> &Bbr {
        self.conn.now += SimDuration::from_us(step_us);
        let sent_at = self.conn.now.0.saturating_sub(rtt_us * NS_PER_US);
        let sent_delivered = self.history.iter().rev().find(|(t, _)| t.0 <= sent_at).map_or(0, |h| h.1);
        let prior_delivered = self.stale_prior.unwrap_or(sent_delivered);
        self.conn.delivered += segs as u64;
        self.conn.lost += self.losses as u64;
        self.conn.packets_in_flight = inflight;
        let rate = RateSample {
            prior_delivered,
            delivered: (self.conn.delivered - sent_delivered) as u32,
            interval: SimDuration::from_us(rtt_us),
            rtt: Some(SimDuration::from_us(rtt_us)),
            losses: self.losses,
            acked_sacked: segs,
            prior_in_flight: inflight + segs,
            ..RateSample::default()
        };
        self.history.push((self.conn.now, self.conn.delivered));
        let ack = AckSample { acked_segs: segs, rtt: rate.rtt, rate, ..AckSample::default() };
        assert!(self.bbr.cong_control(&self.conn, &ack));
        &self.bbr
    }

    /// One round: an ACK one RTT after the last, `segs` delivered over that RTT.
    fn round(&mut self, segs: u32, inflight: u32) -> &Bbr {
        self.ack(RTT_US, segs, RTT_US, inflight)
    }

    /// Startup with bandwidth 16384, 32768, 65536 then three flat rounds,
    /// Drain, and into ProbeBW. Returns the driver in ProbeBW.
    fn to_probe_bw(seed: u64) -> Self {
        let mut d = Driver::new(seed);
        for segs in [8, 16, 32, 32, 32, 32] {
            d.round(segs, 100);
        }
        d.round(32, 20);
        assert_eq!(d.bbr.mode, Mode::ProbeBw);
        d
    }
}

#[test]
fn defaults_are_linux_constants() {
    let c = Config::default();
    // bbr_high_gain = BBR_UNIT * 2885 / 1000 + 1 = 738 + 1; bbr_drain_gain = 256000 / 2885 = 88.
    assert_eq!((c.high_gain, c.drain_gain, c.cwnd_gain), (739, 88, 512));
    assert_eq!((c.bw_filter_rounds, c.min_rtt_window_s, c.probe_rtt_mode_ms), (10, 10, 200));
    assert_eq!((c.full_bw_thresh, c.full_bw_cnt, c.cwnd_min_target_segs), (320, 3, 4));
}

#[test]
fn pacing_margin_of_100_percent_is_rejected() {
    let c = Config { pacing_margin_percent: 100, ..Config::default() };
    assert_eq!(c.validate().unwrap_err().field, "pacing_margin_percent");
    assert!(Config::default().validate().is_ok());
}

#[test]
fn pacing_rate_is_gain_times_bw_less_one_percent() {
    let mut bbr = Bbr::new(&Config::default(), Window::new(10), RngStream::new(1, "t"));
    bbr.mss_bytes = MSS;
    // 16 packets per 1024 µs: bw = 16 * 2^24 / 1024 = 262144.
    // bbr_rate_bytes_per_sec(262144, 256) = (262144 * 1448 * 256 >> 8) * 990000 >> 24
    //   = 1448 * 990000 / 64 = 22_398_750 B/s exactly (15625 pkt/s * 1448 B * 0.99).
    assert_eq!(bbr.rate_bytes_per_sec(262_144, BBR_UNIT), 22_398_750);
    // Gain 5/4 = 320: 262144 * 1448 * 320 >> 8 = 474480640; * 990000 >> 24 = 27_998_437 (floor of .5).
    assert_eq!(bbr.rate_bytes_per_sec(262_144, 320), 27_998_437);
}

#[test]
fn startup_grows_pacing_by_high_gain_until_three_flat_rounds_then_drain_then_probe_bw() {
    let mut d = Driver::new(7);
    // First ACK: bbr_init with SRTT 8192 µs: bw = 10 * 2^24 / 8192 = 20480;
    // pacing = (20480 * 1448 * 739 >> 8) * 990000 >> 24 = 5_051_475 B/s.
    // The sample of 8 packets (bw 16384, pacing 4_041_180) is lower: Startup never lowers pacing.
    assert_eq!(d.round(8, 100).pacing_rate_bps(), Some(5_051_475 * 8));
    assert_eq!(d.bbr.max_bw(), 16_384);
    // 16 packets: bw 32768 -> 2 * 68484608 * 990000 >> 24 = 8_082_361 B/s (2.885 x bw x 0.99).
    assert_eq!(d.round(16, 100).pacing_rate_bps(), Some(8_082_361 * 8));
    // 32 packets: bw 65536 -> 16_164_722 B/s; 65536 >= 1.25 x 32768, still growing.
    assert_eq!(d.round(32, 100).pacing_rate_bps(), Some(16_164_722 * 8));
    // Two rounds below 1.25 x 65536 = 81920: still Startup.
    for _ in 0..2 {
        assert_eq!(d.round(32, 100).current_mode(), Mode::Startup);
        assert_eq!(d.bbr.pacing_gain, 739);
    }
    // Third flat round: full bw reached -> Drain. ssthresh = bbr_inflight(65536, 1.0):
    // bdp = ceil(65536 * 8192 / 2^24) = 32; + 3 x tso_segs_goal (16164722 >> 10 = 15785 B = 10 segs) = 62.
    // In-flight 100 + 10 > 62, so Drain holds; pacing = 1/2.885 x bw = 1_924_892 B/s.
    assert_eq!(d.round(32, 100).current_mode(), Mode::Drain);
    assert!(d.bbr.full_bw.reached);
    assert_eq!(d.bbr.w.ssthresh, 62);
    assert_eq!(d.bbr.pacing_rate_bps(), Some(1_924_892 * 8));
    // In-flight 20 <= bbr_inflight(65536, 1.0) = 32 + 3 x 2 (1924892 >> 10 = 1879 B -> min 2 segs) = 38: ProbeBW.
    assert_eq!(d.round(32, 20).current_mode(), Mode::ProbeBw);
    assert_eq!(d.bbr.cwnd_gain, 512);
}

#[test]
fn probe_bw_starts_at_a_random_phase_never_the_drain_phase() {
    let mut seen = [false; probe_bw::CYCLE_LEN];
    for seed in 0..64 {
        seen[Driver::to_probe_bw(seed).bbr.cycle_idx] = true;
    }
    // Linux: cycle_idx = CYCLE_LEN - 1 - rand(0..7), then advanced once: {2, ..., 7, 0}.
    assert_eq!(seen, [true, false, true, true, true, true, true, true]);
}

#[test]
fn probe_bw_gain_cycle_advances_one_phase_per_min_rtt() {
    let mut d = Driver::to_probe_bw(3);
    let mut gains = vec![d.bbr.pacing_gain];
    // An ACK every 1024 µs, in-flight far above 5/4 BDP: each phase ends on the
    // first ACK more than min_rtt (8192 µs) after it began, i.e. after 9 ACKs.
    for _ in 1..(9 * probe_bw::CYCLE_LEN) {
        gains.push(d.ack(1024, 2, RTT_US, 200).pacing_gain);
    }
    let phases: Vec<&[u32]> = gains.chunks(9).collect();
    for p in &phases {
        assert!(p.iter().all(|g| *g == p[0]), "a phase holds one gain for 9 ACKs: {gains:?}");
    }
    let per_phase: Vec<u32> = phases.iter().map(|p| p[0]).collect();
    assert_eq!(per_phase.iter().filter(|g| **g == 320).count(), 1, "one phase at 5/4");
    assert_eq!(per_phase.iter().filter(|g| **g == 192).count(), 1, "one phase at 3/4");
    assert_eq!(per_phase.iter().filter(|g| **g == 256).count(), 6, "six phases at 1");
    let probe = per_phase.iter().position(|g| *g == 320).unwrap();
    if probe + 1 < per_phase.len() {
        assert_eq!(per_phase[probe + 1], 192, "3/4 follows 5/4");
    }
}

#[test]
fn probe_bw_drain_phase_ends_early_once_inflight_is_one_bdp() {
    let mut d = Driver::to_probe_bw(3);
    while d.bbr.cycle_idx != 1 {
        d.ack(1024, 2, RTT_US, 200);
    }
    // In-flight (prior_in_flight 10) below bbr_inflight(bw, 1.0): the 3/4 phase ends on this ACK.
    d.ack(1024, 2, RTT_US, 8);
    assert_eq!(d.bbr.cycle_idx, 2);
}

/// Drive a ProbeBW flow with RTT 9192 µs (above its 8192 µs min) until ProbeRTT starts.
fn until_probe_rtt(d: &mut Driver) -> SimTime {
    let expires = d.bbr.min_rtt.stamp + SimDuration::from_secs(10);
    loop {
        d.ack(1024, 2, RTT_US + 1000, 40);
        if d.conn.now <= expires {
            assert_eq!(d.bbr.mode, Mode::ProbeBw, "no ProbeRTT before the min-RTT window expires");
        } else {
            assert_eq!(d.bbr.mode, Mode::ProbeRtt, "ProbeRTT on the first ACK after 10 s");
            return d.conn.now;
        }
    }
}

#[test]
fn probe_rtt_after_10s_holds_cwnd_4_for_200ms_and_a_round_then_returns() {
    let mut d = Driver::to_probe_bw(5);
    let min_rtt_set_at = d.bbr.min_rtt.stamp;
    // The min was set by the first ACK (8192 µs); samples of 9192 µs never refresh it.
    assert_eq!(min_rtt_set_at, SimTime(RTT_US * NS_PER_US));
    let entered = until_probe_rtt(&mut d);
    assert!(entered > min_rtt_set_at + SimDuration::from_secs(10));
    let cwnd_before = d.bbr.prior_cwnd;
    assert!(cwnd_before > 4);
    assert_eq!(d.bbr.w.cwnd, 4);
    let bw_before = d.bbr.max_bw();
    // In-flight drains to 4; the 200 ms hold starts at that ACK.
    for inflight in [30, 20, 10] {
        d.ack(1024, 2, RTT_US, inflight);
        assert_eq!((d.bbr.mode, d.bbr.w.cwnd), (Mode::ProbeRtt, 4));
    }
    d.ack(1024, 1, RTT_US, 4);
    let hold_start = d.conn.now;
    while d.bbr.mode == Mode::ProbeRtt {
        assert_eq!(d.bbr.w.cwnd, 4);
        assert_eq!(d.bbr.max_bw(), bw_before, "ProbeRTT's low-rate samples are app-limited");
        d.ack(1024, 1, RTT_US, 4);
    }
    // It ends on the first ACK after 200 ms (the round ended long before).
    let held = d.conn.now - hold_start;
    assert!(held > SimDuration::from_ms(200) && held <= SimDuration::from_us(201_024), "held {held}");
    assert_eq!(d.bbr.mode, Mode::ProbeBw);
    assert!(d.bbr.w.cwnd > 4, "cwnd restored towards {cwnd_before}");
    // The new min RTT (8192 µs) was taken during ProbeRTT; the next ProbeRTT is 10 s away.
    assert_eq!(d.bbr.min_rtt.min_rtt_us, RTT_US as u32);
    assert_eq!(d.bbr.min_rtt.stamp, d.conn.now);
}

#[test]
fn probe_rtt_lasts_at_least_one_round() {
    let mut d = Driver::to_probe_bw(5);
    until_probe_rtt(&mut d);
    d.ack(1024, 1, RTT_US, 4);
    let next_round = d.bbr.next_rtt_delivered;
    // 300 ms of ACKs for packets sent before the hold began: the round never ends.
    d.stale_prior = Some(next_round - 1);
    for _ in 0..300 {
        d.ack(1024, 1, RTT_US, 4);
    }
    assert_eq!(d.bbr.mode, Mode::ProbeRtt);
    d.stale_prior = Some(next_round);
    d.ack(1024, 1, RTT_US, 4);
    assert_eq!(d.bbr.mode, Mode::ProbeBw);
}

#[test]
fn bandwidth_estimate_is_the_max_of_the_last_ten_rounds() {
    let mut d = Driver::to_probe_bw(2);
    // One round delivering 64 packets: bw 64 * 2048 = 131072.
    d.round(64, 20);
    let peak_round = d.bbr.rtt_cnt;
    assert_eq!(d.bbr.bw(), 131_072);
    // Rounds of 16 packets (bw 32768): the peak holds through round peak + 10.
    while d.bbr.rtt_cnt < peak_round + 10 {
        d.round(16, 20);
        assert_eq!(d.bbr.bw(), 131_072, "round {}", d.bbr.rtt_cnt);
    }
    d.round(16, 20);
    assert_eq!(d.bbr.bw(), 32_768);
}

#[test]
fn recovery_conserves_packets_for_a_round_then_restores_cwnd() {
    let mut d = Driver::to_probe_bw(4);
    for _ in 0..40 {
        d.ack(1024, 2, RTT_US, 30);
    }
    let cwnd = d.bbr.w.cwnd;
    // Entering recovery: ssthresh saves cwnd and returns the unchanged ssthresh (Drain's 62).
    assert_eq!(d.bbr.ssthresh(&d.conn), 62);
    assert_eq!(d.bbr.prior_cwnd, cwnd);
    d.bbr.set_state(&d.conn, CaState::Recovery);
    d.conn.ca_state = CaState::Recovery;
    // First ACK in recovery: cwnd = in-flight + acked = 20 + 2 (tcp_bbr.c packet conservation).
    d.losses = 3;
    d.ack(1024, 2, RTT_US, 20);
    assert_eq!(d.bbr.w.cwnd, 22);
    d.losses = 0;
    // Still the first round: cwnd = max(cwnd, in-flight + acked).
    d.ack(1024, 2, RTT_US, 12);
    assert_eq!(d.bbr.w.cwnd, 22);
    // Recovery ends: cwnd is the saved one, capped by the target after this ACK's +2.
    d.conn.ca_state = CaState::Open;
    d.ack(1024, 2, RTT_US, 20);
    let target = d.bbr.quantization_budget(d.bbr.bdp(d.bbr.bw(), 512) + d.bbr.ack_aggregation_cwnd());
    assert_eq!(d.bbr.w.cwnd, (cwnd + 2).min(target));
}

#[test]
fn rto_ends_the_round_and_cwnd_comes_back_after_loss_state() {
    let mut d = Driver::to_probe_bw(4);
    let cwnd = d.bbr.w.cwnd;
    d.bbr.ssthresh(&d.conn);
    d.bbr.set_state(&d.conn, CaState::Loss);
    assert!(d.bbr.round_start);
    assert_eq!(d.bbr.full_bw.bw, 0);
    // The sender's tcp_enter_loss: cwnd = 1, state Loss.
    d.bbr.window_mut().cwnd = 1;
    d.conn.ca_state = CaState::Loss;
    d.ack(1024, 1, RTT_US, 0);
    assert_eq!(d.bbr.w.cwnd, 4, "slow start from 1, floored at bbr_cwnd_min_target");
    d.conn.ca_state = CaState::Open;
    d.ack(1024, 1, RTT_US, 0);
    assert!(d.bbr.w.cwnd >= cwnd.min(d.bbr.inflight(d.bbr.bw(), 512)), "prior cwnd restored");
}

#[test]
fn undo_resets_full_pipe_detection_and_keeps_cwnd() {
    let mut d = Driver::to_probe_bw(4);
    let cwnd = d.bbr.w.cwnd;
    assert_eq!(d.bbr.undo_cwnd(&d.conn, 3), cwnd);
    assert_eq!((d.bbr.full_bw.bw, d.bbr.full_bw.cnt), (0, 0));
}

#[test]
fn two_consistent_lossy_intervals_mean_a_policer() {
    let mut d = Driver::to_probe_bw(6);
    // Every ACK loses one packet and delivers 2: loss ratio 1/2 > 50/256.
    d.losses = 1;
    let mut acks = 0;
    while !d.bbr.lt.use_bw {
        d.ack(1024, 2, RTT_US, 30);
        acks += 1;
        assert!(acks < 200, "policer not detected");
    }
    // Two intervals of >= 4 rounds at 2 packets per 1024 µs = 32768 (ms-granular interval stamps).
    let expected = 32_768;
    assert!(d.bbr.lt.bw.abs_diff(expected) * 8 <= expected, "lt_bw {}", d.bbr.lt.bw);
    assert_eq!(d.bbr.bw(), d.bbr.lt.bw);
    // Policed: ProbeBW paces at gain 1 for 48 rounds, then resumes gain cycling.
    d.losses = 0;
    let start = d.bbr.rtt_cnt;
    while d.bbr.lt.use_bw {
        d.ack(1024, 2, RTT_US, 30);
        assert_eq!(d.bbr.pacing_gain, BBR_UNIT);
        assert!(d.bbr.rtt_cnt <= start + 48);
    }
    assert_eq!(d.bbr.rtt_cnt, start + 48);
}
