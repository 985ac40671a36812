//! Kernel launches: [`LaunchConfig`], the [`Launch`] builder, [`KernelArg`], and the checks every
//! launch goes through before CUDA sees it ([`validate`], [`validate_launch`]).

use std::ffi::c_void;
use std::marker::PhantomData;

use cudarc::driver::sys;

use crate::error::{cuda_err, invalid};
use crate::gpu::StreamInner;
use std::sync::Arc;

use cute_rs_tensor::LaunchContract;

use crate::args::ParamValue;
use crate::{DeviceBuffer, DeviceElem, DeviceProperties, Gpu, Kernel, Result, TensorMap};

/// Grid, block and dynamic shared memory of a launch.
///
/// # Example
/// ```
/// use cute_rs_host::LaunchConfig;
/// let cfg = LaunchConfig { grid: (64, 64, 1), block: (32, 8, 1), shared_mem_bytes: 32 * 33 * 4 };
/// assert_eq!(cfg.threads_per_block(), 256);
/// assert_eq!(cfg.blocks(), 4096);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid along x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block along x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes (above 48 KiB the kernel's limit is raised
    /// automatically, up to the device's opt-in maximum).
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D launch of `blocks` blocks of `threads` threads, no dynamic shared memory.
    ///
    /// # Example
    /// ```
    /// let cfg = cute_rs_host::LaunchConfig::linear(4096, 256);
    /// assert_eq!((cfg.grid, cfg.block, cfg.shared_mem_bytes), ((4096, 1, 1), (256, 1, 1), 0));
    /// ```
    pub fn linear(blocks: u32, threads: u32) -> LaunchConfig {
        LaunchConfig { grid: (blocks, 1, 1), block: (threads, 1, 1), shared_mem_bytes: 0 }
    }

    /// A 1-D launch covering `n` items with `threads` threads per block, one item per thread:
    /// `ceil(n / threads)` blocks (at least one).
    ///
    /// # Example
    /// ```
    /// let cfg = cute_rs_host::LaunchConfig::for_items(1000, 256);
    /// assert_eq!(cfg.grid, (4, 1, 1));
    /// ```
    pub fn for_items(n: usize, threads: u32) -> LaunchConfig {
        let t = threads.max(1) as usize;
        LaunchConfig::linear(n.div_ceil(t).clamp(1, u32::MAX as usize) as u32, threads)
    }

    /// The same launch with `bytes` of dynamic shared memory.
    ///
    /// # Example
    /// ```
    /// let cfg = cute_rs_host::LaunchConfig::linear(132, 128).with_shared_mem(100 * 1024);
    /// assert_eq!(cfg.shared_mem_bytes, 102400);
    /// ```
    pub fn with_shared_mem(self, bytes: u32) -> LaunchConfig {
        LaunchConfig { shared_mem_bytes: bytes, ..self }
    }

    /// Threads per block (`block.0 * block.1 * block.2`, saturating).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_host::LaunchConfig::linear(1, 96).threads_per_block(), 96);
    /// ```
    pub fn threads_per_block(&self) -> u64 {
        self.block.0 as u64 * self.block.1 as u64 * self.block.2 as u64
    }

    /// Number of blocks (`grid.0 * grid.1 * grid.2`).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_host::LaunchConfig::linear(10, 96).blocks(), 10);
    /// ```
    pub fn blocks(&self) -> u64 {
        self.grid.0 as u64 * self.grid.1 as u64 * self.grid.2 as u64
    }
}

/// What [`validate_launch`] checks a launch against: a kernel's own limits.
///
/// # Example
/// ```
/// let k = cute_rs_host::KernelLimits { name: "k".into(), max_threads_per_block: 1024, registers: 32,
///     static_shared_bytes: 0 };
/// assert_eq!(k.name, "k");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelLimits {
    /// The kernel's name, for messages.
    pub name: String,
    /// The most threads per block the compiled kernel can run (registers limit it).
    pub max_threads_per_block: u32,
    /// Registers per thread, for messages.
    pub registers: u32,
    /// Static shared memory, in bytes.
    pub static_shared_bytes: u32,
}

/// What [`validate_launch`] found about a valid launch.
///
/// # Example
/// ```
/// use cute_rs_host::{validate_launch, DeviceProperties, KernelLimits, LaunchConfig};
/// let props = DeviceProperties::sm90_example();
/// let k = KernelLimits { name: "k".into(), max_threads_per_block: 1024, registers: 32, static_shared_bytes: 0 };
/// let plan = validate_launch(&props, &k, &LaunchConfig::linear(1, 128).with_shared_mem(64 << 10), None)?;
/// assert!(plan.needs_shared_opt_in);
/// assert_eq!(plan.total_shared_bytes, 65536);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchPlan {
    /// Threads per block.
    pub threads_per_block: u32,
    /// Static plus dynamic shared memory per block, in bytes.
    pub total_shared_bytes: u32,
    /// Whether the block uses more shared memory than the default 48 KiB limit, so that the
    /// kernel's `MAX_DYNAMIC_SHARED_SIZE_BYTES` attribute must be raised (done by [`Launch::run`]).
    pub needs_shared_opt_in: bool,
}

