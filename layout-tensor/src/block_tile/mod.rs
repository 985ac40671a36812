//! Block tiles: cuTile's and Triton's programming model, where a tile is a value of the whole
//! thread block.
//!
//! A [`BlockTile<T, L>`](BlockTile) is a logical tile of `T` (1-D to 5-D) whose elements are
//! spread over the block's threads by the thread-value layout `L` ([`TvLayout`]) and held in
//! registers: each thread keeps [`L::VALUES`](TvLayout::VALUES) of them. Operations are
//! block-wide, like `tl.*` and `ct.*`: every thread of the block calls them together.
//!
//! - Layouts: [`blocked_layout!`](crate::blocked_layout) declares Triton's blocked layout (the
//!   usual choice), [`tv_layout!`](crate::tv_layout) any CuTe TV layout, and [`Slice<L, AXIS>`] is
//!   `L` collapsed along `AXIS` to extent 1: the layout of a reduction's result and of the
//!   operands broadcast along `AXIS` (`[N, 1]` with `[1, M]`).
//! - Creation: [`BlockTile::full`], [`BlockTile::zeros`], [`BlockTile::arange`],
//!   [`BlockTile::from_coord`].
//! - Elementwise: `+ - * / %` and `& | ^` with tiles or scalars (broadcasting a [`Slice`]
//!   tile), comparisons ([`BlockTile::lt`], ...), [`where_`], [`BlockTile::map`],
//!   [`BlockTile::zip`], casts ([`BlockTile::cast`]), math on `f32` ([`BlockTile::exp`],
//!   [`BlockTile::exp2`], [`BlockTile::maximum`], ...).
//! - Memory ([`memory`](mod@memory)): loads and stores of a tile of an array at a tile index
//!   (cuTile's `ct.load`/`ct.store`, vectorized where the layout and the array allow) and of
//!   Triton pointer tiles with a mask, `other` and cache hints; Triton's block pointers
//!   ([`block_ptr`](mod@block_ptr)) with `boundary_check` and padding; TMA loads of a tile of an
//!   array that carries its tensor map ([`tma`](mod@tma), cuTile's `allow_tma`).
//! - Reductions ([`reduce`](mod@reduce)): `sum`, `max`, `min`, `argmax` along an axis, with warp
//!   shuffles and, across warps, a block's [`Scratch`](reduce::Scratch) of shared memory.
//! - Layout conversions through the scratch: [`BlockTile::convert_layout`],
//!   [`BlockTile::permute`], [`BlockTile::trans`].
//! - Matrix products ([`dot`](mod@dot)): [`dot()`] (`tl.dot(a, b, acc)`) on the tensor cores into
//!   an f32 accumulator tile of an MMA layout ([`dot_layout!`](crate::dot_layout)), and
//!   [`dot_range`], the K loop of products whose tiles are copied into shared memory several
//!   steps ahead (`tl.range(..., num_stages=...)`).
//!
//! The block must be one-dimensional with [`L::THREADS`](TvLayout::THREADS) threads (give the
//! kernel `#[kernel(block(THREADS))]`); the thread index is `threadIdx.x`.
//!
//! ```
//! # cute_rs_tensor::device::cpu::run_block(1, &|| {
//! use cute_rs_tensor::blocked_layout;
//! use cute_rs_tensor::block_tile::{BlockTile, Slice, TvLayout};
//! blocked_layout!(Rows = shape [4, 64], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [2, 1], order [1, 0]);
//! assert_eq!((Rows::THREADS, Rows::VALUES), (64, 4));
//! // On the host a tile is evaluated for one thread at a time (here thread 0: row 0, columns 0..4).
//! let cols = BlockTile::<i32, Rows>::arange(1);
//! let rows = BlockTile::<i32, Slice<Rows, 1>>::arange(0); // a 4 x 1 tile
//! let offsets = cols + rows * 64; // broadcast to 4 x 64: the left operand's layout
//! assert_eq!(offsets.values(), &[0, 1, 2, 3]);
//! # }).unwrap();
//! ```

use core::marker::PhantomData;
use core::ops;

