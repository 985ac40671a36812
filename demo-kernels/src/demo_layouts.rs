//! The layouts of the demo kernels (`demo-kernels/src/demo.rs`), in their own file so that the
//! host (the demo binary, through `demo_kernels::demo_layouts`) shows exactly what the kernels use.

use cute_rs_tensor::static_layout;

static_layout!(
    /// The copy's block tile: 4 rows of 1024 floats (4096 floats, 16 KiB), a shape for
    /// `local_tile`.
    /// ```
    /// use demo_kernels::demo_layouts::CopyTile;
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(CopyTile::LAYOUT.size(), 4096);
    /// ```
    pub CopyTile = "(4,1024)"
);
static_layout!(
    /// The copy's threads, `(row, column) -> thread`: 256 threads side by side along a row.
    /// ```
    /// use demo_kernels::demo_layouts::CopyThr;
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(CopyThr::LAYOUT.call(0 + 1 * 7), 7); // column 7: thread 7
    /// ```
    pub CopyThr = "(1,256):(256,1)"
);
static_layout!(
    /// Each copy thread's values, `(row, column) -> value`: 4 consecutive floats of a row, one
    /// 128-bit access.
    /// ```
    /// use demo_kernels::demo_layouts::CopyVal;
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(CopyVal::LAYOUT.size(), 4);
    /// ```
    pub CopyVal = "(1,4):(4,1)"
);
static_layout!(
    /// The transpose's block tile, 32 x 32.
    /// ```
    /// use demo_kernels::demo_layouts::TransposeTile;
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(TransposeTile::LAYOUT.size(), 1024);
    /// ```
    pub TransposeTile = "(32,32)"
);
static_layout!(
    /// The transpose's threads, `(row, column) -> thread` for the `(32, 8)` block: thread
    /// `(x, y)` (index `x + 32 y`) at row `y`, column `x`; the block covers 8 rows of the tile at
    /// a time.
    /// ```
    /// use demo_kernels::demo_layouts::TransposeThr;
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(TransposeThr::LAYOUT.call(3 + 8 * 5), 3 * 32 + 5); // row 3, column 5
    /// ```
    pub TransposeThr = "(8,32):(32,1)"
);
static_layout!(
    /// One float per transpose thread and repetition.
    /// ```
    /// use demo_kernels::demo_layouts::TransposeVal;
    /// use cute_rs_tensor::StaticLayout;
    /// assert_eq!(TransposeVal::LAYOUT.size(), 1);
    /// ```
    pub TransposeVal = "(1,1):(1,1)"
);
static_layout!(
    /// The transpose's shared-memory tile: 32 x 32 floats, row-major with one float of padding
    /// per row, so that reading a column touches 32 different banks.
    /// ```
    /// use demo_kernels::demo_layouts::TransposeSmem;
    /// use cute_rs_tensor::StaticLayout;
    /// // Column 0 of the tile lands in 32 different banks of 4-byte words.
    /// let banks: std::collections::BTreeSet<i64> = (0..32).map(|r| TransposeSmem::LAYOUT.call(r) % 32).collect();
    /// assert_eq!(banks.len(), 32);
    /// ```
    pub TransposeSmem = "(32,32):(33,1)"
);
