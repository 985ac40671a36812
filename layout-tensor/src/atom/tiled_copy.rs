//! Tiled copies from a thread layout and a value layout (CuTe's `make_tiled_copy(atom,
//! thr_layout, val_layout)`): the copies that stage tiles from global memory, such as `cp.async`
//! into a shared-memory ring, as opposed to the copies that feed an MMA's fragments
//! ([`make_tiled_copy_a`](super::copy::make_tiled_copy_a)).
//!
//! `Thr` maps a thread's `(row, column)` position in the block's arrangement to its index, `Val`
//! a value's `(row, column)` within the thread's block of values to the value's index. Thread
//! `(tr, tc)` copies the `VR x VC` block of values at rows `tr VR ..` and columns `tc VC ..` of a
//! `(TR VR) x (TC VC)` tile (CuTe's raked product: each thread's values together). A partition of
//! a larger tile repeats this tile: `(values, row repetitions, column repetitions)`.
//!
//! ```
//! use cute_rs_tensor::atom::copy::UniversalCopy;
//! use cute_rs_tensor::atom::tiled_copy::make_tiled_copy;
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static, static_view::StaticView};
//! static_layout!(Thr = "(2,2):(2,1)"); // 4 threads, row-major
//! static_layout!(Val = "(1,2):(1,1)"); // 2 values along a row each
//! static_layout!(M = "(4,4):(4,1)");
//! let copy = make_tiled_copy::<UniversalCopy, Thr, Val>();
//! assert_eq!(copy.tile(), [2, 4]);
//! let mut v: Vec<u32> = (0..16).collect();
//! let m = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
//! // Thread 1 = (row 0, column 1): columns 2, 3 of rows 0 and 2.
//! let mine = copy.get_slice(1).partition_s(m);
//! assert_eq!([mine.at([0, 0, 0]), mine.at([1, 0, 0]), mine.at([0, 1, 0])], [2, 3, 10]);
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{composition, make_layout, right_inverse, unwrap, IntTuple, Layout};

use super::copy::{AtomsPerBlock, CopyAtom, Source, TiledCopyAtom};
use super::tiled_mma::partition_by_tv;
use crate::device::unroll::unroll_for;
use crate::identity::IdentityTensor;
use crate::mask::Full;
use crate::static_layout::{LayoutSource, ModeSize, StaticLayout};
use crate::static_view::StaticView;
use crate::tensor::{AddressSpace, Element, LayoutTensor};

/// A copy atom tiled over threads and values (see the [module documentation](self)).
///
/// # Parameters
/// - `C`: the copy atom ([`CopyAtom`], one thread per atom).
/// - `Thr`: `(rows, columns) -> thread`, a bijection.
/// - `Val`: `(rows, columns) -> value`, a bijection; the values of one atom are consecutive.
///
/// # Example
/// See the [module documentation](self).
pub struct TiledCopy<C, Thr, Val>(PhantomData<(C, Thr, Val)>);

impl<C, Thr, Val> Clone for TiledCopy<C, Thr, Val> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Thr, Val> Copy for TiledCopy<C, Thr, Val> {}
impl<C, Thr, Val> TiledCopyAtom for TiledCopy<C, Thr, Val> {
    type Atom = C;
}

/// The tiled copy of atom `C` over the threads `Thr` and values `Val` (CuTe's
/// `make_tiled_copy`).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{copy::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL, tiled_copy::make_tiled_copy};
/// use cute_rs_tensor::static_layout;
/// static_layout!(Thr = "(64,4):(4,1)"); // 256 threads, 4 along the contiguous columns
/// static_layout!(Val = "(1,8):(1,1)"); // 8 bf16 = 16 bytes each
/// assert_eq!(make_tiled_copy::<SM80_CP_ASYNC_CACHEGLOBAL_ZFILL, Thr, Val>().tile(), [64, 32]);
/// ```
#[inline(always)]
pub fn make_tiled_copy<C, Thr: StaticLayout, Val: StaticLayout>() -> TiledCopy<C, Thr, Val> {
    TiledCopy(PhantomData)
}

