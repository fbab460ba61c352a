//! CUBIC conformance: windows worked by hand from RFC 9438 with Linux's constants.

use super::super::common::testing::{ack, conn, MSS};
use super::super::INFINITE_SSTHRESH;
use super::*;

/// RFC 9438 §5.1: C = 0.4 segments/s^3.
const C_RFC: f64 = 0.4;
/// Linux beta = 717/1024.
const BETA_LINUX: f64 = 717.0 / 1024.0;

/// Scripted sender: every ACK delivers one segment, ACKs arrive `rtt / cwnd` apart
/// (a full window per RTT), and each runs `pkts_acked` then `cong_avoid` as the stack does.
struct Driver {
    c: Cubic,
    now: SimTime,
    rtt: SimDuration,
    acked_segs: u64,
}

impl Driver {
    fn new(cfg: Config, w: Window, rtt_ms: u64) -> Self {
        Driver { c: Cubic::new(&cfg, w), now: SimTime::ZERO, rtt: SimDuration::from_ms(rtt_ms), acked_segs: 0 }
    }

    fn view(&self) -> ConnView {
        let mut v = conn(0, self.rtt.as_ns() / 1_000_000);
        v.now = self.now;
        v.snd_una = self.acked_segs * MSS as u64;
        v.snd_nxt = v.snd_una + self.c.window().cwnd as u64 * MSS as u64;
        v
    }

    fn ack_with_rtt(&mut self, rtt: SimDuration) {
        self.acked_segs += 1;
        let v = self.view();
        let a = AckSample { rtt: Some(rtt), ..ack(1, 0) };
        self.c.pkts_acked(&v, &a);
        self.c.cong_avoid(&v, &a);
    }

    /// ACK at the path's RTT, then wait for the next ACK.
    fn step(&mut self) {
        self.ack_with_rtt(self.rtt);
        self.now += SimDuration::from_ns(self.rtt.as_ns() / self.c.window().cwnd as u64);
    }

    fn run_until(&mut self, t: SimTime) {
        while self.now < t {
            self.step();
        }
    }

    /// The sender's loss response: ssthresh from the CC, cwnd down to it by the
    /// end of recovery (PRR), one RTT later, back in Open.
    fn loss_and_recovery(&mut self) -> u32 {
        let v = self.view();
        self.c.set_state(&v, CaState::Recovery);
        let ss = self.c.ssthresh(&v);
        self.c.window_mut().ssthresh = ss;
        self.now += self.rtt;
        self.c.window_mut().set_cwnd(ss);
        self.c.set_state(&self.view(), CaState::Open);
        ss
    }
}

/// In congestion avoidance at `cwnd` with delay_min = the RTT, no HyStart.
fn steady(cwnd: u32, rtt_ms: u64) -> Driver {
    let cfg = Config { hystart: false, ..Config::default() };
    let mut d = Driver::new(cfg, Window { ssthresh: cwnd, ..Window::new(cwnd) }, rtt_ms);
    d.now = SimTime(SimDuration::from_secs(1).as_ns());
    d.step();
    d
}

/// RFC 9438 eq. 2 with Linux's beta: K = cbrt(W_max (1 - β) / C).
fn k_rfc(w_max: f64) -> f64 {
    (w_max * (1.0 - BETA_LINUX) / C_RFC).cbrt()
}

/// RFC 9438 eq. 1.
fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    C_RFC * (t - k).powi(3) + w_max
}

#[test]
fn loss_keeps_717_of_1024_of_the_window() {
    // 1000 x 717 / 1024 = 700.2 -> 700; 100 -> 70.02 -> 70; 2 -> 1.4 -> floor of 2.
    for (cwnd, ss) in [(1000, 700), (100, 70), (2, 2)] {
        let mut c = Cubic::new(&Config::default(), Window::new(cwnd));
        assert_eq!(c.ssthresh(&conn(0, 100)), ss);
        assert_eq!(c.last_max_cwnd, cwnd);
    }
}

#[test]
fn fast_convergence_remembers_less_than_the_window_when_losses_come_earlier() {
    // Loss at 100 -> W_max 100. Loss again at 90 < 100: W_max = 90 x (1024 + 717) / 2048
    // = 156690 / 2048 = 76 (76.5), RFC 9438 §4.7 W_max = cwnd (1 + β)/2; ssthresh 90 x 717/1024 = 63.
    let mut c = Cubic::new(&Config::default(), Window::new(100));
    c.ssthresh(&conn(0, 100));
    c.window_mut().set_cwnd(90);
    assert_eq!(c.ssthresh(&conn(0, 100)), 63);
    assert_eq!(c.last_max_cwnd, 76);
    // Without fast convergence W_max is the window itself.
    let mut c = Cubic::new(&Config { fast_convergence: false, ..Config::default() }, Window::new(100));
    c.ssthresh(&conn(0, 100));
    c.window_mut().set_cwnd(90);
    c.ssthresh(&conn(0, 100));
    assert_eq!(c.last_max_cwnd, 90);
}

