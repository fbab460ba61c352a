//! cellcc's ns-3 driver, the LTE cell: one eNB and its UEs on ns-3 LENA (src/lte, 3.44), with
//! the EPC of PointToPointEpcHelper. lte.py makes the records and explains the mapping:
//!
//!   epc  s1u_rate_bps= s1u_delay_s= s1u_mtu=
//!   cell enb= rbs= scheduler= harq=0|1 ctrl_errors=0|1 cqi_period_s= dl_earfcn= ul_earfcn=
//!   rlc  mode=um|am tx_buffer_bytes= t_reordering_s= [t_poll_retransmit_s= t_status_prohibit_s=]
//!   ue   idx= node= distance_m= angle_rad= tx_power_dbm=
//!   move ue= at_s= distance_m=                  (the UE steps radially: a new SINR)
//!
//! Path loss is LteHelper's default Friis model, set explicitly; no fading, no shadowing, one
//! cell (so no interference): the SINR a UE sees is fixed by its distance (lte.py's formula).

#include "driver.h"

#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"

#include <cmath>

namespace cellcc
{

struct LteCell
{
    Ptr<LteHelper> helper;
    Ptr<PointToPointEpcHelper> epc;
    Ptr<Node> enb;
    NetDeviceContainer enbDevs;
    NetDeviceContainer ueDevs;
    std::vector<Ptr<Node>> ues;
    std::vector<double> angleRad;
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
OnRlcDrop(World* w, Ptr<const Packet> p)
{
    Ptr<Packet> copy = p->Copy();
    LtePdcpHeader pdcp;
    copy->RemoveHeader(pdcp);
    CountDropOfIpPacket(w, copy);
}

} // namespace

void
ConfigureLte(const Record& cell, const Record& rlc)
{
    ConfigureRlc(rlc);
    Config::SetDefault("ns3::LteSpectrumPhy::CtrlErrorModelEnabled", BooleanValue(cell.Str("ctrl_errors") == "1"));
    Config::SetDefault("ns3::LteUePhy::DownlinkCqiPeriodicity", TimeValue(Seconds(cell.Num("cqi_period_s"))));
    // The UE's TxPower is set per UE for its uplink SINR (lte.py); power control would override it.
    Config::SetDefault("ns3::LteUePhy::EnableUplinkPowerControl", BooleanValue(false));
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
BuildCell(World& w,
          LteCell* lte,
          const Record& cell,
          const std::vector<const Record*>& ues,
          const std::vector<const Record*>& moves)
{
    Ptr<LteHelper> h = lte->helper;
    h->SetSchedulerType(cell.Str("scheduler"));
    h->SetSchedulerAttribute("HarqEnabled", BooleanValue(cell.Str("harq") == "1"));
    h->SetEnbDeviceAttribute("DlBandwidth", UintegerValue(cell.U64("rbs")));
    h->SetEnbDeviceAttribute("UlBandwidth", UintegerValue(cell.U64("rbs")));
    h->SetEnbDeviceAttribute("DlEarfcn", UintegerValue(cell.U64("dl_earfcn")));
    h->SetEnbDeviceAttribute("UlEarfcn", UintegerValue(cell.U64("ul_earfcn")));
    h->SetUeDeviceAttribute("DlEarfcn", UintegerValue(cell.U64("dl_earfcn")));
    lte->enb = w.nodes.Get(cell.U64("enb"));
    Place(lte->enb, Vector(0, 0, 0));
    lte->enbDevs = h->InstallEnbDevice(NodeContainer(lte->enb));
    NodeContainer ueNodes;
    for (const Record* u : ues)
    {
        Ptr<Node> n = w.nodes.Get(u->U64("node"));
        lte->ues.push_back(n);
        lte->angleRad.push_back(u->Num("angle_rad"));
        Place(n, Position(u->Num("distance_m"), u->Num("angle_rad")));
        ueNodes.Add(n);
    }
    lte->ueDevs = h->InstallUeDevice(ueNodes);
    lte->epc->AssignUeIpv4Address(lte->ueDevs);
    for (size_t j = 0; j < ues.size(); j++)
    {
        DynamicCast<LteUeNetDevice>(lte->ueDevs.Get(j))->GetPhy()->SetTxPower(ues[j]->Num("tx_power_dbm"));
        auto routing = Ipv4StaticRoutingHelper().GetStaticRouting(lte->ues[j]->GetObject<Ipv4>());
        routing->SetDefaultRoute(lte->epc->GetUeDefaultGatewayAddress(), 1);
    }
    // Attach (ideal RRC) and the default EPS bearer; done during the warm-up before t = 0.
    h->Attach(lte->ueDevs, lte->enbDevs.Get(0));
    for (const Record* m : moves)
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
        std::string path = "/NodeList/" + std::to_string(lte->ues[j]->GetId()) +
                           "/DeviceList/*/LteUeRrc/DataRadioBearerMap/*/LteRlc/TxDrop";
        Config::ConnectWithoutContext(path, MakeBoundCallback(&OnRlcDrop, w));
    }
    std::string enbPath = "/NodeList/" + std::to_string(lte->enb->GetId()) +
                          "/DeviceList/*/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/LteRlc/TxDrop";
    Config::ConnectWithoutContext(enbPath, MakeBoundCallback(&OnRlcDrop, w));
}

void
FreeLte(LteCell* lte)
{
    delete lte;
}

} // namespace cellcc
