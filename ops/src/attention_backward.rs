//! The attention backward as one library call: [`Attention::backward`] computes dQ, dK and dV
//! from the forward's tensors (Q, K, V, O and the log-sum-exp that [`Attention::run`] wrote) and
//! the output's gradient dO, with the same options (scale, causal mask, stream) as the forward
//! call whose output it differentiates.
//!
//! With `P = softmax(scale Q K^T + mask)` recomputed from the log-sum-exp: `dV = P^T dO`,
//! `dS = P ∘ (dO V^T - rowsum(dO ∘ O))`, `dK = scale dS^T Q`, `dQ = scale dS K`; grouped-query
//! heads sum their dK and dV into their key/value head. Shapes and strides: dQ and dO have Q's
//! shape, dK and dV K's; dO and dQ have Q's strides (which O shares), dK and dV K's (which V
//! shares); head dimensions 64 and 128.
//!
//! Two kernels take it:
//! - on an sm_90 GPU, the Hopper kernel (`cute_rs_kernels::attention_bwd_sm90`: TMA, `wgmma`, warp
//!   specialization), its dQ accumulated in f32 by TMA reductions, between two portable
//!   launches (`D = rowsum(dO ∘ O)` with the row statistics, then dQ from the accumulator);
//! - elsewhere, the portable one on `mma.sync`
//!   (`cute_rs_kernels::attention_bwd`; any GPU from sm_80, and the CPU backend), three launches.
//!
//! All launches go on the call's stream. dQ is accumulated in f32 with atomics by default, in an
//! order that varies from run to run. With [`deterministic`](Attention::deterministic) it is
//! accumulated in a fixed order, so that every gradient is bitwise the same from run to run: the
//! Hopper kernel's blocks take turns at each query block (FlashAttention-3's semaphores), and the
//! portable kernels recompute dQ by a pass of their own. The f32 scratch lives in an [`AttentionWorkspace`], made
//! once for a problem size and reused.
//!
//! # Example
//! ```
//! use cute_rs_ops::attention::Attention;
//! use cute_rs_ops::attention_backward::{AttentionGrads, AttentionSaved, AttentionWorkspace};
//! use cute_rs_layout::Layout;
//! use cute_rs_tensor::half::f16;
//!
//! let gpu = cute_rs_host::Gpu::cpu(); // or cute_rs_host::Gpu::new(0)? on a machine with a GPU
//! let (sq, sk, d) = (2, 3, 64);
//! let rows = |s: usize| Layout::parse(&format!("(1,{s},1,{d}):({},{d},{d},1)", s * d));
//! let lse_layout = Layout::parse("(1,1,2):(2,2,1)")?;
//! let zeros = |n: usize| gpu.upload(&vec![f16::from_f32(0.0); n]);
//! let (q, k) = (zeros(sq * d)?, zeros(sk * d)?);
//! let v = gpu.upload(&(0..sk * d).map(|i| f16::from_f32((i / d) as f32)).collect::<Vec<_>>())?;
//! let (mut o, mut lse) = (gpu.alloc::<f16>(sq * d)?, gpu.alloc::<f32>(sq)?);
//! let attention = Attention::new();
//! attention.run(&gpu, q.tensor(rows(sq)?)?, k.tensor(rows(sk)?)?, v.tensor(rows(sk)?)?, o.tensor_mut(rows(sq)?)?, lse.tensor_mut(lse_layout.clone())?)?;
//! // dO = 1 everywhere: with equal scores P = 1/3, so dV = P^T dO = 2/3 for every key.
//! let d_o = gpu.upload(&vec![f16::from_f32(1.0); sq * d])?;
//! let (mut dq, mut dk, mut dv) = (gpu.alloc::<f16>(sq * d)?, gpu.alloc::<f16>(sk * d)?, gpu.alloc::<f16>(sk * d)?);
//! let mut workspace = AttentionWorkspace::new(&gpu, 1, 1, sq, d)?;
//! attention.backward(
//!     &gpu,
//!     AttentionSaved { q: q.tensor(rows(sq)?)?, k: k.tensor(rows(sk)?)?, v: v.tensor(rows(sk)?)?, o: o.tensor(rows(sq)?)?, lse: lse.tensor(lse_layout)? },
//!     AttentionGrads { d_o: d_o.tensor(rows(sq)?)?, dq: dq.tensor_mut(rows(sq)?)?, dk: dk.tensor_mut(rows(sk)?)?, dv: dv.tensor_mut(rows(sk)?)? },
//!     &mut workspace,
//! )?;
//! assert!(gpu.download(&dv)?.iter().all(|x| (x.to_f32() - 2.0 / 3.0).abs() < 1e-3));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use cute_rs_host::{DeviceBuffer, DeviceTensor, DeviceTensorMut, Gpu, LaunchConfig, TmaOobFill, TmaSwizzle};
use cute_rs_layout::Layout;
use cute_rs_kernels::attention_bwd as portable;
use cute_rs_kernels::attention_bwd_sm90 as sm90;

