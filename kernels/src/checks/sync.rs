//! GPU check kernels: sync (being written).
