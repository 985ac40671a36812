//! Triton's tutorials, ported to block tiles (`cute_rs_tensor::block_tile`): one Triton program is
//! one thread block, one `tl` tile one `BlockTile`, each with the tutorial's block size and warp
//! count (the layouts are the blocked layouts Triton picks for them: 16-byte vectors along the
//! contiguous dimension).
//!
//! - 01 vector add: `out = x + y`, 1024 elements per program, 4 warps.
//! - 02 fused softmax: one row per program, `BLOCK = next_power_of_two(n_cols)`, 8 warps.
//! - 03 matrix multiplication: `C = A B` in f16 or bf16 with f32 accumulators, a 128 x 128 tile
//!   of C per program over K in steps of 32, programs grouped 8 along M for L2 reuse as in the
//!   tutorial, 8 warps. The loop of loads and `tl.dot` is [`dot_range`]: the tiles are copied
//!   into shared memory 3 steps deep (the pipelining Triton's compiler does for `num_stages=3`)
//!   and multiplied on the tensor cores (`mma.sync`). The `_aligned` entries, for rows of whole
//!   16-byte vectors, use [`dot_range_aligned`] and fit two blocks per SM. The `_wgmma` entries
//!   (sm_90a) are the tutorial with the configuration its autotuning picks
//!   (`docs/performance.md`): a 128 x 256 tile, K 64 per step, loads two steps ahead, 8 warps,
//!   `tl.dot` on warpgroup MMA. The `_tma` entries take A and B as arrays with tensor maps
//!   (Triton's tensor descriptors, `desc.load([m, k])`) and use
//!   [`dot_range_tma`](cute_rs_tensor::block_tile::dot_range_tma): one thread copies each step's
//!   tiles with TMA into the panels `wgmma` reads.
//! - 04 low-memory dropout (seeded): `where(rand(seed, offsets) > p, x / (1 - p), 0)`, 1024 per
//!   program, 4 warps.
//! - 05 layer norm forward: one row per program in `BLOCK` chunks (`BLOCK = min(65536 / 2,
//!   next_power_of_two(N))` for f16, `min(max(BLOCK / 256, 1), 8)` warps): the mean, the variance,
//!   then `y = (x - mean) * rstd * w + b`, writing `Mean` and `Rstd` too.
//!
//! Softmax and layer norm come in two entry points, as Triton compiles them twice: `*_aligned`
//! for rows whose length and stride are multiples of the 16-byte vector (Triton's specialization
//! of arguments divisible by 16: whole-vector accesses only, `load_aligned`), and the general one.

use cute_rs_tensor::atom::wgmma::{SM90_64x256x16_F32BF16BF16_SS, SM90_64x256x16_F32F16F16_SS};
use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, TiledMma};
use cute_rs_tensor::block_tile::{dot_range, dot_range_aligned, rand, where_, BlockTile, Cast, DotLayoutOf, Scratch, TvLayout};
#[cfg(feature = "sm90a")]
use cute_rs_tensor::{block_tile::dot_range_tma, tma_copy::TmaArray};
use cute_rs_tensor::device::ids::block_idx_x;
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, kernel, static_layout, Element, LayoutTensor, Strided};

/// Bytes of the block scratch of the tutorials: a reduction across 8 warps of one value per thread
/// needs 256 x 4.
const SCRATCH: usize = 1024;

blocked_layout!(
    /// 01 and 04: 1024 elements over 4 warps, 4 consecutive per thread.
    pub Block1k = shape [1024], size_per_thread [4], threads_per_warp [32], warps_per_cta [4], order [0]
);

/// 01 vector add: program `pid` adds the `pid`-th 1024 elements of `x` and `y` (`n` of them in all;
/// the last program's tile is masked by the arrays' extent).
#[kernel(block(128))]
pub fn tutorial_add(x: *const f32, y: *const f32, out: *mut f32, n: i64) {
    let shape = Strided::row_major([n]);
    let (x, y, out) = (LayoutTensor::from_ptr(x as *mut f32, shape), LayoutTensor::from_ptr(y as *mut f32, shape), LayoutTensor::from_ptr(out, shape));
    let pid = block_idx_x() as i64;
    let sum = BlockTile::<f32, Block1k>::load(&x, [pid], 0.0) + BlockTile::<f32, Block1k>::load(&y, [pid], 0.0);
    sum.store(&out, [pid]);
}

