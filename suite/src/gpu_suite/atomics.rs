//! GPU checks: atomics, strong loads and stores, fences (kernels in
//! `tests/kernels/src/checks/atomics.rs`):
//!
//! - `atomics/histogram`: `fetch_add` histogram (u32, and u64 weights) equals the CPU's count from
//!   random initial bins, and the values `fetch_add` returned in each bin are exactly
//!   `init, init + 1, ..., init + count - 1`;
//! - `atomics/rmw_{u32,i32,u64,i64}`: add/min/max/and/or/xor with every order, grid-wide slots at
//!   scope Gpu/Sys and per-block slots at scope Cta/Cluster, from random initial values; slots no
//!   operation touches must stay as they were;
//! - `atomics/add_{f32,f64}`: floating-point `fetch_add` of quarter-integers (exact in any order);
//! - `atomics/exchange`: `swap` (u64, f32): the returned values and the final cell are exactly the
//!   initial value and every value stored;
//! - `atomics/cas_max`: maxima by `compare_exchange` loops (f32, f64, u64);
//! - `atomics/spin_lock`: a lock from `compare_exchange` (Acquire) and `store` (Release) protects
//!   plain read-modify-writes of two counters by 512 warps;
//! - `atomics/message_passing_{release_acquire,fences,sc_fences_sys}`: a producer block publishes
//!   16384 words to 7 consumer blocks, which had pulled the poisoned words into their L1 before:
//!   every consumer must see every word;
//! - `atomics/load_store`: every order and scope of `load`/`store` and every fence round-trip
//!   values exactly.

use std::collections::HashMap;

use cute_rs_host::{DeviceElem, Gpu, KernelFn, LaunchConfig, Module};
use test_kernels::checks::atomics as k;

use super::ids::{compare, compare_words, compare_words64, launch, random_f64, random_u64, with_seed};
use super::{fail, fresh_seed, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "atomics/histogram", run: histogram },
        Check { name: "atomics/rmw_u32", run: |g, m| rmw::<u32>(g, m, k::atomic_rmw_u32) },
        Check { name: "atomics/rmw_i32", run: |g, m| rmw::<i32>(g, m, k::atomic_rmw_i32) },
        Check { name: "atomics/rmw_u64", run: |g, m| rmw::<u64>(g, m, k::atomic_rmw_u64) },
        Check { name: "atomics/rmw_i64", run: |g, m| rmw::<i64>(g, m, k::atomic_rmw_i64) },
        Check { name: "atomics/add_f32", run: |g, m| add_float::<f32>(g, m, k::atomic_add_f32) },
        Check { name: "atomics/add_f64", run: |g, m| add_float::<f64>(g, m, k::atomic_add_f64) },
        Check { name: "atomics/exchange", run: exchange },
        Check { name: "atomics/cas_max", run: cas_max },
        Check { name: "atomics/spin_lock", run: spin_lock },
        Check { name: "atomics/message_passing_release_acquire", run: |g, m| message_passing(g, m, 0) },
        Check { name: "atomics/message_passing_fences", run: |g, m| message_passing(g, m, 1) },
        Check { name: "atomics/message_passing_sc_fences_sys", run: |g, m| message_passing(g, m, 2) },
        Check { name: "atomics/load_store", run: load_store },
    ]
}

const THREADS: u32 = 256;

fn blocks_for(n: usize) -> u32 {
    n.div_ceil(THREADS as usize) as u32
}

fn histogram(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, histogram_with(gpu, module, seed))
}

