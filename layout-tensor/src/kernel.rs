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
/// the host's next synchronization reports the failed launch, naming the kernel. Panics never
/// unwind on the GPU (device code is built with `panic = "abort"`). On the host (the CPU backend)
/// `std`'s handler unwinds and the launch reports the panic with its message.
///
/// The handler stays a bare `trap`: printing the panic's location here would put a call with a
/// stack frame behind every panic path, and the Hopper GEMMs, whose tile loops keep division
/// checks, ran slower with it (`docs/performance.md`). `device_assert!` is the assertion that
/// reports its message from the GPU. A panic path is a call into `core::panicking`, and a call
/// anywhere in a kernel makes ptxas serialize its `wgmma` instructions (C7509): kernels on
/// `wgmma` keep panics (a division by a run-time value, a bounds check) out, as the block tiles'
/// `dot` on `wgmma` does.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_info: &core::panic::PanicInfo<'_>) -> ! {
    crate::device::sync::trap()
}

/// A layout that can cross from the host to the GPU inside a `LayoutTensor` kernel parameter: a
/// `#[repr(C)]` value of plain integers (or none), laid out alike by the host's compiler and the
/// device's. [`Static`](crate::Static) layouts (no data) and [`Strided`](crate::Strided) layouts
/// (shape and strides) are; a run-time [`Layout`](cute_rs_layout::Layout) is not (build it in the kernel
/// from scalars instead).
///
/// # Safety
/// The type is `#[repr(C)]` (or zero-sized) and holds no pointers.
///
/// # Example
/// ```
/// fn takes<L: cute_rs_tensor::kernel::KernelLayout>(_: L) {}
/// takes(cute_rs_tensor::Strided::row_major([4, 8]));
/// ```
pub unsafe trait KernelLayout: crate::LayoutSource + 'static {}

// SAFETY: zero-sized.
unsafe impl<S: crate::StaticLayout + 'static> KernelLayout for crate::Static<S> {}
// SAFETY: `#[repr(C)]`, two arrays of `i64`.
unsafe impl<const R: usize> KernelLayout for crate::Strided<R> {}

/// A value the host passes to a kernel bit for bit: a scalar, a raw pointer, or a `#[repr(C)]`
/// struct of those, which is how a kernel takes a parameter struct (CUTLASS's `Params`) instead
/// of a long list of scalars. The host's `KernelParam` accepts a value of the parameter's own
/// type for every `KernelValue` parameter.
///
/// # Safety
/// The type is `#[repr(C)]` (or a primitive), so that the host's compiler and the device's lay it
/// out alike, and holds only scalars, raw pointers and other `KernelValue`s: no references, no
/// run-time layouts.
///
/// # Example
/// ```
/// /// The scalars of an `axpy` kernel.
/// #[repr(C)]
/// #[derive(Clone, Copy)]
/// pub struct Axpy {
///     pub alpha: f32,
///     pub n: u32,
/// }
/// // SAFETY: `#[repr(C)]`, two scalars.
/// unsafe impl cute_rs_tensor::kernel::KernelValue for Axpy {}
///
/// fn takes<P: cute_rs_tensor::kernel::KernelValue>(_: P) {}
/// takes(Axpy { alpha: 2.0, n: 16 });
/// takes(7u32);
/// ```
pub unsafe trait KernelValue: Copy + 'static {}

macro_rules! kernel_values {
    ($($t:ty),*) => {
        // SAFETY: primitives.
        $(unsafe impl KernelValue for $t {})*
    };
}
kernel_values!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64, bool, half::bf16, half::f16);
// SAFETY: a raw pointer is an address; the launch that passes it vouches for what it points at.
unsafe impl<T: 'static> KernelValue for *const T {}
// SAFETY: as `*const T`.
unsafe impl<T: 'static> KernelValue for *mut T {}

/// What a kernel requires of its launch configuration, declared with `#[kernel(block(..),
/// shared_mem(..))]`: the host refuses any launch with another block shape or another amount of
/// dynamic shared memory, by name, before the kernel runs (on both backends).
///
/// Kernels whose block-wide primitives or shared-memory layouts are sized at compile time
/// (a `BlockReduce<f32, 128>`, a `shared_array!` of a layout's cosize) state it here, so that a
/// launch with 64 threads is an error instead of a kernel reading memory nobody wrote.
///
/// # Example
/// ```
/// use cute_rs_tensor::LaunchContract;
/// let c = LaunchContract { block: Some((128, 1, 1)), shared_mem_bytes: Some(4096) };
/// assert_eq!(c.threads(), Some(128));
/// assert_eq!(LaunchContract::NONE.threads(), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchContract {
    /// The block shape the kernel must run with, if it declares one.
    pub block: Option<(u32, u32, u32)>,
    /// The dynamic shared memory, in bytes, the kernel must be given, if it declares it.
    pub shared_mem_bytes: Option<u32>,
}

