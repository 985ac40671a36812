//! Partial tiles (masked: run-time clipped extents, predicated accesses) and tiled iterators (Mojo's
//! `LayoutTensorIter`: tiles of a tensor along one axis, or of a raw buffer, optionally circular).

use core::marker::PhantomData;
use cute_rs_layout::{Layout, LayoutError};

use crate::mask::{Clip, Full};
use crate::static_layout::{divide_by_shape, LayoutSource, Modes, Static, StaticLayout, TileOf, TileRest};
use crate::tensor::{coord_offset, coord_offset_unchecked, AddressSpace, Element, LayoutTensor};
use crate::device::shared::{DynamicShared, SharedArray};

/// `a` with each top-level mode `k` rounded up to a multiple of mode `k` of `tile` (same stride):
/// the layout a partial tiling divides. A nested mode must already be a multiple.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] for a nested mode that the tile does not divide, or a tile of
/// higher rank.
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// let p = cute_rs_tensor::tile::padded(Layout::parse("(5,7):(7,1)").unwrap(), Layout::parse("(2,4)").unwrap()).unwrap();
/// assert_eq!(p.to_string(), "(6,8):(7,1)");
/// ```
pub const fn padded(a: Layout, tile: Layout) -> Result<Layout, LayoutError> {
    let r = a.rank();
    if tile.rank() > r {
        return Err(LayoutError::RankMismatch { op: "padded", expected: r, found: tile.rank() });
    }
    let mut out = Layout::empty();
    let mut k = 0;
    while k < r {
        let m = cute_rs_layout::unwrap!(a.mode(k));
        let t = if k < tile.rank() { cute_rs_layout::unwrap!(tile.mode(k)).size() } else { 1 };
        let s = m.size();
        let mode = if s % t == 0 {
            m
        } else if m.shape().num_leaves() == 1 {
            let d = m.stride().leaves()[0];
            cute_rs_layout::unwrap!(Layout::int((s + t - 1) / t * t, d))
        } else {
            return Err(LayoutError::InvalidArgument { op: "padded", condition: "a nested mode must be a multiple of its tile extent", value: s });
        };
        out = match out.push(mode) {
            Ok(o) => o,
            Err(e) => return Err(e),
        };
        k += 1;
    }
    Ok(out)
}

/// `S` padded to whole tiles of `Tl` ([`padded`]), static.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, tile::Padded};
/// static_layout!(M = "(5,7):(7,1)");
/// static_layout!(T = "(2,4)");
/// assert_eq!(Padded::<M, T>::LAYOUT.to_string(), "(6,8):(7,1)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Padded<S, Tl>(PhantomData<(S, Tl)>);
impl<S: StaticLayout, Tl: StaticLayout> StaticLayout for Padded<S, Tl> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(padded(S::LAYOUT, Tl::LAYOUT));
}

