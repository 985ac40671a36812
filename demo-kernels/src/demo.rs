//! The demo's kernels: a tiled, vectorized copy and a shared-memory transpose, written as CuTe's
//! tutorials write them: tensors with layouts, a tiled copy made from a copy atom and a
//! thread-value arrangement, each thread's partitions, and `copy`. The index math is the layout
//! algebra's, folded to shifts and adds by the compiler.

use crate::demo_layouts::{CopyThr, CopyTile, CopyVal, TransposeSmem, TransposeThr, TransposeTile, TransposeVal};
use cute_rs_tensor::atom::copy::{copy, GlobalLoadNc, GlobalStore};
use cute_rs_tensor::atom::tiled_copy::make_tiled_copy;
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x, thread_idx_y};
use cute_rs_tensor::device::memory::{Cs, EvictFirst};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::strided_tile::local_tile;
use cute_rs_tensor::{kernel, shared_tensor, LayoutTensor, LayoutTensorMut, Strided};

/// `dst = src` for two row-major `rows x 1024` f32 matrices, 4 rows ([`CopyTile`]) per block:
/// each of the 256 threads loads its four 128-bit vectors ([`GlobalLoadNc`], streaming: evicted
/// from L1 first) into registers, then stores them ([`GlobalStore`], `.cs`). Consecutive threads
/// move consecutive vectors, so every warp access is one contiguous 512-byte segment.
///
/// Preconditions: both tensors are `rows x 1024`, row-major, 16-byte aligned, `rows` a multiple
/// of 4; block `(256,1,1)`, grid `(rows / 4,1,1)`.
#[kernel]
pub fn tiled_copy_f32x4(src: LayoutTensor<'_, f32, Strided<2>>, dst: LayoutTensorMut<'_, f32, Strided<2>>) {
    let at = [4 * block_idx_x() as i64, 0];
    let load = make_tiled_copy::<GlobalLoadNc<EvictFirst>, CopyThr, CopyVal>();
    let store = make_tiled_copy::<GlobalStore<Cs>, CopyThr, CopyVal>();
    let thr = load.get_slice(thread_idx_x() as usize);
    let (s, d) = (thr.partition_s(local_tile::<CopyTile, _, _, 2>(src, at)), thr.partition_d(local_tile::<CopyTile, _, _, 2>(*dst, at)));
    let mut regs = s.make_fragment_like::<16>();
    copy(load, s, regs.tensor());
    copy(store, regs.tensor(), d);
}

/// `dst = transpose(src)` for a row-major `m x n` matrix `src` into the row-major `n x m`
/// matrix `dst`, through a 32 x 32 shared tile padded to 33 floats a row ([`TransposeSmem`]):
/// the block copies its input tile into shared memory by rows (coalesced reads), then the shared
/// tile's transpose into its output tile by rows (coalesced writes; the padding keeps the column
/// reads on 32 different banks).
///
/// Preconditions: `src` is `m x n` and `dst` `n x m`, both row-major, with `m` and `n` multiples
/// of 32; block `(32,8,1)`, grid `(n/32, m/32, 1)`.
#[kernel]
pub fn transpose_f32(src: LayoutTensor<'_, f32, Strided<2>>, dst: LayoutTensorMut<'_, f32, Strided<2>>) {
    let tile = shared_tensor!(TRANSPOSE_TILE: f32, TransposeSmem, align 16);
    let (bx, by) = (32 * block_idx_x() as i64, 32 * block_idx_y() as i64);
    let load = make_tiled_copy::<GlobalLoadNc<EvictFirst, 4>, TransposeThr, TransposeVal>();
    let store = make_tiled_copy::<GlobalStore<Cs, 4>, TransposeThr, TransposeVal>();
    let thr = load.get_slice((thread_idx_x() + 32 * thread_idx_y()) as usize);
    copy(load, thr.partition_s(local_tile::<TransposeTile, _, _, 2>(src, [by, bx])), thr.partition_d(tile));
    sync_threads();
    copy(store, thr.partition_s(tile.transpose()), thr.partition_d(local_tile::<TransposeTile, _, _, 2>(*dst, [bx, by])));
}
