//! cellcc's ns-3 driver, diagnostics of an LTE run (docs/ns3.md, "Diagnostic options"): never on
//! by default; run.py adds the record only when CELLCC_NS3_DIAG asks for it.
//!
//!   diag fading=both|dl|serving|replay|none ul_pc=off|open|closed ul_cqi=srs|pusch srs_ms=scenario|2|5|10|20|40|80 [trace=DIR]
//!
//! - fading: `both` is LteHelper's own use (one TraceFadingLossModel on both channels,
//!   lte-helper.cc ChannelModelInitialization); `dl` adds it to the downlink channel only, so the
//!   uplink sees path loss alone; `serving` fades only the links to and from the serving eNB, on
//!   both channels (the interfering cells' links see path loss alone, as the engine's do);
//!   `replay` is `serving` with the one-UE trace layout run.py writes for it (every window at
//!   offset 1 ms, so the serving link replays the engine's TTI k at scenario time k ms);
//!   `none` installs no fading.
//! - ul_pc: `off` keeps the backend's mapping of the scenario's `ul_power_control`; `open` /
//!   `closed` turn on LteUePowerControl (TS 36.213 §5.1.1.1), ClosedLoop false / true.
//! - ul_cqi: FfMacScheduler::UlCqiFilter, SRS_UL_CQI (LENA's default) or PUSCH_UL_CQI.
//! - srs_ms: LteEnbRrc::SrsPeriodicity, how often the UE sounds the uplink; `scenario` keeps the
//!   cell's `uplink.srs_period_ms` (lte.cc).
//! - trace: per-packet events written to DIR/diag.csv (t_ns,event,bytes,value), data radio
//!   bearers only: `dl_rlc_in` (eNB PDCP TxPDU: an SDU handed to the downlink RLC, accepted or
//!   not), `dl_rlc_drop` (the RLC's TxDrop), `ul_tx` (UE PDCP TxPDU: an uplink SDU, the TCP ACKs),
//!   `ul_rx` (eNB PDCP RxPDU; value = its PDCP delay ns), `ul_tb` (eNB UlPhyReception; bytes = TB
//!   size, value = MCS, or -1 - MCS if the TB failed), `dl_tb` (the same at the UE).

#include "driver.h"

#include "ns3/lte-module.h"
#include "ns3/trace-fading-loss-model.h"

namespace cellcc
{

namespace
{

/// A trace fading model applied only to the links of one eNB (`fading=serving`): every other
/// link's PSD passes unchanged. The inner model keeps its own per-link random windows.
class ServingLinkFading : public SpectrumPropagationLossModel
{
  public:
    ServingLinkFading(Ptr<TraceFadingLossModel> inner, Ptr<const MobilityModel> serving)
        : m_inner(inner),
          m_serving(serving)
    {
    }

  private:
    Ptr<SpectrumValue> DoCalcRxPowerSpectralDensity(Ptr<const SpectrumSignalParameters> params,
                                                    Ptr<const MobilityModel> a,
                                                    Ptr<const MobilityModel> b) const override
    {
        if (a == m_serving || b == m_serving)
        {
            return m_inner->CalcRxPowerSpectralDensity(params, a, b);
        }
        return params->psd->Copy();
    }

    int64_t DoAssignStreams(int64_t stream) override
    {
        return m_inner->AssignStreams(stream);
    }

