//! Tensor views over `layout`'s layouts: a pointer, a layout and an address space, with slicing,
//! tiling, copies and the device primitives underneath (GPU and CPU implementations behind one API).
//!
//! Skeleton: the views come next.
#![no_std]
// Inline PTX and the nvptx intrinsics are nightly features of the device target only: the host
// build stays on stable.
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch, stdarch_nvptx))]

pub mod device;
