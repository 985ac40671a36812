//! GPU checks and benchmarks of the Hopper GEMM path (`kernels/src/gemm_sm90.rs`, in the sm_90a
//! module; GPU-only: wgmma has no CPU implementation).
//!
//! Each check multiplies fresh random bf16 matrices (`A` M x K, `B` N x K, both row-major, i.e.
//! K-major) into a poisoned f32 output and compares with an f64 reference within `2^-16` of the
//! sum of the absolute products; ragged sizes exercise TMA's zero fill and the predicated epilogue.
//!
//! cuBLAS (`cublasGemmEx`, [`super::cublas`]) is the peer: checked against the same reference on
//! the same operands as the API entry, and timed in the same process, interleaved with the
//! persistent TMA-store kernel and the API entry on the same buffers (`gemm_sm90/vs cublas ...`).
//! Its other operations, the strided-batched bf16 GEMM and cuBLASLt's scaled e4m3 (fp8) GEMM, are
//! checked against the f64 reference alone, under the same name prefix (skipped with the others
//! where cuBLAS does not load).

use cute_rs_host::{DeviceBuffer, DeviceElem, Gpu, KernelFn, LaunchConfig, Module, TensorMap, TmaOobFill, TmaSwizzle};
use cute_rs_kernels::epilogue::EpilogueOp;
use cute_rs_kernels::gemm_sm90::{by_output, GemmParams};
use test_kernels::gemm_sm90_steps as steps;
use cute_rs_tensor::device::tma::TmaDescriptorParam;
use cute_rs_kernels::gemm_sm90_sizes::{
    GemmSm90Shape, StreamK, GEMM_SM90_128X128, GEMM_SM90_128X256, GEMM_SM90_BK, GEMM_SM90_EPILOGUE_BYTES, GEMM_SM90_P_128X256,
    GEMM_SM90_WS_128X256,
};
use cute_rs_layout::Layout;
use cute_rs_tensor::device::numeric::{bf16_to_f32, f16_to_f32, E4M3};

use cute_rs_ops::gemm::{Activation, BiasKind, Gemm, GemmOutput, Major};
use cute_rs_ops::gemm_hopper::{HopperGemm, HopperIn, HopperOut};

use super::cublas::{Cublas, CublasLt, PeerOut};
use super::mma::{compare_product, random_half, reference, Half};
use super::{fail, fresh_seed, median, random_f32, time_interleaved, time_median, wall_interleaved, Bench, Check, Figure, Interleaved};

/// A Hopper GEMM entry: its tile, whether it is persistent (a grid of at most one block per SM,
/// in clusters of `cluster` blocks along M) and its output element type (`f32` or bf16 bits).
#[derive(Clone, Copy)]
struct Kernel {
    entry: Entry,
    shape: GemmSm90Shape,
    /// 0: one block per tile; 1 or 2: persistent, clusters of that many blocks.
    cluster: u32,
    bf16_out: bool,
    /// The stmatrix + TMA-store epilogue (a tensor map of D, more shared memory).
    tma_out: bool,
}

/// The signatures of the entries: one block per tile (no tensor map of D), or persistent with an
/// f32 or a bf16-bits D.
#[derive(Clone, Copy)]
enum Entry {
    Grid(KernelFn<(TmaDescriptorParam, TmaDescriptorParam, *const f32, *mut f32, u32, u32, u32, f32, f32)>),
    F32(KernelFn<by_output::Params<f32>>),
    Bf16(KernelFn<by_output::Params<u16>>),
}

impl Kernel {
    /// The entry in `module`.
    fn function(&self, module: &Module) -> cute_rs_host::Result<std::sync::Arc<cute_rs_host::Kernel>> {
        match self.entry {
            Entry::Grid(k) => module.function(k),
            Entry::F32(k) => module.function(k),
            Entry::Bf16(k) => module.function(k),
        }
    }

    fn name(&self) -> &'static str {
        match self.entry {
            Entry::Grid(k) => k.name(),
            Entry::F32(k) => k.name(),
            Entry::Bf16(k) => k.name(),
        }
    }
}

/// The module of the steps' kernels, the test harness's `test_kernels_sm90a`.
fn steps_module(gpu: &Gpu) -> Result<std::sync::Arc<Module>, String> {
    gpu.module(&crate::TEST_KERNELS_SM90A).map_err(fail("loading the module test_kernels_sm90a"))
}

const fn grid(entry: Entry, shape: GemmSm90Shape) -> Kernel {
    Kernel { entry, shape, cluster: 0, bf16_out: false, tma_out: false }
}
const fn persistent(entry: Entry, cluster: u32, tma_out: bool) -> Kernel {
    let bf16_out = matches!(entry, Entry::Bf16(_));
    Kernel { entry, shape: GEMM_SM90_P_128X256, cluster, bf16_out, tma_out }
}

/// The steps' kernels (in the test harness's module `test_kernels_sm90a`), in the order of
/// `test_kernels::gemm_sm90_steps`'s module documentation.
const KERNELS: [Kernel; 9] = [
    grid(Entry::Grid(steps::gemm_sm90_bf16_tn), GEMM_SM90_128X128),
    grid(Entry::Grid(steps::gemm_sm90_bf16_tn_128x256), GEMM_SM90_128X256),
    grid(Entry::Grid(steps::gemm_sm90_bf16_tn_ws), GEMM_SM90_WS_128X256),
    persistent(Entry::F32(steps::gemm_sm90_bf16_tn_p), 1, false),
    persistent(Entry::Bf16(steps::gemm_sm90_bf16_tn_p_obf16), 1, false),
    persistent(Entry::F32(steps::gemm_sm90_bf16_tn_pc2), 2, false),
    persistent(Entry::Bf16(steps::gemm_sm90_bf16_tn_pc2_obf16), 2, false),
    persistent(Entry::Bf16(steps::gemm_sm90_bf16_tn_p_obf16_tma), 1, true),
    persistent(Entry::Bf16(steps::gemm_sm90_bf16_tn_pc2_obf16_tma), 2, true),
];

/// Short names of [`KERNELS`] for check and bench names.
const LABELS: [&str; 9] = [
    "128x128",
    "128x256",
    "ws 128x256",
    "persistent",
    "persistent bf16-out",
    "cluster2",
    "cluster2 bf16-out",
    "persistent bf16-out tma-store",
    "cluster2 bf16-out tma-store",
];

macro_rules! every_kernel {
    ($($name:literal => $m:expr, $n:expr, $k:expr, $alpha:expr, $beta:expr;)*) => {{
        vec![$(
            Check { name: concat!("gemm_sm90/128x128 bf16 ", $name), run: |g, _| check(g, KERNELS[0], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/128x256 bf16 ", $name), run: |g, _| check(g, KERNELS[1], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/ws 128x256 bf16 ", $name), run: |g, _| check(g, KERNELS[2], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/persistent bf16 ", $name), run: |g, _| check(g, KERNELS[3], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/persistent bf16-out ", $name), run: |g, _| check(g, KERNELS[4], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/cluster2 bf16 ", $name), run: |g, _| check(g, KERNELS[5], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/cluster2 bf16-out ", $name), run: |g, _| check(g, KERNELS[6], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/persistent bf16-out tma-store ", $name), run: |g, _| check(g, KERNELS[7], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/cluster2 bf16-out tma-store ", $name), run: |g, _| check(g, KERNELS[8], $m, $n, $k, $alpha, $beta) },
        )*]
    }};
}