impl LaunchContract {
    /// No requirement: any configuration the device and the compiled kernel allow.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_tensor::LaunchContract::NONE, cute_rs_tensor::LaunchContract::default());
    /// ```
    pub const NONE: LaunchContract = LaunchContract { block: None, shared_mem_bytes: None };

    /// The number of threads of the declared block.
    ///
    /// # Example
    /// ```
    /// let c = cute_rs_tensor::LaunchContract { block: Some((32, 4, 2)), shared_mem_bytes: None };
    /// assert_eq!(c.threads(), Some(256));
    /// ```
    pub const fn threads(&self) -> Option<u32> {
        match self.block {
            Some((x, y, z)) => Some(x * y * z),
            None => None,
        }
    }
}

/// A kernel as the host sees it: its name, its [`LaunchContract`], its parameter types `P` (a
/// tuple), and its host build for the CPU backend.
///
/// `#[kernel]` defines one for every kernel, under the kernel's own name, in the host build of
/// the device crate: the host launches `my_kernels::saxpy` (see `cute_rs_host::Gpu::launch`) with
/// arguments the compiler checks against `P`. On the GPU the same name is the PTX entry.
///
/// # Parameters
/// - `P`: the kernel's parameter types as a tuple, lifetimes made `'static`
///   (`(f32, *const f32, *mut f32, u32)`).
///
/// # Example
/// ```
/// # extern crate std;
/// use cute_rs_tensor::{kernel, KernelFn};
///
/// /// `x[i] += 1` for the grid's threads.
/// #[kernel(block(256))]
/// pub fn increment(x: *mut u32) {
///     let i = cute_rs_tensor::device::ids::global_thread_index_x() as usize;
///     *x.add(i) += 1;
/// }
///
/// # fn main() {
/// let k: KernelFn<(*mut u32,)> = increment;
/// assert_eq!(k.name(), "increment");
/// assert_eq!(k.contract().block, Some((256, 1, 1)));
/// assert_eq!(k.cpu().params, &[8]);
/// # }
/// ```
#[cfg(not(target_arch = "nvptx64"))]
pub struct KernelFn<P: 'static> {
    name: &'static str,
    contract: LaunchContract,
    cpu: crate::device::cpu::CpuKernel,
    _params: core::marker::PhantomData<fn() -> P>,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<P: 'static> Clone for KernelFn<P> {
    fn clone(&self) -> Self {
        *self
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<P: 'static> Copy for KernelFn<P> {}

#[cfg(not(target_arch = "nvptx64"))]
impl<P: 'static> core::fmt::Debug for KernelFn<P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("KernelFn")
            .field("name", &self.name)
            .field("params", &core::any::type_name::<P>())
            .field("contract", &self.contract)
            .finish()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<P: 'static> KernelFn<P> {
    /// What `#[kernel]` writes; not for direct use.
    #[doc(hidden)]
    pub const fn __new(contract: LaunchContract, cpu: crate::device::cpu::CpuKernel) -> KernelFn<P> {
        KernelFn { name: cpu.name, contract, cpu, _params: core::marker::PhantomData }
    }

    /// The kernel's name: its PTX entry.
    ///
    /// # Example
    /// ```
    /// # extern crate std;
    /// #[cute_rs_tensor::kernel(block(64), shared_mem(256))]
    /// pub fn noop() {}
    /// # fn main() {
    /// assert_eq!(noop.name(), "noop");
    /// assert_eq!(noop.contract().shared_mem_bytes, Some(256));
    /// assert!(noop.cpu().params.is_empty());
    /// # }
    /// ```
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// What the kernel requires of its launch (see [`name`](Self::name)'s example).
    pub const fn contract(&self) -> LaunchContract {
        self.contract
    }

    /// The kernel compiled for the host, which the CPU backend runs (see [`name`](Self::name)'s
    /// example).
    pub const fn cpu(&self) -> &crate::device::cpu::CpuKernel {
        &self.cpu
    }
}

