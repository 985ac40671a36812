//! GPU checks: warp shuffles, votes and reductions (kernels in `tests/kernels/src/checks/warp.rs`),
//! against a CPU model of a warp:
//!
//! - `warp/shuffle`: idx/up/down/xor with per-lane random source lanes and deltas (only their low
//!   5 bits count), 32-bit values of three types and 64-bit values, and xor shuffles in divergent
//!   half-warps with half-warp masks;
//! - `warp/vote`: ballot/all/any on per-warp predicate patterns, with the full mask and with
//!   even/odd-lane masks in divergent branches;
//! - `warp/reduce`: sum/min/max of `u32`, `i32`, `f32` (and sum of `u64`, max of `f64`) in every
//!   lane, bit-exact against the CPU's butterfly (same rounding order for floats).

use cute_rs_host::{Gpu, LaunchConfig, Module};
use test_kernels::checks::warp as k;

use super::ids::{compare_words, compare_words64, launch, random_f64, random_u64, with_seed};
use super::{fail, fresh_seed, random_f32, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "warp/shuffle", run: shuffle },
        Check { name: "warp/vote", run: vote },
        Check { name: "warp/reduce", run: reduce },
    ]
}

/// Threads of each warp check: 16 blocks of 256.
const BLOCKS: u32 = 16;
const THREADS: u32 = 256;
const N: usize = (BLOCKS * THREADS) as usize;

fn at(i: usize) -> String {
    format!("warp {}, lane {}", i / 32, i % 32)
}

fn shuffle(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, shuffle_with(gpu, module, seed))
}

fn shuffle_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let src = random_u32(seed, N);
    let src64 = random_u64(seed ^ 4, N);
    let ctl = random_u32(seed ^ 5, N);
    let (mut idx, mut up, mut down, mut xor, mut idx64, mut half) =
        (vec![0; N], vec![0; N], vec![0; N], vec![0; N], vec![0u64; N], vec![0; N]);
    for g in 0..N {
        let (w, lane, c) = (g / 32 * 32, g % 32, ctl[g] as usize);
        idx[g] = src[w + (c & 31)];
        let d = (c >> 5) & 31;
        up[g] = if lane >= d { src[w + lane - d] } else { src[g] };
        let d = (c >> 10) & 31;
        down[g] = if lane + d <= 31 { src[w + lane + d] } else { src[g] };
        xor[g] = src[w + (lane ^ ((c >> 15) & 31))];
        idx64[g] = src64[w + ((c >> 20) & 31)];
        half[g] = src[w + (lane ^ ((c >> 25) & 15))];
    }
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let d_src64 = gpu.upload(&src64).map_err(fail("upload"))?;
    let d_ctl = gpu.upload(&ctl).map_err(fail("upload"))?;
    let mut outs = Vec::new();
    for _ in 0..5 {
        let mut o = gpu.alloc::<u32>(N).map_err(fail("alloc"))?;
        gpu.memset(&mut o, 0xff).map_err(fail("poison"))?;
        outs.push(o);
    }
    let mut out64 = gpu.alloc::<u64>(N).map_err(fail("alloc"))?;
    gpu.memset(&mut out64, 0xff).map_err(fail("poison"))?;
    let [idx_out, up_out, down_out, xor_out, half_out] = &mut outs[..] else { unreachable!("five outputs") };
    launch!(
        gpu, module, k::warp_shuffle, LaunchConfig::linear(BLOCKS, THREADS),
        &d_src, &d_src64, &d_ctl, idx_out, up_out, down_out, xor_out, &mut out64, half_out
    );
    let names = [
        "shuffle_idx (u32, source lane ctl & 31)",
        "shuffle_up (i32, delta (ctl >> 5) & 31)",
        "shuffle_down (f32 bits, delta (ctl >> 10) & 31)",
        "shuffle_xor (u32, lane mask (ctl >> 15) & 31)",
        "shuffle_xor in divergent half-warps (masks 0x0000ffff / 0xffff0000, lane mask (ctl >> 25) & 15)",
    ];
    for ((out, want), name) in [&outs[0], &outs[1], &outs[2], &outs[3], &outs[4]].into_iter().zip([&idx, &up, &down, &xor, &half]).zip(names) {
        let got = gpu.download(out).map_err(fail("download"))?;
        compare_words(&format!("warp_shuffle: {name}"), &got, want, |i| format!("{}, ctl {:#x}", at(i), ctl[i]))?;
    }
    let got64 = gpu.download(&out64).map_err(fail("download"))?;
    compare_words64("warp_shuffle: shuffle_idx (u64, source lane (ctl >> 20) & 31)", &got64, &idx64, |i| {
        format!("{}, ctl {:#x}", at(i), ctl[i])
    })
}

