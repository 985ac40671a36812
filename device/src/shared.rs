//! Shared memory: typed, aligned static arrays ([`shared_array!`](crate::shared_array)), several per
//! kernel, and the block's dynamic shared memory ([`dynamic_shared!`](crate::dynamic_shared)), sized
//! at launch.
//!
//! Both macros declare a PTX `.shared` variable with module-level assembly (Rust has no shared
//! address space for `static`s) and return a handle holding the variable's *generic* address
//! (`cvta.shared.u64`), through which the kernel reads and writes with ordinary pointer accesses.
//! [`SharedArray::shared_addr`] / [`generic_to_shared`] give the 32-bit shared-window address that
//! `cp.async`, `ldmatrix` and `mbarrier` instructions take.
//!
//! ```no_run
//! use cute_rs_device::{ids::thread_idx_x, sync::sync_threads};
//! use cute_rs_device::shared_array;
//! # unsafe fn kernel(src: *const f32, dst: *mut f32) {
//! // A block of 256 threads reverses 256 floats through shared memory.
//! let tile = shared_array!(REVERSE_TILE: [f32; 256], align 16);
//! let t = thread_idx_x() as usize;
//! tile.write(t, *src.add(t));
//! sync_threads();
//! *dst.add(t) = tile.read(255 - t);
//! # }
//! ```
//!
//! The macros expand inline PTX in the kernel's crate, which needs no feature of its own for it:
//! the macros carry the permission (`allow_internal_unstable`).
//!
//! On the host (the CPU backend, [`cpu`]) each block gets its own shared memory,
//! poisoned (`0xDB` bytes) before first use so that reads of unwritten memory show; shared-state
//! addresses are offsets into it.

#[cfg(not(target_arch = "nvptx64"))]
use super::cpu;

/// The shared memory one block may take on Hopper (sm_90) once its launch opts in (227 KiB, the
/// attribute `MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`): static arrays and dynamic shared memory
/// together.
///
/// ```
/// assert_eq!(cute_rs_device::shared::SM90_SHARED_BYTES_PER_BLOCK, 227 * 1024);
/// ```
pub const SM90_SHARED_BYTES_PER_BLOCK: u32 = 227 * 1024;

/// A block's static shared array of `N` elements of `T`, made by [`shared_array!`](crate::shared_array).
///
/// A `Copy` handle (the array's generic address): every thread of the block that evaluates the same
/// `shared_array!` gets the same array. Its contents are uninitialized at kernel start.
///
/// ```no_run
/// use cute_rs_device::shared_array;
/// let counts = shared_array!(BIN_COUNTS: [u32; 64]);
/// assert_eq!(counts.len(), 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedArray<T, const N: usize> {
    ptr: *mut T,
}

impl<T: Copy, const N: usize> SharedArray<T, N> {
    /// Number of elements, `N`.
    ///
    /// ```
    /// # use cute_rs_device::shared::SharedArray;
    /// assert_eq!(SharedArray::<f32, 1024>::LEN, 1024);
    /// ```
    pub const LEN: usize = N;

    /// The handle of the array at generic address `ptr`. Used by [`shared_array!`](crate::shared_array).
    ///
    /// # Safety
    /// `ptr` is the generic address of a shared-memory variable of at least `N * size_of::<T>()`
    /// bytes aligned for `T`.
    ///
    /// ```no_run
    /// # use cute_rs_device::shared::SharedArray;
    /// # let p: *mut u32 = core::ptr::null_mut();
    /// // `p`: the generic address of a 16-word shared variable.
    /// let a = unsafe { SharedArray::<u32, 16>::from_raw(p) };
    /// # let _ = a;
    /// ```
    #[inline(always)]
    pub const unsafe fn from_raw(ptr: *mut T) -> Self {
        SharedArray { ptr }
    }

