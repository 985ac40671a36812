//! Tensors laid out over devices: a [`Mesh`] of devices, a tensor's [`Distribution`] over it as a
//! layout from (local element, device) to the global element, and the [`Plan`] of collectives that
//! redistributes a tensor from one distribution to another.
//!
//! A distribution is to devices what a thread-value layout is to threads. CuTe's TV layout maps
//! `(thread, value)` to the element a thread's value holds; [`Distribution::layout`] maps `(local
//! element, device)` to the element of the global tensor that a device's local element holds:
//! - **sharding** a tensor mode over a mesh dimension divides the mode by the mesh dimension's size
//!   (a local extent, and a device mode whose stride steps from one shard to the next);
//! - **replication** is stride 0 over the mesh dimension: every device along it holds the same
//!   elements;
//! - a **pending reduction** ([`Placement::Partial`]) is stride 0 too, marked: the devices along the
//!   mesh dimension hold addends, and the tensor is their sum.
//!
//! Indices are CuTe's: the global tensor's elements by their colexicographic index over its shape
//! (the first mode fastest), each device's local tensor the same over the local shape, and the mesh
//! mode by mesh coordinate (the mesh's own layout gives the device's rank). These functions plan on
//! the host; they are not `const`.
//!
//! # Example: PyTorch's DTensor and JAX's `PartitionSpec`
//! ```
//! use cute_rs_layout::distribution::{Distribution, Mesh, Placement::*};
//! // A 2 x 4 mesh of 8 devices (ranks row-major, as torch's DeviceMesh and a JAX Mesh number them)
//! // and an 8 x 16 tensor.
//! let mesh = Mesh::new(&[2, 4])?;
//! // torch: distribute_tensor(t, mesh, [Shard(0), Replicate()]) -- rows split over mesh dimension 0.
//! let rows = Distribution::new(&[8, 16], mesh, &[Shard(0), Replicate])?;
//! assert_eq!(rows.layout().to_string(), "((4,16),(2,4)):((1,8),(4,0))");
//! // JAX: NamedSharding(mesh, P('x', None)), mesh axes ('x', 'y'): the same distribution.
//! assert_eq!(Distribution::from_partition_spec(&[8, 16], mesh, &[&[0], &[]])?, rows);
//! // torch [Shard(0), Shard(1)], JAX P('x', 'y'): a 4 x 4 block on each device.
//! let blocks = Distribution::new(&[8, 16], mesh, &[Shard(0), Shard(1)])?;
//! assert_eq!(blocks.layout().to_string(), "((4,4),(2,4)):((1,8),(4,32))");
//! // Device 6 (mesh coordinate (1, 2)) holds rows 4..8 of columns 8..12: element (5, 9) is its
//! // local element (1, 1), local index 1 + 4 * 1.
//! let global = 5 + 8 * 9;
//! assert_eq!(blocks.owners(global).collect::<Vec<_>>(), [(6, 5)]);
//! assert_eq!(blocks.global_index(6, 5), global);
//! // torch [Partial(), Shard(1)]: each device of a column holds an addend of its columns.
//! let partial = Distribution::new(&[8, 16], mesh, &[Partial, Shard(1)])?;
//! assert!(partial.is_partial());
//! # Ok::<(), cute_rs_layout::LayoutError>(())
//! ```

use crate::error::LayoutError;
use crate::int_tuple::{IntTuple, MAX_LEAVES};
use crate::layout::{make_layout, make_layout_row_major, Layout};

/// The most dimensions a [`Mesh`] has.
pub const MAX_MESH_DIMS: usize = 4;
/// The most modes a distributed tensor has.
pub const MAX_TENSOR_MODES: usize = 8;
const _: () = assert!(MAX_MESH_DIMS + MAX_TENSOR_MODES <= MAX_LEAVES, "a distribution's layout fits a Layout");

