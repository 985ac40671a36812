//! Device primitives: atomics (being written).
