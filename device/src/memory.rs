//! Global-memory loads and stores of 8, 16, 32, 64 and 128 bits with explicit caching: PTX cache operators
//! (`.ca .cg .cs .lu .cv` for loads, `.wb .cg .cs .wt` for stores), L1 eviction priorities
//! (`.L1::evict_normal/unchanged/first/last`, `.L1::no_allocate`), the non-coherent read-only path
//! (`ld.global.nc`), L2 eviction priorities (an [`L2Policy`] made by `createpolicy`, passed with
//! `.L2::cache_hint`), and volatile accesses (`ld.volatile` / `st.volatile`).
//!
//! The options are types, so that a combination PTX rejects does not compile:
//! - a load takes one [`LoadCache`]: a cache operator ([`Ca`], [`Cg`], [`Cs`], [`Lu`], [`Cv`]) *or*
//!   an L1 eviction priority ([`EvictNormal`], [`EvictUnchanged`], [`EvictFirst`], [`EvictLast`],
//!   [`NoAllocate`]): PTX does not combine the two;
//! - a non-coherent load takes a [`NcLoadCache`]: [`Ca`], [`Cg`], [`Cs`] or an L1 eviction priority
//!   (`.lu` and `.cv` do not exist on `ld.global.nc`);
//! - a store takes a [`StoreCache`]: [`Wb`], [`Cg`], [`Cs`], [`Wt`] or an L1 eviction priority;
//! - the `*_with_policy` forms add an L2 eviction priority to any of them.
//!
//! The value type is any [`GlobalValue`]: 8-bit `u8`/`i8`, 16-bit `u16`/`i16`/`f16`/`bf16`,
//! 32-bit `u32`/`i32`/`f32`, 64-bit `u64`/`i64`/`f64` and
//! `[u32; 2]`/`[i32; 2]`/`[f32; 2]`, 128-bit `[u32; 4]`/`[i32; 4]`/`[f32; 4]` and
//! `[u64; 2]`/`[i64; 2]`/`[f64; 2]`. Each access is one instruction (`.b8`, `.b16`, `.b32`, `.b64`,
//! `.v4.b32`).
//!
//! Common preconditions (safety) of every function here:
//! - the pointer is a generic address of **global** memory (device allocations, not shared or local
//!   memory) valid for the access;
//! - it is aligned to the access size, `size_of::<T>()`: 4, 8 or **16 bytes for 128-bit accesses**
//!   (stricter than Rust's alignment of `[f32; 4]`; a misaligned access faults the kernel);
//! - no other thread writes the bytes during a load, or accesses them during a store (these are
//!   weak accesses: communicate through [`atomics`](super::atomics)), except for the volatile forms,
//!   whose semantics are those of `ld.volatile`/`st.volatile`.
//!
//! L2 eviction priorities on sm_90 are cache-policy operands: `ld`/`st` accept the qualifiers
//! `.L2::evict_first/last/normal` directly only for 256-bit accesses (sm_100+), so the policy comes
//! from `createpolicy.fractional.L2::<priority>.b64 policy, 1.0` ([`L2Policy`]; create it once and
//! reuse it, it is a 64-bit register).
//!
//! On the host (the CPU backend, [`cpu`](crate::cpu)) they are plain accesses with the alignment
//! checked (a misaligned access fails the launch naming the address); cache operators and L2
//! policies are hints with nothing to act on; volatile loads let other threads run (polling).
//!
//! ```no_run
//! use cute_rs_device::memory::{load, load_nc_with_policy, store, Cs, EvictFirst, L2Policy};
//! # unsafe fn kernel(src: *const [f32; 4], dst: *mut [f32; 4], i: usize) {
//! // Stream 16 bytes per thread: read once (evict first from L1), write without polluting caches.
//! let v = load(src.add(i), EvictFirst);
//! store(dst.add(i), v, Cs);
//! // Read-only data that should stay in L2 for the next kernel:
//! let keep = load_nc_with_policy(src.add(i), EvictFirst, L2Policy::evict_last());
//! # let _ = keep;
//! # }
//! ```

/// A global access on the CPU backend: `size`-byte aligned (a misaligned access faults on the GPU
/// and fails the launch here, naming the address), then a plain access.
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_check_aligned(p: usize, size: usize, what: &'static str) {
    if p % size != 0 {
        if super::cpu::in_kernel() {
            super::cpu::misuse(what, std::format!("address {p:#x} is not aligned to {size} bytes"));
        }
        panic!("{what}: address {p:#x} is not aligned to {size} bytes");
    }
}

