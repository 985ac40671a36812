//! Vectors along any modes (Mojo's `LayoutTensor.vectorize[*vector_shape]`): a tensor divided by a
//! vector shape, one extent per mode, is a [`VectorizedTensor`] over the outer coordinates whose
//! elements are `N`-element vectors.
//!
//! [`vectorize_by`](LayoutTensor::vectorize_by) divides the tensor's layout by the vector shape
//! mode by mode ([`divide_by_shape`], CuTe's `zipped_divide` with a by-mode tiler): the tile mode
//! is the *element layout* (vector element `j` -> its offset from the vector's first element), the
//! rest mode the *outer layout* (outer coordinate -> the vector's first element). In per-mode
//! coordinates, element `e` of the vector at outer coordinate `c` is the tensor's element at
//! `c[k] * vector_extent[k] + e[k]` in every mode `k`.
//!
//! A vector whose elements are contiguous in memory (the element layout coalesces to `N:1`) and
//! whose every position is aligned for `N` elements is read and written as one aligned vector
//! access (as [`Vector`] elements are: one 2-, 4-, 8- or 16-byte access when the vector has that
//! many bytes; a larger one is one copy aligned to 16 bytes, which the compiler splits into
//! 16-byte accesses). Any other vector, a column of a row-major tensor for instance, is gathered
//! and scattered element by element through the element layout. On static layouts the choice is
//! a constant; on run-time layouts it is made once, when the view is built.
//!
//! Limitations: the tensor must have [`Full`] bounds (no masked tiles); the vector shape has one
//! extent per top-level mode, and inside a nested mode the division must be one of the algebra
//! (an extent 4 of a mode `(6,2):(1,12)` is not: it fails with the composition's message).
//!
//! ```
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
//! static_layout!(M = "(4,4):(4,1)"); // 4 x 4 row-major
//! static_layout!(Col2 = "(2,1)");    // 2 rows x 1 column
//! let mut v: Vec<u32> = (0..16).collect();
//! let cols = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Col2, 2>();
//! assert_eq!(cols.layout().to_string(), "(2,4):(8,1)");
//! assert_eq!(cols.at([1, 3]), Vector([11, 15])); // rows 2..4 of column 3
//! ```

use core::marker::PhantomData;

use cute_rs_layout::{Layout, LayoutError};

use crate::device::unroll::{unroll_for, Count};
use crate::mask::Full;
use crate::static_layout::{divide_by_shape, LayoutSource, Static, StaticLayout, TileOf, TileRest};
use crate::tensor::{check_index, read_vec, vector_align, write_vec, AddressSpace, Element, Global, LayoutTensor, Vector};

/// Why a vector shape does not vectorize a layout.
#[derive(Clone, Copy)]
enum Violation {
    /// The vector shape needs one extent per mode of the tensor.
    Rank { tensor: usize, vector: usize },
    /// Vector extent `vector` does not divide the extent `extent` of mode `mode`.
    Extent { mode: usize, vector: i64, extent: i64 },
    /// `N` is not the number of elements of the vector shape.
    Count { n: usize, size: i64 },
}

impl Violation {
    /// The run-time error.
    const fn error(self) -> LayoutError {
        match self {
            Violation::Rank { tensor, vector } => LayoutError::RankMismatch { op: "vectorize", expected: tensor, found: vector },
            Violation::Extent { vector, extent, .. } => {
                LayoutError::ShapeDivisibility { op: "vectorize", divisor: vector, dividend: extent }
            }
            Violation::Count { n, .. } => LayoutError::InvalidArgument {
                op: "vectorize",
                condition: "N must be the vector shape's size (its number of elements)",
                value: n as i64,
            },
        }
    }

