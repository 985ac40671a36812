//! Fused attention backward on block tiles (FlashAttention-2's algorithm), on `mma.sync`: the
//! portable version, which the CPU backend runs too. f16 and bf16; head dimensions 64 and 128.
//!
//! From Q, K, V, O, dO and the forward's log-sum-exp (`lse`, natural log of the scaled scores),
//! with `P = exp(scale Q K^T - lse)` recomputed block by block, the gradients are
//! - `dV = P^T dO`,
//! - `dP = dO V^T`, `dS = P ∘ (dP - D)` with `D = rowsum(dO ∘ O)`,
//! - `dK = scale dS^T Q`, `dQ = scale dS K`.
//!
//! Three kernels, launched in order on one stream:
//! 1. `attention_bwd_prep_*` (a program per 64 query rows of a head): `D`, f32 `(batch, heads,
//!    seqlen_q)`, and the zeroed rows of the dQ accumulator;
//! 2. `attention_bwd_kv_*` (a program per 32 keys of a key/value head): the program walks every
//!    query block of 64 rows of every query head of its group (under
//!    a causal mask, from the first block that sees its keys): `dK` and `dV` accumulate in f32
//!    registers, in a fixed order, and are stored once (grouped-query heads summed without
//!    atomics). Each step's `scale dS K` is added to the f32 dQ accumulator with atomics, unless
//!    the call is deterministic;
//! 3. `attention_bwd_dq_*` (a program per 64 query rows of a head): dQ in the element type, from
//!    the accumulator, or (deterministic) recomputed: the program walks the key blocks itself,
//!    `dQ += dS K` in a fixed order, as FlashAttention's deterministic backward orders it.
//!
//! Every operand re-layout is the block tiles': `P` and `dS` become the A operands of `P^T dO` and
//! `dS^T Q` through [`BlockTile::trans`] (a shared-memory transpose), and `dot` stages any
//! operand layout through shared memory as `tl.dot` does.
//!
//! Layouts: Q, O, dO and dQ are `(batch, seqlen_q, heads, head_dim)` with one set of strides; K,
//! V, dK and dV `(batch, seqlen_k, heads_kv, head_dim)` with another; head_dim's stride is 1; `lse`
//! and `D` are `(batch, heads, seqlen_q)` and the dQ accumulator `(batch, seqlen_q, heads,
//! head_dim)`, contiguous f32.

use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, TiledMma};
use cute_rs_tensor::block_tile::{dot, where_, BlockTile, Cast, DotLayoutOf, Scratch, Slice, TvLayout};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, block_idx_z};
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::tensor::Element;
use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, kernel, static_layout, LayoutTensor, Strided};

use crate::attention::{AttentionQ128, AttentionQ64, AttentionWarps, AttentionWarpsWide, Strides, ATTENTION_BLOCK};

/// Query rows per program of `attention_bwd_prep_*` and `attention_bwd_dq_*`, and per step of
/// `attention_bwd_kv_*`.
pub const ATTENTION_BWD_ROWS: i64 = ATTENTION_BLOCK;

/// Keys per program of `attention_bwd_kv_*`, and per step of `attention_bwd_dq_*`: 32, so that
/// dK's and dV's f32 accumulators and a step's tiles fit a thread's registers without spilling.
pub const ATTENTION_BWD_KEYS: i64 = 32;

/// The threads of the backward programs for head dimension `d`: the forward's
/// ([`attention_threads`](crate::attention::attention_threads)).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_bwd::attention_bwd_threads;
/// assert_eq!((attention_bwd_threads(64), attention_bwd_threads(128)), (128, 256));
/// ```
pub const fn attention_bwd_threads(d: u32) -> u32 {
    crate::attention::attention_threads(d)
}

