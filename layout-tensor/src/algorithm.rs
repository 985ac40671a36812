//! CuTe's algorithms on tensors: [`gemm`] (a tiled MMA over register fragments), [`axpby`],
//! [`fill`] and [`transform`]. Their loops over a static layout are unrolled by construction
//! ([`unroll`](crate::device::unroll)), so that register fragments keep constant indices and stay
//! in registers.
//!
//! A thread's share of `C += A B` with a tiled MMA, on the CPU backend's FMA atom:
//! ```
//! use cute_rs_tensor::algorithm::gemm;
//! use cute_rs_tensor::atom::{TiledMma, UniversalFma};
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static};
//! static_layout!(One = "(1,1,1)");       // one thread
//! static_layout!(A = "(2,3):(3,1)");     // 2 x 3, row-major
//! static_layout!(B = "(2,3):(3,1)");     // N x K: B's transpose, row-major
//! static_layout!(C = "(2,2):(1,2)");
//! type Mma = TiledMma<UniversalFma<f32>, One>;
//! let (mut a, mut b) = ([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0f32, 0.0, 1.0, 0.0, 1.0, 0.0]);
//! let thr = Mma::get_slice(0);
//! let ta = thr.partition_a(LayoutTensor::new(&mut a, Static::<A>::new()).unwrap());
//! let tb = thr.partition_b(LayoutTensor::new(&mut b, Static::<B>::new()).unwrap());
//! let mut acc = thr.partition_fragment_c::<C, 4>();
//! gemm(Mma::default(), ta, tb, acc.tensor());
//! assert_eq!(acc.data, [4.0, 10.0, 2.0, 5.0]); // column-major 2 x 2: A times B
//! ```

use core::ops::{Add, Mul};

use crate::atom::{MmaAtom, TiledMma};
use crate::device::unroll::{unroll_for, TripCount};
use crate::mask::Full;
use crate::static_layout::{ModeSize, SizeOf, Static, StaticLayout};
use crate::tensor::{coord_offset, AddressSpace, Element, LayoutTensor};

/// Whether mode 0 of `S` is contiguous: its 1-D index `i` at offset `i`.
const fn first_mode_contiguous<S: StaticLayout>() -> bool {
    let m = cute_rs_layout::unwrap!(S::LAYOUT.mode(0));
    let mut i = 0;
    while i < m.size() {
        if m.call(i) != i {
            return false;
        }
        i += 1;
    }
    true
}

/// The tiled MMA's atoms per thread block along `(M, N, K)[DIM]`, as a trip count.
struct Values<Atom, G, V, const DIM: usize>(core::marker::PhantomData<(Atom, G, V)>);
impl<Atom: MmaAtom, G: StaticLayout, V: StaticLayout, const DIM: usize> TripCount for Values<Atom, G, V, DIM> {
    const N: usize = TiledMma::<Atom, G, V>::GEOMETRY.values[DIM] as usize;
}

