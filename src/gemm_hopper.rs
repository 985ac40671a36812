//! The Hopper path's host side: which sm_90a GEMM entry takes a problem, what it cannot take (each
//! condition named), the tensor maps of A, B and D, the persistent launch. Used by the GEMM API
//! ([`crate::gemm`]) and by the GPU checks.
//!
//! The entries (`kernels/src/gemm_sm90.rs`, `gemm_sm90_api_kernels!`) are named
//! `gemm_sm90_{bf16|f16}_a{r|c}_b{r|c}_o{f32|bf16|f16}`: input type, storage of A (`M x K`) and B
//! (`K x N`), element type of D. A K-major operand (A row-major, B column-major) is read in boxes
//! of 64 K x the tile's rows, an MN-major one in boxes of 64 M (N) x 64 K, all with the 128-byte
//! swizzle wgmma reads; a 16-bit D is written by TMA stores of 64 x 64 boxes.

use host::{DeviceBuffer, DeviceElem, Gpu, LaunchConfig, Stream, TensorMap, TmaOobFill, TmaSwizzle};
use kernels::gemm_sm90_sizes::{GEMM_SM90_BK, GEMM_SM90_EPILOGUE_BYTES, GEMM_SM90_P_128X256 as SHAPE};

/// The element type of A and B on the Hopper path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HopperIn {
    Bf16,
    F16,
    /// f32 in memory, multiplied as tf32 (K-major operands and f32 D only).
    Tf32,
}

impl HopperIn {
    fn bytes(self) -> usize {
        if self == HopperIn::Tf32 {
            4
        } else {
            2
        }
    }
}

/// The element type of D on the Hopper path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HopperOut {
    F32,
    Bf16,
    F16,
}

/// A problem as the Hopper entries see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HopperGemm {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub input: HopperIn,
    /// A column-major (M-major), else row-major (K-major).
    pub a_col: bool,
    /// B row-major (N-major), else column-major (K-major).
    pub b_row: bool,
    pub out: HopperOut,
    pub alpha: f32,
    pub beta: f32,
    /// Leading dimensions of A and B when not packed (a sub-matrix view: the tensor maps stride
    /// by them).
    pub lds: (Option<usize>, Option<usize>),
}

/// A Hopper entry, by the type of its D (bf16 as bits).
#[derive(Clone, Copy)]
enum HopperKernel {
    F32(host::KernelFn<kernels::gemm_sm90::by_output::Params<f32>>),
    Bf16(host::KernelFn<kernels::gemm_sm90::by_output::Params<u16>>),
    F16(host::KernelFn<kernels::gemm_sm90::by_output::Params<layout_tensor::half::f16>>),
}

impl HopperGemm {
    /// The entry's name.
    pub fn kernel_name(&self) -> String {
        match self.kernel() {
            HopperKernel::F32(k) => k.name(),
            HopperKernel::Bf16(k) => k.name(),
            HopperKernel::F16(k) => k.name(),
        }
        .to_string()
    }

    /// The entry of `kernels::gemm_sm90::by_output` for this problem's input, storage orders and
    /// output.
    fn kernel(&self) -> HopperKernel {
        use kernels::gemm_sm90::by_output;
        let index = 4 * (self.input == HopperIn::F16) as usize + 2 * self.a_col as usize + self.b_row as usize;
        match (self.input, self.out) {
            (HopperIn::Tf32, _) => HopperKernel::F32(by_output::TF32),
            (_, HopperOut::F32) if self.tma_out() => HopperKernel::F32(by_output::F32_TMA[index]),
            (_, HopperOut::F32) => HopperKernel::F32(by_output::F32[index]),
            (_, HopperOut::Bf16) => HopperKernel::Bf16(by_output::BF16[index]),
            (_, HopperOut::F16) => HopperKernel::F16(by_output::F16[index]),
        }
    }

