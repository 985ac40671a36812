//! The PTX memory model's strong operations on global memory: loads and stores with a memory order
//! (`ld.relaxed/acquire.<scope>`, `st.relaxed/release.<scope>`), fences (`fence.acq_rel/sc.<scope>`)
//! and atomic read-modify-writes (`atom.<order>.<scope>.global.<op>.<type>`: add, min, max, and, or,
//! xor, exch, cas), each with an explicit order and scope.
//!
//! Orders and scopes are values of marker types, so that an order an operation does not have
//! does not compile:
//! - loads: [`Relaxed`] or [`Acquire`] ([`LoadOrder`]);
//! - stores: [`Relaxed`] or [`Release`] ([`StoreOrder`]);
//! - read-modify-writes: [`Relaxed`], [`Acquire`], [`Release`] or [`AcqRel`] ([`RmwOrder`]);
//! - fences: [`AcqRel`] or [`SeqCst`] ([`FenceOrder`]);
//! - scopes ([`Scope`]): [`Cta`] (the block), [`Cluster`], [`Gpu`] (all threads of the device),
//!   [`Sys`] (the device, the host and peer devices).
//!
//! The scope is the set of threads the operation synchronizes with: a release at scope [`Gpu`]
//! pairs with an acquire at scope `Gpu` (or wider) in another block; [`Cta`] is cheaper but only
//! orders accesses among the threads of one block.
//!
//! Values: [`StrongValue`] (8-, 16-, 32- and 64-bit integers, `f16`, `bf16`, `f32`, `f64`:
//! [`load`], [`store`]); [`AtomicValue`] (`u32`, `i32`, `f32`, `u64`, `i64`, `f64`: also [`swap`],
//! [`compare_exchange`]); [`AtomicAdd`] (the same six; `i64` adds as `u64`, which is the same
//! two's-complement operation); [`AtomicMinMax`] (`u32`, `i32`, `u64`, `i64`: PTX has no
//! floating-point `atom.min/max` on sm_90, build it with [`compare_exchange`]); [`AtomicBits`]
//! (`u32`, `i32`, `u64`, `i64`: and, or, xor).
//!
//! Common preconditions (safety) of the pointer operations:
//! - the pointer is a generic address of **global** memory (the instructions use `.global`; shared
//!   memory is not supported here) valid for the access;
//! - it is aligned to `size_of::<T>()` (1, 2, 4 or 8 bytes);
//! - the bytes are accessed concurrently only by operations of this module (mixing with plain
//!   accesses is a data race: their values are unspecified).
//!
//! On the host (the CPU backend, [`cpu`](crate::cpu)) one thread of a launch runs at a time, so
//! every operation is atomic and every order holds; loads and failed compare-exchanges count as
//! polls that let other threads run.
//!
//! ```no_run
//! use cute_rs_device::atomics::{fetch_add, load, store, Acquire, Gpu, Relaxed, Release};
//! # unsafe fn f(counter: *mut u32, data: *mut f32, flag: *mut u32) {
//! // A histogram bin.
//! fetch_add(counter, 1u32, Relaxed, Gpu);
//! // Message passing between blocks.
//! *data = 42.0;
//! store(flag, 1u32, Release, Gpu);
//! while load(flag as *const u32, Acquire, Gpu) == 0 {}
//! # }
//! ```

