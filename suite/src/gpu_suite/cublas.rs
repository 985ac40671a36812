//! cuBLAS as the peer of the Hopper GEMM, called in the suite's own process on the GPU's own
//! stream: GPU clocks drift by several percent between processes (and within one), so a ratio
//! only holds when both GEMMs run on the same buffers, interleaved, timed by the same events.
//!
//! cuBLAS is loaded at run time (cudarc's `dynamic-loading`): [`missing`] says whether
//! `libcublas` can be opened, and nothing calls into it when it cannot; the checks that need it
//! are then skipped ([`super::NEEDS`]) and the benchmarks say so in their error.
//!
//! The operations are the "TN" GEMM of the Hopper kernels, `D = A * B^T` on row-major `A`
//! (M x K) and `B` (N x K), both K-major, into a row-major `D` (M x N) of bf16 or f32, with f32
//! accumulation:
//!
//! - bf16 operands, one product ([`Cublas::gemm_tn`], `cublasGemmEx`) or `L` of them at fixed
//!   strides ([`Cublas::gemm_tn_batched`], `cublasGemmStridedBatchedEx`);
//! - e4m3 (fp8) operands with a per-tensor f32 scale each, `D = scale_a * scale_b * A * B^T`
//!   ([`CublasLt::gemm_tn_e4m3`], `cublasLtMatmul`: cuBLAS's fp8 GEMM exists only in cuBLASLt).

use std::any::Any;
use std::ffi::{c_int, c_longlong, c_void};
use std::mem::size_of;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use cudarc::cublas::{result as blas, sys};
use cudarc::cublaslt::result::{self as lt, CublasError as LtError};
use cudarc::cublaslt::sys as lt_sys;
use cute_rs_host::{DeviceBuffer, DeviceElem, Gpu, HostError};

/// The error of everything that needs cuBLAS when `libcublas` or `libcublasLt` cannot be opened.
pub const NOT_FOUND: &str =
    "cuBLAS not found (set LD_LIBRARY_PATH to the folder of libcublas.so.13 and libcublasLt.so.13; the GPU bundle's run.sh looks in the usual places)";

/// Why cuBLAS cannot be used in this process ([`NOT_FOUND`]), or `None` when `libcublas` and
/// `libcublasLt` load. Asked once per process.
///
/// Both are asked for: `libcublas` needs `libcublasLt` anyway (its GEMMs run on it), but cudarc
/// opens `libcublasLt` on its own, by name, for [`CublasLt`], so its absence must skip the checks
/// rather than panic in them.
pub fn missing() -> Option<&'static str> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to open the libraries; nothing in them is called.
    let present = *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() && lt_sys::is_culib_present() });
    (!present).then_some(NOT_FOUND)
}

/// An output element type of the peers' GEMMs ([`Cublas::gemm_tn`], [`Cublas::gemm_tn_batched`],
/// [`CublasLt::gemm_tn_e4m3`]): bf16 (as its bits, `u16`, like the rest of the suite) or f32.
pub trait PeerOut: DeviceElem {
    /// The type's name in messages (`bf16`, `f32`: `u16` is only how bf16 travels).
    const LABEL: &'static str;
    /// cuBLAS's name of the type.
    const DATA_TYPE: sys::cudaDataType;
    /// cuBLASLt's name of the type (the same value; cudarc binds each library's enum apart).
    const LT_DATA_TYPE: lt_sys::cudaDataType;
}

impl PeerOut for u16 {
    const LABEL: &'static str = "bf16";
    const DATA_TYPE: sys::cudaDataType = sys::cudaDataType::CUDA_R_16BF;
    const LT_DATA_TYPE: lt_sys::cudaDataType = lt_sys::cudaDataType::CUDA_R_16BF;
}

impl PeerOut for f32 {
    const LABEL: &'static str = "f32";
    const DATA_TYPE: sys::cudaDataType = sys::cudaDataType::CUDA_R_32F;
    const LT_DATA_TYPE: lt_sys::cudaDataType = lt_sys::cudaDataType::CUDA_R_32F;
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
    fn new(m: usize, n: usize, k: usize) -> cute_rs_host::Result<TnCall> {
        let dim = |name: &str, x: usize| {
            c_int::try_from(x).map_err(|_| HostError::Invalid(format!("cuBLAS GEMM: {name} = {x} exceeds 2^31 - 1")))
        };
        let (m, n, k) = (dim("M", m)?, dim("N", n)?, dim("K", k)?);
        // Leading dimensions are at least 1 even for an empty matrix (cuBLAS rejects 0).
        Ok(TnCall { m: n, n: m, k, lda: k.max(1), ldb: k.max(1), ldc: n.max(1) })
    }
}

