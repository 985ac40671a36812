//! The CPU backend of the host runtime: a [`Gpu`](crate::Gpu) made by [`Gpu::cpu`](crate::Gpu::cpu)
//! keeps its "device" memory in host allocations and runs kernels with
//! [`cute_rs_tensor::device::cpu::launch`], the kernels being the device crate compiled for the host
//! (registered by its `#[kernel]` attribute). Everything else (modules, launch validation, copies,
//! timing) goes through the same API as on a GPU.

use std::alloc::Layout as AllocLayout;

use cute_rs_tensor::device::cpu::{self, CpuKernel, CpuLaunch, Schedule};
use cute_rs_tensor::device::ids::Dim3;

use crate::error::invalid;
use crate::{DeviceProperties, HostError, KernelAttributes, LaunchConfig, Result};

/// Alignment of CPU-backend buffers: as `cuMemAlloc`'s (256 bytes), so that vector and TMA
/// alignment preconditions behave as on a GPU.
const BUFFER_ALIGN: usize = 256;

/// The byte fresh CPU-backend buffers hold (GPU memory is not zeroed either): reads of memory
/// nobody wrote show as `0xCDCDCDCD` words.
const BUFFER_POISON: u8 = 0xCD;

/// A host allocation standing for device memory: its address as a device pointer.
pub(crate) fn alloc(bytes: usize) -> Result<u64> {
    if bytes == 0 {
        return Ok(0);
    }
    // Between guard pages when possible: a kernel's access past either end is then reported.
    if let Some(p) = crate::guard_pages::alloc(bytes, BUFFER_POISON) {
        return Ok(p);
    }
    let Ok(layout) = AllocLayout::from_size_align(bytes, BUFFER_ALIGN) else {
        invalid!("{bytes} bytes do not fit in the address space");
    };
    // SAFETY: non-zero size.
    let p = unsafe { std::alloc::alloc(layout) };
    if p.is_null() {
        return Err(HostError::Invalid(format!("the CPU backend could not allocate {bytes} bytes")));
    }
    // SAFETY: `p` holds `bytes` bytes.
    unsafe { std::ptr::write_bytes(p, BUFFER_POISON, bytes) };
    Ok(p as u64)
}

/// Frees what [`alloc`] returned for `bytes` bytes.
pub(crate) fn free(ptr: u64, bytes: usize) {
    if ptr != 0 && !crate::guard_pages::free(ptr) {
        // SAFETY: allocated by `alloc` with this size and alignment.
        unsafe { std::alloc::dealloc(ptr as *mut u8, AllocLayout::from_size_align_unchecked(bytes, BUFFER_ALIGN)) }
    }
}

/// What the CPU backend reports as its device: the limits of an sm_90 GPU (so that launches are
/// validated as they would be there), named for what it is.
pub(crate) fn properties() -> DeviceProperties {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    DeviceProperties {
        name: format!("CPU backend ({threads} host threads, one GPU thread running at a time)"),
        max_shared_memory_per_block_optin: cpu::SHARED_BYTES_PER_BLOCK,
        driver_version: (0, 0),
        ..DeviceProperties::sm90_example()
    }
}

/// The attributes a CPU-backend kernel reports.
pub(crate) fn attributes() -> KernelAttributes {
    KernelAttributes {
        registers: 0,
        static_shared_bytes: 0,
        local_bytes: 0,
        const_bytes: 0,
        max_threads_per_block: 1024,
        ptx_version: 0,
        binary_version: 0,
    }
}

/// The registered host build of kernel `name` of a module whose PTX lists `entries`, built from
/// `device_crate` when known.
pub(crate) fn kernel(name: &str, entries: &[String], device_crate: Option<&str>) -> Result<&'static CpuKernel> {
    if !entries.iter().any(|e| e == name) {
        invalid!("kernel `{name}` is not in the module; the module's kernels: {}", entries.join(", "));
    }
    match cpu::find_kernel(name) {
        Some(k) => Ok(k),
        None => {
            let krate = device_crate.unwrap_or("my_kernels");
            invalid!(
                "kernel `{name}` is in the module's PTX but no crate linked into this program registered it for the CPU \
                 backend. Its device crate must be linked into the host program: load the module with \
                 `cute_rs_host::module!({krate})`, or add `use {krate} as _;` (and depend on the device crate in the \
                 host's Cargo.toml). Kernels that use GPU-only instructions such as wgmma are not registered at all."
            )
        }
    }
}

/// Runs `kernel` on the CPU backend: the launch shape of `cfg` (and `cluster`), the arguments as
/// the bytes a GPU launch would pass.
pub(crate) fn run(
    kernel: &CpuKernel,
    cfg: &LaunchConfig,
    cluster: Option<(u32, u32, u32)>,
    schedule: Schedule,
    args: &[&[u8]],
) -> Result<()> {
    let d = |(x, y, z): (u32, u32, u32)| Dim3 { x, y, z };
    let launch = CpuLaunch {
        grid: d(cfg.grid),
        block: d(cfg.block),
        cluster: d(cluster.unwrap_or((1, 1, 1))),
        dynamic_shared: cfg.shared_mem_bytes,
        schedule,
    };
    let result = cpu::launch(kernel, &launch, args).map_err(|e| HostError::Kernel { kernel: e.kernel, message: e.message });
    crate::guard_pages::close_opened();
    result
}
