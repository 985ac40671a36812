//! Fused attention forward on Hopper (sm_90a, in the module `gemm_sm90a` only), FlashAttention-3's
//! design written with the library's atoms: TMA loads of the Q, K and V tiles into 128-byte
//! swizzled shared tiles, `wgmma` from shared memory for `S = Q K^T` (SS), the online softmax in
//! base 2 on `S`'s accumulators (at head dimension 256 and in the wide kernels, O rescaled only
//! when a row's maximum rises by more than a factor of 2^8 in P: FlashAttention-4's conditional
//! rescaling), and `wgmma` with A in registers for `O += P V` (RS), `P` taken from `S`'s
//! accumulators by the thread-value re-layout [`accumulators_as_a`] (no data moves
//! between threads). The block is warp-specialized: warpgroup 0 produces (one thread issues the
//! TMA copies through two rings of stages, K's and V's, so that V's copy overlaps `Q K^T`),
//! the other warpgroups consume, each 64 of the block's query rows (two warpgroups and
//! [`ATTENTION_SM90_BM`] rows; the wide kernels, three and [`ATTENTION_SM90_WIDE_BM`]), with their
//! registers raised by `setmaxnreg`.
//!
//! Q, K, V and O are `(batch, seqlen, heads, head_dim)` arrays, `head_dim` contiguous. The three
//! inputs come as 4-D tensor maps by value (`(head_dim, seqlen, heads, batch)`, boxes of 64 x
//! `rows` x 1 x 1, `rows` being a tile's, the 128-byte swizzle, zero fill): one box is a
//! 1024-byte-aligned run of `rows` rows of 128 bytes, the canonical K-major SW128 tile of Q and K
//! (`make_gmma_layout(K, B128, 2, rows, d)`), and read as the canonical MN-major tile of V
//! (`make_gmma_layout(MN, B128, 2, d, rows)`): the two layouts agree element by element (checked
//! at compile time), so K's and V's tiles are loaded alike. Rows past a sequence's end are
//! zero-filled, and masked.
//!
//! Grouped-query attention: K and V have `heads_kv` heads, which divide `heads`; query head `h`
//! reads key/value head `h / (heads / heads_kv)`. Causal masks align to the bottom right (query
//! `i` sees keys `j <= i + seqlen_k - seqlen_q`); a query that sees no key gets O = 0 and a
//! log-sum-exp of `-inf`. The log-sum-exp (natural log, of the scaled scores) is written
//! `(batch, heads, seqlen_q)`, contiguous.
//!
//! Head dimension 64, 128 or 256. A step reads [`attention_sm90_block_n`] keys: 128, or 64 at head
//! dimension 256, where two stages of 128-key tiles would not fit shared memory; the long kernels
//! (head dimension 256) read [`ATTENTION_SM90_LONG_BN`] (80).
//!
//! The blocks are persistent: a one-dimensional grid of blocks walks the tiles (a block's query
//! rows of one head of one batch) in [`AttentionTiles`]' order, one tile per block per round (rounds
//! alternating in direction, so that under a causal mask the blocks' shares even out).
//! The producer runs ahead across tiles: Q's tiles take turns in [`attention_sm90_q_stages`]
//! buffers (two where shared memory has room), a ring like K's and V's, and a tile's Q is loaded
//! as soon as all consumer warpgroups have released the buffer after their last `Q K^T` of the
//! tile that used it before. With two buffers, the next tile's Q lands while the current tile runs;
//! with one, its load overlaps the last `P V` and the epilogue (or follows the epilogue, where O
//! is staged in Q's buffer). A grid of one block per tile is
//! the non-persistent launch of the same kernels.
//!
//! The epilogue writes O through shared memory: each consumer warpgroup divides its rows by their
//! sums, converts them to 16 bits and writes them with `stmatrix` into its staging boxes (two
//! taking turns, or two of the warpgroup's rows of Q's buffer where shared memory has no room
//! left: [`attention_sm90_o_buffers`]), one box of
//! 64 columns at a time, and one of its threads stores each box with a TMA store (which clips the
//! rows past `seqlen_q`). The stores write whole sectors, and they drain while the warpgroup goes
//! on to its next tile.
//!
//! [`attention_sm90_threads`] threads, [`attention_sm90_smem_bytes`] of dynamic shared memory.
//!
//! [`accumulators_as_a`]: cute_rs_tensor::atom::wgmma::accumulators_as_a

// On the host only the kernels' typed constants exist (`#[kernel(gpu_only)]`).
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]
// The compile-time checks of the tiles (descriptors, boxes, the transposed V) visit each of their
// 16384 elements.
#![allow(long_running_const_eval)]

use cute_rs_tensor::atom::copy::{copy, SM90_U32x4_STSM_N};
use cute_rs_tensor::atom::fragment_copy::make_tiled_copy_c;
use cute_rs_tensor::atom::tma::{MapOrder, TmaBoxes};
use cute_rs_tensor::atom::wgmma::{
    accumulators_as_a, make_gmma_desc, make_gmma_layout, GmmaDesc, KMajor, Major, MnMajor, WgmmaAtom, WgmmaRsAtom, SM90_64x128x16_F32BF16BF16_RS,
    SM90_64x128x16_F32BF16BF16_SS, SM90_64x128x16_F32F16F16_RS, SM90_64x128x16_F32F16F16_SS, SM90_64x256x16_F32BF16BF16_RS,
    SM90_64x256x16_F32F16F16_RS, SM90_64x64x16_F32BF16BF16_RS, SM90_64x64x16_F32BF16BF16_SS, SM90_64x64x16_F32F16F16_RS,
    SM90_64x64x16_F32F16F16_SS, SM90_64x80x16_F32BF16BF16_SS, SM90_64x80x16_F32F16F16_SS,
};
#[cfg(target_arch = "nvptx64")]
use cute_rs_tensor::atom::wgmma::{gemm, gemm_rs};
use cute_rs_tensor::device::atomics::{fence, AcqRel, Cta};
use cute_rs_tensor::device::hint::recompute;
use cute_rs_tensor::device::ids::{block_idx_x, grid_dim_x, thread_idx_x};
use cute_rs_tensor::device::math::{exp2_approx, fma, log2_approx};
#[cfg(not(target_arch = "nvptx64"))]
use cute_rs_tensor::device::mma::wgmma_accumulator_layout;
use cute_rs_tensor::device::mma::{
    warpgroup_reg_alloc, warpgroup_reg_dealloc, wgmma_commit_group, wgmma_fence, wgmma_fence_a_operands, wgmma_fence_operands, wgmma_wait_group,
    WgmmaSwizzle,
};
use cute_rs_tensor::device::numeric::{f32x2_to_bf16x2, f32x2_to_f16x2};
use cute_rs_tensor::device::shared::generic_to_shared;
use cute_rs_tensor::device::sync::{sync_threads, NamedBarrier};
use cute_rs_tensor::device::tma::{bulk_wait_group, bulk_wait_group_read, tma_load_4d, tma_store_4d, TmaDescriptor, TmaDescriptorParam};
use cute_rs_tensor::device::unroll::{for_each_unrolled_mut, unroll_for, Count};
use cute_rs_tensor::device::warp::{shuffle_xor, vote_all};
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::identity::IdentityTensor;
#[cfg(not(target_arch = "nvptx64"))]
use cute_rs_tensor::partition::StaticSwizzle;
use cute_rs_tensor::partition::Sw;
use cute_rs_tensor::pipeline::{PipelineState, PipelineTmaAsync};
use cute_rs_tensor::swizzled::Swizzled;
use cute_rs_tensor::{dynamic_shared, kernel, shared_array, static_layout, Fragment, LayoutTensor, Shared as SharedSpace, StaticLayout};

#[cfg(not(target_arch = "nvptx64"))]
use crate::gemm_sm90::epilogue_layouts_agree;
use crate::gemm_sm90::{AccBox, BoxTile, BoxValues};
use crate::SM90_DYNAMIC_SMEM_BYTES;
#[cfg(target_arch = "nvptx64")]
use crate::gemm_sm90::stage_and_store;

/// Query rows per block of the kernels with two consumer warpgroups (one m64 `wgmma` slice
/// each).
pub const ATTENTION_SM90_BM: u32 = 128;
/// Query rows per block of the wide kernels ([`attention_sm90_bf16_d64_wide`]): three consumer
/// warpgroups.
pub const ATTENTION_SM90_WIDE_BM: u32 = 192;

/// Key/value rows per step for head dimension `d` (`S`'s columns) of every kernel but the long
/// ones ([`ATTENTION_SM90_LONG_BN`]): 128 (the m64n128 atom), or 64 at head dimension 256, where
/// the Q tile and two stages of 128-key K and V tiles (320 KiB) would not fit shared memory.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::attention_sm90_block_n;
/// assert_eq!((attention_sm90_block_n(128), attention_sm90_block_n(256)), (128, 64));
/// ```
pub const fn attention_sm90_block_n(d: u32) -> u32 {
    if d > 128 {
        64
    } else {
        128
    }
}
/// Key/value rows per step of the long kernels ([`attention_sm90_bf16_d256_long`]), head
/// dimension 256 without a causal mask on long sequences: 80 (FlashAttention-3's), so that the
/// per-step work outside the products (O's rescaling, the waits and hand-overs) is spread over
/// more keys. The K and V rings then take 160 KiB of shared memory: Q has one buffer, and O is
/// staged in the warpgroup's rows of it ([`attention_sm90_o_buffers`]). Head dimension 128 keeps
/// its 128-key steps: FlashAttention-3's 176 are no faster there (`docs/performance.md`).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::{attention_sm90_o_buffers, ATTENTION_SM90_LONG_BN};
/// assert_eq!(attention_sm90_o_buffers(256, 128, ATTENTION_SM90_LONG_BN), 0); // O staged in Q's buffer
/// ```
pub const ATTENTION_SM90_LONG_BN: u32 = 80;
/// Stages of each of the K and V rings.
pub const ATTENTION_SM90_STAGES: u32 = 2;