/// Devices arranged in a grid: a layout from mesh coordinates to device ranks, a bijection onto
/// `0..devices`.
///
/// # Example
/// ```
/// use cute_rs_layout::{distribution::Mesh, Layout};
/// let mesh = Mesh::new(&[2, 3])?; // ranks row-major: coordinate (1, 0) is rank 3
/// assert_eq!((mesh.devices(), mesh.dims(), mesh.extent(1)), (6, 2, 3));
/// assert_eq!(mesh.coord(3), [1, 0, 0, 0]);
/// // Any bijection: ranks column-major.
/// let cols = Mesh::from_layout(Layout::parse("(2,3):(1,2)")?)?;
/// assert_eq!(cols.coord(3), [1, 1, 0, 0]);
/// assert!(Mesh::from_layout(Layout::parse("(2,3):(1,1)")?).is_err()); // two coordinates, one rank
/// # Ok::<(), cute_rs_layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mesh {
    layout: Layout,
}

impl Mesh {
    /// A mesh of `shape` (at most [`MAX_MESH_DIMS`] dimensions) whose ranks run row-major (the
    /// last dimension fastest), as PyTorch's `DeviceMesh` and JAX's `Mesh` number them.
    ///
    /// # Errors
    /// `Capacity` past [`MAX_MESH_DIMS`] dimensions, `NonPositiveShape` for an extent below 1.
    pub fn new(shape: &[i64]) -> Result<Mesh, LayoutError> {
        if shape.len() > MAX_MESH_DIMS {
            return Err(LayoutError::Capacity { what: "mesh dimensions", limit: MAX_MESH_DIMS });
        }
        Mesh::from_layout(make_layout_row_major(IntTuple::from_slice(shape)?)?)
    }

    /// The mesh whose coordinate `c` is rank `layout(c)`.
    ///
    /// # Errors
    /// `Capacity` for a layout of more than [`MAX_MESH_DIMS`] modes; `InvalidArgument` naming the
    /// condition when two coordinates have one rank or a rank is past `0..size`.
    pub fn from_layout(layout: Layout) -> Result<Mesh, LayoutError> {
        let layout = crate::layout::flatten(layout);
        if layout.rank() > MAX_MESH_DIMS {
            return Err(LayoutError::Capacity { what: "mesh dimensions", limit: MAX_MESH_DIMS });
        }
        let n = layout.size();
        if layout.cosize() != n {
            return Err(LayoutError::InvalidArgument { op: "mesh", condition: "the ranks are 0..devices, each once (cosize = size)", value: layout.cosize() });
        }
        // Every rank below n is reached: no two coordinates share one (n values in 0..n).
        let mut i = 0;
        while i < n {
            let r = layout.call(i);
            let mut j = 0;
            while j < i {
                if layout.call(j) == r {
                    return Err(LayoutError::InvalidArgument { op: "mesh", condition: "each rank has one coordinate", value: r });
                }
                j += 1;
            }
            i += 1;
        }
        Ok(Mesh { layout })
    }

    /// The layout from mesh coordinates to ranks.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Mesh dimensions.
    pub fn dims(&self) -> usize {
        self.layout.rank()
    }

    /// Devices of dimension `dim` (1 past the last dimension).
    pub fn extent(&self, dim: usize) -> i64 {
        if dim < self.dims() { self.layout.shape().leaves()[dim] } else { 1 }
    }

    /// Devices in all.
    pub fn devices(&self) -> i64 {
        self.layout.size()
    }

    /// The colexicographic index of the mesh coordinate of `rank` (the index of the distribution
    /// layouts' device mode).
    fn index_of(&self, rank: i64) -> i64 {
        (0..self.devices()).find(|&i| self.layout.call(i) == rank).unwrap_or(0)
    }

    /// The mesh coordinate of device `rank` (zeros past the mesh's dimensions).
    pub fn coord(&self, rank: i64) -> [i64; MAX_MESH_DIMS] {
        let mut c = [0; MAX_MESH_DIMS];
        let mut idx = self.index_of(rank);
        for (d, x) in c.iter_mut().enumerate().take(self.dims()) {
            *x = idx % self.extent(d);
            idx /= self.extent(d);
        }
        c
    }

