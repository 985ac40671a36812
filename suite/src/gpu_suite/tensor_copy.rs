//! The `LayoutTensor` copy kernels (`tests/kernels/src/tensor_copy.rs`,
//! `tests/kernels/src/copy_async.rs`) on the GPU: verified exactly against CPU references, the copy
//! timed next to a device-to-device `memcpy`.

use cute_rs_host::{DeviceBuffer, Gpu, KernelParam, LaunchConfig, Module, TmaOobFill, TmaSwizzle};
use test_kernels::{copy_async, tensor_copy, tma_tile};

use super::{expect_eq, fail, fresh_seed, random_f32, time_median, Bench, Check, Figure};
use crate::tensor_copy_layouts::{COLS, ODD_COLS, ODD_ROWS, ROWS, THREADS, TILE_COLS, TILE_ROWS, T_COLS, T_ROWS};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "tensor/tensor_copy_f32 8192x8192", run: check_copy },
        Check { name: "tensor/tensor_copy_masked_f32 1000x1000 (partial tiles)", run: check_masked },
        Check { name: "tensor/tensor_copy_f32_raw 8192x8192 (raw-pointer twin)", run: check_raw },
        Check { name: "tensor/tensor_transpose_f32 1024x2048 (shared tile)", run: check_transpose },
        Check { name: "tensor/mojo_copy_from_async_f32 128x128 (Mojo's documented example)", run: check_mojo_copy_from_async },
        Check { name: "tensor/copy_async_zero_fill_f32 98x70 (cp.async zero-fill)", run: check_copy_async_zero_fill },
        Check { name: "tensor/tiled_copy_async_f32 1024x512 (thread-value tiled copy, cp.async)", run: check_tiled_copy_async },
        Check { name: "tensor/copy_async_clipped_b16 100x64 (16-bit elements packed into 16-byte cp.async)", run: check_copy_async_clipped_b16 },
        Check { name: "tensor/tma_tile_load_f32 197x96 (load_tma, 128-byte swizzle, zero fill; map in memory and by value)", run: check_tma_tile_load },
        Check { name: "tensor/scale_tensor 77x300 (a LayoutTensorMut parameter, column-major)", run: check_tensor_parameter },
        Check { name: "tensor/mojo_initialize_tensor_from_cpu 32x8 (Mojo's documented example)", run: check_mojo_initialize_from_cpu },
        Check { name: "tensor/thread_copy_async_swizzled 19x21 (copy_dram_to_sram_async: masked source, swizzled shared tile)", run: check_thread_copy_async_swizzled },
    ]
}

/// `scale_tensor` takes a `LayoutTensorMut<f32, Strided<2>>` parameter, a tensor it writes: the
/// host passes a buffer with a column-major layout (`DeviceTensorMut`); every element must be
/// scaled exactly once.
fn check_tensor_parameter(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols) = (77usize, 300usize);
    let data = random_f32(fresh_seed(), rows * cols);
    let mut buf = gpu.upload(&data).map_err(fail("upload"))?;
    let layout = cute_rs_tensor::Strided { shape: [rows as i64, cols as i64], stride: [1, rows as i64] };
    let t = buf.tensor_mut(layout).map_err(fail("tensor"))?;
    let cfg = LaunchConfig::linear(rows as u32, 32);
    // SAFETY: the tensor's layout was checked against the buffer.
    unsafe { gpu.launch(module, tensor_copy::scale_tensor, cfg, (t, -1.5f32)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&buf).map_err(fail("download"))?;
    let want: Vec<f32> = data.iter().map(|x| x * -1.5).collect();
    expect_eq("scale_tensor", &got, &want)
}

/// Mojo's `initialize_tensor_from_cpu_example`, step by step: a host buffer of `rows * cols`
/// floats holding `0, 1, 2, ...`, copied to the device, the kernel on a `(4, 4)` grid of 8 x 8
/// blocks over the row-major 32 x 8 tensor, copied back; every position `i` must hold `i + 1`
/// (the example prints "Success", or its error for the first mismatch).
fn check_mojo_initialize_from_cpu(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols, block_size) = (32usize, 8usize, 8u32);
    let num_blocks = (rows * cols) as u32 / (block_size * block_size);
    let host: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let expected: Vec<f32> = (0..rows * cols).map(|i| i as f32 + 1.0).collect();
    let mut buf = gpu.upload(&host).map_err(fail("upload"))?;
    let tensor = buf.tensor_mut(cute_rs_tensor::Strided::row_major([rows as i64, cols as i64])).map_err(fail("tensor"))?;
    let cfg = LaunchConfig { grid: (num_blocks, num_blocks, 1), block: (block_size, block_size, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, tensor_copy::mojo_initialize_tensor_from_cpu, cfg, (tensor,)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&buf).map_err(fail("download"))?;
    let printed = mojo_printed(&got, |i| expected[i], "Success");
    if printed == "Success" { Ok(()) } else { Err(printed) }
}