/// The dynamic shared memory of the backward programs for head dimension `d`, in bytes: the
/// staged operands of the largest product, 16-bit tiles of `64 x d` and `d x 32` (`Q K^T`; the
/// other products' take no more).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_bwd::attention_bwd_scratch_bytes;
/// assert_eq!((attention_bwd_scratch_bytes(64), attention_bwd_scratch_bytes(128)), (12288, 24576));
/// ```
pub const fn attention_bwd_scratch_bytes(d: u32) -> u32 {
    2 * (ATTENTION_BWD_ROWS as u32 + ATTENTION_BWD_KEYS as u32) * d
}

/// The head dimensions the backward takes.
///
/// # Example
/// ```
/// assert!(cute_rs_kernels::attention_bwd::ATTENTION_BWD_HEAD_DIMS.contains(&128));
/// ```
pub const ATTENTION_BWD_HEAD_DIMS: [u32; 2] = [64, 128];

/// The tiles of the backward of one element type `T` and head dimension `D`: the loaded Q and dO
/// (`64 x D`), K^T and V^T (`D x 32`) and K (`32 x D`); the accumulators of S, P, dP and dS
/// (`64 x 32`), dQ (`64 x D`) and dK, dV (`32 x D`) on `T`'s `mma.sync` atom; and `P^T`, `dS^T`
/// (`32 x 64`), the A operands of `P^T dO` and `dS^T Q`.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_bwd::{AttentionBwdBf16D64, AttentionBwdTiles};
/// use cute_rs_tensor::block_tile::TvLayout;
/// use cute_rs_tensor::half::bf16;
/// // 128 threads; each holds 16 of dK's 32 x 64 accumulators.
/// assert_eq!(<<AttentionBwdBf16D64 as AttentionBwdTiles<bf16>>::Dkv as TvLayout>::VALUES, 16);
/// ```
pub trait AttentionBwdTiles<T: Element> {
    /// The head dimension.
    const D: i64;
    /// Q and dO.
    type Q: TvLayout;
    /// K^T and V^T.
    type Kt: TvLayout;
    /// K.
    type K: TvLayout;
    /// P^T and dS^T.
    type Pt: TvLayout;
    /// S, P, dP and dS.
    type S: DotLayoutOf<T>;
    /// dQ.
    type Dq: DotLayoutOf<T>;
    /// dK and dV.
    type Dkv: DotLayoutOf<T>;
}

static_layout!(
    /// 2 x 2 warps: dK and dV's 32 rows over two warps of 16, their columns over two (head
    /// dimension 64).
    pub AttentionBwdWarps2x2 = "(2,2,1)"
);
static_layout!(
    /// 2 x 4 warps: dK and dV at head dimension 128.
    pub AttentionBwdWarps2x4 = "(2,4,1)"
);

/// The blocked layouts of one head dimension `$d`, `$runs` threads of 8 elements along the head
/// dimension per warp row, `$warps` warps.
macro_rules! attention_bwd_io {
    ($($d:literal $kt:ident $k:ident $pt:ident $runs:literal $warps:literal;)*) => {$(
        blocked_layout!(
            #[doc = concat!("K^T and V^T, ", $d, " x 32, runs of 8 along the head dimension (dimension 0).")]
            pub $kt = shape [$d, 32], size_per_thread [8, 1], threads_per_warp [$runs, 32 / $runs], warps_per_cta [1, $warps], order [0, 1]
        );
        blocked_layout!(
            #[doc = concat!("K, 32 x ", $d, ".")]
            pub $k = shape [32, $d], size_per_thread [1, 8], threads_per_warp [32 / $runs, $runs], warps_per_cta [$warps, 1], order [1, 0]
        );
        blocked_layout!(
            #[doc = concat!("P^T and dS^T, 32 x 64 over ", $warps, " warps.")]
            pub $pt = shape [32, 64], size_per_thread [1, 8], threads_per_warp [4, 8], warps_per_cta [$warps, 1], order [1, 0]
        );
    )*};
}
attention_bwd_io! {
    64 AttentionBwdKt64 AttentionBwdK64 AttentionBwdPt4 8 4;
    128 AttentionBwdKt128 AttentionBwdK128 AttentionBwdPt8 16 8;
}