mod atomic;
pub mod block_ptr;
mod convert;
pub mod dot;
pub mod dot_tma;
pub mod memory;
pub mod random;
pub mod reduce;
pub mod tma;
pub mod options;
mod tv;

pub use crate::cast::Cast;
pub use block_ptr::{make_block_ptr, BlockPtr, BlockPtrLoad};
pub use dot::{dot, dot_range, dot_range_aligned, DotLayout, DotLayoutOf};
pub use dot_tma::dot_range_tma;
pub use memory::{load, store, store_broadcast, store_masked, store_with, Ptr, PtrLoad, PtrStore};
pub use random::{philox, rand, randint};
pub use reduce::Scratch;
pub use options::TileArray;
pub use tma::{StagedArray, TmaStage};
pub use tv::{Leaves, TvError, TvMap, MAX_RANK, MAX_TV_LEAVES, REPLICATED};

use crate::device::unroll::{unroll_for, TripCount};

/// The registers of one thread's values: an array of at least [`TvLayout::VALUES`] elements.
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::ValueStorage;
/// let s = <[f32; 4] as ValueStorage<f32>>::splat(1.5);
/// assert_eq!(s.as_slice(), &[1.5; 4]);
/// ```
pub trait ValueStorage<T>: Copy {
    /// The number of entries (`<[f32; 4] as ValueStorage<f32>>::LEN` is 4).
    const LEN: usize;
    /// Every entry `x`.
    fn splat(x: T) -> Self;
    /// The entries.
    fn as_slice(&self) -> &[T];
    /// The entries, to write.
    fn as_mut_slice(&mut self) -> &mut [T];
}

impl<T: Copy, const N: usize> ValueStorage<T> for [T; N] {
    const LEN: usize = N;
    #[inline(always)]
    fn splat(x: T) -> Self {
        [x; N]
    }
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

/// A thread-value layout as a type: the [`TvMap`] of a block tile, as an associated constant (so
/// that the coordinates of a thread's values fold to constants in a kernel), and the registers its
/// values need.
///
/// Declare one with [`blocked_layout!`](crate::blocked_layout) or [`tv_layout!`](crate::tv_layout);
/// [`Slice`] derives one.
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::TvLayout;
/// blocked_layout!(V = shape [1024], size_per_thread [4], threads_per_warp [32], warps_per_cta [4], order [0]);
/// assert_eq!((V::THREADS, V::VALUES, V::RANK), (128, 8, 1));
/// assert_eq!(V::SHAPE[0], 1024);
/// ```
pub trait TvLayout: Copy + Default + 'static {
    /// The map.
    const MAP: TvMap;
    /// Registers for the values: an array with at least [`VALUES`](Self::VALUES) entries.
    type Storage<T: Copy>: ValueStorage<T>;
    /// Threads of the block.
    const THREADS: usize = Self::MAP.threads();
    /// Values per thread.
    const VALUES: usize = Self::MAP.values();
    /// The tile's rank.
    const RANK: usize = Self::MAP.rank;
    /// The tile's extents (1 past the rank).
    const SHAPE: [i64; MAX_RANK] = Self::MAP.shape;
}

/// `VALUES` of a layout as a trip count for [`unroll_for`].
struct ValuesOf<L>(PhantomData<L>);
impl<L: TvLayout> TripCount for ValuesOf<L> {
    const N: usize = L::VALUES;
}

/// Calls `f(v)` for each value index of `L`, unrolled.
#[inline(always)]
pub(crate) fn for_each_value<L: TvLayout>(f: impl FnMut(usize)) {
    unroll_for::<ValuesOf<L>>(f);
}

