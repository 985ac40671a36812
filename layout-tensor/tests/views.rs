//! Host tests of `LayoutTensor`: Mojo's documented examples reproduced exactly, every view checked
//! element by element against the layout algebra's prediction, masked tiles touching exactly the
//! in-bounds elements, copies, and the GPU copy kernel's pipeline run on the CPU.

use cute_rs_layout::{IntTuple, Layout};
use cute_rs_tensor::{copy_partitioned, static_layout, Clip, LayoutTensor, Static, StaticLayout, TileIter, Vector};
use proptest::prelude::*;

fn l(s: &str) -> Layout {
    Layout::parse(s).unwrap()
}

/// The elements of a tensor in 1-D index order.
fn elems<T: cute_rs_tensor::Element, S: cute_rs_tensor::LayoutSource, B: cute_rs_tensor::Bounds>(
    t: &LayoutTensor<'_, T, S, cute_rs_tensor::Global, B>,
) -> Vec<T> {
    (0..t.size()).map(|i| t.get(i)).collect()
}

// ---- Mojo's documentation: Figure 5, distribute a 4x4 row-major tensor over 2x2 column-major threads ----

static_layout!(Fig5Data = "(4,4):(4,1)");
static_layout!(Fig5Threads = "(2,2):(1,2)");

#[test]
fn mojo_figure5_distribute() {
    let mut storage: Vec<u32> = (0..16).collect();
    let t = LayoutTensor::new(&mut storage, Static::<Fig5Data>::new()).unwrap();
    // Thread N gets the N-th value (in the column-major thread layout) of each 2x2 tile.
    let want: [[u32; 4]; 4] = [[0, 2, 8, 10], [4, 6, 12, 14], [1, 3, 9, 11], [5, 7, 13, 15]];
    for (tid, w) in want.iter().enumerate() {
        let f = t.distribute::<Fig5Threads, 2>(tid);
        // The fragment is 2x2: row-major reading of it lists the values above.
        let got = [f.at([0, 0]), f.at([0, 1]), f.at([1, 0]), f.at([1, 1])];
        assert_eq!(&got, w, "thread {tid}");
    }
    // The run-time path gives the same fragments.
    let rt = t.dynamic();
    for (tid, w) in want.iter().enumerate() {
        let f = rt.distribute::<2>(l("(2,2):(1,2)"), tid).unwrap();
        assert_eq!([f.at([0, 0]), f.at([0, 1]), f.at([1, 0]), f.at([1, 1])], *w);
    }
}

// ---- Mojo's documentation: LayoutTensorIter over a 16-element buffer with row_major(2, 2) tiles ----

#[test]
fn mojo_tiled_iterator_over_buffer() {
    let mut storage: Vec<i16> = (0..16).collect();
    let mut iter = TileIter::over_buffer(&mut storage, l("(2,2):(2,1)"), false);
    let mut out = String::new();
    for _ in 0..16 / 4 {
        let tile = iter.get();
        // `print(tile)`, then `print(" - ")`: Mojo's format, each element followed by a space.
        out += &format!("{}\n", tile.mojo());
        out += " - \n";
        iter.advance(1);
    }
    assert_eq!(out, "0 1 \n2 3 \n - \n4 5 \n6 7 \n - \n8 9 \n10 11 \n - \n12 13 \n14 15 \n - \n");
    // `next(i)` and the circular variant.
    let mut storage: Vec<i16> = (0..16).collect();
    let iter = TileIter::over_buffer(&mut storage, l("(2,2):(2,1)"), true);
    let firsts: Vec<i16> = (0..6).map(|i| iter.next_by(i).get().get(0)).collect();
    assert_eq!(firsts, [0, 4, 8, 12, 0, 4]);
    assert_eq!(iter.take(5).map(|t| t.at([1, 1])).collect::<Vec<_>>(), [3, 7, 11, 15, 3]);
}

