//! Fused attention forward on block tiles (FlashAttention-2's algorithm, as Triton's
//! fused-attention tutorial writes it), on `mma.sync`: the portable version, which the CPU backend
//! runs too. f16 and bf16; head dimensions 64, 128 and 256.
//!
//! One program computes a block of 64 query rows of one (batch, head): it loads its Q tile once,
//! then walks the key/value blocks ([`attention_block_n`] rows: 64, or 32 at head dimension 256):
//! `S = Q K^T` on the tensor cores (`dot`), scaled
//! into base 2 (`scale * log2(e)`) and masked (keys past `seqlen_k`, and with `causal` the keys
//! after the query's diagonal, aligned to the bottom right as FlashAttention does when the lengths
//! differ), the online softmax (running row maximum `m`, row sum `l`, `P = exp2(S - m)`, the output
//! rescaled by `exp2(m_old - m)`), and `O += P V` with P rounded to the element type. At the end
//! `O / l` is stored with the log-sum-exp of each row (natural log, of the scaled scores), `-inf`
//! and zeros for a row that sees no key.
//!
//! At head dimension 64 the program is 4 warps (128 threads) stacked along the query rows, each
//! holding 16 rows of S and of O. At 128 and 256 it is 8 warps (256 threads) in a 4 x 2 grid: the
//! two warps of 16 rows split S's columns and O's head dimension, so that the tiles a thread holds
//! through a step (Q, a K or V tile, S and O) fit its 255 registers. The products stage their
//! operands in dynamic shared memory ([`attention_scratch_bytes`]).
//!
//! Q, K, V and O are `(batch, seqlen, heads, head_dim)` arrays with unit `head_dim` stride (other
//! strides given, the same for Q and O, and for K and V); K and V have `heads_kv` heads, which
//! divide `heads` (grouped-query attention: query head `h` reads key/value head
//! `h / (heads / heads_kv)`); the log-sum-exp is `(batch, heads, seqlen_q)`, contiguous. Grid
//! `(ceil(seqlen_q / 64), heads, batch)`, [`attention_threads`] threads.

use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, TiledMma};
use cute_rs_tensor::block_tile::{dot, where_, BlockTile, Cast, DotLayoutOf, Scratch, Slice, TvLayout};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, block_idx_z};
use cute_rs_tensor::device::math::log2;
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::tensor::Element;
use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, kernel, static_layout, LayoutTensor, Strided};

/// Query rows per program.
pub const ATTENTION_BLOCK: i64 = 64;

/// Key/value rows per step for head dimension `d`: 64, or 32 at 256, where the K and V tiles of
/// 64 rows would not leave a thread of the program room for S and O in its 255 registers.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::attention_block_n;
/// assert_eq!((attention_block_n(128), attention_block_n(256)), (64, 32));
/// ```
pub const fn attention_block_n(d: u32) -> u32 {
    if d > 128 {
        32
    } else {
        64
    }
}

/// The threads of the program for head dimension `d`: 128 at 64, 256 above.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::attention_threads;
/// assert_eq!((attention_threads(64), attention_threads(128), attention_threads(256)), (128, 256, 256));
/// ```
pub const fn attention_threads(d: u32) -> u32 {
    if d <= 64 {
        128
    } else {
        256
    }
}

/// The dynamic shared memory of the program for head dimension `d`, in bytes: the staged operands
/// of a product, 16-bit tiles of `64 x d` and `d x n` (`Q K^T`, `n` keys per step; `P V`'s
/// `64 x n` and `n x d` take no more), which also serve the row reductions.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::attention_scratch_bytes;
/// assert_eq!((attention_scratch_bytes(64), attention_scratch_bytes(256)), (16384, 49152));
/// ```
pub const fn attention_scratch_bytes(d: u32) -> u32 {
    2 * (ATTENTION_BLOCK as u32 * d + d * attention_block_n(d))
}

static_layout!(
    /// 4 warps stacked along the query rows (16 rows each): head dimension 64.
    pub AttentionWarps = "(4,1,1)"
);
static_layout!(
    /// 4 x 2 warps: two warps share 16 query rows, splitting S's columns and O's head dimension
    /// (head dimensions 128 and 256).
    pub AttentionWarpsWide = "(4,2,1)"
);

