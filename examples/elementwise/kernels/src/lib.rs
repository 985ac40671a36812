//! Masked 2-D elementwise kernels on a matrix whose sizes are kernel arguments.
//!
//! A block covers a [`TILE_ROWS`] x [`TILE_COLS`] tile of the matrix; thread `t` of the block takes
//! row `t / 32` of the tile and the 4 consecutive columns `4 * (t % 32) ..`. Tiles at the matrix's right and bottom edges reach past it: every access
//! is masked by the matrix's shape ([`Strided::contains`]).
#![no_std]

use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x};
use cute_rs_tensor::device::math::erf;
use cute_rs_tensor::{kernel, LayoutTensor, Strided};

/// Rows of a block's tile.
pub const TILE_ROWS: u32 = 8;
/// Columns of a block's tile.
pub const TILE_COLS: u32 = 128;
/// Threads per block: 4 elements each.
pub const THREADS: u32 = TILE_ROWS * TILE_COLS / 4;

/// The matrix coordinates of this thread's first element; the other three follow in its row.
fn my_first_element() -> [i64; 2] {
    let t = thread_idx_x() as i64;
    let (group, row) = (t % 32, t / 32);
    [block_idx_y() as i64 * TILE_ROWS as i64 + row, block_idx_x() as i64 * TILE_COLS as i64 + 4 * group]
}

/// `c = a + alpha * b` elementwise over the `rows x cols` row-major matrices. Launch a grid of
/// `(ceil(cols / TILE_COLS), ceil(rows / TILE_ROWS))` blocks of [`THREADS`] threads.
#[kernel(block(THREADS), launch_bounds(256))]
pub fn masked_axpy(a: *const f32, b: *const f32, c: *mut f32, rows: u32, cols: u32, alpha: f32) {
    let matrix = Strided::row_major([rows as i64, cols as i64]);
    let (a, b) = (LayoutTensor::from_ptr(a as *mut f32, matrix), LayoutTensor::from_ptr(b as *mut f32, matrix));
    let c = LayoutTensor::from_ptr(c, matrix);
    let [row, col] = my_first_element();
    for v in 0..4 {
        let rc = [row, col + v];
        if matrix.contains(rc) {
            c.set_at(rc, a.at(rc) + alpha * b.at(rc));
        }
    }
}

/// `y = gelu(x)` elementwise (the exact GELU, `x / 2 * (1 + erf(x / sqrt 2))`), same launch as
/// [`masked_axpy`].
#[kernel(block(THREADS), launch_bounds(256))]
pub fn masked_gelu(x: *const f32, y: *mut f32, rows: u32, cols: u32) {
    let matrix = Strided::row_major([rows as i64, cols as i64]);
    let (x, y) = (LayoutTensor::from_ptr(x as *mut f32, matrix), LayoutTensor::from_ptr(y, matrix));
    let [row, col] = my_first_element();
    for v in 0..4 {
        let rc = [row, col + v];
        if matrix.contains(rc) {
            let v = x.at(rc);
            y.set_at(rc, 0.5 * v * (1.0 + erf(v * core::f32::consts::FRAC_1_SQRT_2)));
        }
    }
}