/// Threads per block of a kernel of `block_m` query rows ([`ATTENTION_SM90_BM`] or
/// [`ATTENTION_SM90_WIDE_BM`]): a producer warpgroup and one consumer warpgroup per 64 rows.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::{attention_sm90_threads, ATTENTION_SM90_BM, ATTENTION_SM90_WIDE_BM};
/// assert_eq!((attention_sm90_threads(ATTENTION_SM90_BM), attention_sm90_threads(ATTENTION_SM90_WIDE_BM)), (384, 512));
/// ```
pub const fn attention_sm90_threads(block_m: u32) -> u32 {
    128 * (1 + block_m / 64)
}

/// The dynamic shared memory of a launch for head dimension `d`, `block_m` query rows and
/// `block_n` keys per step: the Q tiles ([`attention_sm90_q_stages`] of `block_m` rows of `d`
/// 16-bit elements), then the K ring's and the V ring's stages (`block_n` rows each), then the
/// staging of O's TMA stores ([`attention_sm90_o_buffers`] boxes of 64 x 64 per consumer
/// warpgroup).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::attention_sm90_smem_bytes;
/// assert_eq!(attention_sm90_smem_bytes(64, 192, 128), 2 * 24576 + 4 * 16384 + 3 * 2 * 8192);
/// assert_eq!(attention_sm90_smem_bytes(128, 128, 128), 2 * 32768 + 4 * 32768 + 2 * 2 * 8192);
/// assert_eq!(attention_sm90_smem_bytes(256, 128, 80), 65536 + 4 * 40960); // O staged in Q's buffer
/// assert_eq!(attention_sm90_smem_bytes(256, 128, 64), 65536 + 4 * 32768 + 2 * 2 * 8192);
/// ```
pub const fn attention_sm90_smem_bytes(d: u32, block_m: u32, block_n: u32) -> u32 {
    let q_stages = attention_sm90_q_stages(d, block_m, block_n);
    smem_bytes(q_stages, attention_sm90_o_buffers(d, block_m, block_n), d, block_m, block_n)
}

/// Q's buffers for head dimension `d`, `block_m` query rows and `block_n` keys per step: two, so
/// that the producer loads a persistent block's next Q while the current tile runs, where shared
/// memory has room for them beside two staging boxes of O per warpgroup (head dimensions 64 and
/// 128 with 128 keys per step), else one.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::attention_sm90_q_stages;
/// assert_eq!((attention_sm90_q_stages(64, 192, 128), attention_sm90_q_stages(128, 128, 128)), (2, 2));
/// assert_eq!((attention_sm90_q_stages(256, 128, 80), attention_sm90_q_stages(256, 128, 64)), (1, 1));
/// ```
pub const fn attention_sm90_q_stages(d: u32, block_m: u32, block_n: u32) -> u32 {
    if smem_bytes(Q_STAGES_MAX, O_BUFFERS_MAX, d, block_m, block_n) <= SM90_DYNAMIC_SMEM_BYTES {
        Q_STAGES_MAX
    } else {
        1
    }
}

/// The staging boxes of O's stores per consumer warpgroup for head dimension `d`, `block_m`
/// query rows and `block_n` keys per step, beside [`attention_sm90_q_stages`] Q buffers: two, so
/// that a box is written while the one before it is stored, where shared memory has room for
/// them, else none: O is then staged in the warpgroup's own rows of Q's buffer (two boxes of
/// them taking turns), and the buffer takes the next tile's Q once the stores have read it.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::attention_sm90_o_buffers;
/// assert_eq!((attention_sm90_o_buffers(128, 128, 128), attention_sm90_o_buffers(256, 128, 64), attention_sm90_o_buffers(256, 128, 80)), (2, 2, 0));
/// ```
pub const fn attention_sm90_o_buffers(d: u32, block_m: u32, block_n: u32) -> u32 {
    let q_stages = attention_sm90_q_stages(d, block_m, block_n);
    if smem_bytes(q_stages, O_BUFFERS_MAX, d, block_m, block_n) <= SM90_DYNAMIC_SMEM_BYTES {
        O_BUFFERS_MAX
    } else {
        0
    }
}

/// The most Q buffers a kernel has.
const Q_STAGES_MAX: u32 = 2;
/// The staging boxes of O a consumer warpgroup has, where it has any: two take turns.
const O_BUFFERS_MAX: u32 = 2;

/// The dynamic shared memory of a launch with `q_stages` Q buffers and `o_buffers` staging boxes
/// per consumer warpgroup.
const fn smem_bytes(q_stages: u32, o_buffers: u32, d: u32, block_m: u32, block_n: u32) -> u32 {
    o_staging_offset(q_stages, d, block_m, block_n) + block_m / 64 * o_buffers * O_BOX_BYTES
}

/// Where K's ring starts in the dynamic shared memory: after Q's `q_stages` tiles.
const fn kv_offset(q_stages: u32, d: u32, block_m: u32) -> u32 {
    q_stages * tile_bytes(block_m, d)
}

/// Where the staging of O's stores starts in the dynamic shared memory: after Q's tiles and the
/// K and V rings.
const fn o_staging_offset(q_stages: u32, d: u32, block_m: u32, block_n: u32) -> u32 {
    kv_offset(q_stages, d, block_m) + 2 * ATTENTION_SM90_STAGES * tile_bytes(block_n, d)
}

static_layout!(
    /// A staging box of O's stores, `(row, column)`: 64 rows of 64 16-bit elements (128 bytes),
    /// row-major, viewed through the 128-byte swizzle ([`OStaging`]) as a TMA store with that
    /// swizzle reads its 64 x 64 box.
    pub(crate) OStagingBox = "(64,64):(64,1)"
);
/// [`OStagingBox`] through the 128-byte swizzle of 16-bit elements.
pub(crate) type OStaging = Swizzled<Sw<3, 3, 3>, OStagingBox>;

/// The bytes of one [`OStagingBox`] (a multiple of 1024, so that each box starts where the
/// swizzle's pattern does).
pub(crate) const O_BOX_BYTES: u32 = 2 * cute_rs_layout::cosize(OStagingBox::LAYOUT) as u32;

/// One tile of `rows` rows of `d` 16-bit elements.
pub(crate) const fn tile_bytes(rows: u32, d: u32) -> u32 {
    rows * d * 2
}

/// The order in which the persistent blocks visit the tiles of a launch, a tile being a block's
/// query rows ([`ATTENTION_SM90_BM`] or [`ATTENTION_SM90_WIDE_BM`], a query block) of one head of
/// one batch.
///
/// The query blocks of one head come together, as they read the same K and V: the blocks
/// working at one time share them in L2. With a causal mask a later query block reads more keys,
/// and each head's query blocks come longest first, so that a head's last tiles, which end the
/// launch, are its shortest. (All heads' longest tiles first would balance the blocks better, but
/// the blocks working at one time would then read as many heads' K and V as there are blocks,
/// more than L2 holds, which is slower: `docs/performance.md`.)
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::AttentionTiles;
/// // 300 queries (3 query blocks of 128), 2 heads, 1 batch.
/// let plain = AttentionTiles::new(128, 300, 2, 1, false);
/// assert_eq!((plain.count(), plain.tile(0), plain.tile(1), plain.tile(3)), (6, (0, 0, 0), (1, 0, 0), (0, 1, 0)));
/// let causal = AttentionTiles::new(128, 300, 2, 1, true);
/// assert_eq!((causal.tile(0), causal.tile(1), causal.tile(3)), ((2, 0, 0), (1, 0, 0), (2, 1, 0)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttentionTiles {
    /// Query blocks per head: `ceil(seqlen_q / block_m)`.
    pub m_blocks: u32,
    /// Query heads.
    pub heads: u32,
    /// Batches.
    pub batch: u32,
    /// Whether the mask is causal (each head's longest tiles first).
    pub causal: bool,
}

impl AttentionTiles {
    /// The tiles of `seqlen_q` queries in query blocks of `block_m` rows (not 0), `heads` query
    /// heads and `batch` batches.
    #[inline(always)]
    pub const fn new(block_m: u32, seqlen_q: u32, heads: u32, batch: u32, causal: bool) -> AttentionTiles {
        AttentionTiles { m_blocks: seqlen_q.div_ceil(block_m), heads, batch, causal }
    }

    /// Tiles in all (the host checks that the product fits).
    #[inline(always)]
    pub const fn count(&self) -> u32 {
        self.m_blocks * self.heads * self.batch
    }

    /// The (query block, head, batch) of tile `t < count()`.
    #[inline(always)]
    pub const fn tile(&self, t: u32) -> (u32, u32, u32) {
        // The guards keep an empty launch's division by zero (no tile is ever asked for then) out
        // of the kernels.
        let heads = if self.heads == 0 { 1 } else { self.heads };
        let m_blocks = if self.m_blocks == 0 { 1 } else { self.m_blocks };
        let (m, rest) = (t % m_blocks, t / m_blocks);
        let m_block = if self.causal { m_blocks - 1 - m } else { m };
        (m_block, rest % heads, rest / heads)
    }
}

