//! `TiledMma`: an MMA atom repeated over values and over warps (CuTe's `make_tiled_mma`), and the
//! partitions it gives each thread.
//!
//! # Three levels
//! - The **atom** ([`MmaAtom`]): one instruction, `M x N x K`, with its thread-value layouts.
//! - The **thread block** of the tiled MMA: the atom repeated `VM x VN x VK` times by the same
//!   threads (CuTe 2's value layout `ValLayoutMNK`). Its blocks are adjacent: a `16 x 8` atom with
//!   `VN = 2` gives each warp a `16 x 16` block of C, which one `ldmatrix.x4` of B feeds.
//! - The **tile**: the blocks of `WM x WN x WK` atom groups (warps for `mma.sync`) side by side,
//!   group `(wm, wn, wk)` being the thread group at index `Warps(wm, wn, wk)`. A tensor larger than
//!   the tile is covered by repeating it: each thread's fragment of an operand is
//!   `(block values, rows, columns)`, the repetitions in the last two modes.
//!
//! With `TILE_M = M VM WM`, `TILE_N = N VN WN`, `TILE_K = K VK WK`, the thread-value layouts
//! [`tv_a`](TiledMma::tv_a), [`tv_b`](TiledMma::tv_b), [`tv_c`](TiledMma::tv_c) map
//! `(thread, value)` to the index `row + TILE_ROWS * column` of the operand's tile (A: `m, k`;
//! B: `n, k`; C: `m, n`). Each is a bijection onto the tile (the property tests check it).
//!
//! ```
//! use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN as Atom, TiledMma};
//! use cute_rs_tensor::static_layout;
//! static_layout!(Warps = "(2,4,1)"); // 8 warps: 2 along M, 4 along N
//! static_layout!(Vals = "(1,2,1)");  // each warp two atoms along N
//! type Mma = TiledMma<Atom, Warps, Vals>;
//! assert_eq!((Mma::THREADS, Mma::TILE_M, Mma::TILE_N, Mma::TILE_K), (256, 32, 64, 16));
//! // Thread 32 is lane 0 of warp 1 = (wm 1, wn 0): its first C value is at row 16, column 0.
//! assert_eq!(Mma::tv_c().call(32), 16);
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{append_to_rank, composition, make_layout, right_inverse, IntTuple, Layout, LayoutError};

use super::mma::MmaAtom;
use crate::fragment::{CompactOf, Fragment};
use crate::static_layout::{divide_by_shape, StaticLayout};
use crate::static_view::StaticView;


/// Which operand of `C += A B` a partition is of.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::tiled_mma::Operand;
/// assert_eq!(Operand::B.dims(), (1, 2)); // B's rows are N, its columns K
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// `M x K`.
    A,
    /// `N x K` (B seen as its transpose).
    B,
    /// `M x N`.
    C,
}

impl Operand {
    /// The operand's rows and columns as indices into `(M, N, K)`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tiled_mma::Operand;
    /// assert_eq!(Operand::C.dims(), (0, 1));
    /// ```
    pub const fn dims(self) -> (usize, usize) {
        match self {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        }
    }

    /// The operand with const-generic number `n` (0: A, 1: B, 2: C), as the partition types take it.
    pub(crate) const fn of(n: usize) -> Operand {
        match n {
            0 => Operand::A,
            1 => Operand::B,
            _ => Operand::C,
        }
    }
}

/// The sizes of a rank-3 `(M, N, K)` layout's modes (a lower rank is padded with 1s).
const fn mnk_sizes(l: Layout) -> Result<[i64; 3], LayoutError> {
    let l = tri!(append_to_rank(l, 3));
    if l.rank() != 3 {
        return Err(LayoutError::RankMismatch { op: "make_tiled_mma", expected: 3, found: l.rank() });
    }
    Ok([tri!(l.mode(0)).size(), tri!(l.mode(1)).size(), tri!(l.mode(2)).size()])
}