    /// Stops `const` evaluation naming the violated condition.
    const fn panic(self) -> ! {
        let m = cute_rs_layout::Message::new().push("vectorize: ");
        let m = match self {
            Violation::Rank { tensor, vector } => m
                .push("the vector shape has ")
                .int(vector as i64)
                .push(" modes, the tensor ")
                .int(tensor as i64)
                .push(" (one vector extent per mode)"),
            Violation::Extent { mode, vector, extent } => m
                .push("vector extent ")
                .int(vector)
                .push(" does not divide mode extent ")
                .int(extent)
                .push(" (mode ")
                .int(mode as i64)
                .push(")"),
            Violation::Count { n, size } => m
                .push("N = ")
                .int(n as i64)
                .push(" is not the vector shape's size ")
                .int(size),
        };
        panic!("{}", m.as_str())
    }
}

/// Checks that `vshape` vectorizes `l` into `n`-element vectors: one extent per mode, each
/// dividing its mode's extent, `n` their product.
const fn check(l: Layout, vshape: Layout, n: usize) -> Result<(), Violation> {
    let (r, vr) = (l.rank(), vshape.rank());
    if r != vr {
        return Err(Violation::Rank { tensor: r, vector: vr });
    }
    let mut k = 0;
    while k < r {
        let extent = cute_rs_layout::unwrap!(l.mode(k)).size();
        let vector = cute_rs_layout::unwrap!(vshape.mode(k)).size();
        if vector < 1 || extent % vector != 0 {
            return Err(Violation::Extent { mode: k, vector, extent });
        }
        k += 1;
    }
    if vshape.size() != n as i64 {
        return Err(Violation::Count { n, size: vshape.size() });
    }
    Ok(())
}

/// Whether every vector can be one aligned access: the element layout coalesces to `n:1` (or
/// holds one element), and every outer stride keeps the vector's alignment
/// (`vector_align(n * elem_bytes)`), so that an aligned base makes every vector aligned.
pub(crate) const fn vector_access(outer: Layout, elem: Layout, n: usize, elem_bytes: usize) -> bool {
    if n > 1 {
        let c = cute_rs_layout::coalesce(elem);
        let shape = c.shape();
        let stride = c.stride();
        let (s, d) = (shape.leaves(), stride.leaves());
        if s.len() != 1 || s[0] != n as i64 || d[0] != 1 {
            return false;
        }
    }
    let align = vector_align(n * elem_bytes) as i64;
    let shape = outer.shape();
    let stride = outer.stride();
    let (s, d) = (shape.leaves(), stride.leaves());
    let mut i = 0;
    while i < s.len() {
        if s[i] != 1 && (d[i] * elem_bytes as i64) % align != 0 {
            return false;
        }
        i += 1;
    }
    true
}

/// The compile-time plan of `vectorize_by::<V, N>()` on a tensor of `T` laid out as `S`.
struct Plan<T, S, V, const N: usize>(PhantomData<(T, S, V)>);
impl<T, S: StaticLayout, V: StaticLayout, const N: usize> Plan<T, S, V, N> {
    /// Whether each vector is one aligned access (the checks first: a bad vector shape stops
    /// compilation here, naming the condition). The division is computed here rather than read
    /// from `TileRest`/`TileOf`: constants a body names are evaluated before it runs, and theirs
    /// would report a bad extent first, in the algebra's terms.
    const VECTOR: bool = {
        if let Err(v) = check(S::LAYOUT, V::LAYOUT, N) {
            v.panic()
        }
        let z = cute_rs_layout::unwrap!(divide_by_shape(S::LAYOUT, V::LAYOUT));
        vector_access(cute_rs_layout::unwrap!(z.mode(1)), cute_rs_layout::unwrap!(z.mode(0)), N, core::mem::size_of::<T>())
    };
}

