//! The examples of cuTile's `load`/`store` documentation and Triton's indirect load, written at
//! block level (`cute_rs_tensor::block_tile`): the tile is a value of the whole block, spread over
//! its threads (small tiles are replicated, and a replicated element is stored once). Beside them,
//! Triton's cache hints on 1- and 2-byte elements, a block pointer with `boundary_check`, and
//! cuTile's `allow_tma` load (one TMA copy per tile).

use cute_rs_tensor::block_tile::{load, make_block_ptr, store, store_broadcast, store_with, where_, BlockTile, Ptr, Slice, TmaStage};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y};
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::triton::{Cg, Cs, EvictFirst, EvictLast, Wt};
use cute_rs_tensor::tma_copy::TmaArray;
use cute_rs_tensor::{block_scratch, blocked_layout, kernel, Element, LayoutTensor, Strided};
use cute_rs_tensor::tile_space::{LoadOptions, Order, StoreOptions};

blocked_layout!(
    /// A tile of 4 over one warp (each element held by 8 threads).
    pub Four = shape [4], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]
);
blocked_layout!(
    /// A tile of one element, held by every thread of the warp.
    pub Single = shape [1], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]
);
blocked_layout!(
    /// A tile of 16 over one warp.
    pub Sixteen = shape [16], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]
);
blocked_layout!(
    /// A `(1, 4)` tile over one warp.
    pub Row4 = shape [1, 4], size_per_thread [1, 1], threads_per_warp [8, 4], warps_per_cta [1, 1], order [1, 0]
);
blocked_layout!(
    /// A `(1, 2, 2)` tile over one warp.
    pub Box122 = shape [1, 2, 2], size_per_thread [1, 1, 1], threads_per_warp [8, 2, 2], warps_per_cta [1, 1, 1], order [2, 1, 0]
);
blocked_layout!(
    /// A `(1, 1)` tile (one element, every thread of the warp holding it).
    pub One = shape [1, 1], size_per_thread [1, 1], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]
);

