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
/// leaf is kept through coalescing for that, even with shape 1). Where this walk is CuTe's, the
/// result is CuTe's.
///
/// The walk is refused exactly where its result would not be `A o B`. At a mode `a_s:a_d` of
/// coalesced A (but the last), with `r` elements of remaining stride `t` still to place:
/// * when they all land in it (`(r - 1) * |t| < a_s`), they are placed whole, whatever `t`;
/// * otherwise they cross into the next mode, which stays linear only at a multiple of `a_s`:
///   stride divisibility, `|t|` and `a_s` divide one another, and shape divisibility, `a_s / |t|`
///   divides `r` when it is smaller;
/// * no overlap: the parts of B's modes that land in one mode of A add up to less than its shape,
///   so that sums of B's modes never carry from one mode of A into the next (CuTe does not check
///   this and then returns a layout that is not `A o B`);
/// * signs: B's strides all have one sign, or all of B lands in one mode of A (A is odd,
///   `A(-x) == -A(x)`, and linear inside a mode, but a sum of both signs across modes borrows).
///
/// Where the walk is refused and `size(B) <= 2^14`, the function `A o B` is still tried as a layout
/// (each mode of B placed as above, or as `s:A(d)` where it is linear), and that layout is returned
/// when it equals `A o B` at every `i < size(B)` (checked): more valid results than CuTe, never a
/// wrong one.
///
/// `@post compatible(B, R)`, `R(i) == A(B(i))`.
///
/// `(6,2):(8,2) o (4,3):(3,1) => ((2,2),3):((24,2),8)`, `20:2 o (5,4):(4,1) => (5,4):(8,2)`,
/// `(6,2):(1,7) o 2:4 => 2:4`
///
/// # Errors
/// [`LayoutError::StrideDivisibility`], [`LayoutError::ShapeDivisibility`], [`LayoutError::ModeOverlap`],
/// [`LayoutError::InvalidArgument`] (strides of both signs), [`LayoutError::Overflow`].
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
/// // Both elements of 2:4 land in A's first mode (A(4) == 4): no divisibility is needed.
/// let a = Layout::parse("(6,2):(1,7)").unwrap();
/// assert_eq!(composition(a, Layout::parse("2:4").unwrap()).unwrap().to_string(), "2:4");
/// // 3 elements of stride 4 cross from a mode of shape 6 into the next at 8 = 6 + 2: A(8) == 9.
/// let e = composition(a, Layout::parse("3:4").unwrap()).unwrap_err();
/// assert!(e.to_string().contains("stride divisibility"));
/// // B's two modes both use A's first mode of shape 2: 1 + 1 carries into A's second mode.
/// let e = composition(Layout::parse("(2,2):(1,10)").unwrap(), Layout::parse("(2,2):(1,1)").unwrap());
/// assert!(e.unwrap_err().to_string().contains("overlap"));
/// ```
pub const fn composition(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    let mut flat = FlatLhs::of(a);
    let err = match compose_modes(&mut flat, b) {
        Ok(r) => match flat.check_signs() {
            Ok(()) => return Ok(r),
            Err(e) => e,
        },
        Err(e) => e,
    };
    match err {
        LayoutError::StrideDivisibility { .. }
        | LayoutError::ShapeDivisibility { .. }
        | LayoutError::ModeOverlap { .. }
        | LayoutError::InvalidArgument { .. }
            if b.size() <= CHECK_LIMIT =>
        {
            let base = FlatLhs::of(a);
            match compose_checked(&base, b) {
                Some(r) => Ok(r),
                None => Err(err),
            }
        }
        _ => Err(err),
    }
}

/// The largest `size(B)` for which a refused walk is retried as a checked function (every index
/// evaluated, so that `const` evaluation stays short).
const CHECK_LIMIT: i64 = 1 << 14;

/// A's leaves as composition walks them (coalesced, last leaf kept), and for each leaf but the
/// last, how far into it the modes of B placed so far reach (the sum of their largest digits), for
/// each sign of B's strides.
#[derive(Clone, Copy)]
struct FlatLhs {
    s: [i64; MAX_LEAVES],
    d: [i64; MAX_LEAVES],
    n: usize,
    used: [i64; MAX_LEAVES],
    used_negative: [i64; MAX_LEAVES],
    /// The lowest and highest leaf that a part of B (of more than one element) landed in.
    lowest: usize,
    highest: usize,
    /// A positive and a negative stride of B (0 when none), for the sign condition.
    positive: i64,
    negative: i64,
    /// Whether the walk checks its conditions; without, it is CuTe's walk as it is (a candidate that
    /// is then checked as a function).
    checked: bool,
}

