//! MAC schedulers: round robin, proportional fair, maximum throughput.
