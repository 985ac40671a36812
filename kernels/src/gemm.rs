//! Tensor-core GEMM with `mma.sync` (sm_80+; also runs on the CPU backend):
//! `D = alpha * A * B + beta * C`, bf16 or f16 A and B, f32 accumulation, f32, bf16 or f16 D.
//!
//! The host API is `cute_rs::gemm`; these are its kernels, one per combination of
//! - bf16 (`gemm_bf16_*`) or f16 (`gemm_f16_*`) A and B: the same kernel but for the `mma.sync`
//!   instruction (both are 16-bit elements, staged and loaded alike),
//! - A row-major (`M x K`, K contiguous: "K-major") or column-major (M contiguous),
//! - B row-major (`K x N`, N contiguous) or column-major (K contiguous: "K-major"),
//! - 16-byte `cp.async` staging (`_v16`: both leading dimensions multiples of 8 elements and
//!   16-byte aligned bases) or element-wise staging (any leading dimension),
//! - f32, bf16 (`_obf16`) or f16 (`_of16`) output.
//!
//! # The kernel
//! A block of [`THREADS`] (8 warps) computes a [`BM`] x [`BN`] tile of D, stepping through K by
//! [`BK`]. Each k-step's A and B tiles are staged in shared memory by `cp.async` (16-byte chunks,
//! zero-filled past the matrix edges, so partial tiles need no other special case) in a ring of
//! [`STAGES`] buffers: while the warps multiply tile `t`, tiles `t + 1 .. t + STAGES - 1` are in
//! flight. The element-wise variant writes the same ring synchronously (its commit groups are
//! empty), so one pipeline serves both.
//!
//! Shared-memory tiles keep the global orientation of their operand (so that a 16-byte chunk of
//! global memory is a 16-byte chunk of shared memory) and are swizzled layouts of the algebra
//! ([`SMEM_K_MAJOR`], [`SMEM_MN_MAJOR`]), chosen so that the 8 rows an `ldmatrix` phase reads fall
//! in 8 different 16-byte bank groups. Fragments come from `ldmatrix` (`.trans` for M/N-major
//! tiles), the lanes pointed at the rows named by the `*_ROWS` layouts below, which give exactly
//! the `mma.sync.m16n8k16` A and B fragments
//! ([`SM80_16X8X16_F32BF16BF16F32_TN`](cute_rs_tensor::device::mma::SM80_16X8X16_F32BF16BF16F32_TN),
//! the same for f16).
//! The main loop is written in the atom layer's terms, as in CuTe's `sgemm_sm80` tutorial:
//! a [`TiledMma`] of 2 (M) x 4 (N) warps, each warp two m16n8k16 atoms side by side along N (a
//! 32 x 64 x 16 tile; warp `(wm, wn)` owns rows `16 wm + 32 i` and columns `16 wn + 64 j` of
//! the block's C, 64 f32 accumulators per thread); `ldmatrix` tiled copies made from it
//! (`make_tiled_copy_a/b`) read the fragments out of the swizzled shared ring; `gemm` multiplies
//! them. The epilogue finds each accumulator's coordinate in an identity tensor partitioned like C
//! and writes it predicated on the matrix edges. `gemm_raw` keeps the hand-written loop
//! (explicit `ldmatrix` addresses, warps owning 64 x 32 pieces) as the zero-cost reference: the
//! test harness's device crate (`tests/kernels`) has its entries, `tools/check-sass.sh` compares
//! their SASS with the atom-layer kernels'.
//!
//! Launch: grid `(ceil(N / BN), ceil(M / BM))`, block [`THREADS`], no dynamic shared memory.
//! Parameters: `(a, b, c, d, m, n, k, lda, ldb, ldc, ldd, alpha, beta, bias, flags)`; C and D
//! are row-major `M x N` with leading dimensions `ldc` and `ldd`; C is read only when `beta != 0`;
//! `D = act(alpha * A * B + beta * C + bias)` with the bias and activation of `flags`
//! ([`crate::epilogue`]).
//!
//! # Speed
//! This is the portable path: `mma.sync` caps it well below cuBLAS on Hopper. Its K steps of 32
//! in a 3-stage ring stay because K steps of 64 in a 4-stage ring are slower (their fewer barriers
//! do not pay for the registers they take). The Hopper kernels (`gemm_sm90`: wgmma, TMA, warp
//! specialization) are the path that keeps pace with cuBLAS. This kernel's figures against
//! cuBLAS, what was tried on it and what its SASS shows are in `docs/performance.md`.

use cute_rs_tensor::kernel;
use crate::epilogue::EpilogueOp;
use cute_rs_tensor::device::unroll::{for_each_unrolled_mut, unroll_for, Count};
use cute_rs_layout::{make_swizzled, unwrap, Layout, Swizzle, SwizzledLayout};
use cute_rs_tensor::device::cp_async::{cp_async_cg_zfill, cp_async_pipeline};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x};
use cute_rs_tensor::device::mma::{
    ldmatrix_x4, ldmatrix_x4_trans, mma_m16n8k16_f32_bf16, mma_m16n8k16_f32_f16, LDMATRIX_X4_A_ROWS, MMA_16X8_C,
};
use cute_rs_tensor::device::numeric::{f32_to_bf16, f32_to_f16};
use cute_rs_tensor::algorithm::gemm as mma_gemm;
use cute_rs_tensor::atom::copy::{
    copy, make_tiled_copy_a, make_tiled_copy_b, CopyAtom, SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N, SM80_CP_ASYNC_CACHEGLOBAL_ZFILL,
    UniversalCopy,
};
use cute_rs_tensor::atom::tiled_copy::{copy_if, make_tiled_copy};
use cute_rs_tensor::strided_tile::local_tile;
use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, ThrMma, TiledMma};
use cute_rs_tensor::identity::IdentityTensor;
use cute_rs_tensor::partition::{StaticSwizzle, Sw};
use cute_rs_tensor::static_view::StaticView;
use cute_rs_tensor::swizzled::Swizzled;
use cute_rs_tensor::{half, shared_array, static_layout, Element, Global, LayoutTensor, Shared, StaticLayout, Strided};

