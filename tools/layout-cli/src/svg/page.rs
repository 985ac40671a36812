//! A picture's page: blocks stacked from the top (title, notes, the grid, legends), the page
//! growing to hold the widest, and the legends' swatches.

use super::canvas::{num, text_width, Canvas};

/// The white border around everything.
pub(crate) const MARGIN: f64 = 16.0;
const TITLE_FONT: f64 = 15.0;
pub(crate) const TEXT_FONT: f64 = 12.0;
const SWATCH: f64 = 14.0;

/// The canvas, the height used so far and the width needed so far.
pub(crate) struct Page {
    pub c: Canvas,
    /// The top of the next block.
    pub y: f64,
    width: f64,
}

impl Page {
    pub(crate) fn new() -> Page {
        let mut c = Canvas::new();
        c.style(&format!(".title{{font-size:{}px;font-weight:bold}}", num(TITLE_FONT)));
        c.style(&format!(".note{{font-size:{}px}}", num(TEXT_FONT)));
        Page { c, y: MARGIN, width: 0.0 }
    }

    /// Makes the page at least this wide (plus the margin).
    pub(crate) fn reach(&mut self, right: f64) {
        self.width = self.width.max(right);
    }

    /// The title line.
    pub(crate) fn title(&mut self, text: &str) {
        self.line(text, TITLE_FONT, "title");
        self.y += 2.0;
    }

    /// A line of explanation.
    pub(crate) fn note(&mut self, text: &str) {
        self.line(text, TEXT_FONT, "note");
    }

    fn line(&mut self, text: &str, font: f64, class: &str) {
        self.c.text(MARGIN, self.y + font, class, text);
        self.reach(MARGIN + text_width(text, font));
        self.y += font * 1.4;
    }

    /// Leaves `px` pixels of room.
    pub(crate) fn gap(&mut self, px: f64) {
        self.y += px;
    }

    /// A legend: a caption, then a swatch of each `(class, label)` with its label after it, as many
    /// to a row as fit in the page (at least 480 pixels wide).
    pub(crate) fn swatches(&mut self, caption: &str, entries: &[(String, String)]) {
        self.note(caption);
        let label_w = entries.iter().map(|(_, l)| text_width(l, TEXT_FONT)).fold(0.0, f64::max);
        let entry_w = SWATCH + 4.0 + label_w + 12.0;
        let room = (self.width - MARGIN).max(480.0);
        // As many rows as needed, then the entries spread evenly over them (no lone last entry).
        let most = ((room / entry_w).floor() as usize).max(1);
        let per_row = entries.len().div_ceil(entries.len().div_ceil(most).max(1)).max(1);
        self.c.open("legend", MARGIN, self.y + 2.0, "");
        for (i, (class, label)) in entries.iter().enumerate() {
            let (x, y) = ((i % per_row) as f64 * entry_w, (i / per_row) as f64 * (SWATCH + 6.0));
            self.c.rect(x, y, SWATCH, SWATCH, class, "stroke=\"#333\" stroke-width=\"0.5\"");
            self.c.text(x + SWATCH + 4.0, y + SWATCH / 2.0 + 0.35 * TEXT_FONT, "note", label);
        }
        self.c.close();
        let rows = entries.len().div_ceil(per_row);
        self.reach(MARGIN + per_row.min(entries.len()) as f64 * entry_w);
        self.y += rows as f64 * (SWATCH + 6.0) + 4.0;
    }

    /// A legend: a caption and a bar of the classes in order, labelled at both ends.
    pub(crate) fn colour_bar(&mut self, caption: &str, classes: &[String], low: &str, high: &str) {
        self.note(caption);
        let step = (256.0 / classes.len() as f64).max(4.0).floor();
        self.c.open("legend", MARGIN, self.y + 2.0, "");
        for (i, class) in classes.iter().enumerate() {
            self.c.rect(i as f64 * step, 0.0, step, SWATCH, class, "");
        }
        let w = step * classes.len() as f64;
        self.c.rect(0.0, 0.0, w, SWATCH, "", "fill=\"none\" stroke=\"#333\" stroke-width=\"0.5\"");
        let base = SWATCH + 4.0 + TEXT_FONT;
        self.c.text(0.0, base, "note", low);
        let high_x = (w - text_width(high, TEXT_FONT)).max(text_width(low, TEXT_FONT) + 12.0);
        self.c.text(high_x, base, "note", high);
        self.c.close();
        self.reach(MARGIN + w.max(text_width(low, TEXT_FONT) + text_width(high, TEXT_FONT) + 12.0));
        self.y += base + 8.0;
    }

    /// The document.
    pub(crate) fn finish(self) -> String {
        let (w, h) = (self.width + MARGIN, self.y + MARGIN);
        self.c.finish(w, h)
    }
}
