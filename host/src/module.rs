//! [`Module`] (loaded PTX) and [`Kernel`] (one of its functions, with its attributes and parameter
//! sizes, which launches are checked against).

use std::ffi::{c_void, CString};
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU32, Ordering};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::result;
use cudarc::driver::sys;

use crate::context::Context;
use crate::error::{cuda_err, driver_message, invalid};
use crate::{HostError, Result};

/// A loaded module, unloaded when the last [`Module`] or [`Kernel`] of it is dropped.
pub(crate) struct ModuleInner {
    pub(crate) module: sys::CUmodule,
    pub(crate) ctx: Arc<Context>,
}

unsafe impl Send for ModuleInner {}
unsafe impl Sync for ModuleInner {}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        if !self.ctx.cpu && self.ctx.bind().is_ok() {
            // SAFETY: loaded in `Module::load`, unloaded once.
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

/// A loaded PTX module.
///
/// # Example
/// ```no_run
/// let gpu = cute_rs_host::Gpu::new(0)?;
/// let module = gpu.load_module(".version 8.3\n.target sm_90\n.address_size 64\n\
///     .visible .entry noop() { ret; }\n")?;
/// assert_eq!(module.kernel_names(), ["noop"]);
/// let noop = module.kernel("noop")?;
/// # let _ = noop;
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct Module {
    inner: Arc<ModuleInner>,
    /// The device crate the module was built from, when known (for the CPU backend's errors).
    device_crate: Option<&'static str>,
    entries: Vec<String>,
    /// The number of `.param`s of each entry, in the order of `entries`.
    param_counts: Vec<usize>,
    /// The kernels typed launches looked up, by name.
    kernels: Mutex<HashMap<&'static str, Arc<Kernel>>>,
}

/// Attributes of a compiled kernel (`cuFuncGetAttribute`).
///
/// # Example
/// ```no_run
/// # let gpu = cute_rs_host::Gpu::new(0)?;
/// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
/// let k = module.kernel("vector_copy")?;
/// let a = k.attributes();
/// assert_eq!(a.local_bytes, 0, "{} spills to local memory", k.name());
/// println!("{} registers, {} B static shared memory", a.registers, a.static_shared_bytes);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelAttributes {
    /// Registers per thread.
    pub registers: u32,
    /// Statically allocated shared memory, in bytes.
    pub static_shared_bytes: u32,
    /// Local memory per thread (stack frame, spills), in bytes.
    pub local_bytes: u32,
    /// Constant memory, in bytes.
    pub const_bytes: u32,
    /// The most threads per block this kernel can be launched with (limited by its registers).
    pub max_threads_per_block: u32,
    /// PTX ISA version as `10 * major + minor` (83 for PTX 8.3).
    pub ptx_version: u32,
    /// Architecture of the binary, `10 * major + minor` (90 for sm_90).
    pub binary_version: u32,
}

/// A kernel function of a module.
///
/// Holds its [`KernelAttributes`] and, where the driver reports them (`cuFuncGetParamInfo`), the
/// sizes of its parameters, so that [`Launch::run`](crate::Launch::run) rejects a wrong number or
/// size of arguments instead of launching. The module stays loaded while a `Kernel` of it lives.
///
/// # Example
/// ```no_run
/// # let gpu = cute_rs_host::Gpu::new(0)?;
/// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
/// let k = module.kernel("vector_copy")?;
/// assert_eq!(k.name(), "vector_copy");
/// assert_eq!(k.param_sizes(), Some(&[8usize, 8][..])); // two pointers
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct Kernel {
    pub(crate) func: sys::CUfunction,
    pub(crate) name: String,
    pub(crate) attributes: KernelAttributes,
    pub(crate) params: Option<Vec<usize>>,
    /// The kernel's current `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`.
    pub(crate) max_dynamic_shared: AtomicU32,
    pub(crate) module: Arc<ModuleInner>,
    /// The kernel's host build, on the CPU backend.
    pub(crate) cpu: Option<cute_rs_tensor::device::cpu::CpuKernel>,
}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Module").field("kernels", &self.entries).finish()
    }
}

unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("attributes", &self.attributes)
            .field("param_sizes", &self.params)
            .finish()
    }
}

