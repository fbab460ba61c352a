//! Minstrel-HT: Linux mac80211's rate control for HT/VHT (`net/mac80211/rc80211_minstrel_ht.c`,
//! Felix Fietkau 2010-2013), with the constants and the A-MPDU handling of ns-3 3.44's
//! `MinstrelHtWifiManager`, which ports it.
//!
//! ```text
//!  groups  (streams, guard interval, width) up to what the link offers; rates VHT-MCS 0-9 of each
//!  stats   every 50 ms: p = 100 success / attempt (integer), EWMA 75 %: ewma = (25 p + 75 ewma) / 100
//!          throughput = min(ewma, 90) / (time of a first 1200-octet MPDU), 0 below 10 %
//!          max_tp, max_tp2: the two best throughputs; max_prob: the best throughput above 75 %
//!          success, else the best probability
//!  choose  max_tp, except every (16 + 2 x average A-MPDU length) A-MPDUs one sampled rate, drawn in
//!          turn from each group's column of a random permutation (10 columns), used once
//!  chain   no BlockAck: retries at max_tp, then max_tp2, then max_prob (each its retry count: as
//!          many tries as fit in 6 ms of airtime, 2..7)
//! ```
//! Differences from Linux: the statistics are those of the MPDUs of an A-MPDU (as ns-3), the
//! interval 50 ms (ns-3's `UpdateStatistics`; Linux 5.x uses 100 ms with a different sampler).

use super::{LinkCaps, TxReport};
use crate::sim::{RngStream, SimTime, NS_PER_MS};
use crate::wifi::phy::ppdu::{non_ht_ppdu_ns, vht_ppdu_ns, vht_preamble_ns, Fec};
use crate::wifi::phy::vht::{GuardInterval, LegacyRate, TxVector, Width, MAX_MCS};
use rand::Rng;

/// ns-3 `UpdateStatistics`: 50 ms between statistics updates.
const UPDATE_INTERVAL_NS: u64 = 50 * NS_PER_MS;
/// ns-3 `EWMA` / Linux `EWMA_LEVEL`: 75 % weight on the old value.
const EWMA_LEVEL: f64 = 75.0;
/// ns-3 `SampleColumn` / Linux `SAMPLE_COLUMNS`.
const SAMPLE_COLUMNS: usize = 10;
/// ns-3 `PacketLength` / Linux `AVG_PKT_SIZE`: the frame whose airtime rates are compared by, octets.
const FRAME_BYTES: u32 = 1200;
/// Rates per group: VHT-MCS 0-9.
const RATES: usize = MAX_MCS as usize + 1;
/// Throughput counts from 10 % success and at most 90 % of it (Linux `minstrel_ht_get_tp_avg`).
const MIN_PROB_FOR_TP: f64 = 10.0;
const MAX_PROB_FOR_TP: f64 = 90.0;
/// Above 75 % success the most probable rate is the one with the best throughput.
const GOOD_PROB: f64 = 75.0;
/// Do not sample a rate already at 95 % success.
const NO_SAMPLE_ABOVE_PROB: f64 = 95.0;
/// A slow rate is still sampled once skipped this many intervals (at most twice per interval).
const SLOW_SAMPLE_AFTER_SKIPS: u32 = 20;
const MAX_SLOW_SAMPLES: u32 = 2;
/// Airtime the retries of one rate may take, ns (Linux: 6 ms segment), and the retry bounds.
const RETRY_BUDGET_NS: u64 = 6 * NS_PER_MS;
const MIN_RETRIES: u32 = 2;
const MAX_RETRIES: u32 = 7;
/// The contention window the retry budget is counted with (ns-3: "an approximation").
const RETRY_CW_MIN: u64 = 15;
const RETRY_CW_MAX: u64 = 1023;
/// aSlotTime and aSIFSTime of the 5 GHz OFDM PHY (Table 17-21), and a BlockAck at 24 Mb/s.
const SLOT_NS: u64 = 9_000;
const SIFS_NS: u64 = 16_000;
const BLOCK_ACK_BYTES: u32 = 32;
/// Initial sampling state (ns-3 `DoCreateStation`): 16 samples, 4 tries, A-MPDUs of 1.
const INITIAL_SAMPLE_COUNT: u32 = 16;
const INITIAL_SAMPLE_TRIES: u32 = 4;
/// Each statistics update allows this many samples per group (ns-3: `m_sampleCount *= 8`).
const SAMPLES_PER_GROUP: u32 = 8;
/// Sampling waits this many A-MPDUs plus two per MPDU of the average A-MPDU (ns-3, Linux).
const SAMPLE_WAIT_BASE: u32 = 16;

