//! The Hopper GEMM path (sm_90a, in `kernels_sm90a.ptx` only): TMA loads into 128-byte-swizzled
//! shared tiles, `wgmma` m64n128k16 (bf16 in, f32 accumulate) from matrix descriptors, a ring of
//! [`GEMM_SM90_STAGES`] stages with one mbarrier each. First step of the ladder: one
//! warpgroup per 128 x 128 tile (two m64 halves), TMA prefetch of the next stages overlapping the
//! tensor cores; no warp specialization, clusters or TMA-store epilogue yet.
//!
//! Operands are K-major: `A` is M x K row-major and `B` is N x K row-major (the transpose of the
//! K x N matrix multiplied), both read through tensor maps with boxes of 64 (K) x 128 rows and the
//! 128-byte swizzle, which is exactly the canonical K-major SW128 layout wgmma reads
//! (`wgmma_k_major_sw128`: 8 rows of 128 bytes per 1024-byte atom). Out-of-bounds rows and
//! columns of a box are zero-filled by TMA, so partial tiles need no special mainloop; the
//! epilogue predicates its stores.

use layout_tensor::device::ids::{block_idx_x, block_idx_y, thread_idx_x};
use layout_tensor::device::mma::{
    for_each_unrolled_mut, wgmma_accumulator_layout, wgmma_commit_group, wgmma_descriptor, wgmma_fence,
    wgmma_fence_operands, wgmma_m64n128k16_f32_bf16, wgmma_wait_group, WgmmaSwizzle,
};
use layout_tensor::device::shared::generic_to_shared;
use layout_tensor::device::sync::sync_threads;
use layout_tensor::device::tma::{fence_mbarrier_init, fence_proxy_tensormap_acquire, tma_load_2d, Mbarrier, TmaDescriptor};
use layout_tensor::{dynamic_shared, shared_array};

pub use crate::gemm_sm90_sizes::*;