fn dims(d: (u32, u32, u32)) -> [(char, u32); 3] {
    [('x', d.0), ('y', d.1), ('z', d.2)]
}

/// Checks a launch configuration against the device: every grid and block dimension at least 1
/// and within the device's maxima, the threads per block within the device's maximum, and the
/// dynamic shared memory within the device's opt-in maximum per block.
///
/// # Errors
/// [`HostError::Invalid`](crate::HostError::Invalid) naming the violated condition and its values.
///
/// # Example
/// ```
/// use cute_rs_host::{validate, DeviceProperties, LaunchConfig};
/// let props = DeviceProperties::sm90_example();
/// assert!(validate(&props, &LaunchConfig::linear(1 << 20, 256)).is_ok());
/// let cfg = LaunchConfig { grid: (1, 1, 1), block: (32, 32, 2), shared_mem_bytes: 0 };
/// let err = validate(&props, &cfg).unwrap_err();
/// assert!(err.to_string().contains("2048 threads"), "{err}");
/// ```
pub fn validate(props: &DeviceProperties, cfg: &LaunchConfig) -> Result<()> {
    let max_grid = dims(props.max_grid_dim);
    for (i, (axis, g)) in dims(cfg.grid).into_iter().enumerate() {
        if g == 0 {
            invalid!("grid {:?}: grid dimension {axis} is 0; every dimension must be at least 1", cfg.grid);
        }
        if g > max_grid[i].1 {
            invalid!(
                "grid {:?}: grid dimension {axis} is {g}, over the device's maximum of {} (grid maxima {:?})",
                cfg.grid,
                max_grid[i].1,
                props.max_grid_dim
            );
        }
    }
    let max_block = dims(props.max_block_dim);
    for (i, (axis, b)) in dims(cfg.block).into_iter().enumerate() {
        if b == 0 {
            invalid!("block {:?}: block dimension {axis} is 0; every dimension must be at least 1", cfg.block);
        }
        if b > max_block[i].1 {
            invalid!(
                "block {:?}: block dimension {axis} is {b}, over the device's maximum of {} (block maxima {:?})",
                cfg.block,
                max_block[i].1,
                props.max_block_dim
            );
        }
    }
    let threads = cfg.threads_per_block();
    if threads > props.max_threads_per_block as u64 {
        invalid!(
            "block {:?} has {threads} threads; the device ({}) allows at most {} threads per block",
            cfg.block,
            props.name,
            props.max_threads_per_block
        );
    }
    if cfg.shared_mem_bytes > props.max_shared_memory_per_block_optin {
        invalid!(
            "{} bytes of dynamic shared memory requested; the device ({}) allows at most {} bytes per block \
             (opt-in maximum)",
            cfg.shared_mem_bytes,
            props.name,
            props.max_shared_memory_per_block_optin
        );
    }
    Ok(())
}

