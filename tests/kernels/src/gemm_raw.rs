//! The hand-written twins of two `mma.sync` GEMMs of `cute-rs-kernels` (`gemm`): the same kernel
//! with explicit `ldmatrix` addresses and accumulators indexed by hand (`gemm_raw`), the zero-cost
//! reference of the atom-layer kernels. `tools/check-sass.sh` compares their SASS, and the GPU
//! suite their results and speed. Same parameters as the operations' `mma.sync` entries
//! (`cute_rs_kernels::gemm::GemmParams`), same results.

use cute_rs_kernels::gemm::{gemm_raw, GemmParams};
use cute_rs_tensor::half;
use cute_rs_tensor::kernel;

/// The hand-written twin of `gemm_bf16_ar_bc_v16` (both operands K-major, `ldmatrix`).
#[kernel]
pub fn gemm_bf16_ar_bc_v16_raw(p: GemmParams<half::bf16, f32>) {
    gemm_raw::<half::bf16, true, true, true, f32>(p);
}

/// The hand-written twin of `gemm_bf16_ar_br_v16` (B N-major, `ldmatrix.trans`).
#[kernel]
pub fn gemm_bf16_ar_br_v16_raw(p: GemmParams<half::bf16, f32>) {
    gemm_raw::<half::bf16, true, false, true, f32>(p);
}
