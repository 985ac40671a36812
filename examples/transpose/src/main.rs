//! Transposes a matrix with the kernel of `kernels/` on the GPU (or, without one, on the CPU
//! backend) on a 2-D grid, and checks it against plain Rust; exits non-zero on a mismatch.

use cute_rs_host::{Gpu, LaunchConfig, Rng};
use cute_rs_tensor::Strided;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::gpu_or_cpu()?;
    let (m, n) = if gpu.is_cpu() { (64, 96) } else { (4096, 8192) };
    let mut rng = Rng::new(0x7a05e);
    let x: Vec<f32> = (0..m * n).map(|_| rng.next_f64() as f32).collect();
    let src = gpu.upload(&x)?;
    let mut dst = gpu.alloc::<f32>(m * n)?;
    gpu.memset(&mut dst, 0xff)?; // NaN: an element the kernel misses fails the check

    let cfg = LaunchConfig { grid: (n as u32 / 32, m as u32 / 32, 1), block: (32, 8, 1), shared_mem_bytes: 0 };
    let s = src.tensor(Strided::row_major([m as i64, n as i64]))?;
    let d = dst.tensor_mut(Strided::row_major([n as i64, m as i64]))?;
    // SAFETY: the tensors were checked against their buffers; the grid covers the matrix.
    unsafe { gpu.launch(cute_rs_host::module!(kernels), kernels::transpose, cfg, (s, d)).run()? };
    let y = gpu.download(&dst)?;

    for i in 0..m {
        for j in 0..n {
            if y[j * m + i] != x[i * n + j] {
                eprintln!("MISMATCH at ({j}, {i}): got {}, expected {}", y[j * m + i], x[i * n + j]);
                std::process::exit(1);
            }
        }
    }
    println!("transpose of {m} x {n} on {}: matches plain Rust", gpu.properties().name);
    Ok(())
}