/// A tensor of `N`-element vectors along any modes (Mojo's `LayoutTensor` with an
/// `element_layout`), made by [`vectorize_by`](LayoutTensor::vectorize_by) (see the
/// [module documentation](self)).
///
/// Its coordinates are the outer ones: one per vector, one entry per mode of the tensor it was
/// made from, each mode's extent divided by the vector extent. Element `j` of a vector lies at
/// offset `element_layout(j)` from the vector's first element. Vectors are read and written whole:
/// as one aligned access when [`is_vector_access`](Self::is_vector_access), else element by element.
///
/// # Parameters
/// - `T`: the scalar element.
/// - `N`: the number of elements of a vector (the vector shape's size).
/// - `O`: the outer layout (vector coordinate -> offset of the vector's first element): a
///   [`Static`] layout ([`TileRest<S, V>`]) or a run-time [`Layout`].
/// - `E`: the element layout (vector element -> offset): [`Static<TileOf<S, V>>`](TileOf) or a
///   run-time [`Layout`].
/// - `A`: the address space.
///
/// # Example
/// An 8 x 8 row-major tensor read as rows of 4 (one vector access each) and as columns of 4
/// (gathered):
/// ```
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
/// static_layout!(M = "(8,8):(8,1)");
/// static_layout!(Row4 = "(1,4)");
/// static_layout!(Col4 = "(4,1)");
/// #[repr(align(16))] struct Buf([f32; 64]);
/// let mut b = Buf(core::array::from_fn(|i| i as f32));
/// let t = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap();
/// let rows = t.vectorize_by::<Row4, 4>();
/// assert_eq!((rows.dim(0), rows.dim(1)), (8, 2));
/// assert!(rows.is_vector_access());
/// assert_eq!(rows.load([3, 1]), [28., 29., 30., 31.]);
/// let cols = t.vectorize_by::<Col4, 4>();
/// assert_eq!((cols.dim(0), cols.dim(1)), (2, 8));
/// assert!(!cols.is_vector_access());
/// assert_eq!(cols.load([1, 2]), [34., 42., 50., 58.]);
/// for i in 0..cols.size() {
///     let [c0, c1] = cols.coord::<2>(i);
///     assert_eq!(cols.get(i).0[0], t.at([4 * c0, c1])); // the first element of each vector
/// }
/// ```
#[repr(C)]
pub struct VectorizedTensor<'a, T, const N: usize, O: LayoutSource = Layout, E: LayoutSource = Layout, A: AddressSpace = Global> {
    /// The vectors' first elements, through the outer layout.
    pub(crate) origins: LayoutTensor<'a, T, O, A, Full>,
    /// The element layout.
    pub(crate) elem: E,
    /// Whether vectors are single aligned accesses (for static layouts, a constant's copy).
    pub(crate) vector: bool,
}

/// The [`VectorizedTensor`] that the static [`vectorize_by::<V, N>()`](LayoutTensor::vectorize_by)
/// makes of a tensor laid out as `S`: outer layout [`TileRest<S, V>`], element layout
/// [`TileOf<S, V>`], both static (a name for kernels' helper functions).
///
/// # Parameters
/// - `T`, `A`: the element and the address space.
/// - `S`: the tensor's static layout.
/// - `V`: the vector shape (one extent per mode of `S`).
/// - `N`: the number of elements of a vector, `size(V)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, vectorized::StaticVectorized};
/// static_layout!(M = "(8,8):(8,1)");
/// static_layout!(Col4 = "(4,1)");
/// // The sum of each quarter column, whatever the tensor's memory.
/// fn sums(v: StaticVectorized<'_, f32, M, Col4, 4>) -> Vec<f32> {
///     (0..v.size()).map(|i| v.get(i).0.iter().sum()).collect()
/// }
/// let mut data = [1f32; 64];
/// let t = cute_rs_tensor::LayoutTensor::new(&mut data, cute_rs_tensor::Static::<M>::new()).unwrap();
/// assert_eq!(sums(t.vectorize_by::<Col4, 4>()), [4.; 16]);
/// ```
pub type StaticVectorized<'a, T, S, V, const N: usize, A = Global> =
    VectorizedTensor<'a, T, N, Static<TileRest<S, V>>, Static<TileOf<S, V>>, A>;

impl<T, const N: usize, O: LayoutSource, E: LayoutSource, A: AddressSpace> Clone for VectorizedTensor<'_, T, N, O, E, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize, O: LayoutSource, E: LayoutSource, A: AddressSpace> Copy for VectorizedTensor<'_, T, N, O, E, A> {}

