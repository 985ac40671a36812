//! Fused attention forward on block tiles (FlashAttention-2's algorithm, as Triton's
//! fused-attention tutorial writes it), on `mma.sync`: the portable version, which the CPU backend
//! runs too. Head dimension 64 (at 128 the tiles held through a step exceed the 255 registers a
//! thread of this layout).
//!
//! One program computes a block of 64 query rows of one (batch, head): it loads its Q tile once,
//! then walks the key/value blocks of 64 rows: `S = Q K^T` on the tensor cores (`dot`), scaled
//! into base 2 (`scale * log2(e)`) and masked (keys past `seqlen_k`, and with `causal` the keys
//! after the query's diagonal, aligned to the bottom right as FlashAttention does when the lengths
//! differ), the online softmax (running row maximum `m`, row sum `l`, `P = exp2(S - m)`, the output
//! rescaled by `exp2(m_old - m)`), and `O += P V` with P rounded to 16 bits. At the end `O / l` is
//! stored with the log-sum-exp of each row (natural log, of the scaled scores), `-inf` and zeros
//! for a row that sees no key.
//!
//! Q, K, V and O are `(batch, seqlen, heads, head_dim)` arrays with unit `head_dim` stride (other
//! strides given, the same for Q and O, and for K and V); K and V have `heads_kv` heads, which divide `heads` (grouped-query attention:
//! query head `h` reads key/value head `h / (heads / heads_kv)`); the log-sum-exp is
//! `(batch, heads, seqlen_q)`, contiguous. Grid `(ceil(seqlen_q / 64), heads, batch)`, 128
//! threads.

use layout_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN, TiledMma};
use layout_tensor::block_tile::{dot, where_, BlockTile, Scratch, Slice, TvLayout};
use layout_tensor::device::ids::{block_idx_x, block_idx_y, block_idx_z};
use layout_tensor::device::math::log2;
use layout_tensor::half::f16;
use layout_tensor::{block_scratch, blocked_layout, dot_layout, kernel, static_layout, LayoutTensor, Strided};

/// Query rows per program, and key/value rows per step.
pub const ATTENTION_BLOCK: i64 = 64;
/// The scratch of the products (both operand tiles, 2 (64 D + D 64) bytes at D = 64) and the
/// row reductions.
const ATTENTION_SCRATCH: usize = 16384;

static_layout!(
    /// 4 warps stacked along the query rows (16 rows each).
    pub AttentionWarps = "(4,1,1)"
);

/// The tiles of one head dimension `D`: Q (`64 x D`, 16-byte vectors along D), K^T (`D x 64`,
/// runs along D, K's contiguous dimension), V (`64 x D`), and the accumulators of S (`64 x 64`)
/// and O (`64 x D`).
pub trait AttentionTiles {
    /// The head dimension.
    const D: i64;
    /// The Q tile.
    type Q: TvLayout;
    /// The K^T tile.
    type Kt: TvLayout;
    /// The V tile.
    type V: TvLayout;
    /// The O accumulator.
    type O: layout_tensor::block_tile::DotLayoutOf<f16>;
}

dot_layout!(
    /// The scores `S = Q K^T`, 64 x 64: one m16n8k16 atom per warp along M, eight along N.
    pub AttentionS = mma TiledMma<SM80_16x8x16_F32F16F16F32_TN, AttentionWarps>, shape [64, 64]
);