impl<C, Thr: StaticLayout, Val: StaticLayout> TiledCopy<C, Thr, Val> {
    /// Rows and columns of the tile the threads copy together.
    const TILE: [i64; 2] = {
        assert!(Thr::MODES.rank == 2 && Val::MODES.rank == 2, "make_tiled_copy: the thread and value layouts are (rows, columns)");
        [Thr::MODES.size[0] * Val::MODES.size[0], Thr::MODES.size[1] * Val::MODES.size[1]]
    };

    /// `(thread, value) -> r + rows * c` in the tile: each thread's `VR x VC` block at rows
    /// `tr VR ..` and columns `tc VC ..`.
    const TV: Layout = {
        let (tr, tc) = (Thr::MODES.size[0], Thr::MODES.size[1]);
        let (vr, vc) = (Val::MODES.size[0], Val::MODES.size[1]);
        let rows = tr * vr;
        let threads = unwrap!(composition(pair([tr, tc], [vr, rows * vc]), right_inverse(Thr::LAYOUT)));
        let values = unwrap!(composition(pair([vr, vc], [1, rows]), right_inverse(Val::LAYOUT)));
        unwrap!(make_layout(&[threads, values]))
    };

    /// The tile's `[rows, columns]`.
    ///
    /// # Example
    /// See [`make_tiled_copy`].
    pub const fn tile(&self) -> [i64; 2] {
        Self::TILE
    }

    /// `(thread, value) -> r + rows * c`: where each thread's values lie in the tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{copy::UniversalCopy, tiled_copy::make_tiled_copy};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(Thr = "(2,2):(2,1)");
    /// static_layout!(Val = "(1,2):(1,1)");
    /// let tv = make_tiled_copy::<UniversalCopy, Thr, Val>().tv();
    /// assert_eq!(tv.call(1), 4); // thread 1 = (0, 1): column 2 of 4 (2 rows)
    /// ```
    pub const fn tv(&self) -> Layout {
        Self::TV
    }

    /// Thread `tid`'s slice (CuTe's `get_slice`).
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub fn get_slice(&self, tid: usize) -> ThrTiledCopy<C, Thr, Val> {
        ThrTiledCopy { tid, _m: PhantomData }
    }
}

/// The layout `(s0, s1):(d0, d1)`.
const fn pair(shape: [i64; 2], stride: [i64; 2]) -> Layout {
    unwrap!(Layout::new(unwrap!(IntTuple::from_slice(&shape)), unwrap!(IntTuple::from_slice(&stride))))
}

/// One thread's view of a [`TiledCopy`] (CuTe's `ThrCopy`).
///
/// # Example
/// See the [module documentation](self).
pub struct ThrTiledCopy<C, Thr, Val> {
    tid: usize,
    _m: PhantomData<(C, Thr, Val)>,
}

impl<C, Thr, Val> Clone for ThrTiledCopy<C, Thr, Val> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Thr, Val> Copy for ThrTiledCopy<C, Thr, Val> {}

/// A thread's values of `S` under the tiled copy: `(values, row repetitions, column
/// repetitions)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{copy::UniversalCopy, tiled_copy::CopyPartition};
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(Thr = "(2,2):(2,1)");
/// static_layout!(Val = "(1,2):(1,1)");
/// static_layout!(M = "(4,4):(4,1)");
/// assert_eq!(CopyPartition::<UniversalCopy, Thr, Val, M>::LAYOUT.to_string(), "(2,2,1):(1,8,0)");
/// ```
pub struct CopyPartition<C, Thr, Val, S>(PhantomData<(C, Thr, Val, S)>);
/// Thread -> the offset of its first value in [`CopyPartition`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{copy::UniversalCopy, tiled_copy::CopyPartitionOrigin};
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(Thr = "(2,2):(2,1)");
/// static_layout!(Val = "(1,2):(1,1)");
/// static_layout!(M = "(4,4):(4,1)");
/// assert_eq!(CopyPartitionOrigin::<UniversalCopy, Thr, Val, M>::LAYOUT.call(3), 4 + 2);
/// ```
pub struct CopyPartitionOrigin<C, Thr, Val, S>(PhantomData<(C, Thr, Val, S)>);

impl<C, Thr, Val, S> Clone for CopyPartition<C, Thr, Val, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Thr, Val, S> Copy for CopyPartition<C, Thr, Val, S> {}
impl<C, Thr, Val, S> Clone for CopyPartitionOrigin<C, Thr, Val, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Thr, Val, S> Copy for CopyPartitionOrigin<C, Thr, Val, S> {}

