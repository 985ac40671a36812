//! `dot` on block tiles, on the CPU backend (whole blocks of logical threads, with `ldmatrix` and
//! `mma.sync` computed as the GPU does): `C = A B` over every output tile and k-step of random
//! ragged matrices, for several tiled MMAs and operand layouts (vectors along the rows, a
//! column-fast layout staged element by element, one and two atoms along N), in f16 and bf16.
//! `dot_range` (the pipelined K loop through `cp.async` copies) on the same, with 2 to 4 stages,
//! 16-byte copies and element copies (a transposed B, a row stride that is not a multiple of 8).
//! `dot_range_tma` (the operand tiles copied by TMA into the staged panels, through the CPU
//! backend's tensor maps) on `mma.sync` and `wgmma` layouts, and its fallback to
//! `dot_range_aligned` when a map's box is not the staged panel.
//! The inputs are small integers, so every product and sum is exact and the result must equal
//! the reference exactly.

use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32BF16BF16_SS};
use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN as Bf16Atom, SM80_16x8x16_F32F16F16F32_TN as F16Atom, TiledMma};
use cute_rs_tensor::block_tile::dot_tma::staged_box;
use cute_rs_tensor::block_tile::{dot, dot_range, dot_range_aligned, dot_range_tma, BlockTile, DotLayout, DotLayoutOf, Scratch, TvLayout};
use cute_rs_tensor::device::tma::CpuTensorMap;
use cute_rs_tensor::tma_copy::TmaArray;
use cute_rs_tensor::device::cpu::run_block;
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, static_layout, Element, Global, LayoutTensor, Strided};
use proptest::prelude::*;

static_layout!(Warps2x2 = "(2,2,1)");
static_layout!(Warps2x4 = "(2,4,1)");
static_layout!(Warps4x1 = "(4,1,1)");
static_layout!(TwoN = "(1,2,1)");

// 4 warps, one atom each: a 32 x 16 accumulator, B loaded with ldmatrix.x2.trans.
blocked_layout!(SmallA = shape [32, 16], size_per_thread [1, 4], threads_per_warp [8, 4], warps_per_cta [4, 1], order [1, 0]);
blocked_layout!(SmallB = shape [16, 16], size_per_thread [1, 2], threads_per_warp [4, 8], warps_per_cta [4, 1], order [1, 0]);
dot_layout!(SmallAcc = mma TiledMma<F16Atom, Warps2x2>, shape [32, 16]);
dot_layout!(SmallAccBf16 = mma TiledMma<Bf16Atom, Warps2x2>, shape [32, 16]);