#[test]
fn k_is_rfc_9438_eq_2_with_linux_beta_and_c() {
    // W_max 1000, cwnd after the loss 700: Linux K^3 = 2^40 / 410 x (1000 - 700)
    // = 2681735677 x 300 = 804520703100 -> K = floor(cbrt) = 9300 (1/1024 s) = 9.0820 s.
    // RFC 9438: K = cbrt(1000 x (1 - 717/1024) / 0.4) = cbrt(749.51) = 9.0836 s.
    // Tolerance 0.25% of K: C = 410/1024 vs 0.4 (0.03%), W_max - cwnd = 300 vs 299.8 (0.02%),
    // 1/1024 s resolution (0.01%), and Linux's approximate cubic_root (~0.2%).
    let mut d = steady(1000, 100);
    d.loss_and_recovery();
    d.step();
    let k = d.c.epoch.expect("epoch started").k;
    assert_eq!(k, 9300);
    let k_s = k as f64 / 1024.0;
    assert!((k_s - k_rfc(1000.0)).abs() <= 0.0025 * k_rfc(1000.0), "K {k_s} vs RFC {}", k_rfc(1000.0));
}

#[test]
fn window_follows_the_cubic_curve_after_a_loss() {
    // W_max 1000, RTT 100 ms, K = 9.084 s; cwnd starts at 700 when the epoch starts
    // (t = 0). W_cubic(t) = 0.4 (t - 9.084)^3 + 1000:
    //   t = 1 s: 0.4 x (-8.084)^3 + 1000 = 788.7     t = 8 s: 0.4 x (-1.084)^3 + 1000 = 999.5
    //   t = 2 s: 0.4 x (-7.084)^3 + 1000 = 857.8     t = 5 s: 0.4 x (-4.084)^3 + 1000 = 972.8
    //   t = K:   1000                                t = 11 s: 0.4 x 1.916^3 + 1000 = 1002.8
    //   t = 13 s: 0.4 x 3.916^3 + 1000 = 1024.0
    // Each ACK aims at W_cubic(t + RTT) and cwnd needs about an RTT of ACKs to get
    // there, so cwnd(t) ~ W_cubic(t). Tolerance: the integer steps of
    // cnt = cwnd / (target - cwnd) (rounded down, so cwnd may run one segment ahead) and
    // the integer cwnd itself: 2 segments. The W_est (Reno-friendly) window,
    // 700 + 0.53 x t / 0.1 s <= 770, stays below the curve throughout.
    let mut d = steady(1000, 100);
    d.loss_and_recovery();
    let epoch_start = d.now;
    let k = k_rfc(1000.0);
    for t in [1.0, 2.0, 5.0, 8.0, k, 11.0, 13.0] {
        d.run_until(epoch_start + SimDuration::from_secs_f64(t));
        let want = w_cubic(t, k, 1000.0);
        let got = d.c.window().cwnd as f64;
        assert!((got - want).abs() <= 2.0, "t = {t:.3} s: cwnd {got} vs W_cubic {want:.1}");
    }
}

#[test]
fn reno_friendly_region_holds_cwnd_at_w_est_on_short_rtts() {
    // W_max 100, RTT 10 ms: K = cbrt(100 x 0.2998 / 0.4) = 4.216 s, so at t = 2 s
    // W_cubic = 0.4 (2 - 4.216)^3 + 100 = 95.6, while RFC 9438 eq. 4 gives
    // W_est = 70 + α (t / RTT) = 70 + 0.529 x 200 = 175.9 (Linux's α = 8/15: 176.7).
    // cwnd follows W_est. Tolerance 2 segments: α rounding (0.8) plus integer steps.
    let mut d = steady(100, 10);
    d.loss_and_recovery();
    let start = d.now;
    d.run_until(start + SimDuration::from_secs(2));
    let w_est = 70.0 + 3.0 * (1.0 - BETA_LINUX) / (1.0 + BETA_LINUX) * 200.0;
    let got = d.c.window().cwnd as f64;
    assert!((got - w_est).abs() <= 2.0, "cwnd {got} vs W_est {w_est:.1}");
    // Without the Reno-friendly region it is the cubic curve (95.6, +/- 2).
    let mut d = steady(100, 10);
    d.c.cfg.tcp_friendliness = false;
    d.loss_and_recovery();
    let start = d.now;
    d.run_until(start + SimDuration::from_secs(2));
    let cubic = w_cubic(2.0, k_rfc(100.0), 100.0);
    let got = d.c.window().cwnd as f64;
    assert!((got - cubic).abs() <= 2.0, "cwnd {got} vs W_cubic {cubic:.1}");
}

