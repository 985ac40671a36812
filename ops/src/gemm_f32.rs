//! f32 GEMM on the GPU (or the CPU backend): [`Gemm::run_f32`] on the CUDA cores (FFMA, f32
//! arithmetic throughout) and [`Gemm::run_tf32`] on the tensor cores (`mma.sync.m16n8k8` tf32:
//! A and B rounded to tf32, f32 accumulation). Both compute `D = alpha * A * B + beta * C` with f32
//! A (`M x K`) and B (`K x N`), each row- or column-major as the [`Gemm`] says, and row-major f32 C
//! and D, for any `M`, `N`, `K`; the problem and its validation are those of [`Gemm::run`].
//!
//! The kernels are in `kernels/src/sgemm.rs` (module [`cute_rs_kernels::sgemm`]): 128 x 128 block tiles;
//! for FFMA double-buffered shared tiles filled by register prefetch, for tf32 a 4-stage `cp.async`
//! ring in 80 KiB of dynamic shared memory; 16-byte global accesses when both leading dimensions
//! are multiples of 4 elements and A and B start 16-byte aligned (element-wise otherwise: correct
//! for any shape, slower).
//!
//! # Example
//! ```
//! use cute_rs_ops::gemm::{Gemm, Major};
//!
//! let gpu = cute_rs_host::Gpu::cpu(); // or cute_rs_host::Gpu::new(0)? on a machine with a GPU
//! // A = [[1, 2], [3, 4]] (row-major), B = [[1, 0], [0.5, 1]] stored column-major, C = all ones.
//! let a = gpu.upload(&[1.0f32, 2.0, 3.0, 4.0])?;
//! let b = gpu.upload(&[1.0f32, 0.5, 0.0, 1.0])?;
//! let c = gpu.upload(&[1.0f32; 4])?;
//! let mut d = gpu.alloc::<f32>(4)?;
//! let g = Gemm::new(2, 2, 2).b_major(Major::Col).alpha(2.0).beta(-1.0);
//! g.run_f32(&gpu, &a, &b, Some(&c), &mut d)?;
//! assert_eq!(gpu.download(&d)?, [3.0, 3.0, 9.0, 7.0]);
//! // These values are exact in tf32 too.
//! g.run_tf32(&gpu, &a, &b, Some(&c), &mut d)?;
//! assert_eq!(gpu.download(&d)?, [3.0, 3.0, 9.0, 7.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use cute_rs_host::{DeviceBuffer, Gpu, LaunchConfig, Stream};
use cute_rs_kernels::sgemm::{BM, BN, TF32_SMEM_BYTES, THREADS};

use crate::gemm::{run_hopper, Activation, BiasKind, Gemm, GemmError};
use crate::gemm_hopper::{HopperGemm, HopperIn, HopperOut};

/// The arithmetic of an f32 GEMM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum F32Math {
    /// f32 fused multiply-adds on the CUDA cores ([`Gemm::run_f32`]).
    Ffma,
    /// tf32 tensor-core products, f32 accumulation ([`Gemm::run_tf32`]).
    Tf32,
}

impl Gemm {
    /// The name of the kernel [`run_f32`](Gemm::run_f32) (`F32Math::Ffma`) or
    /// [`run_tf32`](Gemm::run_tf32) (`F32Math::Tf32`) launches, given whether A and B can be read
    /// by 128-bit loads (`vec4`).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, Major};
    /// use cute_rs_ops::gemm_f32::F32Math;
    /// let g = Gemm::new(8, 8, 8).a_major(Major::Col);
    /// assert_eq!(g.f32_kernel_name(F32Math::Ffma, true), "sgemm_f32_ac_br_v4");
    /// assert_eq!(g.f32_kernel_name(F32Math::Tf32, false), "sgemm_tf32_ac_br");
    /// ```
    pub fn f32_kernel_name(&self, math: F32Math, vec4: bool) -> String {
        self.f32_kernel(math, vec4).name().to_string()
    }

    /// The kernel of [`f32_kernel_name`](Gemm::f32_kernel_name).
    fn f32_kernel(&self, math: F32Math, vec4: bool) -> cute_rs_host::KernelFn<cute_rs_kernels::sgemm::by_math::Params> {
        match math {
            F32Math::Ffma => cute_rs_kernels::sgemm::by_math::FFMA[self.mma_index(vec4)],
            F32Math::Tf32 => cute_rs_kernels::sgemm::by_math::TF32[self.mma_index(vec4)],
        }
    }