// 8 warps of two atoms along N, repeated: a 64 x 128 accumulator, 16-byte runs, K = 32 per step.
blocked_layout!(WideA = shape [64, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [8, 1], order [1, 0]);
blocked_layout!(WideB = shape [32, 128], size_per_thread [1, 8], threads_per_warp [2, 16], warps_per_cta [8, 1], order [1, 0]);
dot_layout!(WideAcc = mma TiledMma<Bf16Atom, Warps2x4, TwoN>, shape [64, 128]);

// A column-fast A (staged element by element), 4 warps along M, two atoms along N.
blocked_layout!(ColA = shape [64, 16], size_per_thread [2, 1], threads_per_warp [32, 1], warps_per_cta [1, 4], order [0, 1]);
blocked_layout!(ColB4 = shape [16, 16], size_per_thread [1, 1], threads_per_warp [2, 16], warps_per_cta [4, 1], order [1, 0]);
dot_layout!(ColAcc = mma TiledMma<F16Atom, Warps4x1, TwoN>, shape [64, 16]);

/// Random integers in `-4..=4` (exact in f16 and bf16, and their products' sums exact in f32).
fn small_ints(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = seed;
    (0..n)
        .map(|_| {
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((rng >> 33) % 9) as f32 - 4.0
        })
        .collect()
}

/// `C = A B` for `m x k` A and `k x n` B through block tiles of layouts `LA`, `LB`, `LC`, one
/// `dot` per k-step, checked exactly against the reference.
fn check_dot<T, LA, LB, LC>(m: i64, n: i64, k: i64, seed: u64, from: fn(f32) -> T)
where
    T: Element + Send + Sync,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    let (a32, b32) = (small_ints((m * k) as usize, seed), small_ints((k * n) as usize, seed ^ 0x9e37));
    let a: Vec<T> = a32.iter().map(|&x| from(x)).collect();
    let b: Vec<T> = b32.iter().map(|&x| from(x)).collect();
    let mut c = vec![f32::NAN; (m * n) as usize];
    let (tm, tn, tk) = (LC::SHAPE[0], LC::SHAPE[1], LA::SHAPE[1]);
    let (aa, ba, ca) = (a.as_ptr() as usize, b.as_ptr() as usize, c.as_mut_ptr() as usize);
    run_block(LC::THREADS as u32, &|| {
        let scratch = block_scratch!(DOT_CHECK, 16384);
        // SAFETY: the vectors above outlive the block; the tiles' accesses are bounded by the
        // tensors' extents.
        let (at, bt, ct) = unsafe {
            (
                LayoutTensor::from_ptr(aa as *mut T, Strided::row_major([m, k])),
                LayoutTensor::from_ptr(ba as *mut T, Strided::row_major([k, n])),
                LayoutTensor::from_ptr(ca as *mut f32, Strided::row_major([m, n])),
            )
        };
        for i in 0..(m + tm - 1) / tm {
            for j in 0..(n + tn - 1) / tn {
                let mut acc = BlockTile::<f32, LC>::zeros();
                for kk in 0..(k + tk - 1) / tk {
                    let ta = BlockTile::<T, LA>::load(&at, [i, kk], T::ZERO);
                    let tb = BlockTile::<T, LB>::load(&bt, [kk, j], T::ZERO);
                    acc = dot(&ta, &tb, acc, &scratch);
                }
                acc.store(&ct, [i, j]);
            }
        }
    })
    .unwrap();
    for r in 0..m {
        for col in 0..n {
            let want: f32 = (0..k).map(|x| a32[(r * k + x) as usize] * b32[(x * n + col) as usize]).sum();
            assert_eq!(c[(r * n + col) as usize], want, "C({r}, {col}) of {m} x {n} x {k}");
        }
    }
}

/// Which entry point [`check_dot_range`] calls: `dot_range` always, or `dot_range_aligned`
/// wherever it applies (layouts whose threads copy 16-byte runs).
trait Entry {
    /// `dot_range_aligned` when both arrays' rows are whole 16-byte vectors.
    const ALIGNED_WHERE_IT_APPLIES: bool;
    #[allow(clippy::too_many_arguments)]
    fn aligned<const STAGES: usize, T: Element, LA: TvLayout, LB: TvLayout, LC: DotLayoutOf<T>, const BYTES: usize>(
        steps: i64,
        a: &LayoutTensor<'_, T, Strided<2>, Global>,
        a_at: impl Fn(i64) -> [i64; 2],
        b: &LayoutTensor<'_, T, Strided<2>, Global>,
        b_at: impl Fn(i64) -> [i64; 2],
        scratch: &Scratch<BYTES>,
    ) -> BlockTile<f32, LC>;
}
/// `dot_range` only.
struct General;
/// `dot_range_aligned` wherever the arrays allow.
struct Aligned;
impl Entry for General {
    const ALIGNED_WHERE_IT_APPLIES: bool = false;
    fn aligned<const STAGES: usize, T: Element, LA: TvLayout, LB: TvLayout, LC: DotLayoutOf<T>, const BYTES: usize>(
        _: i64,
        _: &LayoutTensor<'_, T, Strided<2>, Global>,
        _: impl Fn(i64) -> [i64; 2],
        _: &LayoutTensor<'_, T, Strided<2>, Global>,
        _: impl Fn(i64) -> [i64; 2],
        _: &Scratch<BYTES>,
    ) -> BlockTile<f32, LC> {
        unreachable!("the general entry only")
    }
}
impl Entry for Aligned {
    const ALIGNED_WHERE_IT_APPLIES: bool = true;
    fn aligned<const STAGES: usize, T: Element, LA: TvLayout, LB: TvLayout, LC: DotLayoutOf<T>, const BYTES: usize>(
        steps: i64,
        a: &LayoutTensor<'_, T, Strided<2>, Global>,
        a_at: impl Fn(i64) -> [i64; 2],
        b: &LayoutTensor<'_, T, Strided<2>, Global>,
        b_at: impl Fn(i64) -> [i64; 2],
        scratch: &Scratch<BYTES>,
    ) -> BlockTile<f32, LC> {
        dot_range_aligned::<STAGES, T, LA, LB, LC, BYTES>(steps, a, a_at, b, b_at, BlockTile::zeros(), scratch)
    }
}

