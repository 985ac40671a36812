//! `Layout` = shape:stride, its construction (compact, ordered), evaluation (crd2idx, idx2crd) and
//! mode manipulation (append, prepend, group, select, flatten, transpose).

use crate::arith;
use crate::error::{tri, LayoutError};
use crate::int_tuple::{IntTuple, MAX_LEAVES, UNDERSCORE};

/// A layout: a function from coordinates of `shape` to indices, `index = sum(coord_i * stride_i)`.
///
/// Shape and stride are congruent [`IntTuple`]s, every shape leaf is at least 1, and the size and the
/// largest index fit in `i64` (checked by [`Layout::new`], which every operation goes through).
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// let l = Layout::parse("(3,(2,3)):(3,(12,1))").unwrap();
/// assert_eq!(l.size(), 18);
/// assert_eq!(l.cosize(), 21);
/// assert_eq!(l.call(16), 17);
/// assert_eq!(l.to_string(), "(3,(2,3)):(3,(12,1))");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: IntTuple,
    stride: IntTuple,
}

impl Layout {
    /// The layout `shape:stride`.
    ///
    /// # Errors
    /// [`LayoutError::NotCongruent`] when shape and stride nest differently;
    /// [`LayoutError::NonPositiveShape`] for a shape leaf below 1 (or a free mode `_`);
    /// [`LayoutError::Overflow`] when the size or an index does not fit in `i64`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{IntTuple, Layout};
    /// let s = IntTuple::parse("(4,2)").unwrap();
    /// let d = IntTuple::parse("(1,4)").unwrap();
    /// assert_eq!(Layout::new(s, d).unwrap().to_string(), "(4,2):(1,4)");
    /// assert!(Layout::new(s, IntTuple::int(1)).is_err());
    /// ```
    pub const fn new(shape: IntTuple, stride: IntTuple) -> Result<Layout, LayoutError> {
        if !shape.congruent(&stride) {
            return Err(LayoutError::NotCongruent { op: "make_layout" });
        }
        let n = shape.num_leaves();
        let mut lo: i64 = 0;
        let mut hi: i64 = 0;
        let mut size: i64 = 1;
        let mut i = 0;
        while i < n {
            let s = shape.leaf(i);
            let d = stride.leaf(i);
            if s < 1 {
                return Err(LayoutError::NonPositiveShape { op: "make_layout", value: s });
            }
            if d == UNDERSCORE {
                return Err(LayoutError::InvalidArgument {
                    op: "make_layout",
                    condition: "a stride must be an integer, not `_`",
                    value: 0,
                });
            }
            size = tri!(arith::mul("make_layout", size, s));
            let ext = tri!(arith::mul("make_layout", s - 1, d));
            if ext > 0 {
                hi = tri!(arith::add("make_layout", hi, ext));
            } else {
                lo = tri!(arith::add("make_layout", lo, ext));
            }
            i += 1;
        }
        // Indices must stay representable with some room (`hi + 1`, differences).
        tri!(arith::sub("make_layout", tri!(arith::add("make_layout", hi, 1)), lo));
        Ok(Layout { shape, stride })
    }

    /// The integer layout `shape:stride` (rank 1, depth 0).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// assert_eq!(Layout::int(8, 2).unwrap().to_string(), "8:2");
    /// ```
    pub const fn int(shape: i64, stride: i64) -> Result<Layout, LayoutError> {
        Layout::new(IntTuple::int(shape), IntTuple::int(stride))
    }

    /// The empty layout `():()`, the start of a layout built mode by mode with [`Layout::push`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// let l = Layout::empty().push(Layout::parse("4:1").unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(4):(1)");
    /// ```
    pub const fn empty() -> Layout {
        Layout { shape: IntTuple::empty(), stride: IntTuple::empty() }
    }

    /// `1:0`, CuTe's trivial layout (what an operation returns when nothing is left).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout::Layout::trivial().to_string(), "1:0");
    /// ```
    pub const fn trivial() -> Layout {
        Layout { shape: IntTuple::int(1), stride: IntTuple::int(0) }
    }

    /// The shape.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_layout::Layout::parse("(4,(2,3)):(1,(4,8))").unwrap();
    /// assert_eq!(l.shape().to_string(), "(4,(2,3))");
    /// ```
    pub const fn shape(&self) -> IntTuple {
        self.shape
    }

