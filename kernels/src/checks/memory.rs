//! GPU check kernels: memory (being written).