    /// The rank at mesh coordinate `coord`.
    pub fn rank_at(&self, coord: &[i64]) -> i64 {
        let (mut idx, mut step) = (0, 1);
        for d in 0..self.dims() {
            idx += coord[d] * step;
            step *= self.extent(d);
        }
        self.layout.call(idx)
    }
}

/// How a tensor lies along one mesh dimension (PyTorch's DTensor placements).
///
/// # Example
/// ```
/// use cute_rs_layout::distribution::{Distribution, Mesh, Placement};
/// let d = Distribution::new(&[8, 4], Mesh::new(&[2, 2])?, &[Placement::Partial, Placement::Shard(1)])?;
/// assert_eq!((d.placement(0), d.placement(1)), (Placement::Partial, Placement::Shard(1)));
/// # Ok::<(), cute_rs_layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Tensor mode `.0` is divided among the devices along the dimension.
    Shard(usize),
    /// Every device along the dimension holds the same elements.
    Replicate,
    /// The devices along the dimension hold addends: the tensor is their sum.
    Partial,
}

/// A tensor's distribution over a [`Mesh`]: its global shape, and for each tensor mode the mesh
/// dimensions that shard it, major first; the other mesh dimensions replicate it or hold
/// addends ([`Placement::Partial`]).
///
/// See the [module docs](self) for the layout it is.
///
/// # Example
/// ```
/// use cute_rs_layout::distribution::{Distribution, Mesh, Placement::*};
/// // Rows over both dimensions of a 2 x 2 mesh, dimension 0 major: device (i, j) holds rows
/// // 2 (2 i + j) and 2 (2 i + j) + 1.
/// let d = Distribution::new(&[8], Mesh::new(&[2, 2])?, &[Shard(0), Shard(0)])?;
/// assert_eq!((d.sharders(0), d.local_extent(0)), (&[0, 1][..], 2));
/// assert_eq!(d.layout().to_string(), "((2),(2,2)):((1),(4,2))");
/// assert_eq!(d.owners(5).collect::<Vec<_>>(), [(2, 1)]); // row 5: device (1, 0)
/// # Ok::<(), cute_rs_layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Distribution {
    shape: [i64; MAX_TENSOR_MODES],
    modes: usize,
    mesh: Mesh,
    /// For each tensor mode, the mesh dimensions sharding it, major first (`len` of them).
    sharders: [[usize; MAX_MESH_DIMS]; MAX_TENSOR_MODES],
    len: [usize; MAX_TENSOR_MODES],
    partial: [bool; MAX_MESH_DIMS],
}

impl Distribution {
    /// The distribution of a tensor of `shape` over `mesh` with one placement per mesh
    /// dimension, as PyTorch's `distribute_tensor(t, mesh, placements)`: where several mesh
    /// dimensions shard one tensor mode, the lower dimension is the major one.
    ///
    /// # Errors
    /// Named: `RankMismatch` unless there is one placement per mesh dimension; `OutOfBounds` for a
    /// `Shard` of a mode past the tensor's; `ShapeDivisibility` when the devices sharding a mode
    /// do not divide its extent; `Capacity` past [`MAX_TENSOR_MODES`] modes.
    pub fn new(shape: &[i64], mesh: Mesh, placements: &[Placement]) -> Result<Distribution, LayoutError> {
        if placements.len() != mesh.dims() {
            return Err(LayoutError::RankMismatch { op: "distribution", expected: mesh.dims(), found: placements.len() });
        }
        let mut d = Distribution::replicated(shape, mesh)?;
        for (k, p) in placements.iter().enumerate() {
            match *p {
                Placement::Shard(mode) => d.push_sharder(mode, k)?,
                Placement::Replicate => {}
                Placement::Partial => d.partial[k] = true,
            }
        }
        d.check()?;
        Ok(d)
    }

