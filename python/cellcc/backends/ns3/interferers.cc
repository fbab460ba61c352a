//! cellcc's ns-3 driver, a cell's interfering cells on LENA (interferers.py makes the records and
//! explains the mapping), built as LENA's own multi-cell examples do (lena-dual-stripe.cc,
//! LteHexGridEnbTopologyHelper): one real eNB per interfering cell, on the same helper, so they
//! share the channels, the path-loss model, the EARFCNs and the bandwidth of the serving cell:
//!
//!   interference cqi_sinr=pdsch|ctrl
//!   icell idx= x_m= y_m= z_m= tx_dbm= load=full_buffer|idle ue_x_m= ue_y_m= ue_z_m= rate_bps=
//!         packet_bytes= antenna=isotropic|parabolic [orientation_deg= beamwidth_deg= max_att_db=]
//!
//! A full-buffer cell gets one UE attached to it and a saturating downlink UDP flow from the PGW
//! (port 9, RFC 863 discard: no plan flow uses it, so FlowMonitor's tables ignore it); an idle
//! cell none. Also here, the downlink SINR probes (sinr.csv): per UE of the scenario, LENA's
//! control-region SINR (every eNB's control frame covers the band: LteEnbPhy::SendControlChannels)
//! and data-region SINR (the PDSCH of its cell, with the data frames of the other cells on the RBs
//! they use), each a linear mean over RBs per subframe, from LteChunkProcessors on the UE's
//! LteSpectrumPhy (lte-interference.cc computes SINR = S / (all signals - S + noise) per chunk);
//! and per full-buffer cell the RBs its UE's data frames covered (the check of its load).

#include "driver.h"

#include "ns3/antenna-module.h"
#include "ns3/applications-module.h"
#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"

namespace cellcc
{

namespace
{

/// RFC 863 discard port: the saturating flows' destination.
constexpr uint16_t kDiscardPort = 9;

/// Sums of per-subframe linear SINR means over scenario time.
struct SinrSums
{
    double ctrlSum = 0;
    uint64_t ctrlN = 0;
    double dataSum = 0;
    uint64_t dataN = 0;
};

/// A full-buffer cell's data frames as its UE received them (scenario time only).
struct LoadSums
{
    bool fullBuffer = false;
    uint64_t frames = 0;
    uint64_t rbs = 0;
};

struct Interference
{
    std::vector<SinrSums> ues;
    std::vector<LoadSums> cells;
    uint64_t nRbs = 0;
};

Interference* g_interference = nullptr;

bool
InScenario()
{
    return Simulator::Now() >= g_t0;
}

/// Linear mean over the RBs with a signal (a data frame covers only its allocated RBs), and their count.
std::pair<double, uint64_t>
MeanOverUsedRbs(const SpectrumValue& sinr)
{
    double sum = 0;
    uint64_t n = 0;
    for (auto it = sinr.ConstValuesBegin(); it != sinr.ConstValuesEnd(); ++it)
    {
        if (*it > 0)
        {
            sum += *it;
            n++;
        }
    }
    return {n ? sum / static_cast<double>(n) : 0.0, n};
}

void
OnCtrlSinr(SinrSums* s, const SpectrumValue& sinr)
{
    if (InScenario())
    {
        s->ctrlSum += MeanOverUsedRbs(sinr).first;
        s->ctrlN++;
    }
}

void
OnDataSinr(SinrSums* s, const SpectrumValue& sinr)
{
    auto [mean, n] = MeanOverUsedRbs(sinr);
    if (InScenario() && n > 0)
    {
        s->dataSum += mean;
        s->dataN++;
    }
}

void
OnLoadFrame(LoadSums* s, const SpectrumValue& sinr)
{
    if (InScenario())
    {
        s->frames++;
        s->rbs += MeanOverUsedRbs(sinr).second;
    }
}

Ptr<LteSpectrumPhy>
DlPhyOf(Ptr<NetDevice> ueDev)
{
    return DynamicCast<LteUeNetDevice>(ueDev)->GetPhy()->GetDlSpectrumPhy();
}

void
SetAntenna(Ptr<LteHelper> h, const Record& c)
{
    if (c.Str("antenna") == "isotropic")
    {
        h->SetEnbAntennaModelType("ns3::IsotropicAntennaModel");
        return;
    }
    h->SetEnbAntennaModelType("ns3::ParabolicAntennaModel");
    h->SetEnbAntennaModelAttribute("Orientation", DoubleValue(c.Num("orientation_deg")));
    h->SetEnbAntennaModelAttribute("Beamwidth", DoubleValue(c.Num("beamwidth_deg")));
    h->SetEnbAntennaModelAttribute("MaxAttenuation", DoubleValue(c.Num("max_att_db")));
}

Ptr<Node>
NodeAt(Vector where, bool stack)
{
    Ptr<Node> n = CreateObject<Node>();
    auto m = CreateObject<ConstantPositionMobilityModel>();
    m->SetPosition(where);
    n->AggregateObject(m);
    if (stack)
    {
        InternetStackHelper().Install(n);
    }
    return n;
}

/// The cell's own UE, attached to `enbDev`, fed by a saturating UDP flow from the PGW.
void
AddFullBufferUe(Ptr<LteHelper> h, Ptr<PointToPointEpcHelper> epc, Ptr<NetDevice> enbDev, const Record& c, LoadSums* load)
{
    Ptr<Node> ue = NodeAt(Vector(c.Num("ue_x_m"), c.Num("ue_y_m"), c.Num("ue_z_m")), true);
    NetDeviceContainer dev = h->InstallUeDevice(NodeContainer(ue));
    Ipv4InterfaceContainer addr = epc->AssignUeIpv4Address(dev);
    h->Attach(dev.Get(0), enbDev);
    // A bound socket without a reader: the flow ends here without an ICMP port-unreachable on the uplink.
    Ptr<Socket> sink = Socket::CreateSocket(ue, UdpSocketFactory::GetTypeId());
    sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), kDiscardPort));
    auto bytes = static_cast<uint32_t>(c.U64("packet_bytes"));
    UdpClientHelper source(addr.GetAddress(0), kDiscardPort);
    source.SetAttribute("PacketSize", UintegerValue(bytes));
    source.SetAttribute("MaxPackets", UintegerValue(0));
    source.SetAttribute("Interval", TimeValue(Seconds(8.0 * bytes / c.Num("rate_bps"))));
    ApplicationContainer app = source.Install(epc->GetPgwNode());
    // Halfway through the attach warm-up: the bearer exists, and the RLC buffer is full by t = 0.
    app.Start(Seconds(g_t0.GetSeconds() / 2));
    Ptr<LteChunkProcessor> p = Create<LteChunkProcessor>();
    p->AddCallback(MakeBoundCallback(&OnLoadFrame, load));
    DlPhyOf(dev.Get(0))->AddDataSinrChunkProcessor(p);
}

} // namespace

