//! Fused attention forward through the library call ([`cute_rs_ops::attention::Attention`]) on both of
//! its kernels: the Hopper one (TMA, `wgmma`, warp specialization; sm_90 only) and the portable
//! one on block tiles (`mma.sync`; also the CPU backend). Checked against an f64 reference on
//! fresh random data with poisoned outputs: bf16 and f16, head dimensions 64, 128 and 256, causal
//! and not, ragged and unequal sequence lengths (queries that see no key), grouped-query heads,
//! padded row strides, and more tiles than SMs (persistent blocks taking several).

use cute_rs_host::Gpu;
use cute_rs_layout::Layout;
use cute_rs_tensor::half::{bf16, f16};

use cute_rs_ops::attention::{Attention, AttentionElem, AttentionPath, AttentionSchedule};

use super::{fail, fresh_seed, median, random_f32, time_median, Bench, Check, Figure};

/// How a check or a benchmark runs the Hopper kernel: under one of the operations' schedules, or
/// as one of the measured steps before them (the test harness's kernels,
/// `test_kernels::attention_sm90_steps`: bf16 at head dimension 64 or 128, one block per tile).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Run {
    Schedule(AttentionSchedule),
    Serial,
    Overlap,
}

impl Run {
    /// The call `a`, run this way at head dimension `d`.
    fn call<'a>(self, a: Attention<'a>, d: usize) -> Result<Attention<'a>, String> {
        use test_kernels::attention_sm90_steps as steps;
        let step = |kernel| Ok(a.schedule(AttentionSchedule::PingPong).sm90_kernel(&crate::TEST_KERNELS_SM90A, kernel));
        match (self, d) {
            (Run::Schedule(schedule), _) => Ok(a.schedule(schedule)),
            (Run::Serial, 64) => step(steps::attention_sm90_bf16_d64_serial),
            (Run::Serial, 128) => step(steps::attention_sm90_bf16_d128_serial),
            (Run::Overlap, 64) => step(steps::attention_sm90_bf16_d64_overlap),
            (Run::Overlap, 128) => step(steps::attention_sm90_bf16_d128_overlap),
            _ => Err(format!("no {self:?} step at head dimension {d}")),
        }
    }
}

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            name: "attention/forward, Hopper kernel (TMA + wgmma; bf16, f16; head_dim 64, 128, 256; causal, ragged, GQA, padded strides, persistent)",
            run: |gpu, _| check_path(gpu, AttentionPath::Sm90),
        },
        Check {
            name: "attention/forward, portable kernel on block tiles (mma.sync; bf16, f16; head_dim 64, 128, 256; causal, ragged, GQA, padded strides)",
            run: |gpu, _| check_path(gpu, AttentionPath::MmaSync),
        },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "attention/forward, Hopper kernel at the sizes of the torch SDPA peer (bench/peers/torch_sdpa.py)", run: bench_attention }]
}