/// Rows (M) of a block's D tile.
pub const BM: u32 = 128;
/// Columns (N) of a block's D tile.
pub const BN: u32 = 128;
/// K per pipeline stage (two k16 steps of `mma.sync`).
pub const BK: u32 = 32;
/// Shared-memory stages of the `cp.async` ring. 3 stages of (A + B) = 48 KiB, the most static
/// shared memory a block may have.
pub const STAGES: u32 = 3;
/// Threads per block: 8 warps, 2 along M x 4 along N.
pub const THREADS: u32 = 256;

/// Elements of one operand tile (128 x 32 bf16 = 8 KiB).
const TILE_ELEMS: usize = (BM * BK) as usize;
/// Bytes of the whole ring: STAGES x (A tile + B tile).
const SMEM_BYTES: usize = STAGES as usize * 2 * TILE_ELEMS * 2;

/// A K-major operand tile in shared memory, `(outer, k) -> element offset`, indexed
/// `outer + 128 * k` (outer = m for A, n for B): rows of 32 bf16 (64 bytes) with
/// `Sw<2,3,3>`, which XORs the 16-byte chunk index (offset bits 3-4) with bits 1-2 of the row. The
/// 8 consecutive rows an `ldmatrix` phase reads at one chunk then hit 8 different 16-byte bank
/// groups (the unswizzled tile has 4-way conflicts: rows two apart share a bank group).
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm::SMEM_K_MAJOR;
/// // Row 2, chunk 0 moves to chunk 1: offset 2 * 32 + 8.
/// assert_eq!(SMEM_K_MAJOR.call(2), 72);
/// ```
pub const SMEM_K_MAJOR: SwizzledLayout =
    make_swizzled(unwrap!(Swizzle::new(2, 3, 3)), unwrap!(Layout::parse("(128,32):(32,1)")));

/// An M/N-major operand tile in shared memory, `(outer, k) -> element offset`, indexed
/// `outer + 128 * k`: rows of 128 bf16 (256 bytes) along the outer dimension, one per k, with
/// `Sw<3,3,4>` XORing the low 3 bits of the 16-byte chunk index with `k mod 8`. An
/// `ldmatrix.trans` phase reads 8 consecutive k at one chunk: 8 different bank groups (unswizzled:
/// all 8 in one, 8-way conflicts).
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm::SMEM_MN_MAJOR;
/// // (outer 0, k 1): row 1 starts at 128, chunk 0 moves to chunk 1.
/// assert_eq!(SMEM_MN_MAJOR.call(128), 136);
/// ```
pub const SMEM_MN_MAJOR: SwizzledLayout =
    make_swizzled(unwrap!(Swizzle::new(3, 3, 4)), unwrap!(Layout::parse("(128,32):(1,128)")));

/// `lane -> m + 16 * k`: where each lane points `ldmatrix.x4.trans` in a 16 x 16 M-major A tile
/// (stored as rows of k) so that the 4 registers are the m16n8k16 A fragment: matrix `q = lane / 8`
/// covers m `8 (q % 2) ..`, k `8 (q / 2) ..`, and lane `8q + r` gives row `k = r` of it.
/// [`LDMATRIX_X4_A_ROWS`] is the K-major (non-transposed) twin.
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm::LDMATRIX_X4_TRANS_A_ROWS;
/// assert_eq!(LDMATRIX_X4_TRANS_A_ROWS.call(9), 8 + 16 * 1);   // matrix 1, k 1: (m 8, k 1)
/// assert_eq!(LDMATRIX_X4_TRANS_A_ROWS.call(17), 0 + 16 * 9);  // matrix 2, k 9: (m 0, k 9)
/// ```
pub const LDMATRIX_X4_TRANS_A_ROWS: Layout = unwrap!(Layout::parse("(8,2,2):(16,8,128)"));

/// `lane -> n + 16 * k`: where each lane points `ldmatrix.x4` in a 16 (N) x 16 (K) K-major B tile
/// so that registers 0, 1 are the m16n8k16 B fragment of columns `0..8` and registers 2, 3 that of
/// columns `8..16`: matrix `q` covers n `8 (q / 2) ..`, k `8 (q % 2) ..`, lane `8q + r` row `n = r`.
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm::LDMATRIX_X4_B_ROWS;
/// assert_eq!(LDMATRIX_X4_B_ROWS.call(9), 1 + 16 * 8);  // matrix 1: (n 1, k 8)
/// assert_eq!(LDMATRIX_X4_B_ROWS.call(17), 9);          // matrix 2: (n 9, k 0)
/// ```
pub const LDMATRIX_X4_B_ROWS: Layout = unwrap!(Layout::parse("(8,2,2):(1,128,8)"));

/// `lane -> n + 16 * k`: [`LDMATRIX_X4_B_ROWS`] for an N-major B tile (rows of k) read by
/// `ldmatrix.x4.trans`: matrix `q` covers n `8 (q / 2) ..`, k `8 (q % 2) ..`, lane `8q + r` gives
/// row `k = r` of it.
///
/// # Example
/// ```
/// use cute_rs_kernels::gemm::LDMATRIX_X4_TRANS_B_ROWS;
/// assert_eq!(LDMATRIX_X4_TRANS_B_ROWS.call(9), 16 * 9);       // matrix 1: (n 0, k 9)
/// assert_eq!(LDMATRIX_X4_TRANS_B_ROWS.call(17), 8 + 16 * 1);  // matrix 2: (n 8, k 1)
/// ```
pub const LDMATRIX_X4_TRANS_B_ROWS: Layout = unwrap!(Layout::parse("(8,2,2):(16,128,8)"));

/// The shared-memory layout of an operand tile.
#[inline(always)]
const fn smem_layout(k_major: bool) -> SwizzledLayout {
    if k_major {
        SMEM_K_MAJOR
    } else {
        SMEM_MN_MAJOR
    }
}

