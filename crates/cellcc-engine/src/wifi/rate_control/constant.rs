//! Constant rate: every data PPDU at one VHT-MCS (ns-3 `ConstantRateWifiManager`, DataMode
//! `VhtMcs<n>`), on every stream the link offers.

use super::LinkCaps;
use crate::wifi::phy::vht::TxVector;

#[derive(Clone, Copy, Debug)]
pub struct Constant {
    tx: TxVector,
}

impl Constant {
    pub fn new(caps: LinkCaps, mcs: u8) -> Self {
        Constant { tx: TxVector { mcs, width: caps.width, nss: caps.nss, gi: caps.gi } }
    }

    pub fn choose(&self) -> TxVector {
        self.tx
    }
}
