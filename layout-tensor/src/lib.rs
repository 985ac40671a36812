//! Tensor views over `layout`'s layouts: a pointer, a layout and an address space, with slicing,
//! tiling, copies and the device primitives underneath (GPU and CPU implementations behind one API).
//!
//! Skeleton: the views come next.
#![no_std]
