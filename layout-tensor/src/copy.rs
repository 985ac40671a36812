//! Copies between views: [`LayoutTensor::copy_from`] (any two layouts of the same size, element by
//! element in 1-D index order, vectorized when both layouts keep runs of elements contiguous,
//! predicated on partial tiles) and [`copy_partitioned`], the thread-aware copy of one thread's
//! fragment.

use cute_rs_layout::Layout;

use crate::mask::{Bounds, Full};
use crate::static_layout::{LayoutSource, Partition, Static, StaticLayout};
use crate::tensor::{vector_align, AddressSpace, Element, LayoutTensor};

/// The widest run (a power of two, at most `cap`) that `l` keeps contiguous and aligned at every
/// multiple of the run: its first leaf has stride 1 and an extent the run divides, and every other
/// stride (of extents above 1) is a multiple of it. 1 when there is none.
///
/// # Example
/// ```
/// use cute_rs_layout::Layout;
/// use cute_rs_tensor::copy::contiguous_width;
/// assert_eq!(contiguous_width(Layout::parse("(8,4):(1,8)").unwrap(), 4), 4);
/// assert_eq!(contiguous_width(Layout::parse("(6,4):(1,6)").unwrap(), 4), 2);
/// assert_eq!(contiguous_width(Layout::parse("(8,4):(4,1)").unwrap(), 4), 1);
/// ```
pub const fn contiguous_width(l: Layout, cap: i64) -> i64 {
    let shape = l.shape();
    let stride = l.stride();
    let (s, d) = (shape.leaves(), stride.leaves());
    if d[0] != 1 {
        return 1;
    }
    let mut w = cap;
    while w > 1 {
        let mut ok = s[0] % w == 0;
        let mut j = 1;
        while j < s.len() {
            if s[j] != 1 && d[j] % w != 0 {
                ok = false;
            }
            j += 1;
        }
        if ok {
            return w;
        }
        w /= 2;
    }
    1
}

/// The vector width (elements) `copy_from` uses between two layouts of elements of `bytes` bytes:
/// the common [`contiguous_width`] of both, capped at 16 bytes. `0` when unknown at compile time.
pub(crate) const fn common_width(a: Option<Layout>, b: Option<Layout>, bytes: usize) -> i64 {
    match (a, b) {
        (Some(a), Some(b)) => width_of(a, b, bytes),
        _ => 0,
    }
}

/// The run width (elements) of a copy between layouts `a` and `b` of `T`s: [`common_width`],
/// a constant when both layouts are static, else computed at run time.
#[inline(always)]
pub(crate) fn run_width<T, L: LayoutSource, L2: LayoutSource>(a: &L, b: &L2) -> i64 {
    let w = match const { common_width(L::STATIC, L2::STATIC, core::mem::size_of::<T>()) } {
        0 => width_of(a.layout(), b.layout(), core::mem::size_of::<T>()),
        w => w,
    };
    // Every width and cap is a power of two, so the smallest divides the others: a run that
    // both sources keep whole.
    w.min(a.run_cap()).min(b.run_cap())
}

pub(crate) const fn width_of(a: Layout, b: Layout, bytes: usize) -> i64 {
    let cap = if bytes == 0 || bytes > 16 { 1 } else { (16 / bytes) as i64 };
    let wa = contiguous_width(a, cap);
    let wb = contiguous_width(b, cap);
    if wa < wb {
        wa
    } else {
        wb
    }
}

impl<'a, T: Element, L: LayoutSource, A: AddressSpace, B: Bounds> LayoutTensor<'a, T, L, A, B> {
    /// Copies `src` into `self` element by element in 1-D index order (both must have the same
    /// size; their layouts may differ, so a copy can transpose or gather). With partial tiles
    /// ([`Clip`](crate::Clip) bounds on either side) only the indices in bounds of both are
    /// copied; with [`Full`] bounds there is no check. When both layouts keep runs of 2..16 bytes
    /// contiguous (see [`contiguous_width`]) and the bases are aligned, runs are copied as single
    /// vector accesses (decided at compile time for static layouts).
    ///
    /// # Panics
    /// When the sizes differ.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::LayoutTensor;
    /// use cute_rs_layout::Layout;
    /// let mut a: Vec<u32> = (0..6).collect();
    /// let mut b = vec![0u32; 6];
    /// let src = LayoutTensor::new(&mut a, Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
    /// let dst = LayoutTensor::new(&mut b, Layout::parse("(2,3):(1,2)").unwrap()).unwrap();
    /// dst.copy_from(&src); // row-major into column-major: a transpose of the storage
    /// assert_eq!(b, [0, 3, 1, 4, 2, 5]);
    /// ```
    #[inline(always)]
    pub fn copy_from<L2: LayoutSource, A2: AddressSpace, B2: Bounds>(&self, src: &LayoutTensor<'_, T, L2, A2, B2>) {
        let n = self.size();
        assert!(n == src.size(), "copy_from: the tensors' sizes differ");
        if !(B::FULL && B2::FULL) {
            for i in 0..n {
                if self.contains(i) && src.contains(i) {
                    self.set(i, src.get(i));
                }
            }
            return;
        }
        let w = run_width::<T, L, L2>(&self.layout, &src.layout);
        let aligned = (self.as_ptr() as usize | src.as_ptr() as usize) % vector_align(w as usize * core::mem::size_of::<T>()) == 0;
        match w {
            16 if aligned => self.copy_runs::<16, _, _>(src),
            8 if aligned => self.copy_runs::<8, _, _>(src),
            4 if aligned => self.copy_runs::<4, _, _>(src),
            2 if aligned => self.copy_runs::<2, _, _>(src),
            _ => {
                for i in 0..n {
                    self.set(i, src.get(i));
                }
            }
        }
    }

