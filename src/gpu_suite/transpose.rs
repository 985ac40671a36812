//! The bf16 transpose (`kernels/src/bench.rs`, `transpose_bf16`): checked exactly against the
//! CPU, timed at 8192 x 8192 (the f32 one is the demo's).

use host::{Gpu, LaunchConfig, Module};

use super::{expect_eq, fail, fresh_seed, random_u32, time_median, Bench, Check, Figure};

pub fn checks() -> Vec<Check> {
    vec![Check { name: "transpose/bf16 192x320", run: |g, m| check(g, m, 192, 320) }]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "transpose/bf16 8192x8192", run: bench }]
}

fn launch(gpu: &Gpu, module: &Module, src: &host::DeviceBuffer<u16>, dst: &host::DeviceBuffer<u16>, m: u32, n: u32) -> host::Result<()> {
    let k = module.kernel("transpose_bf16")?;
    let cfg = LaunchConfig { grid: (n / 64, m / 64, 1), block: (32, 8, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(&k, cfg).arg(src).arg(dst).arg(&m).arg(&n).run() }
}

fn check(gpu: &Gpu, module: &Module, m: usize, n: usize) -> Result<(), String> {
    let data: Vec<u16> = random_u32(fresh_seed(), m * n).into_iter().map(|x| x as u16).collect();
    let want = super::transposed(&data, m, n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch(gpu, module, &src, &dst, m as u32, n as u32).map_err(fail("launch"))?;
    expect_eq("transpose_bf16", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

fn bench(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check(gpu, module, 256, 512)?;
    let (m, n) = (8192usize, 8192usize);
    let src = gpu.upload(&vec![0x3f80u16; m * n]).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch(gpu, module, &src, &dst, m as u32, n as u32))?;
    let peer = time_median(gpu, 3, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = (2 * m * n * 2) as f64;
    Ok(vec![
        Figure { what: "transpose_bf16 (64x65 smem tile)".into(), value: bytes / (ours as f64 * 1e-3) / 1e12, unit: "TB/s" },
        Figure { what: "memcpy DtoD (same bytes)".into(), value: bytes / (peer as f64 * 1e-3) / 1e12, unit: "TB/s" },
    ])
}
