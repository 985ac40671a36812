//! Tiled copies out of a register fragment (CuTe's `make_tiled_copy_C`): the copies an epilogue
//! uses to write an MMA's accumulators, converted, into a shared tile, such as `stmatrix` into a
//! TMA store's staging buffer.
//!
//! The fragment is described by its thread-value layout `F`: `(thread, value) -> r + ROWS * c`
//! in the `ROWS x COLS` tile (for a wgmma accumulator,
//! [`wgmma_accumulator_layout`](crate::device::mma::wgmma_accumulator_layout)). Each atom takes
//! `VALUES` consecutive values of a thread's fragment, in order. Where they go follows from the
//! atom:
//! - an atom that writes its own positions ([`Source::Own`]) writes value `v` of thread `t` at
//!   `F(t, v)`;
//! - `stmatrix` ([`SM90_U32x4_STSM_N`](super::copy::SM90_U32x4_STSM_N)): register `q` of lane `l`
//!   holds elements `register(l, h)` of matrix `q`, and lane `8q + r` gives the address of row `r`
//!   of matrix `q`. So lane `8q + r` writes 8 elements: element `(r, c)` of matrix `q` lies where
//!   the fragment puts the (lane, half) that holds it. [`matrix_store_tv`] computes that layout
//!   (it is [`matrix_source`](super::copy::matrix_source) read the other way round), and refuses
//!   fragments whose matrix rows are not runs of the tile.
//!
//! ```
//! use cute_rs_tensor::atom::fragment_copy::matrix_store_tv;
//! use cute_rs_tensor::device::mma::{wgmma_accumulator_layout, LDMATRIX_8X8};
//! // A warpgroup's m64n64 accumulator: lane l of warp w gives row 16 w + l % 16 of the m16n16
//! // piece at column 8 (l / 16); its 8 elements run along the row (stride 64 in m + 64 n).
//! let tv = matrix_store_tv(LDMATRIX_8X8, 4, wgmma_accumulator_layout(64).unwrap()).unwrap();
//! assert_eq!(tv.call(32 + 17), 16 + 1 + 64 * 8);
//! assert_eq!(tv.call(128) - tv.call(0), 64);
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{right_inverse, unwrap, IntTuple, Layout, LayoutError};

use super::copy::{CopyAtom, Source, TiledCopyAtom};
use super::tiled_mma::partition_by_tv;
use crate::static_layout::StaticLayout;
use crate::static_view::StaticView;
use crate::tensor::Element;

