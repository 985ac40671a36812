//! The demo's device crate: a tiled, vectorized copy and a shared-memory transpose ([`demo`]),
//! with their layouts in their own module ([`demo_layouts`]) so that the host shows exactly what
//! the kernels use.
#![no_std]

pub mod demo;
pub mod demo_layouts;
