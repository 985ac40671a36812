//! The Hopper GEMM path (sm_90a, in the module `gemm_sm90a` only): TMA loads into 128-byte-swizzled
//! shared tiles, `wgmma` from matrix descriptors (bf16/f16 in k16 steps, tf32 in k8 steps, fp8 in
//! k32 steps, f32 accumulators), rings of stages with mbarriers ([`GemmSm90Shape`]).
//!
//! The entries are those the host's GEMM API picks ([`by_output`]): persistent warp-specialized
//! blocks (`gemm_persistent`: a producer warpgroup, one thread of which issues the TMA loads, and
//! two consumer warpgroups with full/empty barriers per stage, registers moved with `setmaxnreg`)
//! walking the tiles in [`TileOrder`], clusters of two blocks along M sharing B through TMA
//! multicast for fp8, the stmatrix + TMA-store epilogue for a 16-bit D (`_tma` entries for f32),
//! split K (`_splitk`), and the decode tiles (`Decode`, `GEMM_SM90_DECODE_128X{16,32,64,128}`):
//! products of at most 128 rows computed transposed, `D^T = B^T A^T`, so that the large N fills
//! wgmma's 64-row M and the few rows are wgmma's narrow N, with many small stages in flight.
//!
//! The steps that led there (one warpgroup per tile, all threads waiting on one barrier per stage;
//! warp specialization without persistence; persistence; clusters; the TMA-store epilogue) are
//! entries of the test harness's device crate (`tests/kernels`, module `gemm_sm90_steps`), which
//! composes the building blocks below that are marked for it (`gemm_tile`, `gemm_tile_ws`,
//! `gemm_persistent`, device code only);
//! `docs/performance.md` has what each step gave.
//!
//! A K-major operand (`A` row-major, `B` column-major: B's N x K transpose row-major) is read in
//! boxes of one 128-byte row of K (64 16-bit or 32 tf32 elements) x the tile's rows, which with the
//! 128-byte swizzle is exactly the canonical K-major SW128 layout wgmma reads
//! (`wgmma_k_major_sw128`: 8 rows of 128 bytes per 1024-byte atom); an M- or N-major one in boxes
//! of 64 M (N) x 64 K, the canonical MN-major layout, read with wgmma's transpose. Out-of-bounds
//! rows and columns of a box are zero-filled by TMA, so partial tiles need no special main loop;
//! direct-store epilogues predicate their stores, TMA stores clip at D's bounds.
//!
//! The tensor maps come by value in the launch's parameters (`TmaDescriptorParam`, CUDA's
//! `__grid_constant__`): a launch needs no device memory of its own, so the host's call returns at
//! once and can be captured in a graph, and the maps need no acquire fence (parameters are never
//! written).

// On the host only the kernels' typed constants exist (`#[kernel(gpu_only)]`): the helpers, and
// the imports they use, are GPU code.
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]

use cute_rs_tensor::kernel;
use crate::epilogue::{Activation, BiasKind, EpilogueOp};
use cute_rs_tensor::device::unroll::for_each_unrolled_mut;
use cute_rs_tensor::device::cluster::{cluster_sync, tma_load_2d_multicast};
use cute_rs_tensor::device::ids::{block_idx_x, block_idx_y, block_rank_in_cluster, grid_dim_x, thread_idx_x};
use cute_rs_tensor::device::mma::{
    warpgroup_reg_alloc, warpgroup_reg_dealloc, wgmma_accumulator_layout, wgmma_commit_group, wgmma_fence,
    wgmma_fence_operands, wgmma_wait_group, WgmmaSwizzle,
};
use cute_rs_tensor::device::numeric::{f32_to_bf16, f32x2_to_bf16x2, f32x2_to_f16x2, E4M3, E5M2};
use cute_rs_tensor::atom::wgmma::{
    make_gmma_desc, make_gmma_layout, GmmaDesc, KMajor, Major, MajorMode, MnMajor, WgmmaAtom, SM90_64x128x16_F32BF16BF16_SS,
    SM90_64x256x16_F32BF16BF16_SS, SM90_64x256x16_F32F16F16_SS, SM90_64x16x16_F32BF16BF16_SS, SM90_64x32x16_F32BF16BF16_SS, SM90_64x64x16_F32BF16BF16_SS, SM90_64x256x8_F32TF32TF32_SS_TN, SM90_64x256x32_F32F8F8_SS_TN,
};
#[cfg(target_arch = "nvptx64")]
use cute_rs_tensor::atom::wgmma::gemm;
use cute_rs_tensor::atom::tma::{MapOrder, TmaBoxes};
use cute_rs_tensor::identity::IdentityTensor;
use cute_rs_tensor::pipeline::{PipelineState, PipelineTmaAsync};
use cute_rs_tensor::device::shared::generic_to_shared;
use cute_rs_tensor::device::sync::{sync_threads, NamedBarrier};
use cute_rs_tensor::device::tma::{
    bulk_commit_group, bulk_wait_group, bulk_wait_group_read, fence_proxy_async_shared_cta, tma_load_2d, tma_load_3d, tma_store_2d, tma_store_3d,
    TmaDescriptor, TmaDescriptorParam,
};
use cute_rs_tensor::device::sync::{fence_mbarrier_init, Mbarrier};
use cute_rs_tensor::half::f16;
use cute_rs_tensor::atom::copy::{copy, VectorCopy, SM90_U32x4_STSM_N};
use cute_rs_tensor::atom::fragment_copy::make_tiled_copy_c;
use cute_rs_tensor::device::unroll::{unroll_for, Count};
#[cfg(not(target_arch = "nvptx64"))]
use cute_rs_tensor::partition::StaticSwizzle;
use cute_rs_tensor::partition::Sw;
use cute_rs_tensor::static_view::StaticView;
use cute_rs_tensor::swizzled::Swizzled;
use cute_rs_tensor::{dynamic_shared, shared_array, static_layout, Fragment, LayoutTensor, Shared, StaticLayout};

pub use crate::gemm_sm90_sizes::*;

/// The kernels' shared body for a tile `shape` whose warpgroups each own one m64 row slice of `BN`
/// columns (`R = BN / 2` accumulators), or two if `TWO`, multiplied with the m64nBNk16 wgmma atom
/// `W` (`BN = W::N`). The two
/// slices are two named arrays (not an array of arrays): LLVM then keeps every accumulator in
/// registers (an array of arrays went to the stack).
///
/// All threads wait for a stage's mbarrier, the warpgroups run their wgmmas on it, a block barrier
/// confirms every warp has read it, and thread 0 refills it with the k-tile `stages` ahead.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_tile<W: WgmmaAtom, const R: usize, const TWO: bool, const N: usize, const A: usize, const B: usize>(
    shape: GemmSm90Shape,
    a_map: *const TmaDescriptor,
    b_map: *const TmaDescriptor,
    out: Epilogue<f32>,
    k: u32,
    stages: *mut Stages<N, A, B>,
    bars: &[Mbarrier; N],
) {
    const { assert!(W::N == 128 || W::N == 256, "the non-specialized tiles are 128 or 256 wide") };
    let bn = W::N as u32;
    let bar = |s: u32| &bars[s as usize];
    let stage_a = |s: u32| core::ptr::addr_of_mut!((*stages).a[s as usize]) as *mut u8;
    let stage_b = |s: u32| core::ptr::addr_of_mut!((*stages).b[s as usize]) as *mut u8;
    let t = thread_idx_x();
    let (wg, lane128) = (t / 128, t % 128);
    let (row0, col0) = (block_idx_y() * shape.bm, block_idx_x() * bn);
    let k_tiles = k.div_ceil(GEMM_SM90_BK);
    let load = |kt: u32, s: u32| {
        bar(s).arrive_expect_tx(shape.stage_bytes());
        let kx = (kt * GEMM_SM90_BK) as i32;
        tma_load_2d(stage_a(s), a_map, [kx, row0 as i32], bar(s));
        tma_load_2d(stage_b(s), b_map, [kx, col0 as i32], bar(s));
    };
    if t == 0 {
        for s in 0..shape.stages {
            bar(s).init(1);
        }
        fence_mbarrier_init();
    }
    sync_threads();
    if t == 0 {
        for kt in 0..k_tiles.min(shape.stages) {
            load(kt, kt);
        }
    }
    let slices = 1 + TWO as u32;
    let (mut acc0, mut acc1) = ([0f32; R], [0f32; R]);
    for kt in 0..k_tiles {
        let s = kt % shape.stages;
        bar(s).wait_parity((kt / shape.stages) & 1);
        let (a0, b0) = (generic_to_shared(stage_a(s)), generic_to_shared(stage_b(s)));
        let b = const { operand_desc(Major::K, W::N as u32, 2, W::N as u32) }.operand(b0, 0);
        wgmma_fence();
        gemm::<W, { GEMM_SM90_BK / 16 }, R>(A_K_16.operand(a0, wg * slices), b, &mut acc0, true);
        if TWO {
            gemm::<W, { GEMM_SM90_BK / 16 }, R>(A_K_16.operand(a0, wg * slices + 1), b, &mut acc1, true);
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut acc0);
        if TWO {
            wgmma_fence_operands(&mut acc1);
        }
        // Every warp's part of the wgmmas has read stage `s` before TMA refills it.
        sync_threads();
        if t == 0 && kt + shape.stages < k_tiles {
            load(kt + shape.stages, s);
        }
    }
    // The accumulator layout is (thread, value) -> m + 64 n with the two modes independent: a
    // thread's value v sits at (row of the thread + row of v, column of the thread + column of v).
    // The thread's part is computed once; each value's part is a constant after unrolling.
    let acc_layout = const { cute_rs_layout::unwrap!(wgmma_accumulator_layout(W::N)) };
    let mine = acc_layout.call(lane128 as i64) as usize;
    let r0 = (row0 + 64 * wg * slices) as usize + mine % 64;
    let full = out.inside(row0, col0, shape.bm, bn);
    out.apply(&mut acc0, r0, col0 as usize + mine / 64, acc_layout, full, false);
    out.store(&mut acc0, r0, col0 as usize + mine / 64, acc_layout, full, false);
    if TWO {
        out.apply(&mut acc1, r0 + 64, col0 as usize + mine / 64, acc_layout, full, false);
        out.store(&mut acc1, r0 + 64, col0 as usize + mine / 64, acc_layout, full, false);
    }
}

