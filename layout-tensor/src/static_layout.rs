//! Layout sources: where a tensor's layout comes from. A run-time [`Layout`] value, or a static
//! layout carried by a zero-sized type ([`StaticLayout`], wrapped in [`Static`]), whose layout is an
//! associated constant computed by the algebra at compile time.
//!
//! Derived static views ([`TileOf`], [`TileRest`], [`Upcast`], [`Partition`], [`Composed`],
//! [`Coalesced`], [`Selected`]) are generic zero-sized types whose `LAYOUT` is a `const` computed
//! from their parameters' layouts: a tile of a static tensor has a static layout, so evaluating it in
//! a kernel folds to constants, and a violated precondition stops compilation with the algebra's
//! message.

use core::marker::PhantomData;
use cute_rs_layout::{Layout, LayoutError, MAX_LEAVES};

/// The modes of a layout as its evaluator needs them: for each top-level mode, its range of flat
/// leaves and its size. Computed once per layout (a constant for static layouts).
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout::Modes;
/// let m = Modes::of(cute_rs_layout::Layout::parse("((2,3),4):((1,2),6)").unwrap());
/// assert_eq!((m.rank, m.start[1], m.size[0], m.size[1]), (2, 2, 6, 4));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes {
    /// Number of top-level modes.
    pub rank: usize,
    /// Mode `k` covers the flat leaves `start[k]..start[k + 1]`.
    pub start: [usize; MAX_LEAVES + 1],
    /// Size (product of the shape) of mode `k`.
    pub size: [i64; MAX_LEAVES],
}

impl Modes {
    /// The modes of `l`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout::Modes;
    /// assert_eq!(Modes::of(cute_rs_layout::Layout::parse("(4,8):(8,1)").unwrap()).size[1], 8);
    /// ```
    pub const fn of(l: Layout) -> Modes {
        let mut m = Modes { rank: l.rank(), start: [0; MAX_LEAVES + 1], size: [0; MAX_LEAVES] };
        let mut k = 0;
        let mut at = 0;
        while k < m.rank {
            let mode = cute_rs_layout::unwrap!(l.mode(k));
            m.start[k] = at;
            m.size[k] = mode.size();
            at += mode.shape().num_leaves();
            k += 1;
        }
        m.start[k] = at;
        m
    }

    /// The per-mode coordinate of 1-D index `i` (colexicographic: mode 0 fastest; the last mode
    /// takes the rest, so an index past the size gives a last coordinate past its extent).
    /// Entries past the rank are 0.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout::Modes;
    /// let m = Modes::of(cute_rs_layout::Layout::parse("(2,(3,2))").unwrap());
    /// assert_eq!(m.coord::<2>(7), [1, 3]);
    /// ```
    #[inline(always)]
    pub const fn coord<const R: usize>(&self, i: i64) -> [i64; R] {
        let mut c = [0; R];
        let mut rest = i;
        let mut k = 0;
        // Entries past the rank stay 0; the last one that is not takes the rest.
        let last = if R < self.rank { R } else { self.rank };
        while k < last {
            c[k] = if k + 1 < last { rest % self.size[k] } else { rest };
            rest /= self.size[k];
            k += 1;
        }
        c
    }
}