/// The accumulators of one element type and head dimension, and the [`AttentionBwdTiles`] naming
/// them with the loaded tiles.
macro_rules! attention_bwd_tiles {
    ($($tiles:ident $t:ident $atom:ident $warps:ident $kv_warps:ident $d:literal ($q:ident $kt:ident $k:ident $pt:ident) $s:ident $dq:ident $dkv:ident;)*) => {$(
        dot_layout!(
            #[doc = concat!("S, P, dP and dS of the backward (", stringify!($t), ", head dimension ", $d, "), 64 x 32.")]
            pub $s = mma TiledMma<$atom, $warps>, shape [64, 32]
        );
        dot_layout!(
            #[doc = concat!("dQ's accumulators (", stringify!($t), "), 64 x ", $d, ".")]
            pub $dq = mma TiledMma<$atom, $warps>, shape [64, $d]
        );
        dot_layout!(
            #[doc = concat!("dK's and dV's accumulators (", stringify!($t), "), 32 x ", $d, ".")]
            pub $dkv = mma TiledMma<$atom, $kv_warps>, shape [32, $d]
        );
        #[doc = concat!("The backward's tiles of ", stringify!($t), " at head dimension ", $d, ".")]
        pub struct $tiles;
        impl AttentionBwdTiles<$t> for $tiles {
            const D: i64 = $d;
            type Q = $q;
            type Kt = $kt;
            type K = $k;
            type Pt = $pt;
            type S = $s;
            type Dq = $dq;
            type Dkv = $dkv;
        }
    )*};
}
attention_bwd_tiles! {
    AttentionBwdF16D64 f16 SM80_16x8x16_F32F16F16F32_TN AttentionWarps AttentionBwdWarps2x2 64 (AttentionQ64 AttentionBwdKt64 AttentionBwdK64 AttentionBwdPt4) AttentionBwdSF16D64 AttentionBwdDqF16D64 AttentionBwdDkvF16D64;
    AttentionBwdF16D128 f16 SM80_16x8x16_F32F16F16F32_TN AttentionWarpsWide AttentionBwdWarps2x4 128 (AttentionQ128 AttentionBwdKt128 AttentionBwdK128 AttentionBwdPt8) AttentionBwdSF16D128 AttentionBwdDqF16D128 AttentionBwdDkvF16D128;
    AttentionBwdBf16D64 bf16 SM80_16x8x16_F32BF16BF16F32_TN AttentionWarps AttentionBwdWarps2x2 64 (AttentionQ64 AttentionBwdKt64 AttentionBwdK64 AttentionBwdPt4) AttentionBwdSBf16D64 AttentionBwdDqBf16D64 AttentionBwdDkvBf16D64;
    AttentionBwdBf16D128 bf16 SM80_16x8x16_F32BF16BF16F32_TN AttentionWarpsWide AttentionBwdWarps2x4 128 (AttentionQ128 AttentionBwdKt128 AttentionBwdK128 AttentionBwdPt8) AttentionBwdSBf16D128 AttentionBwdDqBf16D128 AttentionBwdDkvBf16D128;
}

