//! [`LayoutTensor`]: a pointer, a layout (run-time or static), an address-space marker and bounds,
//! with element access by index and by coordinate and `W`-wide vector loads and stores.

use core::marker::PhantomData;
use cute_rs_layout::{IntTuple, Layout, LayoutError};

use crate::mask::{Bounds, Full};
use crate::static_layout::{LayoutSource, Modes};

/// A value a tensor can hold: read and written through raw pointers; vectors ([`Vector`]) are read
/// with one aligned access. Implemented for the integers, `f32`, `f64`, [`half::f16`],
/// [`half::bf16`] and [`Vector`]s of them.
///
/// # Safety
/// `read`/`write` must be sound for a pointer valid for `Self` and aligned as [`Element::ALIGN`].
///
/// # Example
/// ```
/// use cute_rs_tensor::{Element, Vector};
/// assert_eq!(<Vector<f32, 4>>::ALIGN, 16);
/// assert_eq!(f32::ZERO, 0.0);
/// assert_eq!(<Vector<half::f16, 8>>::ALIGN, 16); // eight halves: one 16-byte access
/// assert_eq!(half::bf16::ZERO.to_bits(), 0);
/// ```
pub unsafe trait Element: Copy {
    /// The zero value (fragments start zeroed).
    const ZERO: Self;
    /// Alignment every access needs, in bytes.
    const ALIGN: usize = core::mem::align_of::<Self>();
    /// Reads one value.
    ///
    /// # Safety
    /// `p` valid for reads and aligned to [`Element::ALIGN`].
    #[inline(always)]
    unsafe fn read(p: *const Self) -> Self {
        p.read()
    }
    /// Writes one value.
    ///
    /// # Safety
    /// `p` valid for writes and aligned to [`Element::ALIGN`].
    #[inline(always)]
    unsafe fn write(p: *mut Self, v: Self) {
        p.write(v)
    }
}

macro_rules! scalar {
    ($($t:ty = $z:expr),*) => { $(unsafe impl Element for $t { const ZERO: Self = $z; })* };
}
scalar!(u8 = 0, u16 = 0, u32 = 0, u64 = 0, usize = 0, i8 = 0, i16 = 0, i32 = 0, i64 = 0, isize = 0, f32 = 0.0, f64 = 0.0);
// Half-precision floats (the `half` crate: plain 2-byte values, so reads and writes are ordinary
// 16-bit accesses and `Vector<f16, 8>` is one 16-byte access).
scalar!(half::f16 = half::f16::ZERO, half::bf16 = half::bf16::ZERO);
// 8-bit floats (the tensor cores' fp8 formats), as their bits.
scalar!(crate::device::numeric::E4M3 = crate::device::numeric::E4M3(0), crate::device::numeric::E5M2 = crate::device::numeric::E5M2(0));

/// `W` consecutive elements accessed as one (aligned) vector: the element type of a
/// [`vectorize`](LayoutTensor::vectorize)d view. `W * size_of::<T>()` bytes, aligned to that size
/// (up to 16) on every access.
///
/// # Example
/// ```
/// use cute_rs_tensor::Vector;
/// let v = Vector([1f32, 2.0, 3.0, 4.0]);
/// assert_eq!(v.0[2], 3.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(transparent)]
pub struct Vector<T, const W: usize>(pub [T; W]);

#[repr(C, align(16))]
struct A16<X>(X);
#[repr(C, align(8))]
struct A8<X>(X);
#[repr(C, align(4))]
struct A4<X>(X);
#[repr(C, align(2))]
struct A2<X>(X);

/// The alignment of a vector of `bytes` bytes: the largest power of two dividing it, at most 16.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_tensor::tensor::vector_align(16), 16);
/// assert_eq!(cute_rs_tensor::tensor::vector_align(12), 4);
/// assert_eq!(cute_rs_tensor::tensor::vector_align(64), 16);
/// ```
pub const fn vector_align(bytes: usize) -> usize {
    if bytes % 16 == 0 {
        16
    } else if bytes % 8 == 0 {
        8
    } else if bytes % 4 == 0 {
        4
    } else if bytes % 2 == 0 {
        2
    } else {
        1
    }
}

/// Reads `W` consecutive values at `p` as one aligned vector access.
///
/// # Safety
/// `p` valid for `W` reads and aligned to `vector_align(W * size_of::<T>())`.
#[inline(always)]
pub(crate) unsafe fn read_vec<T: Copy, const W: usize>(p: *const T) -> [T; W] {
    let bytes = W * core::mem::size_of::<T>();
    debug_assert!(p as usize % vector_align(bytes) == 0, "misaligned vector read");
    // Whole words of the vector's size: one aligned access that LLVM keeps whole (an aggregate
    // copy could be split into scalar accesses).
    match bytes {
        16 => core::mem::transmute_copy(&*(p as *const u128)),
        8 => core::mem::transmute_copy(&*(p as *const u64)),
        4 => core::mem::transmute_copy(&*(p as *const u32)),
        2 => core::mem::transmute_copy(&*(p as *const u16)),
        _ => match vector_align(bytes) {
            16 => (*(p as *const A16<[T; W]>)).0,
            8 => (*(p as *const A8<[T; W]>)).0,
            4 => (*(p as *const A4<[T; W]>)).0,
            2 => (*(p as *const A2<[T; W]>)).0,
            _ => (p as *const [T; W]).read(),
        },
    }
}

