//! `upcast` and `downcast`: the same layout seen in elements `N` times larger or smaller
//! (e.g. a layout of `u8` offsets read as `u32`, or the reverse).

use crate::arith;
use crate::error::{tri, LayoutError};
use crate::int_tuple::MAX_LEAVES;
use crate::layout::Layout;

const fn check_factor(op: &'static str, n: i64) -> Result<(), LayoutError> {
    if n < 1 {
        return Err(LayoutError::InvalidArgument { op, condition: "the factor must be at least 1", value: n });
    }
    Ok(())
}

/// CuTe's `upcast<N>(layout)`: the layout in units of `N` elements. Each leaf `s:d` (same nesting):
/// stride 0 stays; otherwise the shape is divided by `N / |d|` (when `|d| < N`: those elements now
/// share one unit) and the stride by `N` (`shape_div`, rounding `|d| < N` up to 1).
///
/// `@pre` stride divisibility: `|d|` and `N` divide one another; shape divisibility: `s` and
/// `N / |d|` divide one another.
///
/// `upcast<4>(((4,2),16):((1,4),8)) => ((1,2),16):((1,1),2)`
///
/// # Errors
/// [`LayoutError::StrideDivisibility`], [`LayoutError::ShapeDivisibility`], [`LayoutError::InvalidArgument`] for `N < 1`.
///
/// # Example
/// ```
/// use cute_rs_layout::{upcast, Layout};
/// let l = Layout::parse("((4,2),16):((1,4),8)").unwrap();
/// assert_eq!(upcast(l, 4).unwrap().to_string(), "((1,2),16):((1,1),2)");
/// assert!(upcast(Layout::parse("4:3").unwrap(), 2).is_err());
/// ```
pub const fn upcast(layout: Layout, n: i64) -> Result<Layout, LayoutError> {
    const OP: &str = "upcast";
    tri!(check_factor(OP, n));
    let shape = layout.shape();
    let stride = layout.stride();
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let mut i = 0;
    while i < shape.num_leaves() {
        let (si, di) = (shape.leaf(i), stride.leaf(i));
        if di == 0 {
            s[i] = si;
            d[i] = 0;
        } else {
            let ad = tri!(arith::abs(OP, di));
            if !arith::divides_either(ad, n) {
                return Err(LayoutError::StrideDivisibility { op: OP, stride: ad, shape: n, mode: (si, di) });
            }
            let per_unit = arith::shape_div(n, ad);
            if !arith::divides_either(si, per_unit) {
                return Err(LayoutError::ShapeDivisibility { op: OP, divisor: per_unit, dividend: si });
            }
            s[i] = arith::shape_div(si, per_unit);
            d[i] = arith::shape_div(di, n);
        }
        i += 1;
    }
    Layout::new(shape.with_leaves(&s), stride.with_leaves(&d))
}

/// CuTe's `downcast<N>(layout)`: the layout in units `N` times smaller. Each leaf of stride ±1 gets
/// `N` times the shape (its elements split into `N` contiguous parts); every other stride is
/// multiplied by `N`.
///
/// `@post upcast(downcast(L, N), N) == L` for layouts whose non-unit strides are nonzero.
///
/// `downcast<16>((2,3):(3,1)) => (2,48):(48,1)`
///
/// # Errors
/// [`LayoutError::Overflow`], [`LayoutError::InvalidArgument`] for `N < 1`.
///
/// # Example
/// ```
/// use cute_rs_layout::{downcast, Layout};
/// let l = Layout::parse("(2,3):(3,1)").unwrap();
/// assert_eq!(downcast(l, 16).unwrap().to_string(), "(2,48):(48,1)");
/// ```
pub const fn downcast(layout: Layout, n: i64) -> Result<Layout, LayoutError> {
    const OP: &str = "downcast";
    tri!(check_factor(OP, n));
    let shape = layout.shape();
    let stride = layout.stride();
    let mut s = [0i64; MAX_LEAVES];
    let mut d = [0i64; MAX_LEAVES];
    let mut i = 0;
    while i < shape.num_leaves() {
        let (si, di) = (shape.leaf(i), stride.leaf(i));
        if di == 1 || di == -1 {
            s[i] = tri!(arith::mul(OP, si, n));
            d[i] = di;
        } else {
            s[i] = si;
            d[i] = tri!(arith::mul(OP, di, n));
        }
        i += 1;
    }
    Layout::new(shape.with_leaves(&s), stride.with_leaves(&d))
}
