//! Expressions over the layout algebra, written with CuTe's names: what the `layout` tool evaluates.
//!
//! `logical_divide((4,2,3):(2,1,8), 4:2)`, `composition((6,2):(8,2), [4:1, 3:2])`,
//! `complement(4:1, 24)`, `idx2crd(16, (3,(2,3)))`. A literal with a `:` is a layout; one without is
//! a tuple (a shape, coordinate, profile or order), which becomes the compact column-major layout
//! where a layout is needed, and a by-mode tiler of its modes where a tiler is (as in CuTe). `[..]`
//! is a by-mode tiler. Arguments may be nested calls.
//!
//! ```
//! use cute_rs_layout_cli::expr::eval;
//! let v = eval("zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])").unwrap();
//! assert_eq!(v.to_string(), "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))");
//! assert_eq!(eval("size(composition(20:2, (5,4):(4,1)))").unwrap().to_string(), "20");
//! ```

use std::fmt;

use cute_rs_layout::{IntTuple, Layout, LayoutError, Swizzle, SwizzledLayout};

/// A value of the expression language.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::expr::{eval, Value};
/// assert!(matches!(eval("size((4,2):(1,4))").unwrap(), Value::Num(8)));
/// assert!(matches!(eval("(4,2)").unwrap(), Value::Tuple(_)));
/// ```
#[derive(Clone, Debug)]
pub enum Value {
    /// An integer result (size, cosize, crd2idx, ...), printed as a JSON number.
    Num(i64),
    /// A tuple: shape, coordinate, profile or order.
    Tuple(IntTuple),
    /// A layout.
    Layout(Layout),
    /// A by-mode tiler `[l0, l1, ...]`.
    List(Vec<Value>),
    /// A swizzle `Sw<B,M,S>`.
    Swizzle(Swizzle),
    /// A swizzled layout.
    Swizzled(SwizzledLayout),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(n) => write!(f, "{n}"),
            Value::Tuple(t) => write!(f, "{t}"),
            Value::Layout(l) => write!(f, "{l}"),
            Value::Swizzle(s) => write!(f, "{s}"),
            Value::Swizzled(s) => write!(f, "{s}"),
            Value::List(v) => {
                f.write_str("[")?;
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// An error of the expression language: a layout error or a usage error.
///
/// # Example
/// ```
/// let e = cute_rs_layout_cli::expr::eval("nope(4:1)").unwrap_err();
/// assert!(e.to_string().starts_with("unknown operation `nope`"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError(pub String);

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ExprError {}

impl From<LayoutError> for ExprError {
    fn from(e: LayoutError) -> Self {
        ExprError(e.to_string())
    }
}

fn err<T>(msg: impl Into<String>) -> Result<T, ExprError> {
    Err(ExprError(msg.into()))
}

impl Value {
    /// Parses a literal: a layout if it has a `:`, else a tuple.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout_cli::expr::Value;
    /// assert!(matches!(Value::literal("(4,2):(1,4)").unwrap(), Value::Layout(_)));
    /// assert!(matches!(Value::literal("(4,2)").unwrap(), Value::Tuple(_)));
    /// ```
    pub fn literal(text: &str) -> Result<Value, ExprError> {
        if text.contains(':') {
            Ok(Value::Layout(Layout::parse(text)?))
        } else {
            Ok(Value::Tuple(IntTuple::parse(text)?))
        }
    }

    fn layout(&self, op: &str) -> Result<Layout, ExprError> {
        match self {
            Value::Layout(l) => Ok(*l),
            Value::Tuple(t) => Ok(cute_rs_layout::make_layout_col_major(*t)?),
            Value::Num(n) => Ok(cute_rs_layout::make_layout_col_major(IntTuple::int(*n))?),
            _ => err(format!("{op}: expected a layout, found {self}")),
        }
    }

    fn tuple(&self, op: &str) -> Result<IntTuple, ExprError> {
        match self {
            Value::Tuple(t) => Ok(*t),
            Value::Num(n) => Ok(IntTuple::int(*n)),
            _ => err(format!("{op}: expected a tuple, found {self}")),
        }
    }

    fn int(&self, op: &str) -> Result<i64, ExprError> {
        match self {
            // The wildcard is `i64::MIN` inside the algebra: as a number it would pass for one.
            Value::Tuple(t) if t.is_int() && t.value() == Ok(cute_rs_layout::UNDERSCORE) => {
                err(format!("{op}: expected an integer, found _"))
            }
            Value::Num(n) => Ok(*n),
            Value::Tuple(t) if t.is_int() => Ok(t.value()?),
            _ => err(format!("{op}: expected an integer, found {self}")),
        }
    }

    /// A right-hand side: a layout, or a by-mode tiler (a list, or a tuple's modes).
    fn tiler(&self, op: &str) -> Result<Tiler, ExprError> {
        match self {
            Value::List(v) => Ok(Tiler::ByMode(v.iter().map(|x| x.layout(op)).collect::<Result<_, _>>()?)),
            Value::Tuple(t) if !t.is_int() => Ok(Tiler::ByMode(
                (0..t.rank()).map(|i| Ok(cute_rs_layout::make_layout_col_major(t.mode(i)?)?)).collect::<Result<_, ExprError>>()?,
            )),
            _ => Ok(Tiler::Layout(self.layout(op)?)),
        }
    }
}

enum Tiler {
    Layout(Layout),
    ByMode(Vec<Layout>),
}

type Pair = (fn(Layout, Layout) -> Result<Layout, LayoutError>, fn(Layout, &[Layout]) -> Result<Layout, LayoutError>);

fn tiled_op(name: &str) -> Option<Pair> {
    Some(match name {
        "composition" => (cute_rs_layout::composition, cute_rs_layout::composition_by_mode),
        "logical_divide" => (cute_rs_layout::logical_divide, cute_rs_layout::logical_divide_by_mode),
        "zipped_divide" => (cute_rs_layout::zipped_divide, cute_rs_layout::zipped_divide_by_mode),
        "tiled_divide" => (cute_rs_layout::tiled_divide, cute_rs_layout::tiled_divide_by_mode),
        "flat_divide" => (cute_rs_layout::flat_divide, cute_rs_layout::flat_divide_by_mode),
        "logical_product" => (cute_rs_layout::logical_product, cute_rs_layout::logical_product_by_mode),
        "zipped_product" => (cute_rs_layout::zipped_product, cute_rs_layout::zipped_product_by_mode),
        "tiled_product" => (cute_rs_layout::tiled_product, cute_rs_layout::tiled_product_by_mode),
        "flat_product" => (cute_rs_layout::flat_product, cute_rs_layout::flat_product_by_mode),
        _ => return None,
    })
}

fn arity(op: &str, args: &[Value], min: usize, max: usize) -> Result<(), ExprError> {
    if args.len() < min || args.len() > max {
        let want = if min == max { format!("{min}") } else { format!("{min} to {max}") };
        return err(format!("{op}: expected {want} arguments, found {}", args.len()));
    }
    Ok(())
}

/// The names of the operations [`apply`] knows.
///
/// # Example
/// ```
/// assert!(cute_rs_layout_cli::expr::OPERATIONS.contains(&"logical_divide"));
/// ```
pub const OPERATIONS: &[&str] = &[
    "make_layout", "size", "cosize", "rank", "depth", "coalesce", "filter", "filter_zeros", "composition",
    "complement", "right_inverse", "left_inverse", "nullspace", "logical_divide", "zipped_divide", "tiled_divide",
    "flat_divide", "logical_product", "zipped_product", "tiled_product", "flat_product", "blocked_product",
    "raked_product", "tile_to_shape", "crd2idx", "idx2crd", "upcast", "downcast", "max_common_vector",
    "max_common_layout", "make_ordered_layout", "make_layout_like", "make_layout_row_major", "append", "prepend",
    "group", "select", "flatten", "transpose", "slice", "slice_and_offset", "swizzle", "congruent", "compatible",
    "weakly_congruent", "mode",
];

/// Applies the operation `op` to `args`.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::expr::{apply, Value};
/// let a = Value::literal("(4,2,3):(2,1,8)").unwrap();
/// let b = Value::literal("4:2").unwrap();
/// assert_eq!(apply("logical_divide", &[a, b]).unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// ```
pub fn apply(op: &str, args: &[Value]) -> Result<Value, ExprError> {
    use Value::*;
    let l = |i: usize| args[i].layout(op);
    let t = |i: usize| args[i].tuple(op);
    let n = |i: usize| args[i].int(op);
    if let Some((with_layout, with_modes)) = tiled_op(op) {
        arity(op, args, 2, 2)?;
        if let Swizzled(s) = &args[0] {
            if op == "composition" {
                return Ok(Swizzled(cute_rs_layout::compose_swizzled(*s, l(1)?)?));
            }
        }
        if let (Swizzle(s), true) = (&args[0], op == "composition") {
            return Ok(Swizzled(cute_rs_layout::make_swizzled(*s, l(1)?)));
        }
        return Ok(Layout(match args[1].tiler(op)? {
            Tiler::Layout(b) => with_layout(l(0)?, b)?,
            Tiler::ByMode(v) => with_modes(l(0)?, &v)?,
        }));
    }
    let one = |min, max| arity(op, args, min, max);
    Ok(match op {
        "make_layout" => {
            one(1, usize::MAX)?;
            // CuTe's make_layout(shape, stride) for two tuples; make_layout(l0, l1, ...) otherwise.
            if let [Tuple(shape), Tuple(stride)] = args {
                return Ok(Layout(cute_rs_layout::Layout::new(*shape, *stride)?));
            }
            if args.len() == 1 {
                Layout(l(0)?)
            } else {
                Layout(cute_rs_layout::make_layout(&args.iter().map(|a| a.layout(op)).collect::<Result<Vec<_>, _>>()?)?)
            }
        }
        "make_layout_row_major" => {
            one(1, 1)?;
            Layout(cute_rs_layout::make_layout_row_major(t(0)?)?)
        }
        "size" | "cosize" | "rank" | "depth" => {
            one(1, 1)?;
            if let Swizzled(s) = &args[0] {
                if op == "size" {
                    return Ok(Num(s.size()));
                }
            }
            let a = l(0)?;
            Num(match op {
                "size" => a.size(),
                "cosize" => a.cosize(),
                "rank" => a.rank() as i64,
                _ => a.depth() as i64,
            })
        }
        "coalesce" => {
            one(1, 2)?;
            if args.len() == 2 {
                Layout(cute_rs_layout::coalesce_by(l(0)?, t(1)?)?)
            } else {
                Layout(cute_rs_layout::coalesce(l(0)?))
            }
        }
        "filter" => {
            one(1, 1)?;
            Layout(cute_rs_layout::filter(l(0)?))
        }
        "filter_zeros" => {
            one(1, 1)?;
            Layout(cute_rs_layout::filter_zeros(l(0)?))
        }
        "complement" => {
            one(1, 2)?;
            if args.len() == 2 {
                Layout(cute_rs_layout::complement(l(0)?, n(1)?)?)
            } else {
                Layout(cute_rs_layout::complement_cosize(l(0)?)?)
            }
        }
        "right_inverse" => {
            one(1, 1)?;
            Layout(cute_rs_layout::right_inverse(l(0)?))
        }
        "left_inverse" => {
            one(1, 1)?;
            Layout(cute_rs_layout::left_inverse(l(0)?)?)
        }
        "nullspace" => {
            one(1, 1)?;
            Layout(cute_rs_layout::nullspace(l(0)?))
        }
        "blocked_product" | "raked_product" => {
            one(2, 2)?;
            let f = if op == "blocked_product" { cute_rs_layout::blocked_product } else { cute_rs_layout::raked_product };
            Layout(f(l(0)?, l(1)?)?)
        }
        "tile_to_shape" => {
            one(2, 3)?;
            let order = if args.len() == 3 { Some(t(2)?) } else { None };
            if let Swizzled(s) = &args[0] {
                let inner = cute_rs_layout::tile_to_shape(s.layout(), t(1)?, order)?;
                return Ok(Swizzled(SwizzledLayout::new(s.swizzle(), s.offset(), inner)));
            }
            Layout(cute_rs_layout::tile_to_shape(l(0)?, t(1)?, order)?)
        }
        "crd2idx" => {
            one(2, 2)?;
            Num(cute_rs_layout::crd2idx(t(0)?, l(1)?)?)
        }
        "idx2crd" => {
            one(2, 2)?;
            Tuple(cute_rs_layout::idx2crd(n(0)?, t(1)?)?)
        }
        "upcast" | "downcast" => {
            one(2, 2)?;
            let f = if op == "upcast" { cute_rs_layout::upcast } else { cute_rs_layout::downcast };
            Layout(f(l(0)?, n(1)?)?)
        }
        "max_common_vector" => {
            one(2, 2)?;
            Num(cute_rs_layout::max_common_vector(l(0)?, l(1)?)?)
        }
        "max_common_layout" => {
            one(2, 2)?;
            Layout(cute_rs_layout::max_common_layout(l(0)?, l(1)?)?)
        }
        "make_ordered_layout" => {
            one(2, 2)?;
            Layout(cute_rs_layout::make_ordered_layout(t(0)?, t(1)?)?)
        }
        "make_layout_like" => {
            one(1, 1)?;
            Layout(cute_rs_layout::make_layout_like(l(0)?)?)
        }
        "append" | "prepend" => {
            one(2, 2)?;
            let f = if op == "append" { cute_rs_layout::append } else { cute_rs_layout::prepend };
            Layout(f(l(0)?, l(1)?)?)
        }
        "group" => {
            one(3, 3)?;
            Layout(cute_rs_layout::group(l(0)?, index(n(1)?)?, index(n(2)?)?)?)
        }
        "select" => {
            one(2, usize::MAX)?;
            let idx = args[1..].iter().map(|a| index(a.int(op)?)).collect::<Result<Vec<_>, _>>()?;
            Layout(cute_rs_layout::select(l(0)?, &idx)?)
        }
        "mode" => {
            one(2, 2)?;
            Layout(l(0)?.mode(index(n(1)?)?)?)
        }
        "flatten" => {
            one(1, 1)?;
            Layout(cute_rs_layout::flatten(l(0)?))
        }
        "transpose" => {
            one(1, 1)?;
            Layout(cute_rs_layout::transpose(l(0)?)?)
        }
        "slice" => {
            one(2, 2)?;
            Layout(cute_rs_layout::slice(t(0)?, l(1)?)?)
        }
        "slice_and_offset" => {
            one(2, 2)?;
            let (sub, off) = cute_rs_layout::slice_and_offset(t(0)?, l(1)?)?;
            List(vec![Layout(sub), Num(off)])
        }
        "swizzle" => {
            one(3, 4)?;
            let s = cute_rs_layout::Swizzle::new(param(n(0)?)?, param(n(1)?)?, param(n(2)?)?)?;
            if args.len() == 4 {
                Swizzled(cute_rs_layout::make_swizzled(s, l(3)?))
            } else {
                Swizzle(s)
            }
        }
        "congruent" | "compatible" | "weakly_congruent" => {
            one(2, 2)?;
            let (a, b) = (t(0)?, t(1)?);
            let r = match op {
                "congruent" => a.congruent(&b),
                "compatible" => a.compatible(&b),
                _ => a.weakly_congruent(&b),
            };
            Num(r as i64)
        }
        _ => return err(format!("unknown operation `{op}` (known: {})", OPERATIONS.join(", "))),
    })
}

fn index(v: i64) -> Result<usize, ExprError> {
    usize::try_from(v).map_err(|_| ExprError(format!("a mode index must be non-negative, found {v}")))
}

fn param<T: TryFrom<i64>>(v: i64) -> Result<T, ExprError> {
    T::try_from(v).map_err(|_| ExprError(format!("swizzle parameter out of range: {v}")))
}

/// Parses and evaluates an expression such as `logical_divide((4,2,3):(2,1,8), 4:2)`.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::expr::eval;
/// assert_eq!(eval("complement(4:1, 24)").unwrap().to_string(), "6:4");
/// assert_eq!(eval("composition((6,2):(8,2), (4,3):(3,1))").unwrap().to_string(), "((2,2),3):((24,2),8)");
/// assert!(eval("complement((2,2):(1,1), 4)").is_err());
/// ```
pub fn eval(text: &str) -> Result<Value, ExprError> {
    let mut p = Parser { s: text.as_bytes(), pos: 0, depth: 0 };
    let v = p.expr()?;
    p.ws();
    if p.pos != p.s.len() {
        // Quote a little of the rest, not a megabyte of it.
        let rest: String = String::from_utf8_lossy(&p.s[p.pos..]).chars().take(40).collect();
        return err(format!("unexpected `{rest}` at byte {}", p.pos));
    }
    Ok(v)
}

/// How deeply calls and tiler lists may nest in an expression. Far beyond any real expression; it
/// bounds the parser's recursion, so that no input can overflow the stack.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::expr::{eval, MAX_DEPTH};
/// let deep = format!("{}4:1{}", "size(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
/// assert!(eval(&deep).unwrap_err().to_string().starts_with("depth limit"));
/// ```
pub const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    /// Calls and lists open at `pos`.
    depth: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), ExprError> {
        self.ws();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            err(format!("expected `{}` at byte {}", c as char, self.pos))
        }
    }

    /// The extent of one balanced tuple or integer literal starting at `pos`.
    fn tuple_text(&mut self) -> Result<&str, ExprError> {
        let start = self.pos;
        let mut depth = 0i32;
        while let Some(c) = self.peek() {
            match c {
                b'(' => depth += 1,
                b')' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                }
                b',' | b']' | b':' if depth == 0 => break,
                _ => {}
            }
            self.pos += 1;
        }
        if depth != 0 {
            return err(format!("unbalanced parentheses at byte {start}"));
        }
        std::str::from_utf8(&self.s[start..self.pos]).map_err(|e| ExprError(e.to_string()))
    }

    fn expr(&mut self) -> Result<Value, ExprError> {
        if self.depth >= MAX_DEPTH {
            return err(format!(
                "depth limit: more than {MAX_DEPTH} nested calls or tiler lists at byte {}",
                self.pos
            ));
        }
        self.depth += 1;
        let v = self.expr_at_depth();
        self.depth -= 1;
        v
    }

    fn expr_at_depth(&mut self) -> Result<Value, ExprError> {
        self.ws();
        match self.peek() {
            None => err("unexpected end of expression"),
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Value::List(items));
                }
                loop {
                    items.push(self.expr()?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Value::List(items));
                        }
                        _ => return err(format!("expected `,` or `]` at byte {}", self.pos)),
                    }
                }
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    self.pos += 1;
                }
                let name = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("").to_string();
                self.expect(b'(')?;
                let mut args = Vec::new();
                self.ws();
                if self.peek() == Some(b')') {
                    self.pos += 1;
                } else {
                    loop {
                        args.push(self.expr()?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b')') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return err(format!("expected `,` or `)` at byte {}", self.pos)),
                        }
                    }
                }
                apply(&name, &args)
            }
            Some(_) => {
                let shape = self.tuple_text()?.to_string();
                self.ws();
                if self.peek() == Some(b':') {
                    self.pos += 1;
                    self.ws();
                    let stride = self.tuple_text()?.to_string();
                    Value::literal(&format!("{shape}:{stride}"))
                } else {
                    Value::literal(&shape)
                }
            }
        }
    }
}
