//! GPU checks and benchmark of the GEMM ([`cute_rs_ops::gemm`], kernels in `kernels/src/gemm.rs`).
//!
//! Each check runs A/B storage combinations over a list of ragged sizes, on fresh random bf16 or
//! f16 data in `[-1, 1)`, with random `alpha`, `beta` and C, D poisoned with NaN first (an element
//! the kernel does not write shows as NaN). The reference is computed in f64 from the same 16-bit
//! values. An element passes when `|got - want| <= 1e-2 * max(|want|, 1e-2 * scale)`, `scale`
//! being `|alpha| sum_k |a b| + |beta c|`: a relative error under 1e-2, except where the sum
//! cancels to almost nothing (there the f32 rounding of the terms, about `2^-24 scale`, is what is
//! left). The products of bf16 or f16 values are exact in f32, so real errors are far below the
//! bound (a 16-bit D adds its rounding: 2^-9 for bf16, 2^-11 for f16); a wrong index, a missed
//! tile or a wrong `mma` type is not.
//!
//! On the CPU backend (one GPU thread at a time) the sizes stay small; the GPU adds
//! 1000 x 1000 x 1000 (16-byte staging), 999 x 1001 x 1003 (element-wise staging) and, for f16,
//! 4095 x 4097 x 1000.

use cute_rs_host::{DeviceBuffer, Gpu, Module};
use cute_rs_tensor::device::numeric::{f32_to_bf16, E4M3, E5M2};
use cute_rs_tensor::half::{bf16, f16};

use super::{fail, fresh_seed, random_f32, random_u32, Bench, Check, Figure};
use cute_rs_ops::gemm::{Gemm, GemmInput, GemmOutput, Major};