fn vote(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, vote_with(gpu, module, seed))
}

fn vote_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let bits = random_u32(seed, N);
    // Per-warp patterns: all true, all false, random, all true but one lane, all false but one.
    let preds: Vec<u32> = (0..N)
        .map(|g| {
            let (w, lane) = (g / 32, (g % 32) as u32);
            let one = bits[w * 32] % 32;
            match w % 5 {
                0 => 1,
                1 => 0,
                2 => bits[g] >> 7 & 1,
                3 => (lane != one) as u32,
                _ => (lane == one) as u32,
            }
        })
        .collect();
    let mut want = vec![vec![0u32; N]; 6];
    for g in 0..N {
        let (w, lane) = (g / 32, g % 32);
        let ballot = (0..32).filter(|&l| preds[w * 32 + l] != 0).fold(0u32, |m, l| m | 1 << l);
        let m: u32 = if lane % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa };
        want[0][g] = ballot;
        want[1][g] = (ballot == u32::MAX) as u32;
        want[2][g] = (ballot != 0) as u32;
        want[3][g] = ballot & m;
        want[4][g] = (ballot & m == m) as u32;
        want[5][g] = (ballot & m != 0) as u32;
    }
    let d_preds = gpu.upload(&preds).map_err(fail("upload"))?;
    let mut outs = Vec::new();
    for _ in 0..7 {
        let mut o = gpu.alloc::<u32>(N).map_err(fail("alloc"))?;
        gpu.memset(&mut o, 0xff).map_err(fail("poison"))?;
        outs.push(o);
    }
    let [ballots, alls, anys, ballots_half, alls_half, anys_half, active] = &mut outs[..] else {
        unreachable!("seven outputs")
    };
    launch!(
        gpu, module, k::warp_vote, LaunchConfig::linear(BLOCKS, THREADS),
        &d_preds, ballots, alls, anys, ballots_half, alls_half, anys_half, active
    );
    let names = [
        "ballot (full mask)",
        "vote_all (full mask)",
        "vote_any (full mask)",
        "ballot (even/odd lane masks)",
        "vote_all (even/odd lane masks)",
        "vote_any (even/odd lane masks)",
    ];
    for k in 0..6 {
        let got = gpu.download(&outs[k]).map_err(fail("download"))?;
        compare_words(&format!("warp_vote: {}", names[k]), &got, &want[k], |i| {
            format!("{}, warp pattern {}, predicate {}", at(i), i / 32 % 5, preds[i])
        })?;
    }
    let active = gpu.download(&outs[6]).map_err(fail("download"))?;
    if let Some(g) = (0..N).find(|&g| active[g] & 1 << (g % 32) == 0) {
        return Err(format!("warp_vote: active_mask() {:#x} at {} lacks the calling lane", active[g], at(g)));
    }
    Ok(())
}