impl FlatLhs {
    const fn of(a: Layout) -> FlatLhs {
        let mut flat = FlatLhs {
            s: [0; MAX_LEAVES],
            d: [0; MAX_LEAVES],
            n: 0,
            used: [0; MAX_LEAVES],
            used_negative: [0; MAX_LEAVES],
            lowest: MAX_LEAVES,
            highest: 0,
            positive: 0,
            negative: 0,
            checked: true,
        };
        flat.n = coalesce_leaves(a, true, &mut flat.s, &mut flat.d);
        if flat.n == 0 {
            // The empty layout `():()` is the constant 0, like `1:0`.
            (flat.s[0], flat.d[0], flat.n) = (1, 0, 1);
        }
        flat
    }

    /// Truncating digits make A odd (`A(-x) == -A(x)`), so B's modes of one sign compose like
    /// positive ones; a sum of both signs borrows across A's leaves, which the modes cannot follow,
    /// unless it stays in one leaf.
    const fn check_signs(&self) -> Result<(), LayoutError> {
        if self.positive != 0 && self.negative != 0 && self.lowest < self.highest {
            return Err(LayoutError::InvalidArgument {
                op: OP,
                condition: "B's strides must have one sign unless B lands in one mode of A (a sum of both signs borrows across A's modes)",
                value: self.negative,
            });
        }
        Ok(())
    }

    const fn touch(&mut self, leaf: usize) {
        if leaf < self.lowest {
            self.lowest = leaf;
        }
        if leaf > self.highest {
            self.highest = leaf;
        }
    }

    /// `A(x)`, or `None` when it does not fit in `i64`.
    const fn eval(&self, x: i64) -> Option<i64> {
        let mut c = x;
        let mut r: i64 = 0;
        let mut i = 0;
        while i + 1 < self.n {
            let term = match (c % self.s[i]).checked_mul(self.d[i]) {
                Some(v) => v,
                None => return None,
            };
            r = match r.checked_add(term) {
                Some(v) => v,
                None => return None,
            };
            c /= self.s[i];
            i += 1;
        }
        match c.checked_mul(self.d[self.n - 1]) {
            Some(v) => r.checked_add(v),
            None => None,
        }
    }
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
    compose_int(a, b.shape().leaf(0), b.stride().leaf(0))
}

