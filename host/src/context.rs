//! The CUDA context shared (through `Arc`) by a [`Gpu`](crate::Gpu) and everything it allocates, so
//! that buffers and modules outliving the `Gpu` value still free into a live context.
//!
//! Loading: cudarc's `dynamic-loading` opens `libcuda` lazily and panics when it is missing (or when
//! a symbol is). [`Context::new`] checks for the library first, then runs the first driver calls
//! under `catch_unwind`, and checks the driver's CUDA version before anything else uses it, so that a
//! machine without a usable driver gives [`HostError::NoGpu`] instead of a panic.

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;

use crate::error::{cuda_err, driver_message};
use crate::{HostError, Result};

/// The oldest driver API version this build works with: cudarc's `cuda-13000` feature binds
/// versioned symbols (`cuEventElapsedTime_v2`, ...) that older drivers lack.
pub(crate) const MIN_DRIVER_VERSION: i32 = 13000;

/// A retained primary context of one device.
pub(crate) struct Context {
    pub(crate) device: sys::CUdevice,
    pub(crate) ctx: sys::CUcontext,
    pub(crate) ordinal: usize,
    pub(crate) driver_version: i32,
    /// The CPU backend: no CUDA context; memory is host memory, kernels run on the host.
    pub(crate) cpu: bool,
}

// The driver API is thread-safe; every entry point binds the context to the calling thread.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

impl Context {
    /// Retains the primary context of device `ordinal`.
    pub(crate) fn new(ordinal: usize) -> Result<Context> {
        // SAFETY: only tries to open the library; nothing is called in it.
        if !unsafe { sys::is_culib_present() } {
            let names = cudarc::get_lib_name_candidates("cuda");
            return Err(HostError::NoGpu(format!(
                "the CUDA driver library could not be loaded (tried libcuda.so, libcuda.so.1 and {} other names; \
                 is an NVIDIA driver installed and on the loader path?)",
                names.len().saturating_sub(2)
            )));
        }
        let first = catch_unwind(AssertUnwindSafe(|| -> std::result::Result<(i32, c_int), (&'static str, DriverError)> {
            let mut version: c_int = 0;
            // SAFETY: plain out-parameter.
            unsafe { sys::cuDriverGetVersion(&mut version) }.result().map_err(|e| ("cuDriverGetVersion", e))?;
            result::init().map_err(|e| ("cuInit", e))?;
            let count = result::device::get_count().map_err(|e| ("cuDeviceGetCount", e))?;
            Ok((version, count))
        }));
        let (version, count) = match first {
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                return Err(HostError::NoGpu(format!("the CUDA driver library is not usable: {what}")));
            }
            Ok(Err((call, e))) => {
                return match e.0 {
                    sys::CUresult::CUDA_ERROR_NO_DEVICE => {
                        Err(HostError::NoGpu(format!("{call}: {} (the driver sees no device)", driver_message(e))))
                    }
                    sys::CUresult::CUDA_ERROR_NOT_INITIALIZED
                    | sys::CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
                    | sys::CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE => {
                        Err(HostError::NoGpu(format!("{call}: {}", driver_message(e))))
                    }
                    _ => Err(cuda_err(call, None, e)),
                };
            }
            Ok(Ok(v)) => v,
        };
        if version < MIN_DRIVER_VERSION {
            return Err(HostError::Cuda {
                call: "cuDriverGetVersion".into(),
                kernel: None,
                message: format!(
                    "the driver supports CUDA {}.{}; the host runtime needs CUDA {}.{} or newer (driver 580+)",
                    version / 1000,
                    version % 1000 / 10,
                    MIN_DRIVER_VERSION / 1000,
                    MIN_DRIVER_VERSION % 1000 / 10
                ),
            });
        }
        if count <= 0 {
            return Err(HostError::NoGpu("the driver sees no CUDA device".into()));
        }
        if ordinal >= count as usize {
            return Err(HostError::NoGpu(format!(
                "device {ordinal} was asked for, but the driver sees {count} device(s) (ordinals 0 to {})",
                count - 1
            )));
        }
        let device = result::device::get(ordinal as c_int).map_err(|e| cuda_err("cuDeviceGet", None, e))?;
        // SAFETY: `device` is a valid device handle.
        let ctx = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| cuda_err("cuDevicePrimaryCtxRetain", None, e))?;
        let c = Context { device, ctx, ordinal, driver_version: version, cpu: false };
        c.bind()?;
        Ok(c)
    }

    /// Makes the context current on the calling thread.
    /// The CPU backend's context.
    pub(crate) fn cpu() -> Context {
        Context { device: 0, ctx: std::ptr::null_mut(), ordinal: 0, driver_version: 0, cpu: true }
    }

    pub(crate) fn bind(&self) -> Result<()> {
        if self.cpu {
            return Ok(());
        }
        // SAFETY: `ctx` is a retained context, alive as long as `self`.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(|e| cuda_err("cuCtxSetCurrent", None, e))
    }

    /// A device attribute.
    pub(crate) fn attribute(&self, attr: sys::CUdevice_attribute) -> Result<i32> {
        // SAFETY: valid device handle.
        unsafe { result::device::get_attribute(self.device, attr) }
            .map_err(|e| cuda_err(&format!("cuDeviceGetAttribute({attr:?})"), None, e))
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.cpu {
            return;
        }
        // SAFETY: retained in `new`, released once.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}
