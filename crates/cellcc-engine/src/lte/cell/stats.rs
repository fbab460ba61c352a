//! What the cell measures, per UE, direction and time-series slot, and the
//! `lte` output table built from it (columns documented in `output.rs`).

use crate::measure::timeseries::Slots;
use crate::output::{Column, Table};
use crate::sim::{SimDuration, SimTime};
use std::collections::HashMap;

/// One UE's radio counters in one direction for one slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct LteSlot {
    /// Latest wideband CQI the scheduler used (None until one is reported).
    pub cqi: Option<u8>,
    /// Transport blocks sent (first transmissions and retransmissions).
    pub tbs: u64,
    /// Sum of the MCS of those TBs (for the mean).
    pub mcs_sum: u64,
    /// Bits in the TBs decoded.
    pub tb_bits_decoded: u64,
    /// Resource blocks allocated, summed over TTIs.
    pub prbs: u64,
    pub harq_retx: u64,
    /// TBs lost after the last HARQ retransmission.
    pub harq_residual_losses: u64,
    /// TBs lost because the UE missed its PDCCH grant.
    pub control_losses: u64,
    /// RLC PDUs retransmitted by AM ARQ.
    pub rlc_retx_pdus: u64,
    /// Bytes in the transmitting RLC entity's buffers at the slot's end.
    pub rlc_buffer_bytes: u64,
    /// SDUs the RLC refused (buffer full) or discarded.
    pub rlc_drops: u64,
    /// Bits the whole band could carry to this UE at its MCS, summed over the
    /// slot's TTIs (the capacity Pm's A = K/Kt divides by).
    pub capacity_bits: u64,
    /// First transmissions whose HARQ feedback came back, and how many of them failed.
    pub first_tx: u64,
    pub first_tx_nacks: u64,
    /// Sum of the outer loop's offset (dB) over the new TBs sent (for the mean).
    pub olla_offset_db_sum: f64,
    /// DCIs the PDCCH had no room for (the UE was not scheduled that TTI).
    pub pdcch_blocked: u64,
    /// CCEs of the DCIs placed, summed (for the mean aggregation level).
    pub dci_cces: u64,
    pub dcis: u64,
    /// Uplink: age of the eNB's SINR estimate over the RBs it granted, ms, summed per RB.
    pub sinr_age_ms_sum: u64,
    pub sinr_age_rbs: u64,
    /// In a network: the cell serving the UE at the slot's last sample.
    pub serving: Option<u16>,
}

/// Per-slot counters of one UE direction.
pub type LteSlots = Slots<LteSlot>;

/// One UE direction's slots, with the slot the cell is writing held beside the link: every
/// write (the CQI, the capacity and the RLC sample every TTI; a TB's, a HARQ feedback's and a
/// DCI's counters) goes to the held copy, which is written back once the writes move on to another
/// slot or [`Self::flush`] is called. Each UE's slots are a heap block of their own: with a
/// thousand UEs, touching each of them every TTI was a cache miss per UE and direction, and in
/// the 19-site network a TB's decode and its feedback each reached the slot through the block
/// (issue 34). The held copy is the slot itself, edited in place of the block's: the slots read
/// the same as if every write had gone straight in (sums of `f64` included, in the same order).
#[derive(Clone, Debug)]
pub struct LinkSlots {
    slots: LteSlots,
    open: Option<OpenSlot>,
}

/// Slot `index`, held while it is the one written.
#[derive(Clone, Copy, Debug)]
struct OpenSlot {
    index: usize,
    slot: LteSlot,
}

impl LinkSlots {
    pub fn new(width: SimDuration, duration: SimDuration) -> Self {
        LinkSlots { slots: LteSlots::new(width, duration), open: None }
    }

    /// The slot holding `t`, for the counters written when something happens (TBs, drops).
    #[inline]
    pub fn at(&mut self, t: SimTime) -> &mut LteSlot {
        let i = self.slots.locate(t);
        self.open(i)
    }

    /// The slots, as the `lte` table reads them: call [`Self::flush`] first.
    pub fn table(&self) -> &LteSlots {
        &self.slots
    }

    /// Write the held slot back into the slots.
    pub fn flush(&mut self) {
        if let Some(open) = self.open.take() {
            self.slots.slots[open.index] = open.slot;
        }
    }

    /// The held slot's TB count, 0 if none is held: a touch pass's load of the line a TB's
    /// counters will be written to.
    pub fn held_tbs(&self) -> u64 {
        self.open.as_ref().map_or(0, |o| o.slot.tbs)
    }

