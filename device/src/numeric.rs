//! Number formats of the tensor cores and their epilogues: bf16 and f16 bit patterns to and from
//! `f32` (round to nearest even), tf32 rounding, fp8 (e4m3, e5m2), and the pairs packed into one
//! 32-bit register as `mma.sync`, `wgmma` and `stmatrix` take them.
//!
//! Each conversion is one `cvt` instruction on the GPU where one exists, and the same rounding in
//! software on the host, so a kernel gives the same bits on both backends:
//!
//! ```
//! use cute_rs_device::numeric::{bf16_to_f32, f32_to_bf16, pack_b16x2};
//! let packed = pack_b16x2(f32_to_bf16(1.5), f32_to_bf16(-2.0));
//! assert_eq!(bf16_to_f32((packed >> 16) as u16), -2.0);
//! ```

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

/// The `f32` value of a bf16 bit pattern (exact: bf16 is the top half of an `f32`).
///
/// # Example
/// ```
/// use cute_rs_device::numeric::bf16_to_f32;
/// assert_eq!(bf16_to_f32(0x3fc0), 1.5);
/// assert_eq!(bf16_to_f32(0xc000), -2.0);
/// ```
#[inline(always)]
pub const fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

/// The bf16 bit pattern nearest to `x` (round to nearest, ties to even; NaN stays a quiet NaN).
///
/// # Example
/// ```
/// use cute_rs_device::numeric::{bf16_to_f32, f32_to_bf16};
/// assert_eq!(f32_to_bf16(1.5), 0x3fc0);
/// assert_eq!(bf16_to_f32(f32_to_bf16(1.0 + 1.0 / 256.0)), 1.0); // a tie: rounds to even
/// assert!(bf16_to_f32(f32_to_bf16(f32::NAN)).is_nan());
/// ```
#[inline(always)]
pub const fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) as u16) | 0x0040;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    (b.wrapping_add(round) >> 16) as u16
}

/// The `f32` value of an IEEE half-precision (f16) bit pattern (exact; subnormals, infinities and
/// NaN included).
///
/// # Example
/// ```
/// use cute_rs_device::numeric::f16_to_f32;
/// assert_eq!(f16_to_f32(0x3c00), 1.0);
/// assert_eq!(f16_to_f32(0xc100), -2.5);
/// assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24)); // the smallest subnormal
/// assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
/// ```
pub const fn f16_to_f32(bits: u16) -> f32 {
    let sign = ((bits as u32) & 0x8000) << 16;
    let exp = ((bits >> 10) & 0x1f) as u32;
    let mant = (bits & 0x3ff) as u32;
    let magnitude = if exp == 0x1f {
        0x7f80_0000 | (mant << 13)
    } else if exp != 0 {
        ((exp + 112) << 23) | (mant << 13)
    } else if mant == 0 {
        0
    } else {
        // Subnormal: mant * 2^-24, normalized.
        let shift = mant.leading_zeros() - 21; // brings the leading one to bit 10
        let e = 113 - shift; // biased f32 exponent of mant * 2^-24
        (e << 23) | ((mant << shift) & 0x3ff) << 13
    };
    f32::from_bits(sign | magnitude)
}