/// The CPU backend's atomics: one logical thread runs at a time within a launch (see
/// [`cpu`](crate::cpu)), so a plain read-modify-write is atomic among the launch's threads, and
/// every memory order holds (the scheduler's hand-over orders all accesses). Each write counts as
/// progress for threads spinning on it; each load is a spin poll.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::super::cpu;

    pub(super) unsafe fn load<T: Copy>(p: *const T) -> T {
        check(p as usize, core::mem::size_of::<T>());
        let v = p.read();
        if cpu::in_kernel() {
            cpu::spin_poll(p as usize);
        }
        v
    }

    pub(super) unsafe fn compare_exchange<T: Copy + PartialEq>(p: *mut T, cmp: T, new: T) -> T {
        check(p as usize, core::mem::size_of::<T>());
        let old = p.read();
        if old == cmp {
            p.write(new);
            cpu::progress();
        } else if cpu::in_kernel() {
            cpu::spin_poll(p as usize);
        }
        old
    }

    pub(super) unsafe fn rmw<T: Copy>(p: *mut T, f: impl FnOnce(T) -> T) -> T {
        check(p as usize, core::mem::size_of::<T>());
        let old = p.read();
        p.write(f(old));
        cpu::progress();
        old
    }

    fn check(p: usize, size: usize) {
        if p % size != 0 {
            let why = std::format!("address {p:#x} is not aligned to {size} bytes");
            if cpu::in_kernel() {
                cpu::misuse("atomic", why);
            }
            panic!("atomic: {why}");
        }
    }

    /// The arithmetic of the read-modify-writes, wrapping like the GPU's.
    pub(super) trait Arith: Copy {
        fn add(self, b: Self) -> Self;
        fn min(self, b: Self) -> Self;
        fn max(self, b: Self) -> Self;
        fn and(self, b: Self) -> Self;
        fn or(self, b: Self) -> Self;
        fn xor(self, b: Self) -> Self;
    }
    macro_rules! int_arith {
        ($($t:ty),*) => {$(impl Arith for $t {
            fn add(self, b: Self) -> Self { self.wrapping_add(b) }
            fn min(self, b: Self) -> Self { Ord::min(self, b) }
            fn max(self, b: Self) -> Self { Ord::max(self, b) }
            fn and(self, b: Self) -> Self { self & b }
            fn or(self, b: Self) -> Self { self | b }
            fn xor(self, b: Self) -> Self { self ^ b }
        })*};
    }
    int_arith!(u32, i32, u64, i64);
    macro_rules! float_arith {
        ($($t:ty),*) => {$(impl Arith for $t {
            fn add(self, b: Self) -> Self { self + b }
            fn min(self, b: Self) -> Self { self.min(b) }
            fn max(self, b: Self) -> Self { self.max(b) }
            fn and(self, _: Self) -> Self { unreachable!() }
            fn or(self, _: Self) -> Self { unreachable!() }
            fn xor(self, _: Self) -> Self { unreachable!() }
        })*};
    }
    float_arith!(f32, f64);
}

mod sealed {
    pub trait Sealed {}
    pub trait Value {}
    impl Value for u32 {}
    impl Value for i32 {}
    impl Value for f32 {}
    impl Value for u64 {}
    impl Value for i64 {}
    impl Value for f64 {}
    impl Value for u8 {}
    impl Value for i8 {}
    impl Value for u16 {}
    impl Value for i16 {}
    impl Value for half::f16 {}
    impl Value for half::bf16 {}
}

// ---------------------------------------------------------------------------------------------
// Orders and scopes
// ---------------------------------------------------------------------------------------------

/// Which order a marker type stands for (dispatch of the instructions; not part of the API).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderKind {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// Which scope a marker type stands for (dispatch of the instructions; not part of the API).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

/// A memory order: [`Relaxed`], [`Acquire`], [`Release`], [`AcqRel`], [`SeqCst`]. Sealed.
///
/// ```
/// fn order<O: cute_rs_device::atomics::Order>(_: O) {}
/// order(cute_rs_device::atomics::AcqRel);
/// ```
pub trait Order: sealed::Sealed + Copy {
    #[doc(hidden)]
    const KIND: OrderKind;
}

/// Orders of [`load`]: [`Relaxed`], [`Acquire`].
///
/// ```
/// fn load_order<O: cute_rs_device::atomics::LoadOrder>(_: O) {}
/// load_order(cute_rs_device::atomics::Acquire);
/// ```
pub trait LoadOrder: Order {}
/// Orders of [`store`]: [`Relaxed`], [`Release`].
///
/// ```
/// fn store_order<O: cute_rs_device::atomics::StoreOrder>(_: O) {}
/// store_order(cute_rs_device::atomics::Release);
/// ```
pub trait StoreOrder: Order {}
/// Orders of read-modify-writes: [`Relaxed`], [`Acquire`], [`Release`], [`AcqRel`].
///
/// ```
/// fn rmw_order<O: cute_rs_device::atomics::RmwOrder>(_: O) {}
/// rmw_order(cute_rs_device::atomics::Relaxed);
/// ```
pub trait RmwOrder: Order {}
/// Orders of [`fence`]: [`AcqRel`] (`fence.acq_rel`), [`SeqCst`] (`fence.sc`).
///
/// ```
/// fn fence_order<O: cute_rs_device::atomics::FenceOrder>(_: O) {}
/// fence_order(cute_rs_device::atomics::SeqCst);
/// ```
pub trait FenceOrder: Order {}

/// A scope: [`Cta`], [`Cluster`], [`Gpu`], [`Sys`]. Sealed.
///
/// ```
/// fn scope<S: cute_rs_device::atomics::Scope>(_: S) {}
/// scope(cute_rs_device::atomics::Gpu);
/// ```
pub trait Scope: sealed::Sealed + Copy {
    #[doc(hidden)]
    const KIND: ScopeKind;
}

macro_rules! order {
    ($(#[$doc:meta])* $name:ident: $($tr:ident),*) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Order for $name {
            const KIND: OrderKind = OrderKind::$name;
        }
        $(impl $tr for $name {})*
    };
}

