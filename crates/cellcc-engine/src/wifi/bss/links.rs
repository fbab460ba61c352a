//! The power each station's PPDUs arrive with at every other station, from the shared radio
//! channel (`radio`): positions and mobility, path loss, shadowing. Reciprocal: a pair of
//! stations sees the same loss both ways (large-scale reciprocity). Re-evaluated every
//! [`LARGE_SCALE_STEP_NS`] when something moves or shadows, else once.
//!
//! ```text
//!  P_rx(s -> r) = P_tx + G_s + G_r - L(d_sr) - X_sr          (dBm; isotropic antennas: G = 0)
//!  N            = -174 dBm/Hz + 10 log10(B) + NF             (radio::noise, B the BSS width)
//! ```

use super::air::Sta;
use crate::radio::link_loss::PreparedLoss;
use crate::radio::mobility::Mobility;
use crate::radio::noise::{dbm_to_mw, noise_dbm, to_db};
use crate::radio::shadowing::{Shadowing, SHADOWING_STEP_NS};
use crate::radio::spec::{PathLossSpec, Placement, ShadowingSpec};
use crate::sim::{RngStream, SimTime};

/// Positions, loss and shadowing are re-evaluated on the shadowing grid (10 ms, radio::shadowing).
pub const LARGE_SCALE_STEP_NS: u64 = SHADOWING_STEP_NS;

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
    xy_m: Vec<[f64; 2]>,
    pairs: Vec<Pair>,
    /// rx_mw[s * n + r]: power of s's PPDUs at r, mW; snr_db the same over the noise, dB.
    rx_mw: Vec<f64>,
    snr_db: Vec<f64>,
    dynamic: bool,
    step: Option<u64>,
    /// Scratch: how far each station moved in the last step, m.
    moved_m: Vec<f64>,
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
        let mobility: Vec<Mobility> = placements
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
        let dynamic = spec.shadowing.is_some()
            || placements.iter().any(|p| p.mobility != crate::radio::spec::MobilitySpec::Static);
        let mut links = Links {
            n,
            tx_power_dbm: spec.tx_power_dbm,
            noise_mw: dbm_to_mw(noise_dbm(spec.bandwidth_hz, spec.noise_figure_db)),
            xy_m: placements.iter().map(|p| p.position_m).collect(),
            mobility,
            pairs,
            rx_mw: vec![0.0; n * n],
            snr_db: vec![f64::NEG_INFINITY; n * n],
            dynamic,
            step: None,
            moved_m: vec![0.0; n],
        };
        links.update(SimTime::ZERO);
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

    /// Bring the powers to the large-scale step containing `now`.
    pub fn update(&mut self, now: SimTime) {
        let step = now.as_ns() / LARGE_SCALE_STEP_NS;
        if self.step == Some(step) || (self.step.is_some() && !self.dynamic) {
            return;
        }
        let t_ns = step * LARGE_SCALE_STEP_NS;
        for (i, m) in self.mobility.iter_mut().enumerate() {
            let xy = m.position_m(t_ns);
            self.moved_m[i] = (xy[0] - self.xy_m[i][0]).hypot(xy[1] - self.xy_m[i][1]);
            self.xy_m[i] = xy;
        }
        let moved_m = &self.moved_m;
        for p in &mut self.pairs {
            let d = [self.xy_m[p.b][0] - self.xy_m[p.a][0], self.xy_m[p.b][1] - self.xy_m[p.a][1]];
            let shadow_db = match &mut p.shadowing {
                Some(s) => {
                    if self.step.is_some() {
                        s.advance(moved_m[p.a] + moved_m[p.b]);
                    }
                    s.value_db()
                }
                None => 0.0,
            };
            let mw = dbm_to_mw(self.tx_power_dbm - p.loss.loss_db(d) - shadow_db);
            let snr_db = to_db(mw / self.noise_mw);
            for k in [p.a * self.n + p.b, p.b * self.n + p.a] {
                self.rx_mw[k] = mw;
                self.snr_db[k] = snr_db;
            }
        }
        self.step = Some(step);
    }
}
