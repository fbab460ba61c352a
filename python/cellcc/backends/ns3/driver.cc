//! cellcc's ns-3 driver: runs one cellcc scenario, already translated by `plan.py` into a
//! line-based plan, on ns-3 3.44 and writes the raw tables `tables.py` turns into the engine's.
//!
//!   cellcc-ns3-driver PLAN OUTDIR
//!
//! Plan: one record a line, `kind key=value key=value ...` (no JSON library ships with ns-3):
//!   run duration_s= seed= slot_s=
//!   node idx=                                   (nodes are numbered 0..n-1 by the plan)
//!   link idx= a= b= mtu= delay_s= rate_ab_bps= rate_ba_bps= q_ab= q_ba= loss_ab= loss_ba=
//!        (queue limit as ns-3's QueueSize text, "100p" or "150000B")
//!   change link= dir=ab|ba at_s= rate_bps=
//!   flow idx= src= dst= transport=tcp|udp app=bulk|finite|rate_limited|cbr bytes= rate_bps=
//!        write_bytes= start_s= stop_s= port= cca= (ns-3 TypeId) and TCP attributes (see ApplyTcp)
//! Output (OUTDIR): flows.csv, slots.csv, cwnd.csv, rtt.csv, queues.csv (columns in their
//! headers; times in ns, counters cumulative) and summary.json.
//!
//! Why a C++ driver and not the Python bindings: the trace sinks run per packet and per ACK,
//! where a cppyy callback into Python costs microseconds each, and the bindings JIT-compile
//! headers for seconds at start-up; a compiled driver pays its compile once (cached).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

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

/// What the driver counts of one flow beyond FlowMonitor.
struct FlowCounters
{
    uint64_t appRxBytes = 0;
    int64_t lastAppRxNs = -1;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    uint64_t errorDrops = 0;
};

/// The flow's state traces, and the file they are written to.
struct FlowTrace
{
    uint32_t idx;
    FILE* cwndOut;
    FILE* rttOut;
    uint32_t cwnd = 0;
    uint32_t ssthresh = 0;
    uint64_t pacingBps = 0;
    bool pacing = false;
    int caState = 0;
    int64_t lastRttNs = 0;
    bool established = false;

    void EmitCwnd()
    {
        std::fprintf(cwndOut,
                     "%u,%lld,%u,%u,%llu,%d\n",
                     idx,
                     static_cast<long long>(Simulator::Now().GetNanoSeconds()),
                     cwnd,
                     ssthresh,
                     static_cast<unsigned long long>(pacing ? pacingBps : 0),
                     caState);
    }
};

std::vector<FlowCounters> g_counters;

void
OnCwnd(FlowTrace* t, uint32_t, uint32_t v)
{
    t->cwnd = v;
    t->EmitCwnd();
}

void
OnSsthresh(FlowTrace* t, uint32_t, uint32_t v)
{
    t->ssthresh = v;
    t->EmitCwnd();
}

void
OnPacing(FlowTrace* t, DataRate, DataRate v)
{
    t->pacingBps = v.GetBitRate();
    if (t->pacing)
    {
        t->EmitCwnd();
    }
}

void
OnCongState(FlowTrace* t, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v)
{
    // ns-3 enters CA_LOSS only on a retransmission timeout (TcpSocketBase::ReTxTimeout).
    if (v == TcpSocketState::CA_LOSS && t->caState != TcpSocketState::CA_LOSS)
    {
        g_counters[t->idx].timeouts++;
    }
    t->caState = v;
    t->EmitCwnd();
}

void
OnLastRtt(FlowTrace* t, Time, Time v)
{
    t->lastRttNs = v.GetNanoSeconds();
}

// TcpSocketBase::EstimateRtt sets m_lastRtt, then m_srtt: a row per smoothed update.
void
OnSrtt(FlowTrace* t, Time, Time v)
{
    std::fprintf(t->rttOut,
                 "%u,%lld,%lld,%lld\n",
                 t->idx,
                 static_cast<long long>(Simulator::Now().GetNanoSeconds()),
                 static_cast<long long>(t->lastRttNs),
                 static_cast<long long>(v.GetNanoSeconds()));
}

