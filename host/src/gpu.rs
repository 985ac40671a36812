//! [`Gpu`]: device selection and properties, memory, modules, launches, streams and timing.

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use cudarc::driver::result;
use cudarc::driver::sys;

use crate::context::Context;
use crate::error::{cuda_err, invalid};
use crate::{DeviceBuffer, DeviceElem, HostError, Kernel, Launch, LaunchConfig, Module, Result};

/// Properties of the selected device.
///
/// # Example
/// ```no_run
/// let gpu = cute_rs_host::Gpu::new(0)?;
/// let p = gpu.properties();
/// println!("{} (sm_{}{}), {} SMs, {} GiB", p.name, p.compute_capability.0, p.compute_capability.1,
///     p.multiprocessors, p.global_memory_bytes >> 30);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProperties {
    /// The device's name (`NVIDIA H200`).
    pub name: String,
    /// Compute capability (major, minor): (9, 0) for Hopper.
    pub compute_capability: (u32, u32),
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// The most threads per block.
    pub max_threads_per_block: u32,
    /// The most shared memory per block a kernel can opt in to, in bytes.
    pub max_shared_memory_per_block_optin: u32,
    /// Global memory, in bytes.
    pub global_memory_bytes: u64,
    /// The device's ordinal.
    pub ordinal: usize,
    /// Shared memory per block without opting in (48 KiB), in bytes.
    pub max_shared_memory_per_block: u32,
    /// Shared memory per multiprocessor, in bytes.
    pub max_shared_memory_per_multiprocessor: u32,
    /// The most threads per block along x, y, z.
    pub max_block_dim: (u32, u32, u32),
    /// The most blocks per grid along x, y, z.
    pub max_grid_dim: (u32, u32, u32),
    /// Threads per warp.
    pub warp_size: u32,
    /// L2 cache size, in bytes.
    pub l2_cache_bytes: u32,
    /// Whether thread block clusters can be launched (sm_90+).
    pub cluster_launch: bool,
    /// The CUDA version the driver supports, (major, minor).
    pub driver_version: (u32, u32),
}

impl DeviceProperties {
    /// The properties of an H100 SXM (global memory rounded to 80 GiB): for tests and examples that
    /// run without a GPU.
    ///
    /// # Example
    /// ```
    /// let p = cute_rs_host::DeviceProperties::sm90_example();
    /// assert_eq!(p.compute_capability, (9, 0));
    /// assert_eq!(p.max_shared_memory_per_block_optin, 227 * 1024);
    /// ```
    pub fn sm90_example() -> DeviceProperties {
        DeviceProperties {
            name: "NVIDIA H100 80GB HBM3 (example)".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            max_threads_per_block: 1024,
            max_shared_memory_per_block_optin: 232_448,
            global_memory_bytes: 80 << 30,
            ordinal: 0,
            max_shared_memory_per_block: 49_152,
            max_shared_memory_per_multiprocessor: 233_472,
            max_block_dim: (1024, 1024, 64),
            max_grid_dim: (i32::MAX as u32, 65_535, 65_535),
            warp_size: 32,
            l2_cache_bytes: 50 << 20,
            cluster_launch: true,
            driver_version: (13, 0),
        }
    }

