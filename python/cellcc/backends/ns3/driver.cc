//! cellcc's ns-3 driver: runs one cellcc scenario, already translated by `plan.py` (and
//! `lte.py`) into a line-based plan, on ns-3 3.44 and writes the raw tables `run.py` turns into
//! the engine's.
//!
//!   cellcc-ns3-driver PLAN OUTDIR
//!
//! Plan: one record a line, `kind key=value key=value ...` (no JSON library ships with ns-3):
//!   run duration_s= seed= slot_s= t0_s=
//!   node idx= role=plain|pgw|enb|ue             (nodes are numbered 0..n-1 by the plan)
//!   link idx= a= b= mtu= delay_s= rate_ab_bps= rate_ba_bps= q_ab= q_ba= loss_ab= loss_ba=
//!        ecn_k_ab= ecn_k_ba=   (queue limit as ns-3's QueueSize text, "100p" or "150000B"; ecn_k:
//!        the step-marking threshold K in packets, 0 = none: see InstallMarkingQueue)
//!   change link= dir=ab|ba at_s= rate_bps=
//!   route node= net=link<i>|ue via_link=        (LTE plans: static routes instead of global routing)
//!   epc, cell, rlc, ue, move                    (the LTE cell: see lte.cc)
//!   chan, object, attr, fading, mobility        (its channel model: see channel.cc)
//!   interference, icell                         (its interfering cells: see interferers.cc)
//!   net, nenb, nue                              (a network of cells with handover: see lte.cc)
//!   diag                                        (diagnostic options, never by default: diag.cc)
//!   bss, sta                                    (the Wi-Fi BSS: see wifi.cc)
//!   flow idx= src= dst= transport=tcp|udp app=bulk|finite|rate_limited|cbr bytes= rate_bps=
//!        write_bytes= start_s= stop_s= port= cca= (ns-3 TypeId) and TCP attributes (see ApplyTcp)
//! Output (OUTDIR): flows.csv, slots.csv, cwnd.csv, rtt.csv, queues.csv, lte.csv, wifi.csv (columns
//! in their headers; times in ns of scenario time, counters cumulative) and summary.json.
//!
//! Why a C++ driver and not the Python bindings: the trace sinks run per packet and per ACK,
//! where a cppyy callback into Python costs microseconds each, and the bindings JIT-compile
//! headers for seconds at start-up; a compiled driver pays its compile once (cached).

#include "driver.h"

#include <fstream>
#include <sstream>

namespace cellcc
{

Time g_t0;

void FreeFlowTraces(World& w);

namespace
{

std::vector<Record>
ReadPlan(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw std::runtime_error("cannot read plan " + path);
    }
    std::vector<Record> out;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream words(line);
        Record r;
        if (!(words >> r.kind) || r.kind[0] == '#')
        {
            continue;
        }
        std::string kv;
        while (words >> kv)
        {
            auto eq = kv.find('=');
            r.fields[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
        }
        out.push_back(r);
    }
    return out;
}

}

void
CountDropOfIpPacket(World* w, Ptr<Packet> p)
{
    Ipv4Header ip;
    p->RemoveHeader(ip);
    if (ip.GetFragmentOffset() != 0)
    {
        return;
    }
    uint16_t port = 0;
    if (ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TcpHeader h;
        p->PeekHeader(h);
        port = h.GetDestinationPort();
    }
    else if (ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER)
    {
        UdpHeader h;
        p->PeekHeader(h);
        port = h.GetDestinationPort();
    }
    auto it = w->flowOfPort.find(port);
    if (it != w->flowOfPort.end())
    {
        g_counters[it->second].otherDrops++;
    }
}

