//! DCTCP: Linux net/ipv4/tcp_dctcp.c; Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010; RFC 8257.
//!
//! Reno growth, but the reaction to ECN marks is proportional to how many
//! packets were marked: once per window of data, alpha <- (1 - g) alpha + g F
//! with F the fraction of CE-echoed packets (RFC 8257 §3.3), and a congestion
//! reduction sets ssthresh = cwnd (1 - alpha/2) (§3.4). Loss halves cwnd as Reno.
//! Fixed point as Linux: alpha in 1/1024 (`DCTCP_MAX_ALPHA`), g = 1/2^shift_g.
//!
//! What differs from Linux, and where the rest lives:
//! - It needs `tcp.ecn = true` and a queue that marks (`ecn_threshold_packets`,
//!   the RFC 8257 §3.1 step threshold); without marks it behaves as Reno.
//! - The receiver side (ECE on exactly the CE-marked packets, an immediate ACK
//!   when the CE state flips, Linux `dctcp_ece_ack_update`) is `tcp/receiver.rs`'s
//!   `EcnEcho::Accurate`; the `EcnIsCe`/`EcnNoCe` events are receiver events and
//!   are ignored here.
//! - `tp->delivered_ce` is not in the connection view: DCTCP counts the
//!   segments delivered by ACKs with ECE itself (Linux's `tcp_count_delivered`
//!   with classic ECN does the same).
//! - The sender must enter CWR on ECE and call `ssthresh` once per window, as
//!   Linux's `tcp_enter_cwr`; loss recovery calls `set_state(Recovery)` after
//!   `ssthresh`, and DCTCP then lowers `window().ssthresh` to cwnd/2 as Linux.
//! - PLB (protective load balancing) is not modelled.

use super::common::reno_cong_avoid;
use super::ParamError;
use super::{AckSample, CaState, CongestionControl, ConnView, CwndEvent, Window};
use serde::{Deserialize, Serialize};

/// Linux `DCTCP_MAX_ALPHA`: alpha = 1.0.
const MAX_ALPHA: u32 = 1024;
/// Linux `param_set_uint_minmax(val, kp, 0, 10)`: the largest shift g.
const MAX_SHIFT_G: u32 = 10;
/// Linux `dctcp_ssthresh`: cwnd * alpha >> 11 is cwnd * alpha / 2 with alpha in 1/1024.
const HALF_ALPHA_SHIFT: u32 = 11;
/// Linux: ssthresh is at least 2 segments.
const MIN_SSTHRESH: u32 = 2;

/// DCTCP parameters: Linux module parameters of tcp_dctcp.c.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// g = 1/2^shift_g, the EWMA weight of each window's marked fraction; 0..=10. Default 4, g = 1/16 (`dctcp_shift_g`).
    pub shift_g: u32,
    /// Initial alpha in 1/1024 (1024 = 1.0), capped at 1024. Default 1024 (`dctcp_alpha_on_init`).
    pub alpha_on_init: u32,
}

impl Config {
    /// Linux `param_set_uint_minmax(val, kp, 0, 10)` for `dctcp_shift_g`.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check(self.shift_g <= MAX_SHIFT_G, "shift_g", self.shift_g, "0..=10")
    }
}

impl Default for Config {
    fn default() -> Self {
        Config { shift_g: 4, alpha_on_init: MAX_ALPHA }
    }
}

pub const DOC: super::CcDoc = super::CcDoc {
    name: "dctcp",
    family: super::Family::Ecn,
    source: "Linux net/ipv4/tcp_dctcp.c; RFC 8257; Alizadeh et al., SIGCOMM 2010",
    summary: "Reno growth; cuts cwnd by alpha/2 where alpha is the EWMA (g=1/16) of the CE-marked fraction. Needs ECN marking.",
    description: "Reno growth with a reaction proportional to the extent of congestion: once per window of data it \
        updates alpha <- (1 - g) alpha + g F (g = 1/16), F the fraction of ACKed data that echoed a CE mark, and \
        a congestion event sets ssthresh = cwnd (1 - alpha/2). Loss halves the window as Reno. It needs ECN \
        (tcp.ecn = true) and a queue that CE-marks above a step threshold (queue.ecn_threshold_packets, \
        RFC 8257 3.1); without marking, as on a plain drop-tail queue, it behaves as Reno.",
    params: &[
        ("shift_g", "EWMA weight g = 1/2^shift_g, 0..=10; default 4 (dctcp_shift_g)"),
        ("alpha_on_init", "initial alpha, 1/1024 units; default 1024 (dctcp_alpha_on_init)"),
    ],
};