use crate::attention::{check_rows, flat_layout, shape_text, sm90_unsupported, tensor_map, Attention, AttentionElem, AttentionError, AttentionPath, Operand, Problem};
use crate::attention_kernels;

/// The forward's tensors that the backward reads: Q, K, V, the output O and the log-sum-exp
/// (`(batch, heads, seqlen_q)`, contiguous f32), as [`Attention::run`] took and wrote them.
///
/// # Example
/// See the [module docs](self).
pub struct AttentionSaved<'t, T: AttentionElem> {
    /// Q, `(batch, seqlen_q, heads, head_dim)`.
    pub q: DeviceTensor<'t, T, Layout>,
    /// K, `(batch, seqlen_k, heads_kv, head_dim)`.
    pub k: DeviceTensor<'t, T, Layout>,
    /// V, with K's shape and strides.
    pub v: DeviceTensor<'t, T, Layout>,
    /// The forward's output, with Q's shape and strides.
    pub o: DeviceTensor<'t, T, Layout>,
    /// The forward's log-sum-exp (natural log of the scaled scores).
    pub lse: DeviceTensor<'t, f32, Layout>,
}

/// The output's gradient dO and the gradients the backward writes.
///
/// # Example
/// See the [module docs](self).
pub struct AttentionGrads<'t, T: AttentionElem> {
    /// dO, with Q's shape and strides.
    pub d_o: DeviceTensor<'t, T, Layout>,
    /// dQ (written), with Q's shape and strides.
    pub dq: DeviceTensorMut<'t, T, Layout>,
    /// dK (written), with K's shape and strides.
    pub dk: DeviceTensorMut<'t, T, Layout>,
    /// dV (written), with K's shape and strides.
    pub dv: DeviceTensorMut<'t, T, Layout>,
}

/// The scratch of the backward of problems up to a size: the row statistics (`D = rowsum(dO ∘
/// O)` and the log-sum-exp in base 2, for each query row of each head, the rows rounded up to the
/// Hopper kernel's query blocks), the f32 dQ accumulator, and the deterministic Hopper kernel's
/// counters (one per 64 query rows of each head, zero between calls). Made once and reused,
/// so that a call allocates nothing and stays asynchronous; one call at a time may use it.
///
/// # Example
/// ```
/// let gpu = cute_rs_host::Gpu::cpu();
/// let w = cute_rs_ops::attention_backward::AttentionWorkspace::new(&gpu, 2, 8, 1000, 128)?;
/// // 1000 rows rounded up to 1024 (a multiple of 128) for the statistics; 16 counters per head.
/// assert_eq!(w.bytes(), 4 * (2 * 2 * 8 * 1024 + 2 * 8 * 1000 * 128 + 2 * 8 * 16));
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct AttentionWorkspace {
    stats: DeviceBuffer<f32>,
    dq_accum: DeviceBuffer<f32>,
    semaphores: DeviceBuffer<u32>,
}

