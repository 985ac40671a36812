//! Runs the row-wise softmax of `kernels/` on the GPU (or, without one, on the CPU backend) and
//! checks it against a plain Rust reference; exits non-zero on a mismatch.

use cute_rs_host::{Gpu, LaunchConfig, Rng};
use softmax_kernels::{softmax_rows, ROWS_PER_BLOCK, THREADS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::gpu_or_cpu()?;
    // Loaded on the first launch (from its cubin when `ptxas` was found at build time).
    let module = cute_rs_host::module!(softmax_kernels);

    // Ragged sizes: the last block has idle warps, rows are not a multiple of 32 columns.
    let (rows, cols) = if gpu.is_cpu() { (37, 300) } else { (4099, 1000) };
    let mut rng = Rng::new(0x5eed);
    let x: Vec<f32> = (0..rows * cols).map(|_| (rng.next_f64() * 20.0 - 10.0) as f32).collect();
    let x_dev = gpu.upload(&x)?;
    let mut y_dev = gpu.alloc::<f32>(rows * cols)?;
    gpu.memset(&mut y_dev, 0xff)?; // NaN: an element the kernel misses fails the check

    let blocks = (rows as u32).div_ceil(ROWS_PER_BLOCK);
    let cfg = LaunchConfig::linear(blocks, THREADS);
    // SAFETY: x and y hold rows * cols f32; the grid covers every row.
    unsafe { gpu.launch(module, softmax_rows, cfg, (&x_dev, &mut y_dev, rows as u32, cols as u32)).run()? };
    let y = gpu.download(&y_dev)?;

    let mut worst = 0.0f64;
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let m = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v as f64));
        let sum: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        for c in 0..cols {
            let expected = (row[c] as f64 - m).exp() / sum;
            let err = (y[r * cols + c] as f64 - expected).abs() / expected.max(1e-30);
            if !(err <= 1e-5) {
                eprintln!("MISMATCH at row {r}, column {c}: got {}, expected {expected}", y[r * cols + c]);
                std::process::exit(1);
            }
            worst = worst.max(err);
        }
    }
    println!(
        "softmax of {rows} x {cols} on {}: matches the reference (largest relative error {worst:.2e})",
        gpu.properties().name
    );
    Ok(())
}
