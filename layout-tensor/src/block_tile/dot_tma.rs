//! Products whose operand tiles arrive by TMA: [`dot_range_tma`], Triton's `tl.dot` K loop over
//! tiles loaded through tensor descriptors (`desc.load([m, k])`), CUTLASS's TMA main loop.
//!
//! Each step's A and B tiles are copied by the copy engine straight into the ring's slots, in the
//! panels and swizzle the product reads ([`OperandTile`], [`RowSwizzle`]): one thread issues a
//! `cp.async.bulk.tensor` per panel and the slot's transaction barrier counts the bytes in, so
//! the other threads issue no copies and hold no addresses. The arrays are
//! [`TmaArray`]s whose maps were made for those panels (`Gpu::tma_dot_operand` in
//! `cute-rs-host`); elements outside them are zeros, which the copy engine writes.

use core::marker::PhantomData;

use super::dot::{check_operands, check_stages, dot_range_aligned, multiply_staged, panel_width, slot_tiles, tile_bytes, DotInstruction, DotLayoutOf};
use super::{thread, BlockTile, Scratch, TvLayout};
use crate::device::sync::{fence_mbarrier_init, sync_threads, Mbarrier};
use crate::device::tma::fence_proxy_tensormap_acquire;
use crate::tensor::Element;
use crate::tma_copy::{tma_load_rank, TmaArray};

/// The box and swizzle span (bytes) of the TMA copies that write `L`'s tile of `T` staged for
/// `I`: one copy per panel, `[rows, panel width]`, swizzled as [`RowSwizzle`] says; `None` when
/// the copy engine cannot write that tile (rows wider than a 128-byte swizzle, more than 256
/// rows, rows not a multiple of 8: panels that are not whole swizzle periods).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::SM90_64x256x16_F32F16F16_SS as W;
/// use cute_rs_tensor::block_tile::dot::{MmaSync, Wgmma};
/// use cute_rs_tensor::block_tile::dot_tma::staged_box;
/// use cute_rs_tensor::{blocked_layout, half::f16};
/// blocked_layout!(B = shape [64, 256], size_per_thread [1, 8], threads_per_warp [1, 32], warps_per_cta [8, 1], order [1, 0]);
/// // wgmma reads B in panels of 64 columns (128-byte rows, the 128-byte swizzle).
/// assert_eq!(staged_box::<f16, B, Wgmma<W>>(), Some(([64, 64], 128)));
/// // mma.sync stages whole rows of 512 bytes, which no TMA swizzle covers.
/// assert_eq!(staged_box::<f16, B, MmaSync>(), None);
/// ```
///
/// [`RowSwizzle`]: super::dot::RowSwizzle
pub const fn staged_box<T, L: TvLayout, I: DotInstruction>() -> Option<([i64; 2], u32)> {
    let (rows, cols) = (L::SHAPE[0], L::SHAPE[1]);
    let panel = panel_width(cols, I::PANEL);
    let row_bytes = panel as usize * core::mem::size_of::<T>();
    let swizzle = match row_bytes {
        16 => 0,
        32 | 64 | 128 => row_bytes as u32,
        _ => return None,
    };
    // Each panel starts a whole number of swizzle periods (8 rows) into its slot.
    if rows > 256 || rows % 8 != 0 {
        return None;
    }
    Some(([rows, panel], swizzle))
}

/// Whether `array`'s map writes `L`'s staged tiles of `I` ([`staged_box`]).
#[inline(always)]
fn stages<T: Element, L: TvLayout, I: DotInstruction>(array: &TmaArray<T, 2>) -> bool {
    match const { staged_box::<T, L, I>() } {
        Some((shape, swizzle)) => array.box_shape() == shape && array.swizzle_bytes() == swizzle,
        None => false,
    }
}

