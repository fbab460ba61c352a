//! The receiving side: which stations lock onto a PPDU, what each decodes of it, and what the
//! MAC does with it (IEEE 802.11-2020 §10.3.2, §10.25.6).
//!
//! ```text
//!  start: an idle station whose first symbol arrives at >= -82 dBm (in the primary 20 MHz) and
//!         >= 4 dB SINR locks onto it (ns-3 ThresholdPreambleDetectionModel); no capture later
//!  end:   PHY header (L-SIG + SIG-A at BPSK 1/2), then each MPDU at the SINR of its stretch
//!  MAC:   addressed data -> reordering buffer, Ack / BlockAck after SIFS; RTS -> CTS if the NAV
//!         is idle; BlockAckReq -> window moves, BlockAck; overheard frames set the NAV from their
//!         Duration; a reception that fails makes the next access wait EIFS
//! ```

use super::air::{AirMpdu, Frame, Mode, Ppdu, Sta};
use super::station::{Exchange, Phy, Response};
use super::{Bss, Ev};
use crate::radio::noise::to_db;
use crate::sim::{SimDuration, SimTime};
use crate::wifi::mac::block_ack::Received;
use crate::wifi::mac::frames::{ACK_BYTES, BLOCK_ACK_BYTES, BLOCK_ACK_REQ_BYTES, CTS_BYTES, RTS_BYTES};
use crate::wifi::phy::error_model::chunk_success;
use crate::wifi::phy::ppdu::Fec;
use crate::wifi::phy::reception::{interference_at, stretch_success};
use crate::wifi::phy::vht::response_rate;
use crate::wifi::phy::{NON_HT_HEADER_BITS, PREAMBLE_DETECT_SNR_DB, SIFS_NS, VHT_HEADER_BITS};

/// The error curve of BPSK 1/2, which every PHY header field uses.
const HEADER_CURVE: u8 = 0;

/// The wanted signal at a receiver: power and noise (mW), and its SNR without overlaps (dB).
#[derive(Clone, Copy)]
struct Link {
    signal: f64,
    noise: f64,
    snr_db: f64,
}

/// What a receiver made of one PPDU.
struct Decoded {
    header_ok: bool,
    /// SINR at the start of the PPDU, dB (what the receiver reports back).
    sinr_db: f64,
    /// Whether another signal overlapped it at this receiver.
    overlapped: bool,
}

impl Bss {
    /// The PPDUs started at `now` are all on the air: idle stations that detect a preamble lock on.
    pub(super) fn settle_new_ppdus(&mut self, now: SimTime) {
        let threshold = 10f64.powf(PREAMBLE_DETECT_SNR_DB / 10.0);
        for i in 0..self.scratch.new_ppdus.len() {
            let id = self.scratch.new_ppdus[i];
            let tx = self.air.get(id).tx;
            for r in 0..self.stations.len() {
                if r == tx || self.stations[r].phy != Phy::Idle {
                    continue;
                }
                let p_mw = self.links.rx_mw(tx, r);
                if p_mw < self.cfg.preamble_rssi_mw {
                    continue;
                }
                let others: f64 = self
                    .air
                    .on_air()
                    .filter(|&q| q != id && self.air.get(q).tx != r)
                    .map(|q| self.links.rx_mw(self.air.get(q).tx, r))
                    .sum();
                if p_mw >= threshold * (self.links.noise_mw() + others) {
                    self.stations[r].phy = Phy::Rx(id);
                }
            }
        }
        self.scratch.new_ppdus.clear();
        let _ = now;
    }

    /// PPDU `id` ends at `now`.
    pub(super) fn on_ppdu_end(&mut self, id: u32, now: SimTime) {
        let p = self.air.get(id);
        let (tx, frame) = (p.tx, p.frame);
        if self.stations[tx].phy == Phy::Tx(id) {
            self.stations[tx].phy = Phy::Idle;
        }
        let mpdus = std::mem::take(&mut self.air.get_mut(id).mpdus);
        for r in 0..self.stations.len() {
            if self.stations[r].phy == Phy::Rx(id) {
                self.stations[r].phy = Phy::Idle;
                self.receive(r, id, &mpdus, now);
            } else if let Frame::Data { ra, .. } = frame {
                if ra == r && self.stations[r].phy != Phy::Tx(id) {
                    self.missed_data(r, id, now);
                }
            }
        }
        self.air.get_mut(id).mpdus = mpdus;
        self.air.end(id);
    }

    /// The recipient of data PPDU `id` never locked onto it: a collision if something overlapped it.
    fn missed_data(&mut self, r: Sta, id: u32, now: SimTime) {
        let tx = self.air.get(id).tx;
        let links = &self.links;
        self.air.overlaps(id, r, |q| links.rx_mw(q, r), &mut self.scratch.overlaps);
        if !self.scratch.overlaps.is_empty() {
            self.link_slot(tx, r, now).collisions += 1;
        }
    }

