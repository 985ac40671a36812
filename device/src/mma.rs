//! Tensor-core matrix instructions and their fragment layouts: `ldmatrix` / `stmatrix` (warp-wide
//! 8x8 matrix loads and stores of 16-bit elements), `mma.sync` (one warp: m16n8k16 bf16/f16 and
//! m16n8k8 tf32 with f32 accumulators) and `wgmma` (one warpgroup, sm_90a: m64nNk16 bf16 from
//! shared-memory descriptors).
//!
//! # Fragment layouts are layouts of our algebra
//! Which element of a matrix each thread holds is given, as in CuTe, by a *thread-value* layout:
//! a [`Layout`] from `(thread, value)` to the element's **column-major index** in the matrix
//! (`row + ROWS * col`). `L.call(t + THREADS * v)` is the index for thread `t`'s value `v`.
//! For the `mma.sync` atoms ([`MmaTraits`]), with the PTX operand shapes `A: M x K`, `B: K x N`,
//! `C, D: M x N`:
//! - `a`: `(thread, value) -> m + M * k`;
//! - `b`: `(thread, value) -> n + N * k` (B seen as its `N x K` transpose, CuTe's "TN" convention);
//! - `c`: `(thread, value) -> m + M * n` (for C and D).
//!
//! Values are numbered as the instruction's registers hold them: 16-bit elements two per 32-bit
//! register, value `2j` in the low and `2j + 1` in the high half of register `j`; 32-bit elements
//! one per register.
//!
//! ```
//! use cute_rs_device::mma::SM80_16X8X16_F32BF16BF16F32_TN as MMA;
//! // Thread 5 (lane 5) holds A's values 0..8: rows 1 and 9, columns 2, 3, 10, 11.
//! let coords: Vec<(i64, i64)> = (0..8).map(|v| MMA.a.call(5 + 32 * v)).map(|i| (i % 16, i / 16)).collect();
//! assert_eq!(coords, [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]);
//! ```
//!
//! # On the CPU backend
//! `ldmatrix`, `stmatrix` and `mma.sync` run on the host too (`device::cpu`), with the GPU's
//! results: each is one warp exchange (`cpu::warp_exchange`), after which every lane computes its
//! own registers from the fragment layouts above, the same constants the GPU code documents. So
//! the layouts are exercised by the CPU tests exactly as the hardware interprets them.
//! - `ldmatrix`: each lane that gives a row reads its 16 bytes *when it reaches the instruction*
//!   and deposits them, rather than its address: the warp then holds the matrices as they were when
//!   the whole warp had arrived, even if a lane released first writes shared memory right after.
//! - `stmatrix`: each lane deposits its registers; the lane that gave a row's address writes that
//!   row, so a lane reading back its own row right after sees it complete.
//! - `mma.sync`: every product of two bf16, two f16 or two tf32 values is exact in `f32`; lane `t`
//!   computes `d = c`, then `d += a(m, k) * b(k, n)` for `k` in increasing order, in `f32` (round
//!   to nearest even after each addition). The tensor cores add the products with their own
//!   internal precision, so on sums that are not exact in `f32` the last bits may differ from an
//!   H100's (results agree exactly whenever every partial sum is representable, e.g. small
//!   integers). The one inexact product: two bf16 whose product leaves `f32`'s normal range (bf16
//!   has `f32`'s exponents) is rounded here to a subnormal, zero or infinity.
//!
//! A warp computing `D = A B` on the host, its fragments gathered with the atom's layouts:
//!
//! ```
//! use cute_rs_device::cpu::{self, CpuKernel, CpuLaunch};
//! use cute_rs_device::{ids, mma::*, numeric::{f32_to_bf16, pack_b16x2}};
//!
//! /// `d = a b`: `a` 16 x 16, `b` 16 x 8, `d` 16 x 8, row-major f32 (bf16-exact values).
//! unsafe fn gemm(a: *const f32, b: *const f32, d: *mut f32) {
//!     let atom = SM80_16X8X16_F32BF16BF16F32_TN;
//!     let t = ids::lane_id() as i64;
//!     // Index `m + 16 k` of A, `n + 8 k` of B, `m + 16 n` of D.
//!     let a_at = |v: usize| { let i = atom.a.call(t + 32 * v as i64); f32_to_bf16(*a.add((i % 16 * 16 + i / 16) as usize)) };
//!     let b_at = |v: usize| { let i = atom.b.call(t + 32 * v as i64); f32_to_bf16(*b.add((i / 8 * 8 + i % 8) as usize)) };
//!     let fa = core::array::from_fn(|j| pack_b16x2(a_at(2 * j), a_at(2 * j + 1)));
//!     let fb = core::array::from_fn(|j| pack_b16x2(b_at(2 * j), b_at(2 * j + 1)));
//!     for (v, x) in mma_m16n8k16_f32_bf16(fa, fb, [0.0; 4]).into_iter().enumerate() {
//!         let i = atom.c.call(t + 32 * v as i64);
//!         *d.add((i % 16 * 8 + i / 16) as usize) = x;
//!     }
//! }
//! unsafe fn entry(args: &[&[u8]]) {
//!     let p = |i: usize| u64::from_le_bytes(args[i].try_into().unwrap()) as usize;
//!     gemm(p(0) as *const f32, p(1) as *const f32, p(2) as *mut f32)
//! }
//!
//! let a: Vec<f32> = (0..256).map(|i| (i % 7) as f32 - 3.0).collect();
//! let b: Vec<f32> = (0..128).map(|i| (i % 5) as f32).collect();
//! let mut d = vec![0f32; 128];
//! let args = [a.as_ptr() as u64, b.as_ptr() as u64, d.as_mut_ptr() as u64].map(u64::to_le_bytes);
//! let kernel = CpuKernel { name: "gemm", params: &[8, 8, 8], entry };
//! cpu::launch(&kernel, &CpuLaunch::linear(1, 32), &[&args[0], &args[1], &args[2]]).unwrap();
//! for (m, n) in (0..16).flat_map(|m| (0..8).map(move |n| (m, n))) {
//!     let want: f32 = (0..16).map(|k| a[m * 16 + k] * b[k * 8 + n]).sum();
//!     assert_eq!(d[m * 8 + n], want);
//! }
//! ```
//!
//! `wgmma` has no CPU implementation: a kernel that calls any `wgmma_*` instruction fails **to
//! compile** for the host, with an error naming the primitive (see [`no_cpu`]); the layouts, the
//! and the descriptors work everywhere.

use cute_rs_layout::{make_layout, unwrap, IntTuple, Layout, LayoutError, Swizzle, SwizzledLayout};

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

#[cfg(target_arch = "nvptx64")]
use super::shared::generic_to_shared;
#[cfg(not(target_arch = "nvptx64"))]
use super::numeric::{bf16_to_f32, f16_to_f32, pack_b16x2};
use super::unroll::for_each_unrolled_mut;

/// `?` for `const fn`s.
macro_rules! try_const {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

// ------------------------------------------------------------------------------------------------
// Fragment layouts

/// A warp-level `mma.sync` instruction's shape and fragment layouts (CuTe's `MMA_Traits`).
///
/// See the [module documentation](self) for the conventions of `a`, `b` and `c`.
///
/// # Example
/// ```
/// use cute_rs_device::mma::SM80_16X8X8_F32TF32TF32F32_TN as MMA;
/// assert_eq!((MMA.m, MMA.n, MMA.k), (16, 8, 8));
/// assert_eq!(MMA.a.size(), 32 * 4); // 4 tf32 values per thread
/// assert_eq!(MMA.c.to_string(), "((4,8),(2,2)):((32,1),(16,8))");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaTraits {
    /// Rows of A, C and D.
    pub m: i64,
    /// Columns of B, C and D.
    pub n: i64,
    /// Columns of A, rows of B.
    pub k: i64,
    /// Threads taking part (a warp: 32).
    pub threads: i64,
    /// `(thread, value) -> m + M * k` in A.
    pub a: Layout,
    /// `(thread, value) -> n + N * k` in B.
    pub b: Layout,
    /// `(thread, value) -> m + M * n` in C and D.
    pub c: Layout,
}

/// `(T32, V4) -> (M16, N8)`: the f32 accumulator fragment of the m16n8 `mma.sync` shapes (CuTe's
/// `SM80_16x8_Row`): thread `t` holds rows `t / 4` and `t / 4 + 8`, columns `2 (t % 4)` and
/// `2 (t % 4) + 1`.
///
/// # Example
/// ```
/// use cute_rs_device::mma::MMA_16X8_C;
/// // lane 6, value 3: row 1 + 8, column 2 * 2 + 1
/// assert_eq!(MMA_16X8_C.call(6 + 32 * 3), 9 + 16 * 5);
/// ```
pub const MMA_16X8_C: Layout = unwrap!(Layout::parse("((4,8),(2,2)):((32,1),(16,8))"));

