//! Every GPU check of the suite (`cute_rs_suite::gpu_suite`), on the first GPU, as part of `cargo test`.
//!
//! Without a GPU (no driver or no device) it prints one line saying the GPU tests were skipped and
//! passes. It has no libtest harness so that this line, and the per-check report, always show.

use std::process::ExitCode;

use cute_rs_suite::gpu_suite;
use cute_rs_host::{Gpu, HostError};

fn main() -> ExitCode {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(HostError::NoGpu(why)) => {
            println!("GPU tests skipped: no GPU ({why})");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            println!("GPU present but unusable: {e}");
            return ExitCode::FAILURE;
        }
    };
    let module = match gpu.module(&cute_rs_suite::TEST_KERNELS) {
        Ok(m) => m,
        Err(e) => {
            println!("loading the embedded PTX failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcomes = gpu_suite::run_checks(&gpu, &module);
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    // Skipped: a library a check needs (cuBLAS) is missing.
    let skipped = outcomes.iter().filter(|o| o.skipped.is_some()).count();
    println!(
        "GPU checks on {}: {} passed, {failed} failed, {skipped} skipped",
        gpu.properties().name,
        outcomes.len() - failed - skipped
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
