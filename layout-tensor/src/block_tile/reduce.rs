//! Reductions of block tiles along an axis (`tl.sum`, `tl.max`, `tl.min`, `tl.argmax`,
//! `tl.reduce`; `ct.sum`, ...), with the axis kept at extent 1: the result has layout
//! [`Slice<L, AXIS>`], so it broadcasts back against the tile (`x - max(x, 1)`).
//!
//! Three levels, each only where the layout spreads the axis over it:
//! 1. within a thread, over its values along the axis, in value order;
//! 2. within a warp, a butterfly of `shfl.sync.bfly` over the lane bits along the axis (every
//!    lane ends with the same result, bit for bit);
//! 3. across warps, through the block's [`Scratch`] of shared memory: each thread writes its
//!    warp's partials, and after a barrier combines those of the warps along the axis, in the
//!    same order in every thread (so replicas agree bit for bit).
//!
//! The combining function must be associative and commutative (up to rounding).

use super::{for_each_value, thread, BlockTile, Slice, TvLayout, ValueStorage};
use crate::device::sync::sync_threads;
use crate::device::warp::{shuffle_xor, FULL_MASK};
use core::marker::PhantomData;

/// A block's scratch of `BYTES` bytes of shared memory for reductions (and other exchanges
/// between threads): declare one per kernel with [`block_scratch!`](crate::block_scratch).
///
/// A reduction across warps needs `VALUES_OUT * THREADS * size_of::<T>()` bytes (for `argmax`,
/// of the pair value and index), checked at compile time; reductions within warps use none.
///
/// # Example
/// ```no_run
/// let scratch = cute_rs_tensor::block_scratch!(SOFTMAX_SCRATCH, 4096);
/// assert_eq!(scratch.bytes(), 4096);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Scratch<const BYTES: usize> {
    ptr: *mut u8,
}

impl<const BYTES: usize> Scratch<BYTES> {
    /// The scratch at `ptr`.
    ///
    /// # Safety
    /// `ptr` is the block's shared memory, `BYTES` long, 1024-byte aligned (the alignment of the
    /// swizzle atoms of `dot`'s `wgmma` tiles), and used by nothing else
    /// while the scratch is.
    #[inline(always)]
    pub const unsafe fn from_raw(ptr: *mut u8) -> Self {
        Scratch { ptr }
    }

    /// Its size in bytes.
    #[inline(always)]
    pub const fn bytes(&self) -> usize {
        BYTES
    }

    /// The scratch as elements of `T`.
    #[inline(always)]
    pub(crate) fn slots<T>(&self) -> *mut T {
        self.ptr as *mut T
    }
}

/// Declares the block's [`Scratch`] of `BYTES` bytes of shared memory, named `NAME` (unique in
/// the module): `block_scratch!(NAME, BYTES)` in static shared memory (at most 48 KiB), or
/// `block_scratch!(NAME, dynamic BYTES)` in the launch's dynamic shared memory (up to the
/// device's limit: declare `shared_mem(BYTES)` on the kernel, so that the host refuses a launch
/// with less by name; without the declaration, such a launch stops at a trap here).
///
/// The scratch is 1024-byte aligned: whole lines of banks for the swizzled tiles of
/// [`dot`](crate::block_tile::dot()), and the alignment of `wgmma`'s 128-byte swizzle atoms.
///
/// # Example
/// ```no_run
/// let scratch = cute_rs_tensor::block_scratch!(ROW_SCRATCH, 2048);
/// let ring = cute_rs_tensor::block_scratch!(RING_SCRATCH, dynamic 147456);
/// # let _ = (scratch, ring);
/// ```
#[macro_export]
macro_rules! block_scratch {
    ($name:ident, dynamic $bytes:expr) => {{
        let smem = $crate::dynamic_shared!($name: u8, align 1024);
        // A bare trap, not `device_assert!`: its printing call would make ptxas serialize the
        // wgmma products of a kernel (C7509). The kernel's `shared_mem(BYTES)` contract names
        // the condition on the host before the launch.
        if smem.len() < $bytes {
            $crate::device::sync::trap();
        }
        // SAFETY: the launch's dynamic shared memory, at least `$bytes` bytes (checked above),
        // used only through the scratch.
        unsafe { $crate::block_tile::Scratch::<{ $bytes }>::from_raw(smem.as_mut_ptr()) }
    }};
    ($name:ident, $bytes:expr) => {{
        let smem = $crate::shared_array!($name: [u8; $bytes], align 1024);
        // SAFETY: the shared array above, of `$bytes` bytes, used only through the scratch.
        unsafe { $crate::block_tile::Scratch::<{ $bytes }>::from_raw(smem.as_mut_ptr()) }
    }};
}