/// The shape of a thread block and a tile: `(rows, columns)` of one operand's block and tile,
/// and the `(M, N, K)` sizes of the block.
#[derive(Clone, Copy, Debug)]
pub struct MmaGeometry {
    /// The atom's `(M, N, K)`.
    pub atom: [i64; 3],
    /// Atoms per thread block along `(M, N, K)`.
    pub values: [i64; 3],
    /// Thread groups along `(M, N, K)`.
    pub groups: [i64; 3],
}

impl MmaGeometry {
    /// The geometry of an atom of shape `atom` with value layout `values` and group layout `groups`.
    ///
    /// # Errors
    /// [`LayoutError::RankMismatch`] when `values` or `groups` has more than three modes.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tiled_mma::MmaGeometry;
    /// let g = MmaGeometry::new([16, 8, 16], cute_rs_layout::Layout::parse("(1,2,1)").unwrap(), cute_rs_layout::Layout::parse("(2,4)").unwrap()).unwrap();
    /// assert_eq!(g.tile(), [32, 64, 16]);
    /// ```
    pub const fn new(atom: [i64; 3], values: Layout, groups: Layout) -> Result<MmaGeometry, LayoutError> {
        Ok(MmaGeometry { atom, values: tri!(mnk_sizes(values)), groups: tri!(mnk_sizes(groups)) })
    }

    /// One thread block's `(M, N, K)`: the atom times the values.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tiled_mma::MmaGeometry;
    /// let g = MmaGeometry { atom: [16, 8, 16], values: [1, 2, 1], groups: [2, 4, 1] };
    /// assert_eq!(g.block(), [16, 16, 16]);
    /// ```
    pub const fn block(&self) -> [i64; 3] {
        [self.atom[0] * self.values[0], self.atom[1] * self.values[1], self.atom[2] * self.values[2]]
    }

    /// The tile's `(M, N, K)`: the block times the groups.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::tiled_mma::MmaGeometry;
    /// let g = MmaGeometry { atom: [16, 8, 16], values: [1, 2, 1], groups: [2, 4, 1] };
    /// assert_eq!(g.tile(), [32, 64, 16]);
    /// ```
    pub const fn tile(&self) -> [i64; 3] {
        let b = self.block();
        [b[0] * self.groups[0], b[1] * self.groups[1], b[2] * self.groups[2]]
    }
}

/// The thread-value layout of one thread block of an operand: `(thread, (atom values, value
/// rows, value columns)) -> row + BLOCK_ROWS * column`, the atom `(thread, value) -> row +
/// ATOM_ROWS * column` layout `atom_tv` repeated `values` times along the operand's rows and
/// columns.
///
/// # Errors
/// The errors of [`composition`] and [`make_layout`].
///
/// # Example
/// The m16n8k16 C fragment, two atoms along N: lane 0's values 4..8 are the second atom's, 8
/// columns right (index `16 * 8`).
/// ```
/// use cute_rs_tensor::atom::{tiled_mma::{block_tv, MmaGeometry, Operand}, MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
/// let g = MmaGeometry { atom: [16, 8, 16], values: [1, 2, 1], groups: [1, 1, 1] };
/// let tv = block_tv(Atom::LAYOUT_C, g, Operand::C).unwrap();
/// assert_eq!((tv.call(0), tv.call(32 * 4)), (0, 16 * 8));
/// ```
pub const fn block_tv(atom_tv: Layout, g: MmaGeometry, op: Operand) -> Result<Layout, LayoutError> {
    let (r, c) = op.dims();
    let (rows, cols) = (g.atom[r], g.atom[c]);
    let block_rows = rows * g.values[r];
    let to_block = tri!(Layout::new(tri!(IntTuple::from_slice(&[rows, cols])), tri!(IntTuple::from_slice(&[1, block_rows]))));
    let placed = tri!(composition(to_block, atom_tv));
    let values = tri!(make_layout(&[
        tri!(placed.mode(1)),
        tri!(Layout::int(g.values[r], rows)),
        tri!(Layout::int(g.values[c], block_rows * cols)),
    ]));
    make_layout(&[tri!(placed.mode(0)), values])
}