/// The canonical K-major tile (`rows x d`, the 128-byte swizzle) that one TMA box per 64 columns
/// writes: Q's and K's.
pub(crate) const fn k_major_tile(rows: i64, d: i64) -> cute_rs_layout::SwizzledLayout {
    cute_rs_layout::unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, rows, d))
}

/// The canonical MN-major tile (`d x keys`, the 128-byte swizzle) of V: the same bytes as the
/// K-major `keys x d` tile.
pub(crate) const fn mn_major_tile(d: i64, keys: i64) -> cute_rs_layout::SwizzledLayout {
    cute_rs_layout::unwrap!(make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, d, keys))
}

/// Whether V's MN-major tile (`d x keys`) and the K-major tile of `keys x d` the boxes write are
/// one function of `(key, column)`.
#[cfg(not(target_arch = "nvptx64"))] // only the contracts (`crate::contract!`) use it
pub(crate) const fn transposes_agree(d: i64, keys: i64) -> bool {
    let (k_major, mn_major) = (k_major_tile(keys, d), mn_major_tile(d, keys));
    let mut i = 0;
    while i < d * keys {
        let (key, col) = (i % keys, i / keys);
        if k_major.call(key + keys * col) != mn_major.call(col + d * key) {
            return false;
        }
        i += 1;
    }
    true
}

/// The descriptors of Q (A, m64 slices of its `rows`), K (B of `S = Q K^T`, all the step's
/// `keys`) and V (B of `O = P V`, MN-major, all `d` columns), each read 32 bytes of K per
/// instruction.
const fn descriptors(d: i64, rows: i64, keys: i64) -> (GmmaDesc, GmmaDesc, GmmaDesc) {
    (
        cute_rs_layout::unwrap!(make_gmma_desc(k_major_tile(rows, d), 2, Major::K, 64, 16)),
        cute_rs_layout::unwrap!(make_gmma_desc(k_major_tile(keys, d), 2, Major::K, keys, 16)),
        cute_rs_layout::unwrap!(make_gmma_desc(mn_major_tile(d, keys), 2, Major::MN, d, 16)),
    )
}

/// The TMA boxes of a tile of `rows` rows: `rows` x 64 columns each, along the head dimension.
pub(crate) const fn tile_boxes(rows: u32, d: u32) -> TmaBoxes {
    let (rows, d) = (rows as i64, d as i64);
    cute_rs_layout::unwrap!(TmaBoxes::new(k_major_tile(rows, d), [rows, d], [rows, 64], 2, MapOrder::KFirst))
}

/// Whether accumulator layout `layout` (`(thread, value) -> m + 64 n`, `values` per thread) gives
/// each thread two rows 8 apart shared with the threads of its quad only (lanes `4 q .. 4 q + 3`),
/// its value `v` at the thread's position plus `v`'s: what the row reductions' shuffles assume.
#[cfg(not(target_arch = "nvptx64"))] // only the contracts (`crate::contract!`) use it
const fn quad_rows(layout: cute_rs_layout::Layout, values: i64) -> bool {
    // The quads' rows: the same within a quad, different between quads.
    let mut rows = [0i64; 32];
    let mut t = 0;
    while t < 128 {
        let row = layout.call(t) % 64;
        if t % 4 == 0 {
            rows[(t / 4) as usize] = row;
        } else if row != rows[(t / 4) as usize] {
            return false;
        }
        let mut q = 0;
        while t % 4 == 0 && q < t / 4 {
            if rows[q as usize] == row {
                return false;
            }
            q += 1;
        }
        let mut v = 0;
        while v < values {
            let at = layout.call(128 * v);
            if layout.call(t + 128 * v) != layout.call(t) + at || !(at % 64 == 0 || at % 64 == 8) {
                return false;
            }
            v += 1;
        }
        t += 1;
    }
    true
}

/// Which of its two rows value `v` of an accumulator fragment of `layout` sits in.
#[inline(always)]
const fn half_of(layout: cute_rs_layout::Layout, v: usize) -> usize {
    (layout.call(128 * v as i64) % 64 / 8) as usize
}

static_layout!(
    /// The coordinates of a Q tile of the wide kernels of head dimension 64 (192 rows), `(row,
    /// column)`.
    Queries64 = "(192,64)"
);
static_layout!(
    /// The coordinates of a tile of 128 rows of head dimension 64, `(row, column)`.
    Tile64 = "(128,64)"
);
static_layout!(
    /// The coordinates of a tile of 128 rows of head dimension 128, `(row, column)`.
    Tile128 = "(128,128)"
);
static_layout!(
    /// The coordinates of a Q tile of head dimension 256, `(row, column)`.
    Tile256 = "(128,256)"
);
static_layout!(
    /// The coordinates of a K or V tile of head dimension 256 (64 keys), `(key, column)`.
    Keys256 = "(64,256)"
);
static_layout!(
    /// The coordinates of a K or V tile of the long kernels at head dimension 256 (80 keys),
    /// `(key, column)`.
    Keys256Long = "(80,256)"
);

/// A kernel's element type and head dimension: its atoms (`S`: m64n`BN`k16 from shared memory;
/// `O`: m64n`D`k16 with A in registers, V MN-major) and its tiles' coordinates.
trait Config {
    /// Head dimension.
    const D: u32;
    /// Query rows per block.
    const BM: u32;
    /// Consumer warpgroups.
    const CONSUMERS: u32 = Self::BM / 64;
    /// Keys per step.
    const BN: u32;
    /// Q's buffers ([`attention_sm90_q_stages`]).
    const Q_STAGES: u32 = attention_sm90_q_stages(Self::D, Self::BM, Self::BN);
    /// O's staging boxes per consumer warpgroup ([`attention_sm90_o_buffers`]; 0: in Q's
    /// buffer).
    const O_BUFFERS: u32 = attention_sm90_o_buffers(Self::D, Self::BM, Self::BN);
    /// Whether `S`, `P` and `O` (`BN / 2 + BN / 4 + D / 2` registers per thread) take more than
    /// 60% of a consumer's registers (240, or 160 with three consumers): Q's descriptors are
    /// then recomputed in each key block rather than held across them (faster there, and slower
    /// in the two-consumer kernels of head dimension 64, which keep them).
    const TIGHT: bool = 10 * (Self::BN / 2 + Self::BN / 4 + Self::D / 2) > 6 * (if Self::CONSUMERS == 3 { 160 } else { 240 });
    /// Whether O is rescaled only when a row's maximum rises past [`RESCALE_THRESHOLD`]
    /// ([`OnlineSoftmax::step`]): where the rescale costs most, at head dimension 256 (128
    /// multiplications per thread and key block) and in the wide kernels (which wait for each
    /// product, so the rescale delays the next): faster there. The two-consumer kernels of head
    /// dimensions 64 and 128 rescale always: there the vote and the branch cost no less than the
    /// multiplications they save (`docs/performance.md`).
    const CONDITIONAL_RESCALE: bool = Self::D == 256 || Self::CONSUMERS == 3;
    /// Whether O is rescaled by a key block's factors in the next step, between its `Q K^T` and
    /// its `P V` (FlashAttention-3's order), rather than right after the wait for the `P V`
    /// before it. Faster at head dimension 256 (128 multiplications per thread), and not at 64
    /// and 128, which keep the rescale after the wait (`docs/performance.md`).
    const RESCALE_BEFORE_PV: bool = Self::D == 256;
    /// Where each step's wait for the `P V` before it stands in the softmax, in halves of the
    /// softmax's exponentials: 1, halfway; 2, after them all. Without a fence there, ptxas moves
    /// the wait up to the softmax's start (to interleave O's rescale and P's conversion with the
    /// exponentials), and the softmax cannot overlap the warpgroup's last `P V` instructions.
    /// Halfway, the other half of the exponentials still hides the rescale and the conversion.
    /// Halfway is faster at head dimensions 64 and 128. After them all is faster at 256 (whose 128
    /// rescale multiplications per thread come before the next `P V` anyway:
    /// [`Config::RESCALE_BEFORE_PV`]) but not at 128, nor is after three quarters, where the
    /// rescale and P's conversion no longer fit among the exponentials left
    /// (`docs/performance.md`).
    const PV_WAIT_AT: usize = if Self::D == 256 { 2 } else { 1 };
    /// Whether the elements are f16 (else bf16).
    const F16: bool;
    /// Q, K, V and O's elements.
    type E;
    /// `S = Q K^T`.
    type S: WgmmaAtom;
    /// `O += P V`.
    type O: WgmmaRsAtom;
    /// The Q tile's coordinates (`BM` x `D`).
    type QTile: StaticLayout;
    /// A K or V tile's coordinates (`BN` x `D`).
    type KvTile: StaticLayout;
}