/// `(T32, V8) -> (M16, K16)`: the A fragment of m16n8k16 with 16-bit inputs.
///
/// # Example
/// ```
/// use cute_rs_device::mma::MMA_16X16_A_B16;
/// assert_eq!(MMA_16X16_A_B16.to_string(), "((4,8),(2,2,2)):((32,1),(16,8,128))");
/// ```
pub const MMA_16X16_A_B16: Layout = unwrap!(Layout::parse("((4,8),(2,2,2)):((32,1),(16,8,128))"));

/// `(T32, V4) -> (N8, K16)`: the B fragment of m16n8k16 with 16-bit inputs.
///
/// # Example
/// ```
/// use cute_rs_device::mma::MMA_8X16_B_B16;
/// // lane 4 (row 1 of the 8x16 N x K view), value 1: k = 1
/// assert_eq!(MMA_8X16_B_B16.call(4 + 32), 1 + 8 * 1);
/// ```
pub const MMA_8X16_B_B16: Layout = unwrap!(Layout::parse("((4,8),(2,2)):((16,1),(8,64))"));

/// `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (CuTe's `SM80_16x8x16_F32BF16BF16F32_TN`).
///
/// # Example
/// ```
/// use cute_rs_device::mma::SM80_16X8X16_F32BF16BF16F32_TN as MMA;
/// assert_eq!((MMA.a.size(), MMA.b.size(), MMA.c.size()), (256, 128, 128));
/// ```
pub const SM80_16X8X16_F32BF16BF16F32_TN: MmaTraits =
    MmaTraits { m: 16, n: 8, k: 16, threads: 32, a: MMA_16X16_A_B16, b: MMA_8X16_B_B16, c: MMA_16X8_C };

/// `mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32` (CuTe's `SM80_16x8x16_F32F16F16F32_TN`):
/// the layouts of the bf16 atom.
///
/// # Example
/// ```
/// use cute_rs_device::mma::*;
/// assert_eq!(SM80_16X8X16_F32F16F16F32_TN.a, SM80_16X8X16_F32BF16BF16F32_TN.a);
/// ```
pub const SM80_16X8X16_F32F16F16F32_TN: MmaTraits = SM80_16X8X16_F32BF16BF16F32_TN;

/// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` (CuTe's `SM80_16x8x8_F32TF32TF32F32_TN`):
/// A `(T32, V4) -> (M16, K8)`, B `(T32, V2) -> (N8, K8)`, one tf32 (an `f32` bit pattern whose low
/// 13 mantissa bits are ignored) per register.
///
/// # Example
/// ```
/// use cute_rs_device::mma::SM80_16X8X8_F32TF32TF32F32_TN as MMA;
/// // lane 9 holds A's (2, 1), (10, 1), (2, 5), (10, 5)
/// let a: Vec<i64> = (0..4).map(|v| MMA.a.call(9 + 32 * v)).collect();
/// assert_eq!(a, [2 + 16, 10 + 16, 2 + 16 * 5, 10 + 16 * 5]);
/// ```
pub const SM80_16X8X8_F32TF32TF32F32_TN: MmaTraits = MmaTraits {
    m: 16,
    n: 8,
    k: 8,
    threads: 32,
    a: unwrap!(Layout::parse("((4,8),(2,2)):((16,1),(8,64))")),
    b: unwrap!(Layout::parse("((4,8),2):((8,1),32)")),
    c: MMA_16X8_C,
};

/// `(T32, V2) -> (R8, C8)`: what `ldmatrix` gives each lane from one 8x8 matrix of 16-bit elements
/// (and what `stmatrix` takes): lane `t` holds row `t / 4`, columns `2 (t % 4)` (low half) and
/// `2 (t % 4) + 1` (high half), as the index `row + 8 * col`. With `.x2` / `.x4`, register `i`
/// holds matrix `i` this way.
///
/// # Example
/// ```
/// use cute_rs_device::mma::LDMATRIX_8X8;
/// assert_eq!(LDMATRIX_8X8.call(13), 3 + 8 * 2); // lane 13, low half: row 3, column 2
/// ```
pub const LDMATRIX_8X8: Layout = unwrap!(Layout::parse("((4,8),2):((16,1),8)"));

/// `(T32, V2) -> (R8, C8)` for the `.trans` forms: lane `t` holds rows `2 (t % 4)` (low half) and
/// `2 (t % 4) + 1` (high half) of column `t / 4`, as the index `row + 8 * col`.
///
/// # Example
/// ```
/// use cute_rs_device::mma::LDMATRIX_8X8_TRANS;
/// assert_eq!(LDMATRIX_8X8_TRANS.call(13 + 32), 3 + 8 * 3); // lane 13, high half: row 3, column 3
/// ```
pub const LDMATRIX_8X8_TRANS: Layout = unwrap!(Layout::parse("((4,8),2):((2,8),1)"));

/// `lane -> m + 16 * k`: the row each lane points `ldmatrix.x4` at so that the four registers are
/// exactly the [`MMA_16X16_A_B16`] fragment of a 16x16 A tile (matrix 0: rows 0..8 / columns 0..8,
/// matrix 1: rows 8..16, matrix 2: columns 8..16, matrix 3: both). Lane `l` gives the address of
/// the 8 elements starting at that `(m, k)`.
///
/// # Example
/// ```
/// use cute_rs_device::mma::LDMATRIX_X4_A_ROWS;
/// assert_eq!(LDMATRIX_X4_A_ROWS.call(9), 9);           // (9, 0)
/// assert_eq!(LDMATRIX_X4_A_ROWS.call(17), 1 + 16 * 8); // (1, 8)
/// ```
pub const LDMATRIX_X4_A_ROWS: Layout = unwrap!(Layout::parse("(8,2,2):(1,8,128)"));

/// `lane -> n + 8 * k`: the row each of lanes 0..16 points `ldmatrix.x2` at so that the two
/// registers are the [`MMA_8X16_B_B16`] fragment of an 8x16 (N x K, K contiguous) B tile.
///
/// # Example
/// ```
/// use cute_rs_device::mma::LDMATRIX_X2_B_ROWS;
/// assert_eq!(LDMATRIX_X2_B_ROWS.call(10), 2 + 8 * 8); // (n 2, k 8)
/// ```
pub const LDMATRIX_X2_B_ROWS: Layout = unwrap!(Layout::parse("(8,2):(1,64)"));

/// `(T128, V) -> (M64, N)`: the f32 accumulator fragment of `wgmma` m64nNk16 (CuTe's
/// `CLayout_64xN`): thread `t` of the warpgroup holds rows `16 (t / 32) + (t % 32) / 4` and that
/// `+ 8`, columns `8 j + 2 (t % 4)` and `+ 1` for `j < N / 8`. Value `v` is accumulator register
/// `v` of the `wgmma_m64n{N}k16_*` functions.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] unless `n` is a multiple of 8 from 8 to 256 (wgmma's N for
/// 16-bit inputs).
///
/// # Example
/// ```
/// use cute_rs_device::mma::wgmma_accumulator_layout;
/// let c = wgmma_accumulator_layout(16).unwrap();
/// assert_eq!(c.to_string(), "((4,8,4),(2,2,2)):((128,1,16),(64,8,512))");
/// // thread 37 = lane 5 of warp 1, value 5: row 16 + 5 / 4, column 8 + 2 * (5 % 4) + 1
/// assert_eq!(c.call(37 + 128 * 5), 17 + 64 * 11);
/// ```
pub const fn wgmma_accumulator_layout(n: i64) -> Result<Layout, LayoutError> {
    if n < 8 || n > 256 || n % 8 != 0 {
        return Err(LayoutError::InvalidArgument { op: "wgmma_accumulator_layout", condition: "N must be a multiple of 8 from 8 to 256", value: n });
    }
    // The parts are constant or single integers: they cannot fail.
    let threads = unwrap!(Layout::parse("(4,8,4):(128,1,16)"));
    // Each 8-column group adds a pair of registers; a single group has no third value mode.
    let values = if n == 8 {
        unwrap!(Layout::parse("(2,2):(64,8)"))
    } else {
        let groups = unwrap!(Layout::new(IntTuple::int(n / 8), IntTuple::int(512)));
        unwrap!(make_layout(&[unwrap!(Layout::parse("2:64")), unwrap!(Layout::parse("2:8")), groups]))
    };
    make_layout(&[threads, values])
}

// ------------------------------------------------------------------------------------------------
// ldmatrix / stmatrix

