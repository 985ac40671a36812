//! The SVG pictures (`cute_rs_layout_cli::svg`, `layout svg`): well-formed XML, one cell per element, each
//! cell's label and colour class what the layout algebra gives, bank conflicts equal to a direct
//! count, and the README's pictures equal to what their commands make now.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use cute_rs_layout_cli::banks::Access;
use cute_rs_layout_cli::expr::{eval, Value};
use cute_rs_layout_cli::svg::{bank_svg, layout_svg, tv_svg};
use cute_rs_layout_cli::tile::Tile;
use cute_rs_layout::Layout;

// ---------------------------------------------------------------------------------------------
// A small XML reader: enough of XML 1.0 to check that a document is well-formed (one root, tags
// nested and matched, attributes quoted and not repeated, only the five named entities and
// character references) and to walk its elements.

#[derive(Debug)]
struct Element {
    name: String,
    attrs: BTreeMap<String, String>,
    children: Vec<Node>,
}

#[derive(Debug)]
enum Node {
    Element(Element),
    Text(String),
}

struct Reader<'a> {
    s: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.s[self.pos..]
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        let line = self.s[..self.pos].matches('\n').count() + 1;
        Err(format!("line {line}: {what}, at `{}`", self.rest().chars().take(40).collect::<String>()))
    }

    fn skip_ws(&mut self) {
        while self.rest().starts_with(|c: char| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let n = self.rest().find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))).unwrap_or(0);
        if n == 0 || self.rest().starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            return self.fail("expected a name");
        }
        let name = self.rest()[..n].to_string();
        self.pos += n;
        Ok(name)
    }

    /// Text with its references resolved; `<` and a bare `&` are errors.
    fn unescape(&self, raw: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = raw;
        while let Some(i) = rest.find(['&', '<']) {
            out.push_str(&rest[..i]);
            if rest[i..].starts_with('<') {
                return self.fail("`<` in text or an attribute");
            }
            let end = rest[i..].find(';').ok_or_else(|| format!("unterminated reference in {raw:?}"))?;
            let entity = &rest[i + 1..i + end];
            out.push(match entity {
                "lt" => '<',
                "gt" => '>',
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                e if e.starts_with("#x") => u32::from_str_radix(&e[2..], 16).ok().and_then(char::from_u32).ok_or("bad reference")?,
                e if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32).ok_or("bad reference")?,
                e => return self.fail(&format!("unknown entity &{e};")),
            });
            rest = &rest[i + end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn element(&mut self) -> Result<Element, String> {
        if !self.rest().starts_with('<') {
            return self.fail("expected `<`");
        }
        self.pos += 1;
        let name = self.name()?;
        let mut attrs = BTreeMap::new();
        loop {
            let before = self.pos;
            self.skip_ws();
            if self.rest().starts_with("/>") {
                self.pos += 2;
                return Ok(Element { name, attrs, children: vec![] });
            }
            if self.rest().starts_with('>') {
                self.pos += 1;
                break;
            }
            if self.pos == before {
                return self.fail("expected white space before an attribute");
            }
            let key = self.name()?;
            self.skip_ws();
            if !self.rest().starts_with('=') {
                return self.fail("expected `=`");
            }
            self.pos += 1;
            self.skip_ws();
            let quote = self.rest().chars().next().filter(|c| *c == '"' || *c == '\'');
            let Some(q) = quote else { return self.fail("attribute value not quoted") };
            let end = self.rest()[1..].find(q).ok_or("unterminated attribute value")?;
            let value = self.unescape(&self.rest()[1..1 + end])?;
            self.pos += end + 2;
            if attrs.insert(key.clone(), value).is_some() {
                return self.fail(&format!("attribute {key} repeated"));
            }
        }
        let mut children = Vec::new();
        loop {
            if self.rest().starts_with("</") {
                self.pos += 2;
                let close = self.name()?;
                self.skip_ws();
                if close != name || !self.rest().starts_with('>') {
                    return self.fail(&format!("</{close}> closes <{name}>"));
                }
                self.pos += 1;
                return Ok(Element { name, attrs, children });
            }
            if self.rest().starts_with('<') {
                children.push(Node::Element(self.element()?));
            } else if self.rest().is_empty() {
                return self.fail(&format!("<{name}> is never closed"));
            } else {
                let n = self.rest().find('<').unwrap_or(self.rest().len());
                let text = self.unescape(&self.rest()[..n])?;
                self.pos += n;
                children.push(Node::Text(text));
            }
        }
    }
}

/// The root element of a well-formed document, or what makes it ill-formed.
fn parse_xml(s: &str) -> Result<Element, String> {
    let mut r = Reader { s, pos: 0 };
    r.skip_ws();
    let root = r.element()?;
    r.skip_ws();
    if !r.rest().is_empty() {
        return r.fail("content after the root element");
    }
    Ok(root)
}

#[test]
fn the_xml_reader_rejects_ill_formed_documents() {
    assert!(parse_xml("<a x=\"1\"><b/>t &lt; u</a>").is_ok());
    for bad in ["<a>", "<a></b>", "<a x=1/>", "<a x=\"1\" x=\"2\"/>", "<a>&nope;</a>", "<a>x < y</a>", "<a/><b/>", "<a>&</a>"] {
        assert!(parse_xml(bad).is_err(), "{bad} was accepted");
    }
}

impl Element {
    fn attr(&self, key: &str) -> &str {
        self.attrs.get(key).map(String::as_str).unwrap_or_else(|| panic!("<{}> has no {key}", self.name))
    }

    fn num(&self, key: &str) -> f64 {
        self.attr(key).parse().unwrap_or_else(|_| panic!("{key}={} is no number", self.attr(key)))
    }

    fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|c| match c {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// Every text under this element, joined.
    fn text(&self) -> String {
        self.children
            .iter()
            .map(|c| match c {
                Node::Element(e) => e.text(),
                Node::Text(t) => t.clone(),
            })
            .collect()
    }

    /// The groups `<g class="...">` anywhere below.
    fn groups<'a>(&'a self, class: &str, out: &mut Vec<&'a Element>) {
        for e in self.elements() {
            if e.name == "g" && e.attrs.get("class").map(String::as_str) == Some(class) {
                out.push(e);
            }
            e.groups(class, out);
        }
    }

    fn group(&self, class: &str) -> Option<&Element> {
        let mut v = Vec::new();
        self.groups(class, &mut v);
        assert!(v.len() <= 1, "{} groups of class {class}", v.len());
        v.first().copied()
    }
}

/// A picture's cells: `(row, column) -> (colour class, label)`, the label `None` where none is drawn.
type Cells = BTreeMap<(i64, i64), (String, Option<String>)>;

/// A picture as its cells, and its root element. Checks that the document is well-formed, that
/// every cell is on the grid, drawn once, and has at most one label.
fn read_cells(svg: &str) -> (Cells, Element) {
    let root = parse_xml(svg).unwrap_or_else(|e| panic!("ill-formed SVG: {e}"));
    assert_eq!(root.name, "svg");
    assert_eq!(root.attr("xmlns"), "http://www.w3.org/2000/svg");
    let group = root.group("cells").expect("a group of cells");
    let side = group.num("data-cell");
    let mut out = BTreeMap::new();
    for r in group.elements() {
        assert_eq!(r.name, "rect");
        assert_eq!((r.num("width"), r.num("height")), (side, side));
        let (m, n) = ((r.num("y") / side) as i64, (r.num("x") / side) as i64);
        assert_eq!((r.num("y"), r.num("x")), (m as f64 * side, n as f64 * side), "a cell off the grid");
        let old = out.insert((m, n), (r.attr("class").to_string(), None));
        assert!(old.is_none(), "cell ({m},{n}) drawn twice");
    }
    let (rows, cols) = (group.num("data-rows") as i64, group.num("data-cols") as i64);
    assert_eq!(out.len() as i64, rows * cols);
    if let Some(labels) = root.group("labels") {
        for t in labels.elements() {
            let (m, n) = ((t.num("y") / side).floor() as i64, (t.num("x") / side).floor() as i64);
            let cell = out.get_mut(&(m, n)).unwrap_or_else(|| panic!("a label outside the cells at ({m},{n})"));
            assert!(cell.1.replace(t.text()).is_none(), "two labels in cell ({m},{n})");
        }
    }
    (out, root)
}

fn layout(text: &str) -> Layout {
    Layout::parse(text).unwrap()
}

/// A tile from an expression of the `layout` tool (a layout or a swizzled layout).
fn tile(expr: &str) -> Tile {
    match eval(expr).unwrap() {
        Value::Layout(l) => Tile::new(l).unwrap(),
        Value::Swizzled(s) => Tile::swizzled(s).unwrap(),
        other => panic!("not a layout: {other}"),
    }
}

/// `(rows, cols)` and the offset of each cell, computed from the algebra directly: row `m`, column
/// `n` is the layout at the 1-D coordinate `m + n * size(mode 0)`, swizzled.
fn offsets(expr: &str) -> (i64, i64, BTreeMap<(i64, i64), i64>) {
    let (l, swizzle) = match eval(expr).unwrap() {
        Value::Layout(l) => (l, None),
        Value::Swizzled(s) => (s.layout(), Some(s)),
        other => panic!("not a layout: {other}"),
    };
    let rows = if l.rank() == 2 && !l.is_int() { l.mode(0).unwrap().size() } else { l.size() };
    let cols = l.size() / rows;
    let mut out = BTreeMap::new();
    for m in 0..rows {
        for n in 0..cols {
            let i = m + n * rows;
            out.insert((m, n), swizzle.map_or(l.call(i), |s| s.call(i)));
        }
    }
    (rows, cols, out)
}

// ---------------------------------------------------------------------------------------------

#[test]
fn a_layout_picture_has_one_cell_per_element_labelled_and_coloured_by_index() {
    for expr in [
        "(2,3):(3,1)",
        "((2,2),3):((24,2),8)",
        "(4,(2,4)):(2,(1,8))",
        "12:3",
        "(3,4):(-4,1)",
        "(4,4):(0,1)",
        "swizzle(2,0,2,(4,4):(4,1))",
        "blocked_product((4,2):(2,1), (2,4):(1,2))",
        "(100,3):(3,1)",
    ] {
        let (rows, cols, want) = offsets(expr);
        let (cells, _) = read_cells(&layout_svg(tile(expr)).unwrap());
        assert_eq!(cells.len() as i64, rows * cols, "{expr}");
        let (lo, hi) = (*want.values().min().unwrap(), *want.values().max().unwrap());
        let classes = (hi - lo + 1).min(64);
        // Cells of up to 32 a side have room for their labels; larger ones may drop them all.
        let labelled = cells.values().filter(|c| c.1.is_some()).count();
        assert!(labelled == cells.len() || (labelled == 0 && rows.max(cols) > 32), "{expr}: {labelled} labels");
        for ((m, n), (class, label)) in &cells {
            let index = want[&(*m, *n)];
            if labelled > 0 {
                assert_eq!(label.as_deref(), Some(index.to_string().as_str()), "{expr} ({m},{n})");
            }
            // The documented scale: (hi - lo + 1) indices cut into min(64, ...) equal classes.
            assert_eq!(class, &format!("k{}", (index - lo) * classes / (hi - lo + 1)), "{expr} ({m},{n})");
        }
    }
}

#[test]
fn the_index_scale_is_ordered_and_uses_every_class() {
    let (cells, _) = read_cells(&layout_svg(tile("(16,16):(16,1)")).unwrap());
    let class_of = |i: i64| cells[&(i / 16, i % 16)].0[1..].parse::<i64>().unwrap();
    let all: Vec<i64> = (0..256).map(class_of).collect();
    assert!(all.windows(2).all(|w| w[0] <= w[1]), "classes not ordered by index");
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), 64);
}