/// `A o s:d` for an integer mode of B: the walk over A's leaves.
const fn compose_int(a: &mut FlatLhs, b_shape: i64, b_stride: i64) -> Result<Layout, LayoutError> {
    if b_stride == 0 {
        return Layout::int(b_shape, 0);
    }
    if b_shape > 1 {
        if b_stride > 0 {
            a.positive = b_stride;
        } else {
            a.negative = b_stride;
        }
    }
    let sign = b_stride.signum();
    let n = a.n;
    let mut out_s = [0i64; MAX_LEAVES];
    let mut out_d = [0i64; MAX_LEAVES];
    let mut k = 0;
    let mut rest_shape = b_shape;
    let mut rest_stride = tri!(arith::abs(OP, b_stride));
    let mut i = 0;
    while i + 1 < n {
        let curr_shape = a.s[i];
        let curr_stride = a.d[i];
        // Elements left to place, and how many of them land in this leaf (0 when it is skipped).
        let mut fits = 0;
        if rest_shape == 1 {
            // Nothing left: CuTe still carries the stride on (it shows in a size-1 result).
        } else if !a.checked {
            if rest_stride < curr_shape {
                fits = arith::ceil_div(curr_shape, rest_stride);
                if fits > rest_shape {
                    fits = rest_shape;
                }
            }
        } else if all_fit(rest_shape, rest_stride, curr_shape) {
            fits = rest_shape;
        } else if rest_stride < curr_shape {
            // They cross into the next leaf, at a multiple of the shape only if the stride divides it.
            if curr_shape % rest_stride != 0 {
                return Err(LayoutError::StrideDivisibility {
                    op: OP,
                    stride: rest_stride,
                    shape: curr_shape,
                    mode: (curr_shape, curr_stride),
                });
            }
            fits = curr_shape / rest_stride;
            if rest_shape % fits != 0 {
                return Err(LayoutError::ShapeDivisibility { op: OP, divisor: fits, dividend: rest_shape });
            }
        } else if rest_stride % curr_shape != 0 {
            // The leaf is stepped over: only a multiple of its shape leaves its digit at 0.
            return Err(LayoutError::StrideDivisibility {
                op: OP,
                stride: rest_stride,
                shape: curr_shape,
                mode: (curr_shape, curr_stride),
            });
        }
        if fits > 1 {
            // This part's coordinates are the multiples of `rest_stride` below `fits * rest_stride`
            // in leaf i: together with the parts placed before, they must stay below its shape.
            // Parts of opposite signs partly cancel: each sign has its own reach.
            let used = if sign < 0 { &mut a.used_negative } else { &mut a.used };
            let reach = tri!(arith::add(OP, used[i], tri!(arith::mul(OP, fits - 1, rest_stride))));
            if reach >= curr_shape && a.checked {
                return Err(LayoutError::ModeOverlap { op: OP, mode: (curr_shape, curr_stride), reach });
            }
            used[i] = reach;
            a.touch(i);
            out_s[k] = fits;
            out_d[k] = tri!(arith::mul(OP, sign * rest_stride, curr_stride));
            k += 1;
            rest_shape /= fits;
        }
        rest_stride = arith::ceil_div(rest_stride, curr_shape);
        i += 1;
    }
    if k == 0 || rest_shape != 1 {
        if rest_shape > 1 {
            a.touch(n - 1);
        }
        out_s[k] = rest_shape;
        out_d[k] = tri!(arith::mul(OP, sign * rest_stride, a.d[n - 1]));
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

/// Whether `r` elements of stride `t` (`r > 1`, `t > 0`) all land in a leaf of shape `shape`:
/// `(r - 1) * t < shape`.
const fn all_fit(r: i64, t: i64, shape: i64) -> bool {
    match (r - 1).checked_mul(t) {
        Some(v) => v < shape,
        None => false,
    }
}

/// The refused walk retried as a function. Two candidates, each checked against `A(B(i))` at every
/// `i < size(B)`: CuTe's walk without its conditions (so that where CuTe's result is right, by
/// whatever coincidence of A's strides, it is the one returned), then each integer mode of B
/// composed on its own (the walk, or `s:A(d)`).
const fn compose_checked(base: &FlatLhs, b: Layout) -> Option<Layout> {
    let mut unchecked = *base;
    unchecked.checked = false;
    if let Ok(r) = compose_modes(&mut unchecked, b) {
        if agrees(base, b, r) {
            return Some(r);
        }
    }
    match candidate(base, b) {
        Some(r) if agrees(base, b, r) => Some(r),
        _ => None,
    }
}

/// Whether `r(i) == A(B(i))` for every `i < size(B)` (and `r` has B's size).
const fn agrees(base: &FlatLhs, b: Layout, r: Layout) -> bool {
    let size = b.size();
    if r.size() != size {
        return false;
    }
    let mut i = 0;
    while i < size {
        match base.eval(b.call(i)) {
            Some(v) if v == r.call(i) => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

/// B's nesting with each integer mode composed alone: the walk where it succeeds, else the linear
/// `s:A(d)` (the only layout of shape `s` through `A(0)`, `A(d)` when `A o s:d` is one).
const fn candidate(base: &FlatLhs, b: Layout) -> Option<Layout> {
    if !b.is_int() {
        let mut out = Layout::empty();
        let mut i = 0;
        while i < b.rank() {
            let m = match candidate(base, b.at(i)) {
                Some(m) => m,
                None => return None,
            };
            out = match out.push(m) {
                Ok(l) => l,
                Err(_) => return None,
            };
            i += 1;
        }
        return Some(out);
    }
    let (s, d) = (b.shape().leaf(0), b.stride().leaf(0));
    let mut fresh = *base;
    match compose_int(&mut fresh, s, d) {
        Ok(l) => Some(l),
        Err(_) => match base.eval(d) {
            Some(v) => match Layout::int(s, v) {
                Ok(l) => Some(l),
                Err(_) => None,
            },
            None => None,
        },
    }
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