    /// The stride.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_layout::Layout::parse("(4,(2,3)):(1,(4,8))").unwrap();
    /// assert_eq!(l.stride().to_string(), "(1,(4,8))");
    /// ```
    pub const fn stride(&self) -> IntTuple {
        self.stride
    }

    /// The number of coordinates: the product of the shape.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// assert_eq!(Layout::parse("(4,(3,6)):(1,(4,12))").unwrap().size(), 72);
    /// ```
    #[inline(always)]
    pub const fn size(&self) -> i64 {
        let mut p = 1;
        let mut i = 0;
        while i < self.shape.num_leaves() {
            p *= self.shape.leaf(i);
            i += 1;
        }
        p
    }

    /// CuTe's `cosize`: `layout(size - 1) + 1`, the extent of the codomain for non-negative strides.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// assert_eq!(Layout::parse("(3,(2,3)):(3,(12,1))").unwrap().cosize(), 21);
    /// assert_eq!(Layout::parse("4:0").unwrap().cosize(), 1);
    /// assert_eq!(Layout::empty().cosize(), 1);
    /// ```
    pub const fn cosize(&self) -> i64 {
        self.call(self.size() - 1) + 1
    }

    /// The number of top-level modes.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout::Layout::parse("(4,(2,3)):(1,(4,8))").unwrap().rank(), 2);
    /// ```
    pub const fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// The nesting depth of the shape.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout::Layout::parse("(4,(2,3)):(1,(4,8))").unwrap().depth(), 2);
    /// ```
    pub const fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Evaluates the layout at a 1-D (colexicographic) coordinate: CuTe's `layout(i)`.
    ///
    /// The coordinate is split over the leaves left to right; the last leaf takes what is left, so
    /// `i >= size()` extends the last mode as in CuTe. This is the hot path of device code: on a
    /// `const` layout it folds to multiplies, masks and shifts.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// let l = Layout::parse("(4,8,32):(256,1,8)").unwrap();
    /// assert_eq!(l.call(0), 0);
    /// assert_eq!(l.call(5), 257);
    /// assert_eq!(l.call(4 * 8), 8);
    /// ```
    #[inline(always)]
    pub const fn call(&self, idx: i64) -> i64 {
        let n = self.shape.num_leaves();
        let mut c = idx;
        let mut r = 0;
        let mut i = 0;
        while i + 1 < n {
            let s = self.shape.leaf(i);
            r += (c % s) * self.stride.leaf(i);
            c /= s;
            i += 1;
        }
        // The last leaf, its index wrapped into the leaves' storage: `():()` (no leaf, size 1)
        // then gives `0 * stride = 0` at its one index, the constant 0, without a branch (a
        // branch here kept LLVM from folding constant layouts' loops in kernels).
        r + c * self.stride.leaf(n.wrapping_sub(1) % MAX_LEAVES)
    }

    /// Mode `i` as a layout (CuTe's `layout<i>`); mode 0 of an integer layout is itself.
    ///
    /// # Errors
    /// [`LayoutError::OutOfBounds`] when `i >= rank()`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// let l = Layout::parse("(3,(2,3)):(3,(12,1))").unwrap();
    /// assert_eq!(l.mode(1).unwrap().to_string(), "(2,3):(12,1)");
    /// ```
    pub const fn mode(&self, i: usize) -> Result<Layout, LayoutError> {
        let s = tri!(self.shape.mode(i));
        Ok(Layout { shape: s, stride: self.stride.at(i) })
    }

    /// Mode `i` for `i < rank()`.
    pub(crate) const fn at(&self, i: usize) -> Layout {
        Layout { shape: self.shape.at(i), stride: self.stride.at(i) }
    }

    /// Appends `m` as a new last mode of this layout, which must be a tuple (see [`Layout::empty`]).
    ///
    /// # Errors
    /// [`LayoutError::NotCongruent`] for an integer layout; [`LayoutError::Capacity`] when full.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// let l = Layout::parse("(4,2):(1,4)").unwrap().push(Layout::parse("3:8").unwrap()).unwrap();
    /// assert_eq!(l.to_string(), "(4,2,3):(1,4,8)");
    /// assert!(Layout::parse("4:1").unwrap().push(Layout::trivial()).is_err());
    /// ```
    pub const fn push(self, m: Layout) -> Result<Layout, LayoutError> {
        let shape = tri!(self.shape.push(m.shape));
        let stride = tri!(self.stride.push(m.stride));
        Layout::new(shape, stride)
    }

