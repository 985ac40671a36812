//! Ready-made GPU operations written with cute-rs: the GEMM ([`Matmul`]) and the fused attention
//! forward ([`Attention`]), on device tensors with layouts.
//!
//! The kernels come prebuilt inside the package (PTX and cubins for `sm_90a` and `sm_90`, see
//! [`modules`]), so a crate that depends on this one builds on stable Rust with no CUDA toolkit,
//! no nightly toolchain and no `ptxas`, and its first call on an H100/H200 loads a cubin instead
//! of compiling PTX. Without a GPU the same calls run on the CPU backend
//! ([`Gpu::cpu`](cute_rs_host::Gpu::cpu)).
//!
//! - [`matmul`]: `D = act(alpha * A B + beta * C + bias)`; the layouts of A, B, C and D pick the
//!   kernel (Hopper TMA + wgmma on sm_90, `mma.sync` elsewhere and on the CPU backend).
//! - [`attention`]: `O = softmax(scale * Q K^T + mask) V` with the log-sum-exp, causal masks and
//!   grouped-query heads.
//! - [`gemm`]: the GEMM's element types, epilogue ([`Activation`], [`BiasKind`]), errors and paths.
//!
//! # Example
//! ```
//! use cute_rs_host::Gpu;
//! use cute_rs_layout::Layout;
//! use cute_rs_ops::Matmul;
//! use cute_rs_tensor::half::bf16;
//!
//! let gpu = Gpu::gpu_or_cpu()?; // the first GPU, else the CPU backend
//! // D (2 x 2, f32) = A (2 x 3, row-major) B (3 x 2, column-major).
//! let a = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].map(bf16::from_f32))?;
//! let b = gpu.upload(&[1.0f32, 0.0, 0.0, 0.0, 1.0, 0.0].map(bf16::from_f32))?;
//! let mut d = gpu.alloc::<f32>(4)?;
//! Matmul::new().run(
//!     &gpu,
//!     a.tensor(Layout::parse("(2,3):(3,1)")?)?,
//!     b.tensor(Layout::parse("(3,2):(1,3)")?)?,
//!     None,
//!     d.tensor_mut(Layout::parse("(2,2):(2,1)")?)?,
//! )?;
//! assert_eq!(gpu.download(&d)?, [1.0, 2.0, 4.0, 5.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod attention;
pub mod attention_backward;
mod attention_kernels;
pub mod gemm;
#[doc(hidden)]
pub mod gemm_f32;
/// The Hopper GEMM's launch plan (tile shapes, tensor maps, split-K), which the GPU suite of the
/// repository drives directly to measure the kernels' variants: not a stable interface.
#[doc(hidden)]
pub mod gemm_hopper;
pub mod matmul;
pub mod modules;
pub mod tensor_parallel;

pub use attention::{Attention, AttentionError, AttentionPath};
pub use gemm::{Activation, BiasKind, GemmError, GemmPath};
pub use gemm_f32::F32Math;
pub use matmul::Matmul;