/// The names of the kernels (`.entry` directives) of a PTX module, in order.
///
/// # Example
/// ```
/// let ptx = ".visible .entry copy(\n.param .u64 a\n)\n{ ret; }\n.entry scale (\n)\n{ ret; }";
/// assert_eq!(cute_rs_host::ptx_entry_names(ptx), ["copy", "scale"]);
/// ```
pub fn ptx_entry_names(ptx: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in ptx.lines() {
        let mut words = line.split_whitespace().peekable();
        while let Some(w) = words.next() {
            if w == ".entry" {
                if let Some(next) = words.peek() {
                    let name: String =
                        next.chars().take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')).collect();
                    if !name.is_empty() {
                        names.push(name);
                    }
                }
                break;
            }
            if w.starts_with("//") {
                break;
            }
        }
    }
    names
}

/// The number of parameters of each `.entry` of `ptx`, in order (the `.param` declarations between
/// the entry's parentheses).
fn ptx_param_counts(ptx: &str) -> Vec<usize> {
    let mut counts = Vec::new();
    // Inside an entry's parameter list: the count so far.
    let mut open: Option<usize> = None;
    for line in ptx.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut text = code;
        if open.is_none() {
            match code.find(".entry ") {
                Some(at) => {
                    text = &code[at..];
                    open = Some(0);
                }
                None => continue,
            }
        }
        let end = text.find(')');
        let counted = &text[..end.unwrap_or(text.len())];
        let n = open.unwrap_or(0) + counted.matches(".param").count();
        if end.is_some() {
            counts.push(n);
            open = None;
        } else {
            open = Some(n);
        }
    }
    counts
}

/// A device crate's module as `cute-rs-build` left it: the PTX, and the cubin `ptxas` made of it
/// when one was available. Made by [`module!`](crate::module); loaded by [`Gpu::load`](crate::Gpu::load).
///
/// # Example
/// ```
/// let source = cute_rs_host::ModuleSource {
///     device_crate: "my_kernels",
///     arch: "sm_90",
///     ptx: ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry noop() { ret; }\n",
///     cubin: &[],
/// };
/// assert!(!source.has_cubin());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ModuleSource {
    /// The device crate's library name (`my_kernels`).
    pub device_crate: &'static str,
    /// The architecture the module was built for (`sm_90`, `sm_90a`).
    pub arch: &'static str,
    /// The PTX module: what the kernels' parameter checks read, and what the driver compiles when
    /// the cubin cannot be used.
    pub ptx: &'static str,
    /// The module compiled by `ptxas` for [`arch`](Self::arch); empty when there was no `ptxas`.
    pub cubin: &'static [u8],
}

impl ModuleSource {
    /// Whether a cubin came with the PTX.
    ///
    /// # Example
    /// ```
    /// let s = cute_rs_host::ModuleSource { device_crate: "k", arch: "sm_90", ptx: "", cubin: &[] };
    /// assert!(!s.has_cubin());
    /// ```
    pub fn has_cubin(&self) -> bool {
        !self.cubin.is_empty()
    }

    /// Whether the cubin runs on a device of compute capability `cc` as is: built for that very
    /// architecture (`sm_90` and `sm_90a` for (9, 0)).
    ///
    /// # Example
    /// ```
    /// let s = cute_rs_host::ModuleSource { device_crate: "k", arch: "sm_90a", ptx: "", cubin: &[1] };
    /// assert!(s.cubin_runs_on((9, 0)));
    /// assert!(!s.cubin_runs_on((10, 0)));
    /// ```
    pub fn cubin_runs_on(&self, cc: (u32, u32)) -> bool {
        let number = self.arch.strip_prefix("sm_").map(|a| a.trim_end_matches(['a', 'f']));
        self.has_cubin() && number == Some(format!("{}{}", cc.0, cc.1).as_str())
    }
}

