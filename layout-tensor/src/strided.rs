//! [`Strided`]: a flat layout of fixed rank whose extents and strides are run-time values, for
//! tensors whose sizes come from kernel arguments.
//!
//! A run-time [`Layout`] holds any nesting, so evaluating it in a kernel walks arrays of leaves
//! (loops, divisions, and often local memory). Most kernel arguments are plainer: an `M x N`
//! matrix with a leading dimension. `Strided<R>` is CuTe's layout of dynamic integers with a static
//! structure (`make_layout(make_shape(m, n), make_stride(n, _1{}))`): its rank is a type parameter,
//! so `offset_at([i, j])` is `i * stride[0] + j * stride[1]`, a multiply-add, and the tensor
//! lives in registers. Use a [`Static`](crate::Static) layout when the sizes are known at compile
//! time (everything folds to constants), `Strided` for sizes known at launch, and a run-time
//! [`Layout`] for nested layouts built on the host.
//!
//! ```
//! use cute_rs_tensor::{LayoutTensor, Strided};
//! let mut v: Vec<f32> = (0..12).map(|x| x as f32).collect();
//! let m = LayoutTensor::new(&mut v, Strided::row_major([3, 4])).unwrap(); // 3 x 4, row-major
//! assert_eq!(m.at([1, 2]), 6.0);
//! assert_eq!(m.size(), 12);
//! assert_eq!(m.layout().to_string(), "(3,4):(4,1)");
//! ```

use cute_rs_layout::{IntTuple, Layout, LayoutError};

use crate::mask::Full;
use crate::tensor::{AddressSpace, LayoutTensor};

use crate::static_layout::LayoutSource;

/// A rank-`R` layout with run-time extents and strides (see the [module docs](self)).
///
/// # Parameters
/// - `R`: the rank, 1 to [`cute_rs_layout::MAX_LEAVES`].
///
/// # Example
/// ```
/// use cute_rs_tensor::{LayoutSource, Strided};
/// let l = Strided::new([4, 3], [1, 8]); // 4 x 3, column-major with a leading dimension of 8
/// assert_eq!(l.offset_at(&[2, 1]), 10);
/// assert_eq!(l.offset(5), 9); // index 5 is the coordinate (1, 1)
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Strided<const R: usize> {
    /// The extent of each mode.
    pub shape: [i64; R],
    /// The stride of each mode, in elements.
    pub stride: [i64; R],
}

impl<const R: usize> Strided<R> {
    /// The layout `shape:stride`.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_tensor::Strided::new([2, 5], [5, 1]);
    /// assert_eq!(l, cute_rs_tensor::Strided::row_major([2, 5]));
    /// ```
    #[inline(always)]
    pub const fn new(shape: [i64; R], stride: [i64; R]) -> Strided<R> {
        Strided { shape, stride }
    }

    /// The compact row-major layout of `shape`: the last mode has stride 1 (C order).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_tensor::Strided::row_major([2, 3, 4]).stride, [12, 4, 1]);
    /// ```
    #[inline(always)]
    pub const fn row_major(shape: [i64; R]) -> Strided<R> {
        let mut stride = [0; R];
        let mut next = 1;
        let mut k = R;
        while k > 0 {
            k -= 1;
            stride[k] = next;
            next *= shape[k];
        }
        Strided { shape, stride }
    }

    /// The compact column-major layout of `shape`: the first mode has stride 1 (Fortran order,
    /// CuTe's default).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_tensor::Strided::col_major([2, 3, 4]).stride, [1, 2, 6]);
    /// ```
    #[inline(always)]
    pub const fn col_major(shape: [i64; R]) -> Strided<R> {
        let mut stride = [0; R];
        let mut next = 1;
        let mut k = 0;
        while k < R {
            stride[k] = next;
            next *= shape[k];
            k += 1;
        }
        Strided { shape, stride }
    }

    /// The layout with its modes reordered: mode `k` of the result is mode `order[k]` of `self`
    /// (CuTe's `select<order...>`, torch's `permute`). A tile taken from the permuted layout
    /// is cuTile's load with `order`: `order = [1, 0]` is its `"F"`.
    ///
    /// # Returns
    /// The permuted layout, or [`LayoutError::InvalidArgument`] when `order` is not a permutation
    /// of `0..R`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::Strided;
    /// let l = Strided::row_major([2, 3, 4]).permute([0, 2, 1]).unwrap();
    /// assert_eq!((l.shape, l.stride), ([2, 4, 3], [12, 1, 4]));
    /// assert!(Strided::row_major([2, 3]).permute([1, 1]).is_err());
    /// ```
    pub fn permute(&self, order: [usize; R]) -> Result<Strided<R>, LayoutError> {
        if let Some(o) = not_in_permutation(&order, R) {
            return Err(LayoutError::InvalidArgument { op: "permute", condition: "order must be a permutation of 0..rank", value: o as i64 });
        }
        let mut out = *self;
        for (k, &o) in order.iter().enumerate() {
            out.shape[k] = self.shape[o];
            out.stride[k] = self.stride[o];
        }
        Ok(out)
    }