mod sealed {
    pub trait Sealed {}
    pub trait Value {}
    macro_rules! value {
        ($($t:ty),*) => {$(impl Value for $t {})*};
    }
    value!(u8, i8, u16, i16, half::f16, half::bf16);
    value!(u32, i32, f32, u64, i64, f64, [u32; 2], [i32; 2], [f32; 2]);
    value!([u32; 4], [i32; 4], [f32; 4], [u64; 2], [i64; 2], [f64; 2]);
}

// ---------------------------------------------------------------------------------------------
// Cache options (marker types)
// ---------------------------------------------------------------------------------------------

macro_rules! marker {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
    };
}

marker! {
    /// `.ca` (load): cache at all levels, L1 and L2; the default of `ld`.
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, Ca};
    /// # unsafe fn f(p: *const u32) -> u32 {
    /// load(p, Ca)
    /// # }
    /// ```
    Ca
}
marker! {
    /// `.cg` (load and store): cache in L2, not L1 ("cache global").
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, store, Cg};
    /// # unsafe fn f(p: *mut u64) {
    /// store(p, load(p, Cg) + 1, Cg);
    /// # }
    /// ```
    Cg
}
marker! {
    /// `.cs` (load and store): cache streaming, likely accessed once (evict-first in L1 and L2).
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{store, Cs};
    /// # unsafe fn f(p: *mut [f32; 4]) {
    /// store(p, [0.0; 4], Cs);
    /// # }
    /// ```
    Cs
}
marker! {
    /// `.lu` (load): last use; the line will not be read again (avoids needless write-backs of
    /// spilled data). On global addresses it behaves as `.cs`.
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, Lu};
    /// # unsafe fn f(p: *const f64) -> f64 {
    /// load(p, Lu)
    /// # }
    /// ```
    Lu
}
marker! {
    /// `.cv` (load): do not cache; fetch again (the line in L2 is considered stale). For memory a
    /// host or peer may change during the kernel.
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, Cv};
    /// # unsafe fn f(p: *const u32) -> u32 {
    /// load(p, Cv)
    /// # }
    /// ```
    Cv
}
marker! {
    /// `.wb` (store): write back at all coherent levels; the default of `st`.
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{store, Wb};
    /// # unsafe fn f(p: *mut i32) {
    /// store(p, -1, Wb);
    /// # }
    /// ```
    Wb
}
marker! {
    /// `.wt` (store): write through to system memory (for memory the host reads).
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{store, Wt};
    /// # unsafe fn f(p: *mut u32) {
    /// store(p, 7, Wt);
    /// # }
    /// ```
    Wt
}
marker! {
    /// `.L1::evict_normal`: L1 eviction priority normal (loads and stores).
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, EvictNormal};
    /// # unsafe fn f(p: *const u32) -> u32 {
    /// load(p, EvictNormal)
    /// # }
    /// ```
    EvictNormal
}
marker! {
    /// `.L1::evict_unchanged`: do not change the line's L1 eviction priority.
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, EvictUnchanged};
    /// # unsafe fn f(p: *const u32) -> u32 {
    /// load(p, EvictUnchanged)
    /// # }
    /// ```
    EvictUnchanged
}
marker! {
    /// `.L1::evict_first`: the line is evicted from L1 first (data used once).
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load, EvictFirst};
    /// # unsafe fn f(p: *const [u32; 4]) -> [u32; 4] {
    /// load(p, EvictFirst)
    /// # }
    /// ```
    EvictFirst
}
marker! {
    /// `.L1::evict_last`: the line is kept in L1 longest (data reused soon).
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{load_nc, EvictLast};
    /// # unsafe fn f(p: *const f32) -> f32 {
    /// load_nc(p, EvictLast)
    /// # }
    /// ```
    EvictLast
}
marker! {
    /// `.L1::no_allocate`: do not allocate the line in L1.
    ///
    /// ```no_run
    /// # use cute_rs_device::memory::{store, NoAllocate};
    /// # unsafe fn f(p: *mut f32) {
    /// store(p, 1.0, NoAllocate);
    /// # }
    /// ```
    NoAllocate
}

// ---------------------------------------------------------------------------------------------
// Instruction generation
// ---------------------------------------------------------------------------------------------

