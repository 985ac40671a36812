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

use core::cell::Cell;
use core::marker::PhantomData;

use super::memory::{tile_origin, vector_width, Bounds};
use super::{thread, BlockTile, Scratch, TvLayout};
use crate::device::sync::{fence_mbarrier_init, sync_threads, Mbarrier};
use crate::device::tma::{bulk_commit_group, bulk_wait_group, fence_proxy_async_shared_cta, fence_proxy_tensormap_acquire};
use crate::tensor::Element;
use crate::tma_copy::{tma_load_rank, tma_store_rank, TmaArray};
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
    phase: Cell<u32>,
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
        let stage = TmaStage { scratch, phase: Cell::new(0) };
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

/// Compile-time facts of a TMA copy of `L`'s tiles of `T` through a `BYTES`-byte stage.
struct TmaTile<T, L, const R: usize, const BYTES: usize>(PhantomData<(T, L)>);
impl<T, L: TvLayout, const R: usize, const BYTES: usize> TmaTile<T, L, R, BYTES> {
    /// Why a TMA copy of the tile cannot be, or `None`: each extent 1 to 256 (a TMA box), the last
    /// one a multiple of 16 bytes (a box's inner extent), and the stage large enough.
    const UNFIT: Option<&'static str> = {
        let mut why = None;
        let mut d = 0;
        while d < R {
            let s = L::MAP.shape[d];
            if s < 1 || s > 256 {
                why = Some("each extent of the tile must be 1 to 256 (a TMA box)");
            }
            d += 1;
        }
        if why.is_none() && (L::MAP.shape[R - 1] as usize * core::mem::size_of::<T>()) % 16 != 0 {
            why = Some("the tile's last extent in bytes must be a multiple of 16 (a TMA box's inner extent)");
        }
        if why.is_none() && BOX_OFFSET + tile_bytes::<T, L, R>() > BYTES {
            why = Some("the stage's scratch must hold 128 bytes plus the tile");
        }
        why
    };
    /// The tile's bytes; a compile-time error naming the condition when it does not fit a TMA box
    /// and the stage.
    const BYTES: usize = {
        if let Some(why) = Self::UNFIT {
            panic!("{}", why);
        }
        tile_bytes::<T, L, R>()
    };
}

/// The bytes of one of `L`'s tiles of `T` (of rank `R`).
const fn tile_bytes<T, L: TvLayout, const R: usize>() -> usize {
    let mut n = core::mem::size_of::<T>();
    let mut d = 0;
    while d < R {
        n *= L::MAP.shape[d] as usize;
        d += 1;
    }
    n
}

/// Whether `array`'s map moves `L`'s tiles as they are: boxes of the tile's shape, unswizzled.
#[inline(always)]
fn boxes_are_tiles<T: Element, L: TvLayout, const R: usize>(array: &TmaArray<T, R>) -> bool {
    let box_shape = array.box_shape();
    let mut d = 0;
    while d < R {
        if box_shape[d] != L::MAP.shape[d] {
            return false;
        }
        d += 1;
    }
    array.swizzle_bytes() == 0
}

/// The TMA coordinates of the tile at `index`: the map's modes are the array's dimensions,
/// innermost first.
#[inline(always)]
fn box_coords<L: TvLayout, const R: usize>(index: [i64; R]) -> [i32; 5] {
    let origin = tile_origin::<L, R>(index);
    let mut c = [0i32; 5];
    let mut d = 0;
    while d < R {
        c[d] = origin[R - 1 - d] as i32;
        d += 1;
    }
    c
}

/// The tile's shape, the compact C-order layout of its box in the stage, and whether the threads'
/// runs there are aligned vectors (the box starts 128 bytes into the 1024-byte-aligned scratch,
/// and every stride is a multiple of the last extent, which the vector width divides).
#[inline(always)]
fn box_layout<T, L: TvLayout, const R: usize>() -> ([i64; R], Strided<R>, bool) {
    let mut shape = [0i64; R];
    let mut d = 0;
    while d < R {
        shape[d] = L::MAP.shape[d];
        d += 1;
    }
    (shape, Strided::row_major(shape), vector_width::<T, L>(R) >= 2)
}