/// `C = A B` for `m x k` A (row stride `lda >= k`) and `k x n` B (row-major, or stored as its
/// `n x k` transpose) with one `dot_range` of `STAGES` per output tile (the entry `E`), checked
/// exactly.
#[allow(clippy::too_many_arguments)]
fn check_dot_range<const STAGES: usize, E: Entry, T, LA, LB, LC>(m: i64, n: i64, k: i64, lda: i64, b_transposed: bool, seed: u64, from: fn(f32) -> T)
where
    T: Element + Send + Sync,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    let (a32, b32) = (small_ints((m * lda) as usize, seed), small_ints((k * n) as usize, seed ^ 0x9e37));
    // NaN past K in A's rows: a copy that reads them (instead of zero-filling) poisons C, even
    // though B's zero-filled rows would cancel any finite value.
    let a: Vec<T> = a32.iter().enumerate().map(|(i, &x)| from(if i as i64 % lda >= k { f32::NAN } else { x })).collect();
    let b: Vec<T> = b32.iter().map(|&x| from(x)).collect();
    let mut c = vec![f32::NAN; (m * n) as usize];
    let (tm, tn, tk) = (LC::SHAPE[0], LC::SHAPE[1], LA::SHAPE[1]);
    let (aa, ba, ca) = (a.as_ptr() as usize, b.as_ptr() as usize, c.as_mut_ptr() as usize);
    run_block(LC::THREADS as u32, &|| {
        let scratch = block_scratch!(DOT_RANGE_CHECK, 49152);
        let b_stride = if b_transposed { [1, k] } else { [n, 1] };
        // SAFETY: the vectors above outlive the block; the copies are bounded by the extents.
        let (at, bt, ct) = unsafe {
            (
                LayoutTensor::from_ptr(aa as *mut T, Strided::new([m, k], [lda, 1])),
                LayoutTensor::from_ptr(ba as *mut T, Strided::new([k, n], b_stride)),
                LayoutTensor::from_ptr(ca as *mut f32, Strided::row_major([m, n])),
            )
        };
        for i in 0..(m + tm - 1) / tm {
            for j in 0..(n + tn - 1) / tn {
                let steps = (k + tk - 1) / tk;
                // The aligned entry wherever it applies (both arrays' rows whole 16-byte vectors).
                let acc = if E::ALIGNED_WHERE_IT_APPLIES && lda % 8 == 0 && n % 8 == 0 && !b_transposed {
                    E::aligned::<STAGES, T, LA, LB, LC, 49152>(steps, &at, |kk| [i, kk], &bt, |kk| [kk, j], &scratch)
                } else {
                    dot_range::<STAGES, T, LA, LB, LC, 49152>(steps, &at, |kk| [i, kk], &bt, |kk| [kk, j], BlockTile::zeros(), &scratch)
                };
                acc.store(&ct, [i, j]);
            }
        }
    })
    .unwrap();
    let b_at = |x: i64, col: i64| if b_transposed { b32[(col * k + x) as usize] } else { b32[(x * n + col) as usize] };
    for r in 0..m {
        for col in 0..n {
            let want: f32 = (0..k).map(|x| a32[(r * lda + x) as usize] * b_at(x, col)).sum();
            assert_eq!(c[(r * n + col) as usize], want, "C({r}, {col}) of {m} x {n} x {k}, {STAGES} stages");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    #[test]
    fn pipelined_wide_tiles(m in 1i64..130, n8 in 1i64..33, k in 1i64..100, aligned_lda in any::<bool>(), stages in 2usize..5, seed in any::<u64>()) {
        // A's row stride a multiple of 8 (16-byte copies, zero-filled past a ragged K) or not
        // (element copies); B's rows of whole 16-byte chunks.
        let n = 8 * n8;
        let lda = if aligned_lda { (k + 7) / 8 * 8 } else { k + 1 + (k % 8 == 7) as i64 };
        match stages {
            2 => check_dot_range::<2, Aligned, bf16, WideA, WideB, WideAcc>(m, n, k, lda, false, seed, bf16::from_f32),
            3 => check_dot_range::<3, Aligned, bf16, WideA, WideB, WideAcc>(m, n, k, lda, false, seed, bf16::from_f32),
            _ => check_dot_range::<4, Aligned, bf16, WideA, WideB, WideAcc>(m, n, k, lda, false, seed, bf16::from_f32),
        }
    }

    #[test]
    fn pipelined_ragged_and_transposed(m in 1i64..70, n in 1i64..40, k in 1i64..60, transposed in any::<bool>(), seed in any::<u64>()) {
        check_dot_range::<3, General, f16, SmallA, SmallB, SmallAcc>(m, n, k, k, transposed, seed, f16::from_f32);
    }

    #[test]
    fn one_atom_per_warp_f16(m in 1i64..70, n in 1i64..40, k in 1i64..50, seed in any::<u64>()) {
        check_dot::<f16, SmallA, SmallB, SmallAcc>(m, n, k, seed, f16::from_f32);
    }

    #[test]
    fn one_atom_per_warp_bf16(m in 1i64..70, n in 1i64..40, k in 1i64..50, seed in any::<u64>()) {
        check_dot::<bf16, SmallA, SmallB, SmallAccBf16>(m, n, k, seed, bf16::from_f32);
    }

    #[test]
    fn eight_warps_two_atoms_along_n(m in 1i64..130, n in 1i64..260, k in 1i64..100, seed in any::<u64>()) {
        check_dot::<bf16, WideA, WideB, WideAcc>(m, n, k, seed, bf16::from_f32);
    }

    #[test]
    fn column_fast_a(m in 1i64..130, n in 1i64..40, k in 1i64..40, seed in any::<u64>()) {
        check_dot::<f16, ColA, ColB4, ColAcc>(m, n, k, seed, f16::from_f32);
    }
}

/// `dot_range_aligned` refuses an array whose rows are not whole 16-byte vectors, by name.
#[test]
fn aligned_products_check_their_arrays() {
    let a = vec![bf16::ONE; 64 * 40];
    let b = vec![bf16::ONE; 36 * 128];
    let (aa, ba) = (a.as_ptr() as usize, b.as_ptr() as usize);
    // A's rows of 36 (not a multiple of 8), then B's base off by one element.
    for (lda, b_shift) in [(36i64, 0usize), (40, 1)] {
        let err = run_block(WideAcc::THREADS as u32, &|| {
            let scratch = block_scratch!(ALIGNED_REFUSAL, 49152);
            // SAFETY: inside the vectors (B's 32 x 128 tile of 36 x 128 from element 1 fits).
            let (at, bt) = unsafe {
                (
                    LayoutTensor::from_ptr(aa as *mut bf16, Strided::new([64, 32], [lda, 1])),
                    LayoutTensor::from_ptr((ba as *mut bf16).add(b_shift), Strided::row_major([32, 128])),
                )
            };
            let _ = dot_range_aligned::<3, bf16, WideA, WideB, WideAcc, 49152>(1, &at, |k| [0, k], &bt, |k| [k, 0], BlockTile::zeros(), &scratch);
        })
        .unwrap_err();
        assert!(err.to_string().contains("dot_range_aligned: the arrays' last stride must be 1"), "lda {lda}, shift {b_shift}: {err}");
    }
}

/// The accumulator layouts hold every element of their tile once.
#[test]
fn accumulator_layouts_are_bijections() {
    fn covers<L: TvLayout>() {
        let mut seen = vec![0u32; (L::SHAPE[0] * L::SHAPE[1]) as usize];
        for t in 0..L::THREADS as i64 {
            for v in 0..L::VALUES {
                let c = L::MAP.coord(t, v);
                seen[(c[0] * L::SHAPE[1] + c[1]) as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&s| s == 1), "every element once");
    }
    covers::<SmallAcc>();
    covers::<WideAcc>();
    covers::<ColAcc>();
}

// Warpgroup-MMA layouts (`wgmma` in sm_90a builds; here, the equivalent `mma.sync` products over
// the 64-column panels `wgmma` reads): one warpgroup, 64 x 128 of one n128 atom, K = 32 per step
// (64-byte swizzle); two warpgroups, 128 x 128 of two n64 atoms, K = 32.
blocked_layout!(WgA = shape [64, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [4, 1], order [1, 0]);
blocked_layout!(WgB = shape [32, 128], size_per_thread [1, 8], threads_per_warp [2, 16], warps_per_cta [4, 1], order [1, 0]);
dot_layout!(WgAcc = wgmma SM90_64x128x16_F32F16F16_SS, shape [64, 128]);
blocked_layout!(Wg2A = shape [128, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [8, 1], order [1, 0]);
blocked_layout!(Wg2B = shape [32, 128], size_per_thread [1, 8], threads_per_warp [2, 16], warps_per_cta [8, 1], order [1, 0]);
dot_layout!(Wg2Acc = wgmma SM90_64x64x16_F32BF16BF16_SS, shape [128, 128]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn wgmma_layouts_pipelined(m in 1i64..140, n in 1i64..270, k in 1i64..100, aligned in any::<bool>(), stages in 3usize..5, seed in any::<u64>()) {
        let lda = if aligned { (k + 7) / 8 * 8 } else { k + 1 + (k % 8 == 7) as i64 };
        match stages {
            3 => check_dot_range::<3, Aligned, bf16, Wg2A, Wg2B, Wg2Acc>(m, n, k, lda, !aligned, seed, bf16::from_f32),
            _ => check_dot_range::<4, Aligned, f16, WgA, WgB, WgAcc>(m, n, k, lda, false, seed, f16::from_f32),
        }
    }

    #[test]
    fn wgmma_layouts_register_operands(m in 1i64..140, n in 1i64..270, k in 1i64..70, seed in any::<u64>()) {
        check_dot::<bf16, Wg2A, Wg2B, Wg2Acc>(m, n, k, seed, bf16::from_f32);
    }
}

/// A wgmma accumulator layout is the warpgroups' C fragments in register order: thread `t`'s
/// value `v` is value `v % VALUES_C` of atom `v / VALUES_C` along N of warpgroup `t / 128`.
#[test]
fn wgmma_accumulators_are_the_atoms_fragments() {
    fn agrees<L: TvLayout, W: WgmmaAtom>() {
        for t in 0..L::THREADS as i64 {
            for v in 0..L::VALUES {
                let (atom, value) = (v / W::VALUES_C, v % W::VALUES_C);
                let x = W::LAYOUT_C.call(t % 128 + 128 * value as i64);
                let want = [64 * (t / 128) + x % 64, atom as i64 * W::N + x / 64];
                let got = L::MAP.coord(t, v);
                assert_eq!([got[0], got[1]], want, "thread {t}, value {v}");
            }
        }
    }
    agrees::<WgAcc, SM90_64x128x16_F32F16F16_SS>();
    agrees::<Wg2Acc, SM90_64x64x16_F32BF16BF16_SS>();
}

/// The staged operand tiles of a wgmma layout are the canonical tiles `wgmma` reads (A K-major,
/// B N-major, 64-column panels with the rows' swizzle), and their descriptors exist.
#[test]
fn wgmma_operand_tiles_are_canonical() {
    use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    use cute_rs_tensor::block_tile::dot::{OperandTile, RowSwizzle, Wgmma};
    use cute_rs_tensor::device::mma::WgmmaSwizzle;
    use cute_rs_tensor::layout::SwizzledLayout;
    use cute_rs_tensor::partition::StaticSwizzle;
    use cute_rs_tensor::StaticLayout;
    type I = Wgmma<SM90_64x64x16_F32BF16BF16_SS>;
    blocked_layout!(A64 = shape [128, 64], size_per_thread [1, 8], threads_per_warp [4, 8], warps_per_cta [8, 1], order [1, 0]);
    blocked_layout!(B256 = shape [64, 256], size_per_thread [1, 8], threads_per_warp [1, 32], warps_per_cta [8, 1], order [1, 0]);
    fn same(ours: SwizzledLayout, canonical: SwizzledLayout, mn: i64, k: i64) {
        for x in 0..mn {
            for y in 0..k {
                let (o, c) = (ours.layout().call(x + mn * y), canonical.layout().call(x + mn * y));
                assert_eq!(ours.swizzle().apply(o), canonical.swizzle().apply(c), "({x}, {y})");
            }
        }
    }
    let staged = |layout, swizzle| SwizzledLayout::new(swizzle, 0, layout);
    let a = staged(OperandTile::<A64, true, I>::LAYOUT, RowSwizzle::<A64, I>::SWIZZLE);
    same(a, make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 128, 64).unwrap(), 128, 64);
    assert!(make_gmma_desc(a, 2, Major::K, 64, 16).is_ok());
    let a32 = staged(OperandTile::<Wg2A, true, I>::LAYOUT, RowSwizzle::<Wg2A, I>::SWIZZLE);
    same(a32, make_gmma_layout(Major::K, WgmmaSwizzle::B64, 2, 128, 32).unwrap(), 128, 32);
    let b = staged(OperandTile::<B256, false, I>::LAYOUT, RowSwizzle::<B256, I>::SWIZZLE);
    same(b, make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 256, 64).unwrap(), 256, 64);
    assert!(make_gmma_desc(b, 2, Major::MN, 256, 16).is_ok());
}

// `mma.sync` with operands TMA can stage: rows of at most 64 elements (128-byte swizzle).
blocked_layout!(TmaB = shape [32, 64], size_per_thread [1, 8], threads_per_warp [4, 8], warps_per_cta [8, 1], order [1, 0]);
dot_layout!(TmaAcc = mma TiledMma<Bf16Atom, Warps2x4>, shape [64, 64]);
dot_layout!(TmaAccF16 = mma TiledMma<F16Atom, Warps2x4>, shape [64, 64]);

/// `C = A B` for `m x k` A (row stride `lda`, a multiple of 8) and `k x n` B (row-major, `n` a
/// multiple of 8) with one `dot_range_tma` of `STAGES` per output tile, checked exactly. With
/// `staged`, the maps' boxes are the staged panels ([`staged_box`]) and the arrays' tensors are
/// NaN decoys, so only the TMA path gives the product; else the maps have whole-tile boxes
/// without swizzle, and the fallback (ordinary copies of the tensors) gives it.
#[allow(clippy::too_many_arguments)]
fn check_dot_range_tma<const STAGES: usize, T, LA, LB, LC>(m: i64, n: i64, k: i64, lda: i64, staged: bool, seed: u64, from: fn(f32) -> T)
where
    T: Element + Send + Sync + 'static,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    let (a32, b32) = (small_ints((m * lda) as usize, seed), small_ints((k * n) as usize, seed ^ 0x9e37));
    let a: Vec<T> = a32.iter().enumerate().map(|(i, &x)| from(if i as i64 % lda >= k { f32::NAN } else { x })).collect();
    let b: Vec<T> = b32.iter().map(|&x| from(x)).collect();
    let decoy = (vec![from(f32::NAN); a.len()], vec![from(f32::NAN); b.len()]);
    let mut c = vec![f32::NAN; (m * n) as usize];
    let boxes = |rows: i64, cols: i64, staged_box: Option<([i64; 2], u32)>| match staged_box {
        Some(([r, p], swizzle)) if staged => ([p as u32, r as u32], swizzle),
        _ => ([cols.min(256) as u32, rows as u32], 0),
    };
    let (box_a, swizzle_a) = boxes(LA::SHAPE[0], LA::SHAPE[1], staged_box::<T, LA, <LC as DotLayout>::Instruction>());
    let (box_b, swizzle_b) = boxes(LB::SHAPE[0], LB::SHAPE[1], staged_box::<T, LB, <LC as DotLayout>::Instruction>());
    let map_a = CpuTensorMap::encode(a.as_ptr() as u64, 2, &[k as u64, m as u64], &[2 * lda as u64], &box_a, &[1, 1], swizzle_a, false).unwrap();
    let map_b = CpuTensorMap::encode(b.as_ptr() as u64, 2, &[n as u64, k as u64], &[2 * n as u64], &box_b, &[1, 1], swizzle_b, false).unwrap();
    let (tm, tn, tk) = (LC::SHAPE[0], LC::SHAPE[1], LA::SHAPE[1]);
    let (sa, sb) = if staged { (decoy.0.as_ptr(), decoy.1.as_ptr()) } else { (a.as_ptr(), b.as_ptr()) };
    let (sa, sb, ca, ma, mb) = (sa as usize, sb as usize, c.as_mut_ptr() as usize, &map_a as *const _ as usize, &map_b as *const _ as usize);
    run_block(LC::THREADS as u32, &|| {
        let scratch = block_scratch!(DOT_RANGE_TMA_CHECK, 49152);
        // SAFETY: the vectors and maps above outlive the block; the maps describe `a` and `b`,
        // the tensors (decoys or not) have their extents and strides.
        let (at, bt, ct) = unsafe {
            (
                TmaArray::from_parts(LayoutTensor::from_ptr(sa as *mut T, Strided::new([m, k], [lda, 1])), ma as *const _, [box_a[1] as i64, box_a[0] as i64], swizzle_a, T::ZERO),
                TmaArray::from_parts(LayoutTensor::from_ptr(sb as *mut T, Strided::row_major([k, n])), mb as *const _, [box_b[1] as i64, box_b[0] as i64], swizzle_b, T::ZERO),
                LayoutTensor::<f32, _, Global>::from_ptr(ca as *mut f32, Strided::row_major([m, n])),
            )
        };
        for i in 0..(m + tm - 1) / tm {
            for j in 0..(n + tn - 1) / tn {
                let steps = (k + tk - 1) / tk;
                let acc = dot_range_tma::<STAGES, T, LA, LB, LC, 49152>(steps, &at, |kk| [i, kk], &bt, |kk| [kk, j], BlockTile::zeros(), &scratch);
                acc.store(&ct, [i, j]);
            }
        }
    })
    .unwrap();
    for r in 0..m {
        for col in 0..n {
            let want: f32 = (0..k).map(|x| a32[(r * lda + x) as usize] * b32[(x * n + col) as usize]).sum();
            assert_eq!(c[(r * n + col) as usize], want, "C({r}, {col}) of {m} x {n} x {k}, {STAGES} stages, staged boxes {staged}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn tma_products(m in 1i64..140, n8 in 1i64..34, k in 1i64..100, staged in any::<bool>(), stages in 2usize..6, seed in any::<u64>()) {
        let (n, lda) = (8 * n8, (k + 7) / 8 * 8 + 8 * (seed % 2) as i64);
        match stages {
            2 => check_dot_range_tma::<2, bf16, WideA, TmaB, TmaAcc>(m, n, k, lda, staged, seed, bf16::from_f32),
            3 => check_dot_range_tma::<3, f16, WgA, WgB, WgAcc>(m, n, k, lda, staged, seed, f16::from_f32),
            4 => check_dot_range_tma::<4, f16, WideA, TmaB, TmaAccF16>(m, n, k, lda, staged, seed, f16::from_f32),
            _ => check_dot_range_tma::<5, bf16, WideA, TmaB, TmaAcc>(m, n, k, lda, staged, seed, bf16::from_f32),
        }
    }
}

/// The staged boxes: 64-column panels with the swizzle of their rows on `wgmma`, whole rows of at
/// most 128 bytes on `mma.sync`.
#[test]
fn staged_boxes_are_the_panels() {
    assert_eq!(staged_box::<f16, WgA, <WgAcc as DotLayout>::Instruction>(), Some(([64, 32], 64)));
    assert_eq!(staged_box::<f16, WgB, <WgAcc as DotLayout>::Instruction>(), Some(([32, 64], 128)));
    assert_eq!(staged_box::<bf16, TmaB, <TmaAcc as DotLayout>::Instruction>(), Some(([32, 64], 128)));
    assert_eq!(staged_box::<bf16, WideB, <WideAcc as DotLayout>::Instruction>(), None);
}
