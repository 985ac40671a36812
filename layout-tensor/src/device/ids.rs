//! Device primitives: ids (being written).
