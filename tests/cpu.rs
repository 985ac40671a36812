//! Every GPU check of the suite (`cute_rs_suite::gpu_suite`) on the CPU backend
//! ([`cute_rs_host::Gpu::cpu`]), as part of `cargo test`: the same kernels (their host builds), the same
//! launches, the same CPU references. Checks that need an instruction the CPU backend cannot have
//! are reported as skipped, with the reason.
//!
//! The checks are independent, so they run in worker processes, one per core (`CUTE_CHECK_JOBS`
//! sets how many): this program starts copies of itself and hands each the next check as it
//! finishes one. Each check still runs alone in its process, as on a GPU.
//!
//! No libtest harness, so that the per-check report always shows. `CUTE_CHECKS=<text>` runs only
//! the checks whose name contains `<text>`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;

use cute_rs_suite::gpu_suite;
use cute_rs_host::Gpu;

/// Set in a worker's environment: it reads check names from its standard input, one a line.
const WORKER: &str = "CUTE_CHECK_WORKER";
/// What a worker prints after each check: the marker, then `ok`, `skipped` or `failed`, a tab and
/// the check's milliseconds.
const DONE: &str = "\u{1}check-done\t";

fn main() -> ExitCode {
    if std::env::var_os(WORKER).is_some() {
        return worker();
    }
    let start = std::time::Instant::now();
    // `CUTE_CHECKS=tma/` runs only the checks whose name contains `tma/`.
    let filter = std::env::var("CUTE_CHECKS").unwrap_or_default();
    let names: VecDeque<&str> = gpu_suite::checks().iter().map(|c| c.name).filter(|n| n.contains(filter.as_str())).collect();
    let jobs = std::env::var("CUTE_CHECK_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
        .clamp(1, names.len().max(1));
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    match dispatch(names, jobs) {
        Ok(results) => {
            let mut slowest: Vec<(f64, &str)> = Vec::new();
            for (name, line) in &results {
                let (result, millis) = line.split_once('\t').unwrap_or((line, ""));
                slowest.push((millis.parse().unwrap_or(0.0), name));
                match result {
                    "ok" => passed += 1,
                    "skipped" => skipped += 1,
                    _ => {
                        failed += 1;
                        println!("FAILED  {name} ({result})");
                    }
                }
            }
            // Where the time goes: what a faster CPU backend or a smaller check would gain.
            slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
            for (millis, name) in slowest.iter().take(5) {
                println!("slowest: {:>7.1} s  {name}", millis / 1e3);
            }
        }
        Err(e) => {
            println!("running the checks in worker processes failed: {e}");
            return ExitCode::FAILURE;
        }
    }
    println!(
        "GPU checks on the CPU backend: {passed} passed, {failed} failed, {skipped} skipped (GPU-only), {:.1} s in {jobs} processes",
        start.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs the checks `names` in `jobs` worker processes, each given the next check when it finishes
/// one; the result of every check (`ok`, `skipped`, `failed`, or why its worker stopped).
fn dispatch(mut names: VecDeque<&str>, jobs: usize) -> Result<Vec<(String, String)>, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
    let (tx, rx) = mpsc::channel::<(usize, Option<String>)>();
    let mut workers = Vec::new();
    for id in 0..jobs {
        let mut child = Command::new(&exe)
            .env(WORKER, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting a worker: {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        let tx = tx.clone();
        // Passes the worker's lines through and reports each finished check (None: it exited).
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                match line.strip_prefix(DONE) {
                    Some(result) => {
                        let _ = tx.send((id, Some(result.to_owned())));
                    }
                    None => println!("{line}"),
                }
            }
            let _ = tx.send((id, None));
        });
        workers.push((child, None::<String>));
    }
    drop(tx);
    let give = |worker: &mut (std::process::Child, Option<String>), names: &mut VecDeque<&str>| {
        let stdin = worker.0.stdin.as_mut().expect("piped");
        match names.pop_front() {
            Some(name) => {
                worker.1 = Some(name.to_owned());
                let _ = writeln!(stdin, "{name}");
            }
            None => {
                worker.1 = None;
                drop(worker.0.stdin.take());
            }
        }
    };
    for worker in &mut workers {
        give(worker, &mut names);
    }
    let mut results = Vec::new();
    for (id, message) in rx {
        let worker = &mut workers[id];
        match message {
            Some(result) => {
                results.push((worker.1.take().unwrap_or_default(), result));
                give(worker, &mut names);
            }
            None => {
                let status = worker.0.wait().map_err(|e| format!("waiting for a worker: {e}"))?;
                // A worker that stopped inside a check (a crash) fails that check; the others go on.
                if let Some(name) = worker.1.take() {
                    results.push((name, format!("its worker process stopped: {status}")));
                }
            }
        }
    }
    // Checks no worker was left to take (every worker stopped).
    results.extend(names.into_iter().map(|n| (n.to_owned(), "not run: every worker process stopped".to_owned())));
    Ok(results)
}

/// A worker: runs the checks named on its standard input, one at a time, reporting each.
fn worker() -> ExitCode {
    let cpu = Gpu::cpu();
    let module = match cpu.module(&cute_rs_suite::TEST_KERNELS) {
        Ok(m) => m,
        Err(e) => {
            println!("loading the kernels on the CPU backend failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    let checks = gpu_suite::checks();
    for name in std::io::stdin().lock().lines().map_while(Result::ok) {
        let (result, millis) = match checks.iter().find(|c| c.name == name) {
            Some(check) => {
                let outcome = gpu_suite::run_check(&cpu, &module, check);
                let result = match (outcome.error, outcome.skipped) {
                    (Some(_), _) => "failed",
                    (None, Some(_)) => "skipped",
                    (None, None) => "ok",
                };
                (result, outcome.millis)
            }
            None => ("failed: no check of that name", 0.0),
        };
        println!("{DONE}{result}\t{millis}");
        let _ = std::io::stdout().flush();
    }
    ExitCode::SUCCESS
}
