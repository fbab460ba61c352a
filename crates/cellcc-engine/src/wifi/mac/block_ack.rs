//! HT-immediate Block Ack (IEEE 802.11-2020 §10.25): one agreement per (originator, recipient,
//! TID), its transmit window at the originator and its reordering buffer at the recipient.
//!
//! ```text
//!  originator: WinStartO .. WinStartO + 63 (§10.25.3): an MPDU gets a sequence number only inside
//!              the window; unacknowledged ones are sent again; the window advances past acknowledged
//!              and discarded ones; a discarded one is announced by a BlockAckReq (§10.25.3)
//!  recipient:  WinStartB .. WinEndB, 64 buffers (§10.25.6.6): in-order MSDUs go up at once, others
//!              wait for the hole to fill; an SN beyond WinEndB moves the window and passes up what it
//!              leaves behind; a BlockAckReq's SSN does the same (§10.25.6.6 b, c)
//!  BlockAck:   the recipient's scoreboard (§10.25.6.3): bitmap of WinStartR .. +63, SSN = WinStartR
//! ```
//! Sequence numbers are 12 bits (§9.2.4.4.2) and compared modulo 4096: `a` precedes `b` when
//! (b - a) mod 4096 is in (0, 2048).
//!
//! The retry count of an MPDU under an agreement is not incremented on a failed exchange
//! (§10.23.2.12.1): it is discarded only when its lifetime runs out. `tries` here counts
//! transmissions for the measurements.

use crate::packet::PacketId;
use crate::sim::SimTime;

/// Sequence numbers wrap at 4096 (§9.2.4.4.2).
pub const SN_MODULO: u16 = 4096;
/// Half the sequence space: an SN this far or more behind WinStart is "before" it.
const SN_HALF: u16 = SN_MODULO / 2;
/// Buffer of an agreement, MPDUs: the compressed BlockAck bitmap's 64 bits (§9.3.1.8.2), the
/// largest buffer a VHT recipient offers (ns-3 caps `MpduBufferSize` at 64 for VHT).
pub const BA_WINDOW: u16 = 64;

/// (to - from) mod 4096.
pub fn sn_distance(from: u16, to: u16) -> u16 {
    (to + SN_MODULO - from) % SN_MODULO
}

fn slot(sn: u16) -> usize {
    usize::from(sn % BA_WINDOW)
}

/// Where an MPDU awaiting acknowledgement stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MpduState {
    /// In the PSDU on the air, its acknowledgement awaited.
    InFlight,
    /// Not acknowledged: goes in the next PSDU.
    Retransmit,
}

/// An MPDU the originator has given a sequence number and not yet seen acknowledged.
#[derive(Clone, Copy, Debug)]
pub struct OutMpdu {
    pub sn: u16,
    /// The IP packet, while the recipient has not taken it (`None` once it has: a copy sent
    /// again is a duplicate there).
    pub id: Option<PacketId>,
    pub ip_bytes: u32,
    /// When its MSDU entered the MAC queue (its lifetime counts from there).
    pub queued_at: SimTime,
    /// Transmissions so far.
    pub tries: u32,
    pub state: MpduState,
}

/// The originator's side of an agreement.
#[derive(Clone, Debug)]
pub struct Originator {
    win_start: u16,
    next_sn: u16,
    slots: [Option<OutMpdu>; BA_WINDOW as usize],
    /// MPDUs held (sent and not yet acknowledged or discarded).
    held: u32,
    /// An MPDU was discarded: the recipient must be told the new WinStart by a BlockAckReq.
    pub bar_needed: bool,
}

impl Default for Originator {
    fn default() -> Self {
        Originator { win_start: 0, next_sn: 0, slots: [None; BA_WINDOW as usize], held: 0, bar_needed: false }
    }
}

/// What the originator learned from a BlockAck about one MPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckOutcome {
    Acked,
    /// Acknowledged only because the recipient's window moved past it: the MSDU never reached it.
    Skipped(PacketId),
    Missing,
}

impl Originator {
    pub fn win_start(&self) -> u16 {
        self.win_start
    }

    pub fn held(&self) -> u32 {
        self.held
    }

    /// Whether a new MPDU may take a sequence number (the window has room).
    pub fn has_room(&self) -> bool {
        self.room() > 0
    }

    /// How many new MPDUs may take sequence numbers: the window counts from WinStartO, whatever
    /// is acknowledged after it (§10.25.3: no MPDU beyond WinStartO + 63), not the MPDUs held.
    pub fn room(&self) -> u16 {
        BA_WINDOW.saturating_sub(sn_distance(self.win_start, self.next_sn))
    }

