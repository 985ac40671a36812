//! Fused attention backward through the library call
//! ([`cute_rs_ops::attention::Attention::backward`]): the forward through
//! [`Attention::run`](cute_rs_ops::attention::Attention::run) as a user calls it, then dQ, dK and
//! dV, checked against an f64 reference of the gradients' formulas on fresh random data with
//! poisoned outputs (bf16 and f16, head dimensions 64 and 128, causal and not, ragged and unequal
//! lengths, grouped-query heads, padded row strides): the Hopper kernel (the default path on
//! sm_90) and the portable kernels, each atomically accumulated and deterministic, the
//! deterministic gradients bitwise the same on a second run. The reference itself is checked
//! against central differences of the f64 forward on a tiny problem.

use cute_rs_host::{DeviceBuffer, Gpu};
use cute_rs_tensor::half::{bf16, f16};

use cute_rs_ops::attention::{Attention, AttentionElem, AttentionPath};
use cute_rs_ops::attention_backward::{AttentionGrads, AttentionSaved, AttentionWorkspace};

use super::attention::{CheckElem, Problem};
use super::{fail, fresh_seed, random_f32, time_median, Bench, Check, Figure};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "attention/backward reference: the gradients' formulas against central differences (f64, causal and not, GQA)", run: |_, _| check_reference() },
        Check {
            name: "attention/backward, portable kernels (bf16, f16; head_dim 64, 128; causal, ragged, GQA, padded strides; atomic and deterministic dQ)",
            run: |gpu, _| check_backward(gpu, false),
        },
        Check {
            name: "attention/backward, Hopper kernel, the default path on sm_90 (bf16, f16; head_dim 64, 128; causal, ragged, GQA, padded strides; atomic and deterministic dQ)",
            run: |gpu, _| check_backward(gpu, true),
        },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "attention/backward at the sizes of bench/peers/torch_sdpa_backward.py (bf16, 16k tokens, model dimension 2048)", run: |gpu, _| bench_backward(gpu) }]
}

