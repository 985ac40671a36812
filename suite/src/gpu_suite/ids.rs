//! GPU checks: thread, block, grid, lane, warp and cluster ids (kernel `ids_report` in
//! `tests/kernels/src/checks/ids.rs`), on random 3-D grid and block shapes and on a 1-D launch with a
//! partial last warp. Every thread writes a record of what the primitives return; each record is
//! compared with the CPU's value of every field.
//!
//! This file also holds the small helpers the device-primitive checks (`ids`, `sync`, `shared`,
//! `warp`, `memory`, `atomics`) share: [`launch!`], [`compare`], [`compare_words`], random `u64`
//! and `f64` data.

use std::fmt::Debug;

use cute_rs_host::{Gpu, LaunchConfig, Module};

use super::{fail, fresh_seed, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "ids/random_3d_shape", run: random_3d_shape },
        Check { name: "ids/linear_partial_warp", run: linear_partial_warp },
    ]
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the device-primitive checks
// ---------------------------------------------------------------------------------------------

/// `launch!(gpu, module, test_kernels::path::kernel, cfg, arg, ...)`: launches the kernel (its
/// `KernelFn` constant) with the arguments (one per parameter, typed as [`Gpu::launch`] takes
/// them) and waits for it; errors name the kernel (a trap or a fault shows at the
/// synchronization).
macro_rules! launch {
    ($gpu:expr, $module:expr, $k:expr, $cfg:expr $(, $arg:expr)* $(,)?) => {{
        let kernel = $k;
        let name: &str = kernel.name();
        // SAFETY: the argument types are checked against the kernel's parameters at compile time;
        // the caller passes buffers as large as the kernel's documentation requires for the launch
        // configuration.
        unsafe { $gpu.launch($module, kernel, $cfg, ($($arg,)*)).run() }
            .map_err(|e| format!("launch of {name}: {e}"))?;
        $gpu.synchronize().map_err(|e| format!("{name} failed: {e}"))?;
    }};
}
pub(super) use launch;

/// Compares `got` with `want` exactly; the error gives how many elements differ and, for the
/// first, `at(index)` (where it is), the value got and the value expected.
pub(super) fn compare<T: PartialEq + Debug>(
    what: &str,
    got: &[T],
    want: &[T],
    at: impl Fn(usize) -> String,
) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements instead of {}", got.len(), want.len()));
    }
    let mut bad = (0..got.len()).filter(|&i| got[i] != want[i]);
    match bad.next() {
        None => Ok(()),
        Some(i) => Err(format!(
            "{what}: {} of {} elements differ; first at index {i} ({}): got {:?}, expected {:?}",
            1 + bad.count(),
            got.len(),
            at(i),
            got[i],
            want[i]
        )),
    }
}

/// [`compare`] for 32-bit words, shown in hex (the poison `0xffffffff` stands out).
pub(super) fn compare_words(what: &str, got: &[u32], want: &[u32], at: impl Fn(usize) -> String) -> Result<(), String> {
    let hex = |v: &[u32]| v.iter().map(|w| Hex(*w as u64)).collect::<Vec<_>>();
    compare(what, &hex(got), &hex(want), at)
}

/// [`compare`] for 64-bit words, shown in hex.
pub(super) fn compare_words64(what: &str, got: &[u64], want: &[u64], at: impl Fn(usize) -> String) -> Result<(), String> {
    let hex = |v: &[u64]| v.iter().map(|w| Hex(*w)).collect::<Vec<_>>();
    compare(what, &hex(got), &hex(want), at)
}

/// A word printed in hex by `Debug`.
#[derive(PartialEq)]
struct Hex(u64);

impl Debug for Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// Deterministic pseudo-random `u64`s (two [`random_u32`] streams).
pub(super) fn random_u64(seed: u64, n: usize) -> Vec<u64> {
    let hi = random_u32(seed, n);
    let lo = random_u32(seed ^ 0x5DEE_CE66_D1CE_4E5B, n);
    hi.iter().zip(&lo).map(|(&h, &l)| (h as u64) << 32 | l as u64).collect()
}

