//! Transaction barriers (`mbarrier`) and TMA bulk tensor copies (`cp.async.bulk.tensor`, sm_90).
//!
//! # mbarrier
//! An [`Mbarrier`] is a 64-bit object in shared memory that counts *arrivals* and *transaction
//! bytes* for one *phase* at a time. [`Mbarrier::init`] sets the number of arrivals a phase
//! expects; a phase completes when all of them have arrived **and** every byte announced with
//! [`Mbarrier::arrive_expect_tx`] / [`Mbarrier::expect_tx`] has been delivered (TMA loads deliver
//! bytes with `complete_tx`). Then the barrier moves to the next phase, re-armed with the same
//! arrival count.
//!
//! Phases are waited for by **parity**: the first phase after `init` has parity 0, the next 1, then
//! 0 again, ... [`Mbarrier::try_wait_parity`]`(p)` is true once the phase of parity `p` is over:
//! it is true right away for the *immediately preceding* phase's parity (so right after `init`,
//! parity 1 counts as complete), and false for the current phase until it completes. A thread that
//! waits for phase after phase keeps a parity bit and flips it after each wait:
//!
//! ```
//! use layout_tensor::device::tma::Mbarrier;
//! let bar = Mbarrier::new();
//! unsafe {
//!     bar.init(1);
//!     let mut phase = 0;
//!     for _ in 0..3 {
//!         assert!(!bar.try_wait_parity(phase)); // the current phase is pending
//!         bar.arrive();                          // its only arrival: it completes
//!         bar.wait_parity(phase);
//!         phase ^= 1;
//!     }
//! }
//! ```
//!
//! (The example runs the CPU model of the barrier: on targets other than `nvptx64` an `Mbarrier`
//! is a single-threaded simulation of the same state machine.)
//!
//! # TMA
//! A TMA copy moves a *box* of a tensor described by a 128-byte *tensor map* (built on the host:
//! `host::Gpu::tensor_map`) between global and shared memory, in one instruction issued by one
//! thread. Loads ([`tma_load_2d`] ... [`tma_load_5d`]) complete on an mbarrier: announce the
//! box's byte count with [`Mbarrier::arrive_expect_tx`], issue the load, and wait for the phase.
//! Elements of the box outside the tensor are filled with zero (or NaN, as the tensor map says).
//! Stores ([`tma_store_2d`] ... [`tma_store_5d`]) complete in *bulk groups*: [`bulk_commit_group`],
//! then [`bulk_wait_group_read`] (the shared-memory source may be reused) or [`bulk_wait_group`]
//! (the writes are done). Elements outside the tensor are not written.
//!
//! Coordinates are element indices per mode, innermost (stride-1) mode first. A load's box may
//! hang over either end of the tensor (coordinates may be negative): that part of the box is out of
//! bounds. Two hardware rules (seen on an H200, where breaking either makes the copy an *illegal
//! instruction* that kills the context):
//! - the innermost start coordinate times the element size is a multiple of 16 bytes
//!   (e.g. a multiple of 4 for `f32`), for loads and stores;
//! - a store's coordinates are not negative: a store box may hang over the high end of a mode
//!   (the elements outside are dropped), not over the low end.
//!
//! The tensor map lives in **global memory**: Rust cannot declare a `__grid_constant__` kernel
//! parameter, so the host uploads the map's 128 bytes and passes a pointer
//! (`*const TmaDescriptor`). Before its first use in a kernel, call
//! [`fence_proxy_tensormap_acquire`] on it (the copy engine reads maps through the *tensormap
//! proxy*, which must observe the bytes the host wrote).
//!
//! Shared memory written by TMA loads must be aligned to 128 bytes, and to the swizzle's period
//! with a swizzle (128-byte swizzle: 1024 bytes), because the swizzle is a function of the
//! shared-memory address bits. Shared memory that ordinary stores wrote and a TMA store reads
//! needs [`fence_proxy_async_shared_cta`] in each writing thread, then a block barrier.
//!
//! A whole load, as a kernel writes it (one block, `smem` 1024-byte aligned):
//!
//! ```ignore
//! use layout_tensor::device::tma::*;
//! if thread_idx_x() == 0 {
//!     bar.init(1);
//!     fence_mbarrier_init();
//! }
//! __syncthreads();
//! if thread_idx_x() == 0 {
//!     fence_proxy_tensormap_acquire(desc);
//!     bar.arrive_expect_tx(BOX_BYTES);
//!     tma_load_2d(smem, desc, [x0, y0], bar);
//! }
//! bar.wait_parity(0);
//! // smem holds the box (swizzled as the tensor map says)
//! ```