void
OnRetransmission(uint32_t idx,
                 Ptr<const Packet>,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    g_counters[idx].retransmits++;
}

/// The sending application: bulk, finite, rate-limited (TCP) or constant bit rate (UDP).
class CellccSender : public Application
{
  public:
    CellccSender(Ptr<Socket> socket, const Record& f, Address peer)
        : m_socket(socket),
          m_peer(peer),
          m_app(f.Str("app")),
          m_totalBytes(f.U64("bytes")),
          m_rateBps(f.Num("rate_bps")),
          m_writeBytes(static_cast<uint32_t>(f.U64("write_bytes")))
    {
    }

  private:
    void StartApplication() override
    {
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_running = true;
        if (m_app == "cbr" || m_app == "rate_limited")
        {
            ScheduleTick();
        }
        if (m_app != "cbr")
        {
            m_socket->SetSendCallback(MakeCallback(&CellccSender::OnSendSpace, this));
            m_socket->SetConnectCallback(MakeCallback(&CellccSender::OnConnected, this),
                                         MakeNullCallback<void, Ptr<Socket>>());
        }
    }

    void StopApplication() override
    {
        m_running = false;
        Simulator::Cancel(m_tick);
        if (m_app != "finite" || m_sent < m_totalBytes)
        {
            m_socket->Close();
        }
    }

    void OnConnected(Ptr<Socket>)
    {
        m_connected = true;
        Fill();
    }

    void OnSendSpace(Ptr<Socket>, uint32_t)
    {
        Fill();
    }

    void ScheduleTick()
    {
        m_tick = Simulator::Schedule(Seconds(m_writeBytes * 8.0 / m_rateBps), &CellccSender::Tick, this);
    }

    void Tick()
    {
        if (m_app == "cbr")
        {
            m_socket->Send(Create<Packet>(m_writeBytes));
        }
        else
        {
            m_pending += m_writeBytes;
            Fill();
        }
        ScheduleTick();
    }

    /// Write what the app has (bulk: unlimited) into the socket's free send buffer.
    void Fill()
    {
        if (!m_running || !m_connected || m_app == "cbr")
        {
            return;
        }
        while (true)
        {
            uint64_t want = m_app == "bulk" ? UINT64_MAX
                            : m_app == "finite" ? m_totalBytes - m_sent
                                                : m_pending;
            uint64_t room = m_socket->GetTxAvailable();
            uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({want, room, kWriteChunk}));
            if (n == 0 || m_socket->Send(Create<Packet>(n)) < 0)
            {
                break;
            }
            m_sent += n;
            m_pending -= std::min<uint64_t>(m_pending, n);
        }
        if (m_app == "finite" && m_sent == m_totalBytes && !m_closed)
        {
            m_closed = true;
            m_socket->Close();
        }
    }

    //! Largest single write: ns-3's BulkSendApplication SendSize default is 512; any size
    //! works since TCP segments the byte stream itself.
    static constexpr uint64_t kWriteChunk = 65536;
    Ptr<Socket> m_socket;
    Address m_peer;
    std::string m_app;
    uint64_t m_totalBytes;
    double m_rateBps;
    uint32_t m_writeBytes;
    uint64_t m_sent = 0;
    uint64_t m_pending = 0;
    bool m_running = false;
    bool m_connected = false;
    bool m_closed = false;
    EventId m_tick;
};

/// The receiving application: counts application bytes and the time of the last.
class CellccSink : public Application
{
  public:
    CellccSink(Ptr<Socket> socket, uint32_t idx)
        : m_socket(socket),
          m_idx(idx)
    {
    }