/// Declares a zero-sized type implementing [`TvLayout`] with Triton's blocked layout
/// ([`TvMap::blocked`]); an invalid layout stops compilation with the violated condition.
///
/// # Parameters
/// `shape`, `size_per_thread`, `threads_per_warp`, `warps_per_cta`: one power of two per
/// dimension; `order`: the dimensions from fastest to slowest. Constants are allowed.
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::TvLayout;
/// const BLOCK: i64 = 2048;
/// blocked_layout!(pub Vec2k = shape [BLOCK], size_per_thread [4], threads_per_warp [32], warps_per_cta [8], order [0]);
/// assert_eq!(Vec2k::VALUES, 8);
/// ```
///
/// ```compile_fail,E0080
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::TvLayout;
/// // thread-value layout: sizes, extents and counts must be powers of two
/// blocked_layout!(Bad = shape [96], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let _ = Bad::VALUES;
/// ```
#[macro_export]
macro_rules! blocked_layout {
    ($(#[$attr:meta])* $vis:vis $name:ident = shape $shape:tt, size_per_thread $spt:tt, threads_per_warp $tpw:tt, warps_per_cta $wpc:tt, order $order:tt $(,)?) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;
        impl $name {
            const __TV_MAP: $crate::block_tile::TvMap =
                $crate::__tv_unwrap!($crate::block_tile::TvMap::blocked(&$shape, &$spt, &$tpw, &$wpc, &$order));
        }
        impl $crate::block_tile::TvLayout for $name {
            const MAP: $crate::block_tile::TvMap = $name::__TV_MAP;
            type Storage<__Elem: Copy> = [__Elem; $name::__TV_MAP.values()];
        }
    };
}

/// Declares a zero-sized type implementing [`TvLayout`] from a CuTe TV layout in the algebra's
/// notation: `(thread, value) -> row-major index` of a tile of `shape` ([`TvMap::from_layout`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::tv_layout;
/// use cute_rs_tensor::block_tile::TvLayout;
/// tv_layout!(pub RowPerThread = shape [32, 4], "(32,4):(4,1)");
/// assert_eq!((RowPerThread::THREADS, RowPerThread::VALUES), (32, 4));
/// assert_eq!(RowPerThread::MAP.coord(3, 1), [3, 1, 0, 0, 0]);
/// ```
#[macro_export]
macro_rules! tv_layout {
    ($(#[$attr:meta])* $vis:vis $name:ident = shape $shape:tt, $notation:expr $(,)?) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;
        impl $name {
            const __TV_MAP: $crate::block_tile::TvMap = $crate::__tv_unwrap!($crate::block_tile::TvMap::from_layout(
                &$shape,
                $crate::layout::unwrap!($crate::layout::Layout::parse($notation))
            ));
        }
        impl $crate::block_tile::TvLayout for $name {
            const MAP: $crate::block_tile::TvMap = $name::__TV_MAP;
            type Storage<__Elem: Copy> = [__Elem; $name::__TV_MAP.values()];
        }
    };
}

/// `L` collapsed along `AXIS` to extent 1 ([`TvMap::slice`]): the layout of a reduction of an
/// `L` tile along `AXIS`, and of an operand that broadcasts along `AXIS` when combined with an
/// `L` tile (Triton's `SliceLayout`, with the dimension kept).
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{Slice, TvLayout};
/// blocked_layout!(T = shape [8, 128], size_per_thread [1, 4], threads_per_warp [1, 32], warps_per_cta [4, 1], order [1, 0]);
/// assert_eq!(<Slice<T, 1>>::SHAPE, [8, 1, 1, 1, 1]);
/// assert_eq!(<Slice<T, 1>>::VALUES, 2); // each warp holds 2 rows
/// assert_eq!(<Slice<T, 0>>::VALUES, 4); // and 4 columns of each
/// ```
pub struct Slice<L, const AXIS: usize>(PhantomData<L>);

impl<L, const AXIS: usize> Clone for Slice<L, AXIS> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L, const AXIS: usize> Copy for Slice<L, AXIS> {}
impl<L, const AXIS: usize> Default for Slice<L, AXIS> {
    fn default() -> Self {
        Slice(PhantomData)
    }
}
impl<L, const AXIS: usize> core::fmt::Debug for Slice<L, AXIS> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Slice<{}>", AXIS)
    }
}

impl<L: TvLayout, const AXIS: usize> TvLayout for Slice<L, AXIS> {
    const MAP: TvMap = crate::__tv_unwrap!(L::MAP.slice(AXIS));
    // The parent's registers: at least as many; the ones past `VALUES` are never used (and
    // disappear in registers).
    type Storage<T: Copy> = L::Storage<T>;
}

