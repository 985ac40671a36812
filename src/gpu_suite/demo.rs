//! The demo's kernels on the GPU: the tiled vectorized copy and the shared-memory transpose,
//! verified against the CPU and timed next to a device-to-device `memcpy` of the same bytes.

use host::{DeviceBuffer, Gpu, LaunchConfig, Module};
use test_kernels::demo::{tiled_copy_f32x4, transpose_f32};

use super::{expect_eq, fail, fresh_seed, random_f32, time_median, Bench, Check, Figure};

/// Floats per row of `tiled_copy_f32x4`'s matrices ([`COPY_ROWS`] rows per block).
const COPY_ROW: usize = 1024;
/// Rows per block of `tiled_copy_f32x4`.
const COPY_ROWS: usize = 4;

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "demo/tiled_copy_f32x4", run: |g, m| check_copy(g, m, 1 << 22) },
        Check { name: "demo/transpose_f32", run: |g, m| check_transpose(g, m, 96, 160) },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![
        Bench { name: "demo/copy 2^26 f32", run: |g, m| bench_copy(g, m, 1 << 26) },
        Bench { name: "demo/transpose 8192x8192 f32", run: |g, m| bench_transpose(g, m, 8192, 8192) },
        Bench { name: "copy/sweep 2^20..2^28 B", run: bench_copy_sweep },
    ]
}

fn launch_copy(
    gpu: &Gpu,
    module: &Module,
    src: &DeviceBuffer<f32>,
    dst: &mut DeviceBuffer<f32>,
) -> host::Result<()> {
    let rows = src.len() / COPY_ROW;
    let matrix = layout_tensor::Strided::row_major([rows as i64, COPY_ROW as i64]);
    let (src, dst) = (src.tensor(matrix)?, dst.tensor(matrix)?);
    // SAFETY: both tensors were checked against their buffers; the grid covers the rows.
    unsafe { gpu.launch(module, tiled_copy_f32x4, LaunchConfig::linear((rows / COPY_ROWS) as u32, 256), (src, dst)).run() }
}

fn launch_transpose(
    gpu: &Gpu,
    module: &Module,
    src: &DeviceBuffer<f32>,
    dst: &mut DeviceBuffer<f32>,
    m: u32,
    n: u32,
) -> host::Result<()> {
    let cfg = LaunchConfig { grid: (n / 32, m / 32, 1), block: (32, 8, 1), shared_mem_bytes: 0 };
    let (src, dst) = (src.tensor(layout_tensor::Strided::row_major([m as i64, n as i64]))?, dst.tensor(layout_tensor::Strided::row_major([n as i64, m as i64]))?);
    // SAFETY: both tensors were checked against their buffers; the grid covers the tiles.
    unsafe { gpu.launch(module, transpose_f32, cfg, (src, dst)).run() }
}

/// Copies `n` fresh random floats (outputs poisoned) and compares exactly.
pub fn check_copy(gpu: &Gpu, module: &Module, n: usize) -> Result<(), String> {
    let data = random_f32(fresh_seed(), n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch_copy(gpu, module, &src, &mut dst).map_err(fail("launch"))?;
    expect_eq("tiled copy", &gpu.download(&dst).map_err(fail("download"))?, &data)
}

/// Transposes a fresh random `m x n` matrix (output poisoned) and compares with the CPU.
pub fn check_transpose(gpu: &Gpu, module: &Module, m: usize, n: usize) -> Result<(), String> {
    let data = random_f32(fresh_seed(), m * n);
    let want = super::transposed(&data, m, n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch_transpose(gpu, module, &src, &mut dst, m as u32, n as u32).map_err(fail("launch"))?;
    expect_eq("transpose", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

/// Bandwidth in TB/s of moving `bytes` (read + written) in `ms`.
fn tbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e12
}

/// The median time of a device-to-device copy of `n` floats.
fn memcpy_ms(gpu: &Gpu, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>) -> Result<f32, String> {
    let mut once = || gpu.copy(src, dst);
    time_median(gpu, 3, 20, &mut once)
}

pub fn bench_copy(gpu: &Gpu, module: &Module, n: usize) -> Result<Vec<Figure>, String> {
    check_copy(gpu, module, n)?;
    let src = gpu.upload(&random_f32(fresh_seed(), n)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch_copy(gpu, module, &src, &mut dst))?;
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
pub fn bench_copy_sweep(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for log in (20..=28).step_by(2) {
        let n = (1usize << log) / 4;
        check_copy(gpu, module, n)?;
        let src = gpu.upload(&random_f32(fresh_seed(), n)).map_err(fail("upload"))?;
        let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
        let ours = time_median(gpu, 3, 20, || launch_copy(gpu, module, &src, &mut dst))?;
        let peer = memcpy_ms(gpu, &src, &mut dst)?;
        figures.push(Figure { what: format!("tiled_copy_f32x4 2^{log} B"), value: tbps(2 * n * 4, ours), unit: "TB/s" });
        figures.push(Figure { what: format!("memcpy 2^{log} B"), value: tbps(2 * n * 4, peer), unit: "TB/s" });
    }
    Ok(figures)
}

pub fn bench_transpose(gpu: &Gpu, module: &Module, m: usize, n: usize) -> Result<Vec<Figure>, String> {
    check_transpose(gpu, module, 256, 512)?;
    let src = gpu.upload(&random_f32(fresh_seed(), m * n)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch_transpose(gpu, module, &src, &mut dst, m as u32, n as u32))?;
    let peer = memcpy_ms(gpu, &src, &mut dst)?;
    let bytes = 2 * m * n * 4;
    Ok(vec![
        Figure { what: "transpose_f32 (32x33 smem tile)".into(), value: tbps(bytes, ours), unit: "TB/s" },
        Figure { what: "memcpy DtoD (same bytes)".into(), value: tbps(bytes, peer), unit: "TB/s" },
    ])
}

/// The demo on the CPU backend: the same two kernels at sizes the host runs in well under a
/// second, each verified against the CPU reference, with the wall time of one launch.
///
/// ```
/// let cpu = host::Gpu::cpu();
/// let module = cpu.module(&cute_rs::TEST_KERNELS).unwrap();
/// let figures = cute_rs::gpu_suite::demo::cpu_demo(&cpu, &module).unwrap();
/// assert_eq!(figures.len(), 2);
/// ```
pub fn cpu_demo(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check_copy(gpu, module, 1 << 16)?;
    check_transpose(gpu, module, 128, 128)?;
    let copy_src = gpu.upload(&random_f32(fresh_seed(), 1 << 16)).map_err(fail("upload"))?;
    let mut copy_dst = gpu.alloc::<f32>(1 << 16).map_err(fail("alloc"))?;
    let copy = gpu.time_ms(|| launch_copy(gpu, module, &copy_src, &mut copy_dst)).map_err(fail("copy"))?;
    let t_src = gpu.upload(&random_f32(fresh_seed(), 128 * 128)).map_err(fail("upload"))?;
    let mut t_dst = gpu.alloc::<f32>(128 * 128).map_err(fail("alloc"))?;
    let transpose =
        gpu.time_ms(|| launch_transpose(gpu, module, &t_src, &mut t_dst, 128, 128)).map_err(fail("transpose"))?;
    Ok(vec![
        Figure { what: "tiled_copy_f32x4, 2^16 f32".into(), value: copy as f64, unit: "ms" },
        Figure { what: "transpose_f32 128x128 (shared tile)".into(), value: transpose as f64, unit: "ms" },
    ])
}
