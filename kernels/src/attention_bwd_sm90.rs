//! Fused attention backward on Hopper (sm_90a, in the module `gemm_sm90a` only), FlashAttention-3's
//! design written with the library's atoms: a block owns [`ATTENTION_BWD_SM90_BN`] keys of one
//! key/value head and walks the query blocks ([`attention_bwd_sm90_block_m`] rows) of every query head
//! of its group (under a causal mask, from the first that sees its keys). dK and dV accumulate in
//! registers over the whole walk (grouped-query heads summed without atomics, in a fixed order),
//! and each step adds its `dQ` to an f32 accumulator with a TMA reduction.
//!
//! The block is warp-specialized: warpgroup 0 produces (one thread loads K's and V's tiles once,
//! then each step's Q, dO and row statistics through a ring of [`ATTENTION_BWD_SM90_STAGES`]
//! stages, all with TMA into 128-byte swizzled tiles); warpgroups 1 and 2 consume, each 64 of the
//! block's keys. A consumer's step, in the transposed orientation FlashAttention-3 uses so that
//! the probabilities come out as an A operand:
//! 1. `S^T = K Q^T` and `dP^T = V dO^T`, `wgmma` from shared memory (SS), K and V's rows the
//!    warpgroup's 64 keys (A, K-major), Q and dO the B operands (K-major);
//! 2. `P^T = exp2(scale_log2 S^T - lse2)` with the mask (keys past `seqlen_k`, and a causal
//!    mask's), `dS^T = P^T ∘ (dP^T - D)`, `lse2` and `D` per query (a column), read from the
//!    stage's statistics;
//! 3. `dV += P^T dO` and `dK += dS^T Q`, `wgmma` with A in registers (RS): the accumulators of
//!    `S^T` and `dP^T` become A operands through [`accumulators_as_a`], and Q's and dO's tiles
//!    are read MN-major as B (the same bytes as their K-major tiles);
//! 4. `dS^T` in 16 bits into shared memory by `stmatrix` (each warpgroup its 64 keys), where its
//!    bytes are the MN-major A tile of `dS` (queries x keys); both consumers meet at a barrier;
//! 5. `dQ = dS K` (SS, A and B MN-major): each consumer computes half of dQ over all the block's
//!    keys (64 of the 128 query rows, or half of the columns of 64), scales it by the softmax
//!    scale, stages it in f32 and adds it to the accumulator with one TMA reduction per 32
//!    columns (`cp.reduce.async.bulk.tensor`).
//!
//! At the end dK (times the scale) and dV go to global memory through `stmatrix` and TMA stores
//! (which clip the keys past `seqlen_k`).
//!
//! Deterministic mode ([`AttentionBwdSm90Params::deterministic`], FlashAttention-3's): the blocks
//! add to each query block's dQ in a fixed order of their keys, ascending without the mask and
//! descending under the causal one (`Block::turn`: the order in which the blocks reach the query
//! block, so that they seldom wait). A counter per query block counts the consumers that have
//! added; a block's consumer waits until both consumers of every key block before it have (an
//! acquire load), adds, waits for its additions to complete, and counts itself in (a release).
//! The blocks of one head start in the turns' order (the grid's first mode), so a block only
//! waits for blocks started before it. f32 additions in a fixed order make dQ bitwise
//! reproducible; dK and dV are in any case.
//!
//! Q, K, V, dO, dK and dV come as the forward's 4-D tensor maps (`(head_dim, seqlen, heads,
//! batch)`, boxes of 64 columns x rows, the 128-byte swizzle, zero fill: Q's and dO's boxes of
//! [`attention_bwd_sm90_block_m`] rows, K's and V's of [`ATTENTION_BWD_SM90_BN`], dK's and dV's of
//! 64).
//! The row statistics are one f32 array of `2 batch heads` rows of `m_rounded` (`seqlen_q`
//! rounded up to [`ATTENTION_BWD_SM90_STATS_ROWS`]): row `2 (b heads + h)` the log-sum-exp in base 2 (`+inf`
//! where a query sees no key, and past `seqlen_q`), the next `D = rowsum(dO ∘ O)` (0 past
//! `seqlen_q`), mapped in boxes of `BM x 2`. The dQ accumulator is f32 `(batch, seqlen_q, heads,
//! head_dim)`, zeroed before the launch, mapped `(head_dim, seqlen_q, heads, batch)` in boxes of
//! 32 x 64 with the 128-byte swizzle.
//!
//! Grid: `(ceil(seqlen_k / BN), heads_kv, batch)`, [`ATTENTION_BWD_SM90_THREADS`] threads,
//! [`attention_bwd_sm90_smem_bytes`] of dynamic shared memory. Head dimensions 64 and 128.
//!
//! [`accumulators_as_a`]: cute_rs_tensor::atom::wgmma::accumulators_as_a

// On the host only the kernels' typed constants exist (`#[kernel(gpu_only)]`).
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]
// The compile-time checks of the tiles visit each of their elements.
#![allow(long_running_const_eval)]

use cute_rs_tensor::atom::copy::{copy, VectorCopy, SM90_U32x4_STSM_N};
use cute_rs_tensor::atom::fragment_copy::make_tiled_copy_c;
use cute_rs_tensor::atom::wgmma::{
    accumulators_as_a, make_gmma_desc, make_gmma_layout, GmmaDesc, KMajor, Major, MnMajor, WgmmaAtom, WgmmaRsAtom, SM90_64x128x16_F32BF16BF16_RS,
    SM90_64x128x16_F32F16F16_RS, SM90_64x128x16_F32BF16BF16_SS, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32BF16BF16_RS, SM90_64x64x16_F32BF16BF16_SS,
    SM90_64x64x16_F32F16F16_RS, SM90_64x64x16_F32F16F16_SS,
};
#[cfg(target_arch = "nvptx64")]
use cute_rs_tensor::atom::wgmma::{gemm, gemm_rs};
use cute_rs_tensor::device::atomics::{fetch_add, load, store, AcqRel, Acquire, Gpu, Relaxed};
use cute_rs_tensor::device::hint::recompute;
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, block_idx_z, thread_idx_x};
use cute_rs_tensor::device::math::{exp2_approx, fma};
#[cfg(not(target_arch = "nvptx64"))]
use cute_rs_tensor::device::mma::wgmma_accumulator_layout;
use cute_rs_tensor::device::mma::{
    warpgroup_reg_alloc, warpgroup_reg_dealloc, wgmma_commit_group, wgmma_fence, wgmma_fence_a_operands, wgmma_fence_operands, wgmma_wait_group,
    WgmmaSwizzle,
};
use cute_rs_tensor::device::numeric::{bf16_to_f32, widen_f16};
use cute_rs_tensor::device::shared::generic_to_shared;
use cute_rs_tensor::device::sync::{sync_threads, NamedBarrier};
use cute_rs_tensor::device::tma::{
    bulk_commit_group, bulk_wait_group, bulk_wait_group_read, fence_proxy_async, fence_proxy_async_shared_cta, tma_load_2d, tma_load_4d, tma_reduce_add_4d, tma_store_4d,
    TmaDescriptor, TmaDescriptorParam,
};
use cute_rs_tensor::device::unroll::{for_each_unrolled_mut, unroll_for, Count};
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::identity::IdentityTensor;
#[cfg(not(target_arch = "nvptx64"))]
use cute_rs_tensor::partition::StaticSwizzle;
use cute_rs_tensor::partition::Sw;
use cute_rs_tensor::pipeline::{PipelineState, PipelineTmaAsync};
use cute_rs_tensor::swizzled::Swizzled;
use cute_rs_tensor::static_layout::Static;
use cute_rs_tensor::{dynamic_shared, kernel, shared_array, static_layout, Fragment, LayoutTensor, Shared as SharedSpace, StaticLayout};

