//! Block tiles on the CPU backend: whole blocks of logical threads (`run_block`), so that warp
//! shuffles, barriers and the shared scratch run as on the GPU. Properties of the thread-value maps
//! (every element held, the CuTe layout agreeing with the coordinates, slices), and for a set of
//! layouts (vector, rows, warps across the reduced axis, replication, column-fast order, several
//! values per thread along both dimensions) on arrays of random extents with ragged edges: load
//! and store round trips, padding, sums, maxima and argmaxima along both axes, broadcasting back,
//! and pointer tiles with masks.

use cute_rs_tensor::block_tile::{load, store, store_masked, where_, BlockTile, Ptr, Slice, TvLayout, TvMap, REPLICATED};
use cute_rs_tensor::device::cpu::run_block;
use cute_rs_tensor::{blocked_layout, tv_layout, LayoutTensor, Strided};
use proptest::prelude::*;

/// Random blocked parameters of a 2-D tile: (shape, spt, tpw, wpc, order).
fn blocked_2d() -> impl Strategy<Value = ([i64; 2], [i64; 2], [i64; 2], [i64; 2], [usize; 2])> {
    (0u32..7, 0u32..7, 0u32..3, 0u32..3, 0u32..6, 0u32..3, 0u32..3, any::<bool>()).prop_map(|(s0, s1, p0, p1, t0, w0, w1, col)| {
        let w1 = w1.min(2 - w0.min(2));
        ([1 << s0, 1 << s1], [1 << p0, 1 << p1], [1 << t0, 32 >> t0], [1 << w0, 1 << w1], if col { [0, 1] } else { [1, 0] })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Each element of the tile is held by the same number of (thread, value) pairs (the
    /// replication factor, the product of the replicated leaves), and the CuTe layout maps each
    /// pair to the row-major index of its coordinate.
    #[test]
    fn blocked_maps_cover_the_tile_evenly((shape, spt, tpw, wpc, order) in blocked_2d()) {
        let m = TvMap::blocked(&shape, &spt, &tpw, &wpc, &order).unwrap();
        prop_assert_eq!(m.threads(), (32 * wpc[0] * wpc[1]) as usize);
        let layout = m.layout().unwrap();
        let mut count = vec![0usize; (shape[0] * shape[1]) as usize];
        for t in 0..m.threads() {
            for v in 0..m.values() {
                let c = m.coord(t as i64, v);
                prop_assert!(c[0] < shape[0] && c[1] < shape[1], "{:?} outside {:?}", c, shape);
                let index = c[0] * shape[1] + c[1];
                prop_assert_eq!(layout.call((t + v * m.threads()) as i64), index);
                count[index as usize] += 1;
            }
        }
        let replicas: i64 = (0..m.threads.len).filter(|&j| m.threads.dim[j] == REPLICATED).map(|j| m.threads.size[j]).product::<i64>()
            * (0..m.values.len).filter(|&j| m.values.dim[j] == REPLICATED).map(|j| m.values.size[j]).product::<i64>();
        prop_assert!(count.iter().all(|&n| n as i64 == replicas), "{:?}", count);
        // The algebra's layout reads back as the same map.
        let back = TvMap::from_layout(&shape, layout).unwrap();
        for t in 0..m.threads() {
            for v in 0..m.values() {
                prop_assert_eq!(back.coord(t as i64, v), m.coord(t as i64, v));
            }
        }
    }

    /// A slice holds, in value `slice_value(v)`, the element of value `v` with the axis at 0; the
    /// thread bits along an axis flip exactly that coordinate.
    #[test]
    fn slices_collapse_one_axis((shape, spt, tpw, wpc, order) in blocked_2d(), axis in 0usize..2) {
        let m = TvMap::blocked(&shape, &spt, &tpw, &wpc, &order).unwrap();
        let s = m.slice(axis).unwrap();
        prop_assert_eq!(s.shape[axis], 1);
        let bits = m.thread_bits_along(axis);
        for t in 0..m.threads() as i64 {
            for v in 0..m.values() {
                let mut c = m.coord(t, v);
                c[axis] = 0;
                prop_assert_eq!(s.coord(t, m.slice_value(axis, v)), c);
                for b in 0..m.threads().trailing_zeros() {
                    let moved = m.coord(t ^ (1 << b), v);
                    let other = 1 - axis;
                    if bits & (1 << b) != 0 {
                        prop_assert_eq!(moved[other], m.coord(t, v)[other]);
                    } else {
                        prop_assert_eq!(moved[axis], m.coord(t, v)[axis]);
                    }
                }
            }
        }
    }
}

#[test]
fn bad_layouts_are_refused_by_name() {
    let e = TvMap::blocked(&[48], &[1], &[32], &[1], &[0]).unwrap_err();
    assert!(e.to_string().contains("powers of two") && e.to_string().contains("extent 48"), "{e}");
    let e = TvMap::blocked(&[64, 64], &[1, 1], &[4, 8], &[1, 1], &[0, 0]).unwrap_err();
    assert!(e.to_string().contains("order must be a permutation"), "{e}");
    let e = TvMap::blocked(&[64], &[1, 1], &[32], &[1], &[0]).unwrap_err();
    assert!(e.to_string().contains("rank"), "{e}");
    // Two leaves reaching the same elements.
    let e = TvMap::from_layout(&[32, 4], cute_rs_layout::Layout::parse("(32,4):(4,4)").unwrap()).unwrap_err();
    assert!(e.to_string().contains("cover it exactly once"), "{e}");
    assert!(TvMap::blocked(&[4, 4], &[1, 1], &[4, 8], &[1, 1], &[1, 0]).unwrap().slice(2).is_err());
}

blocked_layout!(Vec1k = shape [1024], size_per_thread [4], threads_per_warp [32], warps_per_cta [4], order [0]);
blocked_layout!(Rows = shape [4, 64], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [2, 1], order [1, 0]);
blocked_layout!(WarpsAcross = shape [2, 256], size_per_thread [1, 2], threads_per_warp [1, 32], warps_per_cta [1, 4], order [1, 0]);
blocked_layout!(Replicated = shape [4, 8], size_per_thread [1, 2], threads_per_warp [4, 8], warps_per_cta [2, 2], order [1, 0]);
blocked_layout!(ColumnFast = shape [32, 8], size_per_thread [4, 1], threads_per_warp [8, 4], warps_per_cta [1, 2], order [0, 1]);
blocked_layout!(Both = shape [16, 32], size_per_thread [2, 4], threads_per_warp [4, 8], warps_per_cta [2, 1], order [1, 0]);
tv_layout!(RowPerThread = shape [32, 4], "(32,4):(4,1)");

/// Copies a `rows x cols` array tile by tile through a block tile (padding `-1` outside), and
/// checks the copy, the padding seen by the loads, the sums and maxima along both axes, argmax
/// along axis 1 and the broadcast of the row maxima back against the tile.
fn check_2d<L: TvLayout>(rows: i64, cols: i64, seed: u64) {
    let [th, tw] = [L::SHAPE[0], L::SHAPE[1]];
    let mut rng = seed;
    let mut next = move || {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((rng >> 33) % 1000) as i32 - 500
    };
    let x: Vec<i32> = (0..rows * cols).map(|_| next()).collect();
    let (gr, gc) = ((rows + th - 1) / th, (cols + tw - 1) / tw);
    let mut copy = vec![i32::MIN; (rows * cols) as usize];
    let mut row_sum = vec![0i32; (gr * th * gc) as usize]; // [tile rows x tile columns]
    let mut col_max = vec![0i32; (gr * gc * tw) as usize];
    let mut row_arg = vec![0i32; (gr * th * gc) as usize];
    let mut centered = vec![0i32; (rows * cols) as usize];
    let mut padding_seen = vec![0i32; (gr * gc) as usize];
    let addr = |v: &mut Vec<i32>| v.as_mut_ptr() as usize;
    let (xa, ca, rsa, cma, raa, cea, pa) =
        (x.as_ptr() as usize, addr(&mut copy), addr(&mut row_sum), addr(&mut col_max), addr(&mut row_arg), addr(&mut centered), addr(&mut padding_seen));
    run_block(L::THREADS as u32, &|| {
        let scratch = cute_rs_tensor::block_scratch!(CHECK_2D, 16384);
        // SAFETY: the vectors above outlive the block; every access is inside them.
        let t = |a: usize, r: i64, c: i64| unsafe { LayoutTensor::from_ptr(a as *mut i32, Strided::row_major([r, c])) };
        let (xt, ct, ce) = (t(xa, rows, cols), t(ca, rows, cols), t(cea, rows, cols));
        let (rs, ra, cm, ps) = (t(rsa, gr * th, gc), t(raa, gr * th, gc), t(cma, gc * gr, tw), t(pa, gr, gc));
        for i in 0..gr {
            for j in 0..gc {
                let tile = BlockTile::<i32, L>::load(&xt, [i, j], -1);
                tile.store(&ct, [i, j]);
                let zeroed = BlockTile::<i32, L>::load(&xt, [i, j], 0);
                zeroed.sum::<1, 16384>(&scratch).store(&rs, [i, j]);
                tile.argmax::<1, 16384>(&scratch).store(&ra, [i, j]);
                tile.max::<0, 16384>(&scratch).store(&cm, [j * gr + i, 0]);
                let row_max = tile.max::<1, 16384>(&scratch);
                (tile - row_max).store(&ce, [i, j]);
                let pads = tile.equal(-1).cast::<i32>().sum::<1, 16384>(&scratch).sum::<0, 16384>(&scratch);
                pads.store(&ps, [i, j]);
            }
        }
    })
    .unwrap();
    assert_eq!(copy, x, "copy through {}x{} tiles", th, tw);
    for i in 0..gr {
        for j in 0..gc {
            let inside = |r: i64, c: i64| r < rows && c < cols;
            let at = |r: i64, c: i64| if inside(r, c) { x[(r * cols + c) as usize] } else { -1 };
            let cells = || (0..th).flat_map(move |r| (0..tw).map(move |c| (i * th + r, j * tw + c)));
            let pads = cells().filter(|&(r, c)| at(r, c) == -1).count() as i32;
            assert_eq!(padding_seen[(i * gc + j) as usize], pads, "tile ({i},{j}): elements equal to the padding");
            for r in 0..th {
                let gr_ = i * th + r;
                let vals: Vec<i32> = (0..tw).map(|c| at(gr_, j * tw + c)).collect();
                let sum: i32 = vals.iter().map(|&v| if v == -1 && !inside(gr_, j * tw) { 0 } else { v }).sum();
                let sum_inside: i32 = (0..tw).filter(|&c| inside(gr_, j * tw + c)).map(|c| at(gr_, j * tw + c)).sum();
                let _ = sum;
                if gr_ < gr * th {
                    assert_eq!(row_sum[(gr_ * gc + j) as usize], sum_inside, "row {gr_}, tile column {j}: sum");
                    let max = *vals.iter().max().unwrap();
                    let arg = vals.iter().position(|&v| v == max).unwrap() as i32;
                    assert_eq!(row_arg[(gr_ * gc + j) as usize], arg, "row {gr_}, tile column {j}: argmax of {vals:?}");
                    for c in 0..tw {
                        if inside(gr_, j * tw + c) {
                            assert_eq!(centered[(gr_ * cols + j * tw + c) as usize], vals[c as usize] - max, "x - max(x, 1)");
                        }
                    }
                }
            }
            for c in 0..tw {
                let max = (0..th).map(|r| at(i * th + r, j * tw + c)).max().unwrap();
                assert_eq!(col_max[((j * gr + i) * tw + c) as usize], max, "tile ({i},{j}), column {c}: max");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn rows_layout(rows in 1i64..12, cols in 1i64..150, seed in any::<u64>()) {
        check_2d::<Rows>(rows, cols, seed);
    }

    #[test]
    fn warps_across_the_reduced_axis(rows in 1i64..5, cols in 1i64..600, seed in any::<u64>()) {
        check_2d::<WarpsAcross>(rows, cols, seed);
    }

    #[test]
    fn replicated_layout(rows in 1i64..10, cols in 1i64..20, seed in any::<u64>()) {
        check_2d::<Replicated>(rows, cols, seed);
    }

    #[test]
    fn column_fast_layout(rows in 1i64..70, cols in 1i64..20, seed in any::<u64>()) {
        check_2d::<ColumnFast>(rows, cols, seed);
    }

    #[test]
    fn several_values_along_both(rows in 1i64..40, cols in 1i64..70, seed in any::<u64>()) {
        check_2d::<Both>(rows, cols, seed);
    }

    #[test]
    fn a_tv_layout_of_the_algebra(rows in 1i64..70, cols in 1i64..10, seed in any::<u64>()) {
        check_2d::<RowPerThread>(rows, cols, seed);
    }
}

/// Triton's vector add on pointer tiles, with the mask at a ragged end, an `other`, and a pointer
/// tile mixing two bases (`where(c, pa, pb)`).
#[test]
fn pointer_tiles_with_masks_and_two_bases() {
    for n in [1usize, 1000, 1024, 3000] {
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| (i * 3) as f32).collect();
        let mut out = vec![f32::NAN; n];
        let mut picked = vec![f32::NAN; n];
        let (aa, ba, oa, pa) = (a.as_ptr() as usize, b.as_ptr() as usize, out.as_mut_ptr() as usize, picked.as_mut_ptr() as usize);
        run_block(Vec1k::THREADS as u32, &|| {
            for pid in 0..n.div_ceil(1024) {
                let offs = BlockTile::<i32, Vec1k>::arange(0) + (pid * 1024) as i32;
                let mask = offs.lt(n as i32);
                let pa_ = Ptr::tile::<Vec1k>(aa as *const f32).offset(offs);
                let pb_ = Ptr::tile::<Vec1k>(ba as *const f32).offset(offs);
                // SAFETY: masked to the vectors' length.
                unsafe {
                    let x = load(&pa_).mask(mask).other(0.0).run();
                    let y = load(&pb_).mask(mask).run();
                    store_masked(&Ptr::tile::<Vec1k>(oa as *const f32).offset(offs), x + y, mask);
                    let either = where_((offs % 2).equal(0), pa_, pb_);
                    let z = load(&either).mask(mask).other(-1.0).run();
                    store_masked(&Ptr::tile::<Vec1k>(pa as *const f32).offset(offs), z, mask);
                }
            }
        })
        .unwrap();
        for i in 0..n {
            assert_eq!(out[i], (4 * i) as f32, "n {n}, element {i}");
            assert_eq!(picked[i], if i % 2 == 0 { i as f32 } else { (3 * i) as f32 }, "n {n}, element {i}");
        }
    }
}

/// A 1-D array with extents that are not multiples of the tile or of the vector width: loads and
/// stores take the vector path inside and the element path at the edge (and for a misaligned
/// base).
#[test]
fn vector_and_edge_paths_agree() {
    for (n, shift) in [(1024usize, 0usize), (1023, 0), (5, 0), (2048 + 7, 1), (1024, 3)] {
        let x: Vec<f32> = (0..n + shift).map(|i| i as f32 * 0.5).collect();
        let mut y = vec![f32::NAN; n + shift];
        let (xa, ya) = (x.as_ptr() as usize + shift * 4, y.as_mut_ptr() as usize + shift * 4);
        run_block(Vec1k::THREADS as u32, &|| {
            // SAFETY: `n` elements from the shifted bases.
            let (xt, yt) = unsafe {
                (LayoutTensor::from_ptr(xa as *mut f32, Strided::row_major([n as i64])), LayoutTensor::from_ptr(ya as *mut f32, Strided::row_major([n as i64])))
            };
            for pid in 0..n.div_ceil(1024) as i64 {
                let t = BlockTile::<f32, Vec1k>::load(&xt, [pid], 0.0);
                (t * 2.0).store(&yt, [pid]);
            }
        })
        .unwrap();
        for i in 0..n {
            assert_eq!(y[i + shift], x[i + shift] * 2.0, "n {n}, shift {shift}, element {i}");
        }
        assert!(y[..shift].iter().all(|v| v.is_nan()), "nothing before the array");
    }
}

/// `Slice` tiles broadcast on the right of an operator; `[N, 1]` with `[1, M]` gives the outer
/// sum.
#[test]
fn broadcast_outer_sum() {
    let mut out = vec![0i32; 4 * 64];
    let oa = out.as_mut_ptr() as usize;
    run_block(Rows::THREADS as u32, &|| {
        let rows = BlockTile::<i32, Slice<Rows, 1>>::arange(0);
        let cols = BlockTile::<i32, Slice<Rows, 0>>::arange(1);
        let outer = rows.broadcast::<Rows>() * 1000 + cols;
        // SAFETY: 4 x 64 elements.
        outer.store(&unsafe { LayoutTensor::from_ptr(oa as *mut i32, Strided::row_major([4, 64])) }, [0, 0]);
    })
    .unwrap();
    for r in 0..4 {
        for c in 0..64 {
            assert_eq!(out[r * 64 + c], r as i32 * 1000 + c as i32);
        }
    }
}

/// The whole-vector accesses agree with the general ones where their conditions hold, and refuse
/// by name an array that does not meet them.
#[test]
fn aligned_accesses_check_their_conditions() {
    for n in [8usize, 1024, 3000, 4096 + 64] {
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let mut y = vec![f32::NAN; n];
        let (xa, ya) = (x.as_ptr() as usize, y.as_mut_ptr() as usize);
        run_block(Vec1k::THREADS as u32, &|| {
            // SAFETY: `n` elements each.
            let (xt, yt) = unsafe {
                (LayoutTensor::from_ptr(xa as *mut f32, Strided::row_major([n as i64])), LayoutTensor::from_ptr(ya as *mut f32, Strided::row_major([n as i64])))
            };
            for pid in 0..n.div_ceil(1024) as i64 {
                (BlockTile::<f32, Vec1k>::load_aligned(&xt, [pid], 0.0) + 1.0).store_aligned(&yt, [pid]);
            }
        })
        .unwrap();
        assert!((0..n).all(|i| y[i] == i as f32 + 1.0), "n {n}");
    }
    let x = vec![0.0f32; 1030];
    let xa = x.as_ptr() as usize;
    for (n, shift) in [(1026usize, 0usize), (1024, 1)] {
        let err = run_block(Vec1k::THREADS as u32, &|| {
            // SAFETY: inside `x`.
            let xt = unsafe { LayoutTensor::from_ptr((xa + 4 * shift) as *mut f32, Strided::row_major([n as i64])) };
            let _ = BlockTile::<f32, Vec1k>::load_aligned(&xt, [0], 0.0);
        })
        .unwrap_err();
        assert!(err.to_string().contains("multiples of the tile's vector"), "{err}");
    }
}

blocked_layout!(ConvRows = shape [16, 32], size_per_thread [1, 4], threads_per_warp [2, 16], warps_per_cta [2, 1], order [1, 0]);
blocked_layout!(ConvCols = shape [16, 32], size_per_thread [4, 1], threads_per_warp [16, 2], warps_per_cta [1, 2], order [0, 1]);
blocked_layout!(ConvReplicated = shape [16, 32], size_per_thread [1, 1], threads_per_warp [32, 1], warps_per_cta [1, 2], order [1, 0]);
blocked_layout!(ConvTall = shape [32, 16], size_per_thread [2, 2], threads_per_warp [4, 8], warps_per_cta [2, 1], order [1, 0]);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// A tile converted between layouts (row-fast, column-fast, replicated) keeps every element
    /// at its coordinate, and a transpose moves element (i, j) to (j, i) and back.
    #[test]
    fn layout_conversions_keep_the_elements(seed in any::<u64>()) {
        let value = move |c: [i64; 5]| ((c[0] * 131 + c[1]) as u64).wrapping_mul(seed | 1).rotate_left(17) as u32;
        run_block(64, &|| {
            let scratch = cute_rs_tensor::block_scratch!(CONVERT_CHECK, 4096);
            let x = BlockTile::<u32, ConvRows>::from_coord(value);
            let cols = x.convert_layout::<ConvCols, 4096>(&scratch);
            assert_eq!(cols.values(), BlockTile::<u32, ConvCols>::from_coord(value).values(), "rows -> columns");
            let replicated = cols.convert_layout::<ConvReplicated, 4096>(&scratch);
            assert_eq!(replicated.values(), BlockTile::<u32, ConvReplicated>::from_coord(value).values(), "columns -> replicated");
            let back = replicated.convert_layout::<ConvRows, 4096>(&scratch);
            assert_eq!(back.values(), x.values(), "replicated -> rows");
            let t = x.trans::<ConvTall, 4096>(&scratch);
            assert_eq!(t.values(), BlockTile::<u32, ConvTall>::from_coord(|c| value([c[1], c[0], 0, 0, 0])).values(), "transpose");
            let tt = t.permute::<ConvCols, 4096>(&[1, 0], &scratch);
            assert_eq!(tt.values(), cols.values(), "transpose back, by permute");
        })
        .unwrap();
    }
}

/// `permute` refuses dims that are not a permutation, or a layout of another shape, by name.
#[test]
fn permute_checks_its_dims() {
    for dims in [&[0usize, 0][..], &[1], &[0, 1]] {
        let err = run_block(64, &|| {
            let scratch = cute_rs_tensor::block_scratch!(PERMUTE_CHECK, 4096);
            let _ = BlockTile::<u32, ConvRows>::zeros().permute::<ConvTall, 4096>(dims, &scratch);
        })
        .unwrap_err();
        assert!(err.to_string().contains("permute: dims must be a permutation"), "{dims:?}: {err}");
    }
}

/// Triton's block pointers on block tiles: a block of `L`'s shape at random offsets (overhanging
/// the array on any side) of a random `rows x cols` array, loaded with `boundary_check` on both
/// dimensions (zero or NaN padding), on one (the other kept inside), and advanced; then stored
/// with `boundary_check` into a poisoned copy, which must hold the block where it lies inside the
/// array and the poison elsewhere.
fn check_block_ptr<L: TvLayout>(rows: i64, cols: i64, offsets: [i64; 2], step: [i64; 2]) {
    use cute_rs_tensor::block_tile::make_block_ptr;
    let [th, tw] = [L::SHAPE[0], L::SHAPE[1]];
    let x: Vec<f32> = (0..rows * cols).map(|i| i as f32).collect();
    let mut out = vec![-1.0f32; (rows * cols) as usize];
    let n = (th * tw) as usize;
    // Per thread and value, what each load saw, by the tile coordinate.
    let mut seen = [vec![f32::NAN; n], vec![f32::NAN; n], vec![f32::NAN; n], vec![f32::NAN; n]];
    let (xa, oa) = (x.as_ptr() as usize, out.as_mut_ptr() as usize);
    let sa: Vec<usize> = seen.iter_mut().map(|v| v.as_mut_ptr() as usize).collect();
    // The column-checked load keeps its rows inside: offsets clamped so that they are.
    let inside_rows = offsets[0].clamp(0, (rows - th).max(0));
    run_block(L::THREADS as u32, &|| {
        // SAFETY: the vectors outlive the block; unchecked dimensions stay inside (below).
        let xt = unsafe { LayoutTensor::from_ptr(xa as *mut f32, Strided::row_major([rows, cols])) };
        let ot = unsafe { LayoutTensor::from_ptr(oa as *mut f32, Strided::row_major([rows, cols])) };
        let p = make_block_ptr::<f32, L, 2>(&xt, offsets, [1, 0]).unwrap();
        let record = |k: usize, t: BlockTile<f32, L>| {
            for (v, &val) in t.values().iter().enumerate() {
                let c = BlockTile::<f32, L>::coord(v);
                // SAFETY: `seen[k]` holds the tile's elements.
                unsafe { *(sa[k] as *mut f32).add((c[0] * tw + c[1]) as usize) = val };
            }
        };
        record(0, p.load().boundary_check(&[0, 1]).run());
        record(1, p.load().boundary_check(&[1, 0]).padding_nan().run());
        if rows >= th {
            let q = make_block_ptr::<f32, L, 2>(&xt, [inside_rows, offsets[1]], [1, 0]).unwrap();
            record(2, q.load().boundary_check(&[1]).run());
        }
        let a = p.advance(step);
        record(3, a.load().boundary_check(&[0, 1]).run());
        let t = p.load().boundary_check(&[0, 1]).padding_nan().run();
        make_block_ptr::<f32, L, 2>(&ot, offsets, [0, 1]).unwrap().store(&t, &[0, 1]).unwrap();
        assert_eq!(a.offsets(), [offsets[0] + step[0], offsets[1] + step[1]]);
    })
    .unwrap();
    let at = |r: i64, c: i64| if (0..rows).contains(&r) && (0..cols).contains(&c) { Some((r * cols + c) as f32) } else { None };
    for r in 0..th {
        for c in 0..tw {
            let k = (r * tw + c) as usize;
            let (gr, gc) = (offsets[0] + r, offsets[1] + c);
            assert_eq!(seen[0][k], at(gr, gc).unwrap_or(0.0), "zero padding at ({gr},{gc})");
            let nan = seen[1][k];
            assert!(at(gr, gc).map_or(nan.is_nan(), |v| v == nan), "NaN padding at ({gr},{gc}): {nan}");
            if rows >= th {
                assert_eq!(seen[2][k], at(inside_rows + r, gc).unwrap_or(0.0), "columns checked at ({},{gc})", inside_rows + r);
            }
            let (ar, ac) = (gr + step[0], gc + step[1]);
            assert_eq!(seen[3][k], at(ar, ac).unwrap_or(0.0), "advanced to ({ar},{ac})");
        }
    }
    for r in 0..rows {
        for c in 0..cols {
            let inside = (offsets[0]..offsets[0] + th).contains(&r) && (offsets[1]..offsets[1] + tw).contains(&c);
            let want = if inside { x[(r * cols + c) as usize] } else { -1.0 };
            assert_eq!(out[(r * cols + c) as usize], want, "stored ({r},{c})");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn block_pointers_rows(rows in 1i64..12, cols in 1i64..150, o0 in -6i64..12, o1 in -70i64..150, s0 in -4i64..4, s1 in -64i64..64) {
        check_block_ptr::<Rows>(rows, cols, [o0, o1], [s0, s1]);
    }

    #[test]
    fn block_pointers_both(rows in 1i64..40, cols in 1i64..70, o0 in -20i64..40, o1 in -35i64..70, s0 in -16i64..16, s1 in -32i64..32) {
        check_block_ptr::<Both>(rows, cols, [o0, o1], [s0, s1]);
    }

    #[test]
    fn block_pointers_column_fast(rows in 1i64..70, cols in 1i64..20, o0 in -40i64..70, o1 in -10i64..20, s0 in -32i64..32, s1 in -8i64..8) {
        check_block_ptr::<ColumnFast>(rows, cols, [o0, o1], [s0, s1]);
    }
}

/// `boundary_check` and `make_block_ptr` refuse what Triton refuses, by name.
#[test]
fn block_pointers_refuse_bad_dims_and_orders() {
    use cute_rs_tensor::block_tile::make_block_ptr;
    use cute_rs_tensor::triton::TritonError;
    let mut x = vec![0.0f32; 16];
    let t = LayoutTensor::new(&mut x, Strided::row_major([4, 4])).unwrap();
    assert_eq!(make_block_ptr::<f32, Rows, 2>(&t, [0, 0], [0, 0]).err(), Some(TritonError::OrderNotPermutation));
    let xa = t.as_ptr() as usize;
    // SAFETY: `x` outlives the blocks.
    let p = move || make_block_ptr::<f32, Rows, 2>(&unsafe { LayoutTensor::from_ptr(xa as *mut f32, Strided::row_major([4, 4])) }, [0, 0], [1, 0]).unwrap();
    let err = run_block(Rows::THREADS as u32, &|| {
        let _ = p().load().boundary_check(&[2]).run();
    })
    .unwrap_err();
    assert!(err.to_string().contains("boundary_check: a dimension is not below"), "{err}");
    run_block(Rows::THREADS as u32, &|| {
        assert_eq!(p().store(&BlockTile::zeros(), &[0, 3]), Err(TritonError::BoundaryDimension(3)));
    })
    .unwrap();
}

blocked_layout!(Cube = shape [2, 4, 8], size_per_thread [1, 1, 2], threads_per_warp [2, 4, 4], warps_per_cta [1, 1, 1], order [2, 1, 0]);
blocked_layout!(Hyper4 = shape [2, 2, 4, 8], size_per_thread [1, 1, 2, 2], threads_per_warp [2, 2, 2, 4], warps_per_cta [1, 2, 1, 1], order [3, 2, 1, 0]);
blocked_layout!(Hyper5 = shape [2, 2, 2, 2, 8], size_per_thread [1, 1, 1, 2, 4], threads_per_warp [2, 2, 2, 2, 2], warps_per_cta [1, 1, 1, 1, 2], order [4, 3, 2, 1, 0]);

/// Loads and stores of rank `R` tiles of `L` over a random array of `shape` with ragged edges,
/// through a permuted view (`order`, cuTile's load with `order`): every tile of the grid is copied
/// into a second permuted view, which must then equal the source, and each load's padding must
/// sit exactly outside the array.
fn check_nd<L: TvLayout, const R: usize>(shape: [i64; R], order: [usize; R]) {
    let size: i64 = shape.iter().product();
    let x: Vec<i32> = (0..size as i32).map(|i| i * 7 + 1).collect();
    let mut y = vec![-1i32; size as usize];
    let mut pads = 0i64;
    let (xa, ya, pa) = (x.as_ptr() as usize, y.as_mut_ptr() as usize, &mut pads as *mut i64 as usize);
    let view_shape: [i64; R] = core::array::from_fn(|k| shape[order[k]]);
    let grid: [i64; R] = core::array::from_fn(|k| (view_shape[k] + L::SHAPE[k] - 1) / L::SHAPE[k]);
    run_block(L::THREADS as u32, &|| {
        // SAFETY: the vectors outlive the block.
        let xt = unsafe { LayoutTensor::from_ptr(xa as *mut i32, Strided::row_major(shape)) }.permute(order).unwrap();
        let yt = unsafe { LayoutTensor::from_ptr(ya as *mut i32, Strided::row_major(shape)) }.permute(order).unwrap();
        let tiles: i64 = grid.iter().product();
        let mut my_pads = 0;
        for t in 0..tiles {
            let mut rest = t;
            let index: [i64; R] = core::array::from_fn(|k| {
                let i = rest % grid[k];
                rest /= grid[k];
                i
            });
            let tile = BlockTile::<i32, L>::load(&xt, index, i32::MIN);
            tile.store(&yt, index);
            for (v, &val) in tile.values().iter().enumerate() {
                let c = BlockTile::<i32, L>::coord(v);
                let outside = (0..R).any(|k| index[k] * L::SHAPE[k] + c[k] >= view_shape[k]);
                assert_eq!(val == i32::MIN, outside, "tile {index:?}, value {v}: padding exactly outside");
                my_pads += outside as i64;
            }
        }
        if cute_rs_tensor::device::ids::thread_idx_x() == 0 {
            // SAFETY: one writer.
            unsafe { *(pa as *mut i64) = my_pads };
        }
    })
    .unwrap();
    assert_eq!(y, x, "copy of {shape:?} through order {order:?}");
    let _ = pads;
}

#[test]
fn loads_of_three_to_five_dimensions_with_orders() {
    check_nd::<Cube, 3>([3, 5, 17], [0, 1, 2]);
    check_nd::<Cube, 3>([2, 2, 2], [0, 2, 1]);
    check_nd::<Cube, 3>([9, 3, 6], [2, 0, 1]);
    check_nd::<Hyper4, 4>([3, 1, 5, 9], [0, 1, 2, 3]);
    check_nd::<Hyper4, 4>([5, 4, 3, 2], [3, 2, 1, 0]);
    check_nd::<Hyper5, 5>([3, 2, 3, 1, 17], [0, 1, 2, 3, 4]);
    check_nd::<Hyper5, 5>([2, 9, 3, 4, 5], [4, 0, 3, 1, 2]);
}

/// Pointer-tile loads and stores with Triton's cache hints move 1-, 2-, 4- and 8-byte elements
/// (on the CPU the hints are plain accesses; the GPU checks run the `.b8`/`.b16` forms).
#[test]
fn hinted_pointer_tiles_of_every_element_size() {
    use cute_rs_tensor::block_tile::store_with;
    use cute_rs_tensor::triton::{Cg, Cs, EvictFirst, EvictLast, Wt};
    fn round_trip<T>(xs: Vec<T>)
    where
        T: cute_rs_tensor::Element + PartialEq + core::fmt::Debug + cute_rs_tensor::block_tile::CastOperand<T, Vec1k>,
    {
        let n = xs.len();
        let mut ys = vec![T::ZERO; n];
        let (xa, ya) = (xs.as_ptr() as usize, ys.as_mut_ptr() as usize);
        run_block(Vec1k::THREADS as u32, &|| {
            let offs = BlockTile::<i32, Vec1k>::arange(0);
            let mask = offs.lt(n as i32);
            let p = Ptr::tile::<Vec1k>(xa as *const T).offset(offs);
            let q = Ptr::tile::<Vec1k>(ya as *const T).offset(offs);
            // SAFETY: masked to the vectors' length.
            unsafe {
                let a = load(&p).mask(mask).cache_modifier(Cg).eviction_policy(EvictLast).run();
                let b = load(&p).eviction_policy(EvictFirst).mask(mask).run();
                assert_eq!(a.values(), b.values());
                store_with(&q, a).mask(mask).cache_modifier(Cs).run();
                let c = load(&q).mask(mask).volatile().run();
                assert_eq!(c.values(), a.values());
                store_with(&q, c).mask(mask).cache_modifier(Wt).eviction_policy(EvictFirst).run();
            }
        })
        .unwrap();
        assert_eq!(ys, xs);
    }
    round_trip((0..1000).map(|i| i as u8).collect());
    round_trip((0..777).map(|i| half::f16::from_f32(i as f32 * 0.25)).collect());
    round_trip((0..1000).map(|i| i as i16 - 500).collect());
    round_trip((0..999).map(|i| i as f32 * 1.5).collect());
    round_trip((0..1000).map(|i| i as u64 * 3).collect());
}

/// TMA loads of rank `R` tiles of `L` (`BlockTile::load_tma`) over an array of `shape` with rows
/// padded to 16 bytes (`pitch` elements for the last dimension): every tile of the grid, and
/// tiles past each corner, read what ordinary loads with the map's padding read (NaN bit for bit:
/// `oob_nan_bits`, as TMA writes it), with one stage for all of them (its phase flips at
/// each load). An array whose map has boxes of another shape falls back to ordinary loads.
fn check_tma<L: TvLayout, const R: usize>(shape: [i64; R], seed: u64) {
    use cute_rs_tensor::block_scratch;
    use cute_rs_tensor::block_tile::TmaStage;
    use cute_rs_tensor::device::tma::CpuTensorMap;
    use cute_rs_tensor::tma_copy::TmaArray;
    let pitch = (shape[R - 1] + 3) / 4 * 4;
    let mut stride = [0i64; R];
    let mut next = 1;
    for k in (0..R).rev() {
        stride[k] = next;
        next *= if k == R - 1 { pitch } else { shape[k] };
    }
    let x: Vec<f32> = (0..next).map(|i| (i as u64 ^ seed) as f32 * 0.25).collect();
    let layout = Strided { shape, stride };
    let dims: Vec<u64> = shape.iter().rev().map(|&s| s as u64).collect();
    let strides: Vec<u64> = stride.iter().rev().skip(1).map(|&s| 4 * s as u64).collect();
    let tile: Vec<u32> = (0..R).rev().map(|k| L::SHAPE[k] as u32).collect();
    let ones = vec![1u32; R];
    let map = CpuTensorMap::encode(x.as_ptr() as u64, 4, &dims, &strides, &tile, &ones, 0, true).unwrap();
    let mut other_box = tile.clone();
    other_box[R - 1] = 1; // a box of another shape than the tile's
    let other = CpuTensorMap::encode(x.as_ptr() as u64, 4, &dims, &strides, &other_box, &ones, 0, true).unwrap();
    let nan = f32::from_bits(cute_rs_tensor::device::tma::oob_nan_bits(4) as u32);
    let grid: [i64; R] = core::array::from_fn(|k| (shape[k] + L::SHAPE[k] - 1) / L::SHAPE[k]);
    let (xa, ma, oa) = (x.as_ptr() as usize, &map as *const _ as usize, &other as *const _ as usize);
    run_block(L::THREADS as u32, &|| {
        // SAFETY: the vector and the maps outlive the block; the maps describe the array.
        let xt = unsafe { LayoutTensor::from_ptr(xa as *mut f32, layout) };
        let array = unsafe { TmaArray::from_parts(xt, ma as *const _, core::array::from_fn(|k| L::SHAPE[k]), 0, nan) };
        let fallback = unsafe { TmaArray::from_parts(xt, oa as *const _, core::array::from_fn(|k| other_box[R - 1 - k] as i64), 0, nan) };
        let scratch = block_scratch!(TMA_TEST_STAGE, 8192);
        let mut stage = TmaStage::new(&scratch);
        let tiles: i64 = grid.iter().product();
        for t in -1..=tiles {
            let mut rest = t.max(0);
            let index: [i64; R] = core::array::from_fn(|k| {
                let i = rest % grid[k];
                rest /= grid[k];
                // Before the first tile and past the last one: wholly or partly outside.
                if t < 0 { -1 } else if t == tiles { i + 1 } else { i }
            });
            let want = BlockTile::<f32, L>::load(&xt, index, nan);
            let got = BlockTile::<f32, L>::load_tma(&array, index, &mut stage);
            let fell_back = BlockTile::<f32, L>::load_tma(&fallback, index, &mut stage);
            let bits = |b: &BlockTile<f32, L>| b.values().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "TMA tile {index:?} of {shape:?}");
            assert_eq!(bits(&fell_back), bits(&want), "fallback tile {index:?} of {shape:?}");
        }
    })
    .unwrap();
}

blocked_layout!(Tma3 = shape [4, 8, 8], size_per_thread [1, 1, 4], threads_per_warp [2, 8, 2], warps_per_cta [2, 1, 1], order [2, 1, 0]);

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn tma_tile_loads_match_ordinary_loads(rows in 1i64..40, cols in 1i64..70, seed in any::<u64>()) {
        check_tma::<Both, 2>([rows, cols], seed);
        check_tma::<ColumnFast, 2>([cols, rows], seed);
    }

    #[test]
    fn tma_tile_loads_of_more_dimensions(a in 1i64..5, b in 1i64..9, c in 1i64..20, seed in any::<u64>()) {
        check_tma::<Tma3, 3>([a, b, c], seed);
        check_tma::<Hyper4, 4>([a, 3, b, c], seed);
        check_tma::<Hyper5, 5>([2, a, 3, b, c], seed);
    }
}

blocked_layout!(Cube64 = shape [2, 4, 8], size_per_thread [1, 1, 2], threads_per_warp [1, 4, 8], warps_per_cta [2, 1, 1], order [2, 1, 0]);

/// Triton's broadcasting of `mask` and `other` along two axes of size 1 (tiles along one axis of
/// a 3-D tile, `Slice<Slice<_, A>, B>`), and `other` and stored scalars of another number type
/// converted to the element type.
#[test]
fn masks_and_others_broadcast_along_two_axes_and_convert() {
    let x: Vec<f32> = (0..64).map(|i| i as f32 + 0.25).collect();
    let (mut by_tile, mut by_scalar, mut bytes) = (vec![f32::NAN; 64], vec![f32::NAN; 64], vec![0u8; 64]);
    let (xa, ta, sa, ba) = (x.as_ptr() as usize, by_tile.as_mut_ptr() as usize, by_scalar.as_mut_ptr() as usize, bytes.as_mut_ptr() as usize);
    run_block(Cube64::THREADS as u32, &|| {
        let offs = BlockTile::<i32, Cube64>::arange(0) * 32 + BlockTile::<i32, Cube64>::arange(1) * 8 + BlockTile::<i32, Cube64>::arange(2);
        // Along axis 1 only: rows 0 and 2 of each plane are read.
        let mask = (BlockTile::<i32, Slice<Slice<Cube64, 2>, 0>>::arange(1) % 2).equal(0);
        // Along axis 2 only: column c of a masked-out row reads -c.
        let other = BlockTile::<i32, Slice<Slice<Cube64, 1>, 0>>::arange(2).cast::<f32>() * -1.0;
        let p = Ptr::tile::<Cube64>(xa as *const f32).offset(offs);
        // SAFETY: 64 elements everywhere; masked-out pointers are valid too.
        unsafe {
            store(&Ptr::tile::<Cube64>(ta as *const f32).offset(offs), load(&p).mask(mask).other(other).run());
            store(&Ptr::tile::<Cube64>(sa as *const f32).offset(offs), load(&p).mask(mask).other(-1).run());
            store_masked(&Ptr::tile::<Cube64>(ba as *const u8).offset(offs), 2.75f64, mask);
        }
    })
    .unwrap();
    for i in 0..64 {
        let (row, col) = ((i / 8) % 4, i % 8);
        let kept = row % 2 == 0;
        assert_eq!(by_tile[i], if kept { x[i] } else { -(col as f32) }, "element {i}");
        assert_eq!(by_scalar[i], if kept { x[i] } else { -1.0 }, "element {i}");
        assert_eq!(bytes[i], if kept { 2 } else { 0 }, "element {i}");
    }
}
