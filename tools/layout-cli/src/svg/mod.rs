//! SVG pictures of layouts, drawn by the `layout svg` tool: a layout's index table, a
//! thread-value layout over its tile, and a shared-memory tile's banks with the bank conflicts of
//! an access pattern. Each function returns the whole document as a `String`.
//!
//! Every cell is one `<rect>` inside `<g class="cells">` (at `x = n * cell`, `y = m * cell`, the
//! group carrying `data-rows`, `data-cols` and `data-cell`), with a colour class that says what it
//! shows (`k<colour>` by index, `t<thread>`, `b<bank>`); its label is a `<text>` in
//! `<g class="labels">` at the cell's centre. Up to 1536 pixels a side, cells shrink from 44 to 2
//! pixels as layouts grow, labels are dropped once they would be under 7 pixels, and the legend
//! stays. A 128x128 layout is about 1 MB.
//!
//! ```
//! use cute_rs_layout_cli::{svg, tile::Tile};
//! let l = cute_rs_layout::Layout::parse("(4,8):(8,1)").unwrap();
//! let picture = svg::layout_svg(Tile::new(l).unwrap()).unwrap();
//! assert!(picture.contains("data-rows=\"4\" data-cols=\"8\""));
//! ```

mod bank;
mod canvas;
mod colour;
mod grid;
mod index;
mod page;
mod tv;

pub use bank::bank_svg;
pub use grid::MAX_CELLS;
pub use index::{index_class, layout_svg, INDEX_CLASSES};
pub use tv::{tv_svg, TvMap};
