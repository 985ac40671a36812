//! Device primitives: the GPU's thread hierarchy, synchronization, memories and special
//! instructions, each a small Rust API with documented preconditions, used by `kernels/` and by the
//! tensor views. On `nvptx64` they compile to PTX; the CPU backend gives them the same semantics
//! on the host.

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
pub mod ids;
pub mod math;
pub mod memory;
pub mod mma;
pub mod shared;
pub mod sync;
pub mod tma;
pub mod warp;
