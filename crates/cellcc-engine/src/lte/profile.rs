//! The two networks a cell can stand for: a radio access network as operators run it (the
//! default), or ns-3.44 LENA (`profile = "lena"`), for cross-checks against ns-3 and for the
//! studies that ran on it. A profile is a named set of choices, not a fork: every mechanism lives
//! once, in its own module, and the profile picks its variant and its default values here, in
//! one table. A field the scenario sets explicitly always wins over the profile.
//!
//! Where 3GPP fixes a value it is used by both profiles unless LENA departs from it. Where 3GPP
//! leaves the choice to the eNB implementation, the operator profile takes the shipped
//! configuration of srsRAN 4G's eNB (`srsenb/rr.conf.example`, `enb.conf.example`: the
//! QCI 9 default bearer, the PUCCH and PHICH set-up), a real eNB that commercial phones attach
//! to, or the published source named at the constant. docs/lte.md tabulates every row.

use serde::{Deserialize, Serialize};

use super::mac::link_adaptation::{OllaConfig, UlMcsRule};
use super::mac::pdcch::{PdcchConfig, PhichNg};
use super::mac::scheduler::rbg::LastRbg;
use super::mac::scheduler::GrantSizing;
use super::mac::uplink::UplinkRequestsMode;
use super::mac::{MacPipeline, StatusPduPlacement};
use super::network::handover::{Forwarding, HandoverSettings};
use super::phy::sounding::UlMeasurement;
use super::rlc::{AmConfig, MaxRetxAction, RlcMode, TmConfig, UmConfig};
use crate::scenario::DlCqiMode;

/// Which network a cell's unset fields describe (a cell's `profile` field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RanProfile {
    /// 3GPP and common eNB practice (the sources of [`OPERATOR`]).
    #[default]
    Operator,
    /// ns-3.44 LENA's behaviour in every respect the engine models (the sources of [`LENA`]).
    Lena,
}

impl RanProfile {
    /// The profile's choices.
    pub fn defaults(self) -> &'static ProfileDefaults {
        match self {
            RanProfile::Operator => &OPERATOR,
            RanProfile::Lena => &LENA,
        }
    }
}

/// Every value and variant a profile sets: the defaults of the cell fields that depend on it.
#[derive(Debug)]
pub struct ProfileDefaults {
    pub cqi_period_ms: u32,
    pub dl_mcs_from: DlCqiMode,
    pub dl_harq_max_retx: u8,
    pub ul_harq_max_retx: u8,
    pub sr_period_ms: u32,
    pub srs_period_ms: u32,
    pub uplink_requests: UplinkRequestsMode,
    pub ul_mcs_from: UlMcsRule,
    pub ul_measurement: UlMeasurement,
    /// `None`: no outer loop.
    pub olla: Option<OllaConfig>,
    pub pdcch: PdcchConfig,
    pub grant_sizing: GrantSizing,
    pub status_pdu: StatusPduPlacement,
    pub last_rbg: LastRbg,
    pub mac_pipeline: MacPipeline,
    pub rlc_mode: RlcMode,
    pub rlc_tm: TmConfig,
    pub rlc_um: UmConfig,
    pub rlc_am: AmConfig,
    /// A network's handover (`lte::network::handover`).
    pub handover: HandoverSettings,
}

/// srsRAN 4G `rr.conf.example`, QCI 9 (the default bearer): `poll_byte = 750` (kB, TS 36.331
/// PollByte kB750) in bytes.
const SRSRAN_QCI9_POLL_BYTE: u32 = 750 * 1000;

