//! Loads and stores of block tiles.
//!
//! - A tile of an array at a tile index, cuTile's `ct.load(array, index, shape, padding)` and
//!   `ct.store(array, index, tile)`: [`BlockTile::load`], [`BlockTile::store`],
//!   [`store_broadcast`]. The array is a global [`LayoutTensor`] with a [`Strided`] layout (its
//!   pointer, extents and strides); tile `index` covers the elements `index * shape ..`, and
//!   elements outside the array read `padding` and are not written. Where the layout gives each
//!   thread runs of consecutive elements along the last dimension and the array's last stride is
//!   1 (with the base and the other strides aligned), each run moves as one vector access of up to
//!   16 bytes; a run that crosses the array's edge moves element by element.
//! - Triton pointer tiles: a tile of [`Ptr`]s (each element its own address, so tiles can mix
//!   bases: [`where_`](super::where_) of two pointer tiles), loaded with [`load`] (a mask and
//!   `other`, broadcast from tiles or scalars) and stored with [`store`]/[`store_masked`], or
//!   [`store_with`]; both take Triton's cache modifiers and eviction policies.
//!   Masked-out elements are not accessed; a masked-out load without `other` gives zero.
//!
//! Replicated elements (held by several threads, or several values of one thread) are written
//! once, by the replica whose replicated thread bits and value leaves are all zero.

use core::marker::PhantomData;

use super::{for_each_value, thread, BlockTile, CastOperand, Operand, TvLayout, ValueStorage, MAX_RANK, REPLICATED};
use crate::tensor::{read_vec, vector_align, write_vec, Element, Global, LayoutTensor, Vector};
use crate::triton::{hinted_size, CacheModifier, EvictionPolicy, NoCache, NoEviction, StoreCacheModifier, Volatile};
use crate::Strided;

/// The element offset and whether every element of a vector of `w` starting at value `v` lies
/// inside the bounds: coordinates `lo[d] <= c < hi[d]` (the array's shape, or only the checked
/// dimensions of a block pointer).
#[inline(always)]
pub(super) fn element<L: TvLayout, const R: usize>(base: &[i64; MAX_RANK], lo: &[i64; R], hi: &[i64; R], stride: &[i64; R], v: usize, w: i64) -> (isize, bool) {
    let vc = L::MAP.value_coord(v);
    let mut off = 0;
    let mut inside = true;
    let mut d = 0;
    while d < R {
        let c = base[d] + vc[d];
        let end = if d + 1 == R { c + w } else { c + 1 };
        inside &= c >= lo[d] && end <= hi[d];
        off += c * stride[d];
        d += 1;
    }
    (off as isize, inside)
}

/// The widest vector (in elements) of `T` a thread moves along the last dimension.
pub(super) const fn vector_width<T, L: TvLayout>(rank: usize) -> usize {
    let run = L::MAP.value_run(rank - 1);
    // The largest power of two dividing the run (vectors must not cross into the next leaf), at
    // most 16 bytes.
    let w = run & run.wrapping_neg();
    let max = 16 / core::mem::size_of::<T>();
    if w < max {
        w
    } else {
        max
    }
}

/// The coordinates an access may touch: `lo[d] <= c < hi[d]` in each dimension.
#[derive(Clone, Copy)]
pub(super) struct Bounds<const R: usize> {
    pub(super) lo: [i64; R],
    pub(super) hi: [i64; R],
}

impl<const R: usize> Bounds<R> {
    /// The whole array.
    #[inline(always)]
    pub(super) fn of(layout: &Strided<R>) -> Self {
        Bounds { lo: [0; R], hi: layout.shape }
    }
}

/// The tile's origin (element coordinates) of tile `index`.
#[inline(always)]
pub(super) fn tile_origin<L: TvLayout, const R: usize>(index: [i64; R]) -> [i64; R] {
    const { assert!(R == L::MAP.rank, "block tile: the array's rank must be the tile's rank") };
    let mut origin = [0; R];
    let mut d = 0;
    while d < R {
        origin[d] = index[d] * L::MAP.shape[d];
        d += 1;
    }
    origin
}

/// The tile origin plus the thread's part of the coordinates.
#[inline(always)]
pub(super) fn thread_base<L: TvLayout, const R: usize>(origin: [i64; R]) -> [i64; MAX_RANK] {
    let tc = L::MAP.thread_coord(thread());
    let mut base = [0; MAX_RANK];
    let mut d = 0;
    while d < R {
        base[d] = origin[d] + tc[d];
        d += 1;
    }
    base
}