#[inline(always)]
fn clip<const R: usize>(full: &Modes, tile: &Modes, coord: &[i64; R]) -> Clip<R> {
    let mut extent = [0; R];
    let mut k = 0;
    while k < R {
        let left = full.size[k] - coord[k] * tile.size[k];
        extent[k] = if left < 0 { 0 } else if left > tile.size[k] { tile.size[k] } else { left };
        k += 1;
    }
    Clip { extent }
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace> LayoutTensor<'a, T, Static<S>, A, Full> {
    /// The tile of shape `Tl` at `coord` when `Tl`'s extents need not divide the tensor's: the
    /// tensor is tiled as if padded to whole tiles ([`Padded`]), and the tile's bounds clip each mode
    /// to the elements that exist ([`Clip`]); [`copy_from`](LayoutTensor::copy_from) and
    /// [`contains`](LayoutTensor::contains) then touch only those. The tensor's top-level modes that
    /// the tile does not divide must be single integers.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(3,5):(5,1)");
    /// static_layout!(T = "(2,4)");
    /// let mut v: Vec<u32> = (0..15).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let corner = t.tile_masked::<T, 2>([1, 1]); // row 2, column 4 only
    /// assert_eq!(corner.bounds().extent, [1, 1]);
    /// assert_eq!((0..8).filter(|&i| corner.contains(i)).count(), 1);
    /// assert_eq!(corner.get(0), 14);
    /// ```
    #[inline(always)]
    pub fn tile_masked<Tl: StaticLayout, const R: usize>(
        self,
        coord: [i64; R],
    ) -> LayoutTensor<'a, T, Static<TileOf<Padded<S, Tl>, Tl>>, A, Clip<R>> {
        // A tile past the tensor is empty (all masked): its coordinate may lie past the tile grid.
        let off = coord_offset_unchecked(&TileRest::<Padded<S, Tl>, Tl>::LAYOUT, &TileRest::<Padded<S, Tl>, Tl>::MODES, &coord);
        let bounds = clip(&S::MODES, &Tl::MODES, &coord);
        Self::rebuild(self.ptr, self.moved(off), Static::new(), bounds)
    }

    /// Whether the tile of shape `Tl` at `coord` lies wholly inside the tensor (then
    /// [`tile`](Self::tile), with no predication, may be used instead of
    /// [`tile_masked`](Self::tile_masked) — when `Tl` divides the tensor, `tile` compiles).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(3,5):(5,1)");
    /// static_layout!(T = "(2,4)");
    /// let mut v = [0u8; 15];
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// assert!(t.tile_is_full::<T, 2>([0, 0]) && !t.tile_is_full::<T, 2>([1, 0]));
    /// ```
    #[inline(always)]
    pub fn tile_is_full<Tl: StaticLayout, const R: usize>(&self, coord: [i64; R]) -> bool {
        let c = clip(&S::MODES, &Tl::MODES, &coord);
        let mut k = 0;
        while k < R {
            if c.extent[k] != Tl::MODES.size[k] {
                return false;
            }
            k += 1;
        }
        true
    }

    /// Mojo's `tiled_iterator`: tiles of shape `Tl` starting at tile coordinate `coord`, moving
    /// along mode `axis` (wrapping around when `circular`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(2,6):(6,1)");
    /// static_layout!(T = "(2,2)");
    /// let mut v: Vec<u32> = (0..12).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let firsts: Vec<u32> = t.tiled_iterator::<T, 2>([0, 1], 1, false).map(|tile| tile.get(0)).collect();
    /// assert_eq!(firsts, [2, 4]);
    /// ```
    #[inline(always)]
    pub fn tiled_iterator<Tl: StaticLayout, const R: usize>(
        self,
        coord: [i64; R],
        axis: usize,
        circular: bool,
    ) -> TileIter<'a, T, Static<TileOf<S, Tl>>, A> {
        let rest = TileRest::<S, Tl>::LAYOUT;
        let m = TileRest::<S, Tl>::MODES;
        let mut c0 = coord;
        c0[axis] = 0;
        let base = coord_offset(&rest, &m, &c0);
        let mut c1 = c0;
        c1[axis] = 1;
        let step = coord_offset(&rest, &m, &c1) - base;
        TileIter {
            ptr: self.elem_ptr(base as isize),
            layout: Static::new(),
            step: step as isize,
            pos: coord[axis] as usize,
            count: m.size[axis] as usize,
            circular,
            _m: PhantomData,
        }
    }
}

impl<'a, T: Element, A: AddressSpace> LayoutTensor<'a, T, Layout, A, Full> {
    /// [`tile_masked`](LayoutTensor::tile_masked) with a run-time tile shape.
    ///
    /// # Errors
    /// The errors of [`padded`] and [`cute_rs_layout::zipped_divide_by_mode`]; [`LayoutError::RankMismatch`]
    /// for a coordinate of the wrong rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u32> = (0..15).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(3,5):(5,1)").unwrap()).unwrap();
    /// let tile = t.tile_masked(Layout::parse("(2,4)").unwrap(), [1, 0]).unwrap();
    /// assert_eq!(tile.bounds().extent, [1, 4]);
    /// ```
    pub fn tile_masked<const R: usize>(self, tile: Layout, coord: [i64; R]) -> Result<LayoutTensor<'a, T, Layout, A, Clip<R>>, LayoutError> {
        let l = self.layout;
        let z = divide_by_shape(padded(l, tile)?, tile)?;
        let rest = z.mode(1)?;
        let m = Modes::of(rest);
        if m.rank != R || tile.rank() != R {
            return Err(LayoutError::RankMismatch { op: "tile_masked", expected: m.rank, found: R });
        }
        let off = coord_offset_unchecked(&rest, &m, &coord);
        let bounds = clip(&Modes::of(l), &Modes::of(tile), &coord);
        Ok(Self::rebuild(self.ptr, self.moved(off), z.mode(0)?, bounds))
    }

    /// [`tiled_iterator`](LayoutTensor::tiled_iterator) with a run-time tile shape.
    ///
    /// # Errors
    /// The errors of [`tile`](LayoutTensor::tile); [`LayoutError::InvalidArgument`] for `axis` past
    /// the rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u32> = (0..8).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(4,2):(1,4)").unwrap()).unwrap();
    /// let it = t.tiled_iterator(Layout::parse("(2,2)").unwrap(), [0, 0], 0, false).unwrap();
    /// assert_eq!(it.map(|tile| tile.get(0)).collect::<Vec<_>>(), [0, 2]);
    /// ```
    pub fn tiled_iterator<const R: usize>(
        self,
        tile: Layout,
        coord: [i64; R],
        axis: usize,
        circular: bool,
    ) -> Result<TileIter<'a, T, Layout, A>, LayoutError> {
        let z = divide_by_shape(self.layout, tile)?;
        let rest = z.mode(1)?;
        let m = Modes::of(rest);
        if m.rank != R {
            return Err(LayoutError::RankMismatch { op: "tiled_iterator", expected: m.rank, found: R });
        }
        if axis >= R {
            return Err(LayoutError::InvalidArgument { op: "tiled_iterator", condition: "axis < rank", value: axis as i64 });
        }
        let mut c0 = coord;
        c0[axis] = 0;
        let base = coord_offset(&rest, &m, &c0);
        let mut c1 = c0;
        c1[axis] = 1;
        let step = coord_offset(&rest, &m, &c1) - base;
        Ok(TileIter {
            ptr: self.elem_ptr(base as isize),
            layout: z.mode(0)?,
            step: step as isize,
            pos: coord[axis] as usize,
            count: m.size[axis] as usize,
            circular,
            _m: PhantomData,
        })
    }
}

