//! Index newtypes: a `NodeId` can never be passed where a `LinkId` is meant.

macro_rules! index_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

index_id!(
    /// A host or router, in scenario order.
    NodeId
);
index_id!(
    /// One direction of a link (a "channel"), in build order.
    LinkId
);
index_id!(
    /// A flow, in scenario order.
    FlowId
);
index_id!(
    /// A radio cell (an LTE eNB and its UEs), in scenario order.
    CellId
);
index_id!(
    /// A Wi-Fi BSS (an access point and its stations), in scenario order.
    BssId
);
index_id!(
    /// A 5G NR cell (a gNB and its UEs), in scenario order.
    NrCellId
);
