//! Fused attention forward on Hopper (sm_90a, in the module `gemm_sm90a` only), FlashAttention-3's
//! design written with the library's atoms: TMA loads of the Q, K and V tiles into 128-byte
//! swizzled shared tiles, `wgmma` from shared memory for `S = Q K^T` (SS), the online softmax in
//! base 2 on `S`'s accumulators, and `wgmma` with A in registers for `O += P V` (RS), `P` taken
//! from `S`'s accumulators by the thread-value re-layout [`accumulators_as_a`] (no data moves
//! between threads). The block is warp-specialized: warpgroup 0 produces (one thread issues the
//! TMA copies through two rings of stages, K's and V's, so that V's copy overlaps `Q K^T`),
//! warpgroups 1 and 2 consume, each 64 of the block's 128 query rows, with their registers raised
//! by `setmaxnreg`.
//!
//! Q, K, V and O are `(batch, seqlen, heads, head_dim)` arrays, `head_dim` contiguous. The three
//! inputs come as 4-D tensor maps by value (`(head_dim, seqlen, heads, batch)`, boxes of 64 x 128
//! x 1 x 1, the 128-byte swizzle, zero fill): one box is a 1024-byte-aligned run of 128 rows of 128
//! bytes, the canonical K-major SW128 tile of Q and K (`make_gmma_layout(K, B128, 2, 128, d)`),
//! and read as the canonical MN-major tile of V (`make_gmma_layout(MN, B128, 2, d, 128)`): the
//! two layouts agree element by element (checked at compile time), so one box shape serves the
//! three. Rows past a sequence's end are zero-filled, and masked.
//!
//! Grouped-query attention: K and V have `heads_kv` heads, which divide `heads`; query head `h`
//! reads key/value head `h / (heads / heads_kv)`. Causal masks align to the bottom right (query
//! `i` sees keys `j <= i + seqlen_k - seqlen_q`); a query that sees no key gets O = 0 and a
//! log-sum-exp of `-inf`. The log-sum-exp (natural log, of the scaled scores) is written
//! `(batch, heads, seqlen_q)`, contiguous.
//!
//! Grid `(ceil(seqlen_q / 128), heads, batch)`, [`ATTENTION_SM90_THREADS`] threads,
//! [`attention_sm90_smem_bytes`] of dynamic shared memory.
//!
//! [`accumulators_as_a`]: layout_tensor::atom::wgmma::accumulators_as_a

// On the host only the kernels' typed constants exist (`#[kernel(gpu_only)]`).
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]
// The compile-time checks of the tiles (descriptors, boxes, the transposed V) visit each of their
// 16384 elements.
#![allow(long_running_const_eval)]

use layout_tensor::atom::tma::{MapOrder, TmaBoxes};
use layout_tensor::atom::wgmma::{
    accumulators_as_a, make_gmma_desc, make_gmma_layout, GmmaDesc, KMajor, Major, MnMajor, WgmmaAtom, WgmmaRsAtom, SM90_64x128x16_F32BF16BF16_RS,
    SM90_64x128x16_F32BF16BF16_SS, SM90_64x128x16_F32F16F16_RS, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32BF16BF16_RS,
    SM90_64x64x16_F32F16F16_RS,
};
#[cfg(target_arch = "nvptx64")]
use layout_tensor::atom::wgmma::{gemm, gemm_rs};
use layout_tensor::device::ids::{block_idx_x, block_idx_y, block_idx_z, thread_idx_x};
use layout_tensor::device::math::{exp2_approx, fma, log2_approx};
use layout_tensor::device::mma::{
    warpgroup_reg_alloc, warpgroup_reg_dealloc, wgmma_commit_group, wgmma_fence, wgmma_fence_a_operands, wgmma_fence_operands, wgmma_wait_group, WgmmaSwizzle,
};
use layout_tensor::device::numeric::{f32x2_to_bf16x2, f32x2_to_f16x2};
use layout_tensor::device::shared::generic_to_shared;
use layout_tensor::device::sync::{fence_mbarrier_init, sync_threads, Mbarrier, NamedBarrier};
use layout_tensor::device::tma::{tma_load_4d, TmaDescriptor, TmaDescriptorParam};
use layout_tensor::device::unroll::{for_each_unrolled_mut, unroll_for, Count};
use layout_tensor::device::warp::shuffle_xor;
use layout_tensor::half::{bf16, f16};
use layout_tensor::identity::IdentityTensor;
use layout_tensor::pipeline::{PipelineState, PipelineTmaAsync};
use layout_tensor::{dynamic_shared, kernel, shared_array, static_layout, StaticLayout};

