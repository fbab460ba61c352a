//! RLC (TS 36.322): transparent, unacknowledged and acknowledged modes.
