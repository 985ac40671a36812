//! Warp-level primitives: shuffles (`shfl.sync` idx/up/down/bfly), votes (`vote.sync`
//! all/any/ballot) and warp reductions (sum, min, max) built from shuffles.
//!
//! Shuffles and votes are LLVM's NVVM intrinsics (`llvm.nvvm.shfl.sync.*`, `llvm.nvvm.vote.*`),
//! which LLVM knows to be *convergent* (never moved into or out of conditional code).
//!
//! Every function takes a `mask` of participating lanes (bit `i` = lane `i`), as CUDA's `*_sync`
//! intrinsics. Preconditions common to all of them:
//! - the calling thread's lane is in `mask`;
//! - every lane in `mask` executes the same primitive with the same `mask` (sm_70+ lets the lanes
//!   reach it from different places in the code, e.g. both sides of a branch: each side with its
//!   own disjoint mask is fine);
//! - for shuffles, a lane reading from a lane outside `mask` (or inactive) gets an unspecified
//!   value.
//!
//! Shuffled values are any [`Shuffle`] type: 32-bit `u32`/`i32`/`f32` move in one `shfl`, 64-bit
//! `u64`/`i64`/`f64` in two (low and high words), bit-exactly.
//!
//! On the host they run on the CPU backend ([`cpu`]) as warp exchanges among the lanes
//! of `mask`: lanes that disagree on the mask, masks naming lanes the warp lacks, and lanes that
//! never arrive fail the launch with a report.
//!
//! ```no_run
//! use cute_rs_device::warp::{reduce_sum, shuffle_idx, FULL_MASK};
//! let partial = 1.5f32;
//! let total = reduce_sum(partial); // the same value in all 32 lanes
//! let from_lane_0 = shuffle_idx(FULL_MASK, total, 0);
//! # let _ = from_lane_0;
//! ```

#[cfg(not(target_arch = "nvptx64"))]
use super::cpu;

/// One 32-bit shuffle on the CPU backend: every lane of `mask` deposits `word`; this lane reads
/// the word of the lane `src(lane)` names, or keeps its own when that is `None` (out of the
/// warp) or a lane outside `mask` (undefined on the GPU).
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_shuffle(mask: u32, word: u32, what: &'static str, src: impl Fn(u32) -> Option<u32>) -> u32 {
    let lane = super::ids::lane_id();
    let mut slot = [0; cpu::WARP_SLOT_WORDS];
    slot[0] = word;
    let (slots, _) = cpu::warp_exchange(mask, slot, false, what);
    match src(lane) {
        Some(s) if mask >> s & 1 == 1 => slots[s as usize][0],
        _ => word,
    }
}

/// The lanes of `mask` whose `pred` holds, on the CPU backend (one warp exchange).
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_ballot(mask: u32, pred: bool, what: &'static str) -> u32 {
    let mut slot = [0; cpu::WARP_SLOT_WORDS];
    slot[0] = pred as u32;
    let (slots, _) = cpu::warp_exchange(mask, slot, pred, what);
    (0..32).filter(|&l| mask >> l & 1 == 1 && slots[l][0] != 0).fold(0, |b, l| b | 1 << l)
}

/// All 32 lanes of the warp: the mask of a warp-uniform (non-divergent) call.
///
/// ```
/// assert_eq!(cute_rs_device::warp::FULL_MASK.count_ones(), 32);
/// ```
pub const FULL_MASK: u32 = 0xffff_ffff;

