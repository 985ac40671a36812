//! GPU check kernels: shared (being written).