impl<C, Thr: StaticLayout, Val: StaticLayout, S: StaticLayout> StaticLayout for CopyPartition<C, Thr, Val, S> {
    const LAYOUT: Layout = unwrap!(partition_by_tv(S::LAYOUT, TiledCopy::<C, Thr, Val>::TV, TiledCopy::<C, Thr, Val>::TILE[0], TiledCopy::<C, Thr, Val>::TILE[1])).0;
}
impl<C, Thr: StaticLayout, Val: StaticLayout, S: StaticLayout> StaticLayout for CopyPartitionOrigin<C, Thr, Val, S> {
    const LAYOUT: Layout = unwrap!(partition_by_tv(S::LAYOUT, TiledCopy::<C, Thr, Val>::TV, TiledCopy::<C, Thr, Val>::TILE[0], TiledCopy::<C, Thr, Val>::TILE[1])).1;
}

impl<C, Thr: StaticLayout, Val: StaticLayout> ThrTiledCopy<C, Thr, Val> {
    /// The thread's partition of the source `src` (CuTe's `partition_S`): any static view of a
    /// tile a whole number of copy tiles large (a global [`StridedTile`](crate::strided_tile),
    /// a shared tile, an [`IdentityTensor`] of the coordinates).
    ///
    /// # Example
    /// See the [module documentation](self).
    #[inline(always)]
    pub fn partition_s<V: StaticView>(&self, src: V) -> V::With<CopyPartition<C, Thr, Val, V::Layout>> {
        src.relayout(CopyPartitionOrigin::<C, Thr, Val, V::Layout>::LAYOUT.call(self.tid as i64))
    }

    /// The thread's partition of the destination `dst` (CuTe's `partition_D`): the same values
    /// as [`partition_s`](Self::partition_s) (the atoms here read and write the same positions).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{copy::UniversalCopy, tiled_copy::make_tiled_copy};
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(Thr = "(2,2):(2,1)");
    /// static_layout!(Val = "(1,2):(1,1)");
    /// static_layout!(Tile = "(4,4)");
    /// let c = make_tiled_copy::<UniversalCopy, Thr, Val>().get_slice(2).partition_d(IdentityTensor::<Tile>::new());
    /// assert_eq!([c.at([1, 0, 0]), c.at([0, 1, 0])], [[1, 1], [3, 0]]);
    /// ```
    #[inline(always)]
    pub fn partition_d<V: StaticView>(&self, dst: V) -> V::With<CopyPartition<C, Thr, Val, V::Layout>> {
        self.partition_s(dst)
    }
}

