//! Checks and benchmarks of the GEMM as one call on tensors ([`cute_rs_ops::matmul::Matmul`]): every
//! storage order of A, B, C and D given by layouts, padded leading dimensions, strided and shared
//! batches, the fused epilogues (bias per row or column, ReLU, GELU, SiLU, alpha/beta with C) into
//! each output type, fp8 with scales, and the refusals.
//!
//! Each problem runs on fresh random data in `[-1, 1)` with D poisoned first, on the path the call
//! picks (the Hopper kernels on an sm_90 GPU when they take it) and on the portable kernels, against
//! an f64 reference computed from the same element values through the same layouts. An element
//! passes when `|got - want| <= tol * max(|want|, 1e-2 * scale)`, `scale` being the sum of the
//! magnitudes of its terms (`|alpha| sum |a b| + |beta c| + |bias|`) and `tol` 1e-2 (the rounding
//! of a 16-bit D and the GPU's approximate `tanh` of GELU and SiLU are far below it; a wrong
//! index, a missed batch or a wrong epilogue is not). fp8 products add `2^-10 scale`: the fp8
//! tensor cores keep fewer bits than f32 while they accumulate (errors near `2^-13 scale` seen on
//! an H100), as the cuBLASLt peer's check allows.

use cute_rs_host::{DeviceBuffer, Gpu, Module};
use cute_rs_kernels::epilogue::Activation as Act;
use cute_rs_layout::Layout;
use cute_rs_tensor::device::numeric::{E4M3, E5M2};
use cute_rs_tensor::half::{bf16, f16};

use super::gemm::Input;
use super::{fail, fresh_seed, random_f32, Bench, Check, Figure};
use cute_rs_ops::gemm::{Activation, BiasKind, GemmError, GemmOutput, GemmPath};
use cute_rs_ops::matmul::Matmul;
use cute_rs_ops::F32Math;

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "matmul/layouts: every storage order of A, B and D, padded leading dimensions, strided and shared batches", run: check_layouts },
        Check { name: "matmul/epilogues: bias per row and column, ReLU, GELU, SiLU, alpha and beta with C, each output type", run: check_epilogues },
        Check { name: "matmul/refusals name the condition", run: check_refusals },
        Check { name: "matmul/f32 inputs: FFMA and tf32, every storage order of A and B, row- and column-major D, batches, beta with C", run: check_f32 },
        Check { name: "matmul/hopper fp8 (e4m3 and e5m2) with per-tensor scales", run: check_fp8 },
        Check { name: "matmul/hopper split-K: skinny products, uneven and empty splits, with epilogues", run: check_split_k },
        Check {
            name: "matmul/hopper stream-K: all-shared and hybrid schedules, decode and 128 x 256 tiles, with epilogues; bitwise the same from run to run",
            run: check_stream_k,
        },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "matmul/batched 64 x 512x512x128 bf16 (one call)", run: |g, _| bench_batched(g) }]
}

/// How one matrix operand is stored: rows `rows x cols`, row-major or not, its leading dimension
/// padded by `pad`, and its batch stride padded by `batch_pad` (`None`: no batch mode, one matrix
/// for every batch).
#[derive(Clone, Copy, Debug)]
struct Storage {
    row_major: bool,
    pad: usize,
    batch_pad: Option<usize>,
}

impl Storage {
    fn new(row_major: bool, pad: usize, batch_pad: Option<usize>) -> Storage {
        Storage { row_major, pad, batch_pad }
    }

    /// The layout of a `rows x cols` operand of `batches`, and its buffer's length.
    fn layout(&self, rows: usize, cols: usize, batches: usize) -> (Layout, usize) {
        let ld = if self.row_major { cols } else { rows } + self.pad;
        let (rs, cs) = if self.row_major { (ld, 1) } else { (1, ld) };
        let one = if self.row_major { (rows - 1) * ld + cols } else { (cols - 1) * ld + rows };
        let text = match self.batch_pad {
            Some(p) => format!("({rows},{cols},{batches}):({rs},{cs},{})", one + p),
            None => format!("({rows},{cols}):({rs},{cs})"),
        };
        let len = match self.batch_pad {
            Some(p) => (batches - 1) * (one + p) + one,
            None => one,
        };
        (Layout::parse(&text).expect("a valid layout"), len)
    }
}

