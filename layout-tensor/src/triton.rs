//! Triton's `tl.load` / `tl.store` on top of [`LayoutTensor`]: tiles of pointers and block pointers.
//!
//! - [`Pointers`]: a base pointer plus a register tile of element offsets (a [`Fragment`] of `N`
//!   `isize` with the static tile layout `S`): offsets from a layout ([`Pointers::from_tensor`]) or
//!   computed from values read from another tensor ([`tile_from_fn`], as in Triton's indirect
//!   example). [`Pointers::load`] is Triton's `load(pointer, mask, other, cache_modifier,
//!   eviction_policy, volatile)` as a builder whose type states reject what Triton forbids:
//!   `other` exists only after `mask`. [`Pointers::store`] / [`Pointers::store_masked`] are
//!   `store(pointer, value, mask)`; [`Pointers::store_with`] adds the store's `cache_modifier`
//!   ([`StoreCacheModifier`]: `.wb`, `.cg`, `.cs`, `.wt`) and `eviction_policy` ([`Store`]).
//!   Masks, `other` and stored values broadcast by Triton's rules: a scalar or a tile whose modes
//!   are the pointer tile's or 1 ([`Broadcast`], [`broadcasts_to`]); `other` and stored scalars of
//!   another number type are converted to the element type ([`Cast`](crate::cast::Cast)). A single pointer is a 0-d
//!   tile ([`Pointers::scalar`], layout [`Scalar`]) whose loads give a scalar
//!   ([`Load::run_scalar`]).
//! - [`BlockPtr`] ([`make_block_ptr`]): a block of static shape `S` at run-time `offsets` in a
//!   tensor of run-time `shape`/`strides` (a [`LayoutTensor`] with a run-time [`Layout`]), with
//!   [`advance`](BlockPtr::advance), and loads with per-dimension
//!   [`boundary_check`](BlockLoad::boundary_check) and padding zero or NaN
//!   ([`padding_nan`](BlockLoad::padding_nan) only for floats, only after a boundary check). A block
//!   load has no `mask` or `other` method: Triton's "mask must be None" is a compile error.
//!
//! Cache modifiers are [`device::memory`](crate::device::memory) options ([`Ca`], [`Cg`], `Cs`,
//! `Lu`, [`Cv`]; `""` is [`NoCache`]), eviction policies are L2 policies ([`EvictFirst`],
//! [`EvictLast`], [`EvictNormal`]) that also set the L1 priority when no cache operator is given
//! (`ld.global.L1::evict_last.L2::cache_hint`, as Triton emits them), `volatile=True` is
//! [`Load::volatile`]. On the GPU they apply to elements of 1, 2, 4, 8 and 16 bytes
//! (`ld.global.<op>[.L2::cache_hint].b8` ... `.v4.b32`, `ld.volatile.global`); a hint on an
//! element of another size is a compile-time error, since no single access carries it. On the
//! CPU an access is a plain read. The same code runs on host slices and in
//! kernels (no allocation; tiles are register fragments of static size).
//!
//! Masked-out elements are not accessed: their pointers need not be valid. A masked-out load
//! without `other` gives zero (Triton leaves it undefined).
//!
//! ```
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static};
//! use cute_rs_tensor::triton::{Pointers, tile_from_fn};
//! static_layout!(T4 = "4:1");
//! let mut x = [10i32, 11, 12, 13, 14, 15];
//! let t = LayoutTensor::new(&mut x, Static::<T4>::new()).unwrap();
//! let p = Pointers::<_, _, 4>::from_tensor(&t);
//! let mask = tile_from_fn::<bool, T4, 4, 1>(|[i]| i < 3);
//! let v = p.load().mask(mask).other(-1).run();
//! assert_eq!(v.data, [10, 11, 12, -1]);
//! ```

use core::marker::PhantomData;
use cute_rs_layout::{Layout, LayoutError};

use crate::device::memory;
pub use crate::device::memory::{Ca, Cg, Cs, Cv, Lu};
pub use scalar::Scalar;
pub use store::{Store, StoreCacheModifier, Wb, Wt};

mod scalar;
mod store;
use crate::cast::Cast;
use crate::fragment::{CompactOf, Fragment};
use crate::mask::Full;
use crate::static_layout::{LayoutSource, Static, StaticLayout};
use crate::tensor::{AddressSpace, Element, Global, LayoutTensor, Local};

// SAFETY: `bool` is plain data; tiles of booleans are masks.
unsafe impl Element for bool {
    const ZERO: Self = false;
}

/// Calls `f(i)` for `i` in `0..N`, unrolled by construction ([`unroll_for`](crate::device::unroll::unroll_for)),
/// so that register tiles indexed this way stay in registers.
#[inline(always)]
fn for_each_index<const N: usize>(f: impl FnMut(usize)) {
    crate::device::unroll::unroll_for::<crate::device::unroll::Count<N>>(f);
}

/// Element `i` (1-D logical index) of a fragment.
#[inline(always)]
fn frag_get<T: Element, S: StaticLayout, const N: usize>(f: &Fragment<T, S, N>, i: usize) -> T {
    // SAFETY: only read; the fragment's layout maps 0..N into its N values (checked by Fragment).
    unsafe { LayoutTensor::<T, Static<S>, Local, Full>::from_ptr_in(f.data.as_ptr() as *mut T, Static::new()).get(i) }
}

/// The per-mode coordinate of 1-D index `i` in `S`'s shape (colexicographic).
#[inline(always)]
fn coord_of<S: StaticLayout, const R: usize>(i: usize) -> [i64; R] {
    const { assert!(R == S::MODES.rank, "the coordinate rank must be the tile layout's rank") };
    S::MODES.coord(i as i64)
}

/// A tile of static layout `S` (`N = size(S)` values) whose element at each coordinate is
/// `f(coord)`: Triton's broadcasting expressions such as `a[:, None] * s + b[None, :]`.
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::{tile_from_fn, get};
/// static_layout!(T = "(2,3):(3,1)");
/// let rows = [0i64, 10];
/// let cols = [1i64, 2, 3];
/// let t = tile_from_fn::<i64, T, 6, 2>(|[i, j]| rows[i as usize] + cols[j as usize]);
/// assert_eq!(get(&t, [1, 2]), 13);
/// ```
#[inline(always)]
pub fn tile_from_fn<T: Element, S: StaticLayout, const N: usize, const R: usize>(
    mut f: impl FnMut([i64; R]) -> T,
) -> Fragment<T, S, N> {
    let mut out = Fragment::<T, S, N>::new();
    let t = out.tensor();
    for_each_index::<N>(|i| t.set(i, f(coord_of::<S, R>(i))));
    out
}

