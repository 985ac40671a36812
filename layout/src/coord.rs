//! Coordinates and indices: `crd2idx` (1-D, R-D and natural coordinates) and `idx2crd`.
//!
//! A coordinate of a shape may be an integer (1-D, colexicographic over the whole shape), or a tuple
//! whose modes are again coordinates of the shape's modes: `(1,5)` and `(1,(1,2))` are both
//! coordinates of `(3,(2,3))`. Checked here: each coordinate lies inside its (sub-)shape.

use crate::arith;
use crate::error::{tri, LayoutError};
use crate::int_tuple::{IntTuple, MAX_LEAVES};
use crate::layout::Layout;

/// CuTe's `crd2idx(coord, shape, stride)`: the index of a coordinate.
///
/// # Errors
/// [`LayoutError::OutOfBounds`] when a coordinate value is negative or not below its (sub-)shape's
/// size; [`LayoutError::RankMismatch`] when a tuple coordinate's rank differs from the mode's.
///
/// # Example
/// ```
/// use cute_rs_layout::{crd2idx, IntTuple, Layout};
/// let l = Layout::parse("(3,(2,3)):(3,(12,1))").unwrap();
/// for c in ["16", "(1,5)", "(1,(1,2))"] {
///     assert_eq!(crd2idx(IntTuple::parse(c).unwrap(), l).unwrap(), 17);
/// }
/// assert!(crd2idx(IntTuple::int(18), l).is_err());
/// ```
pub const fn crd2idx(coord: IntTuple, layout: Layout) -> Result<i64, LayoutError> {
    if coord.is_int() {
        let c = coord.leaf(0);
        let n = layout.size();
        if c < 0 || c >= n {
            return Err(LayoutError::OutOfBounds { op: "crd2idx", value: c, extent: n });
        }
        return Ok(layout.call(c));
    }
    if layout.is_int() || coord.rank() != layout.rank() {
        return Err(LayoutError::RankMismatch { op: "crd2idx", expected: layout.rank(), found: coord.rank() });
    }
    let mut sum: i64 = 0;
    let mut i = 0;
    while i < coord.rank() {
        let part = tri!(crd2idx(coord.at(i), layout.at(i)));
        sum = tri!(arith::add("crd2idx", sum, part));
        i += 1;
    }
    Ok(sum)
}

/// CuTe's `idx2crd(idx, shape)`: the natural (fully nested) coordinate of a 1-D index,
/// colexicographic: the first mode varies fastest.
///
/// # Errors
/// [`LayoutError::OutOfBounds`] unless `0 <= idx < size(shape)`.
///
/// # Example
/// ```
/// use cute_rs_layout::{idx2crd, IntTuple};
/// let s = IntTuple::parse("(3,(2,3))").unwrap();
/// assert_eq!(idx2crd(16, s).unwrap().to_string(), "(1,(1,2))");
/// assert!(idx2crd(18, s).is_err());
/// ```
pub const fn idx2crd(idx: i64, shape: IntTuple) -> Result<IntTuple, LayoutError> {
    let size = tri!(shape.product());
    if idx < 0 || idx >= size {
        return Err(LayoutError::OutOfBounds { op: "idx2crd", value: idx, extent: size });
    }
    let n = shape.num_leaves();
    let mut vals = [0i64; MAX_LEAVES];
    let mut c = idx;
    let mut i = 0;
    while i < n {
        let s = shape.leaf(i);
        if s < 1 {
            return Err(LayoutError::NonPositiveShape { op: "idx2crd", value: s });
        }
        vals[i] = c % s;
        c /= s;
        i += 1;
    }
    Ok(shape.with_leaves(&vals))
}