/// `array` viewed through cuTile's `order` (a permutation, so the view addresses the same
/// elements).
#[inline(always)]
fn ordered<T: Element, const R: usize>(array: LayoutTensor<'static, T, Strided<R>>, order: [usize; R]) -> LayoutTensor<'static, T, Strided<R>> {
    match array.permute(order) {
        Ok(a) => a,
        Err(_) => panic!("cuTile order: a permutation of the dimensions"),
    }
}

/// cuTile's documented 1-D loads, the tile a block value: `out[4k..4k+4]` = tile `k` of shape 4
/// of `x = arange(10)` for `k = 0, 1, 2` (zero padding): `[0..4], [4..8], [8, 9, 0, 0]`.
///
/// Preconditions: `x` holds 10 values, `out` 12; one block of 32 threads.
#[kernel(block(32))]
pub fn block_seed_load_1d(x: *const i64, out: *mut i64) {
    let x = LayoutTensor::from_ptr(x as *mut i64, Strided::row_major([10]));
    let out = LayoutTensor::from_ptr(out, Strided::row_major([12]));
    for k in 0..3 {
        BlockTile::<i64, Four>::load(&x, [k], 0).store(&out, [k]);
    }
}

/// cuTile's documented 2-D loads in order "F": tile `(i, 0)` of shape `(1, 4)` of
/// `arange(16).reshape(4, 4)` seen through order `[1, 0]` is column `i`; `out[4i..4i+4]`.
///
/// Preconditions: `x` holds 16 values, `out` 16; one block of 32 threads.
#[kernel(block(32))]
pub fn block_seed_load_2d_f(x: *const i64, out: *mut i64) {
    let x = ordered(LayoutTensor::from_ptr(x as *mut i64, Strided::row_major([4, 4])), [1, 0]);
    let out = LayoutTensor::from_ptr(out, Strided::row_major([4, 4]));
    for i in 0..4 {
        BlockTile::<i64, Row4>::load(&x, [i, 0], 0).store(&out, [i, 0]);
    }
}

/// cuTile's documented 3-D loads with order `(0, 2, 1)`: tiles `(0,0,0)` and `(1,0,0)` of shape
/// `(1, 2, 2)` of `arange(8).reshape(2, 2, 2)`, row-major in `out`: `[[0, 2], [1, 3]]`,
/// `[[4, 6], [5, 7]]`.
///
/// Preconditions: `x` holds 8 values, `out` 8; one block of 32 threads.
#[kernel(block(32))]
pub fn block_seed_load_3d(x: *const i64, out: *mut i64) {
    let x = ordered(LayoutTensor::from_ptr(x as *mut i64, Strided::row_major([2, 2, 2])), [0, 2, 1]);
    let out = LayoutTensor::from_ptr(out, Strided::row_major([2, 2, 2]));
    for k in 0..2 {
        BlockTile::<i64, Box122>::load(&x, [k, 0, 0], 0).store(&out, [k, 0, 0]);
    }
}

/// cuTile's documented scalar loads: the block loads the one-element tile `x[i]` for `i < 10`
/// (a 0-d tile: every thread holds the value) and gathers them into a tile of 16 whose first 10
/// elements are stored: `out = arange(10)`.
///
/// Preconditions: `x` holds 10 values, `out` 10; one block of 32 threads.
#[kernel(block(32))]
pub fn block_seed_load_scalar(x: *const i64, out: *mut i64) {
    let x = LayoutTensor::from_ptr(x as *mut i64, Strided::row_major([10]));
    let out = LayoutTensor::from_ptr(out, Strided::row_major([10]));
    let index = BlockTile::<i32, Sixteen>::arange(0);
    let mut gathered = BlockTile::<i64, Sixteen>::zeros();
    for i in 0..10 {
        let scalar = BlockTile::<i64, Single>::load(&x, [i], 0).values()[0];
        gathered = where_(index.equal(i as i32), scalar, gathered);
    }
    gathered.store(&out, [0]);
}

/// cuTile's documented partial store: `ones(4)` at tile 0 and `2 * ones(4)` at tile 1 of a
/// 6-element array (the last two elements of the second tile are dropped): `[1, 1, 1, 1, 2, 2]`.
///
/// Preconditions: `x` holds 6 values (what follows is never written); one block of 32 threads.
#[kernel(block(32))]
pub fn block_seed_store_partial(x: *mut i32) {
    let x = LayoutTensor::from_ptr(x, Strided::row_major([6]));
    BlockTile::<i32, Four>::full(1).store(&x, [0]);
    BlockTile::<i32, Four>::full(2).store(&x, [1]);
}

/// cuTile's documented scalar stores, broadcast to `(1, 1)` tiles: `x[i, j] = 2i + j` in a
/// 2 x 2 array: `[[0, 1], [2, 3]]`.
///
/// Preconditions: `x` holds 4 values; one block of 32 threads.
#[kernel(block(32))]
pub fn block_seed_store_scalar(x: *mut i32) {
    let x = LayoutTensor::from_ptr(x, Strided::row_major([2, 2]));
    for i in 0..2 {
        for j in 0..2 {
            store_broadcast::<i32, One, 2>(&x, [i, j], (2 * i + j) as i32);
        }
    }
}

/// `XS` and `RS` of Triton's indirect load example: rows per program, columns gathered.
pub const INDIRECT_XS: usize = 4;
/// See [`INDIRECT_XS`].
pub const INDIRECT_RS: usize = 16;

blocked_layout!(
    /// The `XS x RS` tile of Triton's indirect load example over 2 warps.
    pub Indirect = shape [4, 16], size_per_thread [1, 1], threads_per_warp [2, 16], warps_per_cta [2, 1], order [1, 0]
);

/// Triton's `triton_ldst_indirect_07_kernel` with block tiles, line by line: program `pid` loads
/// `tmp0 = load(xr + pid * XS + arange(XS))[:, None]` and `tmp1 = load(xc + arange(RS))[None, :]`,
/// gathers `x2[tmp0 * stride_in_r + tmp1]` and stores it to `out[(pid * XS + r) * RS + c]`.
///
/// Preconditions: `xr` holds `grid * XS` row indices, `xc` `RS` column indices, each
/// `xr[r] * stride_in_r + xc[c]` indexes `x2`, and `out` holds `grid * XS * RS` floats; blocks of
/// 64 threads.
#[kernel(block(64))]
pub fn block_seed_ldst_indirect_07(out: *mut f32, xr: *const i64, xc: *const i64, x2: *const f32, stride_in_r: i64) {
    let pid = block_idx_x() as i32;
    let rows = BlockTile::<i32, Slice<Indirect, 1>>::arange(0) + pid * INDIRECT_XS as i32;
    let cols = BlockTile::<i32, Slice<Indirect, 0>>::arange(1);
    let tmp0 = load(&Ptr::tile::<Slice<Indirect, 1>>(xr).offset(rows)).run();
    let tmp1 = load(&Ptr::tile::<Slice<Indirect, 0>>(xc).offset(cols)).run();
    let in_idx2 = BlockTile::<i64, Indirect>::zeros() + tmp0 * stride_in_r + tmp1;
    let tmp2 = load(&Ptr::tile::<Indirect>(x2).offset(in_idx2)).run();
    let out_idx = BlockTile::<i32, Indirect>::arange(1) + rows * INDIRECT_RS as i32;
    store(&Ptr::tile::<Indirect>(out).offset(out_idx), tmp2);
}

blocked_layout!(
    /// 512 elements over 4 warps, 4 consecutive per thread.
    pub Hinted = shape [512], size_per_thread [4], threads_per_warp [32], warps_per_cta [4], order [0]
);

/// Triton's cache hints on 2- and 1-byte elements: program `pid` copies its 512 `f16` with
/// `eviction_policy="evict_last"` loads (no cache operator: the L1 and L2 priorities) and `.cs`
/// stores, and its 512 bytes with `.cg` + `evict_first` loads and `.wt` + `evict_last` stores,
/// masked to `n`.
///
/// Preconditions: each array holds `n` elements; blocks of 128 threads.
#[kernel(block(128))]
pub fn block_hinted_copy(src16: *const f16, dst16: *mut f16, src8: *const u8, dst8: *mut u8, n: i64) {
    let offs = BlockTile::<i32, Hinted>::arange(0) + block_idx_x() as i32 * 512;
    let mask = offs.lt(n as i32);
    let halves = load(&Ptr::tile::<Hinted>(src16).offset(offs)).mask(mask).eviction_policy(EvictLast).run();
    store_with(&Ptr::tile::<Hinted>(dst16).offset(offs), halves).mask(mask).cache_modifier(Cs).run();
    let bytes = load(&Ptr::tile::<Hinted>(src8).offset(offs)).mask(mask).cache_modifier(Cg).eviction_policy(EvictFirst).run();
    store_with(&Ptr::tile::<Hinted>(dst8).offset(offs), bytes).mask(mask).cache_modifier(Wt).eviction_policy(EvictLast).run();
}

blocked_layout!(
    /// A 16 x 64 block over 4 warps, rows of 4 consecutive floats per thread.
    pub PadBlock = shape [16, 64], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [4, 1], order [1, 0]
);

/// Block pointers with `boundary_check`: block `(x, y)` points at `(16 y, 64 x - 64)` of the
/// `rows x cols` row-major `src`, advances by `(0, 64)`, loads with `boundary_check=(0, 1)` and
/// `padding_option="nan"`, and stores at the same place of the `drows x dcols` row-major `dst`
/// with `boundary_check=(0, 1)`: `dst` is `src` padded with NaN. The load is hinted
/// (`cache_modifier=".cg"`, `eviction_policy="evict_last"`).
///
/// Preconditions: `drows >= rows`, `dcols >= cols`; grid `(dcols / 64, drows / 16)` rounded up;
/// blocks of 128 threads.
#[kernel(block(128))]
pub fn block_ptr_pad(src: *const f32, dst: *mut f32, rows: i64, cols: i64, drows: i64, dcols: i64) {
    let src = LayoutTensor::from_ptr(src as *mut f32, Strided::row_major([rows, cols]));
    let dst = LayoutTensor::from_ptr(dst, Strided::row_major([drows, dcols]));
    let (by, bx) = (block_idx_y() as i64, block_idx_x() as i64);
    let Ok(before) = make_block_ptr::<f32, PadBlock, 2>(&src, [16 * by, 64 * bx - 64], [1, 0]) else { return };
    let tile = before.advance([0, 64]).load().boundary_check(&[0, 1]).padding_nan().cache_modifier(Cg).eviction_policy(EvictLast).run();
    if let Ok(out) = make_block_ptr::<f32, PadBlock, 2>(&dst, [16 * by, 64 * bx], [1, 0]) {
        let _ = out.store(&tile, &[0, 1]);
    }
}

blocked_layout!(
    /// A 16 x 64 tile over 128 threads, 4 consecutive columns each (16-byte vectors of f32).
    pub TmaTile = shape [16, 64], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [4, 1], order [1, 0]
);

/// cuTile's `ct.load(src, (y, x), (16, 64), allow_tma=True)`: block `y` loads the tiles of its
/// band of 16 rows of `src` one after another with TMA (one stage, its phase flipping at each
/// tile) and stores them at the same tile index of the `drows x dcols` row-major `dst`: `dst` is
/// `src` padded with the map's fill (when the map's boxes are not 16 x 64, the same through
/// ordinary loads).
///
/// Preconditions: `drows`, `dcols` multiples of 16 and 64, at least `src`'s extents; grid
/// `(1, drows / 16)`; blocks of 128 threads.
#[kernel(block(128))]
pub fn block_tma_pad(src: TmaArray<f32, 2>, dst: *mut f32, drows: i64, dcols: i64) {
    let dst = LayoutTensor::from_ptr(dst, Strided::row_major([drows, dcols]));
    let scratch = block_scratch!(BLOCK_TMA_STAGE, 128 + 16 * 64 * 4);
    let mut stage = TmaStage::new(&scratch);
    let by = block_idx_y() as i64;
    for bx in 0..dcols / 64 {
        BlockTile::<f32, TmaTile>::load_tma(&src, [by, bx], &mut stage).store(&dst, [by, bx]);
    }
}

/// cuTile's `ct.load(src, (y, x), (16, 64), allow_tma=allow)` and `ct.store(dst, (y, x), tile,
/// allow_tma=allow)` through the one front end: block `y` copies the tiles of its band of 16 rows
/// of `src` into `dst` (both `rows x cols`), TMA moving them where the arrays' maps are for 16 x 64
/// boxes and `allow` is not 0, ordinary accesses otherwise; `dst` becomes `src` either way.
///
/// Preconditions: grid `(1, ceil(rows / 16))`; blocks of 128 threads.
#[kernel(block(128))]
pub fn block_tma_flag_copy(src: TmaArray<f32, 2>, dst: TmaArray<f32, 2>, allow: u32) {
    let scratch = block_scratch!(BLOCK_TMA_FLAG_STAGE, 128 + 16 * 64 * 4);
    let stage = TmaStage::new(&scratch);
    let (src, dst) = (src.staged(&stage), dst.staged(&stage));
    let allow_tma = if allow == 0 { Some(false) } else { None };
    let by = block_idx_y() as i64;
    let cols = dst.array().tensor().source().shape[1];
    for bx in 0..(cols + 63) / 64 {
        let load = LoadOptions { allow_tma, ..LoadOptions::default() };
        let tile = BlockTile::<f32, TmaTile>::load_with_options(&src, [by, bx], Order::C, load);
        tile.store_with_options(&dst, [by, bx], Order::C, StoreOptions { allow_tma, ..StoreOptions::default() });
    }
}

blocked_layout!(
    /// A 4 x 32 tile over one warp, 4 consecutive values of a row per thread.
    pub Rows4x32 = shape [4, 32], size_per_thread [1, 4], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]
);

