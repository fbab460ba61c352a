//! cellcc's ns-3 driver, shared declarations: the plan record, the world being built, the
//! per-flow counters, and the three parts that build it:
//!
//!   driver.cc  plan reading, wired links, routes, sampling, output files, main()
//!   flows.cc   the sending and receiving applications, TCP attributes and state traces
//!   lte.cc     the LTE cell on LENA and its EPC (LteHelper + PointToPointEpcHelper)
//!
//! Times: the plan speaks scenario time (t = 0 is the scenario's start). An LTE run lets its
//! UEs attach during a warm-up of `t0_s` seconds first, so ns-3's clock runs `g_t0` ahead of
//! scenario time: schedule with At(), stamp output with NowNs().

#ifndef CELLCC_NS3_DRIVER_H
#define CELLCC_NS3_DRIVER_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

namespace ns3
{
class LteHelper;
class PointToPointEpcHelper;
}

#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace cellcc
{

using namespace ns3;

/// One plan record: its kind and key=value fields.
struct Record
{
    std::string kind;
    std::map<std::string, std::string> fields;

    const std::string& Str(const std::string& key) const
    {
        auto it = fields.find(key);
        if (it == fields.end())
        {
            throw std::runtime_error("plan record '" + kind + "' lacks field '" + key + "'");
        }
        return it->second;
    }

    double Num(const std::string& key) const
    {
        return std::stod(Str(key));
    }

    uint64_t U64(const std::string& key) const
    {
        return std::stoull(Str(key));
    }
};

/// What the driver counts of one flow beyond FlowMonitor.
struct FlowCounters
{
    uint64_t appRxBytes = 0;
    int64_t lastAppRxNs = -1;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    /// Packets lost where FlowMonitor does not look: the links' error models, LTE RLC buffers.
    uint64_t otherDrops = 0;
};

extern std::vector<FlowCounters> g_counters;
/// ns-3 time of the scenario's t = 0 (the LTE attach warm-up; zero on wired paths).
extern Time g_t0;

/// Scenario time now, ns.
inline int64_t
NowNs()
{
    return (Simulator::Now() - g_t0).GetNanoSeconds();
}

/// The ns-3 time of scenario time `s` seconds.
inline Time
At(double s)
{
    return g_t0 + Seconds(s);
}

struct FlowTrace;

/// The plan, built into ns-3 objects.
struct World
{
    /// The plan's nodes, in plan order (an LTE plan's PGW is the EPC helper's node).
    NodeContainer nodes;
    /// Wired links in plan order, with each one's plan index and addresses.
    std::vector<NetDeviceContainer> links;
    std::vector<uint32_t> linkIdx;
    std::vector<Ipv4InterfaceContainer> addrs;
    std::vector<FlowTrace*> traces;
    std::map<uint16_t, uint32_t> flowOfPort;
    double durationS = 0;
    double slotS = 0.1;
};

/// Count a lost packet, whose IPv4 header starts `p`, against the flow of its destination port.
void CountDropOfIpPacket(World* w, Ptr<Packet> p);

// flows.cc
void BuildFlow(World& w, const Record& f, FILE* cwndOut, FILE* rttOut);

/// The LTE cell's records (lte.py; channel.py when the cell has a channel model).
struct LtePlanRecords
{
    const Record* cell = nullptr;
    /// The channel model; absent: SINR set by position under Friis (`move` records).
    const Record* chan = nullptr;
    const Record* fading = nullptr;
    /// With interfering cells: which SINR the UEs' CQI follows (interferers.py).
    const Record* interference = nullptr;
    /// Diagnostic options (diag.cc); absent in every ordinary run.
    const Record* diag = nullptr;
    /// A network of cells with handover (lte.py `network_lines`): its settings, eNBs and UEs.
    const Record* net = nullptr;
    std::vector<const Record*> ues, moves, objects, attrs, mobility, icells, nenbs, nues;
};

// lte.cc
struct LteCell;
/// Attribute defaults that must be in place before LENA creates its objects.
void ConfigureLte(const Record& cell, const Record& rlc, const Record* chan);
/// The EPC (its PGW node stands for the plan's gateway router) and the LTE helper.
LteCell* CreateLte(const Record& epc);
Ptr<Node> PgwNode(LteCell* lte);
/// eNB and UE devices, positions, UE addresses and default routes, attach; moves scheduled.
/// `dir` holds the plan's side files (the fading trace).
void BuildCell(World& w, LteCell* lte, const LtePlanRecords& r, const std::string& dir);

// channel.cc
/// Powers and noise figures of the channel model, as LENA attribute defaults.
void ConfigureChannel(const Record& chan);
/// Path-loss model, eNB antenna and fading model on the helper, before it creates its channels.
void SetUpChannel(Ptr<LteHelper> h, const LtePlanRecords& r, const std::string& dir);
/// The plan's `fading` record as TraceFadingLossModel attributes (the helper's model and the
/// diagnostic ones alike), each handed to `set`.
void ApplyFadingAttributes(const Record& fading,
                           const std::string& dir,
                           const std::function<void(const std::string&, const AttributeValue&)>& set);
/// With the hybrid buildings path loss: a MobilityBuildingInfo on every placed node, all outdoor.
void InstallBuildingInfo(const LtePlanRecords& r);
Vector EnbPosition(const Record& chan);
/// A channel-placed UE's position and mobility model.
void PlaceChannelUe(Ptr<Node> node, const Record& ue, const Record& mobility);
// interferers.cc
/// One LENA eNB per `icell` record (after the serving eNB, on the same helper), and a saturated UE
/// of its own for each full-buffer one.
void BuildInterferers(Ptr<LteHelper> h, Ptr<PointToPointEpcHelper> epc, const LtePlanRecords& r, uint64_t nRbs);
/// LteHelper::UsePdschForCqiGeneration from the `interference` record (before the UEs are installed).
void SetCqiSource(Ptr<LteHelper> h, const Record& interference);
/// Control- and data-region SINR probes on the scenario's UEs (before BuildInterferers).
void WatchDlSinr(const NetDeviceContainer& ueDevs);
/// sinr.csv and interferers.csv, after the run.
void WriteInterference(const std::string& dir);
// diag.cc (docs/ns3.md, "Diagnostic options")
/// Attribute defaults of the diagnostic options, before LENA creates its objects.
void ConfigureDiag(const Record& diag);
/// Whether LteHelper carries the fading model (on both channels): without diagnostics, yes.
bool HelperFading(const Record* diag);
/// The scheduler's UL CQI filter, before the eNB device is installed.
void SetUpDiag(Ptr<LteHelper> h, const Record& diag);
/// With fading=dl: the fading model on the downlink channel alone; with fading=serving: on the
/// serving eNB's links alone, both channels. After the eNB is installed.
void AddDiagFading(Ptr<LteHelper> h, const Record& diag, const Record& fading, const std::string& dir, Ptr<Node> enb);
/// With trace=DIR: per-packet RLC/PDCP/PHY events into DIR/diag.csv.
void StartDiagTrace(const Record& diag, NetDeviceContainer enbDevs, NetDeviceContainer ueDevs);
void StopDiagTrace();

// wifi.cc
struct WifiBss;
/// The BSS of the plan's `bss` and `sta` records: devices, positions, addresses (10.1.0.0/16), EDCA.
WifiBss* BuildBss(World& w, const Record& bss, const std::vector<const Record*>& stas);
/// Each station's cumulative data-PPDU counters (wifi.csv).
void SampleBss(WifiBss* bss, FILE* out, int64_t nowNs);
void FreeBss(WifiBss* bss);

/// Write each UE's slot statistics (lte.csv) and start the next slot.
void SampleCell(LteCell* lte, FILE* out, int64_t nowNs);
/// At scenario t = 0: every UE attached, RLC drop traces connected.
void StartCell(World* w, LteCell* lte);
/// The UEs' network (as the EPC assigns it) and its mask.
Ipv4Address UeNetwork(LteCell* lte);
Ipv4Mask UeMask();
void FreeLte(LteCell* lte);
/// A network's handovers.csv and measurements.csv, complete.
void CloseNetworkTraces(LteCell* lte);

} // namespace cellcc

#endif