/// The array's layout, pointer, and the tile origin plus the thread's part of the coordinates.
#[inline(always)]
fn setup<T: Element, L: TvLayout, const R: usize>(array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R]) -> (Strided<R>, *mut T, [i64; MAX_RANK]) {
    (array.source(), array.as_ptr(), thread_base::<L, R>(tile_origin::<L, R>(index)))
}

/// Whether the tile at `origin` lies inside `bounds` (then no element needs a bounds test).
#[inline(always)]
fn inside_bounds<L: TvLayout, const R: usize>(bounds: &Bounds<R>, origin: &[i64; R]) -> bool {
    let mut inside = true;
    let mut d = 0;
    while d < R {
        inside &= origin[d] >= bounds.lo[d] && origin[d] + L::MAP.shape[d] <= bounds.hi[d];
        d += 1;
    }
    inside
}

/// Whether tile `index` lies inside the array (then no element needs a bounds test).
#[inline(always)]
pub(super) fn tile_inside<L: TvLayout, const R: usize>(layout: &Strided<R>, index: &[i64; R]) -> bool {
    inside_bounds::<L, R>(&Bounds::of(layout), &tile_origin::<L, R>(*index))
}

/// Whether runs of `w` elements at the thread's coordinates are `w`-aligned vectors of the array.
#[inline(always)]
pub(super) fn vectorizable<T, const R: usize>(layout: &Strided<R>, ptr: *mut T, w: usize) -> bool {
    if w < 2 || layout.stride[R - 1] != 1 {
        return false;
    }
    let bytes = vector_align(w * core::mem::size_of::<T>());
    let mut ok = (ptr as usize) % bytes == 0;
    let mut d = 0;
    while d + 1 < R {
        ok &= layout.stride[d] % w as i64 == 0;
        d += 1;
    }
    ok
}

/// Calls `f(v, offset)` for each value `v` of the calling thread whose element of `L`'s tile at
/// `index` lies inside the array of `layout` (`offset` in elements from the array's origin); with
/// `once`, only for the values the thread [`writes`] (each replicated element once). The scalar
/// accesses of the cuTile front end's strong orders and of the atomics.
#[inline(always)]
pub(super) fn for_each_inside<L: TvLayout, const R: usize>(layout: &Strided<R>, index: [i64; R], once: bool, mut f: impl FnMut(usize, isize)) {
    let bounds = Bounds::of(layout);
    let base = thread_base::<L, R>(tile_origin::<L, R>(index));
    for_each_value::<L>(|v| {
        let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, 1);
        if inside && (!once || writes::<L>(v)) {
            f(v, off);
        }
    });
}

/// Whether the calling thread writes value `v`: the canonical replica of its element.
#[inline(always)]
pub(super) fn writes<L: TvLayout>(v: usize) -> bool {
    let mut rest = v as i64;
    let mut j = 0;
    let mut canonical = true;
    while j < L::MAP.values.len {
        let k = rest % L::MAP.values.size[j];
        rest /= L::MAP.values.size[j];
        canonical &= L::MAP.values.dim[j] != REPLICATED || k == 0;
        j += 1;
    }
    canonical && (thread() as u32) & L::MAP.thread_bits_along(REPLICATED) == 0
}

/// Visits each vector of `W` values (`W` a power of two dividing the first value leaf).
macro_rules! vector_arms {
    ($w:expr, $body:ident) => {
        match $w {
            16 => {
                $body!(16)
            }
            8 => {
                $body!(8)
            }
            4 => {
                $body!(4)
            }
            2 => {
                $body!(2)
            }
            _ => {
                $body!(1)
            }
        }
    };
}

