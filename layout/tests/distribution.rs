//! Properties of distributions over device meshes (`cute_rs_layout::distribution`), on random
//! meshes, shapes and placements:
//! - the layout and the owners agree: a device's local element holds global element `g` exactly
//!   when `owners(g)` lists it, every element has an owner on each group of replicas, and the
//!   devices holding an element are the replicas and addends the placements say;
//! - a redistribution plan, carried out collective by collective with NCCL's semantics on each
//!   device's local tensor, leaves exactly the local tensors of the target distribution (sums of
//!   addends where a reduction is pending).

use cute_rs_layout::distribution::{Collective, Distribution, Mesh, Placement, MAX_MESH_DIMS};
use proptest::prelude::*;

/// A mesh of 1 to 3 dimensions of 1 to 4 devices (8 at most), and per dimension a placement over a tensor
/// of 1 to 3 modes; the tensor's extents are multiples of the devices sharding them.
fn distributions() -> impl Strategy<Value = (Vec<i64>, Vec<i64>, Vec<Placement>, Vec<Placement>)> {
    // At most 8 devices, so that a tensor divisible by all of them stays small.
    let meshes = prop::collection::vec(1i64..=4, 1..=3).prop_filter("at most 8 devices", |m| m.iter().product::<i64>() <= 8);
    (meshes, 1usize..=3).prop_flat_map(|(mesh, modes)| {
        let dims = mesh.len();
        let placement = prop_oneof![(0..modes).prop_map(Placement::Shard), Just(Placement::Replicate), Just(Placement::Partial)];
        let mults = prop::collection::vec(1i64..=2, modes);
        (Just(mesh), mults, prop::collection::vec(placement.clone(), dims), prop::collection::vec(placement, dims))
    })
    .prop_map(|(mesh, mults, from, to)| {
        // Every mode divisible by all the devices, whatever shards it.
        let devices: i64 = mesh.iter().product();
        let shape = mults.iter().map(|m| m * devices).collect();
        (mesh, shape, from, to)
    })
}

/// A deterministic small value of `(g, c)`.
fn mix(g: i64, c: i64) -> i64 {
    ((g * 2654435761 + c * 40503 + 17) % 97) - 48
}

/// The local tensors of `d` for the global tensor `global`: each device's elements; where a
/// reduction is pending, addends that depend only on the element and the partial coordinates
/// (so replicas stay equal), the device at partial coordinates 0 holding the rest of the sum.
fn locals(d: &Distribution, global: &[i64]) -> Vec<Vec<i64>> {
    let mesh = d.mesh();
    let partial: Vec<usize> = (0..mesh.dims()).filter(|&k| d.placement(k) == Placement::Partial).collect();
    let key = |c: &[i64; MAX_MESH_DIMS]| partial.iter().fold(0, |acc, &k| acc * 5 + c[k]);
    // Every partial coordinate (other than all zeros) of a group.
    let group: Vec<i64> = {
        let n: i64 = partial.iter().map(|&k| mesh.extent(k)).product();
        (0..n).map(|mut i| partial.iter().fold(0, |acc, &k| { let x = i % mesh.extent(k); i /= mesh.extent(k); acc * 5 + x })).collect()
    };
    (0..mesh.devices())
        .map(|r| {
            let c = mesh.coord(r);
            (0..d.local_size())
                .map(|v| {
                    let g = d.global_index(r, v);
                    match key(&c) {
                        0 => global[g as usize] - group.iter().filter(|&&q| q != 0).map(|&q| mix(g, q)).sum::<i64>(),
                        q => mix(g, q),
                    }
                })
                .collect()
        })
        .collect()
}

/// Local tensors with their (common) local extents, transformed step by step.
struct Locals {
    mesh: Mesh,
    extents: Vec<i64>,
    data: Vec<Vec<i64>>,
}

impl Locals {
    /// The colexicographic index of coordinate `x` over the current extents.
    fn index(&self, x: &[i64]) -> usize {
        let (mut i, mut step) = (0, 1);
        for (m, &e) in self.extents.iter().enumerate() {
            i += x[m] * step;
            step *= e;
        }
        i as usize
    }

    /// The coordinate of index `i` over `extents`.
    fn coord(extents: &[i64], mut i: i64) -> Vec<i64> {
        extents.iter().map(|&e| { let x = i % e; i /= e; x }).collect()
    }