/// [`TnCall`] for `L` problems at fixed strides (`cublasGemmStridedBatchedEx`): batch `p` of each
/// matrix starts `p` strides (in elements) after the first, the matrices packed one after the
/// other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StridedTnCall {
    /// The sizes of one problem.
    call: TnCall,
    /// Elements from one of cuBLAS's A to the next: our B's N x K.
    stride_a: c_longlong,
    /// Elements from one of cuBLAS's B to the next: our A's M x K.
    stride_b: c_longlong,
    /// Elements from one of cuBLAS's C to the next: our D's M x N.
    stride_c: c_longlong,
    /// The number of problems, `L`.
    batches: c_int,
}

impl StridedTnCall {
    /// The call for `batches` problems of our M, N, K, or why cuBLAS's `int` and `long long`
    /// cannot hold them.
    fn new(batches: usize, (m, n, k): (usize, usize, usize)) -> cute_rs_host::Result<StridedTnCall> {
        let call = TnCall::new(m, n, k)?;
        let batches = c_int::try_from(batches)
            .map_err(|_| HostError::Invalid(format!("cuBLAS batched GEMM: L = {batches} exceeds 2^31 - 1")))?;
        let stride = |name: &str, rows: usize, cols: usize| {
            rows.checked_mul(cols).and_then(|x| c_longlong::try_from(x).ok()).ok_or_else(|| {
                HostError::Invalid(format!(
                    "cuBLAS batched GEMM: the stride of {name}, {rows} x {cols}, exceeds 2^63 - 1"
                ))
            })
        };
        Ok(StridedTnCall {
            call,
            stride_a: stride("B", n, k)?,
            stride_b: stride("A", m, k)?,
            stride_c: stride("D", m, n)?,
            batches,
        })
    }
}

/// Checks that each buffer, `(name, length, rows, cols)`, holds `count` matrices of `rows x cols`
/// elements; the error starts with `gemm` (which GEMM, of what sizes).
fn check_holds(gemm: &str, count: usize, buffers: &[(&str, usize, usize, usize)]) -> cute_rs_host::Result<()> {
    for &(what, len, rows, cols) in buffers {
        if rows.checked_mul(cols).and_then(|x| x.checked_mul(count)).is_none_or(|need| len < need) {
            let times = if count == 1 { String::new() } else { format!("{count} x ") };
            return Err(HostError::Invalid(format!(
                "{gemm}: {what} holds {len} elements, fewer than {times}{rows} x {cols}"
            )));
        }
    }
    Ok(())
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
    ) -> cute_rs_host::Result<()> {
        let call = TnCall::new(m, n, k)?;
        check_holds(
            &format!("cuBLAS GEMM {m}x{n}x{k}"),
            1,
            &[("A", a.len(), m, k), ("B", b.len(), n, k), ("D", d.len(), m, n)],
        )?;
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

    /// Issues `L` GEMMs `D_p = A_p * B_p^T` (`p < L`) on the GPU's stream without waiting, each
    /// [`Cublas::gemm_tn`]'s: `A` holds `L` row-major bf16 (bits) M x K matrices one after the
    /// other (batch stride M * K), `B` `L` N x K ones (stride N * K), `D` `L` M x N ones of `O`
    /// (stride M * N), accumulated in f32 (`cublasGemmStridedBatchedEx`, `CUBLAS_COMPUTE_32F`),
    /// alpha 1, beta 0.
    ///
    /// The operands swap as in [`Cublas::gemm_tn`] (cuBLAS's A is our B, taken transposed; its B
    /// our A; its C our D), and so do their batch strides: cuBLAS's A advances by our B's N * K,
    /// its B by our A's M * K, its C by M * N.
    ///
    /// # Errors
    /// [`HostError::Invalid`] when a buffer holds fewer than `L` of its matrices, or a size or
    /// `L` exceeds `2^31 - 1` (cuBLAS's `int`); [`HostError::Cuda`] naming
    /// `cublasGemmStridedBatchedEx` and its status.
    ///
    /// # Safety
    /// As [`Cublas::gemm_tn`]: the buffers belong to this handle's GPU and stay alive until the
    /// GEMMs have run; nothing else writes `D` meanwhile.
    pub unsafe fn gemm_tn_batched<O: PeerOut>(
        &self,
        batches: usize,
        (m, n, k): (usize, usize, usize),
        a: &DeviceBuffer<u16>,
        b: &DeviceBuffer<u16>,
        d: &DeviceBuffer<O>,
    ) -> cute_rs_host::Result<()> {
        let strided = StridedTnCall::new(batches, (m, n, k))?;
        let call = strided.call;
        check_holds(
            &format!("cuBLAS batched GEMM {batches} x {m}x{n}x{k}"),
            batches,
            &[("A", a.len(), m, k), ("B", b.len(), n, k), ("D", d.len(), m, n)],
        )?;
        let (alpha, beta) = (1.0f32, 0.0f32);
        // The handle uses the context current on the calling thread: the GPU's.
        self.gpu.raw_stream()?;
        let status = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the buffers hold `L` matrices each at the strides passed (checked above), on
            // this GPU (the caller's promise); alpha and beta are host f32s, as CUBLAS_COMPUTE_32F
            // and the default (host) pointer mode read them.
            unsafe {
                blas::gemm_strided_batched_ex(
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
                    strided.stride_a,
                    a.device_ptr() as *const c_void,
                    sys::cudaDataType::CUDA_R_16BF,
                    call.ldb,
                    strided.stride_b,
                    &beta as *const f32 as *const c_void,
                    d.device_ptr() as *mut c_void,
                    O::DATA_TYPE,
                    call.ldc,
                    strided.stride_c,
                    strided.batches,
                    sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                    sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                )
            }
        }));
        let name = || "cublasGemmStridedBatchedEx".to_string();
        match status {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                Err(HostError::Cuda { call: name(), kernel: None, message: format!("{e} ({batches} x {m}x{n}x{k})") })
            }
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

