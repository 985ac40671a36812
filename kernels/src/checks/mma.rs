//! GPU check kernels: mma (being written).
