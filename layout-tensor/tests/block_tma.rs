//! cuTile's `allow_tma` at block level on the host: through a [`StagedArray`], `load_with_options`
//! and `store_with_options` move a tile with TMA exactly when the flag, the map, the stage and the
//! access permit, and otherwise take the ordinary path; both give the ordinary path's array
//! contents, and a TMA load differs only where TMA fills the out-of-bounds elements.

use cute_rs_tensor::block_tile::{tma::TmaStage, BlockTile, StagedArray};
use cute_rs_tensor::device::cpu::run_block;
use cute_rs_tensor::device::tma::CpuTensorMap;
use cute_rs_tensor::tile_space::{LoadOptions, Order, Padding, StoreOptions};
use cute_rs_tensor::{block_scratch, blocked_layout, tma_copy::TmaArray, LayoutTensor, Strided};
use proptest::prelude::*;

blocked_layout!(T8x16 = shape [8, 16], size_per_thread [1, 4], threads_per_warp [8, 4], warps_per_cta [1, 1], order [1, 0]);

/// Threads of `T8x16`.
const THREADS: u32 = 32;

/// The `rows x cols` row-major f32 array at `addr` with a map for `box_shape` boxes (NaN outside).
fn with_array<R>(addr: usize, rows: i64, cols: i64, box_shape: [i64; 2], f: impl FnOnce(LayoutTensor<'static, f32, Strided<2>>, TmaArray<f32, 2>) -> R) -> R {
    let tensor = unsafe { LayoutTensor::from_ptr(addr as *mut f32, Strided::row_major([rows, cols])) };
    let map = CpuTensorMap::encode(addr as u64, 4, &[cols as u64, rows as u64], &[cols as u64 * 4], &[box_shape[1] as u32, box_shape[0] as u32], &[1, 1], 0, true).unwrap();
    let array = unsafe { TmaArray::from_parts(tensor, &map, box_shape, 0, f32::NAN) };
    f(tensor, array)
}

fn padding_of(k: u8) -> Padding {
    [Padding::Undetermined, Padding::Zero, Padding::Nan, Padding::NegInf][k as usize % 4]
}

fn allow_of(k: u8) -> Option<bool> {
    [None, Some(true), Some(false)][k as usize % 3]
}

/// Whether the front end must take TMA: allowed, order "C", the map's boxes the tile, and the
/// padding undetermined or NaN (the map's fill). `big_stage`: the stage holds a tile.
fn takes_tma(allow: Option<bool>, f_order: bool, box_is_tile: bool, padding: Padding, big_stage: bool) -> bool {
    allow != Some(false) && !f_order && box_is_tile && matches!(padding, Padding::Undetermined | Padding::Nan) && big_stage
}

fn load_staged<const B: usize>(x: &StagedArray<'_, '_, f32, 2, B>, index: [i64; 2], order: Order<2>, opts: LoadOptions) -> BlockTile<f32, T8x16> {
    BlockTile::<f32, T8x16>::load_with_options(x, index, order, opts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Loads through the staged array equal the plain tensor's, except that where TMA moves the
    /// tile its out-of-bounds elements are NaN whatever the padding.
    #[test]
    fn staged_loads_are_tma_exactly_when_allowed(
        rows in 1i64..40, cols4 in 1i64..16, ti in 0i64..6, tj in 0i64..3,
        allow in 0u8..3, pad in 0u8..4, f_order in any::<bool>(), box_is_tile in any::<bool>(), big in any::<bool>(),
    ) {
        let cols = 4 * cols4;
        let mut x: Vec<f32> = (0..rows * cols).map(|i| 1.0 + i as f32).collect();
        let addr = x.as_mut_ptr() as usize;
        let (allow, padding) = (allow_of(allow), padding_of(pad));
        let order = if f_order { Order::F } else { Order::C };
        let box_shape = if box_is_tile { [8, 16] } else { [4, 16] };
        let tma = takes_tma(allow, f_order, box_is_tile, padding, big);
        let result = run_block(THREADS, &|| with_array(addr, rows, cols, box_shape, |plain, array| {
            let opts = LoadOptions { allow_tma: allow, ..LoadOptions::default().padding(padding) };
            let big_scratch = block_scratch!(LOAD_BIG, 128 + 8 * 16 * 4);
            let small_scratch = block_scratch!(LOAD_SMALL, 128 + 256);
            let (big_stage, small_stage) = (TmaStage::new(&big_scratch), TmaStage::new(&small_scratch));
            let got = if big { load_staged(&array.staged(&big_stage), [ti, tj], order, opts) } else { load_staged(&array.staged(&small_stage), [ti, tj], order, opts) };
            let want = BlockTile::<f32, T8x16>::load_with_options(&plain, [ti, tj], order, opts);
            // Which elements are outside: the array holds no -inf.
            let marked = BlockTile::<f32, T8x16>::load_with_options(&plain, [ti, tj], order, LoadOptions::default().padding(Padding::NegInf));
            for v in 0..4 {
                let (g, w, outside) = (got.values()[v], want.values()[v], marked.values()[v] == f32::NEG_INFINITY);
                if tma && outside {
                    assert!(g.is_nan(), "TMA fills NaN outside the array, got {g}");
                } else {
                    assert_eq!(g.to_bits(), w.to_bits(), "value {v}: staged {g}, plain {w} (tma {tma}, outside {outside})");
                }
            }
        }));
        prop_assert!(result.is_ok(), "{:?}", result.err());
    }

    /// Stores through the staged array, TMA or not, leave the array as a plain store does.
    #[test]
    fn staged_stores_write_what_plain_stores_write(
        rows in 1i64..40, cols4 in 1i64..16, ti in 0i64..5, tj in 0i64..2,
        allow in 0u8..3, f_order in any::<bool>(), box_is_tile in any::<bool>(), big in any::<bool>(),
    ) {
        let cols = 4 * cols4;
        // TMA stores may not start outside the array (non-negative coordinates): keep the tile's
        // first element inside in the order's view.
        let (vr, vc) = if f_order { (cols, rows) } else { (rows, cols) };
        prop_assume!(8 * ti < vr && 16 * tj < vc);
        let n = (rows * cols) as usize;
        let mut staged = vec![-1.0f32; n];
        let mut plain = vec![-1.0f32; n];
        let (sa, pa) = (staged.as_mut_ptr() as usize, plain.as_mut_ptr() as usize);
        let allow = allow_of(allow);
        let order = if f_order { Order::F } else { Order::C };
        let box_shape = if box_is_tile { [8, 16] } else { [4, 16] };
        let result = run_block(THREADS, &|| {
            let tile = BlockTile::<f32, T8x16>::from_coord(|c| (100 * c[0] + c[1]) as f32);
            let opts = StoreOptions { allow_tma: allow, ..StoreOptions::default() };
            let big_scratch = block_scratch!(STORE_BIG, 128 + 8 * 16 * 4);
            let small_scratch = block_scratch!(STORE_SMALL, 128 + 256);
            let (big_stage, small_stage) = (TmaStage::new(&big_scratch), TmaStage::new(&small_scratch));
            with_array(sa, rows, cols, box_shape, |_, array| {
                if big { tile.store_with_options(&array.staged(&big_stage), [ti, tj], order, opts) } else { tile.store_with_options(&array.staged(&small_stage), [ti, tj], order, opts) }
            });
            with_array(pa, rows, cols, box_shape, |t, _| tile.store_with_options(&t, [ti, tj], order, opts));
        });
        prop_assert!(result.is_ok(), "{:?}", result.err());
        prop_assert_eq!(staged, plain);
    }
}

/// A tile stored with TMA and loaded back with TMA through one stage, tile after tile: the
/// stage's barrier phase and the box are reused correctly (a copy of the whole array).
#[test]
fn tma_round_trips_through_one_stage() {
    let (rows, cols) = (27i64, 36i64);
    let mut src: Vec<f32> = (0..rows * cols).map(|i| i as f32 * 0.5).collect();
    let mut dst = vec![-1.0f32; (rows * cols) as usize];
    let (sa, da) = (src.as_mut_ptr() as usize, dst.as_mut_ptr() as usize);
    run_block(THREADS, &|| {
        let scratch = block_scratch!(ROUND_TRIP, 128 + 8 * 16 * 4);
        let stage = TmaStage::new(&scratch);
        with_array(sa, rows, cols, [8, 16], |_, s| {
            with_array(da, rows, cols, [8, 16], |_, d| {
                let (s, d) = (s.staged(&stage), d.staged(&stage));
                for i in 0..4 {
                    for j in 0..3 {
                        load_staged(&s, [i, j], Order::C, LoadOptions::default()).store_with_options(&d, [i, j], Order::C, StoreOptions::default());
                    }
                }
            })
        })
    })
    .unwrap();
    assert_eq!(dst, src);
}