/// Tells, once per module and process, that the driver is compiling `source`'s PTX: a first load
/// that can take seconds to minutes (the driver caches the result for later processes).
fn say_jit_once(source: &ModuleSource, cc: (u32, u32), forced: bool) {
    static SAID: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|e| e.into_inner());
    let key = source.ptx.as_ptr() as usize;
    if said.contains(&key) {
        return;
    }
    said.push(key);
    let why = if forced {
        "CUTE_JIT=1".to_string()
    } else if source.has_cubin() {
        format!("its cubin is for {}, this GPU is sm_{}{}", source.arch, cc.0, cc.1)
    } else {
        "no cubin was built (ptxas was not found at build time: set PTXAS or CUDA_HOME)".to_string()
    };
    eprintln!(
        "cute-rs: JIT-compiling the PTX of module `{}` ({} KiB) for sm_{}{}: {why}",
        source.device_crate,
        source.ptx.len() / 1024,
        cc.0,
        cc.1
    );
}

/// The module a device crate's build left, for [`Gpu::load`](crate::Gpu::load): `module!(my_kernels)`
/// for the module `cute_rs_build::Builder::new(..)` built from the crate `my_kernels`, or
/// `module!(my_kernels, "my_kernels_sm90a")` for one given its own name with `.module(..)`.
///
/// It also links the device crate into the program (`use my_kernels as _`): on the CPU backend the
/// kernels run from that crate's host build.
///
/// # Example
/// ```ignore
/// let gpu = cute_rs_host::Gpu::gpu_or_cpu()?;
/// let module = cute_rs_host::module!(my_kernels); // loaded by the first launch, then cached
/// unsafe { gpu.launch(module, my_kernels::softmax_rows, cfg, (&x, &mut y, rows, cols)).run()? };
/// ```
#[macro_export]
macro_rules! module {
    ($device_crate:ident) => {
        $crate::module!($device_crate, stringify!($device_crate))
    };
    ($device_crate:ident, $module:expr) => {{
        #[allow(unused_imports)]
        use $device_crate as _;
        $crate::ModuleSource {
            device_crate: stringify!($device_crate),
            arch: env!(concat!("CUTE_ARCH_", $module)),
            ptx: include_str!(env!(concat!("CUTE_PTX_", $module))),
            cubin: include_bytes!(env!(concat!("CUTE_CUBIN_", $module))),
        }
    }};
}

impl Module {
    /// Loads `source`: its cubin when it was built for this device, else its PTX (compiled by the
    /// driver); on the CPU backend, the kernels of its device crate's host build.
    pub(crate) fn load_source(ctx: &Arc<Context>, source: &ModuleSource, cc: (u32, u32)) -> Result<Module> {
        // `CUTE_JIT=1` loads the PTX even when a cubin would do: to compare the two paths.
        let jit_forced = std::env::var_os("CUTE_JIT").is_some_and(|v| v == "1");
        // A cubin the driver refuses (a newer ptxas than the driver, say) still leaves the PTX.
        let from_cubin = if source.cubin_runs_on(cc) && !jit_forced {
            Module::load_image(ctx, source.ptx, Some(source.cubin)).ok()
        } else {
            None
        };
        let mut module = match from_cubin {
            Some(m) => m,
            None => {
                if !ctx.cpu {
                    say_jit_once(source, cc, jit_forced);
                }
                Module::load_image(ctx, source.ptx, None)?
            }
        };
        module.device_crate = Some(source.device_crate);
        Ok(module)
    }

    /// Loads `ptx` (JIT-compiled by the driver), with ptxas' error log in the error.
    pub(crate) fn load(ctx: &Arc<Context>, ptx: &str) -> Result<Module> {
        Module::load_image(ctx, ptx, None)
    }

