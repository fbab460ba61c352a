//! MAC (TS 36.321): HARQ entities, the eNB's view of uplink buffers (SR, BSR), the
//! schedulers, and the MAC PDU header size.
//!
//! ```text
//!  RLC buffer status ──► UeDemand ──► scheduler::Scheduler ──► NewTb ──► TbAssignment (+ HarqId)
//!  (DL: RLC's report;                  (RR / PF / MT; RBGs DL,           │
//!   UL: uplink::UplinkRequests,         contiguous RBs UL)               ▼
//!   fed by SR and BSR)                             harq::HarqEntity ◄── PHY ACK/NACK
//! ```
//! The cell (`lte::cell`) owns the TTI loop: it schedules HARQ retransmissions first, marks
//! their RBs busy, asks the scheduler for new TBs, and gives each a free HARQ process, as
//! ns-3 LENA's FF MAC schedulers do (lte-design.rst, "MAC").

pub mod harq;
pub mod link_adaptation;
pub mod pdcch;
pub mod scheduler;
pub mod uplink;

use serde::{Deserialize, Serialize};

/// Where a pending RLC STATUS PDU goes in a MAC PDU (a cell's `mac.status_pdu`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusPduPlacement {
    /// First, with data after it in the same transport block (TS 36.322 §5.1.3.1.1 gives STATUS
    /// PDUs priority; TS 36.321 §6.1.2 multiplexes several MAC SDUs in one MAC PDU).
    WithData,
    /// Alone in its downlink transport block, the rest padding: ns-3 LENA's eNB MAC gives each
    /// logical channel one opportunity per TB (`LteEnbMac::DoSchedDlConfigInd`), and
    /// `LteRlcAm::DoNotifyTxOpportunity` answers it with the pending STATUS PDU and returns. On the
    /// uplink LENA's UE MAC gives the STATUS PDU an opportunity of its own and the data another
    /// in the same TB (lte-ue-mac.cc `DoReceiveLteControlMessage`, UL_DCI), so there it goes with data.
    Alone,
}

/// The subframe pipeline around the scheduler (a cell's `mac.pipeline`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MacPipeline {
    /// A TB goes on air in the TTI it is scheduled in and is received at that TTI's end; a UE
    /// builds an uplink MAC PDU for the TTI it sends it in (TS 36.321 §5.4.1: the HARQ entity
    /// obtains the MAC PDU for the TTI of the transmission).
    Immediate,
    /// ns-3.44 LENA's: a downlink TB goes on air [`LENA_MAC_TO_CHANNEL_TTIS`] after the scheduler
    /// built it (`LteEnbPhy::MacToChannelDelay`; its HARQ feedback moves with it) and its reception
    /// ends 1 ns before that subframe does (lte-enb-phy.cc `DL_DATA_DURATION` = 785713 ns after
    /// the 214286 ns control region), so the UE's answer is queued before its next subframe; the
    /// UE builds an uplink MAC PDU when the grant arrives, 4 TTIs before its PUSCH (lte-ue-mac.cc
    /// `DoReceiveLteControlMessage` asks the RLC on the UL DCI; lte-ue-phy.cc `DoSendMacPdu`
    /// queues the PDU `UL_PUSCH_TTIS_DELAY` TTIs).
    Lena,
}

/// `LteEnbPhy::MacToChannelDelay` default (lte-enb-phy.cc): the eNB MAC schedules the subframe
/// this many TTIs ahead and the PHY holds what it built that long.
pub const LENA_MAC_TO_CHANNEL_TTIS: u64 = 2;

/// How much before its subframe's end LENA's downlink TB is received (lte-enb-phy.cc
/// `DL_DATA_DURATION` = 785714 - 1 ns, after `DL_CTRL_DELAY_FROM_SUBFRAME_START` = 214286 ns).
pub const LENA_DL_RX_BEFORE_SUBFRAME_END_NS: u64 = 1;

/// MAC subheader of a MAC SDU with a 7-bit L field (TS 36.321 §6.1.2, Figure 6.1.2-1:
/// R/F/E/LCID + F/L), for SDUs of fewer than 128 bytes.
pub const SUBHEADER_SHORT_L_BYTES: u32 = 2;
/// MAC subheader with a 15-bit L field (TS 36.321 §6.1.2, Figure 6.1.2-2), SDUs of 128 bytes or more.
pub const SUBHEADER_LONG_L_BYTES: u32 = 3;
/// Largest SDU a 7-bit L field can describe plus one (TS 36.321 §6.2.1: F = 0 when L < 128).
pub const SHORT_L_LIMIT_BYTES: u32 = 128;
/// The last subheader of a MAC PDU carries no L field: R/R/E/LCID only (TS 36.321 §6.1.2).
pub const SUBHEADER_LAST_BYTES: u32 = 1;
/// A Short BSR MAC control element: LCG ID + 6-bit buffer size (TS 36.321 §6.1.3.1, Figure 6.1.3.1-1).
pub const SHORT_BSR_BYTES: u32 = 1;
/// A MAC control element's subheader: R/R/E/LCID, no L field (TS 36.321 §6.1.2).
pub const CE_SUBHEADER_BYTES: u32 = 1;
/// Bytes a Short BSR adds to an uplink MAC PDU: the CE and its subheader.
pub const BSR_CE_BYTES: u32 = SHORT_BSR_BYTES + CE_SUBHEADER_BYTES;