/// 04 seeded dropout: element `i` is kept, scaled by `1 / (1 - p)`, where `rand(seed, i) > p`
/// (Philox, as `tl.rand`), and zeroed otherwise.
#[kernel(block(128))]
pub fn tutorial_dropout(x: *const f32, out: *mut f32, n: i64, p: f32, seed: u64) {
    let shape = Strided::row_major([n]);
    let (x, out) = (LayoutTensor::from_ptr(x as *mut f32, shape), LayoutTensor::from_ptr(out, shape));
    let pid = block_idx_x() as i64;
    let offsets = BlockTile::<i32, Block1k>::arange(0) + (pid * 1024) as i32;
    let keep = rand(seed, offsets).gt(p);
    let x = BlockTile::<f32, Block1k>::load(&x, [pid], 0.0);
    // One division per program; Triton's `x / (1 - p)` is an approximate division per element.
    let scale = 1.0 / (1.0 - p);
    where_(keep, x * scale, 0.0).store(&out, [pid]);
}

/// The softmax of row `row` of `x` into `out` (`n_rows x n_cols`, row strides given), with a tile
/// of `L` (`1 x BLOCK`, `BLOCK >= n_cols`): elements past `n_cols` load as `-inf`.
///
/// # Safety
/// `x` and `out` hold the matrices; every thread of the block calls it.
#[inline(always)]
unsafe fn softmax_row<L: TvLayout, const ALIGNED: bool>(
    x: *const f32,
    out: *mut f32,
    row: i64,
    (n_rows, n_cols): (i64, i64),
    (x_stride, out_stride): (i64, i64),
    scratch: &Scratch<SCRATCH>,
) {
    let x = LayoutTensor::from_ptr(x as *mut f32, Strided::new([n_rows, n_cols], [x_stride, 1]));
    let out = LayoutTensor::from_ptr(out, Strided::new([n_rows, n_cols], [out_stride, 1]));
    let row_tile = if ALIGNED {
        BlockTile::<f32, L>::load_aligned(&x, [row, 0], f32::NEG_INFINITY)
    } else {
        BlockTile::<f32, L>::load(&x, [row, 0], f32::NEG_INFINITY)
    };
    let shifted = row_tile - row_tile.max::<1, SCRATCH>(scratch);
    let numerator = shifted.exp_approx();
    // One division per row (Triton's `numerator / denominator` is an approximate division per
    // element).
    let reciprocal = 1.0 / numerator.sum::<1, SCRATCH>(scratch);
    let y = numerator * reciprocal;
    if ALIGNED {
        y.store_aligned(&out, [row, 0]);
    } else {
        y.store(&out, [row, 0]);
    }
}

macro_rules! softmax_kernels {
    ($($name:ident $aligned:ident $layout:ident $block:literal;)*) => {$(
        blocked_layout!(
            #[doc = concat!("02: a row of up to ", $block, " columns over 8 warps, 4 consecutive per thread.")]
            pub $layout = shape [1, $block], size_per_thread [1, 4], threads_per_warp [1, 32], warps_per_cta [1, 8], order [1, 0]
        );
        #[doc = concat!("02 fused softmax of rows of up to ", $block, " columns: one row per program.")]
        #[kernel(block(256))]
        pub fn $name(x: *const f32, out: *mut f32, x_stride: i64, out_stride: i64, n_rows: i64, n_cols: i64) {
            let scratch = block_scratch!($name, 1024);
            softmax_row::<$layout, false>(x, out, block_idx_x() as i64, (n_rows, n_cols), (x_stride, out_stride), &scratch);
        }
        #[doc = concat!("02 fused softmax of rows of up to ", $block, " columns, lengths and strides multiples of 4.")]
        #[kernel(block(256))]
        pub fn $aligned(x: *const f32, out: *mut f32, x_stride: i64, out_stride: i64, n_rows: i64, n_cols: i64) {
            let scratch = block_scratch!($aligned, 1024);
            softmax_row::<$layout, true>(x, out, block_idx_x() as i64, (n_rows, n_cols), (x_stride, out_stride), &scratch);
        }
    )*};
}
softmax_kernels! {
    tutorial_softmax_1k tutorial_softmax_1k_aligned SoftmaxRow1k 1024;
    tutorial_softmax_4k tutorial_softmax_4k_aligned SoftmaxRow4k 4096;
    tutorial_softmax_16k tutorial_softmax_16k_aligned SoftmaxRow16k 16384;
}

