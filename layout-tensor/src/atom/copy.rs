//! Copy atoms (CuTe's `Copy_Atom`): one copy instruction and how its threads' source values relate
//! to their destination values; and the tiled copies that feed a [`TiledMma`]'s fragments
//! (CuTe's `make_tiled_copy_A` / `make_tiled_copy_B`).
//!
//! | atom | instruction | source of a thread's values |
//! | --- | --- | --- |
//! | [`UniversalCopy`] | one element load and store | its own positions |
//! | [`SM75_U32x4_LDSM_N`] (x1, x2) | `ldmatrix.x4` | rows of 8 elements, given by lanes `8q + r` |
//! | [`SM75_U16x8_LDSM_T`] (x2, x4) | `ldmatrix.x4.trans` | the same, transposed |
//! | [`SM90_U32x4_STSM_N`] (x1, x2) | `stmatrix.x4` | its registers; destination rows of 8 elements, given by lanes `8q + r` |
//! | [`SM90_U16x8_STSM_T`] (x2, x4) | `stmatrix.x4.trans` | the same, transposed |
//! | [`SM80_CP_ASYNC_CACHEGLOBAL_ZFILL`] | `cp.async.cg` 16 bytes, zero-fill | its own positions (global) |
//! | [`SM80_CP_ASYNC_CACHEALWAYS_ZFILL`] | `cp.async.ca` 4, 8 or 16 bytes, zero-fill | its own positions (global) |
//! | [`VectorCopy`] | one 4-, 8- or 16-byte load and store | its own positions |
//! | [`GlobalLoadNc`] | `ld.global.nc` 4, 8 or 16 bytes with an L1 hint, into registers | its own positions (global) |
//! | [`GlobalStore`] | `st.global` 4, 8 or 16 bytes with a cache hint, from registers | its own positions |
//!
//! # `ldmatrix`'s source from the destination
//! A tiled copy for an MMA operand writes the thread's values exactly where the tiled MMA's
//! fragment wants them: its destination layout *is* the MMA's thread-block layout
//! ([`TiledMma::block_tv`]). For `ldmatrix`, register `q` of lane `l` holds elements
//! `register(l, h)` (row `r` + 8 column `c`) of matrix `q`, and lane `8q + r` gives the address
//! of row `r` of matrix `q`. So where lane `8q + r`'s 8 source values lie in the block follows
//! from the destination: value `c` is the position the destination gives to the (lane, half)
//! holding element `(r, c)`. [`matrix_source`] computes that layout, and refuses destinations
//! whose matrix rows are not contiguous runs of the block.
//!
//! ```
//! use cute_rs_tensor::atom::copy::matrix_source;
//! use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN as Atom};
//! use cute_rs_tensor::device::mma::{LDMATRIX_8X8, LDMATRIX_X4_A_ROWS};
//! // The m16n8k16 A fragment from a K-major tile: lane l gives row LDMATRIX_X4_A_ROWS(l),
//! // 8 values along K (stride 16 in the m + 16 k index).
//! let src = matrix_source(LDMATRIX_8X8, 4, Atom::LAYOUT_A).unwrap();
//! assert!((0..32).all(|l| src.call(l) == LDMATRIX_X4_A_ROWS.call(l)));
//! assert_eq!(src.call(32 * 3) - src.call(0), 3 * 16);
//! ```

#![allow(non_camel_case_types)]

use core::marker::PhantomData;
use cute_rs_layout::{right_inverse, unwrap, IntTuple, Layout, LayoutError};

use super::mma::MmaAtom;
use super::tiled_mma::{partition_by_tv, tile_tv, Operand, TiledMma};
use crate::device::cp_async::{cp_async_ca, cp_async_ca_zfill, cp_async_cg, cp_async_cg_zfill};
use crate::device::memory::{load_nc, store, NcLoadCache, StoreCache};
use crate::device::mma::{self as instr, LDMATRIX_8X8, LDMATRIX_8X8_TRANS};
use crate::device::unroll::{unroll_for, TripCount};
use crate::mask::Full;
use crate::static_layout::{LayoutSource, ModeSize, StaticLayout};
use crate::static_view::StaticView;
use crate::tensor::{AddressSpace, Element, LayoutTensor};


/// Where a copy atom's threads read their values, given where they write them.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, Source, UniversalCopy};
/// assert!(matches!(<UniversalCopy as CopyAtom<f32>>::SOURCE, Source::Own));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// Each thread reads its values at the positions it writes them.
    Own,
    /// `ldmatrix`: `count` 8x8 matrices of 16-bit elements, each lane's register `q` holding
    /// `register(lane, half)` (`row + 8 column`) of matrix `q`; lane `8q + r` gives row `r` of
    /// matrix `q` ([`matrix_source`]).
    Matrices {
        /// `(T32, V2) -> row + 8 column` of one matrix.
        register: Layout,
        /// Matrices per instruction: 1, 2 or 4.
        count: usize,
    },
}

/// A copy instruction: [`THREADS`](CopyAtom::THREADS) threads each move [`VALUES`](CopyAtom::VALUES)
/// values of `T`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U32x4_LDSM_N};
/// assert_eq!(<SM75_U32x4_LDSM_N as CopyAtom<u16>>::VALUES, 8);
/// ```
pub trait CopyAtom<T: Element>: Copy + Default {
    /// Threads executing the instruction together.
    const THREADS: i64;
    /// Values each thread writes.
    const VALUES: usize;
    /// Where the values come from.
    const SOURCE: Source;
    /// Where the values go, in the same terms: [`Source::Own`] (the thread's own positions) for
    /// every atom but `stmatrix`, whose lanes `8q + r` give the destination rows of its matrices
    /// ([`Source::Matrices`]) as `ldmatrix`'s give its source rows.
    const DESTINATION: Source = Source::Own;
    /// Copies one thread's values: `src` is its first source value (the others follow at
    /// consecutive addresses for [`Source::Matrices`], and are `src` itself for one value),
    /// `dst` its destination values in value order.
    ///
    /// # Safety
    /// `src` and `dst` are valid and aligned for the values; for `ldmatrix`, `src` is in shared
    /// memory, 16-byte aligned, and the whole warp calls it together.
    unsafe fn copy(src: *const T, dst: *mut T);