/// `c += a * b` with the tiled MMA `Mma` on one thread's partitions (CuTe's `gemm(mma, a, b, c)`):
/// for every K repetition, M repetition and N repetition, every atom of the thread block.
///
/// # Parameters
/// - `a`: `(values, M repetitions, K repetitions)`, as [`partition_a`](crate::atom::ThrMma::partition_a)
///   or [`partition_fragment_a`](crate::atom::ThrMma::partition_fragment_a) gives it; `b` and `c`
///   likewise (`(values, N, K)` and `(values, M, N)`).
///
/// A and B may also be one k-block, `(values, M repetitions)` and `(values, N repetitions)`
/// (CuTe's `gemm(mma, tCrA(_, _, k), tCrB(_, _, k), tCrC)`).
///
/// # Constraints
/// Checked at compile time: C is rank 3, A and B both rank 3 or both rank 2; their first modes hold one thread block's
/// values of each operand, contiguously (as fragments do); their repetitions agree.
///
/// # Example
/// See the [module documentation](self).
#[inline(always)]
pub fn gemm<Atom: MmaAtom, G: StaticLayout, V: StaticLayout, LA, LB, LC, SA, SB, SC>(
    _mma: TiledMma<Atom, G, V>,
    a: LayoutTensor<'_, Atom::A, Static<LA>, SA, Full>,
    b: LayoutTensor<'_, Atom::B, Static<LB>, SB, Full>,
    c: LayoutTensor<'_, Atom::C, Static<LC>, SC, Full>,
) where
    LA: StaticLayout,
    LB: StaticLayout,
    LC: StaticLayout,
    SA: AddressSpace,
    SB: AddressSpace,
    SC: AddressSpace,
{
    let vals = TiledMma::<Atom, G, V>::GEOMETRY.values;
    const {
        assert!(
            LC::MODES.rank == 3 && ((LA::MODES.rank == 3 && LB::MODES.rank == 3) || (LA::MODES.rank == 2 && LB::MODES.rank == 2)),
            "gemm: C must be a (values, M, N) partition, A and B (values, M, K) and (values, N, K), or both one k-block (values, M) and (values, N)"
        );
        assert!(
            LA::MODES.size[0] == TiledMma::<Atom, G, V>::GEOMETRY.values[0] * TiledMma::<Atom, G, V>::GEOMETRY.values[2] * Atom::VALUES_A as i64
                && LB::MODES.size[0] == TiledMma::<Atom, G, V>::GEOMETRY.values[1] * TiledMma::<Atom, G, V>::GEOMETRY.values[2] * Atom::VALUES_B as i64
                && LC::MODES.size[0] == TiledMma::<Atom, G, V>::GEOMETRY.values[0] * TiledMma::<Atom, G, V>::GEOMETRY.values[1] * Atom::VALUES_C as i64,
            "gemm: the first mode of A, B and C must hold one thread block's values of the tiled MMA"
        );
        assert!(
            first_mode_contiguous::<LA>() && first_mode_contiguous::<LB>() && first_mode_contiguous::<LC>(),
            "gemm: each first mode must be contiguous (a register fragment's)"
        );
        assert!(
            LA::MODES.size[1] == LC::MODES.size[1] && LB::MODES.size[1] == LC::MODES.size[2] && (LA::MODES.rank == 2 || LA::MODES.size[2] == LB::MODES.size[2]),
            "gemm: the repetitions must agree: A (M, K), B (N, K), C (M, N)"
        );
    }
    let (vm, vn) = (vals[0] as usize, vals[1] as usize);
    unroll_for::<ModeSize<LA, 2>>(|k| {
        unroll_for::<ModeSize<LC, 1>>(|m| {
            unroll_for::<ModeSize<LC, 2>>(|n| {
                unroll_for::<Values<Atom, G, V, 2>>(|j| {
                    unroll_for::<Values<Atom, G, V, 0>>(|i| {
                        unroll_for::<Values<Atom, G, V, 1>>(|l| {
                            let va = (Atom::VALUES_A * (i + vm * j)) as i64;
                            let vb = (Atom::VALUES_B * (l + vn * j)) as i64;
                            let vc = (Atom::VALUES_C * (i + vm * l)) as i64;
                            let pa = a.elem_ptr(coord_offset(&LA::LAYOUT, &LA::MODES, &[va, m as i64, k as i64][..LA::MODES.rank]) as isize);
                            let pb = b.elem_ptr(coord_offset(&LB::LAYOUT, &LB::MODES, &[vb, n as i64, k as i64][..LB::MODES.rank]) as isize);
                            let pc = c.elem_ptr(coord_offset(&LC::LAYOUT, &LC::MODES, &[vc, m as i64, n as i64]) as isize);
                            // SAFETY: each first mode holds a block's values contiguously (checked
                            // above), so the atom's values lie at pa.., pb.., pc.. inside the views.
                            unsafe { Atom::call(pa, pb, pc) };
                        });
                    });
                });
            });
        });
    });
}