/// Copies a thread's partition `src` into `dst` with the tiled copy's atom where the values lie
/// inside `extent`, zero-filling the rest (CuTe's `copy_if` with a predicate tensor, made from
/// the coordinates): `coords` is the same partition of an [`IdentityTensor`] of the tile (its
/// coordinates in the whole tensor, [`IdentityTensor::tile_at`]). An atom's values run along one
/// mode; an atom that crosses the edge reads the values before it and zero-fills the rest (a
/// `cp.async` with fewer source bytes), one wholly outside reads nothing (its source address is
/// then the tensor's base, which is valid).
///
/// # Constraints
/// The atom's values are its own positions ([`Source::Own`]) and consecutive in `src` and `dst`;
/// coordinates are non-negative and, with the extents, below 2^31 (the predicates are 32-bit, as
/// CuTe's `int` shapes);
/// `coords`, `src` and `dst` are the same partition (checked on the host).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{copy::UniversalCopy, tiled_copy::{copy_if, make_tiled_copy}};
/// use cute_rs_tensor::{identity::IdentityTensor, static_layout, strided_tile::local_tile, LayoutTensor, Static, Strided};
/// static_layout!(Thr = "(2,2):(2,1)");
/// static_layout!(Val = "(1,2):(1,1)");
/// static_layout!(Tile = "(2,4)");
/// static_layout!(Dst = "(2,4):(4,1)");
/// // A 3 x 3 matrix; the 2 x 4 tile at (2, 0) hangs over the bottom and right edges.
/// let mut m: Vec<u32> = (1..=9).collect();
/// let g = local_tile::<Tile, _, _, 2>(LayoutTensor::new(&mut m, Strided::row_major([3, 3])).unwrap(), [2, 0]);
/// let mut s = vec![99u32; 8];
/// let d = LayoutTensor::new(&mut s, Static::<Dst>::new()).unwrap();
/// let copy = make_tiled_copy::<UniversalCopy, Thr, Val>();
/// for t in 0..4 {
///     let thr = copy.get_slice(t);
///     copy_if(copy, thr.partition_s(IdentityTensor::<Tile>::tile_at([2, 0])), [3, 3], thr.partition_s(g), thr.partition_d(d));
/// }
/// assert_eq!(s, [7, 8, 9, 0, 0, 0, 0, 0]);
/// ```
#[inline(always)]
pub fn copy_if<TC, T, Shape, LI, LS, LD, AS, AD>(
    _copy: TC,
    coords: IdentityTensor<Shape, LI>,
    extent: [i64; 2],
    src: LayoutTensor<'_, T, LS, AS, Full>,
    dst: LayoutTensor<'_, T, LD, AD, Full>,
) where
    TC: TiledCopyAtom,
    TC::Atom: CopyAtom<T>,
    T: Element,
    Shape: StaticLayout,
    LI: StaticLayout,
    LS: LayoutSource,
    LD: LayoutSource,
    AS: AddressSpace,
    AD: AddressSpace,
{
    const {
        assert!(matches!(<TC::Atom as CopyAtom<T>>::SOURCE, Source::Own), "copy_if: the atom's threads must copy their own positions");
        assert!(LI::MODES.rank == 3, "copy_if: the partitions are (values, rows, columns)");
    };
    let n = <TC::Atom as CopyAtom<T>>::VALUES as i64;
    debug_assert!(extent.iter().all(|&e| (0..=i32::MAX as i64).contains(&e)), "copy_if: extents below 2^31");
    unroll_for::<ModeSize<LI, 2>>(|j| {
        unroll_for::<ModeSize<LI, 1>>(|i| {
            unroll_for::<AtomsPerBlock<TC::Atom, T, LI>>(|b| {
                let (i, j, v) = (i as i64, j as i64, b as i64 * n);
                let first: [i64; 2] = coords.at([v, i, j]);
                let last: [i64; 2] = coords.at([v + n - 1, i, j]);
                // The mode the atom's values run along (a constant: the difference of two
                // coordinates of one partition); the other must be inside for any to be read.
                let run = if last[0] != first[0] { 0 } else { 1 };
                let other = 1 - run;
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let s = src.source().offset_at(&[v, i, j]);
                    let d = dst.source().offset_at(&[v, i, j]);
                    for c in 1..n {
                        let at: [i64; 2] = coords.at([v + c, i, j]);
                        assert!(
                            at[run] == first[run] + c && at[other] == first[other],
                            "copy_if: an atom's values must be consecutive coordinates along one mode"
                        );
                        assert!(
                            src.source().offset_at(&[v + c, i, j]) == s + c && dst.source().offset_at(&[v + c, i, j]) == d + c,
                            "copy_if: an atom's values must be consecutive in memory"
                        );
                    }
                }
                // In 32 bits, as CuTe's `int` shapes: the predicates' compares and selects are
                // then single instructions.
                let (f, e) = ([first[0] as i32, first[1] as i32], [extent[0] as i32, extent[1] as i32]);
                // Upper bounds only, as CuTe's `elem_less(coord, shape)`: tiles start at
                // non-negative coordinates.
                let inside = f[other] < e[other];
                let valid = if inside { (e[run] - f[run]).clamp(0, n as i32) } else { 0 };
                let s = src.source().offset_at(&[v, i, j]);
                let d = dst.source().offset_at(&[v, i, j]);
                // Nothing is read when `valid` is 0, but a cp.async's address must still be
                // valid: the tensor's base.
                let from = if valid > 0 { src.elem_ptr(s as isize) } else { src.elem_ptr(0) };
                // SAFETY: the first `valid` values are inside the tensor (by the coordinates) and
                // consecutive; the destination's values are inside `dst`.
                unsafe { <TC::Atom as CopyAtom<T>>::copy_zfill(from, dst.elem_ptr(d as isize), valid as usize) };
            });
        });
    });
}