macro_rules! attention_tiles {
    ($($tiles:ident $d:literal $q:ident $kt:ident $v:ident $o:ident $threads_d:literal;)*) => {$(
        blocked_layout!(
            #[doc = concat!("The Q tile, 64 x ", $d, ".")]
            pub $q = shape [64, $d], size_per_thread [1, 8], threads_per_warp [32 / $threads_d, $threads_d], warps_per_cta [4, 1], order [1, 0]
        );
        blocked_layout!(
            #[doc = concat!("The K^T tile, ", $d, " x 64, runs of 8 along the head dimension (dimension 0).")]
            pub $kt = shape [$d, 64], size_per_thread [8, 1], threads_per_warp [$threads_d, 32 / $threads_d], warps_per_cta [1, 4], order [0, 1]
        );
        blocked_layout!(
            #[doc = concat!("The V tile, 64 x ", $d, ".")]
            pub $v = shape [64, $d], size_per_thread [1, 8], threads_per_warp [32 / $threads_d, $threads_d], warps_per_cta [4, 1], order [1, 0]
        );
        dot_layout!(
            #[doc = concat!("The output accumulators, 64 x ", $d, ".")]
            pub $o = mma TiledMma<SM80_16x8x16_F32F16F16F32_TN, AttentionWarps>, shape [64, $d]
        );
        #[doc = concat!("The tiles of head dimension ", $d, ".")]
        pub struct $tiles;
        impl AttentionTiles for $tiles {
            const D: i64 = $d;
            type Q = $q;
            type Kt = $kt;
            type V = $v;
            type O = $o;
        }
    )*};
}
attention_tiles! {
    AttentionD64 64 AttentionQ64 AttentionKt64 AttentionV64 AttentionO64 8;
}

/// Element strides of a `(batch, seqlen, heads, head_dim)` array (head_dim's is 1).
#[derive(Clone, Copy)]
struct Strides {
    batch: i64,
    seq: i64,
    head: i64,
}