    /// The distribution JAX's `NamedSharding(mesh, PartitionSpec(...))` describes: for each tensor
    /// mode, the mesh dimensions (axes) that shard it, major first (`&[]`: `None`, replicated);
    /// mesh dimensions no mode names replicate the tensor.
    ///
    /// # Errors
    /// Those of [`new`](Self::new), `RankMismatch` unless there is one entry per tensor mode, and
    /// `InvalidArgument` for a mesh dimension named twice or past the mesh's.
    pub fn from_partition_spec(shape: &[i64], mesh: Mesh, spec: &[&[usize]]) -> Result<Distribution, LayoutError> {
        if spec.len() != shape.len() {
            return Err(LayoutError::RankMismatch { op: "partition spec", expected: shape.len(), found: spec.len() });
        }
        let mut d = Distribution::replicated(shape, mesh)?;
        for (mode, axes) in spec.iter().enumerate() {
            for &k in axes.iter() {
                d.push_sharder(mode, k)?;
            }
        }
        d.check()?;
        Ok(d)
    }

    /// Replicated on every device.
    fn replicated(shape: &[i64], mesh: Mesh) -> Result<Distribution, LayoutError> {
        if shape.len() > MAX_TENSOR_MODES {
            return Err(LayoutError::Capacity { what: "tensor modes", limit: MAX_TENSOR_MODES });
        }
        let mut s = [1; MAX_TENSOR_MODES];
        for (i, &x) in shape.iter().enumerate() {
            if x < 1 {
                return Err(LayoutError::NonPositiveShape { op: "distribution", value: x });
            }
            s[i] = x;
        }
        Ok(Distribution { shape: s, modes: shape.len(), mesh, sharders: [[0; MAX_MESH_DIMS]; MAX_TENSOR_MODES], len: [0; MAX_TENSOR_MODES], partial: [false; MAX_MESH_DIMS] })
    }

    /// Mesh dimension `k` shards `mode`, inside the dimensions that shard it already.
    fn push_sharder(&mut self, mode: usize, k: usize) -> Result<(), LayoutError> {
        if mode >= self.modes {
            return Err(LayoutError::OutOfBounds { op: "distribution: sharded mode", value: mode as i64, extent: self.modes as i64 });
        }
        if k >= self.mesh.dims() || self.placement(k) != Placement::Replicate {
            return Err(LayoutError::InvalidArgument { op: "distribution", condition: "each mesh dimension places the tensor once", value: k as i64 });
        }
        self.sharders[mode][self.len[mode]] = k;
        self.len[mode] += 1;
        Ok(())
    }

    /// Every sharded extent divides evenly.
    fn check(&self) -> Result<(), LayoutError> {
        for mode in 0..self.modes {
            let devices = self.devices_of(mode);
            if self.shape[mode] % devices != 0 {
                return Err(LayoutError::ShapeDivisibility { op: "distribution", divisor: devices, dividend: self.shape[mode] });
            }
        }
        Ok(())
    }

    /// The devices that divide `mode`.
    fn devices_of(&self, mode: usize) -> i64 {
        self.sharders[mode][..self.len[mode]].iter().map(|&k| self.mesh.extent(k)).product()
    }

    /// The mesh.
    pub fn mesh(&self) -> Mesh {
        self.mesh
    }

    /// The global tensor's shape.
    pub fn global_shape(&self) -> &[i64] {
        &self.shape[..self.modes]
    }

    /// The placement along mesh dimension `k` (a tensor mode sharded by several dimensions is
    /// `Shard` of it for each).
    pub fn placement(&self, k: usize) -> Placement {
        if self.partial[k] {
            return Placement::Partial;
        }
        (0..self.modes).find(|&m| self.sharders[m][..self.len[m]].contains(&k)).map_or(Placement::Replicate, Placement::Shard)
    }

    /// The mesh dimensions sharding `mode`, major first.
    pub fn sharders(&self, mode: usize) -> &[usize] {
        &self.sharders[mode][..self.len[mode]]
    }

