//! Tensor views over `layout`'s layouts: a pointer, a layout and an address space, with slicing,
//! tiling, copies and the device primitives underneath (GPU and CPU implementations behind one API).
//!
//! # `LayoutTensor`
//! A [`LayoutTensor`] is a pointer, a layout source, an address-space marker and bounds. The same
//! code runs on host slices (tests, CPU) and in device code; the crate is `no_std` without `alloc`.
//!
//! ```
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static};
//! static_layout!(Matrix = "(4,8):(8,1)"); // 4 x 8 row-major
//! static_layout!(Tile = "(2,4)");         // 2 x 4 tiles
//! static_layout!(Threads = "(2,2):(2,1)");
//! let mut data: Vec<f32> = (0..32).map(|x| x as f32).collect();
//! let m = LayoutTensor::new(&mut data, Static::<Matrix>::new()).unwrap();
//! let tile = m.tile::<Tile, 2>([1, 1]);          // rows 2..4, columns 4..8
//! assert_eq!(tile.at([0, 0]), 20.0);
//! let frag = tile.distribute::<Threads, 2>(1);    // thread 1 = (0,1): columns 1 and 3 of row 0
//! assert_eq!((frag.get(0), frag.get(1)), (21.0, 23.0));
//! ```
//!
//! ## Static and run-time layouts: zero cost
//! A layout is either a run-time [`cute_rs_layout::Layout`] value or a [`Static`] layout: a zero-sized type
//! implementing [`StaticLayout`] (declared with [`static_layout!`]) whose layout is an associated
//! constant. Views of a static tensor are static too: [`LayoutTensor::tile`],
//! [`vectorize`](LayoutTensor::vectorize), [`distribute`](LayoutTensor::distribute),
//! [`compose`](LayoutTensor::compose) return tensors whose layout types (`TileOf<S, T>`,
//! `Upcast<S, W>`, `Partition<S, Th>`, ...) compute their layouts with the algebra in `const`
//! items on stable Rust, so a violated precondition is a compile-time error and the index math of
//! a kernel folds to constants (checked on the PTX by the root package's `tests/ptx_folding.rs`).
//! The same operations on run-time layouts return `Result`s.
//!
//! Coordinates are per-mode: one integer per top-level mode (the mode's colexicographic 1-D
//! coordinate), as `[i64; R]`; hierarchical coordinates go through [`LayoutTensor::at_tuple`].
//!
//! ## What is here
//! * [`tensor`]: [`LayoutTensor`], [`Element`] (numbers and [`Vector`]s), address spaces; element
//!   access by 1-D index ([`get`](LayoutTensor::get)/[`set`](LayoutTensor::set)), by per-mode
//!   coordinate ([`at`](LayoutTensor::at)), by hierarchical coordinate
//!   ([`at_tuple`](LayoutTensor::at_tuple)); `W`-wide [`load`](LayoutTensor::load)/[`store`](LayoutTensor::store).
//! * [`static_layout`](mod@static_layout): [`LayoutSource`], [`StaticLayout`], [`Static`], [`static_layout!`] and the
//!   derived static layouts.
//! * [`view`]: `slice`, `compose`, `permute`/`transpose`, `coalesce`, `tile`, `split`,
//!   `vectorize`, `distribute`.
//! * [`vectorized`]: vectors along any modes ([`vectorize_by`](LayoutTensor::vectorize_by),
//!   Mojo's `vectorize[*vector_shape]`): a [`VectorizedTensor`] over the outer coordinates whose
//!   elements are vectors with an element layout, one aligned access where contiguous, gathered
//!   otherwise.
//! * [`tile`]: partial tiles ([`tile_masked`](LayoutTensor::tile_masked), bounds in [`mask`]) and
//!   [`TileIter`] (`tiled_iterator`, over a tensor or a raw buffer, optionally circular).
//! * [`fragment`]: register [`Fragment`]s (`make_fragment_like`) and [`shared_tensor!`].
//! * [`copy`]: [`copy_from`](LayoutTensor::copy_from) and [`copy_partitioned`].
//! * [`copy_async`]: [`copy_from_async`](LayoutTensor::copy_from_async) (`cp.async` global →
//!   shared, zero-filling outside the source's bounds) and [`async_copy_wait_all`].
//! * [`partition`]: thread-value partitions ([`TiledCopy`](partition::TiledCopy), CuTe's
//!   `make_tiled_copy`) and [`distribute_swizzled`](LayoutTensor::distribute_swizzled).
//! * [`tma_copy`]: TMA box loads into shared tensors ([`load_tma`](LayoutTensor::load_tma)) and
//!   their swizzled images ([`TmaSwizzled`](tma_copy::TmaSwizzled)).
//! * [`atom`]: MMA atoms with their thread-value layouts and [`TiledMma`](atom::TiledMma)
//!   (`partition_a/b/c`, `partition_fragment_*`); [`algorithm`]: `gemm`, `axpby`, `fill`;
//!   [`identity`]: identity tensors for predication; [`static_view`]: what partitions take.
//! * [`block_tile`]: tiles that belong to the whole thread block, as in Triton and cuTile
//!   ([`BlockTile`](block_tile::BlockTile) on a thread-value layout: Triton's blocked layout,
//!   a CuTe TV layout, or a slice of one), with elementwise math, broadcasting, reductions along
//!   an axis, random numbers, and array-tile and pointer-tile loads and stores.
//! * [`device`]: the GPU primitives underneath.
//!
//! ## Alignment
//! [`LayoutTensor::load`]/[`store`](LayoutTensor::store) of `W`-wide vectors and every access to
//! [`Vector`] elements are single aligned accesses; misalignment is checked by `debug_assert!`
//! (host tests, debug builds) and is undefined behaviour in release builds. Run-time
//! [`vectorize`](LayoutTensor::vectorize) returns an error for a misaligned base;
//! [`LayoutTensor::is_vector_aligned`] tells beforehand.
#![no_std]
#![warn(missing_docs)]
// Unsafe functions here are primitives whose bodies are their unsafe operations (edition 2024
// would ask for an `unsafe` block in each).
#![allow(unsafe_op_in_unsafe_fn)]
// `allow_internal_unstable`: `__kernel!` writes `extern "ptx-kernel"` for device crates that enable
// no feature themselves.
#![cfg_attr(target_arch = "nvptx64", feature(allow_internal_unstable), allow(internal_features))]