    /// Copies the first `valid` values from `src` and writes zeros for the others: a copy that
    /// hangs over a tensor's edge ([`copy_if`](super::tiled_copy::copy_if)). For atoms whose
    /// values are consecutive at both ends ([`Source::Own`]). The default copies value by value;
    /// `cp.async` atoms zero-fill in the instruction.
    ///
    /// # Safety
    /// As [`copy`](CopyAtom::copy), for the first `valid` source values only; `src` is not read
    /// when `valid` is 0 (it must still be a valid address for `cp.async`).
    #[inline(always)]
    unsafe fn copy_zfill(src: *const T, dst: *mut T, valid: usize) {
        let mut v = 0;
        while v < Self::VALUES {
            T::write(dst.add(v), if v < valid { T::read(src.add(v)) } else { T::ZERO });
            v += 1;
        }
    }
}

/// One element, read and written by one thread (CuTe's `UniversalCopy<T>`).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, UniversalCopy};
/// let (a, mut b) = (7u8, 0u8);
/// unsafe { <UniversalCopy as CopyAtom<u8>>::copy(&a, &mut b) };
/// assert_eq!(b, 7);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct UniversalCopy;

impl<T: Element> CopyAtom<T> for UniversalCopy {
    const THREADS: i64 = 1;
    const VALUES: usize = 1;
    const SOURCE: Source = Source::Own;
    #[inline(always)]
    unsafe fn copy(src: *const T, dst: *mut T) {
        T::write(dst, T::read(src));
    }
}

/// `cp.async.cg` of 16 bytes, global to shared, cached in L2 only, with zero-fill (CuTe's
/// `SM80_CP_ASYNC_CACHEGLOBAL_ZFILL<uint128_t>`): one thread moves `16 / size_of::<T>()`
/// consecutive values. Completion is per thread, through the `cp.async` groups
/// ([`commit_group`](crate::device::cp_async::commit_group),
/// [`wait_group`](crate::device::cp_async::wait_group)).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, SM80_CP_ASYNC_CACHEGLOBAL_ZFILL};
/// let src = [1u16, 2, 3, 4, 5, 6, 7, 8];
/// let mut dst = [9u16; 8];
/// // The CPU backend copies at once; 3 values are read, 5 zero-filled.
/// unsafe { <SM80_CP_ASYNC_CACHEGLOBAL_ZFILL as CopyAtom<u16>>::copy_zfill(src.as_ptr(), dst.as_mut_ptr(), 3) };
/// assert_eq!(dst, [1, 2, 3, 0, 0, 0, 0, 0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;

impl<T: Element> CopyAtom<T> for SM80_CP_ASYNC_CACHEGLOBAL_ZFILL {
    const THREADS: i64 = 1;
    const VALUES: usize = 16 / core::mem::size_of::<T>();
    const SOURCE: Source = Source::Own;
    #[inline(always)]
    unsafe fn copy(src: *const T, dst: *mut T) {
        cp_async_cg::<16>(dst as *mut u8, src as *const u8);
    }
    #[inline(always)]
    unsafe fn copy_zfill(src: *const T, dst: *mut T, valid: usize) {
        cp_async_cg_zfill::<16>(dst as *mut u8, src as *const u8, (valid * core::mem::size_of::<T>()) as u32);
    }
}

/// `cp.async.ca` of `BYTES` (4, 8 or 16), global to shared, cached in L1 and L2, with zero-fill
/// (CuTe's `SM80_CP_ASYNC_CACHEALWAYS_ZFILL<S>`): one thread moves `BYTES / size_of::<T>()`
/// consecutive values; 1- and 2-byte elements travel packed.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, SM80_CP_ASYNC_CACHEALWAYS_ZFILL};
/// assert_eq!(<SM80_CP_ASYNC_CACHEALWAYS_ZFILL<4> as CopyAtom<u8>>::VALUES, 4);
/// let src = [1u8, 2, 3, 4];
/// let mut dst = [0u8; 4];
/// unsafe { <SM80_CP_ASYNC_CACHEALWAYS_ZFILL<4> as CopyAtom<u8>>::copy(src.as_ptr(), dst.as_mut_ptr()) };
/// assert_eq!(dst, src);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SM80_CP_ASYNC_CACHEALWAYS_ZFILL<const BYTES: u32>;

impl<T: Element, const BYTES: u32> CopyAtom<T> for SM80_CP_ASYNC_CACHEALWAYS_ZFILL<BYTES> {
    const THREADS: i64 = 1;
    const VALUES: usize = {
        assert!(BYTES as usize % core::mem::size_of::<T>() == 0, "cp.async: the copy's bytes must be whole elements");
        BYTES as usize / core::mem::size_of::<T>()
    };
    const SOURCE: Source = Source::Own;
    #[inline(always)]
    unsafe fn copy(src: *const T, dst: *mut T) {
        cp_async_ca::<BYTES>(dst as *mut u8, src as *const u8);
    }
    #[inline(always)]
    unsafe fn copy_zfill(src: *const T, dst: *mut T, valid: usize) {
        cp_async_ca_zfill::<BYTES>(dst as *mut u8, src as *const u8, (valid * core::mem::size_of::<T>()) as u32);
    }
}

/// The 16 bytes of a 128-bit access, aligned to 16 so that a copy of it is one vector load or
/// store.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Words16([u32; 4]);