/// `y = alpha * x + beta * y` element by element (CuTe's `axpby`); `y` is not read when `beta`
/// is zero (as in BLAS, so `y` may hold anything, NaN included).
///
/// # Constraints
/// `x` and `y` have the same size (checked at compile time).
///
/// # Example
/// ```
/// use cute_rs_tensor::{algorithm::axpby, static_layout, LayoutTensor, Static};
/// static_layout!(V = "4:1");
/// let (mut x, mut y) = ([1.0f32, 2.0, 3.0, 4.0], [10.0f32; 4]);
/// let (tx, ty) = (LayoutTensor::new(&mut x, Static::<V>::new()).unwrap(), LayoutTensor::new(&mut y, Static::<V>::new()).unwrap());
/// axpby(2.0, tx, 0.5, ty);
/// assert_eq!(y, [7.0, 9.0, 11.0, 13.0]);
/// let mut z = [f32::NAN; 4];
/// axpby(1.0, tx, 0.0, LayoutTensor::new(&mut z, Static::<V>::new()).unwrap());
/// assert_eq!(z, [1.0, 2.0, 3.0, 4.0]);
/// ```
#[inline(always)]
pub fn axpby<T, LX: StaticLayout, LY: StaticLayout, AX: AddressSpace, AY: AddressSpace>(
    alpha: T,
    x: LayoutTensor<'_, T, Static<LX>, AX, Full>,
    beta: T,
    y: LayoutTensor<'_, T, Static<LY>, AY, Full>,
) where
    T: Element + Mul<Output = T> + Add<Output = T> + PartialEq,
{
    const { assert!(LX::SIZE == LY::SIZE, "axpby: x and y must have the same size") };
    let read_y = beta != T::ZERO;
    unroll_for::<SizeOf<LX>>(|i| {
        let v = alpha * x.get(i);
        y.set(i, if read_y { v + beta * y.get(i) } else { v });
    });
}

/// Sets every element of `t` to `value` (CuTe's `fill`).
///
/// # Example
/// ```
/// use cute_rs_tensor::{algorithm::fill, static_layout, Fragment};
/// static_layout!(F = "(2,2)");
/// let mut f = Fragment::<f32, F, 4>::new();
/// fill(f.tensor(), 1.5);
/// assert_eq!(f.data, [1.5; 4]);
/// ```
#[inline(always)]
pub fn fill<T: Element, L: StaticLayout, A: AddressSpace>(t: LayoutTensor<'_, T, Static<L>, A, Full>, value: T) {
    unroll_for::<SizeOf<L>>(|i| t.set(i, value));
}

impl<'a, T: Element, L: crate::LayoutSource, A: AddressSpace, B: crate::Bounds> LayoutTensor<'a, T, L, A, B> {
    /// Sets every element to `value` and returns the tensor (Mojo's `tensor.fill(0)`), on any
    /// layout: static or run-time, nested, swizzled, strided, and partial tiles (whose
    /// out-of-bounds elements are left alone). Elementwise, as Mojo's: for a large buffer a
    /// `memset` is faster. For a register fragment, the free function [`fill`] unrolls the loop
    /// by construction.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_layout::Layout;
    /// // Mojo's `LayoutTensor[DType.float32, Layout.row_major(8, 16)](storage).fill(0)`.
    /// let mut storage = [7.0f32; 8 * 16];
    /// let t = LayoutTensor::new(&mut storage, Layout::parse("(8,16):(16,1)").unwrap()).unwrap();
    /// assert_eq!(t.fill(0.0).get(5), 0.0);
    /// assert!(storage.iter().all(|&x| x == 0.0));
    /// // The partial tile at the corner of a 5 x 7 matrix: only its 1 x 3 elements.
    /// static_layout!(M = "(5,7):(7,1)");
    /// static_layout!(Tl = "(4,4)");
    /// let mut w = [0u8; 35];
    /// LayoutTensor::new(&mut w, Static::<M>::new()).unwrap().tile_masked::<Tl, 2>([1, 1]).fill(9);
    /// assert_eq!(w.iter().filter(|&&x| x == 9).count(), 3);
    /// assert_eq!(&w[32..], &[9, 9, 9]);
    /// ```
    #[inline(always)]
    pub fn fill(&self, value: T) -> &Self {
        for i in 0..self.size() {
            if B::FULL || self.contains(i) {
                self.set(i, value);
            }
        }
        self
    }
}

/// Replaces every element `x` of `t` with `f(x)` (CuTe's `transform(tensor, op)`), in place: for
/// example, rounding a fragment of f32 operands to tf32 before the tensor cores read it.
///
/// # Example
/// ```
/// use cute_rs_tensor::{algorithm::transform, static_layout, Fragment};
/// static_layout!(F = "(2,2)");
/// let mut f = Fragment::<f32, F, 4>::new();
/// f.data = [1.0, 2.0, 3.0, 4.0];
/// transform(f.tensor(), |x| 2.0 * x);
/// assert_eq!(f.data, [2.0, 4.0, 6.0, 8.0]);
/// ```
#[inline(always)]
pub fn transform<T: Element, L: StaticLayout, A: AddressSpace>(t: LayoutTensor<'_, T, Static<L>, A, Full>, mut f: impl FnMut(T) -> T) {
    unroll_for::<SizeOf<L>>(|i| t.set(i, f(t.get(i))));
}
