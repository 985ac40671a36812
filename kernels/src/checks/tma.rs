//! GPU check kernels: tma (being written).
