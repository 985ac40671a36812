//! A tiled, vectorized copy written with `LayoutTensor`: static matrix and tile layouts, 128-bit
//! vectors through `vectorize`, each thread's fragment through `distribute`, a register fragment
//! through `make_fragment_like`. The index math is the layout algebra's, computed by the compiler;
//! `tests/ptx_folding.rs` checks that the kernel is straight-line code.

use cute_rs_tensor::kernel;
use crate::tensor_copy_layouts::{BlockTile, Matrix, OddMatrix, SmemPadded, TIn, TOut, Threads, T32};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{copy_partitioned, shared_tensor, LayoutTensor, LayoutTensorMut, Static, Strided};

/// `dst = src` for the 8192 x 8192 row-major f32 matrices of
/// [`Matrix`](crate::tensor_copy_layouts::Matrix): block `(x, y)` copies the 32 x 128 tile at
/// tile coordinate `(y, x)`; its 256 threads each load their 4 vectors of 4 floats into
/// registers, then store them.
///
/// Preconditions: `src` and `dst` are 16-byte aligned arrays of 8192 * 8192 floats; block
/// `(256,1,1)`, grid `(64, 256, 1)`.
#[kernel]
pub fn tensor_copy_f32(src: *const f32, dst: *mut f32) {
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<Matrix>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<Matrix>::new());
    let tile = [block_idx_y() as i64, block_idx_x() as i64];
    let t = thread_idx_x() as usize;
    let s = src.tile::<BlockTile, 2>(tile).vectorize::<4>().distribute::<Threads, 2>(t);
    let d = dst.tile::<BlockTile, 2>(tile).vectorize::<4>().distribute::<Threads, 2>(t);
    let mut regs = s.make_fragment_like::<4>();
    regs.tensor().copy_from(&s);
    d.copy_from(&regs.tensor());
}

/// `dst = src` for the 1000 x 1000 row-major f32 matrices of
/// [`OddMatrix`](crate::tensor_copy_layouts::OddMatrix), by 32 x 128 tiles of which the last
/// row and column are partial: `tile_masked` gives each block its tile with clipped extents and
/// `distribute` each thread its 4 x 4 fragment (rows `r + 8i`, columns `c + 32j`), every access
/// predicated on the clipped extents.
///
/// Preconditions: `src` and `dst` hold 1000 * 1000 floats; block `(256,1,1)`, grid `(8, 32, 1)`.
#[kernel]
pub fn tensor_copy_masked_f32(src: *const f32, dst: *mut f32) {
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<OddMatrix>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<OddMatrix>::new());
    let tile = [block_idx_y() as i64, block_idx_x() as i64];
    let t = thread_idx_x() as usize;
    let s = src.tile_masked::<BlockTile, 2>(tile).distribute::<Threads, 2>(t);
    let d = dst.tile_masked::<BlockTile, 2>(tile).distribute::<Threads, 2>(t);
    let mut regs = s.make_fragment_like::<16>();
    regs.tensor().copy_from(&s);
    d.copy_from(&regs.tensor());
}

/// [`tensor_copy_f32`] written by hand with raw pointers and integer arithmetic (the same tiles,
/// thread mapping and 128-bit accesses): the baseline `tests/ptx_folding.rs` compares the
/// `LayoutTensor` kernel's instruction count with.
///
/// Preconditions: those of [`tensor_copy_f32`].
#[kernel]
pub fn tensor_copy_f32_raw(src: *const u128, dst: *mut u128) {
    // 8192 floats = 2048 vectors per row; tile 32 x 128 floats = 32 x 32 vectors.
    let t = thread_idx_x() as usize;
    let base = (block_idx_y() as usize * 32 + t / 32) * 2048 + block_idx_x() as usize * 32 + t % 32;
    let mut v = [0u128; 4];
    let mut i = 0;
    while i < 4 {
        v[i] = *src.add(base + i * 8 * 2048);
        i += 1;
    }
    i = 0;
    while i < 4 {
        *dst.add(base + i * 8 * 2048) = v[i];
        i += 1;
    }
}

