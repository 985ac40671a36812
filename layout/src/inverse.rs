//! `right_inverse`, `left_inverse` and `nullspace`.

use crate::coalesce::{coalesce, flat_layout, leaves_of};
use crate::complement::stride_order;
use crate::error::LayoutError;
use crate::int_tuple::MAX_LEAVES;
use crate::layout::Layout;

/// Compact column-major strides of flat leaves `s[..n]` (a size-1 leaf gets 0, as in CuTe).
const fn compact_flat(s: &[i64; MAX_LEAVES], n: usize) -> [i64; MAX_LEAVES] {
    let mut out = [0i64; MAX_LEAVES];
    let mut cur: i64 = 1;
    let mut i = 0;
    while i < n {
        out[i] = if s[i] == 1 { 0 } else { cur };
        // Bounded by the size of a valid layout: cannot overflow.
        cur *= s[i];
        i += 1;
    }
    out
}

/// CuTe's `right_inverse(A)`: a layout `R` with `A(R(i)) == i` for every `i < size(R)`, built from
/// A's own modes as CuTe builds it.
///
/// A is coalesced and its modes sorted by stride (CuTe's exchange sort: among equal strides, the
/// order that sort leaves). Starting at index 1, each mode whose stride equals the current index is
/// taken (its position in A's coordinate space as stride) and the index becomes its extent
/// `shape * stride`. The chain cannot be extended: no mode of A of shape above 1 has as stride the
/// index `size(R)` where it stops. Nothing found gives `1:0`. Only positive strides are followed:
/// CuTe's older headers also followed negative ones, which breaks `A(R(i)) == i` when A has several
/// modes.
///
/// Where several modes share the stride the chain has reached, CuTe's sort picks one and the chain
/// follows it: the result is then one of several maximal chains, not always the longest, e.g.
/// `(2,(3,2),(3,8)):(1,(1,0),(8,1)) => 3:2` (the mode `3:1`), as CuTe returns it.
///
/// `@post A(R(i)) == i` for `i < size(R)`; no mode of coalesced A of shape above 1 has stride
/// `size(R)`.
///
/// `right_inverse((3,(2,3)):(3,(12,1))) => (3,3):(6,1)`, `right_inverse((2,4):(12,1)) => 4:2`
///
/// # Example
/// ```
/// use cute_rs_layout::{right_inverse, Layout};
/// let a = Layout::parse("(3,(2,3)):(3,(12,1))").unwrap();
/// let r = right_inverse(a);
/// assert_eq!(r.to_string(), "(3,3):(6,1)");
/// for i in 0..r.size() { assert_eq!(a.call(r.call(i)), i); }
/// let a = Layout::parse("(2,(3,2),(3,8)):(1,(1,0),(8,1))").unwrap();
/// assert_eq!(right_inverse(a).to_string(), "3:2");
/// ```
pub const fn right_inverse(a: Layout) -> Layout {
    let flat = coalesce(a);
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let n = leaves_of(flat, &mut s, &mut d);
    let rstride = compact_flat(&s, n);
    let order = exchange_order(&d, n);
    let mut out_s = [0i64; MAX_LEAVES];
    let mut out_d = [0i64; MAX_LEAVES];
    let mut k = 0;
    let mut next: i64 = 1;
    let mut j = 0;
    while j < n {
        let i = order[j];
        if s[i] != 1 && d[i] == next {
            out_s[k] = s[i];
            out_d[k] = rstride[i];
            k += 1;
            next = match s[i].checked_mul(d[i]) {
                Some(v) => v,
                // No stride can equal an index past i64: the chain ends here.
                None => break,
            };
        }
        j += 1;
    }
    match flat_layout(&out_s, &out_d, k) {
        Ok(l) => l,
        // A sub-list of a valid layout's modes with compact strides: always valid.
        Err(e) => e.panic(),
    }
}

/// The indices of the first `n` strides in the order CuTe's `SortByKey` leaves them: an exchange
/// sort (for each position, every later smaller key is swapped in), which is not stable. Among
/// equal strides the order decides which mode `right_inverse` follows, so it is CuTe's, not a
/// stable sort.
const fn exchange_order(d: &[i64; MAX_LEAVES], n: usize) -> [usize; MAX_LEAVES] {
    let mut key = *d;
    let mut order = [0usize; MAX_LEAVES];
    let mut i = 0;
    while i < n {
        order[i] = i;
        i += 1;
    }
    i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n {
            if key[j] < key[i] {
                (key[i], key[j]) = (key[j], key[i]);
                (order[i], order[j]) = (order[j], order[i]);
            }
            j += 1;
        }
        i += 1;
    }
    order
}

