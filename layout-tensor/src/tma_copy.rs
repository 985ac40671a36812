//! TMA tile copies through [`LayoutTensor`]: a shared tensor whose static layout is a TMA *box*
//! (compact, mode 0 innermost) is filled from global memory with one bulk tensor copy
//! ([`load_tma`](LayoutTensor::load_tma), on top of [`crate::device::tma`]), laid out as the tensor
//! map's swizzle says; [`TmaSwizzled`] reads it back by logical coordinate.
//!
//! # The box image and its swizzle
//! TMA writes box element `(c0, c1, ..)` (innermost first) at the compact offset
//! `c0 + b0 * (c1 + b1 * (..))`, then permutes 16-byte chunks inside each 128-byte row of shared
//! memory: with an `N`-byte swizzle (`N` = 32, 64, 128) byte address bits `[4, 4 + log2(N/16))`
//! are XORed with bits `[7, 7 + log2(N/16))`, CuTe's `Swizzle<log2(N/16), 4, 3>` on bytes. In
//! elements of `E` bytes that is `Sw<log2(N/16), 4 - log2(E), 3>` ([`tma_swizzle`]); a
//! [`TmaSwizzle`] mode type carries it.
//!
//! A [`TmaArray`] is an array with its tensor map: the kernel parameter of block-tile TMA loads
//! ([`BlockTile::load_tma`](crate::block_tile::BlockTile::load_tma), cuTile's `allow_tma`).
//!
//! ```
//! use cute_rs_tensor::tma_copy::{tma_swizzle, Swizzle128B, TmaSwizzle};
//! // f32 (4 bytes): chunks of 4 elements, rows of 32.
//! assert_eq!(tma_swizzle(3, 4).unwrap().to_string(), "Sw<3,2,3>");
//! assert_eq!(tma_swizzle(0, 4).unwrap().apply(37), 37); // no swizzle: the identity
//! // Element 33 (row 1, chunk 0) moves to chunk 1: offset 37.
//! assert_eq!(Swizzle128B::of::<f32>().apply(33), 37);
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{Layout, LayoutError, Swizzle};

use crate::device::tma::{tma_load_1d, tma_load_2d, tma_load_3d, tma_load_4d, tma_load_5d, TmaDescriptor};
use crate::device::tma::{tma_store_1d, tma_store_2d, tma_store_3d, tma_store_4d, tma_store_5d};
use crate::device::sync::Mbarrier;
use crate::mask::Full;
use crate::static_layout::{Static, StaticLayout};
use crate::tensor::{coord_offset, Element, Global, LayoutTensor, Shared};
use crate::Strided;

/// The swizzle, in elements of `elem_bytes` bytes, of a TMA swizzle of `2^bits` 16-byte chunks
/// (`bits` = 0: none, 1: 32 B, 2: 64 B, 3: 128 B): `Sw<bits, 4 - log2(elem_bytes), 3>` (with
/// `bits` = 0 the identity).
///
/// # Errors
/// [`LayoutError::InvalidArgument`] for `bits > 3` or an element size that is not a power of two
/// dividing 16.
///
/// # Example
/// ```
/// use cute_rs_tensor::tma_copy::tma_swizzle;
/// assert_eq!(tma_swizzle(3, 2).unwrap().to_string(), "Sw<3,3,3>"); // f16: chunks of 8
/// assert_eq!(tma_swizzle(1, 16).unwrap().to_string(), "Sw<1,0,3>");
/// assert!(tma_swizzle(4, 4).is_err() && tma_swizzle(2, 3).is_err());
/// ```
pub const fn tma_swizzle(bits: u32, elem_bytes: usize) -> Result<Swizzle, LayoutError> {
    if bits > 3 {
        return Err(LayoutError::InvalidArgument { op: "tma_swizzle", condition: "a TMA swizzle spans 32, 64 or 128 bytes (bits 1..=3)", value: bits as i64 });
    }
    if elem_bytes == 0 || elem_bytes > 16 || !elem_bytes.is_power_of_two() {
        return Err(LayoutError::InvalidArgument { op: "tma_swizzle", condition: "the element size must be a power of two dividing 16", value: elem_bytes as i64 });
    }
    Swizzle::new(bits, 4 - elem_bytes.trailing_zeros(), 3)
}

