//! One error type naming each violated precondition, usable in `const` evaluation.
//!
//! Every fallible operation returns `Result<_, LayoutError>`. The message of an error is built by a
//! `const fn` ([`LayoutError::message`]), so that the same text is shown by `Display` at run time and
//! by the compiler when a `const` item fails (see [`unwrap!`](crate::unwrap)).

use core::fmt;

/// A violated precondition of a layout operation, with the values that violate it.
///
/// `op` always names the operation that failed (`"composition"`, `"complement"`, ...).
///
/// # Example
/// ```
/// use cute_rs_layout::{Layout, composition, LayoutError};
/// let a = Layout::parse("(6,2):(1,7)").unwrap();
/// let b = Layout::parse("3:4").unwrap();
/// let err = composition(a, b).unwrap_err();
/// assert!(matches!(err, LayoutError::StrideDivisibility { .. }));
/// assert_eq!(
///     err.to_string(),
///     "composition: stride divisibility: neither 4 nor 6 divides the other (at mode 6:1)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// A stride must divide a shape or the other way around (composition, upcast).
    StrideDivisibility {
        /// The operation.
        op: &'static str,
        /// The stride that has to divide or be divided.
        stride: i64,
        /// The shape it meets.
        shape: i64,
        /// The mode where they met, as `shape:stride`.
        mode: (i64, i64),
    },
    /// `divisor` must divide `dividend` (shapes of tiles and targets, composition's remaining shape).
    ShapeDivisibility {
        /// The operation.
        op: &'static str,
        /// The value that must divide.
        divisor: i64,
        /// The value that must be divided.
        dividend: i64,
    },
    /// A mode starts inside the range of the modes of smaller stride (they overlap, so the layout
    /// is not one-to-one, or they interleave): the operation needs modes whose ranges nest.
    NotInjective {
        /// The operation.
        op: &'static str,
        /// The mode (`shape:stride`) that overlaps the ones of smaller stride.
        mode: (i64, i64),
        /// The extent `[0, covered)` those smaller-stride modes reach.
        covered: i64,
    },
    /// Composition: modes of B that land in the same mode of A add up past its shape, so their sum
    /// would carry into A's next mode and the distributed result would not be `A o B`.
    ModeOverlap {
        /// The operation.
        op: &'static str,
        /// The mode of (coalesced) A, as `shape:stride`.
        mode: (i64, i64),
        /// The largest coordinate the modes of B reach in it together.
        reach: i64,
    },
    /// Two tuples must have the same number of modes (or one at most as many as the other).
    RankMismatch {
        /// The operation.
        op: &'static str,
        /// The rank that was needed.
        expected: usize,
        /// The rank that was given.
        found: usize,
    },
    /// Two tuples must have the same nesting (shape and stride, coordinate and shape).
    NotCongruent {
        /// The operation.
        op: &'static str,
    },
    /// A shape (or extent) must be at least 1.
    NonPositiveShape {
        /// The operation.
        op: &'static str,
        /// The value given.
        value: i64,
    },
    /// A coordinate or index lies outside the shape.
    OutOfBounds {
        /// The operation.
        op: &'static str,
        /// The coordinate (or index) value.
        value: i64,
        /// The extent it must stay below.
        extent: i64,
    },
    /// A value (a parameter such as a swizzle's bit counts, or an order) is not allowed.
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// What the argument must satisfy.
        condition: &'static str,
        /// The value given.
        value: i64,
    },
    /// An intermediate or final value does not fit in `i64`.
    Overflow {
        /// The operation.
        op: &'static str,
    },
    /// A tuple needs more leaves, nesting tokens or modes than the fixed capacity holds.
    Capacity {
        /// What ran out (`"leaves"`, `"nesting tokens"`, `"tiler modes"`).
        what: &'static str,
        /// The capacity.
        limit: usize,
    },
    /// Text in CuTe notation could not be parsed.
    Parse {
        /// Byte offset of the problem.
        pos: usize,
        /// What was expected there.
        expected: &'static str,
    },
}

/// A fixed-capacity message buffer, filled by `const fn`s (no allocation, no formatting machinery).
///
/// # Example
/// ```
/// use cute_rs_layout::{Layout, LayoutError};
/// let e = Layout::parse("(2,3):(1)").unwrap_err();
/// let m: cute_rs_layout::Message = e.message();
/// assert!(m.as_str().starts_with("make_layout: congruence"));
/// ```
#[derive(Clone, Copy)]
pub struct Message {
    buf: [u8; Message::CAP],
    len: usize,
}

impl Message {
    const CAP: usize = 240;

    /// An empty message.
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_layout::Message::new().push("vectorize: extent ").int(-3);
    /// assert_eq!(m.as_str(), "vectorize: extent -3");
    /// ```
    pub const fn new() -> Message {
        Message { buf: [0; Message::CAP], len: 0 }
    }

