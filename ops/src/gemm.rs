//! The GEMM's element types ([`GemmInput`], [`GemmOutput`]), epilogue ([`BiasKind`],
//! [`Activation`]), paths ([`GemmPath`]) and errors ([`GemmError`]), for
//! [`Matmul`](crate::Matmul), the GEMM call: `D = act(alpha * A * B + beta * C + bias)` with
//! bf16 or f16 A and B (fp8 on the Hopper path, f32 through the f32 kernels), f32 accumulation on
//! the tensor cores (`mma.sync.m16n8k16`, sm_80+; wgmma on sm_90), and f32, bf16 or f16 D.
//!
//! Behind `Matmul` is the problem in shapes and leading dimensions that the kernels take (its
//! `Gemm`, internal: the GPU test suite drives it to measure the kernels one by one).
//!
//! The portable kernels are in `kernels/src/gemm.rs` (Rust module [`cute_rs_kernels::gemm`], PTX
//! module [`modules::gemm`](crate::modules::gemm), loaded on first use): 128 x 128 block tiles, a
//! 3-stage `cp.async` ring of swizzled shared-memory tiles, `ldmatrix` fragments. When both leading
//! dimensions are multiples of 8 elements and A and B start 16-byte aligned, tiles are staged with
//! 16-byte `cp.async` copies; otherwise element by element (correct for any shape, slower). Any
//! `M`, `N`, `K`: partial tiles are handled by the kernel (zero-filled staging, predicated
//! stores). `K = 0` gives `D = beta * C`; `M = 0` or `N = 0` launches nothing.
//!
//! # Example
//! ```
//! use cute_rs_ops::gemm::{Gemm, Major};
//! use cute_rs_tensor::half::{bf16, f16};
//!
//! let gpu = cute_rs_host::Gpu::cpu(); // or cute_rs_host::Gpu::new(0)? on a machine with a GPU
//! // A = [[1, 2], [3, 4]] (row-major), B = identity (column-major), C = all ones.
//! let a = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0].map(bf16::from_f32))?;
//! let b = gpu.upload(&[1.0f32, 0.0, 0.0, 1.0].map(bf16::from_f32))?;
//! let c = gpu.upload(&[1.0f32; 4])?;
//! let mut d = gpu.alloc::<f32>(4)?;
//! Gemm::new(2, 2, 2).b_major(Major::Col).alpha(2.0).beta(-1.0).run(&gpu, &a, &b, Some(&c), &mut d)?;
//! assert_eq!(gpu.download(&d)?, [1.0, 3.0, 5.0, 7.0]);
//!
//! // The same with f16 operands and an f16 D: the element types pick the kernel.
//! let a = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0].map(f16::from_f32))?;
//! let b = gpu.upload(&[1.0f32, 0.0, 0.0, 1.0].map(f16::from_f32))?;
//! let mut d = gpu.alloc::<f16>(4)?;
//! Gemm::new(2, 2, 2).b_major(Major::Col).alpha(2.0).beta(-1.0).run(&gpu, &a, &b, Some(&c), &mut d)?;
//! assert_eq!(gpu.download(&d)?, [1.0f32, 3.0, 5.0, 7.0].map(f16::from_f32));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use cute_rs_host::{DeviceBuffer, DeviceElem, Gpu, HostError, Launch, LaunchConfig, Stream};
use cute_rs_kernels::epilogue::EpilogueOp;
use cute_rs_kernels::gemm::{GemmParams, BM, BN, THREADS};
use cute_rs_tensor::device::numeric::{bf16_to_f32, E4M3, E5M2};
use cute_rs_tensor::half::{bf16, f16};

use crate::gemm_hopper::{HopperGemm, HopperIn, HopperOut};

/// Expands `$go!(table, input type, output type)` for the `mma.sync` kernels of inputs `$i` and
/// output `$o` (`GemmInput`/`GemmOutput` types): the one place that maps the element types to a
/// table of `cute_rs_kernels::gemm::by_type`, for both the launch and the kernel's name.
macro_rules! mma_kernels {
    ($i:ty, $o:ty, $go:ident) => {{
        use cute_rs_kernels::gemm::by_type::*;
        match (<$i as GemmInput>::KERNEL_NAME, <$o as GemmOutput>::KERNEL_SUFFIX) {
            ("f16", "") => $go!(F16_F32, f16, f32),
            ("f16", "_of16") => $go!(F16_F16, f16, f16),
            ("f16", _) => $go!(F16_BF16, f16, bf16),
            (_, "") => $go!(BF16_F32, bf16, f32),
            (_, "_of16") => $go!(BF16_F16, bf16, f16),
            _ => $go!(BF16_BF16, bf16, bf16),
        }
    }};
}

/// How a matrix is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// Row-major: consecutive elements of a row are adjacent (leading dimension = columns).
    Row,
    /// Column-major: consecutive elements of a column are adjacent (leading dimension = rows).
    Col,
}