/// The parameters of the three backward kernels of element type `T` (see the module
/// documentation for the layouts).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::Strides;
/// use cute_rs_kernels::attention_bwd::AttentionBwdParams;
/// use cute_rs_tensor::half::bf16;
/// let packed = Strides { batch: 64 * 64, seq: 64, head: 64 };
/// let null = core::ptr::null_mut::<bf16>();
/// let p = AttentionBwdParams {
///     q: null, k: null, v: null, o: null, d_o: null, dq: null, dk: null, dv: null,
///     lse: core::ptr::null_mut(), delta: core::ptr::null_mut(), lse2: core::ptr::null_mut(),
///     stats_rows: 64, stats_stride: 64, dq_accum: core::ptr::null_mut(),
///     heads: 1, heads_kv: 1, seqlen_q: 64, seqlen_k: 64, q_strides: packed, kv_strides: packed,
///     scale: 0.125, causal: 0, deterministic: 1,
/// };
/// assert_eq!(p.deterministic, 1);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AttentionBwdParams<T: 'static> {
    /// Q, `(batch, seqlen_q, heads, head_dim)`.
    pub q: *mut T,
    /// K, `(batch, seqlen_k, heads_kv, head_dim)`.
    pub k: *mut T,
    /// V, with K's shape and strides.
    pub v: *mut T,
    /// The forward's output, with Q's shape and strides.
    pub o: *mut T,
    /// The output's gradient, with Q's shape and strides.
    pub d_o: *mut T,
    /// Q's gradient (written), with Q's shape and strides.
    pub dq: *mut T,
    /// K's gradient (written), with K's shape and strides.
    pub dk: *mut T,
    /// V's gradient (written), with K's shape and strides.
    pub dv: *mut T,
    /// The forward's log-sum-exp, `(batch, heads, seqlen_q)`.
    pub lse: *mut f32,
    /// `D = rowsum(dO ∘ O)` (written by the first kernel): `stats_rows` values for each head
    /// of each batch, `stats_stride` apart, 0 past `seqlen_q`.
    pub delta: *mut f32,
    /// Where the first kernel also writes the log-sum-exp in base 2 with `D`'s layout (`+inf`
    /// where it is `-inf`, and past `seqlen_q`): the Hopper backward's row statistics. Null: not
    /// written.
    pub lse2: *mut f32,
    /// The rows of `D` (and `lse2`) per head: `seqlen_q`, or more (the Hopper backward's
    /// `seqlen_q` rounded up to its query blocks).
    pub stats_rows: i64,
    /// The distance between two heads' rows of `D` (and `lse2`), at least `stats_rows`.
    pub stats_stride: i64,
    /// The f32 dQ accumulator, `(batch, seqlen_q, heads, head_dim)` packed (unused when
    /// deterministic).
    pub dq_accum: *mut f32,
    /// Query heads.
    pub heads: i64,
    /// Key/value heads (they divide `heads`).
    pub heads_kv: i64,
    /// Query rows.
    pub seqlen_q: i64,
    /// Keys.
    pub seqlen_k: i64,
    /// The strides of Q, O, dO and dQ.
    pub q_strides: Strides,
    /// The strides of K, V, dK and dV.
    pub kv_strides: Strides,
    /// The softmax scale of the forward.
    pub scale: f32,
    /// 1: the forward's causal mask (aligned to the bottom right); 0: none.
    pub causal: u32,
    /// 1: dQ recomputed in a fixed order (bitwise reproducible); 0: accumulated with atomics.
    pub deterministic: u32,
}

// SAFETY: `#[repr(C)]`: scalars, raw pointers and `Strides`.
unsafe impl<T: Copy + 'static> cute_rs_tensor::kernel::KernelValue for AttentionBwdParams<T> {}

/// The `(seqlen, head_dim)` view of head `head` of batch `b` of the array at `base`.
///
/// # Safety
/// The array holds what the view reaches (the kernels' parameters, as the host checked them).
#[inline(always)]
unsafe fn rows<T: Element>(base: *mut T, s: Strides, b: i64, head: i64, seqlen: i64, d: i64) -> LayoutTensor<'static, T, Strided<2>> {
    // SAFETY: the caller's.
    unsafe { LayoutTensor::from_ptr(base.wrapping_offset((b * s.batch + head * s.head) as isize), Strided::new([seqlen, d], [s.seq, 1])) }
}

/// The transposed `(head_dim, seqlen)` view of the same head.
///
/// # Safety
/// As [`rows`].
#[inline(always)]
unsafe fn columns<T: Element>(base: *mut T, s: Strides, b: i64, head: i64, seqlen: i64, d: i64) -> LayoutTensor<'static, T, Strided<2>> {
    // SAFETY: the caller's.
    unsafe { LayoutTensor::from_ptr(base.wrapping_offset((b * s.batch + head * s.head) as isize), Strided::new([d, seqlen], [1, s.seq])) }
}