    /// Station `r` was locked onto PPDU `id`, which ended at `now`.
    fn receive(&mut self, r: Sta, id: u32, mpdus: &[AirMpdu], now: SimTime) {
        let p = self.air.get(id).clone_header();
        // A third party needs one MPDU's header (for its NAV); the recipient needs every MPDU.
        let d = self.decode(r, &p, mpdus, p.frame.ra() == r);
        let any_ok = d.header_ok && self.scratch.ok.iter().any(|&ok| ok);
        self.stations[r].cs.eifs_from = if any_ok { None } else { Some(now) };
        if let Frame::Data { ra, .. } = p.frame {
            if ra == r && !any_ok && d.overlapped {
                self.link_slot(p.tx, r, now).collisions += 1;
            }
        }
        if any_ok && p.frame.ra() == r {
            self.addressed(r, &p, mpdus, d.sinr_db, now);
        } else if any_ok {
            self.stations[r].set_nav(now, p.nav_end);
        }
        self.response_missing(r, &p, any_ok, now);
    }

    /// An originator awaiting a response got this PPDU instead (or could not decode it): the
    /// exchange failed once its timeout has passed.
    fn response_missing(&mut self, r: Sta, p: &Ppdu, decoded: bool, now: SimTime) {
        let deadline = match self.stations[r].exchange {
            Exchange::AwaitCts { deadline, .. }
            | Exchange::AwaitAck { deadline, .. }
            | Exchange::AwaitBarAck { deadline, .. } => deadline,
            Exchange::Idle => return,
        };
        let answered = decoded
            && p.frame.ra() == r
            && matches!(p.frame, Frame::Ack { .. } | Frame::BlockAck { .. } | Frame::Cts { .. });
        if !answered && now >= deadline {
            self.fail_exchange(r, now);
        }
    }

    /// Header and payload of `p` at `r`: the header's fate in the result, each MPDU's in `scratch.ok`
    /// (up to the first decoded one unless `every_mpdu`).
    fn decode(&mut self, r: Sta, p: &Ppdu, mpdus: &[AirMpdu], every_mpdu: bool) -> Decoded {
        let links = &self.links;
        let id_overlaps = &mut self.scratch.overlaps;
        overlaps_of(&self.air, p, r, |q| links.rx_mw(q, r), id_overlaps);
        let (mcs, nss, header_bits, fec) = match p.mode {
            Mode::Vht(tx) => (tx.mcs, tx.nss, VHT_HEADER_BITS, self.cfg.fec),
            Mode::NonHt(rate) => (rate.error_curve_mcs(), 1, NON_HT_HEADER_BITS, Fec::Bcc),
        };
        // ns-3: with more receive antennas than streams, the SINR gains 10 log10(antennas / streams).
        let gain = (f64::from(self.stations[r].nss) / f64::from(nss)).max(1.0);
        let signal = self.links.rx_mw(p.tx, r) * gain;
        let noise = self.links.noise_mw();
        let overlapped = !self.scratch.overlaps.is_empty();
        let sinr_db = if overlapped {
            to_db(signal / (noise + interference_at(&self.scratch.overlaps, p.start.as_ns())))
        } else if gain > 1.0 {
            self.links.snr_db(p.tx, r) + to_db(gain)
        } else {
            self.links.snr_db(p.tx, r)
        };
        let link = Link { signal, noise, snr_db: sinr_db };
        let span = |a: SimTime, b: SimTime| (a.as_ns(), b.as_ns());
        let header_ok = self.draw(r, HEADER_CURVE, Fec::Bcc, link, span(p.start, p.header_end), header_bits);
        self.scratch.ok.clear();
        if !header_ok {
            return Decoded { header_ok, sinr_db, overlapped };
        }
        match p.frame {
            Frame::Data { .. } => {
                for m in mpdus {
                    let ok = self.draw(r, mcs, fec, link, span(m.start, m.end), f64::from(m.bytes) * 8.0);
                    self.scratch.ok.push(ok);
                    if ok && !every_mpdu {
                        break;
                    }
                }
            }
            f => {
                let bits = f64::from(control_bytes(&f)) * 8.0;
                let ok = self.draw(r, mcs, fec, link, span(p.header_end, p.end), bits);
                self.scratch.ok.push(ok);
            }
        }
        Decoded { header_ok, sinr_db, overlapped }
    }

    /// Draw whether `bits` over `span` decode at receiver `r` (`link.snr_db` stands for the
    /// whole stretch when nothing overlaps the PPDU).
    fn draw(&mut self, r: Sta, mcs: u8, fec: Fec, link: Link, span: (u64, u64), bits: f64) -> bool {
        let p_ok = if self.scratch.overlaps.is_empty() {
            if link.snr_db >= self.clear_snr_db(mcs, fec) {
                return true;
            }
            chunk_success(mcs, fec, link.snr_db, bits)
        } else {
            let (signal, noise) = (link.signal, link.noise);
            stretch_success(mcs, fec, signal, noise, &self.scratch.overlaps, span, bits, &mut self.scratch.cuts)
        };
        p_ok >= 1.0 || (p_ok > 0.0 && self.stations[r].rx_rng.uniform() < p_ok)
    }

