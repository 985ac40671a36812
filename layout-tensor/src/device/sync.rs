//! Device primitives: sync (being written).