impl<'a, T: Element, const N: usize, O: LayoutSource, E: LayoutSource, A: AddressSpace> VectorizedTensor<'a, T, N, O, E, A> {
    /// `Some(vector access)` when both layouts are static.
    pub(crate) const STATIC_VECTOR: Option<bool> = match (O::STATIC, E::STATIC) {
        (Some(o), Some(e)) => Some(vector_access(o, e, N, core::mem::size_of::<T>())),
        _ => None,
    };

    /// The outer layout: vector coordinate -> offset (in elements of `T`) of the vector's first
    /// element.
    ///
    /// # Returns
    /// The rest mode of the tensor's layout divided by the vector shape.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Row4 = "(1,4)");
    /// let mut v = [0u32; 64];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Row4, 4>();
    /// assert_eq!(t.layout().to_string(), "(8,2):(8,4)");
    /// ```
    #[inline(always)]
    pub fn layout(&self) -> Layout {
        self.origins.layout()
    }

    /// The element layout: element `j` of a vector -> its offset from the vector's first element
    /// (Mojo's `element_layout`).
    ///
    /// # Returns
    /// The tile mode of the tensor's layout divided by the vector shape: one mode per mode of the
    /// tensor, of the vector extent.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Col4 = "(4,1)");
    /// let mut v = [0u32; 64];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Col4, 4>();
    /// assert_eq!(t.element_layout().to_string(), "(4,1):(8,1)");
    /// ```
    #[inline(always)]
    pub fn element_layout(&self) -> Layout {
        self.elem.layout()
    }

