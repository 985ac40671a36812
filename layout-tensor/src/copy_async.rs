//! Asynchronous global → shared copies between views: [`LayoutTensor::copy_from_async`] (Mojo's
//! `copy_from_async`, CuTe's `SM80_CP_ASYNC` copies) issues `cp.async` instructions
//! ([`crate::device::cp_async`]) and zero-fills what lies outside the source's bounds;
//! [`async_copy_wait_all`] waits for them.
//!
//! The copy is asynchronous per thread: the issuing thread sees the data after
//! [`async_copy_wait_all`] (or [`async_copy_commit_group`] then [`async_copy_wait_group`]), other
//! threads after a block barrier that follows the wait. On the CPU the copies happen at once.
//!
//! # Example
//! ```
//! use cute_rs_tensor::{async_copy_wait_all, static_layout, LayoutTensor, Shared, Static};
//! static_layout!(M = "(3,5):(1,3)"); // 3 x 5 column-major in global memory
//! static_layout!(T = "(4,4)");        // 4 x 4 tiles: the last row and column are partial
//! static_layout!(S = "(4,4):(1,4)");  // a shared 4 x 4 tile
//! let mut g: Vec<f32> = (1..=15).map(|x| x as f32).collect();
//! let mut s = [-1f32; 16];
//! let global = LayoutTensor::new(&mut g, Static::<M>::new()).unwrap();
//! let shared = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(s.as_mut_ptr(), Static::<S>::new()) };
//! shared.copy_from_async(&global.tile_masked::<T, 2>([0, 1])); // rows 0..3, columns 4..8
//! async_copy_wait_all();
//! assert_eq!(s[..4], [13., 14., 15., 0.]); // column 4, zero-filled below row 2
//! assert_eq!(s[4..], [0.; 12]);            // columns 5..8 do not exist
//! ```

use crate::copy::run_width;
use crate::device::cp_async::{cp_async_ca, cp_async_ca_zfill, cp_async_cg, cp_async_cg_zfill};
use crate::mask::Bounds;
use crate::static_layout::LayoutSource;
use crate::tensor::{Element, Global, LayoutTensor, Shared};

pub use crate::device::cp_async::{
    commit_group as async_copy_commit_group, wait_all as async_copy_wait_all, wait_group as async_copy_wait_group,
};

/// Issues one `cp.async` of `BYTES` (4, 8 or 16) bytes of which `src_bytes` are read (the rest
/// zero-filled); `whole` when `src_bytes == BYTES` is known, which needs no source-size operand.
/// 16-byte copies bypass L1 (`.cg`, data staged in shared memory is not read again from global);
/// smaller ones must use `.ca`.
#[inline(always)]
pub(crate) unsafe fn issue<const BYTES: u32>(dst: *mut u8, src: *const u8, src_bytes: u32, whole: bool) {
    // SAFETY: forwarded from the caller (see `cp_async_ca`).
    unsafe {
        match (BYTES, whole) {
            (16, true) => cp_async_cg::<16>(dst, src),
            (16, false) => cp_async_cg_zfill::<16>(dst, src, src_bytes),
            (_, true) => cp_async_ca::<BYTES>(dst, src),
            (_, false) => cp_async_ca_zfill::<BYTES>(dst, src, src_bytes),
        }
    }
}

