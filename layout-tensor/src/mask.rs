//! Bounds of a tensor view: [`Full`] (every element exists; zero-sized, checks compile away) or
//! [`Clip`] (a partial tile: run-time extents per mode, every access and copy predicated).

use crate::static_layout::Modes;

/// Which coordinates of a view hold elements.
///
/// # Example
/// ```
/// use cute_rs_tensor::{Bounds, Clip, Full};
/// assert!(Full.contains(&[7, 9]));
/// assert!(Clip { extent: [2, 3] }.contains(&[1, 2]));
/// assert!(!Clip { extent: [2, 3] }.contains(&[2, 0]));
/// ```
pub trait Bounds: Copy {
    /// `true` when every coordinate is in bounds (the checks are constant `true`).
    const FULL: bool;
    /// Whether the per-mode coordinate `coord` (one entry per top-level mode) is in bounds.
    fn contains(&self, coord: &[i64]) -> bool;
    /// Whether 1-D index `i` of a view whose modes are `modes` is in bounds.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout::Modes, Bounds, Clip};
    /// let m = Modes::of(cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap());
    /// assert!(Clip { extent: [2, 1] }.contains_index(&m, 1));  // (1,0)
    /// assert!(!Clip { extent: [2, 1] }.contains_index(&m, 2)); // (0,1)
    /// ```
    fn contains_index(&self, modes: &Modes, i: i64) -> bool;
    /// The in-bounds extent of mode `axis` of a view whose mode has `size` elements: `size` for a
    /// full view, fewer for a partial tile at an edge.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{Bounds, Clip, Full};
    /// assert_eq!(Clip { extent: [2, 1] }.extent(1, 4), 1);
    /// assert_eq!(Full.extent(1, 4), 4);
    /// ```
    #[inline(always)]
    fn extent(&self, axis: usize, size: i64) -> i64 {
        let _ = axis;
        size
    }
}

/// Every element exists: the bounds of full tiles and ordinary tensors (zero-sized).
///
/// # Example
/// ```
/// use cute_rs_tensor::{Bounds, Full};
/// assert!(Full::FULL && core::mem::size_of::<Full>() == 0);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Full;

impl Bounds for Full {
    const FULL: bool = true;
    #[inline(always)]
    fn contains(&self, _coord: &[i64]) -> bool {
        true
    }
    #[inline(always)]
    fn contains_index(&self, _modes: &Modes, _i: i64) -> bool {
        true
    }
}

/// A partial tile: mode `k` holds elements at coordinates `0..extent[k]` only.
///
/// # Example
/// ```
/// use cute_rs_tensor::{Bounds, Clip};
/// let c = Clip { extent: [3, 1] };
/// assert!(c.contains(&[2, 0]) && !c.contains(&[0, 1]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clip<const R: usize> {
    /// The in-bounds extent of each top-level mode.
    pub extent: [i64; R],
}

impl<const R: usize> Bounds for Clip<R> {
    const FULL: bool = false;
    #[inline(always)]
    fn contains(&self, coord: &[i64]) -> bool {
        let mut k = 0;
        while k < R {
            if coord[k] >= self.extent[k] {
                return false;
            }
            k += 1;
        }
        true
    }
    #[inline(always)]
    fn contains_index(&self, modes: &Modes, i: i64) -> bool {
        let mut rest = i;
        let mut k = 0;
        while k < R {
            let c = if k + 1 < R { rest % modes.size[k] } else { rest };
            if c >= self.extent[k] {
                return false;
            }
            rest /= modes.size[k];
            k += 1;
        }
        true
    }
    #[inline(always)]
    fn extent(&self, axis: usize, size: i64) -> i64 {
        if axis < R && self.extent[axis] < size { self.extent[axis] } else { size }
    }
}