/// The expansion of [`#[kernel]`](macro@crate::kernel); not for direct use (the attribute checks the
/// function first).
///
/// On `nvptx64`, an unmangled `unsafe extern "ptx-kernel" fn` (an entry of the PTX module, named as
/// written) and, with launch bounds `[max, min]`, a marker symbol
/// `__cute_launch_bounds_<name>__<max>_<min>` that the PTX linker of `cute-rs-build` turns into the
/// entry's `.maxntid`/`.minnctapersm` (and drops); for each `TmaDescriptorParam` parameter `i`, a
/// marker `__cute_grid_constant_<name>__<i>` by which the linker aligns the parameter to 64 bytes
/// (the body reads it in place). On other targets, a [`KernelFn`] constant of the
/// kernel's name, holding the body as a plain `unsafe fn`, and its entry in the CPU backend's
/// registry ([`KERNELS`](crate::device::cpu::KERNELS)).
#[doc(hidden)]
#[macro_export]
#[cfg_attr(target_arch = "nvptx64", allow_internal_unstable(abi_ptx, asm_experimental_arch))]
macro_rules! __kernel {
    (
        bounds: [$($max:literal $(, $min:literal)?)?],
        grid_constants: [$($gname:ident $grid:literal),*],
        block: [$($block:expr),*],
        shared_mem: [$($shared:expr)?],
        host_params: [$($hty:ty),*],
        cfg: [$($cfg:tt)*],
        host_body: $host_body:block,
        $(#[$attr:meta])*
        $vis:vis fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) $body:block
    ) => {
        // The body is an `unsafe` block as well as an `unsafe fn`'s body: device crates of the
        // 2024 edition (where an `unsafe fn`'s body is no longer an unsafe context) read the same.
        $(#[$attr])*
        #[cfg(target_arch = "nvptx64")]
        #[unsafe(no_mangle)]
        // A `LayoutTensor` parameter holds zero-sized markers (`Full` bounds, a `Static` layout),
        // which the FFI lint calls not FFI-safe; the entry's parameter is the struct's bytes, laid
        // out as the host's `#[repr(C)]` twin writes them.
        #[allow(unused_unsafe, improper_ctypes_definitions)]
        $vis unsafe extern "ptx-kernel" fn $name( $($arg : $ty),* ) {
            unsafe {
                // A tensor map parameter is read in place: its name is its parameter-space
                // address (`cvta.param` of the entry's parameter, which the linker aligns to 64
                // bytes), never a copy in local memory.
                $(
                    let _ = $gname;
                    let $gname: &$crate::device::tma::TmaDescriptorParam = {
                        let at: u64;
                        ::core::arch::asm!(
                            concat!("mov.b64 {at}, ", stringify!($name), "_param_", stringify!($grid), ";\n\tcvta.param.u64 {at}, {at};"),
                            at = out(reg64) at,
                            options(pure, nomem, nostack),
                        );
                        &*(at as *const $crate::device::tma::TmaDescriptorParam)
                    };
                )*
                $body
            }
        }

        $crate::__kernel!(@bounds $name [$($cfg)*] $($max $(, $min)?)?);
        $crate::__kernel!(@grid_constants $name [$($cfg)*] [$($grid)*]);

        $(#[$attr])*
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(non_upper_case_globals)]
        $vis const $name: $crate::KernelFn<($($hty,)*)> = {
            #[allow(dead_code, unused_unsafe, clippy::too_many_arguments)]
            unsafe fn $name( $($arg : $ty),* ) { unsafe { $host_body } }

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

            $crate::KernelFn::__new(
                $crate::LaunchContract {
                    block: $crate::__kernel!(@block $($block),*),
                    shared_mem_bytes: $crate::__kernel!(@option $($shared)?),
                },
                $crate::device::cpu::CpuKernel {
                    name: stringify!($name),
                    params: &[$(::core::mem::size_of::<$ty>()),*],
                    entry,
                },
            )
        };

        $($cfg)*
        #[cfg(not(target_arch = "nvptx64"))]
        const _: () = {
            #[$crate::device::cpu::linkme::distributed_slice($crate::device::cpu::KERNELS)]
            #[linkme(crate = $crate::device::cpu::linkme)]
            static REGISTERED: $crate::device::cpu::CpuKernel = *$name.cpu();
        };
    };
    (@bounds $name:ident [$($cfg:tt)*]) => {};
    // A marker whose name carries the bounds, read from the IR by the linker.
    (@bounds $name:ident [$($cfg:tt)*] $max:literal $(, $min:literal)?) => {
        $($cfg)*
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[unsafe(export_name = concat!(
                "__cute_launch_bounds_", stringify!($name), "__", stringify!($max), "_" $(, stringify!($min))?
            ))]
            static LAUNCH_BOUNDS: u8 = 0;
        };
    };
    (@grid_constants $name:ident $cfg:tt [$($index:literal)*]) => {
        $($crate::__kernel!(@grid_constant $name $cfg $index);)*
    };
    // A marker naming a tensor-map parameter the linker aligns to 64 bytes.
    (@grid_constant $name:ident [$($cfg:tt)*] $index:literal) => {
        $($cfg)*
        #[cfg(target_arch = "nvptx64")]
        const _: () = {
            #[unsafe(export_name = concat!("__cute_grid_constant_", stringify!($name), "__", stringify!($index)))]
            static GRID_CONSTANT: u8 = 0;
        };
    };
    (@block) => { ::core::option::Option::None };
    (@block $x:expr) => { ::core::option::Option::Some((($x) as u32, 1, 1)) };
    (@block $x:expr, $y:expr) => { ::core::option::Option::Some((($x) as u32, ($y) as u32, 1)) };
    (@block $x:expr, $y:expr, $z:expr) => { ::core::option::Option::Some((($x) as u32, ($y) as u32, ($z) as u32)) };
    (@option) => { ::core::option::Option::None };
    (@option $x:expr) => { ::core::option::Option::Some(($x) as u32) };
}