    /// The number of vectors (a constant for static layouts).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(V = "(2,4)");
    /// let mut v = [0u8; 64];
    /// assert_eq!(LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<V, 8>().size(), 8);
    /// ```
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.origins.size()
    }

    /// The number of vectors along mode `axis`: the tensor's extent divided by the vector extent.
    ///
    /// # Panics
    /// When `axis` is not below the rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(V = "(2,4)");
    /// let mut v = [0u8; 64];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<V, 8>();
    /// assert_eq!((t.dim(0), t.dim(1)), (4, 2));
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn dim(&self, axis: usize) -> usize {
        self.origins.dim(axis)
    }

    /// Whether each vector is read and written as one aligned vector access (otherwise element by
    /// element). Static layouts: a constant; run-time layouts: decided when the view was built.
    ///
    /// # Returns
    /// `true` when the vector's elements are contiguous (the element layout coalesces to `N:1`),
    /// every outer stride keeps the alignment of an `N`-element vector, and (run-time layouts)
    /// the base is aligned for it. A static view requires the aligned base instead (see
    /// [`vectorize_by`](LayoutTensor::vectorize_by)).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,6):(6,1)");
    /// static_layout!(Row2 = "(1,2)");
    /// static_layout!(Row3 = "(1,3)");
    /// #[repr(align(8))] struct Buf([u32; 24]);
    /// let mut b = Buf([0; 24]);
    /// let t = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap();
    /// assert!(t.vectorize_by::<Row2, 2>().is_vector_access());
    /// assert!(t.vectorize_by::<Row3, 3>().is_vector_access()); // 12 bytes: 4-byte aligned
    /// ```
    #[inline(always)]
    pub fn is_vector_access(&self) -> bool {
        match Self::STATIC_VECTOR {
            Some(v) => v,
            None => self.vector,
        }
    }

    /// The outer (per-mode) coordinate of vector `i` (1-D index, colexicographic: mode 0 fastest).
    ///
    /// # Parameters
    /// - `R`: the rank (one entry per mode).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Row4 = "(1,4)");
    /// let mut v = [0u8; 64];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Row4, 4>();
    /// assert_eq!(t.coord::<2>(9), [1, 1]);
    /// ```
    #[inline(always)]
    pub fn coord<const R: usize>(&self, i: usize) -> [i64; R] {
        self.origins.source().modes().coord(i as i64)
    }

    /// The per-mode coordinate of element `j` inside a vector: with the outer coordinate `c`, the
    /// element is the tensor's element at `c[k] * vector_extent[k] + element_coord(j)[k]`.
    ///
    /// # Parameters
    /// - `R`: the rank (one entry per mode).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(V = "(2,2)");
    /// let mut v = [0u8; 64];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<V, 4>();
    /// assert_eq!(t.element_coord::<2>(1), [1, 0]);
    /// assert_eq!(t.element_coord::<2>(2), [0, 1]);
    /// ```
    #[inline(always)]
    pub fn element_coord<const R: usize>(&self, j: usize) -> [i64; R] {
        self.elem.modes().coord(j as i64)
    }

    /// The address of vector `i`'s first element.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(2,4):(4,1)");
    /// static_layout!(Row2 = "(1,2)");
    /// let mut v = [0u8; 8];
    /// let p = v.as_mut_ptr();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Row2, 2>();
    /// assert_eq!(t.ptr_at(2), p.wrapping_add(2)); // coordinate (0, 1): row 0, columns 2..4
    /// ```
    #[inline(always)]
    pub fn ptr_at(&self, i: usize) -> *mut T {
        self.origins.ptr_at(i)
    }

    /// Reads the vector whose first element is `off` elements from the view's origin.
    #[inline(always)]
    fn read_from(&self, off: isize) -> [T; N] {
        let base = self.origins.elem_ptr(off);
        if self.is_vector_access() {
            // SAFETY: the `N` elements are contiguous and the address aligned for them
            // (`is_vector_access`; the base's alignment checked when the view was built).
            unsafe { read_vec::<T, N>(base) }
        } else {
            let mut v = [T::ZERO; N];
            // SAFETY: each element is an element of the tensor the view was made from.
            unroll_for::<Count<N>>(|j| v[j] = unsafe { T::read(base.wrapping_offset(self.elem.offset(j as i64) as isize)) });
            v
        }
    }

    /// Writes the vector whose first element is `off` elements from the view's origin.
    #[inline(always)]
    fn write_to(&self, off: isize, v: [T; N]) {
        let base = self.origins.elem_ptr(off);
        if self.is_vector_access() {
            // SAFETY: as in `read_from`.
            unsafe { write_vec::<T, N>(base, v) }
        } else {
            // SAFETY: as in `read_from`.
            unroll_for::<Count<N>>(|j| unsafe { T::write(base.wrapping_offset(self.elem.offset(j as i64) as isize), v[j]) });
        }
    }

    /// Vector `i` (1-D index over the outer coordinates; `0..size()` visits every vector once).
    ///
    /// # Args
    /// - `i`: below [`size`](Self::size) (checked on the host).
    ///
    /// # Returns
    /// The vector's `N` elements, element `j` at [`element_coord(j)`](Self::element_coord).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(2,4):(4,1)");
    /// static_layout!(Col2 = "(2,1)");
    /// let mut v: Vec<u16> = (0..8).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Col2, 2>();
    /// assert_eq!((0..t.size()).map(|i| t.get(i)).collect::<Vec<_>>(),
    ///            [Vector([0, 4]), Vector([1, 5]), Vector([2, 6]), Vector([3, 7])]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, i: usize) -> Vector<T, N> {
        check_index(i, self.size());
        Vector(self.read_from(self.origins.offset(i)))
    }

    /// Writes vector `i` (1-D index).
    ///
    /// # Args
    /// - `i`: below [`size`](Self::size) (checked on the host).
    /// - `v`: the elements, element `j` to [`element_coord(j)`](Self::element_coord).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(2,4):(4,1)");
    /// static_layout!(Col2 = "(2,1)");
    /// let mut v = [0u16; 8];
    /// LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Col2, 2>().set(1, Vector([7, 9]));
    /// assert_eq!(v, [0, 7, 0, 0, 0, 9, 0, 0]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, i: usize, v: Vector<T, N>) {
        check_index(i, self.size());
        self.write_to(self.origins.offset(i), v.0)
    }

    /// The vector at an outer coordinate (Mojo's `tensor[i, j]` on a vectorized tensor).
    ///
    /// # Args
    /// - `coord`: one entry per mode, inside the outer shape (checked on the host).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Col2 = "(2,1)");
    /// let mut v: Vec<u32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Col2, 2>();
    /// assert_eq!(t.at([1, 0]), Vector([8, 12]));
    /// ```
    #[inline(always)]
    pub fn at<const R: usize>(&self, coord: [i64; R]) -> Vector<T, N> {
        Vector(self.load(coord))
    }

    /// Writes the vector at an outer coordinate.
    ///
    /// # Args
    /// - `coord`: one entry per mode, inside the outer shape (checked on the host).
    /// - `v`: the elements.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Col2 = "(2,1)");
    /// let mut v = [0u32; 16];
    /// LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Col2, 2>().set_at([1, 3], Vector([1, 2]));
    /// assert_eq!((v[11], v[15]), (1, 2));
    /// ```
    #[inline(always)]
    pub fn set_at<const R: usize>(&self, coord: [i64; R], v: Vector<T, N>) {
        self.store(coord, v.0)
    }

    /// Reads the vector at an outer coordinate (Mojo's `load`): one aligned access when
    /// [`is_vector_access`](Self::is_vector_access), else `N` element reads.
    ///
    /// # Args
    /// - `coord`: one entry per mode, inside the outer shape (checked on the host).
    ///
    /// # Returns
    /// The `N` elements, element `j` from the tensor's coordinate
    /// `coord[k] * vector_extent[k] + element_coord(j)[k]`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Sq = "(2,2)");
    /// let mut v: Vec<u32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Sq, 4>();
    /// assert_eq!(t.load([1, 1]), [10, 14, 11, 15]); // a 2 x 2 block, column-major
    /// ```
    #[inline(always)]
    pub fn load<const R: usize>(&self, coord: [i64; R]) -> [T; N] {
        self.read_from(self.origins.offset_at(coord))
    }

    /// Writes the vector at an outer coordinate (Mojo's `store`): one aligned access when
    /// [`is_vector_access`](Self::is_vector_access), else `N` element writes.
    ///
    /// # Args
    /// - `coord`: one entry per mode, inside the outer shape (checked on the host).
    /// - `v`: the elements, element `j` to the tensor's coordinate
    ///   `coord[k] * vector_extent[k] + element_coord(j)[k]`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Row2 = "(1,2)");
    /// let mut v = [0u32; 16];
    /// LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Row2, 2>().store([3, 1], [5, 6]);
    /// assert_eq!((v[14], v[15]), (5, 6));
    /// ```
    #[inline(always)]
    pub fn store<const R: usize>(&self, coord: [i64; R], v: [T; N]) {
        self.write_to(self.origins.offset_at(coord), v)
    }
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace> LayoutTensor<'a, T, Static<S>, A, Full> {
    /// Mojo's `vectorize[*vector_shape]`: the tensor as `N`-element vectors of shape `V` (one
    /// extent per mode), along any modes. The result is indexed by the outer coordinates: its
    /// layout is [`TileRest<S, V>`], its element layout [`TileOf<S, V>`] (the tensor divided by `V`
    /// mode by mode), both static. Element `e` of the vector at outer coordinate `c` is the
    /// tensor's element at `c[k] * V[k] + e[k]` in every mode `k`.
    ///
    /// Vectors whose elements are contiguous, with every position aligned for `N` elements, are
    /// read and written as one aligned access; others (a column of a row-major tensor) element by
    /// element. The choice is a constant
    /// ([`is_vector_access`](VectorizedTensor::is_vector_access)). [`vectorize`](Self::vectorize)
    /// is the special case of vectors along the stride-1 mode, as [`Vector`] elements.
    ///
    /// # Parameters
    /// - `V`: the vector shape, a static layout whose mode `k` has the vector's extent along mode
    ///   `k` of the tensor (only its shape counts: `static_layout!(Col4 = "(4,1)")`).
    /// - `N`: the number of elements of a vector, `size(V)`.
    ///
    /// # Returns
    /// A [`VectorizedTensor`] over the same memory.
    ///
    /// # Constraints
    /// Checked at compile time, each failure naming its condition and values: `V` has the
    /// tensor's rank; each extent of `V` divides its mode's extent (e.g. "vectorize: vector extent
    /// 3 does not divide mode extent 8 (mode 1)"); `N == size(V)`. Inside a nested mode the
    /// division must also be one of the algebra (else its message). When the vectors are single
    /// accesses, the base must be aligned for one (checked in debug builds, as
    /// [`vectorize`](Self::vectorize) does).
    ///
    /// # Example
    /// An 8 x 8 row-major tensor: `(1,4)` vectors are quarter rows, one 16-byte access each;
    /// `(4,1)` vectors are quarter columns, gathered.
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Row4 = "(1,4)");
    /// static_layout!(Col4 = "(4,1)");
    /// #[repr(align(16))] struct Buf([f32; 64]);
    /// let mut b = Buf(core::array::from_fn(|i| i as f32));
    /// let t = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap();
    ///
    /// let rows = t.vectorize_by::<Row4, 4>();
    /// assert_eq!(rows.layout().to_string(), "(8,2):(8,4)");
    /// assert!(rows.is_vector_access());
    /// assert_eq!(rows.at([2, 1]), Vector([20., 21., 22., 23.]));
    ///
    /// let cols = t.vectorize_by::<Col4, 4>();
    /// assert_eq!(cols.layout().to_string(), "(2,8):(32,1)");
    /// assert!(!cols.is_vector_access());
    /// assert_eq!(cols.at([0, 5]), Vector([5., 13., 21., 29.]));
    /// cols.store([1, 0], [-1., -2., -3., -4.]); // scattered down column 0
    /// assert_eq!([t.at([4, 0]), t.at([5, 0]), t.at([6, 0]), t.at([7, 0])], [-1., -2., -3., -4.]);
    /// ```
    /// A vector extent that does not divide its mode fails to compile:
    /// ```compile_fail,E0080
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Row3 = "(1,3)");
    /// let mut v = [0f32; 64];
    /// // error: vectorize: vector extent 3 does not divide mode extent 8 (mode 1)
    /// let _ = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Row3, 3>();
    /// ```
    /// So does a vector shape of another rank, or an `N` that is not its size:
    /// ```compile_fail,E0080
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Four = "4");
    /// let mut v = [0f32; 64];
    /// // error: vectorize: the vector shape has 1 modes, the tensor 2 (one vector extent per mode)
    /// let _ = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Four, 4>();
    /// ```
    /// ```compile_fail,E0080
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(8,8):(8,1)");
    /// static_layout!(Row4 = "(1,4)");
    /// let mut v = [0f32; 64];
    /// // error: vectorize: N = 2 is not the vector shape's size 4
    /// let _ = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().vectorize_by::<Row4, 2>();
    /// ```
    #[inline(always)]
    pub fn vectorize_by<V: StaticLayout, const N: usize>(
        self,
    ) -> StaticVectorized<'a, T, S, V, N, A> {
        let vector = const { Plan::<T, S, V, N>::VECTOR };
        debug_assert!(
            !vector || (self.as_ptr() as usize).is_multiple_of(vector_align(N * core::mem::size_of::<T>())),
            "vectorize_by: misaligned base for a vector access"
        );
        VectorizedTensor { origins: Self::rebuild(self.ptr, self.byte_off, Static::new(), Full), elem: Static::new(), vector }
    }
}

