//! `device::math` against `f64` references: ulp errors over dense sweeps of the `f32` range
//! (every input, with `--ignored`), the documented bounds asserted, and the special values.

use cute_rs_device::math::*;

/// A function of the module under test.
type F = fn(f32) -> f32;

/// Error of `got` in units of the last place of the `f32` nearest `want` (subnormal ulp `2^-149`
/// below `2^-126`); 0 when both are the same NaN-ness or the same infinity.
fn ulp_error(got: f32, want: f64) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if want.is_infinite() {
        return if got as f64 == want { 0.0 } else { f64::INFINITY };
    }
    // Infinity counts as 2^128, the next binade's start: an overflow of a result that rounds to
    // `f32::MAX` is 1 ulp off, and every exact value beyond 2^128 is infinity, 0 ulp off.
    let top = 2f64.powi(128);
    let got = if got.is_infinite() { top.copysign(got as f64) } else { got as f64 };
    let want = want.clamp(-top, top);
    let a = want.abs();
    let exponent = if a < f32::MIN_POSITIVE as f64 {
        -126
    } else {
        (((a.to_bits() >> 52) & 0x7ff) as i32 - 1023).min(127)
    };
    (got - want).abs() / 2f64.powi(exponent - 23)
}

/// `erf` in `f64` from the series without cancellation,
/// `erf(a) = (2/sqrt(pi)) e^(-a^2) sum_n 2^n a^(2n+1) / (1 3 5 ... (2n+1))`: every term positive,
/// so the sum is accurate to a few `f64` ulps for the `|a| <= 6` it is used on (beyond, `erf`
/// is 1 to far below `f32` precision).
fn erf_ref(x: f64) -> f64 {
    let a = x.abs();
    if a > 6.0 {
        return 1f64.copysign(x);
    }
    let a2 = a * a;
    let (mut term, mut sum, mut n) = (a, a, 0u32);
    while term > sum * 1e-18 {
        n += 1;
        term *= 2.0 * a2 / (2 * n + 1) as f64;
        sum += term;
    }
    (core::f64::consts::FRAC_2_SQRT_PI * (-a2).exp() * sum).copysign(x)
}

struct Case {
    name: &'static str,
    f: F,
    reference: fn(f64) -> f64,
    /// The bound the function's documentation states, in ulp.
    bound: f64,
}

fn cases() -> [Case; 8] {
    [
        Case { name: "exp", f: exp, reference: f64::exp, bound: 1.0 },
        Case { name: "exp2", f: exp2, reference: f64::exp2, bound: 1.0 },
        Case { name: "log", f: log, reference: f64::ln, bound: 1.0 },
        Case { name: "log2", f: log2, reference: f64::log2, bound: 1.0 },
        Case { name: "tanh", f: tanh, reference: f64::tanh, bound: 1.0 },
        Case { name: "erf", f: erf, reference: erf_ref, bound: 1.0 },
        Case { name: "sqrt", f: sqrt, reference: f64::sqrt, bound: 0.5 },
        Case { name: "rsqrt", f: rsqrt, reference: |x| 1.0 / x.sqrt(), bound: 1.0 },
    ]
}

/// The largest error of `case` over `inputs` and where, over all of them and over those whose
/// exact result is not in the subnormal range.
fn max_error(case: &Case, inputs: impl Iterator<Item = f32>) -> ((f64, f32), (f64, f32)) {
    let (mut worst, mut worst_normal) = ((0.0, 0.0), (0.0, 0.0));
    for x in inputs {
        let want = (case.reference)(x as f64);
        let e = ulp_error((case.f)(x), want);
        if e > worst.0 || e.is_nan() {
            worst = (e, x);
        }
        let subnormal = want.abs() < f32::MIN_POSITIVE as f64 && want != 0.0;
        if (e > worst_normal.0 || e.is_nan()) && !subnormal {
            worst_normal = (e, x);
        }
    }
    (worst, worst_normal)
}

