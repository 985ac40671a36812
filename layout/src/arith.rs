//! Integer arithmetic of the algebra, every step checked for overflow (`const fn`s).
//!
//! CuTe's integer helpers with the same meaning: `shape_div` rounds away from zero, `ceil_div`
//! rounds up. Each returns [`LayoutError::Overflow`] naming the operation instead of wrapping.

use crate::error::LayoutError;

pub(crate) const fn mul(op: &'static str, a: i64, b: i64) -> Result<i64, LayoutError> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow { op }),
    }
}

pub(crate) const fn add(op: &'static str, a: i64, b: i64) -> Result<i64, LayoutError> {
    match a.checked_add(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow { op }),
    }
}

pub(crate) const fn sub(op: &'static str, a: i64, b: i64) -> Result<i64, LayoutError> {
    match a.checked_sub(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow { op }),
    }
}

pub(crate) const fn abs(op: &'static str, a: i64) -> Result<i64, LayoutError> {
    match a.checked_abs() {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow { op }),
    }
}

/// `a / b` rounded up, for `a >= 0`, `b > 0`.
pub(crate) const fn ceil_div(a: i64, b: i64) -> i64 {
    if a == 0 {
        0
    } else {
        (a - 1) / b + 1
    }
}

/// CuTe's `shape_div`: `a / b` when that is nonzero, otherwise `signum(a) * signum(b)`.
/// It is exact only when one of `a`, `b` divides the other; callers check that first.
pub(crate) const fn shape_div(a: i64, b: i64) -> i64 {
    let q = a / b;
    if q != 0 {
        q
    } else {
        a.signum() * b.signum()
    }
}

/// Whether one of `a`, `b` divides the other (both nonzero).
pub(crate) const fn divides_either(a: i64, b: i64) -> bool {
    a % b == 0 || b % a == 0
}

