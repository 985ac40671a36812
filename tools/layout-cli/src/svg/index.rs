//! The picture of a layout: its index table as a grid of cells coloured by index.

use super::colour::index_scale;
use super::grid::{Cell, Grid};
use super::page::{Page, MARGIN};
use crate::tile::{Tile, TileError};

/// The most colour classes of the index scale.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_layout_cli::svg::INDEX_CLASSES, 64);
/// ```
pub const INDEX_CLASSES: i64 = 64;

/// The colour class of `index` when the indices run from `low` to `high`: the range is cut into
/// `K = min(64, high - low + 1)` equal classes, class `floor((index - low) * K / (high - low + 1))`
/// (so a layout of at most 64 distinct indices gives each index its own colour).
///
/// # Example
/// ```
/// use cute_rs_layout_cli::svg::index_class;
/// assert_eq!(index_class(5, 0, 31), 5);
/// assert_eq!(index_class(127, 0, 127), 63);
/// assert_eq!(index_class(-3, -3, 4), 0);
/// ```
pub fn index_class(index: i64, low: i64, high: i64) -> i64 {
    let span = (high - low + 1) as i128;
    let classes = span.min(INDEX_CLASSES as i128);
    ((index - low) as i128 * classes / span) as i64
}

/// The SVG picture of a rank-1 or rank-2 layout (plain or swizzled): rows are mode 0, columns mode 1
/// (nested modes flattened, as CuTe's `print_layout` shows them), each cell labelled with its index
/// and coloured on a dark-to-light scale by index (class `k<c>`, see [`index_class`]), with the
/// coordinate numbers along the sides and the scale as a legend. Large layouts get smaller cells,
/// and their labels are dropped once they would no longer be readable.
///
/// # Errors
/// A [`TileError`] for more than [`MAX_CELLS`](super::MAX_CELLS) cells.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::{svg::layout_svg, tile::Tile};
/// let svg = layout_svg(Tile::new(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()).unwrap()).unwrap();
/// assert!(svg.starts_with("<svg "));
/// assert_eq!(svg.matches("<rect x=").count() - 1, 6 + 6); // 6 cells, 6 colours in the legend
/// assert!(svg.contains(">5</text>"));
/// ```
pub fn layout_svg(tile: Tile) -> Result<String, TileError> {
    let (rows, cols) = (tile.rows(), tile.cols());
    // Before anything is allocated for the cells.
    if rows.saturating_mul(cols) > super::MAX_CELLS {
        return Err(TileError(format!("a picture has at most {} cells (512x512), this one {rows}x{cols}", super::MAX_CELLS)));
    }
    let mut indices = Vec::with_capacity((rows * cols) as usize);
    for m in 0..rows {
        for n in 0..cols {
            indices.push(tile.offset(m, n));
        }
    }
    let low = indices.iter().copied().min().unwrap_or(0);
    let high = indices.iter().copied().max().unwrap_or(0);
    let chars = indices.iter().map(|i| i.to_string().len()).max().unwrap_or(1);
    let mut grid = Grid::new(rows, cols, chars, 1)?;
    let classes = index_class(high, low, high) + 1;
    let colours: Vec<_> = (0..classes).map(|k| index_scale((k as f64 + 0.5) / classes as f64)).collect();

    let mut page = Page::new();
    page.title(&tile.to_string());
    let inner = tile.layout().layout();
    let shape = |i| inner.mode(i).map(|m| m.shape().to_string()).unwrap_or_default();
    // Thick lines between the sub-modes of a nested mode (its first sub-mode's size), so that the
    // hierarchy shows.
    let sub = |i| inner.mode(i).ok().filter(|m| !m.is_int() && m.rank() > 1).and_then(|m| m.mode(0).ok()).map_or(0, |m| m.size());
    if inner.rank() == 2 {
        grid.blocks = (sub(0), sub(1));
        let thick = if sub(0) > 0 || sub(1) > 0 { "; thick lines part sub-modes" } else { "" };
        page.note(&format!("rows: mode 0 = {}, columns: mode 1 = {}; each cell shows its index{thick}", shape(0), shape(1)));
    } else {
        page.note("one column: the coordinates in order; each cell shows its index");
    }
    page.gap(6.0);
    for (k, c) in colours.iter().enumerate() {
        page.c.style(&format!(".k{k}{{fill:{}}}", c.hex()));
    }
    grid.place(MARGIN, page.y);
    let cells: Vec<Cell> = indices
        .iter()
        .map(|&i| {
            let k = index_class(i, low, high);
            Cell { class: format!("k{k}"), label: vec![i.to_string()], dark: colours[k as usize].is_dark() }
        })
        .collect();
    grid.draw(&mut page.c, &cells);
    page.reach(grid.x + grid.width());
    page.y = grid.y + grid.height() + 12.0;
    if grid.font.is_none() {
        page.note("cells too small for their labels: the colour gives the index");
    }
    let names: Vec<String> = (0..classes).map(|k| format!("k{k}")).collect();
    page.colour_bar("index", &names, &low.to_string(), &high.to_string());
    Ok(page.finish())
}
