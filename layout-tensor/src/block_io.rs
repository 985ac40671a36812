//! Cooperative block and warp loads and stores: rocPRIM's `block_load`/`block_store` and
//! `warp_load`/`warp_store` (CUB's `BlockLoad`/`BlockStore`), built on layouts.
//!
//! A block of `THREADS` threads moves a tile of `THREADS * ITEMS` consecutive elements; each thread
//! holds `ITEMS` of them in registers (`[T; ITEMS]`). Which elements a thread holds is an
//! *arrangement*, a layout of the algebra from (item, thread) to the tile offset:
//!
//! | arrangement | layout `(item, thread) -> offset` | thread `t` holds |
//! | --- | --- | --- |
//! | [`blocked`] | `(I,T):(1,I)` | `t*I .. t*I + I` |
//! | [`striped`] | `(I,T):(T,1)` | `t, t + T, t + 2T, ...` |
//! | [`warp_striped`] | `(I,(32,W)):(32,(1,32I))` | striped within its warp's `32 I` elements |
//!
//! Each method is a copy between the tile in memory and one of these arrangements, through shared
//! memory where the arrangement read from memory is not the one wanted:
//!
//! | method ([`method`]) | reads / writes memory as | registers hold | shared memory |
//! | --- | --- | --- | --- |
//! | [`Direct`](method::Direct) | blocked (uncoalesced for large `I`) | blocked | none |
//! | [`Striped`](method::Striped) | striped (coalesced) | striped | none |
//! | [`Vectorize`](method::Vectorize) | blocked, in vectors of up to 16 bytes | blocked | none |
//! | [`Transpose`](method::Transpose) | striped | blocked | the tile, block barrier |
//! | [`WarpTranspose`](method::WarpTranspose) | warp-striped | blocked | the tile, warp barriers |
//! | [`WarpTransposeTimesliced`](method::WarpTransposeTimesliced) | warp-striped | blocked | one warp's share, warps take turns |
//!
//! [`Vectorize`](method::Vectorize) falls back to [`Direct`](method::Direct), exactly as rocPRIM's
//! documentation says, when `ITEMS` is odd, when `T` is not a primitive type
//! ([`BlockItem::VECTORIZABLE`]), or when the input is not aligned to the vector (checked at run
//! time, per call); guarded calls with a partial tile use the direct path too. Inputs and outputs
//! are in global memory (the vectorized path uses `ld.global`/`st.global`).
//!
//! ## Shared memory without bank conflicts
//! The staging storage is the tile through [`padded_storage`]: for an even `I`, offset `j` lives at
//! `j + j / 32` (one element of padding per 32); for an odd `I` at `j` (stride `I` is then already
//! coprime with the 32 banks, and padding would add conflicts). Both the striped writes
//! (consecutive threads, consecutive offsets) and the blocked reads (stride `I`) of 4-byte items
//! then hit 32 different banks, for every `I` (a unit test checks `I` = 1 to 16 for blocks of whole
//! warps). Its length is [`BlockLoad::STORAGE_LEN`], a compile-time constant: declare it
//! with [`block_storage!`](crate::block_storage) (a [`shared_array!`](crate::shared_array)).
//!
//! **Reuse**: the same storage may serve several calls (or be aliased with other shared data)
//! provided a block barrier (`sync_threads()`) separates a call from the next use of the storage,
//! exactly as rocPRIM requires: the transposing methods end by reading the storage, and a thread
//! that starts the next call would overwrite what a slower thread has not read yet. For the warp
//! methods a warp barrier (`sync_warp`) between uses suffices.
//!
//! ## Guarded calls
//! `load_guarded(input, items, valid, oob)` reads only tile offsets `< valid` and gives `oob` for
//! the others; `load_valid(input, items, valid)` reads the same and leaves the other items as they
//! were; `store_guarded(output, items, valid)` writes only offsets `< valid`.
//!
//! ## Inputs other than memory
//! `load_from(input, items)` reads any [`Input`]: a pointer, or [`FromFn`], a function
//! of the tile offset (rocPRIM's input iterators: counting, transforming, converting another
//! element type), read in the method's pattern without vectors.
//!
//! ## Blocks of two and three dimensions
//! `BlockLoad<T, BX, I, M, BY, BZ>` is for a block of `BX x BY x BZ` threads, ranked
//! `x + BX (y + BY z)` as rocPRIM ranks them. Methods that need no storage are called without one ([`NoStorage`]).
//!
//! ```
//! use cute_rs_tensor::block_io::{blocked, striped, warp_striped};
//! assert_eq!(blocked(4, 2).unwrap().to_string(), "(2,4):(1,2)");
//! assert_eq!(striped(4, 2).unwrap().to_string(), "(2,4):(4,1)");
//! assert_eq!(warp_striped(64, 2).unwrap().to_string(), "(2,(32,2)):(32,(1,64))");
//! ```

use core::marker::PhantomData;

use cute_rs_layout::{make_layout, Layout, LayoutError};

use crate::device::ids;
use crate::device::shared::SharedArray;
use crate::device::sync;

/// Element types of block loads and stores. `VECTORIZABLE`: whether [`method::Vectorize`] may
/// move it as raw bytes in wider vectors (true for the primitive numbers; a user type implementing
/// this trait with `false` always takes the direct path, as rocPRIM does for non-primitive types).
///
/// # Safety
/// `T` is plain data: any bytes read from a `T` in memory form a valid `T`.
///
/// ```
/// use cute_rs_tensor::block_io::BlockItem;
/// assert!(<f32 as BlockItem>::VECTORIZABLE);
/// ```
pub unsafe trait BlockItem: Copy {
    /// Whether vectorized accesses may move it.
    const VECTORIZABLE: bool;
}

macro_rules! primitive_items {
    ($($t:ty),*) => {$(
        // SAFETY: plain numbers.
        unsafe impl BlockItem for $t {
            const VECTORIZABLE: bool = true;
        }
    )*};
}
primitive_items!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, half::bf16, half::f16);

