//! The tile sizes of the Hopper GEMM kernel (`gemm_sm90`, sm_90a only), in a module every build
//! has, so that the host (`src/gpu_suite/gemm_sm90.rs`) launches with exactly what the kernel uses.

/// Rows of `A` (and of the output) per block.
pub const GEMM_SM90_BM: u32 = 128;
/// Rows of `B` (columns of the output) per block.
pub const GEMM_SM90_BN: u32 = 128;
/// K per stage (64 bf16 = one 128-byte swizzle row).
pub const GEMM_SM90_BK: u32 = 64;
/// Stages of the TMA ring.
pub const GEMM_SM90_STAGES: u32 = 4;
/// Bytes of one stage (an `A` and a `B` box).
pub const GEMM_SM90_STAGE_BYTES: u32 = (GEMM_SM90_BM + GEMM_SM90_BN) * GEMM_SM90_BK * 2;
/// Dynamic shared memory of a launch.
pub const GEMM_SM90_SMEM_BYTES: u32 = GEMM_SM90_STAGES * GEMM_SM90_STAGE_BYTES;