use crate::attention_sm90::{k_major_tile, mn_major_tile, tile_boxes, tile_bytes, OStaging, O_BOX_BYTES};
#[cfg(not(target_arch = "nvptx64"))]
use crate::attention_sm90::{transposes_agree, OStagingBox};
#[cfg(target_arch = "nvptx64")]
use crate::gemm_sm90::stage_and_store;
#[cfg(not(target_arch = "nvptx64"))]
use crate::gemm_sm90::epilogue_layouts_agree;
use crate::gemm_sm90::{AccBox, AccBoxF32, BoxTile, BoxTileF32, BoxValues, BoxValuesF32};
#[cfg(not(target_arch = "nvptx64"))]
use crate::SM90_DYNAMIC_SMEM_BYTES;

/// Query rows per step for head dimension `d` (the B operands' rows of `S^T` and `dP^T`, and
/// dQ's rows): 128 at head dimension 64 (FlashAttention-3's tile there: twice the work per step
/// for the same synchronization), 64 at 128, where 128 rows of `S^T` and `dP^T` beside dK's and
/// dV's accumulators would not fit a thread's registers.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_bwd_sm90::attention_bwd_sm90_block_m;
/// assert_eq!((attention_bwd_sm90_block_m(64), attention_bwd_sm90_block_m(128)), (128, 64));
/// ```
pub const fn attention_bwd_sm90_block_m(d: u32) -> u32 {
    if d == 64 {
        128
    } else {
        64
    }
}
/// What the rows of each head's statistics are rounded up to: a multiple of every kernel's query
/// block ([`attention_bwd_sm90_block_m`]).
pub const ATTENTION_BWD_SM90_STATS_ROWS: u32 = 128;
/// Keys per block: 64 per consumer warpgroup.
pub const ATTENTION_BWD_SM90_BN: u32 = 128;
/// Threads per block: a producer warpgroup and two consumers.
pub const ATTENTION_BWD_SM90_THREADS: u32 = 384;
/// Stages of the ring of Q, dO and the row statistics.
pub const ATTENTION_BWD_SM90_STAGES: u32 = 2;
/// The head dimensions of the kernels.
///
/// # Example
/// ```
/// assert!(cute_rs_kernels::attention_bwd_sm90::ATTENTION_BWD_SM90_HEAD_DIMS.contains(&128));
/// ```
pub const ATTENTION_BWD_SM90_HEAD_DIMS: [u32; 2] = [64, 128];

const BN: u32 = ATTENTION_BWD_SM90_BN;
const STAGES: u32 = ATTENTION_BWD_SM90_STAGES;

/// The bytes of one stage's row statistics of `bm` query rows: `bm` values of the log-sum-exp,
/// then `bm` of `D`.
const fn stats_bytes(bm: u32) -> u32 {
    2 * bm * 4
}

/// The bytes of one `dS` buffer: `BN` keys x `bm` queries of 16 bits ([`OStagingBox`]es of 64 x
/// 64).
const fn ds_bytes(bm: u32) -> u32 {
    BN * bm * 2
}

/// The bytes of one 64-query column of boxes of a `dS` buffer: `BN` keys of 64 queries.
const DS_COLUMN_BYTES: u32 = BN * 64 * 2;

/// Where the parts of the dynamic shared memory start for head dimension `d` and `bm` query rows
/// per step: K's tile, V's,
/// Q's stages, dO's stages, the two `dS` buffers, each consumer's f32 staging of dQ, then the
/// statistics' stages. Every part but the last is a multiple of 1024 bytes, as the swizzle needs.
#[derive(Clone, Copy)]
struct SmemMap {
    v: u32,
    q: u32,
    d_o: u32,
    ds: u32,
    dq: u32,
    stats: u32,
    end: u32,
}

const fn smem_map(d: u32, bm: u32) -> SmemMap {
    let kv = tile_bytes(BN, d);
    let q = tile_bytes(bm, d);
    let v = kv;
    let q_at = v + kv;
    let d_o = q_at + STAGES * q;
    let ds = d_o + STAGES * q;
    let dq = ds + 2 * ds_bytes(bm);
    // The consumers stage half of dQ's bm x d f32 values each.
    let stats = dq + bm * d * 4;
    SmemMap { v, q: q_at, d_o, ds, dq, stats, end: stats + STAGES * stats_bytes(bm) }
}

/// The dynamic shared memory of a launch for head dimension `d` (see [`smem_map`]).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_bwd_sm90::attention_bwd_sm90_smem_bytes;
/// assert_eq!(attention_bwd_sm90_smem_bytes(128), 2 * 32768 + 4 * 16384 + 2 * 16384 + 2 * 16384 + 2 * 512);
/// assert_eq!(attention_bwd_sm90_smem_bytes(64), 2 * 16384 + 4 * 16384 + 2 * 32768 + 2 * 16384 + 2 * 1024);
/// ```
pub const fn attention_bwd_sm90_smem_bytes(d: u32) -> u32 {
    smem_map(d, attention_bwd_sm90_block_m(d)).end
}

static_layout!(
    /// One stage's row statistics at 64 query rows, `(query, which)`: the log-sum-exp in base 2
    /// (`which == 0`), then `D`, 64 f32 each.
    Stats64 = "(64,2):(1,64)"
);
static_layout!(
    /// One stage's row statistics at 128 query rows.
    Stats128 = "(128,2):(1,128)"
);
static_layout!(
    /// A consumer's f32 staging of 32 of dQ's columns, `(row, column)`: 64 rows of 128 bytes,
    /// row-major, viewed through the 128-byte swizzle of 4-byte elements ([`DqStaging`]) as a
    /// TMA reduction with that swizzle reads its 32 x 64 box.
    DqBox = "(64,32):(32,1)"
);
/// [`DqBox`] through the 128-byte swizzle of 4-byte elements.
type DqStaging = Swizzled<Sw<3, 2, 3>, DqBox>;
/// The bytes of one [`DqBox`].
const DQ_BOX_BYTES: u32 = 64 * 32 * 4;

/// The canonical MN-major A tile of `dQ = dS K`: `bm` queries (contiguous) x `BN` keys.
const fn ds_tile(bm: u32) -> cute_rs_layout::SwizzledLayout {
    cute_rs_layout::unwrap!(make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, bm as i64, BN as i64))
}