/// The strides of a flat layout of rank 2 or 3 (0 for a missing batch mode).
fn strides(l: &Layout) -> [usize; 3] {
    let s = l.stride();
    let s = s.leaves();
    [s[0] as usize, s[1] as usize, if s.len() > 2 { s[2] as usize } else { 0 }]
}

/// An element's offset for `strides`.
fn offset(s: &[usize; 3], i: usize, j: usize, b: usize) -> usize {
    i * s[0] + j * s[1] + b * s[2]
}

/// A problem of the checks.
#[derive(Clone, Copy, Debug)]
struct Problem {
    m: usize,
    n: usize,
    k: usize,
    l: usize,
    a: Storage,
    b: Storage,
    /// D's storage; C's is the same order with no padding.
    d: Storage,
    alpha: f32,
    beta: f32,
    bias: BiasKind,
    act: Act,
    /// K splits asked for (`None`: the library's choice).
    splits: Option<u32>,
    /// Stream-K asked for (instead of `splits`).
    stream_k: bool,
    /// The arithmetic of f32 inputs (`None`: the default, FFMA).
    f32_math: Option<F32Math>,
}

/// Runs `p` on `path` (`None`: the call's choice) with inputs of `IA`, `IB`, D of `O` and fp8
/// scales `scales`, and compares D with the f64 reference. Returns the path taken.
fn run_problem<IA: Input, IB: Input, O: GemmOutput>(gpu: &Gpu, p: &Problem, path: Option<GemmPath>, scales: (f32, f32)) -> Result<GemmPath, String> {
    let Problem { m, n, k, l, .. } = *p;
    let seed = fresh_seed();
    let (la, na) = p.a.layout(m, k, l);
    let (lb, nb) = p.b.layout(k, n, l);
    let (ld, nd) = p.d.layout(m, n, l);
    let (lc, nc) = Storage { pad: 0, ..p.d }.layout(m, n, l);
    let a: Vec<IA> = random_f32(seed, na).into_iter().map(IA::from_f32).collect();
    let b: Vec<IB> = random_f32(seed ^ 0xb, nb).into_iter().map(IB::from_f32).collect();
    let c = random_f32(seed ^ 0xc, nc);
    let bias = random_f32(seed ^ 0xd, m.max(n));
    let up = |e| fail(e);
    let (da, db, dc, dbias) = (
        gpu.upload(&a).map_err(up("upload A"))?,
        gpu.upload(&b).map_err(up("upload B"))?,
        gpu.upload(&c).map_err(up("upload C"))?,
        gpu.upload(&bias).map_err(up("upload bias"))?,
    );
    let mut dd = gpu.alloc::<O>(nd).map_err(fail("alloc D"))?;
    gpu.memset(&mut dd, 0xff).map_err(fail("poison D"))?;
    let mut call = Matmul::new().alpha(p.alpha).beta(p.beta).activation(p.act).scales(scales.0, scales.1);
    call = match p.bias {
        BiasKind::PerRow => call.bias_per_row(&dbias),
        BiasKind::PerColumn => call.bias_per_column(&dbias),
        BiasKind::None => call,
    };
    if let Some(path) = path {
        call = call.path(path);
    }
    if let Some(splits) = p.splits {
        call = call.split_k(splits);
    }
    if p.stream_k {
        call = call.stream_k();
    }
    if let Some(math) = p.f32_math {
        call = call.f32_math(math);
    }
    let tensor = |e: cute_rs_host::HostError| e.to_string();
    let what = format!("{p:?} {} x {} -> {} on {path:?} (seed {seed})", IA::KERNEL_NAME, IB::KERNEL_NAME, O::NAME);
    let took = call
        .run(
            gpu,
            da.tensor(la).map_err(tensor)?,
            db.tensor(lb).map_err(tensor)?,
            (p.beta != 0.0).then(|| dc.tensor(lc)).transpose().map_err(tensor)?,
            dd.tensor_mut(ld).map_err(tensor)?,
        )
        .map_err(|e| format!("{what}: {e}"))?;
    let got: Vec<f32> = gpu.download(&dd).map_err(fail("download D"))?.into_iter().map(GemmOutput::value).collect();
    let (alpha, beta) = (p.alpha as f64 * scales.0 as f64 * scales.1 as f64, p.beta as f64);
    let (sa, sb, sc, sd) = (strides(&la), strides(&lb), strides(&lc), strides(&ld));
    // fp8 accumulates in fewer bits; tf32 rounds each f32 input to 10 mantissa bits.
    let fp8_accumulation = if IA::FP8 { 2f64.powi(-10) } else if IA::F32 && p.f32_math == Some(F32Math::Tf32) { 2f64.powi(-9) } else { 0.0 };
    // Rows of A and columns of B as contiguous f64, batch by batch.
    let (av, bv): (Vec<f64>, Vec<f64>) = (a.iter().map(|x| x.value() as f64).collect(), b.iter().map(|x| x.value() as f64).collect());
    for batch in 0..l {
        let rows: Vec<Vec<f64>> = (0..m).map(|i| (0..k).map(|q| av[offset(&sa, i, q, batch)]).collect()).collect();
        let cols: Vec<Vec<f64>> = (0..n).map(|j| (0..k).map(|q| bv[offset(&sb, q, j, batch)]).collect()).collect();
        for i in 0..m {
            for j in 0..n {
                let (mut sum, mut abs) = (0f64, 0f64);
                for (x, y) in rows[i].iter().zip(&cols[j]) {
                    sum += x * y;
                    abs += (x * y).abs();
                }
                let cv = if p.beta != 0.0 { c[offset(&sc, i, j, batch)] as f64 } else { 0.0 };
                let bv = match p.bias {
                    BiasKind::PerRow => bias[i] as f64,
                    BiasKind::PerColumn => bias[j] as f64,
                    BiasKind::None => 0.0,
                };
                let pre = alpha * sum + beta * cv + bv;
                let want = match p.act {
                    Act::Identity => pre,
                    Act::Relu => pre.max(0.0),
                    Act::Gelu => 0.5 * pre * (1.0 + (0.797_884_560_802_865_4 * (pre + 0.044715 * pre.powi(3))).tanh()),
                    Act::Silu => pre / (1.0 + (-pre).exp()),
                };
                let scale = alpha.abs() * abs + (beta * cv).abs() + bv.abs();
                let g = got[offset(&sd, i, j, batch)] as f64;
                if !((g - want).abs() <= 1e-2 * want.abs().max(1e-2 * scale) + fp8_accumulation * scale) {
                    return Err(format!("{what}, took {took:?}: D[{batch}][{i}][{j}] = {g}, expected {want} (scale {scale})"));
                }
            }
        }
    }
    // Elements of D's buffer outside its layout (padding) stay poisoned.
    let inside: std::collections::HashSet<usize> =
        (0..l).flat_map(|b| (0..m).flat_map(move |i| (0..n).map(move |j| (i, j, b)))).map(|(i, j, b)| offset(&sd, i, j, b)).collect();
    if let Some(e) = (0..nd).find(|e| !inside.contains(e) && !got[*e].is_nan()) {
        return Err(format!("{what}: D's padding element {e} was written ({})", got[e]));
    }
    Ok(took)
}