namespace
{

/// A frame the receiving device's error model dropped: PPP header, then the IP packet.
void
CountErrorDrop(World* w, Ptr<const Packet> p)
{
    Ptr<Packet> copy = p->Copy();
    PppHeader ppp;
    copy->RemoveHeader(ppp);
    CountDropOfIpPacket(w, copy);
}

void
BuildLink(World& w, const Record& r)
{
    PointToPointHelper p2p;
    // Without a queue disc, a full device queue with flow control stops the TX queue and the
    // traffic-control layer drops later packets itself (TrafficControlLayer::Send), unseen by the
    // queue's Drop trace and FlowMonitor: without flow control the device queue drops them.
    // A marking direction needs flow control: its queue disc holds the backlog only while the
    // stopped device queue refuses more (QueueDisc::Restart).
    bool marking = r.U64("ecn_k_ab") > 0 || r.U64("ecn_k_ba") > 0;
    if (!marking)
    {
        p2p.DisableFlowControl();
    }
    p2p.SetChannelAttribute("Delay", TimeValue(Seconds(r.Num("delay_s"))));
    uint32_t a = r.U64("a");
    uint32_t b = r.U64("b");
    NetDeviceContainer devs = p2p.Install(w.nodes.Get(a), w.nodes.Get(b));
    const char* dirs[2] = {"ab", "ba"};
    for (int i = 0; i < 2; i++)
    {
        auto dev = DynamicCast<PointToPointNetDevice>(devs.Get(i));
        auto peer = DynamicCast<PointToPointNetDevice>(devs.Get(1 - i));
        std::string d = dirs[i];
        dev->SetDataRate(DataRate(static_cast<uint64_t>(r.Num("rate_" + d + "_bps"))));
        dev->SetMtu(static_cast<uint16_t>(r.U64("mtu")));
        // A marking direction's device queue holds one frame behind the one on the wire; the
        // scenario's queue is the RED queue disc in front of it (InstallMarkingQueue).
        dev->GetQueue()->SetMaxSize(QueueSize(r.U64("ecn_k_" + d) > 0 ? "1p" : r.Str("q_" + d)));
        double lossP = r.Num("loss_" + d);
        if (lossP > 0)
        {
            // Random loss of this direction: at the receiving device, per packet (error-model.cc).
            auto em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(lossP);
            em->AssignStreams(1000 + 2 * r.U64("idx") + i);
            peer->SetReceiveErrorModel(em);
            peer->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&CountErrorDrop, &w));
        }
    }
    w.links.push_back(devs);
    w.linkIdx.push_back(r.U64("idx"));
}

/// Ipv4AddressHelper::Assign installs a pfifo_fast queue disc (1000 packets) in front of a device
/// that has a queue interface; the scenario's queue is the device's own drop-tail queue, alone.
void
RemoveQueueDiscs(const NetDeviceContainer& devs)
{
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        auto tc = devs.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(devs.Get(i)))
        {
            tc->DeleteRootQueueDiscOnDevice(devs.Get(i));
        }
    }
}

/// The engine's step-marking drop-tail queue (link/channel.rs `marks_ce`, RFC 8257 §3.1: CE when
/// at least K packets wait) as ns-3's DCTCP set-up does it (src/internet/doc/tcp.rst, "DCTCP"):
/// RedQueueDisc with ECN, no hard drop, QW = 1 (the instantaneous queue, red-queue-disc.cc
/// Estimator) and MinTh = MaxTh (not Gentle: every packet at or above MaxTh is a forced mark,
/// DoEnqueue). The disc counts packets waiting behind the device queue's one (flow control), so
/// K - 1 of its packets are the engine's K; its thresholds are bytes when its size is (a full
/// MTU frame per packet), and its limit is the scenario's less that one device frame.
void
InstallMarkingQueue(Ptr<NetDevice> dev, const Record& r, const std::string& d)
{
    uint64_t k = r.U64("ecn_k_" + d);
    if (k == 0)
    {
        return;
    }
    uint64_t mtu = r.U64("mtu");
    QueueSize limit(r.Str("q_" + d));
    bool bytes = limit.GetUnit() == QueueSizeUnit::BYTES;
    double th = static_cast<double>(bytes ? (k - 1) * mtu : k - 1);
    QueueSize discLimit(limit.GetUnit(), limit.GetValue() - (bytes ? mtu : 1));
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "UseEcn", BooleanValue(true),
                         "UseHardDrop", BooleanValue(false),
                         "Gentle", BooleanValue(false),
                         "QW", DoubleValue(1.0),
                         "MinTh", DoubleValue(th),
                         "MaxTh", DoubleValue(th),
                         "MeanPktSize", UintegerValue(mtu),
                         "MaxSize", QueueSizeValue(discLimit));
    tch.Install(dev);
}

void
ChangeRate(Ptr<PointToPointNetDevice> dev, uint64_t bps)
{
    dev->SetDataRate(DataRate(bps));
}

//! The device queue holds frames with their PPP header (PppHeader::GetSerializedSize, 2 bytes);
//! the tables count IP bytes, as the engine's queues do.
constexpr uint32_t kPppHeaderBytes = 2;

uint64_t
IpBytes(uint64_t frameBytes, uint64_t packets)
{
    return frameBytes - uint64_t{kPppHeaderBytes} * packets;
}

