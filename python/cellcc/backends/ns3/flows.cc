//! cellcc's ns-3 driver, the flows: the sending application (bulk, finite, rate-limited TCP;
//! constant-bit-rate UDP), the receiving one, each flow's TCP attributes, and the TCP state
//! traces written to cwnd.csv and rtt.csv. See driver.h for the parts and the time base.

#include "driver.h"

namespace cellcc
{

std::vector<FlowCounters> g_counters;

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
                     static_cast<long long>(NowNs()),
                     cwnd,
                     ssthresh,
                     static_cast<unsigned long long>(pacing ? pacingBps : 0),
                     caState);
    }
};

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
                 static_cast<long long>(NowNs()),
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
            g_counters[m_idx].lastAppRxNs = NowNs();
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
    app->SetStartTime(At(f.Num("start_s")));
    app->SetStopTime(At(f.Num("stop_s")));
}

void
FreeFlowTraces(World& w)
{
    for (FlowTrace* t : w.traces)
    {
        delete t;
    }
    w.traces.clear();
}

} // namespace cellcc
