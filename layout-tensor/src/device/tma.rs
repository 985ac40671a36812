//! Device primitives: tma (being written).