/// The largest MAC SDU subheader (15-bit L field): reserve it before asking RLC for a PDU.
pub const MAX_SUBHEADER_BYTES: u32 = SUBHEADER_LONG_L_BYTES;

/// Subheader bytes of a MAC SDU of `sdu_bytes` with its L field (TS 36.321 §6.1.2): 2 under
/// 128 bytes, else 3. Counting every SDU this way over-counts the PDU's last subheader by 1
/// or 2 bytes (it needs no L field), which the TB's padding absorbs.
pub fn subheader_bytes(sdu_bytes: u32) -> u32 {
    mac_subheader_bytes(sdu_bytes, false)
}

/// MAC header bytes of a MAC PDU carrying `n_sdus` RLC PDUs of `sdu_bytes` in all
/// (TS 36.321 §6.1.2): every subheader but the last has an L field, 2 bytes for SDUs under
/// 128 bytes and 3 bytes otherwise; the last is 1 byte.
///
/// The form: `1 + (n_sdus - 1) × (2 if sdu_bytes < 128 else 3)`. It is exact when the SDUs
/// total under 128 bytes (then each is under 128) and when there is one SDU; with several
/// SDUs totalling 128 bytes or more it counts 3 bytes per non-last subheader, at most one
/// byte per SDU above the exact size (use [`mac_subheader_bytes`] SDU by SDU when sizes are
/// known). Padding is not counted: it fills what the TB leaves, with 1- or 2-byte padding
/// subheaders that themselves fit in the padding (§6.1.2). 0 SDUs: 0 bytes.
pub fn mac_overhead_bytes(n_sdus: u32, sdu_bytes: u32) -> u32 {
    if n_sdus == 0 {
        return 0;
    }
    let non_last = if sdu_bytes < SHORT_L_LIMIT_BYTES { SUBHEADER_SHORT_L_BYTES } else { SUBHEADER_LONG_L_BYTES };
    SUBHEADER_LAST_BYTES + (n_sdus - 1) * non_last
}

/// Exact subheader bytes of one MAC SDU of `sdu_bytes` (TS 36.321 §6.1.2): 1 if it is the
/// last subheader of the PDU, else 2 (L < 128) or 3.
pub fn mac_subheader_bytes(sdu_bytes: u32, last: bool) -> u32 {
    match (last, sdu_bytes < SHORT_L_LIMIT_BYTES) {
        (true, _) => SUBHEADER_LAST_BYTES,
        (false, true) => SUBHEADER_SHORT_L_BYTES,
        (false, false) => SUBHEADER_LONG_L_BYTES,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked from TS 36.321 §6.1.2: one SDU = 1 byte; three small SDUs = 2 + 2 + 1;
    /// three SDUs of 1400 bytes in all = 3 + 3 + 1.
    #[test]
    fn overhead_counts_l_fields_on_all_but_the_last_subheader() {
        assert_eq!(mac_overhead_bytes(0, 0), 0);
        assert_eq!(mac_overhead_bytes(1, 1500), 1);
        assert_eq!(mac_overhead_bytes(3, 120), 5);
        assert_eq!(mac_overhead_bytes(3, 1400), 7);
        assert_eq!(mac_overhead_bytes(2, 127), 3);
        assert_eq!(mac_overhead_bytes(2, 128), 4);
        assert_eq!(BSR_CE_BYTES, 2);
    }

    #[test]
    fn subheader_with_l_field_is_2_or_3_bytes() {
        assert_eq!(
            (subheader_bytes(40), subheader_bytes(127), subheader_bytes(128), subheader_bytes(1500)),
            (2, 2, 3, 3)
        );
        assert_eq!(MAX_SUBHEADER_BYTES, 3);
    }

    #[test]
    fn exact_subheaders_sum_to_at_most_the_simple_form() {
        let sdus = [40u32, 1400, 60];
        let exact: u32 = sdus.iter().enumerate().map(|(i, b)| mac_subheader_bytes(*b, i == sdus.len() - 1)).sum();
        assert_eq!(exact, 2 + 3 + 1);
        assert!(exact <= mac_overhead_bytes(3, sdus.iter().sum()));
    }
}
