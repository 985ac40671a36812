//! cuTile's `load`/`store` on top of [`LayoutTensor`]: an array partitioned into a *tile space*
//! of equally sized tiles, a tile selected by its index in that space, loaded into (or stored from)
//! a register [`Fragment`].
//!
//! * [`TileSpace`] ([`LayoutTensor::tile_space`]): the array (any layout, static or run-time),
//!   a static tile shape `Tl` (its top-level mode sizes; `Tl` is also the register layout of the
//!   tile's [`Fragment`]) and an [`Order`]. [`TileSpace::load`] is `ct.load(array, index, shape,
//!   order, ...)`, [`TileSpace::store`] is `ct.store(array, index, tile, order, ...)`,
//!   [`TileSpace::store_broadcast`] stores a scalar broadcast to the tile.
//! * 0-d tiles: [`load_scalar`] (`ct.load(x, index, shape=())`) and [`store_scalar`]
//!   (`ct.store(x, index, tile=scalar)`: the scalar is broadcast to the array's rank, a tile of
//!   extent 1 in every dimension).
//! * Options: [`LoadOptions`] and [`StoreOptions`] (defaults = cuTile's defaults; struct update
//!   syntax or the builder methods), [`Padding`], [`MemoryOrder`], [`MemoryScope`].
//!
//! # Semantics
//! With tile shape `s`, order `o` (a permutation of `0..R`) and index `i`, tile element `t[c]`
//! (`c` a coordinate of the tile) is array element `a` with `a[o[d]] = i[d] * s[d] + c[d]` for every
//! tile dimension `d`: the array's axes are permuted by `o` (tile dimension `d` runs along array
//! axis `o[d]`), then tiled in C order. `Order::C` is the identity, `Order::F` the reversal. Tile
//! elements whose array coordinate is out of bounds are filled per [`Padding`] on loads and skipped
//! on stores. A tile wholly outside the array is undefined behaviour in cuTile; here it is a
//! well-defined all-padding load / no-op store.
//!
//! The address of every element is the array's layout evaluated by [`LayoutTensor::offset_at`]
//! (the layout algebra), so a tile space over a strided, transposed or nested-mode tensor needs no
//! special case; with static layouts, a constant order and an unrolled tile the index math folds.
//!
//! # Memory orders (mapping onto the PTX memory model, see [`crate::device::atomics`])
//! * [`MemoryOrder::Weak`]: plain loads/stores (`ld`/`st`, vectorised for [`Vector`] elements).
//! * [`MemoryOrder::Relaxed`]: strong per-element accesses, `ld.relaxed.<scope>` /
//!   `st.relaxed.<scope>`; no element is torn (scalars up to 8 bytes; wider elements such as a
//!   [`Vector`] move in pieces of up to 8 bytes, each holding whole lanes).
//! * [`MemoryOrder::Acquire`] (loads): `ld.acquire.<scope>` for each element: the thread's later
//!   accesses happen after them, and they see what a release they read from published.
//! * [`MemoryOrder::Release`] (stores): `st.release.<scope>` for each element: the thread's
//!   earlier accesses are visible (in the scope) to whoever acquires the stored values.
//! * Scope: [`MemoryScope::Block`] → `.cta`, [`MemoryScope::Device`] → `.gpu`,
//!   [`MemoryScope::System`] → `.sys`; [`MemoryScope::None`] with a non-weak order is taken as
//!   `Device`, cuTile's default. On the CPU backend these are the atomics' host operations (one
//!   thread of a launch runs at a time, so every order holds; a strong load lets the others run).
//!
//! An order a cuTile operation does not accept (a release load, an acquire store) is rejected with a
//! `debug_assert!` and treated as [`MemoryOrder::Relaxed`].
//!
//! # Hints
//! `latency` (1..=10, range-checked) and `allow_tma` are accepted and recorded, and change nothing
//! here: a tile space's tile is one thread's registers, loaded with ordinary (vector) loads, while
//! TMA moves a block's tile into shared memory. cuTile's `allow_tma` is a flag of the block-level
//! front end ([`crate::block_tile::options`]), on an array bound to the block's TMA stage.
//!
//! # The block level and this one
//! cuTile's tiles belong to the whole block: that model is
//! [`BlockTile::load_with_options`](crate::block_tile::BlockTile::load_with_options) and
//! [`store_with_options`](crate::block_tile::BlockTile::store_with_options), which take these same
//! options, orders and paddings and make the same strong accesses (`read_elem`, `write_elem`
//! below). A tile space is the per-thread form of the same indexing: each thread holds a whole
//! tile, indexed by its own tile index, as a CuTe fragment. It stays for what the block level does
//! not take: arrays of any layout (static, nested, swizzled, in shared memory or registers) rather
//! than strided global arrays, and tiles that each thread loads independently (a thread's row of a
//! gather, a scalar per thread).
//!
//! # Example (cuTile's documented 2-D "F" order load)
//! ```
//! use cute_rs_tensor::{static_layout, tile_space::{LoadOptions, Order}, LayoutTensor, Static};
//! static_layout!(X = "(4,4):(4,1)");    // torch.arange(16).reshape(4, 4)
//! static_layout!(T = "(1,4):(4,1)");    // tile shape (1, 4)
//! let mut x: Vec<i64> = (0..16).collect();
//! let space = LayoutTensor::new(&mut x, Static::<X>::new()).unwrap().tile_space::<T, 2>(Order::F);
//! let t = space.load::<4>([1, 0], LoadOptions::default());
//! assert_eq!(t.data, [1, 5, 9, 13]);
//! ```

