//! Single-precision math for kernels: `exp`, `log`, `sqrt`, `tanh`, `erf` and their relatives, as
//! free functions on `f32` that work in device code and on the CPU backend alike.
//!
//! # Why this module
//! On `nvptx64` the crate is `no_std` and `core` has no transcendental functions: `f32::exp` and
//! friends live in `std`, which calls the platform's libm, and there is none on the GPU. CUDA's
//! libdevice is not linked either. So these functions are written here, in plain `core` Rust.
//!
//! # Accurate functions: the same bits on both backends
//! [`exp`], [`exp2`], [`log`], [`log2`], [`tanh`], [`erf`] and [`rsqrt`] are built from
//! additions, multiplications, divisions, [`fma`] and [`sqrt`] only (range reductions,
//! polynomials, compensated sums), every one of them correctly rounded (IEEE 754
//! round-to-nearest-even) on both backends: on the GPU `add.rn.f32`, `mul.rn.f32`, `div.rn.f32`
//! (or `rcp.rn.f32`), `fma.rn.f32` and `sqrt.rn.f32` (the `.rn` forms, which ptxas never contracts
//! into FMAs the source does not have), on the host the same IEEE operations, `f32::mul_add` and
//! `f32::sqrt`. The same source therefore gives **the same bits on the GPU and on the CPU
//! backend**, so a kernel's output can be compared bit for bit with its CPU run. The one exception
//! is the payload of a NaN result: every NaN input or invalid operation gives a NaN on both, but
//! the GPU's NaN is its canonical `0x7fffffff` where the host may keep the input's payload.
//!
//! Their errors, measured against an `f64` reference over every `f32` input (subnormals included),
//! are below 1 ulp (units in the last place of the exact result): from 0.5 ulp for `rsqrt` to
//! 0.92 ulp for `tanh`. Each function states its bound (1 ulp) and its measured maximum; the tests
//! assert the bound on a dense sample, and on every input with `--ignored`. Special values follow C's libm: overflow gives
//! infinity, underflow gives zero (results in the subnormal range are computed, not flushed),
//! `log(0) = -inf`, `log(-1) = NaN`, `tanh(±inf) = ±1`, `erf(±inf) = ±1`, and a NaN input
//! gives a NaN.
//!
//! [`fma`], [`sqrt`], [`min`], [`max`] and [`abs`] are single operations with exact IEEE
//! semantics on both backends.
//!
//! # Fast approximations: `_approx`
//! [`exp_approx`], [`exp2_approx`], [`log_approx`], [`log2_approx`], [`rsqrt_approx`],
//! [`sqrt_approx`] and [`tanh_approx`] are the GPU's special-function-unit instructions (PTX
//! `ex2.approx.ftz.f32`, `lg2.approx.ftz.f32`, `rsqrt.approx.ftz.f32`, `sqrt.approx.ftz.f32`,
//! `tanh.approx.f32`): one or two instructions instead of a few dozen, with the error bounds the
//! PTX ISA states (each function quotes its own) and, except `tanh_approx`, subnormal inputs and
//! results flushed to zero. On the CPU backend each one is the accurate function, which is at least
//! as accurate: results of the two backends then differ within the approximation's bound.
//!
//! ```
//! use cute_rs_device::math::{exp, exp_approx, fma, log, max};
//! // One term of a softmax, shifted by the row's maximum so that it cannot overflow.
//! let (x, m) = (1.5f32, max(1.5, 2.0));
//! let p = exp(x - m);
//! assert!((p - (-0.5f32).exp()).abs() <= f32::EPSILON); // std's `exp`, on the host only
//! assert_eq!(log(1.0), 0.0);
//! assert_eq!(fma(2.0, 3.0, 1.0), 7.0);
//! // The fast variant: within its bound of the accurate one on the GPU, equal to it here.
//! assert!((exp_approx(x - m) - p).abs() <= 4.0 * f32::EPSILON);
//! ```

/// `ln(2)` to 16 bits: `e * LN2_HI16` is exact for every exponent `|e| < 256`.
const LN2_HI16: f32 = 0.69314575;
/// `ln(2) - LN2_HI16`, rounded.
const LN2_LO16: f32 = 1.4286068e-6;
/// `ln(2)` rounded to `f32`.
const LN2_HI: f32 = core::f32::consts::LN_2;
/// `ln(2) - LN2_HI`, rounded.
const LN2_LO: f32 = -1.9046542e-9;
/// `log2(e)` rounded to `f32`.
const LOG2E_HI: f32 = core::f32::consts::LOG2_E;
/// `log2(e) - LOG2E_HI`, rounded.
const LOG2E_LO: f32 = 1.925963e-8;
/// `2 / sqrt(pi)` rounded to `f32`.
const TWO_OVER_SQRT_PI_HI: f32 = core::f32::consts::FRAC_2_SQRT_PI;
/// `2 / sqrt(pi) - TWO_OVER_SQRT_PI_HI`, rounded.
const TWO_OVER_SQRT_PI_LO: f32 = -5.8635383e-8;
/// `1.5 * 2^23`: adding it to an `f32` of magnitude below `2^22` rounds it to an integer (ties to
/// even), and subtracting it again gives that integer exactly.
const ROUND_MAGIC: f32 = 12_582_912.0;

// The polynomial coefficients below were fitted for this module with a weighted minimax fit
// (Lawson's iteratively reweighted least squares against 40-digit mpmath values of the function,
// on 1000-3000 Chebyshev points of the interval), rounding each coefficient to `f32` from the
// lowest degree up and refitting the higher ones after each rounding. "Error" is the fit's
// maximum error with the `f32` coefficients (relative to the function unless said otherwise),
// before the rounding errors of the evaluation.