/// Values a reduction moves between threads: shuffled a 32-bit word at a time.
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::reduce::Shuffled;
/// fn moves<T: Shuffled>() {}
/// moves::<(f32, i32)>();
/// ```
pub trait Shuffled: Copy {
    /// `shfl.sync.bfly`: the value of lane `lane ^ lane_mask`.
    fn shuffle_xor(self, lane_mask: u32) -> Self;
}

macro_rules! shuffled {
    ($($t:ty),*) => {$(
        impl Shuffled for $t {
            #[inline(always)]
            fn shuffle_xor(self, lane_mask: u32) -> Self {
                shuffle_xor(FULL_MASK, self, lane_mask)
            }
        }
        impl Shuffled for ($t, i32) {
            #[inline(always)]
            fn shuffle_xor(self, lane_mask: u32) -> Self {
                (shuffle_xor(FULL_MASK, self.0, lane_mask), shuffle_xor(FULL_MASK, self.1, lane_mask))
            }
        }
    )*};
}
shuffled!(f32, f64, u32, u64, i64);
impl Shuffled for i32 {
    #[inline(always)]
    fn shuffle_xor(self, lane_mask: u32) -> Self {
        shuffle_xor(FULL_MASK, self, lane_mask)
    }
}
impl Shuffled for (i32, i32) {
    #[inline(always)]
    fn shuffle_xor(self, lane_mask: u32) -> Self {
        (shuffle_xor(FULL_MASK, self.0, lane_mask), shuffle_xor(FULL_MASK, self.1, lane_mask))
    }
}

/// Values with a largest and smallest element: `max`/`min` of `f32` and `f64` ignore NaN (as
/// `fmaxf`), of integers compare.
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::reduce::Ordered;
/// assert_eq!(Ordered::max(f32::NAN, 1.0), 1.0);
/// assert_eq!(Ordered::min(3, -4), -4);
/// ```
pub trait Ordered: Copy + PartialOrd {
    /// The larger.
    fn max(a: Self, b: Self) -> Self;
    /// The smaller.
    fn min(a: Self, b: Self) -> Self;
}
impl Ordered for f32 {
    #[inline(always)]
    fn max(a: f32, b: f32) -> f32 {
        crate::device::math::max(a, b)
    }
    #[inline(always)]
    fn min(a: f32, b: f32) -> f32 {
        crate::device::math::min(a, b)
    }
}
macro_rules! ordered {
    ($($t:ty),*) => {$(impl Ordered for $t {
        #[inline(always)]
        fn max(a: $t, b: $t) -> $t {
            if b > a || a != a { b } else { a }
        }
        #[inline(always)]
        fn min(a: $t, b: $t) -> $t {
            if b < a || a != a { b } else { a }
        }
    })*};
}
ordered!(f64, i32, u32, i64, u64);

