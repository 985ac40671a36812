//! Typed kernel arguments: what the host may pass for each parameter type of a kernel
//! ([`KernelParam`]), and a launch's whole argument list as a tuple ([`KernelArgs`]).
//!
//! A kernel's parameter types come from its signature through its
//! [`KernelFn`](cute_rs_tensor::KernelFn) (written by `#[kernel]`), so a wrong type or a wrong
//! number of arguments does not compile:
//!
//! | kernel parameter | argument |
//! | --- | --- |
//! | `*const T` | `&DeviceBuffer<T>` or `&mut DeviceBuffer<T>` |
//! | `*mut T` | `&mut DeviceBuffer<T>` |
//! | `*const u16` / `*mut u16` | also a buffer of `bf16` or `f16` (16-bit floats as their bits) |
//! | `*const [T; N]`, `*const Vector<T, N>` (and `*mut`) | a buffer of `T` whose length and address suit `N`-vectors (checked) |
//! | `*const TmaDescriptor` | the 128-byte buffer of [`Gpu::upload_tensor_map`](crate::Gpu::upload_tensor_map) (checked) |
//! | `TmaDescriptorParam` (a grid constant) | a [`TensorMap`](crate::TensorMap) (or `&TensorMap`), passed in the launch's parameters |
//! | `LayoutTensor<T, L>` (`L` a [`KernelLayout`](cute_rs_tensor::kernel::KernelLayout): `Static` or `Strided`), read | a [`DeviceTensor`](crate::DeviceTensor) (`buffer.tensor(layout)`: a buffer with a layout that fits in it, checked) or a [`DeviceTensorMut`](crate::DeviceTensorMut) |
//! | `LayoutTensorMut<T, L>`, written | a [`DeviceTensorMut`](crate::DeviceTensorMut) (`buffer.tensor_mut(layout)`: an exclusive borrow, checked likewise) |
//! | `u8` ... `u64`, `i8` ... `i64`, `usize`, `isize`, `f32`, `f64`, `bool` | a value of the same type |
//! | `*const T`, `*mut T` | also a raw pointer of the same type (unchecked: for library code that checked its buffers) |
//! | a `#[repr(C)]` parameter struct (a [`KernelValue`]) | a value of the same type |
//!
//! A wrong argument type does not compile:
//! ```compile_fail
//! # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module, k: cute_rs_host::KernelFn<(*const f32, u32)>) {
//! let wrong = gpu.alloc::<u32>(16).unwrap();
//! // A buffer of u32 for a `*const f32`:
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (&wrong, 16u32));
//! # }
//! ```
//! nor a missing argument:
//! ```compile_fail
//! # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module, k: cute_rs_host::KernelFn<(*const f32, u32)>) {
//! let x = gpu.alloc::<f32>(16).unwrap();
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (&x,));
//! # }
//! ```
//! nor a shared buffer for a `*mut` parameter:
//! ```compile_fail
//! # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module, k: cute_rs_host::KernelFn<(*mut f32,)>) {
//! let y = gpu.alloc::<f32>(16).unwrap();
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (&y,));
//! # }
//! ```
//! nor a shared tensor for a tensor the kernel writes:
//! ```compile_fail
//! # use cute_rs_tensor::{LayoutTensor, LayoutTensorMut, Strided};
//! # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module,
//! #      k: cute_rs_host::KernelFn<(LayoutTensor<'static, f32, Strided<1>>, LayoutTensorMut<'static, f32, Strided<1>>)>) {
//! let x = gpu.alloc::<f32>(16).unwrap();
//! let y = gpu.alloc::<f32>(16).unwrap();
//! let l = Strided::row_major([16]);
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (x.tensor(l).unwrap(), y.tensor(l).unwrap()));
//! # }
//! ```
//! nor one buffer both read and written:
//! ```compile_fail
//! # use cute_rs_tensor::{LayoutTensor, LayoutTensorMut, Strided};
//! # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module,
//! #      k: cute_rs_host::KernelFn<(LayoutTensor<'static, f32, Strided<1>>, LayoutTensorMut<'static, f32, Strided<1>>)>) {
//! let mut y = gpu.alloc::<f32>(16).unwrap();
//! let l = Strided::row_major([16]);
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (y.tensor(l).unwrap(), y.tensor_mut(l).unwrap()));
//! # }
//! ```
//! while the right ones do:
//! ```
//! # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module, k: cute_rs_host::KernelFn<(*const f32, *mut f32, u32)>) {
//! let x = gpu.alloc::<f32>(16).unwrap();
//! let mut y = gpu.alloc::<f32>(16).unwrap();
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (&x, &mut y, 16u32));
//! # }
//! # use cute_rs_tensor::{LayoutTensor, LayoutTensorMut, Strided};
//! # fn g(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module,
//! #      k: cute_rs_host::KernelFn<(LayoutTensor<'static, f32, Strided<1>>, LayoutTensorMut<'static, f32, Strided<1>>)>) {
//! let x = gpu.alloc::<f32>(16).unwrap();
//! let mut y = gpu.alloc::<f32>(16).unwrap();
//! let l = Strided::row_major([16]);
//! let _ = gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 16), (x.tensor(l).unwrap(), y.tensor_mut(l).unwrap()));
//! # }
//! ```