/// `e^r = 1 + r + r^2 Q(r)` for `|r| <= 0.347`; error `2^-33.2`.
const EXP_Q: [f32; 6] = [0.5, 0.16666666, 0.041666463, 0.008333571, 0.0013935101, 0.00019739587];

/// `ln(1 + f) = f - f^2/2 + f^3 R(f)` for `f` in `[sqrt(1/2) - 1, sqrt(2) - 1]`; error `2^-30.3`.
const LOG_R: [f32; 9] = [
    0.33333313,
    -0.2500001,
    0.20002073,
    -0.16667993,
    0.14220315,
    -0.12406087,
    0.11883792,
    -0.11671285,
    0.067501776,
];

/// `tanh(x) = x + x^3 P(x^2)` for `|x| < 1`; error `2^-27.7`.
const TANH_P: [f32; 7] = [
    -0.33333296,
    0.13332348,
    -0.05387999,
    0.021487199,
    -0.007946894,
    0.0023019298,
    -0.00035861123,
];

/// `erf(x) = (2/sqrt(pi)) x + x^3 S(x^2)` for `|x| < 1/2`; error `2^-33.8`.
const ERF_S: [f32; 5] = [-0.37612638, 0.112837456, -0.026859516, 0.005182522, -0.0007393296];

/// `erf` on `[lo, hi)` around `mid`: `erf(x) = erf(mid) - t P(t)` with `t = x - mid` (exact in
/// `f32` within the piece), `erf(mid)` as a two-term constant, `t P(t) = erfc(x) - erfc(mid)`.
struct ErfPiece {
    mid: f32,
    erf_mid_hi: f32,
    erf_mid_lo: f32,
    p: [f32; 8],
}

// The pieces of `erf` for `1/2 <= |x| < 3.92`. `P` was fitted to `erfc(x) - erfc(mid)` with the
// exact `erfc(mid)` (absolute error, given with each piece), so that `erf(mid)` can be carried
// to twice the precision of an `f32`.

/// `[1/2, 1)`; error `2^-30.0`.
const ERF_0_5: ErfPiece = ErfPiece {
    mid: 0.75,
    erf_mid_hi: 0.71115565,
    erf_mid_lo: -1.9346363e-8,
    p: [
        -0.64293104,
        0.4821983,
        -0.026791753,
        -0.15068668,
        0.05332447,
        0.02686652,
        -0.01885797,
        -0.0022747756,
    ],
};

/// `[1, 1.5)`; error `2^-33.2`.
const ERF_1: ErfPiece = ErfPiece {
    mid: 1.25,
    erf_mid_hi: 0.92290014,
    erf_mid_lo: -1.2029034e-8,
    p: [
        -0.23652112,
        0.2956514,
        -0.16753553,
        0.0061591174,
        0.047175083,
        -0.021291403,
        -0.003641064,
        0.0055515403,
    ],
};

/// `[1.5, 2)`; error `2^-35.9`.
const ERF_1_5: ErfPiece = ErfPiece {
    mid: 1.75,
    erf_mid_hi: 0.9866717,
    erf_mid_lo: -1.4953303e-8,
    p: [
        -0.052774996,
        0.09235624,
        -0.090157375,
        0.048102304,
        -0.0066188243,
        -0.008967218,
        0.005936097,
        -0.0006574535,
    ],
};

/// `[2, 2.75)`; error `2^-32.3`.
const ERF_2: ErfPiece = ErfPiece {
    mid: 2.375,
    erf_mid_hi: 0.99921703,
    erf_mid_lo: 2.8395878e-8,
    p: [
        -0.004006482,
        0.009515387,
        -0.013730113,
        0.013133092,
        -0.008368273,
        0.0031164156,
        -1.8932207e-5,
        -0.00061260455,
    ],
};

/// `[2.75, 3.92)`; error `2^-30.4`.
const ERF_2_75: ErfPiece = ErfPiece {
    mid: 3.3359375,
    erf_mid_hi: 0.9999976,
    erf_mid_lo: -7.4411544e-10,
    p: [
        -1.6563636e-5,
        5.5282664e-5,
        -0.00011783676,
        0.00017758692,
        -0.0001972527,
        0.00017575227,
        -0.00013758821,
        6.595689e-5,
    ],
};