/// The attention of program `(block_idx_x, block_idx_y, block_idx_z)`: query block, head, batch.
///
/// # Safety
/// The pointers hold the arrays of the module documentation; every thread of the block calls it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn attention_block<A: AttentionTiles>(
    (q, k, v, o, lse): (*const f16, *const f16, *const f16, *mut f16, *mut f32),
    (heads, heads_kv): (i64, i64),
    (seqlen_q, seqlen_k): (i64, i64),
    (q_strides, kv_strides): (Strides, Strides),
    scale: f32,
    causal: bool,
    scratch: &Scratch<ATTENTION_SCRATCH>,
) {
    let (block, h, b) = (block_idx_x() as i64, block_idx_y() as i64, block_idx_z() as i64);
    // Grouped-query attention: `heads / heads_kv` query heads share a key/value head (the host
    // checks that it divides; `max(1)` keeps the division free of a panic path).
    let hk = h / (heads / heads_kv.max(1)).max(1);
    let d = A::D;
    let at = |base: *const f16, s: Strides, head: i64| base.wrapping_offset((b * s.batch + head * s.head) as isize) as *mut f16;
    let q = LayoutTensor::from_ptr(at(q, q_strides, h), Strided::new([seqlen_q, d], [q_strides.seq, 1]));
    let kt = LayoutTensor::from_ptr(at(k, kv_strides, hk), Strided::new([d, seqlen_k], [1, kv_strides.seq]));
    let v = LayoutTensor::from_ptr(at(v, kv_strides, hk), Strided::new([seqlen_k, d], [kv_strides.seq, 1]));
    let o = LayoutTensor::from_ptr(at(o as *const f16, q_strides, h), Strided::new([seqlen_q, d], [q_strides.seq, 1]));
    let lse = LayoutTensor::from_ptr(lse.wrapping_offset(((b * heads + h) * seqlen_q) as isize), Strided::new([seqlen_q, 1], [1, 1]));

    let qk_scale = scale * core::f32::consts::LOG2_E;
    // The causal diagonal: query `i` sees keys `j <= i + seqlen_k - seqlen_q`.
    let shift = seqlen_k - seqlen_q;
    let key_blocks = (seqlen_k + ATTENTION_BLOCK - 1) / ATTENTION_BLOCK;
    let last_key = (block + 1) * ATTENTION_BLOCK - 1 + shift;
    let steps = if causal { key_blocks.min((last_key + ATTENTION_BLOCK) / ATTENTION_BLOCK).max(0) } else { key_blocks };

    let q_tile = BlockTile::<f16, A::Q>::load(&q, [block, 0], f16::from_bits(0));
    let mut m = BlockTile::<f32, Slice<AttentionS, 1>>::full(f32::NEG_INFINITY);
    let mut l = BlockTile::<f32, Slice<AttentionS, 1>>::zeros();
    let mut acc = BlockTile::<f32, A::O>::zeros();
    for j in 0..steps {
        let k_tile = BlockTile::<f16, A::Kt>::load(&kt, [0, j], f16::from_bits(0));
        let s = dot(&q_tile, &k_tile, BlockTile::<f32, AttentionS>::zeros(), scratch) * qk_scale;
        // The mask is computed per element from its coordinates (tiles of row and column indices
        // would hold 64-bit registers through the step).
        let (row0, col0) = (block * ATTENTION_BLOCK + shift, j * ATTENTION_BLOCK);
        let visible = BlockTile::<bool, AttentionS>::from_coord(|c| {
            let col = col0 + c[1];
            col < seqlen_k && (!causal || col <= row0 + c[0])
        });
        let s = where_(visible, s, f32::NEG_INFINITY);
        let m_new = m.maximum(s.max::<1, ATTENTION_SCRATCH>(scratch));
        // A row that has seen no key yet keeps `-inf`: subtract 0 instead (its P is 0).
        let m_use = where_(m_new.equal(f32::NEG_INFINITY), 0.0, m_new);
        let p = (s - &m_use).exp2();
        let alpha = (m - &m_use).exp2();
        l = l * &alpha + p.sum::<1, ATTENTION_SCRATCH>(scratch);
        // The rows' factors in the output's layout (the same rows a thread, another type).
        acc = acc * alpha.convert_layout::<Slice<A::O, 1>, ATTENTION_SCRATCH>(scratch);
        let v_tile = BlockTile::<f16, A::V>::load(&v, [j, 0], f16::from_bits(0));
        acc = dot(&p.cast::<f16>(), &v_tile, acc, scratch);
        m = m_new;
    }
    // Rows that saw no key: O = 0, lse = -inf.
    let inverse = where_(l.gt(0.0), l, f32::INFINITY).map(|x| 1.0 / x);
    (acc * inverse.convert_layout::<Slice<A::O, 1>, ATTENTION_SCRATCH>(scratch)).cast::<f16>().store(&o, [block, 0]);
    let ln2 = core::f32::consts::LN_2;
    let row_lse = m.zip(&l, |m, l| if l > 0.0 { (m + log2(l)) * ln2 } else { f32::NEG_INFINITY });
    row_lse.store(&lse, [block, 0]);
}

macro_rules! attention_kernels {
    ($($name:ident $tiles:ident;)*) => {$(
        #[doc = concat!("Fused attention forward (f16, head_dim ", stringify!($tiles), ") on block tiles: see the module documentation.")]
        #[kernel(block(128))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            q: *const f16, k: *const f16, v: *const f16, o: *mut f16, lse: *mut f32,
            heads: i64, heads_kv: i64, seqlen_q: i64, seqlen_k: i64,
            q_batch: i64, q_seq: i64, q_head: i64, kv_batch: i64, kv_seq: i64, kv_head: i64,
            scale: f32, causal: u32,
        ) {
            let scratch = block_scratch!($name, ATTENTION_SCRATCH);
            let s = |batch, seq, head| Strides { batch, seq, head };
            attention_block::<$tiles>(
                (q, k, v, o, lse),
                (heads, heads_kv),
                (seqlen_q, seqlen_k),
                (s(q_batch, q_seq, q_head), s(kv_batch, kv_seq, kv_head)),
                scale,
                causal != 0,
                &scratch,
            );
        }
    )*};
}
attention_kernels! {
    attention_fwd_d64 AttentionD64;
}