/// `thread_copy_async_swizzled` on a random 19 x 21 matrix into a poisoned 24 x 24 one: the
/// matrix with zeros around it (the async copy's zero-fill, through the swizzled shared tile).
fn check_thread_copy_async_swizzled(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols, n) = (19usize, 21usize, 24usize);
    let data = random_f32(fresh_seed(), rows * cols);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(n * n).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (3, 3, 1), block: (32, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, copy_async::thread_copy_async_swizzled, cfg, (&src, &mut out)).run() }.map_err(fail("launch"))?;
    let want: Vec<f32> = (0..n * n).map(|k| if k / n < rows && k % n < cols { data[(k / n) * cols + k % n] } else { 0.0 }).collect();
    expect_eq("thread copy, masked and swizzled", &gpu.download(&out).map_err(fail("download"))?, &want)
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "tensor/copy 8192x8192 f32 (LayoutTensor)", run: bench_copy }]
}

/// The grid of `tensor_copy_f32` and of its raw-pointer twin `tensor_copy_f32_raw`.
fn copy_config() -> LaunchConfig {
    LaunchConfig {
        grid: ((COLS / TILE_COLS) as u32, (ROWS / TILE_ROWS) as u32, 1),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// Launches `tensor_copy_f32`.
fn launch(gpu: &Gpu, module: &Module, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>) -> cute_rs_host::Result<()> {
    unsafe { gpu.launch(module, tensor_copy::tensor_copy_f32, copy_config(), (src, dst)).run() }
}

/// Launches the raw-pointer twin `tensor_copy_f32_raw` (same grid), whose parameters are 128-bit
/// words (`*const u128`, `*mut u128`): the f32 buffers are passed as [`Words`].
fn launch_twin(gpu: &Gpu, module: &Module, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>) -> cute_rs_host::Result<()> {
    unsafe { gpu.launch(module, tensor_copy::tensor_copy_f32_raw, copy_config(), (Words(src), Words(dst))).run() }
}

/// A buffer of f32 seen as 128-bit words (four floats each), for the `*const u128` / `*mut u128`
/// parameters of `tensor_copy_f32_raw`: the buffer's length must be a multiple of 4 and its
/// address 16-byte aligned (checked when the launch converts it).
struct Words<B>(B);

impl Words<&DeviceBuffer<f32>> {
    fn address(&self) -> cute_rs_host::Result<u64> {
        let buf = self.0;
        if !buf.len().is_multiple_of(4) || !buf.device_ptr().is_multiple_of(16) {
            return Err(cute_rs_host::HostError::Invalid(format!(
                "128-bit word argument: a buffer of {} f32 at {:#x} is not a whole number of 16-byte aligned words",
                buf.len(),
                buf.device_ptr()
            )));
        }
        Ok(buf.device_ptr())
    }
}

impl KernelParam<*const u128> for Words<&DeviceBuffer<f32>> {
    fn to_param(self) -> cute_rs_host::Result<*const u128> {
        self.address().map(|p| p as *const u128)
    }
}

impl KernelParam<*mut u128> for Words<&mut DeviceBuffer<f32>> {
    fn to_param(self) -> cute_rs_host::Result<*mut u128> {
        Words(&*self.0).address().map(|p| p as *mut u128)
    }
}

/// Copies a fresh random matrix (output poisoned) and compares exactly.
pub fn check_copy(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = ROWS * COLS;
    let data = random_f32(fresh_seed(), n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch(gpu, module, &src, &mut dst).map_err(fail("launch"))?;
    expect_eq("tensor copy", &gpu.download(&dst).map_err(fail("download"))?, &data)
}

/// The raw-pointer twin copies exactly too (it is the zero-cost baseline of the benchmark).
pub fn check_raw(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = ROWS * COLS;
    let data = random_f32(fresh_seed(), n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch_twin(gpu, module, &src, &mut dst).map_err(fail("launch"))?;
    expect_eq("raw copy", &gpu.download(&dst).map_err(fail("download"))?, &data)
}

/// Copies a fresh random 1000 x 1000 matrix by partial tiles into a buffer poisoned one tile row
/// and column beyond the matrix: the copy must equal the input, and the poison past the end must be
/// untouched (no out-of-bounds store).
pub fn check_masked(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = ODD_ROWS * ODD_COLS;
    let slack = TILE_ROWS * ODD_COLS + TILE_COLS;
    let data = random_f32(fresh_seed(), n);
    let mut padded_src = data.clone();
    padded_src.extend(std::iter::repeat(7.0f32).take(slack));
    let src = gpu.upload(&padded_src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n + slack).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig {
        grid: (ODD_COLS.div_ceil(TILE_COLS) as u32, ODD_ROWS.div_ceil(TILE_ROWS) as u32, 1),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe { gpu.launch(module, tensor_copy::tensor_copy_masked_f32, cfg, (&src, &mut dst)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&dst).map_err(fail("download"))?;
    expect_eq("masked tensor copy", &got[..n], &data)?;
    let poison = f32::from_bits(u32::MAX);
    match got[n..].iter().position(|v| v.to_bits() != poison.to_bits()) {
        None => Ok(()),
        Some(i) => Err(format!("masked tensor copy wrote past the matrix, at index {}", n + i)),
    }
}

/// Transposes a fresh random 1024 x 2048 matrix (output poisoned) and compares with the CPU.
pub fn check_transpose(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (m, n) = (T_ROWS, T_COLS);
    let data = random_f32(fresh_seed(), m * n);
    let want = super::transposed(&data, m, n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: ((n / 32) as u32, (m / 32) as u32, 1), block: (THREADS, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, tensor_copy::tensor_transpose_f32, cfg, (&src, &mut dst)).run() }.map_err(fail("launch"))?;
    expect_eq("tensor transpose", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

/// What Mojo's examples print after checking the host buffer against `expected`: `success`
/// ("Success" / "Success!"), or their error for the first mismatch.
fn mojo_printed(got: &[f32], expected: impl Fn(usize) -> f32, success: &str) -> String {
    match (0..got.len()).find(|&i| got[i] != expected(i)) {
        Some(i) => format!("Unexpected value {} at position {i}", got[i]),
        None => success.to_string(),
    }
}

/// Mojo's documented `copy_from_async` example (`tests/kernels/src/copy_async.rs`): the 128 x 128
/// tensor, zeroed as the example zeroes it (`enqueue_memset(dev_buf, 0.0)`), and again filled with
/// random data (which the async copies load, so a copy that dropped elements would show), must end
/// with `tensor[i] == i`: the example prints "Success!".
pub fn check_mojo_copy_from_async(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = 128 * 128;
    for zeroed in [true, false] {
        let mut tensor = gpu.upload(&random_f32(fresh_seed(), n)).map_err(fail("upload"))?;
        if zeroed {
            gpu.memset(&mut tensor, 0).map_err(fail("memset"))?;
        }
        let cfg = LaunchConfig { grid: (8, 8, 1), block: (16, 16, 1), shared_mem_bytes: 0 };
        unsafe { gpu.launch(module, copy_async::mojo_copy_from_async_f32, cfg, (&mut tensor,)).run() }.map_err(fail("launch"))?;
        let printed = mojo_printed(&gpu.download(&tensor).map_err(fail("download"))?, |i| i as f32, "Success!");
        if printed != "Success!" {
            return Err(format!("copy_from_async example ({} start) printed {printed:?}", if zeroed { "zeroed" } else { "random" }));
        }
    }
    Ok(())
}

/// `copy_async_zero_fill_f32`: the 98 x 70 column-major matrix with leading dimension 100 (its
/// rows 98, 99 hold a sentinel that must not be copied) staged by 16 x 16 tiles into the 112 x 80
/// output (poisoned): equal to the input inside, zero everywhere else.
pub fn check_copy_async_zero_fill(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // The sizes of the kernel's static layouts `StagedInput` and `StagedOutput`.
    let (rows, cols, ld, out_rows, out_cols) = (98, 70, 100, 112, 80);
    let mut data = random_f32(fresh_seed(), ld * cols);
    for c in 0..cols {
        data[c * ld + rows..(c + 1) * ld].fill(7.0);
    }
    let mut want = vec![0f32; out_rows * out_cols];
    for c in 0..cols {
        want[c * out_rows..c * out_rows + rows].copy_from_slice(&data[c * ld..c * ld + rows]);
    }
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(out_rows * out_cols).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: ((out_rows / 16) as u32, (out_cols / 16) as u32, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, copy_async::copy_async_zero_fill_f32, cfg, (&src, &mut dst)).run() }.map_err(fail("launch"))?;
    expect_eq("cp.async zero-fill staging", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

/// `copy_async_clipped_b16`: a fresh random 100 x 64 column-major matrix of 16-bit elements
/// (leading dimension 104) staged in runs of 8 through a shared tile whose bounds cut its last run,
/// into a poisoned output of the same layout: equal to the input at the rows the stage holds (60
/// of each block's 64), untouched elsewhere.
pub fn check_copy_async_clipped_b16(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // The kernel's static layouts: `HalfInput` (100 x 64, ld 104), `HalfStage` (60 of 64 rows).
    let (rows, cols, ld, stage_rows) = (100usize, 64usize, 104usize, 60usize);
    let data: Vec<u16> = random_f32(fresh_seed(), ld * cols).iter().map(|x| (x.to_bits() >> 9) as u16).collect();
    let poison = 0xffffu16;
    let want: Vec<u16> = (0..ld * cols)
        .map(|i| {
            let r = i % ld;
            if r < rows && r % 64 < stage_rows { data[i] } else { poison }
        })
        .collect();
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u16>(ld * cols).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (2, (cols / 8) as u32, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, copy_async::copy_async_clipped_b16, cfg, (&src, &mut dst)).run() }.map_err(fail("launch"))?;
    expect_eq("16-bit cp.async staging", &gpu.download(&dst).map_err(fail("download"))?, &want)
}

/// `tiled_copy_async_f32`: a fresh random 1024 x 512 matrix copied through shared memory by the
/// thread-value tiled copy (output poisoned) equals its input.
pub fn check_tiled_copy_async(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // The kernel's static layouts: `TvMatrix` (1024 x 512), tiles `TvTile` (128 x 8).
    let (rows, cols) = (1024, 512);
    let data = random_f32(fresh_seed(), rows * cols);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(rows * cols).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: ((rows / 128) as u32, (cols / 8) as u32, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, copy_async::tiled_copy_async_f32, cfg, (&src, &mut dst)).run() }.map_err(fail("launch"))?;
    expect_eq("thread-value tiled copy", &gpu.download(&dst).map_err(fail("download"))?, &data)
}

/// `tma_tile_load_f32`: a fresh random 197 x 96 row-major matrix loaded by 32 x 8 TMA boxes
/// (128-byte swizzle, zero fill) and read back through the swizzled view into a poisoned 200 x 96
/// output: the matrix, then zeros in rows 197..200.
pub fn check_tma_tile_load(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // The kernel's static layouts: boxes `TmaBox` (32 x 8), output `TmaOut` (200 rows of 96).
    let (rows, cols, out_rows) = (197usize, 96usize, 200usize);
    let data = random_f32(fresh_seed(), rows * cols);
    let mut want = data.clone();
    want.resize(out_rows * cols, 0.0);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let global = cute_rs_layout::Layout::parse("(96,197):(1,96)").map_err(fail("layout"))?;
    let map = gpu.tensor_map(&src, global, &[32, 8], TmaSwizzle::B128, TmaOobFill::Zero).map_err(fail("tensor_map"))?;
    let desc = gpu.upload_tensor_map(&map).map_err(fail("upload_tensor_map"))?;
    let mut out = gpu.alloc::<f32>(out_rows * cols).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: ((cols / 32) as u32, (out_rows / 8) as u32, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, tma_tile::tma_tile_load_f32, cfg, (&desc, &mut out)).run() }.map_err(fail("launch"))?;
    expect_eq("TMA box load through LayoutTensor", &gpu.download(&out).map_err(fail("download"))?, &want)?;
    // The same with the map passed by value (a grid constant in the launch's parameters).
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, tma_tile::tma_tile_load_f32_by_value, cfg, (&map, &mut out)).run() }.map_err(fail("launch"))?;
    expect_eq("TMA box load, map by value", &gpu.download(&out).map_err(fail("download"))?, &want)
}

/// Bandwidth in TB/s of moving `bytes` (read + written) in `ms`.
fn tbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e12
}

pub fn bench_copy(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check_copy(gpu, module)?;
    let n = ROWS * COLS;
    let src = gpu.upload(&random_f32(fresh_seed(), n)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch(gpu, module, &src, &mut dst))?;
    let raw = time_median(gpu, 3, 20, || launch_twin(gpu, module, &src, &mut dst))?;
    let peer = time_median(gpu, 3, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = 2 * n * 4;
    Ok(vec![
        Figure { what: "tensor_copy_f32 (LayoutTensor)".into(), value: tbps(bytes, ours), unit: "TB/s" },
        Figure { what: "tensor_copy_f32_raw (raw pointers)".into(), value: tbps(bytes, raw), unit: "TB/s" },
        Figure { what: "memcpy DtoD".into(), value: tbps(bytes, peer), unit: "TB/s" },
        Figure { what: "copy / memcpy".into(), value: peer as f64 / ours as f64 * 100.0, unit: "%" },
    ])
}
