//! Benchmark kernels of the cooperative primitives (the suite's `block_io/*` and `reduce/*`
//! benchmarks, compared on the GPU machine with the same CUB methods compiled by nvcc) and the
//! bf16 transpose (compared with Triton's).
//!
//! Each block of [`BENCH_THREADS`] threads moves one tile of [`BENCH_TILE`] elements: block `b`
//! loads `input[b * TILE ..]` with the method, then stores the registers to the same tile of
//! `output` with the same method (a load-store round trip, as rocPRIM's and CUB's benchmarks do).

use cute_rs_tensor::kernel;
use crate::demo_layouts::TransposeSmem;
use cute_rs_tensor::block_io::{method, BlockLoad};
use cute_rs_tensor::block_reduce::BlockReduce;
use cute_rs_tensor::device::atomics::{fetch_add, Gpu, Relaxed};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x, thread_idx_y};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{block_storage, shared_array, StaticLayout};

/// The f32 transpose's padded 32 x 33 shared tile, and its words.
const TRANSPOSE_SMEM: cute_rs_layout::Layout = TransposeSmem::LAYOUT;
const TRANSPOSE_SMEM_FLOATS: usize = TransposeSmem::LAYOUT.cosize() as usize;

/// Threads per block of the block benchmarks.
pub const BENCH_THREADS: usize = 256;
/// Items per thread of the block benchmarks.
pub const BENCH_ITEMS: usize = 8;
/// Elements per block.
pub const BENCH_TILE: usize = BENCH_THREADS * BENCH_ITEMS;

macro_rules! round_trips {
    ($($name:ident: $m:ident;)*) => {$(
        #[doc = concat!("Round trip of one ", stringify!($m), " tile of i32 per block (see the module docs).")]
        #[kernel]
        pub fn $name(input: *const i32, output: *mut i32) {
            type L = BlockLoad<i32, BENCH_THREADS, BENCH_ITEMS, method::$m>;
            let io = L::new().with_storage(block_storage!($name: L));
            let base = block_idx_x() as usize * BENCH_TILE;
            let mut items = [0i32; BENCH_ITEMS];
            io.load(input.add(base), &mut items);
            // The storage is reused by the store: a block barrier first (see block_io).
            sync_threads();
            io.store(output.add(base), &items);
        }
    )*};
}

round_trips! {
    bench_block_io_direct: Direct;
    bench_block_io_striped: Striped;
    bench_block_io_vectorize: Vectorize;
    bench_block_io_transpose: Transpose;
    bench_block_io_warp_transpose: WarpTranspose;
    bench_block_io_warp_transpose_ts: WarpTransposeTimesliced;
}

/// `*result += sum(input[b * TILE ..][.. TILE])` per block `b`: a vectorized block load, each
/// thread's sum, a [`BlockReduce`], and one atomic add per block (`result` zeroed before).
#[kernel]
pub fn bench_block_reduce_sum_f32(input: *const f32, result: *mut f32) {
    type L = BlockLoad<f32, BENCH_THREADS, BENCH_ITEMS, method::Vectorize>;
    let partials = shared_array!(BENCH_REDUCE_PARTIALS: [f32; BlockReduce::<f32, BENCH_THREADS>::STORAGE_LEN]);
    let base = block_idx_x() as usize * BENCH_TILE;
    let mut items = [0f32; BENCH_ITEMS];
    L::new().load(input.add(base), &mut items);
    let mut s = 0.0;
    for i in 0..BENCH_ITEMS {
        s += items[i];
    }
    let total = BlockReduce::<f32, BENCH_THREADS>::new().sum(s, partials);
    if thread_idx_x() == 0 {
        fetch_add(result, total, Relaxed, Gpu);
    }
}

/// `dst = src^T` for an `m x n` row-major matrix of bf16 (as `u16` bits, moved as 32-bit
/// pairs), `m` and `n` multiples of 64; block `(32, 8)`, grid `(n / 64, m / 64)`.
///
/// The 64 x 64 tile is a 32 x 32 grid of 2 x 2 cells. A thread loads a cell as two pairs (rows
/// `2R`, `2R+1` of columns `2C`, `2C+1`), transposes it in registers into the pair of output row
/// `2C` and the pair of output row `2C+1`, and stages both in two 32 x 33 tiles of 32-bit words
/// through [`TRANSPOSE_SMEM`] (the f32 transpose's padded layout), transposing the cell grid;
/// after the barrier each thread writes whole 32-bit pairs of output rows. Every global access
/// is a coalesced 128-byte row per warp, every shared access conflict-free.
#[kernel]
pub fn transpose_bf16(src: *const u32, dst: *mut u32, m: u32, n: u32) {
    let even = shared_array!(TRANSPOSE_BF16_EVEN: [u32; TRANSPOSE_SMEM_FLOATS], align 16);
    let odd = shared_array!(TRANSPOSE_BF16_ODD: [u32; TRANSPOSE_SMEM_FLOATS], align 16);
    let (tx, ty) = (thread_idx_x() as usize, thread_idx_y() as usize);
    let (r0, c0) = (block_idx_y() as usize * 64, block_idx_x() as usize * 64);
    let (m2, n2) = (m as usize / 2, n as usize / 2); // row lengths in pairs
    for k in 0..4 {
        let (row, col) = (ty + 8 * k, tx); // cell (R, C) = (row, col)
        let a = *src.add((r0 + 2 * row) * n2 + c0 / 2 + col);
        let b = *src.add((r0 + 2 * row + 1) * n2 + c0 / 2 + col);
        // Output row 2C holds (x[2R][2C], x[2R+1][2C]), row 2C+1 (x[2R][2C+1], x[2R+1][2C+1]).
        let cell = TRANSPOSE_SMEM.call((col + 32 * row) as i64) as usize;
        even.write(cell, (a & 0xffff) | (b << 16));
        odd.write(cell, (a >> 16) | (b & 0xffff_0000));
    }
    sync_threads();
    for k in 0..4 {
        let (c, r) = (ty + 8 * k, tx); // output cell row c (rows 2c, 2c+1), pair column r
        let cell = TRANSPOSE_SMEM.call((c + 32 * r) as i64) as usize;
        *dst.add((c0 + 2 * c) * m2 + r0 / 2 + r) = even.read(cell);
        *dst.add((c0 + 2 * c + 1) * m2 + r0 / 2 + r) = odd.read(cell);
    }
}
