//! The demo's kernels on a GPU or the CPU backend: the tiled vectorized copy and the shared-memory
//! transpose of `demo-kernels/`, each checked against the CPU on fresh random data (outputs
//! poisoned first) and timed with CUDA events beside a device-to-device copy of the same bytes.

use cute_rs_host::{DeviceBuffer, Gpu, LaunchConfig, Module, Rng};
use cute_rs_tensor::Strided;
use demo_kernels::demo::{tiled_copy_f32x4, transpose_f32};

/// Floats per row of `tiled_copy_f32x4`'s matrices ([`COPY_ROWS`] rows per block).
pub const COPY_ROW: usize = 1024;
/// Rows per block of `tiled_copy_f32x4`.
pub const COPY_ROWS: usize = 4;

/// One measured figure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// What was measured (`"tiled_copy_f32x4"`, `"memcpy DtoD"`).
    pub what: String,
    /// The value.
    pub value: f64,
    /// Its unit (`"TB/s"`, `"ms"`).
    pub unit: &'static str,
}

/// Launches `tiled_copy_f32x4` on `src` (a multiple of [`COPY_ROWS`] x [`COPY_ROW`] floats).
///
/// # Errors
/// The launch's checks, or the tensors' fit in their buffers.
///
/// # Example
/// ```
/// let gpu = cute_rs_host::Gpu::cpu();
/// let module = gpu.module(&cute_rs::DEMO)?;
/// let src = gpu.upload(&vec![1.5f32; 4096])?;
/// let mut dst = gpu.alloc::<f32>(4096)?;
/// cute_rs::demo::launch_copy(&gpu, &module, &src, &mut dst)?;
/// assert!(gpu.download(&dst)?.iter().all(|&x| x == 1.5));
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub fn launch_copy(gpu: &Gpu, module: &Module, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>) -> cute_rs_host::Result<()> {
    let rows = src.len() / COPY_ROW;
    let matrix = Strided::row_major([rows as i64, COPY_ROW as i64]);
    let (src, dst) = (src.tensor(matrix)?, dst.tensor_mut(matrix)?);
    let cfg = LaunchConfig::linear((rows / COPY_ROWS) as u32, 256);
    // SAFETY: both tensors were checked against their buffers; the grid covers the rows.
    unsafe { gpu.launch(module, tiled_copy_f32x4, cfg, (src, dst)).run() }
}

/// Launches `transpose_f32`: the row-major `m x n` matrix `src` into the row-major `n x m` `dst`
/// (`m` and `n` multiples of 32).
///
/// # Errors
/// The launch's checks, or the tensors' fit in their buffers.
///
/// # Example
/// ```
/// let gpu = cute_rs_host::Gpu::cpu();
/// let module = gpu.module(&cute_rs::DEMO)?;
/// let src = gpu.upload(&(0..32 * 64).map(|i| i as f32).collect::<Vec<_>>())?;
/// let mut dst = gpu.alloc::<f32>(32 * 64)?;
/// cute_rs::demo::launch_transpose(&gpu, &module, &src, &mut dst, 32, 64)?;
/// assert_eq!(gpu.download(&dst)?[1], 64.0); // dst(0, 1) = src(1, 0)
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub fn launch_transpose(
    gpu: &Gpu,
    module: &Module,
    src: &DeviceBuffer<f32>,
    dst: &mut DeviceBuffer<f32>,
    m: u32,
    n: u32,
) -> cute_rs_host::Result<()> {
    let cfg = LaunchConfig { grid: (n / 32, m / 32, 1), block: (32, 8, 1), shared_mem_bytes: 0 };
    let src = src.tensor(Strided::row_major([m as i64, n as i64]))?;
    let dst = dst.tensor_mut(Strided::row_major([n as i64, m as i64]))?;
    // SAFETY: both tensors were checked against their buffers; the grid covers the tiles.
    unsafe { gpu.launch(module, transpose_f32, cfg, (src, dst)).run() }
}

/// `n` random floats in `[-1, 1)` from a seed that differs from run to run.
///
/// # Example
/// ```
/// let x = cute_rs::demo::fresh_random(1000);
/// assert!(x.len() == 1000 && x.iter().all(|v| (-1.0..1.0).contains(v)));
/// ```
pub fn fresh_random(n: usize) -> Vec<f32> {
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1);
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (rng.next_f64() * 2.0 - 1.0) as f32).collect()
}

/// Turns an error into a message naming the step that failed.
fn step<E: std::fmt::Display>(what: &'static str) -> impl FnOnce(E) -> String {
    move |e| format!("{what}: {e}")
}

/// Compares exactly; the error names the first differing index.
fn expect_eq(what: &str, got: &[f32], want: &[f32]) -> Result<(), String> {
    match got.iter().zip(want).position(|(g, w)| g != w) {
        _ if got.len() != want.len() => Err(format!("{what}: length {} instead of {}", got.len(), want.len())),
        None => Ok(()),
        Some(i) => Err(format!("{what}: index {i}: got {}, expected {}", got[i], want[i])),
    }
}

