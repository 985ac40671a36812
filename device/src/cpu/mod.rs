//! The CPU backend: runs kernels written with the `#[kernel]` attribute on the host, with the semantics
//! of the GPU primitives in [`device`](super).
//!
//! # How a grid runs
//! [`launch`] runs every thread of the grid as a *logical thread* of one cooperative scheduler:
//! exactly one logical thread runs at a time, and control passes only at the primitives that
//! synchronize (block and warp barriers, shuffles and votes, `mma`/`ldmatrix` fragments, mbarrier
//! waits, spin-polling atomics). Threads run on *workers*: coroutines of the launching OS thread,
//! each with a stack of its own (512 KiB, or `CUTE_CPU_STACK_BYTES`; a stack overflow ends the
//! process). A thread that never waits runs start to finish as a plain call on a worker; a thread
//! that waits keeps its worker suspended until the scheduler resumes it, a switch of stacks in
//! user space (no other OS thread runs, none is woken). So barriers, shuffles and inter-thread
//! waits work for any block size up to 1,024, and the schedule is deterministic: the same launch
//! always interleaves its threads the same way (see [`Schedule`]).
//!
//! Blocks start lazily, in linear order, when no started thread can run: a grid of many small
//! blocks needs little memory, and a kernel whose blocks wait for each other (a producer block, a
//! cluster) still finds them resident, like a cooperative launch.
//!
//! # Errors instead of hangs
//! A launch returns an [`CpuError`] (never hangs, never aborts the process) when:
//! - a thread panics (an out-of-bounds access through a tensor view, an `unwrap`, a trap): the
//!   error names the kernel, the block, the thread and the panic's message;
//! - a barrier or warp collective can never complete (threads exited or diverged without reaching
//!   it): the error names the barrier, the block or warp, who waits and who never came;
//! - lanes of one warp collective disagree on its mask, or a mask names lanes that do not exist;
//! - threads only spin (poll an mbarrier or an atomic) with no progress possible.
//!
//! # Registering kernels
//! The `#[kernel]` attribute (`crate::kernel`) adds each kernel to [`KERNELS`] (a link-time registry),
//! with its name, parameter sizes and an entry point taking the arguments as bytes; the host
//! runtime finds kernels there by name, like a PTX module's entry points.
//!
//! ```
//! use cute_rs_device::cpu::{self, CpuKernel, CpuLaunch};
//! use cute_rs_device::{ids, sync, shared};
//!
//! // What `#[kernel]` generates on the host (normally never written by hand).
//! unsafe fn reverse(data: *mut u32) {
//!     let s = cute_rs_device::shared_array!(REVERSE_DEMO: [u32; 64]);
//!     let t = ids::thread_idx_x() as usize;
//!     s.write(t, *data.add(t));
//!     sync::sync_threads();
//!     *data.add(t) = s.read(63 - t);
//! }
//! unsafe fn entry(args: &[&[u8]]) {
//!     reverse(core::ptr::read_unaligned(args[0].as_ptr() as *const *mut u32))
//! }
//! let kernel = CpuKernel { name: "reverse", params: &[8], entry };
//! let mut data: Vec<u32> = (0..64).collect();
//! let ptr = data.as_mut_ptr() as usize as u64;
//! cpu::launch(&kernel, &CpuLaunch::linear(1, 64), &[&ptr.to_le_bytes()]).unwrap();
//! assert_eq!(data, (0..64).rev().collect::<Vec<u32>>());
//! ```

mod context;
mod scheduler;

pub use context::{
    barrier, block_reduce, in_kernel, live_lanes, misuse, shared_dynamic, shared_static, shared_window, spin_poll,
    thread, warp_exchange, CpuThread, WarpSlot, WARP_SLOT_WORDS,
};
pub(crate) use context::progress;
pub use scheduler::{describe_faults_with, launch, note_fault, run_block, CpuError, CpuLaunch, Schedule};

#[doc(hidden)]
pub use linkme;

use super::ids::Dim3;

/// A kernel compiled for the host: what `#[kernel]` registers in [`KERNELS`].
///
/// ```
/// use cute_rs_device::cpu::CpuKernel;
/// unsafe fn entry(_: &[&[u8]]) {}
/// let k = CpuKernel { name: "nothing", params: &[], entry };
/// assert_eq!(k.name, "nothing");
/// ```
#[derive(Clone, Copy)]
pub struct CpuKernel {
    /// The kernel's name (its PTX entry name).
    pub name: &'static str,
    /// The size in bytes of each parameter, in order.
    pub params: &'static [usize],
    /// Calls the kernel with its arguments, each given as exactly `params[i]` bytes.
    ///
    /// Safety: the caller checked the argument sizes; the arguments satisfy the kernel's contract.
    pub entry: unsafe fn(&[&[u8]]),
}

impl core::fmt::Debug for CpuKernel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CpuKernel").field("name", &self.name).field("params", &self.params).finish()
    }
}

/// Every kernel of the program compiled for the host, registered by `#[kernel]` at link time.
///
/// ```
/// let names: Vec<&str> = cute_rs_device::cpu::KERNELS.iter().map(|k| k.name).collect();
/// # let _ = names;
/// ```
#[linkme::distributed_slice]
pub static KERNELS: [CpuKernel];

/// The registered kernel named `name`, if any.
///
/// ```
/// assert!(cute_rs_device::cpu::find_kernel("no such kernel").is_none());
/// ```
pub fn find_kernel(name: &str) -> Option<&'static CpuKernel> {
    KERNELS.iter().find(|k| k.name == name)
}

/// Bytes of shared memory a block may use on the CPU backend: the H100's 227 KiB.
pub const SHARED_BYTES_PER_BLOCK: u32 = crate::shared::SM90_SHARED_BYTES_PER_BLOCK;


/// The 3-D index of linear position `i` in `dims` (x fastest).
pub(crate) fn delinear(i: u32, dims: Dim3) -> Dim3 {
    Dim3 { x: i % dims.x, y: (i / dims.x) % dims.y, z: i / (dims.x * dims.y) }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_tensor_core;