    /// A frame addressed to `r` decoded (at least in part).
    fn addressed(&mut self, r: Sta, p: &Ppdu, mpdus: &[AirMpdu], sinr_db: f64, now: SimTime) {
        let respond_at = now + SimDuration::from_ns(SIFS_NS);
        match p.frame {
            Frame::Data { agreement, normal_ack, .. } => {
                for (m, i) in mpdus.iter().zip(0..) {
                    if self.scratch.ok[i] {
                        self.accept_mpdu(agreement, m.sn, now);
                    }
                }
                let Mode::Vht(tx) = p.mode else { unreachable!("data PPDUs are VHT") };
                let rate = response_rate(&tx, self.cfg.response_vs_data_rate);
                let resp = if normal_ack {
                    Response::Ack { ra: p.tx, snr_db: sinr_db, rate }
                } else {
                    Response::BlockAck { ra: p.tx, agreement, snr_db: sinr_db, rate }
                };
                self.owe(r, resp, respond_at);
            }
            Frame::Rts { .. } => {
                // §10.3.2.9: a CTS only if the NAV is idle.
                if self.stations[r].cs.nav_until <= now {
                    let Mode::NonHt(rate) = p.mode else { unreachable!("RTS is non-HT") };
                    self.owe(r, Response::Cts { ra: p.tx, nav_end: p.nav_end, rate }, respond_at);
                }
            }
            Frame::BlockAckReq { agreement, ssn, .. } => {
                let rx_node = self.nodes[r];
                let delivered = &mut self.delivered;
                let mut bytes = 0u64;
                self.agreements[agreement as usize].recip.on_block_ack_req(ssn, &mut |id, b| {
                    delivered.push((rx_node, id));
                    bytes += u64::from(b);
                });
                self.link_slot(p.tx, r, now).delivered_bytes += bytes;
                let Mode::NonHt(rate) = p.mode else { unreachable!("BlockAckReq is non-HT") };
                self.owe(r, Response::BlockAck { ra: p.tx, agreement, snr_db: sinr_db, rate }, respond_at);
            }
            Frame::Ack { .. } | Frame::BlockAck { .. } | Frame::Cts { .. } => self.on_response(r, p.frame, now),
        }
    }

    fn owe(&mut self, r: Sta, resp: Response, at: SimTime) {
        self.stations[r].response = Some(resp);
        self.schedule(at, Ev::Respond(r as u16));
    }

    /// MPDU `sn` of agreement `k` decoded at its recipient: into the reordering buffer, and what
    /// may go up goes up (§10.25.6.6).
    fn accept_mpdu(&mut self, k: u32, sn: u16, now: SimTime) {
        let a = &mut self.agreements[k as usize];
        let Some(m) = a.orig.get(sn).copied() else { return };
        let (rx_node, tx) = (self.nodes[a.rx], a.tx);
        let delivered = &mut self.delivered;
        let mut bytes = 0u64;
        let got = a.recip.receive(sn, m.id, m.ip_bytes, &mut |id, b| {
            delivered.push((rx_node, id));
            bytes += u64::from(b);
        });
        let mut lost = 0;
        match got {
            Received::Stored => {
                if let Some(e) = a.orig.get_mut(sn) {
                    e.id = None;
                }
            }
            Received::Old => {
                // Behind the window: the recipient gave up on it before it came.
                if let Some(id) = a.orig.get_mut(sn).and_then(|e| e.id.take()) {
                    self.dropped.push(id);
                    lost = 1;
                }
            }
            Received::Duplicate => {}
        }
        let rx = a.rx;
        let x = self.link_slot(tx, rx, now);
        x.delivered_bytes += bytes;
        x.mpdu_losses += lost;
    }

    /// The SNR above which curve `mcs` decodes every frame (cached per FEC).
    fn clear_snr_db(&mut self, mcs: u8, fec: Fec) -> f64 {
        let cache = match fec {
            Fec::Bcc => &mut self.clear_bcc,
            Fec::Ldpc => &mut self.clear_ldpc,
        };
        *cache[usize::from(mcs)].get_or_insert_with(|| crate::wifi::phy::error_model::clear_snr_db(mcs, fec))
    }
}

/// Every other signal overlapping `p` at `r` (ended or not), with its power there.
fn overlaps_of(
    air: &super::air::Air,
    p: &Ppdu,
    r: Sta,
    rx_mw: impl Fn(Sta) -> f64,
    out: &mut Vec<crate::wifi::phy::reception::Overlap>,
) {
    air.overlaps_with(p.tx, p.start, p.end, r, rx_mw, out);
}

/// The size of a control frame, octets (FCS included).
fn control_bytes(f: &Frame) -> u32 {
    match f {
        Frame::Ack { .. } => ACK_BYTES,
        Frame::Cts { .. } => CTS_BYTES,
        Frame::Rts { .. } => RTS_BYTES,
        Frame::BlockAck { .. } => BLOCK_ACK_BYTES,
        Frame::BlockAckReq { .. } => BLOCK_ACK_REQ_BYTES,
        Frame::Data { .. } => 0,
    }
}
