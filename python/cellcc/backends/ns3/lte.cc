//! cellcc's ns-3 driver, the LTE cell: one eNB and its UEs on ns-3 LENA (src/lte, 3.44), with
//! the EPC of PointToPointEpcHelper. lte.py makes the records and explains the mapping:
//!
//!   epc  s1u_rate_bps= s1u_delay_s= s1u_mtu=
//!   cell enb= rbs= scheduler= harq=0|1 ctrl_errors=0|1 cqi_period_s= dl_earfcn= ul_earfcn= srs_period_ms=
//!   rlc  mode=um|am tx_buffer_bytes= t_reordering_s= [t_poll_retransmit_s= t_status_prohibit_s=]
//!   ue   idx= node= distance_m= angle_rad= tx_power_dbm=
//!   move ue= at_s= distance_m=                  (the UE steps radially: a new SINR)
//!   net  hysteresis_db= time_to_trigger_ms=      (a network, network.py: A3 handover between cells)
//!   nenb cell= node= x_m= y_m= [orientation_deg=] (each cell's eNB; the `chan` record's height, powers, antenna)
//!   nue  ue= cell=                                (the cell a UE attaches to; `ue`/`mobility` place it)
//!
//! Without a channel model: path loss is LteHelper's default Friis model, set explicitly; no
//! fading, no shadowing, one cell (so no interference): the SINR a UE sees is fixed by its
//! distance (lte.py's formula). With one (`chan` records), channel.cc sets path loss, antenna,
//! fading and mobility; the UE records then carry positions. With interfering cells
//! (`interference`, `icell` records) interferers.cc adds their eNBs after this cell's.
//!
//! Statistics (lte.csv, one row per UE, direction and slot) come from LENA's trace sources:
//! transport blocks from LteSpectrumPhy DlPhyReception (at the UE) / UlPhyReception (at the
//! eNB), the downlink SINR from LteUePhy ReportCurrentCellRsrpSinr (linear mean over RBs, as the
//! UE measures it for CQI), RLC drops from each entity's TxDrop.

#include "driver.h"

#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"

#include <array>
#include <cmath>