    /// Number of elements, `N`.
    ///
    /// ```no_run
    /// let a = cute_rs_device::shared_array!(LEN_DEMO: [u8; 48]);
    /// assert_eq!(a.len(), 48);
    /// ```
    #[inline(always)]
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        N
    }

    /// The generic address of element 0.
    ///
    /// ```no_run
    /// let a = cute_rs_device::shared_array!(PTR_DEMO: [f32; 32]);
    /// let p: *const f32 = a.as_ptr();
    /// # let _ = p;
    /// ```
    #[inline(always)]
    pub const fn as_ptr(self) -> *const T {
        self.ptr
    }

    /// The generic address of element 0, for writing.
    ///
    /// ```no_run
    /// let a = cute_rs_device::shared_array!(MUT_PTR_DEMO: [f32; 32]);
    /// unsafe { a.as_mut_ptr().add(3).write(1.0) };
    /// ```
    #[inline(always)]
    pub const fn as_mut_ptr(self) -> *mut T {
        self.ptr
    }

    /// The array's 32-bit address in the shared state space (`cvta.to.shared`), as `cp.async`,
    /// `ldmatrix`, `mbarrier` and TMA instructions take it.
    ///
    /// ```no_run
    /// let a = cute_rs_device::shared_array!(ADDR_DEMO: [u64; 8], align 128);
    /// assert_eq!(a.shared_addr() % 128, 0);
    /// ```
    #[inline(always)]
    pub fn shared_addr(self) -> u32 {
        generic_to_shared(self.ptr)
    }

    /// Element `i`.
    ///
    /// # Safety
    /// `i < N`; the element was written (shared memory starts uninitialized) and no other thread
    /// writes it concurrently (order writers and readers with a barrier).
    ///
    /// ```no_run
    /// let a = cute_rs_device::shared_array!(READ_DEMO: [i32; 4]);
    /// unsafe { a.write(2, -5) };
    /// assert_eq!(unsafe { a.read(2) }, -5);
    /// ```
    #[inline(always)]
    pub unsafe fn read(self, i: usize) -> T {
        self.ptr.add(i).read()
    }

    /// Writes element `i`.
    ///
    /// # Safety
    /// `i < N`; no other thread accesses the element concurrently.
    ///
    /// ```no_run
    /// let a = cute_rs_device::shared_array!(WRITE_DEMO: [f64; 4], align 16);
    /// unsafe { a.write(0, 2.5) };
    /// ```
    #[inline(always)]
    pub unsafe fn write(self, i: usize, value: T) {
        self.ptr.add(i).write(value)
    }
}

/// The block's dynamic shared memory seen as `len()` elements of `T`, made by
/// [`dynamic_shared!`](crate::dynamic_shared). Its size is the launch's dynamic shared memory
/// bytes (`%dynamic_smem_size`) divided by `size_of::<T>()`.
///
/// Every `dynamic_shared!` of a kernel names the *same* bytes (the block has one dynamic shared
/// region): carve several arrays out of it by offsets. Contents are uninitialized at kernel start.
///
/// ```no_run
/// let buf = cute_rs_device::dynamic_shared!(DYN_DEMO: f32, align 16);
/// let n = buf.len(); // launch bytes / 4
/// # let _ = n;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicShared<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Copy> DynamicShared<T> {
    /// The handle of `len` elements at generic address `ptr`. Used by
    /// [`dynamic_shared!`](crate::dynamic_shared).
    ///
    /// # Safety
    /// `ptr` is the generic address of at least `len * size_of::<T>()` bytes of shared memory
    /// aligned for `T`.
    ///
    /// ```no_run
    /// # use cute_rs_device::shared::DynamicShared;
    /// # let p: *mut u32 = core::ptr::null_mut();
    /// let d = unsafe { DynamicShared::from_raw(p, 100) };
    /// # let _ = d;
    /// ```
    #[inline(always)]
    pub const unsafe fn from_raw(ptr: *mut T, len: usize) -> Self {
        DynamicShared { ptr, len }
    }

    /// Number of whole elements of `T` in the launch's dynamic shared memory.
    ///
    /// ```no_run
    /// let d = cute_rs_device::dynamic_shared!(DYN_LEN_DEMO: u64);
    /// # let _ = d.len();
    /// ```
    #[inline(always)]
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(self) -> usize {
        self.len
    }

    /// The generic address of element 0.
    ///
    /// ```no_run
    /// let d = cute_rs_device::dynamic_shared!(DYN_PTR_DEMO: u32);
    /// let p: *const u32 = d.as_ptr();
    /// # let _ = p;
    /// ```
    #[inline(always)]
    pub const fn as_ptr(self) -> *const T {
        self.ptr
    }

    /// The generic address of element 0, for writing.
    ///
    /// ```no_run
    /// let d = cute_rs_device::dynamic_shared!(DYN_MUT_DEMO: u32);
    /// let p: *mut u32 = d.as_mut_ptr();
    /// # let _ = p;
    /// ```
    #[inline(always)]
    pub const fn as_mut_ptr(self) -> *mut T {
        self.ptr
    }

    /// The 32-bit shared-state-space address of element 0 (see [`SharedArray::shared_addr`]).
    ///
    /// ```no_run
    /// let d = cute_rs_device::dynamic_shared!(DYN_ADDR_DEMO: u8, align 1024);
    /// assert_eq!(d.shared_addr() % 1024, 0);
    /// ```
    #[inline(always)]
    pub fn shared_addr(self) -> u32 {
        generic_to_shared(self.ptr)
    }

    /// Element `i`.
    ///
    /// # Safety
    /// `i < len()`; the element was written and is not written concurrently.
    ///
    /// ```no_run
    /// let d = cute_rs_device::dynamic_shared!(DYN_READ_DEMO: f32);
    /// unsafe { d.write(0, 1.0) };
    /// let x = unsafe { d.read(0) };
    /// # let _ = x;
    /// ```
    #[inline(always)]
    pub unsafe fn read(self, i: usize) -> T {
        self.ptr.add(i).read()
    }

    /// Writes element `i`.
    ///
    /// # Safety
    /// `i < len()`; no other thread accesses the element concurrently.
    ///
    /// ```no_run
    /// let d = cute_rs_device::dynamic_shared!(DYN_WRITE_DEMO: f32);
    /// unsafe { d.write(0, 1.0) };
    /// ```
    #[inline(always)]
    pub unsafe fn write(self, i: usize, value: T) {
        self.ptr.add(i).write(value)
    }
}