use crate::fragment::Fragment;
use crate::mask::Full;
use crate::static_layout::{LayoutSource, Static, StaticLayout};
use crate::device::atomics::{self, StrongValue};
use crate::tensor::{AddressSpace, Element, LayoutTensor, Vector};

/// How tile dimensions map to array axes: tile dimension `d` runs along array axis `perm[d]`.
///
/// # Example
/// ```
/// use cute_rs_tensor::tile_space::Order;
/// assert_eq!(Order::<3>::C.perm(), [0, 1, 2]);
/// assert_eq!(Order::<3>::F.perm(), [2, 1, 0]);
/// assert_eq!(Order::Perm([0, 2, 1]).perm(), [0, 2, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order<const R: usize> {
    /// `"C"`: `(0, 1, 2, ...)`, no permutation (the default).
    C,
    /// `"F"`: `(..., 2, 1, 0)`, the axes reversed.
    F,
    /// Any permutation of `0..R` (checked by `debug_assert!`).
    Perm([usize; R]),
}

impl<const R: usize> Default for Order<R> {
    fn default() -> Self {
        Order::C
    }
}

impl<const R: usize> Order<R> {
    /// The permutation: entry `d` is the array axis of tile dimension `d`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_tensor::tile_space::Order::<2>::F.perm(), [1, 0]);
    /// ```
    #[inline(always)]
    pub const fn perm(&self) -> [usize; R] {
        let mut p = [0; R];
        let mut d = 0;
        while d < R {
            p[d] = match self {
                Order::C => d,
                Order::F => R - 1 - d,
                Order::Perm(q) => q[d],
            };
            d += 1;
        }
        p
    }

    /// Whether the order is a permutation of `0..R`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::tile_space::Order;
    /// assert!(Order::Perm([1, 0]).is_valid() && !Order::Perm([1, 1]).is_valid());
    /// ```
    pub const fn is_valid(&self) -> bool {
        let p = self.perm();
        let mut seen = [false; R];
        let mut d = 0;
        while d < R {
            if p[d] >= R || seen[p[d]] {
                return false;
            }
            seen[p[d]] = true;
            d += 1;
        }
        true
    }
}

/// What a load puts in the tile's out-of-bounds elements (cuTile's `PaddingMode`).
///
/// # Example
/// ```
/// use cute_rs_tensor::tile_space::{Pad, Padding};
/// assert!(f32::pad(Padding::Nan).is_nan());
/// assert_eq!(f32::pad(Padding::NegZero).to_bits(), (-0.0f32).to_bits());
/// assert_eq!(i32::pad(Padding::NegInf), i32::MIN);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Padding {
    /// Unspecified (the default): the tile's out-of-bounds elements keep whatever the fragment
    /// held (nothing is written: the cheapest).
    #[default]
    Undetermined,
    /// `0`.
    Zero,
    /// NaN (floating point only; integers: `debug_assert!`, then 0).
    Nan,
    /// `+inf` (integers: their maximum).
    PosInf,
    /// `-inf` (integers: their minimum).
    NegInf,
    /// `-0.0` (integers: 0).
    NegZero,
}

/// An element with a value for each [`Padding`] mode.
///
/// # Example
/// ```
/// use cute_rs_tensor::{tile_space::{Pad, Padding}, Vector};
/// assert_eq!(f64::pad(Padding::PosInf), f64::INFINITY);
/// assert_eq!(<Vector<u8, 2>>::pad(Padding::PosInf), Vector([255, 255]));
/// assert_eq!(half::bf16::pad(Padding::NegInf), half::bf16::NEG_INFINITY);
/// ```
pub trait Pad: Element {
    /// The value of `mode` (`Undetermined` gives zero).
    fn pad(mode: Padding) -> Self;
}