/// One `f32` instruction of PTX with one operand, `$inst d, a;`, pure (no memory, no side
/// effects), so that the compiler may hoist or merge it like arithmetic.
#[cfg(target_arch = "nvptx64")]
macro_rules! ptx_unary {
    ($inst:literal, $a:expr) => {{
        let d: f32;
        // SAFETY: a register-to-register arithmetic instruction.
        unsafe {
            core::arch::asm!(
                concat!($inst, " {d}, {a};"),
                d = out(reg32) d,
                a = in(reg32) $a,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        d
    }};
}

/// `a * b + c` with a single rounding (fused multiply-add).
///
/// Every accurate function of this module is built on it: the fused product keeps the bits a
/// separate multiply would round away, and, being correctly rounded on both backends, gives both
/// the same result.
///
/// # Arguments
/// * `a`, `b`: the factors.
/// * `c`: the addend.
///
/// # Returns
/// The exact value of `a * b + c` rounded once to the nearest `f32` (ties to even): PTX
/// `fma.rn.f32` on the GPU, [`f32::mul_add`] on the host. Error: 0.5 ulp (correctly rounded).
///
/// # Special values
/// IEEE 754 `fusedMultiplyAdd`: `fma(0, inf, c)` and `fma(inf, 0, c)` are NaN, `inf - inf` is NaN,
/// overflow gives infinity, a NaN operand gives a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::fma;
/// assert_eq!(fma(2.0, 3.0, 1.0), 7.0);
/// // The rounding error of a product, exactly: the fused result keeps what `a * b` rounds away.
/// let (a, b) = (1.0 + f32::EPSILON, 1.0 - f32::EPSILON);
/// assert_eq!(fma(a, b, -(a * b)), -f32::EPSILON * f32::EPSILON);
/// ```
#[inline(always)]
pub fn fma(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: f32;
        // SAFETY: a register-to-register arithmetic instruction.
        unsafe {
            core::arch::asm!(
                "fma.rn.f32 {d}, {a}, {b}, {c};",
                d = out(reg32) d,
                a = in(reg32) a,
                b = in(reg32) b,
                c = in(reg32) c,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        a.mul_add(b, c)
    }
}

/// The square root, correctly rounded.
///
/// # Arguments
/// * `x`: the radicand.
///
/// # Returns
/// `sqrt(x)` rounded to the nearest `f32` (ties to even): PTX `sqrt.rn.f32` on the GPU,
/// [`f32::sqrt`] on the host. Error: 0.5 ulp (correctly rounded).
///
/// # Special values
/// `sqrt(-0) = -0`, `sqrt(+inf) = +inf`, `sqrt(x) = NaN` for `x < 0` and for NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::sqrt;
/// assert_eq!(sqrt(2.25), 1.5);
/// assert!(sqrt(-1.0).is_nan());
/// ```
#[inline(always)]
pub fn sqrt(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("sqrt.rn.f32", x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x.sqrt()
    }
}

/// The reciprocal square root `1 / sqrt(x)`.
///
/// `1.0 / sqrt(x)` rounds twice, and near `x = 1` the first rounding alone costs an ulp of the
/// result (which sits just below 1, where ulps are half as large). The exact remainders of the
/// square root and of the division (`fma` gives both) correct `1 / sqrt(x)` to one rounding.
///
/// # Arguments
/// * `x`: the radicand.
///
/// # Returns
/// `1 / sqrt(x)`, within 1 ulp of the exact value (subnormal inputs included; measured over every
/// `f32` input: 0.500 ulp, i.e. correctly rounded), the same bits on the GPU and on the CPU
/// backend. For a faster, less accurate one see [`rsqrt_approx`].
///
/// # Special values
/// `rsqrt(+0) = +inf`, `rsqrt(-0) = -inf`, `rsqrt(+inf) = +0`, NaN for `x < 0` and for NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::rsqrt;
/// assert_eq!(rsqrt(4.0), 0.5);
/// assert_eq!(rsqrt(2.0), core::f32::consts::FRAC_1_SQRT_2);
/// assert_eq!(rsqrt(0.0), f32::INFINITY);
/// ```
#[inline]
pub fn rsqrt(x: f32) -> f32 {
    // The remainder x - s^2 below is exact only if its last bit, about 2^-46 x, is not below the
    // subnormal ulp 2^-149: tiny x is scaled by 2^64 first and the result by 2^32 after (exactly,
    // as it is then above 2^50).
    let (x, back) = if x > 0.0 && x < pow2(-100) { (x * pow2(64), pow2(32)) } else { (x, 1.0) };
    let s = sqrt(x);
    let y = 1.0 / s;
    if !(x > 0.0 && x < f32::INFINITY) {
        return y;
    }
    // sqrt(x) = s (1 + eps) with eps = (x - s^2) / (2 s^2), and 1/s = y (1 + r) with
    // r = 1 - y s, both remainders exact: 1/sqrt(x) = y (1 + r - eps) to about 2^-47.
    let eps = 0.5 * (fma(-s, s, x) * y) * y;
    fma(y, fma(-y, s, 1.0) - eps, y) * back
}

/// The smaller of two values, IEEE 754 `minNum`: a NaN operand is ignored.
///
/// # Arguments
/// * `a`, `b`: the values to compare.
///
/// # Returns
/// The smaller of `a` and `b`, exactly (no rounding). `-0` counts as smaller than `+0`, so that
/// the result is the same on both backends: PTX `min.f32` on the GPU, the same rule on the host.
///
/// # Special values
/// If one operand is NaN the other is returned; if both are, a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::min;
/// assert_eq!(min(1.0, -2.0), -2.0);
/// assert_eq!(min(f32::NAN, 3.0), 3.0);
/// assert!(min(0.0, -0.0).is_sign_negative());
/// ```
#[inline(always)]
pub fn min(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: f32;
        // SAFETY: a register-to-register arithmetic instruction.
        unsafe {
            core::arch::asm!(
                "min.f32 {d}, {a}, {b};",
                d = out(reg32) d,
                a = in(reg32) a,
                b = in(reg32) b,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // `f32::min` leaves the sign of a zero result unspecified; PTX does not.
        if b.is_nan() || a < b || (a == b && a.is_sign_negative()) {
            a
        } else {
            b
        }
    }
}

/// The larger of two values, IEEE 754 `maxNum`: a NaN operand is ignored.
///
/// # Arguments
/// * `a`, `b`: the values to compare.
///
/// # Returns
/// The larger of `a` and `b`, exactly (no rounding). `+0` counts as larger than `-0`, so that
/// the result is the same on both backends: PTX `max.f32` on the GPU, the same rule on the host.
///
/// # Special values
/// If one operand is NaN the other is returned; if both are, a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::max;
/// assert_eq!(max(1.0, -2.0), 1.0);
/// assert_eq!(max(3.0, f32::NAN), 3.0);
/// assert!(max(-0.0, 0.0).is_sign_positive());
/// ```
#[inline(always)]
pub fn max(a: f32, b: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let d: f32;
        // SAFETY: a register-to-register arithmetic instruction.
        unsafe {
            core::arch::asm!(
                "max.f32 {d}, {a}, {b};",
                d = out(reg32) d,
                a = in(reg32) a,
                b = in(reg32) b,
                options(pure, nomem, nostack, preserves_flags)
            );
        }
        d
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if b.is_nan() || a > b || (a == b && a.is_sign_positive()) {
            a
        } else {
            b
        }
    }
}

/// The absolute value: `x` with its sign bit cleared.
///
/// # Arguments
/// * `x`: any value.
///
/// # Returns
/// `|x|`, exactly (a bit operation, the same on both backends).
///
/// # Special values
/// `abs(-0) = +0`, `abs(-inf) = +inf`; a NaN stays a NaN (with its sign bit cleared).
///
/// # Example
/// ```
/// use cute_rs_device::math::abs;
/// assert_eq!(abs(-2.5), 2.5);
/// assert!(abs(-0.0).is_sign_positive());
/// ```
#[inline(always)]
pub fn abs(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7fff_ffff)
}

/// The magnitude of a non-negative `x` with the sign bit of `sign`.
#[inline(always)]
fn with_sign_of(x: f32, sign: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7fff_ffff | sign.to_bits() & 0x8000_0000)
}

/// `c[0] + t c[1] + ... + t^(N-1) c[N-1]` by Horner's rule with fused steps.
#[inline(always)]
fn horner<const N: usize>(t: f32, c: &[f32; N]) -> f32 {
    let mut p = c[N - 1];
    let mut i = N - 1;
    while i > 0 {
        i -= 1;
        p = fma(p, t, c[i]);
    }
    p
}

/// `2^k` for `-126 <= k <= 127`.
#[inline(always)]
const fn pow2(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// `v * 2^k` with a single rounding, for `v` in `[0.5, 2)` and `-151 <= k <= 129`: exact in the
/// normal range, rounded once into the subnormal range or to infinity.
#[inline(always)]
fn scale(v: f32, k: i32) -> f32 {
    if k > 127 {
        // `v * 2^127` is exact; the second product overflows (or not) with one rounding.
        v * pow2(127) * pow2(k - 127)
    } else if k < -126 {
        // `v * 2^(k + 64)` is normal and exact; the second product rounds once.
        v * pow2(k + 64) * pow2(-64)
    } else {
        v * pow2(k)
    }
}

/// `e^(hi + lo)` for `|hi| <= 0.347` and `|lo| <= 2^-21`, as an unevaluated sum `s + tail` with
/// `s = 1 + hi` rounded and `|tail| < s / 8`, accurate to about `2^-32` relative.
#[inline(always)]
fn exp_reduced(hi: f32, lo: f32) -> (f32, f32) {
    // 1 + hi as s + e exactly (Fast2Sum, |1| >= |hi|): the one rounding left is the caller's
    // addition of the tail.
    let s = 1.0 + hi;
    let e = (1.0 - s) + hi;
    // e^(hi + lo) = 1 + hi + hi^2 Q(hi) + lo e^hi, and e^hi = s to the precision lo needs.
    (s, fma(hi * hi, horner(hi, &EXP_Q), fma(lo, s, e)))
}

/// `x = k ln(2) + hi + lo` with `k` an integer (as `f32`), `|hi| <= 0.347`, `|lo| <= 2^-21`,
/// for `|x| <= 104`.
#[inline(always)]
fn exp_reduce(x: f32) -> (f32, f32, f32) {
    let k = fma(x, LOG2E_HI, ROUND_MAGIC) - ROUND_MAGIC;
    // x - k LN2_HI is exact: both are multiples of 2^-25 once |x| >= ln(2)/2 (k = 0 below), and
    // the difference is below ln(2)/2.
    (k, fma(-k, LN2_HI, x), -k * LN2_LO)
}

/// The natural exponential `e^x`.
///
/// Reduction `x = k ln(2) + r` with `|r| <= ln(2)/2` (Cody-Waite, `r` exact), a degree-7
/// polynomial for `e^r` and a scaling by `2^k`.
///
/// # Arguments
/// * `x`: the exponent.
///
/// # Returns
/// `e^x`, within 1 ulp of the exact value (measured over every `f32` input: 0.782 ulp, and 0.857
/// ulp for results in the subnormal range, which round twice), the same bits on the GPU and on the
/// CPU backend. For a faster, less
/// accurate one see [`exp_approx`].
///
/// # Special values
/// `exp(±0) = 1`, `exp(+inf) = +inf`, `exp(-inf) = +0`; `x > 88.7228391` (`ln` of the midpoint
/// of `f32::MAX` and `2^128`) overflows to `+inf`, `x < -103.972077` (`ln(2^-150)`) underflows to
/// `+0`, and results between `2^-149` and `2^-126` are subnormal; a NaN gives a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::exp;
/// assert_eq!(exp(0.0), 1.0);
/// assert_eq!(exp(1.0), core::f32::consts::E);
/// assert_eq!(exp(100.0), f32::INFINITY);
/// assert_eq!(exp(f32::NEG_INFINITY), 0.0);
/// ```
#[inline]
pub fn exp(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    // Beyond these the result is certainly infinite or zero; within them `k` stays in `scale`'s
    // range and the rounding of the final scaling decides overflow and underflow.
    if x > 89.0 {
        return f32::INFINITY;
    }
    if x < -104.0 {
        return 0.0;
    }
    let (k, hi, lo) = exp_reduce(x);
    let (s, tail) = exp_reduced(hi, lo);
    scale(s + tail, k as i32)
}

/// The base-2 exponential `2^x`.
///
/// Reduction `x = k + r` with `|r| <= 1/2` (exact), `r ln(2)` as a two-term sum, the polynomial
/// of [`exp`] and a scaling by `2^k`.
///
/// # Arguments
/// * `x`: the exponent.
///
/// # Returns
/// `2^x`, within 1 ulp of the exact value (measured over every `f32` input: 0.594 ulp, and 0.758
/// ulp for results in the subnormal range, which round twice), exact for integer `x` in range,
/// the same bits on the GPU and on the CPU backend. For a faster, less accurate one see
/// [`exp2_approx`].
///
/// # Special values
/// `exp2(±0) = 1`, `exp2(+inf) = +inf`, `exp2(-inf) = +0`; `x >= 128` overflows to `+inf`,
/// `x <= -150` underflows to `+0`; a NaN gives a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::exp2;
/// assert_eq!(exp2(10.0), 1024.0);
/// assert_eq!(exp2(-149.0), f32::from_bits(1)); // the smallest subnormal
/// assert_eq!(exp2(0.5), core::f32::consts::SQRT_2);
/// ```
#[inline]
pub fn exp2(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x >= 128.0 {
        return f32::INFINITY;
    }
    if x < -151.0 {
        return 0.0;
    }
    let k = (x + ROUND_MAGIC) - ROUND_MAGIC;
    let r = x - k;
    // r ln(2) = hi + lo to about 2^-48, the product's rounding error recovered exactly by fma.
    let hi = r * LN2_HI;
    let lo = fma(r, LN2_LO, fma(r, LN2_HI, -hi));
    let (s, tail) = exp_reduced(hi, lo);
    scale(s + tail, k as i32)
}

/// Splits a positive finite `x` into `x = 2^e (1 + f)` with `1 + f` in `[sqrt(1/2), sqrt(2))`,
/// `f` exact, subnormal `x` included.
#[inline(always)]
fn log_reduce(x: f32) -> (i32, f32) {
    let (x, bias) = if x < f32::MIN_POSITIVE {
        (x * 8_388_608.0, 127 + 23) // 2^23: subnormal to normal, exactly
    } else {
        (x, 127)
    };
    let bits = x.to_bits();
    // Mantissa in [1, 2) from the bits; above sqrt(2) halve it and bump the exponent.
    let mut e = (bits >> 23) as i32 - bias;
    let mut m = bits & 0x007f_ffff | 0x3f80_0000;
    if m > core::f32::consts::SQRT_2.to_bits() {
        m -= 1 << 23;
        e += 1;
    }
    // Exact: m is within a factor of 2 of 1.
    (e, f32::from_bits(m) - 1.0)
}

/// `ln(1 + f)` for `f` from [`log_reduce`], as an unevaluated sum `hi + lo` accurate to about
/// `2^-29` relative: `f - f^2/2` carried exactly, the rest by the polynomial.
#[inline(always)]
fn log1p_reduced(f: f32) -> (f32, f32) {
    let f2 = f * f;
    let f2_err = fma(f, f, -f2);
    let half = 0.5 * f2;
    // Fast2Sum (|f| >= f^2/2 here): f - f^2/2 = hi + e exactly, f^2's own error added below.
    let hi = f - half;
    let e = (f - hi) - half;
    let lo = fma(f2 * f, horner(f, &LOG_R), fma(-0.5, f2_err, e));
    (hi, lo)
}

/// The special values shared by [`log`] and [`log2`]: `Some(result)` for `x` not positive and
/// finite.
#[inline(always)]
fn log_special(x: f32) -> Option<f32> {
    if x > 0.0 && x < f32::INFINITY {
        None
    } else if x == 0.0 {
        Some(f32::NEG_INFINITY)
    } else if x > 0.0 || x.is_nan() {
        Some(x)
    } else {
        Some(f32::NAN)
    }
}

/// The natural logarithm `ln(x)`.
///
/// Reduction `x = 2^e (1 + f)` with `1 + f` in `[sqrt(1/2), sqrt(2))`, `ln(1 + f)` by a
/// polynomial with its leading terms carried exactly, and `e ln(2)` added as a two-term constant.
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// `ln(x)`, within 1 ulp of the exact value (subnormal inputs included; measured over every
/// `f32` input: 0.613 ulp), exact at `x = 1`, the same bits on the GPU and on the CPU backend. For
/// a faster, less accurate one see [`log_approx`].
///
/// # Special values
/// `log(±0) = -inf`, `log(+inf) = +inf`, `log(1) = +0`; NaN for `x < 0` and for NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::log;
/// assert_eq!(log(1.0), 0.0);
/// assert_eq!(log(core::f32::consts::E), 1.0);
/// assert_eq!(log(0.0), f32::NEG_INFINITY);
/// assert!(log(-1.0).is_nan());
/// ```
#[inline]
pub fn log(x: f32) -> f32 {
    if let Some(special) = log_special(x) {
        return special;
    }
    let (e, f) = log_reduce(x);
    let (l_hi, l_lo) = log1p_reduced(f);
    // e ln(2) + ln(1 + f): the head exactly (e LN2_HI16 is exact and Fast2Sum applies, as
    // |e ln 2| >= ln 2 > |ln(1 + f)| or e = 0), then one rounding of head + tail.
    let a = e as f32 * LN2_HI16;
    let hi = a + l_hi;
    let err = (a - hi) + l_hi;
    hi + (err + fma(e as f32, LN2_LO16, l_lo))
}

/// The base-2 logarithm `log2(x)`.
///
/// The reduction and polynomial of [`log`], then a multiplication by `log2(e)` carried in two
/// terms, and the exponent added exactly.
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// `log2(x)`, within 1 ulp of the exact value (subnormal inputs included; measured over every
/// `f32` input: 0.691 ulp), exact for powers of two, the same bits on the GPU and on the CPU
/// backend. For a faster, less accurate one see [`log2_approx`].
///
/// # Special values
/// `log2(±0) = -inf`, `log2(+inf) = +inf`, `log2(1) = +0`; NaN for `x < 0` and for NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::log2;
/// assert_eq!(log2(1024.0), 10.0);
/// assert_eq!(log2(f32::from_bits(1)), -149.0); // the smallest subnormal
/// assert_eq!(log2(10.0), core::f32::consts::LOG2_10);
/// ```
#[inline]
pub fn log2(x: f32) -> f32 {
    if let Some(special) = log_special(x) {
        return special;
    }
    let (e, f) = log_reduce(x);
    let (l_hi, l_lo) = log1p_reduced(f);
    // (l_hi + l_lo) log2(e) = p_hi + p_lo, the product's rounding error recovered by fma.
    let p_hi = l_hi * LOG2E_HI;
    let p_lo = fma(l_lo, LOG2E_HI, fma(l_hi, LOG2E_LO, fma(l_hi, LOG2E_HI, -p_hi)));
    // e + p_hi exactly (Fast2Sum: |e| >= 1 > |p_hi| or e = 0), then one rounding.
    let ef = e as f32;
    let hi = ef + p_hi;
    let err = (ef - hi) + p_hi;
    hi + (err + p_lo)
}

/// The hyperbolic tangent `tanh(x)`.
///
/// An odd polynomial for `|x| < 1`; above, `1 - 2t / (1 + t)` with `t = e^(-2|x|)` computed as in
/// [`exp`] and every rounding but the last compensated; `±1` from `|x| >= 9.1`, where `tanh`
/// rounds to it.
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// `tanh(x)`, within 1 ulp of the exact value (measured over every `f32` input: 0.916 ulp), the
/// same bits on the GPU and on the CPU backend. For a faster, less accurate one see
/// [`tanh_approx`].
///
/// # Special values
/// `tanh(±0) = ±0`, `tanh(±inf) = ±1`, `tanh(x) = x` for subnormal `x`; a NaN gives a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::tanh;
/// assert_eq!(tanh(0.0), 0.0);
/// assert_eq!(tanh(20.0), 1.0);
/// assert_eq!(tanh(f32::NEG_INFINITY), -1.0);
/// assert!((tanh(0.5) - 0.46211717).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn tanh(x: f32) -> f32 {
    if x.is_nan() || x == 0.0 {
        return x;
    }
    let a = abs(x);
    if a < 1.0 {
        // x + x^3 P(x^2) with x^3 = x3 + x3_lo to about 2^-48 (fma recovers both products'
        // rounding errors), so that the correction term, up to a third of the result, rounds
        // only once before the final addition.
        let x2 = x * x;
        let x3 = x * x2;
        let x3_lo = fma(x, fma(x, x, -x2), fma(x, x2, -x3));
        let p = horner(x2, &TANH_P);
        return x + fma(x3, p, x3_lo * p);
    }
    if a >= 9.1 {
        return with_sign_of(1.0, x);
    }
    // tanh(a) = 1 - q, q = 2t / (1 + t), t = e^(-2a) <= e^-2, so q <= 0.24. Every rounding
    // before the last is compensated: t is kept as t + t_lo (exact scaling of exp's unrounded
    // sum), 1 + t as d + d_lo (Fast2Sum), the quotient's error from its exact remainder, and
    // 1 - q0 as v + v_lo (Fast2Sum).
    let (k, hi, lo) = exp_reduce(-2.0 * a);
    let (s, tail) = exp_reduced(hi, lo);
    let e = s + tail;
    let e_lo = (s - e) + tail; // Fast2Sum: |s| >= |tail|
    let p = pow2(k as i32); // k in [-27, -3]: normal, the products exact
    let (t, t_lo) = (e * p, e_lo * p);
    let d = 1.0 + t;
    let d_lo = ((1.0 - d) + t) + t_lo;
    let q0 = 2.0 * t / d;
    let r = fma(-q0, d, 2.0 * t);
    // q - q0 = (r + 2 t_lo - q0 d_lo) / (d + d_lo); 2 - d stands for 1/d, within 2% for d in
    // [1, 1.14], on a correction of a few 2^-25.
    let q_lo = (r + fma(-q0, d_lo, 2.0 * t_lo)) * (2.0 - d);
    let v = 1.0 - q0;
    let v_lo = (1.0 - v) - q0;
    with_sign_of(v + (v_lo - q_lo), x)
}

/// The error function `erf(x) = (2 / sqrt(pi)) integral from 0 to x of e^(-t^2) dt`.
///
/// An odd polynomial for `|x| < 1/2`; above, one of five polynomials around the middle `m` of
/// `[1/2, 1)`, `[1, 1.5)`, `[1.5, 2)`, `[2, 2.75)`, `[2.75, 3.92)`, added to `erf(m)` carried in two
/// terms; `±1` from `|x| >= 3.92`, where `erf` rounds to it.
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// `erf(x)`, within 1 ulp of the exact value (subnormal inputs included; measured over every
/// `f32` input: 0.773 ulp), the same bits on the GPU and on the CPU backend.
///
/// # Special values
/// `erf(±0) = ±0`, `erf(±inf) = ±1`; a NaN gives a NaN.
///
/// # Example
/// ```
/// use cute_rs_device::math::erf;
/// assert_eq!(erf(0.0), 0.0);
/// assert_eq!(erf(5.0), 1.0);
/// assert_eq!(erf(f32::NEG_INFINITY), -1.0);
/// assert!((erf(1.0) - 0.8427008).abs() <= f32::EPSILON);
/// // GELU, as in a transformer kernel:
/// let gelu = |v: f32| 0.5 * v * (1.0 + erf(v * core::f32::consts::FRAC_1_SQRT_2));
/// assert!((gelu(1.0) - 0.8413447).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn erf(x: f32) -> f32 {
    if x.is_nan() || x == 0.0 {
        return x;
    }
    let a = abs(x);
    if a < pow2(-16) {
        // erf(x) = (2/sqrt(pi)) x to 2^-33. Scaled up by 2^64 so that the low part's product
        // stays normal, then down: exact, or one rounding into the subnormal range.
        let y = x * pow2(64);
        return fma(y, TWO_OVER_SQRT_PI_HI, y * TWO_OVER_SQRT_PI_LO) * pow2(-64);
    }
    if a < 0.5 {
        let x2 = x * x;
        // x (C_HI + C_LO + x^2 S): the leading product rounded only in the final fma.
        let w = fma(x2, horner(x2, &ERF_S), TWO_OVER_SQRT_PI_LO);
        return fma(x, TWO_OVER_SQRT_PI_HI, x * w);
    }
    if a >= 3.92 {
        return with_sign_of(1.0, x);
    }
    let y = if a < 1.0 {
        erf_piece(a, &ERF_0_5)
    } else if a < 1.5 {
        erf_piece(a, &ERF_1)
    } else if a < 2.0 {
        erf_piece(a, &ERF_1_5)
    } else if a < 2.75 {
        erf_piece(a, &ERF_2)
    } else {
        erf_piece(a, &ERF_2_75)
    };
    with_sign_of(y, x)
}