/// Layer norm forward of row `row` with `L` tiles (`1 x BLOCK`, any `n_cols`): `y = (x - mean) *
/// rstd * w + b` in f16, computed in f32, `mean` and `rstd` stored per row.
///
/// # Safety
/// The pointers hold the matrices and vectors; every thread of the block calls it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn layer_norm_row<L: TvLayout, const ALIGNED: bool>(
    x: *const f16,
    y: *mut f16,
    w: *const f16,
    b: *const f16,
    mean_out: *mut f32,
    rstd_out: *mut f32,
    stride: i64,
    (n_rows, n_cols): (i64, i64),
    eps: f32,
    scratch: &Scratch<SCRATCH>,
) {
    let row = block_idx_x() as i64;
    let matrix = Strided::new([n_rows, n_cols], [stride, 1]);
    let (x, y) = (LayoutTensor::from_ptr(x as *mut f16, matrix), LayoutTensor::from_ptr(y, matrix));
    let vector = Strided::row_major([1, n_cols]);
    let (w, b) = (LayoutTensor::from_ptr(w as *mut f16, vector), LayoutTensor::from_ptr(b as *mut f16, vector));
    let per_row = Strided::row_major([n_rows, 1]);
    let (mean_out, rstd_out) = (LayoutTensor::from_ptr(mean_out, per_row), LayoutTensor::from_ptr(rstd_out, per_row));
    let chunks = (n_cols + L::SHAPE[1] - 1) / L::SHAPE[1];
    let load = |a: &LayoutTensor<'_, f16, Strided<2>, _>, index: [i64; 2]| {
        let zero = f16::from_bits(0);
        let tile = if ALIGNED { BlockTile::<f16, L>::load_aligned(a, index, zero) } else { BlockTile::<f16, L>::load(a, index, zero) };
        tile.cast::<f32>()
    };
    let mut total = BlockTile::<f32, L>::zeros();
    for c in 0..chunks {
        total += load(&x, [row, c]);
    }
    let mean = total.sum::<1, SCRATCH>(scratch) / n_cols as f32;
    let mut squares = BlockTile::<f32, L>::zeros();
    for c in 0..chunks {
        let cols = BlockTile::<i32, L>::arange(1) + (c * L::SHAPE[1]) as i32;
        let centered = load(&x, [row, c]) - mean.broadcast::<L>();
        let centered = where_(cols.lt(n_cols as i32), centered, 0.0);
        squares += centered * centered;
    }
    let var = squares.sum::<1, SCRATCH>(scratch) / n_cols as f32;
    let rstd = 1.0 / (var + eps).sqrt();
    mean.store(&mean_out, [row, 0]);
    rstd.store(&rstd_out, [row, 0]);
    for c in 0..chunks {
        let (wc, bc, xc) = (load(&w, [0, c]), load(&b, [0, c]), load(&x, [row, c]));
        let out = ((xc - mean.broadcast::<L>()) * rstd.broadcast::<L>() * wc + bc).cast::<f16>();
        if ALIGNED {
            out.store_aligned(&y, [row, c]);
        } else {
            out.store(&y, [row, c]);
        }
    }
}