#[derive(Clone, Copy, Debug, Default)]
struct Rate {
    supported: bool,
    attempt: u32,
    success: u32,
    success_hist: u64,
    ewma_prob: f64,
    throughput: f64,
    perfect_tx_ns: u64,
    mpdu_tx_ns: u64,
    retry_count: u32,
    samples_skipped: u32,
}

#[derive(Clone, Copy, Debug)]
struct Group {
    width: Width,
    gi: GuardInterval,
    nss: u8,
    /// Position in the sample table: row and column.
    index: usize,
    col: usize,
}

#[derive(Clone, Debug)]
pub struct MinstrelHt {
    fec: Fec,
    groups: Vec<Group>,
    rates: Vec<Rate>,
    sample_table: [[usize; SAMPLE_COLUMNS]; RATES],
    max_tp: usize,
    max_tp2: usize,
    max_prob: usize,
    txrate: usize,
    sample_group: usize,
    is_sampling: bool,
    sample_wait: u32,
    sample_tries: u32,
    sample_count: u32,
    samples_slow: u32,
    avg_ampdu_len: f64,
    ampdu_len: u32,
    ampdu_count: u32,
    long_retry: u32,
    total_packets: u64,
    next_update: SimTime,
}

impl MinstrelHt {
    pub fn new(caps: LinkCaps, mut rng: RngStream) -> Self {
        let gis: &[GuardInterval] = match caps.gi {
            GuardInterval::Normal800 => &[GuardInterval::Normal800],
            GuardInterval::Short400 => &[GuardInterval::Normal800, GuardInterval::Short400],
        };
        let mut groups = Vec::new();
        for width in Width::ALL.into_iter().filter(|w| *w <= caps.width) {
            for &gi in gis {
                for nss in 1..=caps.nss {
                    groups.push(Group { width, gi, nss, index: 0, col: 0 });
                }
            }
        }
        let mut m = MinstrelHt {
            fec: caps.fec,
            rates: vec![Rate::default(); groups.len() * RATES],
            groups,
            sample_table: [[0; SAMPLE_COLUMNS]; RATES],
            max_tp: 0,
            max_tp2: 0,
            max_prob: 0,
            txrate: 0,
            sample_group: 0,
            is_sampling: false,
            sample_wait: 0,
            sample_tries: INITIAL_SAMPLE_TRIES,
            sample_count: INITIAL_SAMPLE_COUNT,
            samples_slow: 0,
            avg_ampdu_len: 1.0,
            ampdu_len: 0,
            ampdu_count: 0,
            long_retry: 0,
            total_packets: 0,
            next_update: SimTime(UPDATE_INTERVAL_NS),
        };
        m.init_rates();
        m.init_sample_table(&mut rng);
        let lowest = m.lowest();
        (m.max_tp, m.max_tp2, m.max_prob, m.txrate) = (lowest, lowest, lowest, lowest);
        m
    }

    fn tx(&self, index: usize) -> TxVector {
        let g = &self.groups[index / RATES];
        TxVector { mcs: (index % RATES) as u8, width: g.width, nss: g.nss, gi: g.gi }
    }

    fn index_of(&self, tx: &TxVector) -> Option<usize> {
        let g = self.groups.iter().position(|g| g.width == tx.width && g.gi == tx.gi && g.nss == tx.nss)?;
        Some(g * RATES + usize::from(tx.mcs))
    }