    /// Launches `D = alpha * A * B + beta * C` in f32 on the CUDA cores (FFMA) on `gpu`'s default
    /// stream, with the kernels of [`modules::gemm`](crate::modules::gemm) (loaded on first use).
    ///
    /// `a` holds A (`M x K`) and `b` B (`K x N`), stored as [`a_major`](Gemm::a_major) /
    /// [`b_major`](Gemm::b_major) say; `c` (read only when `beta != 0`) and `d` are row-major
    /// `M x N`. `K = 0` gives `D = beta * C`; `M = 0` or `N = 0` launches nothing.
    ///
    /// # Errors
    /// Those of [`validate`](Gemm::validate) ([`GemmError::Shape`] naming the operand and its
    /// shape, [`GemmError::MissingC`], [`GemmError::TooLarge`]), then [`GemmError::Host`] if the
    /// module does not load or the launch fails.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::Gemm;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// // 1 x 3 times 3 x 1: a dot product.
    /// let a = gpu.upload(&[1.0f32, 2.0, 3.0])?;
    /// let b = gpu.upload(&[4.0f32, 5.0, 6.0])?;
    /// let mut d = gpu.alloc::<f32>(1)?;
    /// Gemm::new(1, 1, 3).run_f32(&gpu, &a, &b, None, &mut d)?;
    /// assert_eq!(gpu.download(&d)?, [32.0]);
    /// // A 2 x 3 buffer for a 1 x 3 A is refused, naming A's shape:
    /// let a2 = gpu.upload(&[0.0f32; 6])?;
    /// let e = Gemm::new(1, 1, 3).run_f32(&gpu, &a2, &b, None, &mut d).unwrap_err();
    /// assert_eq!(e.to_string(), "gemm: A is M x K = 1 x 3, 3 elements, but its buffer has 6");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_f32(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<f32>,
    ) -> Result<(), GemmError> {
        self.run_f32_math(F32Math::Ffma, gpu, a, b, c, d)
    }

    /// [`run_f32`](Gemm::run_f32) on the tensor cores: each element of A and B is rounded to tf32
    /// (10 mantissa bits, to nearest, ties away from zero:
    /// [`f32_to_tf32`](cute_rs_tensor::device::numeric::f32_to_tf32)) and the products, exact in
    /// f32, are summed in f32 by `mma.sync.m16n8k8` (sm_80+; the CPU backend models it). The relative error of each
    /// product is up to about `2^-10`: use it where that is acceptable.
    ///
    /// # Errors
    /// Those of [`run_f32`](Gemm::run_f32).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::Gemm;
    /// use cute_rs_tensor::device::numeric::f32_to_tf32;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let x = 1.0f32 + 1.0 / 4096.0; // not a tf32 value: rounds to 1
    /// let (a, b) = (gpu.upload(&[x])?, gpu.upload(&[3.0f32])?);
    /// let mut d = gpu.alloc::<f32>(1)?;
    /// Gemm::new(1, 1, 1).run_tf32(&gpu, &a, &b, None, &mut d)?;
    /// assert_eq!(gpu.download(&d)?, [f32_to_tf32(x) * 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_tf32(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<f32>,
    ) -> Result<(), GemmError> {
        self.run_f32_math(F32Math::Tf32, gpu, a, b, c, d)
    }

    /// [`run_tf32`](Gemm::run_tf32) on the Hopper path (the persistent TMA + wgmma kernel of
    /// [`modules::gemm_sm90a`](crate::modules::gemm_sm90a), `wgmma ... k8.f32.tf32.tf32`): A row-major and
    /// B column-major (wgmma reads tf32 operands K-major only), K a multiple of 4 (16-byte TMA
    /// rows). The tensor cores use the tf32 part of each f32 (the low 13 mantissa bits are
    /// ignored, not rounded: a product's relative error is under `2^-9`) and sum in f32. Returns
    /// once the kernel is launched (the tensor maps travel in the launch's parameters).
    ///
    /// # Errors
    /// Those of [`run_f32`](Gemm::run_f32); [`GemmError::Unsupported`] naming the condition for
    /// other storage orders, a K that TMA cannot read, unaligned buffers, the CPU backend or a GPU
    /// other than sm_90 (use [`run_tf32`](Gemm::run_tf32) there).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::{Gemm, GemmError, Major};
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let (a, b) = (gpu.alloc::<f32>(64)?, gpu.alloc::<f32>(64)?);
    /// let mut d = gpu.alloc::<f32>(64)?;
    /// // B row-major would have to be read N-major: not for tf32.
    /// let e = Gemm::new(8, 8, 8).run_tf32_sm90(&gpu, &a, &b, None, &mut d).unwrap_err();
    /// assert!(e.to_string().contains("K-major only"), "{e}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_tf32_sm90(
        &self,
        gpu: &Gpu,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<f32>,
    ) -> Result<(), GemmError> {
        self.validate(a, b, c, d)?;
        self.validate_bias(None)?;
        run_hopper(&HopperGemm::new(*self, HopperIn::Tf32, HopperOut::F32), gpu, None, a, b, (c, None), d)
    }

    /// [`run_f32`](Gemm::run_f32) or [`run_tf32`](Gemm::run_tf32), as `math` says.
    ///
    /// # Errors
    /// Those of [`run_f32`](Gemm::run_f32).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::gemm::Gemm;
    /// use cute_rs_ops::gemm_f32::F32Math;
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let (a, b) = (gpu.upload(&[2.0f32])?, gpu.upload(&[3.0f32])?);
    /// let mut d = gpu.alloc::<f32>(1)?;
    /// Gemm::new(1, 1, 1).run_f32_math(F32Math::Tf32, &gpu, &a, &b, None, &mut d)?;
    /// assert_eq!(gpu.download(&d)?, [6.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn run_f32_math(
        &self,
        math: F32Math,
        gpu: &Gpu,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<f32>,
    ) -> Result<(), GemmError> {
        self.launch_f32(math, gpu, None, a, b, c, d)
    }

    /// [`run_f32_math`](Gemm::run_f32_math) on `stream` (or the GPU's), for every batch: one
    /// launch per batch, as the portable 16-bit path.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_f32(
        &self,
        math: F32Math,
        gpu: &Gpu,
        stream: Option<&Stream>,
        a: &DeviceBuffer<f32>,
        b: &DeviceBuffer<f32>,
        c: Option<&DeviceBuffer<f32>>,
        d: &mut DeviceBuffer<f32>,
    ) -> Result<(), GemmError> {
        // The same problem, buffers and limits as the bf16 path: the grid is (N tiles, M tiles) of
        // 128 x 128 there and here.
        const { assert!(BM == cute_rs_kernels::gemm::BM && BN == cute_rs_kernels::gemm::BN) };
        self.validate(a, b, c, d)?;
        // The f32 kernels' epilogue is `alpha A B + beta C` on packed row-major C and D.
        if self.bias != BiasKind::None || self.activation != Activation::Identity {
            return Err(GemmError::NoKernel("f32 inputs: the f32 kernels add no bias and apply no activation".to_string()));
        }
        let (ldc, ldd) = self.ldcd();
        if ldd != self.n || (c.is_some() && ldc != self.n) {
            return Err(GemmError::NoKernel(format!(
                "f32 inputs: the f32 kernels read C and write D packed (rows N = {} apart), but D's rows are {ldd} apart{}",
                self.n,
                if c.is_some() { format!(" and C's {ldc}") } else { String::new() }
            )));
        }
        if self.m == 0 || self.n == 0 {
            return Ok(());
        }
        let (lda, ldb) = self.lds();
        let strides = self.strides_of_batches();
        // 128-bit loads need every aligned group of 4 elements along a row 16-byte aligned, in
        // every batch.
        let aligned = |ptr: u64, ld: usize, batch: usize| ptr % 16 == 0 && ld % 4 == 0 && (self.batches == 1 || batch % 4 == 0);
        let vec4 = aligned(a.device_ptr(), lda, strides[0]) && aligned(b.device_ptr(), ldb, strides[1]);
        let kernel = self.f32_kernel(math, vec4);
        let cfg = LaunchConfig {
            grid: (self.n.div_ceil(BN as usize) as u32, self.m.div_ceil(BM as usize) as u32, 1),
            block: (THREADS, 1, 1),
            // The tf32 kernels' cp.async ring is dynamic shared memory (over the static 48 KiB).
            shared_mem_bytes: if math == F32Math::Tf32 { TF32_SMEM_BYTES } else { 0 },
        };
        let (m, n, k, lda, ldb) = (self.m as u32, self.n as u32, self.k as u32, lda as u32, ldb as u32);
        let (alpha, beta) = (self.alpha, self.beta);
        // Without C (beta = 0) the kernel never reads its pointer: pass D's, a valid address.
        let c_ptr = c.map_or(d.device_ptr(), |c| c.device_ptr());
        let (a_ptr, b_ptr, d_ptr) = (a.device_ptr(), b.device_ptr(), d.device_ptr());
        for l in 0..self.batches {
            let at = |ptr: u64, stride: usize| ptr + (l * stride * 4) as u64;
            let params = cute_rs_kernels::sgemm::SgemmParams {
                a: at(a_ptr, strides[0]) as *const f32,
                b: at(b_ptr, strides[1]) as *const f32,
                c: at(c_ptr, strides[2]) as *const f32,
                d: at(d_ptr, strides[3]) as *mut f32,
                m,
                n,
                k,
                lda,
                ldb,
                alpha,
                beta,
            };
            let launch = gpu.launch(crate::modules::gemm(), kernel, cfg, (params,));
            // SAFETY: the buffers hold the elements the shapes, leading dimensions and batch
            // strides need (validated above); the kernel reads A, B (and C when beta != 0) within
            // them and writes D within it.
            unsafe { crate::gemm::on(launch, stream).run() }?;
        }
        Ok(())
    }
}