macro_rules! pad_float {
    ($($t:ty),*) => {$(
        impl Pad for $t {
            #[inline(always)]
            fn pad(mode: Padding) -> Self {
                match mode {
                    Padding::Undetermined | Padding::Zero => 0.0,
                    Padding::Nan => <$t>::NAN,
                    Padding::PosInf => <$t>::INFINITY,
                    Padding::NegInf => <$t>::NEG_INFINITY,
                    Padding::NegZero => -0.0,
                }
            }
        }
    )*};
}
pad_float!(f32, f64);

macro_rules! pad_half {
    ($($t:ty),*) => {$(
        impl Pad for $t {
            #[inline(always)]
            fn pad(mode: Padding) -> Self {
                match mode {
                    Padding::Undetermined | Padding::Zero => <$t>::ZERO,
                    Padding::Nan => <$t>::NAN,
                    Padding::PosInf => <$t>::INFINITY,
                    Padding::NegInf => <$t>::NEG_INFINITY,
                    Padding::NegZero => <$t>::NEG_ZERO,
                }
            }
        }
    )*};
}
// `half`'s constants, not `as` casts: the float literals of `pad_float` do not convert to them.
pad_half!(half::f16, half::bf16);

macro_rules! pad_int {
    ($($t:ty),*) => {$(
        impl Pad for $t {
            #[inline(always)]
            fn pad(mode: Padding) -> Self {
                match mode {
                    Padding::PosInf => <$t>::MAX,
                    Padding::NegInf => <$t>::MIN,
                    Padding::Nan => {
                        debug_assert!(false, "NaN padding of an integer tile");
                        0
                    }
                    _ => 0,
                }
            }
        }
    )*};
}
pad_int!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl<T: Pad, const W: usize> Pad for Vector<T, W> {
    #[inline(always)]
    fn pad(mode: Padding) -> Self {
        Vector([T::pad(mode); W])
    }
}

/// cuTile's `MemoryOrder` (see the [module](self) for the mapping onto PTX).
///
/// # Example
/// ```
/// assert_eq!(cute_rs_tensor::tile_space::MemoryOrder::default(), cute_rs_tensor::tile_space::MemoryOrder::Weak);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryOrder {
    /// No ordering, no atomicity (the default).
    #[default]
    Weak,
    /// Each element accessed atomically, nothing ordered.
    Relaxed,
    /// Loads: later accesses are not performed before the load.
    Acquire,
    /// Stores: earlier accesses are performed before the store.
    Release,
}

/// cuTile's `MemoryScope`: the threads a non-weak order synchronizes with.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_tensor::tile_space::MemoryScope::default(), cute_rs_tensor::tile_space::MemoryScope::None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MemoryScope {
    /// No scope (weak accesses; a non-weak order takes `Device`).
    #[default]
    None,
    /// The thread block (`.cta`).
    Block,
    /// The device (`.gpu`).
    Device,
    /// The system: device, host and peers (`.sys`).
    System,
}

/// Options of [`TileSpace::load`] (cuTile's keyword arguments; `Default` = cuTile's defaults).
///
/// # Example
/// ```
/// use cute_rs_tensor::tile_space::{LoadOptions, MemoryOrder, MemoryScope, Padding};
/// let a = LoadOptions { padding: Padding::Zero, ..LoadOptions::default() };
/// let b = LoadOptions::default().padding(Padding::Zero);
/// assert_eq!(a, b);
/// let c = LoadOptions::default().memory(MemoryOrder::Acquire, MemoryScope::Device).latency(3).allow_tma(false);
/// assert_eq!((c.order, c.latency, c.allow_tma), (MemoryOrder::Acquire, Some(3), Some(false)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadOptions {
    /// `padding_mode`.
    pub padding: Padding,
    /// `latency` hint, 1 (low DRAM traffic) to 10 (high); `None` lets the compiler infer. Accepted
    /// and range-checked by [`LoadOptions::latency`], no effect.
    pub latency: Option<u8>,
    /// `allow_tma`; `None` means allowed. Accepted, no effect on a one-thread tile (see the
    /// module docs: block tiles load with TMA).
    pub allow_tma: Option<bool>,
    /// `memory_order`: `Weak`, `Relaxed` or `Acquire`.
    pub order: MemoryOrder,
    /// `memory_scope`.
    pub scope: MemoryScope,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions::DEFAULT
    }
}