/// The element of a tile at a per-mode coordinate.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, Fragment};
/// use cute_rs_tensor::triton::get;
/// static_layout!(T = "(2,2):(2,1)");
/// let mut f = Fragment::<u8, T, 4>::new();
/// f.data = [1, 2, 3, 4];
/// assert_eq!(get(&f, [0, 1]), 2);
/// ```
#[inline(always)]
pub fn get<T: Element, S: StaticLayout, const N: usize, const R: usize>(f: &Fragment<T, S, N>, coord: [i64; R]) -> T {
    let mut i = 0i64;
    let mut scale = 1i64;
    let mut k = 0;
    while k < R {
        i += coord[k] * scale;
        scale *= S::MODES.size[k];
        k += 1;
    }
    frag_get(f, i as usize)
}

/// A value broadcast to a tile of layout `S` and `N` elements, by Triton's rules: a scalar (every
/// element; a number or `bool` of another type is converted to `T` with [`Cast`], as Triton
/// converts `other` and stored values to the pointer's element type; a mask is `bool`), or a tile whose shape broadcasts to
/// `S`'s ([`broadcasts_to`]: modes of size 1 and missing leading modes repeat).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, Fragment};
/// use cute_rs_tensor::triton::{Broadcast, tile_from_fn};
/// static_layout!(T = "(2,3):(3,1)");
/// static_layout!(Column = "(2,1):(1,1)");
/// static_layout!(Row = "3:1");
/// assert_eq!(<f32 as Broadcast<f32, T, 6>>::at(&1.5, 1), 1.5);
/// assert_eq!(<i32 as Broadcast<f32, T, 6>>::at(&-1, 1), -1.0); // converted
/// let col = tile_from_fn::<u8, Column, 2, 2>(|[r, _]| 10 * r as u8);
/// let row = tile_from_fn::<u8, Row, 3, 1>(|[c]| c as u8);
/// // Element (1, 2) of the 2 x 3 tile, 1-D index 1 + 2 * 2 (colexicographic).
/// assert_eq!(<Fragment<u8, Column, 2> as Broadcast<u8, T, 6>>::at(&col, 5), 10);
/// assert_eq!(<Fragment<u8, Row, 3> as Broadcast<u8, T, 6>>::at(&row, 5), 2);
/// ```
///
/// # Constraints
/// A tile's shape broadcasts to `S`'s (a compile-time error otherwise):
/// ```compile_fail,E0080
/// use cute_rs_tensor::{static_layout, Fragment};
/// use cute_rs_tensor::triton::Broadcast;
/// static_layout!(T = "(2,3):(3,1)");
/// static_layout!(Two = "2:1"); // aligned with the last mode, of 3
/// let f = Fragment::<f32, Two, 2>::new();
/// let _ = <Fragment<f32, Two, 2> as Broadcast<f32, T, 6>>::at(&f, 0);
/// ```
pub trait Broadcast<T, S, const N: usize> {
    /// The value at 1-D index `i` of the tile.
    fn at(&self, i: usize) -> T;
}
impl<T: Element, S: StaticLayout, const N: usize> Broadcast<T, S, N> for T {
    #[inline(always)]
    fn at(&self, _: usize) -> T {
        *self
    }
}

/// Scalars of another number type, converted ([`Cast`]).
macro_rules! cast_scalars {
    ($from:ty => $($to:ty,)*) => {$(
        impl<S: StaticLayout, const N: usize> Broadcast<$to, S, N> for $from {
            #[inline(always)]
            fn at(&self, _: usize) -> $to {
                Cast::<$to>::cast(*self)
            }
        }
    )*};
}
crate::cast::number_pairs!(cast_scalars);
cast_scalars!(bool => i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, half::f16, half::bf16,);

/// Whether a tile of shape `from` broadcasts to shape `to` by Triton's (NumPy's) rules: the
/// shapes are aligned at their last modes, each mode of `from` is `to`'s or 1, and `from` has at
/// most `to`'s rank (its missing leading modes count as 1).
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout::{Modes, StaticLayout};
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::broadcasts_to;
/// static_layout!(T = "(4,8)");
/// static_layout!(Row = "(1,8)");
/// static_layout!(Eight = "8");
/// static_layout!(Four = "4");
/// assert!(broadcasts_to(&Row::MODES, &T::MODES));
/// assert!(broadcasts_to(&Eight::MODES, &T::MODES));
/// assert!(!broadcasts_to(&Four::MODES, &T::MODES));
/// assert!(!broadcasts_to(&T::MODES, &Eight::MODES));
/// ```
pub const fn broadcasts_to(from: &crate::static_layout::Modes, to: &crate::static_layout::Modes) -> bool {
    if from.rank > to.rank {
        return false;
    }
    let skip = to.rank - from.rank;
    let mut k = 0;
    while k < from.rank {
        if from.size[k] != 1 && from.size[k] != to.size[k + skip] {
            return false;
        }
        k += 1;
    }
    true
}

/// The 1-D index in a tile of `S2` (which broadcasts to `S`) of the element that broadcasts to
/// index `i` of `S`: `i`'s coordinate, without the modes that `S2` lacks, and 0 in the modes
/// where `S2` has size 1.
#[inline(always)]
fn broadcast_source<S: StaticLayout, S2: StaticLayout>(i: usize) -> usize {
    let (to, from) = (&S::MODES, &S2::MODES);
    let skip = to.rank - from.rank;
    let (mut rest, mut index, mut scale) = (i as i64, 0i64, 1i64);
    let mut k = 0;
    while k < to.rank {
        let c = rest % to.size[k];
        rest /= to.size[k];
        if k >= skip {
            let size = from.size[k - skip];
            if size != 1 {
                index += c * scale;
            }
            scale *= size;
        }
        k += 1;
    }
    index as usize
}

/// A tile broadcasts to any tile whose shape its shape broadcasts to ([`broadcasts_to`]),
/// whatever the two register layouts; any other shape fails to compile.
impl<T: Element, S: StaticLayout, S2: StaticLayout, const N: usize, const N2: usize> Broadcast<T, S, N> for Fragment<T, S2, N2> {
    #[inline(always)]
    fn at(&self, i: usize) -> T {
        const { assert!(broadcasts_to(&S2::MODES, &S::MODES), "broadcast: the tile's shape does not broadcast to the pointer tile's") };
        frag_get(self, broadcast_source::<S, S2>(i))
    }
}