macro_rules! layer_norm_kernels {
    ($($name:ident $aligned:ident $layout:ident $block:literal $warps:literal $threads:literal $(blocks $blocks:literal $aligned_blocks:literal)?;)*) => {$(
        blocked_layout!(
            #[doc = concat!("05: a chunk of ", $block, " f16 columns over ", $warps, " warps, 8 consecutive per thread.")]
            pub $layout = shape [1, $block], size_per_thread [1, 8], threads_per_warp [1, 32], warps_per_cta [1, $warps], order [1, 0]
        );
        #[doc = concat!("05 layer norm forward in chunks of ", $block, " columns: one row per program.")]
        #[kernel(block($threads) $(, launch_bounds($threads, $blocks))?)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(x: *const f16, y: *mut f16, w: *const f16, b: *const f16, mean: *mut f32, rstd: *mut f32, stride: i64, n_rows: i64, n_cols: i64, eps: f32) {
            let scratch = block_scratch!($name, 1024);
            layer_norm_row::<$layout, false>(x, y, w, b, mean, rstd, stride, (n_rows, n_cols), eps, &scratch);
        }
        #[doc = concat!("05 layer norm forward in chunks of ", $block, " columns, lengths and strides multiples of 8.")]
        #[kernel(block($threads) $(, launch_bounds($threads, $aligned_blocks))?)]
        #[allow(clippy::too_many_arguments)]
        pub fn $aligned(x: *const f16, y: *mut f16, w: *const f16, b: *const f16, mean: *mut f32, rstd: *mut f32, stride: i64, n_rows: i64, n_cols: i64, eps: f32) {
            let scratch = block_scratch!($aligned, 1024);
            layer_norm_row::<$layout, true>(x, y, w, b, mean, rstd, stride, (n_rows, n_cols), eps, &scratch);
        }
    )*};
}
layer_norm_kernels! {
    tutorial_layer_norm_1k tutorial_layer_norm_1k_aligned LayerNorm1k 1024 4 128 blocks 12 12;
    tutorial_layer_norm_4k tutorial_layer_norm_4k_aligned LayerNorm4k 4096 8 256 blocks 4 5;
    tutorial_layer_norm_8k tutorial_layer_norm_8k_aligned LayerNorm8k 8192 8 256;
}

/// 03: programs along M that sweep N together (the tutorial's `GROUP_SIZE_M`).
const GROUP_SIZE_M: i64 = 8;
/// 03 on `mma.sync`: the loads run this many steps deep (the tutorial's `num_stages`).
const MATMUL_STAGES: usize = 3;
/// 03 on `mma.sync`: the scratch holds `MATMUL_STAGES` slots of both operand tiles, 2 (128 x 32
/// + 32 x 128) bytes each: 48 KiB, the most static shared memory a block may have.
const MATMUL_SCRATCH: usize = 49152;