/// The destination thread-value layout `(thread, (row element, atom)) -> r + ROWS * c` of
/// `stmatrix` atoms of `count` matrices storing the fragment `frag` (`(threads, values) -> r +
/// ROWS * c`): lane `8q + r` of warp `w` gives, for its `a`-th atom, the address of row `r` of
/// matrix `q`, whose 8 elements are its values. Threads come in warps (32 each) and each
/// thread's values in atoms (`2 count` each, consecutive).
///
/// # Errors
/// [`LayoutError::InvalidArgument`] when `frag` is not `(threads, values)` with whole warps and
/// atoms, when a matrix row is not a run of equal steps in the tile, or when the rows of the
/// lanes, warps and atoms do not form a layout (an affine map of the lane bits, warps and atoms).
///
/// # Example
/// See the [module documentation](self).
pub const fn matrix_store_tv(register: Layout, count: usize, frag: Layout) -> Result<Layout, LayoutError> {
    if frag.rank() != 2 {
        return Err(LayoutError::InvalidArgument { op: "make_tiled_copy_c", condition: "the fragment must be (threads, values)", value: frag.rank() as i64 });
    }
    let threads = tri!(frag.mode(0)).size();
    let values = tri!(frag.mode(1)).size();
    let per = 2 * count as i64;
    if threads % 32 != 0 || values % per != 0 {
        return Err(LayoutError::InvalidArgument {
            op: "make_tiled_copy_c",
            condition: "a stmatrix fragment must have whole warps of threads and whole atoms of values",
            value: values,
        });
    }
    let (warps, atoms) = (threads / 32, values / per);
    let s = Store { inv: right_inverse(register), count: count as i64, frag, threads };
    if s.at(0, 0, 0, 0) != 0 {
        return Err(LayoutError::InvalidArgument { op: "make_tiled_copy_c", condition: "lane 0's first row must start at the tile's origin", value: s.at(0, 0, 0, 0) });
    }
    let mut lane_strides = [0i64; 5];
    let mut b = 0;
    while b < 5 {
        lane_strides[b] = s.at(0, 0, 1 << b, 0);
        b += 1;
    }
    let warp_stride = if warps > 1 { s.at(1, 0, 0, 0) } else { 0 };
    let atom_stride = if atoms > 1 { s.at(0, 1, 0, 0) } else { 0 };
    let step = s.at(0, 0, 0, 1);
    let thread_modes = tri!(Layout::new(
        tri!(IntTuple::from_slice(&[2, 2, 2, 2, 2, warps])),
        tri!(IntTuple::from_slice(&[lane_strides[0], lane_strides[1], lane_strides[2], lane_strides[3], lane_strides[4], warp_stride])),
    ));
    let value_modes = tri!(Layout::new(tri!(IntTuple::from_slice(&[8, atoms])), tri!(IntTuple::from_slice(&[step, atom_stride]))));
    let tv = tri!(cute_rs_layout::make_layout(&[thread_modes, value_modes]));
    let mut w = 0;
    while w < warps {
        let mut a = 0;
        while a < atoms {
            let mut lane = 0;
            while lane < 32 {
                let mut c = 0;
                while c < 8 {
                    if s.at(w, a, lane, c) != tv.call(lane + 32 * w + threads * (c + 8 * a)) {
                        return Err(LayoutError::InvalidArgument {
                            op: "make_tiled_copy_c",
                            condition: "each stmatrix row must be a run of equal steps in the tile, and the rows a layout of the lanes, warps and atoms",
                            value: lane + 32 * w,
                        });
                    }
                    c += 1;
                }
                lane += 1;
            }
            a += 1;
        }
        w += 1;
    }
    Ok(tv)
}

/// The positions `stmatrix` atoms write a fragment to (see [`matrix_store_tv`]).
struct Store {
    /// The inverse of the matrix register layout: element `r + 8 c` -> `lane + 32 half`.
    inv: Layout,
    count: i64,
    frag: Layout,
    threads: i64,
}

impl Store {
    /// The tile position of element `c` of the row lane `lane` of warp `w` addresses in its atom
    /// `a`: the fragment's position of the (lane, half) that holds it.
    const fn at(&self, w: i64, a: i64, lane: i64, c: i64) -> i64 {
        let (q, r) = ((lane / 8) % self.count, lane % 8);
        let lh = self.inv.call(r + 8 * c);
        let value = 2 * self.count * a + 2 * q + lh / 32;
        self.frag.call(32 * w + lh % 32 + self.threads * value)
    }
}

/// A tiled copy of atom `C` out of a register fragment of thread-value layout `F` into `Tile`
/// tiles (CuTe's `make_tiled_copy_C`; see the [module documentation](self)).
///
/// # Parameters
/// - `C`: the copy atom: one that writes its own positions, or a `stmatrix` of four matrices
///   (each lane's 8 values are one row).
/// - `F`: `(threads, values) -> r + ROWS * c`, the fragment's layout over the tile.
/// - `Tile`: the tile's shape `(ROWS, COLS)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{copy, UniversalCopy};
/// use cute_rs_tensor::atom::fragment_copy::make_tiled_copy_c;
/// use cute_rs_tensor::{static_layout, Fragment, LayoutTensor, Static};
/// static_layout!(F = "(2,2):(1,2)"); // thread t holds row t of a 2 x 2 tile
/// static_layout!(Tile = "(2,2)");
/// static_layout!(Dst = "(2,2):(1,2)"); // a column-major tile
/// static_layout!(Regs = "2:1");
/// let mut out = [0u32; 4];
/// let c = make_tiled_copy_c::<UniversalCopy, F, Tile>();
/// for t in 0..2 {
///     let mut frag = Fragment::<u32, Regs, 2>::new();
///     frag.data = [10 * t as u32, 10 * t as u32 + 1];
///     let thr = c.get_slice(t);
///     copy(c, thr.retile_s(frag.tensor()), thr.partition_d(LayoutTensor::new(&mut out, Static::<Dst>::new()).unwrap()));
/// }
/// assert_eq!(out, [0, 10, 1, 11]); // column-major: (0,0), (1,0), (0,1), (1,1)
/// ```
pub struct FragmentCopy<C, F, Tile>(PhantomData<(C, F, Tile)>);