impl<T: Element, L: TvLayout> BlockTile<T, L> {
    /// Loads the tile of `array` at tile `index` (`ct.load(array, index, shape, padding_mode)`):
    /// element `c` of the tile is `array[index * shape + c]`, or `padding` outside the array.
    ///
    /// # Args
    /// - `array`: a global tensor with a [`Strided`] layout of the tile's rank.
    /// - `index`: the tile's index in the grid of tiles covering the array.
    /// - `padding`: the value of elements outside the array.
    ///
    /// # Constraints
    /// The array's rank is the tile's (a compile-time error otherwise). Every thread of the block
    /// calls it (each loads its own values; no barrier).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x: Vec<f32> = (0..100).map(|i| i as f32).collect();
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([100])).unwrap();
    /// // Thread 0 holds elements 0 and 1 of tile 1: array elements 64 and 65.
    /// assert_eq!(BlockTile::<f32, V>::load(&a, [1], -1.0).values(), &[64.0, 65.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn load<const R: usize>(array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R], padding: T) -> Self {
        let layout = array.source();
        let ptr = array.as_ptr();
        let vector = vectorizable(&layout, ptr, vector_width::<T, L>(R));
        Self::load_in(ptr, &layout, tile_origin::<L, R>(index), &Bounds::of(&layout), vector, padding)
    }

    /// The tile at `origin` of the array at `ptr` with `layout`: elements outside `bounds` read
    /// `padding`; runs move as vectors where `vector` says they are aligned.
    #[inline(always)]
    pub(super) fn load_in<const R: usize>(ptr: *mut T, layout: &Strided<R>, origin: [i64; R], bounds: &Bounds<R>, vector: bool, padding: T) -> Self {
        Self::load_in_with::<R, NoCache, NoEviction>(ptr, layout, origin, bounds, vector, padding)
    }

    /// [`load_in`](Self::load_in) with Triton's cache modifier `C` and eviction policy `E` on
    /// every access.
    #[inline(always)]
    pub(super) fn load_in_with<const R: usize, C: CacheModifier, E: EvictionPolicy>(
        ptr: *mut T,
        layout: &Strided<R>,
        origin: [i64; R],
        bounds: &Bounds<R>,
        vector: bool,
        padding: T,
    ) -> Self {
        let policy = E::policy();
        let base = thread_base::<L, R>(origin);
        let mut values = L::Storage::<T>::splat(padding);
        let w = vector_width::<T, L>(R);
        let whole = inside_bounds::<L, R>(bounds, &origin);
        macro_rules! body {
            ($w:literal) => {{
                if vector && whole {
                    // The common case, without a test per vector: the tile lies inside the array.
                    for_each_value::<L>(|v| {
                        if v % $w == 0 {
                            let (off, _) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, $w);
                            // SAFETY: inside the array (`whole`) and aligned (`vectorizable`).
                            let x = unsafe { C::read::<Vector<T, $w>, E>(ptr.offset(off) as *const Vector<T, $w>, policy).0 };
                            values.as_mut_slice()[v..v + $w].copy_from_slice(&x);
                        }
                    });
                    return BlockTile { values, layout: PhantomData };
                }
                for_each_value::<L>(|v| {
                    if v % $w != 0 {
                        return;
                    }
                    let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, $w);
                    if vector && inside {
                        // SAFETY: the vector lies inside the array and is aligned (`vectorizable`).
                        let x = unsafe { C::read::<Vector<T, $w>, E>(ptr.offset(off) as *const Vector<T, $w>, policy).0 };
                        values.as_mut_slice()[v..v + $w].copy_from_slice(&x);
                    } else {
                        let mut i = 0;
                        while i < $w {
                            let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v + i, 1);
                            if inside {
                                // SAFETY: inside the array.
                                values.as_mut_slice()[v + i] = unsafe { C::read::<T, E>(ptr.offset(off), policy) };
                            }
                            i += 1;
                        }
                    }
                })
            }};
        }
        vector_arms!(w, body);
        BlockTile { values, layout: PhantomData }
    }

    /// Stores the tile into `array` at tile `index` (`ct.store(array, index, tile)`): elements
    /// outside the array are not written; a replicated element is written once.
    ///
    /// # Constraints
    /// As [`load`](Self::load).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut y = vec![0.0f32; 65];
    /// let a = LayoutTensor::new(&mut y, Strided::row_major([65])).unwrap();
    /// BlockTile::<f32, V>::full(5.0).store(&a, [1]); // thread 0: elements 64 (inside) and 65 (not)
    /// assert_eq!(y[64], 5.0);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn store<const R: usize>(&self, array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R]) {
        let layout = array.source();
        let ptr = array.as_ptr();
        let vector = vectorizable(&layout, ptr, vector_width::<T, L>(R));
        self.store_in(ptr, &layout, tile_origin::<L, R>(index), &Bounds::of(&layout), vector)
    }

    /// Stores the tile at `origin` of the array at `ptr` with `layout`: elements outside `bounds`
    /// are not written (see [`load_in`](Self::load_in)).
    #[inline(always)]
    pub(super) fn store_in<const R: usize>(&self, ptr: *mut T, layout: &Strided<R>, origin: [i64; R], bounds: &Bounds<R>, vector: bool) {
        let base = thread_base::<L, R>(origin);
        let w = vector_width::<T, L>(R);
        let whole = inside_bounds::<L, R>(bounds, &origin);
        let values = self.values.as_slice();
        macro_rules! body {
            ($w:literal) => {{
                if vector && whole {
                    // The common case, without a test per vector: the tile lies inside the array.
                    for_each_value::<L>(|v| {
                        if v % $w == 0 && writes::<L>(v) {
                            let (off, _) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, $w);
                            let mut x = [values[v]; $w];
                            x.copy_from_slice(&values[v..v + $w]);
                            // SAFETY: inside the array (`whole`) and aligned (`vectorizable`).
                            unsafe { write_vec::<T, $w>(ptr.offset(off), x) };
                        }
                    });
                    return;
                }
                for_each_value::<L>(|v| {
                    if v % $w != 0 {
                        return;
                    }
                    let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v, $w);
                    if vector && inside && writes::<L>(v) {
                        let mut x = [values[v]; $w];
                        x.copy_from_slice(&values[v..v + $w]);
                        // SAFETY: the vector lies inside the array and is aligned (`vectorizable`).
                        unsafe { write_vec::<T, $w>(ptr.offset(off), x) };
                    } else {
                        let mut i = 0;
                        while i < $w {
                            let (off, inside) = element::<L, R>(&base, &bounds.lo, &bounds.hi, &layout.stride, v + i, 1);
                            if inside && writes::<L>(v + i) {
                                // SAFETY: inside the array.
                                unsafe { T::write(ptr.offset(off), values[v + i]) };
                            }
                            i += 1;
                        }
                    }
                })
            }};
        }
        vector_arms!(w, body);
    }
}