order! {
    /// `.relaxed`: atomic (no torn or lost updates) but orders nothing else.
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{fetch_add, Gpu, Relaxed};
    /// # unsafe fn f(bin: *mut u32) {
    /// fetch_add(bin, 1u32, Relaxed, Gpu);
    /// # }
    /// ```
    Relaxed: LoadOrder, StoreOrder, RmwOrder
}
order! {
    /// `.acquire`: later accesses of the thread are not performed before it; pairs with a release
    /// whose value it reads.
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{load, Acquire, Gpu};
    /// # unsafe fn f(flag: *const u32) {
    /// while load(flag, Acquire, Gpu) == 0 {}
    /// # }
    /// ```
    Acquire: LoadOrder, RmwOrder
}
order! {
    /// `.release`: the thread's earlier accesses are performed (visible in the scope) before it.
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{store, Gpu, Release};
    /// # unsafe fn f(flag: *mut u32) {
    /// store(flag, 1u32, Release, Gpu);
    /// # }
    /// ```
    Release: StoreOrder, RmwOrder
}
order! {
    /// `.acq_rel`: both acquire and release (read-modify-writes and fences).
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{fence, AcqRel, Gpu};
    /// fence(AcqRel, Gpu);
    /// ```
    AcqRel: RmwOrder, FenceOrder
}
order! {
    /// `.sc`: sequentially consistent fence (`fence.sc`), slower than [`AcqRel`]; makes all the
    /// `fence.sc` of the scope totally ordered.
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{fence, SeqCst, Sys};
    /// fence(SeqCst, Sys);
    /// ```
    SeqCst: FenceOrder
}

macro_rules! scope {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Scope for $name {
            const KIND: ScopeKind = ScopeKind::$name;
        }
    };
}

scope! {
    /// `.cta`: the threads of the block.
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{fetch_add, Cta, Relaxed};
    /// # unsafe fn f(p: *mut u32) {
    /// fetch_add(p, 1u32, Relaxed, Cta);
    /// # }
    /// ```
    Cta
}
scope! {
    /// `.cluster`: the threads of the block's cluster (sm_90).
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{fence, AcqRel, Cluster};
    /// fence(AcqRel, Cluster);
    /// ```
    Cluster
}
scope! {
    /// `.gpu`: all threads of the device (every block of every grid on it).
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{load, Acquire, Gpu};
    /// # unsafe fn f(p: *const u64) -> u64 {
    /// load(p, Acquire, Gpu)
    /// # }
    /// ```
    Gpu
}
scope! {
    /// `.sys`: the device, the host and the other devices of the system.
    ///
    /// ```no_run
    /// # use cute_rs_device::atomics::{store, Release, Sys};
    /// # unsafe fn f(p: *mut u32) {
    /// store(p, 1u32, Release, Sys);
    /// # }
    /// ```
    Sys
}

