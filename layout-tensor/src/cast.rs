//! Conversions between element types: [`Cast`], the `tl.cast` / `.to(dtype)` of Triton and the
//! `ct.astype` of cuTile, for every pair of `bool`, `i8`..`i64`, `u8`..`u64`, `f16`, `bf16`, `f32`
//! and `f64`.
//!
//! - Between `i*`, `u*`, `f32` and `f64`: Rust's `as` (integers wrap or sign-extend, floats
//!   truncate toward zero and saturate into integers, NaN becomes 0).
//! - Into `f16`/`bf16`: round to nearest even from `f32`; other types go through `f32` first
//!   (an `f64` is rounded twice, which can differ from one direct rounding by one unit in the last
//!   place on a tie).
//! - Out of `f16`/`bf16`: exact into `f32`, then `as`.
//! - Into `bool`: `x != 0` (NaN is true), as Triton's `.to(tl.int1)`; out of `bool`: 0 or 1.
//!
//! The same code runs in kernels (`cvt.rn.f16.f32` and friends) and on the CPU.
//!
//! ```
//! use cute_rs_tensor::cast::Cast;
//! assert_eq!(<f64 as Cast<u8>>::cast(300.7), 255);
//! assert_eq!(<i32 as Cast<half::f16>>::cast(3), half::f16::from_f32(3.0));
//! assert_eq!(<half::bf16 as Cast<i64>>::cast(half::bf16::from_f32(-2.5)), -2);
//! assert!(<f32 as Cast<bool>>::cast(f32::NAN));
//! ```

use half::{bf16, f16};

/// A conversion between element types (`tl.cast`, `.to(dtype)`, `ct.astype`): `as` between numbers,
/// round to nearest even into `f16`/`bf16`, `x != 0` into `bool`; see the [module docs](self).
///
/// # Parameters
/// - `U`: the type converted to.
///
/// # Example
/// ```
/// use cute_rs_tensor::cast::Cast;
/// assert_eq!(<f32 as Cast<i32>>::cast(2.7), 2);
/// assert_eq!(<half::bf16 as Cast<f32>>::cast(half::bf16::from_f32(0.5)), 0.5);
/// assert_eq!(<bool as Cast<f64>>::cast(true), 1.0);
/// ```
pub trait Cast<U> {
    /// The converted value.
    fn cast(self) -> U;
}

/// `f32` into `f16`, round to nearest even.
#[inline(always)]
fn f32_to_f16(x: f32) -> f16 {
    f16::from_bits(crate::device::numeric::f32_to_f16(x))
}

/// `f32` into `bf16`, round to nearest even.
#[inline(always)]
fn f32_to_bf16(x: f32) -> bf16 {
    bf16::from_bits(crate::device::numeric::f32x2_to_bf16x2(x, 0.0) as u16)
}

/// `f16` into `f32`, exactly.
#[inline(always)]
fn f16_to_f32(x: f16) -> f32 {
    crate::device::numeric::widen_f16(x.to_bits())
}

/// `bf16` into `f32`, exactly: a bf16 is the top half of an f32.
#[inline(always)]
fn bf16_to_f32(x: bf16) -> f32 {
    f32::from_bits((x.to_bits() as u32) << 16)
}

