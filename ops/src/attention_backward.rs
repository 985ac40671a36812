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
//! The kernel is the portable one on `mma.sync` (`cute_rs_kernels::attention_bwd`; any GPU from
//! sm_80, and the CPU backend), three launches on the call's stream. dQ is accumulated in f32
//! with atomics by default, in an order that varies from run to run; with
//! [`deterministic`](Attention::deterministic) a separate pass recomputes it in a fixed order, so
//! that every gradient is bitwise the same from run to run. The f32 scratch lives in an
//! [`AttentionWorkspace`], made once for a problem size and reused.
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

use cute_rs_host::{DeviceBuffer, DeviceTensor, DeviceTensorMut, Gpu, LaunchConfig};
use cute_rs_layout::Layout;
use cute_rs_kernels::attention_bwd as portable;

use crate::attention::{check_rows, shape_text, Attention, AttentionElem, AttentionError, AttentionPath, Operand, Problem};
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

/// The f32 scratch of the backward of problems up to a size: `rowsum(dO ∘ O)` for each query
/// row of each head, and the dQ accumulator. Made once and reused, so that a call allocates
/// nothing and stays asynchronous; one call at a time may use it.
///
/// # Example
/// ```
/// let gpu = cute_rs_host::Gpu::cpu();
/// let w = cute_rs_ops::attention_backward::AttentionWorkspace::new(&gpu, 2, 8, 1024, 128)?;
/// assert_eq!(w.bytes(), 4 * (2 * 8 * 1024) * (1 + 128));
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct AttentionWorkspace {
    delta: DeviceBuffer<f32>,
    dq_accum: DeviceBuffer<f32>,
}

impl AttentionWorkspace {
    /// The scratch of problems of at most `batch * heads * seqlen_q` query rows of head dimension
    /// `head_dim` (or fewer rows of a larger one).
    ///
    /// # Errors
    /// The allocation's.
    ///
    /// # Example
    /// See [`AttentionWorkspace`].
    pub fn new(gpu: &Gpu, batch: usize, heads: usize, seqlen_q: usize, head_dim: usize) -> Result<AttentionWorkspace, cute_rs_host::HostError> {
        let rows = batch * heads * seqlen_q;
        Ok(AttentionWorkspace { delta: gpu.alloc(rows)?, dq_accum: gpu.alloc(rows * head_dim)? })
    }

    /// The bytes it holds.
    ///
    /// # Example
    /// See [`AttentionWorkspace`].
    pub fn bytes(&self) -> usize {
        4 * (self.delta.len() + self.dq_accum.len())
    }
}

impl<'a> Attention<'a> {
    /// Makes [`backward`](Self::backward) bitwise reproducible: dQ is recomputed in a fixed order
    /// by a pass of its own (the key and value blocks are read once more) instead of accumulated
    /// with atomics. dK and dV are reproducible either way.
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
        if workspace.delta.len() < rows || workspace.dq_accum.len() < rows * d {
            return Err(AttentionError::Shape(format!(
                "the workspace holds {} rows of {} values: the problem needs {rows} rows of {d}",
                workspace.delta.len(),
                workspace.dq_accum.len() / workspace.delta.len().max(1)
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
        if self.path == Some(AttentionPath::Sm90) {
            return Err(AttentionError::NoKernel("the backward has no Hopper kernel: the portable one (AttentionPath::MmaSync) runs on sm_90 too".to_string()));
        }
        Ok(p)
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
        let d = p.d as u32;
        let kernels = attention_kernels::backward_kernels::<T>(d).ok_or_else(|| AttentionError::NoKernel(format!("the backward: no kernel of {} at head_dim {d}", T::NAME)))?;
        let scale = self.scale.unwrap_or(1.0 / (p.d as f32).sqrt());
        let ptr = |b: &DeviceBuffer<T>| b.device_ptr() as *mut T;
        let [heads, heads_kv, seqlen_q, seqlen_k] = [p.heads, p.heads_kv, p.seqlen_q, p.seqlen_k].map(|x| x as i64);
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
            delta: workspace.delta.device_ptr() as *mut f32,
            dq_accum: workspace.dq_accum.device_ptr() as *mut f32,
            heads,
            heads_kv,
            seqlen_q,
            seqlen_k,
            q_strides: p.q.kernel_strides(),
            kv_strides: p.k.kernel_strides(),
            scale,
            causal: self.causal as u32,
            deterministic: self.deterministic as u32,
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
            unsafe { crate::gemm::on(gpu.launch(module, prep, config(p.seqlen_q, portable::ATTENTION_BWD_ROWS, p.heads), (params,)), self.stream).run() }?;
        }
        if p.batch * p.heads_kv * p.seqlen_k > 0 {
            unsafe { crate::gemm::on(gpu.launch(module, kv, config(p.seqlen_k, portable::ATTENTION_BWD_KEYS, p.heads_kv), (params,)), self.stream).run() }?;
        }
        if rows > 0 {
            unsafe { crate::gemm::on(gpu.launch(module, dq, config(p.seqlen_q, portable::ATTENTION_BWD_ROWS, p.heads), (params,)), self.stream).run() }?;
        }
        Ok(AttentionPath::MmaSync)
    }
}