impl<'a, T: Element, A: AddressSpace> LayoutTensor<'a, T, Layout, A, Full> {
    /// Mojo's `vectorize[*vector_shape]` with a run-time vector shape (see the static
    /// [`vectorize_by`](LayoutTensor::vectorize_by)): the tensor as `N`-element vectors of shape
    /// `vector_shape`, indexed by the outer coordinates.
    ///
    /// Whether each vector is one aligned access is decided here, once: the elements contiguous,
    /// every position aligned for `N` elements, the base included; otherwise (a misaligned base
    /// too) the view reads and writes element by element, so alignment is never an error.
    ///
    /// # Parameters
    /// - `N`: the number of elements of a vector, `size(vector_shape)`.
    ///
    /// # Args
    /// - `vector_shape`: mode `k` has the vector's extent along mode `k` of the tensor (only its
    ///   shape counts).
    ///
    /// # Returns
    /// A [`VectorizedTensor`] with run-time outer and element layouts.
    ///
    /// # Errors
    /// [`LayoutError::RankMismatch`] when `vector_shape` does not have the tensor's rank;
    /// [`LayoutError::ShapeDivisibility`] when a vector extent does not divide its mode's extent
    /// ("vectorize: shape divisibility: 3 does not divide 8"); [`LayoutError::InvalidArgument`]
    /// when `N` is not `size(vector_shape)`; the errors of [`divide_by_shape`] inside nested
    /// modes.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensor, Vector};
    /// use cute_rs_layout::Layout;
    /// #[repr(align(16))] struct Buf([u32; 64]);
    /// let mut b = Buf(core::array::from_fn(|i| i as u32));
    /// let t = LayoutTensor::new(&mut b.0, Layout::parse("(8,8):(8,1)").unwrap()).unwrap();
    /// let rows = t.vectorize_by::<4>(Layout::parse("(1,4)").unwrap()).unwrap();
    /// assert!(rows.is_vector_access());
    /// assert_eq!(rows.at([7, 0]), Vector([56, 57, 58, 59]));
    /// let cols = t.vectorize_by::<4>(Layout::parse("(4,1)").unwrap()).unwrap();
    /// assert!(!cols.is_vector_access());
    /// assert_eq!(cols.load([1, 7]), [39, 47, 55, 63]);
    /// let e = t.vectorize_by::<3>(Layout::parse("(1,3)").unwrap()).err().unwrap();
    /// assert_eq!(e.to_string(), "vectorize: shape divisibility: 3 does not divide 8");
    /// ```
    pub fn vectorize_by<const N: usize>(
        self,
        vector_shape: Layout,
    ) -> Result<VectorizedTensor<'a, T, N, Layout, Layout, A>, LayoutError> {
        if let Err(v) = check(self.layout, vector_shape, N) {
            return Err(v.error());
        }
        let z = divide_by_shape(self.layout, vector_shape)?;
        let (elem, outer) = (z.mode(0)?, z.mode(1)?);
        let origins = Self::rebuild(self.ptr, self.byte_off, outer, Full);
        let aligned = (origins.as_ptr() as usize).is_multiple_of(vector_align(N * core::mem::size_of::<T>()));
        let vector = aligned && vector_access(outer, elem, N, core::mem::size_of::<T>());
        Ok(VectorizedTensor { origins, elem, vector })
    }
}