/// The thread-value layout of an operand's tile: `(thread, value) -> row + TILE_ROWS * column`,
/// the thread-block layout `block` (`(thread, value) -> row + BLOCK_ROWS * column`, as
/// [`block_tv`] gives) placed for each thread group: group `(wm, wn, wk)`, at index
/// `groups(wm, wn, wk)`, owns the block at block coordinates given by its operand's dimensions
/// (and shares it with the groups that differ in the third dimension). Threads are numbered
/// `t + THREADS_PER_GROUP * group`.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] when `groups` is not compact (a bijection onto its size);
/// the errors of [`composition`] and [`make_layout`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{tiled_mma::{block_tv, tile_tv, MmaGeometry, Operand}, MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
/// use cute_rs_layout::Layout;
/// let g = MmaGeometry { atom: [16, 8, 16], values: [1, 1, 1], groups: [2, 4, 1] };
/// let groups = Layout::parse("(2,4,1)").unwrap();
/// let tv = tile_tv(block_tv(Atom::LAYOUT_A, g, Operand::A).unwrap(), g, groups, Operand::A).unwrap();
/// // Warp 1 = (wm 1, wn 0): rows 16.. of the 32 x 16 A tile. Warp 2 = (0, 1) shares warp 0's.
/// assert_eq!((tv.call(32), tv.call(64)), (16, 0));
/// ```
pub const fn tile_tv(block: Layout, g: MmaGeometry, groups: Layout, op: Operand) -> Result<Layout, LayoutError> {
    let (r, c) = op.dims();
    let b = g.block();
    let tile_rows = b[r] * g.groups[r];
    let (block_rows, block_cols) = (b[r], b[c]);
    // Re-index the block's `row + BLOCK_ROWS * col` as `row + TILE_ROWS * col`.
    let to_tile = tri!(Layout::new(
        tri!(IntTuple::from_slice(&[block_rows, block_cols])),
        tri!(IntTuple::from_slice(&[1, tile_rows])),
    ));
    let placed = tri!(composition(to_tile, block));
    // Group coordinate (wm, wn, wk) -> the offset of its block: along the operand's rows and
    // columns by whole blocks, 0 along the third dimension.
    let mut stride = [0i64; 3];
    stride[r] = block_rows;
    stride[c] = tile_rows * block_cols;
    let offsets = tri!(Layout::new(tri!(IntTuple::from_slice(&g.groups)), tri!(IntTuple::from_slice(&stride))));
    let inverse = right_inverse(groups);
    if inverse.size() != groups.size() {
        return Err(LayoutError::InvalidArgument {
            op: "make_tiled_mma",
            condition: "the thread-group layout must be compact (each a bijection onto 0..size)",
            value: inverse.size(),
        });
    }
    let by_group = tri!(composition(offsets, inverse));
    let threads = tri!(make_layout(&[tri!(placed.mode(0)), by_group]));
    make_layout(&[threads, tri!(placed.mode(1))])
}

/// Thread `tid`'s partition of the layout `s` by a tile thread-value layout `tv` over tiles of
/// `rows x cols`: `(fragment, origin)` where the fragment is `(values, row repetitions, column
/// repetitions)` and `origin(tid)` the offset of the thread's first value. `s`'s first two modes
/// must be divided by `rows` and `cols`.
///
/// # Errors
/// The errors of [`divide_by_shape`] (a tile that does not divide) and [`composition`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::tiled_mma::partition_by_tv;
/// use cute_rs_layout::Layout;
/// // 2 threads, each one column of a 2 x 2 tile, over a 4 x 2 column-major tensor.
/// let (frag, origin) = partition_by_tv(Layout::parse("(4,2):(1,4)").unwrap(), Layout::parse("(2,2):(2,1)").unwrap(), 2, 2).unwrap();
/// assert_eq!(frag.to_string(), "(2,2,1):(1,2,0)");
/// assert_eq!(origin.call(1), 4);
/// ```
pub const fn partition_by_tv(s: Layout, tv: Layout, rows: i64, cols: i64) -> Result<(Layout, Layout), LayoutError> {
    let tiler = tri!(cute_rs_layout::make_layout_col_major(tri!(IntTuple::from_slice(&[rows, cols]))));
    let z = tri!(divide_by_shape(s, tiler));
    let placed = tri!(composition(tri!(z.mode(0)), tv));
    let rest = tri!(z.mode(1));
    let fragment = tri!(make_layout(&[tri!(placed.mode(1)), tri!(rest.mode(0)), tri!(rest.mode(1))]));
    Ok((fragment, tri!(placed.mode(0))))
}

