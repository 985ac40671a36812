//! Triton's tutorials ported to block tiles (`tests/kernels/src/tutorials.rs`): 01 vector add,
//! 02 fused softmax, 03 matrix multiplication, 04 seeded dropout and 05 layer norm forward, checked against CPU references
//! on ragged sizes with poisoned outputs, and timed at the tutorials' sizes (`bench/peers/
//! triton_tutorials.py` times Triton's kernels at the same sizes, with the same L2 flush).

use cute_rs_host::{DeviceBuffer, Gpu, KernelFn, LaunchConfig, Module};
use cute_rs_tensor::block_tile::{philox, random::uniform};
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::tma_copy::TmaArray;
use cute_rs_tensor::Strided;
use test_kernels::tutorials as k;

use super::{fail, fresh_seed, random_f32, time_median_after, Bench, Check, Figure};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "tutorials/01 vector add (10007 f32, ragged last tile)", run: check_add },
        Check { name: "tutorials/02 softmax (1k, 4k, 16k blocks, general and aligned; ragged rows, padded strides)", run: check_softmax },
        // 03 in four checks, one per element type and instruction, so that they run in parallel.
        Check { name: "tutorials/03 matmul f16 mma.sync (ragged M, N, K; row-major and transposed B)", run: check_matmul_f16 },
        Check { name: "tutorials/03 matmul bf16 mma.sync (ragged M, N, K; row-major and transposed B)", run: check_matmul_bf16 },
        Check { name: "tutorials/03 matmul f16 wgmma (ragged M, N, K; row-major and transposed B; TMA entry)", run: check_matmul_f16_wgmma },
        Check { name: "tutorials/03 matmul bf16 wgmma (ragged M, N, K; row-major and transposed B; TMA entry)", run: check_matmul_bf16_wgmma },
        Check { name: "tutorials/block-tile transpose through shared memory (tl.trans; ragged 300 x 200)", run: check_transpose },
        Check { name: "tutorials/dot on wgmma with register operands (f16; ragged 150 x 200 x 100)", run: check_dot_wgmma },
        Check { name: "tutorials/04 seeded dropout (Philox, as tl.rand)", run: check_dropout },
        Check { name: "tutorials/05 layer norm forward (f16; 1, 2 and 3 chunks, general and aligned)", run: check_layer_norm },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "tutorials/Triton's tutorials on block tiles", run: bench_tutorials }]
}

fn blocks(grid: usize, threads: u32) -> LaunchConfig {
    LaunchConfig { grid: (grid as u32, 1, 1), block: (threads, 1, 1), shared_mem_bytes: 0 }
}

/// `got` within `tol * (1 + |want|)` of `want`, element by element; the error names the first miss.
fn expect_close(what: &str, got: &[f32], want: &[f64], tol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(&g, &w)| !((g as f64 - w).abs() <= tol * (1.0 + w.abs()))) {
        Some(i) => Err(format!("{what}: element {i} is {}, expected {} (tolerance {tol})", got[i], want[i])),
        None => Ok(()),
    }
}

fn launch_add(gpu: &Gpu, module: &Module, x: &DeviceBuffer<f32>, y: &DeviceBuffer<f32>, out: &mut DeviceBuffer<f32>, n: usize) -> cute_rs_host::Result<()> {
    unsafe { gpu.launch(module, k::tutorial_add, blocks(n.div_ceil(1024), 128), (x, y, out, n as i64)).run() }
}

fn check_add(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = 10_007;
    let (x, y) = (random_f32(fresh_seed(), n), random_f32(fresh_seed(), n));
    let (dx, dy) = (gpu.upload(&x).map_err(fail("upload"))?, gpu.upload(&y).map_err(fail("upload"))?);
    let mut out = gpu.alloc::<f32>(n + 1024).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    launch_add(gpu, module, &dx, &dy, &mut out, n).map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
    super::expect_eq("x + y", &got[..n], &want)?;
    if got[n..].iter().any(|v| v.to_bits() != u32::MAX) {
        return Err("vector add wrote past n".into());
    }
    Ok(())
}

type SoftmaxKernel = KernelFn<(*const f32, *mut f32, i64, i64, i64, i64)>;

