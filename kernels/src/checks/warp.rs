//! GPU check kernels: warp (being written).
