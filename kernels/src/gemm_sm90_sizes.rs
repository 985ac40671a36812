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
/// are the ones the next one finds, whatever their shapes; slice `c` of tile `t` counts at
/// `2 t + c`), then, from [`partials_offset`](SplitK::partials_offset) bytes on, slots of
/// partial sums ([`Part`]; split `s` of tile `t` in slot `t splits + s`), each the two slices'
/// `128 x 128` floats (slice `c` of slot `q` from float `(2 q + c) SLICE_FLOATS` on, value `v` of
/// thread `t` at `128 v + t`).
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

/// The flag of the persistent GEMMs' flags word that shares the product's k-tiles among the
/// blocks by stream-K ([`StreamK`]); with [`GEMM_SM90_SPLIT_K`] clear, the batches are then 1.
pub const GEMM_SM90_STREAM_K: u32 = 1 << 9;

/// Stream-K of the persistent GEMMs, in CUTLASS's data-parallel + stream-K hybrid: the tiles of
/// all full waves but the last are data-parallel (block `g` of `blocks` takes tiles `g, g +
/// blocks, ...`, whole); the rest, the last full wave and the partial one (all tiles when they
/// are fewer than the blocks), are shared. Their k-tiles, tile after tile in [`TileOrder`], are
/// cut into `sk_blocks` contiguous ranges as even as can be, one per block, each at least
/// [`MIN_K_TILES`](StreamK::MIN_K_TILES) long where the product allows. A block's range crosses
/// tile boundaries: each piece is a segment of its tile. The segments of a tile write their f32
/// partial sums to slots of the workspace (the segment of block `g` in shared tile `j` to slot
/// `g + j`, unique since each next segment has a larger block or tile), count themselves in on
/// the tile's counter, and the last to arrive adds the partials in segment order, so that the
/// sum is the same whichever arrives last. A tile with one segment is stored directly.
///
/// The schedule is a function of the tiles, their k-tiles and the blocks only, so that the host
/// sizes the workspace for exactly what the kernel does.
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm_sm90_sizes::StreamK;
/// // 32 tiles of 224 k-tiles on 132 blocks: all shared, 7168 k-tiles, 54 or 55 per block.
/// let s = StreamK::new(32, 224, 132);
/// assert_eq!((s.dp_tiles(), s.sk_tiles, s.sk_blocks), (0, 32, 132));
/// assert_eq!((s.begin(1), s.begin(2)), (54, 108));
/// // Tile 0 (k-tiles 0 to 223): blocks 0 to 4.
/// assert_eq!(s.segments(0), (0, 5));
/// // 300 tiles on 132 blocks: a wave data-parallel, the last full wave and the 36 after it shared.
/// assert_eq!((StreamK::new(300, 64, 132).dp_tiles(), StreamK::new(300, 64, 132).sk_tiles), (132, 168));
/// // As many tiles as blocks: data-parallel only.
/// assert_eq!(StreamK::new(264, 64, 132).sk_tiles, 0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamK {
    /// Output tiles of the product.
    pub tiles: u32,
    /// k-tiles of each output tile.
    pub k_tiles: u32,
    /// The persistent blocks.
    pub blocks: u32,
    /// The last `sk_tiles` tiles of the order are shared.
    pub sk_tiles: u32,
    /// The first `sk_blocks` blocks share them (every block when the product has the k-tiles).
    pub sk_blocks: u32,
}

impl StreamK {
    /// The fewest k-tiles a block's share should have: a segment costs a fixed start and an end
    /// that writes and reads partial sums of its tile's size (the same reason split-K keeps its
    /// splits at 16 k-tiles or more).
    pub const MIN_K_TILES: u32 = 16;

