//! Static tiles of tensors with run-time strides (CuTe's `local_tile` of a tensor such as
//! `make_tensor(ptr, make_shape(m, k), make_stride(ld, _1{}))`): the tile's shape and every
//! partition of it are static, the strides are the tensor's, known at launch.
//!
//! A [`StridedTile`] reads element `i` at `origin + sum_m c_m(i) * stride[m]`, where `c(i)` is the
//! coordinate that an [`IdentityTensor`] of the same shape and layout holds at `i`. So a thread's
//! partition of a global tile (its values a constant coordinate step apart) costs one multiply-add
//! per value, the constants folded, and the coordinates of the same partition of an identity
//! tensor are exactly the ones to predicate it with.
//!
//! ```
//! use cute_rs_tensor::{static_layout, static_view::StaticView, strided_tile::local_tile, LayoutTensor, Strided};
//! static_layout!(Tile = "(2,3)");
//! let mut v: Vec<u32> = (0..40).collect();
//! // A 5 x 8 row-major matrix; the 2 x 3 tile whose first element is at (2, 4).
//! let m = LayoutTensor::new(&mut v, Strided::row_major([5, 8])).unwrap();
//! let t = local_tile::<Tile, _, _, 2>(m, [2, 4]);
//! assert_eq!([t.at([0, 0]), t.at([1, 2])], [20, 30]);
//! static_layout!(Row1 = "3:2"); // the tile's second row
//! assert_eq!(t.relayout::<Row1>(1).get(2), 30);
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{IntTuple, Layout};

use crate::fragment::{CompactOf, Fragment};
use crate::identity::{IdentityTensor, MAX_IDENTITY_RANK};
use crate::mask::Full;
use crate::static_layout::{LayoutSource, Modes, StaticLayout};
use crate::static_view::StaticView;
use crate::tensor::{AddressSpace, Element, LayoutTensor};
use crate::Strided;

/// A tile of shape `Shape` seen through the layout `L`, in a tensor with run-time strides (see
/// the [module documentation](self)).
///
/// # Parameters
/// - `Shape`: the tile's shape (its top-level mode sizes are the tile's extents).
/// - `L`: the view's layout into `Shape`'s column-major index space (a partition's, or the
///   compact one).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, strided_tile::StridedTile, LayoutSource};
/// static_layout!(Tile = "(4,2)");
/// let t = StridedTile::<Tile>::new(100, [10, 1]); // rows 10 apart
/// assert_eq!(t.offset(5), 100 + 10 + 1); // index 5 is (1, 1)
/// ```
pub struct StridedTile<Shape, L = CompactOf<Shape>> {
    /// The offset of the tile's coordinate 0.
    origin: i64,
    /// The tensor's stride of each of `Shape`'s modes (0 past its rank).
    stride: [i64; MAX_IDENTITY_RANK],
    _m: PhantomData<(Shape, L)>,
}

impl<Shape, L> Clone for StridedTile<Shape, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Shape, L> Copy for StridedTile<Shape, L> {}

impl<Shape, L> core::fmt::Debug for StridedTile<Shape, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "StridedTile {{ origin: {}, stride: {:?} }}", self.origin, self.stride)
    }
}

impl<Shape: StaticLayout> StridedTile<Shape> {
    /// The tile at offset `origin` of a tensor whose mode `m` has stride `stride[m]`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, strided_tile::StridedTile, LayoutSource};
    /// static_layout!(Tile = "(2,2)");
    /// assert_eq!(StridedTile::<Tile>::new(0, [1, 7]).offset(3), 8);
    /// ```
    #[inline(always)]
    pub fn new<const R: usize>(origin: i64, stride: [i64; R]) -> Self {
        const { assert!(R == Shape::MODES.rank, "StridedTile: one stride per mode of the tile") };
        let mut s = [0; MAX_IDENTITY_RANK];
        s[..R].copy_from_slice(&stride);
        StridedTile { origin, stride: s, _m: PhantomData }
    }
}

impl<Shape: StaticLayout, L: StaticLayout> StridedTile<Shape, L> {
    /// The offset of a coordinate step (of `Shape`'s modes) from the origin.
    #[inline(always)]
    fn offset_of(&self, c: [i64; MAX_IDENTITY_RANK]) -> i64 {
        let mut off = self.origin;
        for (c, s) in c.iter().zip(self.stride.iter()) {
            off += c * s;
        }
        off
    }
}