/// Whether the consumers split dQ's rows (each 64 of the `bm` queries, all `d` columns: `bm ==
/// 128`) rather than its columns (all 64 queries, `d / 2` columns each).
const fn dq_splits_rows(bm: u32) -> bool {
    bm == 128
}

/// The descriptors of a kernel of head dimension `d`, each reading 32 bytes of K per
/// instruction.
#[derive(Clone, Copy)]
struct Descriptors {
    /// K or V as A of `S^T` or `dP^T`: K-major, the warpgroup's m64 block of the `BN` keys.
    kv_a: GmmaDesc,
    /// Q or dO as B of `S^T` or `dP^T`: K-major, all the step's queries.
    q_b: GmmaDesc,
    /// dO or Q as B of `dV` or `dK` (N = d, K = queries): MN-major.
    q_mn: GmmaDesc,
    /// `dS` as A of `dQ` (M = queries, K = keys): MN-major, in m64 blocks.
    ds_a: GmmaDesc,
    /// K as B of `dQ` (N = d, K = keys): MN-major, all the columns or the warpgroup's half
    /// ([`dq_splits_rows`]).
    k_mn: GmmaDesc,
}

const fn descriptors(d: u32, bm: u32) -> Descriptors {
    let dq_n = if dq_splits_rows(bm) { d } else { d / 2 } as i64;
    let (d, bm, bn) = (d as i64, bm as i64, BN as i64);
    Descriptors {
        kv_a: cute_rs_layout::unwrap!(make_gmma_desc(k_major_tile(bn, d), 2, Major::K, 64, 16)),
        q_b: cute_rs_layout::unwrap!(make_gmma_desc(k_major_tile(bm, d), 2, Major::K, bm, 16)),
        q_mn: cute_rs_layout::unwrap!(make_gmma_desc(mn_major_tile(d, bm), 2, Major::MN, d, 16)),
        ds_a: cute_rs_layout::unwrap!(make_gmma_desc(ds_tile(bm as u32), 2, Major::MN, 64, 16)),
        k_mn: cute_rs_layout::unwrap!(make_gmma_desc(mn_major_tile(d, bn), 2, Major::MN, dq_n, 16)),
    }
}

/// Whether the `dS^T` boxes that `stmatrix` writes for `bm` queries (a row-major
/// [`OStagingBox`] of `(key, query)` for each 64 keys of a warpgroup `w` and each 64 queries
/// `q`, at `q` times [`DS_COLUMN_BYTES`] plus `w` times [`O_BOX_BYTES`]) are the bytes of `dS`'s
/// MN-major A tile ([`ds_tile`]) element by element.
#[cfg(not(target_arch = "nvptx64"))] // only the contracts (`crate::contract!`) use it
const fn ds_boxes_are_the_a_tile(bm: u32) -> bool {
    let (boxes, tile) = (<Sw<3, 3, 3>>::SWIZZLE, ds_tile(bm));
    let (box_elems, column_elems, bm) = (O_BOX_BYTES as i64 / 2, DS_COLUMN_BYTES as i64 / 2, bm as i64);
    let mut i = 0;
    while i < bm * BN as i64 {
        let (query, key) = (i % bm, i / bm);
        let staged = (query / 64) * column_elems + (key / 64) * box_elems + boxes.apply(OStagingBox::LAYOUT.call(key % 64 + 64 * (query % 64)));
        if staged != tile.call(query + bm * key) {
            return false;
        }
        i += 1;
    }
    true
}

static_layout!(
    /// A tile of 128 rows of 64 columns, `(row, column)`: Q's, dO's, K's and V's at head
    /// dimension 64.
    Tile128x64 = "(128,64)"
);
static_layout!(
    /// Q's and dO's tile at head dimension 128.
    Tile64x128 = "(64,128)"
);
static_layout!(
    /// K's and V's tile at head dimension 128.
    Tile128x128 = "(128,128)"
);

/// A kernel's element type and head dimension: its atoms and tiles.
trait Config {
    /// Head dimension.
    const D: u32;
    /// Query rows per step ([`attention_bwd_sm90_block_m`]).
    const BM: u32 = attention_bwd_sm90_block_m(Self::D);
    /// Whether `dV += P^T dO` is issued as soon as P is, to run while `dS^T = P^T ∘ (dP^T - D)`
    /// is computed from P's f32 values (64 query rows), or with `dK += dS^T Q` after it, `dS^T`
    /// computed from P's 16-bit copy (128 rows: P's f32 values, its 16-bit copy and `dP^T`
    /// together do not fit the registers beside dK and dV; dS is rounded to 16 bits for its
    /// products either way).
    const DV_EARLY: bool = Self::BM == 64;
    /// Whether the elements are f16 (else bf16).
    const F16: bool;
    /// Q, K, V, dO and the gradients' elements.
    type E;
    /// `S^T = K Q^T` and `dP^T = V dO^T`: m64n`BM` (the step's queries), both K-major.
    type S: WgmmaAtom;
    /// `dV += P^T dO` and `dK += dS^T Q`: m64n`D`, A in registers, B MN-major.
    type Dkv: WgmmaRsAtom;
    /// `dQ = dS K`: m64n`D` or m64n`D/2` ([`dq_splits_rows`]), both MN-major.
    type Dq: WgmmaAtom;
    /// One stage's statistics.
    type Stats: StaticLayout;
    /// The coordinates of Q's and dO's tiles (`BM` x `D`), `(row, column)`.
    type QTile: StaticLayout;
    /// The coordinates of K's and V's tiles (`BN` x `D`), `(key, column)`.
    type KvTile: StaticLayout;
}

macro_rules! configs {
    ($($name:ident: $e:ty, $d:literal, $f16:literal, $s:ty, $dkv:ty, $dq:ty, $stats:ty, $q:ty, $kv:ty;)*) => {$(
        #[doc = concat!("Head dimension ", $d, ", ", stringify!($e), ".")]
        struct $name;
        impl Config for $name {
            const D: u32 = $d;
            const F16: bool = $f16;
            type E = $e;
            type S = $s;
            type Dkv = $dkv;
            type Dq = $dq;
            type Stats = $stats;
            type QTile = $q;
            type KvTile = $kv;
        }
        const _: () = {
            let bm = attention_bwd_sm90_block_m($d);
            let dq_n = if dq_splits_rows(bm) { $d } else { $d / 2 };
            assert!(<$s as WgmmaAtom>::N == bm as i64 && <$dkv as WgmmaRsAtom>::N == $d && <$dq as WgmmaAtom>::N == dq_n);
            assert!(<$stats as StaticLayout>::LAYOUT.size() == 2 * bm as i64 && <$q as StaticLayout>::LAYOUT.size() == (bm * $d) as i64);
        };
        #[cfg(not(target_arch = "nvptx64"))]
        impl $name {
            /// The configuration's layouts agree with the kernels' assumptions (see
            /// `crate::contract!`): Q's, dO's and K's tiles read MN-major are their TMA boxes'
            /// bytes, the descriptors and boxes exist, the staging of dQ matches its
            /// accumulators, and shared memory holds it all.
            fn contract() {
                let bm = attention_bwd_sm90_block_m($d);
                assert!(transposes_agree($d, bm as i64) && transposes_agree($d, BN as i64), "the MN-major B tiles must be the bytes the K-major boxes write");
                let _ = (descriptors($d, bm), tile_boxes(bm, $d), tile_boxes(BN, $d));
                assert!(ds_boxes_are_the_a_tile(bm), "the dS^T boxes must be dS's MN-major A tile");
                let dq_n = <$dq as WgmmaAtom>::N;
                let acc = cute_rs_layout::unwrap!(wgmma_accumulator_layout(dq_n));
                assert!(epilogue_layouts_agree(4, <Sw<3, 2, 3>>::SWIZZLE, DqBox::LAYOUT, AccBoxF32::LAYOUT, acc, dq_n), "dQ's staging and box accumulators");
                assert!(attention_bwd_sm90_smem_bytes($d) <= SM90_DYNAMIC_SMEM_BYTES, "the tiles must fit shared memory");
            }
        }
    )*
        /// The configurations' contracts, for [`crate::contracts`].
        #[cfg(not(target_arch = "nvptx64"))]
        pub(crate) const CONFIG_CONTRACTS: &[(&str, fn())] = &[$((concat!("attention_bwd_sm90: configuration ", stringify!($name)), $name::contract)),*];
    };
}