/// One operand (A or B) as the kernel sees it: `outer` is M for A and N for B.
#[derive(Clone, Copy)]
struct Operand {
    /// Its first element.
    ptr: *const u16,
    /// Elements between consecutive rows (K-major: between outer indices; else between k).
    ld: usize,
    /// Extent along outer (M or N).
    outer: u32,
    /// The block's first outer index.
    outer0: u32,
}

impl Operand {
    /// The operand as a global tensor of `(outer, k)` coordinates: `outer x k`, with strides
    /// `(ld, 1)` when K-major, else `(1, ld)`.
    #[inline(always)]
    fn tensor<'a, I: Element, const K_MAJOR: bool>(&self, k: u32) -> LayoutTensor<'a, I, Strided<2>, Global> {
        // SAFETY: the operand's elements are the kernel's (the launch's contract).
        unsafe { operand_tensor(self.ptr as *const I, self.ld as u32, self.outer, k, K_MAJOR) }
    }
}

/// An operand (A or B) at `p` as a global tensor of `(outer, k)` coordinates, `outer x k` (outer
/// = M for A, N for B), with strides `(ld, 1)` when K-major, else `(1, ld)`.
///
/// # Safety
/// `p` holds the operand (the launch's contract); the tiles read from it are predicated on the
/// extents given here.
#[inline(always)]
pub(crate) unsafe fn operand_tensor<'a, T: Element>(p: *const T, ld: u32, outer: u32, k: u32, k_major: bool) -> LayoutTensor<'a, T, Strided<2>, Global> {
    let stride = if k_major { [ld as i64, 1] } else { [1, ld as i64] };
    LayoutTensor::from_ptr_in(p as *mut T, Strided::new([outer as i64, k as i64], stride))
}

/// Stages the operand's `(outer0 .. outer0 + 128) x (k0 .. k0 + 32)` tile into `tile`, thread `t`
/// taking 16-byte chunks `t` and `t + 256` of the 512. Elements past the matrix are zeros (so they
/// add nothing to the products). `VEC`: `cp.async` 16-byte copies (zero-filled past the edge,
/// byte-exact), else plain element loads and shared stores.
#[inline(always)]
unsafe fn stage_tile<const K_MAJOR: bool, const VEC: bool>(op: Operand, k0: u32, k: u32, t: u32, tile: *mut u16) {
    let layout = const { smem_layout(K_MAJOR) };
    let mut i = 0;
    while i < 2 {
        let c = t + THREADS * i;
        // (outer, k) of the chunk's first element in the tile; the chunk runs along the
        // contiguous dimension (k when K-major, else outer).
        let (o, kk) = if K_MAJOR { (c / 4, 8 * (c % 4)) } else { (8 * (c % 16), c / 16) };
        let (go, gk) = (op.outer0 + o, k0 + kk);
        let valid = if K_MAJOR {
            if go < op.outer && gk < k { (k - gk).min(8) } else { 0 }
        } else if gk < k && go < op.outer {
            (op.outer - go).min(8)
        } else {
            0
        };
        // Only formed (wrapping: it may lie past the matrix) and read below when `valid > 0`.
        let src = op.ptr.wrapping_add(if K_MAJOR { go as usize * op.ld + gk as usize } else { gk as usize * op.ld + go as usize });
        let dst = tile.add(layout.call(o as i64 + BM as i64 * kk as i64) as usize);
        if VEC {
            // Nothing is read when `valid` is 0, but the address must still be valid: the base.
            cp_async_cg_zfill::<16>(dst as *mut u8, if valid > 0 { src } else { op.ptr } as *const u8, 2 * valid);
        } else {
            let mut e = 0;
            while e < 8 {
                *dst.add(e as usize) = if e < valid { *src.add(e as usize) } else { 0 };
                e += 1;
            }
        }
        i += 1;
    }
}

/// The A fragment of the 16 x 16 piece `(m0.., k0..)` of an A tile, by `ldmatrix`.
#[inline(always)]
unsafe fn load_a<const K_MAJOR: bool>(tile: *const u16, lane: u32, m0: u32, k0: u32) -> [u32; 4] {
    let layout = const { smem_layout(K_MAJOR) };
    let rows = if K_MAJOR { LDMATRIX_X4_A_ROWS } else { LDMATRIX_X4_TRANS_A_ROWS };
    let i = rows.call(lane as i64);
    let at = tile.add(layout.call(m0 as i64 + i % 16 + BM as i64 * (k0 as i64 + i / 16)) as usize);
    if K_MAJOR { ldmatrix_x4(at) } else { ldmatrix_x4_trans(at) }
}

/// The B fragments of the 16 (N) x 16 (K) piece `(n0.., k0..)` of a B tile, by `ldmatrix`:
/// columns `n0..n0 + 8` (registers 0, 1) and `n0 + 8..n0 + 16` (registers 2, 3).
#[inline(always)]
unsafe fn load_b<const K_MAJOR: bool>(tile: *const u16, lane: u32, n0: u32, k0: u32) -> [u32; 4] {
    let layout = const { smem_layout(K_MAJOR) };
    let rows = if K_MAJOR { LDMATRIX_X4_B_ROWS } else { LDMATRIX_X4_TRANS_B_ROWS };
    let i = rows.call(lane as i64);
    let at = tile.add(layout.call(n0 as i64 + i % 16 + BN as i64 * (k0 as i64 + i / 16)) as usize);
    if K_MAJOR { ldmatrix_x4(at) } else { ldmatrix_x4_trans(at) }
}