fn histogram_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let r = random_u32(seed, 2);
    let n = 60_000 + r[0] as usize % 10_000;
    let bin_count = 1 + r[1] as usize % 97;
    let bins: Vec<u32> = random_u32(seed ^ 11, n).into_iter().map(|v| v % bin_count as u32).collect();
    let weights = random_u64(seed ^ 12, n);
    let init = random_u32(seed ^ 13, bin_count);
    let init64 = random_u64(seed ^ 14, bin_count);
    let mut want = init.clone();
    let mut want64 = init64.clone();
    for (b, w) in bins.iter().zip(&weights) {
        want[*b as usize] = want[*b as usize].wrapping_add(1);
        want64[*b as usize] = want64[*b as usize].wrapping_add(*w);
    }
    let d_bins = gpu.upload(&bins).map_err(fail("upload"))?;
    let d_weights = gpu.upload(&weights).map_err(fail("upload"))?;
    let mut hist = gpu.upload(&init).map_err(fail("upload"))?;
    let mut hist64 = gpu.upload(&init64).map_err(fail("upload"))?;
    let mut olds = gpu.alloc::<u32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut olds, 0xff).map_err(fail("poison"))?;
    let n_arg = n as u32;
    launch!(
        gpu, module, k::atomic_histogram, LaunchConfig::linear(blocks_for(n), THREADS),
        &d_bins, &d_weights, &mut hist, &mut hist64, &mut olds, n_arg
    );
    let what = format!("atomic_histogram ({n} values in {bin_count} bins)");
    let got = gpu.download(&hist).map_err(fail("download"))?;
    compare_words(&format!("{what}: u32 counts (fetch_add Relaxed Gpu)"), &got, &want, |b| {
        format!("bin {b}, initial {:#x}", init[b])
    })?;
    let got64 = gpu.download(&hist64).map_err(fail("download"))?;
    compare_words64(&format!("{what}: u64 weight sums (fetch_add AcqRel Sys)"), &got64, &want64, |b| {
        format!("bin {b}, initial {:#x}", init64[b])
    })?;
    let olds = gpu.download(&olds).map_err(fail("download"))?;
    let mut per_bin: Vec<Vec<u32>> = vec![Vec::new(); bin_count];
    for (g, &b) in bins.iter().enumerate() {
        per_bin[b as usize].push(olds[g].wrapping_sub(init[b as usize]));
    }
    for (b, mut seen) in per_bin.into_iter().enumerate() {
        seen.sort_unstable();
        let expected: Vec<u32> = (0..seen.len() as u32).collect();
        compare(&format!("{what}: values returned by fetch_add in bin {b}, minus the initial value, sorted"), &seen, &expected, |i| {
            format!("rank {i}")
        })?;
    }
    Ok(())
}

/// Integer types of the `atomic_rmw_*` kernels, with the CPU's operations.
trait RmwInt: DeviceElem + PartialEq + Ord + std::fmt::Debug {
    fn from_random(v: u64) -> Self;
    fn add(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
}

macro_rules! rmw_int {
    ($($t:ty),*) => {$(
        impl RmwInt for $t {
            fn from_random(v: u64) -> Self { v as $t }
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
        }
    )*};
}
rmw_int!(u32, i32, u64, i64);

/// `test_kernels::checks::atomics::RMW_BLOCK_SLOTS`.
const RMW_SLOTS: usize = 8;

/// An `atomic_rmw_*` kernel: `(vals, acc, n)`.
type RmwKernel<T> = KernelFn<(*const T, *mut T, u32)>;

fn rmw<T: RmwInt>(gpu: &Gpu, module: &Module, kernel: RmwKernel<T>) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, rmw_with::<T>(gpu, module, kernel, seed))
}

