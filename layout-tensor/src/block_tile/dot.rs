//! Matrix products of block tiles on the tensor cores: [`dot`] (Triton's `tl.dot(a, b, acc)`,
//! cuTile's `ct.mma(a, b, acc)`).
//!
//! `acc + a b` for an `M x K` tile `a` and a `K x N` tile `b` of `f16` or `bf16` (any layouts),
//! into an `f32` accumulator tile whose layout is the C partition of a tiled MMA
//! ([`dot_layout!`](crate::dot_layout), Triton's MMA layout): each warp keeps its accumulators in
//! registers in the instruction's own order, so consecutive products need no data movement.
//!
//! The operands reach the instructions through the block's shared memory, as Triton's compiler
//! routes a loaded tile to `tl.dot`: every thread writes its values of `a` and `b` into row-major
//! tiles of the [`Scratch`] (16-byte chunks swizzled with the rows so that `ldmatrix` reads them
//! without bank conflicts), then each warp loads its fragments with `ldmatrix` (tiled copies made
//! from the tiled MMA, [`make_tiled_copy_a`]/[`make_tiled_copy_b`]) one k-block at a time and
//! multiplies them with the MMA atoms ([`gemm`](crate::algorithm::gemm)).
//!
//! On Hopper, `dot_layout!(Acc = wgmma Atom, shape [M, N])` declares the accumulators of
//! warpgroup MMA (Triton's MMA v3 layout: one warpgroup per 64 rows, the atom repeated along N):
//! the operands are staged in the tiles `wgmma` reads from shared memory (A K-major, B N-major,
//! in 64-column panels with the 32-, 64- or 128-byte swizzle of their rows), and sm_90a builds
//! multiply them with `wgmma.mma_async` through matrix descriptors derived from those tiles'
//! layouts ([`make_gmma_desc`](crate::atom::wgmma::make_gmma_desc)). That layout is also the C
//! partition of a tiled `mma.sync` with the warps stacked along M, which the CPU backend runs:
//! the same kernel checks on the host.
//!
//! ```
//! # cute_rs_tensor::device::cpu::run_block(128, &|| {
//! use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
//! use cute_rs_tensor::block_tile::{dot, BlockTile};
//! use cute_rs_tensor::half::f16;
//! use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, static_layout};
//! static_layout!(Warps = "(2,2,1)");
//! blocked_layout!(A = shape [32, 16], size_per_thread [1, 4], threads_per_warp [8, 4], warps_per_cta [4, 1], order [1, 0]);
//! blocked_layout!(B = shape [16, 16], size_per_thread [1, 2], threads_per_warp [4, 8], warps_per_cta [4, 1], order [1, 0]);
//! dot_layout!(Acc = mma TiledMma<Atom, Warps>, shape [32, 16]);
//! let scratch = block_scratch!(DOT_EXAMPLE, 2048);
//! // a(m, k) = 1, b(k, n) = n: every row of the product is 16 * n.
//! let a = BlockTile::<f16, A>::full(f16::ONE);
//! let b = BlockTile::<i32, B>::arange(1).map(|n| f16::from_f32(n as f32));
//! let c = dot(&a, &b, BlockTile::<f32, Acc>::zeros(), &scratch);
//! let n = BlockTile::<i32, Acc>::arange(1);
//! assert!(c.values().iter().zip(n.values()).all(|(c, n)| *c == 16.0 * *n as f32));
//! # }).unwrap();
//! ```

use core::marker::PhantomData;

use cute_rs_layout::{make_layout, IntTuple, Layout, LayoutError, Swizzle};

use super::memory::{tile_inside, vectorizable};
use super::{thread, BlockTile, Scratch, TvLayout, ValueStorage, MAX_RANK};
use crate::algorithm::gemm;
use crate::atom::copy::{copy, make_tiled_copy_a, make_tiled_copy_b, CopyAtom, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T};
use crate::atom::tiled_mma::{partition_by_tv, MmaPartition};
use crate::atom::wgmma::WgmmaMajors;
#[cfg(target_arch = "nvptx64")]
use crate::atom::wgmma::{KMajor, MnMajor, WgmmaAtom};
use crate::atom::{MmaAtom, TiledMma, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN};
use crate::device::cp_async::{cp_async_cg, cp_async_cg_zfill, cp_async_pipeline};
use crate::device::sync::sync_threads;
#[cfg(target_arch = "nvptx64")]
use crate::device::shared::generic_to_shared;
use crate::device::unroll::{unroll_for, TripCount};
use crate::fragment::CompactOf;
use crate::partition::StaticSwizzle;
use crate::static_layout::{Static, StaticLayout};
use crate::static_view::{StaticView, WithoutMode};
use crate::swizzled::Swizzled;
use crate::tensor::{write_vec, Element, Global, LayoutTensor, Local, Shared};
use crate::Strided;

/// The parts of a tiled MMA type, for the layouts of [`dot`]'s accumulators.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::dot::MmaParts;
/// use cute_rs_tensor::static_layout;
/// static_layout!(Warps = "(2,4,1)");
/// fn atom_of<M: MmaParts<Atom = Atom>>() {}
/// atom_of::<TiledMma<Atom, Warps>>();
/// ```
pub trait MmaParts {
    /// The MMA atom.
    type Atom: MmaAtom;
    /// The thread-group (warp) layout.
    type Groups: StaticLayout;
    /// The atom's repetitions per thread block.
    type Values: StaticLayout;
}

impl<A: MmaAtom, G: StaticLayout, V: StaticLayout> MmaParts for TiledMma<A, G, V> {
    type Atom = A;
    type Groups = G;
    type Values = V;
}

/// The layout of a [`dot`] accumulator tile: the C partition of the tiled MMA
/// [`Mma`](Self::Mma) repeated over an `M x N` tile. Declare one with
/// [`dot_layout!`](crate::dot_layout).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::TvLayout;
/// use cute_rs_tensor::{dot_layout, static_layout};
/// static_layout!(Warps = "(2,4,1)");
/// static_layout!(TwoN = "(1,2,1)");
/// dot_layout!(Acc = mma TiledMma<Atom, Warps, TwoN>, shape [128, 128]);
/// assert_eq!((Acc::THREADS, Acc::VALUES), (256, 64));
/// // Lane 0 of warp 0 starts at (0, 0); its value 1 is column 1, value 2 row 8.
/// assert_eq!((Acc::MAP.coord(0, 1), Acc::MAP.coord(0, 2)), ([0, 1, 0, 0, 0], [8, 0, 0, 0, 0]));
/// ```
pub trait DotLayout: TvLayout {
    /// The tiled MMA.
    type Mma: MmaParts;
    /// The registers of one k-block of a thread's A fragment (`M` repetitions of its atoms).
    type FragmentA<E: Copy>: ValueStorage<E>;
    /// The registers of one k-block of a thread's B fragment.
    type FragmentB<E: Copy>: ValueStorage<E>;
    /// The `ldmatrix` atom that loads a thread block's A values (`.x4`: the m16n8k16 A fragment).
    type LoadA: Copy + Default;
    /// The `ldmatrix.trans` atom that loads a thread block's B values: `.x2` for one m16n8k16
    /// atom along N, `.x4` for two or more.
    type LoadB: Copy + Default;
    /// The instructions of the products on the GPU: [`MmaSync`] or [`Wgmma`].
    type Instruction: DotInstruction;
}