    /// Appends text; text past the capacity is dropped (it is only a message).
    ///
    /// # Example
    /// See [`Message::new`].
    pub const fn push(mut self, s: &str) -> Message {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < Message::CAP {
            self.buf[self.len] = b[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends an integer in decimal; [`UNDERSCORE`](crate::UNDERSCORE), the value of a free mode,
    /// as `_`.
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_layout::Message::new().int(cute_rs_layout::UNDERSCORE);
    /// assert_eq!(m.as_str(), "_");
    /// ```
    pub const fn int(mut self, v: i64) -> Message {
        if v == crate::UNDERSCORE {
            return self.push("_");
        }
        let mut digits = [0u8; 20];
        let mut n = v.unsigned_abs();
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        if v < 0 {
            self = self.push("-");
        }
        while k > 0 && self.len < Message::CAP {
            k -= 1;
            self.buf[self.len] = digits[k];
            self.len += 1;
        }
        self
    }

    const fn mode(self, m: (i64, i64)) -> Message {
        self.int(m.0).push(":").int(m.1)
    }

    /// The message text.
    ///
    /// # Example
    /// ```
    /// let e = cute_rs_layout::LayoutError::Overflow { op: "size" };
    /// assert_eq!(e.message().as_str(), "size: integer overflow: a value does not fit in i64");
    /// ```
    pub const fn as_str(&self) -> &str {
        let (head, _) = self.buf.split_at(self.len);
        match core::str::from_utf8(head) {
            Ok(s) => s,
            // Only ASCII is ever pushed whole; a cut at the capacity cannot split a character.
            Err(_) => "layout error",
        }
    }
}

impl LayoutError {
    /// The message naming the violated condition and its values (the `Display` text).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::LayoutError;
    /// let e = LayoutError::ShapeDivisibility { op: "logical_divide", divisor: 6, dividend: 4 };
    /// assert_eq!(e.message().as_str(), "logical_divide: shape divisibility: 6 does not divide 4");
    /// ```
    pub const fn message(&self) -> Message {
        let m = Message::new();
        match *self {
            LayoutError::StrideDivisibility { op, stride, shape, mode } => m
                .push(op)
                .push(": stride divisibility: neither ")
                .int(stride)
                .push(" nor ")
                .int(shape)
                .push(" divides the other (at mode ")
                .mode(mode)
                .push(")"),
            LayoutError::ShapeDivisibility { op, divisor, dividend } => m
                .push(op)
                .push(": shape divisibility: ")
                .int(divisor)
                .push(" does not divide ")
                .int(dividend),
            LayoutError::NotInjective { op, mode, covered } => m
                .push(op)
                .push(": injectivity: mode ")
                .mode(mode)
                .push(" starts inside [0,")
                .int(covered)
                .push("), the range of its smaller-stride modes (modes must neither overlap nor interleave)"),
            LayoutError::ModeOverlap { op, mode, reach } => m
                .push(op)
                .push(": mode overlap: the modes of B reach coordinate ")
                .int(reach)
                .push(" together in mode ")
                .mode(mode)
                .push(" of A, past its shape (their sum would carry into the next mode)"),
            LayoutError::RankMismatch { op, expected, found } => m
                .push(op)
                .push(": rank mismatch: expected ")
                .int(expected as i64)
                .push(" modes, found ")
                .int(found as i64),
            LayoutError::NotCongruent { op } => {
                m.push(op).push(": congruence: the tuples do not have the same nesting")
            }
            LayoutError::NonPositiveShape { op, value } => {
                m.push(op).push(": shape must be positive, found ").int(value)
            }
            LayoutError::OutOfBounds { op, value, extent } => m
                .push(op)
                .push(": out of bounds: ")
                .int(value)
                .push(" is not below ")
                .int(extent),
            LayoutError::InvalidArgument { op, condition, value } => m
                .push(op)
                .push(": invalid argument: ")
                .push(condition)
                .push(", found ")
                .int(value),
            LayoutError::Overflow { op } => m.push(op).push(": integer overflow: a value does not fit in i64"),
            LayoutError::Capacity { what, limit } => m
                .push("capacity: more than ")
                .int(limit as i64)
                .push(" ")
                .push(what)
                .push(" needed"),
            LayoutError::Parse { pos, expected } => m
                .push("parse error at byte ")
                .int(pos as i64)
                .push(": expected ")
                .push(expected),
        }
    }

    /// Stops `const` evaluation (or panics at run time) with this error's message.
    ///
    /// # Example
    /// ```
    /// let e = cute_rs_layout::LayoutError::NonPositiveShape { op: "make_layout", value: 0 };
    /// let caught = std::panic::catch_unwind(|| e.panic());
    /// assert!(caught.is_err());
    /// ```
    pub const fn panic(&self) -> ! {
        let m = self.message();
        panic!("{}", m.as_str())
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message().as_str())
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::error::Error for LayoutError {}

/// Unwraps a `Result<T, LayoutError>`; on an error, `const` evaluation stops with the error's message
/// (at run time, it panics with it).
///
/// Use it to define layouts as `const` items computed by the compiler.
///
/// # Example
/// ```
/// use cute_rs_layout::{unwrap, Layout, logical_divide};
/// const A: Layout = unwrap!(Layout::parse("(4,2,3):(2,1,8)"));
/// const B: Layout = unwrap!(Layout::parse("4:2"));
/// const T: Layout = unwrap!(logical_divide(A, B));
/// assert_eq!(T.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
/// ```
/// A violated precondition fails to compile:
/// ```compile_fail,E0080
/// use cute_rs_layout::{unwrap, Layout, composition};
/// // error[E0080]: composition: stride divisibility: neither 4 nor 6 divides the other (at mode 6:1)
/// const BAD: Layout = unwrap!(composition(
///     unwrap!(Layout::parse("(6,2):(1,7)")),
///     unwrap!(Layout::parse("3:4"))));
/// ```
#[macro_export]
macro_rules! unwrap {
    ($e:expr) => {
        match $e {
            ::core::result::Result::Ok(v) => v,
            ::core::result::Result::Err(e) => $crate::LayoutError::panic(&e),
        }
    };
}

/// Propagates an error inside a `const fn` (the `?` operator is not available there).
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}
pub(crate) use tri;