pub fn checks() -> Vec<Check> {
    // Odd N: D's rows are not 4-byte aligned (single stores), no tensor map of D (not 16-byte rows).
    let odd_n = [
        Check { name: "gemm_sm90/persistent bf16 129x257x40 (odd N)", run: |g, _| check(g, KERNELS[3], 129, 257, 40, 1.0, 0.0) },
        Check { name: "gemm_sm90/persistent bf16-out 129x257x40 (odd N)", run: |g, _| check(g, KERNELS[4], 129, 257, 40, 1.0, 0.0) },
        Check { name: "gemm_sm90/cluster2 bf16-out 129x257x40 (odd N)", run: |g, _| check(g, KERNELS[6], 129, 257, 40, 1.0, 0.0) },
    ];
    let api = [
        Check { name: "gemm_sm90/api bf16 -> f32, every storage order", run: |g, _| check_api(g, false, HopperOut::F32) },
        Check { name: "gemm_sm90/api bf16 -> bf16, every storage order", run: |g, _| check_api(g, false, HopperOut::Bf16) },
        Check { name: "gemm_sm90/api bf16 -> f16, every storage order", run: |g, _| check_api(g, false, HopperOut::F16) },
        Check { name: "gemm_sm90/api f16 -> f32, every storage order", run: |g, _| check_api(g, true, HopperOut::F32) },
        Check { name: "gemm_sm90/api f16 -> bf16, every storage order", run: |g, _| check_api(g, true, HopperOut::Bf16) },
        Check { name: "gemm_sm90/api f16 -> f16, every storage order", run: |g, _| check_api(g, true, HopperOut::F16) },
        Check { name: "gemm_sm90/tf32 run_tf32_sm90 (A row-, B column-major)", run: check_tf32 },
        Check { name: "gemm_sm90/decode bf16 -> bf16, M 1/16/33/64/65/128, ragged N and K, split K", run: |g, _| check_decode(g, HopperOut::Bf16) },
        Check { name: "gemm_sm90/decode bf16 -> f16, M 1/16/33/64/65/128, ragged N and K, split K", run: |g, _| check_decode(g, HopperOut::F16) },
        // Skipped where libcublas does not load (`super::NEEDS`).
        Check { name: "gemm_sm90/vs cublas api bf16 -> bf16 (256x384x512, 264x520x136)", run: |g, _| check_vs_cublas::<u16>(g) },
        Check { name: "gemm_sm90/vs cublas api bf16 -> f32 (256x384x512, 264x520x136)", run: |g, _| check_vs_cublas::<f32>(g) },
        Check { name: "gemm_sm90/vs cublas strided-batched bf16 -> bf16, f32 (3 x 130x72x64)", run: |g, _| check_cublas_batched(g) },
        Check { name: "gemm_sm90/vs cublas lt e4m3 scaled 0.5 x 3 -> bf16, f32 (200x136x128)", run: |g, _| check_cublaslt_e4m3(g) },
    ];
    odd_n.into_iter().chain(api).chain(every_kernel! {
        "128x128x64" => 128, 128, 64, 1.0, 0.0;
        "256x512x512 (ring wraps)" => 256, 512, 512, 1.0, 0.0;
        "200x136x72 (partial tiles)" => 200, 136, 72, 1.0, 0.0;
        "129x264x40 (ragged cluster)" => 129, 264, 40, 1.0, 0.0;
        "256x256x128 alpha 1.5 beta -0.5" => 256, 256, 128, 1.5, -0.5;
        "1000x1000x1000" => 1000, 1000, 1000, 1.0, 0.0;
        "2304x2560x512 (more tiles than SMs)" => 2304, 2560, 512, 1.0, 0.0;
    })
    .collect()
}

pub fn benches() -> Vec<Bench> {
    let mut benches = Vec::new();
    macro_rules! shapes {
        ($($i:literal $label:literal: $($m:literal x $n:literal x $k:literal),*;)*) => {$($(
            benches.push(Bench {
                name: concat!("gemm_sm90/", $label, " bf16 ", $m, "x", $n, "x", $k),
                run: |g, _| bench(g, KERNELS[$i], $m, $n, $k),
            });
        )*)*};
    }
    shapes! {
        0 "128x128": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        1 "128x256": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        2 "ws 128x256": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        3 "persistent": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        4 "persistent bf16-out": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        5 "cluster2": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        6 "cluster2 bf16-out": 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        7 "persistent bf16-out tma-store": 4096 x 4096 x 4096, 8192 x 8192 x 8192, 8192 x 8192 x 1024, 4096 x 14336 x 4096;
        8 "cluster2 bf16-out tma-store": 4096 x 4096 x 4096, 8192 x 8192 x 8192, 8192 x 8192 x 1024, 4096 x 14336 x 4096;
    }
    macro_rules! api {
        ($($name:literal: $a_col:literal, $b_row:literal;)*) => {$(
            benches.push(Bench {
                name: concat!("gemm_sm90/api bf16 ", $name, " -> bf16 4096x4096x4096"),
                run: |g, _| bench_api(g, $a_col, $b_row, 4096),
            });
        )*};
    }
    benches.push(Bench { name: "gemm_sm90/tf32 4096x4096x4096 (wgmma)", run: |g, _| bench_tf32(g, 4096) });
    api! {
        "A row, B col": false, false;
        "A row, B row": false, true;
        "A col, B col": true, false;
        "A col, B row": true, true;
    }
    // cuBLAS in the same process, interleaved on the same buffers: `--filter cublas` runs these.
    macro_rules! vs_cublas {
        ($($label:literal $f:expr => $($m:literal x $n:literal x $k:literal),*;)*) => {$($(
            benches.push(Bench {
                name: concat!("gemm_sm90/vs cublas ", $label, " ", $m, "x", $n, "x", $k),
                run: |g, _| $f(g, ($m, $n, $k)),
            });
        )*)*};
    }
    vs_cublas! {
        "persistent bf16-out tma-store" tma_store_vs_cublas => 4096 x 4096 x 4096, 8192 x 8192 x 8192, 8192 x 8192 x 1024, 4096 x 14336 x 4096;
        "api bf16 -> bf16" api_vs_cublas::<u16> => 4096 x 4096 x 4096, 8192 x 8192 x 8192, 8192 x 8192 x 1024, 4096 x 14336 x 4096,
            1024 x 1024 x 1024, 2048 x 2048 x 2048, 16384 x 16384 x 16384, 16 x 4096 x 4096, 32 x 14336 x 4096, 128 x 4096 x 14336;
        "api bf16 -> f32" api_vs_cublas::<f32> => 4096 x 4096 x 4096, 8192 x 8192 x 8192;
        "fp8 e4m3 -> bf16" fp8_vs_cublaslt => 8192 x 8192 x 8192, 4096 x 4096 x 4096;
    }
    benches.push(Bench { name: "gemm_sm90/vs cublas batched bf16 -> bf16 64 x 512x512x128", run: |g, _| batched_vs_cublas(g, (64, 512, 512, 128)) });
    macro_rules! split_sweep {
        ($($m:literal x $n:literal x $k:literal),*) => {$(
            benches.push(Bench {
                name: concat!("gemm_sm90/split-K sweep bf16 ", $m, "x", $n, "x", $k),
                run: |g, _| split_sweep(g, ($m, $n, $k)),
            });
        )*};
    }
    benches.push(Bench { name: "gemm_sm90/per-tile cost: 4096 x 4096, K 2048 to 16384", run: |g, _| per_tile_cost(g) });
    split_sweep!(16 x 4096 x 4096, 32 x 14336 x 4096, 64 x 4096 x 14336, 128 x 4096 x 14336, 128 x 14336 x 4096, 1024 x 1024 x 1024);
    benches
}

/// The API entry for bf16 in and out with the given storage orders, `size`^3.
fn bench_api(gpu: &Gpu, a_col: bool, b_row: bool, size: usize) -> Result<Vec<Figure>, String> {
    let p = hopper((size, size, size), HopperIn::Bf16, (a_col, b_row), HopperOut::Bf16, (1.0, 0.0));
    let seed = fresh_seed();
    let a = gpu.upload(&random_half(seed, size * size, Half::Bf16)).map_err(fail("upload"))?;
    let b = gpu.upload(&random_half(seed ^ 0xb, size * size, Half::Bf16)).map_err(fail("upload"))?;
    let d = gpu.alloc::<u16>(size * size).map_err(fail("alloc"))?;
    bench_hopper(gpu, &p, &a, &b, &d)
}

/// The tf32 entry (f32 A row-major, B column-major, f32 D), `size`^3.
fn bench_tf32(gpu: &Gpu, size: usize) -> Result<Vec<Figure>, String> {
    let n = size;
    let p = hopper((n, n, n), HopperIn::Tf32, (false, false), HopperOut::F32, (1.0, 0.0));
    let seed = fresh_seed();
    let a = gpu.upload(&random_f32(seed, n * n)).map_err(fail("upload"))?;
    let b = gpu.upload(&random_f32(seed ^ 0xb, n * n)).map_err(fail("upload"))?;
    let d = gpu.alloc::<f32>(n * n).map_err(fail("alloc"))?;
    bench_hopper(gpu, &p, &a, &b, &d)
}

/// Times the Hopper entry of `p` (tensor maps made once).
fn bench_hopper<I: DeviceElem, O: DeviceElem>(
    gpu: &Gpu,
    p: &HopperGemm,
    a: &DeviceBuffer<I>,
    b: &DeviceBuffer<I>,
    d: &DeviceBuffer<O>,
) -> Result<Vec<Figure>, String> {
    let size = p.g.m;
    let maps = p.maps(gpu, a, b, d).map_err(fail("tensor maps"))?;
    let ms = time_median(gpu, 3, 20, || unsafe { p.launch_with(gpu, None, &maps, (None, None), d) })?;
    Ok(vec![Figure {
        what: format!("{} {size}^3 (persistent)", p.kernel_name()),
        value: 2.0 * (size as f64).powi(3) / (ms as f64 * 1e-3) / 1e12,
        unit: "TFLOP/s",
    }])
}

/// The operands on the GPU with their tensor maps (boxes of 64 K x the rows one block loads,
/// 128-byte swizzle; passed by value to the kernels). The buffers are held for the maps, which
/// point into them; the cuBLAS comparison reads them too.
struct Operands {
    a: DeviceBuffer<u16>,
    b: DeviceBuffer<u16>,
    a_map: TensorMap,
    b_map: TensorMap,
}