/// `as` from each type of the list to each type of the bracketed list (which is passed whole, as
/// one token tree, to every source type).
macro_rules! as_casts {
    ($tos:tt; $($from:ty),*) => {$( as_casts!(@from $from; $tos); )*};
    (@from $from:ty; [$($to:ty),*]) => {$(
        impl Cast<$to> for $from {
            #[inline(always)]
            fn cast(self) -> $to {
                self as $to
            }
        }
    )*};
}
as_casts!([i8, i16, i32, i64, u8, u16, u32, u64, f32, f64]; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

/// The conversions of each type of the list with the 16-bit floats, through `f32`.
macro_rules! half_casts {
    ($($t:ty),*) => {$(
        impl Cast<f16> for $t {
            #[inline(always)]
            fn cast(self) -> f16 {
                f32_to_f16(self as f32)
            }
        }
        impl Cast<bf16> for $t {
            #[inline(always)]
            fn cast(self) -> bf16 {
                f32_to_bf16(self as f32)
            }
        }
        impl Cast<$t> for f16 {
            #[inline(always)]
            fn cast(self) -> $t {
                f16_to_f32(self) as $t
            }
        }
        impl Cast<$t> for bf16 {
            #[inline(always)]
            fn cast(self) -> $t {
                bf16_to_f32(self) as $t
            }
        }
    )*};
}
half_casts!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl Cast<f16> for f16 {
    #[inline(always)]
    fn cast(self) -> f16 {
        self
    }
}
impl Cast<bf16> for bf16 {
    #[inline(always)]
    fn cast(self) -> bf16 {
        self
    }
}
impl Cast<bf16> for f16 {
    #[inline(always)]
    fn cast(self) -> bf16 {
        // Every f16 is an f32 exactly; one rounding into bf16.
        f32_to_bf16(f16_to_f32(self))
    }
}
impl Cast<f16> for bf16 {
    #[inline(always)]
    fn cast(self) -> f16 {
        f32_to_f16(bf16_to_f32(self))
    }
}

/// The conversions of each type of the list with `bool`: `x != 0` one way, 0 or 1 the other.
macro_rules! bool_casts {
    ($($t:ty),*) => {$(
        impl Cast<bool> for $t {
            #[inline(always)]
            fn cast(self) -> bool {
                self != (0 as $t)
            }
        }
        impl Cast<$t> for bool {
            #[inline(always)]
            fn cast(self) -> $t {
                self as u8 as $t
            }
        }
    )*};
}
bool_casts!(i8, i16, i32, i64, u8, u16, u32, u64, f32, f64);

impl Cast<bool> for bool {
    #[inline(always)]
    fn cast(self) -> bool {
        self
    }
}
impl Cast<f16> for bool {
    #[inline(always)]
    fn cast(self) -> f16 {
        if self { f16::ONE } else { f16::ZERO }
    }
}
impl Cast<bf16> for bool {
    #[inline(always)]
    fn cast(self) -> bf16 {
        if self { bf16::ONE } else { bf16::ZERO }
    }
}
impl Cast<bool> for f16 {
    #[inline(always)]
    fn cast(self) -> bool {
        // Zero of either sign is false; NaN is true.
        self.to_bits() & 0x7fff != 0
    }
}
impl Cast<bool> for bf16 {
    #[inline(always)]
    fn cast(self) -> bool {
        self.to_bits() & 0x7fff != 0
    }
}

/// Calls `$m!(from => to, to, ...)` once for each type of the list, with every other type of the
/// list as the targets: the pairs of distinct types, for impls that the identity already covers.
macro_rules! distinct_pairs {
    ($m:ident; [$($before:ty),*]; $x:ty $(, $after:ty)*) => {
        $m!($x => $($before,)* $($after,)*);
        $crate::cast::distinct_pairs!($m; [$($before,)* $x]; $($after),*);
    };
    ($m:ident; [$($before:ty),*];) => {};
}
pub(crate) use distinct_pairs;

/// Calls `$m!(from => to, ...)` for every pair of distinct number types (`bool` excluded: scalars
/// convert implicitly between numbers only, as Triton's `other` and stored values do).
macro_rules! number_pairs {
    ($m:ident) => {
        $crate::cast::distinct_pairs!($m; []; i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, half::f16, half::bf16);
    };
}
pub(crate) use number_pairs;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_round_to_nearest_even_and_widen_exactly() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            if !h.is_nan() {
                assert_eq!(<f16 as Cast<f32>>::cast(h), h.to_f32());
                assert_eq!(<f32 as Cast<f16>>::cast(h.to_f32()), h);
                assert_eq!(<f16 as Cast<bf16>>::cast(h), bf16::from_f32(h.to_f32()));
            }
            let b = bf16::from_bits(bits);
            if !b.is_nan() {
                assert_eq!(<bf16 as Cast<f64>>::cast(b), b.to_f64());
                assert_eq!(<bf16 as Cast<f16>>::cast(b), f16::from_f32(b.to_f32()));
            }
        }
        for x in [0.1f32, -3.75, 65504.0, 1e-7, 123456.789] {
            assert_eq!(<f32 as Cast<f16>>::cast(x), f16::from_f32(x));
            assert_eq!(<f32 as Cast<bf16>>::cast(x), bf16::from_f32(x));
            assert_eq!(<i32 as Cast<bf16>>::cast(x as i32), bf16::from_f32(x as i32 as f32));
        }
    }

    #[test]
    fn bools_are_nonzero() {
        assert!(!<f16 as Cast<bool>>::cast(f16::NEG_ZERO));
        assert!(<bf16 as Cast<bool>>::cast(bf16::from_f32(1e-30)));
        assert!(!<f64 as Cast<bool>>::cast(-0.0));
        assert!(<u8 as Cast<bool>>::cast(255));
        assert_eq!(<bool as Cast<i16>>::cast(true), 1);
        assert_eq!(<bool as Cast<bf16>>::cast(true), bf16::ONE);
    }
}