/// A GEMM problem: shapes, storage orders and scalars; [`Gemm::run`] launches it. Internal: users
/// call [`Matmul`](crate::Matmul), which builds one from tensors' layouts.
///
/// Defaults: A and B row-major, `alpha = 1`, `beta = 0`.
///
/// # Example
/// ```
/// use cute_rs_ops::gemm::{Gemm, Major};
/// let g = Gemm::new(128, 256, 64).a_major(Major::Col).alpha(0.5);
/// assert_eq!((g.m, g.n, g.k, g.a_major, g.b_major, g.alpha, g.beta), (128, 256, 64, Major::Col, Major::Row, 0.5, 0.0));
/// assert_eq!(g.flops(), 2.0 * 128.0 * 256.0 * 64.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(hidden)]
pub struct Gemm {
    /// Rows of A, C and D.
    pub m: usize,
    /// Columns of B, C and D.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Storage of A (`M x K`).
    pub a_major: Major,
    /// Storage of B (`K x N`).
    pub b_major: Major,
    /// Scale of `A * B`.
    pub alpha: f32,
    /// Scale of C (C is not read when 0).
    pub beta: f32,
    /// Leading dimension of A: elements between consecutive rows (row-major) or columns
    /// (column-major); `None`: packed (`K` or `M`). A larger one reads A as a sub-matrix view.
    pub lda: Option<usize>,
    /// Leading dimension of B, as [`lda`](Gemm::lda) (`None`: `N` or `K`).
    pub ldb: Option<usize>,
    /// Leading dimension of C (row-major: elements between consecutive rows); `None`: `N`.
    pub ldc: Option<usize>,
    /// Leading dimension of D, as [`ldc`](Gemm::ldc).
    pub ldd: Option<usize>,
    /// Independent products of this shape computed by one call (strided-batched GEMM), at
    /// least 1.
    pub batches: usize,
    /// Elements between consecutive batches of A, B, C and D; `None`: each operand's matrices
    /// one after the other (its leading dimension times its outer extent).
    pub batch_strides: Option<[usize; 4]>,
    /// The bias added before the activation ([`BiasKind`]); the vector is given at the call.
    pub bias: BiasKind,
    /// The element-wise function applied last.
    pub activation: Activation,
}

pub use cute_rs_kernels::epilogue::{Activation, BiasKind};

/// Why a [`Gemm`] was not launched, or failed.
#[derive(Clone, Debug, PartialEq)]
pub enum GemmError {
    /// A buffer's length is not the one its shape needs.
    Shape {
        /// Which operand (`"A"`, `"B"`, `"C"`, `"D"`).
        operand: &'static str,
        /// Its shape as the problem says (`"M x K = 4 x 8"`).
        shape: String,
        /// Elements that shape needs.
        expected: usize,
        /// Elements the buffer has.
        got: usize,
    },
    /// A leading dimension shorter than the rows (or columns) it separates.
    LeadingDimension {
        /// Which operand (`"A"`, `"B"`).
        operand: &'static str,
        /// The leading dimension given.
        ld: usize,
        /// The contiguous extent it must reach (`"K = 8"`).
        extent: String,
    },
    /// The problem names a bias ([`BiasKind`]) but no bias vector was given.
    MissingBias,
    /// The batch count or batch strides cannot describe independent products (the condition is
    /// named).
    Batch(String),
    /// No kernel of the library computes this problem (the condition is named): fp8 inputs on a
    /// GPU without wgmma, a layout whose every mode is strided.
    NoKernel(String),
    /// `beta != 0` but no C was given.
    MissingC {
        /// The beta.
        beta: f32,
    },
    /// A dimension exceeds what the kernels index (32-bit extents, grid limits).
    TooLarge(String),
    /// The Hopper path ([`Gemm::run_sm90`]) does not take this problem (the condition is named).
    Unsupported(String),
    /// The launch (or finding the kernel) failed.
    Host(HostError),
}

impl fmt::Display for GemmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GemmError::Shape { operand, shape, expected, got } => {
                write!(f, "gemm: {operand} is {shape}, {expected} elements, but its buffer has {got}")
            }
            GemmError::LeadingDimension { operand, ld, extent } => {
                write!(f, "gemm: the leading dimension of {operand}, {ld}, is less than its rows' {extent}")
            }
            GemmError::MissingC { beta } => write!(f, "gemm: beta = {beta} but no C was given"),
            GemmError::MissingBias => write!(f, "gemm: the problem adds a bias but no bias vector was given"),
            GemmError::Batch(why) => write!(f, "gemm: batches: {why}"),
            GemmError::NoKernel(why) => write!(f, "gemm: no kernel computes this problem: {why}"),
            GemmError::TooLarge(why) => write!(f, "gemm: too large: {why}"),
            GemmError::Unsupported(why) => write!(f, "gemm: not on the Hopper path: {why}"),
            GemmError::Host(e) => write!(f, "gemm: {e}"),
        }
    }
}

impl std::error::Error for GemmError {}

impl From<HostError> for GemmError {
    fn from(e: HostError) -> GemmError {
        GemmError::Host(e)
    }
}

/// An element type A and B can have: [`bf16`] or [`f16`] (the `half` crate's, re-exported as
/// `cute_rs_tensor::half`), or `u16` holding bf16 bit patterns (as
/// [`f32_to_bf16`](cute_rs_tensor::device::numeric::f32_to_bf16) makes them; the same kernels as
/// [`bf16`]). A and B have the same type: `mma.sync` multiplies bf16 by bf16 or f16 by f16.
///
/// # Example
/// ```
/// use cute_rs_ops::gemm::GemmInput;
/// use cute_rs_tensor::half::{bf16, f16};
/// assert_eq!((bf16::KERNEL_NAME, f16::KERNEL_NAME, <u16 as GemmInput>::KERNEL_NAME), ("bf16", "f16", "bf16"));
/// assert_eq!(f16::from_f32(0.5).value(), 0.5);
/// assert_eq!(GemmInput::value(0x3fc0u16), 1.5); // bf16 bits
/// ```
pub trait GemmInput: DeviceElem {
    /// The input type's part of the kernel name (`gemm_<this>_...`).
    const KERNEL_NAME: &'static str;
    /// An 8-bit float (e4m3 or e5m2: the Hopper path only).
    const FP8: bool = false;
    /// `f32`: the f32 kernels, FFMA or tf32 as [`Matmul::f32_math`](crate::Matmul::f32_math)
    /// says.
    const F32: bool = false;
    /// The element's value (exact).
    fn value(self) -> f32;
}
impl GemmInput for bf16 {
    const KERNEL_NAME: &'static str = "bf16";
    fn value(self) -> f32 {
        self.to_f32()
    }
}
impl GemmInput for f16 {
    const KERNEL_NAME: &'static str = "f16";
    fn value(self) -> f32 {
        self.to_f32()
    }
}
/// bf16 bit patterns.
impl GemmInput for u16 {
    const KERNEL_NAME: &'static str = "bf16";
    fn value(self) -> f32 {
        bf16_to_f32(self)
    }
}
/// f32 inputs: multiplied by the f32 kernels (FFMA, or tf32 tensor-core products).
impl GemmInput for f32 {
    const KERNEL_NAME: &'static str = "f32";
    const F32: bool = true;
    fn value(self) -> f32 {
        self
    }
}
impl GemmInput for E4M3 {
    const KERNEL_NAME: &'static str = "e4m3";
    const FP8: bool = true;
    fn value(self) -> f32 {
        self.to_f32()
    }
}
impl GemmInput for E5M2 {
    const KERNEL_NAME: &'static str = "e5m2";
    const FP8: bool = true;
    fn value(self) -> f32 {
        self.to_f32()
    }
}