/// The deterministic Hopper kernel's counters per head: one per query block of the narrowest
/// blocks (64 rows).
fn semaphores_per_head(seqlen_q: usize) -> usize {
    seqlen_q.div_ceil(64)
}

/// `seqlen_q` rounded up to the Hopper backward's query blocks: the rows of each head's
/// statistics.
fn stats_rows(seqlen_q: usize) -> usize {
    let align = sm90::ATTENTION_BWD_SM90_STATS_ROWS as usize;
    seqlen_q.div_ceil(align) * align
}

impl AttentionWorkspace {
    /// The scratch of problems of at most `batch * heads` heads of `seqlen_q` query rows of head
    /// dimension `head_dim` (or fewer rows of a larger one).
    ///
    /// # Errors
    /// The allocations' (and the counters' zeroing).
    ///
    /// # Example
    /// See [`AttentionWorkspace`].
    pub fn new(gpu: &Gpu, batch: usize, heads: usize, seqlen_q: usize, head_dim: usize) -> Result<AttentionWorkspace, cute_rs_host::HostError> {
        let heads = batch * heads;
        let mut semaphores = gpu.alloc(heads * semaphores_per_head(seqlen_q))?;
        gpu.memset(&mut semaphores, 0)?;
        Ok(AttentionWorkspace { stats: gpu.alloc(2 * heads * stats_rows(seqlen_q))?, dq_accum: gpu.alloc(heads * seqlen_q * head_dim)?, semaphores })
    }

    /// The bytes it holds.
    ///
    /// # Example
    /// See [`AttentionWorkspace`].
    pub fn bytes(&self) -> usize {
        4 * (self.stats.len() + self.dq_accum.len() + self.semaphores.len())
    }
}