/// A network as operators run it.
pub static OPERATOR: ProfileDefaults = ProfileDefaults {
    // srsRAN 4G enb `cqi_report_cnfg`: periodic wideband CQI every 40 ms (TS 36.213 Table 7.2.2-1A
    // N_pd; 1 ms is no configurable period).
    cqi_period_ms: 40,
    // Mode 1-0 wideband CQI, MCS from it (TS 36.213 §7.2.1); OLLA absorbs what it misses.
    dl_mcs_from: DlCqiMode::Wideband,
    // The downlink's limit is the eNB's (TS 36.321 §5.3.2); it takes the uplink default below.
    dl_harq_max_retx: 4,
    // TS 36.331 §9.2.2 default MAC-MainConfig: maxHARQ-Tx n5 (4 retransmissions).
    ul_harq_max_retx: 4,
    // srsRAN 4G enb `sched_request_cnfg`: SR period 20 ms (TS 36.213 Table 10.1.5-1, I_SR 15-34).
    sr_period_ms: 20,
    // TS 36.213 Table 8.2-1 T_SRS = 40 ms (as LENA's default: a mid-table period).
    srs_period_ms: 40,
    // TS 36.321 §5.4.4-5.4.5: SR on PUCCH, then a BSR in each uplink TB.
    uplink_requests: UplinkRequestsMode::SrBsr,
    // The eNB's effective SINR over the granted RBs (MIESM, as the downlink BLER model).
    ul_mcs_from: UlMcsRule::EffectiveSinr,
    // An eNB measures the uplink on every DMRS it receives, not only the SRS (TS 36.211 §5.5.2).
    ul_measurement: UlMeasurement::SrsAndPusch,
    olla: Some(OllaConfig::DEFAULT),
    pdcch: PdcchConfig { capacity: true, phich_ng: PhichNg::OneSixth, target_bler: 0.01 },
    grant_sizing: GrantSizing::ToNeed,
    // TS 36.321 §6.1.2: one MAC PDU carries several MAC SDUs (STATUS first, TS 36.322 §5.1.3.1.1).
    status_pdu: StatusPduPlacement::WithData,
    // TS 36.213 §7.1.6.1: the last RBG holds N_RB mod P RBs and is allocated like the others.
    last_rbg: LastRbg::Used,
    // No eNB or UE processing pipeline is assumed (what an eNB's takes is its implementation's):
    // TS 36.321 §5.4.1 builds the MAC PDU for the TTI of the transmission.
    mac_pipeline: MacPipeline::Immediate,
    // TS 23.203 Table 6.1.7: QCI 9 (the default bearer, TCP) has a 10^-6 loss budget: RLC AM.
    rlc_mode: RlcMode::Am,
    rlc_tm: TmConfig { tx_buffer_bytes: super::rlc::DEFAULT_TX_BUFFER_BYTES },
    // srsRAN 4G rr.conf.example QCI 7 (its UM bearer): t-Reordering 45 ms.
    rlc_um: UmConfig { tx_buffer_bytes: super::rlc::DEFAULT_TX_BUFFER_BYTES, sn_bits: 10, t_reordering_ms: 45.0 },
    // srsRAN 4G rr.conf.example QCI 9: t-PollRetransmit 120 ms, pollPDU p64, pollByte kB750,
    // maxRetxThreshold t16 (its DL side t32: `dl_max_retx_thresh`; one value here for both
    // ends), t-Reordering 50 ms, t-StatusProhibit 50 ms; reaching maxRetx is an RLF (TS 36.322 §5.2.1).
    rlc_am: AmConfig {
        tx_buffer_bytes: super::rlc::DEFAULT_TX_BUFFER_BYTES,
        t_reordering_ms: 50.0,
        t_poll_retransmit_ms: 120.0,
        t_status_prohibit_ms: 50.0,
        poll_pdu: Some(64),
        poll_byte: Some(SRSRAN_QCI9_POLL_BYTE),
        max_retx_threshold: 16,
        on_max_retx: MaxRetxAction::Discard,
    },
    handover: HandoverSettings {
        enabled: true,
        // srsRAN 4G rr.conf.example `meas_report_desc`: a3_offset = 6 and hysteresis = 0, in TS
        // 36.331's 0.5 dB units; time_to_trigger = 480 ms; `rsrp_config` (filterCoefficient) = 4.
        a3_offset_db: 3.0,
        hysteresis_db: 0.0,
        time_to_trigger_ms: 480,
        filter_coefficient: 4,
        // TS 36.133 §8.1.2.2.1: intra-frequency RSRP is measured over 200 ms.
        measurement_period_ms: 200,
        // The report on PUSCH (half the 20 ms SR period, then the 4 ms grant), X2 Handover
        // Request and Acknowledge (twice `x2_delay_ms`), the command on PDSCH (1 ms): 25 ms.
        preparation_ms: 25.0,
        // TS 36.331 §11.2 RRC procedure delay of a reconfiguration with mobilityControlInfo, 15 ms,
        // plus TS 36.133 §5.1.2.1.2 T_interrupt = T_search (0, a known cell) + T_IU (up to 10 ms
        // with a PRACH occasion every 10 ms, srsRAN 4G's prach config index 3) + 20 ms: 45 ms.
        interruption_ms: 45.0,
        // TS 36.300 §10.1.2.3: unacknowledged (AM) or untransmitted (UM) SDUs, then fresh data.
        forwarding: Forwarding::Lossless,
        // Assumed: one metro backhaul hop between neighbouring sites (3GPP sets no X2 latency).
        x2_delay_ms: 5.0,
    },
};

