//! Kernels that exercise one device primitive each, checked against CPU references by the GPU
//! suite (`cute_rs::gpu_suite`). One module per area of `cute_rs_tensor::device`.

pub mod atomics;
pub mod cp_async;
pub mod ids;
pub mod math;
pub mod memory;
pub mod mma;
pub mod shared;
pub mod sync;
pub mod tma;
pub mod warp;
