//! GPU checks and benchmarks of the f32 GEMM ([`Gemm::run_f32`], FFMA, and [`Gemm::run_tf32`],
//! tf32 tensor cores; kernels in `kernels/src/sgemm.rs`).
//!
//! Each check runs one A/B storage combination over ragged sizes on fresh random f32 data in
//! `[-1, 1)`, with random `alpha`, `beta` and C, D poisoned with NaN first (an element the kernel
//! does not write shows as NaN). The reference is computed in f64; for tf32 from the inputs rounded
//! to tf32 as the kernel rounds them ([`f32_to_tf32`]), so that what is left is the f32
//! summation. An element passes when `|got - want| <= tol * scale`, `scale` being
//! `|alpha| sum_k |a b| + |beta c|` (the size of what was summed: see `mma::compare_product`):
//! `tol = 1e-5` for FFMA (f32 rounding of K terms is far below it for these K) and `1e-4` for tf32
//! (the tensor cores' f32 sums round less tightly than FFMA's).
//!
//! On the CPU backend (one GPU thread at a time) the sizes stay small (one block for tf32, whose
//! `mma.sync` model is slow there); a GPU adds two near 500^3
//! per combination, and `sgemm/large` 4095 x 4097 x 1000 (GPU only).

use cute_rs_host::{DeviceBuffer, Gpu, Module};
use cute_rs_tensor::device::numeric::f32_to_tf32;

use super::gemm::host_err;
use super::{fail, fresh_seed, random_f32, random_u32, Bench, Check, Figure};
use cute_rs_ops::gemm::{Gemm, GemmError, Major};
use cute_rs_ops::gemm_f32::F32Math;

pub fn checks() -> Vec<Check> {
    use F32Math::{Ffma, Tf32};
    use Major::{Col, Row};
    vec![
        Check { name: "sgemm/f32 A row-major, B row-major", run: |g, _| check_majors(g, Ffma, Row, Row) },
        Check { name: "sgemm/f32 A row-major, B column-major", run: |g, _| check_majors(g, Ffma, Row, Col) },
        Check { name: "sgemm/f32 A column-major, B row-major", run: |g, _| check_majors(g, Ffma, Col, Row) },
        Check { name: "sgemm/f32 A column-major, B column-major", run: |g, _| check_majors(g, Ffma, Col, Col) },
        Check { name: "sgemm/tf32 A row-major, B row-major", run: |g, _| check_majors(g, Tf32, Row, Row) },
        Check { name: "sgemm/tf32 A row-major, B column-major", run: |g, _| check_majors(g, Tf32, Row, Col) },
        Check { name: "sgemm/tf32 A column-major, B row-major", run: |g, _| check_majors(g, Tf32, Col, Row) },
        Check { name: "sgemm/tf32 A column-major, B column-major", run: |g, _| check_majors(g, Tf32, Col, Col) },
        Check { name: "sgemm/large f32 4095 x 4097 x 1000", run: |g, _| check_large(g, Ffma) },
        Check { name: "sgemm/large tf32 4095 x 4097 x 1000", run: |g, _| check_large(g, Tf32) },
        Check { name: "sgemm/shape errors", run: check_errors },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![
        Bench { name: "sgemm/f32 4096^3 (ffma)", run: |g, _| bench_4096(g, F32Math::Ffma) },
        Bench { name: "sgemm/tf32 4096^3", run: |g, _| bench_4096(g, F32Math::Tf32) },
    ]
}

/// The relative tolerance of `math` (see the module docs).
fn tolerance(math: F32Math) -> f64 {
    match math {
        F32Math::Ffma => 1e-5,
        F32Math::Tf32 => 1e-4,
    }
}

/// A problem's inputs on the host and on the device.
struct Inputs {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    da: DeviceBuffer<f32>,
    db: DeviceBuffer<f32>,
    dc: DeviceBuffer<f32>,
}

fn inputs(gpu: &Gpu, g: &Gemm, seed: u64) -> Result<Inputs, String> {
    let (a, b) = (random_f32(seed, g.m * g.k), random_f32(seed ^ 0x5555, g.k * g.n));
    let c = random_f32(seed ^ 0xaaaa, g.m * g.n);
    let da = gpu.upload(&a).map_err(fail("upload A"))?;
    let db = gpu.upload(&b).map_err(fail("upload B"))?;
    let dc = gpu.upload(&c).map_err(fail("upload C"))?;
    Ok(Inputs { a, b, c, da, db, dc })
}

/// A (`M x K`) and B (`N x K`, i.e. B transposed) in f64 with K contiguous, as `math` sees the
/// inputs (rounded to tf32 for [`F32Math::Tf32`]).
fn operands_f64(g: &Gemm, x: &Inputs, math: F32Math) -> (Vec<f64>, Vec<f64>) {
    let (m, n, k) = (g.m, g.n, g.k);
    let (lda, ldb) = g.lds();
    let seen = |v: f32| if math == F32Math::Tf32 { f32_to_tf32(v) as f64 } else { v as f64 };
    let a = (0..m * k)
        .map(|e| {
            let (i, p) = (e / k, e % k);
            seen(x.a[if g.a_major == Major::Row { i * lda + p } else { p * lda + i }])
        })
        .collect();
    let b = (0..n * k)
        .map(|e| {
            let (j, p) = (e / k, e % k);
            seen(x.b[if g.b_major == Major::Row { p * ldb + j } else { j * ldb + p }])
        })
        .collect();
    (a, b)
}

/// `(want, scale)` of D's element `(i, j)` in f64 (see the module docs).
fn reference(g: &Gemm, x: &Inputs, ab: &(Vec<f64>, Vec<f64>), i: usize, j: usize) -> (f64, f64) {
    let k = g.k;
    let (ra, rb) = (&ab.0[i * k..(i + 1) * k], &ab.1[j * k..(j + 1) * k]);
    let (mut sum, mut abs) = (0f64, 0f64);
    for (u, v) in ra.iter().zip(rb) {
        sum += u * v;
        abs += (u * v).abs();
    }
    let c = if g.beta != 0.0 { x.c[i * g.n + j] as f64 } else { 0.0 };
    let (alpha, beta) = (g.alpha as f64, g.beta as f64);
    (alpha * sum + beta * c, alpha.abs() * abs + (beta * c).abs())
}

/// Compares `got` (D, row-major) with the reference at the elements `at` (all of them, the rows
/// split over the host's cores, when `None`), naming the first failing one.
fn compare(g: &Gemm, x: &Inputs, math: F32Math, got: &[f32], at: Option<&[(usize, usize)]>, what: &str) -> Result<(), String> {
    let ab = operands_f64(g, x, math);
    let tol = tolerance(math);
    let check = |i: usize, j: usize| {
        let (want, scale) = reference(g, x, &ab, i, j);
        let v = got[i * g.n + j] as f64;
        let err = (v - want).abs();
        // NaN (an element not written) fails too.
        if err.is_nan() || err > tol * scale {
            return Err(format!(
                "{what}: D[{i}][{j}] = {v}, expected {want} (error {err:.3e} over {tol:e} x {scale:.3e}; NaN = not written)"
            ));
        }
        Ok(())
    };
    if let Some(at) = at {
        return at.iter().try_for_each(|&(i, j)| check(i, j));
    }
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let rows_per = g.m.div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..g.m)
            .step_by(rows_per)
            .map(|r0| scope.spawn(move || (r0..(r0 + rows_per).min(g.m)).try_for_each(|i| (0..g.n).try_for_each(|j| check(i, j)))))
            .collect();
        workers.into_iter().try_for_each(|w| w.join().unwrap_or_else(|_| Err(format!("{what}: the reference panicked"))))
    })
}

