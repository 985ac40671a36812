//! f32 GEMM: `D = alpha * A * B + beta * C` with f32 A, B, C and D, on the CUDA cores (FFMA, exact
//! f32 arithmetic) or on the tensor cores (`mma.sync.m16n8k8` tf32: inputs rounded to tf32, f32
//! accumulation).
//!
//! The host API is `cute_rs::gemm::Gemm::run_f32` / `run_tf32`; these are its kernels, one per
//! combination of
//! - A row-major (`M x K`, K contiguous: "K-major") or column-major (M contiguous),
//! - B row-major (`K x N`, N contiguous) or column-major (K contiguous: "K-major"),
//! - 16-byte global accesses (`_v4`: both leading dimensions multiples of 4 elements and 16-byte
//!   aligned bases, so that every aligned group of 4 elements along the contiguous dimension is
//!   either wholly inside the matrix or wholly outside) or element-wise ones (any shape).
//!
//! # The kernels
//! A block of [`THREADS`] threads (8 warps) computes a [`BM`] x [`BN`] tile of D, stepping
//! through K by [`FFMA_BK`] or [`TF32_BK`]. Elements past the matrix edges are staged as zeros
//! (they add nothing), and the epilogue's stores are predicated, so partial tiles need no other
//! special case. Shared-memory rows are padded so that the accesses named below hit distinct banks.
//!
//! FFMA (`sgemm_f32_*`, launch bounds 256 x 2 blocks per SM):
//! - Both operand tiles sit in shared memory *K-outermost*, as rows of 128 elements along M (for
//!   A) or N (for B), one row per k ([`FFMA_SMEM`]): the inner loop then reads the 4 consecutive M
//!   (or N) values a thread needs as one 128-bit `ld.shared`. A K-major operand is transposed on
//!   its way there (loaded as 4 consecutive k, stored as 4 rows, 16 banks apart with the padding).
//! - Shared memory holds two k-steps ("double buffering"), and each thread *prefetches* the next
//!   k-step's global elements into registers before computing the current one, storing them to
//!   the other buffer after: one barrier per k-step.
//! - The 256 threads form a 16 x 16 grid; thread `(tm, tn)` owns the 8 x 8 outputs at rows
//!   `4 tm + {0..4}` and `64 + 4 tm + {0..4}`, columns likewise with `tn` ([`ffma_thread_tile`]),
//!   64 accumulators in registers. Per k it reads two 128-bit A values and two B values and issues
//!   64 FFMA. A warp covers 4 `tm` x 8 `tn`, so each 8-lane phase of a 128-bit shared load reads
//!   either one A address (a broadcast) or 32 consecutive B words: no bank conflicts.
//! - Written in the atom layer: that grid is a tiled MMA of the one-thread FMA atom with 4 x 4
//!   values per thread (`UniversalFma`, CuTe's `sgemm_sm80` arrangement); the prefetch and the
//!   stores into the buffers are tiled copies (`copy_if` of `ld.global.nc` atoms into a register
//!   fragment, `copy` of element or 128-bit atoms into shared memory); each k's fragments are
//!   128-bit copies through the tiled MMA's partitions, multiplied with `gemm`.
//!
//! tf32 (`sgemm_tf32_*`, launch bounds 256 x 1):
//! - Tiles keep their global orientation in shared memory ([`TF32_SMEM_K_MAJOR`],
//!   [`TF32_SMEM_MN_MAJOR`]), so that `cp.async` copies them without registers: a ring of
//!   [`TF32_STAGES`] k-steps in [`TF32_SMEM_BYTES`] of dynamic shared memory, three in flight while
//!   one is multiplied (one block of 8 warps per SM: global latency needs the depth).
//! - Written in the atom layer: a tiled MMA of the m16n8k8 tf32 atom over 8 warps, 2 (M) x 4 (N)
//!   (each warp's 4 x 4 atoms of the 128 x 128 tile 32 rows and 32 columns apart); tiled
//!   `cp.async` copies stage the tiles (`copy_if`, zero-filled past the edges); each k-block's
//!   fragments are copied from the ring through the tiled MMA's partitions, rounded to tf32
//!   (`transform` with `f32_to_tf32`: to nearest, ties away from zero) and multiplied (`gemm`);
//!   the epilogue writes through the C partition, predicated on an identity tensor's.
//!
//! Launch: grid `(ceil(N / BN), ceil(M / BM))`, block [`THREADS`], dynamic shared memory 0 (FFMA)
//! or [`TF32_SMEM_BYTES`] (tf32). Parameters: `(a, b, c, d, m, n, k, lda, ldb, alpha, beta)`; C
//! and D are row-major `M x N` (leading dimension `n`); C is read only when `beta != 0`.
//!
//! The kernels' figures against cuBLAS: `docs/performance.md`.

