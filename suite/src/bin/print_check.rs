//! `device_println!` and `device_assert!` on a GPU (the GPU bundle runs it; on the CPU backend
//! `tests/printing.rs` checks the same kernel). A failed device assertion leaves the context
//! unusable, so each case runs in its own process:
//! - `print_check print`: the kernel prints one line per block (the bundle's `run.sh` checks the
//!   lines on standard output);
//! - `print_check assert`: an element fails the kernel's assertion; the program exits 0 when the
//!   host reports `CUDA_ERROR_ASSERT` (the device printed the message on standard error, which
//!   `run.sh` checks), and 1 otherwise.

use cute_rs_host::{Gpu, HostError, LaunchConfig};
use test_kernels::printing::print_and_check;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(HostError::NoGpu(why)) => {
            println!("print check skipped: {why}");
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let x = gpu.upload(&(0..64u32).map(|v| 3 * v + 1).collect::<Vec<_>>())?;
    let limit = if mode == "assert" { 100u32 } else { 1000 };
    let cfg = LaunchConfig::linear(2, 32);
    // SAFETY: x holds the 64 elements the grid reads.
    unsafe { gpu.launch(&cute_rs_suite::TEST_KERNELS, print_and_check, cfg, (&x, 64u32, limit)).run()? };
    match (mode.as_str(), gpu.synchronize()) {
        ("assert", Err(e)) if e.to_string().contains("CUDA_ERROR_ASSERT") => {
            println!("assert: the host reported: {e}");
            Ok(())
        }
        ("assert", other) => Err(format!("expected CUDA_ERROR_ASSERT, got {other:?}").into()),
        (_, r) => Ok(r?),
    }
}