impl<T: Element, L: TvLayout> BlockTile<T, L> {
    /// The elements of `T` one vector access of the tile moves along the last dimension: the
    /// multiple that [`load_aligned`](Self::load_aligned) and
    /// [`store_aligned`](Self::store_aligned) need of the array's last extent and other strides.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [1024], size_per_thread [8], threads_per_warp [32], warps_per_cta [4], order [0]);
    /// assert_eq!(BlockTile::<f32, V>::vector_width(), 4); // 16 bytes
    /// assert_eq!(BlockTile::<u16, V>::vector_width(), 8);
    /// ```
    pub const fn vector_width() -> usize {
        vector_width::<T, L>(L::MAP.rank)
    }

    /// [`load`](Self::load) for arrays whose base is aligned to the vector of
    /// [`vector_width`](Self::vector_width) elements and whose last extent and other strides are
    /// multiples of it, with last stride 1: every access is a whole vector, inside the array or
    /// not at all, with no element-wise path (Triton's code for arguments it specializes as
    /// divisible by 16). A kernel that needs the general case too gets both from two entry points.
    ///
    /// # Constraints
    /// The conditions above, checked in the kernel: a violation stops it with a message naming
    /// them. Otherwise as [`load`](Self::load).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [64], size_per_thread [4], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut x: Vec<f32> = (0..72).map(|i| i as f32).collect();
    /// let a = LayoutTensor::new(&mut x, Strided::row_major([72])).unwrap();
    /// assert_eq!(BlockTile::<f32, V>::load_aligned(&a, [1], -1.0).values(), &[64.0, 65.0, 66.0, 67.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn load_aligned<const R: usize>(array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R], padding: T) -> Self {
        let (layout, ptr, base) = setup::<T, L, R>(array, index);
        let w = vector_width::<T, L>(R);
        let ok = aligned(&layout, ptr, w);
        let whole = ok && tile_inside::<L, R>(&layout, &index);
        let mut values = L::Storage::<T>::splat(padding);
        macro_rules! body {
            ($w:literal) => {
                for_each_value::<L>(|v| {
                    if v % $w == 0 {
                        let (off, inside) = element::<L, R>(&base, &[0; R], &layout.shape, &layout.stride, v, $w);
                        if whole || (ok && inside) {
                            // SAFETY: inside the array and aligned (`aligned`).
                            let x: [T; $w] = unsafe { read_vec::<T, $w>(ptr.offset(off)) };
                            values.as_mut_slice()[v..v + $w].copy_from_slice(&x);
                        }
                    }
                })
            };
        }
        vector_arms!(w, body);
        refuse_unless_aligned(ok);
        BlockTile { values, layout: PhantomData }
    }

    /// [`store`](Self::store) for arrays meeting [`load_aligned`](Self::load_aligned)'s
    /// conditions: whole vectors only.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(V = shape [64], size_per_thread [4], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let mut y = vec![0.0f32; 8];
    /// let a = LayoutTensor::new(&mut y, Strided::row_major([8])).unwrap();
    /// BlockTile::<f32, V>::full(2.0).store_aligned(&a, [0]);
    /// assert_eq!(y, [2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0]); // thread 0's elements 0..4
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn store_aligned<const R: usize>(&self, array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R]) {
        let (layout, ptr, base) = setup::<T, L, R>(array, index);
        let w = vector_width::<T, L>(R);
        let ok = aligned(&layout, ptr, w);
        let whole = ok && tile_inside::<L, R>(&layout, &index);
        let values = self.values.as_slice();
        macro_rules! body {
            ($w:literal) => {
                for_each_value::<L>(|v| {
                    if v % $w == 0 && writes::<L>(v) {
                        let (off, inside) = element::<L, R>(&base, &[0; R], &layout.shape, &layout.stride, v, $w);
                        if whole || (ok && inside) {
                            let mut x = [values[v]; $w];
                            x.copy_from_slice(&values[v..v + $w]);
                            // SAFETY: inside the array and aligned (`aligned`).
                            unsafe { write_vec::<T, $w>(ptr.offset(off), x) };
                        }
                    }
                })
            };
        }
        vector_arms!(w, body);
        refuse_unless_aligned(ok);
    }
}

