//! The bf16 transpose (`tests/kernels/src/bench.rs`, `transpose_bf16`): checked exactly against
//! the CPU, timed at 8192 x 8192 (the f32 one is the demo's).
//!
//! The kernel moves the bf16 bits as 32-bit pairs (`*const u32`): its buffers hold `m * n / 2`
//! words, word `i` holding elements `2i` (low half) and `2i + 1` (high half), the bytes of the
//! `u16` array.

use cute_rs_host::{DeviceBuffer, Gpu, LaunchConfig, Module};
use test_kernels::bench::transpose_bf16;

use super::{expect_eq, fail, fresh_seed, random_u32, time_median, Bench, Check, Figure};

pub fn checks() -> Vec<Check> {
    vec![Check { name: "transpose/bf16 192x320", run: |g, m| check(g, m, 192, 320) }]
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

fn bench(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check(gpu, module, 256, 512)?;
    let (m, n) = (8192usize, 8192usize);
    let src = gpu.upload(&pairs(&vec![0x3f80u16; m * n])).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(m * n / 2).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch(gpu, module, &src, &mut dst, m as u32, n as u32))?;
    let peer = time_median(gpu, 3, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = (2 * m * n * 2) as f64;
    Ok(vec![
        Figure { what: "transpose_bf16 (64x65 smem tile)".into(), value: bytes / (ours as f64 * 1e-3) / 1e12, unit: "TB/s" },
        Figure { what: "memcpy DtoD (same bytes)".into(), value: bytes / (peer as f64 * 1e-3) / 1e12, unit: "TB/s" },
    ])
}
