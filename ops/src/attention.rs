//! Fused attention forward as one library call on tensors: [`Attention`] computes
//! `O = softmax(scale * Q K^T + mask) V` and the log-sum-exp of each query's scaled scores, for
//! Q, K, V and O given as device tensors with layouts.
//!
//! Q and O are `(batch, seqlen_q, heads, head_dim)`, K and V `(batch, seqlen_k, heads_kv,
//! head_dim)`, with any strides whose head dimension is contiguous (stride 1); the log-sum-exp
//! (natural log, f32) is `(batch, heads, seqlen_q)`, contiguous. `heads_kv` divides `heads`
//! (grouped-query attention: query head `h` reads key/value head `h / (heads / heads_kv)`). A
//! causal mask aligns to the bottom right when the lengths differ (query `i` sees keys
//! `j <= i + seqlen_k - seqlen_q`, as FlashAttention 2.1 and later); a query that sees no key
//! gets zeros and a log-sum-exp of `-inf`.
//!
//! The path: on an sm_90 GPU the Hopper kernel (`cute_rs_kernels::attention_sm90`: TMA, `wgmma`, warp
//! specialization, persistent blocks) for bf16 and f16, head dimension 64, 128 or 256, 16-byte
//! aligned rows; else the portable kernel on `mma.sync` (`cute_rs_kernels::attention`: any GPU from sm_80
//! and the CPU backend; bf16 and f16, head dimension 64, 128 or 256, K and V with one set of
//! strides and O with Q's).
//! [`Attention::path`] forces one, for benchmarks. A call allocates nothing and returns once
//! launched, on the GPU's stream or the one given by [`Attention::on`].
//!
//! # Example
//! ```
//! use cute_rs_ops::attention::{Attention, AttentionPath};
//! use cute_rs_layout::Layout;
//! use cute_rs_tensor::half::f16;
//!
//! let gpu = cute_rs_host::Gpu::cpu(); // or cute_rs_host::Gpu::new(0)? on a machine with a GPU
//! // One sequence of 2 queries and 3 keys, one head of dimension 64.
//! let (sq, sk, d) = (2, 3, 64);
//! let q = gpu.upload(&vec![f16::from_f32(0.0); sq * d])?;
//! let k = gpu.upload(&vec![f16::from_f32(0.0); sk * d])?;
//! // V's rows are 1, 2, 3: with equal scores each output row is their mean, 2.
//! let v: Vec<f16> = (0..sk * d).map(|i| f16::from_f32((i / d + 1) as f32)).collect();
//! let v = gpu.upload(&v)?;
//! let (mut o, mut lse) = (gpu.alloc::<f16>(sq * d)?, gpu.alloc::<f32>(sq)?);
//! let rows = |s: usize| Layout::parse(&format!("(1,{s},1,{d}):({},{d},{d},1)", s * d));
//! let path = Attention::new().run(
//!     &gpu,
//!     q.tensor(rows(sq)?)?,
//!     k.tensor(rows(sk)?)?,
//!     v.tensor(rows(sk)?)?,
//!     o.tensor_mut(rows(sq)?)?,
//!     lse.tensor_mut(Layout::parse("(1,1,2):(2,2,1)")?)?,
//! )?;
//! assert_eq!(path, AttentionPath::MmaSync); // no wgmma on the CPU backend
//! assert!(gpu.download(&o)?.iter().all(|x| x.to_f32() == 2.0));
//! // log(3 e^0) = log 3.
//! assert!(gpu.download(&lse)?.iter().all(|x| (x - 3f32.ln()).abs() < 1e-5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;

use cute_rs_host::{DeviceBuffer, DeviceElem, DeviceTensor, DeviceTensorMut, Gpu, HostError, LaunchConfig, ModuleSource, Stream, TensorMap, TmaOobFill, TmaSwizzle};
use cute_rs_layout::{IntTuple, Layout};
use cute_rs_tensor::half::{bf16, f16};

use cute_rs_kernels::attention_sm90 as sm90;

use crate::attention_kernels::{self, AttentionKernels, Sm90Key, Sm90Tile};
/// The type of a Hopper attention kernel (its parameters), for [`Attention::sm90_kernel`].
#[doc(hidden)]
pub use crate::attention_kernels::Sm90Kernel;

/// Which kernel computes a call.
///
/// # Example
/// ```
/// use cute_rs_ops::attention::AttentionPath;
/// assert_ne!(AttentionPath::Sm90, AttentionPath::MmaSync);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttentionPath {
    /// The Hopper kernel: TMA, `wgmma`, warp specialization (sm_90).
    Sm90,
    /// The portable kernel on `mma.sync` (sm_80 and later, and the CPU backend).
    MmaSync,
}

