//! The CPU backend's promises, through the host API (`cute_rs_host::Gpu::cpu`): faults are reported with
//! the kernel, block, thread and index; a missing barrier shows as wrong results under the
//! deterministic schedules; a block-wide primitive launched with the wrong block size is refused.

use std::sync::Arc;

use cute_rs_host::{Gpu, HostError, LaunchConfig, Schedule};
use test_kernels::faults::{fault_tensor_out_of_bounds, mirror_exchange};

fn cpu() -> (Gpu, Arc<cute_rs_host::Module>) {
    let gpu = Gpu::cpu();
    let module = gpu.module(&cute_rs_suite::TEST_KERNELS).expect("kernels load on the CPU backend");
    (gpu, module)
}

#[test]
fn an_out_of_bounds_view_access_names_kernel_block_thread_and_index() {
    let (gpu, module) = cpu();
    let n = 4 * 32;
    let src = gpu.upload(&vec![1f32; n]).unwrap();
    let mut dst = gpu.alloc::<f32>(n).unwrap();
    let err = unsafe {
        gpu.launch(&module, fault_tensor_out_of_bounds, LaunchConfig::linear(4, 32), (&src, &mut dst, n as u32)).run()
    }
    .unwrap_err();
    let HostError::Kernel { kernel, message } = &err else { panic!("expected a kernel error, got {err}") };
    assert_eq!(kernel, "fault_tensor_out_of_bounds");
    assert!(message.contains("block (3,0,0), thread (31,0,0)"), "{message}");
    assert!(message.contains("index 128 of a tensor of 128 elements"), "{message}");
}

#[test]
fn a_missing_barrier_gives_wrong_results_in_both_deterministic_schedules() {
    let (gpu, module) = cpu();
    let blocks = 3;
    let n = blocks * 64;
    let data: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
    let want: Vec<u32> = (0..n).map(|i| data[i / 64 * 64 + 63 - i % 64]).collect();
    let src = gpu.upload(&data).unwrap();
    for schedule in [Schedule::Forward, Schedule::Reverse] {
        for barrier in [1u32, 0] {
            let mut dst = gpu.alloc::<u32>(n).unwrap();
            unsafe {
                gpu.launch(&module, mirror_exchange, LaunchConfig::linear(blocks as u32, 64), (&src, &mut dst, barrier))
                    .schedule(schedule)
                    .run()
            }
            .unwrap();
            let got = gpu.download(&dst).unwrap();
            let wrong = got.iter().zip(&want).filter(|(g, w)| g != w).count();
            if barrier == 1 {
                assert_eq!(wrong, 0, "{schedule:?}: with the barrier every value is right");
            } else {
                // The half of each block that runs first reads shared memory its mirror has not
                // written yet.
                assert!(wrong >= n / 2, "{schedule:?}: only {wrong} of {n} values wrong without the barrier");
            }
        }
    }
}

/// A block-wide primitive sized for one block size, launched with another: refused with the
/// sizes on the CPU backend (on a GPU it would read shared memory nobody wrote).
#[test]
fn a_block_reduce_in_a_block_of_the_wrong_size_is_refused() {
    use test_kernels::bench::{bench_block_reduce_sum_f32, BENCH_THREADS, BENCH_TILE};
    let (gpu, module) = cpu();
    let input = gpu.upload(&vec![1f32; 2 * BENCH_TILE]).unwrap();
    let mut result = gpu.upload(&[0f32]).unwrap();
    let half = LaunchConfig::linear(2, BENCH_THREADS as u32 / 2);
    let err = unsafe { gpu.launch(&module, bench_block_reduce_sum_f32, half, (&input, &mut result)).run() }.unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&format!("in a block of {} threads", BENCH_THREADS / 2)), "{text}");
    // The right size works.
    let full = LaunchConfig::linear(2, BENCH_THREADS as u32);
    unsafe { gpu.launch(&module, bench_block_reduce_sum_f32, full, (&input, &mut result)).run() }.unwrap();
    assert_eq!(gpu.download(&result).unwrap(), [2.0 * BENCH_TILE as f32]);
}

/// A raw-pointer write past the end of a buffer lands in the guard page after it: the launch
/// fails naming the kernel, block, thread, address and buffer, and the process goes on.
#[test]
fn a_raw_pointer_access_past_a_buffer_is_reported() {
    use test_kernels::faults::fault_raw_out_of_bounds;
    let (gpu, module) = cpu();
    // 64 f32 = 256 bytes: the buffer ends exactly at its guard page.
    let mut x = gpu.upload(&[0f32; 64]).unwrap();
    let err = unsafe { gpu.launch(&module, fault_raw_out_of_bounds, LaunchConfig::linear(3, 32), (&mut x, 64u32)).run() }
        .unwrap_err();
    let HostError::Kernel { kernel, message } = &err else { panic!("expected a kernel error, got {err}") };
    assert_eq!(kernel, "fault_raw_out_of_bounds");
    assert!(message.contains("out-of-bounds access through a raw pointer"), "{message}");
    assert!(message.contains("block (2,0,0), thread (0,0,0)"), "the first thread past the end: {message}");
    assert!(message.contains("0 bytes past the end of a buffer of 256 bytes"), "{message}");
    // The buffer's own elements were written, and the backend still works.
    assert_eq!(gpu.download(&x).unwrap(), [1f32; 64]);
    let mut y = gpu.upload(&[0f32; 96]).unwrap();
    unsafe { gpu.launch(&module, fault_raw_out_of_bounds, LaunchConfig::linear(3, 32), (&mut y, 96u32)).run() }.unwrap();
}

/// A kernel taking a `LayoutTensorMut` parameter (a tensor it writes): the host passes an exclusive
/// borrow of a buffer with its layout, checked against the buffer's length (a layout reaching past
/// it is refused before the launch).
#[test]
fn a_tensor_parameter_carries_its_layout() {
    use cute_rs_tensor::Strided;
    use test_kernels::tensor_copy::scale_tensor;
    let (gpu, module) = cpu();
    let (rows, cols) = (5usize, 40usize);
    let data: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let mut buf = gpu.upload(&data).unwrap();
    // Column-major: element (r, c) at r + 5 c.
    let t = buf.tensor_mut(Strided { shape: [rows as i64, cols as i64], stride: [1, rows as i64] }).unwrap();
    unsafe { gpu.launch(&module, scale_tensor, LaunchConfig::linear(rows as u32, 32), (t, 2.0f32)).run() }.unwrap();
    assert_eq!(gpu.download(&buf).unwrap(), data.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
    let e = buf.tensor_mut(Strided::row_major([rows as i64, cols as i64 + 1])).unwrap_err().to_string();
    assert!(e.contains("cosize 205") && e.contains("200 f32 elements"), "{e}");
}
