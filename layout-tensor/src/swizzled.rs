//! Swizzled static layouts as tensor layouts (CuTe's `ComposedLayout<Swizzle, offset, Layout>`):
//! element `i` of the view is at `Z(origin + S(i))`, a static layout `S` whose offsets, moved by a
//! run-time origin, are permuted by the swizzle `Z`. Shared-memory tiles are stored this way so
//! that the rows a warp reads together fall in different banks.
//!
//! The origin stays *inside* the swizzle: a thread's partition of a swizzled tile (its origin the
//! thread's offset) reads the same addresses as the tile itself, whatever bits the offset touches.
//! Only the part of the origin below the swizzle's domain (`2^(B+M+|S|)`) is kept there; the rest
//! moves the pointer, which the swizzle does not see.
//!
//! ```
//! use cute_rs_tensor::{partition::Sw, static_layout, swizzled::Swizzled, LayoutTensor, Shared};
//! static_layout!(Rows = "(8,8):(8,1)");
//! let mut v: Vec<u32> = (0..64).collect();
//! // Sw<3,0,3>: the column's 3 bits are XORed with the row's.
//! let t = unsafe { LayoutTensor::<u32, _, Shared>::from_ptr_in(v.as_mut_ptr(), Swizzled::<Sw<3, 0, 3>, Rows>::new()) };
//! assert_eq!(t.at([1, 0]), 9); // row 1, column 0 -> column 1
//! assert_eq!(t.at([2, 3]), 17); // row 2, column 3 -> column 1
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{Layout, Swizzle, SwizzledLayout};

use crate::mask::Full;
use crate::partition::StaticSwizzle;
use crate::static_layout::{LayoutSource, Modes, StaticLayout};
use crate::static_view::StaticView;
use crate::tensor::{coord_offset, AddressSpace, Element, LayoutTensor};

/// The layout `i -> Z(origin + S(i))` (see the [module documentation](self)).
///
/// # Parameters
/// - `Z`: the swizzle, a [`StaticSwizzle`] such as [`Sw<B, M, S>`](crate::partition::Sw).
/// - `S`: the static layout before the swizzle.
///
/// # Example
/// ```
/// use cute_rs_tensor::{partition::Sw, static_layout, swizzled::Swizzled, LayoutSource};
/// static_layout!(Row = "8:1");
/// let s = Swizzled::<Sw<1, 0, 3>, Row>::new().moved(8);
/// assert_eq!(s.offset(0), 9); // 8 has bit 3 set: bit 0 flips
/// ```
pub struct Swizzled<Z, S> {
    origin: i64,
    _m: PhantomData<(Z, S)>,
}

impl<Z, S> Clone for Swizzled<Z, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Z, S> Copy for Swizzled<Z, S> {}

impl<Z, S> core::fmt::Debug for Swizzled<Z, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Swizzled {{ origin: {} }}", self.origin)
    }
}

impl<Z: StaticSwizzle, S: StaticLayout> Swizzled<Z, S> {
    /// The swizzled layout with origin 0.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{partition::Sw, static_layout, swizzled::Swizzled, LayoutSource};
    /// static_layout!(Row = "16:1");
    /// assert_eq!(Swizzled::<Sw<1, 0, 3>, Row>::new().offset(8), 9);
    /// ```
    #[inline(always)]
    pub fn new() -> Self {
        Swizzled { origin: 0, _m: PhantomData }
    }

    /// The same layout with its origin moved by `off` (before the swizzle).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{partition::Sw, static_layout, swizzled::Swizzled, LayoutSource};
    /// static_layout!(Row = "8:1");
    /// assert_eq!(Swizzled::<Sw<1, 0, 3>, Row>::new().moved(8).offset(1), 8);
    /// ```
    #[inline(always)]
    pub fn moved(self, off: i64) -> Self {
        Swizzled { origin: self.origin + off, _m: PhantomData }
    }
}

impl<Z: StaticSwizzle, S: StaticLayout> Swizzled<Z, S> {
    /// `Z(origin + x)`, with `x`'s multiple of the swizzle's domain added after the swizzle
    /// (`Z(high + y) = high + Z(y)`). For a constant `x` (an unrolled loop's offset) that leaves
    /// one swizzled value per distinct remainder: the offsets of repetitions a domain apart
    /// share one register instead of one each.
    #[inline(always)]
    fn swizzled(&self, x: i64) -> i64 {
        let low = x & (Z::SWIZZLE.domain() - 1);
        Z::SWIZZLE.apply(self.origin + low) + (x - low)
    }
}