namespace cellcc
{

/// One UE's LENA statistics over the current slot, in one direction.
struct LteSlot
{
    uint64_t tbs = 0;
    uint64_t mcsSum = 0;
    uint64_t decodedBits = 0;
    uint64_t harqRetx = 0;
    uint64_t residual = 0;
    uint64_t rlcDrops = 0;
    double sinrSum = 0;
    uint64_t sinrN = 0;
};

//! LENA's FemtoForum schedulers drop a HARQ process when its redundancy version reaches 3
//! (pf-ff-mac-scheduler.cc, rr-, fdmt-: "maximum number of retx reached -> drop process").
constexpr uint8_t kLastHarqRv = 3;
constexpr int kDl = 0;
constexpr int kUl = 1;

struct LteCell
{
    Ptr<LteHelper> helper;
    Ptr<PointToPointEpcHelper> epc;
    Ptr<Node> enb;
    NetDeviceContainer enbDevs;
    NetDeviceContainer ueDevs;
    std::vector<Ptr<Node>> ues;
    std::vector<double> angleRad;
    /// [ue][direction] statistics of the slot under way.
    std::vector<std::array<LteSlot, 2>> slots;
    std::map<uint16_t, size_t> ueOfRnti;
    uint8_t lastRv = kLastHarqRv;
    /// A network (`net` record): every cell's eNB, in plan order, and its LENA cell id.
    std::vector<Ptr<Node>> enbs;
    std::vector<uint16_t> cellIds;
    /// A network's UE by (serving cell id, RNTI): an RNTI is a cell's, and a handover changes it.
    std::map<std::pair<uint16_t, uint16_t>, size_t> ueOfCellRnti;
    FILE* handoversOut = nullptr;
    FILE* measurementsOut = nullptr;
};

namespace
{

void
SetTime(const char* name, const Record& r, const char* key)
{
    Config::SetDefault(name, TimeValue(Seconds(r.Num(key))));
}

void
ConfigureRlc(const Record& rlc)
{
    auto buffer = UintegerValue(rlc.U64("tx_buffer_bytes"));
    if (rlc.Str("mode") == "am")
    {
        Config::SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping", EnumValue(LteEnbRrc::RLC_AM_ALWAYS));
        Config::SetDefault("ns3::LteRlcAm::MaxTxBufferSize", buffer);
        SetTime("ns3::LteRlcAm::ReorderingTimer", rlc, "t_reordering_s");
        SetTime("ns3::LteRlcAm::PollRetransmitTimer", rlc, "t_poll_retransmit_s");
        SetTime("ns3::LteRlcAm::StatusProhibitTimer", rlc, "t_status_prohibit_s");
        return;
    }
    Config::SetDefault("ns3::LteEnbRrc::EpsBearerToRlcMapping", EnumValue(LteEnbRrc::RLC_UM_ALWAYS));
    Config::SetDefault("ns3::LteRlcUm::MaxTxBufferSize", buffer);
    SetTime("ns3::LteRlcUm::ReorderingTimer", rlc, "t_reordering_s");
    // LteRlcUm::DoTransmitPdcpPdu (lte-rlc-um.cc, 3.44) fires TxDrop for an SDU whose head-of-line
    // delay exceeds the QCI's budget yet still buffers and sends it: off, the trace counts only
    // real drops and the bearer is the TS 36.322 UM entity the engine models.
    Config::SetDefault("ns3::LteRlcUm::EnablePdcpDiscarding", BooleanValue(false));
}

Vector
Position(double distanceM, double angleRad)
{
    return Vector(distanceM * std::cos(angleRad), distanceM * std::sin(angleRad), 0.0);
}

void
MoveUe(Ptr<MobilityModel> m, Vector to)
{
    m->SetPosition(to);
}

void
Place(Ptr<Node> node, Vector where)
{
    auto m = CreateObject<ConstantPositionMobilityModel>();
    m->SetPosition(where);
    node->AggregateObject(m);
}

/// An SDU the RLC entity refused (buffer full): PDCP header (LtePdcpHeader, 12-bit SN), then IP.
void
OnRlcDrop(World* w, LteSlot* slot, Ptr<const Packet> p)
{
    slot->rlcDrops++;
    Ptr<Packet> copy = p->Copy();
    LtePdcpHeader pdcp;
    copy->RemoveHeader(pdcp);
    CountDropOfIpPacket(w, copy);
}

void
CountTb(LteCell* lte, LteSlot& s, const PhyReceptionStatParameters& p)
{
    s.tbs++;
    s.mcsSum += p.m_mcs;
    s.harqRetx += p.m_rv > 0;
    if (p.m_correctness)
    {
        s.decodedBits += 8 * uint64_t{p.m_size};
    }
    else if (p.m_rv >= lte->lastRv)
    {
        s.residual++;
    }
}

void
OnDlTb(LteCell* lte, size_t ue, PhyReceptionStatParameters p)
{
    CountTb(lte, lte->slots[ue][kDl], p);
}

void
OnUlTb(LteCell* lte, PhyReceptionStatParameters p)
{
    if (!lte->enbs.empty())
    {
        if (auto it = lte->ueOfCellRnti.find({p.m_cellId, p.m_rnti}); it != lte->ueOfCellRnti.end())
        {
            CountTb(lte, lte->slots[it->second][kUl], p);
        }
        return;
    }
    if (auto it = lte->ueOfRnti.find(p.m_rnti); it != lte->ueOfRnti.end())
    {
        CountTb(lte, lte->slots[it->second][kUl], p);
    }
}

void
OnSinr(LteCell* lte, size_t ue, uint16_t, uint16_t, double, double sinr, uint8_t)
{
    lte->slots[ue][kDl].sinrSum += sinr;
    lte->slots[ue][kDl].sinrN++;
}

void
WatchPhy(LteCell* lte)
{
    lte->slots.assign(lte->ues.size(), {});
    for (size_t j = 0; j < lte->ues.size(); j++)
    {
        auto phy = DynamicCast<LteUeNetDevice>(lte->ueDevs.Get(j))->GetPhy();
        phy->GetDlSpectrumPhy()->TraceConnectWithoutContext("DlPhyReception", MakeBoundCallback(&OnDlTb, lte, j));
        phy->TraceConnectWithoutContext("ReportCurrentCellRsrpSinr", MakeBoundCallback(&OnSinr, lte, j));
    }
    for (uint32_t e = 0; e < (lte->enbs.empty() ? 1 : lte->enbDevs.GetN()); e++)
    {
        auto enbPhy = DynamicCast<LteEnbNetDevice>(lte->enbDevs.Get(e))->GetPhy();
        enbPhy->GetUlSpectrumPhy()->TraceConnectWithoutContext("UlPhyReception", MakeBoundCallback(&OnUlTb, lte));
    }
}

// A network (`net`, `nenb`, `nue` records; network.py): the cells' eNBs on one
// channel, X2 between every pair (LteHelper::AddX2Interface), handover by
// A3RsrpHandoverAlgorithm (TS 36.331 event A3 with LENA's hysteresis and time to trigger), UEs
// placed and moving as a cell's channel UEs (channel.cc PlaceChannelUe). Traces: handovers.csv (`report`: the serving eNB received a
// measurement report, LteEnbRrc RecvMeasurementReport; `start`: the UE received the handover
// command, LteUeRrc HandoverStart; `end`: it completed random access at the target,
// LteUeRrc HandoverEndOk) and measurements.csv (every layer 1 sample, LteUePhy
// ReportUeMeasurements: the RSRP each UE's RRC filters).

/// The plan's cell index of LENA cell `cellId`.
size_t
CellOf(const LteCell* lte, uint16_t cellId)
{
    for (size_t c = 0; c < lte->cellIds.size(); c++)
    {
        if (lte->cellIds[c] == cellId)
        {
            return c;
        }
    }
    throw std::runtime_error("no cell with LENA cell id " + std::to_string(cellId));
}

/// LteHelper numbers IMSIs from 1 in the order UEs are installed: the network's UEs in one call.
size_t
UeOfImsi(const LteCell* lte, uint64_t imsi)
{
    if (imsi == 0 || imsi > lte->ues.size())
    {
        throw std::runtime_error("no UE with IMSI " + std::to_string(imsi));
    }
    return imsi - 1;
}

void
OnMeasurement(LteCell* lte, size_t ue, uint16_t, uint16_t cellId, double rsrpDbm, double, bool, uint8_t)
{
    if (Simulator::Now() >= g_t0)
    {
        std::fprintf(lte->measurementsOut,
                     "%lld,%zu,%zu,%.9g\n",
                     static_cast<long long>(NowNs()),
                     ue,
                     CellOf(lte, cellId),
                     rsrpDbm);
    }
}

void
WriteHandoverEvent(LteCell* lte, const char* kind, size_t ue, uint16_t cellId, long long target)
{
    std::fprintf(lte->handoversOut,
                 "%s,%lld,%zu,%zu,%lld\n",
                 kind,
                 static_cast<long long>(NowNs()),
                 ue,
                 CellOf(lte, cellId),
                 target < 0 ? -1 : static_cast<long long>(CellOf(lte, static_cast<uint16_t>(target))));
}

void
OnReport(LteCell* lte, uint64_t imsi, uint16_t cellId, uint16_t, LteRrcSap::MeasurementReport)
{
    WriteHandoverEvent(lte, "report", UeOfImsi(lte, imsi), cellId, -1);
}

void
OnHandoverStart(LteCell* lte, uint64_t imsi, uint16_t cellId, uint16_t, uint16_t target)
{
    WriteHandoverEvent(lte, "start", UeOfImsi(lte, imsi), cellId, target);
}

void
OnConnected(LteCell* lte, uint64_t imsi, uint16_t cellId, uint16_t rnti)
{
    lte->ueOfCellRnti[{cellId, rnti}] = UeOfImsi(lte, imsi);
}

void
OnHandoverEnd(LteCell* lte, uint64_t imsi, uint16_t cellId, uint16_t rnti)
{
    OnConnected(lte, imsi, cellId, rnti);
    WriteHandoverEvent(lte, "end", UeOfImsi(lte, imsi), cellId, -1);
}

void
BuildNetwork(World& w, LteCell* lte, const LtePlanRecords& r, const std::string& dir)
{
    const Record& net = *r.net;
    Ptr<LteHelper> h = lte->helper;
    h->SetHandoverAlgorithmType("ns3::A3RsrpHandoverAlgorithm");
    h->SetHandoverAlgorithmAttribute("Hysteresis", DoubleValue(net.Num("hysteresis_db")));
    h->SetHandoverAlgorithmAttribute("TimeToTrigger", TimeValue(MilliSeconds(net.U64("time_to_trigger_ms"))));
    NodeContainer enbNodes;
    for (const Record* e : r.nenbs)
    {
        Ptr<Node> n = w.nodes.Get(e->U64("node"));
        Place(n, Vector(e->Num("x_m"), e->Num("y_m"), r.chan->Num("enb_z_m")));
        lte->enbs.push_back(n);
        enbNodes.Add(n);
        // A sector's antenna: the helper's model (channel.cc SetUpChannel) turned to its site's boresight.
        if (e->fields.count("orientation_deg"))
        {
            h->SetEnbAntennaModelAttribute("Orientation", DoubleValue(e->Num("orientation_deg")));
        }
        lte->enbDevs.Add(h->InstallEnbDevice(NodeContainer(n)));
    }
    lte->enb = lte->enbs.front();
    for (uint32_t c = 0; c < lte->enbDevs.GetN(); c++)
    {
        lte->cellIds.push_back(DynamicCast<LteEnbNetDevice>(lte->enbDevs.Get(c))->GetCellId());
    }
    NodeContainer ueNodes;
    for (size_t j = 0; j < r.ues.size(); j++)
    {
        Ptr<Node> n = w.nodes.Get(r.ues[j]->U64("node"));
        PlaceChannelUe(n, *r.ues[j], *r.mobility.at(j));
        lte->ues.push_back(n);
        ueNodes.Add(n);
    }
    lte->ueDevs = h->InstallUeDevice(ueNodes);
    lte->epc->AssignUeIpv4Address(lte->ueDevs);
    for (size_t j = 0; j < r.ues.size(); j++)
    {
        auto routing = Ipv4StaticRoutingHelper().GetStaticRouting(lte->ues[j]->GetObject<Ipv4>());
        routing->SetDefaultRoute(lte->epc->GetUeDefaultGatewayAddress(), 1);
        h->Attach(lte->ueDevs.Get(j), lte->enbDevs.Get(r.nues.at(j)->U64("cell")));
    }
    h->AddX2Interface(enbNodes);
    lte->lastRv = r.cell->Str("harq") == "1" ? kLastHarqRv : 0;
    WatchPhy(lte);
    lte->handoversOut = std::fopen((dir + "/handovers.csv").c_str(), "w");
    lte->measurementsOut = std::fopen((dir + "/measurements.csv").c_str(), "w");
    if (!lte->handoversOut || !lte->measurementsOut)
    {
        throw std::runtime_error("cannot write handovers.csv or measurements.csv");
    }
    std::fprintf(lte->handoversOut, "kind,t_ns,ue,cell,target\n");
    std::fprintf(lte->measurementsOut, "t_ns,ue,cell,rsrp_dbm\n");
    for (size_t j = 0; j < r.ues.size(); j++)
    {
        auto dev = DynamicCast<LteUeNetDevice>(lte->ueDevs.Get(j));
        dev->GetPhy()->TraceConnectWithoutContext("ReportUeMeasurements",
                                                  MakeBoundCallback(&OnMeasurement, lte, j));
        auto rrc = dev->GetRrc();
        rrc->TraceConnectWithoutContext("ConnectionEstablished", MakeBoundCallback(&OnConnected, lte));
        rrc->TraceConnectWithoutContext("HandoverStart", MakeBoundCallback(&OnHandoverStart, lte));
        rrc->TraceConnectWithoutContext("HandoverEndOk", MakeBoundCallback(&OnHandoverEnd, lte));
    }
    for (uint32_t c = 0; c < lte->enbDevs.GetN(); c++)
    {
        DynamicCast<LteEnbNetDevice>(lte->enbDevs.Get(c))
            ->GetRrc()
            ->TraceConnectWithoutContext("RecvMeasurementReport", MakeBoundCallback(&OnReport, lte));
    }
}

} // namespace

void
SampleCell(LteCell* lte, FILE* out, int64_t nowNs)
{
    for (size_t j = 0; j < lte->slots.size(); j++)
    {
        for (int d : {kDl, kUl})
        {
            LteSlot& s = lte->slots[j][d];
            std::fprintf(out,
                         "%zu,%d,%lld,%llu,%llu,%llu,%llu,%llu,%llu,%.9g,%llu\n",
                         j,
                         d,
                         static_cast<long long>(nowNs),
                         static_cast<unsigned long long>(s.tbs),
                         static_cast<unsigned long long>(s.mcsSum),
                         static_cast<unsigned long long>(s.decodedBits),
                         static_cast<unsigned long long>(s.harqRetx),
                         static_cast<unsigned long long>(s.residual),
                         static_cast<unsigned long long>(s.rlcDrops),
                         s.sinrSum,
                         static_cast<unsigned long long>(s.sinrN));
            s = LteSlot{};
        }
    }
}

void
ConfigureLte(const Record& cell, const Record& rlc, const Record* chan)
{
    ConfigureRlc(rlc);
    // Without a channel the UE's TxPower is set per UE for its uplink SINR (lte.py), which power
    // control would override; a channel sets power control as its ul_power_control says.
    Config::SetDefault("ns3::LteUePhy::EnableUplinkPowerControl", BooleanValue(false));
    if (chan)
    {
        ConfigureChannel(*chan);
    }
    Config::SetDefault("ns3::LteSpectrumPhy::CtrlErrorModelEnabled", BooleanValue(cell.Str("ctrl_errors") == "1"));
    Config::SetDefault("ns3::LteUePhy::DownlinkCqiPeriodicity", TimeValue(Seconds(cell.Num("cqi_period_s"))));
    Config::SetDefault("ns3::LteEnbRrc::SrsPeriodicity", UintegerValue(cell.U64("srs_period_ms")));
}

LteCell*
CreateLte(const Record& epc)
{
    auto* c = new LteCell;
    c->epc = CreateObject<PointToPointEpcHelper>();
    c->epc->SetAttribute("S1uLinkDataRate", DataRateValue(DataRate(static_cast<uint64_t>(epc.Num("s1u_rate_bps")))));
    c->epc->SetAttribute("S1uLinkDelay", TimeValue(Seconds(epc.Num("s1u_delay_s"))));
    c->epc->SetAttribute("S1uLinkMtu", UintegerValue(epc.U64("s1u_mtu")));
    c->helper = CreateObject<LteHelper>();
    c->helper->SetEpcHelper(c->epc);
    c->helper->SetAttribute("PathlossModel", StringValue("ns3::FriisPropagationLossModel"));
    return c;
}

Ptr<Node>
PgwNode(LteCell* lte)
{
    return lte->epc->GetPgwNode();
}

Ipv4Address
UeNetwork(LteCell*)
{
    // PointToPointEpcHelper's UE address pool (NoBackhaulEpcHelper: m_uePgwAddressHelper 7.0.0.0/8).
    return Ipv4Address("7.0.0.0");
}

Ipv4Mask
UeMask()
{
    return Ipv4Mask("255.0.0.0");
}

void
BuildCell(World& w, LteCell* lte, const LtePlanRecords& r, const std::string& dir)
{
    const Record& cell = *r.cell;
    Ptr<LteHelper> h = lte->helper;
    h->SetSchedulerType(cell.Str("scheduler"));
    h->SetSchedulerAttribute("HarqEnabled", BooleanValue(cell.Str("harq") == "1"));
    h->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(cell.U64("rbs")));
    h->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(cell.U64("rbs")));
    h->SetEnbDeviceAttribute("DlEarfcn", UintegerValue(cell.U64("dl_earfcn")));
    h->SetEnbDeviceAttribute("UlEarfcn", UintegerValue(cell.U64("ul_earfcn")));
    h->SetUeDeviceAttribute("DlEarfcn", UintegerValue(cell.U64("dl_earfcn")));
    if (r.chan)
    {
        SetUpChannel(h, r, dir);
    }
    if (r.net)
    {
        BuildNetwork(w, lte, r, dir);
        return;
    }
    lte->enb = w.nodes.Get(cell.U64("enb"));
    Place(lte->enb, r.chan ? EnbPosition(*r.chan) : Vector(0, 0, 0));
    if (r.diag)
    {
        SetUpDiag(h, *r.diag);
    }
    lte->enbDevs = h->InstallEnbDevice(NodeContainer(lte->enb));
    if (r.diag && r.fading)
    {
        AddDiagFading(h, *r.diag, *r.fading, dir, lte->enb);
    }
    NodeContainer ueNodes;
    for (size_t j = 0; j < r.ues.size(); j++)
    {
        const Record* u = r.ues[j];
        Ptr<Node> n = w.nodes.Get(u->U64("node"));
        lte->ues.push_back(n);
        if (r.chan)
        {
            PlaceChannelUe(n, *u, *r.mobility.at(j));
        }
        else
        {
            lte->angleRad.push_back(u->Num("angle_rad"));
            Place(n, Position(u->Num("distance_m"), u->Num("angle_rad")));
        }
        ueNodes.Add(n);
    }
    lte->ueDevs = h->InstallUeDevice(ueNodes);
    lte->epc->AssignUeIpv4Address(lte->ueDevs);
    for (size_t j = 0; j < r.ues.size(); j++)
    {
        if (!r.chan)
        {
            DynamicCast<LteUeNetDevice>(lte->ueDevs.Get(j))->GetPhy()->SetTxPower(r.ues[j]->Num("tx_power_dbm"));
        }
        auto routing = Ipv4StaticRoutingHelper().GetStaticRouting(lte->ues[j]->GetObject<Ipv4>());
        routing->SetDefaultRoute(lte->epc->GetUeDefaultGatewayAddress(), 1);
    }
    // Attach (ideal RRC) and the default EPS bearer; done during the warm-up before t = 0.
    h->Attach(lte->ueDevs, lte->enbDevs.Get(0));
    WatchDlSinr(lte->ueDevs);
    BuildInterferers(h, lte->epc, r, cell.U64("rbs"));
    lte->lastRv = cell.Str("harq") == "1" ? kLastHarqRv : 0;
    WatchPhy(lte);
    if (r.diag)
    {
        Simulator::Schedule(g_t0, &StartDiagTrace, *r.diag, lte->enbDevs, lte->ueDevs);
    }
    for (const Record* m : r.moves)
    {
        size_t j = m->U64("ue");
        Simulator::Schedule(At(m->Num("at_s")),
                            &MoveUe,
                            lte->ues[j]->GetObject<MobilityModel>(),
                            Position(m->Num("distance_m"), lte->angleRad[j]));
    }
}

