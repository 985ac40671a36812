//! Asynchronous global → shared copies (`cp.async`, sm_80+), with zero-fill, and their groups.
//!
//! A thread issues copies of 4, 8 or 16 bytes from global to shared memory, then closes the copies
//! issued so far into a *group* ([`commit_group`]); [`wait_group`] waits until at most `N` of the
//! thread's groups are still in flight. The copies are asynchronous *per thread*: another thread
//! sees the data only after the issuing thread has waited and the block has synchronized
//! (`__syncthreads`).
//!
//! Zero-fill: the `_zfill` forms take `src_bytes`, the number of bytes actually read from global
//! memory; the remaining `BYTES - src_bytes` bytes of the destination are written with zeros. This
//! is how a tile that hangs over the end of a tensor is staged without reading out of bounds:
//! `src_bytes = 0` reads nothing and writes `BYTES` zeros.
//!
//! | function | PTX | sizes |
//! | --- | --- | --- |
//! | [`cp_async_ca`], [`cp_async_ca_zfill`] | `cp.async.ca.shared.global [dst], [src], BYTES{, src_bytes}` (cached in L1 and L2) | 4, 8, 16 |
//! | [`cp_async_cg`], [`cp_async_cg_zfill`] | `cp.async.cg.shared.global [dst], [src], 16{, src_bytes}` (L2 only) | 16 |
//! | [`commit_group`], [`wait_group`], [`wait_all`] | `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all` | |
//!
//! Addresses are ordinary (generic) pointers; the functions convert them to the shared and global
//! state spaces. [`generic_to_shared`](super::shared::generic_to_shared) gives the 32-bit
//! shared-window address that other instructions (mbarrier, TMA, ldmatrix, wgmma descriptors) take.
//!
//! On targets other than `nvptx64` the copies are performed synchronously (the bytes are copied
//! and zero-filled at once, groups are no-ops), which is the semantics a single-threaded CPU
//! backend needs:
//!
//! ```
//! use cute_rs_device::cp_async::{cp_async_ca_zfill, commit_group, wait_all};
//! let src = [1u32, 2, 3, 4];
//! let mut dst = [9u32; 4];
//! unsafe {
//!     // 16-byte copy of which only the first 6 bytes are read: the rest is zero-filled.
//!     cp_async_ca_zfill::<16>(dst.as_mut_ptr().cast(), src.as_ptr().cast(), 6);
//!     commit_group();
//!     wait_all();
//! }
//! assert_eq!(dst, [1, 2, 0, 0]); // little-endian: bytes 4..6 are the low half of 2
//! ```

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

#[cfg(target_arch = "nvptx64")]
use super::shared::generic_to_shared;

/// The global-state-space address of a generic pointer to global memory (`cvta.to.global.u64`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) fn global_address<T>(ptr: *const T) -> u64 {
    let addr: u64;
    // SAFETY: address arithmetic only; reads no memory.
    unsafe {
        asm!(
            "cvta.to.global.u64 {a}, {p};",
            p = in(reg64) ptr as u64,
            a = out(reg64) addr,
            options(pure, nomem, nostack),
        );
    }
    addr
}

