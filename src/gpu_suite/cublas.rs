//! cuBLAS as the peer of the Hopper GEMM, called in the suite's own process on the GPU's own
//! stream: GPU clocks drift by several percent between processes (and within one), so a ratio
//! only holds when both GEMMs run on the same buffers, interleaved, timed by the same events.
//!
//! cuBLAS is loaded at run time (cudarc's `dynamic-loading`): [`missing`] says whether
//! `libcublas` can be opened, and nothing calls into it when it cannot; the checks that need it
//! are then skipped ([`super::NEEDS`]) and the benchmarks say so in their error.
//!
//! The one operation is the "TN" GEMM of the Hopper kernels, `D = A * B^T` on row-major bf16
//! `A` (M x K) and `B` (N x K), both K-major, into a row-major `D` (M x N) of bf16 or f32, with
//! f32 accumulation ([`Cublas::gemm_tn`]).

use std::any::Any;
use std::ffi::{c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use cudarc::cublas::{result as blas, sys};
use host::{DeviceBuffer, DeviceElem, Gpu, HostError};

/// The error of everything that needs cuBLAS when `libcublas` cannot be opened.
pub const NOT_FOUND: &str =
    "cuBLAS not found (set LD_LIBRARY_PATH to the folder of libcublas.so.13; the GPU bundle's run.sh looks in the usual places)";

/// Why cuBLAS cannot be used in this process ([`NOT_FOUND`]), or `None` when `libcublas` (and the
/// `libcublasLt` it needs) loads. Asked once per process.
pub fn missing() -> Option<&'static str> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the library; nothing in it is called.
    let present = *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() });
    (!present).then_some(NOT_FOUND)
}

/// An output element type of [`Cublas::gemm_tn`]: bf16 (as its bits, `u16`, like the rest of
/// the suite) or f32.
pub trait PeerOut: DeviceElem {
    /// cuBLAS's name of the type.
    const DATA_TYPE: sys::cudaDataType;
}

impl PeerOut for u16 {
    const DATA_TYPE: sys::cudaDataType = sys::cudaDataType::CUDA_R_16BF;
}

impl PeerOut for f32 {
    const DATA_TYPE: sys::cudaDataType = sys::cudaDataType::CUDA_R_32F;
}

/// The sizes of the column-major `cublasGemmEx` call that computes the row-major TN GEMM
/// `D = A * B^T` (A M x K, B N x K, D M x N, all row-major): cuBLAS's A is our B, taken
/// transposed (`CUBLAS_OP_T`), its B our A, taken as is (`CUBLAS_OP_N`), and its C our D; see
/// [`Cublas::gemm_tn`] for why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TnCall {
    /// Rows of cuBLAS's C (our N).
    m: c_int,
    /// Columns of cuBLAS's C (our M).
    n: c_int,
    /// The reduction (our K).
    k: c_int,
    /// Leading dimension of cuBLAS's A, our row-major B (K).
    lda: c_int,
    /// Leading dimension of cuBLAS's B, our row-major A (K).
    ldb: c_int,
    /// Leading dimension of cuBLAS's C, our row-major D (N).
    ldc: c_int,
}

impl TnCall {
    /// The call for our M, N, K, or why cuBLAS's `int` sizes cannot hold them.
    fn new(m: usize, n: usize, k: usize) -> host::Result<TnCall> {
        let dim = |name: &str, x: usize| {
            c_int::try_from(x).map_err(|_| HostError::Invalid(format!("cuBLAS GEMM: {name} = {x} exceeds 2^31 - 1")))
        };
        let (m, n, k) = (dim("M", m)?, dim("N", n)?, dim("K", k)?);
        // Leading dimensions are at least 1 even for an empty matrix (cuBLAS rejects 0).
        Ok(TnCall { m: n, n: m, k, lda: k.max(1), ldb: k.max(1), ldc: n.max(1) })
    }
}

/// A cuBLAS handle bound to a [`Gpu`]'s stream: its GEMMs are ordered with the GPU's launches and
/// timed by [`Gpu::time_ms`] like them. Destroyed when dropped.
pub struct Cublas<'g> {
    gpu: &'g Gpu,
    handle: sys::cublasHandle_t,
}

/// The text of a caught panic (cudarc panics when a library or a symbol is missing).
fn panic_text(panic: Box<dyn Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}