/// An element type D can have: `f32`, [`bf16`] or [`f16`] (rounded to nearest even from the f32
/// result; f16 overflows to infinity past 65504), or `u16` holding bf16 bits (the same kernels as
/// [`bf16`]).
///
/// # Example
/// ```
/// use cute_rs_ops::gemm::GemmOutput;
/// use cute_rs_tensor::half::{bf16, f16};
/// assert_eq!((<f32 as GemmOutput>::KERNEL_SUFFIX, bf16::KERNEL_SUFFIX, f16::KERNEL_SUFFIX), ("", "_obf16", "_of16"));
/// assert_eq!(<u16 as GemmOutput>::KERNEL_SUFFIX, "_obf16");
/// assert_eq!(GemmOutput::value(f16::from_f32(-2.0)), -2.0);
/// ```
pub trait GemmOutput: DeviceElem {
    /// Appended to the kernel name.
    const KERNEL_SUFFIX: &'static str;
    /// The element's value (exact), for checking results.
    fn value(self) -> f32;
}
impl GemmOutput for f32 {
    const KERNEL_SUFFIX: &'static str = "";
    fn value(self) -> f32 {
        self
    }
}
impl GemmOutput for bf16 {
    const KERNEL_SUFFIX: &'static str = "_obf16";
    fn value(self) -> f32 {
        self.to_f32()
    }
}
impl GemmOutput for f16 {
    const KERNEL_SUFFIX: &'static str = "_of16";
    fn value(self) -> f32 {
        self.to_f32()
    }
}
/// bf16 bit patterns.
impl GemmOutput for u16 {
    const KERNEL_SUFFIX: &'static str = "_obf16";
    fn value(self) -> f32 {
        bf16_to_f32(self)
    }
}

impl Gemm {
    /// An `M x N x K` problem, A and B row-major, `alpha = 1`, `beta = 0`.
    ///
    /// # Example
    /// ```
    /// let g = cute_rs_ops::gemm::Gemm::new(1, 2, 3);
    /// assert_eq!((g.alpha, g.beta), (1.0, 0.0));
    /// ```
    pub fn new(m: usize, n: usize, k: usize) -> Gemm {
        Gemm {
            m,
            n,
            k,
            a_major: Major::Row,
            b_major: Major::Row,
            alpha: 1.0,
            beta: 0.0,
            lda: None,
            ldb: None,
            ldc: None,
            ldd: None,
            batches: 1,
            batch_strides: None,
            bias: BiasKind::None,
            activation: Activation::Identity,
        }
    }

    /// The same problem with C's rows `ldc` elements apart.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(2, 3, 4).ldc(8).ldc, Some(8));
    /// ```
    pub fn ldc(self, ldc: usize) -> Gemm {
        Gemm { ldc: Some(ldc), ..self }
    }

    /// The same problem with D's rows `ldd` elements apart.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(2, 3, 4).ldd(8).ldd, Some(8));
    /// ```
    pub fn ldd(self, ldd: usize) -> Gemm {
        Gemm { ldd: Some(ldd), ..self }
    }

    /// `batches` products of this shape in one call, each operand's matrices one after the other
    /// unless [`batch_strides`](Gemm::batch_strides) says otherwise.
    ///
    /// # Example
    /// ```
    /// let g = cute_rs_ops::gemm::Gemm::new(2, 3, 4).batched(5);
    /// assert_eq!((g.batches, g.flops()), (5, 5.0 * 2.0 * 2.0 * 3.0 * 4.0));
    /// ```
    pub fn batched(self, batches: usize) -> Gemm {
        Gemm { batches, ..self }
    }

    /// The elements between consecutive batches of A, B, C and D.
    ///
    /// # Example
    /// ```
    /// let g = cute_rs_ops::gemm::Gemm::new(2, 3, 4).batched(2).batch_strides([8, 0, 6, 6]);
    /// assert_eq!(g.batch_strides, Some([8, 0, 6, 6]));
    /// ```
    pub fn batch_strides(self, strides: [usize; 4]) -> Gemm {
        Gemm { batch_strides: Some(strides), ..self }
    }

    /// The same problem with a bias of kind `bias` (its vector is given at the call).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{BiasKind, Gemm};
    /// assert_eq!(Gemm::new(2, 3, 4).bias(BiasKind::PerColumn).bias, BiasKind::PerColumn);
    /// ```
    pub fn bias(self, bias: BiasKind) -> Gemm {
        Gemm { bias, ..self }
    }

    /// The same problem with `activation` applied last.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Activation, Gemm};
    /// assert_eq!(Gemm::new(2, 3, 4).activation(Activation::Relu).activation, Activation::Relu);
    /// ```
    pub fn activation(self, activation: Activation) -> Gemm {
        Gemm { activation, ..self }
    }

