//! Where a UE is at a given time: static, straight line, random walk in a box,
//! random waypoint, given waypoints.
//!
//! Movement is a sequence of legs (start time, start point, velocity, end time),
//! drawn lazily from the UE's own random stream when the previous leg ends, so
//! the track is a function of the seed alone, whatever times it is asked at.
//! Queries come in non-decreasing time (the PHY's order).

use super::spec::MobilitySpec;
#[cfg(test)]
use super::spec::Waypoint;
use crate::sim::{RngStream, NS_PER_S};

/// km/h to m/s.
pub const MPS_PER_KMH: f64 = 1000.0 / 3600.0;

/// One straight piece of the track.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Leg {
    start_ns: u64,
    /// The leg holds until here (exclusive); `u64::MAX` = forever.
    end_ns: u64,
    from_m: [f64; 2],
    velocity_mps: [f64; 2],
}

impl Leg {
    fn position(&self, now_ns: u64) -> [f64; 2] {
        let dt_s = now_ns.saturating_sub(self.start_ns) as f64 / NS_PER_S as f64;
        [self.from_m[0] + self.velocity_mps[0] * dt_s, self.from_m[1] + self.velocity_mps[1] * dt_s]
    }
}

/// What a random-waypoint UE does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WaypointPhase {
    Moving,
    Paused,
}

#[derive(Clone, Debug, PartialEq)]
enum Pattern {
    /// Static and constant velocity: one leg forever.
    Fixed,
    /// ns-3 RandomWalk2dMobilityModel (Mode=Time): every `leg_ns` a uniform direction
    /// at a fixed speed; walls reflect the UE (specular reflection = folding the straight track).
    Walk { speed_mps: f64, leg_ns: u64, bounds_m: [f64; 4] },
    /// ns-3 RandomWaypointMobilityModel: uniform target in the box, uniform speed, then a pause.
    Waypoint { min_mps: f64, max_mps: f64, pause_ns: u64, bounds_m: [f64; 4], phase: WaypointPhase },
    /// ns-3 WaypointMobilityModel: straight legs to each (time, point) in turn; `next` is the
    /// point the next leg goes to.
    Waypoints { points: Vec<(u64, [f64; 2])>, next: usize },
}

/// One UE's track.
pub struct Mobility {
    pattern: Pattern,
    leg: Leg,
    rng: RngStream,
}

impl Mobility {
    /// The track from `start_m` at time 0 (the spec is validated: start inside any box).
    pub fn new(spec: &MobilitySpec, start_m: [f64; 2], rng: RngStream) -> Self {
        let still = Leg { start_ns: 0, end_ns: u64::MAX, from_m: start_m, velocity_mps: [0.0, 0.0] };
        let secs = |s: f64| (s * NS_PER_S as f64).round() as u64;
        let (pattern, leg) = match *spec {
            MobilitySpec::Static => (Pattern::Fixed, still),
            MobilitySpec::ConstantVelocity { speed_kmh, heading_deg } => {
                let (s, c) = heading_deg.to_radians().sin_cos();
                let v = speed_kmh * MPS_PER_KMH;
                (Pattern::Fixed, Leg { velocity_mps: [v * c, v * s], ..still })
            }
            MobilitySpec::RandomWalk { speed_kmh, leg_s, bounds_m } => {
                let p = Pattern::Walk { speed_mps: speed_kmh * MPS_PER_KMH, leg_ns: secs(leg_s).max(1), bounds_m };
                (p, Leg { end_ns: 0, ..still })
            }
            MobilitySpec::RandomWaypoint { min_speed_kmh, max_speed_kmh, pause_s, bounds_m } => {
                let p = Pattern::Waypoint {
                    min_mps: min_speed_kmh * MPS_PER_KMH,
                    max_mps: max_speed_kmh * MPS_PER_KMH,
                    pause_ns: secs(pause_s),
                    bounds_m,
                    phase: WaypointPhase::Paused,
                };
                (p, Leg { end_ns: 0, ..still })
            }
            MobilitySpec::Waypoints { ref points } => {
                let points = points.iter().map(|w| (secs(w.t_s), w.position_m)).collect();
                (Pattern::Waypoints { points, next: 0 }, Leg { end_ns: 0, ..still })
            }
        };
        let mut m = Mobility { pattern, leg, rng };
        m.next_leg_while_ended(0);
        m
    }