/// How the Hopper kernel's blocks walk the work. The default is the fastest,
/// [`Persistent`](Self::Persistent). Both run the same kernels: in each, the softmax of a key
/// block overlaps the previous block's `P V` inside each consumer warpgroup, and the two consumer
/// warpgroups take turns at the tensor cores (FlashAttention-3's schedule).
///
/// # Example
/// ```
/// use cute_rs_ops::attention::AttentionSchedule;
/// assert_eq!(AttentionSchedule::default(), AttentionSchedule::Persistent);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AttentionSchedule {
    /// One block per tile, with the standard tiles (128 query rows, the head dimension's keys
    /// per step).
    PingPong,
    /// [`PingPong`](Self::PingPong) in persistent blocks (at most one per SM) that walk the tiles
    /// (each head's longest first under a causal mask), the next tiles' loads overlapping the
    /// current one's work, where the tiles are short (at most 32 key blocks on average); longer
    /// tiles run one block per tile, as [`PingPong`](Self::PingPong), which balances them
    /// better. At head dimension 64 the blocks are wider from 2k keys without a causal mask and
    /// from 8k keys with one: 192 query rows, three consumer warpgroups that each wait for their
    /// products (faster than with the overlap), one block per tile, faster there than persistent
    /// (`attention_sm90_bf16_d64_wide`; `docs/performance.md`). At head dimension 256 without a
    /// causal mask, from 2k keys, a step reads 80 keys rather than 64, O staged in Q's buffer
    /// (`attention_sm90_bf16_d256_long`).
    #[default]
    Persistent,
}

/// Why a call was refused; each names the violated condition.
///
/// # Example
/// ```
/// use cute_rs_ops::attention::AttentionError;
/// let e = AttentionError::Shape("heads: 3 KV heads do not divide 4 query heads".into());
/// assert!(e.to_string().contains("do not divide"));
/// ```
#[derive(Debug)]
pub enum AttentionError {
    /// The tensors' shapes do not describe one attention problem.
    Shape(String),
    /// No kernel takes the problem (layout, element type, head dimension), or the forced path
    /// cannot.
    NoKernel(String),
    /// The launch failed.
    Host(HostError),
}

impl fmt::Display for AttentionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AttentionError::Shape(why) => write!(f, "attention: {why}"),
            AttentionError::NoKernel(why) => write!(f, "attention: no kernel takes this problem: {why}"),
            AttentionError::Host(e) => write!(f, "attention: {e}"),
        }
    }
}

impl std::error::Error for AttentionError {}

impl From<HostError> for AttentionError {
    fn from(e: HostError) -> Self {
        AttentionError::Host(e)
    }
}

/// The 16-bit element types of Q, K, V and O (bf16, f16).
///
/// # Example
/// ```
/// use cute_rs_ops::attention::AttentionElem;
/// assert!(<cute_rs_tensor::half::f16 as AttentionElem>::F16);
/// ```
pub trait AttentionElem: DeviceElem + Copy + AttentionKernels {
    /// Whether the type is f16 (else bf16).
    const F16: bool;
}

impl AttentionElem for bf16 {
    const F16: bool = false;
}

impl AttentionElem for f16 {
    const F16: bool = true;
}

/// An attention call's options: the softmax scale, causality, the stream and (for benchmarks) the
/// path; see the [module docs](self).
///
/// Defaults: scale `1 / sqrt(head_dim)`, no mask, the GPU's stream, the fastest path that takes
/// the problem.
///
/// # Example
/// ```
/// let a = cute_rs_ops::attention::Attention::new().causal(true).scale(0.125);
/// assert!(format!("{a:?}").contains("causal: true"));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Attention<'a> {
    pub(crate) scale: Option<f32>,
    pub(crate) causal: bool,
    pub(crate) stream: Option<&'a Stream>,
    pub(crate) path: Option<AttentionPath>,
    pub(crate) schedule: AttentionSchedule,
    pub(crate) sm90_kernel: Option<(&'a ModuleSource, Sm90Kernel)>,
    pub(crate) deterministic: bool,
}

/// One `(batch, seqlen, heads, head_dim)` operand: its extents and element strides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Operand {
    pub(crate) shape: [usize; 4],
    pub(crate) stride: [usize; 4],
}

