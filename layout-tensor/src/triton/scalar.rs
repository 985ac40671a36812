//! Triton's scalar pointers: `tl.load(ptr)` / `tl.store(ptr, value)` on a single pointer, a 0-d
//! tile ([`Scalar`]) of [`Pointers`] whose loads return a scalar ([`Load::run_scalar`]); mask and
//! `other` are scalars, and block-pointer options do not exist on them (Triton's constraints).

use super::{Broadcast, CacheModifier, EvictionPolicy, Load, LoadMask, Pointers};
use crate::fragment::Fragment;
use crate::mask::Bounds;
use crate::static_layout::LayoutSource;
use crate::tensor::{AddressSpace, Element, LayoutTensor};

crate::static_layout!(
    /// The 0-d tile: one element (`1:0`), the shape of a scalar pointer and of what it loads.
    ///
    /// ```
    /// use cute_rs_tensor::{triton::Scalar, StaticLayout};
    /// assert_eq!(Scalar::SIZE, 1);
    /// ```
    pub Scalar = "1:0"
);

impl<'a, T: Element> Pointers<'a, T, Scalar, 1> {
    /// The single pointer `base + offset` (elements from the tensor's origin): Triton's
    /// `in_ptr + pid`.
    ///
    /// # Safety
    /// Unless every access through it is masked out, `offset` addresses an element of the memory
    /// `base` points into.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_tensor::triton::Pointers;
    /// let mut x = [1.5f32, 2.5, 3.5];
    /// let t = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("3:1").unwrap()).unwrap();
    /// let p = unsafe { Pointers::scalar(&t, 2) };
    /// assert_eq!(p.load().run_scalar(), 3.5);
    /// p.store(0.5f32);
    /// assert_eq!(x, [1.5, 2.5, 0.5]);
    /// ```
    #[inline(always)]
    pub unsafe fn scalar<L: LayoutSource, A: AddressSpace, B: Bounds>(base: &LayoutTensor<'a, T, L, A, B>, offset: isize) -> Self {
        let mut offsets = Fragment::<isize, Scalar, 1>::new();
        offsets.data[0] = offset;
        // SAFETY: forwarded (the caller vouches for the offset).
        unsafe { Pointers::new(base, offsets) }
    }
}

impl<'p, 'a, T: Element, K: LoadMask<Scalar, 1>, O: Broadcast<T, Scalar, 1>, C: CacheModifier, E: EvictionPolicy>
    Load<'p, 'a, T, Scalar, 1, K, O, C, E>
{
    /// Performs a scalar load ([`run`](Load::run) of a 0-d tile): the value, or `other` (zero
    /// without `other`) when masked out, in which case the pointer is not read.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_tensor::triton::{Pointers, Cg};
    /// let mut x = [7i32];
    /// let t = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("1:1").unwrap()).unwrap();
    /// let inside = unsafe { Pointers::scalar(&t, 0) };
    /// let past = unsafe { Pointers::scalar(&t, 1) }; // never read: masked out
    /// assert_eq!(inside.load().mask(true).other(-1).cache_modifier(Cg).run_scalar(), 7);
    /// assert_eq!(past.load().mask(false).other(-1).run_scalar(), -1);
    /// ```
    #[inline(always)]
    pub fn run_scalar(self) -> T {
        self.run().data[0]
    }
}