/// `dst = transpose(src)` for the 1024 x 2048 row-major matrix
/// [`TIn`](crate::tensor_copy_layouts::TIn) into the 2048 x 1024 row-major
/// [`TOut`](crate::tensor_copy_layouts::TOut), through a padded shared tile, all with
/// `LayoutTensor`: block `(x, y)` copies its 32 x 32 input tile into shared memory
/// (`copy_partitioned` over 8 x 32 row-major threads: coalesced reads), then copies the shared
/// tile's transposed view into output tile `(x, y)` (coalesced writes, conflict-free shared
/// reads thanks to the padding).
///
/// Preconditions: block `(256,1,1)`, grid `(64, 32, 1)`.
#[kernel]
pub fn tensor_transpose_f32(src: *const f32, dst: *mut f32) {
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<TIn>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<TOut>::new());
    let smem = shared_tensor!(TENSOR_TRANSPOSE_TILE: f32, SmemPadded, align 16);
    let (bx, by) = (block_idx_x() as i64, block_idx_y() as i64);
    let t = thread_idx_x() as usize;
    copy_partitioned::<Threads, 2, _, _, _, _, _>(&smem, &src.tile::<T32, 2>([by, bx]), t);
    sync_threads();
    copy_partitioned::<Threads, 2, _, _, _, _, _>(&dst.tile::<T32, 2>([bx, by]), &smem.transpose(), t);
}

/// `c = a + alpha * b` over `rows x cols` row-major f32 matrices whose sizes are kernel arguments:
/// [`Strided`] tensors, masked by the matrix's shape. A block of 256 threads covers an 8 x 128
/// tile, each thread 4 consecutive columns of one row; grid `(ceil(cols / 128), ceil(rows / 8))`.
///
/// `tests/ptx_folding.rs` checks that a run-time layout of small rank costs no local memory, no
/// division and no panic path.
#[kernel(launch_bounds(256))]
pub fn strided_masked_axpy(a: *const f32, b: *const f32, c: *mut f32, rows: u32, cols: u32, alpha: f32) {
    let matrix = Strided::row_major([rows as i64, cols as i64]);
    let (a, b) = (LayoutTensor::from_ptr(a as *mut f32, matrix), LayoutTensor::from_ptr(b as *mut f32, matrix));
    let c = LayoutTensor::from_ptr(c, matrix);
    let t = thread_idx_x() as i64;
    let row = block_idx_y() as i64 * 8 + t / 32;
    let col = block_idx_x() as i64 * 128 + 4 * (t % 32);
    for v in 0..4 {
        let rc = [row, col + v];
        if matrix.contains(rc) {
            c.set_at(rc, a.at(rc) + alpha * b.at(rc));
        }
    }
}

/// `t[i, j] *= factor` over a tensor passed as a kernel parameter (the host gives a buffer with
/// its `Strided` layout, checked against the buffer's length): one thread per element of a
/// block per row, its 32 threads striding over the columns.
#[kernel]
pub fn scale_tensor(t: LayoutTensorMut<'_, f32, Strided<2>>, factor: f32) {
    let [rows, cols] = t.source().shape;
    let row = block_idx_x() as i64;
    if row < rows {
        for col in (thread_idx_x() as i64..cols).step_by(32) {
            t.set_at([row, col], t.at([row, col]) * factor);
        }
    }
}

/// Mojo's `initialize_tensor_from_cpu_example` kernel: every thread whose global index
/// `(global_idx.x, global_idx.y)` falls inside the `rows x cols` tensor adds one to that element
/// (`tensor[global_idx.x, global_idx.y] += 1`). The host fills the tensor with `0, 1, 2, ...`,
/// launches 8 x 8 blocks on a `(rows * cols / 64)`-square grid and expects `i + 1` at position
/// `i`.
#[kernel]
pub fn mojo_initialize_tensor_from_cpu(tensor: LayoutTensorMut<'_, f32, Strided<2>>) {
    use cute_rs_tensor::device::ids::{block_dim_x, block_dim_y, thread_idx_y};
    let x = (block_idx_x() * block_dim_x() + thread_idx_x()) as i64;
    let y = (block_idx_y() * block_dim_y() + thread_idx_y()) as i64;
    let [rows, cols] = tensor.source().shape;
    if x < rows && y < cols {
        tensor.set_at([x, y], tensor.at([x, y]) + 1.0);
    }
}
