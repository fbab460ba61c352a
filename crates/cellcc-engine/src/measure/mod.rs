//! Measurements: per-flow statistics defined as ns-3's FlowMonitor defines
//! them, slotted time series, and pcap capture.

pub mod flow_monitor;
pub mod histogram;
pub mod pcap;
pub mod timeseries;
