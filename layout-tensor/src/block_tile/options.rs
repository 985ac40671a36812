//! cuTile's `ct.load`/`ct.store` at block level with every keyword argument: the tile belongs to
//! the whole block (each thread holds the values its [`TvLayout`] gives it), and the options are
//! those of the per-thread tile space, [`LoadOptions`] and [`StoreOptions`].
//!
//! | cuTile | here |
//! | --- | --- |
//! | `order=(1, 0)`, `"C"`, `"F"` | [`Order::Perm`], [`Order::C`], [`Order::F`]: tile dimension `d` runs along array axis `order[d]` |
//! | `padding_mode=ZERO / NEG_ZERO / NAN / POS_INF / NEG_INF` | [`Padding`]: the value of elements outside the array |
//! | `padding_mode=UNDETERMINED` (the default) | [`Padding::Undetermined`]: cuTile leaves those registers unspecified; Rust has no unset register, so they hold `T::pad(Undetermined)`, zero, at no cost (the registers are filled before the loads either way). Do not rely on the value |
//! | `memory_order=WEAK` (default) | plain accesses, vectorized where the layout allows |
//! | `memory_order=RELAXED / ACQUIRE / RELEASE`, `memory_scope=BLOCK / DEVICE / SYS` | one `ld.relaxed|acquire.<scope>` or `st.relaxed|release.<scope>` per element ([`crate::tile_space`] has the mapping) |
//! | `latency=1..10` | accepted and range-checked, no effect: each thread issues all its loads at once, before any use, so there is no prefetch distance or pipeline depth to set (a pipelined kernel stages tiles with [`BlockTile::load_tma`] and a [`TmaStage`](super::tma::TmaStage)) |
//! | `allow_tma=None` (default) / `True` / `False` | on an array with its tensor map bound to the block's stage ([`TmaArray::staged`](crate::tma_copy::TmaArray::staged)): one TMA copy of the whole tile, unless `Some(false)`, wherever the map's boxes are the tile (unswizzled), the tile fits a box and the stage, the access is `WEAK` in order "C", and the padding is UNDETERMINED or the map's fill; the ordinary path otherwise, and always on a plain tensor (see [`TileArray`]) |
//!
//! # Example
//! ```
//! # cute_rs_tensor::device::cpu::run_block(1, &|| {
//! use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
//! use cute_rs_tensor::block_tile::BlockTile;
//! use cute_rs_tensor::tile_space::{LoadOptions, MemoryOrder, MemoryScope, Order, Padding};
//! blocked_layout!(V = shape [4, 32], size_per_thread [1, 4], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
//! // A 32 x 3 array: its transposed 4 x 32 tiles, order "F".
//! let mut x: Vec<f32> = (0..96).map(|i| i as f32).collect();
//! let a = LayoutTensor::new(&mut x, Strided::row_major([32, 3])).unwrap();
//! let opts = LoadOptions::default().padding(Padding::NegInf).memory(MemoryOrder::Acquire, MemoryScope::Device);
//! let t = BlockTile::<f32, V>::load_with_options(&a, [0, 0], Order::F, opts);
//! // Thread 0 holds tile (0, 0..4): array elements (0..4, 0).
//! assert_eq!(t.values(), &[0.0, 3.0, 6.0, 9.0]);
//! # }).unwrap();
//! ```

use super::memory::for_each_inside;
use super::{BlockTile, TvLayout};
use crate::tensor::{Element, Global, LayoutTensor};
use crate::tile_space::{read_elem, write_elem, LoadOptions, MemoryOrder, Order, Pad, Padding, StoreOptions};
use crate::tma_copy::TmaArray;
use crate::Strided;