fn operands(gpu: &Gpu, kernel: Kernel, a: &[u16], b: &[u16], m: usize, n: usize, k: usize) -> Result<Operands, String> {
    let a = gpu.upload(a).map_err(fail("upload"))?;
    let b = gpu.upload(b).map_err(fail("upload"))?;
    let map = |buf: &DeviceBuffer<u16>, rows: usize, box_rows: u32| -> Result<TensorMap, String> {
        let global = Layout::parse(&format!("({k},{rows}):(1,{k})")).map_err(fail("layout"))?;
        gpu.tensor_map(buf, global, &[GEMM_SM90_BK, box_rows], TmaSwizzle::B128, TmaOobFill::Zero).map_err(fail("tensor map"))
    };
    let a_map = map(&a, m, kernel.shape.bm)?;
    // In a cluster each block loads its share of the B box (multicast to all).
    let b_map = map(&b, n, kernel.shape.bn / kernel.cluster.max(1))?;
    Ok(Operands { a, b, a_map, b_map })
}

/// D's tensor map for the TMA-store epilogue (bf16, boxes of 64 x 64, 128-byte swizzle), if the
/// kernel has it.
fn output_map(gpu: &Gpu, kernel: Kernel, d: &DeviceBuffer<u16>, m: usize, n: usize) -> Result<Option<TensorMap>, String> {
    if !kernel.tma_out {
        return Ok(None);
    }
    let global = Layout::parse(&format!("({n},{m}):(1,{n})")).map_err(fail("layout"))?;
    gpu.tensor_map(d, global, &[64, 64], TmaSwizzle::B128, TmaOobFill::Zero).map(Some).map_err(fail("tensor map of D"))
}

/// The launch shape of `kernel` for an `m x n` output: a block per tile, or for the persistent
/// kernels as many blocks (whole clusters) as can run at once, at most one per (cluster) tile.
fn launch_config(gpu: &Gpu, module: &Module, kernel: Kernel, m: u32, n: u32) -> cute_rs_host::Result<LaunchConfig> {
    let shape = kernel.shape;
    let (tiles_n, tiles_m) = (n.div_ceil(shape.bn), m.div_ceil(shape.bm));
    let grid = if kernel.cluster == 0 {
        (tiles_n, tiles_m, 1)
    } else {
        let cm = kernel.cluster;
        let cluster_tiles = tiles_m.div_ceil(cm) * tiles_n;
        let resident = if cm == 1 {
            gpu.properties().multiprocessors
        } else {
            // Fewer than SMs / cm when a GPC's SM count is odd: a cluster's blocks share a GPC.
            let smem = shape.smem_bytes() + if kernel.tma_out { GEMM_SM90_EPILOGUE_BYTES } else { 0 };
            kernel.function(module)?.max_active_clusters((shape.threads(), 1, 1), smem, (cm, 1, 1))?
        };
        (cluster_tiles.min(resident).max(1) * cm, 1, 1)
    };
    let epilogue = if kernel.tma_out { GEMM_SM90_EPILOGUE_BYTES } else { 0 };
    Ok(LaunchConfig { grid, block: (shape.threads(), 1, 1), shared_mem_bytes: shape.smem_bytes() + epilogue })
}

#[allow(clippy::too_many_arguments)]
fn launch<'a, O: DeviceElem>(
    gpu: &'a Gpu,
    module: &'a Module,
    kernel: Kernel,
    cfg: LaunchConfig,
    ops: &Operands,
    d_map: Option<&TensorMap>,
    c: &DeviceBuffer<f32>,
    d: &DeviceBuffer<O>,
    (m, n, kk): (u32, u32, u32),
    alpha: f32,
    beta: f32,
) -> cute_rs_host::Result<()> {
    let on_clusters = |launch: cute_rs_host::Launch<'a>| if kernel.cluster > 1 { launch.cluster((kernel.cluster, 1, 1)) } else { launch };
    // Raw pointers of the buffers, typed as the kernels' parameters (the suite checked their sizes).
    let (c, d) = (c.device_ptr() as *const f32, d.device_ptr());
    // The persistent kernels take D's tensor map (A's stands in when they store directly).
    let d_map = d_map.unwrap_or(&ops.a_map);
    // One packed batch, C and D rows N apart, no bias or activation.
    fn packed<O: Copy>(c: *const f32, d: u64, (m, n, k): (u32, u32, u32), alpha: f32, beta: f32) -> GemmParams<O> {
        let epilogue = EpilogueOp { alpha, beta, bias: c, flags: 0 };
        GemmParams { c, d: d as *mut O, m, n, k, batches: 1, ldc: n, ldd: n, batch_c: 0, batch_d: 0, epilogue, workspace: d as *mut u32 }
    }
    let launch = match kernel.entry {
        Entry::Grid(k) => gpu.launch(module, k, cfg, (&ops.a_map, &ops.b_map, c, d as *mut f32, m, n, kk, alpha, beta)),
        Entry::F32(k) => gpu.launch(module, k, cfg, (&ops.a_map, &ops.b_map, d_map, packed::<f32>(c, d, (m, n, kk), alpha, beta))),
        Entry::Bf16(k) => gpu.launch(module, k, cfg, (&ops.a_map, &ops.b_map, d_map, packed::<u16>(c, d, (m, n, kk), alpha, beta))),
    };
    // SAFETY: the maps and buffers hold the problem's operands (made above for these sizes).
    unsafe { on_clusters(launch).run() }
}

fn check(gpu: &Gpu, kernel: Kernel, m: usize, n: usize, k: usize, alpha: f32, beta: f32) -> Result<(), String> {
    let module = steps_module(gpu)?;
    let seed = fresh_seed();
    let a = random_half(seed, m * k, Half::Bf16);
    let b = random_half(seed ^ 0xb, n * k, Half::Bf16);
    let c = random_f32(seed ^ 0xc, m * n);
    let ops = operands(gpu, kernel, &a, &b, m, n, k)?;
    let gc = gpu.upload(&c).map_err(fail("upload"))?;
    let dims = (m as u32, n as u32, k as u32);
    let cfg = launch_config(gpu, &module, kernel, dims.0, dims.1).map_err(fail("launch shape"))?;
    let got: Vec<f32> = if kernel.bf16_out {
        let mut d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
        gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
        let d_map = output_map(gpu, kernel, &d, m, n)?;
        launch(gpu, &module, kernel, cfg, &ops, d_map.as_ref(), &gc, &d, dims, alpha, beta).map_err(fail("launch"))?;
        gpu.download(&d).map_err(fail("download"))?.into_iter().map(bf16_to_f32).collect()
    } else {
        let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
        gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
        launch(gpu, &module, kernel, cfg, &ops, None, &gc, &d, dims, alpha, beta).map_err(fail("launch"))?;
        gpu.download(&d).map_err(fail("download"))?
    };
    let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
    let what = format!("{} {m}x{n}x{k} alpha {alpha} beta {beta} (seed {seed})", kernel.name());
    let out = if kernel.bf16_out { HopperOut::Bf16 } else { HopperOut::F32 };
    check_d(&what, &got, (&f(&a), &f(&b), &c), (m, n, k), (alpha, beta), 1.0, out)
}

/// Compares `got` with `alpha * A * B^T + beta * C` computed in f64 (A M x K, B N x K, C M x N,
/// row-major): within 2^-16 (times `product_slack`) of the sum of the products' magnitudes, plus
/// the rounding of a 16-bit D (2^-8 of the value for bf16, 2^-11 for f16: twice the half ulp).
#[allow(clippy::type_complexity)]
fn check_d(
    what: &str,
    got: &[f32],
    (a, b, c): (&[f32], &[f32], &[f32]),
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (f32, f32),
    product_slack: f64,
    out: HopperOut,
) -> Result<(), String> {
    let (want, scale) = expected((a, b, c), (m, n, k), (alpha, beta), product_slack, out);
    compare_product(what, got, &want, &scale, n)
}

/// The f64 reference of [`check_d`] and each element's error scale (the tolerance is `2^-16` of
/// it, as [`compare_product`] applies it).
#[allow(clippy::type_complexity)]
fn expected(
    (a, b, c): (&[f32], &[f32], &[f32]),
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (f32, f32),
    product_slack: f64,
    out: HopperOut,
) -> (Vec<f64>, Vec<f64>) {
    let rounding = match out {
        HopperOut::F32 => 0.0,
        HopperOut::Bf16 => 2f64.powi(-8),
        HopperOut::F16 => 2f64.powi(-11),
    };
    let (mut want, mut scale) = reference(a, b, None, m, n, k);
    for i in 0..m * n {
        want[i] = alpha as f64 * want[i] + beta as f64 * c[i] as f64;
        // compare_product allows 2^-16 of `scale`.
        scale[i] = (alpha as f64).abs() * scale[i] * product_slack
            + (beta as f64 * c[i] as f64).abs()
            + want[i].abs() * rounding * 2f64.powi(16);
    }
    (want, scale)
}