/// Writes `W` consecutive values at `p` as one aligned vector access.
///
/// # Safety
/// `p` valid for `W` writes and aligned to `vector_align(W * size_of::<T>())`.
#[inline(always)]
pub(crate) unsafe fn write_vec<T: Copy, const W: usize>(p: *mut T, v: [T; W]) {
    let bytes = W * core::mem::size_of::<T>();
    debug_assert!(p as usize % vector_align(bytes) == 0, "misaligned vector write");
    match bytes {
        16 => *(p as *mut u128) = core::mem::transmute_copy(&v),
        8 => *(p as *mut u64) = core::mem::transmute_copy(&v),
        4 => *(p as *mut u32) = core::mem::transmute_copy(&v),
        2 => *(p as *mut u16) = core::mem::transmute_copy(&v),
        _ => match vector_align(bytes) {
            16 => *(p as *mut A16<[T; W]>) = A16(v),
            8 => *(p as *mut A8<[T; W]>) = A8(v),
            4 => *(p as *mut A4<[T; W]>) = A4(v),
            2 => *(p as *mut A2<[T; W]>) = A2(v),
            _ => (p as *mut [T; W]).write(v),
        },
    }
}

unsafe impl<T: Element, const W: usize> Element for Vector<T, W> {
    const ZERO: Self = Vector([T::ZERO; W]);
    const ALIGN: usize = vector_align(W * core::mem::size_of::<T>());
    #[inline(always)]
    unsafe fn read(p: *const Self) -> Self {
        Vector(read_vec::<T, W>(p as *const T))
    }
    #[inline(always)]
    unsafe fn write(p: *mut Self, v: Self) {
        write_vec::<T, W>(p as *mut T, v.0)
    }
}

/// The memory a tensor points to. A marker only: accesses are generic-address loads and stores
/// (the compiler infers the state space where it can); kernels needing cache operators use
/// [`crate::device::memory`] on [`LayoutTensor::ptr_at`].
///
/// # Example
/// ```
/// use cute_rs_tensor::{AddressSpace, Shared};
/// assert_eq!(Shared::NAME, "shared");
/// ```
pub trait AddressSpace: Copy + Default {
    /// The state space's name.
    const NAME: &'static str;
    /// Whether a view in this space is a thread's fragment, meant to live in registers: the
    /// algorithms then keep every access to it inside the kernel's body (a fragment passed to a
    /// function that stays a call needs an address, which moves it to local memory).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{AddressSpace, Local, Shared};
    /// assert!(Local::REGISTERS && !Shared::REGISTERS);
    /// ```
    const REGISTERS: bool = false;
}
/// GPU global memory (or host memory on the CPU).
///
/// # Example
/// ```
/// use cute_rs_tensor::{AddressSpace, Global};
/// assert_eq!(Global::NAME, "global");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Global;
/// GPU shared memory.
///
/// # Example
/// ```
/// use cute_rs_tensor::{AddressSpace, Shared};
/// assert_eq!(Shared::NAME, "shared");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Shared;
/// Registers / local memory (fragments).
///
/// # Example
/// ```
/// use cute_rs_tensor::{AddressSpace, Local};
/// assert_eq!(Local::NAME, "local");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Local;
impl AddressSpace for Global {
    const NAME: &'static str = "global";
}
impl AddressSpace for Shared {
    const NAME: &'static str = "shared";
}
impl AddressSpace for Local {
    const NAME: &'static str = "local";
    const REGISTERS: bool = true;
}

/// Offset of coordinate `c` of top-level mode `k` (its 1-D, colexicographic coordinate).
#[inline(always)]
pub(crate) fn mode_offset(l: &Layout, m: &Modes, k: usize, c: i64) -> i64 {
    let shape = l.shape();
    let stride = l.stride();
    let (s, d) = (shape.leaves(), stride.leaves());
    let (a, b) = (m.start[k], m.start[k + 1]);
    let mut c = c;
    let mut r = 0;
    let mut j = a;
    while j + 1 < b {
        r += (c % s[j]) * d[j];
        c /= s[j];
        j += 1;
    }
    r + c * d[b - 1]
}

/// On the host (host tensors and kernels on the CPU backend) every element access is checked:
/// an index or coordinate outside the tensor panics naming it, and a CPU-backend launch reports
/// the panic with the kernel, the block and the thread. On the GPU the check is `debug_assert!`
/// only (device code is built without debug assertions: no cost).
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(what: core::fmt::Arguments<'_>) -> ! {
    panic!("out-of-bounds tensor access: {what}")
}