/// Compile-time check of a copy size.
struct Size<const BYTES: u32>;
impl<const BYTES: u32> Size<BYTES> {
    const VALID: () = assert!(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
    const SIXTEEN: () = assert!(BYTES == 16, "cp.async.cg copies 16 bytes only");
}

/// Starts an asynchronous copy of `BYTES` (4, 8 or 16) bytes from global to shared memory, cached
/// in L1 and L2 (`cp.async.ca.shared.global`).
///
/// # Safety
/// - `dst` points into shared memory, `src` into global memory, both aligned to `BYTES` and valid
///   for `BYTES` bytes;
/// - `dst` is neither read nor written by anyone until this thread has waited for the copy's group
///   ([`commit_group`] then [`wait_group`] / [`wait_all`]) and, for other threads, until a block
///   barrier after that wait.
///
/// `BYTES` other than 4, 8, 16 fails to compile.
///
/// # Example
/// ```
/// use cute_rs_device::cp_async::{cp_async_ca, commit_group, wait_group};
/// let src = [7u64];
/// let mut dst = [0u64];
/// unsafe {
///     cp_async_ca::<8>(dst.as_mut_ptr().cast(), src.as_ptr().cast());
///     commit_group();
///     wait_group::<0>();
/// }
/// assert_eq!(dst, [7]);
/// ```
#[inline(always)]
pub unsafe fn cp_async_ca<const BYTES: u32>(dst: *mut u8, src: *const u8) {
    let () = Size::<BYTES>::VALID;
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!(
            "cp.async.ca.shared.global [{d}], [{s}], {n};",
            d = in(reg32) generic_to_shared(dst),
            s = in(reg64) global_address(src),
            n = const BYTES,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        cpu_copy(dst, src, BYTES, BYTES)
    }
}

/// [`cp_async_ca`] reading only the first `src_bytes` bytes of `src`; the other
/// `BYTES - src_bytes` bytes of `dst` are set to zero (`cp.async.ca.shared.global [dst], [src],
/// BYTES, src_bytes`).
///
/// # Safety
/// As [`cp_async_ca`], and `src_bytes <= BYTES`. `src` must still be a valid, `BYTES`-aligned
/// global address when `src_bytes` is 0 (nothing is read then: point it at the tensor's start).
///
/// # Example
/// ```
/// use cute_rs_device::cp_async::{cp_async_ca_zfill, commit_group, wait_all};
/// let src = [5u32];
/// let mut dst = [1u32];
/// unsafe {
///     cp_async_ca_zfill::<4>(dst.as_mut_ptr().cast(), src.as_ptr().cast(), 0);
///     commit_group();
///     wait_all();
/// }
/// assert_eq!(dst, [0]);
/// ```
#[inline(always)]
pub unsafe fn cp_async_ca_zfill<const BYTES: u32>(dst: *mut u8, src: *const u8, src_bytes: u32) {
    let () = Size::<BYTES>::VALID;
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!(
            "cp.async.ca.shared.global [{d}], [{s}], {n}, {z};",
            d = in(reg32) generic_to_shared(dst),
            s = in(reg64) global_address(src),
            z = in(reg32) src_bytes,
            n = const BYTES,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        cpu_copy(dst, src, BYTES, src_bytes)
    }
}

/// Starts an asynchronous 16-byte copy from global to shared memory that bypasses L1
/// (`cp.async.cg.shared.global`): for data read once.
///
/// # Safety
/// As [`cp_async_ca`] with `BYTES = 16`. `BYTES` other than 16 fails to compile.
///
/// # Example
/// ```
/// use cute_rs_device::cp_async::{cp_async_cg, commit_group, wait_all};
/// let src = [1u32, 2, 3, 4];
/// let mut dst = [0u32; 4];
/// unsafe {
///     cp_async_cg::<16>(dst.as_mut_ptr().cast(), src.as_ptr().cast());
///     commit_group();
///     wait_all();
/// }
/// assert_eq!(dst, src);
/// ```
#[inline(always)]
pub unsafe fn cp_async_cg<const BYTES: u32>(dst: *mut u8, src: *const u8) {
    let () = Size::<BYTES>::SIXTEEN;
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!(
            "cp.async.cg.shared.global [{d}], [{s}], 16;",
            d = in(reg32) generic_to_shared(dst),
            s = in(reg64) global_address(src),
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        cpu_copy(dst, src, BYTES, BYTES)
    }
}

/// [`cp_async_cg`] reading only the first `src_bytes` bytes of `src` and zero-filling the rest
/// (`cp.async.cg.shared.global [dst], [src], 16, src_bytes`).
///
/// # Safety
/// As [`cp_async_ca_zfill`] with `BYTES = 16`.
///
/// # Example
/// ```
/// use cute_rs_device::cp_async::{cp_async_cg_zfill, commit_group, wait_all};
/// let src = [1u32, 2, 3, 4];
/// let mut dst = [9u32; 4];
/// unsafe {
///     cp_async_cg_zfill::<16>(dst.as_mut_ptr().cast(), src.as_ptr().cast(), 12);
///     commit_group();
///     wait_all();
/// }
/// assert_eq!(dst, [1, 2, 3, 0]);
/// ```
#[inline(always)]
pub unsafe fn cp_async_cg_zfill<const BYTES: u32>(dst: *mut u8, src: *const u8, src_bytes: u32) {
    let () = Size::<BYTES>::SIXTEEN;
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!(
            "cp.async.cg.shared.global [{d}], [{s}], 16, {z};",
            d = in(reg32) generic_to_shared(dst),
            s = in(reg64) global_address(src),
            z = in(reg32) src_bytes,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    unsafe {
        cpu_copy(dst, src, BYTES, src_bytes)
    }
}

/// Closes the `cp.async` copies this thread issued since its last commit into one group
/// (`cp.async.commit_group`). Committing with no copy issued makes an empty group (allowed).
///
/// # Example
/// ```
/// cute_rs_device::cp_async::commit_group();
/// ```
#[inline(always)]
pub fn commit_group() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.commit_group;", options(nostack));
    }
}

