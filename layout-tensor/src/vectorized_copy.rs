//! Threads and copies over [`VectorizedTensor`]s, as Mojo writes them on vectorized views
//! (`tensor.vectorize[4, 1]().distribute[thread_layout](tid)`, then `copy_from` or
//! `copy_from_async`): [`distribute`](VectorizedTensor::distribute) gives a thread its vectors,
//! [`copy_from`](VectorizedTensor::copy_from) moves vector by vector, and
//! [`copy_from_async`](VectorizedTensor::copy_from_async) issues `cp.async` from global to
//! shared memory.
//!
//! Vectors of any shape take part: rows (`(1, 4)`, one aligned access each) and columns
//! (`(4, 1)` of a row-major tensor, gathered and scattered through the element layout).
//!
//! ```
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static};
//! static_layout!(M = "(8,8):(8,1)");   // 8 x 8 row-major
//! static_layout!(Col4 = "(4,1)");      // quarter columns
//! static_layout!(Threads = "(2,4):(4,1)");
//! let mut a: Vec<f32> = (0..64).map(|i| i as f32).collect();
//! let mut b = vec![0f32; 64];
//! let src = LayoutTensor::new(&mut a, Static::<M>::new()).unwrap().vectorize_by::<Col4, 4>();
//! let dst = LayoutTensor::new(&mut b, Static::<M>::new()).unwrap().vectorize_by::<Col4, 4>();
//! for tid in 0..8 {
//!     dst.distribute::<Threads, 2>(tid).copy_from(&src.distribute::<Threads, 2>(tid));
//! }
//! assert_eq!(a, b);
//! ```

use cute_rs_layout::{Layout, LayoutError};

use crate::copy_async::issue;
use crate::static_layout::{LayoutSource, Partition, Static, StaticLayout};
use crate::tensor::{vector_align, AddressSpace, Element, Global, Shared};
use crate::vectorized::{vector_access, VectorizedTensor};

impl<'a, T: Element, const N: usize, OS: StaticLayout, E: LayoutSource, A: AddressSpace> VectorizedTensor<'a, T, N, Static<OS>, E, A> {
    /// Thread `tid`'s vectors under the static thread layout `Th` (Mojo's `distribute` on a
    /// vectorized view, CuTe's `local_partition` of the outer layout): the outer layout divided
    /// by `Th`, each thread taking its coordinate's vectors; the element layout is unchanged.
    ///
    /// # Parameters
    /// - `Th`: the thread layout (thread id -> coordinate in the grid of threads, one mode per
    ///   mode of the outer layout).
    /// - `R`: its rank.
    ///
    /// # Args
    /// - `tid`: the thread's id, below `size(Th)`.
    ///
    /// # Returns
    /// The thread's vectors, over the same memory.
    ///
    /// # Constraints
    /// `Th` divides the outer layout (compile time, with the division's message). Where the
    /// vectors of the whole view are not single accesses, the thread's may not become single
    /// accesses either (a compile-time error: its base would be misaligned).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(4,8):(8,1)");
    /// static_layout!(Row4 = "(1,4)");
    /// static_layout!(Threads = "(2,2):(2,1)");
    /// #[repr(align(16))] struct Buf([u32; 32]);
    /// let mut b = Buf(core::array::from_fn(|i| i as u32));
    /// let t = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap().vectorize_by::<Row4, 4>();
    /// let mine = t.distribute::<Threads, 2>(1); // thread 1: the vectors of column 1, rows 0 and 2
    /// assert_eq!((mine.size(), mine.get(0), mine.get(1)), (2, Vector([4, 5, 6, 7]), Vector([20, 21, 22, 23])));
    /// ```
    #[inline(always)]
    pub fn distribute<Th: StaticLayout, const R: usize>(self, tid: usize) -> VectorizedTensor<'a, T, N, Static<Partition<OS, Th>>, E, A> {
        const {
            let whole = Self::STATIC_VECTOR;
            let part = VectorizedTensor::<'a, T, N, Static<Partition<OS, Th>>, E, A>::STATIC_VECTOR;
            assert!(
                !matches!((whole, part), (Some(false), Some(true))),
                "distribute: the view's vectors are not single accesses, the thread's would be (misaligned thread bases); vectorize a tensor whose vectors are aligned"
            )
        };
        VectorizedTensor { origins: self.origins.distribute::<Th, R>(tid), elem: self.elem, vector: self.vector }
    }
}

