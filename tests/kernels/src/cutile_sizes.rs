//! The sizes of the cuTile-style copy kernel (`kernels/src/cutile.rs`), in their own file so that
//! the host (through `cute_rs::cutile_sizes`) launches exactly what the kernel assumes.

/// Vectors of 4 floats in the copied array (`2^24`, i.e. `2^26` floats).
///
/// ```
/// assert_eq!(cute_rs::cutile_sizes::COPY_VECTORS * 4, 1 << 26);
/// ```
pub const COPY_VECTORS: usize = 1 << 24;

/// Threads per block of `cutile_copy_f32`.
///
/// ```
/// assert_eq!(cute_rs::cutile_sizes::COPY_THREADS, 256);
/// ```
pub const COPY_THREADS: u32 = 256;

/// Vectors each thread copies (its tile is `(1, 4)`).
///
/// ```
/// use cute_rs::cutile_sizes::*;
/// assert_eq!(COPY_VECTORS % (COPY_THREADS as usize * COPY_TILE), 0); // whole blocks
/// ```
pub const COPY_TILE: usize = 4;
