//! The divides: `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`, each with a layout
//! or a by-mode tiler on the right.
//!
//! Shared with the products: the rearrangements `zip` (gather the tile parts and the rest parts of
//! a by-mode result), `tiled` and `flat` (spread the rest, or both parts, into top-level modes).

use crate::complement::complement;
use crate::composition::{check_tile_rank, composition};
use crate::error::{tri, LayoutError};
use crate::layout::{make_layout, Layout};

/// CuTe's `logical_divide(A, B)`: `composition(A, make_layout(B, complement(B, size(A))))`. Mode 0
/// of the result is the tile (A's elements that B selects), mode 1 enumerates the tiles.
///
/// `@pre` the preconditions of [`complement`] on `B` and of [`composition`] on the result.
/// `@post` `result(i) == A(make_layout(B, complement(B, size(A)))(i))`, rank 2.
///
/// `logical_divide((4,2,3):(2,1,8), 4:2) => ((2,2),(2,3)):((4,1),(2,8))`
///
/// # Errors
/// The errors of [`complement`] and [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::{logical_divide, Layout};
/// let a = Layout::parse("(4,2,3):(2,1,8)").unwrap();
/// let b = Layout::parse("4:2").unwrap();
/// assert_eq!(logical_divide(a, b).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub const fn logical_divide(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    let c = tri!(complement(b, a.size()));
    composition(a, tri!(make_layout(&[b, c])))
}

/// Applies `f(mode i of A, tile[i])` to the modes the tiler covers and keeps the others.
pub(crate) const fn by_mode(
    op: &'static str,
    a: Layout,
    tile: &[Layout],
    product: bool,
) -> Result<Layout, LayoutError> {
    tri!(check_tile_rank(op, a, tile));
    let mut out = Layout::empty();
    let mut i = 0;
    while i < a.rank() {
        let m = a.at(i);
        let r = if i < tile.len() {
            if product {
                tri!(crate::product::logical_product(m, tile[i]))
            } else {
                tri!(logical_divide(m, tile[i]))
            }
        } else {
            m
        };
        out = tri!(out.push(r));
        i += 1;
    }
    Ok(out)
}

/// CuTe's `logical_divide(A, tile)` with a by-mode tiler: mode `i` is `logical_divide(A_i, tile[i])`,
/// modes of A past the tiler are kept.
///
/// # Errors
/// [`LayoutError::RankMismatch`] when the tiler has more modes than A; the errors of [`logical_divide`].
///
/// # Example
/// ```
/// use cute_rs_layout::{logical_divide_by_mode, Layout};
/// let a = Layout::parse("(9,(4,8)):(59,(13,1))").unwrap();
/// let t = [Layout::parse("3:3").unwrap(), Layout::parse("(2,4):(1,8)").unwrap()];
/// assert_eq!(logical_divide_by_mode(a, &t).unwrap().to_string(),
///            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))");
/// ```
pub const fn logical_divide_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    by_mode("logical_divide", a, tile, false)
}

/// CuTe's `zip2_by` for a by-mode result of `n` covered modes, each `(tile_i, rest_i)`:
/// `((tile_0, tile_1, ...), (rest_0, rest_1, ..., uncovered modes...))`.
pub(crate) const fn zip_by_mode(l: Layout, n: usize) -> Result<Layout, LayoutError> {
    let mut tiles = Layout::empty();
    let mut rests = Layout::empty();
    let mut i = 0;
    while i < l.rank() {
        let m = l.at(i);
        if i < n {
            tiles = tri!(tiles.push(m.at(0)));
            rests = tri!(rests.push(m.at(1)));
        } else {
            rests = tri!(rests.push(m));
        }
        i += 1;
    }
    make_layout(&[tiles, rests])
}

/// Pushes the top-level modes of `m` onto `out`, or `m` itself when it has one mode
/// (CuTe's slicing with `repeat<rank>(_)`, where `repeat<1>(_)` is `_`).
const fn push_spread(out: Layout, m: Layout) -> Result<Layout, LayoutError> {
    if m.rank() == 1 {
        return out.push(m);
    }
    let mut o = out;
    let mut i = 0;
    while i < m.rank() {
        o = tri!(o.push(m.at(i)));
        i += 1;
    }
    Ok(o)
}

/// `(tile, rest)` => `(tile, rest_0, rest_1, ...)`.
pub(crate) const fn tiled(zipped: Layout) -> Result<Layout, LayoutError> {
    let out = tri!(Layout::empty().push(zipped.at(0)));
    push_spread(out, zipped.at(1))
}

