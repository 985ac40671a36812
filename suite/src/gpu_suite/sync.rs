//! GPU checks: barriers (kernels in `tests/kernels/src/checks/sync.rs`). Each kernel exchanges data
//! between threads through shared memory around the barrier under test; the outputs are compared
//! with the CPU's exchange, so a barrier that does not order the accesses shows as wrong words.
//!
//! - `sync/threads_exchange`: `sync_threads` between writes and reads of a 1024-word tile, and
//!   `sync_threads_count/and/or` on per-block predicates (all true, all false, random, all but one);
//! - `sync/named_barriers`: a 3-round producer/consumer pipeline on named barriers 1 and 2
//!   (`arrive` / `sync`, 256 threads) beside an independent group on barrier 3 (128 threads);
//! - `sync/warp_exchange`: `sync_warp` with half-warp masks in divergent branches, then the full
//!   mask.

use cute_rs_host::{Gpu, LaunchConfig, Module};
use test_kernels::checks::sync as k;

use super::ids::{compare_words, launch, with_seed};
use super::{fail, fresh_seed, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "sync/threads_exchange", run: threads_exchange },
        Check { name: "sync/named_barriers", run: named_barriers },
        Check { name: "sync/warp_exchange", run: warp_exchange },
    ]
}

/// `test_kernels::checks::sync::EXCHANGE_THREADS`.
const EXCHANGE_THREADS: usize = 1024;

fn threads_exchange(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, threads_exchange_with(gpu, module, seed))
}

fn threads_exchange_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let n = EXCHANGE_THREADS;
    let blocks = 8;
    let src = random_u32(seed, blocks * n);
    let bits = random_u32(seed ^ 1, blocks * n);
    // Per-block predicate patterns: all true, all false, random, all true but one thread.
    let preds: Vec<u32> = (0..blocks * n)
        .map(|g| {
            let (b, t) = (g / n, g % n);
            match b % 4 {
                0 => 1,
                1 => 0,
                2 => bits[g] & 1,
                _ => (t != bits[b * n] as usize % n) as u32,
            }
        })
        .collect();
    let mut want = vec![0u32; blocks * n];
    let (mut counts, mut ands, mut ors) = (vec![0u32; blocks * n], vec![0u32; blocks * n], vec![0u32; blocks * n]);
    for b in 0..blocks {
        let tile = &src[b * n..(b + 1) * n];
        let x: Vec<u32> = (0..n).map(|t| tile[(t * 7 + 3 * b + 1) % n]).collect();
        let tile2: Vec<u32> = (0..n).map(|t| x[t] ^ t as u32).collect();
        for t in 0..n {
            want[b * n + t] = tile2[(t + 517) % n];
        }
        let p = &preds[b * n..(b + 1) * n];
        let count = p.iter().filter(|&&v| v != 0).count() as u32;
        for t in 0..n {
            counts[b * n + t] = count;
            ands[b * n + t] = (count == n as u32) as u32;
            ors[b * n + t] = (count > 0) as u32;
        }
    }
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let d_preds = gpu.upload(&preds).map_err(fail("upload"))?;
    let mut outs = Vec::new();
    for _ in 0..4 {
        let mut o = gpu.alloc::<u32>(blocks * n).map_err(fail("alloc"))?;
        gpu.memset(&mut o, 0xff).map_err(fail("poison"))?;
        outs.push(o);
    }
    let cfg = LaunchConfig::linear(blocks as u32, n as u32);
    let [dst, counts_out, ands_out, ors_out] = &mut outs[..] else { unreachable!("four outputs") };
    launch!(gpu, module, k::sync_threads_exchange, cfg, &d_src, &d_preds, dst, counts_out, ands_out, ors_out);
    let at = |i: usize| format!("block {}, thread {}", i / n, i % n);
    let names = ["exchanged words", "sync_threads_count", "sync_threads_and", "sync_threads_or"];
    for ((out, want), name) in outs.iter().zip([&want, &counts, &ands, &ors]).zip(names) {
        let got = gpu.download(out).map_err(fail("download"))?;
        compare_words(&format!("sync_threads_exchange: {name}"), &got, want, at)?;
    }
    Ok(())
}