/// The cooperative methods, as marker types (the method is a compile-time parameter).
pub mod method {
    /// How a method moves data; see the [module docs](super).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Kind {
        /// Blocked arrangement read/written directly.
        Direct,
        /// Striped arrangement read/written directly.
        Striped,
        /// Blocked, in vectors.
        Vectorize,
        /// Striped in memory, blocked in registers, through shared memory.
        Transpose,
        /// Warp-striped in memory, blocked in registers, through shared memory per warp.
        WarpTranspose,
        /// As `WarpTranspose`, with shared memory for one warp, warps taking turns.
        WarpTransposeTimesliced,
    }

    /// A method marker.
    ///
    /// ```
    /// use cute_rs_tensor::block_io::method::{Kind, Method, Transpose};
    /// assert_eq!(Transpose::KIND, Kind::Transpose);
    /// ```
    pub trait Method {
        /// What the method does.
        const KIND: Kind;
        /// rocPRIM's name of it.
        const NAME: &'static str;
    }

    macro_rules! methods {
        ($($(#[$doc:meta])* $name:ident => $kind:ident, $rocprim:literal;)*) => {$(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, Default)]
            pub struct $name;
            impl Method for $name {
                const KIND: Kind = Kind::$kind;
                const NAME: &'static str = $rocprim;
            }
        )*};
    }
    methods! {
        /// `block_load_direct`: blocked, read directly.
        Direct => Direct, "block_load_direct";
        /// `block_load_striped`: striped, read directly (registers hold the striped arrangement).
        Striped => Striped, "block_load_striped";
        /// `block_load_vectorize`: blocked, in vectors (falls back to direct; see the module docs).
        Vectorize => Vectorize, "block_load_vectorize";
        /// `block_load_transpose`: striped reads, transposed to blocked in shared memory.
        Transpose => Transpose, "block_load_transpose";
        /// `block_load_warp_transpose`: warp-striped reads, transposed per warp.
        WarpTranspose => WarpTranspose, "block_load_warp_transpose";
        /// CUB's `BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED`: as warp transpose, one warp's storage.
        WarpTransposeTimesliced => WarpTransposeTimesliced, "block_load_warp_transpose_timesliced";
    }
}

use method::{Kind, Method};


/// The blocked arrangement of `threads` x `items`: `(items, threads):(1, items)`.
///
/// ```
/// let l = cute_rs_tensor::block_io::blocked(128, 4).unwrap();
/// assert_eq!(l.call(1 + 4 * 3), 13); // item 1 of thread 3
/// ```
pub const fn blocked(threads: usize, items: usize) -> Result<Layout, LayoutError> {
    make_layout(&[tri!(Layout::int(items as i64, 1)), tri!(Layout::int(threads as i64, items as i64))])
}

/// The striped arrangement: `(items, threads):(threads, 1)`.
///
/// ```
/// let l = cute_rs_tensor::block_io::striped(128, 4).unwrap();
/// assert_eq!(l.call(1 + 4 * 3), 131); // item 1 of thread 3
/// ```
pub const fn striped(threads: usize, items: usize) -> Result<Layout, LayoutError> {
    make_layout(&[tri!(Layout::int(items as i64, threads as i64)), tri!(Layout::int(threads as i64, 1))])
}

/// The warp-striped arrangement: striped within each warp's `32 * items` elements,
/// `(items, (32, threads / 32)):(32, (1, 32 * items))`. `threads` must be a multiple of 32.
///
/// ```
/// let l = cute_rs_tensor::block_io::warp_striped(64, 2).unwrap();
/// assert_eq!(l.call(1 + 2 * 33), 64 + 32 + 1); // item 1 of thread 33 (warp 1, lane 1)
/// assert!(cute_rs_tensor::block_io::warp_striped(48, 2).is_err());
/// ```
pub const fn warp_striped(threads: usize, items: usize) -> Result<Layout, LayoutError> {
    if threads % 32 != 0 {
        return Err(LayoutError::InvalidArgument {
            op: "warp_striped",
            condition: "the thread count must be a multiple of the warp size 32",
            value: threads as i64,
        });
    }
    let lanes = make_layout(&[
        tri!(Layout::int(32, 1)),
        tri!(Layout::int((threads / 32) as i64, 32 * items as i64)),
    ]);
    make_layout(&[tri!(Layout::int(items as i64, 32)), tri!(lanes)])
}

/// The staging layout of an `n`-element tile of `items` per thread: for an even `items`,
/// `(32, ceil(n/32)):(1, 33)` (offset `j` at `j + j / 32`); for an odd one, `n:1`.
///
/// ```
/// let l = cute_rs_tensor::block_io::padded_storage(100, 4).unwrap();
/// assert_eq!(l.to_string(), "(32,4):(1,33)");
/// assert_eq!(l.call(40), 41);
/// assert_eq!(cute_rs_tensor::block_io::padded_storage(99, 3).unwrap().to_string(), "99:1");
/// ```
pub const fn padded_storage(n: usize, items: usize) -> Result<Layout, LayoutError> {
    let n = if n == 0 { 1 } else { n };
    if items % 2 == 1 {
        return Layout::int(n as i64, 1);
    }
    make_layout(&[tri!(Layout::int(32, 1)), tri!(Layout::int(n.div_ceil(32) as i64, 33))])
}

/// The elements of staging storage a tile of `n` elements of `items` per thread needs.
const fn padded_len(n: usize, items: usize) -> usize {
    if items % 2 == 1 {
        n
    } else {
        n + n.div_ceil(32)
    }
}

/// Unwraps a layout built from checked parameters in a `const` (the checks ran before).
const fn must(r: Result<Layout, LayoutError>) -> Layout {
    match r {
        Ok(l) => l,
        Err(_) => panic!("block_io: arrangement layout"),
    }
}

