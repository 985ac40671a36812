//! TMA loads of whole tiles (CuTe's `SM90_TMA_LOAD` and `SM90_TMA_LOAD_MULTICAST`, partitioned as
//! `tma_partition` does): where each box of a shared tile lands and which global coordinate it
//! starts at, both from layouts.
//!
//! A tile of an operand is `(outer, k)` (outer = M for A, N for B). A 2-D tensor map reads boxes
//! of it; its first dimension is the contiguous one: k for a K-major operand, outer otherwise. A
//! tile larger than one box (an MN-major tile of 128 rows read by 64 x 64 boxes of the 128-byte
//! swizzle) is several boxes, and the block of a cluster that loads only its part of a tile loads
//! that part's boxes. [`TmaBoxes`] holds, for a shared tile's layout:
//! - where box `(i, j)` starts in shared memory: the layout's offset of the box's first element,
//!   checked at construction to be affine in `(i, j)` (so a box's destination is one multiply-add
//!   on the GPU), with every box a contiguous run of the layout, as TMA writes it;
//! - the box's global coordinate: the tile's coordinate tensor ([`IdentityTensor`], the tile's
//!   `local_tile` of the global tensor's coordinates) at the box's first element, in the tensor
//!   map's dimension order.
//!
//! ```
//! use cute_rs_tensor::atom::tma::{MapOrder, TmaBoxes};
//! use cute_rs_tensor::atom::wgmma::{make_gmma_layout, Major};
//! use cute_rs_tensor::device::mma::WgmmaSwizzle;
//! // An MN-major 128 x 64 bf16 tile with the 128-byte swizzle, read by 64 x 64 boxes.
//! let smem = make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
//! let boxes = TmaBoxes::new(smem, [128, 64], [64, 64], 2, MapOrder::OuterFirst).unwrap();
//! assert_eq!(boxes.count(), [2, 1]);
//! assert_eq!(boxes.byte_step(), [64 * 64 * 2, 0]); // the second box 8 KiB further
//! ```

use cute_rs_layout::{LayoutError, SwizzledLayout};

use crate::identity::IdentityTensor;
use crate::static_layout::StaticLayout;

/// The refusal of [`TmaBoxes::new`] for `condition`.
const fn refuse(condition: &'static str, value: i64) -> LayoutError {
    LayoutError::InvalidArgument { op: "TmaBoxes::new", condition, value }
}

/// The offset of tile coordinate `(o, k)` in `smem` (index `o + tile[0] * k`).
const fn at(smem: SwizzledLayout, tile: [i64; 2], o: i64, k: i64) -> i64 {
    smem.call(o + tile[0] * k)
}

/// The order of a tensor map's two dimensions relative to a tile's `(outer, k)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::tma::MapOrder;
/// assert_eq!(MapOrder::KFirst.coords([128, 64]), [64, 128]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapOrder {
    /// The map's first (contiguous) dimension is k: a K-major operand.
    KFirst,
    /// The map's first dimension is outer (M or N): an MN-major operand.
    OuterFirst,
}

impl MapOrder {
    /// A tile coordinate `(outer, k)` in the map's dimension order.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tma::MapOrder;
    /// assert_eq!(MapOrder::OuterFirst.coords([3, 4]), [3, 4]);
    /// ```
    #[inline(always)]
    pub const fn coords(self, at: [i64; 2]) -> [i64; 2] {
        match self {
            MapOrder::KFirst => [at[1], at[0]],
            MapOrder::OuterFirst => at,
        }
    }
}

/// The TMA boxes of a shared tile (see the [module documentation](self)).
///
/// # Example
/// See the [module documentation](self).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmaBoxes {
    /// The box's extent, `(outer, k)`.
    extent: [i64; 2],
    /// Boxes along outer and along k.
    count: [i64; 2],
    /// Bytes between the destinations of consecutive boxes along outer and along k.
    step: [i64; 2],
    /// The tensor map's dimension order.
    order: MapOrder,
}