impl Operand {
    /// The operand `name` of `layout`: rank 4 with flat modes, strides not negative, the head
    /// dimension contiguous.
    pub(crate) fn of(name: &str, layout: &Layout) -> Result<Operand, AttentionError> {
        let (shape, stride) = (layout.shape(), layout.stride());
        let (shape, stride) = (shape.leaves(), stride.leaves());
        if layout.rank() != 4 || shape.len() != 4 {
            return Err(AttentionError::Shape(format!("{name}'s layout {layout} is not (batch, seqlen, heads, head_dim) with flat modes")));
        }
        if let Some(&s) = stride.iter().find(|&&s| s < 0) {
            return Err(AttentionError::Shape(format!("{name}'s layout {layout} has the negative stride {s}")));
        }
        if stride[3] != 1 && shape[3] != 1 {
            return Err(AttentionError::NoKernel(format!("{name}'s head dimension has stride {}: it must be contiguous (stride 1)", stride[3])));
        }
        Ok(Operand { shape: std::array::from_fn(|i| shape[i] as usize), stride: std::array::from_fn(|i| stride[i] as usize) })
    }

    /// The strides of batch, sequence and head.
    pub(crate) fn strides(&self) -> [usize; 3] {
        [self.stride[0], self.stride[1], self.stride[2]]
    }

    /// The same strides as the portable kernels take them.
    pub(crate) fn kernel_strides(&self) -> cute_rs_kernels::attention::Strides {
        let [batch, seq, head] = self.strides().map(|s| s as i64);
        cute_rs_kernels::attention::Strides { batch, seq, head }
    }
}

/// A validated problem.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Problem {
    pub(crate) batch: usize,
    pub(crate) heads: usize,
    pub(crate) heads_kv: usize,
    pub(crate) seqlen_q: usize,
    pub(crate) seqlen_k: usize,
    pub(crate) d: usize,
    pub(crate) q: Operand,
    pub(crate) k: Operand,
    pub(crate) v: Operand,
    pub(crate) o: Operand,
}

/// `(1, 2, 3, 4)`: an operand's shape in messages.
pub(crate) fn shape_text(s: [usize; 4]) -> String {
    format!("({}, {}, {}, {})", s[0], s[1], s[2], s[3])
}

impl Problem {
    /// The problem of Q, K, V and O, checked: O has Q's shape and V K's, batch and head
    /// dimension agree, `heads_kv` divides `heads`, and queries have keys to attend to.
    pub(crate) fn of(q: Operand, k: Operand, v: Operand, o: Operand) -> Result<Problem, AttentionError> {
        let [batch, seqlen_q, heads, d] = q.shape;
        let [_, seqlen_k, heads_kv, _] = k.shape;
        if o.shape != q.shape {
            return Err(AttentionError::Shape(format!("O is {} but Q is {}: they must agree", shape_text(o.shape), shape_text(q.shape))));
        }
        if v.shape != k.shape {
            return Err(AttentionError::Shape(format!("V is {} but K is {}: they must agree", shape_text(v.shape), shape_text(k.shape))));
        }
        if k.shape[0] != batch || k.shape[3] != d {
            return Err(AttentionError::Shape(format!("K is {} and Q is {}: batch and head_dim must agree", shape_text(k.shape), shape_text(q.shape))));
        }
        if heads_kv == 0 || heads % heads_kv != 0 {
            return Err(AttentionError::Shape(format!("heads: {heads_kv} KV heads do not divide {heads} query heads")));
        }
        if seqlen_k == 0 && seqlen_q > 0 {
            return Err(AttentionError::Shape("seqlen_k is 0: every query needs at least one key to attend to".to_string()));
        }
        Ok(Problem { batch, heads, heads_kv, seqlen_q, seqlen_k, d, q, k, v, o })
    }
}