    /// Give a new MSDU the next sequence number; it is in flight from now.
    pub fn assign(&mut self, id: PacketId, ip_bytes: u32, queued_at: SimTime) -> u16 {
        debug_assert!(self.has_room());
        let sn = self.next_sn;
        self.slots[slot(sn)] =
            Some(OutMpdu { sn, id: Some(id), ip_bytes, queued_at, tries: 1, state: MpduState::InFlight });
        self.next_sn = (sn + 1) % SN_MODULO;
        self.held += 1;
        sn
    }

    pub fn get(&self, sn: u16) -> Option<&OutMpdu> {
        self.slots[slot(sn)].as_ref().filter(|m| m.sn == sn)
    }

    pub fn get_mut(&mut self, sn: u16) -> Option<&mut OutMpdu> {
        self.slots[slot(sn)].as_mut().filter(|m| m.sn == sn)
    }

    /// The MPDUs to send again, in sequence order.
    pub fn retransmissions(&self) -> impl Iterator<Item = &OutMpdu> + '_ {
        let n = sn_distance(self.win_start, self.next_sn);
        (0..n).filter_map(move |k| {
            let sn = (self.win_start + k) % SN_MODULO;
            self.get(sn).filter(|m| m.state == MpduState::Retransmit)
        })
    }

    /// Send `sn` again.
    pub fn resend(&mut self, sn: u16) {
        let m = self.get_mut(sn).expect("an MPDU held for retransmission");
        m.state = MpduState::InFlight;
        m.tries += 1;
    }

    /// The exchange carrying `sns` got no acknowledgement: all of them go again.
    pub fn on_no_response(&mut self, sns: &[u16]) {
        for &sn in sns {
            if let Some(m) = self.get_mut(sn) {
                m.state = MpduState::Retransmit;
            }
        }
    }

    /// A normal Ack acknowledged `sn`.
    pub fn on_ack(&mut self, sn: u16) -> AckOutcome {
        let outcome = self.release(sn);
        self.advance();
        outcome
    }

    /// A BlockAck (starting sequence number `ssn`, `bitmap` bit k for `ssn + k`) answered the PSDU
    /// carrying `sns`: the outcome of each, in order, into `out`.
    pub fn on_block_ack(&mut self, sns: &[u16], ssn: u16, bitmap: u64, out: &mut Vec<AckOutcome>) {
        out.clear();
        for &sn in sns {
            let d = sn_distance(ssn, sn);
            let acked = if d < BA_WINDOW { bitmap >> d & 1 == 1 } else { d >= SN_HALF };
            let outcome = if acked {
                self.release(sn)
            } else {
                if let Some(m) = self.get_mut(sn) {
                    m.state = MpduState::Retransmit;
                }
                AckOutcome::Missing
            };
            out.push(outcome);
        }
        self.advance();
    }

    /// Forget `sn` as acknowledged; `Skipped` if the recipient never took its MSDU.
    fn release(&mut self, sn: u16) -> AckOutcome {
        match self.slots[slot(sn)].take_if(|m| m.sn == sn) {
            Some(m) => {
                self.held -= 1;
                m.id.map_or(AckOutcome::Acked, AckOutcome::Skipped)
            }
            None => AckOutcome::Acked,
        }
    }

    /// Discard every MPDU waiting for retransmission whose lifetime ran out by `now` (queued
    /// before `now - lifetime`), passing the packets the recipient never took to `dropped`.
    /// Returns how many were discarded.
    pub fn expire(&mut self, oldest_allowed: SimTime, dropped: &mut impl FnMut(PacketId)) -> u32 {
        let mut n = 0;
        for s in self.slots.iter_mut() {
            if let Some(m) = s.take_if(|m| m.state == MpduState::Retransmit && m.queued_at < oldest_allowed) {
                if let Some(id) = m.id {
                    dropped(id);
                }
                self.held -= 1;
                n += 1;
            }
        }
        if n > 0 {
            self.bar_needed = true;
            self.advance();
        }
        n
    }

    /// Move WinStartO past the acknowledged and discarded MPDUs.
    fn advance(&mut self) {
        while self.win_start != self.next_sn && self.get(self.win_start).is_none() {
            self.win_start = (self.win_start + 1) % SN_MODULO;
        }
    }
}

/// What a recipient did with an MPDU it decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Received {
    /// Taken into the buffer (and maybe passed up at once).
    Stored,
    /// A copy of one it already holds or passed up.
    Duplicate,
    /// Before its window: one it gave up on (or passed up already).
    Old,
}

/// The recipient's side of an agreement: the reordering buffer.
#[derive(Clone, Debug)]
pub struct Recipient {
    win_start: u16,
    /// (SN, packet, IP bytes) of each MSDU held.
    buf: [Option<(u16, PacketId, u32)>; BA_WINDOW as usize],
}

