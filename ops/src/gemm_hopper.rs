//! The Hopper path's host side: which sm_90a GEMM entry takes a problem, what it cannot take (each
//! condition named), the tensor maps of A, B and D, the persistent launch. Used by the GEMM API
//! ([`crate::gemm`]) and by the GPU checks.
//!
//! The entries (`kernels/src/gemm_sm90.rs`, `gemm_sm90_api_kernels!`) are named
//! `gemm_sm90_{bf16|f16}_a{r|c}_b{r|c}_o{f32|bf16|f16}`: input type, storage of A (`M x K`) and B
//! (`K x N`), element type of D. A K-major operand (A row-major, B column-major) is read in boxes
//! of 64 K x the tile's rows, an MN-major one in boxes of 64 M (N) x 64 K, all with the 128-byte
//! swizzle wgmma reads; a 16-bit D is written by TMA stores of 64 x 64 boxes.

use cute_rs_host::{DeviceBuffer, DeviceElem, Gpu, LaunchConfig, Stream, TensorMap, TmaOobFill, TmaSwizzle};
use cute_rs_layout::{IntTuple, Layout};

use crate::gemm::{Gemm, GemmInput, GemmOutput, Major};
use cute_rs_kernels::epilogue::EpilogueOp;
use cute_rs_kernels::gemm_sm90::GemmParams;
use cute_rs_kernels::gemm_sm90_sizes::{
    decode_tile, Decomposition, GemmSm90Shape, SplitK, StreamK, GEMM_SM90_BK, GEMM_SM90_EPILOGUE_BYTES, GEMM_SM90_P_128X256 as SHAPE,
    GEMM_SM90_SPLIT_K, GEMM_SM90_STREAM_K,
};

/// The element type of A and B on the Hopper path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopperIn {
    Bf16,
    F16,
    /// f32 in memory, multiplied as tf32 (K-major operands and f32 D only).
    Tf32,
    /// 8-bit floats of the formats of A and B (`true`: e5m2, else e4m3; K-major operands only).
    Fp8 { a_e5m2: bool, b_e5m2: bool },
}

impl HopperIn {
    fn bytes(self) -> usize {
        match self {
            HopperIn::Tf32 => 4,
            HopperIn::Fp8 { .. } => 1,
            _ => 2,
        }
    }

    /// The input type of A and B both of elements `I` (bf16 for bf16 bits).
    pub fn of_type<I: GemmInput>() -> HopperIn {
        match I::KERNEL_NAME {
            "f16" => HopperIn::F16,
            // f32 operands: wgmma's tf32 products (the f32 kernels choose them by their math).
            "f32" => HopperIn::Tf32,
            "e4m3" | "e5m2" => HopperIn::Fp8 { a_e5m2: I::KERNEL_NAME == "e5m2", b_e5m2: I::KERNEL_NAME == "e5m2" },
            _ => HopperIn::Bf16,
        }
    }

    /// The input type of A of elements `A` and B of elements `B`, or why the tensor cores cannot
    /// multiply them together: two 16-bit operands of one type, or two 8-bit floats.
    pub fn of<A: GemmInput, B: GemmInput>() -> Result<HopperIn, String> {
        match (A::FP8, B::FP8) {
            (true, true) => Ok(HopperIn::Fp8 { a_e5m2: A::KERNEL_NAME == "e5m2", b_e5m2: B::KERNEL_NAME == "e5m2" }),
            (false, false) if A::KERNEL_NAME == B::KERNEL_NAME => Ok(HopperIn::of_type::<A>()),
            _ => Err(format!(
                "A is {} and B is {}: the tensor cores multiply two 16-bit operands of one type, or two 8-bit floats",
                A::KERNEL_NAME,
                B::KERNEL_NAME
            )),
        }
    }
}

/// The element type of D on the Hopper path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HopperOut {
    F32,
    Bf16,
    F16,
}

impl HopperOut {
    /// The output type of elements `O` (bf16 for bf16 bits).
    pub fn of<O: GemmOutput>() -> HopperOut {
        match O::KERNEL_SUFFIX {
            "" => HopperOut::F32,
            "_of16" => HopperOut::F16,
            _ => HopperOut::Bf16,
        }
    }

    fn bytes(self) -> usize {
        if self == HopperOut::F32 {
            4
        } else {
            2
        }
    }
}

/// A problem as the Hopper entries see it: the API's problem ([`Gemm`]: shapes, storage orders,
/// strides, batches, epilogue) and the element types.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HopperGemm {
    pub g: Gemm,
    pub input: HopperIn,
    pub out: HopperOut,
    /// K splits of each output tile ([`SplitK`]; 1: none; 0: [`auto_splits`](Self::auto_splits)).
    /// Only for one batch.
    pub splits: u32,
    /// Stream-K ([`StreamK`]) instead of `splits`: the product's k-tiles shared evenly among
    /// the SMs. Only for one batch.
    pub stream_k: bool,
}