impl<'a> Attention<'a> {
    /// The defaults (see [`Attention`]).
    pub fn new() -> Attention<'a> {
        Attention::default()
    }

    /// Multiplies the scores `Q K^T` by `scale` before the softmax (finite and positive).
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::attention::Attention::new().scale(0.125);
    /// ```
    pub fn scale(self, scale: f32) -> Attention<'a> {
        Attention { scale: Some(scale), ..self }
    }

    /// Masks the keys after each query's diagonal (aligned to the bottom right).
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::attention::Attention::new().causal(true);
    /// ```
    pub fn causal(self, causal: bool) -> Attention<'a> {
        Attention { causal, ..self }
    }

    /// Launches on `stream` instead of the GPU's own.
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let stream = gpu.create_stream()?;
    /// let _ = cute_rs_ops::attention::Attention::new().on(&stream);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn on(self, stream: &'a Stream) -> Attention<'a> {
        Attention { stream: Some(stream), ..self }
    }

    /// Takes `path` or fails naming why it cannot (benchmarks compare paths this way).
    ///
    /// # Example
    /// ```
    /// let _ = cute_rs_ops::attention::Attention::new().path(cute_rs_ops::attention::AttentionPath::MmaSync);
    /// ```
    pub fn path(self, path: AttentionPath) -> Attention<'a> {
        Attention { path: Some(path), ..self }
    }

    /// Walks the Hopper kernel's work as `schedule` (the default, persistent blocks where they
    /// are faster, or one block per tile).
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::attention::{Attention, AttentionSchedule};
    /// let _ = Attention::new().schedule(AttentionSchedule::PingPong);
    /// ```
    pub fn schedule(self, schedule: AttentionSchedule) -> Attention<'a> {
        Attention { schedule, ..self }
    }

    /// Runs `kernel` of `module` in place of the Hopper kernel the call would choose, with the
    /// same parameters and launch (the schedule's, with the standard tiles unless the kernel's
    /// tile is the call's choice too): for the test harness, whose device crate holds the measured
    /// steps that led to the shipped kernels (`test_kernels::attention_sm90_steps`).
    #[doc(hidden)]
    pub fn sm90_kernel(self, module: &'a ModuleSource, kernel: Sm90Kernel) -> Attention<'a> {
        Attention { sm90_kernel: Some((module, kernel)), ..self }
    }

    /// The problem the tensors describe, checked: shapes that agree, `heads_kv` dividing `heads`,
    /// the log-sum-exp contiguous, a usable scale.
    fn plan<T: AttentionElem>(
        &self,
        q: &DeviceTensor<'_, T, Layout>,
        k: &DeviceTensor<'_, T, Layout>,
        v: &DeviceTensor<'_, T, Layout>,
        o: &DeviceTensorMut<'_, T, Layout>,
        lse: &DeviceTensorMut<'_, f32, Layout>,
    ) -> Result<Problem, AttentionError> {
        let p = Problem::of(Operand::of("Q", q.layout())?, Operand::of("K", k.layout())?, Operand::of("V", v.layout())?, Operand::of("O", o.layout())?)?;
        check_rows("the log-sum-exp", lse.layout(), p.batch, p.heads, p.seqlen_q)?;
        self.check_scale()?;
        Ok(p)
    }

    /// Checks the softmax scale, if one was given: finite and positive.
    pub(crate) fn check_scale(&self) -> Result<(), AttentionError> {
        match self.scale {
            Some(scale) if !(scale.is_finite() && scale > 0.0) => Err(AttentionError::Shape(format!("the softmax scale {scale} must be finite and positive"))),
            _ => Ok(()),
        }
    }

    /// Launches the attention of the tensors (see the [module docs](self)) and returns the path
    /// taken, once launched.
    ///
    /// # Errors
    /// [`AttentionError::Shape`] for tensors that do not describe one problem (named);
    /// [`AttentionError::NoKernel`] for a problem no kernel takes, or that the forced path
    /// cannot; [`AttentionError::Host`] for the launch.
    ///
    /// # Example
    /// See the [module docs](self).
    pub fn run<T: AttentionElem>(
        &self,
        gpu: &Gpu,
        q: DeviceTensor<'_, T, Layout>,
        k: DeviceTensor<'_, T, Layout>,
        v: DeviceTensor<'_, T, Layout>,
        mut o: DeviceTensorMut<'_, T, Layout>,
        mut lse: DeviceTensorMut<'_, f32, Layout>,
    ) -> Result<AttentionPath, AttentionError> {
        let p = self.plan(&q, &k, &v, &o, &lse)?;
        let scale = self.scale.unwrap_or(1.0 / (p.d as f32).sqrt());
        let buffers = [q.buffer().device_ptr(), k.buffer().device_ptr(), v.buffer().device_ptr(), o.buffer().device_ptr()];
        let why_not_sm90 = sm90_unsupported::<T>(&p, gpu, buffers);
        let path = match (self.path, &why_not_sm90) {
            (Some(path), _) => path,
            (None, None) => AttentionPath::Sm90,
            (None, Some(_)) => AttentionPath::MmaSync,
        };
        if p.batch * p.heads * p.seqlen_q == 0 {
            return Ok(path);
        }
        match path {
            AttentionPath::Sm90 => {
                if let Some(why) = why_not_sm90 {
                    return Err(AttentionError::NoKernel(format!("the Hopper kernel: {why}")));
                }
                let (bm, bn) = self.sm90_tile(&p);
                let maps = [(q.buffer(), p.q, p.seqlen_q, p.heads, bm), (k.buffer(), p.k, p.seqlen_k, p.heads_kv, bn), (v.buffer(), p.v, p.seqlen_k, p.heads_kv, bn)]
                    .map(|(buf, op, seqlen, heads, rows)| tensor_map(gpu, buf, op, seqlen, heads, rows));
                let [qm, km, vm] = maps;
                let (qm, km, vm) = (qm?, km?, vm?);
                // O is written in boxes of 64 rows (a consumer warpgroup's).
                let om = tensor_map(gpu, o.buffer(), p.o, p.seqlen_q, p.heads, 64)?;
                self.launch_sm90::<T>(gpu, &p, (bm, bn), scale, [qm, km, vm, om], lse.buffer())?;
            }
            AttentionPath::MmaSync => {
                if let Some(why) = portable_unsupported::<T>(&p) {
                    // Chosen for want of the Hopper kernel: say why neither takes the problem.
                    return Err(AttentionError::NoKernel(match (self.path, why_not_sm90) {
                        (None, Some(sm90)) => format!("no kernel takes the problem: the Hopper kernel: {sm90}; the portable kernel: {why}"),
                        _ => format!("the portable kernel: {why}"),
                    }));
                }
                self.launch_portable(gpu, &p, scale, [q.buffer(), k.buffer(), v.buffer()], o.buffer(), lse.buffer())?;
            }
        }
        Ok(path)
    }

    /// The query rows of the Hopper kernel's blocks for the problem: the wide kernels' for the
    /// default schedule at head dimension 64 from [`WIDE_MIN_KEYS`] without a causal mask and
    /// from [`WIDE_CAUSAL_MIN_KEYS`] with one, where they are faster. They are slower with fewer
    /// keys, more so under a causal mask, where 192-row tiles mask more of their keys. And the
    /// keys per step: the long kernels' at head dimension 256 without a causal mask from
    /// [`LONG_MIN_KEYS`] keys.
    fn sm90_tile(&self, p: &Problem) -> (u32, u32) {
        let persistent = self.schedule == AttentionSchedule::Persistent;
        if p.d == 64 && persistent && p.seqlen_k >= if self.causal { WIDE_CAUSAL_MIN_KEYS } else { WIDE_MIN_KEYS } {
            (sm90::ATTENTION_SM90_WIDE_BM, sm90::attention_sm90_block_n(64))
        } else if p.d == 256 && persistent && !self.causal && p.seqlen_k >= LONG_MIN_KEYS {
            (sm90::ATTENTION_SM90_BM, sm90::ATTENTION_SM90_LONG_BN)
        } else {
            (sm90::ATTENTION_SM90_BM, sm90::attention_sm90_block_n(p.d as u32))
        }
    }

    /// The Hopper kernel of `T`, the head dimension and the tile (`block_m` query rows,
    /// `block_n` keys per step: [`Self::sm90_tile`]), on the tensor maps of Q, K, V and O: one
    /// block per tile, or (persistent) at most one per SM.
    #[allow(clippy::too_many_arguments)]
    fn launch_sm90<T: AttentionElem>(&self, gpu: &Gpu, p: &Problem, (block_m, block_n): (u32, u32), scale: f32, maps: [TensorMap; 4], lse: &mut DeviceBuffer<f32>) -> Result<(), AttentionError> {
        let tiles = sm90::AttentionTiles::new(block_m, p.seqlen_q as u32, p.heads as u32, p.batch as u32, self.causal).count();
        // The wide blocks run one per tile: faster than persistent for them, even on short tiles.
        let wide = block_m == sm90::ATTENTION_SM90_WIDE_BM;
        let long = block_n == sm90::ATTENTION_SM90_LONG_BN;
        let blocks = match self.schedule {
            AttentionSchedule::Persistent if !wide && short_tiles(p, self.causal) => tiles.min(gpu.properties().multiprocessors.max(1)),
            _ => tiles,
        };
        let cfg = LaunchConfig {
            grid: (blocks, 1, 1),
            block: (sm90::attention_sm90_threads(block_m), 1, 1),
            shared_mem_bytes: sm90::attention_sm90_smem_bytes(p.d as u32, block_m, block_n),
        };
        let tile = if wide { Sm90Tile::Wide } else if long { Sm90Tile::Long } else { Sm90Tile::Standard };
        let (module, kernel) = match self.sm90_kernel {
            Some(chosen) => chosen,
            None => {
                let key = Sm90Key { d: p.d as u32, tile, schedule: self.schedule };
                // The problem's checks admit only head dimensions with kernels of every tile.
                let kernel = attention_kernels::sm90_kernel::<T>(key)
                    .ok_or_else(|| AttentionError::NoKernel(format!("no Hopper kernel of {} for {key:?}", T::NAME)))?;
                (crate::modules::gemm_sm90a(), kernel)
            }
        };
        let [qm, km, vm, om] = maps;
        let [batch, heads, heads_kv, seqlen_q, seqlen_k] = [p.batch, p.heads, p.heads_kv, p.seqlen_q, p.seqlen_k].map(|x| x as u32);
        let params = sm90::AttentionParams {
            lse: lse.device_ptr() as *mut f32,
            batch,
            heads,
            heads_kv,
            seqlen_q,
            seqlen_k,
            scale_log2: scale * std::f32::consts::LOG2_E,
            causal: self.causal as u32,
        };
        let launch = gpu.launch(module, kernel, cfg, (qm, km, vm, om, params));
        // SAFETY: the maps cover Q, K, V and O (O's stores are clipped to it); the log-sum-exp
        // holds what its checked layout reaches; the kernel writes only there.
        unsafe { crate::gemm::on(launch, self.stream).run() }?;
        Ok(())
    }

    /// The portable kernel of `T` and the head dimension.
    fn launch_portable<T: AttentionElem>(&self, gpu: &Gpu, p: &Problem, scale: f32, [q, k, v]: [&DeviceBuffer<T>; 3], o: &mut DeviceBuffer<T>, lse: &mut DeviceBuffer<f32>) -> Result<(), AttentionError> {
        use cute_rs_kernels::attention as portable;
        let d = p.d as u32;
        let kernel = attention_kernels::portable_kernel::<T>(d)
            .ok_or_else(|| AttentionError::NoKernel(format!("the portable kernel: head_dim {d}: it takes 64, 128 or 256")))?;
        let cfg = LaunchConfig {
            grid: (p.seqlen_q.div_ceil(portable::ATTENTION_BLOCK as usize) as u32, p.heads as u32, p.batch as u32),
            block: (portable::attention_threads(d), 1, 1),
            shared_mem_bytes: portable::attention_scratch_bytes(d),
        };
        let ptr = |b: &DeviceBuffer<T>| b.device_ptr() as *const T;
        let [heads, heads_kv, seqlen_q, seqlen_k] = [p.heads, p.heads_kv, p.seqlen_q, p.seqlen_k].map(|x| x as i64);
        let params = portable::AttentionParams {
            q: ptr(q),
            k: ptr(k),
            v: ptr(v),
            o: o.device_ptr() as *mut T,
            lse: lse.device_ptr() as *mut f32,
            heads,
            heads_kv,
            seqlen_q,
            seqlen_k,
            q_strides: p.q.kernel_strides(),
            kv_strides: p.k.kernel_strides(),
            scale,
            causal: self.causal as u32,
        };
        let launch = gpu.launch(crate::modules::gemm(), kernel, cfg, (params,));
        // SAFETY: the checked layouts: Q and O share strides, K and V too, each buffer holds what
        // they reach; the kernel writes only inside O and the log-sum-exp.
        unsafe { crate::gemm::on(launch, self.stream).run() }?;
        Ok(())
    }
}