/// cuTile's range of the `latency` hint, 1 (low DRAM traffic) to 10 (high).
const fn checked_latency(l: u8) -> u8 {
    assert!(l >= 1 && l <= 10, "latency: the hint must be 1 to 10");
    l
}

impl LoadOptions {
    /// cuTile's defaults, as a constant (what `Default::default()` gives).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::LoadOptions;
    /// assert_eq!(LoadOptions::DEFAULT, LoadOptions::default());
    /// ```
    pub const DEFAULT: LoadOptions = LoadOptions {
        padding: Padding::Undetermined,
        latency: None,
        allow_tma: None,
        order: MemoryOrder::Weak,
        scope: MemoryScope::None,
    };

    /// With `padding_mode`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::{LoadOptions, Padding};
    /// assert_eq!(LoadOptions::default().padding(Padding::Nan).padding, Padding::Nan);
    /// ```
    pub const fn padding(mut self, p: Padding) -> Self {
        self.padding = p;
        self
    }
    /// With the `latency` hint.
    ///
    /// # Panics
    /// When `l` is not 1 to 10 ("latency: the hint must be 1 to 10"); in a constant, that stops
    /// compilation.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::LoadOptions;
    /// assert_eq!(LoadOptions::default().latency(10).latency, Some(10));
    /// const OPTIONS: LoadOptions = LoadOptions::DEFAULT.latency(3);
    /// assert_eq!(OPTIONS.latency, Some(3));
    /// ```
    /// ```compile_fail
    /// # use cute_rs_tensor::tile_space::LoadOptions;
    /// const OPTIONS: LoadOptions = LoadOptions::DEFAULT.latency(11); // latency: the hint must be 1 to 10
    /// ```
    pub const fn latency(mut self, l: u8) -> Self {
        self.latency = Some(checked_latency(l));
        self
    }
    /// With `allow_tma`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::LoadOptions;
    /// assert_eq!(LoadOptions::default().allow_tma(false).allow_tma, Some(false));
    /// ```
    pub const fn allow_tma(mut self, a: bool) -> Self {
        self.allow_tma = Some(a);
        self
    }
    /// With `memory_order` and `memory_scope`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::{LoadOptions, MemoryOrder, MemoryScope};
    /// assert_eq!(LoadOptions::default().memory(MemoryOrder::Relaxed, MemoryScope::Block).scope, MemoryScope::Block);
    /// ```
    pub const fn memory(mut self, order: MemoryOrder, scope: MemoryScope) -> Self {
        self.order = order;
        self.scope = scope;
        self
    }
}

/// Options of [`TileSpace::store`] (cuTile's keyword arguments; `Default` = cuTile's defaults).
///
/// # Example
/// ```
/// use cute_rs_tensor::tile_space::{MemoryOrder, MemoryScope, StoreOptions};
/// let o = StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::Device);
/// assert_eq!(o, StoreOptions { order: MemoryOrder::Release, scope: MemoryScope::Device, ..Default::default() });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreOptions {
    /// `latency` hint (accepted, no effect).
    pub latency: Option<u8>,
    /// `allow_tma` (accepted, no effect: tiles are stored with ordinary stores).
    pub allow_tma: Option<bool>,
    /// `memory_order`: `Weak`, `Relaxed` or `Release`.
    pub order: MemoryOrder,
    /// `memory_scope`.
    pub scope: MemoryScope,
}

impl StoreOptions {
    /// With the `latency` hint.
    ///
    /// # Panics
    /// When `l` is not 1 to 10, as [`LoadOptions::latency`].
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::StoreOptions;
    /// assert_eq!(StoreOptions::default().latency(2).latency, Some(2));
    /// assert!(std::panic::catch_unwind(|| StoreOptions::default().latency(0)).is_err());
    /// ```
    pub const fn latency(mut self, l: u8) -> Self {
        self.latency = Some(checked_latency(l));
        self
    }
    /// With `allow_tma`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::StoreOptions;
    /// assert_eq!(StoreOptions::default().allow_tma(true).allow_tma, Some(true));
    /// ```
    pub const fn allow_tma(mut self, a: bool) -> Self {
        self.allow_tma = Some(a);
        self
    }
    /// With `memory_order` and `memory_scope`.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_tensor::tile_space::{MemoryOrder, MemoryScope, StoreOptions};
    /// assert_eq!(StoreOptions::default().memory(MemoryOrder::Relaxed, MemoryScope::System).order, MemoryOrder::Relaxed);
    /// ```
    pub const fn memory(mut self, order: MemoryOrder, scope: MemoryScope) -> Self {
        self.order = order;
        self.scope = scope;
        self
    }
}