/// Expands `$mac!(sem, scope, args)` for the `(order, scope)` of the marker types `$O`, `$S`:
/// one arm per combination the operation has (string literals for the asm template).
#[cfg(target_arch = "nvptx64")]
macro_rules! dispatch {
    (rmw $O:ty, $S:ty, $mac:ident $args:tt) => {
        match (<$O as Order>::KIND, <$S as Scope>::KIND) {
            (OrderKind::Relaxed, ScopeKind::Cta) => $mac!(".relaxed", ".cta", $args),
            (OrderKind::Relaxed, ScopeKind::Cluster) => $mac!(".relaxed", ".cluster", $args),
            (OrderKind::Relaxed, ScopeKind::Gpu) => $mac!(".relaxed", ".gpu", $args),
            (OrderKind::Relaxed, ScopeKind::Sys) => $mac!(".relaxed", ".sys", $args),
            (OrderKind::Acquire, ScopeKind::Cta) => $mac!(".acquire", ".cta", $args),
            (OrderKind::Acquire, ScopeKind::Cluster) => $mac!(".acquire", ".cluster", $args),
            (OrderKind::Acquire, ScopeKind::Gpu) => $mac!(".acquire", ".gpu", $args),
            (OrderKind::Acquire, ScopeKind::Sys) => $mac!(".acquire", ".sys", $args),
            (OrderKind::Release, ScopeKind::Cta) => $mac!(".release", ".cta", $args),
            (OrderKind::Release, ScopeKind::Cluster) => $mac!(".release", ".cluster", $args),
            (OrderKind::Release, ScopeKind::Gpu) => $mac!(".release", ".gpu", $args),
            (OrderKind::Release, ScopeKind::Sys) => $mac!(".release", ".sys", $args),
            (OrderKind::AcqRel, ScopeKind::Cta) => $mac!(".acq_rel", ".cta", $args),
            (OrderKind::AcqRel, ScopeKind::Cluster) => $mac!(".acq_rel", ".cluster", $args),
            (OrderKind::AcqRel, ScopeKind::Gpu) => $mac!(".acq_rel", ".gpu", $args),
            (OrderKind::AcqRel, ScopeKind::Sys) => $mac!(".acq_rel", ".sys", $args),
            // SAFETY: the sealed order traits admit no other order here.
            _ => unsafe { core::hint::unreachable_unchecked() },
        }
    };
    (load $O:ty, $S:ty, $mac:ident $args:tt) => {
        match (<$O as Order>::KIND, <$S as Scope>::KIND) {
            (OrderKind::Relaxed, ScopeKind::Cta) => $mac!(".relaxed", ".cta", $args),
            (OrderKind::Relaxed, ScopeKind::Cluster) => $mac!(".relaxed", ".cluster", $args),
            (OrderKind::Relaxed, ScopeKind::Gpu) => $mac!(".relaxed", ".gpu", $args),
            (OrderKind::Relaxed, ScopeKind::Sys) => $mac!(".relaxed", ".sys", $args),
            (OrderKind::Acquire, ScopeKind::Cta) => $mac!(".acquire", ".cta", $args),
            (OrderKind::Acquire, ScopeKind::Cluster) => $mac!(".acquire", ".cluster", $args),
            (OrderKind::Acquire, ScopeKind::Gpu) => $mac!(".acquire", ".gpu", $args),
            (OrderKind::Acquire, ScopeKind::Sys) => $mac!(".acquire", ".sys", $args),
            // SAFETY: `LoadOrder` admits no other order.
            _ => unsafe { core::hint::unreachable_unchecked() },
        }
    };
    (store $O:ty, $S:ty, $mac:ident $args:tt) => {
        match (<$O as Order>::KIND, <$S as Scope>::KIND) {
            (OrderKind::Relaxed, ScopeKind::Cta) => $mac!(".relaxed", ".cta", $args),
            (OrderKind::Relaxed, ScopeKind::Cluster) => $mac!(".relaxed", ".cluster", $args),
            (OrderKind::Relaxed, ScopeKind::Gpu) => $mac!(".relaxed", ".gpu", $args),
            (OrderKind::Relaxed, ScopeKind::Sys) => $mac!(".relaxed", ".sys", $args),
            (OrderKind::Release, ScopeKind::Cta) => $mac!(".release", ".cta", $args),
            (OrderKind::Release, ScopeKind::Cluster) => $mac!(".release", ".cluster", $args),
            (OrderKind::Release, ScopeKind::Gpu) => $mac!(".release", ".gpu", $args),
            (OrderKind::Release, ScopeKind::Sys) => $mac!(".release", ".sys", $args),
            // SAFETY: `StoreOrder` admits no other order.
            _ => unsafe { core::hint::unreachable_unchecked() },
        }
    };
    (fence $O:ty, $S:ty, $mac:ident $args:tt) => {
        match (<$O as Order>::KIND, <$S as Scope>::KIND) {
            (OrderKind::AcqRel, ScopeKind::Cta) => $mac!(".acq_rel", ".cta", $args),
            (OrderKind::AcqRel, ScopeKind::Cluster) => $mac!(".acq_rel", ".cluster", $args),
            (OrderKind::AcqRel, ScopeKind::Gpu) => $mac!(".acq_rel", ".gpu", $args),
            (OrderKind::AcqRel, ScopeKind::Sys) => $mac!(".acq_rel", ".sys", $args),
            (OrderKind::SeqCst, ScopeKind::Cta) => $mac!(".sc", ".cta", $args),
            (OrderKind::SeqCst, ScopeKind::Cluster) => $mac!(".sc", ".cluster", $args),
            (OrderKind::SeqCst, ScopeKind::Gpu) => $mac!(".sc", ".gpu", $args),
            (OrderKind::SeqCst, ScopeKind::Sys) => $mac!(".sc", ".sys", $args),
            // SAFETY: `FenceOrder` admits no other order.
            _ => unsafe { core::hint::unreachable_unchecked() },
        }
    };
}

/// `ld<sem><scope>.global.<ty> r, [p]` (after `cvta.to.global`).
#[cfg(target_arch = "nvptx64")]
macro_rules! ld_asm {
    ($sem:literal, $scope:literal, ($ty:literal, $reg:ident, $out:ty, $p:expr)) => {{
        let r: $out;
        core::arch::asm!(
            concat!("{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; ld", $sem, $scope,
                    ".global.", $ty, " {r}, [%cute_g]; }}"),
            p = in(reg64) $p,
            r = out($reg) r,
            options(nostack, preserves_flags)
        );
        r
    }};
}