configs! {
    Bf16D64: bf16, 64, false, SM90_64x128x16_F32BF16BF16_SS, SM90_64x64x16_F32BF16BF16_RS<KMajor, MnMajor>, SM90_64x64x16_F32BF16BF16_SS<MnMajor, MnMajor>, Stats128, Tile128x64, Tile128x64;
    Bf16D128: bf16, 128, false, SM90_64x64x16_F32BF16BF16_SS, SM90_64x128x16_F32BF16BF16_RS<KMajor, MnMajor>, SM90_64x64x16_F32BF16BF16_SS<MnMajor, MnMajor>, Stats64, Tile64x128, Tile128x128;
    F16D64: f16, 64, true, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32F16F16_RS<KMajor, MnMajor>, SM90_64x64x16_F32F16F16_SS<MnMajor, MnMajor>, Stats128, Tile128x64, Tile128x64;
    F16D128: f16, 128, true, SM90_64x64x16_F32F16F16_SS, SM90_64x128x16_F32F16F16_RS<KMajor, MnMajor>, SM90_64x64x16_F32F16F16_SS<MnMajor, MnMajor>, Stats64, Tile64x128, Tile128x128;
}

/// The parameters of a Hopper backward entry after its tensor maps.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_bwd_sm90::AttentionBwdSm90Params;
/// let p = AttentionBwdSm90Params {
///     batch: 2, heads: 8, heads_kv: 2, seqlen_q: 1024, seqlen_k: 1024,
///     scale: 0.125, scale_log2: 0.125 * core::f32::consts::LOG2_E, causal: 1,
///     deterministic: 0, semaphores: core::ptr::null_mut(),
/// };
/// assert_eq!(p.heads % p.heads_kv, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AttentionBwdSm90Params {
    /// Batches.
    pub batch: u32,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads (they divide `heads`).
    pub heads_kv: u32,
    /// Query rows.
    pub seqlen_q: u32,
    /// Keys.
    pub seqlen_k: u32,
    /// The softmax scale of the forward.
    pub scale: f32,
    /// The scale times `log2(e)`.
    pub scale_log2: f32,
    /// 1: the forward's causal mask (aligned to the bottom right); 0: none.
    pub causal: u32,
    /// 1: the blocks add their dQ to each query block in the order of their keys (bitwise
    /// reproducible), through `semaphores`; 0: in any order.
    pub deterministic: u32,
    /// With `deterministic`: one counter per query block of each head of each batch, `(batch,
    /// heads, ceil(seqlen_q / BM))`, zero before the launch, and zero again after it (the last
    /// block to add to a query block resets its counter).
    pub semaphores: *mut u32,
}

// SAFETY: `#[repr(C)]`: scalars and a raw pointer.
unsafe impl cute_rs_tensor::kernel::KernelValue for AttentionBwdSm90Params {}

/// The tensor maps of a launch (see the module documentation).
#[derive(Clone, Copy)]
struct Maps {
    q: *const TmaDescriptor,
    k: *const TmaDescriptor,
    v: *const TmaDescriptor,
    d_o: *const TmaDescriptor,
    stats: *const TmaDescriptor,
    dq: *const TmaDescriptor,
    dk: *const TmaDescriptor,
    dv: *const TmaDescriptor,
}

/// One block's work: its keys, its key/value head and batch, and the steps of its walk.
#[derive(Clone, Copy)]
struct Block {
    p: AttentionBwdSm90Params,
    /// The key block.
    n: u32,
    head_kv: u32,
    batch: u32,
    /// The first query block that sees one of the block's keys.
    m_first: u32,
    /// Query blocks per head.
    m_blocks: u32,
    /// Query heads per key/value head.
    group: u32,
}

impl Block {
    #[inline(always)]
    fn new(p: AttentionBwdSm90Params, bm: u32, n: u32, head_kv: u32, batch: u32) -> Block {
        let m_blocks = p.seqlen_q.div_ceil(bm);
        // Under the causal mask query `i` sees key `j` when `j <= i + seqlen_k - seqlen_q`: the
        // block's first key is seen from query `n BN - seqlen_k + seqlen_q` on.
        let first_query = (n as i64 * BN as i64 - p.seqlen_k as i64 + p.seqlen_q as i64).max(0);
        let m_first = if p.causal != 0 { (first_query / bm as i64).min(m_blocks as i64) as u32 } else { 0 };
        // The host checks that `heads_kv` divides `heads`.
        let group = (p.heads / p.heads_kv.max(1)).max(1);
        Block { p, n, head_kv, batch, m_first, m_blocks, group }
    }

    /// The last key block that adds to query block `m` (`bm` rows each): every key block from 0
    /// to it does ([`Block::steps`] starts at the first query block that sees a block's first
    /// key).
    #[inline(always)]
    fn last_key_block(&self, m: u32, bm: u32) -> u32 {
        let n_blocks = self.p.seqlen_k.div_ceil(BN);
        if self.p.causal == 0 {
            return n_blocks - 1;
        }
        // Key block `n` sees query block `m` when its first key `n BN` is at most the block's
        // last query's diagonal, `(m + 1) bm - 1 + seqlen_k - seqlen_q`.
        let diagonal = (m as i64 + 1) * bm as i64 - 1 + self.p.seqlen_k as i64 - self.p.seqlen_q as i64;
        ((diagonal.max(0) / BN as i64) as u32).min(n_blocks - 1)
    }

    /// The key block of the grid's block `x` along its first mode: `x`, or under the causal
    /// mask when deterministic the last first (see [`Block::turn`]).
    #[inline(always)]
    fn key_block(p: &AttentionBwdSm90Params, x: u32) -> u32 {
        if p.causal != 0 && p.deterministic != 0 {
            p.seqlen_k.div_ceil(BN) - 1 - x
        } else {
            x
        }
    }

