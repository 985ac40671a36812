//! Loops unrolled by construction: every index is a literal constant in the code the compiler
//! sees, whatever LLVM's unrolling heuristics decide.
//!
//! # Why
//! Register arrays (fragments, accumulators) stay in registers only while every index into them
//! is a compile-time constant. LLVM unrolls most small constant-trip loops, but not all: nested
//! loops over 64 or 128 accumulators, or a loop whose body is large, can stay rolled, and the
//! array then moves to local memory (a stack frame in ptxas's report; for wgmma accumulators,
//! injected `warpgroup.wait`s: C7517/C7519). The helpers here expand to one call per index
//! (at most [`MAX_UNROLL`]), with the index a literal, so the array never needs a run-time index.
//! The tensor algorithms (`gemm`, `copy`, `axpby`, ...) iterate through them; kernels may too.
//! The count is a type ([`TripCount`]): see [`unroll_for`] for why.

/// The largest trip count the helpers unroll.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_device::unroll::MAX_UNROLL, 128);
/// ```
pub const MAX_UNROLL: usize = 128;

/// A trip count known from types: `N` is a constant in every function generic over the type, so
/// [`unroll_for`] sees it as one after monomorphization (a const generic argument computed from
/// an associated constant is not expressible on stable Rust; a type carrying it is).
///
/// # Example
/// ```
/// use cute_rs_device::unroll::{unroll_for, TripCount};
/// struct Four;
/// impl TripCount for Four { const N: usize = 4; }
/// let mut n = 0;
/// unroll_for::<Four>(|i| n += i);
/// assert_eq!(n, 6);
/// ```
pub trait TripCount {
    /// The number of iterations.
    const N: usize;
}

/// The trip count `N` as a type (for literal counts).
///
/// # Example
/// ```
/// use cute_rs_device::unroll::{Count, TripCount};
/// assert_eq!(<Count<3> as TripCount>::N, 3);
/// ```
pub struct Count<const N: usize>;
impl<const N: usize> TripCount for Count<N> {
    const N: usize = N;
}

/// Calls `f(i)` for `i` in `0..C::N`, in order, each call with `i` a literal constant when
/// `C::N <= MAX_UNROLL` (beyond, an ordinary loop: arrays that large do not live in registers).
///
/// The count must be a constant *in this function* for the calls past it to be removed before
/// LLVM decides whether to inline `f` at each call: a run-time count (even one that becomes
/// constant after inlining) leaves 128 call sites, too many to inline a large `f` into, and the
/// fragments it touches then go to local memory. Hence a type-level count.
///
/// # Example
/// ```
/// use cute_rs_device::unroll::{unroll_for, Count};
/// let mut acc = [0u32; 8];
/// unroll_for::<Count<8>>(|i| acc[i] = (i * i) as u32);
/// assert_eq!(acc[7], 49);
/// let mut sum = 0;
/// unroll_for::<Count<1000>>(|i| sum += i); // past MAX_UNROLL: a loop
/// assert_eq!(sum, 499500);
/// ```
#[inline(always)]
pub fn unroll_for<C: TripCount>(mut f: impl FnMut(usize)) {
    if C::N > MAX_UNROLL {
        for i in 0..C::N {
            f(i);
        }
        return;
    }
    macro_rules! visit {
        ($($i:literal)*) => {$(
            if $i < C::N {
                f($i);
            }
        )*};
    }
    visit!(
        0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
        32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
        64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
        96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120
        121 122 123 124 125 126 127
    );
}

/// Calls `f(i, &mut d[i])` for `i` in `0..K` (K at most [`MAX_UNROLL`]), each `i` a literal
/// constant: [`unroll_for`] over an array.
///
/// # Example
/// ```
/// use cute_rs_device::unroll::for_each_unrolled_mut;
/// let mut d = [0.0f32; 64];
/// for_each_unrolled_mut(&mut d, |i, x| *x = i as f32);
/// assert_eq!(d[63], 63.0);
/// ```
///
/// # Panics
/// At compile time when `K > 128`.
#[inline(always)]
pub fn for_each_unrolled_mut<T, const K: usize>(d: &mut [T; K], mut f: impl FnMut(usize, &mut T)) {
    const { assert!(K <= MAX_UNROLL, "for_each_unrolled_mut visits at most 128 elements") };
    unroll_for::<Count<K>>(|i| f(i, &mut d[i]));
}
