//! Triton's block pointers on block tiles: `tl.make_block_ptr(base, shape, strides, offsets,
//! block_shape, order)`, `tl.advance` and `tl.load`/`tl.store` with `boundary_check` and
//! `padding_option`.
//!
//! A [`BlockPtr<T, L, R>`](BlockPtr) is a block of the tile shape of `L` (Triton's
//! `block_shape`) at run-time element `offsets` in a global array with a [`Strided`] layout (the
//! array's pointer, `shape` and `strides`). Unlike a tile index ([`BlockTile::load`]), the
//! offsets need not be multiples of the block shape, and only the dimensions named in
//! `boundary_check` are tested: elements outside the array along an unchecked dimension are
//! accessed (Triton leaves them undefined; here the caller promises they are valid memory).
//! Loads move whole vectors where the layout, the array and the offsets allow, as
//! [`BlockTile::load`] does.
//!
//! ```
//! # cute_rs_tensor::device::cpu::run_block(1, &|| {
//! use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
//! use cute_rs_tensor::block_tile::{make_block_ptr, BlockTile};
//! blocked_layout!(B = shape [2, 4], size_per_thread [2, 4], threads_per_warp [1, 32], warps_per_cta [1, 1], order [1, 0]);
//! let mut x: Vec<f32> = (0..15).map(|i| i as f32).collect(); // 3 x 5, row-major
//! let a = LayoutTensor::new(&mut x, Strided::row_major([3, 5])).unwrap();
//! let p = make_block_ptr::<f32, B, 2>(&a, [1, 2], [1, 0]).unwrap();
//! // Thread 0 holds the whole 2 x 4 block at (1, 2): row 1 columns 2..6, row 2 columns 2..6.
//! let t = p.load().boundary_check(&[0, 1]).padding_nan().run();
//! assert_eq!(&t.values()[..3], &[7.0, 8.0, 9.0]);
//! assert!(t.values()[3].is_nan()); // column 5 is outside
//! assert_eq!(p.advance([1, 0]).offsets(), [2, 2]);
//! # }).unwrap();
//! ```

use core::marker::PhantomData;

use super::memory::{vector_width, vectorizable, Bounds};
use super::{BlockTile, TvLayout};
use crate::tensor::{Element, Global, LayoutTensor};
use crate::triton::{check_dims, check_order, hinted_size, CacheModifier, EvictionPolicy, Float, NoCache, NoEviction, TritonError, Volatile};
use crate::Strided;

/// A block of `L`'s tile shape at element `offsets` of a rank-`R` global array (Triton's block
/// pointer; see the [module docs](self)).
///
/// # Parameters
/// - `T`: the element type.
/// - `L`: the tile's thread-value layout ([`TvLayout`]): its shape is the block shape.
/// - `R`: the rank, the array's and the tile's.
pub struct BlockPtr<'a, T, L, const R: usize> {
    ptr: *mut T,
    layout: Strided<R>,
    offsets: [i64; R],
    order: [usize; R],
    _a: PhantomData<(&'a [T], L)>,
}

impl<T, L, const R: usize> Clone for BlockPtr<'_, T, L, R> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, L, const R: usize> Copy for BlockPtr<'_, T, L, R> {}

/// `tl.make_block_ptr(array, shape, strides, offsets, block_shape, order)`: the block of `L`'s
/// shape at `offsets` of `array` (whose layout holds `shape` and `strides`).
///
/// # Args
/// - `array`: a global tensor with a [`Strided`] layout.
/// - `offsets`: the block's origin, in elements, per dimension (any integers: a block may
///   overhang the array on any side).
/// - `order`: the dimensions from fastest- to slowest-varying in memory, as Triton takes it
///   (validated; the layout's strides say how elements are found).
///
/// # Returns
/// The block pointer, or [`TritonError::OrderNotPermutation`] when `order` is not a permutation
/// of `0..R`.
///
/// # Constraints
/// `R` is the rank of `L` (a compile-time error otherwise).
///
/// # Example
/// ```
/// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
/// use cute_rs_tensor::block_tile::make_block_ptr;
/// use cute_rs_tensor::triton::TritonError;
/// blocked_layout!(B = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let mut x = vec![0u8; 40];
/// let a = LayoutTensor::new(&mut x, Strided::row_major([40])).unwrap();
/// assert!(make_block_ptr::<u8, B, 1>(&a, [8], [0]).is_ok());
/// assert_eq!(make_block_ptr::<u8, B, 1>(&a, [8], [1]).err(), Some(TritonError::OrderNotPermutation));
/// ```
#[inline(always)]
pub fn make_block_ptr<'a, T: Element, L: TvLayout, const R: usize>(
    array: &LayoutTensor<'a, T, Strided<R>, Global>,
    offsets: [i64; R],
    order: [usize; R],
) -> Result<BlockPtr<'a, T, L, R>, TritonError> {
    const { assert!(R == L::MAP.rank, "make_block_ptr: the array's rank must be the block's rank") };
    check_order(&order)?;
    Ok(BlockPtr { ptr: array.as_ptr(), layout: array.source(), offsets, order, _a: PhantomData })
}