/// On the CPU backend, panics (the launch then fails with the message) unless the block has
/// exactly `threads` threads: a block-wide primitive sized for another block reads shared memory
/// nobody wrote. On the GPU it costs nothing (the kernel's launch contract,
/// `#[kernel(block(..))]`, is the check there).
///
/// # Example
/// ```
/// // Outside a CPU-backend launch nothing is checked.
/// cute_rs_tensor::block_io::check_block_size("BlockReduce", 128);
/// ```
#[inline(always)]
pub fn check_block_size(primitive: &str, threads: usize) {
    #[cfg(not(target_arch = "nvptx64"))]
    if crate::device::cpu::in_kernel() {
        let block = ids::block_size() as usize;
        if block != threads {
            panic!(
                "{primitive} for {threads} threads called in a block of {block} threads: launch the kernel with \
                 blocks of {threads} (declare it with #[kernel(block({threads}))])"
            );
        }
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = (primitive, threads);
}

/// The part of a cooperative group the calls need: its size, this thread's rank, its barrier.
trait Group {
    const THREADS: usize;
    fn rank() -> usize;
    fn sync();
}

/// A block of `BX x BY x BZ` threads.
struct BlockGroup<const BX: usize, const BY: usize, const BZ: usize>;

impl<const BX: usize, const BY: usize, const BZ: usize> Group for BlockGroup<BX, BY, BZ> {
    const THREADS: usize = BX * BY * BZ;
    #[inline(always)]
    fn rank() -> usize {
        check_block_size("a block-wide I/O call", BX * BY * BZ);
        let t = ids::thread_idx();
        t.x as usize + BX * (t.y as usize + BY * t.z as usize)
    }
    #[inline(always)]
    fn sync() {
        sync::sync_threads();
    }
}

/// A logical warp of `W` lanes (a power of two up to 32).
struct WarpGroup<const W: usize>;

impl<const W: usize> Group for WarpGroup<W> {
    const THREADS: usize = W;
    #[inline(always)]
    fn rank() -> usize {
        ids::lane_id() as usize % W
    }
    #[inline(always)]
    fn sync() {
        let lane = ids::lane_id();
        let mask = if W == 32 { u32::MAX } else { ((1u32 << W) - 1) << (lane / W as u32 * W as u32) };
        sync::sync_warp(mask);
    }
}

/// The implementation shared by the block and warp front ends.
struct Coop<T, M, G, const I: usize>(PhantomData<(T, M, G)>);

impl<T: BlockItem, M: Method, G: Group, const I: usize> Coop<T, M, G, I> {
    const TILE: usize = G::THREADS * I;
    const CHECK: () = {
        assert!(I >= 1, "block_io: at least one item per thread");
        assert!(G::THREADS >= 1 && G::THREADS <= 1024, "block_io: 1 to 1024 threads");
        if matches!(M::KIND, Kind::WarpTranspose | Kind::WarpTransposeTimesliced) {
            assert!(
                G::THREADS % 32 == 0,
                "block_load_warp_transpose: the block size must be a multiple of the warp size 32"
            );
        }
    };
    const BLOCKED: Layout = must(blocked(G::THREADS, I));
    const STRIPED: Layout = must(striped(G::THREADS, I));
    /// The arrangement memory is read/written in.
    const MEMORY: Layout = match M::KIND {
        Kind::Direct | Kind::Vectorize => Self::BLOCKED,
        Kind::Striped | Kind::Transpose => Self::STRIPED,
        Kind::WarpTranspose | Kind::WarpTransposeTimesliced => must(warp_striped(G::THREADS, I)),
    };
    /// Whether registers differ from memory's arrangement (a transpose through shared memory).
    const EXCHANGES: bool = matches!(M::KIND, Kind::Transpose | Kind::WarpTranspose | Kind::WarpTransposeTimesliced);
    const STORAGE_LEN: usize = match M::KIND {
        Kind::Direct | Kind::Striped | Kind::Vectorize => 0,
        Kind::Transpose | Kind::WarpTranspose => padded_len(Self::TILE, I),
        Kind::WarpTransposeTimesliced => padded_len(32 * I, I),
    };
    const PAD: Layout = must(padded_storage(Self::TILE, I));
    /// Vector bytes of the vectorized path (0: none).
    const VECTOR: usize = {
        let bytes = I * core::mem::size_of::<T>();
        if !matches!(M::KIND, Kind::Vectorize) || !T::VECTORIZABLE || I % 2 != 0 {
            0
        } else if bytes % 16 == 0 {
            16
        } else if bytes % 8 == 0 {
            8
        } else if bytes % 4 == 0 {
            4
        } else if bytes % 2 == 0 {
            2
        } else {
            0
        }
    };

    /// Compile-time checks of the parameters and of the storage's size.
    #[inline(always)]
    fn check_storage<S: TempStorage<T>>() {
        const {
            let () = Self::CHECK;
            assert!(
                S::LEN >= Self::STORAGE_LEN,
                "block_io: the method needs temporary storage of STORAGE_LEN elements: bind it with `with_storage(block_storage!(..))`"
            );
        }
    }

    /// Reads memory's arrangement of this thread into `items` (offsets `>= valid` get `oob`).
    #[inline(always)]
    unsafe fn read<S: Input<T>>(input: &S, items: &mut [T; I], rank: usize, guard: Option<(usize, T)>) {
        if let Some(ptr) = input.pointer() {
            if Self::VECTOR != 0 && guard.map(|(v, _)| v >= Self::TILE).unwrap_or(true) && ptr as usize % Self::VECTOR == 0 {
                return vector_copy::<T, I>(ptr.add(rank * I) as *mut u8, items.as_mut_ptr() as *mut u8, Self::VECTOR, true);
            }
        }
        for i in 0..I {
            let j = Self::MEMORY.call((i + I * rank) as i64) as usize;
            items[i] = match guard {
                Some((valid, oob)) if j >= valid => oob,
                _ => input.at(j),
            };
        }
    }

    #[inline(always)]
    unsafe fn write(output: *mut T, items: &[T; I], rank: usize, valid: Option<usize>) {
        if Self::VECTOR != 0 && valid.map(|v| v >= Self::TILE).unwrap_or(true) && output as usize % Self::VECTOR == 0 {
            return vector_copy::<T, I>(output.add(rank * I) as *mut u8, items.as_ptr() as *mut u8, Self::VECTOR, false);
        }
        for i in 0..I {
            let j = Self::MEMORY.call((i + I * rank) as i64) as usize;
            if valid.map(|v| j < v).unwrap_or(true) {
                *output.add(j) = items[i];
            }
        }
    }

    /// Moves `items` from arrangement `from` to arrangement `to` through `storage`: each thread
    /// writes its items where `from` puts them, and reads where `to` puts its own.
    #[inline(always)]
    unsafe fn exchange(items: &mut [T; I], rank: usize, storage: *mut T, from: Layout, to: Layout) {
        match M::KIND {
            Kind::WarpTransposeTimesliced => {
                // One warp's tile at a time: warp `w` uses offsets relative to its `32 I`
                // elements; the block barriers separate the turns.
                let warp = rank / 32;
                let base = warp * 32 * I;
                for w in 0..G::THREADS / 32 {
                    if w == warp {
                        Self::stage(items, rank, storage, from, base);
                        sync::sync_warp(u32::MAX);
                        Self::unstage(items, rank, storage, to, base);
                    }
                    G::sync();
                }
            }
            Kind::WarpTranspose => {
                // Each warp only touches its own `32 I` elements: a warp barrier suffices.
                Self::stage(items, rank, storage, from, 0);
                sync::sync_warp(u32::MAX);
                Self::unstage(items, rank, storage, to, 0);
            }
            _ => {
                Self::stage(items, rank, storage, from, 0);
                G::sync();
                Self::unstage(items, rank, storage, to, 0);
            }
        }
    }

    #[inline(always)]
    unsafe fn stage(items: &[T; I], rank: usize, storage: *mut T, from: Layout, base: usize) {
        for i in 0..I {
            let j = from.call((i + I * rank) as i64) as usize - base;
            *storage.add(Self::PAD.call(j as i64) as usize) = items[i];
        }
    }

    #[inline(always)]
    unsafe fn unstage(items: &mut [T; I], rank: usize, storage: *mut T, to: Layout, base: usize) {
        for i in 0..I {
            let j = to.call((i + I * rank) as i64) as usize - base;
            items[i] = *storage.add(Self::PAD.call(j as i64) as usize);
        }
    }

    #[inline(always)]
    unsafe fn load<S: Input<T>>(input: &S, items: &mut [T; I], guard: Option<(usize, T)>, storage: *mut T) {
        let rank = G::rank();
        Self::read(input, items, rank, guard);
        if Self::EXCHANGES {
            Self::exchange(items, rank, storage, Self::MEMORY, Self::BLOCKED);
        }
    }

    /// [`load`](Self::load) of the offsets `< valid` only, the items at other offsets keeping
    /// their values (rocPRIM's `load(input, items, valid)`).
    #[inline(always)]
    unsafe fn load_keeping<S: Input<T>>(input: &S, items: &mut [T; I], valid: usize, storage: *mut T) {
        let old = *items;
        // Any placeholder for the offsets past `valid`: they are restored below.
        Self::load(input, items, Some((valid, old[0])), storage);
        let registers = if Self::EXCHANGES { Self::BLOCKED } else { Self::MEMORY };
        let rank = G::rank();
        for i in 0..I {
            if registers.call((i + I * rank) as i64) as usize >= valid {
                items[i] = old[i];
            }
        }
    }

    #[inline(always)]
    unsafe fn store(output: *mut T, items: &[T; I], valid: Option<usize>, storage: *mut T) {
        let rank = G::rank();
        if Self::EXCHANGES {
            let mut staged = *items;
            Self::exchange(&mut staged, rank, storage, Self::BLOCKED, Self::MEMORY);
            Self::write(output, &staged, rank, valid);
        } else {
            Self::write(output, items, rank, valid);
        }
    }
}

/// Copies the `I` items of one thread in vectors of `v` bytes between global memory `mem` (aligned
/// to `v`, checked by the caller) and registers `regs` (aligned for `T` only), towards the
/// registers if `load`. The global side goes through [`memory::load`]/[`memory::store`] (single
/// `ld/st.global.v4` etc.): plain pointer reads here would let the optimizer merge the vector path
/// with the element-wise fallback into scalar loads.
#[inline(always)]
unsafe fn vector_copy<T, const I: usize>(mem: *mut u8, regs: *mut u8, v: usize, load: bool) {
    use crate::device::memory::{self, Ca, Wb};
    macro_rules! chunk {
        ($m:expr, $r:expr, $w:ty) => {
            if load {
                core::ptr::write_unaligned($r as *mut $w, memory::load($m as *const $w, Ca))
            } else {
                memory::store($m as *mut $w, core::ptr::read_unaligned($r as *const $w), Wb)
            }
        };
    }
    let bytes = I * core::mem::size_of::<T>();
    let mut k = 0;
    while k < bytes {
        let (m, r) = (mem.add(k), regs.add(k));
        match v {
            16 => chunk!(m, r, [u32; 4]),
            8 => chunk!(m, r, [u32; 2]),
            4 => chunk!(m, r, u32),
            _ => {
                if load {
                    core::ptr::write_unaligned(r as *mut u16, core::ptr::read(m as *const u16))
                } else {
                    core::ptr::write(m as *mut u16, core::ptr::read_unaligned(r as *const u16))
                }
            }
        }
        k += v;
    }
}

/// Where a block load reads its tile: a pointer (vectorizable), or a function of the tile offset
/// (rocPRIM's input iterators, with the conversion to `T` inside it: [`FromFn`]).
///
/// # Example
/// ```
/// use cute_rs_tensor::block_io::{FromFn, Input};
/// let squares = FromFn(|j: usize| (j * j) as f32);
/// assert_eq!(unsafe { squares.at(3) }, 9.0);
/// ```
pub trait Input<T>: Copy {
    /// The tile's first element, when the input is memory (the vectorized path may read it).
    fn pointer(&self) -> Option<*const T>;
    /// Element `j` of the tile.
    ///
    /// # Safety
    /// `j` is inside the tile, and a pointer input is valid there.
    unsafe fn at(&self, j: usize) -> T;
}

impl<T: Copy> Input<T> for *const T {
    #[inline(always)]
    fn pointer(&self) -> Option<*const T> {
        Some(*self)
    }
    #[inline(always)]
    unsafe fn at(&self, j: usize) -> T {
        *self.add(j)
    }
}

/// A function of the tile offset as a load's input: rocPRIM's input iterators (a counting or
/// transform iterator, an input of another element type converted on the fly).
///
/// # Example
/// ```no_run
/// use cute_rs_tensor::block_io::{method, BlockLoad, FromFn};
/// # unsafe fn k(bytes: *const u8) {
/// // u8 inputs read as f32 items.
/// let mut items = [0f32; 4];
/// BlockLoad::<f32, 128, 4, method::Striped>::new().load_from(FromFn(|j| *bytes.add(j) as f32), &mut items);
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct FromFn<F>(pub F);

impl<T, F: Fn(usize) -> T + Copy> Input<T> for FromFn<F> {
    #[inline(always)]
    fn pointer(&self) -> Option<*const T> {
        None
    }
    #[inline(always)]
    unsafe fn at(&self, j: usize) -> T {
        (self.0)(j)
    }
}

/// Where a loader's temporary storage is: [`NoStorage`] (the methods that need none, rocPRIM's
/// calls without `storage`) or a [`SharedArray`] bound with [`BlockLoad::with_storage`] /
/// [`WarpLoad::with_storage`]. A call whose method needs more than the bound storage holds is a
/// compile-time error.
///
/// ```
/// use cute_rs_tensor::block_io::{NoStorage, TempStorage};
/// assert_eq!(<NoStorage as TempStorage<f32>>::LEN, 0);
/// ```
///
/// A transposing method called without its storage does not compile:
///
/// ```compile_fail,E0080
/// use cute_rs_tensor::block_io::{method, BlockLoad};
/// let mut items = [0u32; 4];
/// // block_io: the method needs temporary storage of STORAGE_LEN elements: bind it with `with_storage(..)`
/// unsafe { BlockLoad::<u32, 128, 4, method::Transpose>::new().load(core::ptr::null(), &mut items) };
/// ```
pub trait TempStorage<T>: Copy {
    /// Elements it holds.
    const LEN: usize;
    /// Its first element (dangling when it holds none).
    fn ptr(&self) -> *mut T;
}

/// No temporary storage: what [`BlockLoad::new`] and [`WarpLoad::new`] start with, enough for
/// [`Direct`](method::Direct), [`Striped`](method::Striped) and [`Vectorize`](method::Vectorize).
///
/// ```no_run
/// use cute_rs_tensor::block_io::{method, BlockLoad};
/// # unsafe fn k(input: *const u32) {
/// let mut items = [0u32; 4];
/// BlockLoad::<u32, 128, 4, method::Vectorize>::new().load(input, &mut items);
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoStorage;

impl<T> TempStorage<T> for NoStorage {
    const LEN: usize = 0;
    #[inline(always)]
    fn ptr(&self) -> *mut T {
        // Never accessed: the methods that run without storage need none (`STORAGE_LEN` 0).
        core::ptr::NonNull::dangling().as_ptr()
    }
}

impl<T: Copy, const N: usize> TempStorage<T> for SharedArray<T, N> {
    const LEN: usize = N;
    #[inline(always)]
    fn ptr(&self) -> *mut T {
        self.as_mut_ptr()
    }
}

/// `block_load` and `block_store` for a block of `BX x BY x BZ` threads, `I` items each, of
/// element `T`, by method `M` ([`method`]; [`method::Direct`] by default). The parameters come in
/// rocPRIM's order (`block_load<T, BlockSizeX, ItemsPerThread, Method, BlockSizeY, BlockSizeZ>`),
/// so `BlockLoad<f32, 128, 4>` is rocPRIM's default `block_load<float, 128, 4>`. A zero-sized
/// value: all parameters are compile-time.
///
/// Constraints (compile-time errors): 1 to 1,024 threads; the warp-transpose methods need a
/// multiple of 32 threads:
///
/// ```compile_fail,E0080
/// use cute_rs_tensor::block_io::{method, BlockLoad};
/// // block_load_warp_transpose: the block size must be a multiple of the warp size 32
/// let load = BlockLoad::<i32, 48, 2, method::WarpTranspose>::new();
/// ```
///
/// ```
/// use cute_rs_tensor::block_io::{method, BlockLoad};
/// type Load = BlockLoad<f32, 128, 4, method::Transpose>;
/// assert_eq!(Load::TILE, 512);
/// assert_eq!(Load::STORAGE_LEN, 512 + 16);
/// assert_eq!(BlockLoad::<f32, 128, 4, method::Direct>::STORAGE_LEN, 0);
/// // The default method is the direct one.
/// let _: BlockLoad<f32, 128, 4> = BlockLoad::<f32, 128, 4, method::Direct>::new();
/// ```
///
/// The temporary storage is bound to the loader, as CUB's `BlockLoad(temp_storage)`:
/// [`new`](Self::new) has none, which the direct methods need, and
/// [`with_storage`](Self::with_storage) binds a [`block_storage!`](crate::block_storage) for the
/// transposing ones. The calls then take no storage argument.
pub struct BlockLoad<T, const BX: usize, const I: usize, M = method::Direct, const BY: usize = 1, const BZ: usize = 1, S = NoStorage>(
    S,
    PhantomData<(T, M)>,
);

/// `block_store`: the same type as [`BlockLoad`] (one value loads and stores).
pub type BlockStore<T, const BX: usize, const I: usize, M = method::Direct, const BY: usize = 1, const BZ: usize = 1, S = NoStorage> =
    BlockLoad<T, BX, I, M, BY, BZ, S>;

impl<T: BlockItem, M: Method, const BX: usize, const I: usize, const BY: usize, const BZ: usize> BlockLoad<T, BX, I, M, BY, BZ> {
    /// Elements of the block's tile, `BX * BY * BZ * I`.
    pub const TILE: usize = Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::TILE;
    /// Elements of temporary storage the method needs (0 for the direct methods).
    pub const STORAGE_LEN: usize = Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::STORAGE_LEN;

    /// The (zero-sized) block loader.
    ///
    /// ```
    /// let _ = cute_rs_tensor::block_io::BlockLoad::<u8, 64, 3, cute_rs_tensor::block_io::method::Striped>::new();
    /// ```
    #[inline(always)]
    pub const fn new() -> Self {
        let () = Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::CHECK;
        BlockLoad(NoStorage, PhantomData)
    }

    /// The loader with `storage` (at least [`STORAGE_LEN`](Self::STORAGE_LEN) elements: a
    /// compile-time error otherwise) for its calls.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockLoad};
    /// # unsafe fn k(input: *const f32) {
    /// type Load = BlockLoad<f32, 128, 4, method::Transpose>;
    /// let storage = cute_rs_tensor::block_storage!(BOUND_DOC: Load);
    /// let mut items = [0f32; 4];
    /// Load::new().with_storage(storage).load(input, &mut items);
    /// # }
    /// ```
    #[inline(always)]
    pub fn with_storage<const N: usize>(self, storage: SharedArray<T, N>) -> BlockLoad<T, BX, I, M, BY, BZ, SharedArray<T, N>> {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<SharedArray<T, N>>();
        BlockLoad(storage, PhantomData)
    }
}

impl<T: BlockItem, M: Method, const BX: usize, const I: usize, const BY: usize, const BZ: usize, S: TempStorage<T>> BlockLoad<T, BX, I, M, BY, BZ, S> {

    /// Loads the tile at `input` (`TILE` elements) into `items`, in the method's register
    /// arrangement (blocked; striped for [`method::Striped`]).
    ///
    /// # Safety
    /// Every thread of the block calls it (the transposing methods synchronize); `input` is valid
    /// for `TILE` reads; the bound storage is not in use by others (see the module docs on reuse).
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockLoad};
    /// # unsafe fn k(input: *const i32) {
    /// let storage = cute_rs_tensor::block_storage!(LOAD_DOC: BlockLoad<i32, 128, 8, method::Transpose>);
    /// let mut items = [0i32; 8];
    /// BlockLoad::<i32, 128, 8, method::Transpose>::new().with_storage(storage).load(input, &mut items);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load(&self, input: *const T, items: &mut [T; I]) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<S>();
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::load(&input, items, None, self.0.ptr())
    }

    /// [`load`](Self::load) reading only tile offsets `< valid`; the others become `oob`.
    ///
    /// # Safety
    /// As [`load`](Self::load), with `input` valid for `min(valid, TILE)` reads.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockLoad};
    /// # unsafe fn k(input: *const f32, n: usize) {
    /// let mut items = [0f32; 4];
    /// BlockLoad::<f32, 64, 4, method::Direct>::new().load_guarded(input, &mut items, n, f32::NAN);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_guarded(
        &self,
        input: *const T,
        items: &mut [T; I],
        valid: usize,
        oob: T,
    ) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<S>();
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::load(&input, items, Some((valid, oob)), self.0.ptr())
    }

    /// [`load`](Self::load) reading only tile offsets `< valid`; the items at the other offsets
    /// keep the values they had (rocPRIM's `load(input, items, valid)`).
    ///
    /// # Safety
    /// As [`load`](Self::load), with `input` valid for `min(valid, TILE)` reads.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockLoad};
    /// # unsafe fn k(input: *const f32, n: usize) {
    /// let mut items = [-1f32; 4]; // offsets past n stay -1
    /// BlockLoad::<f32, 64, 4, method::Striped>::new().load_valid(input, &mut items, n);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_valid(&self, input: *const T, items: &mut [T; I], valid: usize) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<S>();
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::load_keeping(&input, items, valid, self.0.ptr())
    }

    /// [`load`](Self::load) from any [`Input`]: a pointer, or a function of the tile offset
    /// ([`FromFn`], rocPRIM's input iterators with their conversion), read with the method's
    /// pattern (a function input is never vectorized).
    ///
    /// # Safety
    /// As [`load`](Self::load); the input is read at tile offsets `< TILE` only.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockLoad, FromFn};
    /// # unsafe fn k() {
    /// let storage = cute_rs_tensor::block_storage!(FROM_DOC: BlockLoad<u32, 64, 2, method::Transpose>);
    /// let mut items = [0u32; 2];
    /// // A counting input: thread t gets 2t and 2t + 1.
    /// BlockLoad::<u32, 64, 2, method::Transpose>::new().with_storage(storage).load_from(FromFn(|j| j as u32), &mut items);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_from<In: Input<T>>(&self, input: In, items: &mut [T; I]) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<S>();
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::load(&input, items, None, self.0.ptr())
    }

    /// Stores `items` (in the method's register arrangement) to the tile at `output`.
    ///
    /// # Safety
    /// As [`load`](Self::load), with `output` valid for `TILE` writes.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockStore};
    /// # unsafe fn k(out: *mut u32) {
    /// let s = cute_rs_tensor::block_storage!(STORE_DOC: BlockStore<u32, 64, 2, method::WarpTranspose>);
    /// BlockStore::<u32, 64, 2, method::WarpTranspose>::new().with_storage(s).store(out, &[1, 2]);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn store(&self, output: *mut T, items: &[T; I]) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<S>();
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::store(output, items, None, self.0.ptr())
    }

    /// [`store`](Self::store) writing only tile offsets `< valid`.
    ///
    /// # Safety
    /// As [`store`](Self::store), with `output` valid for `min(valid, TILE)` writes.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, BlockStore};
    /// # unsafe fn k(out: *mut u8, n: usize) {
    /// BlockStore::<u8, 32, 7, method::Striped>::new().store_guarded(out, &[0; 7], n);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn store_guarded(&self, output: *mut T, items: &[T; I], valid: usize) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<S>();
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::store(output, items, Some(valid), self.0.ptr())
    }
}