    /// Loads `cubin` when given, else `ptx`; the kernels' names and parameters are read from `ptx`.
    fn load_image(ctx: &Arc<Context>, ptx: &str, cubin: Option<&[u8]>) -> Result<Module> {
        if ctx.cpu {
            // The CPU backend runs the host build of the same kernels: the PTX only says which
            // kernels the module has.
            return Ok(Module {
                inner: Arc::new(ModuleInner { module: std::ptr::null_mut(), ctx: ctx.clone() }),
                device_crate: None,
                entries: ptx_entry_names(ptx),
                param_counts: Vec::new(),
                kernels: Mutex::default(),
            });
        }
        let text = match CString::new(ptx) {
            Ok(c) => c,
            Err(e) => invalid!("the PTX holds a NUL byte at offset {}: PTX is text", e.nul_position()),
        };
        let image: *const c_void = match cubin {
            Some(cubin) => cubin.as_ptr() as *const c_void,
            None => text.as_ptr() as *const c_void,
        };
        ctx.bind()?;
        let mut log = vec![0u8; 1 << 16];
        let mut options = [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
        let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
        let mut module = MaybeUninit::uninit();
        // SAFETY: NUL-terminated image; the log buffer outlives the call and its size is given.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                module.as_mut_ptr(),
                image,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        }
        .result();
        if let Err(e) = r {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            let log = String::from_utf8_lossy(&log[..end]);
            let log = log.trim();
            return Err(HostError::Cuda {
                call: "cuModuleLoadDataEx".into(),
                kernel: None,
                message: if log.is_empty() {
                    driver_message(e)
                } else {
                    format!("{}; JIT log:\n{log}", driver_message(e))
                },
            });
        }
        // SAFETY: initialized by the successful call.
        let module = unsafe { module.assume_init() };
        let entries = ptx_entry_names(ptx);
        let mut param_counts = ptx_param_counts(ptx);
        // Only trust the counts when they line up with the entries found.
        if param_counts.len() != entries.len() {
            param_counts.clear();
        }
        Ok(Module {
            inner: Arc::new(ModuleInner { module, ctx: ctx.clone() }),
            device_crate: None,
            entries,
            param_counts,
            kernels: Mutex::default(),
        })
    }

    /// The kernel named `name` (its Rust name in `kernels/`).
    ///
    /// # Errors
    /// [`HostError::Cuda`] naming `cuModuleGetFunction` and listing the module's kernels when there
    /// is no such kernel.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// let copy = module.kernel("vector_copy")?;
    /// assert!(module.kernel("no_such_kernel").is_err());
    /// # let _ = copy;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn kernel(&self, name: &str) -> Result<Kernel> {
        if self.inner.ctx.cpu {
            return Ok(self.cpu_kernel(*crate::cpu::kernel(name, &self.entries, self.device_crate)?));
        }
        let c_name = match CString::new(name) {
            Ok(c) => c,
            Err(_) => invalid!("kernel name {name:?} holds a NUL byte"),
        };
        self.inner.ctx.bind()?;
        // SAFETY: the module is loaded while `self.inner` lives.
        let func = unsafe { result::module::get_function(self.inner.module, c_name) }.map_err(|e| {
            let mut err = cuda_err("cuModuleGetFunction", Some(name), e);
            if let HostError::Cuda { message, .. } = &mut err {
                message.push_str(&format!("; the module's kernels: {}", self.entries.join(", ")));
            }
            err
        })?;
        let attr = |a: sys::CUfunction_attribute, what: &str| -> Result<u32> {
            // SAFETY: valid function handle.
            unsafe { result::function::get_function_attribute(func, a) }
                .map(|v| v.max(0) as u32)
                .map_err(|e| cuda_err(&format!("cuFuncGetAttribute({what})"), Some(name), e))
        };
        use sys::CUfunction_attribute::*;
        let attributes = KernelAttributes {
            registers: attr(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS")?,
            static_shared_bytes: attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES")?,
            local_bytes: attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES")?,
            const_bytes: attr(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, "CONST_SIZE_BYTES")?,
            max_threads_per_block: attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK")?,
            ptx_version: attr(CU_FUNC_ATTRIBUTE_PTX_VERSION, "PTX_VERSION")?,
            binary_version: attr(CU_FUNC_ATTRIBUTE_BINARY_VERSION, "BINARY_VERSION")?,
        };
        let max_dynamic =
            attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "MAX_DYNAMIC_SHARED_SIZE_BYTES")?;
        Ok(Kernel {
            func,
            name: name.to_string(),
            attributes,
            params: self
                .entries
                .iter()
                .position(|e| e == name)
                .and_then(|i| self.param_counts.get(i))
                .and_then(|&count| param_sizes(func, count)),
            max_dynamic_shared: AtomicU32::new(max_dynamic),
            module: self.inner.clone(),
            cpu: None,
        })
    }

    /// The kernel `f` (a [`KernelFn`](cute_rs_tensor::KernelFn) that `#[kernel]` defined), looked up
    /// once and then cached by the module; on the CPU backend, its host build.
    ///
    /// # Errors
    /// [`HostError::Invalid`] when the module has no such entry (a kernel of another module, or of
    /// another build of the device crate), [`HostError::Cuda`] when the driver cannot give it.
    ///
    /// # Example
    /// ```
        /// #[cute_rs_tensor::kernel]
    /// pub fn nothing() {}
    ///
    /// let cpu = cute_rs_host::Gpu::cpu();
    /// let module = cpu.load_module(".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry nothing() { ret; }\n")?;
    /// let k = module.function(nothing)?;
    /// assert_eq!(k.name(), "nothing");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn function<P: 'static>(&self, f: cute_rs_tensor::KernelFn<P>) -> Result<Arc<Kernel>> {
        let name = f.name();
        if let Some(k) = self.kernels.lock().unwrap_or_else(|e| e.into_inner()).get(name) {
            return Ok(k.clone());
        }
        if !self.entries.iter().any(|e| e == name) {
            invalid!(
                "kernel `{name}` is not in this module{}; its kernels: {}",
                self.device_crate.map(|c| format!(" (built from `{c}`)")).unwrap_or_default(),
                abbreviated(&self.entries)
            );
        }
        let kernel = if self.inner.ctx.cpu {
            self.cpu_kernel(*f.cpu())
        } else {
            self.kernel(name)?
        };
        let kernel = Arc::new(kernel);
        self.kernels.lock().unwrap_or_else(|e| e.into_inner()).insert(name, kernel.clone());
        Ok(kernel)
    }

    /// The CPU backend's kernel `k` of this module: its host build, with the backend's limits.
    fn cpu_kernel(&self, k: cute_rs_tensor::device::cpu::CpuKernel) -> Kernel {
        Kernel {
            func: std::ptr::null_mut(),
            name: k.name.to_string(),
            attributes: crate::cpu::attributes(),
            params: Some(k.params.to_vec()),
            max_dynamic_shared: AtomicU32::new(cute_rs_tensor::device::cpu::SHARED_BYTES_PER_BLOCK),
            module: self.inner.clone(),
            cpu: Some(k),
        }
    }

    /// The names of the module's kernels, as its PTX declares them.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// assert!(module.kernel_names().iter().any(|k| k == "vector_copy"));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn kernel_names(&self) -> &[String] {
        &self.entries
    }
}