/// `test_kernels::checks::sync::{PIPELINE_THREADS, PIPELINE_ROUNDS, PIPELINE_WORDS}`.
const PIPELINE_THREADS: u32 = 384;
const PIPELINE_ROUNDS: usize = 3;
const PIPELINE_WORDS: usize = 256;

fn named_barriers(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, named_barriers_with(gpu, module, seed))
}

fn named_barriers_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let blocks = 6;
    let src = random_u32(seed, blocks * PIPELINE_ROUNDS * PIPELINE_WORDS);
    let src2 = random_u32(seed ^ 2, blocks * 128);
    let want: Vec<u32> = (0..src.len())
        .map(|i| {
            let (chunk, k) = (i / PIPELINE_WORDS, i % PIPELINE_WORDS);
            src[chunk * PIPELINE_WORDS + PIPELINE_WORDS - 1 - k]
        })
        .collect();
    let mut want2 = vec![0u32; blocks * 128];
    for b in 0..blocks {
        let grp = &src2[b * 128..(b + 1) * 128];
        let y: Vec<u32> = (0..128).map(|u| grp[(u + 1) % 128]).collect();
        let grp2: Vec<u32> = (0..128).map(|u| y[u].wrapping_add(u as u32)).collect();
        for u in 0..128 {
            want2[b * 128 + u] = grp2[127 - u];
        }
    }
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let d_src2 = gpu.upload(&src2).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(want.len()).map_err(fail("alloc"))?;
    let mut dst2 = gpu.alloc::<u32>(want2.len()).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut dst2, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig::linear(blocks as u32, PIPELINE_THREADS);
    launch!(gpu, module, k::named_barrier_pipeline, cfg, &d_src, &d_src2, &mut dst, &mut dst2);
    let got = gpu.download(&dst).map_err(fail("download"))?;
    compare_words("named_barrier_pipeline: producer/consumer words (barriers 1 and 2)", &got, &want, |i| {
        let chunk = i / PIPELINE_WORDS;
        format!("block {}, round {}, word {}", chunk / PIPELINE_ROUNDS, chunk % PIPELINE_ROUNDS, i % PIPELINE_WORDS)
    })?;
    let got2 = gpu.download(&dst2).map_err(fail("download"))?;
    compare_words("named_barrier_pipeline: independent group (barrier 3)", &got2, &want2, |i| {
        format!("block {}, group thread {}", i / 128, i % 128)
    })
}

fn warp_exchange(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, warp_exchange_with(gpu, module, seed))
}

fn warp_exchange_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let (blocks, threads) = (4usize, 256usize);
    let n = blocks * threads;
    let src = random_u32(seed, n);
    let mut want = vec![0u32; n];
    let mut want2 = vec![0u32; n];
    for w in 0..n / 32 {
        let s = &src[w * 32..(w + 1) * 32];
        let v: Vec<u32> =
            (0..32).map(|l| if l < 16 { s[(l ^ 5) & 15] } else { s[16 + (l * 3) % 16] }).collect();
        for l in 0..32 {
            want[w * 32 + l] = v[l];
            want2[w * 32 + l] = v[31 - l].wrapping_add(31 - l as u32);
        }
    }
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(n).map_err(fail("alloc"))?;
    let mut dst2 = gpu.alloc::<u32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut dst2, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig::linear(blocks as u32, threads as u32);
    launch!(gpu, module, k::sync_warp_exchange, cfg, &d_src, &mut dst, &mut dst2);
    let at = |i: usize| format!("warp {}, lane {}", i / 32, i % 32);
    let got = gpu.download(&dst).map_err(fail("download"))?;
    compare_words("sync_warp_exchange: half-warp masks", &got, &want, at)?;
    let got2 = gpu.download(&dst2).map_err(fail("download"))?;
    compare_words("sync_warp_exchange: full mask", &got2, &want2, at)
}
