//! GPU check kernels: `cute_rs_tensor::device::atomics` (atomic read-modify-writes with every order
//! and scope, strong loads and stores, fences, message passing between blocks, a lock built on
//! compare-and-swap). `g` is the thread's index in the 1-D grid. Checked by `cute_rs::gpu_suite`
//! (`atomics/*`).
//!
//! Scopes: operations of scope `Cta` or `Cluster` (a block is its own cluster without a cluster
//! launch) only ever target per-block slots, since they are atomic only among the threads of
//! their scope; `Gpu` and `Sys` ones target slots shared by the whole grid.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::atomics::{self, *};
use cute_rs_tensor::device::ids::{block_dim_x, block_idx_x, global_thread_index_x, grid_dim_x, lane_id, thread_idx_x, warp_id};
use cute_rs_tensor::device::memory;
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::shared_array;

/// Histogram: for `g < n`, `olds[g] = fetch_add(&hist[bins[g]], 1, Relaxed, Gpu)` (`u32`) and
/// `fetch_add(&hist64[bins[g]], weights[g], AcqRel, Sys)` (`u64`).
#[kernel]
pub fn atomic_histogram(bins: *const u32, weights: *const u64, hist: *mut u32, hist64: *mut u64, olds: *mut u32, n: u32) {
    let g = global_thread_index_x() as usize;
    if g < n as usize {
        let bin = *bins.add(g) as usize;
        *olds.add(g) = fetch_add(hist.add(bin), 1u32, Relaxed, Gpu);
        fetch_add(hist64.add(bin), *weights.add(g), AcqRel, Sys);
    }
}

/// Slots of `acc` per block in the integer read-modify-write kernels, after the 8 grid-wide ones.
pub const RMW_BLOCK_SLOTS: usize = 8;

/// Every integer read-modify-write on `acc` (see the `atomic_rmw_*` kernels).
#[inline(always)]
unsafe fn rmw_int<T: AtomicAdd + AtomicMinMax + AtomicBits>(vals: *const T, acc: *mut T, n: u32) {
    let g = global_thread_index_x() as usize;
    if g >= n as usize {
        return;
    }
    let v = *vals.add(g);
    fetch_add(acc, v, Relaxed, Gpu);
    fetch_min(acc.add(1), v, Acquire, Gpu);
    fetch_max(acc.add(2), v, Release, Sys);
    fetch_and(acc.add(3), v, AcqRel, Gpu);
    fetch_or(acc.add(4), v, Relaxed, Sys);
    fetch_xor(acc.add(5), v, AcqRel, Sys);
    let block = acc.add(RMW_BLOCK_SLOTS * (1 + block_idx_x() as usize));
    fetch_add(block, v, Relaxed, Cta);
    fetch_min(block.add(1), v, Acquire, Cluster);
    fetch_max(block.add(2), v, AcqRel, Cta);
    fetch_and(block.add(3), v, Release, Cluster);
    fetch_or(block.add(4), v, Relaxed, Cta);
    fetch_xor(block.add(5), v, Acquire, Cta);
}

/// Integer read-modify-writes on `u32`: for `g < n` with `v = vals[g]`: grid-wide slots
/// `acc[0..6]`: add (Relaxed, Gpu), min (Acquire, Gpu), max (Release, Sys), and (AcqRel, Gpu),
/// or (Relaxed, Sys), xor (AcqRel, Sys); block `b`'s slots `acc[8*(b+1) ..][..6]`: add
/// (Relaxed, Cta), min (Acquire, Cluster), max (AcqRel, Cta), and (Release, Cluster), or
/// (Relaxed, Cta), xor (Acquire, Cta).
#[kernel]
pub fn atomic_rmw_u32(vals: *const u32, acc: *mut u32, n: u32) {
    rmw_int(vals, acc, n);
}
/// `atomic_rmw_u32` on `i32` (signed min/max).
#[kernel]
pub fn atomic_rmw_i32(vals: *const i32, acc: *mut i32, n: u32) {
    rmw_int(vals, acc, n);
}
/// `atomic_rmw_u32` on `u64`.
#[kernel]
pub fn atomic_rmw_u64(vals: *const u64, acc: *mut u64, n: u32) {
    rmw_int(vals, acc, n);
}
/// `atomic_rmw_u32` on `i64` (signed min/max).
#[kernel]
pub fn atomic_rmw_i64(vals: *const i64, acc: *mut i64, n: u32) {
    rmw_int(vals, acc, n);
}

