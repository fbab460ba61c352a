//! The power each station's PPDUs arrive with at every other station, from the shared radio
//! channel (`radio`): positions and mobility, path loss, shadowing. Reciprocal: a pair of
//! stations sees the same loss both ways (large-scale reciprocity). A pair is re-evaluated when
//! one of its stations begins a large-scale epoch (`radio::track`: every 0.5 m of its path, its
//! position looked at every 10 ms); with nothing moving, once.
//!
//! ```text
//!  P_rx(s -> r) = P_tx + G_s + G_r - L(d_sr) - X_sr          (dBm; isotropic antennas: G = 0)
//!  N            = -174 dBm/Hz + 10 log10(B) + NF             (radio::noise, B the BSS width)
//! ```

use super::air::Sta;
use crate::radio::link_loss::PreparedLoss;
use crate::radio::mobility::Mobility;
use crate::radio::noise::{dbm_to_mw, noise_dbm, to_db};
use crate::radio::shadowing::Shadowing;
use crate::radio::spec::{PathLossSpec, Placement, ShadowingSpec};
use crate::radio::track::PathSampler;
use crate::sim::{RngStream, SimTime};

/// One unordered pair of stations.
struct Pair {
    a: Sta,
    b: Sta,
    loss: PreparedLoss,
    shadowing: Option<Shadowing>,
}

pub struct Links {
    n: usize,
    tx_power_dbm: f64,
    noise_mw: f64,
    mobility: Vec<Mobility>,
    /// Per station, its path sampled to the last 10 ms step looked at, and where its epoch began.
    tracks: Vec<PathSampler>,
    xy_m: Vec<[f64; 2]>,
    pairs: Vec<Pair>,
    /// rx_mw[s * n + r]: power of s's PPDUs at r, mW; snr_db the same over the noise, dB.
    rx_mw: Vec<f64>,
    snr_db: Vec<f64>,
    /// Whether some station moves (nothing else changes a pair).
    dynamic: bool,
    /// Scratch: per station, the path since its last epoch if it begins one at this step, m.
    began_m: Vec<Option<f64>>,
}

/// The radio settings of a BSS, as its scenario gives them.
pub struct LinkSpec<'a> {
    pub pathloss: &'a PathLossSpec,
    pub shadowing: Option<&'a ShadowingSpec>,
    pub carrier_mhz: f64,
    pub bandwidth_hz: f64,
    pub tx_power_dbm: f64,
    pub noise_figure_db: f64,
}

impl Links {
    /// `placements[i]` is station i (0: the AP); `names[i]` keys its random streams under `label`.
    pub fn new(spec: &LinkSpec, placements: &[&Placement], names: &[&str], seed: u64, label: &str) -> Self {
        let n = placements.len();
        let mut mobility: Vec<Mobility> = placements
            .iter()
            .zip(names)
            .map(|(p, name)| {
                Mobility::new(&p.mobility, p.position_m, RngStream::new(seed, &format!("{label}:{name}:mobility")))
            })
            .collect();
        let mut pairs = Vec::with_capacity(n * (n - 1) / 2);
        for a in 0..n {
            for b in a + 1..n {
                let loss =
                    PreparedLoss::new(spec.pathloss, placements[a].height_m, placements[b].height_m, spec.carrier_mhz);
                let shadowing = spec.shadowing.map(|s| {
                    let rng = RngStream::new(seed, &format!("{label}:shadowing:{}:{}", names[a], names[b]));
                    Shadowing::new(s.sigma_db, s.decorrelation_m, rng)
                });
                pairs.push(Pair { a, b, loss, shadowing });
            }
        }
        let dynamic = placements.iter().any(|p| p.mobility != crate::radio::spec::MobilitySpec::Static);
        let tracks: Vec<PathSampler> = mobility.iter_mut().map(PathSampler::new).collect();
        let mut links = Links {
            n,
            tx_power_dbm: spec.tx_power_dbm,
            noise_mw: dbm_to_mw(noise_dbm(spec.bandwidth_hz, spec.noise_figure_db)),
            xy_m: tracks.iter().map(PathSampler::epoch_xy_m).collect(),
            tracks,
            mobility,
            pairs,
            rx_mw: vec![0.0; n * n],
            snr_db: vec![f64::NEG_INFINITY; n * n],
            dynamic,
            began_m: vec![None; n],
        };
        for k in 0..links.pairs.len() {
            links.evaluate(k);
        }
        links
    }