/// The tiles of one element type `T` and head dimension `D`, `BN` keys per step: Q (`64 x D`,
/// 16-byte vectors along D), K^T (`D x BN`, runs along D, K's contiguous dimension), V
/// (`BN x D`), and the accumulators of S (`64 x BN`) and O (`64 x D`) on `T`'s `mma.sync` atom.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::{AttentionBf16D128, AttentionTiles};
/// use cute_rs_tensor::block_tile::TvLayout;
/// use cute_rs_tensor::half::bf16;
/// // 256 threads; each holds 32 of O's 64 x 128 accumulators.
/// assert_eq!(<<AttentionBf16D128 as AttentionTiles<bf16>>::O as TvLayout>::VALUES, 32);
/// ```
pub trait AttentionTiles<T: Element> {
    /// The head dimension.
    const D: i64;
    /// The keys per step ([`attention_block_n`]).
    const BN: i64;
    /// The Q tile.
    type Q: TvLayout;
    /// The K^T tile.
    type Kt: TvLayout;
    /// The V tile.
    type V: TvLayout;
    /// The S accumulator.
    type S: DotLayoutOf<T>;
    /// The O accumulator.
    type O: DotLayoutOf<T>;
}

/// The blocked layouts of the loaded tiles of one head dimension `$d` and `$bn` keys, `$runs`
/// threads of 8 elements along the head dimension per warp row.
macro_rules! attention_io {
    ($($d:literal $bn:literal $q:ident $kt:ident $v:ident $runs:literal $warps:literal;)*) => {$(
        blocked_layout!(
            #[doc = concat!("The Q tile, 64 x ", $d, ".")]
            pub $q = shape [64, $d], size_per_thread [1, 8], threads_per_warp [32 / $runs, $runs], warps_per_cta [$warps, 1], order [1, 0]
        );
        blocked_layout!(
            #[doc = concat!("The K^T tile, ", $d, " x ", $bn, ", runs of 8 along the head dimension (dimension 0).")]
            pub $kt = shape [$d, $bn], size_per_thread [8, 1], threads_per_warp [$runs, 32 / $runs], warps_per_cta [1, $warps], order [0, 1]
        );
        blocked_layout!(
            #[doc = concat!("The V tile, ", $bn, " x ", $d, ".")]
            pub $v = shape [$bn, $d], size_per_thread [1, 8], threads_per_warp [32 / $runs, $runs], warps_per_cta [$warps, 1], order [1, 0]
        );
    )*};
}
attention_io! {
    64 64 AttentionQ64 AttentionKt64 AttentionV64 8 4;
    128 64 AttentionQ128 AttentionKt128 AttentionV128 16 8;
    256 32 AttentionQ256 AttentionKt256 AttentionV256 32 8;
}

/// The accumulators of one element type and head dimension, and the [`AttentionTiles`] naming
/// them with the loaded tiles.
macro_rules! attention_tiles {
    ($($tiles:ident $t:ident $atom:ident $warps:ident $d:literal $bn:literal ($q:ident $kt:ident $v:ident) $s:ident $o:ident;)*) => {$(
        dot_layout!(
            #[doc = concat!("The scores `S = Q K^T` (", stringify!($t), ", head dimension ", $d, "), 64 x ", $bn, ".")]
            pub $s = mma TiledMma<$atom, $warps>, shape [64, $bn]
        );
        dot_layout!(
            #[doc = concat!("The output accumulators (", stringify!($t), "), 64 x ", $d, ".")]
            pub $o = mma TiledMma<$atom, $warps>, shape [64, $d]
        );
        #[doc = concat!("The tiles of ", stringify!($t), " at head dimension ", $d, ".")]
        pub struct $tiles;
        impl AttentionTiles<$t> for $tiles {
            const D: i64 = $d;
            const BN: i64 = $bn;
            type Q = $q;
            type Kt = $kt;
            type V = $v;
            type S = $s;
            type O = $o;
        }
    )*};
}
attention_tiles! {
    AttentionF16D64 f16 SM80_16x8x16_F32F16F16F32_TN AttentionWarps 64 64 (AttentionQ64 AttentionKt64 AttentionV64) AttentionSF16D64 AttentionOF16D64;
    AttentionF16D128 f16 SM80_16x8x16_F32F16F16F32_TN AttentionWarpsWide 128 64 (AttentionQ128 AttentionKt128 AttentionV128) AttentionSF16D128 AttentionOF16D128;
    AttentionF16D256 f16 SM80_16x8x16_F32F16F16F32_TN AttentionWarpsWide 256 32 (AttentionQ256 AttentionKt256 AttentionV256) AttentionSF16D256 AttentionOF16D256;
    AttentionBf16D64 bf16 SM80_16x8x16_F32BF16BF16F32_TN AttentionWarps 64 64 (AttentionQ64 AttentionKt64 AttentionV64) AttentionSBf16D64 AttentionOBf16D64;
    AttentionBf16D128 bf16 SM80_16x8x16_F32BF16BF16F32_TN AttentionWarpsWide 128 64 (AttentionQ128 AttentionKt128 AttentionV128) AttentionSBf16D128 AttentionOBf16D128;
    AttentionBf16D256 bf16 SM80_16x8x16_F32BF16BF16F32_TN AttentionWarpsWide 256 32 (AttentionQ256 AttentionKt256 AttentionV256) AttentionSBf16D256 AttentionOBf16D256;
}