/// Checks a launch of a kernel: [`validate`], then the kernel's own thread limit (which its register
/// use lowers), its static plus the dynamic shared memory against the device's opt-in maximum, and
/// the thread block cluster if any (at most 8 blocks, dividing the grid, on a device that supports
/// clusters).
///
/// # Errors
/// [`HostError::Invalid`](crate::HostError::Invalid) naming the kernel, the violated condition and
/// its values.
///
/// # Example
/// ```
/// use cute_rs_host::{validate_launch, DeviceProperties, KernelLimits, LaunchConfig};
/// let props = DeviceProperties::sm90_example();
/// let k = KernelLimits { name: "gemm".into(), max_threads_per_block: 384, registers: 168,
///     static_shared_bytes: 1024 };
/// let err = validate_launch(&props, &k, &LaunchConfig::linear(132, 512), None).unwrap_err();
/// assert!(err.to_string().contains("at most 384 threads"), "{err}");
/// let err = validate_launch(&props, &k, &LaunchConfig::linear(128, 128), Some((3, 1, 1))).unwrap_err();
/// assert!(err.to_string().contains("divisible"), "{err}");
/// ```
pub fn validate_launch(
    props: &DeviceProperties,
    kernel: &KernelLimits,
    cfg: &LaunchConfig,
    cluster: Option<(u32, u32, u32)>,
) -> Result<LaunchPlan> {
    if let Err(crate::HostError::Invalid(m)) = validate(props, cfg) {
        invalid!("launch of kernel `{}`: {m}", kernel.name);
    }
    let threads = cfg.threads_per_block();
    if threads > kernel.max_threads_per_block as u64 {
        invalid!(
            "launch of kernel `{}`: block {:?} has {threads} threads, but the kernel can run at most {} threads \
             per block (it uses {} registers per thread)",
            kernel.name,
            cfg.block,
            kernel.max_threads_per_block,
            kernel.registers
        );
    }
    let total = kernel.static_shared_bytes as u64 + cfg.shared_mem_bytes as u64;
    if total > props.max_shared_memory_per_block_optin as u64 {
        invalid!(
            "launch of kernel `{}`: {} bytes of static plus {} bytes of dynamic shared memory make {total} bytes, \
             over the device's opt-in maximum of {} bytes per block",
            kernel.name,
            kernel.static_shared_bytes,
            cfg.shared_mem_bytes,
            props.max_shared_memory_per_block_optin
        );
    }
    if let Some(c) = cluster {
        if !props.cluster_launch {
            invalid!(
                "launch of kernel `{}` with cluster {c:?}: the device ({}, compute capability {}.{}) does not \
                 support thread block clusters (sm_90 or newer)",
                kernel.name,
                props.name,
                props.compute_capability.0,
                props.compute_capability.1
            );
        }
        let grid = dims(cfg.grid);
        for (i, (axis, d)) in dims(c).into_iter().enumerate() {
            if d == 0 {
                invalid!("launch of kernel `{}`: cluster {c:?}: cluster dimension {axis} is 0", kernel.name);
            }
            if !grid[i].1.is_multiple_of(d) {
                invalid!(
                    "launch of kernel `{}`: grid {:?} is not divisible by cluster {c:?} (grid dimension {axis} = {} \
                     is not a multiple of {d})",
                    kernel.name,
                    cfg.grid,
                    grid[i].1
                );
            }
        }
        let size = c.0 as u64 * c.1 as u64 * c.2 as u64;
        if size > MAX_CLUSTER_BLOCKS as u64 {
            invalid!(
                "launch of kernel `{}`: cluster {c:?} has {size} blocks; at most {MAX_CLUSTER_BLOCKS} (the portable \
                 cluster size) are supported",
                kernel.name
            );
        }
    }
    Ok(LaunchPlan {
        threads_per_block: threads as u32,
        total_shared_bytes: total as u32,
        needs_shared_opt_in: total > props.max_shared_memory_per_block as u64,
    })
}

/// Checks `cfg` against what a kernel declared with `#[kernel(block(..), shared_mem(..))]`.
///
/// # Errors
/// [`HostError::Invalid`](crate::HostError::Invalid) beginning "launch contract" and naming the
/// kernel, what it declared and what the launch gives.
///
/// # Example
/// ```
/// use cute_rs_host::{check_contract, LaunchConfig};
/// use cute_rs_host::LaunchContract;
/// let c = LaunchContract { block: Some((128, 1, 1)), shared_mem_bytes: Some(1024) };
/// assert!(check_contract("k", &c, &LaunchConfig::linear(8, 128).with_shared_mem(1024)).is_ok());
/// let e = check_contract("k", &c, &LaunchConfig::linear(8, 64).with_shared_mem(1024)).unwrap_err();
/// assert!(e.to_string().contains("block (128, 1, 1)"), "{e}");
/// ```
pub fn check_contract(kernel: &str, contract: &LaunchContract, cfg: &LaunchConfig) -> Result<()> {
    if let Some(block) = contract.block {
        if block != cfg.block {
            invalid!(
                "launch contract: kernel `{kernel}` runs with block {block:?} (declared by its #[kernel(block(..))]), \
                 but the launch gives block {:?}",
                cfg.block
            );
        }
    }
    if let Some(bytes) = contract.shared_mem_bytes {
        if bytes != cfg.shared_mem_bytes {
            invalid!(
                "launch contract: kernel `{kernel}` needs {bytes} bytes of dynamic shared memory (declared by its \
                 #[kernel(shared_mem(..))]), but the launch gives {}",
                cfg.shared_mem_bytes
            );
        }
    }
    Ok(())
}

/// The most blocks in a thread block cluster (the portable cluster size).
pub const MAX_CLUSTER_BLOCKS: u32 = 8;