/// Where a tensor's layout comes from: a run-time [`Layout`] or a [`Static`] layout (a constant).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, LayoutSource, Static};
/// static_layout!(pub Row = "(2,4):(4,1)");
/// let s: Static<Row> = Static::new();
/// assert_eq!(s.layout(), cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap());
/// assert_eq!(s.layout().call(1), 4);
/// ```
pub trait LayoutSource: Copy {
    /// `Some(layout)` when the layout is known at compile time.
    const STATIC: Option<Layout> = None;
    /// The layout.
    fn layout(&self) -> Layout;
    /// Its modes (see [`Modes`]).
    #[inline(always)]
    fn modes(&self) -> Modes {
        Modes::of(self.layout())
    }
    /// The number of elements (the layout's size). Sources with a cheaper answer than building
    /// the layout ([`Strided`](crate::Strided)) override it.
    #[inline(always)]
    fn size(&self) -> i64 {
        self.layout().size()
    }
    /// The offset of 1-D index `i`: `layout(i)`.
    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        self.layout().call(i)
    }
    /// The offset of a per-mode coordinate (one 1-D coordinate per top-level mode), checked
    /// against the extents on the host.
    #[inline(always)]
    #[track_caller]
    fn offset_at(&self, coord: &[i64]) -> i64 {
        crate::tensor::coord_offset(&self.layout(), &self.modes(), coord)
    }
    /// One past the largest offset: the elements of storage a view needs (for a layout of
    /// non-negative strides). Sources whose offsets are not [`layout`](Self::layout)'s (swizzles)
    /// override it.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutSource;
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// assert_eq!(LayoutSource::cosize(&Layout::parse("(4,4):(1,5)").unwrap()), 19);
    /// let sw = make_swizzled(Swizzle::new(1, 0, 1).unwrap(), Layout::parse("3:1").unwrap());
    /// assert_eq!(LayoutSource::cosize(&sw), 4); // offsets 0, 1, 3
    /// ```
    #[inline(always)]
    fn cosize(&self) -> i64 {
        self.layout().cosize()
    }
    /// The longest run of consecutive indices (a power of two) whose offsets the source keeps
    /// consecutive where [`layout`](Self::layout) does: copies move runs as single vector
    /// accesses only up to it. Unlimited by default; a swizzle keeps only its low `M` bits, so
    /// runs past `2^M` are scattered.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutSource;
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// assert_eq!(Layout::parse("8:1").unwrap().run_cap(), i64::MAX);
    /// let sw = make_swizzled(Swizzle::new(3, 2, 3).unwrap(), Layout::parse("(8,32):(32,1)").unwrap());
    /// assert_eq!(sw.run_cap(), 4);
    /// ```
    #[inline(always)]
    fn run_cap(&self) -> i64 {
        i64::MAX
    }
}

impl LayoutSource for Layout {
    #[inline(always)]
    fn layout(&self) -> Layout {
        *self
    }
}

/// A layout known at compile time, carried by a zero-sized marker type. Declare one with
/// [`static_layout!`](crate::static_layout!); use it as a tensor's layout through [`Static`].
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(pub Col = "(4,2):(1,4)");
/// assert_eq!(Col::LAYOUT.size(), 8);
/// ```
pub trait StaticLayout: Copy {
    /// The layout.
    const LAYOUT: Layout;
    /// Its modes.
    const MODES: Modes = Modes::of(Self::LAYOUT);
    /// Its size, as a `usize`.
    const SIZE: usize = Self::LAYOUT.size() as usize;
}

/// Declares a zero-sized marker type implementing [`StaticLayout`] from CuTe notation (parsed by
/// the compiler; a malformed layout fails compilation).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(pub Tile = "(32,8):(1,32)");
/// static_layout!(Tiny = "4:1");
/// assert_eq!(Tile::LAYOUT.cosize(), 256);
/// assert_eq!(Tiny::SIZE, 4);
/// ```
#[macro_export]
macro_rules! static_layout {
    ($(#[$attr:meta])* $vis:vis $name:ident = $notation:expr) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;
        impl $crate::StaticLayout for $name {
            const LAYOUT: $crate::layout::Layout = $crate::layout::unwrap!($crate::layout::Layout::parse($notation));
        }
    };
}

/// A [`LayoutSource`] whose layout is the constant `S::LAYOUT` (zero-sized).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, LayoutSource, Static};
/// static_layout!(L = "8:2");
/// assert_eq!(core::mem::size_of::<Static<L>>(), 0);
/// assert_eq!(Static::<L>::new().layout().call(3), 6);
/// ```
pub struct Static<S>(PhantomData<S>);

impl<S> Static<S> {
    /// The (only) value.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::{static_layout, Static};
    /// static_layout!(L = "8:1");
    /// let _ = Static::<L>::new();
    /// ```
    pub const fn new() -> Self {
        Static(PhantomData)
    }
}
impl<S> Clone for Static<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Static<S> {}
impl<S> Default for Static<S> {
    fn default() -> Self {
        Static(PhantomData)
    }
}
impl<S> core::fmt::Debug for Static<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Static")
    }
}