use cute_rs_layout::{unwrap, Layout};
use cute_rs_tensor::algorithm::{gemm as mma_gemm, transform};
use cute_rs_tensor::atom::copy::{
    copy, make_tiled_copy_a, make_tiled_copy_b, CopyAtom, GlobalLoadNc, SM80_CP_ASYNC_CACHEALWAYS_ZFILL,
    SM80_CP_ASYNC_CACHEGLOBAL_ZFILL, UniversalCopy, VectorCopy,
};
use cute_rs_tensor::atom::tiled_copy::{copy_if, make_tiled_copy};
use cute_rs_tensor::atom::{SM80_16x8x8_F32TF32TF32F32_TN, TiledMma, UniversalFma};
use cute_rs_tensor::device::cp_async::cp_async_pipeline;
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x};
use cute_rs_tensor::device::memory::Ca;
use cute_rs_tensor::device::numeric::f32_to_tf32;
use cute_rs_tensor::device::unroll::{unroll_for, Count};
use cute_rs_tensor::identity::IdentityTensor;
use cute_rs_tensor::static_view::StaticView;
use cute_rs_tensor::strided_tile::local_tile;
use cute_rs_tensor::{kernel, static_layout, Fragment, LayoutTensor, Shared, Static, StaticLayout};

use crate::epilogue::EpilogueOp;
use crate::gemm::{epilogue, operand_tensor, MajorK, TileMN, Warps};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{dynamic_shared, shared_array};

/// Rows (M) of a block's D tile.
pub const BM: u32 = 128;
/// Columns (N) of a block's D tile.
pub const BN: u32 = 128;
/// Threads per block (8 warps).
pub const THREADS: u32 = 256;
/// K per k-step of the FFMA kernels: one 128-bit chunk of A and one of B per thread and step.
pub const FFMA_BK: u32 = 8;
/// K per k-step of the tf32 kernels (two m16n8k8 steps; two 16-byte chunks of A and of B per
/// thread). 32 has ptxas keep four steps' fragments in registers: 236-255 of them, and spills.
pub const TF32_BK: u32 = 16;
/// Shared-memory stages of the tf32 kernels' `cp.async` ring: while the warps multiply one k-step,
/// the next three are in flight.
pub const TF32_STAGES: u32 = 4;

/// An FFMA operand tile in shared memory, `(outer, k) -> element offset` (outer = m for A, n for
/// B): 8 rows of 128 elements, padded to 132 so that the 4 rows a transposing thread writes
/// (`k .. k + 4`) and the next thread's (`k + 4 ..`, same outer) fall 16 banks apart.
///
/// # Example
/// ```
/// use cute_rs_kernels::sgemm::FFMA_SMEM;
/// assert_eq!(FFMA_SMEM.call(5 + 128 * 3), 5 + 132 * 3); // (outer 5, k 3)
/// assert_eq!(FFMA_SMEM.cosize(), 132 * 7 + 128);
/// ```
pub const FFMA_SMEM: Layout = unwrap!(Layout::parse("(128,8):(1,132)"));

/// A K-major tf32 operand tile in shared memory (A row-major, B column-major: global rows of k),
/// `(outer, k) -> element offset`: 128 rows of 16 k, padded to 20 so that a fragment load (lane
/// `4g + t` reading outer `g`, k `t`) touches banks `20g + t mod 32`: all 32 distinct. Rows of 80
/// bytes: 16-byte `cp.async` chunks stay aligned.
///
/// # Example
/// ```
/// use cute_rs_kernels::sgemm::TF32_SMEM_K_MAJOR;
/// assert_eq!(TF32_SMEM_K_MAJOR.call(7 + 128 * 3), 20 * 7 + 3); // (outer 7, k 3)
/// let mut banks: Vec<i64> = (0..32).map(|l| TF32_SMEM_K_MAJOR.call(l / 4 + 128 * (l % 4)) % 32).collect();
/// banks.sort();
/// assert_eq!(banks, (0..32).collect::<Vec<i64>>());
/// ```
pub const TF32_SMEM_K_MAJOR: Layout = unwrap!(Layout::parse("(128,16):(20,1)"));

