//! The tile shapes of the Hopper GEMM kernels (`gemm_sm90`, sm_90a only), in a module every build
//! has, so that the host (`src/gpu_suite/gemm_sm90.rs`) launches with exactly what the kernels use.

/// K per stage (64 bf16 = one 128-byte swizzle row).
pub const GEMM_SM90_BK: u32 = 64;

/// A block tile of the Hopper GEMM: `bm x bn` outputs, `warpgroups` consumer warpgroups (each owns
/// `bm / (64 * warpgroups)` m64 row slices of all `bn` columns), a ring of `stages` TMA stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmSm90Shape {
    /// Output rows per block.
    pub bm: u32,
    /// Output columns per block.
    pub bn: u32,
    /// Warpgroups (of 128 threads) per block.
    pub warpgroups: u32,
    /// Stages of the TMA ring.
    pub stages: u32,
}

impl GemmSm90Shape {
    /// Threads per block.
    pub const fn threads(&self) -> u32 {
        128 * self.warpgroups
    }
    /// Bytes of one stage (an `A` box of `bm x 64` and a `B` box of `bn x 64` bf16).
    pub const fn stage_bytes(&self) -> u32 {
        (self.bm + self.bn) * GEMM_SM90_BK * 2
    }
    /// Dynamic shared memory of a launch.
    pub const fn smem_bytes(&self) -> u32 {
        self.stages * self.stage_bytes()
    }
}

/// 128 x 128 tiles, one warpgroup (two m64n128 accumulator sets per thread).
pub const GEMM_SM90_128X128: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 128, warpgroups: 1, stages: 4 };
/// 128 x 256 tiles, two warpgroups (one m64n256 accumulator set per thread).
pub const GEMM_SM90_128X256: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 256, warpgroups: 2, stages: 4 };
/// 128 x 256 tiles, warp-specialized: a producer warpgroup (one thread issues the TMA loads) and
/// two consumer warpgroups (one m64n256 slice each), `warpgroups` counting all three.
pub const GEMM_SM90_WS_128X256: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 256, warpgroups: 3, stages: 4 };
/// The persistent kernels' tile: 128 x 256, warp-specialized like [`GEMM_SM90_WS_128X256`]; each
/// block loops over tiles (a grid of at most one block per SM), so the producer loads the next
/// tile's first stages while the consumers store the last one.
pub const GEMM_SM90_P_128X256: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 256, warpgroups: 3, stages: 4 };

/// The decode tiles: products of few rows (M up to 128) computed transposed, `D^T = B^T A^T`, so
/// that the large N is the wgmma's M (two consumer m64 slices, 128 of N per tile) and M is the
/// wgmma's N (`bn` = 16, 32, 64 or 128). A stage is small (18 KB for 128 x 16), so the ring has as
/// many stages as fit beside nothing else (direct stores, no staging buffers): the loads of a
/// memory-bound product stay in flight.
pub const GEMM_SM90_DECODE_128X16: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 16, warpgroups: 3, stages: 11 };
/// [`GEMM_SM90_DECODE_128X16`] for 17 to 32 rows.
pub const GEMM_SM90_DECODE_128X32: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 32, warpgroups: 3, stages: 11 };
/// [`GEMM_SM90_DECODE_128X16`] for 33 to 64 rows.
pub const GEMM_SM90_DECODE_128X64: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 64, warpgroups: 3, stages: 9 };
/// [`GEMM_SM90_DECODE_128X16`] for 65 to 128 rows: one tile of D^T spans every row of A, so
/// B (the weights) is read once, where 128 x 256 tiles of D would need a split count whose
/// partial sums (128 KB a unit) cost more than the split gains.
pub const GEMM_SM90_DECODE_128X128: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 128, warpgroups: 3, stages: 7 };
/// The most stages of a decode tile (the size of their barrier arrays).
pub const GEMM_SM90_DECODE_MAX_STAGES: u32 = 11;

/// The decode tile for a product of `m` rows (`1..=128`), by its width: the narrowest that
/// covers `m`, or `None` past 128.
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm_sm90_sizes::*;
/// assert_eq!(decode_tile(1), Some(GEMM_SM90_DECODE_128X16));
/// assert_eq!(decode_tile(33), Some(GEMM_SM90_DECODE_128X64));
/// assert_eq!(decode_tile(65), Some(GEMM_SM90_DECODE_128X128));
/// assert_eq!(decode_tile(129), None);
/// ```
pub const fn decode_tile(m: u32) -> Option<GemmSm90Shape> {
    match m {
        0..=16 => Some(GEMM_SM90_DECODE_128X16),
        17..=32 => Some(GEMM_SM90_DECODE_128X32),
        33..=64 => Some(GEMM_SM90_DECODE_128X64),
        65..=128 => Some(GEMM_SM90_DECODE_128X128),
        _ => None,
    }
}