impl<S: StaticLayout> LayoutSource for Static<S> {
    const STATIC: Option<Layout> = Some(S::LAYOUT);
    #[inline(always)]
    fn layout(&self) -> Layout {
        S::LAYOUT
    }
    #[inline(always)]
    fn modes(&self) -> Modes {
        S::MODES
    }
}

/// The by-mode tiler of a tile shape: mode `k` of `tile` becomes `size(mode k):1`.
const fn tiler(tile: Layout) -> ([Layout; MAX_LEAVES], usize) {
    let mut t = [Layout::trivial(); MAX_LEAVES];
    let r = tile.rank();
    let mut k = 0;
    while k < r {
        t[k] = cute_rs_layout::unwrap!(Layout::int(cute_rs_layout::unwrap!(tile.mode(k)).size(), 1));
        k += 1;
    }
    (t, r)
}

/// CuTe's `zipped_divide(a, shape(tile))`: `((tile modes), (rest modes))`, the tile taken mode by
/// mode as `size(mode k):1`.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] when a tile extent does not divide its mode's size (CuTe would
/// let the last tile overhang); [`LayoutError::RankMismatch`] for a tile of higher rank; the errors
/// of [`cute_rs_layout::zipped_divide_by_mode`].
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// let z = cute_rs_tensor::static_layout::divide_by_shape(
///     Layout::parse("(4,4):(4,1)").unwrap(), Layout::parse("(2,2):(1,2)").unwrap()).unwrap();
/// assert_eq!(z.to_string(), "((2,2),(2,2)):((4,1),(8,2))");
/// assert!(cute_rs_tensor::static_layout::divide_by_shape(
///     Layout::parse("(4,4):(4,1)").unwrap(), Layout::parse("(3,2)").unwrap()).is_err());
/// ```
pub const fn divide_by_shape(a: Layout, tile: Layout) -> Result<Layout, LayoutError> {
    let (t, r) = tiler(tile);
    if r > a.rank() {
        return Err(LayoutError::RankMismatch { op: "divide_by_shape", expected: a.rank(), found: r });
    }
    // CuTe's divide accepts an extent that does not divide its mode (the last tile overhangs, and
    // CuTe relies on predication); an unmasked view must not overhang: see `tile_masked`.
    let mut k = 0;
    while k < r {
        let size = cute_rs_layout::unwrap!(a.mode(k)).size();
        let ext = t[k].size();
        if ext < 1 || size % ext != 0 {
            return Err(LayoutError::InvalidArgument {
                op: "divide_by_shape",
                condition: "each tile extent must divide its mode's size (tile_masked handles partial tiles)",
                value: ext,
            });
        }
        k += 1;
    }
    cute_rs_layout::zipped_divide_by_mode(a, t.split_at(r).0)
}

/// Mode `i` of a zipped layout, kept a tuple with the tile's rank (a rank-1 mode is re-wrapped so
/// that coordinates keep one entry per mode).
const fn zipped_mode(z: Layout, i: usize) -> Layout {
    cute_rs_layout::unwrap!(z.mode(i))
}

