//! Identity tensors (CuTe's `make_identity_tensor`): a "tensor" whose element at each coordinate
//! is that coordinate. Partitioned like the data it stands for, it tells each thread which
//! coordinates its values have, for predicating the edges of a tile.
//!
//! ```
//! use cute_rs_tensor::{identity::IdentityTensor, static_layout};
//! static_layout!(Tile = "(4,3)");
//! let id = IdentityTensor::<Tile>::new();
//! assert_eq!(id.get(5), [1, 1]); // column-major: index 5 is (1, 1)
//! assert_eq!(id.at([2, 2]), [2, 2]);
//! ```

use core::marker::PhantomData;

use crate::fragment::CompactOf;
use crate::static_layout::StaticLayout;
use crate::static_view::StaticView;

/// The coordinates of a tile of shape `Shape`, viewed through the layout `L` (by default the
/// compact column-major layout of `Shape`: element `i` is the `i`-th coordinate in column-major
/// order). A partition of it ([`StaticView::relayout`]) keeps `Shape`, so its elements are still
/// coordinates in the whole tile.
///
/// As in CuTe, where an identity tensor's strides are coordinate vectors (`E<0>`, `E<1>`, ..),
/// coordinates add mode by mode and never wrap: each stride of `L` counts as its coordinate in
/// `Shape`, and the view's origin is a coordinate too. A partition's values then cost one
/// constant add per mode (no division per value), and an origin near the end of a mode plus a
/// value offset gives a coordinate past the tile's extent, which is what edge predication tests.
///
/// # Parameters
/// - `Shape`: a static layout whose top-level mode sizes are the tile's extents (at most
///   [`MAX_IDENTITY_RANK`] modes).
/// - `L`: the view's layout, into the column-major index space of `Shape`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{identity::IdentityTensor, static_layout, static_view::StaticView};
/// static_layout!(Tile = "(4,4)");
/// static_layout!(Diag = "4:5");
/// let diagonal = IdentityTensor::<Tile>::new().relayout::<Diag>(0);
/// assert_eq!(diagonal.get(3), [3, 3]);
/// // Moved to row 3, the diagonal leaves the tile instead of wrapping into the next column.
/// assert_eq!(IdentityTensor::<Tile>::new().relayout::<Diag>(3).get(1), [4, 1]);
/// ```
pub struct IdentityTensor<Shape, L = CompactOf<Shape>> {
    /// The coordinate of the view's element 0 (entries past `Shape`'s rank are 0).
    origin: [i64; MAX_IDENTITY_RANK],
    _m: PhantomData<(Shape, L)>,
}

/// The most modes an [`IdentityTensor`]'s shape may have.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_tensor::identity::MAX_IDENTITY_RANK, 8);
/// ```
pub const MAX_IDENTITY_RANK: usize = 8;

impl<Shape, L> Clone for IdentityTensor<Shape, L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Shape, L> Copy for IdentityTensor<Shape, L> {}

impl<Shape: StaticLayout> IdentityTensor<Shape> {
    /// The identity tensor of `Shape`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Tile = "(2,2)");
    /// assert_eq!(IdentityTensor::<Tile>::new().get(2), [0, 1]);
    /// ```
    #[inline(always)]
    pub fn new() -> Self {
        const { assert!(Shape::MODES.rank <= MAX_IDENTITY_RANK, "an identity tensor's shape has at most MAX_IDENTITY_RANK modes") };
        IdentityTensor { origin: [0; MAX_IDENTITY_RANK], _m: PhantomData }
    }
}

impl<Shape: StaticLayout> IdentityTensor<Shape> {
    /// The coordinates of the `Shape`-shaped tile whose first element is at coordinate `origin`
    /// of a larger tensor (CuTe's `local_tile(make_identity_tensor(shape), tile, coord)`): what
    /// a tile hanging over the tensor's edge predicates its accesses with.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Tile = "(2,2)");
    /// assert_eq!(IdentityTensor::<Tile>::tile_at([4, 6]).get(3), [5, 7]);
    /// ```
    #[inline(always)]
    pub fn tile_at<const R: usize>(origin: [i64; R]) -> Self {
        const { assert!(R == Shape::MODES.rank, "tile_at: one coordinate per mode of the tile") };
        let mut t = Self::new();
        t.origin[..R].copy_from_slice(&origin);
        t
    }
}