/// CuTe's `TiledMMA`: the atom `Atom` repeated by the value layout `Values` (`(VM, VN, VK)`, default
/// one atom) and by the thread-group layout `Groups` (`(WM, WN, WK) -> group`). See the
/// [module documentation](self).
///
/// # Parameters
/// - `Atom`: the [`MmaAtom`].
/// - `Groups`: a compact layout of up to three modes, `(wm, wn, wk) -> group index`; threads
///   `Atom::THREADS * g ..` form group `g`.
/// - `Values`: up to three modes whose sizes are the atom's repetitions per thread block.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
/// use cute_rs_tensor::static_layout;
/// static_layout!(Threads = "(16,16,1)");
/// type Mma = TiledMma<UniversalFma<f32>, Threads>;
/// assert_eq!((Mma::THREADS, Mma::TILE_M, Mma::TILE_N), (256, 16, 16));
/// ```
#[derive(Debug)]
pub struct TiledMma<Atom, Groups, Values = OneAtom>(PhantomData<(Atom, Groups, Values)>);

impl<Atom, Groups, Values> Clone for TiledMma<Atom, Groups, Values> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Atom, Groups, Values> Copy for TiledMma<Atom, Groups, Values> {}
impl<Atom, Groups, Values> Default for TiledMma<Atom, Groups, Values> {
    fn default() -> Self {
        TiledMma(PhantomData)
    }
}

crate::static_layout!(
    /// The value layout of a [`TiledMma`] with one atom per thread block: `(1,1,1)`.
    ///
    /// ```
    /// use cute_rs_tensor::{atom::tiled_mma::OneAtom, StaticLayout};
    /// assert_eq!(OneAtom::SIZE, 1);
    /// ```
    pub OneAtom = "(1,1,1)"
);

impl<Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout> TiledMma<Atom, Groups, Values> {
    /// The shapes of the atom, the thread block and the tile.
    pub const GEOMETRY: MmaGeometry = cute_rs_layout::unwrap!(MmaGeometry::new([Atom::M, Atom::N, Atom::K], Values::LAYOUT, Groups::LAYOUT));
    /// Threads: the atom's times the groups.
    pub const THREADS: usize = (Atom::THREADS * Groups::LAYOUT.size()) as usize;
    /// The tile's M.
    pub const TILE_M: i64 = Self::GEOMETRY.tile()[0];
    /// The tile's N.
    pub const TILE_N: i64 = Self::GEOMETRY.tile()[1];
    /// The tile's K.
    pub const TILE_K: i64 = Self::GEOMETRY.tile()[2];