/// The CPU backend's `ldmatrix` (see the [module documentation](self#on-the-cpu-backend)):
/// lanes `8i + r` (`i < N`) deposit row `r` of matrix `i`; lane `t`'s register `i` then takes
/// matrix `i`'s elements `layout(t, 0)` and `layout(t, 1)`.
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_ldmatrix<const N: usize>(row: *const u16, layout: Layout, what: &'static str) -> [u32; N] {
    let lane = super::ids::lane_id() as usize;
    let mut slot = [0; super::cpu::WARP_SLOT_WORDS];
    if lane < 8 * N {
        super::tma::cpu_shared_span(row as *const u8, 16, 16, what);
        for j in 0..4 {
            // SAFETY: 16 bytes of the block's shared memory, checked above.
            slot[j] = unsafe { pack_b16x2(row.add(2 * j).read(), row.add(2 * j + 1).read()) };
        }
    }
    let (rows, _) = super::cpu::warp_exchange(super::warp::FULL_MASK, slot, false, what);
    core::array::from_fn(|i| {
        let element = |v: usize| {
            let e = layout.call((lane + 32 * v) as i64) as usize;
            let (r, c) = (e % 8, e / 8);
            b16_half(rows[8 * i + r][c / 2], c % 2)
        };
        pack_b16x2(element(0), element(1))
    })
}

/// The CPU backend's `stmatrix`: every lane deposits its registers; lane `8i + r` (`i < N`)
/// writes row `r` of matrix `i`, gathering each element from the lane and half that `layout`
/// gives it.
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_stmatrix<const N: usize>(row: *mut u16, regs: [u32; N], layout: Layout, what: &'static str) {
    let lane = super::ids::lane_id() as usize;
    let mut slot = [0; super::cpu::WARP_SLOT_WORDS];
    slot[..N].copy_from_slice(&regs);
    let (lanes, _) = super::cpu::warp_exchange(super::warp::FULL_MASK, slot, false, what);
    if lane < 8 * N {
        super::tma::cpu_shared_span(row as *const u8, 16, 16, what);
        let (i, r) = (lane / 8, lane % 8);
        for t in 0..32 {
            for v in 0..2 {
                let e = layout.call((t + 32 * v) as i64) as usize;
                if e % 8 == r {
                    // SAFETY: column `e / 8 < 8` of the 16 shared bytes checked above.
                    unsafe { row.add(e / 8).write(b16_half(lanes[t][i], v)) };
                }
            }
        }
    }
}

/// The CPU backend's `mma.sync` for `atom`: lanes deposit `a` (words 0..4) and `b` (4..6), every
/// lane rebuilds A and B from the fragment layouts (`value(registers, v)` decodes value `v` of a
/// lane's registers), then computes its own D values as the
/// [module documentation](self#on-the-cpu-backend) says.
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_mma(
    atom: MmaTraits,
    value: fn(&[u32], usize) -> f32,
    a: [u32; 4],
    b: [u32; 2],
    c: [f32; 4],
    what: &'static str,
) -> [f32; 4] {
    let lane = super::ids::lane_id() as i64;
    let mut slot = [0; super::cpu::WARP_SLOT_WORDS];
    slot[..4].copy_from_slice(&a);
    slot[4..6].copy_from_slice(&b);
    let (lanes, _) = super::cpu::warp_exchange(super::warp::FULL_MASK, slot, false, what);
    // A as `m + M k` and B as `n + N k`, the indices the layouts give (at most 16 x 16 and 8 x 16).
    let (mut am, mut bm) = ([0.0f32; 256], [0.0f32; 128]);
    for t in 0..32 {
        for v in 0..(atom.m * atom.k / 32) {
            am[atom.a.call(t + 32 * v) as usize] = value(&lanes[t as usize][..4], v as usize);
        }
        for v in 0..(atom.n * atom.k / 32) {
            bm[atom.b.call(t + 32 * v) as usize] = value(&lanes[t as usize][4..6], v as usize);
        }
    }
    core::array::from_fn(|v| {
        let e = atom.c.call(lane + 32 * v as i64);
        let (m, n) = (e % atom.m, e / atom.m);
        (0..atom.k).fold(c[v], |d, k| d + am[(m + atom.m * k) as usize] * bm[(n + atom.n * k) as usize])
    })
}

/// Half `h` of a register holding two 16-bit values (0: the low half, the even value): the
/// inverse of [`pack_b16x2`].
#[cfg(not(target_arch = "nvptx64"))]
fn b16_half(word: u32, h: usize) -> u16 {
    (word >> (16 * h)) as u16
}

/// Value `v` of a fragment of bf16 pairs (value `2j` in the low half of register `j`).
#[cfg(not(target_arch = "nvptx64"))]
fn bf16_value(regs: &[u32], v: usize) -> f32 {
    bf16_to_f32(b16_half(regs[v / 2], v % 2))
}

/// Value `v` of a fragment of f16 pairs.
#[cfg(not(target_arch = "nvptx64"))]
fn f16_value(regs: &[u32], v: usize) -> f32 {
    f16_to_f32(b16_half(regs[v / 2], v % 2))
}

/// Value `v` of a tf32 fragment: register `v`, its low 13 mantissa bits ignored as the tensor
/// cores ignore them.
#[cfg(not(target_arch = "nvptx64"))]
fn tf32_value(regs: &[u32], v: usize) -> f32 {
    f32::from_bits(regs[v] & !0x1fff)
}

macro_rules! ldmatrix_fns {
    ($( $name:ident, $n:literal, $ptx:literal, $layout:ident, [$($r:ident),+]; )*) => {$(
        #[doc = concat!(
            "Loads ", $n, " 8x8 matrices of 16-bit elements from shared memory, one per returned ",
            "register (`", $ptx, "`).\n\n",
            "Each of lanes `8i .. 8i + 8` (for `i < ", $n, "`) passes in `row` the address of one row ",
            "(8 contiguous elements, 16 bytes) of matrix `i`: lane `8i + r` gives row `r`. Register `i` ",
            "of lane `t` then holds matrix `i`'s elements [`", stringify!($layout), "`]`(t, 0)` (low half) ",
            "and `(t, 1)` (high half). The other lanes' `row` is ignored.\n\n",
            "# Safety\n",
            "All 32 lanes of the warp execute it together (converged); each used `row` points into ",
            "shared memory, 16-byte aligned.\n\n",
            "# Example\n```ignore\n",
            "// 16x16 bf16 A tile, row-major in shared memory: the m16n8k16 A fragment\n",
            "let i = LDMATRIX_X4_A_ROWS.call(lane as i64);\n",
            "let a = ", stringify!($name), "(a_smem.add(((i % 16) * 16 + i / 16) as usize));\n```"
        )]
        #[inline(always)]
        pub unsafe fn $name(row: *const u16) -> [u32; $n] {
            #[cfg(target_arch = "nvptx64")]
            {
                $(let $r: u32;)+
                unsafe {
                    asm!(
                        concat!($ptx, " {{", ldmatrix_fns!(@regs $($r),+), "}}, [{addr}];"),
                        $($r = out(reg32) $r,)+
                        addr = in(reg32) generic_to_shared(row),
                        options(nostack),
                    );
                }
                [$($r),+]
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                cpu_ldmatrix::<$n>(row, $layout, $ptx)
            }
        }
    )*};
    (@regs $r0:ident) => { concat!("{", stringify!($r0), "}") };
    (@regs $r0:ident, $($r:ident),+) => { concat!("{", stringify!($r0), "}", $(", {", stringify!($r), "}"),+) };
}

ldmatrix_fns! {
    ldmatrix_x1, 1, "ldmatrix.sync.aligned.m8n8.x1.shared.b16", LDMATRIX_8X8, [r0];
    ldmatrix_x2, 2, "ldmatrix.sync.aligned.m8n8.x2.shared.b16", LDMATRIX_8X8, [r0, r1];
    ldmatrix_x4, 4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16", LDMATRIX_8X8, [r0, r1, r2, r3];
    ldmatrix_x1_trans, 1, "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", LDMATRIX_8X8_TRANS, [r0];
    ldmatrix_x2_trans, 2, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", LDMATRIX_8X8_TRANS, [r0, r1];
    ldmatrix_x4_trans, 4, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", LDMATRIX_8X8_TRANS, [r0, r1, r2, r3];
}

macro_rules! stmatrix_fns {
    ($( $name:ident, $n:literal, $ptx:literal, $layout:ident, [$($r:ident),+]; )*) => {$(
        #[doc = concat!(
            "Stores ", $n, " 8x8 matrices of 16-bit elements to shared memory, one per register of ",
            "`regs` (`", $ptx, "`, sm_90).\n\n",
            "The inverse of the matching `ldmatrix`: register `i` of lane `t` holds matrix `i`'s ",
            "elements [`", stringify!($layout), "`]`(t, 0)` (low half) and `(t, 1)` (high half), and ",
            "lane `8i + r` (for `i < ", $n, "`) passes in `row` the address of row `r` of matrix `i`.\n\n",
            "# Safety\n",
            "All 32 lanes of the warp execute it together (converged); each used `row` points into ",
            "shared memory, 16-byte aligned, and the rows do not overlap.\n\n",
            "# Example\n```ignore\n",
            "// lane l writes row l % 8 of matrix l / 8 of a dense [matrix][row][col] array\n",
            stringify!($name), "(smem.add(lane as usize * 8), regs);\n```"
        )]
        #[inline(always)]
        pub unsafe fn $name(row: *mut u16, regs: [u32; $n]) {
            #[cfg(target_arch = "nvptx64")]
            unsafe {
                let [$($r),+] = regs;
                asm!(
                    concat!($ptx, " [{addr}], {{", ldmatrix_fns!(@regs $($r),+), "}};"),
                    $($r = in(reg32) $r,)+
                    addr = in(reg32) generic_to_shared(row),
                    options(nostack),
                );
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                cpu_stmatrix::<$n>(row, regs, $layout, $ptx)
            }
        }
    )*};
}

