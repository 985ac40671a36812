//! `LayoutTensor::copy_from_async` kernels: Mojo's documented `copy_from_async` example, and a partial
//! tile staged through shared memory with zero-fill.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, lane_id, thread_idx_x, thread_idx_y, warp_id};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{async_copy_wait_all, shared_tensor, static_layout, LayoutTensor, Static};

static_layout!(
    /// The example's input: `Layout.row_major(128, 128)`.
    pub MojoInput = "(128,128):(128,1)"
);
static_layout!(
    /// The example's `block_size x block_size` tile, row-major (in global and shared memory).
    pub MojoTile = "(16,16):(16,1)"
);
static_layout!(
    /// The example's thread layout `row_major(WARP_SIZE // simd_width, simd_width)` for 4-float vectors.
    pub MojoLanes = "(8,4):(4,1)"
);
static_layout!(
    /// A 98 x 70 column-major f32 matrix with leading dimension 100: its last tile row has runs of 4
    /// floats only half inside the matrix (rows 96, 97 of 96..100).
    pub StagedInput = "(98,70):(1,100)"
);
static_layout!(
    /// The staged copy's output: the input padded to whole 16 x 16 tiles (112 x 80, column-major).
    pub StagedOutput = "(112,80):(1,112)"
);
static_layout!(
    /// A block's 16 x 16 tile, column-major.
    pub StagedTile = "(16,16):(1,16)"
);
static_layout!(
    /// One thread's run: 4 consecutive rows of one column (one 16-byte `cp.async`).
    pub Run = "(4,1)"
);

/// Mojo's `copy_from_async_example` kernel: block `(x, y)` takes the 16 x 16 tile `(x, y)` of
/// the 128 x 128 row-major `tensor`, each lane of each warp copies its fragment of 4-float
/// vectors (`vectorize` then `distribute` over 8 x 4 lanes) into a shared tile with
/// `copy_from_async`, waits; every thread then writes `global_idx.x * 128 + global_idx.y` at
/// its `[thread_idx.x, thread_idx.y]` of the shared tile, and the fragments are copied back.
/// Afterwards `tensor[i] == i` for every `i`.
///
/// Two departures from Mojo's example, for a race-free kernel: it partitions by lane id, so all
/// 8 warps copy the same tile; here warp 0 alone copies (same result, no location written by
/// several warps at once); and a barrier follows the wait, so that the copies have landed
/// before other threads overwrite the shared tile.
///
/// Preconditions: `tensor` holds 128 * 128 floats, 16-byte aligned; block `(16,16,1)`, grid
/// `(8,8,1)`.
#[kernel]
pub fn mojo_copy_from_async_f32(tensor: *mut f32) {
    let tensor = LayoutTensor::<f32, _>::from_ptr(tensor, Static::<MojoInput>::new());
    let (bx, by) = (block_idx_x(), block_idx_y());
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let global_tile = tensor.tile::<MojoTile, 2>([bx as i64, by as i64]);
    let shared_tile = shared_tensor!(MOJO_COPY_ASYNC_TILE: f32, MojoTile, align 16);
    let lane = lane_id() as usize;
    let global_fragment = global_tile.vectorize::<4>().distribute::<MojoLanes, 2>(lane);
    let shared_fragment = shared_tile.vectorize::<4>().distribute::<MojoLanes, 2>(lane);
    let copier = warp_id() == 0;
    if copier {
        shared_fragment.copy_from_async(&global_fragment);
        async_copy_wait_all();
    }
    sync_threads();
    let (gx, gy) = (bx * 16 + tx, by * 16 + ty);
    if gx < 128 && gy < 128 {
        shared_tile.set_at([tx as i64, ty as i64], (gx * 128 + gy) as f32);
    }
    sync_threads();
    if copier {
        global_fragment.copy_from(&shared_fragment);
    }
}

