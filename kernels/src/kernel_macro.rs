//! `kernel!`: write a GPU kernel as a plain Rust function.
//!
//! ```ignore
//! kernel! {
//!     /// Copies `src` to `dst`, one element per thread.
//!     pub fn vector_copy(src: *const f32, dst: *mut f32) {
//!         let t = global_thread_index();
//!         *dst.add(t) = *src.add(t);
//!     }
//! }
//! ```
//!
//! expands, on `nvptx64`, to
//!
//! ```ignore
//! #[no_mangle]
//! pub unsafe extern "ptx-kernel" fn vector_copy(src: *const f32, dst: *mut f32) { ... }
//! ```
//!
//! (an entry point of the PTX module, named as written, loadable by the host by that name), and on
//! every other target to a plain `pub unsafe fn` with the same body plus an entry in the CPU
//! backend's registry ([`layout_tensor::device::cpu::KERNELS`]): the kernel's name, the sizes of
//! its parameters and a function that reads the arguments from bytes and calls it. The host
//! runtime launches it from there by the same name, so one kernel source runs on both backends.
//!
//! The body is an `unsafe` context: kernels take raw pointers and the caller (the launch) vouches
//! for them. Kernel parameters must be plain `Copy` data the driver can pass by value (pointers,
//! integers, floats, `#[repr(C)]` structs of those).
//!
//! Launch bounds (CUDA's `__launch_bounds__`, which rustc lacks): an inner attribute first,
//!
//! ```ignore
//! kernel! {
//!     #![launch_bounds(384, 1)] // at most 384 threads per block, at least 1 block per SM
//!     pub fn gemm(...) { ... }
//! }
//! ```
//!
//! emits, on `nvptx64`, a marker symbol `__cute_launch_bounds_<name>__384_1` that the PTX linker of `cute-rs-build`
//! turns into the entry's `.maxntid 384, 1, 1` and `.minnctapersm 1` directives (and drops): ptxas
//! then knows the register budget at entry, which `setmaxnreg` needs. On the host the bounds are
//! ignored.
//!
//! This is the simplest acceptable form of the `#[kernel]` seam: a `macro_rules!` macro. It lives in
//! its own module so that it can be moved (to `layout-tensor` or a proc-macro crate) without touching
//! the kernels written with it.

/// Defines a GPU kernel without `extern "ptx-kernel"` boilerplate, registered for the CPU backend
/// on the host. See the [module docs](self).
#[macro_export]
macro_rules! kernel {
    (
        #![launch_bounds($max:literal $(, $min:literal)?)]
        $(#[$attr:meta])*
        $vis:vis fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $body:block
    ) => {
        $crate::kernel! { $(#[$attr])* $vis fn $name( $($arg : $ty),* ) $body }

        // A marker whose *name* carries the bounds (`__cute_launch_bounds_<kernel>__<max>_<min>`),
        // read from the IR by the PTX linker of `cute-rs-build` and dropped there.
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
        $(#[$attr])*
        #[cfg(target_arch = "nvptx64")]
        #[no_mangle]
        $vis unsafe extern "ptx-kernel" fn $name( $($arg : $ty),* ) $body

        $(#[$attr])*
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(dead_code)]
        $vis unsafe fn $name( $($arg : $ty),* ) $body

        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            #[::layout_tensor::device::cpu::linkme::distributed_slice(::layout_tensor::device::cpu::KERNELS)]
            #[linkme(crate = ::layout_tensor::device::cpu::linkme)]
            static REGISTERED: ::layout_tensor::device::cpu::CpuKernel = ::layout_tensor::device::cpu::CpuKernel {
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