stmatrix_fns! {
    stmatrix_x1, 1, "stmatrix.sync.aligned.m8n8.x1.shared.b16", LDMATRIX_8X8, [r0];
    stmatrix_x2, 2, "stmatrix.sync.aligned.m8n8.x2.shared.b16", LDMATRIX_8X8, [r0, r1];
    stmatrix_x4, 4, "stmatrix.sync.aligned.m8n8.x4.shared.b16", LDMATRIX_8X8, [r0, r1, r2, r3];
    stmatrix_x1_trans, 1, "stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", LDMATRIX_8X8_TRANS, [r0];
    stmatrix_x2_trans, 2, "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", LDMATRIX_8X8_TRANS, [r0, r1];
    stmatrix_x4_trans, 4, "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", LDMATRIX_8X8_TRANS, [r0, r1, r2, r3];
}

// ------------------------------------------------------------------------------------------------
// mma.sync

macro_rules! mma_fns {
    ($( $name:ident, $ptx:literal, $atom:ident, $value:ident, $what:literal; )*) => {$(
        #[doc = concat!(
            "`D = A * B + C` for one warp (`", $ptx, "`): ", $what, ".\n\n",
            "Lane `t` passes its fragments as [`", stringify!($atom), "`] lays them out: `a` holds A's ",
            "values `a.call(t + 32 v)`, `b` B's, `c` C's, and the result is D's values at `c`'s ",
            "positions.\n\n",
            "# Safety\n",
            "All 32 lanes of the warp execute it together (converged).\n\n",
            "# Example\n```ignore\n",
            "let d = ", stringify!($name), "(a, b, [0.0; 4]);\n",
            "for v in 0..4 {\n    let i = ", stringify!($atom), ".c.call(lane + 32 * v);\n",
            "    out[(i % 16 * 8 + i / 16) as usize] = d[v as usize]; // row-major 16x8\n}\n```"
        )]
        #[inline(always)]
        pub unsafe fn $name(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
            #[cfg(target_arch = "nvptx64")]
            {
                let (d0, d1, d2, d3): (f32, f32, f32, f32);
                unsafe {
                    asm!(
                        concat!($ptx, " {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, ",
                            "{{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"),
                        d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                        a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                        b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                        c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                        options(pure, nomem, nostack),
                    );
                }
                [d0, d1, d2, d3]
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                cpu_mma($atom, $value, a, b, c, $ptx)
            }
        }
    )*};
}

mma_fns! {
    mma_m16n8k16_f32_bf16, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        SM80_16X8X16_F32BF16BF16F32_TN, bf16_value,
        "A 16x16 and B 16x8 bf16 (two per register), C and D 16x8 f32";
    mma_m16n8k16_f32_f16, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        SM80_16X8X16_F32F16F16F32_TN, f16_value,
        "A 16x16 and B 16x8 f16 (two per register), C and D 16x8 f32";
    mma_m16n8k8_f32_tf32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        SM80_16X8X8_F32TF32TF32F32_TN, tf32_value,
        "A 16x8 and B 8x8 tf32 (`f32` bit patterns, one per register), C and D 16x8 f32";
}

// ------------------------------------------------------------------------------------------------
// wgmma (sm_90a)

/// The register A operand of the 16-bit `wgmma` instructions with A in registers (m64 x k16), as
/// `(thread, value) -> m + 64 k` for the warpgroup's 128 threads and 8 values each: warp `w` holds
/// rows `16 w ..`, as the m16n8k16 `mma.sync` A fragment ([`MMA_16X16_A_B16`]) does in one warp.
///
/// # Example
/// ```
/// use cute_rs_device::mma::WGMMA_64X16_A_B16;
/// // Thread 37 (warp 1, lane 5), value 7: row 16 + 1 + 8, column 2 + 1 + 8.
/// assert_eq!(WGMMA_64X16_A_B16.call(37 + 128 * 7), 25 + 64 * 11);
/// ```
pub const WGMMA_64X16_A_B16: Layout = unwrap!(Layout::parse("((4,8,4),(2,2,2)):((128,1,16),(64,8,512))"));

/// The swizzle field of a wgmma shared-memory matrix descriptor (bits 62..64).
///
/// # Example
/// ```
/// use cute_rs_device::mma::WgmmaSwizzle;
/// assert_eq!(WgmmaSwizzle::B128 as u64, 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum WgmmaSwizzle {
    /// No swizzle: "interleaved" core matrices of 8 rows x 16 bytes.
    None = 0,
    /// 128-byte swizzle: rows of 128 bytes, `Sw<3,4,3>` on byte offsets, 1024-byte atoms.
    B128 = 1,
    /// 64-byte swizzle: `Sw<2,4,3>` on byte offsets.
    B64 = 2,
    /// 32-byte swizzle: `Sw<1,4,3>` on byte offsets.
    B32 = 3,
}

/// A wgmma shared-memory matrix descriptor (PTX "matrix descriptor", CUTLASS `GmmaDescriptor`):
/// bits 0..14 the start address `>> 4`, 16..30 the leading-dimension byte offset `>> 4`, 32..46
/// the stride-dimension byte offset `>> 4`, 49..52 the base offset (0: the swizzle atoms are
/// aligned to their size), 62..64 the swizzle.
///
/// For a K-major operand (the only kind the `wgmma_*` functions here take), in units of *core
/// matrices* (8 rows x 16 bytes):
/// - no swizzle: `leading_byte_offset` is the distance between core matrices adjacent in K,
///   `stride_byte_offset` between core matrices adjacent in M (or N), i.e. between 8-row groups
///   (see [`wgmma_k_major_interleaved`]);
/// - 128-byte swizzle: rows are 128 bytes, `stride_byte_offset` is the distance between 8-row
///   groups (1024 for a dense tile), `leading_byte_offset` is unused (pass 16); the next k16 slice
///   of a 64-wide bf16 row starts 32 bytes further (see [`wgmma_k_major_sw128`]).
///
/// # Preconditions
/// `smem_address` is a shared-window address (see `shared::generic_to_shared`), 16-byte aligned,
/// below 256 KiB; the offsets are multiples of 16 below 256 KiB. With a swizzle the tile's atoms
/// (1024 bytes for 128 B) must be aligned to their size.
///
/// # Example
/// ```
/// use cute_rs_device::mma::{wgmma_descriptor, WgmmaSwizzle};
/// let d = wgmma_descriptor(0x400, 16, 1024, WgmmaSwizzle::B128);
/// assert_eq!(d, 0x40 | 1 << 16 | 64 << 32 | 1 << 62);
/// ```
#[inline(always)]
pub const fn wgmma_descriptor(
    smem_address: u32,
    leading_byte_offset: u32,
    stride_byte_offset: u32,
    swizzle: WgmmaSwizzle,
) -> u64 {
    const fn field(bytes: u32) -> u64 {
        ((bytes as u64) & 0x3ffff) >> 4
    }
    field(smem_address)
        | field(leading_byte_offset) << 16
        | field(stride_byte_offset) << 32
        | (swizzle as u64) << 62
}

/// The canonical K-major, non-swizzled shared-memory layout of a `rows x k` tile of 16-bit
/// elements that this crate uses with [`WgmmaSwizzle::None`]: `(row, k) -> element offset`,
/// `((8, rows/8), (8, k/8)) : ((8, 8k), (1, 64))`. Each 8x8 core matrix is 128 contiguous bytes
/// (row `r` at `16 r` bytes); the core matrices of one 8-row group follow each other along K; the
/// groups follow each other. Descriptor: `leading_byte_offset = 128`, `stride_byte_offset =
/// 16 k`; the k16 slice `s` starts `256 s` bytes after the tile.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] unless `rows` and `k` are positive multiples of 8.
///
/// # Example
/// ```
/// use cute_rs_device::mma::wgmma_k_major_interleaved;
/// let l = wgmma_k_major_interleaved(64, 32).unwrap();
/// assert_eq!(l.to_string(), "((8,8),(8,4)):((8,256),(1,64))");
/// assert_eq!(l.call(9 + 64 * 10), 8 + 256 + 2 + 64); // (9, 10)
/// ```
pub const fn wgmma_k_major_interleaved(rows: i64, k: i64) -> Result<Layout, LayoutError> {
    if rows < 8 || rows % 8 != 0 || k < 8 || k % 8 != 0 {
        return Err(LayoutError::InvalidArgument {
            op: "wgmma_k_major_interleaved",
            condition: "rows and k must be positive multiples of 8",
            value: if rows < 8 || rows % 8 != 0 { rows } else { k },
        });
    }
    let m = try_const!(Layout::new(
        try_const!(IntTuple::from_slice(&[8, rows / 8])),
        try_const!(IntTuple::from_slice(&[8, 8 * k])),
    ));
    let kk = try_const!(Layout::new(
        try_const!(IntTuple::from_slice(&[8, k / 8])),
        try_const!(IntTuple::from_slice(&[1, 64])),
    ));
    make_layout(&[m, kk])
}