#[test]
fn mojo_tiled_iterator_over_tensor_rows() {
    // tensor.tiled_iterator[tile, tile, axis=1](i, 0) walks the tiles of row-tile i.
    static_layout!(M = "(4,6):(6,1)");
    static_layout!(T = "(2,2)");
    let mut v: Vec<u32> = (0..24).collect();
    let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    for i in 0..2 {
        let tiles: Vec<Vec<u32>> = t.tiled_iterator::<T, 2>([i, 0], 1, false).map(|x| elems(&x)).collect();
        let want: Vec<Vec<u32>> = (0..3).map(|j| elems(&t.tile::<T, 2>([i, j]))).collect();
        assert_eq!(tiles, want);
    }
    let rt: Vec<Vec<u32>> = t.dynamic().tiled_iterator(l("(2,2)"), [1, 0], 1, false).unwrap().map(|x| elems(&x)).collect();
    assert_eq!(rt[2], [16, 22, 17, 23]);
}

// ---- views equal the algebra's prediction ----

/// Layouts of rank 2 with non-negative strides, compact or padded, in any mode order.
fn rank2() -> impl Strategy<Value = (i64, i64, bool, i64)> {
    (1i64..=4, 1i64..=4, any::<bool>(), 0i64..=2).prop_map(|(a, b, row, pad)| (a * 2, b * 2, row, pad))
}

fn make(m: i64, n: i64, row: bool, pad: i64) -> Layout {
    if row {
        Layout::new(IntTuple::from_slice(&[m, n]).unwrap(), IntTuple::from_slice(&[n + pad, 1]).unwrap()).unwrap()
    } else {
        Layout::new(IntTuple::from_slice(&[m, n]).unwrap(), IntTuple::from_slice(&[1, m + pad]).unwrap()).unwrap()
    }
}