impl<'a> Attention<'a> {
    /// Makes [`backward`](Self::backward) bitwise reproducible: dQ is accumulated in a fixed
    /// order (on Hopper, the key blocks take turns at each query block; on the portable kernels,
    /// a pass of its own recomputes it, reading the key and value blocks once more) instead of in
    /// any order. dK and dV are reproducible either way.
    ///
    /// # Example
    /// ```
    /// let a = cute_rs_ops::attention::Attention::new().deterministic(true);
    /// assert!(format!("{a:?}").contains("deterministic: true"));
    /// ```
    pub fn deterministic(self, deterministic: bool) -> Attention<'a> {
        Attention { deterministic, ..self }
    }

    /// Checks the tensors of a backward call (see the [module docs](self)).
    fn plan_backward<T: AttentionElem>(&self, saved: &AttentionSaved<'_, T>, grads: &AttentionGrads<'_, T>, workspace: &AttentionWorkspace) -> Result<Problem, AttentionError> {
        let p = Problem::of(Operand::of("Q", saved.q.layout())?, Operand::of("K", saved.k.layout())?, Operand::of("V", saved.v.layout())?, Operand::of("O", saved.o.layout())?)?;
        let (q, k) = (p.q, p.k);
        let named = [
            ("O", p.o, q, "Q"),
            ("dO", Operand::of("dO", grads.d_o.layout())?, q, "Q"),
            ("dQ", Operand::of("dQ", grads.dq.layout())?, q, "Q"),
            ("V", p.v, k, "K"),
            ("dK", Operand::of("dK", grads.dk.layout())?, k, "K"),
            ("dV", Operand::of("dV", grads.dv.layout())?, k, "K"),
        ];
        for (name, op, like, like_name) in named {
            if op.shape != like.shape {
                return Err(AttentionError::Shape(format!("{name} is {} but {like_name} is {}: they must agree", shape_text(op.shape), shape_text(like.shape))));
            }
        }
        let (batch, heads, seqlen_q, d) = (p.batch, p.heads, p.seqlen_q, p.d);
        check_rows("the log-sum-exp", saved.lse.layout(), batch, heads, seqlen_q)?;
        self.check_scale()?;
        let rows = batch * heads * seqlen_q;
        let stats = 2 * batch * heads * stats_rows(seqlen_q);
        let semaphores = batch * heads * semaphores_per_head(seqlen_q);
        if workspace.stats.len() < stats || workspace.dq_accum.len() < rows * d || workspace.semaphores.len() < semaphores {
            return Err(AttentionError::Shape(format!(
                "the workspace holds {} statistics, {} accumulators and {} counters: the problem needs {stats}, {} ({rows} rows of {d}) and {semaphores}",
                workspace.stats.len(),
                workspace.dq_accum.len(),
                workspace.semaphores.len(),
                rows * d
            )));
        }
        if !portable::ATTENTION_BWD_HEAD_DIMS.contains(&(d as u32)) {
            return Err(AttentionError::NoKernel(format!("the backward: head_dim {d}: it takes 64 or 128")));
        }
        for (name, op, like, like_name) in named {
            if op.strides() != like.strides() {
                return Err(AttentionError::NoKernel(format!("the backward: {name} must have {like_name}'s strides")));
            }
        }
        if heads > 65535 || batch > 65535 {
            return Err(AttentionError::NoKernel(format!("the backward's grid takes at most 65535 heads and batches (here {heads} and {batch})")));
        }
        Ok(p)
    }

    /// Why the Hopper backward cannot take the checked problem `p` (`None`: it can).
    fn sm90_backward_unsupported<T: AttentionElem>(&self, gpu: &Gpu, p: &Problem, saved: &AttentionSaved<'_, T>, grads: &mut AttentionGrads<'_, T>) -> Option<String> {
        let base = |b: &DeviceBuffer<T>| b.device_ptr();
        if let Some(why) = sm90_unsupported::<T>(p, gpu, [saved.q.buffer(), saved.k.buffer(), saved.v.buffer(), saved.o.buffer()].map(base)) {
            return Some(why);
        }
        if !sm90::ATTENTION_BWD_SM90_HEAD_DIMS.contains(&(p.d as u32)) {
            return Some(format!("head_dim {}: it takes 64 or 128", p.d));
        }
        for (name, address) in [("dO", base(grads.d_o.buffer())), ("dK", base(grads.dk.buffer())), ("dV", base(grads.dv.buffer()))] {
            if !address.is_multiple_of(16) {
                return Some(format!("{name}'s buffer is not 16-byte aligned (TMA)"));
            }
        }
        if p.batch * p.heads * p.seqlen_q == 0 || p.seqlen_k == 0 {
            return Some("an empty problem (no query rows or no keys) takes the portable kernels".to_string());
        }
        None
    }

    /// Launches the backward of the attention whose forward tensors are `saved`, for the output's
    /// gradient `grads.d_o`, writing `grads.dq`, `grads.dk` and `grads.dv` (see the
    /// [module docs](self)); returns the path taken, once launched. The options must be the
    /// forward call's (scale, causal mask).
    ///
    /// # Errors
    /// [`AttentionError::Shape`] for tensors that do not describe one problem, or a workspace too
    /// small (named); [`AttentionError::NoKernel`] for a problem the kernel does not take (head
    /// dimension, strides, the Hopper path forced); [`AttentionError::Host`] for the launches.
    ///
    /// # Example
    /// See the [module docs](self).
    pub fn backward<T: AttentionElem>(&self, gpu: &Gpu, saved: AttentionSaved<'_, T>, mut grads: AttentionGrads<'_, T>, workspace: &mut AttentionWorkspace) -> Result<AttentionPath, AttentionError> {
        let p = self.plan_backward(&saved, &grads, workspace)?;
        let why_not_sm90 = self.sm90_backward_unsupported(gpu, &p, &saved, &mut grads);
        let path = match (self.path, &why_not_sm90) {
            (Some(path), _) => path,
            (None, None) => AttentionPath::Sm90,
            (None, Some(_)) => AttentionPath::MmaSync,
        };
        if path == AttentionPath::Sm90 {
            if let Some(why) = why_not_sm90 {
                return Err(AttentionError::NoKernel(format!("the Hopper backward: {why}")));
            }
        }
        let d = p.d as u32;
        let kernels = attention_kernels::backward_kernels::<T>(d).ok_or_else(|| AttentionError::NoKernel(format!("the backward: no kernel of {} at head_dim {d}", T::NAME)))?;
        let scale = self.scale.unwrap_or(1.0 / (p.d as f32).sqrt());
        let ptr = |b: &DeviceBuffer<T>| b.device_ptr() as *mut T;
        let [heads, heads_kv, seqlen_q, seqlen_k] = [p.heads, p.heads_kv, p.seqlen_q, p.seqlen_k].map(|x| x as i64);
        let hopper = path == AttentionPath::Sm90;
        // The statistics: D alone, `seqlen_q` rows per head (portable), or the Hopper kernel's
        // rows of lse2 and D, `stats_rows` each, interleaved per head.
        let stats = workspace.stats.device_ptr() as *mut f32;
        let rows_per_head = if hopper { stats_rows(p.seqlen_q) } else { p.seqlen_q } as i64;
        let params = portable::AttentionBwdParams {
            q: ptr(saved.q.buffer()),
            k: ptr(saved.k.buffer()),
            v: ptr(saved.v.buffer()),
            o: ptr(saved.o.buffer()),
            d_o: ptr(grads.d_o.buffer()),
            dq: ptr(grads.dq.buffer()),
            dk: ptr(grads.dk.buffer()),
            dv: ptr(grads.dv.buffer()),
            lse: saved.lse.buffer().device_ptr() as *mut f32,
            delta: if hopper { stats.wrapping_add(rows_per_head as usize) } else { stats },
            lse2: if hopper { stats } else { std::ptr::null_mut() },
            stats_rows: rows_per_head,
            stats_stride: if hopper { 2 * rows_per_head } else { rows_per_head },
            dq_accum: workspace.dq_accum.device_ptr() as *mut f32,
            heads,
            heads_kv,
            seqlen_q,
            seqlen_k,
            q_strides: p.q.kernel_strides(),
            kv_strides: p.k.kernel_strides(),
            scale,
            causal: self.causal as u32,
            // The Hopper kernel orders its own additions to the accumulator, which the portable
            // first and third kernels then zero and convert as for atomic dQ.
            deterministic: (self.deterministic && !hopper) as u32,
        };
        let config = |len: usize, block: i64, heads: usize| LaunchConfig {
            grid: (len.div_ceil(block as usize) as u32, heads as u32, p.batch as u32),
            block: (portable::attention_bwd_threads(d), 1, 1),
            shared_mem_bytes: portable::attention_bwd_scratch_bytes(d),
        };
        let [prep, kv, dq] = kernels;
        let module = crate::modules::gemm();
        let rows = p.batch * p.heads * p.seqlen_q;
        // SAFETY (each launch): the checked layouts: Q, O, dO and dQ share strides, K, V, dK and dV
        // too, each buffer holds what they reach; the log-sum-exp and the workspace hold the
        // problem's rows; the kernels write only dQ, dK, dV and the workspace.
        if rows > 0 {
            // The Hopper kernel's statistics cover `stats_rows` rows per head.
            let prep_rows = if hopper { rows_per_head as usize } else { p.seqlen_q };
            unsafe { crate::gemm::on(gpu.launch(module, prep, config(prep_rows, portable::ATTENTION_BWD_ROWS, p.heads), (params,)), self.stream).run() }?;
        }
        if hopper {
            self.launch_sm90_backward::<T>(gpu, &p, scale, &saved, &mut grads, workspace)?;
        } else if p.batch * p.heads_kv * p.seqlen_k > 0 {
            unsafe { crate::gemm::on(gpu.launch(module, kv, config(p.seqlen_k, portable::ATTENTION_BWD_KEYS, p.heads_kv), (params,)), self.stream).run() }?;
        }
        if rows > 0 {
            unsafe { crate::gemm::on(gpu.launch(module, dq, config(p.seqlen_q, portable::ATTENTION_BWD_ROWS, p.heads), (params,)), self.stream).run() }?;
        }
        Ok(path)
    }

    /// The Hopper kernel of the backward (after the portable first kernel has written the
    /// statistics and zeroed the dQ accumulator): dK and dV, and dQ's reductions.
    fn launch_sm90_backward<T: AttentionElem>(
        &self,
        gpu: &Gpu,
        p: &Problem,
        scale: f32,
        saved: &AttentionSaved<'_, T>,
        grads: &mut AttentionGrads<'_, T>,
        workspace: &mut AttentionWorkspace,
    ) -> Result<(), AttentionError> {
        let d = p.d as u32;
        let kernel = attention_kernels::backward_sm90_kernel::<T>(d).ok_or_else(|| AttentionError::NoKernel(format!("the Hopper backward: no kernel of {} at head_dim {d}", T::NAME)))?;
        let (bm, bn) = (sm90::attention_bwd_sm90_block_m(d), sm90::ATTENTION_BWD_SM90_BN);
        let q = tensor_map(gpu, saved.q.buffer(), p.q, p.seqlen_q, p.heads, bm)?;
        let k = tensor_map(gpu, saved.k.buffer(), p.k, p.seqlen_k, p.heads_kv, bn)?;
        let v = tensor_map(gpu, saved.v.buffer(), p.k, p.seqlen_k, p.heads_kv, bn)?;
        let d_o = tensor_map(gpu, grads.d_o.buffer(), p.q, p.seqlen_q, p.heads, bm)?;
        // dK and dV are stored in boxes of 64 keys (a consumer warpgroup's).
        let dk = tensor_map(gpu, grads.dk.buffer(), p.k, p.seqlen_k, p.heads_kv, 64)?;
        let dv = tensor_map(gpu, grads.dv.buffer(), p.k, p.seqlen_k, p.heads_kv, 64)?;
        let rows = stats_rows(p.seqlen_q);
        let heads = p.batch * p.heads;
        let stats = gpu.tensor_map(&workspace.stats, flat_layout(&[rows, 2 * heads], &[1, rows])?, &[bm, 2], TmaSwizzle::None, TmaOobFill::Zero)?;
        let accum = flat_layout(&[p.d, p.seqlen_q, p.heads, p.batch], &[1, p.heads * p.d, p.d, p.seqlen_q * p.heads * p.d])?;
        let dq = gpu.tensor_map(&workspace.dq_accum, accum, &[32, 64, 1, 1], TmaSwizzle::B128, TmaOobFill::Zero)?;
        let [batch, heads, heads_kv, seqlen_q, seqlen_k] = [p.batch, p.heads, p.heads_kv, p.seqlen_q, p.seqlen_k].map(|x| x as u32);
        let params = sm90::AttentionBwdSm90Params {
            batch,
            heads,
            heads_kv,
            seqlen_q,
            seqlen_k,
            scale,
            scale_log2: scale * std::f32::consts::LOG2_E,
            causal: self.causal as u32,
            deterministic: self.deterministic as u32,
            semaphores: workspace.semaphores.device_ptr() as *mut u32,
        };
        let cfg = LaunchConfig {
            grid: (seqlen_k.div_ceil(bn), heads_kv, batch),
            block: (sm90::ATTENTION_BWD_SM90_THREADS, 1, 1),
            shared_mem_bytes: sm90::attention_bwd_sm90_smem_bytes(d),
        };
        let launch = gpu.launch(crate::modules::gemm_sm90a(), kernel, cfg, (q, k, v, d_o, stats, dq, dk, dv, params));
        // SAFETY: the maps cover Q, K, V, dO, dK and dV (the stores are clipped to them) and the
        // workspace's statistics and accumulator, which hold the problem's rows, as its counters
        // (zero between calls) hold its query blocks (checked); the kernel writes only dK, dV, the
        // accumulator and the counters.
        unsafe { crate::gemm::on(launch, self.stream).run() }?;
        Ok(())
    }
}
