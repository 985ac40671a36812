//! Multi-stage pipelines between a producer and its consumers over a ring of shared-memory
//! stages, synchronized by transaction barriers (CUTLASS's `PipelineTmaAsync` and
//! `PipelineState`).
//!
//! Each stage has a *full* barrier (one arrival, the producer's, plus the bytes its TMA loads
//! deliver) and an *empty* one (one arrival per consumer, when it is done reading). The producer
//! [acquires](PipelineTmaAsync::producer_acquire) a stage (waits until it is empty and announces
//! the bytes it will load), the consumers [wait](PipelineTmaAsync::consumer_wait) until it is full
//! and [release](PipelineTmaAsync::consumer_release) it. Each side walks the ring with its own
//! [`PipelineState`]: the stage index and the phase parity to wait for, flipped at each wrap. The
//! producer starts one phase ahead, so that its first pass over the ring waits for nothing (right
//! after `init` the phase before the current one counts as complete).
//!
//! A producer and a consumer on the CPU backend's model of the barriers, one thread, two stages:
//! ```
//! use cute_rs_tensor::pipeline::{PipelineState, PipelineTmaAsync};
//! let (mut full, mut empty) = ([0u64; 2], [0u64; 2]);
//! unsafe {
//!     let pipe = PipelineTmaAsync::<2>::new(full.as_mut_ptr(), empty.as_mut_ptr());
//!     pipe.init(1);
//!     let (mut produce, mut consume) = (PipelineState::<2>::producer_start(), PipelineState::<2>::consumer_start());
//!     for _ in 0..5 {
//!         pipe.producer_acquire(produce, 16);
//!         pipe.full(produce.index()).complete_tx(16); // what a TMA load of 16 bytes does
//!         produce.advance();
//!         pipe.consumer_wait(consume);
//!         pipe.consumer_release(consume);
//!         consume.advance();
//!     }
//!     assert_eq!((consume.index(), consume.phase()), (1, 0)); // 5 stages used: the third pass
//! }
//! ```

use crate::device::sync::{fence_mbarrier_init, Mbarrier};

/// Where one side of a pipeline is in the ring of `STAGES` stages: the stage index and the
/// parity of the barrier phase it waits for there (CUTLASS's `PipelineState`).
///
/// # Example
/// ```
/// use cute_rs_tensor::pipeline::PipelineState;
/// let mut s = PipelineState::<3>::consumer_start();
/// for _ in 0..4 {
///     s.advance();
/// }
/// assert_eq!((s.index(), s.phase()), (1, 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineState<const STAGES: u32> {
    // Uses of the ring so far: the index and the phase are derived from it (the same count in
    // every thread keeps them in the GPU's uniform registers, where a stage index and a phase
    // bit updated under a branch would not stay). It wraps after 2^32 uses, where a ring whose
    // size is not a power of two would skip a phase.
    count: u32,
    // 1 for the producer, which starts one phase ahead.
    ahead: u32,
}

impl<const STAGES: u32> PipelineState<STAGES> {
    /// The consumers' start: stage 0, waiting for the first phase (parity 0) of its full barrier.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::pipeline::PipelineState;
    /// assert_eq!(PipelineState::<4>::consumer_start().phase(), 0);
    /// ```
    #[inline(always)]
    pub const fn consumer_start() -> Self {
        const { assert!(STAGES > 0, "a pipeline needs at least one stage") };
        PipelineState { count: 0, ahead: 0 }
    }

    /// The producer's start: stage 0, one phase ahead (parity 1), so that the first pass over the
    /// ring finds every stage empty without waiting.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::pipeline::PipelineState;
    /// assert_eq!(PipelineState::<4>::producer_start().phase(), 1);
    /// ```
    #[inline(always)]
    pub const fn producer_start() -> Self {
        const { assert!(STAGES > 0, "a pipeline needs at least one stage") };
        PipelineState { count: 0, ahead: 1 }
    }

    /// The stage.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::pipeline::PipelineState;
    /// assert_eq!(PipelineState::<4>::producer_start().index(), 0);
    /// ```
    #[inline(always)]
    pub const fn index(&self) -> u32 {
        self.count % STAGES
    }

    /// The parity of the phase to wait for at this stage.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::pipeline::PipelineState;
    /// let mut s = PipelineState::<1>::consumer_start();
    /// s.advance();
    /// assert_eq!(s.phase(), 1);
    /// ```
    #[inline(always)]
    pub const fn phase(&self) -> u32 {
        ((self.count / STAGES) & 1) ^ self.ahead
    }

    /// Moves to the next stage, flipping the phase when the ring wraps.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::pipeline::PipelineState;
    /// let mut s = PipelineState::<2>::consumer_start();
    /// s.advance();
    /// s.advance();
    /// assert_eq!((s.index(), s.phase()), (0, 1));
    /// ```
    #[inline(always)]
    pub fn advance(&mut self) {
        self.count = self.count.wrapping_add(1);
    }
}