void
BuildInterferers(Ptr<LteHelper> h, Ptr<PointToPointEpcHelper> epc, const LtePlanRecords& r, uint64_t nRbs)
{
    if (r.icells.empty())
    {
        return;
    }
    g_interference->nRbs = nRbs;
    g_interference->cells.assign(r.icells.size(), {});
    // The interfering cells' bearers are UM whatever the scenario's RLC: no AM STATUS PDUs on their uplink.
    Config::SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping", EnumValue(LteEnbRrc::RLC_UM_ALWAYS));
    for (size_t i = 0; i < r.icells.size(); i++)
    {
        const Record& c = *r.icells[i];
        SetAntenna(h, c);
        Ptr<Node> enb = NodeAt(Vector(c.Num("x_m"), c.Num("y_m"), c.Num("z_m")), false);
        Ptr<NetDevice> dev = h->InstallEnbDevice(NodeContainer(enb)).Get(0);
        DynamicCast<LteEnbNetDevice>(dev)->GetPhy()->SetTxPower(c.Num("tx_dbm"));
        if (c.Str("load") == "full_buffer")
        {
            g_interference->cells[i].fullBuffer = true;
            AddFullBufferUe(h, epc, dev, c, &g_interference->cells[i]);
        }
    }
}

void
SetCqiSource(Ptr<LteHelper> h, const Record& interference)
{
    h->SetAttribute("UsePdschForCqiGeneration", BooleanValue(interference.Str("cqi_sinr") == "pdsch"));
}

void
WatchDlSinr(const NetDeviceContainer& ueDevs)
{
    g_interference = new Interference;
    g_interference->ues.assign(ueDevs.GetN(), {});
    for (uint32_t j = 0; j < ueDevs.GetN(); j++)
    {
        SinrSums* s = &g_interference->ues[j];
        Ptr<LteChunkProcessor> ctrl = Create<LteChunkProcessor>();
        ctrl->AddCallback(MakeBoundCallback(&OnCtrlSinr, s));
        DlPhyOf(ueDevs.Get(j))->AddCtrlSinrChunkProcessor(ctrl);
        Ptr<LteChunkProcessor> data = Create<LteChunkProcessor>();
        data->AddCallback(MakeBoundCallback(&OnDataSinr, s));
        DlPhyOf(ueDevs.Get(j))->AddDataSinrChunkProcessor(data);
    }
}

void
WriteInterference(const std::string& dir)
{
    if (!g_interference)
    {
        return;
    }
    FILE* out = std::fopen((dir + "/sinr.csv").c_str(), "w");
    std::fprintf(out, "ue,ctrl_sinr_sum,ctrl_n,data_sinr_sum,data_n\n");
    for (size_t j = 0; j < g_interference->ues.size(); j++)
    {
        const SinrSums& s = g_interference->ues[j];
        std::fprintf(out,
                     "%zu,%.12g,%llu,%.12g,%llu\n",
                     j,
                     s.ctrlSum,
                     static_cast<unsigned long long>(s.ctrlN),
                     s.dataSum,
                     static_cast<unsigned long long>(s.dataN));
    }
    std::fclose(out);
    out = std::fopen((dir + "/interferers.csv").c_str(), "w");
    std::fprintf(out, "cell,full_buffer,frames,rbs,n_rbs\n");
    for (size_t i = 0; i < g_interference->cells.size(); i++)
    {
        const LoadSums& l = g_interference->cells[i];
        std::fprintf(out,
                     "%zu,%d,%llu,%llu,%llu\n",
                     i,
                     l.fullBuffer ? 1 : 0,
                     static_cast<unsigned long long>(l.frames),
                     static_cast<unsigned long long>(l.rbs),
                     static_cast<unsigned long long>(g_interference->nRbs));
    }
    std::fclose(out);
    delete g_interference;
    g_interference = nullptr;
}

} // namespace cellcc
