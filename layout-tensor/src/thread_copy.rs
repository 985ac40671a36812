//! Mojo's thread-aware copies, the `copy_dram_to_sram` family: every thread of a thread layout
//! `Th` copies its fragment ([`distribute`](LayoutTensor::distribute)) of the source into its
//! fragment of the destination, so that the threads together copy the whole tile.
//!
//! | Mojo | here |
//! | --- | --- |
//! | `copy_dram_to_sram[thread_layout](dst, src)` | [`copy_dram_to_sram::<Th, R, ..>(dst, src, tid)`](copy_dram_to_sram) |
//! | `copy_dram_to_sram_async[thread_layout](dst, src)` | [`copy_dram_to_sram_async`]: `cp.async`, then [`async_copy_wait_all`](crate::async_copy_wait_all) |
//! | `copy_sram_to_dram[thread_layout](dst, src)` | [`copy_sram_to_dram`] |
//! | a masked `src` (a partial tile of a tensor whose size the tile does not divide) | a tile from [`tile_masked`](LayoutTensor::tile_masked): out-of-bounds elements are zero-filled by the async copy, skipped by the others; a partial `dst` is written only inside |
//! | `swizzle=...` (the shared tile stored swizzled) | the shared side wrapped in [`SwizzledBy<Z, _>`](SwizzledBy): each thread's fragment origin is swizzled ([`distribute_swizzled`](LayoutTensor::distribute_swizzled)) |
//!
//! A side is any [`ThreadFragment`]: a full static tile, a partial one, or a swizzled one.
//!
//! # Example
//! ```
//! use cute_rs_tensor::thread_copy::{copy_dram_to_sram, copy_sram_to_dram};
//! use cute_rs_tensor::{static_layout, LayoutTensor, Shared, Static};
//! static_layout!(M = "(3,6):(6,1)"); // 3 x 6, row-major
//! static_layout!(T = "(4,4):(4,1)"); // the shared tile
//! static_layout!(Th = "(2,2):(2,1)");
//! let mut g: Vec<u32> = (0..18).collect();
//! let mut s = [0u32; 16];
//! let global = LayoutTensor::new(&mut g, Static::<M>::new()).unwrap();
//! let shared = unsafe { LayoutTensor::<u32, _, Shared>::from_ptr_in(s.as_mut_ptr(), Static::<T>::new()) };
//! let partial = global.tile_masked::<T, 2>([0, 1]); // rows 0..3, columns 4..6 inside
//! for tid in 0..4 {
//!     copy_dram_to_sram::<Th, 2, _, _>(shared, partial, tid);
//! }
//! assert_eq!(&s[..4], &[4, 5, 0, 0]); // the synchronous copy skips what is outside
//! for tid in 0..4 {
//!     copy_sram_to_dram::<Th, 2, _, _>(partial, shared, tid); // written back inside only
//! }
//! assert_eq!(g, (0..18).collect::<Vec<u32>>());
//! ```

use core::marker::PhantomData;

use crate::mask::{Bounds, Clip, Full};
use crate::partition::StaticSwizzle;
use crate::static_layout::{LayoutSource, Partition, Static, StaticLayout};
use crate::tensor::{AddressSpace, Element, Global, LayoutTensor, Shared};

/// A tensor the threads of `Th` (of rank `R`) partition into fragments, one a thread: a full
/// static tile, a partial tile ([`Clip`] bounds: the fragment keeps the clipped extents), or a
/// swizzled one ([`SwizzledBy`]).
///
/// # Parameters
/// - `Th`: the thread layout (Mojo's `thread_layout`).
/// - `R`: its rank, the tile's.
///
/// # Example
/// ```
/// use cute_rs_tensor::thread_copy::ThreadFragment;
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// static_layout!(M = "(4,4):(4,1)");
/// static_layout!(Th = "(2,2):(1,2)");
/// let mut v: Vec<u32> = (0..16).collect();
/// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
/// let f = ThreadFragment::<Th, 2>::fragment(t, 1);
/// assert_eq!([f.at([0, 0]), f.at([1, 1])], [4, 14]);
/// ```
pub trait ThreadFragment<Th: StaticLayout, const R: usize>: Copy {
    /// The element type.
    type Elem: Element;
    /// The fragment's layout.
    type Layout: LayoutSource;
    /// The address space.
    type Space: AddressSpace;
    /// The fragment's bounds.
    type Bound: Bounds;

