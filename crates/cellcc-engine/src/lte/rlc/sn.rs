//! Modular sequence numbers (TS 36.322 §7.1: arithmetic relative to a window base).

/// Sequence-number space of `bits` bits (5 or 10).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnSpace {
    bits: u8,
}

impl SnSpace {
    pub const fn new(bits: u8) -> Self {
        SnSpace { bits }
    }

    /// 2^bits.
    pub const fn modulus(self) -> u16 {
        1 << self.bits
    }

    /// UM_Window_Size / AM_Window_Size: half the SN space (TS 36.322 §7.2: 16, 512; 512 for AM).
    pub const fn window(self) -> u16 {
        self.modulus() / 2
    }

    pub const fn add(self, sn: u16, k: u16) -> u16 {
        (sn + k) & (self.modulus() - 1)
    }

    /// `sn - base` modulo 2^bits: the "modulus base" of TS 36.322 §7.1.
    pub const fn offset(self, sn: u16, base: u16) -> u16 {
        sn.wrapping_sub(base) & (self.modulus() - 1)
    }
}
