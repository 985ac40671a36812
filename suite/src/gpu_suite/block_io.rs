//! GPU checks of the cooperative loads and stores (`cute_rs_tensor::block_io`; kernels in
//! `tests/kernels/src/block_io.rs`, one per case of `tests/kernels/src/block_io_cases.rs`).
//!
//! Each case launches its round-trip kernel over `U` units (blocks, or logical warps) of `U_T`
//! elements with `n = U_T + p` valid elements (`0 < p < U_T`, random): unit 0 has a full tile,
//! unit 1 a partial one (`valid = p`), the others none (`valid = 0`). The registers each thread
//! dumps must be the tile in the method's arrangement (blocked, or striped for `Striped`), with the
//! out-of-bounds value past `n`; the stored output must equal the input below `n` and keep its
//! poison above.
//!
//! Blocks of two and three dimensions (`tests/kernels/src/block_io_nd_cases.rs`: 32x4, 8x12,
//! 12x4, 16x4x2, 8x4x4, 6x4x2) check every method and every call the same way (`run_nd_case`:
//! `load`, `load_guarded`, `load_valid`, `load_from`, `store`, `store_guarded`, aligned and
//! misaligned by one element), threads ranked `x + BX (y + BY z)` as rocPRIM ranks them, and the
//! block exchanges on the same shapes (`check_exchange`).

use cute_rs_host::{DeviceElem, Gpu, KernelFn, KernelParam, LaunchConfig, Module};
use cute_rs_tensor::half::bf16;

use super::{fail, fresh_seed, random_u32, Check};

/// Threads per block of the warp cases: `test_kernels::block_io::WARP_CASE_BLOCK`.
const WARP_CASE_BLOCK: u32 = test_kernels::block_io::WARP_CASE_BLOCK;

/// Host elements of the cases: the device element and how to make test values that compare
/// exactly (no NaN).
trait CaseElem: DeviceElem + KernelParam<Self> + Copy + PartialEq + std::fmt::Debug + 'static {
    fn make(x: u32) -> Self;
}
impl CaseElem for u8 {
    fn make(x: u32) -> u8 {
        x as u8
    }
}
impl CaseElem for u32 {
    fn make(x: u32) -> u32 {
        x
    }
}
impl CaseElem for i32 {
    fn make(x: u32) -> i32 {
        x as i32
    }
}
impl CaseElem for f32 {
    fn make(x: u32) -> f32 {
        (x % 100_000) as f32 / 8.0 - 5000.0
    }
}
impl CaseElem for f64 {
    fn make(x: u32) -> f64 {
        x as f64 / 3.0 - 1e9
    }
}
/// The f32 value truncated to bf16.
impl CaseElem for bf16 {
    fn make(x: u32) -> bf16 {
        bf16::from_bits((f32::make(x).to_bits() >> 16) as u16)
    }
}

/// The host type of a case's element type.
macro_rules! host_ty {
    (half::bf16) => { bf16 };
    ($t:ident) => { $t };
}

/// The signature of every round-trip case kernel: `(input, regs, output, n, oob)`.
type CaseKernel<T> = KernelFn<(*const T, *mut T, *mut T, u32, T)>;

/// The cases' checks, from the same table the kernels are generated from.
macro_rules! block_io_cases {
    ($($name:ident: $kind:ident, $m:ident, $($t:ident)::+, $threads:literal, $items:literal;)*) => {
        fn case_checks() -> Vec<Check> {
            vec![$(Check {
                name: concat!("block_io/", stringify!($name)),
                run: |g, m| run_case::<host_ty!($($t)::+)>(
                    g, m, test_kernels::block_io::$name, stringify!($kind) == "warp", stringify!($m) == "Striped", $threads, $items,
                ),
            }),*]
        }
    };
}
include!("../../../tests/kernels/src/block_io_cases.rs");

/// The signature of every case kernel of blocks of two and three dimensions:
/// `(input, regs, stored, output, n, oob, shift)`.
type NdCaseKernel<T> = KernelFn<(*const T, *mut T, *mut T, *mut T, u32, T, u32)>;

