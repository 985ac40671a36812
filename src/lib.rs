//! The cute-rs demo (`cargo run --release` at the repository's root): a tiled, vectorized copy and
//! a shared-memory transpose whose index math is the layout algebra's.
//!
//! This package is shaped like a user's project: its `build.rs` compiles the device crate
//! `demo-kernels/` with `cute-rs-build`, and [`demo`] launches its kernels through
//! `cute-rs-host`, on a GPU or on the CPU backend. The library itself is the published crates:
//! `cute-rs-layout` (the algebra), `cute-rs-tensor` (tensors, copies, `#[kernel]`),
//! `cute-rs-host` (the runtime), `cute-rs-build` (the build helper) and `cute-rs-ops` (GEMM and
//! attention).

use cute_rs_host::ModuleSource;

/// The demo's kernels (`demo-kernels/`), for `CUTE_PTX_ARCH` (`sm_90` by default), with a cubin
/// when `ptxas` was found at build time.
///
/// # Example
/// ```
/// assert!(cute_rs::DEMO.ptx.contains(".visible .entry tiled_copy_f32x4("));
/// assert!(cute_rs::DEMO.ptx.contains(".visible .entry transpose_f32("));
/// ```
pub const DEMO: ModuleSource = cute_rs_host::module!(demo_kernels, "demo");

/// The layouts the demo's kernels use.
pub use demo_kernels::demo_layouts;
pub mod demo;