/// A layout whose tiles combine with tiles of layout `L`, element by element: `L` itself, or
/// `L` sliced along an axis (broadcast along it).
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{BroadcastTo, Slice};
/// blocked_layout!(T = shape [4, 8], size_per_thread [2, 2], threads_per_warp [2, 16], warps_per_cta [1, 1], order [1, 0]);
/// // Values 0 and 1 of a thread lie in one row: both read value 0 of the row tile.
/// assert_eq!(<Slice<T, 1> as BroadcastTo<T>>::source(1), 0);
/// assert_eq!(<Slice<T, 1> as BroadcastTo<T>>::source(2), 1);
/// ```
pub trait BroadcastTo<L: TvLayout>: TvLayout {
    /// The value of `Self` that holds the element of `L`'s value `v` (broadcast dimensions at 0).
    fn source(v: usize) -> usize;
}

impl<L: TvLayout> BroadcastTo<L> for L {
    #[inline(always)]
    fn source(v: usize) -> usize {
        v
    }
}

impl<L: TvLayout, const AXIS: usize> BroadcastTo<L> for Slice<L, AXIS> {
    #[inline(always)]
    fn source(v: usize) -> usize {
        L::MAP.slice_value(AXIS, v)
    }
}

/// Two axes sliced (`Slice<Slice<L, A>, B>`: axis `A` of `L`, then axis `B` of what is left)
/// broadcast along both, as a Triton tensor with two dimensions of size 1 does; a rank-3 tile
/// then combines with a tile along one axis, or with a value of the whole block.
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{BroadcastTo, Slice};
/// blocked_layout!(T = shape [2, 4, 8], size_per_thread [2, 1, 2], threads_per_warp [1, 4, 8], warps_per_cta [1, 1, 1], order [2, 1, 0]);
/// // Along axis 1 only (axes 2, then 0, sliced): a thread's four values (two along axis 2, two
/// // along axis 0) all read its one value of the axis-1 tile.
/// type Along1 = Slice<Slice<T, 2>, 0>;
/// assert_eq!((0..4).map(<Along1 as BroadcastTo<T>>::source).collect::<Vec<_>>(), [0, 0, 0, 0]);
/// ```
impl<L: TvLayout, const A: usize, const B: usize> BroadcastTo<L> for Slice<Slice<L, A>, B> {
    #[inline(always)]
    fn source(v: usize) -> usize {
        Slice::<L, A>::MAP.slice_value(B, L::MAP.slice_value(A, v))
    }
}

/// A block-wide tile of `T` in the thread-value layout `L`; see the [module docs](self).
///
/// On the GPU each thread holds its own values. On the host (tests, the CPU backend) the same
/// code runs for one logical thread at a time, `threadIdx.x` telling which.
///
/// # Parameters
/// - `T`: the element type.
/// - `L`: the thread-value layout ([`TvLayout`]).
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::BlockTile;
/// blocked_layout!(V = shape [256], size_per_thread [2], threads_per_warp [32], warps_per_cta [4], order [0]);
/// let x = BlockTile::<i32, V>::arange(0).cast::<f32>();
/// let y = (x * 2.0 + 1.0).exp2();
/// assert_eq!(y.values(), &[2.0, 8.0]); // thread 0 holds elements 0 and 1
/// # }).unwrap();
/// ```
pub struct BlockTile<T: Copy, L: TvLayout> {
    values: L::Storage<T>,
    layout: PhantomData<L>,
}

impl<T: Copy, L: TvLayout> Clone for BlockTile<T, L> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, L: TvLayout> Copy for BlockTile<T, L> {}

impl<T: Copy + core::fmt::Debug, L: TvLayout> core::fmt::Debug for BlockTile<T, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BlockTile").field("values", &self.values()).finish()
    }
}

/// The calling thread's index in the block (`threadIdx.x`).
#[inline(always)]
pub(crate) fn thread() -> i64 {
    crate::device::ids::thread_idx_x() as i64
}

