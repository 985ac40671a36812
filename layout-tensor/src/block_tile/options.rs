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
//! | `allow_tma` | accepted, no effect here: TMA needs a tensor map made on the host, so a TMA load is [`BlockTile::load_tma`] on a [`TmaArray`](crate::tma_copy::TmaArray) |
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

use super::memory::{element, thread_base, tile_origin, writes, Bounds};
use super::{for_each_value, BlockTile, TvLayout};
use crate::tensor::{Element, Global, LayoutTensor};
use crate::tile_space::{read_elem, write_elem, LoadOptions, MemoryOrder, Order, Pad, StoreOptions};
use crate::Strided;

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
    /// - `array`: a global tensor with a [`Strided`] layout of the tile's rank.
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
    pub fn load_with_options<const R: usize>(array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R], order: Order<R>, opts: LoadOptions) -> Self {
        debug_assert!(opts.order != MemoryOrder::Release, "cuTile loads take Weak, Relaxed or Acquire");
        let array = ordered(array, order);
        let padding = T::pad(opts.padding);
        if opts.order == MemoryOrder::Weak {
            return Self::load(&array, index, padding);
        }
        let layout = array.source();
        let ptr = array.as_ptr();
        let bounds = Bounds::of(&layout);
        let base = thread_base::<L, R>(tile_origin::<L, R>(index));
        let mut tile = Self::full(padding);
        let values = tile.values_mut();
        for_each_value::<L>(|v| {
            let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, 1);
            if inside {
                // SAFETY: inside the array.
                values[v] = unsafe { read_elem(ptr.offset(off), opts.order, opts.scope) };
            }
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
    pub fn store_with_options<const R: usize>(&self, array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R], order: Order<R>, opts: StoreOptions) {
        debug_assert!(opts.order != MemoryOrder::Acquire, "cuTile stores take Weak, Relaxed or Release");
        let array = ordered(array, order);
        if opts.order == MemoryOrder::Weak {
            return self.store(&array, index);
        }
        let layout = array.source();
        let ptr = array.as_ptr();
        let bounds = Bounds::of(&layout);
        let base = thread_base::<L, R>(tile_origin::<L, R>(index));
        let values = self.values();
        for_each_value::<L>(|v| {
            let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, 1);
            if inside && writes::<L>(v) {
                // SAFETY: inside the array.
                unsafe { write_elem(ptr.offset(off), values[v], opts.order, opts.scope) };
            }
        });
    }
}
