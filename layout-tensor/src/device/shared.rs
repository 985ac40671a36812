//! Device primitives: shared (being written).
