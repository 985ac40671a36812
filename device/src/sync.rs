//! Barriers: the whole block (`__syncthreads`), named barriers with thread counts (producer /
//! consumer warps), the warp (`__syncwarp`), transaction barriers ([`Mbarrier`]: arrivals and
//! bytes in shared memory, on which TMA loads complete), and `trap`.
//!
//! The barriers are LLVM's NVVM intrinsics (`llvm.nvvm.barrier.cta.*`, `llvm.nvvm.bar.warp.sync`),
//! which LLVM knows to be *convergent*: the optimizer never moves them into or out of conditional
//! code, which inline assembly would not guarantee. Every barrier also orders memory: loads and
//! stores are not moved across it by the compiler, and the hardware makes the shared- and
//! global-memory writes a participating thread made before the barrier visible to the others after
//! it (PTX memory model: `bar.sync` is a CTA-scope fence among its participants).
//!
//! Block barriers here are the `.aligned` forms (`bar.sync` = `barrier.sync.aligned`): every thread
//! of a warp that executes one must execute the same barrier instruction (no barrier inside
//! warp-divergent code). Violating a barrier's precondition hangs the kernel or is undefined
//! behaviour in PTX.
//!
//! On the host they run on the CPU backend ([`cpu`]): a barrier that some thread never
//! reaches fails the launch with a report naming the barrier, the block and the threads.

#[cfg(not(target_arch = "nvptx64"))]
use super::cpu;

mod mbarrier;
pub use mbarrier::{fence_mbarrier_init, Mbarrier};

