//! Thread block clusters (sm_90): the cluster-wide barrier, arrivals on another block's mbarrier
//! (distributed shared memory) and TMA loads multicast to several blocks of the cluster.
//!
//! A cluster's blocks run at the same time on neighbouring SMs and can reach each other's shared
//! memory. The GEMM uses it to load a tile shared by two blocks once: each block loads half of it
//! and multicasts the half to both, and each block's consumers release a stage on every block
//! that writes into it.
//!
//! GPU only: these instructions have no CPU implementation yet, and calling one in code compiled
//! for the host is a compile error naming it ([`mma::no_cpu`](super::mma::no_cpu)).

#[cfg(not(target_arch = "nvptx64"))]
use super::mma::no_cpu;
use super::tma::TmaDescriptor;
use super::sync::Mbarrier;
#[cfg(target_arch = "nvptx64")]
use super::shared::generic_to_shared;
#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

gpu_only! {
    ClusterBarrier;
    /// Waits until every thread of every block of the cluster has arrived here
    /// (`barrier.cluster.arrive.release.aligned` + `barrier.cluster.wait.acquire.aligned`): writes
    /// before it, shared-memory ones of any block included, are visible to all threads after it.
    ///
    /// Needed after initializing mbarriers that other blocks will signal (their multicast TMA
    /// loads, their remote arrivals), and before a block exits while others may still signal its
    /// shared memory.
    ///
    /// # Safety
    /// Every thread of the cluster executes it (the same number of times), all threads of a warp
    /// together (`.aligned`). A cluster of one block makes it a block barrier.
    ///
    /// # Example
    /// ```ignore
    /// if thread_idx_x() == 0 {
    ///     full.init(1);
    ///     fence_mbarrier_init();
    /// }
    /// cluster_sync(); // the other block may now multicast into `full`
    /// ```
    pub unsafe fn cluster_sync() {
        unsafe {
            asm!(
                "barrier.cluster.arrive.release.aligned;",
                "barrier.cluster.wait.acquire.aligned;",
                options(nostack)
            );
        }
    }
}

gpu_only! {
    MbarrierArriveCluster;
    /// Arrives on the mbarrier at the same shared-memory offset as `bar`, in the cluster's block
    /// `rank` (`mapa.shared::cluster` + `mbarrier.arrive.release.cluster.shared::cluster.b64`;
    /// release semantics at cluster scope: this thread's earlier reads of memory the other block's
    /// producer will overwrite are done). `rank` may be the running block's own.
    ///
    /// # Safety
    /// `bar` is in shared memory and, in block `rank`, an initialized mbarrier whose current phase
    /// still expects an arrival; `rank < cluster_size()`; block `rank` has not exited.
    ///
    /// # Example
    /// ```ignore
    /// // a consumer warpgroup done with stage `s` releases it on both blocks of a 2-block cluster
    /// for rank in 0..2 {
    ///     mbarrier_arrive_cluster(empty(s), rank);
    /// }
    /// ```
    pub unsafe fn mbarrier_arrive_cluster(bar: &Mbarrier, rank: u32) {
        unsafe {
            asm!(
                "{{ .reg .b32 %cute_remote;",
                "mapa.shared::cluster.u32 %cute_remote, {a}, {r};",
                "mbarrier.arrive.shared::cluster.b64 _, [%cute_remote]; }}",
                a = in(reg32) bar.address(),
                r = in(reg32) rank,
                options(nostack)
            );
        }
    }
}

gpu_only! {
    TmaMulticast;
    /// Starts a TMA load of the 2-D box at `coords` of `desc` into shared memory at `dst` of every
    /// block of the cluster whose rank bit is set in `cta_mask`, each completing on the mbarrier
    /// at `bar`'s offset in that block
    /// (`cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster`).
    ///
    /// Each destination's barrier receives the box's byte count as transaction bytes, as with
    /// [`tma_load_2d`](super::tma::tma_load_2d): a block expecting halves of a tile from two
    /// blocks expects both halves' bytes.
    ///
    /// # Safety
    /// The preconditions of [`tma_load_2d`](super::tma::tma_load_2d), in every destination block
    /// (`dst` and `bar` are at the same offsets there, and its barrier's current phase expects the
    /// bytes or will before it completes); `cta_mask` names existing ranks only.
    ///
    /// # Example
    /// ```ignore
    /// // rank r of a 2-block cluster loads half r of B's 256-row box into both blocks
    /// full(s).arrive_expect_tx(A_BYTES + B_BYTES);
    /// tma_load_2d_multicast(stage_b(s).add(r * HALF_BYTES), b_map, [kx, col0 + 128 * r], full(s), 0b11);
    /// ```
    pub unsafe fn tma_load_2d_multicast(
        dst: *mut u8,
        desc: *const TmaDescriptor,
        coords: [i32; 2],
        bar: &Mbarrier,
        cta_mask: u16,
    ) {
        unsafe {
            asm!(
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster \
                 [{dst}], [{desc}, {{{c0}, {c1}}}], [{bar}], {mask};",
                dst = in(reg32) generic_to_shared(dst),
                desc = in(reg64) desc as u64,
                bar = in(reg32) bar.address(),
                c0 = in(reg32) coords[0],
                c1 = in(reg32) coords[1],
                mask = in(reg16) cta_mask,
                options(nostack)
            );
        }
    }
}
