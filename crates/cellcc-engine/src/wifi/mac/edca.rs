//! EDCA (IEEE 802.11-2020 §10.23.2): one channel-access function per access category, each with
//! its AIFS, contention window and TXOP limit, counting down a random backoff in idle slots.
//!
//! ```text
//!  AIFS[AC] = aSIFSTime + AIFSN[AC] x aSlotTime                      (§10.3.2.3.6)
//!  backoff  = uniform integer in [0, CW]; one count per idle slot after AIFS; frozen while busy (§10.23.2.2)
//!  failure (no Ack / BlockAck / CTS): CW = min(2 (CW + 1) - 1, CWmax)  (§10.23.2.2)
//!  success: CW = CWmin, then a new backoff (post-backoff, §10.23.2.2)
//! ```
//! The countdown itself (which slots are idle) is the medium's business (`bss`); this file holds
//! the per-AC parameters and counters.

use crate::sim::RngStream;
use rand::Rng;

/// Access categories, lowest priority first (§10.2.3.2, Table 10-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Ac {
    Bk,
    #[default]
    Be,
    Vi,
    Vo,
}

impl Ac {
    pub const ALL: [Ac; 4] = [Ac::Bk, Ac::Be, Ac::Vi, Ac::Vo];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The TID (= user priority) its data carry: the first UP Table 10-1 maps to the AC
    /// (BK 1, BE 0, VI 5, VO 6 as ns-3's default mapping of a socket's priority).
    pub fn tid(self) -> u8 {
        match self {
            Ac::Bk => 1,
            Ac::Be => 0,
            Ac::Vi => 5,
            Ac::Vo => 6,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Ac::Bk => "bk",
            Ac::Be => "be",
            Ac::Vi => "vi",
            Ac::Vo => "vo",
        }
    }
}

/// One AC's EDCA parameters.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcParams {
    /// AIFSN, slots after SIFS, in [2, 15] (§9.4.2.28: 2 at least for a non-AP STA).
    pub aifsn: u8,
    /// CWmin and CWmax, each 2^n - 1 in [1, 32767], CWmin <= CWmax (§9.4.2.28 ECWmin/ECWmax).
    pub cw_min: u32,
    pub cw_max: u32,
    /// TXOP limit, us, in [0, 8160] (32 us units of §9.4.2.28 up to 255); 0 = one frame exchange per TXOP.
    pub txop_limit_us: u32,
}

/// aCWmin and aCWmax of the OFDM PHYs (Table 17-21; VHT Table 21-28).
pub const A_CW_MIN: u32 = 15;
pub const A_CW_MAX: u32 = 1023;

impl AcParams {
    /// The default EDCA Parameter Set (IEEE 802.11-2020 Table 9-155, "other PHYs" TXOP limits):
    /// BK 7 / aCWmin / aCWmax / 2.528 ms; BE 3 / aCWmin / aCWmax / 2.528 ms;
    /// VI 2 / (aCWmin+1)/2-1 / aCWmin / 4.096 ms; VO 2 / (aCWmin+1)/4-1 / (aCWmin+1)/2-1 / 2.080 ms.
    pub fn standard(ac: Ac) -> AcParams {
        let p = |aifsn, cw_min, cw_max, txop_limit_us| AcParams { aifsn, cw_min, cw_max, txop_limit_us };
        match ac {
            Ac::Bk => p(7, A_CW_MIN, A_CW_MAX, 2528),
            Ac::Be => p(3, A_CW_MIN, A_CW_MAX, 2528),
            Ac::Vi => p(2, A_CW_MIN.div_ceil(2) - 1, A_CW_MIN, 4096),
            Ac::Vo => p(2, A_CW_MIN.div_ceil(4) - 1, A_CW_MIN.div_ceil(2) - 1, 2080),
        }
    }

    /// ns-3 3.44's `WifiMac::ConfigureDcf`: Table 9-155 except TXOP limit 0 for BK and BE.
    pub fn ns3(ac: Ac) -> AcParams {
        match ac {
            Ac::Bk | Ac::Be => AcParams { txop_limit_us: 0, ..AcParams::standard(ac) },
            _ => AcParams::standard(ac),
        }
    }
}

/// One AC's channel-access function: its contention window and backoff counter.
#[derive(Clone, Debug)]
pub struct Edcaf {
    pub params: AcParams,
    pub cw: u32,
    /// Idle slots still to count before the AC may transmit (0: may transmit after AIFS).
    pub backoff_slots: u32,
}

impl Edcaf {
    pub fn new(params: AcParams) -> Self {
        Edcaf { params, cw: params.cw_min, backoff_slots: 0 }
    }

    /// A new backoff, uniform in [0, CW] (§10.23.2.2).
    pub fn draw(&mut self, rng: &mut RngStream) {
        self.backoff_slots = rng.inner().random_range(0..=self.cw);
    }

    /// The frame exchange failed: double the window and back off again.
    pub fn on_failure(&mut self, rng: &mut RngStream) {
        self.cw = (2 * (self.cw + 1) - 1).min(self.params.cw_max);
        self.draw(rng);
    }

    /// The TXOP ended well: reset the window and start the post-backoff.
    pub fn on_success(&mut self, rng: &mut RngStream) {
        self.cw = self.params.cw_min;
        self.draw(rng);
    }

    /// `slots` idle slots passed since the countdown last started.
    pub fn count_down(&mut self, slots: u64) {
        self.backoff_slots = self.backoff_slots.saturating_sub(slots.min(u64::from(u32::MAX)) as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_parameters_follow_table_9_155() {
        assert_eq!(AcParams::standard(Ac::Be), AcParams { aifsn: 3, cw_min: 15, cw_max: 1023, txop_limit_us: 2528 });
        assert_eq!(AcParams::standard(Ac::Vi), AcParams { aifsn: 2, cw_min: 7, cw_max: 15, txop_limit_us: 4096 });
        assert_eq!(AcParams::standard(Ac::Vo), AcParams { aifsn: 2, cw_min: 3, cw_max: 7, txop_limit_us: 2080 });
        assert_eq!(AcParams::ns3(Ac::Be).txop_limit_us, 0);
    }

    #[test]
    fn the_window_doubles_on_failure_up_to_cwmax_and_resets_on_success() {
        let mut rng = RngStream::new(1, "edca");
        let mut e = Edcaf::new(AcParams::standard(Ac::Be));
        let cws: Vec<u32> = (0..8)
            .map(|_| {
                e.on_failure(&mut rng);
                assert!(e.backoff_slots <= e.cw);
                e.cw
            })
            .collect();
        assert_eq!(cws, [31, 63, 127, 255, 511, 1023, 1023, 1023]);
        e.on_success(&mut rng);
        assert_eq!(e.cw, 15);
    }

    #[test]
    fn backoff_draws_cover_zero_to_cw_uniformly() {
        let mut rng = RngStream::new(7, "edca");
        let mut e = Edcaf::new(AcParams::standard(Ac::Be));
        let mut counts = [0u32; 16];
        for _ in 0..16_000 {
            e.draw(&mut rng);
            counts[e.backoff_slots as usize] += 1;
        }
        // 1000 expected per value; 5 sigma ~ 155.
        assert!(counts.iter().all(|&c| (845..1155).contains(&c)), "{counts:?}");
    }
}