fn rmw_with<T: RmwInt>(gpu: &Gpu, module: &Module, kernel: RmwKernel<T>, seed: u64) -> Result<(), String> {
    let n = 40_000 + random_u32(seed, 1)[0] as usize % 20_000;
    let blocks = blocks_for(n) as usize;
    let vals: Vec<T> = random_u64(seed ^ 15, n).into_iter().map(T::from_random).collect();
    let init: Vec<T> = random_u64(seed ^ 16, RMW_SLOTS * (blocks + 1)).into_iter().map(T::from_random).collect();
    let mut want = init.clone();
    let apply = |slots: &mut [T], v: T| {
        slots[0] = slots[0].add(v);
        slots[1] = slots[1].min(v);
        slots[2] = slots[2].max(v);
        slots[3] = slots[3].and(v);
        slots[4] = slots[4].or(v);
        slots[5] = slots[5].xor(v);
    };
    for (g, &v) in vals.iter().enumerate() {
        apply(&mut want[..RMW_SLOTS], v);
        let b = g / THREADS as usize;
        apply(&mut want[RMW_SLOTS * (b + 1)..RMW_SLOTS * (b + 2)], v);
    }
    let d_vals = gpu.upload(&vals).map_err(fail("upload"))?;
    let mut acc = gpu.upload(&init).map_err(fail("upload"))?;
    let n_arg = n as u32;
    launch!(gpu, module, kernel, LaunchConfig::linear(blocks as u32, THREADS), &d_vals, &mut acc, n_arg);
    let got = gpu.download(&acc).map_err(fail("download"))?;
    const GRID: [&str; 8] = [
        "fetch_add Relaxed Gpu", "fetch_min Acquire Gpu", "fetch_max Release Sys", "fetch_and AcqRel Gpu",
        "fetch_or Relaxed Sys", "fetch_xor AcqRel Sys", "untouched", "untouched",
    ];
    const BLOCK: [&str; 8] = [
        "fetch_add Relaxed Cta", "fetch_min Acquire Cluster", "fetch_max AcqRel Cta", "fetch_and Release Cluster",
        "fetch_or Relaxed Cta", "fetch_xor Acquire Cta", "untouched", "untouched",
    ];
    compare(&format!("{} ({n} values)", kernel.name()), &got, &want, |i| {
        let (group, slot) = (i / RMW_SLOTS, i % RMW_SLOTS);
        if group == 0 {
            format!("grid-wide slot {slot}: {}, initial {:?}", GRID[slot], init[i])
        } else {
            format!("block {}'s slot {slot}: {}, initial {:?}", group - 1, BLOCK[slot], init[i])
        }
    })
}

/// Floating-point types of the `atomic_add_*` kernels.
trait AddFloat: DeviceElem + std::ops::Add<Output = Self> + std::fmt::Debug {
    fn quarter(k: i32) -> Self;
    fn bits(self) -> u64;
}
impl AddFloat for f32 {
    fn quarter(k: i32) -> Self {
        k as f32 * 0.25
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}
impl AddFloat for f64 {
    fn quarter(k: i32) -> Self {
        k as f64 * 0.25
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// An `atomic_add_*` kernel: `(vals, acc, n)`.
type AddKernel<T> = KernelFn<(*const T, *mut T, u32)>;

fn add_float<T: AddFloat>(gpu: &Gpu, module: &Module, kernel: AddKernel<T>) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, add_float_with::<T>(gpu, module, kernel, seed))
}

fn add_float_with<T: AddFloat>(gpu: &Gpu, module: &Module, kernel: AddKernel<T>, seed: u64) -> Result<(), String> {
    let n = 50_000 + random_u32(seed, 1)[0] as usize % 10_000;
    let blocks = blocks_for(n) as usize;
    // Quarter-integers in [-16, 16]: every partial sum is below 2^20 in magnitude, a multiple of 1/4,
    // hence exact in f32 (24-bit significand) whatever the order of the additions.
    let vals: Vec<T> = random_u32(seed ^ 17, n).into_iter().map(|v| T::quarter((v % 129) as i32 - 64)).collect();
    let init: Vec<T> = random_u32(seed ^ 18, 2 * (blocks + 1)).into_iter().map(|v| T::quarter((v % 41) as i32 - 20)).collect();
    let mut want = init.clone();
    for (g, &v) in vals.iter().enumerate() {
        let b = g / THREADS as usize;
        want[0] = want[0] + v;
        want[1] = want[1] + v;
        want[2 * (b + 1)] = want[2 * (b + 1)] + v;
        want[2 * (b + 1) + 1] = want[2 * (b + 1) + 1] + v;
    }
    let d_vals = gpu.upload(&vals).map_err(fail("upload"))?;
    let mut acc = gpu.upload(&init).map_err(fail("upload"))?;
    let n_arg = n as u32;
    launch!(gpu, module, kernel, LaunchConfig::linear(blocks as u32, THREADS), &d_vals, &mut acc, n_arg);
    let got = gpu.download(&acc).map_err(fail("download"))?;
    let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
    compare_words64(&format!("{} ({n} quarter-integers, sums as bits)", kernel.name()), &bits(&got), &bits(&want), |i| {
        let what = ["fetch_add Relaxed Gpu", "fetch_add AcqRel Sys", "fetch_add Relaxed Cta", "fetch_add Release Cluster"];
        if i < 2 {
            format!("grid-wide sum {}: {:?} instead of {:?}", what[i], got[i], want[i])
        } else {
            format!("block {}'s sum {}: {:?} instead of {:?}", i / 2 - 1, what[2 + i % 2], got[i], want[i])
        }
    })
}

fn exchange(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, exchange_with(gpu, module, seed))
}