    /// The leading dimensions of C and D (rows' pitch).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(2, 3, 4).ldd(5).ldcd(), (3, 5));
    /// ```
    pub fn ldcd(&self) -> (usize, usize) {
        (self.ldc.unwrap_or(self.n), self.ldd.unwrap_or(self.n))
    }

    /// The elements between consecutive batches of A, B, C and D: the given ones, or each
    /// operand's leading dimension times its outer extent.
    ///
    /// # Example
    /// ```
    /// let g = cute_rs_ops::gemm::Gemm::new(2, 3, 4).batched(2);
    /// assert_eq!(g.strides_of_batches(), [8, 12, 6, 6]);
    /// ```
    pub fn strides_of_batches(&self) -> [usize; 4] {
        self.batch_strides.unwrap_or_else(|| {
            let (lda, ldb) = self.lds();
            let (ldc, ldd) = self.ldcd();
            [lda * self.a_extents().1, ldb * self.b_extents().1, ldc * self.m, ldd * self.m]
        })
    }

    /// The epilogue's flags word for the kernels.
    pub(crate) fn flags(&self) -> u32 {
        cute_rs_kernels::epilogue::epilogue_flags(self.bias, self.activation)
    }

    /// The same problem with A stored `major`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, Major};
    /// assert_eq!(Gemm::new(1, 1, 1).a_major(Major::Col).a_major, Major::Col);
    /// ```
    pub fn a_major(self, major: Major) -> Gemm {
        Gemm { a_major: major, ..self }
    }

    /// The same problem with B stored `major`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, Major};
    /// assert_eq!(Gemm::new(1, 1, 1).b_major(Major::Col).b_major, Major::Col);
    /// ```
    pub fn b_major(self, major: Major) -> Gemm {
        Gemm { b_major: major, ..self }
    }

