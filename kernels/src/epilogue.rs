//! The fused epilogue of the GEMM kernels: what becomes of an accumulator between the main loop
//! and D, `D = act(alpha * acc + beta * C + bias)` ([`EpilogueOp`]). Both kernel families (the
//! `mma.sync` kernels of [`crate::gemm`] and the Hopper kernels of `gemm_sm90`) apply the same
//! operation, so the host's GEMM API gives the same answer on either path.
//!
//! The operation travels in a launch as four scalars (alpha, beta, the bias pointer and
//! [`epilogue_flags`]'s word), so that one entry serves every bias and activation: the choice is a
//! uniform branch in the epilogue, not another kernel.
//!
//! # Example
//! ```
//! use cute_rs_kernels::epilogue::{epilogue_flags, Activation, BiasKind, EpilogueOp};
//! let bias = [10.0f32, 20.0];
//! let op = EpilogueOp { alpha: 2.0, beta: 0.5, bias: bias.as_ptr(), flags: epilogue_flags(BiasKind::PerColumn, Activation::Relu) };
//! // Row 0, column 1: relu(2 * 3 + 0.5 * 4 + bias[1]) = 28.
//! assert_eq!(unsafe { op.apply(3.0, 0, 1, || 4.0) }, 28.0);
//! // The ReLU clips a negative value to 0.
//! assert_eq!(unsafe { op.apply(-30.0, 0, 0, || 0.0) }, 0.0);
//! assert!(!op.is_identity() && EpilogueOp::IDENTITY.is_identity());
//! ```

use cute_rs_tensor::device::math::{max, tanh_approx};

/// Which bias vector is added before the activation.
///
/// # Example
/// ```
/// use cute_rs_kernels::epilogue::BiasKind;
/// assert_eq!(BiasKind::PerRow as u32, 1);
/// ```
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BiasKind {
    /// No bias.
    None = 0,
    /// `bias[row]`: one value per row of D (`M` values).
    PerRow = 1,
    /// `bias[column]`: one value per column of D (`N` values), as in a linear layer's
    /// `x W^T + b`.
    PerColumn = 2,
}

/// The element-wise function applied last.
///
/// GELU and SiLU use the GPU's `tanh.approx` (relative error at most 2^-11, one instruction: an
/// epilogue applies it to every element of D); the CPU backend's is the accurate `tanh`.
///
/// # Example
/// ```
/// use cute_rs_kernels::epilogue::Activation;
/// assert_eq!(Activation::Relu.apply(-1.0), 0.0);
/// assert!((Activation::Gelu.apply(1.0) - 0.841192).abs() < 1e-6);
/// assert!((Activation::Silu.apply(1.0) - 0.731059).abs() < 1e-6);
/// ```
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// `x`.
    Identity = 0,
    /// `max(x, 0)`.
    Relu = 1,
    /// GELU in its tanh form, `x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`: cuBLASLt's
    /// `CUBLASLT_EPILOGUE_GELU` and PyTorch's `gelu(approximate="tanh")`.
    Gelu = 2,
    /// SiLU (swish), `x / (1 + e^-x)`, computed as `x/2 (1 + tanh(x/2))`.
    Silu = 3,
}

impl Activation {
    /// Every activation, in the order of their codes.
    pub const ALL: [Activation; 4] = [Activation::Identity, Activation::Relu, Activation::Gelu, Activation::Silu];

    /// The activation of code `code` (the flags word shifted right by 2), `Identity` for an
    /// unknown one.
    ///
    /// # Example
    /// ```
    /// use cute_rs_kernels::epilogue::Activation;
    /// assert_eq!(Activation::from_code(3), Activation::Silu);
    /// ```
    #[inline(always)]
    pub const fn from_code(code: u32) -> Activation {
        match code {
            1 => Activation::Relu,
            2 => Activation::Gelu,
            3 => Activation::Silu,
            _ => Activation::Identity,
        }
    }

