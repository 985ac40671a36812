//! GPU check kernels: cp_async (being written).