impl<T: Copy, L: TvLayout> BlockTile<T, L> {
    /// A tile whose every element is `value` (`tl.full`, `ct.full`).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<i32, V>::full(7).values(), &[7, 7]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn full(value: T) -> Self {
        BlockTile { values: L::Storage::<T>::splat(value), layout: PhantomData }
    }

    /// The tile of element `f(coord)` at each coordinate (one entry per dimension, the entries past
    /// the rank 0): the general form of `arange`.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(M = shape [2, 32], size_per_thread [2, 1], threads_per_warp [1, 32], warps_per_cta [1, 1], order [1, 0]);
    /// let t = BlockTile::<i64, M>::from_coord(|c| c[0] * 100 + c[1]);
    /// assert_eq!(t.values(), &[0, 100]); // thread 0 holds column 0 of both rows
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn from_coord(mut f: impl FnMut([i64; MAX_RANK]) -> T) -> Self {
        let tc = L::MAP.thread_coord(thread());
        let mut values = L::Storage::<T>::splat(f(tc));
        for_each_value::<L>(|v| {
            let vc = L::MAP.value_coord(v);
            let mut c = tc;
            let mut d = 0;
            while d < MAX_RANK {
                c[d] += vc[d];
                d += 1;
            }
            values.as_mut_slice()[v] = f(c);
        });
        BlockTile { values, layout: PhantomData }
    }

    /// The calling thread's values, in value order.
    #[inline(always)]
    pub fn values(&self) -> &[T] {
        &self.values.as_slice()[..L::VALUES]
    }

    /// The calling thread's values, to write.
    #[inline(always)]
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.values.as_mut_slice()[..L::VALUES]
    }

    /// The coordinate of the element the calling thread holds in value `v`.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [256], size_per_thread [2], threads_per_warp [32], warps_per_cta [4], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::coord(1)[0], 1);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn coord(v: usize) -> [i64; MAX_RANK] {
        L::MAP.coord(thread(), v)
    }

    /// `f` of each element (`T -> U`).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<i32, V>::full(3).map(|x| x as f32 * 0.5).values(), &[1.5]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn map<U: Copy>(&self, mut f: impl FnMut(T) -> U) -> BlockTile<U, L> {
        let mut values = L::Storage::<U>::splat(f(self.values.as_slice()[0]));
        for_each_value::<L>(|v| values.as_mut_slice()[v] = f(self.values.as_slice()[v]));
        BlockTile { values, layout: PhantomData }
    }

    /// `f` of each pair of elements of `self` and `other` (a tile broadcast to `L`, or a scalar).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let a = BlockTile::<i32, V>::full(3);
    /// assert_eq!(a.zip(a, |x, y| x * y).values(), &[9]);
    /// assert_eq!(a.zip(10, |x, y| x + y).values(), &[13]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn zip<U: Copy, W: Copy>(&self, other: impl Operand<U, L>, mut f: impl FnMut(T, U) -> W) -> BlockTile<W, L> {
        let mut values = L::Storage::<W>::splat(f(self.values.as_slice()[0], other.at(0)));
        for_each_value::<L>(|v| values.as_mut_slice()[v] = f(self.values.as_slice()[v], other.at(v)));
        BlockTile { values, layout: PhantomData }
    }

    /// The tile in layout `L2`, which `L` broadcasts to: each element repeated along the
    /// dimensions `L` collapses (`x[:, None]` then implicit broadcasting, in Triton).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::{BlockTile, Slice};
    /// blocked_layout!(T = shape [4, 32], size_per_thread [1, 2], threads_per_warp [2, 16], warps_per_cta [2, 1], order [1, 0]);
    /// let rows = BlockTile::<i32, Slice<T, 1>>::arange(0);
    /// assert_eq!(rows.broadcast::<T>().values(), &[0, 0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn broadcast<L2: TvLayout>(&self) -> BlockTile<T, L2>
    where
        L: BroadcastTo<L2>,
    {
        let mut values = L2::Storage::<T>::splat(self.values.as_slice()[0]);
        for_each_value::<L2>(|v| values.as_mut_slice()[v] = self.values.as_slice()[L::source(v)]);
        BlockTile { values, layout: PhantomData }
    }

    /// Each element converted to `U` ([`Cast`]: `as` between numbers, rounding to nearest for the
    /// half-precision types).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let h = BlockTile::<f32, V>::full(1.5).cast::<half::f16>();
    /// assert_eq!(h.cast::<f32>().values(), &[1.5]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn cast<U: Copy>(&self) -> BlockTile<U, L>
    where
        T: Cast<U>,
    {
        self.map(Cast::cast)
    }
}