    /// When deterministic, this block's turn at query block `m` among the key blocks that add to
    /// it (0 first; each key block's two consumers count twice). Without the mask every block
    /// starts at query block 0 and the turns follow the keys. Under the causal mask a block
    /// starts at the first query block that sees its keys, later for later keys, so the turns
    /// run from the last key block down: a block's predecessor at `m` started on fewer query
    /// blocks before `m`, and the grid launches it first ([`Block::key_block`]).
    #[inline(always)]
    fn turn(&self, m: u32, bm: u32) -> u32 {
        if self.p.causal != 0 {
            self.last_key_block(m, bm) - self.n
        } else {
            self.n
        }
    }

    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn of_this_block(p: AttentionBwdSm90Params, bm: u32) -> Block {
        Block::new(p, bm, Block::key_block(&p, block_idx_x()), block_idx_y(), block_idx_z())
    }

    /// The steps: `(query head, query block)` for each query head of the group, each query block
    /// from the first that sees the keys.
    #[inline(always)]
    fn steps(&self) -> Steps {
        let head = self.head_kv * self.group;
        Steps { head, heads_end: head + self.group, m: self.m_first, m_first: self.m_first, m_blocks: self.m_blocks }
    }
}

/// The deterministic turns are a schedule that cannot deadlock and seldom waits, on ragged
/// lengths, with and without the causal mask, for both query block heights: at each query block
/// the key blocks that add to it take the turns `0, 1, ...` once each, each turn's predecessor was
/// launched earlier (the grid's first mode), and reaches the query block in no more steps.
#[cfg(not(target_arch = "nvptx64"))]
fn turns_are_a_schedule() {
    let lengths = [(1, 1), (64, 64), (100, 300), (300, 100), (129, 257), (1000, 1500), (1500, 1000), (1024, 1024)];
    for (seqlen_q, seqlen_k) in lengths {
        for (causal, bm) in [(0, 64), (0, 128), (1, 64), (1, 128)] {
            let p = AttentionBwdSm90Params {
                batch: 1, heads: 1, heads_kv: 1, seqlen_q, seqlen_k, scale: 1.0, scale_log2: 1.0, causal,
                deterministic: 1, semaphores: core::ptr::null_mut(),
            };
            let (m_blocks, n_blocks) = (seqlen_q.div_ceil(bm), seqlen_k.div_ceil(BN));
            for m in 0..m_blocks {
                // By turn: (launch index, steps before the query block) of each visitor.
                let mut by_turn = [None::<(u32, usize)>; 16];
                let mut visitors = 0;
                for x in 0..n_blocks {
                    let block = Block::new(p, bm, Block::key_block(&p, x), 0, 0);
                    let Some(step) = block.steps().position(|(_, q)| q == m) else { continue };
                    let turn = block.turn(m, bm) as usize;
                    assert!(turn < by_turn.len() && by_turn[turn].is_none(), "seqlen_q {seqlen_q}, seqlen_k {seqlen_k}, causal {causal}, query block {m} of {bm} rows: turn {turn} taken twice");
                    by_turn[turn] = Some((x, step));
                    visitors += 1;
                }
                // Under the causal mask a query block's rows may all come before the first key's
                // diagonal: nobody adds to it.
                let seen = causal == 0 || ((m + 1) * bm) as i64 - 1 + seqlen_k as i64 - seqlen_q as i64 >= 0;
                let last = Block::new(p, bm, 0, 0, 0).last_key_block(m, bm) as usize;
                assert!(visitors == if seen { last + 1 } else { 0 }, "seqlen_q {seqlen_q}, seqlen_k {seqlen_k}, causal {causal}, query block {m}: {visitors} visitors, last key block {last}");
                for t in 1..visitors {
                    let (Some((x0, step0)), Some((x1, step1))) = (by_turn[t - 1], by_turn[t]) else {
                        panic!("seqlen_q {seqlen_q}, seqlen_k {seqlen_k}, causal {causal}, query block {m}: the turns must be 0, 1, ... ({by_turn:?})")
                    };
                    assert!(x0 < x1 && step0 <= step1, "seqlen_q {seqlen_q}, seqlen_k {seqlen_k}, causal {causal}, query block {m}: turn {t} starts before its predecessor or reaches the query block in fewer steps ({by_turn:?})");
                }
            }
        }
    }
}

/// The kernel's contracts beyond its configurations', for [`crate::contracts`].
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) const CONTRACTS: &[(&str, fn())] = &[("attention_bwd_sm90: the deterministic turns", turns_are_a_schedule)];

/// The steps of a block's walk ([`Block::steps`]). An iterator of its own rather than nested
/// adaptors, so that the loop stays a plain loop in the kernel's one function (a `wgmma` pipeline
/// must not cross a call).
struct Steps {
    head: u32,
    heads_end: u32,
    m: u32,
    m_first: u32,
    m_blocks: u32,
}

impl Iterator for Steps {
    type Item = (u32, u32);

    #[inline(always)]
    fn next(&mut self) -> Option<(u32, u32)> {
        if self.m >= self.m_blocks {
            self.head += 1;
            self.m = self.m_first;
        }
        if self.head >= self.heads_end || self.m >= self.m_blocks {
            return None;
        }
        let item = (self.head, self.m);
        self.m += 1;
        Some(item)
    }
}

/// The block's shared memory: the tiles and the barriers of K and V's load and of the ring of
/// Q, dO and the statistics.
#[derive(Clone, Copy)]
struct Shared {
    tiles: *mut u8,
    kv: PipelineTmaAsync<1>,
    q: PipelineTmaAsync<STAGES>,
}

impl Shared {
    #[inline(always)]
    fn at(&self, offset: u32) -> *mut u8 {
        self.tiles.wrapping_add(offset as usize)
    }

    #[inline(always)]
    fn k(&self) -> *mut u8 {
        self.tiles
    }

    #[inline(always)]
    fn v<C: Config>(&self) -> *mut u8 {
        self.at(smem_map(C::D, C::BM).v)
    }

    #[inline(always)]
    fn q<C: Config>(&self, stage: u32) -> *mut u8 {
        self.at(smem_map(C::D, C::BM).q + stage * tile_bytes(C::BM, C::D))
    }

    #[inline(always)]
    fn d_o<C: Config>(&self, stage: u32) -> *mut u8 {
        self.at(smem_map(C::D, C::BM).d_o + stage * tile_bytes(C::BM, C::D))
    }

    #[inline(always)]
    fn stats_ptr<C: Config>(&self, stage: u32) -> *mut u8 {
        self.at(smem_map(C::D, C::BM).stats + stage * stats_bytes(C::BM))
    }