/// Values of `T` in an access of `BYTES`, refusing widths no single access has.
const fn values_in<T>(bytes: usize) -> usize {
    assert!(bytes == 4 || bytes == 8 || bytes == 16, "vector copy: an access moves 4, 8 or 16 bytes");
    assert!(bytes % core::mem::size_of::<T>() == 0, "vector copy: the access's bytes must be whole elements");
    bytes / core::mem::size_of::<T>()
}

/// One access of `BYTES` (4, 8 or 16) per thread, in any address space (CuTe's
/// `UniversalCopy<uint32_t>`, `<uint64_t>`, `<uint128_t>`): `BYTES / size_of::<T>()` consecutive
/// values, whose first address at both ends is aligned to `BYTES`. On the GPU a 16-byte copy is
/// one `ld.v4.b32` and one `st.v4.b32`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, VectorCopy};
/// assert_eq!(<VectorCopy<16> as CopyAtom<u16>>::VALUES, 8);
/// #[repr(align(16))] struct A([f32; 4]);
/// let (src, mut dst) = (A([1.0, 2.0, 3.0, 4.0]), A([0.0; 4]));
/// unsafe { <VectorCopy<16> as CopyAtom<f32>>::copy(src.0.as_ptr(), dst.0.as_mut_ptr()) };
/// assert_eq!(dst.0, src.0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct VectorCopy<const BYTES: usize>;

impl<T: Element, const BYTES: usize> CopyAtom<T> for VectorCopy<BYTES> {
    const THREADS: i64 = 1;
    const VALUES: usize = values_in::<T>(BYTES);
    const SOURCE: Source = Source::Own;
    #[inline(always)]
    unsafe fn copy(src: *const T, dst: *mut T) {
        let _ = <Self as CopyAtom<T>>::VALUES;
        match BYTES {
            4 => *(dst as *mut u32) = *(src as *const u32),
            8 => *(dst as *mut u64) = *(src as *const u64),
            16 => *(dst as *mut Words16) = *(src as *const Words16),
            _ => unreachable!(),
        }
    }
}

/// A non-coherent global load of `BYTES` (4, 8 or 16) per thread, `ld.global.nc` with the L1
/// behaviour `C` (a cache operator or an eviction priority,
/// [`NcLoadCache`](crate::device::memory::NcLoadCache)), into registers: for data no thread of the
/// kernel writes, such as a copy's or a GEMM's input. A streaming copy reads with
/// [`EvictFirst`](crate::device::memory::EvictFirst) so that the data it passes once leaves L1
/// first.
///
/// # Parameters
/// - `C`: the L1 behaviour.
/// - `BYTES`: the access's width; both addresses are aligned to it (a register fragment's atoms
///   are: fragments are 16-byte aligned).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, GlobalLoadNc};
/// use cute_rs_tensor::device::memory::EvictFirst;
/// #[repr(align(16))] struct A([u32; 4]);
/// let (src, mut dst) = (A([1, 2, 3, 4]), A([0; 4]));
/// unsafe { <GlobalLoadNc<EvictFirst, 16> as CopyAtom<u32>>::copy(src.0.as_ptr(), dst.0.as_mut_ptr()) };
/// assert_eq!(dst.0, [1, 2, 3, 4]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobalLoadNc<C, const BYTES: usize = 16>(PhantomData<C>);

impl<T: Element, C: NcLoadCache + Default, const BYTES: usize> CopyAtom<T> for GlobalLoadNc<C, BYTES> {
    const THREADS: i64 = 1;
    const VALUES: usize = values_in::<T>(BYTES);
    const SOURCE: Source = Source::Own;
    #[inline(always)]
    unsafe fn copy(src: *const T, dst: *mut T) {
        let _ = <Self as CopyAtom<T>>::VALUES;
        let (s, d) = (src as *const u8, dst as *mut u8);
        match BYTES {
            4 => *(d as *mut u32) = load_nc(s as *const u32, C::default()),
            8 => *(d as *mut u64) = load_nc(s as *const u64, C::default()),
            16 => *(d as *mut Words16) = Words16(load_nc(s as *const [u32; 4], C::default())),
            _ => unreachable!(),
        }
    }
    /// The whole access when every value is valid; otherwise value by value.
    #[inline(always)]
    unsafe fn copy_zfill(src: *const T, dst: *mut T, valid: usize) {
        if valid == <Self as CopyAtom<T>>::VALUES {
            <Self as CopyAtom<T>>::copy(src, dst);
        } else {
            for v in 0..<Self as CopyAtom<T>>::VALUES {
                T::write(dst.add(v), if v < valid { T::read(src.add(v)) } else { T::ZERO });
            }
        }
    }
}

/// A global store of `BYTES` (4, 8 or 16) per thread from registers, `st.global` with the cache
/// behaviour `C` ([`StoreCache`](crate::device::memory::StoreCache)): a streaming copy writes with
/// [`Cs`](crate::device::memory::Cs), data read once more soon with the default
/// [`Wb`](crate::device::memory::Wb).
///
/// # Parameters
/// - `C`: the cache behaviour.
/// - `BYTES`: the access's width; both addresses are aligned to it.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyAtom, GlobalStore};
/// use cute_rs_tensor::device::memory::Cs;
/// #[repr(align(8))] struct A([f32; 2]);
/// let (src, mut dst) = (A([5.0f32, 6.0]), A([0.0; 2]));
/// unsafe { <GlobalStore<Cs, 8> as CopyAtom<f32>>::copy(src.0.as_ptr(), dst.0.as_mut_ptr()) };
/// assert_eq!(dst.0, [5.0, 6.0]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobalStore<C, const BYTES: usize = 16>(PhantomData<C>);

