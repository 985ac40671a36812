//! Views without copies: slice, compose (reshape), select/transpose, coalesce, tile (CuTe's
//! `local_tile`), split, vectorize, distribute (CuTe's `local_partition`). Vectors along any modes
//! (`vectorize_by`) are in [`vectorized`](crate::vectorized).
//!
//! Each operation comes twice: on tensors with a [`Static`] layout it returns a tensor whose layout
//! is a static type computed by the algebra at compile time (a violated precondition fails
//! compilation); on tensors with a run-time [`Layout`] it returns a `Result`.

use cute_rs_layout::{IntTuple, Layout, LayoutError};

use crate::mask::Full;
use crate::static_layout::{
    divide_by_shape, vectorized, Coalesced, Composed, LayoutSource, Modes, Partition, PartitionOrigin, Selected,
    Static, StaticLayout, TileOf, TileRest, Upcast,
};
use crate::tensor::{coord_offset, AddressSpace, Element, LayoutTensor, Vector};

/// The per-mode coordinate of thread `tid` in the thread layout `th`: for each leaf `s:d`,
/// `(tid / d) % s`, combined colexicographically within each top-level mode (CuTe's
/// `get_flat_coord` on a compact thread layout).
#[inline(always)]
pub(crate) fn thread_coord<const R: usize>(th: &Layout, m: &Modes, tid: i64) -> [i64; R] {
    let shape = th.shape();
    let stride = th.stride();
    let (s, d) = (shape.leaves(), stride.leaves());
    let mut c = [0; R];
    let mut k = 0;
    while k < R {
        let mut scale = 1;
        let mut j = m.start[k];
        while j < m.start[k + 1] {
            // A stride-0 leaf (threads that share data) contributes no coordinate.
            if d[j] != 0 {
                c[k] += ((tid / d[j]) % s[j]) * scale;
            }
            scale *= s[j];
            j += 1;
        }
        k += 1;
    }
    c
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace> LayoutTensor<'a, T, Static<S>, A, Full> {
    /// CuTe's `local_tile`: the tile of shape `Tl` at tile coordinate `coord` (one entry per mode
    /// of `Tl`). The tile's layout is the static [`TileOf<S, Tl>`]; the offset of `coord` is
    /// computed through the static [`TileRest<S, Tl>`]. Every extent of `Tl` must divide its mode
    /// (else compilation fails; use [`tile_masked`](Self::tile_masked) for partial tiles).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(T = "(2,2)");
    /// let mut v: Vec<u32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let tile = t.tile::<T, 2>([1, 0]); // rows 2..4, columns 0..2
    /// assert_eq!([tile.at([0, 0]), tile.at([0, 1]), tile.at([1, 0]), tile.at([1, 1])], [8, 9, 12, 13]);
    /// ```
    /// A tile that does not divide the tensor is a compile-time error (the algebra's message):
    /// ```compile_fail
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(T = "(3,3)");
    /// let mut v = [0u32; 16];
    /// let tile = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().tile::<T, 2>([0, 0]);
    /// let _ = tile.get(0);
    /// ```
    #[inline(always)]
    pub fn tile<Tl: StaticLayout, const R: usize>(self, coord: [i64; R]) -> LayoutTensor<'a, T, Static<TileOf<S, Tl>>, A, Full> {
        let off = coord_offset(&TileRest::<S, Tl>::LAYOUT, &TileRest::<S, Tl>::MODES, &coord);
        Self::rebuild(self.ptr, self.moved(off), Static::new(), Full)
    }

    /// A view of `W`-element [`Vector`]s: the layout in units of `W` ([`Upcast<S, W>`], static).
    /// Requires a stride-1 mode whose extent `W` divides and all other strides multiples of `W`
    /// (compile-time error otherwise); the base pointer must be aligned for the vector (checked in
    /// debug builds). [`vectorize_by`](Self::vectorize_by) makes vectors along any modes (Mojo's
    /// `vectorize[1, W]` and `vectorize[W, 1]`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static, Vector};
    /// static_layout!(M = "(2,8):(8,1)");
    /// #[repr(align(16))] struct Buf([f32; 16]);
    /// let mut b = Buf(core::array::from_fn(|i| i as f32));
    /// let v = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap().vectorize::<4>();
    /// assert_eq!(v.layout().to_string(), "(2,2):(2,1)");
    /// assert_eq!(v.at([1, 1]), Vector([12., 13., 14., 15.]));
    /// ```
    #[inline(always)]
    pub fn vectorize<const W: usize>(self) -> LayoutTensor<'a, Vector<T, W>, Static<Upcast<S, W>>, A, Full> {
        debug_assert!(self.as_ptr() as usize % <Vector<T, W> as Element>::ALIGN == 0, "vectorize: misaligned base");
        Self::rebuild(self.ptr as *mut Vector<T, W>, self.byte_off, Static::new(), Full)
    }

    /// CuTe's `local_partition` (Mojo's `distribute`): thread `tid` of the thread layout `Th` gets
    /// the elements at its position in every `shape(Th)` tile of the tensor. The fragment's layout is
    /// the static [`Partition<S, Th>`]; its origin is [`PartitionOrigin<S, Th>`] at `tid`'s
    /// coordinate in `Th` (for each leaf `s:d` of `Th`, `(tid / d) % s`).
    ///
    /// # Example
    /// Mojo's Figure 5: a 4 x 4 row-major tensor over 2 x 2 column-major threads.
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Th = "(2,2):(1,2)");
    /// let mut v: Vec<u32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let f = t.distribute::<Th, 2>(1);
    /// assert_eq!([f.at([0, 0]), f.at([0, 1]), f.at([1, 0]), f.at([1, 1])], [4, 6, 12, 14]);
    /// ```
    #[inline(always)]
    pub fn distribute<Th: StaticLayout, const R: usize>(self, tid: usize) -> LayoutTensor<'a, T, Static<Partition<S, Th>>, A, Full> {
        let c: [i64; R] = thread_coord(&Th::LAYOUT, &Th::MODES, tid as i64);
        let off = coord_offset(&PartitionOrigin::<S, Th>::LAYOUT, &PartitionOrigin::<S, Th>::MODES, &c);
        Self::rebuild(self.ptr, self.moved(off), Static::new(), Full)
    }

    /// The view `S ∘ B` ([`Composed<S, B>`]): a reshape or reordering, checked at compile time.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(2,3):(3,1)");
    /// static_layout!(Flat = "6:1");
    /// let mut v: Vec<u8> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().compose::<Flat>();
    /// assert_eq!((0..6).map(|i| t.get(i)).collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
    /// ```
    #[inline(always)]
    pub fn compose<B2: StaticLayout>(self) -> LayoutTensor<'a, T, Static<Composed<S, B2>>, A, Full> {
        Self::rebuild(self.ptr, self.byte_off, Static::new(), Full)
    }

    /// `coalesce(S)`: the same elements in the same 1-D order with the fewest modes.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(2,3):(1,2)");
    /// let mut v = [0u8; 6];
    /// assert_eq!(LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().coalesce().layout().to_string(), "6:1");
    /// ```
    #[inline(always)]
    pub fn coalesce(self) -> LayoutTensor<'a, T, Static<Coalesced<S>>, A, Full> {
        Self::rebuild(self.ptr, self.byte_off, Static::new(), Full)
    }

    /// Modes 1 and 0 swapped (a rank-2 transpose; [`Selected<S, 1, 0>`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(2,3):(3,1)");
    /// let mut v: Vec<u8> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap().transpose();
    /// assert_eq!(t.at([2, 1]), 5);
    /// ```
    #[inline(always)]
    pub fn transpose(self) -> LayoutTensor<'a, T, Static<Selected<S, 1, 0>>, A, Full> {
        Self::rebuild(self.ptr, self.byte_off, Static::new(), Full)
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace> LayoutTensor<'a, T, L, A, Full> {
    /// Slicing with free modes (`_` in `coord`): the view of the free modes at the fixed
    /// coordinates ([`cute_rs_layout::slice_and_offset`]); a run-time layout.
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::slice_and_offset`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::{IntTuple, Layout};
    /// let mut v: Vec<u32> = (0..12).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(3,4):(4,1)").unwrap()).unwrap();
    /// let row = t.slice(IntTuple::parse("(1,_)").unwrap()).unwrap();
    /// assert_eq!((0..4).map(|i| row.get(i)).collect::<Vec<_>>(), [4, 5, 6, 7]);
    /// ```
    pub fn slice(self, coord: IntTuple) -> Result<LayoutTensor<'a, T, Layout, A, Full>, LayoutError> {
        let (sub, off) = cute_rs_layout::slice_and_offset(coord, self.layout.layout())?;
        Ok(Self::rebuild(self.ptr, self.moved(off), sub, Full))
    }
}