/// An M/N-major tf32 operand tile in shared memory (A column-major, B row-major: global rows of
/// outer), `(outer, k) -> element offset`: 16 rows of 128, padded to 136 (banks `8t + g` for a
/// fragment load).
///
/// # Example
/// ```
/// use cute_rs_kernels::sgemm::TF32_SMEM_MN_MAJOR;
/// assert_eq!(TF32_SMEM_MN_MAJOR.call(7 + 128 * 3) % 32, 7 + 8 * 3); // bank of (outer 7, k 3)
/// ```
pub const TF32_SMEM_MN_MAJOR: Layout = unwrap!(Layout::parse("(128,16):(1,136)"));

/// Elements of one tf32 operand tile: the larger of the two layouts' extents (128 x 20).
const TF32_TILE: usize = 128 * 20;
const _: () = assert!(TF32_SMEM_K_MAJOR.cosize() as usize <= TF32_TILE && TF32_SMEM_MN_MAJOR.cosize() as usize <= TF32_TILE);

/// Dynamic shared memory of the tf32 kernels, bytes: [`TF32_STAGES`] x (A tile + B tile), 80 KiB
/// (above the 48 KiB of static shared memory: the host raises the kernel's limit at launch).
///
/// # Example
/// ```
/// assert_eq!(cute_rs_kernels::sgemm::TF32_SMEM_BYTES, 4 * 2 * 128 * 20 * 4);
/// ```
pub const TF32_SMEM_BYTES: u32 = TF32_STAGES * 2 * TF32_TILE as u32 * 4;

/// Elements of one staged FFMA k-step (A and B tiles): 2 x 8 rows of 132.
const FFMA_STAGE: usize = 2 * FFMA_SMEM.cosize() as usize;

/// `thread -> (tm, tn)` of the FFMA kernels, as `tm + 16 tn`: lane `l` of warp `w` is
/// `tm = 4 (w / 2) + l / 8`, `tn = 8 (w % 2) + l % 8`. Thread `(tm, tn)` computes D's rows
/// `4 tm + {0..4}`, `64 + 4 tm + {0..4}` and columns `4 tn + {0..4}`, `64 + 4 tn + {0..4}` of the
/// block tile.
///
/// # Example
/// ```
/// use cute_rs_kernels::sgemm::ffma_thread_tile;
/// assert_eq!(ffma_thread_tile.call(9), 1 + 16 * 1);          // warp 0, lane 9: tm 1, tn 1
/// assert_eq!(ffma_thread_tile.call(32 + 7), 0 + 16 * 15);    // warp 1, lane 7: tm 0, tn 15
/// assert_eq!(ffma_thread_tile.call(255), 15 + 16 * 15);
/// ```
#[allow(non_upper_case_globals)]
pub const ffma_thread_tile: Layout = unwrap!(Layout::parse("((8,4),(2,4)):((16,1),(128,4))"));

static_layout!(
    /// A tf32 operand tile, `(outer, k)`: `BM x TF32_BK`.
    TfTile = "(128,16)"
);
static_layout!(
    /// The `cp.async` ring of a K-major tf32 operand, `(outer, k, stage)`: [`TF32_SMEM_K_MAJOR`]
    /// per stage, A's and B's tiles of a stage side by side.
    TfRingKMajor = "(128,16,4):(20,1,5120)"
);
static_layout!(
    /// The ring of an M/N-major tf32 operand: [`TF32_SMEM_MN_MAJOR`] per stage.
    TfRingMnMajor = "(128,16,4):(1,136,5120)"
);
static_layout!(
    /// The staging threads of a K-major tf32 tile: 64 rows x 4 chunks of 4 k, row-major.
    TfThrKMajor = "(64,4):(4,1)"
);
static_layout!(
    /// A staging thread's chunk in a K-major tile: 4 values along k (16 bytes).
    ChunkK = "(1,4):(1,1)"
);
static_layout!(
    /// The staging threads of an M/N-major tile of 8 k (tf32: per half of a k-step; FFMA: a
    /// k-step): 32 chunks of 4 along the outer dimension x 8 k.
    ThrMnMajor = "(32,8):(1,32)"
);
static_layout!(
    /// A staging thread's chunk in an M/N-major tile: 4 values along the outer dimension.
    ChunkMn = "(4,1):(1,1)"
);
const _: () = assert!(
    TfRingKMajor::LAYOUT.stride().leaves()[0] == TF32_SMEM_K_MAJOR.stride().leaves()[0]
        && TfRingMnMajor::LAYOUT.stride().leaves()[1] == TF32_SMEM_MN_MAJOR.stride().leaves()[1]
        && TfRingKMajor::LAYOUT.stride().leaves()[2] == 2 * TF32_TILE as i64
);