    /// Whether a reduction is pending along some mesh dimension.
    pub fn is_partial(&self) -> bool {
        self.partial.iter().any(|&p| p)
    }

    /// The extent of `mode` on each device.
    pub fn local_extent(&self, mode: usize) -> i64 {
        self.shape[mode] / self.devices_of(mode)
    }

    /// Elements of each device's local tensor.
    pub fn local_size(&self) -> i64 {
        (0..self.modes).map(|m| self.local_extent(m)).product()
    }

    /// `((local modes), (mesh dimensions)) -> global index`: the element of the global tensor that
    /// local element `v` of the device at mesh coordinate `c` holds is `layout()(v, c)`.
    /// Replicated and partial mesh dimensions have stride 0.
    pub fn layout(&self) -> Layout {
        let (mut local, mut devices) = ([0i64; MAX_TENSOR_MODES], [0i64; MAX_MESH_DIMS]);
        let (mut local_stride, mut device_stride) = ([0i64; MAX_TENSOR_MODES], [0i64; MAX_MESH_DIMS]);
        let mut step = 1;
        for m in 0..self.modes {
            local[m] = self.local_extent(m);
            local_stride[m] = step;
            // Inner sharders step by the local extent, each outer one by all inner shards.
            let mut shard_step = step * local[m];
            for &k in self.sharders(m).iter().rev() {
                device_stride[k] = shard_step;
                shard_step *= self.mesh.extent(k);
            }
            step *= self.shape[m];
        }
        for (k, d) in devices.iter_mut().enumerate().take(self.mesh.dims()) {
            *d = self.mesh.extent(k);
        }
        // Within capacity (MAX_TENSOR_MODES + MAX_MESH_DIMS leaves, fewer than MAX_LEAVES) and
        // positive extents: these cannot fail.
        const FITS: &str = "a distribution's layout fits a Layout";
        let mode = |shape: &[i64], stride: &[i64]| -> Layout {
            Layout::new(IntTuple::from_slice(shape).expect(FITS), IntTuple::from_slice(stride).expect(FITS)).expect(FITS)
        };
        let (l, d) = (mode(&local[..self.modes], &local_stride[..self.modes]), mode(&devices[..self.mesh.dims()], &device_stride[..self.mesh.dims()]));
        make_layout(&[l, d]).expect(FITS)
    }

    /// The global index of local element `local` of device `rank`.
    pub fn global_index(&self, rank: i64, local: i64) -> i64 {
        self.layout().call(local + self.local_size() * self.mesh.index_of(rank))
    }