/// The backward (the default path and the portable kernels, atomic and deterministic) at FlashAttention-3's sizes: bf16, 16k tokens
/// (`batch * seqlen`), 2048 model dimensions (`heads * head_dim`), head dimensions 64 and 128,
/// causal and not; TFLOP/s as FlashAttention counts the backward (2.5 times the forward's
/// `4 batch heads seqlen^2 head_dim`, halved for causal). CUDA events, median of 10 after 2
/// warm-ups, on one forward's O and log-sum-exp.
fn bench_backward(gpu: &Gpu) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for d in [64usize, 128] {
        for causal in [false, true] {
            for seqlen in [1024usize, 4096, 16384] {
                let (batch, heads) = (16384 / seqlen, 2048 / d);
                let p = Problem { batch, heads, heads_kv: heads, seqlen_q: seqlen, seqlen_k: seqlen, d, causal, pad: 0, scale: None };
                let ((lq, nq), (lk, nk)) = (p.layout(false), p.layout(true));
                let draw = |n: usize, s: u64| -> Vec<bf16> { random_f32(s, n).into_iter().map(bf16::from_f32).collect() };
                let up = |x: Vec<bf16>| gpu.upload(&x).map_err(fail("upload"));
                let (q, k, v, d_o) = (up(draw(nq, 1))?, up(draw(nk, 2))?, up(draw(nk, 3))?, up(draw(nq, 4))?);
                let mut o = gpu.alloc::<bf16>(nq).map_err(fail("alloc"))?;
                let mut lse = gpu.alloc::<f32>(batch * heads * seqlen).map_err(fail("alloc"))?;
                let attention = Attention::new().causal(causal);
                attention
                    .run(gpu, q.tensor(lq.clone()).map_err(fail("Q"))?, k.tensor(lk.clone()).map_err(fail("K"))?, v.tensor(lk.clone()).map_err(fail("V"))?, o.tensor_mut(lq.clone()).map_err(fail("O"))?, lse.tensor_mut(p.lse_layout()).map_err(fail("lse"))?)
                    .map_err(fail("the forward"))?;
                let (mut dq, mut dk, mut dv) = (gpu.alloc::<bf16>(nq).map_err(fail("alloc"))?, gpu.alloc::<bf16>(nk).map_err(fail("alloc"))?, gpu.alloc::<bf16>(nk).map_err(fail("alloc"))?);
                let mut workspace = AttentionWorkspace::new(gpu, batch, heads, seqlen, d).map_err(fail("workspace"))?;
                let flop = 2.5 * 4.0 * (batch * heads * seqlen * seqlen * d) as f64 / if causal { 2.0 } else { 1.0 };
                // The default path (the Hopper kernel on an sm_90 GPU) and the portable kernels,
                // each with atomic and deterministic dQ.
                for (label, path, deterministic) in
                    [("", None, false), (" deterministic", None, true), (" portable", Some(AttentionPath::MmaSync), false), (" portable deterministic", Some(AttentionPath::MmaSync), true)]
                {
                    let call = match path {
                        Some(path) => attention.path(path),
                        None => attention,
                    };
                    let ms = time_median(gpu, 2, 10, || {
                        let saved = AttentionSaved { q: q.tensor(lq.clone())?, k: k.tensor(lk.clone())?, v: v.tensor(lk.clone())?, o: o.tensor(lq.clone())?, lse: lse.tensor(p.lse_layout())? };
                        let grads = AttentionGrads { d_o: d_o.tensor(lq.clone())?, dq: dq.tensor_mut(lq.clone())?, dk: dk.tensor_mut(lk.clone())?, dv: dv.tensor_mut(lk.clone())? };
                        call.deterministic(deterministic).backward(gpu, saved, grads, &mut workspace).map(|_| ()).map_err(|e| cute_rs_host::HostError::Invalid(e.to_string()))
                    })?;
                    let what = format!("backward bf16 d{d} seqlen {seqlen} batch {batch} heads {heads}{}{label}", if causal { " causal" } else { "" });
                    figures.push(Figure { what, value: flop / (ms as f64 * 1e-3) / 1e12, unit: "TFLOP/s" });
                }
            }
        }
    }
    Ok(figures)
}

/// Element offset of `(b, s, h, x)` in a layout of strides `st`.
fn at(st: &[usize; 4], b: usize, s: usize, h: usize, x: usize) -> usize {
    b * st[0] + s * st[1] + h * st[2] + x * st[3]
}

fn strides(p: &Problem, kv: bool) -> [usize; 4] {
    super::attention::strides(&p.layout(kv).0)
}

/// The f64 forward of one problem: O (Q's layout) and each row's softmax weights, by
/// `(b, h, i)`: `(key, weight)` over the visible keys.
fn forward(p: &Problem, q: &[f64], k: &[f64], v: &[f64], scale: f64) -> (Vec<f64>, Vec<Vec<(usize, f64)>>) {
    let (sq, sk) = (strides(p, false), strides(p, true));
    let (_, nq) = p.layout(false);
    let mut o = vec![0.0; nq];
    let mut weights = Vec::with_capacity(p.batch * p.heads * p.seqlen_q);
    let group = p.heads / p.heads_kv;
    for b in 0..p.batch {
        for h in 0..p.heads {
            for i in 0..p.seqlen_q {
                let visible = |j: usize| !p.causal || j as i64 <= i as i64 + p.seqlen_k as i64 - p.seqlen_q as i64;
                let scores: Vec<(usize, f64)> = (0..p.seqlen_k)
                    .filter(|&j| visible(j))
                    .map(|j| (j, scale * (0..p.d).map(|x| q[at(&sq, b, i, h, x)] * k[at(&sk, b, j, h / group, x)]).sum::<f64>()))
                    .collect();
                let max = scores.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = scores.iter().map(|s| (s.1 - max).exp()).sum();
                let w: Vec<(usize, f64)> = scores.iter().map(|&(j, s)| (j, (s - max).exp() / sum)).collect();
                for x in 0..p.d {
                    o[at(&sq, b, i, h, x)] = w.iter().map(|&(j, w)| w * v[at(&sk, b, j, h / group, x)]).sum();
                }
                weights.push(w);
            }
        }
    }
    (o, weights)
}