/// Element strides of a `(batch, seqlen, heads, head_dim)` array (head_dim's is 1).
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::Strides;
/// // Packed (batch, seqlen, heads, head_dim) = (2, 128, 8, 64):
/// let s = Strides { batch: 128 * 8 * 64, seq: 8 * 64, head: 64 };
/// assert_eq!(s.batch, 128 * s.seq);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strides {
    /// Between batches.
    pub batch: i64,
    /// Between positions in the sequence.
    pub seq: i64,
    /// Between heads.
    pub head: i64,
}

// SAFETY: `#[repr(C)]`: three integers.
unsafe impl cute_rs_tensor::kernel::KernelValue for Strides {}

/// The parameters of a portable attention entry of element type `T`:
/// `O = softmax(scale * Q K^T) V` per (batch, head), with the log-sum-exp of each row.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention::{AttentionParams, Strides};
/// use cute_rs_tensor::half::bf16;
/// let (b, s, h, d) = (1, 64, 2, 64);
/// let (q, k, v) = (vec![bf16::ZERO; b * s * h * d], vec![bf16::ZERO; b * s * h * d], vec![bf16::ZERO; b * s * h * d]);
/// let mut o = vec![bf16::ZERO; b * s * h * d];
/// let mut lse = vec![0f32; b * h * s];
/// let packed = Strides { batch: (s * h * d) as i64, seq: (h * d) as i64, head: d as i64 };
/// let p = AttentionParams {
///     q: q.as_ptr(), k: k.as_ptr(), v: v.as_ptr(), o: o.as_mut_ptr(), lse: lse.as_mut_ptr(),
///     heads: h as i64, heads_kv: h as i64, seqlen_q: s as i64, seqlen_k: s as i64,
///     q_strides: packed, kv_strides: packed,
///     scale: 0.125, causal: 0,
/// };
/// assert_eq!(p.q_strides, p.kv_strides);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AttentionParams<T: 'static> {
    /// Q, `(batch, seqlen_q, heads, head_dim)`.
    pub q: *const T,
    /// K, `(batch, seqlen_k, heads_kv, head_dim)`.
    pub k: *const T,
    /// V, with K's shape and strides.
    pub v: *const T,
    /// O, with Q's shape and strides.
    pub o: *mut T,
    /// The log-sum-exp of each row (natural log), packed `(batch, heads, seqlen_q)`.
    pub lse: *mut f32,
    /// Query heads.
    pub heads: i64,
    /// Key/value heads: `heads / heads_kv` query heads share one (grouped-query attention).
    pub heads_kv: i64,
    /// Query rows.
    pub seqlen_q: i64,
    /// Keys.
    pub seqlen_k: i64,
    /// Q's (and O's) strides.
    pub q_strides: Strides,
    /// K's (and V's) strides.
    pub kv_strides: Strides,
    /// The softmax scale.
    pub scale: f32,
    /// 1: the causal mask aligned to the bottom right (query `i` sees keys up to
    /// `i + seqlen_k - seqlen_q`); 0: none.
    pub causal: u32,
}

// SAFETY: `#[repr(C)]`: scalars, raw pointers and `Strides`.
unsafe impl<T: Copy + 'static> cute_rs_tensor::kernel::KernelValue for AttentionParams<T> {}