    /// The statistics of stage `stage` ([`Config::Stats`]).
    #[inline(always)]
    fn stats<C: Config>(&self, stage: u32) -> LayoutTensor<'static, f32, Static<C::Stats>, SharedSpace> {
        // SAFETY: inside the launch's dynamic shared memory (`smem_map`), 128-byte aligned.
        unsafe { LayoutTensor::from_ptr_in(self.stats_ptr::<C>(stage) as *mut f32, Static::<C::Stats>::new()) }
    }

    /// `dS` buffer `buffer < 2`.
    #[inline(always)]
    fn ds<C: Config>(&self, buffer: u32) -> *mut u8 {
        self.at(smem_map(C::D, C::BM).ds + buffer * ds_bytes(C::BM))
    }

    /// A 64 x 64 16-bit staging box ([`OStaging`]) of `dS` buffer `buffer`: the `dS^T` rows of
    /// consumer `slice` for the step's queries `64 column ..`; and at the end of the walk the
    /// staging of dK and dV (column 0).
    #[inline(always)]
    fn box16<C: Config>(&self, buffer: u32, slice: u32, column: u32) -> LayoutTensor<'static, u16, OStaging, SharedSpace> {
        let at = column * DS_COLUMN_BYTES + slice * O_BOX_BYTES;
        // SAFETY: inside the launch's dynamic shared memory, 1024-byte aligned (`smem_map`).
        unsafe { LayoutTensor::from_ptr_in(self.ds::<C>(buffer).wrapping_add(at as usize) as *mut u16, OStaging::new()) }
    }

    /// Consumer `slice`'s f32 staging box `c` of dQ ([`DqStaging`]): half of the step's `BM x D`
    /// values each, in boxes of 64 rows x 32 columns.
    #[inline(always)]
    fn dq_box<C: Config>(&self, slice: u32, c: u32) -> LayoutTensor<'static, f32, DqStaging, SharedSpace> {
        let at = smem_map(C::D, C::BM).dq + (slice * (C::BM * C::D / 4096) + c) * DQ_BOX_BYTES;
        // SAFETY: inside the launch's dynamic shared memory, 1024-byte aligned (`smem_map`).
        unsafe { LayoutTensor::from_ptr_in(self.at(at) as *mut f32, DqStaging::new()) }
    }
}

/// The block's body: barriers set up, then the producer and consumer warpgroups.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn backward_block<C: Config, const KD: u32, const RS: usize, const KP: usize, const RD: usize, const RQ: usize, const DB: usize, const OB: usize, const QB: usize>(maps: Maps, p: AttentionBwdSm90Params) {
    const {
        assert!(KD == C::D / 16 && RS == C::S::VALUES_C && KP as u32 == C::BM / 16 && RD == C::Dkv::VALUES_C && RQ == C::Dq::VALUES_C);
        assert!(OB as u32 == C::D / 64 && QB as u32 == C::BM / 64, "OB: dK's boxes of 64 columns; QB: the step's 64-query columns");
        assert!(DB * 16 == RQ, "DB: the boxes of 32 columns of a consumer's dQ");
    };
    let tiles = dynamic_shared!(ATTENTION_BWD_SM90_TILES: u8, align 1024).as_mut_ptr();
    let kv_bars = shared_array!(ATTENTION_BWD_SM90_KV_BARS: [u64; 2], align 8).as_mut_ptr();
    let q_bars = shared_array!(ATTENTION_BWD_SM90_Q_BARS: [u64; 2 * STAGES as usize], align 8).as_mut_ptr();
    let smem = Shared { tiles, kv: PipelineTmaAsync::new(kv_bars, kv_bars.add(1)), q: PipelineTmaAsync::new(q_bars, q_bars.add(STAGES as usize)) };
    let t = thread_idx_x();
    if t == 0 {
        smem.kv.init(2);
        smem.q.init(2);
    }
    sync_threads();
    let block = Block::of_this_block(p, C::BM);
    if t / 128 == 0 {
        warpgroup_reg_dealloc::<24>();
        if t == 0 {
            produce::<C>(maps, smem, block);
        }
    } else {
        warpgroup_reg_alloc::<240>();
        consume::<C, KD, RS, KP, RD, RQ, DB, OB, QB>(maps, smem, block, t / 128 - 1, t % 128);
    }
}

/// The producer (one thread): K's and V's tiles, then each step's Q, dO and statistics.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn produce<C: Config>(maps: Maps, smem: Shared, block: Block) {
    let (q_boxes, kv_boxes) = const { (tile_boxes(C::BM, C::D), tile_boxes(BN, C::D)) };
    let (q_bytes, kv_bytes) = (tile_bytes(C::BM, C::D), tile_bytes(BN, C::D));
    let (hk, b) = (block.head_kv as i32, block.batch as i32);
    let kv_state = PipelineState::<1>::producer_start();
    smem.kv.producer_acquire(kv_state, 2 * kv_bytes);
    let keys = IdentityTensor::<C::KvTile>::tile_at([(block.n * BN) as i64, 0]);
    kv_boxes.for_each_box(keys, smem.k(), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps.k, [x, y, hk, b], smem.kv.full(0)));
    kv_boxes.for_each_box(keys, smem.v::<C>(), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps.v, [x, y, hk, b], smem.kv.full(0)));
    let mut state = PipelineState::<STAGES>::producer_start();
    for (h, m) in block.steps() {
        let s = state.index();
        smem.q.producer_acquire(state, 2 * q_bytes + stats_bytes(C::BM));
        let rows = IdentityTensor::<C::QTile>::tile_at([(m * C::BM) as i64, 0]);
        let full = smem.q.full(s);
        q_boxes.for_each_box(rows, smem.q::<C>(s), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps.q, [x, y, h as i32, b], full));
        q_boxes.for_each_box(rows, smem.d_o::<C>(s), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps.d_o, [x, y, h as i32, b], full));
        let stats_row = 2 * (block.batch * block.p.heads + h);
        tma_load_2d(smem.stats_ptr::<C>(s), maps.stats, [(m * C::BM) as i32, stats_row as i32], full);
        state.advance();
    }
}

/// The mask of a thread's values of `S^T` in one step: the keys past `seqlen_k` and, with a
/// causal mask, the keys after a query's diagonal are `-inf`. `key0`: the warpgroup's first key;
/// `query0`: the step's first query.
#[inline(always)]
fn mask<C: Config, const R: usize>(s: &mut [f32; R], lane: u32, key0: i64, query0: i64, p: &AttentionBwdSm90Params) {
    let shift = p.seqlen_k as i64 - p.seqlen_q as i64;
    let causal = p.causal != 0;
    // Only the warpgroup's keys past the end, or a step that crosses the diagonal, hold masked
    // values.
    let past_end = key0 + 64 > p.seqlen_k as i64;
    let crosses = causal && key0 + 63 > query0 + shift;
    if !(past_end || crosses) {
        return;
    }
    let mine = C::S::LAYOUT_C.call(lane as i64);
    let (key_t, query_t) = (key0 + mine % 64, query0 + mine / 64);
    // The value at offsets `(r, c)` from the thread's first is key `key_t + r` of query
    // `query_t + c`: past the keys when `r` reaches `keys_left`, past the diagonal when `r - c`
    // exceeds `diagonal`.
    let narrow = |x: i64| x.clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32;
    let keys_left = narrow(p.seqlen_k as i64 - key_t);
    let diagonal = if causal { narrow(query_t + shift - key_t) } else { i32::MAX / 2 };
    for_each_unrolled_mut(s, |v, x| {
        let at = C::S::LAYOUT_C.call(128 * v as i64);
        let (r, c) = ((at % 64) as i32, (at / 64) as i32);
        let masked = (r >= keys_left) | (r - c > diagonal);
        *x = if masked { f32::NEG_INFINITY } else { *x };
    });
}

