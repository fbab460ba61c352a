//! PDCP (TS 36.323): header and sequence number on every SDU.