/// Checks a 1-D index against a tensor of `size` elements (see [`out_of_bounds`]).
#[inline(always)]
#[track_caller]
pub(crate) fn check_index(i: usize, size: usize) {
    #[cfg(not(target_arch = "nvptx64"))]
    if i >= size {
        out_of_bounds(format_args!("index {i} of a tensor of {size} elements"));
    }
    #[cfg(target_arch = "nvptx64")]
    debug_assert!(i < size, "index out of the tensor");
}

/// Offset of a per-mode coordinate (one 1-D coordinate per top-level mode), checked on the host
/// (see [`out_of_bounds`]).
#[inline(always)]
#[track_caller]
pub(crate) fn coord_offset(l: &Layout, m: &Modes, coord: &[i64]) -> i64 {
    #[cfg(not(target_arch = "nvptx64"))]
    if coord.len() != m.rank {
        out_of_bounds(format_args!("coordinate {coord:?}: {} entries, but the layout {l} has {} top-level modes", coord.len(), m.rank));
    }
    #[cfg(not(target_arch = "nvptx64"))]
    for (k, &c) in coord.iter().enumerate() {
        let extent: i64 = l.shape().leaves()[m.start[k]..m.start[k + 1]].iter().product();
        if !(0..extent).contains(&c) {
            out_of_bounds(format_args!("coordinate {coord:?}: mode {k} has extent {extent} (layout {l})"));
        }
    }
    coord_offset_unchecked(l, m, coord)
}

/// [`coord_offset`] without the host check, for coordinates that may lie past the layout on
/// purpose (a masked tile past the tensor's end is empty, like a Triton program past the end).
#[inline(always)]
pub(crate) fn coord_offset_unchecked(l: &Layout, m: &Modes, coord: &[i64]) -> i64 {
    debug_assert!(coord.len() == m.rank, "a coordinate needs one entry per top-level mode");
    let mut r = 0;
    let mut k = 0;
    while k < coord.len() {
        r += mode_offset(l, m, k, coord[k]);
        k += 1;
    }
    r
}

/// A view of memory through a layout: element `i` (1-D index) lives at `ptr + layout(i)`.
///
/// * `T`: the element ([`Element`]: numbers, or [`Vector`]s after [`vectorize`](Self::vectorize));
/// * `L`: the layout, a run-time [`Layout`] or a [`Static`](crate::Static) one (index math folds to
///   constants);
/// * `A`: the address space marker ([`Global`], [`Shared`], [`Local`]);
/// * `B`: the bounds ([`Full`], or [`Clip`](crate::Clip) for partial tiles: accesses through
///   [`copy_from`](Self::copy_from) and [`contains`](Self::contains) are predicated).
///
/// A view is `Copy`, like a raw pointer: views of the same memory coexist (that is the point of
/// tiles and per-thread fragments), and writes go through `&self`. Build one from a `&mut [T]`
/// (checked: the layout's cosize fits, strides are non-negative) or, in kernels, from a raw pointer
/// (`unsafe`).
///
/// # Example
/// ```
/// use cute_rs_tensor::LayoutTensor;
/// use cute_rs_layout::Layout;
/// let mut data: Vec<f32> = (0..8).map(|x| x as f32).collect();
/// let t = LayoutTensor::new(&mut data, Layout::parse("(2,4):(4,1)").unwrap()).unwrap();
/// assert_eq!(t.at([1, 2]), 6.0); // row 1, column 2 of a row-major 2 x 4 matrix
/// assert_eq!(t.get(1), 4.0);     // 1-D index 1 is coordinate (1,0)
/// t.set_at([0, 3], 30.0);
/// assert_eq!(data[3], 30.0);
/// ```
// `repr(C)`: a tensor is a kernel parameter, built on the host (by another compiler) and read
// on the GPU; its fields must be where both expect them.
#[repr(C)]
pub struct LayoutTensor<'a, T, L: LayoutSource = Layout, A: AddressSpace = Global, B: Bounds = Full> {
    /// The base pointer the view was built from.
    pub(crate) ptr: *mut T,
    /// Bytes from `ptr` to the view's origin: views add their offsets here, as integers, so that
    /// views of several tensors built with the same coordinates share that arithmetic.
    pub(crate) byte_off: isize,
    pub(crate) layout: L,
    pub(crate) bounds: B,
    pub(crate) _m: PhantomData<(&'a [T], A)>,
}

impl<T, L: LayoutSource, A: AddressSpace, B: Bounds> Clone for LayoutTensor<'_, T, L, A, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, L: LayoutSource, A: AddressSpace, B: Bounds> Copy for LayoutTensor<'_, T, L, A, B> {}