/// The canonical K-major 128-byte-swizzled shared-memory layout of a `rows x 64` tile of 16-bit
/// elements ([`WgmmaSwizzle::B128`], what a TMA load with a 128-byte swizzle writes for a box of
/// 64 x `rows`): `(row, k) -> element offset`, `Sw<3,3,3> o (rows, 64) : (64, 1)` (on byte offsets
/// this is `Sw<3,4,3> o (rows, 64) : (128, 2)`). Descriptor: `stride_byte_offset = 1024`,
/// `leading_byte_offset` unused; the k16 slice `s` starts `32 s` bytes after the tile, which must
/// be 1024-byte aligned.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] unless `rows` is a positive multiple of 8.
///
/// # Example
/// ```
/// use cute_rs_device::mma::wgmma_k_major_sw128;
/// let l = wgmma_k_major_sw128(64).unwrap();
/// assert_eq!(l.to_string(), "Sw<3,3,3> o 0 o (64,64):(64,1)");
/// assert_eq!(l.call(1), 64 + 8); // (1, 0): row 1's first 16-byte chunk moved to chunk 1
/// ```
pub const fn wgmma_k_major_sw128(rows: i64) -> Result<SwizzledLayout, LayoutError> {
    if rows < 8 || rows % 8 != 0 {
        return Err(LayoutError::InvalidArgument {
            op: "wgmma_k_major_sw128",
            condition: "rows must be a positive multiple of 8",
            value: rows,
        });
    }
    let inner = try_const!(Layout::new(
        try_const!(IntTuple::from_slice(&[rows, 64])),
        try_const!(IntTuple::from_slice(&[64, 1])),
    ));
    Ok(SwizzledLayout::new(unwrap!(Swizzle::new(3, 3, 3)), 0, inner))
}

/// Why the `wgmma` instructions do not compile for the host: the CPU backend has no implementation
/// of them (warpgroup-wide asynchronous MMAs reading shared memory through descriptors), and a
/// kernel calling one should fail when it is built for the host, not when it runs there.
///
/// On targets other than `nvptx64` each `wgmma_*` instruction wrapper (not the layouts, the
/// descriptors or [`wgmma_fence_operands`]) requires `&'cpu (): CpuImplementation<P>` for its
/// marker `P`, a bound that no type satisfies; calling one is error E0277 at the call, whose
/// message names the instruction. The wgmma kernels of `kernels/` are built for the GPU only (cargo
/// feature `sm90a`).
///
/// ```compile_fail,E0277
/// // error[E0277]: `WgmmaMmaAsync` has no CPU implementation: it runs only on an sm_90 GPU
/// use cute_rs_device::mma::{wgmma_descriptor, wgmma_m64n8k16_f32_bf16, WgmmaSwizzle};
/// unsafe fn kernel(d: &mut [f32; 4]) {
///     let a = wgmma_descriptor(0, 128, 256, WgmmaSwizzle::None);
///     wgmma_m64n8k16_f32_bf16(d, a, a, false);
/// }
/// ```
///
/// The fence, commit and wait fail alike:
///
/// ```compile_fail,E0277
/// unsafe fn kernel() {
///     cute_rs_device::mma::wgmma_fence();
/// }
/// ```
///
/// ```compile_fail,E0277
/// unsafe fn kernel() {
///     cute_rs_device::mma::wgmma_wait_group::<0>();
/// }
/// ```
///
/// While the rest of the module works on the host:
///
/// ```
/// let mut d = [0.0f32; 4];
/// cute_rs_device::mma::wgmma_fence_operands(&mut d);
/// ```
#[cfg(not(target_arch = "nvptx64"))]
pub mod no_cpu {
    /// Implemented by no type: the bound of the host versions of the `wgmma` instructions, named
    /// by their marker `P` in the error.
    #[diagnostic::on_unimplemented(
        message = "`{P}` has no CPU implementation: it runs only on an sm_90 GPU",
        label = "a GPU-only instruction, called in code compiled for the host",
        note = "build the kernel for nvptx64 only (the wgmma kernels are behind the `sm90a` feature), \
                or use `mma.sync` (`mma_m16n8k16_*`), which the CPU backend runs"
    )]
    pub trait CpuImplementation<P> {}

    /// `wgmma.mma_async` (the `wgmma_m64n*k16_*` functions).
    pub enum WgmmaMmaAsync {}
    /// `wgmma.fence` ([`wgmma_fence`](super::wgmma_fence)).
    pub enum WgmmaFence {}
    /// `wgmma.commit_group` ([`wgmma_commit_group`](super::wgmma_commit_group)).
    pub enum WgmmaCommitGroup {}
    /// `wgmma.wait_group` ([`wgmma_wait_group`](super::wgmma_wait_group)).
    pub enum WgmmaWaitGroup {}
    /// `setmaxnreg` ([`warpgroup_reg_alloc`](super::warpgroup_reg_alloc),
    /// [`warpgroup_reg_dealloc`](super::warpgroup_reg_dealloc)).
    pub enum SetMaxNReg {}
    /// `barrier.cluster` ([`cluster_sync`](crate::cluster::cluster_sync)).
    pub enum ClusterBarrier {}
    /// `mbarrier.arrive` on another block's barrier
    /// ([`mbarrier_arrive_cluster`](crate::cluster::mbarrier_arrive_cluster)).
    pub enum MbarrierArriveCluster {}
    /// `cp.async.bulk.tensor ... .multicast::cluster`
    /// ([`tma_load_2d_multicast`](crate::cluster::tma_load_2d_multicast)).
    pub enum TmaMulticast {}
}

gpu_only! {
    WgmmaFence;
    /// Makes the accumulator registers and shared memory written so far visible to the following
    /// `wgmma`s (`wgmma.fence.sync.aligned`). Required before the first `wgmma` of a batch, and
    /// whenever the accumulators were touched by other instructions in between.
    ///
    /// GPU only: does not compile for the host ([`no_cpu`]).
    ///
    /// # Safety
    /// All threads of the warpgroup execute it together (sm_90a).
    ///
    /// # Example
    /// ```ignore
    /// wgmma_fence();
    /// wgmma_m64n16k16_f32_bf16(&mut d, desc_a, desc_b, false);
    /// wgmma_commit_group();
    /// wgmma_wait_group::<0>();
    /// wgmma_fence_operands(&mut d);
    /// ```
    pub unsafe fn wgmma_fence() {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!("wgmma.fence.sync.aligned;", options(nostack));
        }
    }
}

gpu_only! {
    SetMaxNReg;
    /// Raises this warpgroup's registers per thread to `N` (`setmaxnreg.inc.sync.aligned.u32 N`,
    /// CUTLASS's `warpgroup_reg_alloc`): the consumers of a warp-specialized kernel take the
    /// registers the producer gave back. `N` is 24 to 256, a multiple of 8.
    ///
    /// GPU only: does not compile for the host ([`no_cpu`]). ptxas ignores it (warning C7508)
    /// unless the kernel's register count at entry is fixed: declare launch bounds
    /// (`#[kernel(launch_bounds(THREADS, 1))]`).
    ///
    /// # Safety
    /// All threads of the warpgroup execute it together (sm_90a); the block's total stays within
    /// the register file.
    ///
    /// # Example
    /// ```ignore
    /// warpgroup_reg_alloc::<232>();
    /// ```
    pub unsafe fn warpgroup_reg_alloc<const N: u32>() {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            const { assert!(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: 24 to 256, a multiple of 8") };
            asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack));
        }
    }
}

gpu_only! {
    SetMaxNReg;
    /// Lowers this warpgroup's registers per thread to `N` (`setmaxnreg.dec.sync.aligned.u32 N`,
    /// CUTLASS's `warpgroup_reg_dealloc`): the producer of a warp-specialized kernel gives its
    /// registers to the consumers. `N` is 24 to 256, a multiple of 8.
    ///
    /// GPU only: does not compile for the host ([`no_cpu`]); see [`warpgroup_reg_alloc`].
    ///
    /// # Safety
    /// As [`warpgroup_reg_alloc`].
    ///
    /// # Example
    /// ```ignore
    /// warpgroup_reg_dealloc::<40>();
    /// ```
    pub unsafe fn warpgroup_reg_dealloc<const N: u32>() {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            const { assert!(N >= 24 && N <= 256 && N % 8 == 0, "setmaxnreg: 24 to 256, a multiple of 8") };
            asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack));
        }
    }
}

