//! GPU checks: `ldmatrix` / `stmatrix`, `mma.sync` and `wgmma` (kernels in
//! `tests/kernels/src/checks/mma.rs`).
//!
//! `ldmatrix`/`stmatrix` are checked exactly against the thread-value layouts
//! `cute_rs_tensor::device::mma::LDMATRIX_8X8{,_TRANS}`. The matrix products use random bf16 / f16 /
//! tf32 inputs (bit patterns generated here, converted to f32 exactly), loaded by the kernels
//! through the atoms' fragment layouts, and compared with an f64 reference: the products of the
//! inputs are exact in f32, so the only difference is the order and rounding of the f32 sums,
//! bounded by `2^-16 * (|c| + sum |a b|)` per element.

use cute_rs_host::{DeviceElem, Gpu, KernelFn, LaunchConfig, Module};
use cute_rs_layout::Layout;
use cute_rs_tensor::device::mma::{LDMATRIX_8X8, LDMATRIX_8X8_TRANS};
use cute_rs_tensor::device::numeric::{bf16_to_f32, f16_to_f32, E4M3, E5M2};
use test_kernels::checks::mma;
use test_kernels::checks::mma::wgmma::*;

use super::cp_async::compare_words;
use super::{fail, fresh_seed, random_f32, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "mma/ldmatrix_x1", run: |g, m| ldmatrix(g, m, 0) },
        Check { name: "mma/ldmatrix_x2", run: |g, m| ldmatrix(g, m, 1) },
        Check { name: "mma/ldmatrix_x4", run: |g, m| ldmatrix(g, m, 2) },
        Check { name: "mma/ldmatrix_x1_trans", run: |g, m| ldmatrix(g, m, 3) },
        Check { name: "mma/ldmatrix_x2_trans", run: |g, m| ldmatrix(g, m, 4) },
        Check { name: "mma/ldmatrix_x4_trans", run: |g, m| ldmatrix(g, m, 5) },
        Check { name: "mma/stmatrix_x1", run: |g, m| stmatrix(g, m, 0) },
        Check { name: "mma/stmatrix_x2", run: |g, m| stmatrix(g, m, 1) },
        Check { name: "mma/stmatrix_x4", run: |g, m| stmatrix(g, m, 2) },
        Check { name: "mma/stmatrix_x1_trans", run: |g, m| stmatrix(g, m, 3) },
        Check { name: "mma/stmatrix_x2_trans", run: |g, m| stmatrix(g, m, 4) },
        Check { name: "mma/stmatrix_x4_trans", run: |g, m| stmatrix(g, m, 5) },
        Check { name: "mma/m16n8k16_bf16", run: |g, m| mma_16bit(g, m, mma::mma_m16n8k16_bf16_check, Half::Bf16, false) },
        Check { name: "mma/m16n8k16_f16", run: |g, m| mma_16bit(g, m, mma::mma_m16n8k16_f16_check, Half::F16, false) },
        Check {
            name: "mma/m16n8k16_bf16_ldmatrix",
            run: |g, m| mma_16bit(g, m, mma::mma_m16n8k16_bf16_ldmatrix_check, Half::Bf16, true),
        },
        Check { name: "mma/m16n8k8_tf32", run: mma_tf32 },
        Check { name: "mma/wgmma_m64n8k16_bf16_no_swizzle", run: |g, _| wgmma(g, wgmma_m64n8k16_bf16_check, 8, 0) },
        Check { name: "mma/wgmma_m64n8k16_bf16_swizzle_128b", run: |g, _| wgmma(g, wgmma_m64n8k16_bf16_check, 8, 1) },
        Check { name: "mma/wgmma_m64n16k16_bf16_no_swizzle", run: |g, _| wgmma(g, wgmma_m64n16k16_bf16_check, 16, 0) },
        Check { name: "mma/wgmma_m64n16k16_bf16_swizzle_128b", run: |g, _| wgmma(g, wgmma_m64n16k16_bf16_check, 16, 1) },
        Check { name: "mma/wgmma_m64n32k16_bf16_no_swizzle", run: |g, _| wgmma(g, wgmma_m64n32k16_bf16_check, 32, 0) },
        Check { name: "mma/wgmma_m64n32k16_bf16_swizzle_128b", run: |g, _| wgmma(g, wgmma_m64n32k16_bf16_check, 32, 1) },
        Check { name: "mma/wgmma_m64n64k16_bf16_no_swizzle", run: |g, _| wgmma(g, wgmma_m64n64k16_bf16_check, 64, 0) },
        Check { name: "mma/wgmma_m64n64k16_bf16_swizzle_128b", run: |g, _| wgmma(g, wgmma_m64n64k16_bf16_check, 64, 1) },
        Check { name: "mma/wgmma_m64n128k16_bf16_no_swizzle", run: |g, _| wgmma(g, wgmma_m64n128k16_bf16_check, 128, 0) },
        Check {
            name: "mma/wgmma_m64n128k16_bf16_swizzle_128b",
            run: |g, _| wgmma(g, wgmma_m64n128k16_bf16_check, 128, 1),
        },
        Check { name: "mma/wgmma_m64n256k16_bf16_no_swizzle", run: |g, _| wgmma(g, wgmma_m64n256k16_bf16_check, 256, 0) },
        Check {
            name: "mma/wgmma_m64n256k16_bf16_swizzle_128b",
            run: |g, _| wgmma(g, wgmma_m64n256k16_bf16_check, 256, 1),
        },
        Check { name: "mma/wgmma_m64n128k16_bf16_rs (A in registers)", run: |g, _| wgmma_rs(g, wgmma_m64n128k16_bf16_rs_check, 128) },
        Check { name: "mma/wgmma_m64n64k16_bf16_rs (A in registers)", run: |g, _| wgmma_rs(g, wgmma_m64n64k16_bf16_rs_check, 64) },
        Check { name: "mma/wgmma_chain_ss_rs (accumulators as the next wgmma's register A)", run: |g, _| wgmma_chain(g) },
        Check { name: "mma/wgmma_m64n256k32_e4m3 (fp8 atom, gemm over 4 k-blocks)", run: |g, _| wgmma_f8(g, wgmma_m64n256k32_e4m3_check, 256, [false, false]) },
        Check {
            name: "mma/wgmma_m64n64k32_e5m2_e4m3 (fp8 atom, gemm over 4 k-blocks)",
            run: |g, _| wgmma_f8(g, wgmma_m64n64k32_e5m2_e4m3_check, 64, [true, false]),
        },
    ]
}