macro_rules! configs {
    ($($name:ident: $e:ty, $d:literal, $bm:literal, $bn:expr, $f16:literal, $s:ty, $o:ty, $q:ty, $kv:ty;)*) => {$(
        #[doc = concat!("Head dimension ", $d, ", ", stringify!($e), ", ", $bm, " query rows, ", stringify!($bn), " keys per step.")]
        struct $name;
        impl Config for $name {
            const D: u32 = $d;
            const BM: u32 = $bm;
            const BN: u32 = $bn;
            const F16: bool = $f16;
            type E = $e;
            type S = $s;
            type O = $o;
            type QTile = $q;
            type KvTile = $kv;
        }
        const _: () = assert!(<$s as WgmmaAtom>::N == $bn as i64 && <$o as WgmmaRsAtom>::N == $d);
        #[cfg(not(target_arch = "nvptx64"))]
        impl $name {
            /// The configuration's layouts agree with the kernels' assumptions: V's transposed
            /// tile, the row reductions' quads, the TMA boxes, shared memory (see `crate::contract!`).
            fn contract() {
            assert!(transposes_agree($d, $bn as i64), "V's MN-major tile must be the bytes the K-major boxes write");
            assert!(
                quad_rows(<$s as WgmmaAtom>::LAYOUT_C, <$s as WgmmaAtom>::VALUES_C as i64) && quad_rows(<$o as WgmmaRsAtom>::LAYOUT_C, $d / 2),
                "each accumulator row lies in one quad of threads"
            );
            let _ = (tile_boxes($bm, $d), tile_boxes($bn, $d));
            assert!(<$q as StaticLayout>::LAYOUT.size() == $bm * $d && <$kv as StaticLayout>::LAYOUT.size() == $bn as i64 * $d);
            let (q_stages, o_buffers) = (attention_sm90_q_stages($d, $bm, $bn), attention_sm90_o_buffers($d, $bm, $bn));
            assert!(smem_bytes(q_stages, o_buffers, $d, $bm, $bn) <= SM90_DYNAMIC_SMEM_BYTES, "the tiles must fit shared memory");
            // Staged in Q's buffer: one buffer, and two of Q's 64-column boxes.
            assert!(o_buffers > 0 || (q_stages == 1 && $d >= 128), "O staged in Q's buffer needs one Q buffer of two boxes or more");
            }
        }
    )*
        /// The configurations' contracts, for [`crate::contracts`].
        #[cfg(not(target_arch = "nvptx64"))]
        pub(crate) const CONFIG_CONTRACTS: &[(&str, fn())] = &[$((concat!("attention_sm90: configuration ", stringify!($name)), $name::contract)),*];
    };
}

configs! {
    Bf16D64: bf16, 64, 128, attention_sm90_block_n(64), false, SM90_64x128x16_F32BF16BF16_SS, SM90_64x64x16_F32BF16BF16_RS<KMajor, MnMajor>, Tile64, Tile64;
    Bf16D64Wide: bf16, 64, 192, attention_sm90_block_n(64), false, SM90_64x128x16_F32BF16BF16_SS, SM90_64x64x16_F32BF16BF16_RS<KMajor, MnMajor>, Queries64, Tile64;
    Bf16D128: bf16, 128, 128, attention_sm90_block_n(128), false, SM90_64x128x16_F32BF16BF16_SS, SM90_64x128x16_F32BF16BF16_RS<KMajor, MnMajor>, Tile128, Tile128;
    Bf16D256: bf16, 256, 128, attention_sm90_block_n(256), false, SM90_64x64x16_F32BF16BF16_SS, SM90_64x256x16_F32BF16BF16_RS<KMajor, MnMajor>, Tile256, Keys256;
    F16D64: f16, 64, 128, attention_sm90_block_n(64), true, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32F16F16_RS<KMajor, MnMajor>, Tile64, Tile64;
    F16D64Wide: f16, 64, 192, attention_sm90_block_n(64), true, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32F16F16_RS<KMajor, MnMajor>, Queries64, Tile64;
    F16D128: f16, 128, 128, attention_sm90_block_n(128), true, SM90_64x128x16_F32F16F16_SS, SM90_64x128x16_F32F16F16_RS<KMajor, MnMajor>, Tile128, Tile128;
    F16D256: f16, 256, 128, attention_sm90_block_n(256), true, SM90_64x64x16_F32F16F16_SS, SM90_64x256x16_F32F16F16_RS<KMajor, MnMajor>, Tile256, Keys256;
    Bf16D256Long: bf16, 256, 128, ATTENTION_SM90_LONG_BN, false, SM90_64x80x16_F32BF16BF16_SS, SM90_64x256x16_F32BF16BF16_RS<KMajor, MnMajor>, Tile256, Keys256Long;
    F16D256Long: f16, 256, 128, ATTENTION_SM90_LONG_BN, true, SM90_64x80x16_F32F16F16_SS, SM90_64x256x16_F32F16F16_RS<KMajor, MnMajor>, Tile256, Keys256Long;
}

/// The parameters of a Hopper attention entry after its tensor maps (Q's, K's, V's and O's,
/// which travel as grid constants of their own).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::AttentionParams;
/// let mut lse = vec![0f32; 2 * 8 * 1024];
/// let p = AttentionParams {
///     lse: lse.as_mut_ptr(),
///     batch: 2, heads: 8, heads_kv: 2, seqlen_q: 1024, seqlen_k: 1024,
///     scale_log2: 0.125 * core::f32::consts::LOG2_E,
///     causal: 1,
/// };
/// assert_eq!(p.heads % p.heads_kv, 0);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AttentionParams {
    /// The log-sum-exp of each row (natural log), packed `(batch, heads, seqlen_q)`.
    pub lse: *mut f32,
    /// Batches.
    pub batch: u32,
    /// Query heads.
    pub heads: u32,
    /// Key/value heads: `heads / heads_kv` query heads share one (grouped-query attention).
    pub heads_kv: u32,
    /// Query rows.
    pub seqlen_q: u32,
    /// Keys.
    pub seqlen_k: u32,
    /// The softmax scale times `log2(e)`.
    pub scale_log2: f32,
    /// 1: the causal mask aligned to the bottom right; 0: none.
    pub causal: u32,
}

// SAFETY: `#[repr(C)]`: scalars and a raw pointer.
unsafe impl cute_rs_tensor::kernel::KernelValue for AttentionParams {}

/// A launch's problem: lengths, heads, the softmax scale times `log2(e)`, causality, and where O
/// and the log-sum-exp go.
struct Problem<E> {
    batch: u32,
    heads: u32,
    heads_kv: u32,
    seqlen_q: u32,
    seqlen_k: u32,
    scale_log2: f32,
    causal: bool,
    /// O's tensor map, `(head_dim, seqlen_q, heads, batch)` in boxes of 64 x 64 x 1 x 1, the
    /// 128-byte swizzle.
    o_map: *const TmaDescriptor,
    element: core::marker::PhantomData<*mut E>,
    lse: *mut f32,
}

// Not derived: a derive would ask `E: Copy`, and only pointers to `E` are held.
impl<E> Clone for Problem<E> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Problem<E> {}

impl<E> Problem<E> {
    /// A launch's parameters with O's tensor map.
    #[inline(always)]
    fn new(p: AttentionParams, o_map: *const TmaDescriptor) -> Problem<E> {
        let AttentionParams { lse, batch, heads, heads_kv, seqlen_q, seqlen_k, scale_log2, causal } = p;
        Problem { batch, heads, heads_kv, seqlen_q, seqlen_k, scale_log2, causal: causal != 0, o_map, element: core::marker::PhantomData, lse }
    }

    /// The key blocks of `block_n` keys query block `m_block` (of `block_m` rows) reads: keys
    /// past `seqlen_k`, and with a causal mask those after the block's last query's diagonal,
    /// are never loaded.
    #[inline(always)]
    fn key_blocks(&self, m_block: u32, block_m: u32, block_n: u32) -> u32 {
        let keys = if self.causal {
            let last = (m_block + 1) as i64 * block_m as i64 + self.seqlen_k as i64 - self.seqlen_q as i64;
            last.clamp(0, self.seqlen_k as i64) as u32
        } else {
            self.seqlen_k
        };
        keys.div_ceil(block_n)
    }

    /// The order of the launch's tiles of `block_m` query rows.
    #[inline(always)]
    fn tiles(&self, block_m: u32) -> AttentionTiles {
        AttentionTiles::new(block_m, self.seqlen_q, self.heads, self.batch, self.causal)
    }
}

/// The block's shared memory: Q's `QS` buffers, K's and V's rings, and their barriers.
#[derive(Clone, Copy)]
struct Shared<const QS: u32> {
    tiles: *mut u8,
    /// Q's buffers as a ring of one stage per tile: a buffer is full when its tile has landed,
    /// and empty once every consumer warpgroup has finished its last `Q K^T` of that tile.
    q: PipelineTmaAsync<QS>,
    k: PipelineTmaAsync<ATTENTION_SM90_STAGES>,
    v: PipelineTmaAsync<ATTENTION_SM90_STAGES>,
}

impl<const QS: u32> Shared<QS> {
    /// Q's buffer `stage`.
    #[inline(always)]
    fn q<C: Config>(&self, stage: u32) -> *mut u8 {
        self.tiles.wrapping_add((stage * tile_bytes(C::BM, C::D)) as usize)
    }

    /// K's stage `stage` (`n == 0`) or V's (`n == 1`), after Q's tiles.
    #[inline(always)]
    fn kv<C: Config>(&self, n: u32, stage: u32) -> *mut u8 {
        let at = kv_offset(QS, C::D, C::BM) + (n * ATTENTION_SM90_STAGES + stage) * tile_bytes(C::BN, C::D);
        self.tiles.wrapping_add(at as usize)
    }