impl<'a, T: Element, L: TvLayout, const R: usize> BlockPtr<'a, T, L, R> {
    /// `tl.advance(ptr, deltas)`: the block moved by `deltas` elements per dimension.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [4, 8], size_per_thread [1, 1], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
    /// let mut x = vec![0.0f32; 64];
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([8, 8])).unwrap();
    /// let p = make_block_ptr::<f32, B, 2>(&a, [0, 0], [1, 0]).unwrap();
    /// assert_eq!(p.advance([4, 0]).advance([0, -2]).offsets(), [4, -2]);
    /// ```
    #[inline(always)]
    pub fn advance(&self, deltas: [i64; R]) -> Self {
        let mut p = *self;
        for d in 0..R {
            p.offsets[d] += deltas[d];
        }
        p
    }

    /// The block's origin, in elements.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x = vec![0i32; 4];
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([4])).unwrap();
    /// assert_eq!(make_block_ptr::<i32, B, 1>(&a, [-3], [0]).unwrap().offsets(), [-3]);
    /// ```
    #[inline(always)]
    pub fn offsets(&self) -> [i64; R] {
        self.offsets
    }

    /// The `order` given to [`make_block_ptr`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [4, 8], size_per_thread [1, 1], threads_per_warp [4, 8], warps_per_cta [1, 1], order [1, 0]);
    /// let mut x = vec![0.0f32; 64];
    /// let a = LayoutTensor::new(&mut x, Strided::col_major([8, 8])).unwrap();
    /// assert_eq!(make_block_ptr::<f32, B, 2>(&a, [0, 0], [0, 1]).unwrap().order(), [0, 1]);
    /// ```
    #[inline(always)]
    pub fn order(&self) -> [usize; R] {
        self.order
    }

    /// `tl.load(ptr, boundary_check, padding_option)` as a builder: without
    /// [`boundary_check`](BlockPtrLoad::boundary_check) no element is tested.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x: Vec<i32> = (0..70).collect();
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([70])).unwrap();
    /// let p = make_block_ptr::<i32, B, 1>(&a, [5], [0]).unwrap();
    /// assert_eq!(p.load().run().values(), &[5, 6]); // thread 0
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn load(&self) -> BlockPtrLoad<'_, 'a, T, L, R> {
        BlockPtrLoad { ptr: self, check: [false; R], padding: T::ZERO, hints: PhantomData }
    }

    /// `tl.store(ptr, tile, boundary_check)`: elements outside the array along the dimensions in
    /// `boundary_check` are not written; a replicated element is written once.
    ///
    /// # Returns
    /// [`TritonError::BoundaryDimension`] when `boundary_check` names a dimension not below `R`
    /// (nothing is written).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::{make_block_ptr, BlockTile};
    /// blocked_layout!(B = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut y = vec![0i32; 3];
    /// let a = LayoutTensor::new(&mut y, Strided::row_major([3])).unwrap();
    /// let p = make_block_ptr::<i32, B, 1>(&a, [2], [0]).unwrap();
    /// p.store(&BlockTile::full(7), &[0]).unwrap(); // thread 0: elements 2 (inside) and 3 (not)
    /// assert_eq!(y, [0, 0, 7]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn store(&self, tile: &BlockTile<T, L>, boundary_check: &[usize]) -> Result<(), TritonError> {
        let check = check_dims::<R>(boundary_check)?;
        tile.store_in(self.ptr, &self.layout, self.offsets, &self.bounds(&check), self.vector());
        Ok(())
    }

    /// The array's shape along the checked dimensions, no bound along the others.
    #[inline(always)]
    fn bounds(&self, check: &[bool; R]) -> Bounds<R> {
        let mut b = Bounds { lo: [i64::MIN; R], hi: [i64::MAX; R] };
        for d in 0..R {
            if check[d] {
                b.lo[d] = 0;
                b.hi[d] = self.layout.shape[d];
            }
        }
        b
    }

    /// Whether the thread's runs are aligned vectors: the array allows them and the block's
    /// origin along the last dimension is a multiple of the vector.
    #[inline(always)]
    fn vector(&self) -> bool {
        let w = vector_width::<T, L>(R);
        vectorizable(&self.layout, self.ptr, w) && self.offsets[R - 1] % w as i64 == 0
    }
}