/// A Hopper entry, by the type of its D (bf16 as bits).
#[derive(Clone, Copy)]
enum HopperKernel {
    F32(cute_rs_host::KernelFn<cute_rs_kernels::gemm_sm90::by_output::Params<f32>>),
    Bf16(cute_rs_host::KernelFn<cute_rs_kernels::gemm_sm90::by_output::Params<u16>>),
    F16(cute_rs_host::KernelFn<cute_rs_kernels::gemm_sm90::by_output::Params<cute_rs_tensor::half::f16>>),
}

impl HopperGemm {
    /// The problem `g` with inputs `input` and D `out`.
    pub fn new(g: Gemm, input: HopperIn, out: HopperOut) -> HopperGemm {
        HopperGemm { g, input, out, splits: 0, stream_k: false }
    }

    /// The decode tile of this problem, if it is decode-shaped: bf16 inputs, A row-major with 1
    /// to 128 rows, B column-major (`X W^T`), a 16-bit D, one batch. Its entry computes
    /// `D^T = B^T A^T`, so that the large N fills wgmma's 64-row M and the few rows of A are
    /// wgmma's narrow N ([`decode_tile`]), instead of padding M to 128.
    fn decode(&self) -> Option<GemmSm90Shape> {
        let g = &self.g;
        let shaped = self.input == HopperIn::Bf16 && self.out != HopperOut::F32 && !self.a_col() && !self.b_row() && g.batches == 1;
        if shaped && g.m >= 1 { decode_tile(g.m as u32) } else { None }
    }

    /// The tile of this problem's entry.
    fn shape(&self) -> GemmSm90Shape {
        self.decode().unwrap_or(SHAPE)
    }

    /// Output tiles of one batch (of D's transpose for a decode tile).
    pub fn tiles(&self) -> usize {
        let (rows, cols) = if self.decode().is_some() { (self.g.n, self.g.m) } else { (self.g.m, self.g.n) };
        let shape = self.shape();
        rows.div_ceil(shape.bm as usize) * cols.div_ceil(shape.bn as usize)
    }

    /// The same problem with `splits` K splits of each tile (1: none; a batched problem, or one
    /// of more than [`SplitK::MAX_TILES`] tiles, is never split).
    pub fn split(self, splits: u32) -> HopperGemm {
        HopperGemm { splits: if self.can_share() { splits.max(1) } else { 1 }, stream_k: false, ..self }
    }

    /// The same problem by stream-K ([`StreamK`]), where an entry can share tiles' K ranges (one
    /// batch of at most [`SplitK::MAX_TILES`] tiles, a split entry; else unchanged).
    pub fn stream_k(self) -> HopperGemm {
        if self.can_share() { HopperGemm { splits: 1, stream_k: true, ..self } } else { self }
    }

    /// Whether units of work may share a tile's K range: one batch, at most
    /// [`SplitK::MAX_TILES`] tiles (the counters' room), a split entry.
    fn can_share(&self) -> bool {
        self.g.batches == 1 && self.tiles() <= SplitK::MAX_TILES as usize && self.has_split_entry()
    }

    /// k-tiles of each output tile (of 128 bytes of K).
    pub fn k_tiles(&self) -> u32 {
        self.g.k.div_ceil(GEMM_SM90_BK as usize * 2 / self.input.bytes()) as u32
    }

    /// Whether an entry can split this problem's K: the fp8 entries, and for bf16 and f16 inputs
    /// A row-major with B column-major (`X W^T`, the storage of decoding's products) into a
    /// TMA-stored D. The other storage orders have no split entry: split-K code in an entry slows
    /// its large products (`docs/performance.md`), so only the products that need it carry it.
    fn has_split_entry(&self) -> bool {
        match self.input {
            HopperIn::Fp8 { .. } => true,
            HopperIn::Tf32 => false,
            HopperIn::Bf16 | HopperIn::F16 => !self.a_col() && !self.b_row() && self.tma_out(),
        }
    }

    /// Blocks per cluster: 2 for e4m3 x e4m3 into bf16 D in one batch, unsplit (its entry
    /// multicasts B to a pair of blocks), else 1.
    fn cluster(&self) -> u32 {
        if self.fp8_pair() && self.splits <= 1 && !self.stream_k {
            2
        } else {
            1
        }
    }

    /// e4m3 x e4m3 into a bf16 D in one batch: the products a cluster entry takes unless they
    /// share tiles' K ranges.
    fn fp8_pair(&self) -> bool {
        self.input == HopperIn::Fp8 { a_e5m2: false, b_e5m2: false } && self.out == HopperOut::Bf16 && self.g.batches == 1
    }

    /// How a launch on `gpu` shares the product among its blocks.
    pub fn decomposition_on(&self, gpu: &Gpu) -> Decomposition {
        self.decomposition(gpu.properties().multiprocessors as usize)
    }