    /// Consumer warpgroup `slice`'s staging box `buffer < 2` of O's stores
    /// ([`OStagingBox`]): one of its own, or with no staging of its own (`C::O_BUFFERS == 0`)
    /// its 64 rows of Q's 64-column box `buffer` (each such box is `C::BM` rows of 128 bytes).
    #[inline(always)]
    fn o_box<C: Config>(&self, slice: u32, buffer: u32) -> LayoutTensor<'static, u16, OStaging, SharedSpace> {
        let at = if C::O_BUFFERS == 0 {
            buffer * tile_bytes(C::BM, 64) + slice * O_BOX_BYTES
        } else {
            o_staging_offset(QS, C::D, C::BM, C::BN) + (slice * C::O_BUFFERS + buffer) * O_BOX_BYTES
        };
        // SAFETY: inside the launch's dynamic shared memory (`attention_sm90_smem_bytes`, which
        // has `C::O_BUFFERS` boxes for each of the `C::CONSUMERS` warpgroups, or Q's buffer of
        // `C::D / 64 >= 2` boxes), 1024-byte aligned (the tiles and boxes before it are whole
        // 1024-byte multiples).
        unsafe { LayoutTensor::from_ptr_in(self.tiles.wrapping_add(at as usize) as *mut u16, OStaging::new()) }
    }

    #[inline(always)]
    fn k<C: Config>(&self, stage: u32) -> *mut u8 {
        self.kv::<C>(0, stage)
    }

    #[inline(always)]
    fn v<C: Config>(&self, stage: u32) -> *mut u8 {
        self.kv::<C>(1, stage)
    }
}

/// The tiles one block of a grid of `blocks` takes, in rounds of `blocks` tiles of the launch's
/// order: in round `r`, block `b` takes tile `r * blocks + b` when `r` is even and
/// `r * blocks + blocks - 1 - b` when it is odd (a snake): where tile lengths fall along the
/// order (each head's, under a causal mask), a block that takes a long tile in one round takes a
/// short one in the next. Not measured against plain rounds. Each tile comes with its round,
/// which the alternation of O's staging buffers follows. An iterator rather than a
/// closure-taking loop, so that the body stays in the kernel's one function (a `wgmma` pipeline
/// must not cross a call).
struct BlockTiles {
    tiles: AttentionTiles,
    block: u32,
    blocks: u32,
    round: u32,
}

impl BlockTiles {
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn of_this_block(tiles: AttentionTiles) -> BlockTiles {
        BlockTiles { tiles, block: block_idx_x(), blocks: grid_dim_x(), round: 0 }
    }
}

impl Iterator for BlockTiles {
    type Item = (u32, (u32, u32, u32));

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let at = if self.round % 2 == 0 { self.block } else { self.blocks - 1 - self.block };
        // The host keeps the tiles' count below 2^31, so a round past the last stays in range.
        let t = self.round * self.blocks + at;
        if t >= self.tiles.count() {
            return None;
        }
        let item = (self.round, self.tiles.tile(t));
        self.round += 1;
        Some(item)
    }
}

/// The block's body: barriers set up, then the producer and consumer warpgroups.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn attention_block<C: Config, const QS: u32, const RO: usize, const KQ: u32, const RS: usize, const KP: usize, const OB: usize, const OVERLAP: bool, const PINGPONG: bool>(
    maps: [*const TmaDescriptor; 3],
    p: Problem<C::E>,
) {
    const {
        assert!(RO == C::O::VALUES_C && KQ == C::D / 16 && RS == C::S::VALUES_C && KP as u32 == C::BN / 16);
        assert!(C::S::N == C::BN as i64 && C::O::N == C::D as i64);
        assert!(OB as u32 * 64 == C::D, "OB: O's boxes of 64 columns");
        assert!(QS == C::Q_STAGES && QS <= Q_STAGES_MAX, "QS: Q's buffers, attention_sm90_q_stages");
    };
    const STAGES: usize = ATTENTION_SM90_STAGES as usize;
    let tiles = dynamic_shared!(ATTENTION_SM90_TILES: u8, align 1024).as_mut_ptr();
    // One array for every kernel of the module (the symbol is shared): room for the most buffers.
    let q_bars = shared_array!(ATTENTION_SM90_Q_BARS: [u64; 2 * Q_STAGES_MAX as usize], align 8).as_mut_ptr();
    let k_bars = shared_array!(ATTENTION_SM90_K_BARS: [u64; 2 * STAGES], align 8).as_mut_ptr();
    let v_bars = shared_array!(ATTENTION_SM90_V_BARS: [u64; 2 * STAGES], align 8).as_mut_ptr();
    let smem = Shared {
        tiles,
        q: PipelineTmaAsync::new(q_bars, q_bars.add(QS as usize)),
        k: PipelineTmaAsync::new(k_bars, k_bars.add(STAGES)),
        v: PipelineTmaAsync::new(v_bars, v_bars.add(STAGES)),
    };
    let t = thread_idx_x();
    if t == 0 {
        // Each consumer warpgroup releases each stage, and Q, once.
        smem.k.init(C::CONSUMERS);
        smem.v.init(C::CONSUMERS);
        smem.q.init(C::CONSUMERS);
    }
    sync_threads();
    // The register file (64 Ki registers) redistributed: (24 + 2 x 240) x 128 = 168 x 384 with
    // two consumers; (32 + 3 x 160) x 128 = 128 x 512 with three. ptxas allocates the code after
    // the raise within the raised count (the two-consumer d128 kernels hold 160 registers of S,
    // P and O under a launch count of 168 without spilling).
    let three = C::CONSUMERS == 3;
    if t / 128 == 0 {
        if three {
            warpgroup_reg_dealloc::<32>();
        } else {
            warpgroup_reg_dealloc::<24>();
        }
        if t == 0 {
            produce::<C, QS>(maps, smem, p);
        }
    } else {
        if three {
            warpgroup_reg_alloc::<160>();
        } else {
            warpgroup_reg_alloc::<240>();
        }
        consume::<C, QS, RO, KQ, RS, KP, OB, OVERLAP, PINGPONG>(smem, p, t / 128 - 1, t % 128);
    }
}

/// The producer (one thread): for each of the block's tiles, Q's tile into its buffer once all
/// consumers are done with the tile before it there, then for each key block (last first, as the
/// consumers take them) K's tile into K's ring and V's into V's.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn produce<C: Config, const QS: u32>(maps: [*const TmaDescriptor; 3], smem: Shared<QS>, p: Problem<C::E>) {
    let (q_boxes, kv_boxes) = const { (tile_boxes(C::BM, C::D), tile_boxes(C::BN, C::D)) };
    let (q_bytes, kv_bytes) = (tile_bytes(C::BM, C::D), tile_bytes(C::BN, C::D));
    // The host checks that `heads_kv` divides `heads`.
    let group = (p.heads / p.heads_kv.max(1)).max(1);
    let mut state = PipelineState::<ATTENTION_SM90_STAGES>::producer_start();
    let mut q_state = PipelineState::<QS>::producer_start();
    for (_, (m_block, head, batch)) in BlockTiles::of_this_block(p.tiles(C::BM)) {
        let (h, hk, b) = (head as i32, (head / group) as i32, batch as i32);
        let qs = q_state.index();
        smem.q.producer_acquire(q_state, q_bytes);
        let q = IdentityTensor::<C::QTile>::tile_at([(m_block * C::BM) as i64, 0]);
        q_boxes.for_each_box(q, smem.q::<C>(qs), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps[0], [x, y, h, b], smem.q.full(qs)));
        q_state.advance();
        for n in (0..p.key_blocks(m_block, C::BM, C::BN)).rev() {
            let keys = IdentityTensor::<C::KvTile>::tile_at([(n * C::BN) as i64, 0]);
            let s = state.index();
            smem.k.producer_acquire(state, kv_bytes);
            kv_boxes.for_each_box(keys, smem.k::<C>(s), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps[1], [x, y, hk, b], smem.k.full(s)));
            smem.v.producer_acquire(state, kv_bytes);
            kv_boxes.for_each_box(keys, smem.v::<C>(s), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps[2], [x, y, hk, b], smem.v.full(s)));
            state.advance();
        }
    }
}

/// The running softmax state of a thread's two rows: the row maxima of the raw scores and this
/// thread's part of the row sums (the quad's parts are added at the end).
struct OnlineSoftmax {
    max: [f32; 2],
    sum: [f32; 2],
}

/// How far (in `log2` units after the scale) a block's scores may rise above a row's running
/// maximum before the row takes the new maximum ([`OnlineSoftmax::step`]): P stays at most 2^8,
/// FlashAttention-4's bound.
const RESCALE_THRESHOLD: f32 = 8.0;

/// The maximum over the four threads of a quad, which hold one row together.
#[inline(always)]
fn quad_max(x: f32) -> f32 {
    let x = x.max(shuffle_xor(u32::MAX, x, 1));
    x.max(shuffle_xor(u32::MAX, x, 2))
}

/// The sum over the four threads of a quad.
#[inline(always)]
fn quad_sum(x: f32) -> f32 {
    let x = x + shuffle_xor(u32::MAX, x, 1);
    x + shuffle_xor(u32::MAX, x, 2)
}

impl OnlineSoftmax {
    const fn new() -> Self {
        OnlineSoftmax { max: [f32::NEG_INFINITY; 2], sum: [0.0; 2] }
    }