    /// Thread `tid`'s fragment.
    ///
    /// # Example
    /// See [`ThreadFragment`].
    fn fragment<'v>(self, tid: usize) -> LayoutTensor<'v, Self::Elem, Self::Layout, Self::Space, Self::Bound>
    where
        Self: 'v;
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace, Th: StaticLayout, const R: usize> ThreadFragment<Th, R> for LayoutTensor<'a, T, Static<S>, A, Full> {
    type Elem = T;
    type Layout = Static<Partition<S, Th>>;
    type Space = A;
    type Bound = Full;

    #[inline(always)]
    fn fragment<'v>(self, tid: usize) -> LayoutTensor<'v, T, Static<Partition<S, Th>>, A, Full>
    where
        Self: 'v,
    {
        self.distribute::<Th, R>(tid)
    }
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace, Th: StaticLayout, const R: usize> ThreadFragment<Th, R> for LayoutTensor<'a, T, Static<S>, A, Clip<R>> {
    type Elem = T;
    type Layout = Static<Partition<S, Th>>;
    type Space = A;
    type Bound = Clip<R>;

    #[inline(always)]
    fn fragment<'v>(self, tid: usize) -> LayoutTensor<'v, T, Static<Partition<S, Th>>, A, Clip<R>>
    where
        Self: 'v,
    {
        self.distribute::<Th, R>(tid)
    }
}

/// A full static tile stored swizzled by `Z` (Mojo's `swizzle=` argument): its fragments'
/// origins are swizzled ([`LayoutTensor::distribute_swizzled`]; each fragment stride must be a
/// multiple of the swizzle's period, a compile-time error otherwise).
///
/// # Parameters
/// - `Z`: the swizzle, such as [`Sw<B, M, S>`](crate::partition::Sw).
/// - `V`: the tile.
///
/// # Example
/// ```
/// use cute_rs_tensor::thread_copy::{SwizzledBy, ThreadFragment};
/// use cute_rs_tensor::{partition::Sw, static_layout, LayoutTensor, Static};
/// static_layout!(M = "(8,8):(8,1)");
/// static_layout!(Th = "(4,8):(8,1)");
/// let mut v: Vec<u32> = (0..64).collect();
/// let t = SwizzledBy::<Sw<1, 0, 3>, _>::new(LayoutTensor::new(&mut v, Static::<M>::new()).unwrap());
/// // Thread 9 = (1, 1): origin 9, swizzled to 8.
/// assert_eq!(ThreadFragment::<Th, 2>::fragment(t, 9).get(0), 8);
/// ```
pub struct SwizzledBy<Z, V>(V, PhantomData<Z>);

impl<Z, V: Copy> Clone for SwizzledBy<Z, V> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Z, V: Copy> Copy for SwizzledBy<Z, V> {}