fn report(case: &Case, (worst, normal): ((f64, f32), (f64, f32))) {
    let ((e, x), (en, xn)) = (worst, normal);
    println!(
        "{:>5}: max {e:.4} ulp at {x:e} ({:#010x}); results not subnormal: {en:.4} ulp at {xn:e}",
        case.name,
        x.to_bits()
    );
    assert!(e <= case.bound, "{}({x:e}) is off by {e} ulp (bound {})", case.name, case.bound);
}

/// The inputs where the reductions and the pieces change, and the thresholds of overflow,
/// underflow and saturation.
const EDGES: [f32; 24] = [
    0.0, 0.5, 1.0, 1.5, 2.0, 2.75, 3.92, 9.1, 9.0109, 88.72284, 89.0, 103.97208, 104.0, 126.0,
    128.0, 149.0, 150.0, 151.0, core::f32::consts::LN_2 / 2.0, core::f32::consts::FRAC_1_SQRT_2,
    core::f32::consts::SQRT_2, 1.0e-30, 1.0 / 65536.0, 7.888609e-31, // 2^-16, 2^-100
];

/// A dense deterministic sample of the `f32` bit patterns (about 2.4 million): every 2039th one,
/// the 4096 on each side of each of [`EDGES`] and of their negations, and every 7th of the
/// 65536 smallest subnormals and of the binade `[1, 2)`.
fn sample() -> impl Iterator<Item = f32> {
    let stride = (0..=u32::MAX).step_by(2039).map(f32::from_bits);
    let edges = EDGES.iter().flat_map(|&e| {
        [e, -e].into_iter().flat_map(|e| {
            let b = e.to_bits() as i64;
            (b - 4096..b + 4096)
                .filter(|&v| (0..=u32::MAX as i64).contains(&v))
                .map(|v| f32::from_bits(v as u32))
        })
    });
    let binades = (0..1u32 << 16)
        .chain(1f32.to_bits()..2f32.to_bits())
        .step_by(7)
        .map(f32::from_bits);
    stride.chain(edges).chain(binades)
}

#[test]
fn ulp_errors_within_documented_bounds() {
    for case in cases() {
        report(&case, max_error(&case, sample()));
    }
}

/// Every `f32` input: `cargo test --release -p layout-tensor --test math -- --ignored --nocapture`
/// (about 12 minutes on one core). The maxima it prints are the ones the documentation quotes.
#[test]
#[ignore]
fn ulp_errors_exhaustive() {
    for case in cases() {
        report(&case, max_error(&case, (0..=u32::MAX).map(f32::from_bits)));
    }
}