/// The wgmma m64n256 accumulator layout, (thread, value) -> m + 64 n.
#[cfg(not(target_arch = "nvptx64"))] // only the contracts (`crate::contract!`) use it
const ACC_256: cute_rs_layout::Layout = cute_rs_layout::unwrap!(wgmma_accumulator_layout(256));

/// Whether each even value `v` of `layout`'s `values` and `v + 1` are neighbours in a row (the
/// epilogue stores them together).
#[cfg(not(target_arch = "nvptx64"))] // only the contracts (`crate::contract!`) use it
const fn pairs_are_neighbours(layout: cute_rs_layout::Layout, values: i64) -> bool {
    let mut v = 0;
    while v < values {
        if layout.call(128 * (v + 1)) != layout.call(128 * v) + 64 {
            return false;
        }
        v += 2;
    }
    true
}
crate::contract!(accumulator_pairs, { assert!(pairs_are_neighbours(ACC_256, 128), "wgmma accumulator pairs must be row neighbours") });

/// The descriptors of a stage's operand tile as wgmma reads it: `rows` (M or N) x one
/// 128-byte row of K, the canonical tile of `major` with the 128-byte swizzle (what the TMA
/// boxes of that swizzle write: K-major one box of `rows` rows, MN-major boxes of 64 x 64), read
/// `mn` rows by 32 bytes of K per instruction. Checked element by element at compile time.
const fn operand_desc(major: Major, rows: u32, element_bytes: i64, mn: u32) -> GmmaDesc {
    cute_rs_layout::unwrap!(make_gmma_desc(stage_tile(major, rows, element_bytes), element_bytes, major, mn as i64, 32 / element_bytes))
}

/// A stage's operand tile: `rows` (M or N) x one 128-byte row of K, the canonical tile of
/// `major` with the 128-byte swizzle.
const fn stage_tile(major: Major, rows: u32, element_bytes: i64) -> cute_rs_layout::SwizzledLayout {
    cute_rs_layout::unwrap!(make_gmma_layout(major, WgmmaSwizzle::B128, element_bytes, rows as i64, 128 / element_bytes))
}

/// A (128 rows, m64 per instruction) and B (256 rows, all per instruction) of 16-bit elements,
/// K- and MN-major, and of tf32 and fp8 (K-major only). An MN-major tile's 64 x 64 boxes are its swizzle
/// atom columns: `mn_step` apart for A (one per m64 slice), `leading_byte_offset` apart for B.
const A_K_16: GmmaDesc = operand_desc(Major::K, 128, 2, 64);
const A_MN_16: GmmaDesc = operand_desc(Major::MN, 128, 2, 64);
const B_K_16: GmmaDesc = operand_desc(Major::K, 256, 2, 256);
const B_MN_16: GmmaDesc = operand_desc(Major::MN, 256, 2, 256);
const A_K_TF32: GmmaDesc = operand_desc(Major::K, 128, 4, 64);
const B_K_TF32: GmmaDesc = operand_desc(Major::K, 256, 4, 256);
const A_K_8: GmmaDesc = operand_desc(Major::K, 128, 1, 64);
const B_K_8: GmmaDesc = operand_desc(Major::K, 256, 1, 256);

/// The A and B descriptors of a wgmma atom's operands (its element size and storage orders).
const fn operand_descs<W: WgmmaAtom>() -> (GmmaDesc, GmmaDesc) {
    if W::N != 256 {
        // The narrow (decode) tiles: 16-bit K-major operands, B `W::N` rows read whole.
        assert!(core::mem::size_of::<W::A>() == 2, "the narrow tiles take 16-bit inputs");
        let n = W::N as u32;
        let b = if matches!(W::MajorB::MAJOR, Major::MN) { operand_desc(Major::MN, n, 2, n) } else { operand_desc(Major::K, n, 2, n) };
        return (if matches!(W::MajorA::MAJOR, Major::MN) { A_MN_16 } else { A_K_16 }, b);
    }
    if core::mem::size_of::<W::A>() == 4 {
        (A_K_TF32, B_K_TF32)
    } else if core::mem::size_of::<W::A>() == 1 {
        (A_K_8, B_K_8)
    } else {
        (
            if matches!(W::MajorA::MAJOR, Major::MN) { A_MN_16 } else { A_K_16 },
            if matches!(W::MajorB::MAJOR, Major::MN) { B_MN_16 } else { B_K_16 },
        )
    }
}

/// The TMA boxes of a stage's operand tile ([`stage_tile`]): a K-major tile is one box per part
/// of `parts` (a cluster's blocks each load theirs), an MN-major tile 64 x 64 boxes (its swizzle
/// atom columns).
const fn operand_boxes(major: Major, rows: u32, element_bytes: i64, parts: u32) -> TmaBoxes {
    let k = 128 / element_bytes;
    let (extent, order) = match major {
        Major::K => ([(rows / parts) as i64, k], MapOrder::KFirst),
        Major::MN => ([64, k], MapOrder::OuterFirst),
    };
    cute_rs_layout::unwrap!(TmaBoxes::new(stage_tile(major, rows, element_bytes), [rows as i64, k], extent, element_bytes, order))
}

/// The A and B boxes of a stage for wgmma atom `W` (B: its `N` rows) in a cluster of `CM`
/// blocks along N (B's boxes split among them).
const fn stage_boxes<W: WgmmaAtom, const CM: u32>() -> (TmaBoxes, TmaBoxes) {
    let e = core::mem::size_of::<W::A>() as i64;
    (operand_boxes(W::MajorA::MAJOR, 128, e, 1), operand_boxes(W::MajorB::MAJOR, W::N as u32, e, CM))
}

// The decode tiles' B operands of 16, 32, 64 and 128 rows (K-major, the 128-byte swizzle: two,
// four, eight or sixteen 1024-byte atoms) have wgmma descriptors and TMA boxes.
crate::contract!(decode_operands, {
    let _ = (operand_descs::<SM90_64x16x16_F32BF16BF16_SS>(), stage_boxes::<SM90_64x16x16_F32BF16BF16_SS, 1>());
    let _ = (operand_descs::<SM90_64x32x16_F32BF16BF16_SS>(), stage_boxes::<SM90_64x32x16_F32BF16BF16_SS, 1>());
    let _ = (operand_descs::<SM90_64x64x16_F32BF16BF16_SS>(), stage_boxes::<SM90_64x64x16_F32BF16BF16_SS, 1>());
    let _ = (operand_descs::<SM90_64x128x16_F32BF16BF16_SS>(), stage_boxes::<SM90_64x128x16_F32BF16BF16_SS, 1>());
});

static_layout!(
    /// The coordinates of a stage's A tile, `(m, k)`: 128 rows x one 128-byte row of K (64
    /// 16-bit or 32 tf32 elements; the coordinate tensor spans the wider).
    StageA = "(128,64)"
);
static_layout!(
    /// The coordinates of a stage's B tile, `(n, k)`.
    #[doc(hidden)] // the tile of `P128x256`, a building block of the test harness's steps
    pub StageB = "(256,64)"
);
static_layout!(
    /// The coordinates of a decode stage's B tile of 16 rows, `(n, k)`.
    StageB16 = "(16,64)"
);
static_layout!(
    /// The coordinates of a decode stage's B tile of 32 rows, `(n, k)`.
    StageB32 = "(32,64)"
);
static_layout!(
    /// The coordinates of a decode stage's B tile of 64 rows, `(n, k)`.
    StageB64 = "(64,64)"
);
static_layout!(
    /// The coordinates of a decode stage's B tile of 128 rows, `(n, k)`.
    StageB128 = "(128,64)"
);

/// One stage's tile of an operand as TMA writes it and wgmma reads it: `BYTES` bytes (rows of
/// 128 bytes of K), aligned to the 128-byte swizzle's 1024-byte atom.
#[repr(C, align(1024))]
struct StageTile<const BYTES: usize>([u8; BYTES]);

/// The persistent kernels' shared memory (CuTe's `SharedStorage`) for the 128 x 256 tiles: the
/// ring's A stages (128 rows of K), its B stages (256 rows), then each consumer warpgroup's two
/// staging buffers of the TMA-store epilogue (only the `_tma` kernels are launched with those
/// [`GEMM_SM90_EPILOGUE_BYTES`]). [`Ring`] addresses it from the tile shape; the struct fixes
/// the offsets those addresses must agree with.
#[repr(C)]
#[allow(dead_code)] // only its offsets are read
struct SharedStorage {
    ring: Stages<{ P_STAGES as usize }, { 128 * 128 }, { 256 * 128 }>,
    staging: [u16; 2 * 2 * 64 * 64],
}

/// A ring of `N` stages (CuTe's `SharedStorage` of a mainloop): A's tiles of `A` bytes, then
/// B's of `B` bytes.
#[repr(C)]
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
pub struct Stages<const N: usize, const A: usize, const B: usize> {
    a: [StageTile<A>; N],
    b: [StageTile<B>; N],
}

// The host sizes the launch from the tile shape: the stages, then the epilogue's buffers.
const _: () = {
    const S: GemmSm90Shape = GEMM_SM90_P_128X256;
    assert!(S.stage_bytes() == 128 * 128 + 256 * 128 && S.bm == 128 && S.bn == 256);
    assert!(core::mem::offset_of!(SharedStorage, ring.b) == (S.stages * S.bm * 128) as usize);
    assert!(core::mem::offset_of!(SharedStorage, staging) == S.smem_bytes() as usize);
    assert!(core::mem::size_of::<SharedStorage>() == (S.smem_bytes() + GEMM_SM90_EPILOGUE_BYTES) as usize);
};

/// A tile configuration of the persistent kernels: its shape (128 rows in two m64 consumer
/// slices, `bn` columns = the wgmma atom's N, the ring's stages), the coordinates of a stage's B
/// tile, where its shared memory lies, and whether the kernel computes D's transpose (the decode
/// tiles: `D^T = B^T A^T`, D written column by column of the kernel's output).
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
pub trait PersistentTile {
    /// The tile and its ring.
    const SHAPE: GemmSm90Shape;
    /// The kernel's output is D's transpose: its `(r, c)` is D's `(c, r)`.
    const TRANSPOSED: bool;
    /// The coordinates of a stage's B tile, `(bn, k)`.
    type StageB: StaticLayout;
    /// The launch's dynamic shared memory (the ring, then any staging buffers) and the full and
    /// empty barriers of the pipeline (at least `SHAPE.stages` each).
    fn shared() -> (*mut u8, *mut u64, *mut u64);
}

/// The 128 x 256 tiles of the large products ([`GEMM_SM90_P_128X256`]).
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
pub struct P128x256;