impl<Z: StaticSwizzle, S: StaticLayout> Default for Swizzled<Z, S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<Z: StaticSwizzle, S: StaticLayout> LayoutSource for Swizzled<Z, S> {
    /// The layout before the swizzle (its shape is the view's; the offsets are not).
    #[inline(always)]
    fn layout(&self) -> Layout {
        S::LAYOUT
    }
    #[inline(always)]
    fn modes(&self) -> crate::static_layout::Modes {
        S::MODES
    }
    #[inline(always)]
    fn size(&self) -> i64 {
        S::LAYOUT.size()
    }
    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        self.swizzled(S::LAYOUT.call(i))
    }
    #[inline(always)]
    #[track_caller]
    fn offset_at(&self, coord: &[i64]) -> i64 {
        self.swizzled(coord_offset(&S::LAYOUT, &S::MODES, coord))
    }
    fn cosize(&self) -> i64 {
        let mut max = -1;
        for i in 0..S::LAYOUT.size() {
            max = max.max(self.offset(i));
        }
        max + 1
    }
    #[inline(always)]
    fn run_cap(&self) -> i64 {
        swizzle_run_cap(Z::SWIZZLE, self.origin)
    }
}

/// The runs a swizzle keeps whole: it flips the bits of `ZZZ` by the bits of `YYY`, so aligned
/// blocks below the lowest bit of either move together (with a negative shift `YYY` lies below
/// `ZZZ`: a block that spans a `YYY` bit is scattered). The origin shifts every offset away from
/// the pointer whose alignment copies check, so the run must divide it too.
#[inline(always)]
const fn swizzle_run_cap(sw: Swizzle, origin: i64) -> i64 {
    let bits = sw.zzz_mask() | sw.yyy_mask();
    let block = if sw.zzz_mask() == 0 { i64::MAX } else { bits & bits.wrapping_neg() };
    let origin_align = if origin == 0 { i64::MAX } else { origin & origin.wrapping_neg() };
    if origin_align < block {
        origin_align
    } else {
        block
    }
}

/// A run-time swizzled layout as a tensor's layout: element `i` at `swizzle(offset + layout(i))`.
/// [`layout`](LayoutSource::layout) is the inner layout (its shape is the view's; its offsets are
/// not).
///
/// # Example
/// ```
/// use cute_rs_tensor::LayoutTensor;
/// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
/// let tile = make_swizzled(Swizzle::new(3, 0, 3).unwrap(), Layout::parse("(8,8):(8,1)").unwrap());
/// let mut v = vec![0u32; 64];
/// let t = LayoutTensor::new(&mut v, tile).unwrap();
/// t.set_at([2, 3], 7);
/// assert_eq!(v[2 * 8 + (3 ^ 2)], 7); // row 2's column bits are XORed with 2
/// ```
impl LayoutSource for SwizzledLayout {
    #[inline(always)]
    fn layout(&self) -> Layout {
        SwizzledLayout::layout(self)
    }
    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        self.call(i)
    }
    #[inline(always)]
    #[track_caller]
    fn offset_at(&self, coord: &[i64]) -> i64 {
        let inner = SwizzledLayout::layout(self);
        self.swizzle().apply(self.offset() + coord_offset(&inner, &Modes::of(inner), coord))
    }
    fn cosize(&self) -> i64 {
        SwizzledLayout::cosize(self)
    }
    #[inline(always)]
    fn run_cap(&self) -> i64 {
        swizzle_run_cap(self.swizzle(), self.offset())
    }
}

impl<'a, T: Element, Z: StaticSwizzle, S: StaticLayout, A: AddressSpace> StaticView for LayoutTensor<'a, T, Swizzled<Z, S>, A, Full> {
    type Layout = S;
    type With<L: StaticLayout> = LayoutTensor<'a, T, Swizzled<Z, L>, A, Full>;
    #[inline(always)]
    fn relayout<L: StaticLayout>(self, origin: i64) -> Self::With<L> {
        // The swizzle permutes only the bits below its domain, so the origin's multiple of the
        // domain moves the pointer instead: Z(high + y) = high + Z(y). What stays inside the
        // swizzle is then the same for every stage of a ring (a thread's offset within the
        // domain), and the compiler can hoist its swizzled offsets out of the loop over stages.
        let o = self.source().origin + origin;
        let low = o & (Z::SWIZZLE.domain() - 1);
        let moved = Swizzled { origin: low, _m: PhantomData };
        Self::rebuild(self.ptr, self.moved(o - low), moved, Full)
    }
}