/// The butterfly of `cute_rs_tensor::device::warp`: for offset 16, 8, 4, 2, 1,
/// `v[l] = combine(v[l], v[l ^ offset])`; returns every lane's result.
fn butterfly<T: Copy>(lanes: &[T], combine: impl Fn(T, T) -> T) -> Vec<T> {
    let mut v = lanes.to_vec();
    for offset in [16, 8, 4, 2, 1] {
        v = (0..32).map(|l| combine(v[l], v[l ^ offset])).collect();
    }
    v
}

fn reduce(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, reduce_with(gpu, module, seed))
}

fn reduce_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let a = random_u32(seed, N);
    let b: Vec<i32> = random_u32(seed ^ 6, N).into_iter().map(|v| v as i32).collect();
    let f = random_f32(seed ^ 7, N);
    let w = random_u64(seed ^ 8, N);
    let d = random_f64(seed ^ 9, N);
    let mut want32 = vec![0u32; N * 9];
    let mut want64 = vec![0u64; N * 2];
    for warp in 0..N / 32 {
        let r = warp * 32..warp * 32 + 32;
        let columns: [Vec<u32>; 9] = [
            butterfly(&a[r.clone()], u32::wrapping_add),
            butterfly(&a[r.clone()], u32::min),
            butterfly(&a[r.clone()], u32::max),
            butterfly(&b[r.clone()], i32::wrapping_add).iter().map(|&v| v as u32).collect(),
            butterfly(&b[r.clone()], i32::min).iter().map(|&v| v as u32).collect(),
            butterfly(&b[r.clone()], i32::max).iter().map(|&v| v as u32).collect(),
            butterfly(&f[r.clone()], |x, y| x + y).iter().map(|v| v.to_bits()).collect(),
            butterfly(&f[r.clone()], f32::min).iter().map(|v| v.to_bits()).collect(),
            butterfly(&f[r.clone()], f32::max).iter().map(|v| v.to_bits()).collect(),
        ];
        let sum64 = butterfly(&w[r.clone()], u64::wrapping_add);
        let max64 = butterfly(&d[r.clone()], f64::max);
        for l in 0..32 {
            let g = warp * 32 + l;
            for (k, column) in columns.iter().enumerate() {
                want32[g * 9 + k] = column[l];
            }
            want64[g * 2] = sum64[l];
            want64[g * 2 + 1] = max64[l].to_bits();
        }
    }
    let d_a = gpu.upload(&a).map_err(fail("upload"))?;
    let d_b = gpu.upload(&b).map_err(fail("upload"))?;
    let d_f = gpu.upload(&f).map_err(fail("upload"))?;
    let d_w = gpu.upload(&w).map_err(fail("upload"))?;
    let d_d = gpu.upload(&d).map_err(fail("upload"))?;
    let mut out32 = gpu.alloc::<u32>(N * 9).map_err(fail("alloc"))?;
    let mut out64 = gpu.alloc::<u64>(N * 2).map_err(fail("alloc"))?;
    gpu.memset(&mut out32, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut out64, 0xff).map_err(fail("poison"))?;
    launch!(
        gpu, module, k::warp_reduce, LaunchConfig::linear(BLOCKS, THREADS),
        &d_a, &d_b, &d_f, &d_w, &d_d, &mut out32, &mut out64
    );
    const WHAT32: [&str; 9] = [
        "reduce_sum u32", "reduce_min u32", "reduce_max u32", "reduce_sum i32", "reduce_min i32",
        "reduce_max i32", "reduce_sum f32 (bits)", "reduce_min f32 (bits)", "reduce_max f32 (bits)",
    ];
    let got32 = gpu.download(&out32).map_err(fail("download"))?;
    compare_words("warp_reduce (32-bit)", &got32, &want32, |i| format!("{}, {}", at(i / 9), WHAT32[i % 9]))?;
    let got64 = gpu.download(&out64).map_err(fail("download"))?;
    compare_words64("warp_reduce (64-bit)", &got64, &want64, |i| {
        format!("{}, {}", at(i / 2), ["reduce_sum u64", "reduce_max f64 (bits)"][i % 2])
    })
}
