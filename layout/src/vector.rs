//! `max_common_vector` and `max_common_layout`: how many elements two layouts keep contiguous
//! together (the widest vector access both allow).

use crate::coalesce::coalesce;
use crate::composition::composition;
use crate::error::{tri, LayoutError};
use crate::inverse::right_inverse;
use crate::layout::Layout;

/// The leading mode of `coalesce(composition(a, right_inverse(b)))`, when its stride is 1.
const fn common_mode(a: Layout, b: Layout) -> Result<Option<(Layout, Layout)>, LayoutError> {
    let inv_b = right_inverse(b);
    let common = coalesce(tri!(composition(a, inv_b)));
    let first = common.at(0);
    if first.stride().leaf(0) == 1 {
        Ok(Some((inv_b, first)))
    } else {
        Ok(None)
    }
}

/// CuTe's `max_common_vector(a, b)`: the largest `n` such that the first `n` indices of `b`'s
/// codomain (`0..n` in b's order) are also contiguous, in the same order, in `a`: the vector width
/// both layouts allow. 1 when they share nothing.
///
/// `@post` for `i < n`: `a(right_inverse(b)(i)) == i`.
///
/// # Errors
/// The errors of [`composition`] (CuTe would not compile such a pair).
///
/// # Example
/// ```
/// use cute_rs_layout::{max_common_vector, Layout};
/// let a = Layout::parse("(4,8):(1,4)").unwrap();
/// let b = Layout::parse("(4,8):(1,8)").unwrap();
/// assert_eq!(max_common_vector(a, b).unwrap(), 4);
/// ```
pub const fn max_common_vector(a: Layout, b: Layout) -> Result<i64, LayoutError> {
    match tri!(common_mode(a, b)) {
        Some((_, first)) => Ok(first.shape().leaf(0)),
        None => Ok(1),
    }
}

/// CuTe's `max_common_layout(a, b)`: the layout of `b`'s coordinates that map to the same
/// contiguous indices in `a` and `b`: `composition(right_inverse(b), common)` where `common` is
/// the leading stride-1 mode of `coalesce(composition(a, right_inverse(b)))`; `1:0` if none.
///
/// # Errors
/// The errors of [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::{max_common_layout, Layout};
/// let a = Layout::parse("(4,8):(1,4)").unwrap();
/// let b = Layout::parse("(4,8):(1,8)").unwrap();
/// assert_eq!(max_common_layout(a, b).unwrap().to_string(), "4:1");
/// ```
pub const fn max_common_layout(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    match tri!(common_mode(a, b)) {
        Some((inv_b, first)) => composition(inv_b, first),
        None => Ok(Layout::trivial()),
    }
}