/// The `(rows, 1)` column of head `h` of batch `b` of an array of `rows` values per head,
/// `stride` apart.
///
/// # Safety
/// As [`rows`].
#[inline(always)]
unsafe fn row_values(base: *mut f32, heads: i64, b: i64, h: i64, (rows, stride): (i64, i64)) -> LayoutTensor<'static, f32, Strided<2>> {
    // SAFETY: the caller's.
    unsafe { LayoutTensor::from_ptr(base.wrapping_offset(((b * heads + h) * stride) as isize), Strided::new([rows, 1], [1, 1])) }
}

/// The packed strides of the dQ accumulator.
#[inline(always)]
fn accum_strides(p_heads: i64, seqlen_q: i64, d: i64) -> Strides {
    Strides { batch: seqlen_q * p_heads * d, seq: p_heads * d, head: d }
}

/// One step of the backward on query block `ib` and key block `jb` of a head: `P` and `dS` (f32,
/// zero where masked) from the Q, dO, K^T and V^T tiles and the block's rows of `lse` and `D`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn probabilities<T, A, const BYTES: usize>(
    p: &AttentionBwdParams<T>,
    (ib, jb): (i64, i64),
    q_t: &BlockTile<T, A::Q>,
    do_t: &BlockTile<T, A::Q>,
    kt_t: &BlockTile<T, A::Kt>,
    vt_t: &BlockTile<T, A::Kt>,
    lse2: &BlockTile<f32, Slice<A::S, 1>>,
    delta: &BlockTile<f32, Slice<A::S, 1>>,
    scratch: &Scratch<BYTES>,
) -> (BlockTile<f32, A::S>, BlockTile<f32, A::S>)
where
    T: Element + Cast<f32>,
    f32: Cast<T>,
    A: AttentionBwdTiles<T>,
{
    let qk_scale = p.scale * core::f32::consts::LOG2_E;
    let s = dot(q_t, kt_t, BlockTile::<f32, A::S>::zeros(), scratch) * qk_scale;
    let (seqlen_q, seqlen_k, causal) = (p.seqlen_q, p.seqlen_k, p.causal != 0);
    let shift = seqlen_k - seqlen_q;
    let (row0, col0) = (ib * ATTENTION_BWD_ROWS, jb * ATTENTION_BWD_KEYS);
    let visible = BlockTile::<bool, A::S>::from_coord(|c| {
        let (row, col) = (row0 + c[0], col0 + c[1]);
        row < seqlen_q && col < seqlen_k && (!causal || col <= row + shift)
    });
    // Masked elements may hold inf or NaN before the `where_` (a row whose lse is -inf).
    let probs = where_(visible, (s - lse2).exp2(), 0.0);
    let dp = dot(do_t, vt_t, BlockTile::<f32, A::S>::zeros(), scratch);
    let ds = probs.zip(&(dp - delta), |p, x| p * x);
    (probs, ds)
}

/// The rows `ib` of `lse` (in base 2) and `D` of head `h`.
///
/// # Safety
/// As [`rows`].
#[inline(always)]
unsafe fn row_stats<T, A>(p: &AttentionBwdParams<T>, b: i64, h: i64, ib: i64) -> (BlockTile<f32, Slice<A::S, 1>>, BlockTile<f32, Slice<A::S, 1>>)
where
    T: Element,
    A: AttentionBwdTiles<T>,
{
    // SAFETY: the caller's.
    let (lse, delta) = unsafe { (row_values(p.lse, p.heads, b, h, (p.seqlen_q, p.seqlen_q)), row_values(p.delta, p.heads, b, h, (p.seqlen_q, p.stats_stride))) };
    let lse = BlockTile::<f32, Slice<A::S, 1>>::load(&lse, [ib, 0], 0.0);
    let delta = BlockTile::<f32, Slice<A::S, 1>>::load(&delta, [ib, 0], 0.0);
    (lse * core::f32::consts::LOG2_E, delta)
}