impl<T: Element, C: StoreCache + Default, const BYTES: usize> CopyAtom<T> for GlobalStore<C, BYTES> {
    const THREADS: i64 = 1;
    const VALUES: usize = values_in::<T>(BYTES);
    const SOURCE: Source = Source::Own;
    #[inline(always)]
    unsafe fn copy(src: *const T, dst: *mut T) {
        let _ = <Self as CopyAtom<T>>::VALUES;
        let (s, d) = (src as *const u8, dst as *mut u8);
        match BYTES {
            4 => store(d as *mut u32, *(s as *const u32), C::default()),
            8 => store(d as *mut u64, *(s as *const u64), C::default()),
            16 => store(d as *mut [u32; 4], (*(s as *const Words16)).0, C::default()),
            _ => unreachable!(),
        }
    }
}

/// The `ldmatrix` (`load`) and `stmatrix` (`store`) atoms: 32 lanes, two 16-bit values per
/// matrix each, the lanes `8q + r` giving the rows of the shared-memory side.
macro_rules! matrix_atoms {
    ($dir:ident: $($(#[$doc:meta])* $name:ident: $count:literal, $register:expr, $instr:path;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl<T: Element> CopyAtom<T> for $name {
            const THREADS: i64 = 32;
            const VALUES: usize = 2 * $count;
            const SOURCE: Source = matrix_atoms!(@source $dir, $register, $count);
            const DESTINATION: Source = matrix_atoms!(@destination $dir, $register, $count);
            #[inline(always)]
            unsafe fn copy(src: *const T, dst: *mut T) {
                const { assert!(core::mem::size_of::<T>() == 2, "ldmatrix and stmatrix move 16-bit elements") };
                matrix_atoms!(@copy $dir, $instr, $count, src, dst);
            }
        }
    )*};
    (@source load, $register:expr, $count:literal) => { Source::Matrices { register: $register, count: $count } };
    (@source store, $register:expr, $count:literal) => { Source::Own };
    (@destination load, $register:expr, $count:literal) => { Source::Own };
    (@destination store, $register:expr, $count:literal) => { Source::Matrices { register: $register, count: $count } };
    (@copy load, $instr:path, $count:literal, $src:ident, $dst:ident) => {
        *($dst as *mut [u32; $count]) = $instr($src as *const u16)
    };
    (@copy store, $instr:path, $count:literal, $src:ident, $dst:ident) => {
        $instr($dst as *mut u16, core::ptr::read_unaligned($src as *const [u32; $count]))
    };
}

matrix_atoms! {
    load:
    /// `ldmatrix.x1`: one 8x8 matrix of 16-bit elements per warp (CuTe's `SM75_U32x1_LDSM_N`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U32x1_LDSM_N};
    /// assert_eq!(<SM75_U32x1_LDSM_N as CopyAtom<u16>>::VALUES, 2);
    /// ```
    SM75_U32x1_LDSM_N: 1, LDMATRIX_8X8, instr::ldmatrix_x1;
    /// `ldmatrix.x2` (CuTe's `SM75_U32x2_LDSM_N`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U32x2_LDSM_N};
    /// assert_eq!(<SM75_U32x2_LDSM_N as CopyAtom<u16>>::VALUES, 4);
    /// ```
    SM75_U32x2_LDSM_N: 2, LDMATRIX_8X8, instr::ldmatrix_x2;
    /// `ldmatrix.x4` (CuTe's `SM75_U32x4_LDSM_N`): the A fragment of m16n8k16, or two B fragments.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U32x4_LDSM_N};
    /// assert_eq!(<SM75_U32x4_LDSM_N as CopyAtom<u16>>::VALUES, 8);
    /// ```
    SM75_U32x4_LDSM_N: 4, LDMATRIX_8X8, instr::ldmatrix_x4;
    /// `ldmatrix.x1.trans` (CuTe's `SM75_U16x2_LDSM_T`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U16x2_LDSM_T};
    /// assert_eq!(<SM75_U16x2_LDSM_T as CopyAtom<u16>>::VALUES, 2);
    /// ```
    SM75_U16x2_LDSM_T: 1, LDMATRIX_8X8_TRANS, instr::ldmatrix_x1_trans;
    /// `ldmatrix.x2.trans` (CuTe's `SM75_U16x4_LDSM_T`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U16x4_LDSM_T};
    /// assert_eq!(<SM75_U16x4_LDSM_T as CopyAtom<u16>>::VALUES, 4);
    /// ```
    SM75_U16x4_LDSM_T: 2, LDMATRIX_8X8_TRANS, instr::ldmatrix_x2_trans;
    /// `ldmatrix.x4.trans` (CuTe's `SM75_U16x8_LDSM_T`): fragments from M/N-major tiles.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM75_U16x8_LDSM_T};
    /// assert_eq!(<SM75_U16x8_LDSM_T as CopyAtom<u16>>::VALUES, 8);
    /// ```
    SM75_U16x8_LDSM_T: 4, LDMATRIX_8X8_TRANS, instr::ldmatrix_x4_trans;
}