/// The softmax kernel for rows of `n_cols` (the tutorial's `next_power_of_two(n_cols)` block),
/// the whole-vector one when the length and strides are multiples of 4 (as Triton specializes).
fn softmax_kernel(n_cols: usize, aligned: bool) -> Option<SoftmaxKernel> {
    Some(match (n_cols.next_power_of_two(), aligned) {
        (0..=1024, false) => k::tutorial_softmax_1k,
        (0..=1024, true) => k::tutorial_softmax_1k_aligned,
        (2048..=4096, false) => k::tutorial_softmax_4k,
        (2048..=4096, true) => k::tutorial_softmax_4k_aligned,
        (8192..=16384, false) => k::tutorial_softmax_16k,
        (8192..=16384, true) => k::tutorial_softmax_16k_aligned,
        _ => return None,
    })
}

/// Launches the softmax of `rows x cols`, with the whole-vector entry when `prefer_aligned` and the
/// sizes allow it.
#[allow(clippy::too_many_arguments)]
fn launch_softmax(
    gpu: &Gpu,
    module: &Module,
    x: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<f32>,
    (rows, cols): (usize, usize),
    (x_stride, out_stride): (usize, usize),
    prefer_aligned: bool,
) -> cute_rs_host::Result<()> {
    let aligned = prefer_aligned && [cols, x_stride, out_stride].iter().all(|v| v % 4 == 0);
    let kernel = softmax_kernel(cols, aligned).expect("a softmax block for this width");
    unsafe { gpu.launch(module, kernel, blocks(rows, 256), (x, out, x_stride as i64, out_stride as i64, rows as i64, cols as i64)).run() }
}

fn softmax_ref(x: &[f32], rows: usize, cols: usize, stride: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(rows * cols);
    for r in 0..rows {
        let row = &x[r * stride..r * stride + cols];
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let e: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
        let s: f64 = e.iter().sum();
        out.extend(e.iter().map(|v| v / s));
    }
    out
}

fn check_softmax(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // Both entry points of each block: strides that are multiples of 4 or not.
    for (rows, cols, pad) in [(5usize, 1000usize, 4usize), (3, 1024, 5), (4, 4093, 3), (3, 4096, 8), (3, 16384, 1), (2, 9000, 4)] {
        let (x_stride, out_stride) = (cols + pad, cols + 2 * pad);
        let x: Vec<f32> = random_f32(fresh_seed(), rows * x_stride).iter().map(|v| v * 8.0).collect();
        let dx = gpu.upload(&x).map_err(fail("upload"))?;
        let mut out = gpu.alloc::<f32>(rows * out_stride).map_err(fail("alloc"))?;
        gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
        launch_softmax(gpu, module, &dx, &mut out, (rows, cols), (x_stride, out_stride), true).map_err(fail("launch"))?;
        let got = gpu.download(&out).map_err(fail("download"))?;
        for r in 0..rows {
            if got[r * out_stride + cols..(r + 1) * out_stride].iter().any(|v| v.to_bits() != u32::MAX) {
                return Err(format!("softmax {rows}x{cols}: row {r} written past its columns"));
            }
        }
        let packed: Vec<f32> = (0..rows).flat_map(|r| got[r * out_stride..r * out_stride + cols].to_vec()).collect();
        expect_close(&format!("softmax {rows}x{cols}"), &packed, &softmax_ref(&x, rows, cols, x_stride), 2e-5)?;
    }
    Ok(())
}

/// The tutorial's seeded dropout on the host: Philox's first word of counter `(i, 0, 0, 0)` under
/// the key `(seed low, seed high)`, as a uniform, kept (times `1 / (1 - p)`) above `p`.
fn dropout_ref(x: &[f32], p: f32, seed: u64) -> Vec<f32> {
    let key = [seed as u32, (seed >> 32) as u32];
    let scale = 1.0 / (1.0 - p);
    x.iter().enumerate().map(|(i, &v)| if uniform(philox([i as u32, 0, 0, 0], key)[0]) > p { v * scale } else { 0.0 }).collect()
}

