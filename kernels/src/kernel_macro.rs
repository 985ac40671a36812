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
//! This is the simplest acceptable form of the `#[kernel]` seam: a `macro_rules!` macro. It lives in
//! its own module so that it can be moved (to `layout-tensor` or a proc-macro crate) without touching
//! the kernels written with it.

/// Defines a GPU kernel without `extern "ptx-kernel"` boilerplate, registered for the CPU backend
/// on the host. See the [module docs](self).
#[macro_export]
macro_rules! kernel {
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
