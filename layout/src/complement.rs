//! `complement(A, M)`: the layout that fills the gaps of A's image up to the cotarget `M`.

use crate::arith;
use crate::coalesce::{coalesce, filter, flat_layout, leaves_of};
use crate::error::{tri, LayoutError};
use crate::int_tuple::{IntTuple, MAX_LEAVES};
use crate::layout::{make_layout_col_major, Layout};

const OP: &str = "complement";

/// CuTe's `complement(A, M)`: a layout `R`, ordered (strides increasing) and disjoint from A
/// (`R(i) != A(j)` except `R(0) == A(0) == 0`), such that `(A, R)` covers `[0, M)` when A tiles it.
///
/// A is first filtered (stride-0 and size-1 modes dropped) and its modes sorted by stride; each gap
/// between the extent covered so far and the next stride becomes a mode of R, and a last mode of
/// `ceil(M / cosize)` repeats the whole. The result is coalesced.
///
/// `@pre` injectivity: no mode starts inside the extent of the smaller ones (strides do not
/// overlap); stride divisibility: each stride is a multiple of the extent covered below it;
/// `M >= 1`.
/// `@post` R is ordered and disjoint from A; `size(filter(A)) * size(R) >= M`; `(filter(A), R)` is a
/// bijection onto `[0, k * span)` with `span = max(s * d)` over A's modes and `k = ceil(M / span)`.
///
/// `complement(4:1, 24) => 6:4`, `complement(6:4, 24) => 4:1`, `complement((4,6):(1,4), 24) => 1:0`
///
/// # Errors
/// [`LayoutError::NotInjective`], [`LayoutError::StrideDivisibility`],
/// [`LayoutError::NonPositiveShape`] for `M < 1`, [`LayoutError::InvalidArgument`] for a negative stride.
///
/// # Example
/// ```
/// use cute_rs_layout::{complement, Layout};
/// let a = Layout::parse("(2,2):(1,6)").unwrap();
/// assert_eq!(complement(a, 24).unwrap().to_string(), "(3,2):(2,12)");
/// assert!(complement(Layout::parse("(2,2):(1,1)").unwrap(), 4).is_err());
/// ```
pub const fn complement(a: Layout, cotarget: i64) -> Result<Layout, LayoutError> {
    if cotarget < 1 {
        return Err(LayoutError::NonPositiveShape { op: OP, value: cotarget });
    }
    let f = filter(a);
    if f.is_int() && f.stride().leaf(0) == 0 {
        return make_layout_col_major(IntTuple::int(cotarget));
    }
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let n = leaves_of(f, &mut s, &mut d);
    let order = stride_order(&d, n);
    let mut rs = [0i64; MAX_LEAVES];
    let mut rd = [0i64; MAX_LEAVES];
    let mut current: i64 = 1;
    let mut k = 0;
    while k < n {
        let (ms, md) = (s[order[k]], d[order[k]]);
        if md < 0 {
            return Err(LayoutError::InvalidArgument {
                op: OP,
                condition: "strides must be non-negative",
                value: md,
            });
        }
        if md < current {
            return Err(LayoutError::NotInjective { op: OP, mode: (ms, md), covered: current });
        }
        if md % current != 0 {
            return Err(LayoutError::StrideDivisibility { op: OP, stride: md, shape: current, mode: (ms, md) });
        }
        rs[k] = md / current;
        rd[k] = current;
        current = tri!(arith::mul(OP, ms, md));
        k += 1;
    }
    rs[k] = arith::ceil_div(cotarget, current);
    rd[k] = current;
    k += 1;
    Ok(coalesce(tri!(flat_layout(&rs, &rd, k))))
}

/// The indices of the first `n` strides in increasing order of stride (equal ones keep their order,
/// as CuTe's `find` of the minimum takes the first). A selection sort: `n` is small.
pub(crate) const fn stride_order(d: &[i64; MAX_LEAVES], n: usize) -> [usize; MAX_LEAVES] {
    let mut order = [0usize; MAX_LEAVES];
    let mut used = [false; MAX_LEAVES];
    let mut k = 0;
    while k < n {
        let mut best = n;
        let mut i = 0;
        while i < n {
            if !used[i] && (best == n || d[i] < d[best]) {
                best = i;
            }
            i += 1;
        }
        used[best] = true;
        order[k] = best;
        k += 1;
    }
    order
}

/// `complement(A, cosize(A))`: CuTe's one-argument `complement`.
///
/// # Example
/// ```
/// use cute_rs_layout::{complement_cosize, Layout};
/// let a = Layout::parse("(2,2):(1,6)").unwrap();
/// assert_eq!(complement_cosize(a).unwrap().to_string(), "3:2");
/// ```
pub const fn complement_cosize(a: Layout) -> Result<Layout, LayoutError> {
    complement(a, a.cosize())
}