/// The f64 gradients by their formulas: `dV = P^T dO`, `dS = P ∘ (dO V^T - rowsum(dO ∘ O))`,
/// `dK = scale dS^T Q`, `dQ = scale dS K` (grouped-query heads summed into their K/V head).
fn reference(p: &Problem, q: &[f64], k: &[f64], v: &[f64], d_o: &[f64], scale: f64) -> [Vec<f64>; 3] {
    let (sq, sk) = (strides(p, false), strides(p, true));
    let ((_, nq), (_, nk)) = (p.layout(false), p.layout(true));
    let (o, weights) = forward(p, q, k, v, scale);
    let (mut dq, mut dk, mut dv) = (vec![0.0; nq], vec![0.0; nk], vec![0.0; nk]);
    let group = p.heads / p.heads_kv;
    for b in 0..p.batch {
        for h in 0..p.heads {
            let hk = h / group;
            for i in 0..p.seqlen_q {
                let w = &weights[(b * p.heads + h) * p.seqlen_q + i];
                let delta: f64 = (0..p.d).map(|x| d_o[at(&sq, b, i, h, x)] * o[at(&sq, b, i, h, x)]).sum();
                for &(j, pij) in w {
                    let dp: f64 = (0..p.d).map(|x| d_o[at(&sq, b, i, h, x)] * v[at(&sk, b, j, hk, x)]).sum();
                    let ds = pij * (dp - delta);
                    for x in 0..p.d {
                        dv[at(&sk, b, j, hk, x)] += pij * d_o[at(&sq, b, i, h, x)];
                        dk[at(&sk, b, j, hk, x)] += scale * ds * q[at(&sq, b, i, h, x)];
                        dq[at(&sq, b, i, h, x)] += scale * ds * k[at(&sk, b, j, hk, x)];
                    }
                }
            }
        }
    }
    [dq, dk, dv]
}

/// The reference's gradients equal central differences of `L = sum(dO ∘ O)` on tiny problems,
/// at every element of Q, K and V.
fn check_reference() -> Result<(), String> {
    let p = |heads, heads_kv, seqlen_q, seqlen_k, d, causal| Problem { batch: 1, heads, heads_kv, seqlen_q, seqlen_k, d, causal, pad: 0, scale: None };
    for problem in [p(1, 1, 3, 5, 4, false), p(2, 1, 4, 3, 3, true), p(2, 2, 5, 5, 2, true)] {
        let ((_, nq), (_, nk)) = (problem.layout(false), problem.layout(true));
        let seed = fresh_seed();
        let draw = |n: usize, s: u64| -> Vec<f64> { random_f32(s, n).into_iter().map(f64::from).collect() };
        let (q, k, v, d_o) = (draw(nq, seed), draw(nk, seed ^ 1), draw(nk, seed ^ 2), draw(nq, seed ^ 3));
        let scale = 0.7;
        let grads = reference(&problem, &q, &k, &v, &d_o, scale);
        let loss = |q: &[f64], k: &[f64], v: &[f64]| -> f64 { forward(&problem, q, k, v, scale).0.iter().zip(&d_o).map(|(o, g)| o * g).sum() };
        let eps = 1e-5;
        for (which, name) in [(0usize, "dQ"), (1, "dK"), (2, "dV")] {
            let len = if which == 0 { nq } else { nk };
            for e in 0..len {
                let mut inputs = [q.clone(), k.clone(), v.clone()];
                inputs[which][e] += eps;
                let up = loss(&inputs[0], &inputs[1], &inputs[2]);
                inputs[which][e] -= 2.0 * eps;
                let down = loss(&inputs[0], &inputs[1], &inputs[2]);
                let numeric = (up - down) / (2.0 * eps);
                if (numeric - grads[which][e]).abs() > 1e-6 * (1.0 + numeric.abs()) {
                    return Err(format!("{problem:?}: {name}[{e}] is {} by the formulas, {numeric} by central differences (seed {seed})", grads[which][e]));
                }
            }
        }
    }
    Ok(())
}