impl<T: Copy, L: TvLayout> BlockTile<T, L> {
    /// The reduction of the tile along `AXIS` with `op` (`tl.reduce(x, AXIS, op)`), the axis kept
    /// at extent 1.
    ///
    /// # Args
    /// - `scratch`: the block's shared scratch, used when the axis spans warps.
    /// - `op`: associative and commutative.
    ///
    /// # Constraints
    /// Every thread of the block calls it (it may synchronize the block). `AXIS < RANK` and the
    /// scratch is large enough (compile-time errors).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// // One warp; each thread holds 4 columns of one of 2 rows; on the host the shuffles see
    /// // the calling thread alone, so only its own values combine here.
    /// blocked_layout!(T = shape [2, 4], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [1, 1], order [1, 0]);
    /// let s = cute_rs_tensor::block_scratch!(DOC_REDUCE, 64);
    /// let x = BlockTile::<i32, T>::arange(1);
    /// assert_eq!(x.reduce::<1, 64>(&s, |a, b| a + b).values(), &[6]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn reduce<const AXIS: usize, const BYTES: usize>(&self, scratch: &Scratch<BYTES>, op: impl Fn(T, T) -> T) -> BlockTile<T, Slice<L, AXIS>>
    where
        T: Shuffled,
    {
        const { assert!(AXIS < L::MAP.rank, "block tile reduce: the axis is past the tile's rank") };
        let mut out = <Slice<L, AXIS> as TvLayout>::Storage::<T>::splat(self.values.as_slice()[0]);
        // 1. Within the thread: the first value of each output element starts it.
        for_each_value::<L>(|v| {
            let o = L::MAP.slice_value(AXIS, v);
            let x = self.values.as_slice()[v];
            let first = L::MAP.value_coord(v)[AXIS] == 0;
            out.as_mut_slice()[o] = if first { x } else { op(out.as_mut_slice()[o], x) };
        });
        let bits = L::MAP.thread_bits_along(AXIS);
        // 2. Within the warp: a butterfly over the lane bits along the axis.
        let mut b = 0;
        while b < 5 {
            if bits & (1 << b) != 0 {
                for_each_value::<Slice<L, AXIS>>(|o| {
                    let x = out.as_slice()[o];
                    out.as_mut_slice()[o] = op(x, x.shuffle_xor(1 << b));
                });
            }
            b += 1;
        }
        // 3. Across warps: every thread publishes its partials; each then combines those of the
        // warps along the axis, in increasing thread order.
        let warp_bits = bits & !31;
        if warp_bits != 0 {
            const {
                assert!(
                    L::MAP.thread_bits_along(AXIS) & !31 == 0
                        || <Slice<L, AXIS>>::VALUES * L::THREADS * core::mem::size_of::<T>() <= BYTES,
                    "block tile reduce: the scratch is smaller than VALUES_OUT * THREADS * size_of::<T>()"
                )
            };
            let slots = scratch.slots::<T>();
            let t = thread() as usize;
            let threads = L::THREADS;
            // Earlier users of the scratch are done with it.
            sync_threads();
            for_each_value::<Slice<L, AXIS>>(|o| {
                // SAFETY: inside the scratch (checked above); each thread writes its own slot.
                unsafe { slots.add(o * threads + t).write(out.as_slice()[o]) };
            });
            sync_threads();
            let base = t & !(warp_bits as usize);
            let sources = 1usize << warp_bits.count_ones();
            for_each_value::<Slice<L, AXIS>>(|o| {
                let mut acc = out.as_slice()[o];
                for k in 0..sources {
                    let src = base | deposit(k, warp_bits) as usize;
                    // SAFETY: inside the scratch, written before the barrier.
                    let x = unsafe { slots.add(o * threads + src).read() };
                    acc = if k == 0 { x } else { op(acc, x) };
                }
                out.as_mut_slice()[o] = acc;
            });
        }
        BlockTile { values: out, layout: PhantomData }
    }

    /// The sum along `AXIS` (`tl.sum(x, AXIS, keep_dims=True)`).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(T = shape [2, 4], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [1, 1], order [1, 0]);
    /// let s = cute_rs_tensor::block_scratch!(DOC_SUM, 64);
    /// assert_eq!(BlockTile::<f32, T>::full(0.5).sum::<1, 64>(&s).values(), &[2.0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn sum<const AXIS: usize, const BYTES: usize>(&self, scratch: &Scratch<BYTES>) -> BlockTile<T, Slice<L, AXIS>>
    where
        T: Shuffled + core::ops::Add<Output = T>,
    {
        self.reduce::<AXIS, BYTES>(scratch, |a, b| a + b)
    }