    /// How a launch on `sms` SMs shares the product among its blocks: stream-K when asked for,
    /// else the splits asked for ([`auto_splits`](Self::auto_splits) when 0).
    pub fn decomposition(&self, sms: usize) -> Decomposition {
        if self.cluster() > 1 {
            return Decomposition::DataParallel;
        }
        let splits = match self.splits {
            _ if self.stream_k && self.can_share() => return Decomposition::StreamK,
            0 => self.auto_splits(sms),
            _ if self.g.batches != 1 || !self.has_split_entry() => 1,
            s => s,
        };
        if splits > 1 { Decomposition::SplitK(splits) } else { Decomposition::DataParallel }
    }

    /// The K splits of a product whose tiles leave more than half of `sms` SMs idle (skinny
    /// products: few rows, as in decoding): as many as keep the work units within half of the
    /// SMs (within all of them for the decode tiles) and each split at least 16 k-tiles long; 1
    /// otherwise. (A unit costs a fixed start and an end that writes and reads partial sums of
    /// its tile's size, so splitting further, or shorter K ranges, lose; a decode tile's partials,
    /// at most 128 x 128, are small enough to fill every SM: `docs/performance.md`.)
    pub fn auto_splits(&self, sms: usize) -> u32 {
        let tiles = self.tiles();
        let k_tiles = self.k_tiles() as usize;
        if self.g.batches != 1 || tiles == 0 || 2 * tiles > sms || tiles > SplitK::MAX_TILES as usize || !self.has_split_entry() {
            return 1;
        }
        let units = if self.decode().is_some() { sms } else { sms / 2 };
        (units / tiles).min(k_tiles / 16).clamp(1, 16) as u32
    }

    /// A column-major (M-major), else row-major (K-major).
    fn a_col(&self) -> bool {
        self.g.a_major == Major::Col
    }

    /// B row-major (N-major), else column-major (K-major).
    fn b_row(&self) -> bool {
        self.g.b_major == Major::Row
    }

    /// The entry's name.
    pub fn kernel_name(&self) -> String {
        let shares = self.stream_k || self.splits > 1;
        match self.kernel(shares) {
            HopperKernel::F32(k) => k.name(),
            HopperKernel::Bf16(k) => k.name(),
            HopperKernel::F16(k) => k.name(),
        }
        .to_string()
    }

    /// The entry of `cute_rs_kernels::gemm_sm90::by_output` for this problem's input, storage orders and
    /// output, launched with tiles' K ranges shared among work units if `shares` (split-K or
    /// stream-K).
    fn kernel(&self, shares: bool) -> HopperKernel {
        use cute_rs_kernels::gemm_sm90::by_output;
        let f16 = (self.input == HopperIn::F16) as usize;
        let index = 4 * f16 + 2 * self.a_col() as usize + self.b_row() as usize;
        let split = shares && self.has_split_entry() && matches!(self.input, HopperIn::Bf16 | HopperIn::F16);
        // The decode entries split K themselves (the flag), or not.
        if let Some(shape) = self.decode() {
            let width = shape.bn.trailing_zeros() as usize - 4; // 16, 32, 64, 128 -> 0, 1, 2, 3
            return match self.out {
                HopperOut::F16 => HopperKernel::F16(by_output::DECODE_F16[width]),
                _ => HopperKernel::Bf16(by_output::DECODE_BF16[width]),
            };
        }
        match (self.input, self.out) {
            (_, HopperOut::F32) if split => HopperKernel::F32(by_output::SPLIT_F32[f16]),
            (_, HopperOut::Bf16) if split => HopperKernel::Bf16(by_output::SPLIT_BF16[f16]),
            (_, HopperOut::F16) if split => HopperKernel::F16(by_output::SPLIT_F16[f16]),
            (HopperIn::Tf32, _) => HopperKernel::F32(by_output::TF32),
            (HopperIn::Fp8 { .. }, _) if self.cluster() > 1 => HopperKernel::Bf16(by_output::FP8_BF16_C2),
            (HopperIn::Fp8 { a_e5m2, b_e5m2 }, out) => {
                // (e4m3, e4m3), (e4m3, e5m2), (e5m2, e4m3); `unsupported` refuses (e5m2, e5m2).
                let i = if a_e5m2 { 2 } else { b_e5m2 as usize };
                match out {
                    HopperOut::F32 => HopperKernel::F32(by_output::FP8_F32[i]),
                    HopperOut::Bf16 => HopperKernel::Bf16(by_output::FP8_BF16[i]),
                    HopperOut::F16 => HopperKernel::F16(by_output::FP8_F16[i]),
                }
            }
            (_, HopperOut::F32) if self.tma_out() => HopperKernel::F32(by_output::F32_TMA[index]),
            (_, HopperOut::F32) => HopperKernel::F32(by_output::F32[index]),
            (_, HopperOut::Bf16) => HopperKernel::Bf16(by_output::BF16[index]),
            (_, HopperOut::F16) => HopperKernel::F16(by_output::F16[index]),
        }
    }