/// ns-3.44 LENA (each value names the ns-3 attribute or source line it reproduces).
pub static LENA: ProfileDefaults = ProfileDefaults {
    // LteUePhy periodic wideband CQI every TTI (`m_p10CqiPeriodicity` 1 ms).
    cqi_period_ms: 1,
    // PfFfMacScheduler and FdMtFfMacScheduler: the MCS from the worst A30 sub-band CQI
    // (`worstCqi`); RrFfMacScheduler takes the wideband P10 CQI (`CellSpec::resolve` picks it).
    dl_mcs_from: DlCqiMode::WorstSubband,
    // LteEnbMac / LteUeMac: 4 transmissions hard-coded (`rv == 3 ... drop process`).
    dl_harq_max_retx: 3,
    ul_harq_max_retx: 3,
    // No SR: the ideal BSR (below) stands for it; the field is unused by that mode.
    sr_period_ms: 1,
    // LteEnbRrc::SrsPeriodicity = 40 ms.
    srs_period_ms: 40,
    // LteUeMac's ideal BSR control message every TTI the buffer changed, 4 TTIs late
    // (UL_PUSCH_TTIS_DELAY in the UE PHY's control-message queue).
    uplink_requests: UplinkRequestsMode::IdealBsr,
    // The schedulers' Shannon-gap CQI of the minimum SINR over the band (DoSchedUlTriggerReq).
    ul_mcs_from: UlMcsRule::LenaMinimumSinr,
    // FfMacScheduler::UlCqiFilter = SRS_UL_CQI.
    ul_measurement: UlMeasurement::SrsOnly,
    olla: None,
    // LENA allocates DCIs without a CCE budget; its control errors use one curve for the band.
    pdcch: PdcchConfig { capacity: false, phich_ng: PhichNg::OneSixth, target_bler: 0.01 },
    // PF gives each RBG to the best metric, RR splits evenly, whatever the buffers.
    grant_sizing: GrantSizing::WholeShare,
    // LteRlcAm::DoNotifyTxOpportunity sends a pending STATUS PDU alone in its opportunity.
    status_pdu: StatusPduPlacement::Alone,
    // `rbgNum = m_dlBandwidth / rbgSize`: the last partial RBG is never scheduled.
    last_rbg: LastRbg::Unused,
    // LteEnbPhy::MacToChannelDelay 2, DL_DATA_DURATION, LteUeMac building on the UL DCI.
    mac_pipeline: MacPipeline::Lena,
    // LteEnbRrc::EpsBearerToRlcMapping = RLC_UM_ALWAYS.
    rlc_mode: RlcMode::Um,
    // LteRlc*::MaxTxBufferSize = 10240 bytes.
    rlc_tm: TmConfig { tx_buffer_bytes: super::rlc::LENA_TX_BUFFER_BYTES },
    // LteRlcUm::ReorderingTimer = 100 ms; 10-bit SN (a 512-SN window).
    rlc_um: UmConfig { tx_buffer_bytes: super::rlc::LENA_TX_BUFFER_BYTES, sn_bits: 10, t_reordering_ms: 100.0 },
    // LteRlcAm: ReorderingTimer 10 ms, PollRetransmitTimer 20 ms, StatusProhibitTimer 10 ms;
    // m_pollPdu 1, m_pollByte 50, m_maxRetxThreshold 5 hard-coded, reaching it only logged.
    rlc_am: AmConfig {
        tx_buffer_bytes: super::rlc::LENA_TX_BUFFER_BYTES,
        t_reordering_ms: 10.0,
        t_poll_retransmit_ms: 20.0,
        t_status_prohibit_ms: 10.0,
        poll_pdu: Some(1),
        poll_byte: Some(50),
        max_retx_threshold: 5,
        on_max_retx: MaxRetxAction::KeepRetransmitting,
    },
    handover: HandoverSettings {
        enabled: true,
        // A3RsrpHandoverAlgorithm: a3Offset 0, Hysteresis 3 dB, TimeToTrigger 256 ms.
        a3_offset_db: 0.0,
        hysteresis_db: 3.0,
        time_to_trigger_ms: 256,
        // LteEnbRrc::RsrpFilterCoefficient = 4; LteUePhy::UeMeasurementsFilterPeriod = 200 ms.
        filter_coefficient: 4,
        measurement_period_ms: 200,
        // Ideal RRC (lte-rrc-protocol-ideal.cc RRC_IDEAL_MSG_DELAY = 0) and an X2 link of
        // NoBackhaulEpcHelper::X2LinkDelay = 0: the command follows the report at once.
        preparation_ms: 0.0,
        // The non-contention random access at the target (LteUeMac preamble, RAR, then the
        // ideal RRC's Reconfiguration Complete), as measured on ns-3.44 (docs/lte/network.md).
        interruption_ms: LENA_INTERRUPTION_MS,
        // lte-enb-rrc.cc UeManager::SendData, HANDOVER_LEAVING: S1 data arriving at the source is
        // forwarded over X2-U; lossless handover is not supported (lte-design.rst "X2").
        forwarding: Forwarding::Seamless,
        x2_delay_ms: 0.0,
    },
};

/// ns-3.44 LENA's handover interruption, ms: from the UE's HandoverStart to its HandoverEndOk
/// trace, 4.213 ms in examples/crosscheck/lte-x2-handover.toml (`cellcc crosscheck --against
/// ns3`, ideal RRC): the command arrives a few µs after a TTI boundary (the X2 messages on their
/// 10 Gbit/s link), the random access completes 4 subframes later plus LENA's sub-subframe PHY
/// offsets. The engine counts the 4 whole TTIs (commands and attachments on TTI boundaries).
pub const LENA_INTERRUPTION_MS: f64 = 4.0;