/// The barriers of a ring of `STAGES` shared-memory stages filled by TMA loads (CUTLASS's
/// `PipelineTmaAsync`): a full and an empty [`Mbarrier`] per stage, in two shared arrays.
///
/// # Example
/// ```
/// use cute_rs_tensor::pipeline::PipelineTmaAsync;
/// let (mut full, mut empty) = ([0u64; 4], [0u64; 4]);
/// let pipe = unsafe { PipelineTmaAsync::<4>::new(full.as_mut_ptr(), empty.as_mut_ptr()) };
/// unsafe { pipe.init(2) };
/// assert!(unsafe { pipe.empty(3).try_wait_parity(1) }); // a fresh stage is empty
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PipelineTmaAsync<const STAGES: u32> {
    full: *mut u64,
    empty: *mut u64,
}

impl<const STAGES: u32> PipelineTmaAsync<STAGES> {
    /// The pipeline whose barriers are `full[0..STAGES]` and `empty[0..STAGES]`.
    ///
    /// # Safety
    /// Both point at `STAGES` 8-byte words in shared memory (on the GPU) that live as long as
    /// the pipeline is used, and that nothing else uses.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::pipeline::PipelineTmaAsync;
    /// let (mut full, mut empty) = ([0u64; 2], [0u64; 2]);
    /// let _pipe = unsafe { PipelineTmaAsync::<2>::new(full.as_mut_ptr(), empty.as_mut_ptr()) };
    /// ```
    #[inline(always)]
    pub unsafe fn new(full: *mut u64, empty: *mut u64) -> Self {
        PipelineTmaAsync { full, empty }
    }

    /// Initializes every stage's barriers: full with one arrival (the producer's), empty with
    /// `consumers` arrivals, then makes them visible to the cluster and to TMA
    /// ([`fence_mbarrier_init`]).
    ///
    /// # Safety
    /// One thread calls it, before a block (or cluster) barrier that the other users wait at;
    /// no phase is in progress.
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub unsafe fn init(&self, consumers: u32) {
        for s in 0..STAGES {
            unsafe {
                self.full(s).init(1);
                self.empty(s).init(consumers);
            }
        }
        fence_mbarrier_init();
    }

    /// Stage `stage`'s full barrier (what TMA loads into the stage complete on).
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub fn full(&self, stage: u32) -> &Mbarrier {
        // SAFETY: `new`'s contract: STAGES valid barrier words.
        unsafe { Mbarrier::from_ptr(self.full.add(stage as usize) as *mut u8) }
    }

    /// Stage `stage`'s empty barrier (what the consumers release the stage on).
    ///
    /// # Example
    /// See the [type's example](PipelineTmaAsync).
    #[inline(always)]
    pub fn empty(&self, stage: u32) -> &Mbarrier {
        // SAFETY: as for `full`.
        unsafe { Mbarrier::from_ptr(self.empty.add(stage as usize) as *mut u8) }
    }

    /// The producer takes stage `state.index()`: waits until every consumer released its last
    /// use, then arrives on its full barrier announcing the `bytes` its loads will deliver.
    ///
    /// # Safety
    /// One producer thread; `state` walks the ring from [`PipelineState::producer_start`].
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub unsafe fn producer_acquire(&self, state: PipelineState<STAGES>, bytes: u32) {
        unsafe {
            self.empty(state.index()).wait_parity(state.phase());
            self.full(state.index()).arrive_expect_tx(bytes);
        }
    }

    /// A consumer waits until stage `state.index()` is full (its bytes have landed).
    ///
    /// # Safety
    /// `state` walks the ring from [`PipelineState::consumer_start`].
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub unsafe fn consumer_wait(&self, state: PipelineState<STAGES>) {
        unsafe { self.full(state.index()).wait_parity(state.phase()) }
    }

    /// A consumer (one thread per consumer counted by [`init`](Self::init)) is done with stage
    /// `state.index()`.
    ///
    /// # Safety
    /// Once per consumer per use of the stage, after its reads of the stage completed.
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub unsafe fn consumer_release(&self, state: PipelineState<STAGES>) {
        unsafe {
            self.empty(state.index()).arrive();
        }
    }

    /// [`consumer_release`](Self::consumer_release) on stage `state.index()` of every block of
    /// the cluster's first `blocks` ranks, whose producers multicast into this block's stage.
    ///
    /// # Safety
    /// Those of `consumer_release`, on every one of those blocks; the launch has clusters of at
    /// least `blocks` blocks with the same pipeline layout in shared memory.
    ///
    /// # Example
    /// ```ignore
    /// pipe.consumer_release_cluster(state, 2); // both blocks of a cluster of 2
    /// ```
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub unsafe fn consumer_release_cluster(&self, state: PipelineState<STAGES>, blocks: u32) {
        for rank in 0..blocks {
            unsafe { crate::device::cluster::mbarrier_arrive_cluster(self.empty(state.index()), rank) };
        }
    }
}
