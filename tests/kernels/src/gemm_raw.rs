//! The hand-written twins of two `mma.sync` GEMMs of `cute-rs-kernels` (`gemm`): the same kernel
//! with explicit `ldmatrix` addresses and accumulators indexed by hand (`gemm_raw`), the zero-cost
//! reference of the atom-layer kernels. `tools/check-sass.sh` compares their SASS, and the GPU
//! suite their results and speed. Same parameters as the operations' `mma.sync` entries
//! (`cute_rs_kernels::gemm::GemmParams`), same results.

use cute_rs_kernels::epilogue::EpilogueOp;
use cute_rs_kernels::gemm::gemm_raw;
use cute_rs_tensor::half;
use cute_rs_tensor::kernel;

/// The hand-written twin of `gemm_bf16_ar_bc_v16` (both operands K-major, `ldmatrix`).
#[kernel]
pub fn gemm_bf16_ar_bc_v16_raw(
    a: *const half::bf16, b: *const half::bf16, c: *const f32, d: *mut f32,
    m: u32, n: u32, k: u32, lda: u32, ldb: u32, ldc: u32, ldd: u32,
    alpha: f32, beta: f32, bias: *const f32, flags: u32
) {
    let op = EpilogueOp { alpha, beta, bias, flags };
    gemm_raw::<half::bf16, true, true, true, f32>(a as *const u16, b as *const u16, c, d, m, n, k, (lda, ldb, ldc, ldd), op);
}

/// The hand-written twin of `gemm_bf16_ar_br_v16` (B N-major, `ldmatrix.trans`).
#[kernel]
pub fn gemm_bf16_ar_br_v16_raw(
    a: *const half::bf16, b: *const half::bf16, c: *const f32, d: *mut f32,
    m: u32, n: u32, k: u32, lda: u32, ldb: u32, ldc: u32, ldd: u32,
    alpha: f32, beta: f32, bias: *const f32, flags: u32
) {
    let op = EpilogueOp { alpha, beta, bias, flags };
    gemm_raw::<half::bf16, true, false, true, f32>(a as *const u16, b as *const u16, c, d, m, n, k, (lda, ldb, ldc, ldd), op);
}
