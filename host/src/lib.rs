//! Host side of cute-rs: the CUDA runtime (through `cudarc`, loaded dynamically so that the crate
//! builds and runs without CUDA), kernel launches, timing, TMA tensor maps, and host tensors.
//!
//! API SKELETON (being implemented): signatures are the contract GPU tests are written against.

#![allow(unused_variables)]

use std::fmt;
use std::marker::PhantomData;

/// Every failure of the host runtime, naming the CUDA call (and the kernel) that failed.
#[derive(Debug, Clone, PartialEq)]
pub enum HostError {
    /// No usable GPU: the driver library is missing or no device is present (GPU tests skip on this).
    NoGpu(String),
    /// A CUDA driver call failed: the call, the kernel name if any, and CUDA's message.
    Cuda { call: String, kernel: Option<String>, message: String },
    /// A launch configuration, copy or tensor map was rejected before reaching CUDA.
    Invalid(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for HostError {}

/// Result of host operations.
pub type Result<T> = std::result::Result<T, HostError>;

/// Plain element types that can live in device memory and be passed to kernels.
pub trait DeviceElem: Copy + Default + Send + Sync + 'static {}
impl DeviceElem for u8 {}
impl DeviceElem for i8 {}
impl DeviceElem for u16 {}
impl DeviceElem for i16 {}
impl DeviceElem for u32 {}
impl DeviceElem for i32 {}
impl DeviceElem for u64 {}
impl DeviceElem for i64 {}
impl DeviceElem for f32 {}
impl DeviceElem for f64 {}

/// Properties of the selected device.
#[derive(Debug, Clone)]
pub struct DeviceProperties {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub max_threads_per_block: u32,
    pub max_shared_memory_per_block_optin: u32,
    pub global_memory_bytes: u64,
}

/// A GPU: a context and a stream on one device.
pub struct Gpu {}

/// A typed device allocation of `len` elements.
pub struct DeviceBuffer<T: DeviceElem> {
    _t: PhantomData<T>,
}

/// A loaded PTX module.
pub struct Module {}

/// A kernel function of a module.
pub struct Kernel {}

/// Grid, block and dynamic shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: (u32, u32, u32),
    pub block: (u32, u32, u32),
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D launch of `blocks` blocks of `threads` threads, no dynamic shared memory.
    pub fn linear(blocks: u32, threads: u32) -> LaunchConfig {
        LaunchConfig { grid: (blocks, 1, 1), block: (threads, 1, 1), shared_mem_bytes: 0 }
    }
}

/// A launch being built: arguments in the order of the kernel's parameters.
pub struct Launch<'a> {
    _a: PhantomData<&'a ()>,
}

/// A value that can be passed as a kernel argument (scalars, device buffers as pointers).
pub trait KernelArg {}
impl<T: DeviceElem> KernelArg for DeviceBuffer<T> {}
impl KernelArg for u32 {}
impl KernelArg for i32 {}
impl KernelArg for u64 {}
impl KernelArg for i64 {}
impl KernelArg for f32 {}
impl KernelArg for f64 {}

impl<'a> Launch<'a> {
    /// Appends an argument.
    pub fn arg<A: KernelArg + ?Sized>(self, a: &'a A) -> Self {
        unimplemented!()
    }
    /// Launches on the GPU's stream (asynchronous; errors of the launch itself are returned).
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters, and the kernel must stay in bounds.
    pub unsafe fn run(self) -> Result<()> {
        unimplemented!()
    }
}

impl Gpu {
    /// Device `ordinal`, or `HostError::NoGpu` when there is no driver or no such device.
    pub fn new(ordinal: usize) -> Result<Gpu> {
        Err(HostError::NoGpu("the host runtime is not implemented yet".into()))
    }
    /// The device's properties.
    pub fn properties(&self) -> &DeviceProperties {
        unimplemented!()
    }
    /// Allocates `len` elements (contents unspecified).
    pub fn alloc<T: DeviceElem>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        unimplemented!()
    }
    /// Copies `data` to a new device buffer.
    pub fn upload<T: DeviceElem>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        unimplemented!()
    }
    /// Copies a device buffer back (synchronizes the stream first).
    pub fn download<T: DeviceElem>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        unimplemented!()
    }
    /// Sets every byte of `buf` to `byte` (poisoning outputs before a launch).
    pub fn memset<T: DeviceElem>(&self, buf: &mut DeviceBuffer<T>, byte: u8) -> Result<()> {
        unimplemented!()
    }
    /// Device-to-device copy of `src` into `dst` (same length).
    pub fn copy<T: DeviceElem>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        unimplemented!()
    }
    /// Loads a PTX module (e.g. `cute_rs::KERNELS_PTX`).
    pub fn load_module(&self, ptx: &str) -> Result<Module> {
        unimplemented!()
    }
    /// Starts a launch of `kernel` with `cfg`; the configuration is validated against the device.
    pub fn launch<'a>(&'a self, kernel: &'a Kernel, cfg: LaunchConfig) -> Launch<'a> {
        unimplemented!()
    }
    /// Waits for the stream; returns errors raised by kernels (e.g. a trap).
    pub fn synchronize(&self) -> Result<()> {
        unimplemented!()
    }
    /// Runs `f` between two CUDA events on the stream and returns the elapsed milliseconds.
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f32> {
        unimplemented!()
    }
}

/// A CUDA tensor map (TMA descriptor, 128 bytes, 64-byte aligned), built on the host.
///
/// Rust cannot mark a kernel parameter `__grid_constant__`: kernels read the descriptor from
/// global memory (upload `bytes`) after `fence.proxy.tensormap`.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct TensorMap {
    pub bytes: [u8; 128],
}

/// Shared-memory swizzle of a TMA copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TmaSwizzle {
    None,
    B32,
    B64,
    B128,
}

/// What a TMA load writes for elements outside the global tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TmaOobFill {
    Zero,
    /// NaN (floating-point element types only).
    Nan,
}

impl Gpu {
    /// The tensor map for tiled TMA copies of `buf` seen through `global` (a layout of rank 1 to 5
    /// whose first mode has stride 1; the other strides, in bytes, must be multiples of 16), in boxes
    /// of `box_shape` elements per mode.
    pub fn tensor_map<T: DeviceElem>(
        &self,
        buf: &DeviceBuffer<T>,
        global: layout::Layout,
        box_shape: &[u32],
        swizzle: TmaSwizzle,
        fill: TmaOobFill,
    ) -> Result<TensorMap> {
        unimplemented!()
    }
}

impl Module {
    /// The kernel named `name` (its Rust name in `kernels/`).
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        unimplemented!()
    }
}

impl<T: DeviceElem> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        unimplemented!()
    }
}
