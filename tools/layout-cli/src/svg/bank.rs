//! The picture of a shared-memory tile: each cell coloured by its bank, and for an access
//! pattern, each access outlined with its bank conflicts beside the tile.

use super::canvas::{num, text_width};
use super::colour::bank_colour;
use super::grid::{Cell, Grid, MIN_LABEL_FONT, MIDLINE};
use super::page::{Page, MARGIN, TEXT_FONT};
use crate::banks::{bank_of_element, check_element_bytes, conflicts, threads_per_phase, Access, AccessCount, BANKS};
use crate::tile::{Tile, TileError};

/// The SVG picture of the shared-memory tile `smem` (a plain or swizzled layout giving element
/// offsets; rows are mode 0, columns mode 1) holding elements of `element_bytes` bytes: each cell is
/// coloured by its bank (class `b<bank>`, see [`bank_of_element`]) and labelled with it, with the 32
/// banks as a legend. With an `access`, each of its accesses over the tile is outlined (an element
/// `<rect class="acc" data-conflicts=".." data-wavefronts="..">`) and its number of bank conflicts
/// ([`conflicts`]) is written beside the tile: right of each row of accesses, or under each column
/// of accesses when they lie side by side; a summary line follows.
///
/// # Errors
/// A [`TileError`] for an element size other than 1, 2, 4, 8 or 16, too many cells, or an access
/// that [`conflicts`] refuses.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::{banks::Access, svg::bank_svg, tile::Tile};
/// let smem = Tile::new(cute_rs_layout::Layout::parse("(32,32):(32,1)").unwrap()).unwrap();
/// let svg = bank_svg(smem, 4, Some(&Access::column(32, (1, 1)).unwrap())).unwrap();
/// assert_eq!(svg.matches("data-conflicts=\"31\"").count(), 32);
/// assert_eq!(svg.matches("class=\"b7\"").count(), 32 + 1); // a column of bank 7, and the legend
/// ```
pub fn bank_svg(smem: Tile, element_bytes: i64, access: Option<&Access>) -> Result<String, TileError> {
    check_element_bytes(element_bytes)?;
    let counts = access.map(|a| conflicts(smem, element_bytes, a)).transpose()?;
    let (rows, cols) = (smem.rows(), smem.cols());
    let mut grid = Grid::new(rows, cols, 2, 1)?;

    let mut page = Page::new();
    page.title(&smem.to_string());
    let spans = if element_bytes > 4 {
        format!(" (the first of the {} banks an element spans)", element_bytes / 4)
    } else {
        String::new()
    };
    page.note(&format!(
        "{element_bytes}-byte elements, 32 banks of 4 bytes: bank = floor(offset*{element_bytes}/4) mod 32{spans}, in each cell"
    ));
    if let Some(a) = access {
        let per_thread = a.values().0 * a.values().1 * element_bytes;
        page.note(&format!(
            "access (outlined): {a}, {per_thread} B a thread, phases of {} threads",
            threads_per_phase(per_thread)
        ));
    }
    page.gap(6.0);
    for b in 0..BANKS {
        page.c.style(&format!(".b{b}{{fill:{}}}", bank_colour(b).hex()));
    }
    page.c.style(".acc{fill:none;stroke:#000}\n.conflicts text{font-weight:bold}\n.ok{fill:#1a7f37}\n.bad{fill:#c62828}");
    grid.place(MARGIN, page.y);
    let mut cells = Vec::with_capacity((rows * cols) as usize);
    for m in 0..rows {
        for n in 0..cols {
            let b = bank_of_element(smem.offset(m, n), element_bytes);
            cells.push(Cell { class: format!("b{b}"), label: vec![b.to_string()], dark: bank_colour(b).is_dark() });
        }
    }
    grid.draw(&mut page.c, &cells);
    page.reach(grid.x + grid.width());
    page.y = grid.y + grid.height() + 12.0;
    if let (Some(a), Some(counts)) = (access, &counts) {
        draw_accesses(&mut page, &grid, a, counts);
    }
    if grid.font.is_none() {
        page.note("cells too small for their labels: the colour gives the bank");
    }
    let entries: Vec<(String, String)> = (0..BANKS).map(|b| (format!("b{b}"), b.to_string())).collect();
    page.swatches("bank", &entries);
    Ok(page.finish())
}