impl<'a, T: Element, L: LayoutSource> LayoutTensor<'a, T, L, Global, Full> {
    /// A view of `data` through `layout`.
    ///
    /// # Errors
    /// [`LayoutError::InvalidArgument`] when a stride is negative, an offset is negative (a
    /// swizzled layout's) or the layout's [`cosize`](LayoutSource::cosize) exceeds `data.len()`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u32; 6];
    /// assert!(LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,3):(1,2)").unwrap()).is_ok());
    /// assert!(LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,4):(1,2)").unwrap()).is_err());
    /// ```
    pub fn new(data: &'a mut [T], layout: L) -> Result<Self, LayoutError> {
        let l = layout.layout();
        let stride = l.stride();
        for &d in stride.leaves() {
            if d < 0 {
                return Err(LayoutError::InvalidArgument { op: "LayoutTensor::new", condition: "strides must be non-negative", value: d });
            }
        }
        // With non-negative strides the inner layout's smallest offset is at index 0; only a
        // source's own origin (a swizzled layout's offset) can take it below the slice.
        let first = layout.offset(0);
        if first < 0 {
            return Err(LayoutError::InvalidArgument { op: "LayoutTensor::new", condition: "offsets must be non-negative", value: first });
        }
        let cosize = layout.cosize();
        if cosize > data.len() as i64 {
            return Err(LayoutError::InvalidArgument {
                op: "LayoutTensor::new",
                condition: "the layout's cosize must not exceed the slice's length",
                value: cosize,
            });
        }
        Ok(LayoutTensor { ptr: data.as_mut_ptr(), byte_off: 0, layout, bounds: Full, _m: PhantomData })
    }
}

impl<'a, T: Element, L: LayoutSource> LayoutTensor<'a, T, L, Global, Full> {
    /// A view of global memory at `ptr` (device code: kernel arguments). The element type and the
    /// layout are inferred from the arguments; [`from_ptr_in`](LayoutTensor::from_ptr_in) views
    /// another address space.
    ///
    /// # Safety
    /// `ptr + layout(i)` must be valid (and aligned to `T::ALIGN`) for every index `i` accessed, for
    /// `'a`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensor, Strided};
    /// let mut v = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let t = unsafe { LayoutTensor::from_ptr(v.as_mut_ptr(), Strided::row_major([2, 3])) };
    /// assert_eq!(t.at([1, 0]), 4.0);
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr(ptr: *mut T, layout: L) -> Self {
        LayoutTensor { ptr, byte_off: 0, layout, bounds: Full, _m: PhantomData }
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace> LayoutTensor<'a, T, L, A, Full> {
    /// A view of raw memory in the address space `A` ([`Global`], [`Shared`], [`Local`]), given as
    /// the tensor's type.
    ///
    /// # Safety
    /// `ptr + layout(i)` must be valid (and aligned to `T::ALIGN`) for every index `i` accessed, for
    /// `'a`, and lie in `A`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensor, Shared};
    /// let mut v = [1i32, 2, 3, 4];
    /// let t = unsafe { LayoutTensor::<i32, _, Shared>::from_ptr_in(v.as_mut_ptr(), cute_rs_layout::Layout::parse("4:1").unwrap()) };
    /// assert_eq!(t.get(3), 4);
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr_in(ptr: *mut T, layout: L) -> Self {
        LayoutTensor { ptr, byte_off: 0, layout, bounds: Full, _m: PhantomData }
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace, B: Bounds> LayoutTensor<'a, T, L, A, B> {
    /// The layout.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 4];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap();
    /// assert_eq!(t.layout().to_string(), "4:1");
    /// ```
    #[inline(always)]
    pub fn layout(&self) -> Layout {
        self.layout.layout()
    }

    /// The layout source (a [`Layout`] or a zero-sized [`Static`](crate::Static)).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 4];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap();
    /// assert_eq!(t.source().size(), 4);
    /// ```
    #[inline(always)]
    pub fn source(&self) -> L {
        self.layout
    }

    /// The bounds (`Full` or the clipped extents of a partial tile).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::{LayoutTensor, Full};
    /// let mut v = [0u8; 4];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap();
    /// assert_eq!(t.bounds(), Full);
    /// ```
    #[inline(always)]
    pub fn bounds(&self) -> B {
        self.bounds
    }

    /// The number of elements (the layout's size; a partial tile's size is its tile's).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 8];
    /// assert_eq!(LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap()).unwrap().size(), 8);
    /// ```
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.layout.size() as usize
    }

    /// The extent of top-level mode `axis` (Mojo's `dim`, CuTe's `size<I>(tensor)`): a constant
    /// for static layouts; for a partial tile at an edge
    /// ([`tile_masked`](Self::tile_masked)), the in-bounds extent, as Mojo's masked tiles
    /// report it.
    ///
    /// # Panics
    /// When `axis` is not below the rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// let mut v = [0u8; 24];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("((2,3),4):((1,2),6)").unwrap()).unwrap();
    /// assert_eq!((t.dim(0), t.dim(1)), (6, 4));
    /// // A 5 x 7 row-major matrix in 4 x 4 tiles: the tile at (1, 1) has 1 x 3 elements.
    /// static_layout!(M = "(5,7):(7,1)");
    /// static_layout!(T = "(4,4)");
    /// let mut w = [0f32; 35];
    /// let m = LayoutTensor::new(&mut w, Static::<M>::new()).unwrap();
    /// let corner = m.tile_masked::<T, 2>([1, 1]);
    /// assert_eq!((corner.dim(0), corner.dim(1)), (1, 3));
    /// assert_eq!(m.tile_masked::<T, 2>([0, 0]).dim(1), 4);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn dim(&self, axis: usize) -> usize {
        let modes = self.layout.modes();
        assert!(axis < modes.rank, "dim: axis {axis} is not below the rank {}", modes.rank);
        self.bounds.extent(axis, modes.size[axis]) as usize
    }

