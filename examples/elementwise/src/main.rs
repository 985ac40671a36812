//! Runs the masked 2-D kernels of `kernels/` on the GPU (or, without one, on the CPU backend) and
//! checks them against plain Rust references; exits non-zero on a mismatch.

use cute_rs_host::{Gpu, LaunchConfig, Rng};
use elementwise_kernels::{masked_axpy, masked_gelu, THREADS, TILE_COLS, TILE_ROWS};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = Gpu::gpu_or_cpu()?;
    // Loaded on the first launch (from its cubin when `ptxas` was found at build time).
    let module = cute_rs_host::module!(elementwise_kernels);

    // Neither extent is a multiple of the tile: the right and bottom tiles are partial.
    let (rows, cols) = if gpu.is_cpu() { (19, 301) } else { (3001, 4097) };
    let mut rng = Rng::new(42);
    let mut random = |n: usize| -> Vec<f32> { (0..n).map(|_| (rng.next_f64() * 8.0 - 4.0) as f32).collect() };
    let (a, b) = (random(rows * cols), random(rows * cols));
    let alpha = 0.75f32;
    let (a_dev, b_dev) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut c_dev = gpu.alloc::<f32>(rows * cols)?;
    let mut g_dev = gpu.alloc::<f32>(rows * cols)?;
    gpu.memset(&mut c_dev, 0xff)?; // NaN: an element the kernels miss fails the checks
    gpu.memset(&mut g_dev, 0xff)?;

    let cfg = LaunchConfig {
        grid: ((cols as u32).div_ceil(TILE_COLS), (rows as u32).div_ceil(TILE_ROWS), 1),
        block: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (r, c) = (rows as u32, cols as u32);
    // SAFETY: every buffer holds rows * cols f32; the grid covers the matrix.
    unsafe {
        gpu.launch(module, masked_axpy, cfg, (&a_dev, &b_dev, &mut c_dev, r, c, alpha)).run()?;
        gpu.launch(module, masked_gelu, cfg, (&a_dev, &mut g_dev, r, c)).run()?;
    }
    let (c, g) = (gpu.download(&c_dev)?, gpu.download(&g_dev)?);

    for i in 0..rows * cols {
        let expected = a[i] + alpha * b[i];
        if c[i] != expected {
            eprintln!("MISMATCH masked_axpy at ({}, {}): got {}, expected {expected}", i / cols, i % cols, c[i]);
            std::process::exit(1);
        }
        let x = a[i] as f64;
        let expected = 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2));
        if !((g[i] as f64 - expected).abs() <= 1e-6 * expected.abs().max(1.0)) {
            eprintln!("MISMATCH masked_gelu at ({}, {}): got {}, expected {expected}", i / cols, i % cols, g[i]);
            std::process::exit(1);
        }
    }
    println!("masked axpy and GELU of {rows} x {cols} on {}: match the references", gpu.properties().name);
    Ok(())
}

/// erf in f64 (the reference): its Maclaurin series near 0, the continued fraction of erfc beyond.
fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.5 {
        // erf x = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, mut n) = (x, x, 0.0);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
        }
        return sum * 2.0 / std::f64::consts::PI.sqrt();
    }
    // erfc x = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))), evaluated bottom-up.
    let mut f = x;
    for k in (1..60).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    1.0 - (-x * x).exp() / std::f64::consts::PI.sqrt() / f
}