proptest! {
    #[test]
    fn tile_equals_zipped_divide_slice((m, n, row, pad) in rank2(), tm in 1i64..=2, tn in 1i64..=2) {
        let a = make(m, n, row, pad);
        let mut v: Vec<i64> = (0..a.cosize()).collect();
        let t = LayoutTensor::new(&mut v, a).unwrap();
        let tile = l(&format!("({tm},{tn})"));
        let z = cute_rs_layout::zipped_divide_by_mode(a, &[Layout::int(tm, 1).unwrap(), Layout::int(tn, 1).unwrap()]).unwrap();
        for i in 0..m / tm {
            for j in 0..n / tn {
                let view = t.tile(tile, [i, j]).unwrap();
                let c = IntTuple::parse(&format!("(_,({i},{j}))")).unwrap();
                let (sub, off) = cute_rs_layout::slice_and_offset(c, z).unwrap();
                prop_assert_eq!(view.size() as i64, sub.size());
                for k in 0..sub.size() {
                    prop_assert_eq!(view.get(k as usize), off + sub.call(k));
                }
            }
        }
    }

    #[test]
    fn distribute_partitions_every_element_once((m, n, row, pad) in rank2(), th_row in any::<bool>()) {
        let a = make(m, n, row, pad);
        let mut v: Vec<i64> = (0..a.cosize()).collect();
        let t = LayoutTensor::new(&mut v, a).unwrap();
        let threads = if th_row { l("(2,2):(2,1)") } else { l("(2,2):(1,2)") };
        let mut seen: Vec<i64> = Vec::new();
        for tid in 0..4 {
            let f = t.distribute::<2>(threads, tid).unwrap();
            let c = [(tid as i64 / threads.stride().leaves()[0]) % 2, (tid as i64 / threads.stride().leaves()[1]) % 2];
            for k in 0..f.size() {
                let x = f.get(k);
                // Element x sits at coordinate (r, c) of the tensor: thread coordinate = (r % 2, c % 2).
                let idx = (0..a.size()).find(|&i| a.call(i) == x).unwrap();
                let (r, cc) = (idx % m, idx / m);
                prop_assert_eq!([r % 2, cc % 2], c);
                seen.push(x);
            }
        }
        seen.sort();
        let mut all: Vec<i64> = (0..a.size()).map(|i| a.call(i)).collect();
        all.sort();
        prop_assert_eq!(seen, all);
    }

    #[test]
    fn slice_compose_permute_coalesce_follow_the_algebra((m, n, row, pad) in rank2(), r in 0i64..8) {
        let a = make(m, n, row, pad);
        let mut v: Vec<i64> = (0..a.cosize()).collect();
        let t = LayoutTensor::new(&mut v, a).unwrap();
        let r = r % m;
        let s = t.slice(IntTuple::parse(&format!("({r},_)")).unwrap()).unwrap();
        prop_assert_eq!(elems(&s), (0..n).map(|c| a.call(r + c * m)).collect::<Vec<_>>());
        let p = t.permute(&[1, 0]).unwrap();
        for i in 0..m { for j in 0..n { prop_assert_eq!(p.at([j, i]), t.at([i, j])); } }
        let c = t.coalesce();
        prop_assert_eq!(elems(&c), elems(&t));
        let b = Layout::int(m * n, 1).unwrap();
        let comp = t.compose(b).unwrap();
        let want = cute_rs_layout::composition(a, b).unwrap();
        prop_assert_eq!(elems(&comp), (0..want.size()).map(|i| want.call(i)).collect::<Vec<_>>());
        prop_assert_eq!(elems(&t), (0..a.size()).map(|i| a.call(i)).collect::<Vec<_>>());
    }

    #[test]
    fn masked_tiles_touch_exactly_the_in_bounds_elements(m in 1i64..=9, n in 1i64..=9, tm in 1i64..=4, tn in 1i64..=4, row in any::<bool>()) {
        let a = make(m, n, row, 0);
        let mut v: Vec<i64> = vec![-1; a.cosize() as usize];
        let mut hits = vec![0u32; a.cosize() as usize];
        let t = LayoutTensor::new(&mut v, a).unwrap();
        let mut src_data: Vec<i64> = (0..tm * tn).collect();
        let src = LayoutTensor::new(&mut src_data, l(&format!("({tm},{tn}):(1,{tm})"))).unwrap();
        for i in 0..(m + tm - 1) / tm {
            for j in 0..(n + tn - 1) / tn {
                let tile = t.tile_masked(l(&format!("({tm},{tn})")), [i, j]).unwrap();
                prop_assert_eq!(tile.bounds(), Clip { extent: [tm.min(m - i * tm), tn.min(n - j * tn)] });
                for k in 0..tile.size() {
                    let (r, c) = (i * tm + k as i64 % tm, j * tn + k as i64 / tm);
                    prop_assert_eq!(tile.contains(k), r < m && c < n);
                    if tile.contains(k) {
                        prop_assert_eq!(tile.offset(k) as i64 + (tile.as_ptr() as i64 - t.as_ptr() as i64) / 8, a.call(r + c * m));
                    }
                }
                tile.copy_from(&src);
            }
        }
        for i in 0..m * n {
            hits[a.call(i) as usize] += 1;
            let (r, c) = (i % m, i / m);
            let k = (r % tm) + (c % tn) * tm;
            prop_assert_eq!(v[a.call(i) as usize], k, "element ({}, {})", r, c);
        }
        // Every in-bounds element was written, nothing else.
        prop_assert_eq!(v.iter().filter(|&&x| x == -1).count(), 0);
    }

    #[test]
    fn copy_from_any_layouts((m, n, row, pad) in rank2(), (row2, pad2) in (any::<bool>(), 0i64..=2)) {
        let a = make(m, n, row, pad);
        let b = make(m, n, row2, pad2);
        let mut x: Vec<f32> = (0..a.cosize()).map(|i| i as f32).collect();
        let mut y = vec![0f32; b.cosize() as usize];
        let src = LayoutTensor::new(&mut x, a).unwrap();
        let dst = LayoutTensor::new(&mut y, b).unwrap();
        dst.copy_from(&src);
        for i in 0..m { for j in 0..n { prop_assert_eq!(dst.at([i, j]), src.at([i, j])); } }
    }
}