impl<'a, T: Element, const N: usize, E: LayoutSource, A: AddressSpace> VectorizedTensor<'a, T, N, Layout, E, A> {
    /// Thread `tid`'s vectors under a run-time thread layout: [`distribute`](Self::distribute)
    /// with layouts known at run time.
    ///
    /// # Errors
    /// Those of the division of the outer layout by `threads` (e.g. "shape divisibility"), and a
    /// rank mismatch when `R` is not `threads`' rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensor, Vector};
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u8> = (0..32).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(4,8):(8,1)").unwrap()).unwrap()
    ///     .vectorize_by::<2>(Layout::parse("(2,1)").unwrap()).unwrap(); // half columns
    /// let mine = t.distribute::<2>(Layout::parse("(1,8):(1,1)").unwrap(), 3).unwrap(); // column 3
    /// assert_eq!((mine.size(), mine.get(0), mine.get(1)), (2, Vector([3, 11]), Vector([19, 27])));
    /// assert!(t.distribute::<2>(Layout::parse("(1,3):(1,1)").unwrap(), 0).is_err());
    /// ```
    pub fn distribute<const R: usize>(self, threads: Layout, tid: usize) -> Result<Self, LayoutError> {
        let origins = self.origins.distribute::<R>(threads, tid)?;
        let aligned = (origins.as_ptr() as usize).is_multiple_of(vector_align(N * core::mem::size_of::<T>()));
        let vector = self.vector && aligned && vector_access(origins.layout, self.elem.layout(), N, core::mem::size_of::<T>());
        Ok(VectorizedTensor { origins, elem: self.elem, vector })
    }
}

impl<'a, T: Element, const N: usize, O: LayoutSource, E: LayoutSource, A: AddressSpace> VectorizedTensor<'a, T, N, O, E, A> {
    /// Copies `src` into `self` vector by vector in 1-D index order (Mojo's `copy_from` on
    /// vectorized views): each vector one aligned access where its view allows, else element by
    /// element through the element layouts, so a row and a column of the same size copy into
    /// each other.
    ///
    /// # Panics
    /// When the numbers of vectors differ.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Row2 = "(1,2)");
    /// static_layout!(Col2 = "(2,1)");
    /// let mut a: Vec<i32> = (0..16).collect();
    /// let mut b = vec![0i32; 16];
    /// let rows = LayoutTensor::new(&mut a, Static::<M>::new()).unwrap().vectorize_by::<Row2, 2>();
    /// let cols = LayoutTensor::new(&mut b, Static::<M>::new()).unwrap().vectorize_by::<Col2, 2>();
    /// cols.copy_from(&rows); // vector i of `rows` lands in vector i of `cols`
    /// // Vector 0: row 0's first pair into column 0's first pair; vector 2: (0, 1) of each grid.
    /// assert_eq!((b[0], b[4], b[1], b[5]), (0, 1, 8, 9));
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn copy_from<O2: LayoutSource, E2: LayoutSource, A2: AddressSpace>(&self, src: &VectorizedTensor<'_, T, N, O2, E2, A2>) {
        assert!(self.size() == src.size(), "copy_from: {} vectors into {}", src.size(), self.size());
        for i in 0..self.size() {
            self.set(i, src.get(i));
        }
    }

    /// The address of element `j` of vector `i`.
    #[inline(always)]
    fn element_ptr(&self, i: usize, j: usize) -> *mut T {
        self.origins.ptr_at(i).wrapping_offset(self.elem.offset(j as i64) as isize)
    }
}

