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

    /// The view with mode `K` fixed at index `i` and removed (CuTe's `tensor(_, _, i)` for
    /// `K = 2`): a stage of a ring of tiles, a K-block of a fragment.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, static_view::StaticView, LayoutTensor, Static};
    /// static_layout!(Ring = "(2,2,3):(2,1,4)"); // three 2 x 2 row-major stages
    /// let mut v: Vec<u8> = (0..12).collect();
    /// let stage2 = LayoutTensor::new(&mut v, Static::<Ring>::new()).unwrap().slice_mode::<2>(2);
    /// assert_eq!(stage2.at([1, 0]), 10);
    /// ```
    #[inline(always)]
    fn slice_mode<const K: usize>(self, i: i64) -> Self::With<WithoutMode<Self::Layout, K>> {
        let off = crate::tensor::mode_offset(&Self::Layout::LAYOUT, &Self::Layout::MODES, K, i);
        self.relayout::<WithoutMode<Self::Layout, K>>(off)
    }
}

/// `S` without its mode `K` (at least two modes; a compile-time error otherwise).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, static_view::WithoutMode, StaticLayout};
/// static_layout!(S = "(2,3,4):(1,2,6)");
/// assert_eq!(WithoutMode::<S, 1>::LAYOUT.to_string(), "(2,4):(1,6)");
/// ```
pub struct WithoutMode<S, const K: usize>(core::marker::PhantomData<S>);
impl<S, const K: usize> Clone for WithoutMode<S, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S, const K: usize> Copy for WithoutMode<S, K> {}
impl<S: StaticLayout, const K: usize> StaticLayout for WithoutMode<S, K> {
    const LAYOUT: cute_rs_layout::Layout = without_mode(S::LAYOUT, K);
}

const fn without_mode(l: cute_rs_layout::Layout, k: usize) -> cute_rs_layout::Layout {
    let r = l.rank();
    assert!(r >= 2 && k < r, "slice_mode: the mode must exist and another must remain");
    let mut modes = [cute_rs_layout::Layout::trivial(); cute_rs_layout::MAX_LEAVES];
    let (mut i, mut n) = (0, 0);
    while i < r {
        if i != k {
            modes[n] = cute_rs_layout::unwrap!(l.mode(i));
            n += 1;
        }
        i += 1;
    }
    cute_rs_layout::unwrap!(cute_rs_layout::make_layout(modes.split_at(n).0))
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace> StaticView for LayoutTensor<'a, T, Static<S>, A, Full> {
    type Layout = S;
    type With<L: StaticLayout> = LayoutTensor<'a, T, Static<L>, A, Full>;
    #[inline(always)]
    fn relayout<L: StaticLayout>(self, origin: i64) -> Self::With<L> {
        Self::rebuild(self.ptr, self.moved(origin), Static::new(), Full)
    }
}