/// An array the cuTile front end loads tiles from and stores tiles to: a global tensor with a
/// [`Strided`] layout, a [`TmaArray`] (its tensor, through ordinary accesses), or a
/// [`StagedArray`](super::tma::StagedArray), a `TmaArray` bound to the block's TMA stage, which
/// moves whole tiles with TMA where `allow_tma` and the map permit.
///
/// # Parameters
/// - `T`: the element type.
/// - `R`: the array's rank.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::block_tile::options::TileArray;
/// use cute_rs_tensor::{LayoutTensor, Strided};
/// let mut x = vec![1u8; 12];
/// let a = LayoutTensor::new(&mut x, Strided::row_major([3, 4])).unwrap();
/// assert_eq!(TileArray::tensor(&a).source().shape, [3, 4]);
/// # }).unwrap();
/// ```
pub trait TileArray<T: Element, const R: usize> {
    /// The array as a tensor, for ordinary accesses.
    ///
    /// # Example
    /// See [`TileArray`].
    fn tensor(&self) -> LayoutTensor<'_, T, Strided<R>, Global>;

    /// The tile at `index` moved by TMA, or `None` when this array cannot (the default): no map,
    /// a map for other boxes, or a `padding` (`None`: undetermined) other than the map's fill.
    /// Every thread of the block calls it, with the same arguments.
    ///
    /// # Example
    /// See [`StagedArray`](super::tma::StagedArray).
    #[inline(always)]
    fn tma_load<L: TvLayout>(&self, index: [i64; R], padding: Option<T>) -> Option<BlockTile<T, L>> {
        let _ = (index, padding);
        None
    }

    /// Stores `tile` at `index` with TMA and returns `true`, or returns `false` when this array
    /// cannot (the default). Every thread of the block calls it, with the same arguments.
    ///
    /// # Example
    /// See [`StagedArray`](super::tma::StagedArray).
    #[inline(always)]
    fn tma_store<L: TvLayout>(&self, tile: &BlockTile<T, L>, index: [i64; R]) -> bool {
        let _ = (tile, index);
        false
    }
}

impl<T: Element, const R: usize> TileArray<T, R> for LayoutTensor<'_, T, Strided<R>, Global> {
    #[inline(always)]
    fn tensor(&self) -> LayoutTensor<'_, T, Strided<R>, Global> {
        *self
    }
}

impl<T: Element + 'static, const R: usize> TileArray<T, R> for TmaArray<T, R> {
    #[inline(always)]
    fn tensor(&self) -> LayoutTensor<'_, T, Strided<R>, Global> {
        TmaArray::tensor(self)
    }
}

/// Whether the front end may try TMA: `allow_tma` not `Some(false)`, a weak access, and `order`
/// the identity (a TMA map is made for the array's own axis order).
#[inline(always)]
fn tma_allowed<const R: usize>(allow_tma: Option<bool>, memory: MemoryOrder, order: Order<R>) -> bool {
    if allow_tma == Some(false) || memory != MemoryOrder::Weak {
        return false;
    }
    let perm = order.perm();
    let mut d = 0;
    while d < R {
        if perm[d] != d {
            return false;
        }
        d += 1;
    }
    true
}

/// The array with its axes permuted by `order` (tile dimension `d` along array axis `order[d]`).
///
/// Panics naming the condition when `order` is not a permutation of `0..R`.
#[inline(always)]
fn ordered<'a, T: Element, const R: usize>(array: &LayoutTensor<'a, T, Strided<R>, Global>, order: Order<R>) -> LayoutTensor<'a, T, Strided<R>, Global> {
    match order {
        Order::C => *array,
        _ => match array.permute(order.perm()) {
            Ok(view) => view,
            Err(_) => panic!("cuTile order: not a permutation of the array's axes"),
        },
    }
}