impl<'g> Cublas<'g> {
    /// A handle on `gpu`'s stream.
    ///
    /// # Errors
    /// [`NOT_FOUND`] when `libcublas` cannot be opened; the CPU backend; `cublasCreate` or
    /// `cublasSetStream` failing.
    pub fn new(gpu: &'g Gpu) -> Result<Cublas<'g>, String> {
        if gpu.is_cpu() {
            return Err("cuBLAS needs a GPU (this is the CPU backend)".into());
        }
        if let Some(why) = missing() {
            return Err(why.into());
        }
        let stream = gpu.raw_stream().map_err(|e| e.to_string())?;
        // cudarc panics on a missing symbol: a broken installation is an error, not a crash.
        let made = catch_unwind(AssertUnwindSafe(|| -> Result<sys::cublasHandle_t, String> {
            let handle = blas::create_handle().map_err(|e| format!("cublasCreate failed: {e}"))?;
            // SAFETY: a live handle and the GPU's stream, which outlives the handle (`'g`).
            if let Err(e) = unsafe { blas::set_stream(handle, stream as sys::cudaStream_t) } {
                // SAFETY: created above, destroyed once.
                let _ = unsafe { blas::destroy_handle(handle) };
                return Err(format!("cublasSetStream failed: {e}"));
            }
            Ok(handle)
        }));
        match made {
            Ok(Ok(handle)) => Ok(Cublas { gpu, handle }),
            Ok(Err(e)) => Err(e),
            Err(panic) => Err(format!("cuBLAS could not be used: {}", panic_text(panic))),
        }
    }

    /// Issues `D = A * B^T` on the GPU's stream without waiting: `A` M x K and `B` N x K row-major
    /// bf16 (bits), `D` M x N row-major of `O`, accumulated in f32 (`cublasGemmEx`,
    /// `CUBLAS_COMPUTE_32F`), the operation of the Hopper GEMM's TN entries with alpha 1, beta 0.
    ///
    /// cuBLAS is column-major: the row-major `D` is the column-major `D^T` (N x M, leading
    /// dimension N), and `D^T = B * A^T`. The row-major `B` is the column-major `B^T` (K x N,
    /// leading dimension K), transposed by cuBLAS (`CUBLAS_OP_T`) into `B`; the row-major `A` is the
    /// column-major `A^T` (K x M, leading dimension K), taken as is (`CUBLAS_OP_N`). So the call
    /// is `cublasGemmEx(OP_T, OP_N, N, M, K, 1, B, K, A, K, 0, D, N)` (cuBLAS's A is our B, its B
    /// our A): cuBLAS's "TN", its usual fastest layout. A unit test runs these arguments through
    /// the BLAS definition.
    ///
    /// # Errors
    /// [`HostError::Invalid`] when a buffer is shorter than its matrix or a size exceeds
    /// `2^31 - 1` (cuBLAS's `int`); [`HostError::Cuda`] naming `cublasGemmEx` and its status.
    ///
    /// # Safety
    /// The buffers belong to this handle's GPU and stay alive until the GEMM has run; nothing else
    /// writes `D` meanwhile.
    pub unsafe fn gemm_tn<O: PeerOut>(
        &self,
        (m, n, k): (usize, usize, usize),
        a: &DeviceBuffer<u16>,
        b: &DeviceBuffer<u16>,
        d: &DeviceBuffer<O>,
    ) -> host::Result<()> {
        let call = TnCall::new(m, n, k)?;
        for (what, len, rows, cols) in [("A", a.len(), m, k), ("B", b.len(), n, k), ("D", d.len(), m, n)] {
            if rows.checked_mul(cols).is_none_or(|need| len < need) {
                return Err(HostError::Invalid(format!(
                    "cuBLAS GEMM {m}x{n}x{k}: {what} holds {len} elements, fewer than {rows} x {cols}"
                )));
            }
        }
        let (alpha, beta) = (1.0f32, 0.0f32);
        // The handle uses the context current on the calling thread: the GPU's.
        self.gpu.raw_stream()?;
        let status = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the buffers hold the matrices (checked above) on this GPU (the caller's
            // promise); alpha and beta are host f32s, as CUBLAS_COMPUTE_32F and the default
            // (host) pointer mode read them.
            unsafe {
                blas::gemm_ex(
                    self.handle,
                    sys::cublasOperation_t::CUBLAS_OP_T,
                    sys::cublasOperation_t::CUBLAS_OP_N,
                    call.m,
                    call.n,
                    call.k,
                    &alpha as *const f32 as *const c_void,
                    b.device_ptr() as *const c_void,
                    sys::cudaDataType::CUDA_R_16BF,
                    call.lda,
                    a.device_ptr() as *const c_void,
                    sys::cudaDataType::CUDA_R_16BF,
                    call.ldb,
                    &beta as *const f32 as *const c_void,
                    d.device_ptr() as *mut c_void,
                    O::DATA_TYPE,
                    call.ldc,
                    sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                )
            }
        }));
        let name = || "cublasGemmEx".to_string();
        match status {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(HostError::Cuda { call: name(), kernel: None, message: format!("{e} ({m}x{n}x{k})") }),
            Err(panic) => Err(HostError::Cuda { call: name(), kernel: None, message: panic_text(panic) }),
        }
    }
}