use std::any::Any;
use std::ffi::c_void;

use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::kernel::KernelValue;
use cute_rs_tensor::tensor::Vector;
use cute_rs_tensor::LayoutSource;

use crate::error::invalid;
use crate::{DeviceBuffer, DeviceElem, Result};

/// A host value that can be passed for a kernel parameter of type `P`.
///
/// The conversion may check what the types cannot (a tensor's layout fits in its buffer, a buffer
/// of `f32` viewed as 4-vectors is 16-byte aligned) and fails with a named error.
///
/// # Example
/// ```
/// use cute_rs_host::{Gpu, KernelParam};
/// let cpu = Gpu::cpu();
/// let x = cpu.upload(&[1.0f32, 2.0])?;
/// let p: *const f32 = (&x).to_param()?;
/// assert_eq!(p as u64, x.device_ptr());
/// assert_eq!(KernelParam::<u32>::to_param(7u32)?, 7);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter of type `{P}`",
    label = "the kernel's parameter here is a `{P}`",
    note = "a `*const T` parameter takes a `&DeviceBuffer<T>`, a `*mut T` one a `&mut DeviceBuffer<T>`, a `LayoutTensor` one `buffer.tensor(layout)`, a `LayoutTensorMut` (a tensor the kernel writes) `buffer.tensor_mut(layout)`, a scalar one a value of its type"
)]
pub trait KernelParam<P> {
    /// The value the kernel receives.
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) naming the condition a value of the
    /// right type still violates.
    fn to_param(self) -> Result<P>;
}