impl<T: crate::Element, L: TvLayout> BlockTile<T, L> {
    /// The tile of zeros (`tl.zeros`, `ct.zeros`).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::zeros().values(), &[0.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn zeros() -> Self {
        Self::full(T::ZERO)
    }
}

impl<L: TvLayout> BlockTile<i32, L> {
    /// Each element's coordinate along `axis` (`tl.arange(0, N)` for a 1-D tile; for a tile of
    /// extent 1 along every other dimension, `tl.arange(0, N)[:, None]` and the like).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [1024], size_per_thread [4], threads_per_warp [32], warps_per_cta [4], order [0]);
    /// assert_eq!(BlockTile::<i32, V>::arange(0).values(), &[0, 1, 2, 3, 512, 513, 514, 515]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn arange(axis: usize) -> Self {
        Self::from_coord(|c| c[axis] as i32)
    }
}

/// Where a tile of `L` finds its operand for value `v`: a tile of a layout that broadcasts to
/// `L`, or a scalar (every element).
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{BlockTile, Operand};
/// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// assert_eq!(<f32 as Operand<f32, V>>::at(&2.0, 0), 2.0);
/// # }).unwrap();
/// ```
pub trait Operand<T, L: TvLayout>: Copy {
    /// The element that combines with `L`'s value `v`.
    fn at(&self, v: usize) -> T;
}

impl<T: Copy, L: TvLayout, L2: BroadcastTo<L>> Operand<T, L> for BlockTile<T, L2> {
    #[inline(always)]
    fn at(&self, v: usize) -> T {
        self.values.as_slice()[L2::source(v)]
    }
}

impl<T: Copy, L: TvLayout, L2: BroadcastTo<L>> Operand<T, L> for &BlockTile<T, L2> {
    #[inline(always)]
    fn at(&self, v: usize) -> T {
        self.values.as_slice()[L2::source(v)]
    }
}

/// What a store writes and a masked load fills in (`tl.store`'s `value`, `tl.load`'s `other`): a
/// tile of `T` broadcast to `L`, or a scalar of any number type converted to `T` ([`Cast`]), as
/// Triton converts them to the pointer's element type.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{BlockTile, CastOperand};
/// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// assert_eq!(<i32 as CastOperand<f32, V>>::at(&-1, 0), -1.0);
/// assert_eq!(<f64 as CastOperand<half::bf16, V>>::at(&0.5, 0), half::bf16::from_f32(0.5));
/// assert_eq!(<BlockTile<u8, V> as CastOperand<u8, V>>::at(&BlockTile::full(3), 0), 3);
/// # }).unwrap();
/// ```
pub trait CastOperand<T, L: TvLayout>: Copy {
    /// The element for `L`'s value `v`, as a `T`.
    fn at(&self, v: usize) -> T;
}

impl<T: Copy, L: TvLayout, L2: BroadcastTo<L>> CastOperand<T, L> for BlockTile<T, L2> {
    #[inline(always)]
    fn at(&self, v: usize) -> T {
        self.values.as_slice()[L2::source(v)]
    }
}

impl<T: Copy, L: TvLayout, L2: BroadcastTo<L>> CastOperand<T, L> for &BlockTile<T, L2> {
    #[inline(always)]
    fn at(&self, v: usize) -> T {
        self.values.as_slice()[L2::source(v)]
    }
}