/// The element type of A and B: which `mma.sync` multiplies them. Everything else (staging,
/// swizzles, `ldmatrix`) only moves 16-bit values, so the kernels see A and B as `u16` bits.
#[doc(hidden)] // for the test harness's hand-written twins (`tests/kernels`)
pub trait Input: Element {
    /// The m16n8k16 `mma.sync` atom of this input type.
    type Atom: MmaAtom<A = Self, B = Self, C = f32>;
    /// `D = A * B + C` on one m16n8k16 fragment (see `mma_m16n8k16_f32_bf16`).
    unsafe fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4];
}
impl Input for half::bf16 {
    type Atom = SM80_16x8x16_F32BF16BF16F32_TN;
    #[inline(always)]
    unsafe fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        mma_m16n8k16_f32_bf16(a, b, c)
    }
}
impl Input for half::f16 {
    type Atom = SM80_16x8x16_F32F16F16F32_TN;
    #[inline(always)]
    unsafe fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
        mma_m16n8k16_f32_f16(a, b, c)
    }
}

/// How the epilogue writes one D element.
#[doc(hidden)] // for the test harness's hand-written twins (`tests/kernels`)
pub trait Output: Element {
    /// Writes `value` at `d[i]`.
    unsafe fn store(d: *mut Self, i: usize, value: f32);
    /// `value` rounded to the output type.
    fn from_f32(value: f32) -> Self;
}
impl Output for f32 {
    #[inline(always)]
    fn from_f32(value: f32) -> f32 {
        value
    }
    #[inline(always)]
    unsafe fn store(d: *mut f32, i: usize, value: f32) {
        *d.add(i) = value;
    }
}
/// Rounded to nearest even.
impl Output for half::bf16 {
    #[inline(always)]
    fn from_f32(value: f32) -> half::bf16 {
        half::bf16::from_bits(f32_to_bf16(value))
    }
    #[inline(always)]
    unsafe fn store(d: *mut half::bf16, i: usize, value: f32) {
        *d.add(i) = half::bf16::from_bits(f32_to_bf16(value));
    }
}
/// Rounded to nearest even (`cvt.rn.f16.f32`), infinity past 65504.
impl Output for half::f16 {
    #[inline(always)]
    fn from_f32(value: f32) -> half::f16 {
        half::f16::from_bits(f32_to_f16(value))
    }
    #[inline(always)]
    unsafe fn store(d: *mut half::f16, i: usize, value: f32) {
        *d.add(i) = half::f16::from_bits(f32_to_f16(value));
    }
}

/// Visits a warp's 64 x 32 block of accumulators, `acc[4 i + j]` the m16n8 tile at rows
/// `row0 + 16 i` and columns `col0 + 8 j`, through the MMA atom's C layout: `f(row, col, value)`
/// for each of the lane's values. Every index into `acc` is a constant after unrolling (a run-time
/// one would move the accumulators to local memory).
#[inline(always)]
pub(crate) fn for_each_accumulator(acc: &mut [[f32; 4]; 16], lane: u32, row0: u32, col0: u32, mut f: impl FnMut(u32, u32, f32)) {
    for_each_unrolled_mut(acc, |ij, frag| {
        let (i, j) = (ij as u32 / 4, ij as u32 % 4);
        for_each_unrolled_mut(frag, |v, x| {
            let e = MMA_16X8_C.call((lane + 32 * v as u32) as i64) as u32;
            f(row0 + 16 * i + e % 16, col0 + 8 * j + e / 16, *x);
        });
    });
}

/// The hand-written main loop and epilogue (fragments loaded by explicit `ldmatrix` addresses,
/// accumulators indexed by hand): the zero-cost reference that [`gemm`] (the same kernel in the
/// atom layer's terms) is measured against. Warp `(wm, wn)` owns rows `64 wm ..` and columns
/// `32 wn ..` of the tile.
#[inline(always)]
#[doc(hidden)] // for the test harness's hand-written twins (`tests/kernels`)
pub unsafe fn gemm_raw<I: Input, const A_K: bool, const B_K: bool, const VEC: bool, O: Output>(p: GemmParams<I, O>) {
    let GemmParams { a, b, c, d, m, n, k, lda, ldb, ldc, ldd, epilogue: op } = p;
    // A and B as 16-bit bits: only the `mma` reads them as numbers.
    let (a, b) = (a as *const u16, b as *const u16);
    let smem = shared_array!(GEMM_MMA_SYNC_RING_RAW: [u8; SMEM_BYTES], align 128).as_mut_ptr() as *mut u16;
    let t = thread_idx_x();
    let (lane, warp) = (t % 32, t / 32);
    // Warp (wm, wn) owns rows wm * 64 .. +64 and columns wn * 32 .. +32 of the block tile.
    let (wm, wn) = (warp % 2, warp / 2);
    let (bm0, bn0) = (block_idx_y() * BM, block_idx_x() * BN);
    let opa = Operand { ptr: a, ld: lda as usize, outer: m, outer0: bm0 };
    let opb = Operand { ptr: b, ld: ldb as usize, outer: n, outer0: bn0 };
    let a_tile = |s: u32| smem.add(s as usize * 2 * TILE_ELEMS);
    let b_tile = |s: u32| smem.add((s as usize * 2 + 1) * TILE_ELEMS);
    let k_tiles = k.div_ceil(BK);

    let mut acc = [[0f32; 4]; 16];
    let load = |kt: u32, slot: u32| {
        stage_tile::<A_K, VEC>(opa, kt * BK, k, t, a_tile(slot));
        stage_tile::<B_K, VEC>(opb, kt * BK, k, t, b_tile(slot));
    };
    cp_async_pipeline::<{ STAGES - 2 }>(k_tiles, load, |_, slot| {
        let (at, bt) = (a_tile(slot) as *const u16, b_tile(slot) as *const u16);
        let mut ks = 0;
        while ks < BK {
            let fa = [0u32, 1, 2, 3].map(|i| load_a::<A_K>(at, lane, wm * 64 + 16 * i, ks));
            let fb01 = load_b::<B_K>(bt, lane, wn * 32, ks);
            let fb23 = load_b::<B_K>(bt, lane, wn * 32 + 16, ks);
            let fb = [[fb01[0], fb01[1]], [fb01[2], fb01[3]], [fb23[0], fb23[1]], [fb23[2], fb23[3]]];
            // Constant indices only (literal, unrolled): the accumulators stay in registers.
            for_each_unrolled_mut(&mut acc, |ij, c| *c = I::mma(fa[ij / 4], fb[ij % 4], *c));
            ks += 16;
        }
    });

    // Epilogue: D = act(alpha * acc + beta * C + bias), through the C fragment layout, edges
    // predicated.
    for_each_accumulator(&mut acc, lane, bm0 + wm * 64, bn0 + wn * 32, |row, col, x| {
        if row < m && col < n {
            let (r, cl) = (row as usize, col as usize);
            O::store(d, r * ldd as usize + cl, op.apply(x, r, cl, || *c.add(r * ldc as usize + cl)));
        }
    });
}