/// Rounds `lo` and `hi` to bf16 (to nearest even) and packs them as [`pack_b16x2`] does: one
/// `cvt.rn.bf16x2.f32` on the GPU (sm_80+), [`f32_to_bf16`] twice on the host. Epilogues storing
/// bf16 pairs use it: the software rounding costs a dozen integer instructions per value.
/// (A NaN becomes some bf16 NaN, not necessarily the same bits on both.)
///
/// # Example
/// ```
/// use cute_rs_device::numeric::{f32x2_to_bf16x2, pack_b16x2, f32_to_bf16};
/// assert_eq!(f32x2_to_bf16x2(1.0, -2.5), pack_b16x2(f32_to_bf16(1.0), f32_to_bf16(-2.5)));
/// assert_eq!(f32x2_to_bf16x2(1.0 + 1.0 / 256.0, 0.0), 0x3f80); // a tie: rounds to even
/// ```
#[inline(always)]
pub fn f32x2_to_bf16x2(lo: f32, hi: f32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: a conversion; reads no memory.
        unsafe {
            asm!("cvt.rn.bf16x2.f32 {r}, {hi}, {lo};", r = out(reg32) r, hi = in(reg32) hi, lo = in(reg32) lo,
                 options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        pack_b16x2(f32_to_bf16(lo), f32_to_bf16(hi))
    }
}

/// The `f32` value of an f16 bit pattern, as [`f16_to_f32`] (exact), in one `cvt.f32.f16` on the
/// GPU (the bit manipulation of [`f16_to_f32`] costs a dozen instructions per value there).
///
/// # Example
/// ```
/// use cute_rs_device::numeric::{f16_to_f32, widen_f16};
/// assert_eq!(widen_f16(0xc100), -2.5);
/// assert_eq!(widen_f16(0x0001), f16_to_f32(0x0001));
/// ```
#[inline(always)]
pub fn widen_f16(bits: u16) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let x: f32;
        // SAFETY: a register-only conversion.
        unsafe { asm!("cvt.f32.f16 {x}, {h};", x = out(reg32) x, h = in(reg16) bits, options(pure, nomem, nostack, preserves_flags)) };
        x
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        f16_to_f32(bits)
    }
}

/// Rounds `lo` and `hi` to f16 (to nearest even) and packs them as [`pack_b16x2`] does: one
/// `cvt.rn.f16x2.f32` on the GPU, `half`'s conversion on the host.
///
/// # Example
/// ```
/// use cute_rs_device::numeric::f32x2_to_f16x2;
/// assert_eq!(f32x2_to_f16x2(1.0, -2.5), 0xc100_3c00);
/// ```
#[inline(always)]
pub fn f32x2_to_f16x2(lo: f32, hi: f32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: a conversion; reads no memory.
        unsafe {
            asm!("cvt.rn.f16x2.f32 {r}, {hi}, {lo};", r = out(reg32) r, hi = in(reg32) hi, lo = in(reg32) lo,
                 options(pure, nomem, nostack, preserves_flags));
        }
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        pack_b16x2(half::f16::from_f32(lo).to_bits(), half::f16::from_f32(hi).to_bits())
    }
}

/// The f16 bit pattern nearest to `x` (round to nearest, ties to even; beyond the largest f16,
/// 65504, rounds to infinity; subnormals kept; NaN stays a NaN).
///
/// On the GPU it is one `cvt.rn.f16.f32` (a software conversion would cost a dozen integer
/// instructions and branches for subnormals and overflow per value in a GEMM epilogue); on the
/// host, the `half` crate's conversion, which rounds the same way.
///
/// # Example
/// ```
/// use cute_rs_device::numeric::{f16_to_f32, f32_to_f16};
/// assert_eq!(f32_to_f16(1.5), 0x3e00);
/// assert_eq!(f16_to_f32(f32_to_f16(1.0 + 1.0 / 2048.0)), 1.0); // a tie: rounds to even
/// assert_eq!(f32_to_f16(65520.0), 0x7c00); // half-way past 65504: infinity
/// assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001); // the smallest subnormal
/// assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
/// ```
#[inline(always)]
pub fn f32_to_f16(x: f32) -> u16 {
    #[cfg(target_arch = "nvptx64")]
    {
        let h: u16;
        // SAFETY: a register-only conversion.
        unsafe { asm!("cvt.rn.f16.f32 {h}, {x};", h = out(reg16) h, x = in(reg32) x, options(pure, nomem, nostack)) };
        h
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        half::f16::from_f32(x).to_bits()
    }
}