/// Whether `load_aligned`/`store_aligned` may use whole vectors of `w` elements of the array.
#[inline(always)]
fn aligned<T, const R: usize>(layout: &Strided<R>, ptr: *mut T, w: usize) -> bool {
    w == 1 || (vectorizable(layout, ptr, w) && layout.shape[R - 1] % w as i64 == 0)
}

/// Stops the kernel, naming the conditions, unless `ok`. The aligned accesses test it after
/// their (skipped) accesses rather than before: a refusal ahead of the loads made LLVM keep more
/// of them live at once (the 8192-column layer norm went from 75 to 127 registers).
#[inline(always)]
fn refuse_unless_aligned(ok: bool) {
    crate::device_assert!(
        ok,
        "block tile load_aligned/store_aligned: the array's last stride must be 1 and its base, last extent and other strides multiples of the tile's vector (BlockTile::vector_width elements)"
    );
}

/// Writes `value` to every element of the tile of `array` at tile `index` that lies inside the
/// array (`ct.store` of a scalar).
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::{blocked_layout, LayoutTensor, Strided};
/// use cute_rs_tensor::block_tile::store_broadcast;
/// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let mut y = vec![0i32; 4];
/// let a = LayoutTensor::new(&mut y, Strided::row_major([4])).unwrap();
/// store_broadcast::<i32, V, 1>(&a, [0], 9); // thread 0's elements 0 and 1
/// assert_eq!(y, [9, 9, 0, 0]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub fn store_broadcast<T: Element, L: TvLayout, const R: usize>(array: &LayoutTensor<'_, T, Strided<R>, Global>, index: [i64; R], value: T) {
    BlockTile::<T, L>::full(value).store(array, index);
}

/// A global address: the element type of Triton pointer tiles.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{BlockTile, Ptr};
/// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let x = [1.0f32, 2.0];
/// let p = Ptr::tile::<V>(x.as_ptr()).offset(BlockTile::<i32, V>::full(1));
/// assert_eq!(unsafe { *p.values()[0].0 }, 2.0);
/// # }).unwrap();
/// ```
#[derive(Debug, PartialEq, Eq)]
pub struct Ptr<T>(pub *mut T);

impl<T> Clone for Ptr<T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}

impl<T> Ptr<T> {
    /// The tile whose every element is `base` (Triton's scalar pointer argument, broadcast).
    #[inline(always)]
    pub fn tile<L: TvLayout>(base: *const T) -> BlockTile<Ptr<T>, L> {
        BlockTile::full(Ptr(base as *mut T))
    }
}

