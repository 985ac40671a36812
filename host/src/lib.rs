//! Host side of cute-rs: the CUDA runtime (through `cudarc`, loaded dynamically so that the crate
//! builds and runs without CUDA), kernel launches, timing, TMA tensor maps, and host tensors.
//!
//! - [`Gpu`]: a device (its primary context) and a stream. [`Gpu::new`] returns
//!   [`HostError::NoGpu`] (never panics) when the driver library or a device is missing: GPU tests
//!   skip on it. [`Gpu::properties`] gives the [`DeviceProperties`].
//! - Memory: [`Gpu::alloc`], [`Gpu::upload`], [`Gpu::write`], [`Gpu::download`], [`Gpu::memset`],
//!   [`Gpu::copy`] on typed [`DeviceBuffer`]s of [`DeviceElem`] types.
//! - Modules: [`module!`] names the PTX (and cubin) a device crate's build left;
//!   [`Gpu::module`] loads it on first use, from the cubin when there is one for this GPU, and
//!   caches it.
//! - Typed launches: `#[kernel]` gives every kernel a [`KernelFn`] constant of its name and
//!   signature; [`Gpu::launch`] takes it with a tuple of arguments the compiler checks
//!   ([`KernelArgs`], [`KernelParam`]: a `&mut DeviceBuffer<f32>` for a `*mut f32`, a
//!   [`DeviceTensor`] for a `LayoutTensor` it reads, a [`DeviceTensorMut`] for a
//!   `LayoutTensorMut` it writes) and returns a [`Launch`], which [`Launch::run`]
//!   validates (configuration, the kernel's [`LaunchContract`], shared memory, cluster, argument
//!   sizes against the PTX) before launching. [`Launch::on`] picks another [`Stream`];
//!   [`Launch::cluster`] launches thread block clusters. [`Gpu::launch_raw`] launches a kernel
//!   found by name, for hand-written PTX.
//! - Timing: [`Gpu::time_ms`] records CUDA events around a closure.
//! - TMA: [`Gpu::tensor_map`] encodes a [`TensorMap`] from a [`cute_rs_layout::Layout`] after
//!   [`tensor_map_params`] checked every condition of `cuTensorMapEncodeTiled`.
//! - Host tensors: [`HostTensor`] (a `Vec` and a layout, plain or swizzled) with seeded fills,
//!   copies into another layout of the same shape ([`HostTensor::to_layout`]), comparison with a
//!   [`Tolerance`] and printing; [`DeviceTensor::download`] reads a buffer back with the layout
//!   its device tensor holds.
//!
//! Every failing CUDA call is a [`HostError::Cuda`] naming the call and the kernel; everything
//! rejected before CUDA is called is a [`HostError::Invalid`] naming the condition and its values.
//!
//! # Example
//! A device crate defines the kernel (here inline, to run as a test); the host program loads its
//! module and launches it. `Gpu::gpu_or_cpu()` would pick a GPU when there is one: this example
//! runs on the CPU backend, whose module only lists the kernels.
//! ```
//! use cute_rs_host::{Gpu, HostError, HostTensor, LaunchConfig, ModuleSource, Tolerance};
//! use cute_rs_layout::Layout;
//!
//! /// `dst[i] = src[i]` for the grid's threads.
//! #[cute_rs_tensor::kernel(block(256))]
//! pub fn vector_copy(src: *const f32, dst: *mut f32) {
//!     let i = cute_rs_tensor::device::ids::global_thread_index_x() as usize;
//!     *dst.add(i) = *src.add(i);
//! }
//!
//! // In a real host crate: `let module = cute_rs_host::module!(my_kernels);`
//! let module = ModuleSource {
//!     device_crate: "doc",
//!     arch: "sm_90",
//!     ptx: ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry vector_copy() { ret; }\n",
//!     cubin: &[],
//! };
//! let gpu = Gpu::cpu();
//! let n = 4096;
//! let mut src = HostTensor::<f32>::new(Layout::parse("4096:1").unwrap())?;
//! src.fill_random(42);
//! let input = gpu.upload_tensor(&src)?;
//! let mut output = gpu.alloc::<f32>(n)?;
//! gpu.memset(&mut output, 0xff)?; // poison
//! let ms = gpu.time_ms(|| unsafe {
//!     gpu.launch(&module, vector_copy, LaunchConfig::for_items(n, 256), (&input, &mut output)).run()
//! })?;
//! let got = gpu.download_tensor(&output, src.layout())?;
//! got.compare(&src, Tolerance::EXACT).map_err(|e| HostError::Invalid(e.to_string()))?;
//! println!("{:.1} GB/s", 8.0 * n as f64 / (ms as f64 * 1e6));
//! # Ok::<(), HostError>(())
//! ```

#![warn(missing_docs)]

mod args;
mod buffer;
pub mod collective;
mod context;
mod cpu;
mod elem;
mod error;
mod gpu;
mod graph;
mod guard_pages;
mod host_tensor;
mod launch;
pub mod mesh_comm;
mod module;
mod tensor_map;
mod tma_array;

pub use args::{DeviceTensor, DeviceTensorMut, KernelArgs, KernelParam};
pub use buffer::DeviceBuffer;
pub use elem::{DeviceElem, Numeric, TmaDataType};
pub use error::{HostError, Result};
pub use gpu::{DeviceProperties, Gpu, Stream};
pub use graph::Graph;
pub use host_tensor::{CompareError, HostTensor, Rng, Tolerance};
pub use launch::{
    check_contract, validate, validate_launch, KernelArg, KernelLimits, Launch, LaunchConfig, LaunchPlan, ModuleRef,
    MAX_CLUSTER_BLOCKS,
};
pub use cute_rs_tensor::{KernelFn, LaunchContract};
pub use cute_rs_tensor::device::cpu::Schedule;
pub use module::{ptx_entry_names, Kernel, KernelAttributes, Module, ModuleSource};
pub use tma_array::TmaArray;
pub use tensor_map::{
    tensor_map_params, TensorMap, TensorMapParams, TmaOobFill, TmaSwizzle, TMA_MAX_BOX_DIM, TMA_MAX_GLOBAL_DIM,
    TMA_MAX_RANK, TMA_MAX_STRIDE_BYTES,
};
