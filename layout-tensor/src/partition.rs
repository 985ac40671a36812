//! Thread-value partitions (CuTe's `make_tiled_copy(atom, thr_layout, val_layout)`: a thread layout
//! and a value layout give each thread its fragment of every tile) and swizzled `distribute`
//! (Mojo's `distribute[..., swizzle]`).
//!
//! # Thread-value layouts
//! A thread layout `thr` (tile coordinate of a thread -> thread index) and a value layout `val`
//! (coordinate of a value inside a thread's block -> value index) tile a block of shape
//! `shape(thr) * shape(val)` mode by mode, each thread owning a contiguous `shape(val)` block:
//! tile coordinate `m = v_m + V_m * t_m` in each mode. [`tv_layout`] is CuTe's
//! `right_inverse(raked_product(thr, val))` shaped `(size(thr), size(val))`: it maps
//! `(thread, value)` to the tile's 1-D (column-major) index. [`tv_partition`] composes a tensor's
//! tiles with it: thread `tid`'s fragment is `(values, tiles)`.
//!
//! ```
//! use cute_rs_layout::Layout;
//! use cute_rs_tensor::partition::tv_layout;
//! // 2 x 2 threads (row-major) with 2 x 1 values each tile a 4 x 2 block.
//! let tv = tv_layout(Layout::parse("(2,2):(2,1)").unwrap(), Layout::parse("(2,1)").unwrap()).unwrap();
//! // Thread 1 is at (0, 1): it owns rows 0..2 of column 1, 1-D indices 4 and 5.
//! assert_eq!((tv.call(1), tv.call(1 + 4)), (4, 5));
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{composition, make_layout, make_layout_col_major, raked_product, right_inverse, IntTuple, Layout, LayoutError, Swizzle};

use crate::mask::Full;
use crate::static_layout::{divide_by_shape, Partition, PartitionOrigin, Static, StaticLayout};
use crate::tensor::{coord_offset, AddressSpace, Element, LayoutTensor};
use crate::view::thread_coord;


/// CuTe's thread-value layout of `make_tiled_copy(_, thr, val)`: `(thread, value) -> 1-D index` in
/// the tile of shape [`tv_tiler`]`(thr, val)`.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] when `thr` or `val` is not compact (a bijection onto
/// `0..size`: a thread or value index missing or repeated); the errors of [`raked_product`] and
/// [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// use cute_rs_tensor::partition::tv_layout;
/// let tv = tv_layout(Layout::parse("(4,2):(1,4)").unwrap(), Layout::parse("(2,1)").unwrap()).unwrap();
/// // Column-major threads, 2 rows each: value v of thread t is row 2t + v of the 8 x 2 tile.
/// assert_eq!(tv.to_string(), "(8,2):(2,1)");
/// // Threads that skip indices (cosize 12 for 8 threads) are not a bijection:
/// assert!(tv_layout(Layout::parse("(4,2):(1,8)").unwrap(), Layout::parse("2:1").unwrap()).is_err());
/// assert!(tv_layout(Layout::parse("(4,2):(1,0)").unwrap(), Layout::parse("2:1").unwrap()).is_err());
/// ```
pub const fn tv_layout(thr: Layout, val: Layout) -> Result<Layout, LayoutError> {
    // A thread (value) index must name one thread (value): the layouts are bijections onto
    // 0..size, exactly when their right inverse covers their whole size.
    let mut k = 0;
    while k < 2 {
        let l = if k == 0 { thr } else { val };
        if right_inverse(l).size() != l.size() {
            return Err(LayoutError::InvalidArgument {
                op: "make_tiled_copy",
                condition: "the thread and value layouts must be compact (each a bijection onto 0..size)",
                value: right_inverse(l).size(),
            });
        }
        k += 1;
    }
    let inverse = right_inverse(tri!(raked_product(thr, val)));
    let shape = tri!(IntTuple::from_slice(&[thr.size(), val.size()]));
    composition(inverse, tri!(make_layout_col_major(shape)))
}