uint64_t
IpBytes(Ptr<Queue<Packet>> q)
{
    return IpBytes(q->GetNBytes(), q->GetNPackets());
}

/// Queue::DoEnqueue/DoDequeue (queue.h) update the byte count before the packet count, and
/// TracedValue::Set calls its sinks before storing the new value: here the queue's byte count
/// is current, its packet count is the new value passed in, not yet GetNPackets().
void
OnQueuePackets(uint64_t* maxBytes, Ptr<Queue<Packet>> q, uint32_t, uint32_t packets)
{
    *maxBytes = std::max<uint64_t>(*maxBytes, IpBytes(q->GetNBytes(), packets));
}

/// The device's root queue disc: a marking direction's RED (InstallMarkingQueue), else none.
Ptr<QueueDisc>
RootDisc(Ptr<NetDevice> dev)
{
    auto tc = dev->GetNode()->GetObject<TrafficControlLayer>();
    return tc ? tc->GetRootQueueDiscOnDevice(dev) : nullptr;
}

/// Cumulative per-flow and per-queue counters at each slot's end.
struct Sampler
{
    World* w;
    Ptr<FlowMonitor> monitor;
    Ptr<Ipv4FlowClassifier> classifier;
    FILE* slotsOut;
    FILE* queuesOut;
    LteCell* lte = nullptr;
    FILE* lteOut = nullptr;
    WifiBss* bss = nullptr;
    FILE* wifiOut = nullptr;
    uint64_t slot = 0;
    std::vector<uint64_t> queueDrops;
    std::vector<uint64_t> queueMaxBytes;

    void Sample()
    {
        int64_t nowNs = NowNs();
        for (const auto& [id, s] : monitor->GetFlowStats())
        {
            auto tuple = classifier->FindFlow(id);
            auto it = w->flowOfPort.find(tuple.destinationPort);
            if (it == w->flowOfPort.end())
            {
                continue;
            }
            uint32_t idx = it->second;
            uint64_t dropped = 0;
            for (auto d : s.packetsDropped)
            {
                dropped += d;
            }
            std::fprintf(slotsOut,
                         "%u,%lld,%llu,%llu,%lld,%llu,%llu,%llu\n",
                         idx,
                         static_cast<long long>(nowNs),
                         static_cast<unsigned long long>(s.rxBytes),
                         static_cast<unsigned long long>(s.rxPackets),
                         static_cast<long long>(s.delaySum.GetNanoSeconds()),
                         static_cast<unsigned long long>(dropped + g_counters[idx].otherDrops),
                         static_cast<unsigned long long>(g_counters[idx].appRxBytes),
                         static_cast<unsigned long long>(g_counters[idx].retransmits));
        }
        SampleQueues(nowNs);
        if (lte)
        {
            SampleCell(lte, lteOut, nowNs);
        }
        if (bss)
        {
            SampleBss(bss, wifiOut, nowNs);
        }
        slot++;
        if (nowNs < static_cast<int64_t>(w->durationS * 1e9))
        {
            Simulator::Schedule(Seconds(w->slotS), &Sampler::Sample, this);
        }
    }

    void SampleQueues(int64_t nowNs)
    {
        for (size_t l = 0; l < w->links.size(); l++)
        {
            for (int i = 0; i < 2; i++)
            {
                auto q = DynamicCast<PointToPointNetDevice>(w->links[l].Get(i))->GetQueue();
                size_t k = 2 * l + i;
                // A marking direction's backlog is mostly in its queue disc (IP packets).
                Ptr<QueueDisc> disc = RootDisc(w->links[l].Get(i));
                uint64_t bytes = IpBytes(q) + (disc ? disc->GetNBytes() : 0);
                uint32_t packets = q->GetNPackets() + (disc ? disc->GetNPackets() : 0);
                std::fprintf(queuesOut,
                             "%u,%d,%lld,%llu,%u,%llu,%llu\n",
                             w->linkIdx[l],
                             i,
                             static_cast<long long>(nowNs),
                             static_cast<unsigned long long>(bytes),
                             packets,
                             static_cast<unsigned long long>(std::max(queueMaxBytes[k], bytes)),
                             static_cast<unsigned long long>(queueDrops[k]));
                queueMaxBytes[k] = bytes;
            }
        }
    }
};

void
OnQueueDrop(uint64_t* drops, Ptr<const Packet>)
{
    (*drops)++;
}