pub fn checks() -> Vec<Check> {
    use Major::{Col, Row};
    vec![
        Check { name: "gemm/bf16 A row-major, B row-major", run: |g, _| check_majors(g, Row, Row) },
        Check { name: "gemm/bf16 A row-major, B column-major", run: |g, _| check_majors(g, Row, Col) },
        Check { name: "gemm/bf16 A column-major, B row-major", run: |g, _| check_majors(g, Col, Row) },
        Check { name: "gemm/bf16 A column-major, B column-major", run: |g, _| check_majors(g, Col, Col) },
        Check { name: "gemm/bf16 output bf16, beta 0 (no C)", run: check_bf16_output },
        Check { name: "gemm/f16 output f32, every A/B order", run: check_f16::<f32> },
        Check { name: "gemm/f16 output bf16, every A/B order", run: check_f16::<bf16> },
        Check { name: "gemm/f16 output f16, every A/B order", run: check_f16::<f16> },
        Check { name: "gemm/bf16 output f16, every A/B order", run: check_bf16_to_f16 },
        Check { name: "gemm/f16 on a non-default stream (run_on)", run: check_stream },
        Check { name: "gemm/f16 4095 x 4097 x 1000, output f16, every A/B order", run: check_f16_large },
        Check { name: "gemm/shape errors", run: check_errors },
        Check { name: "gemm/leading dimensions (sub-matrix views of A and B, every storage order, run and run_auto)", run: check_leading_dims },
        Check { name: "gemm/atom-layer kernels equal their hand-written twins bit for bit", run: check_twins },
        Check { name: "gemm/hopper run_auto and run_sm90 (TMA + wgmma, every storage order, f16 on a stream, captured in a CUDA graph)", run: check_sm90 },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![
        Bench { name: "gemm/bf16 4096^3 (mma.sync)", run: |g, _| bench_mma_sync::<bf16>(g, 4096, 4096, 4096) },
        Bench { name: "gemm/f16 4096^3 (mma.sync)", run: |g, _| bench_mma_sync::<f16>(g, 4096, 4096, 4096) },
        // Model shapes: a projection of 8192 tokens with K = 1024, and an MLP up-projection
        // (4096 tokens, hidden 4096 -> 14336).
        Bench {
            name: "gemm/bf16 8192x8192x1024 (mma.sync)",
            run: |g, _| bench_mma_sync::<bf16>(g, 8192, 8192, 1024),
        },
        Bench {
            name: "gemm/bf16 4096x14336x4096 (mma.sync)",
            run: |g, _| bench_mma_sync::<bf16>(g, 4096, 14336, 4096),
        },
        Bench { name: "gemm/bf16 4096^3 atom layer vs hand-written twin (interleaved)", run: |g, _| bench_twins(g, 4096) },
    ]
}

/// An input element type of the checks: [`GemmInput`] plus rounding a random `f32` to it.
pub(super) trait Input: GemmInput {
    fn from_f32(x: f32) -> Self;
}
impl Input for bf16 {
    fn from_f32(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
}
impl Input for f16 {
    fn from_f32(x: f32) -> f16 {
        f16::from_f32(x)
    }
}
impl Input for f32 {
    fn from_f32(x: f32) -> f32 {
        x
    }
}
impl Input for E4M3 {
    fn from_f32(x: f32) -> E4M3 {
        E4M3::from_f32(x)
    }
}
impl Input for E5M2 {
    fn from_f32(x: f32) -> E5M2 {
        E5M2::from_f32(x)
    }
}
/// bf16 bits, what [`Gemm::run_sm90`] takes.
impl Input for u16 {
    fn from_f32(x: f32) -> u16 {
        f32_to_bf16(x)
    }
}

/// A problem's inputs on the host and on the device.
struct Inputs<I: Input> {
    a: Vec<I>,
    b: Vec<I>,
    c: Vec<f32>,
    da: DeviceBuffer<I>,
    db: DeviceBuffer<I>,
    dc: DeviceBuffer<f32>,
}

fn random_input<I: Input>(seed: u64, n: usize) -> Vec<I> {
    random_f32(seed, n).into_iter().map(I::from_f32).collect()
}

fn inputs<I: Input>(gpu: &Gpu, g: &Gemm, seed: u64) -> Result<Inputs<I>, String> {
    let (a, b) = (random_input(seed, g.m * g.k), random_input(seed ^ 0x5555, g.k * g.n));
    let c = random_f32(seed ^ 0xaaaa, g.m * g.n);
    let da = gpu.upload(&a).map_err(fail("upload A"))?;
    let db = gpu.upload(&b).map_err(fail("upload B"))?;
    let dc = gpu.upload(&c).map_err(fail("upload C"))?;
    Ok(Inputs { a, b, c, da, db, dc })
}

/// `(want, scale)` for D's element `(i, j)`, in f64 (see the module docs), from the bf16 inputs
/// stored as the problem says; `c` when `beta != 0`.
fn reference<I: Input>(g: &Gemm, x: &Inputs<I>, i: usize, j: usize) -> (f64, f64) {
    let (lda, ldb) = g.lds();
    let (mut sum, mut abs) = (0f64, 0f64);
    for p in 0..g.k {
        let a = x.a[if g.a_major == Major::Row { i * lda + p } else { p * lda + i }];
        let b = x.b[if g.b_major == Major::Row { p * ldb + j } else { j * ldb + p }];
        let t = a.value() as f64 * b.value() as f64;
        sum += t;
        abs += t.abs();
    }
    let c = if g.beta != 0.0 { x.c[i * g.n + j] as f64 } else { 0.0 };
    let (alpha, beta) = (g.alpha as f64, g.beta as f64);
    (alpha * sum + beta * c, alpha.abs() * abs + (beta * c).abs())
}

/// [`reference`] for every element of D (row-major), the rows split over the host's cores: the
/// GPU's checks near 1000^3 are billions of f64 multiply-adds. A and B are first converted to f64
/// with K contiguous, so that each element is one contiguous dot product.
fn reference_all<I: Input>(g: &Gemm, x: &Inputs<I>) -> Vec<(f64, f64)> {
    let (m, n, k) = (g.m, g.n, g.k);
    let (lda, ldb) = g.lds();
    let a: Vec<f64> = (0..m * k)
        .map(|e| {
            let (i, p) = (e / k, e % k);
            x.a[if g.a_major == Major::Row { i * lda + p } else { p * lda + i }].value() as f64
        })
        .collect();
    let b: Vec<f64> = (0..n * k)
        .map(|e| {
            let (j, p) = (e / k, e % k);
            x.b[if g.b_major == Major::Row { p * ldb + j } else { j * ldb + p }].value() as f64
        })
        .collect();
    let (alpha, beta) = (g.alpha as f64, g.beta as f64);
    let mut out = vec![(0.0, 0.0); m * n];
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(m.max(1));
    let rows_per = m.div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        for (chunk, rows) in out.chunks_mut(rows_per * n.max(1)).enumerate() {
            let (a, b) = (&a, &b);
            scope.spawn(move || {
                for (e, slot) in rows.iter_mut().enumerate() {
                    let (i, j) = (chunk * rows_per + e / n, e % n);
                    let (ra, rb) = (&a[i * k..(i + 1) * k], &b[j * k..(j + 1) * k]);
                    let (mut sum, mut abs) = (0f64, 0f64);
                    for (u, v) in ra.iter().zip(rb) {
                        sum += u * v;
                        abs += (u * v).abs();
                    }
                    let c = if g.beta != 0.0 { x.c[i * n + j] as f64 } else { 0.0 };
                    *slot = (alpha * sum + beta * c, alpha.abs() * abs + (beta * c).abs());
                }
            });
        }
    });
    out
}