impl<T: Element + 'static, L: TvLayout> BlockTile<T, L> {
    /// The TMA load of the tile at `index` through `stage`, whose scratch holds `bytes` past the
    /// barrier.
    ///
    /// @pre `array`'s boxes are `L`'s tiles, unswizzled (`boxes_are_tiles`); every thread calls.
    #[inline(always)]
    fn tma_load_in<const R: usize, const BYTES: usize>(array: &TmaArray<T, R>, index: [i64; R], stage: &TmaStage<'_, BYTES>, bytes: usize) -> Self {
        let bar = stage.barrier();
        // SAFETY: the scratch holds the box at `BOX_OFFSET` (the caller checked its size),
        // 128-byte aligned.
        let smem = unsafe { stage.scratch.slots::<u8>().add(BOX_OFFSET) } as *mut T;
        // The previous tile in the stage has been read (or stored) by every thread.
        sync_threads();
        if thread() == 0 {
            let map = array.map();
            // SAFETY: `map` describes the array with boxes of the tile's shape (`TmaArray`'s
            // contract and the precondition); the box's inner extent is a multiple of 16 bytes,
            // so is the first coordinate's byte offset; the stage's barrier expects these bytes.
            unsafe {
                fence_proxy_tensormap_acquire(map);
                bar.arrive_expect_tx(bytes as u32);
                tma_load_rank::<R>(smem as *mut u8, map, box_coords::<L, R>(index), bar);
            }
        }
        let phase = stage.phase.get();
        // SAFETY: the barrier was initialized by the stage; its phase counts the stage's loads.
        unsafe { bar.wait_parity(phase) };
        stage.phase.set(phase ^ 1);
        let (shape, layout, vector) = box_layout::<T, L, R>();
        Self::load_in(smem, &layout, [0; R], &Bounds { lo: [0; R], hi: shape }, vector, T::ZERO)
    }

    /// The TMA store of the tile into `array` at `index` through `stage`'s box: every thread
    /// writes its values there, then thread 0 has the copy engine write the box (clipped to the
    /// array) and waits until the writes are done, and the block synchronizes: on return every
    /// thread's later reads of the array see the whole tile.
    ///
    /// @pre as [`tma_load_in`](Self::tma_load_in).
    #[inline(always)]
    fn tma_store_in<const R: usize, const BYTES: usize>(&self, array: &TmaArray<T, R>, index: [i64; R], stage: &TmaStage<'_, BYTES>) {
        // SAFETY: as in `tma_load_in`.
        let smem = unsafe { stage.scratch.slots::<u8>().add(BOX_OFFSET) } as *mut T;
        let (shape, layout, vector) = box_layout::<T, L, R>();
        // The previous tile in the stage has been read (or stored) by every thread.
        sync_threads();
        self.store_in(smem, &layout, [0; R], &Bounds { lo: [0; R], hi: shape }, vector);
        // The threads' writes to the box, visible to the copy engine (the async proxy).
        fence_proxy_async_shared_cta();
        sync_threads();
        if thread() == 0 {
            let map = array.map();
            // SAFETY: as in `tma_load_in`; the box was written and fenced by every thread above.
            unsafe {
                fence_proxy_tensormap_acquire(map);
                tma_store_rank::<R>(map, box_coords::<L, R>(index), smem as *const u8);
            }
            bulk_commit_group();
            bulk_wait_group::<0>();
        }
        // Every thread returns after the array holds the tile, as after an ordinary store of
        // its own values (and more: of the whole tile).
        sync_threads();
    }

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
        if !boxes_are_tiles::<T, L, R>(array) {
            return Self::load(&array.tensor(), index, array.padding());
        }
        Self::tma_load_in(array, index, stage, bytes)
    }
}