impl PersistentTile for P128x256 {
    const SHAPE: GemmSm90Shape = GEMM_SM90_P_128X256;
    const TRANSPOSED: bool = false;
    type StageB = StageB;
    #[inline(always)]
    fn shared() -> (*mut u8, *mut u64, *mut u64) {
        // Declared once (the declarations depend on no generic parameter), used by every entry.
        let ring = dynamic_shared!(GEMM_SM90_RING_P: u8, align 1024).as_mut_ptr();
        let full = shared_array!(GEMM_SM90_P_FULL: [u64; P_STAGES as usize], align 8).as_mut_ptr();
        let empty = shared_array!(GEMM_SM90_P_EMPTY: [u64; P_STAGES as usize], align 8).as_mut_ptr();
        (ring, full, empty)
    }
}

/// The decode tiles (`GEMM_SM90_DECODE_128X*`), 128 rows of D^T (of D's N) by `bn` of D's M.
struct Decode<const BN: u32>;

/// The decode tiles' shared memory: every width uses the same declarations.
#[inline(always)]
fn decode_shared() -> (*mut u8, *mut u64, *mut u64) {
    let ring = dynamic_shared!(GEMM_SM90_RING_DECODE: u8, align 1024).as_mut_ptr();
    let full = shared_array!(GEMM_SM90_DECODE_FULL: [u64; GEMM_SM90_DECODE_MAX_STAGES as usize], align 8).as_mut_ptr();
    let empty = shared_array!(GEMM_SM90_DECODE_EMPTY: [u64; GEMM_SM90_DECODE_MAX_STAGES as usize], align 8).as_mut_ptr();
    (ring, full, empty)
}

/// The decode tile of each width: its shape and B's stage coordinates.
macro_rules! decode_tiles {
    ($($bn:literal: $shape:ident, $stage_b:ident;)*) => {$(
        impl PersistentTile for Decode<$bn> {
            const SHAPE: GemmSm90Shape = $shape;
            const TRANSPOSED: bool = true;
            type StageB = $stage_b;
            #[inline(always)]
            fn shared() -> (*mut u8, *mut u64, *mut u64) {
                decode_shared()
            }
        }
    )*};
}

decode_tiles! {
    16: GEMM_SM90_DECODE_128X16, StageB16;
    32: GEMM_SM90_DECODE_128X32, StageB32;
    64: GEMM_SM90_DECODE_128X64, StageB64;
    128: GEMM_SM90_DECODE_128X128, StageB128;
}

/// The persistent kernels' shared memory, as the launch's dynamic shared memory, laid out as
/// [`SharedStorage`] for the tile `T` (A's stages, B's stages, the staging buffers).
struct Ring<T>(*mut u8, core::marker::PhantomData<T>);

impl<T> Clone for Ring<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ring<T> {}

impl<T: PersistentTile> Ring<T> {
    /// A's tile of stage `stage`.
    #[inline(always)]
    fn a(&self, stage: u32) -> *mut u8 {
        // SAFETY: a place inside the storage, not read.
        unsafe { self.0.add(stage as usize * (T::SHAPE.bm * 128) as usize) }
    }

    /// B's tile of stage `stage`.
    #[inline(always)]
    fn b(&self, stage: u32) -> *mut u8 {
        // SAFETY: as for `a`.
        unsafe { self.0.add((T::SHAPE.stages * T::SHAPE.bm * 128) as usize + stage as usize * (T::SHAPE.bn * 128) as usize) }
    }

    /// The staging buffers of the TMA-store epilogue of an f32 D (the same bytes).
    #[inline(always)]
    fn staging_f32(&self) -> LayoutTensor<'static, f32, StagingF32, Shared> {
        // SAFETY: as for `staging`; the buffers are 1024-byte aligned, f32 fits.
        unsafe { LayoutTensor::from_ptr_in(self.0.add(T::SHAPE.smem_bytes() as usize) as *mut f32, StagingF32::new()) }
    }

    /// The staging buffers of the TMA-store epilogue.
    #[inline(always)]
    fn staging(&self) -> LayoutTensor<'static, u16, Staging, Shared> {
        // SAFETY: the buffers lie inside the storage (the `_tma` launches hold them); each
        // consumer warpgroup uses its own.
        unsafe { LayoutTensor::from_ptr_in(self.0.add(T::SHAPE.smem_bytes() as usize) as *mut u16, Staging::new()) }
    }
}

/// The stages of the persistent kernel's pipeline.
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
pub const P_STAGES: u32 = GEMM_SM90_P_128X256.stages;

/// The warp-specialized kernels' body ([`GEMM_SM90_P_128X256`] tiles) for clusters of `CM`
/// blocks along M (1 or 2), the wgmma atom `W` (input type and storage orders of A and B), D of
/// element type `O`, written by the stmatrix + TMA-store epilogue if `TMA_OUT`, over the cluster
/// tiles `first, first + step, ...` of `order` (cluster tiles of `CM` x 128 x 256).
///
/// The blocks of a cluster work on `CM` vertically adjacent 128 x 256 tiles together. Warpgroup 0
/// produces ([`produce`]), warpgroups 1 and 2 each consume one m64 slice of every tile
/// ([`consume`]), through a [`PipelineTmaAsync`] of stages. The persistent kernels walk the
/// cluster tiles in [`TileOrder`] (cluster `i` takes tiles `i`, `i + clusters`, ...); the
/// non-persistent one takes its block's tile.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_tile_ws<
    O: Output,
    W: WgmmaAtom,
    T: PersistentTile,
    const STAGES: u32,
    const R: usize,
    const CM: u32,
    const TMA_OUT: bool,
    const BATCHED: bool,
    const SPLIT: bool,
>(
    a_map: *const TmaDescriptor,
    b_map: *const TmaDescriptor,
    d_map: *const TmaDescriptor,
    out: Epilogue<O>,
    k: u32,
    order: TileOrder,
    split: Split,
    first: u32,
    step: u32,
) {
    // The tile's numbers come twice (its type's and the const parameters a stable compiler needs
    // for array lengths): they must agree.
    const { assert!(T::SHAPE.stages == STAGES && T::SHAPE.bn as i64 == W::N && W::VALUES_C == R && T::SHAPE.bm == 128) };
    const { assert!(!T::TRANSPOSED || (!TMA_OUT && CM == 1), "the decode tiles store directly, without clusters") };
    let (ring, full, empty) = T::shared();
    let ring = Ring::<T>(ring, core::marker::PhantomData);
    let pipe = PipelineTmaAsync::<STAGES>::new(full, empty);
    let t = thread_idx_x();
    let rank = if CM > 1 { block_rank_in_cluster() } else { 0 };
    // The host makes 3-D tensor maps (a batch mode) only for several batches: one batch (split
    // or not) takes the 2-D loads and stores, a little faster.
    let rank3 = BATCHED && order.batches > 1 && !(SPLIT && split.shares());
    // K per stage: one 128-byte row of elements (64 16-bit or 32 tf32).
    let k_tiles = k.div_ceil(128 / core::mem::size_of::<W::A>() as u32);
    let units = WorkUnits::new(order, k_tiles, split.decomposition, first, step);
    if t == 0 {
        // Each consumer warpgroup of every block of the cluster writes into each block's stages.
        pipe.init((T::SHAPE.warpgroups - 1) * CM);
    }
    // The other blocks multicast into this block's stages and arrive on its barriers.
    if CM > 1 {
        cluster_sync();
    } else {
        sync_threads();
    }
    if t / 128 == 0 {
        warpgroup_reg_dealloc::<40>();
        if t == 0 {
            produce::<W, T, STAGES, CM, BATCHED>(pipe, ring, units, rank, a_map, b_map, rank3);
        }
    } else {
        warpgroup_reg_alloc::<232>();
        consume::<O, W, T, STAGES, R, CM, TMA_OUT, BATCHED, SPLIT>(pipe, ring, units, rank, out, d_map, split, rank3, t / 128 - 1, t % 128);
    }
    // No block may exit while another can still arrive on its barriers.
    if CM > 1 {
        cluster_sync();
    }
}

/// The row of a block's tile of shape `shape` in the cluster tile at tile coordinates `(tm, tn)`
/// (of any batch), and its column.
#[inline(always)]
fn tile_origin<const CM: u32>(shape: GemmSm90Shape, (tm, tn, _): (u32, u32, u32), rank: u32) -> (u32, u32) {
    ((tm * CM + rank) * shape.bm, tn * shape.bn)
}

/// How a launch shares its product ([`Decomposition`]: split-K, [`SplitK`], or stream-K,
/// [`StreamK`]), with the tile counters and the partial sums in the workspace.
#[derive(Clone, Copy)]
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
pub struct Split {
    decomposition: Decomposition,
    counters: *mut u32,
    partials: *mut f32,
}

impl Split {
    /// Every tile whole.
    pub const NONE: Split = Split { decomposition: Decomposition::DataParallel, counters: core::ptr::null_mut(), partials: core::ptr::null_mut() };

    /// `splits` K splits of every tile when `split`, else stream-K when `stream`, with the
    /// workspace at `workspace`; every tile whole otherwise.
    #[inline(always)]
    fn new((split, stream): (bool, bool), splits: u32, workspace: *mut u32) -> Split {
        let decomposition = match (split && splits > 1, stream) {
            (true, _) => Decomposition::SplitK(splits),
            (false, true) => Decomposition::StreamK,
            (false, false) => return Split::NONE,
        };
        // SAFETY (pointer arithmetic): the host sized the workspace by `workspace_bytes`.
        let partials = unsafe { (workspace as *mut u8).add(SplitK { splits, tiles: 0 }.partials_offset()) } as *mut f32;
        Split { decomposition, counters: workspace, partials }
    }

    /// Whether tiles' K ranges may be shared among work units.
    #[inline(always)]
    fn shares(&self) -> bool {
        !matches!(self.decomposition, Decomposition::DataParallel)
    }

