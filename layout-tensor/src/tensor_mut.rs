//! A tensor a kernel writes, as a kernel parameter: [`LayoutTensorMut`].
//!
//! A kernel's signature says which tensors it writes. A [`LayoutTensor`] parameter is read: the
//! host passes it a shared borrow of a buffer (`buffer.tensor(layout)`, or a `tensor_mut`). A
//! `LayoutTensorMut` parameter is written: the host must pass an exclusive borrow
//! (`buffer.tensor_mut(layout)`), so that no other argument of the launch views the same buffer,
//! and a shared one does not compile. It is the rule of `*const T` and `*mut T` parameters, and
//! of the operations' calls (`Matmul::run` takes its D through `tensor_mut`), for tensors.
//!
//! In the kernel's body a `LayoutTensorMut` is its [`LayoutTensor`]: methods reach it through
//! [`Deref`], and `*t` is the tensor itself, to pass to a function (`local_tile(*dst, at)`).
//! It is `#[repr(transparent)]`, so the kernel's parameter has the tensor's bytes.

use core::ops::{Deref, DerefMut};

use cute_rs_layout::Layout;

use crate::{Element, LayoutSource, LayoutTensor};

/// A global-memory tensor that a kernel writes, as a kernel parameter: a [`LayoutTensor`] the host
/// can only give from an exclusive borrow of its buffer.
///
/// # Parameters
/// - `'a`: how long the memory is valid (`'_` in a kernel's signature).
/// - `T`: the element type.
/// - `L`: the layout; for a kernel parameter a
///   [`KernelLayout`](crate::kernel::KernelLayout) ([`Static`](crate::Static) or
///   [`Strided`](crate::Strided)).
///
/// # Constraints
/// The host side (`cute-rs-host`) converts only a `DeviceTensorMut`, made by
/// `DeviceBuffer::tensor_mut`, to this parameter; a `DeviceTensor` (`tensor`) is refused at
/// compile time.
///
/// # Example
/// A kernel that reads `x` and writes `y`, run here on the CPU backend's thread model through its
/// plain body:
/// ```
/// use cute_rs_tensor::device::ids::global_thread_index_x;
/// use cute_rs_tensor::{kernel, LayoutTensor, LayoutTensorMut, Strided};
///
/// /// `y[i] = 2 x[i]` for every `i` of `y`.
/// #[kernel]
/// pub fn double(x: LayoutTensor<'_, f32, Strided<1>>, y: LayoutTensorMut<'_, f32, Strided<1>>) {
///     let i = global_thread_index_x() as i64;
///     if i < y.source().shape[0] {
///         y.set_at([i], 2.0 * x.at([i]));
///     }
/// }
/// # fn main() {
/// # let k = cute_rs_tensor::device::cpu::find_kernel("double").expect("registered");
/// # assert_eq!(k.params.len(), 2);
/// # }
/// ```
#[repr(transparent)]
pub struct LayoutTensorMut<'a, T, L: LayoutSource = Layout>(LayoutTensor<'a, T, L>);

impl<'a, T: Element, L: LayoutSource> LayoutTensorMut<'a, T, L> {
    /// A tensor to be written at `ptr`, through `layout` (what the host's conversion of a
    /// `DeviceTensorMut` makes).
    ///
    /// # Args
    /// - `ptr`: the tensor's base pointer, in global memory.
    /// - `layout`: its layout.
    ///
    /// # Returns
    /// The tensor, whose offsets are `layout`'s from `ptr`.
    ///
    /// # Safety
    /// `ptr + layout(i)` must be valid for reads and writes (and aligned to `T::ALIGN`) for every
    /// index `i` accessed, for `'a`, and nothing else may access that memory meanwhile except
    /// through this tensor.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensorMut, Strided};
    /// let mut v = [0.0f32; 6];
    /// let y = unsafe { LayoutTensorMut::from_ptr(v.as_mut_ptr(), Strided::row_major([2, 3])) };
    /// y.set_at([1, 2], 5.0);
    /// assert_eq!(v[5], 5.0);
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr(ptr: *mut T, layout: L) -> Self {
        // SAFETY: the caller's contract is `LayoutTensor::from_ptr`'s, and more.
        LayoutTensorMut(unsafe { LayoutTensor::from_ptr(ptr, layout) })
    }
}

impl<'a, T, L: LayoutSource> Deref for LayoutTensorMut<'a, T, L> {
    type Target = LayoutTensor<'a, T, L>;

    /// The tensor, to read and write through.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensorMut, Strided};
    /// let mut v = [1.0f32, 2.0, 3.0, 4.0];
    /// let y = unsafe { LayoutTensorMut::from_ptr(v.as_mut_ptr(), Strided::row_major([2, 2])) };
    /// assert_eq!(y.at([1, 0]), 3.0);
    /// let t = *y; // the `LayoutTensor` itself
    /// assert_eq!(t.at([1, 1]), 4.0);
    /// ```
    #[inline(always)]
    fn deref(&self) -> &LayoutTensor<'a, T, L> {
        &self.0
    }
}

impl<'a, T, L: LayoutSource> DerefMut for LayoutTensorMut<'a, T, L> {
    /// The tensor, to replace it by a view (`y[[i]] = v`), or to replace it by a view.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensorMut, Strided};
    /// let mut v = [1.0f32, 2.0];
    /// let mut y = unsafe { LayoutTensorMut::from_ptr(v.as_mut_ptr(), Strided::row_major([2])) };
    /// let t: &mut cute_rs_tensor::LayoutTensor<'_, f32, Strided<1>> = &mut y;
    /// t.set(0, 7.0);
    /// assert_eq!(v[0], 7.0);
    /// ```
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut LayoutTensor<'a, T, L> {
        &mut self.0
    }
}