    /// The thread-value layout of operand `op`'s thread block ([`block_tv`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{tiled_mma::Operand, TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// static_layout!(V = "(2,1,1)");
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G, V>::block_tv(Operand::C).size(), 2);
    /// ```
    pub const fn block_tv(op: Operand) -> Layout {
        let atom = match op {
            Operand::A => Atom::LAYOUT_A,
            Operand::B => Atom::LAYOUT_B,
            Operand::C => Atom::LAYOUT_C,
        };
        cute_rs_layout::unwrap!(block_tv(atom, Self::GEOMETRY, op))
    }

    /// The thread-value layout of operand `op`'s tile ([`tile_tv`] of [`block_tv`](Self::block_tv)).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{tiled_mma::Operand, TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// // Thread 3 = (1, 1) holds C's (1, 1): index 1 + 2 * 1.
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G>::tile_tv(Operand::C).call(3), 3);
    /// ```
    pub const fn tile_tv(op: Operand) -> Layout {
        cute_rs_layout::unwrap!(tile_tv(Self::block_tv(op), Self::GEOMETRY, Groups::LAYOUT, op))
    }

    /// `(thread, value) -> m + TILE_M * k` in the A tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G>::tv_a().call(2), 0); // (0, 1) reads A's row 0
    /// ```
    pub const fn tv_a() -> Layout {
        Self::tile_tv(Operand::A)
    }

    /// `(thread, value) -> n + TILE_N * k` in the B tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G>::tv_b().call(2), 1); // (0, 1) reads B's column 1
    /// ```
    pub const fn tv_b() -> Layout {
        Self::tile_tv(Operand::B)
    }

    /// `(thread, value) -> m + TILE_M * n` in the C tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G>::tv_c().call(2), 2);
    /// ```
    pub const fn tv_c() -> Layout {
        Self::tile_tv(Operand::C)
    }

    /// Thread `tid`'s slice (CuTe's `get_slice` / `get_thread_slice`): its partitions of A, B and C.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G>::get_slice(3).thread(), 3);
    /// ```
    #[inline(always)]
    pub fn get_slice(tid: usize) -> ThrMma<Atom, Groups, Values> {
        ThrMma { tid, _m: PhantomData }
    }
}

/// One thread's view of a [`TiledMma`] (CuTe's `ThrMMA`): partitions of tensors of A, B and C.
///
/// # Example
/// A 4 x 4 C tile over 2 x 2 threads with one f32 FMA each: thread 1 = (1, 0) holds rows 1 and 3
/// of column 0 and of column 2.
/// ```
/// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(C = "(4,4):(1,4)");
/// let mut v: Vec<f32> = (0..16).map(|i| i as f32).collect();
/// let c = LayoutTensor::new(&mut v, Static::<C>::new()).unwrap();
/// let part = TiledMma::<UniversalFma<f32>, G>::get_slice(1).partition_c(c);
/// assert_eq!(part.layout().to_string(), "((1,1,1),2,2):((0,4,4),2,8)");
/// assert_eq!([part.at([0, 0, 0]), part.at([0, 1, 0]), part.at([0, 0, 1])], [1.0, 3.0, 9.0]);
/// ```
#[derive(Debug)]
pub struct ThrMma<Atom, Groups, Values> {
    tid: usize,
    _m: PhantomData<(Atom, Groups, Values)>,
}

impl<Atom, Groups, Values> Clone for ThrMma<Atom, Groups, Values> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Atom, Groups, Values> Copy for ThrMma<Atom, Groups, Values> {}

/// Thread `tid`'s `(values, row repetitions, column repetitions)` fragment of the layout `S` as
/// operand `OP` (0: A, 1: B, 2: C) of `TiledMma<Atom, Groups, Values>` ([`partition_by_tv`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{tiled_mma::MmaPartition, UniversalFma};
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(V = "(1,1,1)");
/// static_layout!(C = "(4,4):(1,4)");
/// assert_eq!(MmaPartition::<UniversalFma<f32>, G, V, C, 2>::LAYOUT.to_string(), "((1,1,1),2,2):((0,4,4),2,8)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MmaPartition<Atom, Groups, Values, S, const OP: usize>(PhantomData<(Atom, Groups, Values, S)>);

/// Thread index -> the offset of its first value in the partition [`MmaPartition`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{tiled_mma::MmaOrigin, UniversalFma};
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(V = "(1,1,1)");
/// static_layout!(C = "(4,4):(1,4)");
/// assert_eq!(MmaOrigin::<UniversalFma<f32>, G, V, C, 2>::LAYOUT.call(3), 1 + 4);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MmaOrigin<Atom, Groups, Values, S, const OP: usize>(PhantomData<(Atom, Groups, Values, S)>);

/// The partition of `S` as operand `op` by the tiled MMA.
const fn mma_partition<Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout>(s: Layout, op: Operand) -> (Layout, Layout) {
    let (r, c) = op.dims();
    let tile = TiledMma::<Atom, Groups, Values>::GEOMETRY.tile();
    cute_rs_layout::unwrap!(partition_by_tv(s, TiledMma::<Atom, Groups, Values>::tile_tv(op), tile[r], tile[c]))
}

