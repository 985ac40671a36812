//! Checks of the work over several devices: the tensor-parallel GEMMs
//! (`cute_rs_ops::tensor_parallel`) on 2, 3 and 4 devices of the CPU backend, one process
//! (`Communicator::cpu_group`), whatever the suite's device. A transformer MLP block
//! (column-parallel up-projection with GELU, row-parallel down-projection) is compared with the
//! same block on one device.

use cute_rs_host::collective::Communicator;
use cute_rs_host::{Gpu, Module, Rng};
use cute_rs_layout::Layout;
use cute_rs_ops::gemm::Activation;
use cute_rs_ops::tensor_parallel::TensorParallel;
use cute_rs_ops::Matmul;
use cute_rs_tensor::half::bf16;

use super::Check;

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "distributed/tensor-parallel MLP block on 2, 3 and 4 CPU devices against one device", run: |_: &Gpu, _: &Module| check_mlp_block() },
        Check { name: "distributed/tensor-parallel GEMMs refuse buffers that do not hold their shapes", run: |_: &Gpu, _: &Module| check_refusals() },
    ]
}
/// `rows x cols` random bf16 values in `[-1, 1)`, row-major.
fn random(rng: &mut Rng, rows: usize, cols: usize) -> Vec<bf16> {
    (0..rows * cols).map(|_| bf16::from_f32((rng.next_f64() * 2.0 - 1.0) as f32)).collect()
}

/// The block on one device: `GELU(X W1^T) W2^T`, the hidden activations rounded to bf16.
fn one_device(x: &[bf16], w1: &[bf16], w2: &[bf16], (m, h, f): (usize, usize, usize)) -> Result<Vec<f32>, String> {
    let gpu = Gpu::cpu();
    let e = |e: cute_rs_host::HostError| e.to_string();
    let l = |s: String| Layout::parse(&s).map_err(|e| e.to_string());
    let (x, w1, w2) = (gpu.upload(x).map_err(e)?, gpu.upload(w1).map_err(e)?, gpu.upload(w2).map_err(e)?);
    let mut hidden = gpu.alloc::<bf16>(m * f).map_err(e)?;
    let (xl, w1l, hl) = (l(format!("({m},{h}):({h},1)"))?, l(format!("({h},{f}):(1,{h})"))?, l(format!("({m},{f}):({f},1)"))?);
    Matmul::new()
        .activation(Activation::Gelu)
        .run(&gpu, x.tensor(xl).map_err(e)?, w1.tensor(w1l).map_err(e)?, None, hidden.tensor_mut(hl.clone()).map_err(e)?)
        .map_err(|e| format!("up-projection on one device: {e}"))?;
    let mut out = gpu.alloc::<f32>(m * h).map_err(e)?;
    let (w2l, ol) = (l(format!("({f},{h}):(1,{f})"))?, l(format!("({m},{h}):({h},1)"))?);
    Matmul::new()
        .run(&gpu, hidden.tensor(hl).map_err(e)?, w2.tensor(w2l).map_err(e)?, None, out.tensor_mut(ol).map_err(e)?)
        .map_err(|e| format!("down-projection on one device: {e}"))?;
    gpu.download(&out).map_err(e)
}

/// The block on `p` devices: each its tokens, its rows of W1 (up-projection features) and its
/// columns of W2 (its share of the down-projection's reduction); each device's rows of the
/// output.
fn on_devices(p: usize, x: &[bf16], w1: &[bf16], w2: &[bf16], (m, h, f): (usize, usize, usize)) -> Result<Vec<Vec<f32>>, String> {
    let (m_local, f_local) = (m / p, f / p);
    std::thread::scope(|s| {
        let hs: Vec<_> = Communicator::cpu_group(p)
            .into_iter()
            .map(|c| {
                s.spawn(move || -> Result<Vec<f32>, cute_rs_ops::GemmError> {
                    let (r, gpu) = (c.rank(), c.gpu());
                    let x_local = gpu.upload(&x[r * m_local * h..(r + 1) * m_local * h])?;
                    let w1_local = gpu.upload(&w1[r * f_local * h..(r + 1) * f_local * h])?;
                    let w2_local: Vec<bf16> = (0..h).flat_map(|j| w2[j * f + r * f_local..j * f + (r + 1) * f_local].to_vec()).collect();
                    let w2_local = gpu.upload(&w2_local)?;
                    let tp = TensorParallel::new(&c);
                    let mut hidden = gpu.alloc::<bf16>(m * f_local)?;
                    tp.matmul(Matmul::new().activation(Activation::Gelu)).column_parallel(&x_local, &w1_local, &mut hidden, (m_local, f_local, h))?;
                    let mut out = gpu.alloc::<f32>(m_local * h)?;
                    tp.row_parallel(&hidden, &w2_local, &mut out, (m, h, f_local))?;
                    Ok(gpu.download(&out)?)
                })
            })
            .collect();
        hs.into_iter()
            .enumerate()
            .map(|(r, h)| h.join().map_err(|_| format!("device {r} of {p} panicked"))?.map_err(|e| format!("device {r} of {p}: {e}")))
            .collect()
    })
}

fn check_mlp_block() -> Result<(), String> {
    // Tokens, model dimension, intermediate dimension: divisible by 2, 3 and 4 devices.
    let (m, h, f) = (24, 32, 48);
    let seed = super::fresh_seed();
    let mut rng = Rng::new(seed);
    let (x, w1, w2) = (random(&mut rng, m, h), random(&mut rng, f, h), random(&mut rng, h, f));
    let want = one_device(&x, &w1, &w2, (m, h, f))?;
    for p in [2, 3, 4] {
        let m_local = m / p;
        for (r, rows) in on_devices(p, &x, &w1, &w2, (m, h, f))?.iter().enumerate() {
            for (i, (&g, &w)) in rows.iter().zip(&want[r * m_local * h..(r + 1) * m_local * h]).enumerate() {
                // The partial sums add in another order than one device's K loop.
                if !((g - w).abs() <= 1e-4 * w.abs().max(1.0)) {
                    return Err(format!("{p} devices (seed {seed}), device {r}: out[{}][{}] = {g}, one device {w}", r * m_local + i / h, i % h));
                }
            }
        }
    }
    Ok(())
}

fn check_refusals() -> Result<(), String> {
    let c = &Communicator::cpu_group(1)[0];
    let gpu = c.gpu();
    let e = |e: cute_rs_host::HostError| e.to_string();
    let a = gpu.upload(&[bf16::from_f32(1.0); 6]).map_err(e)?;
    let mut d = gpu.alloc::<f32>(4).map_err(e)?;
    match TensorParallel::new(c).column_parallel(&a, &a, &mut d, (2, 2, 4)) {
        Err(err) if err.to_string().contains("M x K = 2 x 4") => {}
        other => return Err(format!("A of 6 elements for 2 x 4: {other:?}")),
    }
    match TensorParallel::new(c).row_parallel(&a, &a, &mut d, (3, 1, 2)) {
        Err(err) if err.to_string().contains("3 x 1") => Ok(()),
        other => Err(format!("D of 4 elements for 3 x 1: {other:?}")),
    }
}
