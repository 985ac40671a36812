//! A device's place in a mesh of devices: a [`Communicator`] along each mesh dimension, and the
//! redistribution of a local tensor from one [`Distribution`] to another by the collectives of its
//! [`Plan`](cute_rs_layout::distribution::Plan).
//!
//! A plan's collective concatenates or splits along a tensor mode; the communicators concatenate
//! and split whole contiguous parts (NCCL's layout). The local tensors are colexicographic over
//! their shapes, so a part along a mode is a strided block: it is gathered into a contiguous part
//! before the collective and scattered back after it, on the host (the CPU backend's memory).
//!
//! # Example
//! ```
//! use cute_rs_host::collective::Communicator;
//! use cute_rs_host::mesh_comm::MeshComm;
//! use cute_rs_layout::distribution::{Distribution, Mesh, Placement::*};
//! // A 4 x 2 tensor, rows over two devices, gathered whole on both.
//! let mesh = Mesh::new(&[2])?;
//! let rows = Distribution::new(&[4, 2], mesh, &[Shard(0)])?;
//! let whole = Distribution::new(&[4, 2], mesh, &[Replicate])?;
//! let global: Vec<i32> = (0..8).collect(); // element (i, j) at i + 4 j
//! let got: Vec<Vec<i32>> = std::thread::scope(|s| {
//!     let hs: Vec<_> = Communicator::cpu_group(2).into_iter().map(|world| {
//!         let global = &global;
//!         s.spawn(move || -> cute_rs_host::Result<Vec<i32>> {
//!             let mesh = MeshComm::new(world, mesh)?;
//!             let gpu = mesh.gpu();
//!             // This device's rows: its local elements by their global index.
//!             let mine: Vec<i32> = (0..rows.local_size()).map(|v| global[rows.global_index(mesh.rank() as i64, v) as usize]).collect();
//!             let local = gpu.upload(&mine)?;
//!             gpu.download(&mesh.redistribute(&rows, &whole, &local)?)
//!         })
//!     }).collect();
//!     hs.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
//! });
//! assert!(got.iter().all(|g| g == &global));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use cute_rs_layout::distribution::{Collective, Distribution, Mesh};

use crate::collective::{Communicator, Summable};
use crate::{DeviceBuffer, DeviceElem, Gpu, HostError, Result};

/// One device of a mesh: the world's communicator and, for each mesh dimension, the group of
/// the devices that differ from it only along that dimension, ranked by their coordinate there.
pub struct MeshComm {
    mesh: Mesh,
    world: Communicator,
    dims: Vec<Communicator>,
}

impl MeshComm {
    /// This member of `world` placed on `mesh` (rank `r` at the mesh coordinate whose rank is
    /// `r`); every member of `world` calls it.
    ///
    /// # Errors
    /// `Invalid` unless the mesh has one device per member; a member's timeout.
    pub fn new(world: Communicator, mesh: Mesh) -> Result<MeshComm> {
        if mesh.devices() != world.size() as i64 {
            return Err(HostError::Invalid(format!("mesh of {} devices for a group of {}", mesh.devices(), world.size())));
        }
        let c = mesh.coord(world.rank() as i64);
        let dims = (0..mesh.dims())
            .map(|k| {
                // The color: the coordinate with dimension k's left out.
                let mut rest = c;
                rest[k] = 0;
                world.split(mesh.rank_at(&rest) as usize, c[k] as usize)
            })
            .collect::<Result<_>>()?;
        Ok(MeshComm { mesh, world, dims })
    }

    /// This device's rank in the world.
    pub fn rank(&self) -> usize {
        self.world.rank()
    }

    /// The mesh.
    pub fn mesh(&self) -> Mesh {
        self.mesh
    }

    /// The device this member drives.
    pub fn gpu(&self) -> &Gpu {
        self.world.gpu()
    }

    /// The group along mesh dimension `k`.
    pub fn along(&self, k: usize) -> &Communicator {
        &self.dims[k]
    }