/// `erf(a)` for `a` in `piece`: one rounding of `erf(mid)`'s head plus a tail below `1/4`.
#[inline(always)]
fn erf_piece(a: f32, piece: &ErfPiece) -> f32 {
    let t = a - piece.mid;
    piece.erf_mid_hi + fma(-t, horner(t, &piece.p), piece.erf_mid_lo)
}

/// A fast approximation of `e^x`: PTX `ex2.approx.ftz.f32` of `x log2(e)`.
///
/// # Arguments
/// * `x`: the exponent.
///
/// # Returns
/// On the GPU, `2^(x log2(e))` by the special function unit. PTX states at most 2 ulp for
/// `ex2.approx`; the rounding of `x log2(e)` adds a relative error of up to `|x| 2^-24` (up to
/// `|x|` ulp), so the bound is `2 + |x|` ulp (about 90 ulp near the overflow threshold). Results
/// below `2^-126` are flushed to `+0`. On the CPU backend, [`exp`]: at least as accurate.
///
/// # Special values
/// `exp_approx(-inf) = +0`, `exp_approx(+inf) = +inf`, `exp_approx(±0) = 1`, NaN gives NaN;
/// on the GPU subnormal inputs count as zero.
///
/// # Example
/// ```
/// use cute_rs_device::math::exp_approx;
/// let y = exp_approx(1.0);
/// assert!((y - core::f32::consts::E).abs() <= 3.0 * 2.0 * f32::EPSILON);
/// ```
#[inline(always)]
pub fn exp_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("ex2.approx.ftz.f32", x * LOG2E_HI)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        exp(x)
    }
}