#[test]
fn growth_is_at_most_one_segment_per_two_acked() {
    // Far below a large W_max the target is far above cwnd: cnt = cwnd / (target - cwnd) = 0,
    // raised to 2, so one RTT (100 ACKs) adds 50 (cwnd x 1.5, RFC 9438 §4.2's target cap).
    // (A loss at 100000 leaves W_max there; here cwnd sits at 100 right after it.)
    let mut d = steady(120, 100);
    d.c.last_max_cwnd = 100_000;
    d.c.epoch = None;
    *d.c.window_mut() = Window { ssthresh: 100, ..Window::new(100) };
    for _ in 0..100 {
        d.ack_with_rtt(d.rtt);
    }
    assert_eq!(d.c.cnt, 2);
    assert_eq!(d.c.window().cwnd, 100 + 50);
}

#[test]
fn without_a_loss_yet_cwnd_grows_at_least_five_percent_per_rtt() {
    // last_max_cwnd = 0: origin = cwnd, K = 0, target barely above cwnd, yet cnt <= 20.
    let d = steady(200, 100);
    assert_eq!(d.c.last_max_cwnd, 0);
    assert_eq!(d.c.cnt, 20);
}

#[test]
fn hystart_ends_slow_start_on_a_delay_increase_and_sets_ssthresh() {
    // delay_min 100 ms from samples below low_window; then at cwnd 16 samples of 113 ms
    // (> 100 + clamp(100/8, 4, 16) = 112.5 ms), ACKs 5 ms apart (no ACK train).
    // Rounds are tracked below low_window (tcp_cubic.c since 2025): the first ACK opened
    // round 1, ending at segment 1 + cwnd 10 = 11. ACK k (k = 1..) after the six is segment
    // 6 + k and sees cwnd 15 + k before its cong_avoid. k = 1..5 are round 1's only samples
    // (5 < 8); k = 6 (segment 12) opens round 2, whose 9th sample, k = 14, decides:
    // ssthresh = cwnd = 29 and slow start is over.
    let mut d = Driver::new(Config::default(), Window::new(10), 100);
    for _ in 0..6 {
        d.ack_with_rtt(SimDuration::from_ms(100));
        d.now += SimDuration::from_ms(5);
    }
    assert_eq!(d.c.window().cwnd, 16);
    for k in 1..=14 {
        d.ack_with_rtt(SimDuration::from_ms(113));
        d.now += SimDuration::from_ms(5);
        if k < 14 {
            assert!(d.c.window().in_slow_start(), "ACK {k}");
        }
    }
    assert_eq!(d.c.window().ssthresh, 29);
    assert_eq!(d.c.window().cwnd, 29);
    assert_eq!(d.c.mode(), "CongAvoid(HyStart delay)");
}

#[test]
fn hystart_leaves_slow_start_alone_while_delay_stays_within_eta() {
    // 112 ms < 112.5 ms: no exit, slow start goes on.
    let mut d = Driver::new(Config::default(), Window::new(10), 100);
    for _ in 0..6 {
        d.ack_with_rtt(SimDuration::from_ms(100));
        d.now += SimDuration::from_ms(5);
    }
    for _ in 0..20 {
        d.ack_with_rtt(SimDuration::from_ms(112));
        d.now += SimDuration::from_ms(5);
    }
    assert_eq!(d.c.window().ssthresh, INFINITE_SSTHRESH);
    assert_eq!(d.c.window().cwnd, 36);
}