/// Query rows per block: two consumer warpgroups of 64 (one m64 `wgmma` slice each).
pub const ATTENTION_SM90_BM: u32 = 128;
/// Key/value rows per step (`S`'s columns: the m64n128 atom).
pub const ATTENTION_SM90_BN: u32 = 128;
/// Stages of each of the K and V rings.
pub const ATTENTION_SM90_STAGES: u32 = 2;
/// Threads per block: a producer and two consumer warpgroups.
pub const ATTENTION_SM90_THREADS: u32 = 384;

/// The dynamic shared memory of a launch for head dimension `d`: the Q tile, then the K ring's
/// and the V ring's stages, each tile 128 rows of `d` 16-bit elements.
///
/// # Example
/// ```
/// use cute_rs_kernels::attention_sm90::attention_sm90_smem_bytes;
/// assert_eq!(attention_sm90_smem_bytes(128), 5 * 32768);
/// ```
pub const fn attention_sm90_smem_bytes(d: u32) -> u32 {
    (1 + 2 * ATTENTION_SM90_STAGES) * tile_bytes(d)
}

/// One 128-row tile of `d` 16-bit elements.
const fn tile_bytes(d: u32) -> u32 {
    128 * d * 2
}

/// The canonical K-major tile (`rows x d`, the 128-byte swizzle) that one TMA box per 64 columns
/// writes: Q's and K's.
const fn k_major_tile(rows: i64, d: i64) -> layout::SwizzledLayout {
    layout::unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, rows, d))
}

/// The canonical MN-major tile (`d x keys`, the 128-byte swizzle) of V: the same bytes as the
/// K-major `keys x d` tile.
const fn mn_major_tile(d: i64, keys: i64) -> layout::SwizzledLayout {
    layout::unwrap!(make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, d, keys))
}

