//! Device primitives: cp_async (being written).
