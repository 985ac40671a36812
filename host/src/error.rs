//! [`HostError`], the one error type of the host runtime, and the [`Result`] alias.

use std::fmt;

use cudarc::driver::result::DriverError;

/// Every failure of the host runtime, naming the CUDA call (and the kernel) that failed.
///
/// # Example
/// ```
/// use cute_rs_host::HostError;
/// let e = HostError::Cuda {
///     call: "cuLaunchKernel".into(),
///     kernel: Some("vector_copy".into()),
///     message: "CUDA_ERROR_INVALID_VALUE: invalid argument".into(),
/// };
/// assert_eq!(
///     e.to_string(),
///     "cuLaunchKernel failed (kernel `vector_copy`): CUDA_ERROR_INVALID_VALUE: invalid argument"
/// );
/// assert_eq!(HostError::Invalid("block (0, 1, 1)".into()).to_string(), "invalid: block (0, 1, 1)");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum HostError {
    /// No usable GPU: the driver library is missing or no device is present (GPU tests skip on this).
    NoGpu(String),
    /// A CUDA driver call failed: the call, the kernel name if any, and CUDA's message.
    ///
    /// `kernel` is the kernel being launched for a launch, and for an error that surfaces later on
    /// the stream (a synchronization, a download: CUDA reports a kernel's fault there), the kernels
    /// launched since the stream was last synchronized, comma-separated.
    Cuda {
        /// The driver call (`cuLaunchKernel`, `cuStreamSynchronize`, ...).
        call: String,
        /// The kernel concerned, if any.
        kernel: Option<String>,
        /// CUDA's error name and description, and the details of the call.
        message: String,
    },
    /// A launch configuration, copy or tensor map was rejected before reaching CUDA.
    Invalid(String),
    /// A kernel failed on the CPU backend: its name and what happened (the block and thread that
    /// panicked, or the barrier that deadlocked, ...).
    Kernel {
        /// The kernel's name.
        kernel: String,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::NoGpu(why) => write!(f, "no GPU: {why}"),
            HostError::Cuda { call, kernel: Some(k), message } => {
                write!(f, "{call} failed (kernel `{k}`): {message}")
            }
            HostError::Cuda { call, kernel: None, message } => write!(f, "{call} failed: {message}"),
            HostError::Invalid(why) => write!(f, "invalid: {why}"),
            HostError::Kernel { kernel, message } => write!(f, "kernel `{kernel}` failed on the CPU backend: {message}"),
        }
    }
}

impl std::error::Error for HostError {}

/// Result of host operations.
///
/// # Example
/// ```
/// fn check(n: usize) -> cute_rs_host::Result<usize> {
///     if n == 0 { Err(cute_rs_host::HostError::Invalid("n must be positive".into())) } else { Ok(n) }
/// }
/// assert!(check(0).is_err());
/// ```
pub type Result<T> = std::result::Result<T, HostError>;

/// `NAME: description` of a CUDA error code, e.g. `CUDA_ERROR_INVALID_VALUE: invalid argument`.
pub(crate) fn driver_message(e: DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    let text = match e.error_string() {
        Ok(s) => format!("{name}: {}", s.to_string_lossy()),
        Err(_) => name,
    };
    if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_ASSERT {
        format!(
            "{text}: a kernel's `device_assert!` failed; the device printed its message, file, line, block and thread on \
             standard error. The context cannot run \
             anything more: create a new `Gpu`"
        )
    } else {
        text
    }
}

/// The [`HostError::Cuda`] for `call` failing with `e`.
pub(crate) fn cuda_err(call: &str, kernel: Option<&str>, e: DriverError) -> HostError {
    HostError::Cuda { call: call.to_string(), kernel: kernel.map(str::to_string), message: driver_message(e) }
}

/// Returns `Err(HostError::Invalid(format!(...)))` from the enclosing function.
macro_rules! invalid {
    ($($t:tt)*) => {
        return Err($crate::HostError::Invalid(format!($($t)*)))
    };
}
pub(crate) use invalid;
