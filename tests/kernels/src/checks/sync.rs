//! GPU check kernels: `cute_rs_tensor::device::sync` (block barrier and its reductions, named
//! barriers with thread counts, warp barrier). Each kernel moves data between threads through
//! shared memory, so that a barrier that does not order the accesses shows as wrong output.
//! Checked by `cute_rs::gpu_suite` (`sync/*`).

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{block_dim_x, block_idx_x, lane_id, thread_idx_x, warp_id};
use cute_rs_tensor::device::sync::{
    sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, sync_warp, NamedBarrier,
};
use cute_rs_tensor::shared_array;

/// Threads per block of `sync_threads_exchange` (and the tile length).
pub const EXCHANGE_THREADS: u32 = 1024;

/// Block `b` (of [`EXCHANGE_THREADS`] threads `t`) works on `src[b * 1024 ..][.. 1024]`:
///
/// 1. `tile[t] = src[b*1024 + t]`; `sync_threads`; `x = tile[(t * 7 + 3 * b + 1) % 1024]`;
/// 2. `sync_threads`; `tile[t] = x ^ t`; `sync_threads`;
///    `dst[b*1024 + t] = tile[(t + 517) % 1024]`;
/// 3. with `p = preds[b*1024 + t] != 0`: `counts[g] = sync_threads_count(p)`,
///    `ands[g] = sync_threads_and(p)`, `ors[g] = sync_threads_or(p)` (as 0/1), `g = b*1024 + t`.
#[kernel]
pub fn sync_threads_exchange(
    src: *const u32,
    preds: *const u32,
    dst: *mut u32,
    counts: *mut u32,
    ands: *mut u32,
    ors: *mut u32,
) {
    let tile = shared_array!(SYNC_EXCHANGE_TILE: [u32; 1024]);
    let (t, b) = (thread_idx_x(), block_idx_x());
    let n = EXCHANGE_THREADS;
    let g = (b * n + t) as usize;
    tile.write(t as usize, *src.add(g));
    sync_threads();
    let x = tile.read(((t * 7 + 3 * b + 1) % n) as usize);
    sync_threads();
    tile.write(t as usize, x ^ t);
    sync_threads();
    *dst.add(g) = tile.read(((t + 517) % n) as usize);

    let p = *preds.add(g) != 0;
    *counts.add(g) = sync_threads_count(p);
    *ands.add(g) = sync_threads_and(p) as u32;
    *ors.add(g) = sync_threads_or(p) as u32;
}

/// Threads per block of `named_barrier_pipeline`: 4 producer warps, 4 consumer warps, 4 warps
/// of an independent group.
pub const PIPELINE_THREADS: u32 = 384;
/// Rounds of the producer/consumer pipeline.
pub const PIPELINE_ROUNDS: u32 = 3;
/// Words per round that the producers hand to the consumers.
pub const PIPELINE_WORDS: u32 = 256;