impl<T: BlockItem, M: Method, const BX: usize, const I: usize, const BY: usize, const BZ: usize> Default
    for BlockLoad<T, BX, I, M, BY, BZ>
{
    fn default() -> Self {
        Self::new()
    }
}

/// Block exchanges (rocPRIM's `block_exchange`, CUB's `BlockExchange`): rearrange the block's
/// registers between arrangements through shared memory ([`padded_storage`]), without touching
/// global memory. `blocked_to_striped`/`striped_to_blocked` synchronize the block;
/// the warp-striped ones only each warp (and need a multiple of 32 threads: a compile-time error
/// otherwise). Storage reuse needs a barrier between calls, as for [`BlockLoad`].
///
/// ```
/// use cute_rs_tensor::block_io::BlockExchange;
/// assert_eq!(BlockExchange::<u32, 64, 4>::STORAGE_LEN, 256 + 8);
/// ```
pub struct BlockExchange<T, const BX: usize, const I: usize, const BY: usize = 1, const BZ: usize = 1>(PhantomData<T>);

impl<T: BlockItem, const BX: usize, const I: usize, const BY: usize, const BZ: usize> BlockExchange<T, BX, I, BY, BZ> {
    /// Elements of temporary storage the exchanges need.
    pub const STORAGE_LEN: usize = Coop::<T, method::Transpose, BlockGroup<BX, BY, BZ>, I>::STORAGE_LEN;