    /// Why the entries cannot take this problem, if they cannot: TMA needs 16-byte rows, so the
    /// contiguous extent (or leading dimension) of each operand (K for a K-major one, M or N for an
    /// MN-major one, N for a TMA-stored D) is a multiple of 16 bytes, and so are the batch strides;
    /// tf32 and fp8 operands are K-major (wgmma has no transpose for them), tf32 D f32; the extents
    /// fit the tensor maps' 32-bit sizes.
    pub fn unsupported(&self) -> Option<String> {
        let g = &self.g;
        let per_row = 16 / self.input.bytes();
        let rows = |what: &str, name: &str, x: usize, per_row: usize| {
            (!x.is_multiple_of(per_row))
                .then(|| format!("{what}: {name} = {x} is not a multiple of {per_row} (TMA needs 16-byte rows)"))
        };
        if g.k == 0 {
            return Some("K = 0 (nothing to multiply: D = beta * C)".to_string());
        }
        if self.input == HopperIn::Tf32 && (self.a_col() || self.b_row() || self.out != HopperOut::F32) {
            return Some("tf32: wgmma reads tf32 operands K-major only (A row-major, B column-major), into an f32 D".to_string());
        }
        if let HopperIn::Fp8 { a_e5m2, b_e5m2 } = self.input {
            if self.a_col() || self.b_row() {
                return Some("fp8: wgmma reads 8-bit operands K-major only (A row-major, B column-major)".to_string());
            }
            if a_e5m2 && b_e5m2 {
                return Some("fp8: no kernel for e5m2 x e5m2 (the library has e4m3 x e4m3, e4m3 x e5m2 and e5m2 x e4m3)".to_string());
            }
            if self.out == HopperOut::F32 && !self.tma_out() {
                return Some("fp8 with f32 D: N, the leading dimension and batch stride of D must be multiples of 4 (TMA stores)".to_string());
            }
        }
        // The rows' pitch: the leading dimension, or the packed extent.
        let pitch = |ld: Option<usize>, what: &str, name: &str, x: usize| match ld {
            Some(ld) => rows(what, "the leading dimension", ld, per_row),
            None => rows(what, name, x, per_row),
        };
        let (lda, ldb) = (g.lda, g.ldb);
        let a = if self.a_col() { pitch(lda, "A column-major", "M", g.m) } else { pitch(lda, "A row-major", "K", g.k) };
        let b = if self.b_row() { pitch(ldb, "B row-major", "N", g.n) } else { pitch(ldb, "B column-major", "K", g.k) };
        let d = match (self.out, g.ldd) {
            (HopperOut::F32, _) => None,
            (_, Some(ldd)) => rows("16-bit D", "the leading dimension", ldd, 8),
            (_, None) => rows("16-bit D", "N", g.n, 8),
        };
        let strides = g.strides_of_batches();
        let batch = (g.batches > 1)
            .then(|| {
                let bytes = [self.input.bytes(), self.input.bytes(), 4, self.out.bytes()];
                let d_tma = self.tma_out() as usize;
                (0..3 + d_tma).find_map(|i| {
                    let name = ["A", "B", "C", "D"][i];
                    if i == 2 {
                        return None; // C is read directly
                    }
                    if strides[i] == 0 {
                        return Some(format!("{name}'s batch stride is 0 (one matrix for every batch): TMA strides must be positive"));
                    }
                    (strides[i] * bytes[i] % 16 != 0)
                        .then(|| format!("{name}'s batch stride {} is not a multiple of 16 bytes (TMA)", strides[i]))
                })
            })
            .flatten();
        a.or(b).or(d).or(batch).or_else(|| {
            [("M", g.m), ("N", g.n), ("K", g.k)]
                .into_iter()
                .find(|&(_, x)| x > i32::MAX as usize)
                .map(|(name, x)| format!("{name} = {x} exceeds 2^31 - 1"))
        })
    }

    /// Whether D goes out through the TMA-store epilogue: a 16-bit D (its rows whole 16-byte
    /// units, checked by [`unsupported`](Self::unsupported)), and an f32 D whose rows and batches
    /// are whole 16-byte units (N, its leading dimension and batch stride multiples of 4; other
    /// f32 D are stored directly).
    fn tma_out(&self) -> bool {
        let g = &self.g;
        let whole = |x: usize| x.is_multiple_of(4);
        match (self.input, self.out) {
            (HopperIn::Tf32, _) => false,
            (_, HopperOut::F32) => whole(g.n) && whole(g.ldcd().1) && (g.batches == 1 || whole(g.strides_of_batches()[3])),
            _ => true,
        }
    }

    /// Dynamic shared memory of a launch.
    fn smem_bytes(&self) -> u32 {
        // The decode entries store directly: no staging buffers.
        let staging = self.tma_out() && self.decode().is_none();
        self.shape().smem_bytes() + if staging { GEMM_SM90_EPILOGUE_BYTES } else { 0 }
    }