    /// The base pointer (element 0's address when `layout(0) == 0`).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 4];
    /// let p = v.as_mut_ptr();
    /// assert_eq!(LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap().as_ptr(), p);
    /// ```
    #[inline(always)]
    pub fn as_ptr(&self) -> *mut T {
        self.elem_ptr(0)
    }

    /// The address `off` elements from the view's origin.
    #[inline(always)]
    pub(crate) fn elem_ptr(&self, off: isize) -> *mut T {
        (self.ptr as *mut u8).wrapping_offset(self.byte_off + off * core::mem::size_of::<T>() as isize) as *mut T
    }

    /// `byte_off` moved by `off` elements.
    #[inline(always)]
    pub(crate) fn moved(&self, off: i64) -> isize {
        self.byte_off + off as isize * core::mem::size_of::<T>() as isize
    }

    /// The offset of 1-D index `i`: `layout(i)`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 8];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap()).unwrap();
    /// assert_eq!(t.offset(1), 4);
    /// ```
    #[inline(always)]
    pub fn offset(&self, i: usize) -> isize {
        self.layout.offset(i as i64) as isize
    }

    /// The offset of a per-mode coordinate: one entry per top-level mode, each the mode's 1-D
    /// (colexicographic) coordinate, so nested modes take one integer.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 8];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("((2,2),2):((1,4),2)").unwrap()).unwrap();
    /// assert_eq!(t.offset_at([3, 1]), 1 + 4 + 2);
    /// ```
    #[inline(always)]
    pub fn offset_at<const R: usize>(&self, coord: [i64; R]) -> isize {
        self.layout.offset_at(&coord) as isize
    }

    /// The address of 1-D index `i`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [5u8, 6, 7, 8];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("2:2").unwrap()).unwrap();
    /// assert_eq!(unsafe { *t.ptr_at(1) }, 7);
    /// ```
    #[inline(always)]
    pub fn ptr_at(&self, i: usize) -> *mut T {
        self.elem_ptr(self.offset(i))
    }

    /// Whether 1-D index `i` is in bounds (always for [`Full`] bounds, a constant).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 4];
    /// assert!(LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap().contains(3));
    /// ```
    #[inline(always)]
    pub fn contains(&self, i: usize) -> bool {
        if B::FULL {
            return true;
        }
        self.bounds.contains_index(&self.layout.modes(), i as i64)
    }