// ---- static views equal their run-time counterparts ----

static_layout!(Mat = "(8,12):(12,1)");
static_layout!(Tile24 = "(2,4)");
static_layout!(Thr = "(2,2):(2,1)");

#[test]
fn static_views_match_run_time_views() {
    let mut v: Vec<i64> = (0..96).collect();
    let t = LayoutTensor::new(&mut v, Static::<Mat>::new()).unwrap();
    let d = t.dynamic();
    for i in 0..4 {
        for j in 0..3 {
            let s = t.tile::<Tile24, 2>([i, j]);
            let r = d.tile(l("(2,4)"), [i, j]).unwrap();
            assert_eq!(s.layout(), r.layout());
            assert_eq!(elems(&s), elems(&r));
            for tid in 0..4 {
                assert_eq!(elems(&s.distribute::<Thr, 2>(tid)), elems(&r.distribute::<2>(l("(2,2):(2,1)"), tid).unwrap()));
            }
        }
    }
    assert_eq!(elems(&t.transpose()), elems(&d.permute(&[1, 0]).unwrap()));
    assert_eq!(elems(&t.coalesce()), elems(&d.coalesce()));
    // split: the right half of the columns.
    let right = d.split(1, 2, 1).unwrap();
    assert_eq!(right.at([0, 0]), 6);
    assert_eq!(right.layout().to_string(), "(8,6):(12,1)");
}

#[test]
fn vectorize_and_vector_copies() {
    #[repr(align(16))]
    struct Buf([f32; 96]);
    let mut a = Buf(core::array::from_fn(|i| i as f32));
    let mut b = Buf([0.0; 96]);
    let src = LayoutTensor::new(&mut a.0, Static::<Mat>::new()).unwrap();
    let dst = LayoutTensor::new(&mut b.0, Static::<Mat>::new()).unwrap();
    let sv = src.vectorize::<4>();
    assert_eq!(sv.layout().to_string(), "(8,3):(3,1)");
    assert_eq!(sv.at([2, 1]), Vector([28., 29., 30., 31.]));
    assert_eq!(src.dynamic().vectorize::<4>().unwrap().layout(), sv.layout());
    // Misaligned base and a non-dividing width are errors at run time.
    assert!(src.dynamic().slice(IntTuple::parse("(_,1)").unwrap()).unwrap().vectorize::<4>().is_err());
    assert!(src.dynamic().vectorize::<5>().is_err());
    dst.vectorize::<4>().copy_from(&sv);
    // load/store of W-wide vectors.
    assert_eq!(src.load::<4>(2), [24., 25., 26., 27.]); // row 2
    assert!(src.is_vector_aligned::<4>(2) && !src.is_vector_aligned::<4>(8));
    assert_eq!(b.0, a.0);
}

// ---- the GPU copy kernel's pipeline, every block and thread, on the CPU ----

static_layout!(SmallMatrix = "(64,256):(256,1)");
static_layout!(BlockTile = "(32,128)");
static_layout!(Threads = "(8,32):(32,1)");