void
StartCell(World* w, LteCell* lte)
{
    for (size_t j = 0; j < lte->ues.size(); j++)
    {
        auto rrc = DynamicCast<LteUeNetDevice>(lte->ueDevs.Get(j))->GetRrc();
        if (rrc->GetState() != LteUeRrc::CONNECTED_NORMALLY)
        {
            throw std::runtime_error("UE " + std::to_string(j) + " did not attach during the warm-up");
        }
        lte->ueOfRnti[rrc->GetRnti()] = j;
        // A network's UE: its serving eNB's RLC entity (the one a handover replaces goes uncounted).
        Ptr<Node> enb = lte->enbs.empty() ? lte->enb : lte->enbs[CellOf(lte, rrc->GetCellId())];
        std::string enbDevices = "/NodeList/" + std::to_string(enb->GetId()) + "/DeviceList/*";
        std::string bearers = "/DataRadioBearerMap/*/LteRlc/TxDrop";
        std::string ul = "/NodeList/" + std::to_string(lte->ues[j]->GetId()) + "/DeviceList/*/LteUeRrc" + bearers;
        std::string dl = enbDevices + "/LteEnbRrc/UeMap/" + std::to_string(rrc->GetRnti()) + bearers;
        Config::ConnectWithoutContext(ul, MakeBoundCallback(&OnRlcDrop, w, &lte->slots[j][kUl]));
        Config::ConnectWithoutContext(dl, MakeBoundCallback(&OnRlcDrop, w, &lte->slots[j][kDl]));
    }
    // The warm-up's statistics (attach signalling) are not the scenario's. Reset in place: the
    // RLC drop sinks hold pointers into `slots`.
    for (auto& ue : lte->slots)
    {
        ue = {};
    }
}

void
CloseNetworkTraces(LteCell* lte)
{
    if (!lte)
    {
        return;
    }
    for (FILE** f : {&lte->handoversOut, &lte->measurementsOut})
    {
        if (*f)
        {
            std::fclose(*f);
            *f = nullptr;
        }
    }
}

void
FreeLte(LteCell* lte)
{
    delete lte;
}

} // namespace cellcc
