//! The GEMM as one library call on tensors: [`Matmul`] computes
//! `D = act(alpha * scale_a * scale_b * A B + beta * C + bias)` for A `(M,K)`, B `(K,N)`, C and D
//! `(M,N)` given as device tensors with layouts, each optionally batched `(.., .., L)`.
//!
//! The layouts pick the kernel. Each matrix needs one contiguous mode (stride 1): A row-major
//! (K contiguous) or column-major (M contiguous) with any leading dimension, B likewise, C and D
//! row- or column-major (a column-major D is computed as `D^T = B^T A^T`). The third mode is the
//! batch, of any stride (stride 0: one matrix shared by every batch; D's batches must not
//! overlap). A layout no kernel reads, with no contiguous mode, is refused by name.
//!
//! The path: on an sm_90 GPU the Hopper kernels (TMA + wgmma, one persistent launch for all
//! batches) whenever they take the problem ([`GemmError::Unsupported`] names why not), else the
//! portable `mma.sync` kernels (any GPU from sm_80 and the CPU backend; one launch per batch).
//! [`Matmul::path`] forces one, for benchmarks. The modules load on first use and stay cached by
//! the [`Gpu`]; a call allocates nothing on the GPU and returns once launched, on the GPU's stream
//! or the one given by [`Matmul::on`], so calls can be captured in a CUDA graph.
//!
//! Element types: bf16 or f16 A and B (the same type), or 8-bit floats (e4m3/e5m2, the Hopper
//! path only, K-major: A row-major and B column-major) with per-tensor scales; f32 C; f32, bf16 or
//! f16 D; an f32 bias per row or per column.
//!
//! # Example
//! ```
//! use cute_rs_ops::matmul::Matmul;
//! use cute_rs_ops::gemm::{Activation, GemmPath};
//! use cute_rs_layout::Layout;
//! use cute_rs_tensor::half::bf16;
//!
//! let gpu = cute_rs_host::Gpu::cpu(); // or cute_rs_host::Gpu::new(0)? on a machine with a GPU
//! // Two batches of A (2 x 3, row-major) times B (3 x 2, column-major), plus a bias per column,
//! // then a ReLU.
//! let a = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0].map(bf16::from_f32))?;
//! let b = gpu.upload(&[1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0].map(bf16::from_f32))?; // columns e0, e1
//! let bias = gpu.upload(&[0.5f32, -10.0])?;
//! let mut d = gpu.alloc::<f32>(8)?;
//! let path = Matmul::new().bias_per_column(&bias).activation(Activation::Relu).run(
//!     &gpu,
//!     a.tensor(Layout::parse("(2,3,2):(3,1,6)")?)?,
//!     b.tensor(Layout::parse("(3,2):(1,3)")?)?, // one B for both batches
//!     None,
//!     d.tensor_mut(Layout::parse("(2,2,2):(2,1,4)")?)?,
//! )?;
//! assert_eq!(path, GemmPath::MmaSync); // no wgmma on the CPU backend
//! // Batch 0: [[1.5, 0], [4.5, 0]] (2 - 10 and 5 - 10 clipped); batch 1: everything clipped.
//! assert_eq!(gpu.download(&d)?, [1.5, 0.0, 4.5, 0.0, 0.0, 0.0, 0.0, 0.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::any::Any;

use cute_rs_host::{DeviceBuffer, DeviceTensor, DeviceTensorMut, Gpu, Stream};
use cute_rs_layout::Layout;

use crate::gemm::{hopper_unsupported, run_hopper, Activation, BiasKind, Gemm, GemmError, GemmInput, GemmOutput, GemmPath, Major};
use crate::gemm_f32::F32Math;
use crate::gemm_hopper::{HopperGemm, HopperIn, HopperOut};