    Ptr<TraceFadingLossModel> m_inner;
    Ptr<const MobilityModel> m_serving;
};

/// The scenario's fading trace as LteHelper::ChannelModelInitialization would build it.
Ptr<TraceFadingLossModel>
TraceFading(const Record& f, const std::string& dir)
{
    auto m = CreateObject<TraceFadingLossModel>();
    ApplyFadingAttributes(f, dir, [&](auto& n, auto& v) { m->SetAttribute(n, v); });
    m->Initialize();
    return m;
}

FILE* g_diagOut = nullptr;
//! LCIDs 1 and 2 are SRB1 and SRB2 (TS 36.321 Table 6.2.1-1): signalling, not a data bearer.
constexpr uint8_t kLastSrbLcid = 2;

void
Event(const char* what, uint64_t bytes, int64_t value)
{
    std::fprintf(g_diagOut,
                 "%lld,%s,%llu,%lld\n",
                 static_cast<long long>(NowNs()),
                 what,
                 static_cast<unsigned long long>(bytes),
                 static_cast<long long>(value));
}

void
OnDlRlcIn(uint16_t, uint8_t lcid, uint32_t size)
{
    if (lcid > kLastSrbLcid)
    {
        Event("dl_rlc_in", size, 0);
    }
}

void
OnDlRlcDrop(Ptr<const Packet> p)
{
    Event("dl_rlc_drop", p->GetSize(), 0);
}

void
OnUlTx(uint16_t, uint8_t lcid, uint32_t size)
{
    if (lcid > kLastSrbLcid)
    {
        Event("ul_tx", size, 0);
    }
}

void
OnUlRx(uint16_t, uint8_t lcid, uint32_t size, uint64_t delayNs)
{
    if (lcid > kLastSrbLcid)
    {
        Event("ul_rx", size, static_cast<int64_t>(delayNs));
    }
}

void
OnTb(const char* what, PhyReceptionStatParameters p)
{
    Event(what, p.m_size, p.m_correctness ? p.m_mcs : -1 - int64_t{p.m_mcs});
}

} // namespace

void
ConfigureDiag(const Record& d)
{
    if (d.Str("srs_ms") != "scenario")
    {
        Config::SetDefault("ns3::LteEnbRrc::SrsPeriodicity", UintegerValue(d.U64("srs_ms")));
    }
    const std::string& pc = d.Str("ul_pc");
    if (pc != "off")
    {
        Config::SetDefault("ns3::LteUePhy::EnableUplinkPowerControl", BooleanValue(true));
        Config::SetDefault("ns3::LteUePowerControl::ClosedLoop", BooleanValue(pc == "closed"));
    }
}

bool
HelperFading(const Record* d)
{
    return !d || d->Str("fading") == "both";
}

void
SetUpDiag(Ptr<LteHelper> h, const Record& d)
{
    auto filter = d.Str("ul_cqi") == "pusch" ? FfMacScheduler::PUSCH_UL_CQI : FfMacScheduler::SRS_UL_CQI;
    h->SetSchedulerAttribute("UlCqiFilter", EnumValue(filter));
}

void
AddDiagFading(Ptr<LteHelper> h, const Record& d, const Record& f, const std::string& dir, Ptr<Node> enb)
{
    // The helper's channels exist once InstallEnbDevice has initialised it.
    const std::string mode = d.Str("fading");
    if (mode == "dl")
    {
        h->GetDownlinkSpectrumChannel()->AddSpectrumPropagationLossModel(TraceFading(f, dir));
    }
    else if (mode == "serving" || mode == "replay")
    {
        auto serving = enb->GetObject<MobilityModel>();
        auto m = TraceFading(f, dir);
        h->GetDownlinkSpectrumChannel()->AddSpectrumPropagationLossModel(CreateObject<ServingLinkFading>(m, serving));
        h->GetUplinkSpectrumChannel()->AddSpectrumPropagationLossModel(CreateObject<ServingLinkFading>(m, serving));
    }
}

void
StartDiagTrace(const Record& d, NetDeviceContainer enbDevs, NetDeviceContainer ueDevs)
{
    auto it = d.fields.find("trace");
    if (it == d.fields.end())
    {
        return;
    }
    g_diagOut = std::fopen((it->second + "/diag.csv").c_str(), "w");
    if (!g_diagOut)
    {
        throw std::runtime_error("cannot write " + it->second + "/diag.csv");
    }
    std::fprintf(g_diagOut, "t_ns,event,bytes,value\n");
    auto enb = DynamicCast<LteEnbNetDevice>(enbDevs.Get(0));
    enb->GetPhy()->GetUlSpectrumPhy()->TraceConnectWithoutContext("UlPhyReception", MakeBoundCallback(&OnTb, "ul_tb"));
    std::string enbPath = "/NodeList/" + std::to_string(enb->GetNode()->GetId()) + "/DeviceList/*/LteEnbRrc/UeMap/*";
    Config::ConnectWithoutContext(enbPath + "/DataRadioBearerMap/*/LtePdcp/TxPDU", MakeCallback(&OnDlRlcIn));
    Config::ConnectWithoutContext(enbPath + "/DataRadioBearerMap/*/LtePdcp/RxPDU", MakeCallback(&OnUlRx));
    Config::ConnectWithoutContext(enbPath + "/DataRadioBearerMap/*/LteRlc/TxDrop", MakeCallback(&OnDlRlcDrop));
    for (uint32_t j = 0; j < ueDevs.GetN(); j++)
    {
        auto ue = DynamicCast<LteUeNetDevice>(ueDevs.Get(j));
        ue->GetPhy()->GetDlSpectrumPhy()->TraceConnectWithoutContext("DlPhyReception",
                                                                     MakeBoundCallback(&OnTb, "dl_tb"));
        std::string uePath = "/NodeList/" + std::to_string(ue->GetNode()->GetId()) + "/DeviceList/*/LteUeRrc";
        Config::ConnectWithoutContext(uePath + "/DataRadioBearerMap/*/LtePdcp/TxPDU", MakeCallback(&OnUlTx));
    }
}

void
StopDiagTrace()
{
    if (g_diagOut)
    {
        std::fclose(g_diagOut);
        g_diagOut = nullptr;
    }
}

} // namespace cellcc