/// A value of the parameter's own type (a [`KernelValue`]: a scalar, a raw pointer, a kernel's
/// `#[repr(C)]` parameter struct), passed bit for bit. A raw pointer is unchecked: for library
/// code that checked its buffers itself (a typed launch cannot check what it points at).
///
/// # Example
/// ```
/// use cute_rs_host::KernelParam;
/// #[repr(C)]
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Scale {
///     factor: f32,
///     n: u32,
/// }
/// // SAFETY: `#[repr(C)]`, two scalars.
/// unsafe impl cute_rs_tensor::kernel::KernelValue for Scale {}
/// let p = Scale { factor: 0.5, n: 8 };
/// assert_eq!(p.to_param()?, p);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
impl<P: KernelValue> KernelParam<P> for P {
    fn to_param(self) -> Result<P> {
        Ok(self)
    }
}

impl<T: DeviceElem> KernelParam<*const T> for &DeviceBuffer<T> {
    fn to_param(self) -> Result<*const T> {
        Ok(self.device_ptr() as *const T)
    }
}

impl<T: DeviceElem> KernelParam<*const T> for &mut DeviceBuffer<T> {
    fn to_param(self) -> Result<*const T> {
        Ok(self.device_ptr() as *const T)
    }
}

impl<T: DeviceElem> KernelParam<*mut T> for &mut DeviceBuffer<T> {
    fn to_param(self) -> Result<*mut T> {
        Ok(self.device_ptr() as *mut T)
    }
}

macro_rules! half_bits {
    ($($t:ty),*) => {
        $(
            impl KernelParam<*const u16> for &DeviceBuffer<$t> {
                fn to_param(self) -> Result<*const u16> {
                    Ok(self.device_ptr() as *const u16)
                }
            }
            impl KernelParam<*const u16> for &mut DeviceBuffer<$t> {
                fn to_param(self) -> Result<*const u16> {
                    Ok(self.device_ptr() as *const u16)
                }
            }
            impl KernelParam<*mut u16> for &mut DeviceBuffer<$t> {
                fn to_param(self) -> Result<*mut u16> {
                    Ok(self.device_ptr() as *mut u16)
                }
            }
        )*
    };
}
half_bits!(bf16, f16);

/// The address of `buf` viewed as `N`-vectors of `T`, after checking that its length is a multiple
/// of `N` and its address is aligned to the vector type `V`.
fn vectors<T: DeviceElem, V>(buf: &DeviceBuffer<T>, n: usize) -> Result<u64> {
    if !buf.len().is_multiple_of(n) {
        invalid!(
            "vector argument: a buffer of {} {} elements is not a whole number of {n}-element vectors",
            buf.len(),
            T::NAME
        );
    }
    let align = std::mem::align_of::<V>() as u64;
    if !buf.device_ptr().is_multiple_of(align) {
        invalid!(
            "vector argument: the buffer's address {:#x} is not {align}-byte aligned, as {n}-vectors of {} need",
            buf.device_ptr(),
            T::NAME
        );
    }
    Ok(buf.device_ptr())
}

macro_rules! vector_views {
    ($($v:ident),*) => {
        $(
            impl<T: DeviceElem, const N: usize> KernelParam<*const $v!(T, N)> for &DeviceBuffer<T> {
                fn to_param(self) -> Result<*const $v!(T, N)> {
                    vectors::<T, $v!(T, N)>(self, N).map(|p| p as *const $v!(T, N))
                }
            }
            impl<T: DeviceElem, const N: usize> KernelParam<*mut $v!(T, N)> for &mut DeviceBuffer<T> {
                fn to_param(self) -> Result<*mut $v!(T, N)> {
                    vectors::<T, $v!(T, N)>(self, N).map(|p| p as *mut $v!(T, N))
                }
            }
        )*
    };
}
macro_rules! array_of {
    ($t:ty, $n:expr) => { [$t; $n] };
}
macro_rules! vector_of {
    ($t:ty, $n:expr) => { Vector<$t, $n> };
}
vector_views!(array_of, vector_of);

impl KernelParam<*const cute_rs_tensor::device::tma::TmaDescriptor> for &DeviceBuffer<u8> {
    fn to_param(self) -> Result<*const cute_rs_tensor::device::tma::TmaDescriptor> {
        if self.len() != 128 || !self.device_ptr().is_multiple_of(64) {
            invalid!(
                "tensor map argument: a `*const TmaDescriptor` takes the 128-byte, 64-byte aligned buffer that \
                 `Gpu::upload_tensor_map` makes; this buffer holds {} bytes at {:#x}",
                self.len(),
                self.device_ptr()
            );
        }
        Ok(self.device_ptr() as *const cute_rs_tensor::device::tma::TmaDescriptor)
    }
}

/// A tensor map passed by value, for a `TmaDescriptorParam` parameter: the kernel's TMA reads it from the
/// launch's parameters (a grid constant, CUDA's `__grid_constant__`), so no device buffer holds it
/// and nothing has to outlive the launch.
///
/// # Example
/// ```
/// use cute_rs_host::{Gpu, KernelParam, TmaOobFill, TmaSwizzle};
/// use cute_rs_tensor::device::tma::TmaDescriptorParam;
/// let cpu = Gpu::cpu();
/// let x = cpu.alloc::<f32>(64 * 64)?;
/// let map = cpu.tensor_map(&x, cute_rs_layout::Layout::parse("(64,64):(1,64)").unwrap(), &[32, 32], TmaSwizzle::B128, TmaOobFill::Zero)?;
/// let p: TmaDescriptorParam = (&map).to_param()?;
/// assert_eq!(p.bytes, map.bytes);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
impl KernelParam<cute_rs_tensor::device::tma::TmaDescriptorParam> for &crate::TensorMap {
    fn to_param(self) -> Result<cute_rs_tensor::device::tma::TmaDescriptorParam> {
        Ok(cute_rs_tensor::device::tma::TmaDescriptorParam { bytes: self.bytes })
    }
}

/// A tensor map passed by value (see the `&TensorMap` case).
impl KernelParam<cute_rs_tensor::device::tma::TmaDescriptorParam> for crate::TensorMap {
    fn to_param(self) -> Result<cute_rs_tensor::device::tma::TmaDescriptorParam> {
        (&self).to_param()
    }
}

/// A buffer seen through a layout, for a kernel parameter of type `LayoutTensor<T, L>`: made by
/// [`DeviceBuffer::tensor`], which checks that every offset of the layout lies in the buffer.
///
/// # Example
/// ```
/// use cute_rs_tensor::{LayoutTensor, Static};
/// let cpu = cute_rs_host::Gpu::cpu();
/// let buf = cpu.alloc::<f32>(32)?;
/// let t = buf.tensor(cute_rs_layout::Layout::parse("(4,8):(8,1)").unwrap())?;
/// assert_eq!(t.layout().size(), 32);
/// // A layout reaching past the buffer is refused by name:
/// let e = buf.tensor(cute_rs_layout::Layout::parse("(4,8):(9,1)").unwrap()).unwrap_err();
/// assert!(e.to_string().contains("cosize 35"), "{e}");
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct DeviceTensor<'a, T: DeviceElem, L: LayoutSource> {
    buffer: &'a DeviceBuffer<T>,
    layout: L,
}

