//! The picture of a thread-value layout: the tile it covers, each cell coloured by the thread that
//! holds it and labelled `T<t>V<v>`, as CuTe draws tiled copies and MMA fragments.

use cute_rs_layout::Layout;

use super::colour::{thread_colour, THREAD_COLOURS};
use super::grid::{Cell, Grid};
use super::page::{Page, MARGIN};
use crate::tile::TileError;

/// Who holds each cell of an `M x N` tile under a thread-value layout.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::svg::TvMap;
/// // 2 threads x 2 values over a 2x2 tile: thread t holds row t.
/// let map = TvMap::new(cute_rs_layout::Layout::parse("(2,2):(1,2)").unwrap(), (2, 2)).unwrap();
/// assert_eq!(map.owner(1, 1), Some((1, 1)));
/// assert_eq!((map.threads(), map.values(), map.shared(), map.empty()), (2, 2, 0, 0));
/// ```
#[derive(Clone, Debug)]
pub struct TvMap {
    tile: (i64, i64),
    threads: i64,
    values: i64,
    /// The `(thread, value)` shown in each cell, column-major; `None` for a cell no one holds.
    owners: Vec<Option<(i64, i64)>>,
    shared: i64,
}

impl TvMap {
    /// Evaluates the TV layout `tv` (rank 2: mode 0 the thread, mode 1 the value; CuTe's
    /// `(thread, value) -> index`) over the tile `(M, N)`, where index `i` is the cell
    /// `(i mod M, i / M)` (the tile is column-major, as CuTe's `make_layout(tile)`). A cell held
    /// by several `(thread, value)` pairs shows the lowest thread, and its lowest value.
    ///
    /// # Errors
    /// A [`TileError`] when `tv` is not of rank 2, the tile is empty or has more than
    /// [`MAX_CELLS`](super::MAX_CELLS) cells, or an index falls outside the tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout_cli::svg::TvMap;
    /// let tv = cute_rs_layout::Layout::parse("(4,2):(1,4)").unwrap();
    /// assert_eq!(TvMap::new(tv, (2, 2)).unwrap_err().to_string(),
    ///            "the TV layout maps T0V1 to index 4, outside the (2,2) tile (indices 0..4)");
    /// ```
    pub fn new(tv: Layout, tile: (i64, i64)) -> Result<TvMap, TileError> {
        let (m, n) = tile;
        if tv.rank() != 2 || tv.is_int() {
            return Err(TileError(format!(
                "a TV layout must have rank 2 (thread, value), found rank {} in {tv}",
                if tv.is_int() { 1 } else { tv.rank() }
            )));
        }
        if m < 1 || n < 1 {
            return Err(TileError(format!("the tile ({m},{n}) must have at least one row and one column")));
        }
        if m.saturating_mul(n) > super::MAX_CELLS {
            return Err(TileError(format!("a picture has at most {} cells, the tile ({m},{n}) more", super::MAX_CELLS)));
        }
        let threads = tv.mode(0)?.size();
        let values = tv.size() / threads;
        let mut owners = vec![None; (m * n) as usize];
        let mut shared = 0;
        for t in 0..threads {
            for v in 0..values {
                let i = tv.call(t + v * threads);
                if !(0..m * n).contains(&i) {
                    return Err(TileError(format!(
                        "the TV layout maps T{t}V{v} to index {i}, outside the ({m},{n}) tile (indices 0..{})",
                        m * n
                    )));
                }
                let slot = &mut owners[i as usize];
                if slot.is_none() {
                    *slot = Some((t, v));
                } else {
                    shared += 1;
                }
            }
        }
        Ok(TvMap { tile, threads, values, owners, shared })
    }

    /// The `(thread, value)` shown at row `m`, column `n`, if any holds it.
    ///
    /// # Example
    /// ```
    /// let map = cute_rs_layout_cli::svg::TvMap::new(cute_rs_layout::Layout::parse("(2,1):(2,0)").unwrap(), (2, 2)).unwrap();
    /// assert_eq!(map.owner(0, 1), Some((1, 0)));
    /// assert_eq!(map.owner(1, 0), None);
    /// ```
    pub fn owner(&self, m: i64, n: i64) -> Option<(i64, i64)> {
        self.owners[(m + n * self.tile.0) as usize]
    }

    /// The number of threads: the size of mode 0.
    ///
    /// # Example
    /// ```
    /// let map = cute_rs_layout_cli::svg::TvMap::new(cute_rs_layout::Layout::parse("(4,2):(2,1)").unwrap(), (4, 2)).unwrap();
    /// assert_eq!(map.threads(), 4);
    /// ```
    pub fn threads(&self) -> i64 {
        self.threads
    }