/// How a tf32 operand tile lies in shared memory and is staged there, by its major-ness.
trait Tf32Tile {
    /// `(outer, k, stage) -> offset`.
    type Ring: StaticLayout;
    /// The staging copy's threads over the `(outer, k)` tile.
    type Thr: StaticLayout;
    /// Each staging thread's values (one 16-byte chunk) along the contiguous dimension.
    type Val: StaticLayout;
}
impl Tf32Tile for MajorK<true> {
    type Ring = TfRingKMajor;
    type Thr = TfThrKMajor;
    type Val = ChunkK;
}
impl Tf32Tile for MajorK<false> {
    type Ring = TfRingMnMajor;
    type Thr = ThrMnMajor;
    type Val = ChunkMn;
}
/// The tf32 staging atom: a 16-byte `cp.async` of 4 values, or 4-byte ones where the leading
/// dimensions are not multiples of 4 (both zero-filled past the edges).
trait Tf32Staging {
    /// The copy atom.
    type Atom: Default + Copy + CopyAtom<f32>;
}
impl Tf32Staging for Vec4<true> {
    type Atom = SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;
}
impl Tf32Staging for Vec4<false> {
    type Atom = SM80_CP_ASYNC_CACHEALWAYS_ZFILL<4>;
}
/// By whether the 16-byte copies apply.
struct Vec4<const VEC: bool>;

static_layout!(
    /// The FFMA kernels' threads as the tiled MMA's thread groups, `(tm, tn) -> thread`: lane `l`
    /// of warp `w` is `tm = l / 8 + 4 (w / 2)`, `tn = l % 8 + 8 (w % 2)` (the inverse of
    /// [`ffma_thread_tile`]).
    FfmaThreads = "((4,4),(8,2),1):((8,64),(1,32),0)"
);
/// The tiled MMA's thread groups are exactly [`ffma_thread_tile`]'s threads: `FfmaThreads` maps
/// each thread's `(tm, tn)` back to the thread.
const _: () = {
    let mut t = 0;
    while t < 256 {
        assert!(FfmaThreads::LAYOUT.call(ffma_thread_tile.call(t)) == t, "FfmaThreads must invert ffma_thread_tile");
        t += 1;
    }
};
static_layout!(
    /// Each FFMA thread's block of C: 4 x 4 adjacent values, so that its 4 A (and B) values of a
    /// k are one 128-bit shared load.
    FfmaValues = "(4,4,1)"
);
static_layout!(
    /// An FFMA operand tile, `(outer, k)`: `BM x FFMA_BK`.
    FfmaTile = "(128,8)"
);
static_layout!(
    /// The FFMA kernels' two shared buffers of an operand, `(outer, k, buffer)`: [`FFMA_SMEM`] per
    /// buffer, A's and B's tiles of a buffer side by side.
    FfmaRing = "(128,8,2):(1,132,2104)"
);
static_layout!(
    /// The FFMA staging threads of a K-major tile: 128 rows x 2 chunks of 4 k, row-major.
    FfmaThrKMajor = "(128,2):(2,1)"
);
const _: () = assert!(
    FfmaRing::LAYOUT.stride().leaves()[1] == FFMA_SMEM.stride().leaves()[1] && FfmaRing::LAYOUT.stride().leaves()[2] == FFMA_STAGE as i64
);

/// How an FFMA operand tile is staged, by its major-ness: register prefetch through the staging
/// threads' 4-value chunks along the contiguous dimension, stored K-outermost ([`FFMA_SMEM`]):
/// a K-major chunk is transposed on its way (4 element stores into 4 rows), an M/N-major one
/// stored as one 128-bit value.
trait FfmaTileStaging {
    /// The staging threads over the `(outer, k)` tile.
    type Thr: StaticLayout;
    /// Each staging thread's chunk.
    type Val: StaticLayout;
    /// The store of a chunk into the shared tile.
    type Store: Default + Copy + CopyAtom<f32>;
}
impl FfmaTileStaging for MajorK<true> {
    type Thr = FfmaThrKMajor;
    type Val = ChunkK;
    type Store = UniversalCopy;
}
impl FfmaTileStaging for MajorK<false> {
    type Thr = ThrMnMajor;
    type Val = ChunkMn;
    type Store = VectorCopy<16>;
}
/// The FFMA kernels' global loads: one 128-bit `ld.global.nc` per chunk (wholly inside or wholly
/// outside, see the module docs), or element loads.
trait FfmaLoad {
    /// The load atom.
    type Atom: Default + Copy + CopyAtom<f32>;
}
impl FfmaLoad for Vec4<true> {
    type Atom = GlobalLoadNc<Ca, 16>;
}
impl FfmaLoad for Vec4<false> {
    type Atom = GlobalLoadNc<Ca, 4>;
}