/// Bytes of the cuBLASLt workspace: NVIDIA's recommendation for Hopper (32 MiB; 4 MiB before
/// it). Allocated once per [`CublasLt`]: an allocation per call would synchronize the device
/// (`cuMemAlloc`/`cuMemFree`) inside every timed GEMM.
pub const LT_WORKSPACE_BYTES: usize = 32 << 20;

/// The layouts cuBLASLt describes its matrices with for the sizes of `call` (which swaps our
/// operands, [`TnCall`]): `(rows, columns, leading dimension)` of its A (our B, stored K x N
/// column-major and taken transposed), its B (our A, K x M, taken as is) and its C and D (our D,
/// N x M), in elements. cuBLASLt's layouts describe the matrices as stored, before `TRANSA` and
/// `TRANSB` apply.
fn lt_layouts(call: TnCall) -> [(u64, u64, i64); 3] {
    // Non-negative: TnCall's sizes come from `usize`s.
    let dim = |x: c_int| x as u64;
    [
        (dim(call.k), dim(call.m), call.lda as i64),
        (dim(call.k), dim(call.n), call.ldb as i64),
        (dim(call.m), dim(call.n), call.ldc as i64),
    ]
}

/// A cuBLASLt object (descriptor, layout, preference) destroyed when dropped, so that every way
/// out of [`CublasLt::gemm_tn_e4m3`] (an error, cudarc's panic on a missing symbol) frees it.
struct LtOwned<T: Copy>(T, unsafe fn(T) -> Result<(), LtError>);

impl<T: Copy> Drop for LtOwned<T> {
    fn drop(&mut self) {
        // SAFETY: created by the matching cublasLt*Create, destroyed once. The work that used it
        // was enqueued already, and cuBLASLt does not need the descriptors after that. Errors
        // cannot be reported from `drop`.
        let _ = unsafe { (self.1)(self.0) };
    }
}