/// The tile a thread-value layout covers: the compact column-major layout of
/// `shape(thr) * shape(val)` mode by mode (CuTe's `product_each(shape(raked_product(thr, val)))`).
///
/// # Errors
/// The errors of [`raked_product`].
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// let t = cute_rs_tensor::partition::tv_tiler(Layout::parse("(32,8):(8,1)").unwrap(), Layout::parse("(4,1)").unwrap()).unwrap();
/// assert_eq!(t.to_string(), "(128,8):(1,128)");
/// ```
pub const fn tv_tiler(thr: Layout, val: Layout) -> Result<Layout, LayoutError> {
    let mn = tri!(raked_product(thr, val));
    make_layout_col_major(tri!(mn.shape().product_each()))
}

/// The thread-value partition of layout `s`: `(fragment, origin)` where `origin(tid)` is the offset
/// of thread `tid`'s first value and `fragment` is `(values, tiles)`: value `v` of the tile at
/// (column-major) tile index `k` is at `origin(tid) + fragment(v, k)`. Every mode of
/// [`tv_tiler`]`(thr, val)` must divide the matching mode of `s`.
///
/// # Errors
/// The errors of [`tv_layout`], [`divide_by_shape`] (a tile that does not divide) and
/// [`composition`].
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// let (frag, origin) = cute_rs_tensor::partition::tv_partition(
///     Layout::parse("(8,4):(1,8)").unwrap(), Layout::parse("(2,2):(2,1)").unwrap(), Layout::parse("(2,1)").unwrap()).unwrap();
/// assert_eq!(frag.to_string(), "(2,(2,2)):(1,(4,16))"); // 2 contiguous values, 2 x 2 tiles
/// assert_eq!(origin.call(1), 8); // thread 1: column 1
/// ```
pub const fn tv_partition(s: Layout, thr: Layout, val: Layout) -> Result<(Layout, Layout), LayoutError> {
    let tv = tri!(tv_layout(thr, val));
    let z = tri!(divide_by_shape(s, tri!(tv_tiler(thr, val))));
    let placed = tri!(composition(tri!(z.mode(0)), tv));
    let fragment = tri!(make_layout(&[tri!(placed.mode(1)), tri!(z.mode(1))]));
    Ok((fragment, tri!(placed.mode(0))))
}

/// Thread `tid`'s `(values, tiles)` fragment of `S` under the thread layout `Thr` and value layout
/// `Val` ([`tv_partition`], static).
///
/// # Example
/// ```
/// use cute_rs_tensor::{partition::TvFragment, static_layout, StaticLayout};
/// static_layout!(M = "(8,4):(1,8)");
/// static_layout!(Thr = "(2,2):(2,1)");
/// static_layout!(Val = "(2,1)");
/// assert_eq!(TvFragment::<M, Thr, Val>::LAYOUT.to_string(), "(2,(2,2)):(1,(4,16))");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TvFragment<S, Thr, Val>(PhantomData<(S, Thr, Val)>);
impl<S: StaticLayout, Thr: StaticLayout, Val: StaticLayout> StaticLayout for TvFragment<S, Thr, Val> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(tv_partition(S::LAYOUT, Thr::LAYOUT, Val::LAYOUT)).0;
}

/// Thread index -> offset of the thread's first value ([`tv_partition`], static).
///
/// # Example
/// ```
/// use cute_rs_tensor::{partition::TvOrigin, static_layout, StaticLayout};
/// static_layout!(M = "(8,4):(1,8)");
/// static_layout!(Thr = "(2,2):(2,1)");
/// static_layout!(Val = "(2,1)");
/// assert_eq!(TvOrigin::<M, Thr, Val>::LAYOUT.call(3), 8 + 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TvOrigin<S, Thr, Val>(PhantomData<(S, Thr, Val)>);
impl<S: StaticLayout, Thr: StaticLayout, Val: StaticLayout> StaticLayout for TvOrigin<S, Thr, Val> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(tv_partition(S::LAYOUT, Thr::LAYOUT, Val::LAYOUT)).1;
}