    /// The devices holding global element `global` (an addend of it when partial) and its index
    /// in each one's local tensor, `(rank, local index)`, by rank.
    pub fn owners(&self, global: i64) -> impl Iterator<Item = (i64, i64)> + '_ {
        let d = *self;
        (0..self.mesh.devices()).filter_map(move |rank| {
            let c = d.mesh.coord(rank);
            let (mut rest, mut local, mut step) = (global, 0, 1);
            for m in 0..d.modes {
                let x = rest % d.shape[m];
                rest /= d.shape[m];
                let l = d.local_extent(m);
                // The shard that holds x, in the sharders' mixed radix (inner fastest).
                let mut shard = x / l;
                for &k in d.sharders(m).iter().rev() {
                    if shard % d.mesh.extent(k) != c[k] {
                        return None;
                    }
                    shard /= d.mesh.extent(k);
                }
                local += (x % l) * step;
                step *= l;
            }
            Some((rank, local))
        })
    }

    /// The collectives that take a tensor from this distribution to `to` (same global shape and
    /// mesh), in order; see [`Plan`].
    ///
    /// # Errors
    /// `InvalidArgument` naming the condition when the shapes or meshes differ.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout::distribution::{Collective, Distribution, Mesh, Placement::*};
    /// let mesh = Mesh::new(&[4])?;
    /// let sharded = Distribution::new(&[8, 8], mesh, &[Shard(0)])?;
    /// let whole = Distribution::new(&[8, 8], mesh, &[Replicate])?;
    /// let partial = Distribution::new(&[8, 8], mesh, &[Partial])?;
    /// let cols = Distribution::new(&[8, 8], mesh, &[Shard(1)])?;
    /// assert_eq!(sharded.redistribute(&whole)?.steps(), [Collective::AllGather { mesh_dim: 0, mode: 0 }]);
    /// assert_eq!(partial.redistribute(&sharded)?.steps(), [Collective::ReduceScatter { mesh_dim: 0, mode: 0 }]);
    /// assert_eq!(partial.redistribute(&whole)?.steps(), [Collective::AllReduce { mesh_dim: 0 }]);
    /// assert_eq!(sharded.redistribute(&cols)?.steps(), [Collective::AllToAll { mesh_dim: 0, from: 0, to: 1 }]);
    /// assert_eq!(whole.redistribute(&cols)?.steps(), [Collective::Slice { mesh_dim: 0, mode: 1 }]);
    /// # Ok::<(), cute_rs_layout::LayoutError>(())
    /// ```
    pub fn redistribute(&self, to: &Distribution) -> Result<Plan, LayoutError> {
        if self.global_shape() != to.global_shape() {
            return Err(LayoutError::InvalidArgument { op: "redistribute", condition: "both distributions have one global shape", value: to.modes as i64 });
        }
        if self.mesh != to.mesh {
            return Err(LayoutError::InvalidArgument { op: "redistribute", condition: "both distributions have one mesh", value: to.mesh.devices() });
        }
        let mut plan = Plan { steps: [Collective::AllReduce { mesh_dim: 0 }; MAX_STEPS], len: 0 };
        let mut cur = *self;
        // 1. Undo the sharding that `to` does not keep: a mode's sharders past its common prefix
        //    with `to`'s, innermost first (gathering the innermost shard concatenates contiguous
        //    blocks). Where `to` shards another mode by the same mesh dimension next, innermost,
        //    one all-to-all does both.
        for m in 0..cur.modes {
            let keep = common_prefix(cur.sharders(m), to.sharders(m));
            while cur.len[m] > keep {
                let k = cur.sharders[m][cur.len[m] - 1];
                cur.len[m] -= 1;
                match to.placement(k) {
                    Placement::Shard(e) if e != m && cur.extends_to(e, k, to) => {
                        cur.sharders[e][cur.len[e]] = k;
                        cur.len[e] += 1;
                        plan.push(Collective::AllToAll { mesh_dim: k, from: m, to: e });
                    }
                    _ => plan.push(Collective::AllGather { mesh_dim: k, mode: m }),
                }
            }
        }
        // 2. The pending reductions `to` does not keep: reduce-scattered straight into the shard
        //    `to` wants next along the mesh dimension, else all-reduced.
        for k in 0..cur.mesh.dims() {
            if !cur.partial[k] || to.partial[k] {
                continue;
            }
            cur.partial[k] = false;
            match to.placement(k) {
                Placement::Shard(e) if cur.extends_to(e, k, to) => {
                    cur.sharders[e][cur.len[e]] = k;
                    cur.len[e] += 1;
                    plan.push(Collective::ReduceScatter { mesh_dim: k, mode: e });
                }
                _ => plan.push(Collective::AllReduce { mesh_dim: k }),
            }
        }
        // 3. The sharding `to` adds, major first: each device keeps its shard (no communication).
        for m in 0..cur.modes {
            while cur.len[m] < to.len[m] {
                let k = to.sharders[m][cur.len[m]];
                cur.sharders[m][cur.len[m]] = k;
                cur.len[m] += 1;
                plan.push(Collective::Slice { mesh_dim: k, mode: m });
            }
        }
        // 4. The pending reductions `to` adds: one device along the dimension keeps the value,
        //    the others hold zeros.
        for k in 0..cur.mesh.dims() {
            if to.partial[k] && !cur.partial[k] {
                cur.partial[k] = true;
                plan.push(Collective::Partition { mesh_dim: k });
            }
        }
        Ok(plan)
    }

    /// Whether sharding `mode` by mesh dimension `k` next (innermost) keeps it a prefix of its
    /// sharders in `to`.
    fn extends_to(&self, mode: usize, k: usize, to: &Distribution) -> bool {
        let (have, want) = (self.sharders(mode), to.sharders(mode));
        want.len() > have.len() && want[..have.len()] == *have && want[have.len()] == k
    }
}

