//! The demo's kernels (`demo-kernels/`, launched by the demo package's [`cute_rs::demo`]) in the
//! suite: checked on fresh random data and timed next to a device-to-device `memcpy` of the same
//! bytes, with the copy swept over sizes for the benchmark report.

use cute_rs::demo::{check_copy, check_transpose, fresh_random, launch_copy, launch_transpose, tbps};
use cute_rs_host::{DeviceBuffer, Gpu, Module};

use super::{fail, time_median, Bench, Check, Figure};

/// The demo's module, loaded once per [`Gpu`].
fn demo_module(gpu: &Gpu) -> Result<std::sync::Arc<Module>, String> {
    gpu.module(&cute_rs::DEMO).map_err(fail("loading the demo module"))
}

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "demo/tiled_copy_f32x4", run: |g, _| check_copy(g, &*demo_module(g)?, 1 << 22) },
        Check { name: "demo/transpose_f32", run: |g, _| check_transpose(g, &*demo_module(g)?, 96, 160) },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![
        Bench { name: "demo/copy 2^26 f32", run: |g, _| bench_copy(g, 1 << 26) },
        Bench { name: "demo/transpose 8192x8192 f32", run: |g, _| bench_transpose(g, 8192, 8192) },
        Bench { name: "copy/sweep 2^20..2^28 B", run: |g, _| bench_copy_sweep(g) },
    ]
}

/// The median time of a device-to-device copy of `src` into `dst`.
fn memcpy_ms(gpu: &Gpu, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>) -> Result<f32, String> {
    time_median(gpu, 3, 20, || gpu.copy(src, dst))
}

fn bench_copy(gpu: &Gpu, n: usize) -> Result<Vec<Figure>, String> {
    let module = demo_module(gpu)?;
    check_copy(gpu, &module, n)?;
    let src = gpu.upload(&fresh_random(n)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch_copy(gpu, &module, &src, &mut dst))?;
    let peer = memcpy_ms(gpu, &src, &mut dst)?;
    let bytes = 2 * n * 4;
    Ok(vec![
        Figure { what: "tiled_copy_f32x4".into(), value: tbps(bytes, ours), unit: "TB/s" },
        Figure { what: "memcpy DtoD".into(), value: tbps(bytes, peer), unit: "TB/s" },
        Figure { what: "copy / memcpy".into(), value: peer as f64 / ours as f64 * 100.0, unit: "%" },
    ])
}

/// The tiled copy against memcpy for arrays of 2^20, 2^22, ..., 2^28 bytes (the bandwidth-against-
/// size plot of the benchmark report); figures `tiled_copy_f32x4 2^k B` and `memcpy 2^k B`.
fn bench_copy_sweep(gpu: &Gpu) -> Result<Vec<Figure>, String> {
    let module = demo_module(gpu)?;
    let mut figures = Vec::new();
    for log in (20..=28).step_by(2) {
        let n = (1usize << log) / 4;
        check_copy(gpu, &module, n)?;
        let src = gpu.upload(&fresh_random(n)).map_err(fail("upload"))?;
        let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
        let ours = time_median(gpu, 3, 20, || launch_copy(gpu, &module, &src, &mut dst))?;
        let peer = memcpy_ms(gpu, &src, &mut dst)?;
        figures.push(Figure { what: format!("tiled_copy_f32x4 2^{log} B"), value: tbps(2 * n * 4, ours), unit: "TB/s" });
        figures.push(Figure { what: format!("memcpy 2^{log} B"), value: tbps(2 * n * 4, peer), unit: "TB/s" });
    }
    Ok(figures)
}

fn bench_transpose(gpu: &Gpu, m: usize, n: usize) -> Result<Vec<Figure>, String> {
    let module = demo_module(gpu)?;
    check_transpose(gpu, &module, 256, 512)?;
    let src = gpu.upload(&fresh_random(m * n)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch_transpose(gpu, &module, &src, &mut dst, m as u32, n as u32))?;
    let peer = memcpy_ms(gpu, &src, &mut dst)?;
    let bytes = 2 * m * n * 4;
    Ok(vec![
        Figure { what: "transpose_f32 (32x33 smem tile)".into(), value: tbps(bytes, ours), unit: "TB/s" },
        Figure { what: "memcpy DtoD (same bytes)".into(), value: tbps(bytes, peer), unit: "TB/s" },
    ])
}