    fn init_rates(&mut self) {
        for i in 0..self.rates.len() {
            let tx = self.tx(i);
            if !tx.is_valid() {
                continue;
            }
            let first = vht_ppdu_ns(&tx, FRAME_BYTES, self.fec, true);
            let r = &mut self.rates[i];
            r.supported = true;
            r.perfect_tx_ns = first;
            r.mpdu_tx_ns = first - vht_preamble_ns(tx.nss, true);
            self.rates[i].retry_count = self.retries(i);
        }
    }

    /// ns-3 `InitSampleTable`: column by column, each rate placed at a random free row.
    fn init_sample_table(&mut self, rng: &mut RngStream) {
        for col in 0..SAMPLE_COLUMNS {
            let mut taken = [false; RATES];
            for i in 0..RATES {
                let mut row = (i + rng.inner().random_range(0..=RATES)) % RATES;
                while taken[row] {
                    row = (row + 1) % RATES;
                }
                taken[row] = true;
                self.sample_table[row][col] = i;
            }
        }
    }

    fn lowest(&self) -> usize {
        self.rates.iter().position(|r| r.supported).unwrap_or(0)
    }

    pub fn choose(&mut self, _now: SimTime) -> TxVector {
        self.tx(self.txrate)
    }

    /// ns-3 `DoReportAmpduTxStatus`: the outcome of the PSDU sent at `r.tx`.
    pub fn report(&mut self, now: SimTime, r: &TxReport) {
        let Some(i) = self.index_of(&r.tx) else { return };
        let failed = r.mpdus - r.acked;
        self.ampdu_count += 1;
        self.ampdu_len += r.mpdus;
        self.count_packets(r.mpdus);
        self.rates[i].success += r.acked;
        self.rates[i].attempt += r.acked + failed;
        if r.acked == 0 && self.long_retry < self.chain_retries() {
            self.next_in_chain();
            return;
        }
        self.is_sampling = false;
        self.long_retry = 0;
        if now >= self.next_update {
            self.update_stats(now);
        }
        self.txrate = self.find_rate();
    }

    /// ns-3 `UpdatePacketCounters`: arm the next sample once the last one was used.
    fn count_packets(&mut self, mpdus: u32) {
        self.total_packets += u64::from(mpdus);
        if self.sample_wait == 0 && self.sample_tries == 0 && self.sample_count > 0 {
            self.sample_wait = SAMPLE_WAIT_BASE + 2 * self.avg_ampdu_len as u32;
            self.sample_tries = 1;
            self.sample_count -= 1;
        }
    }

    /// Tries the retry chain allows in all.
    fn chain_retries(&self) -> u32 {
        let rc = |i: usize| self.rates[i].retry_count;
        if self.is_sampling {
            1 + rc(self.max_tp2) + rc(self.max_prob)
        } else {
            rc(self.max_tp) + rc(self.max_tp2) + rc(self.max_prob)
        }
    }

    /// ns-3 `UpdateRate`: the next rate of the retry chain after a PSDU without BlockAck.
    fn next_in_chain(&mut self) {
        self.long_retry += 1;
        let rc = |i: usize| self.rates[i].retry_count;
        self.txrate = if self.is_sampling {
            if self.long_retry < 1 + rc(self.max_tp2) {
                self.max_tp2
            } else {
                self.max_prob
            }
        } else if self.long_retry < rc(self.max_tp) {
            self.max_tp
        } else if self.long_retry < rc(self.max_tp) + rc(self.max_tp2) {
            self.max_tp2
        } else {
            self.max_prob
        };
    }

    /// ns-3 `FindRate`: max_tp, or a sample when one is due and worth it.
    fn find_rate(&mut self) -> usize {
        if self.sample_wait == 0 && self.sample_tries != 0 {
            let s = self.next_sample();
            let rate = self.rates[s];
            if rate.supported
                && s != self.max_tp
                && s != self.max_tp2
                && s != self.max_prob
                && rate.ewma_prob <= NO_SAMPLE_ABOVE_PROB
            {
                let (tp2, prob) = (self.rates[self.max_tp2], self.rates[self.max_prob]);
                let fewer_streams = self.groups[s / RATES].nss < self.groups[self.max_tp / RATES].nss;
                let faster = rate.perfect_tx_ns < tp2.perfect_tx_ns
                    || (fewer_streams && rate.perfect_tx_ns < prob.perfect_tx_ns);
                if faster {
                    return self.start_sample(s);
                }
                self.samples_slow += 1;
                if rate.samples_skipped >= SLOW_SAMPLE_AFTER_SKIPS && self.samples_slow <= MAX_SLOW_SAMPLES {
                    return self.start_sample(s);
                }
            }
        }
        self.sample_wait = self.sample_wait.saturating_sub(1);
        self.max_tp
    }