/// One `ld`/`st` instruction on a global address: converts the generic pointer with
/// `cvta.to.global` (free in SASS) inside a scope, then accesses it.
#[cfg(target_arch = "nvptx64")]
macro_rules! global_ld {
    (@hint) => { "" };
    (@hint $pol:expr) => { ".L2::cache_hint" };
    (@hint_op) => { "" };
    (@hint_op $pol:expr) => { ", {h}" };
    // 32 and 64 bits, optionally with an L2 cache-policy operand.
    ($op:expr, $ty:literal, $reg:ident, $out:ty, $p:expr $(, $pol:expr)?) => {{
        let r: $out;
        core::arch::asm!(
            concat!(
                "{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; ", $op,
                global_ld!(@hint $($pol)?), ".", $ty, " {r}, [%cute_g]", global_ld!(@hint_op $($pol)?), "; }}"
            ),
            p = in(reg64) $p,
            r = out($reg) r,
            $(h = in(reg64) $pol,)?
            options(nostack, readonly, preserves_flags)
        );
        r
    }};
    (@v4 $op:expr, $p:expr $(, $pol:expr)?) => {{
        let (a, b, c, d): (u32, u32, u32, u32);
        core::arch::asm!(
            concat!(
                "{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; ", $op,
                global_ld!(@hint $($pol)?), ".v4.b32 {{{a}, {b}, {c}, {d}}}, [%cute_g]",
                global_ld!(@hint_op $($pol)?), "; }}"
            ),
            p = in(reg64) $p,
            a = out(reg32) a,
            b = out(reg32) b,
            c = out(reg32) c,
            d = out(reg32) d,
            $(h = in(reg64) $pol,)?
            options(nostack, readonly, preserves_flags)
        );
        [a, b, c, d]
    }};
}

#[cfg(target_arch = "nvptx64")]
macro_rules! global_st {
    ($op:expr, $ty:literal, $reg:ident, $p:expr, $v:expr $(, $pol:expr)?) => {{
        core::arch::asm!(
            concat!(
                "{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; ", $op,
                global_ld!(@hint $($pol)?), ".", $ty, " [%cute_g], {v}", global_ld!(@hint_op $($pol)?), "; }}"
            ),
            p = in(reg64) $p,
            v = in($reg) $v,
            $(h = in(reg64) $pol,)?
            options(nostack, preserves_flags)
        );
    }};
    (@v4 $op:expr, $p:expr, $v:expr $(, $pol:expr)?) => {{
        let [a, b, c, d]: [u32; 4] = $v;
        core::arch::asm!(
            concat!(
                "{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; ", $op,
                global_ld!(@hint $($pol)?), ".v4.b32 [%cute_g], {{{a}, {b}, {c}, {d}}}",
                global_ld!(@hint_op $($pol)?), "; }}"
            ),
            p = in(reg64) $p,
            a = in(reg32) a,
            b = in(reg32) b,
            c = in(reg32) c,
            d = in(reg32) d,
            $(h = in(reg64) $pol,)?
            options(nostack, preserves_flags)
        );
    }};
}

/// The raw accesses of one load option, per width, with and without an L2 policy.
macro_rules! load_methods {
    ($op:expr) => {
        #[inline(always)]
        unsafe fn ld8(p: *const u8, policy: Option<u64>) -> u8 {
            // PTX loads a byte into a 16-bit register (zero-extended); its low byte is the value.
            #[cfg(target_arch = "nvptx64")]
            return match policy {
                None => global_ld!($op, "b8", reg16, u16, p),
                Some(h) => global_ld!($op, "b8", reg16, u16, p, h),
            } as u8;
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                p.read()
            }
        }
        #[inline(always)]
        unsafe fn ld16(p: *const u16, policy: Option<u64>) -> u16 {
            #[cfg(target_arch = "nvptx64")]
            return match policy {
                None => global_ld!($op, "b16", reg16, u16, p),
                Some(h) => global_ld!($op, "b16", reg16, u16, p, h),
            };
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&*p), "memory::load");
                p.read()
            }
        }
        #[inline(always)]
        unsafe fn ld32(p: *const u32, policy: Option<u64>) -> u32 {
            #[cfg(target_arch = "nvptx64")]
            return match policy {
                None => global_ld!($op, "b32", reg32, u32, p),
                Some(h) => global_ld!($op, "b32", reg32, u32, p, h),
            };
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&*p), "memory::load");
                p.read()
            }
        }
        #[inline(always)]
        unsafe fn ld64(p: *const u64, policy: Option<u64>) -> u64 {
            #[cfg(target_arch = "nvptx64")]
            return match policy {
                None => global_ld!($op, "b64", reg64, u64, p),
                Some(h) => global_ld!($op, "b64", reg64, u64, p, h),
            };
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&*p), "memory::load");
                p.read()
            }
        }
        #[inline(always)]
        unsafe fn ld128(p: *const [u32; 4], policy: Option<u64>) -> [u32; 4] {
            #[cfg(target_arch = "nvptx64")]
            return match policy {
                None => global_ld!(@v4 $op, p),
                Some(h) => global_ld!(@v4 $op, p, h),
            };
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&*p), "memory::load");
                p.read()
            }
        }
    };
}