use core::cell::UnsafeCell;

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

use super::shared::generic_to_shared;

/// A transaction barrier (`mbarrier`, 8 bytes, 8-byte aligned) in shared memory.
///
/// On the GPU it must live in shared memory (the methods compute its shared-window address);
/// obtain one from a pointer into a shared array with [`Mbarrier::from_ptr`]. On other targets it
/// is a single-threaded model of the hardware state machine (arrivals, transaction bytes, phase
/// parity), for host-side tests and the CPU backend.
///
/// # Example
/// ```
/// use layout_tensor::device::tma::Mbarrier;
/// let bar = Mbarrier::new();
/// unsafe {
///     bar.init(2);
///     bar.arrive();
///     assert!(!bar.try_wait_parity(0));
///     bar.arrive();
///     assert!(bar.try_wait_parity(0));
/// }
/// ```
#[repr(C, align(8))]
pub struct Mbarrier {
    state: UnsafeCell<u64>,
}

// SAFETY: the object is shared between the threads of a block by design; every access goes
// through mbarrier instructions (atomic in hardware).
unsafe impl Sync for Mbarrier {}

impl Default for Mbarrier {
    fn default() -> Self {
        Mbarrier::new()
    }
}

impl Mbarrier {
    /// A zeroed, uninitialized barrier (call [`Mbarrier::init`] before any other method). Useful
    /// on the host; on the GPU barriers are placed in shared memory instead.
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe { bar.init(1) };
    /// ```
    pub const fn new() -> Mbarrier {
        Mbarrier { state: UnsafeCell::new(0) }
    }