impl<C, F, Tile> Clone for FragmentCopy<C, F, Tile> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, F, Tile> Copy for FragmentCopy<C, F, Tile> {}
impl<C, F, Tile> TiledCopyAtom for FragmentCopy<C, F, Tile> {
    type Atom = C;
}

/// CuTe's `make_tiled_copy_C(atom, tiled_mma)` for the fragment `F` of `Tile` tiles.
///
/// # Example
/// See [`FragmentCopy`].
#[inline(always)]
pub fn make_tiled_copy_c<C, F: StaticLayout, Tile: StaticLayout>() -> FragmentCopy<C, F, Tile> {
    FragmentCopy(PhantomData)
}

impl<C, F: StaticLayout, Tile: StaticLayout> FragmentCopy<C, F, Tile> {
    /// The destination thread-value layout over the tile: `(thread, value) -> r + ROWS * c`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::SM90_U32x4_STSM_N;
    /// use cute_rs_tensor::atom::fragment_copy::make_tiled_copy_c;
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(Acc = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))"); // m64n64 wgmma
    /// static_layout!(Tile = "(64,64)");
    /// let tv = make_tiled_copy_c::<SM90_U32x4_STSM_N, Acc, Tile>().dst_tv::<u16>();
    /// assert_eq!(tv.call(9), 9); // lane 9: row 9, column 0
    /// ```
    pub const fn dst_tv<T: Element>(&self) -> Layout
    where
        C: CopyAtom<T>,
    {
        Self::destination::<T>()
    }

    const fn destination<T: Element>() -> Layout
    where
        C: CopyAtom<T>,
    {
        match C::DESTINATION {
            Source::Own => F::LAYOUT,
            Source::Matrices { register, count } => {
                assert!(count == 4, "make_tiled_copy_c: stmatrix tiles take the x4 atoms (each lane's 8 values are one row)");
                unwrap!(matrix_store_tv(register, count, F::LAYOUT))
            }
        }
    }

    /// Thread `tid`'s slice (CuTe's `get_slice`).
    ///
    /// # Example
    /// See [`FragmentCopy`].
    #[inline(always)]
    pub fn get_slice(&self, tid: usize) -> ThrFragmentCopy<C, F, Tile> {
        ThrFragmentCopy { tid, _m: PhantomData }
    }
}

/// One thread's view of a [`FragmentCopy`] (CuTe's `ThrCopy`).
///
/// # Example
/// See [`FragmentCopy`].
pub struct ThrFragmentCopy<C, F, Tile> {
    tid: usize,
    _m: PhantomData<(C, F, Tile)>,
}

impl<C, F, Tile> Clone for ThrFragmentCopy<C, F, Tile> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, F, Tile> Copy for ThrFragmentCopy<C, F, Tile> {}

