//! Atomic accumulation of block tiles into global arrays: Triton's `tl.atomic_add(ptrs, tile)` at
//! a tile index, each element one `atom.add` (relaxed, device scope), replicated elements added
//! once. The accumulation of partial sums by several blocks, such as attention's dQ.

use super::memory::for_each_inside;
use super::{BlockTile, TvLayout};
use crate::device::atomics::{fetch_add, AtomicAdd, Gpu, Relaxed};
use crate::tensor::{Element, Global, LayoutTensor};
use crate::Strided;

impl<T: Element + AtomicAdd, L: TvLayout> BlockTile<T, L> {
    /// Adds the tile to the tile at `index` of `array`, atomically per element: element `c` is
    /// added to `array[index * shape + c]`; elements outside the array are skipped.
    ///
    /// # Args
    /// - `array`: a global tensor with a [`Strided`] layout of the tile's rank.
    /// - `index`: the tile's index in the grid of tiles covering the array.
    ///
    /// # Constraints
    /// `T` is one of the atomics' [`AtomicAdd`] types (`f32`, `f64`, `u32`, `i32`, `u64`, `i64`);
    /// the array is not read or written by plain accesses while the additions run (a data race
    /// otherwise). The order of the additions, and so the rounding of a floating-point sum, is
    /// unspecified. Every thread of the block calls it.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::device::cpu::run_block;
    /// use cute_rs_tensor::{blocked_layout, block_tile::BlockTile, LayoutTensor, Strided};
    /// blocked_layout!(Row = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut sum = vec![0f32; 64];
    /// let at = sum.as_mut_ptr() as usize; // one array for the block's threads
    /// run_block(32, &|| {
    ///     let sum = unsafe { LayoutTensor::from_ptr(at as *mut f32, Strided::row_major([64])) };
    ///     let tile = BlockTile::<i32, Row>::arange(0).cast::<f32>();
    ///     tile.atomic_add(&sum, [0]);
    ///     tile.atomic_add(&sum, [0]);
    /// })
    /// .unwrap();
    /// assert_eq!((sum[0], sum[5], sum[63]), (0.0, 10.0, 126.0));
    /// ```
    #[inline(always)]
    pub fn atomic_add<const R: usize>(&self, array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R]) {
        let ptr = array.as_ptr();
        let values = self.values();
        for_each_inside::<L, R>(&array.source(), index, true, |v, off| {
            // SAFETY: inside the array, aligned (an element of it), accessed only atomically
            // meanwhile (the caller's contract).
            unsafe { fetch_add(ptr.offset(off), values[v], Relaxed, Gpu) };
        });
    }
}