    /// Element `i` (1-D index). Debug builds check `i < size()`; the index must be in bounds.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [1u16, 2, 3, 4];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap();
    /// assert_eq!(t.get(1), 3);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: usize) -> T {
        check_index(i, self.size());
        unsafe { T::read(self.ptr_at(i)) }
    }

    /// Writes element `i` (1-D index).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u16; 4];
    /// LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap().set(1, 9);
    /// assert_eq!(v, [0, 0, 9, 0]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, v: T) {
        check_index(i, self.size());
        unsafe { T::write(self.ptr_at(i), v) }
    }

    /// Element at a per-mode coordinate (see [`offset_at`](Self::offset_at)).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [1u16, 2, 3, 4];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap();
    /// assert_eq!(t.at([0, 1]), 2);
    /// ```
    #[inline(always)]
    pub fn at<const R: usize>(&self, coord: [i64; R]) -> T {
        unsafe { T::read(self.elem_ptr(self.offset_at(coord))) }
    }

    /// Writes the element at a per-mode coordinate.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u16; 4];
    /// LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap().set_at([1, 0], 5);
    /// assert_eq!(v, [0, 0, 5, 0]);
    /// ```
    #[inline(always)]
    pub fn set_at<const R: usize>(&self, coord: [i64; R], v: T) {
        unsafe { T::write(self.elem_ptr(self.offset_at(coord)), v) }
    }

    /// The 1-D index of a flattened coordinate: one entry per leaf of the layout's shape, in
    /// order (colexicographic over the leaves, which is the 1-D index of the hierarchical
    /// coordinate they flatten).
    #[inline(always)]
    #[track_caller]
    fn flat_index<const R: usize>(&self, coord: [i64; R]) -> usize {
        let layout = self.layout.layout();
        let shape = layout.shape();
        let leaves = shape.leaves();
        assert!(R == leaves.len(), "flat coordinate: {R} indices for a layout of flattened rank {}", leaves.len());
        let (mut index, mut scale) = (0i64, 1i64);
        let mut k = 0;
        while k < R {
            #[cfg(not(target_arch = "nvptx64"))]
            if !(0..leaves[k]).contains(&coord[k]) {
                out_of_bounds(format_args!("flat coordinate {} is {} in a leaf of extent {}", k, coord[k], leaves[k]));
            }
            index += coord[k] * scale;
            scale *= leaves[k];
            k += 1;
        }
        index as usize
    }

    /// Element at a flattened coordinate, one index per leaf of a nested layout (Mojo's
    /// `nested_tensor[1, 0, 0, 1]` for the coordinate `((1, 0), (0, 1))`). The number of indices
    /// is the flattened rank (a panic otherwise); for a layout without nested modes this is
    /// [`at`](Self::at). A constant offset for static layouts.
    ///
    /// # Panics
    /// When `R` is not the flattened rank, or an index is outside its leaf.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// // A 4 x 4 tensor of 2 x 2 tiles, tile-major, each tile row-major: ((1, 0), (0, 1)) is
    /// // row 1 of tile row 0, column 0 of tile column 1, at offset 6.
    /// let mut v: Vec<i32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("((2,2),(2,2)):((2,8),(1,4))").unwrap()).unwrap();
    /// assert_eq!(t.at_flat([1, 0, 0, 1]), 6);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn at_flat<const R: usize>(&self, coord: [i64; R]) -> T {
        self.get(self.flat_index(coord))
    }

    /// Writes the element at a flattened coordinate (see [`at_flat`](Self::at_flat)).
    ///
    /// # Panics
    /// As [`at_flat`](Self::at_flat).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v = [0u8; 16];
    /// LayoutTensor::new(&mut v, Layout::parse("((2,2),(2,2)):((2,8),(1,4))").unwrap()).unwrap().set_at_flat([1, 1, 1, 0], 5);
    /// assert_eq!(v[2 + 8 + 1], 5);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn set_at_flat<const R: usize>(&self, coord: [i64; R], v: T) {
        self.set(self.flat_index(coord), v)
    }

    /// Reads `W` consecutive elements of memory from the element at a per-mode coordinate as one
    /// vector access (Mojo's `tensor.load[W](x, y)`); the alignment rule of
    /// [`load`](Self::load).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// #[repr(align(16))] struct Buf([f32; 16]);
    /// let mut b = Buf(core::array::from_fn(|i| i as f32));
    /// let t = LayoutTensor::new(&mut b.0, cute_rs_layout::Layout::parse("(4,4):(4,1)").unwrap()).unwrap();
    /// // Mojo: `elements = tensor.load[4](x, y); elements = elements * 2; tensor.store(x, y, elements)`.
    /// let (x, y) = (2, 0);
    /// let elements = t.load_at::<4, 2>([x, y]).map(|e| e * 2.0);
    /// t.store_at([x, y], elements);
    /// assert_eq!(&b.0[8..12], &[16.0, 18.0, 20.0, 22.0]);
    /// ```
    #[inline(always)]
    pub fn load_at<const W: usize, const R: usize>(&self, coord: [i64; R]) -> [T; W] {
        unsafe { read_vec::<T, W>(self.elem_ptr(self.offset_at(coord))) }
    }

    /// Writes `W` consecutive elements of memory from the element at a per-mode coordinate (one
    /// vector access; Mojo's `tensor.store(x, y, elements)`); see [`load_at`](Self::load_at).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// #[repr(align(8))] struct Buf([u16; 8]);
    /// let mut b = Buf([0; 8]);
    /// LayoutTensor::new(&mut b.0, cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap()).unwrap().store_at([1, 0], [1u16, 2, 3, 4]);
    /// assert_eq!(b.0, [0, 0, 0, 0, 1, 2, 3, 4]);
    /// ```
    #[inline(always)]
    pub fn store_at<const W: usize, const R: usize>(&self, coord: [i64; R], v: [T; W]) {
        unsafe { write_vec::<T, W>(self.elem_ptr(self.offset_at(coord)), v) }
    }

    /// Element at a hierarchical coordinate ([`cute_rs_layout::crd2idx`], checked).
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::crd2idx`] (rank mismatch, out of bounds).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::IntTuple;
    /// let mut v: Vec<u32> = (0..8).collect();
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("((2,2),2):((1,4),2)").unwrap()).unwrap();
    /// assert_eq!(t.at_tuple(IntTuple::parse("((1,1),1)").unwrap()).unwrap(), 7);
    /// assert_eq!(t.at_tuple(IntTuple::parse("(3,1)").unwrap()).unwrap(), 7); // 1-D coordinate in a nested mode
    /// assert!(t.at_tuple(IntTuple::parse("(4,1)").unwrap()).is_err());
    /// ```
    pub fn at_tuple(&self, coord: IntTuple) -> Result<T, LayoutError> {
        let off = self.tuple_offset(coord)?;
        Ok(unsafe { T::read(self.elem_ptr(off as isize)) })
    }

    /// Writes the element at a hierarchical coordinate ([`cute_rs_layout::crd2idx`], checked).
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::crd2idx`] (rank mismatch, out of bounds); nothing is written.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::IntTuple;
    /// let mut v = vec![0u32; 8];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("((2,2),2):((1,4),2)").unwrap()).unwrap();
    /// t.set_tuple(IntTuple::parse("((1,0),1)").unwrap(), 9).unwrap();
    /// assert!(t.set_tuple(IntTuple::parse("((2,0),1)").unwrap(), 9).is_err());
    /// assert_eq!(v, [0, 0, 0, 9, 0, 0, 0, 0]);
    /// ```
    pub fn set_tuple(&self, coord: IntTuple, v: T) -> Result<(), LayoutError> {
        let off = self.tuple_offset(coord)?;
        unsafe { T::write(self.elem_ptr(off as isize), v) };
        Ok(())
    }

    /// The offset of a hierarchical coordinate: through its 1-D index, because a source's offsets
    /// need not be its inner layout's (a swizzle permutes them).
    fn tuple_offset(&self, coord: IntTuple) -> Result<i64, LayoutError> {
        let index = cute_rs_layout::crd2idx(coord, cute_rs_layout::make_layout_col_major(self.layout.layout().shape())?)?;
        Ok(self.layout.offset(index))
    }

    /// Reads `W` consecutive elements of memory starting at element `i`'s address as one vector
    /// access (Mojo's `load[W]`). Alignment: the address must be aligned to
    /// `vector_align(W * size_of::<T>())` (checked in debug builds; [`is_vector_aligned`](Self::is_vector_aligned)
    /// tells beforehand).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// #[repr(align(16))] struct Buf([f32; 8]);
    /// let mut b = Buf([0., 1., 2., 3., 4., 5., 6., 7.]);
    /// let t = LayoutTensor::new(&mut b.0, cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap()).unwrap();
    /// assert_eq!(t.load::<4>(1), [4., 5., 6., 7.]); // row 1
    /// ```
    #[inline(always)]
    pub fn load<const W: usize>(&self, i: usize) -> [T; W] {
        unsafe { read_vec::<T, W>(self.ptr_at(i)) }
    }

    /// Writes `W` consecutive elements starting at element `i`'s address (one vector access; same
    /// alignment rule as [`load`](Self::load)).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// #[repr(align(16))] struct Buf([f32; 8]);
    /// let mut b = Buf([0.; 8]);
    /// LayoutTensor::new(&mut b.0, cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap()).unwrap().store::<4>(1, [1., 2., 3., 4.]);
    /// assert_eq!(b.0, [0., 0., 0., 0., 1., 2., 3., 4.]);
    /// ```
    #[inline(always)]
    pub fn store<const W: usize>(&self, i: usize, v: [T; W]) {
        unsafe { write_vec::<T, W>(self.ptr_at(i), v) }
    }

    /// Whether a `W`-wide [`load`](Self::load)/[`store`](Self::store) at index `i` is aligned.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// #[repr(align(16))] struct Buf([f32; 8]);
    /// let mut b = Buf([0.; 8]);
    /// let t = LayoutTensor::new(&mut b.0, cute_rs_layout::Layout::parse("8:1").unwrap()).unwrap();
    /// assert!(t.is_vector_aligned::<4>(4) && !t.is_vector_aligned::<4>(2));
    /// ```
    #[inline(always)]
    pub fn is_vector_aligned<const W: usize>(&self, i: usize) -> bool {
        self.ptr_at(i) as usize % vector_align(W * core::mem::size_of::<T>()) == 0
    }

    /// The same view through a run-time [`Layout`] value (for the run-time operations).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(L = "4:1");
    /// let mut v = [0u8; 4];
    /// let t = LayoutTensor::new(&mut v, Static::<L>::new()).unwrap();
    /// assert_eq!(t.dynamic().layout().to_string(), "4:1");
    /// ```
    #[inline(always)]
    pub fn dynamic(self) -> LayoutTensor<'a, T, Layout, A, B> {
        LayoutTensor { ptr: self.ptr, byte_off: self.byte_off, layout: self.layout.layout(), bounds: self.bounds, _m: PhantomData }
    }

    /// The same memory through another layout source (a reshape), no checks.
    ///
    /// # Safety
    /// Every offset of `layout` must stay inside the memory this view may access.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v: Vec<u8> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("6:1").unwrap()).unwrap();
    /// let m = unsafe { t.with_layout(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()) };
    /// assert_eq!(m.at([1, 0]), 3);
    /// ```
    #[inline(always)]
    pub unsafe fn with_layout<L2: LayoutSource>(self, layout: L2) -> LayoutTensor<'a, T, L2, A, B> {
        LayoutTensor { ptr: self.ptr, byte_off: self.byte_off, layout, bounds: self.bounds, _m: PhantomData }
    }

    #[inline(always)]
    pub(crate) fn rebuild<T2, L2: LayoutSource, B2: Bounds>(
        ptr: *mut T2,
        byte_off: isize,
        layout: L2,
        bounds: B2,
    ) -> LayoutTensor<'a, T2, L2, A, B2> {
        LayoutTensor { ptr, byte_off, layout, bounds, _m: PhantomData }
    }
}

