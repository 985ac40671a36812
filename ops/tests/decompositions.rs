//! Properties of the Hopper GEMMs' work decompositions (`cute_rs_kernels::gemm_sm90_sizes`):
//! whatever the tiles, k-tiles and blocks, the units of all blocks cover every k-tile of every
//! tile exactly once, and each shared tile's parts agree on their counter, on their slots (one
//! each, consecutive, in K order) and on their count, so that the last to arrive sums them all in
//! the same order.

use std::collections::BTreeMap;

use cute_rs_kernels::gemm_sm90_sizes::{Decomposition, Part, StreamK, TileOrder, WorkUnits};
use proptest::prelude::*;

/// Every unit of every block of `blocks`, for the `tiles_m x tiles_n` tiles of `order` and
/// `k_tiles` k-tiles, by block.
fn all_units(order: TileOrder, k_tiles: u32, decomposition: Decomposition, blocks: u32) -> Vec<Vec<cute_rs_kernels::gemm_sm90_sizes::WorkUnit>> {
    (0..blocks).map(|g| WorkUnits::new(order, k_tiles, decomposition, g, blocks).collect()).collect()
}

/// Checks the coverage and the parts of `units` (by block) for `tiles` tiles of `k_tiles`; the
/// slots of all parts must be below `slots`. Returns the number of shared tiles.
fn check_units(units: &[Vec<cute_rs_kernels::gemm_sm90_sizes::WorkUnit>], order: TileOrder, k_tiles: u32, slots: u32) -> Result<usize, TestCaseError> {
    // Each tile's covered k-tiles, and its parts.
    let mut covered: BTreeMap<(u32, u32, u32), Vec<(u32, u32)>> = BTreeMap::new();
    let mut parts: BTreeMap<(u32, u32, u32), Vec<(u32, Part)>> = BTreeMap::new();
    let mut slots_seen = std::collections::BTreeSet::new();
    for block in units {
        for u in block {
            let key = (u.tile.0, u.tile.1, u.batch);
            covered.entry(key).or_default().push(u.k);
            if let Some(p) = u.part {
                prop_assert!(p.slot < slots, "slot {} outside the workspace's {slots}", p.slot);
                prop_assert!(slots_seen.insert(p.slot), "slot {} written twice", p.slot);
                parts.entry(key).or_default().push((u.k.0, p));
            }
        }
    }
    prop_assert_eq!(covered.len() as u32, order.count(), "tiles visited");
    for (tile, mut ranges) in covered {
        ranges.sort();
        let mut next = 0;
        for (b, e) in ranges {
            prop_assert_eq!(b, next, "tile {:?}: a gap or an overlap at k-tile {}", tile, b);
            next = e;
        }
        prop_assert_eq!(next, k_tiles, "tile {:?} covers up to {}", tile, next);
    }
    for (tile, mut ps) in parts.clone() {
        ps.sort_by_key(|(k0, p)| (*k0, p.slot));
        let first = ps[0].1;
        prop_assert_eq!(ps.len() as u32, first.count, "tile {:?}: parts", tile);
        for (i, (_, p)) in ps.iter().enumerate() {
            prop_assert_eq!((p.counter, p.first, p.count), (first.counter, first.first, first.count), "tile {:?}", tile);
            // In K order, slots first, first + 1, ...
            prop_assert_eq!(p.slot, p.first + i as u32, "tile {:?}: part {} in slot {}", tile, i, p.slot);
        }
    }
    // One counter per shared tile.
    let counters: std::collections::BTreeSet<u32> = parts.values().map(|ps| ps[0].1.counter).collect();
    prop_assert_eq!(counters.len(), parts.len(), "counters shared between tiles");
    Ok(parts.len())
}

proptest! {
    #[test]
    fn stream_k_covers_every_k_tile_once(tiles_m in 1u32..12, tiles_n in 1u32..40, k_tiles in 0u32..300, blocks in 1u32..140) {
        let order = TileOrder::new(tiles_m * 128, tiles_n * 128, 128, 128, 8);
        let s = StreamK::new(order.count(), k_tiles, blocks);
        let units = all_units(order, k_tiles, Decomposition::StreamK, blocks);
        let shared = check_units(&units, order, k_tiles, s.slots())?;
        prop_assert!(shared as u32 <= s.sk_tiles);
        // The data-parallel tiles come first in each block, whole, and the blocks' shared
        // ranges are as even as can be.
        if s.sk_blocks > 0 {
            let lengths: Vec<u64> = (0..s.sk_blocks).map(|g| s.begin(g + 1) - s.begin(g)).collect();
            let (lo, hi) = (lengths.iter().min().unwrap(), lengths.iter().max().unwrap());
            prop_assert!(hi - lo <= 1, "uneven shares {lo}..{hi}");
            prop_assert!(*lo >= 1);
        }
        // A whole wave or more, none shared: data-parallel.
        if order.count() % blocks == 0 {
            prop_assert_eq!(s.sk_tiles, 0);
        }
    }

    #[test]
    fn split_k_covers_every_k_tile_once(tiles_m in 1u32..6, tiles_n in 1u32..20, k_tiles in 0u32..100, splits in 2u32..17, blocks in 1u32..140) {
        let order = TileOrder::new(tiles_m * 128, tiles_n * 256, 128, 256, 8);
        let units = all_units(order.batched(splits), k_tiles, Decomposition::SplitK(splits), blocks);
        // Split-K's units are the batches of the order; they belong to batch 0.
        let slots = order.count() * splits;
        let shared = check_units(&units, order, k_tiles, slots)?;
        prop_assert_eq!(shared as u32, order.count());
    }

    #[test]
    fn data_parallel_takes_every_tile_whole(tiles_m in 1u32..6, tiles_n in 1u32..20, batches in 1u32..4, k_tiles in 0u32..100, blocks in 1u32..140) {
        let order = TileOrder::new(tiles_m * 128, tiles_n * 256, 128, 256, 8).batched(batches);
        let units = all_units(order, k_tiles, Decomposition::DataParallel, blocks);
        prop_assert!(units.iter().flatten().all(|u| u.part.is_none() && u.k == (0, k_tiles)));
        prop_assert_eq!(units.iter().map(Vec::len).sum::<usize>() as u32, order.count());
    }
}

#[test]
fn stream_k_at_a_decode_shape() {
    // 128 x 4096 x 14336 in decode tiles (128 of N): 32 tiles of 224 k-tiles on 132 SMs, every
    // block 54 or 55 k-tiles, each tile in 5 or 6 parts.
    let s = StreamK::new(32, 224, 132);
    assert_eq!((s.sk_tiles, s.sk_blocks, s.slots()), (32, 132, 163));
    assert!((0..32).all(|j| matches!(s.segments(j).1, 5 | 6)));
    // Few k-tiles: fewer blocks, each at least 16 k-tiles.
    let s = StreamK::new(4, 20, 132);
    assert_eq!(s.sk_blocks, 5);
    assert!((0..5).all(|g| s.begin(g + 1) - s.begin(g) >= StreamK::MIN_K_TILES as u64));
}