/// The paths a check runs: the call's choice, and on an sm_90 GPU the portable one too.
fn paths(gpu: &Gpu) -> Vec<Option<GemmPath>> {
    if gpu.is_cpu() {
        vec![None]
    } else {
        vec![None, Some(GemmPath::MmaSync)]
    }
}

fn hopper(gpu: &Gpu) -> bool {
    !gpu.is_cpu() && gpu.properties().compute_capability == (9, 0)
}

fn check_layouts(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let (m, n, k, l) = if gpu.is_cpu() { (40, 24, 32, 2) } else { (200, 136, 72, 3) };
    let plain = Problem {
        m,
        n,
        k,
        l,
        a: Storage::new(true, 0, Some(0)),
        b: Storage::new(false, 0, Some(0)),
        d: Storage::new(true, 0, Some(0)),
        alpha: 1.0,
        beta: 0.0,
        bias: BiasKind::None,
        act: Act::Identity,
        splits: None,
        stream_k: false,
        f32_math: None,
    };
    for a_row in [true, false] {
        for b_row in [true, false] {
            for d_row in [true, false] {
                // Padded leading dimensions (multiples of 8: the Hopper path takes them) and batch
                // strides; B shared by every batch when D is column-major.
                let p = Problem {
                    a: Storage::new(a_row, 8, Some(16)),
                    b: Storage::new(b_row, 16, if d_row { Some(8) } else { None }),
                    d: Storage::new(d_row, 8, Some(8)),
                    alpha: 1.5,
                    ..plain
                };
                for path in paths(gpu) {
                    let took = run_problem::<bf16, bf16, f32>(gpu, &p, path, (1.0, 1.0))?;
                    // The Hopper path takes every order with TMA-able strides (the shared B has
                    // batch stride 0: TMA strides are positive, so those go the portable way).
                    let want = if hopper(gpu) && path.is_none() && d_row { GemmPath::Sm90 } else { GemmPath::MmaSync };
                    if took != want && path.is_none() {
                        return Err(format!("{p:?}: took {took:?}, expected {want:?}"));
                    }
                }
            }
        }
    }
    // Packed operands, 16-bit D, and a leading dimension that is not a multiple of 8 (the
    // portable path: TMA needs 16-byte rows).
    for path in paths(gpu) {
        run_problem::<f16, f16, f16>(gpu, &plain, path, (1.0, 1.0))?;
        let odd = Problem { a: Storage::new(true, 3, Some(5)), ..plain };
        let took = run_problem::<bf16, bf16, bf16>(gpu, &odd, path, (1.0, 1.0))?;
        if took != GemmPath::MmaSync {
            return Err(format!("{odd:?}: took {took:?}, expected the portable path"));
        }
    }
    Ok(())
}