    /// The 1-mode layout `(shape):(stride)`.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_layout::Layout::parse("(4,2):(1,4)").unwrap();
    /// assert_eq!(l.wrap().unwrap().to_string(), "((4,2)):((1,4))");
    /// ```
    pub const fn wrap(self) -> Result<Layout, LayoutError> {
        Layout::empty().push(self)
    }

    /// Whether this is an integer layout (depth 0).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// assert!(Layout::parse("8:2").unwrap().is_int());
    /// assert!(!Layout::parse("(8):(2)").unwrap().is_int());
    /// ```
    pub const fn is_int(&self) -> bool {
        self.shape.is_int()
    }
}

/// CuTe's `size(layout)`. See [`Layout::size`].
///
/// # Example
/// ```
/// use cute_rs_layout::{size, Layout};
/// assert_eq!(size(Layout::parse("((4,2)):((2,1))").unwrap()), 8);
/// ```
pub const fn size(l: Layout) -> i64 {
    l.size()
}

/// CuTe's `cosize(layout)`. See [`Layout::cosize`].
///
/// # Example
/// ```
/// use cute_rs_layout::{cosize, Layout};
/// assert_eq!(cosize(Layout::parse("(4,(3,6)):(1,(4,12))").unwrap()), 72);
/// ```
pub const fn cosize(l: Layout) -> i64 {
    l.cosize()
}

/// CuTe's `rank(layout)`: the number of top-level modes.
///
/// # Example
/// ```
/// use cute_rs_layout::{rank, Layout};
/// assert_eq!(rank(Layout::parse("((4,2)):((2,1))").unwrap()), 1);
/// ```
pub const fn rank(l: Layout) -> usize {
    l.rank()
}

/// CuTe's `depth(layout)`: the nesting depth of the shape.
///
/// # Example
/// ```
/// use cute_rs_layout::{depth, Layout};
/// assert_eq!(depth(Layout::parse("(3,(2,3)):(3,(12,1))").unwrap()), 2);
/// ```
pub const fn depth(l: Layout) -> usize {
    l.depth()
}

/// The layout whose modes are `modes` (CuTe's `make_layout(l0, l1, ...)`): always a tuple.
///
/// # Errors
/// [`LayoutError::Capacity`] when the result does not fit.
///
/// # Example
/// ```
/// use cute_rs_layout::{make_layout, Layout};
/// let a = Layout::parse("4:1").unwrap();
/// let b = Layout::parse("(2,3):(4,8)").unwrap();
/// assert_eq!(make_layout(&[a, b]).unwrap().to_string(), "(4,(2,3)):(1,(4,8))");
/// assert_eq!(make_layout(&[a]).unwrap().to_string(), "(4):(1)");
/// ```
pub const fn make_layout(modes: &[Layout]) -> Result<Layout, LayoutError> {
    let mut l = Layout::empty();
    let mut i = 0;
    while i < modes.len() {
        l = tri!(l.push(modes[i]));
        i += 1;
    }
    Ok(l)
}

/// The modes as a layout, unwrapped when there is exactly one (CuTe's `unwrap` of a result tuple).
pub(crate) const fn make_layout_unwrapped(modes: &[Layout]) -> Result<Layout, LayoutError> {
    if modes.len() == 1 {
        Ok(modes[0])
    } else {
        make_layout(modes)
    }
}

/// Compact strides for `shape` starting at `current`, column-major (`left`) or row-major; a leaf of
/// shape 1 gets stride 0, as in CuTe. Returns the strides and the next free stride.
const fn compact_strides(shape: IntTuple, left: bool, current: i64) -> Result<(IntTuple, i64), LayoutError> {
    let n = shape.num_leaves();
    let mut vals = [0i64; MAX_LEAVES];
    let mut cur = current;
    let mut k = 0;
    while k < n {
        let i = if left { k } else { n - 1 - k };
        let s = shape.leaf(i);
        if s < 1 {
            return Err(LayoutError::NonPositiveShape { op: "make_layout", value: s });
        }
        vals[i] = if s == 1 { 0 } else { cur };
        cur = tri!(arith::mul("make_layout", cur, s));
        k += 1;
    }
    Ok((shape.with_leaves(&vals), cur))
}