matrix_atoms! {
    store:
    /// `stmatrix.x1`: one 8x8 matrix of 16-bit elements per warp, from registers to shared
    /// memory (CuTe's `SM90_U32x1_STSM_N`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM90_U32x1_STSM_N};
    /// assert_eq!(<SM90_U32x1_STSM_N as CopyAtom<u16>>::VALUES, 2);
    /// ```
    SM90_U32x1_STSM_N: 1, LDMATRIX_8X8, instr::stmatrix_x1;
    /// `stmatrix.x2` (CuTe's `SM90_U32x2_STSM_N`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM90_U32x2_STSM_N};
    /// assert_eq!(<SM90_U32x2_STSM_N as CopyAtom<u16>>::VALUES, 4);
    /// ```
    SM90_U32x2_STSM_N: 2, LDMATRIX_8X8, instr::stmatrix_x2;
    /// `stmatrix.x4` (CuTe's `SM90_U32x4_STSM_N`): an m16n16 piece of an MMA accumulator,
    /// converted to 16 bits, into a shared tile (an epilogue's staging buffer).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM90_U32x4_STSM_N};
    /// assert_eq!(<SM90_U32x4_STSM_N as CopyAtom<u16>>::VALUES, 8);
    /// ```
    SM90_U32x4_STSM_N: 4, LDMATRIX_8X8, instr::stmatrix_x4;
    /// `stmatrix.x1.trans` (CuTe's `SM90_U16x2_STSM_T`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM90_U16x2_STSM_T};
    /// assert_eq!(<SM90_U16x2_STSM_T as CopyAtom<u16>>::VALUES, 2);
    /// ```
    SM90_U16x2_STSM_T: 1, LDMATRIX_8X8_TRANS, instr::stmatrix_x1_trans;
    /// `stmatrix.x2.trans` (CuTe's `SM90_U16x4_STSM_T`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM90_U16x4_STSM_T};
    /// assert_eq!(<SM90_U16x4_STSM_T as CopyAtom<u16>>::VALUES, 4);
    /// ```
    SM90_U16x4_STSM_T: 2, LDMATRIX_8X8_TRANS, instr::stmatrix_x2_trans;
    /// `stmatrix.x4.trans` (CuTe's `SM90_U16x8_STSM_T`): an accumulator piece into an
    /// M-major tile.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{CopyAtom, SM90_U16x8_STSM_T};
    /// assert_eq!(<SM90_U16x8_STSM_T as CopyAtom<u16>>::VALUES, 8);
    /// ```
    SM90_U16x8_STSM_T: 4, LDMATRIX_8X8_TRANS, instr::stmatrix_x4_trans;
}

/// The source layout `(T32, V8) -> block index` of an `ldmatrix` of `count` matrices whose
/// destination layout is `dst` (`(T32, V2count) -> block index`, value `2q + h` the half `h` of
/// register `q`): lane `8q + r`'s value `c` is at `dst(l, 2q + h)` where `register(l, h)` is
/// element `(r, c)`. Lanes past `8 count` repeat the first ones (their addresses are ignored).
///
/// # Errors
/// [`LayoutError::InvalidArgument`] when `dst` does not have 32 threads and `2 count` values, or
/// when the positions of a lane's 8 values are not a run of equal steps, or the lanes' first
/// positions not a layout of the lane bits.
///
/// # Example
/// See the [module documentation](self).
pub const fn matrix_source(register: Layout, count: usize, dst: Layout) -> Result<Layout, LayoutError> {
    if dst.size() != 32 * 2 * count as i64 || tri!(dst.mode(0)).size() != 32 {
        return Err(LayoutError::InvalidArgument {
            op: "make_tiled_copy",
            condition: "an ldmatrix destination must have 32 threads and 2 values per matrix",
            value: dst.size(),
        });
    }
    let inv = right_inverse(register);
    let base = source_at(inv, count, dst, 0, 0);
    let step = source_at(inv, count, dst, 0, 1) - base;
    let mut lane_strides = [0i64; 5];
    let mut b = 0;
    while b < 5 {
        lane_strides[b] = source_at(inv, count, dst, 1 << b, 0) - base;
        b += 1;
    }
    let mut lane = 0;
    while lane < 32 {
        let mut first = base;
        let mut b = 0;
        while b < 5 {
            if lane & (1 << b) != 0 {
                first += lane_strides[b];
            }
            b += 1;
        }
        let mut c = 0;
        while c < 8 {
            if source_at(inv, count, dst, lane, c) != first + step * c {
                return Err(LayoutError::InvalidArgument {
                    op: "make_tiled_copy",
                    condition: "each ldmatrix row must be a run of equal steps in the block, and the rows a layout of the lanes",
                    value: lane,
                });
            }
            c += 1;
        }
        lane += 1;
    }
    if base != 0 {
        return Err(LayoutError::InvalidArgument { op: "make_tiled_copy", condition: "lane 0's first value must be at the block's origin", value: base });
    }
    let threads = tri!(Layout::new(
        tri!(IntTuple::from_slice(&[2, 2, 2, 2, 2])),
        tri!(IntTuple::from_slice(&lane_strides)),
    ));
    cute_rs_layout::make_layout(&[threads, tri!(Layout::int(8, step))])
}

/// The block position of lane `lane`'s source value `c` (see [`matrix_source`]): `inv` is the
/// inverse of the matrix register layout.
const fn source_at(inv: Layout, count: usize, dst: Layout, lane: i64, c: i64) -> i64 {
    let (q, r) = ((lane / 8) % count as i64, lane % 8);
    let lh = inv.call(r + 8 * c);
    dst.call(lh % 32 + 32 * (2 * q + lh / 32))
}

/// The source thread-value layout of copy atom `C` writing the block layout `dst`.
const fn source_tv(source: Source, dst: Layout) -> Layout {
    match source {
        Source::Own => dst,
        Source::Matrices { register, count } => unwrap!(matrix_source(register, count, dst)),
    }
}

/// A tiled copy (an MMA operand's, [`MmaCopy`], or a thread-value tiling of an atom,
/// [`TiledCopy`](super::tiled_copy::TiledCopy)): [`copy`] needs its atom.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{make_tiled_copy_a, TiledCopyAtom, UniversalCopy};
/// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
/// use cute_rs_tensor::static_layout;
/// static_layout!(G = "(2,2,1)");
/// fn atom_of<TC: TiledCopyAtom>(_: TC) -> &'static str { std::any::type_name::<TC::Atom>() }
/// assert!(atom_of(make_tiled_copy_a::<UniversalCopy, _, _, _>(TiledMma::<UniversalFma<f32>, G>::default())).ends_with("UniversalCopy"));
/// ```
pub trait TiledCopyAtom: Copy {
    /// The copy instruction.
    type Atom;
}


