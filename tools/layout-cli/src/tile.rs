//! A tile: a rank-1 or rank-2 layout, swizzled or not, read as a grid of offsets the way CuTe's
//! `print_layout` reads it (rows = mode 0, columns = mode 1, nested modes flattened
//! colexicographically). The pictures ([`crate::svg`]) and the bank model ([`crate::banks`]) work
//! on tiles.
//!
//! ```
//! use cute_rs_layout_cli::tile::Tile;
//! let t = Tile::new(cute_rs_layout::Layout::parse("((2,2),3):((24,2),8)").unwrap()).unwrap();
//! assert_eq!((t.rows(), t.cols()), (4, 3));
//! assert_eq!(t.offset(1, 2), 40); // coordinate ((1,0),2): 24 + 2*8
//! ```

use std::fmt;

use cute_rs_layout::{make_swizzled, Layout, LayoutError, Swizzle, SwizzledLayout};

/// Why a tile, a thread-value layout or an access pattern cannot be drawn or counted: the violated
/// condition, with its values.
///
/// # Example
/// ```
/// let e = cute_rs_layout_cli::tile::Tile::new(cute_rs_layout::Layout::parse("(2,2,2):(1,2,4)").unwrap()).unwrap_err();
/// assert!(e.to_string().starts_with("a tile needs a layout of rank 1 or 2"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileError(pub String);

impl fmt::Display for TileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TileError {}

impl From<LayoutError> for TileError {
    fn from(e: LayoutError) -> Self {
        TileError(e.to_string())
    }
}

/// A rank-1 or rank-2 layout, possibly swizzled, as a `rows x cols` grid of offsets.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::tile::Tile;
/// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
/// let s = make_swizzled(Swizzle::new(2, 0, 2).unwrap(), Layout::parse("(4,4):(4,1)").unwrap());
/// let t = Tile::swizzled(s).unwrap();
/// assert_eq!(t.offset(1, 0), 5); // 4 ^ 1: row 1 is rotated by one
/// assert_eq!(t.to_string(), "Sw<2,0,2> o 0 o (4,4):(4,1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    layout: SwizzledLayout,
    rows: i64,
    cols: i64,
}

impl Tile {
    /// The tile of a plain layout (the identity swizzle `Sw<0,0,0>`).
    ///
    /// # Errors
    /// A [`TileError`] when the rank is above 2.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_layout_cli::tile::Tile::new(cute_rs_layout::Layout::parse("6:2").unwrap()).unwrap();
    /// assert_eq!((t.rows(), t.cols(), t.offset(5, 0)), (6, 1, 10));
    /// assert_eq!(t.to_string(), "6:2");
    /// ```
    pub fn new(layout: Layout) -> Result<Tile, TileError> {
        Tile::swizzled(make_swizzled(IDENTITY, layout))
    }

    /// The tile of a swizzled layout.
    ///
    /// # Errors
    /// A [`TileError`] when the rank of the inner layout is above 2.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let s = make_swizzled(Swizzle::new(3, 3, 3).unwrap(), Layout::parse("(8,64):(64,1)").unwrap());
    /// assert_eq!(cute_rs_layout_cli::tile::Tile::swizzled(s).unwrap().cols(), 64);
    /// ```
    pub fn swizzled(layout: SwizzledLayout) -> Result<Tile, TileError> {
        let l = layout.layout();
        let (rows, cols) = match l.rank() {
            1 => (l.size(), 1),
            2 => {
                let rows = l.mode(0)?.size();
                (rows, l.size() / rows)
            }
            r => {
                return Err(TileError(format!(
                    "a tile needs a layout of rank 1 or 2 (rows, columns), found rank {r}; group modes first, e.g. group(l, 1, {r})"
                )))
            }
        };
        Ok(Tile { layout, rows, cols })
    }

    /// The number of rows: the size of mode 0.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_layout_cli::tile::Tile::new(cute_rs_layout::Layout::parse("(4,(2,3)):(1,(4,8))").unwrap()).unwrap();
    /// assert_eq!(t.rows(), 4);
    /// ```
    pub fn rows(&self) -> i64 {
        self.rows
    }

    /// The number of columns: the size of mode 1 (1 for a rank-1 layout).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_layout_cli::tile::Tile::new(cute_rs_layout::Layout::parse("(4,(2,3)):(1,(4,8))").unwrap()).unwrap();
    /// assert_eq!(t.cols(), 6);
    /// ```
    pub fn cols(&self) -> i64 {
        self.cols
    }

    /// The offset at row `m`, column `n`: the layout at the 1-D coordinate `m + n * rows`.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_layout_cli::tile::Tile::new(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
    /// assert_eq!(t.offset(1, 2), 5);
    /// ```
    pub fn offset(&self, m: i64, n: i64) -> i64 {
        self.layout.call(m + n * self.rows)
    }

    /// The swizzled layout (`Sw<0,0,0> o 0 o layout` for a plain one).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_layout_cli::tile::Tile::new(cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap();
    /// assert_eq!(t.layout().layout().to_string(), "4:1");
    /// ```
    pub fn layout(&self) -> SwizzledLayout {
        self.layout
    }
}

/// Shows a plain layout as itself, a swizzled one in CuTe's `Sw<B,M,S> o offset o layout`.
impl fmt::Display for Tile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.layout.swizzle() == IDENTITY && self.layout.offset() == 0 {
            write!(f, "{}", self.layout.layout())
        } else {
            write!(f, "{}", self.layout)
        }
    }
}

/// `Sw<0,0,0>`, which moves no bit.
const IDENTITY: Swizzle = cute_rs_layout::unwrap!(Swizzle::new(0, 0, 0));
