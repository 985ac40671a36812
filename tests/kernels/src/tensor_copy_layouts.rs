//! The static layouts of `tensor_copy_f32` (`kernels/src/tensor_copy.rs`), in their own file so that
//! the host (through `cute_rs::tensor_copy_layouts`) launches and checks exactly what the kernel uses.

use cute_rs_tensor::static_layout;

/// Rows of the copied matrix.
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::ROWS, 8192);
/// ```
pub const ROWS: usize = 8192;
/// Columns of the copied matrix.
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::COLS, 8192);
/// ```
pub const COLS: usize = 8192;
/// Rows of a block tile.
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::TILE_ROWS, 32);
/// ```
pub const TILE_ROWS: usize = 32;
/// Columns of a block tile.
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::TILE_COLS, 128);
/// ```
pub const TILE_COLS: usize = 128;
/// Threads per block.
/// ```
/// use cute_rs_tensor::StaticLayout;
/// use cute_rs::tensor_copy_layouts::{Threads, THREADS};
/// assert_eq!(Threads::SIZE, THREADS as usize);
/// ```
pub const THREADS: u32 = 256;

static_layout!(
    /// The whole matrix: 8192 x 8192 f32, row-major.
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::Matrix::LAYOUT.size(), 8192 * 8192);
    /// ```
    pub Matrix = "(8192,8192):(8192,1)"
);
static_layout!(
    /// A block's tile: 32 x 128 floats (16 KiB).
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::BlockTile::SIZE, 4096);
    /// ```
    pub BlockTile = "(32,128)"
);
static_layout!(
    /// The block's threads over the tile of 128-bit vectors (32 x 32 vectors): 8 x 32, row-major,
    /// so that a warp reads one row of 32 consecutive vectors (512 contiguous bytes); each thread
    /// moves 4 vectors (rows r, r+8, r+16, r+24).
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::Threads::LAYOUT.call(1), 32);
    /// ```
    pub Threads = "(8,32):(32,1)"
);

/// Rows of the matrix `tensor_copy_masked_f32` copies (not a multiple of the tile).
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::ODD_ROWS, 1000);
/// ```
pub const ODD_ROWS: usize = 1000;
/// Columns of the matrix `tensor_copy_masked_f32` copies (not a multiple of the tile).
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::ODD_COLS, 1000);
/// ```
pub const ODD_COLS: usize = 1000;

static_layout!(
    /// The masked copy's matrix: 1000 x 1000 f32, row-major; its 32 x 128 tiles of the last tile
    /// row and column are partial.
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::OddMatrix::LAYOUT.cosize(), 1_000_000);
    /// ```
    pub OddMatrix = "(1000,1000):(1000,1)"
);

/// Rows of the matrix `tensor_transpose_f32` transposes.
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::T_ROWS, 1024);
/// ```
pub const T_ROWS: usize = 1024;
/// Columns of the matrix `tensor_transpose_f32` transposes.
/// ```
/// assert_eq!(cute_rs::tensor_copy_layouts::T_COLS, 2048);
/// ```
pub const T_COLS: usize = 2048;

static_layout!(
    /// The transpose's input: 1024 x 2048 f32, row-major.
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::TIn::LAYOUT.call(1), 2048);
    /// ```
    pub TIn = "(1024,2048):(2048,1)"
);
static_layout!(
    /// The transpose's output: 2048 x 1024 f32, row-major.
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::TOut::LAYOUT.call(1), 1024);
    /// ```
    pub TOut = "(2048,1024):(1024,1)"
);
static_layout!(
    /// The transpose's 32 x 32 tiles.
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::T32::SIZE, 1024);
    /// ```
    pub T32 = "(32,32)"
);
static_layout!(
    /// The shared tile: 32 x 32 row-major with one float of padding per row, so that a column
    /// read by a warp touches 32 banks.
    /// ```
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(cute_rs::tensor_copy_layouts::SmemPadded::LAYOUT.cosize(), 32 * 33 - 1);
    /// ```
    pub SmemPadded = "(32,32):(33,1)"
);