/// CuTe's `TiledCopy` made by `make_tiled_copy(_, Thr, Val)`: a thread layout and a value layout,
/// both static. [`partition`](Self::partition) gives a thread its fragment of a tensor (CuTe's
/// `get_slice(tid).partition_S/D`), [`copy`](Self::copy) copies a thread's fragment; every thread
/// of `Thr` calling `copy` copies the whole tensor, each thread `size(Val)` contiguous values per
/// tile (one vector access when they are contiguous in both tensors).
///
/// # Example
/// 32 x 8 threads moving 4 x 1 values each over a 128 x 8 column-major tile.
/// ```
/// use cute_rs_tensor::{partition::TiledCopy, static_layout, LayoutTensor, Static, StaticLayout};
/// static_layout!(M = "(128,8):(1,128)");
/// static_layout!(Thr = "(32,8):(8,1)");
/// static_layout!(Val = "(4,1)");
/// type Copy = TiledCopy<Thr, Val>;
/// assert_eq!(Copy::TILER.to_string(), "(128,8):(1,128)");
/// let mut a: Vec<u32> = (0..1024).collect();
/// let mut b = vec![0u32; 1024];
/// let src = LayoutTensor::new(&mut a, Static::<M>::new()).unwrap();
/// let dst = LayoutTensor::new(&mut b, Static::<M>::new()).unwrap();
/// let f = Copy::partition(src, 9); // thread 9 = (1, 1): rows 4..8 of column 1
/// assert_eq!([f.at([0, 0]), f.at([3, 0])], [132, 135]);
/// for tid in 0..256 {
///     Copy::copy(&dst, &src, tid);
/// }
/// assert_eq!(a, b);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TiledCopy<Thr, Val>(PhantomData<(Thr, Val)>);

impl<Thr: StaticLayout, Val: StaticLayout> TiledCopy<Thr, Val> {
    /// `(thread, value) -> 1-D index` in the tile ([`tv_layout`]).
    pub const TV: Layout = cute_rs_layout::unwrap!(tv_layout(Thr::LAYOUT, Val::LAYOUT));
    /// The tile one pass of all threads covers ([`tv_tiler`]).
    pub const TILER: Layout = cute_rs_layout::unwrap!(tv_tiler(Thr::LAYOUT, Val::LAYOUT));

    /// Thread `tid`'s `(values, tiles)` fragment of `t` ([`TvFragment`]); its modes must be
    /// divided by [`TILER`](Self::TILER)'s (a compile-time error otherwise).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{partition::TiledCopy, static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Thr = "(2,2):(1,2)");
    /// static_layout!(Val = "(1,2)");
    /// let mut v: Vec<u8> = (0..16).collect();
    /// let f = TiledCopy::<Thr, Val>::partition(LayoutTensor::new(&mut v, Static::<M>::new()).unwrap(), 2);
    /// assert_eq!([f.at([0, 0]), f.at([1, 0])], [2, 3]); // thread 2 = (0, 1): row 0, columns 2, 3
    /// ```
    #[inline(always)]
    pub fn partition<'a, T: Element, S: StaticLayout, A: AddressSpace>(
        t: LayoutTensor<'a, T, Static<S>, A, Full>,
        tid: usize,
    ) -> LayoutTensor<'a, T, Static<TvFragment<S, Thr, Val>>, A, Full> {
        let off = TvOrigin::<S, Thr, Val>::LAYOUT.call(tid as i64);
        LayoutTensor::<'a, T, Static<S>, A, Full>::rebuild(t.ptr, t.moved(off), Static::new(), Full)
    }

    /// Thread `tid` copies its fragment of `src` into its fragment of `dst`
    /// ([`copy_from`](LayoutTensor::copy_from)).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{partition::TiledCopy, static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Thr = "(4,1)");
    /// static_layout!(Val = "(1,4)");
    /// let mut a: Vec<u8> = (0..16).collect();
    /// let mut b = vec![0u8; 16];
    /// let (src, dst) = (LayoutTensor::new(&mut a, Static::<M>::new()).unwrap(), LayoutTensor::new(&mut b, Static::<M>::new()).unwrap());
    /// TiledCopy::<Thr, Val>::copy(&dst, &src, 1); // thread 1: row 1
    /// assert_eq!(b[4..8], [4, 5, 6, 7]);
    /// ```
    #[inline(always)]
    pub fn copy<T: Element, D: StaticLayout, S: StaticLayout, A: AddressSpace, A2: AddressSpace>(
        dst: &LayoutTensor<'_, T, Static<D>, A, Full>,
        src: &LayoutTensor<'_, T, Static<S>, A2, Full>,
        tid: usize,
    ) {
        Self::partition(*dst, tid).copy_from(&Self::partition(*src, tid));
    }
}