/// Integer types that offset pointers.
pub trait Offset: Copy {
    /// As `isize`.
    fn to_isize(self) -> isize;
}
macro_rules! offsets {
    ($($t:ty),*) => {$(impl Offset for $t {
        #[inline(always)]
        fn to_isize(self) -> isize {
            self as isize
        }
    })*};
}
offsets!(i32, u32, i64, u64, isize, usize);

impl<T, L: TvLayout> BlockTile<Ptr<T>, L> {
    /// Each pointer advanced by its offset (in elements): Triton's `ptr + offsets`.
    #[inline(always)]
    pub fn offset<I: Offset>(&self, offsets: impl Operand<I, L>) -> Self {
        self.zip(offsets, |p, o| Ptr(p.0.wrapping_offset(o.to_isize())))
    }
}

/// No mask: every element is accessed.
#[derive(Clone, Copy, Debug)]
pub struct NoMask;

/// A load's mask (a tile broadcast to the pointers' layout, or a scalar).
#[derive(Clone, Copy, Debug)]
pub struct Masked<M>(M);

/// A load of a pointer tile being configured ([`load`]): `mask`, then `other`, then
/// [`run`](Self::run); the cache hints ([`cache_modifier`](Self::cache_modifier),
/// [`eviction_policy`](Self::eviction_policy), [`volatile`](Self::volatile)) in any state.
///
/// # Parameters
/// - `M`, `O`: the mask and `other` states ([`NoMask`] or [`Masked`]; `T` or a tile).
/// - `C`, `E`: Triton's cache modifier and eviction policy ([`triton`](crate::triton)'s
///   [`CacheModifier`] and [`EvictionPolicy`] types).
pub struct PtrLoad<'p, T, L: TvLayout, M, O, C = NoCache, E = NoEviction> {
    ptrs: &'p BlockTile<Ptr<T>, L>,
    mask: M,
    other: O,
    hints: PhantomData<(C, E)>,
}

impl<'p, T: Element, L: TvLayout, M, O, C: CacheModifier, E: EvictionPolicy> PtrLoad<'p, T, L, M, O, C, E> {
    /// `cache_modifier=`: [`Ca`](crate::triton::Ca), [`Cg`](crate::triton::Cg),
    /// [`Cs`](crate::triton::Cs), [`Lu`](crate::triton::Lu), [`Cv`](crate::triton::Cv) or
    /// [`NoCache`], as [`triton::Load::cache_modifier`](crate::triton::Load::cache_modifier)
    /// (elements of 1, 2, 4, 8 or 16 bytes; a compile-time error otherwise).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::{load, BlockTile, Ptr};
    /// use cute_rs_tensor::triton::{Cg, EvictFirst};
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let x = [half::f16::from_f32(1.5)];
    /// let y = unsafe { load(&Ptr::tile::<V>(x.as_ptr())).cache_modifier(Cg).eviction_policy(EvictFirst).run() };
    /// assert_eq!(y.values()[0].to_f32(), 1.5);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn cache_modifier<C2: CacheModifier>(self, _: C2) -> PtrLoad<'p, T, L, M, O, C2, E> {
        hinted_size::<T>();
        PtrLoad { ptrs: self.ptrs, mask: self.mask, other: self.other, hints: PhantomData }
    }

    /// `eviction_policy=`: [`EvictFirst`](crate::triton::EvictFirst),
    /// [`EvictLast`](crate::triton::EvictLast), [`EvictNormal`](crate::triton::EvictNormal) or
    /// [`NoEviction`]: the L2 priority, and the L1 one where no cache operator is given.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::{load, BlockTile, Ptr};
    /// use cute_rs_tensor::triton::EvictLast;
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let x = [7u8];
    /// assert_eq!(unsafe { load(&Ptr::tile::<V>(x.as_ptr())).eviction_policy(EvictLast).run() }.values(), &[7]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn eviction_policy<E2: EvictionPolicy>(self, _: E2) -> PtrLoad<'p, T, L, M, O, C, E2> {
        hinted_size::<T>();
        PtrLoad { ptrs: self.ptrs, mask: self.mask, other: self.other, hints: PhantomData }
    }

    /// `volatile=True`: `ld.volatile.global` (replaces the cache modifier; no eviction priority).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(1, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::{load, BlockTile, Ptr};
    /// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
    /// let x = [3i16];
    /// assert_eq!(unsafe { load(&Ptr::tile::<V>(x.as_ptr())).volatile().run() }.values(), &[3]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn volatile(self) -> PtrLoad<'p, T, L, M, O, Volatile, NoEviction> {
        PtrLoad { ptrs: self.ptrs, mask: self.mask, other: self.other, hints: PhantomData }
    }
}