impl<'a, T: Element, A: AddressSpace> LayoutTensor<'a, T, Layout, A, Full> {
    /// The view `layout ∘ b` (reshape, reorder); checked.
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::composition`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u8> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
    /// let flat = t.compose(Layout::parse("6:1").unwrap()).unwrap();
    /// assert_eq!(flat.get(1), 3);
    /// ```
    pub fn compose(self, b: Layout) -> Result<Self, LayoutError> {
        Ok(Self::rebuild(self.ptr, self.byte_off, cute_rs_layout::composition(self.layout, b)?, Full))
    }

    /// Modes `indices` in that order (permute / transpose; [`cute_rs_layout::select`]).
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::select`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u8> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
    /// assert_eq!(t.permute(&[1, 0]).unwrap().at([2, 1]), 5);
    /// ```
    pub fn permute(self, indices: &[usize]) -> Result<Self, LayoutError> {
        Ok(Self::rebuild(self.ptr, self.byte_off, cute_rs_layout::select(self.layout, indices)?, Full))
    }

    /// `coalesce(layout)`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// let mut v = [0u8; 6];
    /// let t = LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,3):(1,2)").unwrap()).unwrap();
    /// assert_eq!(t.coalesce().layout().to_string(), "6:1");
    /// ```
    pub fn coalesce(self) -> Self {
        Self::rebuild(self.ptr, self.byte_off, cute_rs_layout::coalesce(self.layout), Full)
    }