/// cuTile's block-level options: tile `(0, 0)` of shape 4 x 32 of the 32 x 3 matrix `x` in order
/// "F" (its transpose, 3 x 32 inside), loaded with acquire loads at device scope and `-inf`
/// padding, stored into the 4 x 32 matrix `out` with release stores at block scope; then the
/// same tile again, with weak accesses, into rows 4..8 of `out`.
///
/// Preconditions: `x` holds 96 floats, `out` 256; one block of 32 threads.
#[kernel(block(32))]
pub fn block_cutile_options(x: *const f32, out: *mut f32) {
    use cute_rs_tensor::tile_space::{MemoryOrder, MemoryScope, Padding};
    let x = LayoutTensor::from_ptr(x as *mut f32, Strided::row_major([32, 3]));
    let out = LayoutTensor::from_ptr(out, Strided::row_major([8, 32]));
    let acquire = LoadOptions::default().padding(Padding::NegInf).memory(MemoryOrder::Acquire, MemoryScope::Device);
    let release = StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::Block);
    BlockTile::<f32, Rows4x32>::load_with_options(&x, [0, 0], Order::F, acquire).store_with_options(&out, [0, 0], Order::C, release);
    let weak = LoadOptions::default().padding(Padding::NegInf);
    BlockTile::<f32, Rows4x32>::load_with_options(&x, [0, 0], Order::F, weak).store_with_options(&out, [1, 0], Order::C, StoreOptions::default());
}

