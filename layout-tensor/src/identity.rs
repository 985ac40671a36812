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
use crate::tensor::coord_offset;

/// The coordinates of a tile of shape `Shape`, viewed through the layout `L` (by default the
/// compact column-major layout of `Shape`: element `i` is the `i`-th coordinate in column-major
/// order). A partition of it ([`StaticView::relayout`]) keeps `Shape`, so its elements are still
/// coordinates in the whole tile.
///
/// # Parameters
/// - `Shape`: a static layout whose top-level mode sizes are the tile's extents.
/// - `L`: the view's layout, into the column-major index space of `Shape`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{identity::IdentityTensor, static_layout, static_view::StaticView};
/// static_layout!(Tile = "(4,4)");
/// static_layout!(Diag = "4:5");
/// let diagonal = IdentityTensor::<Tile>::new().relayout::<Diag>(0);
/// assert_eq!(diagonal.get(3), [3, 3]);
/// ```
pub struct IdentityTensor<Shape, L = CompactOf<Shape>> {
    origin: i64,
    _m: PhantomData<(Shape, L)>,
}

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
        IdentityTensor { origin: 0, _m: PhantomData }
    }
}

impl<Shape: StaticLayout> Default for IdentityTensor<Shape> {
    fn default() -> Self {
        Self::new()
    }
}

impl<Shape: StaticLayout, L: StaticLayout> IdentityTensor<Shape, L> {
    /// The coordinate of column-major index `x` in `Shape`, one entry per top-level mode.
    #[inline(always)]
    fn coordinate<const R: usize>(x: i64) -> [i64; R] {
        const { assert!(R == Shape::MODES.rank, "an identity tensor's coordinates have one entry per mode of its shape") };
        Shape::MODES.coord(x)
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
        Self::coordinate(self.origin + L::LAYOUT.call(i as i64))
    }

    /// The coordinate held at the view's per-mode coordinate `coord`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Tile = "(2,3)");
    /// assert_eq!(IdentityTensor::<Tile>::new().at([1, 2]), [1, 2]);
    /// ```
    #[inline(always)]
    pub fn at<const R: usize, const Q: usize>(&self, coord: [i64; Q]) -> [i64; R] {
        Self::coordinate(self.origin + coord_offset(&L::LAYOUT, &L::MODES, &coord))
    }
}

impl<Shape: StaticLayout, L: StaticLayout> StaticView for IdentityTensor<Shape, L> {
    type Layout = L;
    type With<L2: StaticLayout> = IdentityTensor<Shape, L2>;
    #[inline(always)]
    fn relayout<L2: StaticLayout>(self, origin: i64) -> IdentityTensor<Shape, L2> {
        IdentityTensor { origin: self.origin + origin, _m: PhantomData }
    }
}
