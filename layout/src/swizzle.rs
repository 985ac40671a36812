//! `Swizzle<B,M,S>` and swizzled layouts (CuTe's `ComposedLayout<Swizzle, offset, Layout>`).
//!
//! A swizzle permutes the bits of an index to spread accesses over shared-memory banks:
//! `0bxxxxxxxYYYxxxxxxxZZZxxxx`: the `B` bits `YYY` (which start `M + S` bits up) are XORed into the
//! `B` bits `ZZZ` (which start `M` bits up); the low `M` bits are untouched.

use core::fmt;

use crate::composition::composition;
use crate::error::{tri, LayoutError};
use crate::layout::Layout;

/// CuTe's `Swizzle<B, M, S>`: `f(x) = x ^ ((x & yyy) >> S)` (a negative `S` shifts left), where
/// `yyy` is `B` ones starting at bit `M + max(S, 0)`.
///
/// # Constraints
/// `|S| >= B` (so the two bit fields do not overlap and `f` is an involution), `B + M + |S| <= 62`.
///
/// # Example
/// ```
/// use cute_rs_layout::Swizzle;
/// const SW: Swizzle = cute_rs_layout::unwrap!(Swizzle::new(3, 4, 3));
/// assert_eq!(SW.to_string(), "Sw<3,4,3>");
/// assert_eq!(SW.apply(0b1_0000000), 0b1_0010000);
/// assert_eq!(SW.apply(SW.apply(1234)), 1234);
/// assert!(Swizzle::new(3, 4, 2).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Swizzle {
    bits: u32,
    base: u32,
    shift: i32,
}

impl Swizzle {
    /// The swizzle `Sw<bits, base, shift>`.
    ///
    /// # Errors
    /// [`LayoutError::InvalidArgument`] when `|shift| < bits` or the fields pass bit 62.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Swizzle;
    /// assert!(Swizzle::new(3, 3, 3).is_ok());
    /// assert_eq!(Swizzle::new(3, 3, 2).unwrap_err().to_string(),
    ///            "swizzle: invalid argument: |S| must be at least B, found 2");
    /// ```
    pub const fn new(bits: u32, base: u32, shift: i32) -> Result<Swizzle, LayoutError> {
        const OP: &str = "swizzle";
        if shift.unsigned_abs() < bits {
            return Err(LayoutError::InvalidArgument { op: OP, condition: "|S| must be at least B", value: shift as i64 });
        }
        if bits as u64 + base as u64 + shift.unsigned_abs() as u64 > 62 {
            return Err(LayoutError::InvalidArgument {
                op: OP,
                condition: "B + M + |S| must be at most 62",
                value: bits as i64 + base as i64 + shift.unsigned_abs() as i64,
            });
        }
        Ok(Swizzle { bits, base, shift })
    }

    /// The number of bits in each field (`B`).
    ///
    /// # Example
    /// ```
    /// let sw = cute_rs_layout::Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!((sw.bits(), sw.base(), sw.shift()), (3, 4, 3));
    /// ```
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// The number of low bits kept unchanged (`M`).
    ///
    /// # Example
    /// ```
    /// let sw = cute_rs_layout::Swizzle::new(2, 1, -3).unwrap();
    /// assert_eq!(sw.base(), 1);
    /// ```
    pub const fn base(&self) -> u32 {
        self.base
    }

    /// The distance from the `ZZZ` field to the `YYY` field (`S`).
    ///
    /// # Example
    /// ```
    /// let sw = cute_rs_layout::Swizzle::new(2, 1, -3).unwrap();
    /// assert_eq!(sw.shift(), -3);
    /// ```
    pub const fn shift(&self) -> i32 {
        self.shift
    }

    /// The mask of the source field `YYY`.
    ///
    /// # Example
    /// ```
    /// let sw = cute_rs_layout::Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!(sw.yyy_mask(), 0b111_0000000);
    /// ```
    pub const fn yyy_mask(&self) -> i64 {
        let pos = if self.shift > 0 { self.base + self.shift as u32 } else { self.base };
        ((1i64 << self.bits) - 1) << pos
    }

    /// The mask of the target field `ZZZ`.
    ///
    /// # Example
    /// ```
    /// let sw = cute_rs_layout::Swizzle::new(3, 4, 3).unwrap();
    /// assert_eq!(sw.zzz_mask(), 0b111_0000);
    /// ```
    pub const fn zzz_mask(&self) -> i64 {
        let pos = if self.shift < 0 { self.base + self.shift.unsigned_abs() } else { self.base };
        ((1i64 << self.bits) - 1) << pos
    }

    /// The swizzled offset.
    ///
    /// # Example
    /// ```
    /// let sw = cute_rs_layout::Swizzle::new(3, 4, 3).unwrap();
    /// // Bits 7..9 (here 0b101) are XORed into bits 4..6.
    /// assert_eq!(sw.apply(0b101_0000011), 0b101_1010011);
    /// ```
    #[inline(always)]
    pub const fn apply(&self, offset: i64) -> i64 {
        let y = offset & self.yyy_mask();
        let moved = if self.shift >= 0 { y >> self.shift } else { y << self.shift.unsigned_abs() };
        offset ^ moved
    }

    /// The number of indices the swizzle permutes among themselves: `2^(B + M + |S|)`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout::Swizzle::new(3, 4, 3).unwrap().domain(), 1024);
    /// ```
    pub const fn domain(&self) -> i64 {
        1i64 << (self.bits + self.base + self.shift.unsigned_abs())
    }
}

impl fmt::Display for Swizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}

