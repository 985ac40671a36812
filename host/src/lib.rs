//! Host side of cute-rs: the CUDA runtime (through `cudarc`, loaded dynamically so that the crate
//! builds and runs without CUDA), kernel launches, timing, TMA tensor maps, and host tensors.
//!
//! - [`Gpu`]: a device (its primary context) and a stream. [`Gpu::new`] returns
//!   [`HostError::NoGpu`] (never panics) when the driver library or a device is missing: GPU tests
//!   skip on it. [`Gpu::properties`] gives the [`DeviceProperties`].
//! - Memory: [`Gpu::alloc`], [`Gpu::upload`], [`Gpu::write`], [`Gpu::download`], [`Gpu::memset`],
//!   [`Gpu::copy`] on typed [`DeviceBuffer`]s of [`DeviceElem`] types.
//! - Kernels: [`Gpu::load_module`] loads PTX into a [`Module`]; [`Module::kernel`] gives a
//!   [`Kernel`]; [`Gpu::launch`] builds a [`Launch`] whose arguments ([`KernelArg`]) are appended
//!   with [`Launch::arg`] and which [`Launch::run`] validates (configuration, shared memory, cluster,
//!   argument count and sizes) before launching. [`Gpu::create_stream`] and [`Gpu::launch_on`]
//!   launch on other streams; [`Launch::cluster`] launches thread block clusters.
//! - Timing: [`Gpu::time_ms`] records CUDA events around a closure.
//! - TMA: [`Gpu::tensor_map`] encodes a [`TensorMap`] from a [`layout::Layout`] after
//!   [`tensor_map_params`] checked every condition of `cuTensorMapEncodeTiled`.
//! - Host tensors: [`HostTensor`] (a `Vec` and a layout) with seeded fills, comparison with a
//!   [`Tolerance`] and printing.
//!
//! Every failing CUDA call is a [`HostError::Cuda`] naming the call and the kernel; everything
//! rejected before CUDA is called is a [`HostError::Invalid`] naming the condition and its values.
//!
//! # Example
//! ```no_run
//! use cute_rs_host::{Gpu, HostError, HostTensor, LaunchConfig, Tolerance};
//! use layout::Layout;
//!
//! let gpu = match Gpu::new(0) {
//!     Ok(gpu) => gpu,
//!     Err(HostError::NoGpu(why)) => return Ok(println!("GPU tests skipped: {why}")),
//!     Err(e) => return Err(e),
//! };
//! let module = gpu.load_module(&std::fs::read_to_string("target/ptx/kernels.ptx").unwrap())?;
//! let copy = module.kernel("vector_copy")?;
//! let n = 1 << 20;
//! let mut src = HostTensor::<f32>::new(Layout::parse("1048576:1").unwrap())?;
//! src.fill_random(42);
//! let input = gpu.upload_tensor(&src)?;
//! let mut output = gpu.alloc::<f32>(n)?;
//! gpu.memset(&mut output, 0xff)?; // poison
//! let ms = gpu.time_ms(|| unsafe {
//!     gpu.launch(&copy, LaunchConfig::for_items(n, 256)).arg(&input).arg(&output).run()
//! })?;
//! let got = gpu.download_tensor(&output, src.layout())?;
//! got.compare(&src, Tolerance::EXACT).map_err(|e| HostError::Invalid(e.to_string()))?;
//! println!("{:.1} GB/s", 8.0 * n as f64 / (ms as f64 * 1e6));
//! # Ok::<(), HostError>(())
//! ```

#![warn(missing_docs)]

mod buffer;
mod context;
mod cpu;
mod elem;
mod error;
mod gpu;
mod host_tensor;
mod launch;
mod module;
mod tensor_map;

pub use buffer::DeviceBuffer;
pub use elem::{DeviceElem, Numeric, TmaDataType};
pub use error::{HostError, Result};
pub use gpu::{DeviceProperties, Gpu, Stream};
pub use host_tensor::{CompareError, HostTensor, Rng, Tolerance};
pub use launch::{validate, validate_launch, KernelArg, KernelLimits, Launch, LaunchConfig, LaunchPlan, MAX_CLUSTER_BLOCKS};
pub use layout_tensor::device::cpu::Schedule;
pub use module::{ptx_entry_names, Kernel, KernelAttributes, Module, ModuleSource};
pub use tensor_map::{
    tensor_map_params, TensorMap, TensorMapParams, TmaOobFill, TmaSwizzle, TMA_MAX_BOX_DIM, TMA_MAX_GLOBAL_DIM,
    TMA_MAX_RANK, TMA_MAX_STRIDE_BYTES,
};