fn bench(gpu: &Gpu, kernel: Kernel, m: usize, n: usize, k: usize) -> Result<Vec<Figure>, String> {
    let module = steps_module(gpu)?;
    let seed = fresh_seed();
    let ops = operands(gpu, kernel, &random_half(seed, m * k, Half::Bf16), &random_half(seed ^ 0xb, n * k, Half::Bf16), m, n, k)?;
    let c = gpu.alloc::<f32>(1).map_err(fail("alloc"))?;
    let dims = (m as u32, n as u32, k as u32);
    let cfg = launch_config(gpu, &module, kernel, dims.0, dims.1).map_err(fail("launch shape"))?;
    let ms = if kernel.bf16_out {
        let d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
        let d_map = output_map(gpu, kernel, &d, m, n)?;
        time_median(gpu, 3, 20, || launch(gpu, &module, kernel, cfg, &ops, d_map.as_ref(), &c, &d, dims, 1.0, 0.0))?
    } else {
        let d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
        time_median(gpu, 3, 20, || launch(gpu, &module, kernel, cfg, &ops, None, &c, &d, dims, 1.0, 0.0))?
    };
    let label = LABELS[KERNELS.iter().position(|x| x.name() == kernel.name()).unwrap_or(0)];
    Ok(vec![Figure {
        what: format!(
            "{} {m}x{n}x{k} ({label}: {}x{}x64 tiles, {}-stage TMA ring, {} warpgroup(s), {} out, {} blocks)",
            kernel.name(),
            kernel.shape.bm,
            kernel.shape.bn,
            kernel.shape.stages,
            kernel.shape.warpgroups,
            if kernel.bf16_out { "bf16" } else { "f32" },
            cfg.grid.0 * cfg.grid.1
        ),
        value: 2.0 * m as f64 * n as f64 * k as f64 / (ms as f64 * 1e-3) / 1e12,
        unit: "TFLOP/s",
    }])
}

/// The API entries of one input and output type, for the four storage orders of A and B, on
/// ragged sizes (multiples of 8 as TMA needs), with alpha and beta, against the f64 reference.
fn check_api(gpu: &Gpu, f16: bool, out: HopperOut) -> Result<(), String> {
    let kind = if f16 { Half::F16 } else { Half::Bf16 };
    let to_f32 = |v: &[u16]| -> Vec<f32> { v.iter().map(|&x| if f16 { f16_to_f32(x) } else { bf16_to_f32(x) }).collect() };
    // N = 138 (f32 D only, where B is K-major): rows of D that TMA cannot store, the direct-store
    // epilogue.
    let sizes = [(200, 136, 72, 1.0, 0.0), (264, 520, 136, 1.5, -0.5), (1000, 1000, 1000, 1.0, 0.0), (136, 138, 64, 1.0, 0.5)];
    for (m, n, k, alpha, beta) in sizes {
        for (a_col, b_row) in [(false, false), (false, true), (true, false), (true, true)] {
            let input = if f16 { HopperIn::F16 } else { HopperIn::Bf16 };
            let p = hopper((m, n, k), input, (a_col, b_row), out, (alpha, beta));
            if n == 138 && (out != HopperOut::F32 || b_row) {
                continue;
            }
            let seed = fresh_seed();
            let (a, b, c) = (random_half(seed, m * k, kind), random_half(seed ^ 0xb, k * n, kind), random_f32(seed ^ 0xc, m * n));
            // The reference wants A as M x K and B as N x K, row-major.
            let (af, bf) = (to_f32(&a), to_f32(&b));
            let a_rows: Vec<f32> = (0..m * k).map(|i| if a_col { af[i % k * m + i / k] } else { af[i] }).collect();
            let b_rows: Vec<f32> = (0..n * k).map(|i| if b_row { bf[i % k * n + i / k] } else { bf[i] }).collect();
            let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
            let gc = gpu.upload(&c).map_err(fail("upload"))?;
            let what = format!("{} {m}x{n}x{k} alpha {alpha} beta {beta} (seed {seed})", p.kernel_name());
            if let Some(why) = p.unsupported() {
                return Err(format!("{what}: unexpectedly unsupported: {why}"));
            }
            let got: Vec<f32> = if out == HopperOut::F32 {
                let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
                gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
                unsafe { p.launch(gpu, None, &ga, &gb, Some(&gc), None, &d) }.map_err(fail("launch"))?;
                gpu.download(&d).map_err(fail("download"))?
            } else {
                let mut d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
                gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
                unsafe { p.launch(gpu, None, &ga, &gb, Some(&gc), None, &d) }.map_err(fail("launch"))?;
                let bits = gpu.download(&d).map_err(fail("download"))?;
                bits.into_iter().map(|x| if out == HopperOut::F16 { f16_to_f32(x) } else { bf16_to_f32(x) }).collect()
            };
            check_d(&what, &got, (&a_rows, &b_rows, &c), (m, n, k), (alpha, beta), 1.0, out)?;
        }
    }
    Ok(())
}

/// The decode entries (bf16 A row-major of 1 to 128 rows, B column-major, a 16-bit D; computed
/// transposed in tiles of 128 of N x 16, 32, 64 or 128 of M) into a poisoned D, against the f64
/// reference: N and K ragged against the tile (N a multiple of 8 and K of 8, as TMA needs), alpha
/// and beta, unsplit, split (3 splits: uneven K shares) and with the automatic splits.
fn check_decode(gpu: &Gpu, out: HopperOut) -> Result<(), String> {
    let to_f32 = |v: &[u16]| -> Vec<f32> { v.iter().map(|&x| bf16_to_f32(x)).collect() };
    let cases = [(1000, 1000, 1.0, 0.0, Some(1)), (264, 136, 1.5, -0.5, Some(1)), (1000, 4040, 1.0, 0.5, Some(3)), (4104, 2056, 1.0, 0.0, None)];
    for m in [1, 16, 33, 64, 65, 128] {
        for (n, k, alpha, beta, splits) in cases {
            let p = hopper((m, n, k), HopperIn::Bf16, (false, false), out, (alpha, beta));
            let p = splits.map_or(p, |s| p.split(s));
            let seed = fresh_seed();
            let what = format!("{} {m}x{n}x{k} alpha {alpha} beta {beta} splits {splits:?} (seed {seed})", p.kernel_name());
            if !p.kernel_name().contains("_decode") {
                return Err(format!("{what}: not a decode entry"));
            }
            if let Some(why) = p.unsupported() {
                return Err(format!("{what}: unexpectedly unsupported: {why}"));
            }
            let (a, b, c) = (random_half(seed, m * k, Half::Bf16), random_half(seed ^ 0xb, k * n, Half::Bf16), random_f32(seed ^ 0xc, m * n));
            let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
            let gc = gpu.upload(&c).map_err(fail("upload"))?;
            let mut d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
            gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
            // SAFETY: A (M x K) and B (N x K) row-major bf16, C and D (M x N) are this problem's.
            unsafe { p.launch(gpu, None, &ga, &gb, Some(&gc), None, &d) }.map_err(fail("launch"))?;
            let bits = gpu.download(&d).map_err(fail("download"))?;
            let got: Vec<f32> = bits.into_iter().map(|x| if out == HopperOut::F16 { f16_to_f32(x) } else { bf16_to_f32(x) }).collect();
            check_d(&what, &got, (&to_f32(&a), &to_f32(&b), &c), (m, n, k), (alpha, beta), 1.0, out)?;
        }
    }
    Ok(())
}

/// `Gemm::run_tf32_sm90` on f32 operands against the f64 reference of the f32 values: the tensor
/// cores drop each input's low 13 mantissa bits, so a product is off by less than `2^-9` of
/// itself and a sum by less than `2^-9` of the sum of its products' magnitudes.
fn check_tf32(gpu: &Gpu, _: &Module) -> Result<(), String> {
    use cute_rs_ops::gemm::Major;
    for (m, n, k, alpha, beta) in [(200, 136, 72, 1.0, 0.0), (264, 520, 132, 1.5, -0.5), (1000, 1000, 1000, 1.0, 0.0), (4095, 4097, 1000, 1.0, 0.0)] {
        let seed = fresh_seed();
        let (a, b, c) = (random_f32(seed, m * k), random_f32(seed ^ 0xb, n * k), random_f32(seed ^ 0xc, m * n));
        let (ga, gb, gc) = (
            gpu.upload(&a).map_err(fail("upload"))?,
            gpu.upload(&b).map_err(fail("upload"))?,
            gpu.upload(&c).map_err(fail("upload"))?,
        );
        let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
        gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
        let g = Gemm::new(m, n, k).b_major(Major::Col).alpha(alpha).beta(beta);
        g.run_tf32_sm90(gpu, &ga, &gb, (beta != 0.0).then_some(&gc), &mut d).map_err(|e| e.to_string())?;
        let got = gpu.download(&d).map_err(fail("download"))?;
        let what = format!("run_tf32_sm90 {m}x{n}x{k} alpha {alpha} beta {beta} (seed {seed})");
        // 2^-9 of the products' magnitudes is 2^7 times the base 2^-16.
        check_d(&what, &got, (&a, &b, &c), (m, n, k), (alpha, beta), 2f64.powi(7), HopperOut::F32)?;
    }
    Ok(())
}

/// Which D the Hopper path writes for the peer's output type `O` (bf16 bits or f32, the types
/// [`PeerOut`] has).
fn hopper_out<O: GemmOutput>() -> HopperOut {
    if O::KERNEL_SUFFIX.is_empty() {
        HopperOut::F32
    } else {
        HopperOut::Bf16
    }
}