kernel! {
    /// `D = alpha * A * B^T + beta * C` for `A` M x K and `B` N x K row-major bf16 (tensor maps
    /// `a_map`, `b_map` in global memory: boxes 64 x 128, 128-byte swizzle, zero fill), `C` and `D`
    /// M x N row-major f32 (`c` is read only when `beta != 0`). Block of 128 threads (one
    /// warpgroup), grid `(ceil(N / 128), ceil(M / 128))`, [`GEMM_SM90_SMEM_BYTES`] of dynamic shared
    /// memory. `K` is a multiple of 8 (16-byte rows for TMA), checked by the host.
    pub fn gemm_sm90_bf16_tn(
        a_map: *const TmaDescriptor,
        b_map: *const TmaDescriptor,
        c: *const f32,
        d: *mut f32,
        m: u32,
        n: u32,
        k: u32,
        alpha: f32,
        beta: f32,
    ) {
        let smem = dynamic_shared!(GEMM_SM90_RING: u8, align 1024).as_mut_ptr();
        let bars = shared_array!(GEMM_SM90_FULL: [u64; GEMM_SM90_STAGES as usize], align 8);
        let bar = |s: u32| Mbarrier::from_ptr(bars.as_mut_ptr().add(s as usize) as *mut u8);
        let stage_a = |s: u32| smem.add((s * GEMM_SM90_STAGE_BYTES) as usize);
        let stage_b = |s: u32| smem.add((s * GEMM_SM90_STAGE_BYTES + GEMM_SM90_BM * GEMM_SM90_BK * 2) as usize);
        let t = thread_idx_x();
        let (row0, col0) = (block_idx_y() * GEMM_SM90_BM, block_idx_x() * GEMM_SM90_BN);
        let k_tiles = k.div_ceil(GEMM_SM90_BK);
        let load = |kt: u32, s: u32| {
            bar(s).arrive_expect_tx(GEMM_SM90_STAGE_BYTES);
            let kx = (kt * GEMM_SM90_BK) as i32;
            tma_load_2d(stage_a(s), a_map, [kx, row0 as i32], bar(s));
            tma_load_2d(stage_b(s), b_map, [kx, col0 as i32], bar(s));
        };
        if t == 0 {
            let mut s = 0;
            while s < GEMM_SM90_STAGES {
                bar(s).init(1);
                s += 1;
            }
            fence_mbarrier_init();
            fence_proxy_tensormap_acquire(a_map);
            fence_proxy_tensormap_acquire(b_map);
        }
        sync_threads();
        if t == 0 {
            let mut kt = 0;
            while kt < k_tiles && kt < GEMM_SM90_STAGES {
                load(kt, kt);
                kt += 1;
            }
        }
        let mut top = [0f32; 64];
        let mut bottom = [0f32; 64];
        let mut kt = 0;
        while kt < k_tiles {
            let s = kt % GEMM_SM90_STAGES;
            bar(s).wait_parity((kt / GEMM_SM90_STAGES) & 1);
            let (a0, b0) = (generic_to_shared(stage_a(s)), generic_to_shared(stage_b(s)));
            wgmma_fence();
            let mut kk = 0;
            while kk < GEMM_SM90_BK / 16 {
                // One k16 slice is 32 bytes further inside the 128-byte swizzled rows.
                let db = wgmma_descriptor(b0 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
                let da_top = wgmma_descriptor(a0 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
                let da_bottom = wgmma_descriptor(a0 + 64 * 128 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
                wgmma_m64n128k16_f32_bf16(&mut top, da_top, db, true);
                wgmma_m64n128k16_f32_bf16(&mut bottom, da_bottom, db, true);
                kk += 1;
            }
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            wgmma_fence_operands(&mut top);
            wgmma_fence_operands(&mut bottom);
            // Every warp's part of the wgmmas has read stage `s` before TMA refills it.
            sync_threads();
            if t == 0 && kt + GEMM_SM90_STAGES < k_tiles {
                load(kt + GEMM_SM90_STAGES, s);
            }
            kt += 1;
        }
        // The accumulator layout is (thread, value) -> m + 64 n with the two modes independent:
        // thread t's value v sits at (row of t + row of v, column of t + column of v). The thread's
        // part is computed once; each value's part is a constant after unrolling.
        let acc_layout = const { layout::unwrap!(wgmma_accumulator_layout(128)) };
        let mine = acc_layout.call(t as i64) as usize;
        let (m, n) = (m as usize, n as usize);
        let full = row0 as usize + 128 <= m && col0 as usize + 128 <= n;
        let out = Epilogue { m, n, full, alpha, beta, c, d };
        let (r0, c0) = (row0 as usize + mine % 64, col0 as usize + mine / 64);
        out.store(&mut top, r0, c0, acc_layout);
        out.store(&mut bottom, r0 + 64, c0, acc_layout);
    }
}

/// Where and how the accumulators go: `D[r][c] = alpha * acc + beta * C[r][c]`, stores predicated
/// on the matrix bounds unless the whole tile is inside (`full`).
struct Epilogue {
    m: usize,
    n: usize,
    full: bool,
    alpha: f32,
    beta: f32,
    c: *const f32,
    d: *mut f32,
}

impl Epilogue {
    /// Stores one m64n128 accumulator set whose thread part starts at row `r0`, column `c0`.
    /// Inlined with constant value indices, so the accumulators stay in registers.
    #[inline(always)]
    unsafe fn store(&self, acc: &mut [f32; 64], r0: usize, c0: usize, acc_layout: layout::Layout) {
        for_each_unrolled_mut(acc, |v, x| {
            let off = acc_layout.call(128 * v as i64) as usize;
            let (r, col) = (r0 + off % 64, c0 + off / 64);
            if self.full || (r < self.m && col < self.n) {
                let at = r * self.n + col;
                let mut out = self.alpha * *x;
                if self.beta != 0.0 {
                    out += self.beta * *self.c.add(at);
                }
                *self.d.add(at) = out;
            }
        });
    }
}
