//! Functional composition of layouts: `composition(A, B)(i) == A(B(i))`.

use crate::arith;
use crate::coalesce::coalesce_leaves;
use crate::error::{tri, LayoutError};
use crate::int_tuple::MAX_LEAVES;
use crate::layout::{make_layout, make_layout_unwrapped, Layout};

const OP: &str = "composition";

/// CuTe's `composition(A, B)`: the layout `R` with `R(i) == A(B(i))` for every `i < size(B)`,
/// compatible with `B` (B's nesting is kept: composition distributes over B's modes).
///
/// For each integer mode `s:d` of B, the coalesced modes of A are walked left to right: the stride
/// `d` is divided out of A's shapes, and the `s` elements are split over the modes of A they land in.
/// The last mode of A extends past its shape, as in CuTe, so B may reach past `size(A)` (A's last
/// leaf is kept through coalescing for that, even with shape 1).
///
/// `@pre` stride divisibility: at every mode `a_s:a_d` of coalesced A that is reached while elements
/// remain, the remaining stride and `a_s` divide one another (CuTe checks only a weaker condition);
/// shape divisibility: when the remaining shape is split at a mode, the part that fits divides it;
/// no overlap: the parts of B's modes that land in one mode of A (but the last) add up to less than
/// its shape, so that sums of B's modes never carry from one mode of A into the next (CuTe does not
/// check this and then returns a layout that is not `A o B`); B's strides are non-negative when
/// coalesced A has several modes.
/// `@post compatible(B, R)`, `R(i) == A(B(i))`.
///
/// `(6,2):(8,2) o (4,3):(3,1) => ((2,2),3):((24,2),8)`, `20:2 o (5,4):(4,1) => (5,4):(8,2)`
///
/// # Errors
/// [`LayoutError::StrideDivisibility`], [`LayoutError::ShapeDivisibility`], [`LayoutError::ModeOverlap`],
/// [`LayoutError::InvalidArgument`] (negative stride), [`LayoutError::Overflow`].
///
/// # Example
/// ```
/// use cute_rs_layout::{composition, Layout};
/// let a = Layout::parse("(6,2):(8,2)").unwrap();
/// let b = Layout::parse("(4,3):(3,1)").unwrap();
/// let r = composition(a, b).unwrap();
/// assert_eq!(r.to_string(), "((2,2),3):((24,2),8)");
/// for i in 0..b.size() {
///     assert_eq!(r.call(i), a.call(b.call(i)));
/// }
/// // 2 elements of stride 4 cannot be placed in a mode of shape 6.
/// assert!(composition(Layout::parse("(6,2):(1,7)").unwrap(), Layout::parse("2:4").unwrap()).is_err());
/// // B's two modes both use A's first mode of shape 2: 1 + 1 carries into A's second mode.
/// let e = composition(Layout::parse("(2,2):(1,10)").unwrap(), Layout::parse("(2,2):(1,1)").unwrap());
/// assert!(e.unwrap_err().to_string().contains("overlap"));
/// ```
pub const fn composition(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    let mut flat = FlatLhs { s: [0; MAX_LEAVES], d: [0; MAX_LEAVES], n: 0, used: [0; MAX_LEAVES] };
    flat.n = coalesce_leaves(a, true, &mut flat.s, &mut flat.d);
    if flat.n == 0 {
        // The empty layout `():()` is the constant 0, like `1:0`.
        (flat.s[0], flat.d[0], flat.n) = (1, 0, 1);
    }
    compose_modes(&mut flat, b)
}

/// A's leaves as composition walks them (coalesced, last leaf kept), and for each leaf but the
/// last, how far into it the modes of B placed so far reach (the sum of their largest digits).
struct FlatLhs {
    s: [i64; MAX_LEAVES],
    d: [i64; MAX_LEAVES],
    n: usize,
    used: [i64; MAX_LEAVES],
}