    /// The hybrid schedule of `tiles` tiles of `k_tiles` k-tiles on `blocks` blocks (0 counts as
    /// 1).
    pub const fn new(tiles: u32, k_tiles: u32, blocks: u32) -> StreamK {
        let blocks = if blocks == 0 { 1 } else { blocks };
        let (waves, rest) = (tiles / blocks, tiles % blocks);
        let sk_tiles = if rest == 0 || k_tiles == 0 {
            0
        } else if waves == 0 {
            tiles
        } else {
            rest + blocks
        };
        let most = (sk_tiles as u64 * k_tiles as u64 / Self::MIN_K_TILES as u64) as u32;
        let sk_blocks = if sk_tiles == 0 {
            0
        } else if most < 1 {
            1
        } else if most < blocks {
            most
        } else {
            blocks
        };
        StreamK { tiles, k_tiles, blocks, sk_tiles, sk_blocks }
    }

    /// The data-parallel tiles, the first of the order.
    pub const fn dp_tiles(&self) -> u32 {
        self.tiles - self.sk_tiles
    }

    /// The shared k-tiles.
    pub const fn iters(&self) -> u64 {
        self.sk_tiles as u64 * self.k_tiles as u64
    }

    /// The first shared k-tile of block `g` (`g <= sk_blocks`; `begin(sk_blocks)` is the end).
    pub const fn begin(&self, g: u32) -> u64 {
        if self.sk_blocks == 0 {
            return 0;
        }
        g as u64 * self.iters() / self.sk_blocks as u64
    }

    /// The block whose range holds shared k-tile `i < iters()`.
    pub const fn owner(&self, i: u64) -> u32 {
        (((i + 1) * self.sk_blocks as u64 - 1) / self.iters()) as u32
    }

    /// The blocks of shared tile `j`'s segments: the first, and how many (consecutive).
    pub const fn segments(&self, j: u32) -> (u32, u32) {
        let kt = self.k_tiles as u64;
        let (first, last) = (self.owner(j as u64 * kt), self.owner((j as u64 + 1) * kt - 1));
        (first, last - first + 1)
    }

    /// Slots of partial sums (segment of block `g` in shared tile `j`: slot `g + j`).
    pub const fn slots(&self) -> u32 {
        if self.sk_tiles == 0 {
            0
        } else {
            self.sk_blocks + self.sk_tiles - 1
        }
    }

    /// Bytes of the workspace: the counters, then two slices' partials per slot, laid out as
    /// [`SplitK`]'s.
    pub const fn workspace_bytes(&self) -> usize {
        SplitK { splits: 1, tiles: 0 }.partials_offset() + self.slots() as usize * 2 * SplitK::SLICE_FLOATS * 4
    }
}

/// A partial sum of a tile's K range ([`SplitK`], [`StreamK`]): the tile's counter, this part's
/// slot in the workspace, and its tile's slots, `first .. first + count`, in K order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    /// The counter of the tile (one per consumer slice: `2 counter + slice`).
    pub counter: u32,
    /// The slot this part writes.
    pub slot: u32,
    /// The tile's first slot.
    pub first: u32,
    /// The tile's parts.
    pub count: u32,
}

/// One work unit of a persistent block: a tile (row, column, batch of the order), the batch its
/// operands and D belong to, its k-tiles `[begin, end)`, and, when the tile's K range is shared
/// with other units, its [`Part`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkUnit {
    /// The tile's (row, column, batch) in the order.
    pub tile: (u32, u32, u32),
    /// The batch of the operands and of D.
    pub batch: u32,
    /// The k-tiles `[begin, end)`.
    pub k: (u32, u32),
    /// The part of the tile's sum, if shared.
    pub part: Option<Part>,
}

/// How a launch shares its product among the persistent blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decomposition {
    /// Every tile (of every batch) whole, block `g` taking tiles `g, g + blocks, ...`.
    DataParallel,
    /// Each tile's K range in `splits` even shares ([`SplitK`]), the order's batches being the
    /// splits.
    SplitK(u32),
    /// Stream-K ([`StreamK`]).
    StreamK,
}

