//! Tensor-parallel GEMMs over a group of devices (Megatron-LM's column- and row-parallel linear
//! layers, with the sequence-parallel layout of the activations between them):
//! - [`column_parallel`](TensorParallel::column_parallel): each device holds some tokens (rows of
//!   A) and some output features (columns of B); the rows are all-gathered, then each device
//!   computes every token's share of its own features;
//! - [`row_parallel`](TensorParallel::row_parallel): each device holds a share of the reduction
//!   (columns of A, rows of B); each computes the partial product of every token, and a
//!   reduce-scatter leaves each device its tokens' sums.
//!
//! In the distributions of `cute_rs_layout::distribution` over the group's mesh dimension: the
//! column-parallel GEMM takes A as `[Shard(0)]` and B as `[Shard(1)]` and gives D as
//! `[Shard(1)]`; the row-parallel one takes A as `[Shard(1)]` and B as `[Shard(0)]`, makes the
//! product `[Partial]` and reduce-scatters it to `[Shard(0)]`. A transformer MLP block is one of
//! each: the column-parallel up-projection with its activation, then the row-parallel
//! down-projection.
//!
//! The collectives are the group's ([`Communicator`]: NCCL's semantics; the CPU backend's
//! in-process devices run them without a GPU). Each GEMM is one [`Matmul`] call after (or
//! before) its collective.
//!
//! # Example
//! ```
//! use cute_rs_host::collective::Communicator;
//! use cute_rs_ops::tensor_parallel::TensorParallel;
//! use cute_rs_tensor::half::bf16;
//!
//! // Two devices, 2 tokens each, K = 4, 3 output features each.
//! let d: Vec<Vec<f32>> = std::thread::scope(|s| {
//!     let hs: Vec<_> = Communicator::cpu_group(2).into_iter().map(|c| s.spawn(move || {
//!         let gpu = c.gpu();
//!         let a = gpu.upload(&[bf16::from_f32(1.0); 2 * 4])?; // 2 x 4, row-major
//!         let b = gpu.upload(&[bf16::from_f32(0.5); 4 * 3])?; // 4 x 3, column-major
//!         let mut d = gpu.alloc::<f32>(4 * 3)?; // all 4 tokens x 3 features, row-major
//!         TensorParallel::new(&c).column_parallel(&a, &b, &mut d, (2, 3, 4))?;
//!         Ok::<_, cute_rs_ops::GemmError>(gpu.download(&d)?)
//!     })).collect();
//!     hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
//! });
//! assert!(d.iter().flatten().all(|&x| x == 2.0));
//! ```

use cute_rs_host::collective::Communicator;
use cute_rs_host::DeviceBuffer;
use cute_rs_layout::Layout;

use crate::gemm::{GemmError, GemmInput, GemmOutput, GemmPath};
use crate::Matmul;

/// The tensor-parallel GEMMs of one member of a group (see the [module docs](self)).
#[derive(Clone, Copy)]
pub struct TensorParallel<'a> {
    group: &'a Communicator,
    matmul: Matmul<'a>,
}

/// A layout or its parse, as a GEMM error.
fn layout(text: String) -> Result<Layout, GemmError> {
    Layout::parse(&text).map_err(|e| GemmError::NoKernel(format!("layout {text}: {e}")))
}