/// A fast approximation of `2^x`: PTX `ex2.approx.ftz.f32`.
///
/// # Arguments
/// * `x`: the exponent.
///
/// # Returns
/// On the GPU, `2^x` by the special function unit: PTX states at most 2 ulp from the correctly
/// rounded result over the full range; results below `2^-126` are flushed to `+0`. On the CPU
/// backend, [`exp2`]: at least as accurate.
///
/// # Special values
/// `exp2_approx(-inf) = +0`, `exp2_approx(+inf) = +inf`, `exp2_approx(±0) = 1`, NaN gives NaN;
/// on the GPU subnormal inputs count as zero.
///
/// # Example
/// ```
/// use cute_rs_device::math::exp2_approx;
/// assert!((exp2_approx(0.5) - core::f32::consts::SQRT_2).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline(always)]
pub fn exp2_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("ex2.approx.ftz.f32", x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        exp2(x)
    }
}

/// A fast approximation of `log2(x)`: PTX `lg2.approx.ftz.f32`.
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// On the GPU, `log2(x)` by the special function unit. PTX states a maximum absolute error of
/// `2^-22` for `x` in `(0.5, 2)` (so relative error is unbounded near `x = 1`) and a maximum
/// relative error of `2^-22` for other positive finite `x`. On the CPU backend, [`log2`]: at least
/// as accurate.
///
/// # Special values
/// `log2_approx(±0) = -inf`, `log2_approx(+inf) = +inf`, NaN for `x < 0` and for NaN; on the GPU
/// subnormal inputs count as zero (so give `-inf`).
///
/// # Example
/// ```
/// use cute_rs_device::math::log2_approx;
/// assert!((log2_approx(8.0) - 3.0).abs() <= 3.0 * 2f32.powi(-22));
/// ```
#[inline(always)]
pub fn log2_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("lg2.approx.ftz.f32", x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        log2(x)
    }
}