/// The owner of each cell of an `M x N` tile under a TV layout, by a direct walk: every
/// `(thread, value)`, lowest thread first, claims the cell `i mod M, i / M` of `i = tv(t, v)`.
fn tv_owners(tv: &str, (m_, n_): (i64, i64)) -> BTreeMap<(i64, i64), (i64, i64)> {
    let l = layout(tv);
    let threads = l.mode(0).unwrap().size();
    let values = l.mode(1).unwrap().size();
    let mut out = BTreeMap::new();
    for t in 0..threads {
        for v in 0..values {
            let i = cute_rs_layout::crd2idx(cute_rs_layout::IntTuple::parse(&format!("({t},{v})")).unwrap(), l).unwrap();
            assert!(i < m_ * n_);
            out.entry((i % m_, i / m_)).or_insert((t, v));
        }
    }
    out
}

#[test]
fn a_tv_picture_labels_each_cell_with_its_thread_and_value() {
    for (tv, tile_mn) in [
        // SM80 16x8 MMA, C fragment.
        ("((4,8),(2,2)):((32,1),(16,8))", (16, 8)),
        // SM80 16x8x16 MMA, A fragment (16x16).
        ("((4,8),(2,2,2)):((32,1),(16,8,128))", (16, 16)),
        // A tiled copy: 32x4 threads, 4 values down each column.
        ("((32,4),4):((4,512),1)", (128, 16)),
        // Broadcast: two threads share their values; and a tile with cells no one holds.
        ("((2,2),2):((0,2),1)", (2, 4)),
        ("(4,2):(1,8)", (8, 2)),
    ] {
        let want = tv_owners(tv, tile_mn);
        let (cells, _) = read_cells(&tv_svg(layout(tv), tile_mn).unwrap());
        assert_eq!(cells.len() as i64, tile_mn.0 * tile_mn.1, "{tv}");
        let labelled = tile_mn.0.max(tile_mn.1) <= 32;
        for ((m, n), (class, label)) in &cells {
            match want.get(&(*m, *n)) {
                Some((t, v)) => {
                    assert_eq!(class, &format!("t{t}"), "{tv} ({m},{n})");
                    let expected = labelled.then(|| format!("T{t}V{v}"));
                    assert_eq!(label, &expected, "{tv} ({m},{n})");
                }
                None => assert_eq!((class.as_str(), label), ("e", &None), "{tv} ({m},{n})"),
            }
        }
    }
}

