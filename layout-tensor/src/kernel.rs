//! What a device crate needs besides its kernels: the expansion of [`#[kernel]`](macro@crate::kernel)
//! and, on the GPU, the panic handler.
//!
//! [`#[kernel]`](macro@crate::kernel) (from `cute-rs-macros`) checks a function's shape and hands it to
//! [`__kernel!`](crate::__kernel), defined here because this crate is the one compiled for
//! `nvptx64` by the nightly toolchain alongside the user's: the macro may use
//! `allow_internal_unstable(abi_ptx)`, so the `extern "ptx-kernel"` it writes needs no feature
//! attribute in the user's crate.
//!
//! A device crate therefore needs only `#![no_std]` and this crate:
//!
//! ```
//! #![no_std]
//! # extern crate std;
//! use cute_rs_tensor::kernel;
//! use cute_rs_tensor::device::ids::global_thread_index_x;
//!
//! /// `x[i] *= factor` for `i < n`.
//! #[kernel(launch_bounds(256))]
//! pub fn scale(x: *mut f32, n: u32, factor: f32) {
//!     let i = global_thread_index_x() as usize;
//!     if i < n as usize {
//!         *x.add(i) *= factor;
//!     }
//! }
//! # fn main() {
//! # let k = cute_rs_tensor::device::cpu::find_kernel("scale").expect("registered for the CPU backend");
//! # assert_eq!(k.params, &[8, 4, 4]);
//! # }
//! ```

/// Ends the kernel with a PTX `trap` on any panic (bounds checks, `unwrap`, a failed `assert!`):
/// the launch reports an error to the host. Panics never unwind on the GPU (device code is built
/// with `panic = "abort"`). On the host (the CPU backend) `std`'s handler unwinds and the launch
/// reports the panic with its message.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    crate::device::sync::trap()
}

/// The expansion of [`#[kernel]`](macro@crate::kernel); not for direct use (the attribute checks the
/// function first).
///
/// On `nvptx64`, an unmangled `unsafe extern "ptx-kernel" fn` (an entry of the PTX module, named as
/// written) and, with `#![launch_bounds(max, min)]`, a marker symbol
/// `__cute_launch_bounds_<name>__<max>_<min>` that the PTX linker of `cute-rs-build` turns into the
/// entry's `.maxntid`/`.minnctapersm` (and drops). On other targets, a plain `unsafe fn` and its
/// entry in the CPU backend's registry ([`KERNELS`](crate::device::cpu::KERNELS)).
#[doc(hidden)]
#[macro_export]
#[cfg_attr(target_arch = "nvptx64", allow_internal_unstable(abi_ptx))]
macro_rules! __kernel {
    (
        #![launch_bounds($max:literal $(, $min:literal)?)]
        $(#[$attr:meta])*
        $vis:vis fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $body:block
    ) => {
        $crate::__kernel! { $(#[$attr])* $vis fn $name( $($arg : $ty),* ) $body }

        // A marker whose name carries the bounds, read from the IR by the linker.
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[export_name = concat!(
                "__cute_launch_bounds_", stringify!($name), "__", stringify!($max), "_" $(, stringify!($min))?
            )]
            static LAUNCH_BOUNDS: u8 = 0;
        };
    };
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $body:block
    ) => {
        // The body is an `unsafe` block as well as an `unsafe fn`'s body: device crates of the
        // 2024 edition (where an `unsafe fn`'s body is no longer an unsafe context) read the same.
        $(#[$attr])*
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        #[allow(unused_unsafe)]
        $vis unsafe extern "ptx-kernel" fn $name( $($arg : $ty),* ) { unsafe { $body } }

        $(#[$attr])*
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(dead_code, unused_unsafe)]
        $vis unsafe fn $name( $($arg : $ty),* ) { unsafe { $body } }

        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            #[$crate::device::cpu::linkme::distributed_slice($crate::device::cpu::KERNELS)]
            #[linkme(crate = $crate::device::cpu::linkme)]
            static REGISTERED: $crate::device::cpu::CpuKernel = $crate::device::cpu::CpuKernel {
                name: stringify!($name),
                params: &[$(::core::mem::size_of::<$ty>()),*],
                entry: {
                    /// Reads each argument from its bytes (sizes checked by the launch).
                    unsafe fn entry(args: &[&[u8]]) {
                        let mut _next = args.iter();
                        $(
                            let $arg: $ty = ::core::ptr::read_unaligned(
                                _next.next().expect("argument count checked by the launch").as_ptr() as *const $ty,
                            );
                        )*
                        $name($($arg),*)
                    }
                    entry
                },
            };
        };
    };
}