// Every decode ring fits the dynamic shared memory a Hopper block may have, with room for the
// barriers.
const _: () = {
    let shapes = [GEMM_SM90_DECODE_128X16, GEMM_SM90_DECODE_128X32, GEMM_SM90_DECODE_128X64, GEMM_SM90_DECODE_128X128];
    let mut i = 0;
    while i < shapes.len() {
        assert!(shapes[i].smem_bytes() <= crate::SM90_DYNAMIC_SMEM_BYTES && shapes[i].stages <= GEMM_SM90_DECODE_MAX_STAGES);
        i += 1;
    }
};

/// Dynamic shared memory the stmatrix + TMA-store epilogue adds after the ring: two 64 x 64 bf16
/// staging buffers per consumer warpgroup.
pub const GEMM_SM90_EPILOGUE_BYTES: u32 = 2 * 2 * 64 * 64 * 2;

/// The flag of the persistent GEMMs' flags word (beside the epilogue's bits) that makes their
/// batches K splits of one product ([`SplitK`]).
pub const GEMM_SM90_SPLIT_K: u32 = 1 << 8;

/// Split-K of the persistent GEMMs: each output tile's K range cut into `splits` even shares,
/// each a work unit of its own (the tile order's batches), so that a product with fewer tiles
/// than SMs fills the GPU. Every unit's consumer warpgroups write their f32 partial sums to a
/// workspace and count themselves in on their tile's counter; the last to arrive adds the
/// partials in split order (the sum is the same whichever arrives last), applies the epilogue,
/// stores D and zeroes the counter for the next launch.
///
/// The workspace: [`MAX_TILES`](SplitK::MAX_TILES) x 2 `u32` counters, one per consumer slice of
/// each tile, at the same place for every product (so that the counters a launch leaves at zero
/// are the ones the next one finds, whatever their shapes), then, from
/// [`partials_offset`](SplitK::partials_offset) bytes on, each slice's `splits` partials of
/// `128 x 128` floats (value `v` of thread `t` at `128 v + t`).
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm_sm90_sizes::SplitK;
/// let s = SplitK { splits: 4, tiles: 16 };
/// assert_eq!(s.k_range(0, 10), (0, 3));
/// assert_eq!(s.k_range(3, 10), (9, 10));
/// assert_eq!(s.workspace_bytes(), 4096 * 2 * 4 + 16 * 2 * 4 * 128 * 128 * 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitK {
    /// Shares of each tile's K range.
    pub splits: u32,
    /// Output tiles of the product.
    pub tiles: u32,
}

impl SplitK {
    /// Floats of one slice's partial sums: 128 threads x 128 accumulators.
    pub const SLICE_FLOATS: usize = 128 * 128;
    /// The most tiles a split product may have (the counters' room).
    pub const MAX_TILES: u32 = 4096;

    /// The k-tiles `[begin, end)` of split `split` of `k_tiles` (empty for a split past the end).
    #[inline(always)]
    pub const fn k_range(&self, split: u32, k_tiles: u32) -> (u32, u32) {
        let per = k_tiles.div_ceil(if self.splits == 0 { 1 } else { self.splits });
        let begin = if split * per < k_tiles { split * per } else { k_tiles };
        let end = if begin + per < k_tiles { begin + per } else { k_tiles };
        (begin, end)
    }

    /// Where the partial sums start, in bytes: after the counters.
    pub const fn partials_offset(&self) -> usize {
        Self::MAX_TILES as usize * 2 * 4
    }

    /// Bytes of the workspace.
    pub const fn workspace_bytes(&self) -> usize {
        self.partials_offset() + self.tiles as usize * 2 * self.splits as usize * Self::SLICE_FLOATS * 4
    }
}

/// Cluster rows per band of [`TileOrder`]: tiles are walked column by column inside bands of this
/// many cluster rows, so the blocks running at the same time share A rows and B columns in L2.
pub const GEMM_SM90_GROUP: u32 = 8;