#[test]
fn a_bank_picture_colours_each_cell_by_its_bank() {
    for (expr, bytes) in [
        ("(32,32):(32,1)", 4),
        ("(32,32):(33,1)", 4),
        ("swizzle(3,3,3,(8,64):(64,1))", 2),
        ("swizzle(3,4,3,(8,128):(128,1))", 1),
        ("swizzle(2,4,3,(16,64):(64,1))", 2),
        ("(8,16):(16,1)", 8),
        ("(8,8):(1,8)", 16),
    ] {
        let (rows, cols, want) = offsets(expr);
        let (cells, _) = read_cells(&bank_svg(tile(expr), bytes, None).unwrap());
        assert_eq!(cells.len() as i64, rows * cols, "{expr}");
        for ((m, n), (class, label)) in &cells {
            let bank = (want[&(*m, *n)] * bytes / 4) % 32;
            assert_eq!(class, &format!("b{bank}"), "{expr} ({m},{n})");
            assert_eq!(label.as_deref(), Some(bank.to_string().as_str()), "{expr} ({m},{n})");
        }
    }
}

/// The bank conflicts of each access, by a direct count: every byte each thread reads, as the words
/// of each phase (128 bytes' worth of threads); a phase takes as many wavefronts as the bank with
/// the most distinct words; conflicts are wavefronts beyond one per phase.
fn direct_conflicts(expr: &str, bytes: i64, threads: &str, values: (i64, i64)) -> BTreeMap<(i64, i64), i64> {
    let (rows, cols, offset) = offsets(expr);
    let thr = layout(threads);
    let (tm, tn) = if thr.rank() == 2 && !thr.is_int() { (thr.mode(0).unwrap().size(), thr.mode(1).unwrap().size()) } else { (thr.size(), 1) };
    let (am, an) = (tm * values.0, tn * values.1);
    let per_thread = values.0 * values.1 * bytes;
    let phase_threads = 128 / per_thread.max(4);
    let mut out = BTreeMap::new();
    for r0 in (0..rows).step_by(am as usize) {
        for c0 in (0..cols).step_by(an as usize) {
            let mut words_of_phase: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
            for i in 0..tm {
                for j in 0..tn {
                    let t = thr.call(i + j * tm);
                    for a in 0..values.0 {
                        for b in 0..values.1 {
                            let o = offset[&(r0 + i * values.0 + a, c0 + j * values.1 + b)];
                            for byte in o * bytes..(o + 1) * bytes {
                                words_of_phase.entry(t / phase_threads).or_default().insert(byte / 4);
                            }
                        }
                    }
                }
            }
            let wavefronts: i64 = words_of_phase
                .values()
                .map(|words| (0..32).map(|bank| words.iter().filter(|w| *w % 32 == bank).count() as i64).max().unwrap())
                .sum();
            out.insert((r0, c0), wavefronts - words_of_phase.len() as i64);
        }
    }
    out
}