    fn query(ctx: &Context) -> Result<DeviceProperties> {
        use sys::CUdevice_attribute::*;
        let a = |attr| ctx.attribute(attr).map(|v| v.max(0) as u32);
        let name = result::device::get_name(ctx.device).map_err(|e| cuda_err("cuDeviceGetName", None, e))?;
        // SAFETY: valid device handle.
        let mem = unsafe { result::device::total_mem(ctx.device) }.map_err(|e| cuda_err("cuDeviceTotalMem", None, e))?;
        Ok(DeviceProperties {
            name,
            compute_capability: (
                a(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                a(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessors: a(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_block: a(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_shared_memory_per_block_optin: a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            global_memory_bytes: mem as u64,
            ordinal: ctx.ordinal,
            max_shared_memory_per_block: a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            max_shared_memory_per_multiprocessor: a(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            max_block_dim: (
                a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ),
            max_grid_dim: (
                a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                a(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
            warp_size: a(CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            l2_cache_bytes: a(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            cluster_launch: a(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)? != 0,
            driver_version: ((ctx.driver_version / 1000) as u32, (ctx.driver_version % 1000 / 10) as u32),
        })
    }
}

/// A CUDA stream and the kernels launched on it since it was last synchronized (named in errors
/// that surface at synchronization).
pub(crate) struct StreamInner {
    pub(crate) stream: sys::CUstream,
    pub(crate) ctx: Arc<Context>,
    pending: Mutex<Vec<String>>,
}

unsafe impl Send for StreamInner {}
unsafe impl Sync for StreamInner {}

impl StreamInner {
    fn new(ctx: &Arc<Context>) -> Result<StreamInner> {
        if ctx.cpu {
            // The CPU backend runs everything synchronously: a stream orders nothing more.
            return Ok(StreamInner { stream: std::ptr::null_mut(), ctx: ctx.clone(), pending: Mutex::new(Vec::new()) });
        }
        ctx.bind()?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| cuda_err("cuStreamCreate", None, e))?;
        Ok(StreamInner { stream, ctx: ctx.clone(), pending: Mutex::new(Vec::new()) })
    }

    /// Notes a kernel launched on the stream.
    pub(crate) fn launched(&self, name: &str) {
        let mut p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if !p.iter().any(|n| n == name) {
            p.push(name.to_string());
        }
    }

    /// The kernels launched since the last synchronization, for errors.
    fn pending(&self) -> Option<String> {
        let p = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        if p.is_empty() {
            None
        } else {
            Some(p.join(", "))
        }
    }

    /// The error of `call`, naming the kernels whose faults it may report.
    fn err(&self, call: &str, e: result::DriverError) -> HostError {
        cuda_err(call, self.pending().as_deref(), e)
    }

    fn synchronize(&self) -> Result<()> {
        if self.ctx.cpu {
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: the stream lives as long as `self`.
        unsafe { result::stream::synchronize(self.stream) }.map_err(|e| self.err("cuStreamSynchronize", e))?;
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
        Ok(())
    }
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        if !self.ctx.cpu && self.ctx.bind().is_ok() {
            // SAFETY: created in `new`, destroyed once (pending work still completes).
            let _ = unsafe { result::stream::destroy(self.stream) };
        }
    }
}

/// A second CUDA stream of a [`Gpu`], for launches that may overlap with the GPU's own stream.
///
/// # Example
/// ```no_run
/// # let gpu = cute_rs_host::Gpu::new(0)?;
/// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
/// # let k = module.kernel("vector_copy")?;
/// # let (a, b) = (gpu.alloc::<f32>(256)?, gpu.alloc::<f32>(256)?);
/// let side = gpu.create_stream()?;
/// unsafe { gpu.launch_raw(&k, cute_rs_host::LaunchConfig::linear(1, 256)).arg(&a).arg(&b).on(&side).run()? };
/// side.synchronize()?;
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct Stream {
    pub(crate) inner: StreamInner,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream(device {})", self.inner.ctx.ordinal)
    }
}

impl Stream {
    /// Waits for everything launched on the stream; returns errors raised by its kernels.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// gpu.create_stream()?.synchronize()?;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }
}

/// A CUDA event, destroyed when dropped.
struct Event {
    event: sys::CUevent,
}

impl Event {
    fn new() -> Result<Event> {
        result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map(|event| Event { event })
            .map_err(|e| cuda_err("cuEventCreate", None, e))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once.
        let _ = unsafe { result::event::destroy(self.event) };
    }
}

/// A GPU: a context and a stream on one device.
///
/// Everything issued through a `Gpu` (copies, memsets, launches) goes to its stream, in order.
/// `Gpu` is `Send + Sync`; each call makes the device's context current on the calling thread.
///
/// # Example
/// ```
/// match cute_rs_host::Gpu::new(0) {
///     Ok(gpu) => println!("running on {}", gpu.properties().name),
///     Err(cute_rs_host::HostError::NoGpu(why)) => println!("GPU tests skipped: {why}"),
///     Err(e) => panic!("{e}"),
/// }
/// ```
pub struct Gpu {
    pub(crate) ctx: Arc<Context>,
    pub(crate) stream: StreamInner,
    props: DeviceProperties,
    /// The modules [`Gpu::module`] loaded, by their PTX's address and architecture.
    modules: std::sync::Mutex<Vec<((usize, &'static str), Arc<Module>)>>,
    /// The workspaces [`Gpu::workspace`] handed out, by stream; replaced ones are kept until the
    /// `Gpu` goes (launches still queued may use them).
    workspaces: std::sync::Mutex<Workspaces>,
}

/// The workspaces of a [`Gpu`]: the current one of each stream (by its handle), and the replaced
/// ones.
#[derive(Default)]
struct Workspaces {
    current: Vec<(usize, DeviceBuffer<u8>)>,
    replaced: Vec<DeviceBuffer<u8>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("properties", &self.props).finish()
    }
}

impl Gpu {
    /// Device `ordinal`, or `HostError::NoGpu` when there is no driver or no such device.
    ///
    /// Never panics: a missing `libcuda`, a driver that sees no device, or an ordinal past the
    /// last device give [`HostError::NoGpu`] saying which. A driver older than CUDA 13.0 gives
    /// [`HostError::Cuda`] (a GPU is there but cannot be used).
    ///
    /// # Example
    /// ```
    /// if let Err(cute_rs_host::HostError::NoGpu(why)) = cute_rs_host::Gpu::new(0) {
    ///     println!("no GPU: {why}");
    /// }
    /// assert!(matches!(cute_rs_host::Gpu::new(1 << 20), Err(cute_rs_host::HostError::NoGpu(_))));
    /// ```
    pub fn new(ordinal: usize) -> Result<Gpu> {
        let ctx = Arc::new(Context::new(ordinal)?);
        let props = DeviceProperties::query(&ctx)?;
        let stream = StreamInner::new(&ctx)?;
        Ok(Gpu { ctx, stream, props, modules: Default::default(), workspaces: Default::default() })
    }

    /// A workspace of at least `bytes` bytes for launches on `stream` (the GPU's own if `None`),
    /// kept by the `Gpu` and handed out again to the next call on that stream: library calls that
    /// need scratch memory (a split-K GEMM's partial sums) allocate nothing per call.
    ///
    /// The first request of a size allocates (rounded up to a MiB), zeroes the memory and waits
    /// for the zeroing; later requests up to that size return the same memory as its users left
    /// it. Users must leave any part they expect to find zeroed zeroed again (as a split-K GEMM
    /// resets its tile counters). Launches on one stream run in order, so they share its workspace
    /// safely; each stream has its own. A request that grows a workspace inside a CUDA graph
    /// capture fails (allocation is not allowed there): make the call once before capturing.
    ///
    /// # Errors
    /// Those of [`alloc`](Gpu::alloc) and [`memset`](Gpu::memset).
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let w = gpu.workspace(None, 1000)?;
    /// assert_eq!(gpu.workspace(None, 500)?, w); // the same memory
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn workspace(&self, stream: Option<&Stream>, bytes: usize) -> Result<u64> {
        let key = stream.map_or(self.stream.stream, |s| s.inner.stream) as usize;
        let mut w = self.workspaces.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, buf)) = w.current.iter().find(|(k, b)| *k == key && b.len() >= bytes) {
            return Ok(buf.device_ptr());
        }
        let mut buf = self.alloc::<u8>(bytes.max(1).next_multiple_of(1 << 20))?;
        self.memset(&mut buf, 0)?;
        self.synchronize()?;
        let ptr = buf.device_ptr();
        if let Some(i) = w.current.iter().position(|(k, _)| *k == key) {
            let (_, old) = w.current.swap_remove(i);
            w.replaced.push(old);
        }
        w.current.push((key, buf));
        Ok(ptr)
    }

    /// The CPU backend: a `Gpu` whose memory is host memory and whose launches run the kernels'
    /// host builds on the CPU ([`cute_rs_tensor::device::cpu`]), with the same API, checks and
    /// errors as a GPU. Always available.
    ///
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// assert!(cpu.is_cpu());
    /// let buf = cpu.upload(&[1u32, 2, 3]).unwrap();
    /// assert_eq!(cpu.download(&buf).unwrap(), [1, 2, 3]);
    /// ```
    pub fn cpu() -> Gpu {
        let ctx = Arc::new(Context::cpu());
        let stream = StreamInner::new(&ctx).expect("the CPU backend's stream cannot fail");
        Gpu { ctx, stream, props: crate::cpu::properties(), modules: Default::default(), workspaces: Default::default() }
    }

    /// The first GPU if there is one, else the CPU backend ([`Gpu::cpu`]); errors other than "no
    /// GPU" (a broken driver) are returned. It falls back silently: [`is_cpu`](Gpu::is_cpu) tells
    /// which one it gave, and [`properties`](Gpu::properties)' `name` says so in words.
    ///
    /// ```
    /// let backend = cute_rs_host::Gpu::gpu_or_cpu().unwrap();
    /// if backend.is_cpu() {
    ///     println!("no GPU: running on the {}", backend.properties().name);
    /// }
    /// ```
    pub fn gpu_or_cpu() -> Result<Gpu> {
        match Gpu::new(0) {
            Err(HostError::NoGpu(_)) => Ok(Gpu::cpu()),
            other => other,
        }
    }

    /// Whether this is the CPU backend.
    ///
    /// ```
    /// assert!(cute_rs_host::Gpu::cpu().is_cpu());
    /// ```
    pub fn is_cpu(&self) -> bool {
        self.ctx.cpu
    }

    /// The device's properties.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// assert!(gpu.properties().compute_capability >= (9, 0), "TMA needs sm_90");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn properties(&self) -> &DeviceProperties {
        &self.props
    }

    fn bytes_of<T: DeviceElem>(len: usize) -> Result<usize> {
        match len.checked_mul(std::mem::size_of::<T>()) {
            Some(b) => Ok(b),
            None => invalid!("{len} elements of {} do not fit in the address space", T::NAME),
        }
    }

    /// Allocates `len` elements (contents unspecified).
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let mut out = gpu.alloc::<f32>(1 << 20)?;
    /// gpu.memset(&mut out, 0xff)?; // poison: NaN everywhere
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn alloc<T: DeviceElem>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = Self::bytes_of::<T>(len)?;
        let ptr = if self.ctx.cpu {
            crate::cpu::alloc(bytes)?
        } else if bytes == 0 {
            0
        } else {
            self.ctx.bind()?;
            // SAFETY: plain allocation.
            unsafe { result::malloc_sync(bytes) }.map_err(|e| {
                let mut err = cuda_err("cuMemAlloc", None, e);
                if let HostError::Cuda { message, .. } = &mut err {
                    message.push_str(&format!(" ({bytes} bytes: {len} x {})", T::NAME));
                }
                err
            })?
        };
        Ok(DeviceBuffer { ptr, len, ctx: self.ctx.clone(), _t: PhantomData })
    }

    /// Copies `data` to a new device buffer.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let buf = gpu.upload(&[1u32, 2, 3])?;
    /// assert_eq!(gpu.download(&buf)?, [1, 2, 3]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn upload<T: DeviceElem>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(data.len())?;
        self.write(&mut buf, data)?;
        Ok(buf)
    }

    /// Copies `data` into the existing buffer `buf` of the same length (returns once the copy is
    /// done).
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let mut buf = gpu.alloc::<i32>(3)?;
    /// gpu.write(&mut buf, &[4, 5, 6])?;
    /// assert!(gpu.write(&mut buf, &[1, 2]).is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn write<T: DeviceElem>(&self, buf: &mut DeviceBuffer<T>, data: &[T]) -> Result<()> {
        if buf.len != data.len() {
            invalid!("write of {} elements into a buffer of {} elements of {}", data.len(), buf.len, T::NAME);
        }
        self.same_context(&buf.ctx, "write")?;
        if data.is_empty() {
            return Ok(());
        }
        if self.ctx.cpu {
            // SAFETY: `buf` holds `data.len()` elements of host memory.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf.ptr as *mut T, data.len()) };
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: `buf` holds `data.len()` elements; the stream is synchronized before `data` can go.
        unsafe { result::memcpy_htod_async(buf.ptr, data, self.stream.stream) }
            .map_err(|e| self.stream.err("cuMemcpyHtoDAsync", e))?;
        self.stream.synchronize()
    }

    /// Copies a device buffer back (synchronizes the stream first).
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let buf = gpu.upload(&[0.5f64; 4])?;
    /// assert_eq!(gpu.download(&buf)?, vec![0.5; 4]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn download<T: DeviceElem>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>> {
        self.same_context(&buf.ctx, "download")?;
        let mut out = vec![T::default(); buf.len];
        if out.is_empty() {
            self.synchronize()?;
            return Ok(out);
        }
        if self.ctx.cpu {
            // SAFETY: `buf` holds `out.len()` elements of host memory.
            unsafe { std::ptr::copy_nonoverlapping(buf.ptr as *const T, out.as_mut_ptr(), out.len()) };
            return Ok(out);
        }
        self.ctx.bind()?;
        // SAFETY: `out` holds `buf.len` elements and is only returned after the stream completes.
        unsafe { result::memcpy_dtoh_async(&mut out, buf.ptr, self.stream.stream) }
            .map_err(|e| self.stream.err("cuMemcpyDtoHAsync", e))?;
        self.synchronize()?;
        Ok(out)
    }

    /// Sets every byte of `buf` to `byte` (poisoning outputs before a launch).
    ///
    /// Ordered with the launches on the GPU's stream.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let mut buf = gpu.alloc::<u32>(2)?;
    /// gpu.memset(&mut buf, 0xab)?;
    /// assert_eq!(gpu.download(&buf)?, [0xabab_abab; 2]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn memset<T: DeviceElem>(&self, buf: &mut DeviceBuffer<T>, byte: u8) -> Result<()> {
        self.same_context(&buf.ctx, "memset")?;
        if buf.len == 0 {
            return Ok(());
        }
        if self.ctx.cpu {
            // SAFETY: the buffer's own host memory.
            unsafe { std::ptr::write_bytes(buf.ptr as *mut u8, byte, buf.size_bytes()) };
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: the range is the buffer's own.
        unsafe { result::memset_d8_async(buf.ptr, byte, buf.size_bytes(), self.stream.stream) }
            .map_err(|e| self.stream.err("cuMemsetD8Async", e))
    }

    /// Device-to-device copy of `src` into `dst` (same length).
    ///
    /// Ordered with the launches on the GPU's stream (time it with [`Gpu::time_ms`]).
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let src = gpu.upload(&[1u8, 2, 3])?;
    /// let mut dst = gpu.alloc::<u8>(3)?;
    /// gpu.copy(&src, &mut dst)?;
    /// assert_eq!(gpu.download(&dst)?, [1, 2, 3]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn copy<T: DeviceElem>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<()> {
        if src.len != dst.len {
            invalid!("copy of a buffer of {} elements into one of {} elements of {}", src.len, dst.len, T::NAME);
        }
        self.same_context(&src.ctx, "copy")?;
        self.same_context(&dst.ctx, "copy")?;
        if src.len == 0 {
            return Ok(());
        }
        if self.ctx.cpu {
            // SAFETY: both buffers' own host memory (`copy`: they may be the same buffer).
            unsafe { std::ptr::copy(src.ptr as *const u8, dst.ptr as *mut u8, src.size_bytes()) };
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: both ranges are the buffers' own.
        unsafe { result::memcpy_dtod_async(dst.ptr, src.ptr, src.size_bytes(), self.stream.stream) }
            .map_err(|e| self.stream.err("cuMemcpyDtoDAsync", e))
    }

    /// Loads a PTX module (e.g. `cute_rs::KERNELS_PTX`).
    ///
    /// # Errors
    /// [`HostError::Cuda`] for `cuModuleLoadDataEx`, with the JIT compiler's error log.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let ptx = std::fs::read_to_string("target/ptx/test_kernels.ptx").expect("built by cargo build");
    /// let module = gpu.load_module(&ptx)?;
    /// # let _ = module;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn load_module(&self, ptx: &str) -> Result<Module> {
        Module::load(&self.ctx, ptx)
    }

    /// Loads a device crate's module as `cute-rs-build` left it ([`module!`](crate::module)): its
    /// cubin when it was built for this GPU (no JIT compilation), else its PTX; on the CPU backend,
    /// the host build of the same kernels.
    ///
    /// # Errors
    /// As [`load_module`](Gpu::load_module).
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let source = cute_rs_host::ModuleSource {
    ///     device_crate: "my_kernels",
    ///     arch: "sm_90",
    ///     ptx: ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry noop() { ret; }\n",
    ///     cubin: &[],
    /// };
    /// let module = cpu.load(source)?;
    /// assert_eq!(module.kernel_names(), ["noop"]);
    /// // Not in this program's host build: the error says which crate to link.
    /// let e = module.kernel("noop").unwrap_err().to_string();
    /// assert!(e.contains("use my_kernels as _"), "{e}");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn load(&self, source: crate::ModuleSource) -> Result<Module> {
        Module::load_source(&self.ctx, &source, self.props.compute_capability)
    }

    /// The module `source`, loaded on first use and cached by the GPU: later calls (and typed
    /// launches given the source) return the same module without loading anything.
    ///
    /// Loading uses the cubin when it was built for this GPU, so the driver compiles nothing;
    /// otherwise it JIT-compiles the PTX and says so once per process on standard error.
    ///
    /// # Errors
    /// As [`load`](Gpu::load).
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let source = cute_rs_host::ModuleSource {
    ///     device_crate: "my_kernels",
    ///     arch: "sm_90",
    ///     ptx: ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry noop() { ret; }\n",
    ///     cubin: &[],
    /// };
    /// let first = cpu.module(&source)?;
    /// let again = cpu.module(&source)?;
    /// assert!(std::sync::Arc::ptr_eq(&first, &again));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn module(&self, source: &crate::ModuleSource) -> Result<Arc<Module>> {
        let key = (source.ptx.as_ptr() as usize, source.arch);
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, m)) = modules.iter().find(|(k, _)| *k == key) {
            return Ok(m.clone());
        }
        let module = Arc::new(self.load(*source)?);
        modules.push((key, module.clone()));
        Ok(module)
    }