/// The atomics' order and scope of a strong access: `$f!(order, scope)` with the marker types
/// (`acquire`/`release`: the ordering one; otherwise relaxed; no scope: the device).
macro_rules! with_order {
    ($ordered:expr, $ord:ident, $scope:expr, |$o:ident, $sc:ident| $body:expr) => {{
        use crate::device::atomics::{Cta, Gpu, Relaxed, Sys, $ord};
        match ($ordered, $scope) {
            (false, MemoryScope::Block) => { let ($o, $sc) = (Relaxed, Cta); $body }
            (false, MemoryScope::None | MemoryScope::Device) => { let ($o, $sc) = (Relaxed, Gpu); $body }
            (false, MemoryScope::System) => { let ($o, $sc) = (Relaxed, Sys); $body }
            (true, MemoryScope::Block) => { let ($o, $sc) = ($ord, Cta); $body }
            (true, MemoryScope::None | MemoryScope::Device) => { let ($o, $sc) = ($ord, Gpu); $body }
            (true, MemoryScope::System) => { let ($o, $sc) = ($ord, Sys); $body }
        }
    }};
}

/// The piece of a strong access to a `T`: the widest of 8, 4, 2, 1 bytes that divides both its
/// size and its alignment (a scalar moves whole; a [`Vector`] in pieces of whole lanes).
const fn piece<T>() -> usize {
    let (size, align) = (core::mem::size_of::<T>(), core::mem::align_of::<T>());
    let mut w = 8;
    while size % w != 0 || align % w != 0 {
        w /= 2;
    }
    w
}

/// Piece `i` of width `W` of the element at `p`, loaded with `acquire` (else relaxed) at `scope`.
#[inline(always)]
unsafe fn load_piece<W: StrongValue>(p: *const u8, i: usize, acquire: bool, scope: MemoryScope) -> W {
    let q = (p as *const W).add(i);
    with_order!(acquire, Acquire, scope, |o, sc| atomics::load(q, o, sc))
}

/// Piece `i` of width `W` of the element at `p`, stored with `release` (else relaxed) at `scope`.
#[inline(always)]
unsafe fn store_piece<W: StrongValue>(p: *mut u8, i: usize, v: W, release: bool, scope: MemoryScope) {
    let q = (p as *mut W).add(i);
    with_order!(release, Release, scope, |o, sc| atomics::store(q, v, o, sc))
}

/// One element read with `order` at `scope`.
#[inline(always)]
pub(crate) unsafe fn read_elem<T: Element>(p: *const T, order: MemoryOrder, scope: MemoryScope) -> T {
    if order == MemoryOrder::Weak {
        return T::read(p);
    }
    let acquire = order == MemoryOrder::Acquire;
    let mut v = core::mem::MaybeUninit::<T>::uninit();
    let (src, dst) = (p as *const u8, v.as_mut_ptr() as *mut u8);
    let w = piece::<T>();
    let mut i = 0;
    while i < core::mem::size_of::<T>() / w {
        match w {
            8 => (dst as *mut u64).add(i).write(load_piece::<u64>(src, i, acquire, scope)),
            4 => (dst as *mut u32).add(i).write(load_piece::<u32>(src, i, acquire, scope)),
            2 => (dst as *mut u16).add(i).write(load_piece::<u16>(src, i, acquire, scope)),
            _ => dst.add(i).write(load_piece::<u8>(src, i, acquire, scope)),
        }
        i += 1;
    }
    v.assume_init()
}

/// One element written with `order` at `scope`.
#[inline(always)]
pub(crate) unsafe fn write_elem<T: Element>(p: *mut T, v: T, order: MemoryOrder, scope: MemoryScope) {
    if order == MemoryOrder::Weak {
        return T::write(p, v);
    }
    let release = order == MemoryOrder::Release;
    let (src, dst) = (&v as *const T as *const u8, p as *mut u8);
    let w = piece::<T>();
    let mut i = 0;
    while i < core::mem::size_of::<T>() / w {
        match w {
            8 => store_piece::<u64>(dst, i, (src as *const u64).add(i).read(), release, scope),
            4 => store_piece::<u32>(dst, i, (src as *const u32).add(i).read(), release, scope),
            2 => store_piece::<u16>(dst, i, (src as *const u16).add(i).read(), release, scope),
            _ => store_piece::<u8>(dst, i, src.add(i).read(), release, scope),
        }
        i += 1;
    }
}