/// `st<sem><scope>.global.<ty> [p], v`.
#[cfg(target_arch = "nvptx64")]
macro_rules! st_asm {
    ($sem:literal, $scope:literal, ($ty:literal, $reg:ident, $p:expr, $v:expr)) => {
        core::arch::asm!(
            concat!("{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; st", $sem, $scope,
                    ".global.", $ty, " [%cute_g], {v}; }}"),
            p = in(reg64) $p,
            v = in($reg) $v,
            options(nostack, preserves_flags)
        )
    };
}

/// `atom<sem><scope>.global.<op> r, [p], v`.
#[cfg(target_arch = "nvptx64")]
macro_rules! atom_asm {
    ($sem:literal, $scope:literal, ($op:expr, $reg:ident, $out:ty, $p:expr, $v:expr)) => {{
        let r: $out;
        core::arch::asm!(
            concat!("{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; atom", $sem, $scope,
                    ".global.", $op, " {r}, [%cute_g], {v}; }}"),
            p = in(reg64) $p,
            v = in($reg) $v,
            r = out($reg) r,
            options(nostack, preserves_flags)
        );
        r
    }};
}

/// `atom<sem><scope>.global.cas.<ty> r, [p], cmp, new`.
#[cfg(target_arch = "nvptx64")]
macro_rules! cas_asm {
    ($sem:literal, $scope:literal, ($ty:literal, $reg:ident, $out:ty, $p:expr, $cmp:expr, $new:expr)) => {{
        let r: $out;
        core::arch::asm!(
            concat!("{{ .reg .b64 %cute_g; cvta.to.global.u64 %cute_g, {p}; atom", $sem, $scope,
                    ".global.cas.", $ty, " {r}, [%cute_g], {c}, {n}; }}"),
            p = in(reg64) $p,
            c = in($reg) $cmp,
            n = in($reg) $new,
            r = out($reg) r,
            options(nostack, preserves_flags)
        );
        r
    }};
}

/// `fence<sem><scope>`.
#[cfg(target_arch = "nvptx64")]
macro_rules! fence_asm {
    ($sem:literal, $scope:literal, ()) => {
        // SAFETY: a fence has no preconditions.
        unsafe { core::arch::asm!(concat!("fence", $sem, $scope, ";"), options(nostack, preserves_flags)) }
    };
}

// ---------------------------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------------------------

/// The raw bits of a strong load or store: `u8` (`.b8`), `u16` (`.b16`), `u32` (`.b32`) or `u64`
/// (`.b64`). Sealed.
///
/// ```
/// fn bits<W: cute_rs_device::atomics::StrongBits>() {}
/// bits::<u16>();
/// ```
pub trait StrongBits: sealed::Sealed + Copy {
    #[doc(hidden)]
    unsafe fn load<O: LoadOrder, S: Scope>(p: *const Self) -> Self;
    #[doc(hidden)]
    unsafe fn store<O: StoreOrder, S: Scope>(p: *mut Self, v: Self);
}

/// The raw word of an atomic read-modify-write: `u32` (`.b32`) or `u64` (`.b64`). Sealed.
///
/// ```
/// fn word<W: cute_rs_device::atomics::AtomicBitsWidth>() {}
/// word::<u64>();
/// ```
pub trait AtomicBitsWidth: StrongBits + Eq {
    #[doc(hidden)]
    unsafe fn exch<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn cas<O: RmwOrder, S: Scope>(p: *mut Self, cmp: Self, new: Self) -> Self;
}

/// Loads and stores of `$t` (`.$b`, register class `$reg`).
macro_rules! strong_bits {
    ($t:ty, $b:literal, $reg:ident) => {
        impl sealed::Sealed for $t {}
        impl StrongBits for $t {
            #[inline(always)]
            unsafe fn load<O: LoadOrder, S: Scope>(p: *const Self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return dispatch!(load O, S, ld_asm ($b, $reg, $t, p));
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    host::load(p)
                }
            }
            #[inline(always)]
            unsafe fn store<O: StoreOrder, S: Scope>(p: *mut Self, v: Self) {
                #[cfg(target_arch = "nvptx64")]
                dispatch!(store O, S, st_asm ($b, $reg, p, v));
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    host::rmw(p, |_| v);
                }
            }
        }
    };
}
strong_bits!(u8, "b8", reg16);
strong_bits!(u16, "b16", reg16);
strong_bits!(u32, "b32", reg32);
strong_bits!(u64, "b64", reg64);

macro_rules! bits_width {
    ($t:ty, $b:literal, $reg:ident) => {
        impl AtomicBitsWidth for $t {
            #[inline(always)]
            unsafe fn exch<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return dispatch!(rmw O, S, atom_asm (concat!("exch.", $b), $reg, $t, p, v));
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    host::rmw(p, |_| v)
                }
            }
            #[inline(always)]
            unsafe fn cas<O: RmwOrder, S: Scope>(p: *mut Self, cmp: Self, new: Self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return dispatch!(rmw O, S, cas_asm ($b, $reg, $t, p, cmp, new));
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    // A failed exchange is a poll (compare-and-swap spin loops); a successful
                    // one a write.
                    host::compare_exchange(p, cmp, new)
                }
            }
        }
    };
}
bits_width!(u32, "b32", reg32);
bits_width!(u64, "b64", reg64);