mod sealed {
    pub trait Sealed {}
}

/// Triton's `cache_modifier`: [`NoCache`] (`""`), or a [`device::memory`](crate::device::memory)
/// load cache operator ([`Ca`], [`Cg`], [`Cs`], [`Lu`], [`Cv`]). Sealed.
///
/// # Example
/// ```
/// fn modifier<C: cute_rs_tensor::triton::CacheModifier>(_: C) {}
/// modifier(cute_rs_tensor::triton::Cg);
/// modifier(cute_rs_tensor::triton::NoCache);
/// ```
pub trait CacheModifier: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn read<T: Element, E: EvictionPolicy>(p: *const T, policy: Option<memory::L2Policy>) -> T;
}

/// `cache_modifier=""`: a plain load.
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::NoCache;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoCache;
impl sealed::Sealed for NoCache {}
impl CacheModifier for NoCache {
    #[inline(always)]
    unsafe fn read<T: Element, E: EvictionPolicy>(p: *const T, policy: Option<memory::L2Policy>) -> T {
        // Without a cache operator the eviction priority applies to L1 as well (as Triton emits
        // `ld.global.L1::evict_last.L2::cache_hint`); PTX has no L1 priority beside an operator.
        #[cfg(target_arch = "nvptx64")]
        if policy.is_some() {
            return read_with::<T, E::L1>(p, policy);
        }
        let _ = policy;
        T::read(p)
    }
}

/// `volatile=True`: `ld.volatile.global` (a `read_volatile` on the CPU).
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::Volatile;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Volatile;
impl sealed::Sealed for Volatile {}
impl CacheModifier for Volatile {
    #[inline(always)]
    unsafe fn read<T: Element, E: EvictionPolicy>(p: *const T, _: Option<memory::L2Policy>) -> T {
        #[cfg(target_arch = "nvptx64")]
        {
            match core::mem::size_of::<T>() {
                1 => return core::mem::transmute_copy(&memory::load_volatile(p as *const u8)),
                2 => return core::mem::transmute_copy(&memory::load_volatile(p as *const u16)),
                4 => return core::mem::transmute_copy(&memory::load_volatile(p as *const u32)),
                8 => return core::mem::transmute_copy(&memory::load_volatile(p as *const u64)),
                16 => return core::mem::transmute_copy(&memory::load_volatile(p as *const [u32; 4])),
                _ => {}
            }
        }
        core::ptr::read_volatile(p)
    }
}

/// The load of one element with cache operator `C`: one `ld.global` of 1, 2, 4, 8 or 16 bytes
/// on the GPU.
#[inline(always)]
#[allow(unused_variables)]
unsafe fn read_with<T: Element, C: memory::LoadCache + Default>(p: *const T, policy: Option<memory::L2Policy>) -> T {
    #[cfg(target_arch = "nvptx64")]
    {
        macro_rules! go {
            ($w:ty) => {{
                let v: $w = match policy {
                    Some(pol) => memory::load_with_policy(p as *const $w, C::default(), pol),
                    None => memory::load(p as *const $w, C::default()),
                };
                return core::mem::transmute_copy(&v);
            }};
        }
        match core::mem::size_of::<T>() {
            1 => go!(u8),
            2 => go!(u16),
            4 => go!(u32),
            8 => go!(u64),
            16 => go!([u32; 4]),
            _ => {}
        }
    }
    T::read(p)
}

/// Refuses, at compile time, a cache hint on an element that no single access moves: PTX's
/// `ld`/`st` carry hints for 1, 2, 4, 8 and 16 bytes.
#[inline(always)]
pub(crate) const fn hinted_size<T>() {
    const {
        let n = core::mem::size_of::<T>();
        assert!(
            n == 1 || n == 2 || n == 4 || n == 8 || n == 16,
            "cache hint: the element is not 1, 2, 4, 8 or 16 bytes, the sizes of a PTX access"
        )
    }
}

macro_rules! cache_modifier {
    ($($m:ident),*) => {$(
        impl sealed::Sealed for $m {}
        impl CacheModifier for $m {
            #[inline(always)]
            unsafe fn read<T: Element, E: EvictionPolicy>(p: *const T, policy: Option<memory::L2Policy>) -> T {
                read_with::<T, $m>(p, policy)
            }
        }
    )*};
}
cache_modifier!(Ca, Cg, Cs, Lu, Cv);

/// Triton's `eviction_policy`: [`NoEviction`] (`""`), [`EvictFirst`], [`EvictLast`],
/// [`EvictNormal`]: an L2 policy (`createpolicy`) on the GPU, plus the L1 priority
/// `.L1::evict_*` where no cache operator is given; nothing on the CPU. Sealed.
///
/// # Example
/// ```
/// fn policy<E: cute_rs_tensor::triton::EvictionPolicy>(_: E) {}
/// policy(cute_rs_tensor::triton::EvictLast);
/// ```
pub trait EvictionPolicy: Copy + sealed::Sealed {
    /// The L1 eviction priority of an access without a cache operator.
    #[doc(hidden)]
    type L1: memory::LoadCache + memory::StoreCache + Default;
    #[doc(hidden)]
    fn policy() -> Option<memory::L2Policy>;
}
macro_rules! eviction {
    ($($(#[$doc:meta])* $name:ident => $f:ident, $l1:ident),*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl EvictionPolicy for $name {
            type L1 = memory::$l1;
            #[inline(always)]
            fn policy() -> Option<memory::L2Policy> {
                #[cfg(target_arch = "nvptx64")]
                return Some(memory::L2Policy::$f());
                #[cfg(not(target_arch = "nvptx64"))]
                None
            }
        }
    )*};
}
eviction! {
    /// `eviction_policy="evict_first"` (L2, and L1 without a cache operator).
    ///
    /// ```
    /// let _ = cute_rs_tensor::triton::EvictFirst;
    /// ```
    EvictFirst => evict_first, EvictFirst,
    /// `eviction_policy="evict_last"` (L2, and L1 without a cache operator).
    ///
    /// ```
    /// let _ = cute_rs_tensor::triton::EvictLast;
    /// ```
    EvictLast => evict_last, EvictLast,
    /// `eviction_policy="evict_normal"` (L2, and L1 without a cache operator).
    ///
    /// ```
    /// let _ = cute_rs_tensor::triton::EvictNormal;
    /// ```
    EvictNormal => evict_normal, EvictNormal
}
/// `eviction_policy=""`: no eviction priority.
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::NoEviction;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoEviction;
impl sealed::Sealed for NoEviction {}
impl EvictionPolicy for NoEviction {
    type L1 = memory::EvictNormal;
    #[inline(always)]
    fn policy() -> Option<memory::L2Policy> {
        None
    }
}

