//! The products: `logical_product`, `zipped_product`, `tiled_product`, `flat_product` (layout or
//! by-mode tiler), `blocked_product`, `raked_product`, and `tile_to_shape`.

use crate::arith;
use crate::complement::complement;
use crate::composition::composition;
use crate::divide::{by_mode, flat, tiled, zip_by_mode};
use crate::error::{tri, LayoutError};
use crate::int_tuple::IntTuple;
use crate::layout::{append_to_rank, make_layout, make_layout_col_major, make_ordered_layout, Layout};

/// CuTe's `logical_product(A, B)`: `make_layout(A, composition(complement(A, size(A)*cosize(B)), B))`.
/// Mode 0 is A itself, mode 1 places copies of A as B arranges them.
///
/// `@pre` the preconditions of [`complement`] on A and of [`composition`].
/// `@post` rank 2, mode 0 equals A, `size(result) == size(A) * size(B)`.
///
/// `logical_product((2,2):(4,1), 6:1) => ((2,2),(2,3)):((4,1),(2,8))`
///
/// # Errors
/// The errors of [`complement`] and [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::{logical_product, Layout};
/// let a = Layout::parse("(2,2):(4,1)").unwrap();
/// assert_eq!(logical_product(a, Layout::parse("6:1").unwrap()).unwrap().to_string(),
///            "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub const fn logical_product(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    let m = tri!(arith::mul("logical_product", a.size(), b.cosize()));
    let c = tri!(complement(a, m));
    make_layout(&[a, tri!(composition(c, b))])
}

/// CuTe's `logical_product(A, tile)` with a by-mode tiler: mode `i` is `logical_product(A_i, tile[i])`,
/// modes of A past the tiler are kept.
///
/// # Errors
/// [`LayoutError::RankMismatch`] when the tiler has more modes than A; the errors of [`logical_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{logical_product_by_mode, Layout};
/// let a = Layout::parse("(2,5):(5,1)").unwrap();
/// let t = [Layout::parse("3:5").unwrap(), Layout::parse("4:6").unwrap()];
/// assert_eq!(logical_product_by_mode(a, &t).unwrap().to_string(), "((2,3),(5,4)):((5,10),(1,30))");
/// ```
pub const fn logical_product_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    by_mode("logical_product", a, tile, true)
}

/// CuTe's `zipped_product(A, B)`: `(A, rest)`; for a layout B the same as [`logical_product`].
///
/// # Errors
/// The errors of [`logical_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{zipped_product, Layout};
/// let a = Layout::parse("(2,2):(4,1)").unwrap();
/// assert_eq!(zipped_product(a, Layout::parse("6:1").unwrap()).unwrap().to_string(),
///            "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub const fn zipped_product(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    logical_product(a, b)
}

/// CuTe's `zipped_product(A, tile)` with a by-mode tiler: `((A_0, A_1, ...), (rest_0, rest_1, ...))`.
///
/// # Errors
/// The errors of [`logical_product_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::{zipped_product_by_mode, Layout};
/// let a = Layout::parse("(2,5):(5,1)").unwrap();
/// let t = [Layout::parse("3:5").unwrap(), Layout::parse("4:6").unwrap()];
/// assert_eq!(zipped_product_by_mode(a, &t).unwrap().to_string(), "((2,5),(3,4)):((5,1),(10,30))");
/// ```
pub const fn zipped_product_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    zip_by_mode(tri!(logical_product_by_mode(a, tile)), tile.len())
}

/// CuTe's `tiled_product(A, B)`: `(A, rest_0, rest_1, ...)`.
///
/// # Errors
/// The errors of [`logical_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{tiled_product, Layout};
/// let a = Layout::parse("(2,2):(4,1)").unwrap();
/// assert_eq!(tiled_product(a, Layout::parse("6:1").unwrap()).unwrap().to_string(), "((2,2),2,3):((4,1),2,8)");
/// ```
pub const fn tiled_product(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    tiled(tri!(zipped_product(a, b)))
}

/// CuTe's `tiled_product(A, tile)` with a by-mode tiler.
///
/// # Errors
/// The errors of [`logical_product_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::{tiled_product_by_mode, Layout};
/// let a = Layout::parse("(2,5):(5,1)").unwrap();
/// let t = [Layout::parse("3:5").unwrap(), Layout::parse("4:6").unwrap()];
/// assert_eq!(tiled_product_by_mode(a, &t).unwrap().to_string(), "((2,5),3,4):((5,1),10,30)");
/// ```
pub const fn tiled_product_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    tiled(tri!(zipped_product_by_mode(a, tile)))
}

/// CuTe's `flat_product(A, B)`: `(A_0, A_1, ..., rest_0, rest_1, ...)`.
///
/// # Errors
/// The errors of [`logical_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{flat_product, Layout};
/// let a = Layout::parse("(2,2):(4,1)").unwrap();
/// assert_eq!(flat_product(a, Layout::parse("6:1").unwrap()).unwrap().to_string(), "(2,2,2,3):(4,1,2,8)");
/// ```
pub const fn flat_product(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    flat(tri!(zipped_product(a, b)))
}

/// CuTe's `flat_product(A, tile)` with a by-mode tiler.
///
/// # Errors
/// The errors of [`logical_product_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::{flat_product_by_mode, Layout};
/// let a = Layout::parse("(2,5):(5,1)").unwrap();
/// let t = [Layout::parse("3:5").unwrap(), Layout::parse("4:6").unwrap()];
/// assert_eq!(flat_product_by_mode(a, &t).unwrap().to_string(), "(2,5,3,4):(5,1,10,30)");
/// ```
pub const fn flat_product_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    flat(tri!(zipped_product_by_mode(a, tile)))
}