    /// The persistent grid: one block per SM, at most one per work unit (tile, batch and split);
    /// with clusters, as many whole clusters as can be resident, at most one per cluster tile.
    fn launch_config(&self, gpu: &Gpu) -> cute_rs_host::Result<LaunchConfig> {
        let cm = self.cluster() as usize;
        let smem = self.smem_bytes();
        let blocks = if cm > 1 {
            let cluster_tiles = self.g.m.div_ceil(cm * SHAPE.bm as usize) * self.g.n.div_ceil(SHAPE.bn as usize);
            let kernel = gpu.module(crate::modules::gemm_sm90a())?.function(cute_rs_kernels::gemm_sm90::by_output::FP8_BF16_C2)?;
            // Fewer than SMs / 2 when a GPC's SM count is odd: a cluster's blocks share a GPC.
            let resident = kernel.max_active_clusters((SHAPE.threads(), 1, 1), smem, (cm as u32, 1, 1))? as usize;
            cluster_tiles.min(resident).max(1) * cm
        } else {
            let sms = gpu.properties().multiprocessors as usize;
            let units = match self.decomposition(sms) {
                Decomposition::DataParallel => self.tiles() * self.g.batches,
                Decomposition::SplitK(splits) => self.tiles() * splits as usize,
                // The schedule is the kernel's for this grid (`StreamK::new`).
                Decomposition::StreamK => sms,
            };
            units.min(sms).max(1)
        };
        Ok(LaunchConfig { grid: (blocks as u32, 1, 1), block: (self.shape().threads(), 1, 1), shared_mem_bytes: smem })
    }