/// Stages [`StagedInput`] through shared memory by 16 x 16 tiles into [`StagedOutput`]: block
/// `(x, y)` loads tile `(x, y)` with `copy_from_async`, thread `t` one run of 4 rows
/// (`tile_masked` by [`Run`]s: a 16-byte `cp.async` reading only the rows inside the matrix and
/// zero-filling the others), then writes the shared tile out. The output is the input padded
/// with zeros; the memory between rows 98 and 100 of each column is never read into it.
///
/// Preconditions: `src` holds 100 * 70 floats, `dst` 112 * 80, both 16-byte aligned; block
/// `(64,1,1)`, grid `(7,5,1)`.
#[kernel]
pub fn copy_async_zero_fill_f32(src: *const f32, dst: *mut f32) {
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<StagedInput>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<StagedOutput>::new());
    let tile = shared_tensor!(COPY_ASYNC_ZERO_FILL_TILE: f32, StagedTile, align 16);
    let t = thread_idx_x() as i64;
    let (r, c) = (t % 4, t / 4); // run r of column c of the block's tile
    let (row, col) = (block_idx_x() as i64 * 4 + r, block_idx_y() as i64 * 16 + c);
    tile.tile::<Run, 2>([r, c]).copy_from_async(&src.tile_masked::<Run, 2>([row, col]));
    async_copy_wait_all();
    sync_threads();
    // Another thread's run: the data crossed threads through shared memory.
    let (r2, c2) = ((t + 1) % 4, t / 4);
    let (row2, col2) = (block_idx_x() as i64 * 4 + r2, block_idx_y() as i64 * 16 + c2);
    dst.tile::<Run, 2>([row2, col2]).copy_from(&tile.tile::<Run, 2>([r2, c2]));
}

static_layout!(
    /// A 1024 x 512 column-major f32 matrix.
    pub TvMatrix = "(1024,512):(1,1024)"
);
static_layout!(
    /// A block's 128 x 8 tile, column-major (in global and shared memory).
    pub TvTile = "(128,8):(1,128)"
);
static_layout!(
    /// 32 x 8 threads, row-major (CuTe's `make_tiled_copy` example).
    pub TvThreads = "(32,8):(8,1)"
);
static_layout!(
    /// 4 x 1 values per thread: 4 consecutive rows of a column, one 16-byte copy.
    pub TvValues = "(4,1)"
);

/// The thread-value copy of [`tiled_copy_async_f32`]: 256 threads, 4 x 1 values each, over a
/// 128 x 8 tile.
pub type TvCopy = cute_rs_tensor::partition::TiledCopy<TvThreads, TvValues>;

/// `dst = src` for the [`TvMatrix`] f32 matrices through shared memory with a thread-value
/// tiled copy ([`TvCopy`], CuTe's `make_tiled_copy`): block `(x, y)` stages tile `(x, y)`
/// with `copy_from_async` of each thread's 4 x 1 values (one 16-byte `cp.async`), waits,
/// synchronizes, and thread `t` writes out the values of thread `(t + 37) % 256` (the data
/// crosses threads through shared memory).
///
/// Preconditions: `src`, `dst` 16-byte aligned, 1024 * 512 floats; block `(256,1,1)`, grid
/// `(8,64,1)`.
#[kernel]
pub fn tiled_copy_async_f32(src: *const f32, dst: *mut f32) {
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<TvMatrix>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<TvMatrix>::new());
    let smem = shared_tensor!(TILED_COPY_ASYNC_TILE: f32, TvTile, align 16);
    let tile = [block_idx_x() as i64, block_idx_y() as i64];
    let t = thread_idx_x() as usize;
    TvCopy::partition(smem, t).copy_from_async(&TvCopy::partition(src.tile::<TvTile, 2>(tile), t));
    async_copy_wait_all();
    sync_threads();
    TvCopy::copy(&dst.tile::<TvTile, 2>(tile), &smem, (t + 37) % 256);
}

static_layout!(
    /// A 100 x 64 column-major matrix of 16-bit elements, leading dimension 104 (16-byte columns):
    /// its last runs of 8 rows lie half inside (rows 96..100 of 96..104).
    pub HalfInput = "(100,64):(1,104)"
);
static_layout!(
    /// A block's shared staging buffer: 60 x 8 elements inside 64 x 8 (column-major), so that
    /// runs 0..7 of a column lie inside it and run 7 (rows 56..64) is cut by its bounds.
    pub HalfStage = "(60,8):(1,64)"
);
static_layout!(
    /// One thread's run: 8 consecutive rows of one column (16 bytes of 16-bit elements).
    pub HalfRun = "(8,1)"
);