impl<'a, T: Element, L: LayoutSource, B: Bounds> LayoutTensor<'a, T, L, Shared, B> {
    /// Starts copying `src` (global memory) into `self` (shared memory) element by element in 1-D
    /// index order, like [`copy_from`](LayoutTensor::copy_from), with `cp.async`: elements in
    /// `self`'s bounds but outside `src`'s (the overhang of a [`tile_masked`](LayoutTensor::tile_masked)
    /// tile) are zero-filled, elements outside `self`'s bounds are not written.
    ///
    /// How it is issued (decided at compile time for static layouts and [`Full`](crate::Full)
    /// bounds):
    /// * when both layouts keep runs of elements contiguous
    ///   ([`contiguous_width`](crate::copy::contiguous_width)), each run is cut into the widest
    ///   `cp.async` pieces (16, 8 or 4 bytes, more than one element) that divide it and that both
    ///   origins align: 1- and 2-byte elements are packed this way, and 4-byte ones too where the
    ///   origins align to less than a run. Each piece reads its in-bounds prefix and zero-fills the
    ///   rest (in bounds is a prefix: a run lies along the first leaf of mode 0). With a clipped
    ///   `self`, a piece that `self`'s bounds cut is copied element by element, synchronously;
    /// * otherwise one `cp.async` per element of 4, 8 or 16 bytes (a [`Vector`](crate::Vector) of
    ///   4 floats is one 16-byte copy);
    /// * 1- and 2-byte elements without runs of at least 4 bytes are copied synchronously
    ///   (`cp.async` moves 4 bytes or more).
    ///
    /// Nothing is committed or waited for: call [`async_copy_wait_all`] (or commit and wait by
    /// groups) before reading `self`, and a block barrier before other threads read it.
    ///
    /// # Panics
    /// When the sizes differ.
    ///
    /// # Example
    /// Mojo's pattern: each thread copies its fragment of vectors.
    /// ```
    /// use cute_rs_tensor::{async_copy_wait_all, static_layout, LayoutTensor, Shared, Static};
    /// static_layout!(G = "(4,8):(8,1)");
    /// static_layout!(Th = "(2,2):(2,1)");
    /// #[repr(align(16))] struct Buf([f32; 32]);
    /// let mut g = Buf(core::array::from_fn(|i| i as f32));
    /// let mut s = Buf([0.; 32]);
    /// let global = LayoutTensor::new(&mut g.0, Static::<G>::new()).unwrap().vectorize::<4>();
    /// let shared = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(s.0.as_mut_ptr(), Static::<G>::new()) }.vectorize::<4>();
    /// for tid in 0..4 {
    ///     shared.distribute::<Th, 2>(tid).copy_from_async(&global.distribute::<Th, 2>(tid));
    /// }
    /// async_copy_wait_all();
    /// assert_eq!(s.0, g.0);
    /// ```
    #[inline(always)]
    pub fn copy_from_async<L2: LayoutSource, B2: Bounds>(&self, src: &LayoutTensor<'_, T, L2, Global, B2>) {
        let n = self.size();
        assert!(n == src.size(), "copy_from_async: the tensors' sizes differ");
        let size = core::mem::size_of::<T>();
        let run = run_width::<T, L, L2>(&self.layout, &src.layout) as usize * size;
        let origins = self.as_ptr() as usize | src.as_ptr() as usize;
        // The widest piece that divides the runs, holds more than one element and is aligned.
        let fits = |bytes: usize| bytes > size && run % bytes == 0 && origins % bytes == 0;
        if fits(16) {
            return self.runs_async::<16, L2, B2>(src);
        }
        if fits(8) {
            return self.runs_async::<8, L2, B2>(src);
        }
        if fits(4) {
            return self.runs_async::<4, L2, B2>(src);
        }
        match size {
            16 => self.elements_async::<16, L2, B2>(src),
            8 => self.elements_async::<8, L2, B2>(src),
            4 => self.elements_async::<4, L2, B2>(src),
            _ => {
                for i in 0..n {
                    if self.contains(i) {
                        self.set(i, if src.contains(i) { src.get(i) } else { T::ZERO });
                    }
                }
            }
        }
    }

    /// One `cp.async` of `BYTES` per piece of `BYTES / size_of::<T>()` elements of a run; a piece
    /// that `self`'s bounds cut is copied element by element.
    #[inline(always)]
    fn runs_async<const BYTES: u32, L2: LayoutSource, B2: Bounds>(&self, src: &LayoutTensor<'_, T, L2, Global, B2>) {
        let size = core::mem::size_of::<T>();
        let w = BYTES as usize / size;
        let mut i = 0;
        while i < self.size() {
            if !B::FULL && !(0..w).all(|k| self.contains(i + k)) {
                for k in 0..w {
                    if self.contains(i + k) {
                        self.set(i + k, if src.contains(i + k) { src.get(i + k) } else { T::ZERO });
                    }
                }
                i += w;
                continue;
            }
            let dst = self.ptr_at(i) as *mut u8;
            // SAFETY: `dst` is a piece of `self` in bounds (shared, aligned: checked by the
            // caller); the source is either the piece (in bounds for its first `k` elements) or a
            // valid stand-in.
            unsafe {
                if B2::FULL {
                    issue::<BYTES>(dst, src.ptr_at(i) as *const u8, BYTES, true);
                } else {
                    let mut k = 0;
                    while k < w && src.contains(i + k) {
                        k += 1;
                    }
                    issue::<BYTES>(dst, source_or_base::<BYTES, _, _, _>(src, i, k > 0), (k * size) as u32, false);
                }
            }
            i += w;
        }
    }

    /// One `cp.async` of `BYTES == size_of::<T>()` per element in `self`'s bounds.
    #[inline(always)]
    fn elements_async<const BYTES: u32, L2: LayoutSource, B2: Bounds>(&self, src: &LayoutTensor<'_, T, L2, Global, B2>) {
        for i in 0..self.size() {
            if !self.contains(i) {
                continue;
            }
            let inside = src.contains(i);
            // SAFETY: elements are aligned to their size (4, 8, 16 bytes: `Element::ALIGN`).
            unsafe {
                issue::<BYTES>(
                    self.ptr_at(i) as *mut u8,
                    source_or_base::<BYTES, _, _, _>(src, i, inside),
                    if inside { BYTES } else { 0 },
                    B2::FULL,
                );
            }
        }
    }
}

/// The address a copy of element `i` reads from: the element's when it is in bounds, else the
/// source tensor's base pointer rounded down to `BYTES` (a copy that reads nothing still needs a
/// valid, aligned global address; the element's own may lie past the allocation).
#[inline(always)]
fn source_or_base<const BYTES: u32, T: Element, L: LayoutSource, B: Bounds>(
    src: &LayoutTensor<'_, T, L, Global, B>,
    i: usize,
    inside: bool,
) -> *const u8 {
    if inside {
        src.ptr_at(i) as *const u8
    } else {
        let base = src.ptr as *const u8;
        base.wrapping_sub(base as usize % BYTES as usize)
    }
}