/// The attention of program `(block_idx_x, block_idx_y, block_idx_z)`: query block, head, batch.
///
/// # Safety
/// The pointers hold the arrays of the module documentation; every thread of the block calls it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn attention_block<T, A, const BYTES: usize>(p: AttentionParams<T>, scratch: &Scratch<BYTES>)
where
    T: Element + Cast<f32>,
    f32: Cast<T>,
    A: AttentionTiles<T>,
{
    let AttentionParams { q, k, v, o, lse, heads, heads_kv, seqlen_q, seqlen_k, q_strides, kv_strides, scale, causal } = p;
    let causal = causal != 0;
    let (block, h, b) = (block_idx_x() as i64, block_idx_y() as i64, block_idx_z() as i64);
    // Grouped-query attention: `heads / heads_kv` query heads share a key/value head (the host
    // checks that it divides; `max(1)` keeps the division free of a panic path).
    let hk = h / (heads / heads_kv.max(1)).max(1);
    let d = A::D;
    let at = |base: *const T, s: Strides, head: i64| base.wrapping_offset((b * s.batch + head * s.head) as isize) as *mut T;
    let q = LayoutTensor::from_ptr(at(q, q_strides, h), Strided::new([seqlen_q, d], [q_strides.seq, 1]));
    let kt = LayoutTensor::from_ptr(at(k, kv_strides, hk), Strided::new([d, seqlen_k], [1, kv_strides.seq]));
    let v = LayoutTensor::from_ptr(at(v, kv_strides, hk), Strided::new([seqlen_k, d], [kv_strides.seq, 1]));
    let o = LayoutTensor::from_ptr(at(o as *const T, q_strides, h), Strided::new([seqlen_q, d], [q_strides.seq, 1]));
    let lse = LayoutTensor::from_ptr(lse.wrapping_offset(((b * heads + h) * seqlen_q) as isize), Strided::new([seqlen_q, 1], [1, 1]));

    let qk_scale = scale * core::f32::consts::LOG2_E;
    // The causal diagonal: query `i` sees keys `j <= i + seqlen_k - seqlen_q`.
    let shift = seqlen_k - seqlen_q;
    let bn = A::BN;
    let key_blocks = (seqlen_k + bn - 1) / bn;
    let last_key = (block + 1) * ATTENTION_BLOCK - 1 + shift;
    let steps = if causal { key_blocks.min((last_key + bn) / bn).max(0) } else { key_blocks };

    let q_tile = BlockTile::<T, A::Q>::load(&q, [block, 0], T::ZERO);
    let mut m = BlockTile::<f32, Slice<A::S, 1>>::full(f32::NEG_INFINITY);
    let mut l = BlockTile::<f32, Slice<A::S, 1>>::zeros();
    let mut acc = BlockTile::<f32, A::O>::zeros();
    for j in 0..steps {
        let k_tile = BlockTile::<T, A::Kt>::load(&kt, [0, j], T::ZERO);
        let s = dot(&q_tile, &k_tile, BlockTile::<f32, A::S>::zeros(), scratch) * qk_scale;
        // The mask is computed per element from its coordinates (tiles of row and column indices
        // would hold 64-bit registers through the step).
        let (row0, col0) = (block * ATTENTION_BLOCK + shift, j * bn);
        let visible = BlockTile::<bool, A::S>::from_coord(|c| {
            let col = col0 + c[1];
            col < seqlen_k && (!causal || col <= row0 + c[0])
        });
        let s = where_(visible, s, f32::NEG_INFINITY);
        let m_new = m.maximum(s.max::<1, BYTES>(scratch));
        // A row that has seen no key yet keeps `-inf`: subtract 0 instead (its P is 0).
        let m_use = where_(m_new.equal(f32::NEG_INFINITY), 0.0, m_new);
        let p = (s - &m_use).exp2();
        let alpha = (m - &m_use).exp2();
        l = l * &alpha + p.sum::<1, BYTES>(scratch);
        // The rows' factors in the output's layout (the same rows a thread, another type).
        acc = acc * alpha.convert_layout::<Slice<A::O, 1>, BYTES>(scratch);
        let v_tile = BlockTile::<T, A::V>::load(&v, [j, 0], T::ZERO);
        acc = dot(&p.cast::<T>(), &v_tile, acc, scratch);
        m = m_new;
    }
    // Rows that saw no key: O = 0, lse = -inf.
    let inverse = where_(l.gt(0.0), l, f32::INFINITY).map(|x| 1.0 / x);
    (acc * inverse.convert_layout::<Slice<A::O, 1>, BYTES>(scratch)).cast::<T>().store(&o, [block, 0]);
    let ln2 = core::f32::consts::LN_2;
    let row_lse = m.zip(&l, |m, l| if l > 0.0 { (m + log2(l)) * ln2 } else { f32::NEG_INFINITY });
    row_lse.store(&lse, [block, 0]);
}

macro_rules! attention_kernels {
    ($($name:ident $t:ident $tiles:ident $d:tt $threads:tt;)*) => {$(
        #[doc = concat!("Fused attention forward (", stringify!($t), ", head_dim ", $d, ") on block tiles: see the module documentation.")]
        #[cfg(feature = "entries")]
        #[kernel(block($threads), shared_mem(attention_scratch_bytes($d)))]
        pub fn $name(p: AttentionParams<$t>) {
            const BYTES: usize = attention_scratch_bytes($d) as usize;
            const {
                assert!(attention_threads($d) == $threads, "the block of an attention entry must be attention_threads(d)");
                assert!(<$tiles as AttentionTiles<$t>>::BN == attention_block_n($d) as i64, "an attention entry's tiles must take attention_block_n(d) keys");
            };
            let scratch = block_scratch!($name, dynamic BYTES);
            attention_block::<$t, $tiles, BYTES>(p, &scratch);
        }
    )*};
}
attention_kernels! {
    attention_fwd_f16_d64 f16 AttentionF16D64 64 128;
    attention_fwd_f16_d128 f16 AttentionF16D128 128 256;
    attention_fwd_f16_d256 f16 AttentionF16D256 256 256;
    attention_fwd_bf16_d64 bf16 AttentionBf16D64 64 128;
    attention_fwd_bf16_d128 bf16 AttentionBf16D128 128 256;
    attention_fwd_bf16_d256 bf16 AttentionBf16D256 256 256;
}
