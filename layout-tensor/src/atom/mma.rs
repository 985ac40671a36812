//! MMA atoms: one matrix instruction each, with the thread-value layouts of its operands (CuTe's
//! `MMA_Atom<MMA_Traits<Op>>`).
//!
//! An atom computes `C += A B` on an `M x N x K` block with [`THREADS`](MmaAtom::THREADS)
//! threads. Which values of A, B and C each thread holds is given by three layouts of the
//! algebra, `(thread, value) -> index` (see [`MmaAtom`]). The atoms here:
//!
//! | atom | instruction | A, B | C | threads |
//! | --- | --- | --- | --- | --- |
//! | [`UniversalFma<T>`] | `c += a * b` (one FFMA for `f32`) | `T` | `T` | 1 |
//! | [`SM80_16x8x16_F32BF16BF16F32_TN`] | `mma.sync.m16n8k16` | bf16 | f32 | 32 |
//! | [`SM80_16x8x16_F32F16F16F32_TN`] | `mma.sync.m16n8k16` | f16 | f32 | 32 |
//! | [`SM80_16x8x8_F32TF32TF32F32_TN`] | `mma.sync.m16n8k8` | tf32 (as `f32`) | f32 | 32 |
//!
//! The `mma.sync` atoms run on the CPU backend too, with the GPU's results (see
//! [`device::mma`](crate::device::mma)).
//!
//! ```
//! use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
//! assert_eq!((Atom::M, Atom::N, Atom::K, Atom::THREADS), (16, 8, 16, 32));
//! assert_eq!((Atom::VALUES_A, Atom::VALUES_B, Atom::VALUES_C), (8, 4, 4));
//! ```
#![allow(non_camel_case_types)]

use cute_rs_layout::{unwrap, Layout};

use crate::device::mma::{self as instr, MmaTraits};
use crate::half::{bf16, f16};
use crate::tensor::Element;

/// One matrix-multiply-accumulate instruction and the thread-value layouts of its operands.
///
/// With the operand shapes `A: M x K`, `B: K x N` (seen as its `N x K` transpose, CuTe's "TN"
/// convention) and `C: M x N`:
/// - [`LAYOUT_A`](Self::LAYOUT_A): `(thread, value) -> m + M * k`;
/// - [`LAYOUT_B`](Self::LAYOUT_B): `(thread, value) -> n + N * k`;
/// - [`LAYOUT_C`](Self::LAYOUT_C): `(thread, value) -> m + M * n`.
///
/// Each is a bijection from `THREADS x VALUES_*` onto its operand's block (checked by the tests).
///
/// # Example
/// Thread 5 of the bf16 atom holds A's rows 1 and 9, columns 2, 3, 10 and 11:
/// ```
/// use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
/// let at: Vec<(i64, i64)> = (0..8).map(|v| Atom::LAYOUT_A.call(5 + 32 * v)).map(|i| (i % 16, i / 16)).collect();
/// assert_eq!(at, [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]);
/// ```
pub trait MmaAtom: Copy + Default {
    /// A's values as a thread holds them.
    type A: Element;
    /// B's values.
    type B: Element;
    /// C's (and D's) values.
    type C: Element;
    /// Rows of A and C.
    const M: i64;
    /// Columns of B and C.
    const N: i64;
    /// Columns of A, rows of B.
    const K: i64;
    /// Threads that execute the instruction together.
    const THREADS: i64;
    /// `(thread, value) -> m + M * k` in A.
    const LAYOUT_A: Layout;
    /// `(thread, value) -> n + N * k` in B.
    const LAYOUT_B: Layout;
    /// `(thread, value) -> m + M * n` in C.
    const LAYOUT_C: Layout;
    /// A's values per thread.
    const VALUES_A: usize = (Self::LAYOUT_A.size() / Self::THREADS) as usize;
    /// B's values per thread.
    const VALUES_B: usize = (Self::LAYOUT_B.size() / Self::THREADS) as usize;
    /// C's values per thread.
    const VALUES_C: usize = (Self::LAYOUT_C.size() / Self::THREADS) as usize;

    /// `c += a * b` on this thread's values: `a` points at its [`VALUES_A`](Self::VALUES_A)
    /// values of A in value order, `b` at those of B, `c` at those of C.
    ///
    /// # Safety
    /// The pointers are valid for that many values and aligned to 16 bytes or to the values'
    /// total size, whichever is smaller; all [`THREADS`](Self::THREADS) threads call it together
    /// (converged).
    unsafe fn call(a: *const Self::A, b: *const Self::B, c: *mut Self::C);
}

/// `c += a * b` on one thread (CuTe's `UniversalFMA<T>`): a `1 x 1 x 1` atom. For `f32` it is one
/// `fma.rn.f32`; other types multiply and add.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{MmaAtom, UniversalFma};
/// let (a, b, mut c) = (3.0f32, 4.0f32, 1.0f32);
/// unsafe { UniversalFma::<f32>::call(&a, &b, &mut c) };
/// assert_eq!(c, 13.0);
/// ```
#[derive(Debug)]
pub struct UniversalFma<T>(core::marker::PhantomData<T>);
impl<T> Clone for UniversalFma<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for UniversalFma<T> {}
impl<T> Default for UniversalFma<T> {
    fn default() -> Self {
        UniversalFma(core::marker::PhantomData)
    }
}

