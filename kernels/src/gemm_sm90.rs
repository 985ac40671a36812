//! The Hopper GEMM path (sm_90a, in `kernels_sm90a.ptx` only): TMA loads into 128-byte-swizzled
//! shared tiles, `wgmma` m64n128k16 (bf16 in, f32 accumulate) from matrix descriptors, a ring of
//! stages with one mbarrier each ([`GemmSm90Shape`]). First steps of the ladder: one
//! warpgroup per 128 x 128 tile (two m64 slices), or two warpgroups per 128 x 256 tile (one m64n256
//! slice each); TMA prefetch of the next stages overlaps the tensor cores; no warp specialization,
//! clusters or TMA-store epilogue yet.
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
    wgmma_fence_operands, wgmma_m64n128k16_f32_bf16, wgmma_m64n256k16_f32_bf16, wgmma_wait_group, warpgroup_reg_alloc,
    warpgroup_reg_dealloc, WgmmaSwizzle,
};
use layout_tensor::device::shared::generic_to_shared;
use layout_tensor::device::sync::sync_threads;
use layout_tensor::device::tma::{fence_mbarrier_init, fence_proxy_tensormap_acquire, tma_load_2d, Mbarrier, TmaDescriptor};
use layout_tensor::{dynamic_shared, shared_array};

pub use crate::gemm_sm90_sizes::*;

