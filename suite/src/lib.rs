//! The test and benchmark harness of cute-rs (not published): the GPU suite ([`gpu_suite`]: every
//! GPU check and benchmark, run by `tests/gpu.rs` on a GPU, `tests/cpu.rs` on the CPU backend and
//! the `gpu_suite` binary of the GPU bundle), the in-process cuBLAS peer, and the test harness's
//! device crate (`tests/kernels/`), which this package's `build.rs` compiles with
//! `cute-rs-build`. The operations under test come from `cute-rs-ops`, built from source.

use cute_rs_host::ModuleSource;

/// The test harness's kernels (`tests/kernels/`): the GPU suite's checks, benchmarks, fault
/// injection and demos, for `CUTE_PTX_ARCH`.
///
/// # Example
/// ```
/// assert!(cute_rs_suite::TEST_KERNELS.ptx.contains(".visible .entry vector_copy("));
/// let target = format!(".target {}", cute_rs_suite::TEST_KERNELS.arch);
/// assert!(cute_rs_suite::TEST_KERNELS.ptx.contains(&target));
/// ```
pub const TEST_KERNELS: ModuleSource = cute_rs_host::module!(test_kernels, "test_kernels");

/// The test harness's kernels built for `sm_90a` with the cargo feature `sm90a`: also the checks
/// that need sm_90a-only instructions (`wgmma`).
///
/// # Example
/// ```
/// assert!(cute_rs_suite::TEST_KERNELS_SM90A.ptx.contains(".entry wgmma_m64n16k16_bf16_check("));
/// ```
pub const TEST_KERNELS_SM90A: ModuleSource = cute_rs_host::module!(test_kernels, "test_kernels_sm90a");

/// The sizes of the cuTile-style copy kernel, the demo kernels' layouts and the layouts of the
/// `LayoutTensor` copy kernel: the test device crate's own modules (compiled for the host too).
pub use test_kernels::{cutile_sizes, demo_layouts, tensor_copy_layouts};
pub mod gpu_suite;