/// The compact column-major layout of `shape` (CuTe's `make_layout(shape)`, `LayoutLeft`).
/// Modes of size 1 get stride 0, as CuTe gives them.
///
/// # Errors
/// [`LayoutError::NonPositiveShape`], [`LayoutError::Overflow`].
///
/// # Example
/// ```
/// use cute_rs_layout::{make_layout_col_major, IntTuple};
/// let s = IntTuple::parse("(4,(1,3))").unwrap();
/// assert_eq!(make_layout_col_major(s).unwrap().to_string(), "(4,(1,3)):(1,(0,4))");
/// ```
pub const fn make_layout_col_major(shape: IntTuple) -> Result<Layout, LayoutError> {
    let (stride, _) = tri!(compact_strides(shape, true, 1));
    Layout::new(shape, stride)
}

/// The compact row-major layout of `shape` (CuTe's `make_layout(shape, LayoutRight{})`).
///
/// # Errors
/// [`LayoutError::NonPositiveShape`], [`LayoutError::Overflow`].
///
/// # Example
/// ```
/// use cute_rs_layout::{make_layout_row_major, IntTuple};
/// let s = IntTuple::parse("(2,(3,4))").unwrap();
/// assert_eq!(make_layout_row_major(s).unwrap().to_string(), "(2,(3,4)):(12,(4,1))");
/// ```
pub const fn make_layout_row_major(shape: IntTuple) -> Result<Layout, LayoutError> {
    let (stride, _) = tri!(compact_strides(shape, false, 1));
    Layout::new(shape, stride)
}

/// For an `order` weakly congruent with `shape`: each order leaf's value and the size of the
/// sub-shape it stands for, in order.
const fn collect_orders(
    shape: IntTuple,
    order: IntTuple,
    orders: &mut [i64; MAX_LEAVES],
    sizes: &mut [i64; MAX_LEAVES],
    n: &mut usize,
) -> Result<(), LayoutError> {
    if order.is_int() {
        orders[*n] = order.leaf(0);
        sizes[*n] = tri!(shape.product());
        *n += 1;
        return Ok(());
    }
    if shape.is_int() || shape.rank() != order.rank() {
        return Err(LayoutError::RankMismatch {
            op: "make_ordered_layout",
            expected: shape.rank(),
            found: order.rank(),
        });
    }
    let mut i = 0;
    while i < order.rank() {
        tri!(collect_orders(shape.at(i), order.at(i), orders, sizes, n));
        i += 1;
    }
    Ok(())
}

/// The strides of `shape` under `order`: each order leaf's sub-shape is compact column-major,
/// starting after the sizes of all sub-shapes of smaller order.
const fn ordered_strides(
    shape: IntTuple,
    order: IntTuple,
    orders: &[i64; MAX_LEAVES],
    sizes: &[i64; MAX_LEAVES],
    count: usize,
) -> Result<IntTuple, LayoutError> {
    if order.is_int() {
        let o = order.leaf(0);
        let mut start: i64 = 1;
        let mut j = 0;
        while j < count {
            if orders[j] < o {
                start = tri!(arith::mul("make_ordered_layout", start, sizes[j]));
            }
            j += 1;
        }
        let (stride, _) = tri!(compact_strides(shape, true, start));
        return Ok(stride);
    }
    let mut t = IntTuple::empty();
    let mut i = 0;
    while i < order.rank() {
        t = tri!(t.push(tri!(ordered_strides(shape.at(i), order.at(i), orders, sizes, count))));
        i += 1;
    }
    Ok(t)
}