/// A value that can be passed as a kernel argument (scalars, device buffers as pointers).
///
/// The launch passes the `param_size()` bytes at `param_ptr()`, which must stay valid while `self`
/// is borrowed. The kernel's parameter of the same position must have that size (checked when the
/// driver reports parameter sizes, see [`Kernel::param_sizes`]).
///
/// | argument | kernel parameter |
/// | --- | --- |
/// | `DeviceBuffer<T>` | `*const T` / `*mut T` (8 bytes: its device address) |
/// | `u8` ... `u64`, `i8` ... `i64`, `f32`, `f64`, `usize`, `isize` | the same type |
/// | [`TensorMap`] | a 128-byte, 64-byte aligned struct passed by value |
///
/// # Example
/// ```
/// use cute_rs_host::KernelArg;
/// let n = 7u32;
/// assert_eq!(n.param_size(), 4);
/// assert_eq!(unsafe { *(n.param_ptr() as *const u32) }, 7);
/// ```
pub trait KernelArg {
    /// Address of the bytes passed to the kernel.
    fn param_ptr(&self) -> *const c_void;
    /// Number of bytes passed.
    fn param_size(&self) -> usize;
    /// What the argument is, for messages.
    fn param_type(&self) -> String {
        std::any::type_name::<Self>().to_string()
    }
}

impl<T: DeviceElem> KernelArg for DeviceBuffer<T> {
    fn param_ptr(&self) -> *const c_void {
        &self.ptr as *const u64 as *const c_void
    }
    fn param_size(&self) -> usize {
        std::mem::size_of::<u64>()
    }
    fn param_type(&self) -> String {
        format!("DeviceBuffer<{}> (a device pointer)", T::NAME)
    }
}

macro_rules! scalar_arg {
    ($($t:ty),*) => {
        $(impl KernelArg for $t {
            fn param_ptr(&self) -> *const c_void { self as *const $t as *const c_void }
            fn param_size(&self) -> usize { std::mem::size_of::<$t>() }
            fn param_type(&self) -> String { stringify!($t).to_string() }
        })*
    };
}
scalar_arg!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

impl KernelArg for TensorMap {
    fn param_ptr(&self) -> *const c_void {
        self.bytes.as_ptr() as *const c_void
    }
    fn param_size(&self) -> usize {
        self.bytes.len()
    }
    fn param_type(&self) -> String {
        "TensorMap (128 bytes by value)".into()
    }
}

/// One argument of a launch being built.
struct Arg {
    ptr: *const c_void,
    size: usize,
    what: String,
}

/// The kernel of a launch: borrowed (looked up by name) or shared with its module's cache.
pub(crate) enum LaunchKernel<'a> {
    Borrowed(&'a Kernel),
    Shared(Arc<Kernel>),
}

/// Where a typed launch finds its kernel: a loaded [`Module`](crate::Module), or a
/// [`ModuleSource`](crate::ModuleSource) that [`Gpu::module`] loads on first use.
///
/// # Example
/// ```
/// use cute_rs_host::{ModuleRef, ModuleSource};
/// let source = ModuleSource { device_crate: "k", arch: "sm_90", ptx: "", cubin: &[] };
/// assert!(matches!(ModuleRef::from(&source), ModuleRef::Source(_)));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum ModuleRef<'a> {
    /// A module loaded already.
    Loaded(&'a crate::Module),
    /// A module to load (once per GPU) from its source.
    Source(crate::ModuleSource),
}

impl<'a> From<&'a crate::Module> for ModuleRef<'a> {
    fn from(m: &'a crate::Module) -> ModuleRef<'a> {
        ModuleRef::Loaded(m)
    }
}

impl<'a> From<&'a Arc<crate::Module>> for ModuleRef<'a> {
    fn from(m: &'a Arc<crate::Module>) -> ModuleRef<'a> {
        ModuleRef::Loaded(m)
    }
}

impl From<crate::ModuleSource> for ModuleRef<'_> {
    fn from(s: crate::ModuleSource) -> Self {
        ModuleRef::Source(s)
    }
}

impl From<&crate::ModuleSource> for ModuleRef<'_> {
    fn from(s: &crate::ModuleSource) -> Self {
        ModuleRef::Source(*s)
    }
}