    /// CuTe's `local_tile` with a run-time tile shape `tile` (its modes' sizes) at tile coordinate
    /// `coord`.
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::zipped_divide_by_mode`] (an extent that does not divide; see
    /// [`tile_masked`](Self::tile_masked)); [`LayoutError::RankMismatch`] for a coordinate of the
    /// wrong rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(4,4):(4,1)").unwrap()).unwrap();
    /// let tile = t.tile(Layout::parse("(2,2)").unwrap(), [1, 1]).unwrap();
    /// assert_eq!(tile.at([1, 0]), 14);
    /// ```
    pub fn tile<const R: usize>(self, tile: Layout, coord: [i64; R]) -> Result<Self, LayoutError> {
        let z = divide_by_shape(self.layout, tile)?;
        let rest = z.mode(1)?;
        let m = Modes::of(rest);
        if m.rank != R {
            return Err(LayoutError::RankMismatch { op: "tile", expected: m.rank, found: R });
        }
        let off = coord_offset(&rest, &m, &coord);
        Ok(Self::rebuild(self.ptr, self.moved(off), z.mode(0)?, Full))
    }

    /// Mojo's `split`: part `i` of `count` equal parts along mode `axis`.
    ///
    /// # Errors
    /// [`LayoutError::InvalidArgument`] for `axis` past the rank or `i >= count`; the errors of
    /// [`tile`](Self::tile) (`count` must divide the mode).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u32> = (0..8).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(2,4):(4,1)").unwrap()).unwrap();
    /// let right = t.split(1, 2, 1).unwrap(); // columns 2..4
    /// assert_eq!(right.layout().to_string(), "(2,2):(4,1)");
    /// assert_eq!(right.at([1, 0]), 6);
    /// ```
    pub fn split(self, axis: usize, count: i64, i: i64) -> Result<Self, LayoutError> {
        let l = self.layout;
        let r = l.rank();
        if axis >= r || i >= count || i < 0 || count < 1 {
            return Err(LayoutError::InvalidArgument { op: "split", condition: "axis < rank and 0 <= i < count", value: axis as i64 });
        }
        let mut tile = Layout::empty();
        let mut coord = [0i64; cute_rs_layout::MAX_LEAVES];
        for k in 0..r {
            let size = l.mode(k)?.size();
            let ext = if k == axis { size / count } else { size };
            tile = tile.push(Layout::int(ext, 1)?)?;
            if k == axis {
                coord[k] = i;
            }
        }
        let z = divide_by_shape(l, tile)?;
        let rest = z.mode(1)?;
        let off = coord_offset(&rest, &Modes::of(rest), &coord[..r]);
        Ok(Self::rebuild(self.ptr, self.moved(off), z.mode(0)?, Full))
    }