    /// The same problem with A read through leading dimension `lda` (a sub-matrix of a larger
    /// one): row `i` (row-major) or column `j` (column-major) starts `lda` elements after the
    /// previous one.
    ///
    /// # Example
    /// ```
    /// // A: the 4 x 8 top-left block of a row-major 4 x 64 matrix.
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(4, 4, 8).lda(64).lds(), (64, 4));
    /// ```
    pub fn lda(self, lda: usize) -> Gemm {
        Gemm { lda: Some(lda), ..self }
    }

    /// The same problem with B read through leading dimension `ldb` (see [`lda`](Gemm::lda)).
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(4, 4, 8).ldb(16).lds(), (8, 16));
    /// ```
    pub fn ldb(self, ldb: usize) -> Gemm {
        Gemm { ldb: Some(ldb), ..self }
    }

    /// The same problem with `alpha`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(1, 1, 1).alpha(2.0).alpha, 2.0);
    /// ```
    pub fn alpha(self, alpha: f32) -> Gemm {
        Gemm { alpha, ..self }
    }

    /// The same problem with `beta`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(1, 1, 1).beta(0.5).beta, 0.5);
    /// ```
    pub fn beta(self, beta: f32) -> Gemm {
        Gemm { beta, ..self }
    }

    /// Floating-point operations of `A * B` (`2 M N K` per batch), for TFLOP/s figures.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_ops::gemm::Gemm::new(2, 3, 4).flops(), 48.0);
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.batches.max(1) as f64
    }

    /// Leading dimensions of A and B (elements between consecutive rows, or columns).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, Major};
    /// assert_eq!(Gemm::new(5, 6, 7).lds(), (7, 6));
    /// assert_eq!(Gemm::new(5, 6, 7).a_major(Major::Col).b_major(Major::Col).lds(), (5, 7));
    /// ```
    pub fn lds(&self) -> (usize, usize) {
        (self.lda.unwrap_or(self.a_extents().0), self.ldb.unwrap_or(self.b_extents().0))
    }

    /// A's contiguous extent, the count of its rows (row-major: `K`, `M`) or columns, and the
    /// contiguous extent's name.
    fn a_extents(&self) -> (usize, usize, &'static str) {
        if self.a_major == Major::Row {
            (self.k, self.m, "K")
        } else {
            (self.m, self.k, "M")
        }
    }

    /// B's contiguous extent, the count of its rows (row-major: `N`, `K`) or columns, and the
    /// contiguous extent's name.
    fn b_extents(&self) -> (usize, usize, &'static str) {
        if self.b_major == Major::Row {
            (self.n, self.k, "N")
        } else {
            (self.k, self.n, "K")
        }
    }

    /// The name of the kernel [`run`](Gemm::run) launches for inputs `I` and output `O`, given
    /// whether A and B can be staged by 16-byte copies (`vec16`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, Major};
    /// use cute_rs_tensor::half::{bf16, f16};
    /// assert_eq!(Gemm::new(8, 8, 8).b_major(Major::Col).kernel_name::<bf16, f32>(true), "gemm_bf16_ar_bc_v16");
    /// assert_eq!(Gemm::new(8, 8, 8).kernel_name::<u16, u16>(false), "gemm_bf16_ar_br_obf16");
    /// assert_eq!(Gemm::new(8, 8, 8).a_major(Major::Col).kernel_name::<f16, f16>(true), "gemm_f16_ac_br_v16_of16");
    /// ```
    pub fn kernel_name<I: GemmInput, O: GemmOutput>(&self, vec16: bool) -> String {
        let index = self.mma_index(vec16);
        macro_rules! name {
            ($table:expr, $in:ty, $out:ty) => {
                $table[index].name()
            };
        }
        mma_kernels!(I, O, name).to_string()
    }

    /// The position of this problem's kernel in the tables of `cute_rs_kernels::gemm::by_type` (and
    /// `cute_rs_kernels::sgemm::by_math`): `4 * vec + 2 * (A column-major) + (B column-major)`.
    pub(crate) fn mma_index(&self, vec: bool) -> usize {
        4 * vec as usize + 2 * (self.a_major == Major::Col) as usize + (self.b_major == Major::Col) as usize
    }

    /// Checks the buffers against the problem (lengths, C present when `beta != 0`, sizes the
    /// kernels can index) without launching anything.
    ///
    /// A and B are bf16 bits for [`run`](Gemm::run), f32 for
    /// [`run_f32`](Gemm::run_f32) / [`run_tf32`](Gemm::run_tf32).
    ///
    /// # Errors
    /// [`GemmError::Shape`], [`GemmError::MissingC`], [`GemmError::TooLarge`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, GemmError};
    /// use cute_rs_tensor::half::f16;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let (a, b) = (gpu.alloc::<f16>(6)?, gpu.alloc::<f16>(12)?);
    /// let d = gpu.alloc::<f32>(8)?;
    /// assert!(Gemm::new(2, 4, 3).validate(&a, &b, None, &d).is_ok());
    /// let e = Gemm::new(2, 4, 4).validate(&a, &b, None, &d).unwrap_err();
    /// assert_eq!(e.to_string(), "gemm: A is M x K = 2 x 4, 8 elements, but its buffer has 6");
    /// assert_eq!(Gemm::new(2, 4, 3).beta(1.0).validate(&a, &b, None, &d), Err(GemmError::MissingC { beta: 1.0 }));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn validate<TA: DeviceElem, TB: DeviceElem, O: GemmOutput>(
        &self,
        a: &DeviceBuffer<TA>,
        b: &DeviceBuffer<TB>,
        c: Option<&DeviceBuffer<f32>>,
        d: &DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        let (m, n, k, l) = (self.m, self.n, self.k, self.batches);
        if l == 0 {
            return Err(GemmError::Batch("batches = 0: a call computes at least one product".to_string()));
        }
        let strides = self.strides_of_batches();
        // A packed operand (no leading dimension, no batch strides) is exactly its elements; one
        // read through strides needs its last element inside the buffer.
        let operand = |operand, ld: Option<usize>, (inner, outer, inner_name): (usize, usize, &str), (rows, cols, rn, cn), batch: usize, got: usize| {
            if let Some(ld) = ld {
                if ld < inner {
                    return Err(GemmError::LeadingDimension { operand, ld, extent: format!("{inner_name} = {inner}") });
                }
            }
            let shape = if l > 1 { format!("L x {rn} x {cn} = {l} x {rows} x {cols}") } else { format!("{rn} x {cn} = {rows} x {cols}") };
            if ld.is_none() && self.batch_strides.is_none() {
                let expected = l * rows * cols;
                if expected != got {
                    return Err(GemmError::Shape { operand, shape, expected, got });
                }
                return Ok(());
            }
            let ld = ld.unwrap_or(inner);
            let one = if outer == 0 || inner == 0 { 0 } else { (outer - 1) * ld + inner };
            let needed = if one == 0 { 0 } else { (l - 1) * batch + one };
            if got < needed {
                let shape = if l > 1 { format!("{shape} with leading dimension {ld}, batch stride {batch}") } else { format!("{shape} with leading dimension {ld}") };
                return Err(GemmError::Shape { operand, shape, expected: needed, got });
            }
            Ok(())
        };
        let (ldc, ldd) = (self.ldc, self.ldd);
        operand("A", self.lda, self.a_extents(), (m, k, "M", "K"), strides[0], a.len())?;
        operand("B", self.ldb, self.b_extents(), (k, n, "K", "N"), strides[1], b.len())?;
        operand("D", ldd, (n, m, "N"), (m, n, "M", "N"), strides[3], d.len())?;
        match c {
            Some(c) => operand("C", ldc, (n, m, "N"), (m, n, "M", "N"), strides[2], c.len())?,
            None if self.beta != 0.0 => return Err(GemmError::MissingC { beta: self.beta }),
            None => {}
        }
        // Batches of D may not overlap: each would overwrite another's.
        let d_extent = if m == 0 || n == 0 { 0 } else { (m - 1) * self.ldcd().1 + n };
        if l > 1 && strides[3] < d_extent {
            return Err(GemmError::Batch(format!(
                "D's batch stride {} is less than one batch's extent {d_extent}: the batches would overlap",
                strides[3]
            )));
        }
        // 32-bit extents in the kernels; the grid's y dimension (M tiles) is at most 65535.
        for (name, x) in [("M", m), ("N", n), ("K", k), ("L", l)] {
            if x > i32::MAX as usize {
                return Err(GemmError::TooLarge(format!("{name} = {x} exceeds 2^31 - 1")));
            }
        }
        for (name, x) in [("lda", self.lda), ("ldb", self.ldb), ("ldc", ldc), ("ldd", ldd)] {
            if let Some(x) = x.filter(|&x| x > u32::MAX as usize) {
                return Err(GemmError::TooLarge(format!("{name} = {x} exceeds 2^32 - 1")));
            }
        }
        if m.div_ceil(BM as usize) > 65535 {
            return Err(GemmError::TooLarge(format!("M = {m} needs more than 65535 blocks of {BM} rows")));
        }
        Ok(())
    }

    /// Checks the bias vector against the problem's [`BiasKind`]: present when one is named,
    /// holding `M` (per row) or `N` (per column) values.
    ///
    /// # Errors
    /// [`GemmError::MissingBias`], [`GemmError::Shape`] (operand `"bias"`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{BiasKind, Gemm, GemmError};
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let bias = gpu.alloc::<f32>(3)?;
    /// assert!(Gemm::new(2, 3, 4).bias(BiasKind::PerColumn).validate_bias(Some(&bias)).is_ok());
    /// let e = Gemm::new(4, 3, 4).bias(BiasKind::PerRow).validate_bias(Some(&bias)).unwrap_err();
    /// assert_eq!(e.to_string(), "gemm: bias is M = 4, 4 elements, but its buffer has 3");
    /// assert_eq!(Gemm::new(2, 3, 4).bias(BiasKind::PerRow).validate_bias(None), Err(GemmError::MissingBias));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn validate_bias(&self, bias: Option<&DeviceBuffer<f32>>) -> Result<(), GemmError> {
        let (name, len) = match self.bias {
            BiasKind::None => return Ok(()),
            BiasKind::PerRow => ("M", self.m),
            BiasKind::PerColumn => ("N", self.n),
        };
        let got = bias.ok_or(GemmError::MissingBias)?.len();
        if got < len {
            return Err(GemmError::Shape { operand: "bias", shape: format!("{name} = {len}"), expected: len, got });
        }
        Ok(())
    }

    /// Launches `D = alpha * A * B + beta * C` on `gpu`'s default stream, with the kernels of
    /// [`modules::gemm`](crate::modules::gemm) (loaded on first use and cached by the [`Gpu`]).
    ///
    /// `a` holds A (`M x K`) and `b` B (`K x N`), both bf16 or both f16 ([`GemmInput`]), stored as
    /// [`a_major`](Gemm::a_major) / [`b_major`](Gemm::b_major) say; `c` (f32, read only when
    /// `beta != 0`) and `d` (f32, bf16 or f16: [`GemmOutput`]) are row-major `M x N`. `c` must not
    /// be `d` (Rust's borrows see to it).
    ///
    /// # Errors
    /// Those of [`validate`](Gemm::validate), then [`GemmError::Host`] if the module does not
    /// load or the launch fails.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::Gemm;
    /// use cute_rs_tensor::half::{bf16, f16};
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// // 1 x 3 times 3 x 1: a dot product.
    /// let a = gpu.upload(&[1.0f32, 2.0, 3.0].map(bf16::from_f32))?;
    /// let b = gpu.upload(&[4.0f32, 5.0, 6.0].map(bf16::from_f32))?;
    /// let mut d = gpu.alloc::<f32>(1)?;
    /// Gemm::new(1, 1, 3).run(&gpu, &a, &b, None, &mut d)?;
    /// assert_eq!(gpu.download(&d)?, [32.0]);
    /// // f16 inputs, bf16 output.
    /// let a = gpu.upload(&[0.5f32, 0.25, 2.0].map(f16::from_f32))?;
    /// let mut d = gpu.alloc::<bf16>(1)?;
    /// Gemm::new(1, 1, 3).run(&gpu, &a, &a, None, &mut d)?;
    /// assert_eq!(gpu.download(&d)?, [bf16::from_f32(4.3125)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        self.launch(gpu, None, a, b, c, None, d)
    }

    /// [`run`](Gemm::run) on `stream` instead of the GPU's default stream (as
    /// [`Launch::on`](cute_rs_host::Launch::on)): GEMMs on different streams may overlap.
    ///
    /// The streams of [`Gpu::create_stream`] do not wait for the default stream, nor it for them:
    /// - [`Gpu::upload`] and [`Gpu::write`] return once their copy is done, but [`Gpu::memset`],
    ///   [`Gpu::copy`] and launches on the default stream are asynchronous: if they prepared A, B,
    ///   C or D, call [`Gpu::synchronize`] before `run_on`;
    /// - [`Gpu::download`] waits for the default stream only: call [`Stream::synchronize`] before
    ///   reading D (or before anything on the default stream uses it).
    ///
    /// # Errors
    /// Those of [`run`](Gemm::run).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::Gemm;
    /// use cute_rs_tensor::half::f16;
    /// let gpu = cute_rs_host::Gpu::cpu(); // on the CPU backend a stream orders nothing more: all is synchronous
    /// let stream = gpu.create_stream()?;
    /// let a = gpu.upload(&[1.0f32, 2.0, 3.0].map(f16::from_f32))?;
    /// let mut d = gpu.alloc::<f16>(1)?;
    /// Gemm::new(1, 1, 3).run_on(&gpu, &stream, &a, &a, None, &mut d)?;
    /// stream.synchronize()?;
    /// assert_eq!(gpu.download(&d)?, [f16::from_f32(14.0)]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn run_on<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        stream: &Stream,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        self.launch(gpu, Some(stream), a, b, c, None, d)
    }

    /// [`run`](Gemm::run) and [`run_on`](Gemm::run_on): on `stream`, or the default one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        bias: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        self.validate(a, b, c, d)?;
        self.validate_bias(bias)?;
        if I::FP8 {
            return Err(GemmError::NoKernel(format!("{} inputs: only the Hopper path (wgmma) multiplies fp8", I::KERNEL_NAME)));
        }
        if I::F32 {
            return Err(GemmError::NoKernel("f32 inputs: the f32 kernels (Matmul with f32 tensors, or run_f32_math)".to_string()));
        }
        if self.m == 0 || self.n == 0 {
            return Ok(());
        }
        let (lda, ldb) = self.lds();
        let (ldc, ldd) = self.ldcd();
        let strides = self.strides_of_batches();
        // 16-byte cp.async needs every chunk of 8 elements 16-byte aligned in global memory, in
        // every batch.
        let aligned = |ptr: u64, ld: usize, batch: usize| ptr % 16 == 0 && ld % 8 == 0 && (self.batches == 1 || batch % 8 == 0);
        let vec16 = aligned(a.device_ptr(), lda, strides[0]) && aligned(b.device_ptr(), ldb, strides[1]);
        let module = gpu.module(crate::modules::gemm())?;
        let index = self.mma_index(vec16);
        let cfg = LaunchConfig {
            grid: (self.n.div_ceil(BN as usize) as u32, self.m.div_ceil(BM as usize) as u32, 1),
            block: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (m, n, k) = (self.m as u32, self.n as u32, self.k as u32);
        let lds = (lda as u32, ldb as u32, ldc as u32, ldd as u32);
        // The buffers were checked against the problem by `validate`: raw pointers to them, typed
        // as the kernel's parameters. Without C (beta = 0) or a bias the kernel never reads their
        // pointers: pass D's, a valid address.
        let c_ptr = c.map_or(d.device_ptr(), |c| c.device_ptr());
        let bias_ptr = bias.map_or(d.device_ptr(), |b| b.device_ptr()) as *const f32;
        let (a_ptr, b_ptr, d_ptr) = (a.device_ptr(), b.device_ptr(), d.device_ptr());
        let epilogue = EpilogueOp { alpha: self.alpha, beta: self.beta, bias: bias_ptr, flags: self.flags() };
        // One launch per batch, each at its matrices (the portable path's batches are for
        // correctness everywhere; the Hopper path takes them in one persistent launch).
        for l in 0..self.batches {
            let at = |ptr: u64, stride: usize, bytes: usize| ptr + (l * stride * bytes) as u64;
            let bytes = std::mem::size_of::<I>();
            let (a_l, b_l) = (at(a_ptr, strides[0], bytes), at(b_ptr, strides[1], bytes));
            let (c_l, d_l) = (at(c_ptr, strides[2], 4) as *const f32, at(d_ptr, strides[3], std::mem::size_of::<O>()));
            macro_rules! launch {
                ($table:expr, $in:ty, $out:ty) => {{
                    let (lda, ldb, ldc, ldd) = lds;
                    let params = GemmParams { a: a_l as *const $in, b: b_l as *const $in, c: c_l, d: d_l as *mut $out, m, n, k, lda, ldb, ldc, ldd, epilogue };
                    let launch = gpu.launch(&module, $table[index], cfg, (params,));
                    // SAFETY: the buffers hold the elements the shapes, leading dimensions and
                    // batch strides need (validated above); the kernel reads A, B (C when
                    // beta != 0, the bias when the flags name one) within them and writes D
                    // within it.
                    unsafe { on(launch, stream).run() }
                }};
            }
            mma_kernels!(I, O, launch)?;
        }
        Ok(())
    }

    /// The Hopper path: `D = alpha * A * B + beta * C` with the persistent warp-specialized TMA +
    /// wgmma kernels of [`modules::gemm_sm90a`](crate::modules::gemm_sm90a) (128 x 256 tiles, a producer
    /// and two consumer warpgroups, a 4-stage ring, 16-bit D stored through `stmatrix` and TMA):
    /// bf16 or f16 A and B in either storage order, f32, bf16 or f16 D, on `gpu`'s default stream.
    /// The module ([`modules::gemm_sm90a`](crate::modules::gemm_sm90a)) loads on first use. Like [`run`](Gemm::run) it
    /// returns once the kernel is launched: the tensor maps of A, B and D travel by value in the
    /// launch's parameters (CUDA's `__grid_constant__`), so a call allocates nothing on the GPU and
    /// never waits; a download or [`Gpu::synchronize`] waits for it.
    ///
    /// # Errors
    /// Those of [`validate`](Gemm::validate); [`GemmError::Unsupported`] naming the condition when
    /// TMA cannot read an operand (each operand's contiguous extent, and N for a 16-bit D, must be
    /// a multiple of 8 elements: 16-byte rows; buffers 16-byte aligned), when `K = 0`, or on the CPU
    /// backend (wgmma is GPU-only); [`GemmError::Host`] for the tensor maps and the launch.
    /// [`run_auto`](Gemm::run_auto) falls back to the portable kernels in those cases.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, GemmError};
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let (a, b) = (gpu.alloc::<u16>(16 * 12)?, gpu.alloc::<u16>(12 * 16)?);
    /// let mut d = gpu.alloc::<f32>(16 * 16)?;
    /// // K = 12: A's rows (row-major, K contiguous) are 24 bytes, not a multiple of 16.
    /// let e = Gemm::new(16, 16, 12).run_sm90(&gpu, &a, &b, None, &mut d).unwrap_err();
    /// assert!(e.to_string().contains("K = 12 is not a multiple of 8"), "{e}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_sm90<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        self.sm90(gpu, None, a, b, c, d)
    }

    /// [`run_sm90`](Gemm::run_sm90) on `stream` instead of the GPU's default stream; the ordering
    /// with the default stream is as for [`run_on`](Gemm::run_on). It returns once the kernel is
    /// launched ([`Stream::synchronize`] before reading D), and can be captured in a CUDA graph.
    ///
    /// # Errors
    /// Those of [`run_sm90`](Gemm::run_sm90).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, GemmError};
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let stream = gpu.create_stream()?;
    /// let (a, b) = (gpu.alloc::<u16>(16 * 8)?, gpu.alloc::<u16>(8 * 16)?);
    /// let mut d = gpu.alloc::<f32>(16 * 16)?;
    /// let g = Gemm::new(16, 16, 8).b_major(cute_rs_ops::gemm::Major::Col);
    /// // Valid operands, but the CPU backend cannot run wgmma:
    /// let e = g.run_sm90_on(&gpu, &stream, &a, &b, None, &mut d).unwrap_err();
    /// assert!(matches!(e, GemmError::Unsupported(ref why) if why.contains("CPU backend")), "{e}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn run_sm90_on<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        stream: &Stream,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        self.sm90(gpu, Some(stream), a, b, c, d)
    }

    /// The Hopper path's view of this problem for inputs `I` and D `O`.
    fn hopper<I: GemmInput, O: GemmOutput>(&self) -> HopperGemm {
        HopperGemm::new(*self, HopperIn::of_type::<I>(), HopperOut::of::<O>())
    }

    /// Why the Hopper path cannot take this problem with these buffers (see
    /// [`run_sm90`](Gemm::run_sm90)), if it cannot; `None` when it can.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, Major};
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let (a, b) = (gpu.alloc::<u16>(64 * 64)?, gpu.alloc::<u16>(64 * 64)?);
    /// let d = gpu.alloc::<f32>(64 * 64)?;
    /// let why = Gemm::new(64, 64, 64).a_major(Major::Col).sm90_unsupported(&gpu, &a, &b, &d).unwrap();
    /// assert!(why.contains("CPU backend"), "{why}");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn sm90_unsupported<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        d: &DeviceBuffer<O>,
    ) -> Option<String> {
        hopper_unsupported(&self.hopper::<I, O>(), gpu, [a.device_ptr(), b.device_ptr(), d.device_ptr()])
    }

    /// [`run_sm90`](Gemm::run_sm90) and [`run_sm90_on`](Gemm::run_sm90_on): on `stream`, or the
    /// default one.
    #[allow(clippy::too_many_arguments)]
    fn sm90<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<(), GemmError> {
        self.validate(a, b, c, d)?;
        self.validate_bias(None)?;
        run_hopper(&self.hopper::<I, O>(), gpu, stream, a, b, (c, None), d)
    }

    /// `D = alpha * A * B + beta * C` on the fastest path that takes the problem: the Hopper
    /// kernels ([`run_sm90`](Gemm::run_sm90)) on an sm_90 GPU when
    /// [`sm90_unsupported`](Gemm::sm90_unsupported) finds nothing against it, else the portable
    /// `mma.sync` kernels ([`run`](Gemm::run), any shape, also on the CPU backend). Returns the
    /// path taken.
    ///
    /// # Errors
    /// Those of [`run`](Gemm::run) and [`run_sm90`](Gemm::run_sm90).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, GemmPath};
    /// use cute_rs_tensor::half::bf16;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let a = gpu.upload(&[1.0f32, 2.0, 3.0].map(bf16::from_f32))?;
    /// let b = gpu.upload(&[4.0f32, 5.0, 6.0].map(bf16::from_f32))?;
    /// let mut d = gpu.alloc::<f32>(1)?;
    /// let path = Gemm::new(1, 1, 3).run_auto(&gpu, &a, &b, None, &mut d)?;
    /// assert_eq!((path, gpu.download(&d)?[0]), (GemmPath::MmaSync, 32.0)); // no wgmma on the CPU
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_auto<I: GemmInput, O: GemmOutput>(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<I>,
        b: &DeviceBuffer<I>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<O>,
    ) -> Result<GemmPath, GemmError> {
        let hopper = !gpu.is_cpu() && gpu.properties().compute_capability == (9, 0);
        if hopper && self.sm90_unsupported(gpu, a, b, d).is_none() {
            self.run_sm90(gpu, a, b, c, d)?;
            Ok(GemmPath::Sm90)
        } else {
            self.run(gpu, a, b, c, d)?;
            Ok(GemmPath::MmaSync)
        }
    }
}