/// The vectorized layout of `l` in units of `w` elements: requires a leaf of stride 1 whose extent
/// `w` divides, and every other nonzero stride divisible by `w`; then [`cute_rs_layout::upcast`].
///
/// # Errors
/// [`LayoutError::InvalidArgument`] naming the violated condition.
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// let v = cute_rs_tensor::static_layout::vectorized(Layout::parse("(4,8):(8,1)").unwrap(), 4).unwrap();
/// assert_eq!(v.to_string(), "(4,2):(2,1)");
/// assert!(cute_rs_tensor::static_layout::vectorized(Layout::parse("(4,6):(6,1)").unwrap(), 4).is_err());
/// ```
pub const fn vectorized(l: Layout, w: i64) -> Result<Layout, LayoutError> {
    let shape = l.shape();
    let stride = l.stride();
    let s = shape.leaves();
    let d = stride.leaves();
    let mut unit = false;
    let mut i = 0;
    while i < s.len() {
        if d[i] == 1 && !unit && s[i] % w == 0 {
            unit = true;
        } else if s[i] != 1 && d[i] % w != 0 {
            return Err(LayoutError::InvalidArgument {
                op: "vectorize",
                condition: "every stride but the unit one must be a multiple of the vector width",
                value: d[i],
            });
        }
        i += 1;
    }
    if !unit {
        return Err(LayoutError::InvalidArgument {
            op: "vectorize",
            condition: "a mode of stride 1 whose extent the vector width divides is required",
            value: w,
        });
    }
    cute_rs_layout::upcast(l, w)
}

/// `S` tiled by the tile shape `T`, the tile mode: `mode 0 of divide_by_shape(S, T)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::TileOf};
/// static_layout!(M = "(8,8):(8,1)");
/// static_layout!(T = "(2,4)");
/// assert_eq!(TileOf::<M, T>::LAYOUT.to_string(), "(2,4):(8,1)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TileOf<S, T>(PhantomData<(S, T)>);
impl<S: StaticLayout, T: StaticLayout> StaticLayout for TileOf<S, T> {
    const LAYOUT: Layout = zipped_mode(cute_rs_layout::unwrap!(divide_by_shape(S::LAYOUT, T::LAYOUT)), 0);
}

/// The rest mode of `S` tiled by `T` (tile coordinate -> tile origin).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::TileRest};
/// static_layout!(M = "(8,8):(8,1)");
/// static_layout!(T = "(2,4)");
/// assert_eq!(TileRest::<M, T>::LAYOUT.to_string(), "(4,2):(16,4)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct TileRest<S, T>(PhantomData<(S, T)>);
impl<S: StaticLayout, T: StaticLayout> StaticLayout for TileRest<S, T> {
    const LAYOUT: Layout = zipped_mode(cute_rs_layout::unwrap!(divide_by_shape(S::LAYOUT, T::LAYOUT)), 1);
}

/// `S` in units of `W`-element vectors ([`vectorized`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::Upcast};
/// static_layout!(M = "(4,8):(8,1)");
/// assert_eq!(Upcast::<M, 4>::LAYOUT.to_string(), "(4,2):(2,1)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Upcast<S, const W: usize>(PhantomData<S>);
impl<S: StaticLayout, const W: usize> StaticLayout for Upcast<S, W> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(vectorized(S::LAYOUT, W as i64));
}

/// One thread's fragment of `S` distributed over the thread layout `Th` (CuTe's local_partition):
/// the rest mode of `divide_by_shape(S, Th)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::Partition};
/// static_layout!(M = "(4,4):(4,1)");
/// static_layout!(Th = "(2,2):(1,2)");
/// assert_eq!(Partition::<M, Th>::LAYOUT.to_string(), "(2,2):(8,2)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Partition<S, Th>(PhantomData<(S, Th)>);
impl<S: StaticLayout, Th: StaticLayout> StaticLayout for Partition<S, Th> {
    const LAYOUT: Layout = zipped_mode(cute_rs_layout::unwrap!(divide_by_shape(S::LAYOUT, Th::LAYOUT)), 1);
}