fn launch_dropout(gpu: &Gpu, module: &Module, x: &DeviceBuffer<f32>, out: &mut DeviceBuffer<f32>, n: usize, p: f32, seed: u64) -> cute_rs_host::Result<()> {
    unsafe { gpu.launch(module, k::tutorial_dropout, blocks(n.div_ceil(1024), 128), (x, out, n as i64, p, seed)).run() }
}

fn check_dropout(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (n, p, seed) = (10_007usize, 0.5f32, fresh_seed() | 1 << 40);
    let x: Vec<f32> = random_f32(fresh_seed(), n).iter().map(|v| v + 2.0).collect(); // never 0
    let dx = gpu.upload(&x).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    launch_dropout(gpu, module, &dx, &mut out, n, p, seed).map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    super::expect_eq("dropout", &got, &dropout_ref(&x, p, seed))?;
    let kept = got.iter().filter(|&&v| v != 0.0).count() as f64 / n as f64;
    if (kept - 0.5).abs() > 0.03 {
        return Err(format!("dropout kept {kept:.3} of the elements at p = 0.5"));
    }
    Ok(())
}

type LayerNormKernel = KernelFn<(*const f16, *mut f16, *const f16, *const f16, *mut f32, *mut f32, i64, i64, i64, f32)>;

/// The tutorial's layer-norm configuration for f16 rows of `n` columns: `BLOCK = min(32768,
/// next_power_of_two(n))` (our kernels exist for 1k, 4k, 8k), the whole-vector entry when `n` is a
/// multiple of 8.
fn layer_norm_kernel(n: usize, prefer_aligned: bool) -> (LayerNormKernel, u32) {
    match (n.next_power_of_two(), prefer_aligned && n % 8 == 0) {
        (0..=1024, false) => (k::tutorial_layer_norm_1k, 128),
        (0..=1024, true) => (k::tutorial_layer_norm_1k_aligned, 128),
        (2048..=4096, false) => (k::tutorial_layer_norm_4k, 256),
        (2048..=4096, true) => (k::tutorial_layer_norm_4k_aligned, 256),
        (_, false) => (k::tutorial_layer_norm_8k, 256),
        (_, true) => (k::tutorial_layer_norm_8k_aligned, 256),
    }
}

struct LayerNormBuffers {
    x: DeviceBuffer<f16>,
    y: DeviceBuffer<f16>,
    w: DeviceBuffer<f16>,
    b: DeviceBuffer<f16>,
    mean: DeviceBuffer<f32>,
    rstd: DeviceBuffer<f32>,
}

fn launch_layer_norm(gpu: &Gpu, module: &Module, t: &mut LayerNormBuffers, rows: usize, cols: usize, prefer_aligned: bool) -> cute_rs_host::Result<()> {
    let (kernel, threads) = layer_norm_kernel(cols, prefer_aligned);
    let args = (&t.x, &mut t.y, &t.w, &t.b, &mut t.mean, &mut t.rstd, cols as i64, rows as i64, cols as i64, 1e-5f32);
    unsafe { gpu.launch(module, kernel, blocks(rows, threads), args).run() }
}

fn layer_norm_buffers(gpu: &Gpu, rows: usize, cols: usize) -> Result<(LayerNormBuffers, Vec<f16>, Vec<f16>, Vec<f16>), String> {
    let h = |v: Vec<f32>| v.into_iter().map(f16::from_f32).collect::<Vec<f16>>();
    let x = h(random_f32(fresh_seed(), rows * cols).iter().map(|v| v * 4.0 + 1.0).collect());
    let w = h(random_f32(fresh_seed(), cols).iter().map(|v| v + 1.0).collect());
    let b = h(random_f32(fresh_seed(), cols));
    let up = |v: &Vec<f16>| gpu.upload(v).map_err(fail("upload"));
    let mut t = LayerNormBuffers {
        x: up(&x)?,
        y: gpu.alloc(rows * cols).map_err(fail("alloc"))?,
        w: up(&w)?,
        b: up(&b)?,
        mean: gpu.alloc(rows).map_err(fail("alloc"))?,
        rstd: gpu.alloc(rows).map_err(fail("alloc"))?,
    };
    gpu.memset(&mut t.y, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut t.mean, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut t.rstd, 0xff).map_err(fail("poison"))?;
    Ok((t, x, w, b))
}