    /// The ranks of `r`'s group along mesh dimension `k`, by their coordinate along it.
    fn group(&self, r: i64, k: usize) -> Vec<i64> {
        let c = self.mesh.coord(r);
        (0..self.mesh.extent(k)).map(|s| { let mut c2 = c; c2[k] = s; self.mesh.rank_at(&c2) }).collect()
    }

    /// Carries out one step, with NCCL's semantics (see `Collective`).
    fn apply(&mut self, step: Collective) {
        let ranks = self.mesh.devices();
        let mut extents = self.extents.clone();
        match step {
            Collective::AllGather { mesh_dim: k, mode } | Collective::AllToAll { mesh_dim: k, from: mode, .. } => extents[mode] *= self.mesh.extent(k),
            Collective::ReduceScatter { mesh_dim: k, mode } | Collective::Slice { mesh_dim: k, mode } => extents[mode] /= self.mesh.extent(k),
            Collective::AllReduce { .. } | Collective::Partition { .. } => {}
        }
        if let Collective::AllToAll { mesh_dim: k, to, .. } = step {
            extents[to] /= self.mesh.extent(k);
        }
        let size: i64 = extents.iter().product();
        let data = (0..ranks)
            .map(|r| {
                let me = self.mesh.coord(r);
                (0..size)
                    .map(|v| {
                        let mut x = Locals::coord(&extents, v);
                        match step {
                            Collective::AllGather { mesh_dim: k, mode } => {
                                let (s, y) = (x[mode] / self.extents[mode], x[mode] % self.extents[mode]);
                                x[mode] = y;
                                self.data[self.group(r, k)[s as usize] as usize][self.index(&x)]
                            }
                            Collective::ReduceScatter { mesh_dim: k, mode } => {
                                x[mode] += me[k] * extents[mode];
                                self.group(r, k).iter().map(|&q| self.data[q as usize][self.index(&x)]).sum()
                            }
                            Collective::AllReduce { mesh_dim: k } => self.group(r, k).iter().map(|&q| self.data[q as usize][v as usize]).sum(),
                            Collective::AllToAll { mesh_dim: k, from, to } => {
                                let (s, y) = (x[from] / self.extents[from], x[from] % self.extents[from]);
                                x[from] = y;
                                x[to] += me[k] * extents[to];
                                self.data[self.group(r, k)[s as usize] as usize][self.index(&x)]
                            }
                            Collective::Slice { mesh_dim: k, mode } => {
                                x[mode] += me[k] * extents[mode];
                                self.data[r as usize][self.index(&x)]
                            }
                            Collective::Partition { mesh_dim: k } => {
                                if me[k] == 0 { self.data[r as usize][v as usize] } else { 0 }
                            }
                        }
                    })
                    .collect()
            })
            .collect();
        self.extents = extents;
        self.data = data;
    }
}