/// The length of the common prefix of two lists.
fn common_prefix(a: &[usize], b: &[usize]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The most steps of a [`Plan`].
pub const MAX_STEPS: usize = 2 * MAX_MESH_DIMS;

/// One step of a redistribution: a collective among the devices that share every mesh
/// coordinate but `mesh_dim`'s, ranked by that coordinate (NCCL's semantics), or a local step.
/// Local tensors are indexed as [`Distribution`]'s (colexicographic over their shapes).
///
/// # Example
/// ```
/// use cute_rs_layout::distribution::{Collective, Distribution, Mesh, Placement::*};
/// // A 2 x 4 mesh: the row-parallel GEMM's partial sums become column shards along dimension 1.
/// let mesh = Mesh::new(&[2, 4])?;
/// let partial = Distribution::new(&[16, 16], mesh, &[Replicate, Partial])?;
/// let cols = Distribution::new(&[16, 16], mesh, &[Replicate, Shard(1)])?;
/// assert_eq!(partial.redistribute(&cols)?.steps(), [Collective::ReduceScatter { mesh_dim: 1, mode: 1 }]);
/// # Ok::<(), cute_rs_layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    /// Each device's tensor, concatenated along `mode` in rank order, on every device.
    AllGather {
        /// The mesh dimension of the group.
        mesh_dim: usize,
        /// The tensor mode of the concatenation.
        mode: usize,
    },
    /// The sum over the group, split along `mode` into one part per rank: rank `r` keeps part
    /// `r`.
    ReduceScatter {
        /// The mesh dimension of the group.
        mesh_dim: usize,
        /// The tensor mode of the split.
        mode: usize,
    },
    /// The sum over the group, on every device.
    AllReduce {
        /// The mesh dimension of the group.
        mesh_dim: usize,
    },
    /// Each device splits its tensor along `to` into one part per rank and sends part `r` to rank
    /// `r`; the parts a device receives are concatenated along `from` in rank order.
    AllToAll {
        /// The mesh dimension of the group.
        mesh_dim: usize,
        /// The mode the received parts are concatenated along (sharded before).
        from: usize,
        /// The mode split among the ranks (sharded after).
        to: usize,
    },
    /// Local: each device keeps part `r` of its tensor along `mode`, `r` its coordinate along
    /// `mesh_dim`.
    Slice {
        /// The mesh dimension.
        mesh_dim: usize,
        /// The tensor mode cut.
        mode: usize,
    },
    /// Local: the device at coordinate 0 along `mesh_dim` keeps its tensor, the others hold
    /// zeros, so that the sum along the dimension is the tensor.
    Partition {
        /// The mesh dimension.
        mesh_dim: usize,
    },
}

/// The steps that redistribute a tensor ([`Distribution::redistribute`]), in order.
///
/// # Example
/// ```
/// use cute_rs_layout::distribution::{Distribution, Mesh, Placement::*};
/// let d = Distribution::new(&[8], Mesh::new(&[4])?, &[Shard(0)])?;
/// assert!(d.redistribute(&d)?.steps().is_empty()); // nothing moves
/// # Ok::<(), cute_rs_layout::LayoutError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    steps: [Collective; MAX_STEPS],
    len: usize,
}

impl Plan {
    /// The steps, in order.
    pub fn steps(&self) -> &[Collective] {
        &self.steps[..self.len]
    }

    /// Appends a step (each mesh dimension takes at most two: an undo and a redo).
    fn push(&mut self, c: Collective) {
        self.steps[self.len] = c;
        self.len += 1;
    }
}