fn check_layer_norm(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // Both entry points: lengths that are multiples of 8 or not.
    for (rows, cols) in [(3usize, 1000usize), (2, 1001), (2, 3000), (2, 3001), (2, 20_000), (2, 20_003), (3, 8192)] {
        let (mut t, x, w, b) = layer_norm_buffers(gpu, rows, cols)?;
        launch_layer_norm(gpu, module, &mut t, rows, cols, true).map_err(fail("launch"))?;
        let y: Vec<f32> = gpu.download(&t.y).map_err(fail("download"))?.iter().map(|v| v.to_f32()).collect();
        let (mean, rstd) = (gpu.download(&t.mean).map_err(fail("download"))?, gpu.download(&t.rstd).map_err(fail("download"))?);
        let (mut want_y, mut want_mean, mut want_rstd) = (Vec::new(), Vec::new(), Vec::new());
        for r in 0..rows {
            let row: Vec<f64> = x[r * cols..(r + 1) * cols].iter().map(|v| v.to_f64()).collect();
            let m = row.iter().sum::<f64>() / cols as f64;
            let var = row.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / cols as f64;
            let rs = 1.0 / (var + 1e-5).sqrt();
            want_mean.push(m);
            want_rstd.push(rs);
            want_y.extend(row.iter().enumerate().map(|(c, v)| (v - m) * rs * w[c].to_f64() + b[c].to_f64()));
        }
        let what = format!("layer norm {rows}x{cols}");
        expect_close(&format!("{what}: mean"), &mean, &want_mean, 1e-5)?;
        expect_close(&format!("{what}: rstd"), &rstd, &want_rstd, 1e-5)?;
        expect_close(&format!("{what}: y (f16)"), &y, &want_y, 2e-3)?;
    }
    Ok(())
}

/// 03's entries of one element type and instruction: the general and the aligned kernel, the
/// tile of C per program, the dynamic shared memory they take, and whether they are in the
/// sm_90a module (`wgmma`).
struct MatmulEntries<T: 'static> {
    general: MatmulKernel<T>,
    aligned: MatmulKernel<T>,
    tile: (usize, usize),
    shared: u32,
    sm90a: bool,
    /// The entry whose operands are arrays with tensor maps (TMA copies), its K per step and its
    /// dynamic shared memory.
    tma: Option<(TmaMatmulKernel<T>, usize, u32)>,
}

const F16_MATMUL: MatmulEntries<f16> =
    MatmulEntries { general: k::tutorial_matmul_f16, aligned: k::tutorial_matmul_f16_aligned, tile: (128, 128), shared: 0, sm90a: false, tma: None };
const BF16_MATMUL: MatmulEntries<bf16> =
    MatmulEntries { general: k::tutorial_matmul_bf16, aligned: k::tutorial_matmul_bf16_aligned, tile: (128, 128), shared: 0, sm90a: false, tma: None };
const F16_WGMMA_MATMUL: MatmulEntries<f16> = MatmulEntries {
    general: k::tutorial_matmul_wgmma_f16,
    aligned: k::tutorial_matmul_wgmma_f16_aligned,
    tile: (128, 256),
    shared: k::WG_MATMUL_SCRATCH as u32,
    sm90a: true,
    tma: Some((k::tutorial_matmul_wgmma_f16_tma, 64, k::WG_MATMUL_TMA_SCRATCH as u32)),
};
const BF16_WGMMA_MATMUL: MatmulEntries<bf16> = MatmulEntries {
    general: k::tutorial_matmul_wgmma_bf16,
    aligned: k::tutorial_matmul_wgmma_bf16_aligned,
    tile: (128, 256),
    shared: k::WG_MATMUL_SCRATCH as u32,
    sm90a: true,
    tma: Some((k::tutorial_matmul_wgmma_bf16_tma, 64, k::WG_MATMUL_TMA_SCRATCH as u32)),
};

type MatmulKernel<T> = KernelFn<(*const T, *const T, *mut T, i64, i64, i64, i64, i64, i64, i64, i64, i64)>;
type TmaMatmulKernel<T> = KernelFn<(TmaArray<T, 2>, TmaArray<T, 2>, *mut T, i64, i64)>;