/// Whether V's MN-major tile (`d x keys`) and the K-major tile of `keys x d` the boxes write are
/// one function of `(key, column)`.
const fn transposes_agree(d: i64, keys: i64) -> bool {
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

/// The descriptors of Q (A, m64 slices), K (B of `S = Q K^T`, all 128 rows) and V (B of
/// `O = P V`, MN-major, all `d` columns), each read 32 bytes of K per instruction.
const fn descriptors(d: i64) -> (GmmaDesc, GmmaDesc, GmmaDesc) {
    (
        layout::unwrap!(make_gmma_desc(k_major_tile(128, d), 2, Major::K, 64, 16)),
        layout::unwrap!(make_gmma_desc(k_major_tile(128, d), 2, Major::K, 128, 16)),
        layout::unwrap!(make_gmma_desc(mn_major_tile(d, 128), 2, Major::MN, d, 16)),
    )
}

/// The TMA boxes of a 128-row tile: 128 rows x 64 columns each, along the head dimension.
const fn tile_boxes(d: i64) -> TmaBoxes {
    layout::unwrap!(TmaBoxes::new(k_major_tile(128, d), [128, d], [128, 64], 2, MapOrder::KFirst))
}

/// Whether accumulator layout `layout` (`(thread, value) -> m + 64 n`, `values` per thread) gives
/// each thread two rows 8 apart shared with the threads of its quad only (lanes `4 q .. 4 q + 3`),
/// its value `v` at the thread's position plus `v`'s: what the row reductions' shuffles assume.
const fn quad_rows(layout: layout::Layout, values: i64) -> bool {
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
const fn half_of(layout: layout::Layout, v: usize) -> usize {
    (layout.call(128 * v as i64) % 64 / 8) as usize
}

static_layout!(
    /// The coordinates of a tile of head dimension 64, `(row, column)`.
    Tile64 = "(128,64)"
);
static_layout!(
    /// The coordinates of a tile of head dimension 128, `(row, column)`.
    Tile128 = "(128,128)"
);

/// A kernel's element type and head dimension: its atoms (`S`: m64n128k16 from shared memory;
/// `O`: m64n`D`k16 with A in registers, V MN-major) and its tile coordinates.
trait Config {
    /// Head dimension.
    const D: u32;
    /// Whether the elements are f16 (else bf16).
    const F16: bool;
    /// Q, K, V and O's elements.
    type E;
    /// `S = Q K^T`.
    type S: WgmmaAtom;
    /// `O += P V`.
    type O: WgmmaRsAtom;
    /// A tile's coordinates.
    type Tile: StaticLayout;
}

macro_rules! configs {
    ($($name:ident: $e:ty, $d:literal, $f16:literal, $s:ty, $o:ty, $tile:ty;)*) => {$(
        #[doc = concat!("Head dimension ", $d, ", ", stringify!($e), ".")]
        struct $name;
        impl Config for $name {
            const D: u32 = $d;
            const F16: bool = $f16;
            type E = $e;
            type S = $s;
            type O = $o;
            type Tile = $tile;
        }
        const _: () = assert!(transposes_agree($d, 128), "V's MN-major tile must be the bytes the K-major boxes write");
        const _: () = assert!(quad_rows(<$s as WgmmaAtom>::LAYOUT_C, 64) && quad_rows(<$o as WgmmaRsAtom>::LAYOUT_C, $d / 2));
        const _: () = {
            let _ = tile_boxes($d);
        };
    )*};
}

configs! {
    Bf16D64: bf16, 64, false, SM90_64x128x16_F32BF16BF16_SS, SM90_64x64x16_F32BF16BF16_RS<KMajor, MnMajor>, Tile64;
    Bf16D128: bf16, 128, false, SM90_64x128x16_F32BF16BF16_SS, SM90_64x128x16_F32BF16BF16_RS<KMajor, MnMajor>, Tile128;
    F16D64: f16, 64, true, SM90_64x128x16_F32F16F16_SS, SM90_64x64x16_F32F16F16_RS<KMajor, MnMajor>, Tile64;
    F16D128: f16, 128, true, SM90_64x128x16_F32F16F16_SS, SM90_64x128x16_F32F16F16_RS<KMajor, MnMajor>, Tile128;
}

/// A launch's problem: lengths, heads, the softmax scale times `log2(e)`, causality, and where O
/// and the log-sum-exp go.
struct Problem<E> {
    heads: u32,
    heads_kv: u32,
    seqlen_q: u32,
    seqlen_k: u32,
    scale_log2: f32,
    causal: bool,
    o: *mut E,
    o_strides: [u64; 3],
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
    /// The key blocks query block `m_block` reads: keys past `seqlen_k`, and with a causal mask
    /// those after the block's last query's diagonal, are never loaded.
    #[inline(always)]
    fn key_blocks(&self, m_block: u32) -> u32 {
        let keys = if self.causal {
            let last = (m_block + 1) as i64 * ATTENTION_SM90_BM as i64 + self.seqlen_k as i64 - self.seqlen_q as i64;
            last.clamp(0, self.seqlen_k as i64) as u32
        } else {
            self.seqlen_k
        };
        keys.div_ceil(ATTENTION_SM90_BN)
    }
}

/// The block's shared memory: the Q tile, K's and V's rings, and the barriers.
#[derive(Clone, Copy)]
struct Shared {
    tiles: *mut u8,
    q_full: *mut u64,
    k: PipelineTmaAsync<ATTENTION_SM90_STAGES>,
    v: PipelineTmaAsync<ATTENTION_SM90_STAGES>,
}

impl Shared {
    /// The Q tile (`n == 0`), K's stage `n - 1` or V's stage `n - 1 - STAGES`, for head
    /// dimension `d`.
    #[inline(always)]
    fn tile(&self, n: u32, d: u32) -> *mut u8 {
        self.tiles.wrapping_add((n * tile_bytes(d)) as usize)
    }

    #[inline(always)]
    fn q(&self, d: u32) -> *mut u8 {
        self.tile(0, d)
    }

    #[inline(always)]
    fn k(&self, stage: u32, d: u32) -> *mut u8 {
        self.tile(1 + stage, d)
    }

    #[inline(always)]
    fn v(&self, stage: u32, d: u32) -> *mut u8 {
        self.tile(1 + ATTENTION_SM90_STAGES + stage, d)
    }

    #[inline(always)]
    fn q_bar(&self) -> &Mbarrier {
        // SAFETY: the block's Q barrier, aligned.
        unsafe { &*(self.q_full as *const Mbarrier) }
    }
}

/// The block's body: barriers set up, then the producer and consumer warpgroups.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn attention_block<C: Config, const RO: usize, const KQ: u32, const OVERLAP: bool, const PINGPONG: bool>(maps: [*const TmaDescriptor; 3], p: Problem<C::E>) {
    const { assert!(RO == C::O::VALUES_C && KQ == C::D / 16 && C::S::N == ATTENTION_SM90_BN as i64 && C::O::N == C::D as i64) };
    const STAGES: usize = ATTENTION_SM90_STAGES as usize;
    let tiles = dynamic_shared!(ATTENTION_SM90_TILES: u8, align 1024).as_mut_ptr();
    let q_full = shared_array!(ATTENTION_SM90_Q_FULL: [u64; 1], align 8).as_mut_ptr();
    let k_bars = shared_array!(ATTENTION_SM90_K_BARS: [u64; 2 * STAGES], align 8).as_mut_ptr();
    let v_bars = shared_array!(ATTENTION_SM90_V_BARS: [u64; 2 * STAGES], align 8).as_mut_ptr();
    let smem = Shared {
        tiles,
        q_full,
        k: PipelineTmaAsync::new(k_bars, k_bars.add(STAGES)),
        v: PipelineTmaAsync::new(v_bars, v_bars.add(STAGES)),
    };
    let t = thread_idx_x();
    if t == 0 {
        // Each consumer warpgroup releases each stage once.
        smem.k.init(2);
        smem.v.init(2);
        smem.q_bar().init(1);
        fence_mbarrier_init();
    }
    sync_threads();
    let (m_block, head, batch) = (block_idx_x(), block_idx_y(), block_idx_z());
    let blocks = p.key_blocks(m_block);
    if t / 128 == 0 {
        warpgroup_reg_dealloc::<24>();
        if t == 0 {
            produce::<C>(maps, smem, (m_block, head, batch), blocks, p);
        }
    } else {
        warpgroup_reg_alloc::<240>();
        consume::<C, RO, KQ, OVERLAP, PINGPONG>(smem, (m_block, head, batch), blocks, p, t / 128 - 1, t % 128);
    }
}

/// The producer (one thread): Q's tile once, then for each key block (last first, as the
/// consumers take them) K's tile into K's ring and V's into V's.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn produce<C: Config>(maps: [*const TmaDescriptor; 3], smem: Shared, (m_block, head, batch): (u32, u32, u32), blocks: u32, p: Problem<C::E>) {
    let boxes = const { tile_boxes(C::D as i64) };
    let bytes = tile_bytes(C::D);
    let head_kv = head / (p.heads / p.heads_kv);
    let (h, hk, b) = (head as i32, head_kv as i32, batch as i32);
    let q_bar = smem.q_bar();
    q_bar.arrive_expect_tx(bytes);
    let q = IdentityTensor::<C::Tile>::tile_at([(m_block * ATTENTION_SM90_BM) as i64, 0]);
    boxes.for_each_box(q, smem.q(C::D), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps[0], [x, y, h, b], q_bar));
    let mut state = PipelineState::<ATTENTION_SM90_STAGES>::producer_start();
    for n in (0..blocks).rev() {
        let keys = IdentityTensor::<C::Tile>::tile_at([(n * ATTENTION_SM90_BN) as i64, 0]);
        let s = state.index();
        smem.k.producer_acquire(state, bytes);
        boxes.for_each_box(keys, smem.k(s, C::D), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps[1], [x, y, hk, b], smem.k.full(s)));
        smem.v.producer_acquire(state, bytes);
        boxes.for_each_box(keys, smem.v(s, C::D), 0, 1, |dst, [x, y]| tma_load_4d(dst, maps[2], [x, y, hk, b], smem.v.full(s)));
        state.advance();
    }
}

