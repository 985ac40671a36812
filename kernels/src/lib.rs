//! The production kernels of cute-rs: the GEMMs and the fused attention, compiled to their own PTX
//! modules (and cubins when `ptxas` is found) by the root package's `build.rs` with
//! `cute-rs-build`.
//!
//! - `gemm`: the portable `mma.sync` GEMMs (bf16/f16 in, f32/bf16/f16 out) and, in `sgemm`, the
//!   f32 and TF32 ones; the module `gemm` (sm_90 by default).
//! - `gemm_sm90`: the Hopper GEMMs (TMA, wgmma, warp specialization), built only with the cargo
//!   feature `sm90a` into the module `gemm_sm90a`, which holds the Hopper kernels only.
//! - `attention`: the portable fused attention forward on block tiles (`mma.sync`; the module
//!   `gemm`, and the CPU backend); `attention_sm90`: the Hopper one (TMA, wgmma, warp
//!   specialization; the module `gemm_sm90a`); `attention_bwd`: the portable backward (dQ, dK,
//!   dV; the module `gemm`, and the CPU backend); `attention_bwd_sm90`: the Hopper backward's main
//!   kernel (the module `gemm_sm90a`).
//!
//! Each kernel is written with [`#[kernel]`](cute_rs_tensor::kernel): on the GPU a PTX entry of its
//! name; on the host a `KernelFn` constant that `cute_rs_host::Gpu::launch` takes with typed
//! arguments, and whose body the CPU backend runs. The modules hold only the entries a call of
//! `cute-rs-ops` can choose. Test, benchmark and fault kernels, and the measured steps that led to
//! these kernels, live in the test harness's own device crate (`tests/kernels`), which depends on
//! this one without its default feature `entries`: it composes the building blocks (tile bodies,
//! epilogues, pipelines) into its own entries, and compiles none of these.
#![no_std]
// Without the feature `entries`, the crate is the kernels' building blocks only, most of which
// only the entries use.
#![cfg_attr(not(feature = "entries"), allow(dead_code, unused_imports, unused_macros))]
// `asm_experimental_arch`: the f32 GEMM's shared-memory accesses in inline PTX (`sgemm`).
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]

// The portable kernels are the module `gemm`'s: the device build of `gemm_sm90a` (feature `sm90a`)
// leaves them out, so that it compiles and ships each kernel once. The host build has them all.
#[cfg(any(not(feature = "sm90a"), not(target_arch = "nvptx64")))]
pub mod attention;
#[cfg(any(not(feature = "sm90a"), not(target_arch = "nvptx64")))]
pub mod attention_bwd;
#[cfg(feature = "sm90a")]
pub mod attention_bwd_sm90;
#[cfg(feature = "sm90a")]
pub mod attention_sm90;
pub mod epilogue;
#[cfg(any(not(feature = "sm90a"), not(target_arch = "nvptx64")))]
pub mod gemm;
#[cfg(feature = "sm90a")]
pub mod gemm_sm90;
pub mod gemm_sm90_sizes;
#[cfg(any(not(feature = "sm90a"), not(target_arch = "nvptx64")))]
pub mod sgemm;

/// The dynamic shared memory a Hopper kernel of this crate may take: a block's
/// ([`SM90_SHARED_BYTES_PER_BLOCK`](cute_rs_tensor::device::shared::SM90_SHARED_BYTES_PER_BLOCK)),
/// less 1 KiB for the kernels' static shared arrays (their barriers).
///
/// ```
/// assert_eq!(cute_rs_kernels::SM90_DYNAMIC_SMEM_BYTES, 226 * 1024);
/// ```
pub const SM90_DYNAMIC_SMEM_BYTES: u32 = cute_rs_tensor::device::shared::SM90_SHARED_BYTES_PER_BLOCK - 1024;

/// A contract of the kernels' layouts and sizes (that accumulator fragments, swizzled staging
/// buffers, TMA boxes and wgmma descriptors agree with what the kernels assume), written once as a
/// function of the host build: [`contracts`] lists it, and `cute-rs-ops`' tests run each one
/// (natively, in milliseconds). A `const` evaluation of all of them would add minutes of the
/// compiler's interpreter to every build of this crate, host and device alike.
///
/// `contract!(name, { ...asserts... })` at module level; on nvptx64 it expands to nothing. The
/// Hopper modules (`sm90a`) hold the contracts.
#[cfg(feature = "sm90a")]
macro_rules! contract {
    ($(#[$attr:meta])* $name:ident, $body:block) => {
        #[cfg(not(target_arch = "nvptx64"))]
        $(#[$attr])*
        pub(crate) fn $name() $body
    };
}
#[cfg(feature = "sm90a")]
pub(crate) use contract;

/// The contracts of the kernels' layouts (see `contract!`), by name: functions that panic with the
/// violated condition when a contract does not hold.
///
/// Returns: (name, check) pairs, one per contract of this build's modules (those of `gemm_sm90`
/// and `attention_sm90` with the `sm90a` feature).
///
/// ```
/// for (name, check) in cute_rs_kernels::contracts() {
///     check(); // panics with the violated condition
///     assert!(!name.is_empty());
/// }
/// ```
#[cfg(not(target_arch = "nvptx64"))]
pub fn contracts() -> impl Iterator<Item = (&'static str, fn())> {
    #[cfg(feature = "sm90a")]
    let lists: [&[(&'static str, fn())]; 5] =
        [gemm_sm90::CONTRACTS, attention_sm90::CONTRACTS, attention_sm90::CONFIG_CONTRACTS, attention_bwd_sm90::CONTRACTS, attention_bwd_sm90::CONFIG_CONTRACTS];
    #[cfg(not(feature = "sm90a"))]
    let lists: [&[(&'static str, fn())]; 0] = [];
    lists.into_iter().flatten().copied()
}