/// A GEMM call on tensors: the epilogue, fp8 scales, the stream and (for benchmarks) the path; see
/// the [module docs](self).
///
/// Defaults: `alpha = 1`, `beta = 0`, no bias, no activation, scales 1, the GPU's stream, the
/// fastest path that takes the problem.
///
/// # Example
/// ```
/// use cute_rs_ops::matmul::Matmul;
/// use cute_rs_ops::gemm::Activation;
/// let m = Matmul::new().alpha(0.5).activation(Activation::Gelu);
/// assert_eq!(format!("{m:?}").contains("Gelu"), true);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Matmul<'a> {
    alpha: Option<f32>,
    beta: f32,
    bias: Option<(BiasKind, &'a DeviceBuffer<f32>)>,
    activation: Option<Activation>,
    scales: Option<(f32, f32)>,
    stream: Option<&'a Stream>,
    path: Option<GemmPath>,
    splits: Option<u32>,
    stream_k: bool,
    f32_math: Option<F32Math>,
}

/// One matrix operand as its layout describes it: `rows x cols` (x `batches`), strides of a row
/// step, a column step and a batch step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Operand {
    rows: usize,
    cols: usize,
    batches: Option<usize>,
    row_stride: usize,
    col_stride: usize,
    batch_stride: usize,
}

impl Operand {
    /// The operand `name` (shape names `dims`) of `layout`: rank 2, or 3 with the batch last,
    /// flat modes, strides not negative.
    fn of(name: &str, dims: [&str; 2], layout: &Layout) -> Result<Operand, GemmError> {
        let (shape, stride) = (layout.shape(), layout.stride());
        let (shape, stride) = (shape.leaves(), stride.leaves());
        let rank = layout.rank();
        if shape.len() != rank || !(2..=3).contains(&rank) {
            return Err(GemmError::NoKernel(format!(
                "{name}'s layout {layout} is not ({}, {}) or ({}, {}, L) with flat modes",
                dims[0], dims[1], dims[0], dims[1]
            )));
        }
        if let Some(&s) = stride.iter().find(|&&s| s < 0) {
            return Err(GemmError::NoKernel(format!("{name}'s layout {layout} has the negative stride {s}")));
        }
        let u = |i: usize| shape[i] as usize;
        let s = |i: usize| stride[i] as usize;
        Ok(Operand {
            rows: u(0),
            cols: u(1),
            batches: (rank == 3).then(|| u(2)),
            row_stride: s(0),
            col_stride: s(1),
            batch_stride: if rank == 3 { s(2) } else { 0 },
        })
    }

    /// The transposed operand.
    fn t(self) -> Operand {
        Operand { rows: self.cols, cols: self.rows, row_stride: self.col_stride, col_stride: self.row_stride, ..self }
    }

    /// How the operand is stored: row-major with rows `ld` apart when its columns are contiguous,
    /// column-major when its rows are (a mode of extent 1 counts as contiguous), else `None`.
    fn major(&self) -> Option<(Major, usize)> {
        if self.col_stride == 1 || self.cols == 1 {
            // A single row: any pitch of at least the row.
            Some((Major::Row, if self.rows == 1 { self.cols } else { self.row_stride }))
        } else if self.row_stride == 1 || self.rows == 1 {
            Some((Major::Col, if self.cols == 1 { self.rows } else { self.col_stride }))
        } else {
            None
        }
    }

    /// [`major`](Self::major), or the refusal naming the operand.
    fn storage(&self, name: &str) -> Result<(Major, usize), GemmError> {
        self.major().ok_or_else(|| {
            GemmError::NoKernel(format!(
                "{name} ({} x {}, strides {} and {}) has no contiguous mode (stride 1): the kernels read rows or columns of consecutive elements",
                self.rows, self.cols, self.row_stride, self.col_stride
            ))
        })
    }
}