/// The TMA copies of a [`dot_range_tma`]: its arrays, their tile indices per step, the ring of
/// `STAGES` slots at `base` and, past them, one transaction barrier per slot.
struct TmaRing<'s, const STAGES: usize, T: 'static, LA, LB, LC, FA, FB> {
    base: *mut T,
    a: &'s TmaArray<T, 2>,
    a_at: FA,
    b: &'s TmaArray<T, 2>,
    b_at: FB,
    layouts: PhantomData<(LA, LB, LC)>,
}

impl<const STAGES: usize, T, LA, LB, LC, FA, FB> TmaRing<'_, STAGES, T, LA, LB, LC, FA, FB>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
    FA: Fn(i64) -> [i64; 2],
    FB: Fn(i64) -> [i64; 2],
{
    /// The transaction barrier of `slot`.
    #[inline(always)]
    fn barrier(&self, slot: u32) -> &Mbarrier {
        let at = STAGES * tile_bytes::<LA, LB>() + 8 * slot as usize;
        // SAFETY: inside the scratch past the slots (checked by `dot_range_tma`), 8-byte aligned
        // (the slots are multiples of 1024 bytes).
        unsafe { Mbarrier::from_ptr((self.base as *mut u8).wrapping_add(at)) }
    }

    /// Thread 0's copies of step `step`'s tiles into `slot`, counted by the slot's barrier.
    #[inline(always)]
    fn load(&self, step: u32, slot: u32) {
        let (a, b) = slot_tiles::<T, LA, LB>(self.base, slot);
        let bar = self.barrier(slot);
        // SAFETY: the slot is free (the caller's barrier follows its last products); the barrier
        // expects both tiles' bytes, which the panels' copies deliver.
        unsafe {
            bar.arrive_expect_tx(tile_bytes::<LA, LB>() as u32);
            copy_panels::<T, LA, LC::Instruction>(self.a, (self.a_at)(step as i64), a, bar);
            copy_panels::<T, LB, LC::Instruction>(self.b, (self.b_at)(step as i64), b, bar);
        }
    }
}

/// The TMA copies of `array`'s tile `index` (of `L`'s shape) into the staged tile at `smem`: one
/// copy per panel, panel `j` (columns `j p ..`) at `j p rows` elements.
///
/// # Safety
/// `array`'s map has [`staged_box`]'s box and swizzle; `smem` is the slot's tile in shared
/// memory, aligned to 1024 bytes; `bar` expects the bytes.
#[inline(always)]
unsafe fn copy_panels<T: Element, L: TvLayout, I: DotInstruction>(array: &TmaArray<T, 2>, index: [i64; 2], smem: *mut T, bar: &Mbarrier) {
    let (rows, cols) = (L::SHAPE[0], L::SHAPE[1]);
    let panel = const { panel_width(L::SHAPE[1], I::PANEL) };
    let (r0, c0) = (index[0] * rows, index[1] * cols);
    for j in 0..cols / panel {
        let dst = smem.wrapping_add((j * panel * rows) as usize) as *mut u8;
        // SAFETY: the caller's; TMA's coordinates are innermost first (column, row).
        unsafe { tma_load_rank::<2>(dst, array.map(), [(c0 + j * panel) as i32, r0 as i32, 0, 0, 0], bar) };
    }
}

