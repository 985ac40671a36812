//! The collectives of the CPU backend's in-process devices (`cute_rs_host::collective`) on 2, 3
//! and 4 simulated devices against their definitions, and every redistribution between the
//! distributions of a tensor over meshes of 2, 3 and 4 devices (`cute_rs_host::mesh_comm`)
//! against the target's local tensors.

use cute_rs_host::collective::Communicator;
use cute_rs_host::mesh_comm::MeshComm;
use cute_rs_host::Result;
use cute_rs_layout::distribution::{Distribution, Mesh, Placement, MAX_MESH_DIMS};

/// Runs `f` on every member of a CPU group of `n`, one thread each; the results by rank.
fn on_group<R: Send>(n: usize, f: impl Fn(Communicator) -> Result<R> + Sync) -> Vec<R> {
    std::thread::scope(|s| {
        let hs: Vec<_> = Communicator::cpu_group(n).into_iter().map(|c| s.spawn(|| f(c))).collect();
        hs.into_iter().map(|h| h.join().expect("a member panicked").expect("a member failed")).collect()
    })
}

/// Member `r`'s contribution: `len` values that tell the member and the position apart.
fn contribution(r: usize, len: usize) -> Vec<i64> {
    (0..len).map(|i| (r * 100 + i) as i64).collect()
}

#[test]
fn collectives_follow_their_definitions() {
    for n in [2, 3, 4] {
        let len = 2 * n;
        let all: Vec<Vec<i64>> = (0..n).map(|r| contribution(r, len)).collect();
        let sum: Vec<i64> = (0..len).map(|i| all.iter().map(|c| c[i]).sum()).collect();
        let results = on_group(n, |c| {
            let gpu = c.gpu();
            let send = gpu.upload(&contribution(c.rank(), len))?;
            let mut gathered = gpu.alloc::<i64>(n * len)?;
            c.all_gather(&send, &mut gathered)?;
            let mut reduced = gpu.alloc::<i64>(len)?;
            c.all_reduce(&send, &mut reduced)?;
            let mut scattered = gpu.alloc::<i64>(len / n)?;
            c.reduce_scatter(&send, &mut scattered)?;
            let mut exchanged = gpu.alloc::<i64>(len)?;
            c.all_to_all(&send, &mut exchanged)?;
            // A ring: each member sends to the next and receives from the previous.
            let mut from_previous = gpu.alloc::<i64>(len)?;
            c.send(&send, (c.rank() + 1) % n)?;
            c.recv(&mut from_previous, (c.rank() + n - 1) % n)?;
            Ok([gathered, reduced, scattered, exchanged, from_previous].map(|b| gpu.download(&b).unwrap()))
        });
        for (r, [gathered, reduced, scattered, exchanged, from_previous]) in results.into_iter().enumerate() {
            assert_eq!(gathered, all.concat(), "all_gather on {n}, rank {r}");
            assert_eq!(reduced, sum, "all_reduce on {n}, rank {r}");
            assert_eq!(scattered, sum[r * 2..r * 2 + 2], "reduce_scatter on {n}, rank {r}");
            let want: Vec<i64> = all.iter().flat_map(|c| c[r * 2..r * 2 + 2].to_vec()).collect();
            assert_eq!(exchanged, want, "all_to_all on {n}, rank {r}");
            assert_eq!(from_previous, all[(r + n - 1) % n], "send/recv on {n}, rank {r}");
        }
    }
}

#[test]
fn split_groups_exchange_within_themselves() {
    // 4 members: colors by parity, keys reversed.
    let results = on_group(4, |c| {
        let g = c.split(c.rank() % 2, 10 - c.rank())?;
        let gpu = g.gpu();
        let send = gpu.upload(&[c.rank() as i64])?;
        let mut all = gpu.alloc::<i64>(2)?;
        g.all_gather(&send, &mut all)?;
        Ok((g.rank(), g.size(), gpu.download(&all)?))
    });
    assert_eq!(results, [(1, 2, vec![2, 0]), (1, 2, vec![3, 1]), (0, 2, vec![2, 0]), (0, 2, vec![3, 1])]);
}

#[test]
fn mismatched_buffers_are_refused() {
    let errors = on_group(2, |c| {
        let gpu = c.gpu();
        let send = gpu.upload(&[1.0f32, 2.0])?;
        let mut wrong = gpu.alloc::<f32>(3)?;
        Ok(c.all_gather(&send, &mut wrong).unwrap_err().to_string())
    });
    assert!(errors.iter().all(|e| e.contains("all_gather: recv holds 3 elements, not 2 x 2")), "{errors:?}");
}