fn check_epilogues(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let (m, n, k, l) = if gpu.is_cpu() { (24, 40, 16, 1) } else { (264, 520, 136, 2) };
    let base = Problem {
        m,
        n,
        k,
        l,
        a: Storage::new(true, 0, Some(0)),
        b: Storage::new(true, 0, Some(0)),
        d: Storage::new(true, 0, Some(0)),
        alpha: 0.75,
        beta: 0.5,
        bias: BiasKind::PerColumn,
        act: Act::Identity,
        splits: None,
        stream_k: false,
        f32_math: None,
    };
    for (i, act) in Activation::ALL.into_iter().enumerate() {
        let bias = [BiasKind::PerColumn, BiasKind::PerRow, BiasKind::None][i % 3];
        // C and beta on every other activation.
        let beta = if i % 2 == 0 { 0.5 } else { 0.0 };
        let p = Problem { act, bias, beta, ..base };
        for path in paths(gpu) {
            run_problem::<bf16, bf16, f32>(gpu, &p, path, (1.0, 1.0))?;
            run_problem::<bf16, bf16, bf16>(gpu, &p, path, (1.0, 1.0))?;
            run_problem::<f16, f16, f16>(gpu, &p, path, (1.0, 1.0))?;
        }
        // A column-major D: the bias swaps sides in the transposed problem.
        let t = Problem { d: Storage::new(false, 0, Some(0)), ..p };
        run_problem::<bf16, bf16, f32>(gpu, &t, None, (1.0, 1.0))?;
    }
    Ok(())
}

fn check_fp8(gpu: &Gpu, _: &Module) -> Result<(), String> {
    if !hopper(gpu) {
        return Err("not an sm_90 GPU: fp8 needs wgmma".into());
    }
    for (m, n, k, l) in [(200, 136, 128, 1), (264, 520, 256, 2)] {
        let p = Problem {
            m,
            n,
            k,
            l,
            a: Storage::new(true, 0, Some(0)),
            b: Storage::new(false, 0, Some(0)),
            d: Storage::new(true, 0, Some(0)),
            alpha: 1.0,
            beta: 0.0,
            bias: BiasKind::PerColumn,
            act: Act::Gelu,
            splits: None,
            stream_k: false,
            f32_math: None,
        };
        let scales = (0.5, 3.0);
        for took in [
            run_problem::<E4M3, E4M3, bf16>(gpu, &p, None, scales)?,
            run_problem::<E4M3, E4M3, f32>(gpu, &p, None, scales)?,
            run_problem::<E4M3, E5M2, f16>(gpu, &p, None, scales)?,
            run_problem::<E5M2, E4M3, bf16>(gpu, &p, None, scales)?,
        ] {
            if took != GemmPath::Sm90 {
                return Err(format!("fp8 took {took:?}"));
            }
        }
    }
    Ok(())
}