/// Floating-point additions on `acc` (see `atomic_add_f32`).
#[inline(always)]
unsafe fn add_float<T: AtomicAdd>(vals: *const T, acc: *mut T, n: u32) {
    let g = global_thread_index_x() as usize;
    if g >= n as usize {
        return;
    }
    let v = *vals.add(g);
    fetch_add(acc, v, Relaxed, Gpu);
    fetch_add(acc.add(1), v, AcqRel, Sys);
    let block = acc.add(2 * (1 + block_idx_x() as usize));
    fetch_add(block, v, Relaxed, Cta);
    fetch_add(block.add(1), v, Release, Cluster);
}

/// Floating-point `fetch_add` on `f32`: for `g < n`, `vals[g]` is added to `acc[0]` (Relaxed,
/// Gpu), `acc[1]` (AcqRel, Sys), and to block `b`'s `acc[2*(b+1)]` (Relaxed, Cta) and
/// `acc[2*(b+1) + 1]` (Release, Cluster). The values are multiples of 1/4 small enough that
/// every sum is exact in any order.
#[kernel]
pub fn atomic_add_f32(vals: *const f32, acc: *mut f32, n: u32) {
    add_float(vals, acc, n);
}
/// `atomic_add_f32` on `f64`.
#[kernel]
pub fn atomic_add_f64(vals: *const f64, acc: *mut f64, n: u32) {
    add_float(vals, acc, n);
}

/// Exchanges: for `g < n`, `olds[g] = swap(cell, g + 1, AcqRel, Gpu)` (`u64`) and
/// `olds_f[g] = swap(cell_f, g as f32 + 0.5, Relaxed, Sys)` (`f32`). The returned values and the
/// final cell are, together, the initial cell and every value stored.
#[kernel]
pub fn atomic_exchange(cell: *mut u64, olds: *mut u64, cell_f: *mut f32, olds_f: *mut f32, n: u32) {
    let g = global_thread_index_x() as usize;
    if g < n as usize {
        *olds.add(g) = swap(cell, g as u64 + 1, AcqRel, Gpu);
        *olds_f.add(g) = swap(cell_f, g as f32 + 0.5, Relaxed, Sys);
    }
}

/// `max` by a compare-and-swap loop; returns how many `compare_exchange` calls failed.
#[inline(always)]
unsafe fn cas_max<T: AtomicValue + PartialOrd, O: RmwOrder, S: Scope>(p: *mut T, x: T, order: O, scope: S) -> u32 {
    let mut seen = atomics::load(p as *const T, Relaxed, scope);
    let mut failures = 0;
    while x > seen {
        match compare_exchange(p, seen, x, order, scope) {
            Ok(_) => break,
            Err(now) => {
                seen = now;
                failures += 1;
            }
        }
    }
    failures
}

/// Maximum by compare-and-swap loops (PTX has no floating-point `atom.max`): for `g < n`,
/// `max_f` (`f32`, Relaxed, Gpu) and `max_d` (`f64`, AcqRel, Sys) take `f[g]` and `d[g]`;
/// `max_u` (`u64`, Acquire, Gpu) takes `u[g]`; `failures[g]` counts the failed swaps.
#[kernel]
pub fn atomic_cas_max(
    f: *const f32,
    d: *const f64,
    u: *const u64,
    max_f: *mut f32,
    max_d: *mut f64,
    max_u: *mut u64,
    failures: *mut u32,
    n: u32,
) {
    let g = global_thread_index_x() as usize;
    if g < n as usize {
        let a = cas_max(max_f, *f.add(g), Relaxed, Gpu);
        let b = cas_max(max_d, *d.add(g), AcqRel, Sys);
        let c = cas_max(max_u, *u.add(g), Acquire, Gpu);
        *failures.add(g) = a + b + c;
    }
}

/// Spins of a bounded wait before it gives up (a failed check rather than a hung GPU).
const SPIN_LIMIT: u32 = 1 << 22;

/// A spin lock built on `compare_exchange` (Acquire, Gpu) and `store` (Release, Gpu): lane 0
/// of every warp takes `lock` (0 free, 1 taken), adds `vals[w]` (`w`: the warp's index in the
/// grid) to `data[0]` and 1 to `data[1]` with *plain* loads and stores, and frees the lock.
/// `status[w]` is 1 when the warp got the lock, 0 if it gave up after [`SPIN_LIMIT`] tries.
#[kernel]
pub fn atomic_spin_lock(lock: *mut u32, data: *mut u64, vals: *const u64, status: *mut u32) {
    if lane_id() != 0 {
        return;
    }
    let warps_per_block = block_dim_x().div_ceil(32);
    let w = (block_idx_x() * warps_per_block + warp_id()) as usize;
    let mut tries = 0;
    let mut got = false;
    while tries < SPIN_LIMIT {
        if compare_exchange(lock, 0u32, 1u32, Acquire, Gpu).is_ok() {
            got = true;
            break;
        }
        tries += 1;
    }
    if got {
        *data = (*data).wrapping_add(*vals.add(w));
        *data.add(1) += 1;
        atomics::store(lock, 0u32, Release, Gpu);
    }
    *status.add(w) = got as u32;
}