/// Kernel 1 for query block `block_idx_x` of head `block_idx_y` of batch `block_idx_z`.
///
/// # Safety
/// The parameters' arrays as the module documentation says; every thread of the block calls it.
#[inline(always)]
unsafe fn prep_block<T, A, const BYTES: usize>(p: AttentionBwdParams<T>, scratch: &Scratch<BYTES>)
where
    T: Element + Cast<f32>,
    A: AttentionBwdTiles<T>,
{
    let (ib, h, b) = (block_idx_x() as i64, block_idx_y() as i64, block_idx_z() as i64);
    let d = A::D;
    let o = BlockTile::<T, A::Q>::load(&rows(p.o, p.q_strides, b, h, p.seqlen_q, d), [ib, 0], T::ZERO).cast::<f32>();
    let d_o = BlockTile::<T, A::Q>::load(&rows(p.d_o, p.q_strides, b, h, p.seqlen_q, d), [ib, 0], T::ZERO).cast::<f32>();
    let delta = o.zip(&d_o, |x, y| x * y).sum::<1, BYTES>(scratch);
    let stats = (p.stats_rows, p.stats_stride);
    delta.store(&row_values(p.delta, p.heads, b, h, stats), [ib, 0]);
    if !p.lse2.is_null() {
        let lse = BlockTile::<f32, Slice<A::S, 1>>::load(&row_values(p.lse, p.heads, b, h, (p.seqlen_q, p.seqlen_q)), [ib, 0], f32::NEG_INFINITY);
        // A row that sees no key (and a row past the end) gets P = exp2(s - inf) = 0.
        let lse2 = lse.map(|x| if x == f32::NEG_INFINITY { f32::INFINITY } else { x * core::f32::consts::LOG2_E });
        lse2.store(&row_values(p.lse2, p.heads, b, h, stats), [ib, 0]);
    }
    if p.deterministic == 0 {
        let accum = rows(p.dq_accum, accum_strides(p.heads, p.seqlen_q, d), b, h, p.seqlen_q, d);
        BlockTile::<f32, A::Q>::zeros().store(&accum, [ib, 0]);
    }
}

/// Kernel 2 for key block `block_idx_x` of key/value head `block_idx_y` of batch `block_idx_z`.
///
/// # Safety
/// As [`prep_block`].
#[inline(always)]
unsafe fn kv_block<T, A, const BYTES: usize>(p: AttentionBwdParams<T>, scratch: &Scratch<BYTES>)
where
    T: Element + Cast<f32>,
    f32: Cast<T>,
    A: AttentionBwdTiles<T>,
{
    let (jb, hk, b) = (block_idx_x() as i64, block_idx_y() as i64, block_idx_z() as i64);
    let d = A::D;
    let group = (p.heads / p.heads_kv.max(1)).max(1);
    // K and V's tiles are read again at every step (from L2) rather than held: with dK and dV's
    // accumulators, they would not leave the step's tiles room in a thread's registers.
    let (kt, vt, k) = (columns(p.k, p.kv_strides, b, hk, p.seqlen_k, d), columns(p.v, p.kv_strides, b, hk, p.seqlen_k, d), rows(p.k, p.kv_strides, b, hk, p.seqlen_k, d));
    let mut dk = BlockTile::<f32, A::Dkv>::zeros();
    let mut dv = BlockTile::<f32, A::Dkv>::zeros();
    let q_blocks = (p.seqlen_q + ATTENTION_BWD_ROWS - 1) / ATTENTION_BWD_ROWS;
    // Under the causal mask query row `i` sees key `j` when `j <= i + seqlen_k - seqlen_q`: the
    // first query block that sees the block's first key.
    let first = if p.causal != 0 { ((jb * ATTENTION_BWD_KEYS - (p.seqlen_k - p.seqlen_q)).max(0) / ATTENTION_BWD_ROWS).min(q_blocks) } else { 0 };
    let accum_s = accum_strides(p.heads, p.seqlen_q, d);
    for h in hk * group..(hk + 1) * group {
        for ib in first..q_blocks {
            let q_t = BlockTile::<T, A::Q>::load(&rows(p.q, p.q_strides, b, h, p.seqlen_q, d), [ib, 0], T::ZERO);
            let do_t = BlockTile::<T, A::Q>::load(&rows(p.d_o, p.q_strides, b, h, p.seqlen_q, d), [ib, 0], T::ZERO);
            let (lse2, delta) = row_stats::<T, A>(&p, b, h, ib);
            let kt_t = BlockTile::<T, A::Kt>::load(&kt, [0, jb], T::ZERO);
            let vt_t = BlockTile::<T, A::Kt>::load(&vt, [0, jb], T::ZERO);
            let (probs, ds) = probabilities::<T, A, BYTES>(&p, (ib, jb), &q_t, &do_t, &kt_t, &vt_t, &lse2, &delta, scratch);
            dv = dot(&probs.cast::<T>().trans::<A::Pt, BYTES>(scratch), &do_t, dv, scratch);
            let ds = ds.cast::<T>();
            dk = dot(&ds.trans::<A::Pt, BYTES>(scratch), &q_t, dk, scratch);
            if p.deterministic == 0 {
                let k_t = BlockTile::<T, A::K>::load(&k, [jb, 0], T::ZERO);
                let dq = dot(&ds, &k_t, BlockTile::<f32, A::Dq>::zeros(), scratch) * p.scale;
                dq.atomic_add(&rows(p.dq_accum, accum_s, b, h, p.seqlen_q, d), [ib, 0]);
            }
        }
    }
    (dk * p.scale).cast::<T>().store(&rows(p.dk, p.kv_strides, b, hk, p.seqlen_k, d), [jb, 0]);
    dv.cast::<T>().store(&rows(p.dv, p.kv_strides, b, hk, p.seqlen_k, d), [jb, 0]);
}