/// A block-pointer load being configured ([`BlockPtr::load`]).
///
/// # Parameters
/// - `C`, `E`: Triton's cache modifier and eviction policy ([`triton`](crate::triton)'s
///   markers), set with [`cache_modifier`](Self::cache_modifier) and
///   [`eviction_policy`](Self::eviction_policy).
pub struct BlockPtrLoad<'p, 'a, T, L, const R: usize, C = NoCache, E = NoEviction> {
    ptr: &'p BlockPtr<'a, T, L, R>,
    check: [bool; R],
    padding: T,
    hints: PhantomData<(C, E)>,
}

impl<'p, 'a, T: Element, L: TvLayout, const R: usize, C: CacheModifier, E: EvictionPolicy> BlockPtrLoad<'p, 'a, T, L, R, C, E> {
    /// `boundary_check=dims`: elements outside the array along these dimensions are not read and
    /// give the padding (zero unless [`padding_nan`](Self::padding_nan)).
    ///
    /// # Constraints
    /// Every dimension is below `R`: a kernel stops naming the condition otherwise.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x = vec![1i32, 2, 3];
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([3])).unwrap();
    /// let p = make_block_ptr::<i32, B, 1>(&a, [2], [0]).unwrap();
    /// assert_eq!(p.load().boundary_check(&[0]).run().values(), &[3, 0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn boundary_check(mut self, dims: &[usize]) -> Self {
        match check_dims::<R>(dims) {
            Ok(c) => self.check = c,
            Err(_) => panic!("boundary_check: a dimension is not below the block pointer's rank"),
        }
        self
    }

    /// `padding_option="nan"`: out-of-bounds elements read NaN.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x = vec![half::bf16::ONE];
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([1])).unwrap();
    /// let p = make_block_ptr::<half::bf16, B, 1>(&a, [-1], [0]).unwrap();
    /// assert!(p.load().boundary_check(&[0]).padding_nan().run().values()[0].is_nan());
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn padding_nan(mut self) -> Self
    where
        T: Float,
    {
        self.padding = T::NAN_VALUE;
        self
    }

    /// `cache_modifier=`: as [`PtrLoad::cache_modifier`](super::PtrLoad::cache_modifier), on
    /// every access of the block (vectors included).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// use cute_rs_tensor::triton::{Cg, EvictFirst};
    /// blocked_layout!(B = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x: Vec<u16> = (0..64).collect();
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([64])).unwrap();
    /// let p = make_block_ptr::<u16, B, 1>(&a, [62], [0]).unwrap();
    /// let t = p.load().boundary_check(&[0]).cache_modifier(Cg).eviction_policy(EvictFirst).run();
    /// assert_eq!(t.values(), &[62, 63]); // thread 0
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn cache_modifier<C2: CacheModifier>(self, _: C2) -> BlockPtrLoad<'p, 'a, T, L, R, C2, E> {
        hinted_size::<T>();
        BlockPtrLoad { ptr: self.ptr, check: self.check, padding: self.padding, hints: PhantomData }
    }

    /// `eviction_policy=`: as [`PtrLoad::eviction_policy`](super::PtrLoad::eviction_policy).
    ///
    /// # Example
    /// See [`cache_modifier`](Self::cache_modifier).
    #[inline(always)]
    pub fn eviction_policy<E2: EvictionPolicy>(self, _: E2) -> BlockPtrLoad<'p, 'a, T, L, R, C, E2> {
        hinted_size::<T>();
        BlockPtrLoad { ptr: self.ptr, check: self.check, padding: self.padding, hints: PhantomData }
    }

    /// `volatile=True`: volatile accesses (no eviction policy), as
    /// [`PtrLoad::volatile`](super::PtrLoad::volatile).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::make_block_ptr;
    /// blocked_layout!(B = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x = vec![5i8; 40];
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([40])).unwrap();
    /// assert_eq!(make_block_ptr::<i8, B, 1>(&a, [8], [0]).unwrap().load().volatile().run().values(), &[5]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn volatile(self) -> BlockPtrLoad<'p, 'a, T, L, R, Volatile, NoEviction> {
        BlockPtrLoad { ptr: self.ptr, check: self.check, padding: self.padding, hints: PhantomData }
    }

    /// Runs the load.
    #[inline(always)]
    pub fn run(self) -> BlockTile<T, L> {
        let p = self.ptr;
        BlockTile::load_in_with::<R, C, E>(p.ptr, &p.layout, p.offsets, &p.bounds(&self.check), p.vector(), self.padding)
    }
}
