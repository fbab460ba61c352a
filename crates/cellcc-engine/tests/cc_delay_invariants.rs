//! Property test for the delay and loss-delay algorithms: random sequences of
//! ACKs (random RTT samples), fast-recovery episodes, RTOs and idle restarts,
//! driven the way the sender drives the trait; after every step the window
//! must stay within [1, clamp] and no arithmetic may overflow (debug build).

use cellcc_engine::cc::{AckSample, CaState, CcConfig, CongestionControl, ConnView, CwndEvent, SkPacingRate, Window};
use cellcc_engine::sim::{RngStream, SimDuration, SimTime};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

const MSS: u32 = 1448;
const ALGORITHMS: &[&str] = &["vegas", "veno", "westwood", "westwoodplus", "illinois", "yeah", "compound"];

#[derive(Clone, Debug)]
enum Op {
    /// An ACK of `segs` segments after `gap_ms`, with an RTT sample of `rtt_ms` (none if 0).
    Ack { segs: u32, gap_ms: u64, rtt_ms: u64 },
    /// Three dupACKs: recovery, then cwnd falls to ssthresh and recovery completes.
    FastRecovery,
    /// Retransmission timeout.
    Rto,
    /// The application went idle and restarts.
    IdleRestart,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (1u32..=4, 0u64..=30, 0u64..=800).prop_map(|(segs, gap_ms, rtt_ms)| Op::Ack { segs, gap_ms, rtt_ms }),
        1 => Just(Op::FastRecovery),
        1 => Just(Op::Rto),
        1 => Just(Op::IdleRestart),
    ]
}

/// The sender's side of the conversation, reduced to what the hooks read.
struct Driver {
    cc: Box<dyn CongestionControl>,
    now: SimTime,
    snd_una: u64,
    state: CaState,
}

impl Driver {
    fn view(&self) -> ConnView {
        let cwnd = self.cc.window().cwnd;
        ConnView {
            now: self.now,
            mss_bytes: MSS,
            snd_una: self.snd_una,
            snd_nxt: self.snd_una + cwnd as u64 * MSS as u64,
            packets_in_flight: cwnd,
            srtt: Some(SimDuration::from_ms(100)),
            min_rtt: Some(SimDuration::from_ms(10)),
            delivered: self.snd_una / MSS as u64,
            lost: 0,
            is_cwnd_limited: true,
            app_limited: false,
            ca_state: self.state,
            // Rate unknown (no hystart_ack_delay cushion), unpaced: the invariants do not depend on it.
            pacing_rate: SkPacingRate::Known(0),
            paced: false,
        }
    }

    fn set_state(&mut self, s: CaState) {
        let v = self.view();
        self.cc.set_state(&v, s);
        self.state = s;
    }

    fn step(&mut self, op: &Op) {
        match *op {
            Op::Ack { segs, gap_ms, rtt_ms } => {
                self.now += SimDuration::from_ms(gap_ms);
                self.snd_una += segs as u64 * MSS as u64;
                let ack = AckSample {
                    acked_segs: segs,
                    acked_bytes: segs as u64 * MSS as u64,
                    cum_acked_bytes: segs as u64 * MSS as u64,
                    rtt: (rtt_ms > 0).then(|| SimDuration::from_ms(rtt_ms)),
                    ..AckSample::default()
                };
                let v = self.view();
                self.cc.pkts_acked(&v, &ack);
                if self.state == CaState::Open {
                    self.cc.cong_avoid(&v, &ack);
                }
            }
            Op::FastRecovery => {
                self.set_state(CaState::Recovery);
                let v = self.view();
                let ssthresh = self.cc.ssthresh(&v);
                let w = self.cc.window_mut();
                w.ssthresh = ssthresh;
                w.set_cwnd(ssthresh);
                self.set_state(CaState::Open);
                let v = self.view();
                self.cc.cwnd_event(&v, CwndEvent::CompleteCwr);
            }
            Op::Rto => {
                self.set_state(CaState::Loss);
                let v = self.view();
                let ssthresh = self.cc.ssthresh(&v);
                let w = self.cc.window_mut();
                w.ssthresh = ssthresh;
                w.set_cwnd(1);
                self.cc.cwnd_event(&v, CwndEvent::Loss);
                self.set_state(CaState::Open);
            }
            Op::IdleRestart => {
                let v = self.view();
                self.cc.cwnd_event(&v, CwndEvent::TxStart);
            }
        }
    }
}

proptest! {
    // A fixed seed keeps CI deterministic; change it locally to explore further.
    #![proptest_config(ProptestConfig { cases: 256, rng_seed: RngSeed::Fixed(0xCE11CC), ..ProptestConfig::default() })]

    #[test]
    fn window_stays_within_bounds_under_any_event_sequence(
        which in 0..ALGORITHMS.len(),
        ops in prop::collection::vec(op(), 1..1000),
    ) {
        let cfg: CcConfig = serde_json::from_value(serde_json::json!({ "name": ALGORITHMS[which] })).unwrap();
        let mut d = Driver { cc: cfg.build(Window::new(10), RngStream::new(0, "test:cc")), now: SimTime::ZERO, snd_una: 0, state: CaState::Open };
        for op in &ops {
            d.step(op);
            let w = *d.cc.window();
            prop_assert!(w.cwnd >= 1 && w.cwnd <= w.cwnd_clamp, "{}: cwnd {} after {:?}", ALGORITHMS[which], w.cwnd, op);
            // Linux tcp_vegas.c leaves slow start with ssthresh = cwnd - 1, which is 1 at cwnd 2;
            // every other path keeps ssthresh >= 2 (RFC 5681 eq. 4).
            let floor = if ALGORITHMS[which] == "vegas" { 1 } else { 2 };
            prop_assert!(w.ssthresh >= floor, "{}: ssthresh {} after {:?}", ALGORITHMS[which], w.ssthresh, op);
        }
    }
}