/// The kernels a [`Matmul`](crate::Matmul) ran (or is asked to run, [`Matmul::path`](crate::Matmul::path)).
///
/// # Example
/// ```
/// use cute_rs_ops::GemmPath;
/// assert_ne!(GemmPath::Sm90, GemmPath::MmaSync);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmPath {
    /// The Hopper kernels (TMA + wgmma, sm_90a).
    Sm90,
    /// The portable kernels, any GPU from sm_80 and the CPU backend: `mma.sync` (and, for f32
    /// inputs, FFMA or `mma.sync` tf32 as [`F32Math`](crate::F32Math) says).
    MmaSync,
}

/// Why the Hopper entry of `h` cannot run with buffers at `ptrs` (A, B, D) on `gpu`, if it cannot.
pub(crate) fn hopper_unsupported(h: &HopperGemm, gpu: &Gpu, ptrs: [u64; 3]) -> Option<String> {
    if let Some(why) = h.unsupported() {
        return Some(why);
    }
    if ptrs.iter().any(|p| !p.is_multiple_of(16)) {
        return Some("A, B and D must be 16-byte aligned (TMA)".to_string());
    }
    if gpu.is_cpu() {
        return Some("the CPU backend has no wgmma".to_string());
    }
    let (major, minor) = gpu.properties().compute_capability;
    if (major, minor) != (9, 0) {
        return Some(format!("wgmma needs an sm_90 GPU (this one is sm_{major}{minor})"));
    }
    None
}

