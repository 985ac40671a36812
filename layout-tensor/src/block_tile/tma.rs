//! TMA loads of block tiles: cuTile's `ct.load(array, index, shape, allow_tma=True)`.
//!
//! One thread of the block asks the copy engine for the whole tile (`cp.async.bulk.tensor`, one
//! instruction however large the tile), the bytes land in the block's shared memory and complete
//! a transaction barrier, and every thread then reads its values from there. Elements outside
//! the array are filled by the copy engine (zero or NaN, as the array's tensor map says), so the
//! edges cost nothing. A [`TmaStage`] holds the barrier and the box in a [`Scratch`], and keeps
//! the barrier's phase across loads.
//!
//! The array is a [`TmaArray`]: its tensor map is made on the host for boxes of the tile's shape.
//! A tile of another shape (or an array whose boxes are swizzled) is loaded with ordinary loads
//! ([`BlockTile::load`]), as cuTile treats `allow_tma` as a hint.

use core::marker::PhantomData;

use super::memory::{tile_origin, vector_width, Bounds};
use super::{thread, BlockTile, Scratch, TvLayout};
use crate::device::sync::{fence_mbarrier_init, sync_threads, Mbarrier};
use crate::device::tma::fence_proxy_tensormap_acquire;
use crate::tensor::Element;
use crate::tma_copy::{tma_load_rank, TmaArray};
use crate::Strided;

/// Where the box starts in the scratch: past the barrier, at TMA's 128-byte alignment.
const BOX_OFFSET: usize = 128;

/// The block's staging area for TMA tile loads: a transaction barrier and the box, in a
/// [`Scratch`] of `BYTES` bytes (128 bytes for the barrier, then the tile), with the barrier's
/// current phase.
///
/// # Constraints
/// The scratch is the stage's alone while the stage is used: a reduction through the same
/// scratch would overwrite the barrier.
///
/// # Example
/// ```no_run
/// use cute_rs_tensor::block_tile::tma::TmaStage;
/// let scratch = cute_rs_tensor::block_scratch!(TMA_DOC_STAGE, 128 + 64 * 64 * 4);
/// let mut stage = TmaStage::new(&scratch); // every thread of the block
/// # let _ = &mut stage;
/// ```
pub struct TmaStage<'s, const BYTES: usize> {
    scratch: &'s Scratch<BYTES>,
    phase: u32,
}

impl<'s, const BYTES: usize> TmaStage<'s, BYTES> {
    /// The stage in `scratch`: thread 0 initializes the barrier, then the block synchronizes.
    ///
    /// # Constraints
    /// Every thread of the block calls it. `BYTES` is at least 128 (a compile-time error
    /// otherwise).
    ///
    /// # Example
    /// See [`TmaStage`].
    #[inline(always)]
    pub fn new(scratch: &'s Scratch<BYTES>) -> Self {
        const { assert!(BYTES >= BOX_OFFSET, "TmaStage: the scratch needs 128 bytes for the barrier, then the tile") };
        let stage = TmaStage { scratch, phase: 0 };
        if thread() == 0 {
            // SAFETY: one thread initializes the barrier before the block barrier publishes it.
            unsafe { stage.barrier().init(1) };
            fence_mbarrier_init();
        }
        sync_threads();
        stage
    }

    #[inline(always)]
    fn barrier(&self) -> &Mbarrier {
        // SAFETY: the first 8 bytes of the block's scratch (1024-byte aligned, shared memory).
        unsafe { Mbarrier::from_ptr(self.scratch.slots::<u8>()) }
    }
}

/// Compile-time facts of a TMA tile load of `L`'s tiles of `T` through a `BYTES`-byte stage.
struct TmaTile<T, L, const R: usize, const BYTES: usize>(PhantomData<(T, L)>);
impl<T, L: TvLayout, const R: usize, const BYTES: usize> TmaTile<T, L, R, BYTES> {
    const BYTES: usize = {
        let mut n = core::mem::size_of::<T>();
        let mut d = 0;
        while d < R {
            let s = L::MAP.shape[d];
            if s < 1 || s > 256 {
                panic!("load_tma: each extent of the tile must be 1 to 256 (a TMA box)");
            }
            n *= s as usize;
            d += 1;
        }
        if (L::MAP.shape[R - 1] as usize * core::mem::size_of::<T>()) % 16 != 0 {
            panic!("load_tma: the tile's last extent in bytes must be a multiple of 16 (a TMA box's inner extent)");
        }
        if BOX_OFFSET + n > BYTES {
            panic!("load_tma: the stage's scratch must hold 128 bytes plus the tile");
        }
        n
    };
}

