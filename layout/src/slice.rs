//! Slicing with free modes (CuTe's `_`): the sub-layout of the free modes and the offset of the
//! fixed ones.

use crate::arith;
use crate::coord::crd2idx;
use crate::error::{tri, LayoutError};
use crate::int_tuple::{IntTuple, UNDERSCORE};
use crate::layout::Layout;

/// Walks `coord` against `layout`: free modes are pushed onto `kept`, fixed ones add to `offset`.
const fn walk(coord: IntTuple, layout: Layout, kept: Layout, offset: i64) -> Result<(Layout, i64), LayoutError> {
    if coord.is_int() && coord.leaf(0) == UNDERSCORE {
        return Ok((tri!(kept.push(layout)), offset));
    }
    if !coord.has_underscore() {
        let at = tri!(crd2idx(coord, layout));
        return Ok((kept, tri!(arith::add("slice", offset, at))));
    }
    if layout.is_int() || coord.rank() != layout.rank() {
        return Err(LayoutError::RankMismatch { op: "slice", expected: layout.rank(), found: coord.rank() });
    }
    let mut k = kept;
    let mut off = offset;
    let mut i = 0;
    while i < coord.rank() {
        let (k2, o2) = tri!(walk(coord.at(i), layout.at(i), k, off));
        k = k2;
        off = o2;
        i += 1;
    }
    Ok((k, off))
}

/// CuTe's `slice_and_offset(coord, layout)`: for a coordinate with free modes `_`, the layout of the
/// free modes (in order, flattened one level as CuTe does; a single one is unwrapped) and the
/// offset the fixed coordinates select, so that `layout(c) == offset + sub(c')`.
/// With no free mode the sub-layout is `1:0`.
///
/// # Errors
/// [`LayoutError::RankMismatch`] when a tuple coordinate does not match the layout's modes;
/// [`LayoutError::OutOfBounds`] for a fixed coordinate outside its mode.
///
/// # Example
/// ```
/// use cute_rs_layout::{slice_and_offset, IntTuple, Layout};
/// let a = Layout::parse("((2,3),(4,5)):((1,2),(6,24))").unwrap();
/// let (sub, off) = slice_and_offset(IntTuple::parse("((1,_),_)").unwrap(), a).unwrap();
/// assert_eq!(sub.to_string(), "(3,(4,5)):(2,(6,24))");
/// assert_eq!(off, 1);
/// let (row, off) = slice_and_offset(IntTuple::parse("(_,3)").unwrap(), a).unwrap();
/// assert_eq!((row.to_string().as_str(), off), ("(2,3):(1,2)", 18));
/// ```
pub const fn slice_and_offset(coord: IntTuple, layout: Layout) -> Result<(Layout, i64), LayoutError> {
    let (kept, offset) = tri!(walk(coord, layout, Layout::empty(), 0));
    let sub = match kept.rank() {
        0 => Layout::trivial(),
        1 => kept.at(0),
        _ => kept,
    };
    Ok((sub, offset))
}

/// CuTe's `slice(coord, layout)` (`layout(_, 2)`): the sub-layout of the free modes.
///
/// # Errors
/// The errors of [`slice_and_offset`].
///
/// # Example
/// ```
/// use cute_rs_layout::{slice, IntTuple, Layout};
/// let a = Layout::parse("(4,8):(1,4)").unwrap();
/// assert_eq!(slice(IntTuple::parse("(2,_)").unwrap(), a).unwrap().to_string(), "8:4");
/// ```
pub const fn slice(coord: IntTuple, layout: Layout) -> Result<Layout, LayoutError> {
    match slice_and_offset(coord, layout) {
        Ok((l, _)) => Ok(l),
        Err(e) => Err(e),
    }
}
