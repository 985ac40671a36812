//! The GPU suite runner of the GPU bundle: every check and benchmark of `cute_rs_suite::gpu_suite`,
//! a table printed last, and the same as JSON.
//!
//! ```text
//! gpu_suite [--json FILE] [--checks-only | --benches-only] [--filter SUBSTRING]
//! ```
//! `--filter` keeps the checks and benchmarks whose name contains the substring.
//! Exit status 0 when every check passed (benchmarks never fail the run for being slow).

use std::process::ExitCode;

use cute_rs_suite::gpu_suite::{self, Figure};
use cute_rs_host::Gpu;
use serde_json::json;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json_path = args.iter().position(|a| a == "--json").and_then(|i| args.get(i + 1)).cloned();
    let run_checks = !args.iter().any(|a| a == "--benches-only");
    let run_benches = !args.iter().any(|a| a == "--checks-only");
    let filter = args.iter().position(|a| a == "--filter").and_then(|i| args.get(i + 1)).cloned().unwrap_or_default();

    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(e) => {
            println!("no usable GPU: {e}");
            return ExitCode::FAILURE;
        }
    };
    let props = gpu.properties().clone();
    let date = std::process::Command::new("date").arg("-u").arg("+%Y-%m-%d %H:%M UTC").output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    println!("device: {} (sm_{}{}, {} SMs), {date}", props.name, props.compute_capability.0, props.compute_capability.1, props.multiprocessors);
    let module = match gpu.module(&cute_rs_suite::TEST_KERNELS) {
        Ok(m) => m,
        Err(e) => {
            println!("loading the embedded PTX failed: {e}");
            return ExitCode::FAILURE;
        }
    };

    let outcomes = if run_checks { gpu_suite::run_checks_matching(&gpu, &module, &filter) } else { Vec::new() };
    let mut bench_rows: Vec<(&str, Result<Vec<Figure>, String>)> = Vec::new();
    if run_benches {
        for b in gpu_suite::benches().into_iter().filter(|b| b.name.contains(filter.as_str())) {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (b.run)(&gpu, &module)))
                .unwrap_or_else(|_| Err("the benchmark panicked".into()));
            bench_rows.push((b.name, r));
        }
    }

    println!("\n| check | result | ms |\n| --- | --- | --- |");
    for o in &outcomes {
        let r = match (&o.error, o.skipped) {
            (Some(e), _) => format!("FAILED: {e}"),
            (None, Some(why)) => format!("skipped: {why}"),
            (None, None) => "passed".to_string(),
        };
        println!("| {} | {} | {:.1} |", o.name, r, o.millis);
    }
    if !bench_rows.is_empty() {
        println!("\n| benchmark | what | value |\n| --- | --- | --- |");
        for (name, r) in &bench_rows {
            match r {
                Ok(figs) => {
                    for f in figs {
                        println!("| {name} | {} | {:.3} {} |", f.what, f.value, f.unit);
                    }
                }
                Err(e) => println!("| {name} | FAILED | {e} |"),
            }
        }
    }
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count()
        + bench_rows.iter().filter(|(_, r)| r.is_err()).count();
    let skipped = outcomes.iter().filter(|o| o.skipped.is_some()).count();
    println!("\n{} passed, {failed} failed, {skipped} skipped", outcomes.len() + bench_rows.len() - failed - skipped);

    if let Some(path) = json_path {
        let doc = json!({
            "device": props.name,
            "compute_capability": [props.compute_capability.0, props.compute_capability.1],
            "date": date,
            "checks": outcomes.iter().map(|o| json!({"name": o.name, "passed": o.error.is_none(), "error": o.error, "skipped": o.skipped, "ms": o.millis})).collect::<Vec<_>>(),
            "benchmarks": bench_rows.iter().map(|(name, r)| match r {
                Ok(figs) => json!({"name": name, "figures": figs.iter().map(|f| json!({"what": f.what, "value": f.value, "unit": f.unit})).collect::<Vec<_>>()}),
                Err(e) => json!({"name": name, "error": e}),
            }).collect::<Vec<_>>(),
        });
        if let Err(e) = std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap_or_default()) {
            println!("writing {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
