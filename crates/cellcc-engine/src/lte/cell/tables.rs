//! A cell's tables indexed by network UE index that a network keeps once for all its cells.
//!
//! Each cell kept, for every UE index of its network, the UE's air state, HARQ feedback in
//! flight, CQI trackers and outer loops, RLC view, last visit and the MAC's per-UE entries
//! ([`super::tti::MacUeTables`]), the PDCCH's search spaces and the schedulers' PF averages
//! ([`PfColumns`]): in the 19-site network, 57 cells
//! x 570 UEs (35 MB of the run's peak memory), of which a cell's TTI reads the entries of its
//! ~10 attached UEs, a page of each table apiece (docs/performance.md, "Issue 34: the 19-site
//! network, eighth round"). A UE is attached to one
//! cell at a time, each cell reads only its attached UEs' entries, and a UE that leaves a cell
//! has its entries put back as they started ([`super::Cell::detach`]) and set as the new cell
//! starts them when it joins ([`super::Cell::attach`]): so the entry of a UE in a cell it is not
//! attached to holds nothing the cell reads, and one table per network, lent to the cell that
//! runs ([`super::Cell::swap_tables`]), holds what every cell's own would.

use super::air::AirStates;
use super::harq_feedback::HarqFeedbacks;
use super::link_tti::LinkTtiStates;
use super::rlc_view::RlcViews;
use super::tti::MacUeTables;
use crate::lte::config::CellConfig;
use crate::lte::mac::pdcch::SearchSpaces;
use crate::lte::mac::scheduler::proportional_fair::PfColumns;
use crate::sim::SimTime;

/// The cell's own per-UE tables (the MAC's are [`MacUeTables`]).
pub(super) struct CellTables {
    /// Per UE, what its links have on the air (read by the per-TTI passes instead of the context).
    pub air: AirStates,
    /// Per UE, the HARQ feedback in flight on each link.
    pub harq_feedback: HarqFeedbacks,
    /// Per UE, its links' CQI reports and this TTI's demand records (read by the per-TTI passes
    /// for every UE with work).
    pub link_tti: LinkTtiStates,
    /// Per UE, what the per-TTI passes read of its RLC entities.
    pub rlc: RlcViews,
    /// Per UE index, the last TTI that visited it in this cell: a UE visited the TTI before
    /// missed nothing and has nothing to catch up on.
    pub last_visit: Vec<Option<SimTime>>,
}

/// The per-UE tables a network lends to its cells (a lone cell keeps its own). Held inline (the
/// vectors' headers): boxed, an exchange was two pointers, but every access in the TTI's passes
/// paid a load more, some 200 M instructions in the 19-site run, more than the exchanges cost.
pub(crate) struct UeTables {
    pub(super) cell: CellTables,
    pub(super) mac: MacUeTables,
    /// The PDCCH's search spaces (read only).
    pub(super) search_spaces: SearchSpaces,
    /// The downlink and uplink schedulers' PF averages, per UE.
    pub(super) pf: [PfColumns; 2],
}

impl UeTables {
    /// The tables of `n` UE indices with no UE attached, with the settings of `spec` (a cell's
    /// attached UEs' entries are set by the cell: [`super::Cell::init_tables`]).
    pub(crate) fn new(spec: &CellConfig, n: usize) -> Self {
        UeTables {
            cell: CellTables {
                air: AirStates::new(n),
                harq_feedback: HarqFeedbacks::new(n),
                link_tti: LinkTtiStates::new(n),
                rlc: RlcViews::new(n),
                last_visit: vec![None; n],
            },
            mac: MacUeTables::new(spec, n),
            search_spaces: SearchSpaces::new(n),
            pf: [PfColumns::new(n), PfColumns::new(n)],
        }
    }
}