static_layout!(
    /// The tiled MMA's warps: 2 along M, 4 along N.
    pub(crate) Warps = "(2,4,1)"
);
static_layout!(
    /// Each warp's thread block: two m16n8k16 atoms side by side along N, so that one
    /// `ldmatrix.x4` loads both B fragments.
    TwoAlongN = "(1,2,1)"
);
static_layout!(
    /// A block's A tile (`BM x BK`) and B tile (`BN x BK`, B seen as `N x K`), by index.
    TileOuterK = "(128,32)"
);
static_layout!(
    /// A block's D tile, `BM x BN`.
    pub(crate) TileMN = "(128,128)"
);
static_layout!(
    /// The staging threads of a K-major tile: 64 rows x 4 chunks of 8 along k, row-major.
    ThrKMajor = "(64,4):(4,1)"
);
static_layout!(
    /// A staging thread's chunk in a K-major tile: 8 values along k.
    ValKMajor = "(1,8):(1,1)"
);
static_layout!(
    /// The staging threads of an M/N-major tile: 16 chunks of 8 along the outer dimension x 16 k.
    ThrMnMajor = "(16,16):(1,16)"
);
static_layout!(
    /// A staging thread's chunk in an M/N-major tile: 8 values along the outer dimension.
    ValMnMajor = "(8,1):(1,1)"
);
static_layout!(
    /// The `cp.async` ring of a K-major operand: `(outer, k, stage)`, stages of A and B interleaved.
    RingKMajor = "(128,32,3):(32,1,8192)"
);
static_layout!(
    /// The ring of an M/N-major operand.
    RingMnMajor = "(128,32,3):(1,128,8192)"
);

/// How an operand tile lies in shared memory, by its major-ness: the ring's layout, its swizzle
/// (the same as [`SMEM_K_MAJOR`] and [`SMEM_MN_MAJOR`], per stage) and the `ldmatrix` that reads
/// the MMA fragments from it.
trait OperandTile {
    /// `(outer, k, stage) -> offset` before the swizzle.
    type Ring: StaticLayout;
    /// The swizzle.
    type Swizzle: StaticSwizzle;
    /// `ldmatrix` (K-major) or `ldmatrix.trans` (M/N-major).
    type Ldsm: Default + Copy;
    /// The staging copy's threads over the `(outer, k)` tile: along the contiguous dimension
    /// 16-byte chunks, the rest of the 256 threads along the other.
    type Thr: StaticLayout;
    /// Each thread's 8 values (one 16-byte chunk) along the contiguous dimension.
    type Val: StaticLayout;
}
/// An operand by major-ness: `MajorK<true>` is K-major.
pub(crate) struct MajorK<const K_MAJOR: bool>;
impl OperandTile for MajorK<true> {
    type Ring = RingKMajor;
    type Swizzle = Sw<2, 3, 3>;
    type Ldsm = SM75_U32x4_LDSM_N;
    type Thr = ThrKMajor;
    type Val = ValKMajor;
}
impl OperandTile for MajorK<false> {
    type Ring = RingMnMajor;
    type Swizzle = Sw<3, 3, 4>;
    type Ldsm = SM75_U16x8_LDSM_T;
    type Thr = ThrMnMajor;
    type Val = ValMnMajor;
}

/// The staging copy's atom: a 16-byte `cp.async` (zero-filled past the edges) or, for leading
/// dimensions that are not multiples of 8 elements, element copies.
trait Staging {
    /// The copy atom.
    type Atom: Default + Copy;
}
/// By whether the 16-byte copies apply.
struct Vec16<const VEC: bool>;
impl Staging for Vec16<true> {
    type Atom = SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;
}
impl Staging for Vec16<false> {
    type Atom = UniversalCopy;
}

/// The parameters of an `mma.sync` GEMM entry with inputs `I` and output `O`:
/// `D = act(alpha * A * B + beta * C + bias)` for one matrix of each, row-major or column-major
/// as the entry's name says.
///
/// # Example
/// ```
/// use cute_rs_kernels::epilogue::EpilogueOp;
/// use cute_rs_kernels::gemm::GemmParams;
/// use cute_rs_tensor::half::bf16;
/// let (a, b) = (vec![bf16::ZERO; 64 * 32], vec![bf16::ZERO; 32 * 16]);
/// let mut d = vec![0f32; 64 * 16];
/// let p = GemmParams {
///     a: a.as_ptr(), b: b.as_ptr(), c: core::ptr::null(), d: d.as_mut_ptr(),
///     m: 64, n: 16, k: 32, lda: 32, ldb: 32, ldc: 16, ldd: 16,
///     epilogue: EpilogueOp::IDENTITY,
/// };
/// assert_eq!(p.lda, p.k);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GemmParams<I: 'static, O: 'static> {
    /// A, `M x K`.
    pub a: *const I,
    /// B, `K x N`.
    pub b: *const I,
    /// C, f32, row-major: read only when `beta != 0` (any valid address otherwise).
    pub c: *const f32,
    /// D, row-major.
    pub d: *mut O,
    /// Rows of D.
    pub m: u32,
    /// Columns of D.
    pub n: u32,
    /// The reduction's length.
    pub k: u32,
    /// The leading dimension of A (the distance between its rows, or columns when column-major).
    pub lda: u32,
    /// The leading dimension of B.
    pub ldb: u32,
    /// The leading dimension of C.
    pub ldc: u32,
    /// The leading dimension of D.
    pub ldd: u32,
    /// alpha, beta, the bias and the flags ([`crate::epilogue`]).
    pub epilogue: EpilogueOp,
}