/// The conflicts the picture gives each access, by the access's top-left cell.
fn shown_conflicts(root: &Element) -> BTreeMap<(i64, i64), i64> {
    let side = root.group("cells").unwrap().num("data-cell");
    root.group("accesses")
        .expect("a group of accesses")
        .elements()
        .map(|r| (((r.num("y") / side) as i64, (r.num("x") / side) as i64), r.attr("data-conflicts").parse().unwrap()))
        .collect()
}

#[test]
fn bank_conflicts_equal_a_direct_count() {
    // (tile, element bytes, thread layout, values per thread, the conflicts every access has if
    // known by hand)
    type Case = (&'static str, i64, &'static str, (i64, i64), Option<i64>);
    let cases: &[Case] = &[
        // No swizzle: a column of floats is one bank (32-way), a row is every bank.
        ("(32,32):(32,1)", 4, "(32,1):(1,0)", (1, 1), Some(31)),
        ("(32,32):(32,1)", 4, "(1,32):(0,1)", (1, 1), Some(0)),
        ("(32,32):(1,32)", 4, "(1,32):(0,1)", (1, 1), Some(31)),
        // Padded rows: one float (or 16 bytes) more per row spreads a column over the banks.
        ("(32,32):(33,1)", 4, "(32,1):(1,0)", (1, 1), Some(0)),
        ("(8,64):(72,1)", 2, "(8,1):(1,0)", (1, 8), Some(0)),
        ("(8,64):(64,1)", 2, "(8,1):(1,0)", (1, 8), Some(7)),
        // Sw<3,4,3> on 128-byte rows of bytes (Hopper's 128B swizzle): 16-byte reads down a column.
        ("swizzle(3,4,3,(8,128):(128,1))", 1, "(8,1):(1,0)", (1, 16), Some(0)),
        ("(8,128):(128,1)", 1, "(8,1):(1,0)", (1, 16), Some(7)),
        ("swizzle(3,4,3,(16,128):(128,1))", 1, "(4,8):(8,1)", (1, 16), Some(0)),
        // Its half and float versions.
        ("swizzle(3,3,3,(8,64):(64,1))", 2, "(8,1):(1,0)", (1, 8), Some(0)),
        ("swizzle(3,2,3,(8,32):(32,1))", 4, "(8,1):(1,0)", (1, 4), Some(0)),
        // Sw<2,4,3>: only 4 of the 8 16-byte columns are permuted; pairs of rows still collide.
        ("swizzle(2,4,3,(8,64):(64,1))", 2, "(8,1):(1,0)", (1, 8), Some(1)),
        ("swizzle(2,4,3,(16,64):(64,1))", 2, "(16,2):(1,16)", (1, 2), None),
        ("swizzle(2,4,3,(32,32):(32,1))", 4, "(32,1):(1,0)", (1, 1), None),
        // Scalar 2-byte reads: two threads share each word (a broadcast, no conflict).
        ("(16,64):(64,1)", 2, "(1,32):(0,1)", (1, 1), Some(0)),
        ("swizzle(3,3,3,(32,64):(64,1))", 2, "(32,1):(1,0)", (1, 1), None),
        // 8-byte reads: half-warp phases.
        ("(32,16):(16,1)", 8, "(32,1):(1,0)", (1, 1), Some(30)),
        ("(32,32):(32,1)", 4, "(16,2):(2,1)", (1, 2), None),
    ];
    for &(expr, bytes, threads, values, known) in cases {
        let access = Access::new(layout(threads), values).unwrap();
        let svg = bank_svg(tile(expr), bytes, Some(&access)).unwrap();
        let (_, root) = read_cells(&svg);
        let shown = shown_conflicts(&root);
        let direct = direct_conflicts(expr, bytes, threads, values);
        assert_eq!(shown, direct, "{expr}, {bytes} B, threads {threads}, values {values:?}");
        if let Some(k) = known {
            assert!(direct.values().all(|c| *c == k), "{expr}: {direct:?}, expected {k} each");
        }
        // The numbers beside the picture are those counts, one line of accesses each.
        if let Some(strip) = root.group("conflicts") {
            let shown_text: Vec<String> = strip.elements().map(Element::text).filter(|t| t != "conflicts").collect();
            let total: i64 = direct.values().sum();
            let all_text = shown_text.join(" ");
            assert!(!shown_text.is_empty());
            if total == 0 {
                assert!(all_text.split(' ').all(|w| w == "0" || w == "max"), "{expr}: {all_text}");
            } else {
                assert!(all_text.contains(&direct.values().max().unwrap().to_string()), "{expr}: {all_text}");
            }
        }
    }
}