/// Mode `i` of one part of a padded product, or the whole part (`whole`).
const fn part_mode(part: Layout, whole: bool, i: usize) -> Layout {
    if whole {
        part
    } else {
        part.at(i)
    }
}

/// CuTe's blocked (`block_first`) or raked product: the logical product of A and B padded to a
/// common rank `r`, zipped mode by mode: mode `i` is `(A_i, rest_i)`, or `(rest_i, A_i)`.
const fn zipped_padded_product(a: Layout, b: Layout, block_first: bool) -> Result<Layout, LayoutError> {
    let r = if a.rank() > b.rank() { a.rank() } else { b.rank() };
    let (pa, pb) = (tri!(append_to_rank(a, r)), tri!(append_to_rank(b, r)));
    let p = tri!(logical_product(pa, pb));
    // With an integer factor (rank 1) the parts are not tuples of one mode per rank: composition
    // did not distribute over an integer B, so its part may have split into several modes, all of
    // which belong to the single mode (CuTe's `zip` of an integer takes the other part whole).
    let whole = r == 1 && (pa.is_int() || pb.is_int());
    let mut out = Layout::empty();
    let mut i = 0;
    while i < r {
        let block = part_mode(p.at(0), whole, i);
        let rest = part_mode(p.at(1), whole, i);
        let pair = if block_first { [block, rest] } else { [rest, block] };
        out = tri!(out.push(tri!(make_layout(&pair))));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `blocked_product(A, B)`: B's arrangement of copies of A, mode by mode:
/// mode `i` is `(A_i, rest_i)`, so each block A stays contiguous in every mode.
/// Both are padded with `1:0` modes to the larger rank first.
///
/// `blocked_product((2,5):(5,1), (3,4):(1,3)) => ((2,3),(5,4)):((5,10),(1,30))`
///
/// # Errors
/// The errors of [`logical_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{blocked_product, Layout};
/// let a = Layout::parse("(2,5):(5,1)").unwrap();
/// let b = Layout::parse("(3,4):(1,3)").unwrap();
/// assert_eq!(blocked_product(a, b).unwrap().to_string(), "((2,3),(5,4)):((5,10),(1,30))");
/// ```
pub const fn blocked_product(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    zipped_padded_product(a, b, true)
}

/// CuTe's `raked_product(A, B)`: like [`blocked_product`] with the parts swapped in each mode,
/// `(rest_i, A_i)`, so the copies of A are interleaved (raked) instead of contiguous.
///
/// `raked_product((2,5):(5,1), (3,4):(1,3)) => ((3,2),(4,5)):((10,5),(30,1))`
///
/// # Errors
/// The errors of [`logical_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{raked_product, Layout};
/// let a = Layout::parse("(2,5):(5,1)").unwrap();
/// let b = Layout::parse("(3,4):(1,3)").unwrap();
/// assert_eq!(raked_product(a, b).unwrap().to_string(), "((3,2),(4,5)):((10,5),(30,1))");
/// ```
pub const fn raked_product(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    zipped_padded_product(a, b, false)
}

/// CuTe's `tile_to_shape(block, target, order)`: repeats `block` (a [`blocked_product`]) to fill
/// `target`, the copies arranged compactly in `order` (column-major when `None`).
///
/// `@pre rank(block) <= rank(target)`; shape divisibility: each mode size of the block divides the
/// target's mode size.
/// `@post` mode `i` of the result has size `product(target_i)`.
///
/// `tile_to_shape(((1,2),2):((4,2),1), (6,4)) => (((1,2),3),(2,2)):(((4,2),4),(1,12))`
///
/// # Errors
/// [`LayoutError::RankMismatch`], [`LayoutError::ShapeDivisibility`], the errors of
/// [`make_ordered_layout`] and [`blocked_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::{tile_to_shape, IntTuple, Layout};
/// let block = Layout::parse("((1,2),2):((4,2),1)").unwrap();
/// let r = tile_to_shape(block, IntTuple::parse("(6,4)").unwrap(), None).unwrap();
/// assert_eq!(r.to_string(), "(((1,2),3),(2,2)):(((4,2),4),(1,12))");
/// assert!(tile_to_shape(block, IntTuple::parse("(5,4)").unwrap(), None).is_err());
/// ```
pub const fn tile_to_shape(block: Layout, target: IntTuple, order: Option<IntTuple>) -> Result<Layout, LayoutError> {
    const OP: &str = "tile_to_shape";
    let r = target.rank();
    if block.rank() > r {
        return Err(LayoutError::RankMismatch { op: OP, expected: r, found: block.rank() });
    }
    let padded = tri!(append_to_rank(block, r));
    // One repetition count per mode of the padded block (a tuple, even for an integer target).
    let mut reps = IntTuple::empty();
    let mut i = 0;
    while i < r {
        let b = padded.at(i).size();
        let t = tri!(target.at(i).product());
        if t % b != 0 {
            return Err(LayoutError::ShapeDivisibility { op: OP, divisor: b, dividend: t });
        }
        reps = tri!(reps.push(IntTuple::int(t / b)));
        i += 1;
    }
    let arrangement = match order {
        Some(o) => tri!(make_ordered_layout(reps, o)),
        None => tri!(make_layout_col_major(reps)),
    };
    blocked_product(padded, arrangement)
}
