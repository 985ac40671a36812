//! GPU checks and benchmarks of the Hopper GEMM path (`kernels/src/gemm_sm90.rs`, in the sm_90a
//! module; GPU-only: wgmma has no CPU implementation).
//!
//! Each check multiplies fresh random bf16 matrices (`A` M x K, `B` N x K, both row-major, i.e.
//! K-major) into a poisoned f32 output and compares with an f64 reference within `2^-16` of the
//! sum of the absolute products; ragged sizes exercise TMA's zero fill and the predicated epilogue.

use host::{DeviceBuffer, Gpu, LaunchConfig, Module, TmaOobFill, TmaSwizzle};
use kernels::gemm_sm90_sizes::{GemmSm90Shape, GEMM_SM90_128X128, GEMM_SM90_128X256, GEMM_SM90_BK, GEMM_SM90_WS_128X256};
use layout::Layout;
use layout_tensor::device::mma::bf16_to_f32;

use super::mma::{compare_product, random_half, reference, Half};
use super::{fail, fresh_seed, random_f32, time_median, Bench, Check, Figure};

/// The two kernels and their tile shapes.
const KERNELS: [(&str, GemmSm90Shape); 3] = [
    ("gemm_sm90_bf16_tn", GEMM_SM90_128X128),
    ("gemm_sm90_bf16_tn_128x256", GEMM_SM90_128X256),
    ("gemm_sm90_bf16_tn_ws", GEMM_SM90_WS_128X256),
];