/// The kernels' shared body for a tile `shape` whose warpgroups each own one m64 row slice of `BN`
/// columns (`R = BN / 2` accumulators), or two if `TWO`; `mma` is the m64nBNk16 wgmma. The two
/// slices are two named arrays (not an array of arrays): LLVM then keeps every accumulator in
/// registers (an array of arrays went to the stack).
///
/// All threads wait for a stage's mbarrier, the warpgroups run their wgmmas on it, a block barrier
/// confirms every warp has read it, and thread 0 refills it with the k-tile `stages` ahead.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn gemm_tile<const BN: u32, const R: usize, const TWO: bool>(
    shape: GemmSm90Shape,
    a_map: *const TmaDescriptor,
    b_map: *const TmaDescriptor,
    out: Epilogue,
    k: u32,
    smem: *mut u8,
    bars: *mut u64,
    mma: impl Fn(&mut [f32; R], u64, u64),
) {
    let bar = |s: u32| Mbarrier::from_ptr(bars.add(s as usize) as *mut u8);
    let stage_a = |s: u32| smem.add((s * shape.stage_bytes()) as usize);
    let stage_b = |s: u32| smem.add((s * shape.stage_bytes() + shape.bm * GEMM_SM90_BK * 2) as usize);
    let t = thread_idx_x();
    let (wg, lane128) = (t / 128, t % 128);
    let (row0, col0) = (block_idx_y() * shape.bm, block_idx_x() * BN);
    let k_tiles = k.div_ceil(GEMM_SM90_BK);
    let load = |kt: u32, s: u32| {
        bar(s).arrive_expect_tx(shape.stage_bytes());
        let kx = (kt * GEMM_SM90_BK) as i32;
        tma_load_2d(stage_a(s), a_map, [kx, row0 as i32], bar(s));
        tma_load_2d(stage_b(s), b_map, [kx, col0 as i32], bar(s));
    };
    if t == 0 {
        let mut s = 0;
        while s < shape.stages {
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
        while kt < k_tiles && kt < shape.stages {
            load(kt, kt);
            kt += 1;
        }
    }
    let slices = 1 + TWO as u32;
    let (mut acc0, mut acc1) = ([0f32; R], [0f32; R]);
    let mut kt = 0;
    while kt < k_tiles {
        let s = kt % shape.stages;
        bar(s).wait_parity((kt / shape.stages) & 1);
        let (a0, b0) = (generic_to_shared(stage_a(s)), generic_to_shared(stage_b(s)));
        wgmma_fence();
        let mut kk = 0;
        while kk < GEMM_SM90_BK / 16 {
            // One k16 slice is 32 bytes further inside the 128-byte swizzled rows; an m64 slice of
            // A is 64 rows of 128 bytes further.
            let db = wgmma_descriptor(b0 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
            let da = |h: u32| wgmma_descriptor(a0 + 64 * (wg * slices + h) * 128 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
            mma(&mut acc0, da(0), db);
            if TWO {
                mma(&mut acc1, da(1), db);
            }
            kk += 1;
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut acc0);
        if TWO {
            wgmma_fence_operands(&mut acc1);
        }
        // Every warp's part of the wgmmas has read stage `s` before TMA refills it.
        sync_threads();
        if t == 0 && kt + shape.stages < k_tiles {
            load(kt + shape.stages, s);
        }
        kt += 1;
    }
    // The accumulator layout is (thread, value) -> m + 64 n with the two modes independent: a
    // thread's value v sits at (row of the thread + row of v, column of the thread + column of v).
    // The thread's part is computed once; each value's part is a constant after unrolling.
    let acc_layout = const { layout::unwrap!(wgmma_accumulator_layout(BN as i64)) };
    let mine = acc_layout.call(lane128 as i64) as usize;
    let r0 = (row0 + 64 * wg * slices) as usize + mine % 64;
    out.store(&mut acc0, r0, col0 as usize + mine / 64, acc_layout);
    if TWO {
        out.store(&mut acc1, r0 + 64, col0 as usize + mine / 64, acc_layout);
    }
}

/// The non-specialized kernels: one entry each, the same parameters, a tile shape, its ring, and
/// the wgmma of its width.
macro_rules! gemm_sm90_kernels {
    ($(
        $(#[$attr:meta])*
        $name:ident: $shape:ident, $ring:ident, $full:ident, <$bn:literal, $r:literal, $two:literal>, $mma:ident;
    )*) => {$(
        kernel! {
            $(#[$attr])*
            pub fn $name(
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
                const S: GemmSm90Shape = $shape;
                let smem = dynamic_shared!($ring: u8, align 1024).as_mut_ptr();
                let bars = shared_array!($full: [u64; S.stages as usize], align 8);
                let out = Epilogue::new(m, n, S, alpha, beta, c, d);
                gemm_tile::<$bn, $r, $two>(S, a_map, b_map, out, k, smem, bars.as_mut_ptr(), |acc, da, db| {
                    $mma(acc, da, db, true)
                });
            }
        }
    )*};
}

gemm_sm90_kernels! {
    /// `D = alpha * A * B^T + beta * C` for `A` M x K and `B` N x K row-major bf16 (tensor maps
    /// `a_map`, `b_map` in global memory: boxes 64 x 128, 128-byte swizzle, zero fill), `C` and `D`
    /// M x N row-major f32 (`c` is read only when `beta != 0`), with [`GEMM_SM90_128X128`] tiles:
    /// block of 128 threads, grid `(ceil(N / 128), ceil(M / 128))`, its `smem_bytes()` of dynamic
    /// shared memory. `K` is a multiple of 8 (16-byte rows for TMA), checked by the host.
    gemm_sm90_bf16_tn: GEMM_SM90_128X128, GEMM_SM90_RING, GEMM_SM90_FULL, <128, 64, true>, wgmma_m64n128k16_f32_bf16;
    /// [`gemm_sm90_bf16_tn`] with [`GEMM_SM90_128X256`] tiles: `B` boxes of 64 x 256, block of
    /// 256 threads (two warpgroups), grid `(ceil(N / 256), ceil(M / 128))`.
    gemm_sm90_bf16_tn_128x256: GEMM_SM90_128X256, GEMM_SM90_RING_256, GEMM_SM90_FULL_256, <256, 128, false>,
        wgmma_m64n256k16_f32_bf16;
}

/// The warp-specialized tile ([`GEMM_SM90_WS_128X256`]): warpgroup 0 produces (its thread 0
/// waits for a stage to be empty, then issues its two TMA loads), warpgroups 1 and 2 consume (wait
/// for a stage to be full, run four m64n256k16 wgmmas on their 64-row slice, release the stage).
/// Each stage has a *full* mbarrier (one arrival: the producer's, plus the TMA bytes) and an
/// *empty* one (one arrival per consumer warpgroup): no block-wide barrier in the main loop.
#[inline(always)]
unsafe fn gemm_tile_ws(
    a_map: *const TmaDescriptor,
    b_map: *const TmaDescriptor,
    out: Epilogue,
    k: u32,
    smem: *mut u8,
    full: *mut u64,
    empty: *mut u64,
) {
    const S: GemmSm90Shape = GEMM_SM90_WS_128X256;
    let bar = |b: *mut u64, s: u32| Mbarrier::from_ptr(b.add(s as usize) as *mut u8);
    let stage_a = |s: u32| smem.add((s * S.stage_bytes()) as usize);
    let stage_b = |s: u32| smem.add((s * S.stage_bytes() + S.bm * GEMM_SM90_BK * 2) as usize);
    let t = thread_idx_x();
    let (wg, lane128) = (t / 128, t % 128);
    let (row0, col0) = (block_idx_y() * S.bm, block_idx_x() * S.bn);
    let k_tiles = k.div_ceil(GEMM_SM90_BK);
    if t == 0 {
        let mut s = 0;
        while s < S.stages {
            bar(full, s).init(1);
            bar(empty, s).init(S.warpgroups - 1);
            s += 1;
        }
        fence_mbarrier_init();
        fence_proxy_tensormap_acquire(a_map);
        fence_proxy_tensormap_acquire(b_map);
    }
    sync_threads();
    if wg == 0 {
        warpgroup_reg_dealloc::<40>();
        if t == 0 {
            let mut kt = 0;
            while kt < k_tiles {
                let s = kt % S.stages;
                if kt >= S.stages {
                    // The consumers released this stage's previous use.
                    bar(empty, s).wait_parity((kt / S.stages - 1) & 1);
                }
                bar(full, s).arrive_expect_tx(S.stage_bytes());
                let kx = (kt * GEMM_SM90_BK) as i32;
                tma_load_2d(stage_a(s), a_map, [kx, row0 as i32], bar(full, s));
                tma_load_2d(stage_b(s), b_map, [kx, col0 as i32], bar(full, s));
                kt += 1;
            }
        }
        return;
    }
    warpgroup_reg_alloc::<232>();
    let slice = wg - 1;
    let mut acc = [0f32; 128];
    let mut kt = 0;
    while kt < k_tiles {
        let s = kt % S.stages;
        bar(full, s).wait_parity((kt / S.stages) & 1);
        let (a0, b0) = (generic_to_shared(stage_a(s)), generic_to_shared(stage_b(s)));
        wgmma_fence();
        let mut kk = 0;
        while kk < GEMM_SM90_BK / 16 {
            let da = wgmma_descriptor(a0 + 64 * slice * 128 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
            let db = wgmma_descriptor(b0 + 32 * kk, 16, 1024, WgmmaSwizzle::B128);
            wgmma_m64n256k16_f32_bf16(&mut acc, da, db, true);
            kk += 1;
        }
        wgmma_commit_group();
        wgmma_wait_group::<0>();
        wgmma_fence_operands(&mut acc);
        // This warpgroup is done with the stage (one arrival per warpgroup).
        if lane128 == 0 {
            bar(empty, s).arrive();
        }
        kt += 1;
    }
    let acc_layout = const { layout::unwrap!(wgmma_accumulator_layout(256)) };
    let mine = acc_layout.call(lane128 as i64) as usize;
    let r0 = (row0 + 64 * slice) as usize + mine % 64;
    out.store(&mut acc, r0, col0 as usize + mine / 64, acc_layout);
}

kernel! {
    #![launch_bounds(384, 1)]
    /// [`gemm_sm90_bf16_tn`] with [`GEMM_SM90_WS_128X256`]: warp-specialized (a producer and two
    /// consumer warpgroups, registers moved from the producer to the consumers with `setmaxnreg`:
    /// the launch bounds fix 168 per thread at entry), block of 384 threads, grid
    /// `(ceil(N / 256), ceil(M / 128))`.
    pub fn gemm_sm90_bf16_tn_ws(
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
        const S: GemmSm90Shape = GEMM_SM90_WS_128X256;
        let smem = dynamic_shared!(GEMM_SM90_RING_WS: u8, align 1024).as_mut_ptr();
        let full = shared_array!(GEMM_SM90_WS_FULL: [u64; S.stages as usize], align 8);
        let empty = shared_array!(GEMM_SM90_WS_EMPTY: [u64; S.stages as usize], align 8);
        let out = Epilogue::new(m, n, S, alpha, beta, c, d);
        gemm_tile_ws(a_map, b_map, out, k, smem, full.as_mut_ptr(), empty.as_mut_ptr());
    }
}

/// Where and how the accumulators go: `D[r][c] = alpha * acc + beta * C[r][c]`, stores predicated
/// on the matrix bounds unless the whole block tile is inside (`full`).
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
    #[inline(always)]
    fn new(m: u32, n: u32, shape: GemmSm90Shape, alpha: f32, beta: f32, c: *const f32, d: *mut f32) -> Epilogue {
        let (m, n) = (m as usize, n as usize);
        let full = ((block_idx_y() + 1) * shape.bm) as usize <= m && ((block_idx_x() + 1) * shape.bn) as usize <= n;
        Epilogue { m, n, full, alpha, beta, c, d }
    }

    /// Stores one m64nN accumulator set whose thread part starts at row `r0`, column `c0`.
    /// Inlined with constant value indices, so the accumulators stay in registers.
    #[inline(always)]
    unsafe fn store<const R: usize>(&self, acc: &mut [f32; R], r0: usize, c0: usize, acc_layout: layout::Layout) {
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