/// CuTe's `make_ordered_layout(shape, order)`: a compact layout whose modes are laid out in the
/// order given (`order` weakly congruent with `shape`; the mode of order 0 has the smallest stride).
///
/// # Errors
/// [`LayoutError::RankMismatch`] when `order` is not weakly congruent with `shape`;
/// [`LayoutError::InvalidArgument`] when two order values are equal.
///
/// # Example
/// ```
/// use cute_rs_layout::{make_ordered_layout, IntTuple};
/// let s = IntTuple::parse("(4,(1,2),(3,2),4)").unwrap();
/// let o = IntTuple::parse("(1,(5,4),(0,3),2)").unwrap();
/// assert_eq!(make_ordered_layout(s, o).unwrap().to_string(), "(4,(1,2),(3,2),4):(3,(0,96),(1,48),12)");
/// ```
pub const fn make_ordered_layout(shape: IntTuple, order: IntTuple) -> Result<Layout, LayoutError> {
    let mut orders = [0i64; MAX_LEAVES];
    let mut sizes = [0i64; MAX_LEAVES];
    let mut n = 0;
    tri!(collect_orders(shape, order, &mut orders, &mut sizes, &mut n));
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n {
            if orders[i] == orders[j] {
                return Err(LayoutError::InvalidArgument {
                    op: "make_ordered_layout",
                    condition: "order values must be distinct",
                    value: orders[i],
                });
            }
            j += 1;
        }
        i += 1;
    }
    let stride = tri!(ordered_strides(shape, order, &orders, &sizes, n));
    Layout::new(shape, stride)
}

/// CuTe's `make_layout_like(layout)`: a compact layout of the same shape whose modes are ordered
/// like `layout`'s strides; modes of stride 0 keep stride 0 (and take no room).
///
/// # Example
/// ```
/// use cute_rs_layout::{make_layout_like, Layout};
/// let l = Layout::parse("((1,8),(4,2),6):((576,1),(48,576),8)").unwrap();
/// assert_eq!(make_layout_like(l).unwrap().to_string(), "((1,8),(4,2),6):((0,1),(48,192),8)");
/// ```
pub const fn make_layout_like(layout: Layout) -> Result<Layout, LayoutError> {
    let shape = layout.shape();
    let stride = layout.stride();
    let n = shape.num_leaves();
    // Stride-0 modes count as size 1: they get stride 0 and add nothing to the others.
    let mut filtered = [0i64; MAX_LEAVES];
    let mut orders = [0i64; MAX_LEAVES];
    let mut i = 0;
    while i < n {
        filtered[i] = if stride.leaf(i) == 0 { 1 } else { shape.leaf(i) };
        orders[i] = stride.leaf(i);
        i += 1;
    }
    // Equal strides take the same start (CuTe sums only strictly smaller orders).
    let mut out = [0i64; MAX_LEAVES];
    i = 0;
    while i < n {
        if filtered[i] == 1 {
            out[i] = 0;
        } else {
            let mut start: i64 = 1;
            let mut j = 0;
            while j < n {
                if orders[j] < orders[i] {
                    start = tri!(arith::mul("make_layout_like", start, filtered[j]));
                }
                j += 1;
            }
            out[i] = start;
        }
        i += 1;
    }
    Layout::new(shape, stride.with_leaves(&out))
}

/// CuTe's `append(layout, x)`: `x` becomes a new last mode (an integer layout becomes `(layout, x)`).
///
/// # Example
/// ```
/// use cute_rs_layout::{append, Layout};
/// let a = Layout::parse("(4,2):(1,4)").unwrap();
/// assert_eq!(append(a, Layout::parse("3:8").unwrap()).unwrap().to_string(), "(4,2,3):(1,4,8)");
/// ```
pub const fn append(layout: Layout, x: Layout) -> Result<Layout, LayoutError> {
    let shape = tri!(layout.shape.append(x.shape));
    let stride = tri!(layout.stride.append(x.stride));
    Layout::new(shape, stride)
}

/// CuTe's `append<N>(layout)`: pads with `1:0` modes up to rank `n`. A layout of rank `n` or more
/// is returned as it is (an integer layout has rank 1).
///
/// # Example
/// ```
/// use cute_rs_layout::{append_to_rank, Layout};
/// let a = Layout::parse("2:1").unwrap();
/// assert_eq!(append_to_rank(a, 3).unwrap().to_string(), "(2,1,1):(1,0,0)");
/// assert_eq!(append_to_rank(a, 1).unwrap().to_string(), "2:1");
/// ```
pub const fn append_to_rank(layout: Layout, n: usize) -> Result<Layout, LayoutError> {
    if layout.rank() >= n {
        return Ok(layout);
    }
    let mut l = if layout.is_int() { tri!(layout.wrap()) } else { layout };
    while l.rank() < n {
        l = tri!(l.push(Layout::trivial()));
    }
    Ok(l)
}