    fn start_sample(&mut self, s: usize) -> usize {
        self.is_sampling = true;
        self.sample_tries -= 1;
        s
    }

    /// ns-3 `GetNextSample` / `SetNextSample`: this group's next table entry, then move to the next group.
    fn next_sample(&mut self) -> usize {
        let g = self.sample_group;
        let (row, col) = (self.groups[g].index, self.groups[g].col);
        let index = g * RATES + self.sample_table[row][col];
        self.sample_group = (g + 1) % self.groups.len();
        let next = &mut self.groups[self.sample_group];
        next.index += 1;
        if next.index >= RATES {
            next.index = 0;
            next.col = (next.col + 1) % SAMPLE_COLUMNS;
        }
        index
    }

    /// ns-3 `UpdateStats`.
    fn update_stats(&mut self, now: SimTime) {
        self.next_update = now + crate::sim::SimDuration::from_ns(UPDATE_INTERVAL_NS);
        self.samples_slow = 0;
        if let Some(len) = self.ampdu_len.checked_div(self.ampdu_count) {
            let new_len = f64::from(len);
            self.avg_ampdu_len = (new_len * (100.0 - EWMA_LEVEL) + self.avg_ampdu_len * EWMA_LEVEL) / 100.0;
            (self.ampdu_len, self.ampdu_count) = (0, 0);
        }
        let lowest = self.lowest();
        (self.max_tp, self.max_tp2, self.max_prob) = (lowest, lowest, lowest);
        for i in 0..self.rates.len() {
            let r = &mut self.rates[i];
            if !r.supported {
                continue;
            }
            if let Some(p) = (100 * r.success).checked_div(r.attempt) {
                r.samples_skipped = 0;
                let p = f64::from(p);
                r.ewma_prob =
                    if r.success_hist == 0 { p } else { (p * (100.0 - EWMA_LEVEL) + r.ewma_prob * EWMA_LEVEL) / 100.0 };
                r.throughput = throughput(r.ewma_prob, r.perfect_tx_ns);
                r.success_hist += u64::from(r.success);
            } else {
                r.samples_skipped += 1;
            }
            (r.success, r.attempt) = (0, 0);
            if r.throughput != 0.0 {
                self.rank_throughput(i);
                self.rank_probability(i);
            }
        }
        self.sample_count = SAMPLES_PER_GROUP * self.groups.len() as u32;
        for i in [self.max_tp, self.max_tp2, self.max_prob] {
            self.rates[i].retry_count = self.retries(i);
        }
    }

    /// ns-3 `SetBestStationThRates`.
    fn rank_throughput(&mut self, i: usize) {
        let (r, tp, tp2) = (self.rates[i], self.rates[self.max_tp], self.rates[self.max_tp2]);
        if r.throughput > tp.throughput || (r.throughput == tp.throughput && r.ewma_prob > tp.ewma_prob) {
            (self.max_tp2, self.max_tp) = (self.max_tp, i);
        } else if r.throughput > tp2.throughput || (r.throughput == tp2.throughput && r.ewma_prob > tp2.ewma_prob) {
            self.max_tp2 = i;
        }
    }

    /// ns-3 `SetBestProbabilityRate`.
    fn rank_probability(&mut self, i: usize) {
        let (r, best) = (self.rates[i], self.rates[self.max_prob]);
        let better =
            if r.ewma_prob > GOOD_PROB { r.throughput > best.throughput } else { r.ewma_prob > best.ewma_prob };
        if better {
            self.max_prob = i;
        }
    }