static_layout!(
    /// 03: 8 warps, 2 along M and 4 along N.
    pub MatmulWarps = "(2,4,1)"
);
static_layout!(
    /// 03: each warp two m16n8k16 atoms along N (one `ldmatrix.x4` of B feeds both).
    pub MatmulAtoms = "(1,2,1)"
);
blocked_layout!(
    /// 03: an A tile, 128 x 32, 16-byte vectors along K.
    pub MatmulA = shape [128, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [8, 1], order [1, 0]
);
blocked_layout!(
    /// 03: a B tile, 32 x 128, 16-byte vectors along N.
    pub MatmulB = shape [32, 128], size_per_thread [1, 8], threads_per_warp [2, 16], warps_per_cta [8, 1], order [1, 0]
);
dot_layout!(
    /// 03: the f16 accumulators, 128 x 128.
    pub MatmulAccF16 = mma TiledMma<SM80_16x8x16_F32F16F16F32_TN, MatmulWarps, MatmulAtoms>, shape [128, 128]
);
dot_layout!(
    /// 03: the bf16 accumulators, 128 x 128.
    pub MatmulAccBf16 = mma TiledMma<SM80_16x8x16_F32BF16BF16F32_TN, MatmulWarps, MatmulAtoms>, shape [128, 128]
);

/// 03 on `wgmma`: the ring's slots. The tutorial's first configuration (128 x 256 x 64, 8 warps,
/// `num_stages=3`, which its autotuning picks) keeps two steps of loads in flight;
/// `dot_range` on `wgmma` does with 4 slots, the other two holding the steps whose products may
/// still be running.
pub const WG_MATMUL_STAGES: usize = 4;
/// 03 on `wgmma`: 4 slots of 2 (128 x 64 + 64 x 256) bytes, 192 KiB of dynamic shared memory.
pub const WG_MATMUL_SCRATCH: usize = 196608;
blocked_layout!(
    /// 03 on `wgmma`: an A tile, 128 x 64, 16-byte vectors along K.
    pub WgMatmulA = shape [128, 64], size_per_thread [1, 8], threads_per_warp [4, 8], warps_per_cta [8, 1], order [1, 0]
);
blocked_layout!(
    /// 03 on `wgmma`: a B tile, 64 x 256, 16-byte vectors along N.
    pub WgMatmulB = shape [64, 256], size_per_thread [1, 8], threads_per_warp [1, 32], warps_per_cta [8, 1], order [1, 0]
);
dot_layout!(
    /// 03 on `wgmma`: the f16 accumulators, 128 x 256: two warpgroups of m64n256k16.
    pub WgMatmulAccF16 = wgmma SM90_64x256x16_F32F16F16_SS, shape [128, 256]
);
dot_layout!(
    /// 03 on `wgmma`: the bf16 accumulators, 128 x 256.
    pub WgMatmulAccBf16 = wgmma SM90_64x256x16_F32BF16BF16_SS, shape [128, 256]
);

/// 03: the tile `(pid_m, pid_n)` of C (`m x n`, tiles `bm x bn`) program `block_idx_x`
/// computes, in the tutorial's grouped ordering: consecutive programs share A's rows and sweep N.
#[inline(always)]
fn grouped_tile(m: i64, n: i64, bm: i64, bn: i64) -> (i64, i64) {
    let pid = block_idx_x() as i64;
    let (num_pid_m, num_pid_n) = ((m + bm - 1) / bm, (n + bn - 1) / bn);
    // The divisors are at least 1 (`max(1)`, which LLVM sees): no division-by-zero panic path,
    // whose call would make ptxas serialize the `wgmma` entries' products.
    let num_pid_in_group = (GROUP_SIZE_M * num_pid_n).max(1);
    let first_pid_m = pid / num_pid_in_group * GROUP_SIZE_M;
    let group_size_m = (num_pid_m - first_pid_m).clamp(1, GROUP_SIZE_M);
    (first_pid_m + (pid % num_pid_in_group) % group_size_m, (pid % num_pid_in_group) / group_size_m)
}

/// 03: program `block_idx_x` computes its tile of `C = A B` (`m x k` times `k x n`, the given
/// strides, any extents: tiles past the edges load zeros and store nothing there), its tile
/// `LC`'s shape, K `LA`'s last extent per step, through `STAGES` slots of the scratch.
///
/// # Safety
/// The pointers hold the matrices; every thread of the block calls it.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn matmul<T, LA, LB, LC, const STAGES: usize, const BYTES: usize, const ALIGNED: bool>(
    a: *const T,
    b: *const T,
    c: *mut T,
    (m, n, k): (i64, i64, i64),
    (stride_am, stride_ak): (i64, i64),
    (stride_bk, stride_bn): (i64, i64),
    (stride_cm, stride_cn): (i64, i64),
    scratch: &Scratch<BYTES>,
) where
    T: Element,
    f32: Cast<T>,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    let bk = LA::SHAPE[1];
    let (pid_m, pid_n) = grouped_tile(m, n, LC::SHAPE[0], LC::SHAPE[1]);

    let a = LayoutTensor::from_ptr(a as *mut T, Strided::new([m, k], [stride_am, stride_ak]));
    let b = LayoutTensor::from_ptr(b as *mut T, Strided::new([k, n], [stride_bk, stride_bn]));
    let c = LayoutTensor::from_ptr(c, Strided::new([m, n], [stride_cm, stride_cn]));
    // The tutorial's loop, `acc = tl.dot(a, b, acc)` over K with its loads pipelined.
    let steps = (k + bk - 1) / bk;
    let (a_at, b_at) = (|kt| [pid_m, kt], |kt| [kt, pid_n]);
    let acc = if ALIGNED {
        dot_range_aligned::<STAGES, T, LA, LB, LC, BYTES>(steps, &a, a_at, &b, b_at, BlockTile::zeros(), scratch)
    } else {
        dot_range::<STAGES, T, LA, LB, LC, BYTES>(steps, &a, a_at, &b, b_at, BlockTile::zeros(), scratch)
    };
    acc.cast::<T>().store(&c, [pid_m, pid_n]);
}

