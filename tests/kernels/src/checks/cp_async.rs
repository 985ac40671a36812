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
//! This file also holds the short names the `cp_async`, `tma` and `mma` check kernels share for
//! the library's thread index, block barrier and static shared arrays.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::cp_async::{
    commit_group, cp_async_ca_zfill, cp_async_cg_zfill, wait_group,
};
pub(crate) use cute_rs_tensor::device::ids::{block_dim_x as block_dim, thread_idx_x as tid};
pub(crate) use cute_rs_tensor::device::sync::sync_threads;

/// A static shared-memory array `$name` of `$bytes` bytes aligned to `$align`
/// ([`shared_array!`](cute_rs_tensor::shared_array)), as its generic address, a `*mut u8`.
macro_rules! static_shared {
    ($name:ident, $bytes:literal, $align:literal) => {
        cute_rs_tensor::shared_array!($name: [u8; $bytes], align $align).as_mut_ptr()
    };
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

/// Stages the 4 KiB tile at `src` (of which `n_bytes` bytes exist) with 4-byte
/// `cp.async.ca` copies and zero-fill, and writes it to `out` (1024 words). One block, any
/// number of threads (a multiple of 32); `src` 16-byte aligned.
#[kernel]
pub fn cp_async_ca4(src: *const u8, n_bytes: u32, out: *mut u32) {
    stage::<4, false>(src, n_bytes, out);
}

/// [`cp_async_ca4`] with 8-byte `cp.async.ca` copies.
#[kernel]
pub fn cp_async_ca8(src: *const u8, n_bytes: u32, out: *mut u32) {
    stage::<8, false>(src, n_bytes, out);
}

/// [`cp_async_ca4`] with 16-byte `cp.async.ca` copies.
#[kernel]
pub fn cp_async_ca16(src: *const u8, n_bytes: u32, out: *mut u32) {
    stage::<16, false>(src, n_bytes, out);
}

/// [`cp_async_ca4`] with 16-byte `cp.async.cg` (L2-only) copies.
#[kernel]
pub fn cp_async_cg16(src: *const u8, n_bytes: u32, out: *mut u32) {
    stage::<16, true>(src, n_bytes, out);
}