macro_rules! store_methods {
    ($op:expr) => {
        #[inline(always)]
        unsafe fn st8(p: *mut u8, v: u8, policy: Option<u64>) {
            // PTX stores the low byte of a 16-bit register.
            #[cfg(target_arch = "nvptx64")]
            match policy {
                None => global_st!($op, "b8", reg16, p, v as u16),
                Some(h) => global_st!($op, "b8", reg16, p, v as u16, h),
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                p.write(v)
            }
        }
        #[inline(always)]
        unsafe fn st16(p: *mut u16, v: u16, policy: Option<u64>) {
            #[cfg(target_arch = "nvptx64")]
            match policy {
                None => global_st!($op, "b16", reg16, p, v),
                Some(h) => global_st!($op, "b16", reg16, p, v, h),
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&v), "memory::store");
                p.write(v)
            }
        }
        #[inline(always)]
        unsafe fn st32(p: *mut u32, v: u32, policy: Option<u64>) {
            #[cfg(target_arch = "nvptx64")]
            match policy {
                None => global_st!($op, "b32", reg32, p, v),
                Some(h) => global_st!($op, "b32", reg32, p, v, h),
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&v), "memory::store");
                p.write(v)
            }
        }
        #[inline(always)]
        unsafe fn st64(p: *mut u64, v: u64, policy: Option<u64>) {
            #[cfg(target_arch = "nvptx64")]
            match policy {
                None => global_st!($op, "b64", reg64, p, v),
                Some(h) => global_st!($op, "b64", reg64, p, v, h),
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&v), "memory::store");
                p.write(v)
            }
        }
        #[inline(always)]
        unsafe fn st128(p: *mut [u32; 4], v: [u32; 4], policy: Option<u64>) {
            #[cfg(target_arch = "nvptx64")]
            match policy {
                None => global_st!(@v4 $op, p, v),
                Some(h) => global_st!(@v4 $op, p, v, h),
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = policy;
                cpu_check_aligned(p as usize, core::mem::size_of_val(&v), "memory::store");
                p.write(v)
            }
        }
    };
}

/// How a load ([`load`], [`load_with_policy`]) uses L1: a cache operator ([`Ca`], [`Cg`], [`Cs`],
/// [`Lu`], [`Cv`]) or an L1 eviction priority ([`EvictNormal`], [`EvictUnchanged`],
/// [`EvictFirst`], [`EvictLast`], [`NoAllocate`]). Sealed.
///
/// ```
/// fn is_load_cache<C: cute_rs_device::memory::LoadCache>(_: C) {}
/// is_load_cache(cute_rs_device::memory::Lu);
/// ```
pub trait LoadCache: sealed::Sealed + Copy {
    #[doc(hidden)]
    unsafe fn ld8(p: *const u8, policy: Option<u64>) -> u8;
    #[doc(hidden)]
    unsafe fn ld16(p: *const u16, policy: Option<u64>) -> u16;
    #[doc(hidden)]
    unsafe fn ld32(p: *const u32, policy: Option<u64>) -> u32;
    #[doc(hidden)]
    unsafe fn ld64(p: *const u64, policy: Option<u64>) -> u64;
    #[doc(hidden)]
    unsafe fn ld128(p: *const [u32; 4], policy: Option<u64>) -> [u32; 4];
}

/// How a non-coherent load ([`load_nc`], [`load_nc_with_policy`]) uses L1: [`Ca`], [`Cg`],
/// [`Cs`] or an L1 eviction priority (`ld.global.nc` has no `.lu`/`.cv`). Sealed.
///
/// ```
/// fn is_nc_cache<C: cute_rs_device::memory::NcLoadCache>(_: C) {}
/// is_nc_cache(cute_rs_device::memory::EvictLast);
/// ```
pub trait NcLoadCache: sealed::Sealed + Copy {
    #[doc(hidden)]
    unsafe fn ld8(p: *const u8, policy: Option<u64>) -> u8;
    #[doc(hidden)]
    unsafe fn ld16(p: *const u16, policy: Option<u64>) -> u16;
    #[doc(hidden)]
    unsafe fn ld32(p: *const u32, policy: Option<u64>) -> u32;
    #[doc(hidden)]
    unsafe fn ld64(p: *const u64, policy: Option<u64>) -> u64;
    #[doc(hidden)]
    unsafe fn ld128(p: *const [u32; 4], policy: Option<u64>) -> [u32; 4];
}

