//! Layout conversions of block tiles through shared memory: [`BlockTile::convert_layout`]
//! (Triton's `convert_layout`, which its compiler inserts between operations whose layouts
//! differ), [`BlockTile::permute`] (`tl.permute`, `ct.permute`) and [`BlockTile::trans`]
//! (`tl.trans`, `ct.transpose`).
//!
//! Every thread writes its values into the block's [`Scratch`] at their row-major index, the
//! block synchronizes, and every thread reads the values of the new layout: a tile of any layout
//! becomes a tile of any other layout of the same (or permuted) shape.

use super::{for_each_value, BlockTile, Scratch, TvLayout, MAX_RANK};
use crate::device::sync::sync_threads;

/// The row-major index of `coord` in a tile of `shape`.
#[inline(always)]
fn row_major(shape: &[i64; MAX_RANK], coord: &[i64; MAX_RANK], rank: usize) -> i64 {
    let mut index = 0;
    let mut d = 0;
    while d < rank {
        index = index * shape[d] + coord[d];
        d += 1;
    }
    index
}

impl<T: Copy, L: TvLayout> BlockTile<T, L> {
    /// The same tile held in layout `L2` (of the same shape): Triton's `convert_layout`.
    ///
    /// # Parameters
    /// - `L2`: the new layout.
    ///
    /// # Args
    /// - `scratch`: the block's scratch, at least the tile's size in `T`s.
    ///
    /// # Constraints
    /// Checked at compile time: `L2` has `L`'s shape and threads; the scratch holds the tile.
    /// Every thread of the block calls it (three barriers: earlier users of the scratch are done
    /// before it is written, the writes before the reads, the reads before it returns).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::{block_scratch, blocked_layout};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(Rows = shape [32, 32], size_per_thread [1, 4], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
    /// blocked_layout!(Cols = shape [32, 32], size_per_thread [4, 1], threads_per_warp [8, 4], warps_per_cta [1, 1], order [0, 1]);
    /// let scratch = block_scratch!(CONVERT_EXAMPLE, 4096);
    /// let x = BlockTile::<i32, Rows>::from_coord(|c| (c[0] * 32 + c[1]) as i32);
    /// let y = x.convert_layout::<Cols, 4096>(&scratch);
    /// // Each thread now holds runs down the columns (thread 0: rows 0..4 of column 0 first).
    /// assert_eq!(y.values(), BlockTile::<i32, Cols>::from_coord(|c| (c[0] * 32 + c[1]) as i32).values());
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn convert_layout<L2: TvLayout, const BYTES: usize>(&self, scratch: &Scratch<BYTES>) -> BlockTile<T, L2> {
        const {
            let mut d = 0;
            while d < MAX_RANK {
                assert!(L::SHAPE[d] == L2::SHAPE[d], "convert_layout: the new layout must have the tile's shape");
                d += 1;
            }
        };
        self.permute_to::<L2, BYTES>([0, 1, 2, 3, 4], scratch)
    }

    /// The tile with its dimensions permuted, held in layout `L2`: `tl.permute(x, dims)`, where
    /// dimension `d` of the result is dimension `dims[d]` of this tile.
    ///
    /// # Parameters
    /// - `L2`: the result's layout; its shape is this tile's permuted by `dims`.
    ///
    /// # Args
    /// - `dims`: a permutation of `0..RANK`.
    /// - `scratch`: the block's scratch, at least the tile's size in `T`s.
    ///
    /// # Constraints
    /// `dims` is a permutation and `L2`'s shape is the permuted shape: checked on every call (a
    /// kernel stops with "permute: dims must be a permutation of the tile's dimensions, and the
    /// new layout's shape the permuted shape"; with constant `dims` the check folds away); `L2`
    /// has `L`'s threads and the scratch holds the tile (compile time). Every thread of the block
    /// calls it, as [`convert_layout`](Self::convert_layout).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::{block_scratch, blocked_layout};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(A = shape [2, 4, 8], size_per_thread [1, 1, 2], threads_per_warp [2, 4, 4], warps_per_cta [1, 1, 1], order [2, 1, 0]);
    /// blocked_layout!(P = shape [8, 2, 4], size_per_thread [2, 1, 1], threads_per_warp [4, 2, 4], warps_per_cta [1, 1, 1], order [2, 1, 0]);
    /// let scratch = block_scratch!(PERMUTE_EXAMPLE, 256);
    /// let x = BlockTile::<i32, A>::from_coord(|c| (c[0] * 100 + c[1] * 10 + c[2]) as i32);
    /// let y = x.permute::<P, 256>(&[2, 0, 1], &scratch); // y[k, i, j] = x[i, j, k]
    /// let want = BlockTile::<i32, P>::from_coord(|c| (c[1] * 100 + c[2] * 10 + c[0]) as i32);
    /// assert_eq!(y.values(), want.values());
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn permute<L2: TvLayout, const BYTES: usize>(&self, dims: &[usize], scratch: &Scratch<BYTES>) -> BlockTile<T, L2> {
        let mut full = [0, 1, 2, 3, 4];
        let mut valid = L2::RANK == L::RANK && crate::strided::not_in_permutation(dims, L::RANK).is_none();
        let mut d = 0;
        while valid && d < L::RANK {
            valid &= L2::SHAPE[d] == L::SHAPE[dims[d]];
            full[d] = dims[d];
            d += 1;
        }
        crate::device_assert!(valid, "permute: dims must be a permutation of the tile's dimensions, and the new layout's shape the permuted shape");
        self.permute_to::<L2, BYTES>(full, scratch)
    }