void
OnDiscDrop(uint64_t* drops, Ptr<const QueueDiscItem>)
{
    (*drops)++;
}

void
WatchQueues(World& w, Sampler& s)
{
    s.queueDrops.assign(2 * w.links.size(), 0);
    s.queueMaxBytes.assign(2 * w.links.size(), 0);
    for (size_t l = 0; l < w.links.size(); l++)
    {
        for (int i = 0; i < 2; i++)
        {
            auto q = DynamicCast<PointToPointNetDevice>(w.links[l].Get(i))->GetQueue();
            size_t k = 2 * l + i;
            q->TraceConnectWithoutContext("PacketsInQueue",
                                          MakeBoundCallback(&OnQueuePackets, &s.queueMaxBytes[k], q));
            q->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnQueueDrop, &s.queueDrops[k]));
            if (Ptr<QueueDisc> disc = RootDisc(w.links[l].Get(i)))
            {
                disc->TraceConnectWithoutContext("Drop", MakeBoundCallback(&OnDiscDrop, &s.queueDrops[k]));
            }
        }
    }
}

void
WriteFlows(const std::string& dir, World& w, Ptr<FlowMonitor> monitor, Ptr<Ipv4FlowClassifier> cls)
{
    FILE* out = std::fopen((dir + "/flows.csv").c_str(), "w");
    std::fprintf(out,
                 "idx,tx_packets,tx_bytes,rx_packets,rx_bytes,lost_packets,delay_sum_ns,jitter_sum_ns,"
                 "first_tx_ns,last_rx_ns,app_rx_bytes,last_app_rx_ns,retransmits,timeouts\n");
    for (const auto& [id, s] : monitor->GetFlowStats())
    {
        auto it = w.flowOfPort.find(cls->FindFlow(id).destinationPort);
        if (it == w.flowOfPort.end())
        {
            continue;
        }
        const FlowCounters& c = g_counters[it->second];
        uint64_t dropped = c.otherDrops;
        for (auto d : s.packetsDropped)
        {
            dropped += d;
        }
        std::fprintf(out,
                     "%u,%u,%llu,%u,%llu,%llu,%lld,%lld,%lld,%lld,%llu,%lld,%llu,%llu\n",
                     it->second,
                     s.txPackets,
                     static_cast<unsigned long long>(s.txBytes),
                     s.rxPackets,
                     static_cast<unsigned long long>(s.rxBytes),
                     static_cast<unsigned long long>(dropped),
                     static_cast<long long>(s.delaySum.GetNanoSeconds()),
                     static_cast<long long>(s.jitterSum.GetNanoSeconds()),
                     static_cast<long long>((s.timeFirstTxPacket - g_t0).GetNanoSeconds()),
                     static_cast<long long>((s.timeLastRxPacket - g_t0).GetNanoSeconds()),
                     static_cast<unsigned long long>(c.appRxBytes),
                     static_cast<long long>(c.lastAppRxNs),
                     static_cast<unsigned long long>(c.retransmits),
                     static_cast<unsigned long long>(c.timeouts));
    }
    std::fclose(out);
}

FILE*
OpenCsv(const std::string& dir, const char* name, const char* header)
{
    FILE* f = std::fopen((dir + "/" + name).c_str(), "w");
    if (!f)
    {
        throw std::runtime_error(std::string("cannot write ") + name);
    }
    std::fprintf(f, "%s\n", header);
    return f;
}
/// The plan's records by kind, in plan order.
struct Plan
{
    const Record* run = nullptr;
    const Record* epc = nullptr;
    const Record* cell = nullptr;
    const Record* rlc = nullptr;
    const Record* bss = nullptr;
    std::vector<const Record*> nodes, links, changes, routes, flows, stas;
    LtePlanRecords lte;
};

