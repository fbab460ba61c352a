//! cellcc's ns-3 driver, a cell's channel model on LENA (channel.py makes the records and
//! explains the mapping):
//!
//!   chan dl_earfcn= ul_earfcn= enb_tx_dbm= enb_nf_db= ue_tx_dbm= ue_nf_db= enb_x_m= enb_y_m= enb_z_m=
//!        ul_pc=fixed|open_loop [pc_p0_nominal_dbm= pc_p0_ue_db= pc_alpha= pc_pcmax_dbm= pc_psrs_offset=]
//!   object role=pathloss|enb_antenna type=<ns-3 TypeId>
//!   attr role= name= value=                     (an attribute of that object, ns-3's text form)
//!   fading file= rbs= samples= length_s= window_s=
//!   ue idx= node= x_m= y_m= z_m=
//!   mobility ue= model=static|constant_velocity|random_walk|random_waypoint|waypoints [vx_mps= vy_mps=]
//!            [speed_mps= leg_s=] [min_mps= max_mps= pause_s=] [x0= y0= x1= y1=] [points=t:x:y,t:x:y,...]

#include "driver.h"

#include <cmath>
#include <sstream>

#include "ns3/antenna-module.h"
#include "ns3/buildings-helper.h"
#include "ns3/lte-module.h"
#include "ns3/mobility-module.h"

namespace cellcc
{

namespace
{

std::string
Role(const Record& r)
{
    return r.Str("role");
}

void
ApplyAttributes(const LtePlanRecords& r,
                const std::string& role,
                const std::function<void(const std::string&, const AttributeValue&)>& set)
{
    for (const Record* a : r.attrs)
    {
        if (Role(*a) == role)
        {
            set(a->Str("name"), StringValue(a->Str("value")));
        }
    }
}

std::string
TypeOf(const LtePlanRecords& r, const std::string& role)
{
    for (const Record* o : r.objects)
    {
        if (Role(*o) == role)
        {
            return o->Str("type");
        }
    }
    throw std::runtime_error("plan lacks the object record of role '" + role + "'");
}

Ptr<MobilityModel>
RandomWalk(const Record& m)
{
    auto walk = CreateObject<RandomWalk2dMobilityModel>();
    walk->SetAttribute("Mode", EnumValue(RandomWalk2dMobilityModel::MODE_TIME));
    walk->SetAttribute("Time", TimeValue(Seconds(m.Num("leg_s"))));
    auto speed = CreateObject<ConstantRandomVariable>();
    speed->SetAttribute("Constant", DoubleValue(m.Num("speed_mps")));
    walk->SetAttribute("Speed", PointerValue(speed));
    walk->SetAttribute("Bounds", RectangleValue(Rectangle(m.Num("x0"), m.Num("x1"), m.Num("y0"), m.Num("y1"))));
    return walk;
}

Ptr<MobilityModel>
RandomWaypoint(const Record& m, double zM)
{
    auto uniform = [](double lo, double hi) {
        auto v = CreateObject<UniformRandomVariable>();
        v->SetAttribute("Min", DoubleValue(lo));
        v->SetAttribute("Max", DoubleValue(hi));
        return v;
    };
    auto where = CreateObject<RandomRectanglePositionAllocator>();
    where->SetAttribute("X", PointerValue(uniform(m.Num("x0"), m.Num("x1"))));
    where->SetAttribute("Y", PointerValue(uniform(m.Num("y0"), m.Num("y1"))));
    where->SetAttribute("Z", DoubleValue(zM));
    auto pause = CreateObject<ConstantRandomVariable>();
    pause->SetAttribute("Constant", DoubleValue(m.Num("pause_s")));
    auto wp = CreateObject<RandomWaypointMobilityModel>();
    wp->SetAttribute("Speed", PointerValue(uniform(m.Num("min_mps"), m.Num("max_mps"))));
    wp->SetAttribute("Pause", PointerValue(pause));
    wp->SetAttribute("PositionAllocator", PointerValue(where));
    return wp;
}

// ns-3 WaypointMobilityModel from `points` (scenario seconds and metres): a waypoint at the
// start position at scenario t = 0 (ns-3 time g_t0, after the warm-up), then each point at
// g_t0 + t; the model moves in a straight line between consecutive waypoints and holds the last.
Ptr<MobilityModel>
Waypoints(const Record& m, const Vector& at)
{
    auto wp = CreateObject<WaypointMobilityModel>();
    wp->AddWaypoint(Waypoint(g_t0, at));
    std::stringstream points(m.Str("points"));
    std::string item;
    while (std::getline(points, item, ','))
    {
        double t = 0;
        double x = 0;
        double y = 0;
        char sep1 = 0;
        char sep2 = 0;
        std::stringstream one(item);
        if (!(one >> t >> sep1 >> x >> sep2 >> y) || sep1 != ':' || sep2 != ':')
        {
            throw std::runtime_error("bad waypoint '" + item + "'");
        }
        wp->AddWaypoint(Waypoint(g_t0 + Seconds(t), Vector(x, y, at.z)));
    }
    return wp;
}

} // namespace

void
ConfigureChannel(const Record& chan)
{
    Config::SetDefault("ns3::LteEnbPhy::TxPower", DoubleValue(chan.Num("enb_tx_dbm")));
    Config::SetDefault("ns3::LteEnbPhy::NoiseFigure", DoubleValue(chan.Num("enb_nf_db")));
    Config::SetDefault("ns3::LteUePhy::TxPower", DoubleValue(chan.Num("ue_tx_dbm")));
    Config::SetDefault("ns3::LteUePhy::NoiseFigure", DoubleValue(chan.Num("ue_nf_db")));
    // Uplink power control as the engine's ul_power_control (channel.py maps the fields).
    const bool openLoop = chan.Str("ul_pc") == "open_loop";
    Config::SetDefault("ns3::LteUePhy::EnableUplinkPowerControl", BooleanValue(openLoop));
    if (openLoop)
    {
        Config::SetDefault("ns3::LteUePowerControl::ClosedLoop", BooleanValue(false));
        Config::SetDefault("ns3::LteUePowerControl::PoNominalPusch", IntegerValue(std::lround(chan.Num("pc_p0_nominal_dbm"))));
        Config::SetDefault("ns3::LteUePowerControl::PoUePusch", IntegerValue(std::lround(chan.Num("pc_p0_ue_db"))));
        Config::SetDefault("ns3::LteUePowerControl::Alpha", DoubleValue(chan.Num("pc_alpha")));
        Config::SetDefault("ns3::LteUePowerControl::Pcmax", DoubleValue(chan.Num("pc_pcmax_dbm")));
        Config::SetDefault("ns3::LteUePowerControl::PsrsOffset", IntegerValue(std::lround(chan.Num("pc_psrs_offset"))));
    }
}

void
ApplyFadingAttributes(const Record& f,
                      const std::string& dir,
                      const std::function<void(const std::string&, const AttributeValue&)>& set)
{
    set("TraceFilename", StringValue(dir + "/" + f.Str("file")));
    set("TraceLength", TimeValue(Seconds(f.Num("length_s"))));
    set("SamplesNum", UintegerValue(f.U64("samples")));
    set("WindowSize", TimeValue(Seconds(f.Num("window_s"))));
    set("RbNum", UintegerValue(f.U64("rbs")));
}

void
InstallBuildingInfo(const LtePlanRecords& r)
{
    // HybridBuildingsPropagationLossModel asks both ends of every link for their
    // MobilityBuildingInfo (hybrid-buildings-propagation-loss-model.cc GetLoss); with no building
    // placed, every node is outdoor, which is the engine's itu_r1411_hybrid.
    if (!r.chan || TypeOf(r, "pathloss") != "ns3::HybridBuildingsPropagationLossModel")
    {
        return;
    }
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        if ((*it)->GetObject<MobilityModel>())
        {
            BuildingsHelper::Install(*it);
        }
    }
}

