//! The tile shapes of the Hopper GEMM kernels (`gemm_sm90`, sm_90a only), in a module every build
//! has, so that the host (`src/gpu_suite/gemm_sm90.rs`) launches with exactly what the kernels use.

/// K per stage (64 bf16 = one 128-byte swizzle row).
pub const GEMM_SM90_BK: u32 = 64;

/// A block tile of the Hopper GEMM: `bm x bn` outputs, `warpgroups` consumer warpgroups (each owns
/// `bm / (64 * warpgroups)` m64 row slices of all `bn` columns), a ring of `stages` TMA stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GemmSm90Shape {
    /// Output rows per block.
    pub bm: u32,
    /// Output columns per block.
    pub bn: u32,
    /// Warpgroups (of 128 threads) per block.
    pub warpgroups: u32,
    /// Stages of the TMA ring.
    pub stages: u32,
}

impl GemmSm90Shape {
    /// Threads per block.
    pub const fn threads(&self) -> u32 {
        128 * self.warpgroups
    }
    /// Bytes of one stage (an `A` box of `bm x 64` and a `B` box of `bn x 64` bf16).
    pub const fn stage_bytes(&self) -> u32 {
        (self.bm + self.bn) * GEMM_SM90_BK * 2
    }
    /// Dynamic shared memory of a launch.
    pub const fn smem_bytes(&self) -> u32 {
        self.stages * self.stage_bytes()
    }
}

/// 128 x 128 tiles, one warpgroup (two m64n128 accumulator sets per thread).
pub const GEMM_SM90_128X128: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 128, warpgroups: 1, stages: 4 };
/// 128 x 256 tiles, two warpgroups (one m64n256 accumulator set per thread).
pub const GEMM_SM90_128X256: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 256, warpgroups: 2, stages: 4 };
/// 128 x 256 tiles, warp-specialized: a producer warpgroup (one thread issues the TMA loads) and
/// two consumer warpgroups (one m64n256 slice each), `warpgroups` counting all three.
pub const GEMM_SM90_WS_128X256: GemmSm90Shape = GemmSm90Shape { bm: 128, bn: 256, warpgroups: 3, stages: 4 };