    /// ns-3 `CalculateRetransmits`: tries of rate `i` that fit in the 6 ms budget, 2..7 (1 below 1 %).
    fn retries(&self, i: usize) -> u32 {
        let r = &self.rates[i];
        if r.ewma_prob < 1.0 {
            return 1;
        }
        let ack_ns = SIFS_NS + non_ht_ppdu_ns(LegacyRate::Mbps24, BLOCK_ACK_BYTES);
        let data_ns = r.perfect_tx_ns + r.mpdu_tx_ns * (self.avg_ampdu_len.max(1.0) as u64 - 1);
        let mut cw = RETRY_CW_MIN;
        let mut cw_ns = cw / 2 * SLOT_NS;
        cw = ((cw + 1) * 2).min(RETRY_CW_MAX);
        cw_ns += cw / 2 * SLOT_NS;
        cw = ((cw + 1) * 2).min(RETRY_CW_MAX);
        let mut tx_ns = cw_ns + 2 * (data_ns + ack_ns);
        let mut count = MIN_RETRIES;
        loop {
            tx_ns += cw / 2 * SLOT_NS + ack_ns + data_ns;
            cw = ((cw + 1) * 2).min(RETRY_CW_MAX);
            if tx_ns >= RETRY_BUDGET_NS {
                break;
            }
            count += 1;
            if count >= MAX_RETRIES {
                break;
            }
        }
        count
    }
}

fn throughput(ewma_prob: f64, tx_ns: u64) -> f64 {
    if ewma_prob < MIN_PROB_FOR_TP {
        0.0
    } else {
        ewma_prob.min(MAX_PROB_FOR_TP) / (tx_ns as f64 * 1e-9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps() -> LinkCaps {
        LinkCaps { width: Width::Mhz20, gi: GuardInterval::Normal800, nss: 1, fec: Fec::Bcc }
    }

    /// Drive the manager from `*t` for `seconds`, one 10-MPDU A-MPDU per ms, over a link where
    /// MCS <= `good` always gets through and above it never.
    fn run(m: &mut MinstrelHt, t: &mut SimTime, good: u8, seconds: f64) -> Vec<u8> {
        let mut used = Vec::new();
        let until = *t + crate::sim::SimDuration::from_secs_f64(seconds);
        while *t < until {
            let now = *t;
            let tx = m.choose(now);
            used.push(tx.mcs);
            let acked = if tx.mcs <= good { 10 } else { 0 };
            m.report(now, &TxReport { tx, mpdus: 10, acked, rx_snr_db: None });
            *t = now + crate::sim::SimDuration::from_ns(1_000_000);
        }
        used
    }

    #[test]
    fn it_climbs_to_the_best_rate_the_link_carries_and_keeps_sampling() {
        let mut m = MinstrelHt::new(caps(), RngStream::new(3, "minstrel"));
        let used = run(&mut m, &mut SimTime(0), 6, 2.0);
        let last: Vec<u8> = used[used.len() - 500..].to_vec();
        let at_6 = last.iter().filter(|&&x| x == 6).count();
        assert!(at_6 > 400, "most of the last 500 PSDUs at MCS 6: {at_6}");
        assert!(last.iter().any(|&x| x != 6), "and some samples of other rates");
        assert_eq!(m.tx(m.max_tp).mcs, 6);
    }

    #[test]
    fn retries_fall_between_two_and_seven() {
        let mut m = MinstrelHt::new(caps(), RngStream::new(1, "minstrel"));
        run(&mut m, &mut SimTime(0), 8, 1.0);
        for i in [m.max_tp, m.max_tp2, m.max_prob] {
            assert!((MIN_RETRIES..=MAX_RETRIES).contains(&m.rates[i].retry_count));
        }
    }

    #[test]
    fn it_backs_off_when_the_channel_degrades() {
        // The EWMA forgets a rate at 75 % per 50 ms: within 1 s it settles on MCS 2.
        let mut m = MinstrelHt::new(caps(), RngStream::new(5, "minstrel"));
        let mut t = SimTime::ZERO;
        run(&mut m, &mut t, 7, 1.0);
        let used = run(&mut m, &mut t, 2, 1.0);
        let last: Vec<u8> = used[used.len() - 300..].to_vec();
        assert!(last.iter().filter(|&&x| x == 2).count() > 200, "{:?}", &last[..30]);
    }
}
