//! The scheduler's guarantees: barriers and warp collectives for any block size, errors instead of
//! hangs, deterministic schedules that expose a missing barrier.

use std::string::{String, ToString};
use std::vec::Vec;

use super::*;
use crate::{ids, sync, warp};

/// Launches `entry` with one pointer argument `data`.
fn run(entry: unsafe fn(&[&[u8]]), cfg: CpuLaunch, data: &mut [u32]) -> Result<(), CpuError> {
    let k = CpuKernel { name: "test", params: &[8], entry };
    let p = data.as_mut_ptr() as usize as u64;
    launch(&k, &cfg, &[&p.to_le_bytes()])
}

unsafe fn arg(args: &[&[u8]]) -> *mut u32 {
    core::ptr::read_unaligned(args[0].as_ptr() as *const *mut u32)
}

/// Each thread writes its id to shared memory, syncs, and reads its mirror image's.
unsafe fn mirror(args: &[&[u8]]) {
    let out = arg(args);
    let s = crate::shared_array!(CPU_TEST_MIRROR: [u32; 1024]);
    let (t, n) = (ids::linear_thread_idx(), ids::block_size());
    let b = ids::block_idx_x();
    s.write(t as usize, t + 1000 * b);
    sync::sync_threads();
    *out.add((b * n + t) as usize) = s.read((n - 1 - t) as usize);
}

#[test]
fn barriers_work_for_every_block_size() {
    for (blocks, threads) in [(1, 1), (2, 33), (3, 256), (1, 1024)] {
        let mut data = std::vec![0u32; (blocks * threads) as usize];
        run(mirror, CpuLaunch::linear(blocks, threads), &mut data).unwrap();
        for b in 0..blocks {
            for t in 0..threads {
                assert_eq!(data[(b * threads + t) as usize], threads - 1 - t + 1000 * b, "block {b} thread {t}");
            }
        }
    }
}

/// The mirror without its barrier: a real race.
unsafe fn mirror_racy(args: &[&[u8]]) {
    let out = arg(args);
    let s = crate::shared_array!(CPU_TEST_RACY: [u32; 64]);
    let t = ids::thread_idx_x();
    s.write(t as usize, t);
    *out.add(t as usize) = s.read((63 - t) as usize);
}

#[test]
fn a_missing_barrier_shows_in_both_schedules() {
    for schedule in [Schedule::Forward, Schedule::Reverse] {
        let mut data = std::vec![0u32; 64];
        run(mirror_racy, CpuLaunch::linear(1, 64).with_schedule(schedule), &mut data).unwrap();
        let wrong = (0..64).filter(|&t| data[t as usize] != 63 - t).count();
        // The threads that run first read shared memory nobody wrote yet: the poison.
        assert!(wrong >= 32, "{schedule:?}: only {wrong} wrong values");
        assert!(data.contains(&0xDBDB_DBDB), "{schedule:?}: no poison read");
    }
}

/// Warp shuffles, votes and reductions against their definitions.
unsafe fn warp_ops(args: &[&[u8]]) {
    let out = arg(args);
    let t = ids::linear_thread_idx();
    let lane = ids::lane_id();
    let base = out.add(t as usize * 6);
    *base = warp::shuffle_idx(warp::FULL_MASK, lane * 10, (lane + 1) % 32);
    *base.add(1) = warp::shuffle_up(warp::FULL_MASK, lane, 3);
    *base.add(2) = warp::shuffle_down(warp::FULL_MASK, lane, 5);
    *base.add(3) = warp::reduce_sum(lane);
    *base.add(4) = warp::ballot(warp::FULL_MASK, lane % 3 == 0);
    *base.add(5) = warp::vote_all(warp::FULL_MASK, lane < 40) as u32 + 2 * warp::vote_any(warp::FULL_MASK, lane == 7) as u32;
}

#[test]
fn warp_collectives_match_their_definitions() {
    let mut data = std::vec![0u32; 64 * 6];
    run(warp_ops, CpuLaunch::linear(1, 64), &mut data).unwrap();
    let ballot = (0..32).filter(|l| l % 3 == 0).fold(0u32, |b, l| b | 1 << l);
    for t in 0..64u32 {
        let l = t % 32;
        let got = &data[t as usize * 6..t as usize * 6 + 6];
        let up = if l >= 3 { l - 3 } else { l };
        let down = if l + 5 < 32 { l + 5 } else { l };
        assert_eq!(got, &[((l + 1) % 32) * 10, up, down, 496, ballot, 3], "thread {t}");
    }
}

/// Thread 5 returns before the barrier the others wait at.
unsafe fn early_exit(args: &[&[u8]]) {
    let _ = arg(args);
    if ids::thread_idx_x() == 5 {
        return;
    }
    sync::sync_threads();
}