    #[inline(always)]
    fn copy_runs<const W: usize, L2: LayoutSource, A2: AddressSpace>(&self, src: &LayoutTensor<'_, T, L2, A2, impl Bounds>) {
        let mut i = 0;
        while i < self.size() {
            self.store::<W>(i, src.load::<W>(i));
            i += W;
        }
    }
}

/// The thread-aware copy: thread `tid` of the thread layout `Th` copies its fragment
/// ([`distribute`](LayoutTensor::distribute)) of `src` into its fragment of `dst` (Mojo's
/// `copy_dram_to_sram` family, CuTe's partitioned copy). Every thread of `Th` calling it copies the
/// whole tensor.
///
/// # Example
/// ```
/// use cute_rs_tensor::{copy_partitioned, static_layout, LayoutTensor, Static};
/// static_layout!(M = "(4,4):(4,1)");
/// static_layout!(Tr = "(4,4):(1,4)");
/// static_layout!(Th = "(2,2):(2,1)");
/// let mut a: Vec<u32> = (0..16).collect();
/// let mut b = vec![0u32; 16];
/// let src = LayoutTensor::new(&mut a, Static::<M>::new()).unwrap();
/// let dst = LayoutTensor::new(&mut b, Static::<Tr>::new()).unwrap();
/// for tid in 0..4 {
///     copy_partitioned::<Th, 2, _, _, _, _, _>(&dst, &src, tid);
/// }
/// assert_eq!(b[1], 4); // dst is column-major: b = transpose(a)
/// ```
#[inline(always)]
pub fn copy_partitioned<Th: StaticLayout, const R: usize, T: Element, S: StaticLayout, D: StaticLayout, A: AddressSpace, A2: AddressSpace>(
    dst: &LayoutTensor<'_, T, Static<D>, A, Full>,
    src: &LayoutTensor<'_, T, Static<S>, A2, Full>,
    tid: usize,
) {
    let d: LayoutTensor<'_, T, Static<Partition<D, Th>>, A, Full> = dst.distribute::<Th, R>(tid);
    let s: LayoutTensor<'_, T, Static<Partition<S, Th>>, A2, Full> = src.distribute::<Th, R>(tid);
    d.copy_from(&s);
}

impl<'a, T: Element, D: StaticLayout, A: AddressSpace> LayoutTensor<'a, T, Static<D>, A, Full> {
    /// [`copy_partitioned`] as a method of the destination: thread `tid` of the thread layout `Th`
    /// (of rank `R`) copies its fragment of `src` into its fragment of `self`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(4,4):(4,1)");
    /// static_layout!(Th = "(4,4):(4,1)");
    /// let mut a: Vec<u32> = (0..16).collect();
    /// let mut b = vec![0u32; 16];
    /// let src = LayoutTensor::new(&mut a, Static::<M>::new()).unwrap();
    /// let dst = LayoutTensor::new(&mut b, Static::<M>::new()).unwrap();
    /// dst.copy_partitioned_from::<Th, 2, _, _>(&src, 5); // thread 5 copies element (1,1)
    /// assert_eq!(b[5], 5);
    /// assert_eq!(b.iter().filter(|&&x| x != 0).count(), 1);
    /// ```
    #[inline(always)]
    pub fn copy_partitioned_from<Th: StaticLayout, const R: usize, S: StaticLayout, A2: AddressSpace>(
        &self,
        src: &LayoutTensor<'_, T, Static<S>, A2, Full>,
        tid: usize,
    ) {
        copy_partitioned::<Th, R, T, S, D, A, A2>(self, src, tid)
    }
}