  private:
    void StartApplication() override
    {
        m_socket->SetRecvCallback(MakeCallback(&CellccSink::OnRecv, this));
        m_socket->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&CellccSink::OnAccept, this));
        m_socket->Listen();
    }

    void StopApplication() override
    {
    }

    void OnAccept(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&CellccSink::OnRecv, this));
    }

    void OnRecv(Ptr<Socket> s)
    {
        Address from;
        while (Ptr<Packet> p = s->RecvFrom(from))
        {
            if (p->GetSize() == 0)
            {
                break;
            }
            g_counters[m_idx].appRxBytes += p->GetSize();
            g_counters[m_idx].lastAppRxNs = Simulator::Now().GetNanoSeconds();
        }
    }

    Ptr<Socket> m_socket;
    uint32_t m_idx;
};

/// TCP attributes of one flow, as defaults for the sockets created next (the sender's and the
/// sink's listening socket, whose accepted sockets inherit them: TcpSocketBase's copy constructor).
void
ApplyTcp(const Record& f)
{
    auto u = [&](const char* name, const char* key) {
        Config::SetDefault(name, UintegerValue(f.U64(key)));
    };
    auto b = [&](const char* name, const char* key) {
        Config::SetDefault(name, BooleanValue(f.Str(key) == "1"));
    };
    auto t = [&](const char* name, const char* key) {
        Config::SetDefault(name, TimeValue(Seconds(f.Num(key))));
    };
    u("ns3::TcpSocket::SegmentSize", "mss");
    u("ns3::TcpSocket::InitialCwnd", "init_cwnd");
    u("ns3::TcpSocket::DelAckCount", "delack_count");
    t("ns3::TcpSocket::DelAckTimeout", "delack_timeout_s");
    u("ns3::TcpSocket::SndBufSize", "sndbuf");
    u("ns3::TcpSocket::RcvBufSize", "rcvbuf");
    t("ns3::TcpSocket::ConnTimeout", "conn_timeout_s");
    u("ns3::TcpSocket::ConnCount", "syn_retries");
    b("ns3::TcpSocketBase::Sack", "sack");
    b("ns3::TcpSocketBase::Timestamp", "timestamps");
    t("ns3::TcpSocketBase::MinRto", "min_rto_s");
    u("ns3::TcpSocketBase::ReTxThreshold", "dupack_threshold");
    b("ns3::TcpSocketState::EnablePacing", "pacing");
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(f.Str("ecn") == "1" ? TcpSocketState::On : TcpSocketState::Off));
    // Nagle off: the engine's and Linux's bulk senders never hold back a sub-MSS tail.
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
}

/// The plan, built into ns-3 objects.
struct World
{
    NodeContainer nodes;
    std::vector<NetDeviceContainer> links;
    std::vector<Ipv4InterfaceContainer> addrs;
    std::vector<FlowTrace*> traces;
    std::map<uint16_t, uint32_t> flowOfPort;
    double durationS = 0;
    double slotS = 0.1;
};

void
CountErrorDrop(World* w, Ptr<const Packet> p)
{
    Ptr<Packet> copy = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    copy->RemoveHeader(ppp);
    copy->RemoveHeader(ip);
    if (ip.GetFragmentOffset() != 0)
    {
        return;
    }
    uint16_t port = 0;
    if (ip.GetProtocol() == TcpL4Protocol::PROT_NUMBER)
    {
        TcpHeader h;
        copy->PeekHeader(h);
        port = h.GetDestinationPort();
    }
    else if (ip.GetProtocol() == UdpL4Protocol::PROT_NUMBER)
    {
        UdpHeader h;
        copy->PeekHeader(h);
        port = h.GetDestinationPort();
    }
    auto it = w->flowOfPort.find(port);
    if (it != w->flowOfPort.end())
    {
        g_counters[it->second].errorDrops++;
    }
}