blocked_layout!(
    /// A 64 x 64 tile of 16-bit elements over 256 threads, 8 consecutive columns each.
    pub Square64 = shape [64, 64], size_per_thread [1, 8], threads_per_warp [4, 8], warps_per_cta [8, 1], order [1, 0]
);

/// cuTile's transpose sample at block level, through TMA both ways: block `(x, y)` loads tile
/// `(y, x)` of the `m x n` matrix `src` with one TMA copy (`load_tma`), transposes it through
/// shared memory (`trans`), and stores it as tile `(x, y)` of the `n x m` matrix `dst` with one
/// TMA copy (`store_tma`); partial tiles are clipped by the copy engine.
///
/// Preconditions: both arrays' maps are for 64 x 64 boxes; grid `(ceil(n / 64), ceil(m / 64))`;
/// blocks of 256 threads.
#[kernel(block(256))]
pub fn transpose_tma_bf16(src: TmaArray<bf16, 2>, dst: TmaArray<bf16, 2>) {
    const BOX: usize = 128 + 64 * 64 * 2;
    let load_scratch = block_scratch!(TRANSPOSE_TMA_LOAD, BOX);
    let store_scratch = block_scratch!(TRANSPOSE_TMA_STORE, BOX);
    let trans_scratch = block_scratch!(TRANSPOSE_TMA_TRANS, 64 * 64 * 2);
    let (mut load_stage, mut store_stage) = (TmaStage::new(&load_scratch), TmaStage::new(&store_scratch));
    let (x, y) = (block_idx_x() as i64, block_idx_y() as i64);
    let tile = BlockTile::<bf16, Square64>::load_tma(&src, [y, x], &mut load_stage);
    tile.trans::<Square64, { 64 * 64 * 2 }>(&trans_scratch).store_tma(&dst, [x, y], &mut store_stage);
}