/// The parameters of an f32 GEMM entry: `D = alpha * A * B + beta * C`, A and B row-major or
/// column-major as the entry's name says, C and D row-major with N elements a row.
///
/// # Example
/// ```
/// use cute_rs_kernels::sgemm::SgemmParams;
/// let (a, b) = (vec![1f32; 8 * 4], vec![1f32; 4 * 2]);
/// let mut d = vec![0f32; 8 * 2];
/// let p = SgemmParams { a: a.as_ptr(), b: b.as_ptr(), c: d.as_ptr(), d: d.as_mut_ptr(), m: 8, n: 2, k: 4, lda: 4, ldb: 2, alpha: 1.0, beta: 0.0 };
/// assert_eq!(p.m * p.k, 32);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SgemmParams {
    /// A, `M x K`.
    pub a: *const f32,
    /// B, `K x N`.
    pub b: *const f32,
    /// C, `M x N` row-major: read only when `beta != 0` (any valid address otherwise).
    pub c: *const f32,
    /// D, `M x N` row-major.
    pub d: *mut f32,
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
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of C.
    pub beta: f32,
}

// SAFETY: `#[repr(C)]`: scalars and raw pointers.
unsafe impl cute_rs_tensor::kernel::KernelValue for SgemmParams {}

/// The FFMA tiled MMA: the one-thread FMA atom, 4 x 4 values per thread, 16 x 16 threads (a
/// 64 x 64 tile, repeated 2 x 2 over the block's 128 x 128).
type FfmaMma = TiledMma<UniversalFma<f32>, FfmaThreads, FfmaValues>;