/// A fast approximation of `ln(x)`: PTX `lg2.approx.ftz.f32` times `ln(2)`.
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// On the GPU, `log2(x) ln(2)` by the special function unit: from PTX's bounds for `lg2.approx`,
/// an absolute error of at most about `2^-22 ln(2)` for `x` in `(0.5, 2)` and a relative error of
/// at most about `2^-22 + 2^-24` elsewhere (the product adds one rounding). On the CPU backend,
/// [`log`]: at least as accurate.
///
/// # Special values
/// `log_approx(±0) = -inf`, `log_approx(+inf) = +inf`, NaN for `x < 0` and for NaN; on the GPU
/// subnormal inputs count as zero (so give `-inf`).
///
/// # Example
/// ```
/// use cute_rs_device::math::log_approx;
/// assert!((log_approx(core::f32::consts::E) - 1.0).abs() <= 2f32.powi(-21));
/// ```
#[inline(always)]
pub fn log_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("lg2.approx.ftz.f32", x) * LN2_HI
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        log(x)
    }
}

/// A fast approximation of `1 / sqrt(x)`: PTX `rsqrt.approx.ftz.f32`.
///
/// # Arguments
/// * `x`: the radicand.
///
/// # Returns
/// On the GPU, `1/sqrt(x)` by the special function unit: PTX states a maximum relative error of
/// `2^-22.9` over the positive finite range. On the CPU backend, [`rsqrt`]: at least as accurate.
///
/// # Special values
/// `rsqrt_approx(+0) = +inf`, `rsqrt_approx(-0) = -inf`, `rsqrt_approx(+inf) = +0`, NaN for
/// `x < 0` and for NaN; on the GPU subnormal inputs count as zero (so give `±inf`).
///
/// # Example
/// ```
/// use cute_rs_device::math::rsqrt_approx;
/// assert!((rsqrt_approx(2.0) - core::f32::consts::FRAC_1_SQRT_2).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline(always)]
pub fn rsqrt_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("rsqrt.approx.ftz.f32", x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        rsqrt(x)
    }
}

