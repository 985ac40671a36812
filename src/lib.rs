//! cute-rs: GPU kernels in Rust with a CuTe-style layout algebra.
//!
//! This root package is the project's own first user: its `build.rs` compiles the device crates
//! `kernels/` (the production GEMMs and attention) and `tests/kernels/` (the test harness's
//! kernels) with `cute-rs-build`, as a user's build script does, and it holds the GEMM API
//! ([`gemm`], [`matmul`]), the attention API ([`attention`]), the demo
//! (`src/bin/demo.rs`), the GPU suite ([`gpu_suite`]) and the integration tests (`tests/`). The
//! library lives in its own crates: `cute-rs-layout` (the algebra), `cute-rs-device` (the
//! primitives and the CPU backend), `cute-rs-tensor` (views, copies, `#[kernel]`), `cute-rs-host`
//! (the runtime) and `cute-rs-build` (the build helper); inside this workspace they are imported
//! as `layout`, `layout_tensor` and `host`.

use host::ModuleSource;

/// The portable GEMMs of `kernels/` (`mma.sync`, f32 and TF32) and the portable attention, for `CUTE_PTX_ARCH` (`sm_90` by
/// default). [`host::Gpu::module`] loads it on first use, from its cubin when `ptxas` was found at
/// build time.
///
/// # Example
/// ```
/// assert!(cute_rs::GEMM.ptx.contains(".visible .entry gemm_"));
/// assert!(!cute_rs::GEMM.ptx.contains("vector_copy"), "no test kernel in a production module");
/// ```
pub const GEMM: ModuleSource = host::module!(kernels, "gemm");

/// The Hopper GEMMs and attention of `kernels/` (TMA, wgmma, warp specialization), built with the cargo feature
/// `sm90a` for `sm_90a`. It loads on sm_90 GPUs only (H100, H200).
///
/// # Example
/// ```
/// assert!(cute_rs::GEMM_SM90A.ptx.contains(".target sm_90a"));
/// assert_eq!(cute_rs::GEMM_SM90A.arch, "sm_90a");
/// ```
pub const GEMM_SM90A: ModuleSource = host::module!(kernels, "gemm_sm90a");

/// The test harness's kernels (`tests/kernels/`): the GPU suite's checks, benchmarks, fault
/// injection and demos, for `CUTE_PTX_ARCH`.
///
/// # Example
/// ```
/// assert!(cute_rs::TEST_KERNELS.ptx.contains(".visible .entry vector_copy("));
/// let target = format!(".target {}", cute_rs::TEST_KERNELS.arch);
/// assert!(cute_rs::TEST_KERNELS.ptx.contains(&target));
/// ```
pub const TEST_KERNELS: ModuleSource = host::module!(test_kernels, "test_kernels");

/// The test harness's kernels built for `sm_90a` with the cargo feature `sm90a`: also the checks
/// that need sm_90a-only instructions (`wgmma`).
///
/// # Example
/// ```
/// assert!(cute_rs::TEST_KERNELS_SM90A.ptx.contains(".entry wgmma_m64n16k16_bf16_check("));
/// ```
pub const TEST_KERNELS_SM90A: ModuleSource = host::module!(test_kernels, "test_kernels_sm90a");

/// The sizes of the cuTile-style copy kernel, the demo kernels' layouts and the layouts of the
/// `LayoutTensor` copy kernel: the test device crate's own modules (compiled for the host too).
pub use test_kernels::{cutile_sizes, demo_layouts, tensor_copy_layouts};
pub mod attention;
pub mod gemm;
pub mod gemm_f32;
mod gemm_hopper;
pub mod gpu_suite;
pub mod matmul;

// The device crate compiled for the host is linked (through the re-exports above): its kernels
// register with the CPU backend.