/// [`dot_range`](super::dot_range) with the operand tiles copied by TMA: `acc + sum over k <
/// steps of A(a_at(k)) B(b_at(k))`, where `A(i)` is the `M x K` tile `i` of `a` and `B(j)` the
/// `K x N` tile `j` of `b`, zeros outside the arrays.
///
/// Thread 0 issues each step's copies (one per 64-column panel on `wgmma`) into a ring of
/// `STAGES` slots, `STAGES - 2` steps ahead on `wgmma` (the products of two steps may be in
/// flight), `STAGES - 1` on `mma.sync`; every thread waits for its step's slot on the slot's
/// transaction barrier, then multiplies as [`dot`](super::dot) does.
///
/// TMA is a hint, as cuTile's `allow_tma`: when an array's map does not write the tiles as the
/// product stages them ([`staged_box`]), or when a stage of A and B is not a multiple of 1024
/// bytes (the slots' alignment), the product runs as
/// [`dot_range_aligned`](super::dot_range_aligned) on the arrays' tensors (the same result).
///
/// # Parameters
/// - `STAGES`: the ring's slots, 2 to 5 (3 to 5 on `wgmma`).
/// - `T`, `LA`, `LB`, `LC`: as for [`dot`](super::dot).
///
/// # Args
/// - `steps`: the number of products.
/// - `a`, `b`: the arrays with their maps (`Gpu::tma_dot_operand` on the host makes them for
///   `LA`'s and `LB`'s shapes).
/// - `a_at`, `b_at`: the tile indices of step `k`.
/// - `acc`: the accumulator, returned with the products added.
/// - `scratch`: the block's scratch: `STAGES` slots of both tiles, then 8 bytes per slot for
///   the barriers.
///
/// # Constraints
/// Those of [`dot_range_aligned`](super::dot_range_aligned) (its layouts give each thread runs
/// of 8 elements along the rows), with a scratch of `STAGES (2 (M K + K N) + 8)` bytes (checked
/// at compile time). Every thread of the block calls it with the same `steps`; it synchronizes
/// the block, and on return no copy is in flight and the scratch is free.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(128, &|| {
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::{dot_range_tma, BlockTile};
/// use cute_rs_tensor::device::tma::CpuTensorMap;
/// use cute_rs_tensor::half::f16;
/// use cute_rs_tensor::tma_copy::TmaArray;
/// use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, static_layout, LayoutTensor, Strided};
/// static_layout!(Warps = "(2,2,1)");
/// blocked_layout!(A = shape [32, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [4, 1], order [1, 0]);
/// dot_layout!(Acc = mma TiledMma<Atom, Warps>, shape [32, 32]);
/// // A = ones (32 x 40), B = ones (40 x 32): every element of A B is 40 (the last step is ragged).
/// let (mut av, mut bv) = (vec![f16::ONE; 32 * 40], vec![f16::ONE; 40 * 32]);
/// let a = LayoutTensor::new(&mut av, Strided::row_major([32, 40])).unwrap();
/// let b = LayoutTensor::new(&mut bv, Strided::row_major([40, 32])).unwrap();
/// // Boxes of the staged tiles: rows of 32 elements (64 bytes), the 64-byte swizzle, zeros outside.
/// let ma = CpuTensorMap::encode(a.as_ptr() as u64, 2, &[40, 32], &[80], &[32, 32], &[1, 1], 64, false).unwrap();
/// let mb = CpuTensorMap::encode(b.as_ptr() as u64, 2, &[32, 40], &[64], &[32, 32], &[1, 1], 64, false).unwrap();
/// let (a, b) = unsafe { (TmaArray::from_parts(a, &ma, [32, 32], 64, f16::ZERO), TmaArray::from_parts(b, &mb, [32, 32], 64, f16::ZERO)) };
/// let scratch = block_scratch!(DOT_RANGE_TMA_EXAMPLE, 3 * (4096 + 8));
/// let acc = dot_range_tma::<3, f16, A, A, Acc, 12312>(2, &a, |k| [0, k], &b, |k| [k, 0], BlockTile::zeros(), &scratch);
/// assert!(acc.values().iter().all(|&x| x == 40.0));
/// # }).unwrap();
/// ```
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn dot_range_tma<const STAGES: usize, T, LA, LB, LC, const BYTES: usize>(
    steps: i64,
    a: &TmaArray<T, 2>,
    a_at: impl Fn(i64) -> [i64; 2],
    b: &TmaArray<T, 2>,
    b_at: impl Fn(i64) -> [i64; 2],
    acc: BlockTile<f32, LC>,
    scratch: &Scratch<BYTES>,
) -> BlockTile<f32, LC>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    check_operands::<T, LA, LB, LC, STAGES, BYTES>();
    check_stages::<LC, STAGES>();
    const { assert!(STAGES * (tile_bytes::<LA, LB>() + 8) <= BYTES, "dot_range_tma: the scratch must hold the slots and a barrier of 8 bytes per slot") };
    // The slots, and B's tile in each, start at multiples of 1024 bytes: TMA's alignment for
    // every swizzle.
    let aligned = const { (2 * LA::SHAPE[0] * LA::SHAPE[1]) % 1024 == 0 && tile_bytes::<LA, LB>() % 1024 == 0 };
    if !(aligned && stages::<T, LA, LC::Instruction>(a) && stages::<T, LB, LC::Instruction>(b)) {
        return dot_range_aligned::<STAGES, T, LA, LB, LC, BYTES>(steps, &a.tensor(), a_at, &b.tensor(), b_at, acc, scratch);
    }
    let ring = TmaRing::<STAGES, T, LA, LB, LC, _, _> { base: scratch.slots::<T>(), a, a_at, b, b_at, layouts: PhantomData };
    let mut acc = acc;
    tma_products(steps.max(0) as u32, &ring, &mut acc);
    acc
}