/// Values of strong loads and stores ([`load`], [`store`]): `u8`, `i8`, `u16`, `i16`, `f16`,
/// `bf16`, `u32`, `i32`, `f32`, `u64`, `i64`, `f64` (moved as their bits). Sealed.
///
/// ```
/// fn strong<T: cute_rs_device::atomics::StrongValue>(_: T) {}
/// strong(half::bf16::ONE);
/// ```
pub trait StrongValue: Copy + sealed::Value {
    #[doc(hidden)]
    type Bits: StrongBits;
    #[doc(hidden)]
    fn to_bits(self) -> Self::Bits;
    #[doc(hidden)]
    fn from_bits(bits: Self::Bits) -> Self;
}

/// Values of atomic read-modify-writes ([`swap`], [`compare_exchange`]), and of the operations
/// of [`StrongValue`]: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`. Sealed.
///
/// ```
/// fn atomic<T: cute_rs_device::atomics::AtomicValue>(_: T) {}
/// atomic(1.0f64);
/// ```
pub trait AtomicValue: StrongValue<Bits: AtomicBitsWidth> {}

macro_rules! strong_value {
    ($bits:ty: $($t:ty => |$v:ident| $to:expr, |$w:ident| $from:expr;)*) => {$(
        impl StrongValue for $t {
            type Bits = $bits;
            #[inline(always)]
            fn to_bits(self) -> $bits { let $v = self; $to }
            #[inline(always)]
            fn from_bits(bits: $bits) -> $t { let $w = bits; $from }
        }
    )*};
}
strong_value!(u8: u8 => |v| v, |w| w; i8 => |v| v as u8, |w| w as i8;);
strong_value!(u16: u16 => |v| v, |w| w; i16 => |v| v as u16, |w| w as i16;
    half::f16 => |v| v.to_bits(), |w| half::f16::from_bits(w); half::bf16 => |v| v.to_bits(), |w| half::bf16::from_bits(w););
strong_value!(u32: u32 => |v| v, |w| w; i32 => |v| v as u32, |w| w as i32; f32 => |v| v.to_bits(), |w| f32::from_bits(w););
strong_value!(u64: u64 => |v| v, |w| w; i64 => |v| v as u64, |w| w as i64; f64 => |v| v.to_bits(), |w| f64::from_bits(w););
impl AtomicValue for u32 {}
impl AtomicValue for i32 {}
impl AtomicValue for f32 {}
impl AtomicValue for u64 {}
impl AtomicValue for i64 {}
impl AtomicValue for f64 {}

/// Values of [`fetch_add`]: `u32` (`add.u32`), `i32` (`add.s32`), `u64` (`add.u64`), `i64`
/// (`add.u64`, the same bits), `f32` (`add.f32`), `f64` (`add.f64`). Integer additions wrap;
/// floating-point additions round to nearest even. Sealed.
///
/// ```
/// fn addable<T: cute_rs_device::atomics::AtomicAdd>(_: T) {}
/// addable(1.0f32);
/// ```
pub trait AtomicAdd: AtomicValue {
    #[doc(hidden)]
    unsafe fn atom_add<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
}

/// Values of [`fetch_min`] / [`fetch_max`]: `u32`, `i32`, `u64`, `i64` (compared as unsigned or
/// signed by type). Sealed.
///
/// ```
/// fn ordered<T: cute_rs_device::atomics::AtomicMinMax>(_: T) {}
/// ordered(-1i64);
/// ```
pub trait AtomicMinMax: AtomicValue {
    #[doc(hidden)]
    unsafe fn atom_min<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn atom_max<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
}

/// Values of [`fetch_and`] / [`fetch_or`] / [`fetch_xor`]: `u32`, `i32`, `u64`, `i64`. Sealed.
///
/// ```
/// fn bits<T: cute_rs_device::atomics::AtomicBits>(_: T) {}
/// bits(0xffu32);
/// ```
pub trait AtomicBits: AtomicValue {
    #[doc(hidden)]
    unsafe fn atom_and<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn atom_or<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
    #[doc(hidden)]
    unsafe fn atom_xor<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self;
}