/// A cuBLASLt call that failed: its name and the status (with a hint where one helps).
type LtFailure = (&'static str, String);

/// The failure of the cuBLASLt call `call` returning `e`.
fn lt_failed(call: &'static str) -> impl Fn(LtError) -> LtFailure {
    move |e| (call, e.to_string())
}

/// A cuBLASLt handle bound to a [`Gpu`]'s stream, with its workspace ([`LT_WORKSPACE_BYTES`]):
/// its GEMMs are ordered with the GPU's launches and timed by [`Gpu::time_ms`] like them. cuBLASLt
/// handles carry no stream; each `cublasLtMatmul` is given the GPU's. Destroyed when dropped.
pub struct CublasLt<'g> {
    gpu: &'g Gpu,
    handle: lt_sys::cublasLtHandle_t,
    /// Scratch for split-K and stream-K algorithms, lent to every call (stream order keeps
    /// the calls from overlapping in it). Freed after `drop` has waited for the stream and
    /// destroyed the handle (fields drop after it).
    workspace: DeviceBuffer<u8>,
}

impl<'g> CublasLt<'g> {
    /// A handle and its workspace on `gpu`.
    ///
    /// # Errors
    /// [`NOT_FOUND`] when `libcublas` or `libcublasLt` cannot be opened; the CPU backend;
    /// `cublasLtCreate` failing; the workspace's allocation failing.
    pub fn new(gpu: &'g Gpu) -> Result<CublasLt<'g>, String> {
        if gpu.is_cpu() {
            return Err("cuBLASLt needs a GPU (this is the CPU backend)".into());
        }
        if let Some(why) = missing() {
            return Err(why.into());
        }
        // Binds the GPU's context: the handle belongs to the context current at its creation.
        gpu.raw_stream().map_err(|e| e.to_string())?;
        let workspace = gpu.alloc::<u8>(LT_WORKSPACE_BYTES).map_err(|e| format!("the cuBLASLt workspace: {e}"))?;
        // cudarc panics on a missing symbol: a broken installation is an error, not a crash.
        match catch_unwind(lt::create_handle) {
            Ok(Ok(handle)) => Ok(CublasLt { gpu, handle, workspace }),
            Ok(Err(e)) => Err(format!("cublasLtCreate failed: {e}")),
            Err(panic) => Err(format!("cuBLASLt could not be used: {}", panic_text(panic))),
        }
    }

    /// Issues `D = scale_a * scale_b * (A * B^T)` on the GPU's stream without waiting: `A`
    /// M x K and `B` N x K row-major e4m3 (one byte each, the bits of
    /// `cute_rs_tensor::device::numeric::E4M3`), `scale_a` and `scale_b` one f32 each in device
    /// memory (per-tensor scales, read when the GEMM runs), `D` M x N row-major of `O`, products
    /// accumulated in f32 (`cublasLtMatmul`, `CUBLAS_COMPUTE_32F`, f32 scale type), alpha 1,
    /// beta 0.
    ///
    /// cuBLASLt's fp8 GEMMs exist only in the "TN" form (its A transposed, its B not), which
    /// is the operand swap of [`Cublas::gemm_tn`]: its A is our B (N x K row-major, i.e. K x N
    /// column-major, `TRANSA = T`), its B our A (K x M column-major, `TRANSB = N`), its D our D
    /// (N x M column-major, i.e. M x N row-major), so our A's scale is its B's
    /// (`CUBLASLT_MATMUL_DESC_B_SCALE_POINTER`) and our B's its A's (the product of the two is
    /// the same either way). Its C, unread with beta 0 but described all the same (for fp8 the
    /// C type must match a bf16 or f32 D), is D itself. The algorithm is cuBLASLt's first
    /// heuristic choice within the workspace. Its descriptors are made per call: a few
    /// microseconds on the host, nothing on the GPU.
    ///
    /// # Errors
    /// [`HostError::Invalid`] when a size is 0 or exceeds `2^31 - 1`, or a buffer is shorter than
    /// its matrix (a scale than 1); [`HostError::Cuda`] naming the cuBLASLt call that failed and
    /// its status (`cublasLtMatmulAlgoGetHeuristic` with `CUBLAS_STATUS_NOT_SUPPORTED` when no
    /// algorithm fits: fp8 wants 16-byte leading dimensions, K a multiple of 16 and rows of D of
    /// a multiple of 16 bytes).
    ///
    /// # Safety
    /// The buffers belong to this handle's GPU and stay alive until the GEMM has run; nothing
    /// else writes `D` meanwhile.
    pub unsafe fn gemm_tn_e4m3<O: PeerOut>(
        &self,
        (m, n, k): (usize, usize, usize),
        a: &DeviceBuffer<u8>,
        b: &DeviceBuffer<u8>,
        (scale_a, scale_b): (&DeviceBuffer<f32>, &DeviceBuffer<f32>),
        d: &DeviceBuffer<O>,
    ) -> cute_rs_host::Result<()> {
        let gemm = format!("cuBLASLt e4m3 GEMM {m}x{n}x{k} -> {}", O::LABEL);
        // Empty problems are refused rather than passed on: cuBLASLt documents no fp8 GEMM of
        // empty matrices, and the peer is never asked one.
        if m == 0 || n == 0 || k == 0 {
            return Err(HostError::Invalid(format!("{gemm}: every size must be at least 1")));
        }
        let call = TnCall::new(m, n, k)?;
        check_holds(
            &gemm,
            1,
            &[
                ("A", a.len(), m, k),
                ("B", b.len(), n, k),
                ("D", d.len(), m, n),
                ("scale_a", scale_a.len(), 1, 1),
                ("scale_b", scale_b.len(), 1, 1),
            ],
        )?;
        // Binds the GPU's context (cuBLASLt uses the calling thread's) and gives its stream.
        let stream = self.gpu.raw_stream()? as lt_sys::cudaStream_t;
        let ran = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: as this function's, with the sizes and lengths checked above.
            unsafe { self.matmul_e4m3::<O>(call, (a, b), (scale_a, scale_b), d, stream) }
        }));
        match ran {
            Ok(Ok(())) => Ok(()),
            Ok(Err((call, message))) => {
                Err(HostError::Cuda { call: call.into(), kernel: None, message: format!("{message} ({gemm})") })
            }
            Err(panic) => {
                Err(HostError::Cuda { call: "cublasLtMatmul".into(), kernel: None, message: panic_text(panic) })
            }
        }
    }

    /// The calls of [`CublasLt::gemm_tn_e4m3`] after its checks: descriptors, heuristic, matmul.
    ///
    /// # Safety
    /// As [`CublasLt::gemm_tn_e4m3`], with `call` the sizes of the buffers (checked) and
    /// `stream` the GPU's, its context current.
    unsafe fn matmul_e4m3<O: PeerOut>(
        &self,
        call: TnCall,
        (a, b): (&DeviceBuffer<u8>, &DeviceBuffer<u8>),
        (scale_a, scale_b): (&DeviceBuffer<f32>, &DeviceBuffer<f32>),
        d: &DeviceBuffer<O>,
        stream: lt_sys::cudaStream_t,
    ) -> Result<(), LtFailure> {
        use lt_sys::cublasLtMatmulDescAttributes_t as Attr;
        // fp8 needs f32 compute and f32 scales (alpha, beta and the tensors' scale factors).
        let desc =
            lt::create_matmul_desc(lt_sys::cublasComputeType_t::CUBLAS_COMPUTE_32F, lt_sys::cudaDataType::CUDA_R_32F)
                .map_err(lt_failed("cublasLtMatmulDescCreate"))?;
        let desc = LtOwned(desc, lt::destroy_matmul_desc);
        let set = |attr: Attr, value: *const c_void, bytes: usize| {
            // SAFETY: a live descriptor; `value` points to `bytes` bytes of the attribute's type.
            unsafe { lt::set_matmul_desc_attribute(desc.0, attr, value, bytes) }
                .map_err(lt_failed("cublasLtMatmulDescSetAttribute"))
        };
        // TRANSA and TRANSB are `int32_t`s holding a cublasOperation_t (cudarc binds that enum
        // in cuBLAS only).
        let (op_t, op_n) = (sys::cublasOperation_t::CUBLAS_OP_T as i32, sys::cublasOperation_t::CUBLAS_OP_N as i32);
        set(Attr::CUBLASLT_MATMUL_DESC_TRANSA, &op_t as *const i32 as *const c_void, size_of::<i32>())?;
        set(Attr::CUBLASLT_MATMUL_DESC_TRANSB, &op_n as *const i32 as *const c_void, size_of::<i32>())?;
        // The scale attributes hold the device addresses (`const void *`), read by the GEMM when it
        // runs; cuBLASLt's A is our B, its B our A.
        let (lt_a_scale, lt_b_scale) = (scale_b.device_ptr(), scale_a.device_ptr());
        set(Attr::CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &lt_a_scale as *const u64 as *const c_void, size_of::<u64>())?;
        set(Attr::CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &lt_b_scale as *const u64 as *const c_void, size_of::<u64>())?;

        let [(a_rows, a_cols, lda), (b_rows, b_cols, ldb), (d_rows, d_cols, ldd)] = lt_layouts(call);
        let layout = |ty: lt_sys::cudaDataType, rows: u64, cols: u64, ld: i64| {
            lt::create_matrix_layout(ty, rows, cols, ld)
                .map(|l| LtOwned(l, lt::destroy_matrix_layout))
                .map_err(lt_failed("cublasLtMatrixLayoutCreate"))
        };
        let e4m3 = lt_sys::cudaDataType::CUDA_R_8F_E4M3;
        let lt_a = layout(e4m3, a_rows, a_cols, lda)?;
        let lt_b = layout(e4m3, b_rows, b_cols, ldb)?;
        // C and D share one layout (D's type: fp8 with a bf16 or f32 D wants C of the same type).
        let lt_d = layout(O::LT_DATA_TYPE, d_rows, d_cols, ldd)?;

        let pref = LtOwned(
            lt::create_matmul_pref().map_err(lt_failed("cublasLtMatmulPreferenceCreate"))?,
            lt::destroy_matmul_pref,
        );
        // A `uint64_t`: the algorithms the heuristic may return are those that fit the workspace.
        let workspace_bytes = self.workspace.len() as u64;
        // SAFETY: a live preference; the value is the attribute's `uint64_t`.
        unsafe {
            lt::set_matmul_pref_attribute(
                pref.0,
                lt_sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &workspace_bytes as *const u64 as *const c_void,
                size_of::<u64>(),
            )
        }
        .map_err(lt_failed("cublasLtMatmulPreferenceSetAttribute"))?;
        // The first (best) of the heuristic's choices; none is CUBLAS_STATUS_NOT_SUPPORTED.
        // SAFETY: live handle, descriptors, layouts and preference.
        let heuristic =
            unsafe { lt::get_matmul_algo_heuristic(self.handle, desc.0, lt_a.0, lt_b.0, lt_d.0, lt_d.0, pref.0) }
                .map_err(|e| {
                    let hint = if e.0 == lt_sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED {
                        ": no algorithm for these sizes and types (fp8 wants 16-byte leading dimensions: K a multiple of 16, rows of D of a multiple of 16 bytes)"
                    } else {
                        ""
                    };
                    ("cublasLtMatmulAlgoGetHeuristic", format!("{e}{hint}"))
                })?;

        let (alpha, beta) = (1.0f32, 0.0f32);
        let d_ptr = d.device_ptr() as *mut c_void;
        // SAFETY: the buffers hold the matrices the layouts describe (checked by the caller) on this
        // GPU; alpha and beta are host f32s (the default pointer mode), the scales device f32s;
        // the algorithm came from the heuristic for these descriptors and fits the workspace.
        unsafe {
            lt::matmul(
                self.handle,
                desc.0,
                &alpha as *const f32 as *const c_void,
                &beta as *const f32 as *const c_void,
                b.device_ptr() as *const c_void,
                lt_a.0,
                a.device_ptr() as *const c_void,
                lt_b.0,
                d_ptr as *const c_void,
                lt_d.0,
                d_ptr,
                lt_d.0,
                &heuristic.algo,
                self.workspace.device_ptr() as *mut c_void,
                self.workspace.len(),
                stream,
            )
        }
        .map_err(lt_failed("cublasLtMatmul"))
    }
}

