//! Block-wide reductions (CUB's `BlockReduce`, warp-reductions variant): each warp reduces with
//! shuffles ([`warp::reduce_sum`]), lane 0 of each warp writes its
//! partial to shared memory, and the first warp reduces the partials.
//!
//! ```
//! use cute_rs_tensor::block_reduce::BlockReduce;
//! assert_eq!(BlockReduce::<f32, 256>::STORAGE_LEN, 8);
//! ```

use core::marker::PhantomData;

use crate::device::ids;
use crate::device::shared::SharedArray;
use crate::device::sync;
use crate::device::warp::{self, WarpReduce};

/// A block reduction over `THREADS` threads (a multiple of 32, at most 1,024: a compile-time
/// error otherwise) of `T` values.
///
/// Storage: [`STORAGE_LEN`](Self::STORAGE_LEN) elements of shared memory (one per warp). Reusing
/// it for another reduction needs a block barrier in between (the first warp reads it last).
///
/// ```compile_fail,E0080
/// // block_reduce: THREADS must be a multiple of the warp size 32
/// let r = cute_rs_tensor::block_reduce::BlockReduce::<u32, 48>::new();
/// ```
pub struct BlockReduce<T, const THREADS: usize>(PhantomData<T>);

impl<T: WarpReduce, const THREADS: usize> BlockReduce<T, THREADS> {
    const CHECK: () = assert!(
        THREADS % 32 == 0 && THREADS >= 32 && THREADS <= 1024,
        "block_reduce: THREADS must be a multiple of the warp size 32, from 32 to 1024"
    );
    /// Elements of shared memory it needs: one per warp.
    pub const STORAGE_LEN: usize = THREADS / 32;

    /// The (zero-sized) reducer.
    ///
    /// ```
    /// let _ = cute_rs_tensor::block_reduce::BlockReduce::<i32, 128>::new();
    /// ```
    #[inline(always)]
    pub const fn new() -> Self {
        let () = Self::CHECK;
        BlockReduce(PhantomData)
    }

    /// The sum of every thread's `value`, valid in thread 0 (and every lane of warp 0); other
    /// threads get partial sums. Integer sums wrap.
    ///
    /// # Safety
    /// Every thread of a block of exactly `THREADS` threads calls it (it synchronizes the block);
    /// `storage` is not in use by others.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_reduce::BlockReduce;
    /// # unsafe fn k(x: f32, out: *mut f32) {
    /// let storage = cute_rs_tensor::shared_array!(SUM_DOC: [f32; 8]);
    /// let total = BlockReduce::<f32, 256>::new().sum(x, storage);
    /// if cute_rs_tensor::device::ids::thread_idx_x() == 0 {
    ///     *out = total;
    /// }
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn sum<const N: usize>(&self, value: T, storage: SharedArray<T, N>) -> T {
        const { assert!(N >= THREADS / 32, "block_reduce: the storage needs THREADS / 32 elements") };
        crate::block_io::check_block_size("BlockReduce", THREADS);
        let partial = warp::reduce_sum(value);
        let t = ids::linear_thread_idx() as usize;
        let (w, lane) = (t / 32, t % 32);
        if lane == 0 {
            storage.write(w, partial);
        }
        sync::sync_threads();
        let mut total = partial;
        if w == 0 {
            let mine = if lane < THREADS / 32 { storage.read(lane) } else { T::ZERO };
            total = warp::reduce_sum(mine);
        }
        total
    }
}

impl<T: WarpReduce, const THREADS: usize> Default for BlockReduce<T, THREADS> {
    fn default() -> Self {
        Self::new()
    }
}
