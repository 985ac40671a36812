//! GPU check kernels: `ldmatrix` / `stmatrix`, `mma.sync` (m16n8k16 bf16 and f16, m16n8k8 tf32)
//! and, in the sm_90a module only (cargo feature `sm90a`), `wgmma` m64n16k16 bf16.
//!
//! Every fragment is loaded and stored through the thread-value layouts of
//! `cute_rs_tensor::device::mma` (`(thread, value) -> column-major index in the tile`), so that a
//! wrong layout shows as a wrong product. Checked by `cute_rs::gpu_suite` (`mma/*`).

use cute_rs_tensor::kernel;
use cute_rs_layout::Layout;
use cute_rs_tensor::device::mma::{
    ldmatrix_x1, ldmatrix_x1_trans, ldmatrix_x2, ldmatrix_x2_trans, ldmatrix_x4, ldmatrix_x4_trans,
    mma_m16n8k16_f32_bf16, mma_m16n8k16_f32_f16, mma_m16n8k8_f32_tf32, stmatrix_x1, stmatrix_x1_trans, stmatrix_x2,
    stmatrix_x2_trans, stmatrix_x4, stmatrix_x4_trans, LDMATRIX_X4_A_ROWS, SM80_16X8X16_F32BF16BF16F32_TN,
    SM80_16X8X8_F32TF32TF32F32_TN,
};
use cute_rs_tensor::device::numeric::pack_b16x2;

use super::cp_async::{static_shared, sync_threads, tid};

/// The values `(lane, 2j)` and `(lane, 2j + 1)` of `layout` (a thread-value layout into a matrix
/// of `rows` rows, index `row + rows * col`), read from the row-major matrix at `src` (row stride
/// `ld`) and packed two per register.
#[inline(always)]
unsafe fn gather_b16<const R: usize>(layout: Layout, rows: i64, ld: i64, lane: u32, src: *const u16) -> [u32; R] {
    let at = |v: usize| {
        let i = layout.call(lane as i64 + 32 * v as i64);
        *src.add(((i % rows) * ld + i / rows) as usize)
    };
    let mut regs = [0u32; R];
    for (j, r) in regs.iter_mut().enumerate() {
        *r = pack_b16x2(at(2 * j), at(2 * j + 1));
    }
    regs
}

/// [`gather_b16`] for 32-bit values, one per register.
#[inline(always)]
unsafe fn gather_b32<const R: usize>(layout: Layout, rows: i64, ld: i64, lane: u32, src: *const u32) -> [u32; R] {
    let mut regs = [0u32; R];
    for (v, r) in regs.iter_mut().enumerate() {
        let i = layout.call(lane as i64 + 32 * v as i64);
        *r = *src.add(((i % rows) * ld + i / rows) as usize);
    }
    regs
}

/// The 16x8 accumulator fragment of `lane` ([`SM80_16X8X16_F32BF16BF16F32_TN`]`.c`) from / to a
/// row-major 16x8 f32 matrix.
#[inline(always)]
unsafe fn load_c(lane: u32, c: *const f32) -> [f32; 4] {
    let bits = gather_b32::<4>(SM80_16X8X16_F32BF16BF16F32_TN.c, 16, 8, lane, c as *const u32);
    bits.map(f32::from_bits)
}

#[inline(always)]
unsafe fn store_d(lane: u32, d: [f32; 4], out: *mut f32) {
    for (v, x) in d.iter().enumerate() {
        let i = SM80_16X8X16_F32BF16BF16F32_TN.c.call(lane as i64 + 32 * v as i64);
        *out.add(((i % 16) * 8 + i / 16) as usize) = *x;
    }
}

