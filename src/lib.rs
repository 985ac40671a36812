//! cute-rs: GPU kernels in Rust with a CuTe-style layout algebra.
//!
//! This root package is the project's own first user: its `build.rs` compiles the device crate
//! `kernels/` with `cute-rs-build`, as a user's build script does, and it holds the GEMM API
//! ([`gemm`]), the demo (`src/bin/demo.rs`), the GPU suite ([`gpu_suite`]) and the integration
//! tests (`tests/`). The library lives in its own crates: `cute-rs-layout` (the algebra),
//! `cute-rs-device` (the primitives and the CPU backend), `cute-rs-tensor` (views, copies,
//! `#[kernel]`), `cute-rs-host` (the runtime) and `cute-rs-build` (the build helper); inside this
//! workspace they are imported as `layout`, `layout_tensor` and `host`.

/// The PTX module holding every kernel of the `kernels/` crate.
///
/// Built by this package's `build.rs`: the nightly toolchain compiles `kernels/` for
/// `nvptx64-nvidia-cuda` (`-Zbuild-std=core`, linked by `cute-rs-build`'s linker), and the module is
/// copied to `target/ptx/kernels.ptx`, whose path the build script passes as `KERNELS_PTX`. Load it
/// with the CUDA driver (e.g. cudarc's `load_module`) and launch kernels by their Rust names,
/// e.g. `vector_copy`.
///
/// The GPU architecture it targets is [`KERNELS_PTX_ARCH`] (set with `CUTE_PTX_ARCH` at build
/// time, `sm_90` by default).
///
/// # Example
///
/// ```
/// assert!(cute_rs::KERNELS_PTX.contains(".visible .entry vector_copy("));
/// ```
pub const KERNELS_PTX: &str = include_str!(env!("KERNELS_PTX"));

/// The GPU architecture [`KERNELS_PTX`] was compiled for (`sm_90`, `sm_80`, `sm_90a`, ...).
///
/// # Example
///
/// ```
/// let target = format!(".target {}", cute_rs::KERNELS_PTX_ARCH);
/// assert!(cute_rs::KERNELS_PTX.contains(&target));
/// ```
pub const KERNELS_PTX_ARCH: &str = env!("KERNELS_PTX_ARCH");

/// The `kernels/` crate built a second time, for `sm_90a` and with its cargo feature `sm90a`: every
/// kernel of [`KERNELS_PTX`] plus those that need sm_90a-only instructions (`wgmma`). It loads on
/// sm_90 GPUs only (H100, H200).
///
/// Built by this package's `build.rs` into `target/ptx/kernels_sm90a.ptx` (path passed as
/// `KERNELS_SM90A_PTX`; `CUTE_KERNELS_SM90A_PTX` names a prebuilt replacement).
///
/// # Example
///
/// ```
/// assert!(cute_rs::KERNELS_SM90A_PTX.contains(".target sm_90a"));
/// assert!(cute_rs::KERNELS_SM90A_PTX.contains(".entry wgmma_m64n16k16_bf16_check("));
/// ```
pub const KERNELS_SM90A_PTX: &str = include_str!(env!("KERNELS_SM90A_PTX"));

/// The sizes of the cuTile-style copy kernel, the demo kernels' layouts and the layouts of the
/// `LayoutTensor` copy kernel: the device crate's own modules (compiled for the host too).
pub use kernels::{cutile_sizes, demo_layouts, tensor_copy_layouts};
pub mod gemm;
pub mod gemm_f32;
mod gemm_hopper;
pub mod gpu_suite;

// The device crate compiled for the host is linked (through the re-exports above): its kernels
// register with the CPU backend.