/// How a store ([`store`], [`store_with_policy`]) uses the caches: [`Wb`], [`Cg`], [`Cs`],
/// [`Wt`] or an L1 eviction priority. Sealed.
///
/// ```
/// fn is_store_cache<C: cute_rs_device::memory::StoreCache>(_: C) {}
/// is_store_cache(cute_rs_device::memory::Wt);
/// ```
pub trait StoreCache: sealed::Sealed + Copy {
    #[doc(hidden)]
    unsafe fn st8(p: *mut u8, v: u8, policy: Option<u64>);
    #[doc(hidden)]
    unsafe fn st16(p: *mut u16, v: u16, policy: Option<u64>);
    #[doc(hidden)]
    unsafe fn st32(p: *mut u32, v: u32, policy: Option<u64>);
    #[doc(hidden)]
    unsafe fn st64(p: *mut u64, v: u64, policy: Option<u64>);
    #[doc(hidden)]
    unsafe fn st128(p: *mut [u32; 4], v: [u32; 4], policy: Option<u64>);
}

macro_rules! impl_load {
    ($($m:ident => $q:literal),* $(,)?) => {$(
        impl LoadCache for $m { load_methods!(concat!("ld.global", $q)); }
    )*};
}
macro_rules! impl_nc_load {
    ($($m:ident => $q:literal),* $(,)?) => {$(
        impl NcLoadCache for $m { load_methods!(concat!("ld.global.nc", $q)); }
    )*};
}
macro_rules! impl_store {
    ($($m:ident => $q:literal),* $(,)?) => {$(
        impl StoreCache for $m { store_methods!(concat!("st.global", $q)); }
    )*};
}

impl_load! {
    Ca => ".ca", Cg => ".cg", Cs => ".cs", Lu => ".lu", Cv => ".cv",
    EvictNormal => ".L1::evict_normal", EvictUnchanged => ".L1::evict_unchanged",
    EvictFirst => ".L1::evict_first", EvictLast => ".L1::evict_last", NoAllocate => ".L1::no_allocate",
}
impl_nc_load! {
    Ca => ".ca", Cg => ".cg", Cs => ".cs",
    EvictNormal => ".L1::evict_normal", EvictUnchanged => ".L1::evict_unchanged",
    EvictFirst => ".L1::evict_first", EvictLast => ".L1::evict_last", NoAllocate => ".L1::no_allocate",
}
impl_store! {
    Wb => ".wb", Cg => ".cg", Cs => ".cs", Wt => ".wt",
    EvictNormal => ".L1::evict_normal", EvictUnchanged => ".L1::evict_unchanged",
    EvictFirst => ".L1::evict_first", EvictLast => ".L1::evict_last", NoAllocate => ".L1::no_allocate",
}

/// Volatile accesses: one more "option" with its own instruction.
#[derive(Clone, Copy)]
struct Volatile;
impl sealed::Sealed for Volatile {}
impl LoadCache for Volatile {
    load_methods!("ld.volatile.global");
}
impl StoreCache for Volatile {
    store_methods!("st.volatile.global");
}

// ---------------------------------------------------------------------------------------------
// L2 policies
// ---------------------------------------------------------------------------------------------

/// An L2 cache eviction policy (`createpolicy.fractional.L2::<priority>.b64 policy, 1.0`): a 64-bit
/// value the `*_with_policy` accesses pass with `.L2::cache_hint`. Create it once per kernel (it
/// is cheap and the compiler keeps it in a register) and reuse it.
///
/// ```no_run
/// use cute_rs_device::memory::{load_with_policy, Ca, L2Policy};
/// # unsafe fn f(weights: *const [f32; 4]) -> [f32; 4] {
/// let keep = L2Policy::evict_last();
/// load_with_policy(weights, Ca, keep)
/// # }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L2Policy(u64);

macro_rules! l2_policy {
    ($(#[$doc:meta])* $name:ident => $q:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> L2Policy {
            #[cfg(target_arch = "nvptx64")]
            {
                let p: u64;
                // SAFETY: `createpolicy` only computes a value.
                unsafe {
                    core::arch::asm!(
                        concat!("createpolicy.fractional.L2::", $q, ".b64 {0}, 1.0;"),
                        out(reg64) p,
                        options(pure, nomem, nostack, preserves_flags)
                    );
                }
                L2Policy(p)
            }
            // On the CPU backend a policy is only a hint with nothing to act on.
            #[cfg(not(target_arch = "nvptx64"))]
            L2Policy(0)
        }
    };
}