/// Each refusal names its condition (host checks only: nothing is launched).
fn check_refusals(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let parse = |s: &str| Layout::parse(s).map_err(|e| e.to_string());
    let a = gpu.alloc::<bf16>(64).map_err(fail("alloc"))?;
    let b = gpu.alloc::<bf16>(64).map_err(fail("alloc"))?;
    let bh = gpu.alloc::<f16>(64).map_err(fail("alloc"))?;
    let a8 = gpu.alloc::<E4M3>(64).map_err(fail("alloc"))?;
    let mut d = gpu.alloc::<f32>(64).map_err(fail("alloc"))?;
    let t = |e: cute_rs_host::HostError| e.to_string();
    let expect = |r: Result<GemmPath, GemmError>, want: &str| match r {
        Err(e) if e.to_string().contains(want) => Ok(()),
        other => Err(format!("expected an error containing {want:?}, got {other:?}")),
    };
    let mm = Matmul::new();
    expect(
        mm.run(gpu, a.tensor(parse("(4,4):(2,8)")?).map_err(t)?, b.tensor(parse("(4,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "A (4 x 4, strides 2 and 8) has no contiguous mode",
    )?;
    expect(
        mm.run(gpu, a.tensor(parse("(4,4):(4,1)")?).map_err(t)?, b.tensor(parse("(3,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "B's rows (K) is 3 but A's columns is 4",
    )?;
    expect(
        mm.run(gpu, a.tensor(parse("(4,4,2):(4,1,16)")?).map_err(t)?, b.tensor(parse("(4,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4,3):(4,1,16)")?).map_err(t)?),
        "A has 2 batches but D has 3",
    )?;
    expect(
        mm.run(gpu, a.tensor(parse("(4,4,2):(4,1,16)")?).map_err(t)?, b.tensor(parse("(4,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4,2):(4,1,8)")?).map_err(t)?),
        "the batches would overlap",
    )?;
    expect(
        mm.run(gpu, a.tensor(parse("(4,4):(4,1)")?).map_err(t)?, bh.tensor(parse("(4,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "A is bf16 and B is f16",
    )?;
    expect(
        mm.beta(1.0).run(gpu, a.tensor(parse("(4,4):(4,1)")?).map_err(t)?, b.tensor(parse("(4,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "beta = 1 but no C was given",
    )?;
    // An 8-bit A with a 16-bit B would read B's bytes as fp8.
    expect(
        mm.run(gpu, a8.tensor(parse("(4,4):(4,1)")?).map_err(t)?, b.tensor(parse("(4,4):(1,4)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "A is e4m3 and B is bf16",
    )?;
    let bias = gpu.alloc::<f32>(3).map_err(fail("alloc"))?;
    expect(
        mm.bias_per_column(&bias).run(gpu, a.tensor(parse("(4,4):(4,1)")?).map_err(t)?, b.tensor(parse("(4,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "bias is N = 4, 4 elements, but its buffer has 3",
    )?;
    if !hopper(gpu) {
        expect(
            mm.run(gpu, a8.tensor(parse("(4,4):(4,1)")?).map_err(t)?, a8.tensor(parse("(4,4):(1,4)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
            "fp8 inputs need the Hopper path",
        )?;
    }
    // fp8 operands must be K-major (checked wherever the Hopper path is asked for).
    expect(
        mm.path(GemmPath::Sm90).run(gpu, a8.tensor(parse("(4,16):(16,1)")?).map_err(t)?, a8.tensor(parse("(16,4):(4,1)")?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(4,1)")?).map_err(t)?),
        "fp8: wgmma reads 8-bit operands K-major only",
    )?;
    let _: &DeviceBuffer<E4M3> = &a8;
    Ok(())
}

fn check_f32(gpu: &Gpu, _: &Module) -> Result<(), String> {
    let (m, n, k, l) = if gpu.is_cpu() { (24, 20, 12, 2) } else { (200, 136, 72, 3) };
    for math in [F32Math::Ffma, F32Math::Tf32] {
        for (a_row, b_row, d_row) in [(true, true, true), (true, false, true), (false, true, true), (false, false, true), (true, false, false)] {
            // Padded A and B (multiples of 4: the Hopper tf32 kernel's 16-byte rows), packed D
            // (the f32 kernels' epilogue), C with beta.
            let p = Problem {
                m,
                n,
                k,
                l,
                a: Storage::new(a_row, 4, Some(8)),
                b: Storage::new(b_row, 4, if d_row { Some(4) } else { None }),
                d: Storage::new(d_row, 0, Some(0)),
                alpha: 1.5,
                beta: 0.5,
                bias: BiasKind::None,
                act: Act::Identity,
                splits: None,
                stream_k: false,
                f32_math: Some(math),
            };
            for path in paths(gpu) {
                let took = run_problem::<f32, f32, f32>(gpu, &p, path, (1.0, 1.0))?;
                // The Hopper path: tf32 with A row-major and B column-major (K-major), row-major D.
                let want = if hopper(gpu) && path.is_none() && math == F32Math::Tf32 && a_row && !b_row && d_row { GemmPath::Sm90 } else { GemmPath::MmaSync };
                if took != want {
                    return Err(format!("{p:?}: took {took:?}, expected {want:?}"));
                }
            }
        }
    }
    // What the f32 kernels do not take is refused by name.
    let parse = |s: &str| Layout::parse(s).map_err(|e| e.to_string());
    let t = |e: cute_rs_host::HostError| e.to_string();
    let x = gpu.alloc::<f32>(64).map_err(fail("alloc"))?;
    let h = gpu.alloc::<bf16>(64).map_err(fail("alloc"))?;
    let bias = gpu.alloc::<f32>(4).map_err(fail("alloc"))?;
    let mut d = gpu.alloc::<f32>(64).map_err(fail("alloc"))?;
    let mut d16 = gpu.alloc::<bf16>(64).map_err(fail("alloc"))?;
    let rm = "(4,4):(4,1)";
    let expect = |r: Result<GemmPath, GemmError>, want: &str| match r {
        Err(e) if e.to_string().contains(want) => Ok(()),
        other => Err(format!("expected an error containing {want:?}, got {other:?}")),
    };
    let mm = Matmul::new();
    expect(mm.run(gpu, x.tensor(parse(rm)?).map_err(t)?, h.tensor(parse(rm)?).map_err(t)?, None, d.tensor_mut(parse(rm)?).map_err(t)?), "A is f32 and B is bf16")?;
    expect(mm.run(gpu, x.tensor(parse(rm)?).map_err(t)?, x.tensor(parse(rm)?).map_err(t)?, None, d16.tensor_mut(parse(rm)?).map_err(t)?), "f32 inputs give an f32 D")?;
    expect(
        mm.bias_per_row(&bias).run(gpu, x.tensor(parse(rm)?).map_err(t)?, x.tensor(parse(rm)?).map_err(t)?, None, d.tensor_mut(parse(rm)?).map_err(t)?),
        "the f32 kernels add no bias",
    )?;
    expect(
        mm.run(gpu, x.tensor(parse(rm)?).map_err(t)?, x.tensor(parse(rm)?).map_err(t)?, None, d.tensor_mut(parse("(4,4):(8,1)")?).map_err(t)?),
        "but D's rows are 8 apart",
    )?;
    expect(
        mm.path(GemmPath::Sm90).run(gpu, x.tensor(parse(rm)?).map_err(t)?, x.tensor(parse(rm)?).map_err(t)?, None, d.tensor_mut(parse(rm)?).map_err(t)?),
        "the Hopper path multiplies f32 inputs as tf32",
    )?;
    Ok(())
}

/// 64 batches of 512 x 512 x 128 bf16 (A row-major, B column-major, bf16 D) in one call, timed as
/// the kernel (events around the call) and as a user sees it (call to synchronization).
fn bench_batched(gpu: &Gpu) -> Result<Vec<Figure>, String> {
    let (l, m, n, k) = (64usize, 512usize, 512usize, 128usize);
    let seed = fresh_seed();
    let a: Vec<bf16> = random_f32(seed, l * m * k).into_iter().map(bf16::from_f32).collect();
    let b: Vec<bf16> = random_f32(seed ^ 0xb, l * n * k).into_iter().map(bf16::from_f32).collect();
    let (da, db) = (gpu.upload(&a).map_err(fail("upload"))?, gpu.upload(&b).map_err(fail("upload"))?);
    let mut dd = gpu.alloc::<bf16>(l * m * n).map_err(fail("alloc"))?;
    let la = Layout::parse(&format!("({m},{k},{l}):({k},1,{})", m * k)).map_err(|e| e.to_string())?;
    let lb = Layout::parse(&format!("({k},{n},{l}):(1,{k},{})", n * k)).map_err(|e| e.to_string())?;
    let ld = Layout::parse(&format!("({m},{n},{l}):({n},1,{})", m * n)).map_err(|e| e.to_string())?;
    let mut path = GemmPath::MmaSync;
    let ms = super::time_median(gpu, 3, 20, || {
        let t = |e: cute_rs_host::HostError| e;
        path = Matmul::new()
            .run(gpu, da.tensor(la).map_err(t)?, db.tensor(lb).map_err(t)?, None, dd.tensor_mut(ld).map_err(t)?)
            .map_err(super::gemm::host_err)?;
        Ok(())
    })?;
    let flops = 2.0 * (l * m * n * k) as f64;
    Ok(vec![
        Figure { what: format!("Matmul batched {l} x {m}x{n}x{k} ({path:?})"), value: flops / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" },
        Figure { what: "time".into(), value: ms as f64, unit: "ms" },
    ])
}

/// The `m x n x k` product of the split-K and stream-K checks: A row-major and B column-major (the
/// storage the split entries take), a row-major D, one batch, alpha and beta with C, a bias per
/// column and SiLU; the library's decomposition.
fn shared_k_problem((m, n, k): (usize, usize, usize)) -> Problem {
    Problem {
        m,
        n,
        k,
        l: 1,
        a: Storage::new(true, 0, None),
        b: Storage::new(false, 0, None),
        d: Storage::new(true, 0, None),
        alpha: 1.25,
        beta: 0.5,
        bias: BiasKind::PerColumn,
        act: Act::Silu,
        splits: None,
        stream_k: false,
        f32_math: None,
    }
}

/// Split-K on the Hopper path: few-row products (one or two consumer slices inside D), K split
/// evenly, unevenly and into more splits than k-tiles (empty splits add zeros), with a bias, an
/// activation and C; each result against the reference, twice in a row (the tile counters must
/// be back at zero after a launch).
fn check_split_k(gpu: &Gpu, _: &Module) -> Result<(), String> {
    if !hopper(gpu) {
        return Err("not an sm_90 GPU: split-K is on the Hopper path".into());
    }
    // The 56-tile product after the 4-tile one: their counters share the workspace's first bytes.
    for (m, n, k, splits) in [(16, 1000, 4096, None), (64, 14336, 1024, Some(2)), (136, 520, 1000, Some(3)), (1, 256, 640, Some(16)), (64, 4096, 2048, Some(8))] {
        let p = Problem { splits, ..shared_k_problem((m, n, k)) };
        for _ in 0..2 {
            run_problem::<bf16, bf16, bf16>(gpu, &p, None, (1.0, 1.0))?;
            run_problem::<f16, f16, f32>(gpu, &p, None, (1.0, 1.0))?;
        }
        // A column-major D: the transposed problem has few columns instead.
        let t = Problem { d: Storage::new(false, 0, None), ..p };
        run_problem::<bf16, bf16, f32>(gpu, &t, None, (1.0, 1.0))?;
    }
    Ok(())
}
/// Stream-K on the Hopper path: products whose tiles are all shared (decode tiles, few 128 x 256
/// tiles, ragged M, N and K) and one with data-parallel waves before the shared tiles, with a
/// bias, an activation and C, each against the reference and twice in a row (the counters must
/// be back at zero). Then, on fixed inputs, three launches into a poisoned f32 D give the same
/// bits.
fn check_stream_k(gpu: &Gpu, _: &Module) -> Result<(), String> {
    use cute_rs_kernels::gemm_sm90_sizes::Decomposition;
    use cute_rs_ops::gemm::{Gemm, Major};
    use cute_rs_ops::gemm_hopper::{HopperGemm, HopperIn, HopperOut};
    if !hopper(gpu) {
        return Err("not an sm_90 GPU: stream-K is on the Hopper path".into());
    }
    let shapes = [(128, 4096, 2048), (16, 1000, 4096), (136, 520, 1000), (256, 4096, 4096), (1, 256, 640), (2048, 4352, 512)];
    for (m, n, k) in shapes {
        // The call takes stream-K (the product has a split entry, one batch).
        let h = HopperGemm::new(Gemm::new(m, n, k).b_major(Major::Col), HopperIn::Bf16, HopperOut::Bf16).stream_k();
        if h.decomposition_on(gpu) != Decomposition::StreamK {
            return Err(format!("{m}x{n}x{k}: stream-K asked for, {:?} taken", h.decomposition_on(gpu)));
        }
        let p = Problem { stream_k: true, ..shared_k_problem((m, n, k)) };
        for _ in 0..2 {
            run_problem::<bf16, bf16, bf16>(gpu, &p, None, (1.0, 1.0))?;
            run_problem::<f16, f16, f32>(gpu, &p, None, (1.0, 1.0))?;
        }
        stream_k_bits::<f32>(gpu, (m, n, k))?;
        stream_k_bits::<bf16>(gpu, (m, n, k))?;
    }
    Ok(())
}

/// Three stream-K launches of `m x n x k` (bf16, A row-major, B column-major) on the same inputs
/// into a D of `O` poisoned before each: the same bits each time.
fn stream_k_bits<O: GemmOutput>(gpu: &Gpu, (m, n, k): (usize, usize, usize)) -> Result<(), String> {
    let seed = fresh_seed();
    let a: Vec<bf16> = random_f32(seed, m * k).into_iter().map(bf16::from_f32).collect();
    let b: Vec<bf16> = random_f32(seed ^ 0xb, k * n).into_iter().map(bf16::from_f32).collect();
    let (da, db) = (gpu.upload(&a).map_err(fail("upload A"))?, gpu.upload(&b).map_err(fail("upload B"))?);
    let mut dd = gpu.alloc::<O>(m * n).map_err(fail("alloc D"))?;
    let layout = |s: String| Layout::parse(&s).map_err(|e| e.to_string());
    let (la, lb, ld) = (layout(format!("({m},{k}):({k},1)"))?, layout(format!("({k},{n}):(1,{k})"))?, layout(format!("({m},{n}):({n},1)"))?);
    let mut first: Option<Vec<u32>> = None;
    for run in 0..3 {
        gpu.memset(&mut dd, 0xff).map_err(fail("poison D"))?;
        let tensor = |e: cute_rs_host::HostError| e.to_string();
        let path = Matmul::new()
            .stream_k()
            .run(gpu, da.tensor(la.clone()).map_err(tensor)?, db.tensor(lb.clone()).map_err(tensor)?, None, dd.tensor_mut(ld.clone()).map_err(tensor)?)
            .map_err(|e| format!("{m}x{n}x{k} stream-K: {e}"))?;
        if path != GemmPath::Sm90 {
            return Err(format!("{m}x{n}x{k} stream-K ran on {path:?}"));
        }
        let bits: Vec<u32> = gpu.download(&dd).map_err(fail("download D"))?.into_iter().map(|x| x.value().to_bits()).collect();
        match &first {
            None => first = Some(bits),
            Some(want) => {
                if let Some(i) = (0..bits.len()).find(|&i| bits[i] != want[i]) {
                    return Err(format!("{m}x{n}x{k} stream-K into {} (seed {seed}): run {run} differs at D[{}][{}]: {:#x}, first run {:#x}", O::NAME, i / n, i % n, bits[i], want[i]));
                }
            }
        }
    }
    Ok(())
}
