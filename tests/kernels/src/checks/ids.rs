//! GPU check kernels: `cute_rs_tensor::device::ids` (thread, block, grid, lane, warp and cluster
//! ids). Checked by `cute_rs::gpu_suite` (`ids/*`).

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::*;

/// Words each thread writes into the `ids_report` record; the GPU suite reads them in this order:
///
/// | word | value | word | value |
/// | --- | --- | --- | --- |
/// | 0-2 | `thread_idx()` x, y, z | 18-20 | `cluster_idx()` x, y, z |
/// | 3-5 | `block_dim()` x, y, z | 21-23 | `cluster_grid_dim()` x, y, z |
/// | 6-8 | `block_idx()` x, y, z | 24-26 | `block_idx_in_cluster()` x, y, z |
/// | 9-11 | `grid_dim()` x, y, z | 27-29 | `cluster_dim()` x, y, z |
/// | 12 | `lane_id()` | 30 | `block_rank_in_cluster()` |
/// | 13 | `warp_id()` | 31 | `cluster_size()` |
/// | 14 | `linear_thread_idx()` | 32 | `global_thread_index_x()`, low word |
/// | 15 | `block_size()` | 33 | `global_thread_index_x()`, high word |
/// | 16 | `warps_per_block()` | 34 | the `Dim3` functions equal the per-axis ones (1) |
/// | 17 | `linear_block_idx()` | 35 | `WARP_SIZE` |
pub const IDS_RECORD_WORDS: usize = 36;

/// Every thread writes what the `ids` primitives return into its record of
/// [`IDS_RECORD_WORDS`] words, at `out[(linear_block_idx * block_size + linear_thread_idx) *
/// IDS_RECORD_WORDS]`. Launched with any grid and block shape (and without a cluster launch:
/// every block is a 1x1x1 cluster).
#[kernel]
pub fn ids_report(out: *mut u32) {
    let record = out.add(
        (linear_block_idx() as usize * block_size() as usize + linear_thread_idx() as usize)
            * IDS_RECORD_WORDS,
    );
    let mut word = 0;
    let mut put = |v: u32| {
        *record.add(word) = v;
        word += 1;
    };
    put(thread_idx_x());
    put(thread_idx_y());
    put(thread_idx_z());
    put(block_dim_x());
    put(block_dim_y());
    put(block_dim_z());
    put(block_idx_x());
    put(block_idx_y());
    put(block_idx_z());
    put(grid_dim_x());
    put(grid_dim_y());
    put(grid_dim_z());
    put(lane_id());
    put(warp_id());
    put(linear_thread_idx());
    put(block_size());
    put(warps_per_block());
    put(linear_block_idx());
    put(cluster_idx_x());
    put(cluster_idx_y());
    put(cluster_idx_z());
    put(cluster_grid_dim_x());
    put(cluster_grid_dim_y());
    put(cluster_grid_dim_z());
    put(block_idx_in_cluster_x());
    put(block_idx_in_cluster_y());
    put(block_idx_in_cluster_z());
    put(cluster_dim_x());
    put(cluster_dim_y());
    put(cluster_dim_z());
    put(block_rank_in_cluster());
    put(cluster_size());
    let g = global_thread_index_x();
    put(g as u32);
    put((g >> 32) as u32);
    let dims_agree = thread_idx() == Dim3 { x: thread_idx_x(), y: thread_idx_y(), z: thread_idx_z() }
        && block_dim() == Dim3 { x: block_dim_x(), y: block_dim_y(), z: block_dim_z() }
        && block_idx() == Dim3 { x: block_idx_x(), y: block_idx_y(), z: block_idx_z() }
        && grid_dim() == Dim3 { x: grid_dim_x(), y: grid_dim_y(), z: grid_dim_z() }
        && cluster_idx() == Dim3 { x: cluster_idx_x(), y: cluster_idx_y(), z: cluster_idx_z() }
        && cluster_grid_dim()
            == Dim3 { x: cluster_grid_dim_x(), y: cluster_grid_dim_y(), z: cluster_grid_dim_z() }
        && block_idx_in_cluster()
            == Dim3 {
                x: block_idx_in_cluster_x(),
                y: block_idx_in_cluster_y(),
                z: block_idx_in_cluster_z(),
            }
        && cluster_dim() == Dim3 { x: cluster_dim_x(), y: cluster_dim_y(), z: cluster_dim_z() };
    put(dims_agree as u32);
    put(WARP_SIZE);
}