    /// Takes a block of scores `s` (an accumulator fragment of atom `S`, masked scores `-inf`):
    /// updates the row maxima, turns `s` into `P = exp2(scale_log2 (s - max))`, adds P
    /// to the row sums, and returns the factors `exp2(scale_log2 (old max - new max))` by which
    /// the output's rows must be rescaled, or `None` where none of the warp's rows need it. A
    /// row that has seen no key keeps a maximum of `-inf` and P = 0.
    ///
    /// With `conditional` (a constant of the kernel: [`Config::CONDITIONAL_RESCALE`]), the warp
    /// keeps its rows' maxima while no block raises one by more than [`RESCALE_THRESHOLD`] after
    /// the scale (FlashAttention-4's conditional rescaling): P then stays at most
    /// `2^RESCALE_THRESHOLD`, well inside f32 and 16 bits, and the sums and O keep their scale,
    /// so that O's rescale (one multiplication per accumulator) is skipped. The division by the
    /// sums at the end is the same either way. The decision is the warp's (a vote), so that it
    /// skips the rescale as a whole.
    ///
    /// A fence (`fence.acq_rel.cta`) follows the exponential of `s[fence_after - 1]` (none for
    /// 0): ptxas does not move a later `wgmma.wait_group` above it ([`Config::PV_WAIT_AT`]).
    #[inline(always)]
    fn step<S: WgmmaAtom, const RS: usize>(&mut self, s: &mut [f32; RS], scale_log2: f32, conditional: bool, fence_after: usize) -> Option<[f32; 2]> {
        let mut block_max = [f32::NEG_INFINITY; 2];
        for_each_unrolled_mut(s, |v, x| {
            let half = half_of(S::LAYOUT_C, v);
            block_max[half] = block_max[half].max(*x);
        });
        let block_max = [quad_max(block_max[0]), quad_max(block_max[1])];
        // A row with no key yet (`-inf`) takes the block's maximum; a masked-out block (`-inf`)
        // raises nothing.
        let within = |h: usize| self.max[h] != f32::NEG_INFINITY && (block_max[h] - self.max[h]) * scale_log2 <= RESCALE_THRESHOLD;
        let keep = conditional && vote_all(u32::MAX, within(0) && within(1));
        let mut alpha = [1.0; 2];
        let mut shift = [0.0; 2];
        for half in 0..2 {
            let max = if keep { self.max[half] } else { self.max[half].max(block_max[half]) };
            // Subtracting `-inf` would give NaN: a row with no key yet subtracts 0 (its P is 0).
            shift[half] = if max == f32::NEG_INFINITY { 0.0 } else { max * scale_log2 };
            if !keep {
                alpha[half] = exp2_approx(self.max[half] * scale_log2 - shift[half]);
            }
            self.max[half] = max;
        }
        let mut sum = [0.0; 2];
        for_each_unrolled_mut(s, |v, x| {
            let half = half_of(S::LAYOUT_C, v);
            *x = exp2_approx(fma(*x, scale_log2, -shift[half]));
            sum[half] += *x;
            if v + 1 == fence_after {
                fence(AcqRel, Cta);
            }
        });
        for half in 0..2 {
            self.sum[half] = self.sum[half] * alpha[half] + sum[half];
        }
        if keep {
            None
        } else {
            Some(alpha)
        }
    }
}

/// A consumer warpgroup's view of one block: the shared tiles, where its rows lie, and the
/// problem.
struct Consumer<E, const QS: u32> {
    smem: Shared<QS>,
    p: Problem<E>,
    /// The warpgroup's m64 slice of the block.
    slice: u32,
    /// The thread's index in its warpgroup.
    lane: u32,
    /// Which of the tile's key blocks hold scores this thread's rows may not see.
    mask: TileMask,
    /// Where the tile's Q lies in Q's ring.
    q_state: PipelineState<QS>,
}

/// The mask of a thread's rows of one tile, reduced to what a key block needs: the first key
/// block that holds a masked score of the warpgroup's rows, and the thread's two thresholds at
/// key block 0 ([`Consumer::mask`]). Three 32-bit values per tile, so that little stays live
/// across the key blocks.
#[derive(Clone, Copy)]
struct TileMask {
    masked_from: u32,
    keys_left: i32,
    diagonal: i32,
}

impl TileMask {
    /// The mask of thread `lane` of the warpgroup whose first row is `first_row`.
    #[inline(always)]
    fn new<C: Config>(lane: u32, first_row: i64, seqlen_q: u32, seqlen_k: u32, causal: bool) -> TileMask {
        let mine = C::S::LAYOUT_C.call(lane as i64);
        let (row0, col0) = (first_row + mine % 64, mine / 64);
        let (bn, seqlen_k) = (C::BN as i64, seqlen_k as i64);
        let shift = seqlen_k - seqlen_q as i64;
        // Key block `n` ends at key `n BN + BN - 1`: past the keys from `n = seqlen_k / BN` on,
        // and with a causal mask past the first row's diagonal `first_row + shift` once
        // `n BN >= first_row + shift - BN + 2`.
        let past_keys = seqlen_k / bn;
        let past_diagonal = if causal { ((first_row + shift + 2 - bn).max(0) + bn - 1) / bn } else { i64::MAX };
        let narrow = |x: i64| x.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        TileMask { masked_from: past_keys.min(past_diagonal) as u32, keys_left: narrow(seqlen_k - col0), diagonal: narrow(row0 + shift - col0) }
    }
}

impl<E, const QS: u32> Consumer<E, QS> {
    /// Waits for K's stage of `state` and issues `S = Q K^T` (committed, not waited for).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn issue_qk<C: Config, const KQ: u32, const RS: usize>(&self, state: PipelineState<ATTENTION_SM90_STAGES>, s: &mut [f32; RS]) {
        let (q_desc, k_desc, _) = const { descriptors(C::D as i64, C::BM as i64, C::BN as i64) };
        let q = generic_to_shared(self.smem.q::<C>(self.q_state.index()));
        // Q's k-block descriptors (64 bits each) derive from its address, the same across the
        // key blocks: recomputed in each step where S, P and O fill the registers, rather than
        // held across the loop.
        let q = if C::TIGHT { recompute(q) } else { q };
        self.smem.k.consumer_wait(state);
        wgmma_fence();
        gemm::<C::S, KQ, RS>(q_desc.operand(q, self.slice), k_desc.operand(generic_to_shared(self.smem.k::<C>(state.index())), 0), s, false);
        wgmma_commit_group();
    }

    /// Waits for V's stage of `state` and issues `O += P V` (committed, not waited for).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn issue_pv<C: Config, const RO: usize, const KP: usize>(&self, state: PipelineState<ATTENTION_SM90_STAGES>, pa: &[[u32; 4]; KP], o: &mut [f32; RO]) {
        let (_, _, v_desc) = const { descriptors(C::D as i64, C::BM as i64, C::BN as i64) };
        self.smem.v.consumer_wait(state);
        wgmma_fence();
        gemm_rs::<C::O, KP, RO>(pa, v_desc.operand(generic_to_shared(self.smem.v::<C>(state.index())), 0), o, true);
        wgmma_commit_group();
    }

    /// Masks the scores of key block `n` that no query may see: keys past `seqlen_k`, and with a
    /// causal mask those after a query's diagonal. Only the blocks at the end of the keys or
    /// across the diagonal hold such scores; the others pass untouched.
    #[inline(always)]
    fn mask<C: Config, const RS: usize>(&self, n: u32, s: &mut [f32; RS]) {
        if n >= self.mask.masked_from {
            // The value at offsets `(r, c)` from the thread's first (known at compile time) is
            // key `key0 + col0 + c` of row `row0 + r`: past the keys when `c` reaches
            // `keys_left`, past the diagonal when `c - r` exceeds `diagonal`. Two thresholds per
            // block, so that each value costs two comparisons of 32 bits and a select, without
            // branches (`c - r` lies in (-64, BN): the saturation keeps every outcome).
            let key0 = (n * C::BN).min(i32::MAX as u32) as i32;
            let keys_left = self.mask.keys_left.saturating_sub(key0);
            let diagonal = if self.p.causal { self.mask.diagonal.saturating_sub(key0) } else { i32::MAX };
            for_each_unrolled_mut(s, |v, x| {
                let at = C::S::LAYOUT_C.call(128 * v as i64);
                let (r, c) = ((at % 64) as i32, (at / 64) as i32);
                let masked = (c >= keys_left) | (c - r > diagonal);
                *x = if masked { f32::NEG_INFINITY } else { *x };
            });
        }
    }
}

/// The turns of the consumer warpgroups at issuing their products (FlashAttention-3's
/// warp-scheduler barriers): named barrier `1 + w` of 256 threads is warpgroup `w`'s turn; it
/// waits on its own (`bar.sync`) and hands the turn over by arriving on the next warpgroup's
/// (`bar.arrive`), the last handing it back to warpgroup 0. Warpgroup 0 goes first: the last
/// warpgroup arrives on its barrier once at the start. All take `steps` turns; the last does not
/// hand over its last turn (warpgroup 0 has no turn left to wait for), so every barrier completes
/// as many times as it is waited on.
#[derive(Clone, Copy)]
struct Turns {
    slice: u32,
    consumers: u32,
    steps: u32,
}

/// Arrives on (`wait == false`) or waits at warpgroup `w`'s turn barrier ([`Turns`]), `w` one of
/// `consumers`.
#[inline(always)]
fn turn_barrier(w: u32, consumers: u32, wait: bool) {
    // `w` is below `consumers`: the bound lets two consumers' code keep two arms.
    match (w.min(consumers - 1), wait) {
        (0, false) => NamedBarrier::<1, 256>::new().arrive(),
        (0, true) => NamedBarrier::<1, 256>::new().sync(),
        (1, false) => NamedBarrier::<2, 256>::new().arrive(),
        (1, true) => NamedBarrier::<2, 256>::new().sync(),
        (_, false) => NamedBarrier::<3, 256>::new().arrive(),
        (_, true) => NamedBarrier::<3, 256>::new().sync(),
    }
}