/// The work units of block `block` of `blocks` for a product of `order`'s tiles of `k_tiles`
/// k-tiles each, under `decomposition` (for [`Decomposition::SplitK`], `order`'s batches are the
/// splits): an iterator the producer and the consumers of a block walk alike.
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm_sm90_sizes::{Decomposition, TileOrder, WorkUnits};
/// let o = TileOrder::new(128, 256, 128, 256, 8); // one tile
/// let units: Vec<_> = WorkUnits::new(o, 40, Decomposition::StreamK, 1, 2).collect();
/// // 40 k-tiles on 2 blocks: block 1 has the second half, the tile's second part.
/// assert_eq!((units.len(), units[0].k), (1, (20, 40)));
/// assert_eq!(units[0].part.map(|p| (p.slot, p.first, p.count)), Some((1, 0, 2)));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct WorkUnits {
    tiles: PersistentTiles,
    splits: u32,
    stream: StreamK,
    block: u32,
    next: u64,
    end: u64,
}

impl WorkUnits {
    /// The units of block `block` of `blocks`.
    #[inline(always)]
    pub const fn new(order: TileOrder, k_tiles: u32, decomposition: Decomposition, block: u32, blocks: u32) -> WorkUnits {
        // The tiles stream-K shares (none shared: no stream-K units).
        let (splits, shared) = match decomposition {
            Decomposition::DataParallel => (1, 0),
            Decomposition::SplitK(s) => (if s == 0 { 1 } else { s }, 0),
            Decomposition::StreamK => (1, order.per_batch()),
        };
        let stream = StreamK::new(shared, k_tiles, blocks);
        let mut tiles = order.tiles_from(block, blocks);
        let (mut next, mut end) = (0, 0);
        if stream.sk_tiles > 0 {
            tiles.end = stream.dp_tiles();
            if block < stream.sk_blocks {
                (next, end) = (stream.begin(block), stream.begin(block + 1));
            }
        }
        WorkUnits { tiles, splits, stream, block, next, end }
    }
}

impl Iterator for WorkUnits {
    type Item = WorkUnit;

    #[inline(always)]
    fn next(&mut self) -> Option<WorkUnit> {
        if let Some(tile) = self.tiles.next() {
            let (tm, tn, z) = tile;
            if self.splits <= 1 {
                return Some(WorkUnit { tile, batch: z, k: (0, self.stream.k_tiles), part: None });
            }
            let t = tm * self.tiles.order.tiles_n + tn;
            let k = SplitK { splits: self.splits, tiles: 0 }.k_range(z, self.stream.k_tiles);
            let part = Part { counter: t, slot: t * self.splits + z, first: t * self.splits, count: self.splits };
            return Some(WorkUnit { tile, batch: 0, k, part: Some(part) });
        }
        if self.next >= self.end {
            return None;
        }
        let s = self.stream;
        let kt = s.k_tiles as u64;
        let j = (self.next / kt) as u32;
        let base = j as u64 * kt;
        let stop = if self.end < base + kt { self.end } else { base + kt };
        let k = ((self.next - base) as u32, (stop - base) as u32);
        self.next = stop;
        let t = s.dp_tiles() + j;
        let (first, count) = s.segments(j);
        let part = if count > 1 { Some(Part { counter: t, slot: self.block + j, first: first + j, count }) } else { None };
        Some(WorkUnit { tile: self.tiles.order.tile(t), batch: 0, k, part })
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
        PersistentTiles { order: *self, next: first, step, end: self.count() }
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
    /// The tiles from this one on are not visited.
    end: u32,
}

impl Iterator for PersistentTiles {
    type Item = (u32, u32, u32);

    #[inline(always)]
    fn next(&mut self) -> Option<(u32, u32, u32)> {
        if self.next >= self.end {
            return None;
        }
        let tile = self.order.tile(self.next);
        self.next += self.step;
        Some(tile)
    }
}