/// A tiled copy that fills operand `OP` (0: A, 1: B) of a [`TiledMma`] with the copy atom `C`
/// (CuTe's `make_tiled_copy_A` / `make_tiled_copy_B`): each thread's destination values are its
/// MMA fragment's, so [`retile_d`](ThrCopy::retile_d) of a fragment is the fragment.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{make_tiled_copy_a, SM75_U32x4_LDSM_N};
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::static_layout;
/// static_layout!(Warps = "(2,4,1)");
/// let s2r = make_tiled_copy_a::<SM75_U32x4_LDSM_N, _, _, _>(TiledMma::<Atom, Warps>::default());
/// // Lane 9 of warp 1 (wm 1) points at row 16 + 8 + 1 of the A tile, k 0.
/// assert_eq!(s2r.src_tv::<u16>().call(32 + 9), 16 + 9);
/// ```
pub struct MmaCopy<C, Atom, Groups, Values, const OP: usize>(PhantomData<(C, Atom, Groups, Values)>);

impl<C, Atom, Groups, Values, const OP: usize> Clone for MmaCopy<C, Atom, Groups, Values, OP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Atom, Groups, Values, const OP: usize> Copy for MmaCopy<C, Atom, Groups, Values, OP> {}
impl<C, Atom, Groups, Values, const OP: usize> TiledCopyAtom for MmaCopy<C, Atom, Groups, Values, OP> {
    type Atom = C;
}

/// CuTe's `make_tiled_copy_A(atom, tiled_mma)`: `C` loads A's fragments of `mma`.
///
/// # Example
/// See [`MmaCopy`].
#[inline(always)]
pub fn make_tiled_copy_a<C, Atom, Groups, Values>(_mma: TiledMma<Atom, Groups, Values>) -> MmaCopy<C, Atom, Groups, Values, 0> {
    MmaCopy(PhantomData)
}

/// CuTe's `make_tiled_copy_B(atom, tiled_mma)`: `C` loads B's fragments of `mma`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{make_tiled_copy_b, SM75_U32x4_LDSM_N};
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::static_layout;
/// static_layout!(Warps = "(2,4,1)");
/// static_layout!(TwoN = "(1,2,1)"); // two atoms along N: one ldmatrix.x4 feeds both
/// let s2r = make_tiled_copy_b::<SM75_U32x4_LDSM_N, _, _, _>(TiledMma::<Atom, Warps, TwoN>::default());
/// // Lane 17 points at matrix 2: n 8 + 1, k 0.
/// assert_eq!(s2r.src_tv::<u16>().call(17), 9);
/// ```
#[inline(always)]
pub fn make_tiled_copy_b<C, Atom, Groups, Values>(_mma: TiledMma<Atom, Groups, Values>) -> MmaCopy<C, Atom, Groups, Values, 1> {
    MmaCopy(PhantomData)
}

impl<C, Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, const OP: usize> MmaCopy<C, Atom, Groups, Values, OP> {
    const OPERAND: Operand = Operand::of(OP);

    /// The source thread-value layout over the operand's tile: `(thread, value) -> row +
    /// TILE_ROWS * column`.
    ///
    /// # Example
    /// See [`make_tiled_copy_b`].
    pub const fn src_tv<T: Element>(&self) -> Layout
    where
        C: CopyAtom<T>,
    {
        Self::tiled_source::<T>()
    }

    const fn tiled_source<T: Element>() -> Layout
    where
        C: CopyAtom<T>,
    {
        let dst = TiledMma::<Atom, Groups, Values>::block_tv(Self::OPERAND);
        let g = TiledMma::<Atom, Groups, Values>::GEOMETRY;
        unwrap!(tile_tv(source_tv(C::SOURCE, dst), g, Groups::LAYOUT, Self::OPERAND))
    }

    /// Thread `tid`'s slice (CuTe's `get_slice`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{make_tiled_copy_a, UniversalCopy};
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// let copy = make_tiled_copy_a::<UniversalCopy, _, _, _>(TiledMma::<UniversalFma<f32>, G>::default());
    /// assert_eq!(copy.get_slice(3).thread(), 3);
    /// ```
    #[inline(always)]
    pub fn get_slice(&self, tid: usize) -> ThrCopy<C, Atom, Groups, Values, OP> {
        ThrCopy { tid, _m: PhantomData }
    }
}

/// One thread's view of an [`MmaCopy`] (CuTe's `ThrCopy`).
///
/// # Example
/// See [`MmaCopy::get_slice`].
pub struct ThrCopy<C, Atom, Groups, Values, const OP: usize> {
    tid: usize,
    _m: PhantomData<(C, Atom, Groups, Values)>,
}

impl<C, Atom, Groups, Values, const OP: usize> Clone for ThrCopy<C, Atom, Groups, Values, OP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Atom, Groups, Values, const OP: usize> Copy for ThrCopy<C, Atom, Groups, Values, OP> {}

/// Thread `tid`'s source partition of a view of layout `S` by [`MmaCopy`] with element `T`:
/// `(source values, row repetitions, column repetitions)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopySource, UniversalCopy};
/// use cute_rs_tensor::atom::UniversalFma;
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(V = "(1,1,1)");
/// static_layout!(A = "(4,4):(4,1)");
/// // 2 x 1 tiles of the 4 x 4 A: 2 row and 4 column repetitions of one value.
/// assert_eq!(CopySource::<UniversalCopy, UniversalFma<f32>, G, V, A, f32, 0>::LAYOUT.size(), 8);
/// ```
pub struct CopySource<C, Atom, Groups, Values, S, T, const OP: usize>(PhantomData<(C, Atom, Groups, Values, S, T)>);
impl<C, Atom, Groups, Values, S, T, const OP: usize> Clone for CopySource<C, Atom, Groups, Values, S, T, OP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Atom, Groups, Values, S, T, const OP: usize> Copy for CopySource<C, Atom, Groups, Values, S, T, OP> {}