/// A tile of pointers: a base address and a register tile of element offsets of layout `S`
/// (`N = size(S)`). Triton's `ptr + offsets`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// use cute_rs_tensor::triton::Pointers;
/// static_layout!(T = "(2,2):(1,2)");
/// let mut x = [1u32, 2, 3, 4];
/// let p = Pointers::<_, _, 4>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
/// p.store(7u32);
/// assert_eq!(x, [7; 4]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Pointers<'a, T, S, const N: usize> {
    base: *mut T,
    offsets: Fragment<isize, S, N>,
    _life: PhantomData<&'a mut T>,
}

impl<'a, T: Element, V: StaticLayout, const N: usize> Pointers<'a, T, CompactOf<V>, N> {
    /// The pointers of a static view's elements: offset `i` is the view's `layout(i)` (the layout
    /// algebra's offsets; with a static layout, constants). The tile has the view's shape, in
    /// registers compactly ([`CompactOf<V>`]); `N` is the view's size.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "3:2");
    /// let mut x = [0u8; 6];
    /// let p = Pointers::<_, _, 3>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.offsets().data, [0, 2, 4]);
    /// ```
    #[inline(always)]
    pub fn from_tensor<A: AddressSpace>(t: &LayoutTensor<'a, T, Static<V>, A, Full>) -> Self {
        let mut offsets = Fragment::<isize, CompactOf<V>, N>::new();
        let o = offsets.tensor();
        for_each_index::<N>(|i| o.set(i, t.offset(i)));
        Pointers { base: t.elem_ptr(0), offsets, _life: PhantomData }
    }
}

impl<'a, T: Element, S: StaticLayout, const N: usize> Pointers<'a, T, S, N> {
    /// `base + offsets` with offsets (in elements) relative to a tensor's origin, e.g. computed
    /// from values read from other tensors (Triton's indirect load).
    ///
    /// # Safety
    /// Every offset that a load or store leaves masked in must address an element of the memory the
    /// tensor `base` points into.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, tile_from_fn};
    /// static_layout!(T = "2:1");
    /// static_layout!(Whole = "4:1");
    /// let mut x = [5i64, 6, 7, 8];
    /// let t = LayoutTensor::new(&mut x, Static::<Whole>::new()).unwrap();
    /// let p = unsafe { Pointers::new(&t, tile_from_fn::<isize, T, 2, 1>(|[i]| 3 - i as isize)) };
    /// assert_eq!(p.load().run().data, [8, 7]);
    /// ```
    #[inline(always)]
    pub unsafe fn new<L: LayoutSource, A: AddressSpace, B: crate::Bounds>(
        base: &LayoutTensor<'a, T, L, A, B>,
        offsets: Fragment<isize, S, N>,
    ) -> Self {
        Pointers { base: base.elem_ptr(0), offsets, _life: PhantomData }
    }

    /// The offsets tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "2:3");
    /// let mut x = [0f32; 4];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.offsets().data, [0, 3]);
    /// ```
    #[inline(always)]
    pub fn offsets(&self) -> Fragment<isize, S, N> {
        self.offsets
    }

    #[inline(always)]
    fn ptr(&self, i: usize) -> *mut T {
        self.base.wrapping_offset(frag_get(&self.offsets, i))
    }

    /// Starts `tl.load(pointers, ...)`: add [`mask`](Load::mask), then [`other`](Load::other),
    /// [`cache_modifier`](Load::cache_modifier), [`eviction_policy`](Load::eviction_policy),
    /// [`volatile`](Load::volatile), and [`run`](Load::run) it.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, Cg, EvictFirst};
    /// static_layout!(T = "2:1");
    /// let mut x = [1.0f32, 2.0];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// let v = p.load().mask(true).cache_modifier(Cg).eviction_policy(EvictFirst).run();
    /// assert_eq!(v.data, [1.0, 2.0]);
    /// ```
    #[inline(always)]
    pub fn load(&self) -> Load<'_, 'a, T, S, N, NoMask, T, NoCache, NoEviction> {
        Load { ptrs: self, mask: NoMask, other: T::ZERO, _c: PhantomData }
    }

    /// `tl.store(pointers, value)`: every element (`value` a scalar or a tile).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Fragment};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "2:1");
    /// let mut x = [0u16; 2];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// let mut v = Fragment::<u16, T, 2>::new();
    /// v.data = [4, 5];
    /// p.store(v);
    /// assert_eq!(x, [4, 5]);
    /// ```
    #[inline(always)]
    pub fn store(&self, value: impl Broadcast<T, S, N>) {
        self.store_with(value).run()
    }

    /// `tl.store(pointers, value, mask)`: only the masked-in elements are written.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, tile_from_fn};
    /// static_layout!(T = "3:1");
    /// let mut x = [0i8; 3];
    /// let p = Pointers::<_, _, 3>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_masked(9i8, tile_from_fn::<bool, T, 3, 1>(|[i]| i != 1));
    /// assert_eq!(x, [9, 0, 9]);
    /// ```
    #[inline(always)]
    pub fn store_masked(&self, value: impl Broadcast<T, S, N>, mask: impl Broadcast<bool, S, N>) {
        self.store_with(value).mask(mask).run()
    }
}

/// Type state of a [`Load`] without a mask (it has no `other` method).
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::NoMask;
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMask;
/// Type state of a [`Load`] with a mask `M` (a `bool` or a tile of them).
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::Masked(true);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Masked<M>(pub M);

/// The mask of a [`Load`]'s or [`Store`]'s type state. Sealed.
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::{LoadMask, Masked, NoMask};
/// static_layout!(T = "2:1");
/// assert!(<NoMask as LoadMask<T, 2>>::active(&NoMask, 1));
/// assert!(!<Masked<bool> as LoadMask<T, 2>>::active(&Masked(false), 0));
/// ```
pub trait LoadMask<S, const N: usize>: sealed::Sealed {
    /// Whether element `i` is masked in.
    fn active(&self, i: usize) -> bool;
}
impl sealed::Sealed for NoMask {}
impl<S, const N: usize> LoadMask<S, N> for NoMask {
    #[inline(always)]
    fn active(&self, _: usize) -> bool {
        true
    }
}
impl<M> sealed::Sealed for Masked<M> {}
impl<S, const N: usize, M: Broadcast<bool, S, N>> LoadMask<S, N> for Masked<M> {
    #[inline(always)]
    fn active(&self, i: usize) -> bool {
        self.0.at(i)
    }
}

