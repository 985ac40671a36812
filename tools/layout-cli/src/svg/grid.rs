//! A grid of square cells: how big it is drawn (the cell size shrinks with the number of rows and
//! columns, labels are dropped when they no longer fit), and the drawing of its cells, labels, cell
//! lines and coordinate numbers.

use super::canvas::{num, text_width, Canvas};
use crate::tile::TileError;

/// The most cells a picture draws (512 x 512); beyond it the file is too large to be useful.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::{svg::{layout_svg, MAX_CELLS}, tile::Tile};
/// assert_eq!(MAX_CELLS, 262_144);
/// let too_big = Tile::new(cute_rs_layout::Layout::parse("(1024,512):(1,1024)").unwrap()).unwrap();
/// assert!(layout_svg(too_big).unwrap_err().to_string().contains("at most 262144 cells"));
/// ```
pub const MAX_CELLS: i64 = 512 * 512;

/// The longest side of the grid, in pixels, when its cells have to shrink to fit.
const MAX_SIDE: f64 = 1536.0;
/// The largest and smallest cell sizes, in pixels.
const MAX_CELL: f64 = 44.0;
const MIN_CELL: f64 = 2.0;
/// Labels smaller than this are not drawn: the colour and the legend carry the picture then.
pub(crate) const MIN_LABEL_FONT: f64 = 7.0;
const MAX_LABEL_FONT: f64 = 14.0;
/// The font size of the coordinate numbers along the top and left sides.
pub(crate) const HEAD_FONT: f64 = 11.0;
/// Where the centre of a line of text sits above its baseline, as a fraction of the font size.
pub(crate) const MIDLINE: f64 = 0.35;

/// One cell: its colour class and its label (one entry per line; none: no label).
pub(crate) struct Cell {
    pub class: String,
    pub label: Vec<String>,
    /// The fill is dark: the label is drawn in white.
    pub dark: bool,
}

/// A `rows x cols` grid, its cell size and label font, and where it is drawn.
pub(crate) struct Grid {
    pub rows: i64,
    pub cols: i64,
    /// The side of a cell, in pixels (a whole number, so that cells meet exactly).
    pub cell: f64,
    /// The label font size; `None` when labels do not fit.
    pub font: Option<f64>,
    /// The top-left corner of the cells.
    pub x: f64,
    pub y: f64,
    /// Rows and columns between thicker lines (the sub-modes of a nested mode); 0: none.
    pub blocks: (i64, i64),
}

impl Grid {
    /// Sizes a grid whose labels have at most `chars` characters on each of `lines` lines; its
    /// cells start at `(0, 0)` until [`Grid::place`] moves them.
    pub(crate) fn new(rows: i64, cols: i64, chars: usize, lines: usize) -> Result<Grid, TileError> {
        if rows.saturating_mul(cols) > MAX_CELLS {
            return Err(TileError(format!(
                "a picture has at most {MAX_CELLS} cells (512x512), this one {rows}x{cols}"
            )));
        }
        let cell = (MAX_SIDE / rows.max(cols) as f64).floor().clamp(MIN_CELL, MAX_CELL);
        // The label must fit across the cell with a 3-pixel margin, and its lines down it.
        let across = (cell - 3.0) / text_width(&"0".repeat(chars.max(1)), 1.0);
        let down = (cell - 2.0) / (1.15 * lines.max(1) as f64);
        let font = across.min(down).min(MAX_LABEL_FONT);
        let font = (lines > 0 && font >= MIN_LABEL_FONT).then_some((font * 10.0).floor() / 10.0);
        Ok(Grid { rows, cols, cell, font, x: 0.0, y: 0.0, blocks: (0, 0) })
    }

    /// The width of the cells.
    pub(crate) fn width(&self) -> f64 {
        self.cols as f64 * self.cell
    }

    /// The height of the cells.
    pub(crate) fn height(&self) -> f64 {
        self.rows as f64 * self.cell
    }

    /// The room the row numbers take left of the cells.
    pub(crate) fn head_left(&self) -> f64 {
        text_width(&(self.rows - 1).to_string(), HEAD_FONT) + 6.0
    }

    /// The room the column numbers take above the cells.
    pub(crate) fn head_top(&self) -> f64 {
        HEAD_FONT + 6.0
    }

    /// Puts the grid's coordinate numbers' top-left corner at `(x, y)`.
    pub(crate) fn place(&mut self, x: f64, y: f64) {
        self.x = x + self.head_left();
        self.y = y + self.head_top();
    }

