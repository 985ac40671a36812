//! Times what a user's first GEMM costs in a fresh process: creating the context, then the first
//! `Gemm::run_auto` call to completion, module loading included; then the same call again.
//!
//! Run with `CUDA_CACHE_DISABLE=1` for a cold driver cache, and with `CUTE_JIT=1` as well to time
//! the PTX path (the driver compiling the module) instead of the cubin. Prints one line of JSON.

use std::time::Instant;

use cute_rs_ops::gemm::{Gemm, Major};
use cute_rs_host::{Gpu, HostError};
use cute_rs_tensor::half::bf16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(HostError::NoGpu(why)) => {
            println!("cold start skipped: {why}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let context_s = start.elapsed().as_secs_f64();
    let n = 4096;
    let a = gpu.upload(&vec![bf16::from_f32(0.5); n * n])?;
    let b = gpu.upload(&vec![bf16::from_f32(0.25); n * n])?;
    let mut d = gpu.alloc::<bf16>(n * n)?;
    let g = Gemm::new(n, n, n).b_major(Major::Col);
    let t = Instant::now();
    let path = g.run_auto(&gpu, &a, &b, None, &mut d)?;
    gpu.synchronize()?;
    let first_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    g.run_auto(&gpu, &a, &b, None, &mut d)?;
    gpu.synchronize()?;
    let second_s = t.elapsed().as_secs_f64();
    // Every element is 4096 * 0.5 * 0.25 = 512, exact in bf16.
    let got = gpu.download(&d)?;
    let wrong = got.iter().filter(|x| x.to_f32() != 512.0).count();
    let jit = std::env::var("CUTE_JIT").as_deref() == Ok("1") || !cute_rs_ops::modules::gemm_sm90a().has_cubin();
    println!(
        "{{\"what\": \"first GEMM call, bf16 {n}^3\", \"path\": \"{path:?}\", \"module\": \"{}\", \"context_s\": {context_s:.3}, \
         \"first_call_s\": {first_s:.3}, \"second_call_s\": {second_s:.4}, \"wrong_elements\": {wrong}}}",
        if jit { "PTX (JIT)" } else { "cubin" }
    );
    if wrong > 0 {
        return Err(format!("{wrong} elements of D are not 512").into());
    }
    Ok(())
}