impl<T: Element + 'static, L: TvLayout> BlockTile<T, L> {
    /// Loads the tile of `array` at tile `index` with one TMA copy (cuTile's `ct.load(array,
    /// index, shape, allow_tma=True)`): element `c` of the tile is `array[index * shape + c]`, or
    /// [`array.padding()`](TmaArray::padding) outside the array.
    ///
    /// Thread 0 issues the copy into the stage; every thread waits for it and reads its values
    /// (16-byte vectors where the layout gives runs). The block synchronizes first, so that the
    /// previous tile of the stage has been read. When the array's map is for boxes of another
    /// shape than the tile's, or swizzles them, the tile is loaded with [`load`](Self::load)
    /// instead.
    ///
    /// # Args
    /// - `array`: the array and its tensor map.
    /// - `index`: the tile's index in the grid of tiles covering the array (any, even outside).
    /// - `stage`: the block's staging area (the same one for every load of the kernel is fine).
    ///
    /// # Constraints
    /// Compile-time errors: the array's rank is the tile's; each tile extent is 1 to 256; the
    /// tile's last extent is a multiple of 16 bytes; the stage's scratch holds 128 bytes plus the
    /// tile. Every thread of the block calls it.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::device::tma::CpuTensorMap;
    /// use cute_rs_tensor::block_tile::{tma::TmaStage, BlockTile};
    /// use cute_rs_tensor::{block_scratch, blocked_layout, tma_copy::TmaArray, LayoutTensor, Strided};
    /// blocked_layout!(T4x8 = shape [4, 8], size_per_thread [1, 1], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
    /// let mut x: Vec<f32> = (0..6 * 12).map(|i| i as f32).collect();
    /// let tensor = LayoutTensor::new(&mut x, Strided::row_major([6, 12])).unwrap();
    /// let map = CpuTensorMap::encode(tensor.as_ptr() as u64, 4, &[12, 6], &[48], &[8, 4], &[1, 1], 0, true).unwrap();
    /// let array = unsafe { TmaArray::from_parts(tensor, &map, [4, 8], 0, f32::NAN) };
    /// let scratch = block_scratch!(TMA_LOAD_EXAMPLE, 256);
    /// let mut stage = TmaStage::new(&scratch);
    /// // Tile (1, 1) covers rows 4..8 and columns 8..16: thread 0 holds element (4, 8) = 56.
    /// let t = BlockTile::<f32, T4x8>::load_tma(&array, [1, 1], &mut stage);
    /// if cute_rs_tensor::device::ids::thread_idx_x() == 0 {
    ///     assert_eq!(t.values(), &[56.0]);
    /// }
    /// if cute_rs_tensor::device::ids::thread_idx_x() == 31 {
    ///     assert!(t.values()[0].is_nan()); // element (7, 15): outside the 6 x 12 array
    /// }
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn load_tma<const R: usize, const BYTES: usize>(array: &TmaArray<T, R>, index: [i64; R], stage: &mut TmaStage<'_, BYTES>) -> Self {
        let bytes = TmaTile::<T, L, R, BYTES>::BYTES;
        let origin = tile_origin::<L, R>(index);
        let box_shape = array.box_shape();
        let mut shape = [0i64; R];
        let mut same = true;
        let mut d = 0;
        while d < R {
            shape[d] = L::MAP.shape[d];
            same &= box_shape[d] == shape[d];
            d += 1;
        }
        if !same || array.swizzle_bytes() != 0 {
            return Self::load(&array.tensor(), index, array.padding());
        }
        let bar = stage.barrier();
        // SAFETY: the scratch holds the box at `BOX_OFFSET` (checked above), 128-byte aligned.
        let smem = unsafe { stage.scratch.slots::<u8>().add(BOX_OFFSET) } as *mut T;
        // The previous tile in the stage has been read by every thread.
        sync_threads();
        if thread() == 0 {
            // TMA's coordinates are the map's modes: the array's dimensions, innermost first.
            let mut c = [0i32; 5];
            let mut d = 0;
            while d < R {
                c[d] = origin[R - 1 - d] as i32;
                d += 1;
            }
            let dst = smem as *mut u8;
            let map = array.map();
            // SAFETY: `map` describes the array with boxes of the tile's shape (`TmaArray`'s
            // contract, and the shapes compared above); the box's inner extent is a multiple of 16
            // bytes, so is `c[0]`'s byte offset; the stage's barrier expects these bytes.
            unsafe {
                fence_proxy_tensormap_acquire(map);
                bar.arrive_expect_tx(bytes as u32);
                tma_load_rank::<R>(dst, map, c, bar);
            }
        }
        // SAFETY: the barrier was initialized by the stage; its phase counts the stage's loads.
        unsafe { bar.wait_parity(stage.phase) };
        stage.phase ^= 1;
        // The box is the tile, compact in C order (the array's last dimension innermost). Its runs
        // are aligned vectors: the box starts 128 bytes into the 1024-byte-aligned scratch, and
        // every stride is a multiple of the last extent, which the vector width divides.
        let layout = Strided::row_major(shape);
        let vector = vector_width::<T, L>(R) >= 2;
        Self::load_in(smem, &layout, [0; R], &Bounds { lo: [0; R], hi: shape }, vector, T::ZERO)
    }
}
