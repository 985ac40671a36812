//! The steps that led to the Hopper GEMM of `cute-rs-kernels` (`gemm_sm90`), each an entry so
//! that the GPU suite can check and time it (`docs/performance.md` has what each step gave). They
//! compose that crate's building blocks; the operations' modules ship only the last step's
//! entries, those a call can choose.
//!
//! 1. one warpgroup per 128 x 128 tile (two m64 slices), all threads waiting on one full barrier
//!    per stage ([`gemm_sm90_bf16_tn`]); two warpgroups per 128 x 256 tile (one m64n256 slice
//!    each, [`gemm_sm90_bf16_tn_128x256`]);
//! 2. warp specialization: a producer warpgroup (one thread issues the TMA loads) and two consumer
//!    warpgroups with full/empty barriers per stage, registers moved with `setmaxnreg` under
//!    launch bounds ([`gemm_sm90_bf16_tn_ws`]);
//! 3. persistent blocks walking the tiles in `TileOrder`, the producer running ahead across
//!    tiles ([`gemm_sm90_bf16_tn_p`]); clusters of two blocks along M sharing B through TMA
//!    multicast, each consumer warpgroup releasing a stage on both blocks
//!    ([`gemm_sm90_bf16_tn_pc2`]);
//! 4. the stmatrix + TMA-store epilogue for a 16-bit D (the `_tma` entries), which the
//!    operations' entries use.
//!
//! All read bf16 `A` M x K and `B` N x K row-major (both K-major) through tensor maps by value
//! (boxes of 64 K x the tile's rows, 128-byte swizzle, zero fill). `K` is a multiple of 8 (16-byte
//! rows for TMA), checked by the host.

// On the host only the kernels' typed constants exist (`#[kernel(gpu_only)]`).
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]

#[cfg(target_arch = "nvptx64")]
use cute_rs_kernels::gemm_sm90::{gemm_persistent, gemm_tile, gemm_tile_ws};
use cute_rs_kernels::gemm_sm90::{Epilogue, GemmParams, P128x256, Split, Stages, P_STAGES};
use cute_rs_kernels::gemm_sm90_sizes::{
    GemmSm90Shape, TileOrder, GEMM_SM90_128X128, GEMM_SM90_128X256, GEMM_SM90_P_128X256, GEMM_SM90_WS_128X256,
};
use cute_rs_tensor::atom::wgmma::{KMajor, SM90_64x128x16_F32BF16BF16_SS, SM90_64x256x16_F32BF16BF16_SS};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y};
use cute_rs_tensor::device::sync::Mbarrier;
use cute_rs_tensor::device::tma::TmaDescriptorParam;
use cute_rs_tensor::{dynamic_shared, kernel, shared_array};