/// A `tl.load` being built over [`Pointers`] (see [`Pointers::load`]): mask state `K`, `other`
/// value `O`, cache modifier `C`, eviction policy `E`. Methods not allowed in a state do not exist
/// in it: `other` without a mask does not compile.
///
/// ```compile_fail
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// use cute_rs_tensor::triton::Pointers;
/// static_layout!(T = "2:1");
/// let mut x = [1.0f32, 2.0];
/// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
/// let v = p.load().other(0.0).run(); // `other` without `mask`: no such method
/// ```
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// use cute_rs_tensor::triton::Pointers;
/// static_layout!(T = "2:1");
/// let mut x = [1.0f32, 2.0];
/// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
/// assert_eq!(p.load().mask(false).other(f32::NAN).run().data[1].is_nan(), true);
/// ```
pub struct Load<'p, 'a, T, S, const N: usize, K, O, C, E> {
    ptrs: &'p Pointers<'a, T, S, N>,
    mask: K,
    other: O,
    _c: PhantomData<(C, E)>,
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, C, E> Load<'p, 'a, T, S, N, NoMask, T, C, E> {
    /// `mask=`: a `bool` or a tile of them; masked-out elements are not read.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "2:1");
    /// let mut x = [3u8, 4];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.load().mask(false).run().data, [0, 0]);
    /// ```
    #[inline(always)]
    pub fn mask<M: Broadcast<bool, S, N>>(self, mask: M) -> Load<'p, 'a, T, S, N, Masked<M>, T, C, E> {
        Load { ptrs: self.ptrs, mask: Masked(mask), other: self.other, _c: PhantomData }
    }
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, M, C, E> Load<'p, 'a, T, S, N, Masked<M>, T, C, E> {
    /// `other=`: the value of masked-out elements, a scalar or a tile (only after a mask).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Fragment};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "2:1");
    /// let mut x = [3u8, 4];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// let mut o = Fragment::<u8, T, 2>::new();
    /// o.data = [8, 9];
    /// assert_eq!(p.load().mask(false).other(o).run().data, [8, 9]);
    /// ```
    #[inline(always)]
    pub fn other<O: Broadcast<T, S, N>>(self, other: O) -> Load<'p, 'a, T, S, N, Masked<M>, O, C, E> {
        Load { ptrs: self.ptrs, mask: self.mask, other, _c: PhantomData }
    }
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, K: LoadMask<S, N>, O: Broadcast<T, S, N>, C: CacheModifier, E: EvictionPolicy>
    Load<'p, 'a, T, S, N, K, O, C, E>
{
    /// `cache_modifier=`: [`Ca`], [`Cg`], [`Cs`], [`Lu`], [`Cv`] or [`NoCache`].
    ///
    /// # Constraints
    /// The element is 1, 2, 4, 8 or 16 bytes, the sizes one PTX access moves with a hint (a
    /// compile-time error otherwise, also for [`eviction_policy`](Self::eviction_policy)):
    /// ```compile_fail,E0080
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, Cg};
    /// static_layout!(T = "1:1");
    /// let mut x = [[1u32; 3]]; // 12 bytes
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// let _ = p.load().cache_modifier(Cg).run();
    /// ```
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, Ca};
    /// static_layout!(T = "1:1");
    /// let mut x = [3u32];
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.load().cache_modifier(Ca).run().data, [3]);
    /// ```
    #[inline(always)]
    pub fn cache_modifier<C2: CacheModifier>(self, _: C2) -> Load<'p, 'a, T, S, N, K, O, C2, E> {
        hinted_size::<T>();
        Load { ptrs: self.ptrs, mask: self.mask, other: self.other, _c: PhantomData }
    }

    /// `eviction_policy=`: [`EvictFirst`], [`EvictLast`], [`EvictNormal`] or [`NoEviction`]. On
    /// the GPU the priority applies to L2 (`createpolicy` and `.L2::cache_hint`) and, where no
    /// cache operator is given, to L1 (`.L1::evict_*`), as Triton emits it.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, EvictLast};
    /// static_layout!(T = "1:1");
    /// let mut x = [3u32];
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.load().eviction_policy(EvictLast).run().data, [3]);
    /// ```
    #[inline(always)]
    pub fn eviction_policy<E2: EvictionPolicy>(self, _: E2) -> Load<'p, 'a, T, S, N, K, O, C, E2> {
        hinted_size::<T>();
        Load { ptrs: self.ptrs, mask: self.mask, other: self.other, _c: PhantomData }
    }

    /// `volatile=True` (replaces the cache modifier; no L2 policy).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "1:1");
    /// let mut x = [3u32];
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.load().volatile().run().data, [3]);
    /// ```
    #[inline(always)]
    pub fn volatile(self) -> Load<'p, 'a, T, S, N, K, O, Volatile, E> {
        Load { ptrs: self.ptrs, mask: self.mask, other: self.other, _c: PhantomData }
    }

    /// Performs the load: a register tile of layout `S`; masked-out elements are `other` (zero
    /// without `other`) and their pointers are not read.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "2:1");
    /// let mut x = [3i16, 4];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// assert_eq!(p.load().run().data, [3, 4]);
    /// ```
    #[inline(always)]
    pub fn run(self) -> Fragment<T, S, N> {
        let policy = E::policy();
        let mut out = Fragment::<T, S, N>::new();
        let t = out.tensor();
        for_each_index::<N>(|i| {
            let v = if self.mask.active(i) {
                // SAFETY: masked-in pointers are valid (constructor contracts).
                unsafe { C::read::<T, E>(self.ptrs.ptr(i) as *const T, policy) }
            } else {
                self.other.at(i)
            };
            t.set(i, v);
        });
        out
    }
}

/// An error of [`make_block_ptr`].
///
/// # Example
/// ```
/// use cute_rs_tensor::triton::TritonError;
/// assert_ne!(TritonError::OrderNotPermutation, TritonError::BoundaryDimension(3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TritonError {
    /// `order` is not a permutation of `0..rank`.
    OrderNotPermutation,
    /// A `boundary_check` dimension is not below the rank.
    BoundaryDimension(usize),
    /// The shape and strides do not make a layout.
    Layout(LayoutError),
}