/// CuTe's `left_inverse(A)`: a layout `L` with `L(A(i)) == i` for every `i < size(A)`.
///
/// A is coalesced and its modes sorted by stride `d_0 < d_1 < ...`. Mode `k` of L has shape
/// `d_{k+1} / d_k` (the last one: its own shape) and, as stride, the position of that mode in A's
/// coordinate space (the prefix product of A's coalesced shapes); when `d_0 > 1` a first mode
/// `d_0:0` skips the indices A never reaches below `d_0`.
///
/// `@pre` A is injective: no mode of stride 0 (and size above 1), no mode reaching into the next
/// one (`s_k * d_k <= d_{k+1}`); stride divisibility: `d_k` divides `d_{k+1}`; strides non-negative.
/// `@post L(A(i)) == i` for `i < size(A)`.
///
/// `left_inverse((3,(2,3)):(3,(12,1))) => (3,4,2):(6,1,3)`, `left_inverse((6,2):(12,2)) => (2,6,6):(0,6,1)`
///
/// # Errors
/// [`LayoutError::NotInjective`], [`LayoutError::StrideDivisibility`], [`LayoutError::InvalidArgument`].
///
/// # Example
/// ```
/// use cute_rs_layout::{left_inverse, Layout};
/// let a = Layout::parse("(3,(2,3)):(3,(12,1))").unwrap();
/// let l = left_inverse(a).unwrap();
/// assert_eq!(l.to_string(), "(3,4,2):(6,1,3)");
/// for i in 0..a.size() { assert_eq!(l.call(a.call(i)), i); }
/// assert!(left_inverse(Layout::parse("(2,4):(0,1)").unwrap()).is_err());
/// assert!(left_inverse(Layout::parse("(2,4):(1,1)").unwrap()).is_err());
/// ```
pub const fn left_inverse(a: Layout) -> Result<Layout, LayoutError> {
    const OP: &str = "left_inverse";
    let flat = coalesce(a);
    if flat.size() == 1 {
        return Ok(Layout::trivial());
    }
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let n = leaves_of(flat, &mut s, &mut d);
    let position = compact_flat(&s, n);
    let order = stride_order(&d, n);
    let first = order[0];
    if d[first] < 0 {
        return Err(LayoutError::InvalidArgument { op: OP, condition: "strides must be non-negative", value: d[first] });
    }
    if d[first] == 0 {
        return Err(LayoutError::NotInjective { op: OP, mode: (s[first], 0), covered: 1 });
    }
    let mut out_s = [0i64; MAX_LEAVES];
    let mut out_d = [0i64; MAX_LEAVES];
    let mut m = 0;
    if d[first] > 1 {
        out_s[0] = d[first];
        out_d[0] = 0;
        m = 1;
    }
    let mut k = 0;
    while k < n {
        let cur = order[k];
        if k + 1 < n {
            let next = order[k + 1];
            let reach = match s[cur].checked_mul(d[cur]) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { op: OP }),
            };
            if d[next] < reach {
                return Err(LayoutError::NotInjective { op: OP, mode: (s[next], d[next]), covered: reach });
            }
            if d[next] % d[cur] != 0 {
                return Err(LayoutError::StrideDivisibility {
                    op: OP,
                    stride: d[next],
                    shape: d[cur],
                    mode: (s[next], d[next]),
                });
            }
            out_s[m] = d[next] / d[cur];
        } else {
            out_s[m] = s[cur];
        }
        out_d[m] = position[cur];
        m += 1;
        k += 1;
    }
    flat_layout(&out_s, &out_d, m)
}

/// CuTe's `nullspace(A)`: the layout of the coordinates A maps to 0 through its stride-0 modes:
/// the stride-0 leaves of `flatten(A)`, with the strides of the compact column-major layout of A's
/// flattened shape (so `A(N(i)) == 0`). Nothing found gives `1:0`.
///
/// `@post A(N(i)) == 0` for `i < size(N)`.
///
/// `nullspace((4,4):(0,2)) => 4:1`, `nullspace(4:2) => 1:0`
///
/// # Example
/// ```
/// use cute_rs_layout::{nullspace, Layout};
/// let a = Layout::parse("(4,(2,3)):(0,(1,0))").unwrap();
/// let n = nullspace(a);
/// assert_eq!(n.to_string(), "(4,3):(1,8)");
/// for i in 0..n.size() { assert_eq!(a.call(n.call(i)), 0); }
/// ```
pub const fn nullspace(a: Layout) -> Layout {
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let n = leaves_of(a, &mut s, &mut d);
    let rstride = compact_flat(&s, n);
    let mut out_s = [0i64; MAX_LEAVES];
    let mut out_d = [0i64; MAX_LEAVES];
    let mut k = 0;
    let mut i = 0;
    while i < n {
        if d[i] == 0 {
            out_s[k] = s[i];
            out_d[k] = rstride[i];
            k += 1;
        }
        i += 1;
    }
    match flat_layout(&out_s, &out_d, k) {
        Ok(l) => l,
        // A sub-list of a valid layout's modes with compact strides: always valid.
        Err(e) => e.panic(),
    }
}
