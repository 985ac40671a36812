//! The demo's kernels: a tiled, vectorized copy and a shared-memory transpose, their index math
//! written with `const` layouts of the algebra (folded to shifts and adds by the compiler).

use layout_tensor::kernel;
use crate::demo_layouts::{COPY_TILE, COPY_TV_X4, TRANSPOSE_ROWS, TRANSPOSE_SMEM, TRANSPOSE_SMEM_FLOATS};
use layout_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x, thread_idx_y};
use layout_tensor::device::memory::{load_nc, store, Cs, EvictFirst};
use layout_tensor::device::sync::sync_threads;
use layout_tensor::shared_array;

/// `dst = src` for `tiles * 4096` floats, one 4096-float tile per block (`tiles` blocks, 256
/// threads): each thread loads its four 128-bit vectors of [`COPY_TV_X4`] first, then stores them.
///
/// Preconditions: `src` and `dst` are 16-byte aligned global arrays of `tiles * 4096` floats;
/// block `(256,1,1)`, grid `(tiles,1,1)`.
#[kernel]
pub fn tiled_copy_f32x4(src: *const [f32; 4], dst: *mut [f32; 4]) {
    let t = thread_idx_x() as u64;
    let base = block_idx_x() as u64 * (COPY_TILE / 4);
    let mut v = [[0f32; 4]; 4];
    let mut i = 0;
    while i < 4 {
        let off = COPY_TV_X4.call((t + 256 * i as u64) as i64) as u64;
        v[i] = load_nc(src.add((base + off) as usize), EvictFirst);
        i += 1;
    }
    i = 0;
    while i < 4 {
        let off = COPY_TV_X4.call((t + 256 * i as u64) as i64) as u64;
        store(dst.add((base + off) as usize), v[i], Cs);
        i += 1;
    }
}

/// `dst = transpose(src)` for a row-major `m x n` matrix `src` (`(m,n):(n,1)`) into the
/// row-major `n x m` matrix `dst`, through a padded 32 x 32 shared-memory tile.
///
/// Preconditions: `m` and `n` are multiples of 32; block `(32,8,1)`, grid `(n/32, m/32, 1)`.
#[kernel]
pub fn transpose_f32(src: *const f32, dst: *mut f32, m: u32, n: u32) {
    let tile = shared_array!(TRANSPOSE_TILE: [f32; TRANSPOSE_SMEM_FLOATS], align 16);
    let (tx, ty) = (thread_idx_x(), thread_idx_y());
    let (bx, by) = (block_idx_x(), block_idx_y());
    let (m, n) = (m as usize, n as usize);
    let mut j = 0;
    while j < 4 {
        let r = ty + TRANSPOSE_ROWS.call(j) as u32;
        let global = (by * 32 + r) as usize * n + (bx * 32 + tx) as usize;
        let s = TRANSPOSE_SMEM.call((r + 32 * tx) as i64) as usize;
        tile.write(s, load_nc(src.add(global), EvictFirst));
        j += 1;
    }
    sync_threads();
    j = 0;
    while j < 4 {
        let r = ty + TRANSPOSE_ROWS.call(j) as u32;
        // Row r of the output tile is column r of the input tile.
        let s = TRANSPOSE_SMEM.call((tx + 32 * r) as i64) as usize;
        let global = (bx * 32 + r) as usize * m + (by * 32 + tx) as usize;
        store(dst.add(global), tile.read(s), Cs);
        j += 1;
    }
}