/// The benchmark's sizes (FlashAttention-3's): bf16, 16k tokens per batch (`batch * seqlen`),
/// 2048 model dimensions (`heads * head_dim`), sequence lengths 512 to 16k, head dimensions 64
/// and 128, causal and not; head dimension 256 at 1k, 4k and 16k. For each: TFLOP/s counted as FlashAttention does (`4 batch heads
/// seqlen^2 head_dim`, halved for causal) from the kernel's median time (CUDA events), for the
/// default schedule, the three steps before it and the portable kernel, and the median time a user
/// sees (the host call until the GPU is done).
fn bench_attention(gpu: &Gpu, _: &cute_rs_host::Module) -> Result<Vec<Figure>, String> {
    if gpu.is_cpu() || gpu.properties().compute_capability != (9, 0) {
        return Err("the Hopper kernel needs an sm_90 GPU".to_string());
    }
    let mut figures = Vec::new();
    for d in [64, 128, 256] {
        for causal in [false, true] {
            let seqlens: &[usize] = if d == 256 { &[1024, 4096, 16384] } else { &[512, 1024, 2048, 4096, 8192, 16384] };
            for &seqlen in seqlens {
                let (batch, heads) = (16384 / seqlen, 2048 / d);
                let p = Problem { batch, heads, heads_kv: heads, seqlen_q: seqlen, seqlen_k: seqlen, d, causal, pad: 0, scale: None };
                let ((lq, n), lse_layout) = (p.layout(false), p.lse_layout());
                let data = |s: u64| -> Vec<bf16> { random_f32(s, n).into_iter().map(bf16::from_f32).collect() };
                let seed = fresh_seed();
                let (q, k, v) = (gpu.upload(&data(seed)).map_err(fail("upload"))?, gpu.upload(&data(seed ^ 1)).map_err(fail("upload"))?, gpu.upload(&data(seed ^ 2)).map_err(fail("upload"))?);
                let mut o = gpu.alloc::<bf16>(n).map_err(fail("alloc"))?;
                let mut lse = gpu.alloc::<f32>(batch * heads * seqlen).map_err(fail("alloc"))?;
                let mut run_on = |path, how: Run| -> cute_rs_host::Result<()> {
                    let call = how.call(Attention::new().causal(causal).path(path), d).map_err(cute_rs_host::HostError::Invalid)?;
                    let r = call.run(gpu, q.tensor(lq.clone())?, k.tensor(lq.clone())?, v.tensor(lq.clone())?, o.tensor_mut(lq.clone())?, lse.tensor_mut(lse_layout.clone())?);
                    r.map(|_| ()).map_err(|e| cute_rs_host::HostError::Invalid(e.to_string()))
                };
                let flop = 4.0 * (batch * heads * d) as f64 * (seqlen * seqlen) as f64 / if causal { 2.0 } else { 1.0 };
                let name = format!("attention bf16 d{d} seqlen {seqlen} batch {batch} heads {heads}{}", if causal { " causal" } else { "" });
                // The earlier steps first (the default last, right before its call-to-completion
                // times).
                let steps = [(Run::Serial, "serial"), (Run::Overlap, "overlap"), (Run::Schedule(AttentionSchedule::PingPong), "ping-pong")];
                // Head dimension 256 has the ping-pong and the persistent schedule only.
                for (schedule, step) in steps.into_iter().skip(if d == 256 { 2 } else { 0 }) {
                    let ms = time_median(gpu, 3, 15, || run_on(AttentionPath::Sm90, schedule))?;
                    figures.push(Figure { what: format!("{name}: ours, {step}"), value: flop / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" });
                }
                // The portable kernel (mma.sync, FlashAttention-2's design) on the same data.
                let ms = time_median(gpu, 3, 15, || run_on(AttentionPath::MmaSync, Run::Schedule(AttentionSchedule::default())))?;
                figures.push(Figure { what: format!("{name}: ours, portable"), value: flop / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" });
                let mut run = || run_on(AttentionPath::Sm90, Run::Schedule(AttentionSchedule::Persistent));
                let ms = time_median(gpu, 3, 15, &mut run)?;
                // The time a user sees: the call, then until the GPU is done.
                let mut user = Vec::new();
                for _ in 0..7 {
                    let start = std::time::Instant::now();
                    run().map_err(fail("run"))?;
                    gpu.synchronize().map_err(fail("synchronize"))?;
                    user.push(start.elapsed().as_secs_f32() * 1e3);
                }
                figures.push(Figure { what: format!("{name}: ours"), value: flop / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" });
                figures.push(Figure { what: format!("{name}: ours, kernel"), value: ms as f64 * 1e3, unit: "us" });
                figures.push(Figure { what: format!("{name}: ours, call to completion"), value: median(user) as f64 * 1e3, unit: "us" });
            }
        }
    }
    Ok(figures)
}

/// One problem: `batch` sequences of `seqlen_q` queries and `seqlen_k` keys, `heads` query heads
/// over `heads_kv` key/value heads, head dimension `d`; every row of Q, K, V and O `pad`
/// elements longer than its heads; the softmax scale `scale` (`None`: the default,
/// `1 / sqrt(d)`).
#[derive(Clone, Copy, Debug)]
pub struct Problem {
    pub batch: usize,
    pub heads: usize,
    pub heads_kv: usize,
    pub seqlen_q: usize,
    pub seqlen_k: usize,
    pub d: usize,
    pub causal: bool,
    pub pad: usize,
    pub scale: Option<f32>,
}

impl Problem {
    /// The `(batch, seqlen, heads, head_dim)` layout of Q and O (`kv`: of K and V), and the
    /// elements its buffer holds.
    pub fn layout(&self, kv: bool) -> (Layout, usize) {
        let (s, h) = if kv { (self.seqlen_k, self.heads_kv) } else { (self.seqlen_q, self.heads) };
        let row = h * self.d + self.pad;
        let text = format!("({},{s},{h},{}):({},{row},{},1)", self.batch, self.d, s * row, self.d);
        (Layout::parse(&text).expect("a valid layout"), self.batch * s * row)
    }

    /// The log-sum-exp's layout, `(batch, heads, seqlen_q)` contiguous.
    pub fn lse_layout(&self) -> Layout {
        let text = format!("({},{},{}):({},{},1)", self.batch, self.heads, self.seqlen_q, self.heads * self.seqlen_q, self.seqlen_q);
        Layout::parse(&text).expect("a valid layout")
    }
}

/// The reference: O (in Q's layout) and the natural log-sum-exp (`batch, heads, seqlen_q`) in f64
/// from the 16-bit inputs, causal masks aligned to the bottom right.
fn reference(p: &Problem, q: &[f64], k: &[f64], v: &[f64], scale: f64) -> (Vec<f64>, Vec<f64>) {
    let (lq, nq) = p.layout(false);
    let (lk, _) = p.layout(true);
    let (sq, sk) = (strides(&lq), strides(&lk));
    let idx = |l: &[usize; 4], b: usize, s: usize, h: usize, x: usize| b * l[0] + s * l[1] + h * l[2] + x * l[3];
    let (mut o, mut lse) = (vec![0.0; nq], vec![f64::NEG_INFINITY; p.batch * p.heads * p.seqlen_q]);
    let group = p.heads / p.heads_kv;
    for b in 0..p.batch {
        for h in 0..p.heads {
            let hk = h / group;
            for i in 0..p.seqlen_q {
                let visible = |j: usize| !p.causal || j as i64 <= i as i64 + p.seqlen_k as i64 - p.seqlen_q as i64;
                let scores: Vec<(usize, f64)> = (0..p.seqlen_k)
                    .filter(|&j| visible(j))
                    .map(|j| {
                        let dot: f64 = (0..p.d).map(|x| q[idx(&sq, b, i, h, x)] * k[idx(&sk, b, j, hk, x)]).sum();
                        (j, dot * scale)
                    })
                    .collect();
                if scores.is_empty() {
                    continue;
                }
                let max = scores.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = scores.iter().map(|s| (s.1 - max).exp()).sum();
                lse[(b * p.heads + h) * p.seqlen_q + i] = max + sum.ln();
                let weights: Vec<(usize, f64)> = scores.iter().map(|&(j, s)| (j, (s - max).exp() / sum)).collect();
                for x in 0..p.d {
                    let out: f64 = weights.iter().map(|&(j, w)| w * v[idx(&sk, b, j, hk, x)]).sum();
                    o[idx(&sq, b, i, h, x)] = out;
                }
            }
        }
    }
    (o, lse)
}

/// The element strides of a `(batch, seqlen, heads, head_dim)` layout (the problems' layouts
/// have non-negative strides).
pub(super) fn strides(l: &Layout) -> [usize; 4] {
    let stride = l.stride();
    let st = stride.leaves();
    std::array::from_fn(|i| st[i] as usize)
}

fn check_path(gpu: &Gpu, path: AttentionPath) -> Result<(), String> {
    let p = |batch, heads, heads_kv, seqlen_q, seqlen_k, d, causal, pad| Problem { batch, heads, heads_kv, seqlen_q, seqlen_k, d, causal, pad, scale: None };
    // A sharp softmax (scores spread over about 20 powers of two): later key blocks often raise
    // a row's maximum past the threshold under which the Hopper kernel keeps it, so that O's
    // rescale runs inside the loop too.
    let sharp = |problem: Problem| Problem { scale: Some(4.0), ..problem };
    match path {
        AttentionPath::Sm90 => {
            if gpu.properties().compute_capability != (9, 0) {
                return Err("the Hopper kernel needs an sm_90 GPU".to_string());
            }
            // Some have more tiles (query blocks x heads x batch) than an H100 has SMs:
            // persistent blocks take several, and the producer loads a tile's Q while earlier
            // tiles run. Where a block takes three tiles or more, a tile's Q reuses a buffer that
            // the consumers released (6 x 24 x 260 x 140 at d128, 4 x 32 x 400 x 300 causal at
            // d64).
            let problems = [
                p(2, 4, 2, 77, 130, 128, false, 0),
                p(1, 2, 2, 300, 520, 128, true, 0),
                p(1, 3, 3, 256, 256, 128, true, 16),
                p(6, 8, 8, 300, 200, 128, false, 0),
                p(6, 24, 8, 260, 140, 128, false, 0),
                p(1, 2, 1, 150, 100, 64, true, 8),
                p(2, 2, 2, 129, 700, 64, false, 0),
                p(1, 4, 1, 200, 333, 64, true, 0),
                p(8, 8, 2, 300, 260, 64, true, 0),
                p(4, 32, 8, 400, 300, 64, true, 0),
                // From 2k keys without a mask, head dimension 64 runs the wide blocks (192 rows).
                p(1, 2, 1, 190, 2100, 64, false, 0),
                p(2, 24, 8, 400, 2048, 64, false, 8),
                // From 8k keys under a causal mask too (ragged: the mask's diagonal crosses the
                // 192-row tiles off their boundaries).
                p(1, 2, 1, 333, 8300, 64, true, 0),
                sharp(p(1, 2, 1, 300, 1100, 64, false, 0)),
                sharp(p(2, 4, 2, 200, 700, 128, true, 0)),
                sharp(p(1, 2, 1, 150, 2100, 256, false, 0)),
                // From 2k keys without a mask, head dimension 256 reads 80 keys per step (the
                // long kernels) and stages O in Q's one buffer: 280 tiles of 3 queries, so that
                // persistent blocks take two tiles and reuse it.
                p(1, 2, 1, 190, 2100, 256, false, 0),
                p(140, 2, 1, 3, 2048, 256, false, 8),
                p(2, 2, 1, 200, 333, 256, true, 0),
                p(1, 2, 2, 129, 150, 256, false, 8),
                p(5, 16, 4, 200, 150, 256, true, 0),
            ];
            for problem in problems {
                let (persistent, pingpong) = (Run::Schedule(AttentionSchedule::Persistent), Run::Schedule(AttentionSchedule::PingPong));
                let runs: &[Run] = if problem.d == 256 { &[persistent, pingpong] } else { &[persistent, pingpong, Run::Overlap, Run::Serial] };
                check::<bf16>(gpu, problem, path, runs)?;
                check::<f16>(gpu, problem, path, &[persistent])?;
            }
        }
        AttentionPath::MmaSync => {
            let problems = [
                p(2, 4, 2, 77, 130, 64, false, 0),
                p(2, 4, 2, 77, 130, 64, true, 8),
                p(1, 2, 1, 150, 100, 64, true, 0),
                p(1, 3, 3, 64, 64, 64, false, 0),
            ];
            for problem in problems {
                check::<f16>(gpu, problem, path, &[Run::Schedule(AttentionSchedule::default())])?;
            }
            // bf16 at each head dimension, f16 at 128 and 256 too on a GPU (the CPU backend
            // takes about 10 s per problem there): head dimensions 128 and 256 run on the program
            // of 8 warps.
            let wider = [p(1, 2, 1, 70, 100, 64, true, 0), p(1, 2, 1, 100, 130, 128, true, 8), p(1, 1, 1, 70, 90, 256, false, 0), p(1, 1, 1, 65, 40, 256, true, 0)];
            for problem in wider {
                check::<bf16>(gpu, problem, path, &[Run::Schedule(AttentionSchedule::default())])?;
                if problem.d != 64 && !gpu.is_cpu() {
                    check::<f16>(gpu, problem, path, &[Run::Schedule(AttentionSchedule::default())])?;
                }
            }
        }
    }
    Ok(())
}

/// Runs problem `p` in element type `T` on `path` (the Hopper kernel run each way of `runs`, on
/// one draw of data) and compares O and the log-sum-exp with the reference.
fn check<T: AttentionElem + CheckElem>(gpu: &Gpu, p: Problem, path: AttentionPath, runs: &[Run]) -> Result<(), String> {
    let seed = fresh_seed();
    let ((lq, nq), (lk, nk)) = (p.layout(false), p.layout(true));
    let data = |n: usize, s: u64| -> Vec<T> { random_f32(s, n).into_iter().map(T::from_f32).collect() };
    let (q, k, v) = (data(nq, seed), data(nk, seed ^ 0x51), data(nk, seed ^ 0xa7));
    let scale = p.scale.unwrap_or(1.0 / (p.d as f32).sqrt());
    let wide = |x: &[T]| -> Vec<f64> { x.iter().map(|v| v.to_f64()).collect() };
    let (want_o, want_lse) = reference(&p, &wide(&q), &wide(&k), &wide(&v), scale as f64);
    let (dq, dk, dv) = (gpu.upload(&q).map_err(fail("upload"))?, gpu.upload(&k).map_err(fail("upload"))?, gpu.upload(&v).map_err(fail("upload"))?);
    let sq = strides(&lq);
    for &how in runs {
        let mut o = gpu.alloc::<T>(nq).map_err(fail("alloc"))?;
        let mut lse = gpu.alloc::<f32>(p.batch * p.heads * p.seqlen_q).map_err(fail("alloc"))?;
        gpu.memset(&mut o, 0xff).map_err(fail("poison"))?;
        gpu.memset(&mut lse, 0xff).map_err(fail("poison"))?;
        let what = format!("attention {} {p:?} on {path:?}, {how:?} (seed {seed})", T::NAME);
        let took = how
            .call(Attention::new().scale(scale).causal(p.causal).path(path), p.d)?
            .run(
                gpu,
                dq.tensor(lq.clone()).map_err(fail("Q"))?,
                dk.tensor(lk.clone()).map_err(fail("K"))?,
                dv.tensor(lk.clone()).map_err(fail("V"))?,
                o.tensor_mut(lq.clone()).map_err(fail("O"))?,
                lse.tensor_mut(p.lse_layout()).map_err(fail("lse"))?,
            )
            .map_err(fail(&what))?;
        if took != path {
            return Err(format!("{what}: took {took:?}"));
        }
        gpu.synchronize().map_err(fail("synchronize"))?;
        let got_o: Vec<f64> = gpu.download(&o).map_err(fail("download"))?.iter().map(|v| v.to_f64()).collect();
        let got_lse: Vec<f32> = gpu.download(&lse).map_err(fail("download"))?;
        // Only O's elements (the padding stays poisoned); P is rounded to T before `P V`, and O
        // stored in T.
        let tol = T::TOLERANCE;
        for b in 0..p.batch {
            for s in 0..p.seqlen_q {
                for h in 0..p.heads {
                    for x in 0..p.d {
                        let i = b * sq[0] + s * sq[1] + h * sq[2] + x * sq[3];
                        if !((got_o[i] - want_o[i]).abs() <= tol + tol * want_o[i].abs()) {
                            return Err(format!("{what}: O[{b}, {s}, {h}, {x}] is {}, expected {}", got_o[i], want_o[i]));
                        }
                    }
                }
            }
        }
        if let Some(i) = (0..got_lse.len()).find(|&i| !(got_lse[i] as f64 == want_lse[i] || (got_lse[i] as f64 - want_lse[i]).abs() <= 1e-4 * (1.0 + want_lse[i].abs()))) {
            return Err(format!("{what}: lse element {i} is {}, expected {}", got_lse[i], want_lse[i]));
        }
    }
    Ok(())
}

/// The element types the check draws data in, and O's tolerance: that of P rounded to the type
/// before `P V` and of O stored in it.
pub trait CheckElem: Copy {
    /// Relative and absolute tolerance of O.
    const TOLERANCE: f64;
    fn from_f32(x: f32) -> Self;
    fn to_f64(self) -> f64;
}

impl CheckElem for f16 {
    const TOLERANCE: f64 = 4e-3;
    fn from_f32(x: f32) -> Self {
        f16::from_f32(x)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
}

impl CheckElem for bf16 {
    const TOLERANCE: f64 = 1.6e-2;
    fn from_f32(x: f32) -> Self {
        bf16::from_f32(x)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
}