/// The one-thread, one-value layout of [`UniversalFma`]'s operands.
const SCALAR: Layout = unwrap!(Layout::parse("(1,1):(0,0)"));

/// Element types that [`UniversalFma`] multiplies and adds.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::mma::Fma;
/// assert_eq!(Fma::fma(2i32, 3, 4), 10);
/// ```
pub trait Fma: Element {
    /// `a * b + c`.
    fn fma(a: Self, b: Self, c: Self) -> Self;
}
impl Fma for f32 {
    #[inline(always)]
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        crate::device::math::fma(a, b, c)
    }
}
impl Fma for f64 {
    #[inline(always)]
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        a * b + c
    }
}
impl Fma for i32 {
    #[inline(always)]
    fn fma(a: i32, b: i32, c: i32) -> i32 {
        a.wrapping_mul(b).wrapping_add(c)
    }
}

impl<T: Fma> MmaAtom for UniversalFma<T> {
    type A = T;
    type B = T;
    type C = T;
    const M: i64 = 1;
    const N: i64 = 1;
    const K: i64 = 1;
    const THREADS: i64 = 1;
    const LAYOUT_A: Layout = SCALAR;
    const LAYOUT_B: Layout = SCALAR;
    const LAYOUT_C: Layout = SCALAR;
    #[inline(always)]
    unsafe fn call(a: *const T, b: *const T, c: *mut T) {
        *c = T::fma(*a, *b, *c);
    }
}

/// Declares an `mma.sync` atom from the device crate's traits and instruction: the operands are
/// passed as the instruction's registers (16-bit values two per register, value `2j` in the low
/// half of register `j`; tf32 one per register), which is how the values lie in memory.
macro_rules! mma_sync_atoms {
    ($($(#[$doc:meta])* $name:ident: $a:ty, $b:ty => $c:ty, $traits:expr, $instr:path;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl MmaAtom for $name {
            type A = $a;
            type B = $b;
            type C = $c;
            const M: i64 = TRAITS_OF.$name.m;
            const N: i64 = TRAITS_OF.$name.n;
            const K: i64 = TRAITS_OF.$name.k;
            const THREADS: i64 = TRAITS_OF.$name.threads;
            const LAYOUT_A: Layout = TRAITS_OF.$name.a;
            const LAYOUT_B: Layout = TRAITS_OF.$name.b;
            const LAYOUT_C: Layout = TRAITS_OF.$name.c;
            #[inline(always)]
            unsafe fn call(a: *const $a, b: *const $b, c: *mut $c) {
                let d = $instr(*(a as *const [u32; 4]), *(b as *const [u32; 2]), *(c as *const [f32; 4]));
                *(c as *mut [f32; 4]) = d;
            }
        }
    )*
        /// The device crate's description of each `mma.sync` atom, by atom name.
        #[allow(non_snake_case)]
        struct Traits { $($name: MmaTraits,)* }
        const TRAITS_OF: Traits = Traits { $($name: $traits,)* };
    };
}

mma_sync_atoms! {
    /// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`: A 16 x 16 and B 16 x 8 bf16 (8 and 4
    /// values per thread), C 16 x 8 f32 (4 per thread), one warp.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
    /// // lane 6, value 3 of C: row 1 + 8, column 2 * 2 + 1
    /// assert_eq!(Atom::LAYOUT_C.call(6 + 32 * 3), 9 + 16 * 5);
    /// ```
    SM80_16x8x16_F32BF16BF16F32_TN: bf16, bf16 => f32, instr::SM80_16X8X16_F32BF16BF16F32_TN, instr::mma_m16n8k16_f32_bf16;
    /// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`: the bf16 atom's layouts, f16 values.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN, SM80_16x8x16_F32BF16BF16F32_TN};
    /// assert_eq!(SM80_16x8x16_F32F16F16F32_TN::LAYOUT_B, SM80_16x8x16_F32BF16BF16F32_TN::LAYOUT_B);
    /// ```
    SM80_16x8x16_F32F16F16F32_TN: f16, f16 => f32, instr::SM80_16X8X16_F32F16F16F32_TN, instr::mma_m16n8k16_f32_f16;
    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: A 16 x 8 and B 8 x 8 tf32 (`f32` values
    /// whose low 13 mantissa bits the tensor cores ignore; 4 and 2 per thread), C 16 x 8 f32.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x8_F32TF32TF32F32_TN as Atom};
    /// assert_eq!((Atom::VALUES_A, Atom::VALUES_B), (4, 2));
    /// ```
    SM80_16x8x8_F32TF32TF32F32_TN: f32, f32 => f32, instr::SM80_16X8X8_F32TF32TF32F32_TN, instr::mma_m16n8k8_f32_tf32;
}
