//! Device primitives: warp (being written).