impl<Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, S: StaticLayout, const OP: usize> StaticLayout
    for MmaPartition<Atom, Groups, Values, S, OP>
{
    const LAYOUT: Layout = mma_partition::<Atom, Groups, Values>(S::LAYOUT, Operand::of(OP)).0;
}

impl<Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, S: StaticLayout, const OP: usize> StaticLayout
    for MmaOrigin<Atom, Groups, Values, S, OP>
{
    const LAYOUT: Layout = mma_partition::<Atom, Groups, Values>(S::LAYOUT, Operand::of(OP)).1;
}

/// The partition type of view `V` as operand `OP` of the tiled MMA.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{tiled_mma::{OneAtom, Partitioned}, TiledMma, UniversalFma};
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(C = "(4,4)");
/// type View<'a> = LayoutTensor<'a, f32, Static<C>>;
/// let mut v = [0f32; 16];
/// let c: View = LayoutTensor::new(&mut v, Static::new()).unwrap();
/// let part: Partitioned<View, UniversalFma<f32>, G, OneAtom, 2> = TiledMma::<UniversalFma<f32>, G>::get_slice(0).partition_c(c);
/// assert_eq!(part.size(), 4);
/// ```
pub type Partitioned<V, Atom, Groups, Values, const OP: usize> =
    <V as StaticView>::With<MmaPartition<Atom, Groups, Values, <V as StaticView>::Layout, OP>>;

/// The register fragment of a partition: compact, column-major.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{tiled_mma::{MmaFragment, OneAtom}, TiledMma, UniversalFma};
/// use cute_rs_tensor::static_layout;
/// static_layout!(G = "(2,2,1)");
/// static_layout!(C = "(4,4)");
/// let acc: MmaFragment<f32, UniversalFma<f32>, G, OneAtom, C, 2, 4> = TiledMma::<UniversalFma<f32>, G>::get_slice(0).partition_fragment_c::<C, 4>();
/// assert_eq!(acc.data, [0.0; 4]);
/// ```
pub type MmaFragment<T, Atom, Groups, Values, S, const OP: usize, const N: usize> =
    Fragment<T, CompactOf<MmaPartition<Atom, Groups, Values, S, OP>>, N>;

impl<Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout> ThrMma<Atom, Groups, Values> {
    /// The thread's index in the tiled MMA.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "4:1");
    /// assert_eq!(TiledMma::<UniversalFma<f32>, G>::get_slice(2).thread(), 2);
    /// ```
    #[inline(always)]
    pub fn thread(&self) -> usize {
        self.tid
    }

    #[inline(always)]
    fn partition<V: StaticView, const OP: usize>(&self, v: V) -> Partitioned<V, Atom, Groups, Values, OP> {
        let origin = MmaOrigin::<Atom, Groups, Values, V::Layout, OP>::LAYOUT.call(self.tid as i64);
        v.relayout::<MmaPartition<Atom, Groups, Values, V::Layout, OP>>(origin)
    }

    /// The thread's `(values, M repetitions, K repetitions)` of an `M x K` view of A (CuTe's
    /// `partition_A`). A compile-time error unless the tile's M and K divide the view's modes.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(G = "(2,2,1)");
    /// static_layout!(A = "(4,3):(3,1)"); // row-major 4 x 3
    /// let mut v: Vec<u8> = (0..12).collect();
    /// let a = TiledMma::<UniversalFma<f32>, G>::get_slice(1).partition_a(LayoutTensor::new(&mut v, Static::<A>::new()).unwrap());
    /// // Thread 1 = (1, 0) reads rows 1 and 3, every k.
    /// assert_eq!([a.at([0, 0, 0]), a.at([0, 1, 0]), a.at([0, 1, 2])], [3, 9, 11]);
    /// ```
    #[inline(always)]
    pub fn partition_a<V: StaticView>(&self, a: V) -> Partitioned<V, Atom, Groups, Values, 0> {
        self.partition::<V, 0>(a)
    }

