//! Benchmark kernels of the cooperative primitives (the suite's `block_io/*` and `reduce/*`
//! benchmarks, compared on the GPU machine with the same CUB methods compiled by nvcc) and the
//! bf16 transpose (compared with Triton's).
//!
//! Each block of [`BENCH_THREADS`] threads moves one tile of [`BENCH_TILE`] elements: block `b`
//! loads `input[b * TILE ..]` with the method, then stores the registers to the same tile of
//! `output` with the same method (a load-store round trip, as rocPRIM's and CUB's benchmarks do).

use layout::Layout;
use layout_tensor::block_io::{method, BlockLoad};
use layout_tensor::block_reduce::BlockReduce;
use layout_tensor::device::atomics::{fetch_add, Gpu, Relaxed};
use layout_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x, thread_idx_y};
use layout_tensor::device::sync::sync_threads;
use layout_tensor::{block_storage, shared_array};

/// Threads per block of the block benchmarks.
pub const BENCH_THREADS: usize = 256;
/// Items per thread of the block benchmarks.
pub const BENCH_ITEMS: usize = 8;
/// Elements per block.
pub const BENCH_TILE: usize = BENCH_THREADS * BENCH_ITEMS;

macro_rules! round_trips {
    ($($name:ident: $m:ident;)*) => {$(
        kernel! {
            #[doc = concat!("Round trip of one ", stringify!($m), " tile of i32 per block (see the module docs).")]
            pub fn $name(input: *const i32, output: *mut i32) {
                type L = BlockLoad<i32, method::$m, BENCH_THREADS, BENCH_ITEMS>;
                let storage = block_storage!($name: L);
                let base = block_idx_x() as usize * BENCH_TILE;
                let mut items = [0i32; BENCH_ITEMS];
                L::new().load(input.add(base), &mut items, storage);
                // The storage is reused by the store: a block barrier first (see block_io).
                sync_threads();
                L::new().store(output.add(base), &items, storage);
            }
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

kernel! {
    /// `*result += sum(input[b * TILE ..][.. TILE])` per block `b`: a vectorized block load, each
    /// thread's sum, a [`BlockReduce`], and one atomic add per block (`result` zeroed before).
    pub fn bench_block_reduce_sum_f32(input: *const f32, result: *mut f32) {
        type L = BlockLoad<f32, method::Vectorize, BENCH_THREADS, BENCH_ITEMS>;
        let storage = block_storage!(BENCH_REDUCE_LOAD: L);
        let partials = shared_array!(BENCH_REDUCE_PARTIALS: [f32; BlockReduce::<f32, BENCH_THREADS>::STORAGE_LEN]);
        let base = block_idx_x() as usize * BENCH_TILE;
        let mut items = [0f32; BENCH_ITEMS];
        L::new().load(input.add(base), &mut items, storage);
        let mut s = 0.0;
        let mut i = 0;
        while i < BENCH_ITEMS {
            s += items[i];
            i += 1;
        }
        let total = BlockReduce::<f32, BENCH_THREADS>::new().sum(s, partials);
        if thread_idx_x() == 0 {
            fetch_add(result, total, Relaxed, Gpu);
        }
    }
}

/// The bf16 transpose's shared tile: 64 x 64 two-byte elements, rows padded to 65 so that the
/// column reads of the store phase hit distinct banks.
pub const TRANSPOSE_BF16_SMEM: Layout = layout::unwrap!(Layout::parse("(64,64):(65,1)"));

kernel! {
    /// `dst = src^T` for an `m x n` row-major matrix of bf16 (as `u16` bits), `m` and `n`
    /// multiples of 64; block `(32, 8)`, grid `(n / 64, m / 64)`. Each thread moves pairs of
    /// elements as 32-bit words in both directions; the tile is staged in shared memory through
    /// [`TRANSPOSE_BF16_SMEM`].
    pub fn transpose_bf16(src: *const u32, dst: *mut u32, m: u32, n: u32) {
        let tile = shared_array!(TRANSPOSE_BF16_TILE: [u16; TRANSPOSE_BF16_SMEM.cosize() as usize], align 16);
        let (tx, ty) = (thread_idx_x() as usize, thread_idx_y() as usize);
        let (r0, c0) = (block_idx_y() as usize * 64, block_idx_x() as usize * 64);
        let (m, n) = (m as usize, n as usize);
        let mut k = 0;
        while k < 8 {
            let r = ty + 8 * k;
            let pair = *src.add(((r0 + r) * n + c0) / 2 + tx);
            tile.write(TRANSPOSE_BF16_SMEM.call((r + 64 * (2 * tx)) as i64) as usize, pair as u16);
            tile.write(TRANSPOSE_BF16_SMEM.call((r + 64 * (2 * tx + 1)) as i64) as usize, (pair >> 16) as u16);
            k += 1;
        }
        sync_threads();
        k = 0;
        while k < 8 {
            // Row c of the output tile is column c of the input tile: output columns 2tx, 2tx+1
            // are input rows 2tx, 2tx+1.
            let c = ty + 8 * k;
            let lo = tile.read(TRANSPOSE_BF16_SMEM.call((2 * tx + 64 * c) as i64) as usize) as u32;
            let hi = tile.read(TRANSPOSE_BF16_SMEM.call((2 * tx + 1 + 64 * c) as i64) as usize) as u32;
            *dst.add(((c0 + c) * m + r0) / 2 + tx) = lo | hi << 16;
            k += 1;
        }
    }
}