/// The checks of the cases of blocks of two and three dimensions, from the kernels' table.
macro_rules! block_io_nd_cases {
    ($($name:ident: $m:ident, $($t:ident)::+, $bx:literal, $by:literal, $bz:literal, $items:literal;)*) => {
        fn nd_case_checks() -> Vec<Check> {
            vec![$(Check {
                name: concat!("block_io/", stringify!($name)),
                run: |g, m| run_nd_case::<host_ty!($($t)::+)>(
                    g, m, test_kernels::block_io::$name, stringify!($m) == "Striped", ($bx, $by, $bz), $items,
                ),
            }),*]
        }
    };
}

/// The checks of the block exchanges of the same table.
macro_rules! block_exchange_cases {
    ($($name:ident: $kind:ident, $($t:ident)::+, $bx:literal, $by:literal, $bz:literal, $items:literal;)*) => {
        fn nd_exchange_checks() -> Vec<Check> {
            vec![$(Check {
                name: concat!("block_io/", stringify!($name)),
                run: |g, m| check_exchange::<host_ty!($($t)::+)>(
                    g, m, test_kernels::block_io::$name, ($bx, $by, $bz), $items, stringify!($kind) == "warp",
                ),
            }),*]
        }
    };
}
include!("../../../tests/kernels/src/block_io_nd_cases.rs");

pub fn checks() -> Vec<Check> {
    let mut all = case_checks();
    all.extend(nd_case_checks());
    all.extend(nd_exchange_checks());
    use test_kernels::block_io::{rocprim_example_direct, rocprim_example_striped, rocprim_example_transpose, rocprim_example_vectorize, rocprim_example_warp_transpose};
    all.push(Check { name: "block_io/rocPRIM examples: block_load<int, 128, 8, block_load_direct>", run: |g, m| check_rocprim_example(g, m, rocprim_example_direct, false) });
    all.push(Check { name: "block_io/rocPRIM examples: block_load<int, 128, 8, block_load_striped>", run: |g, m| check_rocprim_example(g, m, rocprim_example_striped, true) });
    all.push(Check { name: "block_io/rocPRIM examples: block_load<int, 128, 8, block_load_vectorize>", run: |g, m| check_rocprim_example(g, m, rocprim_example_vectorize, false) });
    all.push(Check { name: "block_io/rocPRIM examples: block_load<int, 128, 8, block_load_transpose>", run: |g, m| check_rocprim_example(g, m, rocprim_example_transpose, false) });
    all.push(Check {
        name: "block_io/rocPRIM examples: block_load<int, 128, 8, block_load_warp_transpose>",
        run: |g, m| check_rocprim_example(g, m, rocprim_example_warp_transpose, false),
    });
    all.push(Check { name: "block_io/bench_kernels (6 round trips, 5 tiles)", run: check_bench_kernels });
    all.push(Check {
        name: "block_io/exchange_u32_64x3",
        run: |g, m| check_exchange::<u32>(g, m, test_kernels::block_io::block_exchange_u32_64x3, (64, 1, 1), 3, true),
    });
    all.push(Check {
        name: "block_io/exchange_u32_128x4",
        run: |g, m| check_exchange::<u32>(g, m, test_kernels::block_io::block_exchange_u32_128x4, (128, 1, 1), 4, true),
    });
    all.push(Check { name: "block_io/3-D block 16x4x2: load_valid (Transpose; Direct without storage), store_guarded", run: check_3d_valid });
    all.push(Check { name: "block_io/load_from a function of the offset (counting input; u8 converted to f32)", run: check_from_fn });
    all.push(Check { name: "block_io/warp load_from a function (16-lane Transpose), load_valid with the default method", run: check_warp_from_fn_valid });
    all.push(Check { name: "reduce/block_reduce_sum_f32 (7 tiles)", run: |g, m| check_reduce(g, m, 7 * test_kernels::bench::BENCH_TILE).map(|_| ()) });
    all
}