/// A launch being built: made by [`Gpu::launch`] (typed, with all its arguments) or
/// [`Gpu::launch_raw`] (arguments appended with [`Launch::arg`]). Nothing reaches the device
/// before [`Launch::run`].
///
/// # Example
/// ```
/// #[cute_rs_tensor::kernel]
/// pub fn fill(x: *mut u32, value: u32) {
///     *x.add(cute_rs_tensor::device::ids::global_thread_index_x() as usize) = value;
/// }
///
/// let cpu = cute_rs_host::Gpu::cpu();
/// let module = cpu.load_module(".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry fill() { ret; }\n")?;
/// let mut x = cpu.alloc::<u32>(64)?;
/// let stream = cpu.create_stream()?;
/// unsafe { cpu.launch(&module, fill, cute_rs_host::LaunchConfig::linear(2, 32), (&mut x, 7u32)).on(&stream).run()? };
/// stream.synchronize()?;
/// assert_eq!(cpu.download(&x)?, [7; 64]);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct Launch<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) stream: &'a StreamInner,
    kernel: std::result::Result<LaunchKernel<'a>, crate::HostError>,
    /// The kernel's name, also when looking it up failed.
    name: &'a str,
    contract: LaunchContract,
    pub(crate) cfg: LaunchConfig,
    pub(crate) cluster: Option<(u32, u32, u32)>,
    schedule: crate::Schedule,
    args: Vec<Arg>,
    /// A typed launch's converted arguments, which `args` points into (kept, never read).
    _values: Vec<ParamValue>,
    /// The first argument that could not be converted.
    arg_error: Option<crate::HostError>,
    _a: PhantomData<&'a ()>,
}