    /// The thread's `(values, N repetitions, K repetitions)` of an `N x K` view of B (CuTe's
    /// `partition_B`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(G = "(2,2,1)");
    /// static_layout!(B = "(4,3):(1,4)"); // N x K, N contiguous
    /// let mut v: Vec<u8> = (0..12).collect();
    /// let b = TiledMma::<UniversalFma<f32>, G>::get_slice(2).partition_b(LayoutTensor::new(&mut v, Static::<B>::new()).unwrap());
    /// // Thread 2 = (0, 1) reads columns n = 1 and 3.
    /// assert_eq!([b.at([0, 0, 0]), b.at([0, 1, 0]), b.at([0, 0, 1])], [1, 3, 5]);
    /// ```
    #[inline(always)]
    pub fn partition_b<V: StaticView>(&self, b: V) -> Partitioned<V, Atom, Groups, Values, 1> {
        self.partition::<V, 1>(b)
    }

    /// The thread's `(values, M repetitions, N repetitions)` of an `M x N` view of C (CuTe's
    /// `partition_C`): see [`ThrMma`]'s example.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::{identity::IdentityTensor, static_layout};
    /// static_layout!(G = "(2,2,1)");
    /// static_layout!(Tile = "(4,4)");
    /// let coords = TiledMma::<UniversalFma<f32>, G>::get_slice(3).partition_c(IdentityTensor::<Tile>::new());
    /// assert_eq!(coords.get(3), [3, 3]); // thread 3 = (1, 1): its last value is C's (3, 3)
    /// ```
    #[inline(always)]
    pub fn partition_c<V: StaticView>(&self, c: V) -> Partitioned<V, Atom, Groups, Values, 2> {
        self.partition::<V, 2>(c)
    }

    /// A zeroed register fragment for the thread's partition of an A view of layout `S` (CuTe's
    /// `partition_fragment_A`): `(values, M repetitions, K repetitions)`, compact. `N` is its size
    /// (a compile-time error otherwise).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
    /// use cute_rs_tensor::{half::bf16, static_layout};
    /// static_layout!(Warps = "(2,4,1)");
    /// static_layout!(Tile = "(128,32)");
    /// let a = TiledMma::<Atom, Warps>::get_slice(0).partition_fragment_a::<Tile, 64>();
    /// assert_eq!(a.data.len(), 8 * 4 * 2); // 8 values, 4 M repetitions, 2 K repetitions
    /// ```
    #[inline(always)]
    pub fn partition_fragment_a<S: StaticLayout, const N: usize>(&self) -> MmaFragment<Atom::A, Atom, Groups, Values, S, 0, N> {
        Fragment::new()
    }

    /// A zeroed register fragment for the thread's partition of a B view of layout `S` (CuTe's
    /// `partition_fragment_B`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(Warps = "(2,4,1)");
    /// static_layout!(Tile = "(128,32)");
    /// let b = TiledMma::<Atom, Warps>::get_slice(0).partition_fragment_b::<Tile, 32>();
    /// assert_eq!(b.data.len(), 4 * 4 * 2);
    /// ```
    #[inline(always)]
    pub fn partition_fragment_b<S: StaticLayout, const N: usize>(&self) -> MmaFragment<Atom::B, Atom, Groups, Values, S, 1, N> {
        Fragment::new()
    }

    /// A zeroed register fragment (the accumulators) for the thread's partition of a C view of
    /// layout `S` (CuTe's `partition_fragment_C`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::{TiledMma, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(Warps = "(2,4,1)");
    /// static_layout!(Tile = "(128,128)");
    /// let acc = TiledMma::<Atom, Warps>::get_slice(0).partition_fragment_c::<Tile, 64>();
    /// assert_eq!(acc.data, [0.0; 64]);
    /// ```
    #[inline(always)]
    pub fn partition_fragment_c<S: StaticLayout, const N: usize>(&self) -> MmaFragment<Atom::C, Atom, Groups, Values, S, 2, N> {
        Fragment::new()
    }
}