    /// The (zero-sized) exchanger.
    ///
    /// ```
    /// let _ = cute_rs_tensor::block_io::BlockExchange::<f32, 128, 2>::new();
    /// ```
    #[inline(always)]
    pub const fn new() -> Self {
        let () = Coop::<T, method::Transpose, BlockGroup<BX, BY, BZ>, I>::CHECK;
        BlockExchange(PhantomData)
    }

    /// Blocked to striped: thread `t`'s item `i` becomes tile element `i * THREADS + t`.
    ///
    /// # Safety
    /// Every thread of the block calls it; `storage` is not in use by others.
    ///
    /// ```no_run
    /// # unsafe fn k(items: &mut [u32; 4]) {
    /// use cute_rs_tensor::block_io::BlockExchange;
    /// let s = cute_rs_tensor::block_storage!(XCHG_DOC: BlockExchange<u32, 64, 4>);
    /// BlockExchange::<u32, 64, 4>::new().blocked_to_striped(items, s);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn blocked_to_striped<const N: usize>(&self, items: &mut [T; I], storage: SharedArray<T, N>) {
        self.exchange::<method::Transpose, N>(items, storage, true)
    }

    /// Striped to blocked: the inverse of [`blocked_to_striped`](Self::blocked_to_striped).
    ///
    /// # Safety
    /// As [`blocked_to_striped`](Self::blocked_to_striped).
    ///
    /// ```no_run
    /// # unsafe fn k(items: &mut [u32; 4]) {
    /// use cute_rs_tensor::block_io::BlockExchange;
    /// let s = cute_rs_tensor::block_storage!(XCHG_DOC2: BlockExchange<u32, 64, 4>);
    /// BlockExchange::<u32, 64, 4>::new().striped_to_blocked(items, s);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn striped_to_blocked<const N: usize>(&self, items: &mut [T; I], storage: SharedArray<T, N>) {
        self.exchange::<method::Transpose, N>(items, storage, false)
    }

    /// Blocked to warp-striped ([`warp_striped`]), within each warp.
    ///
    /// # Safety
    /// Every thread of the block calls it (only warps synchronize); `storage` not in use by others.
    ///
    /// ```no_run
    /// # unsafe fn k(items: &mut [u32; 4]) {
    /// use cute_rs_tensor::block_io::BlockExchange;
    /// let s = cute_rs_tensor::block_storage!(XCHG_DOC3: BlockExchange<u32, 64, 4>);
    /// BlockExchange::<u32, 64, 4>::new().blocked_to_warp_striped(items, s);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn blocked_to_warp_striped<const N: usize>(&self, items: &mut [T; I], storage: SharedArray<T, N>) {
        self.exchange::<method::WarpTranspose, N>(items, storage, true)
    }

    /// Warp-striped to blocked: the inverse of
    /// [`blocked_to_warp_striped`](Self::blocked_to_warp_striped).
    ///
    /// # Safety
    /// As [`blocked_to_warp_striped`](Self::blocked_to_warp_striped).
    ///
    /// ```no_run
    /// # unsafe fn k(items: &mut [u32; 4]) {
    /// use cute_rs_tensor::block_io::BlockExchange;
    /// let s = cute_rs_tensor::block_storage!(XCHG_DOC4: BlockExchange<u32, 64, 4>);
    /// BlockExchange::<u32, 64, 4>::new().warp_striped_to_blocked(items, s);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn warp_striped_to_blocked<const N: usize>(&self, items: &mut [T; I], storage: SharedArray<T, N>) {
        self.exchange::<method::WarpTranspose, N>(items, storage, false)
    }
}