impl L2Policy {
    l2_policy! {
        /// Lines accessed with this policy are evicted from L2 first (streamed data).
        ///
        /// ```no_run
        /// let p = cute_rs_device::memory::L2Policy::evict_first();
        /// # let _ = p;
        /// ```
        evict_first => "evict_first"
    }
    l2_policy! {
        /// Lines accessed with this policy are kept in L2 longest (data other blocks or the next
        /// kernel reuse).
        ///
        /// ```no_run
        /// let p = cute_rs_device::memory::L2Policy::evict_last();
        /// # let _ = p;
        /// ```
        evict_last => "evict_last"
    }
    l2_policy! {
        /// Normal L2 eviction priority (also demotes lines an earlier `evict_last` promoted).
        ///
        /// ```no_run
        /// let p = cute_rs_device::memory::L2Policy::evict_normal();
        /// # let _ = p;
        /// ```
        evict_normal => "evict_normal"
    }
    l2_policy! {
        /// Leaves the lines' L2 eviction priority unchanged.
        ///
        /// ```no_run
        /// let p = cute_rs_device::memory::L2Policy::evict_unchanged();
        /// # let _ = p;
        /// ```
        evict_unchanged => "evict_unchanged"
    }

    /// The 64-bit policy value, for instructions of other modules that take a `.L2::cache_hint`
    /// operand (`cp.async`, TMA).
    ///
    /// ```no_run
    /// let bits: u64 = cute_rs_device::memory::L2Policy::evict_last().bits();
    /// # let _ = bits;
    /// ```
    #[inline(always)]
    pub fn bits(self) -> u64 {
        self.0
    }
}

// ---------------------------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------------------------

/// The raw words of one access: `u8` (`.b8`), `u16` (`.b16`), `u32` (`.b32`), `u64` (`.b64`),
/// `[u32; 4]` (`.v4.b32`). Sealed.
///
/// ```
/// fn width<W: cute_rs_device::memory::AccessBits>() {}
/// width::<[u32; 4]>();
/// ```
pub trait AccessBits: sealed::Sealed + Copy {
    #[doc(hidden)]
    unsafe fn load<C: LoadCache>(p: *const Self, policy: Option<u64>) -> Self;
    #[doc(hidden)]
    unsafe fn load_nc<C: NcLoadCache>(p: *const Self, policy: Option<u64>) -> Self;
    #[doc(hidden)]
    unsafe fn store<C: StoreCache>(p: *mut Self, v: Self, policy: Option<u64>);
}

impl sealed::Sealed for u8 {}
impl AccessBits for u8 {
    #[inline(always)]
    unsafe fn load<C: LoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld8(p, policy)
    }
    #[inline(always)]
    unsafe fn load_nc<C: NcLoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld8(p, policy)
    }
    #[inline(always)]
    unsafe fn store<C: StoreCache>(p: *mut Self, v: Self, policy: Option<u64>) {
        C::st8(p, v, policy)
    }
}
impl sealed::Sealed for u16 {}
impl AccessBits for u16 {
    #[inline(always)]
    unsafe fn load<C: LoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld16(p, policy)
    }
    #[inline(always)]
    unsafe fn load_nc<C: NcLoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld16(p, policy)
    }
    #[inline(always)]
    unsafe fn store<C: StoreCache>(p: *mut Self, v: Self, policy: Option<u64>) {
        C::st16(p, v, policy)
    }
}
impl sealed::Sealed for u32 {}
impl AccessBits for u32 {
    #[inline(always)]
    unsafe fn load<C: LoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld32(p, policy)
    }
    #[inline(always)]
    unsafe fn load_nc<C: NcLoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld32(p, policy)
    }
    #[inline(always)]
    unsafe fn store<C: StoreCache>(p: *mut Self, v: Self, policy: Option<u64>) {
        C::st32(p, v, policy)
    }
}
impl sealed::Sealed for u64 {}
impl AccessBits for u64 {
    #[inline(always)]
    unsafe fn load<C: LoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld64(p, policy)
    }
    #[inline(always)]
    unsafe fn load_nc<C: NcLoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld64(p, policy)
    }
    #[inline(always)]
    unsafe fn store<C: StoreCache>(p: *mut Self, v: Self, policy: Option<u64>) {
        C::st64(p, v, policy)
    }
}
impl sealed::Sealed for [u32; 4] {}
impl AccessBits for [u32; 4] {
    #[inline(always)]
    unsafe fn load<C: LoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld128(p, policy)
    }
    #[inline(always)]
    unsafe fn load_nc<C: NcLoadCache>(p: *const Self, policy: Option<u64>) -> Self {
        C::ld128(p, policy)
    }
    #[inline(always)]
    unsafe fn store<C: StoreCache>(p: *mut Self, v: Self, policy: Option<u64>) {
        C::st128(p, v, policy)
    }
}

