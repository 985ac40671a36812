//! Device primitives of cute-rs: the GPU's thread hierarchy, synchronization, memories and special
//! instructions, each a small Rust API with documented preconditions, used by the tensor views of
//! `cute-rs-tensor` and by kernels. On `nvptx64` they compile to PTX; on the host, the CPU backend
//! ([`cpu`]) gives them the same semantics, so the same kernels run there.
//!
//! Device crates reach them as `cute_rs_tensor::device` (one dependency); this crate holds them
//! apart from the tensor views because they know nothing of tensors: pointers, registers and
//! fragment descriptions only.
//!
//! | module | holds |
//! | --- | --- |
//! | [`ids`] | thread, block, grid, cluster and lane indices |
//! | [`sync`] | block, named and warp barriers, mbarriers (transaction barriers), fences, `trap` |
//! | [`shared`] | static ([`shared_array!`]) and dynamic ([`dynamic_shared!`]) shared memory |
//! | [`warp`] | shuffles, votes, warp reductions |
//! | [`memory`] | loads and stores with cache hints |
//! | [`atomics`] | atomic read-modify-writes |
//! | [`cp_async`] | `cp.async` copies and their groups |
//! | [`tma`], [`cluster`] | TMA loads and stores, multicast, cluster barriers |
//! | [`mma`] | `ldmatrix`/`stmatrix`, `mma.sync`, `wgmma` with their fragment layouts |
//! | [`numeric`] | bf16 and f16 to and from `f32`, 16-bit pairs packed for the tensor cores |
//! | [`unroll`] | loops unrolled by construction (register arrays stay in registers) |
//! | [`hint`] | where the compiler computes values ([`hint::recompute`]: not hoisted out of a loop) |
//! | [`math`] | `exp`, `log`, `tanh`, `erf`, ... with the same bits on both backends |
//! | [`cpu`] | the CPU backend: scheduler, launches, the kernel registry |
#![no_std]
#![warn(missing_docs)]
// Unsafe functions here are primitives whose bodies are their unsafe operations (edition 2024
// would ask for an `unsafe` block in each).
#![allow(unsafe_op_in_unsafe_fn)]
// Inline PTX and the nvptx intrinsics are nightly features of the device target only: the host
// build stays on stable.
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch, stdarch_nvptx))]
// `link_llvm_intrinsics`: the NVVM intrinsics (`llvm.nvvm.*`) that LLVM knows to be convergent
// (barriers, shuffles, votes) or of known range (special registers).
#![cfg_attr(target_arch = "nvptx64", feature(link_llvm_intrinsics), allow(internal_features))]
// `allow_internal_unstable`: `shared_array!` and `dynamic_shared!` write inline PTX in the calling
// crate, which then needs no `asm_experimental_arch` of its own.
#![cfg_attr(target_arch = "nvptx64", feature(allow_internal_unstable))]

// The CPU backend needs threads and locks: `std` on the host only.
#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

/// Defines a GPU-only instruction wrapper: on `nvptx64` the function with `$body`; on other targets
/// the same signature, plus an early-bound lifetime `'cpu` and the bound
/// `&'cpu (): CpuImplementation<$marker>`, which no type satisfies. The host build of the crate
/// stays fine (the bound mentions a generic parameter, so it is only checked where the function is
/// called), and each call compiled for the host is an error that names `$marker` (see [`mma::no_cpu`]).
macro_rules! gpu_only {
    (
        $marker:ident;
        $(#[$attr:meta])*
        pub unsafe fn $name:ident $(<$(const $c:ident: $ct:ty),+>)? ($($arg:ident: $ty:ty),* $(,)?) $body:block
    ) => {
        $(#[$attr])*
        #[cfg(target_arch = "nvptx64")]
        #[inline(always)]
        pub unsafe fn $name $(<$(const $c: $ct),+>)? ($($arg: $ty),*) $body

        $(#[$attr])*
        #[cfg(not(target_arch = "nvptx64"))]
        #[inline(always)]
        pub unsafe fn $name<'cpu $($(, const $c: $ct)+)?>($($arg: $ty),*)
        where
            &'cpu (): no_cpu::CpuImplementation<no_cpu::$marker>,
        {
            let _ = ($($arg,)*);
        }
    };
}

pub mod atomics;
pub mod cluster;
#[cfg(not(target_arch = "nvptx64"))]
pub mod cpu;
pub mod cp_async;
pub mod hint;
pub mod ids;
pub mod math;
pub mod memory;
pub mod mma;
pub mod numeric;
pub mod print;
pub mod shared;
pub mod sync;
pub mod tma;
pub mod unroll;
pub mod warp;