    /// The centre of cell `(m, n)`, relative to the grid.
    pub(crate) fn centre(&self, m: i64, n: i64) -> (f64, f64) {
        ((n as f64 + 0.5) * self.cell, (m as f64 + 0.5) * self.cell)
    }

    /// Draws the cells (`cells` row by row), their lines, labels and the coordinate numbers.
    pub(crate) fn draw(&self, c: &mut Canvas, cells: &[Cell]) {
        debug_assert_eq!(cells.len() as i64, self.rows * self.cols);
        let s = self.cell;
        let attrs = format!("data-rows=\"{}\" data-cols=\"{}\" data-cell=\"{}\"", self.rows, self.cols, num(s));
        c.open("cells", self.x, self.y, &attrs);
        for (k, cell) in cells.iter().enumerate() {
            let (m, n) = (k as i64 / self.cols, k as i64 % self.cols);
            c.rect(n as f64 * s, m as f64 * s, s, s, &cell.class, "");
        }
        c.close();
        self.draw_lines(c);
        if let Some(font) = self.font {
            let step = font * 1.1;
            c.open("labels", self.x, self.y, &format!("font-size=\"{}\" text-anchor=\"middle\"", num(font)));
            for (k, cell) in cells.iter().enumerate() {
                if cell.label.is_empty() {
                    continue;
                }
                let (x, y) = self.centre(k as i64 / self.cols, k as i64 % self.cols);
                let first = y - (cell.label.len() - 1) as f64 * step / 2.0 + MIDLINE * font;
                let class = if cell.dark { "w" } else { "" };
                if cell.label.len() == 1 {
                    c.text(x, first, class, &cell.label[0]);
                } else {
                    c.text_lines(x, first, step, class, &cell.label);
                }
            }
            c.close();
        }
        self.draw_heads(c);
    }

    /// The lines between cells (only the border when cells are tiny: lines would hide them).
    fn draw_lines(&self, c: &mut Canvas) {
        let (w, h, s) = (self.width(), self.height(), self.cell);
        let mut d = String::new();
        if s >= 4.0 {
            for m in 0..=self.rows {
                d.push_str(&format!("M{} {}h{}", num(self.x), num(self.y + m as f64 * s), num(w)));
            }
            for n in 0..=self.cols {
                d.push_str(&format!("M{} {}v{}", num(self.x + n as f64 * s), num(self.y), num(h)));
            }
        } else {
            d = format!("M{} {}h{}v{}h-{}z", num(self.x), num(self.y), num(w), num(h), num(w));
        }
        let width = if s >= 16.0 { 1.0 } else { 0.5 };
        c.style(&format!(".lines{{fill:none;stroke:#333;stroke-width:{width}}}"));
        c.path("lines", &d);
        let (br, bc) = self.blocks;
        let mut d = String::new();
        for m in (1..self.rows).filter(|m| br > 0 && m % br == 0) {
            d.push_str(&format!("M{} {}h{}", num(self.x), num(self.y + m as f64 * s), num(w)));
        }
        for n in (1..self.cols).filter(|n| bc > 0 && n % bc == 0) {
            d.push_str(&format!("M{} {}v{}", num(self.x + n as f64 * s), num(self.y), num(h)));
        }
        if !d.is_empty() {
            c.style(&format!(".blocks{{fill:none;stroke:#000;stroke-width:{}}}", if s >= 8.0 { 2.5 } else { 1.0 }));
            c.path("blocks", &d);
        }
    }

    /// Row numbers on the left, column numbers on top: every one when they fit, else every 2nd,
    /// 4th, ... so that they never overlap.
    fn draw_heads(&self, c: &mut Canvas) {
        let s = self.cell;
        let every = |room: f64| {
            let mut k = 1;
            while (k as f64) * s < room {
                k *= 2;
            }
            k
        };
        c.open("heads", self.x, self.y, &format!("font-size=\"{}\" fill=\"#555\"", num(HEAD_FONT)));
        let row_step = every(HEAD_FONT + 2.0);
        for m in (0..self.rows).step_by(row_step) {
            let (_, y) = self.centre(m, 0);
            c.text(-4.0, y + MIDLINE * HEAD_FONT, "r", &m.to_string());
        }
        let col_step = every(text_width(&(self.cols - 1).to_string(), HEAD_FONT) + 6.0);
        for n in (0..self.cols).step_by(col_step) {
            let (x, _) = self.centre(0, n);
            c.text(x, -5.0, "c", &n.to_string());
        }
        c.close();
        c.style(".heads text{fill:#555}\n.heads .r{text-anchor:end}\n.heads .c{text-anchor:middle}\n.w{fill:#fff}");
    }
}