/// The `ldmatrix_check` / `stmatrix_check` variants: (name, matrices, transposed).
const VARIANTS: [(&str, usize, bool); 6] = [
    ("x1", 1, false),
    ("x2", 2, false),
    ("x4", 4, false),
    ("x1.trans", 1, true),
    ("x2.trans", 2, true),
    ("x4.trans", 4, true),
];

/// Where the `lane`'s value `v` of matrix `j` sits in the 4 row-major 8x8 matrices (matrix `j` at
/// `64 j`), by the fragment layout.
fn matrix_element(layout: Layout, lane: usize, v: usize, j: usize) -> usize {
    let e = layout.call((lane + 32 * v) as i64) as usize;
    64 * j + 8 * (e % 8) + e / 8
}

fn ldmatrix(gpu: &Gpu, module: &Module, variant: u32) -> Result<(), String> {
    let (name, count, trans) = VARIANTS[variant as usize];
    let layout = if trans { LDMATRIX_8X8_TRANS } else { LDMATRIX_8X8 };
    let seed = fresh_seed();
    let src: Vec<u16> = random_u32(seed, 256).iter().map(|&r| r as u16).collect();
    let mut want = vec![u32::MAX; 128];
    for lane in 0..32 {
        for j in 0..count {
            let half = |v| src[matrix_element(layout, lane, v, j)] as u32;
            want[lane * 4 + j] = half(0) | half(1) << 16;
        }
    }
    let input = gpu.upload(&src).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<u32>(128).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, mma::ldmatrix_check, LaunchConfig::linear(1, 32), (&input, variant, &mut out)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    compare_words(&got, &want, |i| {
        let (lane, j) = (i / 4, i % 4);
        if j >= count {
            return format!("ldmatrix.{name}: lane {lane} register {j} (not returned by .{name}: must stay unwritten)");
        }
        let at = |v| {
            let e = matrix_element(layout, lane, v, j) - 64 * j;
            format!("({}, {})", e / 8, e % 8)
        };
        format!(
            "ldmatrix.{name} (seed {seed}): lane {lane} register {j} = matrix {j}'s elements {} (low) and {} (high) by {layout}",
            at(0),
            at(1)
        )
    })
}