    /// The end of a work unit that is the part `part` of its tile's sum (`row0`: the tile's
    /// first row; `r0`: this thread's first row) for consumer slice `slice`, `m` rows in D, the
    /// slice's accumulators `acc` of the wgmma atom `W` (a narrow tile's partials take the first
    /// `R` of each slot's [`SplitK::SLICE_FLOATS`]): writes this part's partial sums of the rows
    /// inside D, counts it in, and when it is the tile's last adds every part's partials into
    /// `acc` in K order and returns `true`. A slice entirely below D writes nothing and returns
    /// `false`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn reduce<W: WgmmaAtom, const R: usize>(
        &self,
        acc: &mut [f32; R],
        (part, row0, r0): (Part, u32, usize),
        m: usize,
        (slice, lane128): (u32, u32),
    ) -> bool {
        use cute_rs_tensor::device::atomics::{fence, fetch_add, store, AcqRel, Gpu, Relaxed};
        use cute_rs_tensor::device::memory::{load, store as store_global, Cg};
        if (row0 + 64 * slice) as usize >= m {
            return false;
        }
        let last = shared_array!(GEMM_SM90_SPLIT_LAST: [u32; 2], align 4).as_mut_ptr();
        let slot = |q: u32| self.partials.add((q as usize * 2 + slice as usize) * SplitK::SLICE_FLOATS + lane128 as usize);
        let inside = |v: usize| r0 + W::LAYOUT_C.call(128 * v as i64) as usize % 64 < m;
        // L2 (`.cg`): the partials pass between SMs.
        for_each_unrolled_mut(acc, |v, x| {
            if inside(v) {
                store_global(slot(part.slot).add(128 * v), *x, Cg);
            }
        });
        fence(AcqRel, Gpu);
        slice_barrier(slice);
        if lane128 == 0 {
            let counter = self.counters.add(part.counter as usize * 2 + slice as usize);
            let arrived = fetch_add(counter, 1, AcqRel, Gpu);
            let is_last = arrived == part.count - 1;
            if is_last {
                store(counter, 0, Relaxed, Gpu);
            }
            *last.add(slice as usize) = is_last as u32;
        }
        slice_barrier(slice);
        if *last.add(slice as usize) == 0 {
            return false;
        }
        fence(AcqRel, Gpu);
        for q in 0..part.count {
            for_each_unrolled_mut(acc, |v, x| {
                if inside(v) {
                    let partial: f32 = load(slot(part.first + q).add(128 * v), Cg);
                    *x = if q == 0 { partial } else { *x + partial };
                }
            });
        }
        true
    }
}

/// The named barrier of consumer slice `slice`'s 128 threads.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn slice_barrier(slice: u32) {
    if slice == 0 {
        NamedBarrier::<1, 128>::new().sync()
    } else {
        NamedBarrier::<2, 128>::new().sync()
    }
}

/// The producer (one thread): for each k-tile of each of its tiles, acquires the next stage and
/// loads A's 128 rows (one K-major box, or one 64 x 64 box per m64 block when M-major) and this
/// block's `1 / CM` of B's 256 rows (multicast to the cluster). The stage counter runs on across
/// tiles, so the producer fills the next tile's stages while the consumers store the last.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn produce<W: WgmmaAtom, T: PersistentTile, const STAGES: u32, const CM: u32, const BATCHED: bool>(
    pipe: PipelineTmaAsync<STAGES>,
    ring: Ring<T>,
    units: WorkUnits,
    rank: u32,
    a_map: *const TmaDescriptor,
    b_map: *const TmaDescriptor,
    rank3: bool,
) {
    let (a_boxes, b_boxes) = const { stage_boxes::<W, CM>() };
    let bk = 128 / core::mem::size_of::<W::A>() as i64;
    let mut state = PipelineState::producer_start();
    for WorkUnit { tile, batch, k: (kb, ke), .. } in units {
        let (row0, col0) = tile_origin::<CM>(T::SHAPE, tile, rank);
        for kt in kb..ke {
            pipe.producer_acquire(state, T::SHAPE.stage_bytes());
            let (s, bar) = (state.index(), pipe.full(state.index()));
            // The stage's tiles as coordinate tensors: each TMA box starts at the global
            // coordinate of its first element.
            let k0 = kt as i64 * bk;
            let (a, b) = (IdentityTensor::<StageA>::tile_at([row0 as i64, k0]), IdentityTensor::<T::StageB>::tile_at([col0 as i64, k0]));
            // Batched maps have a third mode, the batch (clusters are not batched).
            let l = batch as i32;
            let load = |dst: *mut u8, map: *const TmaDescriptor, [x, y]: [i32; 2]| {
                if BATCHED && rank3 {
                    tma_load_3d(dst, map, [x, y, l], bar);
                } else {
                    tma_load_2d(dst, map, [x, y], bar);
                }
            };
            a_boxes.for_each_box(a, ring.a(s), 0, 1, |dst, c| load(dst, a_map, c));
            // This block's part of B (all of it without a cluster), multicast to the cluster.
            b_boxes.for_each_box(b, ring.b(s), rank, CM, |dst, c| {
                if CM == 1 {
                    load(dst, b_map, c);
                } else {
                    tma_load_2d_multicast(dst, b_map, c, bar, ((1u32 << CM) - 1) as u16);
                }
            });
            state.advance();
        }
    }
}

/// A consumer warpgroup: for each of its tiles, the main loop (wait for a stage, its wgmmas on
/// this warpgroup's m64 slice `slice` of A and all of B, release the stage to every block of the
/// cluster), then the epilogue. The first wgmma of a tile ignores the old accumulators instead of
/// zeroing them.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn consume<
    O: Output,
    W: WgmmaAtom,
    T: PersistentTile,
    const STAGES: u32,
    const R: usize,
    const CM: u32,
    const TMA_OUT: bool,
    const BATCHED: bool,
    const SPLIT: bool,
>(
    pipe: PipelineTmaAsync<STAGES>,
    ring: Ring<T>,
    units: WorkUnits,
    rank: u32,
    out: Epilogue<O>,
    d_map: *const TmaDescriptor,
    split: Split,
    rank3: bool,
    slice: u32,
    lane128: u32,
) {
    let (a_desc, b_desc) = const { operand_descs::<W>() };
    // `W::LAYOUT_C` (not a local copy) at every use: a constant LLVM folds; a local one went to
    // the stack in the split-K reduction.
    let mine = W::LAYOUT_C.call(lane128 as i64) as usize;
    let mut acc = [0f32; R];
    let mut state = PipelineState::consumer_start();
    for WorkUnit { tile, batch, k: (kb, ke), part } in units {
        let (row0, col0) = tile_origin::<CM>(T::SHAPE, tile, rank);
        // A slice entirely below D (a product of few rows) has nothing to compute: it only
        // passes the stages on, leaving the tensor cores to the other slice.
        let live = ((row0 + 64 * slice) as usize) < out.m;
        let release = |state: PipelineState<STAGES>| {
            if lane128 == 0 {
                if CM == 1 {
                    pipe.consumer_release(state);
                } else {
                    pipe.consumer_release_cluster(state, CM);
                }
            }
        };
        // Two loops, so that the hot one has no branch on `live`.
        if live && ke > kb {
            // One stage's wgmmas stay in flight while the next stage's are issued (waiting for all
            // of them before each stage would drain the tensor cores once per stage); a stage
            // goes back to the producer once its wgmmas are done, one stage later. The first
            // stage is issued before the loop, so that the accumulators the loop's wgmmas
            // chain on always come from a wgmma: ptxas serializes every wgmma (C7515) when an
            // in-flight stage's accumulators may come from other instructions (the zeroing, the
            // last tile's epilogue) or are touched before the final wait (an operand fence).
            let stage = |state: PipelineState<STAGES>, accumulate: bool, acc: &mut [f32; R]| {
                pipe.consumer_wait(state);
                let (a, b) = (generic_to_shared(ring.a(state.index())), generic_to_shared(ring.b(state.index())));
                wgmma_fence();
                gemm::<W, { GEMM_SM90_BK / 16 }, R>(a_desc.operand(a, slice), b_desc.operand(b, 0), acc, accumulate);
                wgmma_commit_group();
            };
            stage(state, false, &mut acc);
            let mut previous = state;
            state.advance();
            for _ in kb + 1..ke {
                stage(state, true, &mut acc);
                wgmma_wait_group::<1>();
                release(previous);
                previous = state;
                state.advance();
            }
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut acc);
            release(previous);
        } else {
            for _ in kb..ke {
                pipe.consumer_wait(state);
                release(state);
                state.advance();
            }
        }
        if ke == kb {
            for_each_unrolled_mut(&mut acc, |_, x| *x = 0.0);
        }
        let r0 = (row0 + 64 * slice) as usize + mine % 64;
        // A part of a tile's sum ends here unless it is the tile's last to arrive (then `acc`
        // holds the sum).
        if let (true, Some(part)) = (SPLIT, part) {
            if !split.reduce::<W, R>(&mut acc, (part, row0, r0), out.m, (slice, lane128)) {
                continue;
            }
        }
        let full = out.inside(row0, col0, T::SHAPE.bm, T::SHAPE.bn);
        let out = out.batch(batch);
        out.apply(&mut acc, r0, col0 as usize + mine / 64, W::LAYOUT_C, full, T::TRANSPOSED);
        if TMA_OUT {
            const { assert!(!TMA_OUT || R == 128, "the TMA-store epilogue stores m64n256 slices") };
            // SAFETY: the same array (R == 128).
            let acc = &*(acc.as_ptr() as *const [f32; 128]);
            let at = BoxOrigin { row: row0 + 64 * slice, col: col0, batch: (BATCHED && rank3).then_some(batch) };
            if O::B16 {
                store_tile_tma::<O>(acc, d_map, at, ring.staging(), (lane128, slice));
            } else {
                store_tile_tma_f32(acc, d_map, at, ring.staging_f32(), (lane128, slice));
            }
        } else {
            out.store(&mut acc, r0, col0 as usize + mine / 64, W::LAYOUT_C, full, T::TRANSPOSED);
        }
    }
    if TMA_OUT && lane128 == 0 {
        // The staging buffers must outlive the stores' reads (and the block).
        bulk_wait_group::<0>();
    }
}

static_layout!(
    /// The staging buffers of the TMA-store epilogue, `(row, column, buffer, consumer
    /// warpgroup)`: two buffers per consumer warpgroup, each 64 rows of 64 16-bit elements (128
    /// bytes), row-major, viewed through the 128-byte swizzle ([`Staging`]) as a TMA store with
    /// that swizzle reads its 64 x 64 box.
    pub(crate) StagingBuffers = "(64,64,2,2):(64,1,4096,8192)"
);
/// [`StagingBuffers`] through the 128-byte swizzle of 16-bit elements.
pub(crate) type Staging = Swizzled<Sw<3, 3, 3>, StagingBuffers>;
static_layout!(
    /// The accumulators of one 64 x 64 box of a warpgroup's m64n256 slice: the wgmma m64n64
    /// accumulator layout, `(thread, value) -> m + 64 n`.
    pub(crate) AccBox = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))"
);
static_layout!(
    /// A box's shape, `(rows, columns)`.
    pub(crate) BoxTile = "(64,64)"
);
static_layout!(
    /// A thread's 32 values of one box, converted to 16 bits, in accumulator order.
    pub(crate) BoxValues = "32:1"
);

