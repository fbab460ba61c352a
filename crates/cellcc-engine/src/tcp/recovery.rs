//! Proportional Rate Reduction (RFC 6937), as Linux `tcp_cwnd_reduction`
//! (net/ipv4/tcp_input.c): during fast recovery cwnd falls smoothly from
//! its prior value to ssthresh, sending in proportion to what is delivered.

/// PRR state for one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prr {
    /// cwnd when recovery began (`tp->prior_cwnd`, RFC 6937 RecoverFS).
    pub prior_cwnd: u32,
    /// Segments delivered since recovery began (`prr_delivered`).
    pub delivered: u32,
    /// Segments sent since recovery began (`prr_out`).
    pub out: u32,
}

impl Prr {
    pub fn new(prior_cwnd: u32) -> Self {
        Prr { prior_cwnd: prior_cwnd.max(1), delivered: 0, out: 0 }
    }

    /// New cwnd after an ACK that delivered `newly_acked` segments
    /// (`None` when the ACK delivered nothing: cwnd stays).
    pub fn on_ack(
        &mut self,
        ssthresh: u32,
        in_flight: u32,
        newly_acked: u32,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<u32> {
        if newly_acked == 0 {
            return None;
        }
        self.delivered += newly_acked;
        let sndcnt = if in_flight > ssthresh {
            // RFC 6937 §3: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out.
            let target = (ssthresh as u64 * self.delivered as u64).div_ceil(self.prior_cwnd as u64) as i64;
            target - self.out as i64
        } else {
            // Slow-start reduction bound (PRR-SSRB), with Linux's +1 on an advancing ACK.
            let mut n = (self.delivered as i64 - self.out as i64).max(newly_acked as i64);
            if una_advanced && !newly_lost {
                n += 1;
            }
            n.min((ssthresh - in_flight) as i64)
        };
        // Linux: force the fast retransmit on entering recovery.
        let sndcnt = sndcnt.max(if self.out == 0 { 1 } else { 0 });
        Some(in_flight + sndcnt.max(0) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn above_ssthresh_sends_half_as_much_as_delivered_for_beta_one_half() {
        // prior_cwnd 20, ssthresh 10: each delivered segment releases 10/20 of a send.
        let mut p = Prr::new(20);
        assert_eq!(p.on_ack(10, 19, 1, false, false), Some(19 + 1)); // ceil(1*10/20)=1 - 0 = 1
        p.out += 1;
        assert_eq!(p.on_ack(10, 19, 1, false, false), Some(19)); // ceil(2*10/20)=1 - 1 = 0
    }

    #[test]
    fn at_or_below_ssthresh_grows_back_towards_it() {
        let mut p = Prr { prior_cwnd: 20, delivered: 10, out: 5 };
        // delivered 12, out 5 -> 7, capped by ssthresh - pipe = 10 - 6 = 4.
        assert_eq!(p.on_ack(10, 6, 2, true, false), Some(10));
    }
}
