//! Device primitives: memory (being written).