/// An `m x k` times `k x n` product's operands and output on the device, with their strides
/// (A row-major; B row-major or, `b_transposed`, stored as `n x k` row-major; C row-major).
struct Matmul<T: cute_rs_host::DeviceElem> {
    a: DeviceBuffer<T>,
    b: DeviceBuffer<T>,
    c: DeviceBuffer<T>,
    mnk: (usize, usize, usize),
    b_transposed: bool,
}

impl<T: cute_rs_host::DeviceElem> Matmul<T> {
    /// Whether the rows are whole 16-byte vectors (A and B row-major, K and N multiples of 8):
    /// then the `_aligned` entry applies, as Triton specializes arguments divisible by 16.
    fn aligned(&self) -> bool {
        let (_, n, k) = self.mnk;
        !self.b_transposed && n % 8 == 0 && k % 8 == 0
    }

    /// Launches the product with the general entry, or the aligned one when it applies.
    fn launch(&mut self, gpu: &Gpu, module: &Module, entries: &MatmulEntries<T>) -> cute_rs_host::Result<()> {
        let (m, n, k) = self.mnk;
        let kernel = if self.aligned() { entries.aligned } else { entries.general };
        let (sbk, sbn) = if self.b_transposed { (1, k as i64) } else { (n as i64, 1) };
        let grid = m.div_ceil(entries.tile.0) * n.div_ceil(entries.tile.1);
        let args = (&self.a, &self.b, &mut self.c, m as i64, n as i64, k as i64, k as i64, 1i64, sbk, sbn, n as i64, 1i64);
        unsafe { gpu.launch(module, kernel, blocks(grid, 256).with_shared_mem(entries.shared), args).run() }
    }

    /// A and B as arrays with tensor maps for `entries`' TMA entry (its tiles: `tile.0 x
    /// k_step`, `k_step x tile.1`), if it has one.
    fn tma_operands<'a>(&'a self, gpu: &Gpu, entries: &MatmulEntries<T>) -> cute_rs_host::Result<Option<(cute_rs_host::TmaArray<'a, T, 2>, cute_rs_host::TmaArray<'a, T, 2>)>>
    where
        T: cute_rs_tensor::Element,
    {
        let (m, n, k) = self.mnk;
        let Some((_, k_step, _)) = entries.tma else { return Ok(None) };
        let (m, n, k, k_step) = (m as i64, n as i64, k as i64, k_step as i64);
        let a = gpu.tma_dot_operand(self.a.tensor(Strided::row_major([m, k]))?, [entries.tile.0 as i64, k_step])?;
        let b = gpu.tma_dot_operand(self.b.tensor(Strided::row_major([k, n]))?, [k_step, entries.tile.1 as i64])?;
        Ok(Some((a, b)))
    }
}

/// Launches `entries`' TMA entry on the operands `a` and `b` (from [`Matmul::tma_operands`]) into `c`.
fn launch_tma<T: cute_rs_host::DeviceElem + cute_rs_tensor::Element>(
    gpu: &Gpu,
    module: &Module,
    entries: &MatmulEntries<T>,
    (a, b): &(cute_rs_host::TmaArray<'_, T, 2>, cute_rs_host::TmaArray<'_, T, 2>),
    c: &mut DeviceBuffer<T>,
    (m, n): (usize, usize),
) -> cute_rs_host::Result<()> {
    let (kernel, _, shared) = entries.tma.expect("a TMA entry");
    let grid = m.div_ceil(entries.tile.0) * n.div_ceil(entries.tile.1);
    unsafe { gpu.launch(module, kernel, blocks(grid, 256).with_shared_mem(shared), (a, b, c, n as i64, 1i64)).run() }
}

/// Random operands of `m x n x k` (as `T`, with their values as f64), a poisoned C.
fn matmul_buffers<T: cute_rs_host::DeviceElem>(gpu: &Gpu, (m, n, k): (usize, usize, usize), b_transposed: bool, from: fn(f32) -> T, to: fn(T) -> f64) -> Result<(Matmul<T>, Vec<f64>, Vec<f64>), String> {
    let a: Vec<T> = random_f32(fresh_seed(), m * k).into_iter().map(from).collect();
    let b: Vec<T> = random_f32(fresh_seed() ^ 0x5bd1, k * n).into_iter().map(from).collect();
    let mut t = Matmul {
        a: gpu.upload(&a).map_err(fail("upload"))?,
        b: gpu.upload(&b).map_err(fail("upload"))?,
        c: gpu.alloc(m * n).map_err(fail("alloc"))?,
        mnk: (m, n, k),
        b_transposed,
    };
    gpu.memset(&mut t.c, 0xff).map_err(fail("poison"))?;
    Ok((t, a.into_iter().map(to).collect(), b.into_iter().map(to).collect()))
}