    /// The barrier at `ptr`.
    ///
    /// # Safety
    /// `ptr` is 8-byte aligned, valid for 8 bytes for `'a`, and (on the GPU) in shared memory.
    ///
    /// # Example
    /// ```
    /// use layout_tensor::device::tma::Mbarrier;
    /// let mut word = 0u64;
    /// let bar = unsafe { Mbarrier::from_ptr(&mut word as *mut u64 as *mut u8) };
    /// unsafe { bar.init(1) };
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u8) -> &'a Mbarrier {
        // SAFETY: the caller guarantees alignment, validity and lifetime.
        unsafe { &*(ptr as *const Mbarrier) }
    }

    /// The barrier's 32-bit shared-window address (what the PTX instructions take).
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// assert_eq!(bar.address() % 8, 0);
    /// ```
    #[inline(always)]
    pub fn address(&self) -> u32 {
        generic_to_shared(self.state.get())
    }

    /// Initializes the barrier for `count` arrivals per phase, phase parity 0, no pending
    /// transaction bytes (`mbarrier.init.shared::cta.b64`).
    ///
    /// # Safety
    /// `1 <= count < 2^20`. Exactly one thread initializes the barrier, before any other thread uses
    /// it: follow with [`fence_mbarrier_init`] and a block barrier. No phase may be in progress
    /// (re-initializing a barrier others wait on is undefined).
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe { bar.init(128) };
    /// ```
    #[inline(always)]
    pub unsafe fn init(&self, count: u32) {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!(
                "mbarrier.init.shared::cta.b64 [{a}], {c};",
                a = in(reg32) self.address(),
                c = in(reg32) count,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            let c = count as u64 & cpu_state::FIELD;
            *self.state.get() = c | (c << cpu_state::EXPECTED);
        }
    }

    /// Arrives on the barrier (`mbarrier.arrive.shared::cta.b64`, release semantics at CTA scope):
    /// counts one of the current phase's arrivals. Returns the barrier's state token from before
    /// the arrival (opaque: for `mbarrier.test_wait` with a token; parity waits do not need it).
    ///
    /// # Safety
    /// The barrier is initialized; the current phase still expects an arrival (arriving more often
    /// than `count` per phase is undefined).
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     let _token = bar.arrive();
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn arrive(&self) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        {
            let token: u64;
            unsafe {
                asm!(
                    "mbarrier.arrive.shared::cta.b64 {t}, [{a}];",
                    t = out(reg64) token,
                    a = in(reg32) self.address(),
                    options(nostack),
                );
            }
            token
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            super::cpu::progress();
            cpu_state::arrive(&mut *self.state.get(), 0)
        }
    }

    /// Announces `bytes` transaction bytes for the current phase, then arrives
    /// (`mbarrier.arrive.expect_tx.shared::cta.b64`): the phase now also waits for `bytes` bytes of
    /// asynchronous copies (TMA loads) completing on this barrier. Returns the state token like
    /// [`Mbarrier::arrive`].
    ///
    /// # Safety
    /// As [`Mbarrier::arrive`], and `bytes < 2^20`; the copies that deliver the bytes target this
    /// barrier in this phase.
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.arrive_expect_tx(64);
    ///     assert!(!bar.try_wait_parity(0)); // 64 bytes still to come
    ///     bar.complete_tx(64);              // (what a TMA load does on completion)
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn arrive_expect_tx(&self, bytes: u32) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        {
            let token: u64;
            unsafe {
                asm!(
                    "mbarrier.arrive.expect_tx.shared::cta.b64 {t}, [{a}], {b};",
                    t = out(reg64) token,
                    a = in(reg32) self.address(),
                    b = in(reg32) bytes,
                    options(nostack),
                );
            }
            token
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            super::cpu::progress();
            cpu_state::arrive(&mut *self.state.get(), bytes)
        }
    }

    /// Announces `bytes` more transaction bytes for the current phase without arriving
    /// (`mbarrier.expect_tx.relaxed.cta.shared::cta.b64`).
    ///
    /// # Safety
    /// The barrier is initialized and its current phase is not complete; `bytes < 2^20`.
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.expect_tx(16);
    ///     bar.arrive();
    ///     assert!(!bar.try_wait_parity(0));
    ///     bar.complete_tx(16);
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn expect_tx(&self, bytes: u32) {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!(
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{a}], {b};",
                a = in(reg32) self.address(),
                b = in(reg32) bytes,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            super::cpu::progress();
            cpu_state::add_tx(&mut *self.state.get(), bytes as i64)
        }
    }

    /// Marks `bytes` transaction bytes of the current phase as delivered
    /// (`mbarrier.complete_tx.relaxed.cta.shared::cta.b64`), as a TMA load does when its data has
    /// landed. For producers that deliver data by other means.
    ///
    /// # Safety
    /// The barrier is initialized; the bytes were announced for the current phase.
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.arrive_expect_tx(8);
    ///     bar.complete_tx(8);
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn complete_tx(&self, bytes: u32) {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!(
                "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [{a}], {b};",
                a = in(reg32) self.address(),
                b = in(reg32) bytes,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            super::cpu::progress();
            cpu_state::add_tx(&mut *self.state.get(), -(bytes as i64))
        }
    }

    /// Whether the phase of parity `parity & 1` is complete (`mbarrier.try_wait.parity.shared::cta.b64`,
    /// acquire semantics at CTA scope): true for the immediately preceding phase's parity, and for
    /// the current phase once it has completed. May suspend the thread for a short, system-defined
    /// time before answering false; loop on it, or use [`Mbarrier::wait_parity`].
    ///
    /// When it returns true, the writes released by the phase's arrivals and the bytes of its TMA
    /// loads are visible to this thread.
    ///
    /// # Safety
    /// The barrier is initialized. `parity` names the current or the immediately preceding phase
    /// (a phase two or more behind cannot be told from the current one).
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     assert!(bar.try_wait_parity(1));  // "the phase before the first" is complete
    ///     assert!(!bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn try_wait_parity(&self, parity: u32) -> bool {
        #[cfg(target_arch = "nvptx64")]
        {
            let done: u32;
            unsafe {
                asm!(
                    "{{ .reg .pred p;",
                    "mbarrier.try_wait.parity.shared::cta.b64 p, [{a}], {q};",
                    "selp.u32 {d}, 1, 0, p; }}",
                    d = out(reg32) done,
                    a = in(reg32) self.address(),
                    q = in(reg32) parity & 1,
                    options(nostack),
                );
            }
            done != 0
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            let done = cpu_state::parity(*self.state.get()) != (parity & 1);
            // A failed wait is a poll: other threads of the CPU backend run meanwhile.
            if !done && super::cpu::in_kernel() {
                super::cpu::spin_poll(self.state.get() as usize);
            }
            done
        }
    }

    /// [`Mbarrier::try_wait_parity`] without suspending: answers at once
    /// (`mbarrier.test_wait.parity.shared::cta.b64`).
    ///
    /// # Safety
    /// As [`Mbarrier::try_wait_parity`].
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     assert!(!bar.test_wait_parity(0));
    ///     bar.arrive();
    ///     assert!(bar.test_wait_parity(0));
    ///     assert!(!bar.test_wait_parity(1)); // the next phase has begun
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn test_wait_parity(&self, parity: u32) -> bool {
        #[cfg(target_arch = "nvptx64")]
        {
            let done: u32;
            unsafe {
                asm!(
                    "{{ .reg .pred p;",
                    "mbarrier.test_wait.parity.shared::cta.b64 p, [{a}], {q};",
                    "selp.u32 {d}, 1, 0, p; }}",
                    d = out(reg32) done,
                    a = in(reg32) self.address(),
                    q = in(reg32) parity & 1,
                    options(nostack),
                );
            }
            done != 0
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            let done = cpu_state::parity(*self.state.get()) != (parity & 1);
            // A failed wait is a poll: other threads of the CPU backend run meanwhile.
            if !done && super::cpu::in_kernel() {
                super::cpu::spin_poll(self.state.get() as usize);
            }
            done
        }
    }

    /// Waits until the phase of parity `parity & 1` is complete: [`Mbarrier::try_wait_parity`] in
    /// a loop.
    ///
    /// # Safety
    /// As [`Mbarrier::try_wait_parity`]; the phase must eventually complete (or the thread hangs).
    ///
    /// # Example
    /// ```
    /// let bar = layout_tensor::device::tma::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.arrive();
    ///     bar.wait_parity(0);
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn wait_parity(&self, parity: u32) {
        // SAFETY: forwarded preconditions.
        while !unsafe { self.try_wait_parity(parity) } {}
    }
}