#[test]
fn the_conflict_numbers_stand_beside_each_row_or_under_each_column_of_accesses() {
    // A column read: 32 accesses side by side, one number under each column.
    let svg = bank_svg(tile("(32,32):(32,1)"), 4, Some(&Access::column(32, (1, 1)).unwrap())).unwrap();
    let (_, root) = read_cells(&svg);
    let strip = root.group("conflicts").unwrap();
    let texts: Vec<String> = strip.elements().map(Element::text).collect();
    assert_eq!(texts, vec!["31".to_string(); 32]);
    assert!(svg.contains("32 accesses; bank conflicts (extra wavefronts) per access: 31 each"));
    // A row read of 64 floats a row: two accesses a row, right of the row; alike, so one number.
    let svg = bank_svg(tile("(8,64):(64,1)"), 4, Some(&Access::row(32, (1, 1)).unwrap())).unwrap();
    let (_, root) = read_cells(&svg);
    let texts: Vec<String> = root.group("conflicts").unwrap().elements().map(Element::text).collect();
    assert_eq!(texts[..8], vec!["0".to_string(); 8]);
    assert_eq!(texts[8], "conflicts");
    // Rows ((3,2)):((32,100)) read by pairs of threads down a column: rows 0,1 (offsets 0, 32)
    // share bank 0, rows 2,3 (64, 100) do not, rows 4,5 (132, 164) share bank 4. Unlike
    // numbers are each written, in order down the column.
    let pairs = Access::new(layout("(2,1):(1,0)"), (1, 1)).unwrap();
    let svg = bank_svg(tile("((3,2),32):((32,100),1)"), 4, Some(&pairs)).unwrap();
    let (_, root) = read_cells(&svg);
    let texts: Vec<String> = root.group("conflicts").unwrap().elements().map(Element::text).collect();
    assert_eq!(texts, vec!["1 0 1".to_string(); 32]);
}