impl<T: BlockItem, const BX: usize, const I: usize, const BY: usize, const BZ: usize> BlockExchange<T, BX, I, BY, BZ> {
    /// Between blocked and the arrangement `M` reads memory in (striped for `Transpose`,
    /// warp-striped for `WarpTranspose`), with `M`'s barrier.
    #[inline(always)]
    unsafe fn exchange<M: Method, const N: usize>(&self, items: &mut [T; I], storage: SharedArray<T, N>, from_blocked: bool) {
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::check_storage::<SharedArray<T, N>>();
        let rank = BlockGroup::<BX, BY, BZ>::rank();
        let (blocked, other) = (Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::BLOCKED, Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::MEMORY);
        let (from, to) = if from_blocked { (blocked, other) } else { (other, blocked) };
        Coop::<T, M, BlockGroup<BX, BY, BZ>, I>::exchange(items, rank, storage.as_mut_ptr(), from, to);
    }
}

impl<T: BlockItem, const BX: usize, const I: usize, const BY: usize, const BZ: usize> Default for BlockExchange<T, BX, I, BY, BZ> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: BlockItem, const BX: usize, const I: usize, const BY: usize, const BZ: usize> Storage for BlockExchange<T, BX, I, BY, BZ> {
    type Item = T;
    const STORAGE_LEN: usize = Self::STORAGE_LEN;
}