    /// A view of `W`-element [`Vector`]s ([`vectorized`]); the base must be aligned for the vector.
    ///
    /// # Errors
    /// The errors of [`vectorized`]; [`LayoutError::InvalidArgument`] for a misaligned base.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{LayoutTensor, Vector};
    /// #[repr(align(16))] struct Buf([u32; 8]);
    /// let mut b = Buf([0, 1, 2, 3, 4, 5, 6, 7]);
    /// let v = LayoutTensor::new(&mut b.0, cute_rs_layout::Layout::parse("(2,4):(4,1)").unwrap()).unwrap().vectorize::<4>().unwrap();
    /// assert_eq!(v.get(1), Vector([4, 5, 6, 7]));
    /// ```
    pub fn vectorize<const W: usize>(self) -> Result<LayoutTensor<'a, Vector<T, W>, Layout, A, Full>, LayoutError> {
        let l = vectorized(self.layout, W as i64)?;
        if self.as_ptr() as usize % <Vector<T, W> as Element>::ALIGN != 0 {
            return Err(LayoutError::InvalidArgument { op: "vectorize", condition: "the base must be aligned for the vector", value: self.as_ptr() as i64 });
        }
        Ok(Self::rebuild(self.ptr as *mut Vector<T, W>, self.byte_off, l, Full))
    }

    /// CuTe's `local_partition` with a run-time thread layout (see the static
    /// [`distribute`](LayoutTensor::distribute)).
    ///
    /// # Errors
    /// The errors of [`cute_rs_layout::zipped_divide_by_mode`]; [`LayoutError::RankMismatch`] when `R` is
    /// not the thread layout's rank.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut v: Vec<u32> = (0..16).collect();
    /// let t = LayoutTensor::new(&mut v, Layout::parse("(4,4):(4,1)").unwrap()).unwrap();
    /// let f = t.distribute::<2>(Layout::parse("(2,2):(1,2)").unwrap(), 2).unwrap();
    /// assert_eq!((0..4).map(|i| f.get(i)).collect::<Vec<_>>(), [1, 9, 3, 11]);
    /// ```
    pub fn distribute<const R: usize>(self, threads: Layout, tid: usize) -> Result<Self, LayoutError> {
        let z = divide_by_shape(self.layout, threads)?;
        let tm = Modes::of(threads);
        if tm.rank != R {
            return Err(LayoutError::RankMismatch { op: "distribute", expected: tm.rank, found: R });
        }
        let c: [i64; R] = thread_coord(&threads, &tm, tid as i64);
        let origin = z.mode(0)?;
        let off = coord_offset(&origin, &Modes::of(origin), &c);
        Ok(Self::rebuild(self.ptr, self.moved(off), z.mode(1)?, Full))
    }
}