/// Random `f64`s in `[-1, 1)`.
pub(super) fn random_f64(seed: u64, n: usize) -> Vec<f64> {
    random_u64(seed, n).into_iter().map(|v| (v >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0).collect()
}

/// Appends the seed to a check's error, so that a failure can be replayed.
pub(super) fn with_seed(seed: u64, result: Result<(), String>) -> Result<(), String> {
    result.map_err(|e| format!("{e} [seed {seed}]"))
}

// ---------------------------------------------------------------------------------------------
// ids
// ---------------------------------------------------------------------------------------------

/// `test_kernels::checks::ids::IDS_RECORD_WORDS`.
const RECORD_WORDS: usize = 36;

/// Names of the record's words, in the kernel's order.
const FIELDS: [&str; RECORD_WORDS] = [
    "thread_idx.x", "thread_idx.y", "thread_idx.z", "block_dim.x", "block_dim.y", "block_dim.z",
    "block_idx.x", "block_idx.y", "block_idx.z", "grid_dim.x", "grid_dim.y", "grid_dim.z",
    "lane_id", "warp_id", "linear_thread_idx", "block_size", "warps_per_block", "linear_block_idx",
    "cluster_idx.x", "cluster_idx.y", "cluster_idx.z", "cluster_grid_dim.x", "cluster_grid_dim.y",
    "cluster_grid_dim.z", "block_idx_in_cluster.x", "block_idx_in_cluster.y", "block_idx_in_cluster.z",
    "cluster_dim.x", "cluster_dim.y", "cluster_dim.z", "block_rank_in_cluster", "cluster_size",
    "global_thread_index_x (low)", "global_thread_index_x (high)", "Dim3 functions agree", "WARP_SIZE",
];

/// Runs `ids_report` on `grid` x `block` and compares every record with the CPU's.
fn check_shape(gpu: &Gpu, module: &Module, grid: (u32, u32, u32), block: (u32, u32, u32)) -> Result<(), String> {
    let (gx, gy, gz) = grid;
    let (bx, by, bz) = block;
    let block_size = bx * by * bz;
    let blocks = gx * gy * gz;
    let threads = (blocks * block_size) as usize;
    let mut want = vec![0u32; threads * RECORD_WORDS];
    for (kz, ky, kx) in (0..gz).flat_map(|z| (0..gy).flat_map(move |y| (0..gx).map(move |x| (z, y, x)))) {
        let linear_block = kx + gx * (ky + gy * kz);
        for (tz, ty, tx) in (0..bz).flat_map(|z| (0..by).flat_map(move |y| (0..bx).map(move |x| (z, y, x)))) {
            let t = tx + bx * (ty + by * tz);
            let global_x = tx as u64 + kx as u64 * bx as u64;
            let record: [u32; RECORD_WORDS] = [
                tx, ty, tz, bx, by, bz, kx, ky, kz, gx, gy, gz,
                t % 32, t / 32, t, block_size, block_size.div_ceil(32), linear_block,
                kx, ky, kz, gx, gy, gz, // 1x1x1 clusters: cluster ids are block ids
                0, 0, 0, 1, 1, 1, 0, 1,
                global_x as u32, (global_x >> 32) as u32, 1, 32,
            ];
            let at = (linear_block * block_size + t) as usize * RECORD_WORDS;
            want[at..at + RECORD_WORDS].copy_from_slice(&record);
        }
    }
    let mut out = gpu.alloc::<u32>(want.len()).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid, block, shared_mem_bytes: 0 };
    launch!(gpu, module, test_kernels::checks::ids::ids_report, cfg, &mut out);
    let got = gpu.download(&out).map_err(fail("download"))?;
    compare(&format!("ids_report on grid {grid:?}, block {block:?}"), &got, &want, |i| {
        let (thread, field) = (i / RECORD_WORDS, i % RECORD_WORDS);
        let (b, t) = (thread as u32 / block_size, thread as u32 % block_size);
        let block_at = (b % gx, b / gx % gy, b / (gx * gy));
        let thread_at = (t % bx, t / bx % by, t / (bx * by));
        format!("block {block_at:?}, thread {thread_at:?}, field `{}`", FIELDS[field])
    })
}

/// A random 3-D block (up to 1024 threads, usually not a multiple of 32) in a random 3-D grid.
fn random_3d_shape(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    let r = random_u32(seed, 6);
    let bx = 1 + r[0] % 64;
    let by = 1 + r[1] % 8;
    let bz = 1 + r[2] % (1024 / (bx * by)).min(4);
    let grid = (1 + r[3] % 5, 1 + r[4] % 3, 1 + r[5] % 3);
    with_seed(seed, check_shape(gpu, module, grid, (bx, by, bz)))
}

/// A 1-D launch whose blocks end with a partial warp, and a large block.
fn linear_partial_warp(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    let r = random_u32(seed, 2);
    let threads = 33 + r[0] % 200;
    let blocks = 2 + r[1] % 40;
    with_seed(seed, check_shape(gpu, module, (blocks, 1, 1), (threads, 1, 1)))?;
    check_shape(gpu, module, (3, 1, 1), (1024, 1, 1))
}
