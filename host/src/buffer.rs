//! [`DeviceBuffer`]: a typed allocation in device memory.

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys;

use crate::context::Context;
use crate::DeviceElem;

/// A typed device allocation of `len` elements.
///
/// Made by [`Gpu::alloc`](crate::Gpu::alloc) or [`Gpu::upload`](crate::Gpu::upload); freed when
/// dropped (`cuMemFree`, which waits for work using it). The allocation is 256-byte aligned. Passed
/// to a kernel with [`Launch::arg`](crate::Launch::arg), it is the device address of its first
/// element (a `*const T`/`*mut T` parameter).
///
/// # Example
/// ```no_run
/// let gpu = cute_rs_host::Gpu::new(0)?;
/// let buf = gpu.upload(&[1.0f32, 2.0, 3.0])?;
/// assert_eq!(buf.len(), 3);
/// assert_eq!(gpu.download(&buf)?, vec![1.0, 2.0, 3.0]);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct DeviceBuffer<T: DeviceElem> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) ctx: Arc<Context>,
    pub(crate) _t: PhantomData<T>,
}

impl<T: DeviceElem> DeviceBuffer<T> {
    /// Number of elements.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// assert_eq!(gpu.alloc::<u32>(1000)?.len(), 1000);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no element.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// assert!(gpu.alloc::<u32>(0)?.is_empty());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// assert_eq!(gpu.alloc::<f64>(10)?.size_bytes(), 80);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn size_bytes(&self) -> usize {
        self.len * std::mem::size_of::<T>()
    }

    /// The device address of the first element (0 for an empty buffer).
    ///
    /// Pass `buf.device_ptr() + offset_bytes` as a `u64` argument to give a kernel a pointer into
    /// the middle of a buffer.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let buf = gpu.alloc::<f32>(256)?;
    /// assert_eq!(buf.device_ptr() % 256, 0);
    /// let second_half: u64 = buf.device_ptr() + 128 * 4;
    /// # let _ = second_half;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }
}

impl<T: DeviceElem> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer<{}>[{}] @ {:#x} (device {})", T::NAME, self.len, self.ptr, self.ctx.ordinal)
    }
}

impl<T: DeviceElem> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.ctx.cpu {
            crate::cpu::free(self.ptr, self.size_bytes());
        } else if self.ptr != 0 && self.ctx.bind().is_ok() {
            // SAFETY: allocated by `cuMemAlloc` in this context, freed once. Errors (a context in an
            // error state after a kernel fault) cannot be reported from `drop`.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}
