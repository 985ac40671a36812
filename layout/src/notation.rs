//! CuTe's notation: parsing (`const fn`) and printing, with no spaces: `((2,2),3):((24,2),8)`.
//!
//! A one-element tuple keeps its parentheses and differs from an integer: `(1):(1)` is not `1:1`.
//! A free mode (CuTe's `_`) is written `_`.

use core::fmt;

use crate::error::{tri, LayoutError};
use crate::int_tuple::{IntTuple, CLOSE, LEAF, MAX_TOKENS, OPEN, UNDERSCORE};
use crate::layout::Layout;

const fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && (b[pos] == b' ' || b[pos] == b'\t' || b[pos] == b'\n' || b[pos] == b'\r') {
        pos += 1;
    }
    pos
}

/// Parses one element (integer, `_` or tuple) at `pos`, `depth` tuples deep; returns it and the
/// position after it.
const fn parse_elem(b: &[u8], pos: usize, depth: usize) -> Result<(IntTuple, usize), LayoutError> {
    let mut pos = skip_ws(b, pos);
    if pos >= b.len() {
        return Err(LayoutError::Parse { pos, expected: "an integer, `_` or `(`" });
    }
    if b[pos] == b'(' {
        // Each level takes two nesting tokens, so no deeper tuple fits; stopping here also bounds
        // the recursion (and the stack) whatever the input.
        if depth >= MAX_TOKENS / 2 {
            return Err(LayoutError::Capacity { what: "nesting tokens", limit: MAX_TOKENS });
        }
        let mut t = IntTuple::empty();
        pos = skip_ws(b, pos + 1);
        if pos < b.len() && b[pos] == b')' {
            return Ok((t, pos + 1));
        }
        loop {
            let (child, next) = tri!(parse_elem(b, pos, depth + 1));
            t = tri!(t.push(child));
            pos = skip_ws(b, next);
            if pos >= b.len() {
                return Err(LayoutError::Parse { pos, expected: "`,` or `)`" });
            }
            if b[pos] == b')' {
                return Ok((t, pos + 1));
            }
            if b[pos] != b',' {
                return Err(LayoutError::Parse { pos, expected: "`,` or `)`" });
            }
            pos += 1;
        }
    }
    if b[pos] == b'_' {
        return Ok((IntTuple::int(UNDERSCORE), pos + 1));
    }
    let start = pos;
    let neg = b[pos] == b'-';
    if neg {
        pos += 1;
    }
    let mut v: i64 = 0;
    let digits_start = pos;
    while pos < b.len() && b[pos] >= b'0' && b[pos] <= b'9' {
        v = match v.checked_mul(10) {
            Some(x) => match x.checked_add((b[pos] - b'0') as i64) {
                Some(y) => y,
                None => return Err(LayoutError::Overflow { op: "parse" }),
            },
            None => return Err(LayoutError::Overflow { op: "parse" }),
        };
        pos += 1;
    }
    if pos == digits_start {
        return Err(LayoutError::Parse { pos: start, expected: "an integer, `_` or `(`" });
    }
    Ok((IntTuple::int(if neg { -v } else { v }), pos))
}

impl IntTuple {
    /// Parses CuTe notation: `4`, `(4,(2,3))`, `(1)`, `_`.
    ///
    /// # Errors
    /// [`LayoutError::Parse`] with the byte offset; [`LayoutError::Capacity`] for too large tuples.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::IntTuple;
    /// const T: IntTuple = cute_rs_layout::unwrap!(IntTuple::parse("(4,(2,3))"));
    /// assert_eq!(T.leaves(), &[4, 2, 3]);
    /// assert!(IntTuple::parse("(4,").is_err());
    /// ```
    pub const fn parse(s: &str) -> Result<IntTuple, LayoutError> {
        let b = s.as_bytes();
        let (t, pos) = tri!(parse_elem(b, 0, 0));
        let end = skip_ws(b, pos);
        if end != b.len() {
            return Err(LayoutError::Parse { pos: end, expected: "end of input" });
        }
        Ok(t)
    }
}

impl Layout {
    /// Parses a layout in CuTe notation, `shape:stride` (`((2,2),3):((24,2),8)`). A bare shape
    /// (`(4,8)`) is the compact column-major layout of that shape, like CuTe's `make_layout(shape)`.
    ///
    /// # Errors
    /// [`LayoutError::Parse`], and the errors of [`Layout::new`] (congruence, positive shapes).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// const L: Layout = cute_rs_layout::unwrap!(Layout::parse("(4,8,32):(256,1,8)"));
    /// assert_eq!(L.call(5), 257);
    /// assert_eq!(Layout::parse("(4,8)").unwrap().to_string(), "(4,8):(1,4)");
    /// assert!(Layout::parse("(4,8):(1)").is_err());
    /// ```
    pub const fn parse(s: &str) -> Result<Layout, LayoutError> {
        let b = s.as_bytes();
        let (shape, pos) = tri!(parse_elem(b, 0, 0));
        let pos = skip_ws(b, pos);
        if pos == b.len() {
            return crate::layout::make_layout_col_major(shape);
        }
        if b[pos] != b':' {
            return Err(LayoutError::Parse { pos, expected: "`:`" });
        }
        let (stride, pos) = tri!(parse_elem(b, pos + 1, 0));
        let end = skip_ws(b, pos);
        if end != b.len() {
            return Err(LayoutError::Parse { pos: end, expected: "end of input" });
        }
        Layout::new(shape, stride)
    }
}

impl fmt::Display for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let toks = self.tokens();
        let mut leaf = 0;
        for (i, &t) in toks.iter().enumerate() {
            // A comma separates an element from the one before it, unless that was an opening.
            if i > 0 && t != CLOSE && toks[i - 1] != OPEN {
                f.write_str(",")?;
            }
            match t {
                OPEN => f.write_str("(")?,
                CLOSE => f.write_str(")")?,
                LEAF => {
                    let v = self.leaf(leaf);
                    leaf += 1;
                    if v == UNDERSCORE {
                        f.write_str("_")?
                    } else {
                        write!(f, "{v}")?
                    }
                }
                _ => unreachable!("invalid token"),
            }
        }
        Ok(())
    }
}

impl fmt::Debug for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape(), self.stride())
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl core::str::FromStr for IntTuple {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        IntTuple::parse(s)
    }
}

impl core::str::FromStr for Layout {
    type Err = LayoutError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Layout::parse(s)
    }
}