#[test]
fn a_barrier_some_thread_never_reaches_is_an_error_not_a_hang() {
    let mut data = std::vec![0u32; 1];
    let e = run(early_exit, CpuLaunch::linear(2, 64), &mut data).unwrap_err();
    let m = e.to_string();
    assert!(m.contains("deadlock") && m.contains("barrier 0"), "{m}");
    assert!(m.contains("(5,0,0) exited"), "{m}");
    assert!(m.contains("block (0,0,0)"), "{m}");
}

/// Half of the warp shuffles with a full mask.
unsafe fn divergent_shuffle(args: &[&[u8]]) {
    let out = arg(args);
    if ids::lane_id() < 16 {
        *out = warp::shuffle_xor(warp::FULL_MASK, 1u32, 1);
    }
}

#[test]
fn a_divergent_shuffle_is_reported() {
    let mut data = std::vec![0u32; 1];
    let m = run(divergent_shuffle, CpuLaunch::linear(1, 32), &mut data).unwrap_err().to_string();
    assert!(m.contains("shuffle_xor") && m.contains("never reached"), "{m}");
}

/// A mask naming lanes a 40-thread block's second warp does not have.
unsafe fn mask_too_wide(args: &[&[u8]]) {
    let _ = arg(args);
    warp::shuffle_idx(warp::FULL_MASK, 0u32, 0);
}

#[test]
fn a_mask_with_missing_lanes_is_reported() {
    let mut data = std::vec![0u32; 1];
    let m = run(mask_too_wide, CpuLaunch::linear(1, 40), &mut data).unwrap_err().to_string();
    assert!(m.contains("it has 8 lanes"), "{m}");
}

/// Thread (3,1,0) of block 2 indexes past a slice.
unsafe fn out_of_bounds(args: &[&[u8]]) {
    let _ = arg(args);
    let v = [1u32, 2, 3];
    let i = ids::thread_idx_x() + ids::thread_idx_y() * 4;
    if ids::block_idx_x() == 2 && i == 7 {
        let _ = v[i as usize];
    }
}

#[test]
fn a_panic_names_the_block_and_thread() {
    let mut data = std::vec![0u32; 1];
    let mut cfg = CpuLaunch::linear(3, 4);
    cfg.block.y = 2;
    let prev = std::panic::take_hook();
    std::panic::set_hook(std::boxed::Box::new(|_| {}));
    let m = run(out_of_bounds, cfg, &mut data).unwrap_err().to_string();
    std::panic::set_hook(prev);
    assert!(m.contains("kernel `test`") && m.contains("block (2,0,0), thread (3,1,0)"), "{m}");
    assert!(m.contains("index out of bounds"), "{m}");
}

/// Block 0 waits (spinning) for a flag the last block sets: blocks must be co-resident.
unsafe fn producer_consumer(args: &[&[u8]]) {
    let flag = arg(args);
    let last = ids::grid_dim_x() - 1;
    if ids::block_idx_x() == last {
        crate::atomics::store(flag, 7u32, crate::atomics::Release, crate::atomics::Gpu);
    } else {
        while crate::atomics::load(flag as *const u32, crate::atomics::Acquire, crate::atomics::Gpu) == 0 {}
        *flag.add(1 + ids::block_idx_x() as usize) = 1;
    }
}

#[test]
fn spinning_threads_let_other_blocks_run() {
    let mut data = std::vec![0u32; 5];
    run(producer_consumer, CpuLaunch::linear(5, 1), &mut data).unwrap();
    assert_eq!(data, [7, 1, 1, 1, 1]);
}

/// Spins forever on a flag nobody sets.
unsafe fn spin_forever(args: &[&[u8]]) {
    let flag = arg(args);
    while crate::atomics::load(flag as *const u32, crate::atomics::Acquire, crate::atomics::Gpu) == 0 {}
}

#[test]
fn a_spin_without_progress_is_an_error() {
    let mut data = std::vec![0u32; 1];
    let m = run(spin_forever, CpuLaunch::linear(1, 2), &mut data).unwrap_err().to_string();
    assert!(m.contains("no progress"), "{m}");
}

#[test]
fn bad_launches_are_refused_with_the_condition() {
    let mut data = std::vec![0u32; 1];
    let cases: Vec<(CpuLaunch, &str)> = std::vec![
        (CpuLaunch::linear(1, 1025), "more than 1024"),
        (CpuLaunch::linear(0, 32), "zero extent"),
        (CpuLaunch::linear(3, 32).with_cluster(ids::Dim3 { x: 2, y: 1, z: 1 }), "cluster divisibility"),
        (CpuLaunch::linear(1, 32).with_shared(SHARED_BYTES_PER_BLOCK + 1), "dynamic shared memory"),
    ];
    for (cfg, want) in cases {
        let m: String = run(mirror, cfg, &mut data).unwrap_err().to_string();
        assert!(m.contains(want), "{m}");
    }
}