/// Thread index -> the offset of its first source value in [`CopySource`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::{CopyOrigin, UniversalCopy};
/// use cute_rs_tensor::atom::UniversalFma;
/// use cute_rs_tensor::{static_layout, StaticLayout};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(V = "(1,1,1)");
/// static_layout!(A = "(4,4):(4,1)");
/// assert_eq!(CopyOrigin::<UniversalCopy, UniversalFma<f32>, G, V, A, f32, 0>::LAYOUT.call(1), 4); // row 1
/// ```
pub struct CopyOrigin<C, Atom, Groups, Values, S, T, const OP: usize>(PhantomData<(C, Atom, Groups, Values, S, T)>);
impl<C, Atom, Groups, Values, S, T, const OP: usize> Clone for CopyOrigin<C, Atom, Groups, Values, S, T, OP> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C, Atom, Groups, Values, S, T, const OP: usize> Copy for CopyOrigin<C, Atom, Groups, Values, S, T, OP> {}

const fn copy_partition<C: CopyAtom<T>, T: Element, Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, const OP: usize>(
    s: Layout,
) -> (Layout, Layout) {
    let op = Operand::of(OP);
    let (r, c) = op.dims();
    let tile = TiledMma::<Atom, Groups, Values>::GEOMETRY.tile();
    unwrap!(partition_by_tv(s, MmaCopy::<C, Atom, Groups, Values, OP>::tiled_source::<T>(), tile[r], tile[c]))
}

impl<C: CopyAtom<T>, Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, S: StaticLayout, T: Element, const OP: usize> StaticLayout
    for CopySource<C, Atom, Groups, Values, S, T, OP>
{
    const LAYOUT: Layout = copy_partition::<C, T, Atom, Groups, Values, OP>(S::LAYOUT).0;
}
impl<C: CopyAtom<T>, Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, S: StaticLayout, T: Element, const OP: usize> StaticLayout
    for CopyOrigin<C, Atom, Groups, Values, S, T, OP>
{
    const LAYOUT: Layout = copy_partition::<C, T, Atom, Groups, Values, OP>(S::LAYOUT).1;
}

impl<C, Atom: MmaAtom, Groups: StaticLayout, Values: StaticLayout, const OP: usize> ThrCopy<C, Atom, Groups, Values, OP> {
    /// The thread's index.
    ///
    /// # Example
    /// See [`MmaCopy::get_slice`].
    #[inline(always)]
    pub fn thread(&self) -> usize {
        self.tid
    }

    /// The thread's source partition of a tensor of the operand's tile (CuTe's `partition_S`):
    /// `(source values, row repetitions, column repetitions)`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{make_tiled_copy_a, UniversalCopy};
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(G = "(2,2,1)");
    /// static_layout!(A = "(4,2):(2,1)");
    /// let mut v: Vec<f32> = (0..8).map(|i| i as f32).collect();
    /// let copy = make_tiled_copy_a::<UniversalCopy, _, _, _>(TiledMma::<UniversalFma<f32>, G>::default());
    /// let src = copy.get_slice(1).partition_s(LayoutTensor::new(&mut v, Static::<A>::new()).unwrap());
    /// assert_eq!([src.at([0, 0, 0]), src.at([0, 1, 1])], [2.0, 7.0]); // rows 1 and 3
    /// ```
    #[inline(always)]
    pub fn partition_s<T: Element, V: StaticView>(&self, src: V) -> V::With<CopySource<C, Atom, Groups, Values, V::Layout, T, OP>>
    where
        C: CopyAtom<T>,
        V: TensorOf<T>,
    {
        let origin = CopyOrigin::<C, Atom, Groups, Values, V::Layout, T, OP>::LAYOUT.call(self.tid as i64);
        src.relayout(origin)
    }

    /// The destination of the thread's copies as the tiled MMA's register fragment (CuTe's
    /// `retile_D`): the fragment itself, since the copy writes the MMA's values in its order.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::copy::{make_tiled_copy_a, UniversalCopy};
    /// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
    /// use cute_rs_tensor::static_layout;
    /// static_layout!(G = "(2,2,1)");
    /// static_layout!(A = "(4,2)");
    /// type Mma = TiledMma<UniversalFma<f32>, G>;
    /// let mut frag = Mma::get_slice(0).partition_fragment_a::<A, 4>();
    /// let copy = make_tiled_copy_a::<UniversalCopy, _, _, _>(Mma::default());
    /// assert_eq!(copy.get_slice(0).retile_d(frag.tensor()).size(), 4);
    /// ```
    #[inline(always)]
    pub fn retile_d<V: StaticView>(&self, frag: V) -> V {
        frag
    }
}

/// Views whose elements are `T` (ties a view to its element type for [`ThrCopy::partition_s`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::{atom::copy::TensorOf, static_layout, LayoutTensor, Static};
/// static_layout!(V = "4:1");
/// fn element_of<T: cute_rs_tensor::Element, X: TensorOf<T>>(_: X) -> usize { core::mem::size_of::<T>() }
/// let mut v = [0u16; 4];
/// assert_eq!(element_of(LayoutTensor::new(&mut v, Static::<V>::new()).unwrap()), 2);
/// ```
pub trait TensorOf<T> {}
impl<T, L: LayoutSource, A: AddressSpace> TensorOf<T> for LayoutTensor<'_, T, L, A, Full> {}

/// Copy atoms per destination block of `LD` (its first mode's size over the atom's values).
pub(crate) struct AtomsPerBlock<C, T, LD>(PhantomData<(C, T, LD)>);
impl<C: CopyAtom<T>, T: Element, LD: StaticLayout> TripCount for AtomsPerBlock<C, T, LD> {
    const N: usize = LD::MODES.size[0] as usize / C::VALUES;
}