/// Elements of the message in `atomic_message_passing`.
pub const MESSAGE_WORDS: u32 = 16384;

/// Message passing between blocks. The last block (256 threads) is the producer, the others
/// the consumers (`grid_dim - 1` of them, all resident at once). `mode` picks the pattern:
/// 0 `store(flag, 1, Release, Gpu)` / `load(flag, Acquire, Gpu)`; 1 `fence(AcqRel, Gpu)` +
/// relaxed store / relaxed load + `fence(AcqRel, Gpu)`; 2 the same with `fence(SeqCst, Sys)`
/// and scope `Sys`.
///
/// - Consumers first read the whole message with `.ca` loads (pulling its poisoned lines into
///   their L1; each thread stores the xor of the words it read to `pre[c * blockDim + t]`),
///   then thread 0 increments `ready` (Relaxed, Gpu) and waits for `flag`; after a
///   block barrier every thread reads the message with plain loads into
///   `out[c * MESSAGE_WORDS ..]` (`c` the consumer's block index). A missing acquire shows as
///   stale (poisoned) words.
/// - The producer waits until `ready` counts every consumer, writes `data[i] = src[i]` with
///   plain stores, passes a block barrier and thread 0 publishes `flag = 1`.
///
/// `status[b]` (thread 0 of each block): 1 done, 2 gave up waiting (after [`SPIN_LIMIT`] polls).
#[kernel]
pub fn atomic_message_passing(
    src: *const u32,
    data: *mut u32,
    flag: *mut u32,
    ready: *mut u32,
    out: *mut u32,
    pre: *mut u32,
    status: *mut u32,
    mode: u32,
) {
    let gave_up = shared_array!(ATOMICS_MP_GAVE_UP: [u32; 1]);
    let (t, b, threads) = (thread_idx_x(), block_idx_x(), block_dim_x());
    let consumers = grid_dim_x() - 1;
    if t == 0 {
        gave_up.write(0, 0);
    }
    sync_threads();
    if b == consumers {
        // The producer.
        if t == 0 {
            let mut polls = 0;
            while atomics::load(ready as *const u32, Relaxed, Gpu) < consumers {
                polls += 1;
                if polls == SPIN_LIMIT {
                    gave_up.write(0, 1);
                    break;
                }
            }
        }
        sync_threads();
        let mut i = t;
        while i < MESSAGE_WORDS {
            *data.add(i as usize) = *src.add(i as usize);
            i += threads;
        }
        sync_threads();
        if t == 0 {
            match mode {
                0 => atomics::store(flag, 1u32, Release, Gpu),
                1 => {
                    fence(AcqRel, Gpu);
                    atomics::store(flag, 1u32, Relaxed, Gpu);
                }
                _ => {
                    fence(SeqCst, Sys);
                    atomics::store(flag, 1u32, Relaxed, Sys);
                }
            }
        }
    } else {
        // A consumer: pull the (poisoned) message into L1 first.
        let mut stale = 0u32;
        let mut i = t;
        while i < MESSAGE_WORDS {
            stale ^= memory::load(data.add(i as usize) as *const u32, memory::Ca);
            i += threads;
        }
        // Stored, so that the loads are not removed as dead code (by ptxas).
        *pre.add((b * threads + t) as usize) = stale;
        sync_threads();
        if t == 0 {
            fetch_add(ready, 1u32, Relaxed, Gpu);
            let mut polls = 0;
            loop {
                let seen = match mode {
                    0 => atomics::load(flag as *const u32, Acquire, Gpu),
                    1 => {
                        let v = atomics::load(flag as *const u32, Relaxed, Gpu);
                        fence(AcqRel, Gpu);
                        v
                    }
                    _ => {
                        let v = atomics::load(flag as *const u32, Relaxed, Sys);
                        fence(SeqCst, Sys);
                        v
                    }
                };
                if seen != 0 {
                    break;
                }
                polls += 1;
                if polls == SPIN_LIMIT {
                    gave_up.write(0, 1);
                    break;
                }
            }
        }
        sync_threads();
        let mut i = t;
        while i < MESSAGE_WORDS {
            *out.add((b * MESSAGE_WORDS + i) as usize) = *data.add(i as usize);
            i += threads;
        }
    }
    if t == 0 {
        *status.add(b as usize) = if gave_up.read(0) != 0 { 2 } else { 1 };
    }
}