/// `warp_load` and `warp_store`: as [`BlockLoad`] for a logical warp of `W` lanes (a power of two
/// up to 32, 32 by default; the warp's tile is `W * I` elements), by method `M`
/// ([`method::Direct`] by default), in rocPRIM's order (`warp_load<T, ItemsPerThread,
/// WarpSize, Method>`). `Transpose` and `WarpTranspose` are the same
/// here (the group is one warp); storage is per logical warp (index it by warp).
///
/// ```
/// use cute_rs_tensor::block_io::{method, WarpLoad};
/// assert_eq!(WarpLoad::<f64, 4, 16, method::Transpose>::TILE, 64);
/// let _: WarpLoad<u32, 4> = WarpLoad::<u32, 4, 32, method::Direct>::new();
/// ```
///
/// As for [`BlockLoad`], the storage (this logical warp's) is bound with
/// [`with_storage`](Self::with_storage) where the method needs it.
pub struct WarpLoad<T, const I: usize, const W: usize = 32, M = method::Direct, S = NoStorage>(S, PhantomData<(T, M)>);

/// `warp_store`: the same type as [`WarpLoad`].
pub type WarpStore<T, const I: usize, const W: usize = 32, M = method::Direct, S = NoStorage> = WarpLoad<T, I, W, M, S>;

impl<T: BlockItem, M: Method, const I: usize, const W: usize> WarpLoad<T, I, W, M> {
    const CHECK: () = assert!(W.is_power_of_two() && W <= 32, "warp_load: the logical warp size must be a power of two up to 32");

    #[inline(always)]
    fn check_storage<S2: TempStorage<T>>() {
        const {
            let () = Self::CHECK;
            assert!(
                S2::LEN >= Self::STORAGE_LEN,
                "warp_load: the method needs temporary storage of STORAGE_LEN elements: bind it with `with_storage(..)`"
            );
        }
    }
    /// Elements of the warp's tile, `W * I`.
    pub const TILE: usize = W * I;
    /// Elements of temporary storage per logical warp.
    pub const STORAGE_LEN: usize = match M::KIND {
        Kind::Direct | Kind::Striped | Kind::Vectorize => 0,
        _ => padded_len(W * I, I),
    };

    /// The (zero-sized) warp loader.
    ///
    /// ```
    /// let _ = cute_rs_tensor::block_io::WarpLoad::<i32, 2, 32, cute_rs_tensor::block_io::method::Direct>::new();
    /// ```
    #[inline(always)]
    pub const fn new() -> Self {
        let () = Self::CHECK;
        WarpLoad(NoStorage, PhantomData)
    }

    /// The loader with this warp's `storage` (at least [`STORAGE_LEN`](Self::STORAGE_LEN)
    /// elements: a compile-time error otherwise) for its calls.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, WarpLoad};
    /// # unsafe fn k(input: *const f32) {
    /// let s = cute_rs_tensor::shared_array!(WARP_BOUND_DOC: [f32; 136]);
    /// let mut items = [0f32; 4];
    /// WarpLoad::<f32, 4, 32, method::Transpose>::new().with_storage(s).load(input, &mut items);
    /// # }
    /// ```
    #[inline(always)]
    pub fn with_storage<const N: usize>(self, storage: SharedArray<T, N>) -> WarpLoad<T, I, W, M, SharedArray<T, N>> {
        Self::check_storage::<SharedArray<T, N>>();
        WarpLoad(storage, PhantomData)
    }
}

impl<T: BlockItem, M: Method, const I: usize, const W: usize, S: TempStorage<T>> WarpLoad<T, I, W, M, S> {