/// The 16-bit A operand of a product from the f32 accumulators `acc` (`P^T` or `dS^T`).
#[inline(always)]
fn as_a<C: Config, const KB: usize, const R: usize>(acc: &[f32; R]) -> [[u32; 4]; KB] {
    if C::F16 {
        accumulators_as_a::<KB, R, true>(acc)
    } else {
        accumulators_as_a::<KB, R, false>(acc)
    }
}

/// Value `v` (in accumulator order) of a 16-bit A operand packed by [`accumulators_as_a`], in
/// f32.
#[inline(always)]
fn a_value<C: Config, const KB: usize>(a: &[[u32; 4]; KB], v: usize) -> f32 {
    let bits = (a[v / 8][v % 8 / 2] >> (16 * (v % 2))) as u16;
    if C::F16 {
        widen_f16(bits)
    } else {
        bf16_to_f32(bits)
    }
}

/// The barrier of consumer warpgroup `slice` alone (the two consumers' common one is 1).
#[inline(always)]
fn slice_sync(slice: u32) {
    if slice == 0 {
        NamedBarrier::<2, 128>::new().sync();
    } else {
        NamedBarrier::<3, 128>::new().sync();
    }
}

/// The barrier of both consumer warpgroups.
#[inline(always)]
fn consumers_sync() {
    NamedBarrier::<1, 256>::new().sync();
}

/// Writes a thread's 16-bit values of a 64 x 64 accumulator tile (packed in pairs in
/// accumulator order, as [`accumulators_as_a`] packs them) into a staging box by `stmatrix`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn stage_box16(pairs: &[[u32; 4]; 4], lane: u32, dst: LayoutTensor<'static, u16, OStaging, SharedSpace>) {
    let r2s = make_tiled_copy_c::<SM90_U32x4_STSM_N, AccBox, BoxTile>();
    let thr = r2s.get_slice(lane as usize);
    let mut frag = Fragment::<u16, BoxValues, 32>::new();
    unroll_for::<Count<16>>(|i| {
        let pair = pairs[i / 4][i % 4];
        frag.data[2 * i] = pair as u16;
        frag.data[2 * i + 1] = (pair >> 16) as u16;
    });
    copy(r2s, thr.retile_s(frag.tensor()), thr.partition_d(dst));
}

/// A consumer warpgroup (`slice`: its 64 keys of the block; `lane`: the thread's index in it):
/// the walk's steps (see the module documentation), then dK and dV stored.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn consume<C: Config, const KD: u32, const RS: usize, const KP: usize, const RD: usize, const RQ: usize, const DB: usize, const OB: usize, const QB: usize>(
    maps: Maps,
    smem: Shared,
    block: Block,
    slice: u32,
    lane: u32,
) {
    let desc = const { descriptors(C::D, C::BM) };
    let split_rows = const { dq_splits_rows(C::BM) };
    let p = block.p;
    let key0 = (block.n * BN + 64 * slice) as i64;
    let mut dk = [0f32; RD];
    let mut dv = [0f32; RD];
    let kv_state = PipelineState::<1>::consumer_start();
    smem.kv.consumer_wait(kv_state);
    let mut state = PipelineState::<STAGES>::consumer_start();
    let mut step = 0u32;
    let (tiles, lane0) = (smem.tiles, lane);
    for (h, m) in block.steps() {
        // The addresses and the thread's positions are recomputed in each step rather than held
        // across the walk, where dK's and dV's accumulators need the registers.
        let smem = Shared { tiles: tiles.wrapping_add(recompute(0) as usize), ..smem };
        let lane = recompute(lane0);
        let col_t = (C::S::LAYOUT_C.call(lane as i64) / 64) as usize;
        let (k_addr, v_addr) = (generic_to_shared(smem.k()), generic_to_shared(smem.v::<C>()));
        let s_idx = state.index();
        smem.q.consumer_wait(state);
        let (q_addr, do_addr) = (generic_to_shared(smem.q::<C>(s_idx)), generic_to_shared(smem.d_o::<C>(s_idx)));
        // 1. S^T = K Q^T and dP^T = V dO^T.
        let mut s = [0f32; RS];
        let mut dp = [0f32; RS];
        wgmma_fence();
        gemm::<C::S, KD, RS>(desc.kv_a.operand(k_addr, slice), desc.q_b.operand(q_addr, 0), &mut s, false);
        wgmma_commit_group();
        gemm::<C::S, KD, RS>(desc.kv_a.operand(v_addr, slice), desc.q_b.operand(do_addr, 0), &mut dp, false);
        wgmma_commit_group();
        // 2. P^T, then (with `C::DV_EARLY`) 3. dV += P^T dO while dS^T is computed.
        let stats = smem.stats::<C>(s_idx);
        wgmma_wait_group::<1>();
        wgmma_fence_operands(&mut s);
        mask::<C, RS>(&mut s, lane, key0, (m * C::BM) as i64, &p);
        for_each_unrolled_mut(&mut s, |v, x| {
            let col = col_t + (C::S::LAYOUT_C.call(128 * v as i64) / 64) as usize;
            *x = exp2_approx(fma(*x, p.scale_log2, -stats.at([col as i64, 0])));
        });
        let mut pa = as_a::<C, KP, RS>(&s);
        if C::DV_EARLY {
            wgmma_fence();
            gemm_rs::<C::Dkv, KP, RD>(&pa, desc.q_mn.operand(do_addr, 0), &mut dv, true);
            wgmma_commit_group();
            // `dP^T` is done (the `dV` product may still run).
            wgmma_wait_group::<1>();
        } else {
            wgmma_wait_group::<0>();
        }
        wgmma_fence_operands(&mut dp);
        for_each_unrolled_mut(&mut dp, |v, x| {
            let col = col_t + (C::S::LAYOUT_C.call(128 * v as i64) / 64) as usize;
            // P in f32, or (its f32 values dead, `C::DV_EARLY == false`) its 16-bit copy.
            let prob = if C::DV_EARLY { s[v] } else { a_value::<C, KP>(&pa, v) };
            *x = prob * (*x - stats.at([col as i64, 1]));
        });
        let mut dsa = as_a::<C, KP, RS>(&dp);
        // 4. dS^T into this step's buffer (the other consumer may still read the other one),
        // before the `dK` product reads the same registers (an operand in flight is not read),
        // one box per 64 queries (16 of the k-blocks' registers each).
        let buffer = step % 2;
        unroll_for::<Count<QB>>(|column| {
            let pairs: [[u32; 4]; 4] = core::array::from_fn(|kb| dsa[4 * column + kb]);
            stage_box16(&pairs, lane, smem.box16::<C>(buffer, slice, column as u32));
        });
        fence_proxy_async_shared_cta();
        // 3'. dK += dS^T Q (and dV += P^T dO, where it was not issued before).
        wgmma_fence();
        if !C::DV_EARLY {
            gemm_rs::<C::Dkv, KP, RD>(&pa, desc.q_mn.operand(do_addr, 0), &mut dv, true);
        }
        gemm_rs::<C::Dkv, KP, RD>(&dsa, desc.q_mn.operand(q_addr, 0), &mut dk, true);
        wgmma_commit_group();
        consumers_sync();
        // 5. dQ = dS K, this consumer's half of the rows or of the columns.
        let mut dq = [0f32; RQ];
        let (ds_block, k_block) = if split_rows { (slice, 0) } else { (0, slice) };
        wgmma_fence();
        gemm::<C::Dq, 8, RQ>(desc.ds_a.operand(generic_to_shared(smem.ds::<C>(buffer)), ds_block), desc.k_mn.operand(k_addr, k_block), &mut dq, false);
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut dv);
        wgmma_fence_operands(&mut dk);
        wgmma_fence_operands(&mut dq);
        wgmma_fence_a_operands(&mut pa);
        wgmma_fence_a_operands(&mut dsa);
        if lane == 0 {
            smem.q.consumer_release(state);
            // The staging of dQ is free once the last step's reductions have read it.
            bulk_wait_group_read::<0>();
        }
        slice_sync(slice);
        let r2s = make_tiled_copy_c::<VectorCopy<8>, AccBoxF32, BoxTileF32>();
        let thr = r2s.get_slice(lane as usize);
        // The boxes of 32 columns of this consumer's 64 rows.
        unroll_for::<Count<DB>>(|c| {
            let mut frag = Fragment::<f32, BoxValuesF32, 16>::new();
            unroll_for::<Count<16>>(|v| frag.data[v] = dq[16 * c + v] * p.scale);
            copy(r2s, thr.retile_s(frag.tensor()), thr.partition_d(smem.dq_box::<C>(slice, c as u32)));
        });
        fence_proxy_async_shared_cta();
        slice_sync(slice);
        if lane == 0 {
            // Deterministic: this block's turn at the query block comes after both consumers of
            // every key block before it in the turns' order.
            let semaphore = p.semaphores.wrapping_add(((block.batch * p.heads + h) * block.m_blocks + m) as usize);
            if p.deterministic != 0 {
                while load(semaphore as *const u32, Acquire, Gpu) < 2 * block.turn(m, C::BM) {}
                // The reductions (the asynchronous proxy) come after the acquire.
                fence_proxy_async();
            }
            let (row, col0) = if split_rows { (m * C::BM + 64 * slice, 0) } else { (m * C::BM, slice * C::D / 2) };
            for c in 0..DB as u32 {
                let at = [(col0 + 32 * c) as i32, row as i32, h as i32, block.batch as i32];
                tma_reduce_add_4d(maps.dq, at, smem.dq_box::<C>(slice, c).as_ptr() as *const u8);
            }
            bulk_commit_group();
            if p.deterministic != 0 {
                // The additions are done, and ordered before the release.
                bulk_wait_group::<0>();
                fence_proxy_async();
                let arrived = fetch_add(semaphore, 1, AcqRel, Gpu);
                if arrived == 2 * block.last_key_block(m, C::BM) + 1 {
                    // The last to add: the counter is ready for the next launch.
                    store(semaphore, 0, Relaxed, Gpu);
                }
            }
        }
        state.advance();
        step += 1;
    }
    // Both consumers' last `dQ` products have read the dS buffers, which now stage dK and dV.
    consumers_sync();
    for_each_unrolled_mut(&mut dk, |_, x| *x *= p.scale);
    let rows = (block.n * BN + 64 * slice) as i32;
    let (hk, b) = (block.head_kv as i32, block.batch as i32);
    store_gradient::<C, RD, OB>(&dk, smem, (lane, slice), 0, |c, src| tma_store_4d(maps.dk, [64 * c as i32, rows, hk, b], src));
    store_gradient::<C, RD, OB>(&dv, smem, (lane, slice), OB as u32, |c, src| tma_store_4d(maps.dv, [64 * c as i32, rows, hk, b], src));
    if lane == 0 {
        // The staging must outlive the stores' and reductions' reads (and the block).
        bulk_wait_group::<0>();
    }
}

