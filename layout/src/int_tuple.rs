//! Nested integer tuples (CuTe's `IntTuple`): shapes, strides and coordinates.
//!
//! An [`IntTuple`] is either an integer (`4`) or a tuple of `IntTuple`s (`(4,(2,3))`). It is a
//! fixed-capacity value (`Copy`, no heap): the leaves in order, plus the nesting written as tokens
//! (`(`, leaf, `)`). Every function here is a `const fn`, so tuples can be built and transformed by
//! the compiler.

use crate::arith;
use crate::error::{tri, LayoutError};

/// The most leaves (integers) one tuple holds.
///
/// # Example
/// ```
/// let leaves = vec![1i64; cute_rs_layout::MAX_LEAVES + 1];
/// assert!(cute_rs_layout::IntTuple::from_slice(&leaves[..cute_rs_layout::MAX_LEAVES]).is_ok());
/// assert!(cute_rs_layout::IntTuple::from_slice(&leaves).is_err());
/// ```
pub const MAX_LEAVES: usize = 32;
/// The most nesting tokens (`(`, `)` and one per leaf) one tuple holds.
///
/// # Example
/// ```
/// // 47 nested 1-tuples around one leaf need 95 tokens; one more level does not fit.
/// let deep = format!("{}1{}", "(".repeat(47), ")".repeat(47));
/// assert!(cute_rs_layout::IntTuple::parse(&deep).is_ok());
/// let deeper = format!("({deep})");
/// assert!(cute_rs_layout::IntTuple::parse(&deeper).is_err());
/// ```
pub const MAX_TOKENS: usize = 96;

/// The leaf value of a free mode (CuTe's `_`) in a slicing coordinate; printed as `_`.
///
/// # Example
/// ```
/// let c = cute_rs_layout::IntTuple::parse("(_,2)").unwrap();
/// assert_eq!(c.leaves(), &[cute_rs_layout::UNDERSCORE, 2]);
/// assert_eq!(c.to_string(), "(_,2)");
/// ```
pub const UNDERSCORE: i64 = i64::MIN;

pub(crate) const OPEN: u8 = 1;
pub(crate) const CLOSE: u8 = 2;
pub(crate) const LEAF: u8 = 3;

/// A nested tuple of integers: CuTe's `IntTuple`.
///
/// Invariant: slots past `nvals`/`ntoks` are zero, so the derived equality compares tuples.
///
/// # Example
/// ```
/// use cute_rs_layout::IntTuple;
/// let t = IntTuple::parse("(3,(2,3))").unwrap();
/// assert_eq!(t.rank(), 2);
/// assert_eq!(t.depth(), 2);
/// assert_eq!(t.product().unwrap(), 18);
/// assert_eq!(t.mode(1).unwrap().to_string(), "(2,3)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct IntTuple {
    vals: [i64; MAX_LEAVES],
    toks: [u8; MAX_TOKENS],
    nvals: u8,
    ntoks: u8,
}

/// Where one top-level mode of a tuple lies in its token and leaf arrays.
#[derive(Clone, Copy)]
pub(crate) struct Span {
    pub tok_start: usize,
    pub tok_end: usize,
    pub val_start: usize,
    pub val_end: usize,
}

impl IntTuple {
    /// The integer `v` (a rank-1, depth-0 tuple).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::int(8).to_string(), "8");
    /// ```
    pub const fn int(v: i64) -> IntTuple {
        let mut t = IntTuple { vals: [0; MAX_LEAVES], toks: [0; MAX_TOKENS], nvals: 1, ntoks: 1 };
        t.vals[0] = v;
        t.toks[0] = LEAF;
        t
    }

    /// The empty tuple `()`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let t = IntTuple::empty().push(IntTuple::int(2)).unwrap();
    /// assert_eq!(t.to_string(), "(2)");
    /// ```
    pub const fn empty() -> IntTuple {
        let mut t = IntTuple { vals: [0; MAX_LEAVES], toks: [0; MAX_TOKENS], nvals: 0, ntoks: 2 };
        t.toks[0] = OPEN;
        t.toks[1] = CLOSE;
        t
    }

    /// The flat tuple of `vals` (`(v0,v1,...)`; a 1-tuple for one value).
    ///
    /// # Errors
    /// [`LayoutError::Capacity`] for more than [`MAX_LEAVES`] values.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::from_slice(&[2, 3, 4]).unwrap().to_string(), "(2,3,4)");
    /// ```
    pub const fn from_slice(vals: &[i64]) -> Result<IntTuple, LayoutError> {
        let mut t = IntTuple::empty();
        let mut i = 0;
        while i < vals.len() {
            t = tri!(t.push(IntTuple::int(vals[i])));
            i += 1;
        }
        Ok(t)
    }