impl<Shape: StaticLayout, L: StaticLayout> LayoutSource for StridedTile<Shape, L> {
    /// `L`'s leaves with their strides in the tensor (flat: the leaves in `L`'s order).
    fn layout(&self) -> Layout {
        let (shape, stride) = (L::LAYOUT.shape(), L::LAYOUT.stride());
        let (s, d) = (shape.leaves(), stride.leaves());
        let mut strides = [0i64; cute_rs_layout::MAX_LEAVES];
        for (j, d) in d.iter().enumerate() {
            strides[j] = self.offset_of(Shape::MODES.coord(*d)) - self.origin;
        }
        let tuple = |v: &[i64]| IntTuple::from_slice(v).expect("StridedTile: at most cute_rs_layout::MAX_LEAVES leaves");
        if s.len() == 1 {
            Layout::int(s[0], strides[0])
        } else {
            Layout::new(tuple(s), tuple(&strides[..s.len()]))
        }
        .expect("StridedTile: a layout of positive extents")
    }
    #[inline(always)]
    fn modes(&self) -> Modes {
        L::MODES
    }
    #[inline(always)]
    fn size(&self) -> i64 {
        L::LAYOUT.size()
    }
    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        self.offset_of(IdentityTensor::<Shape, L>::step(i))
    }
    #[inline(always)]
    #[track_caller]
    fn offset_at(&self, coord: &[i64]) -> i64 {
        self.offset(IdentityTensor::<Shape, L>::index_of(coord))
    }
}

impl<'a, T: Element, Shape: StaticLayout, L: StaticLayout, A: AddressSpace> StaticView for LayoutTensor<'a, T, StridedTile<Shape, L>, A, Full> {
    type Layout = L;
    type With<L2: StaticLayout> = LayoutTensor<'a, T, StridedTile<Shape, L2>, A, Full>;
    /// `origin` is an index of `Shape`'s column-major space: its coordinate moves the origin.
    #[inline(always)]
    fn relayout<L2: StaticLayout>(self, origin: i64) -> Self::With<L2> {
        let t = self.source();
        let moved = StridedTile { origin: t.offset_of(Shape::MODES.coord(origin)), stride: t.stride, _m: PhantomData };
        Self::rebuild(self.ptr, self.byte_off, moved, Full)
    }
}

impl<'a, T: Element, Shape: StaticLayout, L: StaticLayout, A: AddressSpace> LayoutTensor<'a, T, StridedTile<Shape, L>, A, Full> {
    /// CuTe's `make_fragment_like`: a zeroed register fragment of this view's static shape
    /// (compact, column-major: [`CompactOf<L>`]), such as the registers a thread's partition of a
    /// global tile is loaded into; `N` is `size(L)` (checked at compile time).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, strided_tile::local_tile, LayoutTensor, Strided};
    /// static_layout!(Tile = "(2,2)");
    /// let mut v: Vec<u8> = (0..16).collect();
    /// let t = local_tile::<Tile, _, _, 2>(LayoutTensor::new(&mut v, Strided::row_major([4, 4])).unwrap(), [2, 2]);
    /// let mut f = t.make_fragment_like::<4>();
    /// f.tensor().copy_from(&t);
    /// assert_eq!(f.data, [10, 14, 11, 15]);
    /// ```
    #[inline(always)]
    pub fn make_fragment_like<const N: usize>(&self) -> Fragment<T, CompactOf<L>, N> {
        Fragment::new()
    }
}

/// The `Tile`-shaped tile of `tensor` whose first element is at coordinate `at` (CuTe's
/// `local_tile(tensor, tile, coord)` with the tile's coordinate scaled to elements). Nothing is
/// checked against the tensor's extents: a tile may hang over an edge, and the accesses past it
/// are the caller's to predicate (an [`IdentityTensor::tile_at`] partitioned alike gives each
/// value's coordinate).
///
/// # Parameters
/// - `Tile`: the tile's static shape, one mode per mode of the tensor.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, strided_tile::local_tile, LayoutTensor, Strided};
/// static_layout!(Tile = "(2,2)");
/// let mut v: Vec<u8> = (0..16).collect();
/// let m = LayoutTensor::new(&mut v, Strided::col_major([4, 4])).unwrap();
/// assert_eq!(local_tile::<Tile, _, _, 2>(m, [2, 1]).at([1, 1]), 3 + 2 * 4);
/// ```
#[inline(always)]
pub fn local_tile<'a, Tile: StaticLayout, T: Element, A: AddressSpace, const R: usize>(
    tensor: LayoutTensor<'a, T, Strided<R>, A, Full>,
    at: [i64; R],
) -> LayoutTensor<'a, T, StridedTile<Tile>, A, Full> {
    let s = tensor.source();
    let mut origin = 0;
    for (c, d) in at.iter().zip(s.stride.iter()) {
        origin += c * d;
    }
    LayoutTensor::<T, Strided<R>, A, Full>::rebuild(tensor.ptr, tensor.byte_off, StridedTile::<Tile>::new(origin, s.stride), Full)
}