/// The fewest keys for which head dimension 256 without a causal mask takes the long kernels
/// ([`sm90::ATTENTION_SM90_LONG_BN`] keys per step): they are faster than the 64-key kernels from
/// 4k keys, and as fast at 1k (`docs/performance.md`).
const LONG_MIN_KEYS: usize = 2048;

/// The fewest keys for which head dimension 64 without a causal mask takes the wide kernels (192
/// query rows): they are faster than the 128-row kernel from 2k keys, and slower below
/// (`docs/performance.md`).
const WIDE_MIN_KEYS: usize = 2048;

/// [`WIDE_MIN_KEYS`] under a causal mask, where 192-row tiles mask more of their keys: the wide
/// kernels are faster than the 128-row kernel from 8k keys, and slower up to 4k
/// (`docs/performance.md`).
const WIDE_CAUSAL_MIN_KEYS: usize = 8192;

/// Whether the problem's tiles read at most 32 key blocks on average (half of them under a causal
/// mask), where the persistent blocks pay: their prologue and epilogue, overlapped with the
/// neighbouring tiles' work, weigh most. Longer tiles run one block per tile, where the hardware's
/// dynamic assignment of blocks to SMs balances them better than the persistent blocks' static
/// walk (`docs/performance.md`).
fn short_tiles(p: &Problem, causal: bool) -> bool {
    let key_blocks = p.seqlen_k.div_ceil(sm90::attention_sm90_block_n(p.d as u32) as usize);
    (if causal { key_blocks / 2 } else { key_blocks }) <= 32
}

