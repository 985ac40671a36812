//! Tensors printed as other tile languages print them, beside CuTe's `print_tensor` (the
//! [`Display`](core::fmt::Display) of [`LayoutTensor`]):
//! - [`LayoutTensor::nested`]: cuTile's `print(tile)` and NumPy's lists, `[[0, 4, 8, 12]]`;
//! - [`LayoutTensor::mojo`]: Mojo's `print(tensor)`.
//!
//! Both read the elements through the layout by logical coordinate, so any layout prints (nested
//! modes, swizzles, partial tiles, whose out-of-bounds elements print as `.`). They format with
//! `core::fmt` only, so a kernel prints them with `device_println!`. Elements print with Rust's
//! `Display`: an f32 `1.0` prints `1`, where Mojo and NumPy print `1.0`.

use core::fmt;

use crate::fragment::Fragment;
use crate::mask::{Bounds, Full};
use crate::static_layout::{LayoutSource, Static, StaticLayout};
use crate::tensor::{AddressSpace, Element, LayoutTensor, Local};

/// A tensor printed as cuTile prints a tile: nested lists, one level per top-level mode, the
/// first mode outermost (`[[[0, 2], [1, 3]]]` for shape `(1, 2, 2)`), elements separated by
/// `", "`. Made by [`LayoutTensor::nested`].
///
/// # Example
/// ```
/// # use cute_rs_tensor::LayoutTensor;
/// let mut v: Vec<i32> = (0..6).collect();
/// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
/// assert_eq!(t.nested().to_string(), "[[0, 1, 2], [3, 4, 5]]");
/// ```
pub struct Nested<'a, T, L: LayoutSource, A: AddressSpace, B: Bounds>(LayoutTensor<'a, T, L, A, B>);

/// A tensor printed as Mojo prints a `LayoutTensor`: a tensor of two modes (or one that
/// coalesces to two) as rows of elements, each followed by a space, rows separated by newlines;
/// any other as its elements in column-major coordinate order, separated by spaces. Made by
/// [`LayoutTensor::mojo`].
///
/// # Example
/// ```
/// # use cute_rs_tensor::LayoutTensor;
/// let mut v: Vec<i16> = (0..4).collect();
/// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap();
/// assert_eq!(t.mojo().to_string(), "0 1 \n2 3 ");
/// ```
pub struct Mojo<'a, T, L: LayoutSource, A: AddressSpace, B: Bounds>(LayoutTensor<'a, T, L, A, B>);

impl<'a, T: Element, L: LayoutSource, A: AddressSpace, B: Bounds> LayoutTensor<'a, T, L, A, B> {
    /// The tensor printed as nested lists, as cuTile prints tiles (see [`Nested`]).
    ///
    /// # Returns
    /// A value whose `Display` writes the lists.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v: Vec<u8> = (0..4).collect();
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("4:1").unwrap()).unwrap();
    /// assert_eq!(format!("{}", t.nested()), "[0, 1, 2, 3]");
    /// ```
    #[inline(always)]
    pub fn nested(&self) -> Nested<'a, T, L, A, B> {
        Nested(*self)
    }

    /// The tensor printed as Mojo prints it (see [`Mojo`]).
    ///
    /// # Returns
    /// A value whose `Display` writes Mojo's format.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::LayoutTensor;
    /// let mut v: Vec<u8> = (0..8).collect();
    /// // Three modes: the elements in column-major coordinate order.
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,2,2):(4,2,1)").unwrap()).unwrap();
    /// assert_eq!(format!("{}", t.mojo()), "0 4 2 6 1 5 3 7");
    /// ```
    #[inline(always)]
    pub fn mojo(&self) -> Mojo<'a, T, L, A, B> {
        Mojo(*self)
    }
}