gpu_only! {
    WgmmaCommitGroup;
    /// Closes the `wgmma`s issued since the last commit into a wgmma group
    /// (`wgmma.commit_group.sync.aligned`).
    ///
    /// GPU only: does not compile for the host ([`no_cpu`]).
    ///
    /// # Safety
    /// All threads of the warpgroup execute it together (sm_90a).
    ///
    /// # Example
    /// ```ignore
    /// wgmma_commit_group();
    /// ```
    pub unsafe fn wgmma_commit_group() {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!("wgmma.commit_group.sync.aligned;", options(nostack));
        }
    }
}

gpu_only! {
    WgmmaWaitGroup;
    /// Waits until at most `N` wgmma groups are pending (`wgmma.wait_group.sync.aligned N`). The
    /// accumulators of the completed groups may then be read: call [`wgmma_fence_operands`] on them
    /// right after, so that the compiler does not move their reads above the wait.
    ///
    /// GPU only: does not compile for the host ([`no_cpu`]).
    ///
    /// # Safety
    /// All threads of the warpgroup execute it together (sm_90a).
    ///
    /// # Example
    /// ```ignore
    /// wgmma_wait_group::<0>();
    /// wgmma_fence_operands(&mut d);
    /// ```
    pub unsafe fn wgmma_wait_group<const N: u32>() {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!("wgmma.wait_group.sync.aligned {n};", n = const N, options(nostack));
        }
    }
}

/// A compiler-only fence on accumulator registers (CUTLASS's `warpgroup_fence_operand`): an empty
/// `asm` that "reads and writes" each register, so that no access to them moves across the
/// surrounding wgmma fence, commit or wait. Emits no instruction. Visits the registers with
/// constant indices ([`for_each_unrolled_mut`]), so the array stays in registers.
///
/// # Example
/// ```
/// let mut d = [1.0f32; 8];
/// cute_rs_device::mma::wgmma_fence_operands(&mut d);
/// assert_eq!(d, [1.0; 8]);
/// ```
#[inline(always)]
pub fn wgmma_fence_operands<const K: usize>(d: &mut [f32; K]) {
    for_each_unrolled_mut(d, |_, x| wgmma_fence_operand(x));
}