impl Turns {
    /// The last warpgroup lets warpgroup 0 take the first turn.
    #[inline(always)]
    fn start(&self) {
        if self.slice == self.consumers - 1 && self.steps > 0 {
            turn_barrier(0, self.consumers, false);
        }
    }

    /// Waits for this warpgroup's turn.
    #[inline(always)]
    fn wait(&self) {
        turn_barrier(self.slice, self.consumers, true);
    }

    /// Hands the turn over to the next warpgroup after the step whose key block is `n` (the
    /// steps run `n = steps - 1` down to 0).
    #[inline(always)]
    fn hand_over(&self, n: u32) {
        if self.slice + 1 < self.consumers {
            turn_barrier(self.slice + 1, self.consumers, false);
        } else if n > 0 {
            turn_barrier(0, self.consumers, false);
        }
    }
}

/// O's rows multiplied by their factors `alpha` ([`OnlineSoftmax::step`]), if any.
#[inline(always)]
fn rescale<C: Config, const RO: usize>(o: &mut [f32; RO], alpha: Option<[f32; 2]>) {
    if let Some(alpha) = alpha {
        for_each_unrolled_mut(o, |v, x| *x *= alpha[half_of(C::O::LAYOUT_C, v)]);
    }
}

/// P in registers as the A operand of `O += P V` (`S`'s accumulators rounded to 16 bits).
#[inline(always)]
fn p_operand<C: Config, const KP: usize, const RS: usize>(s: &[f32; RS]) -> [[u32; 4]; KP] {
    if C::F16 {
        accumulators_as_a::<KP, RS, true>(s)
    } else {
        accumulators_as_a::<KP, RS, false>(s)
    }
}

/// A consumer warpgroup (`slice`: its 64 query rows of each tile; `lane`: the thread's index in
/// it): for each of the block's tiles, once Q's tile has landed, the tile's key blocks
/// ([`Consumer::attend`]), then O divided by the row sums and the log-sum-exp
/// ([`store_output`]).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn consume<C: Config, const QS: u32, const RO: usize, const KQ: u32, const RS: usize, const KP: usize, const OB: usize, const OVERLAP: bool, const PINGPONG: bool>(
    smem: Shared<QS>,
    p: Problem<C::E>,
    slice: u32,
    lane: u32,
) {
    let mut state = PipelineState::<ATTENTION_SM90_STAGES>::consumer_start();
    let mut q_state = PipelineState::<QS>::consumer_start();
    for (round, (m_block, head, batch)) in BlockTiles::of_this_block(p.tiles(C::BM)) {
        let first_row = (m_block * C::BM + 64 * slice) as i64;
        let mask = TileMask::new::<C>(lane, first_row, p.seqlen_q, p.seqlen_k, p.causal);
        let me = Consumer { smem, p, slice, lane, mask, q_state };
        smem.q.consumer_wait(q_state);
        let (o, softmax) = me.attend::<C, RO, KQ, RS, KP, OVERLAP, PINGPONG>(&mut state, p.key_blocks(m_block, C::BM, C::BN));
        let row0 = first_row + C::S::LAYOUT_C.call(lane as i64) % 64;
        store_output::<C, QS, RO, OB>(o, &softmax, p, smem, (head, batch, first_row), row0, (lane, slice), round * OB as u32);
        if C::O_BUFFERS == 0 && lane == 0 {
            // O was staged in this warpgroup's rows of Q's buffer: the buffer may take a later
            // tile's Q once the stores have read them.
            bulk_wait_group_read::<0>();
            smem.q.consumer_release(q_state);
        }
        q_state.advance();
    }
    if lane == 0 {
        // The staging buffers must outlive the stores' reads (and the block).
        bulk_wait_group::<0>();
    }
}

impl<E, const QS: u32> Consumer<E, QS> {
    /// Releases K's or V's stage of `state` (one arrival per warpgroup).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn release(&self, pipe: &PipelineTmaAsync<ATTENTION_SM90_STAGES>, state: PipelineState<ATTENTION_SM90_STAGES>) {
        if self.lane == 0 {
            pipe.consumer_release(state);
        }
    }

    /// Tells the producer that this warpgroup's last `Q K^T` of the tile is done: Q's buffer may
    /// take a later tile's Q. Called once per tile, outside the key blocks' loop, so that the
    /// loop's body stays free of the branch. Where O is staged in Q's buffer
    /// (`C::O_BUFFERS == 0`), the epilogue releases it instead.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn release_q<C: Config>(&self) {
        if C::O_BUFFERS > 0 && self.lane == 0 {
            self.smem.q.consumer_release(self.q_state);
        }
    }

    /// One tile's `blocks` key blocks (last first), ring positions from `state` on: for each,
    /// `S = Q K^T`, the mask and the online softmax, `O += P V`. Returns O (not yet divided by
    /// the row sums) and the softmax state.
    ///
    /// With `OVERLAP` (FlashAttention-3's intra-warpgroup overlap), the softmax of block `j` runs
    /// while the tensor cores compute `P_{j-1} V_{j-1}`: each step issues `S_j = Q K_j^T` and
    /// `O += P_{j-1} V_{j-1}`, waits for the first, computes `P_j` while the second runs, then
    /// rescales O (with [`Config::RESCALE_BEFORE_PV`], the next step does, before its `P V`).
    /// Without it, each product is waited for before the softmax that follows it.
    ///
    /// With `PINGPONG` as well (FlashAttention-3's inter-warpgroup ping-pong), the consumer
    /// warpgroups take turns to issue their products: each waits for its turn ([`Turns`]) before
    /// issuing a step's two products and hands the turn over right after, so that one
    /// warpgroup's softmax runs while the others' products occupy the tensor cores.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn attend<C: Config<E = E>, const RO: usize, const KQ: u32, const RS: usize, const KP: usize, const OVERLAP: bool, const PINGPONG: bool>(
        &self,
        state: &mut PipelineState<ATTENTION_SM90_STAGES>,
        blocks: u32,
    ) -> ([f32; RO], OnlineSoftmax) {
        let (smem, scale_log2) = (self.smem, self.p.scale_log2);
        let mut softmax = OnlineSoftmax::new();
        let mut o = [0f32; RO];
        if blocks == 0 {
            self.release_q::<C>();
        } else if OVERLAP {
            let mut s = [0f32; RS];
            self.issue_qk::<C, KQ, RS>(*state, &mut s);
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut s);
            self.release(&smem.k, *state);
            self.mask::<C, RS>(blocks - 1, &mut s);
            softmax.step::<C::S, RS>(&mut s, scale_log2, C::CONDITIONAL_RESCALE, 0);
            let mut pa = p_operand::<C, KP, RS>(&s);
            let mut previous = *state;
            state.advance();
            // The factors of the block whose `P V` comes next, where that `P V` applies them
            // (`C::RESCALE_BEFORE_PV`).
            let mut pending: Option<[f32; 2]> = None;
            let turns = Turns { slice: self.slice, consumers: C::CONSUMERS, steps: blocks - 1 };
            if PINGPONG {
                turns.start();
            }
            for n in (0..blocks - 1).rev() {
                if PINGPONG {
                    turns.wait();
                }
                self.issue_qk::<C, KQ, RS>(*state, &mut s);
                rescale::<C, RO>(&mut o, pending);
                self.issue_pv::<C, RO, KP>(previous, &pa, &mut o);
                if PINGPONG {
                    turns.hand_over(n);
                }
                wgmma_wait_group::<1>();
                wgmma_fence_operands(&mut s);
                self.release(&smem.k, *state);
                self.mask::<C, RS>(n, &mut s);
                let alpha = softmax.step::<C::S, RS>(&mut s, scale_log2, C::CONDITIONAL_RESCALE, C::PV_WAIT_AT * RS / 2);
                wgmma_wait_group::<0>();
                wgmma_fence_operands(&mut o);
                wgmma_fence_a_operands(&mut pa);
                self.release(&smem.v, previous);
                if C::RESCALE_BEFORE_PV {
                    pending = alpha;
                } else {
                    rescale::<C, RO>(&mut o, alpha);
                }
                pa = p_operand::<C, KP, RS>(&s);
                previous = *state;
                state.advance();
            }
            // Every `Q K^T` of the tile (the last, of key block 0, waited for above) is done.
            self.release_q::<C>();
            rescale::<C, RO>(&mut o, pending);
            self.issue_pv::<C, RO, KP>(previous, &pa, &mut o);
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut o);
            wgmma_fence_a_operands(&mut pa);
            self.release(&smem.v, previous);
        } else {
            for n in (0..blocks).rev() {
                let mut s = [0f32; RS];
                self.issue_qk::<C, KQ, RS>(*state, &mut s);
                wgmma_wait_group::<0>();
                wgmma_fence_operands(&mut s);
                self.release(&smem.k, *state);
                self.mask::<C, RS>(n, &mut s);
                rescale::<C, RO>(&mut o, softmax.step::<C::S, RS>(&mut s, scale_log2, C::CONDITIONAL_RESCALE, 0));
                let mut pa = p_operand::<C, KP, RS>(&s);
                self.issue_pv::<C, RO, KP>(*state, &pa, &mut o);
                wgmma_wait_group::<0>();
                wgmma_fence_operands(&mut o);
                wgmma_fence_a_operands(&mut pa);
                self.release(&smem.v, *state);
                state.advance();
            }
            self.release_q::<C>();
        }
        (o, softmax)
    }
}