/// `tl.load(pointer)`: a load of each element of a pointer tile, configured with
/// [`mask`](PtrLoad::mask) and [`other`](PtrLoad::other).
///
/// # Safety
/// Every unmasked pointer is valid for reads of `T` and aligned.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{load, BlockTile, Ptr};
/// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let x = [10.0f32, 11.0, 12.0];
/// let offs = BlockTile::<i32, V>::arange(0) + 1; // thread 0: 1, 2
/// let p = Ptr::tile::<V>(x.as_ptr()).offset(offs);
/// let y = unsafe { load(&p).mask(offs.lt(2)).other(-1.0).run() };
/// assert_eq!(y.values(), &[11.0, -1.0]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub unsafe fn load<T: Element, L: TvLayout>(ptrs: &BlockTile<Ptr<T>, L>) -> PtrLoad<'_, T, L, NoMask, T> {
    PtrLoad { ptrs, mask: NoMask, other: T::ZERO, hints: PhantomData }
}

impl<'p, T: Element, L: TvLayout, O, C: CacheModifier, E: EvictionPolicy> PtrLoad<'p, T, L, NoMask, O, C, E> {
    /// Loads only where `mask` (a tile broadcast to `L`, or a scalar) is true.
    #[inline(always)]
    pub fn mask<M: Operand<bool, L>>(self, mask: M) -> PtrLoad<'p, T, L, Masked<M>, T, C, E> {
        PtrLoad { ptrs: self.ptrs, mask: Masked(mask), other: T::ZERO, hints: PhantomData }
    }

    /// Runs the load.
    #[inline(always)]
    pub fn run(self) -> BlockTile<T, L> {
        let policy = E::policy();
        // SAFETY: the caller of `load` promised valid pointers.
        self.ptrs.map(|p| unsafe { C::read::<T, E>(p.0, policy) })
    }
}

impl<'p, T: Element, L: TvLayout, M: Operand<bool, L>, O: CastOperand<T, L>, C: CacheModifier, E: EvictionPolicy>
    PtrLoad<'p, T, L, Masked<M>, O, C, E>
{
    /// The value of masked-out elements (a tile broadcast to `L`, or a scalar; zero by default).
    #[inline(always)]
    pub fn other<O2: CastOperand<T, L>>(self, other: O2) -> PtrLoad<'p, T, L, Masked<M>, O2, C, E> {
        PtrLoad { ptrs: self.ptrs, mask: self.mask, other, hints: PhantomData }
    }

    /// Runs the masked load.
    #[inline(always)]
    pub fn run(self) -> BlockTile<T, L> {
        let policy = E::policy();
        let mut out = BlockTile::<T, L>::zeros();
        let (mask, other) = (self.mask.0, self.other);
        let ptrs = self.ptrs.values();
        for_each_value::<L>(|v| {
            out.values_mut()[v] = if mask.at(v) {
                // SAFETY: an unmasked pointer, valid by `load`'s contract.
                unsafe { C::read::<T, E>(ptrs[v].0, policy) }
            } else {
                other.at(v)
            };
        });
        out
    }
}

/// `tl.store(pointer, value)`: writes each element of `value` (a tile broadcast to `L`, or a
/// scalar) to its pointer; a replicated element is written once.
///
/// # Safety
/// Every pointer is valid for writes of `T` and aligned.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{store, BlockTile, Ptr};
/// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let mut y = [0i32; 2];
/// unsafe { store(&Ptr::tile::<V>(y.as_mut_ptr()), 4) };
/// assert_eq!(y, [4, 0]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub unsafe fn store<T: Element, L: TvLayout>(ptrs: &BlockTile<Ptr<T>, L>, value: impl CastOperand<T, L>) {
    store_masked(ptrs, value, true)
}