#[test]
fn bad_input_is_refused_with_the_violated_condition() {
    let err = |r: Result<String, cute_rs_layout_cli::tile::TileError>| r.unwrap_err().to_string();
    assert!(Tile::new(layout("(2,2,2):(1,2,4)")).unwrap_err().to_string().contains("rank 1 or 2"));
    assert!(err(tv_svg(layout("8:1"), (2, 4))).contains("must have rank 2 (thread, value), found rank 1"));
    assert!(err(tv_svg(layout("(4,2):(1,4)"), (2, 2))).contains("maps T0V1 to index 4, outside the (2,2) tile"));
    assert!(err(tv_svg(layout("(4,2):(1,4)"), (0, 2))).contains("at least one row and one column"));
    assert!(err(bank_svg(tile("(8,8):(8,1)"), 3, None)).contains("element size must be 1, 2, 4, 8 or 16 bytes, found 3"));
    let across = Access::row(32, (1, 1)).unwrap();
    assert!(err(bank_svg(tile("(8,48):(48,1)"), 4, Some(&across))).contains("extent (1,32) must divide the tile (8,48)"));
    let wide = Access::row(8, (1, 8)).unwrap();
    assert!(err(bank_svg(tile("(8,64):(64,1)"), 4, Some(&wide))).contains("= 32 bytes; one load must read 1, 2, 4, 8 or 16"));
    assert!(Access::new(layout("(8,8):(8,1)"), (1, 1)).unwrap_err().to_string().contains("at most 32 threads, found 64"));
    assert!(Access::new(layout("(4,2):(1,2)"), (1, 1)).unwrap_err().to_string().contains("thread 2 is at (2,0) and at (0,1)"));
    assert!(err(layout_svg(tile("(1024,1024):(1,1024)"))).contains("at most 262144 cells"));
}