    /// Starts a launch of the kernel `kernel` of `module` with `cfg` and `args`, on the GPU's
    /// stream (see [`Launch::on`] for another).
    ///
    /// `kernel` is the constant `#[kernel]` defined for it (`my_kernels::saxpy`), and `args` a
    /// tuple with one argument per parameter, whose types the compiler checks against the
    /// kernel's signature (see [`KernelArgs`](crate::KernelArgs)). `module` is a loaded
    /// [`Module`] or a [`ModuleSource`](crate::ModuleSource), which [`Gpu::module`] loads once.
    ///
    /// Nothing reaches the device before [`Launch::run`], which checks the launch first: the
    /// configuration against the device and the compiled kernel, the kernel's
    /// [`LaunchContract`](cute_rs_tensor::LaunchContract), and the arguments' sizes against the
    /// parameters the PTX declares.
    ///
    /// # Example
    /// ```
        /// use cute_rs_host::{Gpu, LaunchConfig, ModuleSource};
    ///
    /// /// `y[i] = a * x[i] + y[i]`.
    /// #[cute_rs_tensor::kernel(block(4))]
    /// pub fn saxpy(a: f32, x: *const f32, y: *mut f32) {
    ///     let i = cute_rs_tensor::device::ids::global_thread_index_x() as usize;
    ///     *y.add(i) = a * *x.add(i) + *y.add(i);
    /// }
    ///
    /// let cpu = Gpu::cpu();
    /// let module = ModuleSource {
    ///     device_crate: "doc",
    ///     arch: "sm_90",
    ///     ptx: ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry saxpy() { ret; }\n",
    ///     cubin: &[],
    /// };
    /// let x = cpu.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
    /// let mut y = cpu.upload(&[1.0f32; 4])?;
    /// unsafe { cpu.launch(&module, saxpy, LaunchConfig::linear(1, 4), (2.0f32, &x, &mut y)).run()? };
    /// assert_eq!(cpu.download(&y)?, [3.0, 5.0, 7.0, 9.0]);
    /// // The kernel declared its block: another one is refused by name.
    /// let e = unsafe { cpu.launch(&module, saxpy, LaunchConfig::linear(2, 2), (2.0f32, &x, &mut y)).run() };
    /// assert!(e.unwrap_err().to_string().contains("launch contract"));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn launch<'a, P: 'static, A: crate::KernelArgs<P>>(
        &'a self,
        module: impl Into<crate::ModuleRef<'a>>,
        kernel: cute_rs_tensor::KernelFn<P>,
        cfg: LaunchConfig,
        args: A,
    ) -> Launch<'a> {
        let found = match module.into() {
            crate::ModuleRef::Loaded(m) => m.function(kernel),
            crate::ModuleRef::Source(source) => self.module(&source).and_then(|m| m.function(kernel)),
        };
        let values = args.into_values();
        let found = found.map(crate::launch::LaunchKernel::Shared);
        Launch::start(self, &self.stream, found, kernel.name(), kernel.contract(), cfg, values)
    }

    /// Starts a launch of a kernel looked up by name ([`Module::kernel`]), with arguments appended
    /// one by one ([`Launch::arg`]) and checked only by size: for modules whose kernels have no
    /// `#[kernel]` definition in the program (hand-written PTX). Prefer [`Gpu::launch`].
    ///
    /// # Example
    /// ```
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let module = cpu.load_module(".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry gone() { ret; }\n")?;
    /// // No crate of this program defines `gone`, so the CPU backend cannot run it:
    /// assert!(module.kernel("gone").is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn launch_raw<'a>(&'a self, kernel: &'a Kernel, cfg: LaunchConfig) -> Launch<'a> {
        Launch::new(self, &self.stream, kernel, cfg)
    }

    /// A new stream on this GPU (non-blocking: no implicit synchronization with other streams).
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let s = gpu.create_stream()?;
    /// s.synchronize()?;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn create_stream(&self) -> Result<Stream> {
        Ok(Stream { inner: StreamInner::new(&self.ctx)? })
    }

    /// Waits for the stream; returns errors raised by kernels (e.g. a trap).
    ///
    /// The error names the kernels launched since the last synchronization.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// gpu.synchronize()?;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize()
    }

    /// The GPU's own stream as the driver's `CUstream` handle, after making the GPU's context
    /// current on the calling thread: for handing the stream to a CUDA library (cuBLAS's
    /// `cublasSetStream`), so that the library's work is ordered with this GPU's launches and
    /// copies, and timed by [`Gpu::time_ms`]. Libraries on the CUDA runtime API run in the context
    /// current on the calling thread, which is the device's primary context here, the one the
    /// runtime itself uses; call this again before each library call from another thread.
    ///
    /// The handle is untyped, to be cast to the library's stream type (`cudaStream_t` and
    /// `CUstream` are the same handle). It stays valid as long as the `Gpu`; it must not be
    /// destroyed.
    ///
    /// # Errors
    /// [`HostError::Invalid`] on the CPU backend, which has no CUDA stream;
    /// [`HostError::Cuda`] if the context cannot be made current.
    ///
    /// # Example
    /// ```
    /// // The CPU backend has no stream to hand out.
    /// assert!(cute_rs_host::Gpu::cpu().raw_stream().is_err());
    /// ```
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let stream = gpu.raw_stream()?;
    /// assert!(!stream.is_null());
    /// // e.g. cudarc::cublas::result::set_stream(handle, stream as _)
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn raw_stream(&self) -> Result<*mut std::ffi::c_void> {
        if self.ctx.cpu {
            invalid!("the CPU backend has no CUDA stream to give to a CUDA library");
        }
        self.ctx.bind()?;
        Ok(self.stream.stream as *mut std::ffi::c_void)
    }

    /// Runs `f` between two CUDA events on the stream and returns the elapsed milliseconds.
    ///
    /// `f` should issue work on the GPU's stream ([`Gpu::launch`], [`Gpu::copy`], [`Gpu::memset`]);
    /// the call waits for it to finish. An error of `f` is returned as is.
    ///
    /// # Example
    /// ```no_run
    /// let gpu = cute_rs_host::Gpu::new(0)?;
    /// let src = gpu.alloc::<u8>(1 << 28)?;
    /// let mut dst = gpu.alloc::<u8>(1 << 28)?;
    /// let ms = gpu.time_ms(|| gpu.copy(&src, &mut dst))?;
    /// println!("{:.2} TB/s", 2.0 * (1u64 << 28) as f64 / (ms as f64 * 1e-3) / 1e12);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f32> {
        if self.ctx.cpu {
            // Everything runs synchronously on the CPU backend: wall-clock time is the time.
            let start = std::time::Instant::now();
            f()?;
            return Ok(start.elapsed().as_secs_f32() * 1e3);
        }
        self.ctx.bind()?;
        let (start, end) = (Event::new()?, Event::new()?);
        // SAFETY: live events and stream.
        unsafe { result::event::record(start.event, self.stream.stream) }
            .map_err(|e| self.stream.err("cuEventRecord", e))?;
        f()?;
        self.ctx.bind()?;
        // SAFETY: as above.
        unsafe { result::event::record(end.event, self.stream.stream) }
            .map_err(|e| self.stream.err("cuEventRecord", e))?;
        // SAFETY: as above.
        unsafe { result::event::synchronize(end.event) }.map_err(|e| self.stream.err("cuEventSynchronize", e))?;
        // SAFETY: both events were recorded on the same stream and have completed.
        unsafe { result::event::elapsed(start.event, end.event) }.map_err(|e| cuda_err("cuEventElapsedTime", None, e))
    }

    /// Whether `ctx` is this GPU's context (buffers of another device cannot be used here).
    fn same_context(&self, ctx: &Context, what: &str) -> Result<()> {
        if ctx.ctx != self.ctx.ctx {
            invalid!(
                "{what}: the buffer belongs to device {}, this GPU is device {}",
                ctx.ordinal,
                self.ctx.ordinal
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// There is no GPU on the development machines: `Gpu::new` must say so, not panic.
    #[test]
    fn new_without_gpu_is_no_gpu() {
        // SAFETY: only tries to open the library.
        if unsafe { sys::is_culib_present() } {
            eprintln!("libcuda is present here: skipping the no-GPU check");
            return;
        }
        for ordinal in [0, 1, 7] {
            match Gpu::new(ordinal) {
                Err(HostError::NoGpu(why)) => assert!(why.contains("CUDA driver library"), "{why}"),
                Err(e) => panic!("expected NoGpu, got {e}"),
                Ok(_) => panic!("expected NoGpu, got a GPU"),
            }
        }
    }

    #[test]
    fn gpu_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Gpu>();
        check::<crate::Module>();
        check::<crate::Kernel>();
        check::<DeviceBuffer<f32>>();
        check::<Stream>();
    }
}