/// `x` rounded to tf32 (10 explicit mantissa bits, the low 13 bits of the `f32` cleared): to
/// nearest, ties away from zero, as PTX's `cvt.rna.tf32.f32` (one instruction on the GPU). NaN
/// and infinities are returned unchanged; a value within half a tf32 ulp of `f32::MAX` rounds to
/// infinity. The tf32 tensor cores ignore the low 13 bits of their operands (truncating), so a
/// kernel rounds its operands with this first.
///
/// # Example
/// ```
/// use cute_rs_device::numeric::f32_to_tf32;
/// assert_eq!(f32_to_tf32(1.0 + 1.0 / 4096.0), 1.0);          // below half an ulp (2^-11)
/// assert_eq!(f32_to_tf32(1.0 + 1.0 / 2048.0), 1.0 + 1.0 / 1024.0); // a tie: away from zero
/// assert_eq!(f32_to_tf32(-1.0 - 1.0 / 2048.0), -1.0 - 1.0 / 1024.0);
/// assert!(f32_to_tf32(f32::NAN).is_nan());
/// ```
#[inline(always)]
pub fn f32_to_tf32(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u32;
        // SAFETY: a register-only conversion.
        unsafe { asm!("cvt.rna.tf32.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x, options(pure, nomem, nostack, preserves_flags)) };
        f32::from_bits(r)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let bits = x.to_bits();
        if bits & 0x7f80_0000 == 0x7f80_0000 {
            return x;
        }
        // Sign and magnitude: adding half an ulp to the magnitude bits rounds ties away from zero.
        f32::from_bits(bits.wrapping_add(0x1000) & !0x1fff)
    }
}

/// Packs two 16-bit values into one 32-bit register as the tensor-core instructions expect:
/// `lo` (the even value) in bits 0..16, `hi` in bits 16..32.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_device::numeric::pack_b16x2(0x1234, 0xabcd), 0xabcd_1234);
/// ```
#[inline(always)]
pub const fn pack_b16x2(lo: u16, hi: u16) -> u32 {
    lo as u32 | (hi as u32) << 16
}

/// An 8-bit float with 4 exponent bits (bias 7) and 3 mantissa bits, no infinities, NaN
/// `0x7f`/`0xff`, largest finite 448 (the OCP FP8 E4M3 format; PTX's `e4m3`), as its bits.
///
/// # Example
/// ```
/// use cute_rs_device::numeric::E4M3;
/// assert_eq!(E4M3(0x38).to_f32(), 1.0);
/// assert_eq!(E4M3(0x7e).to_f32(), 448.0);
/// assert_eq!(E4M3::from_f32(1000.0), E4M3(0x7e)); // saturates
/// assert_eq!(E4M3::from_f32(-0.3).to_f32(), -0.3125); // nearest
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct E4M3(pub u8);

/// An 8-bit float with 5 exponent bits (bias 15) and 2 mantissa bits, with infinities and NaNs,
/// largest finite 57344 (the OCP FP8 E5M2 format; PTX's `e5m2`), as its bits.
///
/// # Example
/// ```
/// use cute_rs_device::numeric::E5M2;
/// assert_eq!(E5M2(0x3c).to_f32(), 1.0);
/// assert_eq!(E5M2(0x7b).to_f32(), 57344.0);
/// assert_eq!(E5M2(0x7c).to_f32(), f32::INFINITY);
/// assert_eq!(E5M2::from_f32(1e9), E5M2(0x7b)); // saturates
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct E5M2(pub u8);

/// The value of an 8-bit float with `m` mantissa bits and exponent bias `bias` (subnormals
/// included); NaN and infinity handled by the callers.
const fn fp8_magnitude(bits: u8, m: u32, bias: i32) -> f32 {
    let e = ((bits & 0x7f) >> m) as i32;
    let f = (bits & ((1 << m) - 1)) as f32;
    let scale = if e == 0 { 1 - bias } else { e - bias };
    let mut v = if e == 0 { f / (1 << m) as f32 } else { 1.0 + f / (1 << m) as f32 };
    // 2^scale, exact (|scale| <= 16).
    let mut k = 0;
    while k < scale {
        v *= 2.0;
        k += 1;
    }
    while k > scale {
        v /= 2.0;
        k -= 1;
    }
    if bits & 0x80 != 0 { -v } else { v }
}

/// The code of the finite value nearest to `|x|` (ties to the even code), saturating at
/// `max_code`, with `x`'s sign: codes `0..=max_code` of a format grow with their value.
fn fp8_round(x: f32, max_code: u8, value: impl Fn(u8) -> f32) -> u8 {
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = x.abs();
    // The largest code whose value is at most `a` (binary search over the monotone codes).
    let (mut lo, mut hi) = (0u8, max_code);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if value(mid) <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let code = if lo == max_code {
        lo
    } else {
        let (below, above) = (value(lo), value(lo + 1));
        if a - below < above - a || (a - below == above - a && lo % 2 == 0) {
            lo
        } else {
            lo + 1
        }
    };
    sign | code
}

impl E4M3 {
    /// The `f32` value (exact); NaN for `0x7f` and `0xff`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::numeric::E4M3;
    /// assert_eq!(E4M3(0x01).to_f32(), 2f32.powi(-9)); // the smallest subnormal
    /// assert!(E4M3(0x7f).to_f32().is_nan());
    /// ```
    pub const fn to_f32(self) -> f32 {
        if self.0 & 0x7f == 0x7f {
            return f32::NAN;
        }
        fp8_magnitude(self.0, 3, 7)
    }

    /// The nearest e4m3 (ties to even), saturating at ±448 as PTX's `cvt.rn.satfinite` does;
    /// NaN stays NaN.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::numeric::E4M3;
    /// assert_eq!(E4M3::from_f32(1.0625), E4M3(0x38)); // a tie: to the even code (1.0)
    /// assert_eq!(E4M3::from_f32(-448.0), E4M3(0xfe));
    /// ```
    pub fn from_f32(x: f32) -> E4M3 {
        if x.is_nan() {
            return E4M3(0x7f);
        }
        E4M3(fp8_round(x, 0x7e, |c| E4M3(c).to_f32()))
    }
}

impl E5M2 {
    /// The `f32` value (exact); ±infinity for `0x7c`/`0xfc`, NaN above.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::numeric::E5M2;
    /// assert_eq!(E5M2(0x01).to_f32(), 2f32.powi(-16)); // the smallest subnormal
    /// assert!(E5M2(0x7d).to_f32().is_nan());
    /// ```
    pub const fn to_f32(self) -> f32 {
        match self.0 & 0x7f {
            0x7c => {
                if self.0 & 0x80 != 0 {
                    f32::NEG_INFINITY
                } else {
                    f32::INFINITY
                }
            }
            0x7d..=0x7f => f32::NAN,
            _ => fp8_magnitude(self.0, 2, 15),
        }
    }

    /// The nearest e5m2 (ties to even), saturating at ±57344 as PTX's `cvt.rn.satfinite` does;
    /// NaN stays NaN.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::numeric::E5M2;
    /// assert_eq!(E5M2::from_f32(1.125), E5M2(0x3c)); // a tie: to the even code (1.0)
    /// ```
    pub fn from_f32(x: f32) -> E5M2 {
        if x.is_nan() {
            return E5M2(0x7f);
        }
        E5M2(fp8_round(x, 0x7b, |c| E5M2(c).to_f32()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_formats() {
        for bits in [0u16, 0x3f80, 0xbf80, 0x4049, 0x0001, 0x7f7f] {
            assert_eq!(f32_to_bf16(bf16_to_f32(bits)), bits);
        }
        assert_eq!(f32_to_bf16(1.0 + 3.0 / 512.0), 0x3f81); // above the tie: rounds up
        // Every finite f16 against a direct formula.
        for bits in 0..0x7c00u16 {
            let (e, m) = ((bits >> 10) as i32, (bits & 0x3ff) as f64);
            let want = if e == 0 { m * 2f64.powi(-24) } else { (1.0 + m / 1024.0) * 2f64.powi(e - 15) };
            assert_eq!(f16_to_f32(bits) as f64, want, "{bits:#x}");
            assert_eq!(f16_to_f32(bits | 0x8000) as f64, -want, "{bits:#x}");
        }
        assert!(f16_to_f32(0x7e00).is_nan());
    }

    /// `f32_to_f16` (host implementation) against an independent rounding in f64: the nearest f16
    /// (ties to even) of values around every f16's neighbourhood, subnormals and overflow included.
    #[test]
    fn f32_to_f16_rounds_to_nearest_even() {
        // Every non-negative finite f16, exact.
        for bits in 0..0x7c00u16 {
            assert_eq!(f32_to_f16(f16_to_f32(bits)), bits, "{bits:#x}");
            assert_eq!(f32_to_f16(-f16_to_f32(bits)), bits | 0x8000, "-{bits:#x}");
        }
        // Between consecutive f16 a and b: below the midpoint to a, above to b, at it to the even.
        for bits in 0..0x7bffu16 {
            let (a, b) = (f16_to_f32(bits) as f64, f16_to_f32(bits + 1) as f64);
            let mid = (a + b) / 2.0; // exact in f32: f16 has 11 significant bits
            let step = (b - a) / 8.0;
            assert_eq!(f32_to_f16((mid - step) as f32), bits, "below the midpoint after {bits:#x}");
            assert_eq!(f32_to_f16((mid + step) as f32), bits + 1, "above the midpoint after {bits:#x}");
            let even = if bits % 2 == 0 { bits } else { bits + 1 };
            assert_eq!(f32_to_f16(mid as f32), even, "the midpoint after {bits:#x}");
        }
        // Past the largest finite f16 (65504, next would be 65536): infinity from the midpoint on.
        assert_eq!(f32_to_f16(65519.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(-1e10), 0xfc00);
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        // Below half the smallest subnormal: zero (a tie with zero rounds to the even zero).
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0);
        assert_eq!(f32_to_f16(2f32.powi(-25) * 1.5), 1);
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
    }

    /// Every e4m3 and e5m2 code against the formats' definitions, and rounding back.
    #[test]
    fn fp8_codes_decode_and_round_trip() {
        for c in 0..=255u8 {
            let (e, m) = (((c & 0x7f) >> 3) as i32, (c & 7) as f64);
            let want = if e == 0 { m / 8.0 * 2f64.powi(-6) } else { (1.0 + m / 8.0) * 2f64.powi(e - 7) };
            let want = if c & 0x80 != 0 { -want } else { want };
            let got = E4M3(c).to_f32();
            if c & 0x7f == 0x7f {
                assert!(got.is_nan());
                continue;
            }
            assert_eq!(got as f64, want, "e4m3 {c:#x}");
            // -0 rounds to -0: the same code.
            assert_eq!(E4M3::from_f32(got), E4M3(c), "e4m3 {c:#x} back");
        }
        for c in 0..=255u8 {
            let (e, m) = (((c & 0x7f) >> 2) as i32, (c & 3) as f64);
            let got = E5M2(c).to_f32();
            if e == 31 {
                assert!(if m == 0.0 { got.is_infinite() } else { got.is_nan() }, "e5m2 {c:#x}");
                continue;
            }
            let want = if e == 0 { m / 4.0 * 2f64.powi(-14) } else { (1.0 + m / 4.0) * 2f64.powi(e - 15) };
            let want = if c & 0x80 != 0 { -want } else { want };
            assert_eq!(got as f64, want, "e5m2 {c:#x}");
            assert_eq!(E5M2::from_f32(got), E5M2(c), "e5m2 {c:#x} back");
        }
        // Between neighbours: to the nearer, ties to the even code; past the largest: saturated.
        assert_eq!(E4M3::from_f32(1.0 + 0.0624), E4M3(0x38));
        assert_eq!(E4M3::from_f32(1.0 + 0.0626), E4M3(0x39));
        assert_eq!(E4M3::from_f32(1.0 + 3.0 * 0.0625), E4M3(0x3a)); // tie between 0x39 and 0x3a
        assert_eq!(E4M3::from_f32(f32::INFINITY), E4M3(0x7e));
        assert_eq!(E5M2::from_f32(f32::NEG_INFINITY), E5M2(0xfb));
    }
}