/// The epilogue: O divided by its row sums, converted to 16 bits and written by `stmatrix` into
/// the warpgroup's staging buffers, box by box (64 columns), each box stored by a TMA store,
/// which clips the rows past `seqlen_q` (a row that saw no key stores zeros); each row's
/// log-sum-exp by the first thread of its quad. `group`: how many boxes this warpgroup has
/// staged before (its boxes take turns in its staging boxes, across tiles too).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store_output<C: Config, const QS: u32, const RO: usize, const OB: usize>(
    mut o: [f32; RO],
    softmax: &OnlineSoftmax,
    p: Problem<C::E>,
    smem: Shared<QS>,
    (head, batch, first_row): (u32, u32, i64),
    row0: i64,
    (lane, slice): (u32, u32),
    group: u32,
) {
    let mut inverse = [0.0; 2];
    let mut lse = [f32::NEG_INFINITY; 2];
    for half in 0..2 {
        let sum = quad_sum(softmax.sum[half]);
        if sum > 0.0 {
            inverse[half] = 1.0 / sum;
            lse[half] = (softmax.max[half] * p.scale_log2 + log2_approx(sum)) * core::f32::consts::LN_2;
        }
    }
    for_each_unrolled_mut(&mut o, |v, x| *x *= inverse[half_of(C::O::LAYOUT_C, v)]);
    let r2s = make_tiled_copy_c::<SM90_U32x4_STSM_N, AccBox, BoxTile>();
    let thr = r2s.get_slice(lane as usize);
    let buffer = |c: usize| smem.o_box::<C>(slice, (group + c as u32) % 2);
    // Each warpgroup's own barrier, after the turns' (1 to 3).
    let sync = || match slice.min(C::CONSUMERS - 1) {
        0 => NamedBarrier::<4, 128>::new().sync(),
        1 => NamedBarrier::<5, 128>::new().sync(),
        _ => NamedBarrier::<6, 128>::new().sync(),
    };
    stage_and_store::<OB>(
        lane == 0,
        sync,
        |c| {
            let mut frag = Fragment::<u16, BoxValues, 32>::new();
            unroll_for::<Count<16>>(|i| {
                let (a, b) = (o[32 * c + 2 * i], o[32 * c + 2 * i + 1]);
                let pair = if C::F16 { f32x2_to_f16x2(a, b) } else { f32x2_to_bf16x2(a, b) };
                frag.data[2 * i] = pair as u16;
                frag.data[2 * i + 1] = (pair >> 16) as u16;
            });
            copy(r2s, thr.retile_s(frag.tensor()), thr.partition_d(buffer(c)));
        },
        |c| tma_store_4d(p.o_map, [64 * c as i32, first_row as i32, head as i32, batch as i32], buffer(c).as_ptr() as *const u8),
    );
    if lane % 4 == 0 {
        for (half, lse) in lse.iter().enumerate() {
            let row = row0 + 8 * half as i64;
            if row < p.seqlen_q as i64 {
                *p.lse.wrapping_add(((batch * p.heads + head) as u64 * p.seqlen_q as u64 + row as u64) as usize) = *lse;
            }
        }
    }
}

// The staging buffers and the box accumulators agree with TMA's 128-byte swizzle and with O's
// wgmma accumulators at each head dimension (box `c` holds a thread's values `32 c ..`).
crate::contract!(o_staging, {
    let mut d = 64;
    while d <= 256 {
        let acc = cute_rs_layout::unwrap!(wgmma_accumulator_layout(d));
        assert!(epilogue_layouts_agree(2, <Sw<3, 3, 3>>::SWIZZLE, OStagingBox::LAYOUT, AccBox::LAYOUT, acc, d), "O's staging and box accumulators");
        d *= 2;
    }
});

/// This module's contracts (`crate::contract!`), for [`crate::contracts`].
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) const CONTRACTS: &[(&str, fn())] = &[("attention_sm90: O's staging and box accumulators", o_staging)];

/// The body of the bf16 kernels of head dimension `D` (64 or 128) with the standard tiles, with or
/// without the softmax overlapping the previous block's `P V` (`OVERLAP`) and the two consumer
/// warpgroups taking turns (`PINGPONG`, which needs `OVERLAP`). The operations' entries take both;
/// the test harness's measured steps (`tests/kernels`) the ones before them. Args: those of every
/// entry (`maps`: Q's, K's, V's and O's tensor maps).
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)] // a building block of the test harness's steps
#[inline(always)]
pub unsafe fn attention_sm90_bf16_standard<const D: u32, const OVERLAP: bool, const PINGPONG: bool>(
    [q_map, k_map, v_map, o_map]: [*const TmaDescriptor; 4],
    params: AttentionParams,
) {
    const { assert!((D == 64 || D == 128) && (OVERLAP || !PINGPONG), "head dimension 64 or 128; the turns need the overlap") };
    let p = Problem::<bf16>::new(params, o_map);
    if D == 64 {
        attention_block::<Bf16D64, 2, 32, 4, 64, 8, 1, OVERLAP, PINGPONG>([q_map, k_map, v_map], p);
    } else {
        attention_block::<Bf16D128, 2, 64, 8, 64, 8, 2, OVERLAP, PINGPONG>([q_map, k_map, v_map], p);
    }
}

macro_rules! attention_sm90_kernels {
    ($($(#[$attr:meta])* $name:ident: $config:ty, $threads:literal, $e:ty, $qs:literal, $ro:literal, $kq:literal, $rs:literal, $kp:literal, $ob:literal, $overlap:literal, $pingpong:literal;)*) => {$(
        const _: () = assert!($threads == attention_sm90_threads(<$config as Config>::BM), "a kernel's launch bounds: attention_sm90_threads");
        $(#[$attr])*
        #[cfg(feature = "entries")]
        #[kernel(launch_bounds($threads, 1), gpu_only)]
        pub fn $name(q_map: TmaDescriptorParam, k_map: TmaDescriptorParam, v_map: TmaDescriptorParam, o_map: TmaDescriptorParam, p: AttentionParams) {
            let p = Problem::<$e>::new(p, o_map.as_ptr());
            attention_block::<$config, $qs, $ro, $kq, $rs, $kp, $ob, $overlap, $pingpong>([q_map.as_ptr(), k_map.as_ptr(), v_map.as_ptr()], p);
        }
    )*};
}

attention_sm90_kernels! {
    /// Attention forward, bf16, head dimension 64, the softmax overlapping the previous block's
    /// `P V` and the two consumer warpgroups taking turns at the tensor cores: see the module
    /// documentation. Grid: any number of blocks up to the tiles' count
    /// ([`AttentionTiles::count`]). `o_map` is O's tensor map, `(head_dim, seqlen_q, heads,
    /// batch)` in boxes of 64 x 64 x 1 x 1 with the 128-byte swizzle; `scale_log2` is the softmax
    /// scale times `log2(e)`.
    attention_sm90_bf16_d64: Bf16D64, 384, bf16, 2, 32, 4, 64, 8, 1, true, true;
    /// [`attention_sm90_bf16_d64`] for head dimension 128.
    attention_sm90_bf16_d128: Bf16D128, 384, bf16, 2, 64, 8, 64, 8, 2, true, true;
    /// [`attention_sm90_bf16_d64`] for head dimension 256 (64 keys per step).
    attention_sm90_bf16_d256: Bf16D256, 384, bf16, 1, 128, 16, 32, 4, 4, true, true;
    /// [`attention_sm90_bf16_d64`] for f16.
    attention_sm90_f16_d64: F16D64, 384, f16, 2, 32, 4, 64, 8, 1, true, true;
    /// [`attention_sm90_bf16_d64`] for f16, head dimension 128.
    attention_sm90_f16_d128: F16D128, 384, f16, 2, 64, 8, 64, 8, 2, true, true;
    /// [`attention_sm90_bf16_d64`] for f16, head dimension 256 (64 keys per step).
    attention_sm90_f16_d256: F16D256, 384, f16, 1, 128, 16, 32, 4, 4, true, true;
    /// [`attention_sm90_bf16_d256`] with [`ATTENTION_SM90_LONG_BN`] (80) keys per step, for
    /// long sequences without a causal mask: O is staged in the warpgroup's rows of Q's buffer,
    /// which then takes the next tile's Q once the stores have read it.
    attention_sm90_bf16_d256_long: Bf16D256Long, 384, bf16, 1, 128, 16, 40, 5, 4, true, true;
    /// [`attention_sm90_bf16_d256_long`] for f16.
    attention_sm90_f16_d256_long: F16D256Long, 384, f16, 1, 128, 16, 40, 5, 4, true, true;
    /// Attention forward, bf16, head dimension 64, in blocks of [`ATTENTION_SM90_WIDE_BM`] (192)
    /// query rows: three consumer warpgroups, each waiting for its products (neither the overlap
    /// nor the turns): the three warpgroups' independent work keeps the tensor cores busy. The
    /// overlap holds a warpgroup's S, P and O at once (128 registers of data); it fits the 160
    /// registers each consumer gets once the values derived from the thread's index, the lengths
    /// and Q's address are recomputed where used ([`recompute`]) instead of held across the key
    /// blocks, but it is slower here, with the turns and without them (`docs/performance.md`).
    /// Otherwise as [`attention_sm90_bf16_d64`], with 512 threads.
    ///
    /// [`recompute`]: cute_rs_tensor::device::hint::recompute
    attention_sm90_bf16_d64_wide: Bf16D64Wide, 512, bf16, 2, 32, 4, 64, 8, 1, false, false;
    /// [`attention_sm90_bf16_d64_wide`] for f16.
    attention_sm90_f16_d64_wide: F16D64Wide, 512, f16, 2, 32, 4, 64, 8, 1, false, false;
}