/// The instructions a [`DotLayout`]'s products run on in GPU builds: [`MmaSync`] (`mma.sync` with
/// `ldmatrix` fragments, sm_80 and later) or [`Wgmma`] (Hopper's warpgroup MMA, reading both
/// operands from shared memory, sm_90a). The CPU backend runs the `mma.sync` products of the
/// layout's tiled MMA for both: a [`Wgmma`] layout is also the C partition of a tiled `mma.sync`
/// (see [`dot_layout!`](crate::dot_layout)), so the results agree.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::SM90_64x128x16_F32F16F16_SS;
/// use cute_rs_tensor::block_tile::dot::{DotInstruction, MmaSync, Wgmma};
/// assert!(!MmaSync::WGMMA && <Wgmma<SM90_64x128x16_F32F16F16_SS>>::WGMMA);
/// assert_eq!(<Wgmma<SM90_64x128x16_F32F16F16_SS>>::PANEL, 64);
/// ```
pub trait DotInstruction: Copy + Default {
    /// Whether GPU builds multiply with `wgmma`.
    const WGMMA: bool;
    /// The width (elements) of the column panels the operand tiles are staged in, each panel
    /// row-major and swizzled (0: one panel, whole rows). `wgmma` reads 64-column panels: its
    /// 128-byte-swizzled tiles, A K-major and B N-major.
    const PANEL: i64;

    /// Issues `acc += A B` for the staged operand tiles at the shared-window addresses `a` and
    /// `b`, this warpgroup's rows: the asynchronous instructions only (the caller fences,
    /// commits and waits).
    ///
    /// # Safety
    /// The tiles are staged as [`OperandTile`]s of panels [`PANEL`](Self::PANEL) wide at
    /// 1024-byte-aligned addresses; `acc` holds the thread's accumulators of the layout.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn issue<LA: TvLayout, LB: TvLayout>(a: u32, b: u32, acc: *mut f32);
}

/// `mma.sync` products: see [`DotInstruction`].
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::dot::{DotInstruction, MmaSync};
/// assert_eq!(MmaSync::PANEL, 0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MmaSync;
impl DotInstruction for MmaSync {
    const WGMMA: bool = false;
    const PANEL: i64 = 0;
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn issue<LA: TvLayout, LB: TvLayout>(_: u32, _: u32, _: *mut f32) {
        // Never called: `WGMMA` is false.
    }
}

/// `wgmma` products with the atom family `W` (A K-major, B N-major in shared memory whatever
/// `W`'s own orders): see [`DotInstruction`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::SM90_64x256x16_F32BF16BF16_SS;
/// use cute_rs_tensor::block_tile::dot::{DotInstruction, Wgmma};
/// assert!(<Wgmma<SM90_64x256x16_F32BF16BF16_SS>>::WGMMA);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Wgmma<W>(PhantomData<W>);

/// The atom of a [`Wgmma`] with the staged tiles' storage orders.
#[cfg(target_arch = "nvptx64")]
type StagedAtom<W> = <W as WgmmaMajors>::With<KMajor, MnMajor>;

impl<W: WgmmaMajors> DotInstruction for Wgmma<W> {
    const WGMMA: bool = true;
    const PANEL: i64 = 64;
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn issue<LA: TvLayout, LB: TvLayout>(a: u32, b: u32, acc: *mut f32) {
        let (da, db) = const { wgmma_descs::<W, LA, LB>() };
        // Warpgroups are stacked along M, 64 rows each.
        let wg = (thread() / 128) as u32;
        // Plain loops of a few constant trips, which LLVM unrolls: the instructions' operands
        // must stay in registers, and closures this large (128 accumulators) are not inlined.
        for j in 0..(LB::SHAPE[1] / W::N) as usize {
            for k in 0..(LA::SHAPE[1] / 16) as u32 {
                // SAFETY: the caller's; the descriptors describe the staged tiles (checked when
                // they were made), and atom `j`'s accumulators are the `j`-th run of VALUES_C.
                unsafe { StagedAtom::<W>::call(da.at(a, wg, k), db.at(b, j as u32, k), acc.add(j * W::VALUES_C), true) }
            }
        }
    }
}

/// The descriptors of the staged operand tiles of a [`Wgmma`] product: A `M x K` K-major, B
/// `K x N` N-major, each in 64-column panels with the widest swizzle of its rows (checked
/// element by element by [`make_gmma_desc`](crate::atom::wgmma::make_gmma_desc): a tile wgmma
/// cannot read stops compilation with the violated condition).
#[cfg(target_arch = "nvptx64")]
const fn wgmma_descs<W: WgmmaMajors, LA: TvLayout, LB: TvLayout>() -> (crate::atom::wgmma::GmmaDesc, crate::atom::wgmma::GmmaDesc) {
    use crate::atom::wgmma::{make_gmma_desc, Major};
    use cute_rs_layout::SwizzledLayout;
    let a = SwizzledLayout::new(RowSwizzle::<LA, Wgmma<W>>::SWIZZLE, 0, OperandTile::<LA, true, Wgmma<W>>::LAYOUT);
    let b = SwizzledLayout::new(RowSwizzle::<LB, Wgmma<W>>::SWIZZLE, 0, OperandTile::<LB, false, Wgmma<W>>::LAYOUT);
    (cute_rs_layout::unwrap!(make_gmma_desc(a, 2, Major::K, 64, 16)), cute_rs_layout::unwrap!(make_gmma_desc(b, 2, Major::MN, W::N, 16)))
}

/// The `mma.sync` atom that multiplies 16-bit elements `Self` into `f32` (m16n8k16): the
/// portable products of a [`Wgmma`] layout.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN};
/// use cute_rs_tensor::block_tile::dot::PortableMma;
/// use cute_rs_tensor::half::bf16;
/// let _: <bf16 as PortableMma>::Atom = SM80_16x8x16_F32BF16BF16F32_TN::default();
/// ```
pub trait PortableMma {
    /// The atom.
    type Atom: MmaAtom;
}
impl PortableMma for crate::half::f16 {
    type Atom = SM80_16x8x16_F32F16F16F32_TN;
}
impl PortableMma for crate::half::bf16 {
    type Atom = SM80_16x8x16_F32BF16BF16F32_TN;
}

/// `WARPS` warps stacked along M, `(WARPS, 1, 1)`: the warps of the tiled `mma.sync` whose C
/// partition is the accumulator layout of warpgroups stacked along M (each warp of a warpgroup
/// holds 16 of its 64 rows in both).
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::dot::ColumnOfWarps;
/// use cute_rs_tensor::StaticLayout;
/// assert_eq!(<ColumnOfWarps<8>>::LAYOUT.to_string(), "(8,1,1):(1,0,0)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ColumnOfWarps<const WARPS: i64>;
impl<const WARPS: i64> StaticLayout for ColumnOfWarps<WARPS> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(cute_rs_layout::make_layout_col_major(cute_rs_layout::unwrap!(IntTuple::from_slice(&[WARPS, 1, 1]))));
}

/// A [`DotLayout`] whose products take operands of `T`: its atom multiplies `T`s into `f32`s and
/// its `ldmatrix` atoms move `T`s. Implemented for every such layout; the one bound a generic
/// kernel over [`dot`] needs.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::dot::DotLayoutOf;
/// use cute_rs_tensor::half::f16;
/// use cute_rs_tensor::{dot_layout, static_layout};
/// static_layout!(Warps = "(2,2,1)");
/// dot_layout!(Acc = mma TiledMma<Atom, Warps>, shape [32, 16]);
/// fn multiplies<T: cute_rs_tensor::Element, L: DotLayoutOf<T>>() {}
/// multiplies::<f16, Acc>();
/// ```
pub trait DotLayoutOf<T: Element>: DotLayout<Mma: MmaParts<Atom: MmaAtom<A = T, B = T, C = f32>>, LoadA: CopyAtom<T>, LoadB: CopyAtom<T>> {}
impl<T: Element, L> DotLayoutOf<T> for L where L: DotLayout<Mma: MmaParts<Atom: MmaAtom<A = T, B = T, C = f32>>, LoadA: CopyAtom<T>, LoadB: CopyAtom<T>> {}