/// Values one global access moves: 8-bit `u8`, `i8`; 16-bit `u16`, `i16`, `f16`, `bf16`; 32-bit
/// `u32`, `i32`, `f32`; 64-bit `u64`, `i64`, `f64`,
/// `[u32; 2]`, `[i32; 2]`, `[f32; 2]`; 128-bit `[u32; 4]`, `[i32; 4]`, `[f32; 4]`, `[u64; 2]`,
/// `[i64; 2]`, `[f64; 2]`. Sealed. Accesses must be aligned to `size_of::<Self>()`.
///
/// ```
/// use cute_rs_device::memory::GlobalValue;
/// fn bytes<T: GlobalValue>() -> usize { core::mem::size_of::<T>() }
/// assert_eq!(bytes::<[f32; 4]>(), 16);
/// ```
pub trait GlobalValue: Copy + sealed::Value {
    /// The raw words of the access.
    #[doc(hidden)]
    type Bits: AccessBits;
    #[doc(hidden)]
    fn to_bits(self) -> Self::Bits;
    #[doc(hidden)]
    fn from_bits(bits: Self::Bits) -> Self;
}

macro_rules! global_value {
    ($bits:ty: $($t:ty),*) => {$(
        // `transmute` for every type alike (for some, `to_bits`/`cast_signed` would do).
        #[allow(unknown_lints, unnecessary_transmutes)]
        impl GlobalValue for $t {
            type Bits = $bits;
            #[inline(always)]
            fn to_bits(self) -> $bits {
                // SAFETY: same size, plain data (checked by `transmute`).
                unsafe { core::mem::transmute::<$t, $bits>(self) }
            }
            #[inline(always)]
            fn from_bits(bits: $bits) -> $t {
                // SAFETY: same size, every bit pattern is valid for `$t`.
                unsafe { core::mem::transmute::<$bits, $t>(bits) }
            }
        }
    )*};
}
global_value!(u8: u8, i8);
global_value!(u16: u16, i16, half::f16, half::bf16);
global_value!(u32: u32, i32, f32);
global_value!(u64: u64, i64, f64, [u32; 2], [i32; 2], [f32; 2]);
global_value!([u32; 4]: [u32; 4], [i32; 4], [f32; 4], [u64; 2], [i64; 2], [f64; 2]);

// ---------------------------------------------------------------------------------------------
// The accesses
// ---------------------------------------------------------------------------------------------

/// `ld.global<cache>` of one value (`.b32`, `.b64` or `.v4.b32`): a coherent global load with the
/// L1 behaviour `cache` ([`LoadCache`]).
///
/// # Safety
/// The [module's](self) preconditions: `ptr` is a global address valid for reads and aligned to
/// `size_of::<T>()` (16 for 128-bit values); no concurrent writes.
///
/// ```no_run
/// use cute_rs_device::memory::{load, Cg};
/// # unsafe fn f(p: *const [f32; 4]) -> f32 {
/// let v: [f32; 4] = load(p, Cg); // ld.global.cg.v4.b32, bypasses L1
/// v[0] + v[1] + v[2] + v[3]
/// # }
/// ```
#[inline(always)]
pub unsafe fn load<T: GlobalValue, C: LoadCache>(ptr: *const T, cache: C) -> T {
    let _ = cache;
    T::from_bits(T::Bits::load::<C>(ptr.cast(), None))
}

/// [`load`] with an L2 eviction priority: `ld.global<cache>.L2::cache_hint [ptr], policy`.
///
/// # Safety
/// As [`load`].
///
/// ```no_run
/// use cute_rs_device::memory::{load_with_policy, EvictFirst, L2Policy};
/// # unsafe fn f(p: *const u64) -> u64 {
/// load_with_policy(p, EvictFirst, L2Policy::evict_first())
/// # }
/// ```
#[inline(always)]
pub unsafe fn load_with_policy<T: GlobalValue, C: LoadCache>(ptr: *const T, cache: C, policy: L2Policy) -> T {
    let _ = cache;
    T::from_bits(T::Bits::load::<C>(ptr.cast(), Some(policy.0)))
}