/// The running softmax state of a thread's two rows: the row maxima of the raw scores and this
/// thread's part of the row sums (the quad's parts are added at the end).
struct OnlineSoftmax {
    max: [f32; 2],
    sum: [f32; 2],
}

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

    /// Takes a block of scores `s` (an accumulator fragment of the m64n128 atom, masked scores
    /// `-inf`): updates the row maxima, turns `s` into `P = exp2(scale_log2 (s - max))`, adds P
    /// to the row sums, and returns the factors `exp2(scale_log2 (old max - new max))` by which
    /// the output's rows must be rescaled. A row that has seen no key keeps a maximum of `-inf`
    /// and P = 0.
    #[inline(always)]
    fn step<S: WgmmaAtom>(&mut self, s: &mut [f32; 64], scale_log2: f32) -> [f32; 2] {
        let mut block_max = [f32::NEG_INFINITY; 2];
        for_each_unrolled_mut(s, |v, x| {
            let half = half_of(S::LAYOUT_C, v);
            block_max[half] = block_max[half].max(*x);
        });
        let mut alpha = [0.0; 2];
        let mut shift = [0.0; 2];
        for half in 0..2 {
            let max = self.max[half].max(quad_max(block_max[half]));
            // Subtracting `-inf` would give NaN: a row with no key yet subtracts 0 (its P is 0).
            shift[half] = if max == f32::NEG_INFINITY { 0.0 } else { max * scale_log2 };
            alpha[half] = exp2_approx(self.max[half] * scale_log2 - shift[half]);
            self.max[half] = max;
        }
        let mut sum = [0.0; 2];
        for_each_unrolled_mut(s, |v, x| {
            let half = half_of(S::LAYOUT_C, v);
            *x = exp2_approx(fma(*x, scale_log2, -shift[half]));
            sum[half] += *x;
        });
        for half in 0..2 {
            self.sum[half] = self.sum[half] * alpha[half] + sum[half];
        }
        alpha
    }
}