/// A thread's destination values of a view of layout `S` under [`FragmentCopy`] with element
/// `T`: `(values, row repetitions, column repetitions)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{copy::SM90_U32x4_STSM_N, fragment_copy::FragmentDest};
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(Acc = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
/// static_layout!(Tile = "(64,64)");
/// static_layout!(Rows = "(64,64):(64,1)"); // a row-major staging tile
/// // Four atoms of one 8-element row each, 16 columns apart.
/// assert_eq!(FragmentDest::<SM90_U32x4_STSM_N, Acc, Tile, Rows, u16>::LAYOUT.to_string(), "((8,4),1,1):((1,16),0,0)");
/// ```
pub struct FragmentDest<C, F, Tile, S, T>(PhantomData<(C, F, Tile, S, T)>);
/// Thread -> the offset of its first destination value in [`FragmentDest`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{copy::SM90_U32x4_STSM_N, fragment_copy::FragmentDestOrigin};
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(Acc = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
/// static_layout!(Tile = "(64,64)");
/// static_layout!(Rows = "(64,64):(64,1)");
/// // Thread 49 = lane 17 of warp 1: row 16 + 1, column 8.
/// assert_eq!(FragmentDestOrigin::<SM90_U32x4_STSM_N, Acc, Tile, Rows, u16>::LAYOUT.call(49), 17 * 64 + 8);
/// ```
pub struct FragmentDestOrigin<C, F, Tile, S, T>(PhantomData<(C, F, Tile, S, T)>);
/// A thread's fragment as the source of a [`FragmentCopy`]: its values in order, one tile.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::fragment_copy::FragmentSource;
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(Acc = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
/// assert_eq!(FragmentSource::<Acc>::LAYOUT.to_string(), "(32,1,1):(1,0,0)");
/// ```
pub struct FragmentSource<F>(PhantomData<F>);

macro_rules! marker_copy {
    ($($name:ident<$($p:ident),*>),*) => {$(
        impl<$($p),*> Clone for $name<$($p),*> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($p),*> Copy for $name<$($p),*> {}
    )*};
}
marker_copy!(FragmentDest<C, F, Tile, S, T>, FragmentDestOrigin<C, F, Tile, S, T>, FragmentSource<F>);

const fn dest_partition<C: CopyAtom<T>, T: Element, F: StaticLayout, Tile: StaticLayout>(s: Layout) -> (Layout, Layout) {
    assert!(Tile::MODES.rank == 2, "make_tiled_copy_c: the tile is (rows, columns)");
    let tv = FragmentCopy::<C, F, Tile>::destination::<T>();
    unwrap!(partition_by_tv(s, tv, Tile::MODES.size[0], Tile::MODES.size[1]))
}

impl<C: CopyAtom<T>, F: StaticLayout, Tile: StaticLayout, S: StaticLayout, T: Element> StaticLayout for FragmentDest<C, F, Tile, S, T> {
    const LAYOUT: Layout = dest_partition::<C, T, F, Tile>(S::LAYOUT).0;
}
impl<C: CopyAtom<T>, F: StaticLayout, Tile: StaticLayout, S: StaticLayout, T: Element> StaticLayout for FragmentDestOrigin<C, F, Tile, S, T> {
    const LAYOUT: Layout = dest_partition::<C, T, F, Tile>(S::LAYOUT).1;
}
impl<F: StaticLayout> StaticLayout for FragmentSource<F> {
    const LAYOUT: Layout = {
        let values = unwrap!(F::LAYOUT.mode(1)).size();
        unwrap!(Layout::new(unwrap!(IntTuple::from_slice(&[values, 1, 1])), unwrap!(IntTuple::from_slice(&[1, 0, 0]))))
    };
}

impl<C, F: StaticLayout, Tile: StaticLayout> ThrFragmentCopy<C, F, Tile> {
    /// The thread's index.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{copy::UniversalCopy, fragment_copy::make_tiled_copy_c};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(F = "(2,2):(1,2)");
    /// static_layout!(Tile = "(2,2)");
    /// assert_eq!(make_tiled_copy_c::<UniversalCopy, F, Tile>().get_slice(1).thread(), 1);
    /// ```
    #[inline(always)]
    pub fn thread(&self) -> usize {
        self.tid
    }

    /// The thread's partition of the destination `dst` (CuTe's `partition_D`): a static view of
    /// a whole number of tiles (a shared staging tile, swizzled or not).
    ///
    /// # Example
    /// See [`FragmentCopy`].
    #[inline(always)]
    pub fn partition_d<T: Element, V: StaticView>(&self, dst: V) -> V::With<FragmentDest<C, F, Tile, V::Layout, T>>
    where
        C: CopyAtom<T>,
        V: super::copy::TensorOf<T>,
    {
        dst.relayout(FragmentDestOrigin::<C, F, Tile, V::Layout, T>::LAYOUT.call(self.tid as i64))
    }

    /// The thread's fragment as the copy's source (CuTe's `retile_S`): its values in order, as
    /// `(values, 1, 1)` for one tile.
    ///
    /// # Constraints
    /// `frag` holds the thread's `size(mode 1 of F)` values in order.
    ///
    /// # Example
    /// See [`FragmentCopy`].
    #[inline(always)]
    pub fn retile_s<V: StaticView>(&self, frag: V) -> V::With<FragmentSource<F>> {
        const { assert!(V::Layout::SIZE == FragmentSource::<F>::SIZE, "retile_s: the fragment must hold the thread's values of one tile") };
        frag.relayout(0)
    }
}