/// [`wgmma_fence_operands`] on one register: for accumulators held in another container (a
/// block tile's values), visited one by one with constant indices.
///
/// # Example
/// ```
/// let mut x = 2.0f32;
/// cute_rs_device::mma::wgmma_fence_operand(&mut x);
/// assert_eq!(x, 2.0);
/// ```
#[inline(always)]
pub fn wgmma_fence_operand(x: &mut f32) {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: an empty template; the register keeps its value.
    unsafe {
        asm!("// wgmma operand {0}", inout(reg32) *x, options(nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = x;
}

/// [`wgmma_fence_operands`] for the A registers of register-A wgmmas (`k_blocks` of four): placed
/// after the wait for those wgmmas, it keeps the registers live and unchanged until then, so that
/// the compiler reuses none of them while the asynchronous instructions may still read them.
///
/// # Example
/// ```
/// let mut a = [[1u32, 2, 3, 4]; 2];
/// cute_rs_device::mma::wgmma_fence_a_operands(&mut a);
/// assert_eq!(a[1], [1, 2, 3, 4]);
/// ```
#[inline(always)]
pub fn wgmma_fence_a_operands<const KB: usize>(a: &mut [[u32; 4]; KB]) {
    for_each_unrolled_mut(a, |_, block| {
        for x in block.iter_mut() {
            #[cfg(target_arch = "nvptx64")]
            // SAFETY: an empty template; the register keeps its value.
            unsafe {
                asm!("// wgmma A operand {0}", inout(reg32) *x, options(nostack))
            };
            #[cfg(not(target_arch = "nvptx64"))]
            let _ = x;
        }
    });
}


macro_rules! wgmma_fns {
    ($( $name:ident, $general:ident, $tf32:ident, $fp8:ident, $rs:ident, $n:literal, $regs:literal, [$first:literal $(, $i:literal)* $(,)?]; )*) => {$(
        gpu_only! {
            WgmmaMmaAsync;
            #[doc = concat!(
                "`D = A * B + (scale_d ? D : 0)` for one warpgroup, asynchronously ",
                "(`wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.bf16.bf16`, sm_90a): A 64x16 and ",
                "B 16x", $n, " bf16, both K-major in shared memory, given by their descriptors ",
                "([`wgmma_descriptor`]); D 64x", $n, " f32 in registers, thread `t`'s `d[v]` at ",
                "[`wgmma_accumulator_layout`]`(", $n, ").call(t + 128 v)` (as `m + 64 n`).\n\n",
                "`desc_b` describes B's `", $n, " x 16` (N x K, K contiguous) transpose, as a K-major ",
                "operand. With `scale_d == false` the old `d` is ignored (no need to zero it). [`",
                stringify!($general), "`] also takes f16 and M- or N-major operands.\n\n",
                "GPU only: does not compile for the host ([`no_cpu`]).\n\n",
                "# Safety\n",
                "- all 128 threads of a warpgroup (4 consecutive warps starting at a multiple of 4) execute it ",
                "together, after [`wgmma_fence`];\n",
                "- the descriptors describe valid shared memory holding the operands; the threads that wrote ",
                "it with ordinary stores called `fence_proxy_async_shared_cta` before a block barrier;\n",
                "- `d` is read only after [`wgmma_commit_group`] and [`wgmma_wait_group`] (then ",
                "[`wgmma_fence_operands`]); the module is built for sm_90a.\n\n",
                "# Example\n```ignore\n",
                "wgmma_fence();\n",
                "for s in 0..4 { // K = 64 in 128-byte swizzled rows: k16 slice s is 32 bytes further\n",
                "    let a = wgmma_descriptor(a_addr + 32 * s, 16, 1024, WgmmaSwizzle::B128);\n",
                "    let b = wgmma_descriptor(b_addr + 32 * s, 16, 1024, WgmmaSwizzle::B128);\n",
                "    ", stringify!($name), "(&mut d, a, b, s > 0);\n}\n",
                "wgmma_commit_group();\nwgmma_wait_group::<0>();\nwgmma_fence_operands(&mut d);\n```"
            )]
            pub unsafe fn $name(d: &mut [f32; $regs], desc_a: u64, desc_b: u64, scale_d: bool) {
                unsafe { $general::<false, false, false>(d, desc_a, desc_b, scale_d) }
            }
        }

        gpu_only! {
            WgmmaMmaAsync;
            #[doc = concat!(
                "[`", stringify!($name), "`] for f16 or bf16 inputs and either storage order of each ",
                "operand (`wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.{bf16,f16}.{bf16,f16}` with ",
                "`imm-trans-a = A_MN`, `imm-trans-b = B_MN`).\n\n",
                "- `F16`: A and B are f16 (else bf16); D is f32 either way.\n",
                "- `A_MN`: A is M-major in shared memory (64 M-contiguous elements per 128-byte row, a row ",
                "per k), else K-major. `B_MN`: B is N-major, else K-major. An MN-major operand's ",
                "descriptor gives the byte distance between 64-element M (N) blocks as the leading byte ",
                "offset and between 8-row k groups as the stride byte offset (with the 128-byte swizzle; ",
                "see CuTe's `make_gmma_desc<Major::MN>`).\n\n",
                "GPU only: does not compile for the host ([`no_cpu`]).\n\n",
                "# Safety\n",
                "Those of [`", stringify!($name), "`].\n\n",
                "# Example\n```ignore\n",
                "// B row-major (N-major): 4 boxes of 64 N x 64 K, 8 KiB apart; k16 slice s is 2 k groups further\n",
                "let b = wgmma_descriptor(b_addr + 2048 * s, 8192, 1024, WgmmaSwizzle::B128);\n",
                stringify!($general), "::<false, false, true>(&mut d, a, b, s > 0);\n```"
            )]
            pub unsafe fn $general<const F16: bool, const A_MN: bool, const B_MN: bool>(
                d: &mut [f32; $regs],
                desc_a: u64,
                desc_b: u64,
                scale_d: bool,
            ) {
                macro_rules! mma {
                    ($ty:literal) => {
                        asm!(
                            "{{ .reg .pred p;",
                            "setp.ne.b32 p, {sd}, 0;",
                            concat!(
                                "wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.", $ty, ".", $ty, " {{{", $first, "}"
                                $(, ", {", $i, "}")*,
                                "}}, {da}, {db}, p, 1, 1, {ta}, {tb}; }}"
                            ),
                            inout(reg32) d[$first], $(inout(reg32) d[$i],)*
                            sd = in(reg32) scale_d as u32,
                            da = in(reg64) desc_a,
                            db = in(reg64) desc_b,
                            ta = const A_MN as u32,
                            tb = const B_MN as u32,
                            options(nostack),
                        )
                    };
                }
                unsafe {
                    if F16 {
                        mma!("f16")
                    } else {
                        mma!("bf16")
                    }
                }
            }
        }

        gpu_only! {
            WgmmaMmaAsync;
            #[doc = concat!(
                "`D = A * B + (scale_d ? D : 0)` for one warpgroup on tf32 operands ",
                "(`wgmma.mma_async.sync.aligned.m64n", $n, "k8.f32.tf32.tf32`, sm_90a): A 64x8 and B 8x", $n,
                " of 32-bit elements, both K-major in shared memory (wgmma has no transpose for tf32), of ",
                "which the tensor cores use the tf32 part (the low 13 mantissa bits of an f32 are ",
                "ignored); D as for [`", stringify!($name), "`]. With the 128-byte swizzle a k8 step is ",
                "32 bytes further, as a k16 step of 16-bit elements.\n\n",
                "GPU only: does not compile for the host ([`no_cpu`]).\n\n",
                "# Safety\n",
                "Those of [`", stringify!($name), "`].\n\n",
                "# Example\n```ignore\n",
                "for s in 0..4 { // 32 f32 of K in 128-byte swizzled rows\n",
                "    let a = wgmma_descriptor(a_addr + 32 * s, 16, 1024, WgmmaSwizzle::B128);\n",
                "    let b = wgmma_descriptor(b_addr + 32 * s, 16, 1024, WgmmaSwizzle::B128);\n",
                "    ", stringify!($tf32), "(&mut d, a, b, s > 0);\n}\n```"
            )]
            pub unsafe fn $tf32(d: &mut [f32; $regs], desc_a: u64, desc_b: u64, scale_d: bool) {
                unsafe {
                    asm!(
                        "{{ .reg .pred p;",
                        "setp.ne.b32 p, {sd}, 0;",
                        concat!(
                            "wgmma.mma_async.sync.aligned.m64n", $n, "k8.f32.tf32.tf32 {{{", $first, "}"
                            $(, ", {", $i, "}")*,
                            "}}, {da}, {db}, p, 1, 1; }}"
                        ),
                        inout(reg32) d[$first], $(inout(reg32) d[$i],)*
                        sd = in(reg32) scale_d as u32,
                        da = in(reg64) desc_a,
                        db = in(reg64) desc_b,
                        options(nostack),
                    )
                }
            }
        }

        gpu_only! {
            WgmmaMmaAsync;
            #[doc = concat!(
                "`D = A * B + (scale_d ? D : 0)` for one warpgroup on 8-bit floats ",
                "(`wgmma.mma_async.sync.aligned.m64n", $n, "k32.f32.{e4m3,e5m2}.{e4m3,e5m2}`, sm_90a): A 64x32 ",
                "and B 32x", $n, " of fp8 elements (`A_E5M2`: A is e5m2, else e4m3; `B_E5M2` likewise), both ",
                "K-major in shared memory (wgmma has no transpose for 8-bit elements); D as for [`",
                stringify!($name), "`]. With the 128-byte swizzle a k32 step is 32 bytes further, as a k16 ",
                "step of 16-bit elements.\n\n",
                "GPU only: does not compile for the host ([`no_cpu`]).\n\n",
                "# Safety\n",
                "Those of [`", stringify!($name), "`].\n\n",
                "# Example\n```ignore\n",
                "for s in 0..4 { // 128 e4m3 of K in 128-byte swizzled rows\n",
                "    ", stringify!($fp8), "::<false, false>(&mut d, a_desc.at(a, 0, s), b_desc.at(b, 0, s), s > 0);\n}\n```"
            )]
            pub unsafe fn $fp8<const A_E5M2: bool, const B_E5M2: bool>(
                d: &mut [f32; $regs],
                desc_a: u64,
                desc_b: u64,
                scale_d: bool,
            ) {
                macro_rules! mma {
                    ($ta:literal, $tb:literal) => {
                        asm!(
                            "{{ .reg .pred p;",
                            "setp.ne.b32 p, {sd}, 0;",
                            concat!(
                                "wgmma.mma_async.sync.aligned.m64n", $n, "k32.f32.", $ta, ".", $tb, " {{{", $first, "}"
                                $(, ", {", $i, "}")*,
                                "}}, {da}, {db}, p, 1, 1; }}"
                            ),
                            inout(reg32) d[$first], $(inout(reg32) d[$i],)*
                            sd = in(reg32) scale_d as u32,
                            da = in(reg64) desc_a,
                            db = in(reg64) desc_b,
                            options(nostack),
                        )
                    };
                }
                unsafe {
                    match (A_E5M2, B_E5M2) {
                        (false, false) => mma!("e4m3", "e4m3"),
                        (false, true) => mma!("e4m3", "e5m2"),
                        (true, false) => mma!("e5m2", "e4m3"),
                        (true, true) => mma!("e5m2", "e5m2"),
                    }
                }
            }
        }

        gpu_only! {
            WgmmaMmaAsync;
            #[doc = concat!(
                "`D = A * B + (scale_d ? D : 0)` for one warpgroup with A in registers ",
                "(`wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.{bf16,f16}.{bf16,f16}` with a register A, ",
                "sm_90a): A 64x16 as this thread's four registers of two 16-bit values each, at ",
                "[`WGMMA_64X16_A_B16`]`(t + 128 v)` (as `m + 64 k`) for value `v` (register `v / 2`, low half ",
                "for even `v`); B 16x", $n, " in shared memory through its descriptor (`B_MN`: N-major, else ",
                "K-major); `F16`: f16 inputs, else bf16. D as for [`", stringify!($name), "`].\n\n",
                "GPU only: does not compile for the host ([`no_cpu`]).\n\n",
                "# Safety\n",
                "Those of [`", stringify!($name), "`]; the A registers are read asynchronously too: they ",
                "must not change before the group is waited for.\n\n",
                "# Example\n```ignore\n",
                stringify!($rs), "::<false, false>(&mut d, a_regs, b_desc.at(b, 0, s), s > 0);\n```"
            )]
            pub unsafe fn $rs<const F16: bool, const B_MN: bool>(
                d: &mut [f32; $regs],
                a: [u32; 4],
                desc_b: u64,
                scale_d: bool,
            ) {
                macro_rules! mma {
                    ($ty:literal) => {
                        asm!(
                            "{{ .reg .pred p;",
                            "setp.ne.b32 p, {sd}, 0;",
                            concat!(
                                "wgmma.mma_async.sync.aligned.m64n", $n, "k16.f32.", $ty, ".", $ty, " {{{", $first, "}"
                                $(, ", {", $i, "}")*,
                                "}}, {{{a0}, {a1}, {a2}, {a3}}}, {db}, p, 1, 1, {tb}; }}"
                            ),
                            inout(reg32) d[$first], $(inout(reg32) d[$i],)*
                            a0 = in(reg32) a[0],
                            a1 = in(reg32) a[1],
                            a2 = in(reg32) a[2],
                            a3 = in(reg32) a[3],
                            sd = in(reg32) scale_d as u32,
                            db = in(reg64) desc_b,
                            tb = const B_MN as u32,
                            options(nostack),
                        )
                    };
                }
                unsafe {
                    if F16 {
                        mma!("f16")
                    } else {
                        mma!("bf16")
                    }
                }
            }
        }
    )*};
}