/// `t[[i, j]]`: the element at a per-mode coordinate (one entry per top-level mode, a nested
/// mode taking its 1-D coordinate), as [`at`](LayoutTensor::at) reads it: CuTe's `tensor(i, j)`,
/// Mojo's `tensor[i, j]`.
///
/// Constraints: the coordinate lies inside the shape (checked on the host, where a coordinate
/// outside panics naming the mode; on the GPU only in debug builds). The reference is to the
/// memory the view shows: as with [`set`](LayoutTensor::set), other copies of the view may write
/// the same element, and a kernel orders those writes itself (barriers).
///
/// # Example
/// ```
/// # use cute_rs_tensor::LayoutTensor;
/// let mut v: Vec<f32> = (0..6).map(|x| x as f32).collect();
/// let mut t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
/// assert_eq!(t[[1, 2]], 5.0);
/// t[[0, 1]] += 10.0;
/// assert_eq!(t[[0, 1]], 11.0);
/// ```
impl<T: Element, L: LayoutSource, A: AddressSpace, B: Bounds, const R: usize> core::ops::Index<[usize; R]>
    for LayoutTensor<'_, T, L, A, B>
{
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, coord: [usize; R]) -> &T {
        // SAFETY: a coordinate inside the shape addresses an element of the view's memory.
        unsafe { &*self.elem_ptr(self.offset_at(coord.map(|c| c as i64))) }
    }
}

