//! Printing and assertions from kernels: `device_println!` and `device_assert!`, checked on the
//! CPU backend by `tests/printing.rs` and on a GPU by the `print_check` program of the GPU bundle.

use cute_rs_tensor::device::ids::{block_idx_x, thread_idx_x};
use cute_rs_tensor::{device_assert, device_println, kernel};

/// Thread 0 of each block prints `block B: n = N, first x = X`; every thread then asserts
/// `x[i] < limit` for its element `i` (one per thread), with a message naming the element.
#[kernel(block(32))]
pub fn print_and_check(x: *const u32, n: u32, limit: u32) {
    let i = block_idx_x() * 32 + thread_idx_x();
    if thread_idx_x() == 0 {
        device_println!("block {}: n = {n}, first x = {}", block_idx_x(), *x.add(i as usize));
    }
    if i < n {
        let v = *x.add(i as usize);
        device_assert!(v < limit, "x[{i}] = {v} is not below {limit}");
    }
}