macro_rules! matmul_kernels {
    ($($name:ident $aligned:ident $t:ty, $acc:ty;)*) => {$(
        #[doc = concat!("03 matrix multiplication in ", stringify!($t), ": one 128 x 128 tile of C per program, grouped 8 along M.")]
        #[kernel(block(256))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            a: *const $t, b: *const $t, c: *mut $t, m: i64, n: i64, k: i64,
            stride_am: i64, stride_ak: i64, stride_bk: i64, stride_bn: i64, stride_cm: i64, stride_cn: i64,
        ) {
            let scratch = block_scratch!($name, MATMUL_SCRATCH);
            matmul::<$t, MatmulA, MatmulB, $acc, MATMUL_STAGES, MATMUL_SCRATCH, false>(a, b, c, (m, n, k), (stride_am, stride_ak), (stride_bk, stride_bn), (stride_cm, stride_cn), &scratch);
        }
        #[doc = concat!("03 matrix multiplication in ", stringify!($t), ", A and B with unit last strides and row strides multiples of 8 (16-byte copies only; two blocks per SM).")]
        #[kernel(block(256), launch_bounds(256, 2))]
        #[allow(clippy::too_many_arguments)]
        pub fn $aligned(
            a: *const $t, b: *const $t, c: *mut $t, m: i64, n: i64, k: i64,
            stride_am: i64, stride_ak: i64, stride_bk: i64, stride_bn: i64, stride_cm: i64, stride_cn: i64,
        ) {
            let scratch = block_scratch!($aligned, MATMUL_SCRATCH);
            matmul::<$t, MatmulA, MatmulB, $acc, MATMUL_STAGES, MATMUL_SCRATCH, true>(a, b, c, (m, n, k), (stride_am, stride_ak), (stride_bk, stride_bn), (stride_cm, stride_cn), &scratch);
        }
    )*};
}
matmul_kernels! {
    tutorial_matmul_f16 tutorial_matmul_f16_aligned f16, MatmulAccF16;
    tutorial_matmul_bf16 tutorial_matmul_bf16_aligned bf16, MatmulAccBf16;
}