/// The FFMA kernel (see the module docs) in the atom layer's terms, for A K-major or not, B
/// K-major or not, 128-bit loads or not: each k-step's tiles are prefetched into registers by
/// tiled copies (`copy_if`: zeros past the edges) while the previous one is multiplied, then
/// stored into the other shared buffer (`copy`); each k's fragments are copied from the buffer
/// through the tiled MMA's partitions (128-bit loads) and multiplied (`gemm`).
#[inline(always)]
unsafe fn sgemm_ffma<const A_K: bool, const B_K: bool, const VEC: bool>(p: SgemmParams) where
    MajorK<A_K>: FfmaTileStaging,
    MajorK<B_K>: FfmaTileStaging,
    Vec4<VEC>: FfmaLoad,
{
    let SgemmParams { a, b, c, d, m, n, k, lda, ldb, alpha, beta } = p;
    let smem = shared_array!(SGEMM_FFMA_TILES: [f32; 2 * FFMA_STAGE], align 16).as_mut_ptr();
    let t = thread_idx_x() as usize;
    let (bm0, bn0) = (block_idx_y() * BM, block_idx_x() * BN);
    let ring_a = LayoutTensor::<f32, _, Shared>::from_ptr_in(smem, Static::<FfmaRing>::new());
    let ring_b = LayoutTensor::<f32, _, Shared>::from_ptr_in(smem.add(FFMA_SMEM.cosize() as usize), Static::<FfmaRing>::new());
    let (gmem_a, gmem_b) = (operand_tensor(a, lda, m, k, A_K), operand_tensor(b, ldb, n, k, B_K));

    let mma = FfmaMma::default();
    let thr_mma = FfmaMma::get_slice(t);
    let s2r_a = make_tiled_copy_a::<VectorCopy<16>, _, _, _>(mma);
    let s2r_b = make_tiled_copy_b::<VectorCopy<16>, _, _, _>(mma);
    let (s2r_thr_a, s2r_thr_b) = (s2r_a.get_slice(t), s2r_b.get_slice(t));
    let g2r_a = make_tiled_copy::<<Vec4<VEC> as FfmaLoad>::Atom, <MajorK<A_K> as FfmaTileStaging>::Thr, <MajorK<A_K> as FfmaTileStaging>::Val>();
    let g2r_b = make_tiled_copy::<<Vec4<VEC> as FfmaLoad>::Atom, <MajorK<B_K> as FfmaTileStaging>::Thr, <MajorK<B_K> as FfmaTileStaging>::Val>();
    let r2s_a = make_tiled_copy::<<MajorK<A_K> as FfmaTileStaging>::Store, <MajorK<A_K> as FfmaTileStaging>::Thr, <MajorK<A_K> as FfmaTileStaging>::Val>();
    let r2s_b = make_tiled_copy::<<MajorK<B_K> as FfmaTileStaging>::Store, <MajorK<B_K> as FfmaTileStaging>::Thr, <MajorK<B_K> as FfmaTileStaging>::Val>();
    let (g2r_thr_a, g2r_thr_b) = (g2r_a.get_slice(t), g2r_b.get_slice(t));
    let mut acc = thr_mma.partition_fragment_c::<TileMN, 64>();

    // The thread's chunks of the operands' tiles at k-step `ks`, and its registers for them.
    let tile_a = |ks: u32| g2r_thr_a.partition_s(local_tile::<FfmaTile, _, _, 2>(gmem_a, [bm0 as i64, (ks * FFMA_BK) as i64]));
    let tile_b = |ks: u32| g2r_thr_b.partition_s(local_tile::<FfmaTile, _, _, 2>(gmem_b, [bn0 as i64, (ks * FFMA_BK) as i64]));
    let (mut regs_a, mut regs_b) = (tile_a(0).make_fragment_like::<4>(), tile_b(0).make_fragment_like::<4>());
    let fetch = |ks: u32, regs_a: &mut Fragment<f32, _, 4>, regs_b: &mut Fragment<f32, _, 4>| {
        let k0 = (ks * FFMA_BK) as i64;
        let (at_a, at_b) = ([bm0 as i64, k0], [bn0 as i64, k0]);
        copy_if(g2r_a, g2r_thr_a.partition_s(IdentityTensor::<FfmaTile>::tile_at(at_a)), [m as i64, k as i64], tile_a(ks), regs_a.tensor());
        copy_if(g2r_b, g2r_thr_b.partition_s(IdentityTensor::<FfmaTile>::tile_at(at_b)), [n as i64, k as i64], tile_b(ks), regs_b.tensor());
    };
    let k_steps = k.div_ceil(FFMA_BK);
    if k_steps > 0 {
        fetch(0, &mut regs_a, &mut regs_b);
        copy(r2s_a, regs_a.tensor(), g2r_thr_a.partition_d(ring_a.slice_mode::<2>(0)));
        copy(r2s_b, regs_b.tensor(), g2r_thr_b.partition_d(ring_b.slice_mode::<2>(0)));
        sync_threads();
    }
    for ks in 0..k_steps {
        let more = ks + 1 < k_steps;
        if more {
            fetch(ks + 1, &mut regs_a, &mut regs_b);
        }
        let buffer = (ks % 2) as i64;
        let smem_a = s2r_thr_a.partition_s(ring_a.slice_mode::<2>(buffer));
        let smem_b = s2r_thr_b.partition_s(ring_b.slice_mode::<2>(buffer));
        let mut frag_a = thr_mma.partition_fragment_a::<FfmaTile, 64>();
        let mut frag_b = thr_mma.partition_fragment_b::<FfmaTile, 64>();
        unroll_for::<Count<{ FFMA_BK as usize }>>(|kb| {
            let kb = kb as i64;
            let (fa, fb) = (frag_a.tensor().slice_mode::<2>(kb), frag_b.tensor().slice_mode::<2>(kb));
            copy(s2r_a, smem_a.slice_mode::<2>(kb), fa);
            copy(s2r_b, smem_b.slice_mode::<2>(kb), fb);
            mma_gemm(mma, fa, fb, acc.tensor());
        });
        if more {
            // The other buffer's last readers (step ks - 1) passed the barrier ending that step.
            let next = 1 - buffer;
            copy(r2s_a, regs_a.tensor(), g2r_thr_a.partition_d(ring_a.slice_mode::<2>(next)));
            copy(r2s_b, regs_b.tensor(), g2r_thr_b.partition_d(ring_b.slice_mode::<2>(next)));
        }
        // Step ks + 1's tiles complete; every read of step ks's done before it is overwritten.
        sync_threads();
    }

    epilogue(thr_mma, &mut acc.data, (c, n), (d, n), m, n, [bm0 as i64, bn0 as i64], EpilogueOp { alpha, beta, ..EpilogueOp::IDENTITY });
}

/// The tf32 tiled MMA: 8 warps, 2 along M x 4 along N, of one m16n8k8 atom each (a 32 x 32 x 8
/// tile, repeated 4 x 4 over the block's 128 x 128).
type Tf32Mma = TiledMma<SM80_16x8x8_F32TF32TF32F32_TN, Warps>;
/// The m16n8k8 k-blocks of a k-step.
type Tf32KBlocks = Count<{ (TF32_BK / 8) as usize }>;

