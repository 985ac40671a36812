//! `coalesce` (whole and by profile), `filter_zeros` and `filter`.

use crate::error::{tri, LayoutError};
use crate::int_tuple::{IntTuple, MAX_LEAVES};
use crate::layout::Layout;

/// CuTe's `coalesce(layout)`: the layout with the fewest modes that is the same function on
/// `[0, size)`. Leaves of shape 1 are dropped and neighbours `s0:d0, s1:d1` with `s0 * d0 == d1`
/// merge into `(s0*s1):d0`. The result is flat: an integer layout if one mode is left, `1:0` if none.
///
/// `@post size(result) == size(layout)`, `result(i) == layout(i)` for all `i < size`.
///
/// `(2,(1,6)):(1,(6,2)) => 12:1`
///
/// # Example
/// ```
/// use cute_rs_layout::{coalesce, Layout};
/// let l = Layout::parse("(2,(1,6)):(1,(6,2))").unwrap();
/// assert_eq!(coalesce(l).to_string(), "12:1");
/// let l = Layout::parse("(3,(2,3)):(3,(12,1))").unwrap();
/// assert_eq!(coalesce(l).to_string(), "(3,2,3):(3,12,1)");
/// ```
pub const fn coalesce(layout: Layout) -> Layout {
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let n = coalesce_leaves(layout, false, &mut s, &mut d);
    match flat_layout(&s, &d, n) {
        Ok(l) => l,
        // Fewer leaves than the input and the same size and extent: it always fits.
        Err(e) => e.panic(),
    }
}

/// The coalesced leaves of `layout`, written to `s`, `d`; returns their count.
///
/// With `keep_last` the leaves are the same function on *all* non-negative integers, not only on
/// `[0, size)` (CuTe's `coalesce_x`, used by composition): the last leaf is kept even when its shape
/// is 1, since its stride is what indices past the size extend with.
pub(crate) const fn coalesce_leaves(
    layout: Layout,
    keep_last: bool,
    s: &mut [i64; MAX_LEAVES],
    d: &mut [i64; MAX_LEAVES],
) -> usize {
    let shape = layout.shape();
    let stride = layout.stride();
    if shape.num_leaves() == 0 {
        return 0;
    }
    let last = shape.num_leaves() - 1;
    let mut n = 0;
    let mut i = 0;
    while i <= last {
        let si = shape.leaf(i);
        let di = stride.leaf(i);
        if si != 1 || (keep_last && i == last) {
            // An extent past i64 cannot equal a stride: no merge.
            if n > 0 && matches!(s[n - 1].checked_mul(d[n - 1]), Some(e) if e == di) {
                s[n - 1] *= si;
            } else {
                s[n] = si;
                d[n] = di;
                n += 1;
            }
        }
        i += 1;
    }
    n
}

/// The flat layout of the first `n` entries of `s`, `d`: `1:0` for none, an integer layout for one.
pub(crate) const fn flat_layout(s: &[i64; MAX_LEAVES], d: &[i64; MAX_LEAVES], n: usize) -> Result<Layout, LayoutError> {
    if n == 0 {
        return Ok(Layout::trivial());
    }
    if n == 1 {
        return Layout::int(s[0], d[0]);
    }
    let (ss, _) = s.split_at(n);
    let (dd, _) = d.split_at(n);
    Layout::new(tri!(IntTuple::from_slice(ss)), tri!(IntTuple::from_slice(dd)))
}

/// CuTe's `coalesce(layout, profile)`: each mode of `layout` named by a terminal of `profile` is
/// coalesced on its own, keeping the profile's nesting; modes past the profile are kept as they are.
/// An integer profile coalesces the whole (sub-)layout.
///
/// # Errors
/// [`LayoutError::RankMismatch`] when the profile has more modes than the layout.
///
/// # Example
/// ```
/// use cute_rs_layout::{coalesce_by, IntTuple, Layout};
/// let l = Layout::parse("((2,4),(3,5)):((1,2),(8,24))").unwrap();
/// let p = IntTuple::parse("(1,1)").unwrap();
/// assert_eq!(coalesce_by(l, p).unwrap().to_string(), "(8,15):(1,8)");
/// ```
pub const fn coalesce_by(layout: Layout, profile: IntTuple) -> Result<Layout, LayoutError> {
    if profile.is_int() {
        return Ok(coalesce(layout));
    }
    let r = profile.rank();
    if layout.is_int() || r > layout.rank() {
        return Err(LayoutError::RankMismatch { op: "coalesce", expected: layout.rank(), found: r });
    }
    let mut out = Layout::empty();
    let mut i = 0;
    while i < layout.rank() {
        let m = layout.at(i);
        let c = if i < r { tri!(coalesce_by(m, profile.at(i))) } else { m };
        out = tri!(out.push(c));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `filter_zeros(layout)`: every mode of stride 0 gets shape 1 (same nesting).
///
/// # Example
/// ```
/// use cute_rs_layout::{filter_zeros, Layout};
/// let l = Layout::parse("(4,(2,3)):(0,(1,0))").unwrap();
/// assert_eq!(filter_zeros(l).to_string(), "(1,(2,1)):(0,(1,0))");
/// ```
pub const fn filter_zeros(layout: Layout) -> Layout {
    let shape = layout.shape();
    let stride = layout.stride();
    let mut s = [0i64; MAX_LEAVES];
    let mut i = 0;
    while i < shape.num_leaves() {
        s[i] = if stride.leaf(i) == 0 { 1 } else { shape.leaf(i) };
        i += 1;
    }
    match Layout::new(shape.with_leaves(&s), stride) {
        Ok(l) => l,
        // Smaller shapes than a valid layout's: always valid.
        Err(e) => e.panic(),
    }
}

/// CuTe's `filter(layout)`: `coalesce(filter_zeros(layout))`, the layout with the same image and
/// no stride-0 or size-1 modes.
///
/// `(2,(1,6)):(1,(6,2)) => 12:1`, `((3,4),(4,3)):((1,3),(3,1))` keeps every mode.
///
/// # Example
/// ```
/// use cute_rs_layout::{filter, Layout};
/// let l = Layout::parse("(4,(3,6)):(1,(4,0))").unwrap();
/// assert_eq!(filter(l).to_string(), "12:1");
/// ```
pub const fn filter(layout: Layout) -> Layout {
    coalesce(filter_zeros(layout))
}

/// The modes of a layout in `(shape, stride)` leaf arrays (helper of the modes-as-lists algorithms).
pub(crate) const fn leaves_of(layout: Layout, s: &mut [i64; MAX_LEAVES], d: &mut [i64; MAX_LEAVES]) -> usize {
    let n = layout.shape().num_leaves();
    let mut i = 0;
    while i < n {
        s[i] = layout.shape().leaf(i);
        d[i] = layout.stride().leaf(i);
        i += 1;
    }
    n
}