/// Kernel 3 for query block `block_idx_x` of head `block_idx_y` of batch `block_idx_z`.
///
/// # Safety
/// As [`prep_block`].
#[inline(always)]
unsafe fn dq_block<T, A, const BYTES: usize>(p: AttentionBwdParams<T>, scratch: &Scratch<BYTES>)
where
    T: Element + Cast<f32>,
    f32: Cast<T>,
    A: AttentionBwdTiles<T>,
{
    let (ib, h, b) = (block_idx_x() as i64, block_idx_y() as i64, block_idx_z() as i64);
    let d = A::D;
    let dq_out = rows(p.dq, p.q_strides, b, h, p.seqlen_q, d);
    if p.deterministic == 0 {
        let accum = rows(p.dq_accum, accum_strides(p.heads, p.seqlen_q, d), b, h, p.seqlen_q, d);
        BlockTile::<f32, A::Q>::load(&accum, [ib, 0], 0.0).cast::<T>().store(&dq_out, [ib, 0]);
        return;
    }
    let hk = h / (p.heads / p.heads_kv.max(1)).max(1);
    let (q, d_o) = (rows(p.q, p.q_strides, b, h, p.seqlen_q, d), rows(p.d_o, p.q_strides, b, h, p.seqlen_q, d));
    let (kt, vt, k) = (columns(p.k, p.kv_strides, b, hk, p.seqlen_k, d), columns(p.v, p.kv_strides, b, hk, p.seqlen_k, d), rows(p.k, p.kv_strides, b, hk, p.seqlen_k, d));
    let (lse2, delta) = row_stats::<T, A>(&p, b, h, ib);
    let key_blocks = (p.seqlen_k + ATTENTION_BWD_KEYS - 1) / ATTENTION_BWD_KEYS;
    let last_key = (ib + 1) * ATTENTION_BWD_ROWS - 1 + p.seqlen_k - p.seqlen_q;
    let steps = if p.causal != 0 { key_blocks.min((last_key + ATTENTION_BWD_KEYS) / ATTENTION_BWD_KEYS).max(0) } else { key_blocks };
    let mut dq = BlockTile::<f32, A::Dq>::zeros();
    for jb in 0..steps {
        // Every tile is read at its step (Q and dO from L2 after the first), so that dQ's
        // accumulator and the step's tiles fit a thread's registers.
        let q_t = BlockTile::<T, A::Q>::load(&q, [ib, 0], T::ZERO);
        let do_t = BlockTile::<T, A::Q>::load(&d_o, [ib, 0], T::ZERO);
        let kt_t = BlockTile::<T, A::Kt>::load(&kt, [0, jb], T::ZERO);
        let vt_t = BlockTile::<T, A::Kt>::load(&vt, [0, jb], T::ZERO);
        let (_, ds) = probabilities::<T, A, BYTES>(&p, (ib, jb), &q_t, &do_t, &kt_t, &vt_t, &lse2, &delta, scratch);
        let k_t = BlockTile::<T, A::K>::load(&k, [jb, 0], T::ZERO);
        dq = dot(&ds.cast::<T>(), &k_t, dq, scratch);
    }
    (dq * p.scale).cast::<T>().store(&dq_out, [ib, 0]);
}