/// Copies a thread's partition `src` (from [`ThrCopy::partition_s`]) into its destination `dst`
/// (its MMA register fragment, [`ThrCopy::retile_d`]) with the tiled copy's atom (CuTe's
/// `copy(tiled_copy, src, dst)`): one atom per (row, column) repetition.
///
/// Both may also be one k-block's slice, `(values, rows)` (CuTe's `copy(s2r, tCsA(_, _, k),
/// tCrA(_, _, k))`), so that the next k-block's fragment loads while this one multiplies.
///
/// # Constraints
/// `src` and `dst` have the same rank (3, or 2 for a k-block) and repetitions (checked on the
/// host); each atom's source values
/// are consecutive in memory (for a swizzled tile, within one swizzle unit: checked on the host).
///
/// # Example
/// ```
/// use cute_rs_tensor::algorithm::gemm;
/// use cute_rs_tensor::atom::copy::{copy, make_tiled_copy_a, UniversalCopy};
/// use cute_rs_tensor::atom::{TiledMma, UniversalFma};
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// static_layout!(G = "(2,2,1)");
/// static_layout!(A = "(4,2):(2,1)");
/// type Mma = TiledMma<UniversalFma<f32>, G>;
/// let mut v: Vec<f32> = (0..8).map(|i| i as f32).collect();
/// let sa = LayoutTensor::new(&mut v, Static::<A>::new()).unwrap();
/// let s2r = make_tiled_copy_a::<UniversalCopy, _, _, _>(Mma::default());
/// let mut frag = Mma::get_slice(1).partition_fragment_a::<A, 4>();
/// copy(s2r, s2r.get_slice(1).partition_s(sa), frag.tensor());
/// assert_eq!(frag.data, [2.0, 6.0, 3.0, 7.0]); // (m 1, 3) x (k 0, 1)
/// ```
#[inline(always)]
pub fn copy<'d, TC, T, LS, LD, AS, AD>(
    _copy: TC,
    src: LayoutTensor<'_, T, LS, AS, Full>,
    dst: LayoutTensor<'d, T, LD, AD, Full>,
) where
    TC: TiledCopyAtom,
    TC::Atom: CopyAtom<T>,
    T: Element,
    LS: LayoutSource,
    LD: LayoutSource,
    LayoutTensor<'d, T, LD, AD, Full>: StaticView,
    AS: AddressSpace,
    AD: AddressSpace,
{
    copy_shaped::<TC, T, LS, LD, AS, AD, <LayoutTensor<'d, T, LD, AD, Full> as StaticView>::Layout>(src, dst)
}

/// On the host: for the side of an atom that moves matrix rows (`ldmatrix`'s source,
/// `stmatrix`'s destination), asserts that the row's 8 elements, at `offset(0..8)`, are
/// consecutive in memory, as the instruction moves them.
#[cfg(not(target_arch = "nvptx64"))]
fn assert_matrix_rows(side: Source, offset: impl Fn(i64) -> i64, message: &str) {
    if matches!(side, Source::Matrices { .. }) {
        let first = offset(0);
        assert!((1..8).all(|c| offset(c) == first + c), "{message}");
    }
}

/// [`copy`] with the destination's static shape `Sh` named.
#[inline(always)]
fn copy_shaped<TC, T, LS, LD, AS, AD, Sh>(src: LayoutTensor<'_, T, LS, AS, Full>, dst: LayoutTensor<'_, T, LD, AD, Full>)
where
    TC: TiledCopyAtom,
    TC::Atom: CopyAtom<T>,
    T: Element,
    LS: LayoutSource,
    LD: LayoutSource,
    AS: AddressSpace,
    AD: AddressSpace,
    Sh: StaticLayout,
{
    const { assert!(Sh::MODES.rank == 3 || Sh::MODES.rank == 2, "copy: the destination must be a (values, rows, columns) or (values, rows) partition") };
    let src_modes = src.source().modes();
    debug_assert!(
        src_modes.rank == Sh::MODES.rank && (1..Sh::MODES.rank).all(|k| src_modes.size[k] == Sh::MODES.size[k]),
        "copy: source and destination repetitions differ"
    );
    let rank = Sh::MODES.rank;
    let copy_block = |i: usize, j: usize, b: usize| {
        let (i, j, v) = (i as i64, j as i64, b as i64 * <TC::Atom as CopyAtom<T>>::VALUES as i64);
        let s = src.source().offset_at(&[v, i, j][..rank]);
        let d = dst.source().offset_at(&[v, i, j][..rank]);
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let atom = (<TC::Atom as CopyAtom<T>>::SOURCE, <TC::Atom as CopyAtom<T>>::DESTINATION);
            assert_matrix_rows(atom.0, |c| src.source().offset_at(&[v + c, i, j][..rank]), "copy: an ldmatrix row must be 8 consecutive elements in memory");
            assert_matrix_rows(atom.1, |c| dst.source().offset_at(&[v + c, i, j][..rank]), "copy: a stmatrix row must be 8 consecutive elements in memory");
        }
        // SAFETY: both offsets are inside the views; the atom's values at `s..` and `d..`
        // (consecutive, as checked on the host and required by the contract).
        unsafe { <TC::Atom as CopyAtom<T>>::copy(src.elem_ptr(s as isize), dst.elem_ptr(d as isize)) };
    };
    // The nest over (columns, rows, atoms), its closures marked `$inline`.
    macro_rules! nest {
        ($($inline:tt)*) => {
            unroll_for::<ModeSize<Sh, 2>>($($inline)* |j| {
                unroll_for::<ModeSize<Sh, 1>>($($inline)* |i| unroll_for::<AtomsPerBlock<TC::Atom, T, Sh>>($($inline)* |b| copy_block(i, j, b)))
            })
        };
    }
    // A fragment's copy is forced inline at every level: LLVM may leave a large outer closure (a
    // 32 x 256 tile's) as a call, and the fragment behind it then lives in local memory. Copies
    // between memories stay with LLVM's choice, where a call costs nothing and full inlining
    // can raise a kernel's register pressure.
    if AS::REGISTERS || AD::REGISTERS {
        nest!(#[inline(always)])
    } else {
        nest!()
    }
}