/// The CPU model of an mbarrier's 64-bit state: pending arrivals (bits 0..21), expected arrivals
/// (21..42), pending transaction bytes (42..63, two's complement) and the phase parity (bit 63).
#[cfg(not(target_arch = "nvptx64"))]
mod cpu_state {
    pub(super) const FIELD: u64 = (1 << 21) - 1;
    pub(super) const EXPECTED: u32 = 21;
    const TX: u32 = 42;

    pub(super) fn parity(s: u64) -> u32 {
        (s >> 63) as u32
    }

    fn tx(s: u64) -> i64 {
        // Sign-extend the 21-bit field.
        ((((s >> TX) & FIELD) << 43) as i64) >> 43
    }

    /// Completes the phase when nothing is pending.
    fn settle(s: u64) -> u64 {
        if s & FIELD == 0 && tx(s) == 0 {
            let expected = (s >> EXPECTED) & FIELD;
            ((s ^ (1 << 63)) & !FIELD) | expected
        } else {
            s
        }
    }

    pub(super) fn add_tx(s: &mut u64, bytes: i64) {
        let t = ((tx(*s) + bytes) as u64) & FIELD;
        *s = settle((*s & !(FIELD << TX)) | (t << TX));
    }

    pub(super) fn arrive(s: &mut u64, tx_bytes: u32) -> u64 {
        let old = *s;
        let t = ((tx(*s) + tx_bytes as i64) as u64) & FIELD;
        let pending = (*s & FIELD).wrapping_sub(1) & FIELD;
        *s = settle((*s & !(FIELD << TX) & !FIELD) | (t << TX) | pending);
        old
    }
}