/// Why the Hopper kernel cannot take the problem on `gpu` (`None`: it can). `buffers`: the
/// device addresses of Q, K, V and O.
pub(crate) fn sm90_unsupported<T: AttentionElem>(p: &Problem, gpu: &Gpu, buffers: [u64; 4]) -> Option<String> {
    if gpu.is_cpu() {
        return Some("the CPU backend has no wgmma".to_string());
    }
    let (major, minor) = gpu.properties().compute_capability;
    if (major, minor) != (9, 0) {
        return Some(format!("wgmma needs an sm_90 GPU (this one is sm_{major}{minor})"));
    }
    if ![64, 128, 256].contains(&p.d) {
        return Some(format!("head_dim {}: the Hopper kernel takes 64, 128 or 256", p.d));
    }
    // TMA: 16-byte aligned bases and strides of Q, K, V and O.
    for (name, op, base) in [("Q", p.q, buffers[0]), ("K", p.k, buffers[1]), ("V", p.v, buffers[2]), ("O", p.o, buffers[3])] {
        if !base.is_multiple_of(16) {
            return Some(format!("{name}'s buffer is not 16-byte aligned (TMA)"));
        }
        if let Some(s) = op.strides().iter().find(|&&s| (s * std::mem::size_of::<T>()) % 16 != 0) {
            return Some(format!("{name}'s stride {s} is not a multiple of 16 bytes (TMA)"));
        }
    }
    if [p.seqlen_q, p.seqlen_k, p.heads, p.batch].iter().any(|&x| x > i32::MAX as usize) {
        return Some("batch, heads and sequence lengths must fit TMA's 32-bit coordinates".to_string());
    }
    // The narrower blocks' count, the larger.
    let tiles = p.seqlen_q.div_ceil(sm90::ATTENTION_SM90_BM as usize) as u128 * p.heads as u128 * p.batch as u128;
    if tiles > i32::MAX as u128 {
        return Some(format!("{tiles} tiles of 128 queries (per head and batch) do not fit the kernel's 31-bit tile index"));
    }
    None
}

