//! Tensor views over `layout`'s layouts: a pointer, a layout and an address space, with slicing,
//! tiling, copies and the device primitives underneath (GPU and CPU implementations behind one API).
//!
//! Skeleton: the views come next.
#![no_std]
// Inline PTX and the nvptx intrinsics are nightly features of the device target only: the host
// build stays on stable.
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch, stdarch_nvptx))]
// `link_llvm_intrinsics`: the NVVM intrinsics (`llvm.nvvm.*`) that LLVM knows to be convergent
// (barriers, shuffles, votes) or of known range (special registers), in `device`.
#![cfg_attr(target_arch = "nvptx64", feature(link_llvm_intrinsics), allow(internal_features))]

pub mod device;
