//! Mojo's thread-aware copies (`cute_rs_tensor::thread_copy`) on the host: the threads of a
//! thread layout together copy every element of a tile exactly as the layouts say, synchronously
//! and through `cp.async`, full, partial (masked) and into a swizzled shared tile.

use cute_rs_tensor::partition::{StaticSwizzle, Sw};
use cute_rs_tensor::thread_copy::{copy_dram_to_sram, copy_dram_to_sram_async, copy_sram_to_dram, SwizzledBy};
use cute_rs_tensor::{async_copy_wait_all, static_layout, LayoutTensor, Shared, Static};
use proptest::prelude::*;

static_layout!(Matrix = "(19,21):(21,1)"); // neither extent a multiple of the tile's
static_layout!(Tile = "(8,8):(8,1)");
static_layout!(Threads = "(4,8):(8,1)"); // 32 threads, fragments of 2 rows
const ROWS: i64 = 19;
const COLS: i64 = 21;

/// Whether tile `(ti, tj)`'s element `(r, c)` lies inside the matrix.
fn inside(ti: i64, tj: i64, r: i64, c: i64) -> bool {
    8 * ti + r < ROWS && 8 * tj + c < COLS
}

#[repr(align(16))]
struct Smem([f32; 64]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Synchronous and asynchronous copies of partial tiles into plain and swizzled shared tiles:
    /// inside elements land where the (swizzled) layout says, outside ones are skipped by the
    /// synchronous copy and zero-filled by `cp.async`.
    #[test]
    fn every_element_lands_once(ti in 0i64..3, tj in 0i64..3, seed in any::<u32>(), swizzle in 0u8..3, asynchronous in any::<bool>()) {
        let mut g: Vec<f32> = (0..ROWS * COLS).map(|i| (i as u32 ^ seed) as f32).collect();
        let want_at = |r: i64, c: i64, g: &[f32]| if inside(ti, tj, r, c) { g[((8 * ti + r) * COLS + 8 * tj + c) as usize] } else if asynchronous { 0.0 } else { -1.0 };
        let expected: Vec<f32> = (0..64).map(|k| want_at(k / 8, k % 8, &g)).collect();
        let global = LayoutTensor::new(&mut g, Static::<Matrix>::new()).unwrap();
        let src = global.tile_masked::<Tile, 2>([ti, tj]);
        let mut s = Smem([-1.0; 64]);
        let shared = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(s.0.as_mut_ptr(), Static::<Tile>::new()) };
        // Where element k of the tile (row-major offset k) is stored under each swizzle.
        let place: fn(i64) -> i64 = match swizzle {
            0 => |k| k,
            1 => |k| <Sw<1, 0, 3> as StaticSwizzle>::SWIZZLE.apply(k),
            _ => |k| <Sw<2, 0, 3> as StaticSwizzle>::SWIZZLE.apply(k),
        };
        for tid in 0..32 {
            match (swizzle, asynchronous) {
                (0, false) => copy_dram_to_sram::<Threads, 2, _, _>(shared, src, tid),
                (0, true) => copy_dram_to_sram_async::<Threads, 2, _, _>(shared, src, tid),
                (1, false) => copy_dram_to_sram::<Threads, 2, _, _>(SwizzledBy::<Sw<1, 0, 3>, _>::new(shared), src, tid),
                (1, true) => copy_dram_to_sram_async::<Threads, 2, _, _>(SwizzledBy::<Sw<1, 0, 3>, _>::new(shared), src, tid),
                (_, false) => copy_dram_to_sram::<Threads, 2, _, _>(SwizzledBy::<Sw<2, 0, 3>, _>::new(shared), src, tid),
                (_, true) => copy_dram_to_sram_async::<Threads, 2, _, _>(SwizzledBy::<Sw<2, 0, 3>, _>::new(shared), src, tid),
            }
        }
        async_copy_wait_all();
        for k in 0..64i64 {
            prop_assert_eq!(s.0[place(k) as usize].to_bits(), expected[k as usize].to_bits(), "tile element {} (swizzle {}, async {})", k, swizzle, asynchronous);
        }
    }

    /// The copy back into a partial tile writes exactly the inside elements.
    #[test]
    fn stores_write_only_inside(ti in 0i64..3, tj in 0i64..3, seed in any::<u32>()) {
        let mut g = vec![-7.0f32; (ROWS * COLS) as usize];
        let mut s = Smem(core::array::from_fn(|k| (k as u32 ^ seed) as f32));
        let vals = s.0;
        let global = LayoutTensor::new(&mut g, Static::<Matrix>::new()).unwrap();
        let shared = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(s.0.as_mut_ptr(), Static::<Tile>::new()) };
        for tid in 0..32 {
            copy_sram_to_dram::<Threads, 2, _, _>(global.tile_masked::<Tile, 2>([ti, tj]), shared, tid);
        }
        for r in 0..ROWS {
            for c in 0..COLS {
                let (tr, tc) = (r - 8 * ti, c - 8 * tj);
                let want = if (0..8).contains(&tr) && (0..8).contains(&tc) { vals[(8 * tr + tc) as usize] } else { -7.0 };
                prop_assert_eq!(g[(r * COLS + c) as usize], want, "element ({}, {})", r, c);
            }
        }
    }
}