/// The tf32 tensor-core kernel (see the module docs) in the atom layer's terms, for A K-major or
/// not, B K-major or not, 16-byte `cp.async` or not: each k-step's tiles are staged into the
/// shared ring by tiled `cp.async` copies (`copy_if`: zero-filled past the edges); each k-block's
/// fragments are copied from the ring through the tiled MMA's partitions, rounded to tf32
/// (`transform`) and multiplied (`gemm`).
#[inline(always)]
unsafe fn sgemm_tf32<const A_K: bool, const B_K: bool, const VEC: bool>(p: SgemmParams) where
    MajorK<A_K>: Tf32Tile,
    MajorK<B_K>: Tf32Tile,
    Vec4<VEC>: Tf32Staging,
{
    let SgemmParams { a, b, c, d, m, n, k, lda, ldb, alpha, beta } = p;
    let ring = dynamic_shared!(SGEMM_TF32_RING: f32, align 16).as_mut_ptr();
    let t = thread_idx_x() as usize;
    let (bm0, bn0) = (block_idx_y() * BM, block_idx_x() * BN);
    // A's and B's rings, B's tiles `TF32_TILE` elements after A's.
    let ring_a = LayoutTensor::<f32, _, Shared>::from_ptr_in(ring, Static::<<MajorK<A_K> as Tf32Tile>::Ring>::new());
    let ring_b = LayoutTensor::<f32, _, Shared>::from_ptr_in(ring.add(TF32_TILE), Static::<<MajorK<B_K> as Tf32Tile>::Ring>::new());
    let (gmem_a, gmem_b) = (operand_tensor(a, lda, m, k, A_K), operand_tensor(b, ldb, n, k, B_K));

    let mma = Tf32Mma::default();
    let thr_mma = Tf32Mma::get_slice(t);
    let s2r_a = make_tiled_copy_a::<UniversalCopy, _, _, _>(mma);
    let s2r_b = make_tiled_copy_b::<UniversalCopy, _, _, _>(mma);
    let (s2r_thr_a, s2r_thr_b) = (s2r_a.get_slice(t), s2r_b.get_slice(t));
    let g2s_a = make_tiled_copy::<<Vec4<VEC> as Tf32Staging>::Atom, <MajorK<A_K> as Tf32Tile>::Thr, <MajorK<A_K> as Tf32Tile>::Val>();
    let g2s_b = make_tiled_copy::<<Vec4<VEC> as Tf32Staging>::Atom, <MajorK<B_K> as Tf32Tile>::Thr, <MajorK<B_K> as Tf32Tile>::Val>();
    let (g2s_thr_a, g2s_thr_b) = (g2s_a.get_slice(t), g2s_b.get_slice(t));
    let mut acc = thr_mma.partition_fragment_c::<TileMN, 64>();

    // Stages k-step `ks` of A and B into ring slot `slot`: each thread's chunks of the tiles at
    // (block row, ks * TF32_BK), zero-filled past the matrices' edges.
    let load = |ks: u32, slot: u32| {
        let k0 = (ks * TF32_BK) as i64;
        let (at_a, at_b) = ([bm0 as i64, k0], [bn0 as i64, k0]);
        copy_if(
            g2s_a,
            g2s_thr_a.partition_s(IdentityTensor::<TfTile>::tile_at(at_a)),
            [m as i64, k as i64],
            g2s_thr_a.partition_s(local_tile::<TfTile, _, _, 2>(gmem_a, at_a)),
            g2s_thr_a.partition_d(ring_a.slice_mode::<2>(slot as i64)),
        );
        copy_if(
            g2s_b,
            g2s_thr_b.partition_s(IdentityTensor::<TfTile>::tile_at(at_b)),
            [n as i64, k as i64],
            g2s_thr_b.partition_s(local_tile::<TfTile, _, _, 2>(gmem_b, at_b)),
            g2s_thr_b.partition_d(ring_b.slice_mode::<2>(slot as i64)),
        );
    };
    cp_async_pipeline::<{ TF32_STAGES - 2 }>(k.div_ceil(TF32_BK), load, |_, slot| {
        let smem_a = s2r_thr_a.partition_s(ring_a.slice_mode::<2>(slot as i64));
        let smem_b = s2r_thr_b.partition_s(ring_b.slice_mode::<2>(slot as i64));
        let mut frag_a = thr_mma.partition_fragment_a::<TfTile, 32>();
        let mut frag_b = thr_mma.partition_fragment_b::<TfTile, 16>();
        unroll_for::<Tf32KBlocks>(|kb| {
            let kb = kb as i64;
            let (fa, fb) = (frag_a.tensor().slice_mode::<2>(kb), frag_b.tensor().slice_mode::<2>(kb));
            copy(s2r_a, smem_a.slice_mode::<2>(kb), fa);
            copy(s2r_b, smem_b.slice_mode::<2>(kb), fb);
            transform(fa, f32_to_tf32);
            transform(fb, f32_to_tf32);
            mma_gemm(mma, fa, fb, acc.tensor());
        });
    });

    epilogue(thr_mma, &mut acc.data, (c, n), (d, n), m, n, [bm0 as i64, bn0 as i64], EpilogueOp { alpha, beta, ..EpilogueOp::IDENTITY });
}

