//! The SVG document: elements written straight into one `String`, numbers in their shortest form,
//! text escaped. The pictures build on it; nothing here knows about layouts.

use std::fmt::Write;

/// The font of every text: monospace, so that the width of a label is known from its length.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans Mono,Menlo,Consolas,monospace";

/// The width of one character of [`FONT_FAMILY`], as a fraction of the font size.
pub(crate) const CHAR_WIDTH: f64 = 0.6;

/// The width of `text` at font size `font`.
pub(crate) fn text_width(text: &str, font: f64) -> f64 {
    text.chars().count() as f64 * CHAR_WIDTH * font
}

/// A number as SVG wants it: at most two decimals, no trailing zeros (`12`, `12.5`, `0.33`).
pub(crate) fn num(v: f64) -> String {
    let r = (v * 100.0).round() / 100.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        let s = format!("{r:.2}");
        s.trim_end_matches('0').to_string()
    }
}

/// `text` with the five XML special characters escaped (titles hold `Sw<3,3,3>`).
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The body of an SVG document being written, and its style sheet.
pub(crate) struct Canvas {
    body: String,
    style: String,
}

impl Canvas {
    pub(crate) fn new() -> Canvas {
        Canvas { body: String::with_capacity(1 << 16), style: String::new() }
    }

    /// Adds a rule to the style sheet (`.k3{fill:#aabbcc}`).
    pub(crate) fn style(&mut self, rule: &str) {
        self.style.push_str(rule);
        self.style.push('\n');
    }

    /// `<rect>` of a class; `extra` is more attributes, written as given.
    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str, extra: &str) {
        let _ = write!(self.body, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"", num(x), num(y), num(w), num(h));
        if !class.is_empty() {
            let _ = write!(self.body, " class=\"{class}\"");
        }
        if !extra.is_empty() {
            self.body.push(' ');
            self.body.push_str(extra);
        }
        self.body.push_str("/>\n");
    }

    /// `<text>` at `(x, y)` (y is the baseline), of a class, its content escaped.
    pub(crate) fn text(&mut self, x: f64, y: f64, class: &str, content: &str) {
        let _ = write!(self.body, "<text x=\"{}\" y=\"{}\"", num(x), num(y));
        if !class.is_empty() {
            let _ = write!(self.body, " class=\"{class}\"");
        }
        let _ = writeln!(self.body, ">{}</text>", escape(content));
    }

    /// `<text>` of several lines, one `<tspan>` each, centred on `(x, y)`, `step` apart.
    pub(crate) fn text_lines(&mut self, x: f64, y: f64, step: f64, class: &str, lines: &[String]) {
        let _ = write!(self.body, "<text x=\"{}\" y=\"{}\"", num(x), num(y));
        if !class.is_empty() {
            let _ = write!(self.body, " class=\"{class}\"");
        }
        self.body.push('>');
        for (i, line) in lines.iter().enumerate() {
            let dy = if i == 0 { 0.0 } else { step };
            let _ = write!(self.body, "<tspan x=\"{}\" dy=\"{}\">{}</tspan>", num(x), num(dy), escape(line));
        }
        self.body.push_str("</text>\n");
    }

    /// `<path>` of a class with path data `d`.
    pub(crate) fn path(&mut self, class: &str, d: &str) {
        let _ = writeln!(self.body, "<path class=\"{class}\" d=\"{d}\"/>");
    }

    /// Opens `<g>` of a class, moved to `(x, y)`; `extra` is more attributes, written as given.
    pub(crate) fn open(&mut self, class: &str, x: f64, y: f64, extra: &str) {
        let _ = write!(self.body, "<g class=\"{class}\" transform=\"translate({},{})\"", num(x), num(y));
        if !extra.is_empty() {
            self.body.push(' ');
            self.body.push_str(extra);
        }
        self.body.push_str(">\n");
    }

    /// Closes the innermost `<g>`.
    pub(crate) fn close(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// The whole document, `width x height` pixels on a white background.
    pub(crate) fn finish(self, width: f64, height: f64) -> String {
        let (w, h) = (num(width.ceil()), num(height.ceil()));
        let mut out = String::with_capacity(self.body.len() + self.style.len() + 512);
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">"
        );
        let _ = writeln!(out, "<style>\ntext{{font-family:{FONT_FAMILY};fill:#111}}\n{}</style>", self.style);
        let _ = writeln!(out, "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>");
        out.push_str(&self.body);
        out.push_str("</svg>\n");
        out
    }
}