    /// Position (x, y) at `now_ns`, m.
    pub fn position_m(&mut self, now_ns: u64) -> [f64; 2] {
        self.next_leg_while_ended(now_ns);
        self.fold(self.leg.position(now_ns))
    }

    fn next_leg_while_ended(&mut self, now_ns: u64) {
        while now_ns >= self.leg.end_ns {
            let start_ns = self.leg.end_ns;
            let from_m = self.fold(self.leg.position(start_ns));
            self.leg = self.draw_leg(start_ns, from_m);
        }
    }

    fn draw_leg(&mut self, start_ns: u64, from_m: [f64; 2]) -> Leg {
        match &mut self.pattern {
            Pattern::Fixed => Leg { start_ns, end_ns: u64::MAX, from_m, velocity_mps: [0.0, 0.0] },
            Pattern::Walk { speed_mps, leg_ns, .. } => {
                let (s, c) = (std::f64::consts::TAU * self.rng.uniform()).sin_cos();
                let velocity_mps = [*speed_mps * c, *speed_mps * s];
                Leg { start_ns, end_ns: start_ns.saturating_add(*leg_ns), from_m, velocity_mps }
            }
            Pattern::Waypoints { points, next } => {
                let Some(&(end_ns, to)) = points.get(*next) else {
                    let last_m = points.last().map_or(from_m, |w| w.1);
                    return Leg { start_ns, end_ns: u64::MAX, from_m: last_m, velocity_mps: [0.0, 0.0] };
                };
                // Each leg starts on its waypoint exactly, not where rounding left the last one.
                let from_m = next.checked_sub(1).map_or(from_m, |k| points[k].1);
                *next += 1;
                let dt_s = end_ns.saturating_sub(start_ns).max(1) as f64 / NS_PER_S as f64;
                let velocity_mps = [(to[0] - from_m[0]) / dt_s, (to[1] - from_m[1]) / dt_s];
                Leg { start_ns, end_ns: end_ns.max(start_ns + 1), from_m, velocity_mps }
            }
            Pattern::Waypoint { min_mps, max_mps, pause_ns, bounds_m, phase } => match *phase {
                WaypointPhase::Paused => {
                    *phase = WaypointPhase::Moving;
                    let [x0, y0, x1, y1] = *bounds_m;
                    let to = [x0 + (x1 - x0) * self.rng.uniform(), y0 + (y1 - y0) * self.rng.uniform()];
                    let speed_mps = *min_mps + (*max_mps - *min_mps) * self.rng.uniform();
                    let (dx, dy) = (to[0] - from_m[0], to[1] - from_m[1]);
                    let dist_m = dx.hypot(dy);
                    let travel_ns = ((dist_m / speed_mps) * NS_PER_S as f64).ceil().max(1.0) as u64;
                    let k = speed_mps / dist_m.max(f64::MIN_POSITIVE);
                    Leg { start_ns, end_ns: start_ns + travel_ns, from_m, velocity_mps: [dx * k, dy * k] }
                }
                WaypointPhase::Moving => {
                    *phase = WaypointPhase::Paused;
                    let end_ns = start_ns + *pause_ns;
                    Leg { start_ns, end_ns, from_m, velocity_mps: [0.0, 0.0] }
                }
            },
        }
    }

    /// Reflect a straight-line position into the walk's box (identity for other patterns).
    fn fold(&self, p: [f64; 2]) -> [f64; 2] {
        match self.pattern {
            Pattern::Walk { bounds_m: [x0, y0, x1, y1], .. } => [reflect(p[0], x0, x1), reflect(p[1], y0, y1)],
            Pattern::Waypoint { bounds_m: [x0, y0, x1, y1], .. } => [p[0].clamp(x0, x1), p[1].clamp(y0, y1)],
            Pattern::Fixed | Pattern::Waypoints { .. } => p,
        }
    }
}

