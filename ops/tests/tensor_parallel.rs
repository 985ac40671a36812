//! The tensor-parallel GEMMs (`cute_rs_ops::tensor_parallel`) on 2, 3 and 4 devices of the CPU
//! backend: a transformer MLP block (column-parallel up-projection with GELU, row-parallel
//! down-projection) against the same block on one device.

use cute_rs_host::collective::Communicator;
use cute_rs_host::{Gpu, Rng};
use cute_rs_layout::Layout;
use cute_rs_ops::gemm::Activation;
use cute_rs_ops::tensor_parallel::TensorParallel;
use cute_rs_ops::Matmul;
use cute_rs_tensor::half::bf16;

/// `rows x cols` random bf16 values in `[-1, 1)`, row-major.
fn random(rng: &mut Rng, rows: usize, cols: usize) -> Vec<bf16> {
    (0..rows * cols).map(|_| bf16::from_f32((rng.next_f64() * 2.0 - 1.0) as f32)).collect()
}

/// The block on one device: `GELU(X W1^T) W2^T`, the hidden activations rounded to bf16.
fn one_device(x: &[bf16], w1: &[bf16], w2: &[bf16], (m, h, f): (usize, usize, usize)) -> Vec<f32> {
    let gpu = Gpu::cpu();
    let l = |s: String| Layout::parse(&s).unwrap();
    let (x, w1, w2) = (gpu.upload(x).unwrap(), gpu.upload(w1).unwrap(), gpu.upload(w2).unwrap());
    let mut hidden = gpu.alloc::<bf16>(m * f).unwrap();
    Matmul::new()
        .activation(Activation::Gelu)
        .run(&gpu, x.tensor(l(format!("({m},{h}):({h},1)"))).unwrap(), w1.tensor(l(format!("({h},{f}):(1,{h})"))).unwrap(), None, hidden.tensor_mut(l(format!("({m},{f}):({f},1)"))).unwrap())
        .unwrap();
    let mut out = gpu.alloc::<f32>(m * h).unwrap();
    Matmul::new()
        .run(&gpu, hidden.tensor(l(format!("({m},{f}):({f},1)"))).unwrap(), w2.tensor(l(format!("({f},{h}):(1,{f})"))).unwrap(), None, out.tensor_mut(l(format!("({m},{h}):({h},1)"))).unwrap())
        .unwrap();
    gpu.download(&out).unwrap()
}

#[test]
fn an_mlp_block_over_several_devices_matches_one_device() {
    // Tokens, model dimension, intermediate dimension: divisible by 2, 3 and 4 devices.
    let (m, h, f) = (24, 32, 48);
    let mut rng = Rng::new(0x5eed);
    let (x, w1, w2) = (random(&mut rng, m, h), random(&mut rng, f, h), random(&mut rng, h, f));
    let want = one_device(&x, &w1, &w2, (m, h, f));
    for p in [2, 3, 4] {
        let (m_local, f_local) = (m / p, f / p);
        let got: Vec<Vec<f32>> = std::thread::scope(|s| {
            let hs: Vec<_> = Communicator::cpu_group(p)
                .into_iter()
                .map(|c| {
                    let (x, w1, w2) = (&x, &w1, &w2);
                    s.spawn(move || {
                        let (r, gpu) = (c.rank(), c.gpu());
                        // This device's tokens, its rows of W1 (up-projection features) and its
                        // columns of W2 (the down-projection's share of the reduction).
                        let x_local = gpu.upload(&x[r * m_local * h..(r + 1) * m_local * h])?;
                        let w1_local = gpu.upload(&w1[r * f_local * h..(r + 1) * f_local * h])?;
                        let w2_local: Vec<bf16> = (0..h).flat_map(|j| w2[j * f + r * f_local..j * f + (r + 1) * f_local].to_vec()).collect();
                        let w2_local = gpu.upload(&w2_local)?;
                        let tp = TensorParallel::new(&c);
                        let mut hidden = gpu.alloc::<bf16>(m * f_local)?;
                        tp.matmul(Matmul::new().activation(Activation::Gelu)).column_parallel(&x_local, &w1_local, &mut hidden, (m_local, f_local, h))?;
                        let mut out = gpu.alloc::<f32>(m_local * h)?;
                        tp.row_parallel(&hidden, &w2_local, &mut out, (m, h, f_local))?;
                        Ok::<_, cute_rs_ops::GemmError>(gpu.download(&out)?)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
        });
        for (r, rows) in got.iter().enumerate() {
            for (i, (&g, &w)) in rows.iter().zip(&want[r * m_local * h..(r + 1) * m_local * h]).enumerate() {
                // The partial sums add in another order than one device's K loop.
                assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "{p} devices, device {r}: out[{}][{}] = {g}, one device {w}", r * m_local + i / h, i % h);
            }
        }
    }
}

#[test]
fn shapes_that_do_not_divide_are_refused() {
    let c = &Communicator::cpu_group(1)[0];
    let gpu = c.gpu();
    let a = gpu.upload(&[bf16::from_f32(1.0); 6]).unwrap();
    let mut d = gpu.alloc::<f32>(4).unwrap();
    let e = TensorParallel::new(c).column_parallel(&a, &a, &mut d, (2, 2, 4)).unwrap_err();
    assert!(e.to_string().contains("M x K = 2 x 4"), "{e}");
}