/// Makes a barrier's [`Mbarrier::init`] visible to the other threads of the cluster and to the
/// asynchronous proxy (TMA) (`fence.mbarrier_init.release.cluster`). Called by the initializing
/// thread after its `init`s, before the block (or cluster) barrier that publishes them.
///
/// # Example
/// ```
/// layout_tensor::device::tma::fence_mbarrier_init();
/// ```
#[inline(always)]
pub fn fence_mbarrier_init() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no preconditions.
    unsafe {
        asm!("fence.mbarrier_init.release.cluster;", options(nostack));
    }
}

/// Orders this thread's shared-memory accesses through the generic proxy (ordinary loads and
/// stores, `stmatrix`) before later accesses through the asynchronous proxy (TMA, wgmma)
/// (`fence.proxy.async.shared::cta`). Needed by each thread that wrote shared memory a TMA store
/// or a wgmma then reads, before the block barrier.
///
/// # Example
/// ```
/// layout_tensor::device::tma::fence_proxy_async_shared_cta();
/// ```
#[inline(always)]
pub fn fence_proxy_async_shared_cta() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no preconditions.
    unsafe {
        asm!("fence.proxy.async.shared::cta;", options(nostack));
    }
}

/// [`fence_proxy_async_shared_cta`] for every state space (`fence.proxy.async`): also orders
/// global-memory accesses of the generic proxy before the asynchronous proxy's.
///
/// # Example
/// ```
/// layout_tensor::device::tma::fence_proxy_async();
/// ```
#[inline(always)]
pub fn fence_proxy_async() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no preconditions.
    unsafe {
        asm!("fence.proxy.async;", options(nostack));
    }
}

/// A CUDA tensor map (`CUtensorMap`) as the device sees it: 128 opaque bytes, 64-byte aligned,
/// encoded on the host (`host::Gpu::tensor_map`, i.e. `cuTensorMapEncodeTiled`) and uploaded to
/// global memory. Kernels take `*const TmaDescriptor` parameters (the host passes the device
/// buffer holding the bytes; `cudaMalloc` memory is 256-byte aligned).
///
/// # Example
/// ```
/// use layout_tensor::device::tma::TmaDescriptor;
/// assert_eq!(core::mem::size_of::<TmaDescriptor>(), 128);
/// assert_eq!(core::mem::align_of::<TmaDescriptor>(), 64);
/// ```
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct TmaDescriptor {
    /// The encoded map.
    pub bytes: [u8; 128],
}

/// Makes the tensor map at `desc` (written to global memory by the host or by generic stores)
/// visible to the copy engine (`fence.proxy.tensormap::generic.acquire.gpu [desc], 128`). Call it
/// once per kernel (per thread that issues TMA copies with this map) before the first copy.
///
/// # Safety
/// `desc` points to a valid, 64-byte-aligned tensor map in global memory.
///
/// # Example
/// ```ignore
/// fence_proxy_tensormap_acquire(desc);
/// tma_load_2d(smem, desc, [0, 0], bar);
/// ```
#[inline(always)]
pub unsafe fn fence_proxy_tensormap_acquire(desc: *const TmaDescriptor) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!(
            "fence.proxy.tensormap::generic.acquire.gpu [{d}], 128;",
            d = in(reg64) desc as u64,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = desc;
}

/// Ends the kernel on a CPU target: TMA copies need the copy engine of a GPU.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
fn no_tma() -> ! {
    panic!("TMA copies need an sm_90 GPU (nvptx64); the CPU backend has none")
}