/// The `ldmatrix.trans` atom for B by whether a thread block holds 16 columns (two atoms).
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::dot::{LoadBOf, PickLoadB};
/// use cute_rs_tensor::atom::copy::SM75_U16x8_LDSM_T;
/// fn wide<L: PickLoadB<Atom = SM75_U16x8_LDSM_T>>() {}
/// wide::<LoadBOf<true>>();
/// ```
pub struct LoadBOf<const WIDE: bool>;
/// The atom of a [`LoadBOf`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::copy::SM75_U16x4_LDSM_T;
/// use cute_rs_tensor::block_tile::dot::{LoadBOf, PickLoadB};
/// let _: <LoadBOf<false> as PickLoadB>::Atom = SM75_U16x4_LDSM_T; // one atom along N: .x2
/// ```
pub trait PickLoadB {
    /// The atom.
    type Atom: Copy + Default;
}
impl PickLoadB for LoadBOf<true> {
    type Atom = SM75_U16x8_LDSM_T;
}
impl PickLoadB for LoadBOf<false> {
    type Atom = SM75_U16x4_LDSM_T;
}

/// The thread-value layout of an `m x n` accumulator tile of the tiled MMA `(Atom, G, V)`:
/// `(thread, value) -> row-major index`, the values in the order of the thread's C fragment
/// (`(atom values, M repetitions, N repetitions)`, column-major).
///
/// # Errors
/// [`LayoutError`] when the tiled MMA's tile does not divide `m x n`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom};
/// use cute_rs_tensor::block_tile::dot::accumulator_tv;
/// use cute_rs_tensor::{atom::tiled_mma::OneAtom, static_layout};
/// static_layout!(Warp = "(1,1,1)");
/// let tv = accumulator_tv::<Atom, Warp, OneAtom>(16, 16).unwrap();
/// // Lane 1's first value is column 2; its fifth (the second atom along N) column 10.
/// assert_eq!((tv.call(1), tv.call(1 + 32 * 4)), (2, 10));
/// ```
pub const fn accumulator_tv<Atom: MmaAtom, G: StaticLayout, V: StaticLayout>(m: i64, n: i64) -> Result<Layout, LayoutError> {
    let tile = TiledMma::<Atom, G, V>::GEOMETRY.tile();
    let row_major = match Layout::new(
        match IntTuple::from_slice(&[m, n]) {
            Ok(s) => s,
            Err(e) => return Err(e),
        },
        match IntTuple::from_slice(&[n, 1]) {
            Ok(s) => s,
            Err(e) => return Err(e),
        },
    ) {
        Ok(l) => l,
        Err(e) => return Err(e),
    };
    let (fragment, origin) = match partition_by_tv(row_major, TiledMma::<Atom, G, V>::tv_c(), tile[0], tile[1]) {
        Ok(p) => p,
        Err(e) => return Err(e),
    };
    make_layout(&[origin, fragment])
}

