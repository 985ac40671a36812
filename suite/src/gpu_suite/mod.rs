//! The GPU test and benchmark suite: every GPU check of the project, runnable from `cargo test`
//! (`tests/gpu.rs`, skipped without a GPU) and from the `gpu_suite` binary of the GPU bundle
//! (`tools/gpu-bundle.sh`), which prints a table and writes JSON.
//!
//! A [`Check`] compares a kernel's output with a CPU reference on fresh random data, with outputs
//! poisoned before the launch; a [`Bench`] times kernels with CUDA events (warm-up, median) next to
//! a peer measured in the same run. Each area of the device primitives registers its checks in its
//! own module; [`checks`] and [`benches`] list them all.

use cute_rs_host::{Gpu, Module};

/// One GPU correctness check.
pub struct Check {
    /// Unique name, `area/what`.
    pub name: &'static str,
    /// Runs the check: `Err` says what differed (or which CUDA call failed).
    pub run: fn(&Gpu, &Module) -> Result<(), String>,
}

/// One measured figure of a benchmark.
#[derive(Debug, Clone)]
pub struct Figure {
    /// What was measured (`"vector copy"`, `"cudaMemcpy DtoD"`).
    pub what: String,
    /// The value.
    pub value: f64,
    /// Its unit (`"TB/s"`, `"us"`).
    pub unit: &'static str,
}

/// One benchmark: figures for our kernel and for the peer it is compared with.
pub struct Bench {
    /// Unique name.
    pub name: &'static str,
    /// Runs the benchmark (after checking the kernel's result once).
    pub run: fn(&Gpu, &Module) -> Result<Vec<Figure>, String>,
}

/// Every GPU check of the project.
pub fn checks() -> Vec<Check> {
    let mut all = Vec::new();
    all.extend(smoke::checks());
    all.extend(demo::checks());
    all.extend(tensor_copy::checks());
    for area in [
        ids::checks,
        sync::checks,
        shared::checks,
        warp::checks,
        memory::checks,
        atomics::checks,
        cp_async::checks,
        tma::checks,
        mma::checks,
        runtime::checks,
        cutile::checks,
        block_io::checks,
        transpose::checks,
        gemm_sm90::checks,
        triton::checks,
        tutorials::checks,
        attention::checks,
        attention_backward::checks,
        gemm::checks,
        matmul::checks,
        sgemm::checks,
        math::checks,
        distributed::checks,
    ] {
        all.extend(area());
    }
    all
}

/// Every GPU benchmark of the project.
pub fn benches() -> Vec<Bench> {
    let mut all = demo::benches();
    all.extend(attention::benches());
    all.extend(attention_backward::benches());
    all.extend(tensor_copy::benches());
    all.extend(cutile::benches());
    all.extend(transpose::benches());
    all.extend(block_io::benches());
    all.extend(gemm::benches());
    all.extend(gemm_sm90::benches());
    all.extend(matmul::benches());
    all.extend(sgemm::benches());
    all.extend(tutorials::benches());
    all
}

/// Checks that cannot run on the CPU backend (name prefix, why): their kernels use instructions
/// the host build cannot have, and do not compile for it, or their sizes are beyond it.
pub const GPU_ONLY: &[(&str, &str)] = &[
    ("mma/wgmma_", "wgmma (sm_90a warpgroup MMA) has no CPU implementation"),
    ("gemm_sm90/", "the Hopper GEMM uses wgmma (sm_90a), which has no CPU implementation"),
    ("gemm/hopper", "the Hopper GEMM uses wgmma (sm_90a), which has no CPU implementation"),
    ("attention/forward, Hopper", "the Hopper attention kernel uses wgmma (sm_90a), which has no CPU implementation"),
    ("attention/backward, Hopper", "the Hopper attention backward uses wgmma (sm_90a), which has no CPU implementation"),
    ("matmul/hopper", "the Hopper paths (fp8, split-K, stream-K) use wgmma (sm_90a), which has no CPU implementation"),
    ("sgemm/large", "4095 x 4097 x 1000 is hours on the CPU backend (one GPU thread at a time); the small sizes run there"),
    ("gemm/f16 4095 x 4097 x 1000", "4 x 1.7 * 10^10 multiply-adds, far too many for the CPU backend (the same kernels are checked there on small sizes)"),
];

/// Why the check `name` does not run on the CPU backend, if it does not.
pub fn gpu_only(name: &str) -> Option<&'static str> {
    GPU_ONLY.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, why)| *why)
}

