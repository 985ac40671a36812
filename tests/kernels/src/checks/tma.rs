//! GPU check kernels: `mbarrier` phases and TMA bulk tensor copies (loads of 1-D to 5-D boxes with
//! any swizzle and out-of-bounds fill, stores with clipping). Checked by `cute_rs::gpu_suite`
//! (`tma/*`), which builds the tensor maps and computes the expected shared-memory images with the
//! layout algebra.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::tma::{
    bulk_commit_group, bulk_wait_group, fence_proxy_async_shared_cta, fence_proxy_tensormap_acquire, tma_load_1d,
    tma_load_2d, tma_load_3d, tma_load_4d, tma_load_5d, tma_reduce_add_1d, tma_reduce_add_2d, tma_reduce_add_3d, tma_reduce_add_4d, tma_reduce_add_5d, tma_store_1d, tma_store_2d, tma_store_3d, tma_store_4d,
    tma_store_5d, TmaDescriptor,
};
use cute_rs_tensor::device::sync::{fence_mbarrier_init, Mbarrier};

use super::cp_async::{block_dim, static_shared, sync_threads, tid};

/// Bytes of the shared-memory box buffer of the TMA kernels (1024-byte aligned).
const BOX_BUFFER_BYTES: u32 = 16384;

/// Loads `reps` boxes with TMA into the same 1024-byte-aligned shared buffer, one after the
/// other on one mbarrier (phases 0, 1, 0, ...), and copies each box's shared-memory image, as
/// raw 32-bit words, to `out[i * box_bytes / 4 ..]`.
///
/// Box `i` is at coordinates `(c0, .., c4)` (the first `rank`) with `i * step` added to the
/// last one. `desc` is a tiled tensor map of rank `rank` (1..=5) whose box is `box_bytes` bytes
/// (a multiple of 4, at most 16 KiB). One block of any number of threads.
#[kernel]
pub fn tma_load_boxes(
    desc: *const TmaDescriptor,
    rank: u32,
    c0: i32,
    c1: i32,
    c2: i32,
    c3: i32,
    c4: i32,
    step: i32,
    reps: u32,
    box_bytes: u32,
    out: *mut u32,
) {
    let smem = static_shared!(TMA_LOAD_BOX, 16384, 1024);
    let bar = Mbarrier::from_ptr(static_shared!(TMA_LOAD_BAR, 8, 8));
    let (t, threads) = (tid(), block_dim());
    if box_bytes > BOX_BUFFER_BYTES || box_bytes % 4 != 0 {
        return;
    }
    if t == 0 {
        bar.init(1);
        fence_mbarrier_init();
        fence_proxy_tensormap_acquire(desc);
    }
    sync_threads();
    let words = box_bytes / 4;
    for i in 0..reps {
        if t == 0 {
            bar.arrive_expect_tx(box_bytes);
            let d = step * i as i32;
            match rank {
                1 => tma_load_1d(smem, desc, [c0 + d], bar),
                2 => tma_load_2d(smem, desc, [c0, c1 + d], bar),
                3 => tma_load_3d(smem, desc, [c0, c1, c2 + d], bar),
                4 => tma_load_4d(smem, desc, [c0, c1, c2, c3 + d], bar),
                _ => tma_load_5d(smem, desc, [c0, c1, c2, c3, c4 + d], bar),
            }
        }
        bar.wait_parity(i & 1);
        let box_words = smem as *const u32;
        let dst = out.add((i * words) as usize);
        let mut w = t;
        while w < words {
            *dst.add(w as usize) = *box_words.add(w as usize);
            w += threads;
        }
        // Everybody has read the box before the next load overwrites it.
        sync_threads();
    }
}