pub struct Dctcp {
    cfg: Config,
    w: Window,
    started: bool,
    /// Fraction of marked packets, EWMA, in 1/1024 (`dctcp_alpha`).
    alpha: u32,
    /// Segments delivered by ECE-carrying ACKs (`tp->delivered_ce`).
    delivered_ce: u64,
    /// `tp->delivered` and `delivered_ce` at the start of the observation window.
    old_delivered: u64,
    old_delivered_ce: u64,
    /// The window ends once `snd_una` reaches this (`next_seq`).
    next_seq: u64,
    /// cwnd before the last reduction, for undo (`loss_cwnd`).
    loss_cwnd: u32,
}

impl Dctcp {
    pub fn new(cfg: &Config, w: Window) -> Self {
        Dctcp {
            cfg: cfg.clone(),
            w,
            started: false,
            alpha: cfg.alpha_on_init.min(MAX_ALPHA),
            delivered_ce: 0,
            old_delivered: 0,
            old_delivered_ce: 0,
            next_seq: 0,
            loss_cwnd: 0,
        }
    }

    /// Linux `dctcp_reset`: a new observation window, one flight of data long.
    fn reset(&mut self, conn: &ConnView) {
        self.next_seq = conn.snd_nxt;
        self.old_delivered = conn.delivered;
        self.old_delivered_ce = self.delivered_ce;
    }

    /// Linux `dctcp_init`, on the first hook that sees the connection.
    fn start(&mut self, conn: &ConnView) {
        if !self.started {
            self.started = true;
            self.reset(conn);
        }
    }

    /// Linux `dctcp_update_alpha`: once per window, alpha = (1 - g) alpha + g F (RFC 8257 §3.3).
    fn update_alpha(&mut self, conn: &ConnView) {
        if conn.snd_una < self.next_seq {
            return;
        }
        let delivered = conn.delivered - self.old_delivered;
        let delivered_ce = self.delivered_ce - self.old_delivered_ce;
        let mut alpha = self.alpha;
        // alpha -= alpha * g, down to 0 when alpha * g rounds to nothing (`min_not_zero`).
        let decay = alpha >> self.cfg.shift_g;
        alpha -= if decay == 0 { alpha } else { decay };
        if delivered_ce > 0 {
            // g * F in 1/1024: (delivered_ce << (10 - shift_g)) / delivered.
            let marked = (delivered_ce << (MAX_SHIFT_G - self.cfg.shift_g)) / delivered.max(1);
            alpha = (alpha as u64 + marked).min(MAX_ALPHA as u64) as u32;
        }
        self.alpha = alpha;
        self.reset(conn);
    }

    /// Linux `dctcp_react_to_loss`: a loss halves, as Reno.
    fn react_to_loss(&mut self) {
        self.loss_cwnd = self.w.cwnd;
        self.w.ssthresh = (self.w.cwnd >> 1).max(MIN_SSTHRESH);
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        DOC.name
    }
    fn window(&self) -> &Window {
        &self.w
    }
    fn window_mut(&mut self) -> &mut Window {
        &mut self.w
    }

    /// Linux `dctcp_ssthresh` (RFC 8257 §3.4): cwnd (1 - alpha/2), at least 2, for an ECN
    /// reduction. For a loss Linux ends with cwnd/2: `dctcp_state` overrides ssthresh right after
    /// this call. A sender that switches to Recovery before asking gets that value here.
    fn ssthresh(&mut self, conn: &ConnView) -> u32 {
        if conn.ca_state == CaState::Recovery {
            self.react_to_loss();
            return self.w.ssthresh;
        }
        self.loss_cwnd = self.w.cwnd;
        let cut = ((self.w.cwnd as u64 * self.alpha as u64) >> HALF_ALPHA_SHIFT) as u32;
        (self.w.cwnd - cut).max(MIN_SSTHRESH)
    }

    fn cong_avoid(&mut self, conn: &ConnView, ack: &AckSample) {
        reno_cong_avoid(&mut self.w, conn, ack.acked_segs);
    }