crate::contract!(staging_16_bit, {
    assert!(
        epilogue_layouts_agree(2, <Sw<3, 3, 3>>::SWIZZLE, StagingBuffers::LAYOUT, AccBox::LAYOUT, ACC_256, 256),
        "the 16-bit staging buffers and box accumulators"
    )
});

static_layout!(
    /// The staging buffers of the TMA-store epilogue of an f32 D, `(row, column, buffer, consumer
    /// warpgroup)`: the same bytes as [`StagingBuffers`], each buffer 64 rows of 32 f32 (128
    /// bytes), row-major, viewed through the 128-byte swizzle of 4-byte elements
    /// ([`StagingF32`]), as a TMA store with that swizzle reads its 32 x 64 box.
    StagingBuffersF32 = "(64,32,2,2):(32,1,2048,4096)"
);
/// [`StagingBuffersF32`] through the 128-byte swizzle of 4-byte elements.
type StagingF32 = Swizzled<Sw<3, 2, 3>, StagingBuffersF32>;
static_layout!(
    /// The accumulators of one 64 x 32 box of a warpgroup's m64n256 slice: the wgmma m64n32
    /// accumulator layout, `(thread, value) -> m + 64 n`.
    pub(crate) AccBoxF32 = "((4,8,4),(2,2,4)):((128,1,16),(64,8,512))"
);
static_layout!(
    /// An f32 box's shape, `(rows, columns)`.
    pub(crate) BoxTileF32 = "(64,32)"
);
static_layout!(
    /// A thread's 16 values of one f32 box, in accumulator order.
    pub(crate) BoxValuesF32 = "16:1"
);

crate::contract!(staging_f32, {
    assert!(
        epilogue_layouts_agree(4, <Sw<3, 2, 3>>::SWIZZLE, StagingBuffersF32::LAYOUT, AccBoxF32::LAYOUT, ACC_256, 256),
        "the f32 staging buffers and box accumulators"
    )
});

/// This module's contracts (`crate::contract!`), for [`crate::contracts`].
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) const CONTRACTS: &[(&str, fn())] = &[
    ("gemm_sm90: wgmma accumulator pairs are row neighbours", accumulator_pairs),
    ("gemm_sm90: the decode tiles' operands have wgmma descriptors and TMA boxes", decode_operands),
    ("gemm_sm90: the 16-bit staging buffers and box accumulators", staging_16_bit),
    ("gemm_sm90: the f32 staging buffers and box accumulators", staging_f32),
];

/// Whether the TMA-store epilogue's layouts for D elements of `element_bytes` agree with what TMA
/// and wgmma do: buffer 0 of `staging` through `swizzle` is the canonical 128-byte-swizzled tile
/// of 64 rows x 128 bytes that TMA's boxes use ([`stage_tile`]), and `acc_box` is the wgmma
/// accumulator layout of one box of `cols = 128 / element_bytes` columns, whose values `v` in box
/// `c` are the values `c cols / 2 + v` of `acc`, the accumulators of a warpgroup's `64 x n`
/// tile, `c cols` columns further.
#[cfg(not(target_arch = "nvptx64"))] // only the contracts (`crate::contract!`) use it
pub(crate) const fn epilogue_layouts_agree(element_bytes: i64, swizzle: cute_rs_layout::Swizzle, staging: cute_rs_layout::Layout, acc_box: cute_rs_layout::Layout, acc: cute_rs_layout::Layout, n: i64) -> bool {
    let cols = 128 / element_bytes;
    let tile = stage_tile(Major::K, 64, element_bytes);
    let mut e = 0;
    while e < 64 * cols {
        if swizzle.apply(staging.call(e)) != tile.call(e) {
            return false;
        }
        e += 1;
    }
    let box_acc = cute_rs_layout::unwrap!(wgmma_accumulator_layout(cols));
    let values = cols / 2;
    let mut i = 0;
    while i < 128 * values {
        if acc_box.call(i) != box_acc.call(i) {
            return false;
        }
        let (t, v) = (i % 128, i / 128);
        let mut c = 0;
        while c < n / cols {
            if acc.call(t + 128 * (values * c + v)) != acc_box.call(i) + 64 * cols * c {
                return false;
            }
            c += 1;
        }
        i += 1;
    }
    true
}

/// Where a consumer warpgroup's slice of D starts: row, column, and the batch when D's tensor map
/// has one (a third mode).
#[derive(Clone, Copy)]
struct BoxOrigin {
    row: u32,
    col: u32,
    batch: Option<u32>,
}

/// The TMA-store epilogue of one consumer warpgroup: its 64 x 256 slice (final values in `acc`)
/// goes to D at `at` as `BOXES` boxes of 64 rows x 128 bytes (`COLS` elements). Box `c`
/// is written into staging buffer `buffer(c)` by `write(c)` (a tiled copy made from the box's
/// accumulator layout: `stmatrix` for a 16-bit D, 8-byte vectors for f32), and one thread stores
/// it with a TMA store, which clips rows and columns outside D. Two buffers alternate: before a
/// buffer is rewritten, the store that read it two boxes ago has finished reading
/// (`cp.async.bulk.wait_group.read 1`), and the stores of the last boxes drain while the
/// warpgroup goes on to its next tile.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store_boxes<const BOXES: usize, const COLS: u32>(
    d_map: *const TmaDescriptor,
    at: BoxOrigin,
    (lane128, slice): (u32, u32),
    buffer: impl Fn(usize) -> *const u8,
    write: impl FnMut(usize),
) {
    stage_and_store::<BOXES>(lane128 == 0, || slice_barrier(slice), write, |c| {
        let (x, y) = ((at.col + COLS * c as u32) as i32, at.row as i32);
        match at.batch {
            Some(l) => tma_store_3d(d_map, [x, y, l as i32], buffer(c)),
            None => tma_store_2d(d_map, [x, y], buffer(c)),
        }
    });
}

/// The loop of a TMA-store epilogue over `BOXES` boxes of a warpgroup's tile, through two
/// staging buffers that alternate from one box to the next, across calls too (with an even
/// `BOXES`, box `c` in buffer `c % 2`): `write(c)` fills box `c`'s buffer from the registers,
/// and `leader` (one thread of the warpgroup) then issues `store(c)`, the TMA store that reads
/// it. Before a buffer is rewritten the store that read it two boxes ago has finished reading
/// (`cp.async.bulk.wait_group.read 1`); `sync` is the warpgroup's barrier. The last stores drain
/// while the warpgroup goes on: wait for them (`bulk_wait_group::<0>`) before the buffers are
/// reused otherwise or the block exits.
///
/// # Safety
/// Every thread of the warpgroup calls it; `write(c)` and `store(c)` use box `c`'s buffer.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) unsafe fn stage_and_store<const BOXES: usize>(leader: bool, sync: impl Fn(), mut write: impl FnMut(usize), store: impl Fn(usize)) {
    // Constant box indices: every accumulator index is then a constant (a run-time index would
    // put the accumulators on the stack).
    unroll_for::<Count<BOXES>>(|c| {
        if leader {
            bulk_wait_group_read::<1>();
        }
        sync();
        write(c);
        fence_proxy_async_shared_cta();
        sync();
        if leader {
            store(c);
            bulk_commit_group();
        }
    });
}

/// The stmatrix + TMA-store epilogue of a 16-bit D ([`store_boxes`]): four 64 x 64 boxes, each
/// box's accumulators converted to 16 bits in pairs and stored by the tiled `stmatrix` copy.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store_tile_tma<O: Output>(
    acc: &[f32; 128],
    d_map: *const TmaDescriptor,
    origin: BoxOrigin,
    staging: LayoutTensor<'_, u16, Staging, Shared>,
    (lane128, slice): (u32, u32),
) {
    let r2s = make_tiled_copy_c::<SM90_U32x4_STSM_N, AccBox, BoxTile>();
    let thr = r2s.get_slice(lane128 as usize);
    let buffer = |c: usize| staging.slice_mode::<3>(slice as i64).slice_mode::<2>((c % 2) as i64);
    store_boxes::<4, 64>(d_map, origin, (lane128, slice), |c| buffer(c).as_ptr() as *const u8, |c| {
        let mut frag = Fragment::<u16, BoxValues, 32>::new();
        unroll_for::<Count<16>>(|i| {
            let pair = O::pack2(acc[32 * c + 2 * i], acc[32 * c + 2 * i + 1]);
            frag.data[2 * i] = pair as u16;
            frag.data[2 * i + 1] = (pair >> 16) as u16;
        });
        copy(r2s, thr.retile_s(frag.tensor()), thr.partition_d(buffer(c)));
    });
}

/// The TMA-store epilogue of an f32 D ([`store_boxes`]): eight 64 x 32 boxes, each thread's pairs
/// of neighbouring accumulators stored as 8-byte vectors.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store_tile_tma_f32(
    acc: &[f32; 128],
    d_map: *const TmaDescriptor,
    origin: BoxOrigin,
    staging: LayoutTensor<'_, f32, StagingF32, Shared>,
    (lane128, slice): (u32, u32),
) {
    let r2s = make_tiled_copy_c::<VectorCopy<8>, AccBoxF32, BoxTileF32>();
    let thr = r2s.get_slice(lane128 as usize);
    let buffer = |c: usize| staging.slice_mode::<3>(slice as i64).slice_mode::<2>((c % 2) as i64);
    store_boxes::<8, 32>(d_map, origin, (lane128, slice), |c| buffer(c).as_ptr() as *const u8, |c| {
        let mut frag = Fragment::<f32, BoxValuesF32, 16>::new();
        unroll_for::<Count<16>>(|v| frag.data[v] = acc[16 * c + v]);
        copy(r2s, thr.retile_s(frag.tensor()), thr.partition_d(buffer(c)));
    });
}