impl<'a, T: Element, A: AddressSpace> LayoutTensor<'a, T, Layout, A, Full> {
    /// Thread `tid`'s `(values, tiles)` fragment under the run-time thread layout `thr` and value
    /// layout `val` ([`tv_partition`]; the static form is [`TiledCopy::partition`]).
    ///
    /// # Errors
    /// The errors of [`tv_partition`]; [`LayoutError::InvalidArgument`] for `tid >= size(thr)`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// use cute_rs_tensor::LayoutTensor;
    /// let mut v: Vec<u32> = (0..32).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(8,4):(1,8)").unwrap()).unwrap();
    /// let f = t.tv_partition(Layout::parse("(2,2):(2,1)").unwrap(), Layout::parse("(2,1)").unwrap(), 1).unwrap();
    /// assert_eq!((0..8).map(|i| f.get(i)).collect::<Vec<_>>(), [8, 9, 12, 13, 24, 25, 28, 29]);
    /// ```
    pub fn tv_partition(self, thr: Layout, val: Layout, tid: usize) -> Result<Self, LayoutError> {
        if tid as i64 >= thr.size() {
            return Err(LayoutError::InvalidArgument { op: "tv_partition", condition: "the thread index must be below size(thr)", value: tid as i64 });
        }
        let (fragment, origin) = tv_partition(self.layout, thr, val)?;
        Ok(Self::rebuild(self.ptr, self.moved(origin.call(tid as i64)), fragment, Full))
    }
}

impl<'a, T: Element, A: AddressSpace> LayoutTensor<'a, T, Layout, A, Full> {
    /// [`distribute`](LayoutTensor::distribute) (run-time thread layout) with the fragment's
    /// origin swizzled by `sw`: the run-time form of
    /// [`distribute_swizzled`](LayoutTensor::distribute_swizzled).
    ///
    /// # Errors
    /// The errors of [`distribute`](LayoutTensor::distribute); [`LayoutError::InvalidArgument`]
    /// when a fragment stride is not a multiple of the swizzle's period ([`swizzle_commutes`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::{Layout, Swizzle};
    /// use cute_rs_tensor::LayoutTensor;
    /// let mut v: Vec<u32> = (0..64).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(8,8):(8,1)").unwrap()).unwrap();
    /// let sw = Swizzle::new(1, 0, 3).unwrap();
    /// let f = t.distribute_swizzled::<2>(Layout::parse("(4,8):(8,1)").unwrap(), 9, sw).unwrap();
    /// assert_eq!((f.get(0), f.get(1)), (8, 40));
    /// assert!(t.distribute_swizzled::<2>(Layout::parse("(4,2):(2,1)").unwrap(), 9, sw).is_err());
    /// ```
    pub fn distribute_swizzled<const R: usize>(self, threads: Layout, tid: usize, sw: Swizzle) -> Result<Self, LayoutError> {
        let plain = self.distribute::<R>(threads, tid)?;
        if !swizzle_commutes(plain.layout, sw) {
            return Err(LayoutError::InvalidArgument {
                op: "distribute_swizzled",
                condition: "every fragment stride must be a multiple of the swizzle's period 2^(B+M+|S|)",
                value: 1 << (sw.base() + sw.bits() + sw.shift().unsigned_abs()),
            });
        }
        // The origin relative to this view, swizzled, then moved to.
        let size = core::mem::size_of::<T>() as isize;
        let origin = (plain.byte_off - self.byte_off) / size;
        Ok(Self::rebuild(self.ptr, self.moved(sw.apply(origin as i64)), plain.layout, Full))
    }
}