impl From<LayoutError> for TritonError {
    fn from(e: LayoutError) -> Self {
        TritonError::Layout(e)
    }
}

/// A block pointer ([`make_block_ptr`]): a block of the static shape of `S` (`N = size(S)`, rank
/// `R`) at run-time `offsets` of a rank-`R` tensor with a run-time layout.
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::make_block_ptr;
/// static_layout!(B = "(2,2):(2,1)");
/// let mut x: Vec<f32> = (0..9).map(|v| v as f32).collect(); // 3 x 3 row-major
/// let b = unsafe { make_block_ptr::<f32, B, 4, 2>(x.as_mut_ptr(), [3, 3], [3, 1], [1, 1], [1, 0]) }.unwrap();
/// assert_eq!(b.load().run().data, [4.0, 5.0, 7.0, 8.0]);
/// let v = b.advance([1, 1]).load().boundary_check(&[0, 1]).padding_nan().run();
/// assert_eq!(v.data[0], 8.0);
/// assert!(v.data[1].is_nan() && v.data[2].is_nan() && v.data[3].is_nan());
/// ```
#[derive(Clone, Copy)]
pub struct BlockPtr<'a, T, S, const N: usize, const R: usize> {
    /// The tensor's origin.
    base: *mut T,
    /// The tensor's extent per dimension.
    ext: [i64; R],
    /// The tensor's stride per dimension. Kept as `R` integers rather than a run-time `Layout`:
    /// a layout value walked at run time lives in local memory in a kernel (a stack frame);
    /// `R` strides stay in registers and an offset is `sum g[k] * strides[k]`.
    strides: [i64; R],
    offsets: [i64; R],
    order: [usize; R],
    _s: PhantomData<(&'a mut T, S)>,
}

/// `tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`: `block_shape` is the
/// shape of the static layout `S`, which also gives the loaded tile's register layout; `order`
/// (the memory order of the dimensions, fastest first... as Triton, a hint) must be a permutation.
///
/// # Safety
/// `base` with `shape`/`strides` must address valid memory for every in-bounds coordinate; blocks
/// are only accessed in bounds on the dimensions that are not boundary-checked.
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::{make_block_ptr, TritonError};
/// static_layout!(B = "4:1");
/// let mut x = [1i32, 2, 3];
/// let b = unsafe { make_block_ptr::<i32, B, 4, 1>(x.as_mut_ptr(), [3], [1], [0], [0]) }.unwrap();
/// assert_eq!(b.load().boundary_check(&[0]).run().data, [1, 2, 3, 0]);
/// let e = unsafe { make_block_ptr::<i32, B, 4, 1>(x.as_mut_ptr(), [3], [1], [0], [1]) };
/// assert_eq!(e.err(), Some(TritonError::OrderNotPermutation));
/// ```
pub unsafe fn make_block_ptr<'a, T: Element, S: StaticLayout, const N: usize, const R: usize>(
    base: *mut T,
    shape: [i64; R],
    strides: [i64; R],
    offsets: [i64; R],
    order: [usize; R],
) -> Result<BlockPtr<'a, T, S, N, R>, TritonError> {
    for &e in &shape {
        if e < 1 {
            return Err(TritonError::Layout(LayoutError::NonPositiveShape { op: "make_block_ptr", value: e }));
        }
    }
    BlockPtr::from_parts(base, shape, strides, offsets, order)
}

/// One boundary check mask per dimension, from Triton's tuple of dimensions.
/// `order` is a permutation of `0..R` ([`TritonError::OrderNotPermutation`] otherwise).
pub(crate) fn check_order<const R: usize>(order: &[usize; R]) -> Result<(), TritonError> {
    match crate::strided::not_in_permutation(order, R) {
        Some(_) => Err(TritonError::OrderNotPermutation),
        None => Ok(()),
    }
}

/// The dimensions a `boundary_check` names, as one flag per dimension.
pub(crate) fn check_dims<const R: usize>(dims: &[usize]) -> Result<[bool; R], TritonError> {
    let mut c = [false; R];
    for &d in dims {
        if d >= R {
            return Err(TritonError::BoundaryDimension(d));
        }
        c[d] = true;
    }
    Ok(c)
}

impl<'a, T: Element, S: StaticLayout, const N: usize, const R: usize> BlockPtr<'a, T, S, N, R> {
    /// A block pointer into a tensor (its top-level modes are the dimensions; its layout gives
    /// the shape and strides).
    ///
    /// # Errors
    /// [`TritonError::Layout`] when a dimension is a nested mode (a block pointer has one stride
    /// per dimension, as Triton's); [`TritonError::OrderNotPermutation`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor};
    /// use cute_rs_tensor::triton::BlockPtr;
    /// static_layout!(B = "2:1");
    /// let mut x = [1u8, 2, 3];
    /// let t = LayoutTensor::new(&mut x, cute_rs_layout::Layout::parse("3:1").unwrap()).unwrap();
    /// let b = BlockPtr::<u8, B, 2, 1>::new(t, [1], [0]).unwrap();
    /// assert_eq!(b.load().run().data, [2, 3]);
    /// ```
    pub fn new(tensor: LayoutTensor<'a, T, Layout, Global, Full>, offsets: [i64; R], order: [usize; R]) -> Result<Self, TritonError> {
        const {
            assert!(S::MODES.rank == R, "the block shape's rank must be the tensor's");
            assert!(S::SIZE == N, "N must be the size of the block");
        }
        let l = tensor.layout();
        assert!(l.rank() == R, "the tensor's rank must be R");
        if l.shape().num_leaves() != R {
            return Err(TritonError::Layout(LayoutError::InvalidArgument {
                op: "BlockPtr::new",
                condition: "every dimension must be a single mode (one stride per dimension)",
                value: l.shape().num_leaves() as i64,
            }));
        }
        let (mut ext, mut strides) = ([0i64; R], [0i64; R]);
        ext.copy_from_slice(l.shape().leaves());
        strides.copy_from_slice(l.stride().leaves());
        Self::from_parts(tensor.elem_ptr(0), ext, strides, offsets, order)
    }

    fn from_parts(base: *mut T, ext: [i64; R], strides: [i64; R], offsets: [i64; R], order: [usize; R]) -> Result<Self, TritonError> {
        const {
            assert!(S::MODES.rank == R, "the block shape's rank must be the tensor's");
            assert!(S::SIZE == N, "N must be the size of the block");
        }
        check_order(&order)?;
        Ok(BlockPtr { base, ext, strides, offsets, order, _s: PhantomData })
    }