impl TmaBoxes {
    /// The boxes of `box_extent` (`(outer, k)`) of a `tile` (`(outer, k)`) laid out in shared
    /// memory by `smem` (index `outer + tile[0] * k` to element offset; each element
    /// `element_bytes` bytes), for a tensor map whose dimensions are in `order`.
    ///
    /// # Errors
    /// [`LayoutError::InvalidArgument`] naming the violated condition: the box divides the tile;
    /// `smem` covers the tile; each box occupies a contiguous run of offsets starting at its first
    /// element's (as TMA writes a box); the boxes' first offsets are affine in the box coordinate.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tma::{MapOrder, TmaBoxes};
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_layout, Major};
/// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// let smem = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 256, 64).unwrap();
    /// // A K-major 256-row tile, loaded by two blocks of a cluster as 128-row boxes.
    /// let b = TmaBoxes::new(smem, [256, 64], [128, 64], 2, MapOrder::KFirst).unwrap();
    /// assert_eq!(b.byte_step()[0], 128 * 64 * 2);
    /// // A box that does not divide the tile is refused by name.
    /// let e = TmaBoxes::new(smem, [256, 64], [96, 64], 2, MapOrder::KFirst).unwrap_err();
    /// assert!(e.to_string().contains("divide"), "{e}");
    /// ```
    pub const fn new(
        smem: SwizzledLayout,
        tile: [i64; 2],
        box_extent: [i64; 2],
        element_bytes: i64,
        order: MapOrder,
    ) -> Result<TmaBoxes, LayoutError> {
        if box_extent[0] <= 0 || box_extent[1] <= 0 || tile[0] % box_extent[0] != 0 || tile[1] % box_extent[1] != 0 {
            return Err(refuse("tile divisibility: the box must divide the tile in both modes", box_extent[0]));
        }
        if smem.size() < tile[0] * tile[1] {
            return Err(refuse("the shared layout must cover the tile", smem.size()));
        }
        let count = [tile[0] / box_extent[0], tile[1] / box_extent[1]];
        let origin = at(smem, tile, 0, 0);
        let step = [
            if count[0] > 1 { at(smem, tile, box_extent[0], 0) - origin } else { 0 },
            if count[1] > 1 { at(smem, tile, 0, box_extent[1]) - origin } else { 0 },
        ];
        let elems = box_extent[0] * box_extent[1];
        let mut i = 0;
        while i < count[0] {
            let mut j = 0;
            while j < count[1] {
                let first = at(smem, tile, i * box_extent[0], j * box_extent[1]);
                if first != origin + i * step[0] + j * step[1] {
                    return Err(refuse("the boxes' first offsets must be affine in the box coordinate", first));
                }
                // A box is TMA's dense block: its offsets are exactly first .. first + elems (the
                // swizzle permutes within it).
                let (mut low, mut high) = (i64::MAX, i64::MIN);
                let mut o = 0;
                while o < box_extent[0] {
                    let mut k = 0;
                    while k < box_extent[1] {
                        let off = at(smem, tile, i * box_extent[0] + o, j * box_extent[1] + k);
                        if off < low {
                            low = off;
                        }
                        if off > high {
                            high = off;
                        }
                        k += 1;
                    }
                    o += 1;
                }
                if low != first || high - low + 1 != elems {
                    return Err(refuse("each box must be a contiguous run of the shared layout starting at its first element", first));
                }
                j += 1;
            }
            i += 1;
        }
        Ok(TmaBoxes { extent: box_extent, count, step: [step[0] * element_bytes, step[1] * element_bytes], order })
    }

    /// Boxes along outer and along k.
    ///
    /// # Example
    /// See the [module documentation](self).
    pub const fn count(&self) -> [i64; 2] {
        self.count
    }

    /// Bytes between the destinations of consecutive boxes along outer and along k (0 for a mode
    /// of one box).
    ///
    /// # Example
    /// See the [module documentation](self).
    pub const fn byte_step(&self) -> [i64; 2] {
        self.step
    }

    /// Calls `issue(dst, coords)` for each box of part `part` of `parts` equal parts of the tile
    /// along outer (a cluster's blocks each loading their part: `parts` = 1 for the whole tile):
    /// `dst` is the box's shared destination in the tile at `tile`, `coords` its global coordinate
    /// in the map's order, the coordinate tensor `coords` of the tile at the box's first element.
    ///
    /// # Constraints
    /// `parts` divides the boxes along outer (checked on the host); coordinates fit in `i32`, as
    /// TMA's.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tma::{MapOrder, TmaBoxes};
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_layout, Major};
/// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Tile = "(128,64)");
    /// let smem = make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
    /// let boxes = TmaBoxes::new(smem, [128, 64], [64, 64], 2, MapOrder::OuterFirst).unwrap();
    /// let mut seen = vec![];
    /// // The tile at global row 256, k 64; the second of two parts is its second box.
    /// boxes.for_each_box(IdentityTensor::<Tile>::tile_at([256, 64]), core::ptr::null_mut(), 1, 2, |dst, c| seen.push((dst as usize, c)));
    /// assert_eq!(seen, [(8192, [320, 64])]);
    /// ```
    #[inline(always)]
    pub fn for_each_box<Shape: StaticLayout, L: StaticLayout>(
        &self,
        coords: IdentityTensor<Shape, L>,
        tile: *mut u8,
        part: u32,
        parts: u32,
        mut issue: impl FnMut(*mut u8, [i32; 2]),
    ) {
        debug_assert!(parts > 0 && self.count[0] % parts as i64 == 0, "TmaBoxes: the parts must divide the boxes along outer");
        let per_part = (self.count[0] / parts as i64) as u32;
        for i in part * per_part..(part + 1) * per_part {
            for j in 0..self.count[1] as u32 {
                let first = [i as i64 * self.extent[0], j as i64 * self.extent[1]];
                let c = self.order.coords(coords.at::<2, 2>(first));
                let dst = tile.wrapping_offset((i as i64 * self.step[0] + j as i64 * self.step[1]) as isize);
                issue(dst, [c[0] as i32, c[1] as i32]);
            }
        }
    }
}
