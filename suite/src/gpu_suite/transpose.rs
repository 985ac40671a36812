//! The bf16 transposes: `transpose_bf16` (`tests/kernels/src/bench.rs`, through a padded shared
//! tile) and `transpose_tma_bf16` (`tests/kernels/src/block_examples.rs`, cuTile's sample on block
//! tiles, TMA both ways), checked exactly against the CPU, timed at 8192 x 8192 (the f32 one is
//! the demo's).
//!
//! The kernel moves the bf16 bits as 32-bit pairs (`*const u32`): its buffers hold `m * n / 2`
//! words, word `i` holding elements `2i` (low half) and `2i + 1` (high half), the bytes of the
//! `u16` array.

use cute_rs_host::{DeviceBuffer, Gpu, LaunchConfig, Module, TmaOobFill};
use cute_rs_tensor::half::bf16;
use cute_rs_tensor::Strided;
use test_kernels::bench::transpose_bf16;
use test_kernels::block_examples::transpose_tma_bf16;

use super::{expect_eq, fail, fresh_seed, random_u32, time_median, Bench, Check, Figure};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "transpose/bf16 192x320", run: |g, m| check(g, m, 192, 320) },
        Check { name: "transpose/bf16 through TMA on block tiles, 200x136 (partial tiles)", run: |g, m| check_tma(g, m, 200, 136, 0).map(|_| ()) },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "transpose/bf16 8192x8192", run: bench }]
}

fn launch(
    gpu: &Gpu,
    module: &Module,
    src: &DeviceBuffer<u32>,
    dst: &mut DeviceBuffer<u32>,
    m: u32,
    n: u32,
) -> cute_rs_host::Result<()> {
    let cfg = LaunchConfig { grid: (n / 64, m / 64, 1), block: (32, 8, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, transpose_bf16, cfg, (src, dst, m, n)).run() }
}

/// The `u16` elements as the kernel's 32-bit pairs (little-endian: the even element low).
fn pairs(elements: &[u16]) -> Vec<u32> {
    elements.chunks_exact(2).map(|p| p[0] as u32 | (p[1] as u32) << 16).collect()
}

/// The kernel's 32-bit pairs as `u16` elements.
fn elements(pairs: &[u32]) -> Vec<u16> {
    pairs.iter().flat_map(|&w| [w as u16, (w >> 16) as u16]).collect()
}

fn check(gpu: &Gpu, module: &Module, m: usize, n: usize) -> Result<(), String> {
    let data: Vec<u16> = random_u32(fresh_seed(), m * n).into_iter().map(|x| x as u16).collect();
    let want = super::transposed(&data, m, n);
    let src = gpu.upload(&pairs(&data)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(m * n / 2).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch(gpu, module, &src, &mut dst, m as u32, n as u32).map_err(fail("launch"))?;
    expect_eq("transpose_bf16", &elements(&gpu.download(&dst).map_err(fail("download"))?), &want)
}

/// `transpose_tma_bf16` of the `m x n` matrix in `src` into `dst`, both with maps for 64 x 64
/// boxes.
fn launch_tma(gpu: &Gpu, module: &Module, src: &cute_rs_host::TmaArray<'_, bf16, 2>, dst: &cute_rs_host::TmaArray<'_, bf16, 2>, m: usize, n: usize) -> cute_rs_host::Result<()> {
    let cfg = LaunchConfig { grid: (n.div_ceil(64) as u32, m.div_ceil(64) as u32, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, transpose_tma_bf16, cfg, (src, dst)).run() }
}

/// Transposes a random `m x n` matrix through TMA into a poisoned one, checks it exactly, and
/// returns the milliseconds of `reps` timed runs' median (none for 0).
fn check_tma(gpu: &Gpu, module: &Module, m: usize, n: usize, reps: usize) -> Result<Option<f32>, String> {
    let data: Vec<u16> = random_u32(fresh_seed(), m * n).into_iter().map(|x| x as u16).collect();
    let src = gpu.upload(&data.iter().map(|&b| bf16::from_bits(b)).collect::<Vec<_>>()).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<bf16>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let (mi, ni) = (m as i64, n as i64);
    let ms = {
        let a = gpu.tma_array(src.tensor(Strided::row_major([mi, ni])).map_err(fail("tensor"))?, [64, 64], TmaOobFill::Zero).map_err(fail("tma_array"))?;
        let b = gpu.tma_array(dst.tensor(Strided::row_major([ni, mi])).map_err(fail("tensor"))?, [64, 64], TmaOobFill::Zero).map_err(fail("tma_array"))?;
        launch_tma(gpu, module, &a, &b, m, n).map_err(fail("launch"))?;
        if reps > 0 { Some(time_median(gpu, 3, reps, || launch_tma(gpu, module, &a, &b, m, n))?) } else { None }
    };
    let got: Vec<u16> = gpu.download(&dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    expect_eq("transpose_tma_bf16", &got, &super::transposed(&data, m, n))?;
    Ok(ms)
}

fn bench(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check(gpu, module, 256, 512)?;
    let tma_ms = check_tma(gpu, module, 8192, 8192, 20)?.unwrap_or(f32::NAN);
    let (m, n) = (8192usize, 8192usize);
    let src = gpu.upload(&pairs(&vec![0x3f80u16; m * n])).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(m * n / 2).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch(gpu, module, &src, &mut dst, m as u32, n as u32))?;
    let peer = time_median(gpu, 3, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = (2 * m * n * 2) as f64;
    Ok(vec![
        Figure { what: "transpose_bf16 (64x65 smem tile)".into(), value: bytes / (ours as f64 * 1e-3) / 1e12, unit: "TB/s" },
        Figure { what: "transpose_tma_bf16 (block tiles, TMA both ways, 64x64)".into(), value: bytes / (tma_ms as f64 * 1e-3) / 1e12, unit: "TB/s" },
        Figure { what: "memcpy DtoD (same bytes)".into(), value: bytes / (peer as f64 * 1e-3) / 1e12, unit: "TB/s" },
    ])
}