/// `tl.store(pointer, value, mask)`: [`store`] where `mask` is true; masked-out pointers are not
/// accessed.
///
/// # Safety
/// Every unmasked pointer is valid for writes of `T` and aligned.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{store_masked, BlockTile, Ptr};
/// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let mut y = [0i32; 2];
/// let i = BlockTile::<i32, V>::arange(0);
/// unsafe { store_masked(&Ptr::tile::<V>(y.as_mut_ptr()).offset(i), i + 5, i.lt(1)) };
/// assert_eq!(y, [5, 0]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub unsafe fn store_masked<T: Element, L: TvLayout>(ptrs: &BlockTile<Ptr<T>, L>, value: impl CastOperand<T, L>, mask: impl Operand<bool, L>) {
    store_with(ptrs, value).mask(mask).run()
}

/// A store of a pointer tile being configured ([`store_with`]): [`mask`](Self::mask),
/// [`cache_modifier`](Self::cache_modifier), [`eviction_policy`](Self::eviction_policy), then
/// [`run`](Self::run).
///
/// # Parameters
/// - `V`, `M`: the value and the mask (tiles broadcast to `L`, or scalars).
/// - `C`, `E`: Triton's store cache modifier ([`StoreCacheModifier`]) and eviction policy.
pub struct PtrStore<'p, T, L: TvLayout, V, M, C = NoCache, E = NoEviction> {
    ptrs: &'p BlockTile<Ptr<T>, L>,
    value: V,
    mask: M,
    hints: PhantomData<(C, E)>,
}

/// `tl.store(pointer, value, mask, cache_modifier, eviction_policy)` as a builder: [`store`] and
/// [`store_masked`] with Triton's store hints.
///
/// # Safety
/// Every unmasked pointer is valid for writes of `T` and aligned.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{store_with, BlockTile, Ptr};
/// use cute_rs_tensor::triton::{Cs, EvictFirst};
/// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
/// let mut y = [0u8; 2];
/// let i = BlockTile::<i32, V>::arange(0);
/// let p = Ptr::tile::<V>(y.as_mut_ptr()).offset(i);
/// unsafe { store_with(&p, 9u8).mask(i.lt(1)).cache_modifier(Cs).eviction_policy(EvictFirst).run() };
/// assert_eq!(y, [9, 0]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub unsafe fn store_with<T: Element, L: TvLayout, V: CastOperand<T, L>>(ptrs: &BlockTile<Ptr<T>, L>, value: V) -> PtrStore<'_, T, L, V, bool> {
    PtrStore { ptrs, value, mask: true, hints: PhantomData }
}

impl<'p, T: Element, L: TvLayout, V: CastOperand<T, L>, M: Operand<bool, L>, C: StoreCacheModifier, E: EvictionPolicy>
    PtrStore<'p, T, L, V, M, C, E>
{
    /// Stores only where `mask` (a tile broadcast to `L`, or a scalar) is true; masked-out
    /// pointers are not accessed.
    #[inline(always)]
    pub fn mask<M2: Operand<bool, L>>(self, mask: M2) -> PtrStore<'p, T, L, V, M2, C, E> {
        PtrStore { ptrs: self.ptrs, value: self.value, mask, hints: PhantomData }
    }

    /// `cache_modifier=`: [`Wb`](crate::triton::Wb), [`Cg`](crate::triton::Cg),
    /// [`Cs`](crate::triton::Cs), [`Wt`](crate::triton::Wt) or [`NoCache`] (elements of 1, 2,
    /// 4, 8 or 16 bytes; a compile-time error otherwise).
    #[inline(always)]
    pub fn cache_modifier<C2: StoreCacheModifier>(self, _: C2) -> PtrStore<'p, T, L, V, M, C2, E> {
        hinted_size::<T>();
        PtrStore { ptrs: self.ptrs, value: self.value, mask: self.mask, hints: PhantomData }
    }

    /// `eviction_policy=`: as [`PtrLoad::eviction_policy`].
    #[inline(always)]
    pub fn eviction_policy<E2: EvictionPolicy>(self, _: E2) -> PtrStore<'p, T, L, V, M, C, E2> {
        hinted_size::<T>();
        PtrStore { ptrs: self.ptrs, value: self.value, mask: self.mask, hints: PhantomData }
    }

    /// Runs the store; a replicated element is written once.
    #[inline(always)]
    pub fn run(self) {
        let policy = E::policy();
        let ptrs = self.ptrs.values();
        for_each_value::<L>(|v| {
            if self.mask.at(v) && writes::<L>(v) {
                // SAFETY: an unmasked pointer, valid by `store_with`'s contract.
                unsafe { C::write::<T, E>(ptrs[v].0, self.value.at(v), policy) };
            }
        });
    }
}