#[test]
fn tensor_copy_pipeline_on_the_cpu() {
    #[repr(align(16))]
    struct Buf([f32; 64 * 256]);
    let mut a = Box::new(Buf(core::array::from_fn(|i| i as f32)));
    let mut b = Box::new(Buf([-1.0; 64 * 256]));
    let src = LayoutTensor::new(&mut a.0, Static::<SmallMatrix>::new()).unwrap();
    let dst = LayoutTensor::new(&mut b.0, Static::<SmallMatrix>::new()).unwrap();
    for by in 0..2 {
        for bx in 0..2 {
            for t in 0..256 {
                let s = src.tile::<BlockTile, 2>([by, bx]).vectorize::<4>().distribute::<Threads, 2>(t);
                let d = dst.tile::<BlockTile, 2>([by, bx]).vectorize::<4>().distribute::<Threads, 2>(t);
                let mut regs = s.make_fragment_like::<4>();
                regs.tensor().copy_from(&s);
                d.copy_from(&regs.tensor());
            }
        }
    }
    assert_eq!(&b.0[..], &a.0[..]);
}

#[test]
fn copy_partitioned_transposes() {
    static_layout!(Col = "(8,12):(1,8)");
    let mut a: Vec<u32> = (0..96).collect();
    let mut b = vec![0u32; 96];
    let src = LayoutTensor::new(&mut a, Static::<Mat>::new()).unwrap();
    let dst = LayoutTensor::new(&mut b, Static::<Col>::new()).unwrap();
    for tid in 0..Thr::SIZE {
        copy_partitioned::<Thr, 2, _, _, _, _, _>(&dst, &src, tid);
    }
    for r in 0..8 {
        for c in 0..12 {
            assert_eq!(b[(r + 8 * c) as usize], (12 * r + c) as u32);
        }
    }
}

#[test]
fn static_masked_tiles() {
    static_layout!(Odd = "(5,7):(7,1)");
    static_layout!(T = "(2,4)");
    let mut v = vec![0u8; 35];
    let t = LayoutTensor::new(&mut v, Static::<Odd>::new()).unwrap();
    let mut ones = [1u8; 8];
    let src = LayoutTensor::new(&mut ones, l("(2,4):(1,2)")).unwrap();
    for i in 0..3 {
        for j in 0..2 {
            let tile = t.tile_masked::<T, 2>([i, j]);
            let rt = t.dynamic().tile_masked(l("(2,4)"), [i, j]).unwrap();
            assert_eq!(tile.bounds(), rt.bounds());
            assert_eq!(t.tile_is_full::<T, 2>([i, j]), i < 2 && j < 1);
            // Add one through every tile: each element must end at exactly 1.
            let mut cur = [0u8; 8];
            let buf = LayoutTensor::new(&mut cur, l("(2,4):(1,2)")).unwrap();
            buf.copy_from(&tile);
            for k in 0..8 {
                buf.set(k, buf.get(k) + src.get(k));
            }
            tile.copy_from(&buf);
        }
    }
    assert!(v.iter().all(|&x| x == 1), "{v:?}");
}

#[test]
fn masked_distribute_touches_exactly_the_in_bounds_elements() {
    static_layout!(Odd = "(7,13):(13,1)");
    static_layout!(T = "(4,8)");
    static_layout!(Th = "(2,4):(4,1)");
    let mut v = vec![0u8; 91];
    let t = LayoutTensor::new(&mut v, Static::<Odd>::new()).unwrap();
    let mut ones = [1u8; 4];
    let one = LayoutTensor::new(&mut ones, l("(2,2):(1,2)")).unwrap();
    for i in 0..2 {
        for j in 0..2 {
            for tid in 0..8 {
                let f = t.tile_masked::<T, 2>([i, j]).distribute::<Th, 2>(tid);
                let mut cur = [0u8; 4];
                let buf = LayoutTensor::new(&mut cur, l("(2,2):(1,2)")).unwrap();
                buf.copy_from(&f);
                for k in 0..4 {
                    buf.set(k, buf.get(k) + one.get(k));
                }
                f.copy_from(&buf);
            }
        }
    }
    assert!(v.iter().all(|&x| x == 1), "{v:?}");
}

