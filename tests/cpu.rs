//! Every GPU check of the suite (`cute_rs::gpu_suite`) on the CPU backend ([`host::Gpu::cpu`]), as
//! part of `cargo test`: the same kernels (their host builds), the same launches, the same CPU
//! references. Checks that need an instruction the CPU backend cannot have are reported as skipped,
//! with the reason.
//!
//! No libtest harness, so that the per-check report always shows. `CUTE_CHECKS=<text>` runs only
//! the checks whose name contains `<text>`.

use std::process::ExitCode;

use cute_rs::gpu_suite;
use host::Gpu;

fn main() -> ExitCode {
    let cpu = Gpu::cpu();
    let module = match cpu.module(&cute_rs::TEST_KERNELS) {
        Ok(m) => m,
        Err(e) => {
            println!("loading the kernels on the CPU backend failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let start = std::time::Instant::now();
    // `CUTE_CHECKS=tma/` runs only the checks whose name contains `tma/`.
    let filter = std::env::var("CUTE_CHECKS").unwrap_or_default();
    let outcomes = gpu_suite::run_checks_matching(&cpu, &module, &filter);
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let skipped = outcomes.iter().filter(|o| o.skipped.is_some()).count();
    println!(
        "GPU checks on the CPU backend: {} passed, {failed} failed, {skipped} skipped (GPU-only), {:.1} s",
        outcomes.len() - failed - skipped,
        start.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