/// `t[[i, j]] = x`: writes through a per-mode coordinate (see the [`Index`](core::ops::Index)
/// implementation for the constraints).
///
/// # Example
/// ```
/// # use cute_rs_tensor::LayoutTensor;
/// let mut v = [0u16; 4];
/// let mut t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap();
/// t[[1, 0]] = 7;
/// assert_eq!(v, [0, 0, 7, 0]);
/// ```
impl<T: Element, L: LayoutSource, A: AddressSpace, B: Bounds, const R: usize> core::ops::IndexMut<[usize; R]>
    for LayoutTensor<'_, T, L, A, B>
{
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, coord: [usize; R]) -> &mut T {
        // SAFETY: as for `index`.
        unsafe { &mut *self.elem_ptr(self.offset_at(coord.map(|c| c as i64))) }
    }
}

/// Prints the layout, then the elements as CuTe's `print_tensor` does: a rank-1 tensor as one
/// row; otherwise a matrix whose rows are the first mode and whose columns are the other modes in
/// 1-D (column-major) order. Mojo's format is [`LayoutTensor::mojo`], cuTile's nested lists
/// [`LayoutTensor::nested`] ([`crate::print_format`]). Formatting flags apply to every element
/// (`{:6.2}`); elements outside a masked tensor's bounds print as `.`.
///
/// It reads the elements: print tensors over host memory (or, in a kernel, with
/// `device_println!`), not host views of device memory.
///
/// # Example
/// ```
/// # use cute_rs_tensor::LayoutTensor;
/// let mut v: Vec<u32> = (0..6).collect();
/// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
/// assert_eq!(format!("{t}"), "(2,3):(3,1):\n0 1 2\n3 4 5\n");
/// assert_eq!(format!("{t:2}"), "(2,3):(3,1):\n 0  1  2\n 3  4  5\n");
/// ```
impl<T, L, A, B> core::fmt::Display for LayoutTensor<'_, T, L, A, B>
where
    T: Element + core::fmt::Display,
    L: LayoutSource,
    A: AddressSpace,
    B: Bounds,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let layout = self.layout();
        writeln!(f, "{layout}:")?;
        let size = self.size();
        if size == 0 {
            return Ok(());
        }
        let rows = if layout.rank() >= 2 { layout.mode(0).map_or(1, |m| m.size() as usize).max(1) } else { 1 };
        let cols = size / rows;
        for r in 0..rows {
            for c in 0..cols {
                if c > 0 {
                    f.write_str(" ")?;
                }
                let i = r + rows * c;
                if self.contains(i) {
                    core::fmt::Display::fmt(&self.get(i), f)?;
                } else {
                    let width = f.width().unwrap_or(1);
                    write!(f, "{:>width$}", ".")?;
                }
            }
            f.write_str("\n")?;
        }
        Ok(())
    }
}