/// One read-modify-write method: `atom.<op>` on the bits of `Self` in register class `$reg`.
macro_rules! rmw_method {
    ($method:ident, $op:expr, $reg:ident, $host:ident) => {
        #[inline(always)]
        unsafe fn $method<O: RmwOrder, S: Scope>(p: *mut Self, v: Self) -> Self {
            #[cfg(target_arch = "nvptx64")]
            {
                let p = p as *mut <Self as StrongValue>::Bits;
                let v = v.to_bits();
                let r: <Self as StrongValue>::Bits = dispatch!(rmw O, S, atom_asm ($op, $reg, <Self as StrongValue>::Bits, p, v));
                Self::from_bits(r)
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                host::rmw(p, |old| host::Arith::$host(old, v))
            }
        }
    };
}

macro_rules! atomic_add {
    ($($t:ty => $op:literal, $reg:ident;)*) => {$(
        impl AtomicAdd for $t {
            rmw_method!(atom_add, $op, $reg, add);
        }
    )*};
}
atomic_add! {
    u32 => "add.u32", reg32;
    i32 => "add.s32", reg32;
    u64 => "add.u64", reg64;
    i64 => "add.u64", reg64;
    f32 => "add.f32", reg32;
    f64 => "add.f64", reg64;
}

macro_rules! atomic_min_max {
    ($($t:ty => $min:literal, $max:literal, $reg:ident;)*) => {$(
        impl AtomicMinMax for $t {
            rmw_method!(atom_min, $min, $reg, min);
            rmw_method!(atom_max, $max, $reg, max);
        }
    )*};
}
atomic_min_max! {
    u32 => "min.u32", "max.u32", reg32;
    i32 => "min.s32", "max.s32", reg32;
    u64 => "min.u64", "max.u64", reg64;
    i64 => "min.s64", "max.s64", reg64;
}

macro_rules! atomic_bits {
    ($($t:ty => $w:literal, $reg:ident;)*) => {$(
        impl AtomicBits for $t {
            rmw_method!(atom_and, concat!("and.", $w), $reg, and);
            rmw_method!(atom_or, concat!("or.", $w), $reg, or);
            rmw_method!(atom_xor, concat!("xor.", $w), $reg, xor);
        }
    )*};
}
atomic_bits! {
    u32 => "b32", reg32;
    i32 => "b32", reg32;
    u64 => "b64", reg64;
    i64 => "b64", reg64;
}

// ---------------------------------------------------------------------------------------------
// The operations
// ---------------------------------------------------------------------------------------------

/// `ld<order><scope>.global`: a strong load. With [`Acquire`], the thread's later accesses happen
/// after it, and it sees everything a [`Release`] it reads from published.
///
/// # Safety
/// The [module's](self) preconditions: a global address, aligned, valid for reads.
///
/// ```no_run
/// use cute_rs_device::atomics::{load, Acquire, Gpu};
/// # unsafe fn f(flag: *const u32) {
/// while load(flag, Acquire, Gpu) == 0 {} // ld.acquire.gpu.global.b32
/// # }
/// ```
#[inline(always)]
pub unsafe fn load<T: StrongValue, O: LoadOrder, S: Scope>(ptr: *const T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::from_bits(T::Bits::load::<O, S>(ptr.cast()))
}

/// `st<order><scope>.global`: a strong store. With [`Release`], the thread's earlier accesses are
/// visible (in the scope) to whoever acquires this value.
///
/// # Safety
/// The [module's](self) preconditions: a global address, aligned, valid for writes.
///
/// ```no_run
/// use cute_rs_device::atomics::{store, Gpu, Release};
/// # unsafe fn f(flag: *mut u32) {
/// store(flag, 1u32, Release, Gpu); // st.release.gpu.global.b32
/// # }
/// ```
#[inline(always)]
pub unsafe fn store<T: StrongValue, O: StoreOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) {
    let _ = (order, scope);
    T::Bits::store::<O, S>(ptr.cast(), value.to_bits())
}

/// `fence<order><scope>`: orders the thread's accesses before it with those after it, in the scope
/// ([`AcqRel`]: `fence.acq_rel`, pairs relaxed accesses into release/acquire patterns; [`SeqCst`]:
/// `fence.sc`, also totally ordered with the other `fence.sc`). Also a compiler barrier.
///
/// ```no_run
/// use cute_rs_device::atomics::{fence, store, AcqRel, Gpu, Relaxed};
/// # unsafe fn f(data: *mut f32, flag: *mut u32) {
/// *data = 1.0;
/// fence(AcqRel, Gpu); // then a relaxed store publishes like a release store
/// store(flag, 1u32, Relaxed, Gpu);
/// # }
/// ```
#[inline(always)]
pub fn fence<O: FenceOrder, S: Scope>(order: O, scope: S) {
    let _ = (order, scope);
    #[cfg(target_arch = "nvptx64")]
    dispatch!(fence O, S, fence_asm ());
    // The CPU backend orders everything already (one thread at a time).
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst)
}