#[cfg(target_arch = "nvptx64")]
#[allow(improper_ctypes)]
unsafe extern "C" {
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn nvvm_shfl_idx(mask: u32, value: u32, lane: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn nvvm_shfl_up(mask: u32, value: u32, delta: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn nvvm_shfl_down(mask: u32, value: u32, delta: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn nvvm_shfl_bfly(mask: u32, value: u32, lane_mask: u32, clamp: u32) -> u32;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    fn nvvm_vote_all(mask: u32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    fn nvvm_vote_any(mask: u32, pred: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn nvvm_vote_ballot(mask: u32, pred: bool) -> u32;
}

mod sealed {
    pub trait Sealed {}
}

/// Values a shuffle moves between lanes: 32-bit (`u32`, `i32`, `f32`: one `shfl`) and 64-bit
/// (`u64`, `i64`, `f64`: two `shfl`s, low word then high word). Sealed.
///
/// ```
/// fn takes<T: cute_rs_device::warp::Shuffle>(_: T) {}
/// takes(1u32);
/// takes(2.0f64);
/// ```
pub trait Shuffle: Copy + sealed::Sealed {
    /// Applies `word` (one 32-bit shuffle) to each 32-bit word of `self`.
    #[doc(hidden)]
    fn map_words(self, word: impl FnMut(u32) -> u32) -> Self;
}

macro_rules! shuffle_32 {
    ($($t:ty => |$v:ident| $to:expr, |$w:ident| $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Shuffle for $t {
            #[inline(always)]
            fn map_words(self, mut word: impl FnMut(u32) -> u32) -> Self {
                let $v = self;
                let $w = word($to);
                $from
            }
        }
    )*};
}
shuffle_32! {
    u32 => |v| v, |w| w;
    i32 => |v| v as u32, |w| w as i32;
    f32 => |v| v.to_bits(), |w| f32::from_bits(w);
}

macro_rules! shuffle_64 {
    ($($t:ty => |$v:ident| $to:expr, |$w:ident| $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Shuffle for $t {
            #[inline(always)]
            fn map_words(self, mut word: impl FnMut(u32) -> u32) -> Self {
                let $v = self;
                let bits: u64 = $to;
                let lo = word(bits as u32);
                let hi = word((bits >> 32) as u32);
                let $w = (hi as u64) << 32 | lo as u64;
                $from
            }
        }
    )*};
}
shuffle_64! {
    u64 => |v| v, |w| w;
    i64 => |v| v as u64, |w| w as i64;
    f64 => |v| v.to_bits(), |w| f64::from_bits(w);
}

/// `c` operand of `shfl.sync` for the whole warp as one segment: clamp lane 31 (idx, down, bfly).
#[cfg(target_arch = "nvptx64")]
const CLAMP_HIGH: u32 = 0x1f;
/// `c` operand of `shfl.sync.up` for the whole warp as one segment: clamp lane 0.
#[cfg(target_arch = "nvptx64")]
const CLAMP_LOW: u32 = 0;

/// `__shfl_sync(mask, value, src_lane)` (`shfl.sync.idx.b32`): `value` of lane `src_lane % 32`.
///
/// Only the low 5 bits of `src_lane` are used. Preconditions: the [module's](self); the source
/// lane is in `mask` (else the result is unspecified).
///
/// ```no_run
/// use cute_rs_device::{ids::lane_id, warp::{shuffle_idx, FULL_MASK}};
/// // Rotate values one lane down the warp.
/// let v = shuffle_idx(FULL_MASK, lane_id() * 10, (lane_id() + 1) % 32);
/// # let _ = v;
/// ```
#[inline(always)]
pub fn shuffle_idx<T: Shuffle>(mask: u32, value: T, src_lane: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: shuffles have no memory-safety preconditions.
    return value.map_words(|w| unsafe { nvvm_shfl_idx(mask, w, src_lane, CLAMP_HIGH) });
    #[cfg(not(target_arch = "nvptx64"))]
    {
        value.map_words(|w| cpu_shuffle(mask, w, "shuffle_idx", |_| Some(src_lane & 31)))
    }
}

/// `__shfl_up_sync(mask, value, delta)` (`shfl.sync.up.b32`): `value` of lane `lane - delta`;
/// lanes `lane < delta` get their own `value` back.
///
/// Only the low 5 bits of `delta` are used. Preconditions: the [module's](self); the source lane
/// is in `mask`.
///
/// ```no_run
/// use cute_rs_device::{ids::lane_id, warp::{shuffle_up, FULL_MASK}};
/// // Inclusive prefix sum over the warp (Hillis-Steele).
/// let mut sum = 1u32;
/// let mut d = 1;
/// while d < 32 {
///     let other = shuffle_up(FULL_MASK, sum, d);
///     if lane_id() >= d {
///         sum += other;
///     }
///     d *= 2;
/// }
/// # let _ = sum;
/// ```
#[inline(always)]
pub fn shuffle_up<T: Shuffle>(mask: u32, value: T, delta: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: shuffles have no memory-safety preconditions.
    return value.map_words(|w| unsafe { nvvm_shfl_up(mask, w, delta, CLAMP_LOW) });
    #[cfg(not(target_arch = "nvptx64"))]
    {
        value.map_words(|w| cpu_shuffle(mask, w, "shuffle_up", |l| l.checked_sub(delta & 31)))
    }
}

/// `__shfl_down_sync(mask, value, delta)` (`shfl.sync.down.b32`): `value` of lane
/// `lane + delta`; lanes `lane + delta > 31` get their own `value` back.
///
/// Only the low 5 bits of `delta` are used. Preconditions: the [module's](self); the source lane
/// is in `mask`.
///
/// ```no_run
/// use cute_rs_device::warp::{shuffle_down, FULL_MASK};
/// let next = shuffle_down(FULL_MASK, 7i32, 1);
/// # let _ = next;
/// ```
#[inline(always)]
pub fn shuffle_down<T: Shuffle>(mask: u32, value: T, delta: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: shuffles have no memory-safety preconditions.
    return value.map_words(|w| unsafe { nvvm_shfl_down(mask, w, delta, CLAMP_HIGH) });
    #[cfg(not(target_arch = "nvptx64"))]
    {
        value.map_words(|w| cpu_shuffle(mask, w, "shuffle_down", |l| Some(l + (delta & 31)).filter(|&s| s < 32)))
    }
}

/// `__shfl_xor_sync(mask, value, lane_mask)` (`shfl.sync.bfly.b32`): `value` of lane
/// `lane ^ lane_mask`.
///
/// Only the low 5 bits of `lane_mask` are used. Preconditions: the [module's](self); the source
/// lane is in `mask`.
///
/// ```no_run
/// use cute_rs_device::warp::{shuffle_xor, FULL_MASK};
/// // Swap values between neighbouring lanes.
/// let neighbour = shuffle_xor(FULL_MASK, 3.0f64, 1);
/// # let _ = neighbour;
/// ```
#[inline(always)]
pub fn shuffle_xor<T: Shuffle>(mask: u32, value: T, lane_mask: u32) -> T {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: shuffles have no memory-safety preconditions.
    return value.map_words(|w| unsafe { nvvm_shfl_bfly(mask, w, lane_mask, CLAMP_HIGH) });
    #[cfg(not(target_arch = "nvptx64"))]
    {
        value.map_words(|w| cpu_shuffle(mask, w, "shuffle_xor", |l| Some(l ^ (lane_mask & 31))))
    }
}

/// `__all_sync(mask, pred)` (`vote.sync.all.pred`): whether `pred` is true on every lane of
/// `mask`.
///
/// Preconditions: the [module's](self).
///
/// ```no_run
/// use cute_rs_device::warp::{vote_all, FULL_MASK};
/// let all_in_range = vote_all(FULL_MASK, 3 < 4);
/// # let _ = all_in_range;
/// ```
#[inline(always)]
pub fn vote_all(mask: u32, pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: votes have no memory-safety preconditions.
    return unsafe { nvvm_vote_all(mask, pred) };
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu_ballot(mask, pred, "vote_all") == mask
    }
}

/// `__any_sync(mask, pred)` (`vote.sync.any.pred`): whether `pred` is true on at least one lane
/// of `mask`.
///
/// Preconditions: the [module's](self).
///
/// ```no_run
/// use cute_rs_device::warp::{vote_any, FULL_MASK};
/// let some_lane_failed = vote_any(FULL_MASK, false);
/// # let _ = some_lane_failed;
/// ```
#[inline(always)]
pub fn vote_any(mask: u32, pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: votes have no memory-safety preconditions.
    return unsafe { nvvm_vote_any(mask, pred) };
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu_ballot(mask, pred, "vote_any") != 0
    }
}

/// `__ballot_sync(mask, pred)` (`vote.sync.ballot.b32`): bit `i` set when lane `i` is in `mask`
/// and its `pred` is true.
///
/// Preconditions: the [module's](self).
///
/// ```no_run
/// use cute_rs_device::{ids::lane_id, warp::{ballot, FULL_MASK}};
/// // How many lanes before this one have work (a warp-level compaction index).
/// let has_work = lane_id() % 3 == 0;
/// let bits = ballot(FULL_MASK, has_work);
/// let slot = (bits & ((1u32 << lane_id()) - 1)).count_ones();
/// # let _ = slot;
/// ```
#[inline(always)]
pub fn ballot(mask: u32, pred: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: votes have no memory-safety preconditions.
    return unsafe { nvvm_vote_ballot(mask, pred) };
    #[cfg(not(target_arch = "nvptx64"))]
    {
        cpu_ballot(mask, pred, "ballot")
    }
}

/// Values warp reductions combine: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`. Integer sums wrap;
/// floating-point `min`/`max` follow IEEE `minNum`/`maxNum` (a NaN loses to a number). Sealed.
///
/// ```
/// use cute_rs_device::warp::WarpReduce;
/// assert_eq!(WarpReduce::combine_sum(u32::MAX, 2u32), 1);
/// assert_eq!(WarpReduce::combine_max(-1.0f32, 2.0f32), 2.0);
/// ```
pub trait WarpReduce: Shuffle {
    /// The identity of the sum (what lanes without a value contribute).
    ///
    /// ```
    /// use cute_rs_device::warp::WarpReduce;
    /// assert_eq!(<f32 as WarpReduce>::ZERO, 0.0);
    /// ```
    const ZERO: Self;
    /// `a + b` (wrapping for integers), as each step of [`reduce_sum`] computes it.
    ///
    /// ```
    /// use cute_rs_device::warp::WarpReduce;
    /// assert_eq!(WarpReduce::combine_sum(i32::MAX, 1i32), i32::MIN);
    /// ```
    fn combine_sum(a: Self, b: Self) -> Self;
    /// The smaller of `a` and `b`, as each step of [`reduce_min`] computes it.
    ///
    /// ```
    /// use cute_rs_device::warp::WarpReduce;
    /// assert_eq!(WarpReduce::combine_min(3u64, 2u64), 2);
    /// ```
    fn combine_min(a: Self, b: Self) -> Self;
    /// The larger of `a` and `b`, as each step of [`reduce_max`] computes it.
    ///
    /// ```
    /// use cute_rs_device::warp::WarpReduce;
    /// assert_eq!(WarpReduce::combine_max(-3i64, -2i64), -2);
    /// ```
    fn combine_max(a: Self, b: Self) -> Self;
}

macro_rules! warp_reduce_int {
    ($($t:ty),*) => {$(
        impl WarpReduce for $t {
            const ZERO: Self = 0;
            #[inline(always)]
            fn combine_sum(a: Self, b: Self) -> Self { a.wrapping_add(b) }
            #[inline(always)]
            fn combine_min(a: Self, b: Self) -> Self { if b < a { b } else { a } }
            #[inline(always)]
            fn combine_max(a: Self, b: Self) -> Self { if b > a { b } else { a } }
        }
    )*};
}
warp_reduce_int!(u32, i32, u64, i64);

macro_rules! warp_reduce_float {
    ($($t:ty),*) => {$(
        impl WarpReduce for $t {
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn combine_sum(a: Self, b: Self) -> Self { a + b }
            #[inline(always)]
            fn combine_min(a: Self, b: Self) -> Self { a.min(b) }
            #[inline(always)]
            fn combine_max(a: Self, b: Self) -> Self { a.max(b) }
        }
    )*};
}
warp_reduce_float!(f32, f64);

/// Butterfly reduction over the 32 lanes with `combine`: for `offset` in 16, 8, 4, 2, 1,
/// `v = combine(v, v of lane ^ offset)`.
#[inline(always)]
fn butterfly<T: WarpReduce>(value: T, combine: impl Fn(T, T) -> T) -> T {
    let mut v = value;
    let mut offset = 16;
    while offset > 0 {
        v = combine(v, shuffle_xor(FULL_MASK, v, offset));
        offset /= 2;
    }
    v
}

/// The sum of `value` over the 32 lanes of the warp, returned to every lane.
///
/// Computed by a butterfly of `shfl.sync.bfly` (5 steps for 32-bit types): for `offset` in 16, 8,
/// 4, 2, 1, `v = v + (v of lane ^ offset)`. Floating-point sums are therefore rounded in that fixed
/// order (not sequentially), and are bit-identical in all lanes (the two partners of each step
/// add the same two numbers). Integer sums wrap.
///
/// Preconditions: all 32 lanes of the warp call it together (full warp, [`FULL_MASK`]).
///
/// ```no_run
/// use cute_rs_device::{ids::lane_id, warp::reduce_sum};
/// let total = reduce_sum(lane_id()); // 0 + 1 + ... + 31 = 496 in every lane
/// # let _ = total;
/// ```
#[inline(always)]
pub fn reduce_sum<T: WarpReduce>(value: T) -> T {
    butterfly(value, T::combine_sum)
}

/// The minimum of `value` over the 32 lanes of the warp, returned to every lane (butterfly of
/// `shfl.sync.bfly`, as [`reduce_sum`]).
///
/// Preconditions: all 32 lanes of the warp call it together.
///
/// ```no_run
/// use cute_rs_device::{ids::lane_id, warp::reduce_min};
/// let smallest = reduce_min(lane_id() as i32 - 7); // -7
/// # let _ = smallest;
/// ```
#[inline(always)]
pub fn reduce_min<T: WarpReduce>(value: T) -> T {
    butterfly(value, T::combine_min)
}

/// The maximum of `value` over the 32 lanes of the warp, returned to every lane (butterfly of
/// `shfl.sync.bfly`, as [`reduce_sum`]).
///
/// Preconditions: all 32 lanes of the warp call it together.
///
/// ```no_run
/// use cute_rs_device::warp::reduce_max;
/// let largest = reduce_max(0.25f32);
/// # let _ = largest;
/// ```
#[inline(always)]
pub fn reduce_max<T: WarpReduce>(value: T) -> T {
    butterfly(value, T::combine_max)
}

/// The lanes of the warp executing this call together (`activemask.b32`), as CUDA's
/// `__activemask()`. A snapshot, not a synchronization: use it to build masks, not to assume
/// convergence.
///
/// ```no_run
/// use cute_rs_device::warp::{active_mask, ballot};
/// let mask = active_mask();
/// let votes = ballot(mask, true);
/// # let _ = votes;
/// ```
#[inline(always)]
pub fn active_mask() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let mask: u32;
        // SAFETY: `activemask` reads no memory and has no preconditions. Not `pure`: its value
        // depends on where (in which divergent branch) it executes.
        unsafe {
            core::arch::asm!("activemask.b32 {0};", out(reg32) mask, options(nomem, nostack, preserves_flags));
        }
        mask
    }
    #[cfg(not(target_arch = "nvptx64"))]
    cpu::live_lanes()
}