impl<'a, T: DeviceElem, L: LayoutSource> DeviceTensor<'a, T, L> {
    /// The layout.
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let buf = cpu.alloc::<f32>(8)?;
    /// let t = buf.tensor(cute_rs_tensor::Strided::row_major([2, 4]))?;
    /// assert_eq!(t.layout().shape, [2, 4]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The buffer.
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let buf = cpu.alloc::<f32>(8)?;
    /// let t = buf.tensor(cute_rs_tensor::Strided::row_major([2, 4]))?;
    /// assert_eq!(t.buffer().device_ptr(), buf.device_ptr());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn buffer(&self) -> &'a DeviceBuffer<T> {
        self.buffer
    }
}

impl<T: DeviceElem> DeviceBuffer<T> {
    /// This buffer seen through `layout`, to pass for a kernel's `LayoutTensor<T, L>` parameter.
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) when a negative stride or the layout's
    /// cosize reaches outside the buffer.
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let buf = cpu.alloc::<u32>(8)?;
    /// assert!(buf.tensor(cute_rs_layout::Layout::parse("8:1").unwrap()).is_ok());
    /// assert!(buf.tensor(cute_rs_layout::Layout::parse("9:1").unwrap()).is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn tensor<L: LayoutSource>(&self, layout: L) -> Result<DeviceTensor<'_, T, L>> {
        self.check_layout(&layout)?;
        Ok(DeviceTensor { buffer: self, layout })
    }

    /// This buffer seen through `layout`, borrowed to be written: for a kernel's
    /// `LayoutTensorMut<T, L>` parameter (a tensor it writes; also accepted where it reads a
    /// `LayoutTensor<T, L>`), or an output of a call taking tensors (a GEMM's D).
    ///
    /// # Errors
    /// As [`tensor`](DeviceBuffer::tensor).
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let mut buf = cpu.alloc::<u32>(8)?;
    /// let t = buf.tensor_mut(cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap())?;
    /// assert_eq!(t.layout().size(), 8);
    /// assert!(buf.tensor_mut(cute_rs_layout::Layout::parse("(2,4):(5,1)").unwrap()).is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn tensor_mut<L: LayoutSource>(&mut self, layout: L) -> Result<DeviceTensorMut<'_, T, L>> {
        self.check_layout(&layout)?;
        Ok(DeviceTensorMut { buffer: self, layout })
    }

    /// Checks that every offset of `layout` lies in the buffer.
    fn check_layout<L: LayoutSource>(&self, layout: &L) -> Result<()> {
        let l = layout.layout();
        if l.size() == 0 {
            return Ok(());
        }
        // The smallest and largest offsets: each mode at 0 or at its last index.
        let (shape, stride) = (l.shape(), l.stride());
        let (mut low, mut high) = (0i64, 0i64);
        for (&n, &d) in shape.leaves().iter().zip(stride.leaves()) {
            let reach = (n - 1) * d;
            if reach < 0 {
                low += reach;
            } else {
                high += reach;
            }
        }
        // A source that moves offsets (a swizzle, an origin) reaches further than its inner
        // layout: take its own first offset and cosize where the strides leave them meaningful.
        if low >= 0 {
            low = low.min(layout.offset(0));
            high = high.max(layout.cosize() - 1);
        }
        if low < 0 {
            invalid!("tensor argument: layout {l} reaches offset {low}, below the buffer's start");
        }
        if high as usize >= self.len() {
            invalid!(
                "tensor argument: layout {l} has cosize {}, more than the buffer's {} {} elements",
                high + 1,
                self.len(),
                T::NAME
            );
        }
        Ok(())
    }
}