/// The K loop of [`dot_range_tma`]. Each step: a block barrier (after which the slot the next
/// copies land in has been read by every thread: on `wgmma` every warpgroup has waited for the
/// products of two steps back), thread 0 issues the copies of step `step + ahead`, every thread
/// waits for its step's slot (the barrier's phase is the slot's use count, mod 2) and issues its
/// products.
#[inline(always)]
fn tma_products<const STAGES: usize, T, LA, LB, LC, FA, FB>(steps: u32, ring: &TmaRing<'_, STAGES, T, LA, LB, LC, FA, FB>, acc: &mut BlockTile<f32, LC>)
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
    FA: Fn(i64) -> [i64; 2],
    FB: Fn(i64) -> [i64; 2],
{
    let slots = STAGES as u32;
    let ahead = if LC::Instruction::WGMMA { slots - 2 } else { slots - 1 };
    let leader = thread() == 0;
    // Earlier users of the scratch are done before the barriers are made in it.
    sync_threads();
    if leader {
        for s in 0..slots {
            // SAFETY: one thread initializes the barriers before the block barrier publishes them.
            unsafe { ring.barrier(s).init(1) };
        }
        fence_mbarrier_init();
        // SAFETY: the maps are the arrays' (`TmaArray`'s contract), in global memory.
        unsafe {
            fence_proxy_tensormap_acquire(ring.a.map());
            fence_proxy_tensormap_acquire(ring.b.map());
        }
        for s in 0..ahead.min(steps) {
            ring.load(s, s);
        }
    }
    #[cfg(target_arch = "nvptx64")]
    if LC::Instruction::WGMMA {
        super::dot::fence_accumulators(acc);
    }
    for step in 0..steps {
        sync_threads();
        let next = step + ahead;
        if leader && next < steps {
            ring.load(next, next % slots);
        }
        let slot = step % slots;
        // SAFETY: initialized above; the slot's `step / slots`-th load completes this phase.
        unsafe { ring.barrier(slot).wait_parity((step / slots) & 1) };
        let (a, b) = slot_tiles::<T, LA, LB>(ring.base, slot);
        #[cfg(target_arch = "nvptx64")]
        if LC::Instruction::WGMMA {
            // SAFETY: the slot has landed (its barrier); the whole warpgroup issues; the products
            // of the step before may run on until the wait.
            unsafe {
                super::dot::issue_products::<T, LA, LB, LC>(a, b, acc);
                crate::device::mma::wgmma_wait_group::<1>();
            }
            continue;
        }
        multiply_staged::<T, LA, LB, LC>(a, b, acc);
    }
    #[cfg(target_arch = "nvptx64")]
    if LC::Instruction::WGMMA {
        // SAFETY: waits for the warpgroup's last products.
        unsafe { crate::device::mma::wgmma_wait_group::<0>() };
        super::dot::fence_accumulators(acc);
    }
    // Every thread is done with the slots and the barriers: the scratch is free.
    sync_threads();
}
