//! GPU check kernels: ids (being written).