macro_rules! tma_copies {
    ($(
        $dim:literal: $load:ident, $store:ident, [$($c:ident),+], $tpl:literal, $example:literal;
    )*) => {$(
        #[doc = concat!(
            "Starts a TMA load of the ", $dim, "-D box at `coords` of the tensor map `desc` into shared ",
            "memory at `dst`, completing on `bar`\n(`cp.async.bulk.tensor.", $dim,
            "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`).\n\n",
            "When the data has landed, the copy engine delivers the box's byte count (all of its ",
            "elements, out-of-bounds ones included: box volume x element size) to `bar` as transaction ",
            "bytes. Out-of-bounds elements are filled as the map says (zero, or NaN for floats).\n\n",
            "# Safety\n",
            "- `desc` is a valid ", $dim, "-D tiled tensor map in global memory, made visible with ",
            "[`fence_proxy_tensormap_acquire`];\n",
            "- `coords[0]` times the element size is a multiple of 16 (other coordinates are free, ",
            "negative ones included);\n",
            "- `dst` points into shared memory, 128-byte aligned (aligned to the swizzle period with a ",
            "swizzle: 1024 bytes for 128 B), with room for the box; nobody accesses it until the phase ",
            "completes;\n",
            "- `bar` is an initialized [`Mbarrier`] in shared memory whose current phase expects the ",
            "box's bytes (see [`Mbarrier::arrive_expect_tx`]).\n\n",
            "# Example\n```ignore\n", $example, "\n```"
        )]
        #[inline(always)]
        pub unsafe fn $load(dst: *mut u8, desc: *const TmaDescriptor, coords: [i32; $dim], bar: &Mbarrier) {
            #[cfg(target_arch = "nvptx64")]
            unsafe {
                let [$($c),+] = coords;
                asm!(
                    concat!(
                        "cp.async.bulk.tensor.", $dim,
                        "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{dst}], [{desc}, {{",
                        $tpl, "}}], [{bar}];"
                    ),
                    dst = in(reg32) generic_to_shared(dst),
                    desc = in(reg64) desc as u64,
                    bar = in(reg32) bar.address(),
                    $($c = in(reg32) $c,)+
                    options(nostack),
                );
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = (dst, desc, coords, bar);
                no_tma()
            }
        }

        #[doc = concat!(
            "Starts a TMA store of the ", $dim, "-D box at `coords` of the tensor map `desc` from shared ",
            "memory at `src`, in the current bulk group\n(`cp.async.bulk.tensor.", $dim,
            "d.global.shared::cta.tile.bulk_group`).\n\n",
            "Elements of the box past the end of the tensor are not written. Commit with ",
            "[`bulk_commit_group`], then wait with [`bulk_wait_group_read`] before overwriting `src` ",
            "and with [`bulk_wait_group`] before relying on the global writes.\n\n",
            "# Safety\n",
            "- `desc` is a valid ", $dim, "-D tiled tensor map in global memory, made visible with ",
            "[`fence_proxy_tensormap_acquire`];\n",
            "- every coordinate is non-negative, and `coords[0]` times the element size is a multiple ",
            "of 16;\n",
            "- `src` points into shared memory, 128-byte aligned (1024 with a 128-byte swizzle), holding ",
            "the box as the map's swizzle arranges it; the threads that wrote it called ",
            "[`fence_proxy_async_shared_cta`] and then a block barrier preceded this call.\n\n",
            "# Example\n```ignore\n",
            "fence_proxy_async_shared_cta();\n__syncthreads();\nif thread_idx_x() == 0 {\n",
            "    fence_proxy_tensormap_acquire(desc);\n    ", stringify!($store), "(desc, [0; ", $dim, "], smem);\n",
            "    bulk_commit_group();\n    bulk_wait_group::<0>();\n}\n```"
        )]
        #[inline(always)]
        pub unsafe fn $store(desc: *const TmaDescriptor, coords: [i32; $dim], src: *const u8) {
            #[cfg(target_arch = "nvptx64")]
            unsafe {
                let [$($c),+] = coords;
                asm!(
                    concat!(
                        "cp.async.bulk.tensor.", $dim,
                        "d.global.shared::cta.tile.bulk_group [{desc}, {{", $tpl, "}}], [{src}];"
                    ),
                    src = in(reg32) generic_to_shared(src),
                    desc = in(reg64) desc as u64,
                    $($c = in(reg32) $c,)+
                    options(nostack),
                );
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                let _ = (src, desc, coords);
                no_tma()
            }
        }
    )*};
}