void
BuildLink(World& w, const Record& r)
{
    PointToPointHelper p2p;
    // Without a queue disc, a full device queue with flow control stops the TX queue and the
    // traffic-control layer drops later packets itself (TrafficControlLayer::Send), unseen by the
    // queue's Drop trace and FlowMonitor: without flow control the device queue drops them.
    p2p.DisableFlowControl();
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
        dev->GetQueue()->SetMaxSize(QueueSize(r.Str("q_" + d)));
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

void
ChangeRate(Ptr<PointToPointNetDevice> dev, uint64_t bps)
{
    dev->SetDataRate(DataRate(bps));
}

void
BuildFlow(World& w, const Record& f, FILE* cwndOut, FILE* rttOut)
{
    uint32_t idx = f.U64("idx");
    Ptr<Node> src = w.nodes.Get(f.U64("src"));
    Ptr<Node> dst = w.nodes.Get(f.U64("dst"));
    auto port = static_cast<uint16_t>(f.U64("port"));
    w.flowOfPort[port] = idx;
    Ipv4Address dstAddr = dst->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    bool tcp = f.Str("transport") == "tcp";
    Ptr<Socket> sender;
    Ptr<Socket> listener;
    if (tcp)
    {
        ApplyTcp(f);
        TypeId cca = TypeId::LookupByName(f.Str("cca"));
        sender = src->GetObject<TcpL4Protocol>()->CreateSocket(cca);
        listener = dst->GetObject<TcpL4Protocol>()->CreateSocket(cca);
        auto* t = new FlowTrace{idx, cwndOut, rttOut};
        t->pacing = f.Str("pacing") == "1" || f.Str("cca") == "ns3::TcpBbr";
        w.traces.push_back(t);
        sender->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, t));
        sender->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, t));
        sender->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&OnPacing, t));
        sender->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, t));
        sender->TraceConnectWithoutContext("LastRTT", MakeBoundCallback(&OnLastRtt, t));
        sender->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnSrtt, t));
        sender->TraceConnectWithoutContext("Retransmission",
                                           MakeBoundCallback(&OnRetransmission, idx));
    }
    else
    {
        sender = Socket::CreateSocket(src, UdpSocketFactory::GetTypeId());
        listener = Socket::CreateSocket(dst, UdpSocketFactory::GetTypeId());
    }
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    auto sink = Create<CellccSink>(listener, idx);
    dst->AddApplication(sink);
    sink->SetStartTime(Seconds(0));
    auto app = Create<CellccSender>(sender, f, InetSocketAddress(dstAddr, port));
    src->AddApplication(app);
    app->SetStartTime(Seconds(f.Num("start_s")));
    app->SetStopTime(Seconds(f.Num("stop_s")));
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

/// Cumulative per-flow and per-queue counters at each slot's end.
struct Sampler
{
    World* w;
    Ptr<FlowMonitor> monitor;
    Ptr<Ipv4FlowClassifier> classifier;
    FILE* slotsOut;
    FILE* queuesOut;
    uint64_t slot = 0;
    std::vector<uint64_t> queueDrops;
    std::vector<uint64_t> queueMaxBytes;

    void Sample()
    {
        int64_t nowNs = Simulator::Now().GetNanoSeconds();
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
                         static_cast<unsigned long long>(dropped + g_counters[idx].errorDrops),
                         static_cast<unsigned long long>(g_counters[idx].appRxBytes),
                         static_cast<unsigned long long>(g_counters[idx].retransmits));
        }
        SampleQueues(nowNs);
        slot++;
        if (Simulator::Now().GetSeconds() + 1e-12 < w->durationS)
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
                std::fprintf(queuesOut,
                             "%zu,%d,%lld,%llu,%u,%llu,%llu\n",
                             l,
                             i,
                             static_cast<long long>(nowNs),
                             static_cast<unsigned long long>(IpBytes(q)),
                             q->GetNPackets(),
                             static_cast<unsigned long long>(queueMaxBytes[k]),
                             static_cast<unsigned long long>(queueDrops[k]));
                queueMaxBytes[k] = IpBytes(q);
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
        uint64_t dropped = c.errorDrops;
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
                     static_cast<long long>(s.timeFirstTxPacket.GetNanoSeconds()),
                     static_cast<long long>(s.timeLastRxPacket.GetNanoSeconds()),
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

