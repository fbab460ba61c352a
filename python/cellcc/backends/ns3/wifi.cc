//! cellcc's ns-3 driver, the Wi-Fi BSS: one 802.11ac AP and its stations on SpectrumWifiPhy,
//! from the plan's `bss` and `sta` records (wifi.py says what each field maps to).
//!
//!   bss ap= width_mhz= gi_ns= ldpc= manager= mcs= rts_bytes= max_ampdu= queue= lifetime_s= tx_dbm=
//!       nf_db= loss=log_distance|friis exponent= ref_m= ref_db= x= y= z= nss=
//!       <ac>_aifsn= <ac>_cw_min= <ac>_cw_max= <ac>_txop_limit_us=   (ac: bk, be, vi, vo)
//!   sta node= x= y= z= nss=
//!
//! What it measures for the `wifi` table (wifi.csv, cumulative per station, direction and slot
//! end): every data PSDU a device starts sending (`WifiPhy::PhyTxPsduBegin`): PPDUs, the sum of
//! their MCS, MPDUs, octets and air time.

#include "driver.h"

#include <array>

#include "ns3/mobility-module.h"
#include "ns3/propagation-module.h"
#include "ns3/spectrum-module.h"
#include "ns3/wifi-module.h"

namespace cellcc
{

/// Per station (1..n) and direction (0 dl, 1 ul): what its data PPDUs added up to.
struct WifiLinkCounters
{
    uint64_t ppdus = 0;
    uint64_t mcsSum = 0;
    uint64_t mpdus = 0;
    uint64_t bytes = 0;
    int64_t airtimeNs = 0;
};

struct WifiBss
{
    /// Device of each station, 0 = the AP.
    std::vector<Ptr<WifiNetDevice>> devices;
    std::map<Mac48Address, uint32_t> stationOf;
    std::vector<std::array<WifiLinkCounters, 2>> counters;
    WifiPhyBand band = WIFI_PHY_BAND_5GHZ;
};

namespace
{

/// A data PSDU leaves station `from`'s PHY.
void
OnPsduBegin(WifiBss* bss, uint32_t from, WifiConstPsduMap psdus, WifiTxVector tx, double)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        if (!h.IsQosData())
        {
            continue;
        }
        auto it = bss->stationOf.find(psdu->GetAddr1());
        if (it == bss->stationOf.end())
        {
            continue;
        }
        uint32_t sta = from == 0 ? it->second : from;
        WifiLinkCounters& c = bss->counters[sta][from == 0 ? 0 : 1];
        c.ppdus++;
        c.mcsSum += tx.GetMode().GetMcsValue();
        c.mpdus += psdu->GetNMpdus();
        c.bytes += psdu->GetSize();
        c.airtimeNs += WifiPhy::CalculateTxDuration(psdu->GetSize(), tx, bss->band).GetNanoSeconds();
    }
}

Ptr<PropagationLossModel>
LossModel(const Record& r)
{
    if (r.Str("loss") == "friis")
    {
        return CreateObject<FriisPropagationLossModel>();
    }
    auto m = CreateObject<LogDistancePropagationLossModel>();
    m->SetAttribute("Exponent", DoubleValue(r.Num("exponent")));
    m->SetAttribute("ReferenceDistance", DoubleValue(r.Num("ref_m")));
    m->SetAttribute("ReferenceLoss", DoubleValue(r.Num("ref_db")));
    return m;
}

void
ConfigureManager(WifiHelper& wifi, const Record& r)
{
    const std::string& manager = r.Str("manager");
    UintegerValue rts(r.U64("rts_bytes"));
    if (manager == "ns3::ConstantRateWifiManager")
    {
        wifi.SetRemoteStationManager(manager,
                                     "DataMode",
                                     StringValue("VhtMcs" + r.Str("mcs")),
                                     "ControlMode",
                                     StringValue("OfdmRate6Mbps"),
                                     "RtsCtsThreshold",
                                     rts);
    }
    else
    {
        wifi.SetRemoteStationManager(manager, "RtsCtsThreshold", rts);
    }
}

/// One device's PHY: its antennas and streams.
void
SetStreams(SpectrumWifiPhyHelper& phy, uint64_t nss)
{
    phy.Set("Antennas", UintegerValue(nss));
    phy.Set("MaxSupportedTxSpatialStreams", UintegerValue(nss));
    phy.Set("MaxSupportedRxSpatialStreams", UintegerValue(nss));
}