Plan
Sort(const std::vector<Record>& records)
{
    Plan p;
    std::map<std::string, const Record**> one{{"run", &p.run},
                                              {"epc", &p.epc},
                                              {"cell", &p.cell},
                                              {"rlc", &p.rlc},
                                              {"bss", &p.bss},
                                              {"chan", &p.lte.chan},
                                              {"fading", &p.lte.fading},
                                              {"interference", &p.lte.interference},
                                              {"diag", &p.lte.diag},
                                              {"net", &p.lte.net}};
    std::map<std::string, std::vector<const Record*>*> many{{"node", &p.nodes},
                                                            {"link", &p.links},
                                                            {"change", &p.changes},
                                                            {"route", &p.routes},
                                                            {"ue", &p.lte.ues},
                                                            {"move", &p.lte.moves},
                                                            {"object", &p.lte.objects},
                                                            {"attr", &p.lte.attrs},
                                                            {"mobility", &p.lte.mobility},
                                                            {"icell", &p.lte.icells},
                                                            {"nenb", &p.lte.nenbs},
                                                            {"nue", &p.lte.nues},
                                                            {"flow", &p.flows},
                                                            {"sta", &p.stas}};
    for (const Record& r : records)
    {
        if (auto it = one.find(r.kind); it != one.end())
        {
            *it->second = &r;
        }
        else if (auto jt = many.find(r.kind); jt != many.end())
        {
            jt->second->push_back(&r);
        }
        else
        {
            throw std::runtime_error("unknown plan record '" + r.kind + "'");
        }
    }
    if (!p.run || (p.cell && (!p.epc || !p.rlc)))
    {
        throw std::runtime_error("plan lacks its run record, or a cell its epc/rlc records");
    }
    return p;
}

/// Link i's subnet, 172.16.0.0/12 cut into /24s: clear of the EPC's own networks (S1-U 10.0.0.0,
/// X2 12.0.0.0, S5 13.0.0.0, S11 14.0.0.0, UEs 7.0.0.0; no-backhaul-epc-helper.cc and
/// point-to-point-epc-helper.cc).
Ipv4Address
LinkNetwork(uint64_t idx)
{
    std::ostringstream net;
    net << "172." << (16 + idx / 256) << "." << (idx % 256) << ".0";
    return Ipv4Address(net.str().c_str());
}

size_t
LinkPosition(const World& w, uint64_t idx)
{
    for (size_t k = 0; k < w.linkIdx.size(); k++)
    {
        if (w.linkIdx[k] == idx)
        {
            return k;
        }
    }
    throw std::runtime_error("plan names link " + std::to_string(idx) + ", which it does not build");
}

void
BuildNodes(World& w, const Plan& p, LteCell* lte)
{
    InternetStackHelper stack;
    for (const Record* r : p.nodes)
    {
        const std::string& role = r->Str("role");
        if (role == "pgw")
        {
            w.nodes.Add(PgwNode(lte));
            continue;
        }
        Ptr<Node> n = CreateObject<Node>();
        w.nodes.Add(n);
        // The EPC helper gives the eNB its stack when it builds S1-U (NoBackhaulEpcHelper::AddEnb).
        if (role != "enb")
        {
            stack.Install(n);
        }
    }
}

void
BuildLinks(World& w, const Plan& p)
{
    for (const Record* r : p.links)
    {
        BuildLink(w, *r);
        Ipv4AddressHelper ip;
        ip.SetBase(LinkNetwork(r->U64("idx")), "255.255.255.0");
        w.addrs.push_back(ip.Assign(w.links.back()));
        RemoveQueueDiscs(w.links.back());
        InstallMarkingQueue(w.links.back().Get(0), *r, "ab");
        InstallMarkingQueue(w.links.back().Get(1), *r, "ba");
    }
    for (const Record* r : p.changes)
    {
        auto dev = DynamicCast<PointToPointNetDevice>(
            w.links.at(LinkPosition(w, r->U64("link"))).Get(r->Str("dir") == "ab" ? 0 : 1));
        Simulator::Schedule(At(r->Num("at_s")), &ChangeRate, dev, static_cast<uint64_t>(r->Num("rate_bps")));
    }
}

/// route node= net=link<i>|ue via_link=: to that network through the peer across via_link.
void
AddRoute(World& w, LteCell* lte, const Record& r)
{
    Ptr<Node> node = w.nodes.Get(r.U64("node"));
    size_t pos = LinkPosition(w, r.U64("via_link"));
    const NetDeviceContainer& devs = w.links[pos];
    uint32_t local = devs.Get(0)->GetNode() == node ? 0 : 1;
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    auto routing = Ipv4StaticRoutingHelper().GetStaticRouting(ipv4);
    Ipv4Address next = w.addrs[pos].GetAddress(1 - local);
    uint32_t ifIndex = ipv4->GetInterfaceForDevice(devs.Get(local));
    const std::string& net = r.Str("net");
    if (net == "ue")
    {
        routing->AddNetworkRouteTo(UeNetwork(lte), UeMask(), next, ifIndex);
    }
    else
    {
        routing->AddNetworkRouteTo(LinkNetwork(std::stoull(net.substr(4))), Ipv4Mask("255.255.255.0"), next, ifIndex);
    }
}