#[test]
fn large_layouts_drop_labels_but_keep_the_legend() {
    let svg = layout_svg(tile("(256,256):(256,1)")).unwrap();
    let (cells, root) = read_cells(&svg);
    assert_eq!(cells.len(), 65536);
    assert!(root.group("labels").is_none(), "labels of a 256x256 layout");
    let legend = root.group("legend").expect("a legend");
    assert_eq!(legend.elements().filter(|e| e.name == "rect").count(), 64 + 1);
    assert!(root.num("width") <= 1700.0 && root.num("height") <= 1800.0, "{} x {}", root.attr("width"), root.attr("height"));
    // Coordinate numbers are thinned out, never overlapping: at least 11 pixels apart down the side.
    let heads = root.group("heads").unwrap();
    let rows: Vec<f64> = heads.elements().filter(|t| t.attr("class") == "r").map(|t| t.num("y")).collect();
    assert!(rows.windows(2).all(|w| w[1] - w[0] >= 11.0));
    // 32x32 still has labels, and they fit their cells.
    let (cells, root) = read_cells(&layout_svg(tile("(32,32):(32,1)")).unwrap());
    assert!(cells.values().all(|(_, l)| l.is_some()));
    let side = root.group("cells").unwrap().num("data-cell");
    let font = root.group("labels").unwrap().num("font-size");
    assert!(4.0 * 0.6 * font <= side - 3.0, "a 4-digit label of {font}px overflows a {side}px cell");
}