/// Stores a consumer's 64 x `D` tile of a gradient (f32 accumulators `acc`) in 16 bits through
/// two staging boxes taking turns (box `c` in buffer `(first + c) % 2`, continuing the turns of
/// the stores before it), each written by `stmatrix` and stored by `store(c, box)`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store_gradient<C: Config, const RD: usize, const OB: usize>(acc: &[f32; RD], smem: Shared, (lane, slice): (u32, u32), first: u32, store: impl Fn(usize, *const u8)) {
    let buffer = |c: usize| smem.box16::<C>((first + c as u32) % 2, slice, 0);
    stage_and_store::<OB>(
        lane == 0,
        || slice_sync(slice),
        |c| {
            let pairs = as_a::<C, 4, 32>(&core::array::from_fn(|v| acc[32 * c + v]));
            stage_box16(&pairs, lane, buffer(c));
        },
        |c| store(c, buffer(c).as_ptr() as *const u8),
    );
}

macro_rules! attention_bwd_sm90_kernels {
    ($($(#[$attr:meta])* $name:ident: $config:ty, $kd:literal, $rs:literal, $kp:literal, $rd:literal, $rq:literal, $db:literal, $ob:literal, $qb:literal;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "entries")]
        #[kernel(launch_bounds(384, 1), gpu_only)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            q_map: TmaDescriptorParam,
            k_map: TmaDescriptorParam,
            v_map: TmaDescriptorParam,
            do_map: TmaDescriptorParam,
            stats_map: TmaDescriptorParam,
            dq_map: TmaDescriptorParam,
            dk_map: TmaDescriptorParam,
            dv_map: TmaDescriptorParam,
            p: AttentionBwdSm90Params,
        ) {
            let maps = Maps {
                q: q_map.as_ptr(),
                k: k_map.as_ptr(),
                v: v_map.as_ptr(),
                d_o: do_map.as_ptr(),
                stats: stats_map.as_ptr(),
                dq: dq_map.as_ptr(),
                dk: dk_map.as_ptr(),
                dv: dv_map.as_ptr(),
            };
            backward_block::<$config, $kd, $rs, $kp, $rd, $rq, $db, $ob, $qb>(maps, p);
        }
    )*};
}

attention_bwd_sm90_kernels! {
    /// Attention backward on Hopper, bf16, head dimension 64: see the module documentation.
    attention_bwd_sm90_bf16_d64: Bf16D64, 4, 64, 8, 32, 32, 2, 1, 2;
    /// [`attention_bwd_sm90_bf16_d64`] for head dimension 128.
    attention_bwd_sm90_bf16_d128: Bf16D128, 8, 32, 4, 64, 32, 2, 2, 1;
    /// [`attention_bwd_sm90_bf16_d64`] for f16.
    attention_bwd_sm90_f16_d64: F16D64, 4, 64, 8, 32, 32, 2, 1, 2;
    /// [`attention_bwd_sm90_bf16_d64`] for f16, head dimension 128.
    attention_bwd_sm90_f16_d128: F16D128, 8, 32, 4, 64, 32, 2, 2, 1;
}