#[cfg(target_arch = "nvptx64")]
#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.barrier.cta.sync.aligned.all"]
    fn nvvm_barrier_sync_all(id: u32);
    #[link_name = "llvm.nvvm.barrier.cta.sync.aligned.count"]
    fn nvvm_barrier_sync_count(id: u32, threads: u32);
    #[link_name = "llvm.nvvm.barrier.cta.arrive.aligned.count"]
    fn nvvm_barrier_arrive_count(id: u32, threads: u32);
    #[link_name = "llvm.nvvm.barrier.cta.red.popc.aligned.all"]
    fn nvvm_barrier_popc(id: u32, pred: bool) -> u32;
    #[link_name = "llvm.nvvm.barrier.cta.red.and.aligned.all"]
    fn nvvm_barrier_and(id: u32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.barrier.cta.red.or.aligned.all"]
    fn nvvm_barrier_or(id: u32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.bar.warp.sync"]
    fn nvvm_bar_warp_sync(mask: u32);
}

/// `__syncthreads()` (`bar.sync 0`): waits until every thread of the block has reached it; the
/// memory writes each made before are then visible to all of them.
///
/// Preconditions: every non-exited thread of the block reaches this same call (not in code only
/// some threads execute: that hangs or is undefined). Uses hardware barrier 0, like
/// [`NamedBarrier::<0, _>`](NamedBarrier).
///
/// ```no_run
/// use cute_rs_device::sync::sync_threads;
/// // ... every thread writes its element of a shared tile ...
/// sync_threads();
/// // ... every thread may now read any element of the tile ...
/// ```
#[inline(always)]
pub fn sync_threads() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the barrier has no memory-safety preconditions (misuse hangs).
    unsafe {
        nvvm_barrier_sync_all(0)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    cpu::barrier(0, None, true, "sync_threads")
}

/// `__syncthreads_count(pred)` (`bar.red.popc.u32`): [`sync_threads`], returning to every thread
/// the number of threads of the block whose `pred` was `true`.
///
/// Preconditions: those of [`sync_threads`].
///
/// ```no_run
/// use cute_rs_device::{ids::thread_idx_x, sync::sync_threads_count};
/// let even = sync_threads_count(thread_idx_x() % 2 == 0);
/// # let _ = even;
/// ```
#[inline(always)]
pub fn sync_threads_count(pred: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: as `sync_threads`.
    unsafe {
        nvvm_barrier_popc(0, pred)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu::block_reduce(pred, "sync_threads_count").0
    }
}

/// `__syncthreads_and(pred)` (`bar.red.and.pred`): [`sync_threads`], returning to every thread
/// whether `pred` was `true` on all threads of the block.
///
/// Preconditions: those of [`sync_threads`].
///
/// ```no_run
/// use cute_rs_device::sync::sync_threads_and;
/// let all_done = sync_threads_and(true);
/// # let _ = all_done;
/// ```
#[inline(always)]
pub fn sync_threads_and(pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: as `sync_threads`.
    unsafe {
        nvvm_barrier_and(0, pred)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu::block_reduce(pred, "sync_threads_and").1
    }
}

/// `__syncthreads_or(pred)` (`bar.red.or.pred`): [`sync_threads`], returning to every thread
/// whether `pred` was `true` on at least one thread of the block.
///
/// Preconditions: those of [`sync_threads`].
///
/// ```no_run
/// use cute_rs_device::sync::sync_threads_or;
/// let any_failed = sync_threads_or(false);
/// # let _ = any_failed;
/// ```
#[inline(always)]
pub fn sync_threads_or(pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: as `sync_threads`.
    unsafe {
        nvvm_barrier_or(0, pred)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu::block_reduce(pred, "sync_threads_or").2
    }
}

/// Hardware barrier `ID` (0 to 15) of the block, used by `THREADS` threads (a multiple of 32,
/// from 32 to 1024): `bar.sync ID, THREADS` / `bar.arrive ID, THREADS`.
///
/// Named barriers let groups of warps synchronize without the rest of the block: producer warps
/// [`arrive`](Self::arrive) (signal without waiting) and consumer warps [`sync`](Self::sync)
/// (wait), with `THREADS` counting both sides; or one group synchronizes among itself while other
/// warps do something else. Barrier 0 is also [`sync_threads`]'s: give named barriers ids 1 to 15.
///
/// Invalid `ID`s or `THREADS` do not compile (the check runs when a method is instantiated).
///
/// Preconditions of `sync`/`arrive`, for each use (phase) of the barrier: exactly `THREADS` threads
/// take part, in whole warps (all threads of a participating warp execute the same barrier
/// instruction), all with the same `THREADS`; and a barrier is not reused before its previous phase
/// completed. Otherwise the kernel hangs or behaves in an undefined way.
///
/// ```no_run
/// use cute_rs_device::{ids::warp_id, sync::NamedBarrier};
/// // Warps 0-3 produce a tile, warps 4-7 consume it: 256 threads meet at barrier 1.
/// const TILE_READY: NamedBarrier<1, 256> = NamedBarrier::new();
/// if warp_id() < 4 {
///     // ... write the tile ...
///     TILE_READY.arrive();
/// } else {
///     TILE_READY.sync();
///     // ... read the tile ...
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NamedBarrier<const ID: u32, const THREADS: u32>;

impl<const ID: u32, const THREADS: u32> NamedBarrier<ID, THREADS> {
    /// Compile-time check of `ID` and `THREADS`.
    const VALID: () = {
        assert!(ID < 16, "NamedBarrier: the barrier id must be 0 to 15");
        assert!(
            THREADS >= 32 && THREADS <= 1024 && THREADS % 32 == 0,
            "NamedBarrier: the thread count must be a multiple of 32 from 32 to 1024"
        );
    };

    /// The barrier (a zero-sized handle).
    ///
    /// ```
    /// use cute_rs_device::sync::NamedBarrier;
    /// const B: NamedBarrier<2, 128> = NamedBarrier::new();
    /// assert_eq!(B.id(), 2);
    /// ```
    #[inline(always)]
    pub const fn new() -> Self {
        let () = Self::VALID;
        NamedBarrier
    }

    /// The hardware barrier number, `ID`.
    ///
    /// ```
    /// use cute_rs_device::sync::NamedBarrier;
    /// assert_eq!(NamedBarrier::<3, 64>::new().id(), 3);
    /// ```
    #[inline(always)]
    pub const fn id(self) -> u32 {
        ID
    }

    /// The number of threads that take part in each phase, `THREADS`.
    ///
    /// ```
    /// use cute_rs_device::sync::NamedBarrier;
    /// assert_eq!(NamedBarrier::<3, 64>::new().threads(), 64);
    /// ```
    #[inline(always)]
    pub const fn threads(self) -> u32 {
        THREADS
    }

    /// `bar.sync ID, THREADS`: arrives and waits until `THREADS` threads have arrived (with `sync`
    /// or `arrive`). Memory writes the arriving threads made before are visible to the waiting
    /// threads after it.
    ///
    /// Preconditions: see the [type](Self).
    ///
    /// ```no_run
    /// use cute_rs_device::sync::NamedBarrier;
    /// // Warps 4-7 (128 threads) synchronize among themselves.
    /// NamedBarrier::<5, 128>::new().sync();
    /// ```
    #[inline(always)]
    pub fn sync(self) {
        let () = Self::VALID;
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: the barrier has no memory-safety preconditions (misuse hangs).
        unsafe {
            nvvm_barrier_sync_count(ID, THREADS)
        }
        #[cfg(not(target_arch = "nvptx64"))]
        cpu::barrier(ID, Some(THREADS), true, "NamedBarrier::sync")
    }

    /// `bar.arrive ID, THREADS`: signals arrival without waiting (producer side). The thread's
    /// earlier memory writes are visible to the threads that `sync` on this phase.
    ///
    /// Preconditions: see the [type](Self); at least one thread of the phase must `sync` (else
    /// nothing waits and the barrier's next phase is miscounted).
    ///
    /// ```no_run
    /// use cute_rs_device::sync::NamedBarrier;
    /// NamedBarrier::<1, 256>::new().arrive();
    /// ```
    #[inline(always)]
    pub fn arrive(self) {
        let () = Self::VALID;
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: the barrier has no memory-safety preconditions (misuse hangs).
        unsafe {
            nvvm_barrier_arrive_count(ID, THREADS)
        }
        #[cfg(not(target_arch = "nvptx64"))]
        cpu::barrier(ID, Some(THREADS), false, "NamedBarrier::sync")
    }
}

/// `__syncwarp(mask)` (`bar.warp.sync mask`): waits until every lane in `mask` has reached a
/// `sync_warp` with the same mask, and orders their memory accesses (writes before are visible
/// to the others after it). Use it between warp-level exchanges through shared memory.
///
/// Preconditions: the calling thread's lane is in `mask`; every lane in `mask` executes a
/// `sync_warp` with the same `mask` (the lanes may reach it from different places: sm_70+ does
/// not require them to be converged); the lanes of `mask` exist (are not exited).
///
/// ```no_run
/// use cute_rs_device::{sync::sync_warp, warp::FULL_MASK};
/// // ... each lane writes its slot of a per-warp shared buffer ...
/// sync_warp(FULL_MASK);
/// // ... each lane reads another lane's slot ...
/// ```
#[inline(always)]
pub fn sync_warp(mask: u32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: the barrier has no memory-safety preconditions (misuse hangs).
    unsafe {
        nvvm_bar_warp_sync(mask)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu::warp_exchange(mask, [0; cpu::WARP_SLOT_WORDS], false, "sync_warp");
    }
}

/// Aborts the kernel (PTX `trap`): the launch fails with an error the host sees at its next
/// synchronization. Kernels' panic handler calls it.
///
/// ```no_run
/// use cute_rs_device::sync::trap;
/// let ok = true;
/// if !ok {
///     trap();
/// }
/// ```
#[inline(always)]
pub fn trap() -> ! {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `trap` has no preconditions; it ends the kernel.
    unsafe {
        core::arch::nvptx::trap()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("trap")
}
