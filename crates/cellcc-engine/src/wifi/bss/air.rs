//! The air of one BSS: the PPDUs on it (and those that ended while another was still being
//! received, whose energy that reception saw), and the power each station's transmissions
//! arrive with at every other station.

use crate::sim::SimTime;
use crate::wifi::phy::reception::Overlap;
use crate::wifi::phy::vht::{LegacyRate, TxVector};

/// A station of the BSS: 0 is the access point, 1.. the stations in scenario order.
pub type Sta = usize;

/// What a PPDU carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Frame {
    /// An A-MPDU (or S-MPDU) of QoS Data under agreement `agreement`; `normal_ack`: a single MPDU
    /// answered by an Ack rather than a BlockAck.
    Data {
        ra: Sta,
        agreement: u32,
        normal_ack: bool,
    },
    /// `snr_db`: the SINR the recipient measured on the frame it acknowledges (ns-3's `SnrTag`).
    Ack {
        ra: Sta,
        snr_db: f64,
    },
    BlockAck {
        ra: Sta,
        ssn: u16,
        bitmap: u64,
        snr_db: f64,
    },
    Rts {
        ra: Sta,
    },
    Cts {
        ra: Sta,
    },
    BlockAckReq {
        ra: Sta,
        agreement: u32,
        ssn: u16,
    },
}

impl Frame {
    /// The station the frame is addressed to (its RA).
    pub fn ra(&self) -> Sta {
        match *self {
            Frame::Data { ra, .. }
            | Frame::Ack { ra, .. }
            | Frame::BlockAck { ra, .. }
            | Frame::Rts { ra }
            | Frame::Cts { ra }
            | Frame::BlockAckReq { ra, .. } => ra,
        }
    }
}

/// How a PPDU is modulated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mode {
    Vht(TxVector),
    NonHt(LegacyRate),
}

/// One MPDU's place in a data PPDU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AirMpdu {
    pub sn: u16,
    /// Octets of its A-MPDU subframe (delimiter + MPDU + padding).
    pub bytes: u32,
    pub start: SimTime,
    pub end: SimTime,
}

/// A PPDU on the air.
#[derive(Clone, Debug)]
pub struct Ppdu {
    pub tx: Sta,
    pub start: SimTime,
    pub end: SimTime,
    /// End of the preamble and PHY header (where the payload starts).
    pub header_end: SimTime,
    pub frame: Frame,
    pub mode: Mode,
    /// What the Duration field sets a third party's NAV to (absolute).
    pub nav_end: SimTime,
    /// Data PPDUs: the MPDUs, in order (empty otherwise). Reused between PPDUs.
    pub mpdus: Vec<AirMpdu>,
    pub ended: bool,
}

impl Ppdu {
    /// The PPDU without its MPDU list (which stays in the slab).
    pub fn clone_header(&self) -> Ppdu {
        Ppdu { mpdus: Vec::new(), ..*self }
    }
}

/// The PPDUs of interest and the slab they live in (slots and their MPDU buffers are reused).
#[derive(Debug, Default)]
pub struct Air {
    slots: Vec<Ppdu>,
    free: Vec<u32>,
    /// Slots on the air, or ended while something that overlapped them is still on the air.
    live: Vec<u32>,
}

impl Air {
    /// A slot for a new PPDU. A PPDU without MPDUs keeps the slot's old (emptied) MPDU buffer,
    /// so buffers are reused rather than reallocated.
    pub fn alloc(&mut self, mut p: Ppdu) -> u32 {
        let id = match self.free.pop() {
            Some(id) => {
                let slot = &mut self.slots[id as usize];
                if p.mpdus.capacity() == 0 {
                    std::mem::swap(&mut p.mpdus, &mut slot.mpdus);
                    p.mpdus.clear();
                }
                *slot = p;
                id
            }
            None => {
                self.slots.push(p);
                self.slots.len() as u32 - 1
            }
        };
        self.live.push(id);
        id
    }

    pub fn get(&self, id: u32) -> &Ppdu {
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: u32) -> &mut Ppdu {
        &mut self.slots[id as usize]
    }

    /// A spare MPDU buffer to fill before `alloc` (taken from a free slot, so no allocation once warm).
    pub fn spare_mpdus(&mut self) -> Vec<AirMpdu> {
        match self.free.last() {
            Some(&id) => {
                let mut v = std::mem::take(&mut self.slots[id as usize].mpdus);
                v.clear();
                v
            }
            None => Vec::new(),
        }
    }

    /// The PPDU ended: forget every ended PPDU no PPDU still on the air overlaps.
    pub fn end(&mut self, id: u32) {
        self.slots[id as usize].ended = true;
        let first_start =
            self.live.iter().map(|&i| &self.slots[i as usize]).filter(|p| !p.ended).map(|p| p.start).min();
        let slots = &self.slots;
        let free = &mut self.free;
        self.live.retain(|&i| {
            let p = &slots[i as usize];
            let keep = !p.ended || first_start.is_some_and(|s| p.end > s);
            if !keep {
                free.push(i);
            }
            keep
        });
    }

    /// PPDUs on the air now (not ended).
    pub fn on_air(&self) -> impl Iterator<Item = u32> + '_ {
        self.live.iter().copied().filter(|&i| !self.slots[i as usize].ended)
    }

    /// Every other signal overlapping PPDU `id` at receiver `rx`, with its power there, into `out`.
    pub fn overlaps(&self, id: u32, rx: Sta, rx_mw: impl Fn(Sta) -> f64, out: &mut Vec<Overlap>) {
        let p = &self.slots[id as usize];
        self.overlaps_with(p.tx, p.start, p.end, rx, rx_mw, out);
    }

    /// Every signal other than `tx`'s PPDU over `[start, end)` overlapping it at `rx`, into `out`.
    pub fn overlaps_with(
        &self,
        tx: Sta,
        start: SimTime,
        end: SimTime,
        rx: Sta,
        rx_mw: impl Fn(Sta) -> f64,
        out: &mut Vec<Overlap>,
    ) {
        out.clear();
        for &i in &self.live {
            let q = &self.slots[i as usize];
            let itself = q.tx == tx && q.start == start;
            if !itself && q.tx != rx && q.start < end && q.end > start {
                out.push(Overlap { start_ns: q.start.as_ns(), end_ns: q.end.as_ns(), mw: rx_mw(q.tx) });
            }
        }
    }
}