/// A consumer warpgroup's view of one block: the shared tiles, where its rows lie, and the
/// problem.
struct Consumer<E> {
    smem: Shared,
    p: Problem<E>,
    /// The warpgroup's m64 slice of the block.
    slice: u32,
    /// The thread's first row in the sequence and its first column in S's block.
    row0: i64,
    col0: i64,
    /// The warpgroup's first row.
    first_row: i64,
}

impl<E> Consumer<E> {
    /// Waits for K's stage of `state` and issues `S = Q K^T` (committed, not waited for).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn issue_qk<C: Config, const KQ: u32>(&self, state: PipelineState<ATTENTION_SM90_STAGES>, s: &mut [f32; 64]) {
        let (q_desc, k_desc, _) = const { descriptors(C::D as i64) };
        let q = generic_to_shared(self.smem.q(C::D));
        self.smem.k.consumer_wait(state);
        wgmma_fence();
        gemm::<C::S, KQ, 64>(q_desc.operand(q, self.slice), k_desc.operand(generic_to_shared(self.smem.k(state.index(), C::D)), 0), s, false);
        wgmma_commit_group();
    }

    /// Waits for V's stage of `state` and issues `O += P V` (committed, not waited for).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn issue_pv<C: Config, const RO: usize>(&self, state: PipelineState<ATTENTION_SM90_STAGES>, pa: &[[u32; 4]; 8], o: &mut [f32; RO]) {
        let (_, _, v_desc) = const { descriptors(C::D as i64) };
        self.smem.v.consumer_wait(state);
        wgmma_fence();
        gemm_rs::<C::O, 8, RO>(pa, v_desc.operand(generic_to_shared(self.smem.v(state.index(), C::D)), 0), o, true);
        wgmma_commit_group();
    }

    /// Masks the scores of key block `n` that no query may see: keys past `seqlen_k`, and with a
    /// causal mask those after a query's diagonal. Only the blocks at the end of the keys or
    /// across the diagonal hold such scores; the others pass untouched.
    #[inline(always)]
    fn mask<C: Config>(&self, n: u32, s: &mut [f32; 64]) {
        let p = &self.p;
        let shift = p.seqlen_k as i64 - p.seqlen_q as i64;
        let key0 = (n * ATTENTION_SM90_BN) as i64;
        let last_key = key0 + ATTENTION_SM90_BN as i64 - 1;
        if last_key >= p.seqlen_k as i64 || (p.causal && last_key > self.first_row + shift) {
            let (row0, col0) = (self.row0, self.col0);
            for_each_unrolled_mut(s, |v, x| {
                let at = C::S::LAYOUT_C.call(128 * v as i64);
                let (row, key) = (row0 + at % 64, key0 + col0 + at / 64);
                if key >= p.seqlen_k as i64 || (p.causal && key > row + shift) {
                    *x = f32::NEG_INFINITY;
                }
            });
        }
    }
}