/// A swizzled layout, CuTe's `ComposedLayout<Swizzle, offset, Layout>`:
/// `f(c) = swizzle(offset + layout(c))`.
///
/// # Example
/// ```
/// use cute_rs_layout::{Layout, Swizzle, SwizzledLayout};
/// let sw = Swizzle::new(2, 0, 2).unwrap();
/// let l = SwizzledLayout::new(sw, 0, Layout::parse("(4,4):(4,1)").unwrap());
/// assert_eq!(l.to_string(), "Sw<2,0,2> o 0 o (4,4):(4,1)");
/// // Row 1 is rotated by one: (1,0) -> 4 ^ 1 = 5.
/// assert_eq!(l.call(1), 5);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct SwizzledLayout {
    swizzle: Swizzle,
    offset: i64,
    layout: Layout,
}

impl SwizzledLayout {
    /// `swizzle o offset o layout`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{Layout, Swizzle, SwizzledLayout};
    /// let s = SwizzledLayout::new(Swizzle::new(1, 0, 1).unwrap(), 0, Layout::parse("4:1").unwrap());
    /// assert_eq!(s.to_string(), "Sw<1,0,1> o 0 o 4:1");
    /// ```
    pub const fn new(swizzle: Swizzle, offset: i64, layout: Layout) -> SwizzledLayout {
        SwizzledLayout { swizzle, offset, layout }
    }

    /// The swizzle.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let s = make_swizzled(Swizzle::new(1, 0, 1).unwrap(), Layout::parse("4:1").unwrap());
    /// assert_eq!(s.swizzle(), Swizzle::new(1, 0, 1).unwrap());
    /// assert_eq!((s.offset(), s.size()), (0, 4));
    /// assert_eq!(s.layout().to_string(), "4:1");
    /// ```
    pub const fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The offset added before swizzling.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{Layout, Swizzle, SwizzledLayout};
    /// let s = SwizzledLayout::new(Swizzle::new(1, 0, 1).unwrap(), 2, Layout::parse("4:1").unwrap());
    /// assert_eq!(s.offset(), 2);
    /// assert_eq!(s.call(0), 3); // Sw<1,0,1>(2) = 2 ^ 1
    /// ```
    pub const fn offset(&self) -> i64 {
        self.offset
    }

    /// The inner layout.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let s = make_swizzled(Swizzle::new(1, 0, 1).unwrap(), Layout::parse("(2,2):(2,1)").unwrap());
    /// assert_eq!(s.layout().to_string(), "(2,2):(2,1)");
    /// ```
    pub const fn layout(&self) -> Layout {
        self.layout
    }

    /// The number of coordinates (that of the inner layout).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let s = make_swizzled(Swizzle::new(1, 0, 1).unwrap(), Layout::parse("(2,2):(2,1)").unwrap());
    /// assert_eq!(s.size(), 4);
    /// ```
    pub const fn size(&self) -> i64 {
        self.layout.size()
    }

    /// One past the largest offset: the storage the layout needs. Unlike a plain layout's, the
    /// last coordinate need not reach the largest offset (the swizzle permutes offsets within
    /// aligned blocks of [`Swizzle::domain`] elements, and can move one past the inner layout's
    /// cosize), so every coordinate is visited.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let sw = Swizzle::new(1, 0, 1).unwrap();
    /// // 0, 1, 2 -> 0, 1, 3: the swizzled image of 3:1 needs 4 elements, the inner layout 3.
    /// assert_eq!(make_swizzled(sw, Layout::parse("3:1").unwrap()).cosize(), 4);
    /// assert_eq!(make_swizzled(sw, Layout::parse("(4,4):(4,1)").unwrap()).cosize(), 16);
    /// ```
    pub const fn cosize(&self) -> i64 {
        let n = self.layout.size();
        let mut max = -1;
        let mut i = 0;
        while i < n {
            let o = self.call(i);
            if o > max {
                max = o;
            }
            i += 1;
        }
        max + 1
    }

    /// Evaluates at a 1-D coordinate.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let s = make_swizzled(Swizzle::new(1, 0, 1).unwrap(), Layout::parse("4:1").unwrap());
    /// assert_eq!((0..4).map(|i| s.call(i)).collect::<Vec<_>>(), [0, 1, 3, 2]);
    /// ```
    #[inline(always)]
    pub const fn call(&self, idx: i64) -> i64 {
        self.swizzle.apply(self.offset + self.layout.call(idx))
    }
}

impl fmt::Display for SwizzledLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o {} o {}", self.swizzle, self.offset, self.layout)
    }
}

/// CuTe's `composition(swizzle, layout)`: the swizzled layout `swizzle o 0 o layout`.
///
/// # Example
/// ```
/// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
/// let l = make_swizzled(Swizzle::new(3, 3, 3).unwrap(), Layout::parse("(8,64):(64,1)").unwrap());
/// assert_eq!(l.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
/// ```
pub const fn make_swizzled(swizzle: Swizzle, layout: Layout) -> SwizzledLayout {
    SwizzledLayout::new(swizzle, 0, layout)
}

/// `composition(swizzled, B)`: the swizzle and offset stay outside, B composes with the inner
/// layout, so `result(i) == swizzled(B(i))`.
///
/// # Errors
/// The errors of [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::{compose_swizzled, make_swizzled, Layout, Swizzle};
/// let s = make_swizzled(Swizzle::new(2, 0, 2).unwrap(), Layout::parse("(4,4):(4,1)").unwrap());
/// let b = Layout::parse("4:4").unwrap();
/// let r = compose_swizzled(s, b).unwrap();
/// for i in 0..4 { assert_eq!(r.call(i), s.call(b.call(i))); }
/// ```
pub const fn compose_swizzled(s: SwizzledLayout, b: Layout) -> Result<SwizzledLayout, LayoutError> {
    Ok(SwizzledLayout::new(s.swizzle, s.offset, tri!(composition(s.layout, b))))
}