/// Thread coordinate -> fragment origin of `S` distributed over `Th`: mode 0 of
/// `divide_by_shape(S, Th)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::PartitionOrigin};
/// static_layout!(M = "(4,4):(4,1)");
/// static_layout!(Th = "(2,2):(1,2)");
/// assert_eq!(PartitionOrigin::<M, Th>::LAYOUT.to_string(), "(2,2):(4,1)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PartitionOrigin<S, Th>(PhantomData<(S, Th)>);
impl<S: StaticLayout, Th: StaticLayout> StaticLayout for PartitionOrigin<S, Th> {
    const LAYOUT: Layout = zipped_mode(cute_rs_layout::unwrap!(divide_by_shape(S::LAYOUT, Th::LAYOUT)), 0);
}

/// `S ∘ B` ([`cute_rs_layout::composition`]): a reshaped or reordered view.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::Composed};
/// static_layout!(M = "(4,4):(4,1)");
/// static_layout!(T = "(4,4):(4,1)");
/// assert_eq!(Composed::<M, T>::LAYOUT.to_string(), "(4,4):(1,4)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Composed<S, B>(PhantomData<(S, B)>);
impl<S: StaticLayout, B: StaticLayout> StaticLayout for Composed<S, B> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(cute_rs_layout::composition(S::LAYOUT, B::LAYOUT));
}

/// `coalesce(S)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::Coalesced};
/// static_layout!(M = "(4,4):(1,4)");
/// assert_eq!(Coalesced::<M>::LAYOUT.to_string(), "16:1");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Coalesced<S>(PhantomData<S>);
impl<S: StaticLayout> StaticLayout for Coalesced<S> {
    const LAYOUT: Layout = cute_rs_layout::coalesce(S::LAYOUT);
}

/// Modes `I, J` of `S` in that order (a transpose when `(1, 0)`): [`cute_rs_layout::select`].
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, static_layout::Selected};
/// static_layout!(M = "(4,8):(8,1)");
/// assert_eq!(Selected::<M, 1, 0>::LAYOUT.to_string(), "(8,4):(1,8)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Selected<S, const I: usize, const J: usize>(PhantomData<S>);
impl<S: StaticLayout, const I: usize, const J: usize> StaticLayout for Selected<S, I, J> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(cute_rs_layout::select(S::LAYOUT, &[I, J]));
}

/// The size of mode `K` of `S` as a trip count ([`unroll_for`](crate::device::unroll::unroll_for)
/// unrolls a loop over the mode's 1-D coordinates). A mode past the rank counts as size 1, so a
/// loop over the repetitions of a rank-3 `(values, rows, k)` fragment also takes its rank-2 slice
/// `(values, rows)` (one k-block).
///
/// # Example
/// ```
/// use cute_rs_tensor::device::unroll::unroll_for;
/// use cute_rs_tensor::{static_layout, static_layout::ModeSize};
/// static_layout!(S = "(2,(3,2))");
/// let mut n = 0;
/// unroll_for::<ModeSize<S, 1>>(|_| n += 1);
/// assert_eq!(n, 6);
/// ```
pub struct ModeSize<S, const K: usize>(PhantomData<S>);
impl<S: StaticLayout, const K: usize> crate::device::unroll::TripCount for ModeSize<S, K> {
    const N: usize = if K < S::MODES.rank { S::MODES.size[K] as usize } else { 1 };
}

/// The size of `S` as a trip count.
///
/// # Example
/// ```
/// use cute_rs_tensor::device::unroll::unroll_for;
/// use cute_rs_tensor::{static_layout, static_layout::SizeOf};
/// static_layout!(S = "(2,3)");
/// let mut n = 0;
/// unroll_for::<SizeOf<S>>(|_| n += 1);
/// assert_eq!(n, 6);
/// ```
pub struct SizeOf<S>(PhantomData<S>);
impl<S: StaticLayout> crate::device::unroll::TripCount for SizeOf<S> {
    const N: usize = S::SIZE;
}