/// An array partitioned into tiles of the static shape `Tl` (cuTile's tile space), with an
/// [`Order`]. Built by [`LayoutTensor::tile_space`]. The tile is a register [`Fragment`] laid out by
/// `Tl` (e.g. `"(2,4):(4,1)"` stores a 2 x 4 tile row-major in `data`).
///
/// # Example (cuTile's documented 1-D load with zero padding)
/// ```
/// use cute_rs_tensor::{static_layout, tile_space::{LoadOptions, Order, Padding}, LayoutTensor, Static};
/// static_layout!(X = "10:1");
/// static_layout!(T = "4:1");
/// let mut x: Vec<i64> = (0..10).collect();
/// let s = LayoutTensor::new(&mut x, Static::<X>::new()).unwrap().tile_space::<T, 1>(Order::C);
/// assert_eq!(s.num_tiles(), [3]);
/// assert_eq!(s.load::<4>([1], LoadOptions::default()).data, [4, 5, 6, 7]);
/// assert_eq!(s.load::<4>([2], LoadOptions::default().padding(Padding::Zero)).data, [8, 9, 0, 0]);
/// ```
pub struct TileSpace<'a, T, L: LayoutSource, A: AddressSpace, Tl, const R: usize> {
    array: LayoutTensor<'a, T, L, A, Full>,
    perm: [usize; R],
    _t: core::marker::PhantomData<Tl>,
}