    /// Whether this is an integer rather than a tuple.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert!(IntTuple::parse("4").unwrap().is_int());
    /// assert!(!IntTuple::parse("(4)").unwrap().is_int());
    /// ```
    pub const fn is_int(&self) -> bool {
        self.ntoks == 1
    }

    /// The integer value.
    ///
    /// # Errors
    /// [`LayoutError::NotCongruent`] when this is a tuple.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::int(5).value().unwrap(), 5);
    /// assert!(IntTuple::parse("(5)").unwrap().value().is_err());
    /// ```
    pub const fn value(&self) -> Result<i64, LayoutError> {
        if self.is_int() {
            Ok(self.vals[0])
        } else {
            Err(LayoutError::NotCongruent { op: "value" })
        }
    }

    /// The number of leaves.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout::IntTuple::parse("((2,3),4)").unwrap().num_leaves(), 3);
    /// ```
    pub const fn num_leaves(&self) -> usize {
        self.nvals as usize
    }

    /// The leaves in order (CuTe's `flatten` as a slice).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::parse("((2,3),4)").unwrap().leaves(), &[2, 3, 4]);
    /// ```
    pub const fn leaves(&self) -> &[i64] {
        self.vals.split_at(self.nvals as usize).0
    }

    pub(crate) const fn leaf(&self, i: usize) -> i64 {
        self.vals[i]
    }

    pub(crate) const fn tokens(&self) -> &[u8] {
        self.toks.split_at(self.ntoks as usize).0
    }

    /// The same nesting with leaves `vals` (which must have `num_leaves()` entries).
    pub(crate) const fn with_leaves(&self, vals: &[i64]) -> IntTuple {
        let mut t = *self;
        let mut i = 0;
        while i < t.nvals as usize {
            t.vals[i] = vals[i];
            i += 1;
        }
        t
    }

    /// The number of top-level modes (1 for an integer).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::parse("(3,(2,3))").unwrap().rank(), 2);
    /// assert_eq!(IntTuple::parse("7").unwrap().rank(), 1);
    /// ```
    pub const fn rank(&self) -> usize {
        if self.is_int() {
            return 1;
        }
        let mut n = 0;
        let mut pos = 1;
        while pos + 1 < self.ntoks as usize {
            pos = self.skip(pos);
            n += 1;
        }
        n
    }

    /// The nesting depth: 0 for an integer, 1 for a flat tuple, and so on.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::parse("((4,2))").unwrap().depth(), 2);
    /// assert_eq!(IntTuple::parse("4").unwrap().depth(), 0);
    /// ```
    pub const fn depth(&self) -> usize {
        let mut d = 0;
        let mut best = 0;
        let mut i = 0;
        while i < self.ntoks as usize {
            if self.toks[i] == OPEN {
                d += 1;
                if d > best {
                    best = d;
                }
            } else if self.toks[i] == CLOSE {
                d -= 1;
            }
            i += 1;
        }
        best
    }

    /// The token position just past the element starting at `pos`.
    const fn skip(&self, pos: usize) -> usize {
        if self.toks[pos] != OPEN {
            return pos + 1;
        }
        let mut d = 0;
        let mut i = pos;
        loop {
            if self.toks[i] == OPEN {
                d += 1;
            } else if self.toks[i] == CLOSE {
                d -= 1;
                if d == 0 {
                    return i + 1;
                }
            }
            i += 1;
        }
    }

    /// Where mode `i` lies; `None` past the rank. Mode 0 of an integer is the integer itself.
    pub(crate) const fn span(&self, i: usize) -> Option<Span> {
        if self.is_int() {
            return if i == 0 { Some(Span { tok_start: 0, tok_end: 1, val_start: 0, val_end: 1 }) } else { None };
        }
        let mut pos = 1;
        let mut val = 0;
        let mut k = 0;
        while pos + 1 < self.ntoks as usize {
            let end = self.skip(pos);
            let mut leaves = 0;
            let mut j = pos;
            while j < end {
                if self.toks[j] == LEAF {
                    leaves += 1;
                }
                j += 1;
            }
            if k == i {
                return Some(Span { tok_start: pos, tok_end: end, val_start: val, val_end: val + leaves });
            }
            val += leaves;
            pos = end;
            k += 1;
        }
        None
    }

