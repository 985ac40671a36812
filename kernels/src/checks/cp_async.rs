//! GPU check kernels: `cp.async` (4/8/16 bytes, `.ca`/`.cg`, zero-fill, groups).
//!
//! Each kernel stages a 4 KiB tile from global to shared memory with `cp.async`, where only the
//! first `n_bytes` bytes of the tile exist in global memory: the copy that straddles `n_bytes`
//! reads part of its bytes and zero-fills the rest (byte granularity), the copies past it read
//! nothing and write zeros. The tile is issued as two commit groups (its two halves); the kernel
//! waits for the first with `wait_group 1` and writes that half out, then for the second with
//! `wait_group 0`. Shared memory is filled with a sentinel before, so a copy that did not land
//! shows. Checked by `cute_rs::gpu_suite` (`cp_async/*`).
//!
//! This file also holds the small helpers the `cp_async`, `tma` and `mma` check kernels share
//! (thread index, block barrier, static shared arrays), written against `core::arch::nvptx` so
//! that they do not depend on the device-primitive modules being written beside them.

use layout_tensor::device::cp_async::{
    commit_group, cp_async_ca_zfill, cp_async_cg_zfill, wait_group,
};

/// `threadIdx.x`.
#[inline(always)]
pub(crate) fn tid() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    unsafe {
        core::arch::nvptx::_thread_idx_x() as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    0
}

/// `blockDim.x`.
#[inline(always)]
pub(crate) fn block_dim() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reads a special register.
    unsafe {
        core::arch::nvptx::_block_dim_x() as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    1
}

/// `__syncthreads()`.
#[inline(always)]
pub(crate) fn sync_threads() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: every thread of the block reaches it (the callers' control flow is block-uniform).
    unsafe {
        core::arch::nvptx::_syncthreads()
    }
}

/// Declares a static shared-memory array `$name` of `$bytes` bytes aligned to `$align` (PTX
/// `.shared .align A .b8 NAME[B]`) and evaluates to its generic address, a `*mut u8`. The name must
/// be unique in the module; kernels that evaluate the same declaration share the declaration, each
/// launch gets its own memory.
macro_rules! static_shared {
    ($name:ident, $bytes:literal, $align:literal) => {{
        #[cfg(target_arch = "nvptx64")]
        {
            core::arch::global_asm!(concat!(
                ".shared .align ", $align, " .b8 ", stringify!($name), "[", $bytes, "];"
            ));
            let p: u64;
            // SAFETY: takes the address of the array declared above.
            unsafe {
                core::arch::asm!(
                    concat!("cvta.shared.u64 {0}, ", stringify!($name), ";"),
                    out(reg64) p,
                    options(pure, nomem, nostack)
                );
            }
            p as *mut u8
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            core::ptr::null_mut::<u8>()
        }
    }};
}
pub(crate) use static_shared;

/// Bytes in the staged tile (1024 words).
const TILE_BYTES: u32 = 4096;
/// Written to shared memory before the copies, so that a word no copy wrote shows in the output.
const SENTINEL: u32 = 0x5EA7_1E55;

/// The body shared by the `cp_async_*` kernels: copies of `BYTES` bytes, `.cg` if `CG`.
#[inline(always)]
unsafe fn stage<const BYTES: u32, const CG: bool>(src: *const u8, n_bytes: u32, out: *mut u32) {
    let tile = static_shared!(CP_ASYNC_TILE, 4096, 128) as *mut u32;
    let (t, threads) = (tid(), block_dim());
    let words = TILE_BYTES / 4;
    let mut w = t;
    while w < words {
        *tile.add(w as usize) = SENTINEL;
        w += threads;
    }
    sync_threads();

    let chunks = TILE_BYTES / BYTES;
    let issue = |first: u32, end: u32| {
        let mut c = first + t;
        while c < end {
            let start = c * BYTES;
            let valid = if n_bytes > start { (n_bytes - start).min(BYTES) } else { 0 };
            // Nothing is read when `valid` is 0, but the address must still be a valid, aligned one.
            let from = if valid > 0 { src.add(start as usize) } else { src };
            let to = (tile as *mut u8).add(start as usize);
            if CG {
                cp_async_cg_zfill::<16>(to, from, valid);
            } else {
                cp_async_ca_zfill::<BYTES>(to, from, valid);
            }
            c += threads;
        }
        commit_group();
    };
    issue(0, chunks / 2);
    issue(chunks / 2, chunks);

    // The first group (first half of the tile) has landed for every thread after the barrier.
    wait_group::<1>();
    sync_threads();
    let mut w = t;
    while w < words / 2 {
        *out.add(w as usize) = *tile.add(w as usize);
        w += threads;
    }
    wait_group::<0>();
    sync_threads();
    let mut w = words / 2 + t;
    while w < words {
        *out.add(w as usize) = *tile.add(w as usize);
        w += threads;
    }
}

kernel! {
    /// Stages the 4 KiB tile at `src` (of which `n_bytes` bytes exist) with 4-byte
    /// `cp.async.ca` copies and zero-fill, and writes it to `out` (1024 words). One block, any
    /// number of threads (a multiple of 32); `src` 16-byte aligned.
    pub fn cp_async_ca4(src: *const u8, n_bytes: u32, out: *mut u32) {
        stage::<4, false>(src, n_bytes, out);
    }
}

kernel! {
    /// [`cp_async_ca4`] with 8-byte `cp.async.ca` copies.
    pub fn cp_async_ca8(src: *const u8, n_bytes: u32, out: *mut u32) {
        stage::<8, false>(src, n_bytes, out);
    }
}

kernel! {
    /// [`cp_async_ca4`] with 16-byte `cp.async.ca` copies.
    pub fn cp_async_ca16(src: *const u8, n_bytes: u32, out: *mut u32) {
        stage::<16, false>(src, n_bytes, out);
    }
}

kernel! {
    /// [`cp_async_ca4`] with 16-byte `cp.async.cg` (L2-only) copies.
    pub fn cp_async_cg16(src: *const u8, n_bytes: u32, out: *mut u32) {
        stage::<16, true>(src, n_bytes, out);
    }
}
