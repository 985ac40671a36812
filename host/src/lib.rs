//! Host side of cute-rs: loading the PTX module, launching kernels through the CUDA driver (and a
//! CPU launcher behind the same API), host tensors and benchmarks.
//!
//! Skeleton: the runtime comes next.