/// Compares `got` (D, row-major) with the reference at the elements `at` (all of them when
/// `None`), naming the first failing one.
fn compare<I: Input>(
    g: &Gemm,
    x: &Inputs<I>,
    got: &[f64],
    at: Option<&[(usize, usize)]>,
    what: &str,
) -> Result<(), String> {
    let check = |i: usize, j: usize, (want, scale): (f64, f64)| {
        let v = got[i * g.n + j];
        let bound = 1e-2 * want.abs().max(1e-2 * scale);
        let err = (v - want).abs();
        if !(err <= bound) {
            return Err(format!(
                "{what}: D[{i}][{j}] = {v}, expected {want} (error {err:.3e} over the bound {bound:.3e}; \
                 NaN = not written)"
            ));
        }
        Ok(())
    };
    match at {
        Some(at) => at.iter().try_for_each(|&(i, j)| check(i, j, reference(g, x, i, j))),
        None => reference_all(g, x).into_iter().enumerate().try_for_each(|(e, r)| check(e / g.n, e % g.n, r)),
    }
}

/// Runs `g` on fresh inputs of `I` into a poisoned D of `O` (on `stream` when given, else the
/// default stream), and checks every element.
fn run_and_check<I: Input, O: GemmOutput>(
    gpu: &Gpu,
    g: &Gemm,
    stream: Option<&cute_rs_host::Stream>,
) -> Result<(), String> {
    let seed = fresh_seed();
    let x = inputs::<I>(gpu, g, seed)?;
    let mut d = gpu.alloc::<O>(g.m * g.n).map_err(fail("alloc D"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    let c = (g.beta != 0.0).then_some(&x.dc);
    match stream {
        Some(s) => {
            // The poisoning (default stream) must be done before the GEMM on the other stream
            // writes D, and the GEMM before the download (default stream) reads it.
            gpu.synchronize().map_err(fail("synchronize the default stream"))?;
            g.run_on(gpu, s, &x.da, &x.db, c, &mut d).map_err(|e| e.to_string())?;
            s.synchronize().map_err(fail("synchronize the GEMM's stream"))?;
        }
        None => g.run(gpu, &x.da, &x.db, c, &mut d).map_err(|e| e.to_string())?,
    }
    let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(|v| v.value() as f64).collect();
    let what = format!(
        "{} x {} x {}, alpha {}, beta {}, kernel {} (seed {seed})",
        g.m,
        g.n,
        g.k,
        g.alpha,
        g.beta,
        g.kernel_name::<I, O>(g.lds().0 % 8 == 0 && g.lds().1 % 8 == 0)
    );
    compare(g, &x, &got, None, &what)
}

/// The sizes of the checks: small on the CPU backend, plus two near 1000^3 on a GPU.
fn sizes(gpu: &Gpu) -> Vec<(usize, usize, usize)> {
    // 1x1x1; ragged everywhere with odd leading dimensions (element-wise staging); ragged M and N
    // with leading dimensions multiples of 8 (16-byte cp.async with zero-filled chunks, K two
    // stages and a quarter); K over 10 stages (the 3-buffer ring wraps around); K = 0 (D = beta C).
    let mut s = vec![(1, 1, 1), (127, 129, 65), (130, 136, 72), (33, 40, 328), (17, 24, 0)];
    if !gpu.is_cpu() {
        s.extend([(1000, 1000, 1000), (999, 1001, 1003), (256, 128, 4096)]);
    }
    s
}

/// Random `alpha` in `[0.5, 1.5)` and `beta` in `[-1, 1)`, never 0 (C is read).
fn random_scalars() -> (f32, f32) {
    let r = random_u32(fresh_seed(), 2);
    (0.5 + (r[0] % 1000) as f32 / 1000.0, -1.0 + (r[1] % 1000) as f32 / 500.0 + 1e-3)
}

/// The four storage orders of A and B.
const ORDERS: [(Major, Major); 4] =
    [(Major::Row, Major::Row), (Major::Row, Major::Col), (Major::Col, Major::Row), (Major::Col, Major::Col)];

fn check_majors(gpu: &Gpu, a: Major, b: Major) -> Result<(), String> {
    let (alpha, beta) = random_scalars();
    for (m, n, k) in sizes(gpu) {
        let g = Gemm::new(m, n, k).a_major(a).b_major(b).alpha(alpha).beta(beta);
        run_and_check::<bf16, f32>(gpu, &g, None)?;
    }
    Ok(())
}

/// bf16 output (rounded to nearest even: relative error at most 2^-9), no C, every combination.
fn check_bf16_output(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let (m, n, k) = if gpu.is_cpu() { (65, 72, 40) } else { (515, 520, 300) };
    for (a, b) in ORDERS {
        let g = Gemm::new(m, n, k).a_major(a).b_major(b).alpha(1.25);
        run_and_check::<bf16, bf16>(gpu, &g, None)?;
    }
    Ok(())
}

/// f16 A and B into D of `O`, every storage order, C read: 1x1x1 and ragged with odd leading
/// dimensions (element-wise staging); on a GPU also ragged with leading dimensions multiples of 8
/// (16-byte staging), 999 x 1001 x 1003 and 1000^3. The CPU backend skips the 16-byte staging:
/// it is the bf16 kernels' (checked there by [`check_majors`]), only the `mma` differs, and each
/// 128 x 128 x 32 block step costs it about 0.1 s.
fn check_f16<O: GemmOutput>(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let mut s = vec![(1, 1, 1), (127, 129, 65)];
    if !gpu.is_cpu() {
        s.extend([(130, 136, 72), (999, 1001, 1003), (1000, 1000, 1000)]);
    }
    let (alpha, beta) = random_scalars();
    for (a, b) in ORDERS {
        for &(m, n, k) in &s {
            let g = Gemm::new(m, n, k).a_major(a).b_major(b).alpha(alpha).beta(beta);
            run_and_check::<f16, O>(gpu, &g, None)?;
        }
    }
    Ok(())
}

/// bf16 A and B into an f16 D (the one input/output pair the other checks leave out): one block
/// with partial K steps and leading dimensions multiples of 8; on a GPU every storage order and
/// ragged sizes (on the CPU backend, the pieces of this kernel are checked by the others).
fn check_bf16_to_f16(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let (alpha, beta) = random_scalars();
    let (orders, sizes): (&[_], &[_]) = if gpu.is_cpu() {
        (&ORDERS[..1], &[(24, 16, 40)])
    } else {
        (&ORDERS, &[(24, 16, 40), (127, 129, 65), (130, 136, 72)])
    };
    for &(a, b) in orders {
        for &(m, n, k) in sizes {
            let g = Gemm::new(m, n, k).a_major(a).b_major(b).alpha(alpha).beta(beta);
            run_and_check::<bf16, f16>(gpu, &g, None)?;
        }
    }
    Ok(())
}

/// [`Gemm::run_on`]: one launch on a stream of our own (f16 in and out, ragged, C read).
fn check_stream(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let stream = gpu.create_stream().map_err(fail("create a stream"))?;
    let (alpha, beta) = random_scalars();
    let (m, n, k) = if gpu.is_cpu() { (24, 16, 40) } else { (1000, 1000, 1000) };
    let g = Gemm::new(m, n, k).b_major(Major::Col).alpha(alpha).beta(beta);
    run_and_check::<f16, f16>(gpu, &g, Some(&stream))
}

/// A GPU-size f16 problem, ragged in M and N, every storage order (A column-major has an odd
/// leading dimension: element-wise staging; A row-major with B either way: 16-byte staging).
/// GPU only: about 1.7 * 10^10 multiply-adds per order, years for the CPU backend's one thread at
/// a time; there the same kernels are checked by [`check_f16`] on small sizes.
fn check_f16_large(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let (alpha, beta) = random_scalars();
    for (a, b) in ORDERS {
        let g = Gemm::new(4095, 4097, 1000).a_major(a).b_major(b).alpha(alpha).beta(beta);
        run_and_check::<f16, f16>(gpu, &g, None)?;
    }
    Ok(())
}

/// Mismatched buffers are refused with the operand and shape named, before any launch.
fn check_errors(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let a = gpu.alloc::<u16>(6).map_err(fail("alloc"))?;
    let b = gpu.alloc::<u16>(12).map_err(fail("alloc"))?;
    let c = gpu.alloc::<f32>(7).map_err(fail("alloc"))?;
    let mut d = gpu.alloc::<f32>(8).map_err(fail("alloc"))?;
    let expect = |r: Result<(), cute_rs_ops::gemm::GemmError>, want: &str| match r {
        Err(e) if e.to_string() == want => Ok(()),
        other => Err(format!("expected the error `{want}`, got {other:?}")),
    };
    expect(
        Gemm::new(2, 4, 3).run(gpu, &b, &b, None, &mut d),
        "gemm: A is M x K = 2 x 3, 6 elements, but its buffer has 12",
    )?;
    expect(
        Gemm::new(2, 4, 3).run(gpu, &a, &a, None, &mut d),
        "gemm: B is K x N = 3 x 4, 12 elements, but its buffer has 6",
    )?;
    expect(
        Gemm::new(2, 4, 3).beta(2.0).run(gpu, &a, &b, Some(&c), &mut d),
        "gemm: C is M x N = 2 x 4, 8 elements, but its buffer has 7",
    )?;
    expect(Gemm::new(2, 4, 3).beta(2.0).run(gpu, &a, &b, None, &mut d), "gemm: beta = 2 but no C was given")?;
    let mut d_small = gpu.alloc::<f32>(4).map_err(fail("alloc"))?;
    expect(
        Gemm::new(2, 4, 3).run(gpu, &a, &b, None, &mut d_small),
        "gemm: D is M x N = 2 x 4, 8 elements, but its buffer has 4",
    )?;
    // Leading dimensions: shorter than the rows they separate, or reaching past the buffer.
    expect(
        Gemm::new(2, 4, 3).lda(2).run(gpu, &a, &b, None, &mut d),
        "gemm: the leading dimension of A, 2, is less than its rows' K = 3",
    )?;
    expect(
        Gemm::new(2, 4, 3).lda(4).run(gpu, &a, &b, None, &mut d),
        "gemm: A is M x K = 2 x 3 with leading dimension 4, 7 elements, but its buffer has 6",
    )?;
    expect(
        Gemm::new(2, 4, 3).b_major(Major::Col).ldb(2).run(gpu, &a, &b, None, &mut d),
        "gemm: the leading dimension of B, 2, is less than its rows' K = 3",
    )
}

/// Sub-matrix views: A and B read through leading dimensions larger than their rows (columns),
/// inside buffers of random values, for every storage order, through `run` (the portable
/// kernels, also on the CPU backend) and `run_auto` (the Hopper kernels on an sm_90 GPU, their
/// tensor maps striding by the leading dimensions).
fn check_leading_dims(gpu: &Gpu, _: &Module) -> Result<(), String> {
    use cute_rs_ops::gemm::GemmPath;
    let (m, n, k) = (136, 200, 72);
    for (am, bm) in [(Major::Row, Major::Col), (Major::Row, Major::Row), (Major::Col, Major::Col), (Major::Col, Major::Row)] {
        let g = Gemm::new(m, n, k).a_major(am).b_major(bm).alpha(1.5).beta(0.5);
        let (a_inner, a_outer) = if am == Major::Row { (k, m) } else { (m, k) };
        let (b_inner, b_outer) = if bm == Major::Row { (n, k) } else { (k, n) };
        let (lda, ldb) = (a_inner + 24, b_inner + 40);
        let g = g.lda(lda).ldb(ldb);
        let seed = fresh_seed();
        let (a, b): (Vec<bf16>, Vec<bf16>) = (random_input(seed, (a_outer - 1) * lda + a_inner), random_input(seed ^ 0x5555, (b_outer - 1) * ldb + b_inner));
        let c = random_f32(seed ^ 0xaaaa, m * n);
        let (da, db, dc) = (
            gpu.upload(&a).map_err(fail("upload A"))?,
            gpu.upload(&b).map_err(fail("upload B"))?,
            gpu.upload(&c).map_err(fail("upload C"))?,
        );
        let x = Inputs { a, b, c, da, db, dc };
        let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc D"))?;
        for auto in [false, true] {
            gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
            let path = if auto {
                let want = if g.sm90_unsupported(gpu, &x.da, &x.db, &d).is_none() { GemmPath::Sm90 } else { GemmPath::MmaSync };
                let took = g.run_auto(gpu, &x.da, &x.db, Some(&x.dc), &mut d).map_err(|e| e.to_string())?;
                if took != want {
                    return Err(format!("run_auto with lda {lda}, ldb {ldb} took {took:?}, expected {want:?}"));
                }
                format!("{took:?}")
            } else {
                g.run(gpu, &x.da, &x.db, Some(&x.dc), &mut d).map_err(|e| e.to_string())?;
                "run".to_owned()
            };
            let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(f64::from).collect();
            compare(&g, &x, &got, None, &format!("{path} {m} x {n} x {k}, A {am:?} lda {lda}, B {bm:?} ldb {ldb} (seed {seed})"))?;
        }
    }
    Ok(())
}

/// `M x N x K` of `I`, A and B row-major (what `torch.matmul` of two contiguous matrices
/// computes), f32 and `I` output, and A row-, B column-major (both K-major: `ldmatrix` without
/// `.trans`) into f32; 64 sampled elements checked against f64 first. The peer (cuBLAS through
/// `torch.matmul`) is measured by `bench/peers/torch_triton_peers.py` in the same run.
fn bench_mma_sync<I: Input + GemmOutput>(
    gpu: &Gpu,
    m: usize,
    n: usize,
    k: usize,
) -> Result<Vec<Figure>, String> {
    let g = Gemm::new(m, n, k);
    let seed = fresh_seed();
    let x = inputs::<I>(gpu, &g, seed)?;
    let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc D"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    g.run(gpu, &x.da, &x.db, None, &mut d).map_err(|e| e.to_string())?;
    let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(|v| v as f64).collect();
    let r = random_u32(seed, 128);
    let at: Vec<(usize, usize)> = r.chunks(2).map(|p| (p[0] as usize % m, p[1] as usize % n)).collect();
    compare(&g, &x, &got, Some(&at), &format!("{m} x {n} x {k} (sampled)"))?;
    let ms = super::time_median(gpu, 3, 20, || g.run(gpu, &x.da, &x.db, None, &mut d).map_err(host_err))?;
    let mut d16 = gpu.alloc::<I>(m * n).map_err(fail("alloc D"))?;
    let ms16 = super::time_median(gpu, 3, 20, || g.run(gpu, &x.da, &x.db, None, &mut d16).map_err(host_err))?;
    let tn = g.b_major(Major::Col);
    let ms_tn = super::time_median(gpu, 3, 20, || tn.run(gpu, &x.da, &x.db, None, &mut d).map_err(host_err))?;
    let tflops = |ms: f32| g.flops() / (ms as f64 * 1e-3) / 1e12;
    let t = I::KERNEL_NAME;
    Ok(vec![
        Figure { what: format!("mma.sync {t} -> f32, A, B row-major"), value: tflops(ms), unit: "TFLOP/s" },
        Figure { what: format!("mma.sync {t} -> {t}, A, B row-major"), value: tflops(ms16), unit: "TFLOP/s" },
        Figure { what: format!("mma.sync {t} -> f32, A row-, B column-major"), value: tflops(ms_tn), unit: "TFLOP/s" },
        Figure { what: "time (f32 output)".into(), value: ms as f64, unit: "ms" },
    ])
}

/// `time_median` takes host errors: a GEMM's launch errors are host errors once validated.
pub(super) fn host_err(e: cute_rs_ops::gemm::GemmError) -> cute_rs_host::HostError {
    match e {
        cute_rs_ops::gemm::GemmError::Host(h) => h,
        other => cute_rs_host::HostError::Invalid(other.to_string()),
    }
}

/// [`Gemm::run_sm90`] (the Hopper kernel behind the API) against the reference, ragged and
/// alpha/beta problems, and its refusal of a K TMA cannot read.
fn check_sm90(gpu: &Gpu, _: &Module) -> Result<(), String> {
    use cute_rs_ops::gemm::GemmPath;
    if gpu.is_cpu() || gpu.properties().compute_capability != (9, 0) {
        return Err("not an sm_90 GPU: no Hopper path".into());
    }
    // `run_auto` takes the Hopper path exactly when `sm90_unsupported` finds nothing against it
    // (here: N = 129 is not a multiple of 8 for a row-major B), and is right either way.
    for (m, n, k, alpha, beta) in [(136, 129, 72, 1.0, 0.0), (1000, 1000, 1000, 1.5, -0.5), (200, 304, 8, 1.0, 0.0)] {
        for (am, bm) in [(Major::Row, Major::Col), (Major::Row, Major::Row), (Major::Col, Major::Col), (Major::Col, Major::Row)] {
            let g = Gemm::new(m, n, k).a_major(am).b_major(bm).alpha(alpha).beta(beta);
            let seed = fresh_seed();
            let x = inputs::<bf16>(gpu, &g, seed)?;
            let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc D"))?;
            gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
            let c = (beta != 0.0).then_some(&x.dc);
            let want = if g.sm90_unsupported(gpu, &x.da, &x.db, &d).is_none() { GemmPath::Sm90 } else { GemmPath::MmaSync };
            let path = g.run_auto(gpu, &x.da, &x.db, c, &mut d).map_err(|e| e.to_string())?;
            let what = format!("run_auto {m} x {n} x {k}, A {am:?}, B {bm:?}, alpha {alpha}, beta {beta} (seed {seed})");
            if path != want {
                return Err(format!("{what}: took {path:?}, expected {want:?}"));
            }
            let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(f64::from).collect();
            compare(&g, &x, &got, None, &what)?;
        }
    }
    // A large ragged size (K-major operands, f32 D: TMA takes it; tiles cut on both edges).
    let g = Gemm::new(4095, 4097, 1000).b_major(Major::Col);
    let seed = fresh_seed();
    let x = inputs::<bf16>(gpu, &g, seed)?;
    let mut d = gpu.alloc::<f32>(g.m * g.n).map_err(fail("alloc D"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    let path = g.run_auto(gpu, &x.da, &x.db, None, &mut d).map_err(|e| e.to_string())?;
    if path != GemmPath::Sm90 {
        return Err(format!("run_auto 4095 x 4097 x 1000 took {path:?}, expected the Hopper path"));
    }
    let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(f64::from).collect();
    compare(&g, &x, &got, None, &format!("run_auto 4095 x 4097 x 1000 (seed {seed})"))?;
    // f16 in and out on a stream of ours.
    let stream = gpu.create_stream().map_err(fail("create stream"))?;
    let g = Gemm::new(264, 520, 136).a_major(Major::Col).alpha(0.5).beta(2.0);
    let seed = fresh_seed();
    let x = inputs::<f16>(gpu, &g, seed)?;
    let mut d = gpu.alloc::<f16>(g.m * g.n).map_err(fail("alloc D"))?;
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    gpu.synchronize().map_err(fail("synchronize the default stream"))?;
    g.run_sm90_on(gpu, &stream, &x.da, &x.db, Some(&x.dc), &mut d).map_err(|e| e.to_string())?;
    // The call returns once launched; the download waits for the default stream only.
    stream.synchronize().map_err(fail("synchronize the stream"))?;
    let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(|v| v.to_f64()).collect();
    compare(&g, &x, &got, None, &format!("run_sm90_on f16 -> f16 264 x 520 x 136 (seed {seed})"))?;
    // The same call recorded into a CUDA graph: the capture (global mode) fails if the call
    // allocates or waits. Replayed twice into a poisoned D (D = alpha A B + beta C both times).
    gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
    gpu.synchronize().map_err(fail("synchronize the default stream"))?;
    let graph = stream
        .capture(|s| g.run_sm90_on(gpu, s, &x.da, &x.db, Some(&x.dc), &mut d).map_err(|e| cute_rs_host::HostError::Invalid(e.to_string())))
        .map_err(fail("capturing run_sm90_on into a CUDA graph"))?;
    for _ in 0..2 {
        graph.launch(&stream).map_err(fail("graph launch"))?;
    }
    stream.synchronize().map_err(fail("synchronize the stream"))?;
    let got: Vec<f64> = gpu.download(&d).map_err(fail("download D"))?.into_iter().map(|v| v.to_f64()).collect();
    compare(&g, &x, &got, None, &format!("run_sm90_on f16 -> f16 264 x 520 x 136 replayed from a CUDA graph (seed {seed})"))?;
    let g = Gemm::new(16, 16, 12).b_major(Major::Col);
    let x = inputs::<u16>(gpu, &g, 1)?;
    let mut d = gpu.alloc::<f32>(256).map_err(fail("alloc D"))?;
    match g.run_sm90(gpu, &x.da, &x.db, None, &mut d) {
        Err(cute_rs_ops::gemm::GemmError::Unsupported(why)) if why.contains("multiple of 8") => Ok(()),
        other => Err(format!("run_sm90 with K = 12: expected Unsupported (multiple of 8), got {other:?}")),
    }
}

/// The atom-layer kernels measured against their hand-written twins (same parameters): A
/// row-major with B column-major (`ldmatrix`) and row-major (`ldmatrix.trans`).
const TWINS: [(Major, &str, &str); 2] =
    [(Major::Col, "gemm_bf16_ar_bc_v16", "gemm_bf16_ar_bc_v16_raw"), (Major::Row, "gemm_bf16_ar_br_v16", "gemm_bf16_ar_br_v16_raw")];

/// Launches the `mma.sync` GEMM kernel `name` (an atom-layer kernel or its twin; 16-byte
/// staging, A row-major, bf16 in, f32 out, no C) on `g`'s problem.
fn launch_named(gpu: &Gpu, name: &str, g: &Gemm, a: &DeviceBuffer<bf16>, b: &DeviceBuffer<bf16>, d: &mut DeviceBuffer<f32>) -> cute_rs_host::Result<()> {
    use cute_rs_kernels::gemm as k;
    use test_kernels::gemm_raw as raw;
    // The atom-layer kernels are the operations' (module `gemm`), their twins the harness's
    // (module `test_kernels`).
    let (kernel, source) = match name {
        "gemm_bf16_ar_bc_v16" => (k::gemm_bf16_ar_bc_v16, cute_rs_ops::modules::gemm()),
        "gemm_bf16_ar_bc_v16_raw" => (raw::gemm_bf16_ar_bc_v16_raw, &crate::TEST_KERNELS),
        "gemm_bf16_ar_br_v16" => (k::gemm_bf16_ar_br_v16, cute_rs_ops::modules::gemm()),
        "gemm_bf16_ar_br_v16_raw" => (raw::gemm_bf16_ar_br_v16_raw, &crate::TEST_KERNELS),
        other => return Err(cute_rs_host::HostError::Invalid(format!("no twin kernel {other}"))),
    };
    let module = gpu.module(source)?;
    let cfg = cute_rs_host::LaunchConfig {
        grid: (g.n.div_ceil(k::BN as usize) as u32, g.m.div_ceil(k::BM as usize) as u32, 1),
        block: (k::THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (lda, ldb) = g.lds();
    let (m, n, kk) = (g.m as u32, g.n as u32, g.k as u32);
    let params = cute_rs_kernels::gemm::GemmParams {
        a: a.device_ptr() as *const bf16,
        b: b.device_ptr() as *const bf16,
        c: d.device_ptr() as *const f32,
        d: d.device_ptr() as *mut f32,
        m,
        n,
        k: kk,
        lda: lda as u32,
        ldb: ldb as u32,
        ldc: n,
        ldd: n,
        epilogue: cute_rs_kernels::epilogue::EpilogueOp { alpha: g.alpha, ..cute_rs_kernels::epilogue::EpilogueOp::IDENTITY },
    };
    // SAFETY: A, B and D hold the elements of the problem (allocated for it by the callers); beta
    // is 0, so C (D's address) is never read.
    unsafe { gpu.launch(&module, kernel, cfg, (params,)).run() }
}

/// Each atom-layer kernel and its hand-written twin give the same D bit for bit (the same
/// products summed in the same order), which also matches the f64 reference, on ragged shapes
/// with poisoned outputs.
fn check_twins(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let sizes: &[(usize, usize, usize)] = if gpu.is_cpu() { &[(65, 72, 40)] } else { &[(1000, 1000, 1000), (129, 264, 520)] };
    for &(m, n, k) in sizes {
        for (b_major, atom, raw) in TWINS {
            let g = Gemm::new(m, n, k).b_major(b_major).alpha(0.75);
            let x = inputs::<bf16>(gpu, &g, fresh_seed())?;
            let mut got = [Vec::new(), Vec::new()];
            for (name, out) in [atom, raw].into_iter().zip(&mut got) {
                let mut d = gpu.alloc::<f32>(m * n).map_err(fail("alloc D"))?;
                gpu.memset(&mut d, 0xff).map_err(fail("poison D"))?;
                launch_named(gpu, name, &g, &x.da, &x.db, &mut d).map_err(fail(name))?;
                *out = gpu.download(&d).map_err(fail("download D"))?;
            }
            let as_f64: Vec<f64> = got[0].iter().map(|&v| v as f64).collect();
            compare(&g, &x, &as_f64, None, &format!("{atom} {m} x {n} x {k}"))?;
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            super::expect_eq(&format!("{atom} against {raw}, {m} x {n} x {k}"), &bits(&got[0]), &bits(&got[1]))?;
        }
    }
    Ok(())
}

/// Each atom-layer kernel against its twin on the same buffers, alternating launches in one
/// process (CUDA events, 5 warm-ups, median of 30 each): the ratio is what the abstractions cost.
fn bench_twins(gpu: &Gpu, size: usize) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for (b_major, atom, raw) in TWINS {
        let g = Gemm::new(size, size, size).b_major(b_major);
        let x = inputs::<bf16>(gpu, &g, fresh_seed())?;
        let mut d = gpu.alloc::<f32>(size * size).map_err(fail("alloc D"))?;
        for _ in 0..5 {
            launch_named(gpu, atom, &g, &x.da, &x.db, &mut d).map_err(fail("warm-up"))?;
            launch_named(gpu, raw, &g, &x.da, &x.db, &mut d).map_err(fail("warm-up"))?;
        }
        let (mut t_atom, mut t_raw) = (Vec::new(), Vec::new());
        for _ in 0..30 {
            t_atom.push(gpu.time_ms(|| launch_named(gpu, atom, &g, &x.da, &x.db, &mut d)).map_err(fail(atom))?);
            t_raw.push(gpu.time_ms(|| launch_named(gpu, raw, &g, &x.da, &x.db, &mut d)).map_err(fail(raw))?);
        }
        let (ms_atom, ms_raw) = (super::median(t_atom), super::median(t_raw));
        let tflops = |ms: f32| g.flops() / (ms as f64 * 1e-3) / 1e12;
        figures.push(Figure { what: format!("{atom} (atom layer)"), value: tflops(ms_atom), unit: "TFLOP/s" });
        figures.push(Figure { what: format!("{raw} (hand-written)"), value: tflops(ms_raw), unit: "TFLOP/s" });
        figures.push(Figure { what: format!("{atom} / {raw}"), value: (ms_raw / ms_atom) as f64, unit: "x" });
    }
    Ok(figures)
}
