//! Views with a static layout whose origin moves at run time: what the partitions of the atom
//! layer (`partition_a`, `partition_s`, ...) take and return.
//!
//! A partition keeps the kind of view it is given: a tensor's partition is a tensor of the same
//! memory and address space, an identity tensor's partition is an identity tensor. Each kind says
//! how to re-lay itself out ([`StaticView::relayout`]): a new static layout, its origin moved by
//! an offset in the old layout's codomain.
//!
//! ```
//! use cute_rs_tensor::{static_layout, static_view::StaticView, LayoutTensor, Static};
//! static_layout!(M = "(4,4):(4,1)");
//! static_layout!(Col = "4:4");
//! let mut v: Vec<u8> = (0..16).collect();
//! let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
//! let column2 = t.relayout::<Col>(2); // column 2: offsets 2, 6, 10, 14
//! assert_eq!(column2.get(3), 14);
//! ```

use crate::mask::Full;
use crate::static_layout::{Static, StaticLayout};
use crate::tensor::{AddressSpace, Element, LayoutTensor};

/// A view with a static layout and a movable origin (see the [module documentation](self)).
///
/// # Example
/// ```
/// use cute_rs_tensor::{identity::IdentityTensor, static_layout, static_view::StaticView};
/// static_layout!(Tile = "(4,2)");
/// static_layout!(Row = "2:4");
/// let row1 = IdentityTensor::<Tile>::new().relayout::<Row>(1);
/// assert_eq!((row1.get(0), row1.get(1)), ([1, 0], [1, 1]));
/// ```
pub trait StaticView: Copy {
    /// The view's layout.
    type Layout: StaticLayout;
    /// The same kind of view with layout `L`.
    type With<L: StaticLayout>: StaticView<Layout = L>;
    /// The view with layout `L` whose offset `j` is this view's offset `origin + L(j)`.
    fn relayout<L: StaticLayout>(self, origin: i64) -> Self::With<L>;
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace> StaticView for LayoutTensor<'a, T, Static<S>, A, Full> {
    type Layout = S;
    type With<L: StaticLayout> = LayoutTensor<'a, T, Static<L>, A, Full>;
    #[inline(always)]
    fn relayout<L: StaticLayout>(self, origin: i64) -> Self::With<L> {
        Self::rebuild(self.ptr, self.moved(origin), Static::new(), Full)
    }
}