fn exchange_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let n = 30_000 + random_u32(seed, 1)[0] as usize % 10_000;
    let init = random_u64(seed ^ 19, 1)[0] | 1 << 63;
    let init_f = -1.5f32;
    let mut cell = gpu.upload(&[init]).map_err(fail("upload"))?;
    let mut cell_f = gpu.upload(&[init_f]).map_err(fail("upload"))?;
    let mut olds = gpu.alloc::<u64>(n).map_err(fail("alloc"))?;
    let mut olds_f = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut olds, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut olds_f, 0xff).map_err(fail("poison"))?;
    let n_arg = n as u32;
    launch!(
        gpu, module, k::atomic_exchange, LaunchConfig::linear(blocks_for(n), THREADS),
        &mut cell, &mut olds, &mut cell_f, &mut olds_f, n_arg
    );
    // u64: the returned values plus the final cell are the initial value plus every stored g + 1.
    let mut seen = gpu.download(&olds).map_err(fail("download"))?;
    seen.extend(gpu.download(&cell).map_err(fail("download"))?);
    seen.sort_unstable();
    let mut want: Vec<u64> = (1..=n as u64).collect();
    want.push(init);
    compare_words64("atomic_exchange: u64 values returned by swap (AcqRel Gpu) and the final cell, sorted", &seen, &want, |i| {
        format!("rank {i}")
    })?;
    let mut seen_f: Vec<u32> = gpu.download(&olds_f).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    seen_f.extend(gpu.download(&cell_f).map_err(fail("download"))?.iter().map(|v| v.to_bits()));
    let mut want_f: Vec<u32> = (0..n).map(|g| (g as f32 + 0.5).to_bits()).collect();
    want_f.push(init_f.to_bits());
    seen_f.sort_unstable();
    want_f.sort_unstable();
    compare_words("atomic_exchange: f32 values returned by swap (Relaxed Sys) and the final cell, as sorted bits", &seen_f, &want_f, |i| {
        format!("rank {i}")
    })
}

fn cas_max(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, cas_max_with(gpu, module, seed))
}

fn cas_max_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let n = 20_000 + random_u32(seed, 1)[0] as usize % 10_000;
    let f = super::random_f32(seed ^ 20, n);
    let d = random_f64(seed ^ 21, n);
    let u = random_u64(seed ^ 22, n);
    let init_u = random_u64(seed ^ 23, 1)[0] >> 1;
    let want_f = f.iter().fold(-2.0f32, |m, &x| if x > m { x } else { m });
    let want_d = d.iter().fold(-2.0f64, |m, &x| if x > m { x } else { m });
    let want_u = u.iter().fold(init_u, |m, &x| m.max(x));
    let d_f = gpu.upload(&f).map_err(fail("upload"))?;
    let d_d = gpu.upload(&d).map_err(fail("upload"))?;
    let d_u = gpu.upload(&u).map_err(fail("upload"))?;
    let mut max_f = gpu.upload(&[-2.0f32]).map_err(fail("upload"))?;
    let mut max_d = gpu.upload(&[-2.0f64]).map_err(fail("upload"))?;
    let mut max_u = gpu.upload(&[init_u]).map_err(fail("upload"))?;
    let mut failures = gpu.alloc::<u32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut failures, 0xff).map_err(fail("poison"))?;
    let n_arg = n as u32;
    launch!(
        gpu, module, k::atomic_cas_max, LaunchConfig::linear(blocks_for(n), THREADS),
        &d_f, &d_d, &d_u, &mut max_f, &mut max_d, &mut max_u, &mut failures, n_arg
    );
    let got_f = gpu.download(&max_f).map_err(fail("download"))?[0];
    let got_d = gpu.download(&max_d).map_err(fail("download"))?[0];
    let got_u = gpu.download(&max_u).map_err(fail("download"))?[0];
    let failures = gpu.download(&failures).map_err(fail("download"))?;
    if got_f.to_bits() != want_f.to_bits() || got_d.to_bits() != want_d.to_bits() || got_u != want_u {
        return Err(format!(
            "atomic_cas_max ({n} values): got max f32 {got_f:e} (Relaxed Gpu), f64 {got_d:e} (AcqRel Sys), \
             u64 {got_u:#x} (Acquire Gpu); expected {want_f:e}, {want_d:e}, {want_u:#x}"
        ));
    }
    if let Some(g) = failures.iter().position(|&c| c == u32::MAX) {
        return Err(format!("atomic_cas_max: thread {g} never wrote its failure count (still the poison)"));
    }
    Ok(())
}