/// Scalars of every number type (and `bool`), converted.
macro_rules! cast_operands {
    ($($t:ty),*) => {$(
        impl<T, L: TvLayout> CastOperand<T, L> for $t
        where
            $t: Cast<T>,
        {
            #[inline(always)]
            fn at(&self, _: usize) -> T {
                Cast::<T>::cast(*self)
            }
        }
    )*};
}
cast_operands!(f32, f64, i8, u8, i16, u16, i32, u32, i64, u64, half::f16, half::bf16, bool);

/// Element types of tiles: scalars broadcast as operands, and scalars combine with tiles on the
/// left of an operator.
macro_rules! scalar_operands {
    ($($t:ty),*) => {$(
        impl<L: TvLayout> Operand<$t, L> for $t {
            #[inline(always)]
            fn at(&self, _: usize) -> $t {
                *self
            }
        }
        scalar_operands!(@left $t: Add add, Sub sub, Mul mul, Div div, Rem rem);
    )*};
    (@left $t:ty: $($tr:ident $f:ident),*) => {$(
        impl<L: TvLayout> ops::$tr<BlockTile<$t, L>> for $t {
            type Output = BlockTile<$t, L>;
            #[inline(always)]
            fn $f(self, rhs: BlockTile<$t, L>) -> BlockTile<$t, L> {
                BlockTile::<$t, L>::full(self).zip(rhs, |a, b| ops::$tr::$f(a, b))
            }
        }
    )*};
}
scalar_operands!(f32, f64, i8, u8, i16, u16, i32, u32, i64, u64);

impl<L: TvLayout> Operand<bool, L> for bool {
    #[inline(always)]
    fn at(&self, _: usize) -> bool {
        *self
    }
}
impl<L: TvLayout> Operand<half::f16, L> for half::f16 {
    #[inline(always)]
    fn at(&self, _: usize) -> half::f16 {
        *self
    }
}
impl<L: TvLayout> Operand<half::bf16, L> for half::bf16 {
    #[inline(always)]
    fn at(&self, _: usize) -> half::bf16 {
        *self
    }
}

macro_rules! binary_ops {
    ($($tr:ident $f:ident $atr:ident $af:ident),*) => {$(
        impl<T: Copy + ops::$tr<Output = T>, L: TvLayout, R: Operand<T, L>> ops::$tr<R> for BlockTile<T, L> {
            type Output = BlockTile<T, L>;
            #[inline(always)]
            fn $f(self, rhs: R) -> BlockTile<T, L> {
                self.zip(rhs, |a, b| ops::$tr::$f(a, b))
            }
        }
        impl<T: Copy + ops::$tr<Output = T>, L: TvLayout, R: Operand<T, L>> ops::$atr<R> for BlockTile<T, L> {
            #[inline(always)]
            fn $af(&mut self, rhs: R) {
                *self = self.zip(rhs, |a, b| ops::$tr::$f(a, b));
            }
        }
    )*};
}
binary_ops!(
    Add add AddAssign add_assign, Sub sub SubAssign sub_assign, Mul mul MulAssign mul_assign,
    Div div DivAssign div_assign, Rem rem RemAssign rem_assign, BitAnd bitand BitAndAssign bitand_assign,
    BitOr bitor BitOrAssign bitor_assign, BitXor bitxor BitXorAssign bitxor_assign,
    Shl shl ShlAssign shl_assign, Shr shr ShrAssign shr_assign
);

impl<T: Copy + ops::Neg<Output = T>, L: TvLayout> ops::Neg for BlockTile<T, L> {
    type Output = BlockTile<T, L>;
    #[inline(always)]
    fn neg(self) -> BlockTile<T, L> {
        self.map(|x| -x)
    }
}

impl<T: Copy + ops::Not<Output = T>, L: TvLayout> ops::Not for BlockTile<T, L> {
    type Output = BlockTile<T, L>;
    #[inline(always)]
    fn not(self) -> BlockTile<T, L> {
        self.map(|x| !x)
    }
}