    pub(crate) const fn extract(&self, s: Span) -> IntTuple {
        let mut t = IntTuple { vals: [0; MAX_LEAVES], toks: [0; MAX_TOKENS], nvals: 0, ntoks: 0 };
        let mut i = s.tok_start;
        while i < s.tok_end {
            t.toks[t.ntoks as usize] = self.toks[i];
            t.ntoks += 1;
            i += 1;
        }
        let mut j = s.val_start;
        while j < s.val_end {
            t.vals[t.nvals as usize] = self.vals[j];
            t.nvals += 1;
            j += 1;
        }
        t
    }

    /// Mode `i` (CuTe's `get<i>`); mode 0 of an integer is the integer.
    ///
    /// # Errors
    /// [`LayoutError::OutOfBounds`] when `i >= rank()`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let t = IntTuple::parse("(3,(2,3))").unwrap();
    /// assert_eq!(t.mode(0).unwrap().to_string(), "3");
    /// assert!(t.mode(2).is_err());
    /// ```
    pub const fn mode(&self, i: usize) -> Result<IntTuple, LayoutError> {
        match self.span(i) {
            Some(s) => Ok(self.extract(s)),
            None => Err(LayoutError::OutOfBounds { op: "mode", value: i as i64, extent: self.rank() as i64 }),
        }
    }

    /// Mode `i` for `i < rank()` (callers have checked the rank).
    pub(crate) const fn at(&self, i: usize) -> IntTuple {
        match self.span(i) {
            Some(s) => self.extract(s),
            None => panic!("mode index past the rank"),
        }
    }

    /// Appends `child` as a new last mode of this tuple (which must be a tuple, maybe empty).
    ///
    /// # Errors
    /// [`LayoutError::NotCongruent`] when `self` is an integer; [`LayoutError::Capacity`] when full.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let t = IntTuple::empty().push(IntTuple::int(4)).unwrap()
    ///     .push(IntTuple::parse("(2,3)").unwrap()).unwrap();
    /// assert_eq!(t.to_string(), "(4,(2,3))");
    /// ```
    pub const fn push(self, child: IntTuple) -> Result<IntTuple, LayoutError> {
        if self.is_int() {
            return Err(LayoutError::NotCongruent { op: "push" });
        }
        if self.nvals as usize + child.nvals as usize > MAX_LEAVES {
            return Err(LayoutError::Capacity { what: "leaves", limit: MAX_LEAVES });
        }
        if self.ntoks as usize + child.ntoks as usize > MAX_TOKENS {
            return Err(LayoutError::Capacity { what: "nesting tokens", limit: MAX_TOKENS });
        }
        let mut t = self;
        t.ntoks -= 1; // drop the closing token, re-added below
        let mut i = 0;
        while i < child.ntoks as usize {
            t.toks[t.ntoks as usize] = child.toks[i];
            t.ntoks += 1;
            i += 1;
        }
        t.toks[t.ntoks as usize] = CLOSE;
        t.ntoks += 1;
        let mut j = 0;
        while j < child.nvals as usize {
            t.vals[t.nvals as usize] = child.vals[j];
            t.nvals += 1;
            j += 1;
        }
        Ok(t)
    }

    /// The tuple `(self)`: one level of nesting more.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::parse("(2,3)").unwrap().wrap().unwrap().to_string(), "((2,3))");
    /// ```
    pub const fn wrap(self) -> Result<IntTuple, LayoutError> {
        IntTuple::empty().push(self)
    }

    /// CuTe's `append`: `(a..., x)` for a tuple `a`, `(a, x)` for an integer `a`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let a = IntTuple::parse("(2,3)").unwrap();
    /// assert_eq!(a.append(IntTuple::int(4)).unwrap().to_string(), "(2,3,4)");
    /// assert_eq!(IntTuple::int(2).append(IntTuple::int(4)).unwrap().to_string(), "(2,4)");
    /// ```
    pub const fn append(self, x: IntTuple) -> Result<IntTuple, LayoutError> {
        let base = if self.is_int() { tri!(self.wrap()) } else { self };
        base.push(x)
    }

    /// CuTe's `prepend`: `(x, a...)` for a tuple `a`, `(x, a)` for an integer `a`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let a = IntTuple::parse("(2,3)").unwrap();
    /// assert_eq!(a.prepend(IntTuple::int(4)).unwrap().to_string(), "(4,2,3)");
    /// ```
    pub const fn prepend(self, x: IntTuple) -> Result<IntTuple, LayoutError> {
        let mut t = tri!(IntTuple::empty().push(x));
        let r = self.rank();
        let mut i = 0;
        while i < r {
            t = tri!(t.push(self.at(i)));
            i += 1;
        }
        Ok(t)
    }