/// A TMA swizzle mode (what the tensor map was encoded with): [`NoSwizzle`], [`Swizzle32B`],
/// [`Swizzle64B`], [`Swizzle128B`].
///
/// # Example
/// ```
/// use cute_rs_tensor::tma_copy::{Swizzle64B, TmaSwizzle};
/// assert_eq!(Swizzle64B::SPAN_BYTES, 64);
/// assert_eq!(Swizzle64B::ALIGN, 512);
/// ```
pub trait TmaSwizzle: Copy {
    /// `log2` of the number of 16-byte chunks permuted (0 without a swizzle).
    const BITS: u32;
    /// The swizzle's span in bytes: the most bytes the box's inner mode may have (0: no limit).
    const SPAN_BYTES: usize = if Self::BITS == 0 { 0 } else { 16 << Self::BITS };
    /// The alignment of the box in shared memory: 128 bytes, or the swizzle's period (8 rows of
    /// 16-byte chunks times the span / 16).
    const ALIGN: usize = if Self::BITS == 0 { 128 } else { 128 << Self::BITS };

    /// The swizzle in elements of `T` (the identity without a swizzle).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::tma_copy::{NoSwizzle, TmaSwizzle};
    /// assert_eq!(NoSwizzle::of::<f32>().apply(33), 33);
    /// ```
    #[inline(always)]
    fn of<T>() -> Swizzle {
        cute_rs_layout::unwrap!(tma_swizzle(Self::BITS, core::mem::size_of::<T>()))
    }
}

macro_rules! swizzle_mode {
    ($($(#[$doc:meta])* $name:ident = $bits:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl TmaSwizzle for $name {
            const BITS: u32 = $bits;
        }
    )*};
}
swizzle_mode! {
    /// No swizzle (`CU_TENSOR_MAP_SWIZZLE_NONE`).
    ///
    /// ```
    /// use cute_rs_tensor::tma_copy::{NoSwizzle, TmaSwizzle};
    /// assert_eq!(NoSwizzle::BITS, 0);
    /// ```
    NoSwizzle = 0;
    /// The 32-byte swizzle (`CU_TENSOR_MAP_SWIZZLE_32B`).
    ///
    /// ```
    /// use cute_rs_tensor::tma_copy::{Swizzle32B, TmaSwizzle};
    /// assert_eq!(Swizzle32B::SPAN_BYTES, 32);
    /// ```
    Swizzle32B = 1;
    /// The 64-byte swizzle (`CU_TENSOR_MAP_SWIZZLE_64B`).
    ///
    /// ```
    /// use cute_rs_tensor::tma_copy::{Swizzle64B, TmaSwizzle};
    /// assert_eq!(Swizzle64B::BITS, 2);
    /// ```
    Swizzle64B = 2;
    /// The 128-byte swizzle (`CU_TENSOR_MAP_SWIZZLE_128B`).
    ///
    /// ```
    /// use cute_rs_tensor::tma_copy::{Swizzle128B, TmaSwizzle};
    /// assert_eq!(Swizzle128B::ALIGN, 1024);
    /// ```
    Swizzle128B = 3;
}

/// Whether `box_layout` can be a TMA box of `elem_bytes`-byte elements under a swizzle spanning
/// `span_bytes` (0: none): rank 1 to 5, compact column-major (mode 0 innermost), every extent 1 to
/// 256, the inner extent in bytes a multiple of 16 and at most the span.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] naming the violated condition.
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// use cute_rs_tensor::tma_copy::check_box;
/// assert!(check_box(Layout::parse("(32,8):(1,32)").unwrap(), 4, 128).is_ok());
/// assert!(check_box(Layout::parse("(64,8):(1,64)").unwrap(), 4, 128).is_err()); // 256 B rows
/// assert!(check_box(Layout::parse("(32,8):(8,1)").unwrap(), 4, 0).is_err());    // not compact
/// ```
pub const fn check_box(box_layout: Layout, elem_bytes: usize, span_bytes: usize) -> Result<(), LayoutError> {
    const OP: &str = "load_tma";
    let r = box_layout.rank();
    if r < 1 || r > 5 || box_layout.shape().num_leaves() != r {
        return Err(LayoutError::InvalidArgument { op: OP, condition: "a TMA box has 1 to 5 modes, each a single integer", value: r as i64 });
    }
    let shape = box_layout.shape();
    let stride = box_layout.stride();
    let (s, d) = (shape.leaves(), stride.leaves());
    let mut expected = 1;
    let mut k = 0;
    while k < r {
        if s[k] < 1 || s[k] > 256 {
            return Err(LayoutError::InvalidArgument { op: OP, condition: "each box extent must be 1 to 256", value: s[k] });
        }
        if s[k] > 1 && d[k] != expected {
            return Err(LayoutError::InvalidArgument {
                op: OP,
                condition: "the box layout must be compact column-major (mode 0 innermost), as TMA writes it",
                value: d[k],
            });
        }
        expected *= s[k];
        k += 1;
    }
    let inner = s[0] * elem_bytes as i64;
    if inner % 16 != 0 {
        return Err(LayoutError::InvalidArgument { op: OP, condition: "the box's inner extent in bytes must be a multiple of 16", value: inner });
    }
    if span_bytes != 0 && inner > span_bytes as i64 {
        return Err(LayoutError::InvalidArgument { op: OP, condition: "the box's inner extent in bytes must be at most the swizzle's span", value: inner });
    }
    Ok(())
}