wgmma_fns! {
    wgmma_m64n8k16_f32_bf16, wgmma_m64n8k16_f32, wgmma_m64n8k8_f32_tf32, wgmma_m64n8k32_f32_f8, wgmma_m64n8k16_f32_rs, 8, 4, [0, 1, 2, 3];
    wgmma_m64n16k16_f32_bf16, wgmma_m64n16k16_f32, wgmma_m64n16k8_f32_tf32, wgmma_m64n16k32_f32_f8, wgmma_m64n16k16_f32_rs, 16, 8, [0, 1, 2, 3, 4, 5, 6, 7];
    wgmma_m64n32k16_f32_bf16, wgmma_m64n32k16_f32, wgmma_m64n32k8_f32_tf32, wgmma_m64n32k32_f32_f8, wgmma_m64n32k16_f32_rs, 32, 16, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    wgmma_m64n64k16_f32_bf16, wgmma_m64n64k16_f32, wgmma_m64n64k8_f32_tf32, wgmma_m64n64k32_f32_f8, wgmma_m64n64k16_f32_rs, 64, 32, [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        24, 25, 26, 27, 28, 29, 30, 31
    ];
    wgmma_m64n80k16_f32_bf16, wgmma_m64n80k16_f32, wgmma_m64n80k8_f32_tf32, wgmma_m64n80k32_f32_f8, wgmma_m64n80k16_f32_rs, 80, 40, [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39
    ];
    wgmma_m64n128k16_f32_bf16, wgmma_m64n128k16_f32, wgmma_m64n128k8_f32_tf32, wgmma_m64n128k32_f32_f8, wgmma_m64n128k16_f32_rs, 128, 64, [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63
    ];
    wgmma_m64n176k16_f32_bf16, wgmma_m64n176k16_f32, wgmma_m64n176k8_f32_tf32, wgmma_m64n176k32_f32_f8, wgmma_m64n176k16_f32_rs, 176, 88, [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,
        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87
    ];
    wgmma_m64n256k16_f32_bf16, wgmma_m64n256k16_f32, wgmma_m64n256k8_f32_tf32, wgmma_m64n256k32_f32_f8, wgmma_m64n256k16_f32_rs, 256, 128, [
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23,
        24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
        48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,
        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95,
        96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115,
        116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `layout` restricted to `(thread, value)` is a bijection onto `0..rows * cols`.
    fn assert_bijection(name: &str, layout: Layout, threads: i64, values: i64, rows: i64, cols: i64) {
        assert_eq!(layout.size(), threads * values, "{name}: size of {layout}");
        assert_eq!(layout.size(), rows * cols, "{name}: {layout} does not cover {rows}x{cols}");
        assert_eq!(layout.rank(), 2, "{name}: {layout} is not (thread, value)");
        assert_eq!(layout.mode(0).unwrap().size(), threads, "{name}: thread mode of {layout}");
        assert_eq!(layout.mode(1).unwrap().size(), values, "{name}: value mode of {layout}");
        let mut seen = [false; 64 * 256];
        for i in 0..layout.size() {
            let x = layout.call(i);
            assert!((0..rows * cols).contains(&x), "{name}: {layout}({i}) = {x} outside {rows}x{cols}");
            assert!(!seen[x as usize], "{name}: {layout} maps two (thread, value) pairs to {x}");
            seen[x as usize] = true;
        }
    }

    #[test]
    fn fragment_layouts_are_bijections_of_the_right_sizes() {
        assert_bijection("WGMMA_64X16_A_B16", WGMMA_64X16_A_B16, 128, 8, 64, 16);
        for (name, atom) in [
            ("bf16 m16n8k16", SM80_16X8X16_F32BF16BF16F32_TN),
            ("f16 m16n8k16", SM80_16X8X16_F32F16F16F32_TN),
            ("tf32 m16n8k8", SM80_16X8X8_F32TF32TF32F32_TN),
        ] {
            let per_thread = |n: i64| n / atom.threads;
            assert_bijection(name, atom.a, 32, per_thread(atom.m * atom.k), atom.m, atom.k);
            assert_bijection(name, atom.b, 32, per_thread(atom.n * atom.k), atom.n, atom.k);
            assert_bijection(name, atom.c, 32, per_thread(atom.m * atom.n), atom.m, atom.n);
        }
        assert_bijection("ldmatrix", LDMATRIX_8X8, 32, 2, 8, 8);
        assert_bijection("ldmatrix.trans", LDMATRIX_8X8_TRANS, 32, 2, 8, 8);
        for n in (8..=256).step_by(8) {
            let c = wgmma_accumulator_layout(n).unwrap();
            assert_bijection("wgmma accumulator", c, 128, n / 2, 64, n);
        }
        for n in [0, 4, 20, 264] {
            assert!(wgmma_accumulator_layout(n).is_err(), "N = {n}");
        }
    }

    /// The layouts against the PTX ISA's fragment tables ("Matrix Fragments for mma.m16n8k16 /
    /// mma.m16n8k8", "wgmma .m64nNk16 register fragment D", "ldmatrix"), written as formulas of
    /// `groupID = lane / 4` and `threadID_in_group = lane % 4`.
    #[test]
    fn fragment_layouts_match_the_ptx_tables() {
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            // m16n8k16, 16-bit A: a_i for i in 0..8.
            for i in 0..8 {
                let row = if i < 2 || (4..6).contains(&i) { g } else { g + 8 };
                let col = t * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
                assert_eq!(MMA_16X16_A_B16.call(lane + 32 * i), row + 16 * col, "A lane {lane} a{i}");
            }
            // m16n8k16, 16-bit B (K x N): b_i, row (k) = t * 2 + (i & 1) + 8 (i >= 2), col (n) = g.
            for i in 0..4 {
                let k = t * 2 + (i & 1) + if i >= 2 { 8 } else { 0 };
                assert_eq!(MMA_8X16_B_B16.call(lane + 32 * i), g + 8 * k, "B lane {lane} b{i}");
            }
            // C/D f32: c_i, row = g + 8 (i >= 2), col = t * 2 + (i & 1).
            for i in 0..4 {
                let row = g + if i >= 2 { 8 } else { 0 };
                assert_eq!(MMA_16X8_C.call(lane + 32 * i), row + 16 * (t * 2 + (i & 1)), "C lane {lane} c{i}");
            }
            // m16n8k8 tf32 A: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4).
            let tf32 = SM80_16X8X8_F32TF32TF32F32_TN;
            for i in 0..4 {
                let row = g + if i & 1 == 1 { 8 } else { 0 };
                let col = t + if i >= 2 { 4 } else { 0 };
                assert_eq!(tf32.a.call(lane + 32 * i), row + 16 * col, "tf32 A lane {lane} a{i}");
            }
            // m16n8k8 tf32 B: b0 (k t, n g), b1 (k t + 4, n g).
            for i in 0..2 {
                assert_eq!(tf32.b.call(lane + 32 * i), g + 8 * (t + 4 * i), "tf32 B lane {lane} b{i}");
            }
            // ldmatrix: (row g, cols 2t, 2t + 1); .trans: (rows 2t, 2t + 1, col g).
            for v in 0..2 {
                assert_eq!(LDMATRIX_8X8.call(lane + 32 * v), g + 8 * (2 * t + v));
                assert_eq!(LDMATRIX_8X8_TRANS.call(lane + 32 * v), 2 * t + v + 8 * g);
            }
        }
        // wgmma m64nNk16 D: thread = 32 w + lane, d_i: row 16 w + g + 8 ((i / 2) % 2),
        // col 8 (i / 4) + 2 t + (i % 2).
        let c = wgmma_accumulator_layout(64).unwrap();
        for thread in 0..128 {
            let (w, g, t) = (thread / 32, (thread % 32) / 4, thread % 4);
            for i in 0..32 {
                let row = 16 * w + g + 8 * ((i / 2) % 2);
                let col = 8 * (i / 4) + 2 * t + (i % 2);
                assert_eq!(c.call(thread + 128 * i), row + 64 * col, "wgmma thread {thread} d{i}");
            }
        }
    }

    /// `ldmatrix.x4` with rows from [`LDMATRIX_X4_A_ROWS`] gives the A fragment, `.x2` with
    /// [`LDMATRIX_X2_B_ROWS`] the B fragment: composing the row addresses with [`LDMATRIX_8X8`].
    #[test]
    fn ldmatrix_row_layouts_give_the_mma_fragments() {
        for lane in 0..32 {
            for v in 0..2 {
                let e = LDMATRIX_8X8.call(lane + 32 * v);
                let (r, c) = (e % 8, e / 8);
                for j in 0..4 {
                    // Register j = matrix j, whose row r lane 8j + r points at.
                    let start = LDMATRIX_X4_A_ROWS.call(8 * j + r);
                    let (m, k) = (start % 16, start / 16 + c);
                    assert_eq!(MMA_16X16_A_B16.call(lane + 32 * (2 * j + v)), m + 16 * k);
                }
                for j in 0..2 {
                    let start = LDMATRIX_X2_B_ROWS.call(8 * j + r);
                    let (n, k) = (start % 8, start / 8 + c);
                    assert_eq!(MMA_8X16_B_B16.call(lane + 32 * (2 * j + v)), n + 8 * k);
                }
            }
        }
    }

    #[test]
    fn canonical_wgmma_layouts() {
        // Interleaved: every 8x8 core matrix is 64 contiguous elements, rows 8 apart.
        let l = wgmma_k_major_interleaved(64, 64).unwrap();
        assert_bijection_flat(l.size(), |i| l.call(i));
        for (m, k) in [(0, 0), (7, 7), (8, 0), (0, 8), (13, 21)] {
            let want = (m % 8) * 8 + k % 8 + 64 * (k / 8) + 512 * (m / 8);
            assert_eq!(l.call(m + 64 * k), want, "({m}, {k})");
        }
        // 128B swizzle: 16-byte chunk c of row r lands in chunk c ^ (r % 8).
        let s = wgmma_k_major_sw128(64).unwrap();
        assert_bijection_flat(s.size(), |i| s.call(i));
        for m in 0..64 {
            for k in 0..64 {
                let want = m * 64 + (((k / 8) ^ (m % 8)) * 8) + k % 8;
                assert_eq!(s.call(m + 64 * k), want, "({m}, {k})");
            }
        }
        assert!(wgmma_k_major_interleaved(12, 16).is_err());
        assert!(wgmma_k_major_sw128(0).is_err());
    }

    fn assert_bijection_flat(size: i64, f: impl Fn(i64) -> i64) {
        let mut seen = [false; 64 * 64];
        for i in 0..size {
            let x = f(i) as usize;
            assert!(x < size as usize && !seen[x], "{i} -> {x}");
            seen[x] = true;
        }
    }
}