/// `d = a * b + c` for one warp with `mma.sync.m16n8k16.f32.bf16.bf16.f32`: `a` 16x16 and
/// `b` 8x16 (N x K, i.e. B transposed) row-major bf16 bit patterns, `c` and `d` 16x8 row-major
/// f32. Fragments gathered from global memory through the atom's layouts. One block of 32
/// threads.
#[kernel]
pub fn mma_m16n8k16_bf16_check(a: *const u16, b: *const u16, c: *const f32, d: *mut f32) {
    let lane = tid();
    let atom = SM80_16X8X16_F32BF16BF16F32_TN;
    let fa = gather_b16::<4>(atom.a, 16, 16, lane, a);
    let fb = gather_b16::<2>(atom.b, 8, 16, lane, b);
    store_d(lane, mma_m16n8k16_f32_bf16(fa, fb, load_c(lane, c)), d);
}

/// [`mma_m16n8k16_bf16_check`] with f16 inputs (`mma.sync.m16n8k16.f32.f16.f16.f32`).
#[kernel]
pub fn mma_m16n8k16_f16_check(a: *const u16, b: *const u16, c: *const f32, d: *mut f32) {
    let lane = tid();
    let atom = cute_rs_tensor::device::mma::SM80_16X8X16_F32F16F16F32_TN;
    let fa = gather_b16::<4>(atom.a, 16, 16, lane, a);
    let fb = gather_b16::<2>(atom.b, 8, 16, lane, b);
    store_d(lane, mma_m16n8k16_f32_f16(fa, fb, load_c(lane, c)), d);
}

/// `d = a * b + c` for one warp with `mma.sync.m16n8k8.f32.tf32.tf32.f32`: `a` 16x8 and `b`
/// 8x8 (N x K) row-major f32 bit patterns (tf32 values), `c` and `d` 16x8 row-major f32.
/// One block of 32 threads.
#[kernel]
pub fn mma_m16n8k8_tf32_check(a: *const u32, b: *const u32, c: *const f32, d: *mut f32) {
    let lane = tid();
    let atom = SM80_16X8X8_F32TF32TF32F32_TN;
    let fa = gather_b32::<4>(atom.a, 16, 8, lane, a);
    let fb = gather_b32::<2>(atom.b, 8, 8, lane, b);
    store_d(lane, mma_m16n8k8_f32_tf32(fa, fb, load_c(lane, c)), d);
}

/// [`mma_m16n8k16_bf16_check`] with the A and B fragments loaded from shared memory by
/// `ldmatrix`: A (16x16 row-major) with `ldmatrix.x4`, each lane pointing at the row
/// [`LDMATRIX_X4_A_ROWS`] names; B given as `b_kn`, **K x N** row-major (16x8), with
/// `ldmatrix.x2.trans`, lane `l < 16` pointing at row `k = l`. One block of 32 threads.
#[kernel]
pub fn mma_m16n8k16_bf16_ldmatrix_check(a: *const u16, b_kn: *const u16, c: *const f32, d: *mut f32) {
    let sa = static_shared!(MMA_LDMATRIX_A, 512, 128) as *mut u16;
    let sb = static_shared!(MMA_LDMATRIX_B, 256, 128) as *mut u16;
    let lane = tid();
    let mut e = lane;
    while e < 256 {
        *sa.add(e as usize) = *a.add(e as usize);
        if e < 128 {
            *sb.add(e as usize) = *b_kn.add(e as usize);
        }
        e += 32;
    }
    sync_threads();
    let i = LDMATRIX_X4_A_ROWS.call(lane as i64);
    let fa = ldmatrix_x4(sa.add(((i % 16) * 16 + i / 16) as usize));
    let fb = ldmatrix_x2_trans(sb.add(((lane % 16) * 8) as usize));
    store_d(lane, mma_m16n8k16_f32_bf16(fa, fb, load_c(lane, c)), d);
}

/// Where row `q` (matrix `q / 8`, row `q % 8`) of the 4 x 8x8 matrices of the `ldmatrix` /
/// `stmatrix` checks lives in shared memory: slot `5 q mod 32`, so that the lanes' row addresses
/// are a permutation, not a plain stride.
#[inline(always)]
fn row_slot(q: u32) -> u32 {
    (5 * q) % 32
}