/// Compile-time facts of a box `S` of `T` under swizzle `M`.
struct BoxOf<T, S, M>(PhantomData<(T, S, M)>);
impl<T, S: StaticLayout, M: TmaSwizzle> BoxOf<T, S, M> {
    const CHECKED: () = cute_rs_layout::unwrap!(check_box(S::LAYOUT, core::mem::size_of::<T>(), M::SPAN_BYTES));
    const BYTES: u32 = (S::SIZE * core::mem::size_of::<T>()) as u32;
}

impl<'a, T: Element, S: StaticLayout> LayoutTensor<'a, T, Static<S>, Shared, Full> {
    /// Issues the TMA load of the box at element coordinates `coords` (innermost first, as the
    /// tensor map's modes) of the tensor mapped by `desc` into this shared tensor, and announces
    /// its bytes on `bar` (`arrive_expect_tx(size(S) * size_of::<T>())` then
    /// `cp.async.bulk.tensor.<R>d`). One thread issues it; every thread then waits for the
    /// barrier's phase and reads the box through [`tma_swizzled`](Self::tma_swizzled) (with the
    /// map's swizzle `M`). Elements outside the tensor are filled as the map says (zero or NaN).
    ///
    /// `S` must be a box (see [`check_box`]: compact, mode 0 innermost, inner extent a multiple of
    /// 16 bytes and at most `M`'s span) of rank `R`: checked at compile time.
    ///
    /// # Safety
    /// As [`tma_load_2d`]: `desc` a tiled map of rank `R` with
    /// box `shape(S)`, swizzle `M` and element `T`, made visible with
    /// [`fence_proxy_tensormap_acquire`](crate::device::tma::fence_proxy_tensormap_acquire);
    /// `coords[0] * size_of::<T>()` a multiple of 16; this tensor aligned to `M::ALIGN` (checked in
    /// debug builds); `bar` initialized, its current phase expecting this arrival.
    ///
    /// A layout that is not a box is a compile-time error:
    /// ```compile_fail
    /// use cute_rs_tensor::device::tma::TmaDescriptor;
    /// use cute_rs_tensor::device::sync::Mbarrier;
    /// use cute_rs_tensor::{static_layout, tma_copy::Swizzle128B, LayoutTensor, Shared, Static};
    /// static_layout!(Wide = "(64,8):(1,64)"); // 256-byte rows: wider than the 128-byte swizzle
    /// let mut image = [0f32; 512];
    /// let smem = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(image.as_mut_ptr(), Static::<Wide>::new()) };
    /// let bar = Mbarrier::new();
    /// unsafe { smem.load_tma::<Swizzle128B, 2>(core::ptr::null::<TmaDescriptor>(), [0, 0], &bar) };
    /// ```
    ///
    /// # Example
    /// A kernel's body (device code: `bar` initialized by one thread, then a block barrier).
    /// ```no_run
    /// use cute_rs_tensor::device::ids::thread_idx_x;
    /// use cute_rs_tensor::device::tma::{fence_proxy_tensormap_acquire, TmaDescriptor};
    /// use cute_rs_tensor::device::sync::Mbarrier;
    /// use cute_rs_tensor::{shared_tensor, static_layout, tma_copy::Swizzle128B};
    /// static_layout!(Box32x8 = "(32,8):(1,32)");
    /// # unsafe fn body(desc: *const TmaDescriptor, bar: &Mbarrier, x0: i32, y0: i32) -> f32 {
    /// let smem = shared_tensor!(BOX: f32, Box32x8, align 1024);
    /// if thread_idx_x() == 0 {
    ///     fence_proxy_tensormap_acquire(desc);
    ///     smem.load_tma::<Swizzle128B, 2>(desc, [x0, y0], bar);
    /// }
    /// bar.wait_parity(0);
    /// let (c, r) = ((thread_idx_x() % 32) as i64, (thread_idx_x() / 32) as i64);
    /// smem.tma_swizzled::<Swizzle128B>().at([c, r])
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_tma<M: TmaSwizzle, const R: usize>(&self, desc: *const TmaDescriptor, coords: [i32; R], bar: &Mbarrier) {
        let () = BoxOf::<T, S, M>::CHECKED;
        const { assert!(S::MODES.rank == R, "load_tma: the coordinates need one entry per mode of the box") };
        debug_assert!(self.as_ptr() as usize % M::ALIGN == 0, "load_tma: the shared box must be aligned to the swizzle's period");
        let mut c = [0i32; 5];
        c[..R].copy_from_slice(&coords);
        // SAFETY: forwarded from the caller.
        unsafe {
            bar.arrive_expect_tx(BoxOf::<T, S, M>::BYTES);
            tma_load_rank::<R>(self.as_ptr() as *mut u8, desc, c, bar);
        }
    }

