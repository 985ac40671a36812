//! One transformer block's attention, as a user writes it with `cute-rs-ops`:
//!
//! ```text
//! q = x Wq,  k = x Wk,  v = x Wv          (Matmul, bf16 out)
//! o = softmax(q k^T / sqrt(d) + causal) v  (Attention, grouped-query heads)
//! y = o Wo + b                             (Matmul, the bias fused in the epilogue, f32 out)
//! ```
//!
//! on the GPU, or without one on the CPU backend (smaller sizes), checked against the same block
//! in plain Rust (f64 from the same bf16 inputs); exits non-zero on a mismatch.

use cute_rs_host::{Gpu, Rng};
use cute_rs_layout::Layout;
use cute_rs_ops::{Attention, Matmul};
use cute_rs_tensor::half::bf16;

/// The block's sizes: `tokens` of one sequence, `heads` query heads sharing `kv_heads` key/value
/// heads of dimension `head_dim`, a model dimension `model`.
#[derive(Clone, Copy)]
struct Sizes {
    tokens: usize,
    model: usize,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::gpu_or_cpu()?;
    let s = if gpu.is_cpu() {
        Sizes { tokens: 24, model: 64, heads: 2, kv_heads: 1, head_dim: 64 }
    } else {
        Sizes { tokens: 1000, model: 1024, heads: 8, kv_heads: 2, head_dim: 128 }
    };
    let (t, m, hd) = (s.tokens, s.model, s.head_dim);
    let (qn, kvn) = (s.heads * hd, s.kv_heads * hd);

    let mut rng = Rng::new(0x7f4a_7c15);
    let mut random = |n: usize, scale: f64| -> Vec<bf16> {
        (0..n).map(|_| bf16::from_f64((rng.next_f64() * 2.0 - 1.0) * scale)).collect()
    };
    let x = random(t * m, 1.0);
    let w_scale = 1.0 / (m as f64).sqrt();
    let (wq, wk, wv) = (random(m * qn, w_scale), random(m * kvn, w_scale), random(m * kvn, w_scale));
    let wo = random(qn * m, 1.0 / (qn as f64).sqrt());
    let bias: Vec<f32> = random(m, 1.0).iter().map(|b| b.to_f32()).collect();

    // Row-major matrices: (rows, cols):(cols, 1).
    let rows = |r: usize, c: usize| Layout::parse(&format!("({r},{c}):({c},1)"));
    let x_dev = gpu.upload(&x)?;
    let (wq_dev, wk_dev, wv_dev, wo_dev) = (gpu.upload(&wq)?, gpu.upload(&wk)?, gpu.upload(&wv)?, gpu.upload(&wo)?);
    let bias_dev = gpu.upload(&bias)?;
    let mut q = gpu.alloc::<bf16>(t * qn)?;
    let mut k = gpu.alloc::<bf16>(t * kvn)?;
    let mut v = gpu.alloc::<bf16>(t * kvn)?;
    for (w, out, n) in [(&wq_dev, &mut q, qn), (&wk_dev, &mut k, kvn), (&wv_dev, &mut v, kvn)] {
        Matmul::new().run(&gpu, x_dev.tensor(rows(t, m)?)?, w.tensor(rows(m, n)?)?, None, out.tensor_mut(rows(t, n)?)?)?;
    }

    // The projections seen as (batch, tokens, heads, head_dim): the same bytes, no copy.
    let heads = |h: usize| Layout::parse(&format!("(1,{t},{h},{hd}):({},{},{hd},1)", t * h * hd, h * hd));
    let mut o = gpu.alloc::<bf16>(t * qn)?;
    let mut lse = gpu.alloc::<f32>(s.heads * t)?;
    Attention::new().causal(true).run(
        &gpu,
        q.tensor(heads(s.heads)?)?,
        k.tensor(heads(s.kv_heads)?)?,
        v.tensor(heads(s.kv_heads)?)?,
        o.tensor_mut(heads(s.heads)?)?,
        lse.tensor_mut(Layout::parse(&format!("(1,{},{t}):({},{t},1)", s.heads, s.heads * t))?)?,
    )?;

    let mut y = gpu.alloc::<f32>(t * m)?;
    gpu.memset(&mut y, 0xff)?; // NaN: an element the GEMM misses fails the check
    Matmul::new().bias_per_column(&bias_dev).run(
        &gpu,
        o.tensor(rows(t, qn)?)?,
        wo_dev.tensor(rows(qn, m)?)?,
        None,
        y.tensor_mut(rows(t, m)?)?,
    )?;
    let y = gpu.download(&y)?;

    let want = reference(s, &x, [&wq, &wk, &wv, &wo], &bias);
    // bf16 rounding of q, k, v, p and o between the steps: a relative error of a few 1e-3.
    let scale = want.iter().fold(0f64, |a, w| a.max(w.abs()));
    let worst = y.iter().zip(&want).map(|(&g, &w)| (g as f64 - w).abs() / scale).fold(0f64, f64::max);
    if !(worst <= 2e-2) {
        eprintln!("MISMATCH: the largest error is {worst:.3e} of the output's largest magnitude {scale:.3}");
        std::process::exit(1);
    }
    println!(
        "transformer attention block ({t} tokens, model {m}, {} heads over {} key/value heads of {hd}) on {}: \
         matches plain Rust (largest error {worst:.2e} of the largest output)",
        s.heads,
        s.kv_heads,
        gpu.properties().name
    );
    Ok(())
}

/// The same block in plain Rust, in f64, from the same bf16 inputs.
fn reference(s: Sizes, x: &[bf16], [wq, wk, wv, wo]: [&[bf16]; 4], bias: &[f32]) -> Vec<f64> {
    let (t, m, hd) = (s.tokens, s.model, s.head_dim);
    let f = |v: &[bf16]| v.iter().map(|e| e.to_f64()).collect::<Vec<_>>();
    let matmul = |a: &[f64], b: &[f64], (rows, inner, cols): (usize, usize, usize)| {
        let mut out = vec![0.0; rows * cols];
        for r in 0..rows {
            for i in 0..inner {
                let a = a[r * inner + i];
                for c in 0..cols {
                    out[r * cols + c] += a * b[i * cols + c];
                }
            }
        }
        out
    };
    let x = f(x);
    let (qn, kvn) = (s.heads * hd, s.kv_heads * hd);
    let q = matmul(&x, &f(wq), (t, m, qn));
    let k = matmul(&x, &f(wk), (t, m, kvn));
    let v = matmul(&x, &f(wv), (t, m, kvn));
    let group = s.heads / s.kv_heads;
    let mut o = vec![0.0; t * qn];
    for h in 0..s.heads {
        let kh = h / group;
        for i in 0..t {
            // Causal: query i sees keys 0..=i.
            let scores: Vec<f64> = (0..=i)
                .map(|j| (0..hd).map(|d| q[i * qn + h * hd + d] * k[j * kvn + kh * hd + d]).sum::<f64>() / (hd as f64).sqrt())
                .collect();
            let max = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
            let sum: f64 = weights.iter().sum();
            for d in 0..hd {
                o[i * qn + h * hd + d] = (0..=i).map(|j| weights[j] * v[j * kvn + kh * hd + d]).sum::<f64>() / sum;
            }
        }
    }
    let mut y = matmul(&o, &f(wo), (t, qn, m));
    for r in 0..t {
        for c in 0..m {
            y[r * m + c] += bias[c] as f64;
        }
    }
    y
}