/// Named barriers. Block `b` of [`PIPELINE_THREADS`] threads:
///
/// - warps 0-3 (128 producers) and warps 4-7 (128 consumers) run a [`PIPELINE_ROUNDS`]-round
///   pipeline through shared memory, one 256-word slot per round: in round `r` the producers
///   write `slot_r[i] = src[(b*3 + r)*256 + i]` (two words each) and `arrive` on barrier 1;
///   the consumers `sync` on barrier 1 and write `dst[(b*3 + r)*256 + i] = slot_r[255 - i]`;
///   then all 256 `sync` on barrier 2, so that no producer arrives on barrier 1 twice in one
///   phase. Both barriers count 256 threads.
///
///   (One slot reused every round would be as correct — an arrive performs the thread's
///   earlier accesses before the barrier completes — but compute-sanitizer's racecheck
///   (CUDA 13.0) reports the reuse after a `bar.arrive` as a write-after-read hazard, so the
///   rounds use separate slots to keep the suite clean under it);
/// - warps 8-11 (128 threads `u`) synchronize among themselves on barrier 3 (128 threads), twice:
///   `grp[u] = src2[b*128 + u]`; sync; `y = grp[(u + 1) % 128]`; sync; `grp[u] = y + u`; sync;
///   `dst2[b*128 + u] = grp[127 - u]`.
#[kernel]
pub fn named_barrier_pipeline(src: *const u32, src2: *const u32, dst: *mut u32, dst2: *mut u32) {
    const FULL: NamedBarrier<1, 256> = NamedBarrier::new();
    const EMPTY: NamedBarrier<2, 256> = NamedBarrier::new();
    const GROUP: NamedBarrier<3, 128> = NamedBarrier::new();
    let buf = shared_array!(SYNC_PIPELINE_BUF: [u32; 768], align 16);
    let grp = shared_array!(SYNC_GROUP_BUF: [u32; 128]);
    let (t, b, w) = (thread_idx_x(), block_idx_x(), warp_id());
    let words = PIPELINE_WORDS;
    if w < 8 {
        let mut r = 0;
        while r < PIPELINE_ROUNDS {
            let base = ((b * PIPELINE_ROUNDS + r) * words) as usize;
            let slot = (r * words) as usize;
            if w < 4 {
                buf.write(slot + t as usize, *src.add(base + t as usize));
                buf.write(slot + (t + 128) as usize, *src.add(base + (t + 128) as usize));
                FULL.arrive();
            } else {
                let c = t - 128;
                FULL.sync();
                *dst.add(base + c as usize) = buf.read(slot + (words - 1 - c) as usize);
                *dst.add(base + (c + 128) as usize) = buf.read(slot + (words - 1 - (c + 128)) as usize);
            }
            // Producers must not arrive on barrier 1 again before its phase completed.
            if r + 1 < PIPELINE_ROUNDS {
                EMPTY.sync();
            }
            r += 1;
        }
    } else {
        let u = t - 256;
        let g = (b * 128 + u) as usize;
        grp.write(u as usize, *src2.add(g));
        GROUP.sync();
        let y = grp.read(((u + 1) % 128) as usize);
        GROUP.sync();
        grp.write(u as usize, y.wrapping_add(u));
        GROUP.sync();
        *dst2.add(g) = grp.read((127 - u) as usize);
    }
}

/// `sync_warp` with full and partial masks. Thread `g = block * blockDim + t` of warp `w`,
/// lane `l` (blocks of whole warps, at most 1024 threads):
///
/// 1. `s[w*32 + l] = src[g]`; lanes 0-15 `sync_warp(0x0000ffff)` and read
///    `s[w*32 + ((l ^ 5) & 15)]`, lanes 16-31 `sync_warp(0xffff0000)` and read
///    `s[w*32 + 16 + (l * 3) % 16]`: `dst[g]` = that;
/// 2. `sync_warp(FULL)`; `s[w*32 + l] = dst[g] + l`; `sync_warp(FULL)`;
///    `dst2[g] = s[w*32 + 31 - l]`.
#[kernel]
pub fn sync_warp_exchange(src: *const u32, dst: *mut u32, dst2: *mut u32) {
    let s = shared_array!(SYNC_WARP_BUF: [u32; 1024]);
    let (l, w) = (lane_id(), warp_id());
    let g = (block_idx_x() * block_dim_x() + thread_idx_x()) as usize;
    let row = (w * 32) as usize;
    s.write(row + l as usize, *src.add(g));
    let v = if l < 16 {
        sync_warp(0x0000_ffff);
        s.read(row + ((l ^ 5) & 15) as usize)
    } else {
        sync_warp(0xffff_0000);
        s.read(row + 16 + ((l * 3) % 16) as usize)
    };
    *dst.add(g) = v;
    sync_warp(cute_rs_tensor::device::warp::FULL_MASK);
    s.write(row + l as usize, v.wrapping_add(l));
    sync_warp(cute_rs_tensor::device::warp::FULL_MASK);
    *dst2.add(g) = s.read(row + 31 - l as usize);
}