/// 03 on Hopper's `wgmma` (sm_90a builds; the CPU backend runs the same kernels' portable
/// products): a 128 x 256 tile of C per program, K 64 per step, 3 steps deep, 8 warps.
#[cfg(feature = "sm90a")]
macro_rules! wgmma_matmul_kernels {
    ($($name:ident $aligned:ident $t:ty, $acc:ty;)*) => {$(
        #[doc = concat!("03 matrix multiplication in ", stringify!($t), " on wgmma: one 128 x 256 tile of C per program, grouped 8 along M.")]
        #[kernel(block(256), shared_mem(WG_MATMUL_SCRATCH as u32))]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            a: *const $t, b: *const $t, c: *mut $t, m: i64, n: i64, k: i64,
            stride_am: i64, stride_ak: i64, stride_bk: i64, stride_bn: i64, stride_cm: i64, stride_cn: i64,
        ) {
            let scratch = block_scratch!($name, dynamic WG_MATMUL_SCRATCH);
            matmul::<$t, WgMatmulA, WgMatmulB, $acc, WG_MATMUL_STAGES, WG_MATMUL_SCRATCH, false>(a, b, c, (m, n, k), (stride_am, stride_ak), (stride_bk, stride_bn), (stride_cm, stride_cn), &scratch);
        }
        #[doc = concat!("03 matrix multiplication in ", stringify!($t), " on wgmma, A and B with unit last strides and row strides multiples of 8 (16-byte copies only).")]
        #[kernel(block(256), shared_mem(WG_MATMUL_SCRATCH as u32))]
        #[allow(clippy::too_many_arguments)]
        pub fn $aligned(
            a: *const $t, b: *const $t, c: *mut $t, m: i64, n: i64, k: i64,
            stride_am: i64, stride_ak: i64, stride_bk: i64, stride_bn: i64, stride_cm: i64, stride_cn: i64,
        ) {
            let scratch = block_scratch!($aligned, dynamic WG_MATMUL_SCRATCH);
            matmul::<$t, WgMatmulA, WgMatmulB, $acc, WG_MATMUL_STAGES, WG_MATMUL_SCRATCH, true>(a, b, c, (m, n, k), (stride_am, stride_ak), (stride_bk, stride_bn), (stride_cm, stride_cn), &scratch);
        }
    )*};
}
/// 03 with TMA: program `block_idx_x` computes its tile of `C = A B` (`a` `m x k`, `b` `k x n`,
/// their maps made for `LA`'s and `LB`'s tiles by `Gpu::tma_dot_operand`; C with the given
/// strides), its tile `LC`'s shape, K `LA`'s last extent per step, through `STAGES` slots.
///
/// # Safety
/// `c` holds C; every thread of the block calls it.
#[cfg(feature = "sm90a")]
#[inline(always)]
unsafe fn matmul_tma<T, LA, LB, LC, const STAGES: usize, const BYTES: usize>(
    a: &TmaArray<T, 2>,
    b: &TmaArray<T, 2>,
    c: *mut T,
    (stride_cm, stride_cn): (i64, i64),
    scratch: &Scratch<BYTES>,
) where
    T: Element,
    f32: Cast<T>,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    let ([m, k], n) = (a.tensor().source().shape, b.tensor().source().shape[1]);
    let (pid_m, pid_n) = grouped_tile(m, n, LC::SHAPE[0], LC::SHAPE[1]);
    let c = LayoutTensor::from_ptr(c, Strided::new([m, n], [stride_cm, stride_cn]));
    let steps = (k + LA::SHAPE[1] - 1) / LA::SHAPE[1];
    let acc = dot_range_tma::<STAGES, T, LA, LB, LC, BYTES>(steps, a, |kt| [pid_m, kt], b, |kt| [kt, pid_n], BlockTile::zeros(), scratch);
    acc.cast::<T>().store(&c, [pid_m, pid_n]);
}

/// 03 on `wgmma` with TMA: the ring's slots and their barriers, 4 (48 KiB + 8 bytes).
pub const WG_MATMUL_TMA_SCRATCH: usize = WG_MATMUL_SCRATCH + 8 * WG_MATMUL_STAGES;

/// 03 on `wgmma` with TMA copies (sm_90a): the `_wgmma` entries' configuration, A and B given
/// as arrays with their tensor maps.
#[cfg(feature = "sm90a")]
macro_rules! wgmma_tma_matmul_kernels {
    ($($name:ident $t:ty, $acc:ty;)*) => {$(
        #[doc = concat!("03 matrix multiplication in ", stringify!($t), " on wgmma with TMA copies: one 128 x 256 tile of C per program, grouped 8 along M.")]
        #[kernel(block(256), shared_mem(WG_MATMUL_TMA_SCRATCH as u32))]
        pub fn $name(a: TmaArray<$t, 2>, b: TmaArray<$t, 2>, c: *mut $t, stride_cm: i64, stride_cn: i64) {
            let scratch = block_scratch!($name, dynamic WG_MATMUL_TMA_SCRATCH);
            matmul_tma::<$t, WgMatmulA, WgMatmulB, $acc, WG_MATMUL_STAGES, WG_MATMUL_TMA_SCRATCH>(&a, &b, c, (stride_cm, stride_cn), &scratch);
        }
    )*};
}
#[cfg(feature = "sm90a")]
wgmma_tma_matmul_kernels! {
    tutorial_matmul_wgmma_f16_tma f16, WgMatmulAccF16;
    tutorial_matmul_wgmma_bf16_tma bf16, WgMatmulAccBf16;
}