tma_copies! {
    1: tma_load_1d, tma_store_1d, [c0], "{c0}",
        "bar.arrive_expect_tx(256 * 4);\ntma_load_1d(smem, desc, [i * 256], bar);\nbar.wait_parity(phase);";
    2: tma_load_2d, tma_store_2d, [c0, c1], "{c0}, {c1}",
        "// a 32 x 16 box of f32 (inner mode first) at column x0, row y0\nbar.arrive_expect_tx(32 * 16 * 4);\ntma_load_2d(smem, desc, [x0, y0], bar);\nbar.wait_parity(phase);";
    3: tma_load_3d, tma_store_3d, [c0, c1, c2], "{c0}, {c1}, {c2}",
        "bar.arrive_expect_tx(BOX_BYTES);\ntma_load_3d(smem, desc, [x, y, z], bar);\nbar.wait_parity(phase);";
    4: tma_load_4d, tma_store_4d, [c0, c1, c2, c3], "{c0}, {c1}, {c2}, {c3}",
        "bar.arrive_expect_tx(BOX_BYTES);\ntma_load_4d(smem, desc, [x, y, z, w], bar);\nbar.wait_parity(phase);";
    5: tma_load_5d, tma_store_5d, [c0, c1, c2, c3, c4], "{c0}, {c1}, {c2}, {c3}, {c4}",
        "bar.arrive_expect_tx(BOX_BYTES);\ntma_load_5d(smem, desc, [0, 0, 0, 0, batch], bar);\nbar.wait_parity(phase);";
}

/// Closes the TMA stores (and other bulk async copies) this thread issued since the last commit
/// into a bulk group (`cp.async.bulk.commit_group`).
///
/// # Example
/// ```
/// layout_tensor::device::tma::bulk_commit_group();
/// ```
#[inline(always)]
pub fn bulk_commit_group() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.bulk.commit_group;", options(nostack));
    }
}

/// Waits until at most `N` of this thread's bulk groups are pending, their writes to global memory
/// included (`cp.async.bulk.wait_group N`).
///
/// # Example
/// ```
/// layout_tensor::device::tma::bulk_wait_group::<0>();
/// ```
#[inline(always)]
pub fn bulk_wait_group<const N: u32>() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.bulk.wait_group {n};", n = const N, options(nostack));
    }
}

/// Waits until at most `N` of this thread's bulk groups still *read* their shared-memory source
/// (`cp.async.bulk.wait_group.read N`): the source may then be overwritten, though the global
/// writes may still be in flight.
///
/// # Example
/// ```
/// layout_tensor::device::tma::bulk_wait_group_read::<0>();
/// ```
#[inline(always)]
pub fn bulk_wait_group_read<const N: u32>() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.bulk.wait_group.read {n};", n = const N, options(nostack));
    }
}

#[cfg(test)]
mod tests {
    use super::Mbarrier;

    #[test]
    fn cpu_model_counts_arrivals_and_bytes_per_phase() {
        let bar = Mbarrier::new();
        unsafe {
            bar.init(3);
            assert!(bar.try_wait_parity(1) && !bar.try_wait_parity(0));
            for phase in 0..4u32 {
                let p = phase & 1;
                bar.arrive_expect_tx(100);
                bar.arrive();
                assert!(!bar.test_wait_parity(p));
                bar.complete_tx(60);
                bar.arrive();
                assert!(!bar.test_wait_parity(p), "40 bytes still pending");
                bar.complete_tx(40);
                assert!(bar.test_wait_parity(p) && !bar.test_wait_parity(p ^ 1));
            }
        }
    }
}