    /// All leaves as one flat tuple; an integer stays an integer (CuTe's `flatten`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::parse("((2,3),(4))").unwrap().flatten().to_string(), "(2,3,4)");
    /// ```
    pub const fn flatten(&self) -> IntTuple {
        if self.is_int() {
            return *self;
        }
        let mut t = IntTuple::empty();
        let mut i = 0;
        while i < self.nvals as usize {
            t.toks[t.ntoks as usize - 1] = LEAF;
            t.toks[t.ntoks as usize] = CLOSE;
            t.ntoks += 1;
            t.vals[i] = self.vals[i];
            t.nvals += 1;
            i += 1;
        }
        t
    }

    /// The product of the leaves (CuTe's `product`, the `size` of a shape).
    ///
    /// # Errors
    /// [`LayoutError::Overflow`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert_eq!(IntTuple::parse("(3,(2,3))").unwrap().product().unwrap(), 18);
    /// assert!(IntTuple::parse("(4294967296,4294967296)").unwrap().product().is_err());
    /// ```
    pub const fn product(&self) -> Result<i64, LayoutError> {
        let mut p: i64 = 1;
        let mut i = 0;
        while i < self.nvals as usize {
            p = tri!(arith::mul("product", p, self.vals[i]));
            i += 1;
        }
        Ok(p)
    }

    /// The product of each top-level mode (CuTe's `product_each`); an integer stays itself.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let t = IntTuple::parse("((2,3),4,(5,1))").unwrap();
    /// assert_eq!(t.product_each().unwrap().to_string(), "(6,4,5)");
    /// ```
    pub const fn product_each(&self) -> Result<IntTuple, LayoutError> {
        if self.is_int() {
            return Ok(*self);
        }
        let mut t = IntTuple::empty();
        let mut i = 0;
        while i < self.rank() {
            t = tri!(t.push(IntTuple::int(tri!(self.at(i).product()))));
            i += 1;
        }
        Ok(t)
    }

    /// Same nesting (CuTe's `congruent`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let a = IntTuple::parse("(2,(3,4))").unwrap();
    /// assert!(a.congruent(&IntTuple::parse("(7,(1,1))").unwrap()));
    /// assert!(!a.congruent(&IntTuple::parse("(2,3,4)").unwrap()));
    /// ```
    pub const fn congruent(&self, other: &IntTuple) -> bool {
        if self.ntoks != other.ntoks {
            return false;
        }
        let mut i = 0;
        while i < self.ntoks as usize {
            if self.toks[i] != other.toks[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// CuTe's `weakly_congruent`: `self`'s nesting is a coarsening of `other`'s (an integer of
    /// `self` may stand for a whole sub-tuple of `other`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let a = IntTuple::parse("(1,2)").unwrap();
    /// assert!(a.weakly_congruent(&IntTuple::parse("(3,(4,5))").unwrap()));
    /// assert!(!a.weakly_congruent(&IntTuple::parse("(3,4,5)").unwrap()));
    /// ```
    pub const fn weakly_congruent(&self, other: &IntTuple) -> bool {
        if self.is_int() {
            return true;
        }
        if other.is_int() || self.rank() != other.rank() {
            return false;
        }
        let mut i = 0;
        while i < self.rank() {
            if !self.at(i).weakly_congruent(&other.at(i)) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// CuTe's `compatible(self, other)`: every coordinate of shape `self` is also a coordinate of shape
    /// `other` (sizes agree, and an integer of `self` may stand for a sub-tuple of `other`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// let a = IntTuple::parse("(4,6)").unwrap();
    /// assert!(a.compatible(&IntTuple::parse("((2,2),(2,3))").unwrap()));
    /// assert!(!a.compatible(&IntTuple::parse("(6,4)").unwrap()));
    /// ```
    pub const fn compatible(&self, other: &IntTuple) -> bool {
        if self.is_int() {
            return match other.product() {
                Ok(p) => p == self.vals[0],
                Err(_) => false,
            };
        }
        if other.is_int() || self.rank() != other.rank() {
            return false;
        }
        let mut i = 0;
        while i < self.rank() {
            if !self.at(i).compatible(&other.at(i)) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Whether any leaf is the free mode `_`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// assert!(IntTuple::parse("(1,(_,2))").unwrap().has_underscore());
    /// assert!(!IntTuple::parse("(1,2)").unwrap().has_underscore());
    /// ```
    pub const fn has_underscore(&self) -> bool {
        let mut i = 0;
        while i < self.nvals as usize {
            if self.vals[i] == UNDERSCORE {
                return true;
            }
            i += 1;
        }
        false
    }
}
