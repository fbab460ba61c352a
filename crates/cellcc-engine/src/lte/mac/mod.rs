//! MAC (TS 36.321): HARQ entities, buffer status, scheduling request, and the schedulers.

pub mod scheduler;