// SAFETY: `#[repr(C)]`: scalars, raw pointers and an `EpilogueOp`.
unsafe impl<I: Copy + 'static, O: Copy + 'static> cute_rs_tensor::kernel::KernelValue for GemmParams<I, O> {}

/// The tiled MMA of input type `I`: 8 warps of two m16n8k16 atoms each, a 32 x 64 x 16 tile.
type Mma<I> = TiledMma<<I as Input>::Atom, Warps, TwoAlongN>;

/// The k-blocks of a stage: `BK` over the tiled MMA's K (16).
type KBlocks = Count<{ (BK / 16) as usize }>;

/// The whole kernel (see the module docs) in the atom layer's terms, for A and B of element type
/// `I`, A K-major or not, B K-major or not, 16-byte `cp.async` staging or not, D of element type
/// `O`: each k-step copies the thread's A and B fragments from the shared ring with `ldmatrix`
/// (tiled copies made from the tiled MMA) and multiplies them with `gemm`; the epilogue finds
/// each accumulator's coordinate in an identity tensor partitioned like C.
#[inline(always)]
unsafe fn gemm<I: Input, const A_K: bool, const B_K: bool, const VEC: bool, O: Output>(p: GemmParams<I, O>)
where
    MajorK<A_K>: OperandTile,
    MajorK<B_K>: OperandTile,
    <MajorK<A_K> as OperandTile>::Ldsm: CopyAtom<I>,
    <MajorK<B_K> as OperandTile>::Ldsm: CopyAtom<I>,
    Vec16<VEC>: Staging,
    <Vec16<VEC> as Staging>::Atom: CopyAtom<I>,
{
    let GemmParams { a, b, c, d, m, n, k, lda, ldb, ldc, ldd, epilogue: op } = p;
    // A and B as 16-bit bits: only the `mma` reads them as numbers.
    let (a, b) = (a as *const u16, b as *const u16);
    let smem = shared_array!(GEMM_MMA_SYNC_RING: [u8; SMEM_BYTES], align 128).as_mut_ptr() as *mut u16;
    let t = thread_idx_x();
    let (bm0, bn0) = (block_idx_y() * BM, block_idx_x() * BN);
    let opa = Operand { ptr: a, ld: lda as usize, outer: m, outer0: bm0 };
    let opb = Operand { ptr: b, ld: ldb as usize, outer: n, outer0: bn0 };
    // The rings as swizzled tensors: A's stages at 0, 8192, ..; B's 4096 elements further.
    let ring_a = LayoutTensor::<I, _, Shared>::from_ptr_in(
        smem as *mut I,
        Swizzled::<<MajorK<A_K> as OperandTile>::Swizzle, <MajorK<A_K> as OperandTile>::Ring>::new(),
    );
    let ring_b = LayoutTensor::<I, _, Shared>::from_ptr_in(
        smem.add(TILE_ELEMS) as *mut I,
        Swizzled::<<MajorK<B_K> as OperandTile>::Swizzle, <MajorK<B_K> as OperandTile>::Ring>::new(),
    );

    let mma = Mma::<I>::default();
    let thr_mma = Mma::<I>::get_slice(t as usize);
    let s2r_a = make_tiled_copy_a::<<MajorK<A_K> as OperandTile>::Ldsm, _, _, _>(mma);
    let s2r_b = make_tiled_copy_b::<<MajorK<B_K> as OperandTile>::Ldsm, _, _, _>(mma);
    let (s2r_thr_a, s2r_thr_b) = (s2r_a.get_slice(t as usize), s2r_b.get_slice(t as usize));
    let mut acc = thr_mma.partition_fragment_c::<TileMN, 64>();

    // A and B as global tensors of (outer, k) coordinates, and their staging copies.
    let (gmem_a, gmem_b) = (opa.tensor::<I, A_K>(k), opb.tensor::<I, B_K>(k));
    let g2s_a = make_tiled_copy::<<Vec16<VEC> as Staging>::Atom, <MajorK<A_K> as OperandTile>::Thr, <MajorK<A_K> as OperandTile>::Val>();
    let g2s_b = make_tiled_copy::<<Vec16<VEC> as Staging>::Atom, <MajorK<B_K> as OperandTile>::Thr, <MajorK<B_K> as OperandTile>::Val>();
    let (g2s_thr_a, g2s_thr_b) = (g2s_a.get_slice(t as usize), g2s_b.get_slice(t as usize));

    let k_tiles = k.div_ceil(BK);
    // Stages k-tile `kt` of A and B into ring slot `slot`: each thread's chunks of the tiles at
    // (block row, kt * BK), zero-filled past the matrices' edges.
    let load = |kt: u32, slot: u32| {
        let k0 = (kt * BK) as i64;
        let (at_a, at_b) = ([opa.outer0 as i64, k0], [opb.outer0 as i64, k0]);
        copy_if(
            g2s_a,
            g2s_thr_a.partition_s(IdentityTensor::<TileOuterK>::tile_at(at_a)),
            [opa.outer as i64, k as i64],
            g2s_thr_a.partition_s(local_tile::<TileOuterK, _, _, 2>(gmem_a, at_a)),
            g2s_thr_a.partition_d(ring_a.slice_mode::<2>(slot as i64)),
        );
        copy_if(
            g2s_b,
            g2s_thr_b.partition_s(IdentityTensor::<TileOuterK>::tile_at(at_b)),
            [opb.outer as i64, k as i64],
            g2s_thr_b.partition_s(local_tile::<TileOuterK, _, _, 2>(gmem_b, at_b)),
            g2s_thr_b.partition_d(ring_b.slice_mode::<2>(slot as i64)),
        );
    };
    cp_async_pipeline::<{ STAGES - 2 }>(k_tiles, load, |_, slot| {
        let smem_a = s2r_thr_a.partition_s(ring_a.slice_mode::<2>(slot as i64));
        let smem_b = s2r_thr_b.partition_s(ring_b.slice_mode::<2>(slot as i64));
        let mut frag_a = thr_mma.partition_fragment_a::<TileOuterK, 64>();
        let mut frag_b = thr_mma.partition_fragment_b::<TileOuterK, 32>();
        // One k-block at a time, as in CuTe's tutorials: only one k-block's fragments are live
        // (24 registers), so the k-blocks' loads and products can overlap within the register
        // budget.
        unroll_for::<KBlocks>(|kb| {
            let kb = kb as i64;
            copy(s2r_a, smem_a.slice_mode::<2>(kb), frag_a.tensor().slice_mode::<2>(kb));
            copy(s2r_b, smem_b.slice_mode::<2>(kb), frag_b.tensor().slice_mode::<2>(kb));
            mma_gemm(mma, frag_a.tensor().slice_mode::<2>(kb), frag_b.tensor().slice_mode::<2>(kb), acc.tensor());
        });
    });

    epilogue(thr_mma, &mut acc.data, (c, ldc), (d, ldd), m, n, [bm0 as i64, bn0 as i64], op);
}