/// Checks that need a library the machine may lack (name prefix, the test for it): skipped, with
/// the test's message, when it finds the library missing. Looked at after [`GPU_ONLY`], which
/// covers these too (they are Hopper checks), so that the CPU backend never opens the library.
pub const NEEDS: &[(&str, LibraryTest)] = &[("gemm_sm90/vs cublas", cublas::missing)];

/// Whether a library can be used in this process: `None` when it can, else why not.
pub type LibraryTest = fn() -> Option<&'static str>;

/// Why the check `name` cannot run in this process for want of a library, if it cannot.
pub fn unavailable(name: &str) -> Option<&'static str> {
    NEEDS.iter().filter(|(prefix, _)| name.starts_with(prefix)).find_map(|(_, missing)| missing())
}

/// The result of one check.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The check's name.
    pub name: &'static str,
    /// `None` when it passed (or was skipped), else what went wrong.
    pub error: Option<String>,
    /// Why it did not run (a GPU-only check on the CPU backend, a library it needs missing).
    pub skipped: Option<&'static str>,
    /// Wall time of the check, milliseconds.
    pub millis: f64,
}

/// Runs every check, printing one line per check as it finishes. On the CPU backend
/// ([`Gpu::is_cpu`]) the [`GPU_ONLY`] checks are skipped; so are the [`NEEDS`] checks whose
/// library is missing.
pub fn run_checks(gpu: &Gpu, module: &Module) -> Vec<Outcome> {
    run_checks_matching(gpu, module, "")
}

/// [`run_checks`] for the checks whose name contains `filter`.
pub fn run_checks_matching(gpu: &Gpu, module: &Module, filter: &str) -> Vec<Outcome> {
    checks().iter().filter(|c| c.name.contains(filter)).map(|c| run_check(gpu, module, c)).collect()
}

/// Runs one check, printing one line when it finishes: skipped on the CPU backend when it is
/// [`GPU_ONLY`], and wherever its library is missing ([`NEEDS`]).
pub fn run_check(gpu: &Gpu, module: &Module, c: &Check) -> Outcome {
    if let Some(why) = gpu.is_cpu().then(|| gpu_only(c.name)).flatten() {
        println!("skipped {} (GPU only: {why})", c.name);
        return Outcome { name: c.name, error: None, skipped: Some(why), millis: 0.0 };
    }
    if let Some(why) = unavailable(c.name) {
        println!("skipped {} ({why})", c.name);
        return Outcome { name: c.name, error: None, skipped: Some(why), millis: 0.0 };
    }
    let start = std::time::Instant::now();
    // A check that panics (a bug in the check) fails alone; the suite goes on.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (c.run)(gpu, module)))
        .unwrap_or_else(|_| Err("the check panicked".into()));
    let outcome = Outcome { name: c.name, error: result.err(), skipped: None, millis: start.elapsed().as_secs_f64() * 1e3 };
    match &outcome.error {
        None => println!("ok      {}", c.name),
        Some(e) => println!("FAILED  {}: {e}", c.name),
    }
    outcome
}

/// Median of a non-empty list of timings.
pub fn median(mut v: Vec<f32>) -> f32 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Times `f` with CUDA events: `warmup` runs, then the median of `reps` timed runs, in ms.
pub fn time_median(gpu: &Gpu, warmup: usize, reps: usize, f: impl FnMut() -> cute_rs_host::Result<()>) -> Result<f32, String> {
    time_median_after(gpu, warmup, reps, || Ok(()), f)
}

/// [`time_median`] with `before` issued ahead of each timed run, outside its events (an L2 flush,
/// as `triton.testing.do_bench` does).
pub fn time_median_after(
    gpu: &Gpu,
    warmup: usize,
    reps: usize,
    mut before: impl FnMut() -> cute_rs_host::Result<()>,
    mut f: impl FnMut() -> cute_rs_host::Result<()>,
) -> Result<f32, String> {
    for _ in 0..warmup {
        f().map_err(fail("warm-up"))?;
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        before().map_err(fail("before a timed run"))?;
        times.push(gpu.time_ms(&mut f).map_err(fail("timed run"))?);
    }
    Ok(median(times))
}

/// The medians of [`time_interleaved`], per call.
#[derive(Debug, Clone, Copy)]
pub struct Interleaved {
    /// Median milliseconds of one call of the first function.
    pub ours_ms: f32,
    /// Median milliseconds of one call of the second function.
    pub peer_ms: f32,
    /// Median over the rounds of `peer / ours` (the first function's speed relative to the
    /// second's): each round's two batches ran back to back, so the clock drift between rounds
    /// cancels in their ratio.
    pub speedup: f64,
}