macro_rules! both_kernels {
    ($($name:literal => $m:expr, $n:expr, $k:expr, $alpha:expr, $beta:expr;)*) => {
        vec![$(
            Check { name: concat!("gemm_sm90/128x128 bf16 ", $name), run: |g, _| check(g, KERNELS[0], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/128x256 bf16 ", $name), run: |g, _| check(g, KERNELS[1], $m, $n, $k, $alpha, $beta) },
            Check { name: concat!("gemm_sm90/ws 128x256 bf16 ", $name), run: |g, _| check(g, KERNELS[2], $m, $n, $k, $alpha, $beta) },
        )*]
    };
}

pub fn checks() -> Vec<Check> {
    both_kernels! {
        "128x128x64" => 128, 128, 64, 1.0, 0.0;
        "256x512x512 (ring wraps)" => 256, 512, 512, 1.0, 0.0;
        "200x136x72 (partial tiles)" => 200, 136, 72, 1.0, 0.0;
        "256x256x128 alpha 1.5 beta -0.5" => 256, 256, 128, 1.5, -0.5;
        "1000x1000x1000" => 1000, 1000, 1000, 1.0, 0.0;
    }
}

pub fn benches() -> Vec<Bench> {
    vec![
        Bench { name: "gemm_sm90/128x128 bf16 4096^3", run: |g, _| bench(g, KERNELS[0], 4096, 4096, 4096) },
        Bench { name: "gemm_sm90/128x256 bf16 4096^3", run: |g, _| bench(g, KERNELS[1], 4096, 4096, 4096) },
        Bench { name: "gemm_sm90/128x128 bf16 8192^3", run: |g, _| bench(g, KERNELS[0], 8192, 8192, 8192) },
        Bench { name: "gemm_sm90/128x256 bf16 8192^3", run: |g, _| bench(g, KERNELS[1], 8192, 8192, 8192) },
        Bench { name: "gemm_sm90/ws 128x256 bf16 4096^3", run: |g, _| bench(g, KERNELS[2], 4096, 4096, 4096) },
        Bench { name: "gemm_sm90/ws 128x256 bf16 8192^3", run: |g, _| bench(g, KERNELS[2], 8192, 8192, 8192) },
    ]
}

/// The operands on the GPU with their tensor maps (boxes of 64 K x the tile's rows, 128-byte
/// swizzle). The buffers are only held: the maps point into them.
struct Operands {
    _a: DeviceBuffer<u16>,
    _b: DeviceBuffer<u16>,
    a_map: DeviceBuffer<u8>,
    b_map: DeviceBuffer<u8>,
}

fn operands(gpu: &Gpu, shape: GemmSm90Shape, a: &[u16], b: &[u16], m: usize, n: usize, k: usize) -> Result<Operands, String> {
    let a = gpu.upload(a).map_err(fail("upload"))?;
    let b = gpu.upload(b).map_err(fail("upload"))?;
    let map = |buf: &DeviceBuffer<u16>, rows: usize, box_rows: u32| -> Result<DeviceBuffer<u8>, String> {
        let global = Layout::parse(&format!("({k},{rows}):(1,{k})")).map_err(fail("layout"))?;
        let tm = gpu
            .tensor_map(buf, global, &[GEMM_SM90_BK, box_rows], TmaSwizzle::B128, TmaOobFill::Zero)
            .map_err(fail("tensor map"))?;
        gpu.upload_tensor_map(&tm).map_err(fail("upload tensor map"))
    };
    let a_map = map(&a, m, shape.bm)?;
    let b_map = map(&b, n, shape.bn)?;
    Ok(Operands { _a: a, _b: b, a_map, b_map })
}

#[allow(clippy::too_many_arguments)]
fn launch(
    gpu: &Gpu,
    module: &Module,
    (name, shape): (&str, GemmSm90Shape),
    ops: &Operands,
    c: &DeviceBuffer<f32>,
    d: &DeviceBuffer<f32>,
    (m, n, k): (u32, u32, u32),
    alpha: f32,
    beta: f32,
) -> host::Result<()> {
    let kernel = module.kernel(name)?;
    let cfg = LaunchConfig {
        grid: (n.div_ceil(shape.bn), m.div_ceil(shape.bm), 1),
        block: (shape.threads(), 1, 1),
        shared_mem_bytes: shape.smem_bytes(),
    };
    unsafe {
        gpu.launch(&kernel, cfg)
            .arg(&ops.a_map)
            .arg(&ops.b_map)
            .arg(c)
            .arg(d)
            .arg(&m)
            .arg(&n)
            .arg(&k)
            .arg(&alpha)
            .arg(&beta)
            .run()
    }
}

fn check(gpu: &Gpu, kernel: (&str, GemmSm90Shape), m: usize, n: usize, k: usize, alpha: f32, beta: f32) -> Result<(), String> {
    let module = gpu.load_module(crate::KERNELS_SM90A_PTX).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let a = random_half(seed, m * k, Half::Bf16);
    let b = random_half(seed ^ 0xb, n * k, Half::Bf16);
    let c = random_f32(seed ^ 0xc, m * n);
    let ops = operands(gpu, kernel.1, &a, &b, m, n, k)?;
    let gc = gpu.upload(&c).map_err(fail("upload"))?;
    let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    launch(gpu, &module, kernel, &ops, &gc, &d, (m as u32, n as u32, k as u32), alpha, beta).map_err(fail("launch"))?;
    let got = gpu.download(&d).map_err(fail("download"))?;
    let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
    let (mut want, mut scale) = reference(&f(&a), &f(&b), None, m, n, k);
    for i in 0..m * n {
        want[i] = alpha as f64 * want[i] + beta as f64 * c[i] as f64;
        scale[i] = (alpha as f64).abs() * scale[i] + (beta as f64 * c[i] as f64).abs();
    }
    compare_product(&format!("{} {m}x{n}x{k} alpha {alpha} beta {beta} (seed {seed})", kernel.0), &got, &want, &scale, n)
}

fn bench(gpu: &Gpu, kernel: (&str, GemmSm90Shape), m: usize, n: usize, k: usize) -> Result<Vec<Figure>, String> {
    let module = gpu.load_module(crate::KERNELS_SM90A_PTX).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let ops = operands(gpu, kernel.1, &random_half(seed, m * k, Half::Bf16), &random_half(seed ^ 0xb, n * k, Half::Bf16), m, n, k)?;
    let d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    let dims = (m as u32, n as u32, k as u32);
    let ms = time_median(gpu, 3, 20, || launch(gpu, &module, kernel, &ops, &d, &d, dims, 1.0, 0.0))?;
    Ok(vec![Figure {
        what: format!(
            "{} {m}x{n}x{k} ({}x{}x64 tiles, {}-stage TMA ring, {} warpgroup(s))",
            kernel.0, kernel.1.bm, kernel.1.bn, kernel.1.stages, kernel.1.warpgroups
        ),
        value: 2.0 * m as f64 * n as f64 * k as f64 / (ms as f64 * 1e-3) / 1e12,
        unit: "TFLOP/s",
    }])
}
