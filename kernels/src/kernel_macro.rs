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
//! every other target to a plain `pub unsafe fn` with the same body, so that the kernel's code can be
//! type-checked (and later run by a CPU backend) without the GPU calling convention.
//!
//! The body is an `unsafe` context: kernels take raw pointers and the caller (the launch) vouches
//! for them. Kernel parameters must be plain `Copy` data the driver can pass by value (pointers,
//! integers, floats, `#[repr(C)]` structs of those).
//!
//! This is the simplest acceptable form of the `#[kernel]` seam: a `macro_rules!` macro. It lives in
//! its own module so that it can be moved (to `layout-tensor` or a proc-macro crate) without touching
//! the kernels written with it.

/// Defines a GPU kernel without `extern "ptx-kernel"` boilerplate. See the [module docs](self).
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
    };
}