impl<'a> Launch<'a> {
    pub(crate) fn new(gpu: &'a Gpu, stream: &'a StreamInner, kernel: &'a Kernel, cfg: LaunchConfig) -> Launch<'a> {
        let borrowed = Ok(LaunchKernel::Borrowed(kernel));
        Launch::start(gpu, stream, borrowed, &kernel.name, LaunchContract::NONE, cfg, Ok(Vec::new()))
    }

    /// A launch of `kernel` (or the error finding it) with converted arguments `values` (or the
    /// first argument's error): both are reported by [`check`](Launch::check).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn start(
        gpu: &'a Gpu,
        stream: &'a StreamInner,
        kernel: std::result::Result<LaunchKernel<'a>, crate::HostError>,
        name: &'a str,
        contract: LaunchContract,
        cfg: LaunchConfig,
        values: Result<Vec<ParamValue>>,
    ) -> Launch<'a> {
        let (values, arg_error) = match values {
            Ok(v) => (v, None),
            Err(e) => (Vec::new(), Some(e)),
        };
        let args = values.iter().map(|v| Arg { ptr: v.ptr(), size: v.size(), what: v.what().to_string() }).collect();
        Launch {
            gpu,
            stream,
            kernel,
            name,
            contract,
            cfg,
            cluster: None,
            schedule: crate::Schedule::Forward,
            args,
            _values: values,
            arg_error,
            _a: PhantomData,
        }
    }

    /// Launches on `stream` instead of the GPU's own stream.
    ///
    /// # Example
    /// ```no_run
    /// # fn f(gpu: &cute_rs_host::Gpu, m: &cute_rs_host::Module, k: cute_rs_host::KernelFn<()>) -> cute_rs_host::Result<()> {
    /// let side = gpu.create_stream()?;
    /// unsafe { gpu.launch(m, k, cute_rs_host::LaunchConfig::linear(1, 32), ()).on(&side).run()? };
    /// side.synchronize()
    /// # }
    /// ```
    pub fn on(mut self, stream: &'a crate::Stream) -> Self {
        self.stream = &stream.inner;
        self
    }

    /// Appends an argument.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// # let k = module.kernel("scale")?;
    /// let data = gpu.upload(&[1.0f32; 1024])?;
    /// let (n, factor) = (1024u32, 2.5f32);
    /// let launch = gpu.launch_raw(&k, cute_rs_host::LaunchConfig::linear(4, 256)).arg(&data).arg(&n).arg(&factor);
    /// unsafe { launch.run()? };
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn arg<A: KernelArg + ?Sized>(mut self, a: &'a A) -> Self {
        self.args.push(Arg { ptr: a.param_ptr(), size: a.param_size(), what: a.param_type() });
        self
    }

    /// Launches as a grid of thread block clusters of `dims` blocks (`cuLaunchKernelEx` with a
    /// cluster dimension; sm_90+). The grid must be divisible by `dims`, and a cluster holds at
    /// most [`MAX_CLUSTER_BLOCKS`] blocks.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// # let k = module.kernel("cluster_ids")?;
    /// let out = gpu.alloc::<u32>(8 * 128)?;
    /// unsafe { gpu.launch_raw(&k, cute_rs_host::LaunchConfig::linear(8, 128)).cluster((2, 1, 1)).arg(&out).run()? };
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn cluster(mut self, dims: (u32, u32, u32)) -> Self {
        self.cluster = Some(dims);
        self
    }

    /// On the CPU backend, the order in which the scheduler runs the block's threads (both
    /// deterministic: running a kernel under both exposes a missing barrier); ignored on a GPU.
    ///
    /// ```no_run
    /// # fn f(gpu: &cute_rs_host::Gpu, k: &cute_rs_host::Kernel) -> cute_rs_host::Result<()> {
    /// unsafe { gpu.launch_raw(k, cute_rs_host::LaunchConfig::linear(1, 64)).schedule(cute_rs_host::Schedule::Reverse).run() }
    /// # }
    /// ```
    pub fn schedule(mut self, schedule: crate::Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// Checks the launch without running it: the configuration (see [`validate_launch`]), that the
    /// kernel, the stream and the GPU share a context, and the arguments against the kernel's
    /// parameters (their number and sizes).
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// # let k = module.kernel("vector_copy")?;
    /// let input = gpu.alloc::<f32>(256)?;
    /// // One argument missing:
    /// assert!(gpu.launch_raw(&k, cute_rs_host::LaunchConfig::linear(1, 256)).arg(&input).check().is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn check(&self) -> Result<LaunchPlan> {
        let k = match &self.kernel {
            Ok(LaunchKernel::Borrowed(k)) => *k,
            Ok(LaunchKernel::Shared(k)) => k,
            Err(e) => return Err(e.clone()),
        };
        if let Some(e) = &self.arg_error {
            return Err(match e {
                crate::HostError::Invalid(m) => crate::HostError::Invalid(format!("launch of kernel `{}`: {m}", self.name)),
                other => other.clone(),
            });
        }
        check_contract(self.name, &self.contract, &self.cfg)?;
        if k.module.ctx.ctx != self.gpu.ctx.ctx || self.stream.ctx.ctx != self.gpu.ctx.ctx {
            invalid!(
                "launch of kernel `{}`: the kernel's module, the stream and the GPU must belong to the same device \
                 context (kernel on device {}, stream on device {}, GPU {})",
                k.name,
                k.module.ctx.ordinal,
                self.stream.ctx.ordinal,
                self.gpu.ctx.ordinal
            );
        }
        let plan = validate_launch(self.gpu.properties(), &k.limits(), &self.cfg, self.cluster)?;
        if let Some(params) = k.param_sizes() {
            if params.len() != self.args.len() {
                invalid!(
                    "launch of kernel `{}`: the kernel takes {} parameter(s) (sizes in bytes: {:?}), the launch passes \
                     {} argument(s)",
                    k.name,
                    params.len(),
                    params,
                    self.args.len()
                );
            }
            for (i, (p, a)) in params.iter().zip(&self.args).enumerate() {
                if *p != a.size {
                    invalid!(
                        "launch of kernel `{}`: argument {i} is a {} of {} bytes, but parameter {i} of the kernel is {p} \
                         bytes",
                        k.name,
                        a.what,
                        a.size
                    );
                }
            }
        }
        Ok(plan)
    }

    /// Launches on the stream (asynchronous; errors of the launch itself are returned).
    ///
    /// Before CUDA is called, [`Launch::check`] validates the launch; a block using more than
    /// 48 KiB of shared memory gets the kernel's dynamic shared memory limit raised first.
    /// Faults of the running kernel (out-of-bounds accesses, traps) surface at the next
    /// synchronization ([`Gpu::synchronize`], [`Gpu::download`]), naming the kernel.
    ///
    /// # Safety
    /// The arguments must match the kernel's parameters, and the kernel must stay in bounds.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// # let k = module.kernel("transpose")?;
    /// # let (input, output) = (gpu.alloc::<f32>(1 << 20)?, gpu.alloc::<f32>(1 << 20)?);
    /// let cfg = cute_rs_host::LaunchConfig { grid: (32, 32, 1), block: (32, 8, 1), shared_mem_bytes: 32 * 33 * 4 };
    /// unsafe { gpu.launch_raw(&k, cfg).arg(&input).arg(&output).run()? };
    /// gpu.synchronize()?;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub unsafe fn run(self) -> Result<()> {
        self.check()?;
        let k: &Kernel = match &self.kernel {
            Ok(LaunchKernel::Borrowed(k)) => k,
            Ok(LaunchKernel::Shared(k)) => k,
            Err(_) => unreachable!("checked"),
        };
        let cfg = self.cfg;
        if let Some(cpu_kernel) = k.cpu {
            let args: Vec<&[u8]> = self
                .args
                .iter()
                // SAFETY: each argument points at `size` bytes borrowed for 'a.
                .map(|a| unsafe { std::slice::from_raw_parts(a.ptr as *const u8, a.size) })
                .collect();
            return crate::cpu::run(&cpu_kernel, &cfg, self.cluster, self.schedule, &args);
        }
        k.ensure_dynamic_shared(cfg.shared_mem_bytes)?;
        self.gpu.ctx.bind()?;
        let mut params: Vec<*mut c_void> = self.args.iter().map(|a| a.ptr as *mut c_void).collect();
        let (call, r) = match self.cluster {
            None => (
                "cuLaunchKernel",
                // SAFETY: the caller vouches for the arguments; the parameter pointers live for 'a.
                unsafe {
                    sys::cuLaunchKernel(
                        k.func,
                        cfg.grid.0,
                        cfg.grid.1,
                        cfg.grid.2,
                        cfg.block.0,
                        cfg.block.1,
                        cfg.block.2,
                        cfg.shared_mem_bytes,
                        self.stream.stream,
                        params.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                },
            ),
            Some(c) => {
                // SAFETY: an all-zero attribute is valid plain data; the fields are set below.
                let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
                attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
                attr.value.clusterDim.x = c.0;
                attr.value.clusterDim.y = c.1;
                attr.value.clusterDim.z = c.2;
                let config = sys::CUlaunchConfig {
                    gridDimX: cfg.grid.0,
                    gridDimY: cfg.grid.1,
                    gridDimZ: cfg.grid.2,
                    blockDimX: cfg.block.0,
                    blockDimY: cfg.block.1,
                    blockDimZ: cfg.block.2,
                    sharedMemBytes: cfg.shared_mem_bytes,
                    hStream: self.stream.stream,
                    attrs: &mut attr,
                    numAttrs: 1,
                };
                // SAFETY: as above; `config` and `attr` outlive the call.
                ("cuLaunchKernelEx", unsafe {
                    sys::cuLaunchKernelEx(&config, k.func, params.as_mut_ptr(), std::ptr::null_mut())
                })
            }
        };
        if let Err(e) = r.result() {
            let mut err = cuda_err(call, Some(&k.name), e);
            if let crate::HostError::Cuda { message, .. } = &mut err {
                message.push_str(&format!(
                    " (grid {:?}, block {:?}, {} bytes of dynamic shared memory{})",
                    cfg.grid,
                    cfg.block,
                    cfg.shared_mem_bytes,
                    self.cluster.map(|c| format!(", cluster {c:?}")).unwrap_or_default()
                ));
            }
            return Err(err);
        }
        self.stream.launched(&k.name);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostError;

    fn props() -> DeviceProperties {
        DeviceProperties::sm90_example()
    }

    fn kernel(max_threads: u32, static_smem: u32) -> KernelLimits {
        KernelLimits { name: "k".into(), max_threads_per_block: max_threads, registers: 64, static_shared_bytes: static_smem }
    }

    fn invalid_msg(r: Result<impl std::fmt::Debug>) -> String {
        match r {
            Err(HostError::Invalid(m)) => m,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn valid_configs() {
        let p = props();
        validate(&p, &LaunchConfig::linear(1, 1)).unwrap();
        validate(&p, &LaunchConfig::linear(i32::MAX as u32, 1024)).unwrap();
        validate(&p, &LaunchConfig { grid: (1, 65535, 65535), block: (16, 16, 4), shared_mem_bytes: 227 * 1024 }).unwrap();
        validate(&p, &LaunchConfig { grid: (1, 1, 1), block: (1, 1, 64), shared_mem_bytes: 0 }).unwrap();
    }

    #[test]
    fn zero_dimensions() {
        let p = props();
        let m = invalid_msg(validate(&p, &LaunchConfig::linear(0, 32)));
        assert!(m.contains("grid dimension x is 0"), "{m}");
        let m = invalid_msg(validate(&p, &LaunchConfig { grid: (1, 1, 1), block: (32, 0, 1), shared_mem_bytes: 0 }));
        assert!(m.contains("block dimension y is 0"), "{m}");
    }

    #[test]
    fn too_large_dimensions() {
        let p = props();
        let m = invalid_msg(validate(&p, &LaunchConfig::linear(u32::MAX, 32)));
        assert!(m.contains("grid dimension x is 4294967295, over the device's maximum of 2147483647"), "{m}");
        let m = invalid_msg(validate(&p, &LaunchConfig { grid: (1, 65536, 1), block: (1, 1, 1), shared_mem_bytes: 0 }));
        assert!(m.contains("grid dimension y is 65536"), "{m}");
        let m = invalid_msg(validate(&p, &LaunchConfig { grid: (1, 1, 1), block: (1, 1, 65), shared_mem_bytes: 0 }));
        assert!(m.contains("block dimension z is 65, over the device's maximum of 64"), "{m}");
        let m = invalid_msg(validate(&p, &LaunchConfig::linear(1, 1025)));
        assert!(m.contains("block dimension x is 1025"), "{m}");
        let m = invalid_msg(validate(&p, &LaunchConfig { grid: (1, 1, 1), block: (32, 32, 2), shared_mem_bytes: 0 }));
        assert!(m.contains("(32, 32, 2) has 2048 threads") && m.contains("at most 1024"), "{m}");
        // Products that overflow u32 are not wrapped.
        let mut q = props();
        q.max_block_dim = (u32::MAX, u32::MAX, u32::MAX);
        let m = invalid_msg(validate(&q, &LaunchConfig { grid: (1, 1, 1), block: (1 << 16, 1 << 16, 2), shared_mem_bytes: 0 }));
        assert!(m.contains("8589934592 threads"), "{m}");
    }

    #[test]
    fn shared_memory() {
        let p = props();
        let optin = p.max_shared_memory_per_block_optin;
        validate(&p, &LaunchConfig::linear(1, 32).with_shared_mem(optin)).unwrap();
        let m = invalid_msg(validate(&p, &LaunchConfig::linear(1, 32).with_shared_mem(optin + 1)));
        assert!(m.contains(&format!("{} bytes of dynamic shared memory", optin + 1)) && m.contains("opt-in"), "{m}");

        // Static + dynamic over the opt-in maximum.
        let k = kernel(1024, 1024);
        let m = invalid_msg(validate_launch(&p, &k, &LaunchConfig::linear(1, 32).with_shared_mem(optin - 1023), None));
        assert!(m.contains("1024 bytes of static plus") && m.contains(&format!("make {}", optin + 1)), "{m}");
        let plan = validate_launch(&p, &k, &LaunchConfig::linear(1, 32).with_shared_mem(optin - 1024), None).unwrap();
        assert_eq!(plan.total_shared_bytes, optin);
        assert!(plan.needs_shared_opt_in);

        // Up to 48 KiB in all needs no opt-in; one byte more does.
        let plan = validate_launch(&p, &k, &LaunchConfig::linear(1, 32).with_shared_mem(48 * 1024 - 1024), None).unwrap();
        assert!(!plan.needs_shared_opt_in);
        let plan = validate_launch(&p, &k, &LaunchConfig::linear(1, 32).with_shared_mem(48 * 1024 - 1023), None).unwrap();
        assert!(plan.needs_shared_opt_in);
    }

    #[test]
    fn kernel_thread_limit() {
        let p = props();
        let k = kernel(640, 0);
        validate_launch(&p, &k, &LaunchConfig::linear(1, 640), None).unwrap();
        let m = invalid_msg(validate_launch(&p, &k, &LaunchConfig::linear(1, 641), None));
        assert!(m.contains("kernel `k`") && m.contains("at most 640 threads") && m.contains("64 registers"), "{m}");
        // Device-level errors name the kernel too.
        let m = invalid_msg(validate_launch(&p, &k, &LaunchConfig::linear(0, 32), None));
        assert!(m.starts_with("launch of kernel `k`: grid"), "{m}");
    }

    #[test]
    fn clusters() {
        let p = props();
        let k = kernel(1024, 0);
        let cfg = LaunchConfig { grid: (8, 4, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        validate_launch(&p, &k, &cfg, Some((2, 2, 1))).unwrap();
        validate_launch(&p, &k, &cfg, Some((8, 1, 1))).unwrap();
        let m = invalid_msg(validate_launch(&p, &k, &cfg, Some((8, 2, 1))));
        assert!(m.contains("16 blocks"), "{m}");
        let m = invalid_msg(validate_launch(&p, &k, &cfg, Some((1, 3, 1))));
        assert!(m.contains("grid dimension y = 4 is not a multiple of 3"), "{m}");
        let m = invalid_msg(validate_launch(&p, &k, &cfg, Some((1, 0, 1))));
        assert!(m.contains("cluster dimension y is 0"), "{m}");
        let mut old = props();
        old.cluster_launch = false;
        old.compute_capability = (8, 0);
        let m = invalid_msg(validate_launch(&old, &k, &cfg, Some((2, 1, 1))));
        assert!(m.contains("does not support thread block clusters") && m.contains("8.0"), "{m}");
    }

    #[test]
    fn config_helpers() {
        assert_eq!(LaunchConfig::for_items(0, 256).grid, (1, 1, 1));
        assert_eq!(LaunchConfig::for_items(257, 256).grid, (2, 1, 1));
        assert_eq!(LaunchConfig::linear(3, 7).with_shared_mem(5).shared_mem_bytes, 5);
    }

    #[test]
    fn scalar_args() {
        let x = -3i64;
        assert_eq!(x.param_size(), 8);
        assert_eq!(unsafe { *(x.param_ptr() as *const i64) }, -3);
        assert_eq!(1.5f64.param_type(), "f64");
        let t = TensorMap { bytes: [7; 128] };
        assert_eq!(t.param_size(), 128);
        assert_eq!(t.param_ptr() as usize % 64, 0);
    }
}