/// `x` reflected off the walls `lo` and `hi` as many times as needed (a triangle wave of period 2(hi-lo)).
fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let w = hi - lo;
    let y = (x - lo).rem_euclid(2.0 * w);
    lo + if y > w { 2.0 * w - y } else { y }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(m: &mut Mobility, t_s: f64) -> [f64; 2] {
        m.position_m((t_s * NS_PER_S as f64) as u64)
    }

    #[test]
    fn a_static_ue_stays_put() {
        let mut m = Mobility::new(&MobilitySpec::Static, [3.0, 4.0], RngStream::new(1, "m"));
        assert_eq!(at(&mut m, 100.0), [3.0, 4.0]);
    }

    #[test]
    fn constant_velocity_moves_in_a_straight_line() {
        // 36 km/h = 10 m/s at heading 90 degrees: (0, 10 t).
        let spec = MobilitySpec::ConstantVelocity { speed_kmh: 36.0, heading_deg: 90.0 };
        let mut m = Mobility::new(&spec, [0.0, 0.0], RngStream::new(1, "m"));
        let p = at(&mut m, 2.5);
        assert!(p[0].abs() < 1e-9 && (p[1] - 25.0).abs() < 1e-9, "{p:?}");
    }

    #[test]
    fn waypoints_are_reached_at_their_times_in_straight_lines_then_held() {
        // From (0, 0) at 0 s to (100, 0) at 10 s (36 km/h), then to (100, 50) at 15 s, then stay.
        let w = |t_s: f64, x: f64, y: f64| Waypoint { t_s, position_m: [x, y] };
        let spec = MobilitySpec::Waypoints { points: vec![w(10.0, 100.0, 0.0), w(15.0, 100.0, 50.0)] };
        let mut m = Mobility::new(&spec, [0.0, 0.0], RngStream::new(1, "m"));
        let close = |p: [f64; 2], q: [f64; 2]| (p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9;
        for (t_s, want) in [(0.0, [0.0, 0.0]), (2.5, [25.0, 0.0]), (10.0, [100.0, 0.0]), (12.0, [100.0, 20.0])] {
            let p = at(&mut m, t_s);
            assert!(close(p, want), "{t_s} s: {p:?}");
        }
        assert_eq!(at(&mut m, 15.0), [100.0, 50.0]);
        assert_eq!(at(&mut m, 1e4), [100.0, 50.0]);
    }

    #[test]
    fn reflection_folds_into_the_box() {
        assert_eq!(reflect(12.0, 0.0, 10.0), 8.0);
        assert_eq!(reflect(-3.0, 0.0, 10.0), 3.0);
        assert_eq!(reflect(25.0, 0.0, 10.0), 5.0);
    }

    #[test]
    fn a_random_walk_stays_in_its_box_moves_at_its_speed_and_repeats_by_seed() {
        // Seed 004: a 20 m box, 3 km/h.
        let spec = MobilitySpec::RandomWalk { speed_kmh: 3.0, leg_s: 1.0, bounds_m: [90.0, -10.0, 110.0, 10.0] };
        let track = |seed: u64| {
            let mut m = Mobility::new(&spec, [100.0, 0.0], RngStream::new(seed, "ue0:mobility"));
            (1..=5000).map(|k| at(&mut m, k as f64 * 0.01)).collect::<Vec<_>>()
        };
        let t = track(5);
        assert!(t.iter().all(|p| (90.0..=110.0).contains(&p[0]) && (-10.0..=10.0).contains(&p[1])));
        // Inside one leg and away from walls the step per 10 ms is 3/3.6 * 0.01 = 0.00833 m (never more).
        let max_step = t.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1])).fold(0.0, f64::max);
        assert!(max_step <= 3.0 / 3.6 * 0.01 + 1e-9, "{max_step}");
        assert_eq!(t, track(5));
        assert_ne!(t, track(6));
    }

    #[test]
    fn random_waypoint_reaches_targets_in_the_box() {
        let spec = MobilitySpec::RandomWaypoint {
            min_speed_kmh: 3.6,
            max_speed_kmh: 36.0,
            pause_s: 2.0,
            bounds_m: [0.0, 0.0, 100.0, 50.0],
        };
        let mut m = Mobility::new(&spec, [10.0, 10.0], RngStream::new(9, "m"));
        let mut moved = false;
        for k in 1..2000 {
            let p = at(&mut m, k as f64 * 0.1);
            assert!((0.0..=100.0).contains(&p[0]) && (0.0..=50.0).contains(&p[1]), "{p:?}");
            moved |= p != [10.0, 10.0];
        }
        assert!(moved);
    }
}