    /// The activation of `x`.
    #[inline(always)]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::Identity => x,
            Activation::Relu => max(x, 0.0),
            Activation::Gelu => 0.5 * x * (1.0 + tanh_approx(0.797_884_6 * (x + 0.044_715 * x * x * x))),
            Activation::Silu => 0.5 * x * (1.0 + tanh_approx(0.5 * x)),
        }
    }
}

/// The flags word of a launch: the bias kind in bits 0-1, the activation from bit 2.
///
/// # Example
/// ```
/// use cute_rs_kernels::epilogue::{epilogue_flags, Activation, BiasKind};
/// assert_eq!(epilogue_flags(BiasKind::None, Activation::Identity), 0);
/// assert_eq!(epilogue_flags(BiasKind::PerColumn, Activation::Gelu), 2 | 2 << 2);
/// ```
pub const fn epilogue_flags(bias: BiasKind, act: Activation) -> u32 {
    bias as u32 | (act as u32) << 2
}

/// `D = act(alpha * acc + beta * C + bias)` for one accumulator; a part of the GEMM entries'
/// parameter structs.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EpilogueOp {
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of C (C is not read when 0).
    pub beta: f32,
    /// The bias vector (read only when the flags name one).
    pub bias: *const f32,
    /// [`epilogue_flags`]: bias kind and activation.
    pub flags: u32,
}

// SAFETY: `#[repr(C)]`: scalars and a raw pointer.
unsafe impl cute_rs_tensor::kernel::KernelValue for EpilogueOp {}

impl EpilogueOp {
    /// `D = acc`.
    pub const IDENTITY: EpilogueOp = EpilogueOp { alpha: 1.0, beta: 0.0, bias: core::ptr::null(), flags: 0 };

    /// Whether the operation leaves the accumulators as they are (the epilogue can skip it).
    #[inline(always)]
    pub fn is_identity(&self) -> bool {
        self.alpha == 1.0 && self.beta == 0.0 && self.flags == 0
    }

    /// The bias kind of the flags.
    ///
    /// # Example
    /// ```
    /// use cute_rs_kernels::epilogue::{epilogue_flags, Activation, BiasKind, EpilogueOp};
    /// let op = EpilogueOp { flags: epilogue_flags(BiasKind::PerColumn, Activation::Relu), ..EpilogueOp::IDENTITY };
    /// assert_eq!(op.bias_kind(), BiasKind::PerColumn);
    /// ```
    #[inline(always)]
    pub fn bias_kind(&self) -> BiasKind {
        match self.flags & 3 {
            1 => BiasKind::PerRow,
            2 => BiasKind::PerColumn,
            _ => BiasKind::None,
        }
    }

    /// The activation of the flags.
    #[inline(always)]
    pub fn activation(&self) -> Activation {
        Activation::from_code(self.flags >> 2)
    }

    /// The value of D at `(row, col)` for accumulator `acc`; `c()` reads C there (called only
    /// when `beta != 0`).
    ///
    /// # Safety
    /// The bias the flags name holds `row` (per row) or `col` (per column).
    #[inline(always)]
    pub unsafe fn apply(&self, acc: f32, row: usize, col: usize, c: impl FnOnce() -> f32) -> f32 {
        self.activation().apply(unsafe { self.affine(acc, row, col, c) })
    }

    /// [`apply`](Self::apply) without the activation, `alpha * acc + beta * C + bias`: a kernel
    /// applying it to many accumulators applies the activation after, in a loop of its own per
    /// activation (one branch, not one per value).
    ///
    /// # Safety
    /// As for [`apply`](Self::apply).
    #[inline(always)]
    pub unsafe fn affine(&self, acc: f32, row: usize, col: usize, c: impl FnOnce() -> f32) -> f32 {
        let mut y = self.alpha * acc;
        if self.beta != 0.0 {
            y += self.beta * c();
        }
        match self.flags & 3 {
            1 => y += unsafe { *self.bias.add(row) },
            2 => y += unsafe { *self.bias.add(col) },
            _ => {}
        }
        y
    }
}