    /// Linux `in_ack_event` = `dctcp_update_alpha`, after the ACK's segments are counted.
    fn pkts_acked(&mut self, conn: &ConnView, ack: &AckSample) {
        self.start(conn);
        if ack.ece {
            self.delivered_ce += ack.acked_segs as u64;
        }
        self.update_alpha(conn);
    }

    /// Linux `dctcp_state`: entering fast recovery is a loss, handled as Reno.
    fn set_state(&mut self, conn: &ConnView, new_state: CaState) {
        self.start(conn);
        if new_state == CaState::Recovery && conn.ca_state != CaState::Recovery {
            self.react_to_loss();
        }
    }

    /// Linux `dctcp_cwnd_event`: an RTO is a loss (once, here rather than in set_state).
    fn cwnd_event(&mut self, conn: &ConnView, event: CwndEvent) {
        self.start(conn);
        if event == CwndEvent::Loss {
            self.react_to_loss();
        }
    }

    /// Linux `dctcp_cwnd_undo`.
    fn undo_cwnd(&mut self, _conn: &ConnView, _prior_cwnd: u32) -> u32 {
        self.w.cwnd.max(self.loss_cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::super::common::testing::{ack, conn, MSS};
    use super::*;

    /// Script one window: `segs` delivered, `marked` of them by ECE ACKs; the window then ends.
    fn window(d: &mut Dctcp, c: &mut ConnView, segs: u32, marked: u32) {
        for i in 0..segs {
            c.delivered += 1;
            c.snd_una += MSS as u64;
            c.snd_nxt = c.snd_una + segs as u64 * MSS as u64;
            let a = AckSample { ece: i < marked, ..ack(1, 1) };
            d.pkts_acked(c, &a);
        }
    }

    fn fresh() -> (Dctcp, ConnView) {
        let mut d = Dctcp::new(&Config::default(), Window::new(100));
        let mut c = conn(0, 1);
        c.snd_nxt = 10 * MSS as u64;
        d.start(&c);
        (d, c)
    }

    #[test]
    fn alpha_starts_at_one_so_the_first_reduction_halves() {
        let (mut d, c) = fresh();
        // 100 - (100 x 1024 >> 11) = 100 - 50.
        assert_eq!(d.ssthresh(&c), 50);
    }

    #[test]
    fn alpha_decays_by_g_per_unmarked_window() {
        let (mut d, mut c) = fresh();
        window(&mut d, &mut c, 10, 0);
        // 1024 - 1024/16 = 960; then 960 - 60 = 900.
        assert_eq!(d.alpha, 960);
        window(&mut d, &mut c, 10, 0);
        assert_eq!(d.alpha, 900);
    }

    #[test]
    fn marked_fraction_enters_with_weight_g() {
        let (mut d, mut c) = fresh();
        // F = 5/10: 1024 - 64 + (5 << 6)/10 = 960 + 32 = 992.
        window(&mut d, &mut c, 10, 5);
        assert_eq!(d.alpha, 992);
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction_and_sets_the_cut() {
        let (mut d, mut c) = fresh();
        for _ in 0..300 {
            window(&mut d, &mut c, 16, 4);
        }
        // F = 1/4: fixed point alpha - floor(alpha/16) + 16 = alpha -> alpha in [256, 271].
        assert!((256..=271).contains(&d.alpha), "alpha {}", d.alpha);
        // ssthresh = 100 - 100 x alpha / 2048 = 100 - 12 or 13.
        assert!((87..=88).contains(&d.ssthresh(&c)));
    }

    #[test]
    fn loss_halves_whichever_order_the_sender_uses() {
        let (mut d, mut c) = fresh();
        d.alpha = 256;
        c.ca_state = CaState::Recovery;
        assert_eq!(d.ssthresh(&c), 50, "Recovery already entered: cwnd/2, not the ECN cut");
    }

    #[test]
    fn loss_halves_and_undo_restores() {
        let (mut d, c) = fresh();
        d.set_state(&c, CaState::Recovery);
        assert_eq!(d.window().ssthresh, 50);
        d.window_mut().cwnd = 50;
        assert_eq!(d.undo_cwnd(&c, 0), 100);
    }

    #[test]
    fn shift_g_above_ten_is_rejected() {
        let c = Config { shift_g: 11, ..Config::default() };
        assert_eq!(c.validate().unwrap_err().allowed, "0..=10");
        assert!(Config::default().validate().is_ok());
    }
}