/// The scenario's EDCA parameters on every AC of the device (the AP advertises the same).
void
ApplyEdca(Ptr<WifiNetDevice> dev, const Record& r)
{
    const std::pair<const char*, AcIndex> acs[] = {{"bk", AC_BK}, {"be", AC_BE}, {"vi", AC_VI}, {"vo", AC_VO}};
    for (const auto& [name, ac] : acs)
    {
        std::string n(name);
        Ptr<QosTxop> txop = dev->GetMac()->GetQosTxop(ac);
        txop->SetAifsn(static_cast<uint8_t>(r.U64(n + "_aifsn")));
        txop->SetMinCw(static_cast<uint32_t>(r.U64(n + "_cw_min")));
        txop->SetMaxCw(static_cast<uint32_t>(r.U64(n + "_cw_max")));
        txop->SetTxopLimit(MicroSeconds(r.U64(n + "_txop_limit_us")));
    }
}

void
Place(Ptr<Node> node, double x, double y, double z)
{
    auto m = CreateObject<ConstantPositionMobilityModel>();
    m->SetPosition(Vector(x, y, z));
    node->AggregateObject(m);
}

} // namespace

WifiBss*
BuildBss(World& w, const Record& r, const std::vector<const Record*>& stas)
{
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(r.Str("queue") + "p")));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(r.Num("lifetime_s"))));
    auto channel = CreateObject<MultiModelSpectrumChannel>();
    channel->AddPropagationLossModel(LossModel(r));
    channel->SetPropagationDelayModel(CreateObject<ConstantSpeedPropagationDelayModel>());
    SpectrumWifiPhyHelper phy;
    phy.SetChannel(channel);
    phy.Set("ChannelSettings", StringValue("{0, " + r.Str("width_mhz") + ", BAND_5GHZ, 0}"));
    phy.Set("TxPowerStart", DoubleValue(r.Num("tx_dbm")));
    phy.Set("TxPowerEnd", DoubleValue(r.Num("tx_dbm")));
    phy.Set("RxNoiseFigure", DoubleValue(r.Num("nf_db")));
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211ac);
    ConfigureManager(wifi, r);
    wifi.ConfigHtOptions("ShortGuardIntervalSupported", BooleanValue(r.U64("gi_ns") == 400));
    wifi.ConfigHtOptions("LdpcSupported", BooleanValue(r.U64("ldpc") == 1));
    WifiMacHelper mac;
    Ssid ssid("cellcc");
    UintegerValue ampdu(r.U64("max_ampdu"));
    auto* bss = new WifiBss();
    bss->counters.resize(stas.size() + 1);
    SetStreams(phy, r.U64("nss"));
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "BE_MaxAmpduSize", ampdu);
    Ptr<Node> apNode = w.nodes.Get(r.U64("ap"));
    Place(apNode, r.Num("x"), r.Num("y"), r.Num("z"));
    NetDeviceContainer devs = wifi.Install(phy, mac, apNode);
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "ActiveProbing", BooleanValue(false), "BE_MaxAmpduSize", ampdu);
    for (const Record* s : stas)
    {
        SetStreams(phy, s->U64("nss"));
        Ptr<Node> node = w.nodes.Get(s->U64("node"));
        Place(node, s->Num("x"), s->Num("y"), s->Num("z"));
        devs.Add(wifi.Install(phy, mac, node));
    }
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        auto dev = DynamicCast<WifiNetDevice>(devs.Get(i));
        ApplyEdca(dev, r);
        bss->devices.push_back(dev);
        bss->stationOf[Mac48Address::ConvertFrom(dev->GetAddress())] = i;
        dev->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin", MakeBoundCallback(&OnPsduBegin, bss, i));
    }
    Ipv4AddressHelper ip;
    ip.SetBase("10.1.0.0", "255.255.0.0");
    ip.Assign(devs);
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        auto tc = devs.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(devs.Get(i)))
        {
            tc->DeleteRootQueueDiscOnDevice(devs.Get(i));
        }
    }
    return bss;
}

void
SampleBss(WifiBss* bss, FILE* out, int64_t nowNs)
{
    for (size_t sta = 1; sta < bss->counters.size(); sta++)
    {
        for (int dir = 0; dir < 2; dir++)
        {
            const WifiLinkCounters& c = bss->counters[sta][dir];
            std::fprintf(out,
                         "%zu,%d,%lld,%llu,%llu,%llu,%llu,%lld\n",
                         sta,
                         dir,
                         static_cast<long long>(nowNs),
                         static_cast<unsigned long long>(c.ppdus),
                         static_cast<unsigned long long>(c.mcsSum),
                         static_cast<unsigned long long>(c.mpdus),
                         static_cast<unsigned long long>(c.bytes),
                         static_cast<long long>(c.airtimeNs));
        }
    }
}

void
FreeBss(WifiBss* bss)
{
    delete bss;
}

} // namespace cellcc