    /// Why the entries cannot take this problem, if they cannot: TMA needs 16-byte rows, so the
    /// contiguous extent of each operand (K for a K-major one, M or N for an MN-major one, N for a
    /// 16-bit D) is a multiple of 8 elements (4 for tf32); tf32 operands are K-major (wgmma has
    /// no transpose for them) and D f32; the extents fit the tensor maps' 32-bit sizes.
    pub fn unsupported(&self) -> Option<String> {
        let per_row = 16 / self.input.bytes();
        let rows = |what: &str, name: &str, x: usize, per_row: usize| {
            (!x.is_multiple_of(per_row))
                .then(|| format!("{what}: {name} = {x} is not a multiple of {per_row} (TMA needs 16-byte rows)"))
        };
        if self.k == 0 {
            return Some("K = 0 (nothing to multiply: D = beta * C)".to_string());
        }
        if self.input == HopperIn::Tf32 && (self.a_col || self.b_row || self.out != HopperOut::F32) {
            return Some("tf32: wgmma reads tf32 operands K-major only (A row-major, B column-major), into an f32 D".to_string());
        }
        // The rows' pitch: the leading dimension, or the packed extent.
        let pitch = |ld: Option<usize>, what: &str, name: &str, x: usize| match ld {
            Some(ld) => rows(what, "the leading dimension", ld, per_row),
            None => rows(what, name, x, per_row),
        };
        let (lda, ldb) = self.lds;
        let a = if self.a_col { pitch(lda, "A column-major", "M", self.m) } else { pitch(lda, "A row-major", "K", self.k) };
        let b = if self.b_row { pitch(ldb, "B row-major", "N", self.n) } else { pitch(ldb, "B column-major", "K", self.k) };
        let d = if self.out == HopperOut::F32 { None } else { rows("16-bit D", "N", self.n, 8) };
        a.or(b).or(d).or_else(|| {
            [("M", self.m), ("N", self.n), ("K", self.k)]
                .into_iter()
                .find(|&(_, x)| x > i32::MAX as usize)
                .map(|(name, x)| format!("{name} = {x} exceeds 2^31 - 1"))
        })
    }

    /// Whether D goes out through the TMA-store epilogue: a 16-bit D (N a multiple of 8, checked by
    /// [`unsupported`](Self::unsupported)), and an f32 D whose rows are whole 16-byte units (N a
    /// multiple of 4; other f32 D are stored directly).
    fn tma_out(&self) -> bool {
        match (self.input, self.out) {
            (HopperIn::Tf32, _) => false,
            (_, HopperOut::F32) => self.n.is_multiple_of(4),
            _ => true,
        }
    }

    /// Dynamic shared memory of a launch.
    fn smem_bytes(&self) -> u32 {
        SHAPE.smem_bytes() + if self.tma_out() { GEMM_SM90_EPILOGUE_BYTES } else { 0 }
    }

    /// The persistent grid: one block per SM, at most one per tile.
    fn launch_config(&self, gpu: &Gpu) -> LaunchConfig {
        let tiles = self.m.div_ceil(SHAPE.bm as usize) * self.n.div_ceil(SHAPE.bn as usize);
        let blocks = tiles.min(gpu.properties().multiprocessors as usize).max(1) as u32;
        LaunchConfig { grid: (blocks, 1, 1), block: (SHAPE.threads(), 1, 1), shared_mem_bytes: self.smem_bytes() }
    }