/// Composition distributes over B's modes: `A o (B0, B1) = (A o B0, A o B1)`. That is A's function
/// only while the parts of B's modes that land in one leaf of A add up without carrying into the
/// next leaf (A is linear inside a leaf, not across leaves), which `used` tracks.
const fn compose_modes(a: &mut FlatLhs, b: Layout) -> Result<Layout, LayoutError> {
    if !b.is_int() {
        let mut out = Layout::empty();
        let mut i = 0;
        while i < b.rank() {
            out = tri!(out.push(tri!(compose_modes(a, b.at(i)))));
            i += 1;
        }
        return Ok(out);
    }
    let b_shape = b.shape().leaf(0);
    let b_stride = b.stride().leaf(0);
    if b_stride == 0 {
        return Layout::int(b_shape, 0);
    }
    let n = a.n;
    if b_stride < 0 && n > 1 && b_shape > 1 {
        return Err(LayoutError::InvalidArgument {
            op: OP,
            condition: "a stride of B must be non-negative when A has several modes (B(i) < 0 lies outside A)",
            value: b_stride,
        });
    }
    let mut out_s = [0i64; MAX_LEAVES];
    let mut out_d = [0i64; MAX_LEAVES];
    let mut k = 0;
    let mut rest_shape = b_shape;
    let mut rest_stride = b_stride;
    let mut i = 0;
    while i + 1 < n {
        let curr_shape = a.s[i];
        let curr_stride = a.d[i];
        let abs_rest = tri!(arith::abs(OP, rest_stride));
        if rest_shape != 1 && !arith::divides_either(curr_shape, abs_rest) {
            return Err(LayoutError::StrideDivisibility {
                op: OP,
                stride: abs_rest,
                shape: curr_shape,
                mode: (curr_shape, curr_stride),
            });
        }
        let next_shape = arith::shape_div(curr_shape, rest_stride);
        let next_stride = arith::shape_div(rest_stride, curr_shape);
        if next_shape != 1 && rest_shape != 1 {
            let fits = arith::min(next_shape.abs(), rest_shape);
            if rest_shape % fits != 0 {
                return Err(LayoutError::ShapeDivisibility { op: OP, divisor: fits, dividend: rest_shape });
            }
            // This part's coordinates are the multiples of `rest_stride` below `fits * rest_stride`
            // in leaf i: together with the parts placed before, they must stay below its shape.
            let reach = tri!(arith::add(OP, a.used[i], tri!(arith::mul(OP, fits - 1, abs_rest))));
            if reach >= curr_shape {
                return Err(LayoutError::ModeOverlap { op: OP, mode: (curr_shape, curr_stride), reach });
            }
            a.used[i] = reach;
            out_s[k] = fits;
            out_d[k] = tri!(arith::mul(OP, rest_stride, curr_stride));
            k += 1;
            rest_shape /= fits;
        }
        rest_stride = next_stride;
        i += 1;
    }
    if k == 0 || rest_shape != 1 {
        out_s[k] = rest_shape;
        out_d[k] = tri!(arith::mul(OP, rest_stride, a.d[n - 1]));
        k += 1;
    }
    let mut modes = [Layout::trivial(); MAX_LEAVES];
    let mut j = 0;
    while j < k {
        modes[j] = tri!(Layout::int(out_s[j], out_d[j]));
        j += 1;
    }
    make_layout_unwrapped(modes.split_at(k).0)
}

/// CuTe's `composition(A, tile)` with a by-mode tiler: mode `i` of the result is
/// `composition(mode i of A, tile[i])`; modes of A past the tiler are dropped (as C++ CuTe does).
///
/// # Errors
/// [`LayoutError::RankMismatch`] when the tiler has more modes than A; the errors of [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::{composition_by_mode, Layout};
/// let a = Layout::parse("(5,2,4):(1,20,5)").unwrap();
/// let t = [Layout::parse("(1,5):(5,1)").unwrap(), Layout::parse("4:1").unwrap()];
/// assert_eq!(composition_by_mode(a, &t).unwrap().to_string(), "((1,5),4):((5,1),20)");
/// ```
pub const fn composition_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    tri!(check_tile_rank(OP, a, tile));
    let mut modes = [Layout::trivial(); MAX_LEAVES];
    let mut i = 0;
    while i < tile.len() {
        modes[i] = tri!(composition(a.at(i), tile[i]));
        i += 1;
    }
    make_layout(modes.split_at(tile.len()).0)
}

/// A by-mode tiler may not have more modes than the layout it applies to.
pub(crate) const fn check_tile_rank(op: &'static str, a: Layout, tile: &[Layout]) -> Result<(), LayoutError> {
    if tile.len() > a.rank() || tile.len() > MAX_LEAVES {
        return Err(LayoutError::RankMismatch { op, expected: a.rank(), found: tile.len() });
    }
    Ok(())
}