#[cfg(feature = "sm90a")]
wgmma_matmul_kernels! {
    tutorial_matmul_wgmma_f16 tutorial_matmul_wgmma_f16_aligned f16, WgMatmulAccF16;
    tutorial_matmul_wgmma_bf16 tutorial_matmul_wgmma_bf16_aligned bf16, WgMatmulAccBf16;
}

blocked_layout!(
    /// A 64 x 64 tile read along rows: 16-byte vectors, 4 warps.
    pub TransposeRows = shape [64, 64], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [4, 1], order [1, 0]
);

/// A matrix transpose with block tiles: program `(i, j)` loads tile `(i, j)` of `x` (`rows x
/// cols`, row-major) along its rows, transposes it through shared memory (`tl.trans`) into the
/// same row layout of the transposed tile, and stores it as tile `(j, i)` of `out` (`cols x rows`).
#[kernel(block(128))]
pub fn block_tile_transpose(x: *const f32, out: *mut f32, rows: i64, cols: i64, tiles_along_cols: i64) {
    let scratch = block_scratch!(TRANSPOSE_SCRATCH, 16384);
    let (x, out) = (LayoutTensor::from_ptr(x as *mut f32, Strided::row_major([rows, cols])), LayoutTensor::from_ptr(out, Strided::row_major([cols, rows])));
    let pid = block_idx_x() as i64;
    let (i, j) = (pid / tiles_along_cols, pid % tiles_along_cols);
    let tile = BlockTile::<f32, TransposeRows>::load(&x, [i, j], 0.0);
    tile.trans::<TransposeRows, 16384>(&scratch).store(&out, [j, i]);
}

blocked_layout!(
    /// `dot` on `wgmma` with register operands: an A tile, 64 x 32, 16-byte vectors along K.
    pub DotWgA = shape [64, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [4, 1], order [1, 0]
);
blocked_layout!(
    /// A B tile, 32 x 128, 4-element runs along N (staged with 8-byte stores).
    pub DotWgB = shape [32, 128], size_per_thread [1, 4], threads_per_warp [1, 32], warps_per_cta [4, 1], order [1, 0]
);
dot_layout!(
    /// One warpgroup of m64n128k16: the accumulators, 64 x 128.
    pub DotWgAcc = wgmma cute_rs_tensor::atom::wgmma::SM90_64x128x16_F32F16F16_SS, shape [64, 128]
);

/// `C = A B` (f16 `m x k` times `k x n`, row-major; C f32) with `dot` on register tiles, one
/// product per 32-deep step into the accumulator of one warpgroup's `wgmma` (sm_90a; the CPU
/// backend runs the portable products): program `block_idx_x` computes C's 64 x 128 tile
/// `(pid / tiles_along_n, pid % tiles_along_n)`.
#[cfg(feature = "sm90a")]
#[kernel(block(128))]
pub fn block_tile_dot_wgmma(a: *const f16, b: *const f16, c: *mut f32, m: i64, n: i64, k: i64, tiles_along_n: i64) {
    let scratch = block_scratch!(DOT_WGMMA_SCRATCH, 12288);
    let a = LayoutTensor::from_ptr(a as *mut f16, Strided::row_major([m, k]));
    let b = LayoutTensor::from_ptr(b as *mut f16, Strided::row_major([k, n]));
    let c = LayoutTensor::from_ptr(c, Strided::row_major([m, n]));
    let pid = block_idx_x() as i64;
    // Divisors provably nonzero: no panic path (a call would serialize the wgmmas).
    let tiles_along_n = tiles_along_n.max(1);
    let (i, j) = (pid / tiles_along_n, pid % tiles_along_n);
    let mut acc = BlockTile::<f32, DotWgAcc>::zeros();
    for kk in 0..(k + 31) / 32 {
        let ta = BlockTile::<f16, DotWgA>::load(&a, [i, kk], f16::ZERO);
        let tb = BlockTile::<f16, DotWgB>::load(&b, [kk, j], f16::ZERO);
        acc = cute_rs_tensor::block_tile::dot(&ta, &tb, acc, &scratch);
    }
    acc.store(&c, [i, j]);
}