    /// The tensor maps of A, B and (TMA-stored) D, encoded on the host: the kernels take them by value
    /// in the launch's parameters, so nothing is allocated or uploaded.
    pub fn maps<I: DeviceElem, O: DeviceElem>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        d: &DeviceBuffer<O>,
    ) -> host::Result<HopperMaps> {
        let (m, n, k) = (self.m, self.n, self.k);
        let strided = |buf: &dyn MapSource, (inner, outer): (usize, usize), ld: usize, box_shape: [u32; 2]| -> host::Result<TensorMap> {
            let global = layout::Layout::parse(&format!("({inner},{outer}):(1,{ld})"))
                .map_err(|e| host::HostError::Invalid(e.to_string()))?;
            buf.tensor_map(gpu, global, &box_shape)
        };
        let map = |buf: &dyn MapSource, inner: usize, outer: usize, box_shape: [u32; 2]| strided(buf, (inner, outer), inner, box_shape);
        let (lda, ldb) = self.lds;
        // K-major: rows of K (a 128-byte box row: 64 16-bit or 32 tf32 elements); MN-major: rows
        // of M (N), one per k.
        let bk = GEMM_SM90_BK * 2 / self.input.bytes() as u32;
        let a_map = if self.a_col {
            strided(a, (m, k), lda.unwrap_or(m), [64, 64])?
        } else {
            strided(a, (k, m), lda.unwrap_or(k), [bk, SHAPE.bm])?
        };
        let b_map = if self.b_row {
            strided(b, (n, k), ldb.unwrap_or(n), [64, 64])?
        } else {
            strided(b, (k, n), ldb.unwrap_or(k), [bk, SHAPE.bn])?
        };
        // D: boxes of 128-byte rows (64 16-bit or 32 f32 elements) x 64 rows.
        let d_map = match (self.tma_out(), self.out) {
            (false, _) => None,
            (true, HopperOut::F32) => Some(map(d, n, m, [32, 64])?),
            (true, _) => Some(map(d, n, m, [64, 64])?),
        };
        Ok(HopperMaps { a_map, b_map, d_map })
    }

    /// Launches `D = alpha * A * B + beta * C` with the tensor maps `maps` of its A, B and D on
    /// `stream` (the default stream if `None`), without waiting: the maps travel in the launch's
    /// parameters.
    ///
    /// # Safety
    /// `maps` are this problem's maps ([`maps`](Self::maps)) of buffers holding its operands (A:
    /// M x K, B: K x N in their storage orders; `c`, read when `beta != 0`, and `d`: M x N
    /// row-major, of the entry's element types), 16-byte aligned, alive until the kernel ends;
    /// [`unsupported`](Self::unsupported) is `None`.
    pub unsafe fn launch_with<O: DeviceElem>(
        &self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        maps: &HopperMaps,
        c: Option<&DeviceBuffer<f32>>,
        d: &DeviceBuffer<O>,
    ) -> host::Result<()> {
        let cfg = self.launch_config(gpu);
        let (m, n, k) = (self.m as u32, self.n as u32, self.k as u32);
        // Unused pointers get a valid address: A's map for a missing D map, D for a missing C.
        let c_ptr = c.map_or(d.device_ptr(), |c| c.device_ptr()) as *const f32;
        let d_map = maps.d_map.as_ref().unwrap_or(&maps.a_map);
        macro_rules! launch {
            ($kernel:expr, $out:ty) => {{
                let args = (&maps.a_map, &maps.b_map, d_map, c_ptr, d.device_ptr() as *mut $out, m, n, k, self.alpha, self.beta);
                // SAFETY: the caller's preconditions; the maps cover exactly A, B and D.
                unsafe { crate::gemm::on(gpu.launch(&crate::GEMM_SM90A, $kernel, cfg, args), stream).run() }
            }};
        }
        match self.kernel() {
            HopperKernel::F32(k) => launch!(k, f32),
            HopperKernel::Bf16(k) => launch!(k, u16),
            HopperKernel::F16(k) => launch!(k, layout_tensor::half::f16),
        }
    }

    /// [`maps`](Self::maps) then [`launch_with`](Self::launch_with): returns once the kernel is
    /// launched.
    ///
    /// # Safety
    /// Those of [`launch_with`](Self::launch_with) for the buffers.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn launch<I: DeviceElem, O: DeviceElem>(
        &self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &DeviceBuffer<O>,
    ) -> host::Result<()> {
        let maps = self.maps(gpu, a, b, d)?;
        // SAFETY: forwarded; the maps are copied into the launch's parameters.
        unsafe { self.launch_with(gpu, stream, &maps, c, d) }
    }
}

/// The tensor maps of one problem's A, B and D (none for a D stored directly), encoded on the host.
pub(crate) struct HopperMaps {
    a_map: TensorMap,
    b_map: TensorMap,
    d_map: Option<TensorMap>,
}

/// A buffer a tensor map can be made of (so that A, B and D of different element types share
/// one map closure).
trait MapSource {
    fn tensor_map(&self, gpu: &Gpu, global: layout::Layout, box_shape: &[u32]) -> host::Result<TensorMap>;
}

impl<T: DeviceElem> MapSource for DeviceBuffer<T> {
    fn tensor_map(&self, gpu: &Gpu, global: layout::Layout, box_shape: &[u32]) -> host::Result<TensorMap> {
        gpu.tensor_map(self, global, box_shape, TmaSwizzle::B128, TmaOobFill::Zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(m: usize, n: usize, k: usize, a_col: bool, b_row: bool, out: HopperOut) -> HopperGemm {
        HopperGemm { m, n, k, input: HopperIn::Bf16, a_col, b_row, out, alpha: 1.0, beta: 0.0, lds: (None, None) }
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
    fn each_tma_row_condition_is_named() {
        assert_eq!(problem(8, 8, 8, false, false, HopperOut::F32).unsupported(), None);
        let e = problem(8, 8, 12, false, false, HopperOut::F32).unsupported().unwrap();
        assert_eq!(e, "A row-major: K = 12 is not a multiple of 8 (TMA needs 16-byte rows)");
        let e = problem(12, 8, 8, true, false, HopperOut::F32).unsupported().unwrap();
        assert!(e.starts_with("A column-major: M = 12"), "{e}");
        let e = problem(8, 12, 8, false, true, HopperOut::F32).unsupported().unwrap();
        assert!(e.starts_with("B row-major: N = 12"), "{e}");
        // A leading dimension is the rows' pitch: K itself need not be a multiple of 8 then.
        let view = |lds| HopperGemm { lds, ..problem(8, 8, 12, false, false, HopperOut::F32) };
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