impl<Shape: StaticLayout> Default for IdentityTensor<Shape> {
    fn default() -> Self {
        Self::new()
    }
}

impl<Shape: StaticLayout, L: StaticLayout> IdentityTensor<Shape, L> {
    /// The coordinate that index `x` of `L`'s domain adds to the origin: the sum over `L`'s
    /// leaves of the leaf's index times its stride's coordinate in `Shape`. A constant whenever
    /// `x` is one (an unrolled loop's index).
    #[inline(always)]
    pub(crate) const fn step<const R: usize>(x: i64) -> [i64; R] {
        let shape = L::LAYOUT.shape();
        let stride = L::LAYOUT.stride();
        let (s, d) = (shape.leaves(), stride.leaves());
        let mut c = [0; R];
        let mut rest = x;
        let mut j = 0;
        while j < s.len() {
            let digit = if j + 1 < s.len() { rest % s[j] } else { rest };
            rest /= s[j];
            let e: [i64; R] = Shape::MODES.coord(d[j]);
            let mut m = 0;
            while m < R {
                c[m] += digit * e[m];
                m += 1;
            }
            j += 1;
        }
        c
    }

    /// The origin plus `step`, as `R` entries.
    #[inline(always)]
    fn moved<const R: usize>(&self, step: [i64; R]) -> [i64; R] {
        const { assert!(R == Shape::MODES.rank, "an identity tensor's coordinates have one entry per mode of its shape") };
        let mut c = step;
        for (m, x) in c.iter_mut().enumerate() {
            *x += self.origin[m];
        }
        c
    }

    /// The coordinate held at 1-D index `i` of the view.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Tile = "(2,3)");
    /// assert_eq!(IdentityTensor::<Tile>::new().get(5), [1, 2]);
    /// ```
    #[inline(always)]
    pub fn get<const R: usize>(&self, i: usize) -> [i64; R] {
        self.moved(Self::step(i as i64))
    }

    /// The coordinate held at the view's per-mode coordinate `coord` (each entry a 1-D index
    /// into its mode).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Tile = "(2,3)");
    /// assert_eq!(IdentityTensor::<Tile>::new().at([1, 2]), [1, 2]);
    /// ```
    #[inline(always)]
    pub fn at<const R: usize, const Q: usize>(&self, coord: [i64; Q]) -> [i64; R] {
        const { assert!(Q == L::MODES.rank, "at: one coordinate per mode of the view") };
        self.get(Self::index_of(&coord) as usize)
    }

    /// The 1-D index of `L`'s domain at the per-mode coordinate `coord` (column-major).
    #[inline(always)]
    pub(crate) fn index_of(coord: &[i64]) -> i64 {
        let mut x = 0;
        let mut size = 1;
        for (k, c) in coord.iter().enumerate() {
            x += c * size;
            size *= L::MODES.size[k];
        }
        x
    }
}

impl<Shape: StaticLayout, L: StaticLayout> StaticView for IdentityTensor<Shape, L> {
    type Layout = L;
    type With<L2: StaticLayout> = IdentityTensor<Shape, L2>;
    /// `origin` is an index of `Shape`'s column-major space: its coordinate (the one division of
    /// a partition) is added to the view's origin.
    #[inline(always)]
    fn relayout<L2: StaticLayout>(self, origin: i64) -> IdentityTensor<Shape, L2> {
        let by: [i64; MAX_IDENTITY_RANK] = Shape::MODES.coord(origin);
        let mut moved = self.origin;
        for (m, x) in moved.iter_mut().enumerate() {
            *x += by[m];
        }
        IdentityTensor { origin: moved, _m: PhantomData }
    }
}