/// The turns of the two consumer warpgroups at issuing their products (FlashAttention-3's
/// warp-scheduler barriers): named barrier `1 + w` of 256 threads is warpgroup `w`'s turn; it
/// waits on its own (`bar.sync`) and hands the turn over by arriving on the other's
/// (`bar.arrive`). Warpgroup 0 goes first: warpgroup 1 arrives on its barrier once at the start.
/// Both take `steps` turns; warpgroup 1 does not hand over its last (warpgroup 0 has no turn left
/// to wait for), so every barrier completes as many times as it is waited on.
#[derive(Clone, Copy)]
struct Turns {
    slice: u32,
    steps: u32,
}

impl Turns {
    /// Warpgroup 1 lets warpgroup 0 take the first turn.
    #[inline(always)]
    fn start(&self) {
        if self.slice == 1 && self.steps > 0 {
            NamedBarrier::<1, 256>::new().arrive();
        }
    }

    /// Waits for this warpgroup's turn.
    #[inline(always)]
    fn wait(&self) {
        if self.slice == 0 {
            NamedBarrier::<1, 256>::new().sync();
        } else {
            NamedBarrier::<2, 256>::new().sync();
        }
    }

    /// Hands the turn over to the other warpgroup after the step whose key block is `n` (the
    /// steps run `n = steps - 1` down to 0).
    #[inline(always)]
    fn hand_over(&self, n: u32) {
        if self.slice == 0 {
            NamedBarrier::<2, 256>::new().arrive();
        } else if n > 0 {
            NamedBarrier::<1, 256>::new().arrive();
        }
    }
}

/// P in registers as the A operand of `O += P V` (`S`'s accumulators rounded to 16 bits).
#[inline(always)]
fn p_operand<C: Config>(s: &[f32; 64]) -> [[u32; 4]; 8] {
    if C::F16 {
        accumulators_as_a::<8, 64, true>(s)
    } else {
        accumulators_as_a::<8, 64, false>(s)
    }
}