/// Copies `n` fresh random floats (the output poisoned first) and compares exactly.
///
/// # Example
/// ```
/// let gpu = cute_rs_host::Gpu::cpu();
/// let module = gpu.module(&cute_rs::DEMO).unwrap();
/// cute_rs::demo::check_copy(&gpu, &module, 1 << 14).unwrap();
/// ```
pub fn check_copy(gpu: &Gpu, module: &Module, n: usize) -> Result<(), String> {
    let data = fresh_random(n);
    let src = gpu.upload(&data).map_err(step("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(step("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(step("poison"))?;
    launch_copy(gpu, module, &src, &mut dst).map_err(step("launch"))?;
    expect_eq("tiled copy", &gpu.download(&dst).map_err(step("download"))?, &data)
}

/// Transposes a fresh random `m x n` matrix (the output poisoned first) and compares with the
/// CPU's transpose.
///
/// # Example
/// ```
/// let gpu = cute_rs_host::Gpu::cpu();
/// let module = gpu.module(&cute_rs::DEMO).unwrap();
/// cute_rs::demo::check_transpose(&gpu, &module, 64, 96).unwrap();
/// ```
pub fn check_transpose(gpu: &Gpu, module: &Module, m: usize, n: usize) -> Result<(), String> {
    let data = fresh_random(m * n);
    let want: Vec<f32> = (0..n * m).map(|i| data[(i % m) * n + i / m]).collect();
    let src = gpu.upload(&data).map_err(step("upload"))?;
    let mut dst = gpu.alloc::<f32>(m * n).map_err(step("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(step("poison"))?;
    launch_transpose(gpu, module, &src, &mut dst, m as u32, n as u32).map_err(step("launch"))?;
    expect_eq("transpose", &gpu.download(&dst).map_err(step("download"))?, &want)
}

/// The median time in ms of `reps` runs of `f` with CUDA events, after 3 warm-up runs (wall
/// clock on the CPU backend).
///
/// # Example
/// ```
/// let cpu = cute_rs_host::Gpu::cpu();
/// let ms = cute_rs::demo::median_ms(&cpu, 5, || Ok(())).unwrap();
/// assert!(ms >= 0.0);
/// ```
pub fn median_ms(gpu: &Gpu, reps: usize, mut f: impl FnMut() -> cute_rs_host::Result<()>) -> Result<f32, String> {
    for _ in 0..3 {
        f().map_err(step("warm-up"))?;
    }
    let mut times = (0..reps.max(1)).map(|_| gpu.time_ms(&mut f).map_err(step("timed run"))).collect::<Result<Vec<_>, _>>()?;
    times.sort_by(f32::total_cmp);
    Ok(times[times.len() / 2])
}

/// Bandwidth in TB/s of moving `bytes` (read + written) in `ms`.
///
/// # Example
/// ```
/// assert_eq!(cute_rs::demo::tbps(4_000_000_000, 1.0), 4.0);
/// ```
pub fn tbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e12
}

/// On a GPU: both kernels checked, then timed (2^26 floats; 8192 x 8192) beside a
/// device-to-device copy of the same bytes.
pub fn gpu_figures(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    let n = 1 << 26;
    check_copy(gpu, module, n)?;
    check_transpose(gpu, module, 256, 512)?;
    let src = gpu.upload(&fresh_random(n)).map_err(step("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(step("alloc"))?;
    let copy = median_ms(gpu, 20, || launch_copy(gpu, module, &src, &mut dst))?;
    let transpose = median_ms(gpu, 20, || launch_transpose(gpu, module, &src, &mut dst, 8192, 8192))?;
    let memcpy = median_ms(gpu, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = 2 * n * 4;
    Ok(vec![
        Figure { what: "tiled_copy_f32x4, 2^26 f32".into(), value: tbps(bytes, copy), unit: "TB/s" },
        Figure { what: "transpose_f32 8192x8192 (shared tile)".into(), value: tbps(bytes, transpose), unit: "TB/s" },
        Figure { what: "memcpy DtoD, same bytes".into(), value: tbps(bytes, memcpy), unit: "TB/s" },
    ])
}

/// On the CPU backend: the same two kernels at sizes the host runs in well under a second, each
/// checked against the CPU, with the wall time of one launch.
///
/// # Example
/// ```
/// let cpu = cute_rs_host::Gpu::cpu();
/// let module = cpu.module(&cute_rs::DEMO).unwrap();
/// let figures = cute_rs::demo::cpu_figures(&cpu, &module).unwrap();
/// assert_eq!(figures.len(), 2);
/// ```
pub fn cpu_figures(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check_copy(gpu, module, 1 << 16)?;
    check_transpose(gpu, module, 128, 128)?;
    let src = gpu.upload(&fresh_random(1 << 16)).map_err(step("upload"))?;
    let mut dst = gpu.alloc::<f32>(1 << 16).map_err(step("alloc"))?;
    let copy = gpu.time_ms(|| launch_copy(gpu, module, &src, &mut dst)).map_err(step("copy"))?;
    let transpose = gpu.time_ms(|| launch_transpose(gpu, module, &src, &mut dst, 128, 128)).map_err(step("transpose"))?;
    Ok(vec![
        Figure { what: "tiled_copy_f32x4, 2^16 f32".into(), value: copy as f64, unit: "ms" },
        Figure { what: "transpose_f32 128x128 (shared tile)".into(), value: transpose as f64, unit: "ms" },
    ])
}