/// At most 20 names of `names`, then how many more.
fn abbreviated(names: &[String]) -> String {
    let shown = names.iter().take(20).map(String::as_str).collect::<Vec<_>>().join(", ");
    match names.len() {
        0 => "none".to_string(),
        n if n > 20 => format!("{shown} and {} more", n - 20),
        _ => shown,
    }
}

/// The sizes of a function's `count` parameters (counted in its PTX), or `None` when the driver
/// cannot tell. Only existing parameters are asked for: probing past the last one is a failing
/// driver call, which compute-sanitizer reports as an error.
fn param_sizes(func: sys::CUfunction, count: usize) -> Option<Vec<usize>> {
    let mut sizes = Vec::with_capacity(count);
    for i in 0..count {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: valid function handle and out-parameters.
        match unsafe { sys::cuFuncGetParamInfo(func, i, &mut offset, &mut size) }.result() {
            Ok(()) => sizes.push(size),
            Err(_) => return None,
        }
    }
    Some(sizes)
}

impl Kernel {
    /// The kernel's name.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// assert_eq!(module.kernel("vector_copy")?.name(), "vector_copy");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Registers, static shared memory, local memory and limits of the compiled kernel.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// let k = module.kernel("vector_copy")?;
    /// assert!(k.attributes().max_threads_per_block >= 256);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn attributes(&self) -> &KernelAttributes {
        &self.attributes
    }

    /// The sizes in bytes of the kernel's parameters, in order (`None` if the driver cannot tell):
    /// 8 for a pointer, 4 for a `u32`, 128 for a [`TensorMap`](crate::TensorMap) passed by value.
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// let k = module.kernel("vector_copy")?;
    /// assert_eq!(k.param_sizes().map(|p| p.len()), Some(2));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn param_sizes(&self) -> Option<&[usize]> {
        self.params.as_deref()
    }

    /// The limits a launch is validated against (see [`validate_launch`](crate::validate_launch)).
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// let limits = module.kernel("vector_copy")?.limits();
    /// assert_eq!(limits.name, "vector_copy");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn limits(&self) -> crate::KernelLimits {
        crate::KernelLimits {
            name: self.name.clone(),
            max_threads_per_block: self.attributes.max_threads_per_block,
            registers: self.attributes.registers,
            static_shared_bytes: self.attributes.static_shared_bytes,
        }
    }

    /// How many clusters of `cluster` blocks of `block` threads with `shared_mem_bytes` of
    /// dynamic shared memory can run at once on the device (`cuOccupancyMaxActiveClusters`): the
    /// grid of a persistent kernel launched in clusters. It can be less than the SM count divided
    /// by the cluster size, since a cluster's blocks must share a GPC. On the CPU backend: the
    /// multiprocessors of its properties divided by the cluster size.
    ///
    /// # Errors
    /// [`HostError::Cuda`](crate::HostError::Cuda) naming the call when the driver refuses the
    /// configuration (for example more shared memory than a block can have).
    ///
    /// # Example
    /// ```no_run
    /// # let gpu = cute_rs_host::Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// let k = module.kernel("cluster_ids")?;
    /// let clusters = k.max_active_clusters((128, 1, 1), 0, (2, 1, 1))?;
    /// assert!(clusters >= 1);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn max_active_clusters(&self, block: (u32, u32, u32), shared_mem_bytes: u32, cluster: (u32, u32, u32)) -> Result<u32> {
        let size = (cluster.0 * cluster.1 * cluster.2).max(1);
        if self.cpu.is_some() {
            return Ok((crate::cpu::properties().multiprocessors / size).max(1));
        }
        self.ensure_dynamic_shared(shared_mem_bytes)?;
        self.module.ctx.bind()?;
        // SAFETY: an all-zero attribute is valid plain data; the fields are set below.
        let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = cluster.0;
        attr.value.clusterDim.y = cluster.1;
        attr.value.clusterDim.z = cluster.2;
        let config = sys::CUlaunchConfig {
            gridDimX: cluster.0,
            gridDimY: cluster.1,
            gridDimZ: cluster.2,
            blockDimX: block.0,
            blockDimY: block.1,
            blockDimZ: block.2,
            sharedMemBytes: shared_mem_bytes,
            hStream: std::ptr::null_mut(),
            attrs: &mut attr,
            numAttrs: 1,
        };
        let mut clusters: std::ffi::c_int = 0;
        // SAFETY: valid function handle; `config` and `attr` outlive the call.
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, self.func, &config) }
            .result()
            .map_err(|e| cuda_err("cuOccupancyMaxActiveClusters", Some(&self.name), e))?;
        Ok(clusters.max(0) as u32)
    }

    /// Raises the kernel's dynamic shared memory limit to `bytes` if it is lower.
    pub(crate) fn ensure_dynamic_shared(&self, bytes: u32) -> Result<()> {
        // The CPU backend has no per-kernel limit to raise (its launch checks the block's).
        if self.cpu.is_some() || bytes <= self.max_dynamic_shared.load(Ordering::Relaxed) {
            return Ok(());
        }
        self.module.ctx.bind()?;
        // SAFETY: valid function handle.
        unsafe {
            result::function::set_function_attribute(
                self.func,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .map_err(|e| {
            cuda_err(&format!("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, {bytes})"), Some(&self.name), e)
        })?;
        self.max_dynamic_shared.fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{ptx_entry_names, ptx_param_counts};

    #[test]
    fn entry_names() {
        let ptx = "//\n// .entry commented(\n.version 8.3\n.target sm_90\n\
                   .visible .entry vector_copy(\n\t.param .u64 vector_copy_param_0\n)\n{\n\tret;\n}\n\
                   .weak .entry w_1$x()\n{ ret; }\n.func helper()\n{ ret; }\n";
        assert_eq!(ptx_entry_names(ptx), ["vector_copy", "w_1$x"]);
        assert_eq!(ptx_param_counts(ptx), [1, 0]);
        assert!(ptx_entry_names("").is_empty());
    }
}
