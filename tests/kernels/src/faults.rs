//! Kernels with deliberate bugs, for the CPU backend's reports (`tests/cpu_backend.rs`): an
//! out-of-bounds access through a tensor view and one through a raw pointer, and a shared-memory exchange with and without its
//! barrier. They are valid PTX too; nothing on the GPU launches them with bad arguments.

use cute_rs_tensor::kernel;
use cute_rs_layout::Layout;
use cute_rs_tensor::device::ids::{block_idx_x, thread_idx_x};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{shared_array, LayoutTensor};

/// `x[g] += 1` through a raw pointer for every thread `g` of the grid, whether or not `g < n`: a
/// grid larger than the buffer writes past its end, which the CPU backend catches in the guard page
/// after the buffer and reports with the block, thread, address and buffer.
#[kernel]
pub fn fault_raw_out_of_bounds(x: *mut f32, n: u32) {
    let _ = n;
    let g = (block_idx_x() * 32 + thread_idx_x()) as usize;
    *x.add(g) += 1.0;
}

/// Threads per block of [`mirror_exchange`].
pub const MIRROR_THREADS: u32 = 64;

/// `dst[g] = src[g + 1]` through a 1-D tensor view of `n` elements, `g` the global thread
/// index: the last thread of the grid reads index `n`, one past the end, which the CPU backend
/// reports with the kernel, block, thread and index.
#[kernel]
pub fn fault_tensor_out_of_bounds(src: *const f32, dst: *mut f32, n: u32) {
    let Ok(layout) = Layout::int(n as i64, 1) else { return };
    let view = |p: *mut f32| LayoutTensor::<f32, Layout>::from_ptr(p, layout);
    let (src, dst) = (view(src as *mut f32), view(dst));
    let g = (block_idx_x() * 32 + thread_idx_x()) as usize;
    dst.set(g, src.get(g + 1));
}

/// Each block of [`MIRROR_THREADS`] threads `t` writes `src[b * 64 + t]` to shared memory and
/// reads back its mirror image `63 - t` into `dst`; with `barrier == 0` the barrier between the
/// write and the read is missing (a race: a thread may read before its mirror has written).
#[kernel]
pub fn mirror_exchange(src: *const u32, dst: *mut u32, barrier: u32) {
    let s = shared_array!(FAULTS_MIRROR: [u32; 64]);
    let (t, b) = (thread_idx_x() as usize, block_idx_x() as usize);
    s.write(t, *src.add(b * 64 + t));
    if barrier != 0 {
        sync_threads();
    }
    *dst.add(b * 64 + t) = s.read(63 - t);
}