    /// The tensor maps of A, B and (TMA-stored) D, encoded on the host: the kernels take them by value
    /// in the launch's parameters, so nothing is allocated or uploaded. With several batches each
    /// has a third mode, the batch.
    pub fn maps<IA: DeviceElem, IB: DeviceElem, O: DeviceElem>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<IA>,
        b: &DeviceBuffer<IB>,
        d: &DeviceBuffer<O>,
    ) -> cute_rs_host::Result<HopperMaps> {
        let g = &self.g;
        let (m, n, k, l) = (g.m, g.n, g.k, g.batches);
        let strides = g.strides_of_batches();
        // Several batches: maps with a batch mode, which the kernels load and store in 3-D; one
        // batch (and the cluster entry, whose multicast loads are 2-D): 2-D maps.
        let cm = self.cluster();
        let rank3 = l > 1;
        let map = |buf: &dyn MapSource, (inner, outer): (usize, usize), ld: usize, batch: usize, box_shape: [u32; 2]| -> cute_rs_host::Result<TensorMap> {
            let (shape, stride) = ([inner as i64, outer as i64, l as i64], [1, ld as i64, batch as i64]);
            let rank = if rank3 { 3 } else { 2 };
            let modes = |t: &[i64]| IntTuple::from_slice(&t[..rank]);
            let global = modes(&shape).and_then(|shape| Layout::new(shape, modes(&stride)?)).map_err(|e| cute_rs_host::HostError::Invalid(e.to_string()))?;
            let boxes = [box_shape[0], box_shape[1], 1];
            buf.tensor_map(gpu, global, &boxes[..if rank3 { 3 } else { 2 }])
        };
        let (lda, ldb) = g.lds();
        // K-major: rows of K (a 128-byte box row: 64 16-bit, 32 tf32 or 128 fp8 elements);
        // MN-major: rows of M (N), one per k.
        let bk = GEMM_SM90_BK * 2 / self.input.bytes() as u32;
        if let Some(shape) = self.decode() {
            // Transposed: the kernel's A is B^T (N x K, boxes of 128 rows of N), its B is A (M x K,
            // boxes of the tile's 16, 32, 64 or 128 rows: TMA zero-fills the rows past M).
            let a_map = map(b, (k, n), ldb, strides[1], [bk, shape.bm])?;
            let b_map = map(a, (k, m), lda, strides[0], [bk, shape.bn])?;
            return Ok(HopperMaps { a_map, b_map, d_map: None });
        }
        let a_map = if self.a_col() {
            map(a, (m, k), lda, strides[0], [64, 64])?
        } else {
            map(a, (k, m), lda, strides[0], [bk, SHAPE.bm])?
        };
        let b_map = if self.b_row() {
            map(b, (n, k), ldb, strides[1], [64, 64])?
        } else {
            // In a cluster each block loads its share of B's box, multicast to both.
            map(b, (k, n), ldb, strides[1], [bk, SHAPE.bn / cm])?
        };
        // D: boxes of 128-byte rows (64 16-bit or 32 f32 elements) x 64 rows.
        let ldd = g.ldcd().1;
        let d_map = match (self.tma_out(), self.out) {
            (false, _) => None,
            (true, HopperOut::F32) => Some(map(d, (n, m), ldd, strides[3], [32, 64])?),
            (true, _) => Some(map(d, (n, m), ldd, strides[3], [64, 64])?),
        };
        Ok(HopperMaps { a_map, b_map, d_map })
    }

    /// Launches `D = act(alpha * A * B + beta * C + bias)` with the tensor maps `maps` of its A, B
    /// and D on `stream` (the default stream if `None`), without waiting: the maps travel in the
    /// launch's parameters.
    ///
    /// # Safety
    /// `maps` are this problem's maps ([`maps`](Self::maps)) of buffers holding its operands (A:
    /// M x K, B: K x N in their storage orders; `c`, read when `beta != 0`, and `d`: M x N
    /// row-major, of the entry's element types; `bias` holding what the problem's bias kind
    /// reads), 16-byte aligned, alive until the kernel ends; [`unsupported`](Self::unsupported)
    /// is `None`.
    pub unsafe fn launch_with<O: DeviceElem>(
        &self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        maps: &HopperMaps,
        (c, bias): (Option<&DeviceBuffer<f32>>, Option<&DeviceBuffer<f32>>),
        d: &DeviceBuffer<O>,
    ) -> cute_rs_host::Result<()> {
        let g = &self.g;
        let cfg = self.launch_config(gpu)?;
        let cm = self.cluster();
        let (m, n, k, l) = (g.m as u32, g.n as u32, g.k as u32, g.batches as u32);
        let (ldc, ldd) = g.ldcd();
        let strides = g.strides_of_batches();
        // Unused pointers get a valid address: A's map for a missing D map, D for a missing C or
        // bias.
        let c_ptr = c.map_or(d.device_ptr(), |c| c.device_ptr()) as *const f32;
        let bias_ptr = bias.map_or(d.device_ptr(), |b| b.device_ptr()) as *const f32;
        let d_map = maps.d_map.as_ref().unwrap_or(&maps.a_map);
        // Split-K: the batches are the splits; stream-K: one batch, the schedule the grid's. The
        // workspace is the GPU's for this stream.
        let decomposition = self.decomposition_on(gpu);
        let (l, flags, workspace) = match decomposition {
            Decomposition::DataParallel => (l, g.flags(), d.device_ptr()),
            Decomposition::SplitK(splits) => {
                let layout = SplitK { splits, tiles: self.tiles() as u32 };
                (splits, g.flags() | GEMM_SM90_SPLIT_K, gpu.workspace(stream, layout.workspace_bytes())?)
            }
            Decomposition::StreamK => {
                let layout = StreamK::new(self.tiles() as u32, self.k_tiles(), cfg.grid.0);
                (1, g.flags() | GEMM_SM90_STREAM_K, gpu.workspace(stream, layout.workspace_bytes())?)
            }
        };
        let epilogue = EpilogueOp { alpha: g.alpha, beta: g.beta, bias: bias_ptr, flags };
        let (ldc, ldd, batch_c, batch_d) = (ldc as u32, ldd as u32, strides[2] as u64, strides[3] as u64);
        let workspace = workspace as *mut u32;
        macro_rules! launch {
            ($kernel:expr, $out:ty) => {{
                let d = d.device_ptr() as *mut $out;
                let params = GemmParams { c: c_ptr, d, m, n, k, batches: l, ldc, ldd, batch_c, batch_d, epilogue, workspace };
                let args = (&maps.a_map, &maps.b_map, d_map, params);
                // SAFETY: the caller's preconditions; the maps cover exactly A, B and D.
                let launch = gpu.launch(crate::modules::gemm_sm90a(), $kernel, cfg, args);
                let launch = if cm > 1 { launch.cluster((cm, 1, 1)) } else { launch };
                unsafe { crate::gemm::on(launch, stream).run() }
            }};
        }
        match self.kernel(decomposition != Decomposition::DataParallel) {
            HopperKernel::F32(k) => launch!(k, f32),
            HopperKernel::Bf16(k) => launch!(k, u16),
            HopperKernel::F16(k) => launch!(k, cute_rs_tensor::half::f16),
        }
    }

    /// [`maps`](Self::maps) then [`launch_with`](Self::launch_with): returns once the kernel is
    /// launched.
    ///
    /// # Safety
    /// Those of [`launch_with`](Self::launch_with) for the buffers.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn launch<IA: DeviceElem, IB: DeviceElem, O: DeviceElem>(
        &self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        a: &DeviceBuffer<IA>,
        b: &DeviceBuffer<IB>,
        c: Option<&DeviceBuffer<f32>>,
        bias: Option<&DeviceBuffer<f32>>,
        d: &DeviceBuffer<O>,
    ) -> cute_rs_host::Result<()> {
        let maps = self.maps(gpu, a, b, d)?;
        // SAFETY: forwarded; the maps are copied into the launch's parameters.
        unsafe { self.launch_with(gpu, stream, &maps, (c, bias), d) }
    }
}

/// The tensor maps of one problem's A, B and D (none for a D stored directly), encoded on the host.
pub struct HopperMaps {
    a_map: TensorMap,
    b_map: TensorMap,
    d_map: Option<TensorMap>,
}

/// A buffer a tensor map can be made of (so that A, B and D of different element types share
/// one map closure).
trait MapSource {
    fn tensor_map(&self, gpu: &Gpu, global: cute_rs_layout::Layout, box_shape: &[u32]) -> cute_rs_host::Result<TensorMap>;
}