/// The epilogue of the kernels written in the atom layer: `D = op(acc, C)` ([`EpilogueOp`])
/// through thread `thr`'s partitions of the block's `BM x BN` tiles of C and D at coordinate `at`
/// (both row-major `m x n`, rows `ldc` and `ldd` elements apart), predicated on the coordinates of
/// the same partition of an identity tensor; C is read only when `beta != 0`.
///
/// # Safety
/// C and D are `m x n` row-major with those leading dimensions, the bias holds what `op` reads
/// (the launch's contract).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn epilogue<Atom, G, V, O, const N: usize>(
    thr: ThrMma<Atom, G, V>,
    acc: &mut [f32; N],
    (c, ldc): (*const f32, u32),
    (d, ldd): (*mut O, u32),
    m: u32,
    n: u32,
    at: [i64; 2],
    op: EpilogueOp,
) where
    Atom: MmaAtom,
    G: StaticLayout,
    V: StaticLayout,
    O: Output,
{
    let coords = thr.partition_c(IdentityTensor::<TileMN>::tile_at(at));
    let shape = [m as i64, n as i64];
    // SAFETY: only coordinates inside `m x n` are accessed, and C only when beta != 0.
    let gmem_c = LayoutTensor::<f32, _, Global>::from_ptr_in(c as *mut f32, Strided::new(shape, [ldc as i64, 1]));
    let gmem_d = LayoutTensor::<O, _, Global>::from_ptr_in(d, Strided::new(shape, [ldd as i64, 1]));
    let tile_c = thr.partition_c(local_tile::<TileMN, _, _, 2>(gmem_c, at));
    let tile_d = thr.partition_c(local_tile::<TileMN, _, _, 2>(gmem_d, at));
    for_each_unrolled_mut(acc, |i, x| {
        let [row, col] = coords.get(i).map(|c| c as u32);
        if row < m && col < n {
            tile_d.set(i, O::from_f32(op.apply(*x, row as usize, col as usize, || tile_c.get(i))));
        }
    });
}

macro_rules! gemm_kernels {
    ($($name:ident: $in:ty, $a_k:literal, $b_k:literal, $vec:literal, $out:ty;)*) => {$(
        #[doc = concat!(
            "`D = act(alpha * A * B + beta * C + bias)` with `mma.sync` (see the [module docs](self)): A and B of `",
            stringify!($in), "`, A K-major: ", stringify!($a_k), ", B K-major: ", stringify!($b_k),
            ", 16-byte cp.async: ", stringify!($vec), ", D of `", stringify!($out), "`."
        )]
        #[cfg(feature = "entries")]
        #[kernel]
        pub fn $name(p: GemmParams<$in, $out>) {
            gemm::<$in, $a_k, $b_k, $vec, $out>(p);
        }
    )*};
}