    pub fn noise_mw(&self) -> f64 {
        self.noise_mw
    }

    pub fn rx_mw(&self, tx: Sta, rx: Sta) -> f64 {
        self.rx_mw[tx * self.n + rx]
    }

    /// SNR of `tx`'s PPDUs at `rx` without interference, dB (evaluated once per step).
    pub fn snr_db(&self, tx: Sta, rx: Sta) -> f64 {
        self.snr_db[tx * self.n + rx]
    }

    /// Bring the powers to the 10 ms step containing `now`: each step looked at in turn, the
    /// pairs of the stations that begin an epoch there re-evaluated, their shadowing advanced by
    /// the path of those stations since their last epoch (the pair's relative path, as before on
    /// the 10 ms grid: the sum of its ends' paths).
    pub fn update(&mut self, now: SimTime) {
        let step = PathSampler::grid_step(now.as_ns());
        if !self.dynamic {
            return;
        }
        while self.tracks[0].step() < step {
            let mut any = false;
            for ((t, m), (began, xy)) in
                self.tracks.iter_mut().zip(&mut self.mobility).zip(self.began_m.iter_mut().zip(&mut self.xy_m))
            {
                *began = t.next_step(m);
                *xy = t.epoch_xy_m();
                any |= began.is_some();
            }
            if !any {
                continue;
            }
            for k in 0..self.pairs.len() {
                let (a, b) = (self.pairs[k].a, self.pairs[k].b);
                if self.began_m[a].is_none() && self.began_m[b].is_none() {
                    continue;
                }
                let moved_m = self.began_m[a].unwrap_or(0.0) + self.began_m[b].unwrap_or(0.0);
                if let Some(s) = &mut self.pairs[k].shadowing {
                    s.advance(moved_m);
                }
                self.evaluate(k);
            }
        }
    }

    /// Pair `k`'s power and SNR at its stations' epoch positions and its shadowing now.
    fn evaluate(&mut self, k: usize) {
        let p = &self.pairs[k];
        let d = [self.xy_m[p.b][0] - self.xy_m[p.a][0], self.xy_m[p.b][1] - self.xy_m[p.a][1]];
        let shadow_db = p.shadowing.as_ref().map_or(0.0, Shadowing::value_db);
        let mw = dbm_to_mw(self.tx_power_dbm - p.loss.loss_db(d) - shadow_db);
        let snr_db = to_db(mw / self.noise_mw);
        for k in [p.a * self.n + p.b, p.b * self.n + p.a] {
            self.rx_mw[k] = mw;
            self.snr_db[k] = snr_db;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::spec::MobilitySpec;
    use crate::sim::NS_PER_MS;

    fn links(sta_mobility: MobilitySpec) -> Links {
        let spec = LinkSpec {
            pathloss: &PathLossSpec::Friis,
            shadowing: Some(&ShadowingSpec { sigma_db: 8.0, decorrelation_m: 50.0 }),
            carrier_mhz: 5180.0,
            bandwidth_hz: 20e6,
            tx_power_dbm: 20.0,
            noise_figure_db: 7.0,
        };
        let ap = Placement { position_m: [0.0, 0.0], height_m: 1.5, mobility: MobilitySpec::Static };
        let sta = Placement { position_m: [10.0, 0.0], height_m: 1.5, mobility: sta_mobility };
        Links::new(&spec, &[&ap, &sta], &["ap", "sta"], 1, "bss")
    }

    /// radio/track.rs: a station walking away at 3 km/h (8.33 mm a 10 ms step) changes its pair's
    /// power at every 0.5 m of its path (60 steps), not in between; a static BSS never changes,
    /// shadowed or not.
    #[test]
    fn a_pair_is_re_evaluated_at_each_half_metre_of_its_stations_paths() {
        for (mobility, every) in [
            (MobilitySpec::ConstantVelocity { speed_kmh: 3.0, heading_deg: 0.0 }, Some(60)),
            (MobilitySpec::Static, None),
        ] {
            let mut l = links(mobility);
            let mut last = l.rx_mw(0, 1);
            for step in 1..=240u64 {
                l.update(SimTime(step * 10 * NS_PER_MS));
                let changed = l.rx_mw(0, 1) != last;
                assert_eq!(changed, every.is_some_and(|e| step % e == 0), "step {step}");
                assert_eq!(l.rx_mw(0, 1), l.rx_mw(1, 0), "reciprocal");
                last = l.rx_mw(0, 1);
            }
        }
    }
}
