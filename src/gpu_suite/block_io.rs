//! GPU checks of the cooperative loads and stores (`layout_tensor::block_io`; kernels in
//! `kernels/src/block_io.rs`, one per case of `kernels/src/block_io_cases.rs`).
//!
//! Each case launches its round-trip kernel over `U` units (blocks, or logical warps) of `U_T`
//! elements with `n = U_T + p` valid elements (`0 < p < U_T`, random): unit 0 has a full tile,
//! unit 1 a partial one (`valid = p`), the others none (`valid = 0`). The registers each thread
//! dumps must be the tile in the method's arrangement (blocked, or striped for `Striped`), with the
//! out-of-bounds value past `n`; the stored output must equal the input below `n` and keep its
//! poison above.

use host::{DeviceElem, Gpu, LaunchConfig, Module};

use super::{fail, fresh_seed, random_u32, Check};

/// Threads per block of the warp cases: `kernels::block_io::WARP_CASE_BLOCK`.
const WARP_CASE_BLOCK: u32 = kernels::block_io::WARP_CASE_BLOCK;

/// Host elements of the cases: the device element (bf16 as its `u16` bits) and how to make test
/// values that compare exactly (no NaN).
trait CaseElem: DeviceElem + host::KernelArg + Copy + PartialEq + std::fmt::Debug {
    fn make(x: u32) -> Self;
}
impl CaseElem for u8 {
    fn make(x: u32) -> u8 {
        x as u8
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
/// bf16 bits.
impl CaseElem for u16 {
    fn make(x: u32) -> u16 {
        (f32::make(x).to_bits() >> 16) as u16
    }
}

/// The host type of a case's element type.
macro_rules! host_ty {
    (half::bf16) => { u16 };
    ($t:ident) => { $t };
}

/// The cases' checks, from the same table the kernels are generated from.
macro_rules! block_io_cases {
    ($($name:ident: $kind:ident, $m:ident, $($t:ident)::+, $threads:literal, $items:literal;)*) => {
        fn case_checks() -> Vec<Check> {
            vec![$(Check {
                name: concat!("block_io/", stringify!($name)),
                run: |g, m| run_case::<host_ty!($($t)::+)>(
                    g, m, stringify!($name), stringify!($kind) == "warp", stringify!($m) == "Striped", $threads, $items,
                ),
            }),*]
        }
    };
}
include!("../../kernels/src/block_io_cases.rs");

pub fn checks() -> Vec<Check> {
    case_checks()
}

fn run_case<T: CaseElem>(
    gpu: &Gpu,
    module: &Module,
    kernel: &str,
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
    let k = module.kernel(kernel).map_err(fail("kernel"))?;
    unsafe {
        gpu.launch(&k, LaunchConfig::linear(blocks, block_threads))
            .arg(&src)
            .arg(&regs)
            .arg(&out)
            .arg(&(n as u32))
            .arg(&oob)
            .run()
    }
    .map_err(fail("launch"))?;
    let got_regs = gpu.download(&regs).map_err(fail("download"))?;
    let got_out = gpu.download(&out).map_err(fail("download"))?;
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