fn stmatrix(gpu: &Gpu, module: &Module, variant: u32) -> Result<(), String> {
    let (name, count, trans) = VARIANTS[variant as usize];
    let layout = if trans { LDMATRIX_8X8_TRANS } else { LDMATRIX_8X8 };
    let seed = fresh_seed();
    let regs = random_u32(seed, 128);
    let mut want = vec![0xffffu16; 256];
    let mut from = vec![None; 256];
    for lane in 0..32 {
        for j in 0..count {
            for v in 0..2 {
                let at = matrix_element(layout, lane, v, j);
                want[at] = (regs[lane * 4 + j] >> (16 * v)) as u16;
                from[at] = Some((lane, j, v));
            }
        }
    }
    let input = gpu.upload(&regs).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<u16>(256).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0x00).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, mma::stmatrix_check, LaunchConfig::linear(1, 32), (&input, variant, &mut out)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    if let Some(i) = (0..256).find(|&i| got[i] != want[i]) {
        let (j, r, c) = (i / 64, (i % 64) / 8, i % 8);
        let source = match from[i] {
            Some((lane, reg, v)) => format!("from lane {lane} register {reg} {} half", ["low", "high"][v]),
            None => "not written by the store (must keep the 0xffff fill)".to_string(),
        };
        return Err(format!(
            "stmatrix.{name} (seed {seed}): matrix {j} element ({r}, {c}), {source} by {layout}: got {:#06x}, \
             expected {:#06x} ({} of 256 differ)",
            got[i],
            want[i],
            (0..256).filter(|&i| got[i] != want[i]).count()
        ));
    }
    Ok(())
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Half {
    Bf16,
    F16,
}

/// Random 16-bit floats of either sign with magnitudes in `[2^-4, 2)`, as bit patterns.
pub(super) fn random_half(seed: u64, n: usize, kind: Half) -> Vec<u16> {
    random_u32(seed, n)
        .iter()
        .map(|&r| {
            let sign = (r >> 31) as u16;
            match kind {
                Half::Bf16 => sign << 15 | (123 + (r >> 8) as u16 % 5) << 7 | (r as u16 & 0x7f),
                Half::F16 => sign << 15 | (11 + (r >> 12) as u16 % 5) << 10 | (r as u16 & 0x3ff),
            }
        })
        .collect()
}

fn to_f32(bits: u16, kind: Half) -> f32 {
    match kind {
        Half::Bf16 => bf16_to_f32(bits),
        Half::F16 => f16_to_f32(bits),
    }
}

/// The f64 reference `c + a b` (`a` m x k row-major, `b` n x k row-major, `c` m x n row-major or
/// zero) and each element's error scale `|c| + sum |a b|`.
pub(super) fn reference(a: &[f32], b: &[f32], c: Option<&[f32]>, m: usize, n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut want = vec![0.0; m * n];
    let mut scale = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let c0 = c.map_or(0.0, |c| c[i * n + j] as f64);
            let (mut s, mut mag) = (c0, c0.abs());
            for p in 0..k {
                let t = a[i * k + p] as f64 * b[j * k + p] as f64;
                s += t;
                mag += t.abs();
            }
            want[i * n + j] = s;
            scale[i * n + j] = mag;
        }
    }
    (want, scale)
}

/// Compares an m x n row-major f32 result with the reference within `2^-16 * scale`.
pub(super) fn compare_product(what: &str, got: &[f32], want: &[f64], scale: &[f64], n: usize) -> Result<(), String> {
    let tol = |i: usize| scale[i] * 2f64.powi(-16) + 1e-30;
    let bad: Vec<usize> = (0..got.len()).filter(|&i| !((got[i] as f64 - want[i]).abs() <= tol(i))).collect();
    let Some(&i) = bad.first() else { return Ok(()) };
    let hint = if got[i].to_bits() == u32::MAX {
        " (the output poison: never written)"
    } else if got[i].is_nan() {
        " (NaN)"
    } else {
        ""
    };
    Err(format!(
        "{what}: D[{}][{}] = {}{hint}, expected {} (|difference| {:.3e} > tolerance {:.3e}); {} of {} elements differ",
        i / n,
        i % n,
        got[i],
        want[i],
        (got[i] as f64 - want[i]).abs(),
        tol(i),
        bad.len(),
        got.len()
    ))
}

/// Uploads `a`, `b`, `c`, runs `kernel(a, b, c, d)` on one warp, returns `d` (16 x 8).
fn launch_mma<T: DeviceElem + 'static>(
    gpu: &Gpu,
    module: &Module,
    kernel: KernelFn<(*const T, *const T, *const f32, *mut f32)>,
    a: &[T],
    b: &[T],
    c: &[f32],
) -> Result<Vec<f32>, String> {
    let (a, b, c) = (
        gpu.upload(a).map_err(fail("upload"))?,
        gpu.upload(b).map_err(fail("upload"))?,
        gpu.upload(c).map_err(fail("upload"))?,
    );
    let mut d = gpu.alloc::<f32>(128).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, kernel, LaunchConfig::linear(1, 32), (&a, &b, &c, &mut d)).run() }
        .map_err(fail("launch"))?;
    gpu.download(&d).map_err(fail("download"))
}

