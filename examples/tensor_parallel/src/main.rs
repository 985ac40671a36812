//! A transformer MLP block, tensor-parallel over `P` devices, as a user writes it:
//!
//! ```text
//! h = GELU(x W1^T)   column-parallel: x's tokens all-gathered, each device its W1 rows (features)
//! y = h W2^T         row-parallel: each device its share of the features, the partial products
//!                    reduce-scattered so that each device has its tokens' rows of y
//! ```
//!
//! The devices are the CPU backend's (`Communicator::cpu_group`, one thread each). The
//! distributions of x, h and y over the devices are stated with the layout algebra, which also
//! says what the row-parallel layer's reduction is. The result is checked against the same block
//! in plain Rust (f64 from the same bf16 values); exits non-zero on a mismatch.

use cute_rs_host::collective::Communicator;
use cute_rs_host::Rng;
use cute_rs_layout::distribution::{Collective, Distribution, Mesh, Placement::*};
use cute_rs_ops::gemm::Activation;
use cute_rs_ops::tensor_parallel::TensorParallel;
use cute_rs_ops::Matmul;
use cute_rs_tensor::half::bf16;

fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + (0.797_884_560_802_865_4 * (x + 0.044715 * x.powi(3))).tanh())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Devices; tokens, model dimension, intermediate dimension (each a multiple of P).
    let (p, tokens, model, inter) = (4, 32, 64, 128);
    let mesh = Mesh::new(&[p as i64])?;
    // (tokens, features) tensors: x and y by tokens (sequence parallelism), h by features.
    let x_dist = Distribution::new(&[tokens as i64, model as i64], mesh, &[Shard(0)])?;
    let h_dist = Distribution::new(&[tokens as i64, inter as i64], mesh, &[Shard(1)])?;
    let partial = Distribution::new(&[tokens as i64, model as i64], mesh, &[Partial])?;
    // The row-parallel layer's products are partial sums; to x's layout is one reduce-scatter.
    assert_eq!(partial.redistribute(&x_dist)?.steps(), [Collective::ReduceScatter { mesh_dim: 0, mode: 0 }]);
    println!("(local element, device) -> global element: x {}, h {}", x_dist.layout(), h_dist.layout());

    let mut rng = Rng::new(0x51ab_1e55);
    let mut random = |n: usize, scale: f64| -> Vec<bf16> { (0..n).map(|_| bf16::from_f64((rng.next_f64() * 2.0 - 1.0) * scale)).collect() };
    // x row-major (tokens x model); W1 (inter x model) and W2 (model x inter), rows = outputs.
    let (x, w1, w2) = (random(tokens * model, 1.0), random(inter * model, 0.2), random(model * inter, 0.2));
    let (t_local, f_local) = (tokens / p, inter / p);

    let outputs: Vec<Vec<f32>> = std::thread::scope(|s| {
        let handles: Vec<_> = Communicator::cpu_group(p)
            .into_iter()
            .map(|comm| {
                let (x, w1, w2) = (&x, &w1, &w2);
                s.spawn(move || -> Result<Vec<f32>, cute_rs_ops::GemmError> {
                    let (r, gpu) = (comm.rank(), comm.gpu());
                    let x_local = gpu.upload(&x[r * t_local * model..(r + 1) * t_local * model])?;
                    let w1_local = gpu.upload(&w1[r * f_local * model..(r + 1) * f_local * model])?;
                    let w2_local: Vec<bf16> = (0..model).flat_map(|j| w2[j * inter + r * f_local..j * inter + (r + 1) * f_local].to_vec()).collect();
                    let w2_local = gpu.upload(&w2_local)?;
                    let tp = TensorParallel::new(&comm);
                    let mut h = gpu.alloc::<bf16>(tokens * f_local)?;
                    tp.matmul(Matmul::new().activation(Activation::Gelu)).column_parallel(&x_local, &w1_local, &mut h, (t_local, f_local, model))?;
                    let mut y = gpu.alloc::<f32>(t_local * model)?;
                    tp.row_parallel(&h, &w2_local, &mut y, (tokens, model, f_local))?;
                    Ok(gpu.download(&y)?)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a device's thread panicked")).collect::<Result<_, _>>()
    })?;

    // Plain Rust: the same block, h rounded to bf16 as the devices store it.
    let f = |v: &bf16| v.to_f64();
    let h: Vec<f64> = (0..tokens * inter)
        .map(|i| {
            let (t, j) = (i / inter, i % inter);
            let pre: f64 = (0..model).map(|q| f(&x[t * model + q]) * f(&w1[j * model + q])).sum();
            bf16::from_f64(gelu(pre)).to_f64()
        })
        .collect();
    let mut worst = 0f64;
    for (r, y) in outputs.iter().enumerate() {
        for (i, &got) in y.iter().enumerate() {
            let (t, j) = (r * t_local + i / model, i % model);
            let (want, scale): (f64, f64) = (0..inter).fold((0.0, 0.0), |(s, a), q| (s + h[t * inter + q] * f(&w2[j * inter + q]), a + (h[t * inter + q] * f(&w2[j * inter + q])).abs()));
            let err = (got as f64 - want).abs() / scale.max(1e-6);
            worst = worst.max(err);
            // One bf16 rounding of a hidden value may differ (f32 against f64 sums).
            if err > 1e-2 {
                eprintln!("device {r}: y[{t}][{j}] = {got}, plain Rust {want}");
                std::process::exit(1);
            }
        }
    }
    println!("MLP block over {p} devices ({tokens} tokens, {model} -> {inter} -> {model}): matches plain Rust (worst error {worst:.2e} of the terms' magnitude)");
    Ok(())
}