fn check_backward(gpu: &Gpu, hopper: bool) -> Result<(), String> {
    let p = |batch, heads, heads_kv, seqlen_q, seqlen_k, d, causal, pad| Problem { batch, heads, heads_kv, seqlen_q, seqlen_k, d, causal, pad, scale: None };
    // The CPU backend runs one GPU thread at a time: small problems there, more on a GPU.
    let mut problems = vec![p(1, 2, 1, 70, 100, 64, true, 8), p(1, 2, 2, 100, 70, 64, false, 0), p(1, 1, 1, 65, 130, 128, true, 0)];
    if !gpu.is_cpu() {
        problems.extend([
            p(2, 4, 2, 77, 130, 64, false, 0),
            p(2, 4, 2, 300, 200, 64, true, 8),
            p(1, 8, 2, 256, 512, 128, true, 0),
            p(2, 4, 4, 129, 333, 128, false, 16),
            Problem { scale: Some(2.0), ..p(1, 2, 1, 200, 300, 128, false, 0) },
        ]);
    }
    for (n, problem) in problems.into_iter().enumerate() {
        // bf16 everywhere; f16 too on a GPU, and on the CPU backend for the first problem.
        check::<bf16>(gpu, problem, hopper)?;
        if n == 0 || !gpu.is_cpu() {
            check::<f16>(gpu, problem, hopper)?;
        }
    }
    Ok(())
}