impl<T: Element + 'static, L: TvLayout> BlockTile<T, L> {
    /// Stores the tile into `array` at tile `index` with one TMA copy (cuTile's `ct.store(array,
    /// index, tile, allow_tma=True)`): element `c` of the tile goes to `array[index * shape + c]`;
    /// elements outside the array are not written.
    ///
    /// Every thread writes its values into the stage's box; thread 0 then issues the copy and
    /// waits until the array holds them, and the block synchronizes, so a later load of any
    /// element of the tile by any thread of the block, or by the next kernel, sees them. The block synchronizes first, so that the previous tile of the stage
    /// has been read. When the array's map is for boxes of another shape than the tile's, or
    /// swizzles them, the tile is stored with [`store`](Self::store) instead.
    ///
    /// # Args
    /// - `array`: the array and its tensor map.
    /// - `index`: the tile's index in the grid of tiles covering the array (a tile partly
    ///   outside is clipped; its first element must be inside: TMA's coordinates are
    ///   non-negative).
    /// - `stage`: the block's staging area.
    ///
    /// # Constraints
    /// As [`load_tma`](Self::load_tma).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::device::{cpu::run_block, tma::CpuTensorMap};
    /// use cute_rs_tensor::block_tile::{tma::TmaStage, BlockTile};
    /// use cute_rs_tensor::{block_scratch, blocked_layout, tma_copy::TmaArray, LayoutTensor, Strided};
    /// blocked_layout!(T4x8 = shape [4, 8], size_per_thread [1, 1], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
    /// let mut y = vec![0f32; 6 * 12];
    /// let y_addr = y.as_mut_ptr() as usize; // one array for the whole block
    /// run_block(32, &|| {
    ///     let tensor = unsafe { LayoutTensor::from_ptr(y_addr as *mut f32, Strided::row_major([6, 12])) };
    ///     let map = CpuTensorMap::encode(y_addr as u64, 4, &[12, 6], &[48], &[8, 4], &[1, 1], 0, true).unwrap();
    ///     let array = unsafe { TmaArray::from_parts(tensor, &map, [4, 8], 0, f32::NAN) };
    ///     let scratch = block_scratch!(TMA_STORE_EXAMPLE, 256);
    ///     let mut stage = TmaStage::new(&scratch);
    ///     BlockTile::<f32, T4x8>::full(7.0).store_tma(&array, [1, 1], &mut stage);
    /// })
    /// .unwrap();
    /// // Tile (1, 1) covers rows 4..8 and columns 8..16; only rows 4 and 5, columns 8..12 exist.
    /// let at = |r: usize, c: usize| y[12 * r + c];
    /// assert_eq!((at(4, 8), at(5, 11), at(3, 11), at(5, 7)), (7.0, 7.0, 0.0, 0.0));
    /// ```
    #[inline(always)]
    pub fn store_tma<const R: usize, const BYTES: usize>(&self, array: &TmaArray<T, R>, index: [i64; R], stage: &mut TmaStage<'_, BYTES>) {
        let _ = TmaTile::<T, L, R, BYTES>::BYTES;
        if !boxes_are_tiles::<T, L, R>(array) {
            return self.store(&array.tensor(), index);
        }
        self.tma_store_in(array, index, stage)
    }
}

/// A [`TmaArray`] bound to the block's [`TmaStage`]: an array that the cuTile front end
/// ([`load_with_options`](BlockTile::load_with_options),
/// [`store_with_options`](BlockTile::store_with_options)) moves with TMA where `allow_tma`
/// permits, the map fits the tile and the access is weak and unpermuted, and with ordinary
/// accesses otherwise.
///
/// cuTile makes the tensor map behind `ct.load` and allocates the shared memory itself. Here the
/// host makes the map once for the array (`Gpu::tma_array`, boxes of the tile's shape), the
/// kernel takes the [`TmaArray`] as a parameter and declares the stage's shared memory
/// ([`block_scratch!`](crate::block_scratch)), and the loads and stores take the bound array as
/// they take any tensor.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(32, &|| {
/// use cute_rs_tensor::device::tma::CpuTensorMap;
/// use cute_rs_tensor::block_tile::{tma::TmaStage, BlockTile};
/// use cute_rs_tensor::tile_space::{LoadOptions, Order};
/// use cute_rs_tensor::{block_scratch, blocked_layout, tma_copy::TmaArray, LayoutTensor, Strided};
/// blocked_layout!(T4x8 = shape [4, 8], size_per_thread [1, 1], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
/// let mut x: Vec<f32> = (0..6 * 12).map(|i| i as f32).collect();
/// let tensor = LayoutTensor::new(&mut x, Strided::row_major([6, 12])).unwrap();
/// let map = CpuTensorMap::encode(tensor.as_ptr() as u64, 4, &[12, 6], &[48], &[8, 4], &[1, 1], 0, true).unwrap();
/// let array = unsafe { TmaArray::from_parts(tensor, &map, [4, 8], 0, f32::NAN) };
/// let scratch = block_scratch!(STAGED_EXAMPLE, 256);
/// let stage = TmaStage::new(&scratch);
/// let x = array.staged(&stage);
/// // The default (allow_tma unset) lets TMA move the tile: outside the array, the map's NaN.
/// let t = BlockTile::<f32, T4x8>::load_with_options(&x, [1, 1], Order::C, LoadOptions::default());
/// let ordinary = BlockTile::<f32, T4x8>::load_with_options(&x, [1, 1], Order::C, LoadOptions::default().allow_tma(false));
/// if cute_rs_tensor::device::ids::thread_idx_x() == 31 {
///     // Element (7, 15) is outside: TMA fills NaN; the ordinary path leaves the undetermined padding.
///     assert!(t.values()[0].is_nan() && ordinary.values()[0] == 0.0);
/// }
/// # }).unwrap();
/// ```
pub struct StagedArray<'s, 'b, T: 'static, const R: usize, const BYTES: usize> {
    array: TmaArray<T, R>,
    stage: &'s TmaStage<'b, BYTES>,
}