/// CuTe's `prepend(layout, x)`: `x` becomes the new first mode.
///
/// # Example
/// ```
/// use cute_rs_layout::{prepend, Layout};
/// let a = Layout::parse("(4,2):(1,4)").unwrap();
/// assert_eq!(prepend(a, Layout::parse("3:8").unwrap()).unwrap().to_string(), "(3,4,2):(8,1,4)");
/// ```
pub const fn prepend(layout: Layout, x: Layout) -> Result<Layout, LayoutError> {
    let shape = tri!(layout.shape.prepend(x.shape));
    let stride = tri!(layout.stride.prepend(x.stride));
    Layout::new(shape, stride)
}

/// CuTe's `group<B, E>(layout)`: modes `begin..end` become one mode.
///
/// # Errors
/// [`LayoutError::OutOfBounds`] unless `begin < end <= rank`.
///
/// # Example
/// ```
/// use cute_rs_layout::{group, Layout};
/// let a = Layout::parse("(2,3,4,5):(1,2,6,24)").unwrap();
/// assert_eq!(group(a, 1, 3).unwrap().to_string(), "(2,(3,4),5):(1,(2,6),24)");
/// ```
pub const fn group(layout: Layout, begin: usize, end: usize) -> Result<Layout, LayoutError> {
    let r = layout.rank();
    if end > r || begin >= end {
        return Err(LayoutError::OutOfBounds { op: "group", value: end as i64, extent: r as i64 + 1 });
    }
    let mut out = Layout::empty();
    let mut i = 0;
    while i < begin {
        out = tri!(out.push(layout.at(i)));
        i += 1;
    }
    let mut g = Layout::empty();
    while i < end {
        g = tri!(g.push(layout.at(i)));
        i += 1;
    }
    out = tri!(out.push(g));
    while i < r {
        out = tri!(out.push(layout.at(i)));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `select<I...>(layout)`: the modes at `indices`, in that order.
///
/// # Errors
/// [`LayoutError::OutOfBounds`] for an index past the rank.
///
/// # Example
/// ```
/// use cute_rs_layout::{select, Layout};
/// let a = Layout::parse("(2,3,4):(1,2,6)").unwrap();
/// assert_eq!(select(a, &[2, 0]).unwrap().to_string(), "(4,2):(6,1)");
/// ```
pub const fn select(layout: Layout, indices: &[usize]) -> Result<Layout, LayoutError> {
    let mut out = Layout::empty();
    let mut i = 0;
    while i < indices.len() {
        out = tri!(out.push(tri!(layout.mode(indices[i]))));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `flatten(layout)`: one mode per leaf; an integer layout stays itself.
///
/// # Example
/// ```
/// use cute_rs_layout::{flatten, Layout};
/// let a = Layout::parse("((2,3),(4,5)):((1,2),(6,24))").unwrap();
/// assert_eq!(flatten(a).to_string(), "(2,3,4,5):(1,2,6,24)");
/// ```
pub const fn flatten(layout: Layout) -> Layout {
    Layout { shape: layout.shape.flatten(), stride: layout.stride.flatten() }
}

/// The two modes of a rank-2 layout swapped (a matrix layout transposed): `select<1,0>`.
///
/// # Errors
/// [`LayoutError::RankMismatch`] unless the rank is 2.
///
/// # Example
/// ```
/// use cute_rs_layout::{transpose, Layout};
/// let a = Layout::parse("(4,8):(1,4)").unwrap();
/// assert_eq!(transpose(a).unwrap().to_string(), "(8,4):(4,1)");
/// ```
pub const fn transpose(layout: Layout) -> Result<Layout, LayoutError> {
    if layout.is_int() || layout.rank() != 2 {
        return Err(LayoutError::RankMismatch { op: "transpose", expected: 2, found: layout.rank() });
    }
    select(layout, &[1, 0])
}