/// The elements of `T` in the widest vector access of an NVIDIA GPU, 16 bytes (Mojo's
/// `simdwidthof[dtype, get_gpu_target()]`): the vector width of
/// [`vectorize`](LayoutTensor::vectorize) for copies of 128 bits. At least 1.
///
/// # Parameters
/// - `T`: the element type.
///
/// # Example
/// Mojo's `alias simd_width = simdwidthof[DType.float32, get_gpu_target()]`, then
/// `tensor.vectorize[1, simd_width]()`:
/// ```
/// use cute_rs_tensor::{simd_width, static_layout, LayoutTensor, Static};
/// const SIMD_WIDTH: usize = simd_width::<f32>();
/// assert_eq!((SIMD_WIDTH, simd_width::<u8>(), simd_width::<f64>()), (4, 16, 2));
/// static_layout!(M = "(4,8):(8,1)");
/// #[repr(align(16))]
/// struct Buf([f32; 32]);
/// let mut b = Buf(core::array::from_fn(|i| i as f32));
/// let v = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap().vectorize::<SIMD_WIDTH>();
/// assert_eq!(v.get(1).0, [8.0, 9.0, 10.0, 11.0]); // row 1, the first vector of 4
/// ```
pub const fn simd_width<T>() -> usize {
    let size = core::mem::size_of::<T>();
    if size == 0 || size > 16 {
        1
    } else {
        16 / size
    }
}
