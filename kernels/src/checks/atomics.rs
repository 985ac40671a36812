//! GPU check kernels: atomics (being written).