fn spin_lock(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, spin_lock_with(gpu, module, seed))
}

fn spin_lock_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let (blocks, warps_per_block) = (64u32, THREADS / 32);
    let warps = (blocks * warps_per_block) as usize;
    let vals: Vec<u64> = random_u64(seed, warps).into_iter().map(|v| v >> 16).collect();
    let init: Vec<u64> = random_u64(seed ^ 24, 2).into_iter().map(|v| v >> 4).collect();
    let want = [
        vals.iter().fold(init[0], |s, &v| s.wrapping_add(v)),
        init[1] + warps as u64,
    ];
    let mut lock = gpu.upload(&[0u32]).map_err(fail("upload"))?;
    let mut data = gpu.upload(&init).map_err(fail("upload"))?;
    let d_vals = gpu.upload(&vals).map_err(fail("upload"))?;
    let mut status = gpu.alloc::<u32>(warps).map_err(fail("alloc"))?;
    gpu.memset(&mut status, 0xff).map_err(fail("poison"))?;
    launch!(
        gpu, module, k::atomic_spin_lock, LaunchConfig::linear(blocks, THREADS),
        &mut lock, &mut data, &d_vals, &mut status
    );
    let status = gpu.download(&status).map_err(fail("download"))?;
    compare_words("atomic_spin_lock: per-warp status (1 = got the lock)", &status, &vec![1; warps], |w| format!("warp {w}"))?;
    let got = gpu.download(&data).map_err(fail("download"))?;
    compare_words64(
        &format!("atomic_spin_lock: counters updated under the lock by {warps} warps [sum of values, count]"),
        &got,
        &want,
        |i| format!("counter {i}, initial {:#x}", init[i]),
    )?;
    let lock = gpu.download(&lock).map_err(fail("download"))?;
    if lock[0] != 0 {
        return Err(format!("atomic_spin_lock: the lock was left at {} (not released)", lock[0]));
    }
    Ok(())
}

/// `test_kernels::checks::atomics::MESSAGE_WORDS`.
const MESSAGE_WORDS: usize = 16384;

fn message_passing(gpu: &Gpu, module: &Module, mode: u32) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, message_passing_with(gpu, module, mode, seed))
}