    /// The number of values per thread: the size of mode 1.
    ///
    /// # Example
    /// ```
    /// let map = cute_rs_layout_cli::svg::TvMap::new(cute_rs_layout::Layout::parse("(4,2):(2,1)").unwrap(), (4, 2)).unwrap();
    /// assert_eq!(map.values(), 2);
    /// ```
    pub fn values(&self) -> i64 {
        self.values
    }

    /// How many `(thread, value)` pairs land on a cell already held (a broadcast).
    ///
    /// # Example
    /// ```
    /// // Two threads hold the same two cells.
    /// let map = cute_rs_layout_cli::svg::TvMap::new(cute_rs_layout::Layout::parse("(2,2):(0,1)").unwrap(), (2, 1)).unwrap();
    /// assert_eq!(map.shared(), 2);
    /// ```
    pub fn shared(&self) -> i64 {
        self.shared
    }

    /// How many cells no `(thread, value)` holds.
    ///
    /// # Example
    /// ```
    /// let map = cute_rs_layout_cli::svg::TvMap::new(cute_rs_layout::Layout::parse("(2,1):(1,0)").unwrap(), (2, 2)).unwrap();
    /// assert_eq!(map.empty(), 2);
    /// ```
    pub fn empty(&self) -> i64 {
        self.owners.iter().filter(|o| o.is_none()).count() as i64
    }
}

/// The SVG picture of the thread-value layout `tv` over the tile `(M, N)` (see [`TvMap::new`] for
/// how it is read): each cell is coloured by its thread (class `t<thread>`; the colours repeat
/// every 8 threads) and labelled `T<t>` over `V<v>`; cells no thread holds stay white.
///
/// # Errors
/// Those of [`TvMap::new`].
///
/// # Example
/// ```
/// use cute_rs_layout_cli::svg::tv_svg;
/// // The C fragment of an SM80 16x8 MMA: thread t holds rows t/4 and t/4+8, columns 2(t%4)+{0,1}.
/// let tv = cute_rs_layout::Layout::parse("((4,8),(2,2)):((32,1),(16,8))").unwrap();
/// let svg = tv_svg(tv, (16, 8)).unwrap();
/// assert!(svg.contains("<tspan x=\"22\" dy=\"0\">T0</tspan>"));
/// assert_eq!(svg.matches("class=\"t5\"").count(), 4 + 1); // its 4 values, and the legend
/// ```
pub fn tv_svg(tv: Layout, tile: (i64, i64)) -> Result<String, TileError> {
    let map = TvMap::new(tv, tile)?;
    let (rows, cols) = tile;
    let chars = format!("T{}", map.threads - 1).len().max(format!("V{}", map.values - 1).len());
    let mut grid = Grid::new(rows, cols, chars, 2)?;

    let mut page = Page::new();
    page.title(&format!("TV layout {tv} on a ({rows},{cols}) tile"));
    page.note(&format!(
        "{} threads x {} values; (thread t, value v) holds cell (i mod {rows}, i / {rows}) of i = tv(t + v*{})",
        map.threads, map.values, map.threads
    ));
    page.gap(6.0);
    let palette = THREAD_COLOURS.min(map.threads);
    for j in 0..palette {
        let selectors: Vec<String> = (j..map.threads).step_by(palette as usize).map(|t| format!(".t{t}")).collect();
        page.c.style(&format!("{}{{fill:{}}}", selectors.join(","), thread_colour(j).hex()));
    }
    page.c.style(".e{fill:#fff}");
    grid.place(MARGIN, page.y);
    let mut cells = Vec::with_capacity((rows * cols) as usize);
    for m in 0..rows {
        for n in 0..cols {
            cells.push(match map.owner(m, n) {
                Some((t, v)) => Cell { class: format!("t{t}"), label: vec![format!("T{t}"), format!("V{v}")], dark: false },
                None => Cell { class: "e".to_string(), label: vec![], dark: false },
            });
        }
    }
    grid.draw(&mut page.c, &cells);
    page.reach(grid.x + grid.width());
    page.y = grid.y + grid.height() + 12.0;
    if map.shared > 0 {
        page.note(&format!(
            "{} (thread, value) pairs hold a cell another pair holds too: the lowest thread is shown",
            map.shared
        ));
    }
    if map.empty() > 0 {
        page.note(&format!("{} cells are held by no thread (white)", map.empty()));
    }
    if grid.font.is_none() {
        page.note("cells too small for their labels: the colour gives the thread");
    }
    let entries: Vec<(String, String)> = (0..palette)
        .map(|j| {
            let label = if map.threads > palette { format!("T{j}+{palette}k") } else { format!("T{j}") };
            (format!("t{j}"), label)
        })
        .collect();
    let caption = if map.threads > palette { "thread (colours repeat every 8 threads)" } else { "thread" };
    page.swatches(caption, &entries);
    Ok(page.finish())
}