    /// Slot `i`, held (the slot held before written back first).
    #[inline]
    fn open(&mut self, i: usize) -> &mut LteSlot {
        if self.open.as_ref().is_some_and(|o| o.index != i) {
            self.flush();
        }
        let slots = &self.slots.slots;
        &mut self.open.get_or_insert_with(|| OpenSlot { index: i, slot: slots[i] }).slot
    }

    /// The CQI in force at `t` (the slot keeps the last).
    pub fn set_cqi(&mut self, t: SimTime, cqi: Option<u8>) {
        let i = self.slots.locate(t);
        self.open(i).cqi = cqi;
    }

    /// Add `bits` to slot `i`'s capacity.
    pub fn add_capacity_bits(&mut self, i: usize, bits: u64) {
        self.open(i).capacity_bits += bits;
    }

    /// The RLC sample at `t`: the transmitting entity's buffer, the cell serving, and the PDUs
    /// retransmitted since the last sample. Returns the slot's index.
    pub fn sample(&mut self, t: SimTime, rlc_buffer_bytes: u64, serving: Option<u16>, rlc_retx_pdus: u64) -> usize {
        let i = self.slots.locate(t);
        let slot = self.open(i);
        slot.rlc_buffer_bytes = rlc_buffer_bytes;
        slot.serving = serving;
        slot.rlc_retx_pdus += rlc_retx_pdus;
        i
    }

    /// The slots after slot `last` up to the one holding `upto` (excluded; all of them if
    /// `upto` is past the end) take slot `last`'s RLC buffer, CQI and serving cell.
    pub fn hold(&mut self, last: usize, upto: SimTime) {
        self.flush();
        let s = &mut self.slots;
        let end = if upto >= s.end() { s.slots.len() } else { s.index(upto) };
        let held = s.slots[last];
        for slot in s.slots.iter_mut().take(end).skip(last + 1) {
            slot.rlc_buffer_bytes = held.rlc_buffer_bytes;
            slot.cqi = held.cqi;
            slot.serving = held.serving;
        }
    }

    pub fn index(&self, t: SimTime) -> usize {
        self.slots.index(t)
    }

    pub fn width(&self) -> SimDuration {
        self.slots.width()
    }

    pub fn slot_count(&self) -> usize {
        self.slots.slots.len()
    }
}