/// A consumer warpgroup (`slice`: its 64 query rows of the block; `lane`: the thread's index in
/// it): for each key block, `S = Q K^T`, the mask and the online softmax, `O += P V`; then O
/// divided by the row sums and the log-sum-exp.
///
/// With `OVERLAP` (FlashAttention-3's intra-warpgroup overlap), the softmax of block `j` runs
/// while the tensor cores compute `P_{j-1} V_{j-1}`: each step issues `S_j = Q K_j^T` and
/// `O += P_{j-1} V_{j-1}`, waits for the first, computes `P_j` while the second runs, then
/// rescales O. Without it, each product is waited for before the softmax that follows it.
///
/// With `PINGPONG` as well (FlashAttention-3's inter-warpgroup ping-pong), the two consumer
/// warpgroups take turns to issue their products: each waits for its turn ([`Turns`]) before
/// issuing a step's two products and hands the turn over right after, so that one warpgroup's
/// softmax runs while the other's products occupy the tensor cores.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn consume<C: Config, const RO: usize, const KQ: u32, const OVERLAP: bool, const PINGPONG: bool>(
    smem: Shared,
    (m_block, head, batch): (u32, u32, u32),
    blocks: u32,
    p: Problem<C::E>,
    slice: u32,
    lane: u32,
) {
    let mine = C::S::LAYOUT_C.call(lane as i64);
    let first_row = (m_block * ATTENTION_SM90_BM + 64 * slice) as i64;
    let me = Consumer { smem, p, slice, row0: first_row + mine % 64, col0: mine / 64, first_row };
    let release = |pipe: &PipelineTmaAsync<ATTENTION_SM90_STAGES>, state| {
        if lane == 0 {
            pipe.consumer_release(state);
        }
    };
    let mut softmax = OnlineSoftmax::new();
    let mut o = [0f32; RO];
    smem.q_bar().wait_parity(0);
    let mut state = PipelineState::<ATTENTION_SM90_STAGES>::consumer_start();
    if OVERLAP && blocks > 0 {
        let mut s = [0f32; 64];
        me.issue_qk::<C, KQ>(state, &mut s);
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut s);
        release(&smem.k, state);
        me.mask::<C>(blocks - 1, &mut s);
        softmax.step::<C::S>(&mut s, p.scale_log2);
        let mut pa = p_operand::<C>(&s);
        let mut previous = state;
        state.advance();
        let turns = Turns { slice, steps: blocks - 1 };
        if PINGPONG {
            turns.start();
        }
        for n in (0..blocks - 1).rev() {
            if PINGPONG {
                turns.wait();
            }
            me.issue_qk::<C, KQ>(state, &mut s);
            me.issue_pv::<C, RO>(previous, &pa, &mut o);
            if PINGPONG {
                turns.hand_over(n);
            }
            wgmma_wait_group::<1>();
            wgmma_fence_operands(&mut s);
            release(&smem.k, state);
            me.mask::<C>(n, &mut s);
            let alpha = softmax.step::<C::S>(&mut s, p.scale_log2);
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut o);
            wgmma_fence_a_operands(&mut pa);
            release(&smem.v, previous);
            for_each_unrolled_mut(&mut o, |v, x| *x *= alpha[half_of(C::O::LAYOUT_C, v)]);
            pa = p_operand::<C>(&s);
            previous = state;
            state.advance();
        }
        me.issue_pv::<C, RO>(previous, &pa, &mut o);
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut o);
        wgmma_fence_a_operands(&mut pa);
        release(&smem.v, previous);
    } else {
        for n in (0..blocks).rev() {
            let mut s = [0f32; 64];
            me.issue_qk::<C, KQ>(state, &mut s);
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut s);
            release(&smem.k, state);
            me.mask::<C>(n, &mut s);
            let alpha = softmax.step::<C::S>(&mut s, p.scale_log2);
            for_each_unrolled_mut(&mut o, |v, x| *x *= alpha[half_of(C::O::LAYOUT_C, v)]);
            let mut pa = p_operand::<C>(&s);
            me.issue_pv::<C, RO>(state, &pa, &mut o);
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut o);
            wgmma_fence_a_operands(&mut pa);
            release(&smem.v, state);
            state.advance();
        }
    }
    store_output::<C, RO>(&mut o, &softmax, p, (head, batch), (me.row0, me.col0), lane);
}