/// A fast approximation of `sqrt(x)`: PTX `sqrt.approx.ftz.f32`.
///
/// # Arguments
/// * `x`: the radicand.
///
/// # Returns
/// On the GPU, `sqrt(x)` by the special function unit: PTX states a maximum relative error of
/// `2^-23` over the positive finite range. On the CPU backend, [`sqrt`]: correctly rounded.
///
/// # Special values
/// `sqrt_approx(±0) = ±0`, `sqrt_approx(+inf) = +inf`, NaN for `x < 0` and for NaN; on the GPU
/// subnormal inputs count as zero.
///
/// # Example
/// ```
/// use cute_rs_device::math::sqrt_approx;
/// assert!((sqrt_approx(2.0) - core::f32::consts::SQRT_2).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline(always)]
pub fn sqrt_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("sqrt.approx.ftz.f32", x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sqrt(x)
    }
}

/// A fast approximation of `tanh(x)`: PTX `tanh.approx.f32` (`sm_75` and later).
///
/// # Arguments
/// * `x`: the argument.
///
/// # Returns
/// On the GPU, `tanh(x)` by the special function unit: PTX states a maximum relative error of
/// `2^-11` over the entire range (about 11 correct bits: enough for activations, not for
/// reductions). On the CPU backend, [`tanh`]: at least as accurate.
///
/// # Special values
/// `tanh_approx(±0) = ±0`, `tanh_approx(±inf) = ±1`, NaN gives NaN; subnormal inputs are returned
/// unchanged (no flush to zero).
///
/// # Example
/// ```
/// use cute_rs_device::math::tanh_approx;
/// assert!((tanh_approx(0.5) - 0.46211717).abs() <= 0.46211717 * 2f32.powi(-11));
/// ```
#[inline(always)]
pub fn tanh_approx(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        ptx_unary!("tanh.approx.f32", x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        tanh(x)
    }
}

/// The high 32 bits of the 64-bit product `a * b` (`__umulhi`): one `mul.hi.u32` on the GPU, where
/// LLVM would otherwise keep a widened product in 64-bit multiplies of several instructions each.
///
/// # Example
/// ```
/// use cute_rs_device::math::mul_hi_u32;
/// assert_eq!(mul_hi_u32(0xD251_1F53, 0xffff_ffff), 0xD251_1F52);
/// assert_eq!(mul_hi_u32(1 << 16, 1 << 16), 1);
/// ```
#[inline(always)]
pub fn mul_hi_u32(a: u32, b: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let hi: u32;
        // SAFETY: register-only arithmetic.
        unsafe {
            core::arch::asm!("mul.hi.u32 {hi}, {a}, {b};", hi = out(reg32) hi, a = in(reg32) a, b = in(reg32) b,
                options(pure, nomem, nostack, preserves_flags))
        };
        hi
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ((a as u64 * b as u64) >> 32) as u32
    }
}