fn check_matmul_of<T: cute_rs_host::DeviceElem + cute_rs_tensor::Element>(gpu: &Gpu, module: &Module, entries: MatmulEntries<T>, name: &str, from: fn(f32) -> T, to: fn(T) -> f64, tol: f64) -> Result<(), String> {
    let hopper = if entries.sm90a { Some(gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?) } else { None };
    let module = hopper.as_deref().unwrap_or(module);
    // 16-byte copies (K and N multiples of 8) and element copies (ragged K or N, a transposed B).
    // The CPU backend, which runs each GPU thread in turn, takes smaller aligned products for the
    // wgmma entries: still ragged in M (two tiles) and N.
    let aligned: &[((usize, usize, usize), bool)] =
        if gpu.is_cpu() && entries.sm90a { &[((136, 136, 64), false)] } else { &[((136, 264, 200), false), ((256, 128, 128), false)] };
    let shapes = [((200usize, 136usize, 100usize), false), ((130, 260, 72), true), ((1, 5, 3), false)];
    for &(mnk, b_transposed) in shapes.iter().chain(aligned) {
        let (m, n, k) = mnk;
        let (mut t, a, b) = matmul_buffers(gpu, mnk, b_transposed, from, to)?;
        t.launch(gpu, module, &entries).map_err(fail("launch"))?;
        let got: Vec<f32> = gpu.download(&t.c).map_err(fail("download"))?.into_iter().map(|v| to(v) as f32).collect();
        let b_at = |x: usize, col: usize| if b_transposed { b[col * k + x] } else { b[x * n + col] };
        let want: Vec<f64> = (0..m * n).map(|i| (0..k).map(|x| a[(i / n) * k + x] * b_at(x, i % n)).sum()).collect();
        let layout = match (b_transposed, t.aligned()) {
            (true, _) => "B transposed",
            (false, false) => "B row-major",
            (false, true) => "B row-major, aligned entry",
        };
        expect_close(&format!("{name} matmul {m}x{n}x{k} ({layout})"), &got, &want, tol)?;
        // The TMA entry where TMA can read the operands (rows of whole 16 bytes, B row-major).
        if t.aligned() && entries.tma.is_some() {
            let mut c = gpu.alloc::<T>(m * n).map_err(fail("alloc"))?;
            gpu.memset(&mut c, 0xff).map_err(fail("poison"))?;
            let operands = t.tma_operands(gpu, &entries).map_err(fail("tma_dot_operand"))?.expect("a TMA entry");
            launch_tma(gpu, module, &entries, &operands, &mut c, (m, n)).map_err(fail("launch"))?;
            let got: Vec<f32> = gpu.download(&c).map_err(fail("download"))?.into_iter().map(|v| to(v) as f32).collect();
            expect_close(&format!("{name} matmul {m}x{n}x{k} (TMA entry)"), &got, &want, tol)?;
        }
    }
    Ok(())
}

fn check_matmul_f16(gpu: &Gpu, module: &Module) -> Result<(), String> {
    check_matmul_of(gpu, module, F16_MATMUL, "f16", f16::from_f32, |v| v.to_f64(), 2e-3)
}

fn check_matmul_bf16(gpu: &Gpu, module: &Module) -> Result<(), String> {
    check_matmul_of(gpu, module, BF16_MATMUL, "bf16", bf16::from_f32, |v| v.to_f64(), 8e-3)
}

fn check_matmul_f16_wgmma(gpu: &Gpu, module: &Module) -> Result<(), String> {
    check_matmul_of(gpu, module, F16_WGMMA_MATMUL, "f16 wgmma", f16::from_f32, |v| v.to_f64(), 2e-3)
}