/// The 32-bit shared-state-space address of a generic pointer into shared memory
/// (`cvta.to.shared.u64` + `cvt.u32.u64`; CUDA's `__cvta_generic_to_shared`).
///
/// This is the form of address that `cp.async`, `mbarrier`, TMA, `ldmatrix`, `stmatrix` and the
/// wgmma matrix descriptors take.
///
/// Precondition: `ptr` points into the block's shared memory (else the result is meaningless,
/// though computing it is harmless). On other targets than `nvptx64` the result is the low 32 bits
/// of the address: enough for alignment arithmetic and for the host models of mbarrier, nothing else.
///
/// ```
/// use cute_rs_device::shared::generic_to_shared;
/// let x = 0u64;
/// assert_eq!(generic_to_shared(&x) % 8, 0); // an 8-byte-aligned object has an 8-byte-aligned address
/// ```
#[inline(always)]
pub fn generic_to_shared<T>(ptr: *const T) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let addr: u32;
        // SAFETY: an address conversion; it reads no memory.
        unsafe {
            core::arch::asm!(
                "{{ .reg .b64 %cute_s; cvta.to.shared.u64 %cute_s, {p}; cvt.u32.u64 {a}, %cute_s; }}",
                p = in(reg64) ptr,
                a = out(reg32) addr,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        addr
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu_shared_offset(ptr as usize).unwrap_or(ptr as usize as u32)
    }
}

/// On the CPU backend, the offset of `addr` in the running block's shared memory (its shared
/// address), if it lies there.
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_shared_offset(addr: usize) -> Option<u32> {
    if !cpu::in_kernel() {
        return None;
    }
    let (base, bytes) = cpu::shared_window();
    let off = addr.wrapping_sub(base as usize);
    (off < bytes).then_some(off as u32)
}