impl<T: Element + 'static, const R: usize> TmaArray<T, R> {
    /// The array bound to the block's `stage`, for the cuTile front end's TMA path (see
    /// [`StagedArray`]).
    ///
    /// # Args
    /// - `stage`: the block's staging area; its scratch must hold 128 bytes plus a tile for the
    ///   TMA path to be taken (the ordinary path is taken otherwise).
    ///
    /// # Returns
    /// The bound array; [`StagedArray::array`] gives the array back.
    ///
    /// # Example
    /// See [`StagedArray`].
    #[inline(always)]
    pub fn staged<'s, 'b, const BYTES: usize>(&self, stage: &'s TmaStage<'b, BYTES>) -> StagedArray<'s, 'b, T, R, BYTES> {
        StagedArray { array: *self, stage }
    }
}

impl<T: Element + 'static, const R: usize, const BYTES: usize> StagedArray<'_, '_, T, R, BYTES> {
    /// The array and its map.
    ///
    /// # Example
    /// See [`StagedArray`].
    #[inline(always)]
    pub fn array(&self) -> TmaArray<T, R> {
        self.array
    }

    /// Whether a TMA copy of `L`'s tiles can be: the tile fits a box and the stage, and the map's
    /// boxes are the tile, unswizzled.
    #[inline(always)]
    fn moves<L: TvLayout>(&self) -> bool {
        TmaTile::<T, L, R, BYTES>::UNFIT.is_none() && boxes_are_tiles::<T, L, R>(&self.array)
    }
}

/// Whether `a` and `b` are the same bytes (so NaN equals the same NaN, and -0 differs from 0).
#[inline(always)]
fn same_bits<T: Copy>(a: T, b: T) -> bool {
    let n = core::mem::size_of::<T>();
    // SAFETY: both are `n` bytes of plain values (the block tiles' elements have no padding).
    unsafe { core::slice::from_raw_parts(&a as *const T as *const u8, n) == core::slice::from_raw_parts(&b as *const T as *const u8, n) }
}

impl<T: Element + 'static, const R: usize, const BYTES: usize> super::options::TileArray<T, R> for StagedArray<'_, '_, T, R, BYTES> {
    #[inline(always)]
    fn tensor(&self) -> crate::tensor::LayoutTensor<'_, T, Strided<R>, crate::tensor::Global> {
        self.array.tensor()
    }

    #[inline(always)]
    fn tma_load<L: TvLayout>(&self, index: [i64; R], padding: Option<T>) -> Option<BlockTile<T, L>> {
        let padding_fits = match padding {
            None => true,
            Some(p) => same_bits(p, self.array.padding()),
        };
        if !padding_fits || !self.moves::<L>() {
            return None;
        }
        Some(BlockTile::tma_load_in(&self.array, index, self.stage, tile_bytes::<T, L, R>()))
    }

    #[inline(always)]
    fn tma_store<L: TvLayout>(&self, tile: &BlockTile<T, L>, index: [i64; R]) -> bool {
        if !self.moves::<L>() {
            return false;
        }
        tile.tma_store_in(&self.array, index, self.stage);
        true
    }
}