impl Default for Recipient {
    fn default() -> Self {
        Recipient { win_start: 0, buf: [None; BA_WINDOW as usize] }
    }
}

impl Recipient {
    pub fn win_start(&self) -> u16 {
        self.win_start
    }

    fn held(&self, sn: u16) -> bool {
        self.buf[slot(sn)].is_some_and(|(s, _, _)| s == sn)
    }

    /// An MPDU `sn` carrying packet `id` of `ip_bytes` (None: the originator says the recipient
    /// took it before). Packets that may go up, in order, go to `up` with their size.
    pub fn receive(
        &mut self,
        sn: u16,
        id: Option<PacketId>,
        ip_bytes: u32,
        up: &mut impl FnMut(PacketId, u32),
    ) -> Received {
        let d = sn_distance(self.win_start, sn);
        if d >= SN_HALF {
            return Received::Old;
        }
        if d >= BA_WINDOW {
            // §10.25.6.6 c: WinEndB becomes sn; what falls before the new WinStartB goes up.
            self.move_to((sn + SN_MODULO - (BA_WINDOW - 1)) % SN_MODULO, up);
        }
        if self.held(sn) {
            return Received::Duplicate;
        }
        let Some(id) = id else { return Received::Duplicate };
        self.buf[slot(sn)] = Some((sn, id, ip_bytes));
        self.pass_up_in_order(up);
        Received::Stored
    }

    /// A BlockAckReq with starting sequence number `ssn` (§10.25.6.6 b).
    pub fn on_block_ack_req(&mut self, ssn: u16, up: &mut impl FnMut(PacketId, u32)) {
        let d = sn_distance(self.win_start, ssn);
        if d > 0 && d < SN_HALF {
            self.move_to(ssn, up);
        }
        self.pass_up_in_order(up);
    }

    /// Pass up every held MSDU before `new_start`, in order, and start the window there.
    fn move_to(&mut self, new_start: u16, up: &mut impl FnMut(PacketId, u32)) {
        let n = sn_distance(self.win_start, new_start).min(BA_WINDOW);
        for k in 0..n {
            let sn = (self.win_start + k) % SN_MODULO;
            if let Some((_, id, bytes)) = self.buf[slot(sn)].take_if(|(s, _, _)| *s == sn) {
                up(id, bytes);
            }
        }
        self.win_start = new_start;
    }

    fn pass_up_in_order(&mut self, up: &mut impl FnMut(PacketId, u32)) {
        while let Some((_, id, bytes)) = self.buf[slot(self.win_start)].take_if(|(s, _, _)| *s == self.win_start) {
            up(id, bytes);
            self.win_start = (self.win_start + 1) % SN_MODULO;
        }
    }

    /// The scoreboard as a compressed BlockAck carries it: (SSN, bitmap of SSN .. SSN + 63).
    pub fn scoreboard(&self) -> (u16, u64) {
        let bitmap = (0..BA_WINDOW).fold(0u64, |b, k| {
            let sn = (self.win_start + k) % SN_MODULO;
            b | (u64::from(self.held(sn)) << k)
        });
        (self.win_start, bitmap)
    }