/// The parameters of a Hopper GEMM entry with output `O` after its tensor maps (A's, B's and
/// D's, which travel as grid constants of their own): `D = act(alpha * A * B + beta * C + bias)`
/// over L batches.
///
/// # Example
/// ```
/// use cute_rs_kernels::epilogue::EpilogueOp;
/// use cute_rs_kernels::gemm_sm90::GemmParams;
/// let mut d = vec![0f32; 64 * 32];
/// let p = GemmParams {
///     c: core::ptr::null(),
///     d: d.as_mut_ptr(),
///     m: 64, n: 32, k: 128, batches: 1,
///     ldc: 32, ldd: 32, batch_c: 0, batch_d: 0,
///     epilogue: EpilogueOp::IDENTITY,
///     workspace: core::ptr::null_mut(),
/// };
/// assert_eq!((p.m, p.n, p.k), (64, 32, 128));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct GemmParams<O: 'static> {
    /// C, f32, row-major: read only when `beta != 0` (any valid address otherwise).
    pub c: *const f32,
    /// D, row-major: written by the direct-store entries (the TMA-store ones write through D's
    /// map; any valid address then).
    pub d: *mut O,
    /// Rows of D (A's rows).
    pub m: u32,
    /// Columns of D (B's columns).
    pub n: u32,
    /// The reduction's length.
    pub k: u32,
    /// The batches L, or the K splits of one product under [`GEMM_SM90_SPLIT_K`] (1 under
    /// [`GEMM_SM90_STREAM_K`]).
    pub batches: u32,
    /// The leading dimension of C, in elements.
    pub ldc: u32,
    /// The leading dimension of D (direct stores), in elements.
    pub ldd: u32,
    /// Batch `l` of C is `l * batch_c` elements after the first.
    pub batch_c: u64,
    /// Batch `l` of D is `l * batch_d` elements after the first (direct stores).
    pub batch_d: u64,
    /// alpha, beta, the bias and the flags (the epilogue's, [`crate::epilogue`],
    /// [`GEMM_SM90_SPLIT_K`] and [`GEMM_SM90_STREAM_K`]).
    pub epilogue: EpilogueOp,
    /// The workspace of split-K and stream-K (split entries with either flag; any address
    /// otherwise): [`SplitK::workspace_bytes`] or [`StreamK::workspace_bytes`].
    pub workspace: *mut u32,
}

// SAFETY: `#[repr(C)]`: scalars, raw pointers and an `EpilogueOp`.
unsafe impl<O: Copy + 'static> cute_rs_tensor::kernel::KernelValue for GemmParams<O> {}

/// The body of a persistent entry: D of element type `O` from the wgmma atom `W` (input type and
/// storage orders of A and B) in tiles `T` (`STAGES` and `R` are `T::SHAPE.stages` and
/// `W::VALUES_C`, which a stable compiler needs as const parameters for array lengths), clusters
/// of `CM` blocks along M, the stmatrix + TMA-store epilogue through `d_map` if `TMA_OUT`
/// (otherwise direct stores, `d_map` unused), batches if `BATCHED` (with several batches the
/// tensor maps have a third mode, the batch; one batch takes 2-D maps; without `BATCHED` L is 1),
/// and split K if `SPLIT` (the flag [`GEMM_SM90_SPLIT_K`] makes the batches K splits of one
/// product, [`SplitK`]; entries without it carry no reduction code, which slows the large
/// products: `docs/performance.md`).
///
/// Args: the tensor maps of A, B and D and the entry's [`GemmParams`]. A transposed tile
/// (`T::TRANSPOSED`) takes D's M and N like the others and computes `D^T = B^T A^T` (`a_map` is
/// then B's map and `b_map` A's).
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)] // the entries' body, and a building block of the test harness's steps (`tests/kernels`)
#[inline(always)]
pub unsafe fn gemm_persistent<
    O: Output,
    W: WgmmaAtom,
    T: PersistentTile,
    const STAGES: u32,
    const R: usize,
    const CM: u32,
    const TMA_OUT: bool,
    const BATCHED: bool,
    const SPLIT: bool,
>(
    (a_map, b_map, d_map): (*const TmaDescriptor, *const TmaDescriptor, *const TmaDescriptor),
    p: GemmParams<O>,
) {
    let GemmParams { c, d, m, n, k, batches, ldc, ldd, batch_c, batch_d, epilogue, workspace } = p;
    let (alpha, beta, bias, flags) = (epilogue.alpha, epilogue.beta, epilogue.bias, epilogue.flags);
    // The kernel's output: D, or D's transpose (N x M).
    let (m, n) = if T::TRANSPOSED { (n, m) } else { (m, n) };
    let op = EpilogueOp { alpha, beta, bias, flags: flags & !(GEMM_SM90_SPLIT_K | GEMM_SM90_STREAM_K) };
    let (ldc, ldd, batch_c, batch_d) = (ldc as usize, ldd as usize, batch_c as usize, batch_d as usize);
    let out = Epilogue { m: m as usize, n: n as usize, op, c, d, ldc, ldd, batch_c, batch_d, scale_apart: true };
    let batches = if BATCHED { batches } else { 1 };
    let shape = T::SHAPE;
    let order = TileOrder::new(m, n, shape.bm * CM, shape.bn, GEMM_SM90_GROUP).batched(batches);
    // Split-K (split entries only): the batches are K splits of one product; or stream-K.
    let flagged = |flag: u32| SPLIT && flags & flag != 0;
    let split = Split::new((flagged(GEMM_SM90_SPLIT_K), flagged(GEMM_SM90_STREAM_K)), batches, workspace);
    gemm_tile_ws::<O, W, T, STAGES, R, CM, TMA_OUT, BATCHED, SPLIT>(a_map, b_map, d_map, out, k, order, split, block_idx_x() / CM, grid_dim_x() / CM);
}

/// The tile of a persistent entry: [`P128x256`] unless it names one.
// The host's entries are typed constants without bodies.
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_macros))]
macro_rules! persistent_tile {
    () => {
        P128x256
    };
    ($tile:ty) => {
        $tile
    };
}