#[test]
fn erf_reference_matches_known_values() {
    // erf(0.5), erf(1), erf(2), erf(3) to 16 digits (Abramowitz and Stegun, table 7.1).
    for (x, want) in [
        (0.5, 0.5204998778130465),
        (1.0, 0.8427007929497149),
        (2.0, 0.9953222650189527),
        (3.0, 0.9999779095030014),
    ] {
        assert!((erf_ref(x) - want).abs() <= 4e-16, "erf_ref({x}) = {}", erf_ref(x));
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn special_values() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    let tiny = f32::from_bits(1);
    let table: [(&str, F, f32, f32); 44] = [
        ("exp", exp, 0.0, 1.0),
        ("exp", exp, -0.0, 1.0),
        ("exp", exp, inf, inf),
        ("exp", exp, -inf, 0.0),
        ("exp", exp, nan, nan),
        ("exp", exp, 88.72284, inf),
        ("exp", exp, -104.0, 0.0),
        ("exp", exp, tiny, 1.0),
        ("exp2", exp2, 0.0, 1.0),
        ("exp2", exp2, 128.0, inf),
        ("exp2", exp2, 127.0, 2f32.powi(127)),
        ("exp2", exp2, -126.0, f32::MIN_POSITIVE),
        ("exp2", exp2, -149.0, tiny),
        ("exp2", exp2, -150.0, 0.0),
        ("exp2", exp2, -inf, 0.0),
        ("exp2", exp2, nan, nan),
        ("log", log, 1.0, 0.0),
        ("log", log, 0.0, -inf),
        ("log", log, -0.0, -inf),
        ("log", log, inf, inf),
        ("log", log, -1.0, nan),
        ("log", log, -inf, nan),
        ("log", log, nan, nan),
        ("log", log, tiny, -103.27893),
        ("log2", log2, tiny, -149.0),
        ("log2", log2, 0.0, -inf),
        ("log2", log2, inf, inf),
        ("log2", log2, -tiny, nan),
        ("log2", log2, 2f32.powi(127), 127.0),
        ("tanh", tanh, 0.0, 0.0),
        ("tanh", tanh, -0.0, -0.0),
        ("tanh", tanh, inf, 1.0),
        ("tanh", tanh, -inf, -1.0),
        ("tanh", tanh, -tiny, -tiny),
        ("tanh", tanh, nan, nan),
        ("erf", erf, 0.0, 0.0),
        ("erf", erf, -0.0, -0.0),
        ("erf", erf, inf, 1.0),
        ("erf", erf, -inf, -1.0),
        ("erf", erf, nan, nan),
        ("rsqrt", rsqrt, 0.0, inf),
        ("rsqrt", rsqrt, -0.0, -inf),
        ("rsqrt", rsqrt, inf, 0.0),
        ("rsqrt", rsqrt, -1.0, nan),
    ];
    for (name, f, x, want) in table {
        assert!(same(f(x), want), "{name}({x:e}) = {:e}, want {want:e}", f(x));
    }
    // Exact results where the exact value is an f32.
    for k in -149..128 {
        assert_eq!(exp2(k as f32), 2f64.powi(k) as f32, "exp2({k})");
        assert_eq!(log2(2f64.powi(k) as f32), k as f32, "log2(2^{k})");
    }
}

#[test]
fn fma_min_max_abs() {
    let (inf, nan) = (f32::INFINITY, f32::NAN);
    // One rounding: the product's low bits survive.
    let e = f32::EPSILON;
    assert_eq!(fma(1.0 + e, 1.0 - e, -1.0), -e * e);
    assert!(fma(0.0, inf, 1.0).is_nan());
    assert!(fma(inf, 1.0, -inf).is_nan());
    assert_eq!(fma(f32::MAX, 2.0, 0.0), inf);
    // minNum / maxNum, with -0 < +0.
    assert_eq!(min(1.0, 2.0), 1.0);
    assert_eq!(max(1.0, 2.0), 2.0);
    assert_eq!(min(nan, 2.0), 2.0);
    assert_eq!(min(2.0, nan), 2.0);
    assert_eq!(max(nan, -2.0), -2.0);
    assert_eq!(max(-2.0, nan), -2.0);
    assert!(min(nan, nan).is_nan() && max(nan, nan).is_nan());
    for (a, b) in [(0.0f32, -0.0f32), (-0.0, 0.0)] {
        assert_eq!(min(a, b).to_bits(), (-0.0f32).to_bits());
        assert_eq!(max(a, b).to_bits(), 0f32.to_bits());
    }
    assert_eq!(min(-inf, 0.0), -inf);
    assert_eq!(max(inf, 0.0), inf);
    assert_eq!(abs(-3.0).to_bits(), 3f32.to_bits());
    assert_eq!(abs(-0.0).to_bits(), 0);
    assert_eq!(abs(-inf), inf);
    assert_eq!(sqrt(-0.0).to_bits(), (-0.0f32).to_bits());
    assert!(sqrt(-1.0).is_nan());
}

/// On the CPU backend each `_approx` function is its accurate counterpart, bit for bit.
#[test]
fn approx_is_accurate_on_the_host() {
    let pairs: [(F, F); 7] = [
        (exp_approx, exp),
        (exp2_approx, exp2),
        (log_approx, log),
        (log2_approx, log2),
        (rsqrt_approx, rsqrt),
        (sqrt_approx, sqrt),
        (tanh_approx, tanh),
    ];
    for x in (0..=u32::MAX).step_by(65_521).map(f32::from_bits) {
        for (approx, accurate) in pairs {
            assert!(same(approx(x), accurate(x)), "{x:e}");
        }
    }
}