impl<'a> TensorParallel<'a> {
    /// The GEMMs of this member of `group` (for a mesh, the group along one dimension:
    /// `MeshComm::along`).
    pub fn new(group: &'a Communicator) -> TensorParallel<'a> {
        TensorParallel { group, matmul: Matmul::new() }
    }

    /// The local GEMM call: its epilogue in [`column_parallel`](Self::column_parallel) (a bias
    /// per column is this device's features' share), its path and stream in both.
    ///
    /// # Example
    /// ```
    /// use cute_rs_ops::{gemm::Activation, Matmul};
    /// let group = &cute_rs_host::collective::Communicator::cpu_group(1)[0];
    /// let _ = cute_rs_ops::tensor_parallel::TensorParallel::new(group).matmul(Matmul::new().activation(Activation::Gelu));
    /// ```
    pub fn matmul(self, matmul: Matmul<'a>) -> TensorParallel<'a> {
        TensorParallel { matmul, ..self }
    }

    /// `D_local = all_gather(A_local) B_local`: A_local is this member's `m_local` rows of A
    /// (row-major, `m_local x k`), gathered in rank order; B_local its `n_local` columns of B
    /// (column-major, `k x n_local`: rows of the weights `W` of `X W^T`); D_local (row-major,
    /// `size m_local x n_local`) every row's share of this member's columns, through the
    /// call's epilogue.
    ///
    /// # Errors
    /// `Shape` when a buffer does not hold its shape; the collective's (as `Host`) and the
    /// GEMM's errors.
    pub fn column_parallel<T: GemmInput, O: GemmOutput>(
        &self,
        a_local: &DeviceBuffer<T>,
        b_local: &DeviceBuffer<T>,
        d_local: &mut DeviceBuffer<O>,
        (m_local, n_local, k): (usize, usize, usize),
    ) -> Result<GemmPath, GemmError> {
        let (gpu, p) = (self.group.gpu(), self.group.size());
        let m = p * m_local;
        shape("A", format!("M x K = {m_local} x {k}"), m_local * k, a_local.len())?;
        let mut a = gpu.alloc::<T>(m * k)?;
        self.group.all_gather(a_local, &mut a)?;
        self.matmul.run(
            gpu,
            a.tensor(layout(format!("({m},{k}):({k},1)"))?)?,
            b_local.tensor(layout(format!("({k},{n_local}):(1,{k})"))?)?,
            None,
            d_local.tensor_mut(layout(format!("({m},{n_local}):({n_local},1)"))?)?,
        )
    }

    /// `D_local = reduce_scatter(A_local B_local)` by rows: A_local is this member's `k_local`
    /// columns of A for every row (row-major, `m x k_local`), B_local its `k_local` rows of B
    /// (column-major, `k_local x n`); the f32 partial products of all members are added in rank
    /// order and D_local (row-major, `m / size x n`) gets this member's rows of the sum. An
    /// epilogue belongs after the sum, so the partial products take none.
    ///
    /// # Errors
    /// `Shape` when a buffer does not hold its shape or the members do not divide `m`; the
    /// collective's (as `Host`) and the GEMM's errors.
    pub fn row_parallel<T: GemmInput>(
        &self,
        a_local: &DeviceBuffer<T>,
        b_local: &DeviceBuffer<T>,
        d_local: &mut DeviceBuffer<f32>,
        (m, n, k_local): (usize, usize, usize),
    ) -> Result<GemmPath, GemmError> {
        let (gpu, p) = (self.group.gpu(), self.group.size());
        if m % p != 0 {
            return Err(GemmError::Shape { operand: "D", shape: format!("M = {m} over {p} members"), expected: m.div_ceil(p) * p, got: m });
        }
        shape("D", format!("M / members x N = {} x {n}", m / p), m / p * n, d_local.len())?;
        let mut partial = gpu.alloc::<f32>(m * n)?;
        let path = self.matmul.without_epilogue().run(
            gpu,
            a_local.tensor(layout(format!("({m},{k_local}):({k_local},1)"))?)?,
            b_local.tensor(layout(format!("({k_local},{n}):(1,{k_local})"))?)?,
            None,
            partial.tensor_mut(layout(format!("({m},{n}):({n},1)"))?)?,
        )?;
        self.group.reduce_scatter(&partial, d_local)?;
        Ok(path)
    }
}

/// A buffer of `got` elements for a shape of `expected`.
fn shape(operand: &'static str, shape: String, expected: usize, got: usize) -> Result<(), GemmError> {
    if expected == got { Ok(()) } else { Err(GemmError::Shape { operand, shape, expected, got }) }
}
