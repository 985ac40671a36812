//! The layouts of the demo kernels (`kernels/src/demo.rs`), in their own file so that the host
//! (the demo binary, through `cute_rs::demo_layouts`) shows exactly what the kernels use.

use layout::Layout;

/// The copy's block tile, `(value, thread, iteration) -> offset` in f32: 256 threads each move 4
/// consecutive floats (one 128-bit access) per iteration, 4 iterations, consecutive threads on
/// consecutive vectors so that every warp access is one contiguous 512-byte segment.
/// ```
/// # use cute_rs::demo_layouts::COPY_TV;
/// assert_eq!(COPY_TV.call(4), 4); // thread 1's first float
/// ```
pub const COPY_TV: Layout = layout::unwrap!(Layout::parse("(4,256,4):(1,4,1024)"));

/// [`COPY_TV`] in 128-bit units (`upcast<4>`): `(1,256,4):(1,1,256)`.
/// ```
/// assert_eq!(cute_rs::demo_layouts::COPY_TV_X4.to_string(), "(1,256,4):(1,1,256)");
/// ```
pub const COPY_TV_X4: Layout = layout::unwrap!(layout::upcast(COPY_TV, 4));

/// Floats per block tile (4096).
/// ```
/// assert_eq!(cute_rs::demo_layouts::COPY_TILE, 4096);
/// ```
pub const COPY_TILE: u64 = COPY_TV.size() as u64;

/// Threads per block of `tiled_copy_f32x4`.
/// ```
/// assert_eq!(cute_rs::demo_layouts::COPY_THREADS as i64 * 16, cute_rs::demo_layouts::COPY_TV.size());
/// ```
pub const COPY_THREADS: u32 = 256;

/// The transpose's shared-memory tile: 32 x 32 floats, row-major with one float of padding per row,
/// `(32,32):(33,1)`, so that reading a column touches 32 different banks.
/// ```
/// # use cute_rs::demo_layouts::TRANSPOSE_SMEM;
/// // Column 0 of the tile lands in 32 different banks of 4-byte words.
/// let banks: std::collections::BTreeSet<i64> = (0..32).map(|r| TRANSPOSE_SMEM.call(r) % 32).collect();
/// assert_eq!(banks.len(), 32);
/// ```
pub const TRANSPOSE_SMEM: Layout = layout::unwrap!(Layout::parse("(32,32):(33,1)"));

/// Floats of [`TRANSPOSE_SMEM`] (its cosize, 32 * 33 - 1).
/// ```
/// assert_eq!(cute_rs::demo_layouts::TRANSPOSE_SMEM_FLOATS, 32 * 33 - 1);
/// ```
pub const TRANSPOSE_SMEM_FLOATS: usize = TRANSPOSE_SMEM.cosize() as usize;

/// Each thread of the 32 x 8 block handles rows `ty + 8 j` of the tile: `(j) -> row offset`.
/// ```
/// assert_eq!(cute_rs::demo_layouts::TRANSPOSE_ROWS.call(3), 24);
/// ```
pub const TRANSPOSE_ROWS: Layout = layout::unwrap!(Layout::parse("4:8"));