/// m16n8k16 with 16-bit inputs: A 16x16 row-major, B 8x16 (N x K) row-major, or, for the
/// `ldmatrix` kernel, B 16x8 (K x N) row-major.
fn mma_16bit(
    gpu: &Gpu,
    module: &Module,
    kernel: KernelFn<(*const u16, *const u16, *const f32, *mut f32)>,
    kind: Half,
    b_k_by_n: bool,
) -> Result<(), String> {
    let seed = fresh_seed();
    let a = random_half(seed, 16 * 16, kind);
    let b = random_half(seed ^ 0xb, 8 * 16, kind);
    let c = random_f32(seed ^ 0xc, 16 * 8);
    let b_given: Vec<u16> = if b_k_by_n { (0..128).map(|i| b[(i % 8) * 16 + i / 8]).collect() } else { b.clone() };
    let got = launch_mma(gpu, module, kernel, &a, &b_given, &c)?;
    let af: Vec<f32> = a.iter().map(|&x| to_f32(x, kind)).collect();
    let bf: Vec<f32> = b.iter().map(|&x| to_f32(x, kind)).collect();
    let (want, scale) = reference(&af, &bf, Some(&c), 16, 8, 16);
    compare_product(&format!("{} ({kind:?}, seed {seed})", kernel.name()), &got, &want, &scale, 8)
}

fn mma_tf32(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    // tf32 values: f32 with the low 13 mantissa bits clear.
    let tf32 = |s, n| random_f32(s, n).iter().map(|x| x.to_bits() & !0x1fff).collect::<Vec<u32>>();
    let (a, b) = (tf32(seed, 16 * 8), tf32(seed ^ 0xb, 8 * 8));
    let c = random_f32(seed ^ 0xc, 16 * 8);
    let got = launch_mma(gpu, module, mma::mma_m16n8k8_tf32_check, &a, &b, &c)?;
    let f = |v: &[u32]| v.iter().map(|&x| f32::from_bits(x)).collect::<Vec<f32>>();
    let (want, scale) = reference(&f(&a), &f(&b), Some(&c), 16, 8, 8);
    compare_product(&format!("mma_m16n8k8_tf32_check (seed {seed})"), &got, &want, &scale, 8)
}

