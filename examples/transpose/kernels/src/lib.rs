//! The device crate: a transpose through a padded shared-memory tile.
#![no_std]
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x, thread_idx_y};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{kernel, shared_tensor, static_layout, LayoutTensor, LayoutTensorMut, Strided};

static_layout!(
    /// A 32 x 32 shared tile whose rows are padded to 33 floats: a column read hits 32 banks.
    pub Smem = "(32,32):(33,1)"
);

/// `dst = transpose(src)` for a row-major `m x n` `src` and `n x m` `dst` (`m`, `n` multiples of
/// 32), one 32 x 32 tile per block of 32 x 8 threads, grid `(n / 32, m / 32)`.
#[kernel(block(32, 8))]
pub fn transpose(src: LayoutTensor<'_, f32, Strided<2>>, dst: LayoutTensorMut<'_, f32, Strided<2>>) {
    let tile = shared_tensor!(TILE: f32, Smem, align 16);
    let (bx, by) = (32 * block_idx_x() as i64, 32 * block_idx_y() as i64);
    let (tx, ty) = (thread_idx_x() as i64, thread_idx_y() as i64);
    for r in (ty..32).step_by(8) {
        tile.set_at([r, tx], src.at([by + r, bx + tx])); // coalesced reads
    }
    sync_threads();
    for r in (ty..32).step_by(8) {
        dst.set_at([bx + r, by + tx], tile.at([tx, r])); // coalesced writes
    }
}