/// Writes `regs` to `out[lane * 4 ..]`.
#[inline(always)]
unsafe fn write_regs<const N: usize>(out: *mut u32, lane: u32, regs: [u32; N]) {
    for (j, r) in regs.iter().enumerate() {
        *out.add(lane as usize * 4 + j) = *r;
    }
}

/// Loads 4 8x8 matrices of 16-bit values with `ldmatrix` and writes each lane's registers to
/// `out[lane * 4 + j]` (registers a variant does not return are not written).
///
/// `src` holds the matrices row-major, matrix `i` at `64 i`; row `q = 8 i + r` is copied to
/// shared-memory slot [`row_slot`]`(q)`, and lane `l` passes the address of slot
/// `row_slot(l)`, i.e. of row `l % 8` of matrix `l / 8`. `variant`: 0 `.x1`, 1 `.x2`, 2 `.x4`,
/// 3 `.x1.trans`, 4 `.x2.trans`, 5 `.x4.trans`. One block of 32 threads.
#[kernel]
pub fn ldmatrix_check(src: *const u16, variant: u32, out: *mut u32) {
    let smem = static_shared!(LDMATRIX_CHECK, 512, 128) as *mut u16;
    let lane = tid();
    let mut e = lane;
    while e < 256 {
        *smem.add((row_slot(e / 8) * 8 + e % 8) as usize) = *src.add(e as usize);
        e += 32;
    }
    sync_threads();
    let row = smem.add((row_slot(lane) * 8) as usize) as *const u16;
    match variant {
        0 => write_regs(out, lane, ldmatrix_x1(row)),
        1 => write_regs(out, lane, ldmatrix_x2(row)),
        2 => write_regs(out, lane, ldmatrix_x4(row)),
        3 => write_regs(out, lane, ldmatrix_x1_trans(row)),
        4 => write_regs(out, lane, ldmatrix_x2_trans(row)),
        _ => write_regs(out, lane, ldmatrix_x4_trans(row)),
    }
}

/// The inverse of [`ldmatrix_check`]: lane `l` holds registers `src[l * 4 + j]` and stores them
/// with `stmatrix` (`variant` as there), row `l % 8` of matrix `l / 8` going to shared-memory
/// slot `row_slot(l)`; shared memory, filled with `0xffff` before, is then written to `out` in
/// plain order (matrix `i` at `64 i`, row-major). One block of 32 threads.
#[kernel]
pub fn stmatrix_check(src: *const u32, variant: u32, out: *mut u16) {
    let smem = static_shared!(STMATRIX_CHECK, 512, 128) as *mut u16;
    let lane = tid();
    let mut e = lane;
    while e < 256 {
        *smem.add(e as usize) = 0xffff;
        e += 32;
    }
    sync_threads();
    let row = smem.add((row_slot(lane) * 8) as usize);
    let r = |j: usize| *src.add(lane as usize * 4 + j);
    match variant {
        0 => stmatrix_x1(row, [r(0)]),
        1 => stmatrix_x2(row, [r(0), r(1)]),
        2 => stmatrix_x4(row, [r(0), r(1), r(2), r(3)]),
        3 => stmatrix_x1_trans(row, [r(0)]),
        4 => stmatrix_x2_trans(row, [r(0), r(1)]),
        _ => stmatrix_x4_trans(row, [r(0), r(1), r(2), r(3)]),
    }
    sync_threads();
    let mut e = lane;
    while e < 256 {
        *out.add(e as usize) = *smem.add((row_slot(e / 8) * 8 + e % 8) as usize);
        e += 32;
    }
}