    /// MSDUs waiting in the buffer for a hole to fill.
    pub fn buffered(&self) -> usize {
        self.buf.iter().filter(|b| b.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> PacketId {
        PacketId(n)
    }

    #[test]
    fn a_lost_mpdu_holds_the_later_ones_until_its_retransmission_fills_the_hole() {
        // Originator sends SN 0..4; SN 1 is lost on the air.
        let mut o = Originator::default();
        let sns: Vec<u16> = (0..4).map(|n| o.assign(id(n), 1000, SimTime::ZERO)).collect();
        let mut r = Recipient::default();
        let mut up = Vec::new();
        for &sn in &sns {
            if sn != 1 {
                let got = o.get(sn).unwrap().id;
                assert_eq!(r.receive(sn, got, 1000, &mut |p, _| up.push(p)), Received::Stored);
                o.get_mut(sn).unwrap().id = None;
            }
        }
        // Only SN 0 went up; 2 and 3 wait behind the hole.
        assert_eq!(up, vec![id(0)]);
        assert_eq!(r.buffered(), 2);
        let (ssn, bitmap) = r.scoreboard();
        assert_eq!((ssn, bitmap & 0b111), (1, 0b110));
        let mut outcome = Vec::new();
        o.on_block_ack(&sns, ssn, bitmap, &mut outcome);
        assert_eq!(outcome, [AckOutcome::Acked, AckOutcome::Missing, AckOutcome::Acked, AckOutcome::Acked]);
        // WinStartO stops at the missing SN 1, which is the one retransmission.
        assert_eq!(o.win_start(), 1);
        assert_eq!(o.retransmissions().map(|m| m.sn).collect::<Vec<_>>(), [1]);
        o.resend(1);
        assert_eq!(o.get(1).unwrap().tries, 2);
        let got = o.get(1).unwrap().id;
        r.receive(1, got, 1000, &mut |p, _| up.push(p));
        assert_eq!(up, vec![id(0), id(1), id(2), id(3)], "the hole filled: everything goes up in order");
        let (ssn, _) = r.scoreboard();
        o.get_mut(1).unwrap().id = None;
        o.on_block_ack(&[1], ssn, 0, &mut outcome);
        assert_eq!((o.win_start(), o.held()), (4, 0));
    }

    #[test]
    fn the_window_holds_64_mpdus() {
        let mut o = Originator::default();
        for n in 0..64 {
            assert!(o.has_room());
            o.assign(id(n), 100, SimTime::ZERO);
        }
        assert!(!o.has_room(), "a 65th MPDU must wait for WinStartO to move");
        let mut out = Vec::new();
        o.on_block_ack(&[0], 0, 1, &mut out);
        assert!(o.has_room());
    }

    #[test]
    fn the_room_counts_from_win_start_not_from_the_mpdus_held() {
        // SN 0 is missing and the 63 after it are acknowledged: one MPDU is held, yet a new MSDU
        // would take SN 64, the slot of SN 0 that is about to go again.
        let mut o = Originator::default();
        let sns: Vec<u16> = (0..64).map(|n| o.assign(id(n), 100, SimTime::ZERO)).collect();
        let mut out = Vec::new();
        o.on_block_ack(&sns, 0, !1, &mut out);
        assert_eq!((o.held(), o.win_start(), o.room()), (1, 0, 0));
        assert!(!o.has_room());
        o.on_block_ack(&[0], 0, 1, &mut out);
        assert_eq!((o.held(), o.win_start(), o.room()), (0, 64, 64));
    }

    #[test]
    fn a_discarded_mpdu_asks_for_a_block_ack_req_which_releases_the_buffer() {
        let mut o = Originator::default();
        let t0 = SimTime::ZERO;
        for n in 0..3 {
            o.assign(id(n), 100, t0);
        }
        let mut r = Recipient::default();
        let mut up = Vec::new();
        // SN 0 lost, 1 and 2 received.
        for sn in [1u16, 2] {
            let got = o.get_mut(sn).unwrap().id.take();
            r.receive(sn, got, 1000, &mut |p, _| up.push(p));
        }
        o.on_no_response(&[0]);
        let mut dropped = Vec::new();
        assert_eq!(o.expire(SimTime::from_secs_f64(1.0), &mut |p| dropped.push(p)), 1);
        assert_eq!(dropped, [id(0)]);
        assert!(o.bar_needed);
        assert!(up.is_empty());
        r.on_block_ack_req(o.win_start(), &mut |p, _| up.push(p));
        assert_eq!(up, [id(1), id(2)]);
    }

    #[test]
    fn an_sn_beyond_the_window_moves_it_and_passes_up_what_it_leaves_behind() {
        let mut r = Recipient::default();
        let mut up = Vec::new();
        r.receive(1, Some(id(1)), 1, &mut |p, _| up.push(p));
        assert!(up.is_empty());
        // SN 70 is beyond WinEndB = 63: the window becomes 7..70; SN 1 goes up, SN 0 is given up.
        r.receive(70, Some(id(70)), 1, &mut |p, _| up.push(p));
        assert_eq!(up, [id(1)]);
        assert_eq!(r.win_start(), 7);
        assert_eq!(r.receive(0, Some(id(0)), 1, &mut |p, _| up.push(p)), Received::Old);
    }

    #[test]
    fn sequence_numbers_wrap_at_4096() {
        let mut o = Originator { win_start: 4090, next_sn: 4090, ..Originator::default() };
        let sns: Vec<u16> = (0..10).map(|n| o.assign(id(n), 1, SimTime::ZERO)).collect();
        assert_eq!(sns[6], 0);
        let mut r = Recipient { win_start: 4090, ..Recipient::default() };
        let mut up = Vec::new();
        for &sn in &sns {
            let got = o.get_mut(sn).unwrap().id.take();
            assert_eq!(r.receive(sn, got, 1000, &mut |p, _| up.push(p)), Received::Stored);
        }
        assert_eq!(up.len(), 10);
        assert_eq!(r.win_start(), 4);
        let (ssn, bitmap) = r.scoreboard();
        let mut out = Vec::new();
        o.on_block_ack(&sns, ssn, bitmap, &mut out);
        assert!(out.iter().all(|&x| x == AckOutcome::Acked), "{out:?}");
        assert_eq!(o.held(), 0);
    }
}
