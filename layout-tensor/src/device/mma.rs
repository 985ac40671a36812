//! Device primitives: mma (being written).