    /// The block's offsets (its origin's coordinate in the tensor).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "2:1");
    /// let mut x = [0u8; 4];
    /// let b = unsafe { make_block_ptr::<u8, B, 2, 1>(x.as_mut_ptr(), [4], [1], [1], [0]) }.unwrap();
    /// assert_eq!(b.advance([2]).offsets(), [3]);
    /// ```
    pub fn offsets(&self) -> [i64; R] {
        self.offsets
    }

    /// The dimension order given to [`make_block_ptr`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "(1,1):(1,1)");
    /// let mut x = [0u8; 4];
    /// let b = unsafe { make_block_ptr::<u8, B, 1, 2>(x.as_mut_ptr(), [2, 2], [2, 1], [0, 0], [1, 0]) }.unwrap();
    /// assert_eq!(b.order(), [1, 0]);
    /// ```
    pub fn order(&self) -> [usize; R] {
        self.order
    }

    /// `tl.advance(ptr, deltas)`: the block moved by `deltas` (its origin moves by the layout's
    /// offset of the new coordinate).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "(1,1):(1,1)");
    /// let mut x = [0u8, 1, 2, 3, 4, 5];
    /// let b = unsafe { make_block_ptr::<u8, B, 1, 2>(x.as_mut_ptr(), [2, 3], [3, 1], [0, 0], [1, 0]) }.unwrap();
    /// assert_eq!(b.advance([1, 2]).origin_offset(), 5);
    /// ```
    pub fn advance(&self, deltas: [i64; R]) -> Self {
        let mut b = *self;
        let mut k = 0;
        while k < R {
            b.offsets[k] += deltas[k];
            k += 1;
        }
        b
    }

    /// The element offset of the block's origin: the tensor layout at `offsets`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "(1,1):(1,1)");
    /// let mut x = [0u8; 6];
    /// let b = unsafe { make_block_ptr::<u8, B, 1, 2>(x.as_mut_ptr(), [2, 3], [3, 1], [1, 1], [1, 0]) }.unwrap();
    /// assert_eq!(b.origin_offset(), 4);
    /// ```
    pub fn origin_offset(&self) -> isize {
        self.offset_of(self.offsets)
    }

    /// The tensor's offset of a coordinate.
    #[inline(always)]
    fn offset_of(&self, g: [i64; R]) -> isize {
        let mut o = 0i64;
        let mut k = 0;
        while k < R {
            o += g[k] * self.strides[k];
            k += 1;
        }
        o as isize
    }

    /// The address of a coordinate.
    #[inline(always)]
    fn ptr_of(&self, g: [i64; R]) -> *mut T {
        self.base.wrapping_offset(self.offset_of(g))
    }

    /// Global coordinate of block element `i`, and whether it is inside the checked dimensions.
    fn element(&self, i: usize, check: &[bool; R], ext: &[i64; R]) -> ([i64; R], bool) {
        let c = coord_of::<S, R>(i);
        let mut g = [0i64; R];
        let mut ok = true;
        let mut k = 0;
        while k < R {
            g[k] = self.offsets[k] + c[k];
            if check[k] && (g[k] < 0 || g[k] >= ext[k]) {
                ok = false;
            }
            k += 1;
        }
        (g, ok)
    }

    /// Starts `tl.load(block_ptr, boundary_check, padding_option, cache_modifier,
    /// eviction_policy)`. There is no mask or `other` on a block load:
    ///
    /// ```compile_fail
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "2:1");
    /// let mut x = [0u8; 2];
    /// let b = unsafe { make_block_ptr::<u8, B, 2, 1>(x.as_mut_ptr(), [2], [1], [0], [0]) }.unwrap();
    /// b.load().mask(true).run(); // no `mask` on a block pointer
    /// ```
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "2:1");
    /// let mut x = [6u8, 7];
    /// let b = unsafe { make_block_ptr::<u8, B, 2, 1>(x.as_mut_ptr(), [2], [1], [0], [0]) }.unwrap();
    /// assert_eq!(b.load().run().data, [6, 7]);
    /// ```
    pub fn load(&self) -> BlockLoad<'_, 'a, T, S, N, R, Unchecked, NoCache, NoEviction> {
        BlockLoad { ptr: self, check: [false; R], pad: T::ZERO, _s: PhantomData }
    }

    /// `tl.store(block_ptr, value, boundary_check)`: elements outside the checked dimensions
    /// (given as in Triton, a list of dimensions) are not written.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, Fragment};
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "2:1");
    /// let mut x = [0u8; 3];
    /// let b = unsafe { make_block_ptr::<u8, B, 2, 1>(x.as_mut_ptr(), [3], [1], [2], [0]) }.unwrap();
    /// let mut v = Fragment::<u8, B, 2>::new();
    /// v.data = [5, 6];
    /// b.store(&v, &[0]).unwrap();
    /// assert_eq!(x, [0, 0, 5]);
    /// ```
    pub fn store(&self, value: &Fragment<T, S, N>, boundary_check: &[usize]) -> Result<(), TritonError> {
        let check = check_dims::<R>(boundary_check)?;
        let ext = self.ext;
        for_each_index::<N>(|i| {
            let (g, ok) = self.element(i, &check, &ext);
            if ok {
                // SAFETY: in bounds on the checked dimensions, in the block's memory on the others
                // (make_block_ptr's contract).
                unsafe { T::write(self.ptr_of(g), frag_get(value, i)) };
            }
        });
        Ok(())
    }
}

/// Type state of a [`BlockLoad`] before `boundary_check` (no padding method).
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::Unchecked;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Unchecked;
/// Type state of a [`BlockLoad`] after `boundary_check`.
///
/// # Example
/// ```
/// let _ = cute_rs_tensor::triton::Checked;
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Checked;

/// Floating-point elements: those `padding_option="nan"` applies to.
///
/// # Example
/// ```
/// use cute_rs_tensor::triton::Float;
/// assert!(f64::NAN_VALUE.is_nan());
/// assert!(half::f16::NAN_VALUE.is_nan() && half::bf16::NAN_VALUE.is_nan());
/// ```
pub trait Float: Element {
    /// A NaN.
    const NAN_VALUE: Self;
}
impl Float for f32 {
    const NAN_VALUE: Self = f32::NAN;
}
impl Float for f64 {
    const NAN_VALUE: Self = f64::NAN;
}
impl Float for half::f16 {
    const NAN_VALUE: Self = half::f16::NAN;
}
impl Float for half::bf16 {
    const NAN_VALUE: Self = half::bf16::NAN;
}

