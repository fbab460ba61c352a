//! Resource block groups of downlink and uplink resource allocation type 0 (TS 38.214
//! §5.1.2.2.1, §6.1.2.2.1): a bitmap over RBGs of P consecutive PRBs, P from the bandwidth part's
//! size and `rbg-Size` (Table 5.1.2.2.1-1). The bandwidth part spans the carrier from PRB 0, so
//! the first RBG is whole and the last holds N mod P PRBs when P does not divide N.

use serde::{Deserialize, Serialize};

/// Which column of Table 5.1.2.2.1-1 (TS 38.331 `rbg-Size`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RbgConfig {
    #[default]
    Config1,
    Config2,
}

/// TS 38.214 Table 5.1.2.2.1-1: (largest BWP size of the row, P config 1, P config 2).
const RBG_TABLE: [(u32, u32, u32); 4] = [(36, 2, 4), (72, 4, 8), (144, 8, 16), (275, 16, 16)];

/// Most PRBs a bandwidth part has (TS 38.214 Table 5.1.2.2.1-1's last row, 275).
pub const MAX_BWP_PRBS: u32 = 275;

/// RBG size P of a bandwidth part of `n_prb` PRBs.
pub fn rbg_size(n_prb: u32, config: RbgConfig) -> u32 {
    assert!((1..=MAX_BWP_PRBS).contains(&n_prb), "{n_prb} PRBs outside 1..=275");
    let row = RBG_TABLE.iter().find(|r| n_prb <= r.0).expect("275 is the last row");
    match config {
        RbgConfig::Config1 => row.1,
        RbgConfig::Config2 => row.2,
    }
}

/// The RBG layout of one bandwidth part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RbgLayout {
    pub n_prb: u32,
    pub p: u32,
}

impl RbgLayout {
    pub fn new(n_prb: u32, config: RbgConfig) -> Self {
        RbgLayout { n_prb, p: rbg_size(n_prb, config) }
    }

    /// N_RBG = ceil(N / P) (start 0).
    pub fn count(&self) -> u32 {
        self.n_prb.div_ceil(self.p)
    }

    /// PRBs `[first, end)` of RBG `i`.
    pub fn prbs(&self, i: u32) -> (u32, u32) {
        let first = i * self.p;
        (first, (first + self.p).min(self.n_prb))
    }

    /// PRBs in the RBGs of `mask`.
    pub fn prb_count(&self, mask: RbgMask) -> u32 {
        mask.iter().map(|i| self.prbs(i).1 - self.prbs(i).0).sum()
    }

    /// The PRB indices of `mask`, ascending.
    pub fn prb_iter(self, mask: RbgMask) -> impl Iterator<Item = usize> + Clone {
        mask.iter().flat_map(move |i| {
            let (a, b) = self.prbs(i);
            a as usize..b as usize
        })
    }

    pub fn all(&self) -> RbgMask {
        RbgMask::range(0, self.count())
    }
}

/// RBGs as a bitmask (at most 18 RBGs: ceil(275 / 16)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RbgMask(pub u32);

impl RbgMask {
    pub fn range(first: u32, count: u32) -> RbgMask {
        if count == 0 {
            return RbgMask(0);
        }
        RbgMask((((1u64 << count) - 1) as u32) << first)
    }

    pub fn single(i: u32) -> RbgMask {
        RbgMask(1 << i)
    }

    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    pub fn union(self, o: RbgMask) -> RbgMask {
        RbgMask(self.0 | o.0)
    }

    pub fn overlaps(self, o: RbgMask) -> bool {
        self.0 & o.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = u32> + Clone {
        let mut m = self.0;
        std::iter::from_fn(move || {
            if m == 0 {
                return None;
            }
            let i = m.trailing_zeros();
            m &= m - 1;
            Some(i)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table 5.1.2.2.1-1 at its row edges; 273 PRBs (100 MHz at 30 kHz): P = 16, 18 RBGs, the
    /// last of 273 - 17 x 16 = 1 PRB; 106 PRBs: P = 8, 14 RBGs, the last of 2.
    #[test]
    fn rbg_sizes_follow_table_5_1_2_2_1_1() {
        use RbgConfig::*;
        for (n, p1, p2) in
            [(1, 2, 4), (36, 2, 4), (37, 4, 8), (72, 4, 8), (73, 8, 16), (144, 8, 16), (145, 16, 16), (275, 16, 16)]
        {
            assert_eq!((rbg_size(n, Config1), rbg_size(n, Config2)), (p1, p2), "{n} PRBs");
        }
        let l = RbgLayout::new(273, Config1);
        assert_eq!((l.p, l.count(), l.prbs(17)), (16, 18, (272, 273)));
        assert_eq!(l.prb_count(l.all()), 273);
        let m = RbgLayout::new(106, Config1);
        assert_eq!((m.count(), m.prbs(13)), (14, (104, 106)));
        assert_eq!(m.prb_iter(RbgMask(0b101)).collect::<Vec<_>>(), (0..8).chain(16..24).collect::<Vec<_>>());
    }
}