/// The generic pointer of a 32-bit shared-state-space address (`cvt.u64.u32` + `cvta.shared.u64`;
/// CUDA's `__cvta_shared_to_generic`).
///
/// Precondition: `addr` is a shared-memory address of the block, e.g. from [`generic_to_shared`].
///
/// ```no_run
/// use cute_rs_device::shared::{generic_to_shared, shared_to_generic};
/// let a = cute_rs_device::shared_array!(CVTA_BACK_DEMO: [u32; 8]);
/// let p: *mut u32 = shared_to_generic(generic_to_shared(a.as_ptr()));
/// assert_eq!(p, a.as_mut_ptr());
/// ```
#[inline(always)]
pub fn shared_to_generic<T>(addr: u32) -> *mut T {
    #[cfg(target_arch = "nvptx64")]
    {
        let ptr: *mut T;
        // SAFETY: an address conversion; it reads no memory.
        unsafe {
            core::arch::asm!(
                "{{ .reg .b64 %cute_s; cvt.u64.u32 %cute_s, {a}; cvta.shared.u64 {p}, %cute_s; }}",
                a = in(reg32) addr,
                p = out(reg64) ptr,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        ptr
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let (base, bytes) = cpu::shared_window();
        if addr as usize >= bytes {
            cpu::misuse("shared_to_generic", format_shared_oob(addr, bytes));
        }
        // SAFETY: within the block's shared memory.
        unsafe { base.add(addr as usize) as *mut T }
    }
}

/// The size in bytes of the launch's dynamic shared memory (`%dynamic_smem_size`).
///
/// ```no_run
/// let bytes = cute_rs_device::shared::dynamic_shared_bytes();
/// # let _ = bytes;
/// ```
#[inline(always)]
pub fn dynamic_shared_bytes() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        unsafe extern "C" {
            #[link_name = "llvm.nvvm.read.ptx.sreg.dynamic_smem_size"]
            fn read() -> u32;
        }
        // SAFETY: reading a special register has no preconditions.
        unsafe { read() }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    cpu::shared_dynamic().1
}

#[cfg(not(target_arch = "nvptx64"))]
fn format_shared_oob(addr: u32, bytes: usize) -> std::string::String {
    std::format!("shared address {addr:#x} is outside the block's {bytes} bytes of shared memory")
}

/// The host side of [`shared_array!`](crate::shared_array): the block's copy of the static array
/// `site` on the CPU backend. Not part of the API.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
#[inline(never)]
pub fn __cpu_shared_static<T>(site: &'static str, bytes: usize, align: usize) -> *mut T {
    cpu::shared_static(site, bytes, align) as *mut T
}

/// The host side of [`dynamic_shared!`](crate::dynamic_shared): the block's dynamic shared memory
/// on the CPU backend (1024-byte aligned). Not part of the API.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
#[inline(never)]
pub fn __cpu_shared_dynamic<T>() -> *mut T {
    cpu::shared_dynamic().0 as *mut T
}

/// The alignment of a shared variable of `T`: `align` if given (a power of two, at least
/// `align_of::<T>()`), else `align_of::<T>()`. Evaluated at compile time by the macros: a bad
/// alignment does not compile.
#[doc(hidden)]
pub const fn __shared_align<T>(align: &[usize]) -> usize {
    let min = core::mem::align_of::<T>();
    match align {
        [] => min,
        [a] => {
            assert!(a.is_power_of_two(), "shared memory alignment must be a power of two");
            assert!(*a >= min, "shared memory alignment must be at least the element type's alignment");
            *a
        }
        _ => panic!("at most one alignment"),
    }
}

/// The size in bytes of `N` elements of `T`, checked to fit in a block's static shared memory
/// (48 KiB). Evaluated at compile time by [`shared_array!`](crate::shared_array).
#[doc(hidden)]
pub const fn __shared_bytes<T, const N: usize>() -> usize {
    let bytes = core::mem::size_of::<[T; N]>();
    assert!(bytes > 0, "a shared array must not be empty");
    assert!(bytes <= 48 * 1024, "static shared memory is limited to 48 KiB per block");
    bytes
}

/// `__shared__ T NAME[N]`: a block's static shared array, typed and aligned; evaluates to its
/// [`SharedArray<T, N>`](crate::shared::SharedArray) handle.
///
/// `shared_array!(NAME: [T; N])` aligns to `align_of::<T>()`; `shared_array!(NAME: [T; N], align A)`
/// to `A` bytes (a power of two, at least `align_of::<T>()`; e.g. 16 for 128-bit accesses, 128 for
/// TMA, 1024 for 128-byte swizzled TMA tiles). It expands to the PTX declaration
/// `.shared .align A .b8 __cute_smem_NAME[N * size_of::<T>()];` (module-level assembly) and to a
/// `cvta.shared.u64` of its address.
///
/// Preconditions, checked when the PTX is assembled (`tools/check-ptx.sh`) or loaded:
/// - `NAME` is unique among the shared variables of the PTX module (all kernels of the crate); the
///   same invocation reached from several kernels (e.g. in an inlined helper) is one declaration,
///   which each kernel allocates separately;
/// - a block's static shared memory totals at most 48 KiB (a single array larger than that does not
///   compile);
/// - `T` and `N` are concrete (not generic parameters of the enclosing function: the declaration is
///   an item, made once).
///
/// The calling crate enables no feature: the macro is allowed the unstable inline assembly it
/// emits on `nvptx64`. On other targets each block of a CPU-backend launch gets its own copy.
///
/// ```no_run
/// use cute_rs_device::shared_array;
/// let a = shared_array!(TILE_A: [f32; 1024], align 16); // 4 KiB, 16-byte aligned
/// let b = shared_array!(TILE_B: [u16; 100]);            // 200 B, 2-byte aligned
/// assert_eq!(a.len() + b.len(), 1124);
/// ```
#[macro_export]
#[cfg_attr(target_arch = "nvptx64", allow_internal_unstable(asm_experimental_arch))]
macro_rules! shared_array {
    ($name:ident : [$t:ty; $n:expr] $(, align $align:expr)? $(,)?) => {{
        const __CUTE_ALIGN: usize = $crate::shared::__shared_align::<$t>(&[$($align)?]);
        const __CUTE_BYTES: usize = $crate::shared::__shared_bytes::<$t, { $n }>();
        #[cfg(target_arch = "nvptx64")]
        ::core::arch::global_asm!(
            concat!(".shared .align {align} .b8 __cute_smem_", stringify!($name), "[{bytes}];"),
            align = const __CUTE_ALIGN,
            bytes = const __CUTE_BYTES,
        );
        #[cfg(target_arch = "nvptx64")]
        let __cute_ptr: *mut $t = {
            let p: *mut $t;
            // SAFETY: takes the address of the variable declared above; reads no memory.
            unsafe {
                ::core::arch::asm!(
                    concat!("cvta.shared.u64 {0}, __cute_smem_", stringify!($name), ";"),
                    out(reg64) p,
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            p
        };
        #[cfg(not(target_arch = "nvptx64"))]
        let __cute_ptr: *mut $t =
            $crate::shared::__cpu_shared_static(stringify!($name), __CUTE_BYTES, __CUTE_ALIGN);
        // SAFETY: the variable holds `N` elements of `T` and is aligned for `T`.
        unsafe { $crate::shared::SharedArray::<$t, { $n }>::from_raw(__cute_ptr) }
    }};
}

/// `extern __shared__ T NAME[]`: the block's dynamic shared memory (sized by the launch's
/// `shared_mem_bytes`) as elements of `T`; evaluates to its
/// [`DynamicShared<T>`](crate::shared::DynamicShared) handle, whose `len()` is the launch's
/// bytes divided by `size_of::<T>()`.
///
/// `dynamic_shared!(NAME: T)` aligns to `align_of::<T>()`; `dynamic_shared!(NAME: T, align A)` to
/// `A` (a power of two, at least `align_of::<T>()`). Expands to
/// `.extern .shared .align A .b8 __cute_smem_NAME[];` and a `cvta.shared.u64` of its address.
///
/// Every dynamic shared variable of a kernel starts at the same address (after the kernel's static
/// shared arrays): several `dynamic_shared!` in one kernel alias each other.
///
/// Preconditions: `NAME` is unique among the shared variables of the PTX module; `T` is concrete
/// (not a generic parameter of the enclosing function); the launch gives the bytes the kernel uses (more than 48 KiB needs the kernel's dynamic shared memory limit
/// raised on the host). The calling crate needs no
/// feature for its inline PTX. On the CPU backend it is the block's dynamic shared memory
/// (1024-byte aligned).
///
/// ```no_run
/// use cute_rs_device::dynamic_shared;
/// let smem = dynamic_shared!(STAGE_BUFFER: u8, align 128);
/// let bytes = smem.len();
/// # let _ = bytes;
/// ```
#[macro_export]
#[cfg_attr(target_arch = "nvptx64", allow_internal_unstable(asm_experimental_arch))]
macro_rules! dynamic_shared {
    ($name:ident : $t:ty $(, align $align:expr)? $(,)?) => {{
        const __CUTE_ALIGN: usize = $crate::shared::__shared_align::<$t>(&[$($align)?]);
        #[cfg(target_arch = "nvptx64")]
        ::core::arch::global_asm!(
            concat!(".extern .shared .align {align} .b8 __cute_smem_", stringify!($name), "[];"),
            align = const __CUTE_ALIGN,
        );
        #[cfg(target_arch = "nvptx64")]
        let __cute_ptr: *mut $t = {
            let p: *mut $t;
            // SAFETY: takes the address of the variable declared above; reads no memory.
            unsafe {
                ::core::arch::asm!(
                    concat!("cvta.shared.u64 {0}, __cute_smem_", stringify!($name), ";"),
                    out(reg64) p,
                    options(pure, nomem, nostack, preserves_flags)
                );
            }
            p
        };
        #[cfg(not(target_arch = "nvptx64"))]
        let __cute_ptr: *mut $t = $crate::shared::__cpu_shared_dynamic();
        let __cute_len = $crate::shared::dynamic_shared_bytes() as usize
            / ::core::mem::size_of::<$t>();
        // SAFETY: the launch's dynamic shared memory holds `len` elements, aligned for `T`.
        unsafe { $crate::shared::DynamicShared::<$t>::from_raw(__cute_ptr, __cute_len) }
    }};
}