/// A block-pointer load being built (see [`BlockPtr::load`]).
///
/// ```compile_fail
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::make_block_ptr;
/// static_layout!(B = "2:1");
/// let mut x = [0f32; 2];
/// let b = unsafe { make_block_ptr::<f32, B, 2, 1>(x.as_mut_ptr(), [2], [1], [0], [0]) }.unwrap();
/// b.load().padding_zero().run(); // padding without boundary_check
/// ```
///
/// # Example
/// ```
/// use cute_rs_tensor::static_layout;
/// use cute_rs_tensor::triton::make_block_ptr;
/// static_layout!(B = "2:1");
/// let mut x = [1f32, 2.0];
/// let b = unsafe { make_block_ptr::<f32, B, 2, 1>(x.as_mut_ptr(), [2], [1], [1], [0]) }.unwrap();
/// assert_eq!(b.load().boundary_check(&[0]).padding_zero().run().data, [2.0, 0.0]);
/// ```
pub struct BlockLoad<'p, 'a, T, S, const N: usize, const R: usize, St, C, E> {
    ptr: &'p BlockPtr<'a, T, S, N, R>,
    check: [bool; R],
    pad: T,
    _s: PhantomData<(St, C, E)>,
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, const R: usize, C, E> BlockLoad<'p, 'a, T, S, N, R, Unchecked, C, E> {
    /// `boundary_check=`: the dimensions (as in Triton, a list) outside of which elements are not
    /// read but padded (zero unless [`padding_nan`](Self::padding_nan)). Panics with a clear
    /// message on a dimension not below the rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "3:1");
    /// let mut x = [1u64, 2];
    /// let b = unsafe { make_block_ptr::<u64, B, 3, 1>(x.as_mut_ptr(), [2], [1], [0], [0]) }.unwrap();
    /// assert_eq!(b.load().boundary_check(&[0]).run().data, [1, 2, 0]);
    /// ```
    pub fn boundary_check(self, dims: &[usize]) -> BlockLoad<'p, 'a, T, S, N, R, Checked, C, E> {
        let check = match check_dims::<R>(dims) {
            Ok(c) => c,
            Err(_) => panic!("boundary_check: a dimension is not below the block pointer's rank"),
        };
        BlockLoad { ptr: self.ptr, check, pad: self.pad, _s: PhantomData }
    }
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, const R: usize, C, E> BlockLoad<'p, 'a, T, S, N, R, Checked, C, E> {
    /// `padding_option="zero"`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "2:1");
    /// let mut x = [1i32];
    /// let b = unsafe { make_block_ptr::<i32, B, 2, 1>(x.as_mut_ptr(), [1], [1], [0], [0]) }.unwrap();
    /// assert_eq!(b.load().boundary_check(&[0]).padding_zero().run().data, [1, 0]);
    /// ```
    pub fn padding_zero(self) -> Self {
        BlockLoad { pad: T::ZERO, ..self }
    }

    /// `padding_option="nan"` (floating-point elements only: an integer block does not compile).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "2:1");
    /// let mut x = [1f64];
    /// let b = unsafe { make_block_ptr::<f64, B, 2, 1>(x.as_mut_ptr(), [1], [1], [0], [0]) }.unwrap();
    /// assert!(b.load().boundary_check(&[0]).padding_nan().run().data[1].is_nan());
    /// ```
    pub fn padding_nan(self) -> Self
    where
        T: Float,
    {
        BlockLoad { pad: T::NAN_VALUE, ..self }
    }
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, const R: usize, St, C: CacheModifier, E: EvictionPolicy>
    BlockLoad<'p, 'a, T, S, N, R, St, C, E>
{
    /// `cache_modifier=` (as [`Load::cache_modifier`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::{make_block_ptr, Cg};
    /// static_layout!(B = "1:1");
    /// let mut x = [4f32];
    /// let b = unsafe { make_block_ptr::<f32, B, 1, 1>(x.as_mut_ptr(), [1], [1], [0], [0]) }.unwrap();
    /// assert_eq!(b.load().cache_modifier(Cg).run().data, [4.0]);
    /// ```
    pub fn cache_modifier<C2: CacheModifier>(self, _: C2) -> BlockLoad<'p, 'a, T, S, N, R, St, C2, E> {
        hinted_size::<T>();
        BlockLoad { ptr: self.ptr, check: self.check, pad: self.pad, _s: PhantomData }
    }

    /// `eviction_policy=` (as [`Load::eviction_policy`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::{make_block_ptr, EvictFirst};
    /// static_layout!(B = "1:1");
    /// let mut x = [4f32];
    /// let b = unsafe { make_block_ptr::<f32, B, 1, 1>(x.as_mut_ptr(), [1], [1], [0], [0]) }.unwrap();
    /// assert_eq!(b.load().eviction_policy(EvictFirst).run().data, [4.0]);
    /// ```
    pub fn eviction_policy<E2: EvictionPolicy>(self, _: E2) -> BlockLoad<'p, 'a, T, S, N, R, St, C, E2> {
        hinted_size::<T>();
        BlockLoad { ptr: self.ptr, check: self.check, pad: self.pad, _s: PhantomData }
    }

    /// Performs the load: a register tile of layout `S`; elements outside a checked dimension are
    /// the padding and are not read.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::static_layout;
    /// use cute_rs_tensor::triton::make_block_ptr;
    /// static_layout!(B = "(2,2):(1,2)");
    /// let mut x = [0i32, 1, 2, 3]; // 2 x 2 column-major
    /// let b = unsafe { make_block_ptr::<i32, B, 4, 2>(x.as_mut_ptr(), [2, 2], [1, 2], [0, 0], [0, 1]) }.unwrap();
    /// assert_eq!(b.load().run().data, [0, 1, 2, 3]);
    /// ```
    pub fn run(self) -> Fragment<T, S, N> {
        let policy = E::policy();
        let ext = self.ptr.ext;
        let mut out = Fragment::<T, S, N>::new();
        let t = out.tensor();
        for_each_index::<N>(|i| {
            let (g, ok) = self.ptr.element(i, &self.check, &ext);
            let v = if ok {
                // SAFETY: make_block_ptr's contract.
                unsafe { C::read::<T, E>(self.ptr.ptr_of(g) as *const T, policy) }
            } else {
                self.pad
            };
            t.set(i, v);
        });
        out
    }
}