void
WriteSummary(const std::string& dir)
{
    FILE* summary = std::fopen((dir + "/summary.json").c_str(), "w");
    std::fprintf(summary,
                 "{\"ns3_version\": \"3.44\", \"sim_end_s\": %.9f, \"warmup_s\": %.9f}\n",
                 static_cast<double>(NowNs()) / 1e9,
                 g_t0.GetSeconds());
    std::fclose(summary);
}

void
Run(const std::vector<Record>& records, const std::string& dir)
{
    Plan p = Sort(records);
    World w;
    w.durationS = p.run->Num("duration_s");
    w.slotS = p.run->Num("slot_s");
    g_t0 = Seconds(p.run->Num("t0_s"));
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(p.run->U64("seed"));
    FILE* cwndOut = OpenCsv(dir, "cwnd.csv", "idx,t_ns,cwnd_bytes,ssthresh_bytes,pacing_bps,ca_state");
    FILE* rttOut = OpenCsv(dir, "rtt.csv", "idx,t_ns,rtt_ns,srtt_ns");
    FILE* slotsOut = OpenCsv(dir,
                             "slots.csv",
                             "idx,t_ns,rx_bytes,rx_packets,delay_sum_ns,lost_packets,app_rx_bytes,retransmits");
    FILE* queuesOut = OpenCsv(dir, "queues.csv", "link,dir,t_ns,bytes,packets,max_bytes,drops");
    FILE* lteOut = OpenCsv(dir,
                           "lte.csv",
                           "ue,dir,t_ns,tbs,mcs_sum,decoded_bits,harq_retx,residual,rlc_drops,sinr_sum,sinr_n");
    FILE* wifiOut = OpenCsv(dir, "wifi.csv", "sta,dir,t_ns,ppdus,mcs_sum,mpdus,bytes,airtime_ns");
    LteCell* lte = nullptr;
    if (p.cell)
    {
        ConfigureLte(*p.cell, *p.rlc, p.lte.chan);
        if (p.lte.diag)
        {
            ConfigureDiag(*p.lte.diag);
        }
        lte = CreateLte(*p.epc);
    }
    BuildNodes(w, p, lte);
    BuildLinks(w, p);
    WifiBss* bss = p.bss ? BuildBss(w, *p.bss, p.stas) : nullptr;
    if (lte)
    {
        p.lte.cell = p.cell;
        BuildCell(w, lte, p.lte, dir);
        InstallBuildingInfo(p.lte);
        for (const Record* r : p.routes)
        {
            AddRoute(w, lte, *r);
        }
        Simulator::Schedule(g_t0, &StartCell, &w, lte);
    }
    else
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    g_counters.assign(p.flows.size(), FlowCounters{});
    for (const Record* f : p.flows)
    {
        BuildFlow(w, *f, cwndOut, rttOut);
    }
    FlowMonitorHelper fmh;
    Ptr<FlowMonitor> monitor = fmh.Install(w.nodes);
    auto cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    Sampler sampler{&w, monitor, cls, slotsOut, queuesOut, lte, lteOut, bss, wifiOut};
    WatchQueues(w, sampler);
    Simulator::Schedule(At(w.slotS), &Sampler::Sample, &sampler);
    // One nanosecond past the end, so the last slot's sample (at durationS) runs before the stop.
    Simulator::Stop(At(w.durationS) + NanoSeconds(1));
    Simulator::Run();
    WriteFlows(dir, w, monitor, cls);
    WriteInterference(dir);
    CloseNetworkTraces(lte);
    for (FILE* f : {cwndOut, rttOut, slotsOut, queuesOut, lteOut, wifiOut})
    {
        std::fclose(f);
    }
    WriteSummary(dir);
    StopDiagTrace();
    Simulator::Destroy();
    FreeFlowTraces(w);
    FreeLte(lte);
    FreeBss(bss);
}

} // namespace
} // namespace cellcc

int
main(int argc, char** argv)
{
    if (argc != 3)
    {
        std::fprintf(stderr, "usage: %s PLAN OUTDIR\n", argv[0]);
        return 2;
    }
    try
    {
        cellcc::Run(cellcc::ReadPlan(argv[1]), argv[2]);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "cellcc-ns3-driver: %s\n", e.what());
        return 1;
    }
    return 0;
}