impl<'a> Matmul<'a> {
    /// The defaults (see [`Matmul`]).
    pub fn new() -> Matmul<'a> {
        Matmul::default()
    }

    /// Scales `A B` by `alpha`.
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::matmul::Matmul::new().alpha(2.0);
    /// ```
    pub fn alpha(self, alpha: f32) -> Matmul<'a> {
        Matmul { alpha: Some(alpha), ..self }
    }

    /// Adds `beta * C` (C must then be given).
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::matmul::Matmul::new().beta(1.0);
    /// ```
    pub fn beta(self, beta: f32) -> Matmul<'a> {
        Matmul { beta, ..self }
    }

    /// Adds `bias[row]` to every element of a row of D (`M` values).
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let bias = gpu.alloc::<f32>(4)?;
    /// let _ = cute_rs_ops::matmul::Matmul::new().bias_per_row(&bias);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn bias_per_row(self, bias: &'a DeviceBuffer<f32>) -> Matmul<'a> {
        Matmul { bias: Some((BiasKind::PerRow, bias)), ..self }
    }

    /// Adds `bias[column]` to every element of a column of D (`N` values: a linear layer's
    /// `x W^T + b`).
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let bias = gpu.alloc::<f32>(4)?;
    /// let _ = cute_rs_ops::matmul::Matmul::new().bias_per_column(&bias);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn bias_per_column(self, bias: &'a DeviceBuffer<f32>) -> Matmul<'a> {
        Matmul { bias: Some((BiasKind::PerColumn, bias)), ..self }
    }

    /// Applies `activation` last.
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::matmul::Matmul::new().activation(cute_rs_ops::gemm::Activation::Silu);
    /// ```
    pub fn activation(self, activation: Activation) -> Matmul<'a> {
        Matmul { activation: Some(activation), ..self }
    }

    /// The per-tensor scales of A and B (fp8 operands carry values divided by them): the product
    /// is scaled by `scale_a * scale_b`.
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::matmul::Matmul::new().scales(0.5, 4.0);
    /// ```
    pub fn scales(self, scale_a: f32, scale_b: f32) -> Matmul<'a> {
        Matmul { scales: Some((scale_a, scale_b)), ..self }
    }

    /// Launches on `stream` instead of the GPU's own.
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let stream = gpu.create_stream()?;
    /// let _ = cute_rs_ops::matmul::Matmul::new().on(&stream);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn on(self, stream: &'a Stream) -> Matmul<'a> {
        Matmul { stream: Some(stream), ..self }
    }

    /// Takes `path` or fails naming why it cannot (benchmarks compare paths this way).
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::matmul::Matmul::new().path(cute_rs_ops::gemm::GemmPath::MmaSync);
    /// ```
    pub fn path(self, path: GemmPath) -> Matmul<'a> {
        Matmul { path: Some(path), ..self }
    }

    /// Cuts each output tile's K range into `splits` shares computed by different SMs (split-K on
    /// the Hopper path; 1: none), instead of the library's choice (split only when the tiles alone
    /// leave more than half of the SMs idle, as in decoding's few-row products). The Hopper path
    /// splits fp8 products and 16-bit ones with A row-major and B column-major (the storage of
    /// `X W^T`) into a 16-bit or TMA-stored f32 D; other products run unsplit.
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::matmul::Matmul::new().split_k(4);
    /// ```
    pub fn split_k(self, splits: u32) -> Matmul<'a> {
        Matmul { splits: Some(splits.max(1)), stream_k: false, ..self }
    }

    /// Shares the product's k-tiles evenly among the SMs (stream-K on the Hopper path, in
    /// CUTLASS's data-parallel + stream-K hybrid: `cute_rs_kernels::gemm_sm90_sizes::StreamK`),
    /// instead of the library's choice. The tiles of all full waves but the last run whole; the
    /// rest's K ranges are cut into one even share per SM, crossing tile boundaries, and each
    /// tile's parts are summed in K order, so the result is the same from run to run. The
    /// products the Hopper path splits (see [`split_k`](Self::split_k)) take it; others run
    /// whole.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::Layout;
    /// use cute_rs_ops::matmul::Matmul;
    /// use cute_rs_tensor::half::bf16;
    ///
    /// let gpu = cute_rs_host::Gpu::cpu(); // or cute_rs_host::Gpu::new(0)? on a machine with a GPU
    /// let (m, n, k) = (16, 256, 512);
    /// let a = gpu.upload(&vec![bf16::from_f32(1.0); m * k])?;
    /// let b = gpu.upload(&vec![bf16::from_f32(0.5); k * n])?;
    /// let mut d = gpu.alloc::<bf16>(m * n)?;
    /// let row_major = |r: usize, c: usize| Layout::parse(&format!("({r},{c}):({c},1)"));
    /// let col_major = |r: usize, c: usize| Layout::parse(&format!("({r},{c}):(1,{r})"));
    /// Matmul::new().stream_k().run(&gpu, a.tensor(row_major(m, k)?)?, b.tensor(col_major(k, n)?)?, None, d.tensor_mut(row_major(m, n)?)?)?;
    /// assert!(gpu.download(&d)?.iter().all(|x| x.to_f32() == 256.0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn stream_k(self) -> Matmul<'a> {
        Matmul { splits: None, stream_k: true, ..self }
    }

    /// The same call without its epilogue (alpha, beta, bias, activation, fp8 scales): for
    /// products whose epilogue belongs after a reduction.
    pub(crate) fn without_epilogue(self) -> Matmul<'a> {
        Matmul { alpha: None, beta: 0.0, bias: None, activation: None, scales: None, ..self }
    }

    /// `h` shared among the SMs as asked ([`split_k`](Self::split_k),
    /// [`stream_k`](Self::stream_k)), or as the library chooses.
    fn decompose(&self, h: HopperGemm) -> HopperGemm {
        match (self.stream_k, self.splits) {
            (true, _) => h.stream_k(),
            (false, Some(splits)) => h.split(splits),
            (false, None) => h,
        }
    }

    /// How f32 A and B are multiplied (16- and 8-bit inputs ignore it):
    /// - [`F32Math::Ffma`], the default: f32 arithmetic throughout, on the CUDA cores (PyTorch's
    ///   `set_float32_matmul_precision("highest")`, cuBLAS's `CUBLAS_COMPUTE_32F`, Triton's
    ///   `input_precision="ieee"`);
    /// - [`F32Math::Tf32`]: tensor-core products of A and B rounded to tf32, summed in f32
    ///   (`"high"`, `CUBLAS_COMPUTE_32F_FAST_TF32`, `input_precision="tf32"`); on an sm_90 GPU the
    ///   Hopper kernel when A is row-major and B column-major (wgmma reads tf32 K-major only).
    ///
    /// f32 inputs take an f32 C and D, packed row- or column-major, and no bias or activation.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::{F32Math, GemmPath, Matmul};
    /// use cute_rs_layout::Layout;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// // A 1 x 2 times B 2 x 1.
    /// let x = 1.0f32 + 1.0 / 4096.0; // not a tf32 value: the tensor cores see 1
    /// let (a, b) = (gpu.upload(&[x, 1.0])?, gpu.upload(&[1.0f32, 1.0])?);
    /// let mut d = gpu.alloc::<f32>(1)?;
    /// let row = |n: i64| Layout::parse(&format!("(1,{n}):({n},1)"));
    /// let col = Layout::parse("(2,1):(1,2)")?;
    /// let path = Matmul::new().run(&gpu, a.tensor(row(2)?)?, b.tensor(col.clone())?, None, d.tensor_mut(row(1)?)?)?;
    /// assert_eq!((path, gpu.download(&d)?[0]), (GemmPath::MmaSync, x + 1.0));
    /// Matmul::new().f32_math(F32Math::Tf32).run(&gpu, a.tensor(row(2)?)?, b.tensor(col)?, None, d.tensor_mut(row(1)?)?)?;
    /// assert_eq!(gpu.download(&d)?[0], 2.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn f32_math(self, math: F32Math) -> Matmul<'a> {
        Matmul { f32_math: Some(math), ..self }
    }

    /// The problem these tensors describe, as the kernels take it: a row-major D (a column-major
    /// one is the transposed problem), the storage orders and leading dimensions of A and B, the
    /// batches and their strides; validated against the buffers.
    ///
    /// # Errors
    /// [`GemmError::NoKernel`] for a layout no kernel reads, [`GemmError::Batch`] for batch
    /// counts that disagree, and those of [`Gemm::validate`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::Major;
    /// use cute_rs_ops::matmul::Matmul;
    /// use cute_rs_layout::Layout;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let (a, b, mut d) = (gpu.alloc::<u16>(64 * 32)?, gpu.alloc::<u16>(32 * 16)?, gpu.alloc::<f32>(64 * 16)?);
    /// let g = Matmul::new().problem(
    ///     a.tensor(Layout::parse("(64,32):(1,64)")?)?,   // column-major A
    ///     b.tensor(Layout::parse("(32,16):(1,32)")?)?,   // column-major B
    ///     None,
    ///     d.tensor_mut(Layout::parse("(64,16):(1,64)")?)?, // column-major D: D^T = B^T A^T
    /// )?;
    /// assert_eq!((g.m, g.n, g.k, g.a_major, g.b_major), (16, 64, 32, Major::Row, Major::Row));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[doc(hidden)]
    pub fn problem<IA: GemmInput, IB: GemmInput, O: GemmOutput>(
        &self,
        a: DeviceTensor<'_, IA, Layout>,
        b: DeviceTensor<'_, IB, Layout>,
        c: Option<DeviceTensor<'_, f32, Layout>>,
        d: DeviceTensorMut<'_, O, Layout>,
    ) -> Result<Gemm, GemmError> {
        Ok(self.plan(&a, &b, c.as_ref(), &d)?.0)
    }

    /// [`problem`](Self::problem) and whether A and B swapped places (a column-major D).
    fn plan<IA: GemmInput, IB: GemmInput, O: GemmOutput>(
        &self,
        a: &DeviceTensor<'_, IA, Layout>,
        b: &DeviceTensor<'_, IB, Layout>,
        c: Option<&DeviceTensor<'_, f32, Layout>>,
        d: &DeviceTensorMut<'_, O, Layout>,
    ) -> Result<(Gemm, bool), GemmError> {
        let mut oa = Operand::of("A", ["M", "K"], a.layout())?;
        let mut ob = Operand::of("B", ["K", "N"], b.layout())?;
        let mut od = Operand::of("D", ["M", "N"], d.layout())?;
        let mut oc = c.map(|c| Operand::of("C", ["M", "N"], c.layout())).transpose()?;
        // The shapes agree.
        let (m, k, n) = (oa.rows, oa.cols, ob.cols);
        let named = |what: &str, got: usize, want: usize, name: &str| {
            (got != want).then(|| GemmError::NoKernel(format!("{what} is {got} but {name} is {want}")))
        };
        let mut mismatch = named("B's rows (K)", ob.rows, k, "A's columns");
        mismatch = mismatch.or(named("D's rows (M)", od.rows, m, "A's rows")).or(named("D's columns (N)", od.cols, n, "B's columns"));
        if let Some(oc) = oc {
            mismatch = mismatch.or(named("C's rows (M)", oc.rows, m, "A's rows")).or(named("C's columns (N)", oc.cols, n, "B's columns"));
        }
        if let Some(e) = mismatch {
            return Err(e);
        }
        // The batches: D's, which every batched operand shares (a matrix without a batch mode is
        // shared by every batch).
        let batches = od.batches.unwrap_or(1);
        for (name, o) in [("A", Some(oa)), ("B", Some(ob)), ("C", oc)] {
            if let Some(l) = o.and_then(|o| o.batches) {
                if l != batches {
                    return Err(GemmError::Batch(format!("{name} has {l} batches but D has {batches}")));
                }
            }
        }
        // A column-major D is the row-major D^T = B^T A^T.
        let transposed = matches!(od.major(), Some((Major::Col, _)));
        if transposed {
            (oa, ob) = (ob.t(), oa.t());
            od = od.t();
            oc = oc.map(Operand::t);
        }
        let (a_major, lda) = oa.storage("A")?;
        let (b_major, ldb) = ob.storage("B")?;
        // Row-major by now: a column-major D was transposed above.
        let (_, ldd) = od.storage("D")?;
        let ldc = match oc {
            Some(oc) => match oc.storage("C")? {
                (Major::Row, ldc) => Some(ldc),
                _ => return Err(GemmError::NoKernel("C must be stored in D's order (both row-major or both column-major)".to_string())),
            },
            None => None,
        };
        let (scale_a, scale_b) = self.scales.unwrap_or((1.0, 1.0));
        let bias = match (self.bias.map(|(kind, _)| kind), transposed) {
            (Some(BiasKind::PerRow), true) => BiasKind::PerColumn,
            (Some(BiasKind::PerColumn), true) => BiasKind::PerRow,
            (Some(kind), false) => kind,
            (_, _) => BiasKind::None,
        };
        let mut g = Gemm::new(oa.rows, ob.cols, oa.cols)
            .a_major(a_major)
            .b_major(b_major)
            .lda(lda)
            .ldb(ldb)
            .ldd(ldd)
            .alpha(self.alpha.unwrap_or(1.0) * scale_a * scale_b)
            .beta(self.beta)
            .batched(batches)
            .batch_strides([oa.batch_stride, ob.batch_stride, oc.map_or(0, |c| c.batch_stride), od.batch_stride])
            .bias(bias)
            .activation(self.activation.unwrap_or(Activation::Identity));
        g.ldc = ldc;
        // The buffers hold what the strides reach (the tensors checked it; the validation also
        // names overlapping batches of D and the kernels' index limits).
        let c_buf = c.map(|c| c.buffer());
        if transposed {
            g.validate(b.buffer(), a.buffer(), c_buf, d.as_buffer())?;
        } else {
            g.validate(a.buffer(), b.buffer(), c_buf, d.as_buffer())?;
        }
        g.validate_bias(self.bias.map(|(_, v)| v))?;
        Ok((g, transposed))
    }

    /// Launches `D = act(alpha * scale_a * scale_b * A B + beta * C + bias)` on the tensors (see
    /// the [module docs](self)) and returns the path taken, once launched.
    ///
    /// # Errors
    /// Those of [`problem`](Self::problem); [`GemmError::NoKernel`] for fp8 inputs off the Hopper
    /// path or A and B of different 16-bit types; [`GemmError::Unsupported`] when the path forced
    /// by [`path`](Self::path) is the Hopper one and it cannot take the problem;
    /// [`GemmError::Host`] for the launch.
    ///
    /// # Example
    /// See the [module docs](self).
    pub fn run<IA: GemmInput, IB: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        a: DeviceTensor<'_, IA, Layout>,
        b: DeviceTensor<'_, IB, Layout>,
        c: Option<DeviceTensor<'_, f32, Layout>>,
        mut d: DeviceTensorMut<'_, O, Layout>,
    ) -> Result<GemmPath, GemmError> {
        if IA::F32 || IB::F32 {
            return self.run_f32(gpu, a, b, c, d);
        }
        let (g, transposed) = self.plan(&a, &b, c.as_ref(), &d)?;
        let input = match (HopperIn::of::<IA, IB>().map_err(GemmError::NoKernel)?, transposed) {
            // The transposed problem multiplies B^T by A^T: the formats trade places.
            (HopperIn::Fp8 { a_e5m2, b_e5m2 }, true) => HopperIn::Fp8 { a_e5m2: b_e5m2, b_e5m2: a_e5m2 },
            (input, _) => input,
        };
        let (a, b) = (a.buffer(), b.buffer());
        let c = c.map(|c| c.buffer());
        let bias = self.bias.map(|(_, v)| v);
        let h = self.decompose(HopperGemm::new(g, input, HopperOut::of::<O>()));
        let d = d.buffer();
        let ptrs = |x: u64, y: u64| if transposed { [y, x, d.device_ptr()] } else { [x, y, d.device_ptr()] };
        let why_not_hopper = hopper_unsupported(&h, gpu, ptrs(a.device_ptr(), b.device_ptr()));
        let path = match (self.path, &why_not_hopper) {
            (Some(path), _) => path,
            (None, None) => GemmPath::Sm90,
            (None, Some(_)) => GemmPath::MmaSync,
        };
        match path {
            GemmPath::Sm90 => {
                let r = if transposed {
                    run_hopper(&h, gpu, self.stream, b, a, (c, bias), d)
                } else {
                    run_hopper(&h, gpu, self.stream, a, b, (c, bias), d)
                };
                r?;
            }
            GemmPath::MmaSync => {
                if IA::FP8 || IB::FP8 {
                    let why = why_not_hopper.unwrap_or_else(|| "the portable path was asked for".to_string());
                    return Err(GemmError::NoKernel(format!("fp8 inputs need the Hopper path (wgmma), which cannot take this problem: {why}")));
                }
                // A and B have one type (checked above): B as a buffer of A's type.
                let b = (b as &dyn Any).downcast_ref::<DeviceBuffer<IA>>().ok_or_else(|| {
                    GemmError::NoKernel(format!("A is {} and B is {}: one element type for both", IA::NAME, IB::NAME))
                })?;
                if transposed {
                    g.launch(gpu, self.stream, b, a, c, bias, d)?;
                } else {
                    g.launch(gpu, self.stream, a, b, c, bias, d)?;
                }
            }
        }
        Ok(path)
    }

    /// [`run`](Self::run) for f32 A and B (see [`f32_math`](Self::f32_math)).
    fn run_f32<IA: GemmInput, IB: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        a: DeviceTensor<'_, IA, Layout>,
        b: DeviceTensor<'_, IB, Layout>,
        c: Option<DeviceTensor<'_, f32, Layout>>,
        mut d: DeviceTensorMut<'_, O, Layout>,
    ) -> Result<GemmPath, GemmError> {
        if !(IA::F32 && IB::F32) {
            return Err(GemmError::NoKernel(format!("A is {} and B is {}: f32 inputs are multiplied with f32 inputs", IA::KERNEL_NAME, IB::KERNEL_NAME)));
        }
        if O::KERNEL_SUFFIX != <f32 as GemmOutput>::KERNEL_SUFFIX {
            return Err(GemmError::NoKernel(format!("f32 inputs give an f32 D, not {}", O::KERNEL_SUFFIX.trim_start_matches("_o"))));
        }
        let (g, transposed) = self.plan(&a, &b, c.as_ref(), &d)?;
        let (a, b) = (f32_buffer(a.buffer()), f32_buffer(b.buffer()));
        let (a, b) = if transposed { (b, a) } else { (a, b) };
        let c = c.map(|c| c.buffer());
        let d = (d.buffer() as &mut dyn Any).downcast_mut::<DeviceBuffer<f32>>().expect("an f32 D (checked above)");
        let math = self.f32_math.unwrap_or(F32Math::Ffma);
        if math == F32Math::Tf32 {
            let h = self.decompose(HopperGemm::new(g, HopperIn::Tf32, HopperOut::F32));
            let why_not_hopper = hopper_unsupported(&h, gpu, [a.device_ptr(), b.device_ptr(), d.device_ptr()]);
            if self.path == Some(GemmPath::Sm90) || (self.path.is_none() && why_not_hopper.is_none()) {
                run_hopper(&h, gpu, self.stream, a, b, (c, None), d)?;
                return Ok(GemmPath::Sm90);
            }
        } else if self.path == Some(GemmPath::Sm90) {
            return Err(GemmError::Unsupported("f32 FFMA runs on the CUDA cores: the Hopper path multiplies f32 inputs as tf32 (F32Math::Tf32)".to_string()));
        }
        g.launch_f32(math, gpu, self.stream, a, b, c, d)?;
        Ok(GemmPath::MmaSync)
    }
}

/// `buffer` as the f32 buffer it is (the caller checked the element type).
fn f32_buffer<T: cute_rs_host::DeviceElem>(buffer: &DeviceBuffer<T>) -> &DeviceBuffer<f32> {
    (buffer as &dyn Any).downcast_ref::<DeviceBuffer<f32>>().expect("f32 operands (checked by the caller)")
}