/// The sums over each device's group of partial dimensions: the values its elements stand for.
fn reduced(d: &Distribution, data: &[Vec<i64>]) -> Vec<Vec<i64>> {
    let mesh = d.mesh();
    let partial: Vec<usize> = (0..mesh.dims()).filter(|&k| d.placement(k) == Placement::Partial).collect();
    (0..mesh.devices())
        .map(|r| {
            // Every rank that differs from r only along partial dimensions.
            let c = mesh.coord(r);
            let group: Vec<i64> = (0..mesh.devices()).filter(|&q| { let cq = mesh.coord(q); (0..mesh.dims()).all(|k| partial.contains(&k) || cq[k] == c[k]) }).collect();
            (0..d.local_size() as usize).map(|v| group.iter().map(|&q| data[q as usize][v]).sum()).collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn layout_and_owners_agree((mesh, shape, placements, _) in distributions()) {
        let mesh = Mesh::new(&mesh).unwrap();
        let d = Distribution::new(&shape, mesh, &placements).unwrap();
        let size: i64 = shape.iter().product();
        // Devices holding each element, from the layout.
        let mut held = vec![Vec::new(); size as usize];
        for r in 0..mesh.devices() {
            for v in 0..d.local_size() {
                let g = d.global_index(r, v);
                prop_assert!((0..size).contains(&g), "device {r} element {v} at {g}");
                held[g as usize].push((r, v));
            }
        }
        // Replicas and addends: the mesh dimensions that do not shard.
        let copies: i64 = (0..mesh.dims()).filter(|&k| !matches!(d.placement(k), Placement::Shard(_))).map(|k| mesh.extent(k)).product();
        for (g, devices) in held.iter().enumerate() {
            prop_assert_eq!(devices.len() as i64, copies, "element {} held by {:?}", g, devices);
            prop_assert_eq!(&d.owners(g as i64).collect::<Vec<_>>(), devices, "owners of {}", g);
        }
        // The local size is the global size over the shards.
        prop_assert_eq!(d.local_size() * mesh.devices() / copies, size);
    }

    #[test]
    fn plans_carry_out_to_the_target((mesh, shape, from, to) in distributions()) {
        let mesh = Mesh::new(&mesh).unwrap();
        let (src, dst) = (Distribution::new(&shape, mesh, &from).unwrap(), Distribution::new(&shape, mesh, &to).unwrap());
        let size: i64 = shape.iter().product();
        let global: Vec<i64> = (0..size).map(|g| mix(g, 1000) * 3 + g).collect();
        let mut state = Locals { mesh, extents: (0..shape.len()).map(|m| src.local_extent(m)).collect(), data: locals(&src, &global) };
        // The source's local tensors stand for the global tensor.
        for (r, values) in reduced(&src, &state.data).iter().enumerate() {
            for (v, x) in values.iter().enumerate() {
                prop_assert_eq!(*x, global[src.global_index(r as i64, v as i64) as usize]);
            }
        }
        let plan = src.redistribute(&dst).unwrap();
        for &step in plan.steps() {
            state.apply(step);
        }
        let want: Vec<i64> = (0..shape.len()).map(|m| dst.local_extent(m)).collect();
        prop_assert_eq!(&state.extents, &want, "local extents after {:?}", plan.steps());
        for (r, values) in reduced(&dst, &state.data).iter().enumerate() {
            for (v, x) in values.iter().enumerate() {
                let g = dst.global_index(r as i64, v as i64);
                prop_assert_eq!(*x, global[g as usize], "device {} element {} (global {}) after {:?}", r, v, g, plan.steps());
            }
        }
        // No pending reduction left unsummed: where the target has none, every replica agrees.
        if !dst.is_partial() {
            prop_assert_eq!(reduced(&dst, &state.data), state.data.clone());
        }
    }
}

#[test]
fn a_mode_sharded_twice_is_gathered_innermost_first() {
    // Rows over both mesh dimensions (dimension 0 major), then over dimension 1 only: gather
    // dimension 1, gather dimension 0, shard by dimension 1 again.
    let mesh = Mesh::new(&[2, 2]).unwrap();
    let src = Distribution::new(&[8, 2], mesh, &[Placement::Shard(0), Placement::Shard(0)]).unwrap();
    let dst = Distribution::new(&[8, 2], mesh, &[Placement::Replicate, Placement::Shard(0)]).unwrap();
    assert_eq!(
        src.redistribute(&dst).unwrap().steps(),
        [
            Collective::AllGather { mesh_dim: 1, mode: 0 },
            Collective::AllGather { mesh_dim: 0, mode: 0 },
            Collective::Slice { mesh_dim: 1, mode: 0 }
        ]
    );
}

#[test]
fn bad_distributions_name_the_condition() {
    let mesh = Mesh::new(&[3]).unwrap();
    let e = Distribution::new(&[4, 6], mesh, &[Placement::Shard(0)]).unwrap_err();
    assert_eq!(e.to_string(), "distribution: shape divisibility: 3 does not divide 4");
    let e = Distribution::new(&[4, 6], mesh, &[Placement::Shard(2)]).unwrap_err();
    assert!(e.to_string().starts_with("distribution: sharded mode"), "{e}");
    let e = Distribution::new(&[4, 6], mesh, &[]).unwrap_err();
    assert!(matches!(e, cute_rs_layout::LayoutError::RankMismatch { .. }), "{e}");
    let e = Distribution::from_partition_spec(&[6, 6], mesh, &[&[0], &[0]]).unwrap_err();
    assert!(e.to_string().contains("each mesh dimension places the tensor once"), "{e}");
    let other = Distribution::new(&[6, 6], Mesh::new(&[3, 1]).unwrap(), &[Placement::Replicate, Placement::Replicate]).unwrap();
    assert!(Distribution::new(&[6, 6], mesh, &[Placement::Replicate]).unwrap().redistribute(&other).is_err());
}