macro_rules! sgemm_kernels {
    ($($name:ident: $body:ident, $blocks:literal, $what:literal, $a_k:literal, $b_k:literal, $vec:literal;)*) => {$(
        #[doc = concat!(
            "`D = alpha * A * B + beta * C`, f32, ", $what, " (see the [module docs](self)): A ",
            "K-major: ", stringify!($a_k), ", B K-major: ", stringify!($b_k), ", 128-bit loads: ",
            stringify!($vec), "."
        )]
        #[cfg(feature = "entries")]
        #[kernel(launch_bounds(256, $blocks))]
        pub fn $name(p: SgemmParams) {
            $body::<$a_k, $b_k, $vec>(p);
        }
    )*};
}

// Names: `a{r,c}` A row-/column-major, `b{r,c}` B row-/column-major (A row-major and B
// column-major are the K-major ones); `_v4`: 128-bit loads. Launch bounds: 2 blocks per SM for
// FFMA (128 registers: 64 accumulators, 16 operands, 8 prefetched, addresses; no spills); 1 for
// tf32, whose 64 accumulators and 24 fragment registers per k8 step spill at 128.
sgemm_kernels! {
    sgemm_f32_ar_br: sgemm_ffma, 2, "FFMA", true, false, false;
    sgemm_f32_ar_bc: sgemm_ffma, 2, "FFMA", true, true, false;
    sgemm_f32_ac_br: sgemm_ffma, 2, "FFMA", false, false, false;
    sgemm_f32_ac_bc: sgemm_ffma, 2, "FFMA", false, true, false;
    sgemm_f32_ar_br_v4: sgemm_ffma, 2, "FFMA", true, false, true;
    sgemm_f32_ar_bc_v4: sgemm_ffma, 2, "FFMA", true, true, true;
    sgemm_f32_ac_br_v4: sgemm_ffma, 2, "FFMA", false, false, true;
    sgemm_f32_ac_bc_v4: sgemm_ffma, 2, "FFMA", false, true, true;
    sgemm_tf32_ar_br: sgemm_tf32, 1, "tf32 tensor cores", true, false, false;
    sgemm_tf32_ar_bc: sgemm_tf32, 1, "tf32 tensor cores", true, true, false;
    sgemm_tf32_ac_br: sgemm_tf32, 1, "tf32 tensor cores", false, false, false;
    sgemm_tf32_ac_bc: sgemm_tf32, 1, "tf32 tensor cores", false, true, false;
    sgemm_tf32_ar_br_v4: sgemm_tf32, 1, "tf32 tensor cores", true, false, true;
    sgemm_tf32_ar_bc_v4: sgemm_tf32, 1, "tf32 tensor cores", true, true, true;
    sgemm_tf32_ac_br_v4: sgemm_tf32, 1, "tf32 tensor cores", false, false, true;
    sgemm_tf32_ac_bc_v4: sgemm_tf32, 1, "tf32 tensor cores", false, true, true;
}

/// The f32 GEMMs, indexed by `4 * v4 + 2 * (A column-major) + (B column-major)`: FFMA and tf32.
#[cfg(all(not(target_arch = "nvptx64"), feature = "entries"))]
pub mod by_math {
    use super::*;
    use cute_rs_tensor::KernelFn;

    /// The parameters of the f32 GEMMs.
    pub type Params = (SgemmParams,);

    /// FFMA on the CUDA cores.
    pub const FFMA: [KernelFn<Params>; 8] = [
        sgemm_f32_ar_br, sgemm_f32_ar_bc, sgemm_f32_ac_br, sgemm_f32_ac_bc,
        sgemm_f32_ar_br_v4, sgemm_f32_ar_bc_v4, sgemm_f32_ac_br_v4, sgemm_f32_ac_bc_v4,
    ];
    /// tf32 `mma.sync` on the tensor cores.
    pub const TF32: [KernelFn<Params>; 8] = [
        sgemm_tf32_ar_br, sgemm_tf32_ar_bc, sgemm_tf32_ac_br, sgemm_tf32_ac_bc,
        sgemm_tf32_ar_br_v4, sgemm_tf32_ar_bc_v4, sgemm_tf32_ac_br_v4, sgemm_tf32_ac_bc_v4,
    ];
}