/// Stages 16-bit elements with `copy_from_async` between masked tiles: block `x` takes rows
/// `64 x ..` of columns `8 y ..` of [`HalfInput`] (`y` the block's `y`), thread `t` the run
/// `t % 8` of column `t / 8`, into a [`HalfStage`] whose bounds cut run 7; then writes the stage
/// out where it is inside both. Runs inside both are one 16-byte `cp.async` (reading the part
/// inside the matrix and zero-filling the rest); the cut run goes element by element.
///
/// Preconditions: `src` 100 * 64 elements at leading dimension 104, `dst` likewise, both 16-byte
/// aligned; block `(64,1,1)`, grid `(2,8,1)`.
#[kernel]
pub fn copy_async_clipped_b16(src: *const u16, dst: *mut u16) {
    let src = LayoutTensor::<u16, _>::from_ptr(src as *mut u16, Static::<HalfInput>::new());
    let dst = LayoutTensor::<u16, _>::from_ptr(dst, Static::<HalfInput>::new());
    let stage = shared_tensor!(COPY_ASYNC_CLIPPED_B16: u16, HalfStage, align 16);
    let t = thread_idx_x() as i64;
    let (r, c) = (t % 8, t / 8);
    let (row, col) = (block_idx_x() as i64 * 8 + r, block_idx_y() as i64 * 8 + c);
    stage.tile_masked::<HalfRun, 2>([r, c]).copy_from_async(&src.tile_masked::<HalfRun, 2>([row, col]));
    async_copy_wait_all();
    sync_threads();
    dst.tile_masked::<HalfRun, 2>([row, col]).copy_from(&stage.tile_masked::<HalfRun, 2>([r, c]));
}

static_layout!(
    /// The source of [`thread_copy_async_swizzled`]: 19 x 21, row-major (no tile divides it).
    pub RaggedMatrix = "(19,21):(21,1)"
);
static_layout!(
    /// Its output: 24 x 24, row-major (the padded matrix).
    pub PaddedMatrix = "(24,24):(24,1)"
);
static_layout!(
    /// A block's 8 x 8 tile, row-major (in global and shared memory).
    pub Tile8 = "(8,8):(8,1)"
);
static_layout!(
    /// 32 threads over the tile, each a fragment of 2 rows of one column.
    pub Threads4x8 = "(4,8):(8,1)"
);

/// Mojo's `copy_dram_to_sram_async` with a masked source and a swizzled shared tile: block
/// `(x, y)` copies tile `(x, y)` of the ragged `src` (a partial tile at the edges) into a shared
/// 8 x 8 tile stored swizzled by `Sw<1, 0, 3>` with `cp.async` (zero-fill outside), waits, and
/// copies the tile back out through the same swizzle into the padded `out` with
/// `copy_sram_to_dram`. Afterwards `out` is `src` with zeros around it.
///
/// Preconditions: `src` holds 19 * 21 floats, `out` 24 * 24; block 32 threads, grid `(3, 3)`.
#[kernel(block(32))]
pub fn thread_copy_async_swizzled(src: *const f32, out: *mut f32) {
    use cute_rs_tensor::partition::Sw;
    use cute_rs_tensor::thread_copy::{copy_dram_to_sram_async, copy_sram_to_dram, SwizzledBy};
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<RaggedMatrix>::new());
    let out = LayoutTensor::<f32, _>::from_ptr(out, Static::<PaddedMatrix>::new());
    let tile = [block_idx_x() as i64, block_idx_y() as i64];
    let shared = SwizzledBy::<Sw<1, 0, 3>, _>::new(shared_tensor!(THREAD_COPY_TILE: f32, Tile8, align 16));
    let tid = thread_idx_x() as usize;
    copy_dram_to_sram_async::<Threads4x8, 2, _, _>(shared, src.tile_masked::<Tile8, 2>(tile), tid);
    async_copy_wait_all();
    sync_threads();
    copy_sram_to_dram::<Threads4x8, 2, _, _>(out.tile::<Tile8, 2>(tile), shared, tid);
}
