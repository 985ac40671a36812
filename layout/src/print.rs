//! CuTe's `print_layout`: the index table of a rank-2 (or rank-1) layout.

use core::fmt;

use crate::layout::Layout;

/// The 2-D table of a layout, as CuTe's `print_layout` draws it: rows are coordinates of mode 0,
/// columns of mode 1, cells the indices. A rank-1 layout is one column. Use it with `{}`.
///
/// # Example
/// ```
/// use cute_rs_layout::{print_layout, Layout};
/// let table = print_layout(Layout::parse("(2,3):(3,1)").unwrap()).to_string();
/// assert_eq!(table, "\
/// (2,3):(3,1)
///       0   1   2
///     +---+---+---+
///  0  | 0 | 1 | 2 |
///     +---+---+---+
///  1  | 3 | 4 | 5 |
///     +---+---+---+
/// ");
/// ```
pub fn print_layout(layout: Layout) -> PrintLayout {
    PrintLayout { layout }
}

/// The table printer returned by [`print_layout`]; its `Display` draws the table.
///
/// # Example
/// ```
/// let p: cute_rs_layout::PrintLayout = cute_rs_layout::print_layout(cute_rs_layout::Layout::parse("4:1").unwrap());
/// assert!(p.to_string().contains(" 3  | 3 |"));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PrintLayout {
    layout: Layout,
}

fn digits(mut v: i64) -> usize {
    let mut n = if v < 0 { 2 } else { 1 };
    v = v.abs();
    while v >= 10 {
        v /= 10;
        n += 1;
    }
    n
}

impl fmt::Display for PrintLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = &self.layout;
        let (rows, cols) = if l.rank() >= 2 {
            (l.at(0).size(), l.size() / l.at(0).size())
        } else {
            (l.size(), 1)
        };
        let mut width = 1;
        for i in 0..l.size() {
            width = width.max(digits(l.call(i)));
        }
        writeln!(f, "{l}")?;
        let rule = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            f.write_str("    ")?;
            for _ in 0..cols {
                f.write_str("+")?;
                for _ in 0..width + 2 {
                    f.write_str("-")?;
                }
            }
            f.write_str("+\n")
        };
        f.write_str("    ")?;
        for n in 0..cols {
            let sep = if n + 1 < cols { " " } else { "" };
            write!(f, "  {n:>width$}{sep}")?;
        }
        f.write_str("\n")?;
        for m in 0..rows {
            rule(f)?;
            write!(f, "{m:>2}  ")?;
            for n in 0..cols {
                write!(f, "| {:>width$} ", l.call(m + n * rows))?;
            }
            f.write_str("|\n")?;
        }
        rule(f)
    }
}
