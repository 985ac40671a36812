//! `device_println!` and `device_assert!` in a kernel, on the CPU backend: the printed lines, the
//! assertion's message in the launch's error, and a launch outside the kernel's contract refused.

use cute_rs_host::{Gpu, HostError, LaunchConfig};
use cute_rs_tensor::device::print::capture;
use test_kernels::printing::print_and_check;

#[test]
fn a_kernel_prints_its_lines() {
    let cpu = Gpu::cpu();
    let x = cpu.upload(&(0..64u32).map(|v| 3 * v + 1).collect::<Vec<_>>()).unwrap();
    let out = capture(|| {
        unsafe { cpu.launch(&cute_rs_suite::TEST_KERNELS, print_and_check, LaunchConfig::linear(2, 32), (&x, 64u32, 1000u32)).run() }
            .unwrap();
    });
    let mut lines: Vec<&str> = out.lines().collect();
    lines.sort();
    assert_eq!(lines, ["block 0: n = 64, first x = 1", "block 1: n = 64, first x = 97"], "{out}");
}

#[test]
fn a_failed_assertion_names_its_element() {
    let cpu = Gpu::cpu();
    let x = cpu.upload(&(0..32u32).collect::<Vec<_>>()).unwrap();
    let out = capture(|| {
        let r = unsafe { cpu.launch(&cute_rs_suite::TEST_KERNELS, print_and_check, LaunchConfig::linear(1, 32), (&x, 32u32, 20u32)).run() };
        let e = r.unwrap_err();
        assert!(matches!(e, HostError::Kernel { ref kernel, .. } if kernel == "print_and_check"), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("is not below 20"), "{text}");
        assert!(text.contains("x[20] = 20") || text.contains("x[2"), "the first failing element is named: {text}");
    });
    assert!(out.contains("block 0: n = 32, first x = 0"), "the line printed before the assertion: {out}");
}

#[test]
fn a_launch_outside_the_contract_is_refused() {
    let cpu = Gpu::cpu();
    let x = cpu.upload(&[0u32; 64]).unwrap();
    let e = unsafe { cpu.launch(&cute_rs_suite::TEST_KERNELS, print_and_check, LaunchConfig::linear(1, 64), (&x, 64u32, 1u32)).run() }
        .unwrap_err()
        .to_string();
    assert!(e.contains("launch contract") && e.contains("(32, 1, 1)") && e.contains("(64, 1, 1)"), "{e}");
}
