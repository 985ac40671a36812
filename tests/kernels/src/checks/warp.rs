//! GPU check kernels: `cute_rs_tensor::device::warp` (shuffles, votes, reductions). Launched with
//! whole warps; `g` is the thread's index in the 1-D grid. Checked by `cute_rs::gpu_suite`
//! (`warp/*`).

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{global_thread_index_x, lane_id};
use cute_rs_tensor::device::warp::*;

/// Shuffles. With `v = src[g]`, `c = ctl[g]` (random), lane `l`:
///
/// - `idx[g]   = shuffle_idx(FULL, v, c)` (`u32`; only `c & 31` counts);
/// - `up[g]    = shuffle_up(FULL, v as i32, c >> 5)` (as `u32`; only the low 5 bits of the
///   delta count);
/// - `down[g]  = shuffle_down(FULL, f32::from_bits(v), c >> 10)` (its bits);
/// - `xor[g]   = shuffle_xor(FULL, v, c >> 15)`;
/// - `idx64[g] = shuffle_idx(FULL, src64[g], c >> 20)` (`u64`, two shuffles);
/// - `half[g]  = shuffle_xor(m, v, c >> 25)` with `m` the lane's half of the warp
///   (`0x0000ffff` for lanes 0-15, `0xffff0000` for 16-31, in divergent branches) and only
///   `(c >> 25) & 15` counting (so that the partner is in the same half).
#[kernel]
pub fn warp_shuffle(
    src: *const u32,
    src64: *const u64,
    ctl: *const u32,
    idx: *mut u32,
    up: *mut u32,
    down: *mut u32,
    xor: *mut u32,
    idx64: *mut u64,
    half: *mut u32,
) {
    let g = global_thread_index_x() as usize;
    let (v, c) = (*src.add(g), *ctl.add(g));
    *idx.add(g) = shuffle_idx(FULL_MASK, v, c);
    *up.add(g) = shuffle_up(FULL_MASK, v as i32, c >> 5) as u32;
    *down.add(g) = shuffle_down(FULL_MASK, f32::from_bits(v), c >> 10).to_bits();
    *xor.add(g) = shuffle_xor(FULL_MASK, v, c >> 15);
    *idx64.add(g) = shuffle_idx(FULL_MASK, *src64.add(g), c >> 20);
    let partner = (c >> 25) & 15;
    *half.add(g) = if lane_id() < 16 {
        shuffle_xor(0x0000_ffff, v, partner)
    } else {
        shuffle_xor(0xffff_0000, v, partner)
    };
}

/// Votes. With `p = preds[g] != 0`, lane `l`:
/// `ballots[g] = ballot(FULL, p)`, `alls[g] = vote_all(FULL, p)`, `anys[g] = vote_any(FULL, p)`
/// (0/1); with `m = 0x55555555` for even lanes and `0xaaaaaaaa` for odd lanes (divergent
/// branches): `ballots_half[g] = ballot(m, p)`, `alls_half[g] = vote_all(m, p)`,
/// `anys_half[g] = vote_any(m, p)`; `active[g] = active_mask()` at the kernel's top level.
#[kernel]
pub fn warp_vote(
    preds: *const u32,
    ballots: *mut u32,
    alls: *mut u32,
    anys: *mut u32,
    ballots_half: *mut u32,
    alls_half: *mut u32,
    anys_half: *mut u32,
    active: *mut u32,
) {
    let g = global_thread_index_x() as usize;
    *active.add(g) = active_mask();
    let p = *preds.add(g) != 0;
    *ballots.add(g) = ballot(FULL_MASK, p);
    *alls.add(g) = vote_all(FULL_MASK, p) as u32;
    *anys.add(g) = vote_any(FULL_MASK, p) as u32;
    let (b, all, any) = if lane_id() % 2 == 0 {
        let m = 0x5555_5555;
        (ballot(m, p), vote_all(m, p), vote_any(m, p))
    } else {
        let m = 0xaaaa_aaaa;
        (ballot(m, p), vote_all(m, p), vote_any(m, p))
    };
    *ballots_half.add(g) = b;
    *alls_half.add(g) = all as u32;
    *anys_half.add(g) = any as u32;
}

/// Words `warp_reduce` writes per thread into `out32`.
pub const REDUCE_WORDS: usize = 9;

/// Warp reductions, each lane writing the result it got. `out32[g*9 ..]`: `reduce_sum`,
/// `reduce_min`, `reduce_max` of `a[g]` (`u32`), of `b[g]` (`i32`, as bits), of `f[g]`
/// (`f32`, as bits); `out64[g*2 ..]`: `reduce_sum` of `w[g]` (`u64`), `reduce_max` of
/// `d[g]` (`f64`, as bits).
#[kernel]
pub fn warp_reduce(
    a: *const u32,
    b: *const i32,
    f: *const f32,
    w: *const u64,
    d: *const f64,
    out32: *mut u32,
    out64: *mut u64,
) {
    let g = global_thread_index_x() as usize;
    let (x, y, z) = (*a.add(g), *b.add(g), *f.add(g));
    let o = out32.add(g * REDUCE_WORDS);
    *o = reduce_sum(x);
    *o.add(1) = reduce_min(x);
    *o.add(2) = reduce_max(x);
    *o.add(3) = reduce_sum(y) as u32;
    *o.add(4) = reduce_min(y) as u32;
    *o.add(5) = reduce_max(y) as u32;
    *o.add(6) = reduce_sum(z).to_bits();
    *o.add(7) = reduce_min(z).to_bits();
    *o.add(8) = reduce_max(z).to_bits();
    *out64.add(g * 2) = reduce_sum(*w.add(g));
    *out64.add(g * 2 + 1) = reduce_max(*d.add(g)).to_bits();
}