/// Whether swizzling a fragment's origin swizzles every element of it: each stride of `fragment`
/// (of an extent above 1) is a multiple of the swizzle's period `2^(base + bits + |shift|)`, so
/// adding an offset of the fragment never changes, nor carries into, the bits the swizzle reads or
/// writes: `swizzle(origin + f) == swizzle(origin) + f`.
///
/// # Example
/// ```
/// use cute_rs_layout::{Layout, Swizzle};
/// let sw = Swizzle::new(2, 0, 2).unwrap(); // period 16
/// assert!(cute_rs_tensor::partition::swizzle_commutes(Layout::parse("(2,2):(32,16)").unwrap(), sw));
/// assert!(!cute_rs_tensor::partition::swizzle_commutes(Layout::parse("(2,2):(32,4)").unwrap(), sw));
/// ```
pub const fn swizzle_commutes(fragment: Layout, sw: Swizzle) -> bool {
    let period = 1i64 << (sw.base() + sw.bits() + sw.shift().unsigned_abs());
    let shape = fragment.shape();
    let stride = fragment.stride();
    let (s, d) = (shape.leaves(), stride.leaves());
    let mut i = 0;
    while i < s.len() {
        if s[i] > 1 && d[i] % period != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// A swizzle known at compile time (see [`Sw`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::partition::{StaticSwizzle, Sw};
/// assert_eq!(<Sw<3, 4, 3>>::SWIZZLE.to_string(), "Sw<3,4,3>");
/// ```
pub trait StaticSwizzle {
    /// The swizzle.
    const SWIZZLE: Swizzle;
}

/// The swizzle `Sw<B, M, S>` as a type (CuTe's `Swizzle<B, M, S>`): XORs bits `[M, M + B)` of an
/// offset with bits `[M + S, M + S + B)`. An invalid one (`|S| < B`) fails to compile.
///
/// # Example
/// ```
/// use cute_rs_tensor::partition::{StaticSwizzle, Sw};
/// assert_eq!(<Sw<1, 0, 3>>::SWIZZLE.apply(9), 8);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Sw<const B: u32, const M: u32, const S: i32>;
impl<const B: u32, const M: u32, const S: i32> StaticSwizzle for Sw<B, M, S> {
    const SWIZZLE: Swizzle = cute_rs_layout::unwrap!(Swizzle::new(B, M, S));
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace> LayoutTensor<'a, T, Static<S>, A, Full> {
    /// [`distribute`](LayoutTensor::distribute) with the fragment's origin swizzled by `Z` (Mojo's
    /// `distribute[threads, swizzle=...]`): for a tensor stored swizzled by `Z` (offsets in
    /// elements of this view, from its origin), thread `tid`'s fragment element `j` is at
    /// `Z(origin(tid) + fragment(j))`, which equals `Z(origin(tid)) + fragment(j)` because the
    /// fragment's strides must be multiples of the swizzle's period ([`swizzle_commutes`],
    /// checked at compile time).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{partition::Sw, static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Th = "(4,8):(8,1)"); // fragments (2,1):(32,0)
    /// let mut v: Vec<u32> = (0..64).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// // Sw<1,0,3>: bit 3 flips bit 0. Thread 9 = (1, 1): origin 9 -> 8.
    /// let f = t.distribute_swizzled::<Th, Sw<1, 0, 3>, 2>(9);
    /// assert_eq!([f.at([0, 0]), f.at([1, 0])], [8, 40]); // 40 = Sw(9 + 32)
    /// ```
    /// A fragment stride that the swizzle would disturb is a compile-time error:
    /// ```compile_fail
    /// use cute_rs_tensor::{partition::Sw, static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Th = "(4,2):(2,1)"); // fragments (2,4):(32,2)
    /// let mut v = [0u32; 64];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let f = t.distribute_swizzled::<Th, Sw<1, 0, 3>, 2>(2);
    /// # let _ = f.get(0);
    /// ```
    #[inline(always)]
    pub fn distribute_swizzled<Th: StaticLayout, Z: StaticSwizzle, const R: usize>(
        self,
        tid: usize,
    ) -> LayoutTensor<'a, T, Static<Partition<S, Th>>, A, Full> {
        const {
            assert!(
                swizzle_commutes(Partition::<S, Th>::LAYOUT, Z::SWIZZLE),
                "distribute_swizzled: every fragment stride must be a multiple of the swizzle's period 2^(B+M+|S|)"
            )
        };
        let c: [i64; R] = thread_coord(&Th::LAYOUT, &Th::MODES, tid as i64);
        let off = coord_offset(&PartitionOrigin::<S, Th>::LAYOUT, &PartitionOrigin::<S, Th>::MODES, &c);
        Self::rebuild(self.ptr, self.moved(Z::SWIZZLE.apply(off)), Static::new(), Full)
    }
}