    /// The transpose of a 2-D tile, held in layout `L2` of the transposed shape: `tl.trans(x)`,
    /// [`permute`](Self::permute) with `[1, 0]`, checked at compile time.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(64, &|| {
    /// use cute_rs_tensor::{block_scratch, blocked_layout};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(Wide = shape [16, 64], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [2, 1], order [1, 0]);
    /// blocked_layout!(Tall = shape [64, 16], size_per_thread [1, 4], threads_per_warp [8, 4], warps_per_cta [2, 1], order [1, 0]);
    /// let scratch = block_scratch!(TRANS_EXAMPLE, 4096);
    /// let x = BlockTile::<f32, Wide>::from_coord(|c| (c[0] * 64 + c[1]) as f32);
    /// let t = x.trans::<Tall, 4096>(&scratch);
    /// assert_eq!(t.values(), BlockTile::<f32, Tall>::from_coord(|c| (c[1] * 64 + c[0]) as f32).values());
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn trans<L2: TvLayout, const BYTES: usize>(&self, scratch: &Scratch<BYTES>) -> BlockTile<T, L2> {
        const {
            assert!(L::RANK == 2 && L2::RANK == 2, "trans: the tiles must be 2-D");
            assert!(L2::SHAPE[0] == L::SHAPE[1] && L2::SHAPE[1] == L::SHAPE[0], "trans: the new layout must have the transposed shape");
        };
        self.permute_to::<L2, BYTES>([1, 0, 2, 3, 4], scratch)
    }

    /// The tile through the scratch into `L2`, dimension `d` of the result being dimension
    /// `dims[d]` of this tile (`dims` a checked permutation).
    #[inline(always)]
    fn permute_to<L2: TvLayout, const BYTES: usize>(&self, dims: [usize; MAX_RANK], scratch: &Scratch<BYTES>) -> BlockTile<T, L2> {
        const {
            assert!(L2::THREADS == L::THREADS, "convert_layout: both layouts must have the same threads");
            assert!(L::MAP.size() as usize * core::mem::size_of::<T>() <= BYTES, "convert_layout: the scratch must hold the tile");
        };
        let slots = scratch.slots::<T>();
        let values = self.values();
        // Earlier users of the scratch are done before it is overwritten.
        sync_threads();
        let from = L::MAP.thread_coord(super::thread());
        for_each_value::<L>(|v| {
            let vc = L::MAP.value_coord(v);
            let mut c = [0; MAX_RANK];
            let mut d = 0;
            while d < MAX_RANK {
                c[d] = from[d] + vc[d];
                d += 1;
            }
            // SAFETY: the row-major index of an element of the tile, inside the scratch (checked
            // above). Replicas write the same value.
            unsafe { slots.add(row_major(&L::SHAPE, &c, L::RANK) as usize).write(values[v]) };
        });
        sync_threads();
        let out = BlockTile::<T, L2>::from_coord(|to| {
            let mut c = [0; MAX_RANK];
            let mut d = 0;
            while d < L2::RANK {
                c[dims[d]] = to[d];
                d += 1;
            }
            // SAFETY: written above by the element's holder(s) in `L`.
            unsafe { slots.add(row_major(&L::SHAPE, &c, L::RANK) as usize).read() }
        });
        // Every thread's reads are done before the scratch is reused.
        sync_threads();
        out
    }
}
