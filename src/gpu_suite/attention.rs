//! Fused attention forward on block tiles (`tests/kernels/src/attention.rs`, FlashAttention-2's
//! algorithm on `mma.sync`): checked against an f64 reference on fresh random data with poisoned
//! outputs, head dimension 64, causal and not, ragged and unequal sequence lengths (queries that
//! see no key), and grouped-query heads.

use host::{Gpu, KernelFn, LaunchConfig, Module};
use layout_tensor::half::f16;
use test_kernels::attention as k;

use super::{fail, fresh_seed, random_f32, Check};

pub fn checks() -> Vec<Check> {
    vec![Check {
        name: "attention/forward on block tiles (mma.sync; head_dim 64, causal, ragged lengths, GQA)",
        run: check_attention,
    }]
}

type AttentionKernel = KernelFn<(*const f16, *const f16, *const f16, *mut f16, *mut f32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, f32, u32)>;

/// One problem: `batch` sequences of `seqlen_q` queries and `seqlen_k` keys, `heads` query heads
/// over `heads_kv` key/value heads, head dimension `d`.
#[derive(Clone, Copy, Debug)]
struct Problem {
    batch: usize,
    heads: usize,
    heads_kv: usize,
    seqlen_q: usize,
    seqlen_k: usize,
    d: usize,
    causal: bool,
}

/// The reference: O (`batch, seqlen_q, heads, d`) and the natural log-sum-exp (`batch, heads,
/// seqlen_q`) in f64 from the f16 inputs, causal masks aligned to the bottom right.
fn reference(p: &Problem, q: &[f64], k: &[f64], v: &[f64], scale: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut o, mut lse) = (vec![0.0; p.batch * p.seqlen_q * p.heads * p.d], vec![f64::NEG_INFINITY; p.batch * p.heads * p.seqlen_q]);
    let group = p.heads / p.heads_kv;
    for b in 0..p.batch {
        for h in 0..p.heads {
            let hk = h / group;
            for i in 0..p.seqlen_q {
                let visible = |j: usize| !p.causal || j as i64 <= i as i64 + p.seqlen_k as i64 - p.seqlen_q as i64;
                let scores: Vec<(usize, f64)> = (0..p.seqlen_k)
                    .filter(|&j| visible(j))
                    .map(|j| {
                        let dot: f64 = (0..p.d).map(|x| q[((b * p.seqlen_q + i) * p.heads + h) * p.d + x] * k[((b * p.seqlen_k + j) * p.heads_kv + hk) * p.d + x]).sum();
                        (j, dot * scale)
                    })
                    .collect();
                if scores.is_empty() {
                    continue;
                }
                let max = scores.iter().map(|s| s.1).fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = scores.iter().map(|s| (s.1 - max).exp()).sum();
                lse[(b * p.heads + h) * p.seqlen_q + i] = max + sum.ln();
                for x in 0..p.d {
                    let out: f64 = scores.iter().map(|&(j, s)| (s - max).exp() / sum * v[((b * p.seqlen_k + j) * p.heads_kv + hk) * p.d + x]).sum();
                    o[((b * p.seqlen_q + i) * p.heads + h) * p.d + x] = out;
                }
            }
        }
    }
    (o, lse)
}

fn check_attention(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let problems = [
        Problem { batch: 2, heads: 4, heads_kv: 2, seqlen_q: 77, seqlen_k: 130, d: 64, causal: false },
        Problem { batch: 2, heads: 4, heads_kv: 2, seqlen_q: 77, seqlen_k: 130, d: 64, causal: true },
        Problem { batch: 1, heads: 2, heads_kv: 1, seqlen_q: 150, seqlen_k: 100, d: 64, causal: true },
        Problem { batch: 1, heads: 3, heads_kv: 3, seqlen_q: 64, seqlen_k: 64, d: 64, causal: false },
    ];
    for p in problems {
        let seed = fresh_seed();
        let half = |n: usize, s: u64| -> Vec<f16> { random_f32(s, n).into_iter().map(f16::from_f32).collect() };
        let (q, k, v) = (half(p.batch * p.seqlen_q * p.heads * p.d, seed), half(p.batch * p.seqlen_k * p.heads_kv * p.d, seed ^ 0x51), half(p.batch * p.seqlen_k * p.heads_kv * p.d, seed ^ 0xa7));
        let scale = 1.0 / (p.d as f32).sqrt();
        let wide = |x: &[f16]| -> Vec<f64> { x.iter().map(|v| v.to_f64()).collect() };
        let (want_o, want_lse) = reference(&p, &wide(&q), &wide(&k), &wide(&v), scale as f64);
        let (dq, dk, dv) = (gpu.upload(&q).map_err(fail("upload"))?, gpu.upload(&k).map_err(fail("upload"))?, gpu.upload(&v).map_err(fail("upload"))?);
        let mut o = gpu.alloc::<f16>(q.len()).map_err(fail("alloc"))?;
        let mut lse = gpu.alloc::<f32>(p.batch * p.heads * p.seqlen_q).map_err(fail("alloc"))?;
        gpu.memset(&mut o, 0xff).map_err(fail("poison"))?;
        gpu.memset(&mut lse, 0xff).map_err(fail("poison"))?;
        let kernel: AttentionKernel = k::attention_fwd_d64;
        let grid = (p.seqlen_q.div_ceil(k::ATTENTION_BLOCK as usize) as u32, p.heads as u32, p.batch as u32);
        let (hd, hkd) = ((p.heads * p.d) as i64, (p.heads_kv * p.d) as i64);
        let args = (
            &dq, &dk, &dv, &mut o, &mut lse,
            p.heads as i64, p.heads_kv as i64, p.seqlen_q as i64, p.seqlen_k as i64,
            p.seqlen_q as i64 * hd, hd, p.d as i64, p.seqlen_k as i64 * hkd, hkd, p.d as i64,
            scale, p.causal as u32,
        );
        unsafe { gpu.launch(module, kernel, LaunchConfig { grid, block: (128, 1, 1), shared_mem_bytes: 0 }, args).run() }.map_err(fail("launch"))?;
        let got_o: Vec<f64> = gpu.download(&o).map_err(fail("download"))?.iter().map(|v| v.to_f64()).collect();
        let got_lse: Vec<f32> = gpu.download(&lse).map_err(fail("download"))?;
        let what = format!("attention {p:?} (seed {seed})");
        // P is rounded to f16 before `P V`, and O stored in f16.
        if let Some(i) = (0..got_o.len()).find(|&i| !((got_o[i] - want_o[i]).abs() <= 4e-3 + 4e-3 * want_o[i].abs())) {
            return Err(format!("{what}: O element {i} is {}, expected {}", got_o[i], want_o[i]));
        }
        if let Some(i) = (0..got_lse.len()).find(|&i| !(got_lse[i] as f64 == want_lse[i] || (got_lse[i] as f64 - want_lse[i]).abs() <= 1e-4 * (1.0 + want_lse[i].abs()))) {
            return Err(format!("{what}: lse element {i} is {}, expected {}", got_lse[i], want_lse[i]));
        }
    }
    Ok(())
}