/// The API entry for A row-major and B column-major (both K-major: the "TN" GEMM cuBLAS computes
/// in [`Cublas::gemm_tn`]), bf16 in, `O` out, alpha 1, beta 0.
fn api_tn<O: GemmOutput>((m, n, k): (usize, usize, usize)) -> HopperGemm {
    hopper((m, n, k), HopperIn::Bf16, (false, false), hopper_out::<O>(), (1.0, 0.0))
}

/// The Hopper problem `(m, n, k)` of inputs `input`, A column-major / B row-major as `majors`
/// says, D `out`, `(alpha, beta)`.
fn hopper((m, n, k): (usize, usize, usize), input: HopperIn, (a_col, b_row): (bool, bool), out: HopperOut, (alpha, beta): (f32, f32)) -> HopperGemm {
        HopperGemm::new(Gemm::new(m, n, k).a_major(if a_col { Major::Col } else { Major::Row }).b_major(if b_row { Major::Row } else { Major::Col }).alpha(alpha).beta(beta), input, out)
}

/// D as f32 values.
fn values<O: GemmOutput>(gpu: &Gpu, d: &DeviceBuffer<O>) -> Result<Vec<f32>, String> {
    Ok(gpu.download(d).map_err(fail("download"))?.into_iter().map(GemmOutput::value).collect())
}

/// The API entry (TN) and cuBLAS on the same random operands, on a size of whole tiles and a
/// ragged one (M, N, K not multiples of the 128 x 256 x 64 tile): each against the f64 reference,
/// and each other within the sum of their tolerances. M, N and K all differ, so a transposed
/// operand or D cannot pass.
fn check_vs_cublas<O: PeerOut + GemmOutput>(gpu: &Gpu) -> Result<(), String> {
    let blas = Cublas::new(gpu)?;
    for (m, n, k) in [(256, 384, 512), (264, 520, 136)] {
        let p = api_tn::<O>((m, n, k));
        let seed = fresh_seed();
        let (a, b) = (random_half(seed, m * k, Half::Bf16), random_half(seed ^ 0xb, n * k, Half::Bf16));
        let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
        let mut d = gpu.alloc::<O>(m * n).map_err(fail("alloc"))?;
        gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
        // SAFETY: A (M x K) and B (N x K) row-major bf16 and D (M x N) are this problem's buffers.
        unsafe { p.launch(gpu, None, &ga, &gb, None, None, &d) }.map_err(fail("launch"))?;
        let ours = values(gpu, &d)?;
        let mut dp = gpu.alloc::<O>(m * n).map_err(fail("alloc"))?;
        gpu.memset(&mut dp, 0xff).map_err(fail("poison"))?;
        // SAFETY: as above; `values` waits for the stream before the buffers can go.
        unsafe { blas.gemm_tn((m, n, k), &ga, &gb, &dp) }.map_err(|e| e.to_string())?;
        let peer = values(gpu, &dp)?;
        let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
        let zero = vec![0.0; m * n];
        let (want, scale) = expected((&f(&a), &f(&b), &zero), (m, n, k), (1.0, 0.0), 1.0, p.out);
        let what = |who: &str| format!("{who} {m}x{n}x{k} (seed {seed})");
        compare_product(&what(&p.kernel_name()), &ours, &want, &scale, n)?;
        compare_product(&what("cublasGemmEx"), &peer, &want, &scale, n)?;
        let peer64: Vec<f64> = peer.iter().map(|&x| x as f64).collect();
        let both: Vec<f64> = scale.iter().map(|s| 2.0 * s).collect();
        compare_product(&what(&format!("{} against cublasGemmEx", p.kernel_name())), &ours, &peer64, &both, n)?;
    }
    Ok(())
}

/// `Cublas::gemm_tn_batched` on `L` = 3 random bf16 problems of 130 x 72 x 64, each batch of D
/// against the f64 reference of its own `A_p` and `B_p` (the tolerance of [`check_vs_cublas`]),
/// into a poisoned bf16 D and then a poisoned f32 one. M, N and K all differ and each batch's
/// data is its own, so a transposed operand, a wrong batch stride or an unwritten batch cannot
/// pass.
fn check_cublas_batched(gpu: &Gpu) -> Result<(), String> {
    let blas = Cublas::new(gpu)?;
    batched_vs_reference::<u16>(gpu, &blas)?;
    batched_vs_reference::<f32>(gpu, &blas)
}