// Host-side checks and the CPU backend's reports format with `std`: on the host only.
#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub use cute_rs_layout as layout;

/// Propagates an error inside a `const fn` (`?` is not available there): for the algebra's
/// `Result`s in the static layouts' constants.
macro_rules! tri {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}
/// The device primitives (crate `cute-rs-device`): ids, barriers, shared memory, warp collectives,
/// memory with cache hints, atomics, cp.async, TMA, mma/wgmma, math, and the CPU backend.
pub use cute_rs_device as device;
pub use cute_rs_device::{device_assert, device_println, dynamic_shared, shared_array};
/// The `half` crate, whose [`half::f16`] and [`half::bf16`] are [`Element`]s (re-exported so that
/// kernels and the host name the same types).
pub use half;

pub mod algorithm;
pub mod atom;
pub mod block_io;
pub mod block_tile;
pub mod block_reduce;
pub mod cast;
pub mod copy;
pub mod copy_async;
pub mod fragment;
pub mod identity;
pub mod kernel;
pub mod mask;
pub mod partition;
pub mod print_format;
pub mod pipeline;
pub mod static_layout;
pub mod static_view;
pub mod strided;
pub mod strided_tile;
pub mod swizzled;
pub mod tensor;
pub mod tensor_mut;
pub mod tile;
pub mod triton;
pub mod tile_space;
pub mod thread_copy;
pub mod tma_copy;
pub mod vectorized;
pub mod vectorized_copy;
pub mod view;

/// Makes a function a GPU kernel (and a CPU-backend kernel on the host): see [`kernel`](mod@kernel).
pub use cute_rs_macros::kernel;
pub use copy::copy_partitioned;
#[cfg(not(target_arch = "nvptx64"))]
pub use kernel::KernelFn;
pub use kernel::LaunchContract;
pub use copy_async::{async_copy_commit_group, async_copy_wait_all, async_copy_wait_group};
pub use fragment::Fragment;
pub use mask::{Bounds, Clip, Full};
pub use static_layout::{LayoutSource, Static, StaticLayout};
pub use strided::Strided;
pub use tensor::{AddressSpace, Element, Global, LayoutTensor, Local, Shared, Vector};
pub use tensor_mut::LayoutTensorMut;
pub use tile::TileIter;
pub use vectorized::{simd_width, VectorizedTensor};
pub use tile_space::{load_scalar, store_scalar, LoadOptions, MemoryOrder, MemoryScope, Order, Pad, Padding, StoreOptions, TileSpace};