/// The `wgmma` checks (sm_90a, module `test_kernels_sm90a`). On the host only the kernels' typed
/// constants exist (`#[kernel(gpu_only)]`: wgmma has no CPU implementation); `check` and the
/// imports it uses are GPU code.
#[cfg(feature = "sm90a")]
pub mod wgmma {
    use cute_rs_tensor::kernel;
    #[cfg(target_arch = "nvptx64")]
    use {
        super::super::cp_async::{static_shared, sync_threads, tid},
        cute_rs_layout::unwrap,
        cute_rs_tensor::device::mma::{
            wgmma_accumulator_layout, wgmma_commit_group, wgmma_fence,
            wgmma_fence_operands, wgmma_k_major_interleaved, wgmma_k_major_sw128, wgmma_m64n128k16_f32_bf16,
            wgmma_m64n16k16_f32_bf16, wgmma_m64n256k16_f32_bf16, wgmma_m64n32k16_f32_bf16, wgmma_m64n64k16_f32_bf16,
            wgmma_m64n8k16_f32_bf16, wgmma_wait_group, WgmmaSwizzle,
        },
        cute_rs_layout::{Swizzle, SwizzledLayout},
        cute_rs_tensor::atom::wgmma::{accumulators_as_a, gemm, make_gmma_desc, make_gmma_layout, Major, WgmmaAtom, WgmmaRsAtom},
        cute_rs_tensor::device::numeric::pack_b16x2,
        cute_rs_tensor::device::shared::generic_to_shared,
        cute_rs_tensor::device::tma::fence_proxy_async_shared_cta,
        cute_rs_tensor::device::unroll::for_each_unrolled_mut,
    };