impl<T: DeviceElem> MapSource for DeviceBuffer<T> {
    fn tensor_map(&self, gpu: &Gpu, global: cute_rs_layout::Layout, box_shape: &[u32]) -> cute_rs_host::Result<TensorMap> {
        gpu.tensor_map(self, global, box_shape, TmaSwizzle::B128, TmaOobFill::Zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(m: usize, n: usize, k: usize, a_col: bool, b_row: bool, out: HopperOut) -> HopperGemm {
                HopperGemm::new(Gemm::new(m, n, k).a_major(if a_col { Major::Col } else { Major::Row }).b_major(if b_row { Major::Row } else { Major::Col }), HopperIn::Bf16, out)
    }

    #[test]
    fn names_follow_storage_and_types() {
        let p = problem(8, 8, 8, true, true, HopperOut::F16);
        assert_eq!(p.kernel_name(), "gemm_sm90_bf16_ac_br_of16");
        assert_eq!(HopperGemm { input: HopperIn::F16, ..problem(8, 8, 8, false, false, HopperOut::F32) }.kernel_name(), "gemm_sm90_f16_ar_bc_of32_tma");
        // An f32 D whose rows are not whole 16-byte units is stored directly.
        assert_eq!(HopperGemm { input: HopperIn::F16, ..problem(8, 6, 8, false, false, HopperOut::F32) }.kernel_name(), "gemm_sm90_f16_ar_bc_of32");
        assert_eq!(HopperGemm { input: HopperIn::Tf32, ..problem(8, 8, 8, false, false, HopperOut::F32) }.kernel_name(), "gemm_sm90_tf32_ar_bc_of32");
    }

    #[test]
    fn decode_shapes_take_the_transposed_entries() {
        let decode = |m, out| problem(m, 4096, 4096, false, false, out);
        for (m, width) in [(1, 16), (16, 16), (17, 32), (32, 32), (33, 64), (64, 64), (65, 128), (128, 128)] {
            assert_eq!(decode(m, HopperOut::Bf16).kernel_name(), format!("gemm_sm90_bf16_ar_bc_obf16_decode{width}"), "M = {m}");
            assert_eq!(decode(m, HopperOut::F16).kernel_name(), format!("gemm_sm90_bf16_ar_bc_of16_decode{width}"), "M = {m}");
        }
        // Split or not, the same entry (the flag splits).
        assert_eq!(decode(16, HopperOut::Bf16).split(4).kernel_name(), "gemm_sm90_bf16_ar_bc_obf16_decode16");
        assert_eq!(decode(16, HopperOut::Bf16).split(4).splits, 4);
        // Tiles of 128 of N: 32 tiles, 132 SMs -> 4 splits of every decode tile (units within
        // all the SMs).
        assert_eq!(decode(16, HopperOut::Bf16).tiles(), 32);
        assert_eq!(decode(16, HopperOut::Bf16).auto_splits(132), 4);
        assert_eq!(problem(128, 4096, 14336, false, false, HopperOut::Bf16).auto_splits(132), 4);
        // 112 tiles: more than half of the SMs, no split.
        assert_eq!(problem(32, 14336, 4096, false, false, HopperOut::Bf16).auto_splits(132), 1);
        // The ring fills the shared memory, no staging buffers.
        assert_eq!(decode(1, HopperOut::Bf16).smem_bytes(), 11 * (128 + 16) * 128);
        // Not decode-shaped: more rows, an f32 D, other storage orders, f16 inputs, batches.
        assert_eq!(decode(129, HopperOut::Bf16).kernel_name(), "gemm_sm90_bf16_ar_bc_obf16");
        assert_eq!(decode(16, HopperOut::F32).split(1).kernel_name(), "gemm_sm90_bf16_ar_bc_of32_tma");
        assert_eq!(problem(16, 4096, 4096, true, false, HopperOut::Bf16).kernel_name(), "gemm_sm90_bf16_ac_bc_obf16");
        assert_eq!(problem(16, 4096, 4096, false, true, HopperOut::Bf16).kernel_name(), "gemm_sm90_bf16_ar_br_obf16");
        assert_eq!(HopperGemm { input: HopperIn::F16, ..decode(16, HopperOut::Bf16) }.kernel_name(), "gemm_sm90_f16_ar_bc_obf16");
        let batched = decode(16, HopperOut::Bf16);
        assert_eq!(HopperGemm { g: Gemm { batches: 2, ..batched.g }, ..batched }.kernel_name(), "gemm_sm90_bf16_ar_bc_obf16");
    }

    #[test]
    fn only_split_entries_take_splits() {
        // 256 rows: not decode-shaped (those take the decode entries).
        let skinny = |a_col, b_row, out| problem(256, 4096, 4096, a_col, b_row, out);
        assert_eq!(skinny(false, false, HopperOut::Bf16).split(4).kernel_name(), "gemm_sm90_bf16_ar_bc_obf16_splitk");
        assert_eq!(skinny(false, false, HopperOut::F32).split(4).kernel_name(), "gemm_sm90_bf16_ar_bc_of32_tma_splitk");
        assert_eq!(skinny(false, false, HopperOut::Bf16).split(1).kernel_name(), "gemm_sm90_bf16_ar_bc_obf16");
        // Other storage orders have no split entry: asked to split, they run whole.
        let p = skinny(true, false, HopperOut::Bf16).split(4);
        assert_eq!((p.splits, p.kernel_name().as_str()), (1, "gemm_sm90_bf16_ac_bc_obf16"));
        assert_eq!(skinny(true, false, HopperOut::Bf16).auto_splits(132), 1);
        // 32 tiles of 128 x 256: units within half of 132 SMs -> 2 splits.
        assert_eq!(skinny(false, false, HopperOut::Bf16).auto_splits(132), 2);
        // An f32 D stored directly (N not a multiple of 4) has none either.
        assert_eq!(problem(16, 4098, 4096, false, false, HopperOut::F32).split(4).splits, 1);
    }

    #[test]
    fn stream_k_takes_the_split_entries() {
        let p = problem(128, 4096, 14336, false, false, HopperOut::Bf16);
        assert_eq!(p.stream_k().decomposition(132), Decomposition::StreamK);
        assert_eq!(p.stream_k().kernel_name(), "gemm_sm90_bf16_ar_bc_obf16_decode128");
        let skinny = problem(256, 4096, 4096, false, false, HopperOut::Bf16);
        assert_eq!(skinny.stream_k().kernel_name(), "gemm_sm90_bf16_ar_bc_obf16_splitk");
        // Asked for after splits, stream-K replaces them, and the other way round.
        assert_eq!(skinny.split(4).stream_k().decomposition(132), Decomposition::StreamK);
        assert_eq!(skinny.stream_k().split(4).decomposition(132), Decomposition::SplitK(4));
        // Without a split entry, or with batches, the product runs whole.
        assert_eq!(problem(256, 4096, 4096, true, false, HopperOut::Bf16).stream_k().decomposition(132), Decomposition::DataParallel);
        let batched = HopperGemm { g: Gemm { batches: 2, ..skinny.g }, ..skinny };
        assert_eq!(batched.stream_k().decomposition(132), Decomposition::DataParallel);
        // fp8 e4m3 into bf16 leaves its cluster entry for the split one.
        let fp8 = HopperGemm { input: HopperIn::Fp8 { a_e5m2: false, b_e5m2: false }, ..skinny };
        assert_eq!(fp8.cluster(), 2);
        assert_eq!((fp8.stream_k().cluster(), fp8.stream_k().decomposition(132)), (1, Decomposition::StreamK));
    }

    #[test]
    fn each_tma_row_condition_is_named() {
        assert_eq!(problem(8, 8, 8, false, false, HopperOut::F32).unsupported(), None);
        let e = problem(8, 8, 12, false, false, HopperOut::F32).unsupported().unwrap();
        assert_eq!(e, "A row-major: K = 12 is not a multiple of 8 (TMA needs 16-byte rows)");
        let e = problem(12, 8, 8, true, false, HopperOut::F32).unsupported().unwrap();
        assert!(e.starts_with("A column-major: M = 12"), "{e}");
        let e = problem(8, 12, 8, false, true, HopperOut::F32).unsupported().unwrap();
        assert!(e.starts_with("B row-major: N = 12"), "{e}");
        // A leading dimension is the rows' pitch: K itself need not be a multiple of 8 then.
        let view = |(lda, ldb): (Option<usize>, Option<usize>)| {
            let p = problem(8, 8, 12, false, false, HopperOut::F32);
            HopperGemm { g: Gemm { lda, ldb, ..p.g }, ..p }
        };
        assert_eq!(view((Some(16), Some(24))).unsupported(), None);
        let e = view((Some(20), Some(24))).unsupported().unwrap();
        assert_eq!(e, "A row-major: the leading dimension = 20 is not a multiple of 8 (TMA needs 16-byte rows)");
        // f32 D takes any N; a 16-bit one needs 16-byte rows too.
        assert_eq!(problem(8, 12, 8, false, false, HopperOut::F32).unsupported(), None);
        let e = problem(8, 12, 8, false, false, HopperOut::Bf16).unsupported().unwrap();
        assert!(e.starts_with("16-bit D: N = 12"), "{e}");
        assert!(problem(8, 8, 0, false, false, HopperOut::F32).unsupported().unwrap().starts_with("K = 0"));
        // tf32: 16-byte rows are 4 elements; K-major operands and an f32 D only.
        let tf32 = |m, n, k, a_col, b_row, out| HopperGemm { input: HopperIn::Tf32, ..problem(m, n, k, a_col, b_row, out) };
        assert_eq!(tf32(8, 8, 12, false, false, HopperOut::F32).unsupported(), None);
        let e = tf32(8, 8, 6, false, false, HopperOut::F32).unsupported().unwrap();
        assert_eq!(e, "A row-major: K = 6 is not a multiple of 4 (TMA needs 16-byte rows)");
        for (a_col, b_row, out) in [(true, false, HopperOut::F32), (false, true, HopperOut::F32), (false, false, HopperOut::Bf16)] {
            assert!(tf32(8, 8, 8, a_col, b_row, out).unsupported().unwrap().starts_with("tf32: "));
        }
    }
}