/// Times two functions that issue the same work on the GPU's stream (our kernel and a peer's, on
/// the same buffers) alternately: `warmup` batches of each, then `rounds` rounds of one batch of
/// `batch` calls of `ours` and one of `peer`, each batch between two CUDA events, the one that goes
/// first alternating from round to round (so that neither always follows the other). Interleaving
/// puts both under the same clocks and the same thermal state, which separate runs (let alone
/// separate processes) do not: GPU clocks drift by several percent.
pub fn time_interleaved(
    gpu: &Gpu,
    (warmup, rounds, batch): (usize, usize, usize),
    mut ours: impl FnMut() -> cute_rs_host::Result<()>,
    mut peer: impl FnMut() -> cute_rs_host::Result<()>,
) -> Result<Interleaved, String> {
    let batch = batch.max(1);
    let run = |f: &mut dyn FnMut() -> cute_rs_host::Result<()>| (0..batch).try_for_each(|_| f());
    for _ in 0..warmup {
        run(&mut ours).map_err(fail("warm-up (ours)"))?;
        run(&mut peer).map_err(fail("warm-up (peer)"))?;
    }
    gpu.synchronize().map_err(fail("warm-up"))?;
    let (mut o, mut p, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds.max(1) {
        let mut time_ours = || gpu.time_ms(|| run(&mut ours)).map_err(fail("timed batch (ours)"));
        let mut time_peer = || gpu.time_ms(|| run(&mut peer)).map_err(fail("timed batch (peer)"));
        let (ours_ms, peer_ms) = if round % 2 == 0 {
            let o = time_ours()?;
            (o, time_peer()?)
        } else {
            let p = time_peer()?;
            (time_ours()?, p)
        };
        o.push(ours_ms / batch as f32);
        p.push(peer_ms / batch as f32);
        ratios.push(peer_ms as f64 / ours_ms as f64);
    }
    ratios.sort_by(|a, b| a.total_cmp(b));
    Ok(Interleaved { ours_ms: median(o), peer_ms: median(p), speedup: ratios[ratios.len() / 2] })
}

/// Wall-clock milliseconds from the call to the completion of two functions that each return
/// once their work is done (a call followed by a synchronization), alternately, `rounds` times after one warm-up call each: the medians of
/// `ours` and `peer`.
pub fn wall_interleaved(
    rounds: usize,
    mut ours: impl FnMut() -> Result<(), String>,
    mut peer: impl FnMut() -> Result<(), String>,
) -> Result<(f64, f64), String> {
    ours()?;
    peer()?;
    let wall = |f: &mut dyn FnMut() -> Result<(), String>| -> Result<f32, String> {
        let start = std::time::Instant::now();
        f()?;
        Ok(start.elapsed().as_secs_f32() * 1e3)
    };
    let (mut o, mut p) = (Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        o.push(wall(&mut ours)?);
        p.push(wall(&mut peer)?);
    }
    Ok((median(o) as f64, median(p) as f64))
}

/// Turns any displayable error into the check's error string.
pub fn fail<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Compares `got` with `want` exactly; the error names the first differing index.
pub fn expect_eq<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} instead of {}", got.len(), want.len()));
    }
    match got.iter().zip(want).position(|(g, w)| g != w) {
        None => Ok(()),
        Some(i) => Err(format!("{what}: index {i}: got {:?}, expected {:?}", got[i], want[i])),
    }
}

/// The transpose of the row-major `m x n` matrix `data` (row-major `n x m`): the CPU reference of
/// every transpose kernel.
pub fn transposed<T: Copy>(data: &[T], m: usize, n: usize) -> Vec<T> {
    (0..n * m).map(|i| data[(i % m) * n + i / m]).collect()
}

/// Deterministic pseudo-random `u32`s (xorshift), fresh per seed: test data without a dependency.
pub fn random_u32(seed: u64, n: usize) -> Vec<u32> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 16) as u32
        })
        .collect()
}

/// Random `f32`s in `[-1, 1)`.
pub fn random_f32(seed: u64, n: usize) -> Vec<f32> {
    random_u32(seed, n).into_iter().map(|v| (v as f32 / u32::MAX as f32) * 2.0 - 1.0).collect()
}

/// A seed that differs from run to run (fresh data each run), printed by the runners.
pub fn fresh_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
}

mod atomics;
mod attention;
mod attention_backward;
mod block_io;
mod cp_async;
mod cublas;
mod cutile;
pub mod demo;
mod distributed;
mod gemm;
mod gemm_sm90;
mod math;
mod matmul;
mod ids;
mod memory;
mod mma;
mod shared;
mod runtime;
mod sgemm;
mod smoke;
mod sync;
mod transpose;
pub mod tensor_copy;
mod tma;
mod triton;
mod tutorials;
mod warp;
