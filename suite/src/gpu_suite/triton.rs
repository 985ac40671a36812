//! Triton's `tl.load`/`tl.store` on the GPU (`tests/kernels/src/triton.rs`): Triton's indirect
//! load example (`triton_ldst_indirect_07`) against its torch-style reference.

use cute_rs_host::{Gpu, KernelFn, LaunchConfig, Module};
use test_kernels::triton;

use super::{expect_eq, fail, fresh_seed, random_f32, Check};

/// `XS`, `RS` of the kernel (tests/kernels/src/triton.rs) and the example's `offset`, `N1`, `blocksize`.
const XS: usize = 4;
const RS: usize = 16;
const OFFSET: i64 = 8;
const N1: usize = 32;
const BLOCKSIZE: usize = 4;

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "triton/ldst_indirect_07 (seed indirect load, torch reference)", run: |g, m| check_indirect(g, m, triton::triton_ldst_indirect_07, 1) },
        Check {
            name: "triton/block tiles: ldst_indirect_07 (seed indirect load, torch reference)",
            run: |g, m| check_indirect(g, m, test_kernels::block_examples::block_seed_ldst_indirect_07, 64),
        },
        Check { name: "triton/block tiles: hinted copy of f16 (evict_last, .cs) and u8 (.cg + evict_first, .wt)", run: check_hinted_copy },
        Check { name: "triton/block tiles: block pointers (advance, boundary_check, NaN padding, .cg + evict_last)", run: check_block_ptr_pad },
        Check { name: "triton/masked_copy_f32 (mask, other, .cg, evict_first)", run: check_masked_copy },
        Check { name: "triton/volatile loads of bool (mask, other)", run: check_volatile_bool },
        Check { name: "triton/broadcast_f32 (a (2, 1) mask, a row and an i32 scalar as other)", run: check_broadcast },
        Check { name: "triton/block_pad_f32 (block pointers, boundary_check, NaN padding)", run: check_block_pad },
        Check { name: "triton/scalar_affine_f32 (0-d loads, masked scalar, .cs + evict_first store)", run: check_scalar_affine },
    ]
}

/// The kernels of Triton's indirect load example: `(out, xr, xc, x2, stride_in_r)`.
type IndirectKernel = KernelFn<(*mut f32, *const i64, *const i64, *const f32, i64)>;

/// `torch_ldst_indirect_07_func`: `x2.flatten()[(xr[:, None] * stride0 + xc[None, :]).flatten()]`.
fn torch_ref(xr: &[i64], xc: &[i64], x2: &[f32], stride0: i64) -> Vec<f32> {
    xr.iter().flat_map(|&r| xc.iter().map(move |&c| x2[(r * stride0 + c) as usize])).collect()
}

/// The example's script: `xc = offset + arange(N0)`, `xr = arange(blocksize)`, `x2 = randn(blocksize,
/// N1)` (uniform here), one program (`nr == xs`) of `threads` (one for the per-thread tiles, 64
/// for the block tiles); the output is poisoned before the launch.
pub fn check_indirect(gpu: &Gpu, module: &Module, kernel: IndirectKernel, threads: u32) -> Result<(), String> {
    let xc: Vec<i64> = (0..RS as i64).map(|i| OFFSET + i).collect();
    let xr: Vec<i64> = (0..BLOCKSIZE as i64).collect();
    let x2 = random_f32(fresh_seed(), BLOCKSIZE * N1);
    let stride_in_r = N1 as i64;
    let want = torch_ref(&xr, &xc, &x2, stride_in_r);
    let d_xr = gpu.upload(&xr).map_err(fail("upload xr"))?;
    let d_xc = gpu.upload(&xc).map_err(fail("upload xc"))?;
    let d_x2 = gpu.upload(&x2).map_err(fail("upload x2"))?;
    let mut y0 = gpu.alloc::<f32>(BLOCKSIZE * RS).map_err(fail("alloc"))?;
    gpu.memset(&mut y0, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: ((BLOCKSIZE / XS) as u32, 1, 1), block: (threads, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, kernel, cfg, (&mut y0, &d_xr, &d_xc, &d_x2, stride_in_r)).run() }
        .map_err(fail("launch"))?;
    expect_eq("triton indirect load", &gpu.download(&y0).map_err(fail("download"))?, &want)
}