/// The local tensors of `d` for `global`: addends where a reduction is pending (depending on the
/// element and the partial coordinates only, so that replicas agree), else the elements.
fn locals(d: &Distribution, global: &[i64]) -> Vec<Vec<i64>> {
    let mesh = d.mesh();
    let partial: Vec<usize> = (0..mesh.dims()).filter(|&k| d.placement(k) == Placement::Partial).collect();
    let key = |c: &[i64; MAX_MESH_DIMS]| partial.iter().fold(0, |acc, &k| acc * 5 + c[k]);
    let keys: Vec<i64> = (0..mesh.devices()).map(|r| key(&mesh.coord(r))).collect();
    let others = |g: i64| -> i64 {
        let mut seen: Vec<i64> = keys.iter().copied().filter(|&q| q != 0).collect();
        seen.sort();
        seen.dedup();
        seen.iter().map(|&q| (g * 7 + q * 13) % 11).sum()
    };
    (0..mesh.devices())
        .map(|r| {
            (0..d.local_size())
                .map(|v| {
                    let g = d.global_index(r, v);
                    match keys[r as usize] {
                        0 => global[g as usize] - others(g),
                        q => (g * 7 + q * 13) % 11,
                    }
                })
                .collect()
        })
        .collect()
}

/// What each device's local elements stand for: the sums over the partial dimensions.
fn reduced(d: &Distribution, data: &[Vec<i64>]) -> Vec<Vec<i64>> {
    let mesh = d.mesh();
    (0..mesh.devices())
        .map(|r| {
            let c = mesh.coord(r);
            let group: Vec<usize> = (0..mesh.devices())
                .filter(|&q| {
                    let cq = mesh.coord(q);
                    (0..mesh.dims()).all(|k| d.placement(k) == Placement::Partial || cq[k] == c[k])
                })
                .map(|q| q as usize)
                .collect();
            (0..d.local_size() as usize).map(|v| group.iter().map(|&q| data[q][v]).sum()).collect()
        })
        .collect()
}

/// Every placement of a tensor of `modes` modes along one mesh dimension.
fn placements(modes: usize) -> Vec<Placement> {
    (0..modes).map(Placement::Shard).chain([Placement::Replicate, Placement::Partial]).collect()
}

/// Every distribution of `shape` over `mesh` (each mesh dimension placing it once).
fn distributions(shape: &[i64], mesh: Mesh) -> Vec<Distribution> {
    let mut all: Vec<Vec<Placement>> = vec![vec![]];
    for _ in 0..mesh.dims() {
        all = all.into_iter().flat_map(|p| placements(shape.len()).into_iter().map(move |q| [p.clone(), vec![q]].concat())).collect();
    }
    all.iter().filter_map(|p| Distribution::new(shape, mesh, p).ok()).collect()
}

#[test]
fn every_redistribution_leaves_the_target_tensors() {
    for (mesh, shape) in [(vec![2], vec![4, 2]), (vec![3], vec![6, 3]), (vec![4], vec![8, 4]), (vec![2, 2], vec![4, 4, 2])] {
        let mesh = Mesh::new(&mesh).unwrap();
        let size: i64 = shape.iter().product();
        let global: Vec<i64> = (0..size).map(|g| g * 3 - 5).collect();
        let dists = distributions(&shape, mesh);
        assert!(dists.len() >= 4, "{} distributions", dists.len());
        for from in &dists {
            let start = locals(from, &global);
            let got = on_group(mesh.devices() as usize, |world| {
                let rank = world.rank();
                let m = MeshComm::new(world, mesh)?;
                let gpu = m.gpu();
                let local = gpu.upload(&start[rank])?;
                dists.iter().map(|to| gpu.download(&m.redistribute(from, to, &local)?)).collect::<Result<Vec<_>>>()
            });
            for (t, to) in dists.iter().enumerate() {
                let data: Vec<Vec<i64>> = got.iter().map(|per_rank| per_rank[t].clone()).collect();
                for (r, values) in reduced(to, &data).iter().enumerate() {
                    let want: Vec<i64> = (0..to.local_size()).map(|v| global[to.global_index(r as i64, v) as usize]).collect();
                    assert_eq!(values, &want, "{from:?} -> {to:?}: device {r} after {:?}", from.redistribute(to).unwrap().steps());
                }
            }
        }
    }
}