    /// The largest element along `AXIS` (`tl.max`); for floats NaN is ignored unless all are NaN.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(T = shape [2, 4], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [1, 1], order [1, 0]);
    /// let s = cute_rs_tensor::block_scratch!(DOC_MAX, 64);
    /// assert_eq!(BlockTile::<i32, T>::arange(1).max::<1, 64>(&s).values(), &[3]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn max<const AXIS: usize, const BYTES: usize>(&self, scratch: &Scratch<BYTES>) -> BlockTile<T, Slice<L, AXIS>>
    where
        T: Shuffled + Ordered,
    {
        self.reduce::<AXIS, BYTES>(scratch, T::max)
    }

    /// The smallest element along `AXIS` (`tl.min`).
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(T = shape [2, 4], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [1, 1], order [1, 0]);
    /// let s = cute_rs_tensor::block_scratch!(DOC_MIN, 64);
    /// assert_eq!(BlockTile::<i32, T>::arange(1).min::<1, 64>(&s).values(), &[0]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn min<const AXIS: usize, const BYTES: usize>(&self, scratch: &Scratch<BYTES>) -> BlockTile<T, Slice<L, AXIS>>
    where
        T: Shuffled + Ordered,
    {
        self.reduce::<AXIS, BYTES>(scratch, T::min)
    }

    /// The index along `AXIS` of the largest element (`tl.argmax`): the first one among equals;
    /// NaN only where every element is NaN.
    ///
    /// # Example
    /// ```
    /// # cute_rs_tensor::device::cpu::run_block(32, &|| {
    /// use cute_rs_tensor::blocked_layout;
    /// use cute_rs_tensor::block_tile::BlockTile;
    /// blocked_layout!(T = shape [2, 4], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [1, 1], order [1, 0]);
    /// let s = cute_rs_tensor::block_scratch!(DOC_ARGMAX, 64);
    /// let x = BlockTile::<i32, T>::arange(1).map(|c| [1.0f32, 5.0, 5.0, 2.0][c as usize]);
    /// assert_eq!(x.argmax::<1, 64>(&s).values(), &[1]);
    /// # }).unwrap();
    /// ```
    #[inline(always)]
    pub fn argmax<const AXIS: usize, const BYTES: usize>(&self, scratch: &Scratch<BYTES>) -> BlockTile<i32, Slice<L, AXIS>>
    where
        T: Ordered,
        (T, i32): Shuffled,
    {
        let index = BlockTile::<i32, L>::arange(AXIS);
        let pairs = self.zip(index, |x, i| (x, i));
        let best = pairs.reduce::<AXIS, BYTES>(scratch, |a, b| {
            // Commutative, so that both sides of each butterfly step keep the same pair: the larger
            // value, a number before NaN, and among equals (or NaNs) the smaller index.
            #[allow(clippy::eq_op)]
            let (a_nan, b_nan) = (a.0 != a.0, b.0 != b.0);
            let b_wins = if a_nan != b_nan {
                a_nan
            } else if a_nan || a.0 == b.0 {
                b.1 < a.1
            } else {
                b.0 > a.0
            };
            if b_wins {
                b
            } else {
                a
            }
        });
        best.map(|p| p.1)
    }
}

/// Spreads the low bits of `k` over the set bits of `mask` (`pdep`).
#[inline(always)]
const fn deposit(k: usize, mask: u32) -> u32 {
    let mut out = 0;
    let mut m = mask;
    let mut bit = 0;
    while m != 0 {
        let low = m & m.wrapping_neg();
        if (k >> bit) & 1 != 0 {
            out |= low;
        }
        m &= m - 1;
        bit += 1;
    }
    out
}