/// `triton_masked_copy_f32` over `n = 1000 * 1000 + 3` floats (the last tile partial): `dst`
/// (poisoned) is `src` below `n` and `other` beyond.
pub fn check_masked_copy(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = 1_000_003usize;
    let grid = n.div_ceil(1024);
    let other = -7.5f32;
    let src = random_f32(fresh_seed(), n);
    let mut want = src.clone();
    want.resize(grid * 1024, other);
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(grid * 1024).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (grid as u32, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    let n64 = n as i64;
    unsafe { gpu.launch(module, triton::triton_masked_copy_f32, cfg, (&d_src, &mut dst, n64, other)).run() }
        .map_err(fail("launch"))?;
    expect_eq("triton masked copy", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

/// `triton_volatile_bool` over `n = 4 * 1024 + 3` random `bool`s (the last tile partial): `dst`
/// (poisoned) is `src` as 0 and 1 below `n`, and 1 (`other=True`) beyond.
fn check_volatile_bool(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n: usize = 4 * 1024 + 3;
    let grid = n.div_ceil(1024);
    let src: Vec<u8> = random_f32(fresh_seed(), n).iter().map(|v| (*v > 0.0) as u8).collect();
    let mut want: Vec<u32> = src.iter().map(|&b| b as u32).collect();
    want.resize(grid * 1024, 1);
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(grid * 1024).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (grid as u32, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, triton::triton_volatile_bool, cfg, (&d_src, &mut dst, n as i64)).run() }.map_err(fail("launch"))?;
    expect_eq("volatile bool loads", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

/// `triton_broadcast_f32` with 64 threads over `n_rows = 101` of 128 rows: rows from `n_rows` on
/// read `fill` (a row) into `dst` and -1 into `dst_scalar`; both outputs poisoned.
fn check_broadcast(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (threads, n_rows) = (64usize, 101usize);
    let src = random_f32(fresh_seed(), 4 * n_rows);
    let fill = random_f32(fresh_seed(), 4);
    let row = |r: usize, c: usize, other: f32| if r < n_rows { src[r * 4 + c] } else { other };
    let want: Vec<f32> = (0..8 * threads).map(|i| row(i / 4, i % 4, fill[i % 4])).collect();
    let want_scalar: Vec<f32> = (0..8 * threads).map(|i| row(i / 4, i % 4, -1.0)).collect();
    let d_src = gpu.upload(&src).map_err(fail("upload src"))?;
    let d_fill = gpu.upload(&fill).map_err(fail("upload fill"))?;
    let mut dst = gpu.alloc::<f32>(8 * threads).map_err(fail("alloc"))?;
    let mut dst_scalar = gpu.alloc::<f32>(8 * threads).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut dst_scalar, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (1, 1, 1), block: (threads as u32, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, triton::triton_broadcast_f32, cfg, (&d_src, &d_fill, &mut dst, &mut dst_scalar, n_rows as i64)).run() }
        .map_err(fail("launch"))?;
    expect_eq("other broadcast from a row", &gpu.download(&dst).map_err(fail("download"))?, &want)?;
    expect_eq("other converted from an i32", &gpu.download(&dst_scalar).map_err(fail("download"))?, &want_scalar)
}

/// A random row-major `rows x cols` matrix, and the bits of the row-major `drows x dcols` matrix
/// holding it at the origin with the NaN of bits `nan` around it.
pub(super) fn padded_case(rows: usize, cols: usize, drows: usize, dcols: usize, nan: u32) -> (Vec<f32>, Vec<u32>) {
    let src = random_f32(fresh_seed(), rows * cols);
    let mut want = vec![nan; drows * dcols];
    for r in 0..rows {
        for c in 0..cols {
            want[r * dcols + c] = src[r * cols + c].to_bits();
        }
    }
    (src, want)
}

/// `triton_block_pad_f32` on a 37 x 45 matrix into a poisoned 38 x 48 one: the matrix, NaN around
/// it (compared bit for bit).
pub fn check_block_pad(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols, drows, dcols) = (37usize, 45usize, 38usize, 48usize);
    let (src, want) = padded_case(rows, cols, drows, dcols, f32::NAN.to_bits());
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(drows * dcols).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (1, (drows / 2) as u32, 1), block: ((dcols / 4) as u32, 1, 1), shared_mem_bytes: 0 };
    let (r64, c64, dc64) = (rows as i64, cols as i64, dcols as i64);
    unsafe { gpu.launch(module, triton::triton_block_pad_f32, cfg, (&d_src, &mut dst, r64, c64, dc64)).run() }
        .map_err(fail("launch"))?;
    let got: Vec<u32> = gpu.download(&dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    expect_eq("triton block pad (bits)", &got, &want)
}

/// `triton_scalar_affine_f32` over `n = 100_003` floats into a poisoned buffer with 1021 more:
/// `src * scale + bias` below `n` (bias from the second scalar), the poison untouched beyond; then
/// again with a one-element `params` and the bias masked out: `src * scale`.
pub fn check_scalar_affine(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = 100_003usize;
    let grid = n.div_ceil(1024);
    let src = random_f32(fresh_seed(), n);
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let cfg = LaunchConfig { grid: (grid as u32, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    let n64 = n as i64;
    for (params, has_bias) in [(vec![1.5f32, -0.25], 1i32), (vec![-2.0f32], 0)] {
        let bias = if has_bias != 0 { params[1] } else { 0.0 };
        let mut want: Vec<u32> = src.iter().map(|x| (x * params[0] + bias).to_bits()).collect();
        want.resize(grid * 1024, u32::MAX);
        let d_params = gpu.upload(&params).map_err(fail("upload params"))?;
        let mut dst = gpu.alloc::<f32>(grid * 1024).map_err(fail("alloc"))?;
        gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
        unsafe {
            gpu.launch(module, triton::triton_scalar_affine_f32, cfg, (&d_src, &mut dst, &d_params, has_bias, n64)).run()
        }
        .map_err(fail("launch"))?;
        let got: Vec<u32> = gpu.download(&dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
        expect_eq(if has_bias != 0 { "scalar affine (bias)" } else { "scalar affine (bias masked out)" }, &got, &want)?;
    }
    Ok(())
}

/// `block_hinted_copy` over `n = 100_003` random f16 and bytes (the last program partial) into
/// poisoned buffers with 512 more elements: the copies below `n`, the poison beyond.
fn check_hinted_copy(gpu: &Gpu, module: &Module) -> Result<(), String> {
    use cute_rs_tensor::half::f16;
    let n = 100_003usize;
    let grid = n.div_ceil(512);
    let bits = random_f32(fresh_seed(), n);
    let halves: Vec<f16> = bits.iter().map(|&x| f16::from_f32(x)).collect();
    let bytes: Vec<u8> = bits.iter().map(|&x| (x * 255.0) as u8).collect();
    let (s16, s8) = (gpu.upload(&halves).map_err(fail("upload"))?, gpu.upload(&bytes).map_err(fail("upload"))?);
    let mut d16 = gpu.alloc::<f16>(n + 512).map_err(fail("alloc"))?;
    let mut d8 = gpu.alloc::<u8>(n + 512).map_err(fail("alloc"))?;
    gpu.memset(&mut d16, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut d8, 0xff).map_err(fail("poison"))?;
    let args = (&s16, &mut d16, &s8, &mut d8, n as i64);
    unsafe { gpu.launch(module, test_kernels::block_examples::block_hinted_copy, LaunchConfig::linear(grid as u32, 128), args).run() }
        .map_err(fail("launch"))?;
    let got16: Vec<u16> = gpu.download(&d16).map_err(fail("download"))?.iter().map(|h| h.to_bits()).collect();
    let mut want16: Vec<u16> = halves.iter().map(|h| h.to_bits()).collect();
    want16.resize(n + 512, u16::MAX);
    expect_eq("hinted f16 copy (bits)", &got16, &want16)?;
    let mut want8 = bytes.clone();
    want8.resize(n + 512, u8::MAX);
    expect_eq("hinted u8 copy", &gpu.download(&d8).map_err(fail("download"))?, &want8)
}

/// `block_ptr_pad` on a 37 x 45 matrix into a poisoned 48 x 128 one (grid 2 x 3): the matrix, NaN
/// around it (compared bit for bit).
fn check_block_ptr_pad(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols, drows, dcols) = (37usize, 45usize, 48usize, 128usize);
    let (src, want) = padded_case(rows, cols, drows, dcols, f32::NAN.to_bits());
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(drows * dcols).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: ((dcols / 64) as u32, (drows / 16) as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
    let args = (&d_src, &mut dst, rows as i64, cols as i64, drows as i64, dcols as i64);
    unsafe { gpu.launch(module, test_kernels::block_examples::block_ptr_pad, cfg, args).run() }.map_err(fail("launch"))?;
    let got: Vec<u32> = gpu.download(&dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    expect_eq("block pointer pad (bits)", &got, &want)
}