/// A buffer seen through a layout, borrowed to be written: made by [`DeviceBuffer::tensor_mut`],
/// which checks that every offset of the layout lies in the buffer.
///
/// # Example
/// ```
/// let cpu = cute_rs_host::Gpu::cpu();
/// let mut buf = cpu.alloc::<f32>(6)?;
/// let t = buf.tensor_mut(cute_rs_layout::Layout::parse("(2,3):(1,2)").unwrap())?;
/// assert_eq!(t.layout().to_string(), "(2,3):(1,2)");
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug)]
pub struct DeviceTensorMut<'a, T: DeviceElem, L: LayoutSource> {
    buffer: &'a mut DeviceBuffer<T>,
    layout: L,
}

impl<'a, T: DeviceElem, L: LayoutSource> DeviceTensorMut<'a, T, L> {
    /// The layout.
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let mut buf = cpu.alloc::<f32>(8)?;
    /// let t = buf.tensor_mut(cute_rs_tensor::Strided::row_major([2, 4]))?;
    /// assert_eq!(t.layout().shape, [2, 4]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The buffer.
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let mut buf = cpu.alloc::<f32>(8)?;
    /// let len = buf.len();
    /// let mut t = buf.tensor_mut(cute_rs_tensor::Strided::row_major([2, 4]))?;
    /// assert_eq!(t.buffer().len(), len);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn buffer(&mut self) -> &mut DeviceBuffer<T> {
        self.buffer
    }

    /// The buffer, to read its address or length.
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let mut buf = cpu.alloc::<f32>(8)?;
    /// let t = buf.tensor_mut(cute_rs_tensor::Strided::row_major([2, 4]))?;
    /// assert_eq!(t.as_buffer().len(), 8);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn as_buffer(&self) -> &DeviceBuffer<T> {
        self.buffer
    }
}

impl<T: DeviceElem + cute_rs_tensor::Element, L: cute_rs_tensor::kernel::KernelLayout> KernelParam<cute_rs_tensor::LayoutTensor<'static, T, L>>
    for DeviceTensor<'_, T, L>
{
    fn to_param(self) -> Result<cute_rs_tensor::LayoutTensor<'static, T, L>> {
        // SAFETY: a pointer into device memory, which only the kernel dereferences; the layout was
        // checked to stay in the buffer.
        Ok(unsafe { cute_rs_tensor::LayoutTensor::from_ptr(self.buffer.device_ptr() as *mut T, self.layout) })
    }
}

/// A tensor borrowed to be written may also be read.
impl<T: DeviceElem + cute_rs_tensor::Element, L: cute_rs_tensor::kernel::KernelLayout> KernelParam<cute_rs_tensor::LayoutTensor<'static, T, L>>
    for DeviceTensorMut<'_, T, L>
{
    fn to_param(self) -> Result<cute_rs_tensor::LayoutTensor<'static, T, L>> {
        // SAFETY: as for a `DeviceTensor`.
        Ok(unsafe { cute_rs_tensor::LayoutTensor::from_ptr(self.buffer.device_ptr() as *mut T, self.layout) })
    }
}