impl<T: Element, S: StaticLayout, const N: usize> Fragment<T, S, N> {
    /// The fragment printed as nested lists through its layout, as cuTile prints a tile (see
    /// [`Nested`]): the tiles of the per-thread tile space
    /// ([`TileSpace`](crate::tile_space::TileSpace)) print as cuTile's documentation shows.
    ///
    /// # Returns
    /// A value whose `Display` writes the lists.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, Fragment};
    /// static_layout!(Row = "(1,4):(4,1)");
    /// let mut f = Fragment::<i64, Row, 4>::new();
    /// f.data = [0, 4, 8, 12];
    /// assert_eq!(f.nested().to_string(), "[[0, 4, 8, 12]]");
    /// ```
    #[inline(always)]
    pub fn nested(&self) -> Nested<'_, T, Static<S>, Local, Full> {
        // SAFETY: the fragment's values, read (never written) through its layout, which the
        // fragment's type guarantees fits them.
        Nested(unsafe { LayoutTensor::from_ptr_in(self.data.as_ptr() as *mut T, Static::new()) })
    }
}

/// Element `i` (1-D index) with the formatter's flags, or `.` outside a partial tensor's bounds.
fn element<T: Element + fmt::Display, L: LayoutSource, A: AddressSpace, B: Bounds>(t: &LayoutTensor<'_, T, L, A, B>, i: usize, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if t.contains(i) {
        fmt::Display::fmt(&t.get(i), f)
    } else {
        let width = f.width().unwrap_or(1);
        write!(f, "{:>width$}", ".")
    }
}

impl<T: Element + fmt::Display, L: LayoutSource, A: AddressSpace, B: Bounds> fmt::Display for Nested<'_, T, L, A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let layout = self.0.layout();
        let rank = layout.rank();
        let extent = |d: usize| layout.mode(d).map_or(1, |m| m.size() as usize);
        // The column-major stride of mode `d` in the 1-D index.
        let step = |d: usize| (0..d).map(extent).product::<usize>();
        // Depth-first over the modes, first mode outermost: `level` lists of mode `level`.
        fn list<T: Element + fmt::Display, L: LayoutSource, A: AddressSpace, B: Bounds>(
            t: &LayoutTensor<'_, T, L, A, B>,
            f: &mut fmt::Formatter<'_>,
            level: usize,
            rank: usize,
            base: usize,
            extent: &dyn Fn(usize) -> usize,
            step: &dyn Fn(usize) -> usize,
        ) -> fmt::Result {
            if level == rank {
                return element(t, base, f);
            }
            f.write_str("[")?;
            for c in 0..extent(level) {
                if c > 0 {
                    f.write_str(", ")?;
                }
                list(t, f, level + 1, rank, base + c * step(level), extent, step)?;
            }
            f.write_str("]")
        }
        list(&self.0, f, 0, rank, 0, &extent, &step)
    }
}

impl<T: Element + fmt::Display, L: LayoutSource, A: AddressSpace, B: Bounds> fmt::Display for Mojo<'_, T, L, A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.0;
        let size = t.size();
        if size == 0 {
            return Ok(());
        }
        // Two integer modes, as written or once coalesced: rows of the first mode. The 1-D index
        // is the same either way (coalescing keeps the layout's function).
        let two_int_modes = |l: cute_rs_layout::Layout| l.rank() == 2 && (0..2).all(|d| l.mode(d).is_ok_and(|m| m.is_int()));
        let layout = t.layout();
        let rows = if two_int_modes(layout) {
            layout.mode(0).map_or(1, |m| m.size() as usize)
        } else if two_int_modes(cute_rs_layout::coalesce(layout)) {
            cute_rs_layout::coalesce(layout).mode(0).map_or(1, |m| m.size() as usize)
        } else {
            0
        };
        if rows == 0 {
            for i in 0..size {
                if i > 0 {
                    f.write_str(" ")?;
                }
                element(t, i, f)?;
            }
            return Ok(());
        }
        let cols = size / rows;
        for m in 0..rows {
            for n in 0..cols {
                element(t, m + rows * n, f)?;
                f.write_str(" ")?;
            }
            if m + 1 < rows {
                f.write_str("\n")?;
            }
        }
        Ok(())
    }
}