/// Mojo's `LayoutTensorIter`: a sequence of `count` tiles of one layout, `step` elements apart,
/// from position `pos`; circular iterators wrap around (and never end as an [`Iterator`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::TileIter;
/// let mut buf: Vec<i16> = (0..16).collect();
/// let mut it = TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap(), true);
/// it.advance(5); // 4 tiles, circular: tile 1
/// assert_eq!(it.get().get(0), 4);
/// ```
pub struct TileIter<'a, T, L: LayoutSource, A: AddressSpace = crate::Global> {
    ptr: *mut T,
    layout: L,
    step: isize,
    pos: usize,
    count: usize,
    circular: bool,
    _m: PhantomData<(&'a [T], A)>,
}

impl<'a, T: Element, L: LayoutSource> TileIter<'a, T, L, crate::Global> {
    /// Tiles of `layout` laid back to back in `buf` (one every `size(layout)` elements, Mojo's
    /// convention), `buf.len() / size` of them.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::TileIter;
    /// let mut buf: Vec<i16> = (0..16).collect();
    /// let it = TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap(), false);
    /// assert_eq!(it.len(), 4);
    /// ```
    pub fn over_buffer(buf: &'a mut [T], layout: L, circular: bool) -> Self {
        Self::back_to_back(buf.as_mut_ptr(), buf.len(), layout, circular)
    }
}

impl<'a, T: Element, L: LayoutSource> TileIter<'a, T, L, crate::Shared> {
    /// Tiles of `layout` back to back in a block's static shared array (one every `size(layout)`
    /// elements): the stages of a shared-memory ring, as Mojo's `LayoutTensorIter` over a
    /// shared `stack_allocation`; a circular iterator walks the ring.
    ///
    /// # Example
    /// ```no_run
    /// use cute_rs_tensor::{shared_array, static_layout, Static, TileIter};
    /// static_layout!(Stage = "(8,8):(8,1)");
    /// // Four 8 x 8 stages; `advance(1)` moves to the next, the fifth is the first again.
    /// let mut ring = TileIter::over_shared(shared_array!(RING: [f32; 256]), Static::<Stage>::new(), true);
    /// ring.advance(5);
    /// ring.get().set_at([0, 0], 1.0); // stage 1
    /// ```
    pub fn over_shared<const N: usize>(buf: SharedArray<T, N>, layout: L, circular: bool) -> Self {
        Self::back_to_back(buf.as_mut_ptr(), buf.len(), layout, circular)
    }