/// Runs the Hopper entry of `h` on validated buffers, or says why it cannot.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_hopper<IA: DeviceElem, IB: DeviceElem, O: DeviceElem>(
    h: &HopperGemm,
    gpu: &Gpu,
    stream: Option<&Stream>,
    a: &DeviceBuffer<IA>,
    b: &DeviceBuffer<IB>,
    (c, bias): (Option<&DeviceBuffer<f32>>, Option<&DeviceBuffer<f32>>),
    d: &DeviceBuffer<O>,
) -> Result<(), GemmError> {
    if let Some(why) = hopper_unsupported(h, gpu, [a.device_ptr(), b.device_ptr(), d.device_ptr()]) {
        return Err(GemmError::Unsupported(why));
    }
    if h.g.m == 0 || h.g.n == 0 {
        return Ok(());
    }
    // SAFETY: validated shapes, strides and alignment, a supported problem; the tensor maps are
    // copied into the launch's parameters, the buffers outlive the call as for any launch.
    unsafe { h.launch(gpu, stream, a, b, c, bias, d) }?;
    Ok(())
}

/// `launch` on `stream`, or on the GPU's own stream.
pub(crate) fn on<'a>(launch: Launch<'a>, stream: Option<&'a Stream>) -> Launch<'a> {
    match stream {
        Some(s) => launch.on(s),
        None => launch,
    }
}