impl<T, L: LayoutSource, A: AddressSpace, Tl, const R: usize> Clone for TileSpace<'_, T, L, A, Tl, R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, L: LayoutSource, A: AddressSpace, Tl, const R: usize> Copy for TileSpace<'_, T, L, A, Tl, R> {}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace> LayoutTensor<'a, T, L, A, Full> {
    /// The tile space of tiles shaped like `Tl` (its `R` top-level mode sizes), in `order`.
    /// The tensor's rank and `Tl`'s must be `R` (checked: at compile time for `Tl`, by
    /// `debug_assert!` for the tensor and the order).
    ///
    /// # Example (cuTile's documented 3-D load with the last two axes transposed)
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::{LoadOptions, Order}, LayoutTensor, Static};
    /// static_layout!(X = "(2,2,2):(4,2,1)"); // torch.arange(8).reshape(2, 2, 2)
    /// static_layout!(T = "(1,2,2):(4,2,1)");
    /// let mut x: Vec<i32> = (0..8).collect();
    /// let s = LayoutTensor::new(&mut x, Static::<X>::new()).unwrap().tile_space::<T, 3>(Order::Perm([0, 2, 1]));
    /// assert_eq!(s.load::<4>([1, 0, 0], LoadOptions::default()).data, [4, 6, 5, 7]); // [[[4, 6], [5, 7]]]
    /// ```
    #[inline(always)]
    pub fn tile_space<Tl: StaticLayout, const R: usize>(self, order: Order<R>) -> TileSpace<'a, T, L, A, Tl, R> {
        const { assert!(Tl::MODES.rank == R, "the tile's rank must be R") };
        debug_assert!(self.layout.modes().rank == R, "the array's rank must be R");
        debug_assert!(order.is_valid(), "the order must be a permutation of 0..R");
        TileSpace { array: self, perm: order.perm(), _t: core::marker::PhantomData }
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace, Tl: StaticLayout, const R: usize> TileSpace<'a, T, L, A, Tl, R> {
    /// The array.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::Order, LayoutTensor, Static};
    /// static_layout!(T = "2:1");
    /// let mut x = [1u8, 2, 3];
    /// let s = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("3:1").unwrap()).unwrap().tile_space::<T, 1>(Order::C);
    /// assert_eq!(s.array().get(2), 3);
    /// ```
    #[inline(always)]
    pub fn array(&self) -> LayoutTensor<'a, T, L, A, Full> {
        self.array
    }

    /// The tile space's extent in each tile dimension: `cdiv(array extent along axis order[d], tile
    /// extent d)`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::Order, LayoutTensor};
    /// static_layout!(T = "(2,4)");
    /// let mut x = [0f32; 15];
    /// let a = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("(3,5):(5,1)").unwrap()).unwrap();
    /// assert_eq!(a.tile_space::<T, 2>(Order::C).num_tiles(), [2, 2]);
    /// assert_eq!(a.tile_space::<T, 2>(Order::F).num_tiles(), [3, 1]);
    /// ```
    #[inline(always)]
    pub fn num_tiles(&self) -> [i64; R] {
        let m = self.array.layout.modes();
        let mut n = [0; R];
        let mut d = 0;
        while d < R {
            let t = Tl::MODES.size[d];
            n[d] = (m.size[self.perm[d]] + t - 1) / t;
            d += 1;
        }
        n
    }

    /// The array coordinate of tile element `c` of tile `index`, and whether it is in bounds.
    #[inline(always)]
    fn array_coord(&self, index: &[i64; R], c: &[i64; R]) -> ([i64; R], bool) {
        let m = self.array.layout.modes();
        let mut a = [0; R];
        let mut inside = true;
        let mut d = 0;
        while d < R {
            let ax = self.perm[d];
            let v = index[d] * Tl::MODES.size[d] + c[d];
            a[ax] = v;
            inside &= v >= 0 && v < m.size[ax];
            d += 1;
        }
        (a, inside)
    }

    /// The per-mode coordinate of 1-D tile index `i` (colexicographic in `Tl`'s modes).
    #[inline(always)]
    fn tile_coord(i: usize) -> [i64; R] {
        Tl::MODES.coord(i as i64)
    }

    /// `ct.load(array, index, shape=Tl, order, ...)` into `tile` (out-of-bounds elements per
    /// `opts.padding`: with [`Padding::Undetermined`] they keep their values).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::{LoadOptions, Order, Padding}, Fragment, LayoutTensor};
    /// static_layout!(T = "4:1");
    /// let mut x = [1.0f32, 2.0, 3.0];
    /// let s = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("3:1").unwrap()).unwrap().tile_space::<T, 1>(Order::C);
    /// let mut t = Fragment::<f32, T, 4>::new();
    /// s.load_into([0], &mut t, LoadOptions::default().padding(Padding::NegInf));
    /// assert_eq!(t.data, [1.0, 2.0, 3.0, f32::NEG_INFINITY]);
    /// ```
    #[inline(always)]
    pub fn load_into<const N: usize>(&self, index: [i64; R], tile: &mut Fragment<T, Tl, N>, opts: LoadOptions)
    where
        T: Pad,
    {
        debug_assert!(opts.order != MemoryOrder::Release, "cuTile loads take Weak, Relaxed or Acquire");
        let fill = T::pad(opts.padding);
        let t = tile.tensor();
        let mut i = 0;
        while i < N {
            let (a, inside) = self.array_coord(&index, &Self::tile_coord(i));
            let dst = t.ptr_at(i);
            if inside {
                unsafe { dst.write(read_elem(self.array.elem_ptr(self.array.offset_at(a)), opts.order, opts.scope)) };
            } else if opts.padding != Padding::Undetermined {
                unsafe { dst.write(fill) };
            }
            i += 1;
        }
    }

    /// `ct.load(array, index, shape=Tl, order, ...)`: the tile at `index` as a fresh fragment
    /// (`N` = size of `Tl`; undetermined padding reads as zero here).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::{LoadOptions, Order}, LayoutTensor, Static};
    /// static_layout!(X = "(2,3):(3,1)");
    /// static_layout!(T = "(2,1)");
    /// let mut x: Vec<u16> = (0..6).collect();
    /// let s = LayoutTensor::new(&mut x, Static::<X>::new()).unwrap().tile_space::<T, 2>(Order::C);
    /// assert_eq!(s.load::<2>([0, 2], LoadOptions::default()).data, [2, 5]); // column 2
    /// ```
    #[inline(always)]
    pub fn load<const N: usize>(&self, index: [i64; R], opts: LoadOptions) -> Fragment<T, Tl, N>
    where
        T: Pad,
    {
        let mut f = Fragment::new();
        self.load_into(index, &mut f, opts);
        f
    }

    /// `ct.store(array, index, tile, order, ...)`: out-of-bounds elements are not stored.
    ///
    /// # Example (cuTile's documented partial out-of-bounds store)
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::{Order, StoreOptions}, Fragment, LayoutTensor};
    /// static_layout!(T = "4:1");
    /// let mut x = [0i32; 6];
    /// let s = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("6:1").unwrap()).unwrap().tile_space::<T, 1>(Order::C);
    /// let mut ones = Fragment::<i32, T, 4>::new();
    /// ones.data = [1; 4];
    /// s.store([0], &ones, StoreOptions::default());
    /// ones.data = [2; 4];
    /// s.store([1], &ones, StoreOptions::default());
    /// assert_eq!(x, [1, 1, 1, 1, 2, 2]);
    /// ```
    #[inline(always)]
    pub fn store<const N: usize>(&self, index: [i64; R], tile: &Fragment<T, Tl, N>, opts: StoreOptions) {
        debug_assert!(opts.order != MemoryOrder::Acquire, "cuTile stores take Weak, Relaxed or Release");
        let src = tile.data.as_ptr();
        let offs = Static::<Tl>::new();
        let mut i = 0;
        while i < N {
            let (a, inside) = self.array_coord(&index, &Self::tile_coord(i));
            if inside {
                let v = unsafe { src.offset(offs.layout().call(i as i64) as isize).read() };
                unsafe { write_elem(self.array.elem_ptr(self.array.offset_at(a)), v, opts.order, opts.scope) };
            }
            i += 1;
        }
    }

    /// `ct.store(array, index, tile=value, ...)` with a tile of shape `Tl`: `value` broadcast to
    /// every in-bounds element of the tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, tile_space::{Order, StoreOptions}, LayoutTensor};
    /// static_layout!(T = "(2,2)");
    /// let mut x = [0u8; 9];
    /// let s = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("(3,3):(3,1)").unwrap()).unwrap().tile_space::<T, 2>(Order::C);
    /// s.store_broadcast([1, 1], 7, StoreOptions::default());
    /// assert_eq!(x, [0, 0, 0, 0, 0, 0, 0, 0, 7]);
    /// ```
    #[inline(always)]
    pub fn store_broadcast(&self, index: [i64; R], value: T, opts: StoreOptions) {
        let n = Tl::MODES.size;
        let mut total = 1;
        let mut d = 0;
        while d < R {
            total *= n[d];
            d += 1;
        }
        let mut i = 0;
        while i < total as usize {
            let (a, inside) = self.array_coord(&index, &Self::tile_coord(i));
            if inside {
                unsafe { write_elem(self.array.elem_ptr(self.array.offset_at(a)), value, opts.order, opts.scope) };
            }
            i += 1;
        }
    }
}