    /// [`over_shared`](Self::over_shared) for the launch's dynamic shared memory (as many tiles
    /// as its bytes hold).
    ///
    /// # Example
    /// ```no_run
    /// use cute_rs_tensor::{dynamic_shared, static_layout, Static, TileIter};
    /// static_layout!(Stage = "(128,16):(16,1)");
    /// let ring = TileIter::over_dynamic_shared(dynamic_shared!(STAGES: f32, align 16), Static::<Stage>::new(), true);
    /// let _first = ring.get();
    /// ```
    pub fn over_dynamic_shared(buf: DynamicShared<T>, layout: L, circular: bool) -> Self {
        Self::back_to_back(buf.as_mut_ptr(), buf.len(), layout, circular)
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace> TileIter<'a, T, L, A> {
    /// Tiles of `layout` one every `size(layout)` elements of the `len` elements at `ptr`, as many
    /// as fit.
    fn back_to_back(ptr: *mut T, len: usize, layout: L, circular: bool) -> Self {
        let l = layout.layout();
        let size = l.size().max(1) as usize;
        let count = if l.cosize() as usize > len { 0 } else { (len - l.cosize() as usize) / size + 1 };
        TileIter { ptr, layout, step: size as isize, pos: 0, count, circular, _m: PhantomData }
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace> TileIter<'a, T, L, A> {
    /// The current tile (Mojo's `iter[]`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::TileIter;
    /// let mut buf: Vec<i16> = (0..8).collect();
    /// let it = TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("4:1").unwrap(), false);
    /// assert_eq!(it.get().get(3), 3);
    /// ```
    #[inline(always)]
    pub fn get(&self) -> LayoutTensor<'a, T, L, A, Full> {
        let pos = if self.circular && self.count > 0 { self.pos % self.count } else { self.pos };
        LayoutTensor { ptr: self.ptr, byte_off: pos as isize * self.step * core::mem::size_of::<T>() as isize, layout: self.layout, bounds: Full, _m: PhantomData }
    }

    /// Moves `n` tiles forward (Mojo's `iter += n`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::TileIter;
    /// let mut buf: Vec<i16> = (0..8).collect();
    /// let mut it = TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("4:1").unwrap(), false);
    /// it.advance(1);
    /// assert_eq!(it.get().get(0), 4);
    /// ```
    #[inline(always)]
    pub fn advance(&mut self, n: usize) {
        self.pos += n;
        if self.circular && self.count > 0 {
            self.pos %= self.count;
        }
    }

    /// A copy moved `n` tiles forward (Mojo's `next(n)`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::TileIter;
    /// let mut buf: Vec<i16> = (0..8).collect();
    /// let it = TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("4:1").unwrap(), false);
    /// assert_eq!(it.next_by(1).get().get(0), 4);
    /// ```
    #[inline(always)]
    pub fn next_by(&self, n: usize) -> Self {
        let mut c = TileIter { ptr: self.ptr, layout: self.layout, step: self.step, pos: self.pos, count: self.count, circular: self.circular, _m: PhantomData };
        c.advance(n);
        c
    }

    /// Tiles left (from the current one to the last; `count` when circular).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::TileIter;
    /// let mut buf = [0u8; 8];
    /// assert_eq!(TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("2:1").unwrap(), true).len(), 4);
    /// ```
    pub fn len(&self) -> usize {
        if self.circular {
            self.count
        } else {
            self.count.saturating_sub(self.pos)
        }
    }

    /// Whether no tile is left.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::TileIter;
    /// let mut buf = [0u8; 1];
    /// assert!(TileIter::over_buffer(&mut buf, cute_rs_layout::Layout::parse("2:1").unwrap(), false).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace> Iterator for TileIter<'a, T, L, A> {
    type Item = LayoutTensor<'a, T, L, A, Full>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.count == 0 || (!self.circular && self.pos >= self.count) {
            return None;
        }
        let t = self.get();
        self.advance(1);
        Some(t)
    }
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace, const R: usize> LayoutTensor<'a, T, Static<S>, A, Clip<R>> {
    /// [`distribute`](LayoutTensor::distribute) of a partial tile: thread `tid`'s fragment, with
    /// bounds clipped to the tile's (a fragment element `j` of mode `k` is tile coordinate
    /// `c_k + s_k * j`, `c_k` being the thread's coordinate and `s_k` the thread extent of mode `k`).
    /// The tile's modes must be single integers (as [`tile_masked`](LayoutTensor::tile_masked)
    /// gives for a tensor of single-integer modes). `R2` is the thread layout's rank, `R`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(3,6):(6,1)");
    /// static_layout!(T = "(4,4)");
    /// static_layout!(Th = "(2,2):(2,1)");
    /// let mut v: Vec<u32> = (0..18).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let f = t.tile_masked::<T, 2>([0, 1]).distribute::<Th, 2>(3); // rows 1,3 x columns 5,7 of the padded tile
    /// assert_eq!(f.bounds().extent, [1, 1]);
    /// assert_eq!(f.get(0), 11);
    /// ```
    #[inline(always)]
    pub fn distribute<Th: StaticLayout, const R2: usize>(
        self,
        tid: usize,
    ) -> LayoutTensor<'a, T, Static<crate::static_layout::Partition<S, Th>>, A, Clip<R>> {
        const { assert!(R2 == R, "distribute: the thread layout's rank must be the tile's") };
        let c: [i64; R] = crate::view::thread_coord(&Th::LAYOUT, &Th::MODES, tid as i64);
        let origin = crate::static_layout::PartitionOrigin::<S, Th>::LAYOUT;
        let off = coord_offset(&origin, &crate::static_layout::PartitionOrigin::<S, Th>::MODES, &c);
        let mut extent = [0; R];
        let mut k = 0;
        while k < R {
            let s = Th::MODES.size[k];
            let left = self.bounds.extent[k] - c[k];
            extent[k] = if left <= 0 { 0 } else { (left + s - 1) / s };
            k += 1;
        }
        Self::rebuild(self.ptr, self.moved(off), Static::new(), Clip { extent })
    }
}