void
SetUpChannel(Ptr<LteHelper> h, const LtePlanRecords& r, const std::string& dir)
{
    h->SetPathlossModelType(TypeId::LookupByName(TypeOf(r, "pathloss")));
    ApplyAttributes(r, "pathloss", [&](auto& n, auto& v) { h->SetPathlossModelAttribute(n, v); });
    h->SetEnbAntennaModelType(TypeOf(r, "enb_antenna"));
    ApplyAttributes(r, "enb_antenna", [&](auto& n, auto& v) { h->SetEnbAntennaModelAttribute(n, v); });
    if (const Record* f = r.fading; f && HelperFading(r.diag))
    {
        h->SetFadingModel("ns3::TraceFadingLossModel");
        ApplyFadingAttributes(*f, dir, [&](auto& n, auto& v) { h->SetFadingModelAttribute(n, v); });
    }
    if (r.interference)
    {
        SetCqiSource(h, *r.interference);
    }
}

Vector
EnbPosition(const Record& chan)
{
    return Vector(chan.Num("enb_x_m"), chan.Num("enb_y_m"), chan.Num("enb_z_m"));
}

void
PlaceChannelUe(Ptr<Node> node, const Record& ue, const Record& m)
{
    Vector at(ue.Num("x_m"), ue.Num("y_m"), ue.Num("z_m"));
    const std::string& kind = m.Str("model");
    Ptr<MobilityModel> model;
    if (kind == "static")
    {
        model = CreateObject<ConstantPositionMobilityModel>();
    }
    else if (kind == "constant_velocity")
    {
        // Start the line one warm-up earlier so the UE is at its position at scenario t = 0.
        // Position first: ConstantVelocityHelper::SetPosition zeroes the velocity
        // (constant-velocity-helper.cc).
        Vector v(m.Num("vx_mps"), m.Num("vy_mps"), 0.0);
        double t0 = g_t0.GetSeconds();
        auto line = CreateObject<ConstantVelocityMobilityModel>();
        line->SetPosition(Vector(at.x - v.x * t0, at.y - v.y * t0, at.z));
        line->SetVelocity(v);
        node->AggregateObject(line);
        return;
    }
    else if (kind == "random_walk")
    {
        model = RandomWalk(m);
    }
    else if (kind == "random_waypoint")
    {
        model = RandomWaypoint(m, at.z);
    }
    else if (kind == "waypoints")
    {
        // The first waypoint holds the start position until scenario t = 0.
        node->AggregateObject(Waypoints(m, at));
        return;
    }
    else
    {
        throw std::runtime_error("unknown mobility kind '" + kind + "'");
    }
    model->SetPosition(at);
    node->AggregateObject(model);
}

} // namespace cellcc