    /// Loads the warp's tile at `input` into `items` (blocked; striped for [`method::Striped`]).
    ///
    /// # Safety
    /// Every lane of the logical warp calls it; `input` valid for `TILE` reads; `storage` (this
    /// warp's) not in use by others.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, WarpLoad};
    /// # unsafe fn k(input: *const f32) {
    /// let s = cute_rs_tensor::shared_array!(WARP_DOC: [f32; 136]);
    /// let mut items = [0f32; 4];
    /// WarpLoad::<f32, 4, 32, method::Transpose>::new().with_storage(s).load(input, &mut items);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load(&self, input: *const T, items: &mut [T; I]) {
        WarpLoad::<T, I, W, M>::check_storage::<S>();
        Coop::<T, WarpMethod<M>, WarpGroup<W>, I>::load(&input, items, None, self.0.ptr())
    }

    /// [`load`](Self::load) reading only offsets `< valid`; the others become `oob`.
    ///
    /// # Safety
    /// As [`load`](Self::load).
    ///
    /// ```no_run
    /// # unsafe fn k(input: *const u8) {
    /// let mut items = [0u8; 3];
    /// cute_rs_tensor::block_io::WarpLoad::<u8, 3, 32, cute_rs_tensor::block_io::method::Striped>::new()
    ///     .load_guarded(input, &mut items, 50, 0);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_guarded(&self, input: *const T, items: &mut [T; I], valid: usize, oob: T) {
        WarpLoad::<T, I, W, M>::check_storage::<S>();
        Coop::<T, WarpMethod<M>, WarpGroup<W>, I>::load(&input, items, Some((valid, oob)), self.0.ptr())
    }

    /// [`load`](Self::load) reading only offsets `< valid`; the items at the other offsets keep
    /// the values they had (rocPRIM's `warp_load::load(input, items, valid)`).
    ///
    /// # Safety
    /// As [`load`](Self::load), with `input` valid for `min(valid, TILE)` reads.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::WarpLoad;
    /// # unsafe fn k(input: *const u16) {
    /// let mut items = [7u16; 2]; // offsets from 20 on stay 7
    /// WarpLoad::<u16, 2>::new().load_valid(input, &mut items, 20);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_valid(&self, input: *const T, items: &mut [T; I], valid: usize) {
        WarpLoad::<T, I, W, M>::check_storage::<S>();
        Coop::<T, WarpMethod<M>, WarpGroup<W>, I>::load_keeping(&input, items, valid, self.0.ptr())
    }

    /// [`load`](Self::load) from any [`Input`] (a pointer, or [`FromFn`]), as
    /// [`BlockLoad::load_from`].
    ///
    /// # Safety
    /// As [`load`](Self::load); the input is read at tile offsets `< TILE` only.
    ///
    /// ```no_run
    /// use cute_rs_tensor::block_io::{method, FromFn, WarpLoad};
    /// # unsafe fn k(bytes: *const u8) {
    /// let s = cute_rs_tensor::shared_array!(WARPF_DOC: [f32; 136]);
    /// let mut items = [0f32; 4];
    /// // Bytes converted to f32 on the way in, blocked per lane.
    /// WarpLoad::<f32, 4, 32, method::Transpose>::new().with_storage(s).load_from(FromFn(|j| *bytes.add(j) as f32), &mut items);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn load_from<In: Input<T>>(&self, input: In, items: &mut [T; I]) {
        WarpLoad::<T, I, W, M>::check_storage::<S>();
        Coop::<T, WarpMethod<M>, WarpGroup<W>, I>::load(&input, items, None, self.0.ptr())
    }

    /// Stores `items` to the warp's tile at `output`.
    ///
    /// # Safety
    /// As [`load`](Self::load), for writes.
    ///
    /// ```no_run
    /// # unsafe fn k(out: *mut i32) {
    /// cute_rs_tensor::block_io::WarpStore::<i32, 2, 32, cute_rs_tensor::block_io::method::Direct>::new().store(out, &[1, 2]);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn store(&self, output: *mut T, items: &[T; I]) {
        WarpLoad::<T, I, W, M>::check_storage::<S>();
        Coop::<T, WarpMethod<M>, WarpGroup<W>, I>::store(output, items, None, self.0.ptr())
    }

    /// [`store`](Self::store) writing only offsets `< valid`.
    ///
    /// # Safety
    /// As [`store`](Self::store).
    ///
    /// ```no_run
    /// # unsafe fn k(out: *mut i32) {
    /// cute_rs_tensor::block_io::WarpStore::<i32, 2, 32, cute_rs_tensor::block_io::method::Direct>::new().store_guarded(out, &[1, 2], 5);
    /// # }
    /// ```
    #[inline(always)]
    pub unsafe fn store_guarded(&self, output: *mut T, items: &[T; I], valid: usize) {
        WarpLoad::<T, I, W, M>::check_storage::<S>();
        Coop::<T, WarpMethod<M>, WarpGroup<W>, I>::store(output, items, Some(valid), self.0.ptr())
    }
}

impl<T: BlockItem, M: Method, const I: usize, const W: usize> Default for WarpLoad<T, I, W, M> {
    fn default() -> Self {
        Self::new()
    }
}

/// Within one warp, the warp-transposing methods are the plain transpose (warp barrier).
struct WarpMethod<M>(PhantomData<M>);
impl<M: Method> Method for WarpMethod<M> {
    const KIND: Kind = match M::KIND {
        Kind::WarpTranspose | Kind::WarpTransposeTimesliced => Kind::Transpose,
        k => k,
    };
    const NAME: &'static str = M::NAME;
}

/// The temporary storage a cooperative load/store type needs: its element and length.
///
/// ```
/// use cute_rs_tensor::block_io::{method, BlockLoad, Storage};
/// assert_eq!(<BlockLoad<u8, 32, 1, method::Transpose> as Storage>::STORAGE_LEN, 32); // odd items: no padding
/// ```
pub trait Storage {
    /// The element type.
    type Item;
    /// Elements needed (0 when none).
    const STORAGE_LEN: usize;
}

impl<T: BlockItem, M: Method, const BX: usize, const I: usize, const BY: usize, const BZ: usize> Storage
    for BlockLoad<T, BX, I, M, BY, BZ>
{
    type Item = T;
    const STORAGE_LEN: usize = Self::STORAGE_LEN;
}

impl<T: BlockItem, M: Method, const I: usize, const W: usize> Storage for WarpLoad<T, I, W, M> {
    type Item = T;
    const STORAGE_LEN: usize = Self::STORAGE_LEN;
}

/// Declares the temporary storage of a [`BlockLoad`]/[`BlockStore`] (or [`WarpLoad`]) type as a
/// static shared array of exactly its `STORAGE_LEN` elements (at least one), and evaluates to its
/// [`SharedArray`] handle. `NAME` must be unique among the module's shared variables.
///
/// ```no_run
/// use cute_rs_tensor::block_io::{method, BlockLoad};
/// let storage = cute_rs_tensor::block_storage!(MY_STAGE: BlockLoad<f32, 256, 4, method::Transpose>);
/// assert_eq!(storage.len(), 1024 + 32);
/// ```
#[macro_export]
macro_rules! block_storage {
    ($name:ident : $ty:ty) => {
        $crate::shared_array!($name: [<$ty as $crate::block_io::Storage>::Item; {
            let n = <$ty as $crate::block_io::Storage>::STORAGE_LEN;
            if n == 0 { 1 } else { n }
        }], align 16)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrangements_are_bijections_of_the_tile() {
        for (threads, items) in [(32, 1), (64, 3), (128, 4), (96, 7), (1024, 16)] {
            let mut layouts = std::vec![blocked(threads, items).unwrap(), striped(threads, items).unwrap()];
            if threads % 32 == 0 {
                layouts.push(warp_striped(threads, items).unwrap());
            }
            for l in layouts {
                let mut seen = std::vec![false; threads * items];
                for k in 0..(threads * items) as i64 {
                    let j = l.call(k) as usize;
                    assert!(!seen[j], "{l}: offset {j} twice");
                    seen[j] = true;
                }
            }
        }
    }

    #[test]
    fn padded_storage_has_no_bank_conflicts_for_blocked_reads_and_striped_writes() {
        for items in [1usize, 2, 3, 4, 7, 8, 16] {
            let threads = 256;
            let pad = padded_storage(threads * items, items).unwrap();
            let (b, s) = (blocked(threads, items).unwrap(), striped(threads, items).unwrap());
            for warp in 0..threads / 32 {
                for i in 0..items {
                    for l in [b, s] {
                        let mut banks = [false; 32];
                        for lane in 0..32 {
                            let t = warp * 32 + lane;
                            let bank = pad.call(l.call((i + items * t) as i64)) as usize % 32;
                            assert!(!banks[bank], "items {items}: {l} item {i} warp {warp}: bank {bank} twice");
                            banks[bank] = true;
                        }
                    }
                }
            }
        }
    }
}