impl Drop for Cublas<'_> {
    fn drop(&mut self) {
        // cublasDestroy synchronizes with the handle's work in the current context.
        if self.gpu.raw_stream().is_ok() {
            // SAFETY: created in `new`, destroyed once. Errors cannot be reported from `drop`.
            let _ = unsafe { blas::destroy_handle(self.handle) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cublasGemmEx` as the BLAS reference defines it (column-major, `C = op(A) op(B)`, alpha 1,
    /// beta 0) with `transa = T`, `transb = N`, on the sizes of `call`.
    fn column_major_tn(call: TnCall, a: &[f64], b: &[f64]) -> Vec<f64> {
        let (m, n, k) = (call.m as usize, call.n as usize, call.k as usize);
        let (lda, ldb, ldc) = (call.lda as usize, call.ldb as usize, call.ldc as usize);
        let mut c = vec![f64::NAN; ldc * n];
        for j in 0..n {
            for i in 0..m {
                // op(A)(i, p) = A(p, i) = a[p + i * lda]; op(B)(p, j) = B(p, j) = b[p + j * ldb].
                c[i + j * ldc] = (0..k).map(|p| a[p + i * lda] * b[p + j * ldb]).sum();
            }
        }
        c
    }

    /// The arguments `gemm_tn` passes make cuBLAS's column-major product the row-major
    /// `A * B^T`, on sizes where M, N and K all differ (a transposed operand or D cannot match).
    #[test]
    fn tn_call_computes_row_major_a_b_transposed() {
        for (m, n, k) in [(3, 5, 7), (1, 4, 2), (6, 2, 1)] {
            let a: Vec<f64> = (0..m * k).map(|i| (i * 7 % 11) as f64 - 5.0).collect();
            let b: Vec<f64> = (0..n * k).map(|i| (i * 5 % 13) as f64 - 6.0).collect();
            let call = TnCall::new(m, n, k).unwrap();
            // cuBLAS's A is our B, its B our A; its C is our D.
            let d = column_major_tn(call, &b, &a);
            for i in 0..m {
                for j in 0..n {
                    let want: f64 = (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum();
                    assert_eq!(d[i * n + j], want, "D[{i}][{j}] of {m}x{n}x{k}");
                }
            }
        }
    }

    #[test]
    fn sizes_beyond_int_are_errors() {
        let e = TnCall::new(1 << 31, 8, 8).unwrap_err().to_string();
        assert!(e.contains("M = 2147483648 exceeds 2^31 - 1"), "{e}");
        assert_eq!(TnCall::new(0, 0, 0).unwrap(), TnCall { m: 0, n: 0, k: 0, lda: 1, ldb: 1, ldc: 1 });
    }

    /// Without a GPU, or without cuBLAS, everything says why instead of panicking.
    #[test]
    fn no_gpu_or_no_cublas_is_an_error() {
        let cpu = Gpu::cpu();
        let e = Cublas::new(&cpu).err().expect("the CPU backend has no cuBLAS");
        assert!(e.contains("CPU backend"), "{e}");
        // Asking twice loads nothing more and agrees.
        assert_eq!(missing(), missing());
        if let Some(why) = missing() {
            assert!(why.starts_with("cuBLAS not found (set LD_LIBRARY_PATH"), "{why}");
            assert_eq!(super::super::unavailable("gemm_sm90/vs cublas api bf16 -> bf16"), Some(why));
        }
        assert_eq!(super::super::unavailable("gemm_sm90/persistent bf16 128x128x64"), None);
    }
}