/// Runs `g` with `math` on fresh inputs into a poisoned D, and checks every element.
fn run_and_check(gpu: &Gpu, g: &Gemm, math: F32Math) -> Result<(), String> {
    let seed = fresh_seed();
    let x = inputs(gpu, g, seed)?;
    let mut d = gpu.alloc::<f32>(g.m * g.n).map_err(fail("alloc D"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    let c = (g.beta != 0.0).then_some(&x.dc);
    g.run_f32_math(math, gpu, &x.da, &x.db, c, &mut d).map_err(|e| e.to_string())?;
    let got = gpu.download(&d).map_err(fail("download D"))?;
    let (lda, ldb) = g.lds();
    let what = format!(
        "{} x {} x {}, alpha {}, beta {}, kernel {} (seed {seed})",
        g.m,
        g.n,
        g.k,
        g.alpha,
        g.beta,
        g.f32_kernel_name(math, lda % 4 == 0 && ldb % 4 == 0)
    );
    compare(g, &x, math, &got, None, &what)
}

fn check_majors(gpu: &Gpu, math: F32Math, a: Major, b: Major) -> Result<(), String> {
    // 1x1x1 (beta 0, no C); ragged everywhere with odd leading dimensions (element-wise loads);
    // ragged M and N, K a few k-steps and a bit, leading dimensions multiples of 4 (128-bit loads,
    // partial tiles); K over 12 k-steps (the buffers go round); K = 0 (D = beta C). The CPU
    // backend's model of `mma.sync` is slow: one block of each kind for tf32 there, K = 72 going
    // round the 4-stage ring once.
    let mut sizes = match (math, gpu.is_cpu()) {
        (F32Math::Tf32, true) => vec![(1, 1, 1), (17, 9, 72), (20, 12, 36), (17, 24, 0)],
        _ => vec![(1, 1, 1), (127, 129, 65), (128, 132, 36), (33, 40, 100), (17, 24, 0)],
    };
    if !gpu.is_cpu() {
        sizes.extend([(515, 520, 300), (333, 257, 777)]);
    }
    let r = random_u32(fresh_seed(), 2);
    for (m, n, k) in sizes {
        // alpha in [0.5, 1.5), beta in [-1, 1) and never 0 (C is read), but 0 for 1x1x1.
        let alpha = 0.5 + (r[0] % 1000) as f32 / 1000.0;
        let beta = if m == 1 { 0.0 } else { -1.0 + (r[1] % 1000) as f32 / 500.0 + 1e-3 };
        let g = Gemm::new(m, n, k).a_major(a).b_major(b).alpha(alpha).beta(beta);
        run_and_check(gpu, &g, math)?;
    }
    Ok(())
}

/// 4095 x 4097 x 1000 (every tile edge partial): FFMA with A row-, B column-major (128-bit loads),
/// tf32 with A column-, B row-major (element-wise loads: M and N odd).
fn check_large(gpu: &Gpu, math: F32Math) -> Result<(), String> {
    let g = match math {
        F32Math::Ffma => Gemm::new(4095, 4097, 1000).b_major(Major::Col),
        F32Math::Tf32 => Gemm::new(4095, 4097, 1000).a_major(Major::Col),
    };
    run_and_check(gpu, &g.alpha(0.75).beta(0.5), math)
}

/// Mismatched buffers are refused with the operand and shape named, before any launch.
fn check_errors(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let a = gpu.alloc::<f32>(6).map_err(fail("alloc"))?;
    let b = gpu.alloc::<f32>(12).map_err(fail("alloc"))?;
    let c = gpu.alloc::<f32>(7).map_err(fail("alloc"))?;
    let mut d = gpu.alloc::<f32>(8).map_err(fail("alloc"))?;
    let expect = |r: Result<(), GemmError>, want: &str| match r {
        Err(e) if e.to_string() == want => Ok(()),
        other => Err(format!("expected the error `{want}`, got {other:?}")),
    };
    let g = Gemm::new(2, 4, 3);
    expect(g.run_f32(gpu, &b, &b, None, &mut d), "gemm: A is M x K = 2 x 3, 6 elements, but its buffer has 12")?;
    expect(g.run_tf32(gpu, &a, &a, None, &mut d), "gemm: B is K x N = 3 x 4, 12 elements, but its buffer has 6")?;
    expect(
        g.beta(2.0).run_f32(gpu, &a, &b, Some(&c), &mut d),
        "gemm: C is M x N = 2 x 4, 8 elements, but its buffer has 7",
    )?;
    expect(g.beta(2.0).run_tf32(gpu, &a, &b, None, &mut d), "gemm: beta = 2 but no C was given")?;
    let mut d_small = gpu.alloc::<f32>(4).map_err(fail("alloc"))?;
    expect(g.run_f32(gpu, &a, &b, None, &mut d_small), "gemm: D is M x N = 2 x 4, 8 elements, but its buffer has 4")
}

/// 4096^3 with `math`, A and B row-major (what `torch.matmul` of two contiguous f32 matrices
/// computes), 64 sampled elements checked against f64 first; for FFMA also A column-major (no
/// transposing stores). The peers (cuBLAS through `torch.matmul`, TF32 off and on) are measured by
/// `bench/peers/torch_triton_peers.py` in the same run.
fn bench_4096(gpu: &Gpu, math: F32Math) -> Result<Vec<Figure>, String> {
    let n = 4096;
    let g = Gemm::new(n, n, n);
    let seed = fresh_seed();
    let x = inputs(gpu, &g, seed)?;
    let mut d = gpu.alloc::<f32>(n * n).map_err(fail("alloc D"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    g.run_f32_math(math, gpu, &x.da, &x.db, None, &mut d).map_err(|e| e.to_string())?;
    let got = gpu.download(&d).map_err(fail("download D"))?;
    let r = random_u32(seed, 128);
    let at: Vec<(usize, usize)> = r.chunks(2).map(|p| (p[0] as usize % n, p[1] as usize % n)).collect();
    compare(&g, &x, math, &got, Some(&at), "4096^3 (sampled)")?;
    let time = |g: Gemm, d: &mut DeviceBuffer<f32>| {
        super::time_median(gpu, 3, 20, || g.run_f32_math(math, gpu, &x.da, &x.db, None, d).map_err(host_err))
    };
    let ms = time(g, &mut d)?;
    let tflops = |ms: f32| g.flops() / (ms as f64 * 1e-3) / 1e12;
    let name = if math == F32Math::Ffma { "FFMA" } else { "tf32 mma.sync" };
    let mut figures = vec![Figure { what: format!("{name}, A, B row-major"), value: tflops(ms), unit: "TFLOP/s" }];
    if math == F32Math::Ffma {
        let ms_cr = time(g.a_major(Major::Col), &mut d)?;
        figures.push(Figure { what: format!("{name}, A column-, B row-major"), value: tflops(ms_cr), unit: "TFLOP/s" });
    }
    figures.push(Figure { what: "time (A, B row-major)".into(), value: ms as f64, unit: "ms" });
    Ok(figures)
}