// Names: `gemm_{bf16,f16}` the input type, `a{r,c}` A row-/column-major, `b{r,c}` B row-/column-
// major (A row-major and B column-major are the K-major ones), `_v16` 16-byte staging, `_o{bf16,f16}`
// the output type when not f32. `cute_rs::gemm::Gemm::kernel_name` builds the same names.
gemm_kernels! {
    gemm_bf16_ar_br: half::bf16, true, false, false, f32;
    gemm_bf16_ar_bc: half::bf16, true, true, false, f32;
    gemm_bf16_ac_br: half::bf16, false, false, false, f32;
    gemm_bf16_ac_bc: half::bf16, false, true, false, f32;
    gemm_bf16_ar_br_v16: half::bf16, true, false, true, f32;
    gemm_bf16_ar_bc_v16: half::bf16, true, true, true, f32;
    gemm_bf16_ac_br_v16: half::bf16, false, false, true, f32;
    gemm_bf16_ac_bc_v16: half::bf16, false, true, true, f32;
    gemm_bf16_ar_br_obf16: half::bf16, true, false, false, half::bf16;
    gemm_bf16_ar_bc_obf16: half::bf16, true, true, false, half::bf16;
    gemm_bf16_ac_br_obf16: half::bf16, false, false, false, half::bf16;
    gemm_bf16_ac_bc_obf16: half::bf16, false, true, false, half::bf16;
    gemm_bf16_ar_br_v16_obf16: half::bf16, true, false, true, half::bf16;
    gemm_bf16_ar_bc_v16_obf16: half::bf16, true, true, true, half::bf16;
    gemm_bf16_ac_br_v16_obf16: half::bf16, false, false, true, half::bf16;
    gemm_bf16_ac_bc_v16_obf16: half::bf16, false, true, true, half::bf16;
    gemm_bf16_ar_br_of16: half::bf16, true, false, false, half::f16;
    gemm_bf16_ar_bc_of16: half::bf16, true, true, false, half::f16;
    gemm_bf16_ac_br_of16: half::bf16, false, false, false, half::f16;
    gemm_bf16_ac_bc_of16: half::bf16, false, true, false, half::f16;
    gemm_bf16_ar_br_v16_of16: half::bf16, true, false, true, half::f16;
    gemm_bf16_ar_bc_v16_of16: half::bf16, true, true, true, half::f16;
    gemm_bf16_ac_br_v16_of16: half::bf16, false, false, true, half::f16;
    gemm_bf16_ac_bc_v16_of16: half::bf16, false, true, true, half::f16;
    gemm_f16_ar_br: half::f16, true, false, false, f32;
    gemm_f16_ar_bc: half::f16, true, true, false, f32;
    gemm_f16_ac_br: half::f16, false, false, false, f32;
    gemm_f16_ac_bc: half::f16, false, true, false, f32;
    gemm_f16_ar_br_v16: half::f16, true, false, true, f32;
    gemm_f16_ar_bc_v16: half::f16, true, true, true, f32;
    gemm_f16_ac_br_v16: half::f16, false, false, true, f32;
    gemm_f16_ac_bc_v16: half::f16, false, true, true, f32;
    gemm_f16_ar_br_obf16: half::f16, true, false, false, half::bf16;
    gemm_f16_ar_bc_obf16: half::f16, true, true, false, half::bf16;
    gemm_f16_ac_br_obf16: half::f16, false, false, false, half::bf16;
    gemm_f16_ac_bc_obf16: half::f16, false, true, false, half::bf16;
    gemm_f16_ar_br_v16_obf16: half::f16, true, false, true, half::bf16;
    gemm_f16_ar_bc_v16_obf16: half::f16, true, true, true, half::bf16;
    gemm_f16_ac_br_v16_obf16: half::f16, false, false, true, half::bf16;
    gemm_f16_ac_bc_v16_obf16: half::f16, false, true, true, half::bf16;
    gemm_f16_ar_br_of16: half::f16, true, false, false, half::f16;
    gemm_f16_ar_bc_of16: half::f16, true, true, false, half::f16;
    gemm_f16_ac_br_of16: half::f16, false, false, false, half::f16;
    gemm_f16_ac_bc_of16: half::f16, false, true, false, half::f16;
    gemm_f16_ar_br_v16_of16: half::f16, true, false, true, half::f16;
    gemm_f16_ar_bc_v16_of16: half::f16, true, true, true, half::f16;
    gemm_f16_ac_br_v16_of16: half::f16, false, false, true, half::f16;
    gemm_f16_ac_bc_v16_of16: half::f16, false, true, true, half::f16;
}


/// The `mma.sync` GEMMs of one input and output type, indexed by
/// `4 * v16 + 2 * (A column-major) + (B column-major)`: what the host's GEMM API picks from.
#[cfg(all(not(target_arch = "nvptx64"), feature = "entries"))]
pub mod by_type {
    use super::*;
    use half::{bf16, f16};
    use cute_rs_tensor::KernelFn;

    macro_rules! table {
        ($name:ident: $in:ty => $out:ty: $($k:ident)*) => {
            #[doc = concat!("Inputs `", stringify!($in), "`, output `", stringify!($out), "`.")]
            pub const $name: [KernelFn<(GemmParams<$in, $out>,)>; 8] = [$($k),*];
        };
    }
    table!(BF16_F32: bf16 => f32: gemm_bf16_ar_br gemm_bf16_ar_bc gemm_bf16_ac_br gemm_bf16_ac_bc
        gemm_bf16_ar_br_v16 gemm_bf16_ar_bc_v16 gemm_bf16_ac_br_v16 gemm_bf16_ac_bc_v16);
    table!(BF16_BF16: bf16 => bf16: gemm_bf16_ar_br_obf16 gemm_bf16_ar_bc_obf16 gemm_bf16_ac_br_obf16
        gemm_bf16_ac_bc_obf16 gemm_bf16_ar_br_v16_obf16 gemm_bf16_ar_bc_v16_obf16 gemm_bf16_ac_br_v16_obf16
        gemm_bf16_ac_bc_v16_obf16);
    table!(BF16_F16: bf16 => f16: gemm_bf16_ar_br_of16 gemm_bf16_ar_bc_of16 gemm_bf16_ac_br_of16
        gemm_bf16_ac_bc_of16 gemm_bf16_ar_br_v16_of16 gemm_bf16_ar_bc_v16_of16 gemm_bf16_ac_br_v16_of16
        gemm_bf16_ac_bc_v16_of16);
    table!(F16_F32: f16 => f32: gemm_f16_ar_br gemm_f16_ar_bc gemm_f16_ac_br gemm_f16_ac_bc
        gemm_f16_ar_br_v16 gemm_f16_ar_bc_v16 gemm_f16_ac_br_v16 gemm_f16_ac_bc_v16);
    table!(F16_BF16: f16 => bf16: gemm_f16_ar_br_obf16 gemm_f16_ar_bc_obf16 gemm_f16_ac_br_obf16
        gemm_f16_ac_bc_obf16 gemm_f16_ar_br_v16_obf16 gemm_f16_ar_bc_v16_obf16 gemm_f16_ac_br_v16_obf16
        gemm_f16_ac_bc_v16_obf16);
    table!(F16_F16: f16 => f16: gemm_f16_ar_br_of16 gemm_f16_ar_bc_of16 gemm_f16_ac_br_of16
        gemm_f16_ac_bc_of16 gemm_f16_ar_br_v16_of16 gemm_f16_ar_bc_v16_of16 gemm_f16_ac_br_v16_of16
        gemm_f16_ac_bc_v16_of16);
}