/// One warpgroup: D (64xN) = A (64x64) B^T (B Nx64), bf16, through the sm_90a module, with the
/// kernel `wgmma_m64n{n}k16_bf16_check`.
/// A register-A wgmma atom (K = 64) against an f64 reference: bf16 A 64 x 64 and B n x 64.
fn wgmma_rs(gpu: &Gpu, kernel: KernelFn<(*const u16, *const u16, *mut f32)>, n: usize) -> Result<(), String> {
    let module = gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let a = random_half(seed, 64 * 64, Half::Bf16);
    let b = random_half(seed ^ 0x5, n * 64, Half::Bf16);
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let mut d = gpu.alloc::<f32>(64 * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(&module, kernel, LaunchConfig::linear(1, 128), (&ga, &gb, &mut d)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&d).map_err(fail("download"))?;
    let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
    let (want, scale) = reference(&f(&a), &f(&b), None, 64, n, 64);
    compare_product(&format!("wgmma m64n{n}k16 with A in registers x 4 (K = 64, seed {seed})"), &got, &want, &scale, n)
}

/// `wgmma_chain_ss_rs_check`: `d = bf16(a b^T) v^T` (64 x 64 each, K = 64) against an f64
/// reference of the same rounding of the first product; the first product's f32 sums may differ
/// from f64's in their last bits, which can move a bf16 rounding by one unit, so the tolerance is
/// `2^-7` of the sum of the second product's magnitudes.
fn wgmma_chain(gpu: &Gpu) -> Result<(), String> {
    let module = gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let (a, b, v) = (random_half(seed, 64 * 64, Half::Bf16), random_half(seed ^ 0xb, 64 * 64, Half::Bf16), random_half(seed ^ 0x7, 64 * 64, Half::Bf16));
    let up = |x: &[u16]| gpu.upload(x).map_err(fail("upload"));
    let (ga, gb, gv) = (up(&a)?, up(&b)?, up(&v)?);
    let mut d = gpu.alloc::<f32>(64 * 64).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(&module, wgmma_chain_ss_rs_check, LaunchConfig::linear(1, 128), (&ga, &gb, &gv, &mut d)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&d).map_err(fail("download"))?;
    let f = |x: &[u16]| x.iter().map(|&h| bf16_to_f32(h)).collect::<Vec<f32>>();
    let (s, _) = reference(&f(&a), &f(&b), None, 64, 64, 64);
    let p: Vec<f32> = s.iter().map(|&x| bf16_to_f32(cute_rs_tensor::device::numeric::f32_to_bf16(x as f32))).collect();
    let (want, scale) = reference(&p, &f(&v), None, 64, 64, 64);
    let tol = |i: usize| scale[i] * 2f64.powi(-7) + 1e-30;
    match (0..got.len()).find(|&i| !((got[i] as f64 - want[i]).abs() <= tol(i))) {
        None => Ok(()),
        Some(i) => Err(format!("chained wgmma (seed {seed}): D[{}][{}] = {}, expected {} (tolerance {:.3e})", i / 64, i % 64, got[i], want[i], tol(i))),
    }
}

/// Random 8-bit floats of magnitude at most 4 (their codes): e5m2 if `e5m2`, else e4m3.
fn random_f8(seed: u64, n: usize, e5m2: bool) -> Vec<u8> {
    let value = |c: u8| if e5m2 { E5M2(c).to_f32() } else { E4M3(c).to_f32() };
    random_u32(seed, n)
        .into_iter()
        .map(|w| {
            // Redraw from the word's other bytes until the value is small and finite.
            let bytes = w.to_le_bytes();
            bytes.iter().copied().find(|&c| value(c).abs() <= 4.0).unwrap_or(0)
        })
        .collect()
}

/// An fp8 wgmma atom through `gemm` (K = 128) against an f64 reference: `formats` says which
/// operand is e5m2. The tensor cores accumulate fp8 products with fewer bits than f32's, so the
/// tolerance is `2^-10` of the sum of magnitudes.
fn wgmma_f8(gpu: &Gpu, kernel: KernelFn<(*const u8, *const u8, *mut f32)>, n: usize, formats: [bool; 2]) -> Result<(), String> {
    let module = gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let (a, b) = (random_f8(seed, 64 * 128, formats[0]), random_f8(seed ^ 0xf8, n * 128, formats[1]));
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let mut d = gpu.alloc::<f32>(64 * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(&module, kernel, LaunchConfig::linear(1, 128), (&ga, &gb, &mut d)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&d).map_err(fail("download"))?;
    let decode = |v: &[u8], e5m2: bool| -> Vec<f32> {
        v.iter().map(|&c| if e5m2 { E5M2(c).to_f32() } else { E4M3(c).to_f32() }).collect()
    };
    let (want, scale) = reference(&decode(&a, formats[0]), &decode(&b, formats[1]), None, 64, n, 128);
    let what = format!("fp8 wgmma m64n{n}k32 x 4 (K = 128, seed {seed})");
    let tol = |i: usize| scale[i] * 2f64.powi(-10) + 1e-30;
    match (0..got.len()).find(|&i| !((got[i] as f64 - want[i]).abs() <= tol(i))) {
        None => Ok(()),
        Some(i) => Err(format!("{what}: D[{}][{}] = {}, expected {} (tolerance {:.3e})", i / n, i % n, got[i], want[i], tol(i))),
    }
}

fn wgmma(gpu: &Gpu, kernel: KernelFn<(*const u16, *const u16, u32, *mut f32)>, n: usize, swizzle: u32) -> Result<(), String> {
    let module = gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let a = random_half(seed, 64 * 64, Half::Bf16);
    let b = random_half(seed ^ 0xb, n * 64, Half::Bf16);
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let mut d = gpu.alloc::<f32>(64 * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(&module, kernel, LaunchConfig::linear(1, 128), (&ga, &gb, swizzle, &mut d)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&d).map_err(fail("download"))?;
    let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
    let (want, scale) = reference(&f(&a), &f(&b), None, 64, n, 64);
    let what = format!(
        "wgmma m64n{n}k16 x 4 (K = 64), {} (seed {seed})",
        if swizzle == 0 { "no swizzle" } else { "128-byte swizzle" }
    );
    if got.iter().all(|x| x.is_nan() && x.to_bits() != u32::MAX) {
        return Err(format!(
            "{what}: every element is NaN: the first wgmma (scale-d = 0) did not discard the NaN accumulators"
        ));
    }
    compare_product(&what, &got, &want, &scale, n)
}
