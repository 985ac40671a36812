//! GPU checks and benchmarks of the Hopper GEMM path (`kernels/src/gemm_sm90.rs`, in the sm_90a
//! module; GPU-only: wgmma has no CPU implementation).
//!
//! Each check multiplies fresh random bf16 matrices (`A` M x K, `B` N x K, both row-major, i.e.
//! K-major) into a poisoned f32 output and compares with an f64 reference within `2^-16` of the
//! sum of the absolute products; ragged sizes exercise TMA's zero fill and the predicated epilogue.

use host::{DeviceBuffer, Gpu, LaunchConfig, Module, TmaOobFill, TmaSwizzle};
use kernels::gemm_sm90_sizes::{GEMM_SM90_BK, GEMM_SM90_BM, GEMM_SM90_BN, GEMM_SM90_SMEM_BYTES};
use layout::Layout;
use layout_tensor::device::mma::bf16_to_f32;

use super::mma::{compare_product, random_half, reference, Half};
use super::{fail, fresh_seed, random_f32, time_median, Bench, Check, Figure};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "gemm_sm90/bf16 128x128x64", run: |g, _| check(g, 128, 128, 64, 1.0, 0.0) },
        Check { name: "gemm_sm90/bf16 256x384x512 (ring wraps)", run: |g, _| check(g, 256, 384, 512, 1.0, 0.0) },
        Check { name: "gemm_sm90/bf16 200x136x72 (partial tiles)", run: |g, _| check(g, 200, 136, 72, 1.0, 0.0) },
        Check { name: "gemm_sm90/bf16 256x256x128 alpha 1.5 beta -0.5", run: |g, _| check(g, 256, 256, 128, 1.5, -0.5) },
        Check { name: "gemm_sm90/bf16 1000x1000x1000", run: |g, _| check(g, 1000, 1000, 1000, 1.0, 0.0) },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![
        Bench { name: "gemm_sm90/bf16 4096^3", run: |g, _| bench(g, 4096, 4096, 4096) },
        Bench { name: "gemm_sm90/bf16 8192^3", run: |g, _| bench(g, 8192, 8192, 8192) },
    ]
}

/// The operands on the GPU with their tensor maps (boxes of 64 K x 128 rows, 128-byte swizzle).
struct Operands {
    a: DeviceBuffer<u16>,
    b: DeviceBuffer<u16>,
    a_map: DeviceBuffer<u8>,
    b_map: DeviceBuffer<u8>,
}

fn operands(gpu: &Gpu, a: &[u16], b: &[u16], m: usize, n: usize, k: usize) -> Result<Operands, String> {
    let a = gpu.upload(a).map_err(fail("upload"))?;
    let b = gpu.upload(b).map_err(fail("upload"))?;
    let map = |buf: &DeviceBuffer<u16>, rows: usize, box_rows: u32| -> Result<DeviceBuffer<u8>, String> {
        let global = Layout::parse(&format!("({k},{rows}):(1,{k})")).map_err(fail("layout"))?;
        let tm = gpu
            .tensor_map(buf, global, &[GEMM_SM90_BK, box_rows], TmaSwizzle::B128, TmaOobFill::Zero)
            .map_err(fail("tensor map"))?;
        gpu.upload_tensor_map(&tm).map_err(fail("upload tensor map"))
    };
    let a_map = map(&a, m, GEMM_SM90_BM)?;
    let b_map = map(&b, n, GEMM_SM90_BN)?;
    Ok(Operands { a, b, a_map, b_map })
}

#[allow(clippy::too_many_arguments)]
fn launch(
    gpu: &Gpu,
    module: &Module,
    ops: &Operands,
    c: &DeviceBuffer<f32>,
    d: &DeviceBuffer<f32>,
    (m, n, k): (u32, u32, u32),
    alpha: f32,
    beta: f32,
) -> host::Result<()> {
    let kernel = module.kernel("gemm_sm90_bf16_tn")?;
    let cfg = LaunchConfig {
        grid: (n.div_ceil(GEMM_SM90_BN), m.div_ceil(GEMM_SM90_BM), 1),
        block: (128, 1, 1),
        shared_mem_bytes: GEMM_SM90_SMEM_BYTES,
    };
    let _ = (&ops.a, &ops.b);
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

fn check(gpu: &Gpu, m: usize, n: usize, k: usize, alpha: f32, beta: f32) -> Result<(), String> {
    let module = gpu.load_module(crate::KERNELS_SM90A_PTX).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let a = random_half(seed, m * k, Half::Bf16);
    let b = random_half(seed ^ 0xb, n * k, Half::Bf16);
    let c = random_f32(seed ^ 0xc, m * n);
    let ops = operands(gpu, &a, &b, m, n, k)?;
    let gc = gpu.upload(&c).map_err(fail("upload"))?;
    let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison"))?;
    launch(gpu, &module, &ops, &gc, &d, (m as u32, n as u32, k as u32), alpha, beta).map_err(fail("launch"))?;
    let got = gpu.download(&d).map_err(fail("download"))?;
    let f = |v: &[u16]| v.iter().map(|&x| bf16_to_f32(x)).collect::<Vec<f32>>();
    let (mut want, mut scale) = reference(&f(&a), &f(&b), None, m, n, k);
    for i in 0..m * n {
        want[i] = alpha as f64 * want[i] + beta as f64 * c[i] as f64;
        scale[i] = (alpha as f64).abs() * scale[i] + (beta as f64 * c[i] as f64).abs();
    }
    compare_product(&format!("gemm_sm90 {m}x{n}x{k} alpha {alpha} beta {beta} (seed {seed})"), &got, &want, &scale, n)
}

fn bench(gpu: &Gpu, m: usize, n: usize, k: usize) -> Result<Vec<Figure>, String> {
    let module = gpu.load_module(crate::KERNELS_SM90A_PTX).map_err(fail("loading the sm_90a module"))?;
    let seed = fresh_seed();
    let ops = operands(gpu, &random_half(seed, m * k, Half::Bf16), &random_half(seed ^ 0xb, n * k, Half::Bf16), m, n, k)?;
    let d = gpu.alloc::<f32>(m * n).map_err(fail("alloc"))?;
    let dims = (m as u32, n as u32, k as u32);
    let ms = time_median(gpu, 3, 20, || launch(gpu, &module, &ops, &d, &d, dims, 1.0, 0.0))?;
    Ok(vec![Figure {
        what: format!("gemm_sm90_bf16_tn {m}x{n}x{k} (128x128x64 tiles, 4-stage TMA ring, 1 warpgroup)"),
        value: 2.0 * m as f64 * n as f64 * k as f64 / (ms as f64 * 1e-3) / 1e12,
        unit: "TFLOP/s",
    }])
}