/// One output type of [`check_cublas_batched`].
fn batched_vs_reference<O: PeerOut + GemmOutput>(gpu: &Gpu, blas: &Cublas) -> Result<(), String> {
    let (l, m, n, k) = (3, 130, 72, 64);
    let seed = fresh_seed();
    let (a, b) = (random_half(seed, l * m * k, Half::Bf16), random_half(seed ^ 0xb, l * n * k, Half::Bf16));
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let mut d = gpu.alloc::<O>(l * m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    // SAFETY: A (L x M x K), B (L x N x K) and D (L x M x N) are this problem's buffers; `values`
    // waits for the stream before they can go.
    unsafe { blas.gemm_tn_batched(l, (m, n, k), &ga, &gb, &d) }.map_err(|e| e.to_string())?;
    let got = values(gpu, &d)?;
    let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
    let zero = vec![0.0; m * n];
    for p in 0..l {
        let (a_p, b_p) = (f(&a[p * m * k..(p + 1) * m * k]), f(&b[p * n * k..(p + 1) * n * k]));
        let (want, scale) = expected((&a_p, &b_p, &zero), (m, n, k), (1.0, 0.0), 1.0, hopper_out::<O>());
        let what = format!("cublasGemmStridedBatchedEx batch {p} of {l} x {m}x{n}x{k} -> {} (seed {seed})", O::LABEL);
        compare_product(&what, &got[p * m * n..(p + 1) * m * n], &want, &scale, n)?;
    }
    Ok(())
}

/// `CublasLt::gemm_tn_e4m3` on 200 x 136 x 128 random e4m3 operands (`E4M3::from_f32` of random
/// f32s in `[-4, 4)`) with the per-tensor scales 0.5 (A) and 3 (B), against the f64 reference of
/// the decoded values times 1.5, into a poisoned bf16 D and then a poisoned f32 one. The fp8
/// tensor cores accumulate with fewer bits than f32 between cuBLASLt's promotions to f32, so
/// the tolerance is `2^-10` of the scaled sum of the products' magnitudes (as the fp8 wgmma check
/// allows), plus one rounding of a bf16 D. A scale ignored is off by a factor 2 or 3, a
/// transposed operand or D by about the values themselves.
fn check_cublaslt_e4m3(gpu: &Gpu) -> Result<(), String> {
    let lt = CublasLt::new(gpu)?;
    e4m3_vs_reference::<u16>(gpu, &lt)?;
    e4m3_vs_reference::<f32>(gpu, &lt)
}

/// `len` e4m3 values (bits) of uniform random values times 4, reproducible from `seed`.
fn random_e4m3(seed: u64, len: usize) -> Vec<u8> {
    random_f32(seed, len).into_iter().map(|x| E4M3::from_f32(4.0 * x).0).collect()
}

/// One output type of [`check_cublaslt_e4m3`].
fn e4m3_vs_reference<O: PeerOut + GemmOutput>(gpu: &Gpu, lt: &CublasLt) -> Result<(), String> {
    let (m, n, k) = (200, 136, 128);
    let (scale_a, scale_b) = (0.5f32, 3.0f32);
    let seed = fresh_seed();
    let (a, b) = (random_e4m3(seed, m * k), random_e4m3(seed ^ 0xb, n * k));
    let up = |v: &[u8]| gpu.upload(v).map_err(fail("upload"));
    let (ga, gb) = (up(&a)?, up(&b)?);
    let up_scale = |x: f32| gpu.upload(&[x]).map_err(fail("upload"));
    let (gsa, gsb) = (up_scale(scale_a)?, up_scale(scale_b)?);
    let mut d = gpu.alloc::<O>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    // SAFETY: A (M x K), B (N x K), the scales and D (M x N) are this problem's buffers; `values`
    // waits for the stream before they can go.
    unsafe { lt.gemm_tn_e4m3((m, n, k), &ga, &gb, (&gsa, &gsb), &d) }.map_err(|e| e.to_string())?;
    let got = values(gpu, &d)?;
    let decode = |v: &[u8]| v.iter().map(|&c| E4M3(c).to_f32()).collect::<Vec<f32>>();
    let (mut want, magnitudes) = reference(&decode(&a), &decode(&b), None, m, n, k);
    let product_scale = scale_a as f64 * scale_b as f64;
    want.iter_mut().for_each(|x| *x *= product_scale);
    let rounding = if hopper_out::<O>() == HopperOut::Bf16 { 2f64.powi(-8) } else { 0.0 };
    // compare_product allows 2^-16 of the scale: 2^-10 is 2^6 of it.
    let scale: Vec<f64> =
        (0..m * n).map(|i| magnitudes[i] * product_scale * 2f64.powi(6) + want[i].abs() * rounding * 2f64.powi(16)).collect();
    let what = format!("cublasLtMatmul e4m3 {m}x{n}x{k} scales {scale_a} x {scale_b} -> {} (seed {seed})", O::LABEL);
    compare_product(&what, &got, &want, &scale, n)
}

/// Rounds of each comparison with cuBLAS (after 3 warm-up batches of each).
const PEER_ROUNDS: usize = 20;

/// Calls per timed batch: about 1.1 * 10^12 flops (one 8192^3 GEMM), at most 16 calls, so that
/// the events and the gaps between launches weigh little beside the work.
fn peer_batch((m, n, k): (usize, usize, usize)) -> usize {
    ((1.1e12 / (2.0 * m as f64 * n as f64 * k as f64)).round() as usize).clamp(1, 16)
}

/// Whether our D and cuBLAS's D agree at a benchmark's size, where the f64 reference would take
/// minutes on the CPU: within twice `2^-16 |a_i| |b_j|` (Cauchy-Schwarz bounds the sum of the
/// products' magnitudes, the base of each one's tolerance, by the norms of A's row and B's row)
/// plus two roundings of a bf16 D. A transposed operand or D is off by about the values themselves.
fn agree(what: &str, ours: &[f32], peer: &[f32], (a, b): (&[u16], &[u16]), (m, n, k): (usize, usize, usize), bf16_out: bool) -> Result<(), String> {
    let norms = |v: &[u16], rows: usize| -> Vec<f64> {
        (0..rows).map(|r| v[r * k..(r + 1) * k].iter().map(|&x| (bf16_to_f32(x) as f64).powi(2)).sum::<f64>().sqrt()).collect()
    };
    let (na, nb) = (norms(a, m), norms(b, n));
    let rounding = if bf16_out { 2f64.powi(-7) } else { 0.0 };
    let want: Vec<f64> = peer.iter().map(|&x| x as f64).collect();
    // compare_product allows 2^-16 of the scale.
    let scale: Vec<f64> =
        (0..m * n).map(|i| 2.0 * na[i / n] * nb[i % n] + want[i].abs() * rounding * 2f64.powi(16)).collect();
    compare_product(what, ours, &want, &scale, n)
}


/// The persistent kernel with the TMA-store epilogue (bf16 D) against cuBLAS, interleaved on the
/// same A, B and D.
fn tma_store_vs_cublas(gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<Vec<Figure>, String> {
    let blas = Cublas::new(gpu)?;
    let kernel = KERNELS[7];
    let module = steps_module(gpu)?;
    let seed = fresh_seed();
    let (a, b) = (random_half(seed, m * k, Half::Bf16), random_half(seed ^ 0xb, n * k, Half::Bf16));
    let ops = operands(gpu, kernel, &a, &b, m, n, k)?;
    let c = gpu.alloc::<f32>(1).map_err(fail("alloc"))?;
    let d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
    let d_map = output_map(gpu, kernel, &d, m, n)?;
    let dims = (m as u32, n as u32, k as u32);
    let cfg = launch_config(gpu, &module, kernel, dims.0, dims.1).map_err(fail("launch shape"))?;
    let ours = || launch(gpu, &module, kernel, cfg, &ops, d_map.as_ref(), &c, &d, dims, 1.0, 0.0);
    // SAFETY (both calls): A, B and D hold the problem's matrices until the end of the function,
    // after the last synchronization.
    let peer = || unsafe { blas.gemm_tn((m, n, k), &ops.a, &ops.b, &d) };
    ours().map_err(fail("launch"))?;
    let got = values(gpu, &d)?;
    peer().map_err(|e| e.to_string())?;
    let want = values(gpu, &d)?;
    agree(&format!("{} {m}x{n}x{k} against cublasGemmEx (seed {seed})", kernel.name()), &got, &want, (&a, &b), (m, n, k), true)?;
    let batch = peer_batch((m, n, k));
    let t = time_interleaved(gpu, (3, PEER_ROUNDS, batch), ours, peer)?;
    Ok(versus_cublas(kernel.name(), "bf16", (m, n, k), &t, batch))
}

/// The API entry (TN, tensor maps made once, as [`bench_hopper`] times it) against cuBLAS,
/// interleaved on the same A, B and D; then the call to completion of `Gemm::run_sm90` (tensor
/// maps encoded per call and passed by value) beside `cublasGemmEx`, each followed by a
/// synchronization, interleaved too.
fn api_vs_cublas<O: PeerOut + GemmOutput>(gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<Vec<Figure>, String> {
    let blas = Cublas::new(gpu)?;
    let p = api_tn::<O>((m, n, k));
    let seed = fresh_seed();
    let (a, b) = (random_half(seed, m * k, Half::Bf16), random_half(seed ^ 0xb, n * k, Half::Bf16));
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let d = gpu.alloc::<O>(m * n).map_err(fail("alloc"))?;
    let maps = p.maps(gpu, &ga, &gb, &d).map_err(fail("tensor maps"))?;
    // SAFETY (both calls): the maps and buffers hold the problem's operands until the end of the
    // function, after the last synchronization.
    let ours = || unsafe { p.launch_with(gpu, None, &maps, (None, None), &d) };
    let peer = || unsafe { blas.gemm_tn((m, n, k), &ga, &gb, &d) };
    ours().map_err(fail("launch"))?;
    let got = values(gpu, &d)?;
    peer().map_err(|e| e.to_string())?;
    let want = values(gpu, &d)?;
    let bf16_out = p.out == HopperOut::Bf16;
    agree(&format!("{} {m}x{n}x{k} against cublasGemmEx (seed {seed})", p.kernel_name()), &got, &want, (&a, &b), (m, n, k), bf16_out)?;
    let batch = peer_batch((m, n, k));
    let t = time_interleaved(gpu, (3, PEER_ROUNDS, batch), ours, peer)?;
    let out = if bf16_out { "bf16" } else { "f32" };
    let mut figures = versus_cublas(&p.kernel_name(), out, (m, n, k), &t, batch);

    // `run_sm90` takes D mutably; cuBLAS writes the same buffer between its calls.
    let d = std::cell::RefCell::new(d);
    let g = Gemm::new(m, n, k).b_major(Major::Col);
    let (api_ms, peer_ms) = wall_interleaved(
        PEER_ROUNDS,
        || {
            g.run_sm90(gpu, &ga, &gb, None, &mut d.borrow_mut()).map_err(|e| format!("Gemm::run_sm90: {e}"))?;
            gpu.synchronize().map_err(fail("synchronize"))
        },
        || {
            // SAFETY: as above; synchronized before the closure returns.
            unsafe { blas.gemm_tn((m, n, k), &ga, &gb, &d.borrow()) }.map_err(|e| e.to_string())?;
            gpu.synchronize().map_err(fail("synchronize"))
        },
    )?;
    // The same through the tensor front end: layouts decoded, the path picked, per call.
    let (la, lb, ld) = (
        Layout::parse(&format!("({m},{k}):({k},1)")).map_err(|e| e.to_string())?,
        Layout::parse(&format!("({k},{n}):(1,{k})")).map_err(|e| e.to_string())?,
        Layout::parse(&format!("({m},{n}):({n},1)")).map_err(|e| e.to_string())?,
    );
    let (matmul_ms, _) = wall_interleaved(
        PEER_ROUNDS,
        || {
            let mut d = d.borrow_mut();
            let (ta, tb) = (ga.tensor(la).map_err(|e| e.to_string())?, gb.tensor(lb).map_err(|e| e.to_string())?);
            cute_rs_ops::matmul::Matmul::new().run(gpu, ta, tb, None, d.tensor_mut(ld).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
            gpu.synchronize().map_err(fail("synchronize"))
        },
        || {
            // SAFETY: as above; synchronized before the closure returns.
            unsafe { blas.gemm_tn((m, n, k), &ga, &gb, &d.borrow()) }.map_err(|e| e.to_string())?;
            gpu.synchronize().map_err(fail("synchronize"))
        },
    )?;
    // A stream of calls, as a model's layers issue them: 20 back to back, then one wait.
    const CALLS: usize = 20;
    let (api_stream_ms, peer_stream_ms) = wall_interleaved(
        PEER_ROUNDS / 4,
        || {
            for _ in 0..CALLS {
                g.run_sm90(gpu, &ga, &gb, None, &mut d.borrow_mut()).map_err(|e| format!("Gemm::run_sm90: {e}"))?;
            }
            gpu.synchronize().map_err(fail("synchronize"))
        },
        || {
            for _ in 0..CALLS {
                // SAFETY: as above.
                unsafe { blas.gemm_tn((m, n, k), &ga, &gb, &d.borrow()) }.map_err(|e| e.to_string())?;
            }
            gpu.synchronize().map_err(fail("synchronize"))
        },
    )?;
    // What the API adds to a stream of calls, with the clock drift cancelled: per round, the
    // kernel launched CALLS times with maps made once, between two events, then CALLS calls of
    // `Gemm::run_sm90` (maps encoded per call) between two events, then CALLS calls of
    // `Gemm::run_sm90` and a synchronization by the wall clock; the host's time to issue them.
    let api_calls = || (0..CALLS).try_for_each(|_| g.run_sm90(gpu, &ga, &gb, None, &mut d.borrow_mut()).map_err(|e| cute_rs_host::HostError::Invalid(e.to_string())));
    let (mut on_gpu, mut wall, mut issue) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..PEER_ROUNDS {
        gpu.synchronize().map_err(fail("synchronize"))?;
        // SAFETY: as for `ours` (the same maps and buffers).
        let launches = || (0..CALLS).try_for_each(|_| unsafe { p.launch_with(gpu, None, &maps, (None, None), &d.borrow()) });
        let kernel_ms = gpu.time_ms(launches).map_err(fail("timed launches"))?;
        let api_ms = gpu.time_ms(api_calls).map_err(fail("timed calls"))?;
        on_gpu.push(api_ms / kernel_ms);
        gpu.synchronize().map_err(fail("synchronize"))?;
        let start = std::time::Instant::now();
        api_calls().map_err(fail("calls"))?;
        let issued = start.elapsed().as_secs_f32() * 1e3;
        gpu.synchronize().map_err(fail("synchronize"))?;
        wall.push(start.elapsed().as_secs_f32() * 1e3 / kernel_ms);
        issue.push(issued / CALLS as f32);
    }
    figures.extend([
        Figure { what: format!("Gemm::run_sm90 / kernel, {CALLS} calls each between two events (GPU timeline, same round)"), value: median(on_gpu) as f64, unit: "x" },
        Figure { what: format!("Gemm::run_sm90 / kernel, {CALLS} calls then synchronize (wall clock) / {CALLS} launches (events), same round"), value: median(wall) as f64, unit: "x" },
        Figure { what: format!("Gemm::run_sm90, {CALLS} calls: host time to issue one (no wait)"), value: median(issue) as f64, unit: "ms" },
        Figure { what: format!("Gemm::run_sm90, {CALLS} calls back to back then synchronize: per call (wall clock)"), value: api_stream_ms / CALLS as f64, unit: "ms" },
        Figure { what: format!("cublasGemmEx, {CALLS} calls back to back then synchronize: per call (wall clock)"), value: peer_stream_ms / CALLS as f64, unit: "ms" },
        Figure { what: format!("{} kernel time (events)", p.kernel_name()), value: t.ours_ms as f64, unit: "ms" },
        Figure { what: "cublasGemmEx kernel time (events)".into(), value: t.peer_ms as f64, unit: "ms" },
        Figure { what: "Gemm::run_sm90 + synchronize, call to completion (wall clock)".into(), value: api_ms, unit: "ms" },
        Figure { what: "Matmul::run on tensors + synchronize, call to completion (wall clock)".into(), value: matmul_ms, unit: "ms" },
        Figure { what: "cublasGemmEx + stream synchronize, call to completion (wall clock)".into(), value: peer_ms, unit: "ms" },
    ]);
    Ok(figures)
}

/// Figures of an interleaved comparison (`batch` calls per round) with a peer, `flops` per
/// call: ours and the peer's TFLOP/s (`peer`: its full name) and their ratio (`short`: the
/// peer's name there).
fn versus(ours: &str, (peer, short): (&str, &str), flops: f64, t: &Interleaved, batch: usize) -> Vec<Figure> {
    let tflops = |ms: f32| flops / (ms as f64 * 1e-3) / 1e12;
    vec![
        Figure { what: format!("{ours} ({PEER_ROUNDS} interleaved rounds of {batch} call(s) each)"), value: tflops(t.ours_ms), unit: "TFLOP/s" },
        Figure { what: format!("{peer} (same buffers)"), value: tflops(t.peer_ms), unit: "TFLOP/s" },
        Figure { what: format!("ours / {short} (median of the rounds' speed ratios)"), value: t.speedup, unit: "x" },
    ]
}

/// [`versus`] for an `M x N x K` bf16 GEMM into `out` against `cublasGemmEx`.
fn versus_cublas(ours: &str, out: &str, (m, n, k): (usize, usize, usize), t: &Interleaved, batch: usize) -> Vec<Figure> {
    let peer = format!("cublasGemmEx bf16 TN, f32 compute, {out} out");
    versus(&format!("{ours} {m}x{n}x{k}, {out} out"), (&peer, "cuBLAS"), 2.0 * (m * n * k) as f64, t, batch)
}

/// Our kernel time of an interleaved comparison.
fn kernel_time(t: &Interleaved) -> Figure {
    Figure { what: "our kernel time (events)".into(), value: t.ours_ms as f64, unit: "ms" }
}

/// `L` batches of the TN GEMM (bf16 in and out, A row-major, B column-major, packed) through the
/// Hopper entry (one persistent launch, 3-D tensor maps made once) against
/// `cublasGemmStridedBatchedEx`, interleaved on the same buffers after checking that they agree;
/// then the call to completion of [`Matmul::run`](cute_rs_ops::matmul::Matmul::run) on tensors beside
/// cuBLAS's.
fn batched_vs_cublas(gpu: &Gpu, (l, m, n, k): (usize, usize, usize, usize)) -> Result<Vec<Figure>, String> {
    let blas = Cublas::new(gpu)?;
    let p = HopperGemm::new(Gemm::new(m, n, k).b_major(Major::Col).batched(l), HopperIn::Bf16, HopperOut::Bf16);
    let seed = fresh_seed();
    let (a, b) = (random_half(seed, l * m * k, Half::Bf16), random_half(seed ^ 0xb, l * n * k, Half::Bf16));
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let d = gpu.alloc::<u16>(l * m * n).map_err(fail("alloc"))?;
    let maps = p.maps(gpu, &ga, &gb, &d).map_err(fail("tensor maps"))?;
    // SAFETY (both): the maps and buffers hold the problem's operands until the function's end,
    // after the last synchronization.
    let ours = || unsafe { p.launch_with(gpu, None, &maps, (None, None), &d) };
    let peer = || unsafe { blas.gemm_tn_batched(l, (m, n, k), &ga, &gb, &d) };
    ours().map_err(fail("launch"))?;
    let got = values(gpu, &d)?;
    peer().map_err(|e| e.to_string())?;
    let want = values(gpu, &d)?;
    for q in [0, l - 1] {
        let (x, y) = (q * m * n, (q + 1) * m * n);
        let (aq, bq) = (&a[q * m * k..(q + 1) * m * k], &b[q * n * k..(q + 1) * n * k]);
        agree(&format!("{} batch {q} of {l} x {m}x{n}x{k} against cublasGemmStridedBatchedEx (seed {seed})", p.kernel_name()), &got[x..y], &want[x..y], (aq, bq), (m, n, k), true)?;
    }
    let batch = peer_batch((l * m, n, k));
    let t = time_interleaved(gpu, (3, PEER_ROUNDS, batch), ours, peer)?;
    let flops = 2.0 * (l * m * n * k) as f64;
    let peer = "cublasGemmStridedBatchedEx";
    let mut figures = versus(&format!("{} batched {l} x {m}x{n}x{k}", p.kernel_name()), (peer, peer), flops, &t, batch);
    figures.push(kernel_time(&t));
    let la = Layout::parse(&format!("({m},{k},{l}):({k},1,{})", m * k)).map_err(|e| e.to_string())?;
    let lb = Layout::parse(&format!("({k},{n},{l}):(1,{k},{})", n * k)).map_err(|e| e.to_string())?;
    let ld = Layout::parse(&format!("({m},{n},{l}):({n},1,{})", m * n)).map_err(|e| e.to_string())?;
    let d = std::cell::RefCell::new(d);
    let (api_ms, peer_ms) = wall_interleaved(
        PEER_ROUNDS,
        || {
            let mut d = d.borrow_mut();
            let (ta, tb) = (ga.tensor(la).map_err(|e| e.to_string())?, gb.tensor(lb).map_err(|e| e.to_string())?);
            cute_rs_ops::matmul::Matmul::new().run(gpu, ta, tb, None, d.tensor_mut(ld).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
            gpu.synchronize().map_err(fail("synchronize"))
        },
        || {
            // SAFETY: as above; synchronized before the closure returns.
            unsafe { blas.gemm_tn_batched(l, (m, n, k), &ga, &gb, &d.borrow()) }.map_err(|e| e.to_string())?;
            gpu.synchronize().map_err(fail("synchronize"))
        },
    )?;
    figures.extend([
        Figure { what: "Matmul::run on tensors + synchronize, call to completion (wall clock)".into(), value: api_ms, unit: "ms" },
        Figure { what: "cublasGemmStridedBatchedEx + synchronize (wall clock)".into(), value: peer_ms, unit: "ms" },
    ]);
    Ok(figures)
}

/// The fp8 TN GEMM (e4m3 A row-major and B column-major, per-tensor scales 0.5 and 3, bf16 D)
/// through the Hopper entry against cuBLASLt's, interleaved on the same buffers, after checking
/// both against the f64 reference at 256 sampled elements.
fn fp8_vs_cublaslt(gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<Vec<Figure>, String> {
    let lt = CublasLt::new(gpu)?;
    let (scale_a, scale_b) = (0.5f32, 3.0f32);
    let g = Gemm::new(m, n, k).b_major(Major::Col).alpha(scale_a * scale_b);
    let p = HopperGemm::new(g, HopperIn::Fp8 { a_e5m2: false, b_e5m2: false }, HopperOut::Bf16);
    let seed = fresh_seed();
    let (a, b) = (random_e4m3(seed, m * k), random_e4m3(seed ^ 0xb, n * k));
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let (gsa, gsb) = (gpu.upload(&[scale_a]).map_err(fail("upload"))?, gpu.upload(&[scale_b]).map_err(fail("upload"))?);
    let d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
    // The maps read bytes: the e4m3 bits as u8, the buffers cuBLASLt reads too.
    let maps = p.maps(gpu, &ga, &gb, &d).map_err(fail("tensor maps"))?;
    // SAFETY (both): as in `batched_vs_cublas`.
    let ours = || unsafe { p.launch_with(gpu, None, &maps, (None, None), &d) };
    let peer = || unsafe { lt.gemm_tn_e4m3((m, n, k), &ga, &gb, (&gsa, &gsb), &d) };
    let decode = |v: &[u8], row: usize| v[row * k..(row + 1) * k].iter().map(|&c| E4M3(c).to_f32() as f64).collect::<Vec<f64>>();
    let at: Vec<(usize, usize)> = super::random_u32(seed, 512).chunks(2).map(|q| (q[0] as usize % m, q[1] as usize % n)).collect();
    for (who, run) in [("ours", &ours as &dyn Fn() -> cute_rs_host::Result<()>), ("cublasLt", &peer)] {
        run().map_err(fail("launch"))?;
        let got = values(gpu, &d)?;
        for &(i, j) in &at {
            let (ra, rb) = (decode(&a, i), decode(&b, j));
            let sum: f64 = ra.iter().zip(&rb).map(|(x, y)| x * y).sum::<f64>() * (scale_a * scale_b) as f64;
            let mag: f64 = ra.iter().zip(&rb).map(|(x, y)| (x * y).abs()).sum::<f64>() * (scale_a * scale_b) as f64;
            let g = got[i * n + j] as f64;
            if (g - sum).abs() > mag * 2f64.powi(-9) + sum.abs() * 2f64.powi(-8) {
                return Err(format!("{who} fp8 {m}x{n}x{k}: D[{i}][{j}] = {g}, expected {sum} (seed {seed})"));
            }
        }
    }
    let batch = peer_batch((m, n, k)).max(2);
    let t = time_interleaved(gpu, (3, PEER_ROUNDS, batch), ours, peer)?;
    let peer = ("cublasLtMatmul e4m3 TN, scaled, bf16 out", "cuBLASLt");
    let mut figures = versus(&format!("{} {m}x{n}x{k}", p.kernel_name()), peer, 2.0 * (m * n * k) as f64, &t, batch);
    figures.push(kernel_time(&t));
    Ok(figures)
}

/// Kernel time of 4096 x 4096 products (512 tiles of 128 x 256: 4 per SM on the busiest) as K
/// doubles from 2048 to 16384, for bf16 inputs (plain, and with a per-column bias and GELU),
/// e4m3 into bf16 (clusters of 2; alpha 1 and 1.5, the per-tensor scales' product) and e4m3 into
/// f16 (no cluster): the time's slope is the main loop's rate, its intercept the cost of a
/// tile's start and end (the epilogue), which a longer K does not change.
fn per_tile_cost(gpu: &Gpu) -> Result<Vec<Figure>, String> {
    let (m, n) = (4096, 4096);
    let seed = fresh_seed();
    let d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
    let bias = gpu.upload(&random_f32(seed ^ 0xd, n)).map_err(fail("upload"))?;
    let mut figures = Vec::new();
    for k in [2048, 4096, 8192, 16384] {
        let bf16 = HopperGemm::new(Gemm::new(m, n, k).b_major(Major::Col), HopperIn::Bf16, HopperOut::Bf16);
        let fp8 = |out| HopperGemm::new(Gemm::new(m, n, k).b_major(Major::Col), HopperIn::Fp8 { a_e5m2: false, b_e5m2: false }, out);
        let mut time = |p: HopperGemm, maps: cute_rs_host::Result<_>| -> Result<(), String> {
            let maps = maps.map_err(fail("tensor maps"))?;
            let bias = (p.g.bias != BiasKind::None).then_some(&bias);
            // SAFETY: the maps and buffers hold the problem's operands until the loop's end.
            let ms = time_median(gpu, 3, 20, || unsafe { p.launch_with(gpu, None, &maps, (None, bias), &d) })?;
            let g = &p.g;
            let what = format!("{m}x{n}x{k}, {}, alpha {}, bias {:?}, {:?}", p.kernel_name(), g.alpha, g.bias, g.activation);
            figures.push(Figure { what, value: ms as f64 * 1e3, unit: "us" });
            Ok(())
        };
        let (a, b) = (random_half(seed, m * k, Half::Bf16), random_half(seed ^ 0xb, n * k, Half::Bf16));
        let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
        let fused = HopperGemm { g: bf16.g.bias(BiasKind::PerColumn).activation(Activation::Gelu), ..bf16 };
        for p in [bf16, fused] {
            time(p, p.maps(gpu, &ga, &gb, &d))?;
        }
        let (ga, gb) = (gpu.upload(&random_e4m3(seed, m * k)).map_err(fail("upload"))?, gpu.upload(&random_e4m3(seed ^ 0xb, n * k)).map_err(fail("upload"))?);
        let scaled = HopperGemm { g: fp8(HopperOut::Bf16).g.alpha(1.5), ..fp8(HopperOut::Bf16) };
        for p in [fp8(HopperOut::Bf16), fp8(HopperOut::F16), scaled] {
            time(p, p.maps(gpu, &ga, &gb, &d))?;
        }
    }
    Ok(figures)
}

/// The TN API entry (bf16 in and out) with 1, 2, 3, 4, 6, 8 and 16 K splits and the library's choice,
/// then with B's rows padded: kernel time of each (tensor maps made once), to see where split-K
/// pays and whether B's power-of-two row pitch limits the bandwidth.
fn split_sweep(gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<Vec<Figure>, String> {
    let seed = fresh_seed();
    let (a, b) = (random_half(seed, m * k, Half::Bf16), random_half(seed ^ 0xb, n * k, Half::Bf16));
    let (ga, gb) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let d = gpu.alloc::<u16>(m * n).map_err(fail("alloc"))?;
    let base = api_tn::<u16>((m, n, k));
    let auto = base.auto_splits(gpu.properties().multiprocessors as usize);
    let mut figures = Vec::new();
    for splits in [1, 2, 3, 4, 6, 8, 16] {
        let p = base.split(splits);
        let maps = p.maps(gpu, &ga, &gb, &d).map_err(fail("tensor maps"))?;
        // SAFETY: the maps and buffers hold the problem's operands until the function's end.
        let ms = time_median(gpu, 3, 20, || unsafe { p.launch_with(gpu, None, &maps, (None, None), &d) })?;
        let mark = if splits == auto { " (the library's choice)" } else { "" };
        let entry = p.kernel_name();
        figures.push(Figure { what: format!("{m}x{n}x{k}, {splits} K split(s){mark}, {entry}"), value: ms as f64 * 1e3, unit: "us" });
    }
    // Stream-K: the k-tiles shared evenly among the SMs.
    let p = base.stream_k();
    let maps = p.maps(gpu, &ga, &gb, &d).map_err(fail("tensor maps"))?;
    // SAFETY: as above.
    let ms = time_median(gpu, 3, 20, || unsafe { p.launch_with(gpu, None, &maps, (None, None), &d) })?;
    let s = StreamK::new(p.tiles() as u32, p.k_tiles(), gpu.properties().multiprocessors);
    let what = format!("{m}x{n}x{k}, stream-K ({} tiles shared by {} blocks), {}", s.sk_tiles, s.sk_blocks, p.kernel_name());
    figures.push(Figure { what, value: ms as f64 * 1e3, unit: "us" });
    // The same with B's rows 64 elements further apart than K (a row pitch that is not a power of
    // two): whether the K-major boxes' stride limits the bandwidth.
    let ldb = k + 64;
    let gb = gpu.upload(&random_half(seed ^ 0xc, n * ldb, Half::Bf16)).map_err(fail("upload"))?;
    let padded = HopperGemm { g: Gemm { ldb: Some(ldb), ..base.g }, ..base };
    for splits in [1, auto.max(2)] {
        let p = padded.split(splits);
        let maps = p.maps(gpu, &ga, &gb, &d).map_err(fail("tensor maps"))?;
        // SAFETY: as above (B holds N rows of `ldb`).
        let ms = time_median(gpu, 3, 20, || unsafe { p.launch_with(gpu, None, &maps, (None, None), &d) })?;
        figures.push(Figure { what: format!("{m}x{n}x{k}, {splits} K split(s), B's row pitch {ldb}"), value: ms as f64 * 1e3, unit: "us" });
    }
    Ok(figures)
}