    /// The box as TMA wrote it with swizzle `M`: a view reading element `i` (or a per-mode
    /// coordinate) at `M`'s swizzle of its compact offset.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tma_copy::Swizzle32B, LayoutTensor, Shared, Static};
    /// static_layout!(Box = "(8,8):(1,8)"); // 8 f32 = 32 bytes per row
    /// // The image TMA writes with a 32-byte swizzle: byte address bit 4 ^= bit 7, i.e. the two
    /// // 16-byte chunks of rows 4..8 swapped.
    /// let mut image = [0f32; 64];
    /// for e in 0..64usize {
    ///     let byte = 4 * e;
    ///     image[(byte ^ (((byte >> 7) & 1) << 4)) / 4] = e as f32;
    /// }
    /// assert_eq!(image[32..40], [36., 37., 38., 39., 32., 33., 34., 35.]);
    /// let smem = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(image.as_mut_ptr(), Static::<Box>::new()) };
    /// let b = smem.tma_swizzled::<Swizzle32B>();
    /// assert!((0..64).all(|i| b.get(i) == i as f32));
    /// ```
    #[inline(always)]
    pub fn tma_swizzled<M: TmaSwizzle>(&self) -> TmaSwizzled<'a, T, S, M> {
        TmaSwizzled { tensor: *self, _m: PhantomData }
    }
}

/// The TMA load of rank `R` (1 to 5) of the box at `coords` (its first `R` entries, innermost
/// first) of the map `desc` into `dst`, completing on `bar`.
///
/// # Safety
/// As [`tma_load_2d`] for rank `R`.
#[inline(always)]
pub(crate) unsafe fn tma_load_rank<const R: usize>(dst: *mut u8, desc: *const TmaDescriptor, c: [i32; 5], bar: &Mbarrier) {
    // SAFETY: forwarded from the caller; the copy of rank `R` reads its `R` coordinates.
    unsafe {
        match R {
            1 => tma_load_1d(dst, desc, [c[0]], bar),
            2 => tma_load_2d(dst, desc, [c[0], c[1]], bar),
            3 => tma_load_3d(dst, desc, [c[0], c[1], c[2]], bar),
            4 => tma_load_4d(dst, desc, [c[0], c[1], c[2], c[3]], bar),
            _ => tma_load_5d(dst, desc, c, bar),
        }
    }
}

/// The TMA store of rank `R` (1 to 5) of the box at `src` to `coords` (its first `R` entries,
/// innermost first) of the map `desc`, in the current bulk group.
///
/// # Safety
/// As [`tma_store_2d`] for rank `R`.
#[inline(always)]
pub(crate) unsafe fn tma_store_rank<const R: usize>(desc: *const TmaDescriptor, c: [i32; 5], src: *const u8) {
    // SAFETY: forwarded from the caller; the copy of rank `R` reads its `R` coordinates.
    unsafe {
        match R {
            1 => tma_store_1d(desc, [c[0]], src),
            2 => tma_store_2d(desc, [c[0], c[1]], src),
            3 => tma_store_3d(desc, [c[0], c[1], c[2]], src),
            4 => tma_store_4d(desc, [c[0], c[1], c[2], c[3]], src),
            _ => tma_store_5d(desc, c, src),
        }
    }
}