/// Only an exclusive borrow of its buffer gives a tensor the kernel writes.
impl<T: DeviceElem + cute_rs_tensor::Element, L: cute_rs_tensor::kernel::KernelLayout> KernelParam<cute_rs_tensor::LayoutTensorMut<'static, T, L>>
    for DeviceTensorMut<'_, T, L>
{
    fn to_param(self) -> Result<cute_rs_tensor::LayoutTensorMut<'static, T, L>> {
        // SAFETY: as for a `DeviceTensor`; the buffer is borrowed exclusively until the launch's
        // arguments are converted, so no other argument of the launch views it.
        Ok(unsafe { cute_rs_tensor::LayoutTensorMut::from_ptr(self.buffer.device_ptr() as *mut T, self.layout) })
    }
}

/// One converted kernel argument, kept alive until the launch is done with its bytes (what
/// [`KernelArgs`] produces; opaque).
#[doc(hidden)]
pub struct ParamValue {
    value: Box<dyn Any>,
    size: usize,
    what: &'static str,
}

impl ParamValue {
    fn new<P: 'static>(p: P) -> ParamValue {
        ParamValue { value: Box::new(p), size: std::mem::size_of::<P>(), what: std::any::type_name::<P>() }
    }

    /// The address of the value's bytes (stable: the value is boxed).
    pub(crate) fn ptr(&self) -> *const c_void {
        &*self.value as *const dyn Any as *const c_void
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    pub(crate) fn what(&self) -> &'static str {
        self.what
    }
}

/// A launch's arguments for a kernel whose parameters are the tuple `P`: a tuple of the same
/// length whose elements are [`KernelParam`]s of the parameters' types.
///
/// # Example
/// ```
/// use cute_rs_host::KernelArgs;
/// let cpu = cute_rs_host::Gpu::cpu();
/// let mut y = cpu.alloc::<f32>(4)?;
/// let args = <(f32, &mut cute_rs_host::DeviceBuffer<f32>, u32) as KernelArgs<(f32, *mut f32, u32)>>::count();
/// assert_eq!(args, 3);
/// # let _ = &mut y;
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "these arguments do not match the kernel's parameters `{P}`",
    label = "arguments for a kernel taking `{P}`",
    note = "pass a tuple with one argument per parameter, in order: `(a,)` for one parameter, `()` for none"
)]
pub trait KernelArgs<P> {
    /// The number of arguments.
    fn count() -> usize;
    /// The converted values, in order.
    #[doc(hidden)]
    fn into_values(self) -> Result<Vec<ParamValue>>;
}

macro_rules! tuple_args {
    ($(($($p:ident $a:ident $v:ident),*))*) => {
        $(
            impl<$($p: 'static, $a: KernelParam<$p>),*> KernelArgs<($($p,)*)> for ($($a,)*) {
                fn count() -> usize {
                    <[&str]>::len(&[$(stringify!($p)),*])
                }
                #[allow(unused_variables, non_snake_case)]
                fn into_values(self) -> Result<Vec<ParamValue>> {
                    let ($($v,)*) = self;
                    Ok(vec![$(ParamValue::new::<$p>($v.to_param()?)),*])
                }
            }
        )*
    };
}
tuple_args! {
    ()
    (P0 A0 a0)
    (P0 A0 a0, P1 A1 a1)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13, P14 A14 a14)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13, P14 A14 a14, P15 A15 a15)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13, P14 A14 a14, P15 A15 a15, P16 A16 a16)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13, P14 A14 a14, P15 A15 a15, P16 A16 a16, P17 A17 a17)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13, P14 A14 a14, P15 A15 a15, P16 A16 a16, P17 A17 a17, P18 A18 a18)
    (P0 A0 a0, P1 A1 a1, P2 A2 a2, P3 A3 a3, P4 A4 a4, P5 A5 a5, P6 A6 a6, P7 A7 a7, P8 A8 a8, P9 A9 a9,
     P10 A10 a10, P11 A11 a11, P12 A12 a12, P13 A13 a13, P14 A14 a14, P15 A15 a15, P16 A16 a16, P17 A17 a17, P18 A18 a18, P19 A19 a19)
}