/// The order in which the persistent kernels visit output tiles: tile `t` of [`count`] is at
/// cluster row, tile column and batch [`tile(t)`]; cluster rows of `bm` output rows are grouped
/// into bands of `group`, each band walked column by column (a band's last, shorter one too), one
/// batch after the other.
///
/// Every `(row, column, batch)` of the `tiles_m x tiles_n x batches` grid is visited once: tiles
/// `t` and `t + 1` share a column (and so B's columns) unless a band's column changes, and the
/// tiles a grid of blocks works on at once span at most `group` rows of A.
///
/// [`count`]: TileOrder::count
/// [`tile(t)`]: TileOrder::tile
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm_sm90_sizes::TileOrder;
/// // 3 x 2 tiles in bands of 2 rows: (0,0) (1,0) (0,1) (1,1), then the last band (2,0) (2,1)
/// let o = TileOrder::new(3 * 128, 2 * 256, 128, 256, 2);
/// assert_eq!(o.count(), 6);
/// let rc = |(r, c, _)| (r, c);
/// assert_eq!((0..6).map(|t| rc(o.tile(t))).collect::<Vec<_>>(), [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (2, 1)]);
/// // Two batches: the second batch's tiles follow the first's.
/// let o = o.batched(2);
/// assert_eq!((o.count(), o.tile(6), o.tile(11)), (12, (0, 0, 1), (2, 1, 1)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileOrder {
    /// Tile rows (of `bm` output rows).
    pub tiles_m: u32,
    /// Tile columns (of `bn` output columns).
    pub tiles_n: u32,
    /// Rows per band, at least 1.
    pub group: u32,
    /// Batches (independent products of the same shape), at least 1.
    pub batches: u32,
}

impl TileOrder {
    /// The order of the tiles of `bm x bn` covering an `m x n` output, bands of `group` rows
    /// (0 counts as 1), one batch.
    #[inline(always)]
    pub const fn new(m: u32, n: u32, bm: u32, bn: u32, group: u32) -> TileOrder {
        TileOrder { tiles_m: m.div_ceil(bm), tiles_n: n.div_ceil(bn), group: if group == 0 { 1 } else { group }, batches: 1 }
    }

    /// The same order over `batches` outputs (0 counts as 1), each walked whole before the next.
    #[inline(always)]
    pub const fn batched(self, batches: u32) -> TileOrder {
        TileOrder { batches: if batches == 0 { 1 } else { batches }, ..self }
    }

    /// Tiles of one batch.
    #[inline(always)]
    pub const fn per_batch(&self) -> u32 {
        self.tiles_m * self.tiles_n
    }

    /// Tiles in all.
    #[inline(always)]
    pub const fn count(&self) -> u32 {
        self.per_batch() * self.batches
    }

    /// The (row, column, batch) of tile `t < count()`.
    #[inline(always)]
    pub const fn tile(&self, t: u32) -> (u32, u32, u32) {
        let per_batch = self.per_batch();
        let (l, t) = (t / per_batch, t % per_batch);
        let band = self.group * self.tiles_n;
        let first = t / band * self.group;
        let rest = self.tiles_m - first;
        let rows = if rest < self.group { rest } else { self.group };
        let i = t - t / band * band;
        (first + i % rows, i / rows, l)
    }

    /// The tiles `first, first + step, first + 2 step, ...` of the order, as `(row, column,
    /// batch)`: what a persistent block (or cluster) `first` of `step` works on.
    ///
    /// # Example
    /// ```
    /// use cute_rs_kernels::gemm_sm90_sizes::TileOrder;
    /// let o = TileOrder::new(3 * 128, 2 * 256, 128, 256, 2);
    /// assert_eq!(o.tiles_from(1, 4).collect::<Vec<_>>(), [(1, 0, 0), (2, 1, 0)]);
    /// ```
    #[inline(always)]
    pub const fn tiles_from(&self, first: u32, step: u32) -> PersistentTiles {
        PersistentTiles { order: *self, next: first, step }
    }
}

/// The tiles one persistent block (or cluster) visits, in [`TileOrder`] (see
/// [`TileOrder::tiles_from`]).
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm_sm90_sizes::TileOrder;
/// assert_eq!(TileOrder::new(256, 256, 128, 256, 8).tiles_from(0, 1).count(), 2);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct PersistentTiles {
    order: TileOrder,
    next: u32,
    step: u32,
}

impl Iterator for PersistentTiles {
    type Item = (u32, u32, u32);

    #[inline(always)]
    fn next(&mut self) -> Option<(u32, u32, u32)> {
        if self.next >= self.order.count() {
            return None;
        }
        let tile = self.order.tile(self.next);
        self.next += self.step;
        Some(tile)
    }
}