/// A shared-memory TMA box read through its swizzle `M` (see
/// [`LayoutTensor::tma_swizzled`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, tma_copy::NoSwizzle, LayoutTensor, Shared, Static};
/// static_layout!(Box = "(4,2):(1,4)");
/// let mut image = [0u32, 1, 2, 3, 4, 5, 6, 7];
/// let b = unsafe { LayoutTensor::<u32, _, Shared>::from_ptr_in(image.as_mut_ptr(), Static::<Box>::new()) }.tma_swizzled::<NoSwizzle>();
/// assert_eq!(b.at([3, 1]), 7);
/// ```
pub struct TmaSwizzled<'a, T, S: StaticLayout, M> {
    tensor: LayoutTensor<'a, T, Static<S>, Shared, Full>,
    _m: PhantomData<M>,
}

impl<T, S: StaticLayout, M> Clone for TmaSwizzled<'_, T, S, M> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, S: StaticLayout, M> Copy for TmaSwizzled<'_, T, S, M> {}

impl<'a, T: Element, S: StaticLayout, M: TmaSwizzle> TmaSwizzled<'a, T, S, M> {
    /// The element offset of 1-D index `i` in the image: `M(S(i))`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tma_copy::Swizzle128B, LayoutTensor, Shared, Static};
    /// static_layout!(Box = "(32,8):(1,32)");
    /// let mut image = [0f32; 256];
    /// let b = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(image.as_mut_ptr(), Static::<Box>::new()) }.tma_swizzled::<Swizzle128B>();
    /// assert_eq!(b.offset(32 + 4), 32); // row 1, chunk 1 -> chunk 0
    /// ```
    #[inline(always)]
    pub fn offset(&self, i: usize) -> isize {
        M::of::<T>().apply(S::LAYOUT.call(i as i64)) as isize
    }

    /// Element `i` (1-D index in the box's shape).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tma_copy::NoSwizzle, LayoutTensor, Shared, Static};
    /// static_layout!(Box = "4:1");
    /// let mut image = [5i32, 6, 7, 8];
    /// let b = unsafe { LayoutTensor::<i32, _, Shared>::from_ptr_in(image.as_mut_ptr(), Static::<Box>::new()) }.tma_swizzled::<NoSwizzle>();
    /// assert_eq!(b.get(2), 7);
    /// ```
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        // SAFETY: the swizzle permutes offsets within the box's (aligned) image.
        unsafe { T::read(self.tensor.elem_ptr(self.offset(i))) }
    }

    /// The element at a per-mode coordinate (innermost mode first).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tma_copy::Swizzle128B, LayoutTensor, Shared, Static};
    /// static_layout!(Box = "(32,8):(1,32)");
    /// let mut image = [0f32; 256];
    /// image[32] = 9.0; // where TMA puts element (4, 1) with a 128-byte swizzle
    /// let b = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(image.as_mut_ptr(), Static::<Box>::new()) }.tma_swizzled::<Swizzle128B>();
    /// assert_eq!(b.at([4, 1]), 9.0);
    /// ```
    #[inline(always)]
    pub fn at<const R: usize>(&self, coord: [i64; R]) -> T {
        let off = M::of::<T>().apply(coord_offset(&S::LAYOUT, &S::MODES, &coord)) as isize;
        // SAFETY: as `get`.
        unsafe { T::read(self.tensor.elem_ptr(off)) }
    }
}