/// rocPRIM's `block_load` example kernels (`test_kernels::block_io::rocprim_example_*`): two blocks of
/// 128 threads, 8 `int`s each, block `b` at `offset = b * 128 * 8`, `n = 1024 + p` valid elements
/// (`0 < p < 1024` random: block 0 full, block 1 partial). Each example's registers must be the
/// block's tile "in a blocked arrangement" (thread `t`'s item `i` is tile offset `8 t + i`; for
/// `block_load_striped`, "a striped arrangement", offset `128 i + t`): the plain and the storage
/// loads the whole tile, the `valid` load the tile below `valid` and the markers above it, the
/// `valid, out_of_bounds` load the tile below `valid` and `out_of_bounds` above it.
fn check_rocprim_example(gpu: &Gpu, module: &Module, kernel: KernelFn<(*const i32, *mut i32, u32, i32)>, striped: bool) -> Result<(), String> {
    use test_kernels::block_io::{rocprim_example_marker, ROCPRIM_EXAMPLE_SECTION};
    let seed = fresh_seed();
    let input: Vec<i32> = random_u32(seed, 2048).into_iter().map(|x| (x >> 2) as i32).collect(); // non-negative
    let n = 1024 + 1 + (random_u32(seed ^ 0x5eed, 1)[0] % 1023) as usize;
    let out_of_bounds = -7;
    let src = gpu.upload(&input).map_err(fail("upload"))?;
    let mut regs = gpu.alloc::<i32>(4 * ROCPRIM_EXAMPLE_SECTION).map_err(fail("alloc"))?;
    gpu.memset(&mut regs, 0xab).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, kernel, LaunchConfig::linear(2, 128), (&src, &mut regs, n as u32, out_of_bounds)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&regs).map_err(fail("download"))?;
    let name = kernel.name();
    let examples = ["load(input + offset, items)", "load(..., items, storage)", "load(..., items, valid, storage)", "load(..., items, valid, out_of_bounds, storage)"];
    for (k, example) in examples.iter().enumerate() {
        for b in 0..2usize {
            for t in 0..128usize {
                for i in 0..8usize {
                    let j = if striped { 128 * i + t } else { 8 * t + i };
                    let g = b * 1024 + j;
                    let want = match k {
                        0 | 1 => input[g],
                        _ if g < n => input[g],
                        2 => rocprim_example_marker(b as u32, t as u32, i as u32),
                        _ => out_of_bounds,
                    };
                    let have = got[k * ROCPRIM_EXAMPLE_SECTION + (b * 128 + t) * 8 + i];
                    if have != want {
                        return Err(format!("{name} (seed {seed}, n = {n}): {example}: block {b}, thread {t}, item {i} (tile offset {j}) holds {have}, expected {want}"));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `block_io_3d_valid` with `n` = a random partial tile and a full one: the registers of both
/// methods are the blocked tile below `n` and keep their markers above; the stored output is the
/// input below `n` and keeps its poison above.
fn check_3d_valid(gpu: &Gpu, module: &Module) -> Result<(), String> {
    use test_kernels::block_io::{block_io_3d_marker, block_io_3d_valid};
    let data = random_u32(fresh_seed(), 512);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    for n in [1 + (fresh_seed() % 511) as usize, 512] {
        let mut regs = gpu.alloc::<u32>(1024).map_err(fail("alloc"))?;
        let mut out = gpu.alloc::<u32>(512).map_err(fail("alloc"))?;
        gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
        let cfg = LaunchConfig { grid: (1, 1, 1), block: (16, 4, 2), shared_mem_bytes: 0 };
        unsafe { gpu.launch(module, block_io_3d_valid, cfg, (&src, &mut regs, &mut out, n as u32)).run() }.map_err(fail("launch"))?;
        let regs = gpu.download(&regs).map_err(fail("download"))?;
        let want: Vec<u32> = (0..512).map(|j| if j < n { data[j] } else { block_io_3d_marker(j as u32 / 4, j as u32 % 4) }).collect();
        super::expect_eq(&format!("3-D Transpose load_valid, n = {n}"), &regs[..512], &want)?;
        super::expect_eq(&format!("3-D Direct load_valid without storage, n = {n}"), &regs[512..], &want)?;
        let want_out: Vec<u32> = (0..512).map(|j| if j < n { data[j] } else { u32::MAX }).collect();
        super::expect_eq(&format!("3-D store_guarded, n = {n}"), &gpu.download(&out).map_err(fail("download"))?, &want_out)?;
    }
    Ok(())
}

/// `block_io_from_fn`: blocked items of the counting input `j * j` (Transpose), striped items of
/// the bytes converted to f32 (Striped: thread `t`'s item `i` is byte `t + 64 i`).
fn check_from_fn(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let bytes: Vec<u8> = random_u32(fresh_seed(), 256).into_iter().map(|x| x as u8).collect();
    let src = gpu.upload(&bytes).map_err(fail("upload"))?;
    let mut squares = gpu.alloc::<u32>(256).map_err(fail("alloc"))?;
    let mut converted = gpu.alloc::<f32>(256).map_err(fail("alloc"))?;
    gpu.memset(&mut squares, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut converted, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, test_kernels::block_io::block_io_from_fn, LaunchConfig::linear(1, 64), (&src, &mut squares, &mut converted)).run() }
        .map_err(fail("launch"))?;
    let want: Vec<u32> = (0..256u32).map(|j| j * j).collect();
    super::expect_eq("counting input, blocked", &gpu.download(&squares).map_err(fail("download"))?, &want)?;
    let want: Vec<f32> = (0..256).map(|k| bytes[(k / 4) + 64 * (k % 4)] as f32).collect();
    super::expect_eq("u8 input as f32, striped", &gpu.download(&converted).map_err(fail("download"))?, &want)
}

/// `warp_io_from_fn_valid` with `valid` random in 1..128: blocked items of each 16-lane warp's
/// counting input, and each 32-lane warp's direct items of `input` below `valid`, markers above.
fn check_warp_from_fn_valid(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let data = random_u32(fresh_seed(), 128);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let valid = 1 + (fresh_seed() % 127) as usize;
    let mut squares = gpu.alloc::<u32>(256).map_err(fail("alloc"))?;
    let mut kept = gpu.alloc::<u32>(128).map_err(fail("alloc"))?;
    gpu.memset(&mut squares, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut kept, 0xff).map_err(fail("poison"))?;
    let args = (&src, &mut squares, &mut kept, valid as u32);
    unsafe { gpu.launch(module, test_kernels::block_io::warp_io_from_fn_valid, LaunchConfig::linear(1, 64), args).run() }
        .map_err(fail("launch"))?;
    let want: Vec<u32> = (0..256u32).map(|j| j * j).collect();
    super::expect_eq("warp counting input, blocked", &gpu.download(&squares).map_err(fail("download"))?, &want)?;
    let want: Vec<u32> = (0..128).map(|k| if k < valid { data[k] } else { !(k as u32) }).collect();
    super::expect_eq(&format!("warp load_valid, valid = {valid}"), &gpu.download(&kept).map_err(fail("download"))?, &want)
}

/// A `BlockExchange` kernel on one block of `block` threads: the arrangements it writes (four, or
/// the two of blocked <-> striped without `warp`) must each be the input tile.
fn check_exchange<T: CaseElem>(
    gpu: &Gpu,
    module: &Module,
    kernel: KernelFn<(*const T, *mut T)>,
    block: (u32, u32, u32),
    items: usize,
    warp: bool,
) -> Result<(), String> {
    let tile = (block.0 * block.1 * block.2) as usize * items;
    let parts = if warp { 4 } else { 2 };
    let seed = fresh_seed();
    let data: Vec<T> = random_u32(seed, tile).into_iter().map(T::make).collect();
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<T>(parts * tile).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (1, 1, 1), block, shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, kernel, cfg, (&src, &mut out)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    let kernel = kernel.name();
    for (k, what) in ["blocked -> striped", "striped -> blocked", "blocked -> warp-striped", "warp-striped -> blocked"][..parts].iter().enumerate() {
        super::expect_eq(&format!("{kernel} (seed {seed}): {what}"), &got[k * tile..(k + 1) * tile], &data)?;
    }
    Ok(())
}

/// The benchmarks' round-trip kernels on a few tiles.
fn check_bench_kernels(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = 5 * test_kernels::bench::BENCH_TILE;
    let data: Vec<i32> = random_u32(fresh_seed(), n).into_iter().map(|x| x as i32).collect();
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    use test_kernels::bench::*;
    for kernel in [
        bench_block_io_direct,
        bench_block_io_striped,
        bench_block_io_vectorize,
        bench_block_io_transpose,
        bench_block_io_warp_transpose,
        bench_block_io_warp_transpose_ts,
    ] {
        let mut dst = gpu.alloc::<i32>(n).map_err(fail("alloc"))?;
        gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
        let cfg = LaunchConfig::linear(5, BENCH_THREADS as u32);
        unsafe { gpu.launch(module, kernel, cfg, (&src, &mut dst)).run() }.map_err(fail("launch"))?;
        super::expect_eq(kernel.name(), &gpu.download(&dst).map_err(fail("download"))?, &data)?;
    }
    Ok(())
}

/// The benchmark's reduction on `n` elements against an f64 sum (relative error under 1e-3).
fn check_reduce(gpu: &Gpu, module: &Module, n: usize) -> Result<f64, String> {
    let data: Vec<f32> = random_u32(fresh_seed(), n).into_iter().map(|x| (x % 1024) as f32 / 1024.0).collect();
    let want: f64 = data.iter().map(|&x| x as f64).sum();
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut result = gpu.alloc::<f32>(1).map_err(fail("alloc"))?;
    gpu.memset(&mut result, 0).map_err(fail("zero"))?;
    let cfg = LaunchConfig::linear((n / test_kernels::bench::BENCH_TILE) as u32, test_kernels::bench::BENCH_THREADS as u32);
    unsafe { gpu.launch(module, test_kernels::bench::bench_block_reduce_sum_f32, cfg, (&src, &mut result)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&result).map_err(fail("download"))?[0] as f64;
    if ((got - want) / want).abs() > 1e-3 {
        return Err(format!("block_reduce_sum over {n} floats: got {got}, expected {want} (relative error over 1e-3)"));
    }
    Ok(got)
}

fn run_case<T: CaseElem>(
    gpu: &Gpu,
    module: &Module,
    kernel: CaseKernel<T>,
    warp: bool,
    striped: bool,
    threads: usize,
    items: usize,
) -> Result<(), String> {
    let seed = fresh_seed();
    let unit = threads * items;
    let (blocks, block_threads, units) = if warp {
        let per_block = WARP_CASE_BLOCK as usize / threads;
        (2u32, WARP_CASE_BLOCK, 2 * per_block)
    } else {
        (3u32, threads as u32, 3)
    };
    let total = units * unit;
    let p = 1 + random_u32(seed ^ 0x5eed, 1)[0] as usize % (unit.max(2) - 1);
    let n = unit + p.min(unit - 1).max(if unit > 1 { 1 } else { 0 });
    let input: Vec<T> = random_u32(seed, total).into_iter().map(T::make).collect();
    let oob = T::make(0xdead_beef);
    let src = gpu.upload(&input).map_err(fail("upload"))?;
    let mut regs = gpu.alloc::<T>(total).map_err(fail("alloc"))?;
    let mut out = gpu.alloc::<T>(total).map_err(fail("alloc"))?;
    gpu.memset(&mut regs, 0xab).map_err(fail("poison"))?;
    gpu.memset(&mut out, 0xab).map_err(fail("poison"))?;
    let poison = gpu.download(&out).map_err(fail("download"))?[0];
    unsafe {
        gpu.launch(module, kernel, LaunchConfig::linear(blocks, block_threads), (&src, &mut regs, &mut out, n as u32, oob))
            .run()
    }
    .map_err(fail("launch"))?;
    let got_regs = gpu.download(&regs).map_err(fail("download"))?;
    let got_out = gpu.download(&out).map_err(fail("download"))?;
    let kernel = kernel.name();
    let ctx = |what: &str| format!("{kernel} (seed {seed}, n = {n}, tile {unit}): {what}");
    for u in 0..units {
        for r in 0..threads {
            for i in 0..items {
                let j = if striped { i * threads + r } else { r * items + i };
                let g = u * unit + j;
                let want = if g < n { input[g] } else { oob };
                let got = got_regs[(u * threads + r) * items + i];
                if got != want {
                    return Err(ctx(&format!(
                        "unit {u}, thread {r}, item {i} (tile offset {j}) holds {got:?}, expected {want:?}{}",
                        if g < n { "" } else { " (the out-of-bounds value)" }
                    )));
                }
            }
        }
    }
    for (g, (&got, &inp)) in got_out.iter().zip(&input).enumerate() {
        let want = if g < n { inp } else { poison };
        if got != want {
            return Err(ctx(&format!(
                "stored element {g} is {got:?}, expected {want:?}{}",
                if g < n { "" } else { " (beyond n: must stay unwritten)" }
            )));
        }
    }
    Ok(())
}

/// A case of a block of `bx x by x bz` threads (`block_io_nd_cases!` in the kernels): three
/// blocks, `n = TILE + p` with `0 < p < TILE` random (a full tile, a partial one, an empty one),
/// run with the input and outputs aligned (`shift` 0) and shifted by one element (`Vectorize`
/// then falls back to the direct path).
///
/// The reference ranks threads as rocPRIM does, `r = x + bx (y + by z)`; thread `r`'s item `i` is
/// tile offset `i * THREADS + r` for `Striped`, `r * ITEMS + i` for the others. Checked: the
/// registers of `load` (the whole tile), `load_guarded` (`oob` past `n`), `load_valid` (the
/// markers past `n`) and `load_from` (a function reading the tile), `store`'s output (the input, the element before the tile kept), and
/// `store_guarded`'s (the input below `n`, the poison elsewhere).
fn run_nd_case<T: CaseElem>(
    gpu: &Gpu,
    module: &Module,
    kernel: NdCaseKernel<T>,
    striped: bool,
    block: (u32, u32, u32),
    items: usize,
) -> Result<(), String> {
    const BLOCKS: usize = 3;
    let threads = (block.0 * block.1 * block.2) as usize;
    let tile = threads * items;
    let total = BLOCKS * tile;
    let kernel_name = kernel.name();
    for shift in [0usize, 1] {
        let seed = fresh_seed();
        let p = 1 + random_u32(seed ^ 0x5eed, 1)[0] as usize % (tile - 1);
        let n = tile + p;
        let buffer: Vec<T> = random_u32(seed, shift + total).into_iter().map(T::make).collect();
        let data = &buffer[shift..];
        let marks: Vec<T> = random_u32(seed ^ 0x3a3a, 4 * total).into_iter().map(|x| T::make(x ^ 0x00c0_ffee)).collect();
        let oob = T::make(0xdead_beef);
        let src = gpu.upload(&buffer).map_err(fail("upload"))?;
        let mut regs = gpu.upload(&marks).map_err(fail("upload"))?;
        let mut stored = gpu.alloc::<T>(shift + total).map_err(fail("alloc"))?;
        let mut out = gpu.alloc::<T>(shift + total).map_err(fail("alloc"))?;
        gpu.memset(&mut stored, 0xab).map_err(fail("poison"))?;
        gpu.memset(&mut out, 0xab).map_err(fail("poison"))?;
        let poison = gpu.download(&out).map_err(fail("download"))?[0];
        let cfg = LaunchConfig { grid: (BLOCKS as u32, 1, 1), block, shared_mem_bytes: 0 };
        let args = (&src, &mut regs, &mut stored, &mut out, n as u32, oob, shift as u32);
        unsafe { gpu.launch(module, kernel, cfg, args).run() }.map_err(fail("launch"))?;
        let got_regs = gpu.download(&regs).map_err(fail("download"))?;
        let got_stored = gpu.download(&stored).map_err(fail("download"))?;
        let got_out = gpu.download(&out).map_err(fail("download"))?;
        let ctx = |what: &str| format!("{kernel_name} (seed {seed}, n = {n}, tile {tile}, shift {shift}): {what}");
        for u in 0..BLOCKS {
            for z in 0..block.2 as usize {
                for y in 0..block.1 as usize {
                    for x in 0..block.0 as usize {
                        let r = x + block.0 as usize * (y + block.1 as usize * z);
                        for i in 0..items {
                            let j = if striped { i * threads + r } else { r * items + i };
                            let g = u * tile + j;
                            let slot = (u * threads + r) * items + i;
                            let calls = [
                                ("load", data[g]),
                                ("load_guarded", if g < n { data[g] } else { oob }),
                                ("load_valid", if g < n { data[g] } else { marks[2 * total + slot] }),
                                ("load_from", data[g]),
                            ];
                            for (k, (call, want)) in calls.into_iter().enumerate() {
                                let got = got_regs[k * total + slot];
                                if got != want {
                                    return Err(ctx(&format!(
                                        "{call}: block {u}, thread ({x}, {y}, {z}) (rank {r}), item {i} (tile offset {j}) holds {got:?}, expected {want:?}"
                                    )));
                                }
                            }
                        }
                    }
                }
            }
        }
        for k in 0..shift + total {
            let g = k.wrapping_sub(shift);
            let want_stored = if k < shift { poison } else { data[g] };
            if got_stored[k] != want_stored {
                return Err(ctx(&format!("store: element {k} of the buffer is {:?}, expected {want_stored:?}", got_stored[k])));
            }
            let want = if k >= shift && g < n { data[g] } else { poison };
            if got_out[k] != want {
                return Err(ctx(&format!(
                    "store_guarded: element {k} of the buffer is {:?}, expected {want:?}{}",
                    got_out[k],
                    if want == poison { " (outside the valid elements: must stay unwritten)" } else { "" }
                )));
            }
        }
    }
    Ok(())
}

/// Elements of the benchmarks' arrays: 2^26 four-byte elements, 2^28 bytes.
const BENCH_ELEMS: usize = 1 << 26;

/// The round-trip kernels of `tests/kernels/src/bench.rs`, one per method, and the reduction.
pub fn benches() -> Vec<super::Bench> {
    use super::Bench;
    use test_kernels::bench::*;
    vec![
        Bench { name: "block_io/direct 2^28 B", run: |g, m| bench_round_trip(g, m, bench_block_io_direct) },
        Bench { name: "block_io/striped 2^28 B", run: |g, m| bench_round_trip(g, m, bench_block_io_striped) },
        Bench { name: "block_io/vectorize 2^28 B", run: |g, m| bench_round_trip(g, m, bench_block_io_vectorize) },
        Bench { name: "block_io/transpose 2^28 B", run: |g, m| bench_round_trip(g, m, bench_block_io_transpose) },
        Bench {
            name: "block_io/warp_transpose 2^28 B",
            run: |g, m| bench_round_trip(g, m, bench_block_io_warp_transpose),
        },
        Bench {
            name: "block_io/warp_transpose_timesliced 2^28 B",
            run: |g, m| bench_round_trip(g, m, bench_block_io_warp_transpose_ts),
        },
        Bench { name: "reduce/block_reduce_sum f32 2^28 B", run: bench_reduce },
    ]
}

fn tbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e12
}

fn bench_round_trip(
    gpu: &Gpu,
    module: &Module,
    kernel: KernelFn<(*const i32, *mut i32)>,
) -> Result<Vec<super::Figure>, String> {
    use super::{time_median, Figure};
    let tile = test_kernels::bench::BENCH_TILE;
    let data: Vec<i32> = random_u32(fresh_seed(), BENCH_ELEMS).into_iter().map(|x| x as i32).collect();
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<i32>(BENCH_ELEMS).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig::linear((BENCH_ELEMS / tile) as u32, test_kernels::bench::BENCH_THREADS as u32);
    let launch = |dst: &mut cute_rs_host::DeviceBuffer<i32>| unsafe { gpu.launch(module, kernel, cfg, (&src, dst)).run() };
    launch(&mut dst).map_err(fail("launch"))?;
    let kernel = kernel.name();
    super::expect_eq(kernel, &gpu.download(&dst).map_err(fail("download"))?, &data)?;
    let ours = time_median(gpu, 3, 20, || launch(&mut dst))?;
    let peer = time_median(gpu, 3, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = 2 * BENCH_ELEMS * 4;
    Ok(vec![
        Figure { what: format!("{kernel} (i32, 256 threads x 8 items)"), value: tbps(bytes, ours), unit: "TB/s" },
        Figure { what: "memcpy DtoD (same bytes)".into(), value: tbps(bytes, peer), unit: "TB/s" },
        Figure { what: "round trip / memcpy".into(), value: peer as f64 / ours as f64 * 100.0, unit: "%" },
    ])
}

fn bench_reduce(gpu: &Gpu, module: &Module) -> Result<Vec<super::Figure>, String> {
    use super::{time_median, Figure};
    check_reduce(gpu, module, BENCH_ELEMS)?;
    let src = gpu.alloc::<f32>(BENCH_ELEMS).map_err(fail("alloc"))?;
    let mut result = gpu.alloc::<f32>(1).map_err(fail("alloc"))?;
    let cfg = LaunchConfig::linear((BENCH_ELEMS / test_kernels::bench::BENCH_TILE) as u32, test_kernels::bench::BENCH_THREADS as u32);
    let ours = time_median(gpu, 3, 20, || unsafe {
        gpu.launch(module, test_kernels::bench::bench_block_reduce_sum_f32, cfg, (&src, &mut result)).run()
    })?;
    Ok(vec![Figure { what: "block_reduce_sum_f32 (read bandwidth)".into(), value: tbps(BENCH_ELEMS * 4, ours), unit: "TB/s" }])
}