#[test]
fn hystart_ack_train_ends_slow_start_when_a_rounds_train_passes_half_delay_min() {
    // delay_min 100 ms from 6 ACKs 5 ms apart below low_window; then ACKs 1 ms apart, each
    // adding one segment (ACK n sees cwnd n + 9 from n = 7). A round lasts until snd_una
    // passes the snd_nxt of its start; rounds are tracked below low_window too (2025 order):
    //   ACK 1 (t 0, cwnd 10) starts round 1, to segment 11; ACK 7 comes 30 ms after the
    //   round's last train ACK (> ack_delta 2 ms), so round 1 has no train;
    //   ACK 12 (t 35 ms, cwnd 21) starts round 2, to segment 33 (a 21 ms train);
    //   ACK 34 (cwnd 43) starts round 3, to segment 77 (43 ms);
    //   ACK 78 (t 101 ms, cwnd 87) starts round 4: its train passes delay_min / 2 = 50 ms
    //   at ACK 78 + 51 = 129, which sees cwnd 138: ssthresh = 138.
    let mut d = Driver::new(Config::default(), Window::new(10), 100);
    for _ in 0..6 {
        d.ack_with_rtt(SimDuration::from_ms(100));
        d.now += SimDuration::from_ms(5);
    }
    while d.c.window().in_slow_start() && d.acked_segs < 500 {
        d.ack_with_rtt(SimDuration::from_ms(100));
        d.now += SimDuration::from_ms(1);
    }
    assert_eq!(d.acked_segs, 129);
    assert_eq!(d.c.window().ssthresh, 138);
    assert_eq!(d.c.mode(), "CongAvoid(HyStart ACK train)");
}

#[test]
fn rto_forgets_w_max_and_restarts_hystart() {
    // The sender on RTO: ssthresh from the CC, cwnd 1, CwndEvent::Loss, state Loss.
    let mut d = Driver::new(Config::default(), Window::new(10), 100);
    for _ in 0..6 {
        d.ack_with_rtt(SimDuration::from_ms(100));
    }
    // Round 1 (from the first ACK) holds five samples at cwnd >= 16; round 2's ninth
    // sample, the 14th ACK at 120 ms, ends slow start (as in the delay test above).
    for _ in 1..=14 {
        d.ack_with_rtt(SimDuration::from_ms(120));
    }
    assert!(d.c.hystart.as_ref().unwrap().exit().is_some());
    let v = d.view();
    let cwnd = d.c.window().cwnd;
    let ss = d.c.ssthresh(&v);
    assert_eq!(ss, cwnd * 717 / 1024);
    d.c.window_mut().ssthresh = ss;
    d.c.window_mut().set_cwnd(1);
    d.c.cwnd_event(&v, CwndEvent::Loss);
    d.c.set_state(&v, CaState::Loss);
    assert_eq!((d.c.last_max_cwnd, d.c.delay_min, d.c.epoch), (0, None, None));
    assert_eq!(d.c.hystart.as_ref().unwrap().exit(), None);
    // Slow start from 1 again.
    d.ack_with_rtt(SimDuration::from_ms(100));
    assert_eq!(d.c.window().cwnd, 2);
}

#[test]
fn rtt_samples_are_ignored_for_a_second_after_recovery() {
    let mut d = steady(100, 100);
    d.loss_and_recovery();
    d.step();
    d.ack_with_rtt(SimDuration::from_ms(50));
    assert_eq!(d.c.delay_min, Some(SimDuration::from_ms(100)));
    d.now += SimDuration::from_secs(1);
    d.ack_with_rtt(SimDuration::from_ms(50));
    assert_eq!(d.c.delay_min, Some(SimDuration::from_ms(50)));
}

#[test]
fn idle_time_is_not_growth_time() {
    // An epoch runs for 1 s of ACKs, then the sender idles 5 s and sends again (TxStart):
    // the epoch start moves by the idle time (last ACK to now), so the epoch has still
    // only 1 s behind it.
    let mut d = steady(100, 100);
    d.loss_and_recovery();
    d.step();
    let start = d.c.epoch.unwrap().start;
    d.run_until(start + SimDuration::from_secs(1));
    let last_ack = d.c.last_ack_at;
    let mut v = d.view();
    v.now = last_ack + SimDuration::from_secs(5);
    d.c.cwnd_event(&v, CwndEvent::TxStart);
    let moved = d.c.epoch.unwrap().start;
    assert_eq!(moved, start + SimDuration::from_secs(5));
    assert_eq!(v.now - moved, last_ack - start);
}

#[test]
fn cube_root_is_exact() {
    for a in [0u64, 1, 7, 8, 26, 27, 1_000_000, 804_520_703_100, u64::MAX] {
        let x = cube_root(a) as u128;
        assert!(x.pow(3) <= a as u128 && (x + 1).pow(3) > a as u128, "cbrt({a}) = {x}");
    }
}

#[test]
fn out_of_range_parameters_are_rejected() {
    assert_eq!(Config::default().validate(), Ok(()));
    assert_eq!(Config { beta: 0, ..Config::default() }.validate().unwrap_err().field, "beta");
    assert_eq!(Config { bic_scale: 0, ..Config::default() }.validate().unwrap_err().field, "bic_scale");
    assert_eq!(Config { hystart_detect: 4, ..Config::default() }.validate().unwrap_err().field, "hystart_detect");
}
