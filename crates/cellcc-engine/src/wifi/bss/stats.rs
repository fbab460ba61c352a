//! What a BSS measures per station, direction and time-series slot, and the `wifi` output
//! table built from it (columns documented in `output.rs`).

use crate::measure::timeseries::Slots;
use crate::output::{Column, Table};

/// One station's link in one direction (dl: AP to station, ul: station to AP), one slot.
#[derive(Clone, Copy, Debug, Default)]
pub struct WifiSlot {
    /// Data PPDUs sent (first transmissions and retransmissions).
    pub ppdus: u64,
    /// Sum of their VHT-MCS, MPDUs and A-MPDU octets (for the means).
    pub mcs_sum: u64,
    pub mpdus_sum: u64,
    pub ampdu_bytes_sum: u64,
    /// MPDUs sent again after a missing acknowledgement.
    pub retries: u64,
    /// MPDUs discarded unacknowledged (lifetime), or acknowledged only because the recipient gave up on them.
    pub mpdu_losses: u64,
    /// Data PPDUs whose Ack / BlockAck never came.
    pub ba_timeouts: u64,
    /// Data PPDUs lost at their recipient while another transmission overlapped them.
    pub collisions: u64,
    /// Air time of the link's data PPDUs, ns.
    pub airtime_ns: u64,
    /// IP bytes the recipient passed up.
    pub delivered_bytes: u64,
    /// Bytes queued at the sender at the slot's end (the last value seen in the slot; a slot that
    /// saw none carries the previous slot's).
    pub queue_bytes: u64,
    pub queue_seen: bool,
    /// MSDUs refused by the full queue.
    pub queue_drops: u64,
}

pub type WifiSlots = Slots<WifiSlot>;

/// Rows `(bss, station, dir, slots)` -> the `wifi` table.
pub fn wifi_table<'a>(rows: impl Iterator<Item = (&'a str, &'a str, &'static str, &'a WifiSlots)>) -> Table {
    let mut labels: Vec<String> = Vec::new();
    let mut code = |s: &str| match labels.iter().position(|l| l == s) {
        Some(i) => i as u32,
        None => {
            labels.push(s.to_string());
            labels.len() as u32 - 1
        }
    };
    let (mut bss, mut sta, mut dir, mut t_s) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut ppdus, mut mcs, mut mpdus, mut bytes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut retries, mut losses, mut timeouts, mut collisions) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut airtime, mut delivered, mut queue, mut drops) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (b, s, d, slots) in rows {
        let width_s = slots.width().as_secs_f64();
        let mut last_queue = 0;
        for (i, x) in slots.slots.iter().enumerate() {
            if x.queue_seen {
                last_queue = x.queue_bytes;
            }
            bss.push(code(b));
            sta.push(code(s));
            dir.push(code(d));
            t_s.push(slots.start_s(i));
            ppdus.push(x.ppdus);
            let mean = |sum: u64| if x.ppdus == 0 { f64::NAN } else { sum as f64 / x.ppdus as f64 };
            mcs.push(mean(x.mcs_sum));
            mpdus.push(mean(x.mpdus_sum));
            bytes.push(mean(x.ampdu_bytes_sum));
            retries.push(x.retries);
            losses.push(x.mpdu_losses);
            timeouts.push(x.ba_timeouts);
            collisions.push(x.collisions);
            airtime.push(x.airtime_ns as f64 * 1e-9 / width_s);
            delivered.push(x.delivered_bytes as f64 * 8.0 / width_s);
            queue.push(last_queue);
            drops.push(x.queue_drops);
        }
    }
    let cat = |codes: Vec<u32>, labels: &[String]| Column::Cat { codes, labels: labels.to_vec() };
    let mut t = Table::default();
    t.push("bss", cat(bss, &labels));
    t.push("station", cat(sta, &labels));
    t.push("dir", cat(dir, &labels));
    t.push("t_s", Column::F64(t_s));
    t.push("ppdus", Column::U64(ppdus));
    t.push("mcs_mean", Column::F64(mcs));
    t.push("ampdu_mpdus_mean", Column::F64(mpdus));
    t.push("ampdu_bytes_mean", Column::F64(bytes));
    t.push("mpdu_retries", Column::U64(retries));
    t.push("mpdu_losses", Column::U64(losses));
    t.push("ba_timeouts", Column::U64(timeouts));
    t.push("collisions", Column::U64(collisions));
    t.push("airtime_share", Column::F64(airtime));
    t.push("delivered_bps", Column::F64(delivered));
    t.push("queue_bytes", Column::U64(queue));
    t.push("queue_drops", Column::U64(drops));
    t
}