/// Why the portable kernel cannot take the problem (`None`: it can).
fn portable_unsupported<T: AttentionElem>(p: &Problem) -> Option<String> {
    if ![64, 128, 256].contains(&p.d) {
        return Some(format!("head_dim {}: it takes 64, 128 or 256", p.d));
    }
    if p.o.strides() != p.q.strides() {
        return Some("O must have Q's strides".to_string());
    }
    if p.v.strides() != p.k.strides() {
        return Some("V must have K's strides".to_string());
    }
    // The grid is (query blocks, heads, batch).
    if p.heads > 65535 || p.batch > 65535 {
        return Some(format!("its grid takes at most 65535 heads and batches (here {} and {})", p.heads, p.batch));
    }
    None
}

/// Checks that `layout` (of the tensor `what`) is `(batch, heads, seqlen_q)`, contiguous.
pub(crate) fn check_rows(what: &str, layout: &Layout, batch: usize, heads: usize, seqlen_q: usize) -> Result<(), AttentionError> {
    let want = flat_layout(&[batch, heads, seqlen_q], &[heads * seqlen_q, seqlen_q, 1])?;
    let (shape, stride, want_shape, want_stride) = (layout.shape(), layout.stride(), want.shape(), want.stride());
    let (shape, stride, want_stride) = (shape.leaves(), stride.leaves(), want_stride.leaves());
    let contiguous = shape == want_shape.leaves() && (0..3).all(|i| shape[i] == 1 || stride[i] == want_stride[i]);
    if !contiguous {
        return Err(AttentionError::Shape(format!("{what}'s layout {layout} is not (batch, heads, seqlen_q) = {want}, contiguous")));
    }
    Ok(())
}

/// The flat layout `shape:stride`, built from its modes.
pub(crate) fn flat_layout(shape: &[usize], stride: &[usize]) -> Result<Layout, AttentionError> {
    let modes = |t: &[usize]| IntTuple::from_slice(&t.iter().map(|&x| x as i64).collect::<Vec<_>>());
    modes(shape).and_then(|shape| Layout::new(shape, modes(stride)?)).map_err(|e| AttentionError::Shape(e.to_string()))
}