impl<'a, T: Element, const N: usize, O: LayoutSource, E: LayoutSource> VectorizedTensor<'a, T, N, O, E, Shared> {
    /// Starts copying `src` (global memory) into `self` (shared memory) vector by vector with
    /// `cp.async` (Mojo's `copy_from_async` on vectorized views):
    /// - when the vectors of both views are single accesses of 4, 8 or 16 bytes, one `cp.async`
    ///   per vector;
    /// - otherwise (columns, or vectors of other sizes) one `cp.async` per element of 4, 8 or
    ///   16 bytes, through the element layouts;
    /// - elements of 1 or 2 bytes outside whole vectors are copied synchronously (`cp.async`
    ///   moves 4 bytes or more).
    ///
    /// Nothing is committed or waited for: call [`async_copy_wait_all`](crate::async_copy_wait_all)
    /// before reading `self`, and a block barrier before other threads read it.
    ///
    /// # Panics
    /// When the numbers of vectors differ.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{async_copy_wait_all, static_layout, LayoutTensor, Shared, Static};
    /// static_layout!(G = "(8,4):(4,1)");
    /// static_layout!(Col4 = "(4,1)");
    /// static_layout!(Threads = "(1,4):(1,1)");
    /// let mut g: Vec<f32> = (0..32).map(|i| i as f32).collect();
    /// let mut s = vec![0f32; 32];
    /// let global = LayoutTensor::new(&mut g, Static::<G>::new()).unwrap().vectorize_by::<Col4, 4>();
    /// let shared = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(s.as_mut_ptr(), Static::<G>::new()) }.vectorize_by::<Col4, 4>();
    /// for tid in 0..4 {
    ///     shared.distribute::<Threads, 2>(tid).copy_from_async(&global.distribute::<Threads, 2>(tid));
    /// }
    /// async_copy_wait_all();
    /// assert_eq!(s, g);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn copy_from_async<O2: LayoutSource, E2: LayoutSource>(&self, src: &VectorizedTensor<'_, T, N, O2, E2, Global>) {
        assert!(self.size() == src.size(), "copy_from_async: {} vectors into {}", src.size(), self.size());
        let size = core::mem::size_of::<T>();
        if self.is_vector_access() && src.is_vector_access() {
            match N * size {
                16 => return self.vectors_async::<16, O2, E2>(src),
                8 => return self.vectors_async::<8, O2, E2>(src),
                4 => return self.vectors_async::<4, O2, E2>(src),
                _ => {}
            }
        }
        match size {
            16 => self.elements_async::<16, O2, E2>(src),
            8 => self.elements_async::<8, O2, E2>(src),
            4 => self.elements_async::<4, O2, E2>(src),
            _ => self.copy_from(src),
        }
    }

    /// One `cp.async` of `BYTES` per vector (both views' vectors single aligned accesses).
    #[inline(always)]
    fn vectors_async<const BYTES: u32, O2: LayoutSource, E2: LayoutSource>(&self, src: &VectorizedTensor<'_, T, N, O2, E2, Global>) {
        for i in 0..self.size() {
            // SAFETY: both vectors are `BYTES` contiguous, aligned bytes of their tensors
            // (`is_vector_access`), `self`'s in shared memory.
            unsafe { issue::<BYTES>(self.ptr_at(i) as *mut u8, src.ptr_at(i) as *const u8, BYTES, true) };
        }
    }

    /// One `cp.async` of `BYTES == size_of::<T>()` per element.
    #[inline(always)]
    fn elements_async<const BYTES: u32, O2: LayoutSource, E2: LayoutSource>(&self, src: &VectorizedTensor<'_, T, N, O2, E2, Global>) {
        for i in 0..self.size() {
            for j in 0..N {
                // SAFETY: elements of the two tensors, aligned to their size (4, 8 or 16 bytes).
                unsafe { issue::<BYTES>(self.element_ptr(i, j) as *mut u8, src.element_ptr(i, j) as *const u8, BYTES, true) };
            }
        }
    }
}

/// The thread's share ([`distribute`](VectorizedTensor::distribute) by `Th`) of a
/// [`StaticVectorized`](crate::vectorized::StaticVectorized): a name for kernels' helper
/// functions.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, vectorized::StaticVectorized, vectorized_copy::DistributedVectors};
/// static_layout!(M = "(8,8):(8,1)");
/// static_layout!(Col4 = "(4,1)");
/// static_layout!(Threads = "(2,8):(8,1)");
/// fn first(v: DistributedVectors<'_, f32, M, Col4, Threads, 4>) -> f32 { v.get(0).0[0] }
/// let mut data: Vec<f32> = (0..64).map(|i| i as f32).collect();
/// let t = cute_rs_tensor::LayoutTensor::new(&mut data, cute_rs_tensor::Static::<M>::new()).unwrap();
/// let v: StaticVectorized<'_, f32, M, Col4, 4> = t.vectorize_by::<Col4, 4>();
/// assert_eq!(first(v.distribute::<Threads, 2>(9)), 33.0); // thread 9: rows 4..8 of column 1
/// ```
pub type DistributedVectors<'a, T, S, V, Th, const N: usize, A = Global> = VectorizedTensor<
    'a,
    T,
    N,
    Static<Partition<crate::static_layout::TileRest<S, V>, Th>>,
    Static<crate::static_layout::TileOf<S, V>>,
    A,
>;
