//! Row-wise softmax: `y[r, c] = exp(x[r, c] - max_r) / sum_c' exp(x[r, c'] - max_r)`.
//!
//! One warp per row: the 32 lanes stride over the row's columns, and warp shuffles combine their
//! maxima and sums. The matrix sizes are kernel arguments, so the tensors use a [`Strided`] layout
//! (a multiply-add per access); a layout known at compile time would be a `Static` one.
#![no_std]

use cute_rs_tensor::device::ids::{block_idx_x, thread_idx_x};
use cute_rs_tensor::device::math::{exp, max};
use cute_rs_tensor::device::warp::{reduce_max, reduce_sum};
use cute_rs_tensor::{kernel, LayoutTensor, Strided};

/// Rows per block: one warp each.
pub const ROWS_PER_BLOCK: u32 = 4;
/// Threads per block.
pub const THREADS: u32 = 32 * ROWS_PER_BLOCK;

/// Softmax of each row of the `rows x cols` row-major matrix `x` into `y` (same layout).
/// Launch `ceil(rows / ROWS_PER_BLOCK)` blocks of [`THREADS`] threads (its contract: another
/// block size is refused).
#[kernel(block(THREADS), launch_bounds(128))]
pub fn softmax_rows(x: *const f32, y: *mut f32, rows: u32, cols: u32) {
    let matrix = Strided::row_major([rows as i64, cols as i64]);
    let x = LayoutTensor::from_ptr(x as *mut f32, matrix);
    let y = LayoutTensor::from_ptr(y, matrix);
    let row = (block_idx_x() * ROWS_PER_BLOCK + thread_idx_x() / 32) as i64;
    let lane = (thread_idx_x() % 32) as i64;
    // The whole warp leaves together: the shuffles below need all 32 lanes.
    if row >= rows as i64 {
        return;
    }
    let columns = || (lane..cols as i64).step_by(32);

    let mut row_max = f32::NEG_INFINITY;
    for c in columns() {
        row_max = max(row_max, x.at([row, c]));
    }
    let row_max = reduce_max(row_max);

    let mut sum = 0.0;
    for c in columns() {
        sum += exp(x.at([row, c]) - row_max);
    }
    let scale = 1.0 / reduce_sum(sum);

    for c in columns() {
        y.set_at([row, c], exp(x.at([row, c]) - row_max) * scale);
    }
}