    /// Thread `t`'s share (every 128th element) of copying the `rows x cols` row-major matrix `src`
    /// into shared memory at `dst`, element `(r, c)` at `at(r + rows * c)`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn place<T: Copy>(dst: *mut T, src: *const T, rows: usize, cols: usize, at: impl Fn(i64) -> i64, t: u32) {
        for e in (t as usize..rows * cols).step_by(128) {
            let (r, c) = ((e / cols) as i64, (e % cols) as i64);
            *dst.add(at(r + rows as i64 * c) as usize) = *src.add(e);
        }
    }

    /// Commits and waits for the warpgroup's wgmmas, then stores its m64nN accumulators (thread
    /// `t`'s part) into `d`, 64 x N row-major f32. `R = N / 2`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn wait_and_store<const N: usize, const R: usize>(acc: &mut [f32; R], t: u32, d: *mut f32) {
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        wgmma_fence_operands(acc);
        let c_layout = const { unwrap!(wgmma_accumulator_layout(N as i64)) };
        // Constant indices only: the accumulators stay in registers.
        for_each_unrolled_mut(acc, |v, x| {
            let i = c_layout.call(t as i64 + 128 * v as i64);
            *d.add(((i % 64) * N as i64 + i / 64) as usize) = *x;
        });
    }

    /// `d = a * b` for one warpgroup with four m64nNk16 wgmmas (K = 64): `a` 64x64 and `b` Nx64
    /// (N x K) row-major bf16 bit patterns, `d` 64xN row-major f32. The operands are placed in
    /// 1024-byte-aligned shared memory by the canonical K-major layouts of
    /// `cute_rs_tensor::device::mma` (`swizzle` 0: none, i.e. 8x8 core matrices, K-chunks 128 bytes
    /// apart, 8-row groups 1024 bytes apart; 1: 128-byte swizzle, `Sw<3,4,3>` on 128-byte rows),
    /// described by matrix descriptors derived from those layouts (`make_gmma_desc`), one k16
    /// block per instruction. The accumulators start as NaN: the first instruction has
    /// `scale-d = 0` and must ignore them. `R = N / 2`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn check<const N: usize, const R: usize>(
        a: *const u16,
        b: *const u16,
        swizzle: u32,
        d: *mut f32,
        mma: impl Fn(&mut [f32; R], u64, u64, bool),
    ) {
        let sa = static_shared!(WGMMA_CHECK_A, 8192, 1024) as *mut u16;
        // Up to 256 x 64 bf16.
        let sb = static_shared!(WGMMA_CHECK_B, 32768, 1024) as *mut u16;
        let a_interleaved = const { unwrap!(wgmma_k_major_interleaved(64, 64)) };
        let b_interleaved = const { unwrap!(wgmma_k_major_interleaved(N as i64, 64)) };
        let a_sw128 = const { unwrap!(wgmma_k_major_sw128(64)) };
        let b_sw128 = const { unwrap!(wgmma_k_major_sw128(N as i64)) };
        let t = tid();
        let sw = swizzle != 0;
        place(sa, a, 64, 64, |i| if sw { a_sw128.call(i) } else { a_interleaved.call(i) }, t);
        place(sb, b, N, 64, |i| if sw { b_sw128.call(i) } else { b_interleaved.call(i) }, t);
        // wgmma reads shared memory through the async proxy.
        fence_proxy_async_shared_cta();
        sync_threads();

        // The descriptors come from the same layouts that placed the operands.
        let (a0, b0) = (generic_to_shared(sa), generic_to_shared(sb));
        let (da, db) = if sw {
            (const { unwrap!(make_gmma_desc(unwrap!(wgmma_k_major_sw128(64)), 2, Major::K, 64, 16)) },
             const { unwrap!(make_gmma_desc(unwrap!(wgmma_k_major_sw128(N as i64)), 2, Major::K, N as i64, 16)) })
        } else {
            (const { unwrap!(make_gmma_desc(SwizzledLayout::new(unwrap!(Swizzle::new(0, 4, 3)), 0, unwrap!(wgmma_k_major_interleaved(64, 64))), 2, Major::K, 64, 16)) },
             const { unwrap!(make_gmma_desc(SwizzledLayout::new(unwrap!(Swizzle::new(0, 4, 3)), 0, unwrap!(wgmma_k_major_interleaved(N as i64, 64))), 2, Major::K, N as i64, 16)) })
        };
        let mut acc = [f32::NAN; R];
        wgmma_fence();
        for s in 0..4u32 {
            mma(&mut acc, da.at(a0, 0, s), db.at(b0, 0, s), s > 0);
        }
        wait_and_store::<N, R>(&mut acc, t, d);
    }

    /// `d = a * b` for one warpgroup with the fp8 wgmma atom `W` over K = 128 (four k32 blocks,
    /// through `gemm`): `a` 64 x 128 and `b` N x 128 (N x K) row-major 8-bit floats (their bits),
    /// `d` 64 x N row-major f32. The operands are placed in shared memory by the canonical K-major
    /// 128-byte-swizzled tiles of 1-byte elements (`make_gmma_layout`), described by the
    /// descriptors derived from them. The accumulators start as NaN. `R = N / 2`.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn check_f8<W: WgmmaAtom, const N: usize, const R: usize>(a: *const u8, b: *const u8, d: *mut f32) {
        let sa = static_shared!(WGMMA_F8_CHECK_A, 8192, 1024);
        let sb = static_shared!(WGMMA_F8_CHECK_B, 32768, 1024);
        let a_tile = const { unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 1, 64, 128)) };
        let b_tile = const { unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 1, N as i64, 128)) };
        let t = tid();
        place(sa, a, 64, 128, |i| a_tile.call(i), t);
        place(sb, b, N, 128, |i| b_tile.call(i), t);
        fence_proxy_async_shared_cta();
        sync_threads();
        let da = const { unwrap!(make_gmma_desc(unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 1, 64, 128)), 1, Major::K, 64, 32)) };
        let db = const {
            unwrap!(make_gmma_desc(unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 1, N as i64, 128)), 1, Major::K, N as i64, 32))
        };
        let mut acc = [f32::NAN; R];
        wgmma_fence();
        gemm::<W, 4, R>(da.operand(generic_to_shared(sa), 0), db.operand(generic_to_shared(sb), 0), &mut acc, false);
        wait_and_store::<N, R>(&mut acc, t, d);
    }

    /// `d = a * b` (64 x 256, K = 128) with e4m3 A and B: see `check_f8`. One block of 128 threads.
    #[kernel(gpu_only)]
    pub fn wgmma_m64n256k32_e4m3_check(a: *const u8, b: *const u8, d: *mut f32) {
        check_f8::<cute_rs_tensor::atom::wgmma::SM90_64x256x32_F32E4M3E4M3_SS_TN, 256, 128>(a, b, d);
    }

    /// `d = a * b` (64 x 64, K = 128) with e5m2 A and e4m3 B: see `check_f8`. One block of 128
    /// threads.
    #[kernel(gpu_only)]
    pub fn wgmma_m64n64k32_e5m2_e4m3_check(a: *const u8, b: *const u8, d: *mut f32) {
        check_f8::<cute_rs_tensor::atom::wgmma::SM90_64x64x32_F32E5M2E4M3_SS_TN, 64, 32>(a, b, d);
    }

    /// `d = a * b` for one warpgroup with the register-A atom `W` over K = 64 (four k16 blocks):
    /// `a` 64 x 64 row-major bf16 read straight into each thread's registers by the atom's A layout,
    /// `b` N x 64 (N x K) placed in shared memory by the K-major 128-byte-swizzled layout and read
    /// through descriptors derived from it, `d` 64 x N row-major f32. The accumulators start as NaN.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    unsafe fn check_rs<W: WgmmaRsAtom, const N: usize, const R: usize>(a: *const u16, b: *const u16, d: *mut f32) {
        let sb = static_shared!(WGMMA_RS_CHECK_B, 32768, 1024) as *mut u16;
        let b_tile = const { unwrap!(wgmma_k_major_sw128(N as i64)) };
        let t = tid();
        place(sb, b, N, 64, |i| b_tile.call(i), t);
        fence_proxy_async_shared_cta();
        sync_threads();
        let db = const { unwrap!(make_gmma_desc(unwrap!(wgmma_k_major_sw128(N as i64)), 2, Major::K, N as i64, 16)) };
        // This thread's A values of k-block `kb`, packed two per register.
        let fragment = |kb: i64| -> [u32; 4] {
            let at = |v: i64| {
                let i = W::LAYOUT_A.call(t as i64 + 128 * v);
                *a.add(((i % 64) * 64 + i / 64 + 16 * kb) as usize)
            };
            [pack_b16x2(at(0), at(1)), pack_b16x2(at(2), at(3)), pack_b16x2(at(4), at(5)), pack_b16x2(at(6), at(7))]
        };
        let frags = [fragment(0), fragment(1), fragment(2), fragment(3)];
        let mut acc = [f32::NAN; R];
        wgmma_fence();
        for kb in 0..4u32 {
            W::call(frags[kb as usize], db.at(generic_to_shared(sb), 0, kb), acc.as_mut_ptr(), kb > 0);
        }
        wait_and_store::<N, R>(&mut acc, t, d);
    }

    /// `d = a * b` (64 x 128, K = 64) with A in registers: see `check_rs`. One block of 128 threads.
    #[kernel(gpu_only)]
    pub fn wgmma_m64n128k16_bf16_rs_check(a: *const u16, b: *const u16, d: *mut f32) {
        check_rs::<cute_rs_tensor::atom::wgmma::SM90_64x128x16_F32BF16BF16_RS, 128, 64>(a, b, d);
    }

    /// `d = a * b` (64 x 64, K = 64) with A in registers: see `check_rs`. One block of 128 threads.
    #[kernel(gpu_only)]
    pub fn wgmma_m64n64k16_bf16_rs_check(a: *const u16, b: *const u16, d: *mut f32) {
        check_rs::<cute_rs_tensor::atom::wgmma::SM90_64x64x16_F32BF16BF16_RS, 64, 32>(a, b, d);
    }

    /// Two chained GEMMs as attention runs them: `s = a * b` with the SS atom (64 x 64, K = 64),
    /// its accumulators rounded to bf16 and used in place as the register A operand
    /// (`accumulators_as_a`) of `d = s * v` with the RS atom (64 x 64, K = 64). `a` 64 x 64, `b`
    /// and `v` 64 x 64 as N x K, all row-major bf16; `d` 64 x 64 row-major f32. One block of 128
    /// threads.
    #[kernel(gpu_only)]
    pub fn wgmma_chain_ss_rs_check(a: *const u16, b: *const u16, v: *const u16, d: *mut f32) {
        let sa = static_shared!(WGMMA_CHAIN_A, 8192, 1024) as *mut u16;
        let sb = static_shared!(WGMMA_CHAIN_B, 8192, 1024) as *mut u16;
        let sv = static_shared!(WGMMA_CHAIN_V, 8192, 1024) as *mut u16;
        let tile = const { unwrap!(wgmma_k_major_sw128(64)) };
        let t = tid();
        for (dst, src) in [(sa, a), (sb, b), (sv, v)] {
            place(dst, src, 64, 64, |i| tile.call(i), t);
        }
        fence_proxy_async_shared_cta();
        sync_threads();
        let desc = const { unwrap!(make_gmma_desc(unwrap!(wgmma_k_major_sw128(64)), 2, Major::K, 64, 16)) };
        let mut s = [f32::NAN; 32];
        wgmma_fence();
        gemm::<cute_rs_tensor::atom::wgmma::SM90_64x64x16_F32BF16BF16_SS, 4, 32>(
            desc.operand(generic_to_shared(sa), 0),
            desc.operand(generic_to_shared(sb), 0),
            &mut s,
            false,
        );
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut s);
        let p = accumulators_as_a::<4, 32, false>(&s);
        let mut acc = [f32::NAN; 32];
        wgmma_fence();
        for kb in 0..4u32 {
            <cute_rs_tensor::atom::wgmma::SM90_64x64x16_F32BF16BF16_RS as WgmmaRsAtom>::call(
                p[kb as usize],
                desc.at(generic_to_shared(sv), 0, kb),
                acc.as_mut_ptr(),
                kb > 0,
            );
        }
        wait_and_store::<64, 32>(&mut acc, t, d);
    }

    macro_rules! wgmma_checks {
        ($($name:ident, $n:literal, $r:literal, $mma:ident;)*) => {$(
            #[doc = concat!(
                "`d = a * b` (64x", $n, ", K = 64) with `", stringify!($mma), "`: see `check`. ",
                "`b` is ", $n, "x64 (N x K). One block of 128 threads."
            )]
            #[kernel(gpu_only)]
            pub fn $name(a: *const u16, b: *const u16, swizzle: u32, d: *mut f32) {
                check::<$n, $r>(a, b, swizzle, d, |acc, da, db, s| unsafe { $mma(acc, da, db, s) });
            }
        )*};
    }

    wgmma_checks! {
        wgmma_m64n8k16_bf16_check, 8, 4, wgmma_m64n8k16_f32_bf16;
        wgmma_m64n16k16_bf16_check, 16, 8, wgmma_m64n16k16_f32_bf16;
        wgmma_m64n32k16_bf16_check, 32, 16, wgmma_m64n32k16_f32_bf16;
        wgmma_m64n64k16_bf16_check, 64, 32, wgmma_m64n64k16_f32_bf16;
        wgmma_m64n128k16_bf16_check, 128, 64, wgmma_m64n128k16_f32_bf16;
        wgmma_m64n256k16_bf16_check, 256, 128, wgmma_m64n256k16_f32_bf16;
    }
}