/// Outlines each access, writes its conflicts beside the tile, and sums them up in a note.
fn draw_accesses(page: &mut Page, grid: &Grid, access: &Access, counts: &[AccessCount]) {
    let (em, en) = access.extent();
    let (down, across) = (grid.rows / em, grid.cols / en);
    let s = grid.cell;
    let stroke = if s >= 8.0 { 2.0 } else { 1.0 };
    page.c.open("accesses", grid.x, grid.y, &format!("stroke-width=\"{stroke}\""));
    for c in counts {
        let extra = format!("data-conflicts=\"{}\" data-wavefronts=\"{}\"", c.conflicts(), c.wavefronts);
        let (x, y) = (c.origin.1 as f64 * s, c.origin.0 as f64 * s);
        page.c.rect(x, y, en as f64 * s, em as f64 * s, "acc", &extra);
    }
    page.c.close();

    // One entry per row of accesses (right of the tile) or per column of them (under it),
    // whichever there are more of, so that the numbers have room.
    let beside = across <= down;
    let lines = if beside { down } else { across };
    let line_of = |c: &AccessCount| if beside { c.origin.0 / em } else { c.origin.1 / en };
    let texts: Vec<(String, bool)> = (0..lines)
        .map(|i| {
            let line: Vec<i64> = counts.iter().filter(|c| line_of(c) == i).map(AccessCount::conflicts).collect();
            let max = line.iter().copied().max().unwrap_or(0);
            let text = if line.iter().all(|c| *c == max) {
                max.to_string()
            } else if line.len() <= 4 {
                line.iter().map(i64::to_string).collect::<Vec<_>>().join(" ")
            } else {
                format!("max {max}")
            };
            (text, max > 0)
        })
        .collect();
    let widest = texts.iter().map(|(t, _)| t.len()).max().unwrap_or(1);
    let room = if beside { em as f64 * s } else { en as f64 * s };
    let font = (TEXT_FONT + 1.0).min(room * 0.9).min(if beside { f64::MAX } else { (room - 2.0) / text_width(&"0".repeat(widest), 1.0) });
    if font >= MIN_LABEL_FONT {
        let (x, y) = if beside { (grid.x + grid.width() + 8.0, grid.y) } else { (grid.x, grid.y + grid.height() + 4.0) };
        let anchor = if beside { "start" } else { "middle" };
        page.c.open("conflicts", x, y, &format!("font-size=\"{}\" text-anchor=\"{anchor}\"", num(font)));
        for (i, (text, bad)) in texts.iter().enumerate() {
            let class = if *bad { "bad" } else { "ok" };
            let mid = (i as f64 + 0.5) * room;
            if beside {
                page.c.text(0.0, mid + MIDLINE * font, class, text);
            } else {
                page.c.text(mid, font, class, text);
            }
        }
        if beside {
            page.c.text(0.0, -5.0, "", "conflicts");
        }
        page.c.close();
        if beside {
            let w = text_width(&"0".repeat(widest.max("conflicts".len())), font.max(TEXT_FONT));
            page.reach(x + w);
        } else {
            page.y += font + 6.0;
        }
        page.note(if beside {
            "right of each row of accesses: the conflicts of its accesses (one number when all are alike)"
        } else {
            "under each column of accesses: the conflicts of its accesses (one number when all are alike)"
        });
    }
    let total: i64 = counts.iter().map(AccessCount::conflicts).sum();
    let (lo, hi) = counts.iter().map(AccessCount::conflicts).fold((i64::MAX, i64::MIN), |(a, b), c| (a.min(c), b.max(c)));
    let per = if lo == hi { format!("{hi} each") } else { format!("{lo} to {hi}, {total} in all") };
    page.note(&format!("{} accesses; bank conflicts (extra wavefronts) per access: {per}", counts.len()));
    page.gap(4.0);
}