/// Waits until at most `N` of this thread's committed groups are still in flight
/// (`cp.async.wait_group N`): the copies of every older group have landed in shared memory and are
/// visible to this thread. Other threads see them after a block barrier that follows the wait.
///
/// Groups complete in commit order, so `wait_group::<1>()` after committing groups `g0, g1`
/// guarantees `g0` only.
///
/// # Example
/// ```
/// use cute_rs_device::cp_async::{commit_group, wait_group};
/// commit_group();
/// commit_group();
/// wait_group::<1>(); // the first group has landed
/// wait_group::<0>(); // both have
/// ```
#[inline(always)]
pub fn wait_group<const N: u32>() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.wait_group {n};", n = const N, options(nostack));
    }
}

/// Waits for every `cp.async` copy this thread issued, committed or not (`cp.async.wait_all`,
/// i.e. commit + `wait_group 0`).
///
/// # Example
/// ```
/// cute_rs_device::cp_async::wait_all();
/// ```
#[inline(always)]
pub fn wait_all() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.wait_all;", options(nostack));
    }
}

/// A block's multistage `cp.async` main loop over `steps` steps (CUTLASS's multistage mainloop):
/// a ring of `PENDING + 2` shared-memory slots, `PENDING + 1` steps in flight while one is
/// computed.
///
/// `load(step, slot)` issues this thread's `cp.async` copies of `step` into `slot` (every thread
/// of the block calls it with the same arguments); `compute(step, slot)` reads `slot` once every
/// thread's copies of `step` have landed. Each `load` is committed as one group (an empty group
/// past the last step), `wait_group::<PENDING>` and a block barrier precede each `compute` (the
/// barrier also ends every warp's reads of the slot the next `load` refills: the one computed
/// in the previous step), and no copy is left in flight on return (the block's shared memory
/// may be reused by the next block on the SM).
///
/// Preconditions: every thread of the block calls it with the same `steps` (it has block
/// barriers); `load` copies only into `slot`.
///
/// # Example
/// ```no_run
/// use cute_rs_device::cp_async::{cp_async_ca, cp_async_pipeline};
/// // In a kernel of 256 threads: 8 steps of 1024 floats through a ring of 3 slots, each thread
/// // copying and then summing its 16 bytes of a step.
/// # let (src, ring, t) = (std::ptr::null::<f32>(), std::ptr::null_mut::<f32>(), 0usize);
/// let mut sum = 0.0;
/// cp_async_pipeline::<1>(8, |step, slot| unsafe {
///     let (dst, from) = (ring.add(1024 * slot as usize + 4 * t), src.add(1024 * step as usize + 4 * t));
///     cp_async_ca::<16>(dst as *mut u8, from as *const u8)
/// }, |_, slot| sum += unsafe { *ring.add(1024 * slot as usize + 4 * t) });
/// ```
#[inline(always)]
pub fn cp_async_pipeline<const PENDING: u32>(steps: u32, mut load: impl FnMut(u32, u32), mut compute: impl FnMut(u32, u32)) {
    let slots = PENDING + 2;
    let mut s = 0;
    while s < slots - 1 {
        if s < steps {
            load(s, s);
        }
        commit_group();
        s += 1;
    }
    let mut step = 0;
    while step < steps {
        // Step `step`'s group has landed (at most PENDING younger ones pending).
        wait_group::<PENDING>();
        crate::sync::sync_threads();
        let next = step + slots - 1;
        if next < steps {
            load(next, next % slots);
        }
        commit_group();
        compute(step, step % slots);
        step += 1;
    }
    wait_group::<0>();
}

/// The CPU semantics of a zero-filling copy: `src_bytes` bytes copied, the rest of `bytes` zeroed.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
unsafe fn cpu_copy(dst: *mut u8, src: *const u8, bytes: u32, src_bytes: u32) {
    let n = if src_bytes < bytes { src_bytes } else { bytes } as usize;
    // SAFETY: the caller guarantees `dst`/`src` valid for `bytes` bytes (and src_bytes <= bytes).
    unsafe {
        core::ptr::copy_nonoverlapping(src, dst, n);
        core::ptr::write_bytes(dst.add(n), 0, bytes as usize - n);
    }
}