#[test]
fn transpose_through_a_padded_tile_on_the_cpu() {
    // The pipeline of the GPU kernel `tensor_transpose_f32`, with the shared tile as a Vec.
    static_layout!(In = "(64,96):(96,1)");
    static_layout!(Out = "(96,64):(64,1)");
    static_layout!(T32 = "(32,32)");
    static_layout!(Padded = "(32,32):(33,1)");
    let mut a: Vec<u32> = (0..64 * 96).collect();
    let mut b = vec![0u32; 64 * 96];
    let src = LayoutTensor::new(&mut a, Static::<In>::new()).unwrap();
    let dst = LayoutTensor::new(&mut b, Static::<Out>::new()).unwrap();
    for by in 0..2 {
        for bx in 0..3 {
            let mut smem_data = vec![0u32; 32 * 33 - 1];
            let smem = LayoutTensor::new(&mut smem_data, Static::<Padded>::new()).unwrap();
            for t in 0..256 {
                copy_partitioned::<Threads, 2, _, _, _, _, _>(&smem, &src.tile::<T32, 2>([by, bx]), t);
            }
            for t in 0..256 {
                copy_partitioned::<Threads, 2, _, _, _, _, _>(&dst.tile::<T32, 2>([bx, by]), &smem.transpose(), t);
            }
        }
    }
    for r in 0..64 {
        for c in 0..96 {
            assert_eq!(b[c * 64 + r], (r * 96 + c) as u32);
        }
    }
}

#[test]
fn copy_from_vector_path_and_its_fallbacks() {
    static_layout!(Row = "(4,16):(16,1)");
    static_layout!(Col = "(4,16):(1,4)");
    #[repr(align(16))]
    struct Buf([f32; 68]);
    let mut a = Buf(core::array::from_fn(|i| i as f32));
    let mut b = Buf([0.0; 68]);
    let mut c = Buf([0.0; 68]);
    let src = LayoutTensor::new(&mut a.0[..64], Static::<Row>::new()).unwrap();
    // Both row-major: runs of 4 contiguous floats, copied as 128-bit vectors.
    LayoutTensor::new(&mut b.0[..64], Static::<Row>::new()).unwrap().copy_from(&src);
    // Misaligned destination (offset by one float): the scalar fallback.
    LayoutTensor::new(&mut c.0[1..65], Static::<Row>::new()).unwrap().copy_from(&src);
    assert_eq!(&b.0[..64], &a.0[..64]);
    assert_eq!(&c.0[1..65], &a.0[..64]);
    // Different orders: element by element.
    let mut d = vec![0f32; 64];
    let dst = LayoutTensor::new(&mut d, Static::<Col>::new()).unwrap();
    dst.copy_from(&LayoutTensor::new(&mut a.0[..64], Static::<Row>::new()).unwrap());
    for r in 0..4 {
        for k in 0..16 {
            assert_eq!(d[r + 4 * k], (16 * r + k) as f32);
        }
    }
}

/// `t[[i, j]]` reads and writes what `at`/`set_at` do, for every coordinate of a nested layout.
#[test]
fn index_reads_and_writes_at_per_mode_coordinates() {
    let l = cute_rs_layout::Layout::parse("((2,2),3):((1,6),2)").unwrap();
    let mut v: Vec<i32> = (0..12).collect();
    let mut t = cute_rs_tensor::LayoutTensor::new(&mut v, l).unwrap();
    for i in 0..4usize {
        for j in 0..3usize {
            assert_eq!(t[[i, j]], t.at([i as i64, j as i64]));
            t[[i, j]] = 100 * i as i32 + j as i32;
            assert_eq!(t.at([i as i64, j as i64]), 100 * i as i32 + j as i32);
        }
    }
}

#[test]
#[should_panic(expected = "mode 1 has extent 3")]
fn index_outside_the_shape_panics_naming_the_mode() {
    let mut v = [0u8; 6];
    let t = cute_rs_tensor::LayoutTensor::new(&mut v, cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap()).unwrap();
    let _ = t[[0, 3]];
}