macro_rules! attention_bwd_kernels {
    ($($prep:ident $kv:ident $dq:ident $t:ident $tiles:ident $d:tt $threads:tt;)*) => {$(
        #[doc = concat!("Attention backward, kernel 1 (", stringify!($t), ", head_dim ", $d, "): `D` and the zeroed dQ accumulator; see the module documentation.")]
        #[cfg(feature = "entries")]
        #[kernel(block($threads), shared_mem(attention_bwd_scratch_bytes($d)))]
        pub fn $prep(p: AttentionBwdParams<$t>) {
            const BYTES: usize = attention_bwd_scratch_bytes($d) as usize;
            const { assert!(attention_bwd_threads($d) == $threads, "the block of a backward entry must be attention_bwd_threads(d)") };
            let scratch = block_scratch!($prep, dynamic BYTES);
            prep_block::<$t, $tiles, BYTES>(p, &scratch);
        }
        #[doc = concat!("Attention backward, kernel 2 (", stringify!($t), ", head_dim ", $d, "): dK, dV (and dQ's atomics); see the module documentation.")]
        #[cfg(feature = "entries")]
        #[kernel(block($threads), shared_mem(attention_bwd_scratch_bytes($d)))]
        pub fn $kv(p: AttentionBwdParams<$t>) {
            const BYTES: usize = attention_bwd_scratch_bytes($d) as usize;
            let scratch = block_scratch!($kv, dynamic BYTES);
            kv_block::<$t, $tiles, BYTES>(p, &scratch);
        }
        #[doc = concat!("Attention backward, kernel 3 (", stringify!($t), ", head_dim ", $d, "): dQ; see the module documentation.")]
        #[cfg(feature = "entries")]
        #[kernel(block($threads), shared_mem(attention_bwd_scratch_bytes($d)))]
        pub fn $dq(p: AttentionBwdParams<$t>) {
            const BYTES: usize = attention_bwd_scratch_bytes($d) as usize;
            let scratch = block_scratch!($dq, dynamic BYTES);
            dq_block::<$t, $tiles, BYTES>(p, &scratch);
        }
    )*};
}
attention_bwd_kernels! {
    attention_bwd_prep_f16_d64 attention_bwd_kv_f16_d64 attention_bwd_dq_f16_d64 f16 AttentionBwdF16D64 64 128;
    attention_bwd_prep_f16_d128 attention_bwd_kv_f16_d128 attention_bwd_dq_f16_d128 f16 AttentionBwdF16D128 128 256;
    attention_bwd_prep_bf16_d64 attention_bwd_kv_bf16_d64 attention_bwd_dq_bf16_d64 bf16 AttentionBwdBf16D64 64 128;
    attention_bwd_prep_bf16_d128 attention_bwd_kv_bf16_d128 attention_bwd_dq_bf16_d128 bf16 AttentionBwdBf16D128 128 256;
}