macro_rules! comparisons {
    ($($name:ident $op:tt $doc:literal),*) => {
        impl<T: Copy + PartialOrd, L: TvLayout> BlockTile<T, L> {$(
            #[doc = concat!("`self ", $doc, " other` elementwise: a mask.")]
            ///
            /// # Example
            /// ```
            /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
            /// use cute_rs_tensor::blocked_layout;
            /// use cute_rs_tensor::block_tile::BlockTile;
            /// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
            /// let i = BlockTile::<i32, V>::arange(0); // thread 0: 0, 1
            #[doc = concat!("let m = i.", stringify!($name), "(1);")]
            #[doc = concat!("assert_eq!(m.values(), &[0 ", $doc, " 1, 1 ", $doc, " 1]);")]
            /// # }).unwrap();
            /// ```
            #[inline(always)]
            pub fn $name(&self, other: impl Operand<T, L>) -> BlockTile<bool, L> {
                self.zip(other, |a, b| a $op b)
            }
        )*}
    };
}
comparisons!(lt < "<", le <= "<=", gt > ">", ge >= ">=", equal == "==", not_equal != "!=");

/// `cond ? x : y` elementwise (`tl.where`, `ct.where`); `x` and `y` are tiles broadcast to `L` or
/// scalars.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{where_, BlockTile};
/// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let i = BlockTile::<i32, V>::arange(0);
/// assert_eq!(where_(i.lt(1), i, -1).values(), &[0, -1]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub fn where_<T: Copy, L: TvLayout>(cond: BlockTile<bool, L>, x: impl Operand<T, L>, y: impl Operand<T, L>) -> BlockTile<T, L> {
    cond.zip(x, |c, a| (c, a)).zip(y, |(c, a), b| if c { a } else { b })
}

impl<L: TvLayout> BlockTile<f32, L> {
    /// `e^x` elementwise ([`math::exp`](crate::device::math::exp)).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert!((BlockTile::<f32, V>::full(1.0).exp().values()[0] - core::f32::consts::E).abs() < 1e-6);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn exp(&self) -> Self {
        self.map(crate::device::math::exp)
    }
    /// `2^x` elementwise ([`math::exp2`](crate::device::math::exp2)).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(3.0).exp2().values(), &[8.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn exp2(&self) -> Self {
        self.map(crate::device::math::exp2)
    }
    /// `e^x` elementwise with one `ex2.approx` ([`math::exp_approx`](crate::device::math::exp_approx)):
    /// what Triton's `tl.exp` of `f32` compiles to (2 ulp; flushes subnormals).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// assert!((BlockTile::<f32, V>::full(1.0).exp_approx().values()[0] - core::f32::consts::E).abs() < 1e-6);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn exp_approx(&self) -> Self {
        self.map(crate::device::math::exp_approx)
    }
    /// `2^x` elementwise with one `ex2.approx` (Triton's `tl.math.exp2` of `f32`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// assert_eq!(BlockTile::<f32, V>::full(3.0).exp2_approx().values(), &[8.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn exp2_approx(&self) -> Self {
        self.map(crate::device::math::exp2_approx)
    }
    /// `ln x` elementwise.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(1.0).log().values(), &[0.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn log(&self) -> Self {
        self.map(crate::device::math::log)
    }
    /// `sqrt x` elementwise.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(9.0).sqrt().values(), &[3.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn sqrt(&self) -> Self {
        self.map(crate::device::math::sqrt)
    }
    /// `1 / sqrt x` elementwise.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(4.0).rsqrt().values(), &[0.5]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn rsqrt(&self) -> Self {
        self.map(crate::device::math::rsqrt)
    }
    /// `|x|` elementwise.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(-2.0).abs().values(), &[2.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn abs(&self) -> Self {
        self.map(crate::device::math::abs)
    }
    /// The larger of each pair (`tl.maximum`): NaN only when both are NaN.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(-2.0).maximum(0.5).values(), &[0.5]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn maximum(&self, other: impl Operand<f32, L>) -> Self {
        self.zip(other, crate::device::math::max)
    }
    /// The smaller of each pair (`tl.minimum`): NaN only when both are NaN.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::full(-2.0).minimum(0.5).values(), &[-2.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn minimum(&self, other: impl Operand<f32, L>) -> Self {
        self.zip(other, crate::device::math::min)
    }
}

