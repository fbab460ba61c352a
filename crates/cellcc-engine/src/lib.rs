//! cellcc engine: a deterministic discrete-event simulator of TCP congestion
//! control over wired, trace-driven (and later cellular and Wi-Fi) paths.
//!
//! See `docs/architecture.md` for the module map and the life of a packet.

pub mod cc;
pub mod error;
pub mod output;
pub mod scenario;
pub mod sim;

pub use error::ScenarioError;
pub use output::RunOutput;
pub use scenario::Scenario;

/// Engine version and build identity (`build.rs`: a hash of the sources and data tables),
/// stamped into every result's provenance and every store key: `0.1.0+1f2e...`.
pub const ENGINE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("CELLCC_ENGINE_SOURCE_HASH"));

/// Every process that runs the engine (the Python extension, `cellcc-bench`, the tests) allocates
/// through jemalloc, as rustc's and polars' Linux builds do: against glibc's malloc the channel
/// cell ran 5-9% and the 7-site network 6% faster, the other bench rows level within this host's
/// noise (docs/performance.md, "Issue 34: the allocator"). The engine's outputs do not depend on
/// addresses: `--hash` is the same.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Why a run could not start or could not finish.
#[derive(Debug)]
pub enum RunError {
    /// The scenario is invalid (field, value, allowed).
    Scenario(ScenarioError),
    /// Simulated time stopped advancing (see `sim::stall`): the run would never end.
    Stalled(sim::Stalled),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Scenario(e) => e.fmt(f),
            RunError::Stalled(s) => write!(
                f,
                "simulated time stopped advancing at {}: {} events within {} ns of simulated time (at most {} allowed); \
                 a rate, delay or timer in the scenario is too extreme for a time resolution of 1 ns",
                s.at,
                s.events,
                sim::stall::STALL_WINDOW.as_ns(),
                sim::stall::MAX_EVENTS_PER_WINDOW
            ),
        }
    }
}

impl std::error::Error for RunError {}

impl From<sim::Stalled> for RunError {
    fn from(s: sim::Stalled) -> Self {
        RunError::Stalled(s)
    }
}

impl From<ScenarioError> for RunError {
    fn from(e: ScenarioError) -> Self {
        RunError::Scenario(e)
    }
}

/// Simulate `scenario` with `seed`. Deterministic: same inputs, same output.
pub fn run(scenario: &Scenario, seed: u64) -> Result<RunOutput, RunError> {
    world::run(scenario, seed)
}

pub mod app;
pub mod link;
pub mod lte;
pub mod measure;
pub mod nr;
pub mod packet;
pub mod radio;
pub mod tcp;
pub mod wifi;
pub mod world;

#[cfg(test)]
mod tests {
    #[test]
    fn the_engine_version_names_its_build() {
        let (version, build) = super::ENGINE_VERSION.split_once('+').expect("version+build");
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        assert!(build.len() == 16 && build.bytes().all(|b| b.is_ascii_hexdigit()), "{build}");
    }
}