/// Declares a zero-sized [`DotLayout`] type: the accumulator layout of a tiled MMA over an
/// `M x N` tile (Triton's MMA layout), for [`dot`](crate::block_tile::dot()).
///
/// `dot_layout!(Name = mma TiledMmaType, shape [M, N]);` where `M` and `N` are multiples of the
/// tiled MMA's tile (a compile-time error naming the condition otherwise).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32BF16BF16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::TvLayout;
/// use cute_rs_tensor::{dot_layout, static_layout};
/// static_layout!(Warps = "(4,1,1)");
/// dot_layout!(Acc = mma TiledMma<Atom, Warps>, shape [64, 32]);
/// assert_eq!((Acc::THREADS, Acc::VALUES), (128, 16));
/// ```
#[macro_export]
macro_rules! dot_layout {
    ($(#[$attr:meta])* $vis:vis $name:ident = mma $mma:ty, shape [$m:expr, $n:expr] $(,)?) => {
        $crate::dot_layout!(@layout $(#[$attr])* $vis $name = $mma, $crate::block_tile::dot::MmaSync, shape [$m, $n], {});
    };
    ($(#[$attr:meta])* $vis:vis $name:ident = wgmma $atom:ty, shape [$m:expr, $n:expr] $(,)?) => {
        $crate::dot_layout!(@layout $(#[$attr])* $vis $name =
            $crate::atom::TiledMma<
                <<$atom as $crate::atom::wgmma::WgmmaAtom>::A as $crate::block_tile::dot::PortableMma>::Atom,
                $crate::block_tile::dot::ColumnOfWarps<{ ($m) / 16 }>,
            >,
            $crate::block_tile::dot::Wgmma<$atom>,
            shape [$m, $n],
            {
                assert!(($m) % 64 == 0, "dot_layout: a wgmma tile's M must be a multiple of 64 (one warpgroup per 64 rows)");
                assert!(
                    ($n) % <$atom as $crate::atom::wgmma::WgmmaAtom>::N == 0,
                    "dot_layout: a wgmma tile's N must be a multiple of the atom's N"
                );
            }
        );
    };
    (@layout $(#[$attr:meta])* $vis:vis $name:ident = $mma:ty, $instruction:ty, shape [$m:expr, $n:expr], $check:block) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;
        impl $name {
            const __TV_MAP: $crate::block_tile::TvMap = {
                $check
                let tile = <$mma>::GEOMETRY.tile();
                assert!(($m) % tile[0] == 0, "dot_layout: the tile's M must be a multiple of the tiled MMA's TILE_M");
                assert!(($n) % tile[1] == 0, "dot_layout: the tile's N must be a multiple of the tiled MMA's TILE_N");
                $crate::__tv_unwrap!($crate::block_tile::TvMap::from_layout(
                    &[$m, $n],
                    $crate::layout::unwrap!($crate::block_tile::dot::accumulator_tv::<
                        <$mma as $crate::block_tile::dot::MmaParts>::Atom,
                        <$mma as $crate::block_tile::dot::MmaParts>::Groups,
                        <$mma as $crate::block_tile::dot::MmaParts>::Values,
                    >($m, $n))
                ))
            };
            const __FRAGMENT_A: usize = {
                let g = <$mma>::GEOMETRY;
                (g.values[0] * g.values[2] * <<$mma as $crate::block_tile::dot::MmaParts>::Atom as $crate::atom::MmaAtom>::VALUES_A as i64
                    * (($m) / g.tile()[0])) as usize
            };
            const __FRAGMENT_B: usize = {
                let g = <$mma>::GEOMETRY;
                (g.values[1] * g.values[2] * <<$mma as $crate::block_tile::dot::MmaParts>::Atom as $crate::atom::MmaAtom>::VALUES_B as i64
                    * (($n) / g.tile()[1])) as usize
            };
        }
        impl $crate::block_tile::TvLayout for $name {
            const MAP: $crate::block_tile::TvMap = $name::__TV_MAP;
            type Storage<__Elem: Copy> = [__Elem; $name::__TV_MAP.values()];
        }
        impl $crate::block_tile::dot::DotLayout for $name {
            type Mma = $mma;
            type FragmentA<__Elem: Copy> = [__Elem; $name::__FRAGMENT_A];
            type FragmentB<__Elem: Copy> = [__Elem; $name::__FRAGMENT_B];
            type LoadA = $crate::atom::copy::SM75_U32x4_LDSM_N;
            type LoadB = <$crate::block_tile::dot::LoadBOf<{
                let g = <$mma>::GEOMETRY;
                g.values[1] * g.values[2] * <<$mma as $crate::block_tile::dot::MmaParts>::Atom as $crate::atom::MmaAtom>::VALUES_B as i64 >= 8
            }> as $crate::block_tile::dot::PickLoadB>::Atom;
            type Instruction = $instruction;
        }
    };
}

/// The tiled MMA of accumulator layout `LC`.
type MmaOf<LC> = TiledMma<AtomOf<LC>, <<LC as DotLayout>::Mma as MmaParts>::Groups, <<LC as DotLayout>::Mma as MmaParts>::Values>;
/// Its atom.
type AtomOf<LC> = <<LC as DotLayout>::Mma as MmaParts>::Atom;

/// An operand tile of layout `L` staged in shared memory, seen as the MMA sees the operand:
/// `(outer, k) -> offset`, where `L`'s tile is stored in column panels `I::PANEL` wide (whole
/// rows for [`MmaSync`]), each panel row-major, one after the other. A (`L = [M, K]`, `IS_A`)
/// with one panel: `m * K + k`; B (`L = [K, N]`): `n + N * k`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::SM90_64x128x16_F32F16F16_SS as W;
/// use cute_rs_tensor::block_tile::dot::{OperandTile, Wgmma};
/// use cute_rs_tensor::{blocked_layout, StaticLayout};
/// blocked_layout!(B = shape [32, 128], size_per_thread [1, 8], threads_per_warp [2, 16], warps_per_cta [8, 1], order [1, 0]);
/// // B seen as (n, k): n + 128 k.
/// assert_eq!(<OperandTile<B, false>>::LAYOUT.to_string(), "(128,32):(1,128)");
/// // In panels of 64 columns for wgmma: n % 64 + 64 k + 2048 (n / 64).
/// assert_eq!(<OperandTile<B, false, Wgmma<W>>>::LAYOUT.to_string(), "((64,2),(32)):((1,2048),(64))");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct OperandTile<L, const IS_A: bool, I = MmaSync>(PhantomData<(L, I)>);
impl<L: TvLayout, const IS_A: bool, I: DotInstruction> StaticLayout for OperandTile<L, IS_A, I> {
    const LAYOUT: Layout = {
        let (r, c) = (L::SHAPE[0], L::SHAPE[1]);
        let p = panel_width(c, I::PANEL);
        if p == c {
            if IS_A {
                layout_of(&[r, c], &[c, 1])
            } else {
                layout_of(&[c, r], &[1, c])
            }
        } else {
            let (rows, panels) = (layout_of(&[r], &[p]), layout_of(&[p, c / p], &[1, p * r]));
            let modes = if IS_A { [rows, panels] } else { [panels, rows] };
            cute_rs_layout::unwrap!(make_layout(&modes))
        }
    };
}

/// The layout `shape : stride`.
const fn layout_of(shape: &[i64], stride: &[i64]) -> Layout {
    cute_rs_layout::unwrap!(Layout::new(cute_rs_layout::unwrap!(IntTuple::from_slice(shape)), cute_rs_layout::unwrap!(IntTuple::from_slice(stride))))
}

/// The width of the column panels of rows `cols` long staged `panel` wide (0: whole rows).
pub(super) const fn panel_width(cols: i64, panel: i64) -> i64 {
    if panel == 0 || cols <= panel {
        cols
    } else {
        assert!(cols % panel == 0, "dot: the operands' last extents must be multiples of the staging panels (64 for wgmma)");
        panel
    }
}

/// The swizzle of an operand tile of 16-bit elements staged as [`OperandTile`]: the 16-byte
/// chunk index XORed with the row bits above a 128-byte line (rows of one panel), so that 8 rows
/// read at one chunk (an `ldmatrix` phase, either operand) fall in 8 different bank groups. For
/// panels of 16, 32 or 64 elements this is wgmma's 32-, 64- or 128-byte swizzle.
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::dot::RowSwizzle;
/// use cute_rs_tensor::{blocked_layout, partition::StaticSwizzle};
/// blocked_layout!(K32 = shape [128, 32], size_per_thread [1, 8], threads_per_warp [8, 4], warps_per_cta [8, 1], order [1, 0]);
/// // Rows of 64 bytes: row bits 1-2 (offset bits 6-7) into the chunk bits 3-4.
/// assert_eq!(<RowSwizzle<K32>>::SWIZZLE.apply(2 * 32), 2 * 32 + 8);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct RowSwizzle<L, I = MmaSync>(PhantomData<(L, I)>);
impl<L: TvLayout, I: DotInstruction> StaticSwizzle for RowSwizzle<L, I> {
    const SWIZZLE: Swizzle = {
        let row = panel_width(L::SHAPE[1], I::PANEL);
        assert!(row >= 8 && row & (row - 1) == 0, "dot: the operands' last extents must be powers of two of at least 8");
        let log = row.trailing_zeros();
        // 8 chunks per 128-byte line: rows shorter than a line XOR with the bits past it.
        let (bits, shift) = if log <= 6 { (log - 3, 3) } else { (3, log as i32 - 3) };
        cute_rs_layout::unwrap!(Swizzle::new(bits, 3, shift))
    };
}

/// Operand `OP`'s k-block fragment layout of a thread (its partition of an [`OperandTile`] with
/// the k-block mode removed).
type KBlockFragment<LC, S, const OP: usize> = WithoutMode<
    CompactOf<MmaPartition<AtomOf<LC>, <<LC as DotLayout>::Mma as MmaParts>::Groups, <<LC as DotLayout>::Mma as MmaParts>::Values, S, OP>>,
    2,
>;

/// The accumulator tile as the MMA sees C: `(m, n)`, row-major.
#[derive(Clone, Copy, Debug, Default)]
struct AccumulatorTile<L>(PhantomData<L>);
impl<L: TvLayout> StaticLayout for AccumulatorTile<L> {
    const LAYOUT: Layout = OperandTile::<L, true>::LAYOUT;
}

/// A thread's accumulator fragment: `(atom values, M repetitions, N repetitions)`, compact.
type AccumulatorFragment<LC> = CompactOf<
    MmaPartition<AtomOf<LC>, <<LC as DotLayout>::Mma as MmaParts>::Groups, <<LC as DotLayout>::Mma as MmaParts>::Values, AccumulatorTile<LC>, 2>,
>;

/// The k-blocks of a `dot`: `K` over the tiled MMA's `TILE_K`.
struct KBlocks<LA, LC>(PhantomData<(LA, LC)>);
impl<LA: TvLayout, LC: DotLayout> TripCount for KBlocks<LA, LC> {
    const N: usize = (LA::SHAPE[1] / MmaOf::<LC>::TILE_K) as usize;
}

/// Registers aligned for the atoms, which read their operands as 32-bit words.
#[repr(C, align(16))]
struct Aligned<S>(S);

/// Writes the thread's values of `tile` into the [`OperandTile`] of `I` at `smem`, runs of
/// consecutive values along the last dimension as vectors.
#[inline(always)]
fn stage<T: Element, L: TvLayout, I: DotInstruction>(tile: &BlockTile<T, L>, smem: *mut T) {
    let tc = L::MAP.thread_coord(thread());
    let values = tile.values();
    macro_rules! body {
        ($w:literal) => {
            super::for_each_value::<L>(|v| {
                if v % $w == 0 {
                    let off = staged_offset::<L, I>(&tc, &L::MAP.value_coord(v));
                    let mut x = [values[v]; $w];
                    x.copy_from_slice(&values[v..v + $w]);
                    // SAFETY: inside the scratch (the tile's coordinates are inside it), and the
                    // run starts at a multiple of its width within one 16-byte chunk, which the
                    // swizzle keeps whole.
                    unsafe { write_vec::<T, $w>(smem.offset(off), x) };
                }
            })
        };
    }
    match const { staging_width::<T, L>() } {
        8 => body!(8),
        4 => body!(4),
        2 => body!(2),
        _ => body!(1),
    }
}

/// The widest run of a thread's values along `L`'s last dimension that starts at a multiple of
/// its width for every thread (at most 16 bytes): the loads' vector width, narrowed until every
/// other leaf along that dimension steps by multiples of it.
const fn staging_width<T, L: TvLayout>() -> usize {
    let mut w = super::memory::vector_width::<T, L>(2);
    let mut j = 0;
    while j < L::MAP.threads.len {
        while L::MAP.threads.dim[j] == 1 && L::MAP.threads.step[j] % w as i64 != 0 {
            w /= 2;
        }
        j += 1;
    }
    j = 1;
    while j < L::MAP.values.len {
        while L::MAP.values.dim[j] == 1 && L::MAP.values.step[j] % w as i64 != 0 {
            w /= 2;
        }
        j += 1;
    }
    w
}

/// The offset in the staged, [`RowSwizzle`]d [`OperandTile`] of `L` and `I` of the element at
/// the thread's coordinates `tc` plus value coordinates `vc`.
#[inline(always)]
fn staged_offset<L: TvLayout, I: DotInstruction>(tc: &[i64; MAX_RANK], vc: &[i64; MAX_RANK]) -> isize {
    let swizzle = const { RowSwizzle::<L, I>::SWIZZLE };
    let (r, c) = (tc[0] + vc[0], tc[1] + vc[1]);
    let p = const { panel_width(L::SHAPE[1], I::PANEL) };
    let offset = if p == L::SHAPE[1] { r * p + c } else { c % p + p * r + c / p * (p * L::SHAPE[0]) };
    swizzle.apply(offset) as isize
}

/// `acc + a b` on the tensor cores (`tl.dot(a, b, acc)`, `ct.mma(a, b, acc)`), see the
/// [module documentation](self).
///
/// # Parameters
/// - `T`: `f16` or `bf16`, the tiled MMA's atom's input type.
/// - `LA`, `LB`: any layouts of the `M x K` and `K x N` operand tiles.
/// - `LC`: the accumulator's [`DotLayout`] (`M x N`).
///
/// # Args
/// - `a`, `b`: the operands.
/// - `acc`: the accumulator, returned with the product added.
/// - `scratch`: the block's scratch, for the operands in shared memory.
///
/// # Constraints
/// Checked at compile time: all three tiles have rank 2 and agree on `M`, `N` and `K`; `K` is a
/// multiple of the tiled MMA's `TILE_K`, the last extents of `a` and `b` are powers of two of at
/// least 8; the three layouts have the same threads; the scratch holds both operands
/// (`2 (M K + K N)` bytes). Every thread of the block calls it: it synchronizes the block twice
/// (before writing the scratch, after which earlier users of it are done, and before reading it).
///
/// # Example
/// See the [module documentation](self).
#[inline(always)]
pub fn dot<T, LA, LB, LC, const BYTES: usize>(a: &BlockTile<T, LA>, b: &BlockTile<T, LB>, acc: BlockTile<f32, LC>, scratch: &Scratch<BYTES>) -> BlockTile<f32, LC>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    check_operands::<T, LA, LB, LC, 1, BYTES>();
    let smem_a = scratch.slots::<T>();
    // SAFETY: the scratch holds both tiles (checked above).
    let smem_b = unsafe { smem_a.add((LA::SHAPE[0] * LA::SHAPE[1]) as usize) };
    // Earlier readers of the scratch (a previous product, a reduction) are done.
    sync_threads();
    stage::<T, LA, LC::Instruction>(a, smem_a);
    stage::<T, LB, LC::Instruction>(b, smem_b);
    staged_for_wgmma::<LC>();
    sync_threads();

    let mut acc = acc;
    multiply_staged::<T, LA, LB, LC>(smem_a, smem_b, &mut acc);
    acc
}

/// After a thread's writes of staged operands, before the barrier that publishes them: `wgmma`
/// reads shared memory through the async proxy, which sees the threads' ordinary stores (and
/// landed `cp.async` copies) only after a proxy fence.
#[inline(always)]
fn staged_for_wgmma<LC: DotLayout>() {
    #[cfg(target_arch = "nvptx64")]
    if LC::Instruction::WGMMA {
        crate::device::tma::fence_proxy_async_shared_cta();
    }
}


/// The compile-time conditions of a product of `LA` and `LB` tiles into `LC` through a scratch
/// of `BYTES` holding `STAGES` copies of both operand tiles.
#[inline(always)]
pub(super) fn check_operands<T: Element, LA: TvLayout, LB: TvLayout, LC: DotLayoutOf<T>, const STAGES: usize, const BYTES: usize>() {
    const {
        assert!(LA::RANK == 2 && LB::RANK == 2 && LC::RANK == 2, "dot: the operand and accumulator tiles must have rank 2");
        assert!(
            LA::SHAPE[0] == LC::SHAPE[0] && LB::SHAPE[1] == LC::SHAPE[1] && LA::SHAPE[1] == LB::SHAPE[0],
            "dot: a must be M x K, b K x N and acc M x N"
        );
        assert!(LA::SHAPE[1] % MmaOf::<LC>::TILE_K == 0, "dot: K must be a multiple of the tiled MMA's TILE_K");
        assert!(LA::THREADS == LC::THREADS && LB::THREADS == LC::THREADS, "dot: a, b and acc must have the same threads");
        assert!(core::mem::size_of::<T>() == 2, "dot: the operands must have 16-bit elements");
        assert!(STAGES * tile_bytes::<LA, LB>() <= BYTES, "dot: the scratch must hold the operand tiles (2 (M K + K N) bytes per stage)");
        assert!(
            !LC::Instruction::WGMMA || (LA::SHAPE[0] * LA::SHAPE[1] * 2) % 1024 == 0 && tile_bytes::<LA, LB>() % 1024 == 0,
            "dot: with wgmma, each operand tile must be a multiple of 1024 bytes (the swizzle atoms of the tiles that follow it stay aligned)"
        );
    }
}

/// The number of slots of a ring of products into `LC`: 2 to 5, at least 3 on `wgmma`.
#[inline(always)]
pub(super) fn check_stages<LC: DotLayout, const STAGES: usize>() {
    const { assert!(STAGES >= 2 && STAGES <= 5, "dot_range: STAGES must be 2 to 5") };
    const {
        assert!(
            !LC::Instruction::WGMMA || STAGES >= 3,
            "dot_range: with wgmma, STAGES must be 3 to 5 (the slots of the two steps whose products may be in flight are not refilled)"
        )
    };
}

/// Bytes of one stage of both operand tiles of 16-bit elements.
pub(super) const fn tile_bytes<LA: TvLayout, LB: TvLayout>() -> usize {
    (2 * (LA::SHAPE[0] * LA::SHAPE[1] + LB::SHAPE[0] * LB::SHAPE[1])) as usize
}

/// `acc += A B` for the operand tiles staged row-major and [`RowSwizzle`]d at `smem_a` (`M x K`)
/// and `smem_b` (`K x N`): each warp loads its fragments with `ldmatrix`, one k-block at a time,
/// and multiplies them with the tiled MMA's atoms.
#[inline(always)]
pub(super) fn multiply_staged<T, LA, LB, LC>(smem_a: *mut T, smem_b: *mut T, acc: &mut BlockTile<f32, LC>)
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    #[cfg(target_arch = "nvptx64")]
    if LC::Instruction::WGMMA {
        use crate::device::mma as wgmma;
        fence_accumulators(acc);
        // SAFETY: the staged tiles (published by the caller's barrier after the proxy fence),
        // the whole warpgroup here; the accumulators are touched only after the wait.
        unsafe {
            issue_products::<T, LA, LB, LC>(smem_a, smem_b, acc);
            wgmma::wgmma_wait_group::<0>();
        }
        fence_accumulators(acc);
        return;
    }
    let t = thread() as usize;
    let mma = MmaOf::<LC>::default();
    let s2r_a = make_tiled_copy_a::<LC::LoadA, _, _, _>(mma);
    let s2r_b = make_tiled_copy_b::<LC::LoadB, _, _, _>(mma);
    // SAFETY: the scratch's tiles, written above, as swizzled shared tensors.
    let (tile_a, tile_b) = unsafe {
        (
            LayoutTensor::<T, _, Shared>::from_ptr_in(smem_a, Swizzled::<RowSwizzle<LA, LC::Instruction>, OperandTile<LA, true, LC::Instruction>>::new()),
            LayoutTensor::<T, _, Shared>::from_ptr_in(smem_b, Swizzled::<RowSwizzle<LB, LC::Instruction>, OperandTile<LB, false, LC::Instruction>>::new()),
        )
    };
    let (src_a, src_b) = (s2r_a.get_slice(t).partition_s(tile_a), s2r_b.get_slice(t).partition_s(tile_b));
    let acc_ptr = acc.values_mut().as_mut_ptr();
    unroll_for::<KBlocks<LA, LC>>(|kb| {
        let mut frag_a = Aligned(<LC::FragmentA<T> as ValueStorage<T>>::splat(T::ZERO));
        let mut frag_b = Aligned(<LC::FragmentB<T> as ValueStorage<T>>::splat(T::ZERO));
        let (pa, pb) = (frag_a.0.as_mut_slice().as_mut_ptr(), frag_b.0.as_mut_slice().as_mut_ptr());
        // SAFETY: the fragments' registers, of their layouts' sizes (checked below), and the
        // accumulator's, in the C fragment's order (the layout `LC` was built from it).
        unsafe {
            let fa = || LayoutTensor::<T, Static<KBlockFragment<LC, OperandTile<LA, true, LC::Instruction>, 0>>, Local>::from_ptr_in(pa, Static::new());
            let fb = || LayoutTensor::<T, Static<KBlockFragment<LC, OperandTile<LB, false, LC::Instruction>, 1>>, Local>::from_ptr_in(pb, Static::new());
            let c = LayoutTensor::<f32, Static<AccumulatorFragment<LC>>, Local>::from_ptr_in(
                acc_ptr,
                Static::new(),
            );
            const {
                assert!(
                    KBlockFragment::<LC, OperandTile<LA, true, LC::Instruction>, 0>::SIZE == <LC::FragmentA<T> as ValueStorage<T>>::LEN
                        && KBlockFragment::<LC, OperandTile<LB, false, LC::Instruction>, 1>::SIZE == <LC::FragmentB<T> as ValueStorage<T>>::LEN,
                    "dot: the layout's fragment registers must match the tiled MMA's partitions"
                )
            };
            copy(s2r_a, src_a.slice_mode::<2>(kb as i64), fa());
            copy(s2r_b, src_b.slice_mode::<2>(kb as i64), fb());
            gemm(mma, fa(), fb(), c);
        }
    });
}

/// Copies tile `index` of `array` (elements outside it as zeros) into the staged
/// [`OperandTile`] of `I` at `smem`, each thread its values of `L`: with `vector`, runs of 8 as
/// 16-byte `cp.async` copies (without bounds tests when the whole tile lies inside the array,
/// else zero-filled past its last extent), to be waited for with the async-copy groups; else
/// element by element, synchronously ([`copy_elements`]). `ALIGNED`: the 16-byte path
/// only (the caller has checked the array), so that the loop holds no registers for the other.
#[inline(always)]
fn copy_tile_async<T: Element, L: TvLayout, I: DotInstruction, const ALIGNED: bool>(array: &LayoutTensor<'_, T, Strided<2>, Global>, index: [i64; 2], smem: *mut T, vector: bool) {
    let (layout, ptr) = (array.source(), array.as_ptr());
    let ([rows, cols], [s0, s1]) = (layout.shape, layout.stride);
    let tc = L::MAP.thread_coord(thread());
    let (r0, c0) = (index[0] * L::SHAPE[0] + tc[0], index[1] * L::SHAPE[1] + tc[1]);
    let whole = const { staging_width::<T, L>() * core::mem::size_of::<T>() == 16 };
    // The tile inside the array (the same for every thread: no divergence): no bounds per chunk,
    // the sources one constant offset apart, the copies unfilled. Most tiles of a large product.
    if whole && (ALIGNED || vector) && tile_inside::<L, 2>(&layout, &index) {
        let base = ptr.wrapping_offset((r0 * s0 + c0) as isize);
        super::for_each_value::<L>(|v| {
            if v % 8 == 0 {
                let vc = L::MAP.value_coord(v);
                let dst = smem.wrapping_offset(staged_offset::<L, I>(&tc, &vc));
                // SAFETY: inside the array (the whole tile is) and 16-byte aligned, as below.
                unsafe { cp_async_cg::<16>(dst as *mut u8, base.wrapping_offset((vc[0] * s0 + vc[1]) as isize) as *const u8) };
            }
        });
    } else if whole && (ALIGNED || vector) {
        super::for_each_value::<L>(|v| {
            if v % 8 == 0 {
                let vc = L::MAP.value_coord(v);
                let (r, c) = (r0 + vc[0], c0 + vc[1]);
                let valid = if r >= 0 && r < rows && c >= 0 && c < cols { (cols - c).min(8) } else { 0 };
                // Nothing is read when `valid` is 0, but the address must be valid: the base.
                let src = if valid > 0 { ptr.wrapping_offset((r * s0 + c) as isize) } else { ptr };
                let dst = smem.wrapping_offset(staged_offset::<L, I>(&tc, &vc));
                // SAFETY: `src` is inside the array for `valid` elements and 16-byte aligned
                // (`vector`: unit last stride, aligned base and row strides; runs start at
                // multiples of 8); `dst` is a whole 16-byte chunk of the tile in shared memory.
                unsafe { cp_async_cg_zfill::<16>(dst as *mut u8, src as *const u8, 2 * valid as u32) };
            }
        });
    } else if !ALIGNED {
        copy_elements::<T, L, I>(ptr, rows, cols, s0, s1, r0, c0, smem);
    }
}

/// The element-by-element path of [`copy_tile_async`] (arrays whose rows are not whole 16-byte
/// vectors): the thread's values of the tile whose thread origin is `origin`, zeros outside the
/// array, stored into the staged tile at `smem`. Out of line: the slow path's registers (its
/// loads are batched) would otherwise add to the main loop's, and a `wgmma` loop's 128
/// accumulators leave no room for them. A call to it does not serialize `wgmma` (only calls
/// that reach extern functions do).
#[inline(never)]
#[allow(clippy::too_many_arguments)] // scalars: arrays would be passed through local memory
fn copy_elements<T: Element, L: TvLayout, I: DotInstruction>(ptr: *mut T, rows: i64, cols: i64, s0: i64, s1: i64, r0: i64, c0: i64, smem: *mut T) {
    let tc = L::MAP.thread_coord(thread());
    super::for_each_value::<L>(|v| {
        let vc = L::MAP.value_coord(v);
        let (r, c) = (r0 + vc[0], c0 + vc[1]);
        let inside = r >= 0 && r < rows && c >= 0 && c < cols;
        // SAFETY: read only inside the array; written inside the shared tile.
        unsafe {
            let x = if inside { T::read(ptr.offset((r * s0 + c * s1) as isize)) } else { T::ZERO };
            *smem.offset(staged_offset::<L, I>(&tc, &vc)) = x;
        }
    });
}

/// `acc + sum over k < steps of A(a_at(k)) B(b_at(k))`, where `A(i)` is the `M x K` tile `i` of
/// `a` and `B(j)` the `K x N` tile `j` of `b` (elements outside the arrays are zeros): a K loop of
/// `tl.dot` whose loads are pipelined `STAGES` deep (Triton's `tl.range(0, steps,
/// num_stages=STAGES)`, CUTLASS's multistage main loop).
///
/// The tiles are copied straight into a ring of `STAGES` slots of the scratch by `cp.async`
/// (16-byte copies along rows where the arrays allow, zero-filled at the edges; element copies
/// otherwise), `STAGES - 1` steps ahead of the product, which reads each slot once it has landed
/// as [`dot`] reads its staged operands.
///
/// # Parameters
/// - `STAGES`: the ring's slots, 2 to 5 (3 to 5 on `wgmma`, where the copies run `STAGES - 2`
///   steps ahead and the products of two steps may be in flight).
/// - `T`, `LA`, `LB`, `LC`: as for [`dot`]; `LA` and `LB` give the tiles' shapes and which thread
///   copies which elements.
///
/// # Args
/// - `steps`: the number of products.
/// - `a`, `b`: the arrays (rank 2, any strides).
/// - `a_at`, `b_at`: the tile indices of step `k`.
/// - `acc`: the accumulator, returned with the products added.
/// - `scratch`: the block's scratch: `STAGES` slots of both tiles.
///
/// # Constraints
/// Those of [`dot`], with a scratch of `STAGES * 2 (M K + K N)` bytes (checked at compile time).
/// Every thread of the block calls it with the same `steps`; it synchronizes the block, and on
/// return no copy is in flight and the scratch is free.
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(128, &|| {
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::{dot_range, BlockTile};
/// use cute_rs_tensor::half::f16;
/// use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, static_layout, LayoutTensor, Strided};
/// static_layout!(Warps = "(2,2,1)");
/// blocked_layout!(A = shape [32, 16], size_per_thread [1, 8], threads_per_warp [16, 2], warps_per_cta [2, 2], order [1, 0]);
/// blocked_layout!(B = shape [16, 16], size_per_thread [1, 8], threads_per_warp [16, 2], warps_per_cta [1, 4], order [1, 0]);
/// dot_layout!(Acc = mma TiledMma<Atom, Warps>, shape [32, 16]);
/// let scratch = block_scratch!(DOT_RANGE_EXAMPLE, 4 * 1536);
/// // A = ones (32 x 40), B(k, n) = 1: every element of A B is 40 (K = 40: the last step is ragged).
/// let (mut av, mut bv) = (vec![f16::ONE; 32 * 40], vec![f16::ONE; 40 * 16]);
/// let a = LayoutTensor::new(&mut av, Strided::row_major([32, 40])).unwrap();
/// let b = LayoutTensor::new(&mut bv, Strided::row_major([40, 16])).unwrap();
/// let acc = dot_range::<3, f16, A, B, Acc, 6144>(3, &a, |k| [0, k], &b, |k| [k, 0], BlockTile::zeros(), &scratch);
/// assert!(acc.values().iter().all(|&x| x == 40.0));
/// # }).unwrap();
/// ```
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn dot_range<const STAGES: usize, T, LA, LB, LC, const BYTES: usize>(
    steps: i64,
    a: &LayoutTensor<'_, T, Strided<2>, Global>,
    a_at: impl Fn(i64) -> [i64; 2],
    b: &LayoutTensor<'_, T, Strided<2>, Global>,
    b_at: impl Fn(i64) -> [i64; 2],
    acc: BlockTile<f32, LC>,
    scratch: &Scratch<BYTES>,
) -> BlockTile<f32, LC>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    products::<STAGES, T, LA, LB, LC, BYTES, false>(steps, a, a_at, b, b_at, acc, scratch)
}


/// The copies of a [`dot_range`]: its arrays, their tile indices per step, and the ring of slots
/// in the scratch at `base`. Methods, not closures, so that they are always inlined: a `load`
/// closure with both copy paths was left out of line, its captures in local memory.
struct Ring<'s, 'a, T, LA, LB, LC, FA, FB, const ALIGNED: bool> {
    base: *mut T,
    a: &'s LayoutTensor<'a, T, Strided<2>, Global>,
    a_at: FA,
    b: &'s LayoutTensor<'a, T, Strided<2>, Global>,
    b_at: FB,
    /// Whether each array's rows are whole 16-byte vectors.
    vector: (bool, bool),
    layouts: PhantomData<(LA, LB, LC)>,
}

impl<T, LA, LB, LC, FA, FB, const ALIGNED: bool> Ring<'_, '_, T, LA, LB, LC, FA, FB, ALIGNED>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayout,
    FA: Fn(i64) -> [i64; 2],
    FB: Fn(i64) -> [i64; 2],
{
    /// The A and B tiles of `slot`.
    #[inline(always)]
    fn slot(&self, slot: u32) -> (*mut T, *mut T) {
        slot_tiles::<T, LA, LB>(self.base, slot)
    }

    /// This thread's copies of step `step`'s tiles into `slot`.
    #[inline(always)]
    fn load(&self, step: u32, slot: u32) {
        let (a, b) = self.slot(slot);
        copy_tile_async::<T, LA, LC::Instruction, ALIGNED>(self.a, (self.a_at)(step as i64), a, self.vector.0);
        copy_tile_async::<T, LB, LC::Instruction, ALIGNED>(self.b, (self.b_at)(step as i64), b, self.vector.1);
    }
}

/// The A and B tiles of slot `slot` of a ring of stages of both tiles at `base`.
#[inline(always)]
pub(super) fn slot_tiles<T, LA: TvLayout, LB: TvLayout>(base: *mut T, slot: u32) -> (*mut T, *mut T) {
    let a = base.wrapping_add(slot as usize * tile_bytes::<LA, LB>() / 2);
    (a, a.wrapping_add((LA::SHAPE[0] * LA::SHAPE[1]) as usize))
}

/// [`dot_range`] and [`dot_range_aligned`]: with `ALIGNED`, the 16-byte copies only, after a
/// check of the arrays.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn products<const STAGES: usize, T, LA, LB, LC, const BYTES: usize, const ALIGNED: bool>(
    steps: i64,
    a: &LayoutTensor<'_, T, Strided<2>, Global>,
    a_at: impl Fn(i64) -> [i64; 2],
    b: &LayoutTensor<'_, T, Strided<2>, Global>,
    b_at: impl Fn(i64) -> [i64; 2],
    acc: BlockTile<f32, LC>,
    scratch: &Scratch<BYTES>,
) -> BlockTile<f32, LC>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    check_operands::<T, LA, LB, LC, STAGES, BYTES>();
    check_stages::<LC, STAGES>();
    // Rows of whole 16-byte vectors: the loads' condition for vectors of 8 elements.
    let vector = |t: &LayoutTensor<'_, T, Strided<2>, Global>| vectorizable(&t.source(), t.as_ptr(), 8);
    let (vector_a, vector_b) = (vector(a), vector(b));
    // A misaligned array gets no copies (they would fault) and is refused after the loop: a
    // refusal ahead of it keeps more values live through it.
    let refused = ALIGNED && !(vector_a && vector_b);
    const { assert!(!ALIGNED || (LA::SHAPE[1] % 8 == 0 && LB::SHAPE[1] % 8 == 0), "dot_range_aligned: the tiles' last extents must be multiples of 8") };
    const {
        assert!(
            !ALIGNED || (staging_width::<T, LA>() == 8 && staging_width::<T, LB>() == 8),
            "dot_range_aligned: the tiles' layouts must give each thread runs of 8 elements along the rows (its copies are 16 bytes)"
        )
    };
    let mut acc = acc;
    let ring = Ring::<T, LA, LB, LC, _, _, ALIGNED> { base: scratch.slots::<T>(), a, a_at, b, b_at, vector: (vector_a, vector_b), layouts: PhantomData };
    // Earlier users of the scratch are done before the first copies land in it.
    sync_threads();
    let steps = if refused { 0 } else { steps.max(0) as u32 };
    #[cfg(target_arch = "nvptx64")]
    if LC::Instruction::WGMMA {
        wgmma_ring::<STAGES, _, _, _, _, _, _, ALIGNED>(steps, &ring, &mut acc);
    }
    if !(cfg!(target_arch = "nvptx64") && LC::Instruction::WGMMA) {
        let load = |step: u32, slot: u32| ring.load(step, slot);
        let compute = |_: u32, slot: u32| {
            let (a, b) = ring.slot(slot);
            multiply_staged::<T, LA, LB, LC>(a, b, &mut acc)
        };
        match STAGES {
            2 => cp_async_pipeline::<0>(steps, load, compute),
            3 => cp_async_pipeline::<1>(steps, load, compute),
            4 => cp_async_pipeline::<2>(steps, load, compute),
            _ => cp_async_pipeline::<3>(steps, load, compute),
        }
    }
    // Every warp's reads of the last slot are done: the scratch is free.
    sync_threads();
    if cfg!(target_arch = "nvptx64") && LC::Instruction::WGMMA {
        // No message on `wgmma`: the printing call would make ptxas serialize every wgmma of the
        // kernel (C7509, "extern calls"); the launch fails with an illegal instruction instead.
        if refused {
            crate::device::sync::trap();
        }
    } else {
        crate::device_assert!(
            !refused,
            "dot_range_aligned: the arrays' last stride must be 1, their row strides multiples of 8 elements and their bases 16-byte aligned"
        );
    }
    acc
}

/// The K loop of [`products`] on `wgmma`: the copies run `STAGES - 2` steps ahead, and two
/// steps' products are in flight while the next copies are issued, so that the tensor cores
/// always have the next step queued (waiting for a step's products before issuing the next
/// step's copies drained them once per step). A slot is refilled two steps after its products
/// were issued: the one barrier of a step follows every warpgroup's wait for them.
///
/// Each step: wait for its copies, proxy fence (`wgmma` reads through the async proxy), barrier;
/// issue the products; issue the copies of step `step + STAGES - 2` into the slot of step
/// `step - 2`; wait until only this step's products are in flight.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
#[allow(clippy::type_complexity)]
fn wgmma_ring<const STAGES: usize, T, LA, LB, LC, FA, FB, const ALIGNED: bool>(steps: u32, ring: &Ring<'_, '_, T, LA, LB, LC, FA, FB, ALIGNED>, acc: &mut BlockTile<f32, LC>)
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayout,
    FA: Fn(i64) -> [i64; 2],
    FB: Fn(i64) -> [i64; 2],
{
    use crate::device::cp_async::{commit_group, wait_group};
    use crate::device::mma as wgmma;
    let slots = STAGES as u32;
    let ahead = slots - 2;
    for s in 0..ahead {
        if s < steps {
            ring.load(s, s);
        }
        commit_group();
    }
    fence_accumulators(acc);
    for step in 0..steps {
        // Step `step`'s copies have landed (at most `STAGES - 3` younger groups pending).
        match STAGES {
            3 => wait_group::<0>(),
            4 => wait_group::<1>(),
            _ => wait_group::<2>(),
        }
        // Every thread fences its own landed copies before the barrier that publishes them:
        // element copies are ordinary stores, and it is not documented that `cp.async` writes
        // reach the async proxy without one (and dropping it is no faster).
        crate::device::tma::fence_proxy_async_shared_cta();
        sync_threads();
        let (a, b) = ring.slot(step % slots);
        // SAFETY: the slot's tiles have landed and are published (fence, barrier); the whole
        // warpgroup issues; the accumulators are touched only by the products until the wait
        // after the loop.
        unsafe { issue_products::<T, LA, LB, LC>(a, b, acc) };
        let next = step + ahead;
        if next < steps {
            ring.load(next, next % slots);
        }
        commit_group();
        // SAFETY: the previous step's products are done (those of this step may run on).
        unsafe { wgmma::wgmma_wait_group::<1>() };
    }
    // SAFETY: waits for the warpgroup's last products.
    unsafe { wgmma::wgmma_wait_group::<0>() };
    fence_accumulators(acc);
    wait_group::<0>();
}

/// Issues and commits one group of `wgmma` products `acc += A B` of the staged tiles at `a` and
/// `b` (not waited for).
///
/// # Safety
/// The tiles are staged and visible to the async proxy; the whole warpgroup issues; the
/// accumulators are not touched until the group is waited for.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(super) unsafe fn issue_products<T, LA: TvLayout, LB: TvLayout, LC: DotLayout>(a: *mut T, b: *mut T, acc: &mut BlockTile<f32, LC>) {
    use crate::device::mma as wgmma;
    // SAFETY: the caller's.
    unsafe {
        wgmma::wgmma_fence();
        LC::Instruction::issue::<LA, LB>(generic_to_shared(a), generic_to_shared(b), acc.values_mut().as_mut_ptr());
        wgmma::wgmma_commit_group();
    }
}

/// A compiler fence on each accumulator register around `wgmma` (see
/// [`wgmma_fence_operand`](crate::device::mma::wgmma_fence_operand)).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(super) fn fence_accumulators<LC: TvLayout>(acc: &mut BlockTile<f32, LC>) {
    let values = acc.values_mut();
    super::for_each_value::<LC>(|v| crate::device::mma::wgmma_fence_operand(&mut values[v]));
}

/// [`dot_range`] for arrays whose rows are whole 16-byte vectors: unit last stride, row strides
/// multiples of 8 elements, 16-byte-aligned bases (Triton's specialization of arguments divisible
/// by 16). Only the 16-byte copies are compiled, which leaves the main loop more registers (the
/// element copies of [`dot_range`]'s other path hold many). `K` and the extents need not be
/// multiples of anything: the copies zero-fill past the edges.
///
/// # Constraints
/// Those of [`dot_range`]; the tiles' last extents are multiples of 8; an array that is not
/// aligned stops the kernel with "dot_range_aligned: the arrays' last stride must be 1, their row
/// strides multiples of 8 elements and their bases 16-byte aligned".
///
/// # Example
/// ```
/// # cute_rs_tensor::device::cpu::run_block(128, &|| {
/// use cute_rs_tensor::atom::{SM80_16x8x16_F32F16F16F32_TN as Atom, TiledMma};
/// use cute_rs_tensor::block_tile::{dot_range_aligned, BlockTile};
/// use cute_rs_tensor::half::f16;
/// use cute_rs_tensor::{block_scratch, blocked_layout, dot_layout, static_layout, LayoutTensor, Strided};
/// static_layout!(Warps = "(2,2,1)");
/// blocked_layout!(A = shape [32, 16], size_per_thread [1, 8], threads_per_warp [16, 2], warps_per_cta [2, 2], order [1, 0]);
/// blocked_layout!(B = shape [16, 16], size_per_thread [1, 8], threads_per_warp [16, 2], warps_per_cta [1, 4], order [1, 0]);
/// dot_layout!(Acc = mma TiledMma<Atom, Warps>, shape [32, 16]);
/// let scratch = block_scratch!(DOT_RANGE_ALIGNED_EXAMPLE, 4 * 1536);
/// // K = 20 in rows of 24: the last step zero-fills past K.
/// let (mut av, mut bv) = (vec![f16::ONE; 32 * 24], vec![f16::ONE; 20 * 16]);
/// let a = LayoutTensor::new(&mut av, Strided::new([32, 20], [24, 1])).unwrap();
/// let b = LayoutTensor::new(&mut bv, Strided::row_major([20, 16])).unwrap();
/// let acc = dot_range_aligned::<2, f16, A, B, Acc, 6144>(2, &a, |k| [0, k], &b, |k| [k, 0], BlockTile::zeros(), &scratch);
/// assert!(acc.values().iter().all(|&x| x == 20.0));
/// # }).unwrap();
/// ```
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn dot_range_aligned<const STAGES: usize, T, LA, LB, LC, const BYTES: usize>(
    steps: i64,
    a: &LayoutTensor<'_, T, Strided<2>, Global>,
    a_at: impl Fn(i64) -> [i64; 2],
    b: &LayoutTensor<'_, T, Strided<2>, Global>,
    b_at: impl Fn(i64) -> [i64; 2],
    acc: BlockTile<f32, LC>,
    scratch: &Scratch<BYTES>,
) -> BlockTile<f32, LC>
where
    T: Element,
    LA: TvLayout,
    LB: TvLayout,
    LC: DotLayoutOf<T>,
{
    products::<STAGES, T, LA, LB, LC, BYTES, true>(steps, a, a_at, b, b_at, acc, scratch)
}