/// The 4-D tensor map of one operand, `(head_dim, seqlen, heads, batch)`, in boxes of 64 columns
/// x `rows` rows with the 128-byte swizzle and zero fill (the kernel's shared tiles; O's stores
/// are clipped to it).
pub(crate) fn tensor_map<T: AttentionElem>(gpu: &Gpu, buf: &DeviceBuffer<T>, op: Operand, seqlen: usize, heads: usize, rows: u32) -> Result<TensorMap, AttentionError> {
    let [b, s, h] = op.strides();
    let global = flat_layout(&[op.shape[3], seqlen, heads, op.shape[0]], &[1, s, h, b])?;
    Ok(gpu.tensor_map(buf, global, &[64, rows, 1, 1], TmaSwizzle::B128, TmaOobFill::Zero)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cute_rs_kernels::attention_sm90::AttentionTiles;

    #[test]
    fn tiles_are_each_visited_once_heads_together_and_longest_first_under_a_causal_mask() {
        let sizes = [(1, 1, 1), (300, 2, 3), (1000, 5, 2), (128, 7, 1), (129, 1, 4), (192, 3, 2), (193, 2, 1)];
        for ((seqlen_q, heads, batch), block_m) in sizes.into_iter().flat_map(|size| [(size, 128), (size, 192)]) {
            for causal in [false, true] {
                let tiles = AttentionTiles::new(block_m, seqlen_q, heads, batch, causal);
                assert_eq!(tiles.count(), seqlen_q.div_ceil(block_m) * heads * batch);
                let mut seen = std::collections::HashSet::new();
                let mut previous = None;
                for t in 0..tiles.count() {
                    let (m, h, b) = tiles.tile(t);
                    assert!(m < tiles.m_blocks && h < heads && b < batch, "tile {t} is {:?}", (m, h, b));
                    assert!(seen.insert((m, h, b)), "tile {:?} twice", (m, h, b));
                    // One head's query blocks in a row (they share K and V); under a causal mask,
                    // where a later query block reads more keys, the longest first.
                    if let Some((pm, ph, pb)) = previous {
                        if (ph, pb) == (h, b) {
                            assert!(if causal { m + 1 == pm } else { m == pm + 1 }, "query block {m} after {pm}");
                        } else {
                            assert_eq!(m, if causal { tiles.m_blocks - 1 } else { 0 }, "a head starts at query block {m}");
                        }
                    }
                    previous = Some((m, h, b));
                }
            }
        }
    }

    /// A `(1, s, 1, 96)` tensor of zeros' buffer and layout: a head dimension neither kernel takes.
    fn rows(gpu: &Gpu, s: usize) -> (DeviceBuffer<bf16>, Layout) {
        let zeros = vec![bf16::from_f32(0.0); s * 96];
        (gpu.upload(&zeros).unwrap(), Layout::parse(&format!("(1,{s},1,96):({},96,96,1)", s * 96)).unwrap())
    }

    fn refusal(path: Option<AttentionPath>) -> String {
        let gpu = Gpu::cpu();
        let ((q, lq), (k, lk), (v, _)) = (rows(&gpu, 2), rows(&gpu, 3), rows(&gpu, 3));
        let (mut o, mut lse) = (gpu.alloc::<bf16>(2 * 96).unwrap(), gpu.alloc::<f32>(2).unwrap());
        let call = match path {
            Some(path) => Attention::new().path(path),
            None => Attention::new(),
        };
        let lse_layout = Layout::parse("(1,1,2):(2,2,1)").unwrap();
        let r = call.run(&gpu, q.tensor(lq.clone()).unwrap(), k.tensor(lk.clone()).unwrap(), v.tensor(lk).unwrap(), o.tensor_mut(lq).unwrap(), lse.tensor_mut(lse_layout).unwrap());
        match r {
            Err(AttentionError::NoKernel(why)) => why,
            other => panic!("head_dim 96 on the CPU backend: {other:?}"),
        }
    }

    #[test]
    fn a_problem_no_kernel_takes_is_refused_with_each_kernels_reason() {
        let why = refusal(None);
        assert_eq!(why, "no kernel takes the problem: the Hopper kernel: the CPU backend has no wgmma; the portable kernel: head_dim 96: it takes 64, 128 or 256");
        assert_eq!(refusal(Some(AttentionPath::Sm90)), "the Hopper kernel: the CPU backend has no wgmma");
        assert_eq!(refusal(Some(AttentionPath::MmaSync)), "the portable kernel: head_dim 96: it takes 64, 128 or 256");
    }
}