/// Words per thread of `atomic_load_store`'s outputs.
pub const LOAD_STORE_WORDS: usize = 16;

/// Strong loads and stores of every order and scope, and every fence. Thread `g` stores
/// `v32[g] + k` (`u32`) into `out32[g*16 + k]` and `v64[g] + k` (`f64`, as bits) into
/// `out64[g*16 + k]` for `k < 8`, store `k` being (Relaxed, Release) x (Cta, Cluster, Gpu, Sys)
/// (`k = order * 4 + scope`), runs the 8 fences, then loads slot `k` back with load `k`
/// ((Relaxed, Acquire) x the scopes) and writes it plainly to slot `8 + k`.
#[kernel]
pub fn atomic_load_store(v32: *const u32, v64: *const f64, out32: *mut u32, out64: *mut f64) {
    let g = global_thread_index_x() as usize;
    let (a, d) = (*v32.add(g), *v64.add(g));
    let o32 = out32.add(g * LOAD_STORE_WORDS);
    let o64 = out64.add(g * LOAD_STORE_WORDS);
    atomics::store(o32, a, Relaxed, Cta);
    atomics::store(o32.add(1), a.wrapping_add(1), Relaxed, Cluster);
    atomics::store(o32.add(2), a.wrapping_add(2), Relaxed, Gpu);
    atomics::store(o32.add(3), a.wrapping_add(3), Relaxed, Sys);
    atomics::store(o32.add(4), a.wrapping_add(4), Release, Cta);
    atomics::store(o32.add(5), a.wrapping_add(5), Release, Cluster);
    atomics::store(o32.add(6), a.wrapping_add(6), Release, Gpu);
    atomics::store(o32.add(7), a.wrapping_add(7), Release, Sys);
    atomics::store(o64, d, Relaxed, Cta);
    atomics::store(o64.add(1), d + 1.0, Relaxed, Cluster);
    atomics::store(o64.add(2), d + 2.0, Relaxed, Gpu);
    atomics::store(o64.add(3), d + 3.0, Relaxed, Sys);
    atomics::store(o64.add(4), d + 4.0, Release, Cta);
    atomics::store(o64.add(5), d + 5.0, Release, Cluster);
    atomics::store(o64.add(6), d + 6.0, Release, Gpu);
    atomics::store(o64.add(7), d + 7.0, Release, Sys);
    fence(AcqRel, Cta);
    fence(AcqRel, Cluster);
    fence(AcqRel, Gpu);
    fence(AcqRel, Sys);
    fence(SeqCst, Cta);
    fence(SeqCst, Cluster);
    fence(SeqCst, Gpu);
    fence(SeqCst, Sys);
    *o32.add(8) = atomics::load(o32 as *const u32, Relaxed, Cta);
    *o32.add(9) = atomics::load(o32.add(1) as *const u32, Relaxed, Cluster);
    *o32.add(10) = atomics::load(o32.add(2) as *const u32, Relaxed, Gpu);
    *o32.add(11) = atomics::load(o32.add(3) as *const u32, Relaxed, Sys);
    *o32.add(12) = atomics::load(o32.add(4) as *const u32, Acquire, Cta);
    *o32.add(13) = atomics::load(o32.add(5) as *const u32, Acquire, Cluster);
    *o32.add(14) = atomics::load(o32.add(6) as *const u32, Acquire, Gpu);
    *o32.add(15) = atomics::load(o32.add(7) as *const u32, Acquire, Sys);
    *o64.add(8) = atomics::load(o64 as *const f64, Relaxed, Cta);
    *o64.add(9) = atomics::load(o64.add(1) as *const f64, Relaxed, Cluster);
    *o64.add(10) = atomics::load(o64.add(2) as *const f64, Relaxed, Gpu);
    *o64.add(11) = atomics::load(o64.add(3) as *const f64, Relaxed, Sys);
    *o64.add(12) = atomics::load(o64.add(4) as *const f64, Acquire, Cta);
    *o64.add(13) = atomics::load(o64.add(5) as *const f64, Acquire, Cluster);
    *o64.add(14) = atomics::load(o64.add(6) as *const f64, Acquire, Gpu);
    *o64.add(15) = atomics::load(o64.add(7) as *const f64, Acquire, Sys);
}