/// Runs problem `p` in `T`: the forward, then the backward with atomic dQ and twice
/// deterministic, on the default path, which must be the Hopper kernel (`hopper`), or on the
/// portable kernels; compares dQ, dK and dV with the reference, and the two deterministic runs bit
/// for bit.
fn check<T: AttentionElem + CheckElem>(gpu: &Gpu, p: Problem, hopper: bool) -> Result<(), String> {
    let seed = fresh_seed();
    let ((lq, nq), (lk, nk)) = (p.layout(false), p.layout(true));
    let draw = |n: usize, s: u64| -> Vec<T> { random_f32(s, n).into_iter().map(T::from_f32).collect() };
    let (q, k, v, d_o) = (draw(nq, seed), draw(nk, seed ^ 0x51), draw(nk, seed ^ 0xa7), draw(nq, seed ^ 0x3c));
    let scale = p.scale.unwrap_or(1.0 / (p.d as f32).sqrt());
    let wide = |x: &[T]| -> Vec<f64> { x.iter().map(|v| v.to_f64()).collect() };
    let want = reference(&p, &wide(&q), &wide(&k), &wide(&v), &wide(&d_o), scale as f64);
    let up = |x: &[T]| gpu.upload(x).map_err(fail("upload"));
    let (dq_in, dk_in, dv_in, ddo) = (up(&q)?, up(&k)?, up(&v)?, up(&d_o)?);
    let mut o = gpu.alloc::<T>(nq).map_err(fail("alloc"))?;
    let mut lse = gpu.alloc::<f32>(p.batch * p.heads * p.seqlen_q).map_err(fail("alloc"))?;
    let attention = Attention::new().scale(scale).causal(p.causal);
    attention
        .run(gpu, dq_in.tensor(lq.clone()).map_err(fail("Q"))?, dk_in.tensor(lk.clone()).map_err(fail("K"))?, dv_in.tensor(lk.clone()).map_err(fail("V"))?, o.tensor_mut(lq.clone()).map_err(fail("O"))?, lse.tensor_mut(p.lse_layout()).map_err(fail("lse"))?)
        .map_err(fail("the forward"))?;
    let mut workspace = AttentionWorkspace::new(gpu, p.batch, p.heads, p.seqlen_q, p.d).map_err(fail("workspace"))?;
    let (sq, sk) = (strides(&p, false), strides(&p, true));
    let mut deterministic_runs: Vec<[Vec<T>; 3]> = Vec::new();
    let hopper_runs = [(None, false, AttentionPath::Sm90), (None, true, AttentionPath::Sm90), (None, true, AttentionPath::Sm90)];
    let portable = Some(AttentionPath::MmaSync);
    let portable_runs = [(portable, false, AttentionPath::MmaSync), (portable, true, AttentionPath::MmaSync), (portable, true, AttentionPath::MmaSync)];
    for &(forced, deterministic, expected) in if hopper { &hopper_runs[..] } else { &portable_runs[..] } {
        let what = format!("attention backward {} {p:?}, {expected:?}, deterministic {deterministic} (seed {seed})", T::NAME);
        let poisoned = |n: usize| -> Result<DeviceBuffer<T>, String> {
            let mut b = gpu.alloc::<T>(n).map_err(fail("alloc"))?;
            gpu.memset(&mut b, 0xff).map_err(fail("poison"))?;
            Ok(b)
        };
        let (mut dq, mut dk, mut dv) = (poisoned(nq)?, poisoned(nk)?, poisoned(nk)?);
        let call = match forced {
            Some(path) => attention.path(path),
            None => attention,
        };
        let path = call
            .deterministic(deterministic)
            .backward(
                gpu,
                AttentionSaved {
                    q: dq_in.tensor(lq.clone()).map_err(fail("Q"))?,
                    k: dk_in.tensor(lk.clone()).map_err(fail("K"))?,
                    v: dv_in.tensor(lk.clone()).map_err(fail("V"))?,
                    o: o.tensor(lq.clone()).map_err(fail("O"))?,
                    lse: lse.tensor(p.lse_layout()).map_err(fail("lse"))?,
                },
                AttentionGrads {
                    d_o: ddo.tensor(lq.clone()).map_err(fail("dO"))?,
                    dq: dq.tensor_mut(lq.clone()).map_err(fail("dQ"))?,
                    dk: dk.tensor_mut(lk.clone()).map_err(fail("dK"))?,
                    dv: dv.tensor_mut(lk.clone()).map_err(fail("dV"))?,
                },
                &mut workspace,
            )
            .map_err(fail(&what))?;
        if path != expected {
            return Err(format!("{what}: the call took {path:?}"));
        }
        gpu.synchronize().map_err(fail("synchronize"))?;
        let got = [gpu.download(&dq).map_err(fail("download"))?, gpu.download(&dk).map_err(fail("download"))?, gpu.download(&dv).map_err(fail("download"))?];
        for (g, (name, want, st, seqlen, heads)) in got.iter().zip([("dQ", &want[0], sq, p.seqlen_q, p.heads), ("dK", &want[1], sk, p.seqlen_k, p.heads_kv), ("dV", &want[2], sk, p.seqlen_k, p.heads_kv)]) {
            // Errors relative to the gradient's largest element: P and dS are rounded to T before
            // their products, and the gradients stored in T.
            let largest = want.iter().fold(0f64, |m, x| m.max(x.abs()));
            let tol = 2.0 * T::TOLERANCE;
            for b in 0..p.batch {
                for s in 0..seqlen {
                    for h in 0..heads {
                        for x in 0..p.d {
                            let i = at(&st, b, s, h, x);
                            let (gi, wi) = (g[i].to_f64(), want[i]);
                            if !((gi - wi).abs() <= tol * largest + tol * wi.abs()) {
                                return Err(format!("{what}: {name}[{b}, {s}, {h}, {x}] is {gi}, expected {wi} (largest {largest})"));
                            }
                        }
                    }
                }
            }
        }
        if deterministic {
            deterministic_runs.push(got);
        }
    }
    let bits = |r: &[Vec<T>; 3]| -> Vec<Vec<u64>> { r.iter().map(|t| t.iter().map(|x| x.to_f64().to_bits()).collect()).collect() };
    if bits(&deterministic_runs[0]) != bits(&deterministic_runs[1]) {
        return Err(format!("attention backward {} {p:?}: two deterministic runs differ (seed {seed})", T::NAME));
    }
    Ok(())
}