/// `ld.global.nc<cache>`: a load through the non-coherent read-only (texture) path.
///
/// # Safety
/// The [module's](self) preconditions, and: the bytes are not written by any thread of any grid
/// while this kernel runs (the read-only path may return stale data otherwise).
///
/// ```no_run
/// use cute_rs_device::memory::{load_nc, Ca};
/// # unsafe fn f(table: *const i32, i: usize) -> i32 {
/// load_nc(table.add(i), Ca)
/// # }
/// ```
#[inline(always)]
pub unsafe fn load_nc<T: GlobalValue, C: NcLoadCache>(ptr: *const T, cache: C) -> T {
    let _ = cache;
    T::from_bits(T::Bits::load_nc::<C>(ptr.cast(), None))
}

/// [`load_nc`] with an L2 eviction priority: `ld.global.nc<cache>.L2::cache_hint`.
///
/// # Safety
/// As [`load_nc`].
///
/// ```no_run
/// use cute_rs_device::memory::{load_nc_with_policy, EvictLast, L2Policy};
/// # unsafe fn f(p: *const [u64; 2]) -> [u64; 2] {
/// load_nc_with_policy(p, EvictLast, L2Policy::evict_last())
/// # }
/// ```
#[inline(always)]
pub unsafe fn load_nc_with_policy<T: GlobalValue, C: NcLoadCache>(
    ptr: *const T,
    cache: C,
    policy: L2Policy,
) -> T {
    let _ = cache;
    T::from_bits(T::Bits::load_nc::<C>(ptr.cast(), Some(policy.0)))
}

/// `st.global<cache>` of one value (`.b32`, `.b64` or `.v4.b32`) with the caching `cache`
/// ([`StoreCache`]).
///
/// # Safety
/// The [module's](self) preconditions: `ptr` is a global address valid for writes and aligned to
/// `size_of::<T>()` (16 for 128-bit values); no concurrent accesses.
///
/// ```no_run
/// use cute_rs_device::memory::{store, Cs};
/// # unsafe fn f(p: *mut [i32; 4]) {
/// store(p, [1, 2, 3, 4], Cs); // st.global.cs.v4.b32
/// # }
/// ```
#[inline(always)]
pub unsafe fn store<T: GlobalValue, C: StoreCache>(ptr: *mut T, value: T, cache: C) {
    let _ = cache;
    T::Bits::store::<C>(ptr.cast(), value.to_bits(), None)
}

/// [`store`] with an L2 eviction priority: `st.global<cache>.L2::cache_hint`.
///
/// # Safety
/// As [`store`].
///
/// ```no_run
/// use cute_rs_device::memory::{store_with_policy, Wb, L2Policy};
/// # unsafe fn f(p: *mut f32) {
/// store_with_policy(p, 0.5, Wb, L2Policy::evict_last());
/// # }
/// ```
#[inline(always)]
pub unsafe fn store_with_policy<T: GlobalValue, C: StoreCache>(ptr: *mut T, value: T, cache: C, policy: L2Policy) {
    let _ = cache;
    T::Bits::store::<C>(ptr.cast(), value.to_bits(), Some(policy.0))
}

/// `ld.volatile.global`: a volatile load, never merged with or removed in favour of another access
/// (by the compiler or the hardware), always performed. PTX treats it as `ld.relaxed.sys` with
/// restrictions; use [`atomics`](super::atomics) for synchronization.
///
/// # Safety
/// `ptr` is a global address valid for reads and aligned to `size_of::<T>()`.
///
/// ```no_run
/// use cute_rs_device::memory::load_volatile;
/// # unsafe fn f(flag: *const u32) {
/// while load_volatile(flag) == 0 {}
/// # }
/// ```
#[inline(always)]
pub unsafe fn load_volatile<T: GlobalValue>(ptr: *const T) -> T {
    let v = T::from_bits(T::Bits::load::<Volatile>(ptr.cast(), None));
    // Volatile loads are how kernels poll flags: let other CPU-backend threads run.
    #[cfg(not(target_arch = "nvptx64"))]
    if super::cpu::in_kernel() {
        super::cpu::spin_poll(ptr as usize);
    }
    v
}

/// `st.volatile.global`: a volatile store, always performed (see [`load_volatile`]).
///
/// # Safety
/// `ptr` is a global address valid for writes and aligned to `size_of::<T>()`.
///
/// ```no_run
/// use cute_rs_device::memory::store_volatile;
/// # unsafe fn f(p: *mut [u64; 2]) {
/// store_volatile(p, [1, 2]);
/// # }
/// ```
#[inline(always)]
pub unsafe fn store_volatile<T: GlobalValue>(ptr: *mut T, value: T) {
    T::Bits::store::<Volatile>(ptr.cast(), value.to_bits(), None);
    #[cfg(not(target_arch = "nvptx64"))]
    super::cpu::progress();
}