/// The persistent entries (`gemm_persistent`): one per output type, cluster size, epilogue
/// (`TMA_OUT`), batching, split K, input type and operand majors, and tile ([`P128x256`] unless
/// an entry names another [`PersistentTile`] after its atom). All take the same parameters,
/// [`by_output::Params`].
macro_rules! gemm_sm90_persistent_kernels {
    ($(
        $(#[$attr:meta])*
        $name:ident: $out:ty, $cm:literal, $tma:literal, $batched:literal, $split:literal, $atom:ty $(, $tile:ty)?;
    )*) => {$(
        $(#[$attr])*
        #[cfg(feature = "entries")]
        #[kernel(launch_bounds(384, 1), gpu_only)]
        pub fn $name(a_map: TmaDescriptorParam, b_map: TmaDescriptorParam, d_map: TmaDescriptorParam, p: GemmParams<$out>) {
            type Tile = persistent_tile!($($tile)?);
            const STAGES: u32 = <Tile as PersistentTile>::SHAPE.stages;
            const R: usize = <$atom as WgmmaAtom>::VALUES_C;
            gemm_persistent::<$out, $atom, Tile, STAGES, R, $cm, $tma, $batched, $split>((a_map.as_ptr(), b_map.as_ptr(), d_map.as_ptr()), p);
        }
    )*};
}

// The entries of the GEMM's Hopper path (`cute_rs_ops::Matmul` on sm_90a): the persistent
// kernel without clusters for each input type (`bf16`, `f16`), storage order of A (`ar`
// row-major = K-major, `ac` column-major = M-major) and B (`br` row-major = N-major, `bc`
// column-major = K-major) and D (`of32`: direct stores, any N; `of32_tma`: the TMA-store
// epilogue, N a multiple of 4; `obf16`, `of16`: the stmatrix + TMA-store epilogue). All take the
// same parameters: the tensor maps of A, B (boxes of 64 K x 128 / 256 rows when K-major, 64 x 64
// when MN-major; 128-byte swizzle) and D (TMA-store entries only; boxes of 64 x 64 16-bit or
// 32 x 64 f32 elements, 128-byte swizzle), then a [`GemmParams`].
gemm_sm90_persistent_kernels! {
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ar_br_of32: f32, 1, false, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ar_br_obf16: u16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ar_br_of16: f16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ar_bc_of32: f32, 1, false, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ar_bc_obf16: u16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ar_bc_of16: f16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ac_br_of32: f32, 1, false, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ac_br_obf16: u16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ac_br_of16: f16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ac_bc_of32: f32, 1, false, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ac_bc_obf16: u16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_bf16_ac_bc_of16: f16, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ar_br_of32: f32, 1, false, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ar_br_obf16: u16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ar_br_of16: f16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ar_bc_of32: f32, 1, false, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ar_bc_obf16: u16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ar_bc_of16: f16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ac_br_of32: f32, 1, false, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ac_br_obf16: u16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ac_br_of16: f16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ac_bc_of32: f32, 1, false, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ac_bc_obf16: u16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90`: input type, storage of A and B and type of D as its name
    /// says (see the comment above the list).
    gemm_sm90_f16_ac_bc_of16: f16, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_bf16_ar_br_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_bf16_ar_bc_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_bf16_ac_br_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_bf16_ac_bc_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32BF16BF16_SS<MnMajor, KMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_f16_ar_br_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_f16_ar_bc_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_f16_ac_br_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, MnMajor>;
    /// An entry of `Gemm::run_sm90` with f32 D through the TMA-store epilogue (`N` a multiple of
    /// 4): input type and storage of A and B as its name says.
    gemm_sm90_f16_ac_bc_of32_tma: f32, 1, true, true, false, SM90_64x256x16_F32F16F16_SS<MnMajor, KMajor>;
    /// The tf32 entry of `Gemm::run_tf32_sm90`: f32 A row-major and B column-major (K-major:
    /// boxes of 32 K x 128 / 256 rows), their tf32 part multiplied, f32 D.
    gemm_sm90_tf32_ar_bc_of32: f32, 1, false, true, false, SM90_64x256x8_F32TF32TF32_SS_TN;
    /// The split-K entry of `Gemm::run_sm90` for bf16 A row-major and B column-major (the
    /// storage of decoding's `X W^T`), f32 D through the TMA-store epilogue.
    gemm_sm90_bf16_ar_bc_of32_tma_splitk: f32, 1, true, true, true, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// [`gemm_sm90_bf16_ar_bc_of32_tma_splitk`] with bf16 D.
    gemm_sm90_bf16_ar_bc_obf16_splitk: u16, 1, true, true, true, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// [`gemm_sm90_bf16_ar_bc_of32_tma_splitk`] with f16 D.
    gemm_sm90_bf16_ar_bc_of16_splitk: f16, 1, true, true, true, SM90_64x256x16_F32BF16BF16_SS<KMajor, KMajor>;
    /// [`gemm_sm90_bf16_ar_bc_of32_tma_splitk`] with f16 inputs.
    gemm_sm90_f16_ar_bc_of32_tma_splitk: f32, 1, true, true, true, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// [`gemm_sm90_bf16_ar_bc_obf16_splitk`] with f16 inputs.
    gemm_sm90_f16_ar_bc_obf16_splitk: u16, 1, true, true, true, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// [`gemm_sm90_bf16_ar_bc_of16_splitk`] with f16 inputs.
    gemm_sm90_f16_ar_bc_of16_splitk: f16, 1, true, true, true, SM90_64x256x16_F32F16F16_SS<KMajor, KMajor>;
    /// The e4m3 x e4m3 entry with bf16 D in clusters of 2 blocks along M sharing B (each loads
    /// half of the 256-row B box, multicast to both: B's tensor map has boxes of 128 K x 128 rows;
    /// 2-D maps, one batch): fp8 doubles the operand bytes per flop, which the multicast halves
    /// for B. Launch with cluster `(2, 1, 1)` and an even grid.
    gemm_sm90_e4m3_e4m3_ar_bc_obf16_c2: u16, 2, true, false, false, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E4M3>;
    /// An fp8 entry of the GEMM API: A e4m3 row-major and B e4m3 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored); split-K or batched.
    gemm_sm90_e4m3_e4m3_ar_bc_of32_tma: f32, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E4M3>;
    /// An fp8 entry of the GEMM API: A e4m3 row-major and B e4m3 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e4m3_e4m3_ar_bc_obf16: u16, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E4M3>;
    /// An fp8 entry of the GEMM API: A e4m3 row-major and B e4m3 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e4m3_e4m3_ar_bc_of16: f16, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E4M3>;
    /// An fp8 entry of the GEMM API: A e4m3 row-major and B e5m2 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e4m3_e5m2_ar_bc_of32_tma: f32, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E5M2>;
    /// An fp8 entry of the GEMM API: A e4m3 row-major and B e5m2 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e4m3_e5m2_ar_bc_obf16: u16, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E5M2>;
    /// An fp8 entry of the GEMM API: A e4m3 row-major and B e5m2 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e4m3_e5m2_ar_bc_of16: f16, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E4M3, E5M2>;
    /// An fp8 entry of the GEMM API: A e5m2 row-major and B e4m3 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e5m2_e4m3_ar_bc_of32_tma: f32, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E5M2, E4M3>;
    /// An fp8 entry of the GEMM API: A e5m2 row-major and B e4m3 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e5m2_e4m3_ar_bc_obf16: u16, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E5M2, E4M3>;
    /// An fp8 entry of the GEMM API: A e5m2 row-major and B e4m3 column-major (K-major: wgmma
    /// reads 8-bit operands K-major only; boxes of 128 K x 128 / 256 rows), D as its name says
    /// (TMA-stored).
    gemm_sm90_e5m2_e4m3_ar_bc_of16: f16, 1, true, true, true, SM90_64x256x32_F32F8F8_SS_TN<E5M2, E4M3>;
}

// The decode entries: bf16 A row-major (M x K, M up to 128) and B column-major (B^T N x K
// row-major), computed transposed, `D^T = B^T A^T`, in [`Decode`] tiles of 128 of N x 16, 32,
// 64 or 128 of M, D of 16 bits stored directly (column by column of D^T). `a_map` is B's tensor
// map (N x K, boxes of 64 K x 128 rows), `b_map` A's (M x K, boxes of 64 K x the tile's 16, 32,
// 64 or 128 rows), both with the 128-byte swizzle; `d_map` is unused; the other parameters are those
// of every persistent entry, in D's terms (M, N, ldd: D's row stride). Split-K as for the
// `_splitk` entries (partials in the same workspace layout, the first `bn / 2` floats of each
// thread's slot used); batched otherwise.
gemm_sm90_persistent_kernels! {
    /// A decode entry (see the comment above the list): tiles of 128 x 16 (M up to 16), bf16 D.
    gemm_sm90_bf16_ar_bc_obf16_decode16: u16, 1, false, true, true, SM90_64x16x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<16>;
    /// A decode entry (see the comment above the list): tiles of 128 x 32 (M up to 32), bf16 D.
    gemm_sm90_bf16_ar_bc_obf16_decode32: u16, 1, false, true, true, SM90_64x32x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<32>;
    /// A decode entry (see the comment above the list): tiles of 128 x 64 (M up to 64), bf16 D.
    gemm_sm90_bf16_ar_bc_obf16_decode64: u16, 1, false, true, true, SM90_64x64x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<64>;
    /// A decode entry (see the comment above the list): tiles of 128 x 16 (M up to 16), f16 D.
    gemm_sm90_bf16_ar_bc_of16_decode16: f16, 1, false, true, true, SM90_64x16x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<16>;
    /// A decode entry (see the comment above the list): tiles of 128 x 32 (M up to 32), f16 D.
    gemm_sm90_bf16_ar_bc_of16_decode32: f16, 1, false, true, true, SM90_64x32x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<32>;
    /// A decode entry (see the comment above the list): tiles of 128 x 64 (M up to 64), f16 D.
    gemm_sm90_bf16_ar_bc_of16_decode64: f16, 1, false, true, true, SM90_64x64x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<64>;
    /// A decode entry (see the comment above the list): tiles of 128 x 128 (M up to 128), bf16 D.
    gemm_sm90_bf16_ar_bc_obf16_decode128: u16, 1, false, true, true, SM90_64x128x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<128>;
    /// A decode entry (see the comment above the list): tiles of 128 x 128 (M up to 128), f16 D.
    gemm_sm90_bf16_ar_bc_of16_decode128: f16, 1, false, true, true, SM90_64x128x16_F32BF16BF16_SS<KMajor, KMajor>, Decode<128>;
}

/// How the epilogue writes D's elements: `f32`, or `u16` holding bf16 bits (rounded to nearest
/// even).
pub trait Output: Copy {
    /// A 16-bit type (the TMA-store epilogue packs pairs with [`pack2`](Output::pack2)).
    const B16: bool;
    /// `x0, x1` converted and packed into 32 bits, `x0` low (16-bit types only).
    fn pack2(x0: f32, x1: f32) -> u32;
    /// Writes `x` at `d[at]`.
    unsafe fn put(d: *mut Self, at: usize, x: f32);
    /// Writes `x0, x1` at `d[at], d[at + 1]` in one store; `at` is even.
    unsafe fn put2(d: *mut Self, at: usize, x0: f32, x1: f32);
}

/// Two f32 as one 8-byte aligned store (`st.global.v2.f32`).
#[repr(C, align(8))]
struct F32x2(f32, f32);

impl Output for f32 {
    const B16: bool = false;
    #[inline(always)]
    fn pack2(_: f32, _: f32) -> u32 {
        0
    }
    #[inline(always)]
    unsafe fn put(d: *mut f32, at: usize, x: f32) {
        *d.add(at) = x;
    }
    #[inline(always)]
    unsafe fn put2(d: *mut f32, at: usize, x0: f32, x1: f32) {
        *(d.add(at) as *mut F32x2) = F32x2(x0, x1);
    }
}

impl Output for u16 {
    const B16: bool = true;
    #[inline(always)]
    fn pack2(x0: f32, x1: f32) -> u32 {
        f32x2_to_bf16x2(x0, x1)
    }
    #[inline(always)]
    unsafe fn put(d: *mut u16, at: usize, x: f32) {
        *d.add(at) = f32_to_bf16(x);
    }
    #[inline(always)]
    unsafe fn put2(d: *mut u16, at: usize, x0: f32, x1: f32) {
        *(d.add(at) as *mut u32) = f32x2_to_bf16x2(x0, x1);
    }
}

impl Output for f16 {
    const B16: bool = true;
    #[inline(always)]
    fn pack2(x0: f32, x1: f32) -> u32 {
        f32x2_to_f16x2(x0, x1)
    }
    #[inline(always)]
    unsafe fn put(d: *mut f16, at: usize, x: f32) {
        *d.add(at) = f16::from_f32(x);
    }
    #[inline(always)]
    unsafe fn put2(d: *mut f16, at: usize, x0: f32, x1: f32) {
        *(d.add(at) as *mut u32) = f32x2_to_f16x2(x0, x1);
    }
}

/// Where and how the accumulators go: `D[r][c] = act(alpha * acc + beta * C[r][c] + bias)`
/// ([`EpilogueOp`]; C is f32, read only when `beta != 0`), C and D row-major with rows `ldc` and
/// `ldd` elements apart, batch `l` of them `l batch_c` and `l batch_d` elements further; stores
/// predicated on the matrix bounds unless the whole tile is inside. `scale_apart`: alpha in a
/// loop of its own ([`apply`](Epilogue::apply); the persistent entries', a constant).
#[derive(Clone, Copy)]
#[doc(hidden)] // a building block of the test harness's steps (`tests/kernels`)
pub struct Epilogue<O> {
    m: usize,
    n: usize,
    op: EpilogueOp,
    c: *const f32,
    d: *mut O,
    ldc: usize,
    ldd: usize,
    batch_c: usize,
    batch_d: usize,
    scale_apart: bool,
}

impl<O: Output> Epilogue<O> {
    /// One packed `m x n` C and D (leading dimension `n`), `D = alpha * acc + beta * C`.
    #[inline(always)]
    pub fn new(m: u32, n: u32, alpha: f32, beta: f32, c: *const f32, d: *mut O) -> Epilogue<O> {
        let op = EpilogueOp { alpha, beta, ..EpilogueOp::IDENTITY };
        Epilogue { m: m as usize, n: n as usize, op, c, d, ldc: n as usize, ldd: n as usize, batch_c: 0, batch_d: 0, scale_apart: false }
    }

    /// The epilogue of batch `l`: C and D moved to its matrices.
    #[inline(always)]
    fn batch(&self, l: u32) -> Epilogue<O> {
        let l = l as usize;
        // Wrapping: an unused C may be any valid address, never dereferenced.
        Epilogue { c: self.c.wrapping_add(l * self.batch_c), d: self.d.wrapping_add(l * self.batch_d), ..*self }
    }

    /// Whether the `bm x bn` tile at `(row0, col0)` lies inside D.
    #[inline(always)]
    fn inside(&self, row0: u32, col0: u32, bm: u32, bn: u32) -> bool {
        (row0 + bm) as usize <= self.m && (col0 + bn) as usize <= self.n
    }

    /// `acc = act(alpha * acc + beta * C + bias)` in place for the m64nN accumulator set whose
    /// thread part starts at row `r0`, column `c0` (C and the bias read inside D's bounds only;
    /// values outside are clipped by the stores); nothing for the identity. `transposed`: the
    /// accumulators are D's transpose (`m` and `n` its rows and columns), so C and the bias are
    /// read at D's `(c, r)` for the accumulators' `(r, c)`.
    #[inline(always)]
    unsafe fn apply<const R: usize>(&self, acc: &mut [f32; R], r0: usize, c0: usize, acc_layout: cute_rs_layout::Layout, full: bool, transposed: bool) {
        if self.op.is_identity() {
            return;
        }
        let Epilogue { m, n, op, c, ldc, scale_apart, .. } = *self;
        // `scale_apart`: the product's scale in a loop without branches, C and the bias in a loop
        // of their own only when there are any. A persistent block's next tile waits on its
        // epilogue: a scale tested and applied per value with them (fp8's per-tensor scales)
        // kept the warps from the next wgmmas for a large part of fp8's time
        // (`docs/performance.md`). A block of one tile has nothing waiting, and the second loop
        // costs the single-tile kernels registers they do not have (ptxas spills).
        if scale_apart {
            for_each_unrolled_mut(acc, |_, x| *x *= op.alpha);
        }
        if !scale_apart || op.beta != 0.0 || op.bias_kind() != BiasKind::None {
            let op = if scale_apart { EpilogueOp { alpha: 1.0, ..op } } else { op };
            for_each_unrolled_mut(acc, |v, x| {
                let off = acc_layout.call(128 * v as i64) as usize;
                let (r, col) = (r0 + off % 64, c0 + off / 64);
                if full || (r < m && col < n) {
                    let (dr, dc) = if transposed { (col, r) } else { (r, col) };
                    *x = op.affine(*x, dr, dc, || *c.add(dr * ldc + dc));
                }
            });
        }
        // One loop per activation: the branch is taken once, not once per value.
        match op.activation() {
            Activation::Identity => {}
            Activation::Relu => for_each_unrolled_mut(acc, |_, x| *x = Activation::Relu.apply(*x)),
            Activation::Gelu => for_each_unrolled_mut(acc, |_, x| *x = Activation::Gelu.apply(*x)),
            Activation::Silu => for_each_unrolled_mut(acc, |_, x| *x = Activation::Silu.apply(*x)),
        }
    }

    /// Stores one m64nN accumulator set (final values: [`apply`](Self::apply) has run) whose
    /// thread part starts at row `r0`, column `c0` (`full`: the whole tile is inside D). Inlined
    /// with constant value indices, so the accumulators stay in registers. Values `2j` and
    /// `2j + 1` are neighbours in a row: they go in one store when D's rows keep pairs aligned
    /// (`N`, the leading dimension and the batch stride even). `transposed`: the accumulators are
    /// D's transpose (see [`apply`](Self::apply)), written at D's `(c, r)`: a pair's values are
    /// then a row of D apart, stored one by one.
    #[inline(always)]
    unsafe fn store<const R: usize>(&self, acc: &mut [f32; R], r0: usize, c0: usize, acc_layout: cute_rs_layout::Layout, full: bool, transposed: bool) {
        let Epilogue { m, n, d, ldd, .. } = *self;
        let pairs = !transposed && n % 2 == 0 && ldd % 2 == 0 && self.batch_d % 2 == 0;
        // From one value of a pair to the next (the next column of the accumulators).
        let next = if transposed { ldd } else { 1 };
        let mut even = 0.0;
        for_each_unrolled_mut(acc, |v, x| {
            if v % 2 == 0 {
                even = *x;
                return;
            }
            let off = acc_layout.call(128 * (v - 1) as i64) as usize;
            let (r, col) = (r0 + off % 64, c0 + off / 64);
            let at = if transposed { col * ldd + r } else { r * ldd + col };
            if pairs && (full || (r < m && col + 1 < n)) {
                O::put2(d, at, even, *x);
            } else if full || r < m {
                if col < n {
                    O::put(d, at, even);
                }
                if col + 1 < n {
                    O::put(d, at + next, *x);
                }
            }
        });
    }
}

/// The Hopper GEMMs the host's GEMM API picks from, by output type, each indexed by
/// `4 * f16 + 2 * (A column-major) + (B row-major)` (inputs bf16 or f16).
#[cfg(all(not(target_arch = "nvptx64"), feature = "entries"))]
pub mod by_output {
    use super::*;
    use cute_rs_tensor::KernelFn;

    /// The parameters of the Hopper GEMMs with output `O`: the tensor maps of A, B and D, then
    /// the rest in a [`GemmParams`].
    pub type Params<O> = (TmaDescriptorParam, TmaDescriptorParam, TmaDescriptorParam, GemmParams<O>);

    /// f32 D.
    pub const F32: [KernelFn<Params<f32>>; 8] = [
        gemm_sm90_bf16_ar_bc_of32, gemm_sm90_bf16_ar_br_of32, gemm_sm90_bf16_ac_bc_of32, gemm_sm90_bf16_ac_br_of32,
        gemm_sm90_f16_ar_bc_of32, gemm_sm90_f16_ar_br_of32, gemm_sm90_f16_ac_bc_of32, gemm_sm90_f16_ac_br_of32,
    ];
    /// f32 D through the TMA-store epilogue (`N` a multiple of 4: 16-byte rows of D).
    pub const F32_TMA: [KernelFn<Params<f32>>; 8] = [
        gemm_sm90_bf16_ar_bc_of32_tma, gemm_sm90_bf16_ar_br_of32_tma, gemm_sm90_bf16_ac_bc_of32_tma, gemm_sm90_bf16_ac_br_of32_tma,
        gemm_sm90_f16_ar_bc_of32_tma, gemm_sm90_f16_ar_br_of32_tma, gemm_sm90_f16_ac_bc_of32_tma, gemm_sm90_f16_ac_br_of32_tma,
    ];
    /// bf16 D (as bits).
    pub const BF16: [KernelFn<Params<u16>>; 8] = [
        gemm_sm90_bf16_ar_bc_obf16, gemm_sm90_bf16_ar_br_obf16, gemm_sm90_bf16_ac_bc_obf16, gemm_sm90_bf16_ac_br_obf16,
        gemm_sm90_f16_ar_bc_obf16, gemm_sm90_f16_ar_br_obf16, gemm_sm90_f16_ac_bc_obf16, gemm_sm90_f16_ac_br_obf16,
    ];
    /// f16 D.
    pub const F16: [KernelFn<Params<f16>>; 8] = [
        gemm_sm90_bf16_ar_bc_of16, gemm_sm90_bf16_ar_br_of16, gemm_sm90_bf16_ac_bc_of16, gemm_sm90_bf16_ac_br_of16,
        gemm_sm90_f16_ar_bc_of16, gemm_sm90_f16_ar_br_of16, gemm_sm90_f16_ac_bc_of16, gemm_sm90_f16_ac_br_of16,
    ];
    /// tf32 inputs (A row-major, B column-major), f32 D.
    pub const TF32: KernelFn<Params<f32>> = gemm_sm90_tf32_ar_bc_of32;
    /// fp8 inputs (A row-major, B column-major) of the formats (e4m3, e4m3), (e4m3, e5m2) and
    /// (e5m2, e4m3), in that order, f32 D through the TMA-store epilogue.
    pub const FP8_F32: [KernelFn<Params<f32>>; 3] = [gemm_sm90_e4m3_e4m3_ar_bc_of32_tma, gemm_sm90_e4m3_e5m2_ar_bc_of32_tma, gemm_sm90_e5m2_e4m3_ar_bc_of32_tma];
    /// fp8 inputs as [`FP8_F32`], bf16 D (as bits).
    pub const FP8_BF16: [KernelFn<Params<u16>>; 3] = [gemm_sm90_e4m3_e4m3_ar_bc_obf16, gemm_sm90_e4m3_e5m2_ar_bc_obf16, gemm_sm90_e5m2_e4m3_ar_bc_obf16];
    /// Split-K entries (bf16 and f16 inputs, in that order; A row-major, B column-major), f32 D
    /// through the TMA-store epilogue.
    pub const SPLIT_F32: [KernelFn<Params<f32>>; 2] = [gemm_sm90_bf16_ar_bc_of32_tma_splitk, gemm_sm90_f16_ar_bc_of32_tma_splitk];
    /// Split-K entries as [`SPLIT_F32`], bf16 D.
    pub const SPLIT_BF16: [KernelFn<Params<u16>>; 2] = [gemm_sm90_bf16_ar_bc_obf16_splitk, gemm_sm90_f16_ar_bc_obf16_splitk];
    /// Split-K entries as [`SPLIT_F32`], f16 D.
    pub const SPLIT_F16: [KernelFn<Params<f16>>; 2] = [gemm_sm90_bf16_ar_bc_of16_splitk, gemm_sm90_f16_ar_bc_of16_splitk];
    /// e4m3 x e4m3, bf16 D, clusters of 2 along M (2-D maps, one batch, no split).
    pub const FP8_BF16_C2: KernelFn<Params<u16>> = gemm_sm90_e4m3_e4m3_ar_bc_obf16_c2;
    /// fp8 inputs as [`FP8_F32`], f16 D.
    pub const FP8_F16: [KernelFn<Params<f16>>; 3] = [gemm_sm90_e4m3_e4m3_ar_bc_of16, gemm_sm90_e4m3_e5m2_ar_bc_of16, gemm_sm90_e5m2_e4m3_ar_bc_of16];
    /// The decode entries (bf16 A row-major with at most 128 rows, B column-major; computed
    /// transposed in the tiles `GEMM_SM90_DECODE_128X{16,32,64,128}`, in that order), bf16 D.
    pub const DECODE_BF16: [KernelFn<Params<u16>>; 4] = [
        gemm_sm90_bf16_ar_bc_obf16_decode16,
        gemm_sm90_bf16_ar_bc_obf16_decode32,
        gemm_sm90_bf16_ar_bc_obf16_decode64,
        gemm_sm90_bf16_ar_bc_obf16_decode128,
    ];
    /// The decode entries as [`DECODE_BF16`], f16 D.
    pub const DECODE_F16: [KernelFn<Params<f16>>; 4] = [
        gemm_sm90_bf16_ar_bc_of16_decode16,
        gemm_sm90_bf16_ar_bc_of16_decode32,
        gemm_sm90_bf16_ar_bc_of16_decode64,
        gemm_sm90_bf16_ar_bc_of16_decode128,
    ];
}
