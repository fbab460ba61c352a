//! PHY abstraction (TS 36.213): SINR -> CQI -> MCS -> TBS, BLER, control-channel errors.