    /// Whether `coord` lies inside the shape: each entry in `0..shape[k]`. Kernels mask the edges
    /// of a tensor with it.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_tensor::Strided::row_major([3, 4]);
    /// assert!(l.contains([2, 3]));
    /// assert!(!l.contains([3, 0]));
    /// ```
    #[inline(always)]
    pub fn contains(&self, coord: [i64; R]) -> bool {
        let mut k = 0;
        while k < R {
            if coord[k] < 0 || coord[k] >= self.shape[k] {
                return false;
            }
            k += 1;
        }
        true
    }
}

impl<const R: usize> LayoutSource for Strided<R> {
    /// The equivalent run-time [`Layout`]. Panics when `R` exceeds [`cute_rs_layout::MAX_LEAVES`] (the
    /// other methods never build it).
    fn layout(&self) -> Layout {
        let tuple = |v: &[i64]| IntTuple::from_slice(v).expect("Strided: rank up to cute_rs_layout::MAX_LEAVES");
        let l = if R == 1 {
            Layout::int(self.shape[0], self.stride[0])
        } else {
            Layout::new(tuple(&self.shape), tuple(&self.stride))
        };
        l.expect("Strided: a shape of positive extents")
    }

    #[inline(always)]
    fn size(&self) -> i64 {
        let mut n = 1;
        let mut k = 0;
        while k < R {
            n *= self.shape[k];
            k += 1;
        }
        n
    }

    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        let (mut i, mut r, mut k) = (i, 0, 0);
        while k + 1 < R {
            r += (i % self.shape[k]) * self.stride[k];
            i /= self.shape[k];
            k += 1;
        }
        r + i * self.stride[R - 1]
    }

    #[inline(always)]
    #[track_caller]
    fn offset_at(&self, coord: &[i64]) -> i64 {
        debug_assert!(coord.len() == R, "a coordinate needs one entry per mode");
        #[cfg(not(target_arch = "nvptx64"))]
        for (k, &c) in coord.iter().enumerate() {
            if !(0..self.shape[k]).contains(&c) {
                crate::tensor::out_of_bounds(format_args!("coordinate {coord:?}: mode {k} has extent {}", self.shape[k]));
            }
        }
        let mut r = 0;
        let mut k = 0;
        while k < R {
            r += coord[k] * self.stride[k];
            k += 1;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `Strided` evaluates exactly as the run-time `Layout` it stands for.
        #[test]
        fn strided_agrees_with_its_layout(shape in proptest::collection::vec(1i64..6, 3), stride in proptest::collection::vec(0i64..40, 3)) {
            let s = Strided::new([shape[0], shape[1], shape[2]], [stride[0], stride[1], stride[2]]);
            let l = s.layout();
            prop_assert_eq!(s.size(), l.size());
            for i in 0..s.size() {
                prop_assert_eq!(s.offset(i), l.call(i));
            }
            let m = s.modes();
            for c0 in 0..shape[0] {
                for c2 in 0..shape[2] {
                    let c = [c0, shape[1] - 1, c2];
                    prop_assert_eq!(s.offset_at(&c), crate::tensor::coord_offset(&l, &m, &c));
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "mode 1 has extent 4")]
    fn out_of_bounds_coordinates_are_reported_on_the_host() {
        Strided::row_major([3, 4]).offset_at(&[0, 4]);
    }
}

impl<'a, T: crate::tensor::Element, A: AddressSpace, const R: usize> LayoutTensor<'a, T, Strided<R>, A, Full> {
    /// The same elements with the modes reordered ([`Strided::permute`]): cuTile's `order` for
    /// a load or store of a tile, `tl.permute` of an array. (A view clipped by
    /// [`Clip`](crate::Clip) bounds keeps its coordinates' order: it has no `permute`.)
    ///
    /// # Returns
    /// The permuted view, or [`LayoutError::InvalidArgument`] when `order` is not a permutation.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensor, Strided};
    /// let mut v: Vec<i32> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, Strided::row_major([2, 3])).unwrap().permute([1, 0]).unwrap();
    /// assert_eq!(t.at([2, 1]), 5); // element (1, 2) of the 2 x 3 matrix
    /// ```
    pub fn permute(self, order: [usize; R]) -> Result<Self, LayoutError> {
        let layout = self.source().permute(order)?;
        // SAFETY: a permutation of the modes addresses the same elements.
        Ok(unsafe { self.with_layout(layout) })
    }
}

/// The first entry of `order` that keeps it from being a permutation of `0..rank` (out of range
/// or repeated), or `None` when it is one: the check of every `order`/`dims` argument (cuTile's
/// `order`, Triton's block-pointer `order`, a block tile's `permute`).
pub(crate) const fn not_in_permutation(order: &[usize], rank: usize) -> Option<usize> {
    let mut seen = 0u64;
    let mut k = 0;
    while k < order.len() {
        let o = order[k];
        if o >= rank || o >= 64 || seen & (1 << o) != 0 {
            return Some(o);
        }
        seen |= 1 << o;
        k += 1;
    }
    if order.len() != rank {
        return Some(rank);
    }
    None
}