void
Run(const std::vector<Record>& plan, const std::string& dir)
{
    World w;
    FILE* cwndOut = OpenCsv(dir, "cwnd.csv", "idx,t_ns,cwnd_bytes,ssthresh_bytes,pacing_bps,ca_state");
    FILE* rttOut = OpenCsv(dir, "rtt.csv", "idx,t_ns,rtt_ns,srtt_ns");
    FILE* slotsOut = OpenCsv(dir,
                             "slots.csv",
                             "idx,t_ns,rx_bytes,rx_packets,delay_sum_ns,lost_packets,app_rx_bytes,retransmits");
    FILE* queuesOut = OpenCsv(dir, "queues.csv", "link,dir,t_ns,bytes,packets,max_bytes,drops");
    InternetStackHelper stack;
    std::vector<const Record*> flows;
    for (const Record& r : plan)
    {
        if (r.kind == "run")
        {
            w.durationS = r.Num("duration_s");
            w.slotS = r.Num("slot_s");
            RngSeedManager::SetSeed(1);
            RngSeedManager::SetRun(r.U64("seed"));
        }
        else if (r.kind == "node")
        {
            w.nodes.Add(CreateObject<Node>());
            stack.Install(w.nodes.Get(w.nodes.GetN() - 1));
        }
        else if (r.kind == "link")
        {
            BuildLink(w, r);
            Ipv4AddressHelper ip;
            uint64_t i = w.links.size() - 1;
            std::ostringstream net;
            net << "10." << (i / 256) << "." << (i % 256) << ".0";
            ip.SetBase(net.str().c_str(), "255.255.255.0");
            w.addrs.push_back(ip.Assign(w.links.back()));
            RemoveQueueDiscs(w.links.back());
        }
        else if (r.kind == "change")
        {
            auto dev = DynamicCast<PointToPointNetDevice>(
                w.links.at(r.U64("link")).Get(r.Str("dir") == "ab" ? 0 : 1));
            Simulator::Schedule(Seconds(r.Num("at_s")), &ChangeRate, dev, static_cast<uint64_t>(r.Num("rate_bps")));
        }
        else if (r.kind == "flow")
        {
            flows.push_back(&r);
        }
    }
    g_counters.assign(flows.size(), FlowCounters{});
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    for (const Record* f : flows)
    {
        BuildFlow(w, *f, cwndOut, rttOut);
    }
    FlowMonitorHelper fmh;
    Ptr<FlowMonitor> monitor = fmh.InstallAll();
    auto cls = DynamicCast<Ipv4FlowClassifier>(fmh.GetClassifier());
    Sampler sampler{&w, monitor, cls, slotsOut, queuesOut};
    WatchQueues(w, sampler);
    Simulator::Schedule(Seconds(w.slotS), &Sampler::Sample, &sampler);
    // One nanosecond past the end, so the last slot's sample (at durationS) runs before the stop.
    Simulator::Stop(Seconds(w.durationS) + NanoSeconds(1));
    Simulator::Run();
    WriteFlows(dir, w, monitor, cls);
    for (FILE* f : {cwndOut, rttOut, slotsOut, queuesOut})
    {
        std::fclose(f);
    }
    FILE* summary = std::fopen((dir + "/summary.json").c_str(), "w");
    std::fprintf(summary,
                 "{\"ns3_version\": \"3.44\", \"sim_end_s\": %.9f}\n",
                 Simulator::Now().GetSeconds());
    std::fclose(summary);
    Simulator::Destroy();
    for (FlowTrace* t : w.traces)
    {
        delete t;
    }
}

} // namespace

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
        Run(ReadPlan(argv[1]), argv[2]);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "cellcc-ns3-driver: %s\n", e.what());
        return 1;
    }
    return 0;
}