/// The `layout` tool's benchmark figure: the time to draw a 128x128 layout, and the file size.
/// Printed (`cargo test --test svg -- --nocapture`), not timed: a loaded machine must not fail it.
#[test]
fn benchmark_figure_for_a_128x128_layout() {
    let t = tile("(128,128):(1,128)");
    let start = Instant::now();
    let svg = layout_svg(t).unwrap();
    let took = start.elapsed();
    println!("128x128 layout: {:.1} ms, {} bytes ({:.2} MB)", took.as_secs_f64() * 1e3, svg.len(), svg.len() as f64 / 1e6);
    assert!(svg.len() < 2_000_000, "{} bytes", svg.len());
    let banks = bank_svg(tile("swizzle(3,2,3,(128,128):(128,1))"), 4, Some(&Access::column(32, (1, 1)).unwrap())).unwrap();
    assert!(banks.len() < 2_000_000, "{} bytes", banks.len());
}

// ---------------------------------------------------------------------------------------------
// The README's pictures: each `layout -- svg ... > docs/NAME.svg` command there is run with the
// `layout` tool, and its output must equal the committed file. `CUTE_RS_BLESS=1` rewrites them.

/// Splits a command line as the shell would for plain words and double-quoted ones.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

#[test]
fn the_readme_pictures_are_what_their_commands_make() {
    let root_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    let root = root_dir.as_path();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let commands: Vec<&str> = readme.lines().filter(|l| l.contains(" -- svg ") && l.contains("> docs/")).collect();
    assert_eq!(commands.len(), 3, "the README shows three pictures");
    let bless = std::env::var_os("CUTE_RS_BLESS").is_some();
    for line in commands {
        let (cmd, file) = line.split_once(" > ").unwrap();
        let args = shell_words(cmd.split_once(" -- ").unwrap().1);
        let out = Command::new(env!("CARGO_BIN_EXE_layout")).args(&args).output().unwrap();
        assert!(out.status.success(), "{cmd}: {}", String::from_utf8_lossy(&out.stderr));
        let made = String::from_utf8(out.stdout).unwrap();
        let file = root.join(file.trim());
        assert!(readme.contains(&format!("]({})", file.strip_prefix(root).unwrap().display())), "{} not shown", file.display());
        if bless {
            std::fs::write(&file, &made).unwrap();
        }
        let committed = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(committed == made, "{} differs from what `{cmd}` makes now (CUTE_RS_BLESS=1 rewrites it)", file.display());
        read_cells(&made);
    }
}

#[test]
fn the_tool_reports_usage_and_evaluation_errors() {
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_layout")).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, out, _) = run(&["svg", "(2,2):(1,2)"]);
    assert_eq!(code, Some(0));
    assert!(out.starts_with("<svg ") && out.ends_with("</svg>\n"));
    let (code, out, _) = run(&["svg", "--banks", "(8,32):(32,1)", "--read", "col", "--values", "(1,4)", "--bytes", "4"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("8 accesses; bank conflicts (extra wavefronts) per access: 7 each"), "{out}");
    let (code, _, err) = run(&["svg", "--tv", "(4,2):(2,1)"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--tv needs --tile"), "{err}");
    let (code, _, err) = run(&["svg", "--banks", "(8,8):(8,1)", "--read", "diagonal"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--read must be row or col, found diagonal"), "{err}");
    let (code, _, err) = run(&["svg", "--tile", "(2,2)", "(2,2):(1,2)"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--tile does not go with this picture"), "{err}");
    let (code, _, err) = run(&["svg", "complement((2,2):(1,1), 4)"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("complement"), "{err}");
    // Too large to draw or print: refused before anything is allocated.
    let (code, _, err) = run(&["svg", "4294967296:1"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("at most 262144 cells"), "{err}");
    let (code, _, err) = run(&["print", "(65536,65536):(1,65536)"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("print shows at most 262144 elements"), "{err}");
    // An empty value block is refused by name, whatever reads it (it once divided by zero).
    for read in [&["--read", "row"][..], &["--read", "col"], &["--threads", "(4,8):(8,1)"]] {
        let mut args = vec!["svg", "--banks", "(8,8):(8,1)", "--values", "(0,0)"];
        args.extend_from_slice(read);
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("a value block must be at least (1,1), found (0,0)"), "{args:?}: {err}");
    }
}