    /// This device's local tensor of `to` from its local tensor `local` of `from`, by the
    /// collectives of `from.redistribute(to)`; every device of the mesh calls it.
    ///
    /// # Errors
    /// Those of [`Distribution::redistribute`] (as `Invalid`), `Invalid` when `local` is not
    /// `from`'s local size or the distributions are over another mesh, and the collectives'.
    pub fn redistribute<T: Summable>(&self, from: &Distribution, to: &Distribution, local: &DeviceBuffer<T>) -> Result<DeviceBuffer<T>> {
        if from.mesh() != self.mesh {
            return Err(HostError::Invalid("redistribute: the distribution is over another mesh".into()));
        }
        if local.len() as i64 != from.local_size() {
            return Err(HostError::Invalid(format!("redistribute: {} local elements, the distribution has {}", local.len(), from.local_size())));
        }
        let plan = from.redistribute(to).map_err(|e| HostError::Invalid(e.to_string()))?;
        let gpu = self.gpu();
        let me = self.mesh.coord(self.rank() as i64);
        let mut extents: Vec<i64> = (0..from.global_shape().len()).map(|m| from.local_extent(m)).collect();
        let mut data = gpu.download(local)?;
        for &step in plan.steps() {
            data = match step {
                Collective::AllGather { mesh_dim: k, mode } => {
                    let parts = self.collect(k, &data, |c, send, recv| c.all_gather(send, recv), self.mesh.extent(k) as usize * data.len())?;
                    let out = concat(&split_parts(&parts, self.mesh.extent(k)), &extents, mode);
                    extents[mode] *= self.mesh.extent(k);
                    out
                }
                Collective::ReduceScatter { mesh_dim: k, mode } => {
                    let send = parts_along(&data, &extents, mode, self.mesh.extent(k)).concat();
                    extents[mode] /= self.mesh.extent(k);
                    self.collect(k, &send, |c, send, recv| c.reduce_scatter(send, recv), send.len() / self.mesh.extent(k) as usize)?
                }
                Collective::AllReduce { mesh_dim: k } => self.collect(k, &data, |c, send, recv| c.all_reduce(send, recv), data.len())?,
                Collective::AllToAll { mesh_dim: k, from: gathered, to: split } => {
                    let send = parts_along(&data, &extents, split, self.mesh.extent(k)).concat();
                    extents[split] /= self.mesh.extent(k);
                    let recv = self.collect(k, &send, |c, send, recv| c.all_to_all(send, recv), send.len())?;
                    let out = concat(&split_parts(&recv, self.mesh.extent(k)), &extents, gathered);
                    extents[gathered] *= self.mesh.extent(k);
                    out
                }
                Collective::Slice { mesh_dim: k, mode } => {
                    let mut parts = parts_along(&data, &extents, mode, self.mesh.extent(k));
                    extents[mode] /= self.mesh.extent(k);
                    parts.swap_remove(me[k] as usize)
                }
                Collective::Partition { mesh_dim: k } => {
                    if me[k] == 0 { data } else { vec![T::default(); data.len()] }
                }
            };
        }
        gpu.upload(&data)
    }

    /// The result (`out_len` elements) of `op` on the group along mesh dimension `k` with `send`.
    fn collect<T: DeviceElem>(
        &self,
        k: usize,
        send: &[T],
        op: impl Fn(&Communicator, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<()>,
        out_len: usize,
    ) -> Result<Vec<T>> {
        let gpu = self.gpu();
        let send = gpu.upload(send)?;
        let mut recv = gpu.alloc::<T>(out_len)?;
        op(&self.dims[k], &send, &mut recv)?;
        gpu.download(&recv)
    }
}

/// `data` in `n` equal contiguous parts.
fn split_parts<T: Copy>(data: &[T], n: i64) -> Vec<Vec<T>> {
    data.chunks(data.len() / n as usize).map(<[T]>::to_vec).collect()
}

/// The `n` parts of a colexicographic tensor of `extents` along `mode`, each colexicographic
/// over its own extents (`mode`'s divided by `n`).
fn parts_along<T: Copy>(data: &[T], extents: &[i64], mode: usize, n: i64) -> Vec<Vec<T>> {
    let (inner, outer): (i64, i64) = (extents[..mode].iter().product(), extents[mode + 1..].iter().product());
    let part = extents[mode] / n;
    (0..n)
        .map(|r| {
            let mut out = Vec::with_capacity((inner * part * outer) as usize);
            for o in 0..outer {
                for x in r * part..(r + 1) * part {
                    let base = (o * extents[mode] + x) * inner;
                    out.extend_from_slice(&data[base as usize..(base + inner) as usize]);
                }
            }
            out
        })
        .collect()
}

/// The tensor whose `mode` concatenates `parts` (each colexicographic over `extents`), in order.
fn concat<T: Copy>(parts: &[Vec<T>], extents: &[i64], mode: usize) -> Vec<T> {
    let (inner, outer): (i64, i64) = (extents[..mode].iter().product(), extents[mode + 1..].iter().product());
    let block = (inner * extents[mode]) as usize;
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for o in 0..outer as usize {
        for p in parts {
            out.extend_from_slice(&p[o * block..(o + 1) * block]);
        }
    }
    out
}