impl<Z: StaticSwizzle, V: Copy> SwizzledBy<Z, V> {
    /// The tile `view`, stored swizzled by `Z`.
    ///
    /// # Example
    /// See [`SwizzledBy`].
    #[inline(always)]
    pub fn new(view: V) -> Self {
        SwizzledBy(view, PhantomData)
    }
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace, Z: StaticSwizzle, Th: StaticLayout, const R: usize> ThreadFragment<Th, R>
    for SwizzledBy<Z, LayoutTensor<'a, T, Static<S>, A, Full>>
{
    type Elem = T;
    type Layout = Static<Partition<S, Th>>;
    type Space = A;
    type Bound = Full;

    #[inline(always)]
    fn fragment<'v>(self, tid: usize) -> LayoutTensor<'v, T, Static<Partition<S, Th>>, A, Full>
    where
        Self: 'v,
    {
        self.0.distribute_swizzled::<Th, Z, R>(tid)
    }
}

/// Mojo's `copy_dram_to_sram[thread_layout](dst, src)`: thread `tid` of `Th` copies its fragment
/// of `src` into its fragment of `dst`, synchronously (vectorized where both fragments keep runs
/// contiguous). With a partial `src`, elements outside it are not copied (their `dst` elements
/// keep their values); with a partial `dst`, only its inside is written.
///
/// # Parameters
/// - `Th`, `R`: the thread layout and its rank.
///
/// # Args
/// - `dst`, `src`: [`ThreadFragment`]s of the same size, any address spaces.
/// - `tid`: the thread's index in `Th` (Mojo: `thread_idx.x`, or the lane for a warp).
///
/// # Constraints
/// Both tiles' fragments have the same size (a panic naming the condition otherwise).
///
/// # Example
/// See the [module](self).
#[inline(always)]
pub fn copy_dram_to_sram<Th: StaticLayout, const R: usize, D, S>(dst: D, src: S, tid: usize)
where
    D: ThreadFragment<Th, R>,
    S: ThreadFragment<Th, R, Elem = D::Elem>,
{
    dst.fragment(tid).copy_from(&src.fragment(tid));
}

/// Mojo's `copy_sram_to_dram[thread_layout](dst, src)`: the same copy the other way (a partial
/// `dst` is written only inside).
///
/// # Parameters
/// - `Th`, `R`: the thread layout and its rank.
///
/// # Args
/// As [`copy_dram_to_sram`].
///
/// # Constraints
/// As [`copy_dram_to_sram`].
///
/// # Example
/// See the [module](self).
#[inline(always)]
pub fn copy_sram_to_dram<Th: StaticLayout, const R: usize, D, S>(dst: D, src: S, tid: usize)
where
    D: ThreadFragment<Th, R>,
    S: ThreadFragment<Th, R, Elem = D::Elem>,
{
    copy_dram_to_sram::<Th, R, D, S>(dst, src, tid)
}

/// Mojo's `copy_dram_to_sram_async[thread_layout](dst, src)`: thread `tid`'s fragment of the
/// global `src` into its fragment of the shared `dst` with `cp.async`
/// ([`copy_from_async`](LayoutTensor::copy_from_async): 16-byte copies where both fragments keep
/// runs contiguous and aligned); elements outside a partial `src` are zero-filled. Nothing is
/// waited for: call [`async_copy_wait_all`](crate::async_copy_wait_all), then a block barrier,
/// before reading `dst`.
///
/// # Parameters
/// - `Th`, `R`: the thread layout and its rank.
///
/// # Args
/// - `dst`: a shared [`ThreadFragment`] (full, or [`SwizzledBy`]).
/// - `src`: a global one (full, or partial).
/// - `tid`: the thread's index in `Th`.
///
/// # Constraints
/// As [`copy_dram_to_sram`].
///
/// # Example
/// ```
/// use cute_rs_tensor::thread_copy::copy_dram_to_sram_async;
/// use cute_rs_tensor::{async_copy_wait_all, static_layout, LayoutTensor, Shared, Static};
/// static_layout!(M = "(3,6):(6,1)");
/// static_layout!(T = "(4,4):(4,1)");
/// static_layout!(Th = "(2,2):(2,1)");
/// let mut g: Vec<u32> = (0..18).collect();
/// let mut s = [7u32; 16];
/// let global = LayoutTensor::new(&mut g, Static::<M>::new()).unwrap();
/// let shared = unsafe { LayoutTensor::<u32, _, Shared>::from_ptr_in(s.as_mut_ptr(), Static::<T>::new()) };
/// for tid in 0..4 {
///     copy_dram_to_sram_async::<Th, 2, _, _>(shared, global.tile_masked::<T, 2>([0, 1]), tid);
/// }
/// async_copy_wait_all();
/// assert_eq!(&s[..4], &[4, 5, 0, 0]); // zero-filled outside the 3 x 6 tensor
/// assert_eq!(&s[12..], &[0, 0, 0, 0]); // row 3 is outside too
/// ```
#[inline(always)]
pub fn copy_dram_to_sram_async<Th: StaticLayout, const R: usize, D, S>(dst: D, src: S, tid: usize)
where
    D: ThreadFragment<Th, R, Space = Shared>,
    S: ThreadFragment<Th, R, Elem = D::Elem, Space = Global>,
{
    dst.fragment(tid).copy_from_async(&src.fragment(tid));
}