fn check_matmul_bf16_wgmma(gpu: &Gpu, module: &Module) -> Result<(), String> {
    check_matmul_of(gpu, module, BF16_WGMMA_MATMUL, "bf16 wgmma", bf16::from_f32, |v| v.to_f64(), 8e-3)
}

fn check_transpose(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols) = (300usize, 200usize);
    let x = random_f32(fresh_seed(), rows * cols);
    let dx = gpu.upload(&x).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(rows * cols).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let (tr, tc) = (rows.div_ceil(64), cols.div_ceil(64));
    unsafe { gpu.launch(module, k::block_tile_transpose, blocks(tr * tc, 128), (&dx, &mut out, rows as i64, cols as i64, tc as i64)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    let want: Vec<f32> = (0..cols * rows).map(|i| x[(i % rows) * cols + i / rows]).collect();
    super::expect_eq("transpose", &got, &want)
}

/// `block_tile_dot_wgmma` (sm_90a module) against the exact product of small integers.
fn check_dot_wgmma(gpu: &Gpu, _module: &Module) -> Result<(), String> {
    let module = gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?;
    let (m, n, k) = (150usize, 200usize, 100usize);
    let seed = fresh_seed();
    let small = |s: u64, len: usize| random_f32(s, len).into_iter().map(|x| (x * 8.0).round()).collect::<Vec<f32>>();
    let (a, b) = (small(seed, m * k), small(seed ^ 0x77, k * n));
    let (da, db) = (
        gpu.upload(&a.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>()).map_err(fail("upload"))?,
        gpu.upload(&b.iter().map(|&x| f16::from_f32(x)).collect::<Vec<_>>()).map_err(fail("upload"))?,
    );
    let mut c = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut c, 0xff).map_err(fail("poison"))?;
    let tiles_n = n.div_ceil(128);
    let args = (&da, &db, &mut c, m as i64, n as i64, k as i64, tiles_n as i64);
    unsafe { gpu.launch(&module, k::block_tile_dot_wgmma, blocks(m.div_ceil(64) * tiles_n, 128), args).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&c).map_err(fail("download"))?;
    let want: Vec<f32> = (0..m * n).map(|i| (0..k).map(|x| a[(i / n) * k + x] * b[x * n + i % n]).sum()).collect();
    super::expect_eq(&format!("dot on wgmma {m}x{n}x{k} (seed {seed})"), &got, &want)
}

/// Milliseconds of `f` (median of `reps` after `warmup`), each timed run after a write of 256 MB
/// that flushes the L2 cache, as `triton.testing.do_bench` does.
fn time_cold(gpu: &Gpu, flush: &mut DeviceBuffer<u8>, warmup: usize, reps: usize, f: impl FnMut() -> cute_rs_host::Result<()>) -> Result<f32, String> {
    time_median_after(gpu, warmup, reps, || gpu.memset(flush, 0), f)
}

fn gbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e9
}

/// Each ported tutorial at the sizes of `bench/peers/triton_tutorials.py`, in its units (GB/s of
/// the tutorial's byte count), cold L2 as `do_bench`; softmax and layer norm through both entry
/// points (the whole-vector one, which Triton's specialization matches, and the general one).
/// The median time of `entries`' TMA entry on random operands of `mnk`, each run after an L2 flush.
fn time_tma_matmul<T: cute_rs_host::DeviceElem + cute_rs_tensor::Element>(gpu: &Gpu, module: &Module, flush: &mut DeviceBuffer<u8>, mnk: (usize, usize, usize), entries: MatmulEntries<T>, from: fn(f32) -> T) -> Result<f32, String> {
    let (t, ..) = matmul_buffers(gpu, mnk, false, from, |_| 0.0)?;
    let operands = t.tma_operands(gpu, &entries).map_err(fail("tma_dot_operand"))?.expect("a TMA entry");
    let mut c = gpu.alloc::<T>(mnk.0 * mnk.1).map_err(fail("alloc"))?;
    time_cold(gpu, flush, 5, 50, || launch_tma(gpu, module, &entries, &operands, &mut c, (mnk.0, mnk.1)))
}