/// An array of rank `R` with its TMA tensor map: cuTile's array as a kernel parameter when the
/// load may use TMA (`allow_tma`). It carries the array's pointer, extents and strides (a
/// [`Strided`] tensor, for ordinary accesses), the address of its tensor map in global memory,
/// the extents of the box the map moves (the tile shape it was made for, in the array's order),
/// the swizzle the box lands with in shared memory, and the value TMA writes for elements outside
/// the array (zero or NaN, as the map says).
///
/// The host makes one from a buffer, a layout and a tile shape (`Gpu::tma_array` in
/// `cute-rs-host`, which checks every TMA condition by name); block tiles load from it with
/// [`BlockTile::load_tma`](crate::block_tile::BlockTile::load_tma). The operands of a product
/// ([`dot_range_tma`](crate::block_tile::dot_range_tma)) are arrays whose boxes are the staged
/// panels of their tiles, swizzled as the product reads them (`Gpu::tma_dot_operand`).
///
/// The map's modes are the array's in reverse (TMA's mode 0 is the innermost, the array's last
/// dimension), so the array's last stride is 1.
///
/// # Example
/// ```
/// use cute_rs_tensor::device::tma::{CpuTensorMap, TmaDescriptor};
/// use cute_rs_tensor::{tma_copy::TmaArray, LayoutTensor, Strided};
/// let mut x = vec![0f32; 8 * 12];
/// let tensor = LayoutTensor::new(&mut x, Strided::row_major([8, 12])).unwrap();
/// // Rows of 12 floats (48 bytes), boxes of 4 rows of 8 columns, NaN outside.
/// let map = CpuTensorMap::encode(tensor.as_ptr() as u64, 4, &[12, 8], &[48], &[8, 4], &[1, 1], 0, true).unwrap();
/// let a = unsafe { TmaArray::from_parts(tensor, &map, [4, 8], 0, f32::NAN) };
/// assert_eq!(a.box_shape(), [4, 8]);
/// assert_eq!(a.swizzle_bytes(), 0);
/// assert!(a.padding().is_nan() && a.tensor().source().shape == [8, 12]);
/// ```
#[repr(C)]
pub struct TmaArray<T: 'static, const R: usize> {
    tensor: LayoutTensor<'static, T, Strided<R>, Global>,
    map: *const TmaDescriptor,
    box_shape: [i64; R],
    swizzle_bytes: u32,
    padding: T,
}

impl<T: Copy + 'static, const R: usize> Clone for TmaArray<T, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy + 'static, const R: usize> Copy for TmaArray<T, R> {}

impl<T: Element + 'static, const R: usize> TmaArray<T, R> {
    /// The array `tensor` with the tensor map at `map`, whose boxes have extents `box_shape` (in
    /// the array's order: `box_shape[R - 1]` is the map's innermost extent), land in shared
    /// memory with the swizzle of span `swizzle_bytes` (0: none; 32, 64 or 128), and whose
    /// out-of-bounds fill is `padding`.
    ///
    /// # Safety
    /// `map` is a tiled tensor map in global memory (64-byte aligned) of the tensor's elements,
    /// with the tensor's extents and strides reversed, boxes of `box_shape` reversed, element
    /// strides 1, the swizzle `swizzle_bytes`, and the fill `padding` (zero or NaN); it lives as
    /// long as the array is used. `Gpu::tma_array` and `Gpu::tma_dot_operand` on the host make
    /// such pairs.
    ///
    /// # Example
    /// See [`TmaArray`].
    #[inline(always)]
    pub unsafe fn from_parts<'a>(tensor: LayoutTensor<'a, T, Strided<R>, Global>, map: *const TmaDescriptor, box_shape: [i64; R], swizzle_bytes: u32, padding: T) -> Self {
        // SAFETY: the lifetime is the caller's to keep (a kernel parameter's tensors are 'static).
        let tensor = unsafe { LayoutTensor::from_ptr(tensor.as_ptr(), tensor.source()) };
        TmaArray { tensor, map, box_shape, swizzle_bytes, padding }
    }

    /// The array as a tensor, for ordinary loads and stores.
    ///
    /// # Example
    /// See [`TmaArray`].
    #[inline(always)]
    pub fn tensor(&self) -> LayoutTensor<'static, T, Strided<R>, Global> {
        self.tensor
    }

    /// The tensor map's address.
    ///
    /// # Example
    /// See [`TmaArray`].
    #[inline(always)]
    pub fn map(&self) -> *const TmaDescriptor {
        self.map
    }

    /// The extents of the map's box, in the array's order (the tile shape the map was made for).
    ///
    /// # Example
    /// See [`TmaArray`].
    #[inline(always)]
    pub fn box_shape(&self) -> [i64; R] {
        self.box_shape
    }

    /// The span in bytes of the swizzle the boxes land with (0: none; 32, 64 or 128).
    ///
    /// # Example
    /// See [`TmaArray`].
    #[inline(always)]
    pub fn swizzle_bytes(&self) -> u32 {
        self.swizzle_bytes
    }

    /// What TMA writes for elements outside the array: zero or NaN.
    ///
    /// # Example
    /// See [`TmaArray`].
    #[inline(always)]
    pub fn padding(&self) -> T {
        self.padding
    }
}