/// The epilogue: O divided by its row sums (rows past `seqlen_q` not stored; a row that saw no
/// key stores zeros), 16-bit pairs stored directly from the accumulators, and each row's
/// log-sum-exp by the first thread of its quad.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
unsafe fn store_output<C: Config, const RO: usize>(
    o: &mut [f32; RO],
    softmax: &OnlineSoftmax,
    p: Problem<C::E>,
    (head, batch): (u32, u32),
    (row0, col0): (i64, i64),
    lane: u32,
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
    let [ob, os, oh] = p.o_strides;
    let base = p.o.wrapping_add((batch as u64 * ob + head as u64 * oh) as usize);
    for_each_unrolled_mut(o, |v, x| *x *= inverse[half_of(C::O::LAYOUT_C, v)]);
    unroll_for::<Count<RO>>(|v| {
        if v % 2 == 1 {
            return;
        }
        let at = C::O::LAYOUT_C.call(128 * v as i64);
        let (row, col) = (row0 + at % 64, col0 + at / 64);
        if row < p.seqlen_q as i64 {
            let pair = if C::F16 { f32x2_to_f16x2(o[v], o[v + 1]) } else { f32x2_to_bf16x2(o[v], o[v + 1]) };
            // SAFETY: inside O (row < seqlen_q, col + 1 < d); 4-byte aligned (even strides and
            // column, checked by the host).
            *(base.wrapping_add((row as u64 * os) as usize + col as usize) as *mut u32) = pair;
        }
    });
    if lane % 4 == 0 {
        for (half, lse) in lse.iter().enumerate() {
            let row = row0 + 8 * half as i64;
            if row < p.seqlen_q as i64 {
                *p.lse.wrapping_add(((batch * p.heads + head) as u64 * p.seqlen_q as u64 + row as u64) as usize) = *lse;
            }
        }
    }
}

macro_rules! attention_sm90_kernels {
    ($($(#[$attr:meta])* $name:ident: $config:ty, $e:ty, $ro:literal, $kq:literal, $overlap:literal, $pingpong:literal;)*) => {$(
        $(#[$attr])*
        #[kernel(launch_bounds(384, 1), gpu_only)]
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            q_map: TmaDescriptorParam,
            k_map: TmaDescriptorParam,
            v_map: TmaDescriptorParam,
            o: *mut $e,
            lse: *mut f32,
            heads: u32,
            heads_kv: u32,
            seqlen_q: u32,
            seqlen_k: u32,
            o_batch: u64,
            o_seq: u64,
            o_head: u64,
            scale_log2: f32,
            causal: u32,
        ) {
            let p = Problem { heads, heads_kv, seqlen_q, seqlen_k, scale_log2, causal: causal != 0, o, o_strides: [o_batch, o_seq, o_head], lse };
            attention_block::<$config, $ro, $kq, $overlap, $pingpong>([q_map.as_ptr(), k_map.as_ptr(), v_map.as_ptr()], p);
        }
    )*};
}

attention_sm90_kernels! {
    /// Attention forward, bf16, head dimension 64, the softmax overlapping the previous block's
    /// `P V` and the two consumer warpgroups taking turns at the tensor cores: see the module
    /// documentation. `scale_log2` is the softmax scale times `log2(e)`; `o_*` are O's element
    /// strides (even).
    attention_sm90_bf16_d64: Bf16D64, bf16, 32, 4, true, true;
    /// [`attention_sm90_bf16_d64`] for head dimension 128.
    attention_sm90_bf16_d128: Bf16D128, bf16, 64, 8, true, true;
    /// [`attention_sm90_bf16_d64`] for f16.
    attention_sm90_f16_d64: F16D64, f16, 32, 4, true, true;
    /// [`attention_sm90_bf16_d64`] for f16, head dimension 128.
    attention_sm90_f16_d128: F16D128, f16, 64, 8, true, true;
    /// [`attention_sm90_bf16_d64`] without the ping-pong (the step before it, kept to measure
    /// it).
    attention_sm90_bf16_d64_overlap: Bf16D64, bf16, 32, 4, true, false;
    /// [`attention_sm90_bf16_d64_overlap`] for head dimension 128.
    attention_sm90_bf16_d128_overlap: Bf16D128, bf16, 64, 8, true, false;
    /// [`attention_sm90_bf16_d64`] with each product waited for before the softmax that follows
    /// (the warp-specialized step before the overlap, kept to measure it).
    attention_sm90_bf16_d64_serial: Bf16D64, bf16, 32, 4, false, false;
    /// [`attention_sm90_bf16_d64_serial`] for head dimension 128.
    attention_sm90_bf16_d128_serial: Bf16D128, bf16, 64, 8, false, false;
}