/// Rows `(cell, ue, dir, slots)` -> the `lte` table. A network's rows give the cells' names
/// in `serving`: a slot's cell is the one that served the UE then ([`LteSlot::serving`]).
pub fn lte_table<'a>(
    rows: impl Iterator<Item = (&'a str, &'a str, &'static str, &'a LteSlots)>,
    serving: &[String],
) -> Table {
    let mut labels: Vec<String> = Vec::new();
    // Codes in first-seen order; the map only finds them (a cell of a thousand UEs has as many labels).
    let mut codes: HashMap<String, u32> = HashMap::new();
    let mut code = |s: &str| match codes.get(s) {
        Some(&i) => i,
        None => {
            labels.push(s.to_string());
            codes.insert(s.to_string(), labels.len() as u32 - 1);
            labels.len() as u32 - 1
        }
    };
    // Each column sized once: a 1000-UE cell's table is ~30 MB, and columns grown by doubling
    // copied their rows and touched fresh pages at each growth (issue 34).
    let rows: Vec<_> = rows.collect();
    let n: usize = rows.iter().map(|(_, _, _, slots)| slots.slots.len()).sum();
    let [mut cell, mut ue, mut dir]: [Vec<u32>; 3] = std::array::from_fn(|_| Vec::with_capacity(n));
    let [mut t_s, mut cqi, mut mcs, mut thr, mut cap, mut bler, mut offset, mut level, mut age]: [Vec<f64>; 9] =
        std::array::from_fn(|_| Vec::with_capacity(n));
    let [mut tbs, mut prbs, mut retx, mut resid, mut ctrl, mut rlc_retx, mut buf, mut drops, mut blocked]: [Vec<u64>;
        9] = std::array::from_fn(|_| Vec::with_capacity(n));
    // A label coded again returns its code and changes nothing: the UE's and direction's are
    // coded at a group's first row, the cell's when it differs from the last row's (hashing three
    // strings per row was a fifth of the 1000-UE cell's table).
    let mut last_cell: Option<(&str, u32)> = None;
    for (c, u, d, slots) in rows {
        let width_s = slots.width().as_secs_f64();
        let mut ue_dir: Option<(u32, u32)> = None;
        for (i, s) in slots.slots.iter().enumerate() {
            let c = s.serving.and_then(|k| serving.get(usize::from(k))).map_or(c, String::as_str);
            let c_code = match last_cell {
                Some((name, k)) if name == c => k,
                _ => {
                    let k = code(c);
                    last_cell = Some((c, k));
                    k
                }
            };
            let (u_code, d_code) = *ue_dir.get_or_insert_with(|| (code(u), code(d)));
            cell.push(c_code);
            ue.push(u_code);
            dir.push(d_code);
            t_s.push(slots.start_s(i));
            cqi.push(s.cqi.map_or(f64::NAN, f64::from));
            mcs.push(if s.tbs == 0 { f64::NAN } else { s.mcs_sum as f64 / s.tbs as f64 });
            tbs.push(s.tbs);
            thr.push(s.tb_bits_decoded as f64 / width_s);
            prbs.push(s.prbs);
            retx.push(s.harq_retx);
            resid.push(s.harq_residual_losses);
            ctrl.push(s.control_losses);
            rlc_retx.push(s.rlc_retx_pdus);
            buf.push(s.rlc_buffer_bytes);
            drops.push(s.rlc_drops);
            cap.push(s.capacity_bits as f64 / width_s);
            bler.push(ratio(s.first_tx_nacks as f64, s.first_tx));
            offset.push(ratio(s.olla_offset_db_sum, s.tbs - s.harq_retx));
            blocked.push(s.pdcch_blocked);
            level.push(ratio(s.dci_cces as f64, s.dcis));
            age.push(ratio(s.sinr_age_ms_sum as f64, s.sinr_age_rbs));
        }
    }
    let cat = |codes: Vec<u32>, labels: &[String]| Column::Cat { codes, labels: labels.to_vec() };
    let mut t = Table::default();
    t.push("cell", cat(cell, &labels));
    t.push("ue", cat(ue, &labels));
    t.push("dir", cat(dir, &labels));
    t.push("t_s", Column::F64(t_s));
    t.push("cqi", Column::F64(cqi));
    t.push("mcs_mean", Column::F64(mcs));
    t.push("tbs", Column::U64(tbs));
    t.push("phy_throughput_bps", Column::F64(thr));
    t.push("prbs", Column::U64(prbs));
    t.push("harq_retx", Column::U64(retx));
    t.push("harq_residual_losses", Column::U64(resid));
    t.push("control_losses", Column::U64(ctrl));
    t.push("rlc_retx_pdus", Column::U64(rlc_retx));
    t.push("rlc_buffer_bytes", Column::U64(buf));
    t.push("rlc_drops", Column::U64(drops));
    t.push("capacity_bps", Column::F64(cap));
    t.push("first_tx_bler", Column::F64(bler));
    t.push("olla_offset_db", Column::F64(offset));
    t.push("pdcch_blocked", Column::U64(blocked));
    t.push("aggregation_level", Column::F64(level));
    t.push("sinr_age_ms", Column::F64(age));
    t
}

/// `sum / n`, NaN when nothing was counted.
fn ratio(sum: f64, n: u64) -> f64 {
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every write through the held slot, across slot changes, `hold` and `f64` sums, leaves the
    /// slots as the same writes made straight into them.
    #[test]
    fn held_slot_reads_as_writes_straight_into_the_slots() {
        let (width, duration) = (SimDuration::from_ms(100), SimDuration::from_ms(1000));
        let mut held = LinkSlots::new(width, duration);
        let mut plain = LteSlots::new(width, duration);
        // Times in ms, in order and back into an earlier slot, as a cell's writes can come.
        for (k, ms) in [0u64, 5, 99, 100, 150, 120, 420, 421, 99, 999].into_iter().enumerate() {
            let t = SimTime(ms * 1_000_000);
            let k = k as u64;
            let offset_db = 0.1 * k as f64 + 1.0 / 3.0;
            let s = held.at(t);
            s.tbs += 1;
            s.olla_offset_db_sum += offset_db;
            let p = plain.at(t);
            p.tbs += 1;
            p.olla_offset_db_sum += offset_db;
            held.set_cqi(t, Some(k as u8));
            plain.at(t).cqi = Some(k as u8);
            let i = held.sample(t, 100 * k, Some(k as u16), k);
            let p = plain.at(t);
            (p.rlc_buffer_bytes, p.serving, p.rlc_retx_pdus) = (100 * k, Some(k as u16), p.rlc_retx_pdus + k);
            if ms == 150 {
                held.hold(i, SimTime(400_000_000));
                for slot in plain.slots.iter_mut().take(4).skip(i + 1) {
                    (slot.rlc_buffer_bytes, slot.cqi, slot.serving) = (100 * k, Some(k as u8), Some(k as u16));
                }
            }
        }
        held.flush();
        assert_eq!(format!("{:?}", held.table().slots), format!("{:?}", plain.slots));
        assert_eq!(held.table().slots[0].tbs, 4, "slot 0: the writes at 0, 5 and 99 ms, and the late one at 99 ms");
    }
}