/// The array coordinate of a 0-d tile (every tile extent 1): `a[order[d]] = index[d]`, and
/// whether it is in bounds.
#[inline(always)]
fn scalar_coord<T: Element, L: LayoutSource, A: AddressSpace, const R: usize>(
    array: &LayoutTensor<'_, T, L, A, Full>,
    index: [i64; R],
    order: Order<R>,
) -> ([i64; R], bool) {
    let m = array.layout.modes();
    let p = order.perm();
    let mut a = [0; R];
    let mut inside = true;
    let mut d = 0;
    while d < R {
        a[p[d]] = index[d];
        inside &= index[d] >= 0 && index[d] < m.size[p[d]];
        d += 1;
    }
    (a, inside)
}

/// `ct.load(array, index, shape=())`: a 0-d tile, i.e. one element (an out-of-bounds index gives
/// the padding value).
///
/// # Example (cuTile's documented scalar loads)
/// ```
/// use cute_rs_tensor::{tile_space::{load_scalar, LoadOptions, Order}, LayoutTensor};
/// let mut x: Vec<i64> = (0..10).collect();
/// let a = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("10:1").unwrap()).unwrap();
/// let v: Vec<i64> = (0..10).map(|i| load_scalar(&a, [i], Order::C, LoadOptions::default())).collect();
/// assert_eq!(v, (0..10).collect::<Vec<_>>());
/// ```
#[inline(always)]
pub fn load_scalar<T: Pad, L: LayoutSource, A: AddressSpace, const R: usize>(
    array: &LayoutTensor<'_, T, L, A, Full>,
    index: [i64; R],
    order: Order<R>,
    opts: LoadOptions,
) -> T {
    let (a, inside) = scalar_coord(array, index, order);
    let v = if inside { unsafe { read_elem(array.elem_ptr(array.offset_at(a)), opts.order, opts.scope) } } else { T::pad(opts.padding) };
    v
}

/// `ct.store(array, index, tile=value)` with a scalar (0-d) tile: broadcast to the array's rank,
/// it stores `value` at the one element `index` selects (nothing when out of bounds).
///
/// # Example (cuTile's documented scalar broadcast store)
/// ```
/// use cute_rs_tensor::{tile_space::{store_scalar, Order, StoreOptions}, LayoutTensor};
/// let mut x = [0i32; 4];
/// let a = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap()).unwrap();
/// for (i, j, v) in [(0, 0, 0), (0, 1, 1), (1, 0, 2), (1, 1, 3)] {
///     store_scalar(&a, [i, j], v, Order::C, StoreOptions::default());
/// }
/// assert_eq!(x, [0, 1, 2, 3]); // [[0, 1], [2, 3]]
/// ```
#[inline(always)]
pub fn store_scalar<T: Element, L: LayoutSource, A: AddressSpace, const R: usize>(
    array: &LayoutTensor<'_, T, L, A, Full>,
    index: [i64; R],
    value: T,
    order: Order<R>,
    opts: StoreOptions,
) {
    let (a, inside) = scalar_coord(array, index, order);
    if inside {
        unsafe { write_elem(array.elem_ptr(array.offset_at(a)), value, opts.order, opts.scope) };
    }
}