fn bench_tutorials(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    let mut flush = gpu.alloc::<u8>(256 << 20).map_err(fail("alloc flush"))?;
    let mut figures = Vec::new();
    let (warmup, reps) = (5, 50);
    for log_n in [24, 26] {
        let n = 1usize << log_n;
        let (x, y) = (gpu.upload(&random_f32(1, n)).map_err(fail("upload"))?, gpu.upload(&random_f32(2, n)).map_err(fail("upload"))?);
        let mut out = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
        let ms = time_cold(gpu, &mut flush, warmup, reps, || launch_add(gpu, module, &x, &y, &mut out, n))?;
        figures.push(Figure { what: format!("01 vector add n=2^{log_n} f32"), value: gbps(3 * n * 4, ms), unit: "GB/s" });
    }
    for cols in [1024usize, 4096, 16384] {
        let rows = 4096;
        let x = gpu.upload(&random_f32(3, rows * cols)).map_err(fail("upload"))?;
        let mut out = gpu.alloc::<f32>(rows * cols).map_err(fail("alloc"))?;
        for (entry, aligned) in [("", true), (" (general entry)", false)] {
            let ms = time_cold(gpu, &mut flush, warmup, reps, || launch_softmax(gpu, module, &x, &mut out, (rows, cols), (cols, cols), aligned))?;
            figures.push(Figure { what: format!("02 softmax 4096x{cols} f32{entry}"), value: gbps(2 * rows * cols * 4, ms), unit: "GB/s" });
        }
    }
    {
        let n = 1usize << 24;
        let x = gpu.upload(&random_f32(4, n)).map_err(fail("upload"))?;
        let mut out = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
        let ms = time_cold(gpu, &mut flush, warmup, reps, || launch_dropout(gpu, module, &x, &mut out, n, 0.5, 123))?;
        figures.push(Figure { what: "04 dropout n=2^24 f32".into(), value: gbps(2 * n * 4, ms), unit: "GB/s" });
    }
    for cols in [1024usize, 4096, 8192] {
        let rows = 4096;
        let (mut t, ..) = layer_norm_buffers(gpu, rows, cols)?;
        for (entry, aligned) in [("", true), (" (general entry)", false)] {
            let ms = time_cold(gpu, &mut flush, warmup, reps, || launch_layer_norm(gpu, module, &mut t, rows, cols, aligned))?;
            figures.push(Figure { what: format!("05 layer norm fwd 4096x{cols} f16{entry}"), value: gbps(2 * rows * cols * 2, ms), unit: "GB/s" });
        }
    }
    let hopper = gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the sm_90a module"))?;
    for (size, name, is_bf16) in [(2048usize, "f16", false), (4096, "f16", false), (4096, "bf16", true)] {
        let mnk = (size, size, size);
        let flops = 2.0 * (size as f64).powi(3);
        for (instruction, wgmma) in [("wgmma", true), ("mma.sync", false)] {
            let module = if wgmma { &*hopper } else { module };
            let ms = if is_bf16 {
                let (mut t, ..) = matmul_buffers(gpu, mnk, false, bf16::from_f32, |v| v.to_f64())?;
                let entries = if wgmma { BF16_WGMMA_MATMUL } else { BF16_MATMUL };
                time_cold(gpu, &mut flush, warmup, reps, || t.launch(gpu, module, &entries))?
            } else {
                let (mut t, ..) = matmul_buffers(gpu, mnk, false, f16::from_f32, |v| v.to_f64())?;
                let entries = if wgmma { F16_WGMMA_MATMUL } else { F16_MATMUL };
                time_cold(gpu, &mut flush, warmup, reps, || t.launch(gpu, module, &entries))?
            };
            let what = format!("03 matmul {size}^3 {name} ({instruction})");
            figures.push(Figure { what, value: flops / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" });
        }
        let ms = if is_bf16 { time_tma_matmul(gpu, &hopper, &mut flush, mnk, BF16_WGMMA_MATMUL, bf16::from_f32)? } else { time_tma_matmul(gpu, &hopper, &mut flush, mnk, F16_WGMMA_MATMUL, f16::from_f32)? };
        figures.push(Figure { what: format!("03 matmul {size}^3 {name} (wgmma, TMA)"), value: flops / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" });
    }
    Ok(figures)
}