impl<T: Pad, L: TvLayout> BlockTile<T, L> {
    /// `ct.load(array, index, shape, order, padding_mode, latency, allow_tma, memory_order,
    /// memory_scope)`: the tile at `index` of `array` viewed in `order`, with every option of
    /// [`LoadOptions`] (see the [module](self) for what each does here).
    ///
    /// # Args
    /// - `array`: a [`TileArray`] of the tile's rank: a global tensor with a [`Strided`] layout, a
    ///   [`TmaArray`], or a [`StagedArray`](super::tma::StagedArray) (TMA where `allow_tma` and
    ///   the map permit).
    /// - `index`: the tile's index in the grid of tiles covering the (ordered) array.
    /// - `order`: [`Order::C`], [`Order::F`] or a permutation.
    /// - `opts`: padding, memory order and scope, latency and `allow_tma`.
    ///
    /// # Returns
    /// The tile; elements outside the array hold `T::pad(opts.padding)`.
    ///
    /// # Constraints
    /// As [`BlockTile::load`]; `opts.order` is `Weak`, `Relaxed` or `Acquire` (a release load is
    /// rejected by `debug_assert!` and read as relaxed); `order` a permutation (a panic that names
    /// the condition otherwise).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// use cute_rs_tensor::tile_space::{LoadOptions, Order, Padding};
    /// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x: Vec<f32> = (0..100).map(|i| i as f32).collect();
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([100])).unwrap();
    /// let t = BlockTile::<f32, V>::load_with_options(&a, [1], Order::C, LoadOptions::default().padding(Padding::Nan));
    /// assert_eq!(t.values(), &[64.0, 65.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn load_with_options<const R: usize, A: TileArray<T, R>>(array: &A, index: [i64; R], order: Order<R>, opts: LoadOptions) -> Self {
        debug_assert!(opts.order != MemoryOrder::Release, "cuTile loads take Weak, Relaxed or Acquire");
        if tma_allowed(opts.allow_tma, opts.order, order) {
            let padding = match opts.padding {
                Padding::Undetermined => None,
                p => Some(T::pad(p)),
            };
            if let Some(tile) = array.tma_load::<L>(index, padding) {
                return tile;
            }
        }
        let array = ordered(&array.tensor(), order);
        let padding = T::pad(opts.padding);
        if opts.order == MemoryOrder::Weak {
            return Self::load(&array, index, padding);
        }
        let ptr = array.as_ptr();
        let mut tile = Self::full(padding);
        let values = tile.values_mut();
        for_each_inside::<L, R>(&array.source(), index, false, |v, off| {
            // SAFETY: inside the array.
            values[v] = unsafe { read_elem(ptr.offset(off), opts.order, opts.scope) };
        });
        tile
    }
}

impl<T: Element, L: TvLayout> BlockTile<T, L> {
    /// `ct.store(array, index, tile, order, latency, allow_tma, memory_order, memory_scope)`: the
    /// tile into `array` viewed in `order` at `index`, with every option of [`StoreOptions`];
    /// elements outside the array are not written, a replicated element is written once.
    ///
    /// # Args
    /// - `array`, `index`, `order`: as [`load_with_options`](Self::load_with_options).
    /// - `opts`: memory order and scope, latency and `allow_tma`.
    ///
    /// # Constraints
    /// As [`BlockTile::store`]; `opts.order` is `Weak`, `Relaxed` or `Release` (an acquire store is
    /// rejected by `debug_assert!` and written as relaxed).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// use cute_rs_tensor::tile_space::{MemoryOrder, MemoryScope, Order, StoreOptions};
    /// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut y = vec![0u32; 65];
    /// let a = LayoutTensor::new(&mut y, Strided::row_major([65])).unwrap();
    /// let release = StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::Device);
    /// BlockTile::<u32, V>::full(5).store_with_options(&a, [1], Order::C, release); // element 64 only
    /// assert_eq!((y[63], y[64]), (0, 5));
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn store_with_options<const R: usize, A: TileArray<T, R>>(&self, array: &A, index: [i64; R], order: Order<R>, opts: StoreOptions) {
        debug_assert!(opts.order != MemoryOrder::Acquire, "cuTile stores take Weak, Relaxed or Release");
        if tma_allowed(opts.allow_tma, opts.order, order) && array.tma_store(self, index) {
            return;
        }
        let array = ordered(&array.tensor(), order);
        if opts.order == MemoryOrder::Weak {
            return self.store(&array, index);
        }
        let ptr = array.as_ptr();
        let values = self.values();
        for_each_inside::<L, R>(&array.source(), index, true, |v, off| {
            // SAFETY: inside the array.
            unsafe { write_elem(ptr.offset(off), values[v], opts.order, opts.scope) };
        });
    }
}