/// The non-specialized entries: one each, the same parameters, a tile shape, its ring, and the
/// wgmma atom of its width (`R` accumulators per slice, `TWO` slices per warpgroup).
macro_rules! gemm_sm90_tile_kernels {
    ($(
        $(#[$attr:meta])*
        $name:ident: $shape:ident, $ring:ident, $full:ident, <$atom:ty, $r:literal, $two:literal>;
    )*) => {$(
        $(#[$attr])*
        #[kernel(gpu_only)]
        pub fn $name(
            a_map: TmaDescriptorParam,
            b_map: TmaDescriptorParam,
            c: *const f32,
            d: *mut f32,
            m: u32,
            n: u32,
            k: u32,
            alpha: f32,
            beta: f32,
        ) {
            const S: GemmSm90Shape = $shape;
            type Ring = Stages<{ S.stages as usize }, { (S.bm * 128) as usize }, { (S.bn * 128) as usize }>;
            const { assert!(core::mem::size_of::<Ring>() == S.smem_bytes() as usize, "the launch's dynamic shared memory holds the stages") };
            let stages = dynamic_shared!($ring: u8, align 1024).as_mut_ptr() as *mut Ring;
            let bars = shared_array!($full: [u64; S.stages as usize], align 8);
            // SAFETY: the array's mbarriers, aligned.
            let bars = &*(bars.as_mut_ptr() as *const [Mbarrier; S.stages as usize]);
            let out = Epilogue::new(m, n, alpha, beta, c, d);
            gemm_tile::<$atom, $r, $two, { S.stages as usize }, { (S.bm * 128) as usize }, { (S.bn * 128) as usize }>(S, a_map.as_ptr(), b_map.as_ptr(), out, k, stages, bars);
        }
    )*};
}

gemm_sm90_tile_kernels! {
    /// `D = alpha * A * B^T + beta * C` for `C` and `D` M x N row-major f32 (`c` is read only
    /// when `beta != 0`), with [`GEMM_SM90_128X128`] tiles (`B` boxes of 64 x 128): block of 128
    /// threads, grid `(ceil(N / 128), ceil(M / 128))`, its `smem_bytes()` of dynamic shared
    /// memory.
    gemm_sm90_bf16_tn: GEMM_SM90_128X128, GEMM_SM90_RING, GEMM_SM90_FULL, <SM90_64x128x16_F32BF16BF16_SS, 64, true>;
    /// [`gemm_sm90_bf16_tn`] with [`GEMM_SM90_128X256`] tiles: `B` boxes of 64 x 256, block of
    /// 256 threads (two warpgroups), grid `(ceil(N / 256), ceil(M / 128))`.
    gemm_sm90_bf16_tn_128x256: GEMM_SM90_128X256, GEMM_SM90_RING_256, GEMM_SM90_FULL_256, <SM90_64x256x16_F32BF16BF16_SS, 128, false>;
}

/// [`gemm_sm90_bf16_tn`] with [`GEMM_SM90_WS_128X256`]: warp-specialized (a producer and two
/// consumer warpgroups, registers moved from the producer to the consumers with `setmaxnreg`:
/// the launch bounds fix 168 per thread at entry), block of 384 threads, grid
/// `(ceil(N / 256), ceil(M / 128))`.
#[kernel(launch_bounds(384, 1), gpu_only)]
pub fn gemm_sm90_bf16_tn_ws(
    a_map: TmaDescriptorParam,
    b_map: TmaDescriptorParam,
    c: *const f32,
    d: *mut f32,
    m: u32,
    n: u32,
    k: u32,
    alpha: f32,
    beta: f32,
) {
    const { assert!(GEMM_SM90_WS_128X256.stages == P_STAGES && GEMM_SM90_WS_128X256.bm == GEMM_SM90_P_128X256.bm) };
    let out = Epilogue::new(m, n, alpha, beta, c, d);
    // Not persistent: the block's one tile, (row, column) = (block y, block x), which is tile
    // `y * tiles_n + x` of the row-by-row order (bands of one row).
    let order = TileOrder::new(m, n, GEMM_SM90_WS_128X256.bm, GEMM_SM90_WS_128X256.bn, 1);
    let first = block_idx_y() * order.tiles_n + block_idx_x();
    gemm_tile_ws::<f32, SM90_64x256x16_F32BF16BF16_SS, P128x256, P_STAGES, 128, 1, false, false, false>(a_map.as_ptr(), b_map.as_ptr(), core::ptr::null(), out, k, order, Split::NONE, first, order.count());
}

/// The persistent steps: the operations' persistent body (`gemm_persistent`) with
/// [`GEMM_SM90_P_128X256`] tiles, both operands K-major, one batch, no split, and the output type,
/// cluster size and epilogue (`TMA_OUT`) of each entry. They take the parameters of the
/// operations' Hopper entries (`cute_rs_kernels::gemm_sm90::by_output::Params`: the maps and a
/// `GemmParams`).
macro_rules! gemm_sm90_persistent_steps {
    ($(
        $(#[$attr:meta])*
        $name:ident: $out:ty, $cm:literal, $tma:literal;
    )*) => {$(
        $(#[$attr])*
        #[kernel(launch_bounds(384, 1), gpu_only)]
        pub fn $name(a_map: TmaDescriptorParam, b_map: TmaDescriptorParam, d_map: TmaDescriptorParam, p: GemmParams<$out>) {
            type Atom = SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
            gemm_persistent::<$out, Atom, P128x256, P_STAGES, 128, $cm, $tma, false, false>((a_map.as_ptr(), b_map.as_ptr(), d_map.as_ptr()), p);
        }
    )*};
}

gemm_sm90_persistent_steps! {
    /// [`gemm_sm90_bf16_tn_ws`] made persistent ([`GEMM_SM90_P_128X256`]): grid of at most one
    /// block per SM, each looping over tiles in `TileOrder`; f32 D (`d_map` unused).
    gemm_sm90_bf16_tn_p: f32, 1, false;
    /// [`gemm_sm90_bf16_tn_p`] with bf16 D (`u16` bits), stored directly.
    gemm_sm90_bf16_tn_p_obf16: u16, 1, false;
    /// [`gemm_sm90_bf16_tn_p`] in clusters of 2 blocks along M sharing B (each loads half of the
    /// 256-row B box, multicast to both: the B tensor map's box is 64 x 128): launch with cluster
    /// `(2, 1, 1)` and an even grid.
    gemm_sm90_bf16_tn_pc2: f32, 2, false;
    /// [`gemm_sm90_bf16_tn_pc2`] with bf16 D (`u16` bits), stored directly.
    gemm_sm90_bf16_tn_pc2_obf16: u16, 2, false;
    /// [`gemm_sm90_bf16_tn_p_obf16`] with the stmatrix + TMA-store epilogue: `d_map` is D's tensor
    /// map (bf16, boxes of 64 x 64, 128-byte swizzle; `N` a multiple of 8), and the launch has
    /// `GEMM_SM90_EPILOGUE_BYTES` more dynamic shared memory.
    gemm_sm90_bf16_tn_p_obf16_tma: u16, 1, true;
    /// [`gemm_sm90_bf16_tn_p_obf16_tma`] in clusters of 2 (see [`gemm_sm90_bf16_tn_pc2`]).
    gemm_sm90_bf16_tn_pc2_obf16_tma: u16, 2, true;
}