impl Drop for CublasLt<'_> {
    fn drop(&mut self) {
        // The workspace (freed after this, with the fields) must outlive the GEMMs that use it:
        // wait for the stream rather than rely on cublasLtDestroy or cuMemFree synchronizing.
        if self.gpu.raw_stream().is_ok() {
            let _ = self.gpu.synchronize();
            // SAFETY: created in `new`, destroyed once. Errors cannot be reported from `drop`.
            let _ = unsafe { lt::destroy_handle(self.handle) };
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

    /// The strides `gemm_tn_batched` passes step each operand of cuBLAS's call to the next of our
    /// packed matrices: batch `p` computed by the BLAS definition on the operands `p` strides in is
    /// our `A_p * B_p^T`, and `L` strides span each buffer exactly.
    #[test]
    fn strided_call_steps_through_packed_batches() {
        for (l, (m, n, k)) in [(3, (3, 5, 7)), (2, (1, 4, 2)), (4, (6, 2, 1))] {
            let a: Vec<f64> = (0..l * m * k).map(|i| (i * 7 % 11) as f64 - 5.0).collect();
            let b: Vec<f64> = (0..l * n * k).map(|i| (i * 5 % 13) as f64 - 6.0).collect();
            let s = StridedTnCall::new(l, (m, n, k)).unwrap();
            let stride = |x: c_longlong| usize::try_from(x).unwrap();
            assert_eq!(
                (stride(s.stride_a) * l, stride(s.stride_b) * l, stride(s.stride_c) * l),
                (b.len(), a.len(), l * m * n)
            );
            for p in 0..l {
                // cuBLAS's A is our B, its B our A, each `p` of its own strides in.
                let d = column_major_tn(s.call, &b[p * stride(s.stride_a)..], &a[p * stride(s.stride_b)..]);
                for i in 0..m {
                    for j in 0..n {
                        let want: f64 = (0..k).map(|q| a[(p * m + i) * k + q] * b[(p * n + j) * k + q]).sum();
                        assert_eq!(d[i * n + j], want, "D_{p}[{i}][{j}] of {l} x {m}x{n}x{k}");
                    }
                }
            }
        }
        let e = StridedTnCall::new(1 << 31, (8, 8, 8)).unwrap_err().to_string();
        assert!(e.contains("L = 2147483648 exceeds 2^31 - 1"), "{e}");
    }

    /// cuBLASLt's layouts are the matrices as stored: its A (our B) K x N with leading dimension K,
    /// its B (our A) K x M, its D (our D) N x M with leading dimension N.
    #[test]
    fn lt_layouts_describe_the_swapped_operands() {
        let call = TnCall::new(200, 136, 128).unwrap();
        assert_eq!(lt_layouts(call), [(128, 136, 128), (128, 200, 128), (136, 200, 136)]);
    }

    #[test]
    fn short_buffers_are_errors() {
        let buffers = [("A", 6, 2, 3), ("B", 11, 4, 3)];
        assert!(check_holds("x", 1, &buffers[..1]).is_ok());
        let e = check_holds("cuBLAS GEMM 2x4x3", 1, &buffers).unwrap_err().to_string();
        assert!(e.contains("cuBLAS GEMM 2x4x3: B holds 11 elements, fewer than 4 x 3"), "{e}");
        let e = check_holds("batched", 2, &buffers).unwrap_err().to_string();
        assert!(e.contains("batched: A holds 6 elements, fewer than 2 x 2 x 3"), "{e}");
        assert!(check_holds("overflow", 2, &[("D", usize::MAX, usize::MAX, 2)]).is_err());
    }

    #[test]
    fn sizes_beyond_int_are_errors() {
        let e = TnCall::new(1 << 31, 8, 8).unwrap_err().to_string();
        assert!(e.contains("M = 2147483648 exceeds 2^31 - 1"), "{e}");
        assert_eq!(TnCall::new(0, 0, 0).unwrap(), TnCall { m: 0, n: 0, k: 0, lda: 1, ldb: 1, ldc: 1 });
    }

    /// Every check that calls cuBLAS or cuBLASLt (its name says `cublas`) is skipped where they do
    /// not load ([`super::super::NEEDS`] goes by name prefix) and on the CPU backend, which has
    /// neither.
    #[test]
    fn every_cublas_check_is_skipped_without_cublas() {
        let names: Vec<&str> = super::super::checks().iter().map(|c| c.name).filter(|n| n.contains("cublas")).collect();
        assert!(names.len() >= 4, "{names:?}");
        for name in names {
            assert!(super::super::NEEDS.iter().any(|(prefix, _)| name.starts_with(prefix)), "{name} is not in NEEDS");
            assert!(super::super::gpu_only(name).is_some(), "{name} is not GPU-only");
        }
    }

    /// Without a GPU, or without cuBLAS, everything says why instead of panicking.
    #[test]
    fn no_gpu_or_no_cublas_is_an_error() {
        let cpu = Gpu::cpu();
        let e = Cublas::new(&cpu).err().expect("the CPU backend has no cuBLAS");
        assert!(e.contains("CPU backend"), "{e}");
        let e = CublasLt::new(&cpu).err().expect("the CPU backend has no cuBLASLt");
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