/// Copies `box_bytes` bytes of `image` (a box's shared-memory image, arranged as the tensor
/// map's swizzle wants) to a 1024-byte-aligned shared buffer and stores it with one TMA store at
/// coordinates `(c0, .., c4)` (the first `rank`) of the tensor map `desc`; elements outside the
/// tensor are dropped by the copy engine. With `reduce != 0`, a TMA reduction instead (an f32
/// map: each element is added to the tensor's). One block of any number of threads; `box_bytes`
/// a multiple of 4, at most 16 KiB.
#[kernel]
pub fn tma_store_box(
    desc: *const TmaDescriptor,
    rank: u32,
    c0: i32,
    c1: i32,
    c2: i32,
    c3: i32,
    c4: i32,
    box_bytes: u32,
    image: *const u32,
    reduce: u32,
) {
    let smem = static_shared!(TMA_STORE_BOX, 16384, 1024);
    let (t, threads) = (tid(), block_dim());
    if box_bytes > BOX_BUFFER_BYTES || box_bytes % 4 != 0 {
        return;
    }
    let box_words = smem as *mut u32;
    let mut w = t;
    while w < box_bytes / 4 {
        *box_words.add(w as usize) = *image.add(w as usize);
        w += threads;
    }
    // The copy engine reads shared memory through the async proxy.
    fence_proxy_async_shared_cta();
    sync_threads();
    if t == 0 {
        fence_proxy_tensormap_acquire(desc);
        match (rank, reduce != 0) {
            (1, false) => tma_store_1d(desc, [c0], smem),
            (2, false) => tma_store_2d(desc, [c0, c1], smem),
            (3, false) => tma_store_3d(desc, [c0, c1, c2], smem),
            (4, false) => tma_store_4d(desc, [c0, c1, c2, c3], smem),
            (_, false) => tma_store_5d(desc, [c0, c1, c2, c3, c4], smem),
            (1, true) => tma_reduce_add_1d(desc, [c0], smem),
            (2, true) => tma_reduce_add_2d(desc, [c0, c1], smem),
            (3, true) => tma_reduce_add_3d(desc, [c0, c1, c2], smem),
            (4, true) => tma_reduce_add_4d(desc, [c0, c1, c2, c3], smem),
            (_, true) => tma_reduce_add_5d(desc, [c0, c1, c2, c3, c4], smem),
        }
        bulk_commit_group();
        bulk_wait_group::<0>();
    }
}

/// Slots of the probe results at the end of [`mbarrier_phases`]'s output.
pub const MBARRIER_PROBES: u32 = 5;

/// Runs `rounds` rounds of a producer/consumer exchange through shared memory on two mbarriers
/// initialized for all the block's threads (`full`, `empty`), waiting by phase parity:
/// in round `r`, thread `t` writes `seed ^ (r * 0x0100_0193) ^ (t * 0x9E37_79B9)` to its
/// slot, arrives on `full` and waits for parity `r & 1`, reads the slot of thread
/// `(t + r + 1) % n` into `out[r * n + t]`, then arrives on `empty` and waits for parity `r & 1`
/// before the next round overwrites the slots.
///
/// Thread 0 also records probes at `out[rounds * n ..]`: right after `init`,
/// `test_wait_parity(0)` (0: the first phase is pending), `test_wait_parity(1)` (1: "the phase
/// before" counts as complete) and `try_wait_parity(1)` (1); after the last round,
/// `test_wait_parity(rounds & 1)` (0: the next phase is pending) and
/// `test_wait_parity((rounds - 1) & 1)` (1). One block of `n <= 1024` threads, `rounds >= 1`.
#[kernel]
pub fn mbarrier_phases(seed: u32, rounds: u32, out: *mut u32) {
    let bars = static_shared!(MBARRIER_PHASES_BARS, 16, 8);
    let slots = static_shared!(MBARRIER_PHASES_SLOTS, 4096, 16) as *mut u32;
    let full = Mbarrier::from_ptr(bars);
    let empty = Mbarrier::from_ptr(bars.add(8));
    let (t, n) = (tid(), block_dim());
    let probes = out.add((rounds * n) as usize);
    if t == 0 {
        full.init(n);
        empty.init(n);
        fence_mbarrier_init();
        *probes = full.test_wait_parity(0) as u32;
        *probes.add(1) = full.test_wait_parity(1) as u32;
        *probes.add(2) = full.try_wait_parity(1) as u32;
    }
    sync_threads();
    for r in 0..rounds {
        *slots.add(t as usize) = seed ^ r.wrapping_mul(0x0100_0193) ^ t.wrapping_mul(0x9E37_79B9);
        full.arrive();
        full.wait_parity(r & 1);
        // (`checked_rem`: no division-by-zero panic path; `n` is never 0.)
        let from = (t + r + 1).checked_rem(n).unwrap_or(0);
        *out.add((r * n + t) as usize) = *slots.add(from as usize);
        empty.arrive();
        empty.wait_parity(r & 1);
    }
    if t == 0 {
        *probes.add(3) = full.test_wait_parity(rounds & 1) as u32;
        *probes.add(4) = full.test_wait_parity(rounds.wrapping_sub(1) & 1) as u32;
    }
}