/// `(tile, rest)` => `(tile_0, tile_1, ..., rest_0, rest_1, ...)`.
pub(crate) const fn flat(zipped: Layout) -> Result<Layout, LayoutError> {
    let out = tri!(push_spread(Layout::empty(), zipped.at(0)));
    push_spread(out, zipped.at(1))
}

/// CuTe's `zipped_divide(A, B)`: `((tile), (rest))`; for a layout B the same as [`logical_divide`].
///
/// `zipped_divide((4,2,3):(2,1,8), 4:2) => ((2,2),(2,3)):((4,1),(2,8))`
///
/// # Errors
/// The errors of [`logical_divide`].
///
/// # Example
/// ```
/// use cute_rs_layout::{zipped_divide, Layout};
/// let a = Layout::parse("(4,2,3):(2,1,8)").unwrap();
/// assert_eq!(zipped_divide(a, Layout::parse("4:2").unwrap()).unwrap().to_string(),
///            "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub const fn zipped_divide(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    logical_divide(a, b)
}

/// CuTe's `zipped_divide(A, tile)` with a by-mode tiler: `((tile_0, tile_1, ...), (rest_0, rest_1, ...,
/// modes of A past the tiler))`.
///
/// # Errors
/// The errors of [`logical_divide_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::{zipped_divide_by_mode, Layout};
/// let a = Layout::parse("(9,(4,8)):(59,(13,1))").unwrap();
/// let t = [Layout::parse("3:3").unwrap(), Layout::parse("(2,4):(1,8)").unwrap()];
/// assert_eq!(zipped_divide_by_mode(a, &t).unwrap().to_string(),
///            "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
/// ```
pub const fn zipped_divide_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    zip_by_mode(tri!(logical_divide_by_mode(a, tile)), tile.len())
}

/// CuTe's `tiled_divide(A, B)`: `(tile, rest_0, rest_1, ...)`.
///
/// `tiled_divide((4,2,3):(2,1,8), 4:2) => ((2,2),2,3):((4,1),2,8)`
///
/// # Errors
/// The errors of [`logical_divide`].
///
/// # Example
/// ```
/// use cute_rs_layout::{tiled_divide, Layout};
/// let a = Layout::parse("(4,2,3):(2,1,8)").unwrap();
/// assert_eq!(tiled_divide(a, Layout::parse("4:2").unwrap()).unwrap().to_string(), "((2,2),2,3):((4,1),2,8)");
/// ```
pub const fn tiled_divide(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    tiled(tri!(zipped_divide(a, b)))
}

/// CuTe's `tiled_divide(A, tile)` with a by-mode tiler.
///
/// # Errors
/// The errors of [`logical_divide_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::{tiled_divide_by_mode, Layout};
/// let a = Layout::parse("(9,(4,8)):(59,(13,1))").unwrap();
/// let t = [Layout::parse("3:3").unwrap(), Layout::parse("(2,4):(1,8)").unwrap()];
/// assert_eq!(tiled_divide_by_mode(a, &t).unwrap().to_string(),
///            "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))");
/// ```
pub const fn tiled_divide_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    tiled(tri!(zipped_divide_by_mode(a, tile)))
}

/// CuTe's `flat_divide(A, B)`: `(tile_0, tile_1, ..., rest_0, rest_1, ...)`.
///
/// `flat_divide((4,2,3):(2,1,8), 4:2) => (2,2,2,3):(4,1,2,8)`
///
/// # Errors
/// The errors of [`logical_divide`].
///
/// # Example
/// ```
/// use cute_rs_layout::{flat_divide, Layout};
/// let a = Layout::parse("(4,2,3):(2,1,8)").unwrap();
/// assert_eq!(flat_divide(a, Layout::parse("4:2").unwrap()).unwrap().to_string(), "(2,2,2,3):(4,1,2,8)");
/// ```
pub const fn flat_divide(a: Layout, b: Layout) -> Result<Layout, LayoutError> {
    flat(tri!(zipped_divide(a, b)))
}

/// CuTe's `flat_divide(A, tile)` with a by-mode tiler.
///
/// # Errors
/// The errors of [`logical_divide_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::{flat_divide_by_mode, Layout};
/// let a = Layout::parse("(9,(4,8)):(59,(13,1))").unwrap();
/// let t = [Layout::parse("3:3").unwrap(), Layout::parse("(2,4):(1,8)").unwrap()];
/// assert_eq!(flat_divide_by_mode(a, &t).unwrap().to_string(),
///            "(3,(2,4),3,(2,2)):(177,(13,2),59,(26,1))");
/// ```
pub const fn flat_divide_by_mode(a: Layout, tile: &[Layout]) -> Result<Layout, LayoutError> {
    flat(tri!(zipped_divide_by_mode(a, tile)))
}
