//! The test harness's device crate: the kernels of the GPU suite's checks, benchmarks, fault
//! injection and demos, compiled to their own PTX modules (`test_kernels`, and `test_kernels_sm90a`
//! with the cargo feature `sm90a`) by the suite's `build.rs` (`suite/`), apart from the production
//! kernels of `kernels/`.
//!
//! Each kernel is written with [`#[kernel]`](kernel): on the GPU a PTX entry of its name; on the
//! host a `KernelFn` constant that `cute_rs_host::Gpu::launch` takes with typed arguments, and
//! whose body the CPU backend runs.
//!
//! Layouts used by kernels are `const` items computed by the `layout` algebra at compile time, so
//! that evaluating them in a kernel folds to a few integer operations; `tests/ptx_folding.rs` (the
//! suite) checks that on the emitted PTX.
#![no_std]

use cute_rs_tensor::kernel;

#[cfg(feature = "sm90a")]
pub mod attention_sm90_steps;
pub mod bench;
pub mod block_examples;
pub mod block_io;
pub mod checks;
pub mod copy_async;
pub mod cutile;
pub mod cutile_sizes;
pub mod faults;
// The `mma.sync` GEMM's building blocks are in the portable module only.
#[cfg(any(not(feature = "sm90a"), not(target_arch = "nvptx64")))]
pub mod gemm_raw;
#[cfg(feature = "sm90a")]
pub mod gemm_sm90_steps;
pub mod printing;
pub mod tensor_copy;
pub mod tensor_copy_layouts;
pub mod tma_tile;
pub mod triton;
pub mod tutorials;

/// The demo's kernels and layouts (`demo-kernels/`), linked into this crate's modules.
pub use demo_kernels::{demo, demo_layouts};

use cute_rs_tensor::device::ids::global_thread_index_x;
use cute_rs_layout::Layout;

/// An 8 x 32 row-major tile: `(8,32):(32,1)`.
const ROW_MAJOR_8X32: Layout = cute_rs_layout::unwrap!(Layout::parse("(8,32):(32,1)"));

/// [`ROW_MAJOR_8X32`] divided by the tile `4:2` (four elements two apart):
/// `(4,(2,32)):(64,(32,1))`, computed by the compiler.
const DIVIDED_8X32: Layout = cute_rs_layout::unwrap!(cute_rs_layout::logical_divide(
    ROW_MAJOR_8X32,
    cute_rs_layout::unwrap!(Layout::parse("4:2"))
));

/// The number of elements [`DIVIDED_8X32`] maps (256), a power of two.
const DIVIDED_8X32_SIZE: u64 = DIVIDED_8X32.size() as u64;

/// `dst[t] = src[t]` for the grid's thread index `t` (the grid covers the arrays exactly).
///
/// The pipeline's smoke test: it needs nothing but thread ids.
#[kernel]
pub fn vector_copy(src: *const f32, dst: *mut f32) {
    let t = global_thread_index_x() as usize;
    *dst.add(t) = *src.add(t);
}

/// Permutes `src` into `dst` one 256-element tile at a time through a layout computed at
/// compile time: thread `t` writes `dst[tile * 256 + L(t % 256)] = src[t]`, where
/// `tile = t / 256` and `L` is [`DIVIDED_8X32`] (a bijection of `0..256`). The grid covers the
/// arrays exactly, in whole tiles.
///
/// `tests/ptx_folding.rs` checks that evaluating `L` compiled to straight-line integer code
/// (no loop, no division, no local memory).
#[kernel]
pub fn layout_index_copy(src: *const f32, dst: *mut f32) {
    let t = global_thread_index_x();
    let tile = t / DIVIDED_8X32_SIZE;
    let offset = DIVIDED_8X32.call((t % DIVIDED_8X32_SIZE) as i64) as u64;
    *dst.add((tile * DIVIDED_8X32_SIZE + offset) as usize) = *src.add(t as usize);
}

/// A 12 x 32 row-major matrix: `(12,32):(32,1)`.
const ROW_MAJOR_12X32: Layout = cute_rs_layout::unwrap!(Layout::parse("(12,32):(32,1)"));

/// The matrix read column by column: `ROW_MAJOR_12X32 o (12,32):(1,12)` = `(12,32):(32,1)` seen
/// through a column-major coordinate order, computed by `composition`.
const COLUMN_VIEW_12X32: Layout = cute_rs_layout::unwrap!(cute_rs_layout::composition(
    ROW_MAJOR_12X32,
    cute_rs_layout::unwrap!(Layout::parse("(12,32):(1,12)"))
));

/// The column view cut into 4 x 8 tiles: `zipped_divide` by the tiler `[4:1, 8:1]`
/// (`((4,8),(3,4))`), so consecutive threads walk one tile, then the next.
const TILED_12X32: Layout = cute_rs_layout::unwrap!(cute_rs_layout::zipped_divide_by_mode(
    COLUMN_VIEW_12X32,
    &[cute_rs_layout::unwrap!(Layout::parse("4:1")), cute_rs_layout::unwrap!(Layout::parse("8:1"))]
));

/// The number of elements [`TILED_12X32`] maps (384, not a power of two).
const TILED_12X32_SIZE: u64 = TILED_12X32.size() as u64;

/// Gathers a 12 x 32 row-major matrix tile by tile: thread `t` reads
/// `src[block * 384 + L(t % 384)]` into `dst[t]`, `L` being [`TILED_12X32`] (composition and
/// divide, computed by the compiler; its extents 12 and 3 are not powers of two).
///
/// `tests/ptx_folding.rs` checks that `L` compiled to straight-line code: divisions by its
/// constants become multiplications, never `div`/`rem` instructions.
#[kernel]
pub fn layout_tile_gather(src: *const f32, dst: *mut f32) {
    let t = global_thread_index_x();
    let block = t / TILED_12X32_SIZE;
    let offset = TILED_12X32.call((t % TILED_12X32_SIZE) as i64) as u64;
    *dst.add(t as usize) = *src.add((block * TILED_12X32_SIZE + offset) as usize);
}