/// `atom<order><scope>.global.add`: adds `value`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{fetch_add, Gpu, Relaxed};
/// # unsafe fn f(sum: *mut f32, x: f32) {
/// let before = fetch_add(sum, x, Relaxed, Gpu); // atom.relaxed.gpu.global.add.f32
/// # let _ = before;
/// # }
/// ```
#[inline(always)]
pub unsafe fn fetch_add<T: AtomicAdd, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::atom_add::<O, S>(ptr, value)
}

/// `atom<order><scope>.global.min`: stores `min(previous, value)`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{fetch_min, Gpu, Relaxed};
/// # unsafe fn f(lowest: *mut i32, x: i32) {
/// fetch_min(lowest, x, Relaxed, Gpu); // atom.relaxed.gpu.global.min.s32
/// # }
/// ```
#[inline(always)]
pub unsafe fn fetch_min<T: AtomicMinMax, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::atom_min::<O, S>(ptr, value)
}

/// `atom<order><scope>.global.max`: stores `max(previous, value)`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{fetch_max, AcqRel, Gpu};
/// # unsafe fn f(highest: *mut u64, x: u64) {
/// fetch_max(highest, x, AcqRel, Gpu); // atom.acq_rel.gpu.global.max.u64
/// # }
/// ```
#[inline(always)]
pub unsafe fn fetch_max<T: AtomicMinMax, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::atom_max::<O, S>(ptr, value)
}

/// `atom<order><scope>.global.and.b32/b64`: stores `previous & value`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{fetch_and, Cta, Relaxed};
/// # unsafe fn f(mask: *mut u32) {
/// fetch_and(mask, !1u32, Relaxed, Cta);
/// # }
/// ```
#[inline(always)]
pub unsafe fn fetch_and<T: AtomicBits, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::atom_and::<O, S>(ptr, value)
}

/// `atom<order><scope>.global.or.b32/b64`: stores `previous | value`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{fetch_or, Gpu, Relaxed};
/// # unsafe fn f(seen: *mut u64, bit: u32) {
/// fetch_or(seen, 1u64 << bit, Relaxed, Gpu);
/// # }
/// ```
#[inline(always)]
pub unsafe fn fetch_or<T: AtomicBits, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::atom_or::<O, S>(ptr, value)
}

/// `atom<order><scope>.global.xor.b32/b64`: stores `previous ^ value`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{fetch_xor, Gpu, Relaxed};
/// # unsafe fn f(parity: *mut i32) {
/// fetch_xor(parity, 1i32, Relaxed, Gpu);
/// # }
/// ```
#[inline(always)]
pub unsafe fn fetch_xor<T: AtomicBits, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::atom_xor::<O, S>(ptr, value)
}

/// `atom<order><scope>.global.exch.b32/b64`: stores `value`, returns the previous value.
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{swap, AcqRel, Gpu};
/// # unsafe fn f(slot: *mut f64) -> f64 {
/// swap(slot, 0.0, AcqRel, Gpu)
/// # }
/// ```
#[inline(always)]
pub unsafe fn swap<T: AtomicValue, O: RmwOrder, S: Scope>(ptr: *mut T, value: T, order: O, scope: S) -> T {
    let _ = (order, scope);
    T::from_bits(T::Bits::exch::<O, S>(ptr.cast(), value.to_bits()))
}

/// `atom<order><scope>.global.cas.b32/b64`: if the value's bits equal `current`'s, stores `new`.
/// Returns `Ok(previous)` when it stored, `Err(previous)` when not. Floating-point values compare
/// by bits (`-0.0 != 0.0`, a NaN can equal itself).
///
/// The order applies whether or not the store happens (PTX has one order per `atom`).
///
/// # Safety
/// The [module's](self) preconditions.
///
/// ```no_run
/// use cute_rs_device::atomics::{compare_exchange, load, Gpu, Relaxed};
/// // An atomic floating-point maximum (PTX has no atom.max.f32).
/// # unsafe fn f(max: *mut f32, x: f32) {
/// let mut seen = load(max as *const f32, Relaxed, Gpu);
/// while x > seen {
///     match compare_exchange(max, seen, x, Relaxed, Gpu) {
///         Ok(_) => break,
///         Err(now) => seen = now,
///     }
/// }
/// # }
/// ```
#[inline(always)]
pub unsafe fn compare_exchange<T: AtomicValue, O: RmwOrder, S: Scope>(
    ptr: *mut T,
    current: T,
    new: T,
    order: O,
    scope: S,
) -> Result<T, T> {
    let _ = (order, scope);
    let expected = current.to_bits();
    let previous = T::Bits::cas::<O, S>(ptr.cast(), expected, new.to_bits());
    if previous == expected {
        Ok(T::from_bits(previous))
    } else {
        Err(T::from_bits(previous))
    }
}