fn message_passing_with(gpu: &Gpu, module: &Module, mode: u32, seed: u64) -> Result<(), String> {
    let consumers = 7usize;
    let pattern = [
        "store Release Gpu / load Acquire Gpu",
        "fence AcqRel Gpu + relaxed store / relaxed load + fence AcqRel Gpu",
        "fence SeqCst Sys + relaxed store Sys / relaxed load Sys + fence SeqCst Sys",
    ][mode as usize];
    let what = format!("atomic_message_passing ({pattern}, {consumers} consumer blocks)");
    let src = random_u32(seed, MESSAGE_WORDS);
    // The poison must differ from every word of the message for a stale word to show.
    if src.contains(&u32::MAX) {
        return message_passing_with(gpu, module, mode, seed.wrapping_add(1));
    }
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut data = gpu.alloc::<u32>(MESSAGE_WORDS).map_err(fail("alloc"))?;
    gpu.memset(&mut data, 0xff).map_err(fail("poison"))?;
    let mut flag = gpu.upload(&[0u32]).map_err(fail("upload"))?;
    let mut ready = gpu.upload(&[0u32]).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<u32>(consumers * MESSAGE_WORDS).map_err(fail("alloc"))?;
    let mut pre = gpu.alloc::<u32>(consumers * THREADS as usize).map_err(fail("alloc"))?;
    let mut status = gpu.alloc::<u32>(consumers + 1).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut pre, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut status, 0xff).map_err(fail("poison"))?;
    launch!(
        gpu, module, k::atomic_message_passing, LaunchConfig::linear(consumers as u32 + 1, THREADS),
        &d_src, &mut data, &mut flag, &mut ready, &mut out, &mut pre, &mut status, mode
    );
    let status = gpu.download(&status).map_err(fail("download"))?;
    compare_words(&format!("{what}: per-block status (1 done, 2 gave up waiting)"), &status, &vec![1; consumers + 1], |b| {
        if b == consumers { "the producer block".to_string() } else { format!("consumer block {b}") }
    })?;
    // Each consumer thread read MESSAGE_WORDS / THREADS (an even number of) poisoned words before
    // the producer started: their xor is 0.
    let pre = gpu.download(&pre).map_err(fail("download"))?;
    compare_words(
        &format!("{what}: xor of the words each consumer thread read before the flag (the poison: 0)"),
        &pre,
        &vec![0; consumers * THREADS as usize],
        |i| format!("consumer block {}, thread {}", i / THREADS as usize, i % THREADS as usize),
    )?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    let want: Vec<u32> = (0..consumers).flat_map(|_| src.iter().copied()).collect();
    compare_words(&format!("{what}: words the consumers read after the flag (0xffffffff = stale)"), &got, &want, |i| {
        format!("consumer block {}, word {}", i / MESSAGE_WORDS, i % MESSAGE_WORDS)
    })
}

fn load_store(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, load_store_with(gpu, module, seed))
}

fn load_store_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let (blocks, n) = (16u32, 16 * THREADS as usize);
    let v32 = random_u32(seed, n);
    let v64 = random_f64(seed ^ 25, n);
    let want32: Vec<u32> = (0..n * 16).map(|i| v32[i / 16].wrapping_add((i % 8) as u32)).collect();
    let want64: Vec<u64> = (0..n * 16).map(|i| (v64[i / 16] + (i % 8) as f64).to_bits()).collect();
    let d_v32 = gpu.upload(&v32).map_err(fail("upload"))?;
    let d_v64 = gpu.upload(&v64).map_err(fail("upload"))?;
    let mut out32 = gpu.alloc::<u32>(n * 16).map_err(fail("alloc"))?;
    let mut out64 = gpu.alloc::<f64>(n * 16).map_err(fail("alloc"))?;
    gpu.memset(&mut out32, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut out64, 0xff).map_err(fail("poison"))?;
    launch!(
        gpu, module, k::atomic_load_store, LaunchConfig::linear(blocks, THREADS),
        &d_v32, &d_v64, &mut out32, &mut out64
    );
    let names: HashMap<usize, String> = (0..16)
        .map(|k| {
            let scope = ["Cta", "Cluster", "Gpu", "Sys"][k % 4];
            let name = if k < 8 {
                format!("store {} {scope}", ["Relaxed", "Release"][k / 4])
            } else {
                format!("load {} {scope} of slot {}", ["Relaxed", "Acquire"][(k - 8) / 4], k - 8)
            };
            (k, name)
        })
        .collect();
    let got32 = gpu.download(&out32).map_err(fail("download"))?;
    compare_words("atomic_load_store (u32)", &got32, &want32, |i| format!("thread {}, {}", i / 16, names[&(i % 16)]))?;
    let got64: Vec<u64> = gpu.download(&out64).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    compare_words64("atomic_load_store (f64 bits)", &got64, &want64, |i| format!("thread {}, {}", i / 16, names[&(i % 16)]))
}
