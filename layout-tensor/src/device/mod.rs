//! Device primitives: the GPU's thread hierarchy, synchronization, memories and special
//! instructions, each a small Rust API with documented preconditions, used by `kernels/` and by the
//! tensor views. On `nvptx64` they compile to PTX; the CPU backend gives them the same semantics
//! on the host.

pub mod atomics;
#[cfg(not(target_arch = "nvptx64"))]
pub mod cpu;
pub mod cp_async;
pub mod ids;
pub mod memory;
pub mod mma;
pub mod shared;
pub mod sync;
pub mod tma;
pub mod warp;
