//! TMA box loads through `LayoutTensor` (`cute_rs_tensor::tma_copy`): a 128-byte-swizzled box in a
//! shared tensor, read back by logical coordinate.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::device::tma::{fence_proxy_tensormap_acquire, TmaDescriptor, TmaDescriptorParam};
use cute_rs_tensor::device::sync::{fence_mbarrier_init, Mbarrier};
use cute_rs_tensor::tma_copy::Swizzle128B;
use cute_rs_tensor::{shared_array, shared_tensor, static_layout, LayoutTensor, Static};

static_layout!(
    /// The box: 32 columns (128 bytes of f32, the swizzle's span) x 8 rows, column index innermost.
    pub TmaBox = "(32,8):(1,32)"
);
static_layout!(
    /// The output: 200 rows of 96 floats, as `(column, row)`, columns innermost (row-major).
    pub TmaOut = "(96,200):(1,96)"
);

/// Block `(x, y)` loads the 32 x 8 box at column `32x`, row `8y` of the tensor mapped by `desc`
/// (f32, rows of 96, 128-byte swizzle, zero fill) with `load_tma` into a 1024-byte-aligned
/// shared box, and thread `t` writes box element `t` (column `t % 32`, row `t / 32`), read
/// through the swizzle, to the same place of the 200 x 96 row-major `out`: `out` is the mapped
/// tensor, zero past its rows.
///
/// Preconditions: `desc` as above in global memory; block `(256,1,1)`, grid `(3,25,1)`.
#[kernel]
pub fn tma_tile_load_f32(desc: *const TmaDescriptor, out: *mut f32) {
    load_box(desc, out, true);
}

/// [`tma_tile_load_f32`] with the tensor map passed by value: a grid constant, read by TMA from the
/// launch's parameters (no acquire fence: the parameters are never written).
#[kernel]
pub fn tma_tile_load_f32_by_value(desc: TmaDescriptorParam, out: *mut f32) {
    load_box(desc.as_ptr(), out, false);
}

/// The body of [`tma_tile_load_f32`]; `fence`: acquire the map first (one in global memory).
#[inline(always)]
unsafe fn load_box(desc: *const TmaDescriptor, out: *mut f32, fence: bool) {
    let smem = shared_tensor!(TMA_TILE_BOX: f32, TmaBox, align 1024);
    let bar = Mbarrier::from_ptr(shared_array!(TMA_TILE_BAR: [u64; 1], align 8).as_mut_ptr() as *mut u8);
    let out = LayoutTensor::<f32, _>::from_ptr(out, Static::<TmaOut>::new());
    let t = thread_idx_x();
    let (x, y) = (block_idx_x() as i64, block_idx_y() as i64);
    if t == 0 {
        bar.init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        if fence {
            fence_proxy_tensormap_acquire(desc);
        }
        smem.load_tma::<Swizzle128B, 2>(desc, [32 * x as i32, 8 * y as i32], bar);
    }
    bar.wait_parity(0);
    let (c, r) = ((t % 32) as i64, (t / 32) as i64);
    out.set_at([32 * x + c, 8 * y + r], smem.tma_swizzled::<Swizzle128B>().at([c, r]));
}